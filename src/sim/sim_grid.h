/* sim_grid.h: the uniform grid of cells shared by the run and the state reader's overlap check (private). */
#ifndef TOI_SIM_GRID_H
#define TOI_SIM_GRID_H

#include <stddef.h>
#include <stdint.h>

/// "No ball": the end of a cell's list.
#define NONE32 UINT32_MAX

/// Cells at least one largest diameter (2 rmax) wide and about one ball per
/// cell: nc[d] cells of width w[d] on each axis (1 and 1 beyond dim).
void sim_grid_shape(int dim, const double box[3], double rmax, size_t n, int nc[3], double w[3]);

/// The cell of coordinate x among nc cells of width w, clamped to [0, nc-1].
int sim_cell_coord(double x, double w, int nc);

#endif
