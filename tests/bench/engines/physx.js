// physx.js (direct): PxGeometryQuery::sweep as a PhysX user calls it, the direction and length taken
// from PhysX's own vector: the relative velocity a PxVec3 (vA - vB, each component a float difference,
// as PxVec3's operator-), unitDir = vel.getNormalized(), maxDist = vel.magnitude() * W (PxReal);
// time = distance / maxDist * W (PxReal division); distance 0 -> overlap. Each PxVec3 method is the
// engine's own (bound in the WebAssembly), so no float rule is restated here.
'use strict';
const { pkg, run } = require('./direct_common');

let P;
async function init() {
  const factory = (await import(pkg('physx-js-webidl'))).default;
  const wasmBinary = require('fs').readFileSync(pkg('physx-js-webidl/physx-js-webidl.wasm'));
  const versions = process.versions;
  Object.defineProperty(process, 'versions', { value: { ...versions, node: undefined }, configurable: true });
  globalThis.window = globalThis;
  try { P = await factory({ wasmBinary }); } finally {
    Object.defineProperty(process, 'versions', { value: versions, configurable: true });
    delete globalThis.window;
  }
  P.CreateFoundation(P.PHYSICS_VERSION, new P.PxDefaultAllocator(), new P.PxDefaultErrorCallback());
}

function sweep(c, W) {
  // A float difference is the double difference rounded once to float (PxVec3 stores floats).
  const vel = new P.PxVec3(c.va[0] - c.vb[0], c.va[1] - c.vb[1], c.va[2] - c.vb[2]);
  const speed = vel.magnitude();
  const dir = speed > 0 ? vel.getNormalized() : new P.PxVec3(1, 0, 0);
  const maxDist = Math.fround(speed * W);
  const q = new P.PxQuat(P.PxIDENTITYEnum.PxIdentity);
  const hit = new P.PxSweepHit();
  const got = P.PxGeometryQuery.prototype.sweep(dir, maxDist, new P.PxSphereGeometry(c.ra),
    new P.PxTransform(new P.PxVec3(c.pa[0], c.pa[1], c.pa[2]), q), new P.PxSphereGeometry(c.rb),
    new P.PxTransform(new P.PxVec3(c.pb[0], c.pb[1], c.pb[2]), q), hit);
  if (!got) return { cls: 'none', t: NaN };
  if (hit.distance === 0) return { cls: 'overlap', t: 0 };
  return { cls: 'hit', t: Math.fround(hit.distance / maxDist) * W };
}

run(init, sweep);
