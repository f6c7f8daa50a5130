/* phet_detect.c: PhET Collision Lab's a-priori ball-ball detection for one pair. */
#include <math.h>
#include "formulations.h"

/* JavaScript's Math.min of two numbers: NaN wins, and -0 is below +0. */
static real js_min(real x, real y) {
  if (isnan(x) || isnan(y)) return NAN;
  if (x == y) return signbit(x) ? x : y;
  return x < y ? x : y;
}

/* Written from phetsims/collision-lab js/common/model/CollisionEngine.js,
   detectBallToBallCollisions (ball1 = A, ball2 = B; swapping them negates
   deltaR and deltaV and changes no rounding), with CollisionLabUtils.clampDown
   at its default CollisionLabConstants.ZERO_THRESHOLD = 1e-10. The collision
   time is elapsedTime + root * velocityMultiplier with elapsedTime = 0 here. */
toi_result RNAME(toi_phet_detect)(const toi_case *c, real velocity_multiplier) {
  const int n = toi_components(c);
  real delta_r[3], delta_v[3];
  for (int i = 0; i < n; i++) {
    delta_r[i] = TOI_IN(c->pb[i]) - TOI_IN(c->pa[i]);
    delta_v[i] = (TOI_IN(c->vb[i]) - TOI_IN(c->va[i])) * velocity_multiplier;
  }
  /* ( r1 + r2 ) ** 2 is the correctly rounded square, i.e. R * R. */
  const real sum_of_radii = TOI_IN(c->ra) + TOI_IN(c->rb);
  const real sum_of_radii_squared = sum_of_radii * sum_of_radii;

  const real relative_dot_product = toi_dot_in_order(delta_v, delta_r, n);
  const int is_effectively_parallel = FABS(relative_dot_product) < REAL(1e-11);

  real cc = toi_dot_in_order(delta_r, delta_r, n) - sum_of_radii_squared;
  if (FABS(cc) < REAL(1e-10)) cc = 0; /* clampDown */

  real roots[2];
  const int k = toi_phet_quadratic_roots(toi_dot_in_order(delta_v, delta_v, n), relative_dot_product * 2, cc,
                                         roots);
  if (k < 0) return toi_no_contact(); /* null roots: `possibleRoots ? ... : null` */

  /* Math.min( ...possibleRoots ): +Infinity for no roots, NaN if one is NaN. */
  real root = INFINITY;
  for (int i = 0; i < k; i++) root = js_min(root, roots[i]);

  if (isfinite(root) && root >= 0 && !is_effectively_parallel)
    return toi_verdict(TOI_HIT, root * velocity_multiplier);
  return toi_no_contact();
}
