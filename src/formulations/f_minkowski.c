/* f_minkowski.c: document 001's moving point against the inflated circle, world coordinates. */
#include <math.h>
#include "formulations.h"

/* 001 section 4: the point p = pB moves by d = vB - vA per unit time, the
   circle has centre q = pA and radius r = rA + rB. The coefficients are formed
   from world positions, not from differences, exactly as written:
   a = d.d, b = 2(d.p - d.q), c = p.p + q.q - 2 p.q - r^2. The document then
   intersects [t-, t+] with the step [0, 1]; the bench scores "within a step"
   apart, so here the step is unbounded and t- >= 0 is a hit. No guard for
   a == 0 (the root is then NaN or -Inf, so none). */
toi_result toi_f_minkowski(const toi_case *c) {
  const int n = toi_components(c);
  const double *p = c->pb, *q = c->pa;
  double d[3];
  for (int i = 0; i < n; i++) d[i] = c->vb[i] - c->va[i];
  const double r = c->ra + c->rb;
  const double a = toi_dot_in_order(d, d, n);
  const double b = 2 * (toi_dot_in_order(d, p, n) - toi_dot_in_order(d, q, n));
  const double cc = toi_dot_in_order(p, p, n) + toi_dot_in_order(q, q, n) - 2 * toi_dot_in_order(p, q, n) - r * r;
  if (b * b < 4 * a * cc) return toi_no_contact();
  const double t_minus = (-b - sqrt(b * b - 4 * a * cc)) / (2 * a);
  if (t_minus >= 0) return toi_verdict(TOI_HIT, t_minus);
  return toi_no_contact();
}
