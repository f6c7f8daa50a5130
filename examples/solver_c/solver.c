/* solver.c: an example solver speaking toibench's subprocess protocol (case lines in, `ID CLASS T` out). */
/*
 * Build: cc -O2 -o solver examples/solver_c/solver.c -lm
 * Run:   toibench run --solver-cmd './solver' cases/degenerate.cases
 *
 * toibench writes case format v1 lines on stdin, then closes it:
 *   # toibench solver protocol 1
 *   # tmax inf                      (or the step as a hex float, with --tmax)
 *   ID DIM pA[DIM] vA[DIM] rA mA pB[DIM] vB[DIM] rB mB
 * and reads one answer per case from stdout, in any order:
 *   ID CLASS T                      (T a number or nan; hex floats round-trip)
 * Other '#' lines and blank lines are comments.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ball_toi.h"

int main(void) {
  char line[4096];
  double tmax = INFINITY;
  while (fgets(line, sizeof line, stdin)) {
    if (!strncmp(line, "# tmax ", 7)) {
      tmax = strtod(line + 7, NULL);
      continue;
    }
    char *tok[20];
    int n = 0;
    for (char *p = strtok(line, " \t\r\n"); p && n < 20; p = strtok(NULL, " \t\r\n")) tok[n++] = p;
    if (n == 0 || tok[0][0] == '#') continue;
    int dim = atoi(tok[1]);
    if ((dim != 2 && dim != 3) || n != 2 + 2 * (2 * dim + 2)) {
      /* Answering "unsupported" keeps the case out of the scores; toibench reads only valid cases anyway. */
      printf("%s unsupported\n", tok[0]);
      continue;
    }
    double x[16];
    for (int k = 2; k < n; k++) x[k - 2] = strtod(tok[k], NULL); /* strtod reads hex floats exactly */
    double pa[3] = {0}, va[3] = {0}, pb[3] = {0}, vb[3] = {0};
    const double *a = x, *b = x + 2 * dim + 2;
    for (int k = 0; k < dim; k++) {
      pa[k] = a[k];
      va[k] = a[dim + k];
      pb[k] = b[k];
      vb[k] = b[dim + k];
    }
    double t;
    int cls = ball_toi(pa, va, a[2 * dim], pb, vb, b[2 * dim], tmax, &t);
    if (isnan(t))
      printf("%s %s nan\n", tok[0], ball_class_names[cls]);
    else
      printf("%s %s %a\n", tok[0], ball_class_names[cls], t);
  }
  /* Answers are written when the input ends; fflush reports a closed pipe. */
  return fflush(stdout) ? 1 : 0;
}
