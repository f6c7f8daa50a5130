/* chipmunk/adapter.c: Chipmunk 7's cpShapeSegmentQuery on the relative motion of two circles, as a toibench plug-in. */
#include <chipmunk/chipmunk.h>
#include <string.h>
#include "engine_common.h"

TOI_SOLVER_ABI;

static toi_solver_cost cost; /* cpShapeSegmentQuery's own time */

/* Ball B is a static circle at pB; ball A sweeps a segment from pA to
 * pA + (vA - vB) W with radius rA; Chipmunk answers the fraction alpha of the
 * segment at first contact (cpFloat is double in Debian's build). A start
 * point already within reach counts as a hit at alpha = 0. */
int toi_chipmunk_segment(toi_solver_result *out, const toi_solver_case *c) {
  if (!engine_planar(c)) return TOI_SOLVER_UNSUPPORTED;
  double W = engine_window(c);
  cpBody *body = cpBodyNewStatic();
  cpShape *shape = cpCircleShapeNew(body, c->rb, cpv(c->pb[0], c->pb[1]));
  cpShapeCacheBB(shape);
  cpVect a = cpv(c->pa[0], c->pa[1]);
  cpVect b = cpv(c->pa[0] + (c->va[0] - c->vb[0]) * W, c->pa[1] + (c->va[1] - c->vb[1]) * W);
  cpSegmentQueryInfo info;
  unsigned long long t0 = engine_clock_ns();
  cpBool hit = cpShapeSegmentQuery(shape, a, b, c->ra, &info);
  engine_cost_add(&cost, t0);
  if (hit) {
    out->cls = TOI_SOLVER_HIT;
    out->t = info.alpha * W;
  } else {
    out->cls = TOI_SOLVER_NONE;
  }
  cpShapeFree(shape);
  cpBodyFree(body);
  return TOI_SOLVER_OK;
}

int toi_solver_report_cost(const char *symbol, toi_solver_cost *out) {
  return !strcmp(symbol, "toi_chipmunk_segment") && engine_cost_report(&cost, out);
}

const toi_solver_info toi_solver_catalog[] = {
    {"chipmunk-segment", "toi_chipmunk_segment",
     "Chipmunk 7.0.3 cpShapeSegmentQuery, double: B a static circle, A's relative motion a segment of radius rA "
     "over the window [0, W] (W = --tmax, else a power of two past any first contact); hit at alpha W, a start "
     "within reach is a hit at 0; units are the case's; target touching (0); 2D only",
     TOI_SOLVER_BINARY64},
    {0, 0, 0, 0},
};
