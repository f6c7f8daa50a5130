/* exact_quad.h: a case's quadratic in exact rationals, for tests that check answers against it. */
#ifndef TOI_EXACT_QUAD_H
#define TOI_EXACT_QUAD_H

#include <gmp.h>
#include "toi.h"

/* Exact a = v.v, b = s.v, c = s.s - R^2 and D = b^2 - a c of a case
   (s = pB - pA, v = vB - vA, R = rA + rB); a, b, cc and D initialised. */
static inline void tq_abcd(const toi_case *c, mpq_t a, mpq_t b, mpq_t cc, mpq_t D) {
  mpq_t s, v, t, R;
  mpq_inits(s, v, t, R, (mpq_ptr)0);
  mpq_set_ui(a, 0, 1);
  mpq_set_ui(b, 0, 1);
  mpq_set_ui(cc, 0, 1);
  for (int i = 0; i < c->dim; i++) {
    mpq_set_d(s, c->pb[i]);
    mpq_set_d(t, c->pa[i]);
    mpq_sub(s, s, t);
    mpq_set_d(v, c->vb[i]);
    mpq_set_d(t, c->va[i]);
    mpq_sub(v, v, t);
    mpq_mul(t, v, v);
    mpq_add(a, a, t);
    mpq_mul(t, s, v);
    mpq_add(b, b, t);
    mpq_mul(t, s, s);
    mpq_add(cc, cc, t);
  }
  mpq_set_d(R, c->ra);
  mpq_set_d(t, c->rb);
  mpq_add(R, R, t);
  mpq_mul(R, R, R);
  mpq_sub(cc, cc, R);
  mpq_mul(D, b, b);
  mpq_mul(t, a, cc);
  mpq_sub(D, D, t);
  mpq_clears(s, v, t, R, (mpq_ptr)0);
}

#endif
