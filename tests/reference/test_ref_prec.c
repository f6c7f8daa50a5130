/* test_ref_prec.c: the reference in binary32: roots rounded once from the exact root, against exact rationals. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <float.h>
#include <gmp.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "gen.h"
#include "ref_fast_api.h"
#include "reference_check.h"
#include "ref_forms.h"

/*
 * The expected values come from the maths, not from the reference: for a
 * case whose discriminant is a perfect square the roots are rationals,
 * computed here from the case's numbers with GMP rationals (a, b, c, D,
 * sqrt D of numerator and denominator) and rounded to binary32 by integer
 * arithmetic (tp_rn32: floor, remainder, ties to even, the subnormal
 * quantum 2^-149, inf from the midpoint above FLT_MAX on). Cases along one
 * axis, B at s0 moving v0 towards A at rest, radii summing to R, have the
 * roots (-s0 -+ R)/v0 exactly, which places a root on, just above or just
 * below a binary32 midpoint at will. Both engines must give those bits,
 * the per-call and the batch paths alike; on the generator's families the
 * two engines must agree bit for bit.
 */

/* ---- exact rational roots and their rounding to binary32 ---- */

/* The roots of a case as rationals when D is a perfect square (returns 1). */
static int tp_exact_roots(mpq_t lo, mpq_t hi, const toi_case *c) {
  mpq_t s, v, t, a, b, cc, D;
  mpq_inits(s, v, t, a, b, cc, D, (mpq_ptr)0);
  for (int i = 0; i < c->dim; i++) {
    mpq_set_d(s, c->pb[i]);
    mpq_set_d(t, c->pa[i]);
    mpq_sub(s, s, t);
    mpq_set_d(v, c->vb[i]);
    mpq_set_d(t, c->va[i]);
    mpq_sub(v, v, t);
    mpq_mul(t, v, v);
    mpq_add(a, a, t);
    mpq_mul(t, s, v);
    mpq_add(b, b, t);
    mpq_mul(t, s, s);
    mpq_add(cc, cc, t);
  }
  mpq_set_d(s, c->ra);
  mpq_set_d(t, c->rb);
  mpq_add(s, s, t);
  mpq_mul(s, s, s);
  mpq_sub(cc, cc, s);
  mpq_mul(D, b, b);
  mpq_mul(t, a, cc);
  mpq_sub(D, D, t);
  int ok = mpq_sgn(a) > 0 && mpq_sgn(D) >= 0 && mpz_perfect_square_p(mpq_numref(D)) &&
           mpz_perfect_square_p(mpq_denref(D));
  if (ok) {
    mpz_sqrt(mpq_numref(t), mpq_numref(D));
    mpz_sqrt(mpq_denref(t), mpq_denref(D));
    mpq_canonicalize(t);
    mpq_neg(b, b);
    mpq_sub(lo, b, t);
    mpq_div(lo, lo, a);
    mpq_add(hi, b, t);
    mpq_div(hi, hi, a);
  }
  mpq_clears(s, v, t, a, b, cc, D, (mpq_ptr)0);
  return ok;
}

/* floor(log2 |x|) for x != 0. */
static long tp_ilog2(const mpq_t x) {
  mpz_t n;
  mpz_init(n);
  mpz_abs(n, mpq_numref(x));
  long e = (long)mpz_sizeinbase(n, 2) - (long)mpz_sizeinbase(mpq_denref(x), 2);
  /* compare |x| with 2^e */
  mpz_t l, r;
  mpz_inits(l, r, (mpz_ptr)0);
  mpz_set(l, n);
  mpz_set(r, mpq_denref(x));
  if (e >= 0)
    mpz_mul_2exp(r, r, (mp_bitcnt_t)e);
  else
    mpz_mul_2exp(l, l, (mp_bitcnt_t)-e);
  if (mpz_cmp(l, r) < 0) e--;
  mpz_clears(n, l, r, (mpz_ptr)0);
  return e;
}

/* The exponent of the binary32 quantum at x: ulp32(x) = 2^tp_q32(x). */
static long tp_q32(const mpq_t x) {
  long e = mpq_sgn(x) ? tp_ilog2(x) : -126;
  if (e < -126) e = -126;
  if (e > 127) e = 127;
  return e - 23;
}

/* RN32(x) by integer arithmetic: m = floor(|x| 2^-qe), ties to even. */
static double tp_rn32(const mpq_t x) {
  if (mpq_sgn(x) == 0) return 0.0;
  long qe = tp_q32(x);
  mpz_t n, d, m, r;
  mpz_inits(n, d, m, r, (mpz_ptr)0);
  mpz_abs(n, mpq_numref(x));
  mpz_set(d, mpq_denref(x));
  if (qe >= 0)
    mpz_mul_2exp(d, d, (mp_bitcnt_t)qe);
  else
    mpz_mul_2exp(n, n, (mp_bitcnt_t)-qe);
  mpz_fdiv_qr(m, r, n, d);
  mpz_mul_2exp(r, r, 1);
  int cmp = mpz_cmp(r, d);
  if (cmp > 0 || (cmp == 0 && mpz_odd_p(m))) mpz_add_ui(m, m, 1);
  double y = ldexp(mpz_get_d(m), (int)qe); /* m <= 2^24: exact */
  if (y > FLT_MAX) y = INFINITY;
  mpz_clears(n, d, m, r, (mpz_ptr)0);
  return mpq_sgn(x) < 0 ? -y : y;
}

/* ---- checking a case ---- */

/* The engines' binary32 answers (per call, both engines; batch, both
 * engines) are one answer; returned in *out. */
static void tp_solve(toi_ref *out, const toi_case *c, const char *what) {
  toi_ref r[4];
  toi_status st[4];
  memset(r, 0x55, sizeof r);
  st[0] = tr_solve_prec(&r[0], c, TOI_BINARY32, TOI_REF_FAST);
  st[1] = tr_solve_prec(&r[1], c, TOI_BINARY32, TOI_REF_MPFR);
  (void)tr_batch_prec(&r[2], &st[2], c, 1, TOI_BINARY32, TOI_REF_FAST);
  (void)tr_batch_prec(&r[3], &st[3], c, 1, TOI_BINARY32, TOI_REF_MPFR);
  for (int k = 0; k < 4; k++) {
    cr_assert_eq(st[k], TOI_OK, "%s: status %d (path %d) on %s", what, (int)st[k], k, tr_fmt(c));
    cr_assert(tr_same_ref(&r[k], &r[1]), "%s: path %d gives %a %a, mpfr %a %a on %s", what, k, r[k].tlo,
              r[k].thi, r[1].tlo, r[1].thi, tr_fmt(c));
  }
  *out = r[1];
}

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

/* B at (s0, 0) moving (v0, 0), A at rest at the origin; radii R/2 each
 * (exact for the powers of two and sums used here: R is passed as ra, rb). */
static toi_case tp_axis(double s0, double v0, double ra, double rb) {
  return tr_rel2(s0, 0, v0, 0, ra, rb);
}

/* ---- constructed cases ---- */

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

/* Binary64 through the precision entry points is the binary64 reference. */
Test(ref_prec, binary64_unchanged) {
  toi_gen_opts o;
  toi_gen_opts_default(&o, TOI_GEN_MIXED);
  o.seed = tr_seed();
  enum { N = 2000 };
  static toi_case c[N];
  static toi_ref a[N], b[N];
  for (int i = 0; i < N; i++) {
    size_t bin;
    cr_assert_eq(toi_gen_case(&c[i], NULL, &bin, &o, (uint64_t)i), TOI_OK);
  }
  for (int e = 0; e < 2; e++) {
    (void)tr_batch_prec(a, NULL, c, N, TOI_BINARY64, (toi_ref_engine)e);
    (void)tr_batch_engine(b, NULL, c, N, (toi_ref_engine)e);
    for (int i = 0; i < N; i++) {
      cr_assert(tr_same_ref(&a[i], &b[i]), "case %d", i);
      toi_ref r;
      cr_assert_eq(tr_solve_prec(&r, &c[i], TOI_BINARY64, (toi_ref_engine)e), TOI_OK);
      cr_assert(tr_same_ref(&r, &b[i]), "case %d", i);
    }
  }
}

Test(ref_prec, bad_arguments) {
  toi_case c = tp_axis(2, -1, 0.5, 0.5);
  toi_ref r;
  cr_assert_eq(tr_solve_prec(&r, &c, (toi_precision)7, TOI_REF_FAST), TOI_ERR_RANGE);
  cr_assert_eq(tr_solve_prec(&r, &c, TOI_BINARY32, (toi_ref_engine)5), TOI_ERR_RANGE);
  double u, b;
  cr_assert_eq(tr_error_prec(&u, &b, 1.0, &c, TOI_FORWARD, (toi_precision)7, TOI_REF_FAST), TOI_ERR_RANGE);
  c.ra = -1;
  cr_assert_eq(tr_solve_prec(&r, &c, TOI_BINARY32, TOI_REF_FAST), TOI_ERR_INPUT);
  cr_assert_eq(tr_solve_prec(&r, &c, TOI_BINARY32, TOI_REF_MPFR), TOI_ERR_INPUT);
}

/* ---- the error in binary32 ulps ---- */

/* |T - t*| / ulp32(t*) exactly, rounded to double (tr_round_q). */
static double tp_ulp32(double T, const mpq_t t) {
  mpq_t d;
  mpq_init(d);
  mpq_set_d(d, T);
  mpq_sub(d, d, t);
  mpq_abs(d, d);
  long qe = tp_q32(t);
  if (qe >= 0)
    mpq_div_2exp(d, d, (mp_bitcnt_t)qe);
  else
    mpq_mul_2exp(d, d, (mp_bitcnt_t)-qe);
  double r = tr_round_q(d);
  mpq_clear(d);
  return r;
}

/* T = RN32(t*) moved by k floats: bits log2(1 + |k|), the ulp exactly; both engines. */
Test(ref_prec, error_in_binary32_ulps) {
  const double cases[][3] = {
      {1 + 0x1p-24, 0x1p-80, -1}, {1 + 3 * 0x1p-24, 0x1p-30, -1}, {3.0, 0.5, -3},
      {0x1p-140, 0x1p-150, -1},   {1e30, 1e20, -1e-10},           {0x1.ffffffp127, 0x1p100, -1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    toi_case c = tp_axis(cases[i][0], cases[i][2], cases[i][1], 0);
    mpq_t lo, hi;
    mpq_inits(lo, hi, (mpq_ptr)0);
    cr_assert(tp_exact_roots(lo, hi, &c));
    toi_ref r;
    tp_solve(&r, &c, "error case");
    int fwd_lo = r.fwd_is_lo;
    cr_assert(fwd_lo >= 0);
    double t32 = fwd_lo ? r.tlo : r.thi;
    for (int k = -3; k <= 3; k++) {
      double T = t32;
      for (int j = 0; j < (k < 0 ? -k : k); j++) T = nextafterf((float)T, k < 0 ? -INFINITY : INFINITY);
      for (int e = 0; e < 2; e++) {
        double u, b;
        cr_assert_eq(tr_error_prec(&u, &b, T, &c, TOI_FORWARD, TOI_BINARY32, (toi_ref_engine)e), TOI_OK);
        if (isinf(T) && !isinf(t32)) {
          cr_assert(isinf(u) && isinf(b));
          continue;
        }
        if (isinf(T)) {
          cr_assert(u == 0 && b == 0);
          continue;
        }
        double want = tp_ulp32(T, fwd_lo ? lo : hi);
        cr_assert(tr_same(u, want), "case %zu k %d engine %d: ulp %a, exact %a", i, k, e, u, want);
        int steps = k < 0 ? -k : k;
        if (isinf(t32)) steps = -1; /* counted from inf: not checked here */
        if (steps >= 0) cr_assert_eq(b, log2(1.0 + steps), "case %zu k %d: bits %a", i, k, b);
      }
    }
    mpq_clears(lo, hi, (mpq_ptr)0);
  }
}

/* ---- the families: both engines bit-identical in binary32 ---- */

ParameterizedTestParameters(ref_prec, families_bit_identical) {
  static int fam[TOI_GEN_FAMILY_COUNT];
  for (int f = 0; f < TOI_GEN_FAMILY_COUNT; f++) fam[f] = f;
  return cr_make_param_array(int, fam, TOI_GEN_FAMILY_COUNT);
}

/* 10^5 cases per family and scale unit: the fast batch and the fast
 * per-call path against the MPFR engine, every field; and the error of a
 * float near the root in binary32 ulps, both engines, on every 16th case. */
ParameterizedTest(int *fam, ref_prec, families_bit_identical) {
  long n = 100000 * tr_scale();
  toi_gen_opts o;
  toi_gen_opts_default(&o, (toi_gen_family)*fam);
  o.seed = tr_seed();
  enum { BLK = 2048 };
  static toi_case c[BLK];
  static toi_ref b[BLK], m[BLK];
  static toi_status sb[BLK], sm[BLK];
  for (long lo = 0; lo < n; lo += BLK) {
    long k = n - lo < BLK ? n - lo : BLK;
    for (long j = 0; j < k; j++) {
      size_t bin;
      if (lo + j == n / 2 && o.dim != 0) o.dim = 3;
      cr_assert_eq(toi_gen_case(&c[j], NULL, &bin, &o, (uint64_t)(lo + j)), TOI_OK);
    }
    (void)tr_batch_prec(b, sb, c, (size_t)k, TOI_BINARY32, TOI_REF_FAST);
    (void)tr_batch_prec(m, sm, c, (size_t)k, TOI_BINARY32, TOI_REF_MPFR);
    for (long j = 0; j < k; j++) {
      cr_assert_eq(sb[j], sm[j], "%s case %ld: status " SEED_MSG, toi_gen_family_name(o.family), lo + j, SEED_ARGS);
      cr_assert(tr_same_ref(&b[j], &m[j]), "%s case %ld: fast %a %a, mpfr %a %a on %s " SEED_MSG,
                toi_gen_family_name(o.family), lo + j, b[j].tlo, b[j].thi, m[j].tlo, m[j].thi, tr_fmt(&c[j]),
                SEED_ARGS);
      if ((lo + j) % 16) continue;
      toi_ref f;
      cr_assert_eq(tr_solve_prec(&f, &c[j], TOI_BINARY32, TOI_REF_FAST), sm[j]);
      cr_assert(tr_same_ref(&f, &m[j]), "%s case %ld: per call", toi_gen_family_name(o.family), lo + j);
      if (isnan(m[j].tfwd)) continue;
      double T = nextafterf((float)m[j].tfwd, INFINITY), uf, bf, um, bm;
      cr_assert_eq(tr_error_prec(&uf, &bf, T, &c[j], TOI_FORWARD, TOI_BINARY32, TOI_REF_FAST), TOI_OK);
      cr_assert_eq(tr_error_prec(&um, &bm, T, &c[j], TOI_FORWARD, TOI_BINARY32, TOI_REF_MPFR), TOI_OK);
      cr_assert(tr_same(uf, um) && tr_same(bf, bm), "%s case %ld: error fast %a %a, mpfr %a %a on %s",
                toi_gen_family_name(o.family), lo + j, uf, bf, um, bm, tr_fmt(&c[j]));
    }
  }
}
