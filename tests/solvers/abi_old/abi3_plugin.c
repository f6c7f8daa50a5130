/* abi3_plugin.c: a plug-in built against the plug-in header as released with ABI 3 (toi_solver.h beside
 * this file, a verbatim copy of include/toibench/toi_solver.h at commit 623a425), never against the
 * header of the tree: a plug-in already built for ABI 3 must load and answer as it did. */
#include "toi_solver.h" /* the copy beside this file: a quoted include looks here first */
#include "ball_toi.h"

#if TOI_SOLVER_ABI_VERSION != 3
#error "this plug-in stands for one built against the ABI 3 header"
#endif

TOI_SOLVER_ABI;

int abi3_stable(toi_solver_result *out, const toi_solver_case *c) {
  out->cls = ball_toi(c->pa, c->va, c->ra, c->pb, c->vb, c->rb, c->tmax, &out->t);
  return TOI_SOLVER_OK;
}

const toi_solver_info toi_solver_catalog[] = {
    {"abi3-old-stable", "abi3_stable", "the example's quadratic, built against the ABI 3 header of 623a425",
     TOI_SOLVER_BINARY64},
    {0, 0, 0, 0},
};
