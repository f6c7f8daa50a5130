/* ref_common.h: what every part of the reference shares: the case check, the class rules, the bits measure. */
#ifndef REF_COMMON_H
#define REF_COMMON_H

#include <math.h>
#include <stdint.h>
#include <string.h>
#include "toiref.h"

/*
 * Both engines (mpfr/ and fast/) and the front door (api.c) use these; they
 * depend on nothing but the public types, so either engine can include them
 * without depending on the other (ref_common.c holds the out-of-line ones).
 */

/// Checks a case (dim, finite fields, radii >= 0, zero third components in
/// 2D); TOI_OK or TOI_ERR_INPUT.
toi_status ref_check_case(const toi_case *c);
/// Which root answers direction dir: 1 the lower, 0 the upper, -1 none.
int ref_dir_root(const toi_ref *r, toi_direction dir);
/// log2(1 + |ord(a) - ord(b)|), ord the position in the ordered doubles.
double ref_bits_apart(double a, double b);
/// The same in precision q: log2(1 + the number of steps between RN_q(a)
/// and RN_q(b) in the ordered values of q); ref_bits_apart for binary64.
double ref_bits_apart_prec(double a, double b, toi_precision q);
/// RN_q(t*) from RN(t*) = t64 alone (both roots of the fast engine, or any
/// certified binary64 root): 1 with *t set when every real that rounds to
/// t64 rounds alike to q, 0 when a rounding boundary of q lies that close
/// (see ref_common.c). Exact (1, *t = t64) for binary64 and for NaN.
static inline __attribute__((always_inline)) int ref_round_certified(double *t, double t64, toi_precision q) {
  if (q == TOI_BINARY64 || isnan(t64) || isinf(t64) || t64 == 0) {
    *t = t64;
    return 1;
  }
  /* The neighbours are the bit patterns next to t64's (finite, nonzero):
   * for either sign one is below it and one above (DBL_MAX's upper one is
   * +Inf, 2^-1074's lower one +0, as nextafter gives them). */
  uint64_t b;
  memcpy(&b, &t64, sizeof b);
  uint64_t bl = b - 1, bh = b + 1;
  double nl, nh;
  memcpy(&nl, &bl, sizeof nl);
  memcpy(&nh, &bh, sizeof nh);
  double lo, hi;
  if (q == TOI_BINARY32) { /* toi_round_to's binary32 rounding, here without a call */
    lo = (double)(float)nl;
    hi = (double)(float)nh;
  } else {
    lo = toi_round_to(nl, q);
    hi = toi_round_to(nh, q);
  }
  uint64_t ul, uh; /* the same bits: -0 and +0 differ */
  memcpy(&ul, &lo, sizeof ul);
  memcpy(&uh, &hi, sizeof uh);
  if (ul != uh) return 0;
  *t = lo;
  return 1;
}
/* A toi_ref with no class and no root, the state every solver starts from. */
static inline void ref_clear(toi_ref *out, toi_class cls) {
  out->cls = cls;
  out->tlo = out->thi = out->tfwd = out->trev = NAN;
  out->fwd_is_lo = out->rev_is_lo = -1;
}

/* The exact class from the signs of a, b, c and D, in toiref.h's order. */
static inline toi_class ref_classify(int sa, int sb, int sc, int sd) {
  if (sc < 0) return TOI_OVERLAP;
  if (sa == 0) return TOI_STATIC;
  if (sc == 0) return sb < 0 ? TOI_CONTACT : TOI_SEPARATING;
  if (sb >= 0) return TOI_SEPARATING;
  return sd < 0 ? TOI_MISS : sd == 0 ? TOI_GRAZE : TOI_HIT;
}

/* Which root answers each direction, from the exact signs of B and C alone
 * (product of the roots C/A, sum -2B/A; a root is 0 iff C = 0), then tfwd and
 * trev from tlo and thi. Only for a case with roots. */
static inline void ref_set_dirs(toi_ref *out, int sb, int sc) {
  if (sc < 0) { /* lower < 0 < upper */
    out->fwd_is_lo = 0;
    out->rev_is_lo = 1;
  } else if (sc == 0) { /* a root at 0; with B = 0 a double root: lower forward, upper backward */
    out->fwd_is_lo = sb <= 0;
    out->rev_is_lo = sb < 0;
  } else if (sb < 0) { /* 0 < lower <= upper */
    out->fwd_is_lo = 1;
  } else { /* lower <= upper < 0 (B = 0 with C > 0 has D < 0, no roots) */
    out->rev_is_lo = 0;
  }
  if (out->fwd_is_lo >= 0) out->tfwd = out->fwd_is_lo ? out->tlo : out->thi;
  if (out->rev_is_lo >= 0) out->trev = out->rev_is_lo ? out->tlo : out->thi;
}
#endif
