/* test_ref_error.c: toi_ref_error (reference/mpfr/ref_error.c): the error of an answer in ulps of the exact root, correctly rounded, against exact quotients and independent high-precision computations, in binary64 and binary32. */
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
 * The error must be the correctly rounded quotient |T - t*| / ulp(t*), with
 * bits the distance in representable numbers: checked against exact answers
 * and independent computations (reference_check.h), with both engines where
 * the test names them. That both engines agree bit for bit everywhere:
 * test_ref_generic.c.
 */

Test(reference_error, exact_root_six) {
  toi_case c = tr_rel2(-10, 3, 1, 0, 1, 4); /* t* = 6, ulp(6) = 2^-50 */
  double u, b;
  cr_assert_eq(tr_error_engine(&u, &b, 6, &c, TOI_FORWARD, TOI_REF_FAST), TOI_OK);
  cr_expect(u == 0 && b == 0, "%g %g", u, b);
  cr_assert_eq(tr_error_engine(&u, &b, nextafter(6, 7), &c, TOI_FORWARD, TOI_REF_FAST), TOI_OK);
  cr_expect(u == 1 && b == 1, "%a %g", u, b);
  cr_assert_eq(tr_error_engine(&u, &b, nextafter(6, 0), &c, TOI_FORWARD, TOI_REF_FAST), TOI_OK);
  cr_expect(u == 1 && b == 1, "%a %g", u, b);
  cr_assert_eq(tr_error_engine(&u, &b, 6 + 0x1p-40, &c, TOI_FORWARD, TOI_REF_FAST), TOI_OK);
  cr_expect(u == 1024 && b == log2(1025.0), "%a %g", u, b);
  cr_assert_eq(tr_error_engine(&u, &b, 7, &c, TOI_FORWARD, TOI_REF_FAST), TOI_OK);
  cr_expect(u == 0x1p50, "%a", u);
  /* No reverse root: NaN. */
  cr_assert_eq(tr_error_engine(&u, &b, 6, &c, TOI_REVERSE, TOI_REF_FAST), TOI_OK);
  cr_expect(isnan(u) && isnan(b));
  cr_assert_eq(tr_error_engine(&u, &b, NAN, &c, TOI_FORWARD, TOI_REF_FAST), TOI_OK);
  cr_expect(isnan(u) && isnan(b));
  cr_assert_eq(tr_error_engine(&u, &b, INFINITY, &c, TOI_FORWARD, TOI_REF_FAST), TOI_OK);
  cr_expect(isinf(u) && u > 0 && isinf(b) && b > 0);
}

Test(reference_error, power_of_two_root) {
  /* t* = 4: the double below is 4 - 2^-51, half an ulp(4) = 2^-50 away. */
  toi_case c = tr_rel2(-5, 0, 1, 0, 0.5, 0.5);
  double u, b;
  cr_assert_eq(tr_error_engine(&u, &b, nextafter(4, 0), &c, TOI_FORWARD, TOI_REF_FAST), TOI_OK);
  cr_expect(u == 0.5 && b == 1, "%a %g", u, b);
  /* The reverse root of an overlap, t* = -3 (contact at 1 and -3). */
  c = tr_rel2(1, 0, 1, 0, 1, 1);
  cr_assert_eq(tr_error_engine(&u, &b, -3, &c, TOI_REVERSE, TOI_REF_FAST), TOI_OK);
  cr_expect(u == 0 && b == 0);
  cr_assert_eq(tr_error_engine(&u, &b, 3, &c, TOI_REVERSE, TOI_REF_FAST), TOI_OK);
  cr_expect(u == 6 * 0x1p51, "%a", u);
  /* 3.0 is the bit pattern 0x4008000000000000; -3 sits as far below 0. */
  cr_expect_eq(b, log2(1.0 + 2.0 * (double)0x4008000000000000LL), "sign change: ord distance");
}

Test(reference_error, third) {
  /* t* = 1/3, RN = 0x1.5555555555555p-2 = (2^54 - 1)/3 2^-54: 1/3 ulp short. */
  toi_case c = tr_rel2(-2, 0, 3, 0, 0.5, 0.5);
  double u, b;
  cr_assert_eq(tr_error_engine(&u, &b, 0x1.5555555555555p-2, &c, TOI_FORWARD, TOI_REF_FAST), TOI_OK);
  cr_expect(fabs(u - 1.0 / 3.0) < 1e-15 && b == 0, "%a", u);
  cr_assert_eq(tr_error_engine(&u, &b, 0x1.5555555555556p-2, &c, TOI_FORWARD, TOI_REF_FAST), TOI_OK);
  cr_expect(fabs(u - 2.0 / 3.0) < 1e-15 && b == 1, "%a", u);
}

Test(reference_error, zero_root_and_overflow) {
  /* Contact at t* = 0: ulp(0) = 2^-1074. */
  toi_case c = tr_rel2(2, 0, -1, 0, 1, 1);
  double u, b;
  cr_assert_eq(tr_error_engine(&u, &b, 0, &c, TOI_FORWARD, TOI_REF_FAST), TOI_OK);
  cr_expect(u == 0 && b == 0);
  cr_assert_eq(tr_error_engine(&u, &b, -0.0, &c, TOI_FORWARD, TOI_REF_FAST), TOI_OK);
  cr_expect(u == 0 && b == 0, "-0 is the same point as +0");
  cr_assert_eq(tr_error_engine(&u, &b, 3 * 0x1p-1074, &c, TOI_FORWARD, TOI_REF_FAST), TOI_OK);
  cr_expect(u == 3 && b == 2, "%a %g", u, b);
  cr_assert_eq(tr_error_engine(&u, &b, 1.0, &c, TOI_FORWARD, TOI_REF_FAST), TOI_OK);
  cr_expect(isinf(u), "%a", u); /* 2^1074 ulps is beyond the double range */
  /* A root beyond DBL_MAX: RN is Inf, so Inf is exact, DBL_MAX is 1 away in bits and
   * (2^54 - 1) 2^970 - DBL_MAX = 2^970 = half the ulp of DBL_MAX. */
  c = tr_rel2(-0x1p54, 0, 0x1p-970, 0, 1, 0);
  cr_assert_eq(tr_error_engine(&u, &b, INFINITY, &c, TOI_FORWARD, TOI_REF_FAST), TOI_OK);
  cr_expect(u == 0 && b == 0);
  cr_assert_eq(tr_error_engine(&u, &b, DBL_MAX, &c, TOI_FORWARD, TOI_REF_FAST), TOI_OK);
  cr_expect(u == 0.5 && b == 1, "%a %g", u, b);
  cr_assert_eq(tr_error_engine(&u, &b, -INFINITY, &c, TOI_FORWARD, TOI_REF_FAST), TOI_OK);
  cr_expect(isinf(u) && isinf(b));
}

/* ulp error of RN(10 - sqrt 3) checked against a 600-bit evaluation. */
Test(reference_error, irrational_against_mpfr) {
  toi_case c = tr_rel2(-10, 1, 1, 0, 1, 1);
  mpfr_t t, d;
  mpfr_inits2(600, t, d, (mpfr_ptr)0);
  mpfr_sqrt_ui(t, 3, MPFR_RNDN);
  mpfr_ui_sub(t, 10, t, MPFR_RNDN);
  double T0 = mpfr_get_d(t, MPFR_RNDN);
  double Ts[] = {T0, nextafter(T0, 0), nextafter(T0, 20), T0 + 0x1p-40, 8.0};
  for (size_t i = 0; i < sizeof Ts / sizeof Ts[0]; i++) {
    double u, b;
    cr_assert_eq(tr_error_engine(&u, &b, Ts[i], &c, TOI_FORWARD, TOI_REF_FAST), TOI_OK);
    mpfr_set_d(d, Ts[i], MPFR_RNDN);
    mpfr_sub(d, d, t, MPFR_RNDN);
    mpfr_abs(d, d, MPFR_RNDN);
    mpfr_mul_2si(d, d, 49, MPFR_RNDN); /* 8 <= t* < 16: ulp 2^-49 */
    double want = mpfr_get_d(d, MPFR_RNDN);
    cr_expect(fabs(u - want) <= 1e-12 * want, "T=%a: %.17g vs %.17g", Ts[i], u, want);
  }
  mpfr_clears(t, d, (mpfr_ptr)0);
}

/* ulp(x) exponent of the double next to the root, for the nextafter bound. */
static int props_is_pow2(double x) {
  int e;
  return x != 0 && isfinite(x) && frexp(x, &e) == 0.5 * copysign(1, x);
}

Test(reference_random, error_of_neighbours) {
  tr_rng r = props_rng(0xaaaa);
  long n = 1500 * tr_scale();
  long checked = 0;
  for (long i = 0; i < n; i++) {
    toi_case c = (i % 5 == 0) ? props_case(&r, -1074, 1000, -1074, 1000) : props_case(&r, -30, 30, -30, 30);
    toi_ref x;
    cr_assert_eq(tr_solve_engine(&x, &c, TOI_REF_FAST), TOI_OK);
    for (int dir = 0; dir < 2; dir++) {
      double t = dir ? x.trev : x.tfwd;
      double u, b;
      cr_assert_eq(tr_error_engine(&u, &b, isnan(t) ? 1.0 : t, &c, (toi_direction)dir, TOI_REF_FAST), TOI_OK);
      if (isnan(t)) {
        cr_assert(isnan(u) && isnan(b));
        continue;
      }
      if (isinf(t)) {
        cr_assert(u == 0 && b == 0);
        continue;
      }
      checked++;
      cr_assert(u <= 0.5 && b == 0, "RN #%ld dir %d: ulp %a bits %g\n" SEED_MSG, i, dir, u, b, SEED_ARGS);
      /* Next to RN(t*): one ulp of t* off, give or take a half; two and a
       * half when RN(t*) is a power of two reached from the binade below. */
      double hi = props_is_pow2(t) ? 2.5 : 1.5;
      double nb[2] = {nextafter(t, INFINITY), nextafter(t, -INFINITY)};
      for (int j = 0; j < 2; j++) {
        if (isinf(nb[j])) continue;
        cr_assert_eq(tr_error_engine(&u, &b, nb[j], &c, (toi_direction)dir, TOI_REF_FAST), TOI_OK);
        cr_assert(b == 1 && u >= 0.5 && u <= hi, "neighbour #%ld dir %d: T %a t %a ulp %a bits %g\n" SEED_MSG, i, dir,
                  nb[j], t, u, b, SEED_ARGS);
      }
    }
  }
  cr_assert_gt(checked, n / 4);
}

/* |T - t*| / ulp(t*) against the naive root evaluated at high precision. */
Test(reference_random, error_against_naive) {
  tr_rng r = props_rng(0xbbbb);
  long n = 300 * tr_scale();
  mpfr_t t, d;
  mpfr_inits2(2000, t, d, (mpfr_ptr)0);
  for (long i = 0; i < n; i++) {
    toi_case c = props_case(&r, -30, 30, -30, 30);
    toi_ref x;
    cr_assert_eq(tr_solve_engine(&x, &c, TOI_REF_FAST), TOI_OK);
    if (isnan(x.tfwd) || x.tfwd == 0) continue;
    /* t* by the textbook formula, 2000 bits, data within 2^+-31: cancellation costs < 300 bits. */
    mpfr_t a, b, cc, s, v, w;
    mpfr_inits2(2000, a, b, cc, s, v, w, (mpfr_ptr)0);
    mpfr_set_zero(a, 1), mpfr_set_zero(b, 1), mpfr_set_zero(cc, 1);
    for (int k = 0; k < c.dim; k++) {
      mpfr_set_d(s, c.pb[k], MPFR_RNDN), mpfr_sub_d(s, s, c.pa[k], MPFR_RNDN);
      mpfr_set_d(v, c.vb[k], MPFR_RNDN), mpfr_sub_d(v, v, c.va[k], MPFR_RNDN);
      mpfr_fma(a, v, v, a, MPFR_RNDN), mpfr_fma(b, s, v, b, MPFR_RNDN), mpfr_fma(cc, s, s, cc, MPFR_RNDN);
    }
    mpfr_set_d(w, c.ra, MPFR_RNDN), mpfr_add_d(w, w, c.rb, MPFR_RNDN), mpfr_sqr(w, w, MPFR_RNDN);
    mpfr_sub(cc, cc, w, MPFR_RNDN);
    mpfr_sqr(w, b, MPFR_RNDN), mpfr_mul(s, a, cc, MPFR_RNDN), mpfr_sub(w, w, s, MPFR_RNDN);
    mpfr_sqrt(w, w, MPFR_RNDN);
    mpfr_neg(t, b, MPFR_RNDN);
    if (x.fwd_is_lo) mpfr_sub(t, t, w, MPFR_RNDN);
    else mpfr_add(t, t, w, MPFR_RNDN);
    mpfr_div(t, t, a, MPFR_RNDN);
    mpfr_clears(a, b, cc, s, v, w, (mpfr_ptr)0);
    long e = mpfr_get_exp(t) - 1;
    if (e < -1022) e = -1022;
    if (e > 1023) e = 1023;
    double Ts[3] = {x.tfwd, x.tfwd * (1 + 0x1p-30), x.tfwd + ldexp(1, (int)e - 52) * (double)tr_int(&r, 2, 1000)};
    for (int j = 0; j < 3; j++) {
      if (!isfinite(Ts[j])) continue;
      double u, bits;
      cr_assert_eq(tr_error_engine(&u, &bits, Ts[j], &c, TOI_FORWARD, TOI_REF_FAST), TOI_OK);
      mpfr_set_d(d, Ts[j], MPFR_RNDN);
      mpfr_sub(d, d, t, MPFR_RNDN);
      mpfr_abs(d, d, MPFR_RNDN);
      mpfr_mul_2si(d, d, 52 - e, MPFR_RNDN);
      double want = mpfr_get_d(d, MPFR_RNDN);
      cr_assert(fabs(u - want) <= 1e-9 * want || (want == 0 && u == 0),
                "error #%ld T %a: %.17g vs %.17g\n" SEED_MSG, i, Ts[j], u, want, SEED_ARGS);
    }
  }
  mpfr_clears(t, d, (mpfr_ptr)0);
}

/* 1D motion with rational, non-dyadic roots: B at (2, 0) moving (-3, 0)
 * towards A at rest at the origin, R = 1: a = 9, b = -6, c = 3, D = 9, roots
 * 1/3 and 1. RN(1/3) = 1/3 - 2^-54/3 and ulp(1/3) = 2^-54, so T = RN(1/3)
 * is 1/3 ulp away, its upper neighbour 2/3, 0 is 2^54/3 ulps away; the
 * quotients are those rationals, correctly rounded. kappa = [(|0| + |2| +
 * (1/3)(|0| + |-3|)) |u_x| + (0.5 + 0.5) R] / (sqrt(D) |t|) with u = s + v t
 * = (1, 0): (3 + 1) / (3 / 3) = 4. */
Test(ref_fast_err, exact_rational_quotients) {
  toi_case c = tr_case2(0, 0, 0, 0, 0.5, 2, 0, -3, 0, 0.5);
  const double third = 0x1.5555555555555p-2; /* RN(1/3) */
  struct {
    double T, ulp, bits;
  } want[] = {
      {third, 0x1.5555555555555p-2, 0},                 /* 1/3 */
      {nextafter(third, 1), 0x1.5555555555555p-1, 1},   /* 2/3 */
      {nextafter(third, 0), 0x1.5555555555555p+0, 1},   /* 4/3 */
      {0, 0x1.5555555555555p+52, NAN},                  /* 2^54/3 */
      {1, 0x1.5555555555555p+53, NAN},                  /* (2/3) 2^54 */
  };
  for (int e = 0; e < 2; e++) {
    const toi_ref_engine eng = e ? TOI_REF_MPFR : TOI_REF_FAST;
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
      double u, b;
      cr_assert_eq(tr_error_engine(&u, &b, want[i].T, &c, TOI_FORWARD, eng), TOI_OK);
      cr_expect(tr_same(u, want[i].ulp), "%s engine, T = %a: ulp %a, want %a", e ? "mpfr" : "fast", want[i].T, u,
                want[i].ulp);
      if (!isnan(want[i].bits)) cr_expect_eq(b, want[i].bits, "T = %a: bits %g", want[i].T, b);
    }
    double k;
    cr_assert_eq(tr_kappa_engine(&k, &c, TOI_FORWARD, eng), TOI_OK);
    cr_expect(tr_same(k, 4.0), "%s engine: kappa %a, want 4", e ? "mpfr" : "fast", k);
    cr_assert_eq(tr_kappa_engine(&k, &c, TOI_REVERSE, eng), TOI_OK);
    cr_expect(isnan(k), "no reverse root: kappa %a", k);
  }
}

/* Dyadic roots, where the quotient is exact: h (B at (5, 0) moving (-1, 0),
 * R = 4: a = 1, b = -5, c = 9, D = 16) has roots 1 and 9, and t* = 1 is a
 * power of two, so T = 1 - 2^-53 lies in the binade below but is measured
 * in ulp(1) = 2^-52: 1/2; g (s = (4, 3), v = (-1, 0), R = 3: a = 1, b = -4,
 * c = 16, D = 0) grazes at t* = 4; z (|s| = 5 = R, v = (-1, -1): c = 0,
 * b = -7) touches now: its forward root is exactly 0, ulp(0) = 2^-1074, so
 * T = 2^-1074 is 1 ulp away and T = 1 overflows the quotient to +Inf. */
Test(ref_fast_err, exact_dyadic_roots) {
  toi_case h = tr_rel2(5, 0, -1, 0, 2, 2);
  toi_case g = tr_rel2(4, 3, -1, 0, 1.5, 1.5);
  toi_case z = tr_rel2(3, 4, -1, -1, 2.5, 2.5);
  struct {
    const toi_case *c;
    double T, ulp;
  } want[] = {
      {&h, 1, 0},
      {&h, 0x1.fffffffffffffp-1, 0.5},
      {&h, 0x1.0000000000001p+0, 1},
      {&h, 2, 0x1p+52},
      {&g, 4, 0},
      {&g, 0x1.0000000000001p+2, 1},
      {&g, 0x1.fffffffffffffp+1, 0.5},
      {&z, 0, 0},
      {&z, -0.0, 0},
      {&z, 0x1p-1074, 1},
      {&z, 0x1.8p-1070, 24},
      {&z, 1, INFINITY},
  };
  for (int e = 0; e < 2; e++) {
    const toi_ref_engine eng = e ? TOI_REF_MPFR : TOI_REF_FAST;
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
      double u, b;
      cr_assert_eq(tr_error_engine(&u, &b, want[i].T, want[i].c, TOI_FORWARD, eng), TOI_OK);
      cr_expect(tr_same(u, want[i].ulp), "%s engine, row %zu, T = %a: ulp %a, want %a", e ? "mpfr" : "fast", i,
                want[i].T, u, want[i].ulp);
    }
  }
}

/*
 * Against an independent computation: t* from the textbook formula at
 * several thousand bits (reference_check.h's precisions), |T - t*| and the
 * ulp of its binade at that precision, then the rounding to double the MPFR
 * manual documents (exponent range and mpfr_subnormalize on an exact mpq).
 * A wrong last bit would need t* within 2^-2000 of a breakpoint. On moderate
 * families only (their data span a few hundred bits at most).
 */
static double fe_independent_ulp(const toi_case *c, toi_direction dir, double T) {
  toi_ref r;
  if (tr_solve_engine(&r, c, TOI_REF_FAST) != TOI_OK) return NAN;
  int lo = ref_dir_root(&r, dir);
  if (lo < 0 || isnan(T)) return NAN;
  long span = tr_span(c, 0);
  mpfr_prec_t pe = 4 * span + 64, pr = 2 * pe + 1024;
  mpfr_t a, b, cc, D, q, x;
  tr_exact_abcd(a, b, cc, D, c, 0, pe);
  mpfr_inits2(pr, q, x, (mpfr_ptr)0);
  mpfr_sqrt(q, D, MPFR_RNDN);
  mpfr_neg(x, b, MPFR_RNDN);
  if (lo)
    mpfr_sub(x, x, q, MPFR_RNDN);
  else
    mpfr_add(x, x, q, MPFR_RNDN);
  mpfr_div(x, x, a, MPFR_RNDN); /* t* */
  long e = mpfr_zero_p(x) ? -1074 : (long)mpfr_get_exp(x) - 1;
  if (e < -1022) e = -1022;
  if (e > 1023) e = 1023;
  mpfr_set_d(q, T, MPFR_RNDN);
  mpfr_sub(x, q, x, MPFR_RNDN);
  mpfr_abs(x, x, MPFR_RNDN);
  mpfr_mul_2si(x, x, -(e - 52), MPFR_RNDN);
  double u = tr_round_fr(x);
  mpfr_clears(a, b, cc, D, q, x, (mpfr_ptr)0);
  return u;
}

Test(ref_fast_err, mpfr_error_correctly_rounded) {
  long n = 300 * tr_scale();
  const toi_gen_family fams[] = {TOI_GEN_GENERIC, TOI_GEN_AIMED, TOI_GEN_NEAR_CONTACT, TOI_GEN_GRAZING, TOI_GEN_SLOW};
  for (size_t f = 0; f < sizeof fams / sizeof fams[0]; f++) {
    toi_gen_opts o;
    toi_gen_opts_default(&o, fams[f]);
    o.seed = tr_seed();
    for (long i = 0; i < n; i++) {
      toi_case c;
      size_t bin;
      cr_assert_eq(toi_gen_case(&c, NULL, &bin, &o, (uint64_t)i), TOI_OK);
      toi_ref r;
      cr_assert_eq(tr_solve_engine(&r, &c, TOI_REF_FAST), TOI_OK);
      for (int dir = 0; dir < 2; dir++) {
        double rn = dir ? r.trev : r.tfwd;
        if (isnan(rn)) continue;
        const int kinds[] = {0, 1, 6, 5, 11, 12, 14};
        for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
          double T = tr_kind_T(kinds[k], rn, NAN), want = fe_independent_ulp(&c, (toi_direction)dir, T);
          for (int e = 0; e < 2; e++) {
            double u, b;
            const toi_ref_engine eng = e ? TOI_REF_MPFR : TOI_REF_FAST;
            cr_assert_eq(tr_error_engine(&u, &b, T, &c, (toi_direction)dir, eng), TOI_OK);
            cr_assert(tr_same(u, want), "%s engine, %s case %ld dir %d T %a: ulp %a, independently %a " SEED_MSG,
                      e ? "mpfr" : "fast", toi_gen_family_name(fams[f]), i, dir, T, u, want, SEED_ARGS);
          }
        }
      }
    }
  }
}

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
