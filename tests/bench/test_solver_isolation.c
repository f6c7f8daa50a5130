/* test_solver_isolation.c: external solvers cannot reach the bench's files, leave processes behind or flood its stderr. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "tmp_dir.h"
#include "toi.h"
#include "candidate.h"

/* How a run of toibench ended: its streams, its time and its peak memory. */
typedef struct si_out {
  int status; /* exit status; 128 + N after signal N */
  double seconds;
  long maxrss_kb; /* ru_maxrss of toibench and the processes it waited for */
  char out[1 << 16], err[1 << 16];
} si_out;

static double si_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Runs toibench with args (NULL-terminated) in the test's directory, without
   a shell: env "NAME=VALUE" set (may be NULL), stdin /dev/null, both streams
   captured. The result stays valid until the next call. */
static si_out *si_run(const char *env, const char *const *args) {
  static si_out r;
  memset(&r, 0, sizeof r);
  const char *argv[64] = {TOIBENCH_PATH};
  int n = 1;
  for (; args[n - 1] && n < 63; n++) argv[n] = args[n - 1];
  argv[n] = NULL;
  char o[300], e[300];
  snprintf(o, sizeof o, "%s", td_path("si.out"));
  snprintf(e, sizeof e, "%s", td_path("si.err"));
  double t0 = si_now();
  pid_t pid = fork();
  cr_assert_geq(pid, 0);
  if (pid == 0) {
    if (env) putenv((char *)env);
    int in = open("/dev/null", O_RDONLY), fo = open(o, O_WRONLY | O_CREAT | O_TRUNC, 0600),
        fe = open(e, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (in < 0 || fo < 0 || fe < 0 || chdir(td_dir)) _exit(126);
    dup2(in, 0), dup2(fo, 1), dup2(fe, 2);
    /* Only the three streams: a process the run leaves behind must not hold the test runner's pipes. */
    for (int fd = 3; fd < 1024; fd++) close(fd);
    execv(argv[0], (char *const *)argv);
    _exit(127);
  }
  int st = 0;
  struct rusage ru;
  memset(&ru, 0, sizeof ru);
  while (wait4(pid, &st, 0, &ru) < 0) cr_assert_eq(errno, EINTR);
  r.seconds = si_now() - t0;
  r.maxrss_kb = ru.ru_maxrss;
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  cc_read_into(o, r.out, sizeof r.out);
  cc_read_into(e, r.err, sizeof r.err);
  return &r;
}

/* The 3-4-5 hit: s = (3, 12), v = (0, -2), R = 5: |s + v t|^2 = 9 + (12 - 2t)^2
   = 25 at t = 4 exactly, so an exact solver's row reads "hit hit 0x1p+2 0x1p+2 0 0". */
#define HIT345 " 2  0 0  0 0  2.5 1   3 12  0 -2  2.5 1\n"
#define EXACT_ROW "hit hit 0x1p+2 0x1p+2 0 0"

/* A case file name in the test's directory holding the cases ids[0..n-1], all the 3-4-5 hit. */
static const char *si_cases(const char *name, const char *const *ids, size_t n) {
  FILE *f = fopen(td_path(name), "w");
  cr_assert_not_null(f);
  for (size_t i = 0; i < n; i++) fprintf(f, "%s" HIT345, ids[i]);
  cr_assert_eq(fclose(f), 0);
  return td_path(name);
}

/* The number of times needle occurs in hay. */
static size_t si_count(const char *hay, const char *needle) {
  size_t k = 0;
  for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle)) k++;
  return k;
}

/* The row of the --rows text for case id and solver name must contain want. */
static void si_expect_row(const char *rows, const char *id, const char *name, const char *want) {
  char key[200];
  snprintf(key, sizeof key, "\n%s %s ", id, name);
  const char *p = strstr(rows, key);
  cr_assert_not_null(p, "no row for %s %s", id, name);
  p++;
  int len = (int)strcspn(p, "\n");
  cr_assert(strstr(p, want) && strstr(p, want) < p + len, "row '%.*s' lacks '%s'", len, p, want);
}

/* ---- the bench's descriptors ---- */

/* A plug-in writing into every descriptor from 3 to 64 reaches none of the
   bench's files: the --rows file, the table's file and the temporary files
   (the ULP errors spilled for the medians, the IDs of the duplicate check)
   are open while it runs, the evil cases being in the first block and in a
   block after the --rows file was created. The pipe of its end record is the
   only descriptor it has: writing there breaks the protocol, which is
   reported; its answers, in memory shared with the bench, stay whole. */
Test(isolation, plugin_cannot_write_into_the_bench_files, .init = td_setup, .fini = td_teardown) {
  enum { N = 9000 };
  static char idbuf[N + 2][24];
  static const char *ids[N + 2];
  for (int i = 0; i < N; i++) snprintf(idbuf[i], sizeof idbuf[i], "ok-%d", i);
  snprintf(idbuf[N], sizeof idbuf[N], "evil-0");
  snprintf(idbuf[N + 1], sizeof idbuf[N + 1], "evil-1");
  ids[0] = idbuf[N];
  for (int i = 0; i < N; i++) ids[1 + i] = idbuf[i];
  ids[N + 1] = idbuf[N + 1];
  const char *f = si_cases("evil.cases", ids, N + 2);
  char solver[4300];
  snprintf(solver, sizeof solver, "%s:fdwrite", cc_built("tests/solvers/fdwrite_plugin.so"));
  const char *args[] = {"run", "--timeout", "20", "--solver", solver, "--rows", "rows.txt", "-o", "table.txt",
                        f, NULL};
  si_out *r = si_run(NULL, args);
  char *rows = td_read("rows.txt"), *table = td_read("table.txt");
  cr_assert_null(strstr(rows, "EVIL"), "the plug-in wrote into the rows file");
  cr_assert_null(strstr(table, "EVIL"), "the plug-in wrote into the table");
  cr_assert_null(strstr(r->out, "EVIL"), "%s", r->out);
  /* Every case has its row once, exact: the answers are in memory shared with the bench, which the
     plug-in's writes to descriptors cannot reach. */
  cr_assert_eq(si_count(rows, "\n"), 1 + N + 2, "%s", r->err);
  si_expect_row(rows, "ok-0", "fdwrite", EXACT_ROW);
  si_expect_row(rows, "ok-8999", "fdwrite", EXACT_ROW);
  si_expect_row(rows, "evil-0", "fdwrite", EXACT_ROW);
  si_expect_row(rows, "evil-1", "fdwrite", EXACT_ROW);
  /* The medians come back from the spilled ULP errors intact: all exact. */
  char want[200];
  snprintf(want, sizeof want, "\n%-18s %7d %7d %7d %7d %7d %7d %10d %10d %10d", "fdwrite", N + 2, N + 2, 0, 0, 0,
           N + 2, 0, 0, 0);
  cr_assert(strstr(table, want), "%s", table);
  /* What it wrote into the pipe of its end record breaks the protocol. */
  cr_assert_eq(r->status, 1, "%s", r->err);
  cr_assert(strstr(r->err, "solver fdwrite: garbled answer stream (the plug-in wrote to the bench's pipe)"), "%s",
            r->err);
  free(rows);
  free(table);
}

/* Bytes after the last answer break the protocol too, though no case is lost. */
Test(isolation, plugin_writing_after_its_last_answer_breaks_the_protocol, .init = td_setup, .fini = td_teardown) {
  const char *ids[] = {"ok-1", "ok-2"};
  const char *f = si_cases("last.cases", ids, 2);
  char solver[4300];
  snprintf(solver, sizeof solver, "%s:fdwrite", cc_built("tests/solvers/fdwrite_plugin.so"));
  const char *args[] = {"run", "--solver", solver, "--rows", "rows.txt", f, NULL};
  si_out *r = si_run("TOI_TEST_EVIL_LAST=1", args);
  char *rows = td_read("rows.txt");
  si_expect_row(rows, "ok-1", "fdwrite", EXACT_ROW);
  si_expect_row(rows, "ok-2", "fdwrite", EXACT_ROW);
  free(rows);
  cr_assert(strstr(r->err, "toibench: solver fdwrite: garbled answer stream (the plug-in wrote to the bench's pipe)"),
            "%s", r->err);
  cr_assert_eq(r->status, 1, "%s", r->err);
}

/* ---- processes left behind ---- */

/* The process IDs in the file (one a line), at most max. */
static int si_pids(const char *path, long *pids, int max) {
  char buf[512] = "";
  cc_read_into(path, buf, sizeof buf);
  int n = 0;
  for (char *save = NULL, *t = strtok_r(buf, "\n", &save); t && n < max; t = strtok_r(NULL, "\n", &save))
    pids[n++] = atol(t);
  return n;
}

/* Whether the process is gone (killed and reaped); one still there is killed. */
static int si_gone(long pid) {
  for (int i = 0; i < 50 && kill((pid_t)pid, 0) == 0; i++) usleep(20000);
  if (kill((pid_t)pid, 0) != 0) return 1;
  kill((pid_t)pid, SIGKILL);
  return 0;
}

/* A solver that leaves a child holding its pipes: the run neither waits for
   it (the timeout is 20 s) nor leaves it running, and reports it as a
   protocol error (exit 1) naming the solver. */
static void expect_reaped(const char *solver_opt, const char *solver, const char *name, const char *id) {
  const char *ids[] = {"ok-1", id, "ok-2"};
  const char *f = si_cases("fork.cases", ids, 3);
  char env[400];
  snprintf(env, sizeof env, "TOI_TEST_PIDFILE=%s", td_path("pids"));
  const char *args[] = {"run", "--timeout", "20", solver_opt, solver, "--rows", "rows.txt", f, NULL};
  si_out *r = si_run(env, args);
  long pids[4];
  int np = si_pids(td_path("pids"), pids, 4);
  cr_assert_eq(np, 1, "the solver's child did not start: %s", r->err);
  cr_assert(si_gone(pids[0]), "%s's child %ld outlived the run", name, pids[0]);
  cr_assert_lt(r->seconds, 15, "took %gs: the run waited for the child holding the pipe", r->seconds);
  char *rows = td_read("rows.txt");
  for (int i = 0; i < 3; i++) si_expect_row(rows, ids[i], name, EXACT_ROW);
  free(rows);
  char want[200];
  snprintf(want, sizeof want, "toibench: solver %s: 1 process it started was still running when it ended", name);
  cr_assert(strstr(r->err, want), "%s", r->err);
  cr_assert_eq(r->status, 1, "%s", r->err);
}

Test(isolation, plugin_child_is_killed_and_reported, .init = td_setup, .fini = td_teardown) {
  char solver[4300];
  snprintf(solver, sizeof solver, "%s:forker", cc_built("tests/solvers/fork_plugin.so"));
  expect_reaped("--solver", solver, "forker", "fork-1");
}

Test(isolation, plugin_child_in_a_new_session_is_killed_and_reported, .init = td_setup, .fini = td_teardown) {
  char solver[4300];
  snprintf(solver, sizeof solver, "%s:forker", cc_built("tests/solvers/fork_plugin.so"));
  expect_reaped("--solver", solver, "forker", "setsid-1");
}

/* The same rule for a command: its leftover child is killed and reported. */
Test(isolation, command_child_is_killed_and_reported_the_same_way, .init = td_setup, .fini = td_teardown) {
  char cmd[4400];
  /* "pids" in the run's directory (a word with no '/' or '.', so that the command keeps its program's name). */
  snprintf(cmd, sizeof cmd, "%s --fork pids --setsid", cc_built("tests/solvers/misbehave_cmd"));
  expect_reaped("--solver-cmd", cmd, "misbehave_cmd", "ok-3");
}

/* A constructor leaving a child behind while the plug-in is described: the
   child is killed, and the plug-in refused naming it (a usage error). */
Test(isolation, plugin_constructor_child_is_killed_and_the_plugin_refused, .init = td_setup, .fini = td_teardown) {
  char env[400];
  snprintf(env, sizeof env, "TOI_TEST_PIDFILE=%s", td_path("pids"));
  setenv("TOI_TEST_CTOR", "fork", 1);
  const char *args[] = {"run", "--solver", cc_built("tests/solvers/ctor_plugin.so"),
                        TOI_SOURCE_DIR "/cases/degenerate.cases", NULL};
  si_out *r = si_run(env, args);
  unsetenv("TOI_TEST_CTOR");
  long pids[4];
  int np = si_pids(td_path("pids"), pids, 4);
  cr_assert_eq(np, 1, "the constructor's child did not start: %s", r->err);
  cr_assert(si_gone(pids[0]), "the constructor's child %ld outlived the run", pids[0]);
  cr_assert_eq(r->status, 2, "%s", r->err);
  cr_assert(strstr(r->err, "ctor_plugin.so: the plug-in left 1 process running while being loaded: killed"), "%s",
            r->err);
  cr_assert_str_empty(r->out);
}

/* ---- what a solver prints ---- */

/* A plug-in's stdout and stderr reach the bench's stderr a line at a time,
   prefixed with its name, the first 20 lines per solver and run, then a count. */
Test(isolation, plugin_output_is_prefixed_and_capped, .init = td_setup, .fini = td_teardown) {
  const char *ids[] = {"spam-1", "ok-1", "print-1"};
  const char *f = si_cases("spam.cases", ids, 3);
  char solver[4300];
  snprintf(solver, sizeof solver, "%s:misbehave", cc_built("tests/solvers/misbehave_plugin.so"));
  const char *args[] = {"run", "--solver", solver, f, NULL};
  si_out *r = si_run(NULL, args);
  cr_assert_eq(r->status, 0, "%s", r->err);
  /* 30 lines to stdout and 5 to stderr for spam-1, 1 for print-1. */
  cr_assert_eq(si_count(r->err, "toibench: solver misbehave: output: "), 20, "%s", r->err);
  cr_assert(strstr(r->err, "toibench: solver misbehave: output: PLUGIN-SPAM 0\n"), "%s", r->err);
  cr_assert(strstr(r->err, "toibench: solver misbehave: output: PLUGIN-SPAM 19\n"), "%s", r->err);
  cr_assert_null(strstr(r->err, "PLUGIN-SPAM 20"), "%s", r->err);
  cr_assert_null(strstr(r->err, "PLUGIN-STDOUT-NOISE"), "%s", r->err);
  cr_assert_eq(si_count(r->err, "PLUGIN-SPAM"), 20, "%s", r->err);
  cr_assert(strstr(r->err, "toibench: solver misbehave: 16 more output lines not shown\n"), "%s", r->err);
  cr_assert_null(strstr(r->out, "PLUGIN"), "%s", r->out);
}

/* ---- one rule for a verdict that is not a class ---- */

Test(isolation, bad_verdict_fails_the_run_as_an_unknown_class_does, .init = td_setup, .fini = td_teardown) {
  const char *ids[] = {"ok-1", "badclass-1", "ok-2"};
  const char *f = si_cases("bad.cases", ids, 3);
  char solver[4300];
  snprintf(solver, sizeof solver, "%s:misbehave", cc_built("tests/solvers/misbehave_plugin.so"));
  const char *args[] = {"run", "--solver", solver, f, NULL};
  si_out *r = si_run(NULL, args);
  cr_assert(strstr(r->err, "toibench: solver misbehave: case badclass-1: verdict 42 is not a class"), "%s", r->err);
  cr_assert(strstr(r->err, "solver misbehave: 1 case lost to crashes, hangs or protocol errors"), "%s", r->err);
  int plugin_status = r->status;
  /* The command's unknown class: the same exit status. */
  const char *cids[] = {"ok-1", "bad-1", "bad-2", "ok-2"};
  f = si_cases("badcmd.cases", cids, 4);
  const char *cargs[] = {"run", "--solver-cmd", cc_built("tests/solvers/misbehave_cmd"), f, NULL};
  r = si_run(NULL, cargs);
  cr_assert(strstr(r->err, "toibench: solver misbehave_cmd: case bad-2: malformed answer: unknown class 'banana'"),
            "%s", r->err);
  cr_assert_eq(r->status, 1, "%s", r->err);
  cr_assert_eq(plugin_status, r->status);
}

/* ---- empty names ---- */

/* Every command taking -f, --solver or --solver-cmd refuses an empty name in
   a list and an empty or blank command, as a usage error. */
Test(isolation, empty_names_and_blank_commands_are_usage_errors) {
  static const char *const lists[] = {"ericson,,robust", ",ericson", "ericson,", "", " ", "ericson, ,robust"};
  /* Each command line with %s where the list goes (quoted: cc_run splits without a shell). */
  static const char *const with_f[][2] = {
      {"run", "run -f '%s' cases/degenerate.cases"},
      {"solve", "solve -f '%s' cases/degenerate.cases"},
      {"audit", "audit -f '%s' cases/degenerate.cases"},
      {"sweep", "sweep grazing --count 10 -q -f '%s'"},
      {"hunt", "hunt grazing --budget 10 -q -f '%s'"},
      {"simulate", "simulate --n 4 -f '%s'"},
  };
  char line[512], want[80];
  for (size_t c = 0; c < sizeof with_f / sizeof *with_f; c++)
    for (size_t k = 0; k < sizeof lists / sizeof *lists; k++) {
      snprintf(line, sizeof line, with_f[c][1], lists[k]);
      cc_out *r = cc_run(NULL, line);
      cr_assert_eq(r->status, 2, "toibench %s: status %d: %s", line, r->status, r->err);
      snprintf(want, sizeof want, "Try 'toibench %s --help'", with_f[c][0]);
      cr_assert(strstr(r->err, want), "toibench %s: %s", line, r->err);
      cr_assert_str_empty(r->out, "toibench %s", line);
    }
  static const char *const blanks[] = {"", " ", " \t "};
  static const char *const with_cmd[] = {
      "run --solver-cmd '%s' cases/degenerate.cases",
      "sweep grazing --count 10 -q --solver-cmd '%s'",
      "hunt grazing --budget 10 -q --solver-cmd '%s'",
      "report --quick --quiet --out /nonexistent/dir --solver-cmd '%s'",
  };
  for (size_t c = 0; c < sizeof with_cmd / sizeof *with_cmd; c++)
    for (size_t k = 0; k < sizeof blanks / sizeof *blanks; k++) {
      snprintf(line, sizeof line, with_cmd[c], blanks[k]);
      cc_out *r = cc_run(NULL, line);
      cr_assert_eq(r->status, 2, "toibench %s: status %d: %s", line, r->status, r->err);
      cr_assert(strstr(r->err, "--solver-cmd needs a command"), "toibench %s: %s", line, r->err);
      cr_assert(strstr(r->err, "Try 'toibench "), "toibench %s: %s", line, r->err);
    }
}

/* ---- run with an external solver streams its files ---- */

/* run --solver-cmd on 200000 cases: its peak memory must stay well below what
   holding the cases and one answer each would take (sizeof(toi_case) +
   sizeof(toi_answer) bytes a case, about 100 MB here, before the input text,
   the rows and the reference): a stream holds a few blocks of 4096 cases. */
Test(isolation, run_with_a_solver_streams_in_bounded_memory, .init = td_setup, .fini = td_teardown,
     .timeout = 600) {
#if defined(__SANITIZE_ADDRESS__)
  cr_skip_test("AddressSanitizer's shadow memory makes the resident size meaningless");
#endif
  const long n = 200000;
  char count[32];
  snprintf(count, sizeof count, "%ld", n);
  const char *gen[] = {"gen", "mixed", "--count", count, "-o", "big.cases", NULL};
  si_out *r = si_run(NULL, gen);
  cr_assert_eq(r->status, 0, "%s", r->err);
  const char *args[] = {"run", "--solver-cmd", cc_built("examples/solver_c"), "--rows", "rows.txt", "big.cases", NULL};
  r = si_run(NULL, args);
  cr_assert_eq(r->status, 0, "%s", r->err);
  char want[64];
  snprintf(want, sizeof want, "# toibench run: %ld cases from 1 file", n);
  cr_assert(strstr(r->out, want), "%s", r->out);
  double held = (double)n * (double)(sizeof(toi_case) + sizeof(toi_answer));
  cr_assert_lt((double)r->maxrss_kb * 1024, held / 2, "peak %ld kB, holding the cases would take %.0f kB",
               r->maxrss_kb, held / 1024);
}

/* Output stays all or nothing: a duplicate ID found at the end of a file
   refuses it after the solver ran on its first blocks, and nothing is written. */
Test(isolation, run_with_a_solver_writes_nothing_for_invalid_input, .init = td_setup, .fini = td_teardown) {
  enum { N = 9000 };
  static char idbuf[N][24];
  static const char *ids[N];
  for (int i = 0; i < N; i++) snprintf(idbuf[i], sizeof idbuf[i], "c-%d", i == N - 1 ? 0 : i);
  for (int i = 0; i < N; i++) ids[i] = idbuf[i];
  const char *f = si_cases("dup.cases", ids, N);
  const char *args[] = {"run", "--solver-cmd", cc_built("examples/solver_c"), "--rows", "rows.txt", "-o", "table.txt",
                        f, NULL};
  si_out *r = si_run(NULL, args);
  cr_assert_eq(r->status, 3, "%s", r->err);
  cr_assert(strstr(r->err, "duplicate"), "%s", r->err);
  cr_assert(!td_exists(td_path("rows.txt")));
  cr_assert(!td_exists(td_path("table.txt")));
  cr_assert_str_empty(r->out);
}

/* Failure messages and relayed stderr lines are capped per solver over the
   whole run, not per block of cases. */
Test(isolation, run_caps_messages_over_every_block, .init = td_setup, .fini = td_teardown) {
  enum { N = 9000 };
  static char idbuf[N][24];
  static const char *ids[N];
  for (int i = 0; i < N; i++) snprintf(idbuf[i], sizeof idbuf[i], "%s-%d", i % 300 == 7 ? "nan" : "ok", i);
  for (int i = 0; i < N; i++) ids[i] = idbuf[i];
  const char *f = si_cases("cap.cases", ids, N);
  char cmd[4300];
  snprintf(cmd, sizeof cmd, "%s --stderr", cc_built("tests/solvers/misbehave_cmd"));
  const char *args[] = {"run", "--solver-cmd", cmd, f, NULL};
  si_out *r = si_run(NULL, args);
  cr_assert_eq(r->status, 0, "%s", r->err);
  cr_assert_eq(si_count(r->err, ": verdict hit with time nan"), 20, "%s", r->err);
  cr_assert(strstr(r->err, "toibench: solver misbehave_cmd: case nan-7: verdict hit with time nan"), "%s", r->err);
  cr_assert(strstr(r->err, "toibench: solver misbehave_cmd: 10 more failed cases not shown"), "%s", r->err);
  cr_assert_eq(si_count(r->err, "toibench: solver misbehave_cmd: stderr: "), 20, "%s", r->err);
  cr_assert_eq(si_count(r->err, "more stderr lines not shown"), 1, "%s", r->err);
}
