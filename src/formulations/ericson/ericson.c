/* ericson.c: Ericson's TestMovingSphereSphere (Real-Time Collision Detection 5.5.5). */
#include <math.h>
#include "formulations.h"

/* The book leaves EPSILON to the reader; this is an absolute threshold on
   |v|^2, so it also rejects slow but real approaches (|v| < 1e-6). */
#define ERICSON_EPSILON REAL(1e-12) /* binary32: 1e-12f, the nearest float */

/* The book's code (written in float) in real: halved b, early outs in its
   order, and t = 0 for spheres that already overlap. */
toi_result RNAME(toi_f_ericson)(const toi_case *c) {
  const int n = toi_components(c);
  real s[3], v[3];
  toi_relative_motion(c, n, s, v);
  const real r = TOI_IN(c->rb) + TOI_IN(c->ra);
  const real cc = toi_dot_in_order(s, s, n) - r * r;
  if (cc < 0) return toi_verdict(TOI_OVERLAP, 0.0);
  const real a = toi_dot_in_order(v, v, n);
  if (a < ERICSON_EPSILON) return toi_no_contact(); /* not moving relative to each other */
  const real b = toi_dot_in_order(v, s, n);
  if (b >= 0) return toi_no_contact(); /* not moving towards each other */
  const real d = b * b - a * cc;
  if (d < 0) return toi_no_contact(); /* no real root: no intersection */
  return toi_verdict(TOI_HIT, (-b - SQRT(d)) / a);
}
