/* ref_bench.h: what the reference offers src/bench beyond toiref.h (private: not installed, not exported). */
#ifndef REF_BENCH_H
#define REF_BENCH_H

#include "toiref.h"

/// An enclosure lo <= (t* - R) / u <= hi of the root of a prepared case
/// (toi_ref_prepare with the fast engine), t* its exact root in direction
/// dir, for a finite R and a normal power of two u: with R = RN_q(t*) and u
/// = ulp_q(R), the root's offset from its rounding in units of its ulp. From
/// the root's enclosure that the preparation proved, without measuring an
/// error (reference/fast/ref_fast_err.c, fe_offset, proves it). 1 with *lo
/// and *hi set, 0 when it cannot be had so (another engine, a case the fast
/// engine left to MPFR, no root in direction dir, R or u out of range): the
/// caller then measures as without it. Writes nothing in *p.
int ref_prepared_offset(const toi_ref_prepared *p, toi_direction dir, double R, double u, double *lo, double *hi);

/// *p as toi_ref_prepare would fill it for case c (its numbers copied) and
/// engine e, but the preparation itself (the check and the fast engine's
/// state) left to the first measure that uses *p (toi_ref_error, _bound,
/// toi_ref_kappa, _bound), which then gives exactly what it gives after
/// toi_ref_prepare; a case no measure asks about costs only the copy. Until
/// then ref_prepared_offset gives 0 for it. e not an engine: *p refused by
/// the measures, as toi_ref_prepare leaves it. The first measure writes *p:
/// one thread's, as the caller's stack in toi_bench_run.
void ref_prepare_deferred(toi_ref_prepared *p, const toi_case *c, toi_ref_engine e);

/// ref_prepare_deferred with r, toi_ref_solve's answer for c in binary64
/// with engine e, whose status was TOI_OK (so c passes the case check): a
/// toi_ref_error in binary64 on *p may then be answered from r and c's
/// numbers without the fast engine's state (ref_fast_error_light), the same
/// doubles; any other measure, or one that cannot be had so, prepares *p
/// first, as after ref_prepare_deferred. r NULL or e not TOI_REF_FAST: as
/// ref_prepare_deferred.
void ref_prepare_deferred_solved(toi_ref_prepared *p, const toi_case *c, toi_ref_engine e, const toi_ref *r);

/// toi_ref_error of the query {c, engine e, precision q, dir, T, prepared
/// pp} (the same status and *out), for pp (not NULL) made by
/// ref_prepare_deferred or ref_prepare_deferred_solved from c with engine e
/// and not filled since by anything but the measures: the query is not
/// built, nor c compared with pp's copy of it.
TOI_MUST_USE toi_status ref_error_prepared(toi_ref_error_result *out, toi_ref_prepared *pp, double T,
                                           toi_direction dir, toi_precision q);

/// toi_ref_prepare of c with engine e (TOI_REF_FAST or TOI_REF_MPFR) into
/// *p, for a case c (not NULL) that toi_ref_solve answered with TOI_OK, in
/// any precision: that answer means c passes the case check (toi_ref_solve
/// gives TOI_ERR_INPUT otherwise), so the check is not made again; *p is
/// then what toi_ref_prepare makes of c, whose status would be TOI_OK.
void ref_prepare_solved(toi_ref_prepared *p, const toi_case *c, toi_ref_engine e);

/// An enclosure [*lo, *hi] of the double toi_ref_kappa gives (either
/// engine) for the root t* of case c whose rounding to precision q is R =
/// RN_q(t*) (toi_ref_solve's tfwd or trev for c in q, in the root's
/// direction), from c's numbers and R alone: no preparation, no measure
/// (reference/fast/ref_fast_kappa_root.c proves it). For a case that
/// toi_ref_solve answered with TOI_OK. 1 with *lo <= kappa <= *hi and
/// *hi <= *lo (1 + 2^-8), 0 when it cannot be had so (R not a normal value
/// of q, R or the data out of the stated range, kappa infinite, or the
/// enclosure too wide): the caller then asks toi_ref_kappa_bound.
int ref_kappa_root_bound(double *lo, double *hi, const toi_case *c, double R, toi_precision q);

/// An enclosure lo <= (t* - R) / u <= hi of the root t* of case c, the
/// lower root when lower is 1, the upper when 0 (toi_ref's fwd_is_lo or
/// rev_is_lo for the direction), for a finite R and a normal power of two
/// u, from c's numbers alone: no preparation (one Newton step from R with a
/// double-double residual; reference/fast/ref_fast_quick.c, quick_offset,
/// proves it). For a case that toi_ref_solve answered with TOI_OK with
/// roots. 1 with *lo and *hi set, 0 when it cannot be had so (no FMA, data
/// or R out of range, the step not proved): the caller then asks
/// ref_prepared_offset.
int ref_root_offset(double *lo, double *hi, const toi_case *c, double R, double u, int lower);

/// ref_root_offset and ref_kappa_root_bound in binary64 for n roots at once:
/// for j < n, the root R[j] of case *c[j], u[j] and lower[j] as
/// ref_root_offset takes them. Bit 0 of ok[j] set when ref_root_offset gives
/// 1, with its *lo, *hi in off[j][0], off[j][1]; bit 1 when
/// ref_kappa_root_bound (q = TOI_BINARY64) gives 1, with kap[j]. The same
/// doubles as the two functions give: several roots per vector instruction
/// where the processor has AVX2 and FMA or AVX-512 (reference/fast/
/// ref_fast_batch_kernel.inl, b_offset and b_kr_bound, their operations lane
/// by lane), else one by one. Where a bit is 0 its pair is unspecified.
void ref_root_offset_kappa_n(double (*off)[2], double (*kap)[2], unsigned char *ok, const toi_case *const *c,
                             const double *R, const double *u, const signed char *lower, size_t n);

#endif
