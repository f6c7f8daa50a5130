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

const f32 = Math.fround;

// PxVec3 arithmetic in float, as PhysX's own (foundation/PxVec3.h): magnitudeSquared() is
// (x*x + y*y) + z*z, magnitude() sqrtf of it, getNormalized() *this * PxRecipSqrt(m) with
// PxRecipSqrt(m) = 1.0f / sqrtf(m) when m > 0, else the zero vector.
function magnitudeSquared(v) { return f32(f32(f32(v[0] * v[0]) + f32(v[1] * v[1])) + f32(v[2] * v[2])); }
function getNormalized(v) {
  const m = magnitudeSquared(v);
  if (!(m > 0)) return [0, 0, 0];
  const k = f32(1 / f32(Math.sqrt(m)));
  return v.map((x) => f32(x * k));
}

// The query's PhysX objects, made once and filled anew for each query, as a PhysX user keeps its geometries,
// poses and hit buffer: the radii, centres and direction set through their float fields hold the same floats
// their constructors would (each a float parameter), and the hit is only read after a sweep that reports one.
let Q = null;
function queryObjects() {
  const q = new P.PxQuat(P.PxIDENTITYEnum.PxIdentity);
  const zero = new P.PxVec3(0, 0, 0);
  Q = {
    ga: new P.PxSphereGeometry(1), gb: new P.PxSphereGeometry(1),
    poseA: new P.PxTransform(zero, q), poseB: new P.PxTransform(zero, q),
    dir: new P.PxVec3(0, 0, 0), hit: new P.PxSweepHit(),
  };
  Q.pa = Q.poseA.p; // the poses' own centres (PxTransform::p), written in place
  Q.pb = Q.poseB.p;
  P.destroy(zero);
  P.destroy(q);
}

function setVec3(v, x, y, z) {
  v.x = x;
  v.y = y;
  v.z = z;
}

// Sphere A at pA swept along W (vA - vB), as a PhysX user builds the query: the relative velocity
// d = vA - vB a PxVec3, unitDir = d.getNormalized(), maxDist = d.magnitude() * W (a PxReal), all in float.
function sweep(c, W) {
  const d = [f32(c.va[0] - c.vb[0]), f32(c.va[1] - c.vb[1]), f32(c.va[2] - c.vb[2])];
  const speed = f32(Math.sqrt(magnitudeSquared(d)));
  // No relative motion (|d| 0 in float): a zero-length sweep along any unit direction.
  const u = speed > 0 ? getNormalized(d) : [1, 0, 0];
  const dist = f32(speed * W);
  if (!Q) queryObjects();
  Q.ga.radius = c.ra;
  Q.gb.radius = c.rb;
  setVec3(Q.pa, c.pa[0], c.pa[1], c.pa[2]);
  setVec3(Q.pb, c.pb[0], c.pb[1], c.pb[2]);
  setVec3(Q.dir, u[0], u[1], u[2]);
  const got = engineTime(() => P.PxGeometryQuery.prototype.sweep(Q.dir, dist, Q.ga, Q.poseA, Q.gb, Q.poseB, Q.hit));
  return got ? { distance: Q.hit.distance, dist } : null;
}

const solvers = {
  'physx-sweep': {
    summary: 'physx-js-webidl 2.7.3 (PhysX 5.6.1, WebAssembly, float) PxGeometryQuery::sweep of ' +
      'PxSphereGeometry A from pA along unitDir = (vA - vB).getNormalized(), maxDist (vA - vB).magnitude() W ' +
      '(PxVec3 float arithmetic: float subtraction, (x x + y y) + z z, 1.0f / sqrtf) against ' +
      'PxSphereGeometry B at pB (W = --tmax, else a power of two past any first contact; default hit flags, ' +
      'inflation 0); time = float(distance / maxDist) * W; target touching (0); `c <= 0 || a == 0` first: ' +
      'a start at or inside touching, or no relative motion, -> overlap (the engine: hit at distance 0) whatever the ' +
      'motion; a hit at a NaN or infinite time (a float |vA - vB|^2 out of range) -> failed; ' +
      '2D at z = 0 and 3D; subprocess protocol under node',
    precision: 'binary32',
    solve(c, tmax) {
      const W = window(c, tmax);
      const r = { cls: 'none', t: NaN, target: 0, tolerance: 0 };
      const h = sweep(c, W);
      if (h && h.distance === 0) { r.cls = 'overlap'; r.t = 0; }
      // The fraction of the sweep in float (PxReal distance / maxDist), times the window.
      else if (h) { r.cls = 'hit'; r.t = f32(h.distance / h.dist) * W; }
      // A length whose float square leaves the range (|d|^2 overflows: unitDir 0 and maxDist infinite)
      // gives the engine no usable sweep: NaN or infinite time, reported as failed.
      if (r.cls === 'hit' && !Number.isFinite(r.t)) return { failed: true };
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
