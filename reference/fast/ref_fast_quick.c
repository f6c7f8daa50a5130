/* ref_fast_quick.c: the fast engine's first stage: the class from plain-double filters, the roots by a Newton step. */
#include <math.h>
#include "ref_bench.h"
#include "ref_common.h"
#include "ref_fast_api.h"
#include "ref_fdd.h"

/*
 * Tried before the double-double stage of ref_fast.c (fast_try), in the FMA
 * build only, for cases without a target distance. It answers alone or
 * declines; a declined case goes to fast_try unchanged, so the answers stay
 * ref_solve_mpfr's bit for bit. u = 2^-53 throughout; an "error" is an
 * absolute bound on the distance to the exact real.
 *
 * Notation: s = pB - pA, v = vB - vA, R = rA + rB exactly; sh, vh, Rh their
 * rounded values (plain differences and sum, the hi parts of TwoSums), sl,
 * vl, Rl the exact remainders, so |sl| <= u|sh| and so on (a difference that
 * is subnormal is exact). a = v.v, b = s.v, c = s.s - R^2, D = b^2 - a c,
 * q(t) = a t^2 + 2 b t + c = |s + v t|^2 - R^2, the roots (-b -+ sqrt D) / a.
 *
 * Range: the largest |sh_i| and Rh, and the largest |vh_i|, lie in
 * [2^-64, 2^64] (fast_try's unscaled range), or the data are scaled as
 * fast_try scales them (lengths by 2^-es, velocities by 2^-ev, both maxima
 * then in [1, 2), t = T 2^(es - ev)) and every nonzero component, hi and
 * lo, is still at least 2^-480 (the scaling was exact, the scaled data are
 * the exact data of a case with the same class and roots 2^(ev - es) times
 * as large); otherwise the case is declined. So every component is at most
 * 2^64, a, |b|, |c| are below 2^131, D below 2^264, each root below 2^132 in
 * magnitude (|b|/a <= |s|/|v| <= 2^66 2^64, |c|/a <= 2^131 2^128). Each
 * estimate T of a root must lie in [2^-300, 2^200]: no quantity below can
 * overflow (the largest, the squares of s_i + v_i T, stay below 2^540).
 * Underflow only ever adds absolute errors, counted apart: a product or an
 * FMA remainder errs by at most 2^-1075 beyond its relative bound, a sum
 * never does. The step's own quantities (dl, dm^2, dm^2 K4) are not counted
 * so: they are bounded below by Ed >= X0 K2 >= 2^-98 sum m_i^2 / |Qp| >=
 * 2^-100 |T| >= 2^-400 (|Qp| <= 2.01 sum |vh_i| m_i <= 3.5 max|vh_i|
 * sqrt(sum m_i^2) and m_i >= |vh_i T| (1 - u)), so dm^2 >= 2^-800 is normal
 * and an underflow of dl or of dm^2 K4 (2^-1075) is far inside up()'s
 * margin. (The roots that pass step 1 are at least about 2^-57 ms/mv in
 * magnitude, 2^-185 unscaled, since |c| > 2^-52 (s.s + R^2); this bound is
 * never the binding check.)
 *
 * 1. The class, in plain double from the hi parts. For a dot product
 *    sum_(i < n) x_i y_i of such data, n <= 4, with M = sum |RN(xh_i yh_i)|
 *    computed: x_i y_i = xh_i yh_i (1 + th_i), |th_i| <= 2u + u^2 (the
 *    dropped low parts); each product rounds by (1 + d_i), |d_i| <= u; a sum
 *    of n terms errs by at most gamma_(n-1) times the sum of their
 *    magnitudes (Higham, 4.2). Together
 *    (2u + u^2 + u + gamma_3 (1 + u)) sum |xh_i yh_i| <= 6.01u sum |xh_i yh_i|,
 *    and M is at most gamma_4 below that sum: 8u M = 2^-50 M is a bound, and
 *    the absolute 2^-1000 covers the underflow of the four products
 *    (4 2^-1075) and of 2^-50 M itself. So a, b, c are read with
 *    Ea = 2^-50 A + 2^-1000 (M = A for a; M = SS + RR for c). A sign is read
 *    when |value| > its bound; a value inside its bound declines the case (so
 *    c = 0, b = 0 and D = 0 always go on to fast_try).
 *    Dc = RN(RN(B^2) - RN(A C)): with |b - B| <= Eb, |a - A| <= Ea,
 *    |c - C| <= Ec, |b^2 - B^2| <= Eb (2|B| + Eb) and
 *    |ac - AC| <= Ea |C| + (A + Ea) Ec; the three roundings add at most
 *    u (B^2 + |AC| + |Dc|) (1 + u); the products' underflow 2 2^-1075. ED is
 *    their sum through up(), plus 2^-1000.
 *    The class then follows ref_classify: c < 0 overlap (D >= -ac > 0
 *    without looking), else b > 0 separating, b < 0 miss or hit by the sign
 *    of D. Without roots (D < 0) the case ends here.
 * 2. Each root by a Newton step from a double estimate T, with q(T) in
 *    double-double (quick_step, where the bound is proved), both roots at
 *    once in the two lanes of a vector.
 * 3. Both roots certified by fast_certify; directions as ref_set_dirs sets
 *    them from the exact signs of b and c (for c < 0 that of b is not
 *    needed).
 */

/* The two roots run side by side in the two lanes of SSE2 vectors (lane 0
 * the lower root, lane 1 the upper): every operation of the Newton step is
 * the same for both. x86-64 with GCC only (an FMA build elsewhere simply
 * has no first stage). */
#if defined(__GNUC__) && defined(__x86_64__)
#define QUICK_BUILD 1
#include <immintrin.h>
#define QUICK_ATTR __attribute__((target("fma")))
#define QUICK_INLINE QUICK_ATTR FAST_INLINE
#else
#define QUICK_BUILD 0
#endif

#if QUICK_BUILD

typedef double v2d __attribute__((vector_size(16)));
typedef long long v2l __attribute__((vector_size(16)));

/* The low part of a sum s = RN(x + y) (Knuth's TwoSum, as two_sum). */
FAST_INLINE double quick_low(double x, double y, double s) {
  FAST_OPAQUE(x);
  FAST_OPAQUE(y);
  FAST_OPAQUE(s);
  double yy = s - x, xx = s - yy;
  return (x - xx) + (y - yy);
}

QUICK_INLINE v2d v_abs(v2d x) { return _mm_andnot_pd(_mm_set1_pd(-0.0), x); }
QUICK_INLINE v2d v_set(double x) { return _mm_set1_pd(x); }
/* up() lane by lane. */
QUICK_INLINE v2d v_up(v2d e) { return e * v_set(1 + 0x1p-40); }
/* 1 when the comparison holds in both lanes (NaN never does). */
QUICK_INLINE int v_all(v2l m) { return (m[0] & m[1]) != 0; }

/* two_sum lane by lane: s + l = a + b exactly. */
QUICK_INLINE void v_two_sum(v2d a, v2d b, v2d *s, v2d *l) {
  FAST_OPAQUE(a);
  FAST_OPAQUE(b);
  v2d x = a + b, bb = x - a, aa = x - bb;
  *s = x;
  *l = (a - aa) + (b - bb);
}

/* two_prod with an FMA, lane by lane: h = RN(a b), l = RN(a b - h). */
QUICK_INLINE void v_two_prod(v2d a, v2d b, v2d *h, v2d *l) {
  v2d p = a * b;
  *h = p;
  *l = _mm_fmsub_pd(a, b, p);
}

/*
 * One Newton step in each lane of T: lane 0 aims at the lower root, lane 1
 * at the upper. Returns, lane by lane, all ones where every check below holds, with
 * *dlo = dl (the step), *Eo = E (|T + dl - t*| <= E for the root t* of the
 * lane) and *Fo the part of E that does not shrink with |dl|. sh, sl, vh,
 * vl, Rh and Rl are the exact (possibly scaled) data, H2 = TwoProd(Rh, Rh),
 * mR = RN(Rl RN(2 Rh + Rl)), A and Ea from step 1.
 *
 * Newton with a known remainder. For any real d,
 * q(T + d) = q(T) + q'(T) d + a d^2 exactly, q'(T) = 2(aT + b), and
 * q'(T)^2 - 4 a q(T) = 4D > 0. With d0 = -q(T)/q'(T) and
 * z = 4 a q(T) / q'(T)^2 (< 1 as D > 0), the root of a d^2 + q'(T) d + q(T)
 * on the side of q'(T)'s sign is d = d0 f(z), f(z) = 2 / (1 + sqrt(1 - z)):
 * (-q' + sgn(q') sqrt(q'^2 - 4aq)) / (2a) rationalised. As a > 0, that is the
 * larger root when q'(T) > 0 and the smaller when q'(T) < 0: T + d is the
 * upper root exactly when q'(T) > 0 (T right of the vertex -b/a), whatever
 * the quality of T. f(z) - 1 = z / (1 + sqrt(1 - z))^2, so for z <= 0.51
 * (z may be negative), |d - d0| <= |d0| |z| / 2.89 <= |d0| |z| / 2; and
 * |z| = 4 a |d0| / |q'(T)|.
 *
 * q(T) = sum_i p_i^2 - R^2, p_i = s_i + v_i T = sh_i + sl_i + (vh_i + vl_i) T:
 *  TwoProd(vh_i, T) = P + p (+ e, |e| <= 2^-1075, 0 without underflow),
 *  r = RN(vl_i T), TwoSum(sh_i, P) = S + g exactly, and the exact
 *  correction t_i = g + p + sl_i + vl_i T + e is computed as
 *  tau_i = RN(RN(RN(g + p) + sl_i) + r), so p_i = S_i + t_i exactly.
 *  With m_i = RN(|sh_i| + |P|) (>= (|sh_i| + |P|)(1 - u)):
 *  |S_i| <= (1 + 2.01u) m_i, |g| <= u|S_i|, |p| <= u|P|, |sl_i| <= u|sh_i|,
 *  |r| <= u|P|(1 + 2.01u) (plus 2^-1075), so the four terms sum to at most
 *  3.02u m_i, |tau_i| too, and tau_i errs from t_i by at most
 *  gamma_3 3.02u m_i (the sum) + u^2 1.01 m_i (r) <= 10.1u^2 m_i, plus
 *  2^-1070 for e and the underflow of r.
 *  sum p_i^2 - R^2 = sum S_i^2 - Rh^2 + [sum t_i (2 S_i + t_i)
 *  - Rl (2 Rh + Rl)]. TwoProd(S_i, S_i) = H_i + h_i and H2 = HR + hR exactly
 *  (up to 2^-1075 each on underflow); the big parts H_0 + H_1 + H_2 - HR,
 *  which cancel near a root, by three TwoSums, (H_0 + H_1) + (H_2 - HR):
 *  G plus their errors g_1, g_2, g_3, exactly. The 11 small terms (h_i, hR, g_k,
 *  tau_i RN(2 S_i + tau_i), mR) are added in double. Their magnitudes:
 *  |h_i| <= u S_i^2, |hR| <= u Rh^2 (1 + u), |g_k| <= u (sum S_i^2 + Rh^2)
 *  (1 + 3u), |tau_i (2 S_i + tau_i)| <= 6.05u m_i^2, |mR| <= 2.01u Rh^2: in
 *  all Ms <= 10.1u sum m_i^2 + 6.01u Rh^2. Their sum errs by at most
 *  gamma_10 Ms, the two roundings inside each product term by 2.01u of its
 *  size: <= 12.2u Ms <= 123u^2 sum m_i^2 + 74u^2 Rh^2. Using tau_i for t_i
 *  costs |tau_i^2 - t_i^2 + 2 S_i (tau_i - t_i)| <=
 *  (2|S_i| + 2|tau_i| + 10.1u^2 m_i) 10.1u^2 m_i <= 20.3u^2 m_i^2, plus
 *  2.01 m_i 2^-1070 for the absolute part: at most 28.3u^2 m_i^2
 *  (2^-101.2) when m_i >= 2^-966, and below 2^-2000 otherwise.
 *  Q = RN(G + small) adds u|Q| (1 + u). The remaining underflows (about 20
 *  products and remainders, 2^-1075 each) stay below 2^-1065. Total:
 *  |Q - q(T)| <= 123u^2 sum m_i^2 + 74u^2 Rh^2 + (28.3u^2 sum m_i^2 or
 *  2^-2000) + u|Q| (1 + u) + 2^-1065 <= 152u^2 (sum m_i^2 + Rh^2) + u|Q|
 *  (1 + u) + 2^-1065 <=
 *  EQ = up(2^-98 (sum m_i^2 + Rh^2) + u|Q|) + 2^-999 (256u^2 = 2^-98 also
 *  covers the roundings of m_i^2 and of their sum, with room to spare).
 *
 * q'(T) = 2 sum v_i p_i is taken as Qp = 2 RN(sum RN(vh_i S_i)):
 *  v_i p_i - vh_i S_i = vl_i S_i + v_i t_i, |vl_i S_i| <= 1.01u |vh_i| m_i,
 *  |v_i t_i| <= (1 + u)|vh_i| (3.02u m_i + 10.1u^2 m_i + 2^-1070)
 *  <= 3.05u |vh_i| m_i + 2^-1004 (|vh_i| <= 2^64); the products and the sum
 *  err by at most gamma_3 sum |vh_i S_i| <= 3.02u sum |vh_i| m_i; the
 *  products' underflow 3 2^-1075. Doubled: |Qp - q'(T)| <=
 *  14.2u sum |vh_i| m_i + 2^-1001 <= EQp = up(2^-48 sum |vh_i| m_i) + 2^-990.
 *  Required: EQp <= 2^-20 |Qp| (so q'(T) has the sign of Qp, and
 *  rp = EQp / |Qp| is the relative error of Qp), and that sign must name
 *  the root wanted; otherwise the case is declined.
 *
 * The step: iQ = RN(1 / Qp) (ready before Q), dl = RN(-Q iQ), so
 *  |dl + Q/Qp| <= (2u + u^2) |Q/Qp|. With q = Q + eq, q' = Qp (1 + r'),
 *  |r'| <= rp = EQp / |Qp| <= 2^-20, and |eq| <= EQ = X0 + u (1 + u) |Q|,
 *  X0 = 2^-98 (sum m_i^2 + Rh^2) + 2^-999 (the EQ above):
 *  |Q/Qp - q/q'| <= |Q/Qp| rp / (1 - rp) + EQ / (|Qp| (1 - rp)), so
 *  with 1 / (1 - rp) <= 1 + 2^-19,
 *  |dl - d0| <= (|Q| (rp + 3u + 2u^2) + X0) (1 + 2^-19) / |Qp|.
 *  Computed as Ed = up((|Q| K1 + X0) K2) with K1 = RN(RN(EQp |iQ|) + 2^-51)
 *  >= (rp (1 - 2u) + 4u)(1 - u) >= rp + 3u + 2u^2 (as rp <= 2^-20) and
 *  K2 = |iQ| (1 + 2^-19) (|iQ| >= (1 - u) / |Qp|; up() covers that and
 *  the other roundings, fewer than 10). Then |d0| <= |dl| + Ed <= dm =
 *  RN(|Q| up(|iQ|) + Ed) up to one rounding of u, which the final up()
 *  absorbs. As a <= A + Ea and |q'(T)| >= |Qp| (1 - 2^-20):
 *  |z| <= 4 (A + Ea) |d0| / |q'(T)| <= 2 dm K4 with K4 =
 *  up(2 (A + Ea) K2), which must be at most 1/2 (dm K4 <= 1/4; the
 *  rounding of dm leaves z <= 0.51); and |d0| |z| / 2 <= dm^2 K4. So
 *  t = TwoSum(T, dl) (exact) lies within E = up(Ed + dm^2 K4) of the
 *  root, and fast_certify decides; the floor is F = X0 K2.
 */
QUICK_INLINE v2l quick_step_lanes(v2d *dlo, v2d *Eo, v2d *Fo, v2d T, const double *sh, const double *sl,
                                  const double *vh, const double *vl, double Rh, fdd H2, double mR, double A,
                                  double Ea) {
  const v2d aT = v_abs(T);
  v2l ok = (aT >= v_set(0x1p-300)) & (aT <= v_set(0x1p200));
  v2d S[3], tau[3], m2 = v_set(0), vm = v_set(0), qp = v_set(0);
#pragma GCC unroll 3
  for (int i = 0; i < 3; i++) {
    v2d P, p, Sh, g;
    v_two_prod(v_set(vh[i]), T, &P, &p);
    v2d r = v_set(vl[i]) * T;
    v_two_sum(v_set(sh[i]), P, &Sh, &g);
    S[i] = Sh;
    tau[i] = ((g + p) + v_set(sl[i])) + r;
    v2d m = v_set(fabs(sh[i])) + v_abs(P);
    m2 += m * m;
    vm += v_set(fabs(vh[i])) * m;
    qp += v_set(vh[i]) * Sh;
  }
  const v2d Qp = 2 * qp, aQp = v_abs(Qp);
  const v2d EQp = v_up(v_set(0x1p-48) * vm) + v_set(0x1p-990);
  /* Qp's relative error at most 2^-20, its sign that of the root wanted:
   * negative in lane 0 (the lower root), positive in lane 1. */
  const v2d want = {-1.0, 1.0};
  ok &= (EQp <= v_set(0x1p-20) * aQp) & (Qp * want > v_set(0));
  const v2d iQ = v_set(1) / Qp, aiQ = v_abs(iQ);
  v2d H[3], h[3], g1, e1, g2, e2, g3, e3;
#pragma GCC unroll 3
  for (int i = 0; i < 3; i++) v_two_prod(S[i], S[i], &H[i], &h[i]);
  v_two_sum(H[0], H[1], &g1, &e1);
  v_two_sum(H[2], v_set(-H2.h), &g2, &e2);
  v_two_sum(g1, g2, &g3, &e3);
  const v2d small = (((h[0] + h[1]) + (h[2] - v_set(H2.l))) + ((e1 + e2) + e3)) +
                    (((tau[0] * (2 * S[0] + tau[0]) + tau[1] * (2 * S[1] + tau[1])) + tau[2] * (2 * S[2] + tau[2])) -
                     v_set(mR));
  const v2d Q = g3 + small, aQ = v_abs(Q);
  /* The bounds (proved above), from |Q| by a short chain: the factors
   * that do not depend on Q are ready before it. */
  const v2d X0 = v_set(0x1p-98) * (m2 + v_set(Rh * Rh)) + v_set(0x1p-999);
  const v2d K1 = EQp * aiQ + v_set(0x1p-51), K2 = aiQ * v_set(1 + 0x1p-19);
  const v2d K4 = v_up(v_set(2 * (A + Ea)) * K2);
  const v2d dl = -Q * iQ;
  const v2d Ed = v_up((aQ * K1 + X0) * K2);
  const v2d dm = aQ * v_up(aiQ) + Ed;
  ok &= dm * K4 <= v_set(0.25);
  const v2d E = v_up(Ed + dm * dm * K4);
  *dlo = dl;
  *Eo = E;
  *Fo = X0 * K2;
  return ok;
}

/* quick_step_lanes for both lanes: 1 when every check holds in both. */
QUICK_INLINE int quick_step(v2d *dlo, v2d *Eo, v2d *Fo, v2d T, const double *sh, const double *sl, const double *vh,
                            const double *vl, double Rh, fdd H2, double mR, double A, double Ea) {
  return v_all(quick_step_lanes(dlo, Eo, Fo, T, sh, sl, vh, vl, Rh, H2, mR, A, Ea));
}

/*
 * fast_certify in binary32, both roots at once: RN_32(t_j 2^k) for the root
 * t_j of lane j, given T + dl within E of it; 1 with *t1, *t2 set when
 * certain. A binary32 ulp is 2^29 binary64 ulps, so the enclosure need not
 * be tight: T.l is dropped and the bound widened to cover it.
 * Th = RN(T + dl) errs from T + dl by at most ulp(Th)/2 <= 2^-53 |Th|, so
 * |Th - t| <= E + 2^-53 |Th|. With |Th| in [2^-850, 2^850] (all below is
 * normal) and E <= 2^-40 |Th|, G = RN(E + 2^-50 |Th|) >= (E + 2^-50 |Th|)
 * (1 - u) (the product is exact), and lo = RN(Th - G) <= Th - G + u (|Th| +
 * G); lo <= t follows from G (1 - u) >= E + 2^-52 |Th|, which holds as
 * (E + 2^-50 |Th|)(1 - u)^2 >= E (1 - 2u) + 2^-50 |Th| (1 - 2u) and
 * 2^-50 (1 - 2u) - 2^-52 >= 2^-52 2^-40 + 2u 2^-40 (E <= 2^-40 |Th|).
 * Likewise hi = RN(Th + G) >= t. Both lie within a factor 1 -+ 2^-39 of
 * Th. When e = floor(log2 |Th|) + k is in [-1021, 1022], lo 2^k and hi 2^k
 * are normal doubles, so fast_scale is exact; RN_32 is monotone, so when
 * lo 2^k and hi 2^k round to the same binary32 value (the same bits: the
 * sign of zero counts), t 2^k rounds to it too: a midpoint of binary32
 * between them (a root on a midpoint or next to it) makes them differ and
 * the case go on. (double)(float)x is RN_32(x): nearest even, binary32
 * subnormals and overflow to +-Inf included (toi_round_to). When e > 1022,
 * |t 2^k| >= 2^1023 (1 - 2^-39) is far beyond the binary32 range: +-Inf;
 * when e < -1021, |t 2^k| < 2^-1020 is far below half the least binary32
 * subnormal: the zero of t's sign, which is Th's (|Th - t| < |Th|), as the
 * MPFR engine rounds it. Any failed check returns 0: the case goes on.
 */
FAST_INLINE double quick_f32(double x) { return (double)(float)x; }

FAST_INLINE int quick_round32(double *t, double Th, double G, int k) {
  const int e = fast_ilog2(fabs(Th)) + k;
  if (e > 1022 || e < -1021) {
    *t = copysign(e > 1022 ? INFINITY : 0.0, Th);
    return 1;
  }
  const double lo = quick_f32(fast_scale(Th - G, k)), hi = quick_f32(fast_scale(Th + G, k));
  if (memcmp(&lo, &hi, sizeof lo)) return 0;
  *t = lo;
  return 1;
}

QUICK_INLINE int quick_certify32(double *t1, double *t2, v2d T, v2d dl, v2d E, int k) {
  FAST_OPAQUE(T);
  FAST_OPAQUE(dl);
  const v2d Th = T + dl, ah = v_abs(Th);
  if (!v_all((ah >= v_set(0x1p-850)) & (ah <= v_set(0x1p850)) & (E <= v_set(0x1p-40) * ah))) return 0;
  const v2d G = E + ah * v_set(0x1p-50);
  if (__builtin_expect(k != 0, 0)) /* a scaled case: each root by itself */
    return quick_round32(t1, Th[0], G[0], k) && quick_round32(t2, Th[1], G[1], k);
  /* k = 0: e = floor(log2 |Th|) lies in [-850, 850], and no scaling. */
  const v2d lo = _mm_cvtps_pd(_mm_cvtpd_ps(Th - G)), hi = _mm_cvtps_pd(_mm_cvtpd_ps(Th + G));
  if (!v_all((v2l)lo == (v2l)hi)) return 0;
  *t1 = lo[0];
  *t2 = lo[1];
  return 1;
}

/*
 * Both roots from the estimates T (lane 0 the lower root, lane 1 the
 * upper), certified, into *t1 and *t2 (times 2^k); 1 on success. When the
 * first step cannot certify yet its floor, the part of the bound that does
 * not shrink with the step (F = X0 K2), leaves room (an estimate too poor
 * for one step: nearly equal roots, where the double D has lost bits), a
 * second step runs from RN(T + dl): any estimate is fine, every check is
 * made again.
 */
QUICK_INLINE int quick_roots(double *t1, double *t2, v2d T, const double *sh, const double *sl, const double *vh,
                             const double *vl, double Rh, fdd H2, double mR, double A, double Ea, int k,
                             const int f32) {
  for (int it = 0;; it++) {
    v2d dl, E, F;
    int ok = quick_step(&dl, &E, &F, T, sh, sl, vh, vl, Rh, H2, mR, A, Ea);
    if (ok && (f32 ? quick_certify32(t1, t2, T, dl, E, k)
                   : fast_certify(t1, two_sum(T[0], dl[0]), E[0], k) &&
                         fast_certify(t2, two_sum(T[1], dl[1]), E[1], k)))
      return 1;
    if (it == 1 || !v_all(F <= v_set(0x1p-66) * v_abs(T))) return 0;
    T = T + dl;
  }
}

/*
 * Scaled as fast_try scales: lengths by 2^-es, velocities by 2^-ev, so that
 * both maxima (ms, mv) lie in [1, 2) and t = T 2^(es - ev) (*k2 = es - ev).
 * The low parts sl, vl, Rl of the differences are formed first. Every
 * nonzero component, hi and lo, must stay at least 2^-480 after the scaling
 * (then the scaling was exact and the scaled data are exact: all of the top
 * of the file holds for them), else 0: the case is declined.
 */
QUICK_INLINE int quick_scale(double *sh, double *sl, double *vh, double *vl, double *Rh, double *Rl, int *k2,
                             double ms, double mv, const toi_case *cs) {
  if (ms == 0 || mv == 0) return 0;
  const int es = fast_ilog2(ms), ev = fast_ilog2(mv);
  int lost = 0;
#pragma GCC unroll 3
  for (int i = 0; i < 3; i++) {
    sl[i] = quick_low(cs->pb[i], -cs->pa[i], sh[i]);
    vl[i] = quick_low(cs->vb[i], -cs->va[i], vh[i]);
    fast_scale_keep(&sh[i], -es, &lost);
    fast_scale_keep(&sl[i], -es, &lost);
    fast_scale_keep(&vh[i], -ev, &lost);
    fast_scale_keep(&vl[i], -ev, &lost);
  }
  *Rl = quick_low(cs->ra, cs->rb, *Rh);
  fast_scale_keep(Rh, -es, &lost);
  fast_scale_keep(Rl, -es, &lost);
  if (lost) return 0;
  *k2 = es - ev;
  return 1;
}

/* The answer for c != 0 (and b != 0 when c > 0) with both roots t1 <= t2.
 * Directions as ref_set_dirs sets them, from a table rather than branches on
 * signs that a stream of cases draws at random: c < 0 forward the upper
 * root, backward the lower; c > 0, b < 0 forward the lower; c > 0, b > 0
 * backward the upper. */
QUICK_INLINE void quick_answer(toi_ref *out, toi_class cls, int sb, int sc, double t1, double t2) {
  static const signed char fwd[3] = {0, 1, -1}, rev[3] = {1, -1, 0};
  const int w = sc < 0 ? 0 : sb < 0 ? 1 : 2;
  const double pick[3] = {t2, t1, NAN}; /* by is_lo: 0 upper, 1 lower, -1 none */
  out->cls = cls;
  out->tlo = t1;
  out->thi = t2;
  out->fwd_is_lo = fwd[w];
  out->rev_is_lo = rev[w];
  out->tfwd = pick[(fwd[w] + 3) % 3];
  out->trev = pick[(rev[w] + 3) % 3];
}

/* Step 2 (the top of the file): from a, b, c and D = Dc > 0, the estimates
 * by the cancellation-free pair W = |B| + sqrt(Dc), C/W and W/A, then a
 * Newton step each (quick_roots). The low parts sl, vl, Rl are formed here
 * when the scaling did not (lows = 0). 1 when both roots are certified. */
QUICK_INLINE int quick_estimate(double *t1, double *t2, double A, double Ea, double B, double C, double Dc,
                                const double *sh, double *sl, const double *vh, double *vl, double Rh, double Rl,
                                int lows, int k2, const toi_case *cs, const int f32) {
  const double W = fabs(B) + sqrt(Dc);
  /* b <= 0: lower C/W, upper W/A; b > 0: lower -W/A, upper -C/W. One
   * division for both, and a lane swap instead of a branch on the sign. */
  const v2d q = (v2d){C, W} / (v2d){W, A};
  const v2l neg = (v2l)v_set(B > 0 ? -1.0 : 1.0) < (v2l){0, 0};
  const v2d qs = -__builtin_shufflevector(q, q, 1, 0);
  const v2d T = (v2d)((neg & (v2l)qs) | (~neg & (v2l)q));
  if (!lows) {
#pragma GCC unroll 3
    for (int i = 0; i < 3; i++) {
      sl[i] = quick_low(cs->pb[i], -cs->pa[i], sh[i]);
      vl[i] = quick_low(cs->vb[i], -cs->va[i], vh[i]);
    }
    Rl = quick_low(cs->ra, cs->rb, Rh);
  }
  const fdd H2 = two_prod(Rh, Rh, 1);
  const double mR = Rl * (2 * Rh + Rl);
  return quick_roots(t1, t2, T, sh, sl, vh, vl, Rh, H2, mR, A, Ea, k2, f32);
}

/* The stage itself; f32: the roots in binary32 (quick_certify32). */
QUICK_INLINE int quick_solve(toi_ref *out, const toi_case *cs, const int f32) {
  double sh[3], vh[3];
  /* x - x is 0 for finite x: z = 0 when every difference is finite (else
   * fast_try sorts the case out). */
  double z = 0, ms, mv = 0;
#pragma GCC unroll 3
  for (int i = 0; i < 3; i++) {
    sh[i] = cs->pb[i] - cs->pa[i];
    vh[i] = cs->vb[i] - cs->va[i];
    z += (sh[i] - sh[i]) + (vh[i] - vh[i]);
  }
  double Rh = cs->ra + cs->rb;
  if (!(z + (Rh - Rh) == 0)) return 0;
  ms = Rh;
#pragma GCC unroll 3
  for (int i = 0; i < 3; i++) {
    double as = fabs(sh[i]), av = fabs(vh[i]);
    ms = as > ms ? as : ms;
    mv = av > mv ? av : mv;
  }
  double sl[3], vl[3], Rl = 0;
  int k2 = 0, lows = 0;
  if (!(ms >= 0x1p-64 && ms <= 0x1p64 && mv >= 0x1p-64 && mv <= 0x1p64)) {
    if (!quick_scale(sh, sl, vh, vl, &Rh, &Rl, &k2, ms, mv, cs)) return 0;
    lows = 1;
  }

  /* Step 1 (bounds proved at the top of the file). */
  const double A = (vh[0] * vh[0] + vh[1] * vh[1]) + vh[2] * vh[2];
  const double b0 = sh[0] * vh[0], b1 = sh[1] * vh[1], b2 = sh[2] * vh[2];
  const double B = (b0 + b1) + b2, Mb = (fabs(b0) + fabs(b1)) + fabs(b2);
  const double SS = (sh[0] * sh[0] + sh[1] * sh[1]) + sh[2] * sh[2], RR = Rh * Rh;
  const double C = SS - RR;
  const double Ea = 0x1p-50 * A + 0x1p-1000, Eb = 0x1p-50 * Mb + 0x1p-1000;
  const double Ec = 0x1p-50 * (SS + RR) + 0x1p-1000;
  /* The signs as values, and one rarely taken branch for every undecided
   * one: in a stream of cases the signs of b and D are a coin toss, which a
   * branch per sign would mispredict. sd is only read when c > 0 (c < 0
   * gives D > 0 without looking). */
  const int sc = (C > Ec) - (C < -Ec), sb = (B > Eb) - (B < -Eb);
  const double BB = B * B, AC = A * C, Dc = BB - AC;
  const double ED = up(Eb * (2 * fabs(B) + Eb) + Ea * fabs(C) + (A + Ea) * Ec + 0x1p-53 * (BB + fabs(AC) + fabs(Dc))) +
                    0x1p-1000;
  const int sd = (Dc > ED) - (Dc < -ED);
  if ((sc == 0) | ((sc > 0) & ((sb == 0) | (sd == 0)))) return 0;
  if ((sc > 0) & (sd < 0)) {
    out->cls = sb > 0 ? TOI_SEPARATING : TOI_MISS;
    return 1;
  }
  const toi_class cls = sc < 0 ? TOI_OVERLAP : sb > 0 ? TOI_SEPARATING : TOI_HIT;
  if (!(Dc > 0)) return 0;
  double t1, t2;
  if (!quick_estimate(&t1, &t2, A, Ea, B, C, Dc, sh, sl, vh, vl, Rh, Rl, lows, k2, cs, f32)) return 0;
  quick_answer(out, cls, sb, sc, t1, t2);
  return 1;
}

QUICK_ATTR int ref_fast_quick(toi_ref *out, const toi_case *cs) { return quick_solve(out, cs, 0); }

QUICK_ATTR int ref_fast_quick32(toi_ref *out, const toi_case *cs) { return quick_solve(out, cs, 1); }

/*
 * The root's offset from a rounding R of it (ref_bench.h, ref_root_offset),
 * by one step of quick_step from T = R: the data as quick_solve takes them
 * (the differences and their low parts, the same range or the same scaling
 * by quick_scale, so every statement at the top of the file holds), a <= A +
 * Ea by step 1's bound, and Ts = R 2^-k2 (exact: fast_scale of a finite R to
 * a result that quick_step requires in [2^-300, 2^200], normal, every step
 * between R and it too, or R subnormal scaled up). The lane of the root
 * wanted (lane 0 the lower, 1 the upper: quick_step's sign check makes the
 * step aim at that root whatever T is) must pass every check; then the
 * scaled root ts = t* 2^-k2 lies within E of Ts + dl: ts - Ts, which is
 * (t* - R) 2^-k2, is in [dl - E, dl + E]. Those ends are rounded once each;
 * they are pushed outward by 2^-52 of themselves as fe_offset
 * (ref_fast_err.c) proves (|end| >= 2^-960 or end = 0, checked), and scaled
 * by 2^(k2 - eu), u = 2^eu, exactly (each end 0 or normal before and after,
 * checked): (t* - R) / u lies between them.
 */
QUICK_ATTR static int quick_offset(double *lo, double *hi, const toi_case *cs, double R, double u, int lower) {
  if (!(u >= 0x1p-1022) || !(u < INFINITY) || !isfinite(R) || (lower != 0 && lower != 1)) return 0;
  const int eu = fast_ilog2(u);
  if (u != fast_pow2(eu)) return 0;
  double sh[3], vh[3], sl[3], vl[3];
  double ms, mv = 0;
  for (int i = 0; i < 3; i++) {
    sh[i] = cs->pb[i] - cs->pa[i];
    vh[i] = cs->vb[i] - cs->va[i];
  }
  double Rh = cs->ra + cs->rb, Rl;
  ms = Rh;
  for (int i = 0; i < 3; i++) {
    double as = fabs(sh[i]), av = fabs(vh[i]);
    ms = as > ms ? as : ms;
    mv = av > mv ? av : mv;
  }
  if (!isfinite(ms) || !isfinite(mv)) return 0;
  int k2 = 0;
  if (!(ms >= 0x1p-64 && ms <= 0x1p64 && mv >= 0x1p-64 && mv <= 0x1p64)) {
    if (!quick_scale(sh, sl, vh, vl, &Rh, &Rl, &k2, ms, mv, cs)) return 0;
  } else {
    for (int i = 0; i < 3; i++) {
      sl[i] = quick_low(cs->pb[i], -cs->pa[i], sh[i]);
      vl[i] = quick_low(cs->vb[i], -cs->va[i], vh[i]);
    }
    Rl = quick_low(cs->ra, cs->rb, Rh);
  }
  const double A = (vh[0] * vh[0] + vh[1] * vh[1]) + vh[2] * vh[2];
  const double Ea = 0x1p-50 * A + 0x1p-1000;
  const fdd H2 = two_prod(Rh, Rh, 1);
  const double mR = Rl * (2 * Rh + Rl);
  const double Ts = k2 ? fast_scale(R, -k2) : R;
  v2d dl, E, F;
  v2l ok = quick_step_lanes(&dl, &E, &F, v_set(Ts), sh, sl, vh, vl, Rh, H2, mR, A, Ea);
  const int j = lower ? 0 : 1;
  if (!ok[j]) return 0;
  double a = dl[j] - E[j], b = dl[j] + E[j];
  if (!(a == 0 || (fabs(a) >= 0x1p-960 && fabs(a) <= 0x1p1000))) return 0;
  if (!(b == 0 || (fabs(b) >= 0x1p-960 && fabs(b) <= 0x1p1000))) return 0;
  a -= fabs(a) * 0x1p-52;
  b += fabs(b) * 0x1p-52;
  const int ks = k2 - eu;
  if (a != 0) {
    int e = fast_ilog2(fabs(a)) + ks;
    if (e < -1000 || e > 1000) return 0;
    a = fast_scale(a, ks);
  }
  if (b != 0) {
    int e = fast_ilog2(fabs(b)) + ks;
    if (e < -1000 || e > 1000) return 0;
    b = fast_scale(b, ks);
  }
  *lo = a;
  *hi = b;
  return 1;
}

int ref_root_offset(double *lo, double *hi, const toi_case *c, double R, double u, int lower) {
  return ref_fast_fma() && quick_offset(lo, hi, c, R, u, lower);
}

#else

int ref_fast_quick(toi_ref *out, const toi_case *cs) {
  (void)out;
  (void)cs;
  return 0;
}

int ref_fast_quick32(toi_ref *out, const toi_case *cs) {
  (void)out;
  (void)cs;
  return 0;
}

int ref_root_offset(double *lo, double *hi, const toi_case *c, double R, double u, int lower) {
  (void)lo, (void)hi, (void)c, (void)R, (void)u, (void)lower;
  return 0;
}

#endif
