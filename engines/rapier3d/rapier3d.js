// rapier3d.js: rapier 3D's Shape.castShape (parry3d's ball-ball time of impact, binary32 WebAssembly) on
// two Balls, as a toibench solver.
//
// @dimforge/rapier3d-compat 0.21.0 (parry3d, f32). Ball.castShape(pA, rot, vA, ball B, pB, rot, vB,
// targetDistance 0, maxToi W, stopAtPenetration true) -> parry's ball-ball shape cast: the time the centre
// distance reaches rA + rB, in the velocities' time units, none beyond maxToi; an initial penetration
// (touching included, whatever the motion, as measured here) is a hit at time 0. Target touching (0).
'use strict';
const RAPIER = require('@dimforge/rapier3d-compat');
const { serve, window, engineTime } = require('./protocol');

const ROT = { x: 0, y: 0, z: 0, w: 1 };
const vec = (v) => ({ x: v[0], y: v[1], z: v[2] });

const solvers = {
  'rapier3d-castshape': {
    summary: '@dimforge/rapier3d-compat 0.21.0 (parry3d, WebAssembly, f32) Shape.castShape: Ball A at pA ' +
      'moving at vA against Ball B at pB moving at vB, targetDistance 0, maxToi W (W = --tmax, else a power ' +
      'of two past any first contact), stopAtPenetration: hit at time_of_impact (time units of the ' +
      'velocities), null -> none, time 0 -> overlap (the engine: an initial penetration is a hit at 0), a hit at a NaN or infinite time ' +
      '-> failed; ' +
      'target touching (0); 2D at z = 0 and 3D; subprocess protocol under node',
    precision: 'binary32',
    solve(c, tmax) {
      const W = window(c, tmax);
      const a = new RAPIER.Ball(c.ra), b = new RAPIER.Ball(c.rb);
      const pa = vec(c.pa), va = vec(c.va), pb = vec(c.pb), vb = vec(c.vb);
      const hit = engineTime(() => a.castShape(pa, ROT, va, b, pb, ROT, vb, 0, W, true));
      if (!hit) return { cls: 'none', t: NaN, target: 0, tolerance: 0 };
      const t = hit.time_of_impact;
      // A hit whose time overflowed f32 (seen on the scale family): the protocol takes no NaN time.
      if (!Number.isFinite(t)) return { failed: true };
      return { cls: t === 0 ? 'overlap' : 'hit', t, target: 0, tolerance: 0 };
    },
  },
};

// The compat package inlines its WebAssembly; init() compiles it once per process.
serve(solvers, process.argv[2], () => RAPIER.init()).catch((e) => {
  process.stderr.write(`${e.stack}\n`);
  process.exit(1);
});
