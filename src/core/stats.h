/* stats.h: the one quantile of the bench (nearest rank), for every table that states one. */
#ifndef TOI_STATS_H
#define TOI_STATS_H

#include <stddef.h>

/// The nearest-rank index of quantile q in [0, 1] of n sorted values: the
/// smallest k (0-based) with at least q of the data at or below v[k]; n > 0.
size_t toi_quantile_index(size_t n, double q);
/// Quantile q of v[0..n-1], nearest rank; sorts v in place; NaN when n is 0.
double toi_quantile(double *v, size_t n, double q);
/// Ascending comparison of two doubles for qsort (NaN never given).
int toi_cmp_double(const void *a, const void *b);

#endif
