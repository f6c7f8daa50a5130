/* cmd_compare.c: `toibench compare BEFORE AFTER`, two run or sweep results of the same cases, regressions marked. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"
#include "json_read.h"
#include "sweep.h"

static void help(void) {
  printf(
      "Usage: toibench compare [--tolerance R] [--ulp-slack U] [--count-tolerance N]\n"
      "                        BEFORE AFTER\n"
      "Compares two results of the same cases: two 'toibench run --format json' files,\n"
      "or two sweep results ('# toibench-sweep v1': sweep or merge output; each\n"
      "column's stat records summed over the bins). For each candidate present in\n"
      "both, prints agree, missed and ghost and the median, p99 and max ULP error,\n"
      "before -> after, a '!' after each figure that got worse beyond the\n"
      "tolerance, and 'WORSE' at the end of the candidate's line. Sweep results hold\n"
      "no median or p99 ('-').\n"
      "A figure got worse when:\n"
      "  agree      after < before - N\n"
      "  missed, ghost  after > before + N\n"
      "  ULP figures  after > before x (1 + R) + U (an infinite error after a\n"
      "             finite one always; a figure that is '-' on either side never)\n"
      "  --tolerance R        relative tolerance on the ULP figures (default 0)\n"
      "  --ulp-slack U        absolute tolerance on the ULP figures (default 0)\n"
      "  --count-tolerance N  absolute tolerance on the counts (default 0)\n"
      "Candidates are matched by name; one present in only one file is listed, not\n"
      "compared.\n"
      "Bounds: a run result is read whole and may hold at most 1048576 bytes (1 MiB;\n"
      "read, it takes at most about 50 MiB); a larger file that is not a sweep result\n"
      "is refused unread. A sweep result is read a line at a time, as merge reads it.\n"
      "Exit status: 0 no candidate got worse, 1 some candidate got worse (or a file\n"
      "could not be read), 2 usage error, 3 invalid input: a file that is neither\n"
      "kind (or a NUL byte, or over the bound), files of different kinds, results of\n"
      "different cases (case set, count, --tmax; for sweeps the gen line and range)\n"
      "or a candidate in different precisions.\n");
}

/* ---- one side of the comparison ---- */

typedef struct cmp_cand {
  char name[256], prec[16];
  double agree, missed, ghost, med, p99, max; /* counts are integers; NaN: '-' */
} cmp_cand;

typedef struct cmp_side {
  int sweep;        /* 1: a sweep result, 0: a run JSON */
  char ident[700];  /* what must be equal for the same cases */
  char desc[160];
  size_t n;
  cmp_cand *v;
} cmp_side;

/* A count field, or -1 on error. */
static int jcount(const json_value *o, const char *key, double *out) {
  const json_value *x = json_get(o, key);
  if (!x || x->type != JSON_NUM || x->num < 0 || x->num != floor(x->num)) return -1;
  *out = x->num;
  return 0;
}

/* An exact ULP figure from KEY_hex ("nan", "inf" or a hex float), or -1. */
static int jexact(const json_value *o, const char *key, double *out) {
  char k[64];
  snprintf(k, sizeof k, "%s_hex", key);
  const json_value *x = json_get(o, k);
  char *end;
  if (!x || x->type != JSON_STR || !x->str[0]) return -1;
  *out = strtod(x->str, &end);
  return *end ? -1 : 0;
}

static int json_cand(const json_value *o, cmp_cand *c) {
  const json_value *name = json_get(o, "name"), *prec = json_get(o, "precision");
  if (!name || name->type != JSON_STR || !prec || prec->type != JSON_STR) return -1;
  snprintf(c->name, sizeof c->name, "%s", name->str);
  snprintf(c->prec, sizeof c->prec, "%s", prec->str);
  if (jcount(o, "agree", &c->agree) || jcount(o, "missed", &c->missed) || jcount(o, "ghost", &c->ghost)) return -1;
  return jexact(o, "median_ulp", &c->med) || jexact(o, "p99_ulp", &c->p99) || jexact(o, "max_ulp", &c->max) ? -1 : 0;
}

/* A run --format json document into s; EXIT_OK or EXIT_INPUT (said). */
static int load_json(const char *path, const json_value *doc, cmp_side *s) {
  const json_value *fmt = json_get(doc, "format"), *cands = json_get(doc, "candidates"), *set = json_get(doc, "case_set"),
           *prec = json_get(doc, "precision"), *tmax = json_get(doc, "tmax");
  double ncases;
  if (!fmt || fmt->type != JSON_STR || strcmp(fmt->str, "toibench-run") || !cands || cands->type != JSON_ARR || !set ||
      set->type != JSON_STR || !prec || prec->type != JSON_STR || !tmax || jcount(doc, "cases", &ncases)) {
    cli_error("compare: %s: not a 'toibench run --format json' result", path);
    return EXIT_INPUT;
  }
  snprintf(s->ident, sizeof s->ident, "cases %.0f, case set %s, tmax %.17g", ncases, set->str,
           tmax->type == JSON_NUM ? tmax->num : INFINITY);
  snprintf(s->desc, sizeof s->desc, "run results, %.0f cases, precision %s", ncases, prec->str);
  if (!(s->v = calloc(cands->n + 1, sizeof *s->v))) return EXIT_RUNTIME;
  for (size_t i = 0; i < cands->n; i++, s->n++)
    if (json_cand(&cands->items[i], &s->v[i])) {
      cli_error("compare: %s: candidate %zu: a figure is missing or not a number", path, i + 1);
      return EXIT_INPUT;
    }
  return EXIT_OK;
}

/* A sweep result into s: each column's stat records summed over the bins. */
static int load_sweep(const char *path, cmp_side *s) {
  sweep_meta m;
  sweep_acc a;
  int r = sweep_read(path, &m, &a, &cli_msg_stderr), rc = r == -2 ? EXIT_RUNTIME : r ? EXIT_INPUT : EXIT_OK;
  if (rc == EXIT_OK && !(s->v = calloc(m.nform + 1, sizeof *s->v))) rc = EXIT_RUNTIME;
  if (rc == EXIT_OK) {
    snprintf(s->ident, sizeof s->ident, "%s, count %llu, range %llu %llu", m.gen, (unsigned long long)m.count,
             (unsigned long long)m.start, (unsigned long long)m.end);
    snprintf(s->desc, sizeof s->desc, "sweep results, cases %llu..%llu", (unsigned long long)m.start,
             (unsigned long long)m.end);
    for (size_t j = 0; j < m.nform; j++, s->n++) {
      cmp_cand *c = &s->v[j];
      snprintf(c->name, sizeof c->name, "%s", m.forms[j]);
      snprintf(c->prec, sizeof c->prec, "%s", toi_precision_name(m.prec[j]));
      c->med = c->p99 = c->max = NAN;
      for (size_t b = 0; b < m.nbins; b++) {
        const sweep_cell *x = &a.cells[j * m.nbins + b];
        c->agree += (double)x->kind[TOI_SCORE_AGREE];
        c->missed += (double)x->kind[TOI_SCORE_MISSED];
        c->ghost += (double)x->kind[TOI_SCORE_GHOST];
        if (!isnan(x->max_ulp) && (isnan(c->max) || x->max_ulp > c->max)) c->max = x->max_ulp;
      }
    }
  }
  sweep_meta_free(&m);
  sweep_acc_free(&a);
  return rc;
}

/* The largest run result read (bytes): it is read whole, and its tree takes
   at most about 50 times as much (json_read.h). */
#define CMP_JSON_MAX ((size_t)1 << 20)

/* The first bytes of path into *text (malloc'ed, *n of them): all of a file of
   at most CMP_JSON_MAX bytes, else CMP_JSON_MAX + 1 bytes; only the first
   line's length when fstat says the file is larger than that, enough to see
   whether it is a sweep result. *size: the file's size, or -1 when fstat does
   not know it (a pipe, a device). EXIT_OK or EXIT_RUNTIME (said). */
static int read_head(const char *path, char **text, size_t *n, long long *size) {
  *text = NULL;
  *n = 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    cli_error("compare: %s: %s", path, strerror(errno));
    return EXIT_RUNTIME;
  }
  struct stat sb;
  int isdir = fstat(fd, &sb) == 0 && S_ISDIR(sb.st_mode);
  *size = !isdir && S_ISREG(sb.st_mode) ? (long long)sb.st_size : -1;
  size_t want = *size > (long long)CMP_JSON_MAX ? strlen(SWEEP_VERSION_LINE) + 1 : CMP_JSON_MAX + 1;
  size_t cap = want < ((size_t)1 << 16) ? want : (size_t)1 << 16;
  char *buf = isdir ? NULL : malloc(cap);
  int err = 0;
  while (buf && *n < want) {
    if (*n == cap) {
      cap = 2 * cap < want ? 2 * cap : want;
      char *t = realloc(buf, cap);
      if (!t) free(buf);
      buf = t;
      if (!t) break;
    }
    ssize_t got = read(fd, buf + *n, cap - *n);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      err = got < 0 ? errno : 0;
      break;
    }
    *n += (size_t)got;
  }
  close(fd);
  if (isdir || !buf || err) {
    free(buf);
    cli_error("compare: %s: %s", path, isdir ? "is a directory, not a result" : err ? strerror(err) : "out of memory");
    return EXIT_RUNTIME;
  }
  *text = buf;
  return EXIT_OK;
}

/* Reads one result, of either kind: a sweep result by sweep_read (a line at a
   time), a run result whole, at most CMP_JSON_MAX bytes. EXIT_OK, EXIT_INPUT
   or EXIT_RUNTIME (said). */
static int load(const char *path, cmp_side *s) {
  char *text;
  size_t n;
  long long size;
  int rc = read_head(path, &text, &n, &size);
  if (rc != EXIT_OK) return rc;
  size_t vlen = strlen(SWEEP_VERSION_LINE) + 1;
  if (n >= vlen && !memcmp(text, SWEEP_VERSION_LINE "\n", vlen)) {
    free(text);
    s->sweep = 1;
    return load_sweep(path, s);
  }
  if (size > (long long)CMP_JSON_MAX || n > CMP_JSON_MAX) {
    free(text);
    cli_error("compare: %s: not a sweep result, and larger than %zu bytes, the most a 'toibench run --format json' "
              "result may hold",
              path, CMP_JSON_MAX);
    return EXIT_INPUT;
  }
  json_value doc;
  json_error err;
  int r = json_parse(&doc, text, n, &err);
  free(text);
  if (r == -2) {
    cli_error("compare: %s: out of memory", path);
    return EXIT_RUNTIME;
  }
  if (r || doc.type != JSON_OBJ) {
    if (r)
      cli_error("compare: %s: neither a 'toibench run --format json' result nor a sweep result (line %ld, column %ld: "
                "%s)",
                path, err.line, err.column, err.what);
    else
      cli_error("compare: %s: neither a 'toibench run --format json' result nor a sweep result", path);
    rc = EXIT_INPUT;
  } else {
    rc = load_json(path, &doc, s);
  }
  json_free(&doc);
  return rc;
}

/* ---- the comparison ---- */

typedef struct cmp_opts {
  double rel, slack, count;
} cmp_opts;

/* A count cell "B->A" (worse: a '!'; f NULL: not printed); higher_better for agree. */
static int count_cell(FILE *f, double b, double a, int higher_better, const cmp_opts *o) {
  int worse = higher_better ? a < b - o->count : a > b + o->count;
  char cell[64];
  snprintf(cell, sizeof cell, "%.0f -> %.0f%s", b, a, worse ? "!" : "");
  if (f) fprintf(f, " %17s", cell);
  return worse;
}

static void num(char *buf, size_t n, double x) {
  if (isnan(x)) snprintf(buf, n, "-");
  else snprintf(buf, n, "%.4g", x);
}

static int ulp_cell(FILE *f, double b, double a, const cmp_opts *o) {
  int worse = !isnan(b) && !isnan(a) && ((isinf(a) && !isinf(b)) || a > b * (1 + o->rel) + o->slack);
  char x[32], y[32], cell[80];
  num(x, sizeof x, b);
  num(y, sizeof y, a);
  snprintf(cell, sizeof cell, "%s -> %s%s", x, y, worse ? "!" : "");
  if (f) fprintf(f, " %23s", cell);
  return worse;
}

/* One candidate's cells (f NULL: none printed); 1 when it got worse. */
static int cand_row(FILE *f, const cmp_cand *x, const cmp_cand *y, const cmp_opts *o) {
  if (f) fprintf(f, "%-18s", x->name);
  int w = count_cell(f, x->agree, y->agree, 1, o);
  w |= count_cell(f, x->missed, y->missed, 0, o);
  w |= count_cell(f, x->ghost, y->ghost, 0, o);
  w |= ulp_cell(f, x->med, y->med, o);
  w |= ulp_cell(f, x->p99, y->p99, o);
  w |= ulp_cell(f, x->max, y->max, o);
  if (f) fputs(w ? "  WORSE\n" : "\n", f);
  return w;
}

static const cmp_cand *find(const cmp_side *s, const char *name) {
  for (size_t i = 0; i < s->n; i++)
    if (!strcmp(s->v[i].name, name)) return &s->v[i];
  return NULL;
}

/* The table; returns the number of candidates that got worse. */
static size_t compare_print(FILE *f, const cmp_side *b, const cmp_side *a, const char *pb, const char *pa,
                            const cmp_opts *o) {
  fprintf(f, "# toibench compare: %s -> %s (%s)\n", pb, pa, a->desc);
  fprintf(f, "# worse ('!'): agree down or missed, ghost up by more than %g; a ULP figure above before x %g + %g\n",
          o->count, 1 + o->rel, o->slack);
  fprintf(f, "%-18s %17s %17s %17s %23s %23s %23s\n", "candidate", "agree", "missed", "ghost", "median_ulp",
          "p99_ulp", "max_ulp");
  size_t nworse = 0;
  for (size_t i = 0; i < b->n; i++) {
    const cmp_cand *y = find(a, b->v[i].name);
    if (y) nworse += (size_t)cand_row(f, &b->v[i], y, o);
  }
  for (size_t i = 0; i < b->n; i++)
    if (!find(a, b->v[i].name)) fprintf(f, "# only in %s: %s\n", pb, b->v[i].name);
  for (size_t i = 0; i < a->n; i++)
    if (!find(b, a->v[i].name)) fprintf(f, "# only in %s: %s\n", pa, a->v[i].name);
  if (!nworse) {
    fprintf(f, "# no candidate got worse\n");
    return 0;
  }
  fprintf(f, "# worse:");
  for (size_t i = 0; i < b->n; i++) {
    const cmp_cand *y = find(a, b->v[i].name);
    if (y && cand_row(NULL, &b->v[i], y, o)) fprintf(f, " %s", b->v[i].name);
  }
  fputc('\n', f);
  return nworse;
}

/* Same kind, same cases, same precision per candidate: EXIT_OK or EXIT_INPUT (said). */
static int comparable(const cmp_side *b, const cmp_side *a, const char *pb, const char *pa) {
  if (b->sweep != a->sweep) {
    cli_error("compare: %s is a %s result, %s a %s result: compare two of the same kind", pb,
              b->sweep ? "sweep" : "run", pa, a->sweep ? "sweep" : "run");
    return EXIT_INPUT;
  }
  if (strcmp(b->ident, a->ident)) {
    cli_error("compare: %s and %s are results of different cases (%s; %s)", pb, pa, b->ident, a->ident);
    return EXIT_INPUT;
  }
  for (size_t i = 0; i < b->n; i++) {
    const cmp_cand *y = find(a, b->v[i].name);
    if (y && strcmp(y->prec, b->v[i].prec)) {
      cli_error("compare: %s is in %s in %s, in %s in %s", y->name, b->v[i].prec, pb, y->prec, pa);
      return EXIT_INPUT;
    }
  }
  return EXIT_OK;
}

/* A tolerance option's value (>= 0). EXIT_OK or EXIT_USAGE. */
static int tol_value(const char *opt, const char *v, double *out) {
  if (cli_parse_double(v, out) || !(*out >= 0) || isinf(*out))
    return cli_usage_error("compare", "%s needs a finite number >= 0, not '%s'", opt, v);
  return EXIT_OK;
}

/* The command line: options and the two paths. EXIT_OK, -1 for --help, or EXIT_USAGE. */
static int parse_compare(int argc, char **argv, cmp_opts *o, const char **paths) {
  int np = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) return -1;
    double *slot = !strcmp(a, "--tolerance") ? &o->rel : !strcmp(a, "--ulp-slack") ? &o->slack
                   : !strcmp(a, "--count-tolerance") ? &o->count : NULL;
    if (slot) {
      if (i + 1 >= argc) return cli_usage_error("compare", "%s needs a value", a);
      if (tol_value(a, argv[++i], slot)) return EXIT_USAGE;
    } else if (a[0] == '-' && a[1]) {
      return cli_usage_error("compare", "unknown option '%s'", a);
    } else if (np == 2) {
      return cli_usage_error("compare", "two files, BEFORE and AFTER, not more");
    } else {
      paths[np++] = a;
    }
  }
  if (np < 2) return cli_usage_error("compare", "two files needed: BEFORE AFTER");
  if (o->count != floor(o->count)) return cli_usage_error("compare", "--count-tolerance needs an integer");
  return EXIT_OK;
}

int cmd_compare(int argc, char **argv) {
  cmp_opts o = {0, 0, 0};
  const char *paths[2];
  int rc = parse_compare(argc, argv, &o, paths);
  if (rc < 0) {
    help();
    return EXIT_OK;
  }
  if (rc) return rc;
  cmp_side s[2];
  memset(s, 0, sizeof s);
  rc = load(paths[0], &s[0]);
  if (rc == EXIT_OK) rc = load(paths[1], &s[1]);
  if (rc == EXIT_OK) rc = comparable(&s[0], &s[1], paths[0], paths[1]);
  if (rc == EXIT_OK) rc = compare_print(stdout, &s[0], &s[1], paths[0], paths[1], &o) ? EXIT_RUNTIME : EXIT_OK;
  free(s[0].v);
  free(s[1].v);
  return rc;
}
