/* toiref.h: the certified reference (GMP exact classes, MPFR correctly rounded roots). */
#ifndef TOIREF_H
#define TOIREF_H

#include "precision.h"
#include "toi.h"

/// The exact answer for one case.
///
/// With s = pB - pA, v = vB - vA, R = rA + rB (+ delta) taken as exact reals:
/// a = v.v, b = s.v, c = s.s - R^2, D = b^2 - a c. The class is decided
/// exactly, in this order: overlap if c < 0; else static if a = 0; else if
/// c = 0: contact when b < 0, otherwise separating; else separating if b >= 0;
/// else miss if D < 0, graze if D = 0, hit if D > 0.
typedef struct toi_ref {
  toi_class cls;   ///< exact class
  double tlo;      ///< RN((-b - sqrt D)/a), NaN unless a > 0 and D >= 0
  double thi;      ///< RN((-b + sqrt D)/a), NaN unless a > 0 and D >= 0
  double tfwd;     ///< the smallest root >= 0 (decided exactly), else NaN
  double trev;     ///< the largest root <= 0 (decided exactly), else NaN
  int fwd_is_lo;   ///< 1 when tfwd is the lower root, 0 when the upper, -1 none
  int rev_is_lo;   ///< 1 when trev is the lower root, 0 when the upper, -1 none
} toi_ref;

/// Solves a case exactly. Every finite double input is legal. Uses the fast
/// engine, TOI_REF_FAST; toi_ref_solve_engine names the engine (there is no
/// process-wide setting). Both engines answer alike.
TOI_API TOI_MUST_USE toi_status toi_ref_solve(toi_ref *out, const toi_case *c);

/// Same with the contact distance R + delta instead of R (delta a finite
/// double, R + delta >= 0 required, else TOI_ERR_RANGE). TOI_REF_FAST, as
/// toi_ref_solve.
TOI_API TOI_MUST_USE toi_status toi_ref_solve_target(toi_ref *out, const toi_case *c, double delta);

/// Error of a double T against the exact root t* in direction dir:
/// *ulp = |T - t*| / ulp(t*) with ulp(x) = 2^(max(e,-1022)-52) for
/// 2^e <= |x| < 2^(e+1) (ulp(0) = 2^-1074), correctly rounded to double;
/// *bits = log2(1 + |ord(T) - ord(RN(t*))|), ord the position of a double in
/// the ordered set of doubles (Herbie's measure: 0 when T = RN(t*), 1 for a
/// neighbour).
/// Both are NaN when there is no such root or T is NaN; +Inf when T is infinite
/// and t* is not. TOI_REF_FAST, as toi_ref_solve (toi_ref_error_engine names it).
TOI_API TOI_MUST_USE toi_status toi_ref_error(double *ulp, double *bits, double T, const toi_case *c,
                                      toi_direction dir);

/// Relative condition number of the root in direction dir with respect to all
/// inputs (positions, velocities, radii):
/// kappa = sum_i |x_i dt/dx_i| / |t|, from the exact derivatives of
/// F(t, x) = |s + v t|^2 - R^2 = 0 (dt/dx = -F_x / F_t), evaluated in MPFR.
/// +Inf when t* = 0 or D = 0; NaN when there is no such root. TOI_REF_FAST, as
/// toi_ref_solve (toi_ref_kappa_engine names it).
TOI_API TOI_MUST_USE toi_status toi_ref_kappa(double *kappa, const toi_case *c, toi_direction dir);

/// The two engines behind toi_ref_solve and toi_ref_solve_target. Both give
/// bit-identical results on every input; they differ only in speed.
typedef enum toi_ref_engine {
  /// The default: without a target distance, first the class from plain-double
  /// filters and each root by a Newton step with a double-double residual
  /// (reference/fast/ref_fast_quick.c, in x86-64 GCC builds on processors with an FMA); then, for
  /// what that cannot prove, the signs of c, b and D from floating-point filters with
  /// proven error bounds (exact expansions of c, b and D when a filter cannot
  /// decide), the roots in double-double with a proven error bound, certified
  /// when both ends of each root's enclosure round to the same double.
  /// Whatever it cannot certify goes to TOI_REF_MPFR (reference/fast/ref_fast.c).
  TOI_REF_FAST = 0,
  /// GMP integers for the class and an MPFR Ziv loop for the roots, every case.
  TOI_REF_MPFR = 1
} toi_ref_engine;

/// Precisions. The same answers with both roots (tlo, thi, tfwd, trev)
/// correctly rounded to precision q (nearest, ties to even, overflow to inf,
/// q's subnormals), rounded once from the exact root, never from the binary64
/// result; a value of binary32 is stored exactly in the double. The class is
/// the exact class, whatever q. For TOI_BINARY64 these are the functions above.
TOI_API TOI_MUST_USE toi_status toi_ref_solve_prec(toi_ref *out, const toi_case *c, toi_precision q, toi_ref_engine e);
TOI_API TOI_MUST_USE toi_status toi_ref_solve_target_prec(toi_ref *out, const toi_case *c, double delta, toi_precision q,
                                                  toi_ref_engine e);
TOI_API size_t toi_ref_solve_batch_prec(toi_ref *out, toi_status *st, const toi_case *c, size_t n, toi_precision q,
                                toi_ref_engine e);
/// The error of T in precision q: *ulp = |T - t*| / ulp_q(t*), ulp_q(x) =
/// 2^(max(e, emin) - p + 1); *bits = log2(1 + the number of values of q
/// between T and RN_q(t*)) (T not a value of q is first rounded to q for
/// bits only). NaN and Inf as toi_ref_error.
TOI_API TOI_MUST_USE toi_status toi_ref_error_prec(double *ulp, double *bits, double T, const toi_case *c,
                                           toi_direction dir, toi_precision q, toi_ref_engine e);

/// An enclosure of the error toi_ref_error_prec gives, for callers that
/// only need to place it (a histogram bin, against a running maximum):
/// *lo <= *ulp <= *hi, *bits exactly as toi_ref_error_prec gives them. Cheap
/// for most answers: the fast engine bounds T - t* from its enclosure of the
/// root, and measures the error itself (*lo = *hi) only where that is as
/// cheap or the bound cannot be had; the MPFR engine always measures it.
/// When *lo < *hi: 0 <= *lo and *hi is finite. The same statuses as
/// toi_ref_error_prec.
TOI_API TOI_MUST_USE toi_status toi_ref_error_bound(double *lo, double *hi, double *bits, double T, const toi_case *c,
                                            toi_direction dir, toi_precision q, toi_ref_engine e);

/// The same for kappa (toi_ref_kappa_engine): *lo <= kappa <= *hi, kappa
/// itself (*lo = *hi) where the fast engine has no enclosure within about
/// 2^-29 of it, where kappa is NaN or infinite, and with the MPFR engine.
TOI_API TOI_MUST_USE toi_status toi_ref_kappa_bound(double *lo, double *hi, const toi_case *c, toi_direction dir,
                                            toi_ref_engine e);

/// "fast" or "mpfr"; NULL for an unknown value.
TOI_API const char *toi_ref_engine_name(toi_ref_engine e);
/// The engine named name ("fast", "mpfr"), or -1.
TOI_API int toi_ref_engine_parse(const char *name);

/// toi_ref_solve and toi_ref_solve_target with an explicit engine; TOI_ERR_RANGE
/// for an engine other than TOI_REF_FAST or TOI_REF_MPFR.
TOI_API TOI_MUST_USE toi_status toi_ref_solve_engine(toi_ref *out, const toi_case *c, toi_ref_engine e);
TOI_API TOI_MUST_USE toi_status toi_ref_solve_target_engine(toi_ref *out, const toi_case *c, double delta,
                                                    toi_ref_engine e);

/// toi_ref_error and toi_ref_kappa with an explicit engine (both engines give
/// the same bits). An engine other than TOI_REF_FAST or TOI_REF_MPFR is taken as MPFR.
TOI_API TOI_MUST_USE toi_status toi_ref_error_engine(double *ulp, double *bits, double T, const toi_case *c,
                                             toi_direction dir, toi_ref_engine e);
TOI_API TOI_MUST_USE toi_status toi_ref_kappa_engine(double *kappa, const toi_case *c, toi_direction dir, toi_ref_engine e);

/// Solves c[0..n-1] into out[0..n-1]: out[i] and st[i] (st may be NULL) exactly
/// as toi_ref_solve_engine(&out[i], &c[i], e) gives them, bit for bit; returns
/// how many statuses are not TOI_OK. The fast engine runs its stages on eight
/// cases at a time on AVX-512 machines (four with AVX2), which makes a suite of
/// cases about twice as cheap as one call per case. Counted in
/// toi_ref_fast_stats as calls.
TOI_API size_t toi_ref_solve_batch_engine(toi_ref *out, toi_status *st, const toi_case *c, size_t n, toi_ref_engine e);
/// The same with TOI_REF_FAST, as toi_ref_solve.
TOI_API size_t toi_ref_solve_batch(toi_ref *out, toi_status *st, const toi_case *c, size_t n);

/// How often the fast engine needed help, counted per thread.
typedef struct toi_ref_fast_stats {
  unsigned long long calls;     ///< valid cases the fast engine was given
  unsigned long long exact;     ///< of which c, b or D needed more than the double-double filter:
                                ///< c to 2^-145 (near contact) or an exact expansion (D = 0)
  unsigned long long fb_range;  ///< fallbacks to MPFR: data outside the fast range (no relative
                                ///< motion or all lengths zero, a difference that overflows, R + delta
                                ///< not fitting two doubles, a component too small for an exact stage,
                                ///< c, b or D below 2^-800 of the scale where a root needs them)
  unsigned long long fb_sign;   ///< fallbacks to MPFR: a sign still undecided after the exact stage
                                ///< (expansions too long to be worth it)
  unsigned long long fb_round;  ///< fallbacks to MPFR: a root's enclosure contains a rounding
                                ///< boundary (or the root is exactly a midpoint between doubles)
  unsigned long long quick;     ///< of calls, answered by the first stage alone (plain-double class,
                                ///< roots by Newton steps), without the double-double stage
  unsigned long long fb_prec;   ///< of calls in a precision other than binary64 (toi_ref_solve_prec and
                                ///< its batch), fallbacks to MPFR because a rounding boundary of that
                                ///< precision lies next to the certified binary64 root (about 2^-28 of
                                ///< the roots in binary32, or a root built to sit on one)
} toi_ref_fast_stats;

/// The calling thread's counters since it started or since the last reset.
TOI_API void toi_ref_fast_stats_get(toi_ref_fast_stats *out);
/// Sets the calling thread's counters to zero.
TOI_API void toi_ref_fast_stats_reset(void);

/// Versions of the linked MPFR and GMP libraries, for reports.
TOI_API const char *toi_ref_mpfr_version(void);
TOI_API const char *toi_ref_gmp_version(void);

#endif
