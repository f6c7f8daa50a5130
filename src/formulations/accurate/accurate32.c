/* accurate32.c: the accurate kernel in binary32: exact class, the root correctly rounded to float. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "formulations.h"
#include "quad_exact.h"

toi_result toi_f_accurate(const toi_case *c);

/*
 * Two stages. Most cases of floats are decided by a filter in plain double
 * with proven error bounds (filter, below): exact class, and the float
 * rounding of the root when an enclosure of it rounds to one float. The
 * rest (signs within their bounds: near contact, tangent, grazing; roots
 * within about 2^-30 of a binary32 midpoint) take the exact path:
 *
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
 * root below 2^-150 gives y <= 2^-150 and +0 (y = 2^-150 is a midpoint).
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
 * Cost: the filter is about 30 double operations; the exact path adds the
 * binary64 kernel and a test on y's bits. Measured on 2 x 10^5 cases of
 * floats per family: 1.3 to 2.9 times the binary64 kernel's throughput
 * (near-contact and tangent, which the filter mostly leaves, 1.2 to 1.3).
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

/* The case's numbers as floats (itself when they are floats already); the
   kernel reads no id nor mass, so neither is copied. */
static void case_to_float(toi_case *out, const toi_case *in) {
  out->dim = in->dim;
  for (int i = 0; i < 3; i++) {
    out->pa[i] = (float)in->pa[i];
    out->pb[i] = (float)in->pb[i];
    out->va[i] = (float)in->va[i];
    out->vb[i] = (float)in->vb[i];
  }
  out->ra = (float)in->ra;
  out->rb = (float)in->rb;
}

/*
 * The filter: a case of floats in plain double. No operation below can
 * overflow or underflow: inputs are floats (|x| < 2^128, nonzero |x| >=
 * 2^-149), so every nonzero product of two of their differences lies in
 * [2^-300, 2^260] and every product of two such in [2^-600, 2^520]. Each
 * operation is then exact up to a relative u = 2^-53 (standard model), and
 * with gamma_k = k u / (1 - k u):
 *   c = s.s - R^2: the rounded differences s_i = S_i (1 + d), R = R* (1 + d),
 *     squares, at most two additions and the subtraction give |c^ - c| <=
 *     gamma_6 (|S|^2 + R*^2) <= 7u M with M the computed |s|^2 + R^2 (which
 *     is within gamma_7 of the exact one);
 *   b = s.v and a = v.v: |b^ - b| <= gamma_5 sum |S_i V_i| <= 7u sum |s_i v_i|
 *     (computed), |a^ - a| <= 7u a^;
 *   D = b^2 - a c from them: the three roundings of fl(b^2) - fl(a c) add at
 *     most 2.02u (fl(b^2) + |fl(a c)|), the propagated errors (2|b^| + eb) eb
 *     + a^ ec + (|c^| + ec) ea.
 * Bounds are sums of positive terms computed in double: the factor 1.01
 * covers their own roundings. A sign is certain when |x^| exceeds its bound.
 *
 * Root of a certain hit (c > 0, b < 0, D > 0): t = c / (sqrt D - b), each
 * of sqrt, + and / rounding once. With ec = ec / c^ and ed' = (eb + ed / h)
 * / (h - b^), h = sqrt(D^) (|sqrt D - h| <= |D - D^| / h), t^ / t* =
 * (1 + d)(1 + ed'') / ((1 + d)^2 (1 + ec')) with |ed''| <= ed', so
 * |t^ - t*| <= E t* with E = 1.01 (ec' + ed') + 4u while both are below
 * 2^-30 (required). Then t* lies in [t^ - w, t^ + w], w = 1.02 E t^ + 2^-51
 * t^ (the last term covers the rounding of t^ -+ w): when both ends round to
 * the same float, so does t* (rounding to binary32 is monotonic, overflow
 * and subnormals included). Otherwise, or when a sign or the accuracy is not
 * certain, the exact path decides.
 */
#define U 0x1p-53

/* a.b in the documents' order, with *m = sum |a_i b_i| (computed). */
static double dot_m(const double *x, const double *y, int n, double *m) {
  double s = x[0] * y[0], mm = fabs(s);
  for (int i = 1; i < n; i++) {
    double p = x[i] * y[i];
    s += p;
    mm += fabs(p);
  }
  *m = mm;
  return s;
}

/* 1 with *out set when the filter decides, 0 when the exact path must. */
static int filter(const toi_case *cf, toi_result *out) {
  const int n = toi_components(cf);
  double s[3], v[3];
  int moving = 0;
  for (int i = 0; i < n; i++) {
    s[i] = cf->pb[i] - cf->pa[i];
    v[i] = cf->vb[i] - cf->va[i];
    moving |= v[i] != 0;
  }
  const double R = cf->ra + cf->rb, r2 = R * R;
  double ss, ms;
  ss = dot_m(s, s, n, &ms);
  const double c = ss - r2, ec = 7 * U * (ss + r2);
  if (!(fabs(c) > ec)) return 0;
  if (c < 0) return *out = toi_verdict(TOI_OVERLAP, NAN), 1;
  if (!moving) return *out = toi_verdict(TOI_STATIC, NAN), 1;
  double mb, ma;
  const double b = dot_m(s, v, n, &mb), eb = 7 * U * mb;
  if (!(fabs(b) > eb)) return 0;
  if (b > 0) return *out = toi_verdict(TOI_SEPARATING, NAN), 1;
  const double a = dot_m(v, v, n, &ma), ea = 7 * U * a;
  const double bb = b * b, ac = a * c, d = bb - ac;
  const double ed = 1.01 * (2.02 * U * (bb + fabs(ac)) + (2 * fabs(b) + eb) * eb + a * ec + (c + ec) * ea);
  if (!(fabs(d) > ed)) return 0;
  if (d < 0) return *out = toi_verdict(TOI_MISS, NAN), 1;
  const double h = sqrt(d), den = h - b, t = c / den;
  const double e = 1.01 * (ec / c + (eb + ed / h) / den) + 4 * U;
  if (!(e < 0x1p-30)) return 0;
  const double w = (1.02 * e + 0x1p-51) * t;
  const float lo = (float)(t - w), hi = (float)(t + w);
  if (lo != hi) return 0;
  *out = toi_verdict(TOI_HIT, lo);
  return 1;
}

toi_result toi_f_accurate32(const toi_case *c) {
  toi_case cf;
  case_to_float(&cf, c);
  toi_result r;
  if (filter(&cf, &r)) return r;
  r = toi_f_accurate(&cf);
  if (r.cls != TOI_HIT && r.cls != TOI_GRAZE) return r; /* t is 0 (contact) or NaN: floats too */
  float t = is_float_midpoint(r.t) ? round_at_midpoint(&cf, r.t) : (float)r.t;
  return toi_verdict(r.cls, t);
}
