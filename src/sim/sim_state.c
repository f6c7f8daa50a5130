/* sim_state.c: simulation states: read from and written to state files, overlaps refused. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sim.h"
#include "sim_grid.h"
#include "textin.h"

void sim_state_free(sim_state *s) {
  free(s->balls);
  free(s->lines);
  s->balls = NULL;
  s->lines = NULL;
  s->n = 0;
}

toi_status sim_state_round(sim_state *out, const sim_state *in, toi_precision q) {
  memset(out, 0, sizeof *out);
  out->dim = in->dim;
  out->balls = malloc((in->n ? in->n : 1) * sizeof *out->balls);
  if (!out->balls) return TOI_ERR_NOMEM;
  out->n = in->n;
  int bad = 0;
  for (int d = 0; d < 3; d++) {
    out->box[d] = toi_round_to(in->box[d], q);
    bad |= !isfinite(out->box[d]) && isfinite(in->box[d]);
  }
  for (size_t i = 0; i < in->n; i++) {
    const sim_ball *b = &in->balls[i];
    sim_ball *o = &out->balls[i];
    for (int d = 0; d < 3; d++) {
      o->p[d] = toi_round_to(b->p[d], q);
      o->v[d] = toi_round_to(b->v[d], q);
      bad |= (!isfinite(o->p[d]) && isfinite(b->p[d])) || (!isfinite(o->v[d]) && isfinite(b->v[d]));
    }
    o->r = toi_round_to(b->r, q);
    o->m = toi_round_to(b->m, q);
    bad |= !(o->r > 0 && o->m > 0 && isfinite(o->r) && isfinite(o->m));
  }
  if (bad) sim_state_free(out);
  return bad ? TOI_ERR_RANGE : TOI_OK;
}

int sim_state_write(FILE *f, const sim_state *s) {
  int r = fprintf(f, "# toibench-state v1\n# box DIM L...; ball P... V... R M\nbox %d", s->dim) < 0;
  for (int d = 0; d < s->dim; d++) r |= fprintf(f, " %a", s->box[d]) < 0;
  r |= fputc('\n', f) == EOF;
  for (size_t i = 0; i < s->n; i++) {
    const sim_ball *b = &s->balls[i];
    r |= fputs("ball", f) == EOF;
    for (int d = 0; d < s->dim; d++) r |= fprintf(f, " %a", b->p[d]) < 0;
    for (int d = 0; d < s->dim; d++) r |= fprintf(f, " %a", b->v[d]) < 0;
    r |= fprintf(f, " %a %a\n", b->r, b->m) < 0;
  }
  return r ? -1 : 0;
}

static void diag(toi_diags *dg, const char *file, long line, int field, const char *fname,
                 const char *fmt, const char *a, const char *b) {
  if (!dg) return;
  dg->total++;
  if (dg->count >= TOI_DIAG_MAX) return;
  toi_diag *d = &dg->items[dg->count++];
  snprintf(d->file, sizeof d->file, "%s", file);
  d->line = line;
  d->field = field;
  snprintf(d->field_name, sizeof d->field_name, "%s", fname ? fname : "");
  snprintf(d->message, sizeof d->message, fmt, a, b);
}

static int parse_num(const char *tok, double *out) {
  char *end;
  errno = 0;
  double x = strtod(tok, &end);
  if (end == tok || *end || !isfinite(x) || (errno == ERANGE && isinf(x))) return -1;
  *out = x;
  return 0;
}

static const char *ball_field(int dim, int f) {
  static const char *const n2[] = {"kind", "x", "y", "vx", "vy", "r", "m"};
  static const char *const n3[] = {"kind", "x", "y", "z", "vx", "vy", "vz", "r", "m"};
  if (dim == 3) return f >= 1 && f <= 9 ? n3[f - 1] : "extra";
  return f >= 1 && f <= 7 ? n2[f - 1] : "extra";
}

/* What the reader has gathered so far. */
typedef struct state_reader {
  const char *name;
  toi_diags *dg;
  long lineno;
  int have_box, dim, bad;
  double box[3];
  sim_ball *balls;
  long *lines;
  size_t nb, cap;
} state_reader;

/* A problem on the current line: recorded, and the state is refused. */
static void refuse(state_reader *r, int field, const char *fname, const char *fmt, const char *a,
                   const char *b) {
  diag(r->dg, r->name, r->lineno, field, fname, fmt, a, b);
  r->bad = 1;
}

/* Splits a line at blanks after cutting its comment: at most 12 fields are
   kept, and 13 says there were more. */
static int split_fields(char *buf, char *tok[12]) {
  char *hash = strchr(buf, '#');
  if (hash) *hash = 0;
  int nt = 0;
  char *save = NULL;
  for (char *p = strtok_r(buf, " \t\r\v\f", &save); p; p = strtok_r(NULL, " \t\r\v\f", &save)) {
    if (nt == 12) {
      nt++;
      break;
    }
    tok[nt++] = p;
  }
  return nt;
}

/* As the case reader (textin.h): a control character refuses the line,
   naming the first field that holds one. Returns 1 when it did. */
static int refuse_control(state_reader *r, char *const *tok, int nt) {
  int ctrl = -1, at = 0;
  for (int i = 0; i < nt && i < 12 && ctrl < 0; i++) {
    ctrl = text_control_byte(tok[i]);
    at = i;
  }
  if (ctrl < 0) return 0;
  char hex[8];
  snprintf(hex, sizeof hex, "0x%02x", ctrl);
  const char *fn = at == 0                  ? "kind"
                   : !strcmp(tok[0], "box") ? (at == 1 ? "dim" : "L")
                   : r->dim                 ? ball_field(r->dim, at + 1)
                                            : NULL;
  refuse(r, at + 1, fn, "control character %s in the field%s", hex, "");
  return 1;
}

/* box DIM L1 L2 [L3] */
static void read_box(state_reader *r, char *const *tok, int nt) {
  if (r->have_box) {
    refuse(r, 1, "kind", "a second box line%s%s", "", "");
    return;
  }
  r->have_box = 1;
  double dd_;
  if (nt < 2 || parse_num(tok[1], &dd_) || (dd_ != 2 && dd_ != 3)) {
    refuse(r, 2, "dim", "dimension must be 2 or 3%s%s", "", "");
    return;
  }
  int dim = (int)dd_;
  if (nt != 2 + dim) {
    refuse(r, nt < 2 + dim ? nt + 1 : 3 + dim, "L", "box needs DIM and %s side lengths%s",
           dim == 2 ? "2" : "3", "");
    return;
  }
  r->dim = dim;
  for (int d = 0; d < dim; d++)
    if (parse_num(tok[2 + d], &r->box[d]) || !(r->box[d] > 0))
      refuse(r, 3 + d, "L", "'%.40s' is not a side length > 0%s", tok[2 + d], "");
}

/* The numbers of a ball line, then r > 0, m > 0 and inside the box, each
   problem named. Returns 1 for a good ball. */
static int read_ball(state_reader *r, char *const *tok, sim_ball *b) {
  int dim = r->dim, want = 3 + 2 * dim, ok = 1;
  memset(b, 0, sizeof *b);
  for (int f = 1; f < want; f++) {
    double x;
    if (parse_num(tok[f], &x)) {
      refuse(r, f + 1, ball_field(dim, f + 1), "'%.40s' is not a finite number%s", tok[f], "");
      ok = 0;
      continue;
    }
    if (f <= dim) b->p[f - 1] = x;
    else if (f <= 2 * dim) b->v[f - 1 - dim] = x;
    else if (f == 2 * dim + 1) b->r = x;
    else b->m = x;
  }
  if (ok && !(b->r > 0)) {
    /* Case files allow r = 0; a simulation does not: its gaps are relative to
       ra + rb, and two point balls touch only with coincident centres, where
       the contact has no normal to resolve it along. */
    refuse(r, 2 * dim + 2, "r",
           "radius must be > 0 (gaps are relative to ra + rb, and two point balls touch only with "
           "coincident centres, where a contact has no normal)%s%s",
           "", "");
    ok = 0;
  }
  if (ok && !(b->m > 0)) {
    refuse(r, 2 * dim + 3, "m", "mass must be > 0%s%s", "", "");
    ok = 0;
  }
  for (int d = 0; ok && d < dim; d++)
    if (!(b->p[d] - b->r >= 0 && b->p[d] + b->r <= r->box[d])) {
      refuse(r, d + 2, ball_field(dim, d + 2), "ball is not inside the box%s%s", "", "");
      ok = 0;
    }
  return ok;
}

/* Appends a good ball and its line; -1 when out of memory. */
static int keep_ball(state_reader *r, const sim_ball *b) {
  if (r->nb == r->cap) {
    size_t nc = r->cap ? 2 * r->cap : 64;
    sim_ball *t = realloc(r->balls, nc * sizeof *t);
    long *tl = t ? realloc(r->lines, nc * sizeof *tl) : NULL;
    if (t) r->balls = t;
    if (!t || !tl) return -1;
    r->lines = tl;
    r->cap = nc;
  }
  r->balls[r->nb] = *b;
  r->lines[r->nb] = r->lineno;
  r->nb++;
  return 0;
}

/* One line (NUL-terminated, writable); -1 when out of memory. */
static int read_line(state_reader *r, char *buf) {
  char *tok[12];
  int nt = split_fields(buf, tok);
  if (nt == 0 || refuse_control(r, tok, nt)) return 0;
  if (!strcmp(tok[0], "box")) {
    read_box(r, tok, nt);
    return 0;
  }
  if (strcmp(tok[0], "ball")) {
    refuse(r, 1, "kind", "unknown line kind '%.40s' (box or ball)%s", tok[0], "");
    return 0;
  }
  if (!r->dim) {
    refuse(r, 1, "kind", "a ball before the box line%s%s", "", "");
    return 0;
  }
  int want = 3 + 2 * r->dim;
  if (nt != want) {
    int f = nt < want ? nt + 1 : want + 1;
    refuse(r, f, ball_field(r->dim, f), "a %s-D ball line has %s fields", r->dim == 2 ? "2" : "3",
           r->dim == 2 ? "7" : "9");
    return 0;
  }
  sim_ball b;
  if (!read_ball(r, tok, &b)) return 0;
  return keep_ball(r, &b);
}

/* An overlapping pair (i < j) and the cell of j in the uniform grid of the
   largest diameter: the order of the messages is that grid's order (i, then
   j's cell, then j downwards: a cell's list is newest first), whatever grid
   found the pair. */
typedef struct overlap {
  size_t i, j, cell;
} overlap;

static int overlap_cmp(const void *x, const void *y) {
  const overlap *a = x, *b = y;
  if (a->i != b->i) return a->i < b->i ? -1 : 1;
  if (a->cell != b->cell) return a->cell < b->cell ? -1 : 1;
  return a->j > b->j ? -1 : a->j < b->j;
}

typedef struct overlap_scan {
  const sim_state *s;
  sim_levels g;
  uint32_t *head, *next;
  int32_t *cc; /* level-0 cell of each ball */
  overlap *found;
  size_t nfound, cap;
} overlap_scan;

static int overlap_keep(overlap_scan *o, size_t i, size_t j) {
  if (o->nfound == o->cap) {
    size_t nc = o->cap ? 2 * o->cap : 16;
    overlap *t = realloc(o->found, nc * sizeof *t);
    if (!t) return -1;
    o->found = t;
    o->cap = nc;
  }
  o->found[o->nfound++] = (overlap){i, j, 0};
  return 0;
}

/* The pairs (i, j > i) of the cells of q that overlap; -1 when out of memory. */
static int overlap_cells(overlap_scan *o, size_t i, const sim_nbr *q) {
  const sim_ball *balls = o->s->balls;
  int32_t c[3];
  for (c[2] = q->lo[2]; c[2] <= q->hi[2]; c[2]++)
    for (c[1] = q->lo[1]; c[1] <= q->hi[1]; c[1]++)
      for (c[0] = q->lo[0]; c[0] <= q->hi[0]; c[0]++)
        for (uint32_t j = o->head[sim_levels_cell(&o->g, q->m, c)]; j != NONE32; j = o->next[j]) {
          if (j <= i || !sim_nbr_keep(q, &o->cc[3 * j])) continue;
          double s2 = 0, R = balls[i].r + balls[j].r;
          for (int d = 0; d < o->s->dim; d++) {
            double x = balls[j].p[d] - balls[i].p[d];
            s2 += x * x;
          }
          if (s2 < R * R && overlap_keep(o, i, j)) return -1;
        }
  return 0;
}

/* Every ball in its list; every overlapping pair into o->found. */
static int overlap_find(overlap_scan *o) {
  const sim_state *s = o->s;
  for (size_t c = 0; c < o->g.off[o->g.nlev]; c++) o->head[c] = NONE32;
  for (size_t i = 0; i < s->n; i++) {
    for (int d = 0; d < 3; d++)
      o->cc[3 * i + d] = d < s->dim ? sim_cell_coord(s->balls[i].p[d], o->g.w[d], o->g.nc[0][d]) : 0;
    size_t ci = sim_levels_index(&o->g, o->g.level[i], &o->cc[3 * i]);
    o->next[i] = o->head[ci];
    o->head[ci] = (uint32_t)i;
  }
  for (size_t i = 0; i < s->n; i++)
    for (int u = 0; u < o->g.nused; u++) {
      sim_nbr q;
      if (sim_levels_nbr(&o->g, &o->cc[3 * i], o->g.level[i], o->g.used[u], &q) &&
          overlap_cells(o, i, &q))
        return -1;
    }
  return 0;
}

/* The pairs found, named in the uniform grid's order. */
static void overlap_report(overlap_scan *o, const char *name, toi_diags *dg) {
  const sim_state *s = o->s;
  double rmax = 0, w[3];
  int nc[3];
  for (size_t i = 0; i < s->n; i++)
    if (s->balls[i].r > rmax) rmax = s->balls[i].r;
  sim_grid_shape(s->dim, s->box, rmax, s->n, nc, w);
  for (size_t k = 0; k < o->nfound; k++) {
    const double *p = s->balls[o->found[k].j].p;
    size_t c[3];
    for (int d = 0; d < 3; d++) c[d] = d < s->dim ? (size_t)sim_cell_coord(p[d], w[d], nc[d]) : 0;
    o->found[k].cell = (c[2] * (size_t)nc[1] + c[1]) * (size_t)nc[0] + c[0];
  }
  if (o->nfound) qsort(o->found, o->nfound, sizeof *o->found, overlap_cmp);
  for (size_t k = 0; k < o->nfound; k++) {
    char other[32];
    snprintf(other, sizeof other, "%ld", s->lines[o->found[k].i]);
    diag(dg, name, s->lines[o->found[k].j], 0, NULL, "ball overlaps the ball of line %s%s", other, "");
  }
}

/* No two balls of s may overlap: checked on the grid of the simulation,
   O(n) for balls of one size and for a few big ones among many small.
   Returns 0, 1 when some do (each pair named), -1 when out of memory. */
static int check_overlaps(const sim_state *s, const char *name, toi_diags *dg) {
  overlap_scan o = {.s = s};
  int rc = -1;
  if (sim_levels_plan(&o.g, s->dim, s->box, s->balls, s->n, 0)) goto out;
  o.head = malloc(o.g.off[o.g.nlev] * sizeof *o.head);
  o.next = malloc(s->n * sizeof *o.next);
  o.cc = malloc(3 * s->n * sizeof *o.cc);
  if (!o.head || !o.next || !o.cc || overlap_find(&o)) goto out;
  overlap_report(&o, name, dg);
  rc = o.nfound > 0;
out:
  sim_levels_free(&o.g);
  free(o.head);
  free(o.next);
  free(o.cc);
  free(o.found);
  return rc;
}

toi_status sim_state_parse(sim_state *out, const char *name, const char *text, size_t len,
                           toi_diags *dg) {
  memset(out, 0, sizeof *out);
  state_reader r = {.name = name, .dg = dg};
  char buf[4096];
  size_t pos = text_bom_len(text, len); /* as the case reader (textin.h) */
  const long nul = text_nul_line(text, len);
  if (nul) {
    diag(dg, name, nul, 0, NULL, "NUL byte in the file (not a text file)%s%s", "", "");
    return TOI_ERR_INPUT;
  }
  while (pos < len) {
    size_t e = pos;
    while (e < len && text[e] != '\n') e++;
    r.lineno++;
    size_t l = e - pos;
    const char *line = text + pos;
    pos = e + 1;
    if (l >= sizeof buf) {
      refuse(&r, 0, NULL, "line is longer than %s characters%s", "4095", "");
      continue;
    }
    memcpy(buf, line, l);
    buf[l] = 0;
    if (read_line(&r, buf)) {
      free(r.balls);
      free(r.lines);
      return TOI_ERR_NOMEM;
    }
  }
  if (!r.have_box) {
    diag(dg, name, 0, 0, NULL, "no box line%s%s", "", "");
    r.bad = 1;
  } else if (r.nb == 0 && !r.bad) {
    diag(dg, name, 0, 0, NULL, "no ball%s%s", "", "");
    r.bad = 1;
  }
  if (r.bad) {
    free(r.balls);
    free(r.lines);
    return TOI_ERR_INPUT;
  }
  out->balls = r.balls;
  out->lines = r.lines;
  out->n = r.nb;
  out->dim = r.dim;
  memcpy(out->box, r.box, sizeof r.box);
  int overlaps = check_overlaps(out, name, dg);
  if (overlaps == 0) return TOI_OK;
  sim_state_free(out);
  return overlaps < 0 ? TOI_ERR_NOMEM : TOI_ERR_INPUT;
}

toi_status sim_state_read(sim_state *out, const char *path, toi_diags *dg) {
  memset(out, 0, sizeof *out);
  char *buf;
  size_t len;
  toi_diags scratch = {0};
  toi_status st = toi_read_file(&buf, &len, path, dg ? dg : &scratch);
  if (st != TOI_OK) return st;
  st = sim_state_parse(out, strcmp(path, "-") ? path : "<stdin>", buf, len, dg);
  free(buf);
  return st;
}

