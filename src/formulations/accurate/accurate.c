/* accurate.c: exact classification and the forward root within one ulp (double-double, expansions). */
#include <float.h>
#include <math.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include "accurate.h"
#include "accurate_lanes.h"
#include "eft.h"
#include "formulations.h"
#include "quad_exact.h"

/*
 * The problem, with s = pB - pA, v = vB - vA, R = rA + rB exact: a = v.v,
 * b = s.v, c = s.s - R^2, D = b^2 - a c, classified in the reference's order
 * (overlap, static, contact / separating, miss, graze, hit) with every sign
 * exact, and the forward root of a hit or graze from the cancellation-free
 * t = c / (-b + sqrt D) (b < 0 < c there, so nothing cancels).
 *
 * 1. Filters. From the exact differences (TwoSum), a first filter in
 *    plain double on their high parts (quick_class) gives the classes that
 *    need no root (overlap, static, separating, miss) when the signs they
 *    rest on are certain. Otherwise c, b and a are evaluated as
 *    double-doubles (compensated dot products, every product by TwoProd)
 *    with proven bounds on their errors (derivations at fast_c and
 *    fast_dot), and D = b^2 - a c from them with a bound that adds the
 *    propagated errors (fast_d). A sign is certain when |estimate| exceeds
 *    its bound. Underflow only adds an absolute 2^-1075 per operation, which
 *    the bounds carry as ETA.
 *
 * 2. Root. If c, b and sqrt D are each known within ACC_REL = 2^-64 of
 *    the denominator -b + sqrt D (c relative to itself), the denominator is
 *    within 2^-63 and the double-double operations add below 2^-99: t is
 *    within 2^-62.4 relative before its one final rounding, so at most
 *    0.5 + 2^-9.4 ulp (< 0.502 ulp) from t*, and correctly rounded unless t*
 *    lies within 2^-9.4 ulp of a midpoint between two doubles. There (step
 *    5) the side of the midpoint is decided exactly: an exact tie, possible
 *    when t* is rational (D a perfect square, or D = 0), goes to even as in
 *    the reference.
 *
 * 3. Common path (fast_body). Most cases end there: every difference
 *    below 2^150 (nothing overflows), the accuracy of step 2 met, and c,
 *    |b| >= 2^-700, D >= 2^-900 so that every low part in the root stays
 *    normal. A sign of D the filter cannot settle is first computed exactly
 *    in 128- and 256-bit integers where the data fit (int_d_sign: the exact
 *    grazes of constructed data, D = 0, and tiny negative D, which need no
 *    value of D); likewise c, sign and value (int_c: lengths spanning up to
 *    120 bits, the tiny gaps of near contacts). A sign the filter cannot
 *    settle otherwise, or a value not accurate enough for step 2, is
 *    computed exactly with Shewchuk's expansions
 *    (quad_exact.c) when every input is in the safe range of step 4, whose
 *    compressed value also gives a double-double within 2^-100. Cases whose
 *    differences are out of its range (lengths or speeds beyond 2^150 or
 *    below 2^-150: the scale family) take it on their exact differences
 *    scaled by powers of two (solve_scaled: the largest length and the
 *    largest speed brought into [1, 2), where every part stays exact),
 *    with the root rounded back as in step 4; the slow path decides where
 *    that scaling is not exact or exact values would be needed.
 *
 * 4. Slow path (solve_slow), for everything else. Positions and radii
 *    ("lengths") and velocities are each multiplied by a power of two that
 *    brings every nonzero input of the group into [2^-150, 2^150): exact,
 *    sign-preserving, and t is multiplied by a known power of two. Then
 *    every input is a multiple of 2^-202, the differences too, c, b and a
 *    are multiples of 2^-404 and D of 2^-808, |D| < 2^620, every product's
 *    rounding error is representable and the conditions of step 3 hold:
 *    the scaled case goes through the common path, its root rounded back by
 *    scale_round (and the same filter and exact values again when a
 *    difference still reaches 2^150). A group spread over more than 2^297
 *    cannot be scaled so: such "wide" cases (only contrived mixes of huge
 *    and tiny inputs) are done with big binary numbers throughout (bigf.c),
 *    and so is any case whose expansions would outgrow their buffers.
 *
 * 5. Rounding. The actual bounds give |t - t*| <= rel t with rel usually
 *    near 2^-98, far below 2^-62.4 (root_rel). When t lies within rel t of
 *    the midpoint m between the result and its neighbour, the sign of
 *    t* - m is computed exactly from the unscaled inputs (qx_root_side).
 *    A first test against 2^-6 of half a step, which the 2^-62.4 bound
 *    implies, keeps the divisions of root_rel off the common path.
 */

/* The loops over the (two or three) components of the common path, fully
   unrolled so that the differences stay in registers: GCC at -O2 keeps
   them as loops over arrays on the stack. */
#if defined(__clang__)
#define ACC_UNROLL _Pragma("unroll")
#elif defined(__GNUC__)
#define ACC_UNROLL _Pragma("GCC unroll 3")
#else
#define ACC_UNROLL
#endif

#define SAFE_EXP 150       /* nonzero inputs are brought into [2^-SAFE_EXP, 2^SAFE_EXP) */
#define SAFE_LO 0x1p-150
#define SAFE_HI 0x1p150
#define ACC_REL 0x1p-64    /* accuracy demanded of c, b and sqrt D for the root (step 2) */
/* Absolute slack for any underflow in a product of two tiny double-double
   parts (at most 2^-1075 each); every nonzero c, b, D is at least 2^-808. */
#define ETA 0x1p-1000

/*
 * c = s.s - R^2 as a normalized double-double, with |result - c| <= *err.
 * With s_i = sh + sl and R = Rh + Rl exact (|lo| <= u |hi|, u = 2^-53),
 * sh^2 = p + e exactly (TwoProd); the p's and -Rh^2 are summed by a TwoSum
 * chain S, whose errors q.lo, the e's and the cross terms 2 sh sl - 2 Rh Rl
 * go to a plain double tail T; sl^2 and Rl^2 are dropped. With M the sum of
 * the p's and of Rh^2: the TwoSum errors (n of them) are each <= u M, the
 * e's together <= u M, the cross terms together <= 2u(1+u) M, so the tail's
 * terms sum to at most (n+3) u M (1+u) <= 6.01 u M; summing them in double
 * along at most 13 roundings errs by <= 13 u * 6.01 u M < 79 u^2 M, and the
 * dropped squares are below 1.01 u^2 M. Total < 80 u^2 M < 2^-99.6 M;
 * we use 2^-99 M (the computed M is within 4u of M).
 */
TOI_INLINE dd fast_c(const dd *s, dd R, int n, double *err) {
  dd p = two_prod(s[0].hi, s[0].hi);
  double S = p.hi, T = p.lo, M = p.hi, cross = s[0].hi * s[0].lo;
  ACC_UNROLL
  for (int i = 1; i < n; i++) {
    p = two_prod(s[i].hi, s[i].hi);
    dd q = two_sum(S, p.hi);
    S = q.hi;
    T += q.lo + p.lo;
    M += p.hi;
    cross += s[i].hi * s[i].lo;
  }
  p = two_prod(R.hi, R.hi);
  dd q = two_sum(S, -p.hi);
  T += q.lo - p.lo;
  M += p.hi;
  T += 2 * (cross - R.hi * R.lo);
  *err = 0x1p-99 * M + ETA;
  return two_sum(q.hi, T);
}

/*
 * x.y as a normalized double-double with |result - x.y| <= *err, for exact
 * double-doubles x_i, y_i. Same scheme as fast_c: xh yh = p + e exactly, a
 * TwoSum chain over the p's, the rest in a tail. With M the sum of |p|:
 * the e's sum to <= u M, the n-1 TwoSum errors each <= u M, the cross terms
 * xh yl + xl yh to <= 2u(1+u) M: the tail's terms sum to <= (n+2) u M (1+u)
 * <= 5.01 u M, its evaluation errs by < 13 u * 5.01 u M, and the dropped
 * xl yl are below 1.01 u^2 M: total < 67 u^2 M < 2^-99.9 M; we use 2^-99 M.
 */
TOI_INLINE dd fast_dot(const dd *x, const dd *y, int n, double *err) {
  dd p = two_prod(x[0].hi, y[0].hi);
  double S = p.hi, T = p.lo, M = fabs(p.hi), cross = x[0].hi * y[0].lo + x[0].lo * y[0].hi;
  ACC_UNROLL
  for (int i = 1; i < n; i++) {
    p = two_prod(x[i].hi, y[i].hi);
    dd q = two_sum(S, p.hi);
    S = q.hi;
    T += q.lo + p.lo;
    M += fabs(p.hi);
    cross += x[i].hi * y[i].lo + x[i].lo * y[i].hi;
  }
  T += cross;
  *err = 0x1p-99 * M + ETA;
  return two_sum(S, T);
}

/*
 * D = b^2 - a c from normalized double-doubles a, b, c with error bounds
 * ea, eb, ec. Rounding: bh^2 = P1 + e1 and ah ch = P2 + e2 exactly, P1 - P2
 * by TwoSum; the tail (TwoSum error, e1 - e2, 2 bh bl - (ah cl + al ch))
 * has terms summing to <= 4u(1+u)(P1 + |P2|) and is evaluated in 8
 * operations (< 24 u^2 (P1 + |P2|)); bl^2 - al cl is dropped (< 2.01 u^2
 * (P1 + |P2|)): < 2^-101 (P1 + |P2|), we use 2^-100. Propagation: |b'^2 -
 * b^2| <= (2|b'| + eb) eb and |a'c' - ac| <= |a'| ec + (|c'| + ec) ea, with
 * |x'| <= 1.001 |xh| covering the low parts and the rounding of the bound.
 */
TOI_INLINE dd fast_d(dd a, double ea, dd b, double eb, dd c, double ec, double *err) {
  dd P1 = two_prod(b.hi, b.hi);
  dd P2 = two_prod(a.hi, c.hi);
  dd S = two_sum(P1.hi, -P2.hi);
  double T = S.lo + (P1.lo - P2.lo) + (2 * b.hi * b.lo - (a.hi * c.lo + a.lo * c.hi));
  /* Every caller has established a > 0, b < 0 and c > 0 (their high parts
     too: a filter's certain sign, an integer or exact value's sign): the
     absolute values are a.hi, -b.hi, c.hi and P2.hi, the same bits. */
  double ab = a.hi, bb = -b.hi, cb = c.hi;
  *err = 0x1p-100 * (P1.hi + P2.hi) + (2.002 * bb + eb) * eb + 1.001 * ab * ec + (1.001 * cb + ec) * ea + ETA;
  return two_sum(S.hi, T);
}

/*
 * The exact sign of D (-1, 0, 1) in integer arithmetic, or 2 when the data
 * do not fit (then the expansions decide): the test for exact grazes, whose
 * D no filter can settle (its estimate is 0 or nearly), cheap where their
 * data have few significant bits, as constructed grazes do. The lengths
 * (s_i and R) and the velocities (v_i) are exact double-doubles. Within
 * each group let lo be the least exponent of a last nonzero bit and hi the
 * largest floor(log2 |x|) over the nonzero parts. When hi - lo <= 60 in
 * both groups, every part x is an integer times 2^lo below 2^61 in
 * magnitude, and x 2^-lo is that integer exactly (2^-lo a normal power of
 * two, checked) and converts exactly to int64; so each s_i is S_i 2^ls, R
 * is Rr 2^ls, v_i is V_i 2^lv, with |S_i|, |Rr|, |V_i| < 2^62 (the sum of
 * two parts). Then a = A 2^(2 lv), b = B 2^(ls + lv), c = C 2^(2 ls) with
 * A = sum V_i^2, B = sum S_i V_i, C = sum S_i^2 - Rr^2: at most four
 * products below 2^124 in magnitude each, so every partial sum is below
 * 2^126, exact in signed 128-bit integers. D = (B^2 - A C) 2^(2 ls + 2 lv),
 * and B^2 and A C, below 2^252, are compared as exact 256-bit products.
 * Called where c > 0 and v != 0, so C > 0 (checked) and A > 0: both
 * products are nonnegative. The same test as the fast reference's.
 */
#ifdef __SIZEOF_INT128__
__extension__ typedef unsigned __int128 acc_u128;
__extension__ typedef __int128 acc_i128;

/* For x != 0: the exponent of its last nonzero bit; *top = floor(log2 |x|). */
TOI_INLINE int int_bits(double x, int *top) {
  uint64_t b;
  memcpy(&b, &x, sizeof b);
  int ex = (int)((b >> 52) & 0x7ff);
  uint64_t m = b & 0xfffffffffffffu;
  int e0 = -1074; /* subnormal: m 2^-1074 */
  if (ex) {
    m |= (uint64_t)1 << 52;
    e0 = ex - 1075;
  }
  *top = e0 + 63 - __builtin_clzll(m);
  return e0 + __builtin_ctzll(m);
}

/* Over the nonzero parts of x[0..n-1] (and of *r when r is not NULL): lo
   into *lo; whether some part is nonzero, hi - lo <= 60 and 2^-lo is a
   normal power of two. */
TOI_INLINE void int_span_part(double x, int *l, int *h) {
  if (x == 0) return;
  int t, b = int_bits(x, &t);
  *l = b < *l ? b : *l;
  *h = t > *h ? t : *h;
}

/* int_span_part over both parts of a normalized double-double (|lo| <=
   ulp(hi) / 2, as TwoSum leaves them), with one int_bits where lo = 0:
   where lo != 0, hi's last bit lies at or above ulp(hi) and lo's top bit
   below it, so hi's last bit is not the least and lo's top not the
   largest; only lo's last bit and hi's top count (hi = 0 makes lo = 0). */
TOI_INLINE void int_span_dd(dd x, int *l, int *h) {
  if (x.lo == 0) {
    int_span_part(x.hi, l, h);
    return;
  }
  int t, b = int_bits(x.lo, &t);
  *l = b < *l ? b : *l;
  /* hi's top from its exponent: hi is normal (lo != 0 is at least 2^-1074,
     so ulp(hi) >= 2^-1073). */
  uint64_t bits;
  memcpy(&bits, &x.hi, sizeof bits);
  t = (int)((bits >> 52) & 0x7ff) - 1023;
  *h = t > *h ? t : *h;
}

TOI_INLINE int int_span(const dd *x, const int n, const dd *r, int *lo) {
  int l = INT32_MAX, h = INT32_MIN;
  ACC_UNROLL
  for (int i = 0; i < n; i++) {
    int_span_dd(x[i], &l, &h);
  }
  if (r) {
    int_span_dd(*r, &l, &h);
  }
  *lo = l;
  return h != INT32_MIN && h - l <= 60 && l >= -1022 && l <= 1022;
}

/* x 2^-lo as an integer (exact, see int_d_sign). */
TOI_INLINE int64_t int_of(dd x, int lo) {
  const double f = pow2i(-lo);
  return (int64_t)(x.hi * f) + (int64_t)(x.lo * f);
}

/* x y for x, y < 2^126: *hi 2^128 + *lo, exactly. */
TOI_INLINE void int_mul128(acc_u128 x, acc_u128 y, acc_u128 *hi, acc_u128 *lo) {
  const uint64_t x0 = (uint64_t)x, x1 = (uint64_t)(x >> 64), y0 = (uint64_t)y, y1 = (uint64_t)(y >> 64);
  const acc_u128 p00 = (acc_u128)x0 * y0, p01 = (acc_u128)x0 * y1, p10 = (acc_u128)x1 * y0;
  const acc_u128 mid = (p00 >> 64) + (uint64_t)p01 + (uint64_t)p10; /* < 3 2^64 */
  *lo = mid << 64 | (uint64_t)p00;
  *hi = (acc_u128)x1 * y1 + (p01 >> 64) + (p10 >> 64) + (mid >> 64);
}

TOI_INLINE int int_d_sign_n(const dd *s, const dd *v, dd R, const int n) {
  int ls, lv;
  if (!int_span(s, n, &R, &ls) || !int_span(v, n, NULL, &lv)) return 2;
  acc_i128 A = 0, B = 0, C = 0;
  ACC_UNROLL
  for (int i = 0; i < n; i++) {
    const acc_i128 S = int_of(s[i], ls), V = int_of(v[i], lv);
    A += V * V;
    B += S * V;
    C += S * S;
  }
  const acc_i128 Rr = int_of(R, ls);
  C -= Rr * Rr;
  if (!(C > 0)) return 2;
  const acc_u128 aB = (acc_u128)(B < 0 ? -B : B);
  acc_u128 bh, bl, ch, cl;
  int_mul128(aB, aB, &bh, &bl);
  int_mul128((acc_u128)A, (acc_u128)C, &ch, &cl);
  if (bh != ch) return bh > ch ? 1 : -1;
  return (bl > cl) - (bl < cl);
}

static __attribute__((noinline)) int int_d_sign(const dd *s, const dd *v, dd R, int n) {
  return n == 3 ? int_d_sign_n(s, v, R, 3) : int_d_sign_n(s, v, R, 2);
}

/*
 * c = s.s - R^2 exactly in integers: 1 with *sign its sign and *c a
 * normalized double-double within *err = 2^-100 |c->hi| of it (as the
 * expansions give), or 0 when the lengths span more than 120 bits or c
 * would come too near the ends of the exponent range (then the expansions
 * decide). With lo the least exponent of a last nonzero bit and hi the
 * largest floor(log2 |x|) over the nonzero parts x of s_i and R, hi - lo <=
 * 120: every part is M 2^e0 (M its integer significand, e0 >= lo where
 * M's bits below lo - e0 are zero) and x 2^-lo = M 2^(e0 - lo), shifted
 * left or right exactly, is an integer below 2^121; so s_i = S_i 2^lo,
 * R = Rr 2^lo with |S_i|, |Rr| < 2^122 (the sum of two parts, signed
 * 128-bit). Each square is below 2^244 (int_mul128, exact), P = sum S_i^2
 * below 2^246 and Rr^2 are held as 256-bit numbers, and c = (P - Rr^2)
 * 2^(2 lo) exactly. For X = |P - Rr^2| != 0 with top bit L: W, the 128 bits
 * of X from bit L down (lower bits dropped, below 2^(L - 127)); H =
 * floor(W 2^-75) (53 bits) and Lo = floor(W 2^-22) mod 2^53 are exact
 * doubles and H 2^(top - 52) + Lo 2^(top - 105), top = L + 2 lo, is |c| up
 * to less than 2^(L - 105) (1 + 2^-22) 2^(2 lo) < 2^-104.9 |c|. Both
 * products by powers of two are exact when top - 105 >= -1022 and top <=
 * 1000 (checked); the FastTwoSum that normalizes them is exact (Lo 2^(top -
 * 105) < 2^(top - 52) <= H 2^(top - 52)). The error, below 2^-104.9 (1 +
 * 2^-52) |c->hi|, is within 2^-100 |c->hi|.
 */
TOI_INLINE void wide_part(double x, uint64_t *m, int *e0) {
  uint64_t b;
  memcpy(&b, &x, sizeof b);
  int ex = (int)((b >> 52) & 0x7ff);
  *m = b & 0xfffffffffffffu;
  *e0 = -1074; /* subnormal: m 2^-1074 */
  if (ex) {
    *m |= (uint64_t)1 << 52;
    *e0 = ex - 1075;
  }
}

/* 256-bit x + y (no carry out: the sums here stay below 2^247). */
TOI_INLINE void add256(acc_u128 *xh, acc_u128 *xl, acc_u128 yh, acc_u128 yl) {
  acc_u128 l = *xl + yl;
  *xh += yh + (l < yl);
  *xl = l;
}

/* int_c's answer: ok = 0 when the lengths do not fit. */
typedef struct int_c_val {
  dd c;
  double err;
  int sign, ok;
} int_c_val;

/* x 2^-lo as a signed integer, for a part x on the grid of 2^lo (int_c). */
TOI_INLINE acc_i128 wide_int(double x, int lo) {
  if (x == 0) return 0;
  uint64_t m;
  int e0;
  wide_part(x, &m, &e0);
  int sh = e0 - lo; /* from -52 to 120 - 52: exact either way (above) */
  acc_u128 u = sh >= 0 ? (acc_u128)m << sh : (acc_u128)(m >> -sh);
  return x < 0 ? -(acc_i128)u : (acc_i128)u;
}

TOI_INLINE int_c_val int_c_n(const dd *s, dd R, const int n) {
  int_c_val r = {{0, 0}, 0, 0, 0};
  int lo = INT32_MAX, hi = INT32_MIN;
  ACC_UNROLL
  for (int i = 0; i < n; i++) {
    int_span_dd(s[i], &lo, &hi);
  }
  int_span_dd(R, &lo, &hi);
  if (hi == INT32_MIN || hi - lo > 120) return r;
  acc_u128 ph = 0, pl = 0, qh, ql, th, tl;
  ACC_UNROLL
  for (int i = 0; i < n; i++) {
    acc_i128 S = wide_int(s[i].hi, lo) + wide_int(s[i].lo, lo);
    acc_u128 aS = (acc_u128)(S < 0 ? -S : S);
    int_mul128(aS, aS, &th, &tl);
    add256(&ph, &pl, th, tl);
  }
  acc_i128 Rr = wide_int(R.hi, lo) + wide_int(R.lo, lo);
  acc_u128 aR = (acc_u128)(Rr < 0 ? -Rr : Rr);
  int_mul128(aR, aR, &qh, &ql); /* Rr^2 */
  r.ok = 1;
  if (ph == qh && pl == ql) return r; /* c = 0 */
  int pos = ph > qh || (ph == qh && pl > ql);
  acc_u128 xh, xl; /* X = |P - Rr^2| */
  if (pos) {
    xl = pl - ql;
    xh = ph - qh - (pl < ql);
  } else {
    xl = ql - pl;
    xh = qh - ph - (ql < pl);
  }
  int L;
  acc_u128 W;
  if (xh) {
    uint64_t h64 = (uint64_t)(xh >> 64);
    L = 128 + (h64 ? 127 - __builtin_clzll(h64) : 63 - __builtin_clzll((uint64_t)xh));
    W = xh << (255 - L) | xl >> (L - 127); /* shifts 10..127 and 1..118 (L <= 245) */
  } else {
    uint64_t h64 = (uint64_t)(xl >> 64);
    L = h64 ? 127 - __builtin_clzll(h64) : 63 - __builtin_clzll((uint64_t)xl);
    W = xl << (127 - L);
  }
  const int top = L + 2 * lo;
  if (top - 105 < -1022 || top > 1000) {
    r.ok = 0;
    return r;
  }
  const double H = (double)(uint64_t)(W >> 75), Lo = (double)((uint64_t)(W >> 22) & 0x1fffffffffffffu);
  const double sg = pos ? 1.0 : -1.0;
  r.c = fast_two_sum(sg * H * pow2i(top - 52), sg * Lo * pow2i(top - 105));
  r.sign = pos ? 1 : -1;
  r.err = 0x1p-100 * fabs(r.c.hi);
  return r;
}

static __attribute__((noinline)) int_c_val int_c(const dd *s, dd R, int n) {
  return n == 3 ? int_c_n(s, R, 3) : int_c_n(s, R, 2);
}
#else
static int int_d_sign(const dd *s, const dd *v, dd R, int n) {
  (void)s, (void)v, (void)R, (void)n;
  return 2;
}
typedef struct int_c_val {
  dd c;
  double err;
  int sign, ok;
} int_c_val;
static int_c_val int_c(const dd *s, dd R, int n) {
  (void)s, (void)R, (void)n;
  int_c_val r = {{0, 0}, 0, 0, 0};
  return r;
}
#endif

/* Sign of an estimate x within err of the value: -1, +1, or 2 when unsure.
   A normalized x has |x| >= |x.hi| (1 - u), hence the 1.001. A certain
   sign is never 0: an exact zero always goes to the exact path. */
TOI_INLINE int filter_sign(dd x, double err) {
  if (x.hi > 1.001 * err) return 1;
  if (x.hi < -1.001 * err) return -1;
  return 2;
}

/* sqrt of a value the filter proved positive, by the instruction: the
   compiler, keeping errno, otherwise calls the library wherever it cannot
   see that the argument is not negative (and spills every live register
   around the call). Both are the correctly rounded square root. */
TOI_INLINE double sqrt_pos(double x) {
#if defined(__SSE2__)
  return _mm_cvtsd_f64(_mm_sqrt_sd(_mm_setzero_pd(), _mm_set_sd(x > 0 ? x : 0)));
#else
  return sqrt(x > 0 ? x : 0);
#endif
}

/*
 * c / (-b + sqrt D) as a normalized double-double, for c > 0, b < 0,
 * D >= 0 normalized double-doubles whose magnitudes keep every product and
 * remainder clear of underflow (see the callers: c >= 2^-808, t in
 * [2^-960, 2^1002]); h is RN(sqrt(D.hi)). Written for a short dependency chain: the
 * two divisions (q0, inv) depend only on RN(h - b.hi) and run side by side,
 * and the corrections are products. Relative error below 2^-100, with
 * u = 2^-53:
 *
 * sqrt D. r = D.hi - h^2 is exact (the remainder of a correctly rounded
 *   square root is a double; the fma gives it), and |r| <= 2.01 u h^2
 *   (|sqrt D.hi - h| <= u h). With x = (r + D.lo) / h^2, |x| <= 3.02 u,
 *   sqrt D = h sqrt(1 + x) = h + (r + D.lo) / (2h) - h x^2 / 8 + ..., the
 *   dropped terms below 1.2 u^2 h. g = RN(RN(r + D.lo) i2), i2 = RN(0.5 / h),
 *   |g| <= 1.52 u h: three roundings, < 4.6 u^2 h. So |h + g - sqrt D| <
 *   5.8 u^2 h.
 * den = -b + sqrt D. (Dh, e) = TwoSum(-b.hi, h) is exact, |e| <= u Dh;
 *   Dl = RN(e + RN(g - b.lo)), its terms below u Dh, 1.52 u Dh and 1.01 u
 *   Dh: two roundings < 6.1 u^2 Dh, and |Dl| <= 3.54 u Dh. With the above
 *   (h <= den), |Dh + Dl - den| < 12 u^2 den.
 * The quotient. q0 = RN(c.hi / Dh), inv = RN(1 / Dh). e1 = c.hi - q0 Dh is
 *   a double (the remainder of a correctly rounded division, far from
 *   underflow here), so the fma is exact; |e1| <= u q0 Dh. rho = RN(e1 +
 *   RN(c.lo - RN(q0 Dl))) is c - q0 (Dh + Dl) up to three roundings of
 *   terms below u, 1.01 u and 3.54 u times q0 Dh: |rho| <= 5.6 u q0 Dh and
 *   rho errs by < 13.8 u^2 q0 Dh. The correction k = RN(rho inv) stands for
 *   rho / (Dh + Dl): inv is within u of 1 / Dh, itself within 3.56 u of
 *   1 / (Dh + Dl); with the rounding of the product, k errs by < 13.9 u^2 q0
 *   (from rho) + 25.6 u^2 q0 (from inv) + 5.7 u^2 q0 < 46 u^2 q0. t =
 *   FastTwoSum(q0, k) is exact (|k| < |q0|): |t - c / (Dh + Dl)| < 46 u^2 q0
 *   < 2^-100.4 t.
 * Total: 12 u^2 + 46 u^2 and second-order terms < 59 u^2 < 2^-100.1.
 */
TOI_INLINE dd root_dd(dd c, dd b, dd d, double h) {
  double Dh = -b.hi, Dl = -b.lo;
  if (d.hi > 0) {
    double i2 = 0.5 / h;
    double r = fma(-h, h, d.hi);
    double g = (r + d.lo) * i2;
    dd s = two_sum(-b.hi, h);
    Dh = s.hi;
    Dl = s.lo + (g - b.lo);
  }
  double q0 = c.hi / Dh, inv = 1 / Dh;
  double e1 = fma(-q0, Dh, c.hi);
  double rho = e1 + (c.lo - q0 * Dl);
  return fast_two_sum(q0, rho * inv);
}

/* RN((x.hi + x.lo) 2^k) for a normalized double-double. Where the result is
   normal this is x.hi 2^k (x.hi is already RN(x.hi + x.lo)). In the
   subnormal range x.hi 2^k is rounded once more, and the low part matters
   only when x.hi 2^k falls exactly on a midpoint of the subnormal grid:
   then the low part's sign, not ties-to-even, picks the side. The grid's
   last midpoint, 2^-1022 - 2^-1075, rounds to even up to 2^-1022: hence
   <=, a y of 2^-1022 being checked too. */
static double scale_round(dd x, int k) {
  double y = scale2(x.hi, k);
  if (!(fabs(y) <= DBL_MIN) || x.lo == 0) return y;
  double back = scale2(y, -k);                 /* exact: a grid point, scaled up */
  double diff = x.hi - back;                   /* exact: within one grid step */
  if (fabs(diff) != scale2(1.0, -1075 - k)) return y; /* not a midpoint (half a grid step) */
  return scale2((diff > 0) == (x.lo > 0) ? back + 2 * diff : back, k);
}

/* A bound on |t - t*| / t* for t = root_dd(c, b, d, h) from c, b, D within
   ec, eb, ed of their values (h = 0 when D is exactly 0): c contributes
   ec / c, the denominator -b + sqrt D (eb + ed / sqrt D) / (-b + sqrt D),
   root_dd itself below 2^-100 (see there); the factor covers second-order terms, h
   against sqrt(d) and the rounding of the bound. */
TOI_INLINE double root_rel(dd c, double ec, dd b, double eb, double ed, double h) {
  double den_err = eb + (h > 0 ? ed / h : 0);
  return 1.01 * (ec / c.hi + den_err / (h - b.hi) + 0x1p-98);
}

/* Whether t > 0, whose final rounding (scaled by 2^k) gave y, lies within
   2^-6 half a grid step of the midpoint between y and its neighbour *nb on
   t's side. Then *dist is |t - midpoint| in t's scale; elsewhere the
   rounding is right (step 5). y = +inf needs no check: t 2^k >= 2^1024
   there, and t* is at least 2^1024 (1 - 2^-62), past the midpoint between
   DBL_MAX and 2^1024. */
TOI_INLINE int near_midpoint(dd t, int k, double y, double *nb, double *dist) {
  if (!(y < INFINITY)) return 0;
  double back = k ? scale2(y, -k) : y;  /* exact: a double of t's scale */
  double r = (t.hi - back) + t.lo;      /* t - back, within one grid step */
  uint64_t bits;
  memcpy(&bits, &y, sizeof bits);
  /* The neighbour toward t (below when r = 0: then no midpoint is near).
     y >= +0, and y > 0 when r <= 0 (t > 0). Without a branch: its
     direction is a coin toss. */
  bits += 2 * (uint64_t)(r > 0) - 1;
  memcpy(nb, &bits, sizeof bits);
  double step = *nb < INFINITY ? *nb - y : 0x1p971; /* past DBL_MAX: 2^1024 */
  double half = 0.5 * (k ? scale2(step, -k) : step);
  *dist = fabs(r - half);
  return *dist <= 0x1p-6 * fabs(half);
}

/* A first test for the fast path (t normalized, k = 0), on the bits alone:
   whether |t.lo| lies within 2^-4 of a power of two that half a grid step
   around t.hi can be (2^-53 or 2^-54 of t.hi's binade). Necessary for
   near_midpoint, and false with a predictable branch on all but a few
   percent of cases. */
TOI_INLINE int maybe_midpoint(dd t) {
  uint64_t h, l;
  memcpy(&h, &t.hi, sizeof h);
  memcpy(&l, &t.lo, sizeof l);
  int64_t half = (int64_t)(h & 0x7ff0000000000000u) - ((int64_t)53 << 52); /* bits of 2^(E-53) */
  int64_t d1 = (int64_t)(l & 0x7fffffffffffffffu) - half;
  int64_t d2 = d1 + ((int64_t)1 << 52); /* against 2^(E-54) */
  const int64_t w = (int64_t)1 << 48;
  /* Below 2^-967 half a step may be subnormal, with other bits: no shortcut. */
  return (uint64_t)(d1 + w) <= (uint64_t)(2 * w) || (uint64_t)(d2 + w) <= (uint64_t)(2 * w) ||
         (h & 0x7ff0000000000000u) < ((uint64_t)56 << 52);
}

/* The correctly rounded root when t* is so near the midpoint between y and
   nb that only the exact sign of t* - midpoint decides; an exact tie goes
   to the even one (2^1024, past DBL_MAX, counts as even). Rare: kept out of
   line. */
static __attribute__((noinline, cold)) double tie_break(const toi_case *cs, int n, double y, double nb) {
  double gap = nb < INFINITY ? nb - y : 0x1p971;
  int side = qx_root_side(cs, n, y, gap);
  if (side == 0) {
    uint64_t bits;
    memcpy(&bits, &y, sizeof bits);
    return bits & 1 ? nb : y;
  }
  return (side > 0) == (gap > 0) ? nb : y;
}

/* ---- the slow path: scaling, exact fallback, big numbers ---- */

/* The root from exponent-tagged exact values of any magnitude: |b| and
   sqrt D are brought to a common exponent q first (a term far below the
   other may underflow to zero, which changes nothing at 2^-100), then
   t = c / den 2^(ec - q), within 2^-96 of t* relative: c, b, D within
   2^-100, the terms dropped by underflow below 2^-100 of den, the
   double-double operations below 2^-100. */
static double root_x(const toi_case *cs, int n, const qx_num *c, const qx_num *b, const qx_num *d) {
  dd B = {-b->hi, -b->lo};
  int q = b->e;
  dd den = B;
  if (d->sign > 0) {
    dd Dm = {d->hi, d->lo};
    int ed = d->e;
    if (ed % 2) {
      Dm.hi *= 2;
      Dm.lo *= 2;
      ed -= 1;
    }
    int h = ed / 2;
    if (h > q) q = h;
    dd Bs = {scale2(B.hi, b->e - q), scale2(B.lo, b->e - q)};
    dd Ds = {scale2(Dm.hi, ed - 2 * q), scale2(Dm.lo, ed - 2 * q)};
    den = Bs;
    if (Ds.hi > 0) den = dd_add_same_sign(Bs, dd_sqrt(Ds));
  }
  dd C = {c->hi, c->lo};
  dd t = dd_div(C, den);
  double y = scale_round(t, c->e - q), nb, dist;
  if (near_midpoint(t, c->e - q, y, &nb, &dist) && dist <= 0x1p-96 * t.hi) y = tie_break(cs, n, y, nb);
  return y;
}

static toi_result result(toi_class cls, double t) {
  toi_result r = {cls, t};
  return r;
}

/* Cases whose inputs no scaling can bring into the safe range: everything
   with big numbers. */
static toi_result solve_wide(const toi_case *cs, int n, toi_accurate_info *info) {
  if (info) info->path |= TOI_ACC_WIDE;
  qx_num c, b, d;
  qx_big(cs, n, &c, &b, &d);
  if (c.sign < 0) return result(TOI_OVERLAP, NAN);
  int moving = 0;
  for (int i = 0; i < n; i++) moving |= cs->va[i] != cs->vb[i];
  if (!moving) return result(TOI_STATIC, NAN);
  if (c.sign == 0) return b.sign < 0 ? result(TOI_CONTACT, 0.0) : result(TOI_SEPARATING, NAN);
  if (b.sign >= 0) return result(TOI_SEPARATING, NAN);
  if (d.sign < 0) return result(TOI_MISS, NAN);
  return result(d.sign == 0 ? TOI_GRAZE : TOI_HIT, root_x(cs, n, &c, &b, &d));
}

/* Exact values from the expansions, or from big numbers on the scaled
   inputs when an expansion outgrows its buffer. */
typedef struct exact_ctx {
  const dd *s, *v;
  dd R;
  int n;
  const double *pa, *pb, *va, *vb;
  double ra, rb;
  toi_accurate_info *info;
} exact_ctx;

static void big_fallback(const exact_ctx *x, qx_num *c, qx_num *b, qx_num *d) {
  toi_case t = {{0}, x->n, {0}, {0}, x->ra, 1, {0}, {0}, x->rb, 1};
  for (int i = 0; i < x->n; i++) {
    t.pa[i] = x->pa[i];
    t.pb[i] = x->pb[i];
    t.va[i] = x->va[i];
    t.vb[i] = x->vb[i];
  }
  if (x->info) x->info->path |= TOI_ACC_BIG;
  qx_big(&t, x->n, c, b, d);
}

/* A value known exactly as a plain double-double with its error bound. In
   the safe range its exponent brings it back exactly. */
static dd exact_dd(const qx_num *q, double *err) {
  dd r = {scale2(q->hi, q->e), scale2(q->lo, q->e)};
  *err = 0x1p-100 * fabs(r.hi);
  return r;
}

static dd exact_c(const exact_ctx *x, int *sign, double *err) {
  qx_num c, b, d;
  if (qx_c(x->s, x->R, x->n, &c)) big_fallback(x, &c, &b, &d);
  if (x->info) x->info->path |= TOI_ACC_EXACT_C;
  *sign = c.sign;
  return exact_dd(&c, err);
}

static dd exact_b(const exact_ctx *x, int *sign, double *err) {
  qx_num c, b, d;
  if (qx_b(x->s, x->v, x->n, &b)) big_fallback(x, &c, &b, &d);
  if (x->info) x->info->path |= TOI_ACC_EXACT_B;
  *sign = b.sign;
  return exact_dd(&b, err);
}

static dd exact_d(const exact_ctx *x, int *sign, double *err) {
  qx_num c, b, d;
  if (qx_d(x->s, x->v, x->R, x->n, &d)) big_fallback(x, &c, &b, &d);
  if (x->info) x->info->path |= TOI_ACC_EXACT_D;
  *sign = d.sign;
  return exact_dd(&d, err);
}

/* A copy of s, v and R (their first n components) for the calls off the
   common path (the integer and exact values, the scaled path), made there:
   passing the addresses of the common path's own arrays would keep them in
   memory throughout, and make it load them and compute their products
   again after every place where such a call joins it. A value with its
   sign and error bound, returned whole for the same reason. */
typedef struct acc_sv {
  dd s[3], v[3], R;
} acc_sv;

typedef struct acc_val {
  dd x;
  double err;
  int sign;
} acc_val;

TOI_INLINE void sv_fill(acc_sv *x, const dd *s, const dd *v, dd R, const int n) {
  for (int i = 0; i < n; i++) {
    x->s[i] = s[i];
    x->v[i] = v[i];
  }
  x->R = R;
}

enum { ACC_C, ACC_B, ACC_D };

/* fast_body's answer when the slow path must decide (accurate never answers
   TOI_NONE). */
#define ACC_SLOW result(TOI_NONE, NAN)

TOI_INLINE int_c_val int_c_of(const dd *s, const dd *v, dd R, const int n) {
  acc_sv x;
  sv_fill(&x, s, v, R, n);
  return int_c(x.s, x.R, n);
}

TOI_INLINE int int_d_sign_of(const dd *s, const dd *v, dd R, const int n) {
  acc_sv x;
  sv_fill(&x, s, v, R, n);
  return int_d_sign(x.s, x.v, x.R, n);
}

static __attribute__((noinline, cold)) acc_val exact_sv(int which, const acc_sv *sv, int n, const toi_case *cs,
                                                        toi_accurate_info *info) {
  exact_ctx x = {sv->s, sv->v, sv->R, n, cs->pa, cs->pb, cs->va, cs->vb, cs->ra, cs->rb, info};
  acc_val r;
  r.x = which == ACC_C ? exact_c(&x, &r.sign, &r.err)
        : which == ACC_B ? exact_b(&x, &r.sign, &r.err)
                         : exact_d(&x, &r.sign, &r.err);
  return r;
}

TOI_INLINE acc_val exact_of(int which, const dd *s, const dd *v, dd R, const int n, const toi_case *cs,
                            toi_accurate_info *info) {
  acc_sv x;
  sv_fill(&x, s, v, R, n);
  return exact_sv(which, &x, n, cs, info);
}

/* The largest and the smallest nonzero magnitude of a group, on the bits of
   finite inputs (for which the order of the bits of |x| is that of |x|),
   without branches: the smallest is kept as its bits minus one, so that a
   zero wraps to the top and never wins. */
TOI_INLINE void track(double x, uint64_t *mx, uint64_t *mn1) {
  uint64_t a;
  memcpy(&a, &x, sizeof a);
  a &= 0x7fffffffffffffffu;
  *mx = a > *mx ? a : *mx;
  *mn1 = a - 1 < *mn1 ? a - 1 : *mn1;
}

/* The power of two bringing a group's nonzero magnitudes [mn, mx] (as
   tracked) into [2^-SAFE_EXP, 2^SAFE_EXP); returns 0 and sets *k, or -1
   when the spread is too wide. */
static int group_scale(uint64_t mxb, uint64_t mn1, int *k) {
  *k = 0;
  if (mxb == 0) return 0;
  uint64_t mnb = mn1 + 1;
  double mx, mn;
  memcpy(&mx, &mxb, sizeof mx);
  memcpy(&mn, &mnb, sizeof mn);
  if (mx < SAFE_HI && mn >= SAFE_LO) return 0;
  int hi = ilog2d(mx), lo = ilog2d(mn);
  int kk = -(hi + lo) / 2;
  if (hi + kk >= SAFE_EXP || lo + kk < -SAFE_EXP) return -1;
  *k = kk;
  return 0;
}

static void record(toi_accurate_info *info, double *est, double *errp, dd x, double err) {
  if (!info) return;
  est[0] = x.hi;
  est[1] = x.lo;
  *errp = err;
}

/* The inputs times 2^kp (positions, radii) and 2^kv (velocities): exact,
   since group_scale chose kp and kv so that nothing overflows or underflows. */
TOI_INLINE void scale_inputs(const toi_case *cs, int n, int kp, int kv, double spa[3], double spb[3],
                             double sva[3], double svb[3], double *ra, double *rb, toi_accurate_info *info) {
  for (int i = 0; i < n; i++) {
    spa[i] = scale2(cs->pa[i], kp);
    spb[i] = scale2(cs->pb[i], kp);
    sva[i] = scale2(cs->va[i], kv);
    svb[i] = scale2(cs->vb[i], kv);
  }
  *ra = scale2(cs->ra, kp);
  *rb = scale2(cs->rb, kp);
  if (info) {
    info->path |= TOI_ACC_SCALED;
    info->kp = kp;
    info->kv = kv;
  }
}

/* ---- the fast path ---- */

/*
 * A first filter in plain double for the classes that need no root
 * (overlap, static, separating, miss): from the high parts alone of the
 * exact differences s, v, R (each within u = 2^-53 of its value, relative),
 * c, b, a and D are evaluated in double with proven bounds, and a class is
 * given only when every sign it rests on is certain. Otherwise (every hit,
 * every graze or contact, and whatever is too close to call) the
 * double-double filter decides as before. The products are those the
 * double-double filter starts from (the compiler computes them once).
 *
 * Bounds. s_i = sh (1 + d), |d| <= u, so s_i^2 = sh^2 (1 + d)^2, and p =
 * RN(sh^2) = sh^2 (1 + e): |s_i^2 - p| <= 3.01 u p. The sum of the n + 1
 * terms of c (n <= 3) rounds n times: <= 3.01 u M, M the computed sum of
 * the p's and RN(Rh^2). So |cd - c| <= 6.02 u M; we use 8u M. Likewise
 * |s_i v_i - RN(sh vh)| <= 3.01 u |RN(sh vh)|, two additions: |bd - b| <=
 * 5.02 u Mb, Mb the computed sum of |RN(sh vh)|, and |ad - a| <= 5.02 u ad:
 * we use 7u. D = b^2 - a c from them: |b^2 - bd^2| <= (2 |bd| + eb) eb,
 * |a c - ad cd| <= ad ec + (|cd| + ec) ea with ea = 7u ad + ETA, and the
 * three roundings of RN(RN(bd^2) - RN(ad cd)) add <= 2.02 u (bb + |ac|):
 * with bb = RN(bd^2), ac = RN(ad cd), the bound
 *   ed = 1.01 (2.02 u (bb + ac) + (2 |bd| + eb) eb + ad ec + (cd + ec) ea) + ETA.
 * Each bound is a sum of positive terms rounded a few times: the factors
 * 8/6.02, 7/5.02 and 1.01 cover that. No overflow (the differences are
 * below 2^150, checked before); an underflowing operation errs by at most
 * 2^-1075 absolute, and fewer than 40 of them by far less than ETA, added
 * to every bound.
 *
 * The miss test uses a cheaper bound above ed, Md = RN(ps + pr) (ec's sum):
 * ed' = 40 u ad Md + 2^-690. By RN's monotony |bd| <= Mb, cd <= ps <= Md,
 * and Mb^2 <= (1 + 14u) ad Md (Cauchy-Schwarz on the high parts, each
 * product and sum rounded: n <= 3), so, up to absolute terms, bb + ac <=
 * 2.01 ad Md, (2 |bd| + eb) eb <= 14.1 u ad Md, ad ec <= 8.01 u ad Md and
 * (cd + ec) ea <= 7.02 u ad Md: ed <= 1.01 (1 + 9u) 33.2 u ad Md < 33.6 u ad
 * Md, and ed' computed is at least 39.9 u ad Md. The absolute terms (ETA
 * times Mb, ad, cd or ec, and underflows) are each below 2^-697, since
 * every high part is below 2^150 and n <= 3 make Mb, ad, Md < 2^303: their
 * sum stays below 2^-695, under 2^-690 (an underflow in ed' itself loses
 * less than 2^-1070 of it). Where ed' rejects a miss that ed
 * would take, the double-double filter decides the same class.
 * Returns the class, or TOI_NONE when the double-double filter must decide.
 */
TOI_INLINE toi_class quick_class(const dd *s, const dd *v, dd R, int n, int moving) {
  const double u = 0x1p-53;
  double ps = s[0].hi * s[0].hi, pv = v[0].hi * v[0].hi, psv = s[0].hi * v[0].hi, mb = fabs(psv);
  ACC_UNROLL
  for (int i = 1; i < n; i++) {
    ps += s[i].hi * s[i].hi;
    pv += v[i].hi * v[i].hi;
    double q = s[i].hi * v[i].hi;
    psv += q;
    mb += fabs(q);
  }
  double pr = R.hi * R.hi;
  double cd = ps - pr, ec = 8 * u * (ps + pr) + ETA;
  /* |x| > e as x > e or x < -e (e > 0): the common sign tested first. */
  if (!(cd > ec)) return cd < -ec ? TOI_OVERLAP : TOI_NONE;
  if (!moving) return TOI_STATIC;
  double eb = 7 * u * mb + ETA;
  if (!(psv < -eb)) return psv > eb ? TOI_SEPARATING : TOI_NONE;
  double d = psv * psv - pv * cd;
  return d < -(40 * u * (pv * (ps + pr)) + 0x1p-690) ? TOI_MISS : TOI_NONE;
}

/* track() over a case's inputs: lengths (positions and radii) into
   pmax/pmin, speeds into vmax/vmin (the same pair for both gives one range). */
TOI_INLINE void track_case(const toi_case *cs, int n, uint64_t *pmax, uint64_t *pmin, uint64_t *vmax,
                           uint64_t *vmin) {
  for (int i = 0; i < n; i++) {
    track(cs->pa[i], pmax, pmin);
    track(cs->pb[i], pmax, pmin);
    track(cs->va[i], vmax, vmin);
    track(cs->vb[i], vmax, vmin);
  }
  track(cs->ra, pmax, pmin);
  track(cs->rb, pmax, pmin);
}

/* Whether every input is zero or in [2^-SAFE_EXP, 2^SAFE_EXP), the range the
   expansions of quad_exact.c need. Off the common path. */
static __attribute__((noinline)) int safe_inputs(const toi_case *cs, int n) {
  uint64_t mx = 0, mn1 = UINT64_MAX;
  track_case(cs, n, &mx, &mn1, &mx, &mn1);
  /* (all zero: mn1 + 1 wraps to 0, and every input is zero, in range) */
  const uint64_t lo = (uint64_t)(1023 - SAFE_EXP) << 52, hi = (uint64_t)(1023 + SAFE_EXP) << 52;
  return mx < hi && (mn1 + 1 >= lo || mx == 0);
}

/* Whether exact values may be taken from cs (see fast_body). */
TOI_INLINE int safe_for_exact(const toi_case *cs, int n, int safe) {
  return safe > 0 || (safe == 0 && safe_inputs(cs, n));
}

/* The common case from the exact differences s = pB - pA, v = vB - vA and
   R = rA + rB (normalized double-doubles; moving when v != 0), with the
   exact values only where the filter needs them: returns the answer, or
   ACC_SLOW (class TOI_NONE) when the slow path must decide. It gives the
   slow path's answer whenever it answers: the same estimates, bounds and
   root, and it
   requires what makes them valid and accurate without the safe range (no
   overflow: every difference below 2^150; products and remainders in the
   root clear of underflow: c, |b| >= 2^-700 and D >= 2^-900, so that
   t <= 2^1002, and t >= 2^-960 tested). s, v, R are those of the case as
   given (k = 0) or of the case scaled by powers of two (lengths by 2^kp,
   velocities by 2^kv: the inputs, solve_slow, or the differences,
   solve_scaled), with t* 2^k the root of the case as given, orig (k = kv -
   kp); then the root is rounded by scale_round, as the slow path does.
   The exact values come from cs, whose differences s, v, R are: known to
   be in the safe range (safe = 1), checked first (safe = 0), or none
   (safe = -1: s, v, R are scaled differences, and the slow path decides
   where exact values are needed). */
TOI_INLINE toi_result fast_after_c(const dd *s, const dd *v, dd R, const int n, int moving, const toi_case *cs,
                                   int safe, const toi_case *orig, int k, toi_accurate_info *info, dd c,
                                   double ec);

TOI_INLINE toi_result fast_body(const dd *s, const dd *v, dd R, const int n, int moving, const toi_case *cs, int safe,
                                const toi_case *orig, int k, toi_accurate_info *info) {
  /* Where the filter cannot settle a sign or an accuracy, the exact values
     (quad_exact.c) need every input in the safe range: true of inputs
     scaled by solve_slow, checked otherwise, or the slow path scales
     first. */
  if (!info) { /* (explain records the double-double estimates) */
    toi_class q = quick_class(s, v, R, n, moving);
    if (q != TOI_NONE) return result(q, NAN);
  }
  double ec;
  dd c = fast_c(s, R, n, &ec);
  if (info) record(info, info->c_est, &info->c_err, c, ec);
  return fast_after_c(s, v, R, n, moving, cs, safe, orig, k, info, c, ec);
}

/* fast_body from c (fast_c's value c and bound ec) on: the rest of the
   common path, also the batch's continuation (toi_accurate_after_c). */
TOI_INLINE toi_result fast_after_c(const dd *s, const dd *v, dd R, const int n, int moving, const toi_case *cs,
                                   int safe, const toi_case *orig, int k, toi_accurate_info *info, dd c,
                                   double ec) {
  /* The context for the exact values, built only where they are needed (a
     struct filled on every call costs a dozen stores). */
#define EXACT(which) exact_of(which, s, v, R, n, cs, info)
  /* The integer paths too are left to the slow path on scaled differences
     (safe = -1), where they would keep s and v in memory on every call. */
#define INT_C(s, R, n) (safe >= 0 ? int_c_of(s, v, R, n) : (int_c_val){{0, 0}, 0, 0, 0})
  /* The common answer first: c > 0 and b < 0 certain and accurate enough
     for the root at once (c_ok, b_ok). ec <= ACC_REL c.hi, ec >= ETA > 0,
     gives c.hi >= 2^64 ec > RN(1.001 ec): filter_sign's +1, and the later
     test of c's accuracy fails; likewise eb <= ACC_REL (-b.hi) gives
     filter_sign's -1. Otherwise the signs and accuracies are decided as
     before, in the same order. */
  const int c_ok = ec <= ACC_REL * c.hi;
  int sc = 1, c_exact = 0;
  if (__builtin_expect(!c_ok, 0)) {
    sc = filter_sign(c, ec);
    if (sc == 2) {
      int_c_val ic = INT_C(s, R, n);
      if (ic.ok) {
        c = ic.c, ec = ic.err, sc = ic.sign;
        if (info) info->path |= TOI_ACC_INT_C;
      } else {
        if (!safe_for_exact(cs, n, safe)) return ACC_SLOW;
        acc_val x = EXACT(ACC_C);
        c = x.x, ec = x.err, sc = x.sign;
      }
      c_exact = 1;
    }
    if (sc < 0) {
      return result(TOI_OVERLAP, NAN);
    }
  }
  if (!moving) {
    return result(TOI_STATIC, NAN);
  }
  double eb;
  dd b = fast_dot(s, v, n, &eb);
  /* a here on the case's own differences, after the other products on the
     scaled ones: the order the register allocation does best with (the
     same values either way). */
  double ea = 0, ed;
  dd a = {0, 0};
  if (safe >= 0) a = fast_dot(v, v, n, &ea);
  if (info) record(info, info->b_est, &info->b_err, b, eb);
  const int b_ok = eb <= ACC_REL * -b.hi;
  if (__builtin_expect(!(c_ok & b_ok), 0)) {
    int sb = -1, b_exact = 0;
    if (!b_ok) {
      sb = filter_sign(b, eb);
      if (sb == 2) {
        if (!safe_for_exact(cs, n, safe)) return ACC_SLOW;
        acc_val x = EXACT(ACC_B);
        b = x.x, eb = x.err, sb = x.sign;
        b_exact = 1;
      }
    }
    if (sc == 0) {
      return sb < 0 ? result(TOI_CONTACT, 0.0) : result(TOI_SEPARATING, NAN);
    }
    if (sb >= 0) {
      return result(TOI_SEPARATING, NAN);
    }
    /* Approaching from outside: the root needs c and b to ACC_REL. */
    int need_c = !c_exact && ec > ACC_REL * c.hi, need_b = !b_exact && eb > ACC_REL * -b.hi;
    /* c's value in integers first (its sign is already certain). */
    if (need_c) {
      int_c_val ic = INT_C(s, R, n);
      if (ic.ok) {
        c = ic.c, ec = ic.err, need_c = 0;
        if (info) info->path |= TOI_ACC_INT_C;
      }
    }
    if (need_c | need_b) {
      if (!safe_for_exact(cs, n, safe)) return ACC_SLOW;
      if (need_c) {
        acc_val x = EXACT(ACC_C);
        c = x.x, ec = x.err;
      }
      if (need_b) {
        acc_val x = EXACT(ACC_B);
        b = x.x, eb = x.err;
      }
    }
  }
  if (safe < 0) a = fast_dot(v, v, n, &ea);
  dd d = fast_d(a, ea, b, eb, c, ec, &ed);
  if (info) record(info, info->d_est, &info->d_err, d, ed);
  int sd = filter_sign(d, ed);
  double h = sqrt_pos(d.hi);
  /* An unsettled sign is first tried in integers: an exact zero (a graze:
     D is not needed) or negative (a miss) settles the case; a positive D
     still needs its value, from the expansions. */
  if (__builtin_expect(sd == 2, 0) && safe >= 0) {
    int si = int_d_sign_of(s, v, R, n);
    if (si <= 0) {
      sd = si;
      if (info) info->path |= TOI_ACC_INT_D;
    }
  }
  /* sqrt D is within ed / sqrt(d) of its value, which must be within
     ACC_REL of the denominator -b + sqrt D. */
  if (__builtin_expect(sd == 2 || (sd > 0 && ed > ACC_REL * h * (h - b.hi)), 0)) {
    if (!safe_for_exact(cs, n, safe)) return ACC_SLOW;
    acc_val x = EXACT(ACC_D);
    d = x.x, ed = x.err, sd = x.sign;
    h = sqrt_pos(d.hi);
  }
  if (sd < 0) return result(TOI_MISS, NAN);
  if (sd == 0) {
    d = dd_make(0, 0);
    h = 0;
  }
  if (!(c.hi >= 0x1p-700 && b.hi <= -0x1p-700 && (sd == 0 || d.hi >= 0x1p-900))) return ACC_SLOW;
  dd t = root_dd(c, b, d, h);
  if (!(t.hi >= 0x1p-960)) return ACC_SLOW; /* its low part could underflow */
  double y, nb, dist;
  int e;
  if (!k) {
    y = t.hi + t.lo;
    if (maybe_midpoint(t) && near_midpoint(t, 0, y, &nb, &dist) && dist <= root_rel(c, ec, b, eb, ed, h) * t.hi)
      y = tie_break(orig, n, y, nb);
  } else if ((e = ilog2d(t.hi) + k) < -1077) {
    /* t* 2^k < 2^-1076 (1 + 2^-60), below the midpoint 2^-1075 between
       +0 and the least subnormal: +0, without the slow subnormal arithmetic
       of scale_round and near_midpoint. */
    y = 0.0;
  } else {
    int k1 = k / 2;
    /* Where t.hi 2^k is normal (2^e its power of two), it is scale_round's
       answer, computed here in two exact steps: t.hi 2^k1 lies between
       t.hi and t.hi 2^k, both normal, and k1, k - k1 are within the
       exponents of pow2i. Elsewhere scale_round rounds once. */
    y = e >= -1022 && e <= 1022 && k >= -2040 && k <= 2040 ? t.hi * pow2i(k1) * pow2i(k - k1) : scale_round(t, k);
    /* Where t.hi 2^k is normal, scaling by 2^k maps t's grid to y's: the
       bit test on t applies. Not where it is subnormal, y = 2^-1022 (rounded
       up from below) included: the grid there is 2^-1074. */
    int maybe = e < -1022 || !(y >= DBL_MIN && y <= DBL_MAX) || maybe_midpoint(t);
    if (maybe && near_midpoint(t, k, y, &nb, &dist) && dist <= root_rel(c, ec, b, eb, ed, h) * t.hi)
      y = tie_break(orig, n, y, nb);
  }
  return result(sd > 0 ? TOI_HIT : TOI_GRAZE, y);
#undef EXACT
#undef INT_C
}

/* a - b as a double-double: two_sum(a, -b) without the negation, the same
   bits. With bv' = a - s for two_sum's bv = s - a: where s != a, bv' = -bv
   (RN(-x) = -RN(x)), so s + bv' is s - bv and bv' - b is -b - bv with its
   terms swapped, the same operations; where s = a, bv = bv' = +0 and every
   operation is the same but s + (+0) for s - (+0), which differ only for
   s = a = -0, b = +0, where both give +0 in the end (also checked on every
   pair of special values and 2 10^8 random pairs). */
TOI_INLINE dd two_diff(double a, double b) {
  double s = a - b;
  double bv = a - s;
  double av = s + bv;
  dd r = {s, (a - av) + (bv - b)};
  return r;
}

/* The differences of a case, their largest magnitudes (lengths: R too) and
   whether it moves. */
TOI_INLINE void diffs(const toi_case *cs, const int n, dd *s, dd *v, dd *R, double *ms, double *mv, int *moving) {
  double as_ = 0, av_ = 0;
  uint64_t mo = 0; /* the bits of the v[i].hi without their signs: nonzero iff one is not +-0 (NaN too) */
  ACC_UNROLL
  for (int i = 0; i < n; i++) {
    s[i] = two_diff(cs->pb[i], cs->pa[i]);
    v[i] = two_diff(cs->vb[i], cs->va[i]);
    double as = fabs(s[i].hi), av = fabs(v[i].hi);
    as_ = as > as_ ? as : as_;
    av_ = av > av_ ? av : av_;
    uint64_t bits;
    memcpy(&bits, &v[i].hi, sizeof bits);
    mo |= bits << 1;
  }
  *R = two_sum(cs->ra, cs->rb);
  *ms = R->hi > as_ ? R->hi : as_;
  *mv = av_;
  *moving = mo != 0;
}

/* Whether the differences are in the common path's range: below 2^150 (no
   overflow), and, lengths and velocities, not below lo: tiny ones would
   make the products subnormal, which the hardware does slowly (each vector
   operation with a subnormal operand or result, about as long as a whole
   case); scaled, they are common cases (solve_scaled, solve_slow). The
   lower bound is not needed for correctness: every path gives the
   correctly rounded root and the exact class, so it only chooses the
   path. On a case's own differences (solve_common) lo is 2^-150, the safe
   range's bottom: with the largest length and speed at least 2^-150, the
   largest terms of c, b and a are at least 2^-300, those of D 2^-600 and
   their low parts about 2^-706, far above the subnormals, where 2^-300
   let D's terms fall to 2^-1200 (the scale family between 2^-300
   and 2^-200: about three times the cost of a case). On the inputs
   solve_slow has scaled (solve_fast), 2^-300 as before. */
TOI_INLINE int common_range(double ms, double mv, int moving, double lo) {
  return ms < SAFE_HI && mv < SAFE_HI && ms >= lo && (!moving || mv >= lo);
}

/* The common path on a case's own inputs (k = 0, cs = orig) or on its
   inputs scaled by solve_slow (k = kv - kp, inputs in the safe range). */
TOI_INLINE toi_result solve_fast(const toi_case *cs, const int n, const toi_case *orig, int k,
                                 toi_accurate_info *info) {
  dd s[3], v[3], R;
  double ms, mv;
  int moving;
  diffs(cs, n, s, v, &R, &ms, &mv, &moving);
  if (!common_range(ms, mv, moving, 0x1p-300)) return ACC_SLOW;
  return fast_body(s, v, R, n, moving, cs, k ? 1 : 0, orig, k, info);
}

/* Every case the fast path leaves: inputs scaled into the safe range (or big
   numbers throughout when impossible), the same filter, and the exact
   fallback wherever the filter cannot settle a sign or an accuracy. */
TOI_FMA_CLONES static toi_result solve_slow(const toi_case *cs, int n, toi_accurate_info *info) {
  uint64_t pmax = 0, pmin = UINT64_MAX, vmax = 0, vmin = UINT64_MAX;
  track_case(cs, n, &pmax, &pmin, &vmax, &vmin);
  int kp, kv;
  if (group_scale(pmax, pmin, &kp) || group_scale(vmax, vmin, &kv)) return solve_wide(cs, n, info);

  toi_case scaled; /* the scaled inputs, when scaled */
  double ra = cs->ra, rb = cs->rb;
  const double *pa = cs->pa, *pb = cs->pb, *va = cs->va, *vb = cs->vb;
  if (kp || kv) {
    scaled.dim = cs->dim;
    scale_inputs(cs, n, kp, kv, scaled.pa, scaled.pb, scaled.va, scaled.vb, &ra, &rb, info);
    scaled.ra = ra;
    scaled.rb = rb;
    /* Scaled, most cases left here are common ones too: those that
       solve_scaled could not take because exact values were needed. */
    toi_result r = n == 3 ? solve_fast(&scaled, 3, cs, kv - kp, info) : solve_fast(&scaled, 2, cs, kv - kp, info);
    if (r.cls != TOI_NONE) return r;
    pa = scaled.pa;
    pb = scaled.pb;
    va = scaled.va;
    vb = scaled.vb;
  }

  dd s[3], v[3];
  int moving = 0;
  for (int i = 0; i < n; i++) {
    s[i] = two_sum(pb[i], -pa[i]);
    v[i] = two_sum(vb[i], -va[i]);
    moving |= v[i].hi != 0; /* a difference rounds to zero only when it is zero */
  }
  dd R = two_sum(ra, rb);
  exact_ctx x = {s, v, R, n, pa, pb, va, vb, ra, rb, info};

  double ec;
  dd c = fast_c(s, R, n, &ec);
  if (info) record(info, info->c_est, &info->c_err, c, ec);
  int sc = filter_sign(c, ec), c_exact = 0;
  if (sc == 2) {
    c = exact_c(&x, &sc, &ec);
    c_exact = 1;
  }
  if (sc < 0) return result(TOI_OVERLAP, NAN);
  if (!moving) return result(TOI_STATIC, NAN);

  double eb;
  dd b = fast_dot(s, v, n, &eb);
  if (info) record(info, info->b_est, &info->b_err, b, eb);
  int sb = filter_sign(b, eb), b_exact = 0;
  if (sb == 2) {
    b = exact_b(&x, &sb, &eb);
    b_exact = 1;
  }
  if (sc == 0) return sb < 0 ? result(TOI_CONTACT, 0.0) : result(TOI_SEPARATING, NAN);
  if (sb >= 0) return result(TOI_SEPARATING, NAN);

  /* Approaching from outside: the root needs c and b to ACC_REL. */
  int ignored;
  if (!c_exact && ec > ACC_REL * c.hi) c = exact_c(&x, &ignored, &ec);
  if (!b_exact && eb > ACC_REL * -b.hi) b = exact_b(&x, &ignored, &eb);
  double ea, ed;
  dd a = fast_dot(v, v, n, &ea);
  dd d = fast_d(a, ea, b, eb, c, ec, &ed);
  if (info) record(info, info->d_est, &info->d_err, d, ed);
  int sd = filter_sign(d, ed);
  /* sqrt D is within ed / sqrt(d) of its value, which must be within
     ACC_REL of the denominator -b + sqrt D. */
  if (sd == 2 || (sd > 0 && ed > ACC_REL * sqrt_pos(d.hi) * (sqrt_pos(d.hi) - b.hi))) d = exact_d(&x, &sd, &ed);
  if (sd < 0) return result(TOI_MISS, NAN);
  double h = sd > 0 ? sqrt_pos(d.hi) : 0;
  dd t = root_dd(c, b, sd > 0 ? d : dd_make(0, 0), h);
  int k = kv - kp;
  double y = k ? scale_round(t, k) : t.hi + t.lo, nb, dist;
  if (near_midpoint(t, k, y, &nb, &dist) && dist <= root_rel(c, ec, b, eb, ed, h) * t.hi)
    y = tie_break(cs, n, y, nb);
  return result(sd > 0 ? TOI_HIT : TOI_GRAZE, y);
}

static void info_reset(toi_accurate_info *info) {
  info->kp = info->kv = 0;
  info->c_est[0] = info->c_est[1] = info->c_err = NAN;
  info->b_est[0] = info->b_est[1] = info->b_err = NAN;
  info->d_est[0] = info->d_est[1] = info->d_err = NAN;
}

/* The smallest nonzero magnitude of some doubles, kept as its bits minus
   one (track). */
TOI_INLINE void track_min(double x, uint64_t *mn1) {
  uint64_t mx = 0;
  track(x, &mx, mn1);
}

/*
 * Step 4's scaling applied to the differences instead of the inputs, for
 * the cases whose differences lie outside the common path's range (the
 * scale family: nearly all of them), without computing them again: s and
 * R times 2^kp, v times 2^kv, the largest of each group brought into
 * [1, 2). Each part (hi and lo) of each difference is multiplied by a
 * power of two, which is exact when the product is normal or the factor is
 * at least 1 and nothing overflows: for kp >= 0 every nonzero part is at
 * most the largest, so at most 2 once scaled; for kp < 0 the smallest
 * nonzero part is checked to be at least 2^(-1022 - kp), and likewise kv.
 * The scaled parts are then the normalized differences of the case with
 * its lengths times 2^kp and its velocities times 2^kv, whose root is
 * t* 2^(kp - kv), and fast_body solves it with k = kv - kp as it does the
 * inputs scaled by solve_slow. It has no inputs with these differences for
 * the exact values: where it would need them, the slow path decides. Cases
 * that no such scaling serves (a group spread over more than about 2^1000,
 * differences that overflow) go to the slow path too.
 */
TOI_INLINE toi_result scaled_body(const dd *s, const dd *v, dd R, const int n, int moving, double ms, double mv,
                                  const toi_case *cs, toi_accurate_info *info) {
  if (!(ms > 0 && ms < INFINITY && mv < INFINITY)) return ACC_SLOW;
  int kp = -ilog2d(ms), kv = moving ? -ilog2d(mv) : 0;
  if (kp < -1022 || kp > 1023 || kv < -1022 || kv > 1023) return ACC_SLOW;
  /* The bits of 2^(-1022 - k) for k < 0: exponent field 1 - k. */
  if (kp < 0) {
    uint64_t pmin = UINT64_MAX;
    ACC_UNROLL
    for (int i = 0; i < n; i++) {
      track_min(s[i].hi, &pmin);
      track_min(s[i].lo, &pmin);
    }
    track_min(R.hi, &pmin);
    track_min(R.lo, &pmin);
    if (pmin + 1 < (uint64_t)(1 - kp) << 52) return ACC_SLOW;
  }
  if (kv < 0) {
    uint64_t vmin = UINT64_MAX;
    ACC_UNROLL
    for (int i = 0; i < n; i++) {
      track_min(v[i].hi, &vmin);
      track_min(v[i].lo, &vmin);
    }
    if (vmin + 1 < (uint64_t)(1 - kv) << 52) return ACC_SLOW;
  }
  double P = pow2i(kp), V = pow2i(kv);
  dd ss[3], sv[3], sR = {R.hi * P, R.lo * P};
  ACC_UNROLL
  for (int i = 0; i < n; i++) {
    ss[i] = dd_make(s[i].hi * P, s[i].lo * P);
    sv[i] = dd_make(v[i].hi * V, v[i].lo * V);
  }
  if (info) { /* the estimates recorded are the scaled problem's */
    info->kp = kp;
    info->kv = kv;
  }
  toi_result r = fast_body(ss, sv, sR, n, moving, cs, -1, cs, kv - kp, info);
  if (r.cls != TOI_NONE && info) info->path |= TOI_ACC_SCALED;
  return r;
}

/* Out of line: nearly all of the scale family, a few percent of mixed. */
TOI_FMA_CLONES static __attribute__((noinline)) toi_result solve_scaled(const acc_sv *x, int n, int moving,
                                                                        double ms, double mv, const toi_case *cs,
                                                                        toi_accurate_info *info) {
  return n == 3 ? scaled_body(x->s, x->v, x->R, 3, moving, ms, mv, cs, info)
                : scaled_body(x->s, x->v, x->R, 2, moving, ms, mv, cs, info);
}

/* The common path on the case as given, or on its scaled differences when
   they are out of its range (solve_scaled). */
TOI_INLINE toi_result solve_common(const toi_case *cs, const int n, toi_accurate_info *info) {
  dd s[3], v[3], R;
  double ms, mv;
  int moving;
  diffs(cs, n, s, v, &R, &ms, &mv, &moving);
  if (__builtin_expect(!common_range(ms, mv, moving, SAFE_LO), 0)) {
    acc_sv x;
    sv_fill(&x, s, v, R, n);
    return solve_scaled(&x, n, moving, ms, mv, cs, info);
  }
  return fast_body(s, v, R, n, moving, cs, 0, cs, 0, info);
}

TOI_INLINE toi_result solve(const toi_case *cs, toi_accurate_info *info) {
  toi_result r = cs->dim == 3 ? solve_common(cs, 3, info) : solve_common(cs, 2, info);
  if (r.cls != TOI_NONE) return r;
  if (info) {
    info_reset(info); /* the slow path records its own (possibly scaled) estimates */
    info->path |= TOI_ACC_SLOW;
  }
  return solve_slow(cs, toi_components(cs), info);
}

TOI_FMA_CLONES toi_result toi_accurate_explain(const toi_case *c, toi_accurate_info *info) {
  if (info) {
    info->path = 0;
    info_reset(info);
  }
  return solve(c, info);
}

/* The two dimensions in functions of their own: each gets its own register
   allocation and frame, without the other's. */
TOI_INLINE toi_result solve_dim(const toi_case *cs, const int n) {
  toi_result r = solve_common(cs, n, NULL);
  if (r.cls != TOI_NONE) return r;
  return solve_slow(cs, n, NULL);
}

TOI_FMA_CLONES static __attribute__((noinline)) toi_result solve2(const toi_case *cs) { return solve_dim(cs, 2); }
TOI_FMA_CLONES static __attribute__((noinline)) toi_result solve3(const toi_case *cs) { return solve_dim(cs, 3); }

TOI_FMA_CLONES toi_result toi_f_accurate(const toi_case *c) { return c->dim == 3 ? solve3(c) : solve2(c); }

/* The batch's continuation (accurate_lanes.inl): a case of the common
   range (k = 0) that quick_class left, from its differences and c's value
   and bound as fast_c gives them (the lanes make the same operations), on
   to the answer as solve_dim gives it, without computing them again. */
TOI_INLINE toi_result after_c_dim(const toi_case *cs, const double *st, int w, int moving, const int n) {
  dd s[3], v[3];
  for (int i = 0; i < n; i++) {
    s[i] = dd_make(st[(ACC_ST_SHI + i) * w], st[(ACC_ST_SLO + i) * w]);
    v[i] = dd_make(st[(ACC_ST_VHI + i) * w], st[(ACC_ST_VLO + i) * w]);
  }
  toi_result r = fast_after_c(s, v, dd_make(st[ACC_ST_RHI * w], st[ACC_ST_RLO * w]), n, moving, cs, 0, cs, 0, NULL,
                              dd_make(st[ACC_ST_CHI * w], st[ACC_ST_CLO * w]), st[ACC_ST_EC * w]);
  if (r.cls != TOI_NONE) return r;
  return solve_slow(cs, n, NULL);
}

TOI_FMA_CLONES static __attribute__((noinline)) toi_result after_c2(const toi_case *cs, const double *st, int w,
                                                                    int moving) {
  return after_c_dim(cs, st, w, moving, 2);
}
TOI_FMA_CLONES static __attribute__((noinline)) toi_result after_c3(const toi_case *cs, const double *st, int w,
                                                                    int moving) {
  return after_c_dim(cs, st, w, moving, 3);
}

toi_result toi_accurate_after_c(const toi_case *cs, const double *st, int w, int moving) {
  return cs->dim == 3 ? after_c3(cs, st, w, moving) : after_c2(cs, st, w, moving);
}
