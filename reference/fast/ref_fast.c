/* ref_fast.c: the fast engine: filtered exact signs, double-double roots with a proven error bound, MPFR fallback. */
#include <math.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "ref_common.h"
#include "ref_fast_api.h"
#include "ref_fast_kernels.h"
#include "ref_fast_state.h"
#include "ref_mpfr.h"
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/*
 * What this engine must give: exactly what ref_solve_mpfr gives (class,
 * RN of both roots, directions), bit for bit, many times faster. It proves
 * each answer in double arithmetic or hands the case to ref_solve_mpfr; it
 * never guesses.
 *
 * Plan (u = 2^-53; an "error" is an absolute bound on the distance to the
 * exact real, proved in the comment beside the code that computes it):
 *  0. Without a target distance, in the FMA build, a first stage
 *     (ref_fast_quick.c) tries the case in plain double with rigorous
 *     filters and a Newton step per root; what it declines comes here
 *     unchanged. The steps below are fast_try's.
 *  1. s = pB - pA, v = vB - vA and R = rA + rB (+ delta, when the sum fits
 *     in two doubles) exactly as double-doubles (TwoSum); an infinite or NaN
 *     difference sends the case back to ref_check_case and, when valid, to
 *     MPFR. When the largest length or the largest
 *     velocity component lies outside [2^-64, 2^64], both groups are scaled
 *     by powers of two so that it lies in [1, 2) (t then scales by
 *     2^(es - ev)). So every quantity below stays far from overflow, and
 *     underflow can only touch tiny low-order terms. In the FMA build on
 *     x86-64 (GCC), a case without a target that needs no scaling runs
 *     steps 1 and 2 in four vector lanes (fast_front_vec), the same sums and
 *     products, a, b and c side by side.
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
 *     otherwise (D = 0 exactly: exactly tangent paths) its sign is found in
 *     integer arithmetic when the data fit (fast_int_D_sign), and D is formed
 *     exactly as an expansion from the exact expansions of a, b and c when
 *     they do not or when D > 0 (step 4 needs its value).
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
 *
 * The double-double kit (TwoSum, TwoProd, the divisions and square root with
 * their bounds, the final rounding fast_certify) lives in ref_fdd.h,
 * shared with the fast paths of toi_ref_error and toi_ref_kappa
 * (ref_fast_err.c), which reuse the state this engine proves (ref_fast_prepare).
 */

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
/* Appends the nonzero parts of p to t[0..k-1] (fast_xsum would skip the
 * zeros): exact data often have zero low parts, whose products are zero. */
#define FAST_PUT(p) (t[k] = (p).h, k += t[k] != 0, t[k] = (p).l, k += t[k] != 0)

FAST_INLINE int fast_xdot(double *e, const fdd *x, const fdd *y, int n, const int sq, const int fm) {
  double t[32];
  int k = 0;
  for (int i = 0; i < n; i++) {
    fdd p = two_prod(x[i].h, y[i].h, fm);
    FAST_PUT(p);
    if (x[i].l == 0 && y[i].l == 0) continue;
    if (sq) {
      p = two_prod(2 * x[i].h, y[i].l, fm);
      FAST_PUT(p);
    } else {
      p = two_prod(x[i].h, y[i].l, fm);
      FAST_PUT(p);
      p = two_prod(x[i].l, y[i].h, fm);
      FAST_PUT(p);
    }
    p = two_prod(x[i].l, y[i].l, fm);
    FAST_PUT(p);
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
#ifdef __SSE2__
  /* Both parts of a double-double at once, without a branch: the same test
   * (cmpneq and cmpnge are true for a NaN, as != and !(>=) are). */
  const __m128d sign = _mm_set1_pd(-0.0), floor = _mm_set1_pd(0x1p-480), zero = _mm_setzero_pd();
  __m128d bad = zero;
  for (int i = 0; i < n; i++) {
    __m128d y = _mm_loadu_pd(&x[i].h);
    bad = _mm_or_pd(bad, _mm_and_pd(_mm_cmpneq_pd(y, zero), _mm_cmpnge_pd(_mm_andnot_pd(sign, y), floor)));
  }
  return _mm_movemask_pd(bad) == 0;
#else
  int bad = 0;
  for (int i = 0; i < n; i++) {
    bad |= x[i].h != 0 && !(fabs(x[i].h) >= 0x1p-480);
    bad |= x[i].l != 0 && !(fabs(x[i].l) >= 0x1p-480);
  }
  return !bad;
#endif
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
    FAST_PUT(p);
    for (int j = i + 1; j < x->mb; j++) {
      p = two_prod(2 * x->b[i], x->b[j], fm);
      FAST_PUT(p);
    }
  }
  for (int i = 0; i < x->ma; i++)
    for (int j = 0; j < x->mc; j++) {
      fdd p = two_prod(x->a[i], -x->c[j], fm);
      FAST_PUT(p);
    }
  return fast_xsum(e, t, k);
#undef FAST_PUT
}

/*
 * The sign of D = b^2 - a c (-1, 0, 1) in integer arithmetic, or 2 when the
 * data do not fit (the caller then forms D's expansion). The lengths
 * (s[0..n-1], R = s[n]) and the velocities (v[0..n-1]) are the exact data,
 * hi and lo parts. Within each group let lo be the smallest exponent of a
 * last nonzero bit and hi the largest floor(log2 |x|) over the nonzero
 * parts. When hi - lo <= 60 in both groups, every part x is an integer
 * times 2^lo below 2^61 in magnitude, and x 2^-lo is that integer exactly
 * (2^-lo is a normal power of two, checked) and converts exactly to int64;
 * so each component is S_i 2^ls (V_i 2^lv, Rr 2^ls), |S_i| < 2^62 the sum
 * of its two parts. Then a = A 2^(2 lv), b = B 2^(ls + lv), c = C 2^(2 ls)
 * with A = sum V_i^2, B = sum S_i V_i, C = sum S_i^2 - Rr^2: at most four
 * products below 2^124 in magnitude each, so every partial sum is below
 * 2^126, exact in signed 128-bit integers. D = (B^2 - A C) 2^(2 ls + 2 lv),
 * and B^2 and A C, below 2^252, are compared as exact 256-bit products. The
 * caller is where c > 0, so C > 0 and A > 0 (checked for C): both products
 * are nonnegative.
 */
#ifdef __SIZEOF_INT128__
typedef unsigned __int128 fast_u128;

/* For x != 0: the exponent of its last nonzero bit; *top = floor(log2 |x|). */
static inline int fast_bits(double x, int *top) {
  uint64_t b;
  memcpy(&b, &x, sizeof b);
  int ex = (int)((b >> 52) & 0x7ff);
  uint64_t m = b & ((UINT64_C(1) << 52) - 1);
  int e0 = -1074; /* subnormal: m 2^-1074 */
  if (ex) {
    m |= UINT64_C(1) << 52;
    e0 = ex - 1075;
  }
  *top = e0 + 63 - __builtin_clzll(m);
  return e0 + __builtin_ctzll(m);
}

/* lo and hi (above) over the nonzero parts of x[0..n-1]; 0 when all are zero. */
static inline int fast_span(const fdd *x, int n, int *lo) {
  int l = INT32_MAX, h = INT32_MIN;
  for (int i = 0; i < n; i++) {
    const double p[2] = {x[i].h, x[i].l};
    for (int j = 0; j < 2; j++) {
      if (p[j] == 0) continue;
      int t, b = fast_bits(p[j], &t);
      l = b < l ? b : l;
      h = t > h ? t : h;
    }
  }
  *lo = l;
  return h != INT32_MIN && h - l <= 60;
}

/* x 2^-lo as an integer (exact, see fast_int_D_sign). */
static inline int64_t fast_int(fdd x, int lo) {
  const double f = fast_pow2(-lo);
  return (int64_t)(x.h * f) + (int64_t)(x.l * f);
}

/* x y for x, y < 2^126: *hi 2^128 + *lo, exactly. */
static inline void fast_mul128(fast_u128 x, fast_u128 y, fast_u128 *hi, fast_u128 *lo) {
  const uint64_t x0 = (uint64_t)x, x1 = (uint64_t)(x >> 64), y0 = (uint64_t)y, y1 = (uint64_t)(y >> 64);
  const fast_u128 p00 = (fast_u128)x0 * y0, p01 = (fast_u128)x0 * y1, p10 = (fast_u128)x1 * y0;
  const fast_u128 mid = (p00 >> 64) + (uint64_t)p01 + (uint64_t)p10; /* < 3 2^64 */
  *lo = mid << 64 | (uint64_t)p00;
  *hi = (fast_u128)x1 * y1 + (p01 >> 64) + (p10 >> 64) + (mid >> 64);
}

static int fast_int_D_sign(const fdd *s, const fdd *v, int n) {
  int ls, lv;
  /* 2^-lo must be a normal power of two: lo in [-1022, 1023] (lo >= -1074
   * always; the exact data here are at least 2^-480). */
  if (!fast_span(s, n + 1, &ls) || !fast_span(v, n, &lv) || ls < -1022 || lv < -1022) return 2;
  __int128 A = 0, B = 0, C = 0;
  for (int i = 0; i < n; i++) {
    const __int128 S = fast_int(s[i], ls), V = fast_int(v[i], lv);
    A += V * V;
    B += S * V;
    C += S * S;
  }
  const __int128 Rr = fast_int(s[n], ls);
  C -= Rr * Rr;
  if (!(C > 0)) return 2;
  const fast_u128 aB = (fast_u128)(B < 0 ? -B : B);
  fast_u128 bh, bl, ch, cl;
  fast_mul128(aB, aB, &bh, &bl);
  fast_mul128((fast_u128)A, (fast_u128)C, &ch, &cl);
  if (bh != ch) return bh > ch ? 1 : -1;
  return (bl > cl) - (bl < cl);
}
#else
static int fast_int_D_sign(const fdd *s, const fdd *v, int n) {
  (void)s, (void)v, (void)n;
  return 2;
}
#endif

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

/* ---- steps 1 and 2 in four lanes (the FMA build on x86-64) ---- */

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define FAST_VEC 1
typedef double fv4 __attribute__((vector_size(32)));
typedef long long fv4l __attribute__((vector_size(32)));

/* Only ever reached in the FMA build, whose functions have AVX and FMA
 * (target("fma") implies AVX): the code below is dead in the others. The
 * vectors go by pointer, never by value, so that no 32-byte vector crosses
 * a function boundary of a build without AVX. */

/* two_sum lane by lane, its operands opaque as in two_sum. */
FAST_INLINE void fv_two_sum(fv4 *s, fv4 *l, const fv4 *pa, const fv4 *pb) {
  fv4 a = *pa, b = *pb;
  __asm__("" : "+x"(a));
  __asm__("" : "+x"(b));
  fv4 x = a + b, bb = x - a, aa = x - bb;
  *s = x;
  *l = (a - aa) + (b - bb);
}

/* two_prod with an FMA lane by lane: h = RN(a b), l = RN(a b - h). GCC has
 * no generic vector FMA outside functions compiled for it, so the FMA is
 * written out (e = a b - e); being an asm, it is also opaque. */
FAST_INLINE void fv_two_prod(fv4 *h, fv4 *l, const fv4 *pa, const fv4 *pb) {
  fv4 a = *pa, b = *pb, p = a * b, e = p;
  __asm__("vfmsub231pd {%2, %1, %0|%0, %1, %2}" : "+x"(e) : "x"(a), "x"(b));
  *h = p;
  *l = e;
}

/* |x| lane by lane. */
#define FV_ABS(x) ((fv4)((fv4l)(x) & (fv4l){INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX}))

/* The sign bits of the four lanes of a comparison's result, as a number. */
FAST_INLINE int fv_mask(const fv4l *m) {
  int r;
  __asm__("vmovmskpd {%1, %0|%0, %1}" : "=r"(r) : "x"(*m));
  return r;
}

_Static_assert(offsetof(toi_case, va) == offsetof(toi_case, pa) + 3 * sizeof(double) &&
                   offsetof(toi_case, ra) == offsetof(toi_case, va) + 3 * sizeof(double) &&
                   offsetof(toi_case, vb) == offsetof(toi_case, pb) + 3 * sizeof(double) &&
                   offsetof(toi_case, rb) == offsetof(toi_case, vb) + 3 * sizeof(double),
               "fast_front_vec loads the fields of a ball four at a time");

/* Rows r[0..2] and a row of zeros, transposed: c[j] = {r[0][j], r[1][j], r[2][j], 0}. */
FAST_INLINE void fv_transpose3(fv4 *c, const fv4 *r) {
  const fv4 z = {0, 0, 0, 0};
  fv4 t0 = __builtin_shufflevector(r[0], r[1], 0, 4, 2, 6), t1 = __builtin_shufflevector(r[0], r[1], 1, 5, 3, 7);
  fv4 t2 = __builtin_shufflevector(r[2], z, 0, 4, 2, 6), t3 = __builtin_shufflevector(r[2], z, 1, 5, 3, 7);
  c[0] = __builtin_shufflevector(t0, t2, 0, 1, 4, 5);
  c[1] = __builtin_shufflevector(t1, t3, 0, 1, 4, 5);
  c[2] = __builtin_shufflevector(t0, t2, 2, 3, 6, 7);
  c[3] = __builtin_shufflevector(t1, t3, 2, 3, 6, 7);
}

/*
 * Steps 1 and 2 of fast_try for a case without a target distance whose
 * data need no scaling, the three dot products side by side. Returns 1 with
 * s, sr, v (v[3] = 0), a, b, c and their magnitudes M filled; 0 when the
 * case needs what only the scalar code does (a non-finite difference, a
 * scaling), which then starts again from the case.
 *
 * Step 1: lanes 0..2 are the components, lane 3 the radii, so one TwoSum
 * gives s and R = rA + rB, another v (lane 3: 0 + -0 = 0), exactly as
 * fast_try's scalar TwoSums.
 *
 * Step 2: lane j holds the terms j of the three dot products a = v.v,
 * b = s.v (lane 3: R 0 = 0) and c = s.sr (sr = s with -R in lane 3): the
 * TwoProds P + p of the hi parts, the cross terms k (x.h y.l + x.l y.h; for
 * a square 2 RN(x.h y.l), the same value) and e = RN(p + k). Transposed,
 * lane q (a, b, c, unused) then carries dd_dot's sum of the four terms of
 * its dot product: the P_j by a TwoSum chain (S + the chain's q_j exactly),
 * T = (T + q_j) + e_j, M = sum |P_j| in dd_dot's order, and TwoSum(S, T).
 * This is dd_dot with n = 4 (a zero term changes no sum and no bound) but
 * for the order in which the small terms p_j, k_j, q_j meet in T: the bound
 * of dd_dot does not depend on it (a sum of m terms by m - 1 additions, in
 * any tree, errs by at most gamma_(m-1) times the sum of their magnitudes,
 * Higham 4.2). So |A - a| <= 2^-99 Ma + 2^-1000 and likewise for b and c,
 * as fast_try uses them.
 */
FAST_INLINE int fast_front_vec(fdd *s, fdd *sr, fdd *v, fdd *abc, double *mag, const toi_case *cs) {
  /* The fields as laid out in toi_case: pa, va, ra and pb, vb, rb follow
   * each other, so four loads of four doubles hold them all. */
  const char *base = (const char *)cs;
  fv4 la, lva, lb, lvb;
  memcpy(&la, base + offsetof(toi_case, pa), sizeof la);   /* pa0 pa1 pa2 va0 */
  memcpy(&lva, base + offsetof(toi_case, va), sizeof lva); /* va0 va1 va2 ra */
  memcpy(&lb, base + offsetof(toi_case, pb), sizeof lb);   /* pb0 pb1 pb2 vb0 */
  memcpy(&lvb, base + offsetof(toi_case, vb), sizeof lvb); /* vb0 vb1 vb2 rb */
  const fv4 zero = {0, 0, 0, 0};
  const fv4l neg012 = {INT64_MIN, INT64_MIN, INT64_MIN, 0}; /* flips the sign of lanes 0..2 */
  const fv4 x = __builtin_shufflevector(lb, lva, 0, 1, 2, 7);                     /* pb, ra */
  const fv4 y = (fv4)((fv4l)__builtin_shufflevector(la, lvb, 0, 1, 2, 7) ^ neg012); /* -pa, rb */
  const fv4 xv = __builtin_shufflevector(lvb, zero, 0, 1, 2, 4);                  /* vb, 0 */
  const fv4 yv = (fv4)((fv4l)__builtin_shufflevector(lva, zero, 0, 1, 2, 4) ^ neg012); /* -va, 0 */
  fv4 Sh, Sl, Vh, Vl;
  fv_two_sum(&Sh, &Sl, &x, &y);
  fv_two_sum(&Vh, &Vl, &xv, &yv);
  /* fast_try's unscaled range: every difference finite and both maxima in
   * [2^-64, 2^64]. That is: every |s_i|, R, |v_i| at most 2^64 (false for
   * an infinity or a NaN) and some |s_i| or R, and some |v_i|, at least
   * 2^-64. */
  const fv4 as = FV_ABS(Sh), av = FV_ABS(Vh);
  const fv4l le = (as <= 0x1p64) & (av <= 0x1p64), ges = as >= 0x1p-64, gev = av >= 0x1p-64;
  if (fv_mask(&le) != 15 || !fv_mask(&ges) || !fv_mask(&gev)) return 0;
  const fv4 neg3 = {1, 1, 1, -1};
  const fv4 Srh = Sh * neg3, Srl = Sl * neg3; /* exact */
  {
    fv4 lo = __builtin_shufflevector(Sh, Sl, 0, 4, 1, 5), hi = __builtin_shufflevector(Sh, Sl, 2, 6, 3, 7);
    memcpy(s, &lo, sizeof lo);
    memcpy(s + 2, &hi, sizeof hi);
    memcpy(sr, &lo, sizeof lo);
    hi = __builtin_shufflevector(Srh, Srl, 2, 6, 3, 7);
    memcpy(sr + 2, &hi, sizeof hi);
    lo = __builtin_shufflevector(Vh, Vl, 0, 4, 1, 5), hi = __builtin_shufflevector(Vh, Vl, 2, 6, 3, 7);
    memcpy(v, &lo, sizeof lo);
    memcpy(v + 2, &hi, sizeof hi);
  }
  fv4 P[3], p[3], e[3];
  fv_two_prod(&P[0], &p[0], &Vh, &Vh);
  fv_two_prod(&P[1], &p[1], &Sh, &Vh);
  fv_two_prod(&P[2], &p[2], &Sh, &Srh);
  e[0] = p[0] + 2 * (Vh * Vl);
  e[1] = p[1] + (Sh * Vl + Sl * Vh);
  e[2] = p[2] + 2 * (Sh * Srl);
  fv4 H[4], E[4];
  fv_transpose3(H, P);
  fv_transpose3(E, e);
  fv4 S = H[0], T = E[0], M = FV_ABS(H[0]);
#pragma GCC unroll 3
  for (int j = 1; j < 4; j++) {
    fv4 q;
    fv_two_sum(&S, &q, &S, &H[j]);
    T = (T + q) + E[j];
    M += FV_ABS(H[j]);
  }
  fv4 rh, rl;
  fv_two_sum(&rh, &rl, &S, &T);
  for (int q = 0; q < 3; q++) {
    abc[q].h = rh[q];
    abc[q].l = rl[q];
    mag[q] = M[q];
  }
  return 1;
}
#else
#define FAST_VEC 0
#endif

/* Directions from the exact signs of b and c, as ref_roots.c sets them. */
FAST_INLINE void fast_dirs(toi_ref *out, int sb, int sc) { ref_set_dirs(out, sb, sc); }

enum { FAST_OK = 0, FAST_NEG_R, FAST_NOT_FINITE, FAST_FB_RANGE, FAST_FB_SIGN, FAST_FB_ROUND };

static inline int sgn(double x) { return (x > 0) - (x < 0); }

/* fast_certify of two roots at once: the usual case of fast_certify for
 * both, with one branch, when k = 0; there |T.h| in [2^-850, 2^850] puts
 * the exponent inside [-1021, 1022] and fast_scale(h1, 0) = h1. Anything
 * else goes through fast_certify, root by root. */
FAST_INLINE int fast_certify2(double *t1, double *t2, fdd T1, double E1, fdd T2, double E2, int k) {
  const double a1 = fabs(T1.h), a2 = fabs(T2.h);
  const double F1 = (E1 + a1 * 0x1p-104) * (1 + 0x1p-50), F2 = (E2 + a2 * 0x1p-104) * (1 + 0x1p-50);
  const double x1 = T1.h + (T1.l - F1), y1 = T1.h + (T1.l + F1);
  const double x2 = T2.h + (T2.l - F2), y2 = T2.h + (T2.l + F2);
  int ok = k == 0;
  ok &= (a1 >= 0x1p-850) & (a1 <= 0x1p850) & (E1 <= 0x1p-60 * a1) & (x1 == y1);
  ok &= (a2 >= 0x1p-850) & (a2 <= 0x1p850) & (E2 <= 0x1p-60 * a2) & (x2 == y2);
  if (ok) {
    *t1 = x1;
    *t2 = x2;
    return 1;
  }
  return fast_certify(t1, T1, E1, k) && fast_certify(t2, T2, E2, k);
}

/* The double root -b/a (D = 0, b != 0), or the nonzero root -2b/a of a
 * touching pair (c = 0): mul = 1 or 2 (an exact scaling of the root and of
 * its bound). The bound is fast_quot_err's with ia = RN(1 / A.h) >= (1 - u)
 * / A.h for the divisions: its rx |X/Y| is Eb / |A| <= Eb ia (1 + 2.1u),
 * its ry = Ea / |A| <= Ea ia (1 + 2.1u), factors its 1.001 covers. */
FAST_INLINE int fast_root_ba(double *t, fdd *Tq, double *Eq, fdd A, double Ea, double ia, fdd B, double Eb,
                             double mul, int k, const int fm) {
  if (!(fabs(B.h) >= 0x1p-800)) return FAST_FB_RANGE;
  fdd T = dd_div(B, A, ia, fm);
  double E = (fabs(T.h) * (0x1p-100 + 1.001 * (Ea * ia)) + 1.001 * (Eb * ia)) * mul;
  T.h *= -mul, T.l *= -mul; /* exact */
  *Tq = T;
  *Eq = E;
  return fast_certify(t, T, E, k) ? FAST_OK : FAST_FB_ROUND;
}

/* Keeps what the fast paths of toi_ref_error and toi_ref_kappa need (fs is
 * NULL, and all of it compiled away, in the builds that only solve). */
FAST_INLINE void fast_keep(ref_fast_state *fs, const toi_ref *out, const fdd *s, const fdd *v, int es, int ev,
                           int exact_data, int sb, int sc, fdd A, double Ea) {
  fs->r = *out;
  for (int i = 0; i < 4; i++) fs->s[i] = s[i];
  for (int i = 0; i < 3; i++) fs->v[i] = v[i];
  fs->es = es, fs->ev = ev, fs->k2 = es - ev;
  fs->exact_data = exact_data;
  fs->sb = sb, fs->sc = sc;
  fs->A = A, fs->Ea = Ea;
  fs->roots = 0;
  fs->graze = 0;
}

FAST_INLINE void fast_keep_root(ref_fast_state *fs, int j, fdd T, double E) {
  fs->t[j] = T;
  fs->Et[j] = E;
}

/* Every nonzero component of the data at least 2^-480 and none lost by the
 * scaling: the data are then exact, which the exact stages and every product
 * of the Dekker build need (fast_floor_ok). Pure in its arguments, so it is
 * evaluated only where a stage needs it, off the usual path. */
FAST_INLINE int fast_exact_ok(int lost, const fdd *s, const fdd *v, const int n) {
  return !lost && fast_floor_ok(s, n + 1) && fast_floor_ok(v, n);
}

/* fast_keep with the exactness of the data evaluated here (only when fs is
 * kept: never on the solving path). */
FAST_INLINE void fast_keep_at(ref_fast_state *fs, const toi_ref *out, const fdd *s, const fdd *v, int es, int ev,
                              int lost, const int n, int sb, int sc, fdd A, double Ea) {
  fast_keep(fs, out, s, v, es, ev, fast_exact_ok(lost, s, v, n), sb, sc, A, Ea);
}

/*
 * Steps 1 and 2 of fast_try in scalar code: s, sr (s with -R last), v, then
 * abc = a, b, c with the magnitudes mag of their leading products, and the
 * scales es, ev (lost as fast_scale_keep sets it). FAST_OK, or why the case
 * leaves the double-double stage.
 */
FAST_INLINE int fast_front(fdd *s, fdd *sr, fdd *v, fdd *abc, double *mag, int *es, int *ev, int *lost,
                           const toi_case *cs, const double *delta, const int n, const int fm) {
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
  if (!(ms >= 0x1p-64 && ms <= 0x1p64 && mv >= 0x1p-64 && mv <= 0x1p64)) {
    *es = fast_ilog2(ms);
    *ev = fast_ilog2(mv);
    /* lost: a nonzero component fell below 2^-480 (maybe to zero): the
     * scaled data may then differ from the exact data, which only the
     * floating-point stages tolerate (see step 2). */
#pragma GCC unroll 3
    for (int i = 0; i < n; i++) {
      fast_scale_keep(&s[i].h, -*es, lost);
      fast_scale_keep(&s[i].l, -*es, lost);
      fast_scale_keep(&v[i].h, -*ev, lost);
      fast_scale_keep(&v[i].l, -*ev, lost);
    }
    fast_scale_keep(&R.h, -*es, lost);
    fast_scale_keep(&R.l, -*es, lost);
  }
#pragma GCC unroll 3
  for (int i = 0; i < n; i++) sr[i] = s[i];
  s[n] = R;
  sr[n] = dd_neg(R);
  /* The exact stages, and every product of the Dekker build, need the exact
   * data with every nonzero component at least 2^-480. */
  if (!fm && !fast_exact_ok(*lost, s, v, n)) return FAST_FB_RANGE;

  /* Step 2: a, b, c with errors 2^-99 M + 2^-1000 (dd_dot). A scaled
   * component that underflowed moved by at most 2^-1074 (two roundings when
   * scaled in two steps), which moves a, b, c by less than 2^-1067: inside
   * the 2^-1000. a > 0 since v != 0. */
  abc[0] = dd_dot(v, v, n, &mag[0], fm);
  abc[1] = dd_dot(s, v, n, &mag[1], fm);
  abc[2] = dd_dot(s, sr, n + 1, &mag[2], fm);
  return FAST_OK;
}

/*
 * Step 2's signs: of c always, of b when the class needs it (c >= 0). When
 * cancellation cost c 64 bits (near contact; the roots need it to better than
 * 2^-60) or its sign is in doubt: c to about 2^-145 M (fast_c3), and exactly
 * if that still cannot tell its sign; b exactly when its filter cannot tell.
 * *exact is set when c or b needed more than the double-double filter.
 * FAST_OK, or why the case goes to MPFR.
 */
FAST_INLINE int fast_signs(fdd *B, double *Eb, int *sb, fdd *C, double *Ec, int *sc, int *exact, fast_x *X,
                           const fdd *s, const fdd *sr, const fdd *v, int lost, const int n, const int fm) {
  if (fabs(C->h) > 0x1p64 * *Ec) {
    *sc = sgn(C->h);
  } else {
    *exact = 1;
    *C = FAST_RARE(fast_c3, fm)(s, sr, n + 1, Ec);
    if (fabs(C->h) > 2 * *Ec) {
      *sc = sgn(C->h);
    } else {
      if (!fast_exact_ok(lost, s, v, n)) return FAST_FB_RANGE;
      X->mc = FAST_RARE(fast_xdot, fm)(X->c, s, sr, n + 1, 1);
      *C = fast_xdd(X->c, X->mc, Ec, sc);
      if (*sc == 2) return FAST_FB_SIGN;
    }
  }
  if (fabs(B->h) > 2 * *Eb) *sb = sgn(B->h);
  if (*sb == 2 && *sc >= 0) {
    if (!fast_exact_ok(lost, s, v, n)) return FAST_FB_RANGE;
    *exact = 1;
    X->mb = FAST_RARE(fast_xdot, fm)(X->b, s, v, n, 0);
    *B = fast_xdd(X->b, X->mb, Eb, sb);
    if (*sb == 2) return FAST_FB_SIGN;
  }
  return FAST_OK;
}

/* c = 0, touching now: D = b^2, the roots are 0 (exactly: +0, as the exact
 * path writes it) and -2b/a. */
FAST_INLINE int fast_touching(toi_ref *out, ref_fast_state *fs, fdd A, double Ea, double ia, fdd B, double Eb, int sb,
                              int k2, const fdd *s, const fdd *v, int es, int ev, int lost, const int n, const int fm) {
  out->cls = sb < 0 ? TOI_CONTACT : TOI_SEPARATING;
  double t = 0, Et = 0;
  fdd Tq = {0, 0};
  if (sb != 0) {
    int why = fast_root_ba(&t, &Tq, &Et, A, Ea, ia, B, Eb, 2, k2, fm);
    if (why) return why;
  }
  out->tlo = sb < 0 ? 0.0 : t;
  out->thi = sb < 0 ? t : 0.0;
  fast_dirs(out, sb, 0);
  if (fs) {
    /* The root 0 is exact: an enclosure of width 0. */
    const fdd zero = {0, 0};
    fast_keep_at(fs, out, s, v, es, ev, lost, n, sb, 0, A, Ea);
    fast_keep_root(fs, sb < 0 ? 0 : 1, zero, 0);
    fast_keep_root(fs, sb < 0 ? 1 : 0, Tq, Et);
    fs->roots = 1;
  }
  return FAST_OK;
}

/*
 * Step 3: D = b^2 - a c and its sign *sd. dd_dot errs by <= 2^-99 M_D +
 * 2^-1000 on the rounded inputs (B.h, C.h below 2^133, A.h below 2^133);
 * their own errors add |b^2 - B^2| <= Eb (2|B| + Eb) and |ac - AC| <= Ea |C| +
 * (|A| + Ea) Ec. In the Dekker build B.h and C.h must clear the floor for its
 * TwoProds. FAST_OK, or why the case goes to MPFR.
 */
FAST_INLINE int fast_disc(fdd *D, double *ED, int *sd, fdd A, double Ea, fdd B, double Eb, fdd C, double Ec, int sc,
                          int exact, toi_ref_fast_stats *st, fast_x *X, const fdd *s, const fdd *sr, const fdd *v,
                          int lost, const int n, const int fm) {
  if (!fm && ((B.h != 0 && !(fabs(B.h) >= 0x1p-480)) || (C.h != 0 && !(fabs(C.h) >= 0x1p-480))))
    return FAST_FB_RANGE;
  const double Aa = A.h * (1 + 0x1p-52), Ba = fabs(B.h) * (1 + 0x1p-52), Ca = fabs(C.h) * (1 + 0x1p-52);
  fdd dx[2] = {B, A}, dy[2] = {B, dd_neg(C)};
  double Md;
  *D = dd_dot(dx, dy, 2, &Md, fm);
  *ED = up(0x1p-99 * Md + Eb * (2 * Ba + Eb) + Ea * Ca + (Aa + Ea) * Ec) + 0x1p-1000;
  if (sc < 0) {
    *sd = 1; /* c < 0 < a: D >= -ac > 0 */
  } else if (fabs(D->h) > 2 * *ED) {
    *sd = sgn(D->h);
  } else {
    /* D within its bound of 0 (exactly tangent paths): D's sign exactly,
     * first in integers (fast_int_D_sign: enough unless D > 0, where step 4
     * needs D's value too), else from D's expansion. */
    if (!fast_exact_ok(lost, s, v, n)) return FAST_FB_RANGE;
    st->exact += (unsigned)!exact;
    *sd = fast_int_D_sign(s, v, n);
    if (*sd > 0) {
      double e[96];
      int m = FAST_RARE(fast_exact_D, fm)(e, X, s, sr, v, n);
      if (!m) return FAST_FB_SIGN;
      *D = fast_xdd(e, m, ED, sd);
      if (*sd == 2) return FAST_FB_SIGN;
    }
  }
  return FAST_OK;
}

/* D = 0: a double root -b/a (c > 0 here, so b != 0). */
FAST_INLINE int fast_graze(toi_ref *out, ref_fast_state *fs, fdd A, double Ea, double ia, fdd B, double Eb, int sb,
                           int sc, int k2, const fdd *s, const fdd *v, int es, int ev, int lost, const int n,
                           const int fm) {
  double t, Et;
  fdd Tq;
  int why = fast_root_ba(&t, &Tq, &Et, A, Ea, ia, B, Eb, 1, k2, fm);
  if (why) return why;
  out->tlo = out->thi = t;
  fast_dirs(out, sb, sc);
  if (fs) {
    fast_keep_at(fs, out, s, v, es, ev, lost, n, sb, sc, A, Ea);
    fast_keep_root(fs, 0, Tq, Et);
    fast_keep_root(fs, 1, Tq, Et);
    fs->roots = 1;
    fs->graze = 1;
  }
  return FAST_OK;
}

/*
 * Step 4: the roots. W = |B| + sqrt(D) pairs with W* = -sigma b + sqrt D,
 * sigma the sign of B.h (the formula stays exact whatever the true sign
 * of b); |W - W*| <= Eb + |sqrt D - sqrt D~| + 2^-101 W.h, and
 * |sqrt D - sqrt D~| <= ED / sqrt(D~) <= ED / h (1 + 2.1u). b <= 0:
 * lower = c/W, upper = W/a; b > 0: lower = -W/a, upper = -c/W.
 */
FAST_INLINE int fast_roots(toi_ref *out, ref_fast_state *fs, fdd A, double Ea, double ia, fdd B, double Eb, int sb,
                           fdd C, double Ec, int sc, fdd D, double ED, int k2, const fdd *s, const fdd *v, int es,
                           int ev, int lost, const int n, const int fm) {
  if (!(D.h >= 0x1p-800 && D.h <= 0x1p800 && fabs(C.h) >= 0x1p-800)) return FAST_FB_RANGE;
  const int bneg = B.h <= 0;
  double h, w0;
  fdd W = dd_add_sqrt(bneg ? dd_neg(B) : B, D, &h, &w0, fm);
  double iw = 1 / w0;
  fdd Q1 = dd_div(C, W, iw, fm), Q2 = dd_div(W, A, ia, fm);
  /*
   * The bounds, with multiplications by the reciprocals at hand instead of
   * divisions. rw >= EW / W.h, EW = Eb + ED / h (1 + 2.1u) + 2^-101 W.h the
   * bound on |W - W*| above: iw = RN(1 / w0) >= (1 - u) / w0 and W.h >=
   * (1 - 3.57u) w0 (dd_add_sqrt) give 1 / W.h <= (1 + 4.6u) iw; with
   * gh = RN(h RN(0.5 / D.h)), the product dd_add_sqrt forms (the compiler
   * shares it), |2 h gh - 1| <= 4.01u (proved there), so 1 / h <=
   * 2 gh / (1 - 4.01u) and ED (1 + 2.1u) / (h W.h) <= 2 gh ED iw
   * (1 + 10.8u). That factor and the four roundings of rw are far inside
   * up()'s 1 + 2^-40.
   * fast_quot_err's rx |X/Y| is EX / |Y|: for Q1 = C / W that is
   * Ec / |W| <= Ec iw (1 + 5.7u), so E1 = |Q1.h| (2^-98 + 1.001 rw) +
   * 1.001 Ec iw is fast_quot_err's bound (its 1.001 covers the 1 + 5.7u).
   * For Q2 = W / A, ra = RN(Ea ia) >= (1 - 2.2u) Ea / A.h (ia = RN(1 /
   * A.h)), a factor fast_quot_err's 1.001 covers likewise. Where the
   * bounds are small (ED <= 2^-96 h^2, Eb <= 2^-96 W.h, Ec <= 2^-93 |C.h|,
   * Ea <= 2^-93 A.h) they stay below 2^-92 |Q.h|.
   */
  const double gh = h * (0.5 / D.h);
  const double rw = up((Eb + 2 * gh * ED) * iw + 0x1p-101);
  const double E1 = fabs(Q1.h) * (0x1p-98 + 1.001 * rw) + 1.001 * (Ec * iw);
  const double E2 = fast_quot_err(Q2, 0x1p-100, rw, Ea * ia);
  double t1, t2;
  const fdd T1 = bneg ? Q1 : dd_neg(Q1), T2 = bneg ? Q2 : dd_neg(Q2);
  if (!fast_certify2(&t1, &t2, T1, E1, T2, E2, k2)) return FAST_FB_ROUND;
  out->tlo = bneg ? t1 : t2;
  out->thi = bneg ? t2 : t1;
  fast_dirs(out, sb, sc);
  if (fs) {
    fast_keep_at(fs, out, s, v, es, ev, lost, n, sb, sc, A, Ea);
    fast_keep_root(fs, bneg ? 0 : 1, T1, E1);
    fast_keep_root(fs, bneg ? 1 : 0, T2, E2);
    fs->D = D, fs->ED = ED;
    fs->roots = 1;
  }
  return FAST_OK;
}

/* The double-double stage on one case, steps 1 to 4 (see the top of the
 * file): FAST_OK with out filled (and fs when kept), else why not. Each
 * stage is a helper forced inline, so the usual path compiles as one
 * function, as it did before it was split. */
FAST_INLINE int fast_try(toi_ref *out, const toi_case *cs, const double *delta, toi_ref_fast_stats *st,
                         ref_fast_state *fs, const int n, const int fm) {
  fdd s[4], sr[4], v[4], abc[3];
  double mag[3];
  int es = 0, ev = 0, lost = 0, front = 0;
#if FAST_VEC
  /* The usual case (FMA build, no target, no scaling) in four lanes. */
  if (fm && n == 3 && !delta) front = fast_front_vec(s, sr, v, abc, mag, cs);
#endif
  if (!front) {
    int why = fast_front(s, sr, v, abc, mag, &es, &ev, &lost, cs, delta, n, fm);
    if (why) return why;
  }
  fdd A = abc[0], B = abc[1], C = abc[2];
  const int k2 = es - ev; /* t = T 2^(es - ev) */
  double Ea = 0x1p-99 * mag[0] + 0x1p-1000, Eb = 0x1p-99 * mag[1] + 0x1p-1000, Ec = 0x1p-99 * mag[2] + 0x1p-1000;
  const double ia = 1 / A.h;
  int sc, sb = 2, exact = 0;
  fast_x X;
  X.ma = X.mb = X.mc = 0;
  int why = fast_signs(&B, &Eb, &sb, &C, &Ec, &sc, &exact, &X, s, sr, v, lost, n, fm);
  if (why) return why;
  st->exact += (unsigned)exact;

  if (sc == 0) return fast_touching(out, fs, A, Ea, ia, B, Eb, sb, k2, s, v, es, ev, lost, n, fm);
  if (sc > 0 && sb >= 0) {
    out->cls = TOI_SEPARATING;
    if (sb == 0) { /* D = -ac < 0: no roots */
      if (fs) fast_keep_at(fs, out, s, v, es, ev, lost, n, sb, sc, A, Ea);
      return FAST_OK;
    }
  }
  fdd D;
  double ED;
  int sd;
  why = fast_disc(&D, &ED, &sd, A, Ea, B, Eb, C, Ec, sc, exact, st, &X, s, sr, v, lost, n, fm);
  if (why) return why;
  if (sc < 0)
    out->cls = TOI_OVERLAP;
  else if (sb < 0)
    out->cls = sd < 0 ? TOI_MISS : sd == 0 ? TOI_GRAZE : TOI_HIT;
  if (sd < 0) {
    if (fs) fast_keep_at(fs, out, s, v, es, ev, lost, n, sb, sc, A, Ea);
    return FAST_OK;
  }
  if (sd == 0) return fast_graze(out, fs, A, Ea, ia, B, Eb, sb, sc, k2, s, v, es, ev, lost, n, fm);
  return fast_roots(out, fs, A, Ea, ia, B, Eb, sb, C, Ec, sc, D, ED, k2, s, v, es, ev, lost, n, fm);
}

/* ---- the builds and the entry point ---- */

/* The FMA is a compile-time constant in each build, so that the unused
 * TwoProd disappears; so is the dimension: 2D cases run as 3D ones, their
 * third components being exactly zero (they add exact zeros everywhere, to
 * the values and to the bounds), which spares a branch that mixed 2D and 3D
 * data would mispredict half the time. */
static int fast_try_generic(toi_ref *out, const toi_case *cs, const double *delta, toi_ref_fast_stats *st) {
  return fast_try(out, cs, delta, st, NULL, 3, FAST_GEN_FMA);
}

/* The same, keeping the state for ref_fast_prepare. */
static int fast_keep_generic(toi_ref *out, const toi_case *cs, toi_ref_fast_stats *st, ref_fast_state *fs) {
  return fast_try(out, cs, NULL, st, fs, 3, FAST_GEN_FMA);
}

#ifdef FAST_DISPATCH
__attribute__((target("fma"))) static int fast_try_fma(toi_ref *out, const toi_case *cs, const double *delta,
                                                       toi_ref_fast_stats *st) {
  return fast_try(out, cs, delta, st, NULL, 3, 1);
}

__attribute__((target("fma"))) static int fast_keep_fma(toi_ref *out, const toi_case *cs, toi_ref_fast_stats *st,
                                                        ref_fast_state *fs) {
  return fast_try(out, cs, NULL, st, fs, 3, 1);
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

int ref_fast_fma(void) {
#ifdef FAST_DISPATCH
  return fast_have_fma();
#else
  return FAST_GEN_FMA;
#endif
}

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

/* The checks of ref_check_case that the computation does not make itself:
 * the finiteness of the inputs is read from that of their differences in
 * fast_try, which hands anything non-finite back to ref_check_case. */
static inline int fast_plausible(const toi_case *c) {
  if (!c || (c->dim != 2 && c->dim != 3) || !(c->ra >= 0) || !(c->rb >= 0)) return 0;
  return c->dim == 3 || (c->pa[2] == 0 && c->pb[2] == 0 && c->va[2] == 0 && c->vb[2] == 0);
}

/* The first stage in precision q: binary32 certifies its roots in binary32
 * itself (ref_fast_quick32); any other q gets the binary64 roots (*in_q = 0
 * when q is not binary64: they must still be rounded to q). */
FAST_INLINE int fast_quick_in(toi_ref *out, const toi_case *c, toi_precision q, int *in_q) {
  *in_q = q == TOI_BINARY64 || q == TOI_BINARY32;
  return q == TOI_BINARY32 ? ref_fast_quick32(out, c) : ref_fast_quick(out, c);
}

/* The whole fast engine: the first stage, the double-double stage, then
 * MPFR; skip_quick: the caller's own first stage (the batch's) has already
 * declined this case, so it starts at the double-double stage. The roots in
 * precision q: the double-double stage certifies binary64 roots, which
 * ref_fast_finish_prec rounds to q when it proves that, else MPFR in q; the
 * first stage certifies binary32 roots itself; a fallback goes to the MPFR
 * engine in q directly. */
FAST_INLINE toi_status fast_solve(toi_ref *out, const toi_case *c, const double *delta, int skip_quick,
                                  toi_precision q) {
  if (!out) return TOI_ERR_RANGE;
  ref_clear(out, TOI_NONE);
  /* Each refusal here is one ref_check_case would make too (TOI_ERR_INPUT). */
  if (!fast_plausible(c)) return TOI_ERR_INPUT;
  if (delta && !isfinite(*delta)) return ref_check_case(c) != TOI_OK ? TOI_ERR_INPUT : TOI_ERR_RANGE;
  toi_ref_fast_stats *s = &ref_fast_tally;
  int why, in_q;
#ifdef FAST_DISPATCH
  /* The first stage (ref_fast_quick.c) answers most cases without a target
   * in plain double; what it declines goes on below, unchanged. */
  if (!skip_quick && !delta && fast_have_fma() && fast_quick_in(out, c, q, &in_q)) {
    s->calls++;
    s->quick++;
    return in_q ? TOI_OK : ref_fast_finish_prec(out, c, delta, q);
  }
  why = fast_have_fma() ? fast_try_fma(out, c, delta, s) : fast_try_generic(out, c, delta, s);
#else
  if (FAST_GEN_FMA && !skip_quick && !delta && fast_quick_in(out, c, q, &in_q)) {
    s->calls++;
    s->quick++;
    return in_q ? TOI_OK : ref_fast_finish_prec(out, c, delta, q);
  }
  why = fast_try_generic(out, c, delta, s);
#endif
  if (why == FAST_NOT_FINITE) {
    toi_status st = ref_check_case(c);
    if (st != TOI_OK) return st;
    why = FAST_FB_RANGE; /* valid data whose difference overflows */
  }
  s->calls++;
  switch (why) {
  case FAST_OK: return q == TOI_BINARY64 ? TOI_OK : ref_fast_finish_prec(out, c, delta, q);
  case FAST_NEG_R: /* as ref_load: R + delta < 0, out left cleared */
    out->cls = TOI_NONE;
    return TOI_ERR_RANGE;
  case FAST_FB_RANGE: s->fb_range++; break;
  case FAST_FB_SIGN: s->fb_sign++; break;
  default: s->fb_round++; break;
  }
  if (q != TOI_BINARY64) return ref_solve_mpfr_prec(out, c, delta, toi_precision_get(q));
  return ref_solve_mpfr(out, c, delta);
}

toi_status ref_solve_fast(toi_ref *out, const toi_case *c, const double *delta) {
  return fast_solve(out, c, delta, 0, TOI_BINARY64);
}

/* Each precision its own copy of fast_solve: binary32 and binary64 (the
 * usual two) with their tests made at compile time. */
toi_status ref_solve_fast_prec(toi_ref *out, const toi_case *c, const double *delta, toi_precision q) {
  if (q == TOI_BINARY32) return fast_solve(out, c, delta, 0, TOI_BINARY32);
  return q == TOI_BINARY64 ? fast_solve(out, c, delta, 0, TOI_BINARY64) : fast_solve(out, c, delta, 0, q);
}

toi_status ref_solve_fast_rest(toi_ref *out, const toi_case *c, toi_precision q) {
  if (q == TOI_BINARY32) return fast_solve(out, c, NULL, 1, TOI_BINARY32);
  return q == TOI_BINARY64 ? fast_solve(out, c, NULL, 1, TOI_BINARY64) : fast_solve(out, c, NULL, 1, q);
}

int ref_fast_prepare(ref_fast_state *fs, const toi_case *c) {
  if (!fs || !fast_plausible(c)) return 0;
  toi_ref out;
  ref_clear(&out, TOI_NONE);
  /* The public counters describe toi_ref_solve alone. */
  toi_ref_fast_stats scratch = {0};
  int why;
#ifdef FAST_DISPATCH
  why = fast_have_fma() ? fast_keep_fma(&out, c, &scratch, fs) : fast_keep_generic(&out, c, &scratch, fs);
#else
  why = fast_keep_generic(&out, c, &scratch, fs);
#endif
  return why == FAST_OK;
}

/* Step 1 of fast_front on its own (no target): the same s, v, R and scales,
 * so exact_data means what it means there (fast_exact_ok). */
int ref_fast_scaled_data(ref_fast_state *fs, const toi_case *c) {
  if (!fs || !fast_plausible(c)) return 0;
  fdd *s = fs->s, *v = fs->v;
  double z = 0, ms, mv = 0;
#pragma GCC unroll 3
  for (int i = 0; i < 3; i++) {
    s[i] = two_sum(c->pb[i], -c->pa[i]);
    v[i] = two_sum(c->vb[i], -c->va[i]);
    z += (s[i].h - s[i].h) + (v[i].h - v[i].h);
  }
  s[3] = two_sum(c->ra, c->rb);
  if (!(z + (s[3].h - s[3].h) == 0)) return 0;
  ms = s[3].h;
#pragma GCC unroll 3
  for (int i = 0; i < 3; i++) {
    double as = fabs(s[i].h), av = fabs(v[i].h);
    ms = as > ms ? as : ms;
    mv = av > mv ? av : mv;
  }
  if (ms == 0 || mv == 0) return 0;
  int es = 0, ev = 0, lost = 0;
  if (!(ms >= 0x1p-64 && ms <= 0x1p64 && mv >= 0x1p-64 && mv <= 0x1p64)) {
    es = fast_ilog2(ms);
    ev = fast_ilog2(mv);
    for (int i = 0; i < 3; i++) {
      fast_scale_keep(&s[i].h, -es, &lost);
      fast_scale_keep(&s[i].l, -es, &lost);
      fast_scale_keep(&v[i].h, -ev, &lost);
      fast_scale_keep(&v[i].l, -ev, &lost);
    }
    fast_scale_keep(&s[3].h, -es, &lost);
    fast_scale_keep(&s[3].l, -es, &lost);
  }
  fs->es = es, fs->ev = ev, fs->k2 = es - ev;
  fs->exact_data = fast_exact_ok(lost, s, v, 3);
  return fs->exact_data;
}

int ref_fast_expand(const ref_fast_state *fs, double *xa, int *ma, double *xb, int *mb, double *xc, int *mc) {
  if (!fs->exact_data) return 0;
  fdd sr[4];
  for (int i = 0; i < 4; i++) sr[i] = fs->s[i];
  sr[3] = dd_neg(fs->s[3]);
  int fm = ref_fast_fma();
  (void)fm; /* unused when there is a single build */
  if (xa) *ma = FAST_RARE(fast_xdot, fm)(xa, fs->v, fs->v, 3, 1);
  if (xb) *mb = FAST_RARE(fast_xdot, fm)(xb, fs->s, fs->v, 3, 0);
  if (xc) *mc = FAST_RARE(fast_xdot, fm)(xc, fs->s, sr, 4, 1);
  return 1;
}
