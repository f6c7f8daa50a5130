// box2d3.js (direct): Box2D v3's world shape cast as a game sets it up: a static body at pA
// (b2DefaultBodyDef, position pA) with a circle of radius rA at its centre; a circle proxy of radius rB
// at pB cast along W (vB - vA) with b2World_CastShape, the callback clipping to each hit's fraction.
// time = fraction W; fraction 0 -> overlap.
'use strict';
const { esm, run } = require('./direct_common');

let B, world;
async function init() {
  B = await (await import(esm('box2d3-wasm'))).default();
  world = B.b2CreateWorld(B.b2DefaultWorldDef());
}

function cast(c, W) {
  if (c.dim !== 2) return 'unsupported';
  const def = B.b2DefaultBodyDef();
  def.position = new B.b2Vec2(c.pa[0], c.pa[1]);
  const body = B.b2CreateBody(world, def);
  const circle = new B.b2Circle();
  circle.center = new B.b2Vec2(0, 0);
  circle.radius = c.ra;
  B.b2CreateCircleShape(body, B.b2DefaultShapeDef(), circle);
  let f = -1;
  B.b2World_CastShape(world, B.b2MakeProxy(new B.b2Vec2(c.pb[0], c.pb[1]), 1, c.rb),
    new B.b2Vec2(W * (c.vb[0] - c.va[0]), W * (c.vb[1] - c.va[1])), B.b2DefaultQueryFilter(),
    (hit) => { f = hit.fraction; return hit.fraction; });
  B.b2DestroyBody(body);
  if (f === 0) return { cls: 'overlap', t: 0 };
  return f > 0 ? { cls: 'hit', t: f * W } : { cls: 'none', t: NaN };
}

run(init, cast);
