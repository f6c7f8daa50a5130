/* findings.c: writes and checks the documents' tables of measured figures from the recipes of doc/findings/recipes. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/*
 * A document holds generated blocks:
 *
 *     <!-- findings:NAME begin -->
 *     ...
 *     <!-- findings:NAME end -->
 *
 * and the recipe NAME (doc/findings/recipes; its format is described at the
 * top of that file) says which commands make the text between the markers:
 * a transcript of the commands, each followed by what it printed, in a fenced
 * code block. The commands run in a scratch folder holding links to the
 * source tree's build/, cases/ and examples/, so a recipe's lines are the
 * lines a reader types at the top of the tree. Nothing goes through a shell:
 * each command is its words, run by fork and execvp.
 *
 * --write FILE... rewrites every block (atomically, a file at a time);
 * --check FILE... runs the recipes whose output is deterministic and fails
 * when a block's text is not what this build produces. Blocks that need the
 * engines (`make engines`) or MPI (`make mpi`) are checked when those are
 * built and skipped with the reason otherwise; machine-dependent blocks
 * (times) and slow ones are written by --write only and never checked.
 */

enum kind { K_DETERMINISTIC, K_ENGINES, K_MPI, K_MACHINE, K_SLOW };
static const char *const kind_names[] = {"deterministic", "engines", "mpi", "machine", "slow"};

enum { EXIT_DIFFERS = 1, EXIT_USAGE = 2, EXIT_INPUT = 3 };

#define CMD_TIMEOUT_S 1800 /* a command running longer is stopped: a hang must not stop make test */

typedef struct cmd {
  char *text;     /* the line as written, after "$ " or "time " */
  char **argv;    /* its words */
  char *out;      /* >FILE: stdout goes there, not into the block */
  int err_to_out; /* 2>&1: stderr goes with stdout */
  int timed;      /* a `time` line: measured, its output not shown */
  char **columns; /* `columns`: its stdout is CSV, shown as a table of these columns */
  char **drops;   /* `drop`: these columns removed from its stdout's table */
  int line;
} cmd;

typedef struct recipe {
  char *name;
  int kind, line, repeat;
  int status_ok[8], nstatus;
  char **needs; /* engine solver names */
  cmd *cmds;
  int ncmds;
  int state;  /* 0 not run, 1 produced, -1 failed, 2 unavailable */
  char *text; /* the block's text once produced */
  char *why;  /* why it is unavailable or failed */
} recipe;

static const char *recipes_path = "doc/findings/recipes";
static char root[4096]; /* the source tree: the working directory */
static recipe *recipes;
static int nrecipes;
static char **engines_built; /* `build/toibench list --engines`, once */
static int engines_known;
static int verbose;

/* ---- small utilities ---- */

static void die_oom(void) {
  fputs("findings: out of memory\n", stderr);
  exit(EXIT_DIFFERS);
}

static void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) die_oom();
  return p;
}

static void *xrealloc(void *p, size_t n) {
  p = realloc(p, n ? n : 1);
  if (!p) die_oom();
  return p;
}

static char *xstrndup(const char *s, size_t n) {
  char *p = xmalloc(n + 1);
  memcpy(p, s, n);
  p[n] = 0;
  return p;
}

static char *xstrdup(const char *s) { return xstrndup(s, strlen(s)); }

/* A growing string. */
typedef struct sbuf {
  char *s;
  size_t len, cap;
} sbuf;

static void sb_add(sbuf *b, const char *s, size_t n) {
  if (b->len + n + 1 > b->cap) {
    b->cap = (b->len + n + 1) * 2;
    b->s = xrealloc(b->s, b->cap);
  }
  memcpy(b->s + b->len, s, n);
  b->len += n;
  b->s[b->len] = 0;
}

static void sb_puts(sbuf *b, const char *s) { sb_add(b, s, strlen(s)); }

static void sb_printf(sbuf *b, const char *fmt, ...) {
  char tmp[1024];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if ((size_t)n < sizeof tmp) {
    sb_add(b, tmp, (size_t)n);
    return;
  }
  char *big = xmalloc((size_t)n + 1);
  va_start(ap, fmt);
  vsnprintf(big, (size_t)n + 1, fmt, ap);
  va_end(ap);
  sb_add(b, big, (size_t)n);
  free(big);
}

static char *sb_take(sbuf *b) {
  if (!b->s) return xstrdup("");
  return b->s;
}

/* The whole file; NULL (errno set) when it cannot be read. */
static char *read_file(const char *path, size_t *len) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return NULL;
  sbuf b = {0};
  char buf[65536];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int e = errno;
      close(fd);
      free(b.s);
      errno = e;
      return NULL;
    }
    if (n == 0) break;
    sb_add(&b, buf, (size_t)n);
  }
  close(fd);
  if (len) *len = b.len;
  return sb_take(&b);
}

/* A NULL-terminated list of strings. */
static char **list_add(char **l, char *s) {
  size_t n = 0;
  while (l && l[n]) n++;
  l = xrealloc(l, (n + 2) * sizeof *l);
  l[n] = s;
  l[n + 1] = NULL;
  return l;
}

/* Splits a line into words at blanks; '...' and "..." quote (no escapes).
 * NULL when a quote is not closed. */
static char **split_words(const char *p) {
  char **w = xmalloc(sizeof *w);
  w[0] = NULL;
  while (*p) {
    while (*p == ' ' || *p == '\t') p++;
    if (!*p) break;
    sbuf b = {0};
    while (*p && *p != ' ' && *p != '\t') {
      if (*p == '\'' || *p == '"') {
        char q = *p++;
        const char *e = strchr(p, q);
        if (!e) {
          free(b.s);
          return NULL;
        }
        sb_add(&b, p, (size_t)(e - p));
        p = e + 1;
      } else {
        sb_add(&b, p++, 1);
      }
    }
    w = list_add(w, sb_take(&b));
  }
  return w;
}

/* ---- the recipe file ---- */

static int recipe_error(int line, const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "findings: %s:%d: ", recipes_path, line);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  return -1;
}

static int valid_name(const char *s, size_t n) {
  if (n == 0 || n > 64) return 0;
  for (size_t i = 0; i < n; i++)
    if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-' || s[i] == '.'))
      return 0;
  return 1;
}

static recipe *find_recipe(const char *name, size_t n) {
  for (int i = 0; i < nrecipes; i++)
    if (strlen(recipes[i].name) == n && !memcmp(recipes[i].name, name, n)) return &recipes[i];
  return NULL;
}

/* A command line ("$ WORDS [>FILE]" or "time WORDS [>FILE]") into r. */
static int parse_command(recipe *r, const char *text, int timed, int line) {
  char **w = split_words(text);
  if (!w) return recipe_error(line, "a quote is not closed");
  cmd c = {xstrdup(text), NULL, NULL, 0, timed, NULL, NULL, line};
  char **argv = NULL;
  for (int i = 0; w[i]; i++) {
    if (!strcmp(w[i], "2>&1")) {
      c.err_to_out = 1;
      continue;
    }
    if (w[i][0] == '>') {
      const char *f = w[i][1] ? w[i] + 1 : w[i + 1];
      if (!f || c.out || strchr(f, '/')) return recipe_error(line, "'>' wants one file name in the scratch folder");
      c.out = xstrdup(f);
      if (!w[i][1]) i++;
      continue;
    }
    argv = list_add(argv, w[i]);
  }
  if (!argv) return recipe_error(line, "a command without words");
  c.argv = argv;
  r->cmds = xrealloc(r->cmds, (size_t)(r->ncmds + 1) * sizeof *r->cmds);
  r->cmds[r->ncmds++] = c;
  return 0;
}

static int parse_kind(recipe *r, const char *v, int line) {
  for (int k = 0; k < (int)(sizeof kind_names / sizeof *kind_names); k++)
    if (!strcmp(v, kind_names[k])) {
      r->kind = k;
      return 0;
    }
  return recipe_error(line, "unknown kind '%s' (deterministic, engines, mpi, machine or slow)", v);
}

/* One line inside a recipe: a setting or a command. */
static int parse_recipe_line(recipe *r, char *s, int line) {
  char *sp = strpbrk(s, " \t");
  size_t kw = sp ? (size_t)(sp - s) : strlen(s);
  char *v = sp ? sp + strspn(sp, " \t") : s + kw;
  if (s[0] == '$' && (s[1] == ' ' || s[1] == '\t')) return parse_command(r, s + 2 + strspn(s + 2, " \t"), 0, line);
  if (kw == 4 && !strncmp(s, "time", 4)) return *v ? parse_command(r, v, 1, line) : recipe_error(line, "time what?");
  if (kw == 4 && !strncmp(s, "kind", 4)) return parse_kind(r, v, line);
  if (kw == 5 && !strncmp(s, "needs", 5)) {
    char **w = split_words(v);
    for (int i = 0; w && w[i]; i++) r->needs = list_add(r->needs, w[i]);
    return w && w[0] ? 0 : recipe_error(line, "needs what?");
  }
  if (kw == 6 && !strncmp(s, "repeat", 6)) {
    r->repeat = atoi(v);
    return r->repeat >= 1 && r->repeat <= 100 ? 0 : recipe_error(line, "repeat wants 1 to 100");
  }
  if (kw == 6 && !strncmp(s, "status", 6)) {
    char **w = split_words(v);
    for (int i = 0; w && w[i]; i++) {
      if (r->nstatus == 8) return recipe_error(line, "too many statuses");
      r->status_ok[r->nstatus++] = atoi(w[i]);
    }
    return r->nstatus ? 0 : recipe_error(line, "status wants numbers");
  }
  if ((kw == 7 && !strncmp(s, "columns", 7)) || (kw == 4 && !strncmp(s, "drop", 4))) {
    if (!r->ncmds) return recipe_error(line, "'%.*s' follows a command", (int)kw, s);
    cmd *c = &r->cmds[r->ncmds - 1];
    char **w = split_words(v);
    if (!w || !w[0]) return recipe_error(line, "'%.*s' wants column names", (int)kw, s);
    if (kw == 7) c->columns = w;
    else c->drops = w;
    return 0;
  }
  return recipe_error(line, "'%.*s' is not a recipe line ($, time, kind, needs, repeat, status, columns, drop)",
                      (int)kw, s);
}

/* Checks what a recipe must have once all its lines are read. */
static int finish_recipe(const recipe *r) {
  if (r->kind < 0) return recipe_error(r->line, "recipe %s has no kind", r->name);
  if (!r->ncmds) return recipe_error(r->line, "recipe %s runs nothing", r->name);
  if (r->kind == K_ENGINES && !r->needs) return recipe_error(r->line, "engines recipe %s needs its engines", r->name);
  return 0;
}

static int load_recipes(void) {
  size_t len;
  char *text = read_file(recipes_path, &len);
  if (!text) {
    fprintf(stderr, "findings: cannot read %s: %s\n", recipes_path, strerror(errno));
    return -1;
  }
  recipe *cur = NULL;
  int line = 0, bad = 0;
  for (char *s = text, *nl; *s; s = nl) {
    nl = strchr(s, '\n');
    nl = nl ? (*nl = 0, nl + 1) : s + strlen(s);
    line++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r')) s[--n] = 0;
    s += strspn(s, " \t");
    if (!*s || *s == '#') continue;
    if (*s == '[') {
      char *e = strchr(s, ']');
      if (!e || e[1] || !valid_name(s + 1, (size_t)(e - s - 1))) {
        bad |= recipe_error(line, "a recipe starts with [NAME], NAME of a-z, 0-9, '-', '.'");
        cur = NULL;
        continue;
      }
      if (cur) bad |= finish_recipe(cur);
      if (find_recipe(s + 1, (size_t)(e - s - 1))) bad |= recipe_error(line, "recipe %.*s again", (int)(e - s - 1), s + 1);
      recipes = xrealloc(recipes, (size_t)(nrecipes + 1) * sizeof *recipes);
      cur = &recipes[nrecipes++];
      memset(cur, 0, sizeof *cur);
      cur->name = xstrndup(s + 1, (size_t)(e - s - 1));
      cur->kind = -1;
      cur->line = line;
      cur->repeat = 3;
      continue;
    }
    if (!cur) {
      bad |= recipe_error(line, "a line before the first [NAME]");
      continue;
    }
    bad |= parse_recipe_line(cur, s, line);
  }
  if (cur) bad |= finish_recipe(cur);
  free(text);
  for (recipe *r = recipes; r < recipes + nrecipes; r++)
    if (!r->nstatus) r->status_ok[r->nstatus++] = 0;
  return bad ? -1 : 0;
}

/* ---- running commands ---- */

static int rm_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw) {
  (void)sb, (void)type, (void)ftw;
  return remove(path);
}

static void remove_tree(const char *dir) {
  if (nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS) != 0)
    fprintf(stderr, "findings: cannot remove the scratch folder %s: %s\n", dir, strerror(errno));
}

/* A scratch folder with links to the tree's build/, cases/ and examples/; into dir. */
static int make_scratch(char *dir, size_t n) {
  const char *tmp = getenv("TMPDIR");
  snprintf(dir, n, "%s/toibench-findings.XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) {
    fprintf(stderr, "findings: cannot make a scratch folder %s: %s\n", dir, strerror(errno));
    return -1;
  }
  static const char *const links[] = {"build", "cases", "examples"};
  for (size_t i = 0; i < sizeof links / sizeof *links; i++) {
    char from[4200], to[8400];
    snprintf(from, sizeof from, "%s/%s", root, links[i]);
    snprintf(to, sizeof to, "%s/%s", dir, links[i]);
    if (symlink(from, to)) {
      fprintf(stderr, "findings: cannot link %s: %s\n", to, strerror(errno));
      remove_tree(dir);
      return -1;
    }
  }
  return 0;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* How one run of a command ended. */
typedef struct run_result {
  int status; /* exit status; -1 after a signal or when it could not start */
  int signal;
  int timed_out;
  double wall, cpu; /* seconds */
  long maxrss_kb;
} run_result;

/* Runs argv in dir (its own process group; stdin /dev/null, stdout to out_path,
 * stderr to err_path, or with stdout when err_path is NULL) and waits for it, stopping it after CMD_TIMEOUT_S. */
static run_result run_argv(char *const argv[], const char *dir, const char *out_path, const char *err_path) {
  run_result r = {-1, 0, 0, 0, 0, 0};
  sigset_t chld, old;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  sigprocmask(SIG_BLOCK, &chld, &old);
  double t0 = now_s();
  pid_t pid = fork();
  if (pid == 0) {
    sigprocmask(SIG_SETMASK, &old, NULL);
    setpgid(0, 0);
    if (chdir(dir)) _exit(126);
    int in = open("/dev/null", O_RDONLY), o = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644),
        e = err_path ? open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644) : o;
    if (in < 0 || o < 0 || e < 0 || dup2(in, 0) < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0) _exit(126);
    execvp(argv[0], argv);
    dprintf(2, "findings: cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
  }
  if (pid < 0) {
    sigprocmask(SIG_SETMASK, &old, NULL);
    return r;
  }
  struct rusage ru;
  int ws = 0;
  for (;;) {
    pid_t w = wait4(pid, &ws, WNOHANG, &ru);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) break;
    double left = CMD_TIMEOUT_S - (now_s() - t0);
    if (left <= 0 && !r.timed_out) {
      r.timed_out = 1;
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
      left = 5;
    }
    struct timespec ts = {(time_t)(left > 1 ? 1 : left), 0};
    if (left < 1) ts.tv_nsec = (long)(left * 1e9);
    sigtimedwait(&chld, NULL, &ts);
  }
  r.wall = now_s() - t0;
  sigprocmask(SIG_SETMASK, &old, NULL);
  if (WIFEXITED(ws)) r.status = WEXITSTATUS(ws);
  else if (WIFSIGNALED(ws)) r.signal = WTERMSIG(ws);
  r.cpu = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_sec +
          1e-6 * (double)ru.ru_stime.tv_usec;
  r.maxrss_kb = ru.ru_maxrss;
  return r;
}

/* 1 when the program a command starts exists: a path (from the scratch
 * folder, so from the tree) or a name PATH finds. */
static int program_exists(const char *prog) {
  char p[8400];
  if (strchr(prog, '/')) {
    snprintf(p, sizeof p, "%s/%s", root, prog);
    return prog[0] == '/' ? access(prog, X_OK) == 0 : access(p, X_OK) == 0;
  }
  const char *path = getenv("PATH");
  for (path = path ? path : "/usr/bin:/bin";;) {
    size_t len = strcspn(path, ":");
    snprintf(p, sizeof p, "%.*s/%s", len ? (int)len : 1, len ? path : ".", prog);
    struct stat st;
    if (access(p, X_OK) == 0 && stat(p, &st) == 0 && S_ISREG(st.st_mode)) return 1;
    path += len;
    if (!*path++) return 0;
  }
}

/* The engine solvers `build/toibench list --engines` names, read once. */
static void load_engines(void) {
  if (engines_known) return;
  engines_known = 1;
  char dir[4200], out[4300], err[4300];
  if (make_scratch(dir, sizeof dir)) return;
  snprintf(out, sizeof out, "%s/.out", dir);
  snprintf(err, sizeof err, "%s/.err", dir);
  char *argv[] = {"build/toibench", "list", "--engines", NULL};
  run_result r = run_argv(argv, dir, out, err);
  char *text = r.status == 0 ? read_file(out, NULL) : NULL;
  for (char *s = text ? strtok(text, "\n") : NULL; s; s = strtok(NULL, "\n")) engines_built = list_add(engines_built, xstrdup(s));
  free(text);
  remove_tree(dir);
}

/* NULL when the recipe can run here, else why not (a message to free). */
static char *unavailable(const recipe *r) {
  sbuf why = {0};
  for (int i = 0; i < r->ncmds; i++) {
    /* the program, and a program of the build it starts (mpirun ... build/toibench-mpi) */
    for (int a = 0; r->cmds[i].argv[a]; a++) {
      const char *p = r->cmds[i].argv[a];
      if (a > 0 && strncmp(p, "build/", 6)) continue;
      if (program_exists(p) || (why.s && strstr(why.s, p))) continue;
      sb_printf(&why, "%s%s is not built%s", why.len ? "; " : "", p,
                strstr(p, "toibench-mpi") ? " (make mpi)" : strchr(p, '/') ? "" : " (not on PATH)");
    }
  }
  if (r->needs) load_engines();
  int missing = 0;
  for (char **n = r->needs; n && *n; n++) {
    int found = 0;
    for (char **e = engines_built; e && *e && !found; e++) found = !strcmp(*e, *n);
    if (!found) sb_printf(&why, "%s%s", missing++ ? ", " : why.len ? "; engines not built (make engines): " :
                                                                     "engines not built (make engines): ", *n);
  }
  return why.s;
}

/* ---- turning output into the block's text ---- */

/* A CSV cell for people: integers of up to 10 digits (counts) as they are,
 * other numbers to 4 significant digits, an empty cell as '-'. */
static void put_cell(sbuf *b, const char *cell) {
  char *end;
  if (!*cell) {
    sb_puts(b, "-");
    return;
  }
  size_t digits = strlen(cell + (cell[0] == '-'));
  if (digits <= 10 && strspn(cell + (cell[0] == '-'), "0123456789") == digits) {
    sb_puts(b, cell);
    return;
  }
  double v = strtod(cell, &end);
  if (*end == 0 && end != cell) sb_printf(b, "%.4g", v);
  else sb_puts(b, cell);
}

/* Frees a NULL-ended list and, with own, its strings. */
static void list_free(char **l, int own) {
  for (size_t i = 0; own && l && l[i]; i++) free(l[i]);
  free(l);
}

/* Splits a CSV line at commas (the bench's CSV quotes nothing). */
static char **split_csv(const char *line) {
  char **f = NULL;
  for (const char *p = line;;) {
    size_t n = strcspn(p, ",");
    f = list_add(f, xstrndup(p, n));
    if (!p[n]) break;
    p += n + 1;
  }
  return f;
}

/* The chosen columns of a CSV text as an aligned table: the first column
 * left-aligned, the others right-aligned. NULL when a column is missing. */
static char *csv_table(const char *csv, char **want, char **why) {
  char **lines = NULL;
  char *copy = xstrdup(csv);
  for (char *s = strtok(copy, "\n"); s; s = strtok(NULL, "\n")) lines = list_add(lines, s);
  if (!lines) {
    free(copy);
    return xstrdup("");
  }
  char **head = split_csv(lines[0]);
  int nw = 0, idx[64];
  for (; want[nw] && nw < 64; nw++) {
    idx[nw] = -1;
    for (int j = 0; head[j]; j++)
      if (!strcmp(head[j], want[nw])) idx[nw] = j;
    if (idx[nw] < 0) {
      sbuf m = {0};
      sb_printf(&m, "no column %s in the command's CSV header", want[nw]);
      *why = m.s;
      list_free(head, 1);
      list_free(lines, 0);
      free(copy);
      return NULL;
    }
  }
  int nl = 0;
  while (lines[nl]) nl++;
  char ***cells = xmalloc((size_t)nl * sizeof *cells);
  size_t width[64] = {0};
  for (int i = 0; i < nl; i++) {
    char **f = split_csv(lines[i]);
    cells[i] = xmalloc((size_t)nw * sizeof **cells);
    int nf = 0;
    while (f[nf]) nf++;
    for (int k = 0; k < nw; k++) {
      sbuf c = {0};
      if (i == 0) sb_puts(&c, want[k]);
      else put_cell(&c, idx[k] < nf ? f[idx[k]] : "");
      cells[i][k] = sb_take(&c);
      if (strlen(cells[i][k]) > width[k]) width[k] = strlen(cells[i][k]);
    }
    list_free(f, 1);
  }
  sbuf t = {0};
  for (int i = 0; i < nl; i++) {
    for (int k = 0; k < nw; k++)
      sb_printf(&t, k == 0 ? "%-*s" : "  %*s", (int)width[k], cells[i][k]);
    sb_puts(&t, "\n");
  }
  for (int i = 0; i < nl; i++) {
    for (int k = 0; k < nw; k++) free(cells[i][k]);
    free(cells[i]);
  }
  free(cells);
  list_free(head, 1);
  list_free(lines, 0);
  free(copy);
  return sb_take(&t);
}

/* The token word in line as a whole word: its start, else -1. */
static long find_token(const char *line, size_t len, const char *word) {
  size_t wl = strlen(word);
  for (size_t i = 0; i + wl <= len; i++)
    if (!memcmp(line + i, word, wl) && (i == 0 || line[i - 1] == ' ') && (i + wl == len || line[i + wl] == ' '))
      return (long)i;
  return -1;
}

/* Removes a right-aligned column from a table of text: from the end of the
 * header's previous word to the end of its name, on the header line and on
 * each line after it up to a blank or '#' line. */
static char *drop_column(const char *text, const char *name) {
  sbuf o = {0};
  long from = -1, to = -1;
  for (const char *s = text; *s;) {
    const char *nl = strchr(s, '\n');
    size_t len = nl ? (size_t)(nl - s) : strlen(s);
    long t = s[0] == '#' ? -1 : find_token(s, len, name);
    if (t >= 0) {
      long p = t;
      while (p > 0 && s[p - 1] == ' ') p--;
      from = p;
      to = t + (long)strlen(name);
    } else if (len == 0 || s[0] == '#') {
      from = to = -1;
    }
    if (from >= 0 && (size_t)from < len) {
      size_t end = (size_t)to < len ? (size_t)to : len;
      sb_add(&o, s, (size_t)from);
      sb_add(&o, s + end, len - end);
    } else {
      sb_add(&o, s, len);
    }
    if (nl) sb_puts(&o, "\n");
    s += len + (nl ? 1 : 0);
  }
  return sb_take(&o);
}

/* The machine, the date and the load, for a block of times. */
static void machine_line(sbuf *b) {
  struct utsname u;
  char model[256] = "unknown processor", load[64] = "?";
  if (uname(&u)) strcpy(u.machine, "?");
  char *cpu = read_file("/proc/cpuinfo", NULL);
  char *m = cpu ? strstr(cpu, "model name") : NULL;
  if (m && (m = strchr(m, ':'))) {
    m += 1 + strspn(m + 1, " \t");
    snprintf(model, sizeof model, "%.*s", (int)strcspn(m, "\n"), m);
  }
  free(cpu);
  char *la = read_file("/proc/loadavg", NULL);
  double l1, l5, l15;
  if (la && sscanf(la, "%lf %lf %lf", &l1, &l5, &l15) == 3) snprintf(load, sizeof load, "%.2f %.2f %.2f", l1, l5, l15);
  free(la);
  time_t t = time(NULL);
  struct tm tm;
  char date[64];
  strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime_r(&t, &tm));
  sb_printf(b, "Measured on %s, %s (%ld online cores), %s, load average %s before the run; machine-dependent, "
               "never checked.\n",
            u.machine, model, sysconf(_SC_NPROCESSORS_ONLN), date, load);
}

static int status_accepted(const recipe *r, const run_result *x) {
  if (x->signal || x->timed_out || x->status < 0) return 0;
  for (int i = 0; i < r->nstatus; i++)
    if (x->status == r->status_ok[i]) return 1;
  return 0;
}

/* Reports a command that failed, with the end of its stderr. */
static void report_failure(recipe *r, const cmd *c, const run_result *x, const char *err_path) {
  sbuf m = {0};
  sb_printf(&m, "%s:%d: recipe %s: `%s` ", recipes_path, c->line, r->name, c->text);
  if (x->timed_out) sb_printf(&m, "ran longer than %d s and was stopped", CMD_TIMEOUT_S);
  else if (x->signal) sb_printf(&m, "was killed by signal %d", x->signal);
  else sb_printf(&m, "exited with status %d", x->status);
  char *err = read_file(err_path, NULL);
  if (err && *err) {
    size_t n = strlen(err), start = n > 2000 ? n - 2000 : 0;
    sb_printf(&m, "; its stderr%s:\n%s", start ? " ends" : "", err + start);
    if (err[n - 1] != '\n') sb_puts(&m, "\n");
  } else {
    sb_puts(&m, "\n");
  }
  free(err);
  r->why = m.s;
}

/* One command of r in dir: its transcript line and output appended to b. */
static int run_cmd(recipe *r, const cmd *c, const char *dir, sbuf *b) {
  char out[4300], err[4300];
  snprintf(out, sizeof out, "%s/%s", dir, c->out ? c->out : ".findings-stdout");
  snprintf(err, sizeof err, "%s/.findings-stderr", dir);
  sb_printf(b, "$ %s\n", c->text);
  run_result best = {0}, x = {0};
  for (int k = 0; k < (c->timed ? r->repeat : 1); k++) {
    if (verbose) fprintf(stderr, "findings: %s: %s\n", r->name, c->text);
    x = run_argv(c->argv, dir, out, c->err_to_out ? NULL : err);
    if (!status_accepted(r, &x)) {
      report_failure(r, c, &x, c->err_to_out ? out : err);
      return -1;
    }
    if (k == 0 || x.wall < best.wall) best = x;
  }
  if (c->timed && r->repeat > 1)
    sb_printf(b, "# wall %.3g s (the fastest of %d runs), CPU %.3g s, peak memory %.3g MB\n", best.wall, r->repeat,
              best.cpu, (double)best.maxrss_kb / 1024.0);
  else if (c->timed)
    sb_printf(b, "# wall %.3g s, CPU %.3g s, peak memory %.3g MB\n", best.wall, best.cpu,
              (double)best.maxrss_kb / 1024.0);
  if (c->out || c->timed) return 0;
  char *text = read_file(out, NULL);
  if (!text) text = xstrdup("");
  if (c->columns) {
    char *t = csv_table(text, c->columns, &r->why);
    free(text);
    if (!t) return -1;
    text = t;
  }
  for (char **d = c->drops; d && *d; d++) {
    char *t = drop_column(text, *d);
    free(text);
    text = t;
  }
  sb_puts(b, text);
  if (*text && text[strlen(text) - 1] != '\n') sb_puts(b, "\n");
  free(text);
  return 0;
}

/* Produces r's block text (once): r->state 1 with r->text, 2 unavailable, -1 failed; r->why says why. */
static void produce(recipe *r) {
  if (r->state) return;
  char *why = unavailable(r);
  if (why) {
    r->state = r->kind == K_DETERMINISTIC ? -1 : 2; /* what make test checks must run */
    r->why = why;
    return;
  }
  char dir[4200];
  if (make_scratch(dir, sizeof dir)) {
    r->state = -1;
    r->why = xstrdup("no scratch folder\n");
    return;
  }
  sbuf b = {0};
  if (r->kind == K_MACHINE) machine_line(&b);
  if (r->kind == K_SLOW) sb_puts(&b, "Written by `make findings` only (too slow for `make test`), never checked.\n");
  sb_puts(&b, "```\n");
  r->state = 1;
  for (int i = 0; i < r->ncmds && r->state == 1; i++)
    if (run_cmd(r, &r->cmds[i], dir, &b)) r->state = -1;
  sb_puts(&b, "```\n");
  remove_tree(dir);
  if (r->state == 1) r->text = sb_take(&b);
  else free(b.s);
}

/* ---- the documents ---- */

/* A generated block of a document: its recipe and where its text lies. */
typedef struct block {
  recipe *r;
  size_t from, to; /* the text between the begin line and the end line */
  int line;        /* of the begin marker */
} block;

static const char mark_open[] = "<!-- findings:";

/* A marker line "<!-- findings:NAME begin -->" or "... end -->": 1 begin,
 * 2 end, with the name in *name, *nlen; 0 for any other line; -1 malformed. */
static int marker(const char *s, size_t len, const char **name, size_t *nlen) {
  if (len < sizeof mark_open - 1 || memcmp(s, mark_open, sizeof mark_open - 1)) return 0;
  const char *p = s + sizeof mark_open - 1, *e = s + len;
  const char *sp = memchr(p, ' ', (size_t)(e - p));
  if (!sp) return -1;
  *name = p;
  *nlen = (size_t)(sp - p);
  size_t rest = (size_t)(e - sp);
  if (rest == 10 && !memcmp(sp, " begin -->", 10)) return 1;
  if (rest == 8 && !memcmp(sp, " end -->", 8)) return 2;
  return -1;
}

static int doc_error(const char *file, int line, const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "findings: %s:%d: ", file, line);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  return -1;
}

/* The blocks of a document, in order, into *out (count returned); -1 when a
 * marker is malformed, unmatched or names no recipe. */
static int scan_blocks(const char *file, const char *text, block **out) {
  block *b = NULL, *open_b = NULL;
  int n = 0, line = 0, bad = 0;
  for (const char *s = text; *s;) {
    const char *nl = strchr(s, '\n');
    size_t len = nl ? (size_t)(nl - s) : strlen(s);
    const char *name;
    size_t nlen;
    line++;
    int m = marker(s, len > 0 && s[len - 1] == '\r' ? len - 1 : len, &name, &nlen);
    size_t next = (size_t)(s - text) + len + (nl ? 1 : 0);
    if (m < 0) bad |= doc_error(file, line, "a findings marker is '<!-- findings:NAME begin -->' or '... end -->'");
    if (m == 1 && open_b) bad |= doc_error(file, line, "block %.*s begins inside block %s (line %d)", (int)nlen, name,
                                           open_b->r ? open_b->r->name : "?", open_b->line);
    if (m == 1 && !open_b) {
      recipe *r = find_recipe(name, nlen);
      if (!r) bad |= doc_error(file, line, "block %.*s: no recipe of that name in %s", (int)nlen, name, recipes_path);
      b = xrealloc(b, (size_t)(n + 1) * sizeof *b);
      b[n] = (block){r, next, next, line};
      open_b = &b[n++];
    } else if (m == 2) {
      if (!open_b) bad |= doc_error(file, line, "block %.*s ends but never began", (int)nlen, name);
      else if (!open_b->r || strlen(open_b->r->name) != nlen || memcmp(open_b->r->name, name, nlen))
        bad |= doc_error(file, line, "block %.*s ends block %s (line %d)", (int)nlen, name,
                         open_b->r ? open_b->r->name : "?", open_b->line);
      if (open_b) open_b->to = (size_t)(s - text);
      open_b = NULL;
    }
    s = text + next;
  }
  if (open_b) bad |= doc_error(file, open_b->line, "block %s has no end marker", open_b->r ? open_b->r->name : "?");
  *out = b;
  return bad ? -1 : n;
}

static char **only; /* --only: the blocks to work on; NULL: all */

static int wanted(const recipe *r) {
  if (!only) return 1;
  for (char **o = only; *o; o++)
    if (!strcmp(*o, r->name)) return 1;
  return 0;
}

/* Writes text to path through a temporary file renamed over it. */
static int replace_file(const char *path, const char *text, size_t len) {
  struct stat st;
  char tmp[4300];
  snprintf(tmp, sizeof tmp, "%s.findings.XXXXXX", path);
  int fd = mkstemp(tmp);
  if (fd < 0) return -1;
  if (stat(path, &st) == 0) fchmod(fd, st.st_mode & 07777);
  size_t done = 0;
  while (done < len) {
    ssize_t w = write(fd, text + done, len - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) break;
    done += (size_t)w;
  }
  if (done != len || fsync(fd) || close(fd) || rename(tmp, path)) {
    int e = errno;
    unlink(tmp);
    errno = e;
    return -1;
  }
  return 0;
}

/* Tallies of a run over the files. */
static int n_done, n_skipped, n_never, n_failed, n_differ;

/* The first line where two texts differ, printed as the check's message. */
static void report_difference(const char *file, const block *b, const char *have, size_t hlen, const char *want) {
  size_t i = 0, line = 1, start = 0;
  size_t wlen = strlen(want);
  while (i < hlen && i < wlen && have[i] == want[i]) {
    if (have[i] == '\n') line++, start = i + 1;
    i++;
  }
  size_t he = start, we = start;
  while (he < hlen && have[he] != '\n') he++;
  while (we < wlen && want[we] != '\n') we++;
  fprintf(stderr,
          "findings: %s:%zu: block %s differs from what this build produces, first at line %zu of the block:\n"
          "  in the file: %.*s\n  produced:    %.*s\n"
          "  (run `make findings` to write it again, and read the difference before committing it)\n",
          file, (size_t)b->line + line, b->r->name, line, (int)(he - start), start < hlen ? have + start : "",
          (int)(we - start), start < wlen ? want + start : "");
}

/* --check on one block. */
static void check_block(const char *file, const char *text, const block *b) {
  recipe *r = b->r;
  if (r->kind == K_MACHINE || r->kind == K_SLOW) {
    n_never++;
    return;
  }
  produce(r);
  if (r->state == 2) {
    printf("findings: %s:%d: block %s skipped: %s\n", file, b->line, r->name, r->why);
    n_skipped++;
  } else if (r->state < 0) {
    fprintf(stderr, "findings: %s:%d: block %s: %s", file, b->line, r->name, r->why ? r->why : "failed\n");
    if (r->why && r->why[strlen(r->why) - 1] != '\n') fputc('\n', stderr);
    n_failed++;
  } else if (b->to - b->from != strlen(r->text) || memcmp(text + b->from, r->text, b->to - b->from)) {
    report_difference(file, b, text + b->from, b->to - b->from, r->text);
    n_differ++;
  } else {
    n_done++;
  }
}

/* --write or --check on one document. */
static int do_file(const char *file, int write_mode) {
  size_t len;
  char *text = read_file(file, &len);
  if (!text) {
    fprintf(stderr, "findings: cannot read %s: %s\n", file, strerror(errno));
    return EXIT_DIFFERS;
  }
  block *b;
  int n = scan_blocks(file, text, &b);
  if (n < 0) {
    free(text);
    free(b);
    return EXIT_INPUT;
  }
  sbuf out = {0};
  size_t at = 0;
  int failed = 0, changed = 0;
  for (int i = 0; i < n; i++) {
    recipe *r = b[i].r;
    if (!wanted(r)) continue;
    if (!write_mode) {
      check_block(file, text, &b[i]);
      continue;
    }
    produce(r);
    if (r->state == 2) {
      printf("findings: %s:%d: block %s skipped, left as it was: %s\n", file, b[i].line, r->name, r->why);
      n_skipped++;
      continue;
    }
    if (r->state < 0) {
      fprintf(stderr, "findings: %s:%d: block %s: %s", file, b[i].line, r->name, r->why ? r->why : "failed\n");
      failed = 1;
      n_failed++;
      continue;
    }
    sb_add(&out, text + at, b[i].from - at);
    sb_puts(&out, r->text);
    changed |= b[i].to - b[i].from != strlen(r->text) || memcmp(text + b[i].from, r->text, b[i].to - b[i].from);
    at = b[i].to;
    n_done++;
  }
  int rc = 0;
  if (write_mode && !failed && changed) {
    sb_add(&out, text + at, len - at);
    if (replace_file(file, out.s, out.len)) {
      fprintf(stderr, "findings: cannot write %s: %s\n", file, strerror(errno));
      rc = EXIT_DIFFERS;
    } else {
      printf("findings: %s written\n", file);
    }
  }
  if (failed) {
    fprintf(stderr, "findings: %s left as it was\n", file);
    rc = EXIT_DIFFERS;
  }
  free(out.s);
  free(text);
  free(b);
  return rc;
}

static int usage(FILE *f, int rc) {
  fputs("Usage: findings [--recipes FILE] [--only NAME,...] [-v] --write FILE...\n"
        "       findings [--recipes FILE] [--only NAME,...] [-v] --check FILE...\n"
        "Writes (--write) or checks (--check) the blocks between '<!-- findings:NAME begin -->'\n"
        "and '<!-- findings:NAME end -->' in each FILE from the recipe NAME (default recipes:\n"
        "doc/findings/recipes). Run it at the top of the source tree: the recipes' commands run in\n"
        "a scratch folder with links to its build/, cases/ and examples/.\n"
        "--check re-runs the deterministic recipes and fails when a block differs; engines and mpi\n"
        "blocks are checked when those are built, skipped with the reason otherwise; machine and\n"
        "slow blocks are never checked. Exit status: 0 all good, 1 a block differs or a recipe\n"
        "failed, 2 usage error, 3 a recipe file or marker that cannot be read.\n",
        f);
  return rc;
}

int main(int argc, char **argv) {
  int mode = 0, first = 0;
  for (int i = 1; i < argc && !first; i++) {
    if (!strcmp(argv[i], "--write") || !strcmp(argv[i], "--check")) {
      mode = argv[i][2] == 'w' ? 1 : 2;
      first = i + 1;
    } else if (!strcmp(argv[i], "--recipes") && i + 1 < argc) {
      recipes_path = argv[++i];
    } else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
      char *s = argv[++i];
      for (char *t = strtok(s, ","); t; t = strtok(NULL, ",")) only = list_add(only, t);
    } else if (!strcmp(argv[i], "-v")) {
      verbose = 1;
    } else if (!strcmp(argv[i], "--help")) {
      return usage(stdout, 0);
    } else {
      fprintf(stderr, "findings: unknown option '%s'\n", argv[i]);
      return usage(stderr, EXIT_USAGE);
    }
  }
  if (!mode || first >= argc) return usage(stderr, EXIT_USAGE);
  if (!getcwd(root, sizeof root)) {
    fprintf(stderr, "findings: cannot read the working directory: %s\n", strerror(errno));
    return EXIT_DIFFERS;
  }
  if (load_recipes()) return EXIT_INPUT;
  for (char **o = only; o && *o; o++)
    if (!find_recipe(*o, strlen(*o))) {
      fprintf(stderr, "findings: --only %s: no recipe of that name in %s\n", *o, recipes_path);
      return EXIT_USAGE;
    }
  int rc = 0;
  for (int i = first; i < argc; i++) {
    int x = do_file(argv[i], mode == 1);
    if (x > rc) rc = x;
  }
  if (n_differ || n_failed) rc = rc > EXIT_DIFFERS ? rc : EXIT_DIFFERS;
  printf("findings: %d block%s %s", n_done, n_done == 1 ? "" : "s", mode == 1 ? "written" : "as this build makes them");
  if (n_differ) printf(", %d differ%s", n_differ, n_differ == 1 ? "s" : "");
  if (n_failed) printf(", %d failed", n_failed);
  if (n_skipped) printf(", %d skipped", n_skipped);
  if (n_never) printf(", %d never checked (machine-dependent or slow)", n_never);
  printf("\n");
  return rc;
}
