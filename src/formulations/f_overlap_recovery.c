/* f_overlap_recovery.c: document 004's time back to first contact for overlapping balls. */
#include <math.h>
#include "formulations.h"

/* Written from phetsims/collision-lab js/common/model/CollisionEngine.js,
   getBallToBallCollisionOverlapTime (stepping forward), guarded by
   BallUtils.areBallsOverlapping as its caller does: only balls whose centre
   distance, a square root in double, is below rA + rB are handled; others get
   "none". The quadratic |dr|^2 - 2 time (dv.dr) + time^2 |dv|^2 = R^2 goes to
   dot's solveQuadraticRootsReal (same 1e7 linear fallback as phet); the first
   root >= 0 is the elapsed time, and `|| 0` turns "no such root" into 0. */
toi_result toi_f_overlap_recovery(const toi_case *c) {
  const int n = toi_components(c);
  double apart[3], delta_r[3], delta_v[3];
  for (int i = 0; i < n; i++) apart[i] = c->pa[i] - c->pb[i];
  const double distance_between_balls = sqrt(toi_dot_in_order(apart, apart, n));
  if (!(distance_between_balls < c->ra + c->rb)) return toi_no_contact();

  for (int i = 0; i < n; i++) {
    delta_r[i] = c->pb[i] - c->pa[i];
    delta_v[i] = c->vb[i] - c->va[i];
  }
  /* Math.pow( r1 + r2, 2 ), the correctly rounded square. */
  const double sum_of_radii = c->ra + c->rb;
  const double sum_of_radii_squared = sum_of_radii * sum_of_radii;
  double roots[2];
  const int k = toi_phet_quadratic_roots(toi_dot_in_order(delta_v, delta_v, n), -2 * toi_dot_in_order(delta_r, delta_v, n),
                                         toi_dot_in_order(delta_r, delta_r, n) - sum_of_radii_squared, roots);
  double contact_time = 0;
  for (int i = 0; i < k; i++) {
    if (roots[i] >= 0) {
      contact_time = roots[i] == 0 ? 0 : roots[i]; /* `|| 0` makes -0 a +0 */
      break;
    }
  }
  /* The balls met contact_time ago: a reverse time. 0 - x keeps t = +0. */
  return toi_verdict(TOI_OVERLAP, 0.0 - contact_time);
}
