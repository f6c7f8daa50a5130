/* fdwrite_plugin.c: a solver plug-in that writes into every descriptor it may have inherited, for the isolation tests. */
/*
 * Correct, except that a case whose ID starts with "evil-" first writes
 * "EVIL: injected by plug-in" to every descriptor from 3 to 64: whatever the
 * bench left open in the plug-in's process (an output file, a temporary file)
 * would receive it. With TOI_TEST_EVIL_LAST set, the same happens once more
 * after the last answer, when the bench asks for the engine's cost.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "toi_solver.h"
#include "ball_toi.h"

TOI_SOLVER_ABI;

static void write_everywhere(void) {
  static const char evil[] = "EVIL: injected by plug-in\n";
  for (int fd = 3; fd <= 64; fd++) {
    ssize_t w = write(fd, evil, sizeof evil - 1);
    (void)w;
  }
}

int toi_solver_report_cost(const char *symbol, toi_solver_cost *out) {
  (void)symbol, (void)out;
  if (getenv("TOI_TEST_EVIL_LAST")) write_everywhere();
  return 0;
}

int fdwrite(toi_solver_result *out, const toi_solver_case *c) {
  if (!strncmp(c->id, "evil-", 5)) write_everywhere();
  out->cls = ball_toi(c->pa, c->va, c->ra, c->pb, c->vb, c->rb, c->tmax, &out->t);
  return TOI_SOLVER_OK;
}
