/* test_numparse.c: toi_parse_double against strtod and exact midpoints; toi_fmt_hex and toi_fmt_g6 against printf. */
#include <criterion/criterion.h>
#include <float.h>
#include <gmp.h>
#include <mpfr.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "numfmt.h"
#include "numparse.h"
#include "pow5_table.h"
#include "toi.h"
#include "test_env.h"
#include "test_rng.h"

#define SEED_NOTE "(rerun with TOI_TEST_SEED=%llu; include it in bug reports)"


/* The reference verdict on a whole token, in toi_parse_double's terms: what
   strtod reads whole, at the value strtod gives for a decimal and the exact
   value rounded by MPFR for a hex float (glibc 2.36's strtod rounds a few
   hex subnormals of more than 13 digits the wrong way, e.g.
   0x3.e7150258f80cbp-1024 to ...032 where the nearest is ...033). */
static toi_num_status strtod_status(const char *t, double *x) {
  char *end;
  *x = strtod(t, &end);
  if (end == t || *end) return TOI_NUM_SYNTAX;
  const char *p = t + (*t == '+' || *t == '-');
  if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
    mpfr_t m;
    mpfr_init2(m, (mpfr_prec_t)(4 * strlen(t) + 64)); /* holds the token's value exactly */
    mpfr_strtofr(m, t, NULL, 16, MPFR_RNDN);
    *x = mpfr_get_d(m, MPFR_RNDN);
    mpfr_clear(m);
  }
  return isinf(*x) ? TOI_NUM_OVERFLOW : TOI_NUM_OK;
}

/* toi_parse_double(t) agrees with the reference bit for bit; 1 when it does. */
static int agrees(const char *t) {
  double want, got = 0;
  toi_num_status ws = strtod_status(t, &want), gs = toi_parse_double(t, &got);
  if (ws != gs) return 0;
  if (ws != TOI_NUM_SYNTAX && te_bits(got) != te_bits(want)) return 0;
  /* The same token as a field of a line, followed by a blank and more: the
     same status and value, and the end at the blank. */
  size_t n = strlen(t);
  if (n > 4000 || strchr(t, ' ')) return 1;
  char line[4096 + 8];
  memcpy(line, t, n);
  memcpy(line + n, " 7 x", 5);
  const char *end = NULL;
  double f = 0;
  toi_num_status fs = toi_parse_double_field(line, &end, &f);
  if (fs != ws) return 0;
  if (ws != TOI_NUM_SYNTAX && (te_bits(f) != te_bits(want) || end != line + n)) return 0;
  /* And with the bytes after the field readable (toi_parse_double_span):
     hex digits after the blank, then after a NUL instead, must not count. */
  static const char pad[] = " fedcba9876543210fedcba9876543210";
  for (int z = 0; z < 2; z++) {
    memcpy(line + n, pad, sizeof pad);
    if (z) line[n] = '\0';
    end = NULL;
    f = 0;
    fs = toi_parse_double_span(line, line + n + sizeof pad, &end, &f);
    if (fs != ws) return 0;
    if (ws != TOI_NUM_SYNTAX && (te_bits(f) != te_bits(want) || end != line + n)) return 0;
  }
  return 1;
}

static void check_agrees(const char *t, uint64_t seed) {
  if (agrees(t)) return;
  double want, got = 0;
  toi_num_status ws = strtod_status(t, &want), gs = toi_parse_double(t, &got);
  cr_assert_fail("'%.200s': got status %d %a, reference %d %a " SEED_NOTE, t, gs, got, ws, want,
           (unsigned long long)seed);
}

/* Any finite double, every bit pattern alike, or one of magnitude 2^-60..2^60. */
static double draw(test_rng *r, int narrow) {
  if (narrow) return test_rng_double(r, -60, 60);
  for (;;) {
    double x = te_of_bits(test_rng_next(r));
    if (isfinite(x)) return x;
  }
}

Test(numparse, random_doubles_printed_every_way) {
  const uint64_t seed = te_seed(0x6e756d70617273ULL);
  test_rng r = {seed};
  const long n = 120000 * te_scale();
  char t[96];
  for (long i = 0; i < n; i++) {
    double x = draw(&r, i & 1);
    snprintf(t, sizeof t, "%a", x);
    check_agrees(t, seed);
    snprintf(t, sizeof t, "%.17g", x);
    check_agrees(t, seed);
    snprintf(t, sizeof t, "%.16g", x);
    check_agrees(t, seed);
    snprintf(t, sizeof t, "%.*e", (int)test_rng_int(&r, 1, 25), x);
    check_agrees(t, seed);
    snprintf(t, sizeof t, "%.*e", (int)(i % 25) + 1, x);
    check_agrees(t, seed);
  }
}

/* Random digit strings: up to 40 digits, a point anywhere or none, an exponent or none. */
Test(numparse, random_digit_strings) {
  const uint64_t seed = te_seed(0x646967697473ULL);
  test_rng r = {seed};
  const long n = 300000 * te_scale();
  char t[96];
  for (long i = 0; i < n; i++) {
    size_t k = 0;
    if (test_rng_next(&r) & 1) t[k++] = (test_rng_next(&r) & 1) ? '-' : '+';
    int nd = (int)test_rng_int(&r, 1, 40), pt = (int)test_rng_int(&r, -1, nd);
    int zeros = (int)test_rng_int(&r, 0, 3) == 0 ? (int)test_rng_int(&r, 0, 12) : 0;
    for (int j = 0; j < nd; j++) {
      if (j == pt) t[k++] = '.';
      t[k++] = (char)('0' + (j < zeros ? 0 : test_rng_int(&r, 0, 9)));
    }
    if (pt == nd) t[k++] = '.';
    if (test_rng_next(&r) & 1)
      k += (size_t)snprintf(t + k, sizeof t - k, "e%ld", test_rng_int(&r, -345, 330));
    t[k] = '\0';
    check_agrees(t, seed);
  }
}

/* Strings over the characters of numbers (no letter of inf or nan): what
   strtod reads whole is read, with its value, and nothing else. */
Test(numparse, random_syntax_like_strtod) {
  static const char set[] = "0123456789.eE+-xXpPabcdefABCDEF";
  static const char *const fixed[] = {"", "+", "-", ".", "+.", ".e1", "0x", "0x.", "0x.p1", "0xp1", "1e", "1e+",
                                      "1e-", "0x1p", "0x1p-", "1.2.3", "1..", "..1", "+-1", "--1", "5.", "5.e3",
                                      ".5", "-.5e-3", "0x.8p1", "0x1.", "0X1P3", "1E5", "00012", "0x1e5"};
  for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++) check_agrees(fixed[i], 0);
  const uint64_t seed = te_seed(0x73796e746178ULL);
  test_rng r = {seed};
  const long n = 200000 * te_scale();
  char t[16];
  for (long i = 0; i < n; i++) {
    int len = (int)test_rng_int(&r, 1, 12);
    for (int j = 0; j < len; j++) t[j] = set[test_rng_int(&r, 0, (long)sizeof set - 2)];
    if (len >= 2 && (test_rng_next(&r) & 1)) t[0] = '0', t[1] = 'x';
    t[len] = '\0';
    check_agrees(t, seed);
  }
}

/* The exact decimal of N 2^E (N > 0) as "DIGITSe-K" (or DIGITS when E >= 0),
   or with long_form "0.000DIGITS" spelled out: every digit of the expansion. */
static char *exact_decimal(const mpz_t N, long E, int long_form) {
  mpz_t v;
  mpz_init(v);
  long k = 0;
  if (E >= 0) {
    mpz_mul_2exp(v, N, (mp_bitcnt_t)E);
  } else {
    mpz_ui_pow_ui(v, 5, (unsigned long)-E); /* N 2^E = N 5^-E 10^E */
    mpz_mul(v, v, N);
    k = -E;
  }
  char *d = mpz_get_str(NULL, 10, v);
  size_t nd = strlen(d);
  char *out = malloc(nd + (size_t)k + 32);
  if (k == 0) {
    sprintf(out, "%s", d);
  } else if (!long_form) {
    sprintf(out, "%se-%ld", d, k);
  } else if ((size_t)k >= nd) { /* 0.ZEROS DIGITS */
    size_t z = (size_t)k - nd;
    memcpy(out, "0.", 2);
    memset(out + 2, '0', z);
    strcpy(out + 2 + z, d);
  } else {
    sprintf(out, "%.*s.%s", (int)(nd - (size_t)k), d, d + nd - (size_t)k);
  }
  free(d);
  mpz_clear(v);
  return out;
}

/* x positive finite and below DBL_MAX: its upper midpoint (x + next(x)) / 2 as N 2^E, N odd. */
static void upper_midpoint(double x, mpz_t N, long *E) {
  int e;
  double m = frexp(x, &e); /* x = m 2^e, m in [0.5, 1) */
  long ex = e - 53;
  if (ex < -1074) ex = -1074; /* subnormal: the grid is 2^-1074 */
  double ulps = ldexp(x, (int)-ex); /* an integer below 2^53 */
  (void)m;
  mpz_set_d(N, ulps);
  mpz_mul_2exp(N, N, 1);
  mpz_add_ui(N, N, 1);
  *E = ex - 1;
}

/* The three tokens around one midpoint: exact (ties to even), one unit of
   the last digit below, a 1 appended far right (above); each must give the
   double the rounding rule says, and strtod's. */
static void check_midpoint(double lo, const mpz_t N, long E, int long_form, uint64_t seed) {
  double hi = nextafter(lo, INFINITY), even = (te_bits(lo) & 1) ? hi : lo;
  char *t = exact_decimal(N, E, long_form);
  double got;
  cr_assert_eq(toi_parse_double(t, &got), isinf(even) ? TOI_NUM_OVERFLOW : TOI_NUM_OK, "%.80s", t);
  cr_assert_eq(te_bits(got), te_bits(even), "tie '%.60s...' (%zu chars) gave %a, want %a " SEED_NOTE, t, strlen(t), got,
               even, (unsigned long long)seed);
  check_agrees(t, seed);
  char *up = malloc(strlen(t) + 40);
  char *ep = strchr(t, 'e');
  if (ep) sprintf(up, "%.*s1e-%ld", (int)(ep - t), t, atol(ep + 2) + 1);
  else sprintf(up, "%s%s1", t, strchr(t, '.') ? "" : ".");
  cr_assert_eq(toi_parse_double(up, &got) == TOI_NUM_SYNTAX, 0);
  cr_assert_eq(te_bits(got), te_bits(hi), "above '%.60s' gave %a, want %a", up, got, hi);
  check_agrees(up, seed);
  /* below: the digits minus one in the last place, written the same way */
  char *d = exact_decimal(N, E, 0), *dig = strtok(d, "e");
  mpz_t v;
  mpz_init_set_str(v, dig, 10);
  mpz_sub_ui(v, v, 1);
  char *vs = mpz_get_str(NULL, 10, v), *dn = malloc(strlen(vs) + 40);
  sprintf(dn, "%se-%ld", vs, E < 0 ? -E : 0L);
  cr_assert_eq(toi_parse_double(dn, &got) == TOI_NUM_SYNTAX, 0);
  cr_assert_eq(te_bits(got), te_bits(lo), "below '%.60s' gave %a, want %a", dn, got, lo);
  check_agrees(dn, seed);
  free(vs), free(dn), free(d), free(up), free(t);
  mpz_clear(v);
}

Test(numparse, exact_midpoints_and_their_neighbours) {
  const uint64_t seed = te_seed(0x6d6964ULL);
  test_rng r = {seed};
  const long n = 3000 * te_scale();
  mpz_t N;
  mpz_init(N);
  for (long i = 0; i < n; i++) {
    double x;
    switch (i % 4) {
    case 0: x = fabs(draw(&r, 0)); break;
    case 1: x = fabs(test_rng_double(&r, -1074, -1000)); break; /* subnormal and near */
    case 2: x = fabs(test_rng_double(&r, -30, 60)); break;
    default: x = te_of_bits(test_rng_next(&r) % (UINT64_C(1) << 52)); /* every subnormal alike */
    }
    if (!(x > 0) || x == DBL_MAX) continue;
    long E;
    upper_midpoint(x, N, &E);
    check_midpoint(x, N, E, (int)(i / 4 % 2), seed);
  }
  mpz_clear(N);
}

/* The boundaries, against values the compiler read from the same text. */
Test(numparse, subnormal_and_overflow_boundaries) {
  static const struct {
    const char *t;
    double want;
    toi_num_status st;
  } v[] = {
      {"0x1p-1074", 0x1p-1074, TOI_NUM_OK},
      {"0x1.p5", 0x1p5, TOI_NUM_OK},
      {"-0x1.0p-1022", -0x1p-1022, TOI_NUM_OK},
      {"0x1.8p-1023", 0x1.8p-1023, TOI_NUM_OK},
      {"0x1.fffffffffffffp-1023", 0x1p-1022, TOI_NUM_OK}, /* a tie: up to the even smallest normal */
      {"0x1.fffffffffffffp+1023", DBL_MAX, TOI_NUM_OK},
      {"0x1.fffffffffffff0p+1023", DBL_MAX, TOI_NUM_OK},
      {"0x1.fffffffffffff1p+1023", DBL_MAX, TOI_NUM_OK},
      {"0x1.0000000000000P+0", 1, TOI_NUM_OK},
      {"0x1p-1075", 0, TOI_NUM_OK}, /* a tie: to the even zero */
      {"0x1.0000000000000000001p-1075", 0x1p-1074, TOI_NUM_OK},
      {"0x1.8p-1075", 0x1p-1074, TOI_NUM_OK},
      {"0x1.8p-1074", 0x1p-1073, TOI_NUM_OK}, /* a tie: to the even 2 */
      {"0x1p-1076", 0, TOI_NUM_OK},
      {"-0x1p-2000", -0.0, TOI_NUM_OK},
      {"0x0.fffffffffffff8p-1022", 0x1p-1022, TOI_NUM_OK}, /* tie above the largest subnormal: up */
      {"0x0.fffffffffffff7ffffp-1022", 0x0.fffffffffffffp-1022, TOI_NUM_OK},
      {"0x0.fffffffffffffp-1022", 0x0.fffffffffffffp-1022, TOI_NUM_OK},
      {"0x1p-1022", DBL_MIN, TOI_NUM_OK},
      {"2.2250738585072014e-308", DBL_MIN, TOI_NUM_OK},
      {"2.2250738585072011e-308", 0x0.fffffffffffffp-1022, TOI_NUM_OK},
      {"4.9406564584124654e-324", 0x1p-1074, TOI_NUM_OK},
      {"2.4703282292062327e-324", 0, TOI_NUM_OK},
      {"2.4703282292062328e-324", 0x1p-1074, TOI_NUM_OK},
      {"1e-400", 0, TOI_NUM_OK},
      {"1.7976931348623157e308", DBL_MAX, TOI_NUM_OK},
      {"1.7976931348623158e308", DBL_MAX, TOI_NUM_OK},
      {"1.7976931348623159e308", INFINITY, TOI_NUM_OVERFLOW},
      {"-1e309", -INFINITY, TOI_NUM_OVERFLOW},
      {"0x1.fffffffffffff7ffffffp1023", DBL_MAX, TOI_NUM_OK},
      {"0x1.fffffffffffff8p1023", INFINITY, TOI_NUM_OVERFLOW},
      {"0x1p1024", INFINITY, TOI_NUM_OVERFLOW},
      {"0x0.00000000000000000001p1100", 0x1p1020, TOI_NUM_OK},
      {"0x1p99999999999999999999", INFINITY, TOI_NUM_OVERFLOW},
      {"0x0p99999999999999999999", 0, TOI_NUM_OK},
      {"1e99999999999999999999", INFINITY, TOI_NUM_OVERFLOW},
      {"0e99999999999999999999", 0, TOI_NUM_OK},
      {"9007199254740993", 9007199254740992.0, TOI_NUM_OK}, /* 2^53 + 1: a tie, to even */
      {"9007199254740993.0000000000000000000000001", 9007199254740994.0, TOI_NUM_OK},
  };
  for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
    double got;
    cr_assert_eq(toi_parse_double(v[i].t, &got), v[i].st, "%s", v[i].t);
    cr_assert_eq(te_bits(got), te_bits(v[i].want), "%s gave %a, want %a", v[i].t, got, v[i].want);
    check_agrees(v[i].t, 0);
  }
}

/* The overflow threshold DBL_MAX + half an ulp written out exactly (a tie:
   to the even side, which is 2^1024), and one unit below it. */
Test(numparse, overflow_threshold_exact) {
  mpz_t N;
  mpz_init_set_ui(N, 1);
  mpz_mul_2exp(N, N, 54);
  mpz_sub_ui(N, N, 1); /* (2^54 - 1) 2^970 = 2^1024 - 2^970 */
  char *t = exact_decimal(N, 970, 0);
  double got;
  cr_assert_eq(toi_parse_double(t, &got), TOI_NUM_OVERFLOW, "%s", t);
  check_agrees(t, 0);
  t[strlen(t) - 1] = (char)(t[strlen(t) - 1] - 1); /* the exact value ends in 4, 6 or 8: no borrow */
  cr_assert_eq(toi_parse_double(t, &got), TOI_NUM_OK, "%s", t);
  cr_assert_eq(got, DBL_MAX);
  check_agrees(t, 0);
  free(t);
  mpz_clear(N);
}

/* Hex significands of 14 to 40 digits: the bits past the 53rd round, the
   ones past the 64th only as a sticky bit. */
Test(numparse, long_hex_significands) {
  const uint64_t seed = te_seed(0x686578ULL);
  test_rng r = {seed};
  const long n = 100000 * te_scale();
  static const char hexd[] = "0123456789abcdef";
  char t[96];
  for (long i = 0; i < n; i++) {
    size_t k = 0;
    if (i & 1) t[k++] = '-';
    k += (size_t)sprintf(t + k, "0x%x.", (unsigned)test_rng_int(&r, 0, 15));
    int nd = (int)test_rng_int(&r, 13, 40), tie = (int)test_rng_int(&r, 0, 3);
    for (int j = 0; j < nd; j++) {
      int d = (int)test_rng_int(&r, 0, 15);
      if (tie && j == 13) d = 8;                 /* exactly half an ulp of a 1.x significand... */
      if (tie && j > 13) d = tie == 2 && j == nd - 1 ? 1 : 0; /* ...or just above it */
      t[k++] = hexd[d];
    }
    sprintf(t + k, "p%ld", test_rng_int(&r, -1100, 1030));
    check_agrees(t, seed);
  }
}

/* toi_parse_double_span with the buffer ending 0 to 24 bytes after the
   token's NUL, in a buffer of exactly that size (so that a read past it is
   an error under a memory checker), hex digits after the NUL: the same
   status and value as the reference, whether the digits are read eight at
   a time (16 bytes or more left) or one at a time. */
static void check_span_ends(const char *t) {
  double want;
  toi_num_status ws = strtod_status(t, &want);
  size_t n = strlen(t);
  for (size_t pad = 0; pad <= 24; pad++) {
    char *buf = malloc(n + 1 + pad);
    cr_assert_not_null(buf);
    memcpy(buf, t, n + 1);
    for (size_t i = 0; i < pad; i++) buf[n + 1 + i] = "0123456789abcdef"[i % 16];
    const char *end = NULL;
    double f = 0;
    toi_num_status fs = toi_parse_double_span(buf, buf + n + 1 + pad, &end, &f);
    cr_assert_eq(fs, ws, "'%s' with %zu bytes after its NUL: status %d, reference %d", t, pad, fs, ws);
    if (ws != TOI_NUM_SYNTAX) {
      cr_assert_eq(te_bits(f), te_bits(want), "'%s' with %zu bytes after its NUL: %a, reference %a", t, pad, f, want);
      cr_assert_eq(end, buf + n, "'%s' with %zu bytes after its NUL: end", t, pad);
    }
    free(buf);
  }
}

Test(numparse, hex_digits_near_the_buffer_end) {
  static const char *const tokens[] = {
      /* 13 digits, fewer, none; signs; the exponent's edges */
      "0x1.3e9deaa7d9b56p+3", "-0x1.6bc326d2da922p+2", "0x1.0494158d413ep-3", "0x1.fec6ap+3", "0x1.8p+0",
      "0x1.p+0", "0x1p+0", "0x0p+0", "-0x0p+0", "0x1.fffffffffffffp+1023", "0x1.0000000000000p-1022",
      "0x1.abcdef0123456p-1022", "0x1.8p+01", "0x1.8p+0001", "0x1.8p+00001", "0x1.8p-1023", "0x1.8p+1024",
      /* 14 digits and more: rounded */
      "0x1.3e9deaa7d9b568p+3", "0x1.3e9deaa7d9b5680p+3", "0x1.00000000000008p+0", "0x1.00000000000018p+0",
      "0x1.000000000000080000001p+0", "0x1.fffffffffffff8p+1023", "0x1.0123456789abcdef0123p-5",
      /* uppercase digits, X and P */
      "0x1.ABCDEF0123456p+3", "0X1.AbCdEf0123456P-3", "0x1.FFFFFFFFFFFFFp+1023", "0x1.aBcDeFp+9",
      /* subnormals */
      "0x0.0000000000001p-1022", "0x0.fffffffffffffp-1022", "0x1p-1074", "0x1p-1075", "0x1.8p-1075",
      "0x3.e7150258f80cbp-1024",
      /* not numbers: a bad byte inside or after the digit run */
      "0x1.12g4p+0", "0x1.123456789abcg4p+0", "0x1.123456789abcdg4p+0", "0x1.12\xb4p+0",
      "0x1.1234567\xe4p+0", "0x1.12345678\xe4p+0", "0x1.123456789abc:p+0", "0x1.123456789abc@p+0",
      "0x1.123456789abc`p+0", "0x1.123456789abc/p+0", "0x1.123456789abcGp+0", "0x1.123456789abc\x7fp+0",
      "0x1.1.2p+0", "0x1.12p", "0x1.12p+", "0x1.12pp+0", "0x1.12q+0", "0x1.12p+1x", "0x1.12p+1.5", "0x1.",
      "0x1.12p+0\t"};
  for (size_t i = 0; i < sizeof tokens / sizeof *tokens; i++) check_span_ends(tokens[i]);
  /* every digit count from 0 to 20, each digit value, at every buffer end */
  char t[64];
  for (int nd = 0; nd <= 20; nd++)
    for (int d = 0; d < 22; d++) {
      int k = sprintf(t, "%s0x1.", d & 1 ? "-" : "");
      for (int j = 0; j < nd; j++) t[k++] = "0123456789abcdefABCDEF"[(d + j) % 22];
      sprintf(t + k, "p%+d", d * 47 - 500);
      check_span_ends(t);
    }
}

/* toi_parse_double_fields on the n fields of line (NUL-terminated, its
   bytes readable up to lim) against the same fields read one by one by
   toi_parse_double_span with nothing known past each field's end (lim = the
   field itself: the byte loop, no look-ahead): the same verdict, the same
   values bit for bit, the same end. */
static void check_fields(const char *line, const char *lim, int n, const char *what, uint64_t seed) {
  double got[16], want[16];
  const char *gend = NULL, *wend = NULL;
  int gr = toi_parse_double_fields(line, lim, n, got, &gend), wr = 1;
  const char *p = line;
  for (int i = 0; i < n && wr; i++) {
    while (*p == ' ') p++;
    const char *q = p + (*p == '+' || *p == '-');
    if (!((*q >= '0' && *q <= '9') || (*q == '.' && q[1] >= '0' && q[1] <= '9'))) {
      wr = 0;
      break;
    }
    const char *e = NULL;
    if (toi_parse_double_span(p, p, &e, &want[i]) != TOI_NUM_OK) wr = 0;
    p = e;
  }
  wend = p;
  cr_assert_eq(gr, wr, "%s: '%.300s': verdict %d, field by field %d " SEED_NOTE, what, line, gr, wr,
               (unsigned long long)seed);
  if (!wr) return;
  cr_assert_eq(gend, wend, "%s: '%.300s': end " SEED_NOTE, what, line, (unsigned long long)seed);
  for (int i = 0; i < n; i++)
    cr_assert_eq(te_bits(got[i]), te_bits(want[i]), "%s: '%.300s': field %d %a, field by field %a " SEED_NOTE,
                 what, line, i + 1, got[i], want[i], (unsigned long long)seed);
}

/* A double drawn for the %a reader's edges: any bit pattern, a normal one of
   magnitude 2^-60..2^60, a subnormal, zero, the extremes, or few digits. */
static double draw_edge(test_rng *r) {
  switch (test_rng_int(r, 0, 7)) {
  case 0: /* subnormal, of 1 to 52 significant bits */
    return te_of_bits((test_rng_next(r) & (UINT64_C(1) << 63)) |
                      (test_rng_next(r) & ((UINT64_C(1) << 52) - 1)) >> (int)test_rng_int(r, 0, 51));
  case 1: return (test_rng_next(r) & 1) ? -0.0 : 0.0;
  case 2: return (test_rng_next(r) & 1) ? DBL_MAX : -DBL_MIN;
  case 3: return ldexp((double)test_rng_int(r, 1, 4096), (int)test_rng_int(r, -1074, 1011)); /* few digits */
  case 4: return test_rng_double(r, -60, 60);
  default: return draw(r, 0);
  }
}

/* Random lines of %a numbers (the form case files hold, and variants:
   capitals, a '+', exponents with leading zeros, one or more blanks), with
   0 to 40 bytes readable after the NUL: the line reader agrees with the
   field-by-field byte loop, and every field with the MPFR/strtod reference. */
Test(numparse, fields_random_hex_lines) {
  const uint64_t seed = te_seed(0x666c64736865ULL);
  test_rng r = {seed};
  const long n = 20000 * te_scale();
  char line[16 * 40 + 64], tok[48];
  for (long it = 0; it < n; it++) {
    int nf = (int)test_rng_int(&r, 1, 16);
    size_t k = 0;
    for (int i = 0; i < nf; i++) {
      double x = draw_edge(&r);
      int len = snprintf(tok, sizeof tok, "%a", x);
      int v = (int)test_rng_int(&r, 0, 15);
      if (v == 0) /* capitals */
        for (int j = 0; j < len; j++) tok[j] = (char)(tok[j] >= 'a' && tok[j] <= 'f' ? tok[j] - 32 : tok[j]);
      if (v == 1 && tok[0] != '-') { /* a '+' */
        memmove(tok + 1, tok, (size_t)len + 1);
        tok[0] = '+';
        len++;
      }
      if (v == 2) { /* the exponent with leading zeros */
        char *pp = strchr(tok, 'p') + 2;
        int z = (int)test_rng_int(&r, 1, 3);
        memmove(pp + z, pp, strlen(pp) + 1);
        memset(pp, '0', (size_t)z);
        len += z;
      }
      double want;
      cr_assert_eq(strtod_status(tok, &want), TOI_NUM_OK, "'%s'", tok);
      int blanks = v == 3 ? (int)test_rng_int(&r, 2, 4) : 1;
      for (int b = 0; b < blanks; b++) line[k++] = ' ';
      memcpy(line + k, tok, (size_t)len);
      k += (size_t)len;
    }
    line[k] = '\0';
    size_t pad = (size_t)test_rng_int(&r, 0, 40);
    memset(line + k + 1, 'f', pad);
    check_fields(line, line + k + 1 + pad, nf, "random line", seed);
    double got[16];
    const char *end;
    cr_assert(toi_parse_double_fields(line, line + k + 1 + pad, nf, got, &end));
    cr_assert_eq(end, line + k);
    const char *p = line;
    for (int i = 0; i < nf; i++) {
      while (*p == ' ') p++;
      double want;
      char one[48];
      size_t l = strcspn(p, " ");
      memcpy(one, p, l);
      one[l] = '\0';
      cr_assert_eq(strtod_status(one, &want), TOI_NUM_OK);
      cr_assert_eq(te_bits(got[i]), te_bits(want), "'%s': %a, reference %a " SEED_NOTE, one, got[i], want,
                   (unsigned long long)seed);
      p += l;
    }
  }
}

/* Every byte of a line of %a numbers replaced in turn by each of bytes that
   a number may or may not hold there, the line's bytes readable well past
   its end: the line reader agrees with the field-by-field byte loop (the
   same fields refused, the same values where none is). */
static void garbage_at_each_byte(const char *base, int nf) {
  /* bytes one bit away from a blank or a NUL among them (\x01, \x60, \xa0, \x21) */
  static const char subst[] = " \tgGxXpP.+-019aAfF:/@`\x7f\x80\xff\x01\xa0!";
  const size_t len = strlen(base);
  char line[16 * 40 + 160 + 2];
  cr_assert(len + 1 + 160 + 1 <= sizeof line);
  for (size_t at = 0; at < len; at++)
    for (size_t j = 0; j < sizeof subst; j++) { /* the last is the NUL */
      memcpy(line, base, len + 1);
      memset(line + len + 1, '7', 160);
      line[at] = subst[j];
      check_fields(line, line + len + 1 + 160, nf, "garbage", 0);
      /* a byte added there instead, the rest moved on */
      memcpy(line, base, at);
      line[at] = subst[j];
      memcpy(line + at + 1, base + at, len + 1 - at);
      check_fields(line, line + len + 1 + 160, nf, "insertion", 0);
    }
}

/* Lines for garbage_at_each_byte: forms the readers take and forms they
   leave to the exact reader, and a line of the common form throughout, its
   exponents of one to four digits and both signs, 0 to 13 digits, at the
   edges of the normal range (p-1022, p+1023) and below it (subnormals, which
   the exact reader takes); every field valid, so that all are read. */
static const char garbage_base9[] = "-0x1.3e9deaa7d9b56p+3 0x1.0494158d413ep-3 0x1.8p+0 -0x1.fffffffffffffp+1023 "
                                    "0x1.0000000000001p-1022 0x1p+0 0x0p+0 -0x0p+0 0x1.abcdef0123456p-1000";
static const char garbage_base16[] =
    "0x1.3e9deaa7d9b56p+3 -0x1.6bc326d2da922p-2 0x1.p+0 -0x1.fp+10 0x1.0000000000001p-1022 "
    "-0x1.fffffffffffffp+1023 0x1.8p-1023 0x1.4p-1024 0x1.ABCDEFp-0999 -0x1.01p+0042 0x1.2p-0001 "
    "0x1.123456789abcdp+7 -0x1.cp-99 0x1.5p+00000 0x1.0494158d413ep-3 -0x1.76a4b0edfa78p-1";

/* The ways of reading a line numparse_simd_use offers: four fields at a
   time (then two, then one), two at a time, one at a time; each falls back
   to the next where the machine lacks it. */
static const int simd_ways[] = {2, 1, 0};
#define N_WAYS ((int)(sizeof simd_ways / sizeof *simd_ways))

Test(numparse, fields_garbage_at_each_byte) {
  for (int w = 0; w < N_WAYS; w++) {
    numparse_simd_use(simd_ways[w]);
    garbage_at_each_byte(garbage_base9, 9);
  }
  numparse_simd_use(-1);
}

/* The same on a line of the common form, every way of reading it (four or
   two fields at a time where the machine allows it, and one at a time). */
Test(numparse, fields_garbage_at_each_byte_common_form) {
  for (int w = 0; w < N_WAYS; w++) {
    numparse_simd_use(simd_ways[w]);
    garbage_at_each_byte(garbage_base16, 16);
  }
  numparse_simd_use(-1);
}

/* Lines of the common form of 4, 5 and 8 fields (one or two groups of four,
   and one left over), the zeros %a writes among them at every place in a
   four, a bad or an added byte at every position of each: the
   field read four at a time that holds it is refused whatever its place in
   the four, and the readers after it agree with the byte loop. */
static const char garbage_base4[] = "-0x1.fffffffffffffp+1023 0x1.8p-1 0x1.0000000000001p-1022 -0x0p+0";
static const char garbage_base5[] = "0x1.3e9deaa7d9b56p+3 -0x1p+0 0x1.ABCDEFp-42 0x0p+0 -0x1.123456789abcdp-7";
static const char garbage_base8[] = "0x1.p+0 -0x1.6bc326d2da922p-2 -0x0p+0 -0x1.fp+10 0x1.2p-0001 "
                                    "0x1.0494158d413ep-3 -0x1.cp-99 0x0p+0";
static const char garbage_base8b[] = "0x0p+0 -0x1.abcdef0123456p-0999 0x1.8p-1 0x1.0000000000001p-1022 -0x0p+0 0x0p+0 "
                                     "0x1.4p+100 -0x1.123456789abcdp-7";

Test(numparse, fields_garbage_at_each_byte_four_at_a_time) {
  for (int w = 0; w < N_WAYS; w++) {
    numparse_simd_use(simd_ways[w]);
    garbage_at_each_byte(garbage_base4, 4);
    garbage_at_each_byte(garbage_base5, 5);
    garbage_at_each_byte(garbage_base8, 8);
    garbage_at_each_byte(garbage_base8b, 8);
  }
  numparse_simd_use(-1);
}

/* numparse_simd_use: a way beyond the machine's best gives the best, -1
   the best, and each way asked for at most the best is the way in use. */
Test(numparse, simd_ways) {
  const int best = numparse_simd_use(-1);
  cr_assert(best >= 0 && best <= 2);
  cr_assert_eq(numparse_simd_use(5), best);
  for (int w = 0; w <= best; w++) cr_assert_eq(numparse_simd_use(w), w);
  numparse_simd_use(-1);
}

/* A line whose NUL is the last readable byte before an unmapped page: the
   line reader, told so by lim, reads nothing past it, whatever the number of
   bytes between each field and the end. LONG_DEC, 49 bytes, has no blank in
   its first 32: a reader that looks for a field's end there reads furthest
   past it (the bounds QUAD_SPAN and the pair reader's 65 bytes). */
#define LONG_DEC "1.00000000000000000000000000000000000000000000001"
static void line_at_the_end_of_a_page(void) {
  long pg = sysconf(_SC_PAGESIZE);
  char *map = mmap(NULL, (size_t)(2 * pg), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  cr_assert(map != MAP_FAILED);
  cr_assert_eq(mprotect(map + pg, (size_t)pg, PROT_NONE), 0);
  static const char *const lines[] = {"0x1.3e9deaa7d9b56p+3 -0x1.6bc326d2da922p+2 0x1.0494158d413ep-3",
                                      "-0x1.fffffffffffffp+1023 0x1.8p+0 0x1.0000000000001p-1022",
                                      "0x1.3e9deaa7d9b56p+3", "0x1p-1074 0x1.p+0 0x1.abcdef0123456p+1000",
                                      garbage_base16, garbage_base8b,
                                      /* fields with no blank in their first 32 bytes: the readers' longest reads */
                                      LONG_DEC " 0x1.8p+0", LONG_DEC " " LONG_DEC " " LONG_DEC " " LONG_DEC " 0x1.8p+0",
                                      "0x1.8p+0 " LONG_DEC " -0x1.fffffffffffffp-1022 0x1.8p+0 0x1.8p+0"};
  for (size_t i = 0; i < sizeof lines / sizeof *lines; i++) {
    size_t n = strlen(lines[i]);
    int nf = 1;
    for (size_t j = 0; j < n; j++) nf += lines[i][j] == ' ';
    for (size_t cut = 0; cut < 160; cut++) { /* the line's end, then 0..159 more bytes ('7's), then the page's end */
      char *line = map + pg - (n + 1 + cut);
      memcpy(line, lines[i], n + 1);
      memset(line + n + 1, '7', cut);
      check_fields(line, map + pg, nf, "page end", 0);
    }
  }
  munmap(map, (size_t)(2 * pg));
}

Test(numparse, fields_line_at_the_end_of_a_page) {
  for (int w = 0; w < N_WAYS; w++) {
    numparse_simd_use(simd_ways[w]);
    line_at_the_end_of_a_page();
  }
  numparse_simd_use(-1);
}

/* A double of any class, as its bits: normal anywhere in the range (its
   ends too), subnormal, zero, DBL_MIN and DBL_MAX and their neighbours, few
   significant digits, or any pattern (rarely an infinity or a NaN). */
static double draw_class(test_rng *r) {
  const uint64_t sign = test_rng_next(r) & UINT64_C(1) << 63, frac = test_rng_next(r) & ((UINT64_C(1) << 52) - 1);
  switch (test_rng_int(r, 0, 9)) {
  case 0: return te_of_bits(sign | frac >> (int)test_rng_int(r, 0, 51)); /* subnormal */
  case 1: return te_of_bits(sign); /* zero */
  case 2: return te_of_bits(sign | (uint64_t)test_rng_int(r, 1, 3) << 52 | frac); /* the low end */
  case 3: return te_of_bits(sign | (uint64_t)test_rng_int(r, 2044, 2046) << 52 | frac); /* the high end */
  case 4: return te_of_bits(sign | (uint64_t)test_rng_int(r, 1, 2046) << 52 | (frac & ~((UINT64_C(1) << (4 * (int)test_rng_int(r, 0, 13))) - 1)));
  case 5: {
    static const double edge[] = {DBL_MIN, DBL_MAX, 0x1.0000000000001p-1022, 0x1.fffffffffffffp+1022, 1.0, 0x1p-1074};
    return sign ? -edge[test_rng_int(r, 0, 5)] : edge[test_rng_int(r, 0, 5)];
  }
  case 6: return te_of_bits(test_rng_next(r));
  default: return te_of_bits(sign | (uint64_t)test_rng_int(r, 1, 2046) << 52 | frac); /* normal */
  }
}

/* Random lines of 1 to 16 numbers of every class, written by toi_fmt_hex or
   printf's %a (the same text), one blank apart or more, with 0 to 200 bytes
   readable past the NUL: the line reader, four, two and one fields at a
   time, agrees with the field-by-field byte loop, and every field's value
   with strtod's (MPFR's for hex). */
Test(numparse, fields_every_class_both_ways) {
  const uint64_t seed = te_seed(0x70616972ULL);
  test_rng r = {seed};
  const long n = 20000 * te_scale();
  char line[16 * 40 + 208], tok[48];
  double x[16];
  for (long it = 0; it < n; it++) {
    const int nf = (int)test_rng_int(&r, 1, 16);
    size_t k = 0;
    for (int i = 0; i < nf; i++) {
      x[i] = draw_class(&r);
      int len = test_rng_int(&r, 0, 1) ? (int)toi_fmt_hex(tok, x[i]) : snprintf(tok, sizeof tok, "%a", x[i]);
      int blanks = test_rng_int(&r, 0, 15) == 0 ? (int)test_rng_int(&r, 2, 3) : 1;
      for (int b = 0; b < blanks; b++) line[k++] = ' ';
      memcpy(line + k, tok, (size_t)len);
      k += (size_t)len;
    }
    line[k] = '\0';
    const size_t pad = (size_t)test_rng_int(&r, 0, 200);
    memset(line + k + 1, test_rng_int(&r, 0, 1) ? 'f' : ' ', pad);
    for (int w = 0; w < N_WAYS; w++) {
      static const char *const way_name[] = {"four at a time", "two at a time", "one at a time"};
      numparse_simd_use(simd_ways[w]);
      check_fields(line, line + k + 1 + pad, nf, way_name[w], seed);
      double got[16];
      const char *end;
      int finite = 1;
      for (int i = 0; i < nf; i++) finite &= isfinite(x[i]) != 0;
      cr_assert_eq(toi_parse_double_fields(line, line + k + 1 + pad, nf, got, &end), finite);
      if (!finite) continue;
      cr_assert_eq(end, line + k);
      for (int i = 0; i < nf; i++)
        cr_assert_eq(te_bits(got[i]), te_bits(x[i]), "'%s': field %d %a, written %a " SEED_NOTE, line, i + 1, got[i],
                     x[i], (unsigned long long)seed);
    }
  }
  numparse_simd_use(-1);
}

/* The writers against printf on every kind of double. */
static void check_writers(double x, uint64_t seed) {
  char got[TOI_FMT_MAX], want[64];
  size_t n = toi_fmt_hex(got, x);
  snprintf(want, sizeof want, "%a", x);
  cr_assert_str_eq(got, want, "%%a of %a " SEED_NOTE, x, (unsigned long long)seed);
  cr_assert_eq(n, strlen(want));
  n = toi_fmt_g6(got, x);
  snprintf(want, sizeof want, "%.6g", x);
  cr_assert_str_eq(got, want, "%%.6g of %a " SEED_NOTE, x, (unsigned long long)seed);
  cr_assert_eq(n, strlen(want));
}

Test(numfmt, random_bit_patterns_and_magnitudes) {
  const uint64_t seed = te_seed(0x666d74ULL);
  test_rng r = {seed};
  const long n = 600000 * te_scale();
  for (long i = 0; i < n; i++) {
    check_writers(te_of_bits(test_rng_next(&r)), seed);
    check_writers(test_rng_double(&r, -40, 40), seed);
  }
}

/* Edges: zeros, infinities, NaNs of both signs, subnormals, DBL_MAX, the
   carries of %.6g (999999.5 is 1e+06), the %e/%f switch at 1e-5 and 1e6,
   ties of the seventh digit (1234565: to even) and their neighbours. */
Test(numfmt, edges) {
  static const double v[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, -NAN, 0x1p-1074, -0x1p-1074, 0x1p-1073,
                             0x0.fffffffffffffp-1022, DBL_MIN, DBL_MAX, -DBL_MAX, 1, -1, 0.5, 0.1, 1e-5,
                             9.999995e-5, 9.9999949999e-5, 1e-4, 0.0001, 999999.5, 999999.4999, 999999, 1e6,
                             9999995, 1234565, 1234575, 1234565.0000001, 100000, 123456.5, 0.000123456, 1e100,
                             9.999995e300, 9.9999950000001e-300, 4.9406564584124654e-324, 1e-323, 9.999995e-308};
  for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
    check_writers(v[i], 0);
    check_writers(nextafter(v[i], INFINITY), 0);
    check_writers(nextafter(v[i], -INFINITY), 0);
  }
  /* every power of ten and its neighbours, and 9.999995 10^k */
  for (int k = -323; k <= 308; k++) {
    double p = pow(10, k), c = 9.999995 * pow(10, k);
    for (int s = -2; s <= 2; s++) {
      double a = p, b = c;
      for (int j = 0; j < abs(s); j++) a = nextafter(a, s > 0 ? INFINITY : 0), b = nextafter(b, s > 0 ? INFINITY : 0);
      check_writers(a, 0);
      check_writers(b, 0);
    }
  }
}

/* %a of every exponent (subnormals' too) with every count of fraction
   digits (0 to 13, the last one not zero) and every digit value at every
   place, both signs, against printf: the digits are written thirteen at a
   time and cut after the last that is not zero, the exponent's digits
   without a loop. */
Test(numfmt, hex_every_exponent_digit_count_and_digit) {
  const uint64_t seed = te_seed(0x6865786eULL);
  test_rng r = {seed};
  for (uint64_t be = 0; be < 2047; be++)
    for (int nd = 0; nd <= 13; nd++) {
      uint64_t frac = nd ? (test_rng_next(&r) & ((UINT64_C(1) << 52) - 1)) >> (4 * (13 - nd)) << (4 * (13 - nd)) : 0;
      if (nd) frac |= (uint64_t)test_rng_int(&r, 1, 15) << (4 * (13 - nd)); /* the last digit not zero */
      for (uint64_t sign = 0; sign < 2; sign++) check_writers(te_of_bits(sign << 63 | be << 52 | frac), seed);
    }
  for (int place = 0; place < 13; place++)
    for (uint64_t d = 0; d < 16; d++)
      for (uint64_t be = 0; be < 2047; be += 89) {
        uint64_t frac = (test_rng_next(&r) & ((UINT64_C(1) << 52) - 1) & ~(UINT64_C(15) << (4 * place))) | d << (4 * place);
        check_writers(te_of_bits(be << 52 | frac), seed);
      }
}

/* Integers ending in 5 at the seventh digit, and dyadic numbers whose
   seventh digit is an exact 5, are ties (to even); their neighbours are not. */
Test(numfmt, seventh_digit_ties) {
  const uint64_t seed = te_seed(0x746965ULL);
  test_rng r = {seed};
  for (long i = 0; i < 200000 * te_scale(); i++) {
    long lo = 100000 + test_rng_int(&r, 0, 899999);
    int z = (int)test_rng_int(&r, 0, 9);
    double x = (double)(lo * 10 + 5);
    for (int j = 0; j < z; j++) x *= 10;
    check_writers(x, seed);
    check_writers(x / 1024, seed);
    /* c / 2^(k+1), c odd: x 10^k = c 5^k / 2 is a tie of the seventh digit when it lies in [10^5, 10^6) */
    int k = (int)test_rng_int(&r, 0, 5);
    long p5 = 1;
    for (int j = 0; j < k; j++) p5 *= 5;
    long c = (2 * 100000 + p5 - 1) / p5 + test_rng_int(&r, 0, 1800000 / p5 - 1);
    double t = ldexp((double)(c | 1), -(k + 1));
    check_writers(t, seed);
    check_writers(nextafter(t, 0), seed);
    check_writers(nextafter(t, INFINITY), seed);
  }
}

/* Through the case reader: each refused token gets the message the format
   promises, naming line and field (field 3 is pA.x). */
Test(numparse, case_reader_messages) {
  static const struct {
    const char *tok, *msg;
  } v[] = {
      {"0x1p", "'0x1p' is not a number"},
      {"1e", "'1e' is not a number"},
      {"1e+", "'1e+' is not a number"},
      {".", "'.' is not a number"},
      {"0x", "'0x' is not a number"},
      {"1.5.2", "'1.5.2' is not a number"},
      {"infinity", "'infinity' is not finite (NaN and Inf are not allowed)"},
      {"-nan", "'-nan' is not finite (NaN and Inf are not allowed)"},
      {"+INF", "'+INF' is not finite (NaN and Inf are not allowed)"},
      {"1e309", "'1e309' is beyond the double range (overflow)"},
      {"-0x1.fffffffffffff8p1023", "'-0x1.fffffffffffff8p1023' is beyond the double range (overflow)"},
  };
  for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
    char text[256], want[256], got[700];
    snprintf(text, sizeof text, "c 2 %s 0 0 0 1 1 3 0 -1 0 1 1\n", v[i].tok);
    toi_caselist l = {0};
    toi_diags dg = {0};
    cr_assert_eq(toi_parse_cases(&l, "t.cases", text, strlen(text), &dg), TOI_ERR_INPUT, "%s", v[i].tok);
    cr_assert_eq(dg.count, 1);
    toi_diag_format(&dg.items[0], got, sizeof got);
    snprintf(want, sizeof want, "t.cases:1: field 3 (pA.x): %s", v[i].msg);
    cr_assert_str_eq(got, want);
  }
  const char *ok = "c 2 -0x1p-1075 2.4703282292062328e-324 0 0 1 1 3 0 -1 0 1 1\n";
  toi_caselist l = {0};
  toi_diags dg = {0};
  cr_assert_eq(toi_parse_cases(&l, "t.cases", ok, strlen(ok), &dg), TOI_OK);
  cr_assert_eq(te_bits(l.items[0].pa[0]), te_bits(-0.0)); /* underflow to zero is legal */
  cr_assert_eq(l.items[0].pa[1], 0x1p-1074);
  toi_caselist_free(&l);
}

/* Every row of the power table is 5^q 2^-s within one unit, s = floor(q
   log2 5) - 127 as numfmt.c computes it, and lies in [2^127, 2^128). */
Test(numparse, power_of_five_table) {
  mpz_t five, t, lo;
  mpz_inits(five, t, lo, NULL);
  for (int q = TOI_POW5_MIN; q <= TOI_POW5_MAX; q++) {
    const uint64_t *row = toi_pow5_128[q - TOI_POW5_MIN];
    mpz_set_ui(t, (unsigned long)(row[0] >> 32));
    mpz_mul_2exp(t, t, 32);
    mpz_add_ui(t, t, (unsigned long)(row[0] & 0xffffffffu));
    mpz_mul_2exp(t, t, 32);
    mpz_add_ui(t, t, (unsigned long)(row[1] >> 32));
    mpz_mul_2exp(t, t, 32);
    mpz_add_ui(t, t, (unsigned long)(row[1] & 0xffffffffu));
    cr_assert_eq(mpz_sizeinbase(t, 2), 128, "row %d", q);
    long sft = ((217706L * q) >> 16) - q - 127; /* 5^q = T 2^sft */
    mpz_ui_pow_ui(five, 5, (unsigned long)abs(q));
    if (q >= 0) { /* floor(5^q 2^-sft) */
      if (sft <= 0) mpz_mul_2exp(lo, five, (mp_bitcnt_t)-sft);
      else mpz_fdiv_q_2exp(lo, five, (mp_bitcnt_t)sft);
    } else { /* floor(2^-sft / 5^-q) */
      mpz_set_ui(lo, 1);
      mpz_mul_2exp(lo, lo, (mp_bitcnt_t)-sft);
      mpz_fdiv_q(lo, lo, five);
    }
    mpz_sub(lo, t, lo);
    cr_assert(mpz_cmp_ui(lo, 0) >= 0 && mpz_cmp_ui(lo, 1) <= 0, "row %d is not 5^q 2^%ld within one unit", q, -sft);
  }
  mpz_clears(five, t, lo, NULL);
}
