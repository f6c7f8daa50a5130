/* test_ref_fast_quick.c: the fast engine's first stage (reference/fast/ref_fast_quick.c): answers as MPFR when it answers, counted, declines what its filters cannot decide. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "gen.h"
#include "ref_common.h"
#include "ref_fast_api.h"
#include "reference_check.h"
#include "ref_forms.h"
#include "ref_cases.h"

/* The first stage alone on c: 1 and its answer in *q when it answered. */
static int rq_quick(toi_ref *q, const toi_case *c) {
  ref_clear(q, TOI_NONE);
  return ref_fast_quick(q, c);
}

typedef struct rq_param {
  int family;
} rq_param;

ParameterizedTestParameters(ref_quick, answers_as_mpfr_per_family) {
  static rq_param p[TOI_GEN_FAMILY_COUNT];
  for (int f = 0; f < TOI_GEN_FAMILY_COUNT; f++) p[f].family = f;
  return cr_make_param_array(rq_param, p, TOI_GEN_FAMILY_COUNT);
}

/* 10^5 cases per family and scale unit: every answer the first stage gives
 * alone is the MPFR engine's, bit for bit. On generic and aimed data (no
 * near-tangent, near-contact or out-of-range cases by construction) it must
 * answer nearly always, or it would be useless. */
ParameterizedTest(rq_param *p, ref_quick, answers_as_mpfr_per_family) {
  if (!ref_fast_use_fma(-1)) cr_skip_test("no FMA on this processor: the first stage does not run");
  long n = 100000 * tr_scale();
  toi_gen_opts o;
  toi_gen_opts_default(&o, (toi_gen_family)p->family);
  o.seed = tr_seed();
  long used = 0;
  for (long i = 0; i < n; i++) {
    toi_case c;
    size_t bin;
    cr_assert_eq(toi_gen_case(&c, NULL, &bin, &o, (uint64_t)i), TOI_OK);
    toi_ref q, m;
    if (!rq_quick(&q, &c)) continue;
    used++;
    cr_assert_eq(tr_solve_engine(&m, &c, TOI_REF_MPFR), TOI_OK);
    if (!tr_same_ref(&q, &m)) {
      char a[256], b[256];
      rf_show(a, sizeof a, &q);
      rf_show(b, sizeof b, &m);
      cr_assert_fail("%s case %ld: first stage differs from mpfr on\n  %s\n  quick: %s\n  mpfr:  %s " SEED_MSG,
                     toi_gen_family_name(o.family), i, tr_fmt(&c), a, b, SEED_ARGS);
    }
  }
  if (o.family == TOI_GEN_GENERIC || o.family == TOI_GEN_AIMED)
    cr_expect_geq(used * 10, n * 9, "%s: the first stage answered only %ld of %ld cases " SEED_MSG,
                  toi_gen_family_name(o.family), used, n, SEED_ARGS);
}

/* toi_ref_solve counts the first stage's answers; a target distance and the
 * build without FMA never use it. */
Test(ref_quick, counted_and_only_where_it_applies) {
  if (!ref_fast_use_fma(-1)) cr_skip_test("no FMA on this processor: the first stage does not run");
  toi_gen_opts o;
  toi_gen_opts_default(&o, TOI_GEN_AIMED);
  o.seed = tr_seed();
  long n = 2000 * tr_scale(), used = 0;
  toi_ref_fast_stats st;
  toi_ref_fast_stats_reset();
  for (long i = 0; i < n; i++) {
    toi_case c;
    size_t bin;
    cr_assert_eq(toi_gen_case(&c, NULL, &bin, &o, (uint64_t)i), TOI_OK);
    toi_ref q, f;
    used += rq_quick(&q, &c);
    cr_assert_eq(tr_solve_engine(&f, &c, TOI_REF_FAST), TOI_OK);
  }
  toi_ref_fast_stats_get(&st);
  cr_expect_eq(st.calls, (unsigned long long)n);
  cr_expect_eq(st.quick, (unsigned long long)used, "counted %llu, answered %ld", st.quick, used);
  cr_expect_gt(used, 0);

  toi_ref_fast_stats_reset();
  for (long i = 0; i < n; i++) {
    toi_case c;
    size_t bin;
    cr_assert_eq(toi_gen_case(&c, NULL, &bin, &o, (uint64_t)i), TOI_OK);
    rf_check(&c, &(double){0.0}, "aimed with a zero target");
  }
  toi_ref_fast_stats_get(&st);
  cr_expect_eq(st.quick, 0, "a target distance went through the first stage");

  if (!ref_fast_use_fma(0)) {
    toi_ref_fast_stats_reset();
    for (long i = 0; i < n; i++) {
      toi_case c;
      size_t bin;
      cr_assert_eq(toi_gen_case(&c, NULL, &bin, &o, (uint64_t)i), TOI_OK);
      rf_check(&c, NULL, "aimed without FMA");
    }
    toi_ref_fast_stats_get(&st);
    cr_expect_eq(st.quick, 0, "the build without FMA went through the first stage");
  }
  ref_fast_use_fma(-1);
}

/* Where a sign is exactly zero the plain-double filters cannot decide it:
 * exact tangents (D = 0), touching balls (c = 0), motion across the line of
 * centres (b = 0, c > 0), and data whose scaling would lose bits. Each must
 * be declined, and the engine must still answer as MPFR. */
Test(ref_quick, declines_exact_zeros_and_lossy_scaling) {
  if (!ref_fast_use_fma(-1)) cr_skip_test("no FMA on this processor: the first stage does not run");
  toi_ref q;
  toi_gen_opts o;
  toi_gen_opts_default(&o, TOI_GEN_TANGENT);
  o.seed = tr_seed();
  o.k.lo = o.k.hi = 0;
  o.k.step = 1;
  for (long i = 0; i < 500 * tr_scale(); i++) {
    toi_case c;
    size_t bin;
    cr_assert_eq(toi_gen_case(&c, NULL, &bin, &o, (uint64_t)i), TOI_OK);
    cr_expect_not(rq_quick(&q, &c), "exact tangent %ld answered by the first stage: %s", i, tr_fmt(&c));
    rf_check(&c, NULL, "exact tangent");
  }
  for (int dim = 2; dim <= 3; dim++)
    for (int k = -40; k <= 40; k += 8) {
      double L = ldexp(1.0, k);
      toi_case cs[] = {
          rf_line(dim, 0, 5 * L, 3 * L, -1, 0, k), /* grazing: offset R = 3 2^k, D = 0 */
          rf_line(dim, 1, 3 * L, 0, -1, 0, k),     /* touching, approaching: c = 0 */
          rf_line(dim, 0, 3 * L, 0, 1, 0, k),      /* touching, leaving: c = 0 */
          rf_line(dim, 0, 5 * L, 0, 0, 1, k),      /* across the line of centres: b = 0, c > 0 */
          rf_line(dim, 1, 0, 5 * L, 0.5, 0, k),    /* the same, other axes */
      };
      for (size_t j = 0; j < sizeof cs / sizeof cs[0]; j++) {
        cr_expect_not(rq_quick(&q, &cs[j]), "zero-sign case %zu (k %d) answered by the first stage: %s", j, k,
                      tr_fmt(&cs[j]));
        rf_check(&cs[j], NULL, "zero-sign case");
      }
    }
  /* Lengths near 2^100 need scaling; a second component 2^-500 would fall
   * below 2^-480 once scaled by 2^-100. */
  toi_case c = rf_line(3, 0, 0x1p100, 0x1p-500, -1, 0, 90);
  cr_expect_not(rq_quick(&q, &c), "lossy scaling answered by the first stage: %s", tr_fmt(&c));
  rf_check(&c, NULL, "lossy scaling");
  /* Without the tiny component the same case is in range once scaled. */
  c = rf_line(3, 0, 0x1p100, 0, -1, 0, 90);
  cr_expect(rq_quick(&q, &c), "scaled head-on case declined: %s", tr_fmt(&c));
  rf_check(&c, NULL, "scaled head-on");
}

/*
 * Roots on or next to a rounding midpoint, from the maths: B at rest at
 * s = (m + 1/8 + 2^-53 + off) along an axis (pB = m + 1/8, pA = -(2^-53 +
 * off), both exact), A at rest, R = 1/8, closing speed 2^j. Then
 * t_lo = (m + 2^-53 + off) 2^-j and t_hi = (m + 1/4 + 2^-53 + off) 2^-j with
 * m in [1, 1.5) a double: each is the midpoint between two neighbouring
 * doubles moved by off. off = 0: exactly a midpoint, rounded to even (the
 * first stage must decline: no enclosure can exclude the boundary); off =
 * +-2^-70, +-2^-90: the neighbour on off's side.
 */
Test(ref_quick, roots_at_and_next_to_midpoints) {
  tr_rng r = {tr_seed() ^ 0x6d6964706f696e74ULL};
  static const double offs[] = {0, 0x1p-70, -0x1p-70, 0x1p-90, -0x1p-90, 0x1p-60, -0x1p-60};
  long n = 400 * tr_scale(), answered = 0;
  for (long i = 0; i < n; i++) {
    uint64_t frac = tr_next(&r) >> 13;          /* below 2^51 */
    double m = 1 + ldexp((double)frac, -52);     /* a double in [1, 1.5) */
    double off = offs[i % (long)(sizeof offs / sizeof offs[0])];
    int j = (int)tr_int(&r, -30, 30), dim = 2 + (int)(i & 1), ax = (int)tr_int(&r, 0, dim - 1);
    toi_case c;
    memset(&c, 0, sizeof c);
    strcpy(c.id, "midpoint");
    c.dim = dim;
    c.pb[ax] = m + 0.125;
    c.pa[ax] = -(0x1p-53 + off);
    c.vb[ax] = -ldexp(1.0, j);
    c.ra = c.rb = 0x1p-4;
    c.ma = c.mb = 1;
    /* The expected roundings: the double below the midpoint is x (m or
     * m + 1/4, same last bit), above it x + 2^-52. */
    double lo = m, hi = m + 0.25, up = 0x1p-52;
    int odd = (int)(frac & 1);
    int above = off > 0 || (off == 0 && odd);
    double elo = ldexp(lo + (above ? up : 0), -j), ehi = ldexp(hi + (above ? up : 0), -j);
    char where[160];
    snprintf(where, sizeof where, "midpoint case %ld (off %a) " SEED_MSG, i, off, SEED_ARGS);
    rf_expect(&c, TOI_HIT, elo, ehi, where);
    toi_ref q;
    if (ref_fast_fma() && rq_quick(&q, &c)) {
      answered++;
      cr_expect(off != 0, "%s: the first stage certified an exact midpoint", where);
      cr_expect(tr_same(q.tlo, elo) && tr_same(q.thi, ehi), "%s: first stage %a %a, expected %a %a", where, q.tlo,
                q.thi, elo, ehi);
    }
  }
  if (ref_fast_fma()) cr_expect_gt(answered, 0, "the first stage answered none of the near-midpoint cases");
}
