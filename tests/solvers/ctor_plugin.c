/* ctor_plugin.c: a correct solver plug-in whose ELF constructor misbehaves as TOI_TEST_CTOR says, for the reliability tests. */
/*
 * TOI_TEST_CTOR=exit calls _exit(0), abort calls abort(), loop loops
 * forever, puts writes a line to stdout; unset or anything else does nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "toi_solver.h"
#include "ball_toi.h"

TOI_SOLVER_ABI;

__attribute__((constructor)) static void misbehave_on_load(void) {
  const char *how = getenv("TOI_TEST_CTOR");
  if (!how) return;
  if (!strcmp(how, "exit")) _exit(0);
  if (!strcmp(how, "abort")) abort();
  if (!strcmp(how, "loop"))
    for (volatile int spin = 1; spin;) {
    }
  if (!strcmp(how, "puts")) {
    puts("CTOR-STDOUT-NOISE");
    fflush(stdout);
  }
}

int toi_solver_solve(toi_solver_result *out, const toi_solver_case *c) {
  out->cls = ball_toi(c->pa, c->va, c->ra, c->pb, c->vb, c->rb, c->tmax, &out->t);
  return TOI_SOLVER_OK;
}
