/* test_sweep_speed_exact.c: the sweep's fast paths give the bits of what they replace: frexp by the bit
   pattern, the inline draws, the IDs built without printf. */
#include <criterion/criterion.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "gen.h"
#include "rng.h"
#include "sweep.h"
#include "toiref.h"
#include "test_env.h"
#include "sweep_cells.h"
#include "ref_forms.h"


/* sweep_frexp against the C library's frexp: the same significand bits and exponent. */
static void same_as_frexp(double x) {
  int e1 = 12345, e2 = 12345;
  double m1 = frexp(x, &e1), m2 = sweep_frexp(x, &e2);
  if (isnan(x)) {
    cr_assert(isnan(m2), "NaN in, NaN out");
    return;
  }
  cr_assert_eq(te_bits(m1), te_bits(m2), "frexp(%a): %a against %a", x, m1, m2);
  cr_assert_eq(e1, e2, "frexp(%a): exponent %d against %d", x, e1, e2);
}

Test(sweep_speed_exact, frexp_edges) {
  const double xs[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 1.0, -1.0, 0.5, 0.75, 2.0, 3.0, DBL_MAX, -DBL_MAX,
                       DBL_MIN, -DBL_MIN, 0x1p-1074, -0x1p-1074, 0x1p-1073, 0x1.fffffffffffffp-1023,
                       0x1p-1023, 0x1.8p-1070, 0x1p1023, 0x1.fffffffffffffp+1023, 0x1p-1022 * (1 - 0x1p-52)};
  for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) same_as_frexp(xs[i]);
  /* Every exponent, with a few significands, both signs, subnormals included. */
  for (int be = 0; be < 2047; be++)
    for (uint64_t f = 0; f < 4; f++) {
      uint64_t frac = f == 0 ? 0 : f == 1 ? 1 : f == 2 ? ((uint64_t)1 << 52) - 1 : (uint64_t)0x123456789abcdull;
      same_as_frexp(te_of_bits((uint64_t)be << 52 | frac));
      same_as_frexp(te_of_bits((uint64_t)1 << 63 | (uint64_t)be << 52 | frac));
    }
  /* frexp(x) then describes x: m 2^e == x, 0.5 <= |m| < 1 (checked by maths, not by frexp). */
  int e;
  double m = sweep_frexp(0x1.8p-1070, &e);
  cr_assert_eq(m, 0.75);
  cr_assert_eq(e, -1069);
  m = sweep_frexp(-6.0, &e);
  cr_assert_eq(m, -0.75);
  cr_assert_eq(e, 3);
}

Test(sweep_speed_exact, frexp_random_patterns) {
  toi_rng r;
  toi_rng_seed(&r, 20261125u);
  for (int i = 0; i < 2000000; i++) same_as_frexp(te_of_bits(toi_rng_next(&r)));
  /* Subnormals alone. */
  for (int i = 0; i < 200000; i++) same_as_frexp(te_of_bits(toi_rng_next(&r) & (((uint64_t)1 << 52) - 1)));
}

/* The bins and the ratio that use it, at their boundaries, from the definitions in sweep.h. */
Test(sweep_speed_exact, bins_at_powers_of_two) {
  cr_assert_eq(sweep_ulp_bin(0.5), 2);                 /* [2^-1, 2^0): e = 0, bin e + 2 */
  cr_assert_eq(sweep_ulp_bin(1.0), 3);
  cr_assert_eq(sweep_ulp_bin(nextafter(1.0, 0)), 2);
  cr_assert_eq(sweep_kappa_bin(2.0), 1);               /* [2, 4): e = 2, bin e - 1 */
  cr_assert_eq(sweep_kappa_bin(nextafter(4.0, 0)), 1);
  cr_assert_eq(sweep_kappa_bin(4.0), 2);
  /* t* = 1, kappa = 1, 1 ulp off: 2^-52 / (2^-53 + 2^-1075), rounded: the denominator
     0.5 + 2^-1023 in units of 2^-52 is 0.5 once rounded, so the ratio is 2. */
  cr_assert_eq(sweep_ratio(1.0, 1.0, 1.0), 2.0);
  /* t* = 2^-1074, subnormal: ulp 2^-1074, denominator 2^-1074 2^-53 + 2^-1075, in
     units of 2^-1074: 2^-53 + 1/2, exact. */
  cr_assert_eq(sweep_ratio(1.0, 0x1p-1074, 1.0), 1.0 / (0.5 + 0x1p-53));
  cr_assert_eq(sweep_ratio(1.0, -0x1p-1074, 1.0), 1.0 / (0.5 + 0x1p-53));
}

/* The ratio's denominator for a normal root the short way (ratio_den64n) against the general way and against
   the definition through the C library (kappa m + 2^(-1022-e), |R| = m 2^e by frexp, 2^k by ldexp, which
   rounds 2^-1075 and below as IEEE 754 does): every exponent, random patterns, kappa from subnormal to
   huge, and kappa +Inf, NaN, 0 and negative (NaN). */
Test(sweep_speed_exact, ratio_den_of_normal_roots) {
  toi_rng r;
  toi_rng_seed(&r, 20261129u);
  for (int i = 0; i < 400000; i++) {
    uint64_t rb = toi_rng_next(&r), kb = toi_rng_next(&r);
    /* a normal R: exponent field 1 .. 2046, either sign; kappa > 0 over the whole range */
    rb = (rb & ~((uint64_t)0x7ff << 52)) | (uint64_t)(1 + (rb >> 52 & 0x7ff) % 2046) << 52;
    double R = te_of_bits(rb), kappa = fabs(te_of_bits((kb & ~((uint64_t)0x7ff << 52)) | ((kb >> 52 & 0x7ff) % 2047) << 52));
    if (i % 97 == 0) kappa = i % 3 ? INFINITY : i % 2 ? NAN : -1.0;
    if (i % 101 == 0) kappa = 0;
    double got = sweep_ratio_den64n(R, kappa), general = sweep_ratio_den(R, kappa);
    cr_assert(!memcmp(&got, &general, sizeof got) || (isnan(got) && isnan(general)), "R %a kappa %a: %a, general %a",
              R, kappa, got, general);
    int e;
    double m = frexp(fabs(R), &e), def = isfinite(kappa) && kappa > 0 ? kappa * m + ldexp(1, -1022 - e) : NAN;
    cr_assert(!memcmp(&got, &def, sizeof got) || (isnan(got) && isnan(def)), "R %a kappa %a: %a, by definition %a",
              R, kappa, got, def);
  }
}

/* The bins as sweep.h defines them, through the C library's frexp (x = m 2^e,
   m in [0.5, 1): x in [2^(e-1), 2^e)): the exponent-field bins must agree. */
static int ulp_bin_by_def(double u) {
  if (isnan(u) || u < 0) return -1;
  if (u == 0) return 0;
  if (isinf(u)) return 67;
  if (u < 0.5) return 1;
  int e;
  (void)frexp(u, &e); /* 2^(H-3) <= u < 2^(H-2): H = e + 2 */
  return e + 2 > 66 ? 66 : e + 2;
}

static int kappa_bin_by_def(double k) {
  if (isnan(k) || k < 0) return -1;
  if (isinf(k)) return 128;
  if (k < 2) return 0;
  int e;
  (void)frexp(k, &e); /* 2^J <= k < 2^(J+1): J = e - 1 */
  return e - 1 > 127 ? 127 : e - 1;
}

static void bins_as_defined(double x) {
  cr_assert_eq(sweep_ulp_bin(x), ulp_bin_by_def(x), "ulp bin of %a", x);
  cr_assert_eq(sweep_kappa_bin(x), kappa_bin_by_def(x), "kappa bin of %a", x);
}

Test(sweep_speed_exact, bins_by_exponent_field) {
  const double xs[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, -NAN, 0.5, nextafter(0.5, 0), 2.0, nextafter(2.0, 0),
                       0x1p63, nextafter(0x1p63, 0), 0x1p64, 0x1p127, nextafter(0x1p127, 0), 0x1p128, DBL_MAX,
                       0x1p-1074, -0x1p-1074, DBL_MIN, -1.0, -DBL_MAX};
  for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) bins_as_defined(xs[i]);
  for (int be = 0; be < 2048; be++)
    for (int sign = 0; sign < 2; sign++) {
      uint64_t s = (uint64_t)sign << 63 | (uint64_t)be << 52;
      bins_as_defined(te_of_bits(s));
      bins_as_defined(te_of_bits(s | 1));
      bins_as_defined(te_of_bits(s | (((uint64_t)1 << 52) - 1)));
    }
  toi_rng r;
  toi_rng_seed(&r, 20261128u);
  for (int i = 0; i < 1000000; i++) bins_as_defined(te_of_bits(toi_rng_next(&r)));
}

/* The inline draws against the extern ones, and xoshiro256** computed here by its published steps. */
static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

Test(sweep_speed_exact, inline_draws) {
  toi_rng a, b;
  uint64_t s[4] = {0x0123456789abcdefull, 0xfedcba9876543210ull, 42, 7};
  memcpy(a.s, s, sizeof s);
  memcpy(b.s, s, sizeof s);
  for (int i = 0; i < 100000; i++) {
    uint64_t want = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0], s[3] ^= s[1], s[1] ^= s[2], s[0] ^= s[3], s[2] ^= t, s[3] = rotl(s[3], 45);
    cr_assert_eq(toi_rng_next_i(&a), want);
    cr_assert_eq(toi_rng_next(&b), want);
  }
  for (int i = 0; i < 100000; i++) {
    uint64_t n = 1 + (uint64_t)i * 2654435761u % 1000003u;
    cr_assert_eq(toi_rng_below_i(&a, n), toi_rng_below(&b, n));
    cr_assert_eq(toi_rng_int_i(&a, -5, (int64_t)n), toi_rng_int(&b, -5, (int64_t)n));
    double u = toi_rng_uniform_i(&a, -3, 7), v = toi_rng_uniform(&b, -3, 7);
    cr_assert_eq(te_bits(u), te_bits(v));
    cr_assert(u >= -3 && u <= 7);
  }
}

/* Every family's IDs as the format "%s%s%s%s-%06" PRIu64 spells them: the family
   (after "mixed-" in mixed), a tag or none, the index zero-padded to six digits. */
Test(sweep_speed_exact, ids_as_printf) {
  for (int f = 0; f < TOI_GEN_FAMILY_COUNT; f++) {
    toi_gen_opts o;
    toi_gen_opts_default(&o, (toi_gen_family)f);
    const uint64_t idx[] = {0, 7, 999999, 1000000, 123456789012ull, UINT64_MAX};
    for (size_t i = 0; i < sizeof idx / sizeof idx[0]; i++) {
      toi_case c;
      size_t bin;
      cr_assert_eq(toi_gen_case(&c, NULL, &bin, &o, idx[i]), TOI_OK);
      char tail[32];
      snprintf(tail, sizeof tail, "-%06" PRIu64, idx[i]);
      size_t n = strlen(c.id), m = strlen(tail);
      cr_assert(n > m && strcmp(c.id + n - m, tail) == 0, "%s ends with %s", c.id, tail);
      const char *fam = toi_gen_family_name((toi_gen_family)f);
      if (f == TOI_GEN_MIXED) cr_assert(strncmp(c.id, "mixed-", 6) == 0, "%s", c.id);
      else cr_assert(strncmp(c.id, fam, strlen(fam)) == 0 && (c.id[strlen(fam)] == '-'), "%s", c.id);
    }
  }
}

/* The case check made once per case (with the fast engine's state) still refuses every invalid case, also
   when the same memory alternates between a valid case and an invalid one. */
Test(sweep_speed_exact, check_once_per_case) {
  toi_case c;
  memset(&c, 0, sizeof c);
  c.dim = 2;
  c.pa[0] = 0, c.pb[0] = 10, c.vb[0] = -1, c.ra = c.rb = 1, c.ma = c.mb = 1; /* contact at t = 8 */
  double ulp, bits, kappa;
  for (int round = 0; round < 3; round++) {
    cr_assert_eq(tr_error(&ulp, &bits, 8.0, &c, TOI_FORWARD), TOI_OK);
    cr_assert_eq(ulp, 0.0);
    cr_assert_eq(tr_kappa(&kappa, &c, TOI_FORWARD), TOI_OK);
    toi_case bad = c;
    double *field[] = {&bad.pa[1], &bad.va[0], &bad.pb[2], &bad.vb[1], &bad.ra, &bad.rb};
    double val[] = {INFINITY, NAN, 1.0, -INFINITY, -1.0, NAN};
    for (int f = 0; f < 6; f++) {
      double keep = *field[f];
      *field[f] = val[f];
      cr_assert_eq(tr_error(&ulp, &bits, 8.0, &bad, TOI_FORWARD), TOI_ERR_INPUT, "field %d", f);
      cr_assert(isnan(ulp) && isnan(bits));
      cr_assert_eq(tr_kappa(&kappa, &bad, TOI_FORWARD), TOI_ERR_INPUT, "field %d", f);
      cr_assert_eq(tr_error_prec(&ulp, &bits, 8.0, &bad, TOI_FORWARD, TOI_BINARY32, TOI_REF_FAST),
                   TOI_ERR_INPUT, "field %d", f);
      *field[f] = keep;
      cr_assert_eq(tr_error(&ulp, &bits, 8.0, &bad, TOI_FORWARD), TOI_OK, "field %d", f);
    }
    bad.dim = 4;
    cr_assert_eq(tr_error(&ulp, &bits, 8.0, &bad, TOI_FORWARD), TOI_ERR_INPUT);
    cr_assert_eq(tr_kappa(&kappa, &bad, TOI_FORWARD), TOI_ERR_INPUT);
  }
}

/* Columns with the same answer share one score and one error measure (sweep_eval_case_given): each column
   of a sweep whose formulations repeat (accurate three times, ericson twice, robust between them) gets
   the statistics, bit for bit, of a sweep of that formulation alone, on grazing cases (errors and kappa
   large and near the bins' edges: the enclosures rarely decide) and on mixed ones. */

Test(sweep_speed_exact, repeated_columns_score_as_alone) {
  static const char *const names[] = {"accurate", "ericson", "accurate", "robust", "ericson", "accurate"};
  enum { NC = sizeof names / sizeof names[0], N = 4000 };
  toi_candidate cands[NC];
  for (size_t j = 0; j < NC; j++) {
    const toi_formulation *f = toi_formulation_find(names[j]);
    cr_assert_not_null(f, "%s", names[j]);
    toi_candidate_formulation(&cands[j], f);
  }
  static const char *const fams[] = {"grazing", "mixed"};
  for (size_t fi = 0; fi < 2; fi++) {
    toi_gen_opts o;
    toi_gen_family fam;
    cr_assert_eq(toi_gen_family_parse(&fam, fams[fi]), TOI_OK);
    toi_gen_opts_default(&o, fam);
    o.seed = 29;
    size_t nb = toi_gen_bin_count(&o);
    sweep_acc all, alone[NC];
    cr_assert_eq(sweep_acc_init(&all, NC, nb), 0);
    for (size_t j = 0; j < NC; j++) cr_assert_eq(sweep_acc_init(&alone[j], 1, nb), 0);
    for (uint64_t i = 0; i < N; i++) {
      toi_case c;
      size_t b;
      cr_assert_eq(toi_gen_case(&c, NULL, &b, &o, i), TOI_OK);
      cr_assert_eq(sweep_eval_case_with(&all, cands, NC, NULL, INFINITY, &c, b, i, TOI_REF_FAST), TOI_OK);
      for (size_t j = 0; j < NC; j++)
        cr_assert_eq(sweep_eval_case_with(&alone[j], &cands[j], 1, NULL, INFINITY, &c, b, i, TOI_REF_FAST), TOI_OK);
    }
    uint64_t timed = 0;
    for (size_t j = 0; j < NC; j++)
      for (size_t b = 0; b < nb; b++) {
        char what[64];
        snprintf(what, sizeof what, "%s column %zu (%s) bin %zu", fams[fi], j, names[j], b);
        tc_same_cell(&all.cells[j * nb + b], &alone[j].cells[b], what, 0);
        timed += alone[j].cells[b].timed;
      }
    cr_assert_gt(timed, N, "%s: %llu timed answers", fams[fi], (unsigned long long)timed);
    sweep_acc_free(&all);
    for (size_t j = 0; j < NC; j++) sweep_acc_free(&alone[j]);
  }
}
