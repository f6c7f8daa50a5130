/* cli_check.h: helpers of the end-to-end tests that run toibench and its example solvers (static, per test file). */
#ifndef TOI_CLI_CHECK_H
#define TOI_CLI_CHECK_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <ftw.h>
#include <sys/resource.h>
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

/* ---- commands without a shell ---- */

/* Where PATH finds the executable NAME, as `command -v NAME` would (a name
 * holding a '/' is itself), written into buf; NULL when there is none. */
static inline const char *cc_which(const char *name, char *buf, size_t n) {
  struct stat sb;
  if (strchr(name, '/')) {
    snprintf(buf, n, "%s", name);
    return access(buf, X_OK) == 0 ? buf : NULL;
  }
  const char *p = getenv("PATH");
  for (p = p ? p : "/usr/bin:/bin";; p++) {
    size_t len = strcspn(p, ":");
    snprintf(buf, n, "%.*s/%s", len ? (int)len : 1, len ? p : ".", name);
    if (access(buf, X_OK) == 0 && stat(buf, &sb) == 0 && S_ISREG(sb.st_mode)) return buf;
    p += len;
    if (!*p) return NULL;
  }
}

/* One command of a pipeline: its words, its program found on PATH (NULL:
 * none), NAME=VALUE words put in its environment, and its redirections in
 * order (fd from path, or fd a copy of from). */
typedef struct cc_stage {
  char *buf, *argv[256], *env[16], prog[4200];
  int nenv, nredir;
  struct {
    int fd, from;
    const char *path;
  } redir[8];
  int found;
} cc_stage;

/* 1 when the word is NAME=VALUE, NAME a shell variable's name. */
static inline int cc_is_assignment(const char *w) {
  size_t name = strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_0123456789");
  return name > 0 && w[name] == '=' && !(w[0] >= '0' && w[0] <= '9');
}

/* Splits a command line as cc_split does, then takes out what a shell would:
 * leading NAME=VALUE words, and the redirections `<F`, `>F`, `2>F` (F attached
 * or the next word) and `2>&1`. */
static inline void cc_stage_parse(cc_stage *s, const char *line) {
  size_t bufsz = strlen(line) + 2;
  char *w[256];
  s->buf = malloc(bufsz);
  cr_assert_not_null(s->buf);
  int n = cc_split(line, s->buf, bufsz, w, 256), k = 0, i = 0;
  s->nenv = s->nredir = 0;
  for (; i < n && cc_is_assignment(w[i]); i++) {
    cr_assert_lt(s->nenv, 16, "too many assignments in %s", line);
    s->env[s->nenv++] = w[i];
  }
  for (; i < n; i++) {
    char *x = w[i];
    int fd = x[0] == '<' ? 0 : x[0] == '>' ? 1 : x[0] == '2' && x[1] == '>' ? 2 : -1;
    if (fd < 0) {
      s->argv[k++] = x;
      continue;
    }
    cr_assert_lt(s->nredir, 8, "too many redirections in %s", line);
    x += fd == 2 ? 2 : 1;
    s->redir[s->nredir].fd = fd;
    s->redir[s->nredir].from = fd == 2 && !strcmp(x, "&1") ? 1 : -1;
    if (!*x) x = i + 1 < n ? w[++i] : NULL;
    cr_assert_not_null(x, "redirection without a file in %s", line);
    s->redir[s->nredir++].path = x;
  }
  s->argv[k] = NULL;
  cr_assert_gt(k, 0, "no command in %s", line);
  s->found = cc_which(s->argv[0], s->prog, sizeof s->prog) != NULL;
}

/* In the child: the working directory, the environment, the limit, stdin and
 * stdout (pipe ends or the defaults), the redirections, then the program. */
static inline void cc_stage_exec(const cc_stage *s, const char *dir, long vmem_kb, int in, int out) {
  if (chdir(dir)) _exit(126);
  for (int i = 0; i < s->nenv; i++) putenv(s->env[i]);
  struct rlimit rl = {(rlim_t)vmem_kb * 1024, (rlim_t)vmem_kb * 1024};
  if (vmem_kb > 0 && setrlimit(RLIMIT_AS, &rl)) _exit(126);
  if (in < 0) in = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (in < 0 || dup2(in, 0) < 0 || (out >= 0 && dup2(out, 1) < 0)) _exit(126);
  for (int i = 0; i < s->nredir; i++) {
    int fd = s->redir[i].from;
    if (fd < 0)
      fd = s->redir[i].fd == 0 ? open(s->redir[i].path, O_RDONLY | O_CLOEXEC)
                               : open(s->redir[i].path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0 || dup2(fd, s->redir[i].fd) < 0) _exit(126);
  }
  if (s->found) execv(s->prog, s->argv);
  _exit(127);
}

/* How a pipeline runs, and how each of its commands ended. */
typedef struct cc_job {
  const char *dir; /* working directory; NULL: the source directory */
  long vmem_kb;    /* address-space limit of each command in KiB, as `ulimit -v`; 0: none */
  int status[8];   /* each command's exit status, -1 on a signal */
} cc_job;

/* Runs line[0] | line[1] | ... (n commands, at most 8) without a shell: each
 * line split by cc_stage_parse, its program found on PATH by cc_which (127
 * when missing, 126 when a redirection or the set-up fails), joined by
 * pipe(2); stdin of the first /dev/null, stdout of the last and every
 * stderr the test's unless redirected. Every status in job->status; the
 * last command's is returned, as a shell's pipeline status. */
static inline int cc_pipe(cc_job *job, int n, const char *const line[]) {
  cr_assert(n >= 1 && n <= 8);
  cc_stage *st = calloc((size_t)n, sizeof *st);
  cr_assert_not_null(st);
  for (int i = 0; i < n; i++) cc_stage_parse(&st[i], line[i]);
  pid_t pid[8];
  int in = -1;
  for (int i = 0; i < n; i++) {
    int p[2] = {-1, -1};
    if (i + 1 < n) {
      cr_assert_eq(pipe(p), 0);
      fcntl(p[0], F_SETFD, FD_CLOEXEC);
      fcntl(p[1], F_SETFD, FD_CLOEXEC);
    }
    pid[i] = fork();
    cr_assert_geq(pid[i], 0);
    if (pid[i] == 0) cc_stage_exec(&st[i], job->dir ? job->dir : TOI_SOURCE_DIR, job->vmem_kb, in, p[1]);
    if (in >= 0) close(in);
    if (p[1] >= 0) close(p[1]);
    in = p[0];
  }
  for (int i = 0; i < n; i++) {
    int ws = 0;
    cr_assert_eq(waitpid(pid[i], &ws, 0), pid[i]);
    job->status[i] = WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
    free(st[i].buf);
  }
  free(st);
  return job->status[n - 1];
}

/* Runs one command line by cc_pipe in dir (NULL: the source directory); its exit status. */
static inline int cc_cmd(const char *dir, const char *line) {
  cc_job job = {dir, 0, {0}};
  return cc_pipe(&job, 1, &line);
}

/* 1 when the engine folder dir was built beside the tested toibench (build/engines/DIR, `make engines`). */
static inline int cc_engine_built(const char *dir) {
  char path[4200];
  snprintf(path, sizeof path, "%s", TOIBENCH_PATH);
  char *slash = strrchr(path, '/');
  if (slash) *slash = 0;
  snprintf(path + strlen(path), sizeof path - strlen(path), "/engines/%s", dir);
  return access(path, R_OK) == 0;
}

#endif
