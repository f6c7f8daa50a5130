/* simkern_cmd.c: a subprocess solver for the simulation-kernel tests: answers correctly (ball_toi) except as MODE says.
 *   simkern_cmd ok              every case answered
 *   simkern_cmd crash PATTERN   dies by SIGSEGV on the case whose ID holds PATTERN
 *   simkern_cmd hang PATTERN    never answers the case whose ID holds PATTERN
 *   simkern_cmd planar          declines ('unsupported') a 3D case off the plane z = 0, as a 2D engine does
 *   simkern_cmd late DT [TOL]   answers each hit DT later (the pair penetrates); with TOL, states target 0 and
 *                               tolerance TOL on every answer
 * Each answer is flushed at once, so a crash loses only the case it happens on. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ball_toi.h"
#include "case_line.h"

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "ok";
  const char *pat = argc > 2 ? argv[2] : NULL;
  double late = !strcmp(mode, "late") && pat ? strtod(pat, NULL) : 0;
  const char *tol = !strcmp(mode, "late") && argc > 3 ? argv[3] : NULL;
  char line[4096];
  double tmax = INFINITY;
  while (fgets(line, sizeof line, stdin)) {
    cl_case cs;
    if (!cl_parse(line, &tmax, &cs)) continue;
    const char *id = cs.id;
    if (!strcmp(mode, "crash") && pat && strstr(id, pat)) {
      volatile int *p = NULL;
      return *p;
    }
    if (!strcmp(mode, "hang") && pat && strstr(id, pat))
      for (;;) pause();
    if (!strcmp(mode, "planar") && cs.dim == 3 && (cs.pa[2] != 0 || cs.va[2] != 0 || cs.pb[2] != 0 || cs.vb[2] != 0)) {
      printf("%s unsupported\n", id);
      fflush(stdout);
      continue;
    }
    double t;
    int cls = ball_toi(cs.pa, cs.va, cs.ra, cs.pb, cs.vb, cs.rb, tmax, &t);
    if (cls == 7 || cls == 3) t += late;
    if (tol) printf("%s %s %a 0 %s\n", id, ball_class_names[cls], t, tol);
    else printf("%s %s %a\n", id, ball_class_names[cls], t);
    fflush(stdout);
  }
  return 0;
}
