/* ref_roots.c: the roots of a loaded case, correctly rounded to double (exact or Ziv loop). */
#include <math.h>
#include "ref_mpfr.h"

/*
 * Rounding to double. Every result leaves through mpfr_get_d(., MPFR_RNDN),
 * which rounds its argument correctly to the double format, subnormals
 * (fixed grid of 2^-1074, ties to even) and overflow (+-Inf from the
 * midpoint between DBL_MAX and 2^1024 on) included. A single rounding of a
 * value y is the correct rounding of the exact root t* whenever no rounding
 * breakpoint of any double format precision <= 53 (a double, or a midpoint
 * between two, normal or subnormal) lies between y and t* or on y unless
 * y = t*. All those breakpoints are numbers of at most 54 significant bits
 * (a subnormal midpoint is k 2^-1075 with k < 2^54), so it suffices that
 * y and t* lie strictly inside the same interval between consecutive
 * 54-bit numbers, or y = t*. Hence the exponent range never needs narrowing
 * to the double range (no mpfr_set_emin / mpfr_subnormalize): the two
 * methods below guarantee that condition.
 *  - Rational roots: round to odd. q = floor(|t*| 2^k) with 65 or 66 bits,
 *    its last bit forced to 1 when the division is inexact; then y = q 2^-k
 *    is exact when t* is, else strictly inside (q-1, q+1) 2^-k and not a
 *    54-bit number (its 65th or 66th bit is set), while t* lies in the same
 *    open interval between consecutive 65-bit (a fortiori 54-bit) numbers.
 *  - Irrational roots: Ziv's loop with mpfr_can_round(y, err, RNDN, RNDZ, 54)
 *    (the MPFR manual's idiom for rounding to nearest at 53 bits, "prec + 1"):
 *    it succeeds only when y - e and y + e, e the error bound, truncate to the
 *    same 54-bit number; y is then not itself a 54-bit number, and t*, being
 *    irrational, is not one either.
 */

/*
 * The rounding of y to precision pi (a value of it, held exactly in a
 * double). For binary64 mpfr_get_d itself. For a narrower format, as in the
 * MPFR manual's emulation of IEEE 754: y rounded to p bits in MPFR's wide
 * range (ternary t), then the format's exponent range, in MPFR's convention
 * (significands in [1/2, 1)): emin - p + 2 for the exponent of the smallest
 * subnormal 2^(emin - p + 1), emax + 1 for the largest finite value, so that
 * mpfr_check_range makes overflow (+-Inf, the midpoint between the largest
 * value and 2^(emax+1) rounding to it, ties to even) and underflow below the
 * smallest subnormal, and mpfr_subnormalize rounds again at the subnormal
 * grid with t, which makes the two steps one correct rounding of y. Every
 * breakpoint of such a format (a value, or a midpoint between two, subnormal
 * ones included) is a number of at most p + 1 <= 54 bits, so the conditions
 * above on y (no 54-bit number between y and t*) make this RN_pi(t*) too.
 * MPFR's range is per thread (mpfr_buildopt_tls_p, see ref_ctx.c) and is
 * put back before returning; no variable but z is used meanwhile.
 */
static double ref_round_prec(ref_ctx *x, mpfr_srcptr y, const toi_precision_info *pi) {
  if (pi->p == 53 && pi->emin == -1022 && pi->emax == 1023) return mpfr_get_d(y, MPFR_RNDN);
  mpfr_ptr z = x->f[7];
  mpfr_set_prec(z, pi->p);
  int t = mpfr_set(z, y, MPFR_RNDN);
  const mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
  mpfr_set_emin(pi->emin - pi->p + 2);
  mpfr_set_emax(pi->emax + 1);
  t = mpfr_check_range(z, t, MPFR_RNDN);
  (void)mpfr_subnormalize(z, t, MPFR_RNDN);
  mpfr_set_emin(emin);
  mpfr_set_emax(emax);
  return mpfr_get_d(z, MPFR_RNDN); /* exact: a value of a format inside binary64 */
}

/* RN_pi(num / den 2^e2) with den > 0; num is an exact integer. */
static double ref_round_q(ref_ctx *x, mpz_srcptr num, mpz_srcptr den, long e2, const toi_precision_info *pi) {
  int sign = mpz_sgn(num);
  if (sign == 0) return 0.0; /* a root is exactly 0 only when c = 0: +0 */
  mpz_ptr n = x->z[1], d = x->z[2], q = x->z[3];
  long k = 65 + (long)mpz_sizeinbase(den, 2) - (long)mpz_sizeinbase(num, 2);
  mpz_abs(n, num);
  if (k >= 0) {
    mpz_mul_2exp(n, n, (mp_bitcnt_t)k);
    mpz_set(d, den);
  } else {
    mpz_mul_2exp(d, den, (mp_bitcnt_t)-k);
  }
  /* n has bits(den) + 65 bits: 2^64 < q < 2^66. */
  mpz_tdiv_qr(q, n, n, d);
  if (mpz_sgn(n) != 0) mpz_setbit(q, 0);
  mpfr_ptr y = x->f[6];
  mpfr_set_prec(y, 128);
  mpfr_set_z(y, q, MPFR_RNDN);              /* exact: q < 2^66 */
  mpfr_mul_2si(y, y, e2 - k, MPFR_RNDN);     /* exact: MPFR's range is wide */
  if (sign < 0) mpfr_neg(y, y, MPFR_RNDN);
  return ref_round_prec(x, y, pi);
}

void ref_root_rational(ref_ctx *x, int lo, mpz_ptr num, mpz_ptr den, long *e2) {
  mpz_neg(num, x->B);
  if (lo)
    mpz_sub(num, num, x->Q);
  else
    mpz_add(num, num, x->Q);
  mpz_set(den, x->A);
  *e2 = x->ep - x->ev;
}

/*
 * Both roots without cancellation. With W = |B| + sqrt(D) > 0 (a sum of
 * nonnegative terms) and (-B - sqrt D)(-B + sqrt D) = A C:
 *   B <= 0: lower = C / W, upper = W / A;  B > 0: lower = -W / A, upper = -C / W.
 * Error bound, u = 2^-p, every operation rounded to nearest (relative error
 * <= u each): D, |B|, A, C are read with error u; sqrt gives (1+u)^(1/2)(1+u)
 * <= 1 + 1.5u + u^2; the sum of two nonnegative terms keeps the larger
 * relative error then adds u: <= 2.5u + 2u^2; the final division of one
 * such term by a u-term (or vice versa) and its own rounding: |t/t* - 1| <=
 * (1 + 2.5u + 2u^2)(1 + u)/(1 - u) - 1 < 5u for p >= 64. With |t| < 2^EXP(t),
 * |t - t*| < 5u |t| / (1 - 5u) < 2^(EXP(t) + 3 - p). The callers claim
 * 2^(EXP(t) + 4 - p) and test with p - 5: two bits of margin. The scaling by
 * 2^(ep - ev) is exact.
 */
static void ref_roots_approx(ref_ctx *x, mpfr_ptr tlo, mpfr_ptr thi, mpfr_prec_t p) {
  mpfr_ptr w = x->f[0], a = x->f[1], c = x->f[2], b = x->f[3];
  for (int i = 0; i < 4; i++) mpfr_set_prec(x->f[i], p);
  mpfr_set_z(w, x->D, MPFR_RNDN);
  mpfr_sqrt(w, w, MPFR_RNDN);
  mpfr_set_z(b, x->B, MPFR_RNDN);
  mpfr_abs(b, b, MPFR_RNDN);
  mpfr_add(w, w, b, MPFR_RNDN);
  mpfr_set_z(a, x->A, MPFR_RNDN);
  mpfr_set_z(c, x->C, MPFR_RNDN);
  long sh = x->ep - x->ev;
  int bpos = mpz_sgn(x->B) > 0;
  if (tlo) {
    mpfr_set_prec(tlo, p);
    if (bpos) {
      mpfr_div(tlo, w, a, MPFR_RNDN);
      mpfr_neg(tlo, tlo, MPFR_RNDN);
    } else {
      mpfr_div(tlo, c, w, MPFR_RNDN);
    }
    mpfr_mul_2si(tlo, tlo, sh, MPFR_RNDN);
  }
  if (thi) {
    mpfr_set_prec(thi, p);
    if (bpos) {
      mpfr_div(thi, c, w, MPFR_RNDN);
      mpfr_neg(thi, thi, MPFR_RNDN);
    } else {
      mpfr_div(thi, w, a, MPFR_RNDN);
    }
    mpfr_mul_2si(thi, thi, sh, MPFR_RNDN);
  }
}

void ref_root_approx(ref_ctx *x, int lo, mpfr_ptr t, mpfr_prec_t p) {
  ref_roots_approx(x, lo ? t : NULL, lo ? NULL : t, p);
}

void ref_solve_loaded(ref_ctx *x, toi_ref *out) {
  ref_solve_loaded_prec(x, out, toi_precision_get(TOI_BINARY64));
}

void ref_solve_loaded_prec(ref_ctx *x, toi_ref *out, const toi_precision_info *pi) {
  ref_clear(out, x->cls);
  if (!x->has_roots) return;

  if (x->rational) {
    long e2;
    ref_root_rational(x, 1, x->z[0], x->z[1], &e2);
    /* ref_round_q overwrites z[1..3]: keep the denominator A itself. */
    out->tlo = ref_round_q(x, x->z[0], x->A, e2, pi);
    ref_root_rational(x, 0, x->z[0], x->z[1], &e2);
    out->thi = ref_round_q(x, x->z[0], x->A, e2, pi);
  } else {
    /* Ziv's loop: terminates because an irrational root is no 54-bit number,
     * so some finite precision separates it from every breakpoint. */
    mpfr_ptr lo = x->f[4], hi = x->f[5];
    int need_lo = 1, need_hi = 1;
    for (mpfr_prec_t p = 64;; p *= 2) {
      ref_roots_approx(x, need_lo ? lo : NULL, need_hi ? hi : NULL, p);
      if (need_lo && mpfr_can_round(lo, REF_ERR_BITS(p), MPFR_RNDN, MPFR_RNDZ, 54)) {
        out->tlo = ref_round_prec(x, lo, pi);
        need_lo = 0;
      }
      if (need_hi && mpfr_can_round(hi, REF_ERR_BITS(p), MPFR_RNDN, MPFR_RNDZ, 54)) {
        out->thi = ref_round_prec(x, hi, pi);
        need_hi = 0;
      }
      if (!need_lo && !need_hi) break;
    }
  }

  ref_set_dirs(out, mpz_sgn(x->B), mpz_sgn(x->C));
}
