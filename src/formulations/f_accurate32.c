/* f_accurate32.c: the accurate kernel in binary32: exact class, the root correctly rounded to float. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "formulations.h"
#include "quad_exact.h"

toi_result toi_f_accurate(const toi_case *c);

/*
 * The binary64 kernel answers a case of floats exactly: its class is exact
 * for any double inputs (a float is a double), and its time y is t*, the
 * forward root, correctly rounded to binary64 (toi_f_accurate: within 0.502
 * ulp from the double-double, ties settled exactly, so RN64(t*)). What is
 * left is to round t* to binary32 from y, without double rounding.
 *
 * Claim: RN32(t*) = RN32(y) unless y is itself a binary32 midpoint (the
 * point halfway between two adjacent floats, or between FLT_MAX and 2^128).
 * Proof. Every binary32 midpoint m is a double: in the normal range it has
 * 25 significant bits, below 2^-126 it is an odd multiple of 2^-150, and
 * 2^128 - 2^103 has 25 bits; all lie far inside the double range. RN64 is
 * monotonic and fixes doubles, so t* < m implies y <= m, and t* > m implies
 * y >= m. If y is not a midpoint, t* and y therefore lie strictly on the
 * same side of every midpoint, i.e. between the same two consecutive
 * midpoints, and RN32 (nearest, with overflow to +inf at or beyond
 * 2^128 - 2^103 and the subnormal grid 2^-149 below 2^-126, where the
 * midpoints are the ones named above) gives the same float for both. A
 * root below 2^-150 gives y < 2^-150 and +0; no midpoint lies below.
 *
 * Ranges. With float inputs c, b, D are multiples of 2^-298, 2^-298 and
 * 2^-596 below 2^260, 2^260 and 2^520, so 2^-560 < t* < 2^560: y is a
 * normal double, never infinite, and (float)y rounds it once, to nearest
 * even, with binary32 subnormals and overflow to inf (C's conversion).
 *
 * When y is a midpoint (t* within half a double ulp of it: rare, but
 * exactly on it when t* is rational, D a perfect square), the exact sign of
 * t* - y decides (qx_root_side with a zero gap: big numbers on the float
 * inputs); an exact tie keeps (float)y, the even one.
 *
 * Cost: the binary64 kernel, 14 conversions and a test on y's bits.
 */

/* Whether the double y > 0 is halfway between two adjacent floats (or
   between FLT_MAX and 2^128). */
static int is_float_midpoint(double y) {
  uint64_t bits;
  memcpy(&bits, &y, sizeof bits);
  int e = (int)(bits >> 52) - 1023;
  if (e > 127) return 0;
  if (e >= -126) /* ulp 2^(e-23): bit 29 of the double's fraction; half of it bit 28 */
    return (bits & ((UINT64_C(1) << 29) - 1)) == (UINT64_C(1) << 28);
  double z = y * 0x1p150; /* exact; the subnormal grid 2^-149 becomes the even integers */
  return z < 0x1p25 && z == floor(z) && fmod(z, 2) == 1;
}

/* RN32(t*) for a midpoint y, from the exact side of t* against y. */
static __attribute__((noinline, cold)) float round_at_midpoint(const toi_case *cf, double y) {
  float even = (float)y; /* a tie goes to the even neighbour, which (float) picks */
  int side = qx_root_side(cf, toi_components(cf), y, 0.0);
  if (side > 0 && (double)even < y) return nextafterf(even, INFINITY);
  if (side < 0 && (double)even > y) return nextafterf(even, 0.0f);
  return even;
}

static void case_to_float(toi_case *out, const toi_case *in) {
  *out = *in;
  for (int i = 0; i < 3; i++) {
    out->pa[i] = (float)in->pa[i];
    out->pb[i] = (float)in->pb[i];
    out->va[i] = (float)in->va[i];
    out->vb[i] = (float)in->vb[i];
  }
  out->ra = (float)in->ra;
  out->rb = (float)in->rb;
  out->ma = (float)in->ma;
  out->mb = (float)in->mb;
}

toi_result toi_f_accurate32(const toi_case *c) {
  toi_case cf;
  case_to_float(&cf, c);
  toi_result r = toi_f_accurate(&cf);
  if (r.cls != TOI_HIT && r.cls != TOI_GRAZE) return r; /* t is 0 (contact) or NaN: floats too */
  float t = is_float_midpoint(r.t) ? round_at_midpoint(&cf, r.t) : (float)r.t;
  return toi_verdict(r.cls, t);
}
