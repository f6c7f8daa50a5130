/* sim_ericson.h: the ericson kernel's pair prediction on a case's numbers, without the case (private). */
#ifndef TOI_SIM_ERICSON_H
#define TOI_SIM_ERICSON_H

#include <math.h>

/*
 * What the binary64 kernel of the `ericson` formulation answers
 * (sim_formulation_kernel: src/formulations/ericson/ericson.c, then the
 * kernel's reading of its verdict in sim_kernels.c) for the case of ball A
 * (pa, va, ra) and ball B (pb, vb, rb) in dim dimensions: the same operations
 * in the same order (the build never fuses them: -ffp-contract=off), so the
 * same bits, without building the case, calling through two pointers and
 * decoding a verdict. A run predicts some twenty pairs an event, most of them
 * answered by an early out. Returns 1 with *dt (an overlap: 0), 0 for no
 * contact ahead, -1 for a contact with a NaN time (never stored).
 * tests/sim/test_sim_ericson.c holds it to form_pair_toi bit for bit.
 */
static inline int sim_ericson_toi(const double pa[3], const double va[3], double ra,
                                  const double pb[3], const double vb[3], double rb, int dim,
                                  double *dt) {
  double s0 = pb[0] - pa[0], v0 = vb[0] - va[0];
  double s1 = pb[1] - pa[1], v1 = vb[1] - va[1];
  double ss = s0 * s0 + s1 * s1, vv = v0 * v0 + v1 * v1, vs = v0 * s0 + v1 * s1;
  if (dim == 3) {
    double s2 = pb[2] - pa[2], v2 = vb[2] - va[2];
    ss = ss + s2 * s2;
    vv = vv + v2 * v2;
    vs = vs + v2 * s2;
  }
  const double r = rb + ra;
  const double cc = ss - r * r;
  if (cc < 0) { /* the overlap verdict: in contact now */
    *dt = 0;
    return 1;
  }
  /* The formulation's three early outs, each a "no contact": one test, with
     d computed in any case, as a branch on b's sign alone the processor
     guesses wrong about as often as right. */
  const double a = vv, b = vs, d = b * b - a * cc;
  if ((a < 1e-12) | (b >= 0) | (d < 0)) return 0;
  const double t = (-b - sqrt(d)) / a;
  if (isnan(t)) return -1;
  if (!(t >= 0) || isinf(t)) return 0;
  *dt = t;
  return 1;
}

#endif
