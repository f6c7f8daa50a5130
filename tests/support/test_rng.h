/* test_rng.h: the tests' random numbers: a splitmix64 stream (the library's toi_splitmix64) and the draws built on it. */
#ifndef TOI_TEST_RNG_H
#define TOI_TEST_RNG_H

#include <math.h>
#include <stdint.h>
#include <string.h>
#include "rng.h"

/* One splitmix64 stream: small, good enough for test data, the same on every
 * machine. Seed it with the test file's own fixed seed through te_seed
 * (test_env.h), so that TOI_TEST_SEED can replace it. */
typedef struct test_rng {
  uint64_t s;
} test_rng;

/* The next 64 random bits. */
static inline uint64_t test_rng_next(test_rng *r) { return toi_splitmix64(&r->s); }

/* Uniform integer in [lo, hi] (by a modulo: its bias is far below what a test can see). */
static inline long test_rng_int(test_rng *r, long lo, long hi) {
  return lo + (long)(test_rng_next(r) % (uint64_t)(hi - lo + 1));
}

/* Uniform in [lo, hi): lo + (hi - lo) u, u on the grid k 2^-53 in [0, 1). */
static inline double test_rng_uniform(test_rng *r, double lo, double hi) {
  return lo + (hi - lo) * ((double)(test_rng_next(r) >> 11) * 0x1p-53);
}

/* A random sign, a full 53-bit mantissa and an exponent uniform in
 * [elo, ehi] (ldexp rounds into the subnormal range when asked to). */
static inline double test_rng_double(test_rng *r, int elo, int ehi) {
  double m = (double)((test_rng_next(r) >> 11) | (UINT64_C(1) << 52)) * 0x1p-52; /* [1, 2) */
  double x = ldexp(m, (int)test_rng_int(r, elo, ehi));
  return (test_rng_next(r) & 1) ? -x : x;
}

/* Any finite double, every bit pattern alike (NaN and Inf are drawn again). */
static inline double test_rng_finite_bits(test_rng *r) {
  for (;;) {
    uint64_t u = test_rng_next(r);
    double x;
    memcpy(&x, &u, sizeof x);
    if (isfinite(x)) return x;
  }
}

#endif
