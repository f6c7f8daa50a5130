/* ref_fast_count.h: below every stage of the fast engine: its counters and its way out to MPFR in a precision q. */
#ifndef REF_FAST_COUNT_H
#define REF_FAST_COUNT_H

#include "toiref.h"

/// This thread's toi_ref_fast_stats (ref_fast_count.c): every stage adds to it
/// (ref_fast.c, ref_fast_batch.c), toi_ref_fast_stats_get reads it.
extern _Thread_local toi_ref_fast_stats ref_fast_tally;
/// Counts cases answered outside ref_solve_fast (by the batch): quick by
/// its first stage, dd by its double-double stage, exact of those dd with c
/// to 2^-145 (fast_c3).
void ref_fast_count(unsigned long long quick, unsigned long long dd, unsigned long long exact);
/// A case of a precision q whose certified binary64 root lies next to a
/// rounding boundary of q: counted in toi_ref_fast_stats.fb_prec, then the
/// MPFR engine's answer in q.
toi_status ref_fast_boundary_prec(toi_ref *out, const toi_case *c, const double *delta, toi_precision q);
#endif
