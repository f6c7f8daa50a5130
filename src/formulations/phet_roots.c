/* phet_roots.c: PhET dot's solveQuadraticRootsReal, the real roots of a x^2 + b x + c. */
#include <math.h>
#include "formulations.h"

/* Written from phetsims/dot js/Utils.js (2013-2021), solveQuadraticRootsReal
   and solveLinearRootsReal; the 1e7 ratio test is theirs: it sends nearly
   linear quadratics to the linear root -c/b, which is a different number. */
int RNAME(toi_phet_quadratic_roots)(real a, real b, real c, real roots[2]) {
  const real epsilon = REAL(1E7);
  if (a == 0 || FABS(b / a) > epsilon || FABS(c / a) > epsilon) {
    /* solveLinearRootsReal(b, c): the root of b x + c = 0. */
    if (b == 0) return c == 0 ? -1 : 0;
    roots[0] = -c / b;
    return 1;
  }
  const real discriminant = b * b - 4 * a * c;
  if (discriminant < 0) return 0;
  const real sqrt_disc = SQRT(discriminant);
  roots[0] = (-b - sqrt_disc) / (2 * a);
  roots[1] = (-b + sqrt_disc) / (2 * a);
  return 2;
}
