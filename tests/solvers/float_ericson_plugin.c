/* float_ericson_plugin.c: a plug-in (ABI 2) declaring binary32 in its catalog, computing in float (Ericson's test). */
#include "toi_solver.h"
#include "float_ericson.h"

TOI_SOLVER_ABI;

int float_ericson_solve(toi_solver_result *out, const toi_solver_case *c) {
  out->cls = float_ericson(c->pa, c->va, c->ra, c->pb, c->vb, c->rb, &out->t);
  return TOI_SOLVER_OK;
}

const toi_solver_info toi_solver_catalog[] = {
    {"float-ericson", "float_ericson_solve", "Ericson's moving-sphere test in float", TOI_SOLVER_BINARY32},
    {0, 0, 0, 0},
};
