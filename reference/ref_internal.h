/* ref_internal.h: private state and helpers shared by the files of the certified reference. */
#ifndef REF_INTERNAL_H
#define REF_INTERNAL_H

#include <gmp.h>
#include <math.h>
#include <mpfr.h>
#include <stdint.h>
#include <string.h>
#include "toiref.h"

/// Scratch floats per thread; ref_kappa.c uses the most (f[0..8]).
#define REF_NF 9

/// Per-thread working state. The exact data are integers: with ep the
/// smallest binary exponent among the nonzero lengths (positions, radii,
/// delta) and ev the smallest among the nonzero velocities,
/// s = S 2^ep, R = Rr 2^ep, v = V 2^ev, so that a = A 2^(2ev),
/// b = B 2^(ep+ev), c = C 2^(2ep), D = (B^2 - A C) 2^(2ep+2ev) and the roots
/// are (-B -+ sqrt D)/A 2^(ep-ev). Signs, classes and the rationality of the
/// roots are those of the integers.
typedef struct ref_ctx {
  mpz_t s[3], v[3], R;  ///< S, V, Rr
  mpz_t A, B, C, D;     ///< the integer quadratic and its discriminant
  mpz_t Q;              ///< sqrt(D) when D is a perfect square
  mpz_t z[4];           ///< integer scratch
  mpq_t q[2];           ///< rational scratch (ref_error.c)
  mpfr_t f[REF_NF];     ///< float scratch, precision set by each user
  long ep, ev;          ///< the two scale exponents
  int n;                ///< number of components, 2 or 3
  toi_class cls;        ///< exact class
  int has_roots;        ///< A > 0 and D >= 0
  int rational;         ///< has_roots and D is a perfect square (Q valid)
} ref_ctx;

/// The calling thread's state, created on first use and freed when the
/// thread exits; NULL when out of memory.
ref_ctx *ref_ctx_get(void);

/// MPFR exponent range and flags of the caller, saved on entry to a public
/// function and restored on exit so that the reference leaves no trace.
typedef struct ref_env {
  mpfr_exp_t emin, emax;
  mpfr_flags_t flags;
  int widened;
} ref_env;
void ref_env_enter(ref_env *env);
void ref_env_leave(const ref_env *env);

/// Checks a case (dim, finite fields, radii >= 0, zero third components in
/// 2D); TOI_OK or TOI_ERR_INPUT.
toi_status ref_check_case(const toi_case *c);

/// Loads a checked case exactly into x and decides its class; delta (NULL
/// for none) is added to R. TOI_ERR_RANGE when R + delta < 0.
toi_status ref_load(ref_ctx *x, const toi_case *c, const double *delta);

/// Fills out from a loaded x: class, correctly rounded roots, directions.
void ref_solve_loaded(ref_ctx *x, toi_ref *out);

/// Which root answers direction dir: 1 the lower, 0 the upper, -1 none.
int ref_dir_root(const toi_ref *r, toi_direction dir);

/// For a root of a case with has_roots and |B| + sqrt(D) > 0 (every
/// irrational root; kappa also uses it on rational ones): an approximation t of the
/// lower (lo = 1) or upper root, in real units, at precision p >= 64, with
/// |t - t*| < 2^(EXP(t) + 4 - p). Uses f[0..3]; t may be f[4] or above.
void ref_root_approx(ref_ctx *x, int lo, mpfr_ptr t, mpfr_prec_t p);

/// For a rational root: t* = num / den 2^e2 exactly, den > 0.
void ref_root_rational(ref_ctx *x, int lo, mpz_ptr num, mpz_ptr den, long *e2);

/// Precision whose error bound ref_root_approx meets, for mpfr_can_round.
#define REF_ERR_BITS(p) ((mpfr_exp_t)(p) - 5)

/// The whole of toi_ref_solve_target (delta != NULL) or toi_ref_solve with
/// the GMP/MPFR engine (ref_solve.c), and with the fast engine (ref_fast.c).
toi_status ref_solve_mpfr(toi_ref *out, const toi_case *c, const double *delta);
toi_status ref_solve_fast(toi_ref *out, const toi_case *c, const double *delta);
/// ref_solve_fast without a target, for a case whose first stage (ref_fast_quick
/// or the batch's) has already declined it: the double-double stage, then MPFR.
toi_status ref_solve_fast_rest(toi_ref *out, const toi_case *c);
/// The batch's first stage (ref_fast_batch_kernel.h) on 4 or 8 cases at once,
/// for CPUs with AVX2 and FMA, or AVX-512: bit j of the result set when case j
/// was answered into out[j]; bit j of *signs when it was declined where
/// ref_fast_quick would decline it too. The cases must pass the plain checks
/// of ref_solve_fast (dimension, radii, zero third components in 2D).
int ref_fast_batch4(toi_ref *out, const toi_case *c, int *signs, int *later);
int ref_fast_batch8(toi_ref *out, const toi_case *c, int *signs, int *later);
/// The same on the cases *c[j] into *out[j], with the second Newton step and
/// the rounding of subnormal and overflowing roots (bit j of *later in the
/// first form: gathered for this one).
int ref_fast_batch4_full(toi_ref *const *out, const toi_case *const *c, int *signs);
int ref_fast_batch8_full(toi_ref *const *out, const toi_case *const *c, int *signs);
/// The usual path of the double-double stage (fast_try) on the cases
/// *c[0..3] or *c[0..7], for cases the first stage declined: bit j of the
/// result set when *c[j] was answered into *out[j]; bit j of *c3 when c was
/// computed to 2^-145 for it (near contact).
int ref_fast_batch4_dd(toi_ref *const *out, const toi_case *const *c, int *c3);
int ref_fast_batch8_dd(toi_ref *const *out, const toi_case *const *c, int *c3);
/// Caps the batch's vector width: 8, 4 or 0 lanes (0: one case at a time
/// through ref_solve_fast), -1 the widest this CPU runs; a width the CPU
/// lacks gives the widest it has. Returns the width now in use. Process-wide,
/// for tests and benchmarks; not for use while solving threads run.
int ref_fast_batch_use(int w);
/// The batch's vector width in use now (0 without the FMA build).
int ref_fast_batch_width(void);
/// Counts cases answered outside ref_solve_fast (by the batch): quick by
/// its first stage, dd by its double-double stage, exact of those dd with c
/// to 2^-145 (fast_c3).
void ref_fast_count(unsigned long long quick, unsigned long long dd, unsigned long long exact);

/// The fast engine's first stage (ref_fast_quick.c), FMA build only: for a
/// plausible case (fast_plausible in ref_fast.c) without a target distance,
/// 1 when it answered alone (out then holds toi_ref_solve's answer), 0 when
/// the case must go on to the double-double stage (out untouched: the
/// caller has cleared it). Always 0 where there is no FMA build.
int ref_fast_quick(toi_ref *out, const toi_case *c);

/// For tests: run the fast engine's build without FMA (on = 0), with it
/// (on = 1, only where the processor has one), or choose by the processor
/// (on = -1, the default). Returns 1 when the FMA build is in use after the
/// call. Process-wide; not for concurrent use with solving threads.
int ref_fast_use_fma(int on);

/* ---- the fast engine's double-double kit (ref_fast.c, ref_fast_err.c) ----
 * u = 2^-53. An "error" is an absolute bound on the distance to the exact
 * real, proved in the comment beside the code that computes it. */

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

/// What the fast engine proved about a case, for the fast paths of
/// toi_ref_error and toi_ref_kappa (ref_fast_err.c). The data are scaled as
/// in ref_fast.c: lengths by 2^-es, velocities by 2^-ev, so times by 2^-k2
/// with k2 = es - ev; 2D cases in the 3D layout with zero third components.
typedef struct ref_fast_state {
  toi_ref r;          ///< the answer, bit for bit what toi_ref_solve gives
  fdd s[4];           ///< s = pB - pA (s[0..2]) and R (s[3]), scaled, as double-doubles
  fdd v[3];           ///< v = vB - vA, scaled
  int es, ev, k2;     ///< the scales
  int exact_data;     ///< s, R, v are the exact scaled data, every nonzero component in [2^-480, 2^65]
  int sb, sc;         ///< the exact signs of b and c
  fdd A;              ///< a = v.v, |A - a| <= Ea
  double Ea;
  int roots;          ///< a > 0 and D >= 0: t and Et below are valid
  int graze;          ///< D = 0 exactly: one double root
  fdd t[2];           ///< the lower (0) and upper (1) roots, scaled: |t[j] - t*_j 2^-k2| <= Et[j]
  double Et[2];       ///< 0 for the exact root 0 of a touching pair; else <= 2^-60 |t[j].h|
  fdd D;              ///< D when the roots came from step 4 of ref_fast.c (c != 0, D > 0),
  double ED;          ///< |D - D*| <= ED; unset otherwise
} ref_fast_state;

/// Runs the fast engine on a case (no target distance) and keeps its state.
/// 1 when it answered alone (then fs->r is toi_ref_solve's answer); 0 when
/// it would hand the case to the MPFR engine or the case is invalid (fs is
/// then unspecified). Does not touch the toi_ref_fast_stats counters.
int ref_fast_prepare(ref_fast_state *fs, const toi_case *c);

/// The exact expansions (ref_fast.c: nonoverlapping, increasing magnitude)
/// of a = v.v, b = s.v and c = s.s - R^2 of a prepared state whose data are
/// exact (fs->exact_data), each in at most 32 doubles. 0 when not exact_data.
int ref_fast_expand(const ref_fast_state *fs, double *xa, int *ma, double *xb, int *mb, double *xc, int *mc);

/// 1 when the fast engine runs its FMA build now, else 0.
int ref_fast_fma(void);

/// The fast paths of toi_ref_error and toi_ref_kappa (ref_fast_err.c), on a
/// checked case with the fast engine selected: 1 when they answered (exactly
/// what the GMP/MPFR paths of ref_error.c and ref_kappa.c would answer), 0
/// when the caller must ask those.
int ref_fast_error(double *ulp, double *bits, double T, const toi_case *c, toi_direction dir);
int ref_fast_kappa(double *kappa, const toi_case *c, toi_direction dir);

/// How often the fast paths of toi_ref_error and toi_ref_kappa were asked
/// and how often they left the answer to MPFR, counted per thread (for tests
/// and measurements; toi_ref_fast_stats counts toi_ref_solve alone).
typedef struct ref_fast_err_counts {
  unsigned long long error_calls, error_fb, kappa_calls, kappa_fb;
} ref_fast_err_counts;
void ref_fast_err_counts_get(ref_fast_err_counts *out);
void ref_fast_err_counts_reset(void);

/// A bound on the relative error of the 128-bit kappa of ref_kappa.c before
/// its rounding to double (proved there).
#define REF_KAPPA_REL_ERR 0x1p-120

/// log2(1 + |ord(a) - ord(b)|), ord the position in the ordered doubles.
double ref_bits_apart(double a, double b);

/* A toi_ref with no class and no root, the state every solver starts from. */
static inline void ref_clear(toi_ref *out, toi_class cls) {
  out->cls = cls;
  out->tlo = out->thi = out->tfwd = out->trev = NAN;
  out->fwd_is_lo = out->rev_is_lo = -1;
}

/* The exact class from the signs of a, b, c and D, in toiref.h's order. */
static inline toi_class ref_classify(int sa, int sb, int sc, int sd) {
  if (sc < 0) return TOI_OVERLAP;
  if (sa == 0) return TOI_STATIC;
  if (sc == 0) return sb < 0 ? TOI_CONTACT : TOI_SEPARATING;
  if (sb >= 0) return TOI_SEPARATING;
  return sd < 0 ? TOI_MISS : sd == 0 ? TOI_GRAZE : TOI_HIT;
}

/* Which root answers each direction, from the exact signs of B and C alone
 * (product of the roots C/A, sum -2B/A; a root is 0 iff C = 0), then tfwd and
 * trev from tlo and thi. Only for a case with roots. */
static inline void ref_set_dirs(toi_ref *out, int sb, int sc) {
  if (sc < 0) { /* lower < 0 < upper */
    out->fwd_is_lo = 0;
    out->rev_is_lo = 1;
  } else if (sc == 0) { /* a root at 0; with B = 0 a double root: lower forward, upper backward */
    out->fwd_is_lo = sb <= 0;
    out->rev_is_lo = sb < 0;
  } else if (sb < 0) { /* 0 < lower <= upper */
    out->fwd_is_lo = 1;
  } else { /* lower <= upper < 0 (B = 0 with C > 0 has D < 0, no roots) */
    out->rev_is_lo = 0;
  }
  if (out->fwd_is_lo >= 0) out->tfwd = out->fwd_is_lo ? out->tlo : out->thi;
  if (out->rev_is_lo >= 0) out->trev = out->rev_is_lo ? out->tlo : out->thi;
}

#endif
