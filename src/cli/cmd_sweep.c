/* cmd_sweep.c: `toibench sweep`, a family generated and scored in a constant-memory parallel stream. */
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "sweep.h"
#include "toiref.h"

/* Cases per unit of work: large enough to amortise the atomic counter, small
   enough to balance the threads and to keep the progress line moving. */
#define CHUNK 1024

static void help(void) {
  printf(
      "Usage: toibench sweep FAMILY [--count N] [generator options] [-f NAMES] [-o RESULT]\n"
      "                     [-j N] [--shard I/N] [--quiet] [--stats]\n"
      "Generates cases 0 .. N-1 of a family and scores every formulation against the\n"
      "certified reference, in a stream: memory does not grow with --count. The\n"
      "result is byte-identical for any -j, and merging the results of --shard 1/N ..\n"
      "N/N with 'toibench merge' gives exactly the result of the whole sweep.\n"
      "  --count N     cases (default 100000)\n"
      "  -f NAMES      comma-separated formulations, or 'all' (default)\n"
      "  -o RESULT     result file (default stdout; appears only when complete)\n"
      "  -j N          threads (default: the number of online cores)\n"
      "  --shard I/N   only the I-th (1-based) of N contiguous parts of the cases\n"
      "  --quiet       no progress line (it is shown only when stderr is a terminal)\n"
      "  --stats       print cases, seconds, cases/s and peak memory (VmHWM) to stderr\n"
      "  --reference ENGINE  the certified reference's engine: fast (default) or mpfr\n"
      "                (same results, mpfr many times slower)\n"
      "  --time-only WHAT  measure speed only, no result: WHAT = gen, reference, or a\n"
      "                formulation name; the cases are generated beforehand (up to\n"
      "                65536, reused) and only WHAT is timed; prints cases/s to stdout\n\n"
      "Result file (text, version line '# toibench-sweep v1', '#' comments, fields\n"
      "separated by spaces; blocks separated by two blank lines for gnuplot's index):\n"
      "  header: gen OPTIONS / count N / range START END / formulations NAMES / bins B\n"
      "  index 0  bin B PARAM VALUE LABEL CASES and the count per exact class\n"
      "  index 1  stat FORM B CASES IN_DOMAIN OUT_OF_DOMAIN AGREE MISSED GHOST OTHER TIMED\n"
      "           MAX_ULP MAX_BITS KAPPA_MIN KAPPA_MAX KAPPA_INF MAX_RATIO, then the\n"
      "           maxima again as hex floats (exact, for merge)\n"
      "  index 2  hist FORM B H LO HI COUNT: ULP error of timed cases; H 0: exact,\n"
      "           1: (0, 0.5), 2..65: [2^(H-3), 2^(H-2)), 66: >= 2^63, 67: infinite\n"
      "  index 3  khist FORM B J LO HI COUNT: kappa, the relative condition number of t*\n"
      "           (MPFR, exact derivatives); J 0: < 2, J: [2^J, 2^(J+1)), 128: infinite\n"
      "  index 4  confusion FORM B EXACT VERDICT COUNT\n"
      "  index 5  witness FORM B WHAT INDEX VALUE AUX VALUE_HEX AUX_HEX CASE-LINE: the\n"
      "           case reaching max_ulp (AUX = bits), max_ratio (AUX = kappa), and the\n"
      "           first misclass (VALUE = 1 missed, 2 ghost, 3 other; AUX = verdict);\n"
      "           ties go to the lowest index. Replay them with\n"
      "           grep '^witness ' RESULT | cut -d' ' -f10- > worst.cases\n"
      "MAX_RATIO is |T - t*| / (kappa 2^-53 |t*| + 2^-1075) (the floor: a subnormal t*): about 1 or less is\n"
      "the error the conditioning of t* explains; far above, the formulation loses\n"
      "accuracy of its own. Classification errors are counted apart, never folded\n"
      "into the ULP statistics. Sampled maxima are lower bounds of the true maxima.\n"
      "Example (gnuplot): plot '< grep ^stat r.txt | grep expanded' using 3:11 with lp\n\n");
  gen_cli_help(stdout);
}

typedef struct sweep_ctx {
  const gen_opts *g;
  const toi_formulation **fs;
  size_t nf;
  uint64_t start, end;
  sweep_acc *accs;
  sweep_run *run;
  pthread_mutex_t lock;
  uint64_t err_index;
  toi_status err_status;
  int failed;
} sweep_ctx;

static int sweep_chunk(void *vctx, int worker, uint64_t chunk) {
  sweep_ctx *x = vctx;
  uint64_t lo = x->start + chunk * CHUNK;
  uint64_t hi = x->end - lo < CHUNK ? x->end : lo + CHUNK;
  for (uint64_t i = lo; i < hi; i++) {
    toi_case c;
    size_t b;
    toi_status st = gen_case(&c, NULL, &b, x->g, i);
    if (st == TOI_OK) st = sweep_eval_case(&x->accs[worker], x->fs, x->nf, &c, b, i);
    if (st != TOI_OK) {
      pthread_mutex_lock(&x->lock);
      if (!x->failed || i < x->err_index) {
        x->failed = 1;
        x->err_index = i;
        x->err_status = st;
      }
      pthread_mutex_unlock(&x->lock);
      return 1;
    }
  }
  atomic_fetch_add(&x->run->done, hi - lo);
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
  sweep_run *run;
  double sink[1024];
} time_ctx;

static int time_chunk(void *vctx, int worker, uint64_t chunk) {
  time_ctx *x = vctx;
  uint64_t lo = chunk * CHUNK, hi = x->count - lo < CHUNK ? x->count : lo + CHUNK;
  double acc = 0;
  for (uint64_t i = lo; i < hi; i++) {
    const toi_case *c = &x->cases[i % x->ncases];
    if (x->gen) {
      toi_case g;
      size_t b;
      if (gen_case(&g, NULL, &b, x->g, i) != TOI_OK) return 1;
      acc += g.pa[0];
    } else if (x->f) {
      acc += x->f->solve(c).t;
    } else {
      toi_ref r;
      if (toi_ref_solve(&r, c) != TOI_OK) return 1;
      acc += r.tfwd;
    }
  }
  x->sink[worker % 1024] += acc; /* keeps the work observable */
  atomic_fetch_add(&x->run->done, hi - lo);
  return 0;
}

static int time_only(const char *what, const gen_opts *g, uint64_t count, int jobs) {
  time_ctx x;
  memset(&x, 0, sizeof x);
  x.g = g;
  x.count = count;
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

int cmd_sweep(int argc, char **argv) {
  gen_cli g;
  gen_cli_init(&g);
  unsigned long long count = 100000;
  const char *out = NULL, *names = NULL, *time_what = NULL;
  int jobs = sweep_default_jobs(), quiet = 0, stats = 0;
  unsigned long long shard_i = 1, shard_n = 1;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      help();
      return EXIT_OK;
    } else if (!strcmp(a, "--count")) {
      if (i + 1 >= argc || cli_parse_u64(argv[i + 1], &count))
        return cli_usage_error("sweep", "--count needs an unsigned integer");
      i++;
    } else if (!strcmp(a, "-o") || !strcmp(a, "-f") || !strcmp(a, "--time-only")) {
      if (i + 1 >= argc) return cli_usage_error("sweep", "%s needs a value", a);
      if (a[1] == 'o') out = argv[++i];
      else if (a[1] == 'f') names = argv[++i];
      else time_what = argv[++i];
    } else if (!strcmp(a, "-j") || !strncmp(a, "-j", 2)) {
      const char *v = a[2] ? a + 2 : (i + 1 < argc ? argv[++i] : "");
      if (sweep_parse_jobs(v, &jobs)) return cli_usage_error("sweep", "-j needs a number in 1..1024");
    } else if (!strcmp(a, "--shard")) {
      char *slash;
      if (i + 1 >= argc || !(slash = strchr(argv[i + 1], '/')))
        return cli_usage_error("sweep", "--shard needs I/N");
      char ib[32];
      size_t l = (size_t)(slash - argv[i + 1]);
      if (l >= sizeof ib) return cli_usage_error("sweep", "--shard needs I/N");
      memcpy(ib, argv[i + 1], l);
      ib[l] = 0;
      if (cli_parse_u64(ib, &shard_i) || cli_parse_u64(slash + 1, &shard_n) || shard_n < 1 ||
          shard_i < 1 || shard_i > shard_n)
        return cli_usage_error("sweep", "--shard I/N needs 1 <= I <= N, not '%s'", argv[i + 1]);
      i++;
    } else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
      quiet = 1;
    } else if (!strcmp(a, "--stats")) {
      stats = 1;
    } else if (!strcmp(a, "--reference")) { /* engine of the reference (reference/toiref.h) */
      int eng = i + 1 < argc ? toi_ref_engine_parse(argv[i + 1]) : -1;
      if (eng < 0 || toi_ref_set_engine((toi_ref_engine)eng) != TOI_OK)
        return cli_usage_error("sweep", "--reference must be fast or mpfr");
      i++;
    } else {
      int r = gen_cli_option(&g, "sweep", argc, argv, &i);
      if (r < 0) return EXIT_USAGE;
      if (r == 0) return cli_usage_error("sweep", "unknown option '%s'", a);
    }
  }
  if (g.family < 0) return cli_usage_error("sweep", "no family given (mixed is the default suite)");
  gen_opts o;
  if (gen_cli_build(&g, "sweep", GEN_MIXED, &o)) return EXIT_USAGE;
  if (time_what) return time_only(time_what, &o, count, jobs);

  const toi_formulation **fs;
  int nf = cli_parse_formulations("sweep", names, &fs);
  if (nf < 0) return EXIT_USAGE;
  if (nf > SWEEP_MAXFORMS) {
    free(fs);
    return cli_usage_error("sweep", "at most %d formulations", SWEEP_MAXFORMS);
  }
  sweep_meta meta;
  if (sweep_meta_init(&meta, &o, count, fs, (size_t)nf)) {
    free(fs);
    cli_error("sweep: out of memory");
    return EXIT_RUNTIME;
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
  x.start = meta.start;
  x.end = meta.end;
  pthread_mutex_init(&x.lock, NULL);
  x.accs = calloc((size_t)jobs, sizeof *x.accs);
  int rc = EXIT_OK;
  for (int w = 0; x.accs && w < jobs; w++)
    if (sweep_acc_init(&x.accs[w], (size_t)nf, meta.nbins)) {
      for (int k = 0; k < w; k++) sweep_acc_free(&x.accs[k]);
      free(x.accs);
      x.accs = NULL;
    }
  if (!x.accs) {
    cli_error("sweep: out of memory");
    sweep_meta_free(&meta);
    free(fs);
    return EXIT_RUNTIME;
  }
  sweep_run run;
  memset(&run, 0, sizeof run);
  run.jobs = jobs;
  run.nchunks = (meta.end - meta.start + CHUNK - 1) / CHUNK;
  run.fn = sweep_chunk;
  run.ctx = &x;
  run.total = meta.end - meta.start;
  run.progress = !quiet && isatty(2);
  run.what = "toibench sweep";
  x.run = &run;
  double t0 = sweep_now();
  int prc = sweep_parallel(&run);
  double dt = sweep_now() - t0;
  if (prc) {
    if (x.failed)
      cli_error("sweep: the reference or scoring failed (status %d) on case %" PRIu64, (int)x.err_status,
                x.err_index);
    else
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
  }
  if (stats)
    fprintf(stderr, "sweep stats: %" PRIu64 " cases in %.3f s on %d thread%s: %.6g cases/s; peak RSS %ld kB\n",
            meta.end - meta.start, dt, jobs, jobs == 1 ? "" : "s",
            dt > 0 ? (double)(meta.end - meta.start) / dt : 0.0, sweep_peak_rss_kb());
  for (int w = 0; w < jobs; w++) sweep_acc_free(&x.accs[w]);
  free(x.accs);
  pthread_mutex_destroy(&x.lock);
  sweep_meta_free(&meta);
  free(fs);
  return rc;
}
