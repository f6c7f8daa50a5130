/* cmd_sweep.c: `toibench sweep`, a family generated and scored in a constant-memory parallel stream. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"
#include "cli_outcheck.h"
#include "candlist.h"
#include "sweep.h"
#include "toiref.h"

static void help_format(void);

static void help(void) {
  printf(
      "Usage: toibench sweep FAMILY [--count N] [generator options] [-f NAMES] [-o RESULT]\n"
      "                     [-j N] [--shard I/N] [--quiet] [--stats] [--profile]\n"
      "                     [--solver LIB.so[:SYMBOL]]... [--solver-cmd COMMAND]...\n"
      "                     [--tmax T] [--timeout SEC] [--precision P]\n"
      "                     [--solver-cmd-precision P] [--checkpoint FILE [--resume]]\n"
      "Generates cases 0 .. N-1 of a family and scores every formulation against the\n"
      "certified reference, in a stream: memory does not grow with --count. The\n"
      "result is byte-identical for any -j, and merging the results of --shard 1/N ..\n"
      "N/N with 'toibench merge' gives exactly the result of the whole sweep.\n"
      "  --count N     cases (default 100000); 0 is allowed: a result with no case\n"
      "                is valid and merges, as an empty shard does (gen refuses 0:\n"
      "                a case file with no case is not valid input)\n"
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
      "  --timeout SEC time allowed per solver answer (default 10, at most 1e6)\n"
      "  --precision P binary64 (default) or binary32: every number of every case\n"
      "                is a value of P (see 'toibench gen --help'), and the\n"
      "                formulations run their variant in P\n"
      "  --solver-cmd-precision P  the precision of the --solver-cmd commands that\n"
      "                follow it (as for run); a plug-in declares its own. A column\n"
      "                not in binary64 gets rounded inputs, errors in its precision's\n"
      "                ULPs (MAX_RATIO with 2^-p, 2^(emin-p)), and the header a line\n"
      "                'precisions NAME...' (one per column) after 'formulations'\n"
      "  -o RESULT     result file (default stdout; appears only when complete)\n"
      "  --checkpoint FILE  for long runs: the result of the cases done so far is\n"
      "                saved to FILE (atomically, as a shard result, with a last line\n"
      "                '# checksum fnv1a64 HEX') every --checkpoint-every SEC seconds\n"
      "                (default 5) and on SIGINT, SIGTERM or SIGHUP (then the sweep ends\n"
      "                by that signal), and FILE is removed once RESULT is written; no\n"
      "                progress line. An existing FILE is replaced only with --resume\n"
      "                and when it is this sweep's checkpoint\n"
      "  --resume      with --checkpoint: go on from FILE, left by an interrupted run\n"
      "                of the same command (from the start when there is no FILE); the\n"
      "                result is byte-identical to an uninterrupted run's. A FILE whose\n"
      "                checksum does not match is refused. Solver failure counts on\n"
      "                stderr cover the resumed part only\n"
      "  -j N          threads (default: the number of online cores)\n"
      "  --shard I/N   only the I-th (1-based) of N contiguous parts of the cases\n"
      "  --quiet       no progress line (it is shown only when stderr is a terminal)\n"
      "  --stats       print cases, seconds, cases/s and peak memory (VmHWM) to stderr\n"
      "  --profile     print to stderr where the time went, summed over the threads:\n"
      "                lines 'sweep profile: PART NAME SECONDS s SHARE%% SPEED cases/s'\n"
      "                for PART gen, reference (the exact answers), candidate (one\n"
      "                line per column, NAME its name) and scoring (error and kappa\n"
      "                measures, accumulation); NAME is '-' but for candidates. The\n"
      "                shares are of the sum of the parts; each thread's wall clock\n"
      "                read per block of cases (on a busy machine it counts the\n"
      "                time a thread waited), so the result does not change\n"
      "  --reference ENGINE  the certified reference's engine: fast (default) or mpfr\n"
      "                (same results, mpfr many times slower)\n"
      "  --time-only WHAT  measure speed only, no result: WHAT = gen, reference, or a\n"
      "                formulation name; the cases are generated beforehand (up to\n"
      "                65536, reused) and only WHAT is timed; prints cases/s to stdout\n"
      "                (formulations only: not with a solver)\n"
      "Solvers: a case a solver declines or fails on (crash, hang, bad answer) is not\n"
      "scored; it is counted in its OUT_OF_DOMAIN column. Failures are listed on\n"
      "stderr (the first 20 per solver, then a count); the exit status is 1 when a\n"
      "solver crashed, hung or broke the protocol (the result is still written).\n\n");
  help_format();
  gen_cli_help(stdout);
}

/* The result file's part of --help. */
static void help_format(void) {
  printf(
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
}

/* The command line of a sweep. */
typedef struct sweep_args {
  gen_cli g;
  unsigned long long count, shard_i, shard_n;
  const char *out, *names, *time_what;
  int jobs, quiet, stats, profile;
  double tmax, timeout;
  toi_ref_engine engine;
  candlist given; /* --solver and --solver-cmd, in command-line order */
  /* --solver-cmd-precision: the following commands' precision. --precision is
     a generator option (every number of every case a value of it) and the
     formulations' variant. */
  toi_precision cmd_precision;
  const char *checkpoint; /* --checkpoint FILE */
  int resume;
  double checkpoint_every;
  int stop_sig; /* the signal that stopped a checkpointed sweep, after its checkpoint was saved */
  const sweep_dist *dist; /* toibench-mpi: the processes sharing the cases (NULL: this one alone) */
} sweep_args;

static int parse_shard(sweep_args *s, const char *v) {
  const char *slash = v ? strchr(v, '/') : NULL;
  char ib[32];
  size_t l = slash ? (size_t)(slash - v) : 0;
  if (!slash || l >= sizeof ib) return cli_usage_error("sweep", "--shard needs I/N");
  memcpy(ib, v, l);
  ib[l] = 0;
  if (cli_parse_u64(ib, &s->shard_i) || cli_parse_u64(slash + 1, &s->shard_n) || s->shard_n < 1 || s->shard_i < 1 ||
      s->shard_i > s->shard_n)
    return cli_usage_error("sweep", "--shard I/N needs 1 <= I <= N, not '%s'", v);
  return EXIT_OK;
}

static int parse_seconds(sweep_args *s, const char *a, const char *v) {
  double x;
  int tmax = a[3] == 'm';
  if (!tmax) return cli_parse_timeout("sweep", v, &s->timeout);
  if (!v || cli_parse_double(v, &x) || !(x > 0) || !isfinite(x))
    return cli_usage_error("sweep", "%s needs a finite number > 0", a);
  s->tmax = x;
  return EXIT_OK;
}

static int parse_given(sweep_args *s, const char *a, const char *v, double load_timeout) {
  if (!v || !v[0]) return cli_usage_error("sweep", "%s needs a %s", a, a[8] ? "command" : "plug-in");
  return cli_add_given_prec("sweep", &s->given, a, v, s->cmd_precision, load_timeout);
}

/* One option at argv[*i] (and its value). EXIT_OK, -1 for --help, or an exit code. */
static int parse_option(sweep_args *s, int argc, char **argv, int *i) {
  const char *a = argv[*i], *v = *i + 1 < argc ? argv[*i + 1] : NULL;
  int used = v != NULL, rc = EXIT_OK;
  if (!strcmp(a, "--help") || !strcmp(a, "-h")) return -1;
  if (!strcmp(a, "--count")) {
    if (!v || cli_parse_u64(v, &s->count)) return cli_usage_error("sweep", "--count needs an unsigned integer");
  } else if (!strcmp(a, "-o") || !strcmp(a, "-f") || !strcmp(a, "--time-only")) {
    if (!v) return cli_usage_error("sweep", "%s needs a value", a);
    *(a[1] == 'o' ? &s->out : a[1] == 'f' ? &s->names : &s->time_what) = v;
  } else if (!strcmp(a, "--solver") || !strcmp(a, "--solver-cmd")) {
    rc = parse_given(s, a, v, cli_timeout_scan(argc, argv));
  } else if (!strcmp(a, "--solver-cmd-precision")) {
    if (!v) return cli_usage_error("sweep", "%s needs a precision", a);
    rc = cli_parse_precision("sweep", a, v, &s->cmd_precision);
  } else if (!strcmp(a, "--checkpoint")) {
    if (!v || !v[0]) return cli_usage_error("sweep", "--checkpoint needs a file name");
    s->checkpoint = v;
  } else if (!strcmp(a, "--checkpoint-every")) {
    if (!v || cli_parse_double(v, &s->checkpoint_every) || !(s->checkpoint_every > 0))
      return cli_usage_error("sweep", "--checkpoint-every needs a number of seconds > 0");
  } else if (!strcmp(a, "--tmax") || !strcmp(a, "--timeout")) {
    rc = parse_seconds(s, a, v);
  } else if (!strcmp(a, "--target-distance")) {
    /* Kappa, the ratio and the histograms belong to the true contact's root;
       scoring against a target's root would mix two problems in one column. */
    return cli_usage_error("sweep", "--target-distance is not supported: a sweep scores solvers against the true "
                                    "contact (use run or hunt to score against a target)");
  } else if (!strncmp(a, "-j", 2)) {
    used = !a[2];
    if (sweep_parse_jobs(a[2] ? a + 2 : v ? v : "", &s->jobs)) return cli_usage_error("sweep", "-j needs a number in 1..1024");
  } else if (!strcmp(a, "--shard")) {
    rc = parse_shard(s, v);
  } else if (!strcmp(a, "--reference")) { /* engine of the reference (reference/toiref.h) */
    if (toi_ref_engine_parse(&s->engine, v) != TOI_OK) return cli_usage_error("sweep", "--reference must be fast or mpfr");
  } else {
    used = 0;
    if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) s->quiet = 1;
    else if (!strcmp(a, "--resume")) s->resume = 1;
    else if (!strcmp(a, "--stats")) s->stats = 1;
    else if (!strcmp(a, "--profile")) s->profile = 1;
    else {
      int r = gen_cli_option(&s->g, "sweep", argc, argv, i);
      if (r < 0) return EXIT_USAGE;
      if (r == 0) return cli_unknown_option("sweep", a);
    }
  }
  if (used && rc == EXIT_OK) (*i)++;
  return rc;
}

/* The columns: the candidates -f names (every formulation when neither -f
   nor a solver is given), then the solvers given; in-process ones first, as
   the result file has them. Column names are single words, unique: other
   characters become '_', and a repeated name becomes NAME#2, NAME#3 ... (as
   in run). EXIT_OK or an exit code. */
static int columns(sweep_args *s, candlist *l) {
  int rc = EXIT_OK;
  if (s->names && !s->names[strspn(s->names, ",")]) return cli_usage_error("sweep", "empty formulation list");
  if (s->names || !s->given.n) rc = cli_add_named_prec("sweep", l, s->names ? s->names : "all",
                            s->g.has_precision ? s->g.precision : TOI_BINARY64);
  for (size_t k = 0; k < s->given.n && rc == EXIT_OK; k++)
    if (candlist_push(l, &s->given.v[k])) rc = EXIT_RUNTIME;
  if (rc != EXIT_OK) return rc;
  candlist ordered = {0};
  for (int pass = 0; pass < 2 && rc == EXIT_OK; pass++)
    for (size_t k = 0; k < l->n && rc == EXIT_OK; k++)
      if (((l->v[k].flags & TOI_CAND_OUT_OF_PROCESS) != 0) == pass && candlist_push(&ordered, &l->v[k])) rc = EXIT_RUNTIME;
  candlist_free(l);
  *l = ordered;
  for (size_t k = 0; k < l->n; k++) {
    char *n = l->v[k].name;
    for (char *p = n; *p; p++)
      if (!isgraph((unsigned char)*p)) *p = '_';
    if (!n[0]) snprintf(n, sizeof l->v[k].name, "solver");
    candlist_unique_name(l, k);
  }
  return rc;
}

/* --time-only WHAT: gen, reference, or a formulation. */
static int time_only(const sweep_args *s, const toi_gen_opts *o) {
  const char *what = s->time_what;
  toi_candidate cand;
  int gen = !strcmp(what, "gen"), ref = !strcmp(what, "reference");
  if (!gen && !ref) {
    const toi_formulation *f = toi_formulation_find(what);
    if (!f)
      return cli_usage_error_near("sweep", CLI_NAMES_FORMULATIONS, what, "--time-only: unknown formulation '%s'", what);
    toi_candidate_formulation(&cand, f);
  }
  double dt;
  if (sweep_time_only(&dt, o, s->count, s->jobs, gen, gen || ref ? NULL : &cand, s->engine)) {
    cli_error("sweep --time-only %s: failed", what);
    return EXIT_RUNTIME;
  }
  printf("time-only %s: %" PRIu64 " cases in %.3f s on %d thread%s: %.6g cases/s\n", what, (uint64_t)s->count, dt,
         s->jobs, s->jobs == 1 ? "" : "s", dt > 0 ? (double)s->count / dt : 0.0);
  return EXIT_OK;
}

/* The header of the result file: the family, the step, the shard, the columns. */
static int make_meta(sweep_meta *meta, const sweep_args *s, const toi_gen_opts *o, const candlist *l) {
  if (sweep_meta_init(meta, o, s->count, NULL, 0)) {
    cli_error("sweep: out of memory");
    return EXIT_RUNTIME;
  }
  for (size_t k = 0; k < l->n; k++) {
    meta->prec[meta->nform] = l->v[k].precision;
    snprintf(meta->forms[meta->nform++], sizeof meta->forms[0], "%s", l->v[k].name);
  }
  /* The step changes every column's scores: results with different steps must not merge. */
  if (isfinite(s->tmax)) {
    size_t len = strlen(meta->gen);
    snprintf(meta->gen + len, sizeof meta->gen - len, " tmax=%a", s->tmax);
  }
  /* Contiguous shards: shard I covers [q(I-1) + min(I-1, r), q I + min(I, r)). */
  uint64_t q = s->count / s->shard_n, rem = s->count % s->shard_n, i = s->shard_i;
  meta->start = q * (i - 1) + (i - 1 < rem ? i - 1 : rem);
  meta->end = q * i + (i < rem ? i : rem);
  return EXIT_OK;
}

static int write_result(const char *out, const sweep_meta *meta, const sweep_acc *acc) {
  cli_out wr;
  if (cli_out_open(&wr, out)) return EXIT_RUNTIME;
  if (sweep_write(wr.f, meta, acc)) {
    cli_error("sweep: write error");
    cli_out_abort(&wr);
    return EXIT_RUNTIME;
  }
  return cli_out_commit(&wr) ? EXIT_RUNTIME : EXIT_OK;
}

/* ---- --checkpoint and --resume ---- */

/* 1 when the checkpoint c is of the sweep m: the same header, the same first case. */
static int same_sweep(const sweep_meta *c, const sweep_meta *m) {
  int same = !strcmp(c->gen, m->gen) && c->count == m->count && c->start == m->start && c->end > c->start &&
             c->end <= m->end && c->nform == m->nform && c->nbins == m->nbins;
  for (size_t j = 0; same && j < m->nform; j++) same = !strcmp(c->forms[j], m->forms[j]) && c->prec[j] == m->prec[j];
  for (size_t k = 0; same && k < m->nbins; k++)
    same = !strcmp(c->bins[k].param, m->bins[k].param) && c->bins[k].value == m->bins[k].value &&
           !strcmp(c->bins[k].label, m->bins[k].label);
  return same;
}

/* path quoted for a POSIX shell, for the command a message suggests: 'it''s' as 'it'\''s'. */
static const char *shell_quoted(const char *path, char *buf, size_t n) {
  size_t k = 0;
  buf[k++] = '\'';
  for (const char *p = path; *p && k + 6 < n; p++) {
    if (*p == '\'') {
      memcpy(buf + k, "'\\''", 4);
      k += 4;
    } else {
      buf[k++] = *p;
    }
  }
  buf[k++] = '\'';
  buf[k] = 0;
  return buf;
}

/* FILE of --checkpoint before the sweep starts: what is there is either this
   sweep's checkpoint, taken with --resume (into *acc and *done, *have = 1), or
   nothing. Anything else is left as it is and refused: a file that is not
   this sweep's checkpoint (it would be replaced), and without --resume this
   sweep's checkpoint too (a run from the first case would replace it).
   EXIT_OK (*have = 0 when there is nothing to go on from), or an exit code
   after a message. */
static int load_checkpoint(const sweep_args *s, const sweep_meta *m, sweep_acc *acc, uint64_t *done, int *have) {
  const char *path = s->checkpoint;
  struct stat sb;
  *have = 0;
  memset(acc, 0, sizeof *acc);
  if (stat(path, &sb) != 0 && errno == ENOENT) {
    if (s->resume) cli_error("sweep: no checkpoint %s yet: starting from the first case", path);
    return EXIT_OK;
  }
  sweep_meta cm;
  memset(&cm, 0, sizeof cm);
  int r = -2;
  if (stat(path, &sb) != 0)
    cli_error("sweep: %s: %s", path, strerror(errno));
  else if (!S_ISREG(sb.st_mode))
    cli_error("sweep: %s is not a regular file", path); /* not even opened: a FIFO would block */
  else
    r = sweep_read_checkpoint(path, &cm, acc, &cli_msg_stderr);
  int mine = r == 0 && same_sweep(&cm, m);
  uint64_t end = cm.end;
  sweep_meta_free(&cm);
  if (mine && s->resume) {
    *done = end;
    *have = 1;
    return EXIT_OK;
  }
  sweep_acc_free(acc);
  if (r == 0 && !mine)
    cli_error("sweep: %s is the checkpoint of another sweep (other options, columns or shard)", path);
  char q[3 * 4096];
  shell_quoted(path, q, sizeof q);
  if (mine)
    return cli_usage_error("sweep",
                           "%s holds the checkpoint of this sweep (cases %" PRIu64 " to %" PRIu64 " of %" PRIu64
                           " to %" PRIu64 " done): go on from it with --resume, or start over after removing it "
                           "(rm -- %s)",
                           path, m->start, end, m->start, m->end, q);
  if (s->resume) {
    cli_error("sweep: %s: not resumed; the file is left as it is", path);
    return r == -2 ? EXIT_RUNTIME : EXIT_INPUT;
  }
  return cli_usage_error("sweep",
                         "--checkpoint %s: the file exists and is not a checkpoint of this sweep: it is left as it "
                         "is (name another file, or remove it first: rm -- %s)",
                         path, q);
}

/* Saves the cases [m->start, done) as a checkpoint (a result file and its
   checksum line), atomically and synced. */
static int save_checkpoint(const char *path, const sweep_meta *m, const sweep_acc *acc, uint64_t done) {
  sweep_meta part = *m;
  part.end = done;
  cli_out w;
  if (cli_out_open(&w, path)) return EXIT_RUNTIME;
  if (sweep_write_checkpoint(w.f, &part, acc) || fflush(w.f) || (!w.direct && fsync(fileno(w.f)))) {
    cli_error("sweep: %s: write error", path);
    cli_out_abort(&w);
    return EXIT_RUNTIME;
  }
  return cli_out_commit(&w) ? EXIT_RUNTIME : EXIT_OK;
}

static const char *signal_name(int sig) {
  return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP" : "a signal";
}

/* After SIGINT, SIGTERM or SIGHUP (at any process): the cases done saved, and the
   exit code 128 + the signal's number, as a shell shows it. */
static int stop_saved(const sweep_args *s, const sweep_meta *m, const sweep_acc *acc, int have, uint64_t done,
                      int sig) {
  int lead = sweep_dist_lead(s->dist);
  int rc = have && lead ? save_checkpoint(s->checkpoint, m, acc, done) : EXIT_OK;
  rc = (int)sweep_dist_share(s->dist, (uint64_t)rc);
  if (lead && rc == EXIT_OK && have)
    cli_error("sweep: stopped by %s: cases %" PRIu64 " to %" PRIu64 " of %" PRIu64 " to %" PRIu64
              " are saved in %s; go on with the same command and --resume",
              signal_name(sig), m->start, done, m->start, m->end, s->checkpoint);
  else if (lead && rc == EXIT_OK)
    cli_error("sweep: stopped by %s before any case was done: nothing saved", signal_name(sig));
  return rc == EXIT_OK ? 128 + sig : rc;
}

/* The signal that stops the sweep, at every process: the one recorded here, or
   with processes sharing the cases, the first any of them recorded (in rank
   order), so that a signal to one rank stops them all. A collective call. */
static int stop_signal(const sweep_dist *d) {
  int sig = cli_deferred_signal();
  if (!d) return sig;
  unsigned char mine = (unsigned char)sig, *all = NULL;
  int first = 0;
  if (d->gather(d->ud, &mine, 1, 0, &all, NULL) == 0 && d->rank == 0 && all)
    for (int r = 0; r < d->size && !first; r++) first = all[r];
  free(all);
  return (int)sweep_dist_share(d, (uint64_t)first);
}

/* sweep_drive in segments of about half the checkpoint interval, the result
   so far saved every interval, and when a signal asks the process to end.
   Accumulators merge exactly, so the segments and a resumed run change no
   byte of the result. 0, or an exit code (128 + N after signal N). */
static int drive_checkpointed(sweep_args *s, const sweep_meta *m, const sweep_opts *base, const candlist *l,
                              sweep_tally *tally, sweep_acc *acc) {
  uint64_t done = m->start, seg = 16384;
  int lead = sweep_dist_lead(s->dist); /* with processes sharing the cases, rank 0 reads and writes FILE */
  int have = 0, rc = lead ? load_checkpoint(s, m, acc, &done, &have) : EXIT_OK;
  rc = (int)sweep_dist_share(s->dist, (uint64_t)rc);
  done = sweep_dist_share(s->dist, done);
  /* A solver's child process may have been hit by the same signal (a plug-in's shares our process group):
     the segment the signal came in is then not kept. */
  int outside = 0;
  for (size_t k = 0; k < l->n; k++) outside |= (l->v[k].flags & TOI_CAND_OUT_OF_PROCESS) != 0;
  if (rc == EXIT_OK) cli_defer_signals(1);
  double every = s->checkpoint_every > 0 ? s->checkpoint_every : 5, last = sweep_now();
  while (rc == EXIT_OK && done < m->end) {
    sweep_opts so = *base;
    so.start = done;
    so.end = m->end - done < seg ? m->end : done + seg;
    so.progress = NULL;
    sweep_acc part;
    double t0 = sweep_now();
    if (sweep_dist_drive(s->dist, &part, l->v, l->n, m->nbins, &so, tally)) {
      rc = EXIT_RUNTIME;
      break;
    }
    int sig = stop_signal(s->dist);
    if (sig && outside) {
      sweep_acc_free(&part);
      s->stop_sig = sig;
      break;
    }
    if (have) {
      sweep_acc_merge(acc, &part);
      sweep_acc_free(&part);
    } else {
      *acc = part;
      have = 1;
    }
    done = so.end;
    if (sig) {
      s->stop_sig = sig;
      break;
    }
    double dt = sweep_now() - t0, want = (double)seg * (every / 2) / (dt > 1e-3 ? dt : 1e-3);
    seg = want < 16384 ? 16384 : want > 0x1p26 ? (uint64_t)1 << 26 : (uint64_t)want / 16384 * 16384;
    seg = sweep_dist_share(s->dist, seg); /* rank 0's: every process runs the same segments */
    /* Rank 0's clock decides for every process. */
    if (sweep_dist_share(s->dist, done < m->end && sweep_now() - last >= every)) {
      rc = lead ? save_checkpoint(s->checkpoint, m, acc, done) : EXIT_OK;
      rc = (int)sweep_dist_share(s->dist, (uint64_t)rc);
      last = sweep_now();
    }
  }
  /* From here a signal ends the process at once (the -o temporary removed); one that came since the last
     look is taken as the others were. */
  cli_defer_signals(0);
  if (rc == EXIT_OK && !s->stop_sig) s->stop_sig = stop_signal(s->dist);
  if (rc == EXIT_OK && s->stop_sig) rc = stop_saved(s, m, acc, have, done, s->stop_sig);
  if (rc == EXIT_OK && !have && sweep_acc_init(acc, l->n, m->nbins)) rc = EXIT_RUNTIME;
  if (rc != EXIT_OK && have) sweep_acc_free(acc);
  return rc;
}

/* One line of --profile: a part's seconds, share of all parts and speed. */
static void profile_line(const char *part, const char *name, double sec, double total, uint64_t cases) {
  fprintf(stderr, "sweep profile: %s %s %.3f s %.1f%% %.6g cases/s\n", part, name, sec,
          total > 0 ? 100 * sec / total : 0.0, sec > 0 ? (double)cases / sec : 0.0);
}

/* --profile: where the time went, summed over the threads, each part's share
   of their sum (the parts are the whole work of the threads but for
   starting them and merging their results). */
static void print_profile(const sweep_profile *p, const candlist *l, int jobs, double wall) {
  double total = p->gen + p->ref + p->score;
  for (size_t j = 0; j < l->n; j++) total += p->cand[j];
  fprintf(stderr, "sweep profile: %" PRIu64 " cases on %d thread%s, %.3f s wall, %.3f s summed over the threads\n",
          p->cases, jobs, jobs == 1 ? "" : "s", wall, total);
  profile_line("gen", "-", p->gen, total, p->cases);
  profile_line("reference", "-", p->ref, total, p->cases);
  for (size_t j = 0; j < l->n; j++) profile_line("candidate", l->v[j].name, p->cand[j], total, p->cases);
  profile_line("scoring", "-", p->score, total, p->cases);
}

/* Scores the columns, writes the result, tells what the solvers did. */
static int sweep_columns(sweep_args *s, const toi_gen_opts *o, const candlist *l) {
  sweep_meta meta;
  int rc = make_meta(&meta, s, o, l);
  if (rc != EXIT_OK) return rc;
  int lead = sweep_dist_lead(s->dist);
  sweep_opts so = {o, meta.start, meta.end, s->jobs, !s->quiet && lead && isatty(2) ? &cli_progress_stderr : NULL,
                   s->tmax, s->timeout, s->engine, &cli_msg_stderr, NULL};
  sweep_profile prof;
  memset(&prof, 0, sizeof prof);
  if (s->profile) so.profile = &prof;
  sweep_tally *tally = calloc(l->n ? l->n : 1, sizeof *tally);
  sweep_acc acc;
  double t0 = sweep_now(), dt = 0;
  if (!tally) {
    cli_error("sweep: out of memory");
    rc = EXIT_RUNTIME;
  } else if (s->checkpoint ? (rc = drive_checkpointed(s, &meta, &so, l, tally, &acc)) != EXIT_OK
                            : sweep_dist_drive(s->dist, &acc, l->v, l->n, meta.nbins, &so, tally) != 0) {
    dt = sweep_now() - t0;
    if (rc == EXIT_OK) rc = EXIT_RUNTIME;
  } else {
    dt = sweep_now() - t0;
    rc = lead ? write_result(s->out, &meta, &acc) : EXIT_OK;
    sweep_acc_free(&acc);
    /* The result is in place: the checkpoint has served. */
    if (rc == EXIT_OK && s->checkpoint && lead) unlink(s->checkpoint);
    if (sweep_finish(l->v, l->n, tally, &cli_msg_stderr) && rc == EXIT_OK) rc = EXIT_RUNTIME;
  }
  if (s->stats && tally && lead)
    fprintf(stderr, "sweep stats: %" PRIu64 " cases in %.3f s on %d thread%s: %.6g cases/s; peak RSS %ld kB\n",
            meta.end - meta.start, dt, s->jobs, s->jobs == 1 ? "" : "s",
            dt > 0 ? (double)(meta.end - meta.start) / dt : 0.0, sweep_peak_rss_kb());
  if (s->profile && lead && rc != EXIT_USAGE) print_profile(&prof, l, s->jobs, dt);
  free(tally);
  sweep_meta_free(&meta);
  return rc;
}

/* Before any case: -o and --checkpoint are no plug-in given and not one file,
   and can be created. Rank 0 writes them, so rank 0 checks and every process
   ends with its verdict. EXIT_OK or an exit code. */
static int check_outputs(const sweep_args *s, int argc, char **argv) {
  const cli_file outs[] = {{"-o", s->out ? s->out : "-"}, {"--checkpoint", s->checkpoint}};
  int rc = sweep_dist_lead(s->dist) ? cli_outputs_check_args("sweep", outs, 2, NULL, 0, argc, argv, NULL, 0) : EXIT_OK;
  return (int)sweep_dist_share(s->dist, (uint64_t)rc);
}

static int sweep_main(sweep_args *s, int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    int rc = parse_option(s, argc, argv, &i);
    if (rc < 0) {
      help();
      return EXIT_OK;
    }
    if (rc != EXIT_OK) return rc;
  }
  if (s->g.family < 0) return cli_usage_error("sweep", "no family given (mixed is the default suite)");
  if (s->resume && !s->checkpoint) return cli_usage_error("sweep", "--resume needs --checkpoint FILE");
  if (s->checkpoint && s->out && !strcmp(s->checkpoint, s->out))
    return cli_usage_error("sweep", "--checkpoint and -o name the same file '%s'", s->out);
  toi_gen_opts o;
  if (gen_cli_build(&s->g, "sweep", TOI_GEN_MIXED, &o)) return EXIT_USAGE;
  candlist l = {0};
  int rc = s->time_what && !s->names ? EXIT_OK : columns(s, &l);
  if (rc == EXIT_OK && s->time_what) {
    int external = s->given.n > 0;
    for (size_t k = 0; k < l.n; k++) external |= (l.v[k].flags & TOI_CAND_EXTERNAL) != 0;
    rc = external ? cli_usage_error("sweep", "--time-only measures formulations only, not solvers") : time_only(s, &o);
  } else if (rc == EXIT_OK && l.n > SWEEP_MAXFORMS) {
    rc = cli_usage_error("sweep", "at most %d formulations and solvers", SWEEP_MAXFORMS);
  } else if (rc == EXIT_OK && (rc = check_outputs(s, argc, argv)) == EXIT_OK) {
    rc = sweep_columns(s, &o, &l);
  }
  candlist_free(&l);
  return rc;
}

/* toibench sweep; toibench-mpi gives dist, the processes sharing the cases. */
int cmd_sweep_dist(int argc, char **argv, const sweep_dist *dist) {
  sweep_args s;
  memset(&s, 0, sizeof s);
  gen_cli_init(&s.g);
  s.count = 100000;
  s.shard_i = s.shard_n = 1;
  s.jobs = sweep_default_jobs();
  s.tmax = INFINITY;
  s.timeout = 10;
  s.engine = TOI_REF_FAST;
  s.dist = dist;
  int rc = sweep_main(&s, argc, argv);
  candlist_free(&s.given);
  /* Stopped by a signal, its checkpoint saved: the process ends by that signal, so that a shell running it
     stops too (toibench-mpi returns the exit code 128 + N, for MPI_Finalize). */
  if (s.stop_sig && !dist) {
    fflush(NULL);
    raise(s.stop_sig);
  }
  return rc;
}

int cmd_sweep(int argc, char **argv) { return cmd_sweep_dist(argc, argv, NULL); }
