/* ref_fast_prec.c: the fast engine in a precision other than binary64: the certified binary64 roots decide, else MPFR. */
#include <math.h>
#include "ref_common.h"
#include "ref_fast_api.h"
#include "ref_fast_kernels.h"
#include "ref_mpfr.h"

/*
 * The fast engine proves RN(t*) in binary64 for each root (its double-double
 * enclosure, or MPFR where that could not decide). That certified double is
 * itself an enclosure of t*: t* lies strictly between its two neighbouring
 * doubles, so ref_round_certified gives RN_q(t*) whenever both neighbours
 * round alike to q, which is every root but about 2^-28 of them in
 * binary32; the rest (a root next to a midpoint of q, or exactly on one) go
 * to the MPFR engine in q, which rounds the exact root. Nothing here rounds
 * a binary64 result to q without that proof, so the answers are the MPFR
 * engine's in q, bit for bit, at the cost of the binary64 engine.
 */

/* Both roots of a solved case to q; 0 (out unchanged) when one is undecided. */
static int fast_prec_round(toi_ref *out, toi_precision q) {
  double lo, hi;
  if (!ref_round_certified(&lo, out->tlo, q) || !ref_round_certified(&hi, out->thi, q)) return 0;
  out->tlo = lo;
  out->thi = hi;
  if (out->fwd_is_lo >= 0) out->tfwd = out->fwd_is_lo ? lo : hi;
  if (out->rev_is_lo >= 0) out->trev = out->rev_is_lo ? lo : hi;
  return 1;
}

toi_status ref_solve_fast_prec(toi_ref *out, const toi_case *c, const double *delta, toi_precision q) {
  toi_status st = ref_solve_fast(out, c, delta);
  if (st != TOI_OK || fast_prec_round(out, q)) return st;
  ref_fast_count_prec();
  return ref_solve_mpfr_prec(out, c, delta, toi_precision_get(q));
}

/* The binary64 batch a chunk at a time (its vector prefix, then one by
 * one, as toi_ref_solve_batch_engine), each chunk's statuses kept here so
 * that the roots of the solved cases can be rounded whether or not the
 * caller asked for the statuses. */
size_t ref_fast_solve_batch_prec(toi_ref *out, toi_status *st, const toi_case *c, size_t n, toi_precision q) {
  enum { CHUNK = 16384 }; /* 64 KB of statuses on the stack */
  toi_status sts[CHUNK];
  size_t bad = 0;
  for (size_t lo = 0; lo < n; lo += CHUNK) {
    size_t m = n - lo < CHUNK ? n - lo : CHUNK, b = 0;
    size_t i = ref_fast_solve_batch(out + lo, sts, c + lo, m, &b);
    for (; i < m; i++) sts[i] = ref_solve_fast(&out[lo + i], &c[lo + i], NULL);
    for (i = 0; i < m; i++) {
      if (sts[i] == TOI_OK && !fast_prec_round(&out[lo + i], q)) {
        ref_fast_count_prec();
        sts[i] = ref_solve_mpfr_prec(&out[lo + i], &c[lo + i], NULL, toi_precision_get(q));
      }
      bad += sts[i] != TOI_OK;
      if (st) st[lo + i] = sts[i];
    }
  }
  return bad;
}
