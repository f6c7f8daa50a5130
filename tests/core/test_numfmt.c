/* test_numfmt.c: toi_fmt_hex against printf("%a") on random bit patterns of every class, and its room. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "numfmt.h"
#include "test_env.h"
#include "test_rng.h"

#define SEED_NOTE "(rerun with TOI_TEST_SEED=%llu; include it in bug reports)"

/* x written by toi_fmt_hex into a buffer of TOI_FMT_MAX bytes at the start
   of a larger one filled with 0x5a: the same bytes and length as printf's
   "%a", a NUL after them, and nothing written past TOI_FMT_MAX. */
static void check_hex(uint64_t bits, uint64_t seed) {
  double x = te_of_bits(bits);
  char got[TOI_FMT_MAX + 32], want[64];
  memset(got, 0x5a, sizeof got);
  size_t n = toi_fmt_hex(got, x);
  snprintf(want, sizeof want, "%a", x);
  cr_assert_eq(n, strlen(want), "length of %%a of bits %016llx " SEED_NOTE, (unsigned long long)bits,
               (unsigned long long)seed);
  cr_assert(memcmp(got, want, n + 1) == 0, "%%a of bits %016llx: '%.*s', printf '%s' " SEED_NOTE,
            (unsigned long long)bits, (int)n, got, want, (unsigned long long)seed);
  for (size_t i = TOI_FMT_MAX; i < sizeof got; i++)
    cr_assert_eq((unsigned char)got[i], 0x5a, "byte %zu written for bits %016llx", i, (unsigned long long)bits);
}

/* Random bit patterns of each class, both signs: zeros, subnormals (the
   fraction's top and bottom bits alone too), normals of every exponent
   (the smallest and largest among them), infinities and NaNs with random
   payloads; fractions with 0 to 13 trailing zero digits. */
Test(numfmt, hex_random_bits_of_every_class) {
  const uint64_t seed = te_seed(0x68657863ULL);
  test_rng r = {seed};
  const uint64_t fmask = (UINT64_C(1) << 52) - 1;
  const long n = 100000 * te_scale();
  for (long i = 0; i < n; i++) {
    uint64_t sign = (uint64_t)test_rng_int(&r, 0, 1) << 63;
    uint64_t frac = test_rng_next(&r) & fmask;
    int cut = (int)test_rng_int(&r, 0, 13); /* trailing zero digits */
    frac = cut == 13 ? 0 : frac >> (4 * cut) << (4 * cut);
    uint64_t be;
    switch (i % 6) {
    case 0: be = 0; break;                                         /* zero or subnormal */
    case 1: be = (uint64_t)test_rng_int(&r, 1, 2046); break;        /* normal */
    case 2: be = test_rng_int(&r, 0, 1) ? 1 : 2046; break;          /* the extremes */
    case 3: be = 2047; break;                                      /* inf or nan */
    case 4: be = (uint64_t)test_rng_int(&r, 0, 2047); frac = 0; break; /* powers of two, 0, inf */
    default: be = (uint64_t)test_rng_int(&r, 0, 2); frac = UINT64_C(1) << test_rng_int(&r, 0, 51); break;
    }
    check_hex(sign | be << 52 | frac, seed);
    check_hex(test_rng_next(&r), seed); /* any pattern */
  }
  /* every exponent with the largest and the smallest fraction */
  for (uint64_t be = 0; be < 2048; be++)
    for (uint64_t sign = 0; sign < 2; sign++) {
      check_hex(sign << 63 | be << 52, 0);
      check_hex(sign << 63 | be << 52 | 1, 0);
      check_hex(sign << 63 | be << 52 | fmask, 0);
    }
}
