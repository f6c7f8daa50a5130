/* rng.c: splitmix64 seeding and the xoshiro256** generator, with bit-built uniform doubles. */
#include <string.h>
#include "rng.h"
#include "eft.h"

uint64_t toi_splitmix64(uint64_t *x) { return toi_splitmix64_i(x); }

void toi_rng_seed(toi_rng *r, uint64_t seed) {
  uint64_t x = seed;
  for (int i = 0; i < 4; i++) r->s[i] = toi_splitmix64(&x);
  /* splitmix64 is a bijection of its counter, so four consecutive outputs are
     never all zero; the check documents the invariant xoshiro needs. */
  if (!(r->s[0] | r->s[1] | r->s[2] | r->s[3])) r->s[0] = 1;
}

/* Chain the three words through the finaliser: each step is a bijection of
   the running value, so distinct (stream, index) under one seed give distinct
   splitmix64 starting points. The first two steps are the stream key. */
uint64_t toi_rng_stream_key(uint64_t seed, uint64_t stream) {
  uint64_t x = seed;
  uint64_t h = toi_splitmix64_i(&x);
  x = h ^ stream;
  return toi_splitmix64_i(&x);
}

void toi_rng_seed_item(toi_rng *r, uint64_t seed, uint64_t stream, uint64_t index) {
  toi_rng_seed_key_i(r, toi_rng_stream_key(seed, stream), index);
}

uint64_t toi_rng_next(toi_rng *r) { return toi_rng_next_i(r); }

void toi_rng_jump(toi_rng *r) {
  static const uint64_t jump[] = {0x180ec6d33cfd0aba, 0xd5a61266f0c9392c, 0xa9582618e03fc9aa,
                                  0x39abdc4529b1661c};
  uint64_t t[4] = {0, 0, 0, 0};
  for (int i = 0; i < 4; i++)
    for (int b = 0; b < 64; b++) {
      if (jump[i] & ((uint64_t)1 << b))
        for (int j = 0; j < 4; j++) t[j] ^= r->s[j];
      (void)toi_rng_next(r);
    }
  memcpy(r->s, t, sizeof t);
}

uint64_t toi_rng_below(toi_rng *r, uint64_t n) { return toi_rng_below_i(r, n); }

int64_t toi_rng_int(toi_rng *r, int64_t lo, int64_t hi) { return toi_rng_int_i(r, lo, hi); }

double toi_rng_u01(toi_rng *r) {
  /* 53 random bits times 2^-53: exact, so the result is the same everywhere. */
  return toi_rng_u01_i(r);
}

double toi_rng_uniform(toi_rng *r, double lo, double hi) { return toi_rng_uniform_i(r, lo, hi); }

int64_t toi_double_ord(double x) {
  int64_t i;
  memcpy(&i, &x, sizeof i);
  /* Negative doubles order backwards in their bit pattern: fold them below
     zero. -0 (pattern INT64_MIN) lands on 0 like +0. */
  return i >= 0 ? i : (int64_t)((uint64_t)INT64_MIN - (uint64_t)i);
}

double toi_double_from_ord(int64_t k) {
  int64_t i = k >= 0 ? k : (int64_t)((uint64_t)INT64_MIN - (uint64_t)k);
  double x;
  memcpy(&x, &i, sizeof x);
  return x;
}

double toi_rng_bits(toi_rng *r, double lo, double hi) { return toi_rng_bits_i(r, lo, hi); }

double toi_rng_dyadic(toi_rng *r, int bits, int shift) { return toi_rng_dyadic_i(r, bits, shift); }

int64_t toi_float_ord(double x) {
  float f = (float)x;
  int32_t i;
  memcpy(&i, &f, sizeof i);
  return i >= 0 ? i : -(int64_t)(i & INT32_MAX);
}

double toi_float_from_ord(int64_t k) {
  int32_t i = k >= 0 ? (int32_t)k : (int32_t)((uint32_t)(-k) | 0x80000000u);
  float f;
  memcpy(&f, &i, sizeof f);
  return (double)f;
}
