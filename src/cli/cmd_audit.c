/* cmd_audit.c: `toibench audit`, each formulation's collision response against the exact one. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "response.h"
#include "toiref.h"
#include "toiresp.h"
#include "stats.h"

#define PENETRATION (1e-12)

static void help(void) {
  printf(
      "Usage: toibench audit [-f NAMES] [--restitution E] [--rows FILE] [-o FILE] FILE...\n"
      "Audits what an engine does with each formulation's time of impact T. For every case the\n"
      "certified reference classifies as hit or contact, and every formulation that also\n"
      "reports a contact (a hit, graze or contact verdict with a finite T):\n"
      "  double pipeline  move both balls to T, n = (pB - pA)/|pB - pA|,\n"
      "                   j = -(1 + E) ((vB - vA).n) / (1/mA + 1/mB),\n"
      "                   vA' = vA - j n / mA, vB' = vB + j n / mB, all in double;\n"
      "  exact pipeline   at the exact root t* (where |pB - pA| = R exactly) in GMP/MPFR,\n"
      "                   rounded to double only at the end.\n"
      "Metrics per case (from the double pipeline's numbers taken as exact):\n"
      "  gap      (|pB(T) - pA(T)| - R)/R; negative is penetration\n"
      "  ke_err   (KE after - exact KE after)/KE before; the exact change is 0 for E = 1 and\n"
      "           -(1 - E^2) mu (v.n)^2 / 2 otherwise (mu = mA mB/(mA + mB))\n"
      "  mom_err  |P' - P| / (|mA vA| + |mB vB|)\n"
      "  angle    radians between the double normal and the exact one\n"
      "  ulp      ULP error of each post-collision velocity component against the exact one\n"
      "           (ulp as in 'toibench run'); ulp_max is the largest over the components\n"
      "Summary per formulation: median, p99 and max of |metric| with the case that reaches the\n"
      "max, the most negative gap, and the count of penetrations beyond 1e-12 R. A response\n"
      "whose positions, normal or velocities are not finite (the double pipeline overflowed,\n"
      "e.g. with masses near DBL_MAX) is counted apart, with the first such case, and its\n"
      "undefined metrics are left out of the statistics ('-' when no value is left).\n"
      "  -f NAMES          comma-separated forward formulations, or 'all' (default: every\n"
      "                    forward one; reverse-time formulations have no response to audit)\n"
      "  --restitution E   coefficient of restitution in [0, 1] (default 1)\n"
      "  --rows FILE       one line per case and formulation, after a '#' header naming the\n"
      "                    columns: id formulation class T gap ke_err mom_err angle ulp_max\n"
      "                    ulp_vA.x ulp_vA.y ulp_vA.z ulp_vB.x ulp_vB.y ulp_vB.z\n"
      "                    (T as a hex float; the rest %%.6g; nan for a 2D case's z)\n"
      "  -o FILE           write the summary to FILE instead of stdout\n"
      "Outputs appear only when complete; invalid input writes nothing (exit 3).\n");
}

enum { M_GAP, M_KE, M_MOM, M_ANGLE, M_ULP, M_COUNT };
static const char *const metric_names[M_COUNT] = {"gap", "ke_err", "mom_err", "angle", "ulp_max"};

typedef struct mval {
  double v;   /* |metric| */
  size_t c;   /* case index */
} mval;

typedef struct fstats {
  const toi_formulation *f;
  size_t audited, not_reported, failed, penetrations;
  size_t nonfinite, first_nonfinite; /* responses with a non-finite number, and the first case */
  mval *m[M_COUNT];
  double min_gap;
  size_t min_gap_case;
} fstats;

static int mval_cmp(const void *a, const void *b) {
  const mval *x = a, *y = b;
  /* NaN last, then by value, then by case for a stable, reproducible order */
  int xn = isnan(x->v), yn = isnan(y->v);
  if (xn != yn) return xn - yn;
  if (!xn && x->v != y->v) return x->v < y->v ? -1 : 1;
  return x->c < y->c ? -1 : x->c > y->c;
}

/* nearest-rank quantile of a sorted array */
static double quantile(const mval *v, size_t n, double q) {
  if (n == 0) return NAN;
  return v[toi_quantile_index(n, q)].v;
}

/* 1 when the n numbers of every group are finite */
static int response_finite(const toi_response *r, int n) {
  int ok = 1;
  for (int i = 0; i < n; i++)
    ok &= isfinite(r->pa[i]) && isfinite(r->pb[i]) && isfinite(r->n[i]) && isfinite(r->va[i]) &&
          isfinite(r->vb[i]);
  return ok;
}

static void print_row_num(FILE *f, double x) {
  if (isnan(x)) fprintf(f, " nan");
  else fprintf(f, " %.6g", x);
}

int cmd_audit(int argc, char **argv) {
  double E = 1;
  cli_args args;
  if (cli_args_init(&args, argc)) return EXIT_RUNTIME;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--restitution") && i + 1 < argc) {
      const char *v = argv[++i];
      if (cli_parse_double(v, &E) || !(E >= 0 && E <= 1)) {
        cli_args_free(&args);
        return cli_usage_error("audit", "--restitution wants a number in [0, 1], got '%s'", v);
      }
      continue;
    }
    int r = cli_args_take(&args, "audit", CLI_OPT_OUT | CLI_OPT_ROWS | CLI_OPT_NAMES, argc, argv, &i);
    if (r != CLI_TAKEN) return cli_args_stop(&args, r, help);
  }
  const char *outpath = args.out, *rowspath = args.rows, *names = args.names;
  int nfiles = args.nfiles;
  char **files = args.files;
  if (nfiles == 0) {
    free(files);
    return cli_usage_error("audit", "no case file given");
  }
  const toi_formulation **fs;
  int nf = cli_parse_formulations("audit", names, &fs);
  if (nf < 0) {
    free(files);
    return EXIT_USAGE;
  }
  /* reverse formulations answer another question: skip them in 'all', refuse them by name */
  int keep = 0;
  for (int i = 0; i < nf; i++) {
    if (fs[i]->direction == TOI_FORWARD) fs[keep++] = fs[i];
    else if (names && strcmp(names, "all")) {
      int rc = cli_usage_error("audit", "'%s' answers in reverse time: it has no forward contact to resolve",
                               fs[i]->name);
      free(fs);
      free(files);
      return rc;
    }
  }
  nf = keep;
  toi_caselist list = {0};
  int rc = cli_read_case_files(&list, nfiles, files);
  free(files);
  if (rc != EXIT_OK) {
    free(fs);
    toi_caselist_free(&list);
    return rc;
  }

  fstats *st = calloc((size_t)(nf ? nf : 1), sizeof *st);
  if (!st) rc = EXIT_RUNTIME;
  for (int k = 0; k < nf && rc == EXIT_OK; k++) {
    st[k].f = fs[k];
    st[k].min_gap = NAN;
    for (int m = 0; m < M_COUNT; m++) {
      st[k].m[m] = malloc((list.count ? list.count : 1) * sizeof(mval));
      if (!st[k].m[m]) rc = EXIT_RUNTIME;
    }
  }
  cli_out rows, out;
  int have_rows = 0;
  if (rc == EXIT_OK && rowspath) {
    if (cli_out_open(&rows, rowspath)) rc = EXIT_RUNTIME;
    else {
      have_rows = 1;
      fprintf(rows.f,
              "# toibench-audit-rows v1, restitution %a\n"
              "# id formulation class T gap ke_err mom_err angle ulp_max ulp_vA.x ulp_vA.y ulp_vA.z "
              "ulp_vB.x ulp_vB.y ulp_vB.z\n",
              E);
    }
  }
  size_t contacts = 0;
  for (size_t ci = 0; ci < list.count && rc == EXIT_OK; ci++) {
    const toi_case *c = &list.items[ci];
    toi_ref ref;
    if (toi_ref_solve(&ref, c) != TOI_OK) {
      cli_error("%s: the reference failed", c->id);
      rc = EXIT_RUNTIME;
      break;
    }
    if (ref.cls != TOI_HIT && ref.cls != TOI_CONTACT) continue;
    contacts++;
    /* the exact response's own RN(t*) must be the reference's: two independent computations */
    toi_ref_resp er;
    if (toi_ref_response(&er, c, E) != TOI_OK || !(er.t == ref.tfwd)) {
      cli_error("%s: the exact response disagrees with the reference (t %a against %a)", c->id, er.t,
                ref.tfwd);
      rc = EXIT_RUNTIME;
      break;
    }
    for (int k = 0; k < nf; k++) {
      fstats *s = &st[k];
      toi_result r = s->f->solve(c);
      if (toi_class_group(r.cls) != TOI_G_CONTACT || !isfinite(r.t)) {
        s->not_reported++;
        continue;
      }
      toi_response dp;
      if (toi_response_compute(&dp, c, r.t, E) != TOI_OK) {
        s->failed++;
        continue;
      }
      toi_resp_audit a;
      if (toi_ref_response_audit(&a, c, E, dp.pa, dp.pb, dp.n, dp.va, dp.vb) != TOI_OK) {
        cli_error("%s: the exact audit failed for %s", c->id, s->f->name);
        rc = EXIT_RUNTIME;
        break;
      }
      if (!response_finite(&dp, c->dim) && s->nonfinite++ == 0) s->first_nonfinite = ci;
      size_t i = s->audited++;
      double vals[M_COUNT] = {fabs(a.gap), fabs(a.ke_err), fabs(a.mom_err), fabs(a.angle), a.ulp_max};
      for (int m = 0; m < M_COUNT; m++) s->m[m][i] = (mval){vals[m], ci};
      if (a.gap < -PENETRATION) s->penetrations++;
      if (isnan(s->min_gap) || a.gap < s->min_gap) {
        s->min_gap = a.gap;
        s->min_gap_case = ci;
      }
      if (have_rows) {
        fprintf(rows.f, "%s %s %s ", c->id, s->f->name, toi_class_name(ref.cls));
        cli_print_hex(rows.f, r.t);
        print_row_num(rows.f, a.gap);
        print_row_num(rows.f, a.ke_err);
        print_row_num(rows.f, a.mom_err);
        print_row_num(rows.f, a.angle);
        print_row_num(rows.f, a.ulp_max);
        for (int side = 0; side < 2; side++)
          for (int d = 0; d < 3; d++) print_row_num(rows.f, d < c->dim ? a.ulp[side * c->dim + d] : NAN);
        fputc('\n', rows.f);
      }
    }
  }
  if (rc == EXIT_OK && cli_out_open(&out, outpath)) rc = EXIT_RUNTIME;
  if (rc == EXIT_OK) {
    FILE *f = out.f;
    fprintf(f, "# toibench audit: %zu cases, %zu exact hits or contacts, restitution %.6g\n", list.count,
            contacts, E);
    for (int k = 0; k < nf; k++) {
      fstats *s = &st[k];
      fprintf(f, "\n%s: %zu audited, %zu not reported as contacts, %zu without a normal, "
                 "%zu penetrations beyond 1e-12 R\n",
              s->f->name, s->audited, s->not_reported, s->failed, s->penetrations);
      if (s->nonfinite)
        fprintf(f, "  %zu with a non-finite response (the double pipeline overflowed), first at %s\n", s->nonfinite,
                list.items[s->first_nonfinite].id);
      if (!s->audited) continue;
      fprintf(f, "  %-8s %12s %12s %12s  %s\n", "metric", "median", "p99", "max", "worst case");
      for (int m = 0; m < M_COUNT; m++) {
        /* NaN sorts last: the statistics are over the values before it */
        qsort(s->m[m], s->audited, sizeof(mval), mval_cmp);
        size_t n = s->audited;
        while (n > 0 && isnan(s->m[m][n - 1].v)) n--;
        if (n == 0) {
          fprintf(f, "  %-8s %12s %12s %12s  %s\n", metric_names[m], "-", "-", "-", "-");
          continue;
        }
        const mval *top = &s->m[m][n - 1];
        fprintf(f, "  %-8s %12.4g %12.4g %12.4g  %s\n", metric_names[m], quantile(s->m[m], n, 0.5),
                quantile(s->m[m], n, 0.99), top->v, list.items[top->c].id);
      }
      if (isnan(s->min_gap))
        fprintf(f, "  most negative gap -\n");
      else
        fprintf(f, "  most negative gap %.6g at %s\n", s->min_gap, list.items[s->min_gap_case].id);
    }
    if (cli_out_commit(&out)) rc = EXIT_RUNTIME;
  }
  if (have_rows) {
    if (rc == EXIT_OK) {
      if (cli_out_commit(&rows)) rc = EXIT_RUNTIME;
    } else {
      cli_out_abort(&rows);
    }
  }
  for (int k = 0; k < nf && st; k++)
    for (int m = 0; m < M_COUNT; m++) free(st[k].m[m]);
  free(st);
  free(fs);
  toi_caselist_free(&list);
  return rc;
}
