/* engine_common.h: what every engine adapter shares: the 2D test and the time window given to the engine. */
#ifndef TOI_ENGINE_COMMON_H
#define TOI_ENGINE_COMMON_H

#include <math.h>
#include <time.h>
#include "toi_solver.h"

/* The engine's own cost (ABI 3, toi_solver_report_cost): an adapter keeps one
 * toi_solver_cost per solve function, takes t0 = engine_clock_ns() before the
 * engine's routine and calls engine_cost_add(&cost, t0) after it, and answers
 * the query with engine_cost_report. The clock is timespec_get's (C11, the one
 * a strict C11 build has), read twice per call. */
static inline unsigned long long engine_clock_ns(void) {
  struct timespec ts;
  if (timespec_get(&ts, TIME_UTC) != TIME_UTC) return 0;
  return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

static inline void engine_cost_add(toi_solver_cost *cost, unsigned long long t0) {
  unsigned long long t1 = engine_clock_ns();
  cost->ns += t1 > t0 ? t1 - t0 : 0;
  cost->calls++;
}

/* 1 and *out filled when the solver made calls, else 0. */
static inline int engine_cost_report(const toi_solver_cost *cost, toi_solver_cost *out) {
  if (cost->calls == 0) return 0;
  *out = *cost;
  return 1;
}

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
