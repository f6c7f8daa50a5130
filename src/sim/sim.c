/* sim.c: event-driven many-ball simulation (document 001 section 5) with cells and an event queue. */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sim.h"
#include "sim_ericson.h"
#include "sim_grid.h"
#include "sim_queue.h"
#include "eft.h"

/*
 * The loop of document 001 section 5: find the earliest event, advance to it,
 * resolve it, and recompute only what involves the balls that changed
 * (document 003, "recompute only necessary balls").
 *
 * - Each ball keeps its centre p at its own reference time tr; its centre at
 *   time t is p + v (t - tr). Nothing moves the other balls, so an event
 *   costs O(neighbours + log N), not O(N).
 * - Events are ordered by (time, insertion number). Each event carries the
 *   change counters of its balls at prediction; a ball's counter grows
 *   whenever its velocity changes, so stale events are dropped when popped
 *   (lazy invalidation). They wait in per-ball lists under a tournament tree of one key
 *   per ball (sim_queue.c): a ball's change drops its own list at once.
 * - A uniform grid of cells at least one largest diameter wide (document 001
 *   section 3): two balls in contact are in the same or neighbouring cells,
 *   so a ball is predicted only against the 3^dim cells around it. A cell
 *   crossing is an event of its own (scheduled from the straight path); on a
 *   crossing the ball is predicted against the layer of cells that just came
 *   into its neighbourhood. Crossings are bookkeeping, not counted as
 *   physical events.
 * - A pair is predicted from a toi_case whose origin is the current time:
 *   both centres moved there in double. The event stores that origin and the
 *   kernel's dt, so the response sees exactly the same case.
 * - Physical events are pair contacts where an impulse was applied and wall
 *   contacts. A predicted pair contact where the balls turn out not to
 *   approach is a "null" event: nothing changes and nothing is recomputed, so
 *   a kernel that keeps predicting t = 0 for separating pairs cannot loop.
 * - Document 001 warns that the loop must terminate: more than
 *   same_instant events at one instant stop the run with SIM_ZENO and the
 *   event number; a NaN time stops it with SIM_NAN.
 */

/* |x| over dim components without the spurious overflow or underflow of the
   squares (speeds up to DBL_MAX are legal input); the plain formula where it
   is safe, so ordinary figures do not depend on the scaling. */
static double norm(const double *x, int dim) {
  double s = 0, big = 0;
  for (int d = 0; d < dim; d++) {
    s += x[d] * x[d];
    if (fabs(x[d]) > big) big = fabs(x[d]);
  }
  if (!(big > 0) || !isfinite(big)) return big;
  if (isfinite(s) && s >= DBL_MIN) return sqrt(s);
  s = 0;
  for (int d = 0; d < dim; d++) {
    double y = x[d] / big;
    s += y * y;
  }
  return big * sqrt(s);
}

/* sim_body: what a prediction reads of a ball (sim_ericson.h). */
_Static_assert(sizeof(sim_body) == 64, "a ball's sim_body is one cache line");

/* A cell's balls, latest inserted first: n of them in items, which is the
   cell's SIM_CELL_SLOTS slots in one shared block until they overflow, then
   an array of its own (cap). */
#define SIM_CELL_SLOTS 4
/* Most balls of a coarse level kept in a list of their own (few_gather). */
#define SIM_FEW 16
typedef struct sim_cell {
  uint32_t *items;
  uint32_t n, cap;
} sim_cell;

typedef struct sim {
  const sim_state *st;
  const sim_kernel *k;
  const sim_config *cfg;
  sim_report *rep;
  size_t n;
  int dim;
  sim_body *b;        /* n: position, velocity, reference time, radius */
  double *mass;       /* n */
  uint32_t *cnt;
  int32_t *cell;      /* n*3 level-0 cell coordinates */
  sim_cell *cl;       /* every cell of every level (g.off) */
  uint32_t *cslot;    /* SIM_CELL_SLOTS a cell: its first balls */
  uint32_t *gbuf;     /* n + SIM_CELL_SLOTS: a scan's candidates */
  sim_levels g;
  sim_queue q;
  double tnow;
  uint64_t phys, pairs, walls, cells, nulls, predictions;
  dd mom[3];
  dd ke0;
  double pscale;
  int stop;
  int f32;            /* a binary32 kernel: cases built by float advances */
  uint64_t processed; /* valid events popped: the "event" of a prediction's ID */
  int ids;            /* cases carry IDs (a batch kernel, or on_predict) */
  int ericson;        /* pairs predicted by sim_ericson_toi (no case, no ID) */
  int avx2;           /* ... four at a time (sim_ericson_toi4) */
  double *gdt;        /* their answers, a candidate each (gbuf) */
  uint8_t *gm;        /* a group of four's candidates and answers (predict_ericson4) */
  int wall_double;    /* the kernel's walls are sim_wall_toi_double's */
  int resp_double;    /* its pair responses sim_pair_respond_double's, in binary64 (pair_respond_dim) */
  double ctol;        /* the kernel's contact tolerance at the last sample */
  /* a batch kernel's pending predictions: cases, balls, reserved seq numbers */
  toi_case *bq;
  uint32_t *bab;
  uint64_t *bseq;
  int *br;
  double *bdt;
  size_t bn;
  /* the coarse levels of SIM_FEW balls or fewer (nfew[l] > 0: level l > 0),
     their balls in the order gather finds them (by cell, list order within
     a cell): a finer ball looks at them directly (few_gather) */
  uint8_t nfew[SIM_LEVELS];
  uint32_t fset[SIM_LEVELS][SIM_FEW];  /* their balls by number */
  uint32_t flist[SIM_LEVELS][SIM_FEW];
  /* in 2D with two levels of balls, level 0 and few level few2 (0
     otherwise): a level-0 ball's reach in level-0 cells to them */
  int few2;
  int32_t few2r[2];
  uint32_t few2n;          /* nfew[few2] */
  const uint32_t *few2l;   /* flist[few2] */
} sim;

/* Predictions gathered before a batch kernel is called: flushed when full,
   so memory does not grow with the neighbourhoods or the events. */
#define SIM_BATCH 1024

const char *sim_status_name(sim_status s) {
  switch (s) {
    case SIM_OK: return "ok";
    case SIM_NOMEM: return "out-of-memory";
    case SIM_NAN: return "nan";
    case SIM_ZENO: return "zeno";
    case SIM_FAILED: return "failed";
    case SIM_STOPPED: return "stopped";
    case SIM_BAD_INPUT: return "bad-input";
  }
  return "unknown";
}

/* ---- grid ---- */

static size_t ball_cell(const sim *s, uint32_t i) {
  return sim_levels_index(&s->g, s->g.level[i], &s->cell[3 * i]);
}

/* Inserts ball i first in cell ci (a cell lists its balls latest first).
   -1 when out of memory. */
static int cell_insert(sim *s, uint32_t i, size_t ci) {
  sim_cell *c = &s->cl[ci];
  if (c->n == c->cap) {
    if (c->cap > UINT32_MAX / 2) return -1;
    uint32_t cap = 2 * c->cap, *it = malloc(cap * sizeof *it);
    if (!it) return -1;
    memcpy(it, c->items, c->n * sizeof *it);
    if (c->cap > SIM_CELL_SLOTS) free(c->items);
    c->items = it;
    c->cap = cap;
  }
  memmove(c->items + 1, c->items, c->n * sizeof *c->items);
  c->items[0] = i;
  c->n++;
  return 0;
}

static void cell_remove(sim *s, uint32_t i, size_t ci) {
  sim_cell *c = &s->cl[ci];
  uint32_t k = 0;
  while (c->items[k] != i) k++;
  memmove(c->items + k, c->items + k + 1, (c->n - k - 1) * sizeof *c->items);
  c->n--;
}

/* With one level of cells: ball i crosses by dir (+1 or -1) along axis into
   the next level-0 cell, leaving its list for the other's first place, as
   cell_remove then cell_insert. A list of SIM_CELL_SLOTS balls or fewer
   (every array holds at least that many) is shifted as one 16-byte vector,
   with no call and no loop. -1 when out of memory. */
static int cell_cross(sim *s, uint32_t i, int axis, int dir) {
  _Static_assert(SIM_CELL_SLOTS == 4, "a cell's slots are one 16-byte vector");
  int32_t *c0 = &s->cell[3 * i];
  const size_t nc0 = (size_t)s->g.nc[0][0], nc1 = (size_t)s->g.nc[0][1];
  const size_t from = ((size_t)c0[2] * nc1 + (size_t)c0[1]) * nc0 + (size_t)c0[0];
  c0[axis] += dir;
  const size_t to = ((size_t)c0[2] * nc1 + (size_t)c0[1]) * nc0 + (size_t)c0[0];
  sim_cell *c = &s->cl[from];
  if (c->n <= SIM_CELL_SLOTS) {
    /* lane k (i's place) and above take their right neighbour's ball */
    const __m128i v = _mm_loadu_si128((const __m128i *)c->items);
    const int k = __builtin_ctz((unsigned)_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(v, _mm_set1_epi32((int)i)))));
    const __m128i below = _mm_cmpgt_epi32(_mm_set1_epi32(k), _mm_set_epi32(3, 2, 1, 0));
    const __m128i r = _mm_or_si128(_mm_and_si128(below, v), _mm_andnot_si128(below, _mm_srli_si128(v, 4)));
    _mm_storeu_si128((__m128i *)c->items, r);
    c->n--;
  } else
    cell_remove(s, i, from);
  c = &s->cl[to];
  if (c->n < SIM_CELL_SLOTS) {
    const __m128i v = _mm_loadu_si128((const __m128i *)c->items);
    _mm_storeu_si128((__m128i *)c->items, _mm_or_si128(_mm_slli_si128(v, 4), _mm_cvtsi32_si128((int)i)));
    c->n++;
    return 0;
  }
  return cell_insert(s, i, to);
}

/* What to do with a candidate partner j of ball i: non-zero stops the scan. */
typedef int (*visit_fn)(sim *s, uint32_t i, uint32_t j, void *ctx);

/* Appends to s->gbuf from m the balls of q's cells that pass its test, cell
   by cell (z, y, x) and in list order within a cell; returns the new count. (A ball lies in one cell of one
   level: at most n are gathered in all, and a copy writes at most
   SIM_CELL_SLOTS past them.) */
static inline size_t gather(sim *s, const sim_nbr *q, size_t m) {
  const int *nc = s->g.nc[q->m];
  uint32_t *buf = s->gbuf;
  size_t m0 = m;
  for (int32_t z = q->lo[2]; z <= q->hi[2]; z++)
    for (int32_t y = q->lo[1]; y <= q->hi[1]; y++) {
      const sim_cell *row = s->cl + s->g.off[q->m] + ((size_t)z * (size_t)nc[1] + (size_t)y) * (size_t)nc[0];
      for (int32_t x = q->lo[0]; x <= q->hi[0]; x++) {
        const sim_cell *c = &row[x];
        if (c->n <= SIM_CELL_SLOTS) memcpy(buf + m, c->items, SIM_CELL_SLOTS * sizeof *buf);
        else memcpy(buf + m, c->items, c->n * sizeof *buf);
        m += c->n;
      }
    }
  if (!q->test) return m;
  size_t w = m0;
  for (size_t k = m0; k < m; k++) {
    uint32_t j = buf[k];
    buf[w] = j;
    w += (size_t)sim_nbr_keep(q, &s->cell[3 * j]);
  }
  return w;
}

/* gather for a block of cells with no test (the candidates' level l no
   coarser than the ball's: always with one level of cells, the uniform
   grid): the block [lo, hi] of level-l cells, row by row, with the bounds in
   locals (a write to the buffer may alias anything the compiler would
   otherwise read again at each cell). The same balls in the same order as
   gather's. */
static inline size_t gather_block(sim *s, int l, const int32_t lo[3], const int32_t hi[3], size_t m) {
  const size_t nc0 = (size_t)s->g.nc[l][0], nc1 = (size_t)s->g.nc[l][1];
  const int32_t x0 = lo[0], y0 = lo[1], z0 = lo[2], nx = hi[0] - lo[0], y1 = hi[1], z1 = hi[2];
  uint32_t *const buf = s->gbuf;
  const sim_cell *const cl = l ? s->cl + s->g.off[l] : s->cl; /* level 0's cells come first */
  for (int32_t z = z0; z <= z1; z++)
    for (int32_t y = y0; y <= y1; y++) {
      const sim_cell *c = cl + ((size_t)z * nc1 + (size_t)y) * nc0 + (size_t)x0;
      for (int32_t x = 0; x <= nx; x++) {
        const uint32_t n = c[x].n;
        const uint32_t *it = c[x].items;
        if (n <= SIM_CELL_SLOTS) memcpy(buf + m, it, SIM_CELL_SLOTS * sizeof *buf);
        else memcpy(buf + m, it, n * sizeof *buf);
        m += n;
      }
    }
  return m;
}

/* One cell's balls appended to buf from m (a list of SIM_CELL_SLOTS or
   fewer as one 16-byte copy, as gather_block copies it); the new count. */
TOI_INLINE size_t gather_cell(uint32_t *buf, const sim_cell *c, size_t m) {
  const uint32_t n = c->n;
  if (__builtin_expect(n <= SIM_CELL_SLOTS, 1)) memcpy(buf + m, c->items, SIM_CELL_SLOTS * sizeof *buf);
  else memcpy(buf + m, c->items, n * sizeof *buf);
  return m + n;
}

/* gather_block in 2D at level 0: the level-0 cells x0..x1 of rows y0..y1
   (their third coordinate 0), row by row, in the same order; a row three
   cells wide (the usual reach of one cell) with no loop over its cells. */
TOI_INLINE size_t gather_rect0(sim *s, int32_t x0, int32_t x1, int32_t y0, int32_t y1, size_t m) {
  const size_t nc0 = (size_t)s->g.nc[0][0];
  uint32_t *const buf = s->gbuf;
  const sim_cell *c = s->cl + (size_t)y0 * nc0 + (size_t)x0;
  if (x1 - x0 == 2) {
    for (int32_t y = y0; y <= y1; y++, c += nc0) {
      m = gather_cell(buf, c, m);
      m = gather_cell(buf, c + 1, m);
      m = gather_cell(buf, c + 2, m);
    }
    return m;
  }
  /* wider rows (a coarse ball's): four cells a turn, copied as gather_cell
     copies them when no list of the four is longer than the slots (their
     lengths' bits together no more than SIM_CELL_SLOTS: one test) */
  const size_t w = (size_t)(x1 - x0) + 1, nq = w / 4;
  for (int32_t y = y0; y <= y1; y++, c += nc0) {
    const sim_cell *q = c;
    for (size_t k = nq; k; k--, q += 4) {
      const uint32_t n0 = q[0].n, n1 = q[1].n, n2 = q[2].n, n3 = q[3].n;
      if (__builtin_expect((n0 | n1 | n2 | n3) <= SIM_CELL_SLOTS, 1)) {
        memcpy(buf + m, q[0].items, SIM_CELL_SLOTS * sizeof *buf);
        m += n0;
        memcpy(buf + m, q[1].items, SIM_CELL_SLOTS * sizeof *buf);
        m += n1;
        memcpy(buf + m, q[2].items, SIM_CELL_SLOTS * sizeof *buf);
        m += n2;
        memcpy(buf + m, q[3].items, SIM_CELL_SLOTS * sizeof *buf);
        m += n3;
      } else {
        m = gather_cell(buf, q, m);
        m = gather_cell(buf, q + 1, m);
        m = gather_cell(buf, q + 2, m);
        m = gather_cell(buf, q + 3, m);
      }
    }
    if (w & 2) {
      m = gather_cell(buf, q, m);
      m = gather_cell(buf, q + 1, m);
      q += 2;
    }
    if (w & 1) m = gather_cell(buf, q, m);
  }
  return m;
}

/* gather_block of sim_nbr_range's block at level 0 for a level-0 ball in
   level-0 cell c0, in 2D (gather_rect0). */
TOI_INLINE size_t gather_nbr0_2d(sim *s, const int32_t c0[3], size_t m) {
  const int32_t *reach = s->g.reach[0][0];
  int32_t lo[2], hi[2];
  for (int d = 0; d < 2; d++) { /* sim_nbr_range's bounds */
    const int32_t c = c0[d], top = s->g.nc[0][d] - 1;
    lo[d] = c > reach[d] ? c - reach[d] : 0;
    hi[d] = top - c > reach[d] ? c + reach[d] : top;
  }
  return gather_rect0(s, lo[0], hi[0], lo[1], hi[1], m);
}

/* The balls of few level l (s->nfew[l] of them) in gather's order: the
   cells that hold them by increasing index (the raster order of a block),
   each cell's list in its order. Made again whenever one of them changes its
   level-l cell. */
static void few_order(sim *s, int l) {
  size_t cells[SIM_FEW];
  uint32_t nc = 0, nf = s->nfew[l], w = 0;
  for (uint32_t f = 0; f < nf; f++) {
    size_t c = ball_cell(s, s->fset[l][f]), k = nc;
    int dup = 0;
    for (uint32_t u = 0; u < nc; u++) dup |= cells[u] == c;
    if (dup) continue;
    for (; k > 0 && cells[k - 1] > c; k--) cells[k] = cells[k - 1];
    cells[k] = c;
    nc++;
  }
  for (uint32_t u = 0; u < nc && w < nf; u++) {
    const sim_cell *c = &s->cl[cells[u]];
    for (uint32_t k = 0; k < c->n && w < nf; k++) s->flist[l][w++] = c->items[k];
  }
}

/* gather_slab0's slab in 2D (slab: its level-0 coordinate along axis, a
   cell of the grid): its cells along the other axis, in the block's order. */
TOI_INLINE size_t gather_slab0_2d(sim *s, const int32_t c0[3], int axis, int32_t slab, size_t m) {
  const int o = 1 - axis;
  const int32_t c = c0[o], r = s->g.reach[0][0][o], top = s->g.nc[0][o] - 1;
  const int32_t lo = c > r ? c - r : 0, hi = top - c > r ? c + r : top;
  const size_t nc0 = (size_t)s->g.nc[0][0];
  uint32_t *const buf = s->gbuf;
  if (axis == 0) { /* a column: one cell a row */
    const sim_cell *cp = s->cl + (size_t)lo * nc0 + (size_t)slab;
    for (int32_t y = lo; y <= hi; y++, cp += nc0) m = gather_cell(buf, cp, m);
  } else { /* a row */
    const sim_cell *cp = s->cl + (size_t)slab * nc0 + (size_t)lo;
    for (int32_t x = 0; x <= hi - lo; x++) m = gather_cell(buf, cp + x, m);
  }
  return m;
}

/* A level-0 ball in cell c0 that crossed along axis in direction dir: the
   balls of the new slab of level-0 cells its neighbourhood reaches
   (sim_levels_layer's slab at level 0, with no test) added to the
   candidates after the first m. The new count. */
TOI_INLINE size_t gather_slab0(sim *s, const int32_t c0[3], int axis, int dir, size_t m) {
  const int32_t slab = c0[axis] + dir * s->g.reach[0][0][axis];
  if (slab < 0 || slab >= s->g.nc[0][axis]) return m;
  if (s->dim == 2) return gather_slab0_2d(s, c0, axis, slab, m);
  int32_t lo[3], hi[3];
  sim_nbr_range(&s->g, c0, 0, 0, lo, hi);
  lo[axis] = hi[axis] = slab;
  return gather_block(s, 0, lo, hi, m);
}

/* Appends to s->gbuf the balls j of few level l for which, on every axis,
   (cj >> e) - (c0 >> e) lies in [dlo, dhi] (cj, c0: the level-0 cells of j
   and of the predicted ball, e a level below l), in gather's order. With
   dlo = -reach and dhi = reach these are the balls that gather finds in the
   level-l cells covering sim_nbr_range's block at level e, with its test
   (cj >> e lies in [0, top] already, so the block's clamping to the cells
   changes nothing); with dlo = dhi = dir reach on one axis, those of
   sim_levels_layer's slab. Returns the new count. */
TOI_INLINE size_t few_gather_dim(sim *s, int l, int e, const int32_t c0[3], const int32_t dlo[3],
                                 const int32_t dhi[3], size_t m, const int dim) {
  const uint32_t nf = s->nfew[l];
  uint32_t *const buf = s->gbuf;
  int32_t base[3];
  uint32_t span[3];
  for (int d = 0; d < dim; d++) {
    base[d] = (c0[d] >> e) + dlo[d];
    span[d] = (uint32_t)(dhi[d] - dlo[d]);
  }
  for (uint32_t u = 0; u < nf; u++) {
    const uint32_t j = s->flist[l][u];
    const int32_t *cj = &s->cell[3 * j];
    int keep = 1;
    for (int d = 0; d < dim; d++) keep &= (uint32_t)((cj[d] >> e) - base[d]) <= span[d];
    buf[m] = j;
    m += (size_t)keep;
  }
  return m;
}

/* few_gather for a level-0 ball in 2D when the grid's levels are 0 and few
   level s->few2: the balls j of that level whose level-0 cell cj has
   cj[d] - lo[d] within [0, span[d]] on both axes, in their order. */
TOI_INLINE size_t few2_gather(sim *s, int32_t lo0, int32_t lo1, uint32_t span0, uint32_t span1, size_t m) {
  const uint32_t nf = s->few2n, *const fl = s->few2l;
  uint32_t *const buf = s->gbuf;
  for (uint32_t u = 0; u < nf; u++) {
    const uint32_t j = fl[u];
    const int32_t *cj = &s->cell[3 * j];
    buf[m] = j;
    m += (size_t)(((uint32_t)(cj[0] - lo0) <= span0) & ((uint32_t)(cj[1] - lo1) <= span1));
  }
  return m;
}

/* few_gather_dim in s->dim dimensions (a constant in each call). */
TOI_INLINE size_t few_gather(sim *s, int l, int e, const int32_t c0[3], const int32_t dlo[3], const int32_t dhi[3],
                             size_t m) {
  if (s->dim == 2) return few_gather_dim(s, l, e, c0, dlo, dhi, m, 2);
  return few_gather_dim(s, l, e, c0, dlo, dhi, m, 3);
}

/* 1 when the grid is one level of cells, level 0 (gather_block applies). */
static inline int one_level(const sim *s) { return s->g.nused == 1 && s->g.used[0] == 0; }

/* The balls of q's cells that pass its test, cell by cell (z, y, x) and in
   list order within a cell, so the order of predictions is fixed, gathered
   first (gather) so that the loop over the candidates is one loop whose end
   the processor can guess, not one a cell. */
static inline int scan(sim *s, const sim_nbr *q, uint32_t i, visit_fn fn, void *ctx) {
  size_t m = gather(s, q, 0);
  for (size_t k = 0; k < m; k++)
    if (fn(s, i, s->gbuf[k], ctx)) return 1;
  return 0;
}

/* Every neighbour of ball i, level by level. */
static inline int scan_neighbours(sim *s, uint32_t i, visit_fn fn, void *ctx) {
  for (int u = 0; u < s->g.nused; u++) {
    sim_nbr q;
    if (sim_levels_nbr(&s->g, &s->cell[3 * i], s->g.level[i], s->g.used[u], &q) &&
        scan(s, &q, i, fn, ctx))
      return 1;
  }
  return 0;
}

/* ---- heap ---- */

static int ev_valid(const sim *s, const ev *e) {
  if (s->cnt[e->a] != e->ca) return 0;
  return e->kind != SIM_EV_PAIR || s->cnt[e->b] == e->cb;
}

/* Pushes e with insertion number seq (a batched prediction's, reserved when
   it was asked: the order of events is the one-by-one kernel's). */
static int heap_push_seq(sim *s, ev e, uint64_t seq) { return sim_queue_push_seq(&s->q, e, seq); }

static int heap_push(sim *s, ev e) { return sim_queue_push(&s->q, e); }

/* The earliest event; a stale one whose own ball changed takes the rest of
   that ball's list with it (all predicted before the change). */
static ev heap_pop(sim *s) {
  ev top = sim_queue_pop(&s->q);
  if (s->cnt[top.a] != top.ca) sim_queue_drop_ball(&s->q, top.a);
  return top;
}

/* ---- failures ---- */

static void fail(sim *s, sim_status st, size_t a, size_t b, const char *what) {
  if (s->stop) return;
  s->stop = 1;
  s->rep->status = st;
  s->rep->event = s->phys + 1;
  s->rep->a = a;
  s->rep->b = b;
  if (a == SIZE_MAX)
    snprintf(s->rep->message, sizeof s->rep->message, "event %llu: %s",
             (unsigned long long)(s->phys + 1), what);
  else if (a == b)
    snprintf(s->rep->message, sizeof s->rep->message, "event %llu: kernel %s: %s (ball %zu)",
             (unsigned long long)(s->phys + 1), s->k->name, what, a);
  else
    snprintf(s->rep->message, sizeof s->rep->message,
             "event %llu: kernel %s: %s (balls %zu and %zu)", (unsigned long long)(s->phys + 1),
             s->k->name, what, a, b);
}

/* ---- prediction ---- */

/* c ? x : y (c is 0 or 1) by masks on the bits, where the compiler would
   otherwise branch on a condition the processor cannot guess. */
static inline double select_double(int c, double x, double y) {
  uint64_t m = -(uint64_t)c, ux, uy;
  memcpy(&ux, &x, sizeof ux);
  memcpy(&uy, &y, sizeof uy);
  ux = (ux & m) | (uy & ~m);
  memcpy(&x, &ux, sizeof x);
  return x;
}

static inline void centre_at(const sim *s, uint32_t i, double t, double out[3]) {
  double dt = t - s->b[i].tr;
  const double *p = s->b[i].p, *v = s->b[i].v;
  out[0] = p[0] + v[0] * dt;
  out[1] = p[1] + v[1] * dt;
  out[2] = s->dim == 3 ? p[2] + v[2] * dt : 0;
}

/* centre_at as a float engine computes it from float centres and
   velocities: p + v dt in float, dt = t - tr rounded to float. */
static void centre_at32(const sim *s, uint32_t i, double t, double out[3]) {
  float dt = (float)(t - s->b[i].tr);
  for (int d = 0; d < 3; d++) {
    float x = (float)s->b[i].p[d] + (float)s->b[i].v[d] * dt;
    out[d] = d < s->dim ? x : 0;
  }
}

/* Ball a's side of a case from base: its centre there, velocity, radius and
   mass (the third components 0 in 2D). A ball predicted against all its
   neighbours computes this once. */
static inline void case_side(const sim *s, uint32_t a, double base, double p[3], double v[3], double *r,
                             double *m) {
  if (s->f32) centre_at32(s, a, base, p);
  else centre_at(s, a, base, p);
  memcpy(v, s->b[a].v, 3 * sizeof *v); /* its third component is 0 in 2D */
  *r = s->b[a].r;
  *m = s->mass[a];
}

/* The case of a (its side already in half) and b from base. Every field
   written and an empty ID, rather than clearing the whole case first: this
   runs for every prediction. */
static inline void complete_case(const sim *s, const toi_case *half, uint32_t b, double base, toi_case *c) {
  c->id[0] = 0;
  c->dim = s->dim;
  memcpy(c->pa, half->pa, sizeof c->pa);
  memcpy(c->va, half->va, sizeof c->va);
  c->ra = half->ra;
  c->ma = half->ma;
  case_side(s, b, base, c->pb, c->vb, &c->rb, &c->mb);
}

static inline void build_case(const sim *s, uint32_t a, uint32_t b, double base, toi_case *c) {
  c->id[0] = 0;
  c->dim = s->dim;
  case_side(s, a, base, c->pa, c->va, &c->ra, &c->ma);
  case_side(s, b, base, c->pb, c->vb, &c->rb, &c->mb);
}

/* The kernel's answer r, dt for pair (a, b), predicted now: its contact
   event, pushed with insertion number seq. */
static void pair_answer_in(sim *s, uint32_t a, uint32_t b, int r, double dt, uint64_t seq) {
  if (r < 0 || (r > 0 && isnan(dt))) {
    fail(s, SIM_NAN, a, b, "NaN contact time");
    return;
  }
  if (r == 0 || !(dt >= 0)) return;
  double t = s->tnow + dt;
  if (isinf(t)) return;
  ev e = {.time = t, .base = s->tnow, .dt = dt, .a = a, .b = b, .ca = s->cnt[a],
          .cb = s->cnt[b], .kind = SIM_EV_PAIR};
  if (heap_push_seq(s, e, seq)) fail(s, SIM_NOMEM, SIZE_MAX, SIZE_MAX, "out of memory");
}

/* A batch kernel's answers to the pending predictions, in the order asked. */
static void flush_batch(sim *s) {
  size_t n = s->bn;
  s->bn = 0;
  if (!n || s->stop) return;
  for (size_t i = 0; i < n; i++) {
    s->br[i] = 0;
    s->bdt[i] = NAN;
  }
  s->k->pair_toi_batch(s->k->ctx, s->bq, n, s->br, s->bdt);
  for (size_t i = 0; i < n && !s->stop; i++)
    pair_answer_in(s, s->bab[2 * i], s->bab[2 * i + 1], s->br[i], s->bdt[i], s->bseq[i]);
}

/* Pair (a, b) predicted now, a's side of the case in half. */
static void predict_pair(sim *s, const toi_case *half, uint32_t a, uint32_t b) {
  if (s->stop) return;
  toi_case local, *c = s->k->pair_toi_batch ? &s->bq[s->bn] : &local;
  complete_case(s, half, b, s->tnow, c);
  s->predictions++;
  if (s->ids) {
    snprintf(c->id, sizeof c->id, "e%06" PRIu64 "-p%04" PRIu32 "-%04" PRIu32, s->processed, a, b);
    sim_predict_info info = {s->processed, a, b, c};
    if (s->cfg->on_predict && s->cfg->on_predict(s->cfg->ctx, &info)) {
      s->stop = 1;
      s->rep->status = SIM_STOPPED;
      s->rep->event = s->phys;
      snprintf(s->rep->message, sizeof s->rep->message, "stopped by the caller at a prediction after event %llu",
               (unsigned long long)s->phys);
      return;
    }
  }
  if (s->k->pair_toi_batch) {
    s->bab[2 * s->bn] = a;
    s->bab[2 * s->bn + 1] = b;
    s->bseq[s->bn++] = s->q.seq++;
    if (s->bn == SIM_BATCH) flush_batch(s);
    return;
  }
  double dt = NAN;
  int r = s->k->pair_toi(s->k->ctx, c, &dt);
  pair_answer_in(s, a, b, r, dt, s->q.seq++);
}

static void predict_wall(sim *s, uint32_t i) {
  if (s->stop) return;
  const sim_ball *bl = &s->st->balls[i];
  double best = INFINITY, bdt = 0;
  int baxis = -1, bside = 0;
  if (s->wall_double) { /* sim_wall_toi_double's arithmetic, kept by selection as in predict_cell */
    for (int d = 0; d < s->dim; d++) {
      double vd = s->b[i].v[d];
      int side = vd > 0, moving = vd != 0;
      double wall = select_double(side, s->st->box[d], 0);
      double target = select_double(side, wall - bl->r, wall + bl->r);
      double dt = (target - s->b[i].p[d]) / vd;
      if (moving & isnan(dt)) {
        fail(s, SIM_NAN, i, i, "NaN wall contact time");
        return;
      }
      dt = select_double(dt < 0, 0, dt); /* already at the wall through rounding: bounce now */
      double t = s->b[i].tr + dt;
      int take = moving & (t < best);
      best = select_double(take, t, best);
      bdt = select_double(take, dt, bdt);
      baxis = take ? d : baxis;
      bside = take ? side : bside;
    }
  }
  for (int d = 0; d < s->dim && !s->wall_double; d++) {
    double vd = s->b[i].v[d];
    if (vd == 0) continue;
    int side = vd > 0;
    double wall = side ? s->st->box[d] : 0, dt = NAN;
    int r = s->k->wall_toi(s->k->ctx, s->b[i].p, s->b[i].v, bl->r, s->dim, d, wall, &dt);
    if (r < 0 || isnan(dt)) {
      fail(s, SIM_NAN, i, i, "NaN wall contact time");
      return;
    }
    if (dt < 0) dt = 0; /* already at the wall through rounding: bounce now */
    double t = s->b[i].tr + dt;
    if (t < best) {
      best = t;
      bdt = dt;
      baxis = d;
      bside = side;
    }
  }
  if (baxis < 0 || isinf(best)) return;
  if (best < s->tnow) best = s->tnow;
  ev e = {.time = best, .base = s->b[i].tr, .dt = bdt, .a = i, .b = (uint32_t)(2 * baxis + bside),
          .ca = s->cnt[i], .kind = SIM_EV_WALL};
  if (heap_push(s, e)) fail(s, SIM_NOMEM, SIZE_MAX, SIZE_MAX, "out of memory");
}

static void predict_cell(sim *s, uint32_t i) {
  if (s->stop) return;
  double best = INFINITY;
  int baxis = -1, bside = 0;
  /* Each axis's crossing computed whether or not it has one, then kept by
     selection: the signs of the velocity are no pattern the processor can
     guess. Without a crossing (vd = 0 among them) t is not looked at. */
  for (int d = 0; d < s->dim; d++) {
    double vd = s->b[i].v[d];
    int c = s->cell[3 * i + d];
    int up = (vd > 0) & (c < s->g.nc[0][d] - 1), down = (vd < 0) & (c > 0);
    double bound = (c + up) * s->g.w[d];
    double t = s->b[i].tr + (bound - s->b[i].p[d]) / vd;
    int take = (up | down) & (t < best);
    best = select_double(take, t, best);
    baxis = take ? d : baxis;
    bside = take ? up : bside;
  }
  if (baxis < 0 || !(best < INFINITY)) return;
  if (best < s->tnow) best = s->tnow;
  ev e = {.time = best, .a = i, .b = (uint32_t)(2 * baxis + bside), .ca = s->cnt[i],
          .kind = SIM_EV_CELL};
  if (heap_push(s, e)) fail(s, SIM_NOMEM, SIZE_MAX, SIZE_MAX, "out of memory");
}

/* m ? x : y in the low lanes (m all ones or 0 there), by masks. */
static inline __m128d sel_sd(__m128d m, __m128d x, __m128d y) {
  return _mm_or_pd(_mm_and_pd(m, x), _mm_andnot_pd(m, y));
}

/* t < lo ? lo : t, as one instruction: maxsd(lo, t) is lo when lo > t, else t
   (t when they are equal or t is NaN, as the selection). */
static inline double clamp_below(double t, double lo) {
  return _mm_cvtsd_f64(_mm_max_sd(_mm_set_sd(lo), _mm_set_sd(t)));
}

/* The end of predict_wall_cell_dim: its events from the best times, axes and
   sides found (waxis or caxis -1: none). */
TOI_INLINE int push_wall_cell(sim *s, uint32_t i, int walls, double wbest, double wdt, int waxis, int wside,
                              double cbest, int caxis, int cside) {
  const double tnow = s->tnow;
  uint32_t wkeep = (uint32_t)(walls & (waxis >= 0) & !isinf(wbest));
  uint32_t ckeep = (uint32_t)((caxis >= 0) & (cbest < INFINITY));
  if (!(wkeep | ckeep)) return 0;
  /* room for the events kept only, so that a list grows as one push at a
     time would grow it (a ball seldom has no wall or no crossing ahead) */
  if (sim_queue_room(&s->q, i, s->cnt[i], wkeep + ckeep)) {
    fail(s, SIM_NOMEM, SIZE_MAX, SIZE_MAX, "out of memory");
    return 1;
  }
  uint64_t seq = s->q.seq;
  if (wkeep) {
    sim_qev w = {.time = clamp_below(wbest, tnow), .base = s->b[i].tr, .dt = wdt,
                 .sk = seq++ << 2 | SIM_EV_WALL, .b = (uint32_t)(2 * waxis + wside)};
    sim_queue_put(&s->q, i, &w, 1);
  }
  if (ckeep) {
    sim_qev c = {.time = clamp_below(cbest, tnow), .sk = seq++ << 2 | SIM_EV_CELL,
                 .b = (uint32_t)(2 * caxis + cside)};
    sim_queue_put(&s->q, i, &c, 1);
  }
  s->q.seq = seq;
  sim_qmark(&s->q, i);
  return 0;
}

/* The next wall contact (when walls) and the next cell crossing (when
   cells) of ball i in dim dimensions (a constant where it is inlined), as
   predict_wall with sim_wall_toi_double's walls and predict_cell compute
   them, the same operations in the same order: pushed in that order with
   the same insertion numbers, written to i's list by sim_queue_put (room
   for them made once, no event passed through the stack). Returns 1 when
   the run stops (a NaN wall time: no crossing is predicted then, as when
   predict_wall fails before predict_cell). */
TOI_INLINE int predict_wall_cell_dim(sim *s, uint32_t i, int walls, const int dim) {
  const sim_body *b = &s->b[i];
  const double tr = b->tr;
  double wbest = INFINITY, wdt = 0, cbest = INFINITY;
  int waxis = -1, wside = 0, caxis = -1, cside = 0;
  for (int d = 0; d < dim; d++) {
    const double vd = b->v[d], pd = b->p[d];
    if (walls) {
      int side = vd > 0, moving = vd != 0;
      double wall = select_double(side, s->st->box[d], 0);
      double target = select_double(side, wall - b->r, wall + b->r);
      double dt = (target - pd) / vd;
      if (moving & isnan(dt)) {
        fail(s, SIM_NAN, i, i, "NaN wall contact time");
        return 1;
      }
      dt = select_double(dt < 0, 0, dt);
      double t = tr + dt;
      int take = moving & (t < wbest);
      wbest = select_double(take, t, wbest);
      wdt = select_double(take, dt, wdt);
      waxis = take ? d : waxis;
      wside = take ? side : wside;
    }
    {
      int c = s->cell[3 * i + d];
      int up = (vd > 0) & (c < s->g.nc[0][d] - 1), down = (vd < 0) & (c > 0);
      double bound = (c + up) * s->g.w[d];
      double t = tr + (bound - pd) / vd;
      int take = (up | down) & (t < cbest);
      cbest = select_double(take, t, cbest);
      caxis = take ? d : caxis;
      cside = take ? up : cside;
    }
  }
  return push_wall_cell(s, i, walls, wbest, wdt, waxis, wside, cbest, caxis, cside);
}

/* predict_wall_cell_dim in 2D, both axes at once in the two lanes of SSE2
   registers: each lane the same IEEE operations as the scalar axis (the
   walls' and the crossings' divisions one instruction each), then the same
   selections over the axes in order. */
TOI_INLINE int predict_wall_cell2(sim *s, uint32_t i, int walls) {
  const sim_body *b = &s->b[i];
  const double tr = b->tr;
  const __m128d v = _mm_loadu_pd(b->v), p = _mm_loadu_pd(b->p), ttr = _mm_set1_pd(tr), zero = _mm_setzero_pd();
  const __m128d gt = _mm_cmpgt_pd(v, zero);
  const int side = _mm_movemask_pd(gt);
  double wbest = INFINITY, wdt = 0, cbest = INFINITY;
  int waxis = -1, wside = 0, caxis = -1, cside = 0;
  if (walls) {
    const int moving = _mm_movemask_pd(_mm_cmpneq_pd(v, zero));
    const __m128d wall = _mm_and_pd(gt, _mm_loadu_pd(s->st->box)), r = _mm_set1_pd(b->r);
    const __m128d target = _mm_or_pd(_mm_and_pd(gt, _mm_sub_pd(wall, r)), _mm_andnot_pd(gt, _mm_add_pd(wall, r)));
    __m128d dt = _mm_div_pd(_mm_sub_pd(target, p), v);
    if (moving & _mm_movemask_pd(_mm_cmpunord_pd(dt, dt))) {
      fail(s, SIM_NAN, i, i, "NaN wall contact time");
      return 1;
    }
    dt = _mm_andnot_pd(_mm_cmplt_pd(dt, zero), dt);
    const __m128d t = _mm_add_pd(ttr, dt);
    /* axis 0 then axis 1 taken when moving and earlier (in the low lanes,
       the selections by masks of the comparisons) */
    const __m128d mov = _mm_cmpneq_pd(v, zero), inf = _mm_set_sd(INFINITY);
    const __m128d take0 = _mm_and_pd(_mm_cmplt_sd(t, inf), mov);
    __m128d wb = sel_sd(take0, t, inf), wd = sel_sd(take0, dt, zero);
    const __m128d t1 = _mm_unpackhi_pd(t, t), dt1 = _mm_unpackhi_pd(dt, dt);
    const __m128d take1 = _mm_and_pd(_mm_cmplt_sd(t1, wb), _mm_unpackhi_pd(mov, mov));
    wb = sel_sd(take1, t1, wb);
    wd = sel_sd(take1, dt1, wd);
    wbest = _mm_cvtsd_f64(wb);
    wdt = _mm_cvtsd_f64(wd);
    const int k0 = _mm_movemask_pd(take0) & 1, k1 = _mm_movemask_pd(take1) & 1;
    waxis = k1 ? 1 : k0 ? 0 : -1;
    wside = k1 ? (side >> 1) : k0 ? (side & 1) : 0;
  }
  /* the cells' bounds as masks of both axes: up when moving up below the
     last cell, down when moving down above the first (32-bit lanes for the
     cells, 64-bit ones for the times) */
  const __m128i ci = _mm_loadl_epi64((const __m128i *)&s->cell[3 * i]);
  const __m128i top = _mm_add_epi32(_mm_loadl_epi64((const __m128i *)s->g.nc[0]), _mm_set1_epi32(-1));
  const __m128i up32 = _mm_and_si128(_mm_cmpgt_epi32(top, ci), _mm_shuffle_epi32(_mm_castpd_si128(gt), 0x08));
  const __m128i down32 = _mm_and_si128(_mm_cmpgt_epi32(ci, _mm_setzero_si128()),
                                       _mm_shuffle_epi32(_mm_castpd_si128(_mm_cmplt_pd(v, zero)), 0x08));
  const __m128d up = _mm_castsi128_pd(_mm_unpacklo_epi32(up32, up32));
  const __m128d cross = _mm_castsi128_pd(_mm_unpacklo_epi32(_mm_or_si128(up32, down32), _mm_or_si128(up32, down32)));
  /* (c + up) w, c + up as c minus the mask */
  const __m128d bound = _mm_mul_pd(_mm_cvtepi32_pd(_mm_sub_epi32(ci, up32)), _mm_loadu_pd(s->g.w));
  const __m128d t = _mm_add_pd(ttr, _mm_div_pd(_mm_sub_pd(bound, p), v));
  /* axis 0 then axis 1 taken when crossing and earlier, as the walls */
  const __m128d inf = _mm_set_sd(INFINITY);
  const __m128d ctake0 = _mm_and_pd(_mm_cmplt_sd(t, inf), cross);
  __m128d cb = sel_sd(ctake0, t, inf);
  const __m128d t1 = _mm_unpackhi_pd(t, t);
  const __m128d ctake1 = _mm_and_pd(_mm_cmplt_sd(t1, cb), _mm_unpackhi_pd(cross, cross));
  cb = sel_sd(ctake1, t1, cb);
  cbest = _mm_cvtsd_f64(cb);
  const int k0 = _mm_movemask_pd(ctake0) & 1, k1 = _mm_movemask_pd(ctake1) & 1, upm = _mm_movemask_pd(up);
  caxis = k1 ? 1 : k0 ? 0 : -1;
  cside = k1 ? upm >> 1 : k0 ? upm & 1 : 0;
  return push_wall_cell(s, i, walls, wbest, wdt, waxis, wside, cbest, caxis, cside);
}

/* predict_wall then predict_cell, for a kernel with sim_wall_toi_double's
   walls (s->wall_double), or predict_cell alone (walls 0). */
TOI_INLINE void predict_wall_cell(sim *s, uint32_t i, int walls) {
  if (s->stop) return;
  if (walls) {
    if (s->dim == 2) predict_wall_cell2(s, i, 1);
    else predict_wall_cell_dim(s, i, 1, 3);
  } else if (s->dim == 2) predict_wall_cell2(s, i, 0);
  else predict_wall_cell_dim(s, i, 0, 3);
}

typedef struct predict_ctx {
  uint32_t skip;
  int only_higher;
  toi_case half; /* ball i's side of its cases, now */
} predict_ctx;

static void predict_ctx_init(const sim *s, predict_ctx *pc, uint32_t i, uint32_t skip, int only_higher) {
  pc->skip = skip;
  pc->only_higher = only_higher;
  case_side(s, i, s->tnow, pc->half.pa, pc->half.va, &pc->half.ra, &pc->half.ma);
}

static int predict_visit(sim *s, uint32_t i, uint32_t j, void *ctx) {
  const predict_ctx *pc = ctx;
  if (j == i || j == pc->skip || (pc->only_higher && j < i)) return 0;
  predict_pair(s, &pc->half, i, j);
  return s->stop;
}

/* The ericson kernel's predictions (s->ericson): ball i against the m
   balls gathered in s->gbuf, in their order, two at a time by
   sim_ericson_toi2 on each partner's record, the same answers and events
   as predict_pair's without a case. The balls that are not candidates (i
   itself, pc's skip, below i with only_higher) are lanes masked out: they
   count no prediction and take no insertion number. When either lane has a
   contact, both are written to i's list and kept by the list's length: which
   of the two meets is no pattern the processor can guess. Returns 1 when the
   run stops. */
static int predict_ericson(sim *s, const predict_ctx *pc, uint32_t i, size_t m) {
  uint32_t *cand = s->gbuf;
  cand[m] = i; /* an odd count's last lane: never a candidate */
  const uint32_t skip = pc->skip, oh = (uint32_t)pc->only_higher;
  const double tnow = s->tnow;
  uint32_t kept = 0;
  for (size_t k = 0; k < m; k += 2) {
    uint32_t j0 = cand[k], j1 = cand[k + 1];
    uint32_t keep0 = (j0 != i) & (j0 != skip) & (1u ^ (oh & (j0 < i)));
    uint32_t keep1 = (j1 != i) & (j1 != skip) & (1u ^ (oh & (j1 < i)));
    double dt[2];
    int nan;
    int hit = sim_ericson_toi2(pc->half.pa, pc->half.va, pc->half.ra, &s->b[j0], &s->b[j1], tnow, s->dim, dt,
                               &nan);
    uint64_t seq = s->q.seq;
    s->predictions += keep0 + keep1;
    s->q.seq += keep0 + keep1;
    hit &= (int)(keep0 | keep1 << 1);
    nan &= (int)(keep0 | keep1 << 1);
    if (!(hit | nan)) continue;
    if (sim_queue_room2(&s->q, i, s->cnt[i])) {
      fail(s, SIM_NOMEM, SIZE_MAX, SIZE_MAX, "out of memory");
      return 1;
    }
    if (nan) { /* one by one, in order: the first NaN stops the run */
      if (nan & 1) {
        s->predictions -= keep1;
        s->q.seq -= keep1;
        pair_answer_in(s, i, j0, -1, NAN, seq);
        return 1;
      }
      if (hit & 1) pair_answer_in(s, i, j0, 1, dt[0], seq);
      if (!s->stop) pair_answer_in(s, i, j1, -1, NAN, seq + keep0);
      return 1;
    }
    /* pair_answer_in's event, kept when the contact's time is finite */
    double t0 = tnow + dt[0], t1 = tnow + dt[1];
    uint32_t push0 = (uint32_t)(hit & 1) & (t0 < INFINITY), push1 = (uint32_t)(hit >> 1) & (t1 < INFINITY);
    sim_qev e0 = {.time = t0, .base = tnow, .dt = dt[0], .sk = seq << 2 | SIM_EV_PAIR, .b = j0, .cb = s->cnt[j0]};
    sim_queue_put(&s->q, i, &e0, push0);
    sim_qev e1 = {.time = t1, .base = tnow, .dt = dt[1], .sk = (seq + keep0) << 2 | SIM_EV_PAIR, .b = j1,
                  .cb = s->cnt[j1]};
    sim_queue_put(&s->q, i, &e1, push1);
    kept |= push0 | push1;
  }
  if (kept) sim_qmark(&s->q, i);
  return 0;
}

/* predict_ericson4's first loop: the answers of the groups of four in
   s->gbuf for ball i, into s->gdt, and each group's candidates and answers
   into s->gm. A group's candidates by SSE compares of its four numbers
   (not i, not pc's skip, above i with only_higher: i's lanes fill the last
   group): fewer instructions than the compiler's own vectorised loop. */
SIM_AVX2 TOI_INLINE void ericson4_groups(sim *s, const predict_ctx *pc, uint32_t i, size_t m, const int dim) {
  const uint32_t *cand = s->gbuf;
  const double tnow = s->tnow;
  double *gdt = s->gdt;
  uint8_t *gm = s->gm;
  const __m128i vi = _mm_set1_epi32((int)i), vskip = _mm_set1_epi32((int)pc->skip),
                voh = _mm_set1_epi32(-pc->only_higher);
  for (size_t k = 0, g = 0; k < m; k += 4, g++) {
    const __m128i j = _mm_loadu_si128((const __m128i *)(cand + k));
    /* not a candidate: i, the skipped one, or at most i (unsigned) with only_higher */
    const __m128i no = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi32(j, vi), _mm_cmpeq_epi32(j, vskip)),
                                    _mm_and_si128(voh, _mm_cmpeq_epi32(_mm_min_epu32(j, vi), j)));
    const unsigned lanes = ~(unsigned)_mm_movemask_ps(_mm_castsi128_ps(no)) & 15;
    /* the records' offsets (64 bytes a record) from the same four numbers,
       in 32 bits: fewer than 2^26 balls (s->avx2) */
    const __m128i off = _mm_slli_epi32(j, 6);
    const char *const b0 = (const char *)s->b;
    const sim_body *bk[4] = {(const sim_body *)(b0 + (uint32_t)_mm_cvtsi128_si32(off)),
                             (const sim_body *)(b0 + (uint32_t)_mm_extract_epi32(off, 1)),
                             (const sim_body *)(b0 + (uint32_t)_mm_extract_epi32(off, 2)),
                             (const sim_body *)(b0 + (uint32_t)_mm_extract_epi32(off, 3))};
    int nan;
    int hit = sim_ericson_toi4(pc->half.pa, pc->half.va, pc->half.ra, bk, tnow, dim, gdt + k, &nan);
    gm[2 * g] = (uint8_t)lanes;
    gm[2 * g + 1] = (uint8_t)(((unsigned)hit & lanes) | ((unsigned)nan & lanes) << 4);
  }
}

/* predict_ericson four partners at a time (sim_ericson_toi4), when the
   processor has AVX2: the same answers, insertion numbers and events in the
   same order. Every group's answers come first, into s->gdt and s->gm with
   no branch on them; then the groups that meet are written to i's list, two
   lanes at a time as there (so the list grows as it would): a branch on
   whether a group meets then no longer waits for its root's division. */
SIM_AVX2 static int predict_ericson4(sim *s, const predict_ctx *pc, uint32_t i, size_t m) {
  uint32_t *cand = s->gbuf;
  cand[m] = cand[m + 1] = cand[m + 2] = i; /* the last lanes: never candidates */
  const double tnow = s->tnow;
  double *gdt = s->gdt;
  uint8_t *gm = s->gm;
  /* first every group's answers, with no branch on them ... */
  ericson4_groups(s, pc, i, m, s->dim);
  /* ... then the contacts, in order, with their insertion numbers; i's
     list (its events, length, earliest and its time) in locals from its
     first contact on (E set), stored back before anything else reads it */
  sim_qlist *const L = &s->q.list[i];
  sim_qev *E = NULL;
  uint32_t n = 0, n0 = 0, cap = 0;
  /* the list's earliest (sim_queue_put's): found when the list is stored
     back, over the events kept since it was loaded (from n0), in their
     order, each the earliest when earlier in time (its seq is above the
     earlier ones'): the same event as one put at a time keeps, with no
     work for the lanes written and not kept */
#define PUT_STORE()                                                                                       \
  do {                                                                                                    \
    if (E) {                                                                                              \
      uint32_t best_ = s->q.best[i];                                                                      \
      double bt_ = s->q.btime[i];                                                                         \
      for (uint32_t k_ = n0; k_ < n; k_++) {                                                              \
        const double t_ = E[k_].time;                                                                     \
        best_ = t_ < bt_ ? k_ : best_;                                                                    \
        bt_ = t_ < bt_ ? t_ : bt_;                                                                        \
      }                                                                                                   \
      L->n = n;                                                                                           \
      s->q.best[i] = best_;                                                                               \
      s->q.btime[i] = bt_;                                                                                \
    }                                                                                                     \
  } while (0)
  /* sim_queue_put: written in any case, kept by the length */
#define PUT_ONE(t, d, sqn, jj, keep)                                                                      \
  do {                                                                                                    \
    sim_qev *const x_ = &E[n];                                                                            \
    x_->time = (t);                                                                                       \
    x_->base = tnow;                                                                                      \
    x_->dt = (d);                                                                                         \
    x_->sk = (sqn) << 2 | SIM_EV_PAIR;                                                                    \
    x_->b = (jj);                                                                                         \
    x_->cb = s->cnt[jj];                                                                                  \
    n += (keep);                                                                                          \
  } while (0)
  uint64_t seq = s->q.seq;
  const uint64_t seq0 = seq;
  uint32_t kept = 0;
  /* the candidates among a group's four lanes, by its lane bits */
  static const uint8_t ncand[16] = {0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4};
  for (size_t k = 0, g = 0; k < m; k += 4, g++) {
    const unsigned lanes = gm[2 * g], hn = gm[2 * g + 1];
    if (!hn) { /* no contact: only their insertion numbers */
      seq += ncand[lanes];
      continue;
    }
    uint64_t sq[4];
    sq[0] = seq;
    sq[1] = sq[0] + (lanes & 1);
    sq[2] = sq[1] + (lanes >> 1 & 1);
    sq[3] = sq[2] + (lanes >> 2 & 1);
    seq = sq[3] + (lanes >> 3 & 1);
    const int hit = (int)(hn & 15), nan = (int)(hn >> 4);
    const uint32_t *j = cand + k;
    const double *dt = gdt + k;
    if (nan) { /* one by one, in order: the first NaN stops the run */
      PUT_STORE();
      int first = __builtin_ctz((unsigned)nan);
      s->predictions += sq[first] + 1 - seq0; /* the predictions up to the NaN's */
      s->q.seq = sq[first] + 1;
      if (sim_queue_room2(&s->q, i, s->cnt[i])) {
        fail(s, SIM_NOMEM, SIZE_MAX, SIZE_MAX, "out of memory");
        return 1;
      }
      for (int l = 0; l < first && !s->stop; l++)
        if (hit >> l & 1) pair_answer_in(s, i, j[l], 1, dt[l], sq[l]);
      if (!s->stop) pair_answer_in(s, i, j[first], -1, NAN, sq[first]);
      return 1;
    }
#pragma GCC unroll 2
    for (int l = 0; l < 4; l += 2) {
      if (!(hit >> l & 3)) continue;
      if (!E || n + 2 > cap) { /* sim_queue_room2, i's list then held in locals */
        PUT_STORE();
        if (sim_queue_room2(&s->q, i, s->cnt[i])) {
          /* the predictions up to this pair's, as predict_ericson counts them */
          const uint64_t upto = l == 0 ? sq[2] : seq;
          s->predictions += upto - seq0;
          s->q.seq = upto;
          fail(s, SIM_NOMEM, SIZE_MAX, SIZE_MAX, "out of memory");
          return 1;
        }
        E = L->e;
        n = n0 = L->n;
        cap = L->cap;
      }
      /* pair_answer_in's event, kept when the contact's time is finite;
         written as sim_queue_put writes it */
      double t0 = tnow + dt[l], t1 = tnow + dt[l + 1];
      uint32_t push0 = (uint32_t)(hit >> l & 1) & (t0 < INFINITY),
               push1 = (uint32_t)(hit >> (l + 1) & 1) & (t1 < INFINITY);
      PUT_ONE(t0, dt[l], sq[l], j[l], push0);
      PUT_ONE(t1, dt[l + 1], sq[l + 1], j[l + 1], push1);
      kept |= push0 | push1;
    }
  }
  PUT_STORE();
  s->predictions += seq - seq0;
  s->q.seq = seq;
  if (kept) sim_qmark(&s->q, i);
  return 0;
#undef PUT_ONE
#undef PUT_STORE
}

static int sim_lanes = 4;

void sim_set_lanes(int lanes) { sim_lanes = lanes == 2 ? 2 : 4; }

/* The ericson predictions of ball i against the m balls in s->gbuf. */
static int predict_ericson_any(sim *s, const predict_ctx *pc, uint32_t i, size_t m) {
  return s->avx2 ? predict_ericson4(s, pc, i, m) : predict_ericson(s, pc, i, m);
}

/* The neighbours of ball i, level by level, gathered into s->gbuf as
   scan_neighbours visits them (several levels of cells; apart, so that the
   one level's path keeps its registers); returns their count. */
static __attribute__((noinline)) size_t gather_levels(sim *s, uint32_t i) {
  size_t m = 0;
  const int li = s->g.level[i];
  const int32_t *c0 = &s->cell[3 * i];
  for (int u = 0; u < s->g.nused; u++) {
    const int lm = s->g.used[u];
    if ((li | lm) == 0 && s->dim == 2) {
      m = gather_nbr0_2d(s, c0, m);
    } else if (lm == 0 && s->dim == 2) { /* level 0's block for a coarser ball, as gather_block's */
      int32_t lo[3], hi[3];
      sim_nbr_range(&s->g, c0, li, 0, lo, hi);
      m = gather_rect0(s, lo[0], hi[0], lo[1], hi[1], m);
    } else if (lm <= li) { /* sim_levels_nbr's block at level lm, with no test */
      int32_t lo[3], hi[3];
      sim_nbr_range(&s->g, c0, li, lm, lo, hi);
      m = gather_block(s, lm, lo, hi, m);
    } else if (s->nfew[lm]) { /* sim_levels_nbr's test at level li, on the few balls of level lm */
      const int32_t *reach = s->g.reach[li][lm];
      const int32_t dlo[3] = {-reach[0], -reach[1], -reach[2]};
      m = few_gather(s, lm, li, c0, dlo, reach, m);
    } else {
      sim_nbr q;
      if (sim_levels_nbr(&s->g, c0, li, lm, &q)) m = gather(s, &q, m);
    }
  }
  return m;
}

/* Pairs of ball i with its neighbours; with only_higher, only partners
   j > i (the first sweep predicts each pair once). */
static void predict_neighbours(sim *s, uint32_t i, uint32_t skip, int only_higher) {
  predict_ctx pc;
  predict_ctx_init(s, &pc, i, skip, only_higher);
  if (s->stop) return;
  if (s->ericson) {
    size_t m = 0;
    if (one_level(s) && s->dim == 2) m = gather_nbr0_2d(s, &s->cell[3 * i], 0);
    else if (s->few2 && s->g.level[i] == 0) { /* gather_levels' two levels: level 0's block, the few */
      const int32_t *c0 = &s->cell[3 * i], *r = s->few2r;
      m = gather_nbr0_2d(s, c0, 0);
      m = few2_gather(s, c0[0] - r[0], c0[1] - r[1], 2 * (uint32_t)r[0], 2 * (uint32_t)r[1], m);
    } else if (one_level(s)) { /* sim_levels_nbr's block at level 0, with no test */
      int32_t lo[3], hi[3];
      sim_nbr_range(&s->g, &s->cell[3 * i], 0, 0, lo, hi);
      m = gather_block(s, 0, lo, hi, 0);
    } else
      m = gather_levels(s, i);
    predict_ericson_any(s, &pc, i, m);
  } else
    scan_neighbours(s, i, predict_visit, &pc);
}

static void predict_ball(sim *s, uint32_t i, uint32_t skip) {
  predict_neighbours(s, i, skip, 0);
  if (s->wall_double) predict_wall_cell(s, i, 1);
  else {
    predict_wall(s, i);
    predict_cell(s, i);
  }
}

/* ---- samples ---- */

/* Sums in double-double (dd_accum_prod, eft.h): fma is correctly rounded
   everywhere, so they are reproducible. */
static void kinetic(const sim *s, dd *ke) {
  ke->hi = ke->lo = 0;
  for (size_t i = 0; i < s->n; i++) {
    double m = s->st->balls[i].m;
    for (int d = 0; d < s->dim; d++) {
      double vd = s->b[i].v[d];
      double p = vd * vd, e = fma(vd, vd, -p);
      dd_accum_prod(ke, m, p);
      dd_accum_prod(ke, m, e);
    }
  }
  ke->hi *= 0.5;
  ke->lo *= 0.5;
}

typedef struct pairkey {
  uint32_t a, b;
  int pending;
} pairkey;

static int pairkey_cmp(const void *x, const void *y) {
  const pairkey *p = x, *q = y;
  if (p->a != q->a) return p->a < q->a ? -1 : 1;
  if (p->b != q->b) return p->b < q->b ? -1 : 1;
  return 0;
}

/* |d| - R of centres pi, pj: the gap, negative for a penetration */
static double abs_gap(const double pi[3], const double pj[3], double R, int dim) {
  double s = 0;
  for (int d = 0; d < dim; d++) {
    double x = pj[d] - pi[d];
    s += x * x;
  }
  return sqrt(s) - R;
}

/* An overlap as counted: beyond the relative threshold, and deeper than the
   kernel's stated contact tolerance */
static int overlapping(const sim *s, double gap, double R) {
  return gap / R < -s->cfg->overlap_tol && !(-gap <= s->ctol);
}

/* The sample's walk over neighbouring pairs: the centres now, and the
   overlapping pairs that were apart when their current paths began. */
typedef struct gap_ctx {
  sim_sample *out;
  double *q;
  pairkey *cand;
  size_t ncand, capc;
} gap_ctx;

static int gap_visit(sim *s, uint32_t i, uint32_t j, void *ctx) {
  gap_ctx *gc = ctx;
  if (j <= i) return 0;
  double R = s->st->balls[i].r + s->st->balls[j].r;
  double gap = abs_gap(&gc->q[3 * i], &gc->q[3 * j], R, s->dim), g = gap / R;
  if (g < gc->out->min_gap) gc->out->min_gap = g;
  if (-gap > gc->out->max_pen) gc->out->max_pen = -gap;
  if (!overlapping(s, gap, R)) return 0;
  gc->out->overlaps++;
  double base = s->b[i].tr > s->b[j].tr ? s->b[i].tr : s->b[j].tr, pi[3], pj[3];
  centre_at(s, i, base, pi);
  centre_at(s, j, base, pj);
  if (overlapping(s, abs_gap(pi, pj, R, s->dim), R)) return 0;
  if (gc->ncand == gc->capc) {
    size_t nc = gc->capc ? 2 * gc->capc : 16;
    pairkey *t = realloc(gc->cand, nc * sizeof *t);
    if (!t) return 1;
    gc->cand = t;
    gc->capc = nc;
  }
  gc->cand[gc->ncand++] = (pairkey){i, j, 0};
  return 0;
}

/* Overlaps are counted among neighbouring pairs at the current time. An
   overlapping pair that was not overlapping when its current straight paths
   began (the later reference time of the two balls) crossed contact on those
   paths: if a valid contact event for it is still pending, the kernel
   predicted it too late ("late"); otherwise it was never predicted
   ("missed"). An overlap already present at that time comes from an earlier
   response (for example a contact resolved late) and is only counted. */
static int take_sample(sim *s, sim_sample *out) {
  memset(out, 0, sizeof *out);
  if (s->k->contact_tolerance) {
    double t = s->k->contact_tolerance(s->k->ctx);
    s->ctol = t > 0 ? t : 0;
  }
  out->event = s->phys;
  out->time = s->tnow;
  dd ke;
  kinetic(s, &ke);
  out->ke_err = ((ke.hi - s->ke0.hi) + (ke.lo - s->ke0.lo)) / s->ke0.hi;
  /* A kinetic energy beyond DBL_MAX leaves no relative error to speak of:
     NaN, which the caller reports as such, rather than a 0 it is not. */
  if (!isfinite(s->ke0.hi) || !isfinite(s->ke0.lo)) out->ke_err = NAN;
  else if (!(s->ke0.hi > 0)) out->ke_err = 0;
  if (isnan(out->ke_err)) out->ke_err = NAN; /* one NaN, whatever sign the arithmetic left */
  double mom[3];
  for (int d = 0; d < s->dim; d++) mom[d] = s->mom[d].hi + s->mom[d].lo;
  double mnorm = norm(mom, s->dim);
  /* Likewise for momenta beyond DBL_MAX (inf/inf would be a NaN of either sign). */
  if (!isfinite(s->pscale) || !isfinite(mnorm)) out->mom_err = NAN;
  else out->mom_err = s->pscale > 0 ? mnorm / s->pscale : 0;
  out->min_gap = INFINITY;
  gap_ctx gc = {out, malloc(3 * s->n * sizeof *gc.q), NULL, 0, 0};
  if (!gc.q) return -1;
  for (size_t i = 0; i < s->n; i++) centre_at(s, (uint32_t)i, s->tnow, &gc.q[3 * i]);
  for (uint32_t i = 0; i < s->n; i++)
    if (scan_neighbours(s, i, gap_visit, &gc)) {
      free(gc.cand);
      free(gc.q);
      return -1;
    }
  pairkey *cand = gc.cand;
  size_t ncand = gc.ncand;
  if (ncand) {
    qsort(cand, ncand, sizeof *cand, pairkey_cmp);
    for (size_t i = 0; i < s->n; i++) {
      uint32_t ne;
      const sim_qev *evs = sim_queue_events(&s->q, (uint32_t)i, &ne);
      for (uint32_t h = 0; h < ne; h++) {
        const ev ee = sim_queue_ev(&s->q, (uint32_t)i, &evs[h]), *e = &ee;
        if (e->kind != SIM_EV_PAIR || !ev_valid(s, e)) continue;
        pairkey key = {e->a < e->b ? e->a : e->b, e->a < e->b ? e->b : e->a, 0};
        pairkey *f = bsearch(&key, cand, ncand, sizeof *cand, pairkey_cmp);
        if (f) f->pending = 1;
      }
    }
    for (size_t i = 0; i < ncand; i++) {
      if (cand[i].pending) out->late++;
      else out->missed++;
    }
  }
  if (s->n < 2) out->min_gap = NAN;
  free(cand);
  free(gc.q);
  out->pair_events = s->pairs;
  out->wall_events = s->walls;
  out->cell_events = s->cells;
  out->null_events = s->nulls;
  return 0;
}

static int sample(sim *s) {
  sim_sample smp;
  if (take_sample(s, &smp)) {
    fail(s, SIM_NOMEM, SIZE_MAX, SIZE_MAX, "out of memory");
    return -1;
  }
  sim_report *r = s->rep;
  r->last = smp;
  if (fabs(smp.ke_err) > r->max_abs_ke_err || isnan(smp.ke_err)) r->max_abs_ke_err = fabs(smp.ke_err);
  if (smp.min_gap < r->min_gap) r->min_gap = smp.min_gap;
  if (smp.overlaps > r->max_overlaps) r->max_overlaps = smp.overlaps;
  if (smp.max_pen > r->max_pen) r->max_pen = smp.max_pen;
  r->missed += smp.missed;
  r->late += smp.late;
  if (s->cfg->on_sample && s->cfg->on_sample(s->cfg->ctx, &smp)) {
    if (r->status == SIM_OK) {
      s->stop = 1;
      r->status = SIM_STOPPED;
      r->event = s->phys;
      snprintf(r->message, sizeof r->message, "stopped by the caller after event %llu",
               (unsigned long long)s->phys);
    }
    return -1;
  }
  return 0;
}

/* ---- events ---- */

static int finite3(const double x[3]) { return isfinite(x[0]) && isfinite(x[1]) && isfinite(x[2]); }

/* finite3 of all four, with one branch: x * 0 is a zero for a finite x and
   NaN for an infinite or NaN one, so the sum of the twelve is a zero only
   when every one is finite. */
static inline int finite12(const double pa[3], const double pb[3], const double va[3], const double vb[3]) {
  const __m128d z = _mm_setzero_pd();
  __m128d sum = _mm_add_pd(_mm_mul_pd(_mm_loadu_pd(pa), z), _mm_mul_pd(_mm_loadu_pd(pb), z));
  sum = _mm_add_pd(sum, _mm_add_pd(_mm_mul_pd(_mm_loadu_pd(va), z), _mm_mul_pd(_mm_loadu_pd(vb), z)));
  sum = _mm_add_pd(sum, _mm_add_pd(_mm_mul_pd(_mm_set_pd(pa[2], pb[2]), z), _mm_mul_pd(_mm_set_pd(va[2], vb[2]), z)));
  return _mm_movemask_pd(_mm_cmpeq_pd(sum, z)) == 3;
}

static int report_event(sim *s, sim_event_kind kind, size_t a, size_t b, int applied) {
  if (!s->cfg->on_event) return 0;
  sim_event_info info = {s->phys, kind, s->tnow, a, b, applied};
  if (s->cfg->on_event(s->cfg->ctx, &info)) {
    s->stop = 1;
    s->rep->status = SIM_STOPPED;
    s->rep->event = s->phys;
    snprintf(s->rep->message, sizeof s->rep->message, "stopped by the caller at event %llu",
             (unsigned long long)s->phys);
    return -1;
  }
  return 0;
}

/* A pair contact's change of momentum (masses ma and mb, velocities from
   vao to va and from vbo to vb) added to mom in double-double, in that
   order. Compiled twice (TOI_FMA_CLONES): with the FMA instruction where the
   processor has it, the library's fma otherwise; both exact, the same bits. */
TOI_FMA_CLONES static __attribute__((noinline)) void momentum_add(dd mom[3], int dim, double ma, double mb,
                                                                 const double va[3], const double vao[3],
                                                                 const double vb[3], const double vbo[3]) {
  for (int d = 0; d < dim; d++) {
    dd_accum_prod(&mom[d], ma, va[d]);
    dd_accum_prod(&mom[d], -ma, vao[d]);
    dd_accum_prod(&mom[d], mb, vb[d]);
    dd_accum_prod(&mom[d], -mb, vbo[d]);
  }
}

/* sim_pair_respond_double on the case build_case makes for e (binary64, no
   float advances), from the two balls' records with no case, no call
   through a pointer and no response record: the same operations in the same
   order (toi_response_compute's, real = double; dim a constant where it is
   inlined), so the same bits. Returns its -1, 0 or 1 and, for 1, the new
   centres and velocities in pa, pb, va, vb (the third components 0 in 2D). */
TOI_INLINE int pair_respond_dim(const sim *s, const ev *e, double E, double pa[3], double pb[3], double va[3],
                                double vb[3], const int dim) {
  const sim_body *A = &s->b[e->a], *B = &s->b[e->b];
  const double T = e->dt, base = e->base;
  if (!isfinite(T) || !(E >= 0 && E <= 1)) return -1;
  const double ha = base - A->tr, hb = base - B->tr;
  double d[3], len2 = 0;
  for (int i = 0; i < dim; i++) {
    /* build_case's centres at base, then the response's advance by T */
    pa[i] = (A->p[i] + A->v[i] * ha) + A->v[i] * T;
    pb[i] = (B->p[i] + B->v[i] * hb) + B->v[i] * T;
    d[i] = pb[i] - pa[i];
    len2 += d[i] * d[i];
  }
  const double len = sqrt(len2);
  if (!(len > 0) || !isfinite(len)) return -1;
  double n[3], vn = 0;
  for (int i = 0; i < dim; i++) {
    n[i] = d[i] / len;
    vn += (B->v[i] - A->v[i]) * n[i];
  }
  if (!(vn < 0)) return 0; /* separating or tangent: no impulse */
  const double ma = s->mass[e->a], mb = s->mass[e->b];
  const double j = -(1 + E) * vn / (1 / ma + 1 / mb);
  for (int i = 0; i < dim; i++) {
    va[i] = A->v[i] - j * n[i] / ma;
    vb[i] = B->v[i] + j * n[i] / mb;
  }
  for (int i = dim; i < 3; i++) pa[i] = pb[i] = va[i] = vb[i] = 0;
  return 1;
}

/* The pair response of e: the kernel's, or pair_respond_dim's for
   sim_pair_respond_double in binary64 (s->resp_double). */
static inline int pair_respond(sim *s, const ev *e, double pa[3], double pb[3], double va[3], double vb[3]) {
  if (s->resp_double) {
    if (s->dim == 2) return pair_respond_dim(s, e, s->cfg->restitution, pa, pb, va, vb, 2);
    return pair_respond_dim(s, e, s->cfg->restitution, pa, pb, va, vb, 3);
  }
  toi_case c;
  build_case(s, e->a, e->b, e->base, &c);
  return s->k->pair_respond(s->k->ctx, &c, e->dt, s->cfg->restitution, pa, pb, va, vb);
}

static void do_pair(sim *s, const ev *e) {
  double pa[3] = {0, 0, 0}, pb[3] = {0, 0, 0}, va[3] = {0, 0, 0}, vb[3] = {0, 0, 0};
  int r = pair_respond(s, e, pa, pb, va, vb);
  if (r < 0) {
    fail(s, SIM_FAILED, e->a, e->b, "could not resolve the contact (coincident centres)");
    return;
  }
  if (r == 0) {
    s->nulls++;
    report_event(s, SIM_EV_PAIR, e->a, e->b, 0);
    return;
  }
  if (!finite12(pa, pb, va, vb)) {
    fail(s, SIM_NAN, e->a, e->b, "non-finite state after the contact");
    return;
  }
  momentum_add(s->mom, s->dim, s->st->balls[e->a].m, s->st->balls[e->b].m, va, s->b[e->a].v, vb, s->b[e->b].v);
  for (int d = 0; d < 3; d++) {
    s->b[e->a].p[d] = d < s->dim ? pa[d] : 0;
    s->b[e->b].p[d] = d < s->dim ? pb[d] : 0;
    s->b[e->a].v[d] = d < s->dim ? va[d] : 0;
    s->b[e->b].v[d] = d < s->dim ? vb[d] : 0;
  }
  s->b[e->a].tr = s->b[e->b].tr = e->time;
  s->cnt[e->a]++;
  s->cnt[e->b]++;
  s->phys++;
  s->pairs++;
  if (report_event(s, SIM_EV_PAIR, e->a, e->b, 1)) return;
  predict_ball(s, e->a, NONE32);
  predict_ball(s, e->b, e->a);
}

static void do_wall(sim *s, const ev *e) {
  uint32_t i = e->a;
  int axis = (int)(e->b / 2), side = (int)(e->b % 2);
  double wall = side ? s->st->box[axis] : 0, pout[3] = {0, 0, 0};
  int r = s->k->wall_respond(s->k->ctx, s->b[i].p, s->b[i].v, s->st->balls[i].r, s->dim, axis,
                             wall, e->dt, pout);
  if (r < 0 || !finite3(pout)) {
    fail(s, SIM_NAN, i, i, "non-finite wall contact");
    return;
  }
  for (int d = 0; d < 3; d++) s->b[i].p[d] = d < s->dim ? pout[d] : 0;
  s->b[i].v[axis] = -s->b[i].v[axis]; /* exact in every kernel */
  s->b[i].tr = e->time;
  s->cnt[i]++;
  s->phys++;
  s->walls++;
  if (report_event(s, SIM_EV_WALL, i, e->b, 1)) return;
  predict_ball(s, i, NONE32);
}

/* do_cell's loop over the levels for a level-0 ball in 2D when the levels
   are 0 and few level s->few2 (s->few2 set): level 0's new slab, then the
   few balls within reach of the new slab at level 0 (sim_levels_layer's at
   level 0: span 0 along axis). The count gathered in s->gbuf. Apart from
   do_cell, so that the event loop keeps its inlining. */
static __attribute__((noinline)) size_t gather_cross_few2(sim *s, uint32_t i, int axis, int dir) {
  const int32_t *c0 = &s->cell[3 * i], *r = s->few2r;
  const int32_t slab0 = c0[axis] + dir * s->g.reach[0][0][axis], top = s->g.nc[0][axis];
  size_t m = slab0 < 0 || slab0 >= top ? 0 : gather_slab0_2d(s, c0, axis, slab0, 0);
  const int32_t slab = c0[axis] + dir * r[axis];
  if (slab < 0 || slab >= top) return m;
  if (axis == 0) return few2_gather(s, slab, c0[1] - r[1], 0, 2 * (uint32_t)r[1], m);
  return few2_gather(s, c0[0] - r[0], slab, 2 * (uint32_t)r[0], 0, m);
}

/* A crossing moves ball i to the next level-0 cell (and to another list
   when its own level's cell changes too); it is then predicted against what
   came into its neighbourhood at each level: with one level, the layer of
   cells that just came within one cell of it. */
static void do_cell(sim *s, const ev *e) {
  uint32_t i = e->a;
  int axis = (int)(e->b / 2), dir = e->b % 2 ? 1 : -1;
  if (s->g.level[i] == 0) { /* level 0's cells come first: its index is cell_cross's */
    if (cell_cross(s, i, axis, dir)) {
      fail(s, SIM_NOMEM, SIZE_MAX, SIZE_MAX, "out of memory");
      return;
    }
  } else {
    size_t from = ball_cell(s, i);
    s->cell[3 * i + axis] += dir;
    size_t to = ball_cell(s, i);
    if (to != from) {
      cell_remove(s, i, from);
      if (cell_insert(s, i, to)) {
        fail(s, SIM_NOMEM, SIZE_MAX, SIZE_MAX, "out of memory");
        return;
      }
      if (s->nfew[s->g.level[i]]) few_order(s, s->g.level[i]);
    }
  }
  s->cells++;
  predict_ctx pc;
  predict_ctx_init(s, &pc, i, NONE32, 0);
  if (s->ericson) {
    size_t m = 0;
    if (one_level(s)) /* sim_levels_layer's slab at level 0, with no test */
      m = gather_slab0(s, &s->cell[3 * i], axis, dir, 0);
    else if (s->few2 && s->g.level[i] == 0)
      m = gather_cross_few2(s, i, axis, dir);
    else
      for (int u = 0; u < s->g.nused; u++) {
        const int li = s->g.level[i], lm = s->g.used[u];
        if ((li | lm) == 0) { /* as with one level */
          m = gather_slab0(s, &s->cell[3 * i], axis, dir, m);
          continue;
        }
        if (li < lm && s->nfew[lm]) { /* sim_levels_layer's slab at level li, on the few balls of level lm */
          const int32_t *c0 = &s->cell[3 * i];
          const int32_t now = c0[axis] >> li, before = (c0[axis] - dir) >> li;
          if (now == before) continue;
          const int32_t slab = now + dir * s->g.reach[li][lm][axis];
          if (slab < 0 || slab >= s->g.nc[li][axis]) continue;
          const int32_t *reach = s->g.reach[li][lm];
          int32_t dlo[3] = {-reach[0], -reach[1], -reach[2]}, dhi[3] = {reach[0], reach[1], reach[2]};
          dlo[axis] = dhi[axis] = dir * reach[axis];
          m = few_gather(s, lm, li, c0, dlo, dhi, m);
          continue;
        }
        sim_nbr q;
        if (sim_levels_layer(&s->g, &s->cell[3 * i], li, axis, dir, lm, &q))
          m = q.test ? gather(s, &q, m) : gather_block(s, q.m, q.lo, q.hi, m);
      }
    if (predict_ericson_any(s, &pc, i, m)) return;
  } else
    for (int u = 0; u < s->g.nused; u++) {
      sim_nbr q;
      if (sim_levels_layer(&s->g, &s->cell[3 * i], s->g.level[i], axis, dir, s->g.used[u], &q) &&
          scan(s, &q, i, predict_visit, &pc))
        return;
    }
  predict_wall_cell(s, i, 0);
}

/* ---- the run ---- */

static void sim_free(sim *s) {
  free(s->b);
  free(s->mass);
  free(s->cnt);
  free(s->cell);
  if (s->cl)
    for (size_t c = 0; c < s->g.off[s->g.nlev]; c++)
      if (s->cl[c].cap > SIM_CELL_SLOTS) free(s->cl[c].items);
  free(s->cl);
  free(s->cslot);
  free(s->gbuf);
  free(s->gdt);
  free(s->gm);
  sim_queue_free(&s->q);
  free(s->bq);
  free(s->bab);
  free(s->bseq);
  free(s->br);
  free(s->bdt);
  sim_levels_free(&s->g);
}

static sim_status bad(sim_report *rep, const char *msg) {
  rep->status = SIM_BAD_INPUT;
  snprintf(rep->message, sizeof rep->message, "%s", msg);
  return rep->status;
}

/* The state and configuration a run accepts; SIM_OK or SIM_BAD_INPUT with
   the reason in rep. */
static sim_status check_input(sim_report *rep, const sim_state *st, const sim_config *cfg) {
  if (st->dim != 2 && st->dim != 3) return bad(rep, "dimension must be 2 or 3");
  if (st->n == 0 || st->n >= NONE32) return bad(rep, "the number of balls must be in [1, 2^32-1)");
  if (!(cfg->restitution >= 0 && cfg->restitution <= 1)) return bad(rep, "restitution outside [0, 1]");
  if (!(cfg->overlap_tol >= 0)) return bad(rep, "overlap tolerance must be >= 0");
  for (int d = 0; d < st->dim; d++)
    if (!(st->box[d] > 0) || !isfinite(st->box[d])) return bad(rep, "box sides must be > 0 and finite");
  return SIM_OK;
}

/* Allocates the run's arrays and copies the state into them, every ball in
   its cell; the momentum scale and KE0 from the initial velocities. -1 when
   out of memory (nothing left allocated). */
static int sim_init(sim *s, sim_report *rep, const sim_state *st, const sim_kernel *k,
                    const sim_config *cfg) {
  memset(s, 0, sizeof *s);
  s->st = st;
  s->k = k;
  s->cfg = cfg;
  s->rep = rep;
  s->n = st->n;
  s->dim = st->dim;
  if (sim_levels_plan(&s->g, st->dim, st->box, st->balls, st->n, cfg->uniform_grid)) {
    sim_levels_free(&s->g);
    return -1;
  }
  size_t ncells = s->g.off[s->g.nlev];
  s->b = aligned_alloc(64, s->n * sizeof *s->b); /* sizeof *s->b is 64 */
  s->mass = malloc(s->n * sizeof *s->mass);
  s->cnt = calloc(s->n, sizeof *s->cnt);
  s->cell = malloc(3 * s->n * sizeof *s->cell);
  s->cl = calloc(ncells, sizeof *s->cl); /* cap 0 until set below: nothing of its own to free */
  s->cslot = calloc(ncells * SIM_CELL_SLOTS, sizeof *s->cslot);
  s->gbuf = malloc((s->n + SIM_CELL_SLOTS + 3) * sizeof *s->gbuf);
  s->gdt = malloc((s->n + SIM_CELL_SLOTS + 3) * sizeof *s->gdt);
  s->gm = malloc(((s->n + SIM_CELL_SLOTS + 3) / 4 + 1) * 2);
  if (k->pair_toi_batch) {
    s->bq = malloc(SIM_BATCH * sizeof *s->bq);
    s->bab = malloc(2 * SIM_BATCH * sizeof *s->bab);
    s->bseq = malloc(SIM_BATCH * sizeof *s->bseq);
    s->br = malloc(SIM_BATCH * sizeof *s->br);
    s->bdt = malloc(SIM_BATCH * sizeof *s->bdt);
  }
  int batch_ok = !k->pair_toi_batch || (s->bq && s->bab && s->bseq && s->br && s->bdt);
  s->ids = k->pair_toi_batch || cfg->on_predict;
  s->ericson = !s->ids && sim_kernel_is_ericson(k);
  /* four lanes take a record's offset as a 32-bit number (ericson4_groups):
     below 2^26 balls, two lanes at or above it (the same answers) */
  s->avx2 = s->ericson && sim_lanes == 4 && s->n < (size_t)1 << 26 && __builtin_cpu_supports("avx2");
  s->wall_double = k->wall_toi == sim_wall_toi_double;
  s->resp_double = k->pair_respond == sim_pair_respond_double && k->precision == TOI_BINARY64;
  if (!s->b || !s->mass || !s->cnt || !s->cell || !s->cl || !s->cslot || !s->gbuf || !s->gdt || !s->gm || !batch_ok ||
      sim_queue_init(&s->q, s->n)) {
    sim_free(s);
    return -1;
  }
  for (size_t c = 0; c < ncells; c++) s->cl[c] = (sim_cell){s->cslot + SIM_CELL_SLOTS * c, 0, SIM_CELL_SLOTS};
  for (size_t i = 0; i < s->n; i++) {
    for (int d = 0; d < 3; d++) {
      int in = d < s->dim;
      s->b[i].p[d] = in ? st->balls[i].p[d] : 0;
      s->b[i].v[d] = in ? st->balls[i].v[d] : 0;
      s->cell[3 * i + d] = in ? sim_cell_coord(s->b[i].p[d], s->g.w[d], s->g.nc[0][d]) : 0;
    }
    s->b[i].tr = 0;
    s->b[i].r = st->balls[i].r;
    s->mass[i] = st->balls[i].m;
    s->pscale += st->balls[i].m * norm(s->b[i].v, s->dim);
    if (cell_insert(s, (uint32_t)i, ball_cell(s, (uint32_t)i))) {
      sim_free(s);
      return -1;
    }
  }
  size_t count[SIM_LEVELS] = {0};
  for (size_t i = 0; i < s->n; i++) count[s->g.level[i]]++;
  for (int l = 1; l < SIM_LEVELS; l++)
    if (count[l] && count[l] <= SIM_FEW) {
      for (size_t i = 0; i < s->n; i++)
        if (s->g.level[i] == l) s->fset[l][s->nfew[l]++] = (uint32_t)i;
      few_order(s, l);
    }
  if (s->dim == 2 && s->g.nused == 2 && s->g.used[0] == 0 && s->nfew[s->g.used[1]]) {
    s->few2 = s->g.used[1];
    s->few2r[0] = s->g.reach[0][s->few2][0];
    s->few2r[1] = s->g.reach[0][s->few2][1];
    s->few2n = s->nfew[s->few2];
    s->few2l = s->flist[s->few2];
  }
  kinetic(s, &s->ke0);
  return 0;
}

/* Document 001's warning: the loop must terminate. Counts the events at the
   instant of e and stops the run with SIM_ZENO beyond `limit`; returns 1 then. */
static int same_instant(sim *s, const ev *e, uint64_t limit, uint64_t *same, double *last_time) {
  if (e->time != *last_time) {
    *same = 1;
    *last_time = e->time;
    return 0;
  }
  if (++*same <= limit) return 0;
  s->rep->status = SIM_ZENO;
  s->rep->event = s->phys + 1;
  s->rep->a = e->a;
  s->rep->b = e->kind == SIM_EV_PAIR ? e->b : e->a;
  snprintf(s->rep->message, sizeof s->rep->message,
           "more than %llu events at time %.17g (event %llu): the state does not advance",
           (unsigned long long)limit, e->time, (unsigned long long)(s->phys + 1));
  s->stop = 1;
  return 1;
}

/* Pops and processes events until the run stops, has its events or has none
   left, sampling every cfg->every physical events. Returns the physical
   event count at the last sample taken here (0: none). */
static uint64_t event_loop(sim *s, uint64_t limit) {
  const sim_config *cfg = s->cfg;
  uint64_t last_sampled = 0, same = 0;
  double last_time = -INFINITY;
  while (!s->stop && s->phys < cfg->events && !sim_queue_empty(&s->q)) {
    ev e = heap_pop(s);
    if (!ev_valid(s, &e)) continue;
    if (e.time < s->tnow) e.time = s->tnow; /* never move backwards */
    if (same_instant(s, &e, limit, &same, &last_time)) break;
    s->tnow = e.time;
    s->processed++;
    uint64_t before = s->phys;
    switch (e.kind) {
      case SIM_EV_PAIR: do_pair(s, &e); break;
      case SIM_EV_WALL: do_wall(s, &e); break;
      default: do_cell(s, &e); break;
    }
    if (s->bn) flush_batch(s);
    if (s->stop) break;
    if (s->phys != before && cfg->every && s->phys % cfg->every == 0) {
      last_sampled = s->phys;
      if (sample(s)) break;
    }
  }
  return last_sampled;
}

/* The run proper, on a state in the kernel's precision. */
static sim_status run_state(sim_report *rep, const sim_state *st, const sim_kernel *k,
                            const sim_config *cfg) {
  sim s;
  if (sim_init(&s, rep, st, k, cfg)) {
    rep->status = SIM_NOMEM;
    snprintf(rep->message, sizeof rep->message, "out of memory");
    return rep->status;
  }
  s.f32 = k->precision == TOI_BINARY32;
  uint64_t limit = cfg->same_instant ? cfg->same_instant : 10 * (uint64_t)s.n + 1000;
  for (uint32_t i = 0; i < s.n && !s.stop; i++) {
    predict_neighbours(&s, i, NONE32, 1);
    predict_wall(&s, i);
    predict_cell(&s, i);
  }
  flush_batch(&s);
  if (!s.stop) sample(&s);
  uint64_t last_sampled = event_loop(&s, limit);
  /* Nothing pending before the events asked for: nothing can happen any
     more, which is not the same as a run that did its events. */
  if (!s.stop && rep->status == SIM_OK && s.phys < cfg->events && sim_queue_empty(&s.q)) rep->idle = 1;
  /* a last sample, also after a failure: it shows the state that failed */
  if (rep->status != SIM_STOPPED && s.phys != last_sampled) {
    s.stop = 0;
    sample(&s);
  }
  rep->time = s.tnow;
  rep->predictions = s.predictions;
  rep->grid_levels = s.g.nused;
  rep->last.pair_events = s.pairs;
  rep->last.wall_events = s.walls;
  rep->last.cell_events = s.cells;
  rep->last.null_events = s.nulls;
  sim_free(&s);
  return rep->status;
}

sim_status sim_run(sim_report *rep, const sim_state *st, const sim_kernel *k, const sim_config *cfg) {
  memset(rep, 0, sizeof *rep);
  rep->a = rep->b = SIZE_MAX;
  rep->min_gap = INFINITY;
  if (check_input(rep, st, cfg) != SIM_OK) return rep->status;
  if (k->precision == TOI_BINARY64) return run_state(rep, st, k, cfg);
  if (k->precision != TOI_BINARY32) return bad(rep, "the kernel's precision has no simulation");
  sim_state rs;
  toi_status ts = sim_state_round(&rs, st, k->precision);
  if (ts == TOI_ERR_NOMEM) {
    rep->status = SIM_NOMEM;
    snprintf(rep->message, sizeof rep->message, "out of memory");
    return rep->status;
  }
  if (ts != TOI_OK) return bad(rep, "the state has a number beyond binary32 (or a radius or mass rounding to 0)");
  sim_status r = run_state(rep, &rs, k, cfg);
  sim_state_free(&rs);
  return r;
}

double sim_report_drift(const sim_report *rep) {
  uint64_t ev = rep->last.event;
  return ev ? rep->last.ke_err * 1e6 / (double)ev : 0;
}
