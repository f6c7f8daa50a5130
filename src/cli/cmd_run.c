/* cmd_run.c: `toibench run`, formulations scored against the certified reference. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "score.h"

static void help(void) {
  printf(
      "Usage: toibench run [-f NAME,...] [--rows FILE] [-o FILE] FILE...\n"
      "Runs formulations on every case and scores them against the certified reference.\n"
      "Prints a table, one row per formulation:\n"
      "  cases      cases in the formulation's domain (out-of-domain ones are counted apart)\n"
      "  agree      verdicts in the same group as the exact class: no contact {none, miss,\n"
      "             separating, static}, contact {hit, graze, contact}, overlap {overlap};\n"
      "             reverse formulations: a reverse contact claimed iff the exact one exists\n"
      "  missed     exact contact or overlap, verdict says no contact (missed collision)\n"
      "  ghost      exact no contact, verdict claims one (ghost collision)\n"
      "  other      contact against overlap\n"
      "  timed      agreeing cases with an exact root, whose time is scored\n"
      "  median/p99/max ULP  |T - t*| / ulp(t*) over timed cases (t* the exact root)\n"
      "  max_bits   log2(1 + doubles between T and RN(t*))\n"
      "  worst      ID of the case with the largest ULP error\n"
      "Classification errors are counted, never folded into the ULP statistics.\n"
      "  -f NAMES     comma-separated formulations, or 'all' (default)\n"
      "  --rows FILE  one line per case and formulation:\n"
      "               # id formulation class ref_class t ref_t ulp bits\n"
      "               (t, ref_t as hex floats; ulp, bits as %%.6g; nan when not timed)\n"
      "  -o FILE      write the table to FILE instead of stdout\n"
      "Outputs appear only when complete; invalid input writes nothing (exit 3).\n");
}

static void print_num(FILE *f, double x) {
  if (isnan(x))
    fprintf(f, " %10s", "-");
  else
    fprintf(f, " %10.4g", x);
}

int cmd_run(int argc, char **argv) {
  const char *outpath = NULL, *rowspath = NULL, *names = NULL;
  int nfiles = 0;
  char **files = calloc((size_t)argc, sizeof *files);
  if (!files) return EXIT_RUNTIME;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      help();
      free(files);
      return EXIT_OK;
    } else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
      outpath = argv[++i];
    } else if (!strcmp(argv[i], "--rows") && i + 1 < argc) {
      rowspath = argv[++i];
    } else if (!strcmp(argv[i], "-f") && i + 1 < argc) {
      names = argv[++i];
    } else if (argv[i][0] == '-' && argv[i][1]) {
      free(files);
      return cli_usage_error("run", "unknown option or missing value '%s'", argv[i]);
    } else {
      files[nfiles++] = argv[i];
    }
  }
  if (nfiles == 0) {
    free(files);
    return cli_usage_error("run", "no case file given");
  }
  const toi_formulation **fs;
  int nf = cli_parse_formulations("run", names, &fs);
  if (nf < 0) {
    free(files);
    return EXIT_USAGE;
  }
  toi_caselist list = {0};
  int rc = cli_read_case_files(&list, nfiles, files);
  if (rc != EXIT_OK) {
    free(files);
    free(fs);
    toi_caselist_free(&list);
    return rc;
  }
  score_stats *stats = calloc((size_t)nf, sizeof *stats);
  cli_out out = {0}, rows = {0};
  int rows_open = 0;
  rc = EXIT_RUNTIME;
  if (!stats) goto done;
  for (int k = 0; k < nf; k++) score_stats_init(&stats[k], fs[k]->name);
  if (rowspath) {
    if (cli_out_open(&rows, rowspath)) goto done;
    rows_open = 1;
    fprintf(rows.f, "# id formulation class ref_class t ref_t ulp bits\n");
  }
  for (size_t i = 0; i < list.count; i++) {
    const toi_case *c = &list.items[i];
    toi_ref ref;
    if (toi_ref_solve(&ref, c) != TOI_OK) {
      cli_error("case %s: the reference failed", c->id);
      goto done;
    }
    for (int k = 0; k < nf; k++) {
      score_case sc;
      if (score_eval(&sc, fs[k], c, &ref) != TOI_OK || score_stats_add(&stats[k], &sc, c->id) != TOI_OK) {
        cli_error("case %s: scoring %s failed", c->id, fs[k]->name);
        goto done;
      }
      if (rows_open) {
        fprintf(rows.f, "%s %s %s %s ", c->id, fs[k]->name, toi_class_name(sc.verdict),
                toi_class_name(sc.ref_cls));
        cli_print_hex(rows.f, sc.t);
        fputc(' ', rows.f);
        cli_print_hex(rows.f, sc.ref_t);
        fprintf(rows.f, " %.6g %.6g\n", sc.ulp, sc.bits);
      }
    }
  }
  if (cli_out_open(&out, outpath)) goto done;
  fprintf(out.f, "# toibench run: %zu cases from %d file%s\n", list.count, nfiles, nfiles > 1 ? "s" : "");
  fprintf(out.f, "%-18s %7s %7s %7s %7s %7s %7s %10s %10s %10s %10s  %s\n", "formulation", "cases", "agree",
          "missed", "ghost", "other", "timed", "median_ulp", "p99_ulp", "max_ulp", "max_bits", "worst");
  for (int k = 0; k < nf; k++) {
    score_stats *s = &stats[k];
    double med = score_stats_quantile(s, 0.5), p99 = score_stats_quantile(s, 0.99);
    fprintf(out.f, "%-18s %7zu %7zu %7zu %7zu %7zu %7zu", s->name, s->cases, s->kind[SCORE_AGREE],
            s->kind[SCORE_MISSED], s->kind[SCORE_GHOST], s->kind[SCORE_OTHER], s->timed);
    print_num(out.f, med);
    print_num(out.f, p99);
    print_num(out.f, s->timed ? s->max_ulp : NAN);
    print_num(out.f, s->timed ? s->max_bits : NAN);
    fprintf(out.f, "  %s", s->timed ? s->worst_id : "-");
    if (s->out_of_domain) fprintf(out.f, "  (%zu out of domain)", s->out_of_domain);
    fputc('\n', out.f);
  }
  if (rows_open) {
    rows_open = 0;
    if (cli_out_commit(&rows)) {
      cli_out_abort(&out);
      goto done;
    }
  }
  rc = cli_out_commit(&out) ? EXIT_RUNTIME : EXIT_OK;
done:
  if (rc != EXIT_OK) {
    if (rows_open) cli_out_abort(&rows);
  }
  if (stats)
    for (int k = 0; k < nf; k++) score_stats_free(&stats[k]);
  free(stats);
  free(fs);
  free(files);
  toi_caselist_free(&list);
  return rc;
}
