/* cli_check.h: helpers of the end-to-end tests that run toibench and its example solvers (static, per test file). */
#ifndef TOI_CLI_CHECK_H
#define TOI_CLI_CHECK_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>
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

static inline int cc_rm_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw) {
  (void)sb, (void)type, (void)ftw;
  return remove(path);
}

/* Removes the folder dir and everything in it, without a shell (nftw, depth
 * first, never following a link). */
static inline void cc_rmtree(const char *dir) {
  cr_assert_eq(nftw(dir, cc_rm_entry, 16, FTW_DEPTH | FTW_PHYS), 0, "cannot remove %s", dir);
}

/* Splits a command line into words, as a shell would for the plain words and
 * '...' or "..." quoting the tests use (no escapes, no expansion: nothing is
 * ever handed to a shell). At most max - 1 words; argv[count] = NULL. The
 * words live in buf. */
static inline int cc_split(const char *line, char *buf, size_t bufsz, char **argv, int max) {
  int n = 0;
  size_t k = 0;
  const char *p = line;
  while (*p) {
    while (*p == ' ') p++;
    if (!*p) break;
    cr_assert_lt(n, max - 1, "too many words in %s", line);
    argv[n++] = buf + k;
    while (*p && *p != ' ') {
      if (*p == '\'' || *p == '"') {
        char q = *p++;
        while (*p && *p != q) buf[k++] = *p++;
        cr_assert_eq(*p, q, "unbalanced quote in %s", line);
        p++;
      } else {
        buf[k++] = *p++;
      }
      cr_assert_lt(k, bufsz - 1, "command line too long: %s", line);
    }
    buf[k++] = 0;
  }
  argv[n] = NULL;
  return n;
}

/* Runs `ENV toibench ARGS` (ENV: NAME=VALUE words, or NULL) in the source
 * directory, without a shell: ARGS split by cc_split, stdin empty, both
 * streams captured through a temporary directory removed after. The result
 * stays valid until the next call. */
static inline cc_out *cc_run(const char *env, const char *args) {
  static cc_out r;
  static char words[8192], envw[2048];
  char *argv[256], *envv[32];
  argv[0] = (char *)TOIBENCH_PATH;
  cc_split(args, words, sizeof words, argv + 1, 255);
  int nenv = env ? cc_split(env, envw, sizeof envw, envv, 32) : 0;
  char dir[] = "/tmp/toiccXXXXXX";
  cr_assert_not_null(mkdtemp(dir));
  char o[64], e[64];
  snprintf(o, sizeof o, "%s/out", dir);
  snprintf(e, sizeof e, "%s/err", dir);
  pid_t pid = fork();
  cr_assert_geq(pid, 0);
  if (pid == 0) {
    for (int i = 0; i < nenv; i++) putenv(envv[i]);
    int in = open("/dev/null", O_RDONLY), fo = open(o, O_WRONLY | O_CREAT | O_TRUNC, 0600),
        fe = open(e, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (in < 0 || fo < 0 || fe < 0 || chdir(TOI_SOURCE_DIR)) _exit(126);
    dup2(in, 0), dup2(fo, 1), dup2(fe, 2);
    execv(argv[0], argv);
    _exit(127);
  }
  int st = 0;
  cr_assert_eq(waitpid(pid, &st, 0), pid);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  cc_read_into(o, r.out, sizeof r.out);
  cc_read_into(e, r.err, sizeof r.err);
  unlink(o);
  unlink(e);
  rmdir(dir);
  return &r;
}

#endif
