/* eft_real.h: error-free transformations in the formulations' type real (real.h). */
#ifndef TOI_EFT_REAL_H
#define TOI_EFT_REAL_H

#include <math.h>
#include "eft.h"
#include "real.h"

/*
 * In binary64 these are eft.h's own: rdd is dd and r_two_sum is two_sum, so
 * a generic source computes exactly what it computed with eft.h. In binary32
 * they are the same algorithms in float (TwoSum, TwoProd by fmaf), and
 * r_scale2 / r_ilog2 use ldexpf / ilogbf, which are exact or correctly
 * rounded in float as scale2 / ilog2d are in double.
 */
#if TOI_REAL_BITS == 32
typedef struct rdd {
  float hi, lo;
} rdd;

TOI_INLINE rdd r_two_sum(float a, float b) {
  float s = a + b;
  float bv = s - a;
  float av = s - bv;
  rdd r = {s, (a - av) + (b - bv)};
  return r;
}

TOI_INLINE rdd r_two_prod(float a, float b) {
  float p = a * b;
  rdd r = {p, fmaf(a, b, -p)};
  return r;
}

TOI_INLINE float r_scale2(float x, int k) { return ldexpf(x, k); }
TOI_INLINE int r_ilog2(float x) { return ilogbf(x); }
#else
typedef dd rdd;
#define r_two_sum two_sum
#define r_two_prod two_prod
#define r_scale2 scale2
#define r_ilog2 ilog2d
#endif

#endif
