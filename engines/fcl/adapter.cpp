/* fcl/adapter.cpp: FCL 0.7.0's fcl::continuousCollide of two Spheres in translation, one solver per CCD type that handles spheres. */
#include <chrono>
#include <cstring>
#include <fcl/geometry/shape/sphere.h>
#include <fcl/narrowphase/continuous_collision.h>
#include "engine_common.h"

extern "C" {
TOI_SOLVER_ABI;
int toi_fcl_naive(toi_solver_result *out, const toi_solver_case *c);
int toi_fcl_ca(toi_solver_result *out, const toi_solver_case *c);
int toi_solver_report_cost(const char *symbol, toi_solver_cost *out);
}

/* The engine's own cost per solver (ABI 3): the time inside fcl::continuousCollide
 * alone, on the steady clock, summed over the calls of this process. */
static toi_solver_cost cost_naive, cost_ca;

/*
 * FCL's CCD solver types (fcl/narrowphase/continuous_collision-inl.h, 0.7.0):
 *
 * - CCDC_NAIVE samples the motion at n = min(num_max_iterations, ceil(1 / toc_err))
 *   fractions i / (n - 1), i = 0..n-1, and answers the first at which the discrete
 *   collide() says "touching or overlapping". With the request's defaults
 *   (num_max_iterations = 10, toc_err = 1e-4) that is ten samples, 1/9 apart.
 * - CCDC_CONSERVATIVE_ADVANCEMENT (ShapeConservativeAdvancement<Sphere, Sphere>)
 *   first calls collide() at the start (touching or overlapping: time 0), then
 *   advances by distance / (approach speed along the centre line) until that step is
 *   at most t_err = 1e-4 of the motion (the traversal node's constant; the request's
 *   toc_err and num_max_iterations are not read) or the fraction passes 1 (no hit).
 *   The GJK solver type (GST_LIBCCD, GST_INDEP) does not matter for two spheres:
 *   both call the same closed-form sphereSphereDistance and sphereSphereIntersect,
 *   so one solver stands for both.
 *
 * Left out, because they do nothing for two spheres:
 * - CCDC_RAY_SHOOTING: its branch is empty in 0.7.0; continuousCollide returns -1
 *   with is_collide false for every pair of geometries.
 * - CCDC_POLYNOMIAL_SOLVER: only for two BVHModel meshes (OT_BVH); for shapes it
 *   prints "Invalid continuous collision checking" and returns -1.
 *
 * Motion: CCDM_TRANS (TranslationMotion, the request's default), from the start
 * transforms to p + W v, the only motion the case describes. Both solvers answer
 * a fraction of the motion; the time is that fraction times the window W.
 */
enum { NAIVE_SAMPLES = 10 };     /* min(num_max_iterations = 10, ceil(1 / toc_err = 1e-4)) */
static const double CA_T_ERR = 1e-4; /* ShapeConservativeAdvancementTraversalNode::t_err */

/* |vB - vA|, scaled by its largest component so that no square under- or overflows. */
static double rel_speed(const toi_solver_case *c) {
  double dv[3], m = 0, sum = 0;
  for (int k = 0; k < 3; k++) {
    dv[k] = c->vb[k] - c->va[k];
    if (fabs(dv[k]) > m) m = fabs(dv[k]);
  }
  if (m == 0 || !isfinite(m)) return m;
  for (int k = 0; k < 3; k++) sum += (dv[k] / m) * (dv[k] / m);
  return m * sqrt(sum);
}

/* What rounding alone moves the gap at a returned time by: FCL computes the
 * positions p + f (W v) in double, so about an ulp of the largest length. A
 * generous 2^-40 of it, added to each tolerance, keeps an exact answer whose
 * gap is -1e-16 from counting as off its contract. */
static double round_slack(const toi_solver_case *c, double reach) {
  double m = reach + c->ra + c->rb;
  for (int k = 0; k < 3; k++) m += fabs(c->pa[k]) + fabs(c->pb[k]);
  return ldexp(m, -40);
}

/* Both spheres move in translation over [0, W]; FCL answers a fraction. */
static int collide(toi_solver_result *out, const toi_solver_case *c, fcl::CCDSolverType type) {
  double W = engine_window(c);
  try {
    fcl::Sphered sa(c->ra), sb(c->rb);
    /* As an FCL user moves a body over a step: the end transform is the start one with the
     * displacement W v added to its translation, in FCL's scalar (Eigen, double). FCL's
     * TranslationMotion then takes its velocity back as the difference of the two translations. */
    const fcl::Vector3d pa(c->pa[0], c->pa[1], c->pa[2]), pb(c->pb[0], c->pb[1], c->pb[2]);
    const fcl::Vector3d va(c->va[0], c->va[1], c->va[2]), vb(c->vb[0], c->vb[1], c->vb[2]);
    fcl::Transform3d a0 = fcl::Transform3d::Identity(), b0 = a0;
    a0.translation() = pa;
    b0.translation() = pb;
    fcl::Transform3d a1 = a0, b1 = b0;
    a1.translation() += va * W;
    b1.translation() += vb * W;
    fcl::ContinuousCollisionRequestd req; /* defaults: 10 iterations, toc_err 1e-4, CCDM_TRANS, GST_LIBCCD */
    req.ccd_solver_type = type;
    fcl::ContinuousCollisionResultd res;
    toi_solver_cost &cost = type == fcl::CCDC_NAIVE ? cost_naive : cost_ca;
    auto t0 = std::chrono::steady_clock::now();
    double toc = fcl::continuousCollide(&sa, a0, a1, &sb, b0, b1, req, res);
    cost.ns += (unsigned long long)std::chrono::duration_cast<std::chrono::nanoseconds>(
                   std::chrono::steady_clock::now() - t0).count();
    cost.calls++;
    if (toc < 0) return TOI_SOLVER_FAILED; /* FCL's "unsupported setting" */
    /* The separation each solver stops at, as a target and a tolerance around it. */
    double reach = rel_speed(c) * W; /* the relative displacement over the window */
    if (type == fcl::CCDC_NAIVE) {
      /* The first overlapping sample lies at or less than one sample interval after
       * contact: a separation in [-reach / 9, 0], one-sided as the stop is (it stops
       * on touching or overlapping, never before contact). */
      out->target = -0.5 * reach / (NAIVE_SAMPLES - 1);
      out->tolerance = 0.5 * reach / (NAIVE_SAMPLES - 1) + round_slack(c, reach);
    } else if (res.is_collide) {
      /* It stops when distance <= t_err * (approach along the centre line) * W,
       * never past contact: a separation in [0, t_err * reach]. */
      out->target = 0.5 * CA_T_ERR * reach;
      out->tolerance = 0.5 * CA_T_ERR * reach + round_slack(c, reach);
    } else {
      /* Its steps never pass the first zero of the convex distance, so it
       * converges on any contact, grazes included: "no hit" claims no touching
       * contact at all in the window. */
      out->target = out->tolerance = 0;
    }
    if (res.is_collide) {
      out->cls = TOI_SOLVER_HIT;
      out->t = res.time_of_contact * W;
    } else {
      out->cls = TOI_SOLVER_NONE;
    }
    return TOI_SOLVER_OK;
  } catch (...) {
    return TOI_SOLVER_FAILED;
  }
}

int toi_fcl_naive(toi_solver_result *out, const toi_solver_case *c) { return collide(out, c, fcl::CCDC_NAIVE); }
int toi_fcl_ca(toi_solver_result *out, const toi_solver_case *c) {
  return collide(out, c, fcl::CCDC_CONSERVATIVE_ADVANCEMENT);
}

int toi_solver_report_cost(const char *symbol, toi_solver_cost *out) {
  const toi_solver_cost *c = !std::strcmp(symbol, "toi_fcl_naive") ? &cost_naive
                             : !std::strcmp(symbol, "toi_fcl_ca")  ? &cost_ca
                                                                   : nullptr;
  if (!c || c->calls == 0) return 0;
  *out = *c;
  return 1;
}

#define WINDOW                                                                                                  \
  "two fcl::Sphered in CCDM_TRANS from p to p + W v (the end transform the start one with W v added to its "  \
  "translation, Eigen double; W = --tmax, else a power of two past any first contact), "                         \
  "time = fraction * W; "

extern "C" const toi_solver_info toi_solver_catalog[] = {
    {"fcl-naive", "toi_fcl_naive",
     "FCL 0.7.0 continuousCollide CCDC_NAIVE, double: " WINDOW
     "discrete collide() at 10 fractions i/9 (num_max_iterations 10, toc_err 1e-4 defaults), the first touching or "
     "overlapping sample is the hit; an initial overlap or touch is a hit at 0; contact between samples is missed; "
     "one-sided: a separation in [-|vB - vA| W / 9, 0], as target -|vB - vA| W / 18 +- |vB - vA| W / 18 (+ 2^-40 "
     "of the lengths, for rounding); 2D cases at z = 0",
     TOI_SOLVER_BINARY64},
    {"fcl-ca", "toi_fcl_ca",
     "FCL 0.7.0 continuousCollide CCDC_CONSERVATIVE_ADVANCEMENT (GJK libccd, closed-form sphere distance), double: " WINDOW
     "advances by distance / approach speed until a step is <= t_err = 1e-4 of the motion (toc_err and "
     "num_max_iterations unused); an initial overlap or touch is a hit at 0; target 0.5e-4 |vB - vA| W "
     "+- 0.5e-4 |vB - vA| W (+ 2^-40 of the lengths, for rounding; stops short of contact) for a hit, 0 (no contact "
     "at all) for no hit; 2D cases at z = 0",
     TOI_SOLVER_BINARY64},
    {0, 0, 0, 0},
};
