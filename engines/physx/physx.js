// physx.js: PhysX 5's PxGeometryQuery::sweep of a PxSphereGeometry against a PxSphereGeometry (binary32
// WebAssembly), as a toibench solver.
//
// physx-js-webidl 2.7.3 wraps PhysX 5.6.1. PxGeometryQuery::sweep (GuGeometryQuery.cpp) makes sphere A a
// zero-length capsule and calls sweepCapsule_SphereGeom -> Gu::sweepSphereCapsule (GuSweepSphereCapsule.cpp):
// a point-segment distance below (rA + rB)^2 is an initial overlap (distance 0); otherwise
// Gu::sweepSphereSphere (GuSweepSphereSphere.cpp) solves a u^2 + b u + c = 0 in float on the normalized
// sweep, u in [0, 1], and tests `c <= 0 || a == 0` first: a start at or inside touching (c computed in
// float), or no motion at all, is a hit at distance 0, whatever the direction of motion. The hit is at
// touching (target 0, inflation 0, no contact offset in a geometry query); distance = u * maxDist.
'use strict';
const { serve, window, engineTime } = require('./protocol');

let P = null;

// Sphere A at pA swept along W (vA - vB), as unitDir and maxDist, against sphere B at rest at pB.
function sweep(c, W) {
  const d = [c.va[0] - c.vb[0], c.va[1] - c.vb[1], c.va[2] - c.vb[2]];
  const speed = Math.hypot(d[0], d[1], d[2]);
  // No relative motion: a zero-length sweep along any unit direction.
  const u = speed > 0 ? d.map((x) => x / speed) : [1, 0, 0];
  const dist = W * speed;
  const ga = new P.PxSphereGeometry(c.ra), gb = new P.PxSphereGeometry(c.rb);
  const q = new P.PxQuat(P.PxIDENTITYEnum.PxIdentity);
  const va = new P.PxVec3(c.pa[0], c.pa[1], c.pa[2]), vb = new P.PxVec3(c.pb[0], c.pb[1], c.pb[2]);
  const poseA = new P.PxTransform(va, q), poseB = new P.PxTransform(vb, q);
  const dir = new P.PxVec3(u[0], u[1], u[2]);
  const hit = new P.PxSweepHit();
  const got = engineTime(() => P.PxGeometryQuery.prototype.sweep(dir, dist, ga, poseA, gb, poseB, hit));
  const r = got ? { distance: hit.distance, dist } : null;
  for (const o of [hit, dir, poseA, poseB, va, vb, q, ga, gb]) P.destroy(o);
  return r;
}

const solvers = {
  'physx-sweep': {
    summary: 'physx-js-webidl 2.7.3 (PhysX 5.6.1, WebAssembly, float) PxGeometryQuery::sweep of ' +
      'PxSphereGeometry A from pA along unitDir = (vA - vB)/|vA - vB|, maxDist W |vA - vB| against ' +
      'PxSphereGeometry B at pB (W = --tmax, else a power of two past any first contact; default hit flags, ' +
      'inflation 0); time = distance / maxDist * W; target touching (0); `c <= 0 || a == 0` first: a start ' +
      'at or inside touching, or no relative motion, -> overlap (the engine: hit at distance 0) whatever the ' +
      'motion; 2D at z = 0 and 3D; subprocess protocol under node',
    precision: 'binary32',
    solve(c, tmax) {
      const W = window(c, tmax);
      const r = { cls: 'none', t: NaN, target: 0, tolerance: 0 };
      const h = sweep(c, W);
      if (h && h.distance === 0) { r.cls = 'overlap'; r.t = 0; }
      else if (h) { r.cls = 'hit'; r.t = (h.distance / h.dist) * W; }
      return r;
    },
  },
};

// physx-js-webidl 2.7.3 is built for the web only (-sENVIRONMENT=web): its factory refuses to start when
// process.versions.node is set or globalThis.window is not. Both are faked while the factory runs, and the
// WebAssembly is handed in as bytes (no fetch). PxGeometryQuery needs only the foundation (its error callback).
async function init() {
  const factory = (await import('physx-js-webidl')).default;
  const file = require.resolve('physx-js-webidl/physx-js-webidl.wasm');
  const wasmBinary = require('fs').readFileSync(file);
  const versions = process.versions;
  Object.defineProperty(process, 'versions', { value: { ...versions, node: undefined }, configurable: true });
  globalThis.window = globalThis;
  try {
    P = await factory({ wasmBinary });
  } finally {
    Object.defineProperty(process, 'versions', { value: versions, configurable: true });
    delete globalThis.window;
  }
  P.CreateFoundation(P.PHYSICS_VERSION, new P.PxDefaultAllocator(), new P.PxDefaultErrorCallback());
}

serve(solvers, process.argv[2], init).catch((e) => { process.stderr.write(`${e.stack}\n`); process.exit(1); });
