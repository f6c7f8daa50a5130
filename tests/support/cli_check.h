/* cli_check.h: helpers of the end-to-end tests that run toibench and its example solvers (static, per test file). */
#ifndef TOI_CLI_CHECK_H
#define TOI_CLI_CHECK_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The whole of a file as a string, its length in *len (when len is not
 * NULL); a missing file is a failure when must_exist, else an empty string.
 * The caller frees it. */
static inline char *cc_read_len(const char *path, size_t *len, int must_exist) {
  FILE *f = fopen(path, "rb");
  if (must_exist) cr_assert_not_null(f, "cannot open %s", path);
  long n = 0;
  if (f && fseek(f, 0, SEEK_END) == 0) n = ftell(f);
  char *s = malloc((size_t)(n > 0 ? n : 0) + 1);
  cr_assert_not_null(s);
  size_t got = 0;
  if (f && n > 0) {
    rewind(f);
    got = fread(s, 1, (size_t)n, f);
  }
  s[got] = 0;
  if (f) fclose(f);
  if (len) *len = got;
  return s;
}

/* The whole of a file as a string (empty when missing); the caller frees it. */
static inline char *cc_read(const char *path) { return cc_read_len(path, NULL, 0); }

/* The whole of a file that must exist, its length in *len (len may be NULL). */
static inline char *cc_slurp(const char *path, size_t *len) { return cc_read_len(path, len, 1); }

/* Where the build put toibench, and so the examples and the broken solvers
 * (rel: a path under the build directory); four results stay valid at once. */
static inline const char *cc_built(const char *rel) {
  static char slots[4][4200];
  static int next;
  char *p = slots[next++ % 4];
  snprintf(p, sizeof slots[0], "%s", TOIBENCH_PATH);
  char *slash = strrchr(p, '/');
  snprintf(slash ? slash + 1 : p, sizeof slots[0] - (size_t)(slash ? slash + 1 - p : 0), "%s", rel);
  cr_assert_eq(access(p, F_OK), 0, "%s is missing: `make test` builds it", p);
  return p;
}

/* What a run of toibench printed, and how it ended. */
typedef struct cc_out {
  int status;         /* exit status, -1 on a signal */
  char out[1 << 17];  /* stdout, cut there */
  char err[1 << 15];  /* stderr, cut there */
} cc_out;

/* A file's first n - 1 bytes into buf, NUL-terminated (empty when missing). */
static inline void cc_read_into(const char *path, char *buf, size_t n) {
  FILE *f = fopen(path, "r");
  size_t got = f ? fread(buf, 1, n - 1, f) : 0;
  buf[got] = 0;
  if (f) fclose(f);
}

/* Runs `ENV toibench ARGS` in the source directory (env NULL: none), stdin
 * empty, both streams captured through a temporary directory removed after.
 * The result stays valid until the next call. */
static inline cc_out *cc_run(const char *env, const char *args) {
  static cc_out r;
  char dir[] = "/tmp/toiccXXXXXX";
  cr_assert_not_null(mkdtemp(dir));
  char cmd[8192], o[64], e[64];
  snprintf(o, sizeof o, "%s/out", dir);
  snprintf(e, sizeof e, "%s/err", dir);
  snprintf(cmd, sizeof cmd, "cd '%s' && %s '%s' %s >%s 2>%s </dev/null", TOI_SOURCE_DIR, env ? env : "",
           TOIBENCH_PATH, args, o, e);
  int st = system(cmd);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  cc_read_into(o, r.out, sizeof r.out);
  cc_read_into(e, r.err, sizeof r.err);
  unlink(o);
  unlink(e);
  rmdir(dir);
  return &r;
}

#endif
