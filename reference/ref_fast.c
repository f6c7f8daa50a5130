/* ref_fast.c: the fast engine: filtered exact signs, double-double roots with a proven error bound, MPFR fallback. */
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include "ref_internal.h"

/*
 * What this engine must give: exactly what ref_solve_mpfr gives (class,
 * RN of both roots, directions), bit for bit, many times faster. It proves
 * each answer in double arithmetic or hands the case to ref_solve_mpfr; it
 * never guesses.
 *
 * Plan (u = 2^-53; an "error" is an absolute bound on the distance to the
 * exact real, proved in the comment beside the code that computes it):
 *  1. s = pB - pA, v = vB - vA and R = rA + rB (+ delta, when the sum fits
 *     in two doubles) exactly as double-doubles (TwoSum); an infinite or NaN
 *     difference sends the case back to ref_check_case and, when valid, to
 *     MPFR. When the largest length or the largest
 *     velocity component lies outside [2^-64, 2^64], both groups are scaled
 *     by powers of two so that it lies in [1, 2) (t then scales by
 *     2^(es - ev)). So every quantity below stays far from overflow, and
 *     underflow can only touch tiny low-order terms.
 *  2. a = v.v, b = s.v, c = s.s - R^2 in double-double with error
 *     2^-99 M + 2^-1000 (M the sum of the magnitudes of the leading
 *     products; the absolute term covers every underflow, including the
 *     rounding of a scaled component that became subnormal). The sign of c,
 *     and of b when the class needs it, is read when the value clears twice
 *     its bound. When c lost more than 64 bits to cancellation (near
 *     contact) or its sign is in doubt, c is recomputed to about 2^-145 M by
 *     a three-level cascade of TwoSums (fast_c3); when a sign is still in
 *     doubt, c or b is summed exactly as a Shewchuk expansion of its exact
 *     partial products.
 *  3. D = b^2 - a c in double-double, with a bound that adds the propagated
 *     errors of a, b and c. Its sign is read when |D| clears twice the bound;
 *     otherwise (D = 0 exactly: exactly tangent paths) D is formed exactly as
 *     an expansion from the exact expansions of a, b and c.
 *  4. The roots by the cancellation-free pair W = |b| + sqrt D, c / W and
 *     W / a (signs as in ref_roots.c), in double-double with a bound; a root
 *     is certified when both ends of its enclosure, scaled back, round to the
 *     same double (subnormal results and overflow rounded as IEEE 754 does).
 *  Whatever cannot be decided or certified goes to ref_solve_mpfr: data out
 *  of range, an exact stage whose operands would not give exact products, a
 *  root within its error bound of a rounding boundary (or exactly on one).
 *
 * Two builds of the same code run, chosen once at run time: TwoProd by an
 * FMA where the processor has one, by Dekker's splitting elsewhere. The
 * Dekker build also demands every nonzero component of the (scaled) data to
 * be at least 2^-480 (a Dekker product of tiny operands is not exact); the
 * FMA one only in the exact stages. Both certify, so both give the MPFR
 * engine's answer; they differ only in speed and in how often they fall
 * back. 2D cases run as 3D ones with exactly zero third components.
 */

#define FAST_INLINE static inline __attribute__((always_inline))

typedef struct fdd {
  double h, l;
} fdd;

/* ---- error-free transformations ---- */

/* Knuth: h = RN(a + b), h + l = a + b exactly, for any finite a, b whose sum
 * does not overflow (additions never lose to underflow). */
FAST_INLINE fdd two_sum(double a, double b) {
  double s = a + b, bb = s - a, aa = s - bb;
  fdd r = {s, (a - aa) + (b - bb)};
  return r;
}

/* Dekker: exact like two_sum when a = 0 or |a| >= |b|. */
FAST_INLINE fdd fast_two_sum(double a, double b) {
  double s = a + b;
  fdd r = {s, b - (s - a)};
  return r;
}

/* h = RN(a b), h + l = a b, for |a|, |b| < 2^995. With an FMA, l =
 * RN(a b - h): exact when e_a + e_b >= -970 (e the binary exponents), and in
 * any case |h + l - a b| <= 2^-1075. Without, Veltkamp's split into 26-bit
 * halves and Dekker's product, exact when e_a + e_b >= -970 (the Dekker build
 * only calls it so). */
FAST_INLINE fdd two_prod(double a, double b, const int fm) {
  double p = a * b;
  if (fm) {
    fdd r = {p, __builtin_fma(a, b, -p)};
    return r;
  }
  double t = 0x1.0000002p27 * a; /* 2^27 + 1 */
  double ah = t - (t - a), al = a - ah;
  t = 0x1.0000002p27 * b;
  double bh = t - (t - b), bl = b - bh;
  fdd r = {p, ((ah * bh - p) + ah * bl + al * bh) + al * bl};
  return r;
}

FAST_INLINE fdd dd_neg(fdd x) {
  fdd r = {-x.h, -x.l};
  return r;
}

/* ---- double-double operations with their error bounds ----
 * A double-double x = x.h + x.l is normalized when x.h = RN(x.h + x.l), so
 * |x.l| <= u |x.h|. The operands of dd_dot are normalized and below 2^400;
 * D in dd_add_sqrt and both operands of dd_div have hi parts in
 * [2^-850, 2^850] (x in dd_add_sqrt only enters sums), which keeps their
 * TwoProds exact; a lower-order product there may still
 * underflow, adding an absolute 2^-1074 that is below 2^-250 relative to the
 * result and absorbed by the constants' margins. gamma_k = k u / (1 - k u)
 * as in Higham's book. */

/*
 * Sum_i x_i y_i, n <= 4 terms. With P_i = x_i.h y_i.h (TwoProd: p_i + e_i),
 * the cross terms k_i = x_i.h y_i.l + x_i.l y_i.h (|k_i| <= 2u|P_i|, rounded
 * with error <= gamma_2 |k_i|) and the dropped x_i.l y_i.l (<= u^2 |P_i|):
 * the p_i are summed by a chain of TwoSums (exact: S + sum of the q_i = sum
 * of the p_i), the 3n - 1 small terms e_i, k_i, q_i recursively into T
 * (error <= gamma_(3n-2) times the sum of their magnitudes, at most
 * (n + 2) u (1 + 2^-48) M with M = sum |P_i|: |e_i| <= u|p_i|, |q_i| <=
 * u |running sum| <= u (1 + 2^-48) M). Total error of S + T:
 * (gamma_(3n-2) (n + 2) u + 2 u gamma_2 + u^2)(1 + 2^-47) M <= 65.1 u^2 M
 * for n = 4 (less for n < 4); the final TwoSum is exact. Underflow: each
 * product and each TwoProd then errs by at most an extra 2^-1074, fewer than
 * 30 of them: below 2^-1060. The bound used is 2^-99 M + 2^-1000: a factor
 * 1.9 of margin that also covers the rounding of M itself (the sum of the
 * |p_i|, relative error below 2^-49). *mag receives that computed M.
 */
FAST_INLINE fdd dd_dot(const fdd *x, const fdd *y, int n, double *mag, const int fm) {
  fdd p = two_prod(x[0].h, y[0].h, fm);
  double S = p.h, T = p.l + (x[0].h * y[0].l + x[0].l * y[0].h), M = fabs(p.h);
#pragma GCC unroll 4
  for (int i = 1; i < n; i++) {
    p = two_prod(x[i].h, y[i].h, fm);
    fdd q = two_sum(S, p.h);
    S = q.h;
    T = ((T + q.l) + p.l) + (x[i].h * y[i].l + x[i].l * y[i].h);
    M += fabs(p.h);
  }
  *mag = M;
  return two_sum(S, T);
}

/*
 * W = x + sqrt(d), x >= 0 and d > 0 normalized (x is |b|, d is D), in one
 * pass, so that *w0 = RN(x.h + h), h = RN(sqrt d.h), is ready early for the
 * reciprocal that the divisions by W use (|W.h - w0| <= 3.57u w0, below).
 * sqrt: h = sqrt(d.h)(1 + e0), |e0| <= u; rho = d.h - h^2 exactly real,
 * |rho| <= (2u + u^2) d.h. TwoProd gives h^2 = P + p exactly; d.h - P is
 * exact (Sterbenz), so r = RN(RN((d.h - P) - p) + d.l) errs from rho + d.l by
 * <= u|rho| + u(|rho|(1 + u) + u d.h) <= (5u^2 + O(u^3)) d.h, and
 * |r| <= 3.02u d.h. sqrt d = h sqrt(1 + t), t = (rho + d.l)/h^2, |t| <= 3.01u,
 * |sqrt(1 + t) - 1 - t/2| <= t^2/8 (1 - |t|)^(-3/2) <= 1.14u^2. The
 * correction multiplies r by g = RN(h RN(0.5 / d.h)), |2 h g - 1| <= 4.01u
 * (so the division by 2h runs alongside the square root): its error against
 * r / 2h is <= 4.01u |r / 2h| + u |r g| + (error of r) / 2h <= (6.1 + 1.53 +
 * 2.51) u^2 h. So |h + corr - sqrt d| <= 11.3u^2 h. The sum: TwoSum(x.h, h)
 * exact, RN(x.l + corr) errs by <= u(u x.h + 1.53u h), RN(e + that) by
 * <= u^2 (2 x.h + 2.54 h), Fast2Sum exact. Total <= 15.4u^2 (x.h + h)
 * <= 15.5u^2 W.h. Bound used: 2^-101 W.h (32 u^2). And w0: the low part
 * e + (x.l + corr) is at most (u + 1.55u)(1 + u) w0, so W.h = RN(w0 + it)
 * lies within 3.57u w0 of w0.
 */
FAST_INLINE fdd dd_add_sqrt(fdd x, fdd d, double *h0, double *w0, const int fm) {
  double h = sqrt(d.h), g = 0.5 / d.h;
  fdd p = two_prod(h, h, fm);
  double r = ((d.h - p.h) - p.l) + d.l;
  double corr = r * (h * g);
  fdd s = two_sum(x.h, h);
  *h0 = h;
  *w0 = s.h;
  return fast_two_sum(s.h, s.l + (x.l + corr));
}

/*
 * x / y, normalized, y != 0, from iy with |iy y.h - 1| <= k u (one division
 * serves several quotients and may run before y is complete).
 * q1 = RN(x.h iy) = (x.h / y.h)(1 + e), |e| <= (k + 1.01)u, so rho = x.h -
 * q1 y.h has |rho| <= (k + 1.01)u |x.h|; TwoProd(q1, y.h) = P + p exactly and
 * x.h - P is exact (Sterbenz). The true remainder is r* = x - q1 y = rho +
 * x.l - q1 y.l, |r*| <= (k + 3.03)u |x.h|. The computed r errs from r* by at
 * most u|rho| (subtracting p) + (k + 2.02)u^2 |x.h| (adding x.l) +
 * 1.01u^2 |x.h| (rounding q1 y.l) + (k + 3.03)u^2 |x.h| (the last
 * subtraction) = (3k + 7.1)u^2 |x.h|; q2 = RN(r iy) errs from r / y.h by
 * <= (k + 1.01)(k + 3.1)u^2 |x.h / y.h|, and using y.h for y costs
 * |r*| |y.l| / (|y.h| |y|) <= (k + 3.03)u^2 |x.h / y|. Fast2Sum(q1, q2) is
 * exact. Total, with |x.h| <= |x|(1 + u) and |y.h| >= |y|(1 - u):
 * 22.4u^2 |x / y| for iy = RN(1 / y.h) (k = 1.01): bound used 2^-100;
 * 72u^2 |x / y| for iy = RN(1 / w0) against W (k = 3.57 + 1.01): bound used
 * 2^-98.
 */
FAST_INLINE fdd dd_div(fdd x, fdd y, double iy, const int fm) {
  double q1 = x.h * iy;
  fdd p = two_prod(q1, y.h, fm);
  double r = (((x.h - p.h) - p.l) + x.l) - q1 * y.l;
  return fast_two_sum(q1, r * iy);
}

/* A bound computed in floating point from nonnegative terms, made safe: each
 * bound expression below has at most 10 roundings (each <= a factor 1 + u)
 * and uses |x.h| (1 + 2^-52) >= |x| or 1/|x.h| <= (1 + 2u)/|x|; a factor
 * 1 + 2^-40 covers all of it. */
FAST_INLINE double up(double e) { return e * (1 + 0x1p-40); }

/* Error bound of T = dd_div(X, Y) against the exact x / y, when |X - x| <= EX,
 * |Y - y| <= EY: |X/Y - x/y| <= |X/Y| (rx + ry) / (1 - ry) with
 * rx = EX/|X|, ry = EY/|Y|, plus the division's own bound ed |X/Y|. The
 * result is only used when it is at most 2^-60 |T.h| (fast_certify), so
 * rx, ry <= 2^-60 then, and 1.001 covers 1/(1 - ry), |X/Y| <= |T.h|(1 + 2^-51),
 * the use of hi parts in rx, ry and the roundings. */
FAST_INLINE double fast_quot_err(fdd T, double ed, double rx, double ry) {
  return fabs(T.h) * (ed + 1.001 * (rx + ry));
}

/*
 * c = sum_i x_i y_i for y_i = +-x_i (s.s - R^2), to about 2^-145 M instead
 * of dd_dot's 2^-99 M, for c near contact, where s.s and R^2 cancel. The
 * exact pieces of each product, x.h y.h = P + p and (2 x.h) y.l = Q + q
 * (TwoProds), and the rounded x.l y.l = r(1 + e), |e| <= u, are summed by
 * level: the P_i by a TwoSum chain (exact: S1 + its errors e1), the
 * u-sized p_i, Q_i, e1_i by a second TwoSum chain (exact: S2 + its errors
 * e2), and the u^2-sized e2, q_i, r_i recursively in plain double (error
 * <= gamma_(N-1) times the sum of their magnitudes, N <= 24). Then
 * TwoSum(S1, S2) = H + L exactly and the result is TwoSum(H, RN(L + T)),
 * the last rounding costing <= u|L + T|. The bound is computed from the
 * actual magnitudes: N 2^-52 (sum |level 3| + sum |r_i|) + 2^-52 (|L| + |T|),
 * times 1 + 2^-40, plus 2^-1000 for underflow (each TwoProd and product
 * then errs by an extra 2^-1075 at most).
 */
FAST_INLINE fdd fast_c3(const fdd *x, const fdd *y, int n, double *err, const int fm) {
  fdd P = two_prod(x[0].h, y[0].h, fm);
  double S1 = P.h, S2 = P.l, T = 0, A3 = 0;
  for (int i = 0; i < n; i++) {
    if (i > 0) {
      P = two_prod(x[i].h, y[i].h, fm);
      fdd e1 = two_sum(S1, P.h);
      S1 = e1.h;
      fdd f = two_sum(S2, e1.l);
      S2 = f.h;
      T += f.l, A3 += fabs(f.l);
      f = two_sum(S2, P.l);
      S2 = f.h;
      T += f.l, A3 += fabs(f.l);
    }
    fdd Q = two_prod(2 * x[i].h, y[i].l, fm);
    fdd f = two_sum(S2, Q.h);
    S2 = f.h;
    double r = x[i].l * y[i].l;
    T += f.l + Q.l + r;
    A3 += fabs(f.l) + fabs(Q.l) + 2 * fabs(r); /* r counted twice: its own rounding */
  }
  fdd HL = two_sum(S1, S2);
  double L = HL.l + T;
  *err = up(24 * 0x1p-52 * A3 + 0x1p-52 * (fabs(HL.l) + fabs(T))) + 0x1p-1000;
  return two_sum(HL.h, L);
}

/* ---- exact expansions (Shewchuk), when a filter cannot decide ---- */

/* e receives the exact sum of t[0..n-1] as a nonoverlapping expansion,
 * increasing magnitude, zeros eliminated ({0} for zero): GROW-EXPANSION term
 * by term; every TwoSum is exact, so the sum is. Returns its length (<= n). */
static int fast_xsum(double *e, const double *t, int n) {
  int m = 0;
  for (int k = 0; k < n; k++) {
    if (t[k] == 0) continue;
    double q = t[k];
    int j = 0;
    for (int i = 0; i < m; i++) {
      fdd s = two_sum(q, e[i]);
      q = s.h;
      if (s.l != 0) e[j++] = s.l;
    }
    if (q != 0 || j == 0) e[j++] = q;
    m = j;
  }
  if (m == 0) e[m++] = 0;
  return m;
}

/* A normalized double-double for an expansion, with its error *err and the
 * exact sign (2 when it cannot tell). The components are chained through
 * TwoSums (S + the q_i = the sum, exactly), and only the q_i, each at most
 * u times a partial sum, are added in floating point: error <= gamma_(m-2)
 * sum |q_i| <= m 2^-52 sum |q_i| (the components below the top one may be
 * nearly as large as it, so their own magnitudes would give a useless
 * bound). 2^-1000 covers underflow in computing the bound. */
static fdd fast_xdd(const double *e, int m, double *err, int *sign) {
  double S = e[0], T = 0, Q = 0;
  for (int i = 1; i < m; i++) {
    fdd q = two_sum(S, e[i]);
    S = q.h;
    T += q.l;
    Q += fabs(q.l);
  }
  *err = up((double)m * 0x1p-52 * Q) + 0x1p-1000;
  fdd r = two_sum(S, T);
  if (m == 1 && e[0] == 0)
    *sign = 0;
  else if (fabs(r.h) > 2 * *err)
    *sign = r.h > 0 ? 1 : -1;
  else
    *sign = 2;
  return r;
}

/* e receives sum_(i < n) x_i y_i exactly as an expansion; returns its length.
 * Each product of double-doubles is four exact TwoProds (the caller checked
 * that every nonzero component lies in [2^-480, 2^400], so e_x + e_y >= -960);
 * for a square (sq: y = +-x) x.h y.l and x.l y.h merge into (2 x.h) y.l. At
 * most 8n terms. */
FAST_INLINE int fast_xdot(double *e, const fdd *x, const fdd *y, int n, const int sq, const int fm) {
  double t[32];
  int k = 0;
  for (int i = 0; i < n; i++) {
    fdd p = two_prod(x[i].h, y[i].h, fm);
    t[k++] = p.h, t[k++] = p.l;
    if (sq) {
      p = two_prod(2 * x[i].h, y[i].l, fm);
      t[k++] = p.h, t[k++] = p.l;
    } else {
      p = two_prod(x[i].h, y[i].l, fm);
      t[k++] = p.h, t[k++] = p.l;
      p = two_prod(x[i].l, y[i].h, fm);
      t[k++] = p.h, t[k++] = p.l;
    }
    p = two_prod(x[i].l, y[i].l, fm);
    t[k++] = p.h, t[k++] = p.l;
  }
  return fast_xsum(e, t, k);
}

/* The exact expansions of a, b, c, each computed when first needed. */
typedef struct fast_x {
  double a[32], b[32], c[32];
  int ma, mb, mc; /* lengths, 0 when not computed yet */
} fast_x;

/* 1 when every nonzero component of the n double-doubles is at least
 * 2^-480 (all are below 2^65): then they are the exact scaled data (a normal
 * result of a scaling is exact) and their pairwise products are exact
 * TwoProds. */
static int fast_floor_ok(const fdd *x, int n) {
  int bad = 0;
  for (int i = 0; i < n; i++) {
    bad |= x[i].h != 0 && !(fabs(x[i].h) >= 0x1p-480);
    bad |= x[i].l != 0 && !(fabs(x[i].l) >= 0x1p-480);
  }
  return !bad;
}

/*
 * The exact expansion of D = b^2 - a c from the exact expansions of a, b, c
 * (in *x, computed here when missing): 2 b_i b_j (i < j), b_i^2 and
 * -a_i c_j by exact TwoProds, all summed by fast_xsum. Returns the length,
 * or 0 when a component lies outside [2^-480, 2^400] (a TwoProd would not be
 * exact) or the expansions are too long to be worth it.
 */
FAST_INLINE int fast_exact_D(double *e, fast_x *x, const fdd *s, const fdd *sr, const fdd *v, int n, const int fm) {
  if (!x->ma) x->ma = fast_xdot(x->a, v, v, n, 1, fm);
  if (!x->mb) x->mb = fast_xdot(x->b, s, v, n, 0, fm);
  if (!x->mc) x->mc = fast_xdot(x->c, s, sr, n + 1, 1, fm);
  if (x->mb > 6 || x->ma * x->mc > 24) return 0;
  int bad = 0;
  for (int i = 0; i < x->ma; i++) bad |= x->a[i] != 0 && !(fabs(x->a[i]) >= 0x1p-480);
  for (int i = 0; i < x->mb; i++) bad |= x->b[i] != 0 && !(fabs(x->b[i]) >= 0x1p-480);
  for (int i = 0; i < x->mc; i++) bad |= x->c[i] != 0 && !(fabs(x->c[i]) >= 0x1p-480);
  if (bad) return 0;
  double t[96];
  int k = 0;
  for (int i = 0; i < x->mb; i++) {
    fdd p = two_prod(x->b[i], x->b[i], fm);
    t[k++] = p.h, t[k++] = p.l;
    for (int j = i + 1; j < x->mb; j++) {
      p = two_prod(2 * x->b[i], x->b[j], fm);
      t[k++] = p.h, t[k++] = p.l;
    }
  }
  for (int i = 0; i < x->ma; i++)
    for (int j = 0; j < x->mc; j++) {
      fdd p = two_prod(x->a[i], -x->c[j], fm);
      t[k++] = p.h, t[k++] = p.l;
    }
  return fast_xsum(e, t, k);
}

/* The rare stages run out of line, so that the usual path keeps its
 * registers; each build gets its own copy. */
#ifdef FP_FAST_FMA
#define FAST_GEN_FMA 1
#else
#define FAST_GEN_FMA 0
#endif
#define FAST_RARE_DEFS(sfx, FM, ATTR)                                                                        \
  ATTR __attribute__((noinline)) static fdd fast_c3_##sfx(const fdd *x, const fdd *y, int n, double *err) { \
    return fast_c3(x, y, n, err, FM);                                                                        \
  }                                                                                                          \
  ATTR __attribute__((noinline)) static int fast_xdot_##sfx(double *e, const fdd *x, const fdd *y, int n,    \
                                                            int sq) {                                        \
    return sq ? fast_xdot(e, x, y, n, 1, FM) : fast_xdot(e, x, y, n, 0, FM);                                 \
  }                                                                                                          \
  ATTR __attribute__((noinline)) static int fast_exact_D_##sfx(double *e, fast_x *x, const fdd *s,           \
                                                               const fdd *sr, const fdd *v, int n) {         \
    return fast_exact_D(e, x, s, sr, v, n, FM);                                                              \
  }
FAST_RARE_DEFS(gen, FAST_GEN_FMA, )
#if defined(__GNUC__) && defined(__x86_64__) && !defined(FP_FAST_FMA)
#define FAST_DISPATCH 1
FAST_RARE_DEFS(fma, 1, __attribute__((target("fma"))))
#define FAST_RARE(name, fm) ((fm) ? name##_fma : name##_gen)
#else
#define FAST_RARE(name, fm) name##_gen
#endif

/* ---- powers of two and the final rounding ---- */

/* floor(log2 x) for finite x > 0, subnormals included. */
static inline int fast_ilog2(double x) {
  uint64_t b;
  memcpy(&b, &x, sizeof b);
  int e = (int)((b >> 52) & 0x7ff);
  if (e) return e - 1023;
  x *= 0x1p64; /* exact */
  memcpy(&b, &x, sizeof b);
  return (int)((b >> 52) & 0x7ff) - 1023 - 64;
}

/* 2^k for -1022 <= k <= 1023, from its bits. */
static inline double fast_pow2(int k) {
  uint64_t b = (uint64_t)(k + 1023) << 52;
  double x;
  memcpy(&x, &b, sizeof x);
  return x;
}

/* x 2^k for |k| <= 2044, exact whenever the result and x are normal: two
 * products by normal powers of two, the intermediate lying between x and
 * the result. Otherwise RN(x 2^k) up to a double rounding, which the
 * callers only use where every result below 2^-480 is refused. */
static inline double fast_scale(double x, int k) {
  if (k >= -1022 && k <= 1023) return x * fast_pow2(k);
  int k1 = k / 2;
  return x * fast_pow2(k1) * fast_pow2(k - k1);
}

/*
 * RN(x 2^k) in the double format, for x = x.h + x.l normalized with
 * 2^-850 <= |x.h| <= 2^850 and |k| <= 2200 (every fast_scale below has a
 * normal result from x.h, so its |k| <= 1873). x.h = RN_53(x) with unbounded
 * exponent, so x.h 2^k = RN_53(x 2^k): when that lies in the normal range
 * it is the answer; from 2^1024 on IEEE 754 overflows to +-Inf (the overflow
 * test is made on the unbounded rounding, as here). Below 2^-1022 the grid is
 * 2^-1074: with m = |x.h| 2^(k+1074) (exact, normal, m < 2^52) and fl, fr its
 * integer and fractional parts, the answer is fl or fl + 1 times 2^-1074.
 * m and 0.5 are multiples of ulp(m) and |x.l| 2^(k+1074) <= ulp(m)/2, so x.l
 * can only decide a tie fr = 1/2 (toward its sign, to even when it is zero);
 * a value that rounds to zero keeps its sign, as mpfr_get_d gives it.
 */
static double fast_rn(fdd x, int k) {
  int e = fast_ilog2(fabs(x.h)) + k;
  if (e > 1023) return copysign(INFINITY, x.h);
  if (e >= -1022) return fast_scale(x.h, k);
  if (e < -1080) return copysign(0.0, x.h);
  double m = fabs(fast_scale(x.h, k + 1074)); /* exact: normal, in [2^-6, 2^52) */
  double l = x.h > 0 ? x.l : -x.l;           /* the correction toward larger |x| */
  int64_t f = (int64_t)m;                     /* floor: m >= 0 */
  double fr = m - (double)f;                  /* exact */
  if (fr > 0.5 || (fr == 0.5 && (l > 0 || (l == 0 && (f & 1))))) f += 1;
  return copysign((double)f * 0x1p-1074, x.h);
}

/*
 * RN(t*) from T (t = T 2^k) with |T - t*| <= E, if certain.
 * The enclosure's ends are T.h + RN(T.l -+ E2) with E2 >= E + 2^-104 |T.h|:
 * the rounding of T.l -+ E2 is at most u(u + 2^-59)|T.h| < 2^-105 |T.h|, so
 * the ends lie outside [T - E, T + E]. RN is monotone, so when both ends
 * round to the same double (same bits: the sign of zero counts) every point
 * between them does, t* included. Usual case first: the RN_53 of both ends
 * (plain sums, which Fast2Sum would normalize to) agree and that value times
 * 2^k is a normal double, which is then the answer (RN in the double format
 * is RN_53 there). Otherwise both ends go through fast_rn.
 */
static inline int fast_certify(double *out, fdd T, double E, int k) {
  double ah = fabs(T.h);
  if (!(ah >= 0x1p-850 && ah <= 0x1p850 && E <= 0x1p-60 * ah)) return 0;
  double E2 = (E + ah * 0x1p-104) * (1 + 0x1p-50);
  double l1 = T.l - E2, l2 = T.l + E2;
  double h1 = T.h + l1, h2 = T.h + l2;
  if (h1 == h2) {
    int e = fast_ilog2(ah) + k; /* h1 is T.h or a neighbour: same binade or the next */
    if (e >= -1021 && e <= 1022) {
      *out = fast_scale(h1, k);
      return 1;
    }
  }
  double y1 = fast_rn(fast_two_sum(T.h, l1), k);
  double y2 = fast_rn(fast_two_sum(T.h, l2), k);
  if (memcmp(&y1, &y2, sizeof y1)) return 0;
  *out = y1;
  return 1;
}

/* Directions from the exact signs of b and c, as ref_roots.c sets them. */
FAST_INLINE void fast_dirs(toi_ref *out, int sb, int sc) {
  if (sc < 0) {
    out->fwd_is_lo = 0;
    out->rev_is_lo = 1;
  } else if (sc == 0) {
    out->fwd_is_lo = sb <= 0;
    out->rev_is_lo = sb < 0;
  } else if (sb < 0) {
    out->fwd_is_lo = 1;
  } else {
    out->rev_is_lo = 0;
  }
  if (out->fwd_is_lo >= 0) out->tfwd = out->fwd_is_lo ? out->tlo : out->thi;
  if (out->rev_is_lo >= 0) out->trev = out->rev_is_lo ? out->tlo : out->thi;
}

enum { FAST_OK = 0, FAST_NEG_R, FAST_NOT_FINITE, FAST_FB_RANGE, FAST_FB_SIGN, FAST_FB_ROUND };

static inline int sgn(double x) { return (x > 0) - (x < 0); }

/* The double root -b/a (D = 0, b != 0), or the nonzero root -2b/a of a
 * touching pair (c = 0): mul = 1 or 2. */
FAST_INLINE int fast_root_ba(double *t, fdd A, double Ea, double ia, fdd B, double Eb, double mul, int k,
                             const int fm) {
  if (!(fabs(B.h) >= 0x1p-800)) return FAST_FB_RANGE;
  fdd T = dd_div(B, A, ia, fm);
  double E = fast_quot_err(T, 0x1p-100, Eb / fabs(B.h), Ea / A.h) * mul;
  T.h *= -mul, T.l *= -mul; /* exact */
  return fast_certify(t, T, E, k) ? FAST_OK : FAST_FB_ROUND;
}

FAST_INLINE int fast_try(toi_ref *out, const toi_case *cs, const double *delta, toi_ref_fast_stats *st,
                         const int n, const int fm) {
  fdd s[4], sr[4], v[3];
  /* x - x is 0 for finite x, NaN otherwise: z = 0 exactly when every
   * difference is finite, hence every input (an infinite or NaN input makes
   * its difference infinite or NaN; a finite one may still overflow). */
  double z = 0;
#pragma GCC unroll 3
  for (int i = 0; i < n; i++) {
    s[i] = two_sum(cs->pb[i], -cs->pa[i]);
    v[i] = two_sum(cs->vb[i], -cs->va[i]);
    z += (s[i].h - s[i].h) + (v[i].h - v[i].h);
  }
  fdd R = two_sum(cs->ra, cs->rb);
  if (!(z + (R.h - R.h) == 0)) return FAST_NOT_FINITE;
  if (delta) {
    /* R + delta as a double-double when it fits in two doubles. */
    fdd t = two_sum(R.h, *delta);
    if (!isfinite(t.h)) return FAST_FB_RANGE;
    fdd m = two_sum(R.l, t.l);
    if (m.l != 0) return FAST_FB_RANGE;
    R = two_sum(t.h, m.h);
    if (R.h < 0) return FAST_NEG_R; /* R.h = RN(R) has the sign of R */
  }

  /* Step 1: the scales. Unscaled when both maxima lie in [2^-64, 2^64]:
   * every component is then below 2^65, a, b, c below 2^132, D below 2^266. */
  double ms = R.h, mv = 0;
#pragma GCC unroll 3
  for (int i = 0; i < n; i++) {
    double as = fabs(s[i].h), av = fabs(v[i].h);
    ms = as > ms ? as : ms;
    mv = av > mv ? av : mv;
  }
  if (ms == 0 || mv == 0) return FAST_FB_RANGE;
  int es = 0, ev = 0, lost = 0;
  if (!(ms >= 0x1p-64 && ms <= 0x1p64 && mv >= 0x1p-64 && mv <= 0x1p64)) {
    es = fast_ilog2(ms);
    ev = fast_ilog2(mv);
    /* lost: a nonzero component fell below 2^-480 (maybe to zero): the
     * scaled data may then differ from the exact data, which only the
     * floating-point stages tolerate (see step 2). */
#define FAST_SCALE1(x, k)                                                                                    \
  do {                                                                                                       \
    double y_ = fast_scale((x), (k));                                                                        \
    lost |= (x) != 0 && !(fabs(y_) >= 0x1p-480);                                                             \
    (x) = y_;                                                                                                \
  } while (0)
#pragma GCC unroll 3
    for (int i = 0; i < n; i++) {
      FAST_SCALE1(s[i].h, -es);
      FAST_SCALE1(s[i].l, -es);
      FAST_SCALE1(v[i].h, -ev);
      FAST_SCALE1(v[i].l, -ev);
    }
    FAST_SCALE1(R.h, -es);
    FAST_SCALE1(R.l, -es);
#undef FAST_SCALE1
  }
#pragma GCC unroll 3
  for (int i = 0; i < n; i++) sr[i] = s[i];
  s[n] = R;
  sr[n] = dd_neg(R);
  /* The exact stages, and every product of the Dekker build, need the exact
   * data with every nonzero component at least 2^-480. */
#define FAST_FLOOR_OK() (!lost && fast_floor_ok(s, n + 1) && fast_floor_ok(v, n))
  if (!fm && !FAST_FLOOR_OK()) return FAST_FB_RANGE;
  const int k2 = es - ev; /* t = T 2^(es - ev) */

  /* Step 2: a, b, c with errors 2^-99 M + 2^-1000 (dd_dot). A scaled
   * component that underflowed moved by at most 2^-1074 (two roundings when
   * scaled in two steps), which moves a, b, c by less than 2^-1067: inside
   * the 2^-1000. a > 0 since v != 0. */
  double Ma, Mb, Mc;
  fdd A = dd_dot(v, v, n, &Ma, fm);
  fdd B = dd_dot(s, v, n, &Mb, fm);
  fdd C = dd_dot(s, sr, n + 1, &Mc, fm);
  double Ea = 0x1p-99 * Ma + 0x1p-1000, Eb = 0x1p-99 * Mb + 0x1p-1000, Ec = 0x1p-99 * Mc + 0x1p-1000;
  const double ia = 1 / A.h;
  int sc, sb = 2, exact = 0;
  fast_x X;
  X.ma = X.mb = X.mc = 0;
  /* When cancellation cost c 64 bits (near contact; the roots need it to
   * better than 2^-60) or its sign is in doubt: c to about 2^-145 M
   * (fast_c3), and exactly if that still cannot tell its sign. */
  if (fabs(C.h) > 0x1p64 * Ec) {
    sc = sgn(C.h);
  } else {
    exact = 1;
    C = FAST_RARE(fast_c3, fm)(s, sr, n + 1, &Ec);
    if (fabs(C.h) > 2 * Ec) {
      sc = sgn(C.h);
    } else {
      if (!FAST_FLOOR_OK()) return FAST_FB_RANGE;
      X.mc = FAST_RARE(fast_xdot, fm)(X.c, s, sr, n + 1, 1);
      C = fast_xdd(X.c, X.mc, &Ec, &sc);
      if (sc == 2) return FAST_FB_SIGN;
    }
  }
  if (fabs(B.h) > 2 * Eb) sb = sgn(B.h);
  if (sb == 2 && sc >= 0) {
    if (!FAST_FLOOR_OK()) return FAST_FB_RANGE;
    exact = 1;
    X.mb = FAST_RARE(fast_xdot, fm)(X.b, s, v, n, 0);
    B = fast_xdd(X.b, X.mb, &Eb, &sb);
    if (sb == 2) return FAST_FB_SIGN;
  }
  st->exact += (unsigned)exact;

  if (sc == 0) {
    /* Touching now: D = b^2, the roots are 0 (exactly: +0, as the exact
     * path writes it) and -2b/a. */
    out->cls = sb < 0 ? TOI_CONTACT : TOI_SEPARATING;
    double t = 0;
    if (sb != 0) {
      int why = fast_root_ba(&t, A, Ea, ia, B, Eb, 2, k2, fm);
      if (why) return why;
    }
    out->tlo = sb < 0 ? 0.0 : t;
    out->thi = sb < 0 ? t : 0.0;
    fast_dirs(out, sb, sc);
    return FAST_OK;
  }
  if (sc > 0 && sb >= 0) {
    out->cls = TOI_SEPARATING;
    if (sb == 0) return FAST_OK; /* D = -ac < 0: no roots */
  }

  /* Step 3: D = b^2 - a c. dd_dot errs by <= 2^-99 M_D + 2^-1000 on the
   * rounded inputs (B.h, C.h below 2^133, A.h below 2^133); their own errors
   * add |b^2 - B^2| <= Eb (2|B| + Eb) and |ac - AC| <= Ea |C| + (|A| + Ea) Ec.
   * In the Dekker build B.h and C.h must clear the floor for its TwoProds. */
  if (!fm && ((B.h != 0 && !(fabs(B.h) >= 0x1p-480)) || (C.h != 0 && !(fabs(C.h) >= 0x1p-480))))
    return FAST_FB_RANGE;
  const double Aa = A.h * (1 + 0x1p-52), Ba = fabs(B.h) * (1 + 0x1p-52), Ca = fabs(C.h) * (1 + 0x1p-52);
  fdd dx[2] = {B, A}, dy[2] = {B, dd_neg(C)};
  double Md;
  fdd D = dd_dot(dx, dy, 2, &Md, fm);
  double ED = up(0x1p-99 * Md + Eb * (2 * Ba + Eb) + Ea * Ca + (Aa + Ea) * Ec) + 0x1p-1000;
  int sd;
  if (sc < 0) {
    sd = 1; /* c < 0 < a: D >= -ac > 0 */
  } else if (fabs(D.h) > 2 * ED) {
    sd = sgn(D.h);
  } else {
    /* D within its bound of 0 (exactly tangent paths): D exactly. */
    if (!FAST_FLOOR_OK()) return FAST_FB_RANGE;
    double e[96];
    int m = FAST_RARE(fast_exact_D, fm)(e, &X, s, sr, v, n);
    if (!m) return FAST_FB_SIGN;
    D = fast_xdd(e, m, &ED, &sd);
    st->exact += (unsigned)!exact;
    if (sd == 2) return FAST_FB_SIGN;
  }
  if (sc < 0)
    out->cls = TOI_OVERLAP;
  else if (sb < 0)
    out->cls = sd < 0 ? TOI_MISS : sd == 0 ? TOI_GRAZE : TOI_HIT;
  if (sd < 0) return FAST_OK;
  if (sd == 0) {
    /* A double root -b/a (c > 0 here, so b != 0). */
    double t;
    int why = fast_root_ba(&t, A, Ea, ia, B, Eb, 1, k2, fm);
    if (why) return why;
    out->tlo = out->thi = t;
    fast_dirs(out, sb, sc);
    return FAST_OK;
  }

  /* Step 4: the roots. W = |B| + sqrt(D) pairs with W* = -sigma b + sqrt D,
   * sigma the sign of B.h (the formula stays exact whatever the true sign
   * of b); |W - W*| <= Eb + |sqrt D - sqrt D~| + 2^-101 W.h, and
   * |sqrt D - sqrt D~| <= ED / sqrt(D~) <= ED / h (1 + 2.1u). b <= 0:
   * lower = c/W, upper = W/a; b > 0: lower = -W/a, upper = -c/W. */
  if (!(D.h >= 0x1p-800 && D.h <= 0x1p800 && fabs(C.h) >= 0x1p-800)) return FAST_FB_RANGE;
  const int bneg = B.h <= 0;
  double h, w0;
  fdd W = dd_add_sqrt(bneg ? dd_neg(B) : B, D, &h, &w0, fm);
  double iw = 1 / w0;
  fdd Q1 = dd_div(C, W, iw, fm), Q2 = dd_div(W, A, ia, fm);
  double E1, E2;
  if (ED <= 0x1p-96 * (h * h) && Eb <= 0x1p-96 * W.h && Ec <= 0x1p-93 * fabs(C.h) && Ea <= 0x1p-93 * A.h) {
    /* Usual case, without divisions: ED / h <= 2^-96 h (1 + 2^-50) and
     * h <= W.h (1 + 4u), so |W - W*| <= (2^-96 + 2^-96 + 2^-101)(1 + 2^-40)
     * W.h < 2^-94.9 W.h; with rc, ra <= 2^-93, fast_quot_err <= |Q.h|
     * (2^-98 + 1.001 (2^-93 + 2^-94.9)) < 2^-92.3 |Q.h|. */
    E1 = 0x1p-91 * fabs(Q1.h);
    E2 = 0x1p-91 * fabs(Q2.h);
  } else {
    double EW = up(Eb + ED / h + 0x1p-101 * W.h);
    double rw = EW / W.h;
    E1 = fast_quot_err(Q1, 0x1p-98, Ec / fabs(C.h), rw);
    E2 = fast_quot_err(Q2, 0x1p-100, rw, Ea / A.h);
  }
  double t1, t2;
  if (!fast_certify(&t1, bneg ? Q1 : dd_neg(Q1), E1, k2)) return FAST_FB_ROUND;
  if (!fast_certify(&t2, bneg ? Q2 : dd_neg(Q2), E2, k2)) return FAST_FB_ROUND;
  out->tlo = bneg ? t1 : t2;
  out->thi = bneg ? t2 : t1;
  fast_dirs(out, sb, sc);
  return FAST_OK;
#undef FAST_FLOOR_OK
}

/* ---- the builds and the entry point ---- */

/* The FMA is a compile-time constant in each build, so that the unused
 * TwoProd disappears; so is the dimension: 2D cases run as 3D ones, their
 * third components being exactly zero (they add exact zeros everywhere, to
 * the values and to the bounds), which spares a branch that mixed 2D and 3D
 * data would mispredict half the time. */
static int fast_try_generic(toi_ref *out, const toi_case *cs, const double *delta, toi_ref_fast_stats *st) {
#ifdef FP_FAST_FMA
  return fast_try(out, cs, delta, st, 3, 1);
#else
  return fast_try(out, cs, delta, st, 3, 0);
#endif
}

#ifdef FAST_DISPATCH
__attribute__((target("fma"))) static int fast_try_fma(toi_ref *out, const toi_case *cs, const double *delta,
                                                       toi_ref_fast_stats *st) {
  return fast_try(out, cs, delta, st, 3, 1);
}

/* 1 with an FMA unit, 0 without, -1 not asked yet (a benign, idempotent race
 * made well-defined by the atomic). */
static atomic_int fast_fma = -1;

static int fast_have_fma(void) {
  int f = atomic_load_explicit(&fast_fma, memory_order_relaxed);
  if (f < 0) {
    __builtin_cpu_init();
    f = __builtin_cpu_supports("fma") ? 1 : 0;
    atomic_store_explicit(&fast_fma, f, memory_order_relaxed);
  }
  return f;
}
#endif

int ref_fast_use_fma(int on) {
#ifdef FAST_DISPATCH
  atomic_store_explicit(&fast_fma, -1, memory_order_relaxed);
  int have = fast_have_fma();
  if (on == 0 || (on == 1 && !have)) atomic_store_explicit(&fast_fma, 0, memory_order_relaxed);
  return atomic_load_explicit(&fast_fma, memory_order_relaxed);
#elif defined(FP_FAST_FMA)
  (void)on;
  return 1;
#else
  (void)on;
  return 0;
#endif
}

static _Thread_local toi_ref_fast_stats fast_stats;

void toi_ref_fast_stats_get(toi_ref_fast_stats *out) {
  if (out) *out = fast_stats;
}

void toi_ref_fast_stats_reset(void) { memset(&fast_stats, 0, sizeof fast_stats); }

/* The checks of ref_check_case that the computation does not make itself:
 * the finiteness of the inputs is read from that of their differences in
 * fast_try, which hands anything non-finite back to ref_check_case. */
static inline int fast_plausible(const toi_case *c) {
  if (!c || (c->dim != 2 && c->dim != 3) || !(c->ra >= 0) || !(c->rb >= 0)) return 0;
  return c->dim == 3 || (c->pa[2] == 0 && c->pb[2] == 0 && c->va[2] == 0 && c->vb[2] == 0);
}

toi_status ref_solve_fast(toi_ref *out, const toi_case *c, const double *delta) {
  if (!out) return TOI_ERR_RANGE;
  out->cls = TOI_NONE;
  out->tlo = out->thi = out->tfwd = out->trev = NAN;
  out->fwd_is_lo = out->rev_is_lo = -1;
  /* Each refusal here is one ref_check_case would make too (TOI_ERR_INPUT). */
  if (!fast_plausible(c)) return TOI_ERR_INPUT;
  if (delta && !isfinite(*delta)) return ref_check_case(c) != TOI_OK ? TOI_ERR_INPUT : TOI_ERR_RANGE;
  toi_ref_fast_stats *s = &fast_stats;
  int why;
#ifdef FAST_DISPATCH
  why = fast_have_fma() ? fast_try_fma(out, c, delta, s) : fast_try_generic(out, c, delta, s);
#else
  why = fast_try_generic(out, c, delta, s);
#endif
  if (why == FAST_NOT_FINITE) {
    toi_status st = ref_check_case(c);
    if (st != TOI_OK) return st;
    why = FAST_FB_RANGE; /* valid data whose difference overflows */
  }
  s->calls++;
  switch (why) {
  case FAST_OK: return TOI_OK;
  case FAST_NEG_R: /* as ref_load: R + delta < 0, out left cleared */
    out->cls = TOI_NONE;
    return TOI_ERR_RANGE;
  case FAST_FB_RANGE: s->fb_range++; break;
  case FAST_FB_SIGN: s->fb_sign++; break;
  default: s->fb_round++; break;
  }
  return ref_solve_mpfr(out, c, delta);
}
