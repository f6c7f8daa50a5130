/* f_ericson.c: Ericson's TestMovingSphereSphere (Real-Time Collision Detection 5.5.5). */
#include <math.h>
#include "formulations.h"

/* The book leaves EPSILON to the reader; this is an absolute threshold on
   |v|^2, so it also rejects slow but real approaches (|v| < 1e-6). */
#define ERICSON_EPSILON 1e-12

/* The book's code in double instead of float: halved b, early outs in its
   order, and t = 0 for spheres that already overlap. */
toi_result toi_f_ericson(const toi_case *c) {
  const int n = toi_components(c);
  double s[3], v[3];
  toi_relative_motion(c, n, s, v);
  const double r = c->rb + c->ra;
  const double cc = toi_dot_in_order(s, s, n) - r * r;
  if (cc < 0) return toi_verdict(TOI_OVERLAP, 0.0);
  const double a = toi_dot_in_order(v, v, n);
  if (a < ERICSON_EPSILON) return toi_no_contact(); /* not moving relative to each other */
  const double b = toi_dot_in_order(v, s, n);
  if (b >= 0) return toi_no_contact(); /* not moving towards each other */
  const double d = b * b - a * cc;
  if (d < 0) return toi_no_contact(); /* no real root: no intersection */
  return toi_verdict(TOI_HIT, (-b - sqrt(d)) / a);
}
