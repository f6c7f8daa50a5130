/* test_ref_fast_err.c: toi_ref_error and toi_ref_kappa answer bit for bit alike with both engines, and as the maths says. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <dirent.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "gen.h"
#include "ref_common.h"
#include "ref_fast_api.h"
#include "reference_check.h"
#include "cli_check.h"
#include "ref_forms.h"

/*
 * The GMP/MPFR paths of toi_ref_error and toi_ref_kappa are the
 * specification; the fast engine's paths must give the same status and the
 * same bits, for every T a scorer can meet (the root's own rounding, its
 * neighbours, far answers, 0, infinities, subnormals, NaN), on the case
 * files, on every generator family (with and without the FMA build), on
 * random bit patterns over the whole range, and through a whole sweep. The
 * error must moreover be the correctly rounded quotient |T - t*| / ulp(t*):
 * checked against exact answers and against an independent high-precision
 * computation. Counts scale with TOI_TEST_SCALE; seeds come from
 * TOI_TEST_SEED.
 */

/* Both engines on toi_ref_error, each named explicitly. */
static void fe_check_error(const toi_case *c, toi_direction dir, double T, const char *where) {
  double uf, bf, um, bm;
  toi_status sf = tr_error_engine(&uf, &bf, T, c, dir, TOI_REF_FAST);
  toi_status sm = tr_error_engine(&um, &bm, T, c, dir, TOI_REF_MPFR);
  cr_assert_eq(sf, sm, "%s: error status fast %d, mpfr %d on %s", where, (int)sf, (int)sm, tr_fmt(c));
  if (!tr_same(uf, um) || !tr_same(bf, bm))
    cr_assert_fail("%s: tr_error(T = %a, %s) differs on\n  %s\n  fast: ulp %a bits %a\n  mpfr: ulp %a bits %a",
                   where, T, dir == TOI_FORWARD ? "forward" : "reverse", tr_fmt(c), uf, bf, um, bm);
}

static void fe_check_kappa(const toi_case *c, toi_direction dir, const char *where) {
  double kf, km;
  toi_status sf = tr_kappa_engine(&kf, c, dir, TOI_REF_FAST);
  toi_status sm = tr_kappa_engine(&km, c, dir, TOI_REF_MPFR);
  cr_assert_eq(sf, sm, "%s: kappa status fast %d, mpfr %d on %s", where, (int)sf, (int)sm, tr_fmt(c));
  if (!tr_same(kf, km))
    cr_assert_fail("%s: tr_kappa(%s) differs on\n  %s\n  fast: %a\n  mpfr: %a", where,
                   dir == TOI_FORWARD ? "forward" : "reverse", tr_fmt(c), kf, km);
}

/* ---- the times T a scorer can meet (tr_kind_T) ---- */

/* Every kind of T for both directions and kappa on the committed case files,
   in both precisions: tests/reference/test_ref_generic.c (ref_generic/corpora). */

/* ---- the generator families ---- */

ParameterizedTestParameters(ref_fast_err, families_bit_identical) {
  static tr_fam_param p[2 * TOI_GEN_FAMILY_COUNT];
  return cr_make_param_array(tr_fam_param, p, tr_fam_params(p));
}

/* 2 10^4 cases per family and scale unit (half of them in 3D, when the
 * family lets the dimension be chosen), 4 10^3 for the build without FMA.
 * Each direction: T = RN(t*) and one more kind, in turn; kappa. */
ParameterizedTest(tr_fam_param *p, ref_fast_err, families_bit_identical) {
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
    char where[160];
    snprintf(where, sizeof where, "%s case %ld " SEED_MSG, toi_gen_family_name(o.family), i, SEED_ARGS);
    toi_ref r;
    cr_assert_eq(tr_solve_engine(&r, &c, TOI_REF_FAST), TOI_OK);
    for (int dir = 0; dir < 2; dir++) {
      double rn = dir ? r.trev : r.tfwd;
      double other = ref_dir_root(&r, (toi_direction)dir) == 1 ? r.thi : r.tlo;
      fe_check_error(&c, (toi_direction)dir, tr_kind_T(0, rn, other), where);
      fe_check_error(&c, (toi_direction)dir, tr_kind_T(1 + (int)((i + dir) % (TR_T_KINDS - 1)), rn, other), where);
      fe_check_kappa(&c, (toi_direction)dir, where);
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

/* ---- random data over the whole exponent range ---- */

/* Lengths with exponents in [el, el + 40], velocities in [ev, ev + 40] (el,
 * ev anywhere), every other pair aimed so that roots occur; or random bit
 * patterns. Subnormal and infinite roots, scaled data, fallbacks. */
Test(ref_fast_err, random_any_scale) {
  tr_rng r = {tr_seed() ^ 0x6665727273636cULL};
  long n = 4000 * tr_scale();
  for (long i = 0; i < n; i++) {
    toi_case c;
    memset(&c, 0, sizeof c);
    strcpy(c.id, "rnd");
    c.dim = 2 + (int)(tr_next(&r) & 1);
    c.ma = c.mb = 1;
    if (i % 4 == 0) {
      for (int k = 0; k < c.dim; k++) c.pa[k] = tr_bits(&r), c.pb[k] = tr_bits(&r), c.va[k] = tr_bits(&r), c.vb[k] = tr_bits(&r);
      c.ra = fabs(tr_bits(&r)), c.rb = fabs(tr_bits(&r));
    } else {
      int el = (int)tr_int(&r, -1060, 980), ev = (int)tr_int(&r, -1060, 980);
      tr_spread_fill(&r, &c, el, ev, (int)(i % 2), 1);
    }
    char where[128];
    snprintf(where, sizeof where, "random case %ld " SEED_MSG, i, SEED_ARGS);
    toi_ref ref;
    if (tr_solve_engine(&ref, &c, TOI_REF_FAST) != TOI_OK) continue;
    for (int dir = 0; dir < 2; dir++) {
      double rn = dir ? ref.trev : ref.tfwd;
      double other = ref_dir_root(&ref, (toi_direction)dir) == 1 ? ref.thi : ref.tlo;
      fe_check_error(&c, (toi_direction)dir, tr_kind_T(0, rn, other), where);
      fe_check_error(&c, (toi_direction)dir, tr_kind_T((int)(i % TR_T_KINDS), rn, other), where);
      fe_check_kappa(&c, (toi_direction)dir, where);
    }
  }
}

/* ---- the error is the correctly rounded quotient ---- */

/* 1D motion with rational, non-dyadic roots: B at (2, 0) moving (-3, 0)
 * towards A at rest at the origin, R = 1: a = 9, b = -6, c = 3, D = 9, roots
 * 1/3 and 1. RN(1/3) = 1/3 - 2^-54/3 and ulp(1/3) = 2^-54, so T = RN(1/3)
 * is 1/3 ulp away, its upper neighbour 2/3, 0 is 2^54/3 ulps away; the
 * quotients are those rationals, correctly rounded. kappa = [(|0| + |2| +
 * (1/3)(|0| + |-3|)) |u_x| + (0.5 + 0.5) R] / (sqrt(D) |t|) with u = s + v t
 * = (1, 0): (3 + 1) / (3 / 3) = 4. */
Test(ref_fast_err, exact_rational_quotients) {
  toi_case c = tr_case2(0, 0, 0, 0, 0.5, 2, 0, -3, 0, 0.5);
  const double third = 0x1.5555555555555p-2; /* RN(1/3) */
  struct {
    double T, ulp, bits;
  } want[] = {
      {third, 0x1.5555555555555p-2, 0},                 /* 1/3 */
      {nextafter(third, 1), 0x1.5555555555555p-1, 1},   /* 2/3 */
      {nextafter(third, 0), 0x1.5555555555555p+0, 1},   /* 4/3 */
      {0, 0x1.5555555555555p+52, NAN},                  /* 2^54/3 */
      {1, 0x1.5555555555555p+53, NAN},                  /* (2/3) 2^54 */
  };
  for (int e = 0; e < 2; e++) {
    const toi_ref_engine eng = e ? TOI_REF_MPFR : TOI_REF_FAST;
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
      double u, b;
      cr_assert_eq(tr_error_engine(&u, &b, want[i].T, &c, TOI_FORWARD, eng), TOI_OK);
      cr_expect(tr_same(u, want[i].ulp), "%s engine, T = %a: ulp %a, want %a", e ? "mpfr" : "fast", want[i].T, u,
                want[i].ulp);
      if (!isnan(want[i].bits)) cr_expect_eq(b, want[i].bits, "T = %a: bits %g", want[i].T, b);
    }
    double k;
    cr_assert_eq(tr_kappa_engine(&k, &c, TOI_FORWARD, eng), TOI_OK);
    cr_expect(tr_same(k, 4.0), "%s engine: kappa %a, want 4", e ? "mpfr" : "fast", k);
    cr_assert_eq(tr_kappa_engine(&k, &c, TOI_REVERSE, eng), TOI_OK);
    cr_expect(isnan(k), "no reverse root: kappa %a", k);
  }
}

/* Dyadic roots, where the quotient is exact: h (B at (5, 0) moving (-1, 0),
 * R = 4: a = 1, b = -5, c = 9, D = 16) has roots 1 and 9, and t* = 1 is a
 * power of two, so T = 1 - 2^-53 lies in the binade below but is measured
 * in ulp(1) = 2^-52: 1/2; g (s = (4, 3), v = (-1, 0), R = 3: a = 1, b = -4,
 * c = 16, D = 0) grazes at t* = 4; z (|s| = 5 = R, v = (-1, -1): c = 0,
 * b = -7) touches now: its forward root is exactly 0, ulp(0) = 2^-1074, so
 * T = 2^-1074 is 1 ulp away and T = 1 overflows the quotient to +Inf. */
Test(ref_fast_err, exact_dyadic_roots) {
  toi_case h = tr_rel2(5, 0, -1, 0, 2, 2);
  toi_case g = tr_rel2(4, 3, -1, 0, 1.5, 1.5);
  toi_case z = tr_rel2(3, 4, -1, -1, 2.5, 2.5);
  struct {
    const toi_case *c;
    double T, ulp;
  } want[] = {
      {&h, 1, 0},
      {&h, 0x1.fffffffffffffp-1, 0.5},
      {&h, 0x1.0000000000001p+0, 1},
      {&h, 2, 0x1p+52},
      {&g, 4, 0},
      {&g, 0x1.0000000000001p+2, 1},
      {&g, 0x1.fffffffffffffp+1, 0.5},
      {&z, 0, 0},
      {&z, -0.0, 0},
      {&z, 0x1p-1074, 1},
      {&z, 0x1.8p-1070, 24},
      {&z, 1, INFINITY},
  };
  for (int e = 0; e < 2; e++) {
    const toi_ref_engine eng = e ? TOI_REF_MPFR : TOI_REF_FAST;
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
      double u, b;
      cr_assert_eq(tr_error_engine(&u, &b, want[i].T, want[i].c, TOI_FORWARD, eng), TOI_OK);
      cr_expect(tr_same(u, want[i].ulp), "%s engine, row %zu, T = %a: ulp %a, want %a", e ? "mpfr" : "fast", i,
                want[i].T, u, want[i].ulp);
    }
  }
}

/*
 * Against an independent computation: t* from the textbook formula at
 * several thousand bits (reference_check.h's precisions), |T - t*| and the
 * ulp of its binade at that precision, then the rounding to double the MPFR
 * manual documents (exponent range and mpfr_subnormalize on an exact mpq).
 * A wrong last bit would need t* within 2^-2000 of a breakpoint. On moderate
 * families only (their data span a few hundred bits at most).
 */
static double fe_independent_ulp(const toi_case *c, toi_direction dir, double T) {
  toi_ref r;
  if (tr_solve_engine(&r, c, TOI_REF_FAST) != TOI_OK) return NAN;
  int lo = ref_dir_root(&r, dir);
  if (lo < 0 || isnan(T)) return NAN;
  long span = tr_span(c, 0);
  mpfr_prec_t pe = 4 * span + 64, pr = 2 * pe + 1024;
  mpfr_t a, b, cc, D, q, x;
  tr_exact_abcd(a, b, cc, D, c, 0, pe);
  mpfr_inits2(pr, q, x, (mpfr_ptr)0);
  mpfr_sqrt(q, D, MPFR_RNDN);
  mpfr_neg(x, b, MPFR_RNDN);
  if (lo)
    mpfr_sub(x, x, q, MPFR_RNDN);
  else
    mpfr_add(x, x, q, MPFR_RNDN);
  mpfr_div(x, x, a, MPFR_RNDN); /* t* */
  long e = mpfr_zero_p(x) ? -1074 : (long)mpfr_get_exp(x) - 1;
  if (e < -1022) e = -1022;
  if (e > 1023) e = 1023;
  mpfr_set_d(q, T, MPFR_RNDN);
  mpfr_sub(x, q, x, MPFR_RNDN);
  mpfr_abs(x, x, MPFR_RNDN);
  mpfr_mul_2si(x, x, -(e - 52), MPFR_RNDN);
  double u = tr_round_fr(x);
  mpfr_clears(a, b, cc, D, q, x, (mpfr_ptr)0);
  return u;
}

Test(ref_fast_err, mpfr_error_correctly_rounded) {
  long n = 300 * tr_scale();
  const toi_gen_family fams[] = {TOI_GEN_GENERIC, TOI_GEN_AIMED, TOI_GEN_NEAR_CONTACT, TOI_GEN_GRAZING, TOI_GEN_SLOW};
  for (size_t f = 0; f < sizeof fams / sizeof fams[0]; f++) {
    toi_gen_opts o;
    toi_gen_opts_default(&o, fams[f]);
    o.seed = tr_seed();
    for (long i = 0; i < n; i++) {
      toi_case c;
      size_t bin;
      cr_assert_eq(toi_gen_case(&c, NULL, &bin, &o, (uint64_t)i), TOI_OK);
      toi_ref r;
      cr_assert_eq(tr_solve_engine(&r, &c, TOI_REF_FAST), TOI_OK);
      for (int dir = 0; dir < 2; dir++) {
        double rn = dir ? r.trev : r.tfwd;
        if (isnan(rn)) continue;
        const int kinds[] = {0, 1, 6, 5, 11, 12, 14};
        for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
          double T = tr_kind_T(kinds[k], rn, NAN), want = fe_independent_ulp(&c, (toi_direction)dir, T);
          for (int e = 0; e < 2; e++) {
            double u, b;
            const toi_ref_engine eng = e ? TOI_REF_MPFR : TOI_REF_FAST;
            cr_assert_eq(tr_error_engine(&u, &b, T, &c, (toi_direction)dir, eng), TOI_OK);
            cr_assert(tr_same(u, want), "%s engine, %s case %ld dir %d T %a: ulp %a, independently %a " SEED_MSG,
                      e ? "mpfr" : "fast", toi_gen_family_name(fams[f]), i, dir, T, u, want, SEED_ARGS);
          }
        }
      }
    }
  }
}

/* ---- the engine setting, the counters, threads ---- */

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

/* ---- a whole sweep ---- */

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
