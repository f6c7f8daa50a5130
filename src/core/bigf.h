/* bigf.h: exact binary numbers of any double-derived size (sign, 32-bit limbs, exponent), private. */
#ifndef TOI_BIGF_H
#define TOI_BIGF_H

#include <stdint.h>

/* Every finite double is an integer times 2^-1074, and the kernels only add,
   subtract and multiply such numbers up to degree 4, so the exact results
   span at most 4 (1025 + 1074) + a few bits: 280 limbs of 32 bits hold any of
   them. Limbs are 32 bits so that a limb product fits a uint64_t in plain C11. */
#define BIGF_LIMBS 280

/// The exact value (-1)^neg sum_{i<n} d[i] 2^(32 (exp + i)); zero has n = 0.
/// Normalized: d[0] != 0 and d[n-1] != 0 unless n = 0.
typedef struct bigf {
  int neg;
  int n;
  int exp;
  uint32_t d[BIGF_LIMBS];
} bigf;

/// r = x exactly (x finite).
void bigf_set_d(bigf *r, double x);
/// r = a + b exactly; r may alias a or b.
void bigf_add(bigf *r, const bigf *a, const bigf *b);
/// r = a - b exactly; r may alias a or b.
void bigf_sub(bigf *r, const bigf *a, const bigf *b);
/// r = a b exactly; r must not alias a or b.
void bigf_mul(bigf *r, const bigf *a, const bigf *b);
/// -1, 0 or +1.
int bigf_sign(const bigf *a);
/// a ~ (*hi + *lo) 2^*e with 1 <= |*hi| < 2, hi + lo normalized, relative
/// error below 2^-103; all zero when a = 0.
void bigf_approx(const bigf *a, double *hi, double *lo, int *e);

#endif
