/* api_prec.c: the reference's front door in a precision: solve, solve_target, batch and error with roots rounded to q. */
#include <math.h>
#include "ref_common.h"
#include "ref_fast_api.h"
#include "ref_mpfr.h"

/*
 * Binary64 is exactly the entry points of api.c. Another precision q has the
 * same classes and directions, and each root is RN_q(t*), rounded once from
 * the exact root: by the MPFR engine directly (mpfr/ref_roots.c, the Ziv
 * loop's result rounded at q's bit with q's exponent range), or by the fast
 * engine, which certifies binary32 roots in its first stage and batch
 * kernels from their enclosures, and otherwise rounds its certified binary64
 * root when that proves RN_q(t*), else asks the MPFR engine
 * (fast/ref_fast_prec.c). Both engines give the same bits.
 */

static toi_status prec_solve_by(toi_ref *out, const toi_case *c, const double *delta, toi_precision q,
                                toi_ref_engine e) {
  const toi_precision_info *pi = toi_precision_get(q);
  if (!pi || (e != TOI_REF_FAST && e != TOI_REF_MPFR)) {
    if (out) ref_clear(out, TOI_NONE);
    return TOI_ERR_RANGE;
  }
  if (q == TOI_BINARY64) return delta ? toi_ref_solve_target_engine(out, c, *delta, e) : toi_ref_solve_engine(out, c, e);
  if (e == TOI_REF_FAST) return ref_solve_fast_prec(out, c, delta, q);
  return ref_solve_mpfr_prec(out, c, delta, pi);
}

toi_status toi_ref_solve_prec(toi_ref *out, const toi_case *c, toi_precision q, toi_ref_engine e) {
  return prec_solve_by(out, c, NULL, q, e);
}

toi_status toi_ref_solve_target_prec(toi_ref *out, const toi_case *c, double delta, toi_precision q,
                                     toi_ref_engine e) {
  return prec_solve_by(out, c, &delta, q, e);
}

size_t toi_ref_solve_batch_prec(toi_ref *out, toi_status *st, const toi_case *c, size_t n, toi_precision q,
                                toi_ref_engine e) {
  if (q == TOI_BINARY64) return toi_ref_solve_batch_engine(out, st, c, n, e);
  if (!out || !c) {
    for (size_t j = 0; st && j < n; j++) st[j] = TOI_ERR_RANGE;
    return n;
  }
  if (e == TOI_REF_FAST && toi_precision_get(q)) return ref_fast_solve_batch_prec(out, st, c, n, q);
  size_t bad = 0;
  for (size_t i = 0; i < n; i++) {
    toi_status s = prec_solve_by(&out[i], &c[i], NULL, q, e);
    if (st) st[i] = s;
    bad += s != TOI_OK;
  }
  return bad;
}

/* As toi_ref_error_engine: the checks once here, the fast path where it
 * proves its answer, MPFR from NaN otherwise. */
toi_status toi_ref_error_prec(double *ulp, double *bits, double T, const toi_case *c, toi_direction dir,
                              toi_precision q, toi_ref_engine e) {
  if (q == TOI_BINARY64) return toi_ref_error_engine(ulp, bits, T, c, dir, e);
  if (!ulp || !bits) return TOI_ERR_RANGE;
  *ulp = *bits = NAN;
  if (!toi_precision_get(q) || (dir != TOI_FORWARD && dir != TOI_REVERSE)) return TOI_ERR_RANGE;
  toi_status st;
  if (e == TOI_REF_FAST ? ref_fast_error_checked(&st, ulp, bits, T, c, dir, q) : (st = ref_check_case(c)) != TOI_OK)
    return st;
  *ulp = *bits = NAN;
  return ref_error_mpfr_prec(ulp, bits, T, c, dir, q);
}

/* The fast engine's enclosure where it has one, else the error itself. */
toi_status toi_ref_error_bound(double *lo, double *hi, double *bits, double T, const toi_case *c, toi_direction dir,
                               toi_precision q, toi_ref_engine e) {
  if (!lo || !hi || !bits) return TOI_ERR_RANGE;
  toi_status st;
  if (e == TOI_REF_FAST && toi_precision_get(q) && (dir == TOI_FORWARD || dir == TOI_REVERSE) &&
      ref_fast_error_bound_checked(&st, lo, hi, bits, T, c, dir, q)) {
    if (st != TOI_OK) *lo = *hi = *bits = NAN;
    return st;
  }
  double u;
  st = toi_ref_error_prec(&u, bits, T, c, dir, q, e);
  *lo = *hi = u;
  return st;
}
