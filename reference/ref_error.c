/* ref_error.c: toi_ref_error, the error of a double against the exact root in ulps and in bits. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "ref_internal.h"

/* Position of a double in the ordered set of doubles; +0 and -0 coincide. */
static int64_t ref_ord(double d) {
  int64_t i;
  memcpy(&i, &d, sizeof i);
  return i < 0 ? -(i & INT64_MAX) : i;
}

/* log2(1 + |ord(a) - ord(b)|); the distance can exceed INT64_MAX. */
static double ref_bits(double a, double b) {
  int64_t oa = ref_ord(a), ob = ref_ord(b);
  uint64_t dist = oa >= ob ? (uint64_t)oa - (uint64_t)ob : (uint64_t)ob - (uint64_t)oa;
  return log2(1.0 + (double)dist);
}

/* Exponent of ulp(t*) for floor(log2 |t*|) = e: subnormal spacing below
 * 2^-1022; above the double range (a root that rounds to Inf) the ulp of
 * DBL_MAX, 2^971, so that a finite answer gets a finite error. */
static long ref_ulp_exp(long e) {
  if (e < -1022) e = -1022;
  if (e > 1023) e = 1023;
  return e - 52;
}

/* Rational root: T - t* exactly in mpq. */
static double ref_ulp_rational(ref_ctx *x, int lo, double T) {
  mpq_ptr t = x->q[0], d = x->q[1];
  long e2;
  ref_root_rational(x, lo, mpq_numref(t), mpq_denref(t), &e2);
  mpq_canonicalize(t);
  long ue = -1074; /* ulp(0) */
  if (mpq_sgn(t) != 0) {
    /* floor(log2 |num/den|) is bits(num) - bits(den) or one less. */
    mpz_ptr num = x->z[0];
    mpz_abs(num, mpq_numref(t));
    long e = (long)mpz_sizeinbase(num, 2) - (long)mpz_sizeinbase(mpq_denref(t), 2);
    mpz_ptr den = x->z[1];
    if (e >= 0) {
      mpz_mul_2exp(den, mpq_denref(t), (mp_bitcnt_t)e);
    } else {
      mpz_mul_2exp(num, num, (mp_bitcnt_t)-e);
      mpz_set(den, mpq_denref(t));
    }
    if (mpz_cmp(num, den) < 0) e--;
    ue = ref_ulp_exp(e + e2);
  }
  if (e2 >= 0)
    mpq_mul_2exp(t, t, (mp_bitcnt_t)e2);
  else
    mpq_div_2exp(t, t, (mp_bitcnt_t)-e2);
  mpq_set_d(d, T); /* exact */
  mpq_sub(d, d, t);
  mpq_abs(d, d);
  if (ue <= 0)
    mpq_mul_2exp(d, d, (mp_bitcnt_t)-ue);
  else
    mpq_div_2exp(d, d, (mp_bitcnt_t)ue);
  mpfr_ptr f = x->f[6];
  mpfr_set_prec(f, 64);
  mpfr_set_q(f, d, MPFR_RNDN);
  return mpfr_get_d(f, MPFR_RNDN);
}

/*
 * Irrational root: Ziv's loop. t approximates t* with |t - t*| < 2^(EXP(t)+4-p)
 * and dif = RN_p(T - t) has relative error <= 2^-p against T - t. Once
 * EXP(dif) >= EXP(t) + 37 - p, |dif| >= 2^(EXP(t)+36-p) >= 2^32 |t - t*|, so
 * dif is T - t* within a relative 2^-32 + 2^-p; with the final rounding to
 * double the ulp error is right to better than 2^-30. T - t* is never 0
 * (T is rational), so the loop ends. Once mpfr_can_round succeeded at 54
 * bits, t and t* lie between the same two consecutive 54-bit numbers, hence
 * in the same binade: floor(log2 |t*|) = EXP(t) - 1.
 */
static double ref_ulp_irrational(ref_ctx *x, int lo, double T) {
  mpfr_ptr t = x->f[4], tt = x->f[5], dif = x->f[6];
  mpfr_set_prec(tt, 64);
  mpfr_set_d(tt, T, MPFR_RNDN); /* exact */
  for (mpfr_prec_t p = 64;; p *= 2) {
    ref_root_approx(x, lo, t, p);
    if (!mpfr_can_round(t, REF_ERR_BITS(p), MPFR_RNDN, MPFR_RNDZ, 54)) continue;
    mpfr_set_prec(dif, p);
    mpfr_sub(dif, tt, t, MPFR_RNDN);
    if (mpfr_zero_p(dif) || mpfr_get_exp(dif) < mpfr_get_exp(t) + 37 - p) continue;
    long ue = ref_ulp_exp((long)mpfr_get_exp(t) - 1);
    mpfr_abs(dif, dif, MPFR_RNDN);
    mpfr_mul_2si(dif, dif, -ue, MPFR_RNDN);
    return mpfr_get_d(dif, MPFR_RNDN);
  }
}

toi_status toi_ref_error(double *ulp, double *bits, double T, const toi_case *c, toi_direction dir) {
  if (!ulp || !bits) return TOI_ERR_RANGE;
  *ulp = *bits = NAN;
  if (dir != TOI_FORWARD && dir != TOI_REVERSE) return TOI_ERR_RANGE;
  toi_status st = ref_check_case(c);
  if (st != TOI_OK) return st;
  ref_ctx *x = ref_ctx_get();
  if (!x) return TOI_ERR_NOMEM;
  ref_env env;
  ref_env_enter(&env);
  st = ref_load(x, c, NULL);
  if (st == TOI_OK) {
    toi_ref r;
    ref_solve_loaded(x, &r);
    int lo = ref_dir_root(&r, dir);
    if (lo >= 0 && !isnan(T)) {
      double rn = lo ? r.tlo : r.thi;
      if (isinf(T)) {
        /* An infinite T is right only when the root itself rounds to it. */
        *ulp = *bits = T == rn ? 0.0 : INFINITY;
      } else {
        *bits = ref_bits(T, rn);
        *ulp = x->rational ? ref_ulp_rational(x, lo, T) : ref_ulp_irrational(x, lo, T);
      }
    }
  }
  ref_env_leave(&env);
  return st;
}
