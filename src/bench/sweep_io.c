/* sweep_io.c: writing and reading the versioned text result file of a sweep (format in sweep.h). */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "sweep.h"
#include "textin.h"

static const char *const kind_names[TOI_SCORE_KIND_COUNT] = {"agree", "missed", "ghost", "other",
                                                         "out-of-domain"};
static const char *const what_names[SW_WHAT_COUNT] = {"max_ulp", "max_ratio", "misclass"};

int sweep_meta_init(sweep_meta *m, const toi_gen_opts *g, uint64_t count, const toi_formulation *const *fs,
                    size_t nf) {
  memset(m, 0, sizeof *m);
  if (nf > SWEEP_MAXFORMS) return -1;
  toi_gen_opts_format(m->gen, sizeof m->gen, g);
  m->count = count;
  m->start = 0;
  m->end = count;
  m->nform = nf;
  for (size_t i = 0; i < nf; i++) snprintf(m->forms[i], sizeof m->forms[i], "%s", fs[i]->name);
  m->nbins = toi_gen_bin_count(g);
  m->bins = calloc(m->nbins, sizeof *m->bins);
  if (!m->bins) return -1;
  for (size_t b = 0; b < m->nbins; b++) {
    const char *param;
    toi_gen_bin_describe(g, b, &param, &m->bins[b].value, m->bins[b].label, sizeof m->bins[b].label);
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

static void write_header(FILE *f, const sweep_meta *m) {
  fprintf(f, SWEEP_VERSION_LINE "\n");
  fprintf(f, "# Summary of a toibench sweep; the format is described by 'toibench sweep --help'.\n");
  fprintf(f, "# Sampled maxima are lower bounds of the true maxima over the family.\n");
  fprintf(f, "gen %s\ncount %" PRIu64 "\nrange %" PRIu64 " %" PRIu64 "\nformulations", m->gen, m->count,
          m->start, m->end);
  for (size_t j = 0; j < m->nform; j++) fprintf(f, " %s", m->forms[j]);
  int other = 0; /* a binary64 result keeps its bytes: no precisions line */
  for (size_t j = 0; j < m->nform; j++) other |= m->prec[j] != TOI_BINARY64;
  if (other) {
    fprintf(f, "\nprecisions");
    for (size_t j = 0; j < m->nform; j++) fprintf(f, " %s", toi_precision_name(m->prec[j]));
  }
  fprintf(f, "\nbins %zu\n", m->nbins);
}

static void write_bins(FILE *f, const sweep_meta *m, const sweep_acc *a) {
  fprintf(f, "\n\n# bin B PARAM VALUE LABEL CASES");
  for (int k = 0; k < TOI_CLASS_COUNT; k++) fprintf(f, " %s", toi_class_name((toi_class)k));
  fprintf(f, "\n");
  for (size_t b = 0; b < m->nbins; b++) {
    fprintf(f, "bin %zu %s %d %s %" PRIu64, b, m->bins[b].param, m->bins[b].value, m->bins[b].label,
            a->bincount[b]);
    for (int k = 0; k < TOI_CLASS_COUNT; k++) fprintf(f, " %" PRIu64, a->bincls[b * TOI_CLASS_COUNT + k]);
    fprintf(f, "\n");
  }
}

static void write_stats(FILE *f, const sweep_meta *m, const sweep_acc *a) {
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
              m->forms[j], b, c->cases, c->cases - c->kind[TOI_SCORE_OUT_OF_DOMAIN],
              c->kind[TOI_SCORE_OUT_OF_DOMAIN], c->kind[TOI_SCORE_AGREE], c->kind[TOI_SCORE_MISSED],
              c->kind[TOI_SCORE_GHOST], c->kind[TOI_SCORE_OTHER], c->timed, c->max_ulp, c->max_bits, c->kmin,
              c->kmax, c->kinf, c->max_ratio, c->max_ulp, c->max_bits, c->kmin, c->kmax, c->max_ratio);
    }
}

/* The ULP histograms (kappa 0) or the kappa histograms (kappa 1). */
static void write_hists(FILE *f, const sweep_meta *m, const sweep_acc *a, int kappa) {
  if (kappa)
    fprintf(f, "\n\n# khist FORM B J LO HI COUNT (kappa of timed cases)\n");
  else
    fprintf(f, "\n\n# hist FORM B H LO HI COUNT (ULP error of timed cases)\n");
  int nbins = kappa ? SWEEP_KBINS : SWEEP_HBINS;
  for (size_t j = 0; j < m->nform; j++)
    for (size_t b = 0; b < m->nbins; b++) {
      const sweep_cell *c = &a->cells[j * a->nbins + b];
      const uint64_t *count = kappa ? c->khist : c->hist;
      for (int h = 0; h < nbins; h++) {
        if (!count[h]) continue;
        double lo, hi;
        if (kappa)
          khist_edges(h, &lo, &hi);
        else
          hist_edges(h, &lo, &hi);
        fprintf(f, "%s %s %zu %d %.17g %.17g %" PRIu64 "\n", kappa ? "khist" : "hist", m->forms[j], b, h, lo, hi,
                count[h]);
      }
    }
}

static void write_confusion(FILE *f, const sweep_meta *m, const sweep_acc *a) {
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
}

/* -1 when a witness's case does not fit its line. */
static int write_witnesses(FILE *f, const sweep_meta *m, const sweep_acc *a) {
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
  return 0;
}

int sweep_write(FILE *f, const sweep_meta *m, const sweep_acc *a) {
  write_header(f, m);
  write_bins(f, m, a);
  write_stats(f, m, a);
  write_hists(f, m, a, 0);
  write_hists(f, m, a, 1);
  write_confusion(f, m, a);
  if (write_witnesses(f, m, a)) return -1;
  return ferror(f) ? -1 : 0;
}

#define FNV_OFFSET 0xcbf29ce484222325ULL
#define FNV_PRIME 0x100000001b3ULL

static uint64_t fnv1a64(uint64_t h, const void *p, size_t n) {
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * FNV_PRIME;
  return h;
}

/* The result in memory first: its checksum line needs every byte before it. */
int sweep_write_checkpoint(FILE *f, const sweep_meta *m, const sweep_acc *a) {
  char *text = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&text, &len);
  if (!mem) return -1;
  int rc = sweep_write(mem, m, a);
  if (fclose(mem) || !text) rc = -1;
  if (!rc && (fwrite(text, 1, len, f) != len ||
              fprintf(f, SWEEP_CHECKSUM_PREFIX "%016" PRIx64 "\n", fnv1a64(FNV_OFFSET, text, len)) < 0))
    rc = -1;
  free(text);
  return rc || ferror(f) ? -1 : 0;
}

/* ---- reading ---- */

/* The blocks in file order, each named by the tag of its records and of its
   '#' column line. */
#define NBLOCKS 6
static const char *const block_tags[NBLOCKS] = {"bin", "stat", "hist", "khist", "confusion", "witness"};

#define WORDS(n) (((n) + 63) / 64)

/* Which records of one cell (formulation, bin) the file holds, and where. */
typedef struct cell_seen {
  long stat_line;                    /* 0: none yet */
  long witness_line[SW_WHAT_COUNT];  /* 0: none */
  uint64_t hist[WORDS(SWEEP_HBINS)], khist[WORDS(SWEEP_KBINS)];
  uint64_t confusion[WORDS(TOI_CLASS_COUNT * TOI_CLASS_COUNT)];
} cell_seen;

typedef struct reader {
  const char *path;
  long line;
  int block;        /* the last column line read: -1 none, else an index of block_tags */
  long *bin_line;   /* [nbins]: the line of each bin record, 0 when none */
  cell_seen *seen;  /* [nform * nbins] */
  const toi_msg *msg;
  uint64_t hash;    /* FNV-1a of the lines read before a checksum line */
  long sum_line;    /* the checksum line, 0 when none yet */
  long long size;   /* the file's size when it is a regular file, else -1 */
} reader;

/* Hands a message to the reader's sink whole: a token quoted from the file
   may be longer than toi_msgf keeps. */
static void say(const reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const reader *r, const char *fmt, ...) {
  if (!r->msg || !r->msg->emit) return;
  char small[1024], *big = NULL;
  va_list ap;
  va_start(ap, fmt);
  int len = vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  if (len >= (int)sizeof small && (big = malloc((size_t)len + 1))) {
    va_start(ap, fmt);
    vsnprintf(big, (size_t)len + 1, fmt, ap);
    va_end(ap);
  }
  r->msg->emit(r->msg->ud, big ? big : small);
  free(big);
}

static int bad(const reader *r, const char *msg, const char *tok) {
  if (tok) {
    /* The file's bytes are escaped (textin.h), never echoed raw. */
    size_t sz = 4 * strlen(tok) + 8;
    char *shown = malloc(sz);
    say(r, "%s:%ld: %s '%s'", r->path, r->line, msg, shown ? text_printable(tok, sz, shown, sz) : "?");
    free(shown);
  } else
    say(r, "%s:%ld: %s", r->path, r->line, msg);
  return -1;
}

/* "FILE:LINE: message" for a record (line > 0), "FILE: message" for the
   whole file (line 0). Returns -1. */
static int bad_at(const reader *r, long line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int bad_at(const reader *r, long line, const char *fmt, ...) {
  char raw[512], msg[4 * sizeof raw];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(raw, sizeof raw, fmt, ap);
  va_end(ap);
  text_printable(raw, sizeof raw, msg, sizeof msg);
  if (line > 0)
    say(r, "%s:%ld: %s", r->path, line, msg);
  else
    say(r, "%s: %s", r->path, msg);
  return -1;
}

/* *sum += v, or -1 when that leaves 64 bits: the counts of a real sweep never
   do, so an overflow is a damaged count (2^64 - 1 would wrap a sum around). */
static int add_count(uint64_t *sum, uint64_t v) {
  if (v > UINT64_MAX - *sum) return -1;
  *sum += v;
  return 0;
}

/* Marks bit i of set; returns 1 when it was marked already (a duplicate). */
static int mark(uint64_t *set, unsigned i) {
  uint64_t bit = (uint64_t)1 << (i % 64);
  int was = (set[i / 64] & bit) != 0;
  set[i / 64] |= bit;
  return was;
}

/* 1 when tok is v as the writer prints it with %.{digits}g. */
static int printed_as(const char *tok, int digits, double v) {
  char buf[64];
  snprintf(buf, sizeof buf, "%.*g", digits, v);
  return !strcmp(tok, buf);
}

#define MAXTOK 64
static int split(char *s, char **tok) {
  int n = 0;
  for (char *p = strtok(s, " \t\r\n"); p && n < MAXTOK; p = strtok(NULL, " \t\r\n")) tok[n++] = p;
  return n;
}

/* A count as the writer prints it (%PRIu64: no sign, no leading zero). */
static int get_u64(const reader *r, const char *s, uint64_t *out) {
  char *end;
  if (!*s || *s == '-' || *s == '+' || (s[0] == '0' && s[1])) return bad(r, "not a count:", s);
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

/* The cell of a record's FORM B fields, and what was seen of it. */
static int get_cell(const reader *r, const sweep_meta *m, sweep_acc *a, char **tok, sweep_cell **out,
                    cell_seen **seen) {
  int j = find_form(m, tok[1]);
  if (j < 0) return bad(r, "formulation not in the header:", tok[1]);
  uint64_t b;
  if (get_u64(r, tok[2], &b)) return -1;
  if (b >= m->nbins) return bad(r, "bin out of range:", tok[2]);
  *out = &a->cells[(size_t)j * a->nbins + b];
  *seen = &r->seen[(size_t)j * a->nbins + b];
  return 0;
}

/* A '#' line: "# TAG ..." with a block's tag is that block's column line and
   opens it (the blocks come in order, each once, after the header); any
   other is a comment. */
static int column_line(reader *r, const char *line, int header_done) {
  if (strncmp(line, "# ", 2)) return 0;
  const char *w = line + 2;
  size_t l = strcspn(w, " \t\r\n");
  int k = -1;
  for (int i = 0; i < NBLOCKS; i++)
    if (strlen(block_tags[i]) == l && !strncmp(w, block_tags[i], l)) k = i;
  if (k < 0) return 0;
  if (!header_done)
    return bad_at(r, r->line, "the '# %s' column line comes before the end of the header", block_tags[k]);
  if (k <= r->block) return bad_at(r, r->line, "a second '# %s' column line", block_tags[k]);
  if (k > r->block + 1)
    return bad_at(r, r->line, "the '# %s' column line comes before '# %s' (a block is missing)", block_tags[k],
                  block_tags[r->block + 1]);
  r->block = k;
  return 0;
}

/* ---- the header ---- */

#define HEADER_LINES 5
static const char *const header_keys[HEADER_LINES] = {"gen", "count", "range", "formulations", "bins"};

/* The generator options: the rest of the gen line, as written. */
static int header_gen(const reader *r, sweep_meta *m, const char *line) {
  const char *p = line + strspn(line, " \t") + 3;
  p += strspn(p, " \t");
  size_t l = strcspn(p, "\r\n");
  if (l >= sizeof m->gen) return bad(r, "gen line too long", NULL);
  memcpy(m->gen, p, l);
  m->gen[l] = 0;
  return 0;
}

static int header_range(const reader *r, sweep_meta *m, char **tok, int n) {
  if (n != 3) return bad(r, "range needs two numbers", NULL);
  if (get_u64(r, tok[1], &m->start) || get_u64(r, tok[2], &m->end)) return -1;
  if (m->start > m->end || m->end > m->count) return bad(r, "range outside 0..count", NULL);
  return 0;
}

static int header_forms(const reader *r, sweep_meta *m, char **tok, int n) {
  if (n - 1 > SWEEP_MAXFORMS || n < 2) return bad(r, "bad number of formulations", NULL);
  m->nform = (size_t)(n - 1);
  for (int j = 1; j < n; j++) snprintf(m->forms[j - 1], sizeof m->forms[j - 1], "%s", tok[j]);
  for (size_t j = 1; j < m->nform; j++)
    if (find_form(m, m->forms[j]) != (int)j) return bad(r, "a column named twice:", m->forms[j]);
  return 0;
}

/* The optional precisions line: one known precision per column, not all binary64. */
static int header_precisions(const reader *r, sweep_meta *m, char **tok, int n) {
  if ((size_t)(n - 1) != m->nform) return bad(r, "precisions needs one name per column", NULL);
  int other = 0;
  for (int j = 1; j < n; j++) {
    toi_precision q;
    if (toi_precision_parse(&q, tok[j]) != TOI_OK) return bad(r, "unknown precision", tok[j]);
    m->prec[j - 1] = q;
    other |= q != TOI_BINARY64;
  }
  if (!other) return bad(r, "a precisions line naming only binary64 (it is written only for other precisions)", NULL);
  return 0;
}

/* Cells taking more than this are allocated only once the file is known to
   be large enough to hold them (header_bins). */
#define CELLS_CHECKED_BYTES ((size_t)64 << 20)
/* The shortest stat record: "stat", 21 fields of one byte after a blank each, the line end. */
#define STAT_MIN_BYTES 47

/* The bin count, and with it the room for the bins, the cells and what is seen of them. */
static int header_bins(reader *r, sweep_meta *m, sweep_acc *a, char **tok, int n) {
  uint64_t nb;
  if (n != 2 || get_u64(r, tok[1], &nb) || nb == 0 || nb > SWEEP_MAXBINS)
    return bad(r, "bins needs a number in 1..4096", NULL);
  /* A header may declare 64 columns x 4096 bins, some 700 MB of cells: a file
     cut after its header would take them all. Every cell has its stat record,
     so a regular file must hold that many before they are taken. */
  size_t cells = m->nform * (size_t)nb;
  if (cells * sizeof(sweep_cell) > CELLS_CHECKED_BYTES && r->size >= 0 &&
      (unsigned long long)r->size < (unsigned long long)cells * STAT_MIN_BYTES)
    return bad_at(r, r->line,
                  "%zu columns x %llu bins need %zu stat records of %d bytes or more, and the file holds %lld "
                  "bytes: it is cut short",
                  m->nform, (unsigned long long)nb, cells, STAT_MIN_BYTES, r->size);
  m->nbins = (size_t)nb;
  m->bins = calloc(m->nbins, sizeof *m->bins);
  r->bin_line = calloc(m->nbins, sizeof *r->bin_line);
  r->seen = calloc(m->nform * m->nbins, sizeof *r->seen);
  if (!m->bins || !r->bin_line || !r->seen || sweep_acc_init(a, m->nform, m->nbins))
    return bad(r, "out of memory", NULL);
  return 0;
}

/* Header line number `stage` (header_keys[stage]); line is the whole line as read. */
static int header_line(reader *r, sweep_meta *m, sweep_acc *a, char **tok, int n, const char *line, int stage) {
  if (strcmp(tok[0], header_keys[stage])) {
    char msg[80];
    snprintf(msg, sizeof msg, "expected the header line '%s', found", header_keys[stage]);
    return bad(r, msg, tok[0]);
  }
  switch (stage) {
  case 0:
    return header_gen(r, m, line);
  case 1:
    if (n != 2) return bad(r, "count needs one number", NULL);
    return get_u64(r, tok[1], &m->count);
  case 2:
    return header_range(r, m, tok, n);
  case 3:
    return header_forms(r, m, tok, n);
  default:
    return header_bins(r, m, a, tok, n);
  }
}

/* ---- the records, one kind per function ---- */

static int read_bin(reader *r, sweep_meta *m, sweep_acc *a, char **tok, int n) {
  uint64_t b, v;
  if (n != 6 + TOI_CLASS_COUNT) return bad(r, "bin record needs 14 fields", NULL);
  if (get_u64(r, tok[1], &b)) return -1;
  if (b >= m->nbins) return bad(r, "bin out of range:", tok[1]);
  if (r->bin_line[b])
    return bad_at(r, r->line, "a second 'bin %" PRIu64 "' record (the first is on line %ld)", b, r->bin_line[b]);
  r->bin_line[b] = r->line;
  sweep_bin *sb = &m->bins[b];
  char *end;
  errno = 0;
  long value = strtol(tok[3], &end, 10);
  if (*end || errno || value < INT_MIN || value > INT_MAX || strlen(tok[2]) >= sizeof sb->param ||
      strlen(tok[4]) >= sizeof sb->label)
    return bad(r, "bad bin description", NULL);
  snprintf(sb->param, sizeof sb->param, "%s", tok[2]);
  sb->value = (int)value;
  snprintf(sb->label, sizeof sb->label, "%s", tok[4]);
  if (get_u64(r, tok[5], &a->bincount[b])) return -1;
  for (int k = 0; k < TOI_CLASS_COUNT; k++) {
    if (get_u64(r, tok[6 + k], &v)) return -1;
    a->bincls[b * TOI_CLASS_COUNT + k] = v;
  }
  return 0;
}

static int read_stat(reader *r, const sweep_meta *m, sweep_acc *a, char **tok, int n) {
  sweep_cell *c;
  cell_seen *cs;
  if (n != 22) return bad(r, "stat record needs 22 fields", NULL);
  if (get_cell(r, m, a, tok, &c, &cs)) return -1;
  if (cs->stat_line)
    return bad_at(r, r->line, "a second 'stat %s %s' record (the first is on line %ld)", tok[1], tok[2],
                  cs->stat_line);
  cs->stat_line = r->line;
  uint64_t indom;
  if (get_u64(r, tok[3], &c->cases) || get_u64(r, tok[4], &indom) ||
      get_u64(r, tok[5], &c->kind[TOI_SCORE_OUT_OF_DOMAIN]) || get_u64(r, tok[6], &c->kind[TOI_SCORE_AGREE]) ||
      get_u64(r, tok[7], &c->kind[TOI_SCORE_MISSED]) || get_u64(r, tok[8], &c->kind[TOI_SCORE_GHOST]) ||
      get_u64(r, tok[9], &c->kind[TOI_SCORE_OTHER]) || get_u64(r, tok[10], &c->timed) ||
      get_u64(r, tok[15], &c->kinf) || get_double(r, tok[17], &c->max_ulp) ||
      get_double(r, tok[18], &c->max_bits) || get_double(r, tok[19], &c->kmin) ||
      get_double(r, tok[20], &c->kmax) || get_double(r, tok[21], &c->max_ratio))
    return -1;
  if (indom > c->cases || c->cases - indom != c->kind[TOI_SCORE_OUT_OF_DOMAIN])
    return bad(r, "IN_DOMAIN + OUT_OF_DOMAIN differs from CASES", NULL);
  /* The maxima are written twice, for people and exactly: the two must agree. */
  static const char *const names[5] = {"MAX_ULP", "MAX_BITS", "KAPPA_MIN", "KAPPA_MAX", "MAX_RATIO"};
  static const int field[5] = {11, 12, 13, 14, 16};
  const double hex[5] = {c->max_ulp, c->max_bits, c->kmin, c->kmax, c->max_ratio};
  for (int k = 0; k < 5; k++)
    if (!printed_as(tok[field[k]], 6, hex[k]))
      return bad_at(r, r->line, "%s '%s' is not %s_HEX '%s' (%.6g)", names[k], tok[field[k]], names[k], tok[17 + k],
                    hex[k]);
  return 0;
}

/* A hist or a khist record. */
static int read_hist(reader *r, const sweep_meta *m, sweep_acc *a, char **tok, int n) {
  int k = tok[0][0] == 'k';
  uint64_t h, v;
  sweep_cell *c;
  cell_seen *cs;
  if (n != 7) return bad(r, "histogram record needs 7 fields", NULL);
  if (get_cell(r, m, a, tok, &c, &cs) || get_u64(r, tok[3], &h) || get_u64(r, tok[6], &v)) return -1;
  if (h >= (uint64_t)(k ? SWEEP_KBINS : SWEEP_HBINS)) return bad(r, "histogram bin out of range:", tok[3]);
  if (mark(k ? cs->khist : cs->hist, (unsigned)h))
    return bad_at(r, r->line, "a second '%s %s %s %s' record", tok[0], tok[1], tok[2], tok[3]);
  if (v == 0) return bad(r, "a zero count (empty histogram bins are not written)", NULL);
  double lo, hi;
  if (k)
    khist_edges((int)h, &lo, &hi);
  else
    hist_edges((int)h, &lo, &hi);
  if (!printed_as(tok[4], 17, lo) || !printed_as(tok[5], 17, hi))
    return bad_at(r, r->line, "edges '%s %s' are not those of %s bin %d (%.17g %.17g)", tok[4], tok[5], tok[0],
                  (int)h, lo, hi);
  if (k)
    c->khist[h] = v;
  else
    c->hist[h] = v;
  return 0;
}

static int read_confusion(reader *r, const sweep_meta *m, sweep_acc *a, char **tok, int n) {
  uint64_t v;
  sweep_cell *c;
  cell_seen *cs;
  if (n != 6) return bad(r, "confusion record needs 6 fields", NULL);
  if (get_cell(r, m, a, tok, &c, &cs) || get_u64(r, tok[5], &v)) return -1;
  toi_class e, w;
  if (toi_class_parse(&e, tok[3]) != TOI_OK || toi_class_parse(&w, tok[4]) != TOI_OK) return bad(r, "unknown class", NULL);
  if (mark(cs->confusion, (unsigned)(e * TOI_CLASS_COUNT + w)))
    return bad_at(r, r->line, "a second 'confusion %s %s %s %s' record", tok[1], tok[2], tok[3], tok[4]);
  if (v == 0) return bad(r, "a zero count (empty confusion entries are not written)", NULL);
  c->confusion[e][w] = v;
  return 0;
}

/* A sink keeping the message in a buffer of 160 bytes (ud), cut there. */
static void keep_message(void *ud, const char *text) { snprintf(ud, 160, "%s", text); }

/* A witness's case: the rest of its line from field 10 on. */
static int witness_case(const reader *r, toi_case *out, const char *line) {
  const char *p = line;
  for (int k = 0; k < 9; k++) {
    p += strspn(p, " \t");
    p += strcspn(p, " \t");
  }
  p += strspn(p, " \t");
  char caseline[1024];
  size_t l = strcspn(p, "\r\n");
  if (l >= sizeof caseline) return bad(r, "witness case line too long", NULL);
  memcpy(caseline, p, l);
  caseline[l] = 0;
  int field = 0;
  char msg[160] = "";
  toi_msg keep = {keep_message, msg};
  if (toi_parse_case_line(out, caseline, &field, &keep) != TOI_OK) {
    char m2[200];
    snprintf(m2, sizeof m2, "witness case, field %d: %s", field, msg);
    return bad(r, m2, NULL);
  }
  return 0;
}

/* A witness record; line is the whole line as read. */
static int read_witness(reader *r, const sweep_meta *m, sweep_acc *a, char **tok, int n, const char *line) {
  sweep_cell *c;
  cell_seen *cs;
  if (n < 10) return bad(r, "witness record needs at least 10 fields", NULL);
  if (get_cell(r, m, a, tok, &c, &cs)) return -1;
  int w = -1;
  for (int k = 0; k < SW_WHAT_COUNT; k++)
    if (!strcmp(tok[3], what_names[k])) w = k;
  if (w < 0) return bad(r, "unknown witness kind:", tok[3]);
  if (cs->witness_line[w])
    return bad_at(r, r->line, "a second '%s' witness of %s bin %s (the first is on line %ld)", tok[3], tok[1], tok[2],
                  cs->witness_line[w]);
  cs->witness_line[w] = r->line;
  sweep_witness *x = &c->w[w];
  if (get_u64(r, tok[4], &x->index) || get_double(r, tok[7], &x->value) || get_double(r, tok[8], &x->aux))
    return -1;
  if (x->index < m->start || x->index >= m->end)
    return bad_at(r, r->line, "witness INDEX %" PRIu64 " outside the range %" PRIu64 " .. %" PRIu64, x->index,
                  m->start, m->end);
  if (!printed_as(tok[5], 6, x->value) || !printed_as(tok[6], 6, x->aux))
    return bad_at(r, r->line, "VALUE AUX '%s %s' are not VALUE_HEX AUX_HEX '%s %s' (%.6g %.6g)", tok[5], tok[6],
                  tok[7], tok[8], x->value, x->aux);
  if (witness_case(r, &x->c, line)) return -1;
  x->set = 1;
  return 0;
}

/* A record (line is the whole line as read): it lies in its own block, after
   that block's column line. */
static int read_record(reader *r, sweep_meta *m, sweep_acc *a, char **tok, int n, const char *line) {
  int t = -1;
  for (int k = 0; k < NBLOCKS; k++)
    if (!strcmp(tok[0], block_tags[k])) t = k;
  if (t < 0) return bad(r, "unknown record", tok[0]);
  if (t != r->block)
    return t > r->block ? bad_at(r, r->line, "'%s' record before the '# %s' column line", tok[0], tok[0])
                        : bad_at(r, r->line, "'%s' record in the '%s' block", tok[0], block_tags[r->block]);
  switch (t) {
  case 0:
    return read_bin(r, m, a, tok, n);
  case 1:
    return read_stat(r, m, a, tok, n);
  case 2:
  case 3:
    return read_hist(r, m, a, tok, n);
  case 4:
    return read_confusion(r, m, a, tok, n);
  default:
    return read_witness(r, m, a, tok, n, line);
  }
}

/* What every line must be before its content is read: whole (its end read),
   without a NUL byte, and the first one the version line. */
static int check_line(const reader *r, const char *buf, ssize_t len) {
  /* The writer ends every line; a last line without its end is a file cut
     short, perhaps inside a number that still reads as one. */
  if (len == 0 || buf[len - 1] != '\n') return bad(r, "the line has no end: the file is cut short", NULL);
  if (strlen(buf) != (size_t)len) return bad(r, "a NUL byte in the line", NULL);
  if (r->line == 1 &&
      (strncmp(buf, SWEEP_VERSION_LINE, strlen(SWEEP_VERSION_LINE)) ||
       strspn(buf + strlen(SWEEP_VERSION_LINE), " \t\r\n") != strlen(buf + strlen(SWEEP_VERSION_LINE))))
    return bad(r, "not a toibench sweep result (first line must be '" SWEEP_VERSION_LINE "')", NULL);
  return 0;
}

/* A checkpoint's last line, SWEEP_CHECKSUM_PREFIX and 16 lowercase hex digits:
   the FNV-1a hash of every byte before it. A count moved from one histogram
   bin to another keeps every sum the checks below can see; the hash does not. */
static int checksum_line(reader *r, const char *buf) {
  const char *hex = buf + strlen(SWEEP_CHECKSUM_PREFIX);
  if (strspn(hex, "0123456789abcdef") != 16 || strcmp(hex + 16, "\n"))
    return bad(r, "a checksum line must be '" SWEEP_CHECKSUM_PREFIX "' and 16 lowercase hex digits", NULL);
  char want[17];
  snprintf(want, sizeof want, "%016" PRIx64, r->hash);
  if (strncmp(hex, want, 16))
    return bad(r, "the checksum does not match the lines before it: the file was changed or damaged after it "
                  "was written",
               NULL);
  r->sum_line = r->line;
  return 0;
}

/* getline() that stops at TOI_LINE_MAX bytes (*too_long = 1 then), so that
   an endless line (merge /dev/zero) is refused at once, not read to the end
   of memory. The line's length, or -1 at the end of the file. */
static ssize_t get_line_max(char **buf, size_t *cap, FILE *f, int *too_long) {
  size_t n = 0;
  *too_long = 0;
  for (int ch; (ch = getc(f)) != EOF;) {
    if (n + 2 > *cap) {
      size_t nc = *cap ? 2 * *cap : 256;
      char *nb = realloc(*buf, nc);
      if (!nb) return -1;
      *buf = nb;
      *cap = nc;
    }
    (*buf)[n++] = (char)ch;
    if (ch == '\n') break;
    if (n > (size_t)TOI_LINE_MAX) {
      *too_long = 1;
      break;
    }
  }
  if (n == 0) return -1;
  (*buf)[n] = 0;
  return (ssize_t)n;
}

/* Parses the header and the records of a result file into m and a, and notes
   in r which records it saw. */
static int read_body(reader *r, FILE *f, sweep_meta *m, sweep_acc *a) {
  char *buf = NULL, *copy = NULL;
  size_t cap = 0;
  ssize_t len;
  int stage = 0, rc = 0, seen_prec = 0; /* stage: header lines read; the optional precisions line */
  int too_long;
  while ((len = get_line_max(&buf, &cap, f, &too_long)) != -1) {
    r->line++;
    if (too_long) {
      char msg[64];
      snprintf(msg, sizeof msg, "the line is longer than %d characters", TOI_LINE_MAX);
      rc = bad(r, msg, NULL);
      break;
    }
    if ((rc = check_line(r, buf, len))) break;
    if (r->sum_line) {
      rc = bad(r, "a line after the checksum line", NULL);
      break;
    }
    if (!strncmp(buf, SWEEP_CHECKSUM_PREFIX, strlen(SWEEP_CHECKSUM_PREFIX))) {
      if ((rc = checksum_line(r, buf))) break;
      continue;
    }
    r->hash = fnv1a64(r->hash, buf, (size_t)len);
    if (r->line == 1) continue;
    if (buf[0] == '#') {
      if ((rc = column_line(r, buf, stage == HEADER_LINES))) break;
      continue;
    }
    free(copy);
    copy = strdup(buf); /* split cuts buf up; the gen and witness records need the line whole */
    if (!copy) {
      rc = bad(r, "out of memory", NULL);
      break;
    }
    char *tok[MAXTOK];
    int n = split(buf, tok);
    if (n == 0) continue;
    if (stage == HEADER_LINES - 1 && !strcmp(tok[0], "precisions") && !seen_prec) {
      seen_prec = 1;
      if ((rc = header_precisions(r, m, tok, n))) break;
    } else if (stage < HEADER_LINES) {
      if ((rc = header_line(r, m, a, tok, n, copy, stage))) break;
      stage++;
    } else if ((rc = read_record(r, m, a, tok, n, copy))) {
      break;
    }
  }
  if (!rc && ferror(f)) rc = bad(r, "read error", NULL);
  if (!rc && stage < HEADER_LINES) {
    r->line++;
    rc = bad(r, "unexpected end of file: header incomplete", NULL);
  }
  free(buf);
  free(copy);
  return rc;
}

/* ---- the checks of a whole result ----
 *
 * sweep_eval_case_with counts every case of bin b once in the bin's record
 * and once in every column's cell, and sweep_acc_merge only adds counts and
 * keeps maxima, so every identity below holds in anything sweep or merge
 * writes, shards included; a file that breaks one is cut short or edited. */

/* score_result's forward kind of a verdict group against an exact group. */
static toi_score_kind forward_kind(toi_group ge, toi_group gv) {
  if (gv == ge) return TOI_SCORE_AGREE;
  if (ge == TOI_G_CONTACT && gv == TOI_G_NOCONTACT) return TOI_SCORE_MISSED;
  if (ge == TOI_G_NOCONTACT) return TOI_SCORE_GHOST;
  return TOI_SCORE_OTHER;
}

/* What a scored case counts as: its kind (TOI_SCORE_AGREE .. TOI_SCORE_OTHER; for
   TOI_SCORE_AGREE, untimed), or AGREE_TIMED, an agreeing case whose time was
   scored. */
enum { AGREE_TIMED = TOI_SCORE_OTHER + 1, NSCORES };

/* Bits (1 << score above) of what a case in confusion entry (exact e,
   verdict v) can count as. Forward (score_result): the kind follows from the
   two groups. With a step (--tmax, solver_score_result) either contact may
   count as no contact (a contact after the step). A reverse formulation
   decides on the existence of a reverse root, which the class does not tell:
   agree or missed for a no-contact verdict, agree or ghost for another; it is
   timed when it claims a contact and agrees. A column named like a reverse
   formulation could be a solver (forward): it gets both. */
static unsigned entry_scores(int e, int v, int reverse, int tmax) {
  toi_group ge = toi_class_group((toi_class)e), gv = toi_class_group((toi_class)v);
  unsigned s = 0;
  for (int de = 0; de <= (tmax && ge == TOI_G_CONTACT); de++)
    for (int dv = 0; dv <= (tmax && gv == TOI_G_CONTACT); dv++)
      s |= 1u << forward_kind(de ? TOI_G_NOCONTACT : ge, dv ? TOI_G_NOCONTACT : gv);
  /* Forward, a time is scored for an agreeing contact only (score.c). */
  if (ge == TOI_G_CONTACT && gv == TOI_G_CONTACT) s |= 1u << AGREE_TIMED;
  if (reverse) {
    s |= 1u << TOI_SCORE_AGREE | 1u << (gv == TOI_G_NOCONTACT ? TOI_SCORE_MISSED : TOI_SCORE_GHOST);
    if (gv != TOI_G_NOCONTACT) s |= 1u << AGREE_TIMED;
  }
  return s;
}

/* Whether the confusion records of cell c can hold its AGREE (TIMED of them
   timed), MISSED, GHOST and OTHER counts. The cases of the exact classes
   outside a formulation's domain are counted OUT_OF_DOMAIN and have
   confusion records too: whole rows, ood_rows cases (0 for a solver, whose
   declined cases have none); every other case has a score its entry allows
   (entry_scores). By Hall's theorem such an assignment exists iff for every
   set T of scores, the cases with a score in T fit in the entries allowing
   some score of T. */
static int scores_fit(const sweep_cell *c, const uint64_t *row, uint64_t ood_rows, int reverse, int tmax) {
  uint64_t want[NSCORES] = {c->kind[TOI_SCORE_AGREE] - c->timed, c->kind[TOI_SCORE_MISSED], c->kind[TOI_SCORE_GHOST],
                       c->kind[TOI_SCORE_OTHER], c->timed};
  unsigned rows = 0; /* the classes with cases: an empty row out of the domain changes nothing */
  for (int e = 0; e < TOI_CLASS_COUNT; e++)
    if (row[e]) rows |= 1u << e;
  /* Every subset `out` of rows, the empty one last. */
  for (unsigned out = rows;; out = (out - 1) & rows) {
    uint64_t n = 0;
    for (int e = 0; e < TOI_CLASS_COUNT; e++)
      if (out >> e & 1) n += row[e];
    if (n == ood_rows) {
      uint64_t by_set[1u << NSCORES] = {0};
      for (int e = 0; e < TOI_CLASS_COUNT; e++)
        if (!(out >> e & 1))
          for (int v = 0; v < TOI_CLASS_COUNT; v++)
            if (c->confusion[e][v]) by_set[entry_scores(e, v, reverse, tmax)] += c->confusion[e][v];
      int fits = 1;
      for (unsigned t = 1; t < 1u << NSCORES && fits; t++) {
        uint64_t need = 0, room = 0;
        for (int k = 0; k < NSCORES; k++)
          if (t >> k & 1) need += want[k];
        for (unsigned s = 1; s < 1u << NSCORES; s++)
          if (s & t) room += by_set[s];
        fits = need <= room;
      }
      if (fits) return 1;
    }
    if (!out) return 0;
  }
}

/* What the confusion counts say of a column: a formulation's include its
   out-of-domain cases, a solver's leave out the cases it declined. */
enum { COLUMN_EITHER, COLUMN_FORMULATION, COLUMN_SOLVER };

/* A cell (formulation, bin) under check, and where its messages point. */
typedef struct cell_check {
  const reader *r;
  const sweep_cell *c;
  const cell_seen *cs;
  const char *form;
  size_t b;
  long at; /* the line of its stat record */
  int other_precision; /* the column is not binary64 (a precisions line) */
} cell_check;

/* "FILE:LINE: FORM bin B: message". Returns -1. */
static int bad_cell(const cell_check *k, long line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int bad_cell(const cell_check *k, long line, const char *fmt, ...) {
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return bad_at(k->r, line, "%s bin %zu: %s", k->form, k->b, msg);
}

/* CASES is the bin's; the kinds sum to IN_DOMAIN; TIMED <= AGREE. */
static int check_counts(const cell_check *k, const sweep_acc *a) {
  const sweep_cell *c = k->c;
  size_t b = k->b;
  uint64_t indom = c->cases - c->kind[TOI_SCORE_OUT_OF_DOMAIN]; /* no wrap: checked on reading */
  if (c->cases != a->bincount[b])
    return bad_cell(k, k->at, "CASES %" PRIu64 " differs from the bin's CASES %" PRIu64, c->cases, a->bincount[b]);
  uint64_t scored = 0;
  for (int s = TOI_SCORE_AGREE; s <= TOI_SCORE_OTHER; s++)
    if (add_count(&scored, c->kind[s])) return bad_cell(k, k->at, "AGREE + MISSED + GHOST + OTHER overflows");
  if (scored != indom)
    return bad_cell(k, k->at, "AGREE + MISSED + GHOST + OTHER = %" PRIu64 " differs from IN_DOMAIN %" PRIu64, scored,
                    indom);
  if (c->timed > c->kind[TOI_SCORE_AGREE])
    return bad_cell(k, k->at, "TIMED %" PRIu64 " exceeds AGREE %" PRIu64 " (only agreeing cases are timed)",
                    c->timed, c->kind[TOI_SCORE_AGREE]);
  return 0;
}

/* The end bins of a cell's histograms: the highest hist bin, the lowest and
   highest finite khist bins (-1: none). */
typedef struct end_bins {
  int htop, klo, khi;
} end_bins;

/* Every timed case has a ULP error, bits of error and a kappa, none NaN (its
   root exists), so each lands in a histogram bin. */
static int check_hists(const cell_check *k, end_bins *e) {
  const sweep_cell *c = k->c;
  uint64_t nh = 0, nk = 0;
  *e = (end_bins){-1, -1, -1};
  for (int h = 0; h < SWEEP_HBINS; h++) {
    if (add_count(&nh, c->hist[h])) return bad_cell(k, k->at, "the hist counts overflow");
    if (c->hist[h]) e->htop = h;
  }
  if (nh != c->timed)
    return bad_cell(k, k->at, "the hist counts sum to %" PRIu64 ", not TIMED %" PRIu64, nh, c->timed);
  for (int j = 0; j < SWEEP_KBINS; j++) {
    if (add_count(&nk, c->khist[j])) return bad_cell(k, k->at, "the khist counts overflow");
    if (c->khist[j] && j < SWEEP_KBINS - 1) {
      if (e->klo < 0) e->klo = j;
      e->khi = j;
    }
  }
  if (nk != c->timed)
    return bad_cell(k, k->at, "the khist counts sum to %" PRIu64 ", not TIMED %" PRIu64, nk, c->timed);
  if (c->kinf != c->khist[SWEEP_KBINS - 1])
    return bad_cell(k, k->at, "KAPPA_INF %" PRIu64 " differs from the count of khist bin %d (%" PRIu64 ")", c->kinf,
                    SWEEP_KBINS - 1, c->khist[SWEEP_KBINS - 1]);
  return 0;
}

/* The maxima are over the histograms' cases, so they lie in their end bins. */
static int check_maxima(const cell_check *k, const end_bins *e) {
  const sweep_cell *c = k->c;
  if (!c->timed != !!isnan(c->max_ulp) || !c->timed != !!isnan(c->max_bits))
    return bad_cell(k, k->at, "MAX_ULP and MAX_BITS must be nan exactly when TIMED is 0");
  if (c->timed && (sweep_ulp_bin(c->max_ulp) != e->htop || !(c->max_bits >= 0)))
    return bad_cell(k, k->at, "MAX_ULP %a (bin %d) is not in the highest hist bin %d, or MAX_BITS %a < 0",
                    c->max_ulp, sweep_ulp_bin(c->max_ulp), e->htop, c->max_bits);
  uint64_t finite = c->timed - c->kinf; /* timed cases with a finite kappa */
  if (!finite != !!isnan(c->kmin) || !finite != !!isnan(c->kmax))
    return bad_cell(k, k->at, "KAPPA_MIN and KAPPA_MAX must be nan exactly when no timed kappa is finite");
  if (finite && (sweep_kappa_bin(c->kmin) != e->klo || sweep_kappa_bin(c->kmax) != e->khi || !(c->kmin <= c->kmax)))
    return bad_cell(k, k->at,
                    "KAPPA_MIN %a and KAPPA_MAX %a are not in the lowest and highest finite khist bins %d and %d",
                    c->kmin, c->kmax, e->klo, e->khi);
  /* A ratio needs a finite kappa; a ULP error of 0 has ratio 0. */
  if (!isnan(c->max_ratio) && (!finite || !(c->max_ratio >= 0) || (c->max_ulp == 0 && c->max_ratio != 0)))
    return bad_cell(k, k->at, "MAX_RATIO %a does not fit KAPPA_MIN %a and MAX_ULP %a", c->max_ratio, c->kmin,
                    c->max_ulp);
  return 0;
}

/* Each scored case has one confusion record entry (exact class, verdict);
   *column gets what the counts say of the column. */
static int check_confusion(const cell_check *k, const sweep_acc *a, int reverse, int tmax, int *column) {
  const sweep_cell *c = k->c;
  size_t b = k->b;
  uint64_t indom = c->cases - c->kind[TOI_SCORE_OUT_OF_DOMAIN];
  uint64_t total = 0, row[TOI_CLASS_COUNT] = {0};
  for (int e = 0; e < TOI_CLASS_COUNT; e++)
    for (int v = 0; v < TOI_CLASS_COUNT; v++) {
      if (add_count(&total, c->confusion[e][v])) return bad_cell(k, k->at, "the confusion counts overflow");
      row[e] += c->confusion[e][v];
    }
  if (k->other_precision) {
    /* Rounded cases: the exact class is the rounded case's (not the bin's),
       and a case beyond the precision's range has no record. */
    if (total < indom || total > c->cases)
      return bad_cell(k, k->at, "the confusion counts sum to %" PRIu64 ", outside IN_DOMAIN %" PRIu64 " .. CASES %" PRIu64,
                      total, indom, c->cases);
    *column = COLUMN_EITHER;
    if (!scores_fit(c, row, total - indom, reverse, tmax))
      return bad_cell(k, k->at, "AGREE, MISSED, GHOST, OTHER and TIMED do not fit the confusion records");
    return 0;
  }
  for (int e = 0; e < TOI_CLASS_COUNT; e++)
    if (row[e] > a->bincls[b * TOI_CLASS_COUNT + e])
      return bad_cell(k, k->at, "the confusion records count %" PRIu64 " cases of exact class %s, the bin has %" PRIu64,
                      row[e], toi_class_name((toi_class)e), a->bincls[b * TOI_CLASS_COUNT + e]);
  if (total != c->cases && total != indom)
    return bad_cell(k, k->at,
                    "the confusion counts sum to %" PRIu64 ", neither CASES %" PRIu64
                    " (a formulation's) nor IN_DOMAIN %" PRIu64 " (a solver's)",
                    total, c->cases, indom);
  *column = total == indom ? (total == c->cases ? COLUMN_EITHER : COLUMN_SOLVER) : COLUMN_FORMULATION;
  if (!scores_fit(c, row, total - indom, reverse, tmax))
    return bad_cell(k, k->at, "AGREE, MISSED, GHOST, OTHER and TIMED do not fit the confusion records");
  return 0;
}

/* The misclass witness: VALUE is the case's score kind, AUX its verdict; some
   entry with that verdict must hold a case of that kind. */
static int check_misclass(const cell_check *k, int reverse, int tmax) {
  const sweep_cell *c = k->c;
  double kv = c->w[SW_MISCLASS].value, vv = c->w[SW_MISCLASS].aux;
  int found = 0;
  if ((kv == TOI_SCORE_MISSED || kv == TOI_SCORE_GHOST || kv == TOI_SCORE_OTHER) && c->kind[(int)kv] > 0 && vv >= 0 &&
      vv < TOI_CLASS_COUNT && vv == (int)vv)
    for (int e = 0; e < TOI_CLASS_COUNT; e++)
      found |= c->confusion[e][(int)vv] && (entry_scores(e, (int)vv, reverse, tmax) >> (int)kv & 1);
  if (!found)
    return bad_cell(k, k->cs->witness_line[SW_MISCLASS],
                    "the misclass witness (kind %a, verdict %a) fits no confusion record", kv, vv);
  return 0;
}

/* The witnesses: each where the accumulator offers one, at its maximum. */
static int check_witnesses(const cell_check *k, int reverse, int tmax) {
  const sweep_cell *c = k->c;
  const sweep_witness *w = c->w;
  const long *wline = k->cs->witness_line;
  const int want[SW_WHAT_COUNT] = {c->timed > 0, !isnan(c->max_ratio),
                                   c->kind[TOI_SCORE_MISSED] + c->kind[TOI_SCORE_GHOST] + c->kind[TOI_SCORE_OTHER] > 0};
  static const char *const why[SW_WHAT_COUNT] = {"TIMED > 0", "MAX_RATIO is not nan", "MISSED + GHOST + OTHER > 0"};
  for (int i = 0; i < SW_WHAT_COUNT; i++)
    if (w[i].set != want[i])
      return w[i].set ? bad_cell(k, wline[i], "a %s witness, but not %s", what_names[i], why[i])
                      : bad_cell(k, k->at, "no %s witness, but %s", what_names[i], why[i]);
  if (w[SW_MAX_ULP].set && (w[SW_MAX_ULP].value != c->max_ulp || !(w[SW_MAX_ULP].aux <= c->max_bits)))
    return bad_cell(k, wline[SW_MAX_ULP],
                    "the max_ulp witness (VALUE %a, AUX %a) is not at MAX_ULP %a within MAX_BITS %a",
                    w[SW_MAX_ULP].value, w[SW_MAX_ULP].aux, c->max_ulp, c->max_bits);
  if (w[SW_MAX_RATIO].set && (w[SW_MAX_RATIO].value != c->max_ratio || !(w[SW_MAX_RATIO].aux >= c->kmin) ||
                              !(w[SW_MAX_RATIO].aux <= c->kmax)))
    return bad_cell(k, wline[SW_MAX_RATIO],
                    "the max_ratio witness (VALUE %a, AUX %a) is not at MAX_RATIO %a with a kappa in "
                    "KAPPA_MIN %a .. KAPPA_MAX %a",
                    w[SW_MAX_RATIO].value, w[SW_MAX_RATIO].aux, c->max_ratio, c->kmin, c->kmax);
  if (w[SW_MISCLASS].set) return check_misclass(k, reverse, tmax);
  return 0;
}

/* The identities of one cell (formulation j, bin b); *column gets what the
   confusion counts say of the column. */
static int check_cell(const reader *r, const sweep_meta *m, const sweep_acc *a, size_t j, size_t b, int reverse,
                      int tmax, int *column) {
  const cell_seen *cs = &r->seen[j * a->nbins + b];
  const cell_check k = {r, &a->cells[j * a->nbins + b], cs, m->forms[j], b, cs->stat_line, m->prec[j] != TOI_BINARY64};
  end_bins e;
  if (check_counts(&k, a) || check_hists(&k, &e) || check_maxima(&k, &e) ||
      check_confusion(&k, a, reverse, tmax, column))
    return -1;
  return check_witnesses(&k, reverse, tmax);
}

/* The checks that need the whole file. */
static int check_result(const reader *r, const sweep_meta *m, const sweep_acc *a) {
  if (r->block < NBLOCKS - 1)
    return bad_at(r, 0, "the file ends before the '# %s' column line: it is incomplete", block_tags[r->block + 1]);
  uint64_t total = 0;
  for (size_t b = 0; b < m->nbins; b++) {
    if (!r->bin_line[b]) return bad_at(r, 0, "no 'bin %zu' record: the file is incomplete", b);
    uint64_t n = 0;
    for (int k = 0; k < TOI_CLASS_COUNT; k++)
      if (add_count(&n, a->bincls[b * TOI_CLASS_COUNT + k]))
        return bad_at(r, r->bin_line[b], "bin %zu: the class counts overflow", b);
    if (n != a->bincount[b])
      return bad_at(r, r->bin_line[b], "bin %zu: the class counts sum to %" PRIu64 ", not CASES %" PRIu64, b, n,
                    a->bincount[b]);
    if (add_count(&total, n)) return bad_at(r, r->bin_line[b], "bin %zu: the bins' CASES overflow", b);
  }
  if (total != m->end - m->start)
    return bad_at(r, 0,
                  "the bins' CASES sum to %" PRIu64 ", not END - START = %" PRIu64 " (range %" PRIu64 " %" PRIu64 ")",
                  total, m->end - m->start, m->start, m->end);
  /* The step is recorded on the gen line (cmd_sweep.c). */
  int tmax = strstr(m->gen, " tmax=") != NULL;
  size_t first_solver = SIZE_MAX;
  for (size_t j = 0; j < m->nform; j++) {
    const toi_formulation *f = toi_formulation_find(m->forms[j]);
    int reverse = f && f->direction == TOI_REVERSE;
    size_t as[3] = {SIZE_MAX, SIZE_MAX, SIZE_MAX}; /* the first bin saying each column kind */
    for (size_t b = 0; b < m->nbins; b++) {
      if (!r->seen[j * m->nbins + b].stat_line)
        return bad_at(r, 0, "no 'stat %s %zu' record: the file is incomplete", m->forms[j], b);
      int column = COLUMN_EITHER;
      if (check_cell(r, m, a, j, b, reverse, tmax, &column)) return -1;
      if (as[column] == SIZE_MAX) as[column] = b;
    }
    /* A column is a formulation or a solver in every bin, and the solvers
       come after the formulations (sweep_meta: formulations, then solvers). */
    if (as[COLUMN_FORMULATION] != SIZE_MAX && as[COLUMN_SOLVER] != SIZE_MAX)
      return bad_at(r, 0,
                    "%s: the confusion counts include the OUT_OF_DOMAIN cases in bin %zu (a formulation's) "
                    "but not in bin %zu (a solver's)",
                    m->forms[j], as[COLUMN_FORMULATION], as[COLUMN_SOLVER]);
    if (as[COLUMN_FORMULATION] != SIZE_MAX && first_solver != SIZE_MAX)
      return bad_at(r, 0, "%s: the confusion counts make it a formulation, but it comes after the solver %s",
                    m->forms[j], m->forms[first_solver]);
    if (as[COLUMN_SOLVER] != SIZE_MAX && first_solver == SIZE_MAX) first_solver = j;
  }
  return 0;
}

/* sweep_read, and with need_sum a checkpoint's: its checksum line required. */
static int read_result(const char *path, sweep_meta *m, sweep_acc *a, const toi_msg *msg, int need_sum) {
  memset(m, 0, sizeof *m);
  memset(a, 0, sizeof *a);
  reader r = {path, 0, -1, NULL, NULL, msg, FNV_OFFSET, 0, -1};
  FILE *f = fopen(path, "re");
  if (!f) {
    say(&r, "%s: %s", path, strerror(errno));
    return -2;
  }
  struct stat st;
  int known = fstat(fileno(f), &st) == 0;
  if (known && S_ISDIR(st.st_mode)) {
    say(&r, "%s: is a directory, not a sweep result", path);
    fclose(f);
    return -2;
  }
  if (known && S_ISREG(st.st_mode)) r.size = (long long)st.st_size;
  int rc = read_body(&r, f, m, a);
  if (rc && ferror(f)) rc = -2; /* the read failed, not the file's content */
  if (!rc && need_sum && !r.sum_line)
    rc = bad_at(&r, 0, "no checksum line at the end: not a checkpoint written by sweep --checkpoint");
  if (!rc) rc = check_result(&r, m, a);
  fclose(f);
  free(r.bin_line);
  free(r.seen);
  return rc;
}

int sweep_read(const char *path, sweep_meta *m, sweep_acc *a, const toi_msg *msg) {
  return read_result(path, m, a, msg, 0);
}

int sweep_read_checkpoint(const char *path, sweep_meta *m, sweep_acc *a, const toi_msg *msg) {
  return read_result(path, m, a, msg, 1);
}

const char *sweep_kind_name(int k) {
  return (unsigned)k < TOI_SCORE_KIND_COUNT ? kind_names[k] : "invalid";
}
