/* robust.c: a backward-stable forward root in plain real (Kahan's FMA determinant, Lagrange's identity). */
#include <math.h>
#include "eft_real.h"
#include "formulations.h"

/*
 * Differences first (s = pB - pA, v = vB - vA, R = rA + rB: one rounding
 * each, a relative perturbation of the inputs), then, in the reference's
 * order: c = s.s - R^2 with an FMA for the subtraction (compensated when the
 * balls are close, see core), b = s.v, a = v.v, and D = a R^2 - |s x v|^2
 * (Lagrange's identity: D = b^2 - a c exactly) with each component of s x v
 * by Kahan's FMA 2x2 determinant, accurate to 2u whatever the cancellation.
 * Near grazing, b^2 - a c cancels terms of size a |s|^2 while this form
 * cancels terms of size a R^2 computed almost exactly, so the rounding of D
 * stays within what a relative perturbation of the inputs explains. The
 * root t = c / (-b + sqrt D) adds two positive numbers, so near contact (c
 * tiny) it keeps c's relative accuracy where (-b - sqrt D) / a would cancel.
 *
 * Scale: the formulas square lengths times speeds, so s, R and v are first
 * brought to magnitudes in [ROBUST_LO, ROBUST_HI) by exact powers of two
 * when they are not there already (t then scales by a known power of two); inputs so
 * large that pB - pA overflows are quartered first.
 *
 * Verdicts are plain real decisions: on a knife's edge (D or c within a
 * few ulps of zero) they can differ from the exact class, which the
 * accurate kernel decides exactly.
 */

/* The range in which nothing the kernel squares twice (|s|^2 |v|^2, R^2 a)
   nor a product's exact error leaves the normal range. binary64: [2^-200,
   2^200) (products of four factors within 2^+-800, their errors above
   2^-860). binary32 has a far narrower range, so its own limits: [2^-20,
   2^20) (within 2^+-80 and errors above 2^-110, beside float's 2^-126 and
   2^128). */
#if TOI_REAL_BITS == 32
#define ROBUST_LO 0x1p-20f
#define ROBUST_HI 0x1p20f
#else
#define ROBUST_LO 0x1p-200
#define ROBUST_HI 0x1p200
#endif

/* a d - b c with Kahan's algorithm: w = RN(b c) and its exact error e
   (an FMA gives it), then RN(RN(a d - w) + e); relative error <= 2u
   (Jeannerod, Louvet and Muller, 2013). */
TOI_INLINE real kahan_det(real a, real b, real c, real d) {
  real w = b * c;
  real e = FMA(-b, c, w);
  real f = FMA(a, d, -w);
  return f + e;
}

TOI_INLINE real max2(real x, real y) { return x > y ? x : y; }

/* The kernel on s = sh + sl, R = Rh + Rl (exact differences), v and the
   shift of t, all in range; n is a constant after inlining. When sl is NULL
   the low parts are recomputed from the case's inputs, only if needed. */
TOI_INLINE toi_result core(const toi_case *cs, const real *sh, const real *sl, const real *v, real Rh, real Rl,
                           const int n, int shift) {
  /* c = s.s - R^2. Near contact it is a small difference of large squares
     and its rounding is amplified by (s.s + R^2) / c: there (c < 3 R^2,
     that is |s| < 2R) it is recomputed compensated, the squares by TwoProd
     (an FMA gives the error), the sum by a TwoSum chain, the errors and the
     low parts' cross terms 2 sh sl - 2 Rh Rl in a tail, which keeps c within
     a few ulps of itself instead of ulps of R^2 (measured on generic hits:
     those beyond 4 ulps fall from 3.7% to 0.55%). */
  real ss = sh[0] * sh[0] + sh[1] * sh[1];
  if (n == 3) ss += sh[2] * sh[2];
  real c = FMA(-Rh, Rh, ss);
  if (c < 3 * (Rh * Rh)) {
    real low[3];
    if (!sl) {
      for (int i = 0; i < n; i++) low[i] = r_two_sum(TOI_IN(cs->pb[i]), -TOI_IN(cs->pa[i])).lo;
      Rl = r_two_sum(TOI_IN(cs->ra), TOI_IN(cs->rb)).lo;
      sl = low;
    }
    rdd p = r_two_prod(sh[0], sh[0]);
    real S = p.hi, T = p.lo + 2 * sh[0] * sl[0];
    for (int i = 1; i < n; i++) {
      p = r_two_prod(sh[i], sh[i]);
      rdd q = r_two_sum(S, p.hi);
      S = q.hi;
      T += q.lo + p.lo + 2 * sh[i] * sl[i];
    }
    p = r_two_prod(Rh, Rh);
    rdd q = r_two_sum(S, -p.hi);
    c = q.hi + (T + (q.lo - p.lo - 2 * Rh * Rl));
  }
  if (c < 0) return toi_verdict(TOI_OVERLAP, NAN);
  real a = v[0] * v[0] + v[1] * v[1];
  if (n == 3) a += v[2] * v[2];
  if (a == 0) return toi_verdict(TOI_STATIC, NAN);
  real b = sh[0] * v[0] + sh[1] * v[1];
  if (n == 3) b += sh[2] * v[2];
  if (c == 0) return b < 0 ? toi_verdict(TOI_CONTACT, 0.0) : toi_verdict(TOI_SEPARATING, NAN);
  if (b >= 0) return toi_verdict(TOI_SEPARATING, NAN);
  real xx;
  if (n == 2) {
    real x = kahan_det(sh[0], sh[1], v[0], v[1]);
    xx = x * x;
  } else {
    real x0 = kahan_det(sh[1], sh[2], v[1], v[2]);
    real x1 = kahan_det(sh[2], sh[0], v[2], v[0]);
    real x2 = kahan_det(sh[0], sh[1], v[0], v[1]);
    xx = x0 * x0 + x1 * x1 + x2 * x2;
  }
  real d = FMA(a, Rh * Rh, -xx);
  if (d < 0) return toi_verdict(TOI_MISS, NAN);
  real t = c / (SQRT(d) - b);
  if (shift) t = r_scale2(t, shift);
  return toi_verdict(d > 0 ? TOI_HIT : TOI_GRAZE, t);
}

static real max_abs(const real *x, int n, real extra) {
  real m = FABS(extra);
  for (int i = 0; i < n; i++) m = max2(m, FABS(x[i]));
  return m;
}

/* Lengths or speeds out of range: bring each group's largest magnitude to
   [1, 2) by a power of two (quartering first inputs whose differences
   overflowed), which multiplies t by 2^(ilog2 V - ilog2 L), undone at the
   end. Low parts that underflow in the scaling were far below an ulp. */
TOI_FMA_CLONES static toi_result robust_scaled(const toi_case *cs, const int n) {
  real sh[3], sl[3], v[3];
  int shift = 0;
  real q = 1; /* 1, or 1/4 when the differences overflow */
  for (int pass = 0; pass < 2; pass++) {
    for (int i = 0; i < n; i++) {
      rdd t = r_two_sum(q * TOI_IN(cs->pb[i]), -(q * TOI_IN(cs->pa[i])));
      sh[i] = t.hi;
      sl[i] = t.lo;
    }
    if (max_abs(sh, n, q * TOI_IN(cs->ra) + q * TOI_IN(cs->rb)) < INFINITY) break;
    q = REAL(0.25);
    shift = 2;
  }
  rdd R = r_two_sum(q * TOI_IN(cs->ra), q * TOI_IN(cs->rb));
  real Rh = R.hi, Rl = R.lo, L = max_abs(sh, n, Rh);
  q = 1;
  for (int pass = 0; pass < 2; pass++) {
    for (int i = 0; i < n; i++) v[i] = q * TOI_IN(cs->vb[i]) - q * TOI_IN(cs->va[i]);
    if (max_abs(v, n, 0) < INFINITY) break;
    q = REAL(0.25);
    shift -= 2;
  }
  real V = max_abs(v, n, 0);
  if (L > 0) {
    int k = -r_ilog2(L);
    shift -= k;
    for (int i = 0; i < n; i++) {
      sh[i] = r_scale2(sh[i], k);
      sl[i] = r_scale2(sl[i], k);
    }
    Rh = r_scale2(Rh, k);
    Rl = r_scale2(Rl, k);
  }
  if (V > 0) {
    int k = -r_ilog2(V);
    shift += k;
    for (int i = 0; i < n; i++) v[i] = r_scale2(v[i], k);
  }
  return n == 3 ? core(cs, sh, sl, v, Rh, Rl, 3, shift) : core(cs, sh, sl, v, Rh, Rl, 2, shift);
}

TOI_INLINE toi_result robust_n(const toi_case *cs, const int n) {
  real sh[3], v[3];
  real L = 0, V = 0;
  for (int i = 0; i < n; i++) {
    sh[i] = TOI_IN(cs->pb[i]) - TOI_IN(cs->pa[i]);
    v[i] = TOI_IN(cs->vb[i]) - TOI_IN(cs->va[i]);
    L = max2(L, FABS(sh[i]));
    V = max2(V, FABS(v[i]));
  }
  real Rh = TOI_IN(cs->ra) + TOI_IN(cs->rb);
  L = max2(L, Rh);
  /* Squares of lengths times squares of speeds stay far from overflow and
     underflow inside [ROBUST_LO, ROBUST_HI); zero groups are fine too. */
  if (!(L < ROBUST_HI && V < ROBUST_HI && (L >= ROBUST_LO || L == 0) && (V >= ROBUST_LO || V == 0)))
    return robust_scaled(cs, n);
  return core(cs, sh, NULL, v, Rh, 0, n, 0);
}

TOI_FMA_CLONES toi_result RNAME(toi_f_robust)(const toi_case *cs) {
  return cs->dim == 3 ? robust_n(cs, 3) : robust_n(cs, 2);
}
