/* test_solvers.c: external solvers: the subprocess protocol, the plug-in ABI, the engine adapters, fair scoring. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
#include "bench.h"
#include "cli_check.h"
#include "solvers.h"
#include "rng.h"
#include "test_env.h"
#include "ref_forms.h"

/* The build directory: where toibench, the example solvers and the broken
 * test solvers are (make BUILD=... moves them all). */
static const char *bin_dir(void) {
  static char dir[4096];
  if (!dir[0]) {
    snprintf(dir, sizeof dir, "%s", TOIBENCH_PATH);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0;
  }
  return dir;
}

static const char *bin_path(int slot, const char *rel) {
  static char paths[4][4200];
  snprintf(paths[slot], sizeof paths[slot], "%s/%s", bin_dir(), rel);
  return paths[slot];
}

/* ---- running toibench ---- */

typedef struct sol_out {
  int status;
  double seconds;
  char out[1 << 17];
  char err[1 << 15];
} sol_out;

static void sol_slurp(const char *path, char *buf, size_t n) {
  FILE *f = fopen(path, "r");
  size_t got = f ? fread(buf, 1, n - 1, f) : 0;
  buf[got] = 0;
  if (f) fclose(f);
}

static double sol_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A hang is stopped after --timeout 1 per case: the whole run must end, but
   how fast depends on the machine's load, so the bound only separates
   "stopped" from "hung" (a run that waited for the hanging solver would
   never finish). */
#define SOL_NOT_HUNG 60

/* Runs `ENV toibench ARGS` in the source directory; captures both streams. */
static sol_out *sol_run(const char *env, const char *args) {
  static sol_out r;
  char dir[] = "/tmp/toisolXXXXXX";
  cr_assert_not_null(mkdtemp(dir));
  char cmd[8192], o[64], e[64];
  snprintf(o, sizeof o, "%s/out", dir);
  snprintf(e, sizeof e, "%s/err", dir);
  snprintf(cmd, sizeof cmd, "%s '%s' %s >%s 2>%s </dev/null", env ? env : "", TOIBENCH_PATH, args, o, e);
  double t0 = sol_now();
  r.status = cc_cmd(TOI_SOURCE_DIR, cmd);
  r.seconds = sol_now() - t0;
  sol_slurp(o, r.out, sizeof r.out);
  sol_slurp(e, r.err, sizeof r.err);
  unlink(o);
  unlink(e);
  rmdir(dir);
  return &r;
}

/* A temporary case file holding text; the path is returned in a static buffer per slot. */
static const char *sol_cases(int slot, const char *text) {
  static char paths[4][64];
  snprintf(paths[slot], sizeof paths[slot], "/tmp/toisolcasesXXXXXX");
  int fd = mkstemp(paths[slot]);
  cr_assert_geq(fd, 0);
  FILE *f = fdopen(fd, "w");
  fputs(text, f);
  fclose(f);
  return paths[slot];
}

/* The line of the rows file for case id and solver name, or NULL. */
static const char *sol_row(const char *rows, const char *id, const char *name, char *line, size_t n) {
  char key[160];
  snprintf(key, sizeof key, "\n%s %s ", id, name);
  const char *p = strstr(rows, key);
  if (!p) return NULL;
  p++;
  size_t k = strcspn(p, "\n");
  snprintf(line, n, "%.*s", (int)k, p);
  return line;
}

/* The 3-4-5 hit of cases/degenerate.cases: s = (3, 12), v = (0, -2), R = 5:
 * |s + v t|^2 = 9 + (12 - 2t)^2 = 25 at t = 4 and t = 8, exactly. */
#define HIT345 "2  0 0  0 0  2.5 1   3 12  0 -2  2.5 1"

static char *sol_lines(const char *const *ids, size_t n) {
  static char buf[1 << 14];
  buf[0] = 0;
  for (size_t i = 0; i < n; i++) {
    strcat(buf, ids[i]);
    strcat(buf, " " HIT345 "\n");
  }
  return buf;
}

static void expect_row(const char *rows, const char *id, const char *name, const char *want) {
  char line[512];
  cr_assert_not_null(sol_row(rows, id, name, line, sizeof line), "no row for %s %s in:\n%s", id, name, rows);
  cr_assert(strstr(line, want), "row '%s' lacks '%s'", line, want);
}

/* Runs with --rows into a file and returns the rows text, led by a newline
 * (valid until the next call). */
static const char *sol_run_rows(const char *env, const char *args, sol_out **r) {
  static char *rows;
  char path[] = "/tmp/toisolrowsXXXXXX";
  int fd = mkstemp(path);
  close(fd);
  char full[8192];
  snprintf(full, sizeof full, "%s --rows %s", args, path);
  *r = sol_run(env, full);
  struct stat st;
  size_t size = stat(path, &st) == 0 ? (size_t)st.st_size : 0;
  free(rows);
  rows = malloc(size + 2);
  cr_assert_not_null(rows);
  rows[0] = '\n';
  sol_slurp(path, rows + 1, size + 1);
  unlink(path);
  return rows;
}

/* ---- the subprocess protocol ---- */

#define MISBEHAVE bin_path(3, "tests/solvers/misbehave_cmd")

/* `toibench run PRE--solver-cmd 'misbehave_cmd OPTS' FILE --rows ROWS`, FILE
   the 3-4-5 hit under each of the n ids: the rows text (sol_run_rows) and
   the run in *r. */
static const char *misbehave_rows(const char *pre, const char *opts, const char *const *ids, size_t n, sol_out **r) {
  const char *f = sol_cases(0, sol_lines(ids, n));
  char args[8192];
  snprintf(args, sizeof args, "run %s--solver-cmd '%s%s' %s", pre, MISBEHAVE, opts, f);
  const char *rows = sol_run_rows(NULL, args, r);
  unlink(f);
  return rows;
}

Test(solver, cmd_correct_answers_score_exactly) {
  static const char *ids[] = {"ok-1", "ok-2"};
  sol_out *r;
  const char *rows = misbehave_rows("", "", ids, 2, &r);
  cr_assert_eq(r->status, 0, "%s", r->err);
  expect_row(rows, "ok-1", "misbehave_cmd", "ok-1 misbehave_cmd hit hit 0x1p+2 0x1p+2 0 0");
  expect_row(rows, "ok-2", "misbehave_cmd", "hit hit 0x1p+2 0x1p+2 0 0");
}

Test(solver, cmd_crash_is_reported_and_the_run_goes_on) {
  static const char *ids[] = {"ok-1", "crash-1", "ok-2", "ok-3"};
  sol_out *r;
  const char *rows = misbehave_rows("", "", ids, 4, &r);
  cr_assert_eq(r->status, 1, "a crash fails the run: %s", r->err);
  expect_row(rows, "crash-1", "misbehave_cmd", "failed");
  expect_row(rows, "ok-2", "misbehave_cmd", "hit hit 0x1p+2");
  expect_row(rows, "ok-3", "misbehave_cmd", "hit hit 0x1p+2");
  cr_assert(strstr(r->err, "case crash-1: the solver crashed (signal 11"), "%s", r->err);
  cr_assert(strstr(r->out, "(1 failed)"), "%s", r->out);
}

/* A crash on the first case of a batch (no answer yet) costs that case alone:
   a fresh process takes the rest. Two processes in a row that answer nothing
   end the solver's run: the cases left fail with the second crash's reason. */
Test(solver, cmd_crash_on_the_first_case_costs_that_case_alone) {
  static const char *ids[] = {"crash-1", "ok-1", "ok-2"};
  sol_out *r;
  const char *rows = misbehave_rows("", "", ids, 3, &r);
  cr_assert_eq(r->status, 1, "%s", r->err);
  expect_row(rows, "crash-1", "misbehave_cmd", "failed");
  expect_row(rows, "ok-1", "misbehave_cmd", "hit hit 0x1p+2");
  expect_row(rows, "ok-2", "misbehave_cmd", "hit hit 0x1p+2");
  static const char *twice[] = {"crash-1", "crash-2", "ok-1"};
  rows = misbehave_rows("", "", twice, 3, &r);
  cr_assert_eq(r->status, 1, "%s", r->err);
  expect_row(rows, "crash-2", "misbehave_cmd", "failed");
  expect_row(rows, "ok-1", "misbehave_cmd", "failed");
  cr_assert(strstr(r->err, "case ok-1: the solver crashed (signal 11") && strstr(r->err, "before answering anything"),
            "%s", r->err);
}

/* A failed run ends with one line: each cause's count and first case, in
   input order; --rows says each failed case's cause. */
Test(solver, cmd_failed_run_says_why_by_cause) {
  static const char *ids[] = {"ok-1", "gaveup-1", "nan-1", "crash-1", "bad-1", "declined-1", "nan-2", "bad-2"};
  sol_out *r;
  const char *rows = misbehave_rows("", "", ids, 8, &r);
  cr_assert_eq(r->status, 1, "%s", r->err);
  const char *want = "toibench: run failed: solver misbehave_cmd: 1 crash (first crash-1), 2 protocol (first bad-1), "
                     "2 range (first nan-1), 1 declared (first gaveup-1)\n";
  size_t n = strlen(r->err), w = strlen(want);
  cr_assert(n >= w && !strcmp(r->err + n - w, want), "the last line is not\n%s in:\n%s", want, r->err);
  cr_assert(strstr(rows, "\n# id formulation class ref_class t ref_t ulp bits cause\n"), "%s", rows);
  expect_row(rows, "ok-1", "misbehave_cmd", "hit hit 0x1p+2 0x1p+2 0 0 -");
  expect_row(rows, "gaveup-1", "misbehave_cmd", " declared");
  expect_row(rows, "nan-1", "misbehave_cmd", " range");
  expect_row(rows, "crash-1", "misbehave_cmd", " crash");
  expect_row(rows, "bad-2", "misbehave_cmd", " protocol");
  expect_row(rows, "declined-1", "misbehave_cmd", "unsupported");
}

/* A talkative solver: the terminal shows its first 20 lines, each led by its
   name, then a count; --solver-log keeps every line. */
Test(solver, cmd_stderr_capped_on_the_terminal_kept_whole_in_the_log) {
  static const char *ids[30] = {"ok-1",  "ok-2",  "ok-3",  "ok-4",  "ok-5",  "ok-6",  "ok-7",  "ok-8",
                                "ok-9",  "ok-10", "ok-11", "ok-12", "ok-13", "ok-14", "ok-15", "ok-16",
                                "ok-17", "ok-18", "ok-19", "ok-20", "ok-21", "ok-22", "ok-23", "ok-24",
                                "ok-25", "ok-26", "ok-27", "ok-28", "ok-29", "ok-30"};
  const char *f = sol_cases(0, sol_lines(ids, 30));
  char log[] = "/tmp/toisollogXXXXXX";
  int fd = mkstemp(log);
  close(fd);
  unlink(log);
  char args[8192];
  snprintf(args, sizeof args, "run --solver-cmd '%s --stderr' --solver-log %s %s", MISBEHAVE, log, f);
  sol_out *r = sol_run(NULL, args);
  cr_assert_eq(r->status, 0, "%s", r->err);
  /* misbehave --stderr says "starting", then one line per answer: 31 lines */
  int shown = 0;
  for (const char *p = r->err; (p = strstr(p, "toibench: solver misbehave_cmd: stderr: ")); p++) shown++;
  cr_assert_eq(shown, 20, "%s", r->err);
  cr_assert(strstr(r->err, "toibench: solver misbehave_cmd: 11 more stderr lines not shown"), "%s", r->err);
  static char text[1 << 15];
  sol_slurp(log, text, sizeof text);
  int lines = 0;
  for (const char *p = text; *p; p = strchr(p, '\n') + 1) {
    cr_assert(!strncmp(p, "solver misbehave_cmd: stderr: misbehave: ", 41), "log line: %.80s", p);
    lines++;
  }
  cr_assert_eq(lines, 31, "%s", text);
  cr_assert(strstr(text, "stderr: misbehave: answered ok-30\n"), "%s", text);
  unlink(log);
  /* the log is an output like any other: never one of the inputs */
  snprintf(args, sizeof args, "run --solver-cmd '%s' --solver-log %s %s", MISBEHAVE, f, f);
  r = sol_run(NULL, args);
  cr_assert_eq(r->status, 2, "%s", r->err);
  unlink(f);
}

Test(solver, cmd_hang_is_stopped_by_the_timeout) {
  static const char *ids[] = {"ok-1", "hang-1", "ok-2"};
  sol_out *r;
  const char *rows = misbehave_rows("--timeout 1 ", "", ids, 3, &r);
  cr_assert_eq(r->status, 1, "%s", r->err);
  expect_row(rows, "hang-1", "misbehave_cmd", "failed");
  expect_row(rows, "ok-2", "misbehave_cmd", "hit hit 0x1p+2");
  cr_assert(strstr(r->err, "case hang-1: no answer within 1s"), "%s", r->err);
  cr_assert_lt(r->seconds, SOL_NOT_HUNG, "took %gs: the hang was not stopped", r->seconds);
}

Test(solver, cmd_garbage_missing_duplicate_and_stray_lines) {
  static const char *ids[] = {"bad-1", "bad-2", "bad-3", "bad-4", "skip-1", "dup-1", "ok-1"};
  sol_out *r;
  const char *rows = misbehave_rows("", " --stray", ids, 7, &r);
  cr_assert_eq(r->status, 1, "%s", r->err);
  for (int i = 0; i < 6; i++) expect_row(rows, ids[i], "misbehave_cmd", "failed");
  expect_row(rows, "ok-1", "misbehave_cmd", "hit hit 0x1p+2");
  cr_assert(strstr(r->err, "case bad-1: malformed answer: a number is not readable"), "%s", r->err);
  cr_assert(strstr(r->err, "case bad-2: malformed answer: unknown class 'banana'"), "%s", r->err);
  cr_assert(strstr(r->err, "case bad-3: malformed answer: expected"), "%s", r->err);
  cr_assert(strstr(r->err, "case bad-4: malformed answer: expected"), "%s", r->err);
  cr_assert(strstr(r->err, "case skip-1: no answer"), "%s", r->err);
  cr_assert(strstr(r->err, "case dup-1: answered more than once"), "%s", r->err);
  cr_assert(strstr(r->err, "answer for unknown case ID 'no-such-case'"), "%s", r->err);
  cr_assert(strstr(r->err, "answer for unknown case ID '&&&'"), "%s", r->err);
  /* Bytes outside printable ASCII are shown escaped, never as they are. */
  cr_assert(strstr(r->err, "answer for unknown case ID '\\x01\\xff-id'"), "%s", r->err);
  cr_assert_null(strchr(r->err, '\001'), "a raw byte reached stderr");
  cr_assert(strstr(r->err, "3 protocol errors outside any case"), "%s", r->err);
}

/* A target or tolerance must be a finite number: "ID hit T inf" is a
 * malformed answer, not an answer scored against the default target. */
Test(solver, cmd_infinite_or_nan_target_is_malformed) {
  static const char *ids[] = {"badtarget-1", "badtarget-2", "badtarget-3", "badtarget-4", "badtarget-5", "ok-1"};
  sol_out *r;
  const char *rows = misbehave_rows("", "", ids, 6, &r);
  cr_assert_eq(r->status, 1, "%s", r->err);
  for (int i = 0; i < 5; i++) {
    expect_row(rows, ids[i], "misbehave_cmd", "failed");
    char want[128];
    snprintf(want, sizeof want, "case %s: malformed answer: a number is not readable", ids[i]);
    cr_assert(strstr(r->err, want), "%s", r->err);
  }
  expect_row(rows, "ok-1", "misbehave_cmd", "hit hit 0x1p+2 0x1p+2 0 0");
  cr_assert(strstr(r->out, "(5 failed)"), "%s", r->out);
}

Test(solver, cmd_missing_answers_alone_are_not_a_crash) {
  static const char *ids[] = {"skip-1", "ok-1"};
  sol_out *r;
  misbehave_rows("", "", ids, 2, &r);
  /* Missing is a protocol error: the run fails, but nothing was restarted. */
  cr_assert_eq(r->status, 1, "%s", r->err);
  cr_assert(strstr(r->err, "case skip-1: no answer (the solver exited normally"), "%s", r->err);
}

Test(solver, cmd_declined_nan_and_own_failure_do_not_fail_the_run) {
  static const char *ids[] = {"declined-1", "nan-1", "gaveup-1", "ok-1"};
  sol_out *r;
  const char *rows = misbehave_rows("", "", ids, 4, &r);
  cr_assert_eq(r->status, 0, "%s", r->err);
  expect_row(rows, "declined-1", "misbehave_cmd", "unsupported");
  expect_row(rows, "nan-1", "misbehave_cmd", "failed");
  expect_row(rows, "gaveup-1", "misbehave_cmd", "failed");
  cr_assert(strstr(r->err, "case nan-1: verdict hit with time nan"), "%s", r->err);
  cr_assert(strstr(r->err, "case gaveup-1: the solver reported failure"), "%s", r->err);
  cr_assert(strstr(r->out, "(2 failed)  (1 unsupported)"), "%s", r->out);
}

Test(solver, cmd_solver_that_never_reads_cannot_deadlock) {
  /* Far more input than a pipe buffers (64 KiB): a blocking write would hang. */
  static char text[3000 * 64];
  text[0] = 0;
  size_t n = 0;
  for (int i = 0; i < 3000; i++) n += (size_t)snprintf(text + n, sizeof text - n, "c%d " HIT345 "\n", i);
  const char *f = sol_cases(0, text);
  char args[8192];
  snprintf(args, sizeof args, "run --timeout 1 --solver-cmd '%s --noread' %s", MISBEHAVE, f);
  sol_out *r = sol_run(NULL, args);
  cr_assert_eq(r->status, 1, "%s", r->err);
  cr_assert(strstr(r->err, "case c0: no answer within 1s"), "%s", r->err);
  cr_assert(strstr(r->out, "(3000 failed)"), "%s", r->out);
  cr_assert_lt(r->seconds, SOL_NOT_HUNG, "took %gs: the hang was not stopped", r->seconds);
  unlink(f);
}

Test(solver, cmd_exit_status_after_answering_is_reported) {
  static const char *ids[] = {"ok-1"};
  sol_out *r;
  misbehave_rows("", " --exit 3 --stderr", ids, 1, &r);
  cr_assert_eq(r->status, 1, "%s", r->err);
  cr_assert(strstr(r->err, "exited with status 3 after answering every case"), "%s", r->err);
  cr_assert(strstr(r->err, "solver misbehave_cmd: stderr: misbehave: answered ok-1"), "%s", r->err);
}

Test(solver, cmd_that_cannot_start_fails_every_case) {
  static const char *ids[] = {"ok-1", "ok-2", "ok-3"};
  const char *f = sol_cases(0, sol_lines(ids, 3));
  char args[8192];
  snprintf(args, sizeof args, "run --solver-cmd 'exec /nonexistent/solver' %s", f);
  sol_out *r = sol_run(NULL, args);
  cr_assert_eq(r->status, 1, "%s", r->err);
  /* a first process that answers nothing gets a second; when that one answers nothing too, the rest fail */
  cr_assert(strstr(r->err, "case ok-1: the solver exited with status 127 (first unanswered case)"), "%s", r->err);
  cr_assert(strstr(r->err, "case ok-2: the solver exited with status 127 (first unanswered case)"), "%s", r->err);
  cr_assert(strstr(r->err, "case ok-3: the solver exited with status 127 before answering anything"), "%s",
            r->err);
  cr_assert(strstr(r->out, "(3 failed)"), "%s", r->out);
  unlink(f);
}

Test(solver, cmd_repeated_ids_across_files_are_all_answered) {
  static const char *ids[] = {"ok-1", "ok-2"};
  const char *f1 = sol_cases(0, sol_lines(ids, 2));
  const char *f2 = sol_cases(1, sol_lines(ids, 1));
  char args[8192];
  snprintf(args, sizeof args, "run --solver-cmd '%s' %s %s", MISBEHAVE, f1, f2);
  sol_out *r = sol_run(NULL, args);
  cr_assert_eq(r->status, 0, "%s", r->err);
  cr_assert(strstr(r->out, "misbehave_cmd            3       3"), "%s", r->out);
  unlink(f1);
  unlink(f2);
}

/* The bench's own formulation through the protocol must score exactly as the
 * formulation itself: hex floats round-trip, the table does not care how the
 * answer came. */
Test(solver, cmd_bench_formulation_through_the_protocol_scores_the_same) {
  char args[8192];
  snprintf(args, sizeof args,
           "run -f expanded --solver-cmd '%s solve -f expanded -' cases/degenerate.cases cases/documents.cases",
           TOIBENCH_PATH);
  sol_out *r = sol_run(NULL, args);
  cr_assert_eq(r->status, 0, "%s", r->err);
  char a[256], b[256];
  const char *p = strstr(r->out, "\nexpanded ");
  const char *q = strstr(r->out, "\ntoibench ");
  cr_assert(p && q, "%s", r->out);
  sscanf(p + 1, "%*s %255[^\n]", a);
  sscanf(q + 1, "%*s %255[^\n]", b);
  cr_assert_str_eq(a, b);
}

/* ---- the plug-in ABI ---- */

#define PLUGIN bin_path(3, "tests/solvers/misbehave_plugin.so")

Test(solver, plugin_crash_hang_nan_and_bad_answers_cost_one_case_each) {
  static const char *ids[] = {"ok-1",   "crash-1", "ok-2",   "hang-1",  "ok-3",     "nan-1", "badclass-1",
                              "fail-1", "unsup-1", "print-1", "exit-1", "status-1", "ok-4"};
  const char *f = sol_cases(0, sol_lines(ids, 13));
  char args[8192];
  snprintf(args, sizeof args, "run --timeout 1 --solver %s:misbehave %s", PLUGIN, f);
  sol_out *r;
  const char *rows = sol_run_rows(NULL, args, &r);
  cr_assert_eq(r->status, 1, "%s", r->err);
  static const char *good[] = {"ok-1", "ok-2", "ok-3", "ok-4", "print-1"};
  for (int i = 0; i < 5; i++) expect_row(rows, good[i], "misbehave", "hit hit 0x1p+2 0x1p+2 0 0");
  static const char *bad[] = {"crash-1", "hang-1", "nan-1", "badclass-1", "fail-1", "exit-1", "status-1"};
  for (int i = 0; i < 7; i++) expect_row(rows, bad[i], "misbehave", "failed");
  expect_row(rows, "unsup-1", "misbehave", "unsupported");
  cr_assert(strstr(r->err, "case crash-1: crashed (signal 11"), "%s", r->err);
  cr_assert(strstr(r->err, "case hang-1: no answer within 1s"), "%s", r->err);
  cr_assert(strstr(r->err, "case nan-1: verdict hit with time nan"), "%s", r->err);
  cr_assert(strstr(r->err, "case badclass-1: verdict 42 is not a class"), "%s", r->err);
  cr_assert(strstr(r->err, "case fail-1: the solver reported failure"), "%s", r->err);
  cr_assert(strstr(r->err, "case exit-1: exited with status 0 before answering"), "%s", r->err);
  cr_assert(strstr(r->err, "case status-1: the solver returned status 17"), "%s", r->err);
  /* What the plug-in prints goes to stderr, never into the table. */
  cr_assert(!strstr(r->out, "PLUGIN-STDOUT-NOISE"), "%s", r->out);
  cr_assert(strstr(r->err, "PLUGIN-STDOUT-NOISE"), "%s", r->err);
  cr_assert_lt(r->seconds, SOL_NOT_HUNG, "took %gs: the hang was not stopped", r->seconds);
  unlink(f);
}

Test(solver, plugin_refused_when_not_a_plugin_or_wrong_abi_or_no_symbol) {
  char args[8192];
  snprintf(args, sizeof args, "run --solver %s cases/degenerate.cases",
           bin_path(0, "tests/solvers/wrong_abi_plugin.so"));
  sol_out *r = sol_run(NULL, args);
  cr_assert_eq(r->status, 2);
  cr_assert(strstr(r->err, "built for solver ABI 99, this toibench speaks 1 to 3"), "%s", r->err);
  cr_assert(strstr(r->err, "Try 'toibench run --help'"), "%s", r->err);
  snprintf(args, sizeof args, "run --solver %s:nosuch cases/degenerate.cases", PLUGIN);
  r = sol_run(NULL, args);
  cr_assert_eq(r->status, 2);
  cr_assert(strstr(r->err, "no solve function 'nosuch'"), "%s", r->err);
  snprintf(args, sizeof args, "run --solver %s cases/degenerate.cases", PLUGIN);
  r = sol_run(NULL, args);
  cr_assert_eq(r->status, 2);
  cr_assert(strstr(r->err, "no solve function 'toi_solver_solve'"), "%s", r->err);
  r = sol_run(NULL, "run --solver /nonexistent/lib.so cases/degenerate.cases");
  cr_assert_eq(r->status, 2);
  cr_assert(strstr(r->err, "/nonexistent/lib.so: no such plug-in file"), "%s", r->err);
  cr_assert_str_empty(r->out);
}

/* LIB.so[:SYMBOL]: the symbol is split off only when it is an identifier, and
 * a file whose own name ends in ':identifier' is meant whole when the part
 * before the colon is not a file. */
Test(solver, plugin_argument_splitting) {
  char path[4096], sym[128];
  cr_assert_eq(solvers_split_plugin("x.so:my_solve", path, sizeof path, sym, sizeof sym), 1);
  cr_assert_str_eq(path, "x.so");
  cr_assert_str_eq(sym, "my_solve");
  static const char *whole[] = {"dir:9/x.so", "x.so:9abc", "x.so:", ":sym", "x.so:a-b", "plain.so"};
  for (size_t i = 0; i < sizeof whole / sizeof whole[0]; i++) {
    cr_assert_eq(solvers_split_plugin(whole[i], path, sizeof path, sym, sizeof sym), 0, "%s", whole[i]);
    cr_assert_str_eq(path, whole[i]);
    cr_assert_str_eq(sym, "");
  }
  char dir[] = "/tmp/toibench-split-XXXXXX";
  cr_assert_not_null(mkdtemp(dir));
  char named[200], bare[200];
  snprintf(named, sizeof named, "%s/lib:sym", dir);
  snprintf(bare, sizeof bare, "%s/lib", dir);
  FILE *f = fopen(named, "w");
  cr_assert_not_null(f);
  fclose(f);
  /* only DIR/lib:sym exists: it is the library */
  cr_assert_eq(solvers_split_plugin(named, path, sizeof path, sym, sizeof sym), 0);
  cr_assert_str_eq(path, named);
  /* DIR/lib exists too: the symbol syntax wins */
  f = fopen(bare, "w");
  cr_assert_not_null(f);
  fclose(f);
  cr_assert_eq(solvers_split_plugin(named, path, sizeof path, sym, sizeof sym), 1);
  cr_assert_str_eq(path, bare);
  cr_assert_str_eq(sym, "sym");
  remove(named);
  remove(bare);
  rmdir(dir);
}

Test(solver, run_args_are_checked) {
  sol_out *r = sol_run(NULL, "run --tmax 0 cases/degenerate.cases");
  cr_assert_eq(r->status, 2);
  r = sol_run(NULL, "run --tmax nan cases/degenerate.cases");
  cr_assert_eq(r->status, 2);
  r = sol_run(NULL, "run --timeout -1 cases/degenerate.cases");
  cr_assert_eq(r->status, 2);
  r = sol_run(NULL, "run --target-distance x cases/degenerate.cases");
  cr_assert_eq(r->status, 2);
  r = sol_run(NULL, "run -f no-such-solver cases/degenerate.cases");
  cr_assert_eq(r->status, 2);
  cr_assert(strstr(r->err, "unknown formulation or solver 'no-such-solver'"), "%s", r->err);
  r = sol_run("TOIBENCH_ENGINES=/nonexistent", "run -f engines cases/degenerate.cases");
  cr_assert_eq(r->status, 2);
  cr_assert(strstr(r->err, "no engine is built"), "%s", r->err);
  r = sol_run(NULL, "solve -f no-such-solver cases/degenerate.cases");
  cr_assert_eq(r->status, 2);
}

/* ---- the examples, and the three ways in agreeing bit for bit ---- */

/* The shared splitmix64 stream (rng.h). */
static uint64_t sol_mix(uint64_t *s) { return toi_splitmix64(s); }

/* Any finite double (all magnitudes, subnormals included) or a small integer. */
static double sol_num(uint64_t *s, int nonneg) {
  double x;
  if (sol_mix(s) & 1) {
    x = (double)((int64_t)(sol_mix(s) % 41) - 20);
  } else {
    do {
      uint64_t b = sol_mix(s);
      memcpy(&x, &b, sizeof x);
    } while (!isfinite(x));
  }
  return nonneg ? fabs(x) : x;
}

static uint64_t sol_seed(void) { return te_seed(0x70157e57ull); }

static long sol_scale(void) { return te_scale(); }

Test(solver, examples_c_plugin_and_node_agree_bit_for_bit) {
  uint64_t seed = sol_seed(), s = seed;
  long n = 150 * sol_scale();
  size_t cap = (size_t)n * 420 + 64, len = 0;
  char *text = malloc(cap);
  cr_assert_not_null(text);
  for (long i = 0; i < n; i++) {
    toi_case c;
    memset(&c, 0, sizeof c);
    snprintf(c.id, sizeof c.id, "r%ld", i);
    c.dim = sol_mix(&s) % 4 == 0 ? 3 : 2;
    for (int k = 0; k < c.dim; k++) {
      c.pa[k] = sol_num(&s, 0);
      c.va[k] = sol_num(&s, 0);
      c.pb[k] = sol_num(&s, 0);
      c.vb[k] = sol_num(&s, 0);
    }
    c.ra = sol_num(&s, 1);
    c.rb = sol_num(&s, 1);
    c.ma = c.mb = 1;
    len += (size_t)toi_format_case(text + len, cap - len, &c);
    text[len++] = '\n';
    text[len] = 0;
  }
  const char *f = sol_cases(0, text);
  free(text);
  char where[4200];
  int node = cc_which("node", where, sizeof where) != NULL;
  char args[8192];
  char nodecmd[600] = "";
  if (node)
    snprintf(nodecmd, sizeof nodecmd, "--solver-cmd \"node %s/examples/solver_node/solver.js\"", TOI_SOURCE_DIR);
  snprintf(args, sizeof args, "run --solver-cmd '%s' --solver '%s' %s %s", bin_path(0, "examples/solver_c"),
           bin_path(1, "examples/example_plugin.so"), nodecmd, f);
  sol_out *r;
  const char *rows = sol_run_rows(NULL, args, &r);
  /* The examples answer NaN where their doubles overflow: counted, not a malfunction. */
  cr_assert_eq(r->status, 0, "seed %#llx: %s", (unsigned long long)seed, r->err);
  for (long i = 0; i < n; i++) {
    char id[32], a[512], b[512], c[512];
    snprintf(id, sizeof id, "r%ld", i);
    cr_assert_not_null(sol_row(rows, id, "solver_c", a, sizeof a), "seed %#llx", (unsigned long long)seed);
    cr_assert_not_null(sol_row(rows, id, "example-stable", b, sizeof b));
    /* Compare everything after the solver name. */
    const char *ta = strchr(strchr(a, ' ') + 1, ' '), *tb = strchr(strchr(b, ' ') + 1, ' ');
    cr_assert_str_eq(ta, tb, "seed %#llx: C '%s' vs plug-in '%s'", (unsigned long long)seed, a, b);
    if (node) {
      cr_assert_not_null(sol_row(rows, id, "solver.js", c, sizeof c), "seed %#llx", (unsigned long long)seed);
      const char *tc = strchr(strchr(c, ' ') + 1, ' ');
      cr_assert_str_eq(ta, tc, "seed %#llx: C '%s' vs node '%s'", (unsigned long long)seed, a, c);
    }
  }
  unlink(f);
}

/* ---- fair scoring: the step, the target, the gap ---- */

static toi_case head_on(void) {
  /* A at the origin, B at (10, 0) closing at 2, R = 2: the gap is 8 - 2t, so
   * contact at t = 4 exactly, and |s + v t| = R + delta at t = (8 - delta)/2. */
  toi_case c;
  memset(&c, 0, sizeof c);
  snprintf(c.id, sizeof c.id, "head-on");
  c.dim = 2;
  c.pb[0] = 10;
  c.vb[0] = -2;
  c.ra = c.rb = 1;
  c.ma = c.mb = 1;
  return c;
}

/* An answer scored as run scores an external solver's: against the true contact and the target. */
static toi_status score_full(toi_score_detail *out, toi_result r, toi_direction dir, unsigned domain, const toi_case *c,
                             const toi_ref *ref, double tmax, double target, double tolerance) {
  toi_score_opts o = {tmax, target, tolerance, 1, TOI_REF_FAST, TOI_BINARY64, NULL};
  return toi_score_answer(out, r, dir, domain, c, ref, &o);
}

Test(solver, gap_is_exact_on_exact_data) {
  toi_case c = head_on();
  cr_assert_eq(toi_score_gap(&c, 4), 0);
  cr_assert_eq(toi_score_gap(&c, 3), 2);
  cr_assert_eq(toi_score_gap(&c, 4.25), -0.5);
  /* One ULP past the contact: the gap is exactly -2 ulp(4) = -2^-49. */
  cr_assert_eq(toi_score_gap(&c, nextafter(4, 5)), -0x1p-49);
  /* The same scaled by 2^990 in lengths: no overflow, the same relative gap. */
  toi_case big = c;
  big.pb[0] = ldexp(10, 990);
  big.vb[0] = ldexp(-2, 990);
  big.ra = big.rb = ldexp(1, 990);
  cr_assert_eq(toi_score_gap(&big, 4), 0);
  cr_assert_eq(toi_score_gap(&big, 3), ldexp(2, 990));
  /* And by 2^-1000: subnormal lengths and speeds. */
  toi_case tiny = c;
  tiny.pb[0] = ldexp(10, -1040);
  tiny.vb[0] = ldexp(-2, -1040);
  tiny.ra = tiny.rb = ldexp(1, -1040);
  cr_assert_eq(toi_score_gap(&tiny, 4), 0);
  cr_assert(isnan(toi_score_gap(&c, NAN)));
}

Test(solver, score_against_the_target_and_the_true_contact) {
  toi_case c = head_on();
  toi_ref ref;
  cr_assert_eq(tr_solve_engine(&ref, &c, TOI_REF_FAST), TOI_OK);
  cr_assert_eq(ref.tfwd, 4);
  toi_score_detail ss;
  /* An engine aiming at an overlap of 0.5 and hitting it exactly: t = 4.25. */
  cr_assert_eq(score_full(&ss, (toi_result){TOI_HIT, 4.25}, TOI_FORWARD, 0, &c, &ref, INFINITY, -0.5,
                                   0.01),
               TOI_OK);
  cr_assert_eq(ss.sc.kind, TOI_SCORE_AGREE);
  cr_assert(ss.sc.timed);
  cr_assert_eq(ss.sc.ulp, 0x1p48, "0.25 / ulp(4) = 0.25 / 2^-50 = 2^48, got %a", ss.sc.ulp);
  cr_assert(ss.target_timed);
  cr_assert_eq(ss.target_ulp, 0);
  cr_assert_eq(ss.target_dt, 0);
  cr_assert_eq(ss.gap, -0.5);
  cr_assert_eq(ss.off_tolerance, 0);
  /* Off its own target by 0.02 in the gap (t off by 0.01): outside a 0.01 tolerance. */
  cr_assert_eq(score_full(&ss, (toi_result){TOI_HIT, 4.26}, TOI_FORWARD, 0, &c, &ref, INFINITY, -0.5,
                                   0.01),
               TOI_OK);
  cr_assert_eq(ss.off_tolerance, 1);
  cr_assert_float_eq(ss.target_dt, 0.01, 1e-15);
  /* Touching target: the target ULP is the exact one. */
  cr_assert_eq(score_full(&ss, (toi_result){TOI_HIT, nextafter(4, 5)}, TOI_FORWARD, 0, &c, &ref,
                                   INFINITY, 0, 0),
               TOI_OK);
  cr_assert_eq(ss.target_ulp, 1);
  cr_assert_eq(ss.sc.ulp, 1);
}

Test(solver, classification_against_the_target) {
  /* B passes A at impact parameter 2.25 with R = 2: a miss; aiming 0.5 short
   * of contact (R + 0.5 = 2.5 > 2.25), an engine rightly reports a hit. */
  toi_case c = head_on();
  c.pb[0] = -10;
  c.pb[1] = 2.25;
  c.vb[0] = 1;
  toi_ref ref;
  cr_assert_eq(tr_solve_engine(&ref, &c, TOI_REF_FAST), TOI_OK);
  cr_assert_eq(ref.cls, TOI_MISS);
  toi_score_detail ss;
  cr_assert_eq(score_full(&ss, (toi_result){TOI_HIT, 9}, TOI_FORWARD, 0, &c, &ref, INFINITY, 0.5, 0),
               TOI_OK);
  cr_assert_eq(ss.sc.kind, TOI_SCORE_GHOST);
  cr_assert_eq(ss.target_kind, TOI_SCORE_AGREE);
  cr_assert(ss.target_timed);
  /* "none" is right about the contact and misses the target. */
  cr_assert_eq(score_full(&ss, (toi_result){TOI_NONE, NAN}, TOI_FORWARD, 0, &c, &ref, INFINITY, 0.5, 0),
               TOI_OK);
  cr_assert_eq(ss.sc.kind, TOI_SCORE_AGREE);
  cr_assert_eq(ss.target_kind, TOI_SCORE_MISSED);
  /* A target below -R has no problem to score against. */
  cr_assert_eq(score_full(&ss, (toi_result){TOI_NONE, NAN}, TOI_FORWARD, 0, &c, &ref, INFINITY, -3, 0),
               TOI_OK);
  cr_assert_eq(ss.target_kind, TOI_SCORE_OUT_OF_DOMAIN);
}

Test(solver, hit_within_the_step) {
  toi_case c = head_on();
  toi_ref ref;
  cr_assert_eq(tr_solve_engine(&ref, &c, TOI_REF_FAST), TOI_OK);
  toi_score_detail ss;
  /* Step 2: the contact at 4 is after it; "none" agrees, a hit at 4 is no contact in the step either. */
  cr_assert_eq(score_full(&ss, (toi_result){TOI_NONE, NAN}, TOI_FORWARD, 0, &c, &ref, 2, 0, 0), TOI_OK);
  cr_assert_eq(ss.sc.kind, TOI_SCORE_AGREE);
  cr_assert_eq(ss.sc.ref_cls, TOI_HIT, "rows keep the exact class");
  cr_assert_eq(score_full(&ss, (toi_result){TOI_HIT, 4}, TOI_FORWARD, 0, &c, &ref, 2, 0, 0), TOI_OK);
  cr_assert_eq(ss.sc.kind, TOI_SCORE_AGREE);
  cr_assert_eq(ss.sc.verdict, TOI_HIT);
  /* A hit claimed inside the step when the contact is after it: a ghost. */
  cr_assert_eq(score_full(&ss, (toi_result){TOI_HIT, 1.5}, TOI_FORWARD, 0, &c, &ref, 2, 0, 0), TOI_OK);
  cr_assert_eq(ss.sc.kind, TOI_SCORE_GHOST);
  /* Step 8: the contact is inside; "none" misses it. */
  cr_assert_eq(score_full(&ss, (toi_result){TOI_NONE, NAN}, TOI_FORWARD, 0, &c, &ref, 8, 0, 0), TOI_OK);
  cr_assert_eq(ss.sc.kind, TOI_SCORE_MISSED);
  cr_assert_eq(score_full(&ss, (toi_result){TOI_HIT, 4}, TOI_FORWARD, 0, &c, &ref, 8, 0, 0), TOI_OK);
  cr_assert_eq(ss.sc.kind, TOI_SCORE_AGREE);
  cr_assert(ss.sc.timed);
  cr_assert_eq(ss.sc.ulp, 0);
}

Test(solver, tmax_reaches_the_solver_and_the_table) {
  static const char *ids[] = {"ok-1"};
  const char *f = sol_cases(0, sol_lines(ids, 1));
  char args[8192];
  /* The contact is at 4: with a step of 2 the example answers none, which agrees within the step. */
  snprintf(args, sizeof args, "run --tmax 2 --solver-cmd '%s' %s", bin_path(0, "examples/solver_c"), f);
  sol_out *r;
  const char *rows = sol_run_rows(NULL, args, &r);
  cr_assert_eq(r->status, 0, "%s", r->err);
  expect_row(rows, "ok-1", "solver_c", "ok-1 solver_c none hit nan");
  cr_assert(strstr(r->out, "hit within the step tmax = 2"), "%s", r->out);
  cr_assert(strstr(r->out, "solver_c                 1       1       0       0"), "%s", r->out);
  unlink(f);
}

/* ---- the engine adapters (need `make engines`) ---- */

static const char *engines_env(void) {
  static char env[4300];
  snprintf(env, sizeof env, "TOIBENCH_ENGINES='%s/engines'", bin_dir());
  return env;
}
#define ENGINES_ENV engines_env()

/* Exact cases: head-on (contact at t = 4, gap 8 - 2t), a miss (impact
 * parameter 5 > R = 2), leaving, and the 3-4-12 head-on in 3D (gap 11 - 13t). */
#define ENGINE_CASES                                  \
  "head-on 2  0 0  0 0  1 1   10 0  -2 0  1 1\n"      \
  "miss 2  0 0  0 0  1 1   10 5  -2 0  1 1\n"         \
  "leaving 2  0 0  0 0  1 1   10 0  2 0  1 1\n"       \
  "head-on-3d 3  0 0 0  0 0 0  1 1   3 4 12  -3 -4 -12  1 1\n"

Test(solver, engines_answer_exact_cases_within_their_own_contract, .timeout = 60) {
  sol_out *r = sol_run(ENGINES_ENV, "list --engines");
  cr_assert_eq(r->status, 0);
  char names[64][64];
  int n = 0;
  for (char *save = NULL, *t = strtok_r(r->out, "\n", &save); t && n < 64; t = strtok_r(NULL, "\n", &save))
    snprintf(names[n++], sizeof names[0], "%s", t);
  if (n == 0) cr_skip_test("no engine is built: run 'make engines' to test the adapters");
  const char *f = sol_cases(0, ENGINE_CASES);
  for (int k = 0; k < n; k++) {
    char args[8192];
    snprintf(args, sizeof args, "solve -f %.63s %.200s", names[k], f);
    r = sol_run(ENGINES_ENV, args);
    cr_assert_eq(r->status, 0, "%s: %s", names[k], r->err);
    /* Float engines carry float rounding of lengths near 10: about 1e-6. */
    int single = strstr(names[k], "box2d") || strstr(names[k], "rapier") || !strncmp(names[k], "bullet-", 7) ||
                 !strncmp(names[k], "jolt-", 5) || !strncmp(names[k], "physx-", 6);
    double slack = single ? 1e-5 : 1e-12;
    char id[64], cls[32], ts[64], tg[64] = "0", tl[64] = "0";
    for (char *save = NULL, *l = strtok_r(r->out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
      int nt = sscanf(l, "%63s %31s %63s %63s %63s", id, cls, ts, tg, tl);
      cr_assert_geq(nt, 2, "%s: '%s'", names[k], l);
      double t = nt >= 3 ? strtod(ts, NULL) : NAN, target = nt >= 4 ? strtod(tg, NULL) : 0;
      double tol = nt >= 5 ? strtod(tl, NULL) : 0;
      if (!strcmp(id, "miss") || !strcmp(id, "leaving")) {
        toi_class said;
        cr_assert(toi_class_parse(&said, cls) == TOI_OK && toi_class_group(said) == TOI_G_NOCONTACT,
                  "%s: %s says %s", names[k], id, cls);
        continue;
      }
      if (!strcmp(cls, "unsupported")) {
        /* Only 2D engines may decline, and only the case off the plane. */
        cr_assert_str_eq(id, "head-on-3d", "%s declined %s", names[k], id);
        continue;
      }
      cr_assert_str_eq(cls, "hit", "%s: %s says %s", names[k], id, cls);
      double gap = !strcmp(id, "head-on") ? 8 - 2 * t : 11 - 13 * t;
      cr_assert_leq(fabs(gap - target), tol + slack, "%s: %s: gap %.9g at t = %.17g, target %g +- %g", names[k], id,
                    gap, t, target, tol);
    }
  }
  unlink(f);
}

Test(solver, engines_appear_in_list_and_run) {
  sol_out *r = sol_run(ENGINES_ENV, "list");
  if (!strstr(r->out, "engine ")) cr_skip_test("no engine is built: run 'make engines' to test the adapters");
  cr_assert(strstr(r->out, "summary: "), "%s", r->out);
  r = sol_run(ENGINES_ENV, "run -f engines,expanded cases/degenerate.cases");
  cr_assert_eq(r->status, 0, "%s", r->err);
  cr_assert(strstr(r->out, "\nexpanded "), "%s", r->out);
  cr_assert(strstr(r->out, "# external solvers"), "%s", r->out);
}

/* ---- the candidate interface and the public scoring API ---- */

static toi_result ericson_fn(const toi_case *c) { return toi_formulation_find("ericson")->solve(c); }

/* A user's function scores exactly as the built-in formulation it wraps, over
   a case list and a family, and a family's run row and sweep statistics agree. */
Test(candidate, function_scores_as_the_formulation_it_wraps) {
  const toi_formulation *f = toi_formulation_find("ericson");
  cr_assert(f);
  toi_candidate c[2];
  toi_candidate_formulation(&c[0], f);
  toi_candidate_function(&c[1], "mine", ericson_fn, f->direction, f->domain);
  cr_assert_eq(c[0].flags & TOI_CAND_EXTERNAL, 0);
  toi_bench_opts o;
  toi_bench_opts_init(&o);
  toi_gen_opts g;
  toi_gen_opts_default(&g, TOI_GEN_MIXED);
  g.seed = 5;
  toi_run_row rows[2];
  cr_assert_eq(toi_bench_run_family(rows, c, 2, &g, 3000, &o), 0);
  toi_run_stats s[2];
  for (int k = 0; k < 2; k++) toi_run_row_stats(&rows[k], &s[k]);
  cr_assert_eq(s[0].cases, 3000);
  cr_assert_eq(s[0].agree, s[1].agree);
  cr_assert_eq(s[0].missed, s[1].missed);
  cr_assert_eq(s[0].ghost, s[1].ghost);
  cr_assert_eq(s[0].timed, s[1].timed);
  cr_assert_eq(s[0].median_ulp, s[1].median_ulp);
  cr_assert_eq(s[0].max_ulp, s[1].max_ulp);
  cr_assert_str_eq(s[0].worst_id, s[1].worst_id);
  toi_sweep_stats w[2];
  cr_assert_eq(toi_bench_sweep(w, c, 2, &g, 3000, 2, &o), 0);
  for (int k = 0; k < 2; k++) {
    cr_assert_eq(w[k].cases, 3000);
    cr_assert_eq(w[k].agree, s[0].agree);
    cr_assert_eq(w[k].missed, s[0].missed);
    cr_assert_eq(w[k].ghost, s[0].ghost);
    cr_assert_eq(w[k].timed, s[0].timed);
    cr_assert_eq(w[k].max_ulp, s[0].max_ulp);
    cr_assert_eq(w[k].max_bits, rows[0].st.max_bits);
  }
  toi_run_rows_free(rows, 2);
}

/* A command candidate declines and fails through the same call. */
Test(candidate, command_answers_through_the_batch_call) {
  toi_candidate c;
  char cmd[4200];
  snprintf(cmd, sizeof cmd, "%s/examples/solver_c", bin_dir());
  cr_assert_eq(toi_candidate_command(&c, cmd), 0);
  cr_assert(c.flags & TOI_CAND_EXTERNAL);
  cr_assert(c.flags & TOI_CAND_OUT_OF_PROCESS);
  toi_caselist list = {0};
  toi_diags dg = {0};
  cr_assert_eq(toi_read_cases(&list, TOI_SOURCE_DIR "/cases/documents.cases", &dg), TOI_OK);
  toi_bench_opts o;
  toi_bench_opts_init(&o);
  toi_run_row row;
  cr_assert_eq(toi_bench_run(&row, &c, 1, list.items, list.count, &o, NULL, NULL), 0);
  cr_assert_eq(row.st.cases + row.failed + row.unsupported, list.count);
  cr_assert(row.targets_seen);
  cr_assert_eq(toi_run_finish(&row, &c, 1, NULL), 0);
  toi_run_rows_free(&row, 1);
  toi_caselist_free(&list);
  toi_candidate_free(&c);
}

static void keep_first(void *ud, const char *text) {
  char *buf = ud;
  if (!buf[0]) snprintf(buf, 512, "%s", text);
}

/* The candidate constructors report failure by a status (one error style):
   an unknown name or precision is TOI_ERR_RANGE, an unusable plug-in
   TOI_ERR_INPUT with the reason, naming the file, in the sink given. */
Test(candidate, constructors_fail_with_a_status_and_a_message) {
  toi_candidate c;
  cr_assert_eq(toi_candidate_find(&c, "no-such-formulation", NULL), TOI_ERR_RANGE);
  cr_assert_eq(toi_candidate_find(&c, NULL, NULL), TOI_ERR_RANGE);
  cr_assert_eq(toi_candidate_find(&c, "ericson", NULL), TOI_OK);
  cr_assert_str_eq(c.name, "ericson");
  size_t nf;
  const toi_formulation *all = toi_formulations(&nf);
  for (size_t i = 0; i < nf; i++) {
    toi_status want = toi_formulation_solver(&all[i], TOI_BINARY32) ? TOI_OK : TOI_ERR_RANGE;
    cr_assert_eq(toi_candidate_formulation_prec(&c, &all[i], TOI_BINARY32), want, "%s", all[i].name);
    cr_assert_eq(c.precision, want == TOI_OK ? TOI_BINARY32 : TOI_BINARY64, "%s", all[i].name);
  }
  cr_assert_eq(toi_candidate_command_prec(&c, "true", TOI_PRECISION_COUNT), TOI_ERR_RANGE);
  char err[512] = "";
  toi_msg m = {keep_first, err};
  toi_candidate *v = (toi_candidate *)&c;
  size_t k = 7;
  cr_assert_eq(toi_candidates_plugin(&v, &k, "/nonexistent/lib.so", &m, NULL, 0), TOI_ERR_INPUT);
  cr_assert_null(v);
  cr_assert_eq(k, 0);
  cr_assert(strstr(err, "/nonexistent/lib.so"), "the message names the file: '%s'", err);
  cr_assert_eq(toi_candidates_plugin(&v, NULL, "x.so", &m, NULL, 0), TOI_ERR_RANGE);
  cr_assert_eq(toi_candidates_engines(&v, &k, NULL), TOI_OK);
  for (size_t i = 0; i < k; i++) toi_candidate_free(&v[i]);
  free(v);
}
