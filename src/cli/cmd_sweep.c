/* cmd_sweep.c: `toibench sweep`, a family generated and scored in a constant-memory parallel stream. */
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "solvers.h"
#include "sweep.h"
#include "toiref.h"

/* Cases per unit of work: large enough to amortise the atomic counter, small
   enough to balance the threads and to keep the progress line moving. */
#define CHUNK 1024
/* Cases per solver call when solvers are swept: a child process per solver
   per block, so the start-up of a slow solver is amortised; memory stays a
   few MB per solver. A multiple of CHUNK. */
#define BLOCK 16384
/* Per-case failure messages shown per solver; the rest are counted. */
#define FAILURES_SHOWN 20

static void help(void) {
  printf(
      "Usage: toibench sweep FAMILY [--count N] [generator options] [-f NAMES] [-o RESULT]\n"
      "                     [-j N] [--shard I/N] [--quiet] [--stats]\n"
      "                     [--solver LIB.so[:SYMBOL]]... [--solver-cmd COMMAND]...\n"
      "                     [--tmax T] [--timeout SEC]\n"
      "Generates cases 0 .. N-1 of a family and scores every formulation against the\n"
      "certified reference, in a stream: memory does not grow with --count. The\n"
      "result is byte-identical for any -j, and merging the results of --shard 1/N ..\n"
      "N/N with 'toibench merge' gives exactly the result of the whole sweep.\n"
      "  --count N     cases (default 100000)\n"
      "  -f NAMES      comma-separated formulations and built engine solvers (see\n"
      "                'toibench list'); 'all' is every formulation, 'engines' every\n"
      "                built engine. Default: all formulations when no solver is given,\n"
      "                none when one is\n"
      "  --solver LIB.so[:SYMBOL]  a plug-in solver (toi_solver.h), as for run\n"
      "  --solver-cmd COMMAND  a solver speaking the subprocess protocol, as for run\n"
      "                Both may be repeated. Solvers get blocks of 16384 cases (one\n"
      "                child process per solver per block) and become columns after\n"
      "                the formulations, scored like a forward formulation against the\n"
      "                true contact (a target a solver states is not used;\n"
      "                --target-distance is refused: use run or hunt for targets)\n"
      "  --tmax T      the step given to solvers; every column, formulations included,\n"
      "                is then scored as \"hit within the step\" (as run); recorded\n"
      "                as tmax= on the gen line\n"
      "  --timeout SEC time allowed per solver answer (default 10)\n"
      "  -o RESULT     result file (default stdout; appears only when complete)\n"
      "  -j N          threads (default: the number of online cores)\n"
      "  --shard I/N   only the I-th (1-based) of N contiguous parts of the cases\n"
      "  --quiet       no progress line (it is shown only when stderr is a terminal)\n"
      "  --stats       print cases, seconds, cases/s and peak memory (VmHWM) to stderr\n"
      "  --reference ENGINE  the certified reference's engine: fast (default) or mpfr\n"
      "                (same results, mpfr many times slower)\n"
      "  --time-only WHAT  measure speed only, no result: WHAT = gen, reference, or a\n"
      "                formulation name; the cases are generated beforehand (up to\n"
      "                65536, reused) and only WHAT is timed; prints cases/s to stdout\n"
      "                (formulations only: not with a solver)\n"
      "Solvers: a case a solver declines or fails on (crash, hang, bad answer) is not\n"
      "scored; it is counted in its OUT_OF_DOMAIN column. Failures are listed on\n"
      "stderr (the first 20 per solver, then a count); the exit status is 1 when a\n"
      "solver crashed, hung or broke the protocol (the result is still written).\n\n"
      "Result file (text, version line '# toibench-sweep v1', '#' comments, fields\n"
      "separated by spaces; blocks separated by two blank lines for gnuplot's index):\n"
      "  header: gen OPTIONS / count N / range START END / formulations NAMES / bins B\n"
      "          (NAMES: the formulations, then the solvers)\n"
      "  index 0  bin B PARAM VALUE LABEL CASES and the count per exact class\n"
      "  index 1  stat FORM B CASES IN_DOMAIN OUT_OF_DOMAIN AGREE MISSED GHOST OTHER TIMED\n"
      "           MAX_ULP MAX_BITS KAPPA_MIN KAPPA_MAX KAPPA_INF MAX_RATIO, then the\n"
      "           maxima again as hex floats (exact, for merge); for a solver,\n"
      "           OUT_OF_DOMAIN counts the cases it declined or failed on\n"
      "  index 2  hist FORM B H LO HI COUNT: ULP error of timed cases; H 0: exact,\n"
      "           1: (0, 0.5), 2..65: [2^(H-3), 2^(H-2)), 66: >= 2^63, 67: infinite\n"
      "  index 3  khist FORM B J LO HI COUNT: kappa, the relative condition number of t*\n"
      "           (MPFR, exact derivatives); J 0: < 2, J: [2^J, 2^(J+1)), 128: infinite\n"
      "  index 4  confusion FORM B EXACT VERDICT COUNT\n"
      "  index 5  witness FORM B WHAT INDEX VALUE AUX VALUE_HEX AUX_HEX CASE-LINE: the\n"
      "           case reaching max_ulp (AUX = bits), max_ratio (AUX = kappa), and the\n"
      "           first misclass (VALUE = 1 missed, 2 ghost, 3 other; AUX = verdict);\n"
      "           ties go to the lowest index. Replay them with\n"
      "           grep '^witness ' RESULT | cut -d' ' -f10- | awk '!seen[$0]++' > worst.cases\n"
      "           (a case often witnesses several statistics; a case file holds each ID once)\n"
      "MAX_RATIO is |T - t*| / (kappa 2^-53 |t*| + 2^-1075) (the floor: a subnormal t*): about 1 or less is\n"
      "the error the conditioning of t* explains; far above, the formulation loses\n"
      "accuracy of its own. Classification errors are counted apart, never folded\n"
      "into the ULP statistics. Sampled maxima are lower bounds of the true maxima.\n"
      "Example (gnuplot; column 3 is the bin, 12 MAX_ULP):\n"
      "  plot '< grep \"^stat expanded \" r.txt' using 3:12 with lp\n\n");
  gen_cli_help(stdout);
}

typedef struct sweep_ctx {
  const gen_opts *g;
  const toi_formulation **fs;
  size_t nf, ns;  /* formulations, solver columns */
  double tmax;
  toi_ref_engine engine;
  uint64_t start, end;
  sweep_acc *accs;
  sweep_run *run;
  /* With solvers: the block [blo, blo + bn), its cases, bins and answers
     ([solver][BLOCK]); gen_only: the pass that generates the block. */
  uint64_t blo;
  size_t bn;
  toi_case *cases;
  size_t *bins;
  solver_answer *ans;
  int gen_only;
  pthread_mutex_t lock;
  uint64_t err_index;
  toi_status err_status;
  int failed;
} sweep_ctx;

/* Records the lowest failing case index; returns 1 to stop the workers. */
static int chunk_failed(sweep_ctx *x, uint64_t i, toi_status st) {
  pthread_mutex_lock(&x->lock);
  if (!x->failed || i < x->err_index) {
    x->failed = 1;
    x->err_index = i;
    x->err_status = st;
  }
  pthread_mutex_unlock(&x->lock);
  return 1;
}

static int sweep_chunk(void *vctx, int worker, uint64_t chunk) {
  sweep_ctx *x = vctx;
  uint64_t lo = x->start + chunk * CHUNK;
  uint64_t hi = x->end - lo < CHUNK ? x->end : lo + CHUNK;
  for (uint64_t i = lo; i < hi; i++) {
    toi_case c;
    size_t b;
    toi_status st = gen_case(&c, NULL, &b, x->g, i);
    if (st == TOI_OK) st = sweep_eval_case_with(&x->accs[worker], x->fs, x->nf, NULL, 0, x->tmax, &c, b, i, x->engine);
    if (st != TOI_OK) return chunk_failed(x, i, st);
  }
  atomic_fetch_add(&x->run->done, hi - lo);
  return 0;
}

/* A chunk of the current block: generated (gen_only), or scored with the
   solvers' stored answers. */
static int block_chunk(void *vctx, int worker, uint64_t chunk) {
  sweep_ctx *x = vctx;
  size_t lo = (size_t)chunk * CHUNK, hi = x->bn - lo < CHUNK ? x->bn : lo + CHUNK;
  for (size_t k = lo; k < hi; k++) {
    uint64_t i = x->blo + k;
    toi_status st;
    if (x->gen_only) {
      st = gen_case(&x->cases[k], NULL, &x->bins[k], x->g, i);
    } else {
      sweep_answer a[SWEEP_MAXFORMS];
      for (size_t s = 0; s < x->ns; s++) {
        const solver_answer *sa = &x->ans[s * BLOCK + k];
        a[s].answered = sa->state == SOLVER_ANSWERED;
        a[s].r = sa->r;
      }
      st = sweep_eval_case_with(&x->accs[worker], x->fs, x->nf, a, x->ns, x->tmax, &x->cases[k], x->bins[k], i,
                                x->engine);
    }
    if (st != TOI_OK) return chunk_failed(x, i, st);
  }
  if (!x->gen_only) atomic_fetch_add(&x->run->done, hi - lo);
  return 0;
}

/* ---- --time-only ---- */

typedef struct time_ctx {
  const gen_opts *g;
  const toi_case *cases;
  size_t ncases;
  uint64_t count;
  const toi_formulation *f; /* NULL: the reference, or generation when gen */
  int gen;
  toi_ref_engine engine;
  sweep_run *run;
  double sink[1024];
} time_ctx;

static int time_chunk(void *vctx, int worker, uint64_t chunk) {
  time_ctx *x = vctx;
  uint64_t lo = chunk * CHUNK, hi = x->count - lo < CHUNK ? x->count : lo + CHUNK;
  double acc = 0;
  if (!x->gen && !x->f) {
    /* The reference as a suite is solved: through the batch, in runs of
     * consecutive cases. */
    toi_ref r[256];
    toi_status st[256];
    for (uint64_t i = lo; i < hi;) {
      size_t at = (size_t)(i % x->ncases), n = x->ncases - at;
      if (n > 256) n = 256;
      if (n > hi - i) n = (size_t)(hi - i);
      if (toi_ref_solve_batch_engine(r, st, &x->cases[at], n, x->engine) != 0) return 1;
      for (size_t k = 0; k < n; k++) acc += r[k].tfwd;
      i += n;
    }
  }
  for (uint64_t i = lo; i < hi && (x->gen || x->f); i++) {
    const toi_case *c = &x->cases[i % x->ncases];
    if (x->gen) {
      toi_case g;
      size_t b;
      if (gen_case(&g, NULL, &b, x->g, i) != TOI_OK) return 1;
      acc += g.pa[0];
    } else {
      acc += x->f->solve(c).t;
    }
  }
  x->sink[worker % 1024] += acc; /* keeps the work observable */
  atomic_fetch_add(&x->run->done, hi - lo);
  return 0;
}

static int time_only(const char *what, const gen_opts *g, uint64_t count, int jobs, toi_ref_engine engine) {
  time_ctx x;
  memset(&x, 0, sizeof x);
  x.g = g;
  x.count = count;
  x.engine = engine;
  if (!strcmp(what, "gen")) {
    x.gen = 1;
  } else if (strcmp(what, "reference")) {
    x.f = toi_formulation_find(what);
    if (!x.f) return cli_usage_error("sweep", "--time-only: unknown formulation '%s'", what);
  }
  x.ncases = count < 65536 ? (size_t)count : 65536;
  if (x.ncases == 0) x.ncases = 1;
  toi_case *cases = malloc(x.ncases * sizeof *cases);
  if (!cases) return EXIT_RUNTIME;
  for (size_t i = 0; i < x.ncases; i++) {
    size_t b;
    if (gen_case(&cases[i], NULL, &b, g, i) != TOI_OK) {
      free(cases);
      return EXIT_RUNTIME;
    }
  }
  x.cases = cases;
  sweep_run run;
  memset(&run, 0, sizeof run);
  run.jobs = jobs;
  run.nchunks = (count + CHUNK - 1) / CHUNK;
  run.fn = time_chunk;
  run.ctx = &x;
  run.total = count;
  run.what = "time";
  x.run = &run;
  double t0 = sweep_now();
  int rc = sweep_parallel(&run);
  double dt = sweep_now() - t0;
  free(cases);
  if (rc) {
    cli_error("sweep --time-only %s: failed", what);
    return EXIT_RUNTIME;
  }
  printf("time-only %s: %" PRIu64 " cases in %.3f s on %d thread%s: %.6g cases/s\n", what, count, dt, jobs,
         jobs == 1 ? "" : "s", dt > 0 ? (double)count / dt : 0.0);
  return EXIT_OK;
}

/* ---- columns: formulations, then solvers ---- */

typedef struct solver_vec {
  solver_def *v;
  size_t n, cap;
} solver_vec;

static int push_solver(solver_vec *sv, const solver_def *s) {
  if (sv->n == sv->cap) {
    size_t cap = sv->cap ? 2 * sv->cap : 8;
    solver_def *p = realloc(sv->v, cap * sizeof *p);
    if (!p) return -1;
    sv->v = p;
    sv->cap = cap;
  }
  sv->v[sv->n++] = *s;
  return 0;
}

static int solver_named(const solver_vec *sv, const char *name) {
  for (size_t i = 0; i < sv->n; i++)
    if (!strcmp(sv->v[i].name, name)) return 1;
  return 0;
}

/* Splits -f into formulations (fs, in the order named) and built engine
   solvers (appended to sv). NULL names: every formulation unless a solver
   was given. Returns the number of formulations, or -1 after a usage error
   (-2: out of memory). */
static int parse_columns(const char *names, int have_solvers, const toi_formulation ***fs, solver_vec *sv) {
  size_t nall;
  const toi_formulation *all = toi_formulations(&nall);
  *fs = NULL;
  if (!names && have_solvers) {
    *fs = malloc(sizeof **fs);
    return *fs ? 0 : -2;
  }
  if (!names) return cli_parse_formulations("sweep", NULL, fs);
  char *copy = strdup(names);
  const toi_formulation **v = malloc((strlen(names) + nall + 1) * sizeof *v);
  if (!copy || !v) {
    free(copy);
    free(v);
    return -2;
  }
  int nf = 0, rc = 0, any = 0;
  for (char *save = NULL, *tok = strtok_r(copy, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save)) {
    any = 1;
    const toi_formulation *f = toi_formulation_find(tok);
    if (!strcmp(tok, "all") || f) {
      for (size_t i = 0; i < nall; i++) {
        const toi_formulation *g = f ? f : &all[i];
        int dup = 0;
        for (int k = 0; k < nf; k++) dup |= v[k] == g;
        if (!dup) v[nf++] = g;
        if (f) break;
      }
    } else if (!strcmp(tok, "engines")) {
      solver_def *e;
      size_t n = solvers_engines(&e, &cli_msg_stderr);
      if (n == 0) rc = cli_usage_error("sweep", "no engine is built (run 'make engines')");
      for (size_t i = 0; i < n && !rc; i++)
        if (!solver_named(sv, e[i].name) && push_solver(sv, &e[i])) rc = -2;
      free(e);
    } else {
      solver_def d;
      if (solvers_find_engine(tok, &d, &cli_msg_stderr))
        rc = cli_usage_error("sweep", "unknown formulation or solver '%s' (see 'toibench list')", tok);
      else if (!solver_named(sv, tok) && push_solver(sv, &d))
        rc = -2;
    }
  }
  free(copy);
  if (!rc && !any) rc = cli_usage_error("sweep", "empty formulation list");
  if (rc) {
    free(v);
    return rc == -2 ? -2 : -1;
  }
  *fs = v;
  return nf;
}

/* Column names are single words of the result file, unique across
   formulations and solvers: other characters become '_', and a repeated
   name becomes NAME#2, NAME#3 ... (as in run). */
static void name_columns(solver_def *sv, size_t ns, const toi_formulation *const *fs, size_t nf) {
  for (size_t k = 0; k < ns; k++) {
    char *n = sv[k].name;
    for (char *p = n; *p; p++)
      if (!isgraph((unsigned char)*p)) *p = '_';
    if (!n[0]) snprintf(n, sizeof sv[k].name, "solver");
    char base[SOLVER_NAME_MAX + 1];
    memcpy(base, n, sizeof base);
    for (int i = 2; i < 1000; i++) {
      int taken = 0;
      for (size_t j = 0; j < nf && !taken; j++) taken = !strcmp(fs[j]->name, n);
      for (size_t j = 0; j < k && !taken; j++) taken = !strcmp(sv[j].name, n);
      if (!taken) break;
      snprintf(n, sizeof sv[k].name, "%.55s#%d", base, i);
    }
  }
}

/* The progress line of a sweep with solvers, drawn between blocks. */
static void block_progress(uint64_t done, uint64_t total, double t0, int final) {
  double dt = sweep_now() - t0, rate = dt > 0 ? (double)done / dt : 0;
  fprintf(stderr, "\rtoibench sweep: %" PRIu64 "/%" PRIu64 " cases (%.1f%%), %.0f cases/s, ETA %.0fs   %s", done,
          total, total ? 100.0 * (double)done / (double)total : 100.0, rate,
          final || rate <= 0 ? 0.0 : (double)(total - done) / rate, final ? "\n" : "");
  fflush(stderr);
}

/* What became of one solver over the whole sweep. */
typedef struct solver_tally {
  uint64_t failed, declined, shown, malfunctions, protocol_errors;
  solver_quota quota; /* stderr lines and protocol messages shown, over every block */
} solver_tally;

/* Runs one pass (generation or scoring) of the current block on the workers. */
static int block_pass(sweep_ctx *x, int jobs, int gen_only) {
  sweep_run run;
  memset(&run, 0, sizeof run);
  run.jobs = jobs;
  run.nchunks = (x->bn + CHUNK - 1) / CHUNK;
  run.fn = block_chunk;
  run.ctx = x;
  run.total = x->bn;
  run.what = "toibench sweep";
  x->run = &run;
  x->gen_only = gen_only;
  int rc = sweep_parallel(&run);
  x->run = NULL;
  return rc;
}

/* The sweep with solvers, block by block: the workers generate the block,
   then each solver is called once on it from this thread alone (no other
   thread runs while a child process is forked), then the workers score it.
   Returns 0, nonzero when the workers failed (x->failed says why) or could
   not start, -2 when a solver could not be run at all or memory ran out
   (said here). */
static int sweep_blocks(sweep_ctx *x, const solver_def *sv, const solver_opts *so, int jobs, int progress,
                        solver_tally *tally) {
  x->cases = malloc(BLOCK * sizeof *x->cases);
  x->bins = malloc(BLOCK * sizeof *x->bins);
  x->ans = malloc(x->ns * BLOCK * sizeof *x->ans);
  int rc = 0;
  if (!x->cases || !x->bins || !x->ans) {
    cli_error("sweep: out of memory");
    rc = -2;
  }
  double t0 = sweep_now();
  for (uint64_t lo = x->start; lo < x->end && !rc; lo += BLOCK) {
    x->blo = lo;
    x->bn = x->end - lo < BLOCK ? (size_t)(x->end - lo) : BLOCK;
    if ((rc = block_pass(x, jobs, 1))) break;
    for (size_t s = 0; s < x->ns && !rc; s++) {
      solver_answer *ans = &x->ans[s * BLOCK];
      solver_run_info info;
      solver_opts o = *so;
      o.quota = &tally[s].quota;
      if (solver_run(&sv[s], x->cases, x->bn, &o, ans, &info)) {
        cli_error("sweep: solver %s could not be run", sv[s].name);
        rc = -2;
        break;
      }
      solver_tally *t = &tally[s];
      t->malfunctions += info.malfunctions;
      t->protocol_errors += info.protocol_errors;
      for (size_t k = 0; k < x->bn; k++) {
        if (ans[k].state == SOLVER_UNSUPPORTED) t->declined++;
        if (ans[k].state != SOLVER_FAILED) continue;
        t->failed++;
        if (++t->shown <= FAILURES_SHOWN)
          cli_error("solver %s: case %s: %s", sv[s].name, x->cases[k].id, ans[k].why);
      }
    }
    if (!rc) rc = block_pass(x, jobs, 0);
    if (progress && !rc) block_progress(lo + x->bn - x->start, x->end - x->start, t0, lo + x->bn == x->end);
  }
  free(x->cases);
  free(x->bins);
  free(x->ans);
  x->cases = NULL;
  x->bins = NULL;
  x->ans = NULL;
  return rc;
}

int cmd_sweep(int argc, char **argv) {
  gen_cli g;
  gen_cli_init(&g);
  unsigned long long count = 100000;
  const char *out = NULL, *names = NULL, *time_what = NULL;
  int jobs = sweep_default_jobs(), quiet = 0, stats = 0;
  toi_ref_engine engine = TOI_REF_FAST;
  unsigned long long shard_i = 1, shard_n = 1;
  solver_opts so = {INFINITY, 10, NULL, &cli_msg_stderr};
  solver_vec given = {0}; /* --solver and --solver-cmd, in command-line order */
  int rc = EXIT_USAGE;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      help();
      free(given.v);
      return EXIT_OK;
    } else if (!strcmp(a, "--count")) {
      if (i + 1 >= argc || cli_parse_u64(argv[i + 1], &count)) {
        cli_usage_error("sweep", "--count needs an unsigned integer");
        goto fail;
      }
      i++;
    } else if (!strcmp(a, "-o") || !strcmp(a, "-f") || !strcmp(a, "--time-only")) {
      if (i + 1 >= argc) {
        cli_usage_error("sweep", "%s needs a value", a);
        goto fail;
      }
      if (a[1] == 'o') out = argv[++i];
      else if (a[1] == 'f') names = argv[++i];
      else time_what = argv[++i];
    } else if (!strcmp(a, "--solver") || !strcmp(a, "--solver-cmd")) {
      if (i + 1 >= argc || !argv[i + 1][0]) {
        cli_usage_error("sweep", "%s needs a %s", a, a[8] ? "command" : "plug-in");
        goto fail;
      }
      const char *v = argv[++i];
      if (a[8]) {
        solver_def d;
        solvers_from_command(v, &d);
        if (push_solver(&given, &d)) {
          rc = EXIT_RUNTIME;
          goto fail;
        }
      } else {
        char err[600];
        solver_def *d;
        int k = solvers_from_plugin_arg(v, &d, err, sizeof err, NULL, 0);
        if (k < 0) {
          cli_usage_error("sweep", "--solver %s", err);
          goto fail;
        }
        for (int j = 0; j < k; j++)
          if (push_solver(&given, &d[j])) {
            free(d);
            rc = EXIT_RUNTIME;
            goto fail;
          }
        free(d);
      }
    } else if (!strcmp(a, "--tmax") || !strcmp(a, "--timeout")) {
      double v;
      if (i + 1 >= argc || cli_parse_double(argv[i + 1], &v) || !(v > 0) ||
          (a[3] == 'm' ? !isfinite(v) : v > 1e6)) {
        cli_usage_error("sweep", "%s needs a %s > 0", a, a[3] == 'm' ? "finite number" : "number of seconds");
        goto fail;
      }
      if (a[3] == 'm') so.tmax = v;
      else so.timeout = v;
      i++;
    } else if (!strcmp(a, "--target-distance")) {
      /* Kappa, the ratio and the histograms belong to the true contact's root;
         scoring against a target's root would mix two problems in one column. */
      cli_usage_error("sweep",
                      "--target-distance is not supported: a sweep scores solvers against the true contact "
                      "(use run or hunt to score against a target)");
      goto fail;
    } else if (!strcmp(a, "-j") || !strncmp(a, "-j", 2)) {
      const char *v = a[2] ? a + 2 : (i + 1 < argc ? argv[++i] : "");
      if (sweep_parse_jobs(v, &jobs)) {
        cli_usage_error("sweep", "-j needs a number in 1..1024");
        goto fail;
      }
    } else if (!strcmp(a, "--shard")) {
      char *slash;
      if (i + 1 >= argc || !(slash = strchr(argv[i + 1], '/'))) {
        cli_usage_error("sweep", "--shard needs I/N");
        goto fail;
      }
      char ib[32];
      size_t l = (size_t)(slash - argv[i + 1]);
      if (l >= sizeof ib) {
        cli_usage_error("sweep", "--shard needs I/N");
        goto fail;
      }
      memcpy(ib, argv[i + 1], l);
      ib[l] = 0;
      if (cli_parse_u64(ib, &shard_i) || cli_parse_u64(slash + 1, &shard_n) || shard_n < 1 ||
          shard_i < 1 || shard_i > shard_n) {
        cli_usage_error("sweep", "--shard I/N needs 1 <= I <= N, not '%s'", argv[i + 1]);
        goto fail;
      }
      i++;
    } else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
      quiet = 1;
    } else if (!strcmp(a, "--stats")) {
      stats = 1;
    } else if (!strcmp(a, "--reference")) { /* engine of the reference (reference/toiref.h) */
      int eng = i + 1 < argc ? toi_ref_engine_parse(argv[i + 1]) : -1;
      if (eng < 0) {
        cli_usage_error("sweep", "--reference must be fast or mpfr");
        goto fail;
      }
      engine = (toi_ref_engine)eng;
      i++;
    } else {
      int r = gen_cli_option(&g, "sweep", argc, argv, &i);
      if (r < 0) goto fail;
      if (r == 0) {
        cli_usage_error("sweep", "unknown option '%s'", a);
        goto fail;
      }
    }
  }
  if (g.family < 0) {
    cli_usage_error("sweep", "no family given (mixed is the default suite)");
    goto fail;
  }
  gen_opts o;
  if (gen_cli_build(&g, "sweep", GEN_MIXED, &o)) goto fail;

  const toi_formulation **fs;
  solver_vec sv = {0}; /* engines named by -f, then the solvers given */
  int nf = time_what && !names ? 0 : parse_columns(names, given.n > 0, &fs, &sv);
  if (nf < 0) {
    free(sv.v);
    rc = nf == -2 ? EXIT_RUNTIME : EXIT_USAGE;
    goto fail;
  }
  if (time_what) {
    size_t nsolv = given.n + sv.n;
    if (names) free(fs);
    free(sv.v);
    free(given.v);
    if (nsolv) return cli_usage_error("sweep", "--time-only measures formulations only, not solvers");
    return time_only(time_what, &o, count, jobs, engine);
  }
  for (size_t k = 0; k < given.n; k++)
    if (push_solver(&sv, &given.v[k])) {
      free(sv.v);
      free(fs);
      rc = EXIT_RUNTIME;
      goto fail;
    }
  free(given.v);
  given.v = NULL;
  if ((size_t)nf + sv.n > SWEEP_MAXFORMS) {
    free(fs);
    free(sv.v);
    return cli_usage_error("sweep", "at most %d formulations and solvers", SWEEP_MAXFORMS);
  }
  name_columns(sv.v, sv.n, fs, (size_t)nf);
  sweep_meta meta;
  if (sweep_meta_init(&meta, &o, count, fs, (size_t)nf)) {
    free(fs);
    free(sv.v);
    cli_error("sweep: out of memory");
    return EXIT_RUNTIME;
  }
  for (size_t k = 0; k < sv.n; k++) snprintf(meta.forms[meta.nform++], sizeof meta.forms[0], "%s", sv.v[k].name);
  /* The step changes every column's scores: results with different steps must not merge. */
  if (isfinite(so.tmax)) {
    size_t l = strlen(meta.gen);
    snprintf(meta.gen + l, sizeof meta.gen - l, " tmax=%a", so.tmax);
  }
  /* Contiguous shards: shard I covers [q(I-1) + min(I-1, r), q I + min(I, r)). */
  uint64_t q = count / shard_n, rem = count % shard_n;
  meta.start = q * (shard_i - 1) + (shard_i - 1 < rem ? shard_i - 1 : rem);
  meta.end = q * shard_i + (shard_i < rem ? shard_i : rem);

  sweep_ctx x;
  memset(&x, 0, sizeof x);
  x.g = &o;
  x.fs = fs;
  x.nf = (size_t)nf;
  x.ns = sv.n;
  x.tmax = so.tmax;
  x.engine = engine;
  x.start = meta.start;
  x.end = meta.end;
  pthread_mutex_init(&x.lock, NULL);
  x.accs = calloc((size_t)jobs, sizeof *x.accs);
  solver_tally *tally = calloc(sv.n ? sv.n : 1, sizeof *tally);
  rc = EXIT_OK;
  for (int w = 0; x.accs && w < jobs; w++)
    if (sweep_acc_init(&x.accs[w], meta.nform, meta.nbins)) {
      for (int k = 0; k < w; k++) sweep_acc_free(&x.accs[k]);
      free(x.accs);
      x.accs = NULL;
    }
  int progress = !quiet && isatty(2), prc;
  double t0 = sweep_now(), dt = 0;
  if (!x.accs || !tally) {
    cli_error("sweep: out of memory");
    rc = EXIT_RUNTIME;
    goto release;
  }
  if (sv.n) {
    prc = sweep_blocks(&x, sv.v, &so, jobs, progress, tally);
  } else {
    sweep_run run;
    memset(&run, 0, sizeof run);
    run.jobs = jobs;
    run.nchunks = (meta.end - meta.start + CHUNK - 1) / CHUNK;
    run.fn = sweep_chunk;
    run.ctx = &x;
    run.total = meta.end - meta.start;
    run.progress = progress;
    run.what = "toibench sweep";
    x.run = &run;
    prc = sweep_parallel(&run);
  }
  dt = sweep_now() - t0;
  if (prc) {
    if (x.failed)
      cli_error("sweep: the reference or scoring failed (status %d) on case %" PRIu64, (int)x.err_status,
                x.err_index);
    else if (prc != -2)
      cli_error("sweep: could not start threads");
    rc = EXIT_RUNTIME;
  } else {
    for (int w = 1; w < jobs; w++) sweep_acc_merge(&x.accs[0], &x.accs[w]);
    cli_out wr;
    if (cli_out_open(&wr, out)) {
      rc = EXIT_RUNTIME;
    } else if (sweep_write(wr.f, &meta, &x.accs[0])) {
      cli_error("sweep: write error");
      cli_out_abort(&wr);
      rc = EXIT_RUNTIME;
    } else if (cli_out_commit(&wr)) {
      rc = EXIT_RUNTIME;
    }
    for (size_t k = 0; k < sv.n; k++) {
      const solver_tally *t = &tally[k];
      if (t->shown > FAILURES_SHOWN)
        cli_error("solver %s: %" PRIu64 " more failed cases not shown", sv.v[k].name, t->shown - FAILURES_SHOWN);
      solver_quota_report(sv.v[k].name, &t->quota);
      if (t->failed || t->declined)
        cli_error("solver %s: %" PRIu64 " failed and %" PRIu64
                  " declined cases not scored (counted in OUT_OF_DOMAIN)",
                  sv.v[k].name, t->failed, t->declined);
      if (t->malfunctions || t->protocol_errors) {
        cli_error("solver %s: %" PRIu64 " case%s lost to crashes, hangs or protocol errors; %" PRIu64
                  " protocol error%s outside any case",
                  sv.v[k].name, t->malfunctions, t->malfunctions == 1 ? "" : "s", t->protocol_errors,
                  t->protocol_errors == 1 ? "" : "s");
        if (rc == EXIT_OK) rc = EXIT_RUNTIME;
      }
    }
  }
  if (stats)
    fprintf(stderr, "sweep stats: %" PRIu64 " cases in %.3f s on %d thread%s: %.6g cases/s; peak RSS %ld kB\n",
            meta.end - meta.start, dt, jobs, jobs == 1 ? "" : "s",
            dt > 0 ? (double)(meta.end - meta.start) / dt : 0.0, sweep_peak_rss_kb());
release:
  for (int w = 0; x.accs && w < jobs; w++) sweep_acc_free(&x.accs[w]);
  free(x.accs);
  free(tally);
  pthread_mutex_destroy(&x.lock);
  sweep_meta_free(&meta);
  free(fs);
  free(sv.v);
  return rc;
fail:
  free(given.v);
  return rc;
}
