/* sim_grid.c: the grid of cells of the simulation and of the state reader: uniform, or levels of doubling cells. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sim_grid.h"

/* Cells at least one largest diameter wide (a hair more, so rounding of
   positions cannot hide a contact), and about one ball per cell: smaller
   cells only add crossings. */
void sim_grid_shape(int dim, const double box[3], double rmax, size_t n, int nc[3], double w[3]) {
  double wmin = 2 * rmax * (1 + 0x1p-20);
  long target = 1;
  while (1) {
    long t = target + 1, pw = 1;
    for (int d = 0; d < dim; d++) pw *= t;
    if ((size_t)pw > n || t > 1000000) break;
    target = t;
  }
  for (int d = 0; d < 3; d++) {
    nc[d] = 1;
    w[d] = d < dim ? box[d] : 1;
    if (d >= dim) continue;
    double fit = floor(box[d] / wmin);
    long c = fit < 1 ? 1 : (fit > target ? target : (long)fit);
    nc[d] = (int)c;
    w[d] = box[d] / (double)c;
    if (w[d] < wmin) { /* rounding of the division: use one cell fewer */
      if (c > 1) nc[d] = (int)(c - 1);
      w[d] = box[d] / (double)nc[d];
    }
  }
}

int sim_cell_coord(double x, double w, int nc) {
  double f = floor(x / w);
  if (!(f >= 0)) return 0;
  if (f >= nc) return nc - 1;
  return (int)f;
}

/* ---- planning ---- */

/* Level 0 of shape (nc0, w): the cells per axis of every level, and the
   level of a ball of radius r, the lowest whose cells are one diameter wide
   on every axis (the top level, whose cells span the box, takes the rest). */
static int levels_shape(sim_levels *g, const int nc0[3], const double w[3]) {
  int top = SIM_LEVELS - 1;
  for (int l = 0; l < SIM_LEVELS; l++) {
    int all_one = 1;
    for (int d = 0; d < 3; d++) {
      g->nc[l][d] = ((nc0[d] - 1) >> l) + 1;
      if (g->nc[l][d] > 1) all_one = 0;
    }
    if (all_one && l < top) top = l;
  }
  memcpy(g->w, w, sizeof g->w);
  return top;
}

static int level_of(const sim_levels *g, double r, int top) {
  double need = 2 * r * (1 + 0x1p-20);
  for (int l = 0; l < top; l++) {
    int fits = 1;
    for (int d = 0; d < g->dim; d++)
      if (!(ldexp(g->w[d], l) >= need)) fits = 0;
    if (fits) return l;
  }
  return top;
}

/* The reach between levels a and b from their largest radii, clamped to the
   cells there are; the used levels; the cell offsets. */
static void levels_finish(sim_levels *g, const double rmax[SIM_LEVELS], const size_t count[SIM_LEVELS]) {
  g->nused = 0;
  g->nlev = 1;
  for (int l = 0; l < SIM_LEVELS; l++)
    if (count[l]) {
      g->used[g->nused++] = l;
      g->nlev = l + 1;
    }
  for (int a = 0; a < g->nlev; a++)
    for (int b = 0; b < g->nlev; b++) {
      int e = a < b ? a : b;
      for (int d = 0; d < 3; d++) {
        double cells = (rmax[a] + rmax[b]) * (1 + 0x1p-20) / ldexp(g->w[d], e);
        double k = ceil(cells);
        g->reach[a][b][d] = !(k < g->nc[e][d]) ? g->nc[e][d] : (int32_t)k;
        if (d >= g->dim) g->reach[a][b][d] = 0;
      }
    }
  g->off[0] = 0;
  for (int l = 0; l < SIM_LEVELS; l++) {
    size_t cells = l < g->nlev ? (size_t)g->nc[l][0] * (size_t)g->nc[l][1] * (size_t)g->nc[l][2] : 0;
    g->off[l + 1] = g->off[l] + cells;
  }
}

/* Expected candidate pairs of a whole sweep, balls spread evenly. */
static double levels_cost(const sim_levels *g, const size_t count[SIM_LEVELS]) {
  double cost = 0;
  for (int ia = 0; ia < g->nused; ia++)
    for (int ib = 0; ib < g->nused; ib++) {
      int a = g->used[ia], b = g->used[ib], e = a < b ? a : b;
      double f = (double)count[a] * (double)count[b];
      for (int d = 0; d < g->dim; d++) {
        double part = (2.0 * g->reach[a][b][d] + 1) / g->nc[e][d];
        f *= part < 1 ? part : 1;
      }
      cost += f;
    }
  return cost;
}

/* The grid whose level 0 is sized for radius r0 (r0 = rmax: one level). */
static double levels_try(sim_levels *g, const sim_ball *balls, size_t n, const double box[3], double r0) {
  int nc0[3];
  double w[3], rmax[SIM_LEVELS] = {0};
  size_t count[SIM_LEVELS] = {0};
  sim_grid_shape(g->dim, box, r0, n, nc0, w);
  int top = levels_shape(g, nc0, w);
  for (size_t i = 0; i < n; i++) {
    int l = level_of(g, balls[i].r, top);
    g->level[i] = (uint8_t)l;
    count[l]++;
    if (balls[i].r > rmax[l]) rmax[l] = balls[i].r;
  }
  levels_finish(g, rmax, count);
  return levels_cost(g, count);
}

/* A single level sized by the largest ball is the uniform grid of old and
   keeps every result as it was; a hierarchy is taken only when it promises
   at least 4 times fewer candidates (a few big balls among many small). */
int sim_levels_plan(sim_levels *g, int dim, const double box[3], const sim_ball *balls, size_t n,
                    int uniform) {
  memset(g, 0, sizeof *g);
  g->dim = dim;
  double rmax = 0, rmin = INFINITY;
  for (size_t i = 0; i < n; i++) {
    if (balls[i].r > rmax) rmax = balls[i].r;
    if (balls[i].r < rmin) rmin = balls[i].r;
  }
  g->level = calloc(n ? n : 1, 1);
  if (!g->level) return -1;
  int nc0[3];
  double w[3], rm[SIM_LEVELS] = {rmax};
  size_t count[SIM_LEVELS] = {n};
  sim_grid_shape(dim, box, rmax, n, nc0, w);
  levels_shape(g, nc0, w);
  levels_finish(g, rm, count);
  double best = levels_cost(g, count), single = best, best_r0 = rmax;
  if (uniform) return 0;
  sim_levels t = *g;
  t.level = malloc(n ? n : 1);
  if (!t.level) return -1;
  for (int k = 1; k < SIM_LEVELS && ldexp(rmax, -k) >= rmin; k++) {
    double c = levels_try(&t, balls, n, box, ldexp(rmax, -k));
    if (t.nused > 1 && c < best) {
      best = c;
      best_r0 = ldexp(rmax, -k);
    }
  }
  if (best_r0 != rmax && 4 * best <= single) {
    uint8_t *keep = g->level;
    levels_try(&t, balls, n, box, best_r0);
    *g = t;
    t.level = keep;
  }
  free(t.level);
  return 0;
}

void sim_levels_free(sim_levels *g) {
  free(g->level);
  g->level = NULL;
}

/* ---- neighbourhoods ---- */

size_t sim_levels_index(const sim_levels *g, int l, const int32_t c0[3]) {
  int32_t c[3];
  for (int d = 0; d < 3; d++) c[d] = c0[d] >> l;
  return sim_levels_cell(g, l, c);
}

int sim_levels_layer(const sim_levels *g, const int32_t c0[3], int li, int axis, int dir, int m,
                     sim_nbr *q) {
  int e = li < m ? li : m;
  int32_t now = c0[axis] >> e, before = (c0[axis] - dir) >> e;
  if (now == before) return 0;
  int32_t slab = now + dir * g->reach[li][m][axis];
  if (slab < 0 || slab >= g->nc[e][axis]) return 0;
  int32_t lo[3], hi[3];
  sim_nbr_range(g, c0, li, m, lo, hi);
  lo[axis] = hi[axis] = slab;
  sim_nbr_at(e, m, lo, hi, q);
  return 1;
}
