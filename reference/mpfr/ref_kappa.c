/* ref_kappa.c: the MPFR engine's toi_ref_kappa (ref_kappa_mpfr), the relative condition number of a root with respect to all inputs. */
#include <math.h>
#include "ref_mpfr.h"

/* Working precision: every term below is free of cancellation, so a few
 * dozen roundings at 128 bits leave kappa right to ~35 digits, far more than
 * the few it needs. The result is that 128-bit value rounded to double; the
 * fast engine's path (ref_fast_err.c) answers with the same double only when
 * it proves that the exact kappa, widened by the bound REF_KAPPA_REL_ERR
 * derived below, rounds to a single double, and comes here otherwise. */
#define REF_KAPPA_PREC 128
_Static_assert(REF_KAPPA_PREC == 128, "REF_KAPPA_REL_ERR is proved for 128 bits");

/* y = |d1| + |d2|, rounded once; tmp is scratch. */
static void ref_abs_sum(mpfr_ptr y, mpfr_ptr tmp, double d1, double d2) {
  mpfr_set_d(y, fabs(d1), MPFR_RNDN);
  mpfr_set_d(tmp, fabs(d2), MPFR_RNDN);
  mpfr_add(y, y, tmp, MPFR_RNDN);
}

/*
 * With u = s + v t at the root, F_t = 2 u.v = 2 (b + a t) = +-2 sqrt(D) and
 *   kappa = [sum_i (|pA_i| + |pB_i| + |t| (|vA_i| + |vB_i|)) |u_i| + (rA + rB) R]
 *           / (sqrt(D) |t|),
 * a sum of nonnegative terms. The only cancellation would be in u_i itself:
 * with t = (-B + sg sqrt D)/A (sg = -1 lower, +1 upper) and the exact integer
 * P_i = S_i A - V_i B, A U_i = P_i + sg V_i sqrt D. When the two terms have
 * opposite signs it is computed as (P_i^2 - V_i^2 D) / (P_i - sg V_i sqrt D):
 * an exact integer over a sum of same-sign terms.
 *
 * Error bound (the fast path relies on it): with u = 2^-128, every MPFR
 * operation rounds to nearest with relative error <= u (MPFR's exponent
 * range is wide, the scalings by powers of two are exact, and the doubles
 * enter exactly). Writing r(y) for a bound on the relative error of a
 * computed y against its exact value, and using r(x o y) <= r(x) + r(y) + u
 * for products and quotients (first order; the second-order terms are below
 * 2^-240) and r(x + y) <= max(r(x), r(y)) + u for same-sign sums:
 *   t: |t - t*| < 2^(EXP(t)+4-p) <= 32u |t|, so r(t) <= 32.1u;
 *   q = sqrt(RN(D)): 1.5u; a: u; t1 = RN(V_i) q: 3.5u;
 *   t2, same signs: RN(P) + t1: 4.5u; opposite signs: G / (RN(P) - t1):
 *   u + 4.5u + u = 6.5u; |u_i| = t2 / a: 8.5u;
 *   w1 = |pA_i| + |pB_i|: u; w2 = (|vA_i| + |vB_i|) t: 34.1u; w1 + w2:
 *   35.1u; times |u_i|: 44.6u; the sum over i of these nonnegative terms:
 *   47.6u; the radius term: 3u; the numerator: 48.6u;
 *   the denominator q t: 34.6u; the quotient: 84.2u < 2^-121.5.
 * REF_KAPPA_REL_ERR (ref_mpfr.h) is 2^-120.
 */
static double ref_kappa_loaded(ref_ctx *x, const toi_case *c, int lo) {
  const mpfr_prec_t p = REF_KAPPA_PREC;
  mpfr_ptr q = x->f[0], t1 = x->f[1], t2 = x->f[2], t3 = x->f[3], t = x->f[4], a = x->f[5];
  mpfr_ptr w1 = x->f[6], w2 = x->f[7], sum = x->f[8];
  mpz_ptr P = x->z[0], G = x->z[1];
  ref_root_approx(x, lo, t, p); /* uses f[0..3] */
  mpfr_abs(t, t, MPFR_RNDN);
  for (int i = 0; i <= 8; i++)
    if (i != 4) mpfr_set_prec(x->f[i], p); /* f[4] holds t */
  mpfr_set_z(q, x->D, MPFR_RNDN);
  mpfr_sqrt(q, q, MPFR_RNDN);
  mpfr_set_z(a, x->A, MPFR_RNDN);
  mpfr_set_zero(sum, 1);
  int sg = lo ? -1 : 1;
  for (int i = 0; i < x->n; i++) {
    mpz_mul(P, x->s[i], x->A);
    mpz_submul(P, x->v[i], x->B);
    int sp = mpz_sgn(P), sv = sg * mpz_sgn(x->v[i]);
    mpfr_set_z(t1, x->v[i], MPFR_RNDN);
    mpfr_mul(t1, t1, q, MPFR_RNDN);
    if (sp == 0 || sv == 0 || sp == sv) {
      if (sg < 0) mpfr_neg(t1, t1, MPFR_RNDN);
      mpfr_set_z(t2, P, MPFR_RNDN);
      mpfr_add(t2, t2, t1, MPFR_RNDN);
    } else {
      if (sg > 0) mpfr_neg(t1, t1, MPFR_RNDN);
      mpfr_set_z(t2, P, MPFR_RNDN);
      mpfr_add(t2, t2, t1, MPFR_RNDN);
      mpz_mul(G, P, P);
      mpz_mul(P, x->v[i], x->v[i]);
      mpz_submul(G, P, x->D);
      mpfr_set_z(t3, G, MPFR_RNDN);
      mpfr_div(t2, t3, t2, MPFR_RNDN);
    }
    mpfr_abs(t2, t2, MPFR_RNDN);
    mpfr_div(t2, t2, a, MPFR_RNDN);
    mpfr_mul_2si(t2, t2, x->ep, MPFR_RNDN); /* |u_i| */
    ref_abs_sum(w1, w2, c->pa[i], c->pb[i]);
    ref_abs_sum(w2, t3, c->va[i], c->vb[i]);
    mpfr_mul(w2, w2, t, MPFR_RNDN);
    mpfr_add(w1, w1, w2, MPFR_RNDN);
    mpfr_mul(w1, w1, t2, MPFR_RNDN);
    mpfr_add(sum, sum, w1, MPFR_RNDN);
  }
  mpfr_set_z(w1, x->R, MPFR_RNDN);
  mpfr_mul_2si(w1, w1, x->ep, MPFR_RNDN);
  ref_abs_sum(w2, t3, c->ra, c->rb);
  mpfr_mul(w1, w1, w2, MPFR_RNDN);
  mpfr_add(sum, sum, w1, MPFR_RNDN);
  mpfr_mul_2si(q, q, x->ep + x->ev, MPFR_RNDN);
  mpfr_mul(q, q, t, MPFR_RNDN);
  mpfr_div(sum, sum, q, MPFR_RNDN);
  return mpfr_get_d(sum, MPFR_RNDN);
}

/* The whole answer by GMP and MPFR, for a checked case (api.c checks it). */
toi_status ref_kappa_mpfr(double *kappa, const toi_case *c, toi_direction dir) {
  ref_ctx *x = ref_ctx_get();
  if (!x) return TOI_ERR_NOMEM;
  ref_env env;
  ref_env_enter(&env);
  toi_status st = ref_load(x, c, NULL);
  if (st == TOI_OK && x->has_roots) {
    /* Which root is asked depends on signs only: no need to round them. */
    toi_ref r;
    ref_clear(&r, x->cls);
    ref_set_dirs(&r, mpz_sgn(x->B), mpz_sgn(x->C));
    int lo = ref_dir_root(&r, dir);
    if (lo >= 0) {
      /* At t* = 0 the relative condition divides by 0; at D = 0 the root
       * moves like the square root of a perturbation: infinite slope. */
      if (mpz_sgn(x->C) == 0 || mpz_sgn(x->D) == 0)
        *kappa = INFINITY;
      else
        *kappa = ref_kappa_loaded(x, c, lo);
    }
  }
  ref_env_leave(&env);
  return st;
}
