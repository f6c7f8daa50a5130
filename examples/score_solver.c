/* score_solver.c: a user's own time-of-impact function scored against the exact reference through the
 * installed library, beside the built-in forward formulations.
 *
 *   cc score_solver.c $(pkg-config --cflags --libs toibench) -o score_solver
 *   ./score_solver cases/documents.cases
 *
 * For each formulation: agree / missed / ghost / other verdicts against the exact class, and the median
 * and maximum ULP error of the times where both agree on a contact. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <toibench/toi.h>
#include <toibench/toiref.h>

/* The textbook formula: a = v.v, b = s.v, c = s.s - R^2, D = b^2 - a c; approaching (b < 0) with
 * D >= 0 is a hit at t = (-b - sqrt D) / a. */
static toi_result textbook(const toi_case *k) {
  double a = 0, b = 0, c = 0, R = k->ra + k->rb;
  for (int i = 0; i < 3; i++) {
    double s = k->pb[i] - k->pa[i], v = k->vb[i] - k->va[i];
    a += v * v;
    b += s * v;
    c += s * s;
  }
  c -= R * R;
  toi_result r = {TOI_NONE, NAN};
  double D = b * b - a * c;
  if (c < 0) r.cls = TOI_OVERLAP;
  else if (a > 0 && b < 0 && D >= 0) {
    r.cls = TOI_HIT;
    r.t = (-b - sqrt(D)) / a;
  }
  return r;
}

typedef struct tally {
  size_t agree, missed, ghost, other, out_of_domain, n_ulp;
  double *ulp;
} tally;

static int cmp_double(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}

/* Scores forward formulation f on one case whose exact answer is ref. */
static int score_one(tally *t, const toi_formulation *f, const toi_case *c, const toi_ref *ref) {
  if (f->domain && !(f->domain & TOI_CLASS_BIT(ref->cls))) {
    t->out_of_domain++;
    return 0;
  }
  toi_result r = f->solve(c);
  toi_group got = toi_class_group(r.cls), want = toi_class_group(ref->cls);
  if (got == want) t->agree++;
  else if (want == TOI_G_CONTACT && got == TOI_G_NOCONTACT) t->missed++;
  else if (want == TOI_G_NOCONTACT) t->ghost++;
  else t->other++;
  if (got != want || want != TOI_G_CONTACT || isnan(ref->tfwd)) return 0;
  double ulp, bits;
  if (toi_ref_error(&ulp, &bits, r.t, c, TOI_FORWARD) != TOI_OK) return -1;
  t->ulp[t->n_ulp++] = isnan(ulp) ? INFINITY : ulp;
  return 0;
}

/* Scores f over every case and prints one line. */
static int report(const toi_formulation *f, const toi_caselist *cases, const toi_ref *refs) {
  tally t = {0};
  t.ulp = malloc((cases->count ? cases->count : 1) * sizeof *t.ulp);
  if (!t.ulp) return -1;
  int rc = 0;
  for (size_t i = 0; i < cases->count && !rc; i++) rc = score_one(&t, f, &cases->items[i], &refs[i]);
  if (!rc) {
    qsort(t.ulp, t.n_ulp, sizeof *t.ulp, cmp_double);
    double median = t.n_ulp ? t.ulp[(t.n_ulp - 1) / 2] : NAN, max = t.n_ulp ? t.ulp[t.n_ulp - 1] : NAN;
    printf("%-18s %6zu %6zu %6zu %6zu %6zu %12.6g %12.6g\n", f->name, t.agree, t.missed, t.ghost, t.other,
           t.out_of_domain, median, max);
  }
  free(t.ulp);
  return rc;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s CASEFILE\n", argv[0]);
    return 2;
  }
  toi_caselist cases = {0};
  toi_diags diags = {0};
  if (toi_read_cases(&cases, argv[1], &diags) != TOI_OK) {
    for (size_t i = 0; i < diags.count; i++) {
      char line[512];
      toi_diag_format(&diags.items[i], line, sizeof line);
      fprintf(stderr, "%s\n", line);
    }
    return 3;
  }
  toi_ref *refs = malloc((cases.count ? cases.count : 1) * sizeof *refs);
  int rc = refs ? 0 : 1;
  for (size_t i = 0; i < cases.count && !rc; i++)
    if (toi_ref_solve(&refs[i], &cases.items[i]) != TOI_OK) rc = 1;
  const toi_formulation mine = {"textbook", "a user's own", "(-b - sqrt D) / a", TOI_FORWARD, textbook, 0};
  size_t nf;
  const toi_formulation *builtin = toi_formulations(&nf);
  if (!rc) {
    printf("%zu cases from %s\n%-18s %6s %6s %6s %6s %6s %12s %12s\n", cases.count, argv[1], "formulation",
           "agree", "missed", "ghost", "other", "outdom", "median_ulp", "max_ulp");
    rc = report(&mine, &cases, refs) ? 1 : 0;
  }
  for (size_t i = 0; i < nf && !rc; i++)
    if (builtin[i].direction == TOI_FORWARD) rc = report(&builtin[i], &cases, refs) ? 1 : 0;
  if (rc) fprintf(stderr, "score_solver: the reference failed or memory ran out\n");
  free(refs);
  toi_caselist_free(&cases);
  return rc;
}
