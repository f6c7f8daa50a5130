/* formulations.h: private helpers shared by the formulation files (src/formulations/f_*.c). */
#ifndef TOI_FORMULATIONS_H
#define TOI_FORMULATIONS_H

#include <math.h>
#include "toi.h"

/* Number of components a formulation sums over: a 2D case has zero third
   components, but the documents' 2D formulas never touch them, so neither do
   we (adding +0 could flip the sign of a zero sum). */
static inline int toi_components(const toi_case *c) { return c->dim == 3 ? 3 : 2; }

/* x.y summed left to right, x0*y0 + x1*y1 (+ x2*y2), the order every document
   writes a dot product in. */
static inline double toi_dot_in_order(const double *x, const double *y, int n) {
  double sum = x[0] * y[0];
  for (int i = 1; i < n; i++) sum = sum + x[i] * y[i];
  return sum;
}

/* The relative position s = pB - pA and velocity v = vB - vA, componentwise
   in double, as the difference-first derivations write them. */
static inline void toi_relative_motion(const toi_case *c, int n, double s[3], double v[3]) {
  for (int i = 0; i < n; i++) {
    s[i] = c->pb[i] - c->pa[i];
    v[i] = c->vb[i] - c->va[i];
  }
}

static inline toi_result toi_verdict(toi_class cls, double t) {
  toi_result r = {cls, t};
  return r;
}

static inline toi_result toi_no_contact(void) { return toi_verdict(TOI_NONE, NAN); }

/* PhET's dot Utils.solveQuadraticRootsReal (with solveLinearRootsReal): the
   roots of a x^2 + b x + c in roots[0..k-1], returning k, or -1 when "every
   value is a root" (PhET's null). Shared by phet, phet-reverse and
   overlap-recovery, which all call the same library function. */
int toi_phet_quadratic_roots(double a, double b, double c, double roots[2]);

/* PhET's CollisionEngine.detectBallToBallCollisions for one pair, with the
   sim's velocity multiplier (+1 forward, -1 when the sim runs backwards). */
toi_result toi_phet_detect(const toi_case *c, double velocity_multiplier);

#endif
