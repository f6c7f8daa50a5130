/* ref_fast_count.c: the fast engine's counters (toi_ref_fast_stats) and its fallback to MPFR in a precision q. */
#include <string.h>
#include "ref_fast_count.h"
#include "ref_mpfr.h"

_Thread_local toi_ref_fast_stats ref_fast_tally;

void toi_ref_fast_stats_get(toi_ref_fast_stats *out) {
  if (out) *out = ref_fast_tally;
}

void toi_ref_fast_stats_reset(void) { memset(&ref_fast_tally, 0, sizeof ref_fast_tally); }

void ref_fast_count(unsigned long long quick, unsigned long long dd, unsigned long long exact) {
  ref_fast_tally.calls += quick + dd;
  ref_fast_tally.quick += quick;
  ref_fast_tally.exact += exact;
}

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
  ref_fast_tally.fb_prec++;
  return ref_solve_mpfr_prec(out, c, delta, toi_precision_get(q));
}
