/* cmd_report.c: `toibench report`, the accuracy report (HTML, Markdown, JSON, gnuplot plots). */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "candlist.h"
#include "cli.h"
#include "cli_outcheck.h"
#include "report.h"
#include "report_place.h"
#include "sweep.h"
#include "toiref.h"

static void help(void) {
  printf(
      "Usage: toibench report [--quick | --suite FILE] [--out DIR] [--seed S] [-j N] [--quiet]\n"
      "                       [--engines] [--solver LIB[:SYM]]... [--solver-cmd CMD]...\n"
      "       toibench report --check DIR [--screenshot FILE]\n"
      "Runs the built-in default suite and writes an accuracy report to DIR\n"
      "(default reports/out/): index.html (open it in a browser; no external resources),\n"
      "summary.md (tables for a pull request), report.json (every figure of the tables),\n"
      "img/*.svg and img/*.png (gnuplot), data/*.dat (the data behind every plot),\n"
      "worst/*.cases (each worst case in a file of its own, replayable), worst.cases\n"
      "and .toibench-report (marks the folder as a report's and lists its files).\n"
      "The page opens with a verdict made from the figures.\n\n"
      "The default suite (generated, seed 1; 'toibench gen --help' describes the families):\n"
      "  mixed          400000 cases: the summary table, distributions, kappa, audits\n"
      "  grazing        k = 1..60, 2000 cases per k\n"
      "  near-contact   k = 1..60, 1000 cases per k\n"
      "  far            e = 0..15, 2000 cases per e\n"
      "plus a pairwise response audit of up to 4000 exact hits (E = 1) and a many-ball\n"
      "simulation (1000 balls, 2D box, 200000 events) per forward formulation and the\n"
      "reference.\n"
      "  --quick        a 20x smaller suite and simulation (for tests)\n"
      "  --suite FILE   use the cases of FILE instead of the mixed family for the table,\n"
      "                 distributions and audits (the family plots stay generated); read\n"
      "                 whole, at most 1073741824 bytes (1 GiB)\n"
      "  --out DIR      output folder; written to a temporary folder and moved into place\n"
      "                 only when complete. An existing DIR is replaced only when empty\n"
      "                 or holding a report and nothing else: what its .toibench-report\n"
      "                 lists (a report older than that file: the kinds of files a\n"
      "                 report has) and screenshot.png of --check. Anything else\n"
      "                 (notes.txt, a folder of yours) is named and the run refused\n"
      "                 before any work. A symbolic link is followed: the folder it\n"
      "                 names is replaced.\n"
      "  --seed S       generator seed (default 1)\n"
      "  -j N           threads (default: the number of cores)\n"
      "  --quiet        no progress line\n"
      "  --reference fast|mpfr  the reference engine (bit-identical answers; default fast)\n"
      "External solvers get their rows in every table and plot (see 'toibench run --help'):\n"
      "  --engines            every engine built by 'make engines'; the section \"Engines\n"
      "                       in a simulation\" then runs each 3D engine in the dense and\n"
      "                       bullet scenes and Box2D v3 in the billiards break\n"
      "                       (doc/engines.md)\n"
      "  --solver LIB[:SYM]   a C plug-in (toi_solver.h); repeatable\n"
      "  --solver-cmd CMD     a command speaking the subprocess protocol; repeatable\n"
      "  --solver-cmd-precision P  the precision (binary64, binary32) of the\n"
      "                       --solver-cmd commands that follow it\n"
      "  --timeout SEC        seconds allowed per answer, at most 1e6 (default 10)\n"
      "  --solver-log FILE    every line the solvers wrote, none left out (the terminal\n"
      "                       shows the first 20 per solver in the whole report, then a\n"
      "                       count); not inside --out\n"
      "Precision: every column is scored in its own precision (an engine declaring\n"
      "binary32 receives each case rounded to binary32 and is scored in binary32 ULPs\n"
      "against the exact answer of the rounded case). A binary32 section follows the\n"
      "binary64 one when some candidate computes in binary32 (the formulations'\n"
      "binary32 variants, such engines and solvers): the binary32 families (every\n"
      "number a float, 'toibench gen --precision binary32'), scored against the\n"
      "binary32 reference.\n"
      "gnuplot (Debian package gnuplot-nox) must be installed.\n\n"
      "  --check DIR    open the report in DIR in headless Chromium (Debian package\n"
      "                 chromium, or $TOIBENCH_CHROMIUM): every image must load and the\n"
      "                 page log no error; saves a screenshot (default DIR/screenshot.png,\n"
      "                 or --screenshot FILE). Exit 0 when the page is sound, 1 otherwise.\n");
}

static int usage_free(candlist *solv, const char *msg) {
  candlist_free(solv);
  return cli_usage_error("report", "%s", msg);
}

/* Appends the candidates of the list `from` (emptied) to solv, skipping names already there. */
static int add_solvers(candlist *solv, candlist *from) {
  int rc = 0;
  for (size_t k = 0; k < from->n; k++)
    if (!rc && !candlist_has(solv, solv->n, from->v[k].name)) rc = candlist_push(solv, &from->v[k]);
  candlist_free(from);
  return rc;
}

/* gnuplot on the PATH, found without a shell. */
static int gnuplot_present(void) {
  const char *path = getenv("PATH");
  char *copy = strdup(path && path[0] ? path : "/usr/bin:/bin");
  int found = 0;
  for (char *save = NULL, *dir = copy ? strtok_r(copy, ":", &save) : NULL; dir && !found;
       dir = strtok_r(NULL, ":", &save)) {
    char full[4200];
    snprintf(full, sizeof full, "%s/gnuplot", dir);
    found = access(full, X_OK) == 0;
  }
  free(copy);
  return found;
}

/* The reproducing command: every option but those that do not change the
 * content (-j, --quiet). */
static void record_command(rep_opts *o, int argc, char **argv) {
  size_t cmdlen = (size_t)snprintf(o->command, sizeof o->command, "toibench report");
  for (int i = 1; i < argc && cmdlen < sizeof o->command; i++) {
    if (!strcmp(argv[i], "--quiet")) continue;
    if (!strcmp(argv[i], "-j")) {
      i++;
      continue;
    }
    if (!strncmp(argv[i], "-j", 2)) continue;
    cmdlen += (size_t)snprintf(o->command + cmdlen, sizeof o->command - cmdlen, " %s", argv[i]);
  }
}

/* --solver or --solver-cmd with its value. EXIT_OK or an exit code. */
static int given_solver(candlist *solv, const char *a, const char *v, toi_precision cmd_prec, double timeout) {
  candlist defs = {0};
  if (!strcmp(a, "--solver")) {
    char err[600];
    toi_candidate *c;
    size_t n;
    cli_msg_text t;
    toi_msg m = cli_msg_into(&t, err, sizeof err);
    toi_status st = toi_candidates_plugin_timeout(&c, &n, v, timeout, &m, NULL, 0);
    if (st == TOI_ERR_INPUT) return usage_free(solv, err);
    if (st != TOI_OK) return cli_error("report: %s", err), candlist_free(solv), EXIT_RUNTIME;
    for (size_t j = 0; j < n; j++) candlist_take(&defs, &c[j]);
    free(c);
  } else {
    toi_candidate c;
    if (cli_check_command("report", v)) return candlist_free(solv), EXIT_USAGE;
    if (toi_candidate_command_prec(&c, v, cmd_prec) || candlist_take(&defs, &c)) return EXIT_RUNTIME;
  }
  return add_solvers(solv, &defs) ? EXIT_RUNTIME : EXIT_OK;
}

/* One option at argv[*i] (and its value). EXIT_OK, -1 for --help, or an exit code. */
/* --solver-log FILE, when given. */
static const char *solver_log_path;

static int parse_option(rep_opts *o, candlist *solv, toi_precision *cmd_prec, int argc, char **argv, int *i) {
  const char *a = argv[*i], *v = *i + 1 < argc ? argv[*i + 1] : NULL;
  if (!strcmp(a, "--help") || !strcmp(a, "-h")) return -1;
  if (!strcmp(a, "--quick")) o->quick = 1;
  else if (!strcmp(a, "--quiet")) o->progress = NULL;
  else if (!strcmp(a, "--engines")) o->engines = 1;
  else if (!strncmp(a, "-j", 2) && a[2]) {
    if (sweep_parse_jobs(a + 2, &o->jobs)) return usage_free(solv, "-j needs 1..1024");
  } else if (!v) {
    return cli_usage_error_near("report", CLI_NAMES_OPTIONS, a, "unknown option or missing value '%s'", a);
  } else {
    (*i)++;
    if (!strcmp(a, "--suite")) {
      o->suite_file = v;
    } else if (!strcmp(a, "--out")) {
      o->out_dir = v;
    } else if (!strcmp(a, "--solver-log")) {
      if (!v[0]) return usage_free(solv, "--solver-log needs a file name");
      solver_log_path = v;
    } else if (!strcmp(a, "--check")) {
      o->check_dir = v;
    } else if (!strcmp(a, "--screenshot")) {
      o->screenshot = v;
    } else if (!strcmp(a, "--seed")) {
      unsigned long long seed;
      if (cli_parse_u64(v, &seed)) return usage_free(solv, "--seed needs an integer");
      o->seed = seed;
    } else if (!strcmp(a, "-j")) {
      if (sweep_parse_jobs(v, &o->jobs)) return usage_free(solv, "-j needs 1..1024");
    } else if (!strcmp(a, "--reference")) {
      if (toi_ref_engine_parse(&o->engine, v) != TOI_OK)
        return candlist_free(solv), cli_usage_error_near("report", CLI_NAMES_REFERENCE, v,
                                                         "--reference needs fast or mpfr, got '%s'", v);
    } else if (!strcmp(a, "--timeout")) {
      if (cli_parse_timeout("report", v, &o->timeout) != EXIT_OK) {
        candlist_free(solv);
        return EXIT_USAGE;
      }
    } else if (!strcmp(a, "--solver") || !strcmp(a, "--solver-cmd")) {
      return given_solver(solv, a, v, *cmd_prec, cli_timeout_scan(argc, argv));
    } else if (!strcmp(a, "--solver-cmd-precision")) {
      if (cli_parse_precision("report", a, v, cmd_prec)) {
        candlist_free(solv);
        return EXIT_USAGE;
      }
    } else {
      return cli_usage_error_near("report", CLI_NAMES_OPTIONS, a, "unknown option or missing value '%s'", a);
    }
  }
  return EXIT_OK;
}

/* The candidates: every formulation, then the external solvers given, then
   (--engines) every built engine. EXIT_OK or an exit code. */
static int candidates(const rep_opts *o, candlist *solv, candlist *cands) {
  if (o->engines) {
    toi_candidate *v;
    size_t n;
    if (toi_candidates_engines(&v, &n, &cli_msg_stderr) != TOI_OK) {
      cli_error("report: out of memory");
      return EXIT_RUNTIME;
    }
    candlist defs = {0};
    for (size_t j = 0; j < n; j++) candlist_take(&defs, &v[j]);
    free(v);
    if (n == 0) {
      cli_error("report: --engines: no engine is built (run 'make engines')");
      return EXIT_RUNTIME;
    }
    if (add_solvers(solv, &defs)) return EXIT_RUNTIME;
  }
  if (!gnuplot_present()) {
    cli_error("report: gnuplot is not installed (Debian package gnuplot-nox: apt-get install gnuplot-nox,"
              " or run 'make deps'); no report was written");
    return EXIT_RUNTIME;
  }
  int rc = cli_add_named("report", cands, "all");
  for (size_t k = 0; k < solv->n && rc == EXIT_OK; k++)
    if (candlist_push(cands, &solv->v[k])) rc = EXIT_RUNTIME;
  return rc;
}

/* The main suite: the --suite file, or the mixed family. EXIT_OK or an exit code. */
static int sections(rep_data *d) {
  if (!d->opts.suite_file) return report_sections(d, NULL, 0) ? EXIT_RUNTIME : EXIT_OK;
  toi_caselist list = {0};
  char *paths[1] = {(char *)d->opts.suite_file};
  int rc = cli_read_case_files(&list, 1, paths);
  if (rc != EXIT_OK) {
    toi_caselist_free(&list);
    return rc;
  }
  report_sections(d, list.items, list.count); /* takes the cases */
  return EXIT_OK;
}

/* Measures and writes. */
static int make_report(rep_data *d) {
  if (report_measure(d) || report_write(d, d->opts.out_dir)) return EXIT_RUNTIME;
  fprintf(stderr, "report: written to %s/index.html in %.1f s\n", d->opts.out_dir, d->seconds_total);
  return EXIT_OK;
}

/* --check DIR --screenshot FILE: FILE is none of the report's own files (its
   screenshot.png, the default, aside) and can be created. EXIT_OK or an exit code. */
static int check_screenshot(const char *dir, const char *shot) {
  char def[PATH_MAX + 32];
  struct stat a, b;
  snprintf(def, sizeof def, "%s/screenshot.png", dir);
  int is_default = stat(shot, &a) == 0 && stat(def, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
  if (!is_default && cli_path_inside(shot, dir))
    return cli_usage_error("report", "--screenshot %s is a file of the report in %s: refusing to overwrite it", shot,
                           dir);
  const cli_file outs[] = {{"--screenshot", shot}};
  return cli_outputs_check("report", outs, 1, NULL, 0);
}

/* --out DIR: it holds none of the inputs (--suite, --solver), which replacing it would remove. */
static int check_out_dir(const rep_opts *o, int argc, char **argv) {
  const cli_file dir = {"--out", o->out_dir}, suite = {"--suite", o->suite_file};
  cli_inputs in;
  if (cli_inputs_gather(&in, NULL, 0, argc, argv, &suite, 1)) return EXIT_RUNTIME;
  int rc = cli_outdir_check("report", &dir, in.v, in.n);
  cli_inputs_free(&in);
  return rc;
}

int cmd_report(int argc, char **argv) {
  rep_data d;
  memset(&d, 0, sizeof d);
  d.opts.out_dir = "reports/out";
  d.opts.seed = 1;
  d.opts.jobs = sweep_default_jobs();
  d.opts.progress = isatty(2) ? &cli_progress_stderr : NULL;
  d.opts.timeout = 10;
  d.opts.msg = &cli_msg_stderr;
  record_command(&d.opts, argc, argv);
  candlist solv = {0}, cands = {0}; /* solv: external solvers, in command-line order, then the engines */
  int rc = EXIT_OK;
  toi_precision cmd_prec = TOI_BINARY64; /* --solver-cmd-precision: for the --solver-cmd that follow */
  for (int i = 1; i < argc && rc == EXIT_OK; i++) rc = parse_option(&d.opts, &solv, &cmd_prec, argc, argv, &i);
  if (rc < 0) {
    candlist_free(&solv);
    help();
    return EXIT_OK;
  }
  if (rc == EXIT_OK && d.opts.check_dir) { /* check a report, make none */
    candlist_free(&solv);
    if (d.opts.screenshot && (rc = check_screenshot(d.opts.check_dir, d.opts.screenshot)) != EXIT_OK) return rc;
    return report_check(d.opts.check_dir, d.opts.screenshot);
  }
  if (rc == EXIT_OK && d.opts.screenshot) return usage_free(&solv, "--screenshot goes with --check DIR");
  if (rc == EXIT_OK && d.opts.quick && d.opts.suite_file)
    return usage_free(&solv, "--quick and --suite exclude each other");
  /* Before the work, not after it: an input inside DIR first (a usage error), then DIR itself. */
  if (rc == EXIT_OK && (rc = check_out_dir(&d.opts, argc, argv)) != EXIT_OK) {
    candlist_free(&solv);
    return rc;
  }
  if (rc == EXIT_OK && report_out_check(d.opts.out_dir)) {
    candlist_free(&solv);
    return EXIT_RUNTIME;
  }
  if (rc == EXIT_OK && solver_log_path) { /* the log is kept apart from the folder the report replaces */
    const cli_file outs[] = {{"--solver-log", solver_log_path}};
    if (cli_path_inside(solver_log_path, d.opts.out_dir))
      rc = cli_usage_error("report", "--solver-log %s is inside --out %s, which the report replaces", solver_log_path,
                           d.opts.out_dir);
    else
      rc = cli_outputs_check("report", outs, 1, NULL, 0);
  }
  cli_solver_log log;
  int log_open = rc == EXIT_OK && !cli_solver_log_open(&log, solver_log_path);
  if (rc == EXIT_OK && !log_open) rc = EXIT_RUNTIME;
  if (log_open) d.opts.solver_log = cli_solver_log_sink(&log);
  if (rc == EXIT_OK) rc = candidates(&d.opts, &solv, &cands);
  candlist_free(&solv);
  d.cands = cands.v;
  d.ncand = cands.n;
  if (rc == EXIT_OK && report_columns(&d)) rc = EXIT_RUNTIME;
  if (rc == EXIT_OK) rc = sections(&d);
  if (rc == EXIT_OK && report_part(&d, TOI_BINARY32)) { /* the binary32 section, when it has a candidate */
    cli_error("report: out of memory");
    rc = EXIT_RUNTIME;
  }
  if (rc == EXIT_OK) rc = make_report(&d);
  if (log_open && cli_solver_log_close(&log) && rc == EXIT_OK) rc = EXIT_RUNTIME;
  report_free(&d);
  candlist_free(&cands);
  return rc;
}
