/* cmd_hunt.c: `toibench hunt`, a worst-case search for one formulation or solver (global sampling, then local search). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "cli_outcheck.h"
#include "cli_fmt.h"
#include "candlist.h"
#include "hunt.h"
#include "solvers.h"
#include "toiref.h"

static void help(void) {
  printf(
      "Usage: toibench hunt -f NAME [FAMILY] [generator options] [--budget N] [--keep K]\n"
      "                    [-o FILE] [-j N] [--quiet] [--format table|json|csv]\n"
      "       toibench hunt {-f ENGINE | --solver LIB.so[:SYMBOL] | --solver-cmd COMMAND}\n"
      "                    [FAMILY] [generator options] [--tmax T] [--timeout SEC]\n"
      "                    [--target-distance DELTA] [--budget N] [--keep K] [-o FILE]\n"
      "                    [--precision P] [--solver-cmd-precision P]\n"
      "Searches for the inputs on which formulation or solver NAME is worst, as\n"
      "worst-case searches for libm functions do:\n"
      "  1. a random global pass: cases 0 .. N/2-1 of FAMILY (default mixed) scored\n"
      "     against the certified reference. Kept: the K largest finite ULP errors;\n"
      "     the K largest ratios error / (kappa 2^-53) (error beyond what the\n"
      "     conditioning of t* explains: the formulation's own loss); the first K\n"
      "     cases with a NaN or infinite time where a root exists; the first K\n"
      "     classification errors (missed, ghost, other).\n"
      "  2. a local search around each case kept by ULP error or by ratio: one input\n"
      "     (a position or velocity component or a radius) is moved by a few ulps\n"
      "     (1 to 4 steps of nextafter; one move in four up to 2^16 steps) and the\n"
      "     move is kept when the case's ULP error (or ratio) does not decrease; a\n"
      "     move that flips the classification is recorded as a classification\n"
      "     error found. N/2 evaluations in all, shared between the kept cases.\n"
      "Writes a case file (stdout or -o FILE): for each case a '# found:' line saying\n"
      "how it was found (with kappa and the ratio), a '# ulp=... bits=... class=...\n"
      "verdict=... kind=...' line with its error at search time, then the case, named\n"
      "worst-NAME-{ulp,ratio,inf,class}-NN. Deterministic for a given seed and any -j.\n"
      "Sampled maxima are lower bounds: the true worst error may be larger.\n"
      "External solvers (a built engine, a plug-in, a command; see 'toibench run\n"
      "--help') are searched the same way, their answers scored as 'run' scores them.\n"
      "They run in a child process, on batches: the global pass in calls of up to 4096\n"
      "cases; the local search in rounds (at most 64 unless a round would exceed 65536\n"
      "cases), each kept case proposing P moves per round, the whole round one call,\n"
      "each case moving to its best proposal when that does not lower its key; the\n"
      "header says the rounds and P. ULP errors are ranked against the target the\n"
      "solver is scored against (its own stated target, else --target-distance, else\n"
      "the true contact); the ratio only where that target is 0. The '# ulp=' line\n"
      "gives the error against the true contact (as 'run --rows'), then target=,\n"
      "ulp_t= and kind_t= against the target. A further list worst-NAME-fail-NN holds\n"
      "the first K cases on which the solver crashed, hung, broke the protocol or gave\n"
      "an unusable answer, the reason in the '# found:' line; declined cases are\n"
      "skipped. The search goes on after any failure; the exit status is 1 when a\n"
      "solver crashed, hung or broke the protocol (the file is still written).\n"
      "Deterministic for a given seed and a deterministic solver.\n"
      "Precision: a candidate computing in binary32 (a formulation's binary32\n"
      "variant, an engine or plug-in declaring it, a command given\n"
      "--solver-cmd-precision binary32) receives every case rounded to binary32 and\n"
      "is scored in binary32 ULPs against the exact answer of the rounded case; its\n"
      "ratios are error / (kappa 2^-24) and the local search moves inputs by steps\n"
      "of nextafterf, so every number it tries is a float.\n"
      "  -f NAME      a formulation, or a built engine solver (see 'toibench list')\n"
      "  --solver LIB.so[:SYMBOL]  a plug-in solver; a catalog of several needs SYMBOL\n"
      "  --solver-cmd COMMAND  a solver speaking the subprocess protocol\n"
      "               (exactly one of -f, --solver, --solver-cmd)\n"
      "  --tmax T, --timeout SEC, --target-distance DELTA  as in 'run' (solvers only;\n"
      "               --timeout default 10 seconds per answer)\n"
      "  --budget N   cases evaluated in all (default 20000)\n"
      "  --keep K     cases kept per list (default 8, at most 64)\n"
      "  -o FILE      output file (appears only when complete)\n"
      "  -j N         threads scoring the cases (default: the number of online cores);\n"
      "               a solver itself is called from one thread\n"
      "  --quiet      no progress line and no summary on stderr\n"
      "  --format F   the summary: table (default: text on stderr), json or csv,\n"
      "               written to stdout (with --quiet too), so the case file must go\n"
      "               to -o FILE. json: one object (toibench version, reference\n"
      "               engine and MPFR/GMP versions, candidate, precision, generator,\n"
      "               budget, the largest ULP error and error / (kappa 2^-p) found\n"
      "               as numbers, null for infinity, and exactly in KEY_hex; counts\n"
      "               of the inf, class, failure and declined lists); csv: a header\n"
      "               row, then one row of the same figures\n"
      "  --precision P  binary64 (default) or binary32: the generator's format (every\n"
      "               number of every case a value of it; see below) and, for -f\n"
      "               NAME, the formulation's variant in P\n"
      "  --solver-cmd-precision P  the precision the --solver-cmd command computes\n"
      "               in (default binary64): its inputs are rounded to P and the\n"
      "               protocol header says '# precision P'\n\n");
  gen_cli_help(stdout);
}

/* The one plug-in solver of --solver; a catalog of several needs a SYMBOL. */
static int plugin_solver(const char *arg, double timeout, toi_candidate *out) {
  char path[4096], err[600];
  toi_candidate *v;
  size_t k;
  cli_msg_text t;
  toi_msg m = cli_msg_into(&t, err, sizeof err);
  toi_status st = toi_candidates_plugin_timeout(&v, &k, arg, timeout, &m, path, sizeof path);
  if (st == TOI_ERR_INPUT) return cli_usage_error("hunt", "--solver %s", err);
  if (st != TOI_OK) return cli_error("%s", err), EXIT_RUNTIME;
  if (k > 1) {
    char names[1024] = "";
    size_t len = 0;
    for (size_t j = 0; j < k && len < sizeof names; j++)
      len += (size_t)snprintf(names + len, sizeof names - len, "%s%s (%s:%s)", j ? ", " : "", v[j].name, path,
                              ((const solver_def *)v[j].impl)->symbol);
    for (size_t j = 0; j < k; j++) toi_candidate_free(&v[j]);
    free(v);
    return cli_usage_error("hunt", "--solver %s holds %zu solvers: %s; hunt searches one, name it with LIB.so:SYMBOL",
                           path, k, names);
  }
  *out = v[0];
  free(v);
  return EXIT_OK;
}

/* The command line of a hunt. */
typedef struct hunt_args {
  gen_cli g;
  unsigned long long budget, keep;
  const char *out, *name, *plugin, *command;
  int jobs, quiet, given, solver_opts_given;
  cli_format format; /* the summary's */
  toi_precision cmd_precision; /* --solver-cmd-precision */
  cli_args shared; /* --tmax, --timeout, --target-distance */
  const sweep_dist *dist; /* toibench-mpi: the processes sharing the search (NULL: this one alone) */
} hunt_args;

/* One option at argv[*i] (and its value). EXIT_OK, -1 for --help, or an exit code. */
static int parse_option(hunt_args *h, int argc, char **argv, int *i) {
  const char *a = argv[*i];
  if (!strcmp(a, "--help") || !strcmp(a, "-h")) return -1;
  if (!strcmp(a, "--budget") || !strcmp(a, "--keep")) {
    if (*i + 1 >= argc || cli_parse_u64(argv[*i + 1], a[2] == 'b' ? &h->budget : &h->keep))
      return cli_usage_error("hunt", "%s needs an unsigned integer", a);
    (*i)++;
  } else if (!strcmp(a, "-o") || !strcmp(a, "-f") || !strcmp(a, "--solver") || !strcmp(a, "--solver-cmd")) {
    if (*i + 1 >= argc) return cli_usage_error("hunt", "%s needs a value", a);
    if (a[1] == 'o') {
      h->out = argv[++*i];
      return EXIT_OK;
    }
    const char **slot = a[1] == 'f' ? &h->name : !strcmp(a, "--solver") ? &h->plugin : &h->command;
    *slot = argv[++*i];
    h->given++;
  } else if (!strcmp(a, "--tmax") || !strcmp(a, "--timeout") || !strcmp(a, "--target-distance")) {
    if (cli_args_take(&h->shared, "hunt", CLI_OPT_TMAX | CLI_OPT_TIMEOUT | CLI_OPT_TARGET, argc, argv, i) < 0)
      return EXIT_USAGE;
    h->solver_opts_given = 1;
  } else if (!strcmp(a, "--solver-cmd-precision")) {
    if (*i + 1 >= argc) return cli_usage_error("hunt", "%s needs a precision", a);
    if (cli_parse_precision("hunt", a, argv[++*i], &h->cmd_precision)) return EXIT_USAGE;
  } else if (!strncmp(a, "-j", 2)) {
    const char *v = a[2] ? a + 2 : (*i + 1 < argc ? argv[++*i] : "");
    if (sweep_parse_jobs(v, &h->jobs)) return cli_usage_error("hunt", "-j needs a number in 1..1024");
  } else if (!strcmp(a, "--format")) {
    if (*i + 1 >= argc) return cli_usage_error("hunt", "%s needs a value", a);
    if (cli_parse_format("hunt", argv[++*i], &h->format)) return EXIT_USAGE;
  } else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
    h->quiet = 1;
  } else {
    int r = gen_cli_option(&h->g, "hunt", argc, argv, i);
    if (r < 0) return EXIT_USAGE;
    if (r == 0) return cli_unknown_option("hunt", a);
  }
  return EXIT_OK;
}

/* -f NAME with --precision P: the formulation's variant in P, or an engine
   (which keeps the precision it declares). EXIT_OK or an exit code. */
static int pick_variant(const hunt_args *h, toi_candidate *cand) {
  toi_precision q = h->g.precision;
  const toi_formulation *f = toi_formulation_find(h->name);
  if (!f) {
    if (toi_candidate_find(cand, h->name, &cli_msg_stderr))
      return cli_usage_error_near("hunt", CLI_NAMES_CANDIDATES, h->name,
                                  "unknown formulation or solver '%s' (see 'toibench list')", h->name);
    return EXIT_OK; /* an engine: solver options allowed */
  }
  if (toi_candidate_formulation_prec(cand, f, q)) {
    char have[1024];
    cli_variants_note(have, sizeof have, q);
    return cli_usage_error("hunt", "formulation '%s' has no %s variant (%s%s)", h->name, toi_precision_name(q),
                           strstr(have, "no formulation") == have ? "" : "those with one: ", have);
  }
  if (h->solver_opts_given)
    return cli_usage_error("hunt", "--tmax, --timeout and --target-distance apply to solvers, not to formulation %s",
                           h->name);
  return EXIT_OK;
}

/* The candidate the command line names. EXIT_OK or an exit code. */
static int pick(const hunt_args *h, toi_candidate *cand) {
  if (h->given == 0)
    return cli_usage_error("hunt", "-f NAME, --solver LIB.so[:SYMBOL] or --solver-cmd COMMAND is required");
  if (h->given > 1)
    return cli_usage_error("hunt", "one formulation or solver at a time: give only one of -f, --solver, --solver-cmd");
  if (h->command && !h->command[0]) return cli_usage_error("hunt", "--solver-cmd needs a command");
  if (h->name && cli_check_names("hunt", h->name) != EXIT_OK) return EXIT_USAGE;
  if (h->plugin) return plugin_solver(h->plugin, h->shared.timeout, cand);
  if (h->command && cli_check_command("hunt", h->command)) return EXIT_USAGE;
  if (h->command) return toi_candidate_command_prec(cand, h->command, h->cmd_precision) ? EXIT_RUNTIME : EXIT_OK;
  if (h->g.has_precision && h->g.precision != TOI_BINARY64) return pick_variant(h, cand);
  if (toi_candidate_find(cand, h->name, &cli_msg_stderr))
    return cli_usage_error_near("hunt", CLI_NAMES_CANDIDATES, h->name,
                                "unknown formulation or solver '%s' (see 'toibench list')", h->name);
  if (!(cand->flags & TOI_CAND_EXTERNAL) && h->solver_opts_given) {
    toi_candidate_free(cand);
    return cli_usage_error("hunt", "--tmax, --timeout and --target-distance apply to solvers, not to formulation %s",
                           h->name);
  }
  return EXIT_OK;
}

/* The candidate's name as it can stand in a case ID (an external one's may hold anything). */
static void id_name(char *dst, size_t n, const char *name) {
  size_t j = 0;
  for (const char *s = name; *s && j + 1 < n && j < 40; s++)
    dst[j++] = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-", *s) ? *s : '-';
  dst[j] = 0;
}

/* Writes '# found:', the score line (score_line, or the '# ulp=...' line when
   NULL) and the case named worst-NAME-WHAT-RANK. */
static void hunt_write_found(FILE *f, const hunt_found *fd, const char *name, const char *what, int rank,
                      const char *score_line) {
  toi_case c = fd->c;
  snprintf(c.id, sizeof c.id, "worst-%s-%s-%02d", name, what, rank);
  fprintf(f, "\n# found: %s\n", fd->note);
  if (score_line)
    fprintf(f, "%s\n", score_line);
  else
    fprintf(f, "# ulp=%.6g bits=%.6g class=%s verdict=%s kind=%s\n", fd->sc.ulp, fd->sc.bits,
            toi_class_name(fd->sc.ref_cls), toi_class_name(fd->sc.verdict), sweep_kind_name(fd->sc.kind));
  toi_status ws = toi_write_case(f, &c);
  (void)ws; /* the stream's error is seen when it is closed */
}

/* A list; a candidate scored against targets gets its target in the score line. */
static void write_list(FILE *f, const hunt_list *l, const toi_candidate *cand, const char *name, const char *what,
                       int failed) {
  for (int k = 0; k < l->n; k++) {
    const hunt_found *fd = &l->items[k];
    char line[440];
    int external = (cand->flags & TOI_CAND_EXTERNAL) != 0, other = cand->precision != TOI_BINARY64;
    if (!external && other)
      snprintf(line, sizeof line, "# ulp=%.6g bits=%.6g class=%s verdict=%s kind=%s", fd->sc.ulp, fd->sc.bits,
               toi_class_name(fd->sc.ref_cls), toi_class_name(fd->sc.verdict), sweep_kind_name(fd->sc.kind));
    else if (failed)
      snprintf(line, sizeof line, "# ulp=nan bits=nan class=%s verdict=failed kind=failed",
               toi_class_name(fd->sc.ref_cls));
    else
      snprintf(line, sizeof line, "# ulp=%.6g bits=%.6g class=%s verdict=%s kind=%s target=%.6g ulp_t=%.6g kind_t=%s",
               fd->sc.ulp, fd->sc.bits, toi_class_name(fd->sc.ref_cls), toi_class_name(fd->sc.verdict),
               sweep_kind_name(fd->sc.kind), fd->target, fd->err, sweep_kind_name(fd->tkind));
    if (other) { /* the figures' precision (binary64 lines keep their bytes) */
      size_t len = strlen(line);
      snprintf(line + len, sizeof line - len, " precision=%s", toi_precision_name(cand->precision));
    }
    hunt_write_found(f, fd, name, what, k + 1, external || other ? line : NULL);
  }
}

/* The precision's p (53 for binary64): the ratio is error / (kappa 2^-p). */
static int prec_p(const toi_candidate *cand) { return toi_precision_get(cand->precision)->p; }

/* A candidate in another precision than binary64: one more header line (binary64 files keep their bytes). */
static void write_header_precision(FILE *f, const toi_candidate *cand) {
  if (cand->precision == TOI_BINARY64) return;
  const char *q = toi_precision_name(cand->precision);
  fprintf(f,
          "# Precision %s: %s receives every case rounded to %s and is scored in %s ULPs\n"
          "# against the exact answer of the rounded case; moves are ulps of %s.\n",
          q, cand->name, q, q, q);
}

static void write_header_builtin(FILE *f, const hunt_result *r, const toi_candidate *cand, const char *desc,
                                 const hunt_args *h) {
  fprintf(f, "# toibench hunt -f %s %s budget=%llu keep=%llu\n", cand->name, desc, h->budget, h->keep);
  fprintf(f,
          "# Worst cases of %s found by a random global pass over %" PRIu64 " cases and a local\n"
          "# search of %" PRIu64 " steps around each of the %d kept by ULP error or by error /\n"
          "# (kappa 2^-%d) (inputs moved by a few ulps).\n"
          "# Sampled maxima are lower bounds: the true worst error of %s may be larger.\n",
          cand->name, r->global, r->rounds, r->ncands, prec_p(cand), cand->name);
  write_header_precision(f, cand);
}

static void write_header_external(FILE *f, const hunt_result *r, const toi_candidate *cand, const char *desc,
                                  const hunt_args *h, const char *spec) {
  const char *name = cand->name;
  /* The command as given, on one comment line whatever it holds. */
  fputs("# toibench hunt ", f);
  for (const char *p = spec; *p; p++) fputc((unsigned char)*p < 0x20 || *p == 0x7f ? ' ' : *p, f);
  fprintf(f, " %s budget=%" PRIu64 " keep=%d timeout=%g", desc, (uint64_t)h->budget, (int)h->keep, h->shared.timeout);
  if (isfinite(h->shared.tmax)) fprintf(f, " tmax=%a", h->shared.tmax);
  fprintf(f, " target-distance=%a\n", h->shared.delta);
  fprintf(f,
          "# Worst cases of solver %s found by a random global pass over %" PRIu64 " cases (solver calls of\n"
          "# up to %d cases) and a local search of %" PRIu64 " rounds x %" PRIu64 " proposals around each of\n"
          "# the %d kept by ULP error or by error / (kappa 2^-%d) (inputs moved by a few ulps; one solver\n"
          "# call per round): %" PRIu64 " cases sent to the solver.\n",
          name, r->global, 4096, r->rounds, r->per, r->ncands, prec_p(cand), r->sent);
  write_header_precision(f, cand);
  if (r->aimed)
    fprintf(f,
            "# ULP errors ranked against the solver's target: its own where it states one (%" PRIu64 " answers),\n"
            "# else %.6g (--target-distance); %" PRIu64 " answers aim at a non-zero separation (no ratio).\n",
            r->stated, h->shared.delta, r->aimed);
  else
    fprintf(f, "# ULP errors ranked against the true contact (target 0).\n");
  fprintf(f,
          "# The solver failed on %" PRIu64 " cases (%" PRIu64 " lost to crashes, hangs or protocol errors)\n"
          "# and declined %" PRIu64 ". Sampled maxima are lower bounds: the true worst error of %s may be larger.\n",
          r->failed, r->malfunctions, r->declined, name);
}

/* The case file: header, then the lists (a failure list for a candidate that can fail). */
static int write_hunt(const hunt_result *r, const toi_candidate *cand, const toi_gen_opts *o, const hunt_args *h,
                      const char *spec) {
  int external = (cand->flags & TOI_CAND_EXTERNAL) != 0;
  char desc[512], name[64];
  toi_gen_opts_format(desc, sizeof desc, o);
  if (external) id_name(name, sizeof name, cand->name);
  else snprintf(name, sizeof name, "%s", cand->name);
  cli_out w;
  if (cli_out_open(&w, h->out)) return EXIT_RUNTIME;
  if (external) write_header_external(w.f, r, cand, desc, h, spec);
  else write_header_builtin(w.f, r, cand, desc, h);
  write_list(w.f, &r->best[HUNT_BY_ULP], cand, name, "ulp", 0);
  write_list(w.f, &r->best[HUNT_BY_RATIO], cand, name, "ratio", 0);
  write_list(w.f, &r->lists[HUNT_L_INF], cand, name, "inf", 0);
  write_list(w.f, &r->lists[HUNT_L_BAD], cand, name, "class", 0);
  if (external) write_list(w.f, &r->lists[HUNT_L_FAIL], cand, name, "fail", 1);
  return cli_out_commit(&w) ? EXIT_RUNTIME : EXIT_OK;
}

/* The summary on stderr. */
static void summary(const hunt_result *r, const toi_candidate *cand) {
  int external = (cand->flags & TOI_CAND_EXTERNAL) != 0;
  fprintf(stderr, "hunt %s:", cand->name);
  if (cand->precision != TOI_BINARY64) fprintf(stderr, " (in %s)", toi_precision_name(cand->precision));
  const hunt_found *mu = hunt_largest(r->best, 2, HUNT_BY_ULP), *mr = hunt_largest(r->best, 2, HUNT_BY_RATIO);
  if (mu && external)
    fprintf(stderr, " largest finite ULP error found %.6g (%s);", mu->err, mu->target == 0 ? "ulp" : "ulp_t");
  else if (mu)
    fprintf(stderr, " largest finite ULP error found %.6g (bits %.6g);", mu->err, mu->sc.bits);
  if (mr) fprintf(stderr, " largest error / (kappa 2^-%d) found %.6g;", prec_p(cand), mr->ratio);
  if (external)
    fprintf(stderr,
            "\n  %d cases with a NaN or infinite time where a root exists, %d classification errors,\n"
            "  %" PRIu64 " failed cases, %" PRIu64 " declined.\n"
            "  Sampled maxima are lower bounds: the true worst error may be larger.\n",
            r->lists[HUNT_L_INF].n, r->lists[HUNT_L_BAD].n, r->failed, r->declined);
  else
    fprintf(stderr,
            "\n  %d cases with a NaN or infinite time where a root exists, %d classification errors.\n"
            "  Sampled maxima are lower bounds: the true worst error may be larger.\n",
            r->lists[HUNT_L_INF].n, r->lists[HUNT_L_BAD].n);
}

/* The summary's figures, for --format json and csv. */
typedef struct hunt_figs {
  double ulp, bits, ratio;
  const char *against; /* "contact" or "target": what the largest ULP error is measured against */
  int external;
} hunt_figs;

static void figures(const hunt_result *r, const toi_candidate *cand, hunt_figs *x) {
  const hunt_found *mu = hunt_largest(r->best, 2, HUNT_BY_ULP), *mr = hunt_largest(r->best, 2, HUNT_BY_RATIO);
  x->external = (cand->flags & TOI_CAND_EXTERNAL) != 0;
  x->ulp = mu ? mu->err : NAN;
  x->bits = mu ? mu->sc.bits : NAN;
  x->ratio = mr ? mr->ratio : NAN;
  x->against = mu && x->external && mu->target != 0 ? "target" : "contact";
}

/* hunt --format json: one object on stdout. */
static void summary_json(FILE *f, const hunt_result *r, const toi_candidate *cand, const hunt_args *h,
                         const char *desc) {
  hunt_figs x;
  figures(r, cand, &x);
  fprintf(f, "{\"format\": \"toibench-hunt\", \"format_version\": 1, \"toibench\": \"%s\",\n", TOI_VERSION);
  fprintf(f, " \"reference\": {\"engine\": \"%s\", \"mpfr\": ", toi_ref_engine_name(TOI_REF_FAST));
  cli_json_str(f, toi_ref_mpfr_version());
  fputs(", \"gmp\": ", f);
  cli_json_str(f, toi_ref_gmp_version());
  fputs("},\n \"candidate\": ", f);
  cli_json_str(f, cand->name);
  fprintf(f, ", \"precision\": \"%s\", \"external\": %s, \"generator\": ", toi_precision_name(cand->precision),
          x.external ? "true" : "false");
  cli_json_str(f, desc);
  fprintf(f, ",\n \"budget\": %llu, \"keep\": %llu, \"global_cases\": %" PRIu64 ", \"cases_file\": ", h->budget,
          h->keep, r->global);
  cli_json_str(f, h->out);
  fputs(",\n ", f);
  cli_json_num_hex(f, "largest_ulp", x.ulp);
  fprintf(f, ", \"largest_ulp_against\": \"%s\", ", x.against);
  cli_json_num_hex(f, "largest_ulp_bits", x.bits);
  fputs(",\n ", f);
  cli_json_num_hex(f, "largest_ratio", x.ratio);
  fprintf(f, ", \"ratio_p\": %d,\n \"inf_cases\": %d, \"classification_errors\": %d", prec_p(cand),
          r->lists[HUNT_L_INF].n, r->lists[HUNT_L_BAD].n);
  if (x.external) fprintf(f, ", \"failed\": %" PRIu64 ", \"declined\": %" PRIu64 "}\n", r->failed, r->declined);
  else fputs(", \"failed\": null, \"declined\": null}\n", f);
}

/* hunt --format csv: a header row and one row on stdout. */
static void summary_csv(FILE *f, const hunt_result *r, const toi_candidate *cand) {
  hunt_figs x;
  figures(r, cand, &x);
  fputs("candidate,precision,external,largest_ulp,largest_ulp_against,largest_ulp_bits,largest_ratio,ratio_p,"
        "inf_cases,classification_errors,failed,declined\n",
        f);
  cli_csv_str(f, cand->name);
  fprintf(f, ",%s,%d,", toi_precision_name(cand->precision), x.external);
  cli_csv_num(f, x.ulp);
  fprintf(f, ",%s,", x.against);
  cli_csv_num(f, x.bits);
  fputc(',', f);
  cli_csv_num(f, x.ratio);
  fprintf(f, ",%d,%d,%d,", prec_p(cand), r->lists[HUNT_L_INF].n, r->lists[HUNT_L_BAD].n);
  if (x.external) fprintf(f, "%" PRIu64 ",%" PRIu64 "\n", r->failed, r->declined);
  else fputs(",\n", f);
}

/* The summary in the format asked for. */
static void tell(const hunt_result *r, const toi_candidate *cand, const toi_gen_opts *o, const hunt_args *h) {
  char desc[512];
  toi_gen_opts_format(desc, sizeof desc, o);
  if (h->format == CLI_FMT_JSON) summary_json(stdout, r, cand, h, desc);
  else if (h->format == CLI_FMT_CSV) summary_csv(stdout, r, cand);
  else if (!h->quiet) summary(r, cand);
}

/* Searches, writes, tells. */
static int hunt_run(const hunt_args *h, const toi_candidate *cand, const toi_gen_opts *o) {
  char spec[4200];
  snprintf(spec, sizeof spec, "%s %s", h->plugin ? "--solver" : h->command ? "--solver-cmd" : "-f",
           h->plugin ? h->plugin : h->command ? h->command : h->name);
  toi_quota quota = {0};
  int lead = sweep_dist_lead(h->dist); /* with processes sharing the search, rank 0 writes and tells */
  hunt_opts ho = {o, h->budget, (int)h->keep, h->jobs, h->shared.tmax, h->shared.timeout, h->shared.delta,
                  TOI_REF_FAST, &cli_msg_stderr, !h->quiet && lead && isatty(2) ? &cli_progress_stderr : NULL, &quota,
                  h->dist};
  hunt_result *r = malloc(sizeof *r);
  int rc = EXIT_RUNTIME;
  if (!r) cli_error("hunt: out of memory");
  else if (!hunt_search(r, cand, &ho)) rc = lead ? write_hunt(r, cand, o, h, spec) : EXIT_OK;
  if (rc == EXIT_OK && lead) tell(r, cand, o, h);
  if (r && rc == EXIT_OK && lead && (r->malfunctions || r->protocol_errors)) {
    cli_error("solver %s: %" PRIu64 " case%s lost to crashes, hangs or protocol errors (the fail list shows the "
              "first); %" PRIu64 " protocol error%s outside any case",
              cand->name, r->malfunctions, r->malfunctions == 1 ? "" : "s", r->protocol_errors,
              r->protocol_errors == 1 ? "" : "s");
    rc = EXIT_RUNTIME;
  }
  if (cand->flags & TOI_CAND_EXTERNAL) solver_quota_report(cand->name, &quota, &cli_msg_stderr);
  free(r);
  return rc;
}

/* Before the search: -o is not the --solver plug-in and can be created. Rank
   0 writes it, so rank 0 checks and every process ends with its verdict. */
static int check_outputs(const hunt_args *h, int argc, char **argv) {
  const cli_file outs[] = {{"-o", h->out ? h->out : "-"}};
  int lead = sweep_dist_lead(h->dist);
  int rc = lead ? cli_outputs_check_args("hunt", outs, 1, NULL, 0, argc, argv, NULL, 0) : EXIT_OK;
  return (int)sweep_dist_share(h->dist, (uint64_t)rc);
}

/* toibench hunt; toibench-mpi gives dist, the processes sharing the search. */
int cmd_hunt_dist(int argc, char **argv, const sweep_dist *dist) {
  hunt_args h;
  memset(&h, 0, sizeof h);
  h.dist = dist;
  gen_cli_init(&h.g);
  h.budget = 20000;
  h.keep = 8;
  h.jobs = sweep_default_jobs();
  if (cli_args_init(&h.shared, argc)) return EXIT_RUNTIME;
  int rc = EXIT_OK;
  for (int i = 1; i < argc && rc == EXIT_OK; i++) rc = parse_option(&h, argc, argv, &i);
  cli_args_free(&h.shared); /* hunt takes no files: a FAMILY is a generator option */
  if (rc < 0) {
    help();
    return EXIT_OK;
  }
  if (rc != EXIT_OK) return rc;
  toi_candidate cand;
  if ((rc = pick(&h, &cand)) != EXIT_OK) return rc;
  toi_gen_opts o;
  if (h.keep < 1 || h.keep > HUNT_MAXKEEP) rc = cli_usage_error("hunt", "--keep must be in 1..%d", HUNT_MAXKEEP);
  else if (h.budget < 2) rc = cli_usage_error("hunt", "--budget must be at least 2");
  else if (h.format != CLI_FMT_TABLE && (!h.out || !strcmp(h.out, "-")))
    rc = cli_usage_error("hunt", "--format %s writes the summary to stdout: give the case file -o FILE",
                         h.format == CLI_FMT_JSON ? "json" : "csv");
  else if (gen_cli_build(&h.g, "hunt", TOI_GEN_MIXED, &o)) rc = EXIT_USAGE;
  else if ((rc = check_outputs(&h, argc, argv)) == EXIT_OK) rc = hunt_run(&h, &cand, &o);
  toi_candidate_free(&cand);
  return rc;
}

int cmd_hunt(int argc, char **argv) { return cmd_hunt_dist(argc, argv, NULL); }
