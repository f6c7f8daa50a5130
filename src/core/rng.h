/* rng.h: deterministic pseudo-random numbers (splitmix64, xoshiro256**), private to the library. */
#ifndef TOI_RNG_H
#define TOI_RNG_H

#include <stdint.h>
#include <string.h>

/// xoshiro256** state (Blackman and Vigna). Never all zero.
typedef struct toi_rng {
  uint64_t s[4];
} toi_rng;

/// One step of splitmix64: advances *x and returns a well-mixed 64-bit value.
uint64_t toi_splitmix64(uint64_t *x);

/// Seeds the generator from one 64-bit seed through splitmix64 (the
/// initialisation its authors recommend).
void toi_rng_seed(toi_rng *r, uint64_t seed);

/// Seeds the generator of item `index` of stream `stream` under `seed`.
/// Streams are counter-based: item i is reached directly, in O(1), without
/// running items 0..i-1, so whatever thread or shard generates item i draws
/// the same numbers. The three words are mixed through splitmix64's
/// finaliser so that neighbouring indexes give unrelated states.
void toi_rng_seed_item(toi_rng *r, uint64_t seed, uint64_t stream, uint64_t index);

/// Next 64 random bits (xoshiro256**).
uint64_t toi_rng_next(toi_rng *r);

/// Advances the generator by 2^128 steps (the xoshiro256 jump polynomial):
/// 2^128 non-overlapping subsequences for parallel use of one long stream.
void toi_rng_jump(toi_rng *r);

/// Uniform integer in [0, n), n >= 1, without modulo bias (Lemire's method).
uint64_t toi_rng_below(toi_rng *r, uint64_t n);

/// Uniform integer in [lo, hi] (lo <= hi).
int64_t toi_rng_int(toi_rng *r, int64_t lo, int64_t hi);

/// Uniform double in [0, 1) on the grid k 2^-53: built from bits, no libm.
double toi_rng_u01(toi_rng *r);

/// lo + (hi - lo) u with u = toi_rng_u01: uniform over the reals of [lo, hi)
/// up to the rounding of that expression (IEEE, so identical on every machine).
double toi_rng_uniform(toi_rng *r, double lo, double hi);

/// Uniform over the double bit patterns in [lo, hi] (finite lo <= hi): every
/// double of the interval is equally likely, so small magnitudes dominate
/// (log-like). -0 and +0 count as one point (+0 is returned).
double toi_rng_bits(toi_rng *r, double lo, double hi);

/// A dyadic number M 2^-shift with M uniform in [-2^bits + 1, 2^bits - 1]:
/// few significant bits, so that sums and small integer multiples are exact.
double toi_rng_dyadic(toi_rng *r, int bits, int shift);

/// Position of a double in the ordered set of doubles (+0 and -0 both map to 0);
/// monotone: x < y implies toi_double_ord(x) < toi_double_ord(y).
int64_t toi_double_ord(double x);
/// Inverse of toi_double_ord on the finite doubles.
double toi_double_from_ord(int64_t k);
/// The same for binary32: the position of (float)x among the floats (+0 and
/// -0 both 0), so k steps of nextafterf are k steps of the ordinal.
int64_t toi_float_ord(double x);
/// Inverse of toi_float_ord on the finite floats, as a double.
double toi_float_from_ord(int64_t k);

/* The hot draws inline, for the generator's per-case path (gen.c): the
   same operations as toi_rng_next, _below, _int, _u01 and _uniform, which
   call these. */
static inline uint64_t toi_rng_next_i(toi_rng *r) {
  uint64_t *s = r->s;
  const uint64_t x = s[1] * 5, result = ((x << 7) | (x >> 57)) * 9;
  const uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = (s[3] << 45) | (s[3] >> 19);
  return result;
}

static inline uint64_t toi_rng_below_i(toi_rng *r, uint64_t n) {
  /* Reject the lowest (2^64 mod n) values so every residue is equally likely.
     That threshold is below n, so a draw x >= n is kept without computing it
     (a division saved on all but a fraction n 2^-64 of the draws). */
  for (;;) {
    uint64_t x = toi_rng_next_i(r);
    if (x >= n || x >= (0 - n) % n) return x % n;
  }
}

static inline int64_t toi_rng_int_i(toi_rng *r, int64_t lo, int64_t hi) {
  uint64_t span = (uint64_t)hi - (uint64_t)lo;
  if (span == UINT64_MAX) return (int64_t)toi_rng_next_i(r);
  return (int64_t)((uint64_t)lo + toi_rng_below_i(r, span + 1));
}

static inline double toi_rng_u01_i(toi_rng *r) { return (double)(toi_rng_next_i(r) >> 11) * 0x1p-53; }

static inline double toi_rng_uniform_i(toi_rng *r, double lo, double hi) { return lo + (hi - lo) * toi_rng_u01_i(r); }

static inline double toi_rng_dyadic_i(toi_rng *r, int bits, int shift) {
  int64_t m = (int64_t)1 << bits;
  int64_t k = toi_rng_int_i(r, -m + 1, m - 1);
  /* 2^-shift from its bits (0 <= shift <= 1022), as eft.h's pow2i. */
  uint64_t p = (uint64_t)(1023 - shift) << 52;
  double s;
  memcpy(&s, &p, sizeof s);
  return (double)k * s;
}

static inline double toi_rng_bits_i(toi_rng *r, double lo, double hi) {
  int64_t a = toi_double_ord(lo), b = toi_double_ord(hi);
  uint64_t k = (uint64_t)a + toi_rng_below_i(r, (uint64_t)b - (uint64_t)a + 1);
  double x = toi_double_from_ord((int64_t)k);
  return x == 0 ? 0.0 : x;
}

static inline uint64_t toi_splitmix64_i(uint64_t *x) {
  uint64_t z = (*x += 0x9e3779b97f4a7c15u);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

/* toi_rng_seed_item in two parts: the stream key, which depends on seed and
   stream only (made once for a run of items), and the item's state from the
   key and its index. toi_rng_seed_item(r, seed, stream, index) is
   toi_rng_seed_key_i(r, toi_rng_stream_key(seed, stream), index). */
uint64_t toi_rng_stream_key(uint64_t seed, uint64_t stream);

static inline void toi_rng_seed_key_i(toi_rng *r, uint64_t key, uint64_t index) {
  uint64_t x = key ^ index;
  x = toi_splitmix64_i(&x);
  for (int i = 0; i < 4; i++) r->s[i] = toi_splitmix64_i(&x);
  /* Never all zero (see toi_rng_seed). */
  if (!(r->s[0] | r->s[1] | r->s[2] | r->s[3])) r->s[0] = 1;
}

#endif
