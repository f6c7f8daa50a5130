/* wrong_abi_plugin.c: a plug-in built for an ABI version this toibench does not speak; it must be refused. */
#include "toi_solver.h"

const int toi_solver_abi = 99; /* none of 1, 2, 3 */

int toi_solver_solve(toi_solver_result *out, const toi_solver_case *c) {
  (void)c;
  out->cls = TOI_SOLVER_HIT;
  out->t = 1;
  return TOI_SOLVER_OK;
}
