/* cmd_audit.c: `toibench audit`, each formulation's collision response against the exact one. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "audit.h"

static void help(void) {
  printf(
      "Usage: toibench audit [-f NAMES] [--restitution E] [--precision P] [--rows FILE] [-o FILE]\n"
      "                      FILE...\n"
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
      "  --precision P     binary64 (default) or binary32: every case is rounded to P (cases\n"
      "                    with a number overflowing there, or a mass rounding to 0, are left\n"
      "                    out and counted), each formulation's P variant gives T, and the\n"
      "                    pipeline above runs in P (E rounded to P); the exact pipeline is\n"
      "                    that of the rounded case, so input rounding is never charged. The\n"
      "                    velocity ULPs are then P's: ulp(x) = 2^(max(e, emin) - p + 1)\n"
      "  --rows FILE       one line per case and formulation, after a '#' header naming the\n"
      "                    columns: id formulation class T gap ke_err mom_err angle ulp_max\n"
      "                    ulp_vA.x ulp_vA.y ulp_vA.z ulp_vB.x ulp_vB.y ulp_vB.z\n"
      "                    (T as a hex float; the rest %%.6g; nan for a 2D case's z)\n"
      "  -o FILE           write the summary to FILE instead of stdout\n"
      "Outputs appear only when complete; invalid input writes nothing (exit 3).\n");
}

static void print_row_num(FILE *f, double x) {
  fputc(' ', f);
  if (isnan(x)) fputs("nan", f);
  else cli_print_g6(f, x);
}

/* --rows: one line per audited case and formulation */
static void write_row(void *ctx, const toi_audit_row *row) {
  FILE *f = ctx;
  const toi_resp_audit *a = &row->a;
  fprintf(f, "%s %s %s ", row->c->id, row->f->name, toi_class_name(row->cls));
  cli_print_hex(f, row->t);
  print_row_num(f, a->gap);
  print_row_num(f, a->ke_err);
  print_row_num(f, a->mom_err);
  print_row_num(f, a->angle);
  print_row_num(f, a->ulp_max);
  for (int side = 0; side < 2; side++)
    for (int d = 0; d < 3; d++) print_row_num(f, d < row->c->dim ? a->ulp[side * row->c->dim + d] : NAN);
  fputc('\n', f);
}

static void print_summary(FILE *f, const toi_audit *au, const toi_caselist *list) {
  fprintf(f, "# toibench audit: %zu cases, %zu exact hits or contacts, restitution %.6g", au->cases,
          au->contacts, au->restitution);
  /* binary64 keeps the header it always had */
  if (au->precision != TOI_BINARY64)
    fprintf(f, ", precision %s (%zu cases changed by rounding, %zu not representable; ulp in %s)",
            toi_precision_name(au->precision), au->rounded, au->unrepresentable,
            toi_precision_name(au->precision));
  fputc('\n', f);
  for (int k = 0; k < au->nforms; k++) {
    const toi_audit_form *s = &au->forms[k];
    fprintf(f, "\n%s: %zu audited, %zu not reported as contacts, %zu without a normal, "
               "%zu penetrations beyond 1e-12 R\n",
            s->f->name, s->audited, s->not_reported, s->failed, s->penetrations);
    if (s->nonfinite)
      fprintf(f, "  %zu with a non-finite response (the double pipeline overflowed), first at %s\n", s->nonfinite,
              list->items[s->first_nonfinite].id);
    if (!s->audited) continue;
    fprintf(f, "  %-8s %12s %12s %12s  %s\n", "metric", "median", "p99", "max", "worst case");
    for (int m = 0; m < TOI_AUDIT_METRICS; m++) {
      const toi_audit_stat *st = &s->stat[m];
      if (st->n == 0)
        fprintf(f, "  %-8s %12s %12s %12s  %s\n", toi_audit_metric_name(m), "-", "-", "-", "-");
      else
        fprintf(f, "  %-8s %12.4g %12.4g %12.4g  %s\n", toi_audit_metric_name(m), st->median, st->p99,
                st->max, list->items[st->max_case].id);
    }
    if (isnan(s->min_gap))
      fprintf(f, "  most negative gap -\n");
    else
      fprintf(f, "  most negative gap %.6g at %s\n", s->min_gap, list->items[s->min_gap_case].id);
  }
}

/* The options: -f, --restitution, --rows, -o and the case files. Returns
   EXIT_OK with *fs and *nf set (reverse formulations left out of 'all',
   refused by name), or the exit status to end with. */
static int audit_options(int argc, char **argv, cli_args *args, double *E, const toi_formulation ***fs,
                         int *nf) {
  if (cli_args_init(args, argc)) return EXIT_RUNTIME;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--restitution") && i + 1 < argc) {
      const char *v = argv[++i];
      if (cli_parse_double(v, E) || !(*E >= 0 && *E <= 1)) {
        cli_args_free(args);
        return cli_usage_error("audit", "--restitution wants a number in [0, 1], got '%s'", v);
      }
      continue;
    }
    int r = cli_args_take(args, "audit", CLI_OPT_OUT | CLI_OPT_ROWS | CLI_OPT_NAMES | CLI_OPT_PRECISION,
                          argc, argv, &i);
    if (r != CLI_TAKEN) return cli_args_stop(args, r, help);
  }
  if (args->nfiles == 0) {
    cli_args_free(args);
    return cli_usage_error("audit", "no case file given");
  }
  const char *names = args->names;
  *nf = cli_parse_formulations("audit", names, fs);
  if (*nf < 0) {
    cli_args_free(args);
    return EXIT_USAGE;
  }
  /* reverse formulations answer another question: skip them in 'all', refuse them by name */
  int keep = 0;
  for (int i = 0; i < *nf; i++) {
    if ((*fs)[i]->direction == TOI_FORWARD) (*fs)[keep++] = (*fs)[i];
    else if (names && strcmp(names, "all")) {
      int rc = cli_usage_error("audit", "'%s' answers in reverse time: it has no forward contact to resolve",
                               (*fs)[i]->name);
      free(*fs);
      cli_args_free(args);
      return rc;
    }
  }
  *nf = keep;
  return EXIT_OK;
}

/* Audits the cases into the --rows file (when given) and the summary. */
static int audit_write(const cli_args *args, const toi_caselist *list, const toi_formulation **fs, int nf,
                       double E) {
  cli_out rows, out;
  int have_rows = 0, rc = EXIT_OK;
  if (args->rows) {
    if (cli_out_open(&rows, args->rows)) return EXIT_RUNTIME;
    have_rows = 1;
    fprintf(rows.f, "# toibench-audit-rows v1, restitution %a", E);
    if (args->precision != TOI_BINARY64) fprintf(rows.f, ", precision %s", toi_precision_name(args->precision));
    fprintf(rows.f, "\n# id formulation class T gap ke_err mom_err angle ulp_max ulp_vA.x ulp_vA.y ulp_vA.z "
                    "ulp_vB.x ulp_vB.y ulp_vB.z\n");
  }
  toi_audit au;
  if (toi_audit_run_prec(&au, list, (const toi_formulation *const *)fs, nf, E, args->precision,
                         have_rows ? write_row : NULL, have_rows ? rows.f : NULL, &cli_msg_stderr) != TOI_OK)
    rc = EXIT_RUNTIME;
  if (rc == EXIT_OK && cli_out_open(&out, args->out)) rc = EXIT_RUNTIME;
  if (rc == EXIT_OK) {
    print_summary(out.f, &au, list);
    if (cli_out_commit(&out)) rc = EXIT_RUNTIME;
  }
  if (have_rows) {
    if (rc == EXIT_OK) {
      if (cli_out_commit(&rows)) rc = EXIT_RUNTIME;
    } else {
      cli_out_abort(&rows);
    }
  }
  toi_audit_free(&au);
  return rc;
}

int cmd_audit(int argc, char **argv) {
  double E = 1;
  cli_args args;
  const toi_formulation **fs = NULL;
  int nf = 0;
  int rc = audit_options(argc, argv, &args, &E, &fs, &nf);
  if (rc != EXIT_OK) return rc;
  toi_caselist list = {0};
  rc = cli_read_case_files(&list, args.nfiles, args.files);
  if (rc == EXIT_OK) rc = audit_write(&args, &list, fs, nf, E);
  cli_args_free(&args);
  free(fs);
  toi_caselist_free(&list);
  return rc;
}
