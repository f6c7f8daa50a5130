// rapier3d.js: rapier 3D's Shape.castShape (parry3d's ball-ball time of impact, binary32 WebAssembly) on
// two Balls, as a toibench solver.
//
// @dimforge/rapier3d-compat 0.21.0 (parry3d, f32). Ball.castShape(pA, rot, W vA, ball B, pB, rot, W vB,
// targetDistance 0, maxToi 1, stopAtPenetration false) -> parry's ball-ball shape cast: the time the
// centre distance reaches rA + rB, none beyond maxToi. The motion over the window W is given as the
// velocities (parry: "movement is velocity multiplied by" the time), so maxToi is 1, exact in f32, where W
// itself can round to 0 or infinity in f32 (W = 2^-150 or 2^200 on the scale family); time = toi W.
// stopAtPenetration false, as rapier's own CCD casts two solid colliders (ccd/toi_entry.rs: only an
// intersection test with a sensor stops at the first penetration): an initial penetration is a hit at
// time 0 only when the balls are approaching, and no hit when they are leaving. Target touching (0).
'use strict';
const RAPIER = require('@dimforge/rapier3d-compat');
const { serve, window, engineTime } = require('./protocol');

const ROT = { x: 0, y: 0, z: 0, w: 1 };
const vec = (v) => ({ x: v[0], y: v[1], z: v[2] });

const solvers = {
  'rapier3d-castshape': {
    summary: '@dimforge/rapier3d-compat 0.21.0 (parry3d, WebAssembly, f32) Shape.castShape: Ball A at pA ' +
      'with velocity W vA against Ball B at pB with velocity W vB (the motion over the window W = --tmax, ' +
      'else a power of two past any first contact), targetDistance 0, maxToi 1 (not W, which can round to 0 ' +
      'or infinity in f32), stopAtPenetration false (as rapier\'s CCD for solid colliders): hit at ' +
      'time_of_impact W, null -> none, time 0 -> overlap (an initial penetration while approaching; none ' +
      'while leaving), a hit at a NaN or infinite time -> failed; target touching (0); 2D at z = 0 and 3D; ' +
      'subprocess protocol under node',
    precision: 'binary32',
    solve(c, tmax) {
      const W = window(c, tmax);
      const a = new RAPIER.Ball(c.ra), b = new RAPIER.Ball(c.rb);
      const pa = vec(c.pa), pb = vec(c.pb);
      const va = vec(c.va.map((x) => W * x)), vb = vec(c.vb.map((x) => W * x));
      const hit = engineTime(() => a.castShape(pa, ROT, va, b, pb, ROT, vb, 0, 1, false));
      if (!hit) return { cls: 'none', t: NaN, target: 0, tolerance: 0 };
      const t = hit.time_of_impact * W;
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
