/* test_env.h: the tests' size and seed from the environment (TOI_TEST_SCALE, TOI_TEST_SEED). */
#ifndef TEST_ENV_H
#define TEST_ENV_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The multiplier of every test's iteration counts: TOI_TEST_SCALE, at least 1. */
static inline long te_scale(void) {
  const char *s = getenv("TOI_TEST_SCALE");
  long k = s ? strtol(s, NULL, 10) : 1;
  return k > 0 ? k : 1;
}

/* TOI_TEST_SEED when set (any base strtoull reads), else the test file's own
 * fixed seed. */
static inline uint64_t te_seed(uint64_t fixed) {
  const char *s = getenv("TOI_TEST_SEED");
  return s ? (uint64_t)strtoull(s, NULL, 0) : fixed;
}

/* A double's bits, and the double of some bits. */
static inline uint64_t te_bits(double x) {
  uint64_t b;
  memcpy(&b, &x, sizeof b);
  return b;
}

static inline double te_of_bits(uint64_t b) {
  double x;
  memcpy(&x, &b, sizeof x);
  return x;
}

#endif
