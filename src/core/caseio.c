/* caseio.c: reading and writing case files (format v1). */
#define _GNU_SOURCE /* mkostemp */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <fcntl.h>
#include <sys/stat.h>
#include "numfmt.h"
#include "numparse.h"
#include <unistd.h>
#include "case_stream_tune.h"
#include "tempfile.h"
#include "textin.h"
#include "toi.h"

static const char *const names2[14] = {"id",   "dim",  "pA.x", "pA.y", "vA.x", "vA.y", "rA",
                                        "mA",   "pB.x", "pB.y", "vB.x", "vB.y", "rB",   "mB"};
static const char *const names3[18] = {"id",   "dim",  "pA.x", "pA.y", "pA.z", "vA.x",
                                        "vA.y", "vA.z", "rA",   "mA",   "pB.x", "pB.y",
                                        "pB.z", "vB.x", "vB.y", "vB.z", "rB",   "mB"};

const char *toi_field_name(int dim, int n) {
  if (dim == 3 && n >= 1 && n <= 18) return names3[n - 1];
  if (n >= 1 && n <= 14) return names2[n - 1];
  return "extra";
}

/* 1 for the bytes of an ID: letters, digits and ._:- (one load per byte). */
static const unsigned char id_chars[256] = {
    ['.'] = 1, ['_'] = 1, [':'] = 1, ['-'] = 1, ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1,
    ['5'] = 1, ['6'] = 1, ['7'] = 1, ['8'] = 1, ['9'] = 1, ['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1,
    ['e'] = 1, ['f'] = 1, ['g'] = 1, ['h'] = 1, ['i'] = 1, ['j'] = 1, ['k'] = 1, ['l'] = 1, ['m'] = 1,
    ['n'] = 1, ['o'] = 1, ['p'] = 1, ['q'] = 1, ['r'] = 1, ['s'] = 1, ['t'] = 1, ['u'] = 1, ['v'] = 1,
    ['w'] = 1, ['x'] = 1, ['y'] = 1, ['z'] = 1, ['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1, ['E'] = 1,
    ['F'] = 1, ['G'] = 1, ['H'] = 1, ['I'] = 1, ['J'] = 1, ['K'] = 1, ['L'] = 1, ['M'] = 1, ['N'] = 1,
    ['O'] = 1, ['P'] = 1, ['Q'] = 1, ['R'] = 1, ['S'] = 1, ['T'] = 1, ['U'] = 1, ['V'] = 1, ['W'] = 1,
    ['X'] = 1, ['Y'] = 1, ['Z'] = 1};

static int id_char(int ch) {
  return id_chars[(unsigned char)ch];
}

int toi_id_valid(const char *id) {
  size_t n = strlen(id);
  if (n == 0 || n > TOI_ID_MAX) return 0;
  for (size_t i = 0; i < n; i++)
    if (!id_char((unsigned char)id[i])) return 0;
  return 1;
}

/* Reads a whole token as the nearest double (toi_parse_double: decimal and
 * hex forms, as strtod reads them). "inf" and "nan" are refused because
 * every field must be finite. Underflow to a subnormal or zero is the
 * nearest double and is legal; overflow is not. */
static int parse_number(const char *tok, double *out, char *msg, size_t msgsz) {
  const char *p = tok;
  if (*p == '+' || *p == '-') p++;
  const int numeric = (*p >= '0' && *p <= '9') || (*p == '.' && p[1] >= '0' && p[1] <= '9');
  double x;
  toi_num_status st = numeric ? toi_parse_double(tok, &x) : TOI_NUM_SYNTAX;
  if (st == TOI_NUM_OK) {
    *out = x;
    return 0;
  }
  char shown[64];
  text_printable(tok, 40, shown, sizeof shown);
  if (st == TOI_NUM_OVERFLOW)
    snprintf(msg, msgsz, "'%s' is beyond the double range (overflow)", shown);
  else if (!numeric && (!strncasecmp(p, "nan", 3) || !strncasecmp(p, "inf", 3)))
    snprintf(msg, msgsz, "'%s' is not finite (NaN and Inf are not allowed)", shown);
  else
    snprintf(msg, msgsz, "'%s' is not a number", shown);
  return -1;
}

static int parse_fields(toi_case *c, char *buf, int *field, char *msg, size_t msgsz);

/* The numbers of a line after ID and DIM, in file order, into c (c->dim set). */
static void case_from_values(toi_case *c, const double *v) {
  int d = c->dim, k = 0;
  for (int i = 0; i < d; i++) c->pa[i] = v[k++];
  for (int i = 0; i < d; i++) c->va[i] = v[k++];
  c->ra = v[k++];
  c->ma = v[k++];
  for (int i = 0; i < d; i++) c->pb[i] = v[k++];
  for (int i = 0; i < d; i++) c->vb[i] = v[k++];
  c->rb = v[k++];
  c->mb = v[k++];
}

#if defined(__SSE2__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#include <emmintrin.h>
#define ID_SSE2 1
/* The bytes of x that are ID bytes (id_chars), one bit each: each range
   of bytes by one add and one signed compare (the range moved to start at
   -128): '-' to ':' without '/', the letters (either case, by the 0x20 bit),
   '_'. */
static inline unsigned id_mask16(__m128i x) {
  const __m128i pd = _mm_cmpgt_epi8(_mm_set1_epi8((char)(-128 + ':' - '-' + 1)), _mm_add_epi8(x, _mm_set1_epi8((char)(128 - '-'))));
  const __m128i slash = _mm_cmpeq_epi8(x, _mm_set1_epi8('/'));
  const __m128i l = _mm_add_epi8(_mm_or_si128(x, _mm_set1_epi8(0x20)), _mm_set1_epi8((char)(128 - 'a')));
  const __m128i let = _mm_cmpgt_epi8(_mm_set1_epi8((char)(-128 + 26)), l);
  const __m128i und = _mm_cmpeq_epi8(x, _mm_set1_epi8('_'));
  return (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_andnot_si128(slash, pd), _mm_or_si128(let, und)));
}

/* The ID bytes at the start of line (at least TOI_ID_MAX + 1 bytes readable
   from it): their count, 0 to TOI_ID_MAX + 1, found sixteen bytes at a time,
   and c->id written whole: those bytes, zeros after them (as the scalar
   path leaves it). */
static inline size_t id_scan_store(toi_case *c, const char *line) {
  _Static_assert(sizeof c->id == 64, "four 16-byte stores");
  __m128i v[4];
  size_t n = 64;
  for (int k = 0; k < 4; k++) v[k] = _mm_loadu_si128((const __m128i *)(const void *)(line + 16 * k));
  for (int k = 0; k < 4; k++) {
    unsigned m = id_mask16(v[k]);
    if (m != 0xffff) {
      n = (size_t)(16 * k + __builtin_ctz(~m));
      break;
    }
  }
  /* the sixteen bytes where the ID ends masked, those before it whole, zeros after */
  const __m128i iota = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  const size_t kn = n / 16; /* 0 to 4 */
  for (size_t k = 0; k < 4; k++) {
    __m128i w = _mm_setzero_si128();
    if (k < kn) w = v[k];
    else if (k == kn) w = _mm_and_si128(v[k], _mm_cmplt_epi8(iota, _mm_set1_epi8((char)(n % 16))));
    _mm_storeu_si128((__m128i *)(void *)(c->id + 16 * k), w);
  }
  return n;
}
#endif

/* The common line, read in one pass without copying it: blank-separated
 * fields, a valid ID, DIM 2 or 3, the right number of numbers (read in
 * place, up to the blank after each), all of them finite, the radii and
 * masses legal. 1 when c is filled exactly as parse_fields fills it; 0 for
 * anything else (a tab, a control byte, a word, a bad field...), which
 * the general path then reads and names. Every byte of c is written once
 * (the ID's array zero after the ID, the padding after dim zero, a 2D
 * case's third components zero), the same bytes as a zeroed case filled in. */
static int parse_line_fast(toi_case *c, const char *line, const char *lim) {
  _Static_assert(offsetof(toi_case, pa) + 16 * sizeof(double) == sizeof(toi_case) &&
                     offsetof(toi_case, mb) == offsetof(toi_case, pa) + 15 * sizeof(double),
                 "the numbers of a 3D line are the case's doubles in order, with nothing after them");
  const unsigned char *p = (const unsigned char *)line;
  size_t n = 0;
#ifdef ID_SSE2
  if (lim - line > TOI_ID_MAX) {
    n = id_scan_store(c, line);
  } else
#endif
  {
    memset(c->id, 0, sizeof c->id);
    while (n <= TOI_ID_MAX && id_char(p[n])) n++;
    if (n <= TOI_ID_MAX) memcpy(c->id, p, n);
  }
  if (n == 0 || n > TOI_ID_MAX || p[n] != ' ') return 0;
  p += n;
  while (*p == ' ') p++;
  if ((*p != '2' && *p != '3') || p[1] != ' ') return 0;
  /* dim, and zeros in the padding up to pa */
  unsigned char head[offsetof(toi_case, pa) - offsetof(toi_case, dim)] = {0};
  const int dim = *p - '0';
  memcpy(head, &dim, sizeof dim);
  memcpy((char *)c + offsetof(toi_case, dim), head, sizeof head);
  p += 2;
  const char *end;
  /* parse_number's test on each field, then the number read in place up to the blank or the end: a 3D
     line's straight into the case (its order is the case's), a 2D line's moved there with zero z */
  if (dim == 3) {
    if (!toi_parse_double_fields((const char *)p, lim, 16, (double *)(void *)((char *)c + offsetof(toi_case, pa)), &end)) return 0;
  } else {
    double v[12];
    if (!toi_parse_double_fields((const char *)p, lim, 12, v, &end)) return 0;
    c->pa[0] = v[0], c->pa[1] = v[1], c->pa[2] = 0;
    c->va[0] = v[2], c->va[1] = v[3], c->va[2] = 0;
    c->ra = v[4], c->ma = v[5];
    c->pb[0] = v[6], c->pb[1] = v[7], c->pb[2] = 0;
    c->vb[0] = v[8], c->vb[1] = v[9], c->vb[2] = 0;
    c->rb = v[10], c->mb = v[11];
  }
  p = (const unsigned char *)end;
  while (*p == ' ') p++;
  if (*p) return 0;
  /* Beyond TOI_LINE_MAX the general path refuses the line, as the readers say (their check leaves room
     for a CR, taken off before this). */
  if ((size_t)((const char *)p - line) > TOI_LINE_MAX) return 0;
  return c->ra >= 0 && c->ma > 0 && c->rb >= 0 && c->mb > 0;
}

/* A line is split in a copy: on the stack when short, as written lines are
 * (at most 24 characters a number in hex or %.17g), else on the heap, up to
 * TOI_LINE_MAX characters, so that exact decimal expansions (1076 digits for
 * the smallest subnormal) are read too. lim: the end of the bytes that may be
 * read, past the line's NUL, or line itself (toi_parse_double_span). */
static int parse_case_line(toi_case *c, const char *line, const char *lim, int *field, char *msg, size_t msgsz) {
  if (parse_line_fast(c, line, lim)) return 0;
  char small[1024];
  size_t len = strlen(line);
  memset(c, 0, sizeof *c); /* callers read c->dim to name a field, whatever fails */
  if (len > TOI_LINE_MAX) {
    *field = 0;
    snprintf(msg, msgsz, "line is longer than %d characters", TOI_LINE_MAX);
    return -1;
  }
  char *buf = len < sizeof small ? small : malloc(len + 1);
  if (!buf) {
    *field = 0;
    snprintf(msg, msgsz, "out of memory for a line of %zu characters", len);
    return -2; /* toi_parse_case_line's TOI_ERR_NOMEM */
  }
  memcpy(buf, line, len + 1);
  int r = parse_fields(c, buf, field, msg, msgsz);
  if (buf != small) free(buf);
  return r;
}

toi_status toi_parse_case_line(toi_case *c, const char *line, int *field, const toi_msg *msg) {
  int f = 0;
  char why[256];
  if (!c || !line) return TOI_ERR_RANGE;
  int r = parse_case_line(c, line, line, &f, why, sizeof why);
  if (field) *field = r ? f : 0;
  if (!r) return TOI_OK;
  toi_msgf(msg, "%s", why);
  return r == -2 ? TOI_ERR_NOMEM : TOI_ERR_INPUT;
}

/* Splits buf in place at blanks: the first 20 fields in tok, their count returned. */
static int split_fields(char *buf, char *tok[20]) {
  int n = 0;
  for (char *p = buf; *p;) {
    while (*p == ' ' || *p == '\t') p++;
    if (!*p) break;
    if (n < 20) tok[n] = p;
    n++;
    while (*p && *p != ' ' && *p != '\t') p++;
    if (*p) *p++ = '\0';
  }
  return n;
}

/* Radii >= 0 and masses > 0, the first that is not named. */
static int check_radii_masses(const toi_case *c, int *field, char *msg, size_t msgsz) {
  int d = c->dim, ra_f = 2 * d + 3, ma_f = ra_f + 1, rb_f = 4 * d + 5, mb_f = rb_f + 1;
  if (c->ra < 0) {
    *field = ra_f;
    snprintf(msg, msgsz, "radius must be >= 0, found %.6g", c->ra);
    return -1;
  }
  if (!(c->ma > 0)) {
    *field = ma_f;
    snprintf(msg, msgsz, "mass must be > 0, found %.6g", c->ma);
    return -1;
  }
  if (c->rb < 0) {
    *field = rb_f;
    snprintf(msg, msgsz, "radius must be >= 0, found %.6g", c->rb);
    return -1;
  }
  if (!(c->mb > 0)) {
    *field = mb_f;
    snprintf(msg, msgsz, "mass must be > 0, found %.6g", c->mb);
    return -1;
  }
  return 0;
}

/* The fields of the line in buf (split in place). */
static int parse_fields(toi_case *c, char *buf, int *field, char *msg, size_t msgsz) {
  char *tok[20], shown[64];
  int n = split_fields(buf, tok);
  for (int i = 0; i < n && i < 20; i++) {
    int ctrl = text_control_byte(tok[i]);
    if (ctrl >= 0) {
      *field = i + 1;
      snprintf(msg, msgsz, "control character 0x%02x in the field", ctrl);
      if (n >= 2 && !strcmp(tok[1], "3")) c->dim = 3; /* so that field names the 3D layout */
      return -1;
    }
  }
  if (n < 2) {
    *field = 2;
    snprintf(msg, msgsz, "missing (expected 14 fields (2D) or 18 fields (3D), found %d)", n);
    return -1;
  }
  if (!toi_id_valid(tok[0])) {
    *field = 1;
    if (strlen(tok[0]) > TOI_ID_MAX)
      snprintf(msg, msgsz, "ID longer than %d characters", TOI_ID_MAX);
    else
      snprintf(msg, msgsz, "ID '%s' has a character outside letters, digits and ._:-",
               text_printable(tok[0], 40, shown, sizeof shown));
    return -1;
  }
  strcpy(c->id, tok[0]);
  if (!strcmp(tok[1], "2"))
    c->dim = 2;
  else if (!strcmp(tok[1], "3"))
    c->dim = 3;
  else {
    *field = 2;
    snprintf(msg, msgsz, "DIM must be 2 or 3, found '%s'", text_printable(tok[1], 40, shown, sizeof shown));
    return -1;
  }
  int want = c->dim == 2 ? 14 : 18;
  if (n != want) {
    /* Name the first field that is missing, or the first one too many. */
    *field = n < want ? n + 1 : want + 1;
    snprintf(msg, msgsz, "%s (expected %d fields for DIM %d, found %d)",
             n < want ? "missing" : "one field too many", want, c->dim, n);
    return -1;
  }
  double v[18];
  for (int i = 2; i < want; i++) {
    if (parse_number(tok[i], &v[i], msg, msgsz)) {
      *field = i + 1;
      return -1;
    }
  }
  case_from_values(c, v + 2);
  return check_radii_masses(c, field, msg, msgsz);
}

void toi_caselist_free(toi_caselist *list) {
  free(list->items);
  list->items = NULL;
  list->count = list->cap = 0;
}

toi_status toi_caselist_push(toi_caselist *list, const toi_case *c) {
  if (list->count == list->cap) {
    size_t cap = list->cap ? 2 * list->cap : 64;
    toi_case *p = realloc(list->items, cap * sizeof *p);
    if (!p) return TOI_ERR_NOMEM;
    list->items = p;
    list->cap = cap;
  }
  list->items[list->count++] = *c;
  return TOI_OK;
}

static void add_diag(toi_diags *dg, const char *name, long line, int field, int dim, const char *msg) {
  dg->total++;
  if (dg->count >= TOI_DIAG_MAX) return;
  toi_diag *d = &dg->items[dg->count++];
  snprintf(d->file, sizeof d->file, "%s", name);
  d->line = line;
  d->field = field;
  snprintf(d->field_name, sizeof d->field_name, "%s", field ? toi_field_name(dim, field) : "");
  snprintf(d->message, sizeof d->message, "%s", msg);
}

void toi_diag_format(const toi_diag *d, char *buf, size_t bufsz) {
  if (d->line == 0)
    snprintf(buf, bufsz, "%s: %s", d->file, d->message);
  else if (d->field == 0)
    snprintf(buf, bufsz, "%s:%ld: %s", d->file, d->line, d->message);
  else
    snprintf(buf, bufsz, "%s:%ld: field %d (%s): %s", d->file, d->line, d->field, d->field_name,
             d->message);
}

/* Duplicate IDs are found with an open-addressing table of indices into the
 * new cases, so a file of millions of cases stays linear. */
static uint64_t hash_id(const char *s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

/* The cases a file has given so far, the line of each, and an
   open-addressing table of their indices by ID (a power of two in size, at
   most half full). */
typedef struct case_reader {
  toi_caselist local;
  long *lines;
  size_t lines_cap;
  size_t *table, tcap;
} case_reader;

static void case_reader_free(case_reader *r) {
  free(r->table);
  free(r->lines);
  toi_caselist_free(&r->local);
}

/* Doubles the ID table when the case just pushed would fill it past half,
   re-inserting every earlier case; -1 when out of memory. */
static int grow_id_table(case_reader *r) {
  if (2 * r->local.count <= r->tcap) return 0;
  size_t ncap = r->tcap ? 2 * r->tcap : 256;
  size_t *nt = malloc(ncap * sizeof *nt);
  if (!nt) return -1;
  for (size_t i = 0; i < ncap; i++) nt[i] = SIZE_MAX;
  for (size_t i = 0; i + 1 < r->local.count; i++) {
    size_t h = hash_id(r->local.items[i].id) & (ncap - 1);
    while (nt[h] != SIZE_MAX) h = (h + 1) & (ncap - 1);
    nt[h] = i;
  }
  free(r->table);
  r->table = nt;
  r->tcap = ncap;
  return 0;
}

/* Keeps case c of line lineno, unless its ID was seen before: then a
   diagnostic names the first line and c is dropped. */
static toi_status keep_case(case_reader *r, const toi_case *c, long lineno, const char *name,
                            toi_diags *diags) {
  toi_status st = toi_caselist_push(&r->local, c);
  if (st != TOI_OK) return st;
  if (r->local.count > r->lines_cap) {
    r->lines_cap = r->lines_cap ? 2 * r->lines_cap : 64;
    long *nl2 = realloc(r->lines, r->lines_cap * sizeof *r->lines);
    if (!nl2) return TOI_ERR_NOMEM;
    r->lines = nl2;
  }
  r->lines[r->local.count - 1] = lineno;
  if (grow_id_table(r)) return TOI_ERR_NOMEM;
  size_t h = hash_id(c->id) & (r->tcap - 1);
  while (r->table[h] != SIZE_MAX) {
    if (!strcmp(r->local.items[r->table[h]].id, c->id)) {
      char msg[160];
      snprintf(msg, sizeof msg, "duplicate ID '%.40s' (first on line %ld)", c->id, r->lines[r->table[h]]);
      add_diag(diags, name, lineno, 1, c->dim, msg);
      r->local.count--;
      return TOI_OK;
    }
    h = (h + 1) & (r->tcap - 1);
  }
  r->table[h] = r->local.count - 1;
  return TOI_OK;
}

toi_status toi_parse_cases(toi_caselist *list, const char *name, const char *text, size_t len,
                           toi_diags *diags) {
  case_reader r = {0};
  toi_status st = TOI_OK;
  size_t first_diag = diags->total;
  char *linebuf = NULL;
  size_t linecap = 0;
  long lineno = 0;
  int nonempty = 0;

  const size_t bom = text_bom_len(text, len);
  text += bom;
  len -= bom;
  const long nul = text_nul_line(text, len);
  if (nul) {
    add_diag(diags, name, nul, 0, 2, "NUL byte in the file (not a text file)");
    return TOI_ERR_INPUT;
  }
  for (size_t pos = 0; pos < len;) {
    const char *start = text + pos;
    const char *nl = memchr(start, '\n', len - pos);
    size_t l = nl ? (size_t)(nl - start) : len - pos;
    pos += l + (nl ? 1 : 0);
    lineno++;
    if (l > 0 && start[l - 1] == '\r') l--; /* CRLF files are accepted */
    if (l + 1 > linecap) {
      linecap = l + 1 > 256 ? l + 1 : 256;
      char *nb = realloc(linebuf, linecap);
      if (!nb) {
        st = TOI_ERR_NOMEM;
        goto out;
      }
      linebuf = nb;
    }
    memcpy(linebuf, start, l);
    linebuf[l] = '\0';
    const char *p = linebuf;
    while (*p == ' ' || *p == '\t') p++;
    if (*p == '\0' || *p == '#') continue;
    nonempty = 1;
    toi_case c;
    int field = 0;
    char msg[160];
    if (parse_case_line(&c, p, linebuf + l + 1, &field, msg, sizeof msg)) {
      add_diag(diags, name, lineno, field, c.dim ? c.dim : 2, msg);
      continue;
    }
    if ((st = keep_case(&r, &c, lineno, name, diags)) != TOI_OK) goto out;
  }
  if (diags->total > first_diag) {
    st = TOI_ERR_INPUT;
    goto out;
  }
  if (!nonempty) {
    add_diag(diags, name, 0, 0, 2, "no cases (the file is empty or holds only comments)");
    st = TOI_ERR_INPUT;
    goto out;
  }
  for (size_t i = 0; i < r.local.count; i++)
    if ((st = toi_caselist_push(list, &r.local.items[i])) != TOI_OK) goto out;
out:
  free(linebuf);
  case_reader_free(&r);
  return st;
}

/* What toi_read_file has seen of a text so far: where the current line
   started and its number, to stop at the first line no reader accepts. */
typedef struct text_watch {
  size_t line_start;
  long line;
} text_watch;

/* Checks the bytes buf[from .. n) as they arrive: a NUL byte (not a text
   file) or a line longer than TOI_LINE_MAX (a CR before its end allowed)
   ends the reading at once, recorded in diags. 0, or -1 to stop. */
static int watch_text(text_watch *w, const char *buf, size_t from, size_t n, const char *name, toi_diags *diags) {
  const char *z = memchr(buf + from, '\0', n - from);
  size_t end = z ? (size_t)(z - buf) : n;
  for (size_t p = from; p < end;) {
    const char *nl = memchr(buf + p, '\n', end - p);
    size_t stop = nl ? (size_t)(nl - buf) : end;
    if (stop - w->line_start > (size_t)TOI_LINE_MAX + 1) {
      char msg[160];
      snprintf(msg, sizeof msg, "line is longer than %d characters", TOI_LINE_MAX);
      add_diag(diags, name, w->line, 0, 2, msg);
      return -1;
    }
    if (!nl) break;
    p = stop + 1;
    w->line_start = p;
    w->line++;
  }
  if (z) {
    add_diag(diags, name, w->line, 0, 2, "NUL byte in the file (not a text file)");
    return -1;
  }
  return 0;
}

/* "larger than TOI_INPUT_MAX bytes", recorded in diags: TOI_ERR_INPUT. */
static toi_status too_large(const char *name, toi_diags *diags) {
  char msg[160];
  snprintf(msg, sizeof msg, "larger than %zu bytes, the most an input may hold", (size_t)TOI_INPUT_MAX);
  add_diag(diags, name, 0, 0, 2, msg);
  return TOI_ERR_INPUT;
}

/* Reads f to its end into *buf (malloc'ed) and *n, stopping at once at the
   first byte no text reader accepts (watch_text) or at byte TOI_INPUT_MAX + 1
   (the room never grows past that): TOI_OK, TOI_ERR_INPUT (recorded in
   diags) or TOI_ERR_NOMEM. */
static toi_status read_bounded(FILE *f, const char *name, char **buf, size_t *n, toi_diags *diags) {
  const size_t most = (size_t)TOI_INPUT_MAX + 1; /* one byte more than an input may hold */
  size_t cap = 1 << 16;
  text_watch w = {0, 1};
  *n = 0;
  if (!(*buf = malloc(cap))) return TOI_ERR_NOMEM;
  for (;;) {
    if (*n == cap) {
      if (cap == most) return too_large(name, diags);
      size_t nc = cap > most / 2 ? most : 2 * cap;
      char *nb = realloc(*buf, nc);
      if (!nb) return TOI_ERR_NOMEM;
      *buf = nb;
      cap = nc;
    }
    size_t got = fread(*buf + *n, 1, cap - *n, f);
    if (got == 0) return TOI_OK;
    if (watch_text(&w, *buf, *n, *n + got, name, diags)) return TOI_ERR_INPUT;
    *n += got;
  }
}

toi_status toi_read_file(char **text, size_t *len, const char *path, toi_diags *diags) {
  *text = NULL;
  *len = 0;
  int is_stdin = !strcmp(path, "-");
  FILE *f = is_stdin ? stdin : fopen(path, "rbe");
  struct stat sb;
  int known = f && fstat(fileno(f), &sb) == 0;
  if (known && !is_stdin && S_ISDIR(sb.st_mode)) {
    fclose(f);
    add_diag(diags, path, 0, 0, 2, "is a directory, not a file to read");
    return TOI_ERR_IO;
  }
  if (!f) {
    char msg[160];
    snprintf(msg, sizeof msg, "cannot open: %s", strerror(errno));
    add_diag(diags, path, 0, 0, 2, msg);
    return TOI_ERR_IO;
  }
  /* A regular file's size is known before reading: a larger one is refused unread. */
  if (known && S_ISREG(sb.st_mode) && (uintmax_t)sb.st_size > (uintmax_t)TOI_INPUT_MAX) {
    if (!is_stdin) fclose(f);
    return too_large(is_stdin ? "<stdin>" : path, diags);
  }
  char *buf;
  size_t n;
  toi_status st = read_bounded(f, is_stdin ? "<stdin>" : path, &buf, &n, diags);
  if (st == TOI_OK && ferror(f)) {
    add_diag(diags, path, 0, 0, 2, "read error");
    st = TOI_ERR_IO;
  }
  if (!is_stdin) fclose(f);
  if (st != TOI_OK) {
    free(buf);
    return st;
  }
  *text = buf;
  *len = n;
  return TOI_OK;
}

toi_status toi_read_cases(toi_caselist *list, const char *path, toi_diags *diags) {
  char *buf;
  size_t len;
  toi_status st = toi_read_file(&buf, &len, path, diags);
  if (st != TOI_OK) return st;
  st = toi_parse_cases(list, strcmp(path, "-") ? path : "<stdin>", buf, len, diags);
  free(buf);
  return st;
}

int toi_format_case(char *buf, size_t bufsz, const toi_case *c) {
  size_t n = 0;
  int w = snprintf(buf, bufsz, "%s %d", c->id, c->dim);
  if (w < 0) return w;
  n = (size_t)w;
  double v[18];
  int k = 0;
  for (int i = 0; i < c->dim; i++) v[k++] = c->pa[i];
  for (int i = 0; i < c->dim; i++) v[k++] = c->va[i];
  v[k++] = c->ra;
  v[k++] = c->ma;
  for (int i = 0; i < c->dim; i++) v[k++] = c->pb[i];
  for (int i = 0; i < c->dim; i++) v[k++] = c->vb[i];
  v[k++] = c->rb;
  v[k++] = c->mb;
  for (int i = 0; i < k; i++) { /* " %a" each, cut short as snprintf would */
    char num[TOI_FMT_MAX + 1] = " ";
    size_t m = 1 + toi_fmt_hex(num + 1, v[i]);
    if (n < bufsz) {
      size_t fit = m < bufsz - n - 1 ? m : bufsz - n - 1;
      memcpy(buf + n, num, fit);
      buf[n + fit] = '\0';
    }
    n += m;
  }
  return (int)n;
}

toi_status toi_write_case(FILE *f, const toi_case *c) {
  char buf[1024];
  if (!f || !c) return TOI_ERR_RANGE;
  int n = toi_format_case(buf, sizeof buf, c);
  if (n < 0 || (size_t)n >= sizeof buf) return TOI_ERR_RANGE;
  buf[n] = '\n';
  return fwrite(buf, 1, (size_t)n + 1, f) == (size_t)n + 1 ? TOI_OK : TOI_ERR_IO;
}

/* ---- a case file read a block at a time ---- */

/* An unnamed file of dir, or NULL. */
static FILE *temp_in(const char *dir) {
  int fd = -1;
#ifdef O_TMPFILE
  fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
#endif
  if (fd < 0) {
    char path[4096];
    if (snprintf(path, sizeof path, "%s/toibench.XXXXXX", dir) >= (int)sizeof path) {
      errno = ENAMETOOLONG;
      return NULL;
    }
    fd = mkostemp(path, O_CLOEXEC);
    if (fd >= 0) unlink(path);
  }
  FILE *f = fd >= 0 ? fdopen(fd, "w+") : NULL;
  if (!f && fd >= 0) close(fd);
  return f;
}

FILE *toi_temp_file(void) {
  const char *dir = getenv("TMPDIR");
  FILE *f = dir && *dir ? temp_in(dir) : NULL;
  return f ? f : temp_in("/tmp");
}

/* The IDs of a file's valid lines, for exact duplicate detection in memory
   that does not grow with the file: each (hash, line, ID) record goes to one
   of ID_BUCKETS buckets by its hash's top bits. A bucket keeps its newest
   ID_CHUNK bytes in memory; a full chunk is appended to one unnamed temporary
   file shared by every bucket (made at the first full chunk, so a small file
   makes none). At the end of the file each bucket in turn is read back and
   its records, in line order, put in a hash table of each ID's first line. Memory:
   at most ID_BUCKETS * ID_CHUNK bytes (2 MB) and 12 bytes a chunk while
   reading (17 bytes + the ID a record on disk), the largest bucket (1/256 of
   the records, and 32 bytes a record) at the end. */
#define ID_BUCKETS 256
#define ID_CHUNK 8192

typedef struct id_chunk {
  off_t at;
  uint32_t len;
} id_chunk;

typedef struct id_spill {
  FILE *f;     /* the full chunks of every bucket, or NULL while none is full */
  off_t fend;  /* bytes written to f */
  unsigned char *mem[ID_BUCKETS]; /* each bucket's newest chunk, ID_CHUNK bytes */
  size_t used[ID_BUCKETS];
  id_chunk *chunks[ID_BUCKETS];   /* where its full chunks are in f */
  size_t nchunks[ID_BUCKETS], capchunks[ID_BUCKETS];
  uint64_t n[ID_BUCKETS];
} id_spill;

/* A duplicate found: its line and the first line of its ID. */
typedef struct id_dup {
  long line, first;
  char id[TOI_ID_MAX + 1];
} id_dup;

/* The first TOI_DIAG_MAX duplicates by line, and how many there are. */
typedef struct id_dups {
  id_dup v[TOI_DIAG_MAX];
  size_t kept, total;
} id_dups;

/* The IDs of a regular file, checked in memory first: only their 64-bit
   hashes are kept, 8 bytes an ID, in ID_BUCKETS arrays by the hash's top bits
   (appended in turn: no lookup while the file is read). At its end each
   array is put in a small open-addressing table (its bucket, 1/256 of the
   IDs, stays in the caches): no hash seen twice means no duplicate ID. A hash
   seen twice may be a duplicate (or two IDs of the same hash), and the file's
   IDs are then checked exactly by reading it again (rescan_ids) into the
   spill. Past ID_MEM_MAX IDs the next ones go to the spill, whose duplicates
   are found exactly among themselves, and whose hashes are looked up in the
   tables at the end (a hit: the same rescan). Memory: at most 8 ID_MEM_MAX
   bytes of hashes (16 MB), twice that with the arrays' room to grow.
   Standard input and other files that cannot be read twice keep every ID in
   the spill (max 0). */
#define ID_MEM_MAX ((size_t)1 << 21)

/* Bytes asked of each read of a case stream (the buffer grows past it only
   for a line that does not fit). */
#define STREAM_READ_BYTES ((size_t)1 << 18)

typedef struct id_mem {
  uint64_t *h[ID_BUCKETS];
  size_t n[ID_BUCKETS], cap[ID_BUCKETS];
  size_t total, max;
  uint64_t (*hash)(const char *id, size_t len);
  int hit; /* a hash was seen twice: the file's IDs are checked again at its end */
} id_mem;

struct toi_case_stream {
  id_mem mem;
  /* bucket k of mem found to hold no hash twice, and no ID of the spill
     with it, before close (toi_case_stream_check_ids): not filled again */
  unsigned char clean[ID_BUCKETS];
  int fd, is_stdin, eof, started, nonempty;
  int accepted;    /* a block of lines accepted (read whole, their lines made elsewhere) */
  int ranged;      /* read by ranges (toi_case_stream_read_range) */
  uint64_t next_range; /* the range toi_case_stream_read_range takes next */
  char name[256], path[256];
  char *buf;       /* bytes read, [pos, end) not yet consumed */
  size_t pos, end, cap, scanned;
  size_t nul;      /* where the first NUL byte of buf is, or SIZE_MAX: each read searched once */
  long lineno;     /* lines consumed */
  size_t first_diag;
  toi_status fail;    /* a NUL byte, an overlong line or a read error: the file ends */
  long fail_line;
  char fail_msg[160];
  size_t first_count;
  id_spill ids;
};

__extension__ typedef unsigned __int128 u128;

/* The xor of the two halves of a * b: every bit of the product depends on
   most bits of a and b. */
static inline uint64_t id_mum(uint64_t a, uint64_t b) {
  const u128 p = (u128)a * b;
  return (uint64_t)p ^ (uint64_t)(p >> 64);
}

/* Eight bytes of an ID array at p as a word, the first byte the lowest. */
static inline uint64_t id_word(const char *p) {
  uint64_t w;
  memcpy(&w, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  w = __builtin_bswap64(w);
#endif
  return w;
}

/* The hash of the len bytes of an ID in its array of TOI_ID_MAX + 1, read
   sixteen bytes at a time (the bytes past len masked off), each sixteen
   folded in by one 64x64-bit multiply, then mixed once more so that its top
   bits pick a bucket evenly. */
static uint64_t id_hash(const char id[TOI_ID_MAX + 1], size_t len) {
  _Static_assert((TOI_ID_MAX + 1) % 16 == 0, "sixteen bytes at a time stay inside the array");
  uint64_t h = len * 0x9e3779b97f4a7c15ull;
  for (size_t i = 0; i < len; i += 16) {
    uint64_t w0 = id_word(id + i), w1 = id_word(id + i + 8);
    const size_t rem = len - i; /* 1 or more */
    if (rem < 16) { /* the bytes of the ID alone */
      w1 = rem > 8 ? w1 & ~UINT64_C(0) >> (128 - 8 * rem) : 0;
      if (rem < 8) w0 &= ~UINT64_C(0) >> (64 - 8 * rem);
    }
    h = id_mum(w0 ^ h ^ 0xa0761d6478bd642full, w1 ^ 0xe7037ed1a0b428dbull);
  }
  return id_mum(h ^ 0x8ebc6af09c88c6e3ull, 0x589965cc75374cc3ull);
}

/* Moves bucket k's chunk in memory to the end of the file: 0 or -1. */
static int id_spill_flush(id_spill *s, size_t k) {
  if (!s->f && !(s->f = toi_temp_file())) return -1;
  if (s->nchunks[k] == s->capchunks[k]) {
    size_t nc = s->capchunks[k] ? 2 * s->capchunks[k] : 16;
    id_chunk *c = realloc(s->chunks[k], nc * sizeof *c);
    if (!c) return -1;
    s->chunks[k] = c;
    s->capchunks[k] = nc;
  }
  if (fwrite(s->mem[k], 1, s->used[k], s->f) != s->used[k]) return -1;
  s->chunks[k][s->nchunks[k]++] = (id_chunk){s->fend, (uint32_t)s->used[k]};
  s->fend += (off_t)s->used[k];
  s->used[k] = 0;
  return 0;
}

/* Appends the ID of line to its bucket: 0 or -1. The ID is copied eight
   bytes at a time from its array, so up to 7 bytes past the record are
   written too (kept inside the chunk). */
static int id_spill_add(id_spill *s, const char id[TOI_ID_MAX + 1], size_t len, uint64_t h, long line) {
  size_t k = (size_t)(h >> 56);
  if (!s->mem[k] && !(s->mem[k] = malloc(ID_CHUNK))) return -1;
  int64_t ln = line;
  size_t rec = sizeof h + sizeof ln + 1 + len;
  if (s->used[k] + rec + 7 > ID_CHUNK && id_spill_flush(s, k)) return -1;
  unsigned char *p = s->mem[k] + s->used[k];
  memcpy(p, &h, sizeof h);
  memcpy(p + sizeof h, &ln, sizeof ln);
  p[sizeof h + sizeof ln] = (unsigned char)len;
  for (size_t i = 0; i < len; i += 8) memcpy(p + sizeof h + sizeof ln + 1 + i, id + i, 8);
  s->used[k] += rec;
  s->n[k]++;
  return 0;
}

static uint64_t id_hash_of(const char *id, size_t len) {
  return id_hash(id, len);
}

/* Keeps hash h in the set: 1, or 0 when the set is full (the ID then goes to
   the spill). */
static int id_mem_add(id_mem *m, uint64_t h) {
  size_t k = (size_t)(h >> 56);
  if (m->total >= m->max) return 0;
  if (m->n[k] == m->cap[k]) {
    size_t nc = m->cap[k] ? 2 * m->cap[k] : 64;
    uint64_t *nh = realloc(m->h[k], nc * sizeof *nh);
    if (!nh) {
      m->max = m->total; /* no room for a larger set: the spill from now on */
      return 0;
    }
    m->h[k] = nh;
    m->cap[k] = nc;
  }
  m->h[k][m->n[k]++] = h;
  m->total++;
  return 1;
}

static void id_mem_reset(id_mem *m) {
  for (size_t k = 0; k < ID_BUCKETS; k++) {
    free(m->h[k]);
    m->h[k] = NULL;
    m->n[k] = m->cap[k] = 0;
  }
  m->total = 0;
  m->hit = 0;
}

/* A bucket's hashes as an open-addressing table (0 for an empty slot, a hash
   of 0 kept as 1), cap a power of two. */
typedef struct id_table {
  uint64_t *slot;
  size_t cap;
} id_table;

static uint64_t id_table_key(uint64_t h) {
  return h + !h;
}

/* 1 when hash h is in t. */
static int id_table_has(const id_table *t, uint64_t h) {
  if (!t->cap) return 0;
  h = id_table_key(h);
  for (size_t at = (size_t)h & (t->cap - 1); t->slot[at]; at = (at + 1) & (t->cap - 1))
    if (t->slot[at] == h) return 1;
  return 0;
}

/* Bucket k of the set as a table in t (its slots reused from bucket to
   bucket), *hit set when a hash is there twice: 0 or -1. Reads m alone. */
static int id_table_build(id_table *t, const id_mem *m, size_t k, uint64_t **buf, size_t *bufcap, int *hit) {
  size_t cap = 16;
  while (cap < 2 * m->n[k]) cap *= 2;
  if (cap > *bufcap) {
    free(*buf);
    *bufcap = 0;
    if (!(*buf = malloc(cap * sizeof **buf))) return -1;
    *bufcap = cap;
  }
  t->slot = *buf;
  t->cap = cap;
  memset(t->slot, 0, cap * sizeof *t->slot);
  for (size_t i = 0; i < m->n[k]; i++) {
    uint64_t h = id_table_key(m->h[k][i]);
    size_t at = (size_t)h & (cap - 1);
    for (; t->slot[at]; at = (at + 1) & (cap - 1))
      if (t->slot[at] == h) {
        *hit = 1; /* enough: the file is checked again (and many equal hashes would make long runs) */
        return 0;
      }
    t->slot[at] = h;
  }
  return 0;
}

/* The same, m->hit set when a hash is there twice. */
static int id_table_fill(id_table *t, id_mem *m, size_t k, uint64_t **buf, size_t *bufcap) {
  return id_table_build(t, m, k, buf, bufcap, &m->hit);
}

static void id_spill_free(id_spill *s) {
  if (s->f) fclose(s->f);
  for (int k = 0; k < ID_BUCKETS; k++) {
    free(s->mem[k]);
    free(s->chunks[k]);
  }
  memset(s, 0, sizeof *s);
}

typedef struct id_rec {
  uint64_t h;
  int64_t line;
  const unsigned char *id; /* its len bytes in the bucket's bytes */
  size_t len;
} id_rec;

static void dup_keep(id_dups *d, long line, long first, const unsigned char *id, size_t len) {
  d->total++;
  size_t i = d->kept;
  if (i == TOI_DIAG_MAX) {
    if (line > d->v[i - 1].line) return;
    i--;
  } else {
    d->kept++;
  }
  for (; i > 0 && d->v[i - 1].line > line; i--) d->v[i] = d->v[i - 1];
  d->v[i].line = line;
  d->v[i].first = first;
  snprintf(d->v[i].id, sizeof d->v[i].id, "%.*s", (int)len, (const char *)id);
}

/* Bucket k's bytes, its chunks in the file then the one in memory, in a
   new buffer of *size bytes: the buffer, or NULL. */
static unsigned char *id_bucket_bytes(id_spill *s, size_t k, size_t *size) {
  size_t total = s->used[k];
  for (size_t i = 0; i < s->nchunks[k]; i++) total += s->chunks[k][i].len;
  unsigned char *raw = malloc(total ? total : 1);
  if (!raw || (s->f && fflush(s->f))) {
    free(raw);
    return NULL;
  }
  size_t at = 0;
  for (size_t i = 0; i < s->nchunks[k]; i++) {
    const id_chunk *c = &s->chunks[k][i];
    for (size_t got = 0; got < c->len;) {
      ssize_t r = pread(fileno(s->f), raw + at + got, c->len - got, c->at + (off_t)got);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) {
        free(raw);
        return NULL;
      }
      got += (size_t)r;
    }
    at += c->len;
  }
  if (s->used[k]) memcpy(raw + at, s->mem[k], s->used[k]);
  *size = total;
  return raw;
}

/* The duplicates of bucket k: 0 or -1; *hit set when the hash of one of its
   IDs is in t (the set's bucket k). */
static int id_bucket_dups(id_spill *s, size_t k, id_dups *d, const id_table *t, int *hit) {
  uint64_t n = s->n[k];
  size_t size = 0;
  unsigned char *raw = id_bucket_bytes(s, k, &size);
  id_rec *r = raw ? malloc((size_t)(n ? n : 1) * sizeof *r) : NULL;
  int rc = -1;
  if (!r) goto out;
  const unsigned char *q = raw;
  for (uint64_t i = 0; i < n; i++) {
    if ((size_t)(q - raw) + 17 > size) goto out;
    memcpy(&r[i].h, q, sizeof r[i].h);
    memcpy(&r[i].line, q + 8, sizeof r[i].line);
    size_t len = q[16];
    if ((size_t)(q - raw) + 17 + len > size) goto out;
    r[i].id = q + 17;
    r[i].len = len;
    if (id_table_has(t, r[i].h)) *hit = 1;
    q += 17 + len;
  }
  /* The records are in line order (blocks are accepted in input order):
     an open-addressing table of the first record of each ID, by hash; a
     record whose ID is already there is a duplicate of that first line. */
  size_t cap = 16;
  while (cap < 2 * (size_t)n) cap *= 2;
  uint32_t *slot = calloc(cap, sizeof *slot); /* record index + 1, 0 empty */
  if (!slot) goto out;
  for (uint64_t i = 0; i < n; i++) {
    size_t at = (size_t)r[i].h & (cap - 1);
    for (; slot[at]; at = (at + 1) & (cap - 1)) {
      const id_rec *f = &r[slot[at] - 1];
      if (f->h == r[i].h && f->len == r[i].len && !memcmp(f->id, r[i].id, f->len)) break;
    }
    if (slot[at])
      dup_keep(d, (long)r[i].line, (long)r[slot[at] - 1].line, r[i].id, r[i].len);
    else
      slot[at] = (uint32_t)i + 1;
  }
  free(slot);
  rc = 0;
out:
  free(raw);
  free(r);
  return rc;
}

/* The exact check after a hash was seen twice: the file read again from its
   start, the same way, and the ID of every valid line put in the spill (the
   set no longer used). A problem sets s->fail (a read error, or a file that
   changed under the reader), which toi_case_stream_close reports. */
static void rescan_ids(toi_case_stream *s) {
  id_spill_free(&s->ids);
  id_mem_reset(&s->mem);
  memset(s->clean, 0, sizeof s->clean);
  s->mem.max = 0;
  if (lseek(s->fd, 0, SEEK_SET) != 0) {
    s->fail = TOI_ERR_IO;
    return;
  }
  s->pos = s->end = s->scanned = 0;
  s->nul = SIZE_MAX;
  s->eof = s->started = 0;
  s->lineno = 0;
  toi_line_block b;
  memset(&b, 0, sizeof b);
  while (toi_case_stream_read(s, &b, 4096, (size_t)1 << 20) == TOI_OK && b.n) {
    toi_line_block_parse(&b);
    for (size_t i = 0; i < b.n && !s->fail; i++)
      if (b.ok[i]) {
        const char *id = b.cases[i].id;
        size_t len = strlen(id);
        if (id_spill_add(&s->ids, id, len, s->mem.hash(id, len), b.line[i])) s->fail = TOI_ERR_IO;
      }
  }
  toi_line_block_free(&b);
}

/* The file's problems in line order: its bad lines (kept in diags since
   first_count) and its duplicate IDs, the first TOI_DIAG_MAX of both kept. */
static toi_status report_dups(toi_case_stream *s, toi_diags *diags) {
  id_dups d;
  uint64_t *buf = NULL;
  size_t bufcap = 0;
  for (int pass = 0; pass < 2; pass++) { /* the second after a rescan, from the spill alone */
    memset(&d, 0, sizeof d);
    for (size_t k = 0; k < ID_BUCKETS && !s->mem.hit; k++) {
      id_table t = {NULL, 0};
      if ((s->mem.n[k] && !s->clean[k] && id_table_fill(&t, &s->mem, k, &buf, &bufcap)) ||
          (s->ids.n[k] && id_bucket_dups(&s->ids, k, &d, &t, &s->mem.hit))) {
        free(buf);
        return TOI_ERR_NOMEM;
      }
    }
    if (!s->mem.hit) break;
    rescan_ids(s);
    if (s->fail) {
      free(buf);
      return s->fail == TOI_ERR_NOMEM ? TOI_ERR_NOMEM : TOI_OK; /* close reports it */
    }
  }
  free(buf);
  if (!d.total) return TOI_OK;
  size_t nbad = diags->count - s->first_count, bad_total = diags->total - s->first_diag;
  toi_diag *bad = malloc((nbad ? nbad : 1) * sizeof *bad);
  if (!bad) return TOI_ERR_NOMEM;
  memcpy(bad, diags->items + s->first_count, nbad * sizeof *bad);
  diags->count = s->first_count;
  diags->total = s->first_diag;
  for (size_t i = 0, j = 0; i < nbad || j < d.kept;) {
    if (j == d.kept || (i < nbad && bad[i].line < d.v[j].line)) {
      diags->total++;
      if (diags->count < TOI_DIAG_MAX) diags->items[diags->count++] = bad[i];
      i++;
      continue;
    }
    char msg[160];
    snprintf(msg, sizeof msg, "duplicate ID '%.40s' (first on line %ld)", d.v[j].id, d.v[j].first);
    add_diag(diags, s->name, d.v[j].line, 1, 2, msg);
    j++;
  }
  diags->total += (bad_total - nbad) + (d.total - d.kept);
  free(bad);
  return TOI_OK;
}

toi_status toi_case_stream_open(toi_case_stream **sp, const char *path, toi_diags *diags) {
  *sp = NULL;
  toi_case_stream *s = calloc(1, sizeof *s);
  if (!s) return TOI_ERR_NOMEM;
  s->is_stdin = !strcmp(path, "-");
  snprintf(s->path, sizeof s->path, "%s", path);
  snprintf(s->name, sizeof s->name, "%s", s->is_stdin ? "<stdin>" : path);
  s->fd = s->is_stdin ? 0 : open(path, O_RDONLY | O_CLOEXEC);
  struct stat sb;
  if (s->fd < 0) {
    char msg[160];
    snprintf(msg, sizeof msg, "cannot open: %s", strerror(errno));
    add_diag(diags, path, 0, 0, 2, msg);
    free(s);
    return TOI_ERR_IO;
  }
  if (!s->is_stdin && fstat(s->fd, &sb) == 0 && S_ISDIR(sb.st_mode)) {
    close(s->fd);
    free(s);
    add_diag(diags, path, 0, 0, 2, "is a directory, not a file to read");
    return TOI_ERR_IO;
  }
  /* reads of 256 KiB: the bytes read are still in the core's caches when
     their lines are copied out (1 MiB reads cost 5% more CPU time) */
  s->cap = STREAM_READ_BYTES;
  s->nul = SIZE_MAX;
  s->mem.hash = id_hash_of;
  s->mem.max = !s->is_stdin && fstat(s->fd, &sb) == 0 && S_ISREG(sb.st_mode) ? ID_MEM_MAX : 0;
  s->ranged = s->mem.max > 0; /* a regular file opened here: its offset is 0, pread reads it anywhere */
  if (!(s->buf = malloc(s->cap))) {
    if (!s->is_stdin) close(s->fd);
    free(s);
    return TOI_ERR_NOMEM;
  }
  s->first_diag = diags->total;
  s->first_count = diags->count;
  *sp = s;
  return TOI_OK;
}

/* Moves the unconsumed bytes to the front (growing the buffer for a long
   line) and reads more: 0, or -1 on a read error (errno). */
static int stream_fill(toi_case_stream *s) {
  if (s->pos > 0) {
    memmove(s->buf, s->buf + s->pos, s->end - s->pos);
    s->end -= s->pos;
    s->scanned -= s->pos;
    if (s->nul != SIZE_MAX) s->nul -= s->pos; /* a NUL is never consumed: the file ends there */
    s->pos = 0;
  }
  if (s->end == s->cap) {
    char *nb = realloc(s->buf, 2 * s->cap);
    if (!nb) {
      errno = ENOMEM;
      return -1;
    }
    s->buf = nb;
    s->cap *= 2;
  }
  for (;;) {
    ssize_t got = read(s->fd, s->buf + s->end, s->cap - s->end);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return -1;
    if (got == 0) s->eof = 1;
    const char *z = s->nul == SIZE_MAX && got > 0 ? memchr(s->buf + s->end, '\0', (size_t)got) : NULL;
    if (z) s->nul = (size_t)(z - s->buf);
    s->end += (size_t)got;
    return 0;
  }
}

/* A NUL byte or an overlong line ends the file: recorded for close, which
   reports it alone, as toi_read_cases does. */
static toi_status stream_refuse(toi_case_stream *s, const char *msg) {
  s->fail = TOI_ERR_INPUT;
  s->fail_line = s->lineno + 1;
  snprintf(s->fail_msg, sizeof s->fail_msg, "%s", msg);
  return TOI_ERR_INPUT;
}

/* The next line in [s->pos, *len) with its end found, checked for NUL bytes
   and length as toi_read_file checks them. 1 a line, 0 the end, or a status
   (negated) after a problem. */
static int stream_line(toi_case_stream *s, size_t *len) {
  for (;;) {
    if (s->started) {
      const char *nl = memchr(s->buf + s->scanned, '\n', s->end - s->scanned);
      size_t lim = nl ? (size_t)(nl - s->buf) : s->end;
      const char *z = s->nul >= s->scanned && s->nul < lim ? s->buf + s->nul : NULL;
      size_t upto = (z ? (size_t)(z - s->buf) : lim) - s->pos;
      s->scanned = lim;
      if (upto > (size_t)TOI_LINE_MAX + 1) {
        char msg[160];
        snprintf(msg, sizeof msg, "line is longer than %d characters", TOI_LINE_MAX);
        stream_refuse(s, msg);
        return -1;
      }
      if (z) {
        stream_refuse(s, "NUL byte in the file (not a text file)");
        return -1;
      }
      if (nl || (s->eof && s->end > s->pos)) {
        *len = lim - s->pos;
        return 1;
      }
      if (s->eof) return 0;
    }
    if (stream_fill(s)) {
      s->fail = errno == ENOMEM ? TOI_ERR_NOMEM : TOI_ERR_IO;
      return -1;
    }
    if (!s->started && (s->end >= 3 || s->eof)) { /* a byte order mark is skipped */
      s->pos = s->scanned = text_bom_len(s->buf, s->end);
      s->started = 1;
    }
  }
}

/* Room in b for the cases of n lines: 0, or -1 out of memory. */
static int block_reserve(toi_line_block *b, size_t n) {
  if (n <= b->ncap) return 0;
  size_t *ns = realloc(b->start, n * sizeof *ns);
  if (ns) b->start = ns;
  long *nl = realloc(b->line, n * sizeof *nl);
  if (nl) b->line = nl;
  toi_case *ncs = realloc(b->cases, n * sizeof *ncs);
  if (ncs) b->cases = ncs;
  unsigned char *nok = realloc(b->ok, n);
  if (nok) b->ok = nok;
  if (!ns || !nl || !ncs || !nok) return -1;
  b->ncap = n;
  return 0;
}

/* Room in b for one more line of l bytes and its NUL. 0 or -1 (out of memory). */
static int block_room(toi_line_block *b, size_t l) {
  if (b->n == b->ncap && block_reserve(b, b->ncap ? 2 * b->ncap : 256)) return -1;
  if (b->len + l + 1 > b->cap) {
    size_t nc = b->cap ? b->cap : 1 << 16;
    while (nc < b->len + l + 1) nc *= 2;
    char *nt = realloc(b->text, nc);
    if (!nt) return -1;
    b->text = nt;
    b->cap = nc;
  }
  return 0;
}

/* Appends line text[0..l) to b. 0 or -1 (out of memory). */
static int block_push(toi_line_block *b, const char *text, size_t l, long lineno) {
  if (block_room(b, l)) return -1;
  memcpy(b->text + b->len, text, l);
  b->text[b->len + l] = '\0';
  b->start[b->n] = b->len;
  b->line[b->n++] = lineno;
  b->len += l + 1;
  return 0;
}

#ifdef ID_SSE2
/* Lines up to this long are found and copied in one pass. */
#define LINE_ONE_PASS 512

/* p[0 .. stop) (stop a multiple of 32) copied to t thirty-two bytes a step
   until the step that holds a '\n': the '\n''s index, or SIZE_MAX when there
   is none (t then holds every byte). */
static inline size_t copy_to_nl_sse2(char *t, const char *p, size_t stop) {
  const __m128i nl = _mm_set1_epi8('\n');
  for (size_t off = 0; off < stop; off += 32) {
    const __m128i v0 = _mm_loadu_si128((const __m128i *)(const void *)(p + off));
    const __m128i v1 = _mm_loadu_si128((const __m128i *)(const void *)(p + off + 16));
    _mm_storeu_si128((__m128i *)(void *)(t + off), v0);
    _mm_storeu_si128((__m128i *)(void *)(t + off + 16), v1);
    const __m128i e0 = _mm_cmpeq_epi8(v0, nl), e1 = _mm_cmpeq_epi8(v1, nl);
    if (_mm_movemask_epi8(_mm_or_si128(e0, e1)))
      return off + (size_t)__builtin_ctz((unsigned)_mm_movemask_epi8(e0) | (unsigned)_mm_movemask_epi8(e1) << 16);
  }
  return SIZE_MAX;
}

#include <stdatomic.h>
/* The level toi_case_stream_simd_use sets: 3 AVX-512 (BW) for the blocks
   read whole (nl_cut_avx512, split_lines_avx512), AVX2 otherwise; 2 AVX2
   (copy_to_nl_avx2); 1 SSE2; 0 no one-pass reader; -1 not asked yet
   (relaxed: every thread that asks sets the same value). */
static atomic_int line_simd = -1;

static int line_simd_best(void) {
#if defined(__GNUC__) && defined(__x86_64__)
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512bw") ? 3 : __builtin_cpu_supports("avx2") ? 2 : 1;
#else
  return 1;
#endif
}

int toi_case_stream_simd_use(int level) {
  const int best = line_simd_best();
  atomic_store_explicit(&line_simd, level < 0 || level > best ? best : level, memory_order_relaxed);
  return atomic_load_explicit(&line_simd, memory_order_relaxed);
}

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>

/* As copy_to_nl_sse2, sixty-four bytes a step (stop a multiple of 64). */
__attribute__((target("avx2"))) static size_t copy_to_nl_avx2(char *t, const char *p, size_t stop) {
  const __m256i nl = _mm256_set1_epi8('\n');
  for (size_t off = 0; off < stop; off += 64) {
    const __m256i v0 = _mm256_loadu_si256((const __m256i *)(const void *)(p + off));
    const __m256i v1 = _mm256_loadu_si256((const __m256i *)(const void *)(p + off + 32));
    _mm256_storeu_si256((__m256i *)(void *)(t + off), v0);
    _mm256_storeu_si256((__m256i *)(void *)(t + off + 32), v1);
    const __m256i e0 = _mm256_cmpeq_epi8(v0, nl), e1 = _mm256_cmpeq_epi8(v1, nl);
    if (!_mm256_testz_si256(_mm256_or_si256(e0, e1), _mm256_or_si256(e0, e1))) {
      const uint64_t m = (uint64_t)(uint32_t)_mm256_movemask_epi8(e0) | (uint64_t)(uint32_t)_mm256_movemask_epi8(e1) << 32;
      return off + (size_t)__builtin_ctzll(m);
    }
  }
  return SIZE_MAX;
}
#else
static size_t copy_to_nl_avx2(char *t, const char *p, size_t stop) { return copy_to_nl_sse2(t, p, stop); }
#endif

/* The common line in one pass: its bytes copied into b sixteen at a time
   while its '\n' is looked for, so that a line's end costs no call and its
   bytes are read once. Only a line that starts with no blank, '#' or '\r',
   has a '\n' within LINE_ONE_PASS bytes of the bytes already read, and no
   NUL before it; anything else is left to stream_line and block_push (0,
   nothing done). 1: the line is in b, s past it, as the general path leaves
   them; -1: out of memory. */
static int line_one_pass(toi_case_stream *s, toi_line_block *b) {
  if (!s->started || s->scanned != s->pos) return 0;
  int simd = atomic_load_explicit(&line_simd, memory_order_relaxed);
  if (simd < 0) simd = toi_case_stream_simd_use(-1);
  if (!simd) return 0;
  const int avx2 = simd > 1;
  const char *p = s->buf + s->pos;
  const size_t avail = s->end - s->pos;
  if (avail < 32 || *p == ' ' || *p == '\t' || *p == '#' || *p == '\r' || *p == '\n') return 0;
  if ((b->n == b->ncap || b->len + LINE_ONE_PASS + 16 > b->cap) && block_room(b, LINE_ONE_PASS + 15)) return -1;
  char *t = b->text + b->len;
  /* the last step ends by the bytes read and by LINE_ONE_PASS */
  const size_t l = avx2 > 0 ? copy_to_nl_avx2(t, p, avail < LINE_ONE_PASS ? avail & ~(size_t)63 : LINE_ONE_PASS)
                                 : copy_to_nl_sse2(t, p, avail < LINE_ONE_PASS ? avail & ~(size_t)31 : LINE_ONE_PASS);
  if (l == SIZE_MAX || (s->nul != SIZE_MAX && s->nul < s->pos + l)) return 0;
  s->pos += l + 1;
  s->scanned = s->pos;
  s->lineno++;
  s->nonempty = 1;
  const size_t k = l - (l > 0 && p[l - 1] == '\r'); /* CRLF files are accepted */
  t[k] = '\0';
  b->start[b->n] = b->len;
  b->line[b->n++] = s->lineno;
  b->len += k + 1;
  return 1;
}
#else
int toi_case_stream_simd_use(int level) {
  (void)level;
  return 0; /* no one-pass reader: every line by the general path */
}
#endif

toi_status toi_case_stream_read(toi_case_stream *s, toi_line_block *b, size_t max_lines, size_t max_bytes) {
  b->n = b->len = b->nerrs = b->nbad = 0;
  if (s->fail) return s->fail;
  size_t l;
  while (b->n < max_lines && b->len < max_bytes) {
#ifdef ID_SSE2
    const int one = line_one_pass(s, b);
    if (one < 0) return s->fail = TOI_ERR_NOMEM;
    if (one) continue;
#endif
    int r = stream_line(s, &l);
    if (r <= 0) return r < 0 ? s->fail : TOI_OK;
    const char *p = s->buf + s->pos;
    s->pos += l + (s->pos + l < s->end); /* past the '\n' when there is one */
    s->scanned = s->pos;
    s->lineno++;
    if (l > 0 && p[l - 1] == '\r') l--; /* CRLF files are accepted */
    while (l > 0 && (*p == ' ' || *p == '\t')) {
      p++;
      l--;
    }
    if (l == 0 || *p == '#') continue;
    s->nonempty = 1;
    if (block_push(b, p, l, s->lineno)) return s->fail = TOI_ERR_NOMEM;
  }
  return TOI_OK;
}

/* ---- blocks read whole, their lines made on the thread that parses them ---- */

/* The newlines of p[0 .. n) counted, at most max of them (max >= 1): their
   count in *count and the offset just past the last one counted (0: none).
   Byte by byte from start on, c counted before it; the vector versions
   below count 64 bytes a step the same way. */
static size_t nl_cut_from(const char *p, size_t start, size_t n, size_t max, size_t c, size_t *count) {
  for (size_t i = start; i < n; i++)
    if (p[i] == '\n' && ++c == max) {
      *count = c;
      return i + 1;
    }
  *count = c;
  const char *last = c ? memrchr(p, '\n', n) : NULL; /* fewer than max: the last of all */
  return last ? (size_t)(last - p) + 1 : 0;
}

/* A step's mask of the newlines among 64 bytes counted; at max, the one
   that makes it is the cut. No branch on the bytes but that rare one (a
   line ends in one step of four or five: a branch on it would be
   mispredicted about once a line). */
#define NL_CUT_STEP(m)                                                            \
  do {                                                                            \
    const size_t k_ = (size_t)__builtin_popcountll(m);                            \
    if (__builtin_expect(c + k_ >= max, 0)) { /* m is not 0: c < max */          \
      uint64_t m_ = (m);                                                          \
      for (size_t j_ = max - c; j_ > 1; j_--) m_ &= m_ - 1;                       \
      *count = max;                                                               \
      return off + (size_t)__builtin_ctzll(m_) + 1;                               \
    }                                                                             \
    c += k_;                                                                      \
  } while (0)

#ifdef ID_SSE2
static size_t nl_cut_sse2(const char *p, size_t n, size_t max, size_t *count) {
  const __m128i nl = _mm_set1_epi8('\n');
  size_t c = 0, off = 0;
  for (; off + 64 <= n; off += 64) {
    uint64_t m = 0;
    for (int q = 0; q < 4; q++)
      m |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + off + 16 * q)), nl)) << (16 * q);
    NL_CUT_STEP(m);
  }
  return nl_cut_from(p, off, n, max, c, count);
}

#if defined(__GNUC__) && defined(__x86_64__)
__attribute__((target("avx2"))) static size_t nl_cut_avx2(const char *p, size_t n, size_t max, size_t *count) {
  const __m256i nl = _mm256_set1_epi8('\n');
  size_t c = 0, off = 0;
  for (; off + 64 <= n; off += 64) {
    const uint64_t m = (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i *)(const void *)(p + off)), nl)) |
                       (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i *)(const void *)(p + off + 32)), nl)) << 32;
    NL_CUT_STEP(m);
  }
  return nl_cut_from(p, off, n, max, c, count);
}
__attribute__((target("avx512f,avx512bw"))) static size_t nl_cut_avx512(const char *p, size_t n, size_t max,
                                                                      size_t *count) {
  const __m512i nl = _mm512_set1_epi8('\n');
  size_t c = 0, off = 0;
  for (; off + 64 <= n; off += 64) {
    const uint64_t m = _mm512_cmpeq_epi8_mask(_mm512_loadu_si512((const void *)(p + off)), nl);
    NL_CUT_STEP(m);
  }
  return nl_cut_from(p, off, n, max, c, count);
}
#else
static size_t nl_cut_avx2(const char *p, size_t n, size_t max, size_t *count) { return nl_cut_sse2(p, n, max, count); }
static size_t nl_cut_avx512(const char *p, size_t n, size_t max, size_t *count) { return nl_cut_sse2(p, n, max, count); }
#endif
#endif

/* The newlines of p[0 .. n), at most max (>= 1): nl_cut_from's answer, at
   the width toi_case_stream_simd_use chose. */
static size_t nl_cut(const char *p, size_t n, size_t max, size_t *count) {
#ifdef ID_SSE2
  int simd = atomic_load_explicit(&line_simd, memory_order_relaxed);
  if (simd < 0) simd = toi_case_stream_simd_use(-1);
  if (simd > 2) return nl_cut_avx512(p, n, max, count);
  if (simd > 1) return nl_cut_avx2(p, n, max, count);
  if (simd == 1) return nl_cut_sse2(p, n, max, count);
#endif
  return nl_cut_from(p, 0, n, max, 0, count);
}

/* The unconsumed bytes of s handed back from b's text[0 .. n) (nul: where
   its first NUL byte is, or SIZE_MAX), for toi_case_stream_read to go on
   from: 0, or -1 out of memory. */
static int stream_take_back(toi_case_stream *s, const char *text, size_t n, size_t nul) {
  if (n > s->cap) {
    char *nb = realloc(s->buf, n);
    if (!nb) return -1;
    s->buf = nb;
    s->cap = n;
  }
  memcpy(s->buf, text, n);
  s->pos = s->scanned = 0;
  s->end = n;
  s->nul = nul;
  return 0;
}

/* The block of nlines lines of b's text [from, cut), the bytes [cut, end)
   kept in s->buf for the next. */
static toi_status raw_block(toi_case_stream *s, toi_line_block *b, size_t from, size_t cut, size_t end, size_t nlines,
                            toi_raw_block *raw) {
  if (block_reserve(b, nlines)) return s->fail = TOI_ERR_NOMEM;
  if (end - cut > s->cap) { /* what s->buf held is in b: a new one */
    char *nb = malloc(end - cut);
    if (!nb) return s->fail = TOI_ERR_NOMEM;
    free(s->buf);
    s->buf = nb;
    s->cap = end - cut;
  }
  memcpy(s->buf, b->text + cut, end - cut);
  s->pos = s->scanned = 0;
  s->end = end - cut;
  b->len = cut;
  raw->from = from;
  raw->to = cut;
  raw->nlines = nlines;
  raw->first_line = s->lineno + 1;
  s->lineno += (long)nlines;
  return TOI_OK;
}

toi_status toi_case_stream_read_raw(toi_case_stream *s, toi_line_block *b, size_t max_lines, size_t max_bytes,
                                    toi_raw_block *raw) {
  memset(raw, 0, sizeof *raw);
  b->n = b->len = b->nerrs = b->nbad = 0;
  if (s->fail) return s->fail;
  /* the first block (its byte order mark), and after a NUL byte: line by line */
  if (!s->started || s->nul != SIZE_MAX || max_lines == 0) return toi_case_stream_read(s, b, max_lines, max_bytes);
  /* the bytes left from the last block, then one read up to
     STREAM_READ_BYTES, a byte left for the NUL of a last line without its '\n' */
  const size_t left = s->end - s->pos, fill = STREAM_READ_BYTES - 1;
  const size_t need = (left > fill ? left : fill) + 1;
  if (b->cap < need) {
    char *nt = realloc(b->text, need);
    if (!nt) return s->fail = TOI_ERR_NOMEM;
    b->text = nt;
    b->cap = need;
  }
  char *t = b->text;
  memcpy(t, s->buf + s->pos, left);
  size_t end = left, nul = SIZE_MAX; /* the bytes left hold no NUL: s->nul is SIZE_MAX */
  while (!s->eof && end < fill) {
    ssize_t got = read(s->fd, t + end, fill - end);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return s->fail = errno == ENOMEM ? TOI_ERR_NOMEM : TOI_ERR_IO;
    if (got == 0) s->eof = 1;
    const char *z = got > 0 ? memchr(t + end, '\0', (size_t)got) : NULL;
    if (z) nul = (size_t)(z - t);
    end += (size_t)got;
    break;
  }
  size_t nlines, cut = nl_cut(t, end, max_lines, &nlines);
  const int open_end = nlines < max_lines && s->eof && cut < end; /* a last line without its '\n' */
  if (open_end) {
    cut = end;
    nlines++;
  }
  /* A NUL byte, a line that the bytes do not hold whole (perhaps longer than
     TOI_LINE_MAX: no line in TOI_LINE_MAX + 1 bytes is): line by line. */
  if (nul != SIZE_MAX || nlines == 0 || end > (size_t)TOI_LINE_MAX + 1) {
    if (stream_take_back(s, t, end, nul)) return s->fail = TOI_ERR_NOMEM;
    return toi_case_stream_read(s, b, max_lines, max_bytes);
  }
  /* the bytes after the block stay for the next (s->buf holds them: they
     came from it, or from one read of at most its size) */
  return raw_block(s, b, 0, cut, end, nlines, raw);
}

/* ---- a regular file read by ranges, outside the reading lock ---- */

/* The ranges' size, and the room before each in its buffer for the bytes
   the last block left (a line's end, most often: more, and the file goes on
   by toi_case_stream_read_raw). */
#define RANGE_BYTES STREAM_READ_BYTES
#define RANGE_ROOM ((size_t)1 << 16)

int toi_case_stream_ranged(const toi_case_stream *s) { return s->ranged; }

int toi_case_stream_pread(const toi_case_stream *s, toi_range *rr, char **text, size_t *cap) {
  rr->got = 0;
  rr->err = 0;
  rr->nl = rr->last = 0;
  rr->nul = SIZE_MAX;
  const size_t need = RANGE_ROOM + RANGE_BYTES + 1; /* a byte for the NUL of a last line without its '\n' */
  if (*cap < need) {
    char *nt = realloc(*text, need);
    if (!nt) return -1;
    *text = nt;
    *cap = need;
  }
  char *d = *text + RANGE_ROOM;
  const off_t at = (off_t)(rr->k * RANGE_BYTES);
  while (rr->got < RANGE_BYTES) {
    ssize_t n = pread(s->fd, d + rr->got, RANGE_BYTES - rr->got, at + (off_t)rr->got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      rr->err = errno ? errno : EIO;
      return 0;
    }
    if (n == 0) break;
    rr->got += (size_t)n;
  }
  const char *z = memchr(d, '\0', rr->got);
  if (z) rr->nul = (size_t)(z - d);
  size_t count;
  (void)nl_cut(d, rr->got, SIZE_MAX, &count);
  rr->nl = count;
  const char *last = count ? memrchr(d, '\n', rr->got) : NULL;
  rr->last = last ? (size_t)(last - d) + 1 : 0;
  return 0;
}

/* From range k on, the file is read in order (toi_case_stream_read_raw):
   the bytes not yet taken, s->buf's then data[0 .. got), into s->buf, and
   the file's offset after range k. The next block so. */
static toi_status ranges_end(toi_case_stream *s, toi_line_block *b, const char *data, size_t got, uint64_t k,
                             size_t max_lines, size_t max_bytes, toi_raw_block *raw) {
  s->ranged = 0;
  const size_t left = s->end - s->pos;
  if (left + got > s->cap) {
    char *nb = malloc(left + got);
    if (!nb) return s->fail = TOI_ERR_NOMEM;
    memcpy(nb, s->buf + s->pos, left);
    free(s->buf);
    s->buf = nb;
    s->cap = left + got;
  } else {
    memmove(s->buf, s->buf + s->pos, left);
  }
  memcpy(s->buf + left, data, got);
  s->pos = s->scanned = 0;
  s->end = left + got;
  const char *z = memchr(s->buf, '\0', s->end);
  s->nul = z ? (size_t)(z - s->buf) : SIZE_MAX;
  if (!s->eof && lseek(s->fd, (off_t)((k + 1) * RANGE_BYTES), SEEK_SET) < 0) return s->fail = TOI_ERR_IO;
  return toi_case_stream_read_raw(s, b, max_lines, max_bytes, raw);
}

toi_status toi_case_stream_read_range(toi_case_stream *s, toi_line_block *b, size_t max_lines, size_t max_bytes,
                                      const toi_range *rr, toi_raw_block *raw) {
  memset(raw, 0, sizeof *raw);
  b->n = b->len = b->nerrs = b->nbad = 0;
  if (s->fail) return s->fail;
  if (!s->ranged) return toi_case_stream_read_raw(s, b, max_lines, max_bytes, raw);
  if (rr->k != s->next_range || max_lines == 0) return s->fail = TOI_ERR_IO; /* a caller's mistake */
  s->next_range++;
  if (rr->err) return s->fail = rr->err == ENOMEM ? TOI_ERR_NOMEM : TOI_ERR_IO;
  char *data = b->text + RANGE_ROOM;
  size_t got = rr->got, nl = rr->nl, last = rr->last, nul = rr->nul;
  if (s->eof) got = nl = last = 0, nul = SIZE_MAX; /* the end was in an earlier range */
  if (got < RANGE_BYTES) s->eof = 1;                /* the end of the file is in this range */
  if (rr->k == 0) { /* the file's start: a byte order mark is skipped (it holds no '\n', no NUL) */
    const size_t bom = text_bom_len(data, got);
    data += bom;
    got -= bom;
    last -= last ? bom : 0;
    nul -= nul != SIZE_MAX ? bom : 0;
    s->started = 1;
  }
  const size_t left = s->end - s->pos;
  /* the bytes the last block left go before the range's, unless many */
  if (left > RANGE_ROOM || nul != SIZE_MAX || s->nul != SIZE_MAX)
    return ranges_end(s, b, data, got, rr->k, max_lines, max_bytes, raw);
  char *t = data - left;
  memcpy(t, s->buf + s->pos, left);
  const size_t from = (size_t)(t - b->text), end = left + got;
  size_t left_nl, nlines, cut = nl_cut(t, left, SIZE_MAX, &left_nl); /* the lines left, most often none */
  if (left_nl + nl <= max_lines) { /* the range's counted outside the lock */
    nlines = left_nl + nl;
    if (last) cut = left + last;
  } else {
    cut = nl_cut(t, end, max_lines, &nlines);
  }
  if (nlines < max_lines && s->eof && cut < end) { /* a last line without its '\n' */
    cut = end;
    nlines++;
  }
  if (nlines == 0) {
    if (end == 0) return TOI_OK; /* the end of the file */
    /* a line longer than a range and the room: in order from here on */
    return ranges_end(s, b, data, got, rr->k, max_lines, max_bytes, raw);
  }
  if (end - cut > RANGE_ROOM) s->ranged = 0; /* many lines left (a block of max_lines): in order from here on */
  toi_status st = raw_block(s, b, from, from + cut, from + end, nlines, raw);
  if (st == TOI_OK && !s->ranged && !s->eof && lseek(s->fd, (off_t)((rr->k + 1) * RANGE_BYTES), SEEK_SET) < 0)
    st = s->fail = TOI_ERR_IO;
  return st;
}

/* The lines of a block being made (toi_line_block_split): kept in locals,
   so that the NUL written in the text does not make the compiler reload
   them. */
typedef struct line_cut {
  char *t;
  size_t *start;
  long *line;
  size_t n;
  long lineno;
} line_cut;

/* Line [p, q) of the text (q its '\n' or the end of the block's bytes) as
   toi_case_stream_read takes it: a CR before its end and blanks before it
   off, kept unless blank or a comment, NUL-terminated in place. */
static inline void split_line(line_cut *c, size_t p, size_t q) {
  char *t = c->t;
  const long lineno = c->lineno++;
  if (q > p && t[q - 1] == '\r') q--; /* CRLF files are accepted */
  while (p < q && (t[p] == ' ' || t[p] == '\t')) p++;
  if (p == q || t[p] == '#') return;
  t[q] = '\0';
  c->start[c->n] = p;
  c->line[c->n++] = lineno;
}

/* The lines ending in the newlines of t[off .. end) (off + 64 * k <= end),
   from *p on: each split, *p past it. The offset reached. */
static size_t split_lines_sse2(line_cut *c, size_t *p, size_t off, size_t end) {
#ifdef ID_SSE2
  const __m128i nl = _mm_set1_epi8('\n');
  for (; off + 64 <= end; off += 64) {
    uint64_t m = 0;
    for (int q = 0; q < 4; q++)
      m |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(c->t + off + 16 * q)), nl)) << (16 * q);
    for (; m; m &= m - 1) {
      const size_t q = off + (size_t)__builtin_ctzll(m);
      split_line(c, *p, q);
      *p = q + 1;
    }
  }
#else
  (void)c, (void)p, (void)end;
#endif
  return off;
}

#if defined(ID_SSE2) && defined(__GNUC__) && defined(__x86_64__)
__attribute__((target("avx2"))) static size_t split_lines_avx2(line_cut *c, size_t *p, size_t off, size_t end) {
  const __m256i nl = _mm256_set1_epi8('\n');
  size_t at = *p;
  for (; off + 64 <= end; off += 64) {
    uint64_t m = (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i *)(const void *)(c->t + off)), nl)) |
                 (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i *)(const void *)(c->t + off + 32)), nl)) << 32;
    for (; m; m &= m - 1) {
      const size_t q = off + (size_t)__builtin_ctzll(m);
      split_line(c, at, q);
      at = q + 1;
    }
  }
  *p = at;
  return off;
}
__attribute__((target("avx512f,avx512bw"))) static size_t split_lines_avx512(line_cut *c, size_t *p, size_t off,
                                                                           size_t end) {
  const __m512i nl = _mm512_set1_epi8('\n');
  size_t at = *p;
  for (; off + 64 <= end; off += 64) {
    uint64_t m = _mm512_cmpeq_epi8_mask(_mm512_loadu_si512((const void *)(c->t + off)), nl);
    for (; m; m &= m - 1) {
      const size_t q = off + (size_t)__builtin_ctzll(m);
      split_line(c, at, q);
      at = q + 1;
    }
  }
  *p = at;
  return off;
}
#else
static size_t split_lines_avx2(line_cut *c, size_t *p, size_t off, size_t end) { return split_lines_sse2(c, p, off, end); }
static size_t split_lines_avx512(line_cut *c, size_t *p, size_t off, size_t end) { return split_lines_sse2(c, p, off, end); }
#endif

void toi_line_block_split(toi_line_block *b, const toi_raw_block *raw) {
  if (!raw->nlines) return; /* made by toi_case_stream_read */
  line_cut c = {b->text, b->start, b->line, 0, raw->first_line};
  size_t p = raw->from, off = raw->from;
  const size_t end = raw->to;
#ifdef ID_SSE2
  int simd = atomic_load_explicit(&line_simd, memory_order_relaxed);
  if (simd < 0) simd = toi_case_stream_simd_use(-1);
  if (simd > 2) off = split_lines_avx512(&c, &p, off, end);
  else if (simd > 1) off = split_lines_avx2(&c, &p, off, end);
  else if (simd == 1) off = split_lines_sse2(&c, &p, off, end);
#endif
  for (; off < end; off++)
    if (c.t[off] == '\n') {
      split_line(&c, p, off);
      p = off + 1;
    }
  b->len = end;
  if (p < end) { /* the last line, without its '\n' */
    split_line(&c, p, end);
    b->len = end + 1;
  }
  b->n = c.n;
  b->nerrs = b->nbad = 0;
}

void toi_line_block_parse(toi_line_block *b) {
  b->nerrs = b->nbad = 0;
  for (size_t i = 0; i < b->n; i++) {
    toi_case *c = &b->cases[i];
    int field = 0;
    char msg[160];
    b->ok[i] = parse_case_line(c, b->text + b->start[i], b->text + b->len, &field, msg, sizeof msg) == 0;
    if (b->ok[i]) continue;
    b->nbad++;
    if (b->nerrs == TOI_DIAG_MAX) continue;
    toi_line_error *e = &b->errs[b->nerrs++];
    e->line = b->line[i];
    e->field = field;
    e->dim = c->dim ? c->dim : 2;
    snprintf(e->message, sizeof e->message, "%s", msg);
  }
}

/* toi_case_stream_accept, with the IDs' hashes given (toi_case_stream_hash_ids)
   or, hash NULL, made here. */
static toi_status accept_block(toi_case_stream *s, const toi_line_block *b, const uint64_t *hash, toi_diags *diags) {
  size_t k = 0;
  if (b->n) s->accepted = 1;
  for (size_t i = 0; i < b->n; i++) {
    if (!b->ok[i]) {
      /* Past the block's first TOI_DIAG_MAX, diags is full: only counted. */
      if (k < b->nerrs) {
        const toi_line_error *e = &b->errs[k++];
        add_diag(diags, s->name, e->line, e->field, e->dim, e->message);
      } else {
        diags->total++;
      }
      continue;
    }
    const char *id = b->cases[i].id;
    uint64_t h = hash ? hash[i] : s->mem.hash(id, strlen(id));
    if (!id_mem_add(&s->mem, h) && id_spill_add(&s->ids, id, strlen(id), h, b->line[i])) {
      char msg[160];
      snprintf(msg, sizeof msg, "cannot keep the IDs in a temporary file of TMPDIR: %s", strerror(errno));
      add_diag(diags, s->name, 0, 0, 2, msg);
      return TOI_ERR_IO;
    }
  }
  return TOI_OK;
}

toi_status toi_case_stream_accept(toi_case_stream *s, toi_line_block *b, toi_diags *diags) {
  return accept_block(s, b, NULL, diags);
}

void toi_case_stream_hash_ids(const toi_case_stream *s, const toi_line_block *b, uint64_t *hash) {
  uint64_t (*const f)(const char *, size_t) = s->mem.hash;
  for (size_t i = 0; i < b->n; i++) {
    const char *id = b->cases[i].id;
    hash[i] = b->ok[i] ? f(id, strlen(id)) : 0;
  }
}

toi_status toi_case_stream_accept_hashed(toi_case_stream *s, const toi_line_block *b, const uint64_t *hash,
                                         toi_diags *diags) {
  return accept_block(s, b, hash, diags);
}

int toi_case_stream_check_ids(toi_case_stream *s, unsigned part, unsigned nparts) {
  uint64_t *buf = NULL;
  size_t bufcap = 0;
  int rc = 0;
  for (size_t k = part; nparts && k < ID_BUCKETS && !rc; k += nparts) {
    if (!s->mem.n[k] || s->ids.n[k]) continue; /* a bucket with spilled IDs is checked with them at close */
    id_table t = {NULL, 0};
    int hit = 0;
    if (id_table_build(&t, &s->mem, k, &buf, &bufcap, &hit)) rc = -1;
    else s->clean[k] = !hit;
  }
  free(buf);
  return rc;
}

void toi_case_stream_tune(toi_case_stream *s, uint64_t (*hash)(const char *id, size_t len), size_t mem_ids) {
  if (hash) s->mem.hash = hash;
  if (s->mem.max) s->mem.max = mem_ids;
}

const char *toi_case_stream_name(const toi_case_stream *s) {
  return s->name;
}

toi_status toi_case_stream_close(toi_case_stream *s, toi_diags *diags) {
  if (!s) return TOI_OK;
  toi_status st = s->fail ? TOI_OK : report_dups(s, diags);
  if (st == TOI_OK) st = diags->total > s->first_diag ? TOI_ERR_INPUT : TOI_OK;
  if (s->fail) { /* the file's other problems are not reported, as toi_read_cases does */
    diags->total = s->first_diag;
    diags->count = s->first_count;
    if (s->fail == TOI_ERR_INPUT) add_diag(diags, s->name, s->fail_line, 0, 2, s->fail_msg);
    if (s->fail == TOI_ERR_IO) add_diag(diags, s->path, 0, 0, 2, "read error");
    st = s->fail;
  } else if (st == TOI_OK && !s->nonempty && !s->accepted) {
    add_diag(diags, s->name, 0, 0, 2, "no cases (the file is empty or holds only comments)");
    st = TOI_ERR_INPUT;
  }
  if (!s->is_stdin) close(s->fd);
  free(s->buf);
  id_spill_free(&s->ids);
  id_mem_reset(&s->mem);
  free(s);
  return st;
}

void toi_line_block_free(toi_line_block *b) {
  free(b->text);
  free(b->start);
  free(b->line);
  free(b->cases);
  free(b->ok);
  memset(b, 0, sizeof *b);
}
