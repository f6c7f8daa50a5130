// rapier3d.js (direct): parry's ball-ball shape cast through rapier 3D's Shape.castShape, as rapier's
// CCD sets it for solid colliders: stopAtPenetration false, targetDistance 0; the motion over the window
// W given as the velocities (W vA, W vB) with maxToi 1; time = time_of_impact W; time 0 -> overlap.
'use strict';
const { pkg, run } = require('./direct_common');

const R = require(pkg('@dimforge/rapier3d-compat'));
const v3 = (v, W) => new R.Vector3(W * v[0], W * v[1], W * v[2]);
const id = new R.Quaternion(0, 0, 0, 1);

function cast(c, W) {
  const hit = new R.Ball(c.ra).castShape(v3(c.pa, 1), id, v3(c.va, W), new R.Ball(c.rb), v3(c.pb, 1), id,
    v3(c.vb, W), 0, 1, false);
  if (!hit) return { cls: 'none', t: NaN };
  const t = hit.time_of_impact * W;
  return { cls: t === 0 ? 'overlap' : 'hit', t };
}

run(() => R.init(), cast);
