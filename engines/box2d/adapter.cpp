/* box2d/adapter.cpp: Box2D 2.4.1's b2TimeOfImpact and b2ShapeCast on two circle proxies, as a toibench plug-in. */
#include <box2d/box2d.h>
#include <box2d/b2_distance.h>
#include <box2d/b2_time_of_impact.h>
#include <algorithm>
#include <cstring>
#include "engine_common.h"

extern "C" {
TOI_SOLVER_ABI;
int toi_box2d_toi(toi_solver_result *out, const toi_solver_case *c);
int toi_box2d_shapecast(toi_solver_result *out, const toi_solver_case *c);
int toi_solver_report_cost(const char *symbol, toi_solver_cost *out);
}

/* The engine routines' own time: b2TimeOfImpact, b2ShapeCast. */
static toi_solver_cost cost_toi, cost_shapecast;

/* Box2D works in float: the world positions and velocities are floats, and
 * the step's end position is integrated as Box2D's island solver does,
 * c = c0 + h v in float. */
static b2Vec2 vec(const double *x) { return b2Vec2(static_cast<float>(x[0]), static_cast<float>(x[1])); }

int toi_box2d_toi(toi_solver_result *out, const toi_solver_case *c) {
  if (!engine_planar(c)) return TOI_SOLVER_UNSUPPORTED;
  double W = engine_window(c);
  float h = static_cast<float>(W);
  b2CircleShape sa, sb;
  sa.m_radius = static_cast<float>(c->ra);
  sb.m_radius = static_cast<float>(c->rb);
  b2TOIInput in;
  in.proxyA.Set(&sa, 0);
  in.proxyB.Set(&sb, 0);
  const double *p[2] = {c->pa, c->pb}, *v[2] = {c->va, c->vb};
  b2Sweep *sw[2] = {&in.sweepA, &in.sweepB};
  for (int k = 0; k < 2; k++) {
    sw[k]->localCenter.SetZero();
    sw[k]->c0 = vec(p[k]);
    sw[k]->c = sw[k]->c0 + h * vec(v[k]);
    sw[k]->a0 = sw[k]->a = 0.0f;
    sw[k]->alpha0 = 0.0f;
  }
  in.tMax = 1.0f;
  b2TOIOutput o;
  unsigned long long t0 = engine_clock_ns();
  b2TimeOfImpact(&o, &in);
  engine_cost_add(&cost_toi, t0);
  /* The separation Box2D aims at, from b2TimeOfImpact: centre distance
   * max(linearSlop, R - 3 linearSlop), within 0.25 linearSlop. */
  float R = sa.m_radius + sb.m_radius;
  out->target = static_cast<double>(std::max(b2_linearSlop, R - 3.0f * b2_linearSlop)) - (c->ra + c->rb);
  out->tolerance = 0.25 * b2_linearSlop;
  switch (o.state) {
  case b2TOIOutput::e_touching:
    out->cls = TOI_SOLVER_HIT;
    out->t = static_cast<double>(o.t) * W;
    return TOI_SOLVER_OK;
  case b2TOIOutput::e_separated:
    out->cls = TOI_SOLVER_NONE;
    return TOI_SOLVER_OK;
  case b2TOIOutput::e_overlapped:
    out->cls = TOI_SOLVER_OVERLAP;
    return TOI_SOLVER_OK;
  default:
    return TOI_SOLVER_FAILED;
  }
}

int toi_box2d_shapecast(toi_solver_result *out, const toi_solver_case *c) {
  if (!engine_planar(c)) return TOI_SOLVER_UNSUPPORTED;
  double W = engine_window(c);
  float h = static_cast<float>(W);
  b2CircleShape sa, sb;
  sa.m_radius = static_cast<float>(c->ra);
  sb.m_radius = static_cast<float>(c->rb);
  b2ShapeCastInput in;
  in.proxyA.Set(&sa, 0);
  in.proxyB.Set(&sb, 0);
  in.transformA.Set(vec(c->pa), 0.0f);
  in.transformB.Set(vec(c->pb), 0.0f);
  in.translationB = h * (vec(c->vb) - vec(c->va));
  b2ShapeCastOutput o;
  unsigned long long t0 = engine_clock_ns();
  bool hit = b2ShapeCast(&o, &in);
  engine_cost_add(&cost_shapecast, t0);
  /* From b2ShapeCast: radii below polygonRadius count as polygonRadius, and
   * the cast stops at centre distance max(polygonRadius, R' - polygonRadius),
   * within 0.5 linearSlop. */
  float R = std::max(sa.m_radius, b2_polygonRadius) + std::max(sb.m_radius, b2_polygonRadius);
  out->target = static_cast<double>(std::max(b2_polygonRadius, R - b2_polygonRadius)) - (c->ra + c->rb);
  out->tolerance = 0.5 * b2_linearSlop;
  if (hit) {
    out->cls = TOI_SOLVER_HIT;
    out->t = static_cast<double>(o.lambda) * W;
  } else {
    out->cls = TOI_SOLVER_NONE; /* no hit within the translation, or an initial overlap */
  }
  return TOI_SOLVER_OK;
}

int toi_solver_report_cost(const char *symbol, toi_solver_cost *out) {
  if (!std::strcmp(symbol, "toi_box2d_toi")) return engine_cost_report(&cost_toi, out);
  if (!std::strcmp(symbol, "toi_box2d_shapecast")) return engine_cost_report(&cost_shapecast, out);
  return 0;
}

extern "C" const toi_solver_info toi_solver_catalog[] = {
    {"box2d-toi", "toi_box2d_toi",
     "Box2D 2.4.1 b2TimeOfImpact, float: circle proxies on sweeps c0 -> c0 + W v over [0, W] (W = --tmax, else a "
     "power of two past any first contact), tMax 1; aims at centre distance max(linearSlop, R - 3 linearSlop) "
     "+- 0.25 linearSlop (linearSlop 0.005 m, lengths in metres); touching -> hit at t W, separated -> none, "
     "overlapped (coincident centres) -> overlap, failed -> failed; 2D only",
     TOI_SOLVER_BINARY32},
    {"box2d-shapecast", "toi_box2d_shapecast",
     "Box2D 2.4.1 b2ShapeCast (GJK raycast), float: B cast along W (vB - vA) against fixed A over [0, W] "
     "(W = --tmax, else a power of two past any first contact); aims at centre distance max(polygonRadius, "
     "R' - polygonRadius) +- 0.5 linearSlop with radii raised to polygonRadius 0.01 m; hit at lambda W, initial "
     "overlap reported as no hit; 2D only",
     TOI_SOLVER_BINARY32},
    {0, 0, 0, 0},
};
