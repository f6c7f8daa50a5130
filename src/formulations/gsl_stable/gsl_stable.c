/* gsl_stable.c: the cancellation-free quadratic of GSL's gsl_poly_solve_quadratic. */
#include <math.h>
#include "formulations.h"

/* What a careful user would write with GSL (poly/solve_quadratic.c): the
   decision follows the reference's order, but in real, and the roots come
   from the pair q = -0.5 (B + sgn(B) sqrt(disc)), q / A, C / q, which never
   subtracts nearly equal numbers. */
toi_result RNAME(toi_f_gsl_stable)(const toi_case *c) {
  const int n = toi_components(c);
  real s[3], v[3];
  toi_relative_motion(c, n, s, v);
  const real R = TOI_IN(c->ra) + TOI_IN(c->rb);
  const real A = toi_dot_in_order(v, v, n);
  const real B = 2 * toi_dot_in_order(s, v, n);
  const real C = toi_dot_in_order(s, s, n) - R * R;
  if (C < 0) return toi_verdict(TOI_OVERLAP, 0.0);
  if (A == 0) return toi_verdict(TOI_STATIC, NAN);
  if (B >= 0) return toi_verdict(TOI_SEPARATING, NAN);
  const real disc = B * B - 4 * A * C;
  if (disc < 0) return toi_verdict(TOI_MISS, NAN);
  if (disc == 0) return toi_verdict(TOI_GRAZE, REAL(-0.5) * B / A);
  const real sgnb = (B > 0 ? 1 : -1);
  const real temp = REAL(-0.5) * (B + sgnb * SQRT(disc));
  const real r1 = temp / A;
  const real r2 = C / temp;
  return toi_verdict(TOI_HIT, r1 < r2 ? r1 : r2);
}
