/* ref_fast_api.h: the fast engine as the front door (api.c), the tests and the benchmark call it. */
#ifndef REF_FAST_API_H
#define REF_FAST_API_H

#include "ref_fast_state.h"
#include "toiref.h"

/// toi_ref_solve with a target (delta != NULL) or without with the fast
/// engine (ref_fast.c), which hands what it cannot certify to ref_solve_mpfr.
toi_status ref_solve_fast(toi_ref *out, const toi_case *c, const double *delta);

/// The vector part of toi_ref_solve_batch for the fast engine
/// (ref_fast_batch.c): solves a prefix of c[0..n-1] (whole groups of the
/// vector width; none without the FMA build or with width 0) into out and st
/// (st may be NULL), adds the statuses that are not TOI_OK to *bad, and
/// returns the length of that prefix; the caller solves the rest one by one.
size_t ref_fast_solve_batch(toi_ref *out, toi_status *st, const toi_case *c, size_t n, size_t *bad);

/// ref_solve_fast with the roots correctly rounded to precision q (q valid;
/// binary64 is ref_solve_fast): in binary32 the first stage certifies them
/// itself (ref_fast_quick32); otherwise the certified binary64 roots decide
/// the rounding to q (ref_round_certified) or the case goes to
/// ref_solve_mpfr_prec (ref_fast.c, ref_fast_prec.c).
toi_status ref_solve_fast_prec(toi_ref *out, const toi_case *c, const double *delta, toi_precision q);
/// toi_ref_solve_batch with the fast engine: in binary32 the batch with
/// its vector kernels certifying binary32 roots, the rest as
/// ref_solve_fast_prec. Returns how many statuses are not TOI_OK; st may be
/// NULL.
size_t ref_fast_solve_batch_prec(toi_ref *out, toi_status *st, const toi_case *c, size_t n, toi_precision q);

/// Caps the batch's vector width: 8, 4 or 0 lanes (0: one case at a time
/// through ref_solve_fast), -1 the widest this CPU runs; a width the CPU
/// lacks gives the widest it has. Returns the width now in use. Process-wide,
/// for tests and benchmarks; not for use while solving threads run.
int ref_fast_batch_use(int w);
/// The batch's vector width in use now (0 without the FMA build).
int ref_fast_batch_width(void);
/// The fast engine's first stage (ref_fast_quick.c), FMA build only: for a
/// plausible case (fast_plausible in ref_fast.c) without a target distance,
/// 1 when it answered alone (out then holds toi_ref_solve's answer), 0 when
/// the case must go on to the double-double stage (out untouched: the
/// caller has cleared it). Always 0 where there is no FMA build.
int ref_fast_quick(toi_ref *out, const toi_case *c);
/// ref_fast_quick with both roots RN_32(t*), binary32, certified by the
/// stage itself (toi_ref_solve in a precision's answer in binary32 when it is 1).
int ref_fast_quick32(toi_ref *out, const toi_case *c);

/// For tests: run the fast engine's build without FMA (on = 0), with it
/// (on = 1, only where the processor has one), or choose by the processor
/// (on = -1, the default). Returns 1 when the FMA build is in use after the
/// call. Process-wide; not for concurrent use with solving threads.
int ref_fast_use_fma(int on);
/// 1 when the fast engine runs its FMA build now, else 0.
int ref_fast_fma(void);
/// The fast paths of toi_ref_error and toi_ref_kappa (ref_fast_err.c) on the
/// caller's prepared state of a case (ref_fast_err_prepare, on a case that
/// passed ref_check_case): 1 when they answered (exactly what the GMP/MPFR
/// paths of ref_error.c and ref_kappa.c would answer), 0 when the caller
/// must ask those. They complete k with what they derive (k is written: one
/// thread at a time). c is the case k was prepared from.
void ref_fast_err_prepare(ref_fast_prep *k, const toi_case *c);
int ref_fast_error_p(ref_fast_prep *k, double *ulp, double *bits, double T, toi_direction dir, toi_precision q);
/// ref_fast_error_p's answer in binary64 for a case c that was not prepared:
/// k->st.r its binary64 answer (toi_ref_solve's) and k->lite 0, set by the
/// caller; the rest is derived here on first use and kept in k. 1 with *ulp
/// and *bits set, the same doubles as ref_fast_error_p's; 0 when it cannot
/// be had so: the caller then prepares k (ref_fast_err_prepare) and asks
/// ref_fast_error_p.
int ref_fast_error_light(ref_fast_prep *k, const toi_case *c, double *ulp, double *bits, double T,
                         toi_direction dir);
int ref_fast_kappa_p(ref_fast_prep *k, double *kappa, const toi_case *c, toi_direction dir);
/// An enclosure lo <= ulp <= hi of ref_fast_error_p's ulp (lo = hi: the
/// ulp itself), with its bits, from the root's enclosure alone. 0 when the
/// caller must measure the error itself.
int ref_fast_error_bound_p(ref_fast_prep *k, double *lo, double *hi, double *bits, double T, toi_direction dir,
                           toi_precision q);
/// An enclosure lo <= (t* - R) / u <= hi, t* the exact root in direction
/// dir, for a finite R and a normal power of two u, from the root's
/// enclosure alone (R = RN_q(t*) and u its ulp: the root's offset). 0 when
/// it cannot be had here.
int ref_fast_offset_p(const ref_fast_prep *k, double *lo, double *hi, double R, double u, toi_direction dir);
/// An enclosure lo <= kappa <= hi of ref_fast_kappa_p's kappa (lo = hi: kappa
/// itself), from one pass in plain doubles. 0 when the caller must ask MPFR.
int ref_fast_kappa_bound_p(ref_fast_prep *k, double *lo, double *hi, const toi_case *c, toi_direction dir);
/// For tests: the three-double forms of a, b and c of c's scaled data
/// (ref_fast_scaled_data) as the FMA build's vector code makes them and as
/// the scalar code with FMA does: 1 when they are the same doubles with the
/// same errors and verdict, 0 when they differ, -1 when there is no vector
/// code here (no FMA) or the data are not exact.
int ref_fast_triples_same(const toi_case *c);
/// For tests: ref_fast_scaled_data of c and the FMA build's vector code for
/// it: 1 when they agree (the same verdict and, when it is 1, the same s, v,
/// scales and exact_data), 0 when not, -1 when there is no vector code here.
int ref_fast_scaled_data_same(const toi_case *c);
/// For tests: F(T) and G(T) = a T + b (T scaled as c's data) from the
/// three-double forms of a, b, c of c, by the scalar code with FMA and by the
/// FMA build's vector code: 1 when the same doubles with the same errors, 0
/// when not, -1 when there is no vector code here or they cannot be had (data
/// not exact, T out of range).
int ref_fast_FG_same(const toi_case *c, double T);
/// How often the fast paths of toi_ref_error and toi_ref_kappa were asked
/// and how often they left the answer to MPFR, counted per thread (for tests
/// and measurements; toi_ref_fast_stats counts toi_ref_solve alone).
typedef struct ref_fast_err_counts {
  unsigned long long error_calls, error_fb, kappa_calls, kappa_fb;
  /// Errors decided near the root from the case's RN(t*) - t* (once per case
  /// and root), and those that needed the near method at T itself.
  unsigned long long error_near_rn, error_near_t;
  /// ref_fast_error_light's answers, and the errors it left to the prepared case.
  unsigned long long error_light, error_light_fb;
} ref_fast_err_counts;
void ref_fast_err_counts_get(ref_fast_err_counts *out);
void ref_fast_err_counts_reset(void);
#endif
