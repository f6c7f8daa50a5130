/* test_ref_fast_prec.c: the reference in binary32 (reference/fast/ref_fast_prec.c and the precision's rounding): roots rounded once from the exact root, against exact rationals, per call and in a batch, both engines. */
#include <criterion/criterion.h>
#include <float.h>
#include <gmp.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "gen.h"
#include "ref_common.h"
#include "ref_fast_api.h"
#include "reference_check.h"
#include "ref_forms.h"
#include "ref_cases.h"

/*
 * The expected values come from the maths, not from the reference: for a
 * case whose discriminant is a perfect square the roots are rationals,
 * computed from the case's numbers with GMP rationals and rounded to
 * binary32 by integer arithmetic (tp_rn32 in ref_cases.h). Cases along one
 * axis, B at s0 moving v0 towards A at rest, radii summing to R, have the
 * roots (-s0 -+ R)/v0 exactly, which places a root on, just above or just
 * below a binary32 midpoint at will. Both engines must give those bits, the
 * per-call and the batch paths alike (tp_solve). That the two engines agree
 * bit for bit on every family in binary32: test_ref_generic.c.
 */

/* Checks both roots against the exact rationals rounded by tp_rn32, and
 * against want_lo, want_hi when those are not NaN (the value worked out by
 * hand in the test). */
static void tp_check(const toi_case *c, double want_lo, double want_hi, const char *what) {
  toi_ref r;
  tp_solve(&r, c, what);
  mpq_t lo, hi;
  mpq_inits(lo, hi, (mpq_ptr)0);
  cr_assert(tp_exact_roots(lo, hi, c), "%s: the construction should have rational roots", what);
  double elo = tp_rn32(lo), ehi = tp_rn32(hi);
  mpq_clears(lo, hi, (mpq_ptr)0);
  cr_assert(tr_same(r.tlo, elo) && tr_same(r.thi, ehi), "%s: reference %a %a, exact %a %a on %s", what, r.tlo,
            r.thi, elo, ehi, tr_fmt(c));
  if (!isnan(want_lo)) cr_assert(tr_same(elo, want_lo), "%s: exact lower root %a, by hand %a", what, elo, want_lo);
  if (!isnan(want_hi)) cr_assert(tr_same(ehi, want_hi), "%s: exact upper root %a, by hand %a", what, ehi, want_hi);
  cr_assert(tr_same(r.tfwd, r.fwd_is_lo < 0 ? NAN : r.fwd_is_lo ? r.tlo : r.thi), "%s: tfwd", what);
  cr_assert(tr_same(r.trev, r.rev_is_lo < 0 ? NAN : r.rev_is_lo ? r.tlo : r.thi), "%s: trev", what);
}

/* Exact binary32 midpoints as grazing roots (R = 0: D = 0, t* = s0): ties
 * to even both ways. */
Test(ref_prec, midpoint_ties_to_even) {
  const double m_even = 1 + 0x1p-24;     /* between 1 (even) and 1 + 2^-23 (odd) */
  const double m_odd = 1 + 3 * 0x1p-24;  /* between 1 + 2^-23 (odd) and 1 + 2^-22 (even) */
  toi_case c = tp_axis(m_even, -1, 0, 0);
  tp_check(&c, 1.0, 1.0, "midpoint to the lower even");
  c = tp_axis(m_odd, -1, 0, 0);
  tp_check(&c, 1 + 0x1p-22, 1 + 0x1p-22, "midpoint to the upper even");
  /* A rational, non-dyadic velocity: t* = s0 / 3 is no midpoint; 3 s0 with s0 a midpoint is. */
  c = tp_axis(3 * m_odd, -3, 0, 0);
  tp_check(&c, 1 + 0x1p-22, 1 + 0x1p-22, "midpoint through a division");
  /* The other sign: roots -s0. */
  c = tp_axis(m_even, 1, 0, 0);
  tp_check(&c, -1.0, -1.0, "negative midpoint");
  c = tp_axis(m_odd * 0x1p100, -0x1p-20, 0, 0);
  tp_check(&c, (1 + 0x1p-22) * 0x1p120, (1 + 0x1p-22) * 0x1p120, "scaled midpoint");
}

/* Roots m -+ R for a midpoint m: below rounds down, above rounds up, for
 * R from large to tiny (2^-80: the roots are then m in binary64, which
 * double rounding would send to the even neighbour both times). */
Test(ref_prec, just_above_and_below_midpoints) {
  const double m[2] = {1 + 0x1p-24, 1 + 3 * 0x1p-24};
  const double down[2] = {1.0, 1 + 0x1p-23}, up[2] = {1 + 0x1p-23, 1 + 0x1p-22};
  const double R[] = {0x1p-30, 0x1p-52, 0x1p-53, 0x1p-60, 0x1p-80, 0x1p-200, 0x1p-1000};
  for (int k = 0; k < 2; k++)
    for (size_t i = 0; i < sizeof R / sizeof R[0]; i++) {
      char what[96];
      snprintf(what, sizeof what, "midpoint %a -+ %a", m[k], R[i]);
      toi_case c = tp_axis(m[k], -1, R[i] / 2, R[i] / 2);
      tp_check(&c, down[k], up[k], what);
      c = tp_axis(m[k], -1, R[i], 0); /* the same roots from one radius */
      tp_check(&c, down[k], up[k], what);
    }
}

/* The binary64 rounding of the root lands exactly on a binary32 midpoint
 * while the root is not one: RN64(m + 2^-80) = m. The correct binary32
 * rounding goes away from the even neighbour double rounding would give. */
Test(ref_prec, double_rounding_would_be_wrong) {
  const double m = 1 + 0x1p-24, m3 = 1 + 3 * 0x1p-24;
  toi_case c = tp_axis(m, -1, 0x1p-80, 0);
  toi_ref r64;
  cr_assert_eq(tr_solve(&r64, &c), TOI_OK);
  cr_assert_eq(r64.thi, m, "the binary64 root is the midpoint itself");
  cr_assert_eq((double)(float)r64.thi, 1.0, "double rounding would give 1");
  tp_check(&c, 1.0, 1 + 0x1p-23, "m + 2^-80 rounds up");
  c = tp_axis(m3, -1, 0x1p-80, 0);
  cr_assert_eq(tr_solve(&r64, &c), TOI_OK);
  cr_assert_eq(r64.tlo, m3);
  cr_assert_eq((double)(float)r64.tlo, 1 + 0x1p-22, "double rounding would give the even 1 + 2^-22");
  tp_check(&c, 1 + 0x1p-23, 1 + 0x1p-22, "m - 2^-80 rounds down");
  /* Near an irrational neighbour: a velocity of 3 makes (m -+ 2^-80) / 3 no midpoint at all. */
  c = tp_axis(3 * m, -3, 0x1p-80, 0x1p-81);
  tp_check(&c, NAN, NAN, "through a division");
}

/* Binary32 subnormal roots (quantum 2^-149): exact midpoints tie to even,
 * anything above the half-quantum midpoint 2^-150 rounds away from 0, and
 * the double rounding of 2^-150 + tiny would give 0. */
Test(ref_prec, subnormal_roots) {
  const double q = 0x1p-149;
  struct {
    double s0, r, lo, hi;
  } t[] = {
      {0x1p-150, 0, 0.0, 0.0},                /* midpoint 0 | q: to 0 (even) */
      {3 * 0x1p-150, 0, 2 * q, 2 * q},        /* midpoint q | 2q: to 2q */
      {5 * 0x1p-150, 0, 2 * q, 2 * q},        /* midpoint 2q | 3q: to 2q */
      {0x1p-150, 0x1p-200, 0.0, q},           /* just below / above 2^-150 */
      {3 * 0x1p-151, 0, q, q},                /* 0.75 q */
      {0x1p-127 + 0x1p-150, 0, 0x1p-127, 0x1p-127}, /* a midpoint among the subnormals, to even */
      {0x1p-126 - 0x1p-150, 0, 0x1p-126, 0x1p-126}, /* the midpoint below FLT_MIN: to FLT_MIN (even) */
      {0x1p-160, 0, 0.0, 0.0},                /* far below: +0 */
  };
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
    char what[96];
    snprintf(what, sizeof what, "subnormal %a -+ %a", t[i].s0, t[i].r);
    toi_case c = tp_axis(t[i].s0, -1, t[i].r, 0);
    tp_check(&c, t[i].lo, t[i].hi, what);
    /* the negative roots, and the sign of a zero */
    c = tp_axis(t[i].s0, 1, t[i].r, 0);
    tp_check(&c, -t[i].hi, -t[i].lo, what);
  }
  /* The binary64 root is 2^-150 exactly, the root is above it. */
  toi_case c = tp_axis(0x1p-150, -1, 0x1p-210, 0);
  toi_ref r;
  tp_solve(&r, &c, "2^-150 + 2^-210");
  cr_assert_eq(r.thi, q, "rounds up to the smallest subnormal, not to 0");
}

/* Roots beyond FLT_MAX: inf from the midpoint 0x1.ffffffp127 on (ties to
 * the even 2^128, which overflows), FLT_MAX just below it. */
Test(ref_prec, overflowing_roots) {
  const double mid = 0x1.ffffffp127;
  toi_case c = tp_axis(mid, -1, 0, 0);
  tp_check(&c, INFINITY, INFINITY, "the overflow midpoint");
  c = tp_axis(mid, -1, 0x1p60, 0);
  tp_check(&c, FLT_MAX, INFINITY, "either side of the overflow midpoint");
  c = tp_axis(0x1p200, -1, 0x1p100, 0);
  tp_check(&c, INFINITY, INFINITY, "far beyond");
  c = tp_axis(mid, 1, 0x1p-20, 0);
  tp_check(&c, -INFINITY, -FLT_MAX, "negative");
  /* beyond the double range too: t* = 2^1000 / 2^-100 */
  c = tp_axis(0x1p1000, -0x1p-100, 0, 0);
  toi_ref r;
  tp_solve(&r, &c, "beyond DBL_MAX");
  cr_assert(isinf(r.tlo) && r.tlo > 0);
}

/* Random axis cases with roots near binary32 midpoints and values: s0 a
 * midpoint or a float, R a random double of random exponent, v0 a random
 * double: (-s0 -+ R)/v0 exactly, checked against tp_rn32. */
Test(ref_prec, random_rational_roots) {
  tr_rng g = {tr_seed() ^ 0x32u};
  long n = 3000 * tr_scale();
  for (long i = 0; i < n; i++) {
    double s0 = (double)(float)tr_double(&g, -140, 120);
    if (tr_int(&g, 0, 1)) s0 += ldexp(1.0, ilogb(s0) - 24); /* a midpoint (s0 >= 2^-126 mostly) */
    double R = tr_int(&g, 0, 3) ? fabs(tr_double(&g, -200, 0) * s0) : 0;
    double v0 = tr_int(&g, 0, 1) ? -ldexp(1.0, (int)tr_int(&g, -20, 20)) : -tr_double(&g, -10, 10);
    toi_case c = tp_axis(s0, v0, R, 0);
    if (tr_int(&g, 0, 1)) { /* the same along a 3-4-5 direction: s and v scaled by 3/5, 4/5 */
      c = tr_rel2(0.6 * s0, 0.8 * s0, 0.6 * v0, 0.8 * v0, R, 0);
    }
    char what[192];
    snprintf(what, sizeof what, "random case %ld " SEED_MSG, i, SEED_ARGS);
    mpq_t lo, hi;
    mpq_inits(lo, hi, (mpq_ptr)0);
    int rational = tp_exact_roots(lo, hi, &c);
    mpq_clears(lo, hi, (mpq_ptr)0);
    if (rational)
      tp_check(&c, NAN, NAN, what);
    else {
      toi_ref r;
      tp_solve(&r, &c, what);
    }
  }
}

/* A target distance: the same roots through toi_ref_solve (with a target)
 * (R + delta), both engines. */
Test(ref_prec, target_distance) {
  const double m = 1 + 0x1p-24;
  toi_case c = tp_axis(m, -1, 0x1p-80, 0);
  double delta = 0x1p-81; /* R + delta = 1.5 2^-80: the binary64 roots are m */
  toi_ref f, g;
  cr_assert_eq(tr_solve_target_prec(&f, &c, delta, TOI_BINARY32, TOI_REF_FAST), TOI_OK);
  cr_assert_eq(tr_solve_target_prec(&g, &c, delta, TOI_BINARY32, TOI_REF_MPFR), TOI_OK);
  cr_assert(tr_same_ref(&f, &g));
  cr_assert(tr_same(f.tlo, 1.0) && tr_same(f.thi, 1 + 0x1p-23), "%a %a", f.tlo, f.thi);
  cr_assert_eq(tr_solve_target_prec(&f, &c, -1.0, TOI_BINARY32, TOI_REF_FAST), TOI_ERR_RANGE);
  cr_assert_eq(tr_solve_target_prec(&g, &c, -1.0, TOI_BINARY32, TOI_REF_MPFR), TOI_ERR_RANGE);
}
