/* ref_fast_kappa_root.c: an enclosure of a root's kappa from the case and the root's rounding alone (ref_bench.h). */
#include <limits.h>
#include <math.h>
#include "ref_bench.h"
#include "ref_fdd.h"
#include "ref_mpfr.h"

/*
 * What is enclosed: the double toi_ref_kappa gives for the root t* of case c
 * (either engine: they give the same double), where kappa is finite, i.e.
 * the 128-bit MPFR value of (ref_kappa.c)
 *   kappa = [sum_i (|pA_i| + |pB_i| + |t*| (|vA_i| + |vB_i|)) |u_i| + (rA + rB) Rr]
 *           / (|u . v| |t*|),
 * u = s + v t*, s = pB - pA, v = vB - vA, Rr = rA + rB (|u| = Rr at the root,
 * and u . v = b + a t* = +-sqrt(D)), within REF_KAPPA_REL_ERR of the exact
 * kappa, rounded to nearest. Nothing of the reference's preparation is used:
 * only c's doubles and R = RN_q(t*), the reference's root in q (toiref.h).
 *
 * The root: for R normal in q, 2^e <= |R| < 2^(e+1), t* rounds to R, so t*
 * is not in a higher binade (RN is monotone and 2^(e+1) a value of q) and
 * |t* - R| <= ulp_q(t*) / 2 <= ulp_q(R) / 2 = 2^(e-p) <= 2^-p |R| =: hr,
 * rho = 2^-p: |t*| = |R| (1 + theta), |theta| <= rho.
 *
 * Ranges (checked): every component and radius of magnitude at most 2^200,
 * |R| in [2^-200, 2^200] and >= 2^emin (normal in q). Then no sum or product
 * below exceeds 2^810 (|s|, |v| <= 2^201, |v R| <= 2^402, weights <= 2^403,
 * terms <= 2^806), and every rounding, underflow included, is within u =
 * 2^-53 of its result relative plus 2^-1075 (sums and differences of doubles
 * are exact when subnormal). Those absolute parts: P's is in e_i (2^-1070,
 * which also covers the underflow of e_i's own two products, rounded down
 * at worst: u |R| and hr are above 2^-260, so the inner sum is not small);
 * the others (RN(|R| wv) in w, then times |x_i| <= 2^403; the products w
 * |x_i|, w e_i, x_i v_i, e_i |v_i|, Rr^2) stay below 2^-670 in all, covered
 * by 2^-660 in EN and 2^-800 in Ed (d's products err by 3 2^-1075), against
 * N >= 2^-600 and |d| >= 2^-700 (required). Data out of that range are
 * scaled into it first where they can be (kr_bound_scaled).
 *
 * Each u_i against x_i = RN(s_i + RN(v_i R)), s_i = RN(pB_i - pA_i), v_i =
 * RN(vB_i - vA_i) (each within u of the exact difference, relative):
 *   |u_i - x_i| <= u |s_i| + u |v_i| (|R| + hr) + |v_i| hr + u |P_i| + u |x_i|
 *                  + 2^-1075 =: e_i,
 * (the differences' errors, the root's offset, the product's and the sum's
 * roundings), evaluated from nonnegative terms with at most 6 roundings
 * (c1 = (u (|R| + hr) + hr) (1 + 2^-45) made once), covered by 1 + 2^-45.
 *
 * Weights: wp, wv (|x| + |y| rounded once, within u), w = RN(wp + RN(|R|
 * wv)) within (rho + 3u)(1 + 2^-20) of the exact wp + |t*| wv relative, so
 * |w_exact - w| <= rw w, rw = rho + 4u. A term w_exact |u_i| against RN(w
 * |x_i|) =: term_i: w (1 + rw) e_i + term_i (rw (1 + u) + u), summed as
 * (1 + rw) sum_i w e_i + (rw (1 + u) + u) sum_i term_i; the radius term
 * RN(RN(rA + rB)^2) within 3u (1 + 2^-50); the sum N of the four nonnegative
 * terms, three roundings, within 3u N more. EN all of it, its own roundings
 * (at most 10 a term) covered by 1 + 2^-40 (up, ref_fdd.h).
 *
 * The denominator: u . v at t* against d = RN(sum_i RN(x_i v_i)) (recursive
 * summation, gamma_3 <= 3.01u of A = sum |x_i v_i|): |u . v - d| <= sum_i
 * (e_i |v_i| (1 + u) + |x_i| u |v_i|) + 3.01u A <= (sum_i e_i |v_i| + 5u
 * A')(1 + 2^-40) =: Ed with A' the computed A (within 3u of A). Ed <= 2^-12
 * |d| (required) puts u . v away from 0: D > 0, which is the case where
 * the reference's kappa is not +Inf (ref_kappa.c: D = 0 or t* = 0; t* != 0
 * as R != 0); rd = Ed / |d|. den = RN(|d| |R|), K = RN(N / den) (normal:
 * den >= 2^-900 and K >= 2^-900 required).
 *
 * So the exact kappa is K (1 + eN)(1 + e1) / ((1 + e2)(1 + e3)(1 + e4)(1 +
 * e5)) with |eN| <= EN / N, |e2| <= rd, |e3| <= rho, |e4|, |e5|, |e1| <= u
 * (den's and K's roundings); with S >= the sum of these bounds and S <=
 * 2^-9, the quotient is within S (1 + 4S) <= S (1 + 2^-7) of 1 (the product
 * of the (1 - x) is >= 1 - sum x, 1 / (1 - y) <= 1 + y (1 + 2y)). S is
 * computed from nonnegative terms with a few roundings, covered by 1 +
 * 2^-40, and required <= 2^-10: rK = S (1 + 2^-7) <= 2^-9.9. Finally MPFR's
 * value is within REF_KAPPA_REL_ERR of kappa and its double within u of
 * that, so the double lies in K (1 +- (rK + REF_KAPPA_REL_ERR + u)(1 +
 * 2^-8)) ((1 + a)(1 + b) <= 1 + (a + b)(1 + a) for a, b >= 0, b <= a), whose
 * ends are rounded outward by 1 -+ 2^-50 (three roundings, each within u).
 * The width (a relative 2^-8 at most) only decides how often the sweep's
 * cells can be decided from the enclosure (kappa's bins are powers of two).
 */

/* The enclosure for data pa, pb, va, vb (three components each), radii ra,
 * rb and the root's rounding R, |t* - R| <= rho |R|, rho = 2^-p: 1 with
 * the enclosure, -1 when a number is out of the range above, 0 when the
 * enclosure is too wide or kappa may be infinite. */
FAST_INLINE int kr_bound(double *lo, double *hi, const double *pa, const double *pb, const double *va,
                         const double *vb, double ra, double rb, double R, double rho) {
  const double u = 0x1p-53;
  const double r0 = fabs(R);
  if (!(r0 >= 0x1p-200 && r0 <= 0x1p200)) return -1;
  const double hr = r0 * rho, rw = rho + 4 * u, U1 = u * (1 + 0x1p-45);
  const double c1 = (u * (r0 + hr) + hr) * (1 + 0x1p-45);
  double N = 0, WE = 0, d = 0, A = 0, Ed = 0;
  /* The data's range is checked after the loop, before anything computed
     in it is used: what data out of range make of it is thrown away. */
  double mL = ra > rb ? ra : rb, mV = 0;
  for (int i = 0; i < 3; i++) {
    double s = pb[i] - pa[i], v = vb[i] - va[i];
    double P = v * R, x = s + P, ax = fabs(x), av = fabs(v);
    double e = U1 * ((fabs(s) + fabs(P)) + ax) + av * c1 + 0x1p-1070;
    double fa = fabs(pa[i]), fb = fabs(pb[i]), ga = fabs(va[i]), gb = fabs(vb[i]);
    double wp = fa + fb, wv = ga + gb;
    mL = fa > mL ? fa : mL;
    mL = fb > mL ? fb : mL;
    mV = ga > mV ? ga : mV;
    mV = gb > mV ? gb : mV;
    double w = wp + r0 * wv;
    N += w * ax;
    WE += w * e;
    double xv = x * v;
    d += xv;
    A += fabs(xv);
    Ed += e * av;
  }
  if (!(mL <= 0x1p200) || !(mV <= 0x1p200)) return -1;
  double Rr = ra + rb, tr = Rr * Rr;
  double EN = (1 + rw) * WE + (rw * (1 + u) + u) * N;
  N += tr;
  EN = up(EN + tr * 3 * u * (1 + 0x1p-50) + N * 3 * u) + 0x1p-660;
  double ad = fabs(d);
  Ed = up(Ed + 5 * u * A) + 0x1p-800;
  if (!(N >= 0x1p-600 && N <= 0x1p820) || !(ad >= 0x1p-700) || !(Ed <= 0x1p-12 * ad)) return 0;
  double den = ad * r0, K = N / den;
  if (!(den >= 0x1p-900) || !(K >= 0x1p-900) || !isfinite(K)) return 0;
  double S = up(EN / N + Ed / ad + rho + 3 * u);
  if (!(S <= 0x1p-10)) return 0;
  double r = (S * (1 + 0x1p-7) + REF_KAPPA_REL_ERR + u) * (1 + 0x1p-8);
  double l = K * (1 - r) * (1 - 0x1p-50), h = K * (1 + r) * (1 + 0x1p-50);
  if (!isfinite(h)) return 0;
  *lo = l;
  *hi = h;
  return 1;
}

/* floor(log2 of the largest |x_i|), n >= 1, or INT_MIN when all are 0. */
static int kr_top(const double *x, int n) {
  double m = 0;
  for (int i = 0; i < n; i++) m = fabs(x[i]) > m ? fabs(x[i]) : m;
  return m > 0 ? fast_ilog2(m) : INT_MIN;
}

/*
 * Data out of the range (the scale family's, from 2^-1074 to 2^1023): kappa
 * is the same for the case with every length times 2^-el and every velocity
 * times 2^-ev (N and den both scale by 2^-2el), whose root is t* 2^(ev-el),
 * rounded by R 2^(ev-el) within rho of it relative as before. el, ev put
 * the largest length and speed in [1, 2). Every scaled number must be 0 or
 * of magnitude at least 2^-1000, normal: then it is exact, as fast_scale
 * makes it through a normal intermediate (or from a subnormal scaled up);
 * else the case is declined. The scaled R is exact when kr_bound takes it
 * (in [2^-200, 2^200]) for the same reason.
 */
static int kr_bound_scaled(double *lo, double *hi, const toi_case *c, double R, double rho) {
  double L[8], V[6];
  for (int i = 0; i < 3; i++) L[i] = c->pa[i], L[3 + i] = c->pb[i], V[i] = c->va[i], V[3 + i] = c->vb[i];
  L[6] = c->ra, L[7] = c->rb;
  int el = kr_top(L, 8), ev = kr_top(V, 6), lost = 0;
  if (el == INT_MIN || ev == INT_MIN) return 0;
  for (int i = 0; i < 8; i++) {
    L[i] = fast_scale(L[i], -el);
    lost |= L[i] != 0 && !(fabs(L[i]) >= 0x1p-1000);
  }
  for (int i = 0; i < 6; i++) {
    V[i] = fast_scale(V[i], -ev);
    lost |= V[i] != 0 && !(fabs(V[i]) >= 0x1p-1000);
  }
  if (lost) return 0;
  return kr_bound(lo, hi, L, L + 3, V, V + 3, L[6], L[7], fast_scale(R, ev - el), rho) > 0;
}

int ref_kappa_root_bound(double *lo, double *hi, const toi_case *c, double R, toi_precision q) {
  int p = 53, emin = -1022;
  if (q != TOI_BINARY64) {
    const toi_precision_info *pi = toi_precision_get(q);
    if (!pi || !(pi->p >= 24 && pi->p <= 53) || !(pi->emin >= -1022)) return 0;
    p = pi->p, emin = pi->emin;
  }
  if (!(fabs(R) >= fast_pow2(emin)) || !isfinite(R)) return 0; /* R normal in q: the root's bound */
  const double rho = fast_pow2(-p);
  int r = kr_bound(lo, hi, c->pa, c->pb, c->va, c->vb, c->ra, c->rb, R, rho);
  return r >= 0 ? r : kr_bound_scaled(lo, hi, c, R, rho);
}
