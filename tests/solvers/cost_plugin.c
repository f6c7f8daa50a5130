/* cost_plugin.c: a plug-in (ABI 3) reporting its own cost, for the cost tests. cost-square reports
 * 1000 calls^2 ns for the calls of its process (so that a sum over processes can be told from one
 * process's report); cost-silent measures nothing. A case whose ID starts with "crash" ends the process. */
#include <signal.h>
#include <string.h>
#include "toi_solver.h"
#include "ball_toi.h"

TOI_SOLVER_ABI;

static unsigned long long square_calls;

static int answer(toi_solver_result *out, const toi_solver_case *c) {
  if (!strncmp(c->id, "crash", 5)) raise(SIGKILL);
  out->cls = ball_toi(c->pa, c->va, c->ra, c->pb, c->vb, c->rb, c->tmax, &out->t);
  return TOI_SOLVER_OK;
}

int cost_square(toi_solver_result *out, const toi_solver_case *c) {
  int st = answer(out, c);
  square_calls++;
  return st;
}

int cost_silent(toi_solver_result *out, const toi_solver_case *c) { return answer(out, c); }

int toi_solver_report_cost(const char *symbol, toi_solver_cost *out) {
  if (strcmp(symbol, "cost_square") || square_calls == 0) return 0;
  out->calls = square_calls;
  out->ns = 1000 * square_calls * square_calls;
  return 1;
}

const toi_solver_info toi_solver_catalog[] = {
    {"cost-square", "cost_square", "the example's quadratic, reporting 1000 calls^2 ns", TOI_SOLVER_BINARY64},
    {"cost-silent", "cost_silent", "the example's quadratic, reporting no cost", TOI_SOLVER_BINARY64},
    {0, 0, 0, 0},
};
