/* ref_fast_prec.c: the fast engine in a precision other than binary64: certified roots rounded to q, else MPFR. */
#include <math.h>
#include "ref_common.h"
#include "ref_fast_api.h"
#include "ref_fast_kernels.h"
#include "ref_mpfr.h"

/*
 * In binary32 the fast engine's first stage, scalar (ref_fast_quick32) and
 * vector (the batch kernels with f32 set), certifies RN_32(t*) itself from
 * its enclosure of the root, which decides at the cost of binary64's
 * certification or less (quick_certify32 in ref_fast_quick.c). The other
 * stages prove RN(t*) in binary64 (the double-double enclosure, or MPFR
 * where that could not decide). That certified double is itself an
 * enclosure of t*: t* lies strictly between its two neighbouring doubles, so
 * ref_round_certified gives RN_q(t*) whenever both neighbours round alike to
 * q, which is every root but about 2^-28 of them in binary32; the rest (a
 * root next to a midpoint of q, or exactly on one) go to the MPFR engine in
 * q, which rounds the exact root. Nothing here rounds a binary64 result to q
 * without that proof, so the answers are the MPFR engine's in q, bit for
 * bit.
 */

toi_status ref_fast_boundary_prec(toi_ref *out, const toi_case *c, const double *delta, toi_precision q) {
  ref_fast_count_prec();
  return ref_solve_mpfr_prec(out, c, delta, toi_precision_get(q));
}

/* The batch's vector prefix in q (binary32: the kernels certify binary32
 * roots themselves), then the rest one by one, as toi_ref_solve_batch;
 * in another precision every case one by one. */
size_t ref_fast_solve_batch_prec(toi_ref *out, toi_status *st, const toi_case *c, size_t n, toi_precision q) {
  size_t bad = 0, i = ref_fast_solve_batch_q(out, st, c, n, &bad, q);
  for (; i < n; i++) {
    toi_status s = ref_solve_fast_prec(&out[i], &c[i], NULL, q);
    if (st) st[i] = s;
    bad += s != TOI_OK;
  }
  return bad;
}
