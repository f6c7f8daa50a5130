/* ref_fast_prec.c: the fast engine on a batch in a precision other than binary64: the vector prefix, then one by one. */
#include "ref_common.h"
#include "ref_fast_api.h"
#include "ref_fast_kernels.h"

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
