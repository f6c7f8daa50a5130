/* f_inner_product.c: document 000's inner-product form of the lower root. */
#include <math.h>
#include "formulations.h"

/* 000's last formula, term by term: t = -p/q - sqrt(p^2/q^2 + (R^2 - <s,s>)/q)
   with p = <s,v>, q = <v,v>. The document writes the first term under the
   root as <s,v>^2 over <v,v>^2, a quotient of squares, so it is computed that
   way. "Delta <= 0: no collision" makes an exact graze a miss, and "check
   whether t_c is positive" rejects t = 0. No guard for q == 0 (NaN, none). */
toi_result RNAME(toi_f_inner_product)(const toi_case *c) {
  const int n = toi_components(c);
  real s[3], v[3];
  toi_relative_motion(c, n, s, v);
  const real R = TOI_IN(c->ra) + TOI_IN(c->rb);
  const real p = toi_dot_in_order(s, v, n);
  const real q = toi_dot_in_order(v, v, n);
  const real rad = (p * p) / (q * q) + (R * R - toi_dot_in_order(s, s, n)) / q;
  if (rad <= 0) return toi_no_contact();
  const real t = -(p / q) - SQRT(rad);
  if (t > 0) return toi_verdict(TOI_HIT, t);
  return toi_no_contact();
}
