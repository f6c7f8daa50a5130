/* test_tempfiles.c: no temporary outlives its run; signals ignored at start stay so; a report keeps a user's files. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "child_signals.h"
#include "cli_check.h"
#include "tmp_dir.h"

/* The command a test started and has not waited for: killed when the test
   ends early (a failed assertion), so that no run outlives its test. */
static pid_t tt_child;

static void tt_fini(void) {
  if (tt_child > 0) {
    kill(tt_child, SIGKILL);
    waitpid(tt_child, NULL, 0);
    tt_child = 0;
  }
  td_teardown();
}

TestSuite(tempfiles, .init = td_setup, .fini = tt_fini, .timeout = 240);

static double tt_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Starts toibench with args in the test's folder, stdin, stdout and stderr
   /dev/null; ignored (0: none) is set to SIG_IGN before the exec, as nohup
   does for SIGHUP. */
static pid_t tt_spawn(int ignored, const char *const *args) {
  const char *argv[32] = {TOIBENCH_PATH};
  int n = 1;
  for (; args[n - 1] && n < 31; n++) argv[n] = args[n - 1];
  argv[n] = NULL;
  pid_t pid = fork();
  cr_assert_geq(pid, 0);
  if (pid == 0) {
    if (cs_default_signals()) _exit(125);
    if (ignored) {
      struct sigaction sa;
      memset(&sa, 0, sizeof sa);
      sa.sa_handler = SIG_IGN;
      if (sigaction(ignored, &sa, NULL)) _exit(125);
    }
    int null = open("/dev/null", O_RDWR);
    if (null < 0 || chdir(td_dir)) _exit(126);
    dup2(null, 0), dup2(null, 1), dup2(null, 2);
    execv(argv[0], (char *const *)argv);
    _exit(127);
  }
  tt_child = pid;
  return pid;
}

/* The status as a shell reports it: 128 + N after signal N. */
static int tt_wait(pid_t pid) {
  int st;
  cr_assert_eq(waitpid(pid, &st, 0), pid);
  tt_child = 0;
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The size of the file pid holds open for writing in the test's folder (a
   descriptor above stderr whose target lies in it, named or not), or -1
   while there is none. */
static long long tt_output_size(pid_t pid) {
  char fds[64], link[PATH_MAX + 32], real[PATH_MAX], fd_path[320];
  cr_assert_not_null(realpath(td_dir, real));
  size_t rl = strlen(real);
  snprintf(fds, sizeof fds, "/proc/%ld/fd", (long)pid);
  DIR *d = opendir(fds);
  if (!d) return -1;
  long long size = -1;
  for (struct dirent *e; size < 0 && (e = readdir(d));) {
    if (atoi(e->d_name) <= 2) continue;
    snprintf(fd_path, sizeof fd_path, "%s/%s", fds, e->d_name);
    ssize_t n = readlink(fd_path, link, sizeof link - 1);
    if (n <= 0) continue;
    link[n] = 0;
    struct stat sb;
    if (!strncmp(link, real, rl) && link[rl] == '/' && stat(fd_path, &sb) == 0 && S_ISREG(sb.st_mode))
      size = (long long)sb.st_size;
  }
  closedir(d);
  return size;
}

/* Waits until pid writes its output in the test's folder and it holds at least min bytes. */
static void tt_wait_writing(pid_t pid, long long min) {
  for (double t0 = tt_now(); tt_now() - t0 < 60; usleep(1000))
    if (tt_output_size(pid) >= min) return;
  cr_assert_fail("no output is being written");
}

/* The entries of the test's folder but `err` (td_tb's stderr), sorted, each followed by '/'. */
static void tt_listing(char *out, size_t n) {
  struct dirent **v;
  int k = scandir(td_dir, &v, NULL, alphasort);
  cr_assert_geq(k, 0);
  size_t len = 0;
  out[0] = 0;
  for (int i = 0; i < k; i++) {
    const char *s = v[i]->d_name;
    if (strcmp(s, ".") && strcmp(s, "..") && strcmp(s, "err"))
      len += (size_t)snprintf(out + len, len < n ? n - len : 0, "%s/", s);
    free(v[i]);
  }
  free(v);
}

/* ---- item 7: a signal ignored at start stays ignored ---- */

/* Sends sig to pid once it writes, while it is stopped, then lets it go on:
   the signal surely arrives before the end. Returns its status as a shell
   reports it. */
static int tt_signal_while_writing(pid_t pid, int sig) {
  tt_wait_writing(pid, 1);
  cr_assert_eq(kill(pid, SIGSTOP), 0);
  int st;
  cr_assert_eq(waitpid(pid, &st, WUNTRACED), pid);
  cr_assert(WIFSTOPPED(st), "gen ended before the signal: make --count larger");
  cr_assert_eq(kill(pid, sig), 0);
  cr_assert_eq(kill(pid, SIGCONT), 0);
  return tt_wait(pid);
}

/* gen started with sig ignored, sent sig while it writes: it ends with 0 and
   the whole file, the same as a run left alone. */
static void expect_ignored_kept(int sig) {
  const char *args[] = {"gen", "grazing", "--count", "200000", "-o", "out", NULL};
  int status = tt_signal_while_writing(tt_spawn(sig, args), sig);
  cr_assert_eq(status, 0, "signal %d, ignored at start, ended gen: status %d", sig, status);
  cr_assert_eq(td_tb("gen grazing --count 200000 -o whole"), 0);
  cr_assert(td_same_file(td_path("out"), td_path("whole")), "signal %d: the file is not whole", sig);
  unlink(td_path("out"));
  unlink(td_path("whole"));
}

Test(tempfiles, signals_ignored_at_start_stay_ignored) {
  expect_ignored_kept(SIGHUP); /* nohup */
  expect_ignored_kept(SIGINT); /* a shell's background job, trap '' INT */
  expect_ignored_kept(SIGTERM);
  /* Not ignored, SIGHUP still ends it, as the shell expects (129), and leaves nothing. */
  const char *args[] = {"gen", "grazing", "--count", "1e6", "-o", "out", NULL};
  int status = tt_signal_while_writing(tt_spawn(0, args), SIGHUP);
  cr_assert_eq(status, 128 + SIGHUP, "SIGHUP ended gen with status %d", status);
  char have[4096];
  tt_listing(have, sizeof have);
  cr_assert_str_eq(have, "", "left behind: %s", have);
}

/* ---- item 8: kill -9 leaves no temporary, or one the next run removes ---- */

Test(tempfiles, sigkill_of_gen_leaves_no_temporary) {
  const char *args[] = {"gen", "grazing", "--count", "1e6", "-o", "out", NULL}; /* 200 MB, 2 s */
  pid_t pid = tt_spawn(0, args);
  tt_wait_writing(pid, 1 << 20);
  kill(pid, SIGKILL);
  cr_assert_eq(tt_wait(pid), 128 + SIGKILL);
  char have[4096];
  tt_listing(have, sizeof have);
  cr_assert_str_eq(have, "", "SIGKILL left behind: %s", have);
  cr_assert_eq(td_tb("gen grazing --count 10 -o out"), 0);
  tt_listing(have, sizeof have);
  cr_assert_str_eq(have, "out/");
}

/* Who this process is, as the kernel says (README, "Commands": how
   temporaries are named): field 22 of /proc/self/stat, the first 12 hex
   digits of the boot's ID, the inode of the pid namespace. */
static unsigned long long tt_start_time(void) {
  char buf[1024];
  FILE *f = fopen("/proc/self/stat", "r");
  cr_assert_not_null(f);
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  char *p = strrchr(buf, ')');
  cr_assert_not_null(p);
  unsigned long long v = 0;
  /* after ") ": field 3 (the state) ... field 22 */
  char *save = NULL, *tok = strtok_r(p + 1, " ", &save);
  for (int field = 3; tok && field < 22; field++) tok = strtok_r(NULL, " ", &save);
  cr_assert_not_null(tok);
  v = strtoull(tok, NULL, 10);
  return v;
}

static void tt_boot(char out[13]) {
  char id[64] = "";
  FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
  cr_assert_not_null(f);
  cr_assert_not_null(fgets(id, sizeof id, f));
  fclose(f);
  int k = 0;
  for (const char *p = id; *p && k < 12; p++)
    if (*p != '-' && *p != '\n') out[k++] = *p;
  out[k] = 0;
  cr_assert_eq(k, 12);
}

static unsigned long long tt_pidns(void) {
  char link[64] = "";
  cr_assert_gt(readlink("/proc/self/ns/pid", link, sizeof link - 1), 0);
  cr_assert_eq(strncmp(link, "pid:[", 5), 0, "%s", link);
  return strtoull(link + 5, NULL, 10);
}

/* A pid no process has: a child that has ended and been reaped. */
static long tt_dead_pid(void) {
  pid_t pid = fork();
  cr_assert_geq(pid, 0);
  if (pid == 0) _exit(0);
  cr_assert_eq(waitpid(pid, NULL, 0), pid);
  return (long)pid;
}

static void tt_file(const char *name) { td_put(name, "partial\n"); }

static void tt_folder(const char *name) {
  cr_assert_eq(mkdir(td_path(name), 0755), 0);
  char inner[160];
  snprintf(inner, sizeof inner, "%s/data", name);
  cr_assert_eq(mkdir(td_path(inner), 0755), 0);
  snprintf(inner, sizeof inner, "%s/data/x.dat", name);
  td_put(inner, "1\n");
}

/* A temporary's name, and what a run must do with it. */
typedef struct tt_temp {
  char lead[8];    /* what comes before NAME: "." for ours */
  char name[8];    /* NAME, the output's name */
  int live_pid;    /* this process's pid (else one no process has) */
  int start_off;   /* added to the owner's true start time */
  int other_boot;  /* another boot's ID */
  int ns_off;      /* added to the pid namespace's inode */
  char suffix[8];  /* the six letters or digits */
  int folder;      /* a folder (a report's), else a file */
  int kept;
} tt_temp;

static const tt_temp tt_temps[] = {
    {".", "out", 0, 0, 0, 0, "aB3dE9", 0, 0},  /* a dead owner: removed */
    {".", "rep", 1, 1, 0, 0, "Zz0000", 1, 0},  /* a live pid that started later (reused): removed */
    {".", "old", 0, 0, 0, 0, "q1w2e3", 0, 0},  /* removed */
    {".", "mine", 1, 0, 0, 0, "keep01", 0, 1}, /* this process, alive: kept */
    {".", "prev", 0, 0, 1, 0, "abcdef", 1, 1}, /* another boot (or machine): cannot be told, kept */
    {".", "ns", 0, 0, 0, 1, "abcdef", 0, 1},   /* another pid namespace (a container): kept */
    {".", "short", 0, 0, 0, 0, "abc", 0, 1},   /* not exactly our pattern: kept */
    {"", "plain", 0, 0, 0, 0, "abcdef", 0, 1}, /* no leading dot: kept */
};

/* A run removes the temporaries of the folder it writes in whose owner is
   provably gone (a dead pid; a live pid with another start time), and keeps
   the rest: a live owner's, another boot's or namespace's, names not exactly
   ours, and an older toibench's (whose owner cannot be told). */
Test(tempfiles, stale_temporaries_are_removed_live_ones_kept) {
  unsigned long long start = tt_start_time(), ns = tt_pidns();
  char boot[13], one[128];
  tt_boot(boot);
  long me = (long)getpid(), dead = tt_dead_pid();
  const size_t n = sizeof tt_temps / sizeof *tt_temps;
  for (int pass = 0; pass < 2; pass++) {
    for (size_t i = 0; i < n; i++) {
      const tt_temp *t = &tt_temps[i];
      snprintf(one, sizeof one, "%.7s%.7s.toibench-tmp.%ld.%llu.%.12s.%llu.%.7s", t->lead, t->name,
               t->live_pid ? me : dead, start + (unsigned long long)t->start_off,
               t->other_boot ? "0123456789ab" : boot, ns + (unsigned long long)t->ns_off, t->suffix);
      if (pass == 0) (t->folder ? tt_folder : tt_file)(one);
      else cr_assert_eq(td_exists(td_path(one)), t->kept, "%s was %s", one, t->kept ? "removed" : "kept");
    }
    if (pass == 0) {
      tt_file("out.tmp.AbCdEf");
      cr_assert_eq(td_tb("gen grazing --count 3 -o out"), 0);
    }
  }
  cr_assert(td_exists(td_path("out.tmp.AbCdEf")));
  cr_assert(td_exists(td_path("out")));
}

/* ---- item 10 and the report's temporaries ---- */

static char *tt_err(void) { return td_read("err"); }

/* A report's folder is replaced only while it holds nothing but the report:
   a file or a folder a user added is named and kept, and nothing is done. */
Test(tempfiles, report_refuses_a_folder_holding_a_users_files) {
  cr_assert_eq(td_tb("report --quick --quiet -j2 --out rep"), 0, "%s", tt_err());
  char *marker = td_read("rep/.toibench-report");
  cr_assert_eq(strncmp(marker, "toibench-report v1\n", 19), 0, "%s", marker);
  free(marker);
  td_put("rep/notes.txt", "my notes\n");
  cr_assert_eq(td_tb("report --quick --quiet -j2 --out rep"), 1);
  char *err = tt_err();
  cr_assert(strstr(err, "rep holds 'notes.txt', which the report there did not make"), "%s", err);
  free(err);
  char *notes = td_read("rep/notes.txt");
  cr_assert_str_eq(notes, "my notes\n");
  free(notes);
  cr_assert_eq(unlink(td_path("rep/notes.txt")), 0);
  cr_assert_eq(mkdir(td_path("rep/img/mydata"), 0755), 0);
  td_put("rep/img/mydata/a.png", "png\n");
  cr_assert_eq(td_tb("report --quick --quiet -j2 --out rep"), 1);
  err = tt_err();
  cr_assert(strstr(err, "rep holds 'img/mydata/'"), "%s", err);
  free(err);
  cr_assert(td_exists(td_path("rep/img/mydata/a.png")));
  cc_rmtree(td_path("rep/img/mydata"));
  /* Only the report's own files again (and the screenshot of --check): replaced. */
  td_put("rep/screenshot.png", "png\n");
  td_put("rep/index.html", "edited\n");
  cr_assert_eq(td_tb("report --quick --quiet -j2 --out rep"), 0, "%s", tt_err());
  char *index = td_read("rep/index.html");
  cr_assert(strstr(index, "<html"), "the report was not replaced");
  free(index);
  char have[4096];
  tt_listing(have, sizeof have);
  cr_assert_str_eq(have, "rep/");
  /* A folder that holds no report is refused whole. */
  cr_assert_eq(mkdir(td_path("plain"), 0755), 0);
  td_put("plain/x", "x\n");
  cr_assert_eq(td_tb("report --quick --quiet -j2 --out plain"), 1);
  err = tt_err();
  cr_assert(strstr(err, "plain is not empty and holds no toibench report"), "%s", err);
  free(err);
  cr_assert(td_exists(td_path("plain/x")));
  /* A report made before the marker: replaced while it holds only the kinds of files a report has. */
  cr_assert_eq(mkdir(td_path("older"), 0755), 0);
  cr_assert_eq(mkdir(td_path("older/img"), 0755), 0);
  td_put("older/report.json", "{\n  \"format\": \"toibench-report v1\",\n");
  td_put("older/img/cdf.svg", "<svg/>\n");
  td_put("older/img/notes.txt", "mine\n");
  cr_assert_eq(td_tb("report --quick --quiet -j2 --out older"), 1);
  err = tt_err();
  cr_assert(strstr(err, "older holds 'img/notes.txt'"), "%s", err);
  free(err);
  cr_assert_eq(unlink(td_path("older/img/notes.txt")), 0);
  cr_assert_eq(td_tb("report --quick --quiet -j2 --out older"), 0, "%s", tt_err());
  cr_assert(td_exists(td_path("older/.toibench-report")));
}

/* --out naming a symbolic link: the folder it names is replaced, the link
   stays, and nothing is left beside either (no DIR.old.*, no temporary). */
Test(tempfiles, report_through_a_symbolic_link_leaves_nothing_beside) {
  cr_assert_eq(mkdir(td_path("target"), 0755), 0);
  cr_assert_eq(symlink("target", td_path("link")), 0);
  for (int round = 0; round < 2; round++) {
    cr_assert_eq(td_tb("report --quick --quiet -j2 --out link"), 0, "round %d: %s", round, tt_err());
    struct stat sb;
    cr_assert_eq(lstat(td_path("link"), &sb), 0);
    cr_assert(S_ISLNK(sb.st_mode), "round %d: the link was replaced", round);
    cr_assert(td_exists(td_path("target/index.html")), "round %d", round);
    char have[4096];
    tt_listing(have, sizeof have);
    cr_assert_str_eq(have, "link/target/", "round %d", round);
  }
}

/* A report killed with SIGKILL leaves its temporary folder; the next report
   beside it removes it. */
Test(tempfiles, sigkill_of_report_is_cleaned_by_the_next_run) {
  const char *args[] = {"report", "--quick", "--quiet", "-j2", "--out", "rep", NULL};
  pid_t pid = tt_spawn(0, args);
  char have[4096] = "";
  for (double t0 = tt_now(); tt_now() - t0 < 60 && !have[0]; usleep(10000)) tt_listing(have, sizeof have);
  cr_assert(have[0], "no temporary folder appeared");
  kill(pid, SIGKILL);
  cr_assert_eq(tt_wait(pid), 128 + SIGKILL);
  cr_assert_eq(td_tb("report --quick --quiet -j2 --out rep"), 0, "%s", tt_err());
  tt_listing(have, sizeof have);
  cr_assert_str_eq(have, "rep/");
}
