/* inner_product.c: document 000's inner-product form of the lower root. */
#include <math.h>
#include "formulations.h"

/* 000, term by term, with p = <s,v>, q = <v,v> = ||v||^2, ss = <s,s> = ||s||^2.
   The test is the document's discriminant as it writes it,
     Delta = 4 <s,v>^2 + 4 R^2 ||v||^2 - 4 ||v||^2 ||s||^2,
   "If Delta <= 0, the balls won't collide" (so an exact graze is a miss),
   each product of factors left to right, R^2 and <s,v>^2 squared first, the
   sum left to right. The time is the document's last formula,
     t = -p/q - sqrt(p^2/q^2 + (R^2 - <s,s>)/q),
   whose first term under the root is written <s,v>^2 over <v,v>^2, a quotient
   of squares, so it is computed that way. Delta and this radicand (Delta /
   (4 q^2) in exact arithmetic) can disagree in sign once rounded: Delta
   decides, and a radicand below 0 after Delta > 0 gives a NaN time, hence
   none. "Check whether t_c is positive" rejects t = 0. No guard for q == 0
   (NaN, none). */
toi_result RNAME(toi_f_inner_product)(const toi_case *c) {
  const int n = toi_components(c);
  real s[3], v[3];
  toi_relative_motion(c, n, s, v);
  const real R = TOI_IN(c->ra) + TOI_IN(c->rb);
  const real p = toi_dot_in_order(s, v, n);
  const real q = toi_dot_in_order(v, v, n);
  const real ss = toi_dot_in_order(s, s, n);
  const real delta = 4 * (p * p) + 4 * (R * R) * q - 4 * q * ss;
  if (delta <= 0) return toi_no_contact();
  const real rad = (p * p) / (q * q) + (R * R - ss) / q;
  const real t = -(p / q) - SQRT(rad);
  if (t > 0) return toi_verdict(TOI_HIT, t);
  return toi_no_contact();
}
