/* abi1_plugin.c: a plug-in built for ABI version 1 (a catalog of three fields, no precision), which must
 * still load, as binary64, and must not be asked for a cost although it defines toi_solver_report_cost. */
#define toi_solver_catalog toi_solver_catalog_of_abi3 /* the header's declaration has the later layout */
#include "toi_solver.h"
#undef toi_solver_catalog
#include "ball_toi.h"

const int toi_solver_abi = 1;

int abi1_solve(toi_solver_result *out, const toi_solver_case *c) {
  out->cls = ball_toi(c->pa, c->va, c->ra, c->pb, c->vb, c->rb, c->tmax, &out->t);
  return TOI_SOLVER_OK;
}

/* A function of that name meant nothing in version 1: toibench must not call it. */
int toi_solver_report_cost(const char *symbol, toi_solver_cost *out) {
  (void)symbol;
  out->ns = 123456789;
  out->calls = 1;
  return 1;
}

/* Version 1's catalog entry: name, symbol, summary. */
typedef struct abi1_info {
  const char *name, *symbol, *summary;
} abi1_info;

const abi1_info toi_solver_catalog[] = {
    {"abi1-stable", "abi1_solve", "the example's quadratic, built for ABI 1"},
    {0, 0, 0},
};
