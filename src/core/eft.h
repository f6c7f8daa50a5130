/* eft.h: error-free transformations, double-double helpers and exact power-of-two scaling (private). */
#ifndef TOI_EFT_H
#define TOI_EFT_H

#include <math.h>
#include <stdint.h>
#include <string.h>

/* Everything here relies on IEEE binary64 with round to nearest and on the
   build's -ffp-contract=off: the compiler must not fuse the products of
   two_sum or of the split in two_prod's error term, or the transformations
   stop being exact. fma() is called explicitly where a fused operation is
   wanted; glibc's fma is exact with or without hardware FMA. */

/* A kernel that calls fma() gets, on x86-64 ELF systems with GCC or Clang, a
   second copy compiled for FMA hardware and chosen at load time (ifunc).
   glibc's fma is exact too, so both copies return identical bits; the copy
   only saves the library call, which costs more than the arithmetic because
   every live xmm register must be spilled around it. No -march flag is
   involved and -ffp-contract=off still forbids fusing anything else. */
#ifndef TOI_FMA_CLONES /* -DTOI_FMA_CLONES= builds a single copy (for comparisons) */
/* Clang 14 emits only NAME.ifunc for a cloned function defined in one unit
   and called from another, never NAME itself, so the link fails: one copy there. */
#if defined(__clang__) && __clang_major__ <= 14
#define TOI_FMA_CLONES
#elif defined(__x86_64__) && defined(__ELF__) && defined(__GNUC__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define TOI_FMA_CLONES __attribute__((target_clones("fma", "default")))
#endif
#endif
#endif
#ifndef TOI_FMA_CLONES
#define TOI_FMA_CLONES
#endif

/* Forces inlining of helpers into the cloned kernels (an out-of-line helper
   would be compiled for the default target only). */
#if defined(__GNUC__)
#define TOI_INLINE static inline __attribute__((always_inline))
#else
#define TOI_INLINE static inline
#endif

/// An unevaluated sum hi + lo; "normalized" when |lo| <= ulp(hi)/2.
typedef struct dd {
  double hi, lo;
} dd;

TOI_INLINE dd dd_make(double hi, double lo) {
  dd r = {hi, lo};
  return r;
}

/* Knuth's TwoSum: hi = RN(a + b) and hi + lo = a + b exactly, for any finite
   a, b whose sum does not overflow (no ordering needed, underflow harmless). */
TOI_INLINE dd two_sum(double a, double b) {
  double s = a + b;
  double bv = s - a;
  double av = s - bv;
  dd r = {s, (a - av) + (b - bv)};
  return r;
}

/* Dekker's FastTwoSum: exact like two_sum when a == 0 or |a| >= |b|. */
TOI_INLINE dd fast_two_sum(double a, double b) {
  double s = a + b;
  dd r = {s, b - (s - a)};
  return r;
}

/* hi = RN(a b) and hi + lo = a b exactly, provided the error a b - hi is
   representable: true when a b neither overflows nor falls below about
   2^-969 (the kernels scale their inputs so that it never does). */
TOI_INLINE dd two_prod(double a, double b) {
  double p = a * b;
  dd r = {p, fma(a, b, -p)};
  return r;
}

/* x + y for double-doubles of the same sign: one TwoSum, no cancellation to
   guard against, relative error below 3 u^2 < 2^-104. */
TOI_INLINE dd dd_add_same_sign(dd x, dd y) {
  dd s = two_sum(x.hi, y.hi);
  return fast_two_sum(s.hi, s.lo + (x.lo + y.lo));
}

/* sqrt(x) for x > 0 normalized: h = RN(sqrt(x.hi)) leaves the exact remainder
   x.hi - h^2 (an fma gives it exactly), and one correction step gives a
   relative error below 2^-102. */
TOI_INLINE dd dd_sqrt(dd x) {
  double h = sqrt(x.hi);
  double r = fma(-h, h, x.hi);
  return fast_two_sum(h, (r + x.lo) / (2 * h));
}

/* x / y for normalized x, y != 0: q1 = RN(x.hi / y.hi), the remainder
   x - q1 y evaluated with an exact product, and one correction; relative
   error below 2^-101 when nothing underflows. */
TOI_INLINE dd dd_div(dd x, dd y) {
  double q1 = x.hi / y.hi;
  dd p = two_prod(q1, y.hi);
  double r = ((x.hi - p.hi) - p.lo) + x.lo - q1 * y.lo;
  return fast_two_sum(q1, r / y.hi);
}

/* 2^k for -1022 <= k <= 1023, built from its bits (no libm call). */
TOI_INLINE double pow2i(int k) {
  uint64_t bits = (uint64_t)(k + 1023) << 52;
  double x;
  memcpy(&x, &bits, sizeof x);
  return x;
}

/* floor(log2 |x|) for finite x != 0, subnormals included. */
TOI_INLINE int ilog2d(double x) {
  uint64_t bits;
  memcpy(&bits, &x, sizeof bits);
  int e = (int)((bits >> 52) & 0x7ff);
  if (e) return e - 1023;
  double y = x * 0x1p64; /* a subnormal times 2^64 is normal and exact */
  memcpy(&bits, &y, sizeof bits);
  return (int)((bits >> 52) & 0x7ff) - 1023 - 64;
}

/* RN(x 2^k) for any finite x and int k, with a single rounding: exact when
   the result is a normal double, correctly rounded into the subnormal range
   (x is first brought exactly to the bottom of the normal range, so the one
   inexact multiplication is the last), +-0 or +-Inf beyond the range. */
TOI_INLINE double scale2(double x, int k) {
  if (k >= -1022 && k <= 1023) return x * pow2i(k);
  if (x == 0) return x;
  if (k > 0) {
    while (k > 1023) {
      x *= 0x1p1023;
      k -= 1023;
    }
    return x * pow2i(k);
  }
  int e = ilog2d(x);
  if (e + k >= -1022) { /* a normal result: every step is exact */
    while (k < -1022) {
      x *= 0x1p-1022;
      k += 1022;
    }
    return x * pow2i(k);
  }
  int j = -1022 - e; /* x 2^j in [2^-1022, 2^-1021): normal, exact */
  k -= j;            /* k < 0 now */
  while (j > 1023) {
    x *= 0x1p1023;
    j -= 1023;
  }
  while (j < -1022) {
    x *= 0x1p-1022;
    j += 1022;
  }
  x *= pow2i(j);
  if (k < -1022) return x * 0.0; /* below 2^-2044: rounds to a signed zero */
  return x * pow2i(k);
}

/* s += x, accumulated: hi takes RN(hi + x) and the TwoSum error joins lo
   (no renormalisation, so lo collects every error of a long sum). */
TOI_INLINE void dd_accum(dd *s, double x) {
  dd t = two_sum(s->hi, x);
  s->hi = t.hi;
  s->lo += t.lo;
}

/* s += a b, accumulated: the exact product a b (two_prod) enters as
   dd_accum(hi) and then its error term into lo. */
TOI_INLINE void dd_accum_prod(dd *s, double a, double b) {
  dd p = two_prod(a, b);
  dd_accum(s, p.hi);
  s->lo += p.lo;
}

/* General double-double helpers (the gap of a returned time: score.c). */

/* x + y for double-doubles of any signs: (s.lo + x.lo) + y.lo in that order. */
TOI_INLINE dd dd_add_dd(dd x, dd y) {
  dd s = two_sum(x.hi, y.hi);
  return fast_two_sum(s.hi, s.lo + x.lo + y.lo);
}

/* x d for a double-double x and a double d. */
TOI_INLINE dd dd_mul_d(dd x, double d) {
  double p = x.hi * d;
  double e = fma(x.hi, d, -p) + x.lo * d;
  return fast_two_sum(p, e);
}

/* x^2 for a double-double x. */
TOI_INLINE dd dd_sqr(dd x) {
  double p = x.hi * x.hi;
  double e = fma(x.hi, x.hi, -p) + 2 * x.hi * x.lo;
  return fast_two_sum(p, e);
}

/* sqrt(x), 0 for x.hi <= 0 or NaN: the remainder x.hi - r^2 from an exact
   square (p + e), one correction step. */
TOI_INLINE dd dd_sqrt_nonneg(dd x) {
  if (!(x.hi > 0)) return dd_make(0, 0);
  double r = sqrt(x.hi);
  double p = r * r, e = fma(r, r, -p);
  return fast_two_sum(r, ((x.hi - p) - e + x.lo) / (2 * r));
}

#endif
