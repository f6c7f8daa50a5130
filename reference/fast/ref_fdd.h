/* ref_fdd.h: the fast engine's double-double kit with proven error bounds, and its certified final rounding. */
#ifndef REF_FDD_H
#define REF_FDD_H

#include <math.h>
#include <stdint.h>
#include <string.h>

/* ---- the fast engine's double-double kit (ref_fast.c, ref_fast_err.c) ----
 * u = 2^-53. An "error" is an absolute bound on the distance to the exact
 * real, proved in the comment beside the code that computes it.
 *
 * Why this is not src/core/eft.h (the project's kit): its operations differ
 * where the proofs and the speed of the fast engine depend on them, and the
 * engine must stay bit for bit what it is.
 *  - two_sum, fast_two_sum: the same sums as eft.h's, but with their
 *    operands made opaque (FAST_OPAQUE, below), which eft.h's are not.
 *  - two_prod takes the build (fm): an inline FMA instruction in the FMA
 *    build, Dekker's split product in the other; eft.h always calls fma(),
 *    a library call without FMA hardware, which the Dekker build avoids.
 *  - dd_div divides through a reciprocal computed once (iy) and shared by
 *    several quotients; eft.h's dd_div makes two divisions.
 *  - dd_dot, dd_add_sqrt, fast_certify, fast_rn and fast_scale have no
 *    counterpart there (eft.h's scale2 rounds subnormal results once,
 *    fast_scale may round twice where its callers refuse the result).
 *  - fast_ilog2 and fast_pow2 are the same operations as eft.h's ilog2d and
 *    pow2i; eft.h is not included here because its two_sum, fast_two_sum,
 *    two_prod and dd_div would clash with the names above.
 * fdd's fields h, l are eft.h's dd's hi, lo. */

#define FAST_INLINE static inline __attribute__((always_inline))

typedef struct fdd {
  double h, l;
} fdd;

/* ---- error-free transformations ---- */

/* The operands of a sum that must be error-free, made opaque to the
 * optimizer. -ffp-contract=off forbids fusing a product into a following
 * sum, yet GCC 12's SLP vectorizer at -O2 still paired two such operations
 * into packed vfmsubadd instructions in the FMA build once fast_rn was
 * inlined, and a root came out one ulp off in its hi part (a sum such as
 * q1 + r iy rounded once by an FMA while its error term used RN(r iy)). A
 * value that leaves an empty asm is no product any more; the asm emits no
 * instruction. */
#if defined(__GNUC__) && defined(__x86_64__)
#define FAST_OPAQUE(x) __asm__("" : "+x"(x))
#elif defined(__GNUC__) && defined(__aarch64__)
#define FAST_OPAQUE(x) __asm__("" : "+w"(x))
#else
#define FAST_OPAQUE(x) ((void)0)
#endif

/* Knuth: h = RN(a + b), h + l = a + b exactly, for any finite a, b whose sum
 * does not overflow (additions never lose to underflow). */
FAST_INLINE fdd two_sum(double a, double b) {
  FAST_OPAQUE(a);
  FAST_OPAQUE(b);
  double s = a + b, bb = s - a, aa = s - bb;
  fdd r = {s, (a - aa) + (b - bb)};
  return r;
}

/* Dekker: exact like two_sum when a = 0 or |a| >= |b|. */
FAST_INLINE fdd fast_two_sum(double a, double b) {
  FAST_OPAQUE(a);
  FAST_OPAQUE(b);
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

/* fast_scale(*x, k) in place, setting *lost when a nonzero *x falls below
 * 2^-480 (maybe to zero): the scaled data may then differ from the exact
 * data (a normal result of a scaling by a power of two is exact). */
static inline void fast_scale_keep(double *x, int k, int *lost) {
  double y = fast_scale(*x, k);
  *lost |= *x != 0 && !(fabs(y) >= 0x1p-480);
  *x = y;
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
static inline double fast_rn(fdd x, int k) {
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
#endif
