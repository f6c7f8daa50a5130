/* toiresp.h: the certified collision response (MPFR/GMP): exact contact, impulse, energy, walls. */
#ifndef TOIRESP_H
#define TOIRESP_H

#include "toi.h"

/// The exact response of one two-ball case, every field correctly rounded to
/// double (round to nearest even, subnormals and overflow included) from the
/// exact real value.
///
/// With s = pB - pA, v = vB - vA, R = rA + rB, a = v.v, b = s.v, c = s.s - R^2,
/// D = b^2 - a c (exact), mu = mA mB / (mA + mB) and the contact at the exact
/// forward root t* = (-b - sqrt D)/a, where |s + v t*| = R exactly:
///   n = (s + v t*)/R, v.n = -sqrt(D)/R, j = (1 + E) mu sqrt(D)/R,
///   vA' = vA - j n/mA, vB' = vB + j n/mB, KE' - KE = -(1 - E^2) mu D/(2 R^2).
/// Every output is then of the form (X + Y sqrt D)/Z with exact integers, and
/// is rounded by interval evaluation (Ziv's strategy) until both ends of the
/// interval round to the same double. No intermediate value is ever rounded
/// to double.
typedef struct toi_ref_resp {
  toi_class cls;   ///< exact class of the case (as toi_ref_solve decides it)
  int applied;     ///< 1 when the balls approach at the contact (v.n < 0), else 0
  double t;        ///< RN(t*) for toi_ref_response, T for toi_ref_response_at
  double pa[3];    ///< centre of A at the contact
  double pb[3];    ///< centre of B at the contact
  double n[3];     ///< unit normal from A to B at the contact
  double j;        ///< impulse magnitude along n (0 when not applied)
  double va[3];    ///< velocity of A after the impulse (before it when not applied)
  double vb[3];    ///< velocity of B after the impulse
  double ke0;      ///< kinetic energy before
  double dke;      ///< exact change of kinetic energy (0 for E = 1 or not applied)
  double ke1;      ///< kinetic energy after: RN(KE before + dke), from the exact sum
  double mom[3];   ///< total momentum mA vA + mB vB, the same before and after (exactly)
} toi_ref_resp;

/// Exact response at the exact forward contact t* of a hit, contact or graze
/// case (TOI_ERR_RANGE for other classes: the field cls still says which).
/// E is the restitution in [0, 1]; masses must be > 0 and finite.
TOI_MUST_USE toi_status toi_ref_response(toi_ref_resp *out, const toi_case *c, double E);

/// Exact response at a given double time T instead of the root: the centres
/// are moved exactly to T and the normal is taken there, whatever the gap
/// (used when a pair is found overlapping). TOI_ERR_RANGE when the centres
/// coincide at T or T is not finite.
TOI_MUST_USE toi_status toi_ref_response_at(toi_ref_resp *out, const toi_case *c, double E,
                                            double T);

/// Audit of a double-precision response against the exact one at t*.
typedef struct toi_resp_audit {
  double gap;      ///< (|pB - pA| - R)/R at the given double centres; < 0: penetration
  double ke_err;   ///< (KE of the given velocities - exact KE after)/(KE before)
  double mom_err;  ///< |P' - P|/(|mA vA| + |mB vB|), P' from the given velocities
  double angle;    ///< angle in radians between the given normal and the exact one
  double ulp[6];   ///< ULP error of vA'[0..dim-1] then vB'[0..dim-1] (unused: NaN)
  double ulp_max;  ///< the largest of ulp[]
} toi_resp_audit;

/// Compares a double pipeline's centres pa, pb, normal n and velocities va, vb
/// with the exact response at t* (the case must be a hit or contact). Every
/// metric is evaluated from the given doubles taken as exact, so it measures
/// the pipeline, not the audit. ULP errors use the ulp of toi_ref_error, and
/// are right to the printed digits.
TOI_MUST_USE toi_status toi_ref_response_audit(toi_resp_audit *out, const toi_case *c, double E,
                                               const double pa[3], const double pb[3],
                                               const double n[3], const double va[3],
                                               const double vb[3]);

/// Exact contact of a ball (centre p, velocity v, radius r > 0) with the wall
/// plane x[axis] = wall, reached when x[axis] = wall - r (v[axis] > 0) or
/// wall + r (v[axis] < 0): *t = RN(t*) (may be negative when the ball is past
/// the contact), pout = RN(p + v t*) componentwise. TOI_ERR_RANGE when
/// v[axis] = 0.
TOI_MUST_USE toi_status toi_ref_wall(double *t, double pout[3], const double p[3],
                                     const double v[3], double r, int dim, int axis, double wall);

/// The certified kernel of the event-driven simulation (callbacks with the
/// signatures of sim_kernel in src/sim/sim.h; ctx is unused). Pairs: the exact
/// class of toi_ref_solve; hit or contact -> RN(t*) of the forward root,
/// overlap -> 0 (resolved at once if the balls approach), else no contact.
/// Response: toi_ref_response at the exact root (toi_ref_response_at the
/// given time for an overlap), rounded to double once. Walls: toi_ref_wall.
int toi_ref_sim_pair_toi(void *ctx, const toi_case *c, double *dt);
int toi_ref_sim_pair_respond(void *ctx, const toi_case *c, double dt, double E, double pa[3],
                             double pb[3], double va[3], double vb[3]);
int toi_ref_sim_wall_toi(void *ctx, const double p[3], const double v[3], double r, int dim,
                         int axis, double wall, double *dt);
int toi_ref_sim_wall_respond(void *ctx, const double p[3], const double v[3], double r, int dim,
                             int axis, double wall, double dt, double pout[3]);

#endif
