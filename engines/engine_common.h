/* engine_common.h: what every engine adapter shares: the 2D test and the time window given to the engine. */
#ifndef TOI_ENGINE_COMMON_H
#define TOI_ENGINE_COMMON_H

#include <math.h>
#include "toi_solver.h"

/* A 2D engine handles a 3D case only when it lies in the plane z = 0. */
static inline int engine_planar(const toi_solver_case *c) {
  return c->dim == 2 || (c->pa[2] == 0 && c->va[2] == 0 && c->pb[2] == 0 && c->vb[2] == 0);
}

/* The window [0, W] the engine is asked about, as a step of length W: the
 * run's --tmax when it gives one. Without one, a power of two at least
 * 2 (|s| + R) / |v|: any first contact satisfies |v| t <= |s| + R, so it lies
 * inside, and a power of two makes t = fraction * W exact. */
static inline double engine_window(const toi_solver_case *c) {
  if (isfinite(c->tmax)) return c->tmax;
  double s = 0, v = 0, ms = 0, mv = 0;
  for (int k = 0; k < 3; k++) {
    double ds = fabs(c->pb[k] - c->pa[k]), dv = fabs(c->vb[k] - c->va[k]);
    if (ds > ms) ms = ds;
    if (dv > mv) mv = dv;
  }
  if (mv == 0 || !isfinite(mv)) return 1;
  /* Norms scaled by the largest component, so that no square overflows. */
  for (int k = 0; k < 3; k++) {
    double ds = ms > 0 ? (c->pb[k] - c->pa[k]) / ms : 0, dv = (c->vb[k] - c->va[k]) / mv;
    s += ds * ds;
    v += dv * dv;
  }
  double L = (ms * sqrt(s) + c->ra + c->rb) / (mv * sqrt(v));
  if (!(L > 0)) return 1;
  if (!isfinite(L)) return 0x1p1023;
  int e = ilogb(L) + 2;
  if (e > 1023) e = 1023;
  if (e < -1074) e = -1074;
  return ldexp(1, e);
}

#endif
