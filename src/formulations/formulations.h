/* formulations.h: private helpers shared by the formulation files (src/formulations/f_*.c). */
#ifndef TOI_FORMULATIONS_H
#define TOI_FORMULATIONS_H

#include <math.h>
#include "real.h"
#include "toi.h"

/* The helpers below that compute are generic like the formulations (real.h):
   in a binary32 translation unit they are the float versions, defined as
   RNAME(name) = name32, and a call written name(...) calls them. */
#if TOI_REAL_BITS == 32
#define toi_dot_in_order toi_dot_in_order32
#define toi_relative_motion toi_relative_motion32
#define toi_in_vec toi_in_vec32
#define toi_phet_quadratic_roots toi_phet_quadratic_roots32
#define toi_phet_detect toi_phet_detect32
#endif

/* Number of components a formulation sums over: a 2D case has zero third
   components, but the documents' 2D formulas never touch them, so neither do
   we (adding +0 could flip the sign of a zero sum). */
static inline int toi_components(const toi_case *c) { return c->dim == 3 ? 3 : 2; }

/* x.y summed left to right, x0*y0 + x1*y1 (+ x2*y2), the order every document
   writes a dot product in. */
static inline real RNAME(toi_dot_in_order)(const real *x, const real *y, int n) {
  real sum = x[0] * y[0];
  for (int i = 1; i < n; i++) sum = sum + x[i] * y[i];
  return sum;
}

/* A case's number in real: itself in binary64; in binary32 the float the
   case holds (a case rounded to binary32 holds floats, so this is exact). */
#define TOI_IN(x) ((real)(x))

/* A case's vector as n reals: in binary64 the case's own array (no copy),
   in binary32 its floats converted into buf. */
static inline const real *RNAME(toi_in_vec)(const double *x, real buf[3], int n) {
#if TOI_REAL_BITS == 32
  for (int i = 0; i < n; i++) buf[i] = TOI_IN(x[i]);
  return buf;
#else
  (void)buf;
  (void)n;
  return x;
#endif
}

/* The relative position s = pB - pA and velocity v = vB - vA, componentwise
   in real, as the difference-first derivations write them. */
static inline void RNAME(toi_relative_motion)(const toi_case *c, int n, real s[3], real v[3]) {
  for (int i = 0; i < n; i++) {
    s[i] = TOI_IN(c->pb[i]) - TOI_IN(c->pa[i]);
    v[i] = TOI_IN(c->vb[i]) - TOI_IN(c->va[i]);
  }
}

/* A verdict; a binary32 time converts exactly to the double it is returned as. */
static inline toi_result toi_verdict(toi_class cls, double t) {
  toi_result r = {cls, t};
  return r;
}

static inline toi_result toi_no_contact(void) { return toi_verdict(TOI_NONE, NAN); }

/* PhET's dot Utils.solveQuadraticRootsReal (with solveLinearRootsReal): the
   roots of a x^2 + b x + c in roots[0..k-1], returning k, or -1 when "every
   value is a root" (PhET's null). Shared by phet, phet-reverse and
   overlap-recovery, which all call the same library function. */
int RNAME(toi_phet_quadratic_roots)(real a, real b, real c, real roots[2]);

/* PhET's CollisionEngine.detectBallToBallCollisions for one pair, with the
   sim's velocity multiplier (+1 forward, -1 when the sim runs backwards). */
toi_result RNAME(toi_phet_detect)(const toi_case *c, real velocity_multiplier);

/* A formulation's batch solve, where it has one (private, binary64 only):
   out[i] = f->solve(&cases[i]) bit for bit for i < n, faster than the loop
   (accurate: toi_accurate_batch, accurate/accurate_batch.c). NULL when the
   formulation has none. */
typedef void (*toi_batch_fn)(const toi_case *cases, size_t n, toi_result *out);
toi_batch_fn toi_formulation_batch(const toi_formulation *f);
void toi_accurate_batch(const toi_case *cases, size_t n, toi_result *out);
/* toi_accurate_batch with at most the given kernels (for the tests): 0 the
   scalar function only, 1 AVX2 and FMA, 2 AVX-512 where the processor
   has each. */
void toi_accurate_batch_as(int kind, const toi_case *cases, size_t n, toi_result *out);

#endif
