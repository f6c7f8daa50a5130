/* test_ref_kappa.c: toi_ref_kappa (reference/mpfr/ref_kappa.c), the relative condition number of a root, against closed forms and finite differences at high precision. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include "gen.h"
#include "ref_common.h"
#include "ref_fast_api.h"
#include "reference_check.h"
#include "ref_forms.h"
#include "ref_cases.h"

/*
 * kappa = [sum_i (|pA_i| + |pB_i| + |t| (|vA_i| + |vB_i|)) |u_i| + (rA + rB) R] / (sqrt(D) |t|)
 * with u = s + v t and sqrt(D) = |u.v|, worked out by hand below.
 */
Test(reference_kappa, closed_forms) {
  double k;
  /* A at (1, 0) at rest r 1, B at (11, 0) moving (-1, 0) r 1: s = (10, 0), R = 2,
   * t = 8, u = (2, 0), u.v = -2: [(1 + 11 + 8 (0 + 1)) 2 + 2 2] / (2 8) = 44/16. */
  toi_case c = tr_case2(1, 0, 0, 0, 1, 11, 0, -1, 0, 1);
  cr_assert_eq(tr_kappa_engine(&k, &c, TOI_FORWARD, TOI_REF_FAST), TOI_OK);
  cr_expect(fabs(k - 2.75) <= 1e-12, "%.17g", k);
  /* 3-4-5: t = 6, u = (-4, 3), u.v = -4: [(10 + 6) 4 + 3 3 + 5 5] / (4 6) = 98/24. */
  c = tr_rel2(-10, 3, 1, 0, 1, 4);
  cr_assert_eq(tr_kappa_engine(&k, &c, TOI_FORWARD, TOI_REF_FAST), TOI_OK);
  cr_expect(fabs(k - 98.0 / 24.0) <= 1e-12 * k, "%.17g", k);
  /* Time reversal (v -> -v) turns it into the reverse root t = -6 with the same kappa. */
  c = tr_rel2(-10, 3, -1, 0, 1, 4);
  cr_assert_eq(tr_kappa_engine(&k, &c, TOI_REVERSE, TOI_REF_FAST), TOI_OK);
  cr_expect(fabs(k - 98.0 / 24.0) <= 1e-12 * k, "%.17g", k);
  /* Overlap: s = (1, 0), v = (1, 0), R = 2; forward t = 1, u = 2: [(1 + 1) 2 + 4]/(2 1) = 4;
   * reverse t = -3, u = -2: [(1 + 3) 2 + 4]/(2 3) = 2. */
  c = tr_rel2(1, 0, 1, 0, 1, 1);
  cr_assert_eq(tr_kappa_engine(&k, &c, TOI_FORWARD, TOI_REF_FAST), TOI_OK);
  cr_expect(fabs(k - 4) <= 1e-12, "%.17g", k);
  cr_assert_eq(tr_kappa_engine(&k, &c, TOI_REVERSE, TOI_REF_FAST), TOI_OK);
  cr_expect(fabs(k - 2) <= 1e-12, "%.17g", k);
  /* Graze (D = 0) and contact (t* = 0): infinite; no root: NaN. */
  c = tr_rel2(-10, 5, 1, 0, 5, 0);
  cr_assert_eq(tr_kappa_engine(&k, &c, TOI_FORWARD, TOI_REF_FAST), TOI_OK);
  cr_expect(isinf(k) && k > 0);
  c = tr_rel2(2, 0, -1, 0, 1, 1);
  cr_assert_eq(tr_kappa_engine(&k, &c, TOI_FORWARD, TOI_REF_FAST), TOI_OK);
  cr_expect(isinf(k) && k > 0);
  c = tr_rel2(-10, 6, 1, 0, 3, 2);
  cr_assert_eq(tr_kappa_engine(&k, &c, TOI_FORWARD, TOI_REF_FAST), TOI_OK);
  cr_expect(isnan(k));
}

/* Root of the naive quadratic at precision p from inputs x[0..13]
 * (pa, pb, va, vb as 3 each, ra, rb), lower or upper. */
static void kappa_root(mpfr_t t, mpfr_t x[14], int lo, mpfr_prec_t p) {
  mpfr_t s, v, a, b, cc, q, w;
  mpfr_inits2(p, s, v, a, b, cc, q, w, (mpfr_ptr)0);
  mpfr_set_zero(a, 1), mpfr_set_zero(b, 1), mpfr_set_zero(cc, 1);
  for (int i = 0; i < 3; i++) {
    mpfr_sub(s, x[3 + i], x[i], MPFR_RNDN);
    mpfr_sub(v, x[9 + i], x[6 + i], MPFR_RNDN);
    mpfr_fma(a, v, v, a, MPFR_RNDN);
    mpfr_fma(b, s, v, b, MPFR_RNDN);
    mpfr_fma(cc, s, s, cc, MPFR_RNDN);
  }
  mpfr_add(w, x[12], x[13], MPFR_RNDN);
  mpfr_sqr(w, w, MPFR_RNDN);
  mpfr_sub(cc, cc, w, MPFR_RNDN);
  mpfr_sqr(q, b, MPFR_RNDN);
  mpfr_mul(w, a, cc, MPFR_RNDN);
  mpfr_sub(q, q, w, MPFR_RNDN);
  mpfr_sqrt(q, q, MPFR_RNDN);
  mpfr_neg(w, b, MPFR_RNDN);
  if (lo)
    mpfr_sub(w, w, q, MPFR_RNDN);
  else
    mpfr_add(w, w, q, MPFR_RNDN);
  mpfr_div(t, w, a, MPFR_RNDN);
  mpfr_clears(s, v, a, b, cc, q, w, (mpfr_ptr)0);
}

/* kappa from central differences of the root, each input moved by 2^-80 of itself. */
Test(reference_kappa, finite_differences) {
  toi_case cs[] = {tr_case2(0.25, -1, 0.5, 0.125, 1, -9, 2.5, 1.5, -0.25, 1.5),
                   tr_case2(3, 1, -1, 0, 1, 0.5, 1, 2, 0, 2), /* overlap */
                   tr_rel3(-7, 2, 1.5, 1.25, -0.5, 0.125, 1, 1.75)};
  const mpfr_prec_t p = 1000;
  for (size_t n = 0; n < sizeof cs / sizeof cs[0]; n++) {
    toi_case *c = &cs[n];
    toi_ref r;
    cr_assert_eq(tr_solve_engine(&r, c, TOI_REF_FAST), TOI_OK);
    for (int dir = 0; dir < 2; dir++) {
      int lo = dir == 0 ? r.fwd_is_lo : r.rev_is_lo;
      if (lo < 0) continue;
      double k;
      cr_assert_eq(tr_kappa_engine(&k, c, (toi_direction)dir, TOI_REF_FAST), TOI_OK);
      double in[14];
      for (int i = 0; i < 3; i++) in[i] = c->pa[i], in[3 + i] = c->pb[i], in[6 + i] = c->va[i], in[9 + i] = c->vb[i];
      in[12] = c->ra, in[13] = c->rb;
      mpfr_t x[14], t0, tp, tm, sum;
      for (int i = 0; i < 14; i++) mpfr_init2(x[i], p), mpfr_set_d(x[i], in[i], MPFR_RNDN);
      mpfr_inits2(p, t0, tp, tm, sum, (mpfr_ptr)0);
      kappa_root(t0, x, lo, p);
      mpfr_set_zero(sum, 1);
      for (int i = 0; i < 14; i++) {
        if (in[i] == 0) continue;
        double h = fabs(in[i]) * 0x1p-80;
        mpfr_add_d(x[i], x[i], h, MPFR_RNDN);
        kappa_root(tp, x, lo, p);
        mpfr_set_d(x[i], in[i], MPFR_RNDN);
        mpfr_sub_d(x[i], x[i], h, MPFR_RNDN);
        kappa_root(tm, x, lo, p);
        mpfr_set_d(x[i], in[i], MPFR_RNDN);
        mpfr_sub(tp, tp, tm, MPFR_RNDN);
        mpfr_abs(tp, tp, MPFR_RNDN);
        mpfr_mul_d(tp, tp, fabs(in[i]) / (2 * h), MPFR_RNDN);
        mpfr_add(sum, sum, tp, MPFR_RNDN);
      }
      mpfr_abs(t0, t0, MPFR_RNDN);
      mpfr_div(sum, sum, t0, MPFR_RNDN);
      double want = mpfr_get_d(sum, MPFR_RNDN);
      cr_expect(fabs(k - want) <= 1e-6 * want, "case %zu dir %d: %.17g vs %.17g", n, dir, k, want);
      for (int i = 0; i < 14; i++) mpfr_clear(x[i]);
      mpfr_clears(t0, tp, tm, sum, (mpfr_ptr)0);
    }
  }
}
