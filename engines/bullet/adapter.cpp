/* bullet/adapter.cpp: Bullet 3.24's three convex casts on two btSphereShapes, as a toibench plug-in (float or double build). */
#include <btBulletCollisionCommon.h>
#include <BulletCollision/NarrowPhaseCollision/btContinuousConvexCollision.h>
#include <BulletCollision/NarrowPhaseCollision/btGjkConvexCast.h>
#include <BulletCollision/NarrowPhaseCollision/btGjkEpaPenetrationDepthSolver.h>
#include <BulletCollision/NarrowPhaseCollision/btSubSimplexConvexCast.h>
#include <BulletCollision/NarrowPhaseCollision/btVoronoiSimplexSolver.h>
#include <cstring>
#include "engine_common.h"

/* The same source builds against Debian's float libraries (bullet.pc) and its
 * double ones (bullet-float64.pc, which defines BT_USE_DOUBLE_PRECISION). */
#ifdef BT_USE_DOUBLE_PRECISION
#define NAME(x) "bullet64-" x
#define SYM(x) toi_bullet64_##x
#define SYMNAME(x) "toi_bullet64_" x
#define PRECISION "double (bullet-float64)"
#define SOLVER_PRECISION TOI_SOLVER_BINARY64
#else
#define NAME(x) "bullet-" x
#define SYM(x) toi_bullet_##x
#define SYMNAME(x) "toi_bullet_" x
#define PRECISION "float"
#define SOLVER_PRECISION TOI_SOLVER_BINARY32
#endif

extern "C" {
TOI_SOLVER_ABI;
int SYM(continuous)(toi_solver_result *out, const toi_solver_case *c);
int SYM(gjk)(toi_solver_result *out, const toi_solver_case *c);
int SYM(subsimplex)(toi_solver_result *out, const toi_solver_case *c);
int toi_solver_report_cost(const char *symbol, toi_solver_cost *out);
}

enum cast_kind { CONTINUOUS, GJK, SUBSIMPLEX };

/* Each cast's own time: its constructor and calcTimeOfImpact. */
static toi_solver_cost costs[3];

/* Each cast moves both spheres over the step from their transforms at the
 * start to those at the end (A at pA -> pA + W vA, in btScalar) and answers
 * the fraction of the step at impact. */
static int cast(toi_solver_result *out, const toi_solver_case *c, cast_kind kind) {
  double W = engine_window(c);
  btScalar h = static_cast<btScalar>(W);
  btSphereShape sa(static_cast<btScalar>(c->ra)), sb(static_cast<btScalar>(c->rb));
  btVector3 pa(c->pa[0], c->pa[1], c->pa[2]), va(c->va[0], c->va[1], c->va[2]);
  btVector3 pb(c->pb[0], c->pb[1], c->pb[2]), vb(c->vb[0], c->vb[1], c->vb[2]);
  btTransform fromA, toA, fromB, toB;
  fromA.setIdentity();
  toA.setIdentity();
  fromB.setIdentity();
  toB.setIdentity();
  fromA.setOrigin(pa);
  toA.setOrigin(pa + va * h);
  fromB.setOrigin(pb);
  toB.setOrigin(pb + vb * h);
  btVoronoiSimplexSolver simplex;
  btConvexCast::CastResult res;
  bool hit;
  unsigned long long t0 = engine_clock_ns();
  if (kind == CONTINUOUS) {
    btGjkEpaPenetrationDepthSolver pd;
    btContinuousConvexCollision cc(&sa, &sb, &simplex, &pd);
    hit = cc.calcTimeOfImpact(fromA, toA, fromB, toB, res);
  } else if (kind == GJK) {
    btGjkConvexCast gc(&sa, &sb, &simplex);
    hit = gc.calcTimeOfImpact(fromA, toA, fromB, toB, res);
  } else {
    btSubsimplexConvexCast sc(&sa, &sb, &simplex);
    hit = sc.calcTimeOfImpact(fromA, toA, fromB, toB, res);
  }
  engine_cost_add(&costs[kind], t0);
  if (kind != SUBSIMPLEX) {
    /* Conservative advancement stops once the distance is below 0.001 and
     * never steps past contact on spheres: a separation in [0, 0.001]. */
    out->target = 0.0005;
    out->tolerance = 0.0005;
  }
  if (hit) {
    out->cls = TOI_SOLVER_HIT;
    out->t = static_cast<double>(res.m_fraction) * W;
  } else {
    out->cls = TOI_SOLVER_NONE;
  }
  return TOI_SOLVER_OK;
}

int SYM(continuous)(toi_solver_result *out, const toi_solver_case *c) { return cast(out, c, CONTINUOUS); }
int SYM(gjk)(toi_solver_result *out, const toi_solver_case *c) { return cast(out, c, GJK); }
int SYM(subsimplex)(toi_solver_result *out, const toi_solver_case *c) { return cast(out, c, SUBSIMPLEX); }

int toi_solver_report_cost(const char *symbol, toi_solver_cost *out) {
  const char *names[3] = {SYMNAME("continuous"), SYMNAME("gjk"), SYMNAME("subsimplex")};
  for (int k = 0; k < 3; k++)
    if (!std::strcmp(symbol, names[k])) return engine_cost_report(&costs[k], out);
  return 0;
}

#define WINDOW "over [0, W] (W = --tmax, else a power of two past any first contact), hit at fraction W"

extern "C" const toi_solver_info toi_solver_catalog[] = {
    {NAME("continuous"), SYMNAME("continuous"),
     "Bullet 3.24 btContinuousConvexCollision, " PRECISION ": conservative advancement with GJK-EPA on two "
     "btSphereShapes (margin = radius), " WINDOW "; stops at a separation below 0.001 (units: the case's, "
     "metres by Bullet's tuning): target 0.0005 +- 0.0005; 2D cases at z = 0",
     SOLVER_PRECISION},
    {NAME("gjk"), SYMNAME("gjk"),
     "Bullet 3.24 btGjkConvexCast, " PRECISION ": conservative advancement with GJK distances on two "
     "btSphereShapes, " WINDOW "; stops at a separation below 0.001: target 0.0005 +- 0.0005; 2D cases at z = 0",
     SOLVER_PRECISION},
    {NAME("subsimplex"), SYMNAME("subsimplex"),
     "Bullet 3.24 btSubsimplexConvexCast, " PRECISION ": GJK ray cast of the Minkowski difference of two "
     "btSphereShapes, " WINDOW "; converges to touching (target 0, no tolerance stated); 2D cases at z = 0",
     SOLVER_PRECISION},
    {0, 0, 0, 0},
};
