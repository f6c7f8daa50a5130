/* float_ericson.h: Ericson's moving-sphere test (Real-Time Collision Detection, 5.5.8) computed in float. */
#ifndef FLOAT_ERICSON_H
#define FLOAT_ERICSON_H

#include <math.h>

/* The class number (toibench's numbering) and *t for a contact, every
   operation in float: what a binary32 engine computes. */
static inline int float_ericson(const double pa[3], const double va[3], double ra, const double pb[3],
                                const double vb[3], double rb, double *t) {
  float s[3], v[3], a = 0, b = 0, ss = 0, r = (float)ra + (float)rb;
  for (int k = 0; k < 3; k++) {
    s[k] = (float)pb[k] - (float)pa[k];
    v[k] = (float)vb[k] - (float)va[k];
  }
  for (int k = 0; k < 3; k++) {
    a += v[k] * v[k];
    b += v[k] * s[k];
    ss += s[k] * s[k];
  }
  float c = ss - r * r;
  *t = NAN;
  if (c < 0) return 1; /* overlap */
  if (a == 0) return 2; /* static */
  if (b >= 0) return 4; /* separating */
  float d = b * b - a * c;
  if (d < 0) return 5; /* miss */
  float tf = (-b - sqrtf(d)) / a;
  /* c >= 0 makes the exact root >= 0, but sqrtf(d) rounded up can exceed -b:
     a forward solver never answers a negative time (the protocol refuses it). */
  if (tf < 0) tf = 0;
  *t = (double)tf;
  return d == 0 ? 6 : tf == 0 ? 3 : 7;
}

#endif
