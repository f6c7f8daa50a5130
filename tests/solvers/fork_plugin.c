/* fork_plugin.c: a solver plug-in that leaves a process behind, for the isolation tests. */
/*
 * Correct, except that a case whose ID starts with "fork-" first forks a
 * child that sleeps for 300 s holding every descriptor it inherited (the
 * answer pipe among them), and writes the child's process ID as a line to the
 * file TOI_TEST_PIDFILE names; "setsid-" does the same with a child that
 * first leaves the process group and the session of the plug-in's process
 * (the case is answered only once it has).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "toi_solver.h"
#include "ball_toi.h"

TOI_SOLVER_ABI;

static void leave_child(int new_session) {
  int ready[2];
  if (pipe(ready)) return;
  pid_t pid = fork();
  if (pid == 0) {
    if (new_session) setsid();
    ssize_t w = write(ready[1], "x", 1);
    (void)w;
    sleep(300);
    _exit(0);
  }
  close(ready[1]);
  char x;
  ssize_t r = pid > 0 ? read(ready[0], &x, 1) : 0;
  (void)r;
  close(ready[0]);
  const char *path = getenv("TOI_TEST_PIDFILE");
  FILE *f = path && pid > 0 ? fopen(path, "a") : NULL;
  if (f) {
    fprintf(f, "%ld\n", (long)pid);
    fclose(f);
  }
}

int forker(toi_solver_result *out, const toi_solver_case *c) {
  if (!strncmp(c->id, "fork-", 5)) leave_child(0);
  if (!strncmp(c->id, "setsid-", 7)) leave_child(1);
  out->cls = ball_toi(c->pa, c->va, c->ra, c->pb, c->vb, c->rb, c->tmax, &out->t);
  return TOI_SOLVER_OK;
}
