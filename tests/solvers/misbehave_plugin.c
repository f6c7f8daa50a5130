/* misbehave_plugin.c: a solver plug-in that fails on purpose, case by case, for the solver tests. */
/*
 * Correct, except by the prefix of the case ID: crash- dereferences NULL,
 * hang- loops forever, nan- answers hit with a NaN time, badclass- answers
 * class 42, fail- returns TOI_SOLVER_FAILED, unsup- TOI_SOLVER_UNSUPPORTED,
 * print- writes to stdout first, exit- calls exit(0), status- returns 17,
 * spam- writes 30 numbered lines to stdout and 5 to stderr first.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "toi_solver.h"
#include "ball_toi.h"

TOI_SOLVER_ABI;

static int starts(const char *s, const char *p) { return !strncmp(s, p, strlen(p)); }

int misbehave(toi_solver_result *out, const toi_solver_case *c) {
  if (starts(c->id, "crash-")) {
    volatile int *p = NULL;
    return *p;
  }
  if (starts(c->id, "hang-"))
    for (;;) pause();
  if (starts(c->id, "exit-")) exit(0);
  if (starts(c->id, "fail-")) return TOI_SOLVER_FAILED;
  if (starts(c->id, "unsup-")) return TOI_SOLVER_UNSUPPORTED;
  if (starts(c->id, "status-")) return 17;
  if (starts(c->id, "spam-")) {
    for (int i = 0; i < 30; i++) printf("PLUGIN-SPAM %d\n", i);
    fflush(stdout);
    for (int i = 0; i < 5; i++) fprintf(stderr, "PLUGIN-SPAM-ERR %d\n", i);
  }
  if (starts(c->id, "print-")) {
    printf("PLUGIN-STDOUT-NOISE\n");
    fflush(stdout);
  }
  out->cls = ball_toi(c->pa, c->va, c->ra, c->pb, c->vb, c->rb, c->tmax, &out->t);
  if (starts(c->id, "nan-")) out->t = NAN;
  if (starts(c->id, "badclass-")) out->cls = 42;
  return TOI_SOLVER_OK;
}

/* The same function under a second name, to run two rows from one library. */
int misbehave_again(toi_solver_result *out, const toi_solver_case *c) { return misbehave(out, c); }
