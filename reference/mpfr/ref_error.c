/* ref_error.c: the MPFR engine's toi_ref_error (ref_error_mpfr), the error of a double against the exact root in ulps and in bits. */
#include <math.h>
#include "ref_mpfr.h"

/*
 * *ulp is the correctly rounded double (to nearest, ties to even, subnormals
 * and overflow as IEEE 754 has them) of the exact quotient |T - t*| / ulp(t*),
 * so that it is one well-defined number that two engines can agree on bit
 * for bit: exactly for a rational root, by a Ziv loop for an irrational one.
 * The fast engine's path (fast/ref_fast_err.c) answers with the same double
 * whenever it can prove it; the front door (api.c) comes here otherwise.
 */

/* Exponent of ulp_pi(t*) for floor(log2 |t*|) = e: subnormal spacing below
 * 2^emin; above the format's range (a root that rounds to Inf) the ulp of
 * its largest finite value (2^971 for binary64), so that a finite answer
 * gets a finite error. */
static long ref_ulp_exp(long e, const toi_precision_info *pi) {
  if (e < pi->emin) e = pi->emin;
  if (e > pi->emax) e = pi->emax;
  return e - (pi->p - 1);
}

/* Rational root: T - t* exactly in mpq, then rounded once. */
static double ref_ulp_rational(ref_ctx *x, int lo, double T, const toi_precision_info *pi) {
  mpq_ptr t = x->q[0], d = x->q[1];
  long e2;
  ref_root_rational(x, lo, mpq_numref(t), mpq_denref(t), &e2);
  mpq_canonicalize(t);
  long ue = ref_ulp_exp(pi->emin, pi); /* ulp(0) */
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
    ue = ref_ulp_exp(e + e2, pi);
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
  /* Round to odd at 64 bits (truncate, then set the last bit when inexact),
   * then to nearest double: the odd result is no 54-bit number unless exact,
   * and it shares with d the open interval between two consecutive 63-bit
   * numbers, so no double or midpoint between doubles (all 54-bit numbers,
   * subnormal ones and the overflow threshold included) separates them:
   * one correct rounding, as in ref_roots.c. d >= 0. */
  mpfr_ptr f = x->f[6];
  mpfr_set_prec(f, 64);
  if (mpfr_set_q(f, d, MPFR_RNDZ) != 0 && mpfr_min_prec(f) < 64) mpfr_nextabove(f);
  return mpfr_get_d(f, MPFR_RNDN);
}

/*
 * Irrational root: Ziv's loop on the quotient itself. t approximates t* with
 * |t - t*| < 2^(EXP(t)+4-p); once mpfr_can_round succeeded on t at 54 bits,
 * t and t* lie between the same two consecutive 54-bit numbers, hence in the
 * same binade: floor(log2 |t*|) = EXP(t) - 1. dif = RN_p(T - t) errs from
 * T - t by at most 2^(EXP(dif)-1-p), so |dif - (T - t*)| <= 2^(m+1-p) with
 * m = max(EXP(dif) - 1, EXP(t) + 4). Scaled by the exact power of two
 * 1/ulp(t*), dif is accepted when mpfr_can_round says that it and every
 * point within that bound lie between the same two consecutive 54-bit
 * numbers: the quotient is irrational (T is rational, t* is not), so it is
 * no 54-bit number, and then no breakpoint of the rounding to double
 * separates it from dif (ref_roots.c): mpfr_get_d rounds both alike. The
 * loop ends because an irrational number is at a positive distance from
 * every breakpoint.
 */
static double ref_ulp_irrational(ref_ctx *x, int lo, double T, const toi_precision_info *pi) {
  mpfr_ptr t = x->f[4], tt = x->f[5], dif = x->f[6];
  mpfr_set_prec(tt, 64);
  mpfr_set_d(tt, T, MPFR_RNDN); /* exact */
  for (mpfr_prec_t p = 64;; p *= 2) {
    ref_root_approx(x, lo, t, p);
    if (!mpfr_can_round(t, REF_ERR_BITS(p), MPFR_RNDN, MPFR_RNDZ, 54)) continue;
    mpfr_set_prec(dif, p);
    mpfr_sub(dif, tt, t, MPFR_RNDN);
    if (mpfr_zero_p(dif)) continue;
    mpfr_exp_t ed = mpfr_get_exp(dif), et = mpfr_get_exp(t);
    mpfr_exp_t m = ed - 1 > et + 4 ? ed - 1 : et + 4;
    long ue = ref_ulp_exp((long)et - 1, pi);
    mpfr_abs(dif, dif, MPFR_RNDN);
    mpfr_mul_2si(dif, dif, -ue, MPFR_RNDN); /* exact: MPFR's range is wide */
    /* The error bound 2^(m+1-p) relative to the exponent: scaling moved both. */
    if (!mpfr_can_round(dif, ed - (m + 1 - (mpfr_exp_t)p), MPFR_RNDN, MPFR_RNDZ, 54)) continue;
    return mpfr_get_d(dif, MPFR_RNDN);
  }
}

/* The whole answer by GMP and MPFR, for a checked case (api.c checks it). */
toi_status ref_error_mpfr(double *ulp, double *bits, double T, const toi_case *c, toi_direction dir) {
  return ref_error_mpfr_prec(ulp, bits, T, c, dir, TOI_BINARY64);
}

toi_status ref_error_mpfr_prec(double *ulp, double *bits, double T, const toi_case *c, toi_direction dir,
                               toi_precision q) {
  const toi_precision_info *pi = toi_precision_get(q);
  ref_ctx *x = ref_ctx_get();
  if (!x) return TOI_ERR_NOMEM;
  ref_env env;
  ref_env_enter(&env);
  toi_status st = ref_load(x, c, NULL);
  if (st == TOI_OK) {
    toi_ref r;
    ref_solve_loaded_prec(x, &r, pi);
    int lo = ref_dir_root(&r, dir);
    if (lo >= 0 && !isnan(T)) {
      double rn = lo ? r.tlo : r.thi;
      if (isinf(T)) {
        /* An infinite T is right only when the root itself rounds to it. */
        *ulp = *bits = T == rn ? 0.0 : INFINITY;
      } else {
        *bits = ref_bits_apart_prec(T, rn, q);
        *ulp = x->rational ? ref_ulp_rational(x, lo, T, pi) : ref_ulp_irrational(x, lo, T, pi);
      }
    }
  }
  ref_env_leave(&env);
  return st;
}
