/* test_reliability.c: the bench survives misbehaving plug-ins, signals, full devices and endless inputs. */
#include <criterion/criterion.h>
#include <dirent.h>
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
#include "child_signals.h"
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
/* An address-space limit for the next rl_run calls (0: none), so that a
   build that reads without bound fails instead of exhausting the machine. */
/* AddressSanitizer reserves terabytes of address space for its shadow memory:
   under `make sanitize` an address-space limit would stop the bench before
   main, so the memory-bound tests then check only that input stops at once. */
#if defined(__SANITIZE_ADDRESS__)
#define RL_SANITIZED 1
#else
#define RL_SANITIZED 0
#endif

static rlim_t rl_as_limit;
static rlim_t rl_fsize_limit; /* a full disk: writes past it fail with EFBIG */

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
    if (rl_as_limit && !RL_SANITIZED) setrlimit(RLIMIT_AS, &(struct rlimit){rl_as_limit, rl_as_limit});
    int in = open("/dev/null", O_RDONLY);
    if (rl_fsize_limit) {
      signal(SIGXFSZ, SIG_IGN); /* stays ignored through exec: write() fails with EFBIG instead */
      setrlimit(RLIMIT_FSIZE, &(struct rlimit){rl_fsize_limit, rl_fsize_limit});
    }
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

/* ---- item 7: the smaller defects ---- */

/* A forward solver's contact time before the step is a protocol error. */
Test(reliability, negative_forward_time_is_a_protocol_error) {
  const char *args[] = {"run", "--solver-cmd", "awk '!/^#/ { print $1, \"hit\", -1 }'", "cases/degenerate.cases",
                        NULL};
  rl_out *r = rl_run(NULL, NULL, -1, 60, args);
  cr_assert_eq(r->status, 1, "status %d: %s", r->status, r->err);
  cr_assert(strstr(r->err, "verdict hit with negative time -1"), "%s", r->err);
  cr_assert(strstr(r->out, "(19 failed)"), "%s", r->out);
}

/* --timeout has one stated upper bound, checked by every command that takes it. */
Test(reliability, timeout_upper_bound_is_stated_and_checked) {
  static const char *const cmds[][8] = {
      {"run", "--timeout", "2e6", "cases/degenerate.cases", NULL},
      {"solve", "-f", "expanded", "--timeout", "2e6", "cases/degenerate.cases", NULL},
      {"sweep", "grazing", "--count", "10", "--timeout", "2e6", NULL},
  };
  for (size_t k = 0; k < sizeof cmds / sizeof cmds[0]; k++) {
    rl_out *r = rl_run(NULL, NULL, -1, 60, cmds[k]);
    cr_assert_eq(r->status, 2, "%s: status %d", cmds[k][0], r->status);
    cr_assert(strstr(r->err, "--timeout needs a number of seconds > 0 and at most 1e+06, got '2e6'"), "%s: %s",
              cmds[k][0], r->err);
    const char *help[] = {cmds[k][0], "--help", NULL};
    r = rl_run(NULL, NULL, -1, 60, help);
    cr_assert(strstr(r->out, "at most 1e6"), "%s --help does not state the bound", cmds[k][0]);
  }
  const char *ok[] = {"run", "--timeout", "1e6", "cases/degenerate.cases", NULL};
  cr_assert_eq(rl_run(NULL, NULL, -1, 60, ok)->status, 0);
}

/* Output to a full device is an error with a message, for every way of writing. */
Test(reliability, full_device_is_an_error_with_a_message) {
  static const char *const cmds[][10] = {
      {"--help", NULL},
      {"run", "--help", NULL},
      {"list", NULL},
      {"gen", "grazing", "--count", "3", NULL},
      {"run", "cases/degenerate.cases", NULL},
      {"reference", "cases/degenerate.cases", NULL},
      {"solve", "-f", "expanded", "cases/degenerate.cases", NULL},
      {"sweep", "grazing", "--count", "100", "-q", NULL},
      {"run", "-o", "/dev/full", "cases/degenerate.cases", NULL},
      {"sweep", "grazing", "--count", "100", "-q", "-o", "/dev/full", NULL},
  };
  for (size_t k = 0; k < sizeof cmds / sizeof cmds[0]; k++) {
    rl_out *r = rl_run(NULL, "/dev/full", -1, 60, cmds[k]);
    cr_assert_neq(r->status, 0, "%s %s: exit 0 on a full device", cmds[k][0], cmds[k][1] ? cmds[k][1] : "");
    cr_assert(strstr(r->err, "write error"), "%s %s: no message: %s", cmds[k][0], cmds[k][1] ? cmds[k][1] : "",
              r->err);
  }
}

/* A write that fails while a block is committed is named by its own cause
   (full(4): ENOSPC), whichever thread committed the block: errno is each
   thread's, so it is kept where the write failed. */
Test(reliability, a_failed_rows_write_names_its_cause_on_any_thread) {
  char dir[] = "/tmp/toirlrowsXXXXXX", cases[64];
  cr_assert_not_null(mkdtemp(dir));
  snprintf(cases, sizeof cases, "%s/m.cases", dir);
  const char *gen[] = {"gen", "mixed", "--count", "30000", "--seed", "4", "-o", cases, NULL};
  cr_assert_eq(rl_run(NULL, NULL, -1, 60, gen)->status, 0);
  char want[160];
  snprintf(want, sizeof want, "cannot write the rows or spill the ULP errors: %s", strerror(ENOSPC));
  const char *jobs[] = {"-j1", "-j2", "-j3"};
  for (size_t j = 0; j < 3; j++)
    for (int rep = 0; rep < 4; rep++) {
      const char *args[] = {"run", "-f", "ericson", jobs[j], "--rows", "/dev/full", cases, NULL};
      rl_out *r = rl_run(NULL, NULL, -1, 60, args);
      cr_assert_eq(r->status, 1, "%s: exit %d", jobs[j], r->status);
      cr_assert(strstr(r->err, want), "%s, run %d: %s", jobs[j], rep, r->err);
    }
  unlink(cases);
  rmdir(dir);
}

/* Bytes of an input that are not printable ASCII are shown escaped. */
Test(reliability, invalid_utf8_in_inputs_is_escaped_in_messages) {
  char path[] = "/tmp/toirl8XXXXXX";
  int fd = mkstemp(path);
  cr_assert_geq(fd, 0);
  static const char text[] = "a\xff\xfe 2 0 0 0 0 1 1 3 3 0 0 1 1\nb 2 0x\xc3\x28 0 0 0 1 1 3 3 0 0 1 1\n";
  cr_assert_eq(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
  close(fd);
  const char *args[] = {"run", path, NULL};
  rl_out *r = rl_run(NULL, NULL, -1, 60, args);
  unlink(path);
  cr_assert_eq(r->status, 3);
  cr_assert(strstr(r->err, "ID 'a\\xff\\xfe' has a character"), "%s", r->err);
  cr_assert(strstr(r->err, "'0x\\xc3(' is not a number"), "%s", r->err);
  for (const char *p = r->err; *p; p++) cr_assert((unsigned char)*p < 0x80, "a raw byte 0x%02x in: %s", (unsigned char)*p, r->err);
}

/* --count 0: gen refuses it (a case file with no case is invalid input),
   sweep accepts it (a result with no case is valid and merges); both say so. */
Test(reliability, count_zero_follows_the_stated_rule) {
  const char *gen[] = {"gen", "grazing", "--count", "0", NULL};
  rl_out *r = rl_run(NULL, NULL, -1, 60, gen);
  cr_assert_eq(r->status, 2, "%s", r->err);
  const char *sweep[] = {"sweep", "grazing", "--count", "0", "-q", NULL};
  r = rl_run(NULL, NULL, -1, 60, sweep);
  cr_assert_eq(r->status, 0, "%s", r->err);
  const char *gh[] = {"gen", "--help", NULL}, *sh[] = {"sweep", "--help", NULL};
  cr_assert(strstr(rl_run(NULL, NULL, -1, 60, gh)->out, "sweep allows 0"));
  cr_assert(strstr(rl_run(NULL, NULL, -1, 60, sh)->out, "gen refuses 0"));
}

/* A solver's grandchild that leaves the process group and session with
   setsid() is killed and reaped with the solver, answered or hung. */
static void expect_no_escapee(const char *timeout, const char *tail) {
  char pidfile[] = "/tmp/toirlpXXXXXX", cmd[512];
  int fd = mkstemp(pidfile);
  cr_assert_geq(fd, 0);
  close(fd);
  snprintf(cmd, sizeof cmd,
           "setsid sh -c 'echo $$ > %s; exec sleep 300' </dev/null >/dev/null 2>&1 & sleep 0.3; %s", pidfile, tail);
  const char *args[] = {"run", "--timeout", timeout, "--solver-cmd", cmd, "cases/degenerate.cases", NULL};
  rl_out *r = rl_run(NULL, NULL, -1, 60, args);
  cr_assert(!r->hung, "%s", r->err);
  char buf[32] = "";
  cc_read_into(pidfile, buf, sizeof buf);
  unlink(pidfile);
  long pid = atol(buf);
  cr_assert_gt(pid, 1, "the grandchild did not start: %s", r->err);
  usleep(200000);
  int alive = kill((pid_t)pid, 0) == 0;
  if (alive) kill((pid_t)pid, SIGKILL);
  cr_assert(!alive, "the setsid grandchild %ld outlived the solver (%s)", pid, tail);
}

Test(reliability, setsid_grandchild_is_reaped) {
  expect_no_escapee("10", "awk '!/^#/ { print $1, \"none\", \"nan\" }'");
  expect_no_escapee("1", "sleep 100");
}

/* ---- item 3: a signal removes what the command created ---- */

#include "cli.h"

/* Starts toibench with args in dir (stdin, stdout and stderr /dev/null). */
static pid_t rl_spawn(const char *dir, const char *const *args) {
  const char *argv[32] = {rl_bin()};
  int n = 1;
  for (; args[n - 1] && n < 31; n++) argv[n] = args[n - 1];
  argv[n] = NULL;
  pid_t pid = fork();
  cr_assert_geq(pid, 0);
  if (pid == 0) {
    if (cs_default_signals()) _exit(125);
    int null = open("/dev/null", O_RDWR);
    if (null < 0 || chdir(dir)) _exit(126);
    dup2(null, 0), dup2(null, 1), dup2(null, 2);
    execv(argv[0], (char *const *)argv);
    _exit(127);
  }
  return pid;
}

/* The status as a shell reports it: 128 + N after signal N. */
static int rl_wait(pid_t pid) {
  int st;
  cr_assert_eq(waitpid(pid, &st, 0), pid);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Entries of dir other than . and .., and the first such name. */
static int rl_entries(const char *dir, char *first, size_t n) {
  int count = 0;
  DIR *d = opendir(dir);
  cr_assert_not_null(d);
  for (struct dirent *e; (e = readdir(d));)
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && count++ == 0 && first)
      snprintf(first, n, "%s", e->d_name);
  closedir(d);
  return count;
}

static void rl_rmdir(const char *dir) {
  char name[256], path[512];
  while (rl_entries(dir, name, sizeof name)) {
    snprintf(path, sizeof path, "%s/%s", dir, name);
    cr_assert_eq(unlink(path), 0, "%s", path);
  }
  rmdir(dir);
}

/* 1 when pid holds a file of folder dir open (an unnamed O_TMPFILE output
   has no entry in dir, only a descriptor: "DIR/#INODE (deleted)"). */
static int rl_writes_in(pid_t pid, const char *dir) {
  char fds[64], path[320], link[512];
  snprintf(fds, sizeof fds, "/proc/%ld/fd", (long)pid);
  DIR *d = opendir(fds);
  if (!d) return 0;
  size_t dl = strlen(dir);
  int found = 0;
  for (struct dirent *e; !found && (e = readdir(d));) {
    snprintf(path, sizeof path, "%s/%s", fds, e->d_name);
    ssize_t n = readlink(path, link, sizeof link - 1);
    found = n > (ssize_t)dl && !strncmp(link, dir, dl) && link[dl] == '/';
  }
  closedir(d);
  return found;
}

/* Sends sig to a command once its temporary output exists (or after a
   moment, for a command that writes at the end), then expects the status
   128 + sig and an empty folder. */
static void expect_clean_end(const char *const *args, int sig, int wait_for_temp) {
  char dir[] = "/tmp/toirlsXXXXXX", name[256] = "";
  cr_assert_not_null(mkdtemp(dir));
  pid_t pid = rl_spawn(dir, args);
  double t0 = rl_now();
  int seen = 0;
  while (rl_now() - t0 < (wait_for_temp ? 30 : 1.5) && !seen) {
    usleep(20000);
    seen = wait_for_temp && (rl_entries(dir, NULL, 0) || rl_writes_in(pid, dir));
  }
  if (wait_for_temp) cr_assert(seen, "no temporary file appeared");
  cr_assert_eq(kill(pid, sig), 0, "%s ended too early", args[0]);
  int st = rl_wait(pid);
  int left = rl_entries(dir, name, sizeof name);
  rl_rmdir(dir);
  cr_assert_eq(st, 128 + sig, "%s: status %d after signal %d", args[0], st, sig);
  cr_assert_eq(left, 0, "%s: '%s' was left behind", args[0], name);
}

Test(reliability, sigterm_during_sweep_leaves_nothing) {
  const char *args[] = {"sweep", "grazing", "--count", "1e7", "-q", "-o", "FILE", NULL};
  expect_clean_end(args, SIGTERM, 0);
}

Test(reliability, sigint_and_sigterm_remove_the_temporary_output) {
  const char *args[] = {"gen", "grazing", "--count", "1e9", "-o", "FILE", NULL};
  expect_clean_end(args, SIGINT, 1);
  expect_clean_end(args, SIGTERM, 1);
}

/* A registered temporary folder (a report's) is removed, nested files and
   folders included, when a signal ends the process. */
Test(reliability, registered_folder_is_removed_on_a_signal) {
  char dir[] = "/tmp/toirldXXXXXX", path[256];
  cr_assert_not_null(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/sub", dir);
  cr_assert_eq(mkdir(path, 0700), 0);
  for (int k = 0; k < 300; k++) {
    snprintf(path, sizeof path, "%s/%s/file-with-a-long-name-%03d", dir, k % 2 ? "sub" : ".", k);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fclose(f);
  }
  pid_t pid = fork();
  cr_assert_geq(pid, 0);
  if (pid == 0) {
    if (cli_cleanup_register_dir(dir)) _exit(3);
    raise(SIGTERM);
    _exit(4);
  }
  int st = rl_wait(pid);
  struct stat sb;
  int gone = stat(dir, &sb) != 0;
  cr_assert_eq(st, 128 + SIGTERM, "status %d", st);
  cr_assert(gone, "%s is still there", dir);
  /* Unregistered, it stays. */
  snprintf(dir, sizeof dir, "/tmp/toirldXXXXXX");
  cr_assert_not_null(mkdtemp(dir));
  pid = fork();
  if (pid == 0) {
    cli_cleanup_register_dir(dir);
    cli_cleanup_unregister(dir);
    raise(SIGTERM);
    _exit(4);
  }
  rl_wait(pid);
  cr_assert_eq(stat(dir, &sb), 0);
  rmdir(dir);
}

/* The bench's end ends its solvers: a SIGTERM to the bench while a command
   solver hangs leaves no solver process running. */
Test(reliability, sigterm_ends_the_solvers_too) {
  char dir[] = "/tmp/toirlkXXXXXX", cmd[512], pidfile[300];
  cr_assert_not_null(mkdtemp(dir));
  snprintf(pidfile, sizeof pidfile, "%s/solver.pid", dir);
  snprintf(cmd, sizeof cmd, "sh -c 'echo $$ > %s; exec sleep 300'", pidfile);
  char cases[300];
  snprintf(cases, sizeof cases, "%s/cases/degenerate.cases", TOI_SOURCE_DIR);
  const char *args[] = {"run", "--timeout", "100", "--solver-cmd", cmd, cases, NULL};
  pid_t pid = rl_spawn(dir, args);
  char buf[32] = "";
  for (double t0 = rl_now(); rl_now() - t0 < 30 && !buf[0]; usleep(20000)) cc_read_into(pidfile, buf, sizeof buf);
  long spid = atol(buf);
  cr_assert_gt(spid, 1, "the solver did not start");
  kill(pid, SIGTERM);
  int st = rl_wait(pid);
  usleep(300000);
  int alive = kill((pid_t)spid, 0) == 0;
  if (alive) kill((pid_t)spid, SIGKILL);
  unlink(pidfile);
  rmdir(dir);
  cr_assert_eq(st, 128 + SIGTERM);
  cr_assert(!alive, "the solver %ld outlived the bench", spid);
}

/* ---- item 6: unbounded input ---- */

Test(reliability, endless_inputs_stop_at_once) {
  rl_as_limit = (rlim_t)1 << 30;
  const char *run[] = {"run", "/dev/zero", NULL};
  rl_out *r = rl_run(NULL, NULL, -1, 20, run);
  cr_assert(!r->hung);
  cr_assert_eq(r->status, 3, "status %d: %s", r->status, r->err);
  cr_assert(strstr(r->err, "/dev/zero:1: NUL byte in the file (not a text file)"), "%s", r->err);
  const char *merge[] = {"merge", "/dev/zero", NULL};
  r = rl_run(NULL, NULL, -1, 20, merge);
  cr_assert(!r->hung);
  cr_assert_eq(r->status, 3, "status %d: %s", r->status, r->err);
  cr_assert(strstr(r->err, "/dev/zero:1: the line is longer than 1048576 characters"), "%s", r->err);
  rl_as_limit = 0;
}

/* A line longer than TOI_LINE_MAX on an endless stdin: refused once the
   limit is passed, without reading on. */
Test(reliability, overlong_line_is_refused_without_reading_the_rest) {
  signal(SIGPIPE, SIG_IGN);
  int fds[2];
  cr_assert_eq(pipe(fds), 0);
  char dir[] = "/tmp/toirllXXXXXX", e[64];
  cr_assert_not_null(mkdtemp(dir));
  snprintf(e, sizeof e, "%s/err", dir);
  pid_t pid = fork();
  cr_assert_geq(pid, 0);
  if (pid == 0) {
    if (!RL_SANITIZED) setrlimit(RLIMIT_AS, &(struct rlimit){(rlim_t)1 << 30, (rlim_t)1 << 30});
    int fe = open(e, O_WRONLY | O_CREAT | O_TRUNC, 0600), null = open("/dev/null", O_WRONLY);
    dup2(fds[0], 0), dup2(null, 1), dup2(fe, 2);
    close(fds[1]);
    execl(rl_bin(), rl_bin(), "run", "-", (char *)NULL);
    _exit(127);
  }
  close(fds[0]);
  fcntl(fds[1], F_SETFL, O_NONBLOCK);
  static char chunk[65536];
  memset(chunk, 'x', sizeof chunk);
  memcpy(chunk, "id 2 ", 5);
  size_t sent = 0;
  for (double t0 = rl_now(); rl_now() - t0 < 20;) {
    ssize_t w = write(fds[1], chunk, sizeof chunk);
    if (w > 0) sent += (size_t)w;
    else if (errno == EPIPE) break;
    else usleep(1000);
    chunk[0] = 'x';
  }
  close(fds[1]);
  int st = rl_wait(pid);
  char err[4096];
  cc_read_into(e, err, sizeof err);
  unlink(e);
  rmdir(dir);
  cr_assert_eq(st, 3, "status %d after %zu bytes: %s", st, sent, err);
  cr_assert(strstr(err, "<stdin>:1: line is longer than 1048576 characters"), "%s", err);
  cr_assert_lt(sent, (size_t)16 << 20, "%zu bytes were read before the refusal", sent);
}

/* ---- long runs: --checkpoint and --resume ---- */

/* A sweep killed with SIGKILL after its first checkpoint, run again with
   --resume, gives the bytes of an uninterrupted run, and removes its
   checkpoint; a checkpoint of another sweep is refused. */
Test(reliability, killed_sweep_resumes_to_identical_bytes) {
  char dir[] = "/tmp/toirlcXXXXXX", ck[64], whole[64], res[64];
  cr_assert_not_null(mkdtemp(dir));
  snprintf(ck, sizeof ck, "%s/ck", dir);
  snprintf(whole, sizeof whole, "%s/whole", dir);
  snprintf(res, sizeof res, "%s/res", dir);
  const char *plain[] = {"sweep", "mixed", "--count", "800000", "-j", "2", "-q", "-o", whole, NULL};
  cr_assert_eq(rl_run(NULL, NULL, -1, 300, plain)->status, 0);
  const char *args[] = {"sweep", "mixed", "--count", "800000", "-j", "2", "-q", "-o", res, "--checkpoint", ck,
                        "--checkpoint-every", "0.2", "--resume", NULL};
  pid_t pid = rl_spawn(dir, args);
  struct stat sb;
  for (double t0 = rl_now(); rl_now() - t0 < 120 && stat(ck, &sb) != 0;) usleep(5000);
  cr_assert_eq(stat(ck, &sb), 0, "no checkpoint was written");
  kill(pid, SIGKILL);
  rl_wait(pid);
  cr_assert_neq(stat(res, &sb), 0, "the run ended before it was killed: make it longer");
  char *part = cc_slurp(ck, NULL);
  cr_assert(strstr(part, "\nrange 0 "), "%s", part);
  cr_assert(!strstr(part, "\nrange 0 800000\n"), "the checkpoint covers the whole sweep");
  free(part);
  /* Another sweep (another seed) does not take this checkpoint. */
  const char *other[] = {"sweep", "mixed", "--seed", "2", "--count", "800000", "-q", "-o", res, "--checkpoint", ck,
                         "--resume", NULL};
  rl_out *r = rl_run(NULL, NULL, -1, 300, other);
  cr_assert_eq(r->status, 3, "%s", r->err);
  cr_assert(strstr(r->err, "is the checkpoint of another sweep"), "%s", r->err);
  r = rl_run(NULL, NULL, -1, 300, args);
  cr_assert_eq(r->status, 0, "%s", r->err);
  cr_assert_neq(stat(ck, &sb), 0, "the checkpoint was left behind");
  size_t la, lb;
  char *a = cc_slurp(whole, &la), *b = cc_slurp(res, &lb);
  cr_assert(la == lb && !memcmp(a, b, la), "the resumed sweep differs from the uninterrupted one");
  free(a);
  free(b);
  unlink(whole);
  unlink(res);
  rmdir(dir);
}

/* ---- a full disk: every command that writes a file fails with a message and
   leaves nothing behind (no partial output, no temporary) ---- */

static int rl_dir_is_empty(const char *dir) {
  DIR *d = opendir(dir);
  cr_assert_not_null(d);
  struct dirent *e;
  int n = 0;
  while ((e = readdir(d)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
  closedir(d);
  return n == 0;
}

Test(reliability, full_disk_leaves_no_partial_output, .timeout = 300) {
  char in[] = "/tmp/toirlinXXXXXX", dir[] = "/tmp/toirlfsXXXXXX", out[128], cases[160], sweep[160];
  cr_assert_not_null(mkdtemp(in));
  cr_assert_not_null(mkdtemp(dir));
  snprintf(out, sizeof out, "%s/out", dir);
  snprintf(cases, sizeof cases, "%s/mixed.cases", in);
  snprintf(sweep, sizeof sweep, "%s/sweep.txt", in);
  const char *mk1[] = {"gen", "mixed", "--count", "2000", "-o", cases, NULL};
  cr_assert_eq(rl_run(NULL, NULL, -1, 60, mk1)->status, 0);
  const char *mk2[] = {"sweep", "grazing", "--count", "2000", "--quiet", "-o", sweep, NULL};
  cr_assert_eq(rl_run(NULL, NULL, -1, 60, mk2)->status, 0);
  const char *const cmds[][10] = {
      {"gen", "mixed", "--count", "2000", "-o", out, NULL},
      {"reference", "-o", out, cases, NULL},
      {"solve", "-f", "ericson", "-o", out, cases, NULL},
      {"run", "-f", "ericson", "--rows", out, cases, NULL},
      {"sweep", "grazing", "--count", "2000", "--quiet", "-o", out, NULL},
      {"merge", "-o", out, sweep, NULL},
      {"hunt", "-f", "ericson", "--budget", "2000", "--quiet", "-o", out, NULL},
      {"audit", "--rows", out, cases, NULL},
      {"simulate", "--n", "200", "--events", "20000", "--every", "1", "--series", out, NULL},
      {"simulate", "--n", "500", "--events", "10", "--write-state", out, NULL},
  };
  rl_fsize_limit = 4096; /* every output above is larger */
  for (size_t k = 0; k < sizeof cmds / sizeof cmds[0]; k++) {
    rl_out *r = rl_run(NULL, NULL, -1, 120, cmds[k]);
    cr_assert_neq(r->status, 0, "%s: exit 0 on a full disk", cmds[k][0]);
    cr_assert(r->err[0], "%s: no message on a full disk", cmds[k][0]);
    cr_assert(rl_dir_is_empty(dir), "%s: left a file in %s on a full disk", cmds[k][0], dir);
  }
  rl_fsize_limit = 0;
  unlink(cases);
  unlink(sweep);
  rmdir(in);
  rmdir(dir);
}

/* Item 3 for the report: SIGTERM while its temporary folder is being filled
   removes the folder (registered with cli_cleanup_register_dir). */
Test(reliability, sigterm_during_report_removes_its_folder, .timeout = 120) {
  const char *args[] = {"report", "--quick", "--quiet", "--out", "FILE", NULL};
  expect_clean_end(args, SIGTERM, 1);
}
