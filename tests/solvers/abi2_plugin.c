/* abi2_plugin.c: a plug-in built for ABI version 2, which must still load and must not be asked for a
 * cost (toi_solver_report_cost is version 3's) although it defines a function of that name. */
#include "toi_solver.h"
#include "ball_toi.h"

const int toi_solver_abi = 2;

int abi2_solve(toi_solver_result *out, const toi_solver_case *c) {
  out->cls = ball_toi(c->pa, c->va, c->ra, c->pb, c->vb, c->rb, c->tmax, &out->t);
  return TOI_SOLVER_OK;
}

int toi_solver_report_cost(const char *symbol, toi_solver_cost *out) {
  (void)symbol;
  out->ns = 123456789;
  out->calls = 1;
  return 1;
}

const toi_solver_info toi_solver_catalog[] = {
    {"abi2-stable", "abi2_solve", "the example's quadratic, built for ABI 2", TOI_SOLVER_BINARY64},
    {0, 0, 0, 0},
};
