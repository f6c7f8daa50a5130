/* float_ericson_cmd.c: a subprocess solver computing in float (Ericson's test), for the binary32 bench tests. */
/*
 * Reads the protocol's input and answers every case. It insists on the
 * header line "# precision binary32" (without it every case is answered
 * 'failed'), unless run with --any, which answers whatever it is given.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "float_ericson.h"

int main(int argc, char **argv) {
  int any = argc > 1 && !strcmp(argv[1], "--any"), told = 0;
  char line[4096];
  static const char *const names[] = {"none", "overlap", "static", "contact", "separating", "miss", "graze", "hit"};
  while (fgets(line, sizeof line, stdin)) {
    if (!strcmp(line, "# precision binary32\n")) told = 1;
    char *tok[20];
    int n = 0;
    for (char *p = strtok(line, " \t\r\n"); p && n < 20; p = strtok(NULL, " \t\r\n")) tok[n++] = p;
    if (n < 2 || tok[0][0] == '#') continue;
    if (!any && !told) {
      printf("%s failed\n", tok[0]);
      continue;
    }
    int dim = atoi(tok[1]);
    double x[16] = {0}, pa[3] = {0}, va[3] = {0}, pb[3] = {0}, vb[3] = {0};
    for (int k = 2; k < n && k < 18; k++) x[k - 2] = strtod(tok[k], NULL);
    const double *a = x, *b = x + 2 * dim + 2;
    for (int k = 0; k < dim; k++) {
      pa[k] = a[k];
      va[k] = a[dim + k];
      pb[k] = b[k];
      vb[k] = b[dim + k];
    }
    double t;
    int cls = float_ericson(pa, va, a[2 * dim], pb, vb, b[2 * dim], &t);
    printf("%s %s %a\n", tok[0], names[cls], t);
  }
  return 0;
}
