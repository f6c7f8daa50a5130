/* expanded_corner.c: document 003's expanded form in top-left-corner coordinates. */
#include <math.h>
#include "formulations.h"

/* As 003 writes it, and as EddyTodd/BouncingBalls BallCollision.calculateTime
   computes it (in real): positions are the top-left corners of the balls' bounding
   boxes, so the case's centres are first converted, corner = centre - r, in
   real. Every sum runs left to right as written; "^ 2" is a product.
   The document's discriminant rules are kept (negative: no collision; zero:
   one touching point with no energy transfer, nothing to resolve), and so are
   the real code's quirks: no guard for n == 0, and times below -1 dropped
   (time counts frames, so a contact up to one frame ago is still resolved). */
toi_result RNAME(toi_f_expanded_corner)(const toi_case *c) {
  const int dim = toi_components(c);
  real xa[3], xb[3], x_ab[3], v_ab[3];
  for (int i = 0; i < dim; i++) {
    xa[i] = TOI_IN(c->pa[i]) - TOI_IN(c->ra);
    xb[i] = TOI_IN(c->pb[i]) - TOI_IN(c->rb);
  }
  const real r_ab = TOI_IN(c->ra) - TOI_IN(c->rb);
  for (int i = 0; i < dim; i++) {
    v_ab[i] = TOI_IN(c->va[i]) - TOI_IN(c->vb[i]);
    x_ab[i] = xa[i] - xb[i];
  }
  const real n = toi_dot_in_order(v_ab, v_ab, dim);

  real v_sum = v_ab[0], x_sum = x_ab[0];
  for (int i = 1; i < dim; i++) {
    v_sum = v_sum + v_ab[i];
    x_sum = x_sum + x_ab[i];
  }
  /* r_{a-b} * (vx + vy) + x * vx + y * vy, left to right. */
  real inner = r_ab * v_sum;
  for (int i = 0; i < dim; i++) inner = inner + x_ab[i] * v_ab[i];
  const real m = 2 * inner;

  /* The 2D constant's r_{a-b}^2 is sum over axes of r_{a-b}^2 minus
     (rA + rB)^2 = r_{a-b}^2 + 4 rA rB; a third axis adds one more r_{a-b}^2. */
  real r_ab_sq = r_ab * r_ab;
  if (dim == 3) r_ab_sq = r_ab_sq + r_ab_sq;
  real k = r_ab_sq - 4 * TOI_IN(c->ra) * TOI_IN(c->rb) + 2 * r_ab * x_sum;
  for (int i = 0; i < dim; i++) k = k + x_ab[i] * x_ab[i];

  const real disc = m * m - 4 * n * k;
  if (disc < 0) return toi_no_contact();
  if (disc == 0) return toi_no_contact();
  const real t = (-SQRT(disc) - m) / (2 * n);
  if (t < -1) return toi_no_contact();
  return toi_verdict(TOI_HIT, t);
}
