/* prec_stub.c: placeholder binary32 entry points (double rounding through binary64); replaced by the
   certified implementation. */
#include <math.h>
#include "toiref.h"

static double ulp_in(double x, const toi_precision_info *pi) {
  int e;
  if (x == 0) return ldexp(1.0, pi->emin - pi->p + 1);
  frexp(fabs(x), &e);
  e -= 1;
  if (e < pi->emin) e = pi->emin;
  return ldexp(1.0, e - pi->p + 1);
}

static void round_ref(toi_ref *r, toi_precision q) {
  r->tlo = toi_round_to(r->tlo, q);
  r->thi = toi_round_to(r->thi, q);
  r->tfwd = toi_round_to(r->tfwd, q);
  r->trev = toi_round_to(r->trev, q);
}

toi_status toi_ref_solve_prec(toi_ref *out, const toi_case *c, toi_precision q, toi_ref_engine e) {
  toi_status st = toi_ref_solve_engine(out, c, e);
  if (st == TOI_OK) round_ref(out, q);
  return st;
}

toi_status toi_ref_solve_target_prec(toi_ref *out, const toi_case *c, double delta, toi_precision q,
                                     toi_ref_engine e) {
  toi_status st = toi_ref_solve_target_engine(out, c, delta, e);
  if (st == TOI_OK) round_ref(out, q);
  return st;
}

size_t toi_ref_solve_batch_prec(toi_ref *out, toi_status *st, const toi_case *c, size_t n, toi_precision q,
                                toi_ref_engine e) {
  size_t bad = toi_ref_solve_batch_engine(out, st, c, n, e);
  for (size_t i = 0; i < n; i++) round_ref(&out[i], q);
  return bad;
}

toi_status toi_ref_error_prec(double *ulp, double *bits, double T, const toi_case *c, toi_direction dir,
                              toi_precision q, toi_ref_engine e) {
  if (q == TOI_BINARY64) return toi_ref_error_engine(ulp, bits, T, c, dir, e);
  const toi_precision_info *pi = toi_precision_get(q);
  if (!pi || !ulp || !bits) return TOI_ERR_RANGE;
  toi_ref r;
  toi_status st = toi_ref_solve_engine(&r, c, e);
  if (st != TOI_OK) return st;
  double t = dir == TOI_FORWARD ? r.tfwd : r.trev;
  if (isnan(t) || isnan(T)) {
    *ulp = *bits = NAN;
    return TOI_OK;
  }
  if (isinf(T)) {
    *ulp = *bits = INFINITY;
    return TOI_OK;
  }
  *ulp = fabs(T - t) / ulp_in(t, pi);
  double a = toi_round_to(T, q), b = toi_round_to(t, q), n = 0;
  while (a != b && n < 1e7) {
    a = a < b ? nextafterf((float)a, (float)b) : nextafterf((float)a, (float)b);
    n++;
  }
  *bits = log2(1 + n);
  return TOI_OK;
}
