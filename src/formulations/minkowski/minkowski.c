/* minkowski.c: document 001's moving point against the inflated circle, world coordinates. */
#include <math.h>
#include "formulations.h"

/* 001 section 4: the point p = pB moves by d = vB - vA per unit time, the
   circle has centre q = pA and radius r = rA + rB. The coefficients are formed
   from world positions, not from differences, exactly as written:
   a = d.d, b = 2(d.p - d.q), c = p.p + q.q - 2 p.q - r^2, and "if b² < 4ac
   there are no real solutions for t (that is, the line misses the circle)".
   Then the document's general condition, not only its usual case:
     "Call these two solutions t^- and t^+. The original line segment
      intersects the circle if the interval [t^-,t^+] intersects the interval
      [0,1]. In the usual case where p is outside the circle, this reduces to
      the condition 0 <= t^- <= 1."
   The step [0, 1] is the bench's window: formulations are not given one, and
   --tmax T scores a verdict whose time is after T as no contact, so the step
   here is [0, +inf) and the window is applied to the time returned. [t-, t+]
   meets [0, +inf) when t- <= +inf and t+ >= 0 (a NaN root meets nothing). The
   collision then starts at the interval's first point: t- when t- >= 0 (a
   hit, "the time of first collision"), else 0, p inside the circle (or on it,
   t+ = 0), reported as an overlap at t = 0 as ericson reports it. No guard for
   a == 0 (the roots are then NaN or infinite). */
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
  const real root = SQRT(b * b - 4 * a * cc);
  const real t_minus = (-b - root) / (2 * a), t_plus = (-b + root) / (2 * a);
  const real step_end = INFINITY; /* the step [0, 1], unbounded here: see above */
  if (!(t_minus <= step_end && t_plus >= 0)) return toi_no_contact();
  if (t_minus >= 0) return toi_verdict(TOI_HIT, t_minus);
  return toi_verdict(TOI_OVERLAP, 0.0);
}
