/* cmd_run.c: `toibench run`, formulations and external solvers scored against the certified reference. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "bench.h"
#include "candlist.h"
#include "cli.h"
#include "cli_outcheck.h"
#include "cli_fmt.h"
#include "solvers.h"

/* The help text is one printf, long by nature. */
static void help(void) {
  printf(
      "Usage: toibench run [-f NAME,...] [--solver LIB.so[:SYMBOL]]... [--solver-cmd COMMAND]...\n"
      "                    [--tmax T] [--target-distance DELTA] [--timeout SEC]\n"
      "                    [--precision P] [--solver-cmd-precision P]\n"
      "                    [--rows FILE] [--format table|json|csv] [-o FILE] [-j N] FILE...\n"
      "Runs formulations and external solvers on every case and scores them against the\n"
      "certified reference. Prints a table, one row per formulation or solver:\n"
      "  cases      cases in the formulation's domain (out-of-domain ones are counted apart)\n"
      "  agree      verdicts in the same group as the exact class: no contact {none, miss,\n"
      "             separating, static}, contact {hit, graze, contact}, overlap {overlap};\n"
      "             reverse formulations: a reverse contact claimed iff the exact one exists\n"
      "  missed     exact hit, graze or contact, verdict says no contact (missed collision)\n"
      "  ghost      exact no contact, verdict claims a contact or overlap (ghost collision)\n"
      "  other      any other disagreement (e.g. an exact overlap reported as no contact)\n"
      "  timed      agreeing cases with an exact root, whose time is scored\n"
      "  median/p99/max ULP  |T - t*| / ulp(t*) over timed cases (t* the exact root)\n"
      "  max_bits   log2(1 + doubles between T and RN(t*))\n"
      "  worst      ID of the case with the largest ULP error\n"
      "Classification errors are counted, never folded into the ULP statistics.\n"
      "  -f NAMES     comma-separated formulations and built engine solvers (see\n"
      "               'toibench list'); 'all' is every formulation, 'engines' every\n"
      "               built engine. Default: all formulations when no solver is given.\n"
      "  --solver LIB.so[:SYMBOL]  a plug-in (toi_solver.h): SYMBOL, or every solver of\n"
      "               its catalog, or toi_solver_solve. Runs in a child process.\n"
      "  --solver-cmd COMMAND  a solver speaking the subprocess protocol (/bin/sh -c):\n"
      "               case lines on its stdin, 'ID CLASS T [TARGET [TOLERANCE]]' lines on\n"
      "               its stdout, one per case, any order ('ID unsupported' declines a\n"
      "               case, 'ID failed' reports the solver's own failure).\n"
      "               Both options may be repeated: every solver gets its row.\n"
      "  --solver-cmd-precision P  the precision (binary64, binary32) of the\n"
      "               --solver-cmd commands that follow it (default binary64): their\n"
      "               inputs are rounded to P, the protocol header says '# precision P'\n"
      "               (only when P is not binary64) and their errors are in P's ULPs.\n"
      "               A plug-in declares its precision itself (toi_solver.h, ABI 2).\n"
      "  --precision P  the built-in formulations' variant: binary64 (default) or\n"
      "               binary32 ('all' is then every formulation with that variant).\n"
      "               A candidate in P receives each case rounded to P and is scored\n"
      "               in P's ULPs against the exact answer of the rounded case; a case\n"
      "               with a number beyond P's range is not scored for it. When some\n"
      "               row is not binary64 the table gets a precision column and\n"
      "               '(N rounded)' (cases whose numbers changed by rounding) beside\n"
      "               those rows, and --rows files a last field 'precision'\n"
      "               (class 'overflow' for a case beyond the row's range).\n"
      "  --tmax T     the step: solvers answer within [0, T], and every row is scored\n"
      "               as \"hit within the step\" (an exact contact after T counts as no\n"
      "               contact; so does a verdict with a time after T)\n"
      "  --target-distance DELTA  the separation |s + v t| - R that solvers stating no\n"
      "               target of their own aim at (default 0: touching)\n"
      "  --timeout SEC  time allowed per answer (default 10, at most 1e6); a solver\n"
      "               that takes longer is stopped and the case reported\n"
      "  --rows FILE  one line per case and formulation or solver:\n"
      "               # id formulation class ref_class t ref_t ulp bits\n"
      "               (t, ref_t as hex floats; ulp, bits as %%.6g; nan when not timed;\n"
      "               class 'failed' or 'unsupported' for a solver without an answer;\n"
      "               then ' precision' when some candidate is not binary64, and\n"
      "               ' cause' when some candidate is a solver: why a case failed,\n"
      "               crash, hang, protocol (a broken answer), range (a contact with\n"
      "               a negative or non-finite time) or declared (the solver said\n"
      "               'failed'), '-' for the others. A run that fails ends with a\n"
      "               line 'run failed:' giving each solver's failed cases by cause\n"
      "               and the first case ID of each;\n"
      "               an overlap is never timed: its contact began before t = 0, and\n"
      "               its ref_t is the forward root, when the balls separate)\n"
      "  --solver-log FILE  every line the solvers wrote (a command's stderr, a\n"
      "               plug-in's output), none left out, each led by 'solver NAME:';\n"
      "               the terminal shows the first 20 per solver, then a count.\n"
      "               FILE appears when the run ends, whether it failed or not\n"
      "  -o FILE      write the table to FILE instead of stdout\n"
      "  --format F   table (default), json or csv: the same figures for machines.\n"
      "               json: one object with the run (toibench version, reference\n"
      "               engine with its MPFR and GMP versions, cases, case_set, tmax)\n"
      "               and 'candidates', one object per row with every figure of both\n"
      "               tables; numbers as JSON numbers (null for NaN or infinity), each\n"
      "               ULP figure again exact as a string in KEY_hex (nan, inf, or a C99\n"
      "               hex float). csv: a header row, then one row per candidate (empty\n"
      "               field for '-', inf for infinity). 'toibench compare' reads json.\n"
      "  --reference ENGINE  the certified reference's engine: fast (default) or mpfr;\n"
      "               both give the same bits, mpfr is many times slower\n"
      "  -j N         threads (default: the number of online cores); the outputs are\n"
      "               the same for any N. The files are read and scored a block at\n"
      "               a time, in memory that does not grow with them (the ULP errors\n"
      "               are kept, 8 MB of them in memory, the rest in a temporary file\n"
      "               of TMPDIR, so that the medians stay exact); with a solver, one\n"
      "               block at a time on one thread, each block in a fresh process\n"
      "               of the solver.\n"
      "External solvers get a second table, against their own target as well as the\n"
      "true contact:\n"
      "  failed, unsupp  cases without an answer (crash, hang, bad answer, NaN time,\n"
      "             the solver's own failure) and cases it declined\n"
      "  target     the separation it aims at ('per-case' when it varies)\n"
      "  miss_t, ghost_t  missed and ghost collisions against the exact class of\n"
      "             |s + v t| = R + target\n"
      "  t_timed, med_ulp_t, max_ulp_t  ULP errors against that problem's root\n"
      "  med_dt, max_dt  |T - RN(t*)| in time units, against the true contact\n"
      "  med_gap, max_gap  |s + v T| - R at the returned time, relative to R (a\n"
      "             speed-independent error), over cases timed against the contact\n"
      "  max_dev    largest |gap - target| / R\n"
      "  off_tol    timed cases whose |gap - target| exceeds the tolerance it claims\n"
      "  worst_gap  the case with the largest gap\n"
      "Failures are listed on stderr by case ID.\n"
      "Outputs appear only when complete; invalid input writes nothing (exit 3). The\n"
      "exit status is 1 when a solver crashed, hung or broke the protocol (the tables\n"
      "are still written).\n");
}

static void print_num(FILE *f, double x) {
  if (isnan(x))
    fprintf(f, " %10s", "-");
  else
    fprintf(f, " %10.4g", x);
}

/* The --rows file and whether it has a precision column. */
typedef struct rows_out {
  FILE *f;
  int with_precision;
  int with_cause; /* some candidate is a solver: a last field says why a case failed */
} rows_out;

static void write_row(void *ud, const toi_case *c, const toi_candidate *cand, const char *cls,
                      const toi_score_case *sc) {
  const rows_out *r = ud;
  FILE *f = r->f;
  fprintf(f, "%s %s %s %s ", c->id, cand->name, cls, toi_class_name(sc->ref_cls));
  cli_print_hex(f, sc->t);
  fputc(' ', f);
  cli_print_hex(f, sc->ref_t);
  fputc(' ', f);
  cli_print_g6(f, sc->ulp);
  fputc(' ', f);
  cli_print_g6(f, sc->bits);
  if (r->with_precision) fprintf(f, " %s", toi_precision_name(cand->precision));
  if (r->with_cause) fprintf(f, " %s", toi_fail_cause_name(sc->cause));
  fputc('\n', f);
}

/* 1 when some candidate is an external solver, which may fail a case: the rows
   then end with the cause (runs of formulations alone keep their bytes). */
static int any_external(const candlist *l) {
  for (size_t k = 0; k < l->n; k++)
    if (l->v[k].flags & TOI_CAND_EXTERNAL) return 1;
  return 0;
}

/* 1 when some candidate computes in another precision than binary64: the
   outputs then say each row's precision (binary64 runs keep their bytes). */
static int any_precision(const candlist *l) {
  for (size_t k = 0; k < l->n; k++)
    if (l->v[k].precision != TOI_BINARY64) return 1;
  return 0;
}

/* The second table's figures of an external candidate, from its merged values. */
typedef struct target_figs {
  double med_ulp_t, max_ulp_t, med_dt, max_dt, med_gap, max_gap, max_dev;
} target_figs;

static void print_target_row(FILE *f, const char *name, const toi_run_row *x, const target_figs *g) {
  fprintf(f, "%-18s %7zu %7zu", name, x->failed, x->unsupported);
  if (!x->targets_seen)
    fprintf(f, " %10s", "-");
  else if (x->tmin == x->tmax_seen)
    fprintf(f, " %10.4g", x->tmin);
  else
    fprintf(f, " %10s", "per-case");
  fprintf(f, " %7zu %7zu %7zu", x->tkind[TOI_SCORE_MISSED], x->tkind[TOI_SCORE_GHOST], x->ntulps);
  print_num(f, g->med_ulp_t);
  print_num(f, g->max_ulp_t);
  print_num(f, g->med_dt);
  print_num(f, g->max_dt);
  print_num(f, g->med_gap);
  print_num(f, g->max_gap);
  print_num(f, g->max_dev);
  if (x->have_tol)
    fprintf(f, " %7zu", x->off_tol);
  else
    fprintf(f, " %7s", "-");
  fprintf(f, "  %s\n", x->ngaps ? x->worst_gap : "-");
}

/* The second table: external candidates against their own target. */
static void print_target_table(FILE *f, const candlist *l, const toi_run_row *rows, const target_figs *figs) {
  fprintf(f, "\n# external solvers: failures, target, gap |s + v T| - R at the returned time (relative to R)\n");
  fprintf(f, "%-18s %7s %7s %10s %7s %7s %7s %10s %10s %10s %10s %10s %10s %10s %7s  %s\n", "solver", "failed",
          "unsupp", "target", "miss_t", "ghost_t", "t_timed", "med_ulp_t", "max_ulp_t", "med_dt", "max_dt", "med_gap",
          "max_gap", "max_dev", "off_tol", "worst_gap");
  for (size_t k = 0; k < l->n; k++)
    if (l->v[k].flags & TOI_CAND_EXTERNAL) print_target_row(f, l->v[k].name, &rows[k], &figs[k]);
}

static void print_table(FILE *f, const candlist *l, const toi_run_row *rows, const toi_run_stats *st,
                        const target_figs *figs, size_t ncases, int nfiles, double tmax) {
  fprintf(f, "# toibench run: %zu cases from %d file%s", ncases, nfiles, nfiles > 1 ? "s" : "");
  if (isfinite(tmax)) fprintf(f, ", hit within the step tmax = %.6g", tmax);
  fputc('\n', f);
  int prec = any_precision(l);
  if (prec) {
    fprintf(f, "# ULP and bits in each row's precision; inputs rounded to it (rounded: cases whose numbers\n"
               "# changed), scored against the exact answer of the rounded case\n");
    fprintf(f, "%-18s %-9s", "formulation", "precision");
  } else {
    fprintf(f, "%-18s", "formulation");
  }
  fprintf(f, " %7s %7s %7s %7s %7s %7s %10s %10s %10s %10s  %s\n", "cases", "agree", "missed", "ghost", "other",
          "timed", "median_ulp", "p99_ulp", "max_ulp", "max_bits", "worst");
  size_t nexternal = 0;
  for (size_t k = 0; k < l->n; k++) {
    const toi_run_stats s = st[k];
    fprintf(f, "%-18s", l->v[k].name);
    if (prec) fprintf(f, " %-9s", toi_precision_name(l->v[k].precision));
    fprintf(f, " %7zu %7zu %7zu %7zu %7zu %7zu", s.cases, s.agree, s.missed, s.ghost, s.other, s.timed);
    print_num(f, s.median_ulp);
    print_num(f, s.p99_ulp);
    print_num(f, s.max_ulp);
    print_num(f, s.max_bits);
    fprintf(f, "  %s", s.worst_id);
    if (s.out_of_domain) fprintf(f, "  (%zu out of domain)", s.out_of_domain);
    if (l->v[k].precision != TOI_BINARY64) {
      fprintf(f, "  (%zu rounded)", s.inputs_rounded);
      if (s.overflowed)
        fprintf(f, "  (%zu beyond %s range)", s.overflowed, toi_precision_name(l->v[k].precision));
    }
    if (l->v[k].flags & TOI_CAND_EXTERNAL) {
      nexternal++;
      if (s.failed) fprintf(f, "  (%zu failed)", s.failed);
      if (s.unsupported) fprintf(f, "  (%zu unsupported)", s.unsupported);
      const toi_run_info *ri = &rows[k].info; /* the engine's own time per call, when reported, and the bench's */
      if (ri->engine_calls && ri->bench_calls)
        fprintf(f, "  (engine %.3g us/call, bench %.3g us/call)", 1e-3 * (double)ri->engine_ns / ri->engine_calls,
                1e-3 * (double)ri->bench_ns / ri->bench_calls);
    }
    fputc('\n', f);
  }
  if (nexternal) print_target_table(f, l, rows, figs);
}

/* What the machine-readable outputs say of the run as a whole. */
typedef struct run_info {
  size_t ncases;
  int nfiles;
  double tmax;
  toi_ref_engine engine;
  toi_precision precision; /* --precision: the built-in formulations' variant */
  uint64_t case_set;       /* cli_cases_hash of the cases */
} run_info;

/* The second table's figures of an external candidate, as a JSON object. */
static void json_target(FILE *f, const toi_run_row *x, const target_figs *g) {
  fputs(", \"target\": {\"target\": ", f);
  if (!x->targets_seen) fputs("null", f);
  else if (x->tmin == x->tmax_seen) cli_json_num(f, x->tmin);
  else fputs("\"per-case\"", f);
  fprintf(f, ", \"miss_t\": %zu, \"ghost_t\": %zu, \"t_timed\": %zu, ", x->tkind[TOI_SCORE_MISSED],
          x->tkind[TOI_SCORE_GHOST], x->ntulps);
  cli_json_num_hex(f, "med_ulp_t", g->med_ulp_t);
  fputs(", ", f);
  cli_json_num_hex(f, "max_ulp_t", g->max_ulp_t);
  fputs(", ", f);
  cli_json_num_hex(f, "med_dt", g->med_dt);
  fputs(", ", f);
  cli_json_num_hex(f, "max_dt", g->max_dt);
  fputs(", ", f);
  cli_json_num_hex(f, "med_gap", g->med_gap);
  fputs(", ", f);
  cli_json_num_hex(f, "max_gap", g->max_gap);
  fputs(", ", f);
  cli_json_num_hex(f, "max_dev", g->max_dev);
  fputs(", \"off_tol\": ", f);
  if (x->have_tol) fprintf(f, "%zu", x->off_tol);
  else fputs("null", f);
  fputs(", \"worst_gap\": ", f);
  if (x->ngaps) cli_json_str(f, x->worst_gap);
  else fputs("null", f);
  fputc('}', f);
}

/* One candidate's object: every figure of the table's row. */
static void json_candidate(FILE *f, const toi_candidate *c, const toi_run_row *row, const toi_run_stats *st,
                           const target_figs *g) {
  const toi_run_stats s = *st;
  fputs("    {\"name\": ", f);
  cli_json_str(f, c->name);
  fprintf(f, ", \"precision\": \"%s\", \"external\": %s,\n     ", toi_precision_name(c->precision),
          c->flags & TOI_CAND_EXTERNAL ? "true" : "false");
  fprintf(f, "\"cases\": %zu, \"agree\": %zu, \"missed\": %zu, \"ghost\": %zu, \"other\": %zu, \"timed\": %zu,\n     ",
          s.cases, s.agree, s.missed, s.ghost, s.other, s.timed);
  cli_json_num_hex(f, "median_ulp", s.median_ulp);
  fputs(", ", f);
  cli_json_num_hex(f, "p99_ulp", s.p99_ulp);
  fputs(",\n     ", f);
  cli_json_num_hex(f, "max_ulp", s.max_ulp);
  fputs(", ", f);
  cli_json_num_hex(f, "max_bits", s.max_bits);
  fputs(",\n     \"worst\": ", f);
  if (s.timed) cli_json_str(f, s.worst_id);
  else fputs("null", f);
  fprintf(f, ", \"out_of_domain\": %zu, \"inputs_rounded\": %zu, \"overflowed\": %zu, \"failed\": %zu, "
             "\"unsupported\": %zu",
          s.out_of_domain, s.inputs_rounded, s.overflowed, s.failed, s.unsupported);
  if (c->flags & TOI_CAND_EXTERNAL) json_target(f, row, g);
  fputc('}', f);
}

/* run --format json: the run, then one object per candidate. */
static void print_json(FILE *f, const candlist *l, const toi_run_row *rows, const toi_run_stats *st,
                       const target_figs *figs, const run_info *ri) {
  fprintf(f, "{\"format\": \"toibench-run\", \"format_version\": 1, \"toibench\": \"%s\",\n", TOI_VERSION);
  fprintf(f, " \"note\": \"ULP figures are JSON numbers, null for NaN (nothing timed) or infinity; KEY_hex "
             "holds each exactly (nan, inf or a C99 hex float)\",\n");
  fprintf(f, " \"reference\": {\"engine\": \"%s\", \"mpfr\": ", toi_ref_engine_name(ri->engine));
  cli_json_str(f, toi_ref_mpfr_version());
  fputs(", \"gmp\": ", f);
  cli_json_str(f, toi_ref_gmp_version());
  fprintf(f, "},\n \"precision\": \"%s\", \"cases\": %zu, \"files\": %d, \"case_set\": \"%016llx\", \"tmax\": ",
          toi_precision_name(ri->precision), ri->ncases, ri->nfiles, (unsigned long long)ri->case_set);
  cli_json_num(f, ri->tmax);
  fputs(",\n \"candidates\": [\n", f);
  for (size_t k = 0; k < l->n; k++) {
    json_candidate(f, &l->v[k], &rows[k], &st[k], &figs[k]);
    fputs(k + 1 < l->n ? ",\n" : "\n", f);
  }
  fputs(" ]}\n", f);
}

/* One CSV row; the second table's fields stay empty for a formulation. */
static void csv_row(FILE *f, const toi_candidate *c, const toi_run_row *x, const toi_run_stats *st,
                    const target_figs *g) {
  const toi_run_stats s = *st;
  cli_csv_str(f, c->name);
  fprintf(f, ",%s,%d,%zu,%zu,%zu,%zu,%zu,%zu,", toi_precision_name(c->precision), (c->flags & TOI_CAND_EXTERNAL) != 0,
          s.cases, s.agree, s.missed, s.ghost, s.other, s.timed);
  const double v[] = {s.median_ulp, s.p99_ulp, s.max_ulp, s.max_bits};
  for (int i = 0; i < 4; i++) {
    cli_csv_num(f, v[i]);
    fputc(',', f);
  }
  if (s.timed) cli_csv_str(f, s.worst_id);
  fprintf(f, ",%zu,%zu,%zu,%zu,%zu", s.out_of_domain, s.inputs_rounded, s.overflowed, s.failed, s.unsupported);
  if (!(c->flags & TOI_CAND_EXTERNAL)) {
    fputs(",,,,,,,,,,,,,\n", f);
    return;
  }
  fputc(',', f);
  if (x->targets_seen && x->tmin == x->tmax_seen) cli_csv_num(f, x->tmin);
  else if (x->targets_seen) fputs("per-case", f);
  fprintf(f, ",%zu,%zu,%zu", x->tkind[TOI_SCORE_MISSED], x->tkind[TOI_SCORE_GHOST], x->ntulps);
  const double t[] = {g->med_ulp_t, g->max_ulp_t, g->med_dt, g->max_dt, g->med_gap, g->max_gap, g->max_dev};
  for (int i = 0; i < 7; i++) {
    fputc(',', f);
    cli_csv_num(f, t[i]);
  }
  fputc(',', f);
  if (x->have_tol) fprintf(f, "%zu", x->off_tol);
  fputc(',', f);
  if (x->ngaps) cli_csv_str(f, x->worst_gap);
  fputc('\n', f);
}

/* run --format csv: a header row, then one row per candidate. */
static void print_csv(FILE *f, const candlist *l, const toi_run_row *rows, const toi_run_stats *st,
                      const target_figs *figs) {
  fputs("name,precision,external,cases,agree,missed,ghost,other,timed,median_ulp,p99_ulp,max_ulp,max_bits,worst,"
        "out_of_domain,inputs_rounded,overflowed,failed,unsupported,target,miss_t,ghost_t,t_timed,med_ulp_t,"
        "max_ulp_t,med_dt,max_dt,med_gap,max_gap,max_dev,off_tol,worst_gap\n",
        f);
  for (size_t k = 0; k < l->n; k++) csv_row(f, &l->v[k], &rows[k], &st[k], &figs[k]);
}

/* Parses the command line into args and the candidates: those named by -f
   (all formulations when neither -f nor a solver is given), then the solvers
   given by path or command, in command-line order; then the outputs checked
   against the inputs and where they go. EXIT_OK or an exit code. */
static int parse_run(int argc, char **argv, cli_args *args, candlist *l, cli_format *fmt, int *jobs,
                     const char **solver_log) {
  candlist given = {0};
  int rc = EXIT_OK;
  toi_precision cmd_prec = TOI_BINARY64; /* --solver-cmd-precision: for the --solver-cmd that follow */
  for (int i = 1; i < argc && rc == EXIT_OK; i++) {
    if (!strcmp(argv[i], "--solver-cmd-precision") && i + 1 < argc) {
      rc = cli_parse_precision("run", argv[i], argv[i + 1], &cmd_prec);
      i++;
      continue;
    }
    if (!strcmp(argv[i], "--format") && i + 1 < argc) {
      rc = cli_parse_format("run", argv[++i], fmt);
      continue;
    }
    if (!strcmp(argv[i], "--solver-log")) {
      if (i + 1 >= argc || !argv[i + 1][0]) rc = cli_usage_error("run", "--solver-log needs a file name");
      else *solver_log = argv[++i];
      continue;
    }
    int t = cli_take_jobs("run", argc, argv, &i, jobs);
    if (t) {
      rc = t < 0 ? EXIT_USAGE : EXIT_OK;
      continue;
    }
    if ((!strcmp(argv[i], "--solver") || !strcmp(argv[i], "--solver-cmd")) && i + 1 < argc) {
      if (!strcmp(argv[i], "--solver-cmd") && !argv[i + 1][0]) {
        rc = cli_usage_error("run", "--solver-cmd needs a command");
      } else {
        size_t from = given.n;
        rc = cli_add_given_prec("run", &given, argv[i], argv[i + 1], cmd_prec, cli_timeout_scan(argc, argv));
        for (size_t k = from; k < given.n; k++) candlist_unique_name(&given, k);
      }
      i++;
      continue;
    }
    int r = cli_args_take(args, "run",
                          CLI_OPT_OUT | CLI_OPT_ROWS | CLI_OPT_NAMES | CLI_OPT_TMAX | CLI_OPT_TARGET |
                              CLI_OPT_REFERENCE | CLI_OPT_TIMEOUT | CLI_OPT_PRECISION,
                          argc, argv, &i);
    if (r == CLI_HELP) rc = -1;
    else if (r < 0) rc = EXIT_USAGE;
  }
  if (rc == EXIT_OK && args->nfiles == 0) rc = cli_usage_error("run", "no case file given");
  if (rc == EXIT_OK) {
    rc = args->names       ? cli_add_named_prec("run", l, args->names, args->precision)
         : given.n         ? EXIT_OK
                           : cli_add_named_prec("run", l, "all", args->precision);
  }
  for (size_t k = 0; k < given.n && rc == EXIT_OK; k++) {
    if (candlist_push(l, &given.v[k])) rc = EXIT_RUNTIME;
    else candlist_unique_name(l, l->n - 1);
  }
  candlist_free(&given);
  if (rc == EXIT_OK && l->n == 0) rc = cli_usage_error("run", "nothing to run");
  if (rc == EXIT_OK) { /* before any work: no output replaces an input, and each can be created */
    const cli_file outs[] = {{"-o", args->out ? args->out : "-"}, {"--rows", args->rows}, {"--solver-log", *solver_log}};
    rc = cli_outputs_check_args("run", outs, 3, args->files, args->nfiles, argc, argv, NULL, 0);
  }
  return rc;
}

/* The table (or json, csv) of the run to args->out, and rowsf into place,
   then what the solvers' messages left untold; EXIT_OK or EXIT_RUNTIME. */
static int write_run(const cli_args *args, const candlist *l, const toi_run_row *rows, const toi_run_stats *st,
                     const target_figs *figs, const toi_quota *quota, cli_format fmt, const run_info *ri,
                     cli_out *rowsf) {
  cli_out out;
  if (cli_out_open(&out, args->out)) {
    if (rowsf) cli_out_abort(rowsf);
    return EXIT_RUNTIME;
  }
  if (fmt == CLI_FMT_JSON)
    print_json(out.f, l, rows, st, figs, ri);
  else if (fmt == CLI_FMT_CSV)
    print_csv(out.f, l, rows, st, figs);
  else
    print_table(out.f, l, rows, st, figs, ri->ncases, args->nfiles, args->tmax);
  if (rowsf && cli_out_commit(rowsf)) {
    cli_out_abort(&out);
    return EXIT_RUNTIME;
  }
  if (cli_out_commit(&out)) return EXIT_RUNTIME;
  for (size_t k = 0; k < l->n; k++)
    if (l->v[k].flags & TOI_CAND_EXTERNAL) solver_quota_report(l->v[k].name, &quota[k], &cli_msg_stderr);
  return toi_run_finish(rows, l->v, l->n, &cli_msg_stderr) ? EXIT_RUNTIME : EXIT_OK;
}

static void bench_opts(toi_bench_opts *o, const cli_args *args) {
  toi_bench_opts_init(o);
  o->tmax = args->tmax;
  o->delta = args->delta;
  o->timeout = args->timeout;
  o->engine = args->engine;
  o->msg = &cli_msg_stderr;
}

/* ---- the files streamed, in memory that does not grow with them ---- */

/* 1 when some candidate runs out of this process: it is then called on one
   block at a time, from one thread alone (a child process is forked for
   each block; no other thread may run meanwhile). */
static int out_of_process(const candlist *l) {
  for (size_t k = 0; k < l->n; k++)
    if (l->v[k].flags & TOI_CAND_OUT_OF_PROCESS) return 1;
  return 0;
}

typedef struct run_slot {
  toi_run_row *rows; /* the block's rows, nc of them */
  int used;
} run_slot;

typedef struct run_stream {
  const cli_args *args;
  const candlist *l;
  toi_bench_opts o;
  run_slot *slots;
  toi_run_row *acc;  /* the run's rows */
  toi_qstream *ulps; /* their ULP errors, one per candidate */
  toi_target_merge *targets; /* an external candidate's second table (the others' unused) */
  toi_quota *quota;  /* the messages shown of each candidate, over every block */
  int with_precision, with_cause, want_hash, rows_open;
  int commit_errno; /* errno where commit failed (it may run on any thread: errno is each thread's) */
  uint64_t hash;
  cli_out rowsf;
} run_stream;

static int run_work(void *ctx, toi_stream_block *b) {
  run_stream *r = ctx;
  run_slot *s = &r->slots[b->slot];
  if (s->used) toi_run_rows_free(s->rows, r->l->n);
  s->used = 1;
  rows_out ro = {b->out, r->with_precision, r->with_cause};
  toi_status st =
      toi_bench_run(s->rows, r->l->v, r->l->n, b->cases, b->n, &r->o, r->args->rows ? write_row : NULL, &ro);
  return st == TOI_OK ? 0 : -1;
}

/* In input order: the block's rows added to the run's, its --rows lines written
   (the file opened at the first block, so that invalid input never touches it). */
static int run_commit_do(run_stream *r, toi_stream_block *b) {
  if (b->work_rc) return 1;
  run_slot *s = &r->slots[b->slot];
  for (size_t k = 0; k < r->l->n; k++) {
    if (toi_run_row_merge(&r->acc[k], &s->rows[k], &r->ulps[k])) return -1;
    if ((r->l->v[k].flags & TOI_CAND_EXTERNAL) && toi_run_row_merge_target(&r->targets[k], &s->rows[k])) return -1;
  }
  if (r->want_hash) r->hash = cli_cases_hash_more(r->hash, b->cases, b->n);
  if (!r->args->rows) return 0;
  if (!r->rows_open) {
    if (cli_out_open(&r->rowsf, r->args->rows)) return 2;
    r->rows_open = 1;
    fprintf(r->rowsf.f, "# id formulation class ref_class t ref_t ulp bits%s%s\n", r->with_precision ? " precision" : "",
            r->with_cause ? " cause" : "");
  }
  return fwrite(b->text, 1, b->len, r->rowsf.f) == b->len ? 0 : -1;
}

/* run_commit_do, errno kept where a write failed, for the message. */
static int run_commit(void *ctx, toi_stream_block *b) {
  run_stream *r = ctx;
  int rc = run_commit_do(r, b);
  if (rc < 0) r->commit_errno = errno;
  return rc;
}

/* An external candidate's second table: medians from its spilled values, maxima as merged. 0 or -1. */
static int target_stats(const toi_run_row *x, toi_target_merge *m, target_figs *g) {
  g->max_ulp_t = m->max_tulp;
  g->max_dt = m->max_dt;
  g->max_dev = m->max_dev;
  g->max_gap = x->ngaps ? x->max_gap : NAN;
  return toi_qstream_quantile(&m->tulps, 0.5, &g->med_ulp_t) || toi_qstream_quantile(&m->dts, 0.5, &g->med_dt) ||
                 toi_qstream_quantile(&m->gaps, 0.5, &g->med_gap)
             ? -1
             : 0;
}

/* The summary of each row, its quantiles exact from the spilled values. */
static int stream_stats(run_stream *r, toi_run_stats *st, target_figs *figs) {
  for (size_t k = 0; k < r->l->n; k++) {
    toi_run_row_counts(&r->acc[k], &st[k]);
    static const double qs[2] = {0.5, 0.99};
    double qv[2];
    int qrc = toi_qstream_quantiles(&r->ulps[k], qs, 2, qv);
    st[k].median_ulp = qv[0];
    st[k].p99_ulp = qv[1];
    if (qrc ||
        ((r->l->v[k].flags & TOI_CAND_EXTERNAL) && target_stats(&r->acc[k], &r->targets[k], &figs[k]))) {
      cli_error("cannot read back the ULP errors of %s", r->l->v[k].name);
      return -1;
    }
  }
  return 0;
}

/* After the files: the outputs written, or nothing. */
static int run_stream_finish(run_stream *r, int rc, const toi_stream_result *res, cli_format fmt) {
  if (rc == EXIT_OK && res->commit_rc) {
    if (res->commit_rc < 0) cli_error("cannot write the rows or spill the ULP errors: %s", strerror(r->commit_errno));
    rc = EXIT_RUNTIME;
  }
  toi_run_stats *st = rc == EXIT_OK ? calloc(r->l->n, sizeof *st) : NULL;
  target_figs *figs = rc == EXIT_OK ? calloc(r->l->n, sizeof *figs) : NULL;
  if (rc == EXIT_OK && (!st || !figs || stream_stats(r, st, figs))) rc = EXIT_RUNTIME;
  if (rc != EXIT_OK) {
    if (r->rows_open) cli_out_abort(&r->rowsf);
    free(st);
    free(figs);
    return rc;
  }
  run_info ri = {res->cases, r->args->nfiles, r->args->tmax, r->args->engine, r->args->precision, r->hash};
  rc = write_run(r->args, r->l, r->acc, st, figs, r->quota, fmt, &ri, r->rows_open ? &r->rowsf : NULL);
  free(st);
  free(figs);
  return rc;
}

static int run_streamed(const cli_args *args, const candlist *l, toi_run_row *rows, cli_format fmt, int jobs,
                        const toi_msg *solver_log) {
  run_stream r;
  memset(&r, 0, sizeof r);
  r.args = args;
  r.l = l;
  r.acc = rows;
  r.with_precision = any_precision(l);
  r.with_cause = any_external(l);
  r.want_hash = fmt == CLI_FMT_JSON;
  r.hash = CLI_CASES_HASH_START;
  bench_opts(&r.o, args);
  for (size_t k = 0; k < l->n; k++) toi_score_stats_init(&rows[k].st, l->v[k].name);
  /* A block holds every candidate's answer to each of its cases (about 300
     bytes each): fewer cases a block when there are many candidates. */
  size_t block = (size_t)12288 / (l->n ? l->n : 1);
  if (out_of_process(l)) jobs = 1;
  toi_stream_opts so = {jobs, block < 256 ? 256 : block > 4096 ? 4096 : block, run_work, run_commit, NULL, &r, NULL, 0};
  int ns = toi_stream_slots(&so), rc = EXIT_RUNTIME;
  r.slots = calloc((size_t)ns, sizeof *r.slots);
  r.ulps = calloc(l->n, sizeof *r.ulps);
  r.targets = calloc(l->n, sizeof *r.targets);
  r.o.quota = r.quota = calloc(l->n, sizeof *r.quota);
  int ok = r.slots && r.ulps && r.targets && r.quota;
  for (size_t k = 0; ok && k < l->n; k++) r.quota[k].log = solver_log;
  for (int i = 0; ok && i < ns; i++) ok = (r.slots[i].rows = calloc(l->n, sizeof *r.slots[i].rows)) != NULL;
  /* the values of every stream together in memory up to TOI_QSTREAM_MEM (8 MB), shared out */
  size_t nstreams = l->n;
  for (size_t k = 0; k < l->n; k++) nstreams += (l->v[k].flags & TOI_CAND_EXTERNAL) ? 3 : 0;
  const size_t mem = TOI_QSTREAM_MEM / (nstreams ? nstreams : 1);
  for (size_t k = 0; ok && k < l->n; k++) ok = toi_qstream_init_mem(&r.ulps[k], mem) == 0;
  for (size_t k = 0; ok && k < l->n; k++)
    ok = !(l->v[k].flags & TOI_CAND_EXTERNAL) || toi_target_merge_init(&r.targets[k], mem) == 0;
  if (!ok) {
    cli_error("run: out of memory or no temporary file for the ULP errors");
  } else {
    toi_stream_result res;
    rc = run_stream_finish(&r, cli_stream_cases(&so, args->nfiles, args->files, &res), &res, fmt);
  }
  for (int i = 0; r.slots && i < ns; i++) {
    if (r.slots[i].used) toi_run_rows_free(r.slots[i].rows, l->n);
    free(r.slots[i].rows);
  }
  for (size_t k = 0; r.ulps && k < l->n; k++) toi_qstream_free(&r.ulps[k]);
  for (size_t k = 0; r.targets && k < l->n; k++) toi_target_merge_free(&r.targets[k]);
  free(r.slots);
  free(r.ulps);
  free(r.targets);
  free(r.quota);
  return rc;
}

int cmd_run(int argc, char **argv) {
  candlist l = {0};
  cli_args args;
  if (cli_args_init(&args, argc)) return EXIT_RUNTIME;
  cli_format fmt = CLI_FMT_TABLE;
  int jobs = cli_default_jobs();
  const char *log_path = NULL;
  int rc = parse_run(argc, argv, &args, &l, &fmt, &jobs, &log_path);
  toi_run_row *rows = NULL;
  cli_solver_log log;
  if (rc < 0) {
    help();
    rc = EXIT_OK;
  } else if (rc == EXIT_OK && !(rows = calloc(l.n, sizeof *rows))) {
    rc = EXIT_RUNTIME;
  } else if (rc == EXIT_OK && cli_solver_log_open(&log, log_path)) {
    rc = EXIT_RUNTIME;
  } else if (rc == EXIT_OK) {
    rc = run_streamed(&args, &l, rows, fmt, jobs, cli_solver_log_sink(&log));
    if (cli_solver_log_close(&log) && rc == EXIT_OK) rc = EXIT_RUNTIME;
  }
  toi_run_rows_free(rows, l.n);
  free(rows);
  candlist_free(&l);
  cli_args_free(&args);
  return rc;
}
