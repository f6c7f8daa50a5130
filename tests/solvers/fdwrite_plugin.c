/* fdwrite_plugin.c: a solver plug-in that writes into every descriptor it may have inherited, for the isolation tests. */
/*
 * Correct, except that a case whose ID starts with "evil-" first writes
 * "EVIL: injected by plug-in" to every descriptor from 3 to 64: whatever the
 * bench left open in the plug-in's process (an output file, a temporary file)
 * would receive it.
 */
#include <string.h>
#include <unistd.h>
#include "toi_solver.h"
#include "ball_toi.h"

TOI_SOLVER_ABI;

int fdwrite(toi_solver_result *out, const toi_solver_case *c) {
  if (!strncmp(c->id, "evil-", 5)) {
    static const char evil[] = "EVIL: injected by plug-in\n";
    for (int fd = 3; fd <= 64; fd++) {
      ssize_t w = write(fd, evil, sizeof evil - 1);
      (void)w;
    }
  }
  out->cls = ball_toi(c->pa, c->va, c->ra, c->pb, c->vb, c->rb, c->tmax, &out->t);
  return TOI_SOLVER_OK;
}
