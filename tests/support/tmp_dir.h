/* tmp_dir.h: a temporary directory per test (td_setup, td_teardown as .init and .fini), files in it, toibench run in it. */
#ifndef TOI_TMP_DIR_H
#define TOI_TMP_DIR_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "cli_check.h"

static char td_dir[64];

static inline void td_setup(void) {
  snprintf(td_dir, sizeof td_dir, "/tmp/toitestXXXXXX");
  cr_assert_not_null(mkdtemp(td_dir));
}

static inline void td_teardown(void) {
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", td_dir);
  cr_assert_eq(system(cmd), 0);
}

/* The file name in the directory; eight calls may be alive at once. */
static inline const char *td_path(const char *name) {
  static char buf[8][256];
  static int k;
  k = (k + 1) % 8;
  snprintf(buf[k], sizeof buf[k], "%s/%s", td_dir, name);
  return buf[k];
}

/* Runs `toibench ARGS` in the directory, stdin empty, stderr to the file err
 * there (stdout where ARGS sends it). The exit status, or -1 on a signal. */
static inline int td_tb(const char *args) {
  char cmd[8192];
  snprintf(cmd, sizeof cmd, "cd '%s' && '%s' %s 2>err </dev/null", td_dir, TOIBENCH_PATH, args);
  int st = system(cmd);
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

#endif
