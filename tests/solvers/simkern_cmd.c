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

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "ok";
  const char *pat = argc > 2 ? argv[2] : NULL;
  double late = !strcmp(mode, "late") && pat ? strtod(pat, NULL) : 0;
  const char *tol = !strcmp(mode, "late") && argc > 3 ? argv[3] : NULL;
  char line[4096];
  double tmax = INFINITY;
  while (fgets(line, sizeof line, stdin)) {
    if (!strncmp(line, "# tmax ", 7)) {
      tmax = strtod(line + 7, NULL);
      continue;
    }
    char *tok[20];
    int nt = 0;
    for (char *p = strtok(line, " \t\r\n"); p && nt < 20; p = strtok(NULL, " \t\r\n")) tok[nt++] = p;
    if (nt < 2 || tok[0][0] == '#') continue;
    const char *id = tok[0];
    if (!strcmp(mode, "crash") && pat && strstr(id, pat)) {
      volatile int *p = NULL;
      return *p;
    }
    if (!strcmp(mode, "hang") && pat && strstr(id, pat))
      for (;;) pause();
    int dim = atoi(tok[1]);
    double x[16] = {0}, pa[3] = {0}, va[3] = {0}, pb[3] = {0}, vb[3] = {0};
    for (int k = 2; k < nt && k < 18; k++) x[k - 2] = strtod(tok[k], NULL);
    const double *a = x, *b = x + 2 * dim + 2;
    for (int k = 0; k < dim; k++) {
      pa[k] = a[k];
      va[k] = a[dim + k];
      pb[k] = b[k];
      vb[k] = b[dim + k];
    }
    if (!strcmp(mode, "planar") && dim == 3 && (pa[2] != 0 || va[2] != 0 || pb[2] != 0 || vb[2] != 0)) {
      printf("%s unsupported\n", id);
      fflush(stdout);
      continue;
    }
    double t;
    int cls = ball_toi(pa, va, a[2 * dim], pb, vb, b[2 * dim], tmax, &t);
    if (cls == 7 || cls == 3) t += late;
    if (tol) printf("%s %s %a 0 %s\n", id, ball_class_names[cls], t, tol);
    else printf("%s %s %a\n", id, ball_class_names[cls], t);
    fflush(stdout);
  }
  return 0;
}
