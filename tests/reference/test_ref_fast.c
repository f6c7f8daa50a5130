/* test_ref_fast.c: the fast reference engine answers bit for bit as the MPFR engine, and as the maths says. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <dirent.h>
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

/*
 * The MPFR engine is the specification (its own tests check it against an
 * independent naive solver); here the fast engine must give the same status
 * and the same bits in every field, on the case files, on every generator
 * family, on random bit patterns over the whole exponent range, and with a
 * target distance. Cases with a known answer (powers of two, 3-4-5
 * triangles, exact contact and grazing) check both against the maths too.
 * Counts scale with TOI_TEST_SCALE; seeds come from TOI_TEST_SEED.
 */

static void rf_show(char *buf, size_t n, const toi_ref *r) {
  snprintf(buf, n, "%s %a %a %a %a fwd %d rev %d", toi_class_name(r->cls), r->tlo, r->thi, r->tfwd, r->trev,
           r->fwd_is_lo, r->rev_is_lo);
}

/* Both engines on one case (delta NULL: no target); returns the status and,
 * when mo is not NULL, the MPFR engine's answer in *mo. */
static toi_status rf_check_keep(const toi_case *c, const double *delta, const char *where, toi_ref *mo) {
  toi_ref f, m;
  memset(&f, 0x55, sizeof f); /* garbage, so that a field left unset shows */
  memset(&m, 0x55, sizeof m);
  toi_status sf = delta ? tr_solve_target_engine(&f, c, *delta, TOI_REF_FAST)
                        : tr_solve_engine(&f, c, TOI_REF_FAST);
  toi_status sm = delta ? tr_solve_target_engine(&m, c, *delta, TOI_REF_MPFR)
                        : tr_solve_engine(&m, c, TOI_REF_MPFR);
  cr_assert_eq(sf, sm, "%s: status fast %d, mpfr %d on %s delta %a", where, (int)sf, (int)sm, tr_fmt(c),
               delta ? *delta : 0.0);
  if (!tr_same_ref(&f, &m)) {
    char a[256], b[256];
    rf_show(a, sizeof a, &f);
    rf_show(b, sizeof b, &m);
    cr_assert_fail("%s: engines differ on\n  %s (delta %a)\n  fast: %s\n  mpfr: %s", where, tr_fmt(c),
                   delta ? *delta : 0.0, a, b);
  }
  if (mo) *mo = m;
  return sf;
}

static toi_status rf_check(const toi_case *c, const double *delta, const char *where) {
  return rf_check_keep(c, delta, where, NULL);
}

/* The committed case files, with and without targets, in both precisions:
   tests/reference/test_ref_generic.c (ref_generic/corpora). */

/* ---- the generator families ---- */

ParameterizedTestParameters(ref_fast, families_bit_identical) {
  static tr_fam_param p[2 * TOI_GEN_FAMILY_COUNT];
  return cr_make_param_array(tr_fam_param, p, tr_fam_params(p));
}

/* 10^6 cases per family and scale unit (half of them in 3D), 4 10^3 for
 * the build without FMA; `make bench` re-checks 10^7 mixed cases. Each
 * block of cases also goes through toi_ref_solve_batch (the widest vector
 * kernels this processor runs), which must give the MPFR engine's bits too. */
ParameterizedTest(tr_fam_param *p, ref_fast, families_bit_identical) {
  int fma_in_use = ref_fast_use_fma(p->fma ? -1 : 0);
  if (!p->fma && fma_in_use) cr_skip_test("compiled for FMA (FP_FAST_FMA): there is no build without it");
  long n = (p->fma ? 1000000 : 4000) * tr_scale();
  toi_gen_opts o;
  toi_gen_opts_default(&o, (toi_gen_family)p->family);
  o.seed = tr_seed();
  enum { BLK = 4096 };
  static toi_case c[BLK];
  static toi_ref m[BLK], b[BLK];
  static toi_status sm[BLK], sb[BLK];
  toi_ref_fast_stats_reset();
  unsigned long long batch_calls = 0;
  for (long lo = 0; lo < n; lo += BLK) {
    long k = n - lo < BLK ? n - lo : BLK;
    for (long j = 0; j < k; j++) {
      long i = lo + j;
      if (i == n / 2 && o.dim != 0) o.dim = 3;
      size_t bin;
      cr_assert_eq(toi_gen_case(&c[j], NULL, &bin, &o, (uint64_t)i), TOI_OK);
      char where[128];
      snprintf(where, sizeof where, "%s case %ld " SEED_MSG, toi_gen_family_name(o.family), i, SEED_ARGS);
      sm[j] = rf_check_keep(&c[j], NULL, where, &m[j]); /* the statuses agree: checked there */
    }
    toi_ref_fast_stats s0, s1;
    toi_ref_fast_stats_get(&s0);
    (void)tr_batch_engine(b, sb, c, (size_t)k, TOI_REF_FAST);
    toi_ref_fast_stats_get(&s1);
    batch_calls += s1.calls - s0.calls;
    for (long j = 0; j < k; j++)
      cr_assert(sb[j] == sm[j] && tr_same_ref(&b[j], &m[j]), "%s case %ld: the batch differs from mpfr on %s " SEED_MSG,
                toi_gen_family_name(o.family), lo + j, tr_fmt(&c[j]), SEED_ARGS);
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

/* ---- random data over the whole exponent range ---- */

static toi_case rf_case_bits(tr_rng *r) {
  toi_case c;
  memset(&c, 0, sizeof c);
  strcpy(c.id, "bits");
  c.dim = 2 + (int)(tr_next(r) & 1);
  for (int i = 0; i < c.dim; i++) {
    c.pa[i] = tr_bits(r), c.pb[i] = tr_bits(r);
    c.va[i] = tr_bits(r), c.vb[i] = tr_bits(r);
  }
  c.ra = fabs(tr_bits(r)), c.rb = fabs(tr_bits(r));
  c.ma = c.mb = 1;
  return c;
}

Test(ref_fast, random_bit_patterns_whole_range) {
  tr_rng r = {tr_seed() ^ 0x6269747370617474ULL};
  long n = 10000 * tr_scale();
  for (long i = 0; i < n; i++) {
    toi_case c = rf_case_bits(&r);
    char where[128];
    snprintf(where, sizeof where, "bit pattern case %ld " SEED_MSG, i, SEED_ARGS);
    rf_check(&c, NULL, where);
  }
}

/* Lengths with exponents in [el, el + 40], velocities in [ev, ev + 40], el
 * and ev anywhere in the double range, every other case aimed: the fast
 * path works on most of them (scaling, subnormal and infinite roots). */
Test(ref_fast, random_moderate_spread_any_scale) {
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
    char where[128];
    snprintf(where, sizeof where, "spread case %ld " SEED_MSG, i, SEED_ARGS);
    rf_check(&c, NULL, where);
  }
  toi_ref_fast_stats st;
  toi_ref_fast_stats_get(&st);
  cr_expect_eq(st.calls, (unsigned long long)n);
}

Test(ref_fast, random_targets) {
  tr_rng r = {tr_seed() ^ 0x746172676574ULL};
  long n = 5000 * tr_scale();
  toi_gen_opts o;
  toi_gen_opts_default(&o, TOI_GEN_MIXED);
  o.seed = tr_seed();
  int neg = 0;
  for (long i = 0; i < n; i++) {
    toi_case c;
    size_t bin;
    cr_assert_eq(toi_gen_case(&c, NULL, &bin, &o, (uint64_t)i), TOI_OK);
    double R = c.ra + c.rb, delta;
    switch (tr_next(&r) % 4) {
    case 0: delta = R * ldexp(1.0, -(int)tr_int(&r, 1, 60)); break;
    case 1: delta = -R * (1 - ldexp(1.0, -(int)tr_int(&r, 1, 60))); break;
    case 2: delta = -R * (1 + ldexp(1.0, -(int)tr_int(&r, 1, 60))); break; /* R + delta < 0 */
    default: delta = tr_double(&r, -60, 4); break;
    }
    char where[128];
    snprintf(where, sizeof where, "target case %ld " SEED_MSG, i, SEED_ARGS);
    neg += rf_check(&c, &delta, where) == TOI_ERR_RANGE;
  }
  cr_expect_gt(neg, 0, "no case had R + delta < 0");
}

/* ---- answers known from the maths ---- */

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

/* A on the origin at rest, B at s moving v; radii 2^k and 2^(k+1) (R = 3 2^k),
 * along axis ax (0..2) in 3D, or in the plane in 2D. */
static toi_case rf_line(int dim, int ax, double s0, double s1, double v0, double v1, int k) {
  toi_case c;
  memset(&c, 0, sizeof c);
  strcpy(c.id, "exact");
  c.dim = dim;
  int ay = (ax + 1) % dim;
  c.pb[ax] = s0, c.pb[ay] = s1;
  c.vb[ax] = v0, c.vb[ay] = v1;
  c.ra = ldexp(1.0, k), c.rb = ldexp(1.0, k + 1);
  c.ma = c.mb = 1;
  return c;
}

static void rf_expect(const toi_case *c, toi_class cls, double tlo, double thi, const char *what) {
  toi_ref f;
  cr_assert_eq(tr_solve_engine(&f, c, TOI_REF_FAST), TOI_OK);
  rf_check(c, NULL, what);
  cr_expect_eq(f.cls, cls, "%s: class %s, expected %s on %s", what, toi_class_name(f.cls), toi_class_name(cls),
               tr_fmt(c));
  if (!isnan(tlo)) cr_expect(tr_same(f.tlo, tlo), "%s: tlo %a, expected %a on %s", what, f.tlo, tlo, tr_fmt(c));
  if (!isnan(thi)) cr_expect(tr_same(f.thi, thi), "%s: thi %a, expected %a on %s", what, f.thi, thi, tr_fmt(c));
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

/* ---- the API around the engines ---- */

Test(ref_fast, invalid_inputs_same_status_and_cleared_output) {
  toi_case good = tr_rel2(5, 0, -1, 0, 1, 2);
  toi_case bad[8];
  for (int i = 0; i < 8; i++) bad[i] = good;
  bad[0].pa[0] = NAN;
  bad[1].vb[1] = INFINITY;
  bad[2].ra = -1;
  bad[3].rb = NAN;
  bad[4].dim = 4;
  bad[5].pb[2] = 1; /* 2D with a third component */
  bad[6].va[0] = -INFINITY;
  bad[7].dim = 1;
  for (int i = 0; i < 8; i++) {
    char where[32];
    snprintf(where, sizeof where, "bad case %d", i);
    cr_expect_eq(rf_check(&bad[i], NULL, where), TOI_ERR_INPUT, "%s", where);
    /* An invalid case is refused as such whatever the target. */
    double deltas[] = {0.0, -100.0, INFINITY, NAN};
    for (int k = 0; k < 4; k++) cr_expect_eq(rf_check(&bad[i], &deltas[k], where), TOI_ERR_INPUT, "%s", where);
  }
  double inf = INFINITY;
  cr_expect_eq(rf_check(&good, &inf, "infinite delta"), TOI_ERR_RANGE);
  cr_expect_eq(tr_solve_engine(NULL, &good, TOI_REF_FAST), TOI_ERR_RANGE);
  toi_ref r;
  cr_expect_eq(tr_solve_engine(&r, &good, (toi_ref_engine)7), TOI_ERR_RANGE);
}

/* The engine is an argument: the explicit forms answer alike with both, the
 * short forms are the fast engine, and only the fast engine counts. */
Test(ref_fast, engine_names_and_counters) {
  cr_expect_str_eq(toi_ref_engine_name(TOI_REF_FAST), "fast");
  cr_expect_str_eq(toi_ref_engine_name(TOI_REF_MPFR), "mpfr");
  cr_expect_null(toi_ref_engine_name((toi_ref_engine)9));
  cr_expect_eq(tr_engine_parse("fast"), TOI_REF_FAST);
  cr_expect_eq(tr_engine_parse("mpfr"), TOI_REF_MPFR);
  cr_expect_eq(tr_engine_parse("gmp"), -1);
  cr_expect_eq(tr_engine_parse(NULL), -1);

  toi_case c = tr_rel2(5, 0, -1, 0, 1, 2);
  toi_ref a, b, d;
  toi_ref_fast_stats st;
  toi_ref_fast_stats_reset();
  cr_assert_eq(tr_solve_engine(&a, &c, TOI_REF_FAST), TOI_OK);
  toi_ref_fast_stats_get(&st);
  cr_expect_eq(st.calls, 1, "tr_solve_engine(TOI_REF_FAST) went through the fast engine");
  cr_assert_eq(tr_solve_engine(&b, &c, TOI_REF_MPFR), TOI_OK);
  cr_assert_eq(tr_solve_target_engine(&d, &c, 0.0, TOI_REF_MPFR), TOI_OK);
  toi_ref_fast_stats_get(&st);
  cr_expect_eq(st.calls, 1, "the MPFR engine does not count as the fast one");
  cr_expect(tr_same_ref(&a, &b));
  cr_expect(tr_same_ref(&a, &d));
  cr_expect(tr_same(a.tlo, 2.0) && tr_same(a.thi, 8.0));
  cr_assert_eq(tr_solve_target_engine(&d, &c, 0.0, TOI_REF_FAST), TOI_OK);
  cr_expect(tr_same_ref(&a, &d));
  toi_ref_fast_stats_get(&st);
  cr_expect_eq(st.calls, 2);
}

/* The short forms are the fast engine: the same bits as the explicit forms
 * with TOI_REF_FAST, and counted as fast calls. */
Test(ref_fast, short_forms_are_the_fast_engine) {
  toi_case c = tr_rel2(5, 0, -1, 0, 1, 2);
  toi_ref a, b;
  toi_ref_fast_stats st;
  toi_ref_fast_stats_reset();
  cr_assert_eq(tr_solve(&a, &c), TOI_OK);
  cr_assert_eq(tr_solve_engine(&b, &c, TOI_REF_FAST), TOI_OK);
  cr_expect(tr_same_ref(&a, &b));
  cr_assert_eq(tr_solve_target(&a, &c, 0.5), TOI_OK);
  cr_assert_eq(tr_solve_target_engine(&b, &c, 0.5, TOI_REF_FAST), TOI_OK);
  cr_expect(tr_same_ref(&a, &b));
  toi_ref_fast_stats_get(&st);
  cr_expect_eq(st.calls, 4);
  double u1, b1, u2, b2, k1, k2;
  cr_assert_eq(tr_error(&u1, &b1, 2.5, &c, TOI_FORWARD), TOI_OK);
  cr_assert_eq(tr_error_engine(&u2, &b2, 2.5, &c, TOI_FORWARD, TOI_REF_FAST), TOI_OK);
  cr_expect(tr_same(u1, u2) && tr_same(b1, b2));
  cr_assert_eq(tr_kappa(&k1, &c, TOI_FORWARD), TOI_OK);
  cr_assert_eq(tr_kappa_engine(&k2, &c, TOI_FORWARD, TOI_REF_FAST), TOI_OK);
  cr_expect(tr_same(k1, k2));
  toi_status s1, s2;
  cr_expect_eq(tr_batch(&a, &s1, &c, 1), 0);
  cr_expect_eq(tr_batch_engine(&b, &s2, &c, 1, TOI_REF_FAST), 0);
  cr_expect(tr_same_ref(&a, &b) && s1 == s2);
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

/* ---- the first stage (ref_fast_quick.c) ---- */

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

/* ---- D = +-1 exactly with terms near 2^100 (Pell pairs) ---- */

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
