/* quad_exact.h: the exact c, b and D of a case, with exact signs and double-double values (private). */
#ifndef TOI_QUAD_EXACT_H
#define TOI_QUAD_EXACT_H

#include "eft.h"
#include "toi.h"

/// An exactly known quantity: its exact sign and (hi + lo) 2^e, hi + lo a
/// normalized double-double within a relative 2^-100 of the value (all zero
/// when the value is zero).
typedef struct qx_num {
  int sign;
  double hi, lo;
  int e;
} qx_num;

/* From the exact differences s = pB - pA, v = vB - vA, R = rA + rB, each an
   exact double-double, in the kernels' safe range (inputs in [2^-150, 2^150)
   or zero, see accurate/accurate.c): Shewchuk expansions, e = 0. Each returns 0, or
   -1 when an expansion would outgrow its buffer (then use qx_big). */
int qx_c(const dd *s, dd R, int n, qx_num *c);
int qx_b(const dd *s, const dd *v, int n, qx_num *b);
int qx_d(const dd *s, const dd *v, dd R, int n, qx_num *d);

/// c = s.s - R^2, b = s.v and D = b^2 - (v.v) c of any case with finite
/// inputs, exactly, with big binary numbers (slow; for inputs the
/// expansions cannot hold). n is the number of components used (2 or 3).
void qx_big(const toi_case *cs, int n, qx_num *c, qx_num *b, qx_num *d);

/// The exact sign (-1, 0, +1) of t* - m, m = y + gap/2 (the midpoint between
/// the double y and its neighbour y + gap), t* the forward root of a case
/// whose exact class is hit or graze; y and gap finite, |y + gap/2| below
/// 2^1024. With big numbers on the unscaled inputs: slow, for near ties only.
int qx_root_side(const toi_case *cs, int n, double y, double gap);

#endif
