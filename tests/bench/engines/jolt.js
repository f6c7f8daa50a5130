// jolt.js (direct): Jolt's shape cast called as its samples do (HelloWorld set-up: a JoltInterface with
// one object layer; a static body made with BodyCreationSettings and BodyInterface::CreateAndAddBody).
// Solver jolt-castshape: the body's own TransformedShape (BodyInterface::GetTransformedShape) cast;
// jolt-narrowphase-castshape: PhysicsSystem::GetNarrowPhaseQuery().CastShape. Sphere A from pA along
// W (vA - vB); time = fraction W; fraction 0 -> overlap.
'use strict';
const { pkg, run, solver } = require('./direct_common');

let J, system, bodies;
async function init() {
  J = await require(pkg('jolt-physics')).default();
  const st = new J.JoltSettings();
  const pairs = new J.ObjectLayerPairFilterTable(1);
  pairs.EnableCollision(0, 0);
  const bpl = new J.BroadPhaseLayerInterfaceTable(1, 1);
  bpl.MapObjectToBroadPhaseLayer(0, new J.BroadPhaseLayer(0));
  st.mObjectLayerPairFilter = pairs;
  st.mBroadPhaseLayerInterface = bpl;
  st.mObjectVsBroadPhaseLayerFilter = new J.ObjectVsBroadPhaseLayerFilterTable(bpl, 1, pairs, 1);
  system = new J.JoltInterface(st).GetPhysicsSystem();
  bodies = system.GetBodyInterface();
}

function cast(c, W) {
  const sphereB = new J.SphereShape(c.rb);
  const id = bodies.CreateAndAddBody(new J.BodyCreationSettings(sphereB, new J.RVec3(c.pb[0], c.pb[1], c.pb[2]),
    J.Quat.prototype.sIdentity(), J.EMotionType_Static, 0), J.EActivation_DontActivate);
  const shapeCast = new J.RShapeCast(new J.SphereShape(c.ra), new J.Vec3(1, 1, 1),
    J.RMat44.prototype.sTranslation(new J.RVec3(c.pa[0], c.pa[1], c.pa[2])),
    new J.Vec3(W * (c.va[0] - c.vb[0]), W * (c.va[1] - c.vb[1]), W * (c.va[2] - c.vb[2])));
  const collector = new J.CastShapeClosestHitCollisionCollector();
  const base = new J.RVec3(0, 0, 0);
  if (solver === 'jolt-narrowphase-castshape')
    system.GetNarrowPhaseQuery().CastShape(shapeCast, new J.ShapeCastSettings(), base, collector,
      new J.BroadPhaseLayerFilter(), new J.ObjectLayerFilter(), new J.BodyFilter(), new J.ShapeFilter());
  else
    bodies.GetTransformedShape(id).CastShape(shapeCast, new J.ShapeCastSettings(), base, collector,
      new J.ShapeFilter());
  const f = collector.HadHit() ? collector.mHit.mFraction : -1;
  bodies.RemoveBody(id);
  bodies.DestroyBody(id);
  if (f === 0) return { cls: 'overlap', t: 0 };
  return f > 0 ? { cls: 'hit', t: f * W } : { cls: 'none', t: NaN };
}

run(init, cast);
