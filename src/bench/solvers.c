/* solvers.c: the registry of external solvers: plug-in catalogs, engine directories, command names. */
#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "solvers.h"

/* Copies with truncation; names and paths longer than their fields are cut. */
static void copy_str(char *dst, size_t sz, const char *src) {
  size_t n = src ? strlen(src) : 0;
  if (n >= sz) n = sz - 1;
  if (n) memcpy(dst, src, n);
  dst[n] = 0;
}

int solvers_from_plugin(const char *path, const char *symbol, double timeout, solver_def **out, char *err,
                        size_t errsz) {
  *out = NULL;
  char full[PATH_MAX];
  /* dlopen searches the library path for a bare name; a file given on the
   * command line is meant, so it is resolved first. */
  if (!realpath(path, full)) {
    snprintf(err, errsz, "%s: no such plug-in file", path);
    return -1;
  }
  /* Loading runs the library's constructors: only ever in a child process. */
  return solver_plugin_describe(full, path, symbol, timeout, out, err, errsz);
}

static int is_number(const char *w, size_t n) {
  char buf[64], *end;
  if (n == 0 || n >= sizeof buf) return 0;
  memcpy(buf, w, n);
  buf[n] = 0;
  strtod(buf, &end);
  return *end == 0;
}

void solvers_from_command(const char *command, solver_def *out) {
  memset(out, 0, sizeof *out);
  out->kind = SOLVER_COMMAND;
  copy_str(out->command, sizeof out->command, command);
  /* Named after the program or script: the last word that looks like a path
   * or a file name ("node solver.js" is "solver.js", "./mysolver --fast 3" is
   * "mysolver"), else the first word ("mysolver" found on PATH). */
  const char *best = NULL, *first = NULL;
  size_t bestlen = 0, firstlen = 0;
  for (const char *p = command; *p;) {
    while (*p == ' ' || *p == '\t') p++;
    const char *w = p;
    while (*p && *p != ' ' && *p != '\t') p++;
    size_t n = (size_t)(p - w);
    if (n == 0 || *w == '-' || memchr(w, '=', n) || is_number(w, n)) continue;
    if (!first) {
      first = w;
      firstlen = n;
    }
    if (memchr(w, '/', n) || memchr(w, '.', n)) {
      best = w;
      bestlen = n;
    }
  }
  if (!best) {
    best = first;
    bestlen = firstlen;
  }
  char word[4096];
  snprintf(word, sizeof word, "%.*s", best ? (int)bestlen : 0, best ? best : "");
  char *q = word;
  for (char *s = word; *s; s++)
    if (*s == '/' && s[1]) q = s + 1;
  /* Quotes and shell punctuation are not part of the name. */
  size_t j = 0;
  for (char *s = q; *s && j < sizeof out->name - 1; s++)
    if ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || strchr("._+-", *s))
      out->name[j++] = *s;
  out->name[j] = 0;
  if (!out->name[0]) copy_str(out->name, sizeof out->name, "command");
}

/* ---- engine directories ---- */

typedef struct defvec {
  solver_def *v;
  size_t n, cap;
} defvec;

static int push(defvec *d, const solver_def *s) {
  for (size_t i = 0; i < d->n; i++)
    if (!strcmp(d->v[i].name, s->name)) return 0; /* the first directory wins */
  if (d->n == d->cap) {
    size_t cap = d->cap ? 2 * d->cap : 16;
    solver_def *p = realloc(d->v, cap * sizeof *p);
    if (!p) return -1;
    d->v = p;
    d->cap = cap;
  }
  d->v[d->n++] = *s;
  return 0;
}

static int has_suffix(const char *s, const char *suf) {
  size_t a = strlen(s), b = strlen(suf);
  return a > b && !strcmp(s + a - b, suf);
}

/* A manifest lists command solvers, one per line: NAME<TAB>COMMAND<TAB>SUMMARY,
   then optionally <TAB>PRECISION (binary64 when absent; a line naming a
   precision this toibench does not know is skipped). */
static void read_manifest(defvec *d, const char *path) {
  FILE *f = fopen(path, "re");
  if (!f) return;
  char line[8192];
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\r\n")] = 0;
    if (!line[0] || line[0] == '#') continue;
    char *name = line, *cmd = strchr(line, '\t');
    if (!cmd) continue;
    *cmd++ = 0;
    char *sum = strchr(cmd, '\t');
    if (sum) *sum++ = 0;
    char *prec = sum ? strchr(sum, '\t') : NULL;
    if (prec) *prec++ = 0;
    toi_precision q = TOI_BINARY64;
    if (prec && toi_precision_parse(&q, prec) != TOI_OK) continue;
    solver_def s;
    memset(&s, 0, sizeof s);
    s.kind = SOLVER_COMMAND;
    s.engine = 1;
    copy_str(s.name, sizeof s.name, name);
    copy_str(s.command, sizeof s.command, cmd);
    copy_str(s.summary, sizeof s.summary, sum);
    s.precision = (toi_precision)q;
    if (push(d, &s)) break;
  }
  fclose(f);
}

static int cmp_name(const void *a, const void *b) {
  return strcmp(((const solver_def *)a)->name, ((const solver_def *)b)->name);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void scan_dir(defvec *d, const char *dir, const toi_msg *msg) {
  DIR *dp = opendir(dir);
  if (!dp) return;
  /* Sorted, so that which of two same-named solvers wins does not depend on
   * the order the file system lists them in. */
  char **names = NULL;
  size_t n = 0, cap = 0;
  for (struct dirent *e; (e = readdir(dp));) {
    if (!has_suffix(e->d_name, ".so") && !has_suffix(e->d_name, ".solvers")) continue;
    if (n == cap) {
      cap = cap ? 2 * cap : 16;
      char **p = realloc(names, cap * sizeof *p);
      if (!p) break;
      names = p;
    }
    if (!(names[n] = strdup(e->d_name))) break;
    n++;
  }
  closedir(dp);
  if (n) qsort(names, n, sizeof *names, cmp_str);
  for (size_t i = 0; i < n; i++) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    if (has_suffix(names[i], ".solvers")) {
      read_manifest(d, path);
    } else {
      solver_def *v;
      char err[PATH_MAX + 600];
      int k = solvers_from_plugin(path, NULL, SOLVER_LOAD_TIMEOUT, &v, err, sizeof err);
      /* A broken engine library is reported, not fatal: the others still work. */
      if (k < 0) toi_msgf(msg, "engine %s", err);
      for (int j = 0; j < k; j++) {
        v[j].engine = 1;
        push(d, &v[j]);
      }
      if (k > 0) free(v);
    }
    free(names[i]);
  }
  free(names);
}

size_t solvers_engines(solver_def **out, const toi_msg *msg) {
  defvec d = {0};
  const char *env = getenv("TOIBENCH_ENGINES");
  if (env) {
    char *copy = strdup(env);
    for (char *save = NULL, *t = copy ? strtok_r(copy, ":", &save) : NULL; t; t = strtok_r(NULL, ":", &save))
      scan_dir(&d, t, msg);
    free(copy);
  } else {
    char exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len > 0) {
      exe[len] = 0;
      char *slash = strrchr(exe, '/');
      if (slash) *slash = 0;
      char dir[PATH_MAX + 32];
      snprintf(dir, sizeof dir, "%s/engines", exe);
      scan_dir(&d, dir, msg);
      snprintf(dir, sizeof dir, "%s/../lib/toibench/engines", exe);
      scan_dir(&d, dir, msg);
    }
  }
  if (d.n) qsort(d.v, d.n, sizeof *d.v, cmp_name);
  *out = d.v;
  return d.n;
}

int solvers_find_engine(const char *name, solver_def *out, const toi_msg *msg) {
  solver_def *v;
  size_t n = solvers_engines(&v, msg);
  int rc = -1;
  for (size_t i = 0; i < n && rc; i++)
    if (!strcmp(v[i].name, name)) {
      *out = v[i];
      rc = 0;
    }
  free(v);
  return rc;
}

/* ---- running ---- */

int solver_check_answer(solver_answer *a) {
  if (a->state != SOLVER_ANSWERED) return 0;
  int cls = (int)a->r.cls;
  if (cls < 0 || cls >= TOI_CLASS_COUNT) {
    /* A broken answer, as a command's unknown class name is: it fails the run. */
    a->state = SOLVER_FAILED;
    a->cause = TOI_CAUSE_PROTOCOL;
    a->malfunction = 1;
    snprintf(a->why, sizeof a->why, "verdict %d is not a class", cls);
    return -1;
  }
  if (toi_class_group(a->r.cls) == TOI_G_CONTACT && !isfinite(a->r.t)) {
    a->state = SOLVER_FAILED;
    a->cause = TOI_CAUSE_RANGE;
    snprintf(a->why, sizeof a->why, "verdict %s with time %s", toi_class_name(a->r.cls),
             isnan(a->r.t) ? "nan" : a->r.t > 0 ? "inf" : "-inf");
    return -1;
  }
  /* External solvers are forward ones: a contact before the step's start is
   * not an answer to the question asked, so it breaks the protocol. */
  if (toi_class_group(a->r.cls) == TOI_G_CONTACT && a->r.t < 0) {
    a->state = SOLVER_FAILED;
    a->cause = TOI_CAUSE_RANGE;
    a->malfunction = 1;
    snprintf(a->why, sizeof a->why, "verdict %s with negative time %g (a forward solver's time is >= 0)",
             toi_class_name(a->r.cls), a->r.t);
    return -1;
  }
  return 0;
}

int solver_run(solver_def *s, const toi_case *cases, size_t n, const solver_opts *o, solver_answer *ans,
               solver_run_info *info) {
  memset(info, 0, sizeof *info);
  for (size_t i = 0; i < n; i++) {
    memset(&ans[i], 0, sizeof ans[i]);
    ans[i].state = SOLVER_FAILED;
    ans[i].cause = TOI_CAUSE_PROTOCOL; /* no answer */
    ans[i].r = (toi_result){TOI_NONE, NAN};
    ans[i].target = ans[i].tolerance = NAN;
    snprintf(ans[i].why, sizeof ans[i].why, "no answer");
  }
  double t0 = toi_clock_now();
  int rc = s->kind == SOLVER_PLUGIN ? solver_plugin_run(s, cases, n, o, ans, info)
                                    : solver_cmd_run(s, cases, n, o, ans, info);
  if (rc) return rc;
  /* The bench's own time per call, beside the engine's when it reports one. */
  info->bench_calls = n;
  info->bench_ns = (uint64_t)((toi_clock_now() - t0) * 1e9);
  info->malfunctions = 0;
  for (size_t i = 0; i < n; i++) {
    solver_check_answer(&ans[i]);
    if (ans[i].state == SOLVER_FAILED && ans[i].malfunction) info->malfunctions++;
  }
  return 0;
}

int solvers_split_plugin(const char *arg, char *path, size_t psz, char *sym, size_t ssz) {
  static const char ident[] = "_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  const char *c = strrchr(arg, ':');
  size_t n = c ? strlen(c + 1) : 0;
  int named = c && c != arg && n && !(c[1] >= '0' && c[1] <= '9') && strspn(c + 1, ident) == n;
  snprintf(path, psz, "%.*s", named ? (int)(c - arg) : (int)strlen(arg), arg);
  /* A file whose own name ends in ':identifier' is meant whole. */
  if (named && access(path, F_OK) != 0 && access(arg, F_OK) == 0) {
    named = 0;
    snprintf(path, psz, "%s", arg);
  }
  snprintf(sym, ssz, "%s", named ? c + 1 : "");
  return named;
}

int solvers_from_plugin_arg(const char *arg, double timeout, solver_def **out, char *err, size_t errsz,
                            char *path_out, size_t path_sz) {
  char path[4096], sym[128];
  solvers_split_plugin(arg, path, sizeof path, sym, sizeof sym);
  if (path_out) snprintf(path_out, path_sz, "%s", path);
  return solvers_from_plugin(path, sym[0] ? sym : NULL, timeout, out, err, errsz);
}
