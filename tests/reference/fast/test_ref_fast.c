/* test_ref_fast.c: the fast engine (reference/fast/ref_fast.c) on answers known from the maths, its exact stages, and how rarely it falls back to MPFR. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gen.h"
#include "ref_common.h"
#include "ref_fast_api.h"
#include "reference_check.h"
#include "ref_forms.h"
#include "ref_cases.h"

/*
 * Cases with a known answer (powers of two, 3-4-5 triangles, exact contact
 * and grazing, Pell pairs with D = +-1) check the fast engine against the
 * maths, and against the MPFR engine on the same case; the counts check that
 * it answers most cases itself. That it answers every case as the MPFR
 * engine, bit for bit (the corpora, every family, random data over the
 * whole range, targets, the batch): test_ref_generic.c. Counts scale with
 * TOI_TEST_SCALE; seeds come from TOI_TEST_SEED.
 */

ParameterizedTestParameters(ref_fast, families_rarely_fall_back) {
  static tr_fam_param p[2 * TOI_GEN_FAMILY_COUNT];
  return cr_make_param_array(tr_fam_param, p, tr_fam_params(p));
}

/* 10^6 cases per family and scale unit (half of them in 3D), 4 10^3 for
 * the build without FMA, each solved once alone and once in a block through
 * toi_ref_solve_batch (the widest vector kernels this processor runs): every
 * call counted once, and the fallbacks to MPFR rare. (That every answer is
 * the MPFR engine's: ref_generic/families, solve and solve_batch.) */
ParameterizedTest(tr_fam_param *p, ref_fast, families_rarely_fall_back) {
  int fma_in_use = ref_fast_use_fma(p->fma ? -1 : 0);
  if (!p->fma && fma_in_use) cr_skip_test("compiled for FMA (FP_FAST_FMA): there is no build without it");
  long n = (p->fma ? 1000000 : 4000) * tr_scale();
  toi_gen_opts o;
  toi_gen_opts_default(&o, (toi_gen_family)p->family);
  o.seed = tr_seed();
  enum { BLK = 4096 };
  static toi_case c[BLK];
  static toi_ref f[BLK], b[BLK];
  static toi_status sb[BLK];
  toi_ref_fast_stats_reset();
  unsigned long long batch_calls = 0;
  for (long lo = 0; lo < n; lo += BLK) {
    long k = n - lo < BLK ? n - lo : BLK;
    for (long j = 0; j < k; j++) {
      long i = lo + j;
      if (i == n / 2 && o.dim != 0) o.dim = 3;
      size_t bin;
      cr_assert_eq(toi_gen_case(&c[j], NULL, &bin, &o, (uint64_t)i), TOI_OK);
      cr_assert_eq(tr_solve_engine(&f[j], &c[j], TOI_REF_FAST), TOI_OK, "%s case %ld " SEED_MSG,
                   toi_gen_family_name(o.family), i, SEED_ARGS);
    }
    toi_ref_fast_stats s0, s1;
    toi_ref_fast_stats_get(&s0);
    (void)tr_batch_engine(b, sb, c, (size_t)k, TOI_REF_FAST);
    toi_ref_fast_stats_get(&s1);
    batch_calls += s1.calls - s0.calls;
  }
  toi_ref_fast_stats st;
  toi_ref_fast_stats_get(&st);
  cr_expect_eq(st.calls - batch_calls, (unsigned long long)n);
  cr_expect_eq(batch_calls, (unsigned long long)n);
  /* Measured: at most a few in 10^5 on every family; 1% would mean the
   * engine lost its speed. */
  unsigned long long fb = st.fb_range + st.fb_sign + st.fb_round;
  cr_expect_leq(fb * 100, 2 * (unsigned long long)n, "%s: %llu fallbacks in %ld cases " SEED_MSG,
                toi_gen_family_name(o.family), fb, n, SEED_ARGS);
  ref_fast_use_fma(-1);
}

/* Lengths with exponents in [el, el + 40], velocities in [ev, ev + 40], el
 * and ev anywhere in the double range, every other case aimed: each valid
 * case is counted as one call of the fast engine. (Its answers on such data:
 * ref_generic/random.) */
Test(ref_fast, spread_cases_are_counted) {
  tr_rng r = {tr_seed() ^ 0x73707265616421ULL};
  long n = 20000 * tr_scale();
  toi_ref_fast_stats_reset();
  for (long i = 0; i < n; i++) {
    int el = (int)tr_int(&r, -1060, 980), ev = (int)tr_int(&r, -1060, 980);
    toi_case c;
    memset(&c, 0, sizeof c);
    strcpy(c.id, "spread");
    c.dim = 2 + (int)(tr_next(&r) & 1);
    tr_spread_fill(&r, &c, el, ev, -1, 1);
    c.ma = c.mb = 1;
    toi_ref f;
    cr_assert_eq(tr_solve_engine(&f, &c, TOI_REF_FAST), TOI_OK, "spread case %ld " SEED_MSG, i, SEED_ARGS);
  }
  toi_ref_fast_stats st;
  toi_ref_fast_stats_get(&st);
  cr_expect_eq(st.calls, (unsigned long long)n);
}

/* RN(2^e) in the double format. */
static double rf_pow2(long e) {
  if (e > 1023) return INFINITY;
  if (e >= -1074) return ldexp(1.0, (int)e);
  return 0.0; /* 2^-1075 is a tie: to even, 0 */
}

/* RN(m 2^e) for m in [1, 2) a double, when m 2^e is normal; else NaN (the
 * test then relies on the MPFR engine only). */
static double rf_scaled(double m, long e) {
  if (e < -1022 || e > 1023) return NAN;
  return ldexp(m, (int)e);
}

Test(ref_fast, known_answers_over_the_exponent_range) {
  static const int ks[] = {-1072, -1000, -600, -80, -1, 0, 1, 60, 500, 1000, 1019};
  static const int js[] = {-1074, -1040, -700, -60, 0, 3, 90, 700, 1023};
  char what[160];
  for (size_t a = 0; a < sizeof ks / sizeof ks[0]; a++)
    for (size_t b = 0; b < sizeof js / sizeof js[0]; b++)
      for (int dim = 2; dim <= 3; dim++) {
        int k = ks[a], j = js[b], ax = dim == 3 ? (int)((a + b) % 3) : (int)(b % 2);
        long e = (long)k - j;
        double d = 5 * ldexp(1.0, k), w = ldexp(1.0, j);
        /* Head on: |s| = 5 2^k, R = 3 2^k, closing speed 2^j. */
        snprintf(what, sizeof what, "head-on k=%d j=%d dim=%d", k, j, dim);
        toi_case c = rf_line(dim, ax, d, 0, -w, 0, k);
        rf_expect(&c, TOI_HIT, rf_pow2(e + 1), rf_pow2(e + 3), what);
        /* Moving apart: the same roots, negated. */
        snprintf(what, sizeof what, "apart k=%d j=%d dim=%d", k, j, dim);
        c = rf_line(dim, ax, d, 0, w, 0, k);
        rf_expect(&c, TOI_SEPARATING, -rf_pow2(e + 3), -rf_pow2(e + 1), what);
        /* Overlapping: |s| = 2^k < R. */
        snprintf(what, sizeof what, "overlap k=%d j=%d dim=%d", k, j, dim);
        c = rf_line(dim, ax, ldexp(1.0, k), 0, -w, 0, k);
        rf_expect(&c, TOI_OVERLAP, -rf_pow2(e + 1), rf_pow2(e + 2), what);
        /* Touching and approaching: roots 0 and 2R / w = 1.5 2^(e+2). */
        snprintf(what, sizeof what, "contact k=%d j=%d dim=%d", k, j, dim);
        c = rf_line(dim, ax, 3 * ldexp(1.0, k), 0, -w, 0, k);
        rf_expect(&c, TOI_CONTACT, 0.0, rf_scaled(1.5, e + 2), what);
        /* Grazing: offset R across the motion, D = 0, double root 5 2^e. */
        snprintf(what, sizeof what, "graze k=%d j=%d dim=%d", k, j, dim);
        c = rf_line(dim, ax, d, 3 * ldexp(1.0, k), -w, 0, k);
        rf_expect(&c, TOI_GRAZE, rf_scaled(1.25, e + 2), rf_scaled(1.25, e + 2), what);
        /* 3-4-5: |s| = 5 2^k along (3, 4), speed 5 2^j: roots 0.4 and 1.6 2^e. */
        if (k <= 1020 && j <= 1020) {
          snprintf(what, sizeof what, "3-4-5 k=%d j=%d dim=%d", k, j, dim);
          c = rf_line(dim, ax, 3 * ldexp(1.0, k), 4 * ldexp(1.0, k), -3 * w, -4 * w, k);
          rf_expect(&c, TOI_HIT, rf_scaled(0x1.999999999999ap-2, e), rf_scaled(0x1.999999999999ap+0, e), what);
        }
      }
}

/* Far from the origin: pA = 2^50 + small, exactly representable sums, so the
 * relative motion is the head-on one. */
Test(ref_fast, known_answers_far_away) {
  for (int dim = 2; dim <= 3; dim++) {
    toi_case c = rf_line(dim, 0, 5, 0, -1, 0, 0);
    for (int i = 0; i < dim; i++) c.pa[i] += 0x1p50, c.pb[i] += 0x1p50, c.va[i] += 3, c.vb[i] += 3;
    rf_expect(&c, TOI_HIT, 2.0, 8.0, "far head-on");
  }
}

/* Exactly tangent paths (D = 0) are decided by the exact expansion, not by
 * the MPFR engine. */
Test(ref_fast, exact_tangents_need_no_fallback) {
  toi_gen_opts o;
  toi_gen_opts_default(&o, TOI_GEN_TANGENT);
  o.seed = tr_seed();
  o.k.lo = o.k.hi = 0;
  o.k.step = 1;
  long n = 2000 * tr_scale();
  toi_ref_fast_stats_reset();
  for (long i = 0; i < n; i++) {
    toi_case c;
    size_t bin;
    cr_assert_eq(toi_gen_case(&c, NULL, &bin, &o, (uint64_t)i), TOI_OK);
    toi_ref r;
    cr_assert_eq(tr_solve_engine(&r, &c, TOI_REF_FAST), TOI_OK);
    cr_assert_eq(r.cls, TOI_GRAZE, "tangent case %ld is %s " SEED_MSG, i, toi_class_name(r.cls), SEED_ARGS);
    cr_assert(tr_same(r.tlo, r.thi));
  }
  toi_ref_fast_stats st;
  toi_ref_fast_stats_get(&st);
  for (long i = 0; i < n; i++) {
    toi_case c;
    size_t bin;
    cr_assert_eq(toi_gen_case(&c, NULL, &bin, &o, (uint64_t)i), TOI_OK);
    rf_check(&c, NULL, "exact tangent");
  }
  cr_expect_eq(st.exact, (unsigned long long)n, "%llu of %ld cases used an exact stage", st.exact, n);
  cr_expect_eq(st.fb_range + st.fb_sign + st.fb_round, 0, "fallbacks: range %llu sign %llu round %llu",
               st.fb_range, st.fb_sign, st.fb_round);
}

/* w^2 - 2 R^2 = -+1 (Pell pairs, (w, R) -> (3w + 4R, 2w + 3R) keeps it).
 * B at s = (-R, -(w + R)) moving v = (1, 1) towards A at rest, radius R:
 * a = 2, b = -(w + 2R), c = (w + R)^2, D = b^2 - a c = 2R^2 - w^2 = +-1.
 * D = 1: a hit at ((w + 2R) -+ 1) / 2, integers (w is odd); D = -1: a miss.
 * Lengths times 2^e and speeds times 2^-e leave D and scale the roots by
 * 2^(2e). b^2 and a c are near 2^100: only an exact sign of D tells them
 * apart (the integer path of the double-double stage, D != 0). */
Test(ref_fast, pell_pairs_exact_D_plus_minus_one) {
  int n = 0;
  for (int start = 0; start < 2; start++) {
    double w = start ? 3 : 1, R = start ? 2 : 1; /* 1 - 2 = -1: D = 1; 9 - 8 = 1: D = -1 */
    for (int it = 0; it < 40 && w < 0x1p50; it++) {
      const int hit = start == 0;
      for (int e = -300; e <= 300; e += 150)
        for (int dim = 2; dim <= 3; dim++) {
          toi_case c = dim == 2 ? tr_rel2(ldexp(-R, e), ldexp(-(w + R), e), ldexp(1, -e), ldexp(1, -e), ldexp(R, e), 0)
                                : tr_rel3(ldexp(-R, e), ldexp(-(w + R), e), 0, ldexp(1, -e), ldexp(1, -e), 0,
                                          ldexp(R, e), 0);
          char where[128];
          snprintf(where, sizeof where, "Pell pair w %.17g R %.17g, e %d, %dD", w, R, e, dim);
          rf_check(&c, NULL, where);
          toi_ref f, b;
          toi_status sb;
          cr_assert_eq(tr_solve_engine(&f, &c, TOI_REF_FAST), TOI_OK);
          cr_assert_eq(tr_batch_engine(&b, &sb, &c, 1, TOI_REF_FAST), 0);
          cr_assert(tr_same_ref(&f, &b), "%s: the batch differs", where);
          if (hit) {
            double lo = ldexp((w + 2 * R - 1) / 2, 2 * e), hi = ldexp((w + 2 * R + 1) / 2, 2 * e);
            cr_assert(f.cls == TOI_HIT && f.tlo == lo && f.thi == hi, "%s: %s %a %a, expected hit %a %a", where,
                      toi_class_name(f.cls), f.tlo, f.thi, lo, hi);
          } else {
            cr_assert(f.cls == TOI_MISS && isnan(f.tlo), "%s: %s, expected a miss", where, toi_class_name(f.cls));
          }
          n++;
        }
      const double w2 = 3 * w + 4 * R, R2 = 2 * w + 3 * R;
      w = w2, R = R2;
    }
  }
  cr_assert_geq(n, 200);
}
