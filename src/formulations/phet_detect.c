/* phet_detect.c: PhET Collision Lab's a-priori ball-ball detection for one pair. */
#include <math.h>
#include "formulations.h"

/* JavaScript's Math.min of two numbers: NaN wins, and -0 is below +0. */
static double js_min(double x, double y) {
  if (isnan(x) || isnan(y)) return NAN;
  if (x == y) return signbit(x) ? x : y;
  return x < y ? x : y;
}

/* Written from phetsims/collision-lab js/common/model/CollisionEngine.js,
   detectBallToBallCollisions (ball1 = A, ball2 = B; swapping them negates
   deltaR and deltaV and changes no rounding), with CollisionLabUtils.clampDown
   at its default CollisionLabConstants.ZERO_THRESHOLD = 1e-10. The collision
   time is elapsedTime + root * velocityMultiplier with elapsedTime = 0 here. */
toi_result toi_phet_detect(const toi_case *c, double velocity_multiplier) {
  const int n = toi_components(c);
  double delta_r[3], delta_v[3];
  for (int i = 0; i < n; i++) {
    delta_r[i] = c->pb[i] - c->pa[i];
    delta_v[i] = (c->vb[i] - c->va[i]) * velocity_multiplier;
  }
  /* ( r1 + r2 ) ** 2 is the correctly rounded square, i.e. R * R. */
  const double sum_of_radii = c->ra + c->rb;
  const double sum_of_radii_squared = sum_of_radii * sum_of_radii;

  const double relative_dot_product = toi_dot_in_order(delta_v, delta_r, n);
  const int is_effectively_parallel = fabs(relative_dot_product) < 1e-11;

  double cc = toi_dot_in_order(delta_r, delta_r, n) - sum_of_radii_squared;
  if (fabs(cc) < 1e-10) cc = 0; /* clampDown */

  double roots[2];
  const int k = toi_phet_quadratic_roots(toi_dot_in_order(delta_v, delta_v, n), relative_dot_product * 2, cc,
                                         roots);
  if (k < 0) return toi_no_contact(); /* null roots: `possibleRoots ? ... : null` */

  /* Math.min( ...possibleRoots ): +Infinity for no roots, NaN if one is NaN. */
  double root = INFINITY;
  for (int i = 0; i < k; i++) root = js_min(root, roots[i]);

  if (isfinite(root) && root >= 0 && !is_effectively_parallel)
    return toi_verdict(TOI_HIT, root * velocity_multiplier);
  return toi_no_contact();
}
