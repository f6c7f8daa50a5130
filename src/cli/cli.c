/* cli.c: shared helpers of the command-line tool: errors, inputs, options, candidates. */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"
#include "numfmt.h"
#include "toiref.h"

int cli_usage_error(const char *cmd, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "toibench %s: ", cmd);
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\nTry 'toibench %s --help'\n", cmd);
  va_end(ap);
  return EXIT_USAGE;
}

static void progress_show(void *ud, const char *what, uint64_t done, uint64_t total, double dt, int final) {
  (void)ud;
  double rate = dt > 0 ? (double)done / dt : 0;
  double eta = rate > 0 ? (double)(total - done) / rate : 0;
  fprintf(stderr, "\r%s: %llu/%llu cases (%.1f%%), %.0f cases/s, ETA %.0fs   %s", what, (unsigned long long)done,
          (unsigned long long)total, total ? 100.0 * (double)done / (double)total : 100.0, rate, final ? 0.0 : eta,
          final ? "\n" : "");
  fflush(stderr);
}

static void progress_note(void *ud, const char *text) {
  (void)ud;
  fprintf(stderr, "%s\n", text);
}

static void progress_status(void *ud, const char *text) {
  (void)ud;
  fprintf(stderr, "\r%s", text);
}

const toi_progress cli_progress_stderr = {progress_show, progress_note, progress_status, NULL};

static void msg_to_stderr(void *ud, const char *text) {
  (void)ud;
  fprintf(stderr, "toibench: %s\n", text);
}

const toi_msg cli_msg_stderr = {msg_to_stderr, NULL};

static void msg_keep_first(void *ud, const char *text) {
  cli_msg_text *t = ud;
  if (t->n && !t->buf[0]) snprintf(t->buf, t->n, "%s", text);
}

toi_msg cli_msg_into(cli_msg_text *t, char *buf, size_t n) {
  t->buf = buf;
  t->n = n;
  if (n) buf[0] = 0;
  return (toi_msg){msg_keep_first, t};
}

void cli_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "toibench: ");
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

int cli_args_init(cli_args *a, int argc) {
  memset(a, 0, sizeof *a);
  a->tmax = INFINITY;
  a->timeout = CLI_TIMEOUT_DEFAULT;
  a->engine = TOI_REF_FAST;
  a->files = calloc((size_t)(argc > 0 ? argc : 1), sizeof *a->files);
  return a->files ? 0 : -1;
}

void cli_args_free(cli_args *a) {
  free(a->files);
  a->files = NULL;
}

int cli_args_stop(cli_args *a, int r, void (*help)(void)) {
  cli_args_free(a);
  if (r != CLI_HELP) return EXIT_USAGE;
  help();
  return EXIT_OK;
}

/* The same file by name, or by device and inode when both exist ("-" is
 * stdout, which -o and --rows may not share either). */
static int same_path(const char *x, const char *y) {
  if (!strcmp(x, y)) return 1;
  struct stat sx, sy;
  return stat(x, &sx) == 0 && stat(y, &sy) == 0 && sx.st_dev == sy.st_dev && sx.st_ino == sy.st_ino;
}

int cli_args_take(cli_args *a, const char *cmd, unsigned accept, int argc, char **argv, int *i) {
  const char *arg = argv[*i];
  int has_value = *i + 1 < argc;
  if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) return CLI_HELP;
  if (arg[0] != '-' || !arg[1]) {
    a->files[a->nfiles++] = argv[*i];
    return CLI_TAKEN;
  }
  if (!has_value)
    return cli_usage_error_near(cmd, CLI_NAMES_OPTIONS, arg, "unknown option or missing value '%s'", arg), -1;
  const char *v = argv[*i + 1];
  const char **str = (accept & CLI_OPT_OUT) && !strcmp(arg, "-o")          ? &a->out
                     : (accept & CLI_OPT_ROWS) && !strcmp(arg, "--rows")  ? &a->rows
                     : (accept & CLI_OPT_NAMES) && !strcmp(arg, "-f")     ? &a->names
                                                                          : NULL;
  if (str) {
    if (*str) return cli_usage_error(cmd, "%s given twice ('%s' and '%s')", arg, *str, v), -1;
    const char *other = str == &a->out ? a->rows : str == &a->rows ? a->out : NULL;
    if (other && same_path(other, v))
      return cli_usage_error(cmd, "-o and --rows name the same file '%s': one would overwrite the other", v), -1;
    *str = v;
  } else if ((accept & CLI_OPT_REFERENCE) && !strcmp(arg, "--reference")) {
    if (toi_ref_engine_parse(&a->engine, v) != TOI_OK)
      return cli_usage_error_near(cmd, CLI_NAMES_REFERENCE, v, "--reference must be fast or mpfr, got '%s'", v), -1;
  } else if ((accept & CLI_OPT_TMAX) && !strcmp(arg, "--tmax")) {
    if (cli_parse_double(v, &a->tmax) || !(a->tmax > 0))
      return cli_usage_error(cmd, "--tmax needs a finite number > 0, got '%s'", v), -1;
  } else if ((accept & CLI_OPT_TIMEOUT) && !strcmp(arg, "--timeout")) {
    if (cli_parse_timeout(cmd, v, &a->timeout) != EXIT_OK) return -1;
  } else if ((accept & CLI_OPT_PRECISION) && !strcmp(arg, "--precision")) {
    if (cli_parse_precision(cmd, arg, v, &a->precision) != EXIT_OK) return -1;
  } else if ((accept & CLI_OPT_TARGET) && !strcmp(arg, "--target-distance")) {
    if (cli_parse_double(v, &a->delta))
      return cli_usage_error(cmd, "--target-distance needs a finite number, got '%s'", v), -1;
    a->have_delta = 1;
  } else {
    return cli_unknown_option(cmd, arg), -1;
  }
  (*i)++;
  return CLI_TAKEN;
}

void cli_report_diags(const char *path, const toi_diags *dg) {
  for (size_t k = 0; k < dg->count; k++) {
    char buf[700];
    toi_diag_format(&dg->items[k], buf, sizeof buf);
    fprintf(stderr, "%s\n", buf);
  }
  if (dg->total > dg->count) fprintf(stderr, "%s: %zu more problems not shown\n", path, dg->total - dg->count);
}

int cli_read_case_files(toi_caselist *list, int npaths, char **paths) {
  int rc = EXIT_OK;
  for (int i = 0; i < npaths; i++) {
    toi_diags dg;
    memset(&dg, 0, sizeof dg);
    toi_status st = toi_read_cases(list, paths[i], &dg);
    cli_report_diags(paths[i], &dg);
    if (st == TOI_ERR_NOMEM) {
      cli_error("out of memory reading %s", paths[i]);
      return EXIT_RUNTIME;
    }
    if (st == TOI_ERR_IO) rc = EXIT_RUNTIME;
    if (st == TOI_ERR_INPUT && rc == EXIT_OK) rc = EXIT_INPUT;
  }
  if (rc == EXIT_INPUT) fprintf(stderr, "toibench: invalid input: nothing was written\n");
  return rc;
}

int cli_check_names(const char *cmd, const char *names) {
  if (candlist_names_ok(names)) return EXIT_OK;
  return cli_usage_error(cmd, "-f '%s': an empty name (names are separated by single commas)", names);
}

int cli_parse_formulations(const char *cmd, const char *names, const toi_formulation ***out) {
  size_t n;
  const toi_formulation *all = toi_formulations(&n);
  *out = NULL;
  if (names && cli_check_names(cmd, names) != EXIT_OK) return -1;
  if (!names || !strcmp(names, "all")) {
    const toi_formulation **v = malloc((n ? n : 1) * sizeof *v);
    if (!v) return -1;
    for (size_t i = 0; i < n; i++) v[i] = &all[i];
    *out = v;
    return (int)n;
  }
  size_t len = strlen(names);
  const toi_formulation **v = malloc((len + 1) * sizeof *v);
  char *copy = strdup(names);
  if (!v || !copy) {
    free(v);
    free(copy);
    return -1;
  }
  int count = 0;
  for (char *save = NULL, *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    const toi_formulation *f = toi_formulation_find(tok);
    if (!f) {
      cli_usage_error_near(cmd, CLI_NAMES_FORMULATIONS, tok, "unknown formulation '%s' (see 'toibench list')", tok);
      free(v);
      free(copy);
      return -1;
    }
    int dup = 0;
    for (int i = 0; i < count; i++) dup |= v[i] == f;
    if (!dup) v[count++] = f;
  }
  free(copy);
  if (count == 0) {
    cli_usage_error(cmd, "empty formulation list");
    free(v);
    return -1;
  }
  *out = v;
  return count;
}

int cli_parse_timeout(const char *cmd, const char *v, double *out) {
  double x;
  if (!v || cli_parse_double(v, &x) || !(x > 0) || x > CLI_TIMEOUT_MAX)
    return cli_usage_error(cmd, "--timeout needs a number of seconds > 0 and at most %g, got '%s'", CLI_TIMEOUT_MAX,
                           v ? v : "");
  *out = x;
  return EXIT_OK;
}

double cli_timeout_scan(int argc, char **argv) {
  double t = CLI_TIMEOUT_DEFAULT, x;
  for (int i = 1; i + 1 < argc; i++)
    if (!strcmp(argv[i], "--timeout") && !cli_parse_double(argv[i + 1], &x) && x > 0 && x <= CLI_TIMEOUT_MAX) t = x;
  return t;
}

int cli_parse_double(const char *s, double *out) {
  char *end;
  errno = 0;
  double x = strtod(s, &end);
  if (end == s || *end || !isfinite(x)) return -1;
  *out = x;
  return 0;
}

int cli_parse_long(const char *s, long *out) {
  char *end;
  errno = 0;
  long x = strtol(s, &end, 10);
  if (end == s || *end || errno) return -1;
  *out = x;
  return 0;
}

int cli_parse_u64(const char *s, unsigned long long *out) {
  /* Decimal (leading zeros stay decimal: "010" is ten), 0x hexadecimal, or an
   * exact integer written 1e6 or 1.5e1; no sign, no spaces (strtoull would
   * skip a space and wrap " -5" to 2^64 - 5). */
  if (!isdigit((unsigned char)s[0])) return -1;
  const int hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
  if (hex && !isxdigit((unsigned char)s[2])) return -1;
  char *end;
  errno = 0;
  unsigned long long x = strtoull(s, &end, hex ? 16 : 10);
  if (!hex && (*end == 'e' || *end == 'E' || *end == '.')) {
    errno = 0;
    double d = strtod(s, &end);
    if (*end || errno || !(d < 0x1p64) || d != floor(d)) return -1;
    x = (unsigned long long)d;
  }
  if (*end || errno) return -1;
  *out = x;
  return 0;
}

size_t cli_fmt_hex(char *buf, double x) {
  if (isnan(x)) {
    memcpy(buf, "nan", 4);
    return 3;
  }
  return toi_fmt_hex(buf, x);
}

void cli_print_hex(FILE *f, double x) {
  char b[TOI_FMT_MAX]; /* the bytes of "%a", "inf", "-inf" or "nan", without printf's cost */
  fwrite(b, 1, cli_fmt_hex(b, x), f);
}

void cli_print_g6(FILE *f, double x) {
  char b[TOI_FMT_MAX];
  fwrite(b, 1, toi_fmt_g6(b, x), f);
}

int cli_parse_precision(const char *cmd, const char *opt, const char *v, toi_precision *q) {
  toi_precision p;
  if (toi_precision_parse(&p, v) != TOI_OK) {
    char names[128] = "";
    for (int k = 0; k < TOI_PRECISION_COUNT; k++)
      snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", k ? ", " : "",
               toi_precision_name((toi_precision)k));
    return cli_usage_error_near(cmd, CLI_NAMES_PRECISIONS, v, "%s must be one of %s, got '%s'", opt, names, v);
  }
  *q = p;
  return EXIT_OK;
}

void cli_variants_note(char *buf, size_t n, toi_precision q) {
  size_t nf, used = 0;
  const toi_formulation *all = toi_formulations(&nf);
  buf[0] = 0;
  for (size_t i = 0; i < nf && used < n; i++)
    if (toi_formulation_solver(&all[i], q))
      used += (size_t)snprintf(buf + used, n - used, "%s%s", used ? ", " : "", all[i].name);
  if (!buf[0]) snprintf(buf, n, "no formulation has a %s variant yet", toi_precision_name(q));
}

/* Adds the candidate called name unless one of that name is there: a
   formulation in precision q, or an engine in its own. */
static int add_named(const char *cmd, candlist *l, const char *name, toi_precision q) {
  if (candlist_has(l, l->n, name)) return EXIT_OK;
  toi_candidate c;
  const toi_formulation *f = toi_formulation_find(name);
  if (f && q != TOI_BINARY64) {
    if (toi_candidate_formulation_prec(&c, f, q) == 0) return candlist_take(l, &c) ? EXIT_RUNTIME : EXIT_OK;
    char have[1024];
    cli_variants_note(have, sizeof have, q);
    return cli_usage_error(cmd, "formulation '%s' has no %s variant (%s%s)", name, toi_precision_name(q),
                           strstr(have, "no formulation") == have ? "" : "those with one: ", have);
  }
  if (toi_candidate_find(&c, name, &cli_msg_stderr))
    return cli_usage_error_near(cmd, CLI_NAMES_CANDIDATES, name,
                                "unknown formulation or solver '%s' (see 'toibench list')", name);
  return candlist_take(l, &c) ? EXIT_RUNTIME : EXIT_OK;
}

/* Every built engine not named yet. */
static int add_engines(const char *cmd, candlist *l) {
  toi_candidate *v;
  size_t n;
  if (toi_candidates_engines(&v, &n, &cli_msg_stderr) != TOI_OK) return cli_error("out of memory"), EXIT_RUNTIME;
  int rc = n == 0 ? cli_usage_error(cmd, "no engine is built (run 'make engines')") : EXIT_OK;
  for (size_t i = 0; i < n; i++) {
    if (rc == EXIT_OK && !candlist_has(l, l->n, v[i].name))
      rc = candlist_take(l, &v[i]) ? EXIT_RUNTIME : EXIT_OK;
    else
      toi_candidate_free(&v[i]);
  }
  free(v);
  return rc;
}

int cli_add_named(const char *cmd, candlist *l, const char *names) {
  return cli_add_named_prec(cmd, l, names, TOI_BINARY64);
}

int cli_add_named_prec(const char *cmd, candlist *l, const char *names, toi_precision q) {
  if (cli_check_names(cmd, names) != EXIT_OK) return EXIT_USAGE;
  char *copy = strdup(names);
  if (!copy) return EXIT_RUNTIME;
  int rc = EXIT_OK;
  for (char *save = NULL, *tok = strtok_r(copy, ",", &save); tok && rc == EXIT_OK; tok = strtok_r(NULL, ",", &save)) {
    if (!strcmp(tok, "all")) {
      size_t n;
      const toi_formulation *all = toi_formulations(&n);
      /* In another precision, 'all' is every formulation that has a variant there. */
      size_t before = l->n;
      for (size_t i = 0; i < n && rc == EXIT_OK; i++)
        if (q == TOI_BINARY64 || toi_formulation_solver(&all[i], q)) rc = add_named(cmd, l, all[i].name, q);
      if (rc == EXIT_OK && q != TOI_BINARY64 && l->n == before)
        rc = cli_usage_error(cmd, "'all' in %s: no formulation has a %s variant yet", toi_precision_name(q),
                             toi_precision_name(q));
    } else if (!strcmp(tok, "engines")) {
      rc = add_engines(cmd, l);
    } else {
      rc = add_named(cmd, l, tok, q);
    }
  }
  free(copy);
  return rc;
}

/* Words /bin/sh runs without looking in PATH: a command starting with one is not judged. */
static int shell_word(const char *w, size_t n) {
  static const char *const words[] = {"exec",  "eval", "cd",   ".",      "source", "export", "set",   "unset",
                                      "command", "builtin", "if", "while", "until", "for",  "case", "time",
                                      "trap",  "ulimit", "umask", "readonly", "shift", "wait", "!",   "{"};
  for (size_t i = 0; i < sizeof words / sizeof *words; i++)
    if (strlen(words[i]) == n && !strncmp(words[i], w, n)) return 1;
  return 0;
}

/* Whether the program path names can be run, its #! interpreter included;
   0, or -1 with the reason in why. */
static int can_exec(const char *path, char *why, size_t n) {
  struct stat sb;
  if (stat(path, &sb) != 0) return snprintf(why, n, "%s: %s", path, strerror(errno)), -1;
  if (S_ISDIR(sb.st_mode)) return snprintf(why, n, "%s: is a directory", path), -1;
  if (access(path, X_OK) != 0) return snprintf(why, n, "%s: %s", path, strerror(errno)), -1;
  char head[256] = "";
  FILE *f = fopen(path, "rbe");
  size_t got = f ? fread(head, 1, sizeof head - 1, f) : 0;
  if (f) fclose(f);
  head[got] = 0;
  if (strncmp(head, "#!", 2)) return 0;
  char *ip = head + 2 + strspn(head + 2, " \t");
  ip[strcspn(ip, " \t\r\n")] = 0;
  if (ip[0] != '/' || (access(ip, X_OK) == 0 && stat(ip, &sb) == 0 && !S_ISDIR(sb.st_mode))) return 0;
  const char *what = access(ip, F_OK) ? strerror(errno) : "not executable";
  return snprintf(why, n, "%s: bad interpreter %s: %s", path, ip, what), -1;
}

/* The program a shell command line starts, into word: 1 when it can be told
   (a plain word, or one quoted without expansion), 0 when the shell decides. */
static int first_word(const char *command, char *word, size_t n) {
  const char *w = command + strspn(command, " \t");
  size_t len;
  if (*w == '\'' || *w == '"') {
    const char *close = strchr(w + 1, *w);
    if (!close || !strchr(" \t", close[1]) || (*w == '"' && strcspn(w + 1, "$`\\") < (size_t)(close - w - 1)))
      return 0;
    len = (size_t)(close - w - 1);
    w++;
  } else {
    len = strcspn(w, " \t\n");
    if (shell_word(w, len) || strcspn(w, "'\"\\$`*?[~=(){}<>|;&#") < len) return 0;
  }
  if (!len || len >= n) return 0;
  snprintf(word, n, "%.*s", (int)len, w);
  return 1;
}

int cli_check_command(const char *cmd, const char *command) {
  char word[4096], why[8400];
  if (candlist_blank(command)) return cli_usage_error(cmd, "--solver-cmd needs a command, not a blank one");
  if (!first_word(command, word, sizeof word)) return EXIT_OK;
  if (strchr(word, '/')) {
    if (can_exec(word, why, sizeof why) == 0) return EXIT_OK;
  } else {
    const char *path = getenv("PATH");
    if (!path) path = "/usr/local/bin:/usr/bin:/bin";
    int found = 0;
    for (const char *p = path;; p += strcspn(p, ":") + 1) {
      char full[8200];
      size_t dl = strcspn(p, ":");
      snprintf(full, sizeof full, "%.*s%s%s", (int)dl, p, dl ? "/" : "", word);
      struct stat sb;
      /* The first one the shell finds is the one it runs. */
      if (stat(full, &sb) == 0 && !S_ISDIR(sb.st_mode) && access(full, X_OK) == 0) {
        found = 1;
        if (can_exec(full, why, sizeof why) == 0) return EXIT_OK;
        break;
      }
      if (!p[dl]) break;
    }
    if (!found) snprintf(why, sizeof why, "'%s' is not found in PATH", word);
  }
  return cli_usage_error(cmd, "solver %s: cannot run: %s", command, why);
}

int cli_add_given(const char *cmd, candlist *l, const char *opt, const char *arg) {
  return cli_add_given_prec(cmd, l, opt, arg, TOI_BINARY64, CLI_TIMEOUT_DEFAULT);
}

int cli_add_given_prec(const char *cmd, candlist *l, const char *opt, const char *arg, toi_precision q,
                       double timeout) {
  toi_candidate *v = NULL;
  size_t k = 0;
  int rc = EXIT_OK;
  if (!strcmp(opt, "--solver-cmd")) {
    if (cli_check_command(cmd, arg) != EXIT_OK) return EXIT_USAGE;
    v = malloc(sizeof *v);
    if (v && toi_candidate_command_prec(v, arg, q) == TOI_OK) k = 1;
    else rc = EXIT_RUNTIME;
  } else {
    char err[600];
    cli_msg_text t;
    toi_msg m = cli_msg_into(&t, err, sizeof err);
    toi_status st = toi_candidates_plugin_timeout(&v, &k, arg, timeout, &m, NULL, 0);
    if (st == TOI_ERR_INPUT) return cli_usage_error(cmd, "--solver %s", err);
    if (st != TOI_OK) return cli_error("%s", err), EXIT_RUNTIME;
  }
  for (size_t j = 0; j < k; j++)
    if (rc != EXIT_OK || candlist_take(l, &v[j])) rc = EXIT_RUNTIME;
  free(v);
  return rc;
}
