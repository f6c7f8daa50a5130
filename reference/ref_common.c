/* ref_common.c: the checks and measures both engines share: the case check, the root of a direction, bits apart. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "ref_common.h"

/* Every entry point checks a case the same way, whichever engine answers it,
 * so that both engines refuse the same inputs with the same status. */
toi_status ref_check_case(const toi_case *c) {
  if (!c || (c->dim != 2 && c->dim != 3)) return TOI_ERR_INPUT;
  /* x - x is +0 for a finite x and NaN for an infinite or NaN one, and a sum
   * of zeros is 0 while a NaN term makes it NaN: z == 0 exactly when all
   * fourteen numbers are finite (one test instead of fourteen branches). */
  double z = (c->ra - c->ra) + (c->rb - c->rb);
  for (int i = 0; i < 3; i++)
    z += ((c->pa[i] - c->pa[i]) + (c->pb[i] - c->pb[i])) + ((c->va[i] - c->va[i]) + (c->vb[i] - c->vb[i]));
  if (!(z == 0)) return TOI_ERR_INPUT;
  if (c->dim == 2 && (c->pa[2] != 0 || c->pb[2] != 0 || c->va[2] != 0 || c->vb[2] != 0))
    return TOI_ERR_INPUT;
  if (c->ra < 0 || c->rb < 0) return TOI_ERR_INPUT;
  return TOI_OK;
}

int ref_dir_root(const toi_ref *r, toi_direction dir) {
  return dir == TOI_FORWARD ? r->fwd_is_lo : r->rev_is_lo;
}

/* Position of a double in the ordered set of doubles; +0 and -0 coincide. */
static int64_t ref_ord(double d) {
  int64_t i;
  memcpy(&i, &d, sizeof i);
  return i < 0 ? -(i & INT64_MAX) : i;
}

/* The distance can exceed INT64_MAX. */
double ref_bits_apart(double a, double b) {
  int64_t oa = ref_ord(a), ob = ref_ord(b);
  uint64_t dist = oa >= ob ? (uint64_t)oa - (uint64_t)ob : (uint64_t)ob - (uint64_t)oa;
  if (dist <= 1) return (double)dist; /* log2(1) and log2(2), exactly, without the call */
  return log2(1.0 + (double)dist);
}

/* The position of x, a value of pi, in the ordered values of pi (+0 and -0
 * coincide, +Inf follows the largest finite value): the subnormals k
 * 2^(emin-p+1) are k; a normal 2^e (1 + f) is (e - emin + 1) 2^(p-1) +
 * f 2^(p-1). For binary64 and binary32 this is the position read from the
 * bits, as ref_ord. Every scaling is exact (p <= 53). */
static int64_t ref_ord_prec(double x, const toi_precision_info *pi) {
  const int64_t half = (int64_t)1 << (pi->p - 1);
  double ax = fabs(x);
  int64_t o;
  if (isinf(ax)) {
    o = (int64_t)(pi->emax - pi->emin + 2) * half;
  } else if (ax < ldexp(1.0, pi->emin)) {
    o = (int64_t)ldexp(ax, pi->p - 1 - pi->emin);
  } else {
    int e = ilogb(ax);
    o = (int64_t)(e - pi->emin + 1) * half + ((int64_t)ldexp(ax, pi->p - 1 - e) - half);
  }
  return signbit(x) ? -o : o;
}

double ref_bits_apart_prec(double a, double b, toi_precision q) {
  if (q == TOI_BINARY64) return ref_bits_apart(a, b);
  const toi_precision_info *pi = toi_precision_get(q);
  if (!pi) return ref_bits_apart(a, b);
  int64_t oa = ref_ord_prec(toi_round_to(a, q), pi), ob = ref_ord_prec(toi_round_to(b, q), pi);
  uint64_t dist = oa >= ob ? (uint64_t)oa - (uint64_t)ob : (uint64_t)ob - (uint64_t)oa;
  if (dist <= 1) return (double)dist;
  return log2(1.0 + (double)dist);
}

/*
 * RN(t*) = t64 puts t* inside [(p + t64)/2, (t64 + n)/2], hence strictly
 * between p and n, the doubles next to t64 (the closed interval when t64 is
 * the largest double: n = Inf). Rounding to q is monotone, so when p and n
 * round to the same value of q (the same bits: -0 and +0 differ), so does
 * every point between them, t* included; (double)(float) rounds a double
 * to binary32 correctly (toi_round_to), subnormals and overflow included.
 * That fails only when a rounding boundary of q (a midpoint between two of
 * its values, the midpoint between its largest value and 2^(emax+1), or 0)
 * lies in [p, n], which for a root not built to sit there has the chance of
 * about three doubles in 2^(53-p) (about 2^-28 for binary32): then the exact
 * root must decide. The other cases: t64 = +-Inf means |t*| beyond
 * the double range, so beyond q's: +-Inf again; t64 = +-0 means t* = 0 (an
 * exact root, +0) or 0 < |t*| <= 2^-1075, which rounds to the zero of its
 * sign in every q whose values are doubles, as t64 does.
 */
/* ref_round_certified is inline in ref_common.h: the batch calls it twice per case. */
