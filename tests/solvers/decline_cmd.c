/* decline_cmd.c: a subprocess solver that answers correctly (ball_toi) except that it declines ('ID unsupported')
 * every case whose ID holds argv[1] and fails ('ID failed') every case whose ID holds argv[2] (either may be "-" for
 * none), then reports its engine's own time as exactly 250 ns per case it read ('# engine-time N 250N'). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ball_toi.h"

int main(int argc, char **argv) {
  const char *decline = argc > 1 && strcmp(argv[1], "-") ? argv[1] : NULL;
  const char *fail = argc > 2 && strcmp(argv[2], "-") ? argv[2] : NULL;
  char line[4096];
  double tmax = INFINITY;
  unsigned long long n = 0;
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
    n++;
    if (decline && strstr(id, decline)) {
      printf("%s unsupported\n", id);
      continue;
    }
    if (fail && strstr(id, fail)) {
      printf("%s failed\n", id);
      continue;
    }
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
    double t;
    int cls = ball_toi(pa, va, a[2 * dim], pb, vb, b[2 * dim], tmax, &t);
    printf("%s %s %a\n", id, ball_class_names[cls], t);
  }
  printf("# engine-time %llu %llu\n", n, 250 * n);
  return 0;
}
