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
toi_result RNAME(toi_f_minkowski)(const toi_case *c) {
  const int n = toi_components(c);
  real pbuf[3], qbuf[3], d[3];
  const real *p = toi_in_vec(c->pb, pbuf, n), *q = toi_in_vec(c->pa, qbuf, n);
  for (int i = 0; i < n; i++) d[i] = TOI_IN(c->vb[i]) - TOI_IN(c->va[i]);
  const real r = TOI_IN(c->ra) + TOI_IN(c->rb);
  const real a = toi_dot_in_order(d, d, n);
  const real b = 2 * (toi_dot_in_order(d, p, n) - toi_dot_in_order(d, q, n));
  const real cc = toi_dot_in_order(p, p, n) + toi_dot_in_order(q, q, n) - 2 * toi_dot_in_order(p, q, n) - r * r;
  if (b * b < 4 * a * cc) return toi_no_contact();
  const real t_minus = (-b - SQRT(b * b - 4 * a * cc)) / (2 * a);
  if (t_minus >= 0) return toi_verdict(TOI_HIT, t_minus);
  return toi_no_contact();
}
