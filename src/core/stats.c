/* stats.c: nearest-rank quantiles. */
#include <math.h>
#include <stdlib.h>
#include "stats.h"

int toi_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

size_t toi_quantile_index(size_t n, double q) {
  size_t k = (size_t)ceil(q * (double)n);
  if (k == 0) k = 1;
  if (k > n) k = n;
  return k - 1;
}

double toi_quantile(double *v, size_t n, double q) {
  if (n == 0) return NAN;
  qsort(v, n, sizeof *v, toi_cmp_double);
  return v[toi_quantile_index(n, q)];
}
