// rapier.js: Rapier's Shape.castShape (parry's ball-ball time of impact, f32) on two balls, as a toibench solver.
'use strict';
const RAPIER = require('@dimforge/rapier2d-compat');
const { serve, planar, window, engineTime } = require('./protocol');

const solvers = {
  'rapier-castshape': {
    summary: '@dimforge/rapier2d-compat 0.21 Shape.castShape (WebAssembly, f32): ball A at pA moving at vA ' +
      'against ball B at pB moving at vB, targetDistance 0, maxToi W (W = --tmax, else a power of two past ' +
      'any first contact), stopAtPenetration: hit at time_of_impact (time units of the velocities), null -> ' +
      'none, an initial penetration is a hit at 0; target touching (0); 2D only; subprocess protocol under node',
    precision: 'binary32',
    solve(c, tmax) {
      if (!planar(c)) return 'unsupported';
      const W = window(c, tmax);
      const a = new RAPIER.Ball(c.ra), b = new RAPIER.Ball(c.rb);
      const hit = engineTime(() => a.castShape({ x: c.pa[0], y: c.pa[1] }, 0, { x: c.va[0], y: c.va[1] }, b,
        { x: c.pb[0], y: c.pb[1] }, 0, { x: c.vb[0], y: c.vb[1] }, 0, W, true));
      if (!hit) return { cls: 'none', t: NaN, target: 0, tolerance: 0 };
      return { cls: 'hit', t: hit.time_of_impact, target: 0, tolerance: 0 };
    },
  },
};

// The compat package inlines its WebAssembly; init() compiles it once per process.
serve(solvers, process.argv[2], () => RAPIER.init()).catch((e) => {
  process.stderr.write(`${e.stack}\n`);
  process.exit(1);
});
