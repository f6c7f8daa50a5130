/* ctor_plugin.c: a correct solver plug-in whose ELF constructor misbehaves as TOI_TEST_CTOR says, for the reliability tests. */
/*
 * TOI_TEST_CTOR=exit calls _exit(0), abort calls abort(), loop loops
 * forever, puts writes a line to stdout, fork starts a child that sleeps
 * for 300 s (its process ID appended to the file TOI_TEST_PIDFILE names);
 * unset or anything else does nothing.
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
  if (!strcmp(how, "fork")) {
    pid_t pid = fork();
    if (pid == 0) {
      sleep(300);
      _exit(0);
    }
    const char *path = getenv("TOI_TEST_PIDFILE");
    FILE *f = path && pid > 0 ? fopen(path, "a") : NULL;
    if (f) {
      fprintf(f, "%ld\n", (long)pid);
      fclose(f);
    }
  }
}

int toi_solver_solve(toi_solver_result *out, const toi_solver_case *c) {
  out->cls = ball_toi(c->pa, c->va, c->ra, c->pb, c->vb, c->rb, c->tmax, &out->t);
  return TOI_SOLVER_OK;
}
