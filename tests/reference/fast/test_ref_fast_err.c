/* test_ref_fast_err.c: the fast paths of toi_ref_error, toi_ref_kappa and their bounds (reference/fast/ref_fast_err.c): how rarely they need MPFR, the per-root path, enclosures, threads, a whole sweep with both engines. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "candidate.h"
#include "cli_check.h"
#include "gen.h"
#include "ref_common.h"
#include "ref_fast_api.h"
#include "reference_check.h"
#include "ref_forms.h"
#include "ref_cases.h"

/*
 * That the fast paths answer every T a scorer can meet as the GMP/MPFR
 * paths, bit for bit, from a prepared case and from the case itself, on the
 * corpora, every family (with and without the FMA build) and random data
 * over the whole range: test_ref_generic.c. Here: their counts (the fast
 * paths decide nearly always, the per-root path near the root), the
 * enclosures of the bounds, interleaved cases, threads, and a whole sweep.
 * Counts scale with TOI_TEST_SCALE; seeds come from TOI_TEST_SEED.
 */

ParameterizedTestParameters(ref_fast_err, families_rarely_fall_back) {
  static tr_fam_param p[2 * TOI_GEN_FAMILY_COUNT];
  return cr_make_param_array(tr_fam_param, p, tr_fam_params(p));
}

/* 2 10^4 cases per family and scale unit (half of them in 3D, when the
 * family lets the dimension be chosen), 4 10^3 for the build without FMA.
 * Each direction: T = RN(t*) and one more kind, in turn; kappa. (That the
 * answers are MPFR's: ref_generic/families, error and kappa.) */
ParameterizedTest(tr_fam_param *p, ref_fast_err, families_rarely_fall_back) {
  int fma_in_use = ref_fast_use_fma(p->fma ? -1 : 0);
  if (!p->fma && fma_in_use) cr_skip_test("compiled for FMA (FP_FAST_FMA): there is no build without it");
  long n = (p->fma ? 20000 : 4000) * tr_scale();
  toi_gen_opts o;
  toi_gen_opts_default(&o, (toi_gen_family)p->family);
  o.seed = tr_seed();
  ref_fast_err_counts_reset();
  for (long i = 0; i < n; i++) {
    if (i == n / 2 && o.dim != 0) o.dim = 3;
    toi_case c;
    size_t bin;
    cr_assert_eq(toi_gen_case(&c, NULL, &bin, &o, (uint64_t)i), TOI_OK);
    toi_ref r;
    cr_assert_eq(tr_solve_engine(&r, &c, TOI_REF_FAST), TOI_OK);
    for (int dir = 0; dir < 2; dir++) {
      double rn = dir ? r.trev : r.tfwd;
      double other = ref_dir_root(&r, (toi_direction)dir) == 1 ? r.thi : r.tlo;
      double u, b, k;
      const double T[2] = {tr_kind_T(0, rn, other), tr_kind_T(1 + (int)((i + dir) % (TR_T_KINDS - 1)), rn, other)};
      for (int j = 0; j < 2; j++)
        cr_assert_eq(tr_error_engine(&u, &b, T[j], &c, (toi_direction)dir, TOI_REF_FAST), TOI_OK,
                     "%s case %ld dir %d T %a " SEED_MSG, toi_gen_family_name(o.family), i, dir, T[j], SEED_ARGS);
      cr_assert_eq(tr_kappa_engine(&k, &c, (toi_direction)dir, TOI_REF_FAST), TOI_OK);
    }
  }
  /* The fast paths must rarely need MPFR (measured: a few in 10^4 calls on
   * the families, mostly T that cannot be scaled exactly); 2% would mean
   * they lost their speed. Counted only for the fast engine's calls. */
  ref_fast_err_counts k;
  ref_fast_err_counts_get(&k);
  cr_expect_eq(k.error_calls, (unsigned long long)(4 * n));
  cr_expect_leq(k.error_fb * 50, k.error_calls, "%s: %llu of %llu errors left to MPFR " SEED_MSG,
                toi_gen_family_name(o.family), k.error_fb, k.error_calls, SEED_ARGS);
  cr_expect_leq(k.kappa_fb * 50, k.kappa_calls, "%s: %llu of %llu kappas left to MPFR " SEED_MSG,
                toi_gen_family_name(o.family), k.kappa_fb, k.kappa_calls, SEED_ARGS);
  ref_fast_use_fma(-1);
}

/* The kinds of answers a sweep asks about one case in a row (cx_T). */
enum { CX_KINDS = 20 };

/* One step of q's grid from x towards dir. */
static double cx_next(double x, double dir, toi_precision q) {
  return q == TOI_BINARY32 ? (double)nextafterf((float)x, (float)dir) : nextafter(x, dir);
}

/* Kind k of answer for a root that rounds to rq in q (1.0 when there is
 * none): rq, its neighbours 1..4 steps above and below in q, one binary64
 * step each side, far values, 0, -0, a negative, the infinities, NaN, the
 * smallest subnormal of q and a binary64 subnormal. */
static double cx_T(int k, double rq, toi_precision q) {
  double base = isnan(rq) ? 1.0 : rq;
  if (k >= 1 && k <= 8) {
    double t = base, dir = k <= 4 ? INFINITY : -INFINITY;
    for (int i = 0; i < (k - 1) % 4 + 1; i++) t = cx_next(t, dir, q);
    return t;
  }
  switch (k) {
  case 0: return base;
  case 9: return nextafter(base, INFINITY);
  case 10: return nextafter(base, -INFINITY);
  case 11: return base * (1 + 0x1p-12);
  case 12: return 3 * base + 2;
  case 13: return 0.0;
  case 14: return -0.0;
  case 15: return -base - 1;
  case 16: return INFINITY;
  case 17: return -INFINITY;
  case 18: return NAN;
  default: return q == TOI_BINARY32 ? 0x1p-149 : 0x1.8p-1060;
  }
}

typedef struct cx_param {
  int family;
  int prec; /* toi_precision */
} cx_param;

ParameterizedTestParameters(ref_fast_err, per_root_path_decides_near_the_root) {
  static cx_param p[2 * TOI_GEN_FAMILY_COUNT];
  size_t k = 0;
  for (int q = 0; q < 2; q++)
    for (int f = 0; f < TOI_GEN_FAMILY_COUNT; f++) p[k].family = f, p[k].prec = q ? TOI_BINARY32 : TOI_BINARY64, k++;
  return cr_make_param_array(cx_param, p, k);
}

static toi_status cx_error(double *u, double *b, double T, const toi_case *c, toi_direction d, toi_precision q) {
  return q == TOI_BINARY64 ? tr_error_engine(u, b, T, c, d, TOI_REF_FAST)
                           : tr_error_prec(u, b, T, c, d, q, TOI_REF_FAST);
}

/* A sweep measures about eleven answers to the same case in a row; near the
 * root the fast engine derives T - t* from RN(t*) - t*, computed once per
 * root. 3000 cases per family, precision and scale unit (the second half in
 * 3D when the family lets the dimension be chosen; in binary32 the case
 * rounded as the binary32 candidates receive it), every kind of answer in
 * both directions and kappa: the per-root path must be the one that decides
 * most answers near the root, and MPFR must rarely be needed. (That the
 * answers are MPFR's: ref_generic, error and kappa, with the same kinds.) */
ParameterizedTest(cx_param *p, ref_fast_err, per_root_path_decides_near_the_root) {
  toi_precision q = (toi_precision)p->prec;
  long n = 3000 * tr_scale(), pairs = 0;
  toi_gen_opts o;
  toi_gen_opts_default(&o, (toi_gen_family)p->family);
  o.seed = tr_seed() + 17;
  ref_fast_err_counts_reset();
  for (long i = 0; i < n; i++) {
    if (i == n / 2 && o.dim != 0) o.dim = 3;
    toi_case c0, c;
    size_t bin;
    cr_assert_eq(toi_gen_case(&c0, NULL, &bin, &o, (uint64_t)i), TOI_OK);
    if (toi_candidate_input(&c, &c0, q) < 0) continue; /* beyond binary32's range */
    toi_ref r;
    if (tr_solve_prec(&r, &c, q, TOI_REF_FAST) != TOI_OK) continue;
    for (int d = 0; d < 2; d++) {
      double rq = d ? r.trev : r.tfwd, u, b, k;
      for (int j = 0; j < CX_KINDS; j++)
        cr_assert_eq(cx_error(&u, &b, cx_T(j, rq, q), &c, (toi_direction)d, q), TOI_OK);
      cr_assert_eq(tr_kappa_engine(&k, &c, (toi_direction)d, TOI_REF_FAST), TOI_OK);
    }
    pairs += 2 * CX_KINDS;
  }
  cr_expect_gt(pairs, 0, "%s: no case solved", toi_gen_family_name(o.family));
  ref_fast_err_counts k;
  ref_fast_err_counts_get(&k);
  /* In binary32 the fast error leaves many cases of some families to MPFR
   * (rounded data whose roots it does not certify): only the bits count there. */
  if (q != TOI_BINARY64) return;
  cr_expect_gt(pairs, n * CX_KINDS, "%s: too few cases solved", toi_gen_family_name(o.family));
  cr_expect_leq(k.error_fb * 50, k.error_calls, "%s: %llu of %llu errors left to MPFR " SEED_MSG,
                toi_gen_family_name(o.family), k.error_fb, k.error_calls, SEED_ARGS);
  cr_expect_leq(k.kappa_fb * 50, k.kappa_calls, "%s: %llu of %llu kappas left to MPFR " SEED_MSG,
                toi_gen_family_name(o.family), k.kappa_fb, k.kappa_calls, SEED_ARGS);
  /* Near the root the per-root path decides nearly always. */
  cr_expect_leq(k.error_near_t * 20, k.error_near_rn + k.error_near_t, "%s: near %llu by RN(t*), %llu at T",
                toi_gen_family_name(o.family), k.error_near_rn, k.error_near_t);
}

/* Answers to two cases interleaved (A, B, A, ...): the state of one case
 * must never answer for the other, and a repeated case is measured alike. */
Test(ref_err_ctx, interleaved_cases) {
  toi_gen_opts o;
  toi_gen_opts_default(&o, TOI_GEN_MIXED);
  o.seed = tr_seed() + 29;
  long n = 400 * tr_scale();
  for (long i = 0; i + 1 < n; i += 2) {
    toi_case a, b;
    size_t bin;
    cr_assert_eq(toi_gen_case(&a, NULL, &bin, &o, (uint64_t)i), TOI_OK);
    cr_assert_eq(toi_gen_case(&b, NULL, &bin, &o, (uint64_t)i + 1), TOI_OK);
    toi_ref ra, rb;
    if (tr_solve_engine(&ra, &a, TOI_REF_MPFR) != TOI_OK || tr_solve_engine(&rb, &b, TOI_REF_MPFR) != TOI_OK)
      continue;
    for (int k = 0; k < CX_KINDS; k++) {
      const toi_case *c[2] = {&a, &b};
      const toi_ref *r[2] = {&ra, &rb};
      for (int s = 0; s < 4; s++) {
        const toi_case *x = c[s & 1];
        double T = cx_T(k, r[s & 1]->tfwd, TOI_BINARY64), uf, bf, um, bm;
        toi_status sf = tr_error_engine(&uf, &bf, T, x, TOI_FORWARD, TOI_REF_FAST);
        toi_status sm = tr_error_engine(&um, &bm, T, x, TOI_FORWARD, TOI_REF_MPFR);
        cr_assert_eq(sf, sm);
        cr_assert(tr_same(uf, um) && tr_same(bf, bm), "case %ld kind %d step %d: fast %a mpfr %a on %s", i, k, s,
                  uf, um, tr_fmt(x));
      }
    }
  }
}

/*
 * The sweep places most answers from the enclosures of toi_ref_error_bound
 * and toi_ref_kappa_bound alone (sweep.c, lazy_decided). That each holds the
 * exact figure (or is it, lo = hi): ref_generic, error_bound and
 * kappa_bound. Here: the fast engine gives true enclosures (lo != hi) for a
 * good share of the answers, else those checks would not reach that code.
 */
typedef struct bound_counts {
  long calls, enclosed, kcalls, kenclosed;
} bound_counts;

static void count_case(const toi_case *c, long i, bound_counts *n) {
  toi_ref r;
  if (tr_solve_engine(&r, c, TOI_REF_FAST) != TOI_OK) return;
  for (int dir = 0; dir < 2; dir++) {
    double rn = dir ? r.trev : r.tfwd;
    double other = ref_dir_root(&r, (toi_direction)dir) == 1 ? r.thi : r.tlo;
    const double T[2] = {tr_kind_T(0, rn, other), tr_kind_T(1 + (int)((i + dir) % (TR_T_KINDS - 1)), rn, other)};
    for (int j = 0; j < 2; j++) {
      double lo, hi, bits, ulp, b2;
      if (tr_error_bound(&lo, &hi, &bits, T[j], c, (toi_direction)dir, TOI_BINARY64, TOI_REF_FAST) != TOI_OK ||
          tr_error_engine(&ulp, &b2, T[j], c, (toi_direction)dir, TOI_REF_FAST) != TOI_OK)
        continue;
      n->calls += isfinite(ulp) && ulp > 0;
      n->enclosed += !tr_same(lo, hi);
    }
    double lo, hi, k;
    if (tr_kappa_bound(&lo, &hi, c, (toi_direction)dir, TOI_REF_FAST) != TOI_OK ||
        tr_kappa_engine(&k, c, (toi_direction)dir, TOI_REF_FAST) != TOI_OK)
      continue;
    n->kcalls += isfinite(k);
    n->kenclosed += !tr_same(lo, hi);
  }
}

/* Every family in binary64, 1500 cases each per scale unit. */
Test(ref_fast_err, bounds_enclose_a_share_of_the_families) {
  long per = 1500 * tr_scale();
  for (int f = 0; f < TOI_GEN_FAMILY_COUNT; f++) {
    toi_gen_opts o;
    toi_gen_opts_default(&o, (toi_gen_family)f);
    o.seed = tr_seed();
    bound_counts n = {0, 0, 0, 0};
    for (long i = 0; i < per; i++) {
      toi_case c;
      size_t bin;
      cr_assert_eq(toi_gen_case(&c, NULL, &bin, &o, (uint64_t)i), TOI_OK);
      count_case(&c, i, &n);
    }
    /* Measured (binary64): a tenth to a half of the finite nonzero errors
     * come as enclosures (the rest certified at once, far from t*), and
     * most finite kappas. */
    cr_expect_geq(n.enclosed * 20, n.calls, "%s: %ld of %ld errors enclosed", toi_gen_family_name((toi_gen_family)f),
                  n.enclosed, n.calls);
    cr_expect_geq(n.kenclosed * 2, n.kcalls, "%s: %ld of %ld kappas enclosed", toi_gen_family_name((toi_gen_family)f),
                  n.kenclosed, n.kcalls);
  }
}

/* Random data over the whole exponent range: lengths in [2^el, 2^(el+40)],
 * velocities in [2^ev, 2^(ev+40)], half the pairs aimed at each other. */
Test(ref_fast_err, bounds_enclose_at_any_scale) {
  tr_rng r = {tr_seed() ^ 0x626f756e6473ULL};
  long n_cases = 3000 * tr_scale();
  bound_counts n = {0, 0, 0, 0};
  for (long i = 0; i < n_cases; i++) {
    toi_case c;
    memset(&c, 0, sizeof c);
    strcpy(c.id, "rnd");
    c.dim = 2 + (int)(tr_next(&r) & 1);
    c.ma = c.mb = 1;
    int el = (int)tr_int(&r, -1000, 950), ev = (int)tr_int(&r, -1000, 950);
    tr_spread_fill(&r, &c, el, ev, (int)(i % 2), 0);
    count_case(&c, i, &n);
  }
  cr_expect_gt(n.enclosed, 0);
  cr_expect_gt(n.kenclosed, 0);
}

/* An answer on an exact root that the fast engine only encloses: B at (3, 0)
 * moving at (-1, 0) meets A (radii 1 and 1) at t* = 1 exactly. T = 1 has
 * error 0, which the enclosure must hold (its low end may be 0 itself); the
 * neighbours of 1 have errors 1 (above, ulp(1) = 2^-52) and 0.5 (below). */
Test(ref_bounds, an_exact_root_is_enclosed) {
  toi_case c = {.id = "x", .dim = 2, .pa = {0, 0, 0}, .pb = {3, 0, 0}, .va = {0, 0, 0}, .vb = {-1, 0, 0},
                .ra = 1, .rb = 1, .ma = 1, .mb = 1};
  const double T[3] = {1.0, nextafter(1.0, 2), nextafter(1.0, 0)}, want[3] = {0, 1, 0.5};
  for (int i = 0; i < 3; i++) {
    double lo, hi, bits;
    cr_assert_eq(tr_error_bound(&lo, &hi, &bits, T[i], &c, TOI_FORWARD, TOI_BINARY64, TOI_REF_FAST), TOI_OK);
    cr_assert(lo <= want[i] && want[i] <= hi && lo >= 0 && hi < INFINITY, "T = %a: [%a, %a]", T[i], lo, hi);
    cr_assert_eq(bits, i == 0 ? 0.0 : 1.0);
  }
}

Test(ref_fast_err, mpfr_engine_never_takes_the_fast_path) {
  toi_case c = tr_case2(0, 0, 0, 0, 0.5, 2, 0, -3, 0, 0.5);
  double u, b, k;
  ref_fast_err_counts n;
  toi_ref_fast_stats st;
  toi_ref_fast_stats_reset();
  ref_fast_err_counts_reset();
  cr_assert_eq(tr_error_engine(&u, &b, 0.25, &c, TOI_FORWARD, TOI_REF_MPFR), TOI_OK);
  cr_assert_eq(tr_kappa_engine(&k, &c, TOI_FORWARD, TOI_REF_MPFR), TOI_OK);
  ref_fast_err_counts_get(&n);
  cr_expect_eq(n.error_calls + n.kappa_calls, 0, "the MPFR engine used the fast paths");
  cr_assert_eq(tr_error_engine(&u, &b, 0.25, &c, TOI_FORWARD, TOI_REF_FAST), TOI_OK);
  cr_assert_eq(tr_kappa_engine(&k, &c, TOI_FORWARD, TOI_REF_FAST), TOI_OK);
  ref_fast_err_counts_get(&n);
  cr_expect_eq(n.error_calls, 1);
  cr_expect_eq(n.kappa_calls, 1);
  cr_expect_eq(n.error_fb + n.kappa_fb, 0);
  toi_ref_fast_stats_get(&st);
  cr_expect_eq(st.calls, 0, "toi_ref_fast_stats count toi_ref_solve alone");
}

#define FE_THREAD_CASES 2000

typedef struct fe_job {
  const toi_case *cases;
  double *ulp, *kap;
  int stride; /* visit the cases in another order than the serial run */
  int failures;
} fe_job;

static void *fe_thread(void *arg) {
  fe_job *j = arg;
  for (int n = 0; n < FE_THREAD_CASES; n++) {
    int i = (int)(((long)n * j->stride) % FE_THREAD_CASES);
    toi_ref r;
    double b;
    if (tr_solve_engine(&r, &j->cases[i], TOI_REF_FAST) != TOI_OK) j->failures++;
    double T = isnan(r.tfwd) ? 1.0 : nextafter(r.tfwd, 0);
    if (tr_error_engine(&j->ulp[i], &b, T, &j->cases[i], TOI_FORWARD, TOI_REF_FAST) != TOI_OK) j->failures++;
    if (tr_kappa_engine(&j->kap[i], &j->cases[i], TOI_FORWARD, TOI_REF_FAST) != TOI_OK) j->failures++;
  }
  return NULL;
}

/* Each thread keeps the state of its last case: two threads on the same
 * cases in different orders must still agree with a serial run. */
Test(ref_fast_err, two_threads_match_serial) {
  static toi_case cases[FE_THREAD_CASES];
  static double su[FE_THREAD_CASES], sk[FE_THREAD_CASES], pu[2][FE_THREAD_CASES], pk[2][FE_THREAD_CASES];
  toi_gen_opts o;
  toi_gen_opts_default(&o, TOI_GEN_MIXED);
  o.seed = tr_seed();
  for (int i = 0; i < FE_THREAD_CASES; i++) {
    size_t bin;
    cr_assert_eq(toi_gen_case(&cases[i], NULL, &bin, &o, (uint64_t)i), TOI_OK);
  }
  fe_job serial = {cases, su, sk, 1, 0};
  fe_thread(&serial);
  cr_assert_eq(serial.failures, 0);
  fe_job par[2] = {{cases, pu[0], pk[0], 7, 0}, {cases, pu[1], pk[1], 1999, 0}};
  pthread_t th[2];
  for (int t = 0; t < 2; t++) cr_assert_eq(pthread_create(&th[t], NULL, fe_thread, &par[t]), 0);
  for (int t = 0; t < 2; t++) cr_assert_eq(pthread_join(th[t], NULL), 0);
  for (int t = 0; t < 2; t++) {
    cr_assert_eq(par[t].failures, 0);
    for (int i = 0; i < FE_THREAD_CASES; i++) {
      cr_assert(tr_same(pu[t][i], su[i]), "thread %d case %d: ulp %a, serial %a", t, i, pu[t][i], su[i]);
      cr_assert(tr_same(pk[t][i], sk[i]), "thread %d case %d: kappa %a, serial %a", t, i, pk[t][i], sk[i]);
    }
  }
}

static int fe_run(const char *dir, const char *args) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "'%s' %s 2>err </dev/null", TOIBENCH_PATH, args);
  return cc_cmd(dir, cmd);
}

/* 10^5 mixed cases (every family, every formulation: 11 errors and up to two
 * kappas per case) give byte-identical result files with both engines. */
Test(ref_fast_err, sweep_identical_with_both_engines) {
  char dir[64] = "/tmp/toifasterrXXXXXX";
  cr_assert_not_null(mkdtemp(dir));
  char args[256];
  long n = 100000 * tr_scale();
  snprintf(args, sizeof args, "sweep mixed --count %ld -j 2 --quiet --reference fast -o fast.txt", n);
  cr_assert_eq(fe_run(dir, args), 0, "sweep --reference fast failed");
  snprintf(args, sizeof args, "sweep mixed --count %ld -j 2 --quiet --reference mpfr -o mpfr.txt", n);
  cr_assert_eq(fe_run(dir, args), 0, "sweep --reference mpfr failed");
  char pf[128], pm[128];
  snprintf(pf, sizeof pf, "%s/fast.txt", dir);
  snprintf(pm, sizeof pm, "%s/mpfr.txt", dir);
  size_t lf, lm;
  char *f = cc_slurp(pf, &lf), *m = cc_slurp(pm, &lm);
  cr_assert_gt(lf, 1000, "a sweep result is more than a header");
  if (lf != lm || memcmp(f, m, lf)) {
    size_t i = 0;
    while (i < lf && i < lm && f[i] == m[i]) i++;
    cr_assert_fail("sweep results differ from byte %zu (kept in %s)", i, dir);
  }
  free(f);
  free(m);
  cc_rmtree(dir);
}

/* The FMA build makes the three-double forms of a, b and c in one vector,
 * a lane each, with the scalar code's operations in its order: the same
 * doubles, and the same error bounds (whose term counts it keeps apart: a
 * count one short would make the bounds too small), on every family in 2D
 * and 3D, and on data whose low parts are zero in some places only. */
Test(ref_fast_err, vector_triples_are_the_scalar_ones) {
  long same = 0;
  for (int f = 0; f < TOI_GEN_FAMILY_COUNT; f++) {
    toi_gen_opts o;
    toi_gen_opts_default(&o, (toi_gen_family)f);
    o.seed = 0x747269706c65ULL + (uint64_t)f;
    for (uint64_t i = 0; i < 400; i++) {
      if (i == 200 && o.dim != 0) o.dim = 3;
      toi_case c;
      size_t bin;
      cr_assert_eq(toi_gen_case(&c, NULL, &bin, &o, i), TOI_OK);
      int r = ref_fast_triples_same(&c);
      cr_assert_neq(r, 0, "the vector triples differ on %s", tr_fmt(&c));
      same += r > 0;
      /* one number at a time made exact in the other's binade, so that
       * each low part of s, v and R is zero in turn */
      for (int k = 0; k < 7 && r >= 0; k++) {
        toi_case e = c;
        double *x = k < 3 ? &e.pb[k] : k < 6 ? &e.vb[k - 3] : &e.rb;
        double y = k < 3 ? e.pa[k] : k < 6 ? e.va[k - 3] : e.ra;
        *x = k == 6 ? y : 2 * y; /* pB - pA = pA, vB - vA = vA, rA + rB = 2 rA: exact */
        r = ref_fast_triples_same(&e);
        cr_assert_neq(r, 0, "the vector triples differ on %s", tr_fmt(&e));
      }
    }
  }
  if (!ref_fast_fma()) cr_skip_test("no FMA build here");
  cr_expect_gt(same, 1000);
}

/* The FMA build's scaled data (s, R, v by TwoSum in vectors, the checks
 * without branches) are ref_fast_scaled_data's, bit for bit, with the same
 * verdict: on every family in 2D and 3D, and on cases each of its checks
 * refuses or sends to the scalar code (a NaN or an infinity in any number,
 * a negative radius, a 2D case with a third component, s or v zero, scales
 * far from 1, a part below 2^-480). */
Test(ref_fast_err, vector_scaled_data_are_the_scalar_ones) {
  if (!ref_fast_fma()) cr_skip_test("no FMA build here");
  long n = 0;
  const double odd[] = {NAN, INFINITY, -INFINITY, 0x1p-1074, 0x1p-500, 0x1p-479, 0x1p70, 0x1p-70, 1e300, -0.0, 0.0};
  for (int f = 0; f < TOI_GEN_FAMILY_COUNT; f++) {
    toi_gen_opts o;
    toi_gen_opts_default(&o, (toi_gen_family)f);
    o.seed = 0x7363616c6564ULL + (uint64_t)f;
    for (uint64_t i = 0; i < 300; i++) {
      if (i == 150 && o.dim != 0) o.dim = 3;
      toi_case c;
      size_t bin;
      cr_assert_eq(toi_gen_case(&c, NULL, &bin, &o, i), TOI_OK);
      cr_assert_eq(ref_fast_scaled_data_same(&c), 1, "differ on %s", tr_fmt(&c));
      n++;
      /* one of the fourteen numbers replaced by an odd value, in turn */
      for (int k = 0; k < 14; k++) {
        toi_case e = c;
        double *x = k < 3 ? &e.pa[k] : k < 6 ? &e.va[k - 3] : k < 9 ? &e.pb[k - 6] : k < 12 ? &e.vb[k - 9]
                  : k == 12 ? &e.ra : &e.rb;
        double w = odd[(i + (uint64_t)k) % (sizeof odd / sizeof *odd)];
        *x = k >= 12 && i % 3 == 0 ? -w : w;
        cr_assert_eq(ref_fast_scaled_data_same(&e), 1, "differ on %s (number %d)", tr_fmt(&e), k);
        /* s = 0 or v = 0 */
        e = c;
        for (int j = 0; j < 3; j++) (k % 2 ? e.pb : e.vb)[j] = (k % 2 ? e.pa : e.va)[j];
        cr_assert_eq(ref_fast_scaled_data_same(&e), 1, "differ on %s", tr_fmt(&e));
      }
      toi_case d = c;
      d.dim = 2;
      cr_assert_eq(ref_fast_scaled_data_same(&d), 1, "differ on %s", tr_fmt(&d));
    }
  }
  cr_expect_gt(n, 1000);
}

/* F and G, which the light path evaluates at RN(t*), in one vector in the
 * FMA build: the scalar code's doubles and errors, at each root of every
 * family's cases, the doubles next to it, and farther. */
Test(ref_fast_err, vector_F_and_G_are_the_scalar_ones) {
  if (!ref_fast_fma()) cr_skip_test("no FMA build here");
  long n = 0;
  for (int f = 0; f < TOI_GEN_FAMILY_COUNT; f++) {
    toi_gen_opts o;
    toi_gen_opts_default(&o, (toi_gen_family)f);
    o.seed = 0x46472076ULL + (uint64_t)f;
    for (uint64_t i = 0; i < 300; i++) {
      if (i == 150 && o.dim != 0) o.dim = 3;
      toi_case c;
      size_t bin;
      cr_assert_eq(toi_gen_case(&c, NULL, &bin, &o, i), TOI_OK);
      toi_ref r;
      if (tr_solve_engine(&r, &c, TOI_REF_FAST) != TOI_OK) continue;
      const double roots[2] = {r.tfwd, r.trev};
      for (int d = 0; d < 2; d++) {
        double t = isfinite(roots[d]) ? roots[d] : 1.5;
        const double T[5] = {t, nextafter(t, INFINITY), nextafter(t, -INFINITY), t * (1 + 0x1p-30), 2 * t + 1};
        for (int m = 0; m < 5; m++) {
          int s = ref_fast_FG_same(&c, T[m]);
          cr_assert_neq(s, 0, "differ at T %a on %s", T[m], tr_fmt(&c));
          n += s > 0;
        }
      }
    }
  }
  cr_expect_gt(n, 5000);
}
