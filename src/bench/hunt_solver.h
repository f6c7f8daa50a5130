/* hunt_solver.h: the worst-case search of `toibench hunt` for one external solver. */
#ifndef TOI_HUNT_SOLVER_H
#define TOI_HUNT_SOLVER_H

#include <stdint.h>
#include "hunt.h"
#include "solvers.h"

/// What `toibench hunt` was asked for an external solver.
typedef struct hunt_solver_args {
  const gen_opts *g;
  solver_def s;
  const char *spec;   ///< the solver as given on the command line, for the header
  solver_opts so;     ///< --tmax, --timeout
  double delta;       ///< --target-distance: the target of answers stating none
  uint64_t budget;
  int keep, quiet;
  const char *out;
} hunt_solver_args;

/// The search for an external solver: batches of cases to solver_run. Returns an exit code.
int hunt_solver(const hunt_solver_args *a);

#endif
