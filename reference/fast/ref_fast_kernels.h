/* ref_fast_kernels.h: the batch's vector kernels (ref_fast_batch_kernel.inl) and the scalar stages it hands on to. */
#ifndef REF_FAST_KERNELS_H
#define REF_FAST_KERNELS_H

#include "ref_common.h"
#include "ref_fast_count.h"
#include "toiref.h"

/// ref_solve_fast_prec without a target, for a case whose first stage
/// (ref_fast_quick or the batch's) has already declined it: the double-double
/// stage, then MPFR; the roots in precision q.
toi_status ref_solve_fast_rest(toi_ref *out, const toi_case *c, toi_precision q);
/// Both roots of a certified binary64 answer rounded to q in place, with
/// its directions' times: 1 when ref_round_certified proves both, else 0
/// (out unchanged).
static inline int ref_fast_round_prec(toi_ref *out, toi_precision q) {
  double lo, hi;
  if (!ref_round_certified(&lo, out->tlo, q) || !ref_round_certified(&hi, out->thi, q)) return 0;
  out->tlo = lo;
  out->thi = hi;
  if (out->fwd_is_lo >= 0) out->tfwd = out->fwd_is_lo ? lo : hi;
  if (out->rev_is_lo >= 0) out->trev = out->rev_is_lo ? lo : hi;
  return 1;
}
/// The end of the fast engine in a precision q other than binary64, for a
/// case whose certified binary64 answer is in out: its roots rounded to q
/// when that is proved (ref_fast_round_prec), else the MPFR engine's answer
/// in q, counted in toi_ref_fast_stats.fb_prec (ref_fast_count.c).
static inline toi_status ref_fast_finish_prec(toi_ref *out, const toi_case *c, const double *delta,
                                              toi_precision q) {
  return ref_fast_round_prec(out, q) ? TOI_OK : ref_fast_boundary_prec(out, c, delta, q);
}
/// ref_fast_solve_batch with the roots in precision q: the vector kernels in
/// binary32 (f32) for q = TOI_BINARY32, in binary64 for TOI_BINARY64, and no
/// vector prefix (returns 0) for any other q.
size_t ref_fast_solve_batch_q(toi_ref *out, toi_status *st, const toi_case *c, size_t n, size_t *bad,
                              toi_precision q);
/// The batch's first stage (ref_fast_batch_kernel.inl) on 4 or 8 cases at once,
/// for CPUs with AVX2 and FMA, or AVX-512: bit j of the result set when case j
/// was answered into out[j]; bit j of *signs when it was declined where
/// ref_fast_quick would decline it too. The cases must pass the plain checks
/// of ref_solve_fast (dimension, radii, zero third components in 2D). The
/// roots in binary64; the _32 forms of this kernel and of the two below give
/// them in binary32 (certified in binary32 by the kernel itself).
int ref_fast_batch4(toi_ref *out, const toi_case *c, int *signs, int *later);
int ref_fast_batch8(toi_ref *out, const toi_case *c, int *signs, int *later);
int ref_fast_batch4_32(toi_ref *out, const toi_case *c, int *signs, int *later);
int ref_fast_batch8_32(toi_ref *out, const toi_case *c, int *signs, int *later);
/// The fields of a structure of arrays for the _soa forms below.
enum ref_fast_soa_field {
  REF_FAST_SOA_PA = 0, /* pa[0..2] */
  REF_FAST_SOA_VA = 3,
  REF_FAST_SOA_PB = 6,
  REF_FAST_SOA_VB = 9,
  REF_FAST_SOA_RA = 12,
  REF_FAST_SOA_RB = 13,
  REF_FAST_SOA_DIM = 14, /* the dimension as a double */
  REF_FAST_SOA_FIELDS = 15
};
/// ref_fast_batch4 and 8 with their inputs read otherwise, for measuring
/// what reading them costs (bench_fastref --layout), binary64: _gather
/// builds each field's vector from one load per case (the way both kernels
/// read before they read neighbouring pairs, b_in_pairs); _soa reads
/// field f of case j at soa[f * stride + j] (enum ref_fast_soa_field).
int ref_fast_batch4_gather(toi_ref *out, const toi_case *c, int *signs, int *later);
int ref_fast_batch8_gather(toi_ref *out, const toi_case *c, int *signs, int *later);
int ref_fast_batch4_soa(toi_ref *out, const double *soa, size_t stride, int *signs, int *later);
int ref_fast_batch8_soa(toi_ref *out, const double *soa, size_t stride, int *signs, int *later);
/// The same on the cases *c[j] into *out[j], with the second Newton step and
/// the rounding of subnormal and overflowing roots (bit j of *later in the
/// first form: gathered for this one).
int ref_fast_batch4_full(toi_ref *const *out, const toi_case *const *c, int *signs);
int ref_fast_batch8_full(toi_ref *const *out, const toi_case *const *c, int *signs);
int ref_fast_batch4_32_full(toi_ref *const *out, const toi_case *const *c, int *signs);
int ref_fast_batch8_32_full(toi_ref *const *out, const toi_case *const *c, int *signs);
/// The usual path of the double-double stage (fast_try) on the cases
/// *c[0..3] or *c[0..7], for cases the first stage declined: bit j of the
/// result set when *c[j] was answered into *out[j]; bit j of *c3 when c was
/// computed to 2^-145 for it (near contact).
/// ref_root_offset and ref_kappa_root_bound (binary64) of ref_bench.h on the
/// cases *c[0..3] or *c[0..7], lane j for the root R[j] of case *c[j] with
/// u[j] its ulp, the lower root when bit j of lower is set (else the upper),
/// the same doubles lane by lane: bit j of the result set when ref_root_offset
/// gives 1 for lane j, with olo[j], ohi[j]; bit j of *kok when
/// ref_kappa_root_bound does, with klo[j], khi[j]. Bit j of *scalar: the
/// lane's offset was not computed (ref_root_offset itself must be asked).
int ref_fast_root4(double *olo, double *ohi, double *klo, double *khi, int *kok, int *scalar,
                   const toi_case *const *c, const double *R, const double *u, int lower);
int ref_fast_root8(double *olo, double *ohi, double *klo, double *khi, int *kok, int *scalar,
                   const toi_case *const *c, const double *R, const double *u, int lower);
int ref_fast_batch4_dd(toi_ref *const *out, const toi_case *const *c, int *c3);
int ref_fast_batch8_dd(toi_ref *const *out, const toi_case *const *c, int *c3);
int ref_fast_batch4_32_dd(toi_ref *const *out, const toi_case *const *c, int *c3);
int ref_fast_batch8_32_dd(toi_ref *const *out, const toi_case *const *c, int *c3);
#endif
