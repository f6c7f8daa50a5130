/* test_sweep_solver.c: `toibench sweep` with external solvers: scored like formulations, deterministic, robust. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cli_check.h"
#include "test_env.h"

/* Case counts grow with TOI_TEST_SCALE. */
static long ss_count(long base) {
  const char *e = getenv("TOI_TEST_SCALE");
  long k = e ? atol(e) : 1;
  return base * (k > 0 ? k : 1);
}

/* The generator seed of every sweep here (TOI_TEST_SEED overrides it); printed on failure. */
static unsigned long long ss_seed(void) { return te_seed(1); }

static char ss_dir[64];

static void ss_setup(void) {
  snprintf(ss_dir, sizeof ss_dir, "/tmp/toisweepsolverXXXXXX");
  cr_assert_not_null(mkdtemp(ss_dir));
}

static void ss_teardown(void) {
  cc_rmtree(ss_dir);
}

/* A file in the temporary directory. */
static const char *ss_path(const char *name) {
  static char buf[8][256];
  static int k;
  k = (k + 1) % 8;
  snprintf(buf[k], sizeof buf[k], "%s/%s", ss_dir, name);
  return buf[k];
}



/* Runs `ENV toibench ARGS` in the temporary directory, stdout to OUT there
   (NULL: the file "stdout"), stderr to "err", stdin closed. Exit status. */
static int ss_tb(const char *env, const char *args, const char *out) {
  char *cmd = malloc(20000);
  cr_assert_not_null(cmd);
  snprintf(cmd, 20000, "%s '%s' %s >'%s' 2>err </dev/null", env ? env : "", TOIBENCH_PATH, args,
           out ? out : "stdout");
  int st = cc_cmd(ss_dir, cmd);
  free(cmd);
  return st;
}

static char *ss_err(void) { return cc_read(ss_path("err")); }

/* The records of column NAME (stat, hist, khist, confusion, witness lines),
   with the name replaced by X, in file order: what two columns scoring the
   same answers must share. */
static char *ss_column(const char *text, const char *name) {
  static const char *const tags[] = {"stat ", "hist ", "khist ", "confusion ", "witness "};
  char *out = malloc(strlen(text) + 1);
  cr_assert_not_null(out);
  size_t n = 0;
  for (const char *p = text; *p;) {
    size_t len = strcspn(p, "\n");
    for (size_t k = 0; k < sizeof tags / sizeof tags[0]; k++) {
      size_t tl = strlen(tags[k]), nl = strlen(name);
      if (!strncmp(p, tags[k], tl) && !strncmp(p + tl, name, nl) && p[tl + nl] == ' ') {
        n += (size_t)sprintf(out + n, "%sX%.*s\n", tags[k], (int)(len - tl - nl), p + tl + nl);
        break;
      }
    }
    p += len + (p[len] == '\n');
  }
  out[n] = 0;
  return out;
}

/* Lines of text starting with prefix. */
static int ss_lines(const char *text, const char *prefix) {
  int n = 0;
  size_t l = strlen(prefix);
  for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) n += !strncmp(p, prefix, l);
  return n;
}

/* Sums fields k of the "stat NAME " lines (0-based, space-separated). */
static unsigned long long ss_stat_sum(const char *text, const char *name, int k) {
  char prefix[128];
  snprintf(prefix, sizeof prefix, "stat %s ", name);
  unsigned long long sum = 0;
  for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
    if (strncmp(p, prefix, strlen(prefix))) continue;
    const char *f = p;
    for (int i = 0; i < k && f; i++) f = strchr(f, ' ') ? strchr(f, ' ') + 1 : NULL;
    cr_assert_not_null(f);
    sum += strtoull(f, NULL, 10);
  }
  return sum;
}

/* A formulation served through the subprocess protocol gives the
   formulation's answers bit for bit, so its column must be the formulation's
   column line for line: this checks the solver path's scoring against the
   formulation path's, independently of both. */
Test(sweep_solver, formulation_through_the_protocol_scores_like_the_formulation, .init = ss_setup,
     .fini = ss_teardown) {
  char args[9000];
  long n = ss_count(3000);
  snprintf(args, sizeof args, "sweep aimed --count %ld --seed %llu --quiet --solver-cmd '%s solve -f expanded -'", n,
           ss_seed(), TOIBENCH_PATH);
  cr_assert_eq(ss_tb(NULL, args, "s"), 0, "seed %llu", ss_seed());
  snprintf(args, sizeof args, "sweep aimed --count %ld --seed %llu --quiet -f expanded", n, ss_seed());
  cr_assert_eq(ss_tb(NULL, args, "f"), 0);
  char *s = cc_read(ss_path("s")), *f = cc_read(ss_path("f"));
  cr_assert(strstr(s, "\nformulations toibench\n"), "the solver's column is named after the command:\n%.400s", s);
  char *cs = ss_column(s, "toibench"), *cf = ss_column(f, "expanded");
  cr_assert_gt(ss_lines(cf, "hist X "), 0);
  cr_assert_gt(ss_lines(cf, "khist X "), 0);
  cr_assert_gt(ss_lines(cf, "witness X "), 0);
  cr_assert_str_eq(cs, cf, "seed %llu", ss_seed());
  free(cs);
  free(cf);
  free(s);
  free(f);

  /* The same on grazing cases, where expanded misclassifies (a misclass
     witness to compare), with both columns in one sweep and, with --tmax,
     every column scored as hit within the step (the solver is given the
     step; a formulation's own answer ignores it, so both still agree). */
  for (int step = 0; step < 2; step++) {
    snprintf(args, sizeof args,
             "sweep grazing --count %ld --seed %llu --quiet -f expanded %s --solver-cmd '%s solve -f expanded -'",
             ss_count(20000), ss_seed(), step ? "--tmax 1.5" : "", TOIBENCH_PATH);
    cr_assert_eq(ss_tb(NULL, args, "g"), 0);
    char *g = cc_read(ss_path("g"));
    cr_assert(strstr(g, "\nformulations expanded toibench\n"), "%.400s", g);
    cr_assert_eq(strstr(g, " tmax=0x1.8p+0\n") != NULL, step, "the step is on the gen line: %.400s", g);
    char *a = ss_column(g, "expanded"), *b = ss_column(g, "toibench");
    cr_assert_gt(ss_lines(a, "witness X "), 0);
    cr_assert(strstr(a, " misclass "), "seed %llu: no classification error to compare", ss_seed());
    cr_assert_str_eq(a, b, "seed %llu, step %d", ss_seed(), step);
    free(a);
    free(b);
    free(g);
  }
}

/* Adding a solver column leaves the formulations' records as they were: the
   bins and every record of the formulation, byte for byte. */
Test(sweep_solver, a_solver_column_leaves_the_formulations_unchanged, .init = ss_setup, .fini = ss_teardown) {
  char args[9000];
  long n = ss_count(20000);
  snprintf(args, sizeof args, "sweep grazing --count %ld --seed %llu --quiet -f expanded,robust", n, ss_seed());
  cr_assert_eq(ss_tb(NULL, args, "f"), 0);
  snprintf(args, sizeof args, "sweep grazing --count %ld --seed %llu --quiet -f expanded,robust --solver-cmd '%s'", n,
           ss_seed(), cc_built("examples/solver_c"));
  cr_assert_eq(ss_tb(NULL, args, "s"), 0);
  char *f = cc_read(ss_path("f")), *s = cc_read(ss_path("s"));
  cr_assert(strstr(s, "\nformulations expanded robust solver_c\n"), "%.400s", s);
  const char *const names[] = {"expanded", "robust"};
  for (int k = 0; k < 2; k++) {
    char *a = ss_column(f, names[k]), *b = ss_column(s, names[k]);
    cr_assert_gt(strlen(a), 0);
    cr_assert_str_eq(a, b, "%s", names[k]);
    free(a);
    free(b);
  }
  /* The bin records: the same cases, the same exact classes. */
  const char *bf = strstr(f, "\nbin 0 "), *bs = strstr(s, "\nbin 0 ");
  cr_assert(bf && bs);
  size_t lf = (size_t)(strstr(bf, "\n\n") - bf), ls = (size_t)(strstr(bs, "\n\n") - bs);
  cr_assert(lf == ls && !memcmp(bf, bs, lf), "the bin records differ");
  /* Every case is in the solver's column, answered or not. */
  cr_assert_eq(ss_stat_sum(s, "solver_c", 3), (unsigned long long)n);
  free(f);
  free(s);
}

/* The example plug-in and an engine named by -f (an engines directory whose
   manifest names the example command): any -j gives the same bytes, and the
   shards, cut inside a block of cases, merge into the whole sweep. */
Test(sweep_solver, solvers_independent_of_threads_and_shards, .init = ss_setup, .fini = ss_teardown) {
  char manifest[300], line[4400], env[300], args[9000];
  snprintf(manifest, sizeof manifest, "%s/ex.solvers", ss_dir);
  snprintf(line, sizeof line, "ex-engine\t%s\tthe example, as an engine\n", cc_built("examples/solver_c"));
  FILE *m = fopen(manifest, "w");
  cr_assert_not_null(m);
  fputs(line, m);
  fclose(m);
  snprintf(env, sizeof env, "TOIBENCH_ENGINES='%s'", ss_dir);
  long n = ss_count(20000);
  const char *base = "sweep grazing --count %ld --seed %llu --quiet -f accurate,ex-engine --solver '%s' %s";
  const char *const runs[][2] = {{"-j1", "j1"}, {"-j2", "j2"}, {"-j2 --shard 1/2", "s1"}, {"-j1 --shard 2/2", "s2"}};
  for (int k = 0; k < 4; k++) {
    snprintf(args, sizeof args, base, n, ss_seed(), cc_built("examples/example_plugin.so"), runs[k][0]);
    cr_assert_eq(ss_tb(env, args, runs[k][1]), 0, "%s", runs[k][0]);
  }
  char *j1 = cc_read(ss_path("j1")), *j2 = cc_read(ss_path("j2"));
  cr_assert(strstr(j1, "\nformulations accurate ex-engine example-stable\n"), "%.400s", j1);
  cr_assert_str_eq(j1, j2, "seed %llu: -j1 and -j2 differ", ss_seed());
  cr_assert_eq(ss_tb(NULL, "merge s2 s1", "m"), 0);
  char *merged = cc_read(ss_path("m"));
  cr_assert_str_eq(merged, j1, "seed %llu: the merged shards differ from the whole sweep", ss_seed());
  /* Both solvers answered every case and their times were scored. */
  cr_assert_eq(ss_stat_sum(j1, "ex-engine", 4), (unsigned long long)n);
  cr_assert_eq(ss_stat_sum(j1, "example-stable", 4), (unsigned long long)n);
  cr_assert_gt(ss_stat_sum(j1, "example-stable", 10), 0);
  free(j1);
  free(j2);
  free(merged);
}

/* Writes a shell script NAME in the temporary directory; returns its path. */
static const char *ss_script(const char *name, const char *text) {
  const char *p = ss_path(name);
  FILE *f = fopen(p, "w");
  cr_assert_not_null(f);
  fputs(text, f);
  fclose(f);
  return p;
}

/* The broken command, its IDs renamed by sed on the way in (as in the hunt
   tests): IDs ending in 7 crash it, case 13 hangs it. The result is
   complete, the lost cases are OUT_OF_DOMAIN, and the exit status is 1. */
Test(sweep_solver, misbehaving_solver_is_counted_and_fails_the_run, .init = ss_setup, .fini = ss_teardown,
     .timeout = 120) {
  char text[4400], args[9000];
  long n = 300;
  snprintf(text, sizeof text, "sed -u 's/^\\([^ #]*7\\) /crash-\\1 /; s/^\\([^ #]*000013\\) /hang-\\1 /' | '%s'\n",
           cc_built("tests/solvers/misbehave_cmd"));
  snprintf(args, sizeof args, "sweep aimed --count %ld --quiet --timeout 1 -f expanded --solver-cmd 'sh %s'", n,
           ss_script("broken.sh", text));
  cr_assert_eq(ss_tb(NULL, args, "r"), 1, "a crash makes the exit status 1");
  char *r = cc_read(ss_path("r")), *err = ss_err();
  cr_assert(strstr(r, "\nformulations expanded broken.sh\n"), "%.400s", r);
  /* Indexes 0 .. n-1: n/10 end in 7, and case 13. */
  unsigned long long lost = (unsigned long long)(n / 10 + 1);
  cr_assert_eq(ss_stat_sum(r, "broken.sh", 3), (unsigned long long)n);
  cr_assert_eq(ss_stat_sum(r, "broken.sh", 5), lost, "%s", err);
  cr_assert_eq(ss_stat_sum(r, "broken.sh", 4), (unsigned long long)n - lost);
  cr_assert_eq(ss_stat_sum(r, "expanded", 5), 0);
  /* The scored cases are classified: agree + missed + ghost + other = in domain. */
  unsigned long long cls = 0;
  for (int k = 6; k <= 9; k++) cls += ss_stat_sum(r, "broken.sh", k);
  cr_assert_eq(cls, (unsigned long long)n - lost);
  cr_assert(strstr(err, "solver broken.sh: case aimed-000007: the solver crashed (signal 11"), "%s", err);
  cr_assert(strstr(err, "solver broken.sh: case aimed-000013: no answer within 1s"), "%s", err);
  cr_assert(strstr(err, "solver broken.sh: 11 more failed cases not shown"), "%s", err);
  cr_assert(strstr(err, "lost to crashes, hangs or protocol errors"), "%s", err);
  /* Complete: merge reads it back into the same bytes. */
  cr_assert_eq(ss_tb(NULL, "merge r", "m"), 0);
  char *m = cc_read(ss_path("m"));
  cr_assert_str_eq(m, r);
  free(m);
  free(r);
  free(err);
}

/* A solver that declines some cases (expanded's answers, IDs ending in 5
   turned into 'ID unsupported'): those are OUT_OF_DOMAIN, the others are
   expanded's, and declining is no failure (exit 0). */
Test(sweep_solver, declined_cases_are_out_of_domain, .init = ss_setup, .fini = ss_teardown) {
  char text[4400], args[9000];
  long n = ss_count(2000);
  snprintf(text, sizeof text, "'%s' solve -f expanded - | sed -u 's/^\\([^ ]*5\\) .*/\\1 unsupported/'\n",
           TOIBENCH_PATH);
  snprintf(args, sizeof args, "sweep aimed --count %ld --quiet -f expanded --solver-cmd 'sh %s'", n,
           ss_script("declines.sh", text));
  cr_assert_eq(ss_tb(NULL, args, "r"), 0);
  char *r = cc_read(ss_path("r")), *err = ss_err();
  cr_assert_eq(ss_stat_sum(r, "declines.sh", 5), (unsigned long long)(n / 10), "%s", err);
  cr_assert_eq(ss_stat_sum(r, "declines.sh", 4), (unsigned long long)(n - n / 10));
  cr_assert_null(strstr(err, ": case "), "a declined case is no failure: %s", err);
  cr_assert(strstr(err, "declined cases not scored (counted in OUT_OF_DOMAIN)"), "%s", err);
  /* Fewer cases timed than expanded, never more. */
  cr_assert_leq(ss_stat_sum(r, "declines.sh", 10), ss_stat_sum(r, "expanded", 10));
  cr_assert_gt(ss_stat_sum(r, "declines.sh", 10), 0);
  free(r);
  free(err);
}

Test(sweep_solver, usage_errors, .init = ss_setup, .fini = ss_teardown) {
  char solver[4400], time_only[4400];
  snprintf(solver, sizeof solver, "sweep aimed --count 10 --solver '%s' --time-only expanded",
           cc_built("examples/example_plugin.so"));
  snprintf(time_only, sizeof time_only, "sweep aimed --count 10 --solver-cmd '%s' --time-only reference",
           cc_built("examples/solver_c"));
  const char *const cases[][2] = {
      {"sweep aimed -f no-such-solver", "unknown formulation or solver 'no-such-solver'"},
      {"sweep aimed -f expanded,nosuch", "unknown formulation or solver 'nosuch'"},
      {solver, "--time-only measures formulations only"},
      {time_only, "--time-only measures formulations only"},
      {"sweep aimed --solver-cmd cat --target-distance 0.1", "--target-distance is not supported"},
      {"sweep aimed --solver /nonexistent/lib.so", "no such plug-in file"},
      {"sweep aimed --solver-cmd ''", "needs a command"},
      {"sweep aimed --solver-cmd cat --tmax 0", "--tmax needs"},
      {"sweep aimed --solver-cmd cat --timeout -1", "--timeout needs"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    cr_assert_eq(ss_tb(NULL, cases[k][0], NULL), 2, "%s", cases[k][0]);
    char *err = ss_err(), *out = cc_read(ss_path("stdout"));
    cr_assert(strstr(err, cases[k][1]), "%s: %s", cases[k][0], err);
    size_t n = strlen(err);
    const char *tail = "Try 'toibench sweep --help'\n";
    cr_assert(n >= strlen(tail) && !strcmp(err + n - strlen(tail), tail), "%s: %s", cases[k][0], err);
    cr_assert_str_empty(out, "%s", cases[k][0]);
    free(err);
    free(out);
  }
  cr_assert_eq(ss_tb(NULL, "sweep --help", NULL), 0);
  char *h = cc_read(ss_path("stdout"));
  cr_assert(strstr(h, "--solver-cmd COMMAND") && strstr(h, "declined or failed"), "%s", h);
  free(h);
}

/* A solver that writes to stderr on every case: the first 20 lines of the
 * whole sweep are relayed and the rest counted once at the end, not 20 per
 * block. The solver here copies each input line to stderr: per block of
 * 16384 cases, the protocol's 3 header lines (the last the offer of the
 * binary protocol, which the example declines with --text) and one line per
 * case. */
Test(sweep_solver, noisy_solver_stderr_shown_twenty_times_in_all, .init = ss_setup, .fini = ss_teardown) {
  long n = 40000; /* three blocks */
  char args[9000];
  snprintf(args, sizeof args, "sweep aimed --count %ld --quiet -o r.txt --solver-cmd \"tee /dev/stderr | '%s' --text\"",
           n, cc_built("examples/solver_c"));
  cr_assert_eq(ss_tb(NULL, args, NULL), 0);
  char *err = ss_err();
  int relayed = 0;
  for (const char *p = strstr(err, ": stderr: "); p; p = strstr(p + 1, ": stderr: ")) relayed++;
  cr_assert_eq(relayed, 20, "%.2000s", err);
  long blocks = (n + 16383) / 16384, more = n + 3 * blocks - 20;
  char want[128];
  snprintf(want, sizeof want, ": %ld more stderr lines not shown\n", more);
  cr_assert(strstr(err, want), "want '%s' in\n%.3000s", want, err);
  const char *first = strstr(err, "more stderr lines not shown");
  cr_assert(first && !strstr(first + 1, "more stderr lines not shown"), "%.3000s", err);
  free(err);
}
