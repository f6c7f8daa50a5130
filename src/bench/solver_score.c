/* solver_score.c: scoring an answer with a step (--tmax), a target separation and the gap at the returned time. */
#include <math.h>
#include <string.h>
#include "solvers.h"

/* Double-double arithmetic: the gap |s + v T| - R cancels to nothing at an
 * accurate contact time, so plain doubles would report their own rounding
 * instead of the solver's error. About 100 bits are enough for the gap of any
 * double T, rounded once at the end. */
typedef struct dd {
  double hi, lo;
} dd;

static dd fast_two_sum(double a, double b) {
  double s = a + b;
  return (dd){s, b - (s - a)};
}

static dd two_sum(double a, double b) {
  double s = a + b, bb = s - a;
  return (dd){s, (a - (s - bb)) + (b - bb)};
}

static dd dd_add(dd x, dd y) {
  dd s = two_sum(x.hi, y.hi);
  return fast_two_sum(s.hi, s.lo + x.lo + y.lo);
}

static dd dd_mul_d(dd x, double d) {
  double p = x.hi * d;
  double e = fma(x.hi, d, -p) + x.lo * d;
  return fast_two_sum(p, e);
}

static dd dd_sqr(dd x) {
  double p = x.hi * x.hi;
  double e = fma(x.hi, x.hi, -p) + 2 * x.hi * x.lo;
  return fast_two_sum(p, e);
}

static dd dd_sqrt(dd x) {
  if (!(x.hi > 0)) return (dd){0, 0};
  double r = sqrt(x.hi);
  double p = r * r, e = fma(r, r, -p);
  return fast_two_sum(r, ((x.hi - p) - e + x.lo) / (2 * r));
}

static double max_abs(const double *x, int n) {
  double m = 0;
  for (int i = 0; i < n; i++)
    if (fabs(x[i]) > m) m = fabs(x[i]);
  return m;
}

double solver_gap(const toi_case *c, double T) {
  if (isnan(T)) return NAN;
  /* Lengths and speeds are scaled apart by powers of two (exact), so that
   * neither pB - pA nor vB - vA can overflow and no square leaves the range. */
  double lens[8] = {c->pa[0], c->pa[1], c->pa[2], c->pb[0], c->pb[1], c->pb[2], c->ra, c->rb};
  double vels[6] = {c->va[0], c->va[1], c->va[2], c->vb[0], c->vb[1], c->vb[2]};
  double ml = max_abs(lens, 8), mv = max_abs(vels, 6);
  int k1 = ml > 0 ? ilogb(ml) : 0, k2 = mv > 0 ? ilogb(mv) : 0;
  double f = ldexp(T, k2 - k1); /* the time in scaled units */
  dd w[3];
  double wmax = 0;
  for (int i = 0; i < 3; i++) {
    dd s = two_sum(ldexp(c->pb[i], -k1), -ldexp(c->pa[i], -k1));
    dd v = two_sum(ldexp(c->vb[i], -k2), -ldexp(c->va[i], -k2));
    w[i] = (v.hi == 0 && v.lo == 0) ? s : dd_add(s, dd_add(dd_mul_d((dd){v.hi, 0}, f), dd_mul_d((dd){v.lo, 0}, f)));
    if (!isfinite(w[i].hi)) return INFINITY;
    if (fabs(w[i].hi) > wmax) wmax = fabs(w[i].hi);
  }
  int e = wmax > 0 ? ilogb(wmax) : 0;
  dd sum = {0, 0};
  for (int i = 0; i < 3; i++) sum = dd_add(sum, dd_sqr((dd){ldexp(w[i].hi, -e), ldexp(w[i].lo, -e)}));
  dd norm = dd_sqrt(sum);
  /* Back to the scale of the radii before subtracting R. */
  norm.hi = ldexp(norm.hi, e);
  norm.lo = ldexp(norm.lo, e);
  if (!isfinite(norm.hi)) return INFINITY;
  dd R = two_sum(ldexp(c->ra, -k1), ldexp(c->rb, -k1));
  dd g = dd_add(norm, (dd){-R.hi, -R.lo});
  return ldexp(g.hi + g.lo, k1);
}

/* ulp(x) = 2^(max(e,-1022)-52) for 2^e <= |x| < 2^(e+1), as toiref.h defines it. */
static double ulp_of(double x) {
  if (x == 0 || !isfinite(x)) return ldexp(1, -1074);
  int e = ilogb(x);
  return ldexp(1, (e < -1022 ? -1022 : e) - 52);
}

/* Forward scoring of a verdict group against an exact group, as score.h defines it. */
static score_kind classify(toi_group gv, toi_group ge) {
  if (gv == ge) return SCORE_AGREE;
  if (gv == TOI_G_NOCONTACT) return SCORE_MISSED;
  if (ge == TOI_G_NOCONTACT) return SCORE_GHOST;
  return SCORE_OTHER;
}

/* "Hit within the step": a contact after tmax is no contact for this step.
 * The exact side is decided on the correctly rounded root, which differs from
 * the exact decision only when RN(t*) = tmax. */
static toi_group exact_group(const toi_ref *ref, double tmax) {
  toi_group g = toi_class_group(ref->cls);
  if (g == TOI_G_CONTACT && isfinite(tmax) && !(ref->tfwd <= tmax)) g = TOI_G_NOCONTACT;
  return g;
}

toi_status solver_score_result(solver_score *out, toi_result r, toi_direction dir, unsigned domain,
                               const toi_case *c, const toi_ref *ref, double tmax, double target,
                               double tolerance) {
  memset(out, 0, sizeof *out);
  out->gap = out->target_ulp = out->target_dt = NAN;
  out->target = target;
  out->target_kind = SCORE_OUT_OF_DOMAIN;
  toi_ref within = *ref;
  toi_result rr = r;
  int contact_verdict = toi_class_group(r.cls) == TOI_G_CONTACT;
  if (dir == TOI_FORWARD && isfinite(tmax)) {
    if (exact_group(ref, tmax) != toi_class_group(ref->cls)) within.cls = TOI_MISS;
    /* A verdict with a time after the step claims no contact in it either. */
    if (contact_verdict && r.t > tmax) {
      rr.cls = TOI_NONE;
      contact_verdict = 0;
    }
  }
  toi_status st = score_result(&out->sc, rr, dir, domain, c, &within);
  if (st != TOI_OK) return st;
  out->sc.verdict = r.cls;
  out->sc.ref_cls = ref->cls;
  if (out->sc.kind == SCORE_OUT_OF_DOMAIN || dir != TOI_FORWARD) return TOI_OK;
  /* Against the solver's own target: the exact class and root of
   * |s + v t| = R + target. */
  toi_ref tref;
  if (target == 0) {
    tref = *ref;
  } else {
    st = toi_ref_solve_target(&tref, c, target);
    if (st == TOI_ERR_RANGE) return TOI_OK; /* R + target < 0: no such problem */
    if (st != TOI_OK) return st;
  }
  toi_group gt = exact_group(&tref, tmax);
  out->target_kind = classify(toi_class_group(rr.cls), gt);
  if (!contact_verdict || !isfinite(r.t)) return TOI_OK;
  out->gap = solver_gap(c, r.t);
  if (out->target_kind != SCORE_AGREE || gt != TOI_G_CONTACT || tref.fwd_is_lo < 0) return TOI_OK;
  out->target_timed = 1;
  out->target_dt = fabs(r.t - tref.tfwd);
  if (target == 0) {
    double bits;
    st = toi_ref_error(&out->target_ulp, &bits, r.t, c, TOI_FORWARD);
    if (st != TOI_OK) return st;
  } else {
    /* Measured from the correctly rounded target root: within 0.5 ULP of the
     * exact measure, far below the errors of engines that aim at a target. */
    out->target_ulp = out->target_dt / ulp_of(tref.tfwd);
  }
  if (tolerance > 0) out->off_tolerance = !(fabs(out->gap - target) <= tolerance);
  return TOI_OK;
}
