/* numfmt.c: toi_fmt_hex and toi_fmt_g6: "%a" and "%.6g" written directly, byte for byte as glibc's printf. */
#include "numfmt.h"
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "pow5_table.h"

__extension__ typedef unsigned __int128 u128;

#define FRAC_MASK ((UINT64_C(1) << 52) - 1)
#define BYTES8(b) (UINT64_C(0x0101010101010101) * (b))

static uint64_t bits_of(double x) {
  uint64_t b;
  memcpy(&b, &x, sizeof b);
  return b;
}

/* inf or nan after the sign, or 0 when x is finite. */
static size_t put_special(char *b, uint64_t bits) {
  if ((bits >> 52 & 0x7ff) != 0x7ff) return 0;
  memcpy(b, (bits & FRAC_MASK) ? "nan" : "inf", 4);
  return 3;
}

/* The decimal digits of u (at least min of them), NUL after; their count. */
static size_t put_uint(char *b, unsigned u, int min) {
  char rev[12];
  int n = 0;
  for (; n < min || u; u /= 10) rev[n++] = (char)('0' + u % 10);
  for (int i = 0; i < n; i++) b[i] = rev[n - 1 - i];
  b[n] = '\0';
  return (size_t)n;
}

#if defined(__SSE2__) && defined(__x86_64__)
#include <emmintrin.h>
/* The 13 hex digits of the 52-bit fraction f, top first, as 16 ASCII bytes
   (three '0' after them): f's bytes put top first by one bswap, each byte's
   two nibbles spread to two bytes by one interleave, 0-9 and a-f made ASCII
   together, one store. */
static inline void put_hex13(char *b, uint64_t f) {
  const __m128i x = _mm_cvtsi64_si128((long long)__builtin_bswap64(f << 12));
  const __m128i lo4 = _mm_set1_epi8(0x0f);
  const __m128i d = _mm_unpacklo_epi8(_mm_and_si128(_mm_srli_epi16(x, 4), lo4), _mm_and_si128(x, lo4));
  const __m128i letter = _mm_and_si128(_mm_cmpgt_epi8(d, _mm_set1_epi8(9)), _mm_set1_epi8('a' - '0' - 10));
  _mm_storeu_si128((__m128i *)(void *)b, _mm_add_epi8(_mm_add_epi8(d, _mm_set1_epi8('0')), letter));
}
#else
/* Eight bytes whose first (in memory) is the ASCII hex digit of v's top
   nibble, and so on down to its lowest: the nibbles spread one to a byte,
   then 0-9 and a-f made ASCII together, without a loop or a table. */
static uint64_t hex_ascii8(uint32_t v) {
  uint64_t x = v;
  x = (x | x << 16) & UINT64_C(0x0000ffff0000ffff);
  x = (x | x << 8) & UINT64_C(0x00ff00ff00ff00ff);
  x = (x | x << 4) & UINT64_C(0x0f0f0f0f0f0f0f0f); /* byte k: nibble k from the lowest */
  const uint64_t letter = ((x + BYTES8(0x06)) & BYTES8(0x10)) >> 4; /* 1 where the nibble is 10 or more */
  x += BYTES8('0') + letter * ('a' - '0' - 10);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  return x; /* the top nibble's byte is already the first in memory */
#else
  return __builtin_bswap64(x);
#endif
}

/* The 13 hex digits of the 52-bit fraction f, top first, in 16 bytes. */
static inline void put_hex13(char *b, uint64_t f) {
  uint64_t hi = hex_ascii8((uint32_t)(f >> 20)), lo = hex_ascii8((uint32_t)(f << 12));
  memcpy(b, &hi, 8);
  memcpy(b + 8, &lo, 8);
}
#endif

/* "00" to "99", two bytes each, the tens first. */
static const char pairs[201] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                               "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                               "8081828384858687888990919293949596979899";

size_t toi_fmt_hex(char *buf, double x) {
  const uint64_t bits = bits_of(x);
  const size_t neg = (size_t)(bits >> 63);
  buf[0] = '-';
  char *b = buf + neg;
  size_t s = put_special(b, bits);
  if (s) return neg + s;
  const unsigned be = (unsigned)(bits >> 52 & 0x7ff);
  const uint64_t frac = bits & FRAC_MASK;
  b[0] = '0';
  b[1] = 'x';
  b[2] = (char)('0' + (be != 0));
  b += 3;
  if (frac) {
    /* the 13 digits written whole (16 bytes: the room allows it), then cut
       after the last that is not zero */
    b[0] = '.';
    put_hex13(b + 1, frac);
    b += 1 + 13 - __builtin_ctzll(frac) / 4;
  }
  const int e = be ? (int)be - 1023 : (frac ? -1022 : 0);
  const unsigned u = (unsigned)(e < 0 ? -e : e); /* at most 1074: four digits */
  /* 'p', the sign, the four digits of u with the leading zeros dropped (one
     digit kept), zeros after them: one 8-byte store (b is at most 18 bytes
     into the buffer of TOI_FMT_MAX), the NUL among the zeros */
  const unsigned hi = u / 100, lo = u - 100 * hi; /* hi <= 10 */
  const int n = 1 + (u >= 10) + (u >= 100) + (u >= 1000);
  uint16_t ph, pl;
  memcpy(&ph, pairs + 2 * hi, 2);
  memcpy(&pl, pairs + 2 * lo, 2);
  const uint64_t digits = ((uint64_t)ph | (uint64_t)pl << 16) >> (8 * (4 - n));
  const uint64_t w = (uint64_t)'p' | (uint64_t)(e < 0 ? '-' : '+') << 8 | digits << 16;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  for (int i = 0; i < 8; i++) b[i] = (char)(w >> (8 * i));
#else
  memcpy(b, &w, 8);
#endif
  return (size_t)(b - buf) + 2 + (size_t)n;
}

/* n = x 10^k rounded to an integer, x = M 2^E2 (M in [2^63, 2^64)), from M
   times the 128-bit 5^k of the table (relative error below 2^-126, so the
   absolute error of x 10^k < 2^20 is below 2^-106): *n0 the integer part and
   the result, or -1 when the fraction is within 2^-54 of one half and the
   product is inexact (k < 0 or k > 27), where only the exact value can
   decide; for 0 <= k <= 27 the product is exact and ties go to even here. */
static int scaled_round(uint64_t M, int E2, int k, uint64_t *n0) {
  const uint64_t *t = toi_pow5_128[k - TOI_POW5_MIN];
  u128 plo = (u128)M * t[1], phi = (u128)M * t[0];
  u128 mid = (u128)(uint64_t)phi + (uint64_t)(plo >> 64);
  uint64_t hi = (uint64_t)(phi >> 64) + (uint64_t)(mid >> 64), md = (uint64_t)mid;
  /* 5^k = T 2^s with s = floor(k log2 5) - 127; x 10^k = (hi 2^128 + md 2^64) 2^(E2 + s + k) */
  int s = ((217706 * k) >> 16) - k - 127;
  int r = -(E2 + s + k) - 128; /* hi's bits below 2^r are the fraction: 0 < r < 64 */
  uint64_t frac = hi << (64 - r) | md >> r, rest = md & ((UINT64_C(1) << r) - 1);
  const uint64_t half = UINT64_C(1) << 63, win = UINT64_C(1) << 10;
  if (k >= 0 && k <= 27) { /* 5^k < 2^63: T and the product are exact, so is a tie (to even) */
    *n0 = (hi >> r) + (frac > half || (frac == half && (rest || (hi >> r & 1))));
    return 0;
  }
  if (frac > half - win && frac < half + win) return -1;
  *n0 = (hi >> r) + (frac > half);
  return 0;
}

/* The six digits of n (in [10^5, 10^6)) at decimal exponent X, in %g's form. */
static size_t put_g6(char *b, uint64_t n, int X) {
  char d[6];
  for (int i = 5; i >= 0; i--, n /= 10) d[i] = (char)('0' + n % 10);
  int last = 5;
  while (d[last] == '0') last--;
  char *o = b;
  if (X < -4 || X >= 6) {
    *o++ = d[0];
    if (last > 0) {
      *o++ = '.';
      for (int i = 1; i <= last; i++) *o++ = d[i];
    }
    *o++ = 'e';
    *o++ = X < 0 ? '-' : '+';
    return (size_t)(o - b) + put_uint(o, (unsigned)(X < 0 ? -X : X), 2);
  }
  if (X >= 0) {
    for (int i = 0; i <= X; i++) *o++ = d[i];
    if (last > X) *o++ = '.';
    for (int i = X + 1; i <= last; i++) *o++ = d[i];
  } else {
    *o++ = '0';
    *o++ = '.';
    for (int i = 0; i < -X - 1; i++) *o++ = '0';
    for (int i = 0; i <= last; i++) *o++ = d[i];
  }
  *o = '\0';
  return (size_t)(o - b);
}

/* An integer u >= 10^6 to six digits exactly, ties to even: the ties of
   counts such as 1234565 (k < 0 above, where the table is not exact). */
static size_t put_g6_integer(char *b, uint64_t u) {
  uint64_t p = 10;
  int X = 6;
  for (; u / p >= 1000000; p *= 10) X++;
  uint64_t n = u / p, rem = u % p;
  if (2 * rem > p || (2 * rem == p && (n & 1))) n++;
  return n == 1000000 ? put_g6(b, 100000, X + 1) : put_g6(b, n, X);
}

size_t toi_fmt_g6(char *buf, double x) {
  uint64_t bits = bits_of(x);
  char *b = buf;
  if (bits >> 63) *b++ = '-';
  size_t s = put_special(b, bits);
  if (s) return (size_t)(b - buf) + s;
  bits &= ~(UINT64_C(1) << 63);
  if (!bits) {
    memcpy(b, "0", 2);
    return (size_t)(b - buf) + 1;
  }
  int be = (int)(bits >> 52);
  uint64_t m = be ? (bits & FRAC_MASK) | UINT64_C(1) << 52 : bits;
  int lz = __builtin_clzll(m);
  uint64_t M = m << lz;
  int E2 = (be ? be - 1075 : -1074) - lz; /* |x| = M 2^E2, in [2^(E2+63), 2^(E2+64)) */
  if (E2 <= 0 && E2 >= -63 && !(M & ((UINT64_C(1) << -E2) - 1)) && M >> -E2 >= 1000000)
    return (size_t)(b - buf) + put_g6_integer(b, M >> -E2);
  int X = ((E2 + 63) * 78913) >> 18; /* floor((E2 + 63) log10 2): the exponent or one less */
  for (int tries = 0; tries < 3; tries++) {
    uint64_t n;
    if (scaled_round(M, E2, 5 - X, &n)) break;
    if (n > 1000000) X++;
    else if (n < 100000) X--;
    else if (n == 1000000) /* 999999.5 and above round to 1.00000e+06 */
      return (size_t)(b - buf) + put_g6(b, 100000, X + 1);
    else
      return (size_t)(b - buf) + put_g6(b, n, X);
  }
  /* a near-tie of an inexact product: printf decides from the exact value */
  return (size_t)snprintf(buf, TOI_FMT_MAX, "%.6g", x);
}
