/* test_sweep_checkpoint.c: sweep --checkpoint: what it refuses to replace, its checksum, the save on SIGINT and SIGTERM. */
#include <criterion/criterion.h>
#include <dirent.h>
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

/* A sweep long enough to be stopped after its first checkpoint, and its checkpointed runs. */
/* Long enough that a signal sent once the first checkpoint is written (after 0.2 s) finds the sweep still at
   work, with room to spare on a machine several times faster than this one's 2 cores. */
#define CK_COUNT "2000000"
#define SWEEP "sweep mixed --count " CK_COUNT " -j2 -q"
#define CHECKPOINTED SWEEP " --checkpoint ck --checkpoint-every 0.2 -o res"

static double ck_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Starts `toibench ARGS` in the test's folder, stdin empty, stdout nowhere, stderr to its file err; SIGINT
 * ignored in it when ignore_int (as a shell starts a background job). */
static pid_t ck_spawn(const char *args, int ignore_int) {
  static char words[8192];
  char *argv[256];
  argv[0] = (char *)TOIBENCH_PATH;
  cc_split(args, words, sizeof words, argv + 1, 255);
  pid_t pid = fork();
  cr_assert_geq(pid, 0);
  if (pid == 0) {
    if (cs_default_signals()) _exit(125);
    if (ignore_int) signal(SIGINT, SIG_IGN);
    int in = open("/dev/null", O_RDWR);
    if (in < 0 || chdir(td_dir)) _exit(126);
    int fe = open("err", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fe < 0) _exit(126);
    dup2(in, 0), dup2(in, 1), dup2(fe, 2);
    execv(argv[0], argv);
    _exit(127);
  }
  return pid;
}

/* The raw wait status of pid. */
static int ck_wait(pid_t pid) {
  int st = 0;
  cr_assert_eq(waitpid(pid, &st, 0), pid);
  return st;
}

/* Waits up to 120 s for the file name to appear in the test's folder. */
static void wait_for_file(const char *name, pid_t pid) {
  for (double t0 = ck_now(); ck_now() - t0 < 120 && !td_exists(td_path(name));) {
    int st;
    cr_assert_eq(waitpid(pid, &st, WNOHANG), 0, "the sweep ended before %s appeared: %s", name, td_read("err"));
    usleep(5000);
  }
  cr_assert(td_exists(td_path(name)), "%s did not appear", name);
}

/* Threads of process pid (its entries of /proc/PID/task). */
static int thread_count(pid_t pid) {
  char dir[64];
  snprintf(dir, sizeof dir, "/proc/%d/task", (int)pid);
  DIR *d = opendir(dir);
  if (!d) return 0;
  int n = 0;
  for (struct dirent *e; (e = readdir(d));) n += e->d_name[0] != '.';
  closedir(d);
  return n;
}

static int err_has(const char *needle) {
  char *e = td_read("err");
  int ok = strstr(e, needle) != NULL;
  if (!ok) cr_log_error("stderr: %s", e);
  free(e);
  return ok;
}

/* A checkpoint of CHECKPOINTED in ck: the run stopped by SIGKILL once its first checkpoint was written. */
static void make_checkpoint(void) {
  pid_t pid = ck_spawn(CHECKPOINTED, 0);
  wait_for_file("ck", pid);
  kill(pid, SIGKILL);
  ck_wait(pid);
  cr_assert(!td_exists(td_path("res")), "the sweep ended before it was stopped: make it longer");
}

/* The END of the 'range START END' line of a result's text. */
static unsigned long long range_end(const char *text) {
  const char *r = strstr(text, "\nrange ");
  unsigned long long s, e;
  cr_assert(r && sscanf(r, "\nrange %llu %llu", &s, &e) == 2, "no range line");
  return e;
}

Test(checkpoint, a_file_that_is_not_a_checkpoint_is_left_as_it_is, .init = td_setup, .fini = td_teardown) {
  td_put("p.txt", "data\n");
  cr_assert_eq(td_tb("sweep mixed --count 20000 --checkpoint p.txt -o r.sw"), 2);
  cr_assert(err_has("p.txt: the file exists and is not a checkpoint of this sweep"));
  cr_assert(err_has("rm -- 'p.txt'"));
  char *p = td_read("p.txt");
  cr_assert_str_eq(p, "data\n");
  free(p);
  cr_assert(!td_exists(td_path("r.sw")), "no result when the sweep is refused");
  cr_assert_eq(td_tb("sweep mixed --count 20000 --checkpoint p.txt --resume -o r.sw"), 3);
  cr_assert(err_has("p.txt:1: not a toibench sweep result"));
  p = td_read("p.txt");
  cr_assert_str_eq(p, "data\n");
  free(p);

  /* A sweep's result is no checkpoint (no checksum line), not even of this sweep; nor a folder. */
  cr_assert_eq(td_tb("sweep mixed --count 20000 -o plain"), 0);
  char *plain = td_read("plain");
  cr_assert_eq(td_tb("sweep mixed --count 20000 --checkpoint plain -o r.sw"), 2);
  cr_assert_eq(td_tb("sweep mixed --count 20000 --checkpoint plain --resume -o r.sw"), 3);
  cr_assert(err_has("plain: no checksum line at the end: not a checkpoint"));
  char *again = td_read("plain");
  cr_assert_str_eq(again, plain, "the result was changed");
  free(again);
  free(plain);
  cr_assert_eq(mkdir(td_path("folder"), 0755), 0);
  /* a folder cannot be created as a file: refused by the check of every output before the work */
  cr_assert_eq(td_tb("sweep mixed --count 20000 --checkpoint folder -o r.sw"), 1);
  cr_assert(err_has("folder: is a directory"));
  cr_assert(!td_exists(td_path("r.sw")));
  /* Nothing there: the sweep runs, and its checkpoint is gone with the result in place. */
  cr_assert_eq(td_tb("sweep mixed --count 20000 --checkpoint new -o r.sw"), 0);
  cr_assert(td_exists(td_path("r.sw")) && !td_exists(td_path("new")));
  cr_assert(td_same_file(td_path("r.sw"), td_path("plain")));
}

Test(checkpoint, this_sweeps_checkpoint_without_resume_is_left_as_it_is, .init = td_setup, .fini = td_teardown) {
  make_checkpoint();
  size_t n;
  char *before = cc_slurp(td_path("ck"), &n);
  cr_assert_eq(td_tb(CHECKPOINTED), 2);
  cr_assert(err_has("ck holds the checkpoint of this sweep (cases 0 to "));
  cr_assert(err_has("go on from it with --resume, or start over after removing it (rm -- 'ck')"));
  size_t m;
  char *after = cc_slurp(td_path("ck"), &m);
  cr_assert(n == m && !memcmp(before, after, n), "the checkpoint was changed");
  cr_assert(!td_exists(td_path("res")));
  /* The checkpoint of another sweep (another seed) is not replaced either. */
  cr_assert_eq(td_tb("sweep mixed --seed 2 --count 400000 -j2 -q --checkpoint ck -o res"), 2);
  cr_assert(err_has("ck is the checkpoint of another sweep"));
  free(after);
  after = cc_slurp(td_path("ck"), &m);
  cr_assert(n == m && !memcmp(before, after, n), "the checkpoint was changed");
  free(before);
  free(after);
}

/* The text with one count moved from a hist record to another of the same column and bin, into the file
 * name: every sum the reader checks stays as it was. */
static void move_one_count(const char *text, const char *name) {
  char form[128] = "", key[160] = "";
  FILE *f = fopen(td_path(name), "w");
  cr_assert_not_null(f);
  const char *from = NULL, *to = NULL;
  /* from: the first hist record with a count of 2 or more; to: the next one of its column and bin. */
  for (const char *l = text; *l; l = strchr(l, '\n') + 1) {
    unsigned b, h;
    unsigned long long c;
    if (strncmp(l, "hist ", 5) || sscanf(l, "hist %127s %u %u %*s %*s %llu", form, &b, &h, &c) != 4) continue;
    char k[160];
    snprintf(k, sizeof k, "hist %s %u ", form, b);
    if (!from && c >= 2) {
      from = l;
      snprintf(key, sizeof key, "%s", k);
    } else if (from && !strcmp(k, key)) {
      to = l;
      break;
    }
  }
  cr_assert(from && to, "no two hist records of one column and bin");
  for (const char *l = text; *l; l = strchr(l, '\n') + 1) {
    size_t ll = (size_t)(strchr(l, '\n') - l);
    if (l != from && l != to) {
      fwrite(l, 1, ll + 1, f);
      continue;
    }
    const char *last = l + ll;
    while (*last != ' ') last--;
    unsigned long long c = strtoull(last + 1, NULL, 10);
    fprintf(f, "%.*s %llu\n", (int)(last - l), l, l == from ? c - 1 : c + 1);
  }
  cr_assert_eq(fclose(f), 0);
}

Test(checkpoint, a_count_moved_between_bins_is_refused_on_resume, .init = td_setup, .fini = td_teardown) {
  make_checkpoint();
  char *ck = td_read("ck");
  move_one_count(ck, "ck");
  char *moved = td_read("ck");
  cr_assert_str_neq(moved, ck);
  /* Without its checksum line the edited file is a valid result: only the checksum can tell. */
  char *sum = strstr(moved, "\n# checksum fnv1a64 ");
  cr_assert_not_null(sum, "the checkpoint has no checksum line");
  cr_assert_eq(strchr(sum + 1, '\n')[1], 0, "the checksum line is not the last");
  sum[1] = 0;
  td_put("nosum", moved);
  cr_assert_eq(td_tb("merge --partial nosum -o merged"), 0);
  cr_assert_eq(td_tb(CHECKPOINTED " --resume"), 3);
  cr_assert(err_has("the checksum does not match the lines before it"));
  cr_assert(err_has("ck: not resumed; the file is left as it is"));
  cr_assert(!td_exists(td_path("res")));
  char *after = td_read("ck");
  sum[1] = '#';
  cr_assert_str_eq(after, moved, "the checkpoint was changed");
  free(after);
  free(moved);
  free(ck);
}

/* SIGINT after the first checkpoint: the sweep saves the cases done, says so, and ends by SIGINT; the run
 * with --resume then writes the bytes of an uninterrupted run and removes the checkpoint. */
Test(checkpoint, sigint_saves_a_checkpoint_that_resumes_to_the_same_bytes, .init = td_setup, .fini = td_teardown,
     .timeout = 300) {
  cr_assert_eq(td_tb(SWEEP " -o whole"), 0);
  pid_t pid = ck_spawn(CHECKPOINTED, 0);
  wait_for_file("ck", pid);
  cr_assert_eq(kill(pid, SIGINT), 0);
  int st = ck_wait(pid);
  cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGINT, "the sweep did not end by SIGINT (status %#x): %s", st,
            td_read("err"));
  cr_assert(!td_exists(td_path("res")), "the sweep ended before it was stopped: make it longer");
  char *ck = td_read("ck"), said[128];
  unsigned long long end = range_end(ck);
  snprintf(said, sizeof said, "stopped by SIGINT: cases 0 to %llu of 0 to " CK_COUNT " are saved in ck", end);
  cr_assert(err_has(said));
  cr_assert(err_has("go on with the same command and --resume"));
  cr_assert(end > 0 && end < strtoull(CK_COUNT, NULL, 10));
  free(ck);
  cr_assert_eq(td_tb(CHECKPOINTED " --resume"), 0, "%s", td_read("err"));
  cr_assert(td_same_file(td_path("whole"), td_path("res")), "the resumed sweep differs from the uninterrupted one");
  cr_assert(!td_exists(td_path("ck")), "the checkpoint was left behind");
}

/* SIGTERM before any checkpoint was due (--checkpoint-every 1000) still leaves one, of the cases done (none
 * yet, when the signal comes before the first block is scored), and it resumes to the bytes of a whole run. */
Test(checkpoint, sigterm_saves_before_any_checkpoint_is_due, .init = td_setup, .fini = td_teardown, .timeout = 300) {
#define EARLY "sweep mixed --count 3000000 -j2 -q --checkpoint ck --checkpoint-every 1000 -o res"
  cr_assert_eq(td_tb("sweep mixed --count 3000000 -j2 -q -o whole"), 0);
  pid_t pid = ck_spawn(EARLY, 0);
  /* Its scoring threads (-j2) run once it works on the cases, after the signals are taken in hand. */
  for (double t0 = ck_now(); ck_now() - t0 < 120 && thread_count(pid) < 3;) usleep(2000);
  cr_assert_geq(thread_count(pid), 3, "the sweep did not start");
  cr_assert_eq(kill(pid, SIGTERM), 0);
  int st = ck_wait(pid);
  cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM, "the sweep did not end by SIGTERM (status %#x): %s", st,
            td_read("err"));
  cr_assert(td_exists(td_path("ck")), "no checkpoint: %s", td_read("err"));
  char *ck = td_read("ck");
  unsigned long long end = range_end(ck);
  cr_assert(end < 3000000, "the checkpoint says every case was done: %llu", end);
  cr_assert(err_has("stopped by SIGTERM: cases 0 to "));
  free(ck);
  cr_assert_eq(td_tb(EARLY " --resume"), 0, "%s", td_read("err"));
  cr_assert(td_same_file(td_path("whole"), td_path("res")), "the resumed sweep differs from the uninterrupted one");
  cr_assert(!td_exists(td_path("ck")), "the checkpoint was left behind");
#undef EARLY
}

/* A sweep started with SIGINT ignored (nohup, a shell's background job) keeps it ignored: it runs to its end. */
Test(checkpoint, an_ignored_sigint_stays_ignored, .init = td_setup, .fini = td_teardown, .timeout = 300) {
  cr_assert_eq(td_tb(SWEEP " -o whole"), 0);
  pid_t pid = ck_spawn(CHECKPOINTED, 1);
  wait_for_file("ck", pid);
  kill(pid, SIGINT);
  int st = ck_wait(pid);
  cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %#x: %s", st, td_read("err"));
  cr_assert(td_same_file(td_path("whole"), td_path("res")));
  cr_assert(!td_exists(td_path("ck")));
}
