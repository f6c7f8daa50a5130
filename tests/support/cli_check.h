/* cli_check.h: helpers of the end-to-end tests that run toibench and its example solvers (static, per test file). */
#ifndef TOI_CLI_CHECK_H
#define TOI_CLI_CHECK_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

#endif
