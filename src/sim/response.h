/* response.h: the collision response pipeline (move to T, normal, impulse) in double and in float. */
#ifndef TOI_RESPONSE_H
#define TOI_RESPONSE_H

#include "toi.h"

/// What a double-precision engine computes when it resolves a contact at T.
typedef struct toi_response {
  double pa[3];  ///< centre of A moved to T: pA + vA T
  double pb[3];  ///< centre of B moved to T
  double n[3];   ///< (pB - pA)/|pB - pA| at T
  double vn;     ///< (vB - vA).n: negative when the balls approach
  double j;      ///< -(1 + E) vn / (1/mA + 1/mB)
  double va[3];  ///< vA - j n / mA
  double vb[3];  ///< vB + j n / mB
} toi_response;

/// Runs the pipeline in double, in the order the formulas are written (no
/// guard: the impulse is applied even when the balls separate; callers that
/// want an engine's "only when approaching" rule test vn). The third
/// components are 0 in 2D. TOI_ERR_RANGE when T is not finite, E is outside
/// [0, 1], or the centres coincide at T (no normal): the outputs are then NaN.
TOI_MUST_USE toi_status toi_response_compute(toi_response *out, const toi_case *c, double T,
                                             double E);
/// The same pipeline in float, from the same source (response32.c): the
/// case's numbers, T and E are read as floats (pass a case rounded to
/// binary32, toi_case_round, and a float T for exact reads; E is rounded to
/// float once), every operation is done in float, and every output is a
/// float value stored as a double.
TOI_MUST_USE toi_status toi_response_compute32(toi_response *out, const toi_case *c, double T,
                                               double E);
/// toi_response_compute or toi_response_compute32 by precision q; NULL for
/// a precision without a pipeline.
typedef toi_status (*toi_response_fn)(toi_response *out, const toi_case *c, double T, double E);
toi_response_fn toi_response_pipeline(toi_precision q);

#endif
