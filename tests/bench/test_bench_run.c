/* test_bench_run.c: toi_bench_run's rows case by case against the MPFR engine asked on each case alone, and a case the reference refuses in the middle of a block. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench.h"
#include "gen.h"
#include "toiref.h"

/*
 * toi_bench_run solves a block's cases together and prepares a case for the
 * error measure only when an answer needs it. Whatever it does so, each row
 * it writes must be what the MPFR engine gives on that case alone: the exact
 * class and forward root, and for a timed answer its error in ULPs and bits.
 */

typedef struct seen {
  toi_case c;
  int cand; /* 0 or 1: the candidate's index */
  char verdict[16];
  toi_score_case sc;
} seen;

typedef struct rows_kept {
  seen *v;
  size_t n, cap;
  const toi_candidate *cands;
} rows_kept;

static void keep_row(void *ud, const toi_case *c, const toi_candidate *cand, const char *verdict,
                     const toi_score_case *sc) {
  rows_kept *k = ud;
  cr_assert_lt(k->n, k->cap);
  seen *s = &k->v[k->n++];
  s->c = *c;
  s->cand = (int)(cand - k->cands);
  snprintf(s->verdict, sizeof s->verdict, "%s", verdict);
  s->sc = *sc;
}

static int same_double(double a, double b) { return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0; }

static void two_formulations(toi_candidate c[2]) {
  const toi_formulation *e = toi_formulation_find("ericson"), *a = toi_formulation_find("robust");
  cr_assert(e && a);
  toi_candidate_formulation(&c[0], e);
  toi_candidate_formulation(&c[1], a);
}

Test(bench_run, rows_are_the_mpfr_engines_on_each_case_alone, .timeout = 120) {
  enum { N = 400 };
  toi_case *cases = malloc(N * sizeof *cases);
  cr_assert(cases);
  const toi_gen_family fams[] = {TOI_GEN_MIXED, TOI_GEN_GRAZING, TOI_GEN_NEAR_CONTACT, TOI_GEN_TANGENT};
  for (size_t i = 0; i < N; i++) {
    toi_gen_opts g;
    toi_gen_opts_default(&g, fams[i % 4]);
    g.seed = 29;
    size_t bin;
    cr_assert_eq(toi_gen_case(&cases[i], NULL, &bin, &g, i / 4), TOI_OK);
    snprintf(cases[i].id, sizeof cases[i].id, "c%zu", i);
  }
  toi_candidate cands[2];
  two_formulations(cands);
  toi_bench_opts o;
  toi_bench_opts_init(&o);
  rows_kept k = {calloc(2 * N, sizeof(seen)), 0, 2 * N, cands};
  cr_assert(k.v);
  toi_run_row rows[2];
  cr_assert_eq(toi_bench_run(rows, cands, 2, cases, N, &o, keep_row, &k), TOI_OK);
  cr_assert_eq(k.n, 2 * N, "one row per case and candidate");
  size_t timed = 0, i = 0;
  for (size_t j = 0; j < k.n; j++) {
    const seen *s = &k.v[j];
    while (i < N && strcmp(cases[i].id, s->c.id)) i++; /* rows come in the cases' order */
    cr_assert_lt(i, N, "row %zu: case %s out of order", j, s->c.id);
    toi_ref_query q = TOI_REF_QUERY_INIT;
    q.c = &cases[i];
    q.engine = TOI_REF_MPFR;
    toi_ref r;
    cr_assert_eq(toi_ref_solve(&r, &q), TOI_OK);
    cr_assert_eq(s->sc.ref_cls, r.cls, "case %s: class %d against %d", s->c.id, (int)s->sc.ref_cls, (int)r.cls);
    if (strcmp(s->verdict, "failed") && strcmp(s->verdict, "unsupported"))
      cr_assert(same_double(s->sc.ref_t, cands[s->cand].direction == TOI_FORWARD ? r.tfwd : r.trev),
                "case %s: root %a against %a", s->c.id, s->sc.ref_t, r.tfwd);
    if (!s->sc.timed || isnan(s->sc.t)) continue;
    q.dir = cands[s->cand].direction;
    q.T = s->sc.t;
    toi_ref_error_result er;
    cr_assert_eq(toi_ref_error(&er, &q), TOI_OK);
    cr_assert(same_double(s->sc.ulp, er.ulp) && same_double(s->sc.bits, er.bits),
              "case %s, %s: error %a/%a against %a/%a", s->c.id, cands[s->cand].name, s->sc.ulp, s->sc.bits, er.ulp,
              er.bits);
    timed++;
  }
  cr_expect_gt(timed, N / 2, "the errors were compared on real answers (%zu)", timed);
  toi_run_rows_free(rows, 2);
  free(k.v);
  free(cases);
}

static void keep_msg(void *ud, const char *text) {
  char *b = ud;
  size_t at = strlen(b);
  snprintf(b + at, 1000 - at, "%s\n", text);
}

/* The third case of five is refused by the reference: the first two are
   scored, the run stops there with the reference's status and names it. */
Test(bench_run, a_refused_case_stops_the_block_where_it_is) {
  toi_case cases[5];
  toi_gen_opts g;
  toi_gen_opts_default(&g, TOI_GEN_MIXED);
  g.seed = 3;
  for (int i = 0; i < 5; i++) {
    size_t bin;
    cr_assert_eq(toi_gen_case(&cases[i], NULL, &bin, &g, (uint64_t)i), TOI_OK);
    snprintf(cases[i].id, sizeof cases[i].id, "k%d", i);
  }
  cases[2].ra = -1; /* a negative radius: no problem to solve */
  toi_candidate cands[2];
  two_formulations(cands);
  char err[1000] = "";
  toi_msg m = {keep_msg, err};
  toi_bench_opts o;
  toi_bench_opts_init(&o);
  o.msg = &m;
  toi_run_row rows[2];
  cr_assert_eq(toi_bench_run(rows, cands, 2, cases, 5, &o, NULL, NULL), TOI_ERR_INPUT);
  cr_assert(strstr(err, "case k2: the reference failed"), "%s", err);
  for (int k = 0; k < 2; k++)
    cr_assert_eq(rows[k].st.cases + rows[k].st.out_of_domain + rows[k].failed + rows[k].unsupported, 2);
  toi_run_rows_free(rows, 2);
}
