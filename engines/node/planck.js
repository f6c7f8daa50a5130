// planck.js: planck.js's TimeOfImpact (a double-precision port of Box2D's) on two circles, as a toibench solver.
'use strict';
const planck = require('planck');
const { serve, planar, window, engineTime } = require('./protocol');

const solvers = {
  'planck-toi': {
    summary: 'planck.js 1.4 TimeOfImpact (Box2D 2.x port, JavaScript doubles): circle proxies on sweeps ' +
      'c0 -> c0 + W v over [0, W] (W = --tmax, else a power of two past any first contact), tMax 1; aims at ' +
      'centre distance max(linearSlop, R - 3 linearSlop) +- 0.25 linearSlop (linearSlop 0.005 m); touching -> ' +
      'hit at t W, separated -> none, overlapped -> overlap, failed -> failed; 2D only; subprocess protocol under node',
    precision: 'binary64',
    solve(c, tmax) {
      if (!planar(c)) return 'unsupported';
      const W = window(c, tmax);
      const input = new planck.TOIInput();
      input.proxyA.set(new planck.CircleShape(c.ra), 0);
      input.proxyB.set(new planck.CircleShape(c.rb), 0);
      const sweeps = [[input.sweepA, c.pa, c.va], [input.sweepB, c.pb, c.vb]];
      for (const [sw, p, v] of sweeps) {
        sw.localCenter.setZero();
        sw.c0.setNum(p[0], p[1]);
        sw.c.setNum(p[0] + W * v[0], p[1] + W * v[1]);
        sw.a0 = 0;
        sw.a = 0;
        sw.alpha0 = 0;
      }
      input.tMax = 1;
      const output = new planck.TOIOutput();
      engineTime(() => planck.TimeOfImpact(output, input));
      const slop = planck.Settings.linearSlop * planck.Settings.lengthUnitsPerMeter;
      const R = c.ra + c.rb;
      const r = { cls: 'none', t: NaN, target: Math.max(slop, R - 3 * slop) - R, tolerance: 0.25 * slop };
      const S = planck.TOIOutputState;
      if (output.state === S.e_touching) { r.cls = 'hit'; r.t = output.t * W; }
      else if (output.state === S.e_overlapped) r.cls = 'overlap';
      else if (output.state !== S.e_separated) return { failed: true };
      return r;
    },
  },
};

serve(solvers, process.argv[2]).catch((e) => { process.stderr.write(`${e.stack}\n`); process.exit(1); });
