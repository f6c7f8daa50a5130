/* sweep_io.c: writing and reading the versioned text result file of a sweep (format in sweep.h). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "sweep.h"

static const char *const kind_names[SCORE_KIND_COUNT] = {"agree", "missed", "ghost", "other",
                                                         "out-of-domain"};
static const char *const what_names[SW_WHAT_COUNT] = {"max_ulp", "max_ratio", "misclass"};

int sweep_meta_init(sweep_meta *m, const gen_opts *g, uint64_t count, const toi_formulation *const *fs,
                    size_t nf) {
  memset(m, 0, sizeof *m);
  if (nf > SWEEP_MAXFORMS) return -1;
  gen_opts_format(m->gen, sizeof m->gen, g);
  m->count = count;
  m->start = 0;
  m->end = count;
  m->nform = nf;
  for (size_t i = 0; i < nf; i++) snprintf(m->forms[i], sizeof m->forms[i], "%s", fs[i]->name);
  m->nbins = gen_bin_count(g);
  m->bins = calloc(m->nbins, sizeof *m->bins);
  if (!m->bins) return -1;
  for (size_t b = 0; b < m->nbins; b++) {
    const char *param;
    gen_bin_describe(g, b, &param, &m->bins[b].value, m->bins[b].label, sizeof m->bins[b].label);
    snprintf(m->bins[b].param, sizeof m->bins[b].param, "%s", param);
  }
  return 0;
}

void sweep_meta_free(sweep_meta *m) {
  free(m->bins);
  m->bins = NULL;
}

static void hist_edges(int h, double *lo, double *hi) {
  if (h == 0) *lo = *hi = 0;
  else if (h == 1) *lo = 0, *hi = 0.5;
  else if (h < SWEEP_HBINS - 2) *lo = ldexp(1, h - 3), *hi = ldexp(1, h - 2);
  else if (h == SWEEP_HBINS - 2) *lo = ldexp(1, h - 3), *hi = INFINITY;
  else *lo = *hi = INFINITY;
}

static void khist_edges(int j, double *lo, double *hi) {
  if (j == 0) *lo = 0, *hi = 2;
  else if (j < SWEEP_KBINS - 2) *lo = ldexp(1, j), *hi = ldexp(1, j + 1);
  else if (j == SWEEP_KBINS - 2) *lo = ldexp(1, j), *hi = INFINITY;
  else *lo = *hi = INFINITY;
}

int sweep_write(FILE *f, const sweep_meta *m, const sweep_acc *a) {
  fprintf(f, SWEEP_VERSION_LINE "\n");
  fprintf(f, "# Summary of a toibench sweep; the format is described by 'toibench sweep --help'.\n");
  fprintf(f, "# Sampled maxima are lower bounds of the true maxima over the family.\n");
  fprintf(f, "gen %s\ncount %" PRIu64 "\nrange %" PRIu64 " %" PRIu64 "\nformulations", m->gen, m->count,
          m->start, m->end);
  for (size_t j = 0; j < m->nform; j++) fprintf(f, " %s", m->forms[j]);
  fprintf(f, "\nbins %zu\n", m->nbins);

  fprintf(f, "\n\n# bin B PARAM VALUE LABEL CASES");
  for (int k = 0; k < TOI_CLASS_COUNT; k++) fprintf(f, " %s", toi_class_name((toi_class)k));
  fprintf(f, "\n");
  for (size_t b = 0; b < m->nbins; b++) {
    fprintf(f, "bin %zu %s %d %s %" PRIu64, b, m->bins[b].param, m->bins[b].value, m->bins[b].label,
            a->bincount[b]);
    for (int k = 0; k < TOI_CLASS_COUNT; k++) fprintf(f, " %" PRIu64, a->bincls[b * TOI_CLASS_COUNT + k]);
    fprintf(f, "\n");
  }

  fprintf(f,
          "\n\n# stat FORM B CASES IN_DOMAIN OUT_OF_DOMAIN AGREE MISSED GHOST OTHER TIMED MAX_ULP "
          "MAX_BITS KAPPA_MIN KAPPA_MAX KAPPA_INF MAX_RATIO MAX_ULP_HEX MAX_BITS_HEX KAPPA_MIN_HEX "
          "KAPPA_MAX_HEX MAX_RATIO_HEX\n");
  for (size_t j = 0; j < m->nform; j++)
    for (size_t b = 0; b < m->nbins; b++) {
      const sweep_cell *c = &a->cells[j * a->nbins + b];
      fprintf(f,
              "stat %s %zu %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
              " %" PRIu64 " %" PRIu64 " %.6g %.6g %.6g %.6g %" PRIu64 " %.6g %a %a %a %a %a\n",
              m->forms[j], b, c->cases, c->cases - c->kind[SCORE_OUT_OF_DOMAIN],
              c->kind[SCORE_OUT_OF_DOMAIN], c->kind[SCORE_AGREE], c->kind[SCORE_MISSED],
              c->kind[SCORE_GHOST], c->kind[SCORE_OTHER], c->timed, c->max_ulp, c->max_bits, c->kmin,
              c->kmax, c->kinf, c->max_ratio, c->max_ulp, c->max_bits, c->kmin, c->kmax, c->max_ratio);
    }

  fprintf(f, "\n\n# hist FORM B H LO HI COUNT (ULP error of timed cases)\n");
  for (size_t j = 0; j < m->nform; j++)
    for (size_t b = 0; b < m->nbins; b++) {
      const sweep_cell *c = &a->cells[j * a->nbins + b];
      for (int h = 0; h < SWEEP_HBINS; h++) {
        if (!c->hist[h]) continue;
        double lo, hi;
        hist_edges(h, &lo, &hi);
        fprintf(f, "hist %s %zu %d %.17g %.17g %" PRIu64 "\n", m->forms[j], b, h, lo, hi, c->hist[h]);
      }
    }

  fprintf(f, "\n\n# khist FORM B J LO HI COUNT (kappa of timed cases)\n");
  for (size_t j = 0; j < m->nform; j++)
    for (size_t b = 0; b < m->nbins; b++) {
      const sweep_cell *c = &a->cells[j * a->nbins + b];
      for (int h = 0; h < SWEEP_KBINS; h++) {
        if (!c->khist[h]) continue;
        double lo, hi;
        khist_edges(h, &lo, &hi);
        fprintf(f, "khist %s %zu %d %.17g %.17g %" PRIu64 "\n", m->forms[j], b, h, lo, hi, c->khist[h]);
      }
    }

  fprintf(f, "\n\n# confusion FORM B EXACT VERDICT COUNT\n");
  for (size_t j = 0; j < m->nform; j++)
    for (size_t b = 0; b < m->nbins; b++) {
      const sweep_cell *c = &a->cells[j * a->nbins + b];
      for (int e = 0; e < TOI_CLASS_COUNT; e++)
        for (int v = 0; v < TOI_CLASS_COUNT; v++)
          if (c->confusion[e][v])
            fprintf(f, "confusion %s %zu %s %s %" PRIu64 "\n", m->forms[j], b,
                    toi_class_name((toi_class)e), toi_class_name((toi_class)v), c->confusion[e][v]);
    }

  fprintf(f, "\n\n# witness FORM B WHAT INDEX VALUE AUX VALUE_HEX AUX_HEX CASE-LINE...\n");
  char line[1024];
  for (size_t j = 0; j < m->nform; j++)
    for (size_t b = 0; b < m->nbins; b++) {
      const sweep_cell *c = &a->cells[j * a->nbins + b];
      for (int w = 0; w < SW_WHAT_COUNT; w++) {
        const sweep_witness *x = &c->w[w];
        if (!x->set) continue;
        int n = toi_format_case(line, sizeof line, &x->c);
        if (n < 0 || (size_t)n >= sizeof line) return -1;
        fprintf(f, "witness %s %zu %s %" PRIu64 " %.6g %.6g %a %a %s\n", m->forms[j], b, what_names[w],
                x->index, x->value, x->aux, x->value, x->aux, line);
      }
    }
  return ferror(f) ? -1 : 0;
}

/* ---- reading ---- */

typedef struct reader {
  const char *path;
  long line;
} reader;

static int bad(const reader *r, const char *msg, const char *tok) {
  if (tok)
    cli_error("%s:%ld: %s '%s'", r->path, r->line, msg, tok);
  else
    cli_error("%s:%ld: %s", r->path, r->line, msg);
  return -1;
}

#define MAXTOK 64
static int split(char *s, char **tok) {
  int n = 0;
  for (char *p = strtok(s, " \t\r\n"); p && n < MAXTOK; p = strtok(NULL, " \t\r\n")) tok[n++] = p;
  return n;
}

static int get_u64(const reader *r, const char *s, uint64_t *out) {
  char *end;
  if (!*s || *s == '-' || *s == '+') return bad(r, "not a count:", s);
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (*end || errno) return bad(r, "not a count:", s);
  *out = (uint64_t)v;
  return 0;
}

static int get_double(const reader *r, const char *s, double *out) {
  char *end;
  errno = 0;
  *out = strtod(s, &end);
  if (!*s || *end) return bad(r, "not a number:", s);
  if (isnan(*out)) *out = NAN; /* one NaN sign, so that it prints back as "nan" */
  return 0;
}

static int find_form(const sweep_meta *m, const char *name) {
  for (size_t j = 0; j < m->nform; j++)
    if (!strcmp(m->forms[j], name)) return (int)j;
  return -1;
}

static int get_cell(const reader *r, const sweep_meta *m, sweep_acc *a, char **tok, sweep_cell **out) {
  int j = find_form(m, tok[1]);
  if (j < 0) return bad(r, "formulation not in the header:", tok[1]);
  uint64_t b;
  if (get_u64(r, tok[2], &b)) return -1;
  if (b >= m->nbins) return bad(r, "bin out of range:", tok[2]);
  *out = &a->cells[(size_t)j * a->nbins + b];
  return 0;
}

/* Parses the header and the records of a result file into m and a. */
static int read_body(reader *r, FILE *f, sweep_meta *m, sweep_acc *a) {
  char *buf = NULL, *copy = NULL;
  size_t cap = 0;
  ssize_t len;
  int stage = 0, rc = 0;
  const char *expect[] = {"gen", "count", "range", "formulations", "bins"};
  while ((len = getline(&buf, &cap, f)) != -1) {
    r->line++;
    if (r->line == 1) {
      if (strncmp(buf, SWEEP_VERSION_LINE, strlen(SWEEP_VERSION_LINE)) ||
          strspn(buf + strlen(SWEEP_VERSION_LINE), " \t\r\n") != strlen(buf + strlen(SWEEP_VERSION_LINE))) {
        rc = bad(r, "not a toibench sweep result (first line must be '" SWEEP_VERSION_LINE "')", NULL);
        break;
      }
      continue;
    }
    if (buf[0] == '#') continue;
    free(copy);
    copy = strdup(buf);
    if (!copy) {
      rc = bad(r, "out of memory", NULL);
      break;
    }
    char *tok[MAXTOK];
    int n = split(buf, tok);
    if (n == 0) continue;
    if (stage < 5) {
      if (strcmp(tok[0], expect[stage])) {
        char msg[80];
        snprintf(msg, sizeof msg, "expected the header line '%s', found", expect[stage]);
        rc = bad(r, msg, tok[0]);
        break;
      }
      if (stage == 0) {
        const char *p = copy + strspn(copy, " \t") + 3;
        p += strspn(p, " \t");
        size_t l = strcspn(p, "\r\n");
        if (l >= sizeof m->gen) {
          rc = bad(r, "gen line too long", NULL);
          break;
        }
        memcpy(m->gen, p, l);
        m->gen[l] = 0;
      } else if (stage == 1) {
        if (n != 2 || get_u64(r, tok[1], &m->count)) {
          rc = n != 2 ? bad(r, "count needs one number", NULL) : -1;
          break;
        }
      } else if (stage == 2) {
        if (n != 3 || get_u64(r, tok[1], &m->start) || get_u64(r, tok[2], &m->end)) {
          rc = n != 3 ? bad(r, "range needs two numbers", NULL) : -1;
          break;
        }
        if (m->start > m->end || m->end > m->count) {
          rc = bad(r, "range outside 0..count", NULL);
          break;
        }
      } else if (stage == 3) {
        if (n - 1 > SWEEP_MAXFORMS || n < 2) {
          rc = bad(r, "bad number of formulations", NULL);
          break;
        }
        m->nform = (size_t)(n - 1);
        for (int j = 1; j < n; j++) snprintf(m->forms[j - 1], sizeof m->forms[j - 1], "%s", tok[j]);
      } else {
        uint64_t nb;
        if (n != 2 || get_u64(r, tok[1], &nb) || nb == 0 || nb > SWEEP_MAXBINS) {
          rc = bad(r, "bins needs a number in 1..4096", NULL);
          break;
        }
        m->nbins = (size_t)nb;
        m->bins = calloc(m->nbins, sizeof *m->bins);
        if (!m->bins || sweep_acc_init(a, m->nform, m->nbins)) {
          rc = bad(r, "out of memory", NULL);
          break;
        }
      }
      stage++;
      continue;
    }
    sweep_cell *c = NULL;
    if (!strcmp(tok[0], "bin")) {
      uint64_t b, v;
      if (n != 6 + TOI_CLASS_COUNT) { rc = bad(r, "bin record needs 14 fields", NULL); break; }
      if (get_u64(r, tok[1], &b)) { rc = -1; break; }
      if (b >= m->nbins) { rc = bad(r, "bin out of range:", tok[1]); break; }
      sweep_bin *sb = &m->bins[b];
      char *end;
      long value = strtol(tok[3], &end, 10);
      if (*end || strlen(tok[2]) >= sizeof sb->param || strlen(tok[4]) >= sizeof sb->label) {
        rc = bad(r, "bad bin description", NULL);
        break;
      }
      snprintf(sb->param, sizeof sb->param, "%s", tok[2]);
      sb->value = (int)value;
      snprintf(sb->label, sizeof sb->label, "%s", tok[4]);
      if (get_u64(r, tok[5], &a->bincount[b])) { rc = -1; break; }
      for (int k = 0; k < TOI_CLASS_COUNT; k++) {
        if (get_u64(r, tok[6 + k], &v)) { rc = -1; break; }
        a->bincls[b * TOI_CLASS_COUNT + k] = v;
      }
      if (rc) break;
    } else if (!strcmp(tok[0], "stat")) {
      if (n != 22) { rc = bad(r, "stat record needs 22 fields", NULL); break; }
      if (get_cell(r, m, a, tok, &c)) { rc = -1; break; }
      uint64_t indom;
      if (get_u64(r, tok[3], &c->cases) || get_u64(r, tok[4], &indom) ||
          get_u64(r, tok[5], &c->kind[SCORE_OUT_OF_DOMAIN]) || get_u64(r, tok[6], &c->kind[SCORE_AGREE]) ||
          get_u64(r, tok[7], &c->kind[SCORE_MISSED]) || get_u64(r, tok[8], &c->kind[SCORE_GHOST]) ||
          get_u64(r, tok[9], &c->kind[SCORE_OTHER]) || get_u64(r, tok[10], &c->timed) ||
          get_u64(r, tok[15], &c->kinf) || get_double(r, tok[17], &c->max_ulp) ||
          get_double(r, tok[18], &c->max_bits) || get_double(r, tok[19], &c->kmin) ||
          get_double(r, tok[20], &c->kmax) || get_double(r, tok[21], &c->max_ratio)) {
        rc = -1;
        break;
      }
      if (indom + c->kind[SCORE_OUT_OF_DOMAIN] != c->cases) {
        rc = bad(r, "IN_DOMAIN + OUT_OF_DOMAIN differs from CASES", NULL);
        break;
      }
    } else if (!strcmp(tok[0], "hist") || !strcmp(tok[0], "khist")) {
      int k = tok[0][0] == 'k';
      uint64_t h, v;
      if (n != 7) { rc = bad(r, "histogram record needs 7 fields", NULL); break; }
      if (get_cell(r, m, a, tok, &c) || get_u64(r, tok[3], &h) || get_u64(r, tok[6], &v)) { rc = -1; break; }
      if (h >= (uint64_t)(k ? SWEEP_KBINS : SWEEP_HBINS)) { rc = bad(r, "histogram bin out of range:", tok[3]); break; }
      if (k) c->khist[h] = v;
      else c->hist[h] = v;
    } else if (!strcmp(tok[0], "confusion")) {
      uint64_t v;
      if (n != 6) { rc = bad(r, "confusion record needs 6 fields", NULL); break; }
      if (get_cell(r, m, a, tok, &c) || get_u64(r, tok[5], &v)) { rc = -1; break; }
      int e = toi_class_parse(tok[3]), w = toi_class_parse(tok[4]);
      if (e < 0 || w < 0) { rc = bad(r, "unknown class", NULL); break; }
      c->confusion[e][w] = v;
    } else if (!strcmp(tok[0], "witness")) {
      if (n < 10) { rc = bad(r, "witness record needs at least 10 fields", NULL); break; }
      if (get_cell(r, m, a, tok, &c)) { rc = -1; break; }
      int w = -1;
      for (int k = 0; k < SW_WHAT_COUNT; k++)
        if (!strcmp(tok[3], what_names[k])) w = k;
      if (w < 0) { rc = bad(r, "unknown witness kind:", tok[3]); break; }
      sweep_witness *x = &c->w[w];
      if (get_u64(r, tok[4], &x->index) || get_double(r, tok[7], &x->value) ||
          get_double(r, tok[8], &x->aux)) {
        rc = -1;
        break;
      }
      /* The case line is the rest of the original line from field 10 on. */
      const char *p = copy;
      for (int k = 0; k < 9; k++) {
        p += strspn(p, " \t");
        p += strcspn(p, " \t");
      }
      p += strspn(p, " \t");
      char caseline[1024];
      size_t l = strcspn(p, "\r\n");
      if (l >= sizeof caseline) { rc = bad(r, "witness case line too long", NULL); break; }
      memcpy(caseline, p, l);
      caseline[l] = 0;
      int field = 0;
      char msg[160];
      if (toi_parse_case_line(&x->c, caseline, &field, msg, sizeof msg)) {
        char m2[200];
        snprintf(m2, sizeof m2, "witness case, field %d: %s", field, msg);
        rc = bad(r, m2, NULL);
        break;
      }
      x->set = 1;
    } else {
      rc = bad(r, "unknown record", tok[0]);
      break;
    }
  }
  if (!rc && stage < 5) {
    r->line++;
    rc = bad(r, "unexpected end of file: header incomplete", NULL);
  }
  for (size_t b = 0; !rc && b < m->nbins; b++)
    if (!m->bins[b].param[0]) {
      char msg[64];
      snprintf(msg, sizeof msg, "no 'bin %zu' record: the file is incomplete", b);
      rc = bad(r, msg, NULL);
    }
  if (!rc && ferror(f)) rc = bad(r, "read error", NULL);
  free(buf);
  free(copy);
  return rc;
}

int sweep_read(const char *path, sweep_meta *m, sweep_acc *a) {
  memset(m, 0, sizeof *m);
  memset(a, 0, sizeof *a);
  FILE *f = fopen(path, "r");
  if (!f) {
    cli_error("%s: %s", path, strerror(errno));
    return -1;
  }
  reader r = {path, 0};
  int rc = read_body(&r, f, m, a);
  fclose(f);
  return rc;
}

const char *sweep_kind_name(int k) {
  return (unsigned)k < SCORE_KIND_COUNT ? kind_names[k] : "invalid";
}
