/* score_solver.c: a user's own time-of-impact function scored through the public toibench API.
 *
 * Build against an installed toibench:
 *   cc score_solver.c $(pkg-config --cflags --libs toibench) -o score_solver
 * Run: ./score_solver [CASES-FILE]   (default cases/documents.cases)
 *
 * The function under test is the textbook quadratic formula; the bench
 * scores it against the certified reference on a generated family and on a
 * case file, and prints agree / missed / ghost counts and median / max ULP;
 * then it asks the reference itself (toiref.h) for each case's exact root,
 * the error of the textbook time and its condition number, with one
 * prepared case for both measures. */
#include <math.h>
#include <stdio.h>
#include <toibench/toibench.h>

/* s = pB - pA, v = vB - vA, R = rA + rB: a = v.v, b = s.v, c = s.s - R^2;
   the first contact t = (-b - sqrt(b^2 - a c)) / a when b < 0 and b^2 - a c >= 0. */
static toi_result textbook(const toi_case *k) {
  double s[3], v[3];
  for (int i = 0; i < 3; i++) {
    s[i] = k->pb[i] - k->pa[i];
    v[i] = k->vb[i] - k->va[i];
  }
  double R = k->ra + k->rb;
  double a = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
  double b = s[0] * v[0] + s[1] * v[1] + s[2] * v[2];
  double c = s[0] * s[0] + s[1] * s[1] + s[2] * s[2] - R * R;
  double disc = b * b - a * c;
  if (b < 0 && disc >= 0 && a > 0) return (toi_result){TOI_HIT, (-b - sqrt(disc)) / a};
  return (toi_result){TOI_NONE, NAN};
}

static void print_msg(void *ud, const char *text) {
  (void)ud;
  fprintf(stderr, "score_solver: %s\n", text);
}

/* The reference asked directly: for each case of list where the exact answer
   and the textbook agree on a contact, the textbook time's ULP error and the root's kappa, from one
   prepared case (toi_ref_prepare) that both measures share. The worst error,
   with its kappa, is printed. 0, or 1 after saying why. */
static int ask_reference(const toi_caselist *list) {
  double worst = 0, worst_kappa = NAN;
  size_t timed = 0;
  for (size_t i = 0; i < list->count; i++) {
    const toi_case *c = &list->items[i];
    toi_ref_query q = TOI_REF_QUERY_INIT; /* fast engine, binary64, forward */
    q.c = c;
    toi_ref ref;
    if (toi_ref_solve(&ref, &q) != TOI_OK) {
      fprintf(stderr, "score_solver: %s: the reference refused the case\n", c->id);
      return 1;
    }
    toi_result r = textbook(c);
    int contact = ref.cls == TOI_HIT || ref.cls == TOI_GRAZE || ref.cls == TOI_CONTACT;
    if (!contact || r.cls != TOI_HIT || isnan(r.t)) continue; /* both say contact: the time is scored */
    toi_ref_prepared p; /* the caller's: on the stack, nothing to free */
    if (toi_ref_prepare(&p, &q) != TOI_OK) return 1;
    q.c = NULL;
    q.prepared = &p;
    q.T = r.t;
    toi_ref_error_result e;
    toi_ref_kappa_result k;
    if (toi_ref_error(&e, &q) != TOI_OK || toi_ref_kappa(&k, &q) != TOI_OK) {
      fprintf(stderr, "score_solver: %s: the error could not be measured\n", c->id);
      return 1;
    }
    timed++;
    if (e.ulp > worst) worst = e.ulp, worst_kappa = k.kappa;
  }
  printf("%-28s timed %6zu  max_ulp %.4g  its kappa %.3g\n", "reference asked directly", timed, worst, worst_kappa);
  return 0;
}

static void print_row(const char *what, toi_run_row *row) {
  toi_run_stats s;
  toi_run_row_stats(row, &s);
  printf("%-28s cases %6zu  agree %6zu  missed %5zu  ghost %5zu  median_ulp %-10.4g max_ulp %.4g\n", what, s.cases,
         s.agree, s.missed, s.ghost, s.median_ulp, s.max_ulp);
}

int main(int argc, char **argv) {
  const char *path = argc > 1 ? argv[1] : "cases/documents.cases";
  const toi_msg msg = {print_msg, NULL};
  toi_candidate cand;
  toi_candidate_function(&cand, "textbook", textbook, TOI_FORWARD, 0);
  toi_bench_opts o;
  toi_bench_opts_init(&o);
  o.msg = &msg;

  /* A generated family: the mixed suite, 10000 cases, seed 42. */
  toi_gen_opts g;
  toi_gen_opts_default(&g, TOI_GEN_MIXED);
  g.seed = 42;
  toi_run_row row;
  if (toi_bench_run_family(&row, &cand, 1, &g, 10000, &o) != TOI_OK) return 1;
  print_row("mixed, 10000 cases, seed 42", &row);
  toi_run_rows_free(&row, 1);

  /* The same as a sweep sees it: in a stream, with the condition numbers. */
  toi_sweep_stats st;
  if (toi_bench_sweep(&st, &cand, 1, &g, 10000, 2, &o) != TOI_OK) return 1;
  printf("%-28s timed %6llu  max_ulp %.4g  kappa %.3g .. %.3g  max_ratio %.4g\n", "mixed (sweep statistics)",
         (unsigned long long)st.timed, st.max_ulp, st.kappa_min, st.kappa_max, st.max_ratio);

  /* A case file. */
  toi_caselist list = {0};
  toi_diags dg = {0};
  if (toi_read_cases(&list, path, &dg) != TOI_OK) {
    char line[700];
    for (size_t i = 0; i < dg.count; i++) {
      toi_diag_format(&dg.items[i], line, sizeof line);
      fprintf(stderr, "score_solver: %s\n", line);
    }
    return 1;
  }
  int rc = toi_bench_run(&row, &cand, 1, list.items, list.count, &o, NULL, NULL) != TOI_OK;
  if (!rc) print_row(path, &row);
  if (!rc) rc = ask_reference(&list);
  toi_run_rows_free(&row, 1);
  toi_caselist_free(&list);
  toi_candidate_free(&cand);
  return rc ? 1 : 0;
}
