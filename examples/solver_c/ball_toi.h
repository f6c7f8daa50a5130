/* ball_toi.h: the example solvers' time of impact of two balls, a cancellation-free quadratic in double. */
#ifndef BALL_TOI_H
#define BALL_TOI_H

#include <math.h>
#include <string.h>

/* Verdict names as the protocol spells them; the index is the plug-in ABI's class number. */
static const char *const ball_class_names[] = {"none", "overlap", "static", "contact",
                                               "separating", "miss", "graze", "hit"};

/* With s = pB - pA, v = vB - vA, R = rA + rB, the balls touch when
 * a t^2 + 2 b t + c = 0 with a = v.v, b = s.v, c = s.s - R^2. Returns the
 * verdict's class number and sets *t for a contact. The first root is taken as
 * c / (-b + sqrt(b^2 - a c)): no cancellation, since -b > 0 there. A contact
 * after tmax is no contact within the step. */
static inline int ball_toi(const double pa[3], const double va[3], double ra, const double pb[3],
                           const double vb[3], double rb, double tmax, double *t) {
  double s[3], v[3], a = 0, b = 0, ss = 0, R = ra + rb;
  for (int k = 0; k < 3; k++) {
    s[k] = pb[k] - pa[k];
    v[k] = vb[k] - va[k];
    a += v[k] * v[k];
    b += s[k] * v[k];
    ss += s[k] * s[k];
  }
  double c = ss - R * R;
  *t = NAN;
  if (c < 0) return 1; /* overlap */
  if (a == 0) return 2; /* static */
  if (b >= 0) return 4; /* touching or apart, and not approaching: separating */
  if (c == 0) {
    *t = 0;
    return 3; /* contact */
  }
  double disc = b * b - a * c;
  if (disc < 0) return 5; /* miss */
  double root = c / (-b + sqrt(disc));
  if (root > tmax) return 0; /* after the step */
  *t = root;
  return disc == 0 ? 6 : 7;
}

#endif
