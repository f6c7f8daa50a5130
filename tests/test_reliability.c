/* test_reliability.c: the bench survives misbehaving plug-ins, signals, full devices and endless inputs (issue 17). */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "cli_check.h"

/* The toibench under test: TOI_TEST_TOIBENCH (to run these tests against
   another build) or the one built with them. */
static const char *rl_bin(void) {
  const char *e = getenv("TOI_TEST_TOIBENCH");
  return e && *e ? e : TOIBENCH_PATH;
}

static double rl_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* How a run ended and what it printed. */
typedef struct rl_out {
  int status;   /* exit status; 128 + N after signal N */
  int hung;     /* still running after the limit: killed */
  double seconds;
  char out[1 << 16], err[1 << 15];
} rl_out;

/* Runs toibench with args (NULL-terminated) in the source directory: env
   "NAME=VALUE" set (may be NULL), stdin from /dev/null, stdout to out_path
   (NULL: captured), stderr captured, umask mask (-1: unchanged). A run that
   lasts over limit seconds is killed. */
static rl_out *rl_run(const char *env, const char *out_path, int mask, double limit, const char *const *args) {
  static rl_out r;
  memset(&r, 0, sizeof r);
  char dir[] = "/tmp/toirlXXXXXX", o[64], e[64];
  cr_assert_not_null(mkdtemp(dir));
  snprintf(o, sizeof o, "%s/out", dir);
  snprintf(e, sizeof e, "%s/err", dir);
  const char *argv[64] = {rl_bin()};
  int n = 1;
  for (; args[n - 1] && n < 63; n++) argv[n] = args[n - 1];
  argv[n] = NULL;
  double t0 = rl_now();
  pid_t pid = fork();
  cr_assert_geq(pid, 0);
  if (pid == 0) {
    if (env) putenv((char *)env);
    if (mask >= 0) umask((mode_t)mask);
    int in = open("/dev/null", O_RDONLY);
    int fo = open(out_path ? out_path : o, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int fe = open(e, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (in < 0 || fo < 0 || fe < 0 || chdir(TOI_SOURCE_DIR)) _exit(126);
    dup2(in, 0), dup2(fo, 1), dup2(fe, 2);
    execv(argv[0], (char *const *)argv);
    _exit(127);
  }
  int st = 0;
  while (waitpid(pid, &st, WNOHANG) == 0) {
    if (rl_now() - t0 > limit) {
      kill(pid, SIGKILL);
      waitpid(pid, &st, 0);
      r.hung = 1;
      break;
    }
    usleep(10000);
  }
  r.seconds = rl_now() - t0;
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  cc_read_into(o, r.out, sizeof r.out);
  cc_read_into(e, r.err, sizeof r.err);
  unlink(o);
  unlink(e);
  rmdir(dir);
  return &r;
}

/* ---- item 2: a plug-in's constructor runs only in a child process ---- */

/* `run --timeout 2 --solver ctor_plugin.so cases/degenerate.cases` with the
   constructor doing `how`. */
static rl_out *run_ctor(const char *how) {
  static char env[64];
  snprintf(env, sizeof env, "TOI_TEST_CTOR=%s", how);
  const char *args[] = {"run", "--timeout", "2", "--solver", cc_built("tests/solvers/ctor_plugin.so"),
                        "cases/degenerate.cases", NULL};
  return rl_run(env, NULL, -1, 60, args);
}

Test(reliability, plugin_constructor_exit_is_an_error_naming_the_plugin) {
  rl_out *r = run_ctor("exit");
  cr_assert_eq(r->status, 2, "status %d: %s", r->status, r->err);
  cr_assert(strstr(r->err, "ctor_plugin.so: the plug-in exited with status 0 while being loaded"), "%s", r->err);
  cr_assert_str_empty(r->out);
}

Test(reliability, plugin_constructor_abort_is_an_error_naming_the_plugin) {
  rl_out *r = run_ctor("abort");
  cr_assert_eq(r->status, 2, "status %d: %s", r->status, r->err);
  cr_assert(strstr(r->err, "ctor_plugin.so: the plug-in crashed (signal 6"), "%s", r->err);
}

Test(reliability, plugin_constructor_loop_is_stopped_by_the_timeout) {
  rl_out *r = run_ctor("loop");
  cr_assert(!r->hung, "the bench hung in the plug-in's constructor");
  cr_assert_eq(r->status, 2, "status %d: %s", r->status, r->err);
  cr_assert(strstr(r->err, "ctor_plugin.so: the plug-in did not finish loading within 2s"), "%s", r->err);
}

Test(reliability, plugin_constructor_output_stays_out_of_the_tables) {
  rl_out *r = run_ctor("puts");
  cr_assert_eq(r->status, 0, "status %d: %s", r->status, r->err);
  cr_assert(strstr(r->out, "\nctor_plugin "), "%s", r->out);
  cr_assert(!strstr(r->out, "CTOR-STDOUT-NOISE"), "%s", r->out);
  cr_assert(strstr(r->err, "CTOR-STDOUT-NOISE"), "%s", r->err);
}

/* ---- item 5: outputs are created 0666 and the umask acts ---- */

static void expect_mode(int mask, unsigned mode) {
  char dir[] = "/tmp/toirlmXXXXXX", path[64];
  cr_assert_not_null(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/cases", dir);
  const char *args[] = {"gen", "grazing", "--count", "3", "-o", path, NULL};
  rl_out *r = rl_run(NULL, NULL, mask, 60, args);
  cr_assert_eq(r->status, 0, "%s", r->err);
  struct stat sb;
  cr_assert_eq(stat(path, &sb), 0);
  cr_assert_eq(sb.st_mode & 0777, mode, "umask %03o: mode %03o, expected %03o", (unsigned)mask,
               (unsigned)(sb.st_mode & 0777), mode);
  unlink(path);
  rmdir(dir);
}

Test(reliability, outputs_follow_the_umask) {
  expect_mode(027, 0640);
  expect_mode(022, 0644);
  expect_mode(077, 0600);
}
