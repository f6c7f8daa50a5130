/* cmd_run.c: `toibench run`, formulations and external solvers scored against the certified reference. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "score.h"
#include "stats.h"
#include "solvers.h"

/* Per-case failure messages shown per solver; the rest are counted. */
#define FAILURES_SHOWN 20

static void help(void) {
  printf(
      "Usage: toibench run [-f NAME,...] [--solver LIB.so[:SYMBOL]]... [--solver-cmd COMMAND]...\n"
      "                    [--tmax T] [--target-distance DELTA] [--timeout SEC]\n"
      "                    [--rows FILE] [-o FILE] FILE...\n"
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
      "  --tmax T     the step: solvers answer within [0, T], and every row is scored\n"
      "               as \"hit within the step\" (an exact contact after T counts as no\n"
      "               contact; so does a verdict with a time after T)\n"
      "  --target-distance DELTA  the separation |s + v t| - R that solvers stating no\n"
      "               target of their own aim at (default 0: touching)\n"
      "  --timeout SEC  time allowed per answer (default 10); a solver that takes longer\n"
      "               is stopped and the case reported\n"
      "  --rows FILE  one line per case and formulation or solver:\n"
      "               # id formulation class ref_class t ref_t ulp bits\n"
      "               (t, ref_t as hex floats; ulp, bits as %%.6g; nan when not timed;\n"
      "               class 'failed' or 'unsupported' for a solver without an answer)\n"
      "  -o FILE      write the table to FILE instead of stdout\n"
      "  --reference ENGINE  the certified reference's engine: fast (default) or mpfr;\n"
      "               both give the same bits, mpfr is many times slower\n"
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

/* One row: a formulation, or an external solver with its answers. */
typedef struct entry {
  const toi_formulation *f;
  solver_def s;
  solver_answer *ans;
  solver_run_info info;
  score_stats st;
  size_t failed, unsupported, shown;
  /* second table */
  double *tulps, *gaps, *devs, *dts;
  size_t ntulps, ngaps, ndevs, ndts, off_tol, have_tol, tkind[SCORE_KIND_COUNT];
  double tmin, tmax_seen, max_gap;
  int targets_seen;
  char worst_gap[TOI_ID_MAX + 1];
} entry;

typedef struct entries {
  entry *v;
  size_t n, cap;
} entries;

static entry *add_entry(entries *e) {
  if (e->n == e->cap) {
    size_t cap = e->cap ? 2 * e->cap : 16;
    entry *p = realloc(e->v, cap * sizeof *p);
    if (!p) return NULL;
    e->v = p;
    e->cap = cap;
  }
  entry *x = &e->v[e->n++];
  memset(x, 0, sizeof *x);
  return x;
}

static int name_taken(const entries *e, size_t upto, const char *name) {
  for (size_t i = 0; i < upto; i++)
    if (!strcmp(e->v[i].f ? e->v[i].f->name : e->v[i].s.name, name)) return 1;
  return 0;
}

static int has_name(const entries *e, const char *name) { return name_taken(e, e->n, name); }

/* Gives the last entry a name no earlier one has: NAME, NAME#2, NAME#3 ... */
static void unique_name(entries *e) {
  entry *x = &e->v[e->n - 1];
  char base[SOLVER_NAME_MAX + 1];
  memcpy(base, x->s.name, sizeof base);
  for (int k = 2; name_taken(e, e->n - 1, x->s.name) && k < 1000; k++)
    snprintf(x->s.name, sizeof x->s.name, "%.55s#%d", base, k);
}

static int add_solver(entries *e, const solver_def *s) {
  entry *x = add_entry(e);
  if (!x) return -1;
  x->s = *s;
  unique_name(e);
  return 0;
}

static int parse_names(entries *e, const char *names) {
  char *copy = strdup(names);
  if (!copy) return -1;
  int rc = 0;
  for (char *save = NULL, *tok = strtok_r(copy, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save)) {
    if (!strcmp(tok, "all")) {
      size_t n;
      const toi_formulation *all = toi_formulations(&n);
      for (size_t i = 0; i < n; i++)
        if (!has_name(e, all[i].name)) {
          entry *x = add_entry(e);
          if (!x) rc = -1;
          else x->f = &all[i];
        }
    } else if (!strcmp(tok, "engines")) {
      solver_def *v;
      size_t n = solvers_engines(&v);
      if (n == 0) {
        fprintf(stderr, "toibench run: no engine is built (run 'make engines')\n");
        rc = 1;
      }
      for (size_t i = 0; i < n && !rc; i++)
        if (!has_name(e, v[i].name)) rc = add_solver(e, &v[i]);
      free(v);
    } else if (toi_formulation_find(tok)) {
      if (!has_name(e, tok)) {
        entry *x = add_entry(e);
        if (!x) rc = -1;
        else x->f = toi_formulation_find(tok);
      }
    } else {
      solver_def s;
      if (solvers_find_engine(tok, &s)) {
        fprintf(stderr, "toibench run: unknown formulation or solver '%s' (see 'toibench list')\n", tok);
        rc = 1;
      } else if (!has_name(e, tok)) {
        rc = add_solver(e, &s);
      }
    }
  }
  free(copy);
  return rc;
}

/* Appends to an array whose capacity is the count rounded up to a power of two. */
static int push_val(double **v, size_t *n, double x) {
  if ((*n & (*n - 1)) == 0) {
    size_t cap = *n ? 2 * *n : 1;
    double *p = realloc(*v, cap * sizeof *p);
    if (!p) return -1;
    *v = p;
  }
  (*v)[(*n)++] = x;
  return 0;
}

static double max_of(const double *v, size_t n) {
  double m = NAN;
  for (size_t i = 0; i < n; i++)
    if (isnan(m) || v[i] > m) m = v[i];
  return m;
}

static void write_row(FILE *f, const char *id, const char *name, const char *cls, const score_case *sc) {
  fprintf(f, "%s %s %s %s ", id, name, cls, toi_class_name(sc->ref_cls));
  cli_print_hex(f, sc->t);
  fputc(' ', f);
  cli_print_hex(f, sc->ref_t);
  fprintf(f, " %.6g %.6g\n", sc->ulp, sc->bits);
}

/* Scores one external solver's answer for case c and accumulates both tables. */
static int score_solver(entry *x, const toi_case *c, const toi_ref *ref, const solver_answer *a, double tmax,
                        double delta, FILE *rows) {
  if (a->state != SOLVER_ANSWERED) {
    if (a->state == SOLVER_UNSUPPORTED) {
      x->unsupported++;
    } else {
      x->failed++;
      if (++x->shown <= FAILURES_SHOWN) cli_error("solver %s: case %s: %s", x->s.name, c->id, a->why);
    }
    if (rows) {
      score_case sc;
      memset(&sc, 0, sizeof sc);
      sc.ref_cls = ref->cls;
      sc.t = sc.ref_t = sc.ulp = sc.bits = NAN;
      sc.ref_t = ref->tfwd;
      write_row(rows, c->id, x->s.name, a->state == SOLVER_UNSUPPORTED ? "unsupported" : "failed", &sc);
    }
    return 0;
  }
  double target = isfinite(a->target) ? a->target : delta;
  double tol = isfinite(a->tolerance) ? a->tolerance : 0;
  solver_score ss;
  if (solver_score_result(&ss, a->r, TOI_FORWARD, 0, c, ref, tmax, target, tol) != TOI_OK) return -1;
  if (score_stats_add(&x->st, &ss.sc, c->id) != TOI_OK) return -1;
  if (!x->targets_seen || target < x->tmin) x->tmin = target;
  if (!x->targets_seen || target > x->tmax_seen) x->tmax_seen = target;
  x->targets_seen = 1;
  x->tkind[ss.target_kind]++;
  if (ss.target_timed && push_val(&x->tulps, &x->ntulps, ss.target_ulp)) return -1;
  /* The error in time itself, in the case's time units: what a user of the
   * engine sees as "how late or early". */
  if (ss.sc.timed && isfinite(ss.sc.t) && isfinite(ss.sc.ref_t) &&
      push_val(&x->dts, &x->ndts, fabs(ss.sc.t - ss.sc.ref_t)))
    return -1;
  if (ss.sc.timed && !isnan(ss.gap)) {
    double R = c->ra + c->rb;
    double rel = R > 0 ? fabs(ss.gap) / R : fabs(ss.gap);
    double dev = R > 0 ? fabs(ss.gap - target) / R : fabs(ss.gap - target);
    if (push_val(&x->gaps, &x->ngaps, rel) || push_val(&x->devs, &x->ndevs, dev)) return -1;
    if (x->ngaps == 1 || rel > x->max_gap) {
      x->max_gap = rel;
      snprintf(x->worst_gap, sizeof x->worst_gap, "%s", c->id);
    }
  }
  if (tol > 0 && ss.target_timed) {
    x->have_tol++;
    x->off_tol += (size_t)ss.off_tolerance;
  }
  if (rows) write_row(rows, c->id, x->s.name, toi_class_name(a->r.cls), &ss.sc);
  return 0;
}

static void print_solver_table(FILE *f, entries *e) {
  fprintf(f, "\n# external solvers: failures, target, gap |s + v T| - R at the returned time (relative to R)\n");
  fprintf(f, "%-18s %7s %7s %10s %7s %7s %7s %10s %10s %10s %10s %10s %10s %10s %7s  %s\n", "solver", "failed",
          "unsupp", "target", "miss_t", "ghost_t", "t_timed", "med_ulp_t", "max_ulp_t", "med_dt", "max_dt", "med_gap",
          "max_gap", "max_dev", "off_tol", "worst_gap");
  for (size_t k = 0; k < e->n; k++) {
    entry *x = &e->v[k];
    if (x->f) continue;
    fprintf(f, "%-18s %7zu %7zu", x->s.name, x->failed, x->unsupported);
    if (!x->targets_seen)
      fprintf(f, " %10s", "-");
    else if (x->tmin == x->tmax_seen)
      fprintf(f, " %10.4g", x->tmin);
    else
      fprintf(f, " %10s", "per-case");
    fprintf(f, " %7zu %7zu %7zu", x->tkind[SCORE_MISSED], x->tkind[SCORE_GHOST], x->ntulps);
    print_num(f, toi_quantile(x->tulps, x->ntulps, 0.5));
    print_num(f, max_of(x->tulps, x->ntulps));
    print_num(f, toi_quantile(x->dts, x->ndts, 0.5));
    print_num(f, max_of(x->dts, x->ndts));
    print_num(f, toi_quantile(x->gaps, x->ngaps, 0.5));
    print_num(f, x->ngaps ? x->max_gap : NAN);
    print_num(f, max_of(x->devs, x->ndevs));
    if (x->have_tol)
      fprintf(f, " %7zu", x->off_tol);
    else
      fprintf(f, " %7s", "-");
    fprintf(f, "  %s\n", x->ngaps ? x->worst_gap : "-");
  }
}

int cmd_run(int argc, char **argv) {
  int nsolvers = 0, rc = EXIT_USAGE;
  entries e = {0};
  toi_caselist list = {0};
  cli_out out = {0}, rows = {0};
  int rows_open = 0;
  cli_args args;
  if (cli_args_init(&args, argc)) return EXIT_RUNTIME;
  char **files = args.files;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--solver") && i + 1 < argc) {
      char err[600];
      solver_def *v;
      int k = solvers_from_plugin_arg(argv[++i], &v, err, sizeof err, NULL, 0);
      if (k < 0) {
        cli_usage_error("run", "--solver %s", err);
        goto done;
      }
      for (int j = 0; j < k; j++)
        if (add_solver(&e, &v[j])) {
          free(v);
          rc = EXIT_RUNTIME;
          goto done;
        }
      free(v);
      nsolvers += k;
    } else if (!strcmp(argv[i], "--solver-cmd") && i + 1 < argc) {
      solver_def s;
      if (!argv[++i][0]) {
        cli_usage_error("run", "--solver-cmd needs a command");
        goto done;
      }
      solvers_from_command(argv[i], &s);
      if (add_solver(&e, &s)) {
        rc = EXIT_RUNTIME;
        goto done;
      }
      nsolvers++;
    } else {
      int r = cli_args_take(&args, "run",
                            CLI_OPT_OUT | CLI_OPT_ROWS | CLI_OPT_NAMES | CLI_OPT_TMAX | CLI_OPT_TARGET |
                                CLI_OPT_REFERENCE | CLI_OPT_TIMEOUT,
                            argc, argv, &i);
      if (r == CLI_HELP) {
        help();
        free(files);
        return EXIT_OK;
      }
      if (r < 0) goto done;
    }
  }
  const char *outpath = args.out, *rowspath = args.rows, *names = args.names;
  double tmax = args.tmax, delta = args.delta, timeout = args.timeout;
  int nfiles = args.nfiles;
  if (nfiles == 0) {
    cli_usage_error("run", "no case file given");
    goto done;
  }
  {
    /* Formulations first, in the order named, then the solvers given by path
     * or command, in command-line order. */
    entries named = {0};
    int prc = names ? parse_names(&named, names) : nsolvers ? 0 : parse_names(&named, "all");
    if (prc) {
      free(named.v);
      if (prc < 0) rc = EXIT_RUNTIME;
      else if (rc == EXIT_USAGE) fprintf(stderr, "Try 'toibench --help'\n");
      goto done;
    }
    for (size_t k = 0; k < e.n; k++) {
      entry *x = add_entry(&named);
      if (!x) {
        free(named.v);
        rc = EXIT_RUNTIME;
        goto done;
      }
      *x = e.v[k];
      unique_name(&named);
    }
    free(e.v);
    e = named;
  }
  if (e.n == 0) {
    cli_usage_error("run", "nothing to run");
    goto done;
  }
  rc = cli_read_case_files(&list, nfiles, files);
  if (rc != EXIT_OK) goto done;
  rc = EXIT_RUNTIME;
  solver_opts opts = {tmax, timeout, NULL, &cli_msg_stderr};
  for (size_t k = 0; k < e.n; k++) {
    entry *x = &e.v[k];
    score_stats_init(&x->st, x->f ? x->f->name : x->s.name);
    if (x->f) continue;
    x->ans = calloc(list.count ? list.count : 1, sizeof *x->ans);
    if (!x->ans) goto done;
    if (solver_run(&x->s, list.items, list.count, &opts, x->ans, &x->info)) goto done;
  }
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
    for (size_t k = 0; k < e.n; k++) {
      entry *x = &e.v[k];
      if (!x->f) {
        if (score_solver(x, c, &ref, &x->ans[i], tmax, delta, rows_open ? rows.f : NULL)) {
          cli_error("case %s: scoring %s failed", c->id, x->s.name);
          goto done;
        }
        continue;
      }
      solver_score ss;
      if (solver_score_result(&ss, x->f->solve(c), x->f->direction, x->f->domain, c, &ref, tmax, 0, 0) !=
              TOI_OK ||
          score_stats_add(&x->st, &ss.sc, c->id) != TOI_OK) {
        cli_error("case %s: scoring %s failed", c->id, x->f->name);
        goto done;
      }
      if (rows_open) write_row(rows.f, c->id, x->f->name, toi_class_name(ss.sc.verdict), &ss.sc);
    }
  }
  if (cli_out_open(&out, outpath)) goto done;
  fprintf(out.f, "# toibench run: %zu cases from %d file%s", list.count, nfiles, nfiles > 1 ? "s" : "");
  if (isfinite(tmax)) fprintf(out.f, ", hit within the step tmax = %.6g", tmax);
  fputc('\n', out.f);
  fprintf(out.f, "%-18s %7s %7s %7s %7s %7s %7s %10s %10s %10s %10s  %s\n", "formulation", "cases", "agree",
          "missed", "ghost", "other", "timed", "median_ulp", "p99_ulp", "max_ulp", "max_bits", "worst");
  size_t nsolv = 0;
  for (size_t k = 0; k < e.n; k++) {
    score_stats *s = &e.v[k].st;
    double med = score_stats_quantile(s, 0.5), p99 = score_stats_quantile(s, 0.99);
    fprintf(out.f, "%-18s %7zu %7zu %7zu %7zu %7zu %7zu", s->name, s->cases, s->kind[SCORE_AGREE],
            s->kind[SCORE_MISSED], s->kind[SCORE_GHOST], s->kind[SCORE_OTHER], s->timed);
    print_num(out.f, med);
    print_num(out.f, p99);
    print_num(out.f, s->timed ? s->max_ulp : NAN);
    print_num(out.f, s->timed ? s->max_bits : NAN);
    fprintf(out.f, "  %s", s->timed ? s->worst_id : "-");
    if (s->out_of_domain) fprintf(out.f, "  (%zu out of domain)", s->out_of_domain);
    if (!e.v[k].f) {
      nsolv++;
      if (e.v[k].failed) fprintf(out.f, "  (%zu failed)", e.v[k].failed);
      if (e.v[k].unsupported) fprintf(out.f, "  (%zu unsupported)", e.v[k].unsupported);
    }
    fputc('\n', out.f);
  }
  if (nsolv) print_solver_table(out.f, &e);
  if (rows_open) {
    rows_open = 0;
    if (cli_out_commit(&rows)) {
      cli_out_abort(&out);
      goto done;
    }
  }
  if (cli_out_commit(&out)) goto done;
  rc = EXIT_OK;
  for (size_t k = 0; k < e.n; k++) {
    entry *x = &e.v[k];
    if (x->f) continue;
    if (x->shown > FAILURES_SHOWN)
      cli_error("solver %s: %zu more failed cases not shown", x->s.name, x->shown - FAILURES_SHOWN);
    if (x->info.malfunctions || x->info.protocol_errors) {
      cli_error("solver %s: %zu case%s lost to crashes, hangs or protocol errors; %zu protocol error%s outside any "
                "case",
                x->s.name, x->info.malfunctions, x->info.malfunctions == 1 ? "" : "s", x->info.protocol_errors,
                x->info.protocol_errors == 1 ? "" : "s");
      rc = EXIT_RUNTIME;
    }
  }
done:
  if (rows_open) cli_out_abort(&rows);
  for (size_t k = 0; k < e.n; k++) {
    score_stats_free(&e.v[k].st);
    free(e.v[k].ans);
    free(e.v[k].tulps);
    free(e.v[k].gaps);
    free(e.v[k].devs);
    free(e.v[k].dts);
  }
  free(e.v);
  free(files);
  toi_caselist_free(&list);
  return rc;
}
