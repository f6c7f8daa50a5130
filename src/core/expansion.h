/* expansion.h: Shewchuk's floating-point expansions: exact sums and products of doubles (private). */
#ifndef TOI_EXPANSION_H
#define TOI_EXPANSION_H

/* An expansion is an array e[0..n-1] of doubles, nonoverlapping and sorted by
   increasing magnitude, whose exact sum is the value it stands for (J. R.
   Shewchuk, "Adaptive precision floating-point arithmetic and fast robust
   geometric predicates", 1997). Zero components are eliminated; zero is the
   one-component expansion {0}. Every operation is exact as long as no
   product's rounding error underflows and nothing overflows, which the
   kernels guarantee by scaling their inputs into [2^-150, 2^150). */

/// h = e + b; returns the length of h (at most elen + 1). h may be e.
int xp_grow(const double *e, int elen, double b, double *h);
/// Adds every pairwise product sign e[i] f[j] (sign = +1 or -1) to the
/// expansion acc of length *alen, in place. Returns 0, or -1 (acc untouched
/// beyond cap) when the result could exceed cap components.
int xp_add_product(double *acc, int *alen, int cap, const double *e, int elen, const double *f, int flen,
                   double sign);
/// Shewchuk's Compress: h has the same value, is nonoverlapping and its last
/// (largest) component approximates the value to within one ulp. Returns
/// the length. h may be e.
int xp_compress(const double *e, int elen, double *h);
/// The sign of the value (-1, 0, +1): that of the largest component.
int xp_sign(const double *e, int elen);
/// The value as a normalized double-double hi + lo, relative error below
/// 2^-100, for a compressed expansion.
void xp_approx(const double *e, int elen, double *hi, double *lo);

#endif
