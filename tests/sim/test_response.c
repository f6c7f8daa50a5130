/* test_response.c: the double and the certified collision responses against closed forms. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpfr.h>
#include "response.h"
#include "rng.h"
#include "toiref.h"
#include "toiresp.h"
#include "case_build.h"
#include "test_env.h"
#include "ref_forms.h"

static unsigned long long resp_seed(void) { return te_seed(20240611ULL); }

static int resp_scale(void) { return (int)te_scale(); }

/* ulp of x as toi_ref_error defines it */
static double ulp_of(double x) {
  x = fabs(x);
  if (x < DBL_MIN) return 0x1p-1074;
  int e;
  frexp(x, &e);
  return ldexp(1, e - 53);
}

/* ---- head-on, equal masses: the velocities are exchanged exactly ---- */

Test(response, double_head_on_swaps) {
  toi_case c = tc_case2(0, 0, 1, 0, 1, 1, 4, 0, -1, 0, 1, 1);
  toi_response r;
  cr_assert_eq(toi_response_compute(&r, &c, 1, 1), TOI_OK);
  cr_assert(r.pa[0] == 1 && r.pb[0] == 3 && r.n[0] == 1 && r.n[1] == 0);
  cr_assert(r.vn == -2 && r.j == 2);
  cr_assert(r.va[0] == -1 && r.va[1] == 0 && r.vb[0] == 1 && r.vb[1] == 0);
  /* 3D along z */
  toi_case d = c;
  d.dim = 3;
  memset(d.pa, 0, sizeof d.pa), memset(d.pb, 0, sizeof d.pb), memset(d.va, 0, sizeof d.va),
      memset(d.vb, 0, sizeof d.vb);
  d.pb[2] = 4, d.va[2] = 1, d.vb[2] = -1;
  cr_assert_eq(toi_response_compute(&r, &d, 1, 1), TOI_OK);
  cr_assert(r.va[2] == -1 && r.vb[2] == 1 && r.va[0] == 0 && r.vb[1] == 0);
}

Test(response, ref_head_on_swaps) {
  toi_case c = tc_case2(0, 0, 1, 0, 1, 1, 4, 0, -1, 0, 1, 1);
  toi_ref_resp r;
  cr_assert_eq(toi_ref_response(&r, &c, 1), TOI_OK);
  cr_assert_eq(r.cls, TOI_HIT);
  cr_assert(r.applied);
  cr_assert(r.t == 1 && r.pa[0] == 1 && r.pb[0] == 3 && r.n[0] == 1 && r.n[1] == 0);
  cr_assert(r.j == 2 && r.va[0] == -1 && r.vb[0] == 1 && r.va[1] == 0 && r.vb[1] == 0);
  cr_assert(r.ke0 == 1 && r.dke == 0);
}

/* ---- a stationary target hit with a 3-4-5 contact normal ----
   A from (-10, 0) at (5, 0), B at rest at (3, 4), R = 5: |(13 - 5t, 4)| = 5 at t = 2
   (and 3.2), n = (3, 4)/5, v.n = -3. Equal masses: j = 3, vA' = (3.2, -2.4),
   vB' = (1.8, 2.4). mB = 3: j = 4.5, vA' = (2.3, -3.6), vB' = (0.9, 1.2).
   E = 1/2, equal masses: j = 2.25, vA' = (3.65, -1.8), vB' = (1.35, 1.8) and
   KE' - KE = -(1 - 1/4)/2 * 1/2 * 9 = -1.6875. */

typedef struct r345 {
  double mb, E, j, va0, va1, vb0, vb1, dke;
} r345;

static const r345 cases345[] = {
    {1, 1, 3, 3.2, -2.4, 1.8, 2.4, 0},
    {3, 1, 4.5, 2.3, -3.6, 0.9, 1.2, 0},
    {1, 0.5, 2.25, 3.65, -1.8, 1.35, 1.8, -1.6875},
};

Test(response, ref_345_closed_form) {
  for (size_t i = 0; i < sizeof cases345 / sizeof cases345[0]; i++) {
    const r345 *k = &cases345[i];
    toi_case c = tc_case2(-10, 0, 5, 0, 2.5, 1, 3, 4, 0, 0, 2.5, k->mb);
    toi_ref_resp r;
    cr_assert_eq(toi_ref_response(&r, &c, k->E), TOI_OK);
    cr_assert(r.t == 2 && r.pa[0] == 0 && r.pa[1] == 0 && r.pb[0] == 3 && r.pb[1] == 4);
    /* correctly rounded: the C literals are RN of the decimal values */
    cr_assert(r.n[0] == 0.6 && r.n[1] == 0.8, "n = %a %a", r.n[0], r.n[1]);
    cr_assert(r.j == k->j, "case %zu: j = %a", i, r.j);
    cr_assert(r.va[0] == k->va0 && r.va[1] == k->va1, "case %zu: vA' = %a %a", i, r.va[0], r.va[1]);
    cr_assert(r.vb[0] == k->vb0 && r.vb[1] == k->vb1, "case %zu: vB' = %a %a", i, r.vb[0], r.vb[1]);
    cr_assert(r.ke0 == 12.5 && r.dke == k->dke, "case %zu: ke0 %a dke %a", i, r.ke0, r.dke);
    cr_assert(r.ke1 == 12.5 + k->dke && r.mom[0] == 5 && r.mom[1] == 0, "case %zu: ke1 %a", i, r.ke1);
    /* the rounded velocities carry the same energy and momentum, to rounding */
    double ke1 = 0.5 * (r.va[0] * r.va[0] + r.va[1] * r.va[1]) + 0.5 * k->mb * (r.vb[0] * r.vb[0] + r.vb[1] * r.vb[1]);
    cr_assert(fabs(ke1 - r.ke1) <= 8 * DBL_EPSILON * r.ke1, "case %zu: %a vs %a", i, ke1, r.ke1);
    cr_assert(fabs(r.va[0] + k->mb * r.vb[0] - 5) <= 8 * DBL_EPSILON * 5);
  }
}

Test(response, double_345_within_ulps) {
  for (size_t i = 0; i < sizeof cases345 / sizeof cases345[0]; i++) {
    const r345 *k = &cases345[i];
    toi_case c = tc_case2(-10, 0, 5, 0, 2.5, 1, 3, 4, 0, 0, 2.5, k->mb);
    toi_response r;
    cr_assert_eq(toi_response_compute(&r, &c, 2, k->E), TOI_OK);
    double want[4] = {k->va0, k->va1, k->vb0, k->vb1}, got[4] = {r.va[0], r.va[1], r.vb[0], r.vb[1]};
    for (int q = 0; q < 4; q++)
      cr_assert(fabs(got[q] - want[q]) <= 4 * ulp_of(want[q]), "case %zu comp %d: %a vs %a", i, q, got[q],
                want[q]);
    toi_resp_audit a;
    cr_assert_eq(toi_ref_response_audit(&a, &c, k->E, r.pa, r.pb, r.n, r.va, r.vb), TOI_OK);
    cr_assert(a.gap == 0, "gap %g", a.gap); /* the centres at T = 2 are exact */
    cr_assert(fabs(a.ke_err) < 4 * DBL_EPSILON && a.mom_err < 4 * DBL_EPSILON, "%g %g", a.ke_err, a.mom_err);
    cr_assert(a.angle < 4 * DBL_EPSILON && a.ulp_max <= 4, "angle %g ulp %g", a.angle, a.ulp_max);
    /* the audit's ULP error is the distance to the closed form in ulps */
    for (int q = 0; q < 4; q++) {
      double u = fabs(got[q] - want[q]) / ulp_of(want[q]);
      cr_assert(fabs(a.ulp[q] - u) <= 0.5 + 1e-9, "comp %d: audit %g, closed form %g", q, a.ulp[q], u);
    }
  }
}

Test(response, audit_sees_penetration) {
  /* one ulp past t* = 2: the balls are inside each other, gap about -3 dT / 5 */
  toi_case c = tc_case2(-10, 0, 5, 0, 2.5, 1, 3, 4, 0, 0, 2.5, 1);
  double T = nextafter(2, 3);
  toi_response r;
  cr_assert_eq(toi_response_compute(&r, &c, T, 1), TOI_OK);
  toi_resp_audit a;
  cr_assert_eq(toi_ref_response_audit(&a, &c, 1, r.pa, r.pb, r.n, r.va, r.vb), TOI_OK);
  /* pA.x = RN(-10 + RN(5 T)) = 2^-49 exactly; gap = (|(3 - 2^-49, 4)| - 5)/5 */
  cr_assert(r.pa[0] == 0x1p-49);
  double want = -3 * 0x1p-49 / 25;
  cr_assert(a.gap < 0 && fabs(a.gap - want) < 1e-3 * fabs(want), "gap %a want %a", a.gap, want);
}

/* ---- random hits: the reference against an independent long double evaluation ---- */

static toi_case random_hit(toi_rng *g, int dim) {
  for (;;) {
    toi_case c;
    memset(&c, 0, sizeof c);
    strcpy(c.id, "rand");
    c.dim = dim;
    c.ra = toi_rng_uniform(g, 0.5, 2);
    c.rb = toi_rng_uniform(g, 0.5, 2);
    c.ma = toi_rng_uniform(g, 0.25, 4);
    c.mb = toi_rng_uniform(g, 0.25, 4);
    for (int d = 0; d < dim; d++) {
      c.pa[d] = toi_rng_uniform(g, -10, 10);
      c.pb[d] = toi_rng_uniform(g, -10, 10);
      c.va[d] = toi_rng_uniform(g, -5, 5);
    }
    double k = toi_rng_uniform(g, 0.2, 1);
    for (int d = 0; d < dim; d++) c.vb[d] = c.va[d] + k * (c.pa[d] - c.pb[d]) + toi_rng_uniform(g, -0.3, 0.3);
    toi_ref ref;
    if (tr_solve(&ref, &c) == TOI_OK && ref.cls == TOI_HIT) return c;
  }
}

/* An independent evaluation: the textbook formulas at 600 bits (the inputs
   are doubles in [-10, 10], so every difference is exact at that precision
   and the error of the result is far below the rounding to double), rounded
   once. Correct rounding means bit equality, barring a value within 2^-500 of
   a midpoint between doubles. */
Test(response, ref_matches_mpfr_naive) {
  unsigned long long seed = resp_seed();
  toi_rng g;
  toi_rng_seed(&g, seed);
  int n = 300 * resp_scale();
  mpfr_t s[3], v[3], nn[3], a, b, c, R, t, w, vn, fa, fb, tmp;
  for (int d = 0; d < 3; d++) mpfr_inits2(600, s[d], v[d], nn[d], (mpfr_ptr)0);
  mpfr_inits2(600, a, b, c, R, t, w, vn, fa, fb, tmp, (mpfr_ptr)0);
  for (int i = 0; i < n; i++) {
    int dim = 2 + (i & 1);
    double E = (i % 3 == 0) ? 1 : toi_rng_uniform(&g, 0, 1);
    toi_case cs = random_hit(&g, dim);
    toi_ref_resp r;
    cr_assert_eq(toi_ref_response(&r, &cs, E), TOI_OK, "seed %llu case %d", seed, i);
    toi_ref ref;
    cr_assert_eq(tr_solve(&ref, &cs), TOI_OK);
    cr_assert(r.t == ref.tfwd, "seed %llu case %d: t %a, toi_ref_solve %a", seed, i, r.t, ref.tfwd);
    mpfr_set_d(R, cs.ra, MPFR_RNDN);
    mpfr_add_d(R, R, cs.rb, MPFR_RNDN);
    mpfr_set_ui(a, 0, MPFR_RNDN);
    mpfr_set_ui(b, 0, MPFR_RNDN);
    mpfr_sqr(c, R, MPFR_RNDN);
    mpfr_neg(c, c, MPFR_RNDN);
    for (int d = 0; d < dim; d++) {
      mpfr_set_d(s[d], cs.pb[d], MPFR_RNDN);
      mpfr_sub_d(s[d], s[d], cs.pa[d], MPFR_RNDN);
      mpfr_set_d(v[d], cs.vb[d], MPFR_RNDN);
      mpfr_sub_d(v[d], v[d], cs.va[d], MPFR_RNDN);
      mpfr_fma(a, v[d], v[d], a, MPFR_RNDN);
      mpfr_fma(b, s[d], v[d], b, MPFR_RNDN);
      mpfr_fma(c, s[d], s[d], c, MPFR_RNDN);
    }
    /* t = (-b - sqrt(b^2 - a c))/a */
    mpfr_sqr(w, b, MPFR_RNDN);
    mpfr_mul(tmp, a, c, MPFR_RNDN);
    mpfr_sub(w, w, tmp, MPFR_RNDN);
    mpfr_sqrt(w, w, MPFR_RNDN);
    mpfr_add(t, b, w, MPFR_RNDN);
    mpfr_neg(t, t, MPFR_RNDN);
    mpfr_div(t, t, a, MPFR_RNDN);
    cr_assert(mpfr_get_d(t, MPFR_RNDN) == r.t, "seed %llu case %d: t", seed, i);
    /* n = (s + v t)/R, v.n, vA' = vA + (1+E) mB/(mA+mB) (v.n) n */
    mpfr_set_ui(vn, 0, MPFR_RNDN);
    for (int d = 0; d < dim; d++) {
      mpfr_fma(nn[d], v[d], t, s[d], MPFR_RNDN);
      mpfr_div(nn[d], nn[d], R, MPFR_RNDN);
      mpfr_fma(vn, v[d], nn[d], vn, MPFR_RNDN);
      cr_assert(mpfr_get_d(nn[d], MPFR_RNDN) == r.n[d], "seed %llu case %d: n[%d] %a", seed, i, d, r.n[d]);
    }
    mpfr_set_d(tmp, cs.ma, MPFR_RNDN);
    mpfr_add_d(tmp, tmp, cs.mb, MPFR_RNDN);
    mpfr_set_d(fa, E, MPFR_RNDN);
    mpfr_add_ui(fa, fa, 1, MPFR_RNDN);
    mpfr_mul(fa, fa, vn, MPFR_RNDN);
    mpfr_div(fa, fa, tmp, MPFR_RNDN);
    mpfr_mul_d(fb, fa, cs.ma, MPFR_RNDN);
    mpfr_mul_d(fa, fa, cs.mb, MPFR_RNDN);
    for (int d = 0; d < dim; d++) {
      mpfr_mul(w, fa, nn[d], MPFR_RNDN);
      mpfr_add_d(w, w, cs.va[d], MPFR_RNDN);
      cr_assert(mpfr_get_d(w, MPFR_RNDN) == r.va[d], "seed %llu case %d: vA'[%d] %a", seed, i, d, r.va[d]);
      mpfr_mul(w, fb, nn[d], MPFR_RNDN);
      mpfr_d_sub(w, cs.vb[d], w, MPFR_RNDN);
      cr_assert(mpfr_get_d(w, MPFR_RNDN) == r.vb[d], "seed %llu case %d: vB'[%d] %a", seed, i, d, r.vb[d]);
    }
  }
  for (int d = 0; d < 3; d++) mpfr_clears(s[d], v[d], nn[d], (mpfr_ptr)0);
  mpfr_clears(a, b, c, R, t, w, vn, fa, fb, tmp, (mpfr_ptr)0);
}

/* The reference's rounded velocities conserve energy and momentum to a few
   ulps (E = 1) and lose exactly the predicted energy (E < 1): the audit
   measures them against the exact response, and they are correctly rounded
   (ULP error <= 1/2). */
Test(response, ref_conserves) {
  unsigned long long seed = resp_seed() + 1;
  toi_rng g;
  toi_rng_seed(&g, seed);
  int n = 200 * resp_scale();
  for (int i = 0; i < n; i++) {
    int dim = 2 + (i & 1);
    double E = (i % 2 == 0) ? 1 : toi_rng_uniform(&g, 0, 1);
    toi_case c = random_hit(&g, dim);
    toi_ref_resp r;
    cr_assert_eq(toi_ref_response(&r, &c, E), TOI_OK);
    toi_resp_audit a;
    cr_assert_eq(toi_ref_response_audit(&a, &c, E, r.pa, r.pb, r.n, r.va, r.vb), TOI_OK);
    cr_assert(fabs(a.ke_err) <= 4 * DBL_EPSILON, "seed %llu case %d: ke_err %g", seed, i, a.ke_err);
    cr_assert(a.mom_err <= 4 * DBL_EPSILON, "seed %llu case %d: mom_err %g", seed, i, a.mom_err);
    cr_assert(a.ulp_max <= 0.5, "seed %llu case %d: ulp %g", seed, i, a.ulp_max);
    double pmax = 0;
    for (int d = 0; d < dim; d++) pmax = fmax(pmax, fmax(fabs(r.pa[d]), fabs(r.pb[d])));
    cr_assert(fabs(a.gap) <= 2 * dim * ulp_of(pmax) / (c.ra + c.rb), "seed %llu case %d: gap %g", seed, i,
              a.gap);
    cr_assert(a.angle <= 4 * DBL_EPSILON, "seed %llu case %d: angle %g", seed, i, a.angle);
    if (E == 1) cr_assert(r.dke == 0);
    else cr_assert(r.dke < 0);
  }
}

Test(response, ref_at_time_overlap) {
  /* overlapping (distance 1.5 < 2) and approaching: resolved where they are */
  toi_case c = tc_case2(0, 0, 1, 0, 1, 1, 1.5, 0, -1, 0, 1, 1);
  toi_ref_resp r;
  cr_assert_eq(toi_ref_response(&r, &c, 1), TOI_ERR_RANGE);
  cr_assert_eq(r.cls, TOI_OVERLAP);
  cr_assert_eq(toi_ref_response_at(&r, &c, 1, 0), TOI_OK);
  cr_assert(r.applied && r.va[0] == -1 && r.vb[0] == 1 && r.n[0] == 1 && r.j == 2);
  /* same pair separating: nothing applied */
  toi_case d = tc_case2(0, 0, -1, 0, 1, 1, 1.5, 0, 1, 0, 1, 1);
  cr_assert_eq(toi_ref_response_at(&r, &d, 1, 0), TOI_OK);
  cr_assert(!r.applied && r.va[0] == -1 && r.vb[0] == 1 && r.j == 0);
  /* a 3-4-5 normal at T = 1: centres (1, 0) and (4, 4) */
  toi_case e = tc_case2(0, 0, 1, 0, 3, 1, 4, 4, 0, 0, 3, 1);
  cr_assert_eq(toi_ref_response_at(&r, &e, 1, 1), TOI_OK);
  cr_assert(r.pa[0] == 1 && r.pb[0] == 4 && r.pb[1] == 4 && r.n[0] == 0.6 && r.n[1] == 0.8);
  /* v.n = -0.6: j = 0.6, vA' = (1 - 0.36, -0.48), vB' = (0.36, 0.48) */
  cr_assert(r.va[0] == 0.64 && r.va[1] == -0.48 && r.vb[0] == 0.36 && r.vb[1] == 0.48 && r.j == 0.6);
}

Test(response, bad_arguments) {
  toi_case c = tc_case2(0, 0, 1, 0, 1, 1, 4, 0, -1, 0, 1, 1);
  toi_response r;
  toi_ref_resp q;
  cr_assert_eq(toi_response_compute(&r, &c, 1, 1.5), TOI_ERR_RANGE);
  cr_assert_eq(toi_response_compute(&r, &c, NAN, 1), TOI_ERR_RANGE);
  cr_assert(isnan(r.va[0]));
  cr_assert_eq(toi_response_compute(&r, &c, 2, 1), TOI_ERR_RANGE); /* centres coincide at T = 2 */
  cr_assert_eq(toi_ref_response(&q, &c, -0.1), TOI_ERR_RANGE);
  cr_assert_eq(toi_ref_response_at(&q, &c, 1, 2), TOI_ERR_RANGE);
  toi_case miss = tc_case2(0, 0, 1, 0, 1, 1, 4, 5, -1, 0, 1, 1);
  cr_assert_eq(toi_ref_response(&q, &miss, 1), TOI_ERR_RANGE);
  cr_assert_eq(q.cls, TOI_MISS);
}

Test(response, ref_wall) {
  double p[3] = {3, 5, 0}, v[3] = {-2, 0.5, 0}, t, out[3];
  cr_assert_eq(toi_ref_wall(&t, out, p, v, 1, 2, 0, 0), TOI_OK);
  cr_assert(t == 1 && out[0] == 1 && out[1] == 5.5 && out[2] == 0);
  /* t* = (1 - 0.25 - 0.5)/3 = 1/12; the contact is exactly at x = 0.75 */
  double p2[3] = {0.5, 0.1, 0.2}, v2[3] = {3, 0, 1};
  cr_assert_eq(toi_ref_wall(&t, out, p2, v2, 0.25, 3, 0, 1), TOI_OK);
  cr_assert(t == 1.0 / 12 && out[0] == 0.75, "t %a x %a", t, out[0]);
  cr_assert(out[2] == 0.2 + 1.0 / 12 || fabs(out[2] - (0.2 + 1.0 / 12)) <= ulp_of(out[2]));
  double v3[3] = {0, 1, 0};
  cr_assert_eq(toi_ref_wall(&t, out, p2, v3, 0.25, 3, 0, 1), TOI_ERR_RANGE);
}

/* Like the solver, the exact response leaves the caller's MPFR exponent
 * range and flags alone, and answers the same when the caller narrowed the
 * range (its bounds assume a wide one). */
Test(response, ref_mpfr_environment) {
  toi_case c = tc_case2(-10, 0, 5, 0, 2.5, 1, 3, 4, 0, 0, 2.5, 3);
  toi_ref_resp wide, narrow;
  cr_assert_eq(toi_ref_response(&wide, &c, 0.5), TOI_OK);
  mpfr_set_emin(-100);
  mpfr_set_emax(100);
  mpfr_clear_flags();
  cr_assert_eq(toi_ref_response(&narrow, &c, 0.5), TOI_OK);
  cr_expect_eq(memcmp(&wide, &narrow, sizeof wide), 0, "a narrowed exponent range changed the answer");
  cr_expect_eq(mpfr_get_emin(), -100);
  cr_expect_eq(mpfr_get_emax(), 100);
  cr_expect_eq(mpfr_flags_save(), 0, "flags raised by the response leaked");
  mpfr_set_emin(mpfr_get_emin_min());
  mpfr_set_emax(mpfr_get_emax_max());
}
