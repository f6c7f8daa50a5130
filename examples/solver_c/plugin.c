/* plugin.c: an example solver plug-in for toibench (toi_solver.h), loaded with --solver lib.so[:symbol]. */
/*
 * Build: cc -O2 -shared -fPIC $(pkg-config --cflags toibench) -o example_plugin.so examples/solver_c/plugin.c -lm
 *        (the installed header alone: it links nothing of toibench)
 * Run:   toibench run --solver ./example_plugin.so cases/degenerate.cases
 *        toibench run --solver ./example_plugin.so:example_stable cases/degenerate.cases
 * Each call answers one case; toibench calls it in a child process with a time limit.
 */
#include <toibench/toi_solver.h>
#include "ball_toi.h"

TOI_SOLVER_ABI;

int example_stable(toi_solver_result *out, const toi_solver_case *c) {
  out->cls = ball_toi(c->pa, c->va, c->ra, c->pb, c->vb, c->rb, c->tmax, &out->t);
  /* target and tolerance stay 0: this solver aims at touching, exactly. */
  return TOI_SOLVER_OK;
}

const toi_solver_info toi_solver_catalog[] = {
    {"example-stable", "example_stable",
     "example: cancellation-free quadratic t = c / (-b + sqrt(b^2 - a c)) in double; time in the case's units; "
     "contacts after tmax reported as none",
     TOI_SOLVER_BINARY64},
    {0, 0, 0, 0},
};
