/* cmd_hunt.c: `toibench hunt`, a worst-case search for one formulation or solver (global sampling, then local search). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "hunt_solver.h"
#include "toiref.h"

#define CHUNK 256

static void help(void) {
  printf(
      "Usage: toibench hunt -f NAME [FAMILY] [generator options] [--budget N] [--keep K]\n"
      "                    [-o FILE] [-j N] [--quiet]\n"
      "       toibench hunt {-f ENGINE | --solver LIB.so[:SYMBOL] | --solver-cmd COMMAND}\n"
      "                    [FAMILY] [generator options] [--tmax T] [--timeout SEC]\n"
      "                    [--target-distance DELTA] [--budget N] [--keep K] [-o FILE]\n"
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
      "  -f NAME      a formulation, or a built engine solver (see 'toibench list')\n"
      "  --solver LIB.so[:SYMBOL]  a plug-in solver; a catalog of several needs SYMBOL\n"
      "  --solver-cmd COMMAND  a solver speaking the subprocess protocol\n"
      "               (exactly one of -f, --solver, --solver-cmd)\n"
      "  --tmax T, --timeout SEC, --target-distance DELTA  as in 'run' (solvers only;\n"
      "               --timeout default 10 seconds per answer)\n"
      "  --budget N   cases evaluated in all (default 20000)\n"
      "  --keep K     cases kept per list (default 8, at most 64)\n"
      "  -o FILE      output file (appears only when complete)\n"
      "  -j N         threads for formulations (default: the number of online cores);\n"
      "               solvers are scored in one thread\n"
      "  --quiet      no progress line and no summary on stderr\n\n");
  gen_cli_help(stdout);
}

/* Scores fd->c; kappa and the ratio only for a finite scored error. */
static toi_status evaluate(hunt_found *fd, const toi_formulation *f, toi_ref_engine engine) {
  toi_ref ref;
  toi_status st = toi_ref_solve_engine(&ref, &fd->c, engine);
  score_opts so = {INFINITY, 0, 0, 0, engine};
  score_detail sd;
  if (st == TOI_OK) st = score_answer(&sd, f->solve(&fd->c), f->direction, f->domain, &fd->c, &ref, &so);
  fd->sc = sd.sc;
  fd->err = fd->sc.timed ? fd->sc.ulp : NAN;
  fd->kappa = fd->ratio = NAN;
  if (st != TOI_OK || !fd->sc.timed || !isfinite(fd->sc.ulp)) return st;
  st = toi_ref_kappa_engine(&fd->kappa, &fd->c, f->direction, engine);
  if (st == TOI_OK) fd->ratio = sweep_ratio(fd->sc.ulp, fd->sc.ref_t, fd->kappa);
  return st;
}

typedef struct hunt_ctx {
  const gen_opts *g;
  const toi_formulation *f;
  int keep;
  uint64_t global;
  uint64_t steps;     /* local steps per candidate */
  hunt_list *lists;   /* [worker][4]: by ulp, by ratio, infinite, misclassified */
  hunt_found *cands;  /* local search: candidates in, results out */
  hunt_found *flips;  /* local search: classification flips, one per candidate */
  int *has_flip;
  int ncands;
  sweep_run *run;
} hunt_ctx;

static int global_chunk(void *vctx, int worker, uint64_t chunk) {
  hunt_ctx *x = vctx;
  hunt_list *l = &x->lists[worker * HUNT_L_COUNT];
  uint64_t lo = chunk * CHUNK, hi = x->global - lo < CHUNK ? x->global : lo + CHUNK;
  for (uint64_t i = lo; i < hi; i++) {
    hunt_found fd;
    size_t b;
    memset(&fd, 0, sizeof fd);
    if (gen_case(&fd.c, NULL, &b, x->g, i) != TOI_OK || evaluate(&fd, x->f, TOI_REF_FAST) != TOI_OK) return 1;
    fd.index = i;
    hunt_file(l, &fd, fd.sc.kind, x->keep, i);
  }
  atomic_fetch_add(&x->run->done, hi - lo);
  return 0;
}

static int local_chunk(void *vctx, int worker, uint64_t chunk) {
  (void)worker;
  hunt_ctx *x = vctx;
  hunt_found *cur = &x->cands[chunk];
  toi_rng r;
  toi_rng_seed_item(&r, x->g->seed, HUNT_STREAM + (uint64_t)cur->by, cur->index);
  double start = hunt_key(cur);
  uint64_t raised = 0;
  for (uint64_t s = 0; s < x->steps; s++) {
    hunt_found next = *cur;
    if (!hunt_perturb(&r, &next.c)) continue;
    if (evaluate(&next, x->f, TOI_REF_FAST) != TOI_OK) return 1;
    if (hunt_misclassified(next.sc.kind)) {
      if (!x->has_flip[chunk]) {
        hunt_found *fl = &x->flips[chunk];
        *fl = next;
        snprintf(fl->note, sizeof fl->note,
                 "local search from global case %" PRIu64 " (%s, %s %.6g), step %" PRIu64
                 " flipped the classification",
                 cur->index, cur->c.id, cur->by == HUNT_BY_RATIO ? "ratio" : "ulp", hunt_key(cur), s + 1);
        x->has_flip[chunk] = 1;
      }
      continue;
    }
    if (!next.sc.timed || !isfinite(next.sc.ulp) || isnan(hunt_key(&next))) continue;
    if (hunt_key(&next) >= hunt_key(cur)) {
      raised += hunt_key(&next) > hunt_key(cur);
      *cur = next;
    }
  }
  snprintf(cur->note, sizeof cur->note,
           "global pass case %" PRIu64 " (%s, %s %.6g), then local search: %" PRIu64 " steps, %" PRIu64
           " raised it, %s %.6g; kappa %.6g, ratio %.6g",
           cur->index, cur->c.id, cur->by == HUNT_BY_RATIO ? "ratio" : "ulp", start, x->steps, raised,
           cur->by == HUNT_BY_RATIO ? "ratio" : "ulp", hunt_key(cur), cur->kappa, cur->ratio);
  atomic_fetch_add(&x->run->done, 1);
  return 0;
}

/* The search for a built-in formulation: every evaluation in this process, on -j threads. */
static int hunt_formulation(const toi_formulation *f, const gen_opts *o, unsigned long long budget,
                            unsigned long long keep, int jobs, int quiet, const char *out) {
  hunt_ctx x;
  memset(&x, 0, sizeof x);
  x.g = o;
  x.f = f;
  x.keep = (int)keep;
  x.global = budget / 2;
  x.lists = calloc((size_t)jobs * HUNT_L_COUNT, sizeof *x.lists);
  x.cands = calloc(2 * HUNT_MAXKEEP, sizeof *x.cands);
  x.flips = calloc(2 * HUNT_MAXKEEP, sizeof *x.flips);
  x.has_flip = calloc(2 * HUNT_MAXKEEP, sizeof *x.has_flip);
  hunt_list *all = calloc(HUNT_L_COUNT, sizeof *all);     /* the lists joined over workers */
  hunt_list *best = calloc(2, sizeof *best);         /* after local search: by ulp, by ratio */
  int rc = EXIT_OK;
  if (!x.lists || !x.cands || !x.flips || !x.has_flip || !all || !best) {
    cli_error("hunt: out of memory");
    rc = EXIT_RUNTIME;
    goto done;
  }
  sweep_run run;
  memset(&run, 0, sizeof run);
  run.jobs = jobs;
  run.nchunks = (x.global + CHUNK - 1) / CHUNK;
  run.fn = global_chunk;
  run.ctx = &x;
  run.total = x.global;
  run.progress = !quiet && isatty(2) ? &cli_progress_stderr : NULL;
  run.what = "toibench hunt (global pass)";
  x.run = &run;
  if (sweep_parallel(&run)) {
    cli_error("hunt: the reference or scoring failed");
    rc = EXIT_RUNTIME;
    goto done;
  }
  /* Per-thread lists joined under the same total orders: independent of -j. */
  for (int w = 0; w < jobs; w++)
    for (int k = 0; k < HUNT_L_COUNT; k++) {
      const hunt_list *l = &x.lists[w * HUNT_L_COUNT + k];
      for (int i = 0; i < l->n; i++) hunt_list_offer(&all[k], &l->items[i], x.keep, k >= HUNT_L_INF);
    }
  for (int k = HUNT_L_ULP; k <= HUNT_L_RATIO; k++)
    for (int i = 0; i < all[k].n; i++) x.cands[x.ncands++] = all[k].items[i];
  x.steps = x.ncands ? (budget - x.global) / (uint64_t)x.ncands : 0;
  sweep_run run2;
  memset(&run2, 0, sizeof run2);
  run2.jobs = jobs;
  run2.nchunks = (uint64_t)x.ncands;
  run2.fn = local_chunk;
  run2.ctx = &x;
  run2.total = (uint64_t)x.ncands;
  run2.progress = !quiet && isatty(2) ? &cli_progress_stderr : NULL;
  run2.what = "toibench hunt (local search, cases)";
  x.run = &run2;
  if (x.ncands && sweep_parallel(&run2)) {
    cli_error("hunt: the reference or scoring failed");
    rc = EXIT_RUNTIME;
    goto done;
  }
  /* Final rankings after the local search; flips join the classification errors. */
  for (int k = 0; k < x.ncands; k++) hunt_list_offer(&best[x.cands[k].by], &x.cands[k], x.keep, 0);
  for (int k = 0; k < x.ncands; k++)
    if (x.has_flip[k] && all[HUNT_L_BAD].n < x.keep) all[HUNT_L_BAD].items[all[HUNT_L_BAD].n++] = x.flips[k];

  cli_out w;
  if (cli_out_open(&w, out)) {
    rc = EXIT_RUNTIME;
    goto done;
  }
  char desc[512];
  gen_opts_format(desc, sizeof desc, o);
  fprintf(w.f, "# toibench hunt -f %s %s budget=%llu keep=%llu\n", f->name, desc, budget, keep);
  fprintf(w.f,
          "# Worst cases of %s found by a random global pass over %" PRIu64 " cases and a local\n"
          "# search of %" PRIu64 " steps around each of the %d kept by ULP error or by error /\n"
          "# (kappa 2^-53) (inputs moved by a few ulps).\n"
          "# Sampled maxima are lower bounds: the true worst error of %s may be larger.\n",
          f->name, x.global, x.steps, x.ncands, f->name);
  for (int k = 0; k < best[HUNT_BY_ULP].n; k++)
    hunt_write_found(w.f, &best[HUNT_BY_ULP].items[k], f->name, "ulp", k + 1, NULL);
  for (int k = 0; k < best[HUNT_BY_RATIO].n; k++)
    hunt_write_found(w.f, &best[HUNT_BY_RATIO].items[k], f->name, "ratio", k + 1, NULL);
  for (int k = 0; k < all[HUNT_L_INF].n; k++) hunt_write_found(w.f, &all[HUNT_L_INF].items[k], f->name, "inf", k + 1, NULL);
  for (int k = 0; k < all[HUNT_L_BAD].n; k++) hunt_write_found(w.f, &all[HUNT_L_BAD].items[k], f->name, "class", k + 1, NULL);
  if (cli_out_commit(&w)) rc = EXIT_RUNTIME;
  if (!quiet && rc == EXIT_OK) {
    fprintf(stderr, "hunt %s:", f->name);
    const hunt_found *mu = hunt_largest(best, 2, HUNT_BY_ULP), *mr = hunt_largest(best, 2, HUNT_BY_RATIO);
    if (mu) fprintf(stderr, " largest finite ULP error found %.6g (bits %.6g);", mu->err, mu->sc.bits);
    if (mr) fprintf(stderr, " largest error / (kappa 2^-53) found %.6g;", mr->ratio);
    fprintf(stderr,
            "\n  %d cases with a NaN or infinite time where a root exists, %d classification errors.\n"
            "  Sampled maxima are lower bounds: the true worst error may be larger.\n",
            all[HUNT_L_INF].n, all[HUNT_L_BAD].n);
  }
done:
  free(x.lists);
  free(x.cands);
  free(x.flips);
  free(x.has_flip);
  free(all);
  free(best);
  return rc;
}

/* The one plug-in solver of --solver; a catalog of several needs a SYMBOL. */
static int plugin_solver(const char *arg, solver_def *out) {
  char path[4096], err[600];
  solver_def *v;
  int k = solvers_from_plugin_arg(arg, &v, err, sizeof err, path, sizeof path);
  if (k < 0) return cli_usage_error("hunt", "--solver %s", err);
  if (k > 1) {
    char names[1024] = "";
    size_t len = 0;
    for (int j = 0; j < k && len < sizeof names; j++)
      len += (size_t)snprintf(names + len, sizeof names - len, "%s%s (%s:%s)", j ? ", " : "", v[j].name, path,
                              v[j].symbol);
    free(v);
    return cli_usage_error("hunt", "--solver %s holds %d solvers: %s; hunt searches one, name it with LIB.so:SYMBOL",
                           path, k, names);
  }
  *out = v[0];
  free(v);
  return EXIT_OK;
}

int cmd_hunt(int argc, char **argv) {
  gen_cli g;
  gen_cli_init(&g);
  unsigned long long budget = 20000, keep = 8;
  const char *out = NULL, *name = NULL, *plugin = NULL, *command = NULL;
  int jobs = sweep_default_jobs(), quiet = 0, given = 0, solver_opts_given = 0;
  cli_args args;
  if (cli_args_init(&args, argc)) return EXIT_RUNTIME;
  free(args.files); /* hunt takes no files: a FAMILY is a generator option */
  args.files = NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      help();
      return EXIT_OK;
    } else if (!strcmp(a, "--budget") || !strcmp(a, "--keep")) {
      if (i + 1 >= argc || cli_parse_u64(argv[i + 1], a[2] == 'b' ? &budget : &keep))
        return cli_usage_error("hunt", "%s needs an unsigned integer", a);
      i++;
    } else if (!strcmp(a, "-o") || !strcmp(a, "-f") || !strcmp(a, "--solver") || !strcmp(a, "--solver-cmd")) {
      if (i + 1 >= argc) return cli_usage_error("hunt", "%s needs a value", a);
      if (a[1] == 'o') {
        out = argv[++i];
        continue;
      }
      const char **slot = a[1] == 'f' ? &name : !strcmp(a, "--solver") ? &plugin : &command;
      *slot = argv[++i];
      given++;
    } else if (!strcmp(a, "--tmax") || !strcmp(a, "--timeout") || !strcmp(a, "--target-distance")) {
      if (cli_args_take(&args, "hunt", CLI_OPT_TMAX | CLI_OPT_TIMEOUT | CLI_OPT_TARGET, argc, argv, &i) < 0)
        return EXIT_USAGE;
      solver_opts_given = 1;
    } else if (!strncmp(a, "-j", 2)) {
      const char *v = a[2] ? a + 2 : (i + 1 < argc ? argv[++i] : "");
      if (sweep_parse_jobs(v, &jobs)) return cli_usage_error("hunt", "-j needs a number in 1..1024");
    } else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
      quiet = 1;
    } else {
      int r = gen_cli_option(&g, "hunt", argc, argv, &i);
      if (r < 0) return EXIT_USAGE;
      if (r == 0) return cli_usage_error("hunt", "unknown option '%s'", a);
    }
  }
  if (given == 0)
    return cli_usage_error("hunt", "-f NAME, --solver LIB.so[:SYMBOL] or --solver-cmd COMMAND is required");
  if (given > 1)
    return cli_usage_error("hunt", "one formulation or solver at a time: give only one of -f, --solver, --solver-cmd");
  if (command && !command[0]) return cli_usage_error("hunt", "--solver-cmd needs a command");
  const toi_formulation *f = name ? toi_formulation_find(name) : NULL;
  hunt_solver_args sa;
  memset(&sa, 0, sizeof sa);
  if (plugin) {
    if (plugin_solver(plugin, &sa.s)) return EXIT_USAGE;
  } else if (command) {
    solvers_from_command(command, &sa.s);
  } else if (!f && solvers_find_engine(name, &sa.s, &cli_msg_stderr)) {
    return cli_usage_error("hunt", "unknown formulation or solver '%s' (see 'toibench list')", name);
  }
  if (f && solver_opts_given)
    return cli_usage_error("hunt", "--tmax, --timeout and --target-distance apply to solvers, not to formulation %s",
                           f->name);
  if (keep < 1 || keep > HUNT_MAXKEEP) return cli_usage_error("hunt", "--keep must be in 1..%d", HUNT_MAXKEEP);
  if (budget < 2) return cli_usage_error("hunt", "--budget must be at least 2");
  gen_opts o;
  if (gen_cli_build(&g, "hunt", GEN_MIXED, &o)) return EXIT_USAGE;
  if (!f) {
    char spec[4200];
    snprintf(spec, sizeof spec, "%s %s", plugin ? "--solver" : command ? "--solver-cmd" : "-f",
             plugin ? plugin : command ? command : name);
    sa.g = &o;
    sa.spec = spec;
    solver_quota quota = {0, 0};
    sa.so = (solver_opts){args.tmax, args.timeout, &quota, &cli_msg_stderr};
    sa.delta = args.delta;
    sa.budget = budget;
    sa.keep = (int)keep;
    sa.quiet = quiet;
    sa.out = out;
    int rc = hunt_solver(&sa);
    solver_quota_report(sa.s.name, &quota);
    return rc;
  }
  return hunt_formulation(f, &o, budget, keep, jobs, quiet, out);
}
