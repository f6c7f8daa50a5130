/* f_gsl_stable.c: the cancellation-free quadratic of GSL's gsl_poly_solve_quadratic. */
#include <math.h>
#include "formulations.h"

/* What a careful user would write with GSL (poly/solve_quadratic.c): the
   decision follows the reference's order, but in double, and the roots come
   from the pair q = -0.5 (B + sgn(B) sqrt(disc)), q / A, C / q, which never
   subtracts nearly equal numbers. */
toi_result toi_f_gsl_stable(const toi_case *c) {
  const int n = toi_components(c);
  double s[3], v[3];
  toi_relative_motion(c, n, s, v);
  const double R = c->ra + c->rb;
  const double A = toi_dot_in_order(v, v, n);
  const double B = 2 * toi_dot_in_order(s, v, n);
  const double C = toi_dot_in_order(s, s, n) - R * R;
  if (C < 0) return toi_verdict(TOI_OVERLAP, 0.0);
  if (A == 0) return toi_verdict(TOI_STATIC, NAN);
  if (B >= 0) return toi_verdict(TOI_SEPARATING, NAN);
  const double disc = B * B - 4 * A * C;
  if (disc < 0) return toi_verdict(TOI_MISS, NAN);
  if (disc == 0) return toi_verdict(TOI_GRAZE, -0.5 * B / A);
  const double sgnb = (B > 0 ? 1 : -1);
  const double temp = -0.5 * (B + sgnb * sqrt(disc));
  const double r1 = temp / A;
  const double r2 = C / temp;
  return toi_verdict(TOI_HIT, r1 < r2 ? r1 : r2);
}
