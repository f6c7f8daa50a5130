// box2d3.js: Box2D v3's world shape cast (b2World_CastShape, binary32 WebAssembly) of a circle against a
// static circle body, in the relative frame, as a toibench solver.
//
// box2d3-wasm 5.2.0 wraps Box2D v3.2 (erincatto/box2d 3a4f0da, October 2025). It binds b2World_CastShape
// but neither b2TimeOfImpact nor the pair routine b2ShapeCast, so the world cast is the one routine:
// b2World_CastShape -> b2ShapeCastCircle -> b2ShapeCast (src/distance.c) with canEncroach false. Its
// contract, from that code: centre distance target = max(linearSlop, R - linearSlop), tolerance
// 0.25 linearSlop (linearSlop = 0.005 m, lengthUnitsPerMeter 1); a start closer than target + tolerance
// is an initial overlap (hit, fraction 0, zero normal); a hit is reported when the conservative
// advancement reaches centre distance < target + tolerance; fraction in [0, 1) of the translation;
// 20 iterations at most (then no hit).
'use strict';
const { serve, planar, window, engineTime } = require('./protocol');

const LINEAR_SLOP = 0.005;
let B = null;
let world = null;
let filter = null;

// One cast: A a circle of radius rA at its body's origin (local centre 0), the static body placed at pA
// (b2BodyDef.position), as a game places a ball; B the proxy at pB cast along W (vB - vA). The engine
// brings the proxy into the body's frame (b2InvTransformPoint, float) and the hit back to the world.
function cast(c, W) {
  const bd = B.b2DefaultBodyDef();
  bd.position = new B.b2Vec2(c.pa[0], c.pa[1]);
  const body = B.b2CreateBody(world, bd);
  const circ = new B.b2Circle();
  circ.center = new B.b2Vec2(0, 0);
  circ.radius = c.ra;
  B.b2CreateCircleShape(body, B.b2DefaultShapeDef(), circ);
  const proxy = B.b2MakeProxy(new B.b2Vec2(c.pb[0], c.pb[1]), 1, c.rb);
  const tr = new B.b2Vec2(W * (c.vb[0] - c.va[0]), W * (c.vb[1] - c.va[1]));
  let fraction = -1;
  engineTime(() => B.b2World_CastShape(world, proxy, tr, filter, (r) => {
    fraction = r.fraction;
    return r.fraction;
  }));
  B.b2DestroyBody(body);
  // A regular hit has advanced at least once: fraction 0 is b2ShapeCast's initial overlap.
  return { fraction, overlap: fraction === 0 };
}

const solvers = {
  'box2d3-castshape': {
    summary: 'box2d3-wasm 5.2.0 (Box2D v3.2, WebAssembly, float) b2World_CastShape of circle B (proxy at pB) ' +
      'along W (vB - vA) against circle A at the origin of a static body placed at pA (b2BodyDef.position, ' +
      'as a game places a ball), relative frame (W = --tmax, else a power of two past any first contact); ' +
      'time = fraction W; aims at centre distance max(linearSlop, R - linearSlop) +- 0.25 linearSlop ' +
      '(linearSlop 0.005 m); a start within target + tolerance (whatever the motion) -> overlap (the engine: ' +
      'hit at fraction 0), 20 iterations; 2D only; subprocess protocol under node',
    precision: 'binary32',
    solve(c, tmax) {
      if (!planar(c)) return 'unsupported';
      const W = window(c, tmax);
      const R = c.ra + c.rb;
      const r = {
        cls: 'none', t: NaN, target: Math.max(LINEAR_SLOP, R - LINEAR_SLOP) - R, tolerance: 0.25 * LINEAR_SLOP,
      };
      const h = cast(c, W);
      if (h.overlap) { r.cls = 'overlap'; r.t = 0; }
      else if (h.fraction >= 0) { r.cls = 'hit'; r.t = h.fraction * W; }
      return r;
    },
  },
};

async function init() {
  const factory = (await import('box2d3-wasm')).default;
  B = await factory();
  const wd = B.b2DefaultWorldDef();
  world = B.b2CreateWorld(wd);
  filter = B.b2DefaultQueryFilter();
}

serve(solvers, process.argv[2], init).catch((e) => { process.stderr.write(`${e.stack}\n`); process.exit(1); });
