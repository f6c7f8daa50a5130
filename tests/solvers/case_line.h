/* case_line.h: how the test command solvers read a line of the protocol's input: '# tmax T', other header
   lines, and a case line's ID, dimension and numbers, split at blanks (the bench writes them; these solvers
   trust it). */
#ifndef TOI_TEST_CASE_LINE_H
#define TOI_TEST_CASE_LINE_H

#include <stdlib.h>
#include <string.h>

typedef struct cl_case {
  const char *id; /* in the caller's line, which the reading splits */
  int dim;
  double pa[3], va[3], ra, pb[3], vb[3], rb;
} cl_case;

/* 1 when line is a case line, c then set; 0 for a header or blank line,
   '# tmax T' first setting *tmax when tmax is not NULL. */
static inline int cl_parse(char *line, double *tmax, cl_case *c) {
  if (tmax && !strncmp(line, "# tmax ", 7)) {
    *tmax = strtod(line + 7, NULL);
    return 0;
  }
  char *tok[20];
  int nt = 0;
  for (char *p = strtok(line, " \t\r\n"); p && nt < 20; p = strtok(NULL, " \t\r\n")) tok[nt++] = p;
  if (nt < 2 || tok[0][0] == '#') return 0;
  memset(c, 0, sizeof *c);
  c->id = tok[0];
  c->dim = atoi(tok[1]);
  double x[16] = {0};
  for (int k = 2; k < nt && k < 18; k++) x[k - 2] = strtod(tok[k], NULL);
  int d = c->dim == 3 ? 3 : 2;
  const double *a = x, *b = x + 2 * d + 2;
  for (int k = 0; k < d; k++) {
    c->pa[k] = a[k];
    c->va[k] = a[d + k];
    c->pb[k] = b[k];
    c->vb[k] = b[d + k];
  }
  c->ra = a[2 * d];
  c->rb = b[2 * d];
  return 1;
}

#endif
