/* sim_grid.h: the hierarchical grid of cells shared by the run and the state reader's overlap check (private). */
#ifndef TOI_SIM_GRID_H
#define TOI_SIM_GRID_H

#include <stddef.h>
#include <stdint.h>
#include "sim.h"

/// "No ball": the end of a cell's list.
#define NONE32 UINT32_MAX

/// Most levels of a hierarchical grid (cell widths w, 2w, 4w, ...).
#define SIM_LEVELS 24

/// Cells at least one largest diameter (2 rmax) wide and about one ball per
/// cell: nc[d] cells of width w[d] on each axis (1 and 1 beyond dim).
void sim_grid_shape(int dim, const double box[3], double rmax, size_t n, int nc[3], double w[3]);

/// The cell of coordinate x among nc cells of width w, clamped to [0, nc-1].
int sim_cell_coord(double x, double w, int nc);

/*
 * The grid: level 0 is a uniform grid (sim_grid_shape) and level l has cells
 * 2^l level-0 cells wide, so a ball's cell at level l is its level-0 cell
 * shifted right by l on each axis. Each ball lives in the lowest level whose
 * cells are one of its diameters wide. Two balls at levels a and b are
 * neighbours when their cells at level e = min(a, b) differ by at most
 * reach[a][b][d] on each axis: reach is the sum of the largest radii of the
 * two levels in level-e cells, rounded up, so two balls in contact are always
 * neighbours. With one level this is the uniform grid of one largest diameter
 * and reach 1: the 3^dim cells around a ball.
 */
typedef struct sim_levels {
  int dim;
  int nlev;                   ///< levels 0 .. nlev-1
  int nused, used[SIM_LEVELS]; ///< the levels holding balls, increasing
  int nc[SIM_LEVELS][3];      ///< cells per axis: ((nc0 - 1) >> l) + 1
  double w[3];                ///< level-0 cell widths
  size_t off[SIM_LEVELS + 1]; ///< first cell of each level in one array of all cells
  int32_t reach[SIM_LEVELS][SIM_LEVELS][3];
  uint8_t *level;             ///< level of each ball (n)
} sim_levels;

/// Plans the grid for the balls: the uniform grid of the largest diameter
/// unless a hierarchy is estimated to cost several times fewer candidate pairs
/// (a few big balls among many small ones) and `uniform` is 0. -1 when out of
/// memory.
int sim_levels_plan(sim_levels *g, int dim, const double box[3], const sim_ball *balls, size_t n,
                    int uniform);
void sim_levels_free(sim_levels *g);

/// The index of level-0 cell c0 at level l in the array of all cells.
size_t sim_levels_index(const sim_levels *g, int l, const int32_t c0[3]);

/// The index of level-l cell c (coordinates at that level) in that array.
static inline size_t sim_levels_cell(const sim_levels *g, int l, const int32_t c[3]) {
  const int *nc = g->nc[l];
  return g->off[l] + ((size_t)c[2] * (size_t)nc[1] + (size_t)c[1]) * (size_t)nc[0] + (size_t)c[0];
}

/// A block of candidate cells at level m, and when `test` is set, the range
/// [tlo, thi] at level e that a candidate's own cell (its level-0 cell >> e)
/// must lie in.
typedef struct sim_nbr {
  int m, test, e;
  int32_t lo[3], hi[3];
  int32_t tlo[3], thi[3];
} sim_nbr;

/// The range [lo, hi] of level-e cells (e = min(li, m)) within reach of a
/// ball of level li in level-0 cell c0, for the balls of level m.
static inline void sim_nbr_range(const sim_levels *g, const int32_t c0[3], int li, int m, int32_t lo[3],
                                 int32_t hi[3]) {
  int e = li < m ? li : m;
  const int32_t *reach = g->reach[li][m];
  for (int d = 0; d < 3; d++) {
    int32_t c = c0[d] >> e, top = g->nc[e][d] - 1;
    lo[d] = c > reach[d] ? c - reach[d] : 0;
    hi[d] = top - c > reach[d] ? c + reach[d] : top;
  }
}

/// q from the range [lo, hi] at level e: the level-m cells that cover it,
/// and the test when they are coarser (m > e).
static inline void sim_nbr_at(int e, int m, const int32_t lo[3], const int32_t hi[3], sim_nbr *q) {
  q->m = m;
  q->e = e;
  q->test = m > e;
  int s = m - e;
  for (int d = 0; d < 3; d++) {
    q->tlo[d] = lo[d];
    q->thi[d] = hi[d];
    q->lo[d] = lo[d] >> s;
    q->hi[d] = hi[d] >> s;
  }
}

/// The neighbourhood among level-m balls of a ball of level li in level-0
/// cell c0. Returns 0 when it is empty.
static inline int sim_levels_nbr(const sim_levels *g, const int32_t c0[3], int li, int m, sim_nbr *q) {
  int32_t lo[3], hi[3];
  sim_nbr_range(g, c0, li, m, lo, hi);
  sim_nbr_at(li < m ? li : m, m, lo, hi, q);
  return 1;
}

/// What a crossing adds: the ball (level li) has just moved by dir (+1 or -1)
/// along axis into level-0 cell c0; q is the part of its new neighbourhood
/// among level-m balls that was not in the old one. Returns 0 when none.
int sim_levels_layer(const sim_levels *g, const int32_t c0[3], int li, int axis, int dir, int m,
                     sim_nbr *q);

/// 1 when a candidate whose level-0 cell is cj passes q's test.
static inline int sim_nbr_keep(const sim_nbr *q, const int32_t cj[3]) {
  if (!q->test) return 1;
  for (int d = 0; d < 3; d++) {
    int32_t c = cj[d] >> q->e;
    if (c < q->tlo[d] || c > q->thi[d]) return 0;
  }
  return 1;
}

#endif
