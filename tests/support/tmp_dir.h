/* tmp_dir.h: a temporary directory per test (td_setup, td_teardown as .init and .fini), files in it, toibench run in it. */
#ifndef TOI_TMP_DIR_H
#define TOI_TMP_DIR_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "cli_check.h"

static char td_dir[64];

static inline void td_setup(void) {
  snprintf(td_dir, sizeof td_dir, "/tmp/toitestXXXXXX");
  cr_assert_not_null(mkdtemp(td_dir));
}

static inline void td_teardown(void) { cc_rmtree(td_dir); }

/* The file name in the directory; eight calls may be alive at once. */
static inline const char *td_path(const char *name) {
  static char buf[8][256];
  static int k;
  k = (k + 1) % 8;
  snprintf(buf[k], sizeof buf[k], "%s/%s", td_dir, name);
  return buf[k];
}

/* Runs `toibench ARGS` in the directory without a shell (ARGS split by
 * cc_split; a word `>FILE` or `>` FILE sends stdout to FILE there, else it is
 * the test's), stdin empty, stderr to the file err there. The exit status, or
 * -1 on a signal. */
static inline int td_tb(const char *args) {
  static char words[8192];
  char *w[256], *argv[256], *out = NULL;
  int n = cc_split(args, words, sizeof words, w, 256), k = 0;
  argv[k++] = (char *)TOIBENCH_PATH;
  for (int i = 0; i < n; i++) {
    if (w[i][0] == '>') out = w[i][1] ? w[i] + 1 : (i + 1 < n ? w[++i] : NULL);
    else argv[k++] = w[i];
  }
  argv[k] = NULL;
  pid_t pid = fork();
  cr_assert_geq(pid, 0);
  if (pid == 0) {
    int in = open("/dev/null", O_RDONLY);
    if (in < 0 || chdir(td_dir)) _exit(126);
    int fe = open("err", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int fo = out ? open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644) : 1;
    if (fe < 0 || fo < 0) _exit(126);
    dup2(in, 0), dup2(fo, 1), dup2(fe, 2);
    execv(argv[0], argv);
    _exit(127);
  }
  int st = 0;
  cr_assert_eq(waitpid(pid, &st, 0), pid);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* 1 when the file exists. */
static inline int td_exists(const char *p) {
  struct stat st;
  return stat(p, &st) == 0;
}

/* 1 when the two files hold the same bytes (both must exist). */
static inline int td_same_file(const char *a, const char *b) {
  size_t la, lb;
  char *x = cc_slurp(a, &la), *y = cc_slurp(b, &lb);
  int same = la == lb && memcmp(x, y, la) == 0;
  free(x);
  free(y);
  return same;
}

/* Writes text to the file name in the directory. */
static inline void td_put(const char *name, const char *text) {
  FILE *f = fopen(td_path(name), "w");
  cr_assert_not_null(f, "cannot write %s", name);
  fputs(text, f);
  fclose(f);
}

/* The whole of the file name in the directory, which must exist; the caller frees it. */
static inline char *td_read(const char *name) { return cc_slurp(td_path(name), NULL); }

/* Runs `toibench ARGS` in the directory without a shell (ARGS split by
   cc_split; stdin empty, stdout to out, stderr to err there); its exit status
   (-1 on a signal) and its peak resident memory in KiB, from wait4's rusage of
   that child alone. */
static inline int td_tb_rss(const char *args, long *maxrss_kb) {
  static char words[8192];
  char *argv[256];
  argv[0] = (char *)TOIBENCH_PATH;
  cc_split(args, words, sizeof words, argv + 1, 255);
  pid_t pid = fork();
  cr_assert_geq(pid, 0);
  if (pid == 0) {
    int in = open("/dev/null", O_RDONLY);
    if (in < 0 || chdir(td_dir)) _exit(126);
    int fo = open("out", O_WRONLY | O_CREAT | O_TRUNC, 0644), fe = open("err", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fo < 0 || fe < 0) _exit(126);
    dup2(in, 0), dup2(fo, 1), dup2(fe, 2);
    execv(argv[0], argv);
    _exit(127);
  }
  int st = 0;
  struct rusage ru;
  cr_assert_eq(wait4(pid, &st, 0, &ru), pid);
  *maxrss_kb = ru.ru_maxrss;
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

#endif
