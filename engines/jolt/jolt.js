// jolt.js: Jolt Physics' shape cast of a SphereShape against a SphereShape (binary32 WebAssembly), as a
// toibench solver.
//
// jolt-physics 1.1.0 (JoltPhysics.js, Jolt Physics 5.x in single precision). TransformedShape::CastShape
// -> CollisionDispatch -> ConvexShape::sCastConvexVsConvex -> EPAPenetrationDepth::CastShape ->
// GJKClosestPoint::CastShape (Jolt/Geometry/GJKClosestPoint.h). A sphere is a point with convex radius r,
// so the GJK ray cast works on the centres: conservative advancement that first stops when the centre
// distance is at most R + mCollisionTolerance (1e-4 by default) and never passes touching, so the answer
// lies between touching and a separation of 1e-4: target 0.5e-4 +- 0.5e-4. At lambda 0 the tolerance is
// mCollisionTolerance alone: a start at or inside touching ends GJK with a hit at fraction 0 (an initial
// overlap, whatever the motion), which sCastConvexVsConvex then drops when the contact normal faces away
// from the cast direction (mBackFaceModeConvex IgnoreBackFaces, the default). The window is the
// collector's early-out fraction, 1 + FLT_EPSILON.
'use strict';
const { serve, window, engineTime } = require('./protocol');

const TOLERANCE = 1e-4; // ShapeCastSettings::mCollisionTolerance, the default
let J = null;
let settings = null;
let filter = null;
let origin = null;
let system = null;     // the PhysicsSystem of the JoltInterface (its broadphase and narrowphase)
let bodies = null;     // its BodyInterface
let npq = null;        // its NarrowPhaseQuery
let bpFilter = null, olFilter = null, bodyFilter = null;

// Sphere A at pA cast along W (vA - vB) against sphere B at pB: the relative frame, B at rest.
// narrow: B is a static body of the PhysicsSystem and the cast goes through NarrowPhaseQuery::CastShape
// (broadphase, then the narrowphase of each body it finds); else TransformedShape::CastShape on B alone.
function cast(c, W, narrow) {
  const a = new J.SphereShape(c.ra), b = new J.SphereShape(c.rb);
  a.AddRef();
  b.AddRef();
  const pb = new J.RVec3(c.pb[0], c.pb[1], c.pb[2]), pa = new J.RVec3(c.pa[0], c.pa[1], c.pa[2]);
  const scale = new J.Vec3(1, 1, 1);
  const dir = new J.Vec3(W * (c.va[0] - c.vb[0]), W * (c.va[1] - c.vb[1]), W * (c.va[2] - c.vb[2]));
  const start = J.RMat44.prototype.sTranslation(pa);
  const sc = new J.RShapeCast(a, scale, start, dir);
  const col = new J.CastShapeClosestHitCollisionCollector();
  const tmp = [col, sc, dir, scale, pa, pb];
  if (narrow) {
    const bcs = new J.BodyCreationSettings(b, pb, J.Quat.prototype.sIdentity(), J.EMotionType_Static, 0);
    const id = bodies.CreateAndAddBody(bcs, J.EActivation_DontActivate);
    engineTime(() => npq.CastShape(sc, settings, origin, col, bpFilter, olFilter, bodyFilter, filter));
    bodies.RemoveBody(id);
    bodies.DestroyBody(id);
    tmp.push(bcs);
  } else {
    const ts = new J.TransformedShape();
    ts.mShape = b;
    ts.mShapePositionCOM = pb;
    ts.mShapeRotation = J.Quat.prototype.sIdentity();
    engineTime(() => ts.CastShape(sc, settings, origin, col, filter));
    tmp.push(ts);
  }
  const fraction = col.HadHit() ? col.mHit.mFraction : -1;
  for (const o of tmp) J.destroy(o);
  a.Release();
  b.Release();
  return fraction;
}

function solve(c, tmax, narrow) {
  const W = window(c, tmax);
  const r = { cls: 'none', t: NaN, target: 0.5 * TOLERANCE, tolerance: 0.5 * TOLERANCE };
  const f = cast(c, W, narrow);
  if (f === 0) { r.cls = 'overlap'; r.t = 0; }
  else if (f > 0) { r.cls = 'hit'; r.t = f * W; }
  return r;
}

const COMMON = 'SphereShape A from pA along W (vA - vB) against SphereShape B at pB (GJK cast, convex radius = ' +
  'radius; W = --tmax, else a power of two past any first contact), time = fraction W, fraction in [0, 1 + ' +
  'FLT_EPSILON); default ShapeCastSettings: stops within mCollisionTolerance 1e-4 of touching, target ' +
  '0.5e-4 +- 0.5e-4; a start at or inside touching -> overlap (the engine: fraction 0) when approaching, ' +
  'none when moving apart (back face ignored); 2D at z = 0 and 3D; subprocess protocol under node';

const solvers = {
  'jolt-castshape': {
    summary: 'jolt-physics 1.1.0 (Jolt Physics 5, WebAssembly, float) TransformedShape::CastShape on B alone ' +
      '(no broadphase; see jolt-narrowphase-castshape for the PhysicsSystem query) of ' + COMMON,
    precision: 'binary32',
    solve(c, tmax) { return solve(c, tmax, false); },
  },
  'jolt-narrowphase-castshape': {
    summary: 'jolt-physics 1.1.0 (Jolt Physics 5, WebAssembly, float) PhysicsSystem::GetNarrowPhaseQuery().' +
      'CastShape, the documented query path: B a static body (BodyCreationSettings at pB, added to the ' +
      'system, removed after the query), the broadphase (quad tree of float AABBs, not optimised) ' +
      'picks the bodies the cast reaches, then the same narrowphase cast; accept-all layer, body and shape ' +
      'filters, base offset 0; ' + COMMON,
    precision: 'binary32',
    solve(c, tmax) { return solve(c, tmax, true); },
  },
};

// JoltInterface registers the shapes and the collision dispatch table and owns the PhysicsSystem; one
// object layer (0) in one broadphase layer, colliding with itself.
async function init() {
  J = await require('jolt-physics').default();
  const st = new J.JoltSettings();
  const olf = new J.ObjectLayerPairFilterTable(1);
  olf.EnableCollision(0, 0);
  const bpi = new J.BroadPhaseLayerInterfaceTable(1, 1);
  bpi.MapObjectToBroadPhaseLayer(0, new J.BroadPhaseLayer(0));
  st.mObjectLayerPairFilter = olf;
  st.mBroadPhaseLayerInterface = bpi;
  st.mObjectVsBroadPhaseLayerFilter = new J.ObjectVsBroadPhaseLayerFilterTable(bpi, 1, olf, 1);
  const jolt = new J.JoltInterface(st);
  system = jolt.GetPhysicsSystem();
  bodies = system.GetBodyInterface();
  npq = system.GetNarrowPhaseQuery();
  bpFilter = new J.BroadPhaseLayerFilter();
  olFilter = new J.ObjectLayerFilter();
  bodyFilter = new J.BodyFilter();
  settings = new J.ShapeCastSettings();
  filter = new J.ShapeFilter();
  origin = new J.RVec3(0, 0, 0);
}

serve(solvers, process.argv[2], init).catch((e) => { process.stderr.write(`${e.stack}\n`); process.exit(1); });
