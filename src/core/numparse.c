/* numparse.c: toi_parse_double: hex floats rounded directly, decimals by Clinger's fast path and Eisel-Lemire, strtod for the rest. */
#include "numparse.h"
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "pow5_table.h"

__extension__ typedef unsigned __int128 u128;

#define EXP_INF UINT64_C(0x7ff0000000000000)
/* Exponents beyond this are all alike: their value is zero or beyond DBL_MAX
   whatever the digits (a token is shorter than 2^40 characters). */
#define EXP_SATURATE INT64_C(1000000000)

/* Where a number may end: the end of the token, or the blank after a field
   of a line (toi_parse_double_field). */
#define AT_END(ch) ((ch) == '\0' || (ch) == ' ')

static double from_bits(uint64_t b) {
  double x;
  memcpy(&x, &b, sizeof x);
  return x;
}

static toi_num_status finish(uint64_t bits, int neg, double *out) {
  *out = from_bits(bits | (uint64_t)neg << 63);
  return (bits & EXP_INF) == EXP_INF ? TOI_NUM_OVERFLOW : TOI_NUM_OK;
}

/* A hex digit's value plus one, 0 for any other byte: one load instead of
   the branches of a range test, whose outcome flips between digits and
   letters. */
static const unsigned char hex_value1[256] = {
    ['0'] = 1,  ['1'] = 2,  ['2'] = 3,  ['3'] = 4,  ['4'] = 5,  ['5'] = 6,  ['6'] = 7,  ['7'] = 8,
    ['8'] = 9,  ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
    ['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16};

/* The exponent after 'e' or 'p': [+-] digits, saturated at EXP_SATURATE;
   the byte after it, or NULL when no digit follows. */
static const char *read_exponent(const char *p, int64_t *e) {
  int neg = 0;
  if (*p == '+' || *p == '-') neg = *p++ == '-';
  if ((unsigned)(*p - '0') > 9) return NULL;
  int64_t x = 0;
  for (; (unsigned)(*p - '0') <= 9; p++)
    if (x < EXP_SATURATE) x = 10 * x + (*p - '0');
  *e = neg ? -x : x;
  return p;
}

/* The bits of the double nearest (m + f) 2^e, 0 <= f < 1 and f > 0 exactly
   when sticky, ties to even, as an IEEE binary64 pattern without sign
   (EXP_INF beyond DBL_MAX). Value = m 2^e with m normalised to [2^63, 2^64)
   lies in [2^E, 2^(E+1)), E = e + 63; a normal result keeps 53 bits, a
   subnormal one E + 1075; the bits dropped and sticky make the rounding. */
static uint64_t round_binary(uint64_t m, int64_t e, int sticky) {
  if (m == 0) return 0;
  int lz = __builtin_clzll(m);
  m <<= lz;
  int64_t E = e - lz + 63;
  if (E > 1023) return EXP_INF;
  int64_t shift = E < -1022 ? 11 + (-1022 - E) : 11;
  if (shift > 64) return 0; /* below 2^-1075, half the smallest subnormal */
  uint64_t kept = shift == 64 ? 0 : m >> shift;
  uint64_t rem = shift == 64 ? m : m & ((UINT64_C(1) << shift) - 1);
  uint64_t half = UINT64_C(1) << (shift - 1);
  if (rem > half || (rem == half && (sticky || (kept & 1)))) kept++;
  if (E < -1022) return kept; /* subnormal; 2^52 is the smallest normal's pattern */
  if (kept == UINT64_C(1) << 53) {
    kept >>= 1;
    if (++E > 1023) return EXP_INF;
  }
  return (uint64_t)(E + 1023) << 52 | (kept & ((UINT64_C(1) << 52) - 1));
}

/* Eight bytes from p, the first in the lowest byte whatever the machine. */
static uint64_t load8(const char *p) {
  uint64_t x;
  memcpy(&x, p, sizeof x);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  x = __builtin_bswap64(x);
#endif
  return x;
}

#define BYTES(b) (UINT64_C(0x0101010101010101) * (b))

/* The bytes of x (load8) that are not hex digits, each as its top bit,
   and in *v the value of each byte that is (garbage below 16 in the
   others). Each byte is tested apart, without carries between bytes: its
   low seven bits plus a constant set the top bit exactly when they reach a
   bound, and a byte with its own top bit set is no digit. */
static uint64_t hex_classify8(uint64_t x, uint64_t *v) {
  const uint64_t top = BYTES(0x80), x7 = x & ~top, l7 = x7 | BYTES(0x20); /* l7: 'A'-'F' as 'a'-'f' */
  uint64_t digit = (x7 + BYTES(0x80 - '0')) & ~(x7 + BYTES(0x7f - '9'));
  uint64_t letter = (l7 + BYTES(0x80 - 'a')) & ~(l7 + BYTES(0x7f - 'f')) & ~x & top;
  *v = (x & BYTES(0x0f)) + (letter >> 7) * 9;
  return (~(digit | letter) & top) | (x & top);
}

/* The eight digit values of v (hex_classify8) as 32 bits, the first byte's on top. */
static uint64_t hex_pack8(uint64_t v) {
  v = (v << 4 | v >> 8) & UINT64_C(0x00ff00ff00ff00ff);
  v = (v << 8 | v >> 16) & UINT64_C(0x0000ffff0000ffff);
  return (v << 16 | v >> 32) & UINT64_C(0xffffffff);
}

/* The hex digits at p, at most 13 (a 14th makes 14): their count, and
   their value in *f. Sixteen bytes at a time, as two words, when at least
   16 bytes from p may be read (lim), else one at a time. */
static int hex_digits13(const char *p, const char *lim, uint64_t *f) {
  if (lim - p >= 16) {
    uint64_t v0, v1;
    uint64_t bad0 = hex_classify8(load8(p), &v0), bad1 = hex_classify8(load8(p + 8), &v1);
    int n = bad0 ? __builtin_ctzll(bad0) >> 3 : 8 + (bad1 ? __builtin_ctzll(bad1) >> 3 : 8);
    if (n > 13) return 14;
    *f = (hex_pack8(v0) << 32 | hex_pack8(v1)) >> 1 >> (63 - 4 * n);
    return n;
  }
  uint64_t x = 0;
  int nd = 0;
  unsigned d;
  for (; nd < 14 && (d = hex_value1[(unsigned char)p[nd]]); nd++) x = x << 4 | (d - 1);
  *f = x;
  return nd;
}

/* The exponent of the form "%a" writes at p, after the 'p': [+-] and one to
   four decimal digits, then the field's end. 1 with the exponent in *e and
   the end in *end, or 0 (a fifth digit too: parse_hex reads it). */
static int exponent4(const char *p, int *e, const char **end) {
  int neg = *p == '-';
  if (*p == '+' || *p == '-') p++;
  int k = 0, x = 0;
  unsigned d;
  for (; k < 4 && (d = (unsigned)((unsigned char)p[k] - '0')) <= 9; k++) x = 10 * x + (int)d;
  if (k == 0 || !AT_END(p[k])) return 0;
  *e = neg ? -x : x;
  *end = p + k;
  return 1;
}

/* p just after "0x": the form "%a" writes for a normal double, 1.HHHp[+-]D
   with at most 13 digits, read without any rounding: its bits are its
   digits. 0 when p is not in that form (parse_hex then reads it). */
static int hex_exact_normal(const char *p, const char *lim, int neg, double *out, const char **end) {
  if (p[0] != '1' || p[1] != '.') return 0;
  uint64_t f;
  int nd = hex_digits13(p + 2, lim, &f), e;
  if (nd > 13) return 0;
  p += 2 + nd;
  if (*p != 'p' || !exponent4(p + 1, &e, end) || e < -1022 || e > 1023) return 0;
  *out = from_bits((uint64_t)neg << 63 | (uint64_t)(e + 1023) << 52 | f << (52 - 4 * nd));
  return 1;
}

#if defined(__SSE2__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#include <emmintrin.h>
#define HEX_A_FAST 1
/* Bytes a field read by hex_a_fast may reach from its start: the sign,
   "0x1.", 16 bytes of digits, then 16 from the exponent's first byte. */
#define HEX_A_SPAN 40

/* The form "%a" writes for a normal double, [-]0x1.HHHp[+-]D (at most 13
   hex digits, one to four exponent digits), at s, with at least HEX_A_SPAN
   bytes readable from s: its bits are its digits, found with two 16-byte
   loads and no loop. 1 with the value and the end (the blank or NUL after
   the field) set, exactly as hex_exact_normal sets them; 0 for any other
   token (a '+', 0X, P, no point, 14 digits, a fifth exponent digit, an
   exponent beyond the normal range...), which the general reader takes. */
static inline __attribute__((always_inline)) int hex_a_fast(const char *s, double *out, const char **end) {
  /* The field's end first, from s alone: the first blank or NUL of the 32
     bytes from s. The next field's start then waits on nothing else, so
     the reading of this one overlaps the next instead of each number's
     end waiting on its digits and exponent. */
  const __m128i s0 = _mm_loadu_si128((const __m128i *)(const void *)s);
  const __m128i s1 = _mm_loadu_si128((const __m128i *)(const void *)(s + 16));
  /* a byte is a blank or a NUL exactly when its bits other than 0x20 are 0 */
  const __m128i not_blank = _mm_set1_epi8((char)~' '), nul = _mm_setzero_si128();
  const unsigned tm = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_and_si128(s0, not_blank), nul)) |
                      (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_and_si128(s1, not_blank), nul)) << 16;
  if (!tm) return 0;
  const char *const fend = s + __builtin_ctz(tm);
  const int neg = s[0] == '-';
  const char *b = s + neg;
  uint32_t head;
  memcpy(&head, b, sizeof head);
  if (head != ((uint32_t)'0' | (uint32_t)'x' << 8 | (uint32_t)'1' << 16 | (uint32_t)'.' << 24)) return 0;
  const __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(b + 4));
  /* a byte is a digit when its distance from '0' is at most 9, a letter
     when its distance from 'a', case folded, is at most 5 (unsigned) */
  const __m128i t = _mm_sub_epi8(x, _mm_set1_epi8('0'));
  const __m128i dig = _mm_cmpeq_epi8(_mm_min_epu8(t, _mm_set1_epi8(9)), t);
  const __m128i l = _mm_sub_epi8(_mm_or_si128(x, _mm_set1_epi8(0x20)), _mm_set1_epi8('a'));
  const __m128i let = _mm_cmpeq_epi8(_mm_min_epu8(l, _mm_set1_epi8(5)), l);
  const unsigned hm = (unsigned)_mm_movemask_epi8(_mm_or_si128(dig, let));
  const int n = __builtin_ctz(~hm); /* the digits before the first other byte: 0..16 */
  if (n > 13 || b[4 + n] != 'p') return 0;
  /* the digit values, 0 past the n-th, two to a byte, the first on top */
  const __m128i iota = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  __m128i v = _mm_add_epi8(_mm_and_si128(x, _mm_set1_epi8(0x0f)), _mm_and_si128(let, _mm_set1_epi8(9)));
  v = _mm_and_si128(v, _mm_cmplt_epi8(iota, _mm_set1_epi8((char)n)));
  v = _mm_and_si128(_mm_or_si128(_mm_slli_epi16(v, 4), _mm_srli_epi16(v, 8)), _mm_set1_epi16(0x00ff));
  const uint64_t frac = __builtin_bswap64((uint64_t)_mm_cvtsi128_si64(_mm_packus_epi16(v, v))) >> 12;
  /* the exponent: [+-], one to four decimal digits, then a blank or NUL */
  const char *e = b + 5 + n;
  const int eneg = e[0] == '-';
  e += (e[0] == '+') | (e[0] == '-');
  const __m128i y = _mm_sub_epi8(_mm_loadu_si128((const __m128i *)(const void *)e), _mm_set1_epi8('0'));
  const unsigned dm = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(y, _mm_set1_epi8(9)), y));
  const int k = __builtin_ctz(~dm);
  /* every byte before e + k is a sign, digit, '.' or 'p': fend is the
     first blank or NUL after them exactly when e[k] is one */
  if (k == 0 || k > 4 || e + k != fend) return 0;
  /* the k digits moved to the top of four bytes, the first in the lowest
     byte, then paired: 10 d0 + d1 and 10 d2 + d3, then 100 (d0d1) + d2d3 */
  uint32_t w = (uint32_t)_mm_cvtsi128_si32(y) << (8 * (4 - k));
  w = (w & 0x000f000f) * 10 + ((w >> 8) & 0x000f000f);
  const int ex = (int)((w & 0xff) * 100 + ((w >> 16) & 0xff));
  const int ev = eneg ? -ex : ex;
  if (ev < -1022 || ev > 1023) return 0;
  *out = from_bits((uint64_t)neg << 63 | (uint64_t)(ev + 1023) << 52 | frac);
  *end = fend;
  return 1;
}
#endif

/* p just after "0x": the first 16 significant hex digits make a 64-bit
   significand, the others only move the exponent and set the sticky bit. */
static toi_num_status parse_hex(const char *p, const char *lim, int neg, double *out, const char **end) {
  if (hex_exact_normal(p, lim, neg, out, end)) return TOI_NUM_OK;
  uint64_t m = 0;
  int64_t e = 0;
  int nd = 0, sticky = 0, any = 0, point = 0;
  for (;; p++) {
    unsigned d = hex_value1[(unsigned char)*p];
    if (!d) {
      if (*p == '.' && !point) {
        point = 1;
        continue;
      }
      break;
    }
    d--;
    any = 1;
    if (nd < 16) {
      if (m | d) { /* not a leading zero */
        m = m << 4 | d;
        nd++;
      }
      e -= 4 * point;
    } else {
      sticky |= d != 0;
      e += 4 * !point;
    }
  }
  if (!any) return TOI_NUM_SYNTAX;
  if (*p == 'p' || *p == 'P') {
    int64_t x;
    if (!(p = read_exponent(p + 1, &x))) return TOI_NUM_SYNTAX;
    e += x;
  }
  if (!AT_END(*p)) return TOI_NUM_SYNTAX;
  *end = p;
  return finish(round_binary(m, e, sticky), neg, out);
}

/* Eisel-Lemire (Lemire, "Number Parsing at a Gigabyte per Second", 2021, as
   in fast_float): the bits of the double nearest w 10^q, w > 0, from w times
   a 128-bit truncation of 5^q; 0, or -1 when it cannot be sure (results in
   the subnormal range, and the rare products whose truncated bits could
   carry: the caller then takes the exact path). */
static int eisel_lemire(uint64_t w, int64_t q, uint64_t *bits) {
  if (q < -342) { /* w 10^q < 2^64 10^-343 < 2^-1075: zero */
    *bits = 0;
    return 0;
  }
  if (q > 308) { /* w 10^q >= 10^309 */
    *bits = EXP_INF;
    return 0;
  }
  int lz = __builtin_clzll(w);
  w <<= lz;
  const uint64_t *t = toi_pow5_128[q - TOI_POW5_MIN];
  u128 p1 = (u128)w * t[0];
  uint64_t hi = (uint64_t)(p1 >> 64), lo = (uint64_t)p1;
  const uint64_t mask = UINT64_MAX >> 55; /* 52 + 3 bits kept, the rest must not be all ones */
  if ((hi & mask) == mask) {
    uint64_t h2 = (uint64_t)(((u128)w * t[1]) >> 64);
    lo += h2;
    if (h2 > lo) hi++;
  }
  if (lo == UINT64_MAX && (q < -27 || q > 55)) return -1;
  int upper = (int)(hi >> 63), shift = upper + 64 - 52 - 3;
  uint64_t mant = hi >> shift;
  int64_t power2 = ((217706 * q) >> 16) + 63 + upper - lz + 1023;
  if (power2 <= 0) return -1;
  /* an exact tie: w 10^q has no bits below the ones kept, round to even */
  if (lo <= 1 && q >= -4 && q <= 23 && (mant & 3) == 1 && (mant << shift) == hi) mant &= ~UINT64_C(1);
  mant += mant & 1;
  mant >>= 1;
  if (mant >= UINT64_C(2) << 52) {
    mant = UINT64_C(1) << 52;
    power2++;
  }
  *bits = power2 >= 0x7ff ? EXP_INF : (uint64_t)power2 << 52 | (mant & ((UINT64_C(1) << 52) - 1));
  return 0;
}

/* The exact path: strtod, which glibc rounds correctly, on a copy written
   "[-]DIGITSeEXP" (no decimal point, so that no locale changes it): the first
   800 significant digits, then a 1 when any later digit is not zero. That
   keeps the rounding: every double and every midpoint between two has at
   most 767 significant digits, so none lies strictly between the digits kept
   and the next 800-digit number, where both the input and the copy lie. */
#define FALLBACK_DIGITS 800

static toi_num_status decimal_exact(const char *p, int64_t exp10, int neg, double *out) {
  char buf[FALLBACK_DIGITS + 40];
  size_t k = 0;
  if (neg) buf[k++] = '-';
  const size_t d0 = k;
  int64_t q = exp10;
  int point = 0, sticky = 0;
  for (;; p++) {
    unsigned d = (unsigned)(*p - '0');
    if (d > 9) {
      if (*p == '.' && !point) {
        point = 1;
        continue;
      }
      break;
    }
    if (k == d0 && d == 0) {
      q -= point;
    } else if (k - d0 < FALLBACK_DIGITS) {
      buf[k++] = *p;
      q -= point;
    } else {
      sticky |= d != 0;
      q += !point;
    }
  }
  if (sticky) {
    buf[k++] = '1';
    q--;
  }
  /* beyond +-99999 the value is zero or overflows whatever the 801 digits */
  q = q > 99999 ? 99999 : q < -99999 ? -99999 : q;
  buf[k++] = 'e';
  if (q < 0) buf[k++] = '-';
  char rev[8];
  int n = 0;
  for (uint64_t u = (uint64_t)(q < 0 ? -q : q); n == 0 || u; u /= 10) rev[n++] = (char)('0' + u % 10);
  while (n) buf[k++] = rev[--n];
  buf[k] = '\0';
  double x = strtod(buf, NULL);
  *out = x;
  return isinf(x) ? TOI_NUM_OVERFLOW : TOI_NUM_OK;
}

static const double exact_pow10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                       1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* p at the first digit or point: the first 19 significant digits make w,
   the value lies in [w, w + 1) 10^q (w 10^q exactly when no later digit is
   non-zero). */
static toi_num_status parse_decimal(const char *p, int neg, double *out, const char **end) {
  const char *start = p;
  uint64_t w = 0;
  int64_t q = 0;
  int nd = 0, trunc = 0, any = 0, point = 0;
  for (;; p++) {
    unsigned d = (unsigned)(*p - '0');
    if (d > 9) {
      if (*p == '.' && !point) {
        point = 1;
        continue;
      }
      break;
    }
    any = 1;
    if (nd < 19) {
      if (w == 0 && d == 0) { /* a leading zero */
        q -= point;
        continue;
      }
      w = 10 * w + d;
      nd++;
      q -= point;
    } else {
      trunc |= d != 0;
      q += !point;
    }
  }
  if (!any) return TOI_NUM_SYNTAX;
  int64_t x = 0;
  if ((*p == 'e' || *p == 'E') && !(p = read_exponent(p + 1, &x))) return TOI_NUM_SYNTAX;
  if (!AT_END(*p)) return TOI_NUM_SYNTAX;
  *end = p;
  if (w == 0) return finish(0, neg, out);
  q += x;
#if FLT_EVAL_METHOD == 0
  /* Clinger: w and 10^|q| are exact doubles, so one correctly rounded
     operation gives the nearest double. */
  if (!trunc && w <= UINT64_C(1) << 53 && q >= -22 && q <= 22) {
    double v = (double)w;
    v = q < 0 ? v / exact_pow10[-q] : v * exact_pow10[q];
    *out = neg ? -v : v;
    return TOI_NUM_OK;
  }
#endif
  uint64_t b, b1;
  if (eisel_lemire(w, q, &b) == 0 && (!trunc || (eisel_lemire(w + 1, q, &b1) == 0 && b1 == b)))
    return finish(b, neg, out);
  return decimal_exact(start, x, neg, out);
}

toi_num_status toi_parse_double_span(const char *tok, const char *lim, const char **end, double *out) {
#ifdef HEX_A_FAST
  if (lim - tok >= HEX_A_SPAN && hex_a_fast(tok, out, end)) return TOI_NUM_OK;
#endif
  const char *p = tok;
  unsigned char c = (unsigned char)*p;
  int neg = c == '-';
  p += (c == '+') | (c == '-');
  if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) return parse_hex(p + 2, lim, neg, out, end);
  return parse_decimal(p, neg, out, end);
}

toi_num_status toi_parse_double_field(const char *tok, const char **end, double *out) {
  return toi_parse_double_span(tok, tok, end, out);
}

/* The field reader, and the token must end where the number does. */
toi_num_status toi_parse_double(const char *tok, double *out) {
  const char *end = tok;
  double x;
  toi_num_status st = toi_parse_double_field(tok, &end, &x);
  if (st == TOI_NUM_SYNTAX || *end) return TOI_NUM_SYNTAX;
  *out = x;
  return st;
}

#if defined(HEX_A_FAST) && defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#include <stdatomic.h>
#define FIELDS_AVX2 1

/* 2 to read fields four then two at a time with AVX2, 1 two at a time
   (numparse_simd_use), 0 neither; -1 not asked yet (set before any thread
   reads, relaxed: idempotent). */
static atomic_int fields_avx2 = -1;

static int fields_avx2_best(void) {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2") ? 2 : 0;
}

int numparse_simd_use(int level) {
  const int best = fields_avx2_best();
  atomic_store_explicit(&fields_avx2, level < 0 || level > best ? best : level, memory_order_relaxed);
  return atomic_load_explicit(&fields_avx2, memory_order_relaxed);
}

/* Fields of hex_a_fast's form read two at a time, from field i of n at *p,
   while at least 65 bytes are readable (the second field starts within 33
   bytes of the first, and each is read within 32 bytes of its start): the
   ends of both from two 32-byte loads (the second's start is the first's
   end plus its blank), the digits of both classified and packed in one
   256-bit vector, the two exponents read back from the ends in one 64-bit
   word. Each value and end exactly as hex_a_fast gives them. Stops at the
   first pair with a field not of the form (or not one blank after the one
   before), which the reader one field at a time then takes; returns the
   index of its first field, *p at its start, *last at the end of the last
   field read. */
__attribute__((target("avx2,bmi,bmi2"))) static int fields_pairs_avx2(const char **pp, const char *lim, int i, int n,
                                                                       double *v, const char **last) {
  const char *p = *pp, *lst = *last;
  double *o = v + i;
  const uint32_t head1 = (uint32_t)'0' | (uint32_t)'x' << 8 | (uint32_t)'1' << 16 | (uint32_t)'.' << 24;
  const uint32_t p_plus = (uint32_t)'p' | (uint32_t)'+' << 8;
  const __m256i not_blank = _mm256_set1_epi8((char)~' '), zero = _mm256_setzero_si256();
  const __m256i c_0 = _mm256_set1_epi8('0'), c_9 = _mm256_set1_epi8(9), c_20 = _mm256_set1_epi8(0x20);
  const __m256i c_a = _mm256_set1_epi8('a'), c_5 = _mm256_set1_epi8(5), c_0f = _mm256_set1_epi8(0x0f);
  const __m256i nib = _mm256_set1_epi16(0x0110); /* 16 times the first byte of a pair, plus the second */
  for (int pairs = (n - i) / 2; pairs > 0 && lim - p >= 65; pairs--) {
    /* the two ends: the first blank or NUL from each start, or 32 bytes on (which the
       exponent's length then refuses: a field of the form is at most 27 bytes) */
    const char *const sa = p;
    const unsigned ma = (unsigned)_mm256_movemask_epi8(
        _mm256_cmpeq_epi8(_mm256_and_si256(_mm256_loadu_si256((const __m256i *)(const void *)sa), not_blank), zero));
    const char *const ea = sa + _tzcnt_u32(ma);
    const char *const sb = ea + 1;
    const unsigned mb = (unsigned)_mm256_movemask_epi8(
        _mm256_cmpeq_epi8(_mm256_and_si256(_mm256_loadu_si256((const __m256i *)(const void *)sb), not_blank), zero));
    const char *const eb = sb + _tzcnt_u32(mb);
    const unsigned nega = sa[0] == '-', negb = sb[0] == '-';
    const char *const ba = sa + nega, *const bb = sb + negb;
    uint32_t ha, hb;
    memcpy(&ha, ba, sizeof ha);
    memcpy(&hb, bb, sizeof hb);
    /* the 16 bytes after each "0x1.", the first field's in the low lane */
    const __m256i x = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)(ba + 4))),
                                              _mm_loadu_si128((const __m128i *)(const void *)(bb + 4)), 1);
    const __m256i t = _mm256_sub_epi8(x, c_0);
    const __m256i dig = _mm256_cmpeq_epi8(_mm256_min_epu8(t, c_9), t);
    const __m256i l = _mm256_sub_epi8(_mm256_or_si256(x, c_20), c_a);
    const __m256i let = _mm256_cmpeq_epi8(_mm256_min_epu8(l, c_5), l);
    const unsigned nothex = ~(unsigned)_mm256_movemask_epi8(_mm256_or_si256(dig, let));
    const unsigned na = (unsigned)__builtin_ctz(nothex | 1u << 16), nb = (unsigned)__builtin_ctz((nothex >> 16) | 1u << 16);
    const char *const xa = ba + 4 + na, *const xb = bb + 4 + nb; /* the 'p' */
    uint16_t qa, qb;
    memcpy(&qa, xa, sizeof qa);
    memcpy(&qb, xb, sizeof qb);
    const size_t ka = (size_t)(ea - (xa + 2)), kb = (size_t)(eb - (xb + 2)); /* exponent digits */
    /* "p+" or "p-" (less "p+": 0, or 2 in the high byte) after at most 13 digits, then 1 to 4 bytes */
    if (!((ha == head1) & (hb == head1) & (*ea == ' ') & (na <= 13) & (nb <= 13) &
          !((((uint32_t)qa - p_plus) | ((uint32_t)qb - p_plus)) & 0xfdff) & (ka - 1 < 4) & (kb - 1 < 4)))
      break;
    /* the four bytes before each end, the first field's in the low half; the
       k digits the top k bytes of each half */
    uint32_t ya, yb;
    memcpy(&ya, ea - 4, sizeof ya);
    memcpy(&yb, eb - 4, sizeof yb);
    const uint64_t keep = (uint64_t)(UINT32_MAX << (32 - 8 * kb)) << 32 | (uint64_t)(UINT32_MAX << (32 - 8 * ka));
    /* each byte less '0' (by XOR, so no borrow crosses bytes): a kept byte
       is a digit when it and it plus 6 have a zero high nibble. A carry from
       a byte below can only refuse a digit, never admit another byte, and
       none leaves a first half that passes. */
    uint64_t y = ((uint64_t)yb << 32 | ya) ^ UINT64_C(0x3030303030303030);
    if ((y | (y + UINT64_C(0x0606060606060606))) & UINT64_C(0xf0f0f0f0f0f0f0f0) & keep) break;
    y &= keep;
    y = (y * 10 + (y >> 8)) & UINT64_C(0x00ff00ff00ff00ff);
    const uint64_t r = y * UINT64_C(0x00640001); /* 100 (d0d1) + d2d3 of each half, in bits 16-31 and 48-63 */
    /* the sign: '+' is 0x2b, '-' 0x2d */
    const int eva = (int)((uint32_t)(r >> 16) & 0xffff) * ((qa >> 8 & 2) - 1);
    const int evb = (int)(uint32_t)(r >> 48) * ((qb >> 8 & 2) - 1);
    if (((unsigned)(eva + 1022) > 2045) | ((unsigned)(evb + 1022) > 2045)) break;
    /* the digits, two to a byte, the first on top; those past the count cleared */
    const __m256i dv = _mm256_add_epi8(_mm256_and_si256(x, c_0f), _mm256_and_si256(let, c_9));
    const __m256i pk = _mm256_packus_epi16(_mm256_maddubs_epi16(dv, nib), zero);
    const uint64_t da = __builtin_bswap64((uint64_t)_mm_cvtsi128_si64(_mm256_castsi256_si128(pk)));
    const uint64_t db = __builtin_bswap64((uint64_t)_mm_cvtsi128_si64(_mm256_extracti128_si256(pk, 1)));
    o[0] = from_bits((uint64_t)(nega << 11 | (unsigned)(eva + 1023)) << 52 | (da & ~(UINT64_MAX >> (4 * na))) >> 12);
    o[1] = from_bits((uint64_t)(negb << 11 | (unsigned)(evb + 1023)) << 52 | (db & ~(UINT64_MAX >> (4 * nb))) >> 12);
    o += 2;
    lst = eb;
    /* the next start: a branch, not a load in the chain from one pair to the next */
    if (*eb != ' ') {
      p = eb;
      break;
    }
    p = eb + 1;
  }
  *pp = p;
  *last = lst;
  return (int)(o - v);
}

#define B8(x) ((long long)(UINT64_C(0x0101010101010101) * (x)))
#define D2(x) ((long long)(UINT64_C(0x0000000100000001) * (x)))
/* The constants of fields_quads_avx2. A byte is a digit when it plus 0x50
   is below -118 as a signed byte ('0'..'9' become -128..-119), a letter
   when it with 0x20 set plus 0x1f is below -122 ('a'..'f' become
   -128..-123). to_lo and to_hi move the eight bytes of pmaddubsw's pairs,
   the first on top, into the low or the high 64-bit half of each 128-bit
   lane. */
static const struct quad_consts {
  __m256i blank, not_blank, c_dig, c_dig_lt, c_20, c_let, c_let_lt, c_0f, c_9, nib, to_lo, to_hi, head4, head5, low4,
      low5, ones, thirteen, sign, zp_mask, zp_val, zn_mask, zn_val;
  __m128i c7, c3, c80, c0, c9, p_plus, p_mask, w10, w100, bias, one, top;
} quad_consts = {
    .blank = {B8(0x20), B8(0x20), B8(0x20), B8(0x20)},
    .not_blank = {B8(0xdf), B8(0xdf), B8(0xdf), B8(0xdf)},
    .c_dig = {B8(0x50), B8(0x50), B8(0x50), B8(0x50)},
    .c_dig_lt = {B8(0x8a), B8(0x8a), B8(0x8a), B8(0x8a)}, /* -118 */
    .c_20 = {B8(0x20), B8(0x20), B8(0x20), B8(0x20)},
    .c_let = {B8(0x1f), B8(0x1f), B8(0x1f), B8(0x1f)},
    .c_let_lt = {B8(0x86), B8(0x86), B8(0x86), B8(0x86)}, /* -122 */
    .c_0f = {B8(0x0f), B8(0x0f), B8(0x0f), B8(0x0f)},
    .c_9 = {B8(0x09), B8(0x09), B8(0x09), B8(0x09)},
    /* 16 times the first byte of a pair, plus the second */
    .nib = {INT64_C(0x0110011001100110), INT64_C(0x0110011001100110), INT64_C(0x0110011001100110), INT64_C(0x0110011001100110)},
    .to_lo = {INT64_C(0x00020406080a0c0e), -1, INT64_C(0x00020406080a0c0e), -1},
    .to_hi = {-1, INT64_C(0x00020406080a0c0e), -1, INT64_C(0x00020406080a0c0e)},
    .head4 = {INT64_C(0x2e317830), INT64_C(0x2e317830), INT64_C(0x2e317830), INT64_C(0x2e317830)}, /* "0x1." */
    .head5 = {INT64_C(0x2e3178302d), INT64_C(0x2e3178302d), INT64_C(0x2e3178302d), INT64_C(0x2e3178302d)}, /* "-0x1." */
    .low4 = {INT64_C(0xffffffff), INT64_C(0xffffffff), INT64_C(0xffffffff), INT64_C(0xffffffff)},
    .low5 = {INT64_C(0xffffffffff), INT64_C(0xffffffffff), INT64_C(0xffffffffff), INT64_C(0xffffffffff)},
    .ones = {-1, -1, -1, -1},
    .thirteen = {13, 13, 13, 13},
    .sign = {INT64_MIN, INT64_MIN, INT64_MIN, INT64_MIN},
    /* "0x0p+0" and "-0x0p+0" then a blank, or in the last field a blank or a NUL (0x20 masked out) */
    .zp_mask = {INT64_C(0x00ffffffffffffff), INT64_C(0x00ffffffffffffff), INT64_C(0x00ffffffffffffff), INT64_C(0x00dfffffffffffff)},
    .zp_val = {INT64_C(0x0020302b70307830), INT64_C(0x0020302b70307830), INT64_C(0x0020302b70307830), INT64_C(0x0000302b70307830)},
    .zn_mask = {-1, -1, -1, (long long)UINT64_C(0xdfffffffffffffff)},
    .zn_val = {INT64_C(0x20302b703078302d), INT64_C(0x20302b703078302d), INT64_C(0x20302b703078302d), INT64_C(0x00302b703078302d)},
    .c7 = {D2(7), D2(7)},
    .c3 = {D2(3), D2(3)},
    .c80 = {D2(80), D2(80)},
    .c0 = {B8(0x30), B8(0x30)},
    .c9 = {B8(0x09), B8(0x09)},
    .p_plus = {D2(0x2b70), D2(0x2b70)}, /* "p+" */
    .p_mask = {D2(0xfdff), D2(0xfdff)},
    .w10 = {INT64_C(0x010a010a010a010a), INT64_C(0x010a010a010a010a)}, /* 10 times the first byte of a pair, plus the second */
    .w100 = {D2(0x00010064), D2(0x00010064)}, /* 100 times the first word of a pair, plus the second */
    .bias = {D2(1023), D2(1023)},
    .one = {D2(1), D2(1)},
    .top = {D2(2045), D2(2045)},
};

/* Fields of hex_a_fast's form read four at a time, from field i of n at *p,
   while at least QUAD_SPAN bytes are readable (each field starts within 33
   bytes of the one before, and is read within 43 bytes of its start). Each
   field's end from one 32-byte load at its start (a blank for the first
   three, whose next field starts after it; a blank or a NUL for the last);
   then, with one branch, every check and the four values in vectors: the
   heads ('0x1.' or '-0x1.', which give the signs) compared as four 64-bit
   words (and the zeros %a writes, '0x0p+0' and '-0x0p+0', taken there);
   the digits of two fields in each 256-bit vector (classified, their count
   n from the first other byte, packed by pmaddubsw and moved with one
   pshufb each into four 64-bit lanes, those past n cleared by a variable
   shift); the "p+" or "p-" after the digits compared as four 32-bit words;
   the four exponents as four 32-bit words, each moved by its length so that
   its digits are checked and valued at once by one pmaddubsw and one
   pmaddwd; one 256-bit store. Each value and end exactly as
   toi_parse_double_span gives them. Stops at the first four with a field
   not of these forms, which the readers two and one at a time then take;
   returns the index of its first field, *p at its start, *last at the end
   of the last field read. */
#define QUAD_SPAN 144
/* the trailing zeros of a 32-bit mask (32 when none), as a 64-bit count */
#define TZ64(m) ((uint64_t)_tzcnt_u32((uint32_t)(m)))
__attribute__((target("avx2,bmi,bmi2"))) static int fields_quads_avx2(const char **pp, const char *lim, int i, int n,
                                                                       double *v, const char **last) {
  const char *p = *pp, *lst = *last;
  double *o = v + i;
  /* the constants read from memory by the instructions that use them,
     through a pointer the compiler no longer knows (else it makes each
     again from its value at each use: its registers are too few for them) */
  const struct quad_consts *K = &quad_consts;
  __asm__("" : "+r"(K));
  for (int quads = (n - i) / 4; quads > 0 && lim - p >= QUAD_SPAN; quads--) {
    /* the ends: the first blank from each of the first three starts (a NUL
       before it then fails that field's exponent), the first blank or NUL
       from the last; 32 bytes on when there is none, which the exponent's
       length then refuses (a field of the form is at most 24 bytes) */
    const char *const s0 = p;
    const char *const e0 = s0 + TZ64(_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i *)(const void *)s0), K->blank)));
    const char *const s1 = e0 + 1;
    const char *const e1 = s1 + TZ64(_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i *)(const void *)s1), K->blank)));
    const char *const s2 = e1 + 1;
    const char *const e2 = s2 + TZ64(_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i *)(const void *)s2), K->blank)));
    const char *const s3 = e2 + 1;
    const char *const e3 = s3 + TZ64(_mm256_movemask_epi8(_mm256_cmpeq_epi8(
                                    _mm256_and_si256(_mm256_loadu_si256((const __m256i *)(const void *)s3), K->not_blank), _mm256_setzero_si256())));
    /* the heads: 0x1. or -0x1., as four 64-bit words */
    int64_t h0, h1, h2, h3;
    memcpy(&h0, s0, 8), memcpy(&h1, s1, 8), memcpy(&h2, s2, 8), memcpy(&h3, s3, 8);
    const __m256i h = _mm256_set_epi64x(h3, h2, h1, h0);
    const __m256i hneg = _mm256_cmpeq_epi64(_mm256_and_si256(h, K->low5), K->head5);
    const __m256i hok = _mm256_or_si256(_mm256_cmpeq_epi64(_mm256_and_si256(h, K->low4), K->head4), hneg);
    /* or a zero as %a writes it, 0x0p+0 or -0x0p+0, and its end (the first
       blank from its start, so the field's end found above) */
    const __m256i zn = _mm256_cmpeq_epi64(_mm256_and_si256(h, K->zn_mask), K->zn_val);
    const __m256i z = _mm256_or_si256(_mm256_cmpeq_epi64(_mm256_and_si256(h, K->zp_mask), K->zp_val), zn);
    /* after the sign: a '-' is the only byte below '0' a head may start with */
    const char *const b0 = s0 + ((unsigned char)s0[0] < '0'), *const b1 = s1 + ((unsigned char)s1[0] < '0');
    const char *const b2 = s2 + ((unsigned char)s2[0] < '0'), *const b3 = s3 + ((unsigned char)s3[0] < '0');
    /* the 16 bytes after each "0x1.": fields 0 and 2 in xa, 1 and 3 in xb */
    const __m256i xa = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)(b0 + 4))),
                                               _mm_loadu_si128((const __m128i *)(const void *)(b2 + 4)), 1);
    const __m256i xb = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)(b1 + 4))),
                                               _mm_loadu_si128((const __m128i *)(const void *)(b3 + 4)), 1);
    const __m256i leta = _mm256_cmpgt_epi8(K->c_let_lt, _mm256_add_epi8(_mm256_or_si256(xa, K->c_20), K->c_let));
    const __m256i letb = _mm256_cmpgt_epi8(K->c_let_lt, _mm256_add_epi8(_mm256_or_si256(xb, K->c_20), K->c_let));
    const uint32_t nha = ~(uint32_t)_mm256_movemask_epi8(_mm256_or_si256(_mm256_cmpgt_epi8(K->c_dig_lt, _mm256_add_epi8(xa, K->c_dig)), leta));
    const uint32_t nhb = ~(uint32_t)_mm256_movemask_epi8(_mm256_or_si256(_mm256_cmpgt_epi8(K->c_dig_lt, _mm256_add_epi8(xb, K->c_dig)), letb));
    /* the digits' counts, 0 to 32 (more than 13 refused) */
    const uint64_t n0 = TZ64(nha), n2 = TZ64(nha >> 16), n1 = TZ64(nhb), n3 = TZ64(nhb >> 16);
    const char *const x0 = b0 + n0, *const x1 = b1 + n1, *const x2 = b2 + n2, *const x3 = b3 + n3; /* the 'p' less 4 */
    /* the four bytes from each 'p', then the exponent's length, 1 to 4
       (the end less x, 7 to 10) */
    int32_t q0, q1, q2, q3;
    memcpy(&q0, x0 + 4, 4), memcpy(&q1, x1 + 4, 4), memcpy(&q2, x2 + 4, 4), memcpy(&q3, x3 + 4, 4);
    const __m128i q = _mm_setr_epi32(q0, q1, q2, q3);
    /* 'p' then '+' or '-': less "p+", 0 or 2 in the second byte (a byte
       other than 'p' leaves the first not zero, whatever it borrows) */
    const __m128i k = _mm_setr_epi32((int)(e0 - x0), (int)(e1 - x1), (int)(e2 - x2), (int)(e3 - x3));
    const __m128i k7 = _mm_sub_epi32(k, K->c7);
    __m128i ok = _mm_and_si128(_mm_cmpeq_epi32(_mm_and_si128(_mm_sub_epi32(q, K->p_plus), K->p_mask),
                                               _mm_setzero_si128()),
                               _mm_cmpeq_epi32(_mm_min_epu32(k7, K->c3), k7));
    /* the four bytes from each exponent's first digit, less '0', moved up
       by 4 - (k - 6) bytes (80 - 8k bits): its k - 6 digits the top bytes,
       zeros below, the bytes after it gone */
    int32_t y0, y1, y2, y3;
    memcpy(&y0, x0 + 6, 4), memcpy(&y1, x1 + 6, 4), memcpy(&y2, x2 + 6, 4), memcpy(&y3, x3 + 6, 4);
    const __m128i y = _mm_sllv_epi32(_mm_sub_epi8(_mm_setr_epi32(y0, y1, y2, y3), K->c0),
                                     _mm_sub_epi32(K->c80, _mm_slli_epi32(k, 3)));
    ok = _mm_and_si128(ok, _mm_cmpeq_epi8(_mm_min_epu8(y, K->c9), y));
    /* 1000 d0 + 100 d1 + 10 d2 + d3, then its sign: '+' (0x2b) has bit 1
       set, '-' (0x2d) not, which q << 22 puts in the sign bit (the rest of
       the word then holds the 'p': never zero) */
    const __m128i ev = _mm_madd_epi16(_mm_maddubs_epi16(y, K->w10), K->w100);
    const __m128i be = _mm_sub_epi32(K->bias, _mm_sign_epi32(ev, _mm_slli_epi32(q, 22)));
    /* a normal exponent: 1 to 2046 biased */
    const __m128i be1 = _mm_sub_epi32(be, K->one);
    ok = _mm_and_si128(ok, _mm_cmpeq_epi32(_mm_min_epu32(be1, K->top), be1));
    const __m256i nv = _mm256_set_epi64x((int64_t)n3, (int64_t)n2, (int64_t)n1, (int64_t)n0);
    const __m256i ok4 = _mm256_andnot_si256(_mm256_cmpgt_epi64(nv, K->thirteen), hok);
    /* each field a zero, or all of its checks passed (all the bits of each 32-bit word of ok) */
    const __m256i okf = _mm256_or_si256(_mm256_and_si256(ok4, _mm256_cvtepi32_epi64(_mm_cmpeq_epi32(ok, _mm256_castsi256_si128(K->ones)))), z);
    if (_mm256_movemask_pd(_mm256_castsi256_pd(okf)) != 15) break;
    /* the digits, two to a byte, the first on top, in four 64-bit lanes; those past n cleared */
    const __m256i da = _mm256_maddubs_epi16(_mm256_add_epi8(_mm256_and_si256(xa, K->c_0f), _mm256_and_si256(leta, K->c_9)), K->nib);
    const __m256i db = _mm256_maddubs_epi16(_mm256_add_epi8(_mm256_and_si256(xb, K->c_0f), _mm256_and_si256(letb, K->c_9)), K->nib);
    const __m256i d = _mm256_or_si256(_mm256_shuffle_epi8(da, K->to_lo), _mm256_shuffle_epi8(db, K->to_hi));
    const __m256i frac = _mm256_srli_epi64(_mm256_andnot_si256(_mm256_srlv_epi64(K->ones, _mm256_slli_epi64(nv, 2)), d), 12);
    const __m256i bits = _mm256_or_si256(_mm256_or_si256(_mm256_and_si256(hneg, K->sign), frac),
                                         _mm256_slli_epi64(_mm256_cvtepu32_epi64(be), 52));
    _mm256_storeu_si256((__m256i *)(void *)o, _mm256_blendv_epi8(bits, _mm256_and_si256(zn, K->sign), z));
    o += 4;
    lst = e3;
    if (*e3 != ' ') {
      p = e3;
      break;
    }
    p = e3 + 1;
  }
  *pp = p;
  *last = lst;
  return (int)(o - v);
}
#else
int numparse_simd_use(int level) {
  (void)level;
  return 0;
}
#endif

int toi_parse_double_fields(const char *p, const char *lim, int n, double *v, const char **end) {
  const char *last = p;
  int i = 0;
#ifdef FIELDS_AVX2
  int pairs = atomic_load_explicit(&fields_avx2, memory_order_relaxed);
  if (pairs < 0) pairs = numparse_simd_use(-1);
#endif
  while (i < n) {
#ifdef FIELDS_AVX2
    if (pairs > 1 && (i = fields_quads_avx2(&p, lim, i, n, v, &last)) == n) break;
    if (pairs && (i = fields_pairs_avx2(&p, lim, i, n, v, &last)) == n) break;
#endif
#ifdef HEX_A_FAST
    /* The common run: fields of hex_a_fast's form, one blank apart, each
       start the previous end plus one when that is a blank (a NUL, or a
       second blank, then fails the form and the field reader below takes
       it). No call inside, so the loop keeps its constants in registers. */
    while (lim - p >= HEX_A_SPAN && hex_a_fast(p, &v[i], &last)) {
      if (++i == n) goto done;
      if (*last != ' ') {
        p = last;
        break;
      }
      p = last + 1;
    }
#endif
    while (*p == ' ') p++;
    /* a digit, or a point and a digit, after the sign */
    const unsigned char *q = (const unsigned char *)p + (*p == '+' || *p == '-');
    if (!((*q >= '0' && *q <= '9') || (*q == '.' && q[1] >= '0' && q[1] <= '9'))) return 0;
    if (toi_parse_double_span(p, lim, &last, &v[i]) != TOI_NUM_OK) return 0;
    p = last + (*last == ' ');
    i++;
  }
#ifdef HEX_A_FAST
done:
#endif
  *end = last;
  return 1;
}
