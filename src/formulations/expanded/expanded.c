/* expanded.c: the textbook expanded quadratic in centre coordinates, minimal guards. */
#include <math.h>
#include "formulations.h"

/* The form every derivation reaches first (000 and 002 expand to it): no
   overlap test, so an overlap gives a negative lower root and "none". */
toi_result RNAME(toi_f_expanded)(const toi_case *c) {
  const int n = toi_components(c);
  real s[3], v[3];
  toi_relative_motion(c, n, s, v);
  const real R = TOI_IN(c->ra) + TOI_IN(c->rb);
  const real A = toi_dot_in_order(v, v, n);
  const real B = 2 * toi_dot_in_order(s, v, n);
  const real C = toi_dot_in_order(s, s, n) - R * R;
  if (A == 0) return toi_no_contact();
  const real disc = B * B - 4 * A * C;
  if (disc < 0) return toi_no_contact();
  const real t = (-B - SQRT(disc)) / (2 * A);
  if (t >= 0) return toi_verdict(TOI_HIT, t);
  return toi_no_contact();
}
