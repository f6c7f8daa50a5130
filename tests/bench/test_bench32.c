/* test_bench32.c: the precision axis of the bench: float solvers scored in binary32 ULPs on rounded inputs. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench.h"
#include "cli_check.h"
#include "gen.h"
#include "test_env.h"
#include "test_rng.h"
#include "tmp_dir.h"

#define FLOAT_CMD "tests/solvers/float_ericson_cmd"
#define FLOAT_PLUGIN "tests/solvers/float_ericson_plugin.so"

/* The two float solvers as binary32 candidates: the command (told its
   precision by --solver-cmd-precision's equivalent) and the plug-in (which
   declares it in its catalog). */
static void keep_msg(void *ud, const char *text) { snprintf(ud, 600, "%s", text); }

static void float_candidates(toi_candidate c[2]) {
  cr_assert_eq(toi_candidate_command_prec(&c[0], cc_built(FLOAT_CMD), TOI_BINARY32), TOI_OK);
  toi_candidate *v = NULL;
  char err[600] = "";
  size_t k = 0;
  toi_msg m = {keep_msg, err};
  cr_assert_eq(toi_candidates_plugin(&v, &k, cc_built(FLOAT_PLUGIN), &m, NULL, 0), TOI_OK, "%s", err);
  cr_assert_eq(k, 1);
  c[1] = v[0];
  free(v);
  cr_assert_eq(c[1].precision, TOI_BINARY32, "the plug-in's catalog declares binary32");
}

static void run_rows(toi_run_row *rows, const toi_candidate *c, size_t nc, const toi_case *cases, size_t n) {
  toi_bench_opts o;
  toi_bench_opts_init(&o);
  cr_assert_eq(toi_bench_run(rows, c, nc, cases, n, &o, NULL, NULL), 0);
}

/* A hit whose exact time is an integer over a power of two, with every
   number a small integer: float computes it exactly. B approaches A along
   -x at speed w with offset y, R^2 - y^2 a perfect square (Pythagorean). */
static void exact_case(toi_case *c, test_rng *r, int i) {
  static const int tri[][3] = {{5, 3, 4}, {5, 4, 3}, {13, 5, 12}, {13, 12, 5}, {25, 7, 24}, {7, 0, 7}};
  const int *t = tri[test_rng_int(r, 0, 5)];
  double R = t[0], y = t[1], w = ldexp(1, (int)test_rng_int(r, 0, 3)), X = R + (double)test_rng_int(r, 1, 40);
  memset(c, 0, sizeof *c);
  snprintf(c->id, sizeof c->id, "exact-%d", i);
  c->dim = 2;
  double off[2] = {(double)test_rng_int(r, -50, 50), (double)test_rng_int(r, -50, 50)};
  double va[2] = {(double)test_rng_int(r, -8, 8), (double)test_rng_int(r, -8, 8)};
  c->ra = (double)test_rng_int(r, 0, (long)R);
  c->rb = R - c->ra;
  c->ma = c->mb = 1;
  for (int k = 0; k < 2; k++) {
    c->pa[k] = off[k];
    c->va[k] = va[k];
  }
  c->pb[0] = off[0] + X;
  c->pb[1] = off[1] + y;
  c->vb[0] = va[0] - w;
  c->vb[1] = va[1];
}

Test(bench32, float_solvers_are_exact_on_float_exact_roots) {
  test_rng r = {te_seed(0x32b0)};
  enum { N = 64 };
  toi_case cases[N];
  for (int i = 0; i < N; i++) exact_case(&cases[i], &r, i);
  toi_candidate c[2];
  float_candidates(c);
  toi_run_row rows[2];
  run_rows(rows, c, 2, cases, N);
  for (int k = 0; k < 2; k++) {
    toi_run_stats s;
    toi_run_row_stats(&rows[k], &s);
    cr_assert_eq(s.timed, (size_t)N, "%s: %zu timed", c[k].name, s.timed);
    cr_assert_eq(s.max_ulp, 0.0, "%s: max %g binary32 ULP on exact roots", c[k].name, s.max_ulp);
    cr_assert_eq(s.inputs_rounded, 0, "integers are floats");
    cr_assert_eq(rows[k].failed + rows[k].unsupported + rows[k].overflowed, 0);
  }
  toi_run_rows_free(rows, 2);
  for (int k = 0; k < 2; k++) toi_candidate_free(&c[k]);
}

/* 1 when some number of c is not a float. */
static int not_float(const toi_case *c) {
  const double x[] = {c->pa[0], c->pa[1], c->pa[2], c->va[0], c->va[1], c->va[2], c->ra, c->ma,
                      c->pb[0], c->pb[1], c->pb[2], c->vb[0], c->vb[1], c->vb[2], c->rb, c->mb};
  for (size_t k = 0; k < sizeof x / sizeof x[0]; k++)
    if ((double)(float)x[k] != x[k]) return 1;
  return 0;
}

/* Generated aimed cases (binary64 numbers), some made float-exact. */
static size_t aimed_cases(toi_case *cases, size_t n, size_t *changed) {
  toi_gen_opts g;
  toi_gen_family fam;
  cr_assert_eq(toi_gen_family_parse(&fam, "aimed"), TOI_OK);
  toi_gen_opts_default(&g, fam);
  g.seed = te_seed(0x32b1);
  *changed = 0;
  for (size_t i = 0; i < n; i++) {
    size_t bin;
    cr_assert_eq(toi_gen_case(&cases[i], NULL, &bin, &g, i), TOI_OK);
    if (i % 5 == 0) cr_assert_geq(toi_case_round(&cases[i], &cases[i], TOI_BINARY32), 0);
    *changed += (size_t)not_float(&cases[i]);
  }
  return n;
}

Test(bench32, float_solvers_score_a_few_binary32_ulps_on_ordinary_hits) {
  enum { N = 400 };
  static toi_case cases[N];
  size_t changed;
  aimed_cases(cases, N, &changed);
  cr_assert(changed > 0 && changed < N, "the suite mixes float and non-float cases (%zu)", changed);
  toi_candidate c[3];
  float_candidates(c);
  /* The same float command scored as binary64: unrounded inputs, binary64 ULPs. */
  char any[4200];
  snprintf(any, sizeof any, "%s --any", cc_built(FLOAT_CMD));
  cr_assert_eq(toi_candidate_command_prec(&c[2], any, TOI_BINARY64), 0);
  toi_run_row rows[3];
  run_rows(rows, c, 3, cases, N);
  toi_run_stats s[3];
  for (int k = 0; k < 3; k++) toi_run_row_stats(&rows[k], &s[k]);
  for (int k = 0; k < 2; k++) {
    cr_assert_gt(s[k].timed, N / 2, "%s timed %zu", c[k].name, s[k].timed);
    cr_assert_leq(s[k].median_ulp, 8, "%s: median %g binary32 ULP", c[k].name, s[k].median_ulp);
    cr_assert_eq(s[k].inputs_rounded, changed, "%s: %zu rounded, %zu not floats", c[k].name, s[k].inputs_rounded,
                 changed);
    cr_assert_eq(s[k].missed + s[k].ghost + s[k].other, 0);
  }
  cr_assert_eq(s[0].median_ulp, s[1].median_ulp, "command and plug-in are the same float code");
  cr_assert_geq(s[2].median_ulp, 0x1p20, "in binary64 ULPs the float solver is far off: %g", s[2].median_ulp);
  toi_run_rows_free(rows, 3);
  for (int k = 0; k < 3; k++) toi_candidate_free(&c[k]);
}

Test(bench32, a_case_beyond_binary32_is_counted_apart) {
  toi_case cases[2];
  test_rng r = {te_seed(0x32b2)};
  exact_case(&cases[0], &r, 0);
  cases[1] = cases[0];
  snprintf(cases[1].id, sizeof cases[1].id, "huge");
  cases[1].pb[0] = 1e300;
  toi_candidate c[2];
  float_candidates(c);
  toi_run_row rows[2];
  run_rows(rows, c, 2, cases, 2);
  for (int k = 0; k < 2; k++) {
    cr_assert_eq(rows[k].overflowed, 1);
    cr_assert_eq(rows[k].st.cases, 1);
    cr_assert_eq(rows[k].failed + rows[k].unsupported, 0, "not given to the solver, not a failure");
  }
  toi_run_rows_free(rows, 2);
  for (int k = 0; k < 2; k++) toi_candidate_free(&c[k]);
}

/* A mass below binary32's smallest subnormal rounds to 0, which format v1
   forbids: beyond binary32's range like an overflow, not sent to the solver. */
Test(bench32, a_mass_that_rounds_to_zero_is_beyond_binary32) {
  toi_case cases[3];
  test_rng r = {te_seed(0x32b3)};
  exact_case(&cases[0], &r, 0);
  cases[1] = cases[0];
  cases[2] = cases[0];
  snprintf(cases[1].id, sizeof cases[1].id, "tiny_ma");
  snprintf(cases[2].id, sizeof cases[2].id, "tiny_mb");
  cases[1].ma = 0x1p-151; /* below half of 2^-149: rounds to +0 in binary32 */
  cases[2].mb = 1e-300;
  toi_case rc;
  cr_assert_eq(toi_case_round(&rc, &cases[1], TOI_BINARY32), -1);
  cr_assert_eq(toi_case_round(&rc, &cases[2], TOI_BINARY32), -1);
  cr_assert_geq(toi_case_round(&rc, &cases[2], TOI_BINARY64), 0, "in binary64 the case is itself");
  cases[2].mb = 0x1p-149; /* binary32's smallest subnormal: a value of binary32, kept */
  cr_assert_eq(toi_case_round(&rc, &cases[2], TOI_BINARY32), 0);
  cases[2].mb = 1e-300;
  /* beyond binary32's range: a state of the case, not a failure of the scoring's input */
  toi_ref ref;
  toi_round_state rs = TOI_ROUND_SAME;
  cr_assert_eq(toi_score_input(&rc, &ref, &rs, &cases[1], TOI_BINARY32, TOI_REF_FAST), TOI_OK);
  cr_assert_eq(rs, TOI_ROUND_OVERFLOW);
  cr_assert_eq(toi_score_input(&rc, &ref, &rs, &cases[1], TOI_BINARY64, TOI_REF_FAST), TOI_OK);
  cr_assert_eq(rs, TOI_ROUND_SAME);
  cr_assert_eq(toi_score_input(&rc, &ref, NULL, &cases[1], TOI_BINARY32, TOI_REF_FAST), TOI_ERR_RANGE);
  toi_candidate c[2];
  float_candidates(c);
  toi_run_row rows[2];
  run_rows(rows, c, 2, cases, 3);
  for (int k = 0; k < 2; k++) {
    cr_assert_eq(rows[k].overflowed, 2, "%s: %zu beyond range", c[k].name, rows[k].overflowed);
    cr_assert_eq(rows[k].failed + rows[k].unsupported, 0, "not given to the solver, not a failure");
  }
  toi_run_rows_free(rows, 2);
  for (int k = 0; k < 2; k++) toi_candidate_free(&c[k]);
}

TestSuite(bench32_cli, .init = td_setup, .fini = td_teardown);

Test(bench32_cli, run_says_the_precision_and_the_rounded_count) {
  char args[4000];
  snprintf(args, sizeof args,
           "gen aimed --count 50 --seed 4 -o '%s'", td_path("a.cases"));
  cr_assert_eq(td_tb(args), 0);
  snprintf(args, sizeof args,
           "run --solver-cmd-precision binary32 --solver-cmd '%s' --solver '%s' --rows rows.txt -o table.txt a.cases",
           cc_built(FLOAT_CMD), cc_built(FLOAT_PLUGIN));
  cr_assert_eq(td_tb(args), 0);
  char *t = td_read("table.txt"), *rows = td_read("rows.txt");
  cr_assert(strstr(t, "precision"), "%s", t);
  cr_assert(strstr(t, "float_ericson_cmd  binary32"), "%s", t);
  cr_assert(strstr(t, "(50 rounded)"), "%s", t);
  cr_assert(strstr(rows, "# id formulation class ref_class t ref_t ulp bits precision cause\n"), "%s", rows);
  cr_assert(strstr(rows, " binary32 -\n"), "%s", rows);
  free(t);
  free(rows);
}

Test(bench32_cli, binary64_outputs_have_no_precision_column) {
  cc_out *o = cc_run(NULL, "run -f ericson cases/degenerate.cases");
  cr_assert_eq(o->status, 0, "%s", o->err);
  cr_assert_null(strstr(o->out, "precision"), "%s", o->out);
}

Test(bench32_cli, a_formulation_without_a_variant_is_a_usage_error) {
  size_t n;
  const toi_formulation *all = toi_formulations(&n);
  const toi_formulation *none = NULL;
  for (size_t i = 0; i < n && !none; i++)
    if (!toi_formulation_solver(&all[i], TOI_BINARY32)) none = &all[i];
  if (!none) return; /* every formulation has one */
  char args[512];
  snprintf(args, sizeof args, "run --precision binary32 -f %s cases/degenerate.cases", none->name);
  cc_out *o = cc_run(NULL, args);
  cr_assert_eq(o->status, 2, "%s", o->err);
  cr_assert(strstr(o->err, "has no binary32 variant"), "%s", o->err);
  o = cc_run(NULL, "run --precision binary16 cases/degenerate.cases");
  cr_assert_eq(o->status, 2);
  cr_assert(strstr(o->err, "binary64, binary32"), "%s", o->err);
}

Test(bench32_cli, sweep_records_precisions_and_merge_refuses_mixed_ones) {
  char args[4000];
  const char *cmd = cc_built(FLOAT_CMD);
  for (int i = 1; i <= 2; i++) {
    snprintf(args, sizeof args,
             "sweep aimed --count 200 --quiet -f ericson --solver-cmd-precision binary32 --solver-cmd '%s' "
             "--shard %d/2 -o s%d.txt",
             cmd, i, i);
    cr_assert_eq(td_tb(args), 0);
  }
  snprintf(args, sizeof args, "sweep aimed --count 200 --quiet -f ericson --solver-cmd '%s --any' --shard 2/2 -o s3.txt",
           cmd);
  cr_assert_eq(td_tb(args), 0);
  snprintf(args, sizeof args, "sweep aimed --count 200 --quiet -f ericson --solver-cmd-precision binary32 "
                              "--solver-cmd '%s' -o whole.txt", cmd);
  cr_assert_eq(td_tb(args), 0);
  char *w = td_read("whole.txt");
  cr_assert(strstr(w, "\nformulations ericson float_ericson_cmd\nprecisions binary64 binary32\nbins 1\n"), "%s", w);
  free(w);
  cr_assert_eq(td_tb("merge s1.txt s2.txt -o merged.txt"), 0);
  cr_assert(td_same_file(td_path("merged.txt"), td_path("whole.txt")), "shards merge into the whole sweep");
  cr_assert_eq(td_tb("merge s1.txt s3.txt -o mixed.txt"), 3);
  cr_assert(!td_exists(td_path("mixed.txt")));
  char *e = td_read("err");
  cr_assert(strstr(e, "s1.txt and s3.txt score float_ericson_cmd in different precisions (binary32 and binary64)"),
            "%s", e);
  free(e);
}

Test(bench32_cli, binary64_sweeps_have_no_precisions_line) {
  cr_assert_eq(td_tb("sweep aimed --count 50 --quiet -f ericson -o s.txt"), 0);
  char *s = td_read("s.txt");
  cr_assert_null(strstr(s, "precisions"), "%s", s);
  free(s);
}
