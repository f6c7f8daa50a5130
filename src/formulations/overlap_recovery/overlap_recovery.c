/* overlap_recovery.c: document 004's time back to first contact for overlapping balls. */
#include <math.h>
#include "formulations.h"

/* Written from phetsims/collision-lab js/common/model/CollisionEngine.js,
   getBallToBallCollisionOverlapTime (stepping forward), guarded by
   BallUtils.areBallsOverlapping as its caller does: only balls whose centre
   distance, a square root in real, is below rA + rB are handled; others get
   "none". The quadratic |dr|^2 - 2 time (dv.dr) + time^2 |dv|^2 = R^2 goes to
   dot's solveQuadraticRootsReal (same 1e7 linear fallback as phet); the first
   root >= 0 is the elapsed time, and `|| 0` turns "no such root" into 0. */
toi_result RNAME(toi_f_overlap_recovery)(const toi_case *c) {
  const int n = toi_components(c);
  real apart[3], delta_r[3], delta_v[3];
  for (int i = 0; i < n; i++) apart[i] = TOI_IN(c->pa[i]) - TOI_IN(c->pb[i]);
  const real distance_between_balls = SQRT(toi_dot_in_order(apart, apart, n));
  if (!(distance_between_balls < TOI_IN(c->ra) + TOI_IN(c->rb))) return toi_no_contact();

  for (int i = 0; i < n; i++) {
    delta_r[i] = TOI_IN(c->pb[i]) - TOI_IN(c->pa[i]);
    delta_v[i] = TOI_IN(c->vb[i]) - TOI_IN(c->va[i]);
  }
  /* Math.pow( r1 + r2, 2 ), the correctly rounded square. */
  const real sum_of_radii = TOI_IN(c->ra) + TOI_IN(c->rb);
  const real sum_of_radii_squared = sum_of_radii * sum_of_radii;
  real roots[2];
  const int k = toi_phet_quadratic_roots(toi_dot_in_order(delta_v, delta_v, n), -2 * toi_dot_in_order(delta_r, delta_v, n),
                                         toi_dot_in_order(delta_r, delta_r, n) - sum_of_radii_squared, roots);
  real contact_time = 0;
  for (int i = 0; i < k; i++) {
    if (roots[i] >= 0) {
      contact_time = roots[i] == 0 ? 0 : roots[i]; /* `|| 0` makes -0 a +0 */
      break;
    }
  }
  /* The balls met contact_time ago: a reverse time. 0 - x keeps t = +0. */
  return toi_verdict(TOI_OVERLAP, REAL(0.0) - contact_time);
}
