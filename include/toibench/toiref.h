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

/// The two engines of the reference. Both give bit-identical results on every
/// input and every entry point; they differ only in speed.
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

/// A case prepared once for the reference's error and kappa measures
/// (toi_ref_prepare), owned by the caller: it holds a copy of the case (its
/// numbers, not its id), the engine, the verdict of the case check, and the
/// root data that toi_ref_error, toi_ref_error_bound, toi_ref_kappa and
/// toi_ref_kappa_bound start from; those complete it with what they derive
/// on first use (so it is written by them: one thread at a time per
/// prepared case; distinct prepared cases may be used by distinct threads
/// at once). It holds no pointer: it may be copied with memcpy or assignment
/// and needs no release. Its contents are private and may change in any
/// release; its size (TOI_REF_PREPARED_SIZE) changes only with the SONAME.
#define TOI_REF_PREPARED_SIZE 1536
typedef struct toi_ref_prepared {
  _Alignas(16) unsigned char opaque[TOI_REF_PREPARED_SIZE]; ///< private
} toi_ref_prepared;

/// What the reference is asked: one struct for every entry point, so that a
/// new parameter is a new field. Start from TOI_REF_QUERY_INIT (or
/// toi_ref_query_default()) and set what the call needs; each entry point
/// says which fields it reads, and ignores the others.
typedef struct toi_ref_query {
  /// The case (not NULL), unless prepared is set; then NULL or a case whose
  /// numbers are those prepared bit for bit (else TOI_ERR_RANGE).
  const toi_case *c;
  /// The engine (default TOI_REF_FAST). With prepared set, the engine it was
  /// prepared with (else TOI_ERR_RANGE).
  toi_ref_engine engine;
  /// The precision of the roots and of the error measures (default
  /// TOI_BINARY64): the roots correctly rounded to it (nearest, ties to even,
  /// overflow to inf, its subnormals), rounded once from the exact root, never
  /// from the binary64 result; a value of binary32 is stored exactly in the
  /// double. The class is the exact class, whatever the precision.
  toi_precision precision;
  /// The root measured by the error and kappa entry points (default
  /// TOI_FORWARD).
  toi_direction dir;
  /// The answer whose error toi_ref_error and toi_ref_error_bound measure
  /// (default 0).
  double T;
  /// Solve only: 1 to use the contact distance R + target instead of R
  /// (target a finite double, R + target >= 0 required, else TOI_ERR_RANGE);
  /// 0 (default) for R.
  int with_target;
  double target;
  /// Error and kappa only: the case prepared by toi_ref_prepare (default
  /// NULL: the entry point prepares c itself, for this call alone).
  toi_ref_prepared *prepared;
} toi_ref_query;

/// The default query: every field zero or NULL (the fast engine, binary64,
/// forward, no target, nothing prepared).
#define TOI_REF_QUERY_INIT {NULL, TOI_REF_FAST, TOI_BINARY64, TOI_FORWARD, 0.0, 0, 0.0, NULL}
/// The same as a function. Thread-safe.
TOI_API toi_ref_query toi_ref_query_default(void);

/// An error measure (toi_ref_error, toi_ref_error_bound).
typedef struct toi_ref_error_result {
  /// |T - t*| / ulp_q(t*), t* the exact root in direction dir, ulp_q(x) =
  /// 2^(max(e, emin) - p + 1) for 2^e <= |x| < 2^(e+1) (binary64: 2^(max(e,-1022)-52),
  /// ulp(0) = 2^-1074), correctly rounded to double. From toi_ref_error_bound:
  /// the same when lo = hi, else NaN.
  double ulp;
  /// log2(1 + the number of values of the precision between T and RN_q(t*))
  /// (T not a value of q is first rounded to q for this only): 0 when T =
  /// RN_q(t*), 1 for a neighbour (Herbie's measure).
  double bits;
  /// An enclosure lo <= ulp <= hi: toi_ref_error gives lo = hi = ulp;
  /// toi_ref_error_bound may give lo < hi, then 0 <= lo and hi finite.
  double lo, hi;
} toi_ref_error_result;

/// A condition number (toi_ref_kappa, toi_ref_kappa_bound).
typedef struct toi_ref_kappa_result {
  /// Relative condition number of the root in direction dir with respect to
  /// all inputs (positions, velocities, radii): kappa = sum_i |x_i dt/dx_i| / |t|,
  /// from the exact derivatives of F(t, x) = |s + v t|^2 - R^2 = 0
  /// (dt/dx = -F_x / F_t), evaluated in MPFR, rounded to double. +Inf when
  /// t* = 0 or D = 0; NaN when there is no such root. From
  /// toi_ref_kappa_bound: the same when lo = hi, else NaN.
  double kappa;
  /// An enclosure lo <= kappa <= hi (toi_ref_kappa: lo = hi = kappa).
  double lo, hi;
} toi_ref_kappa_result;

/// Solves q->c exactly (fields read: c, engine, precision, with_target,
/// target). Every finite double input is legal: TOI_ERR_INPUT for a case
/// with a non-finite number, a negative radius or a dimension other than 2
/// or 3 (or a 2D case with a third component), TOI_ERR_RANGE for an unknown
/// engine or precision, NULL arguments or R + target < 0; *out is then
/// cleared (class TOI_NONE, roots NaN) when out is not NULL. Thread-safe.
TOI_API TOI_MUST_USE toi_status toi_ref_solve(toi_ref *out, const toi_ref_query *q);

/// Solves c[0..n-1] into out[0..n-1] (fields read: engine, precision,
/// with_target, target; q->c is ignored): out[i] and st[i] (st may be NULL)
/// exactly as toi_ref_solve gives them for c[i], bit for bit; *nbad (may be
/// NULL) counts the statuses that are not TOI_OK. Returns TOI_OK when the
/// cases were solved (each with its own status), TOI_ERR_RANGE for NULL
/// out, c or q or an unknown engine or precision (then every st[i] is
/// TOI_ERR_RANGE, every out[i] cleared, *nbad = n). The fast engine runs its
/// stages on eight cases at a time on AVX-512 machines (four with AVX2),
/// which makes a suite of cases about twice as cheap as one call per case.
/// Counted in toi_ref_fast_stats as calls. Thread-safe.
TOI_API TOI_MUST_USE toi_status toi_ref_solve_batch(toi_ref *out, toi_status *st, const toi_case *c, size_t n,
                                                    const toi_ref_query *q, size_t *nbad);

/// Prepares q->c for the error and kappa measures (fields read: c, engine)
/// into the caller's *p. Returns the case check's status (TOI_ERR_INPUT as
/// toi_ref_solve; TOI_ERR_RANGE for NULL arguments or an unknown engine);
/// *p is then still usable and every measure on it returns that status.
/// Thread-safe (it writes *p only).
TOI_API TOI_MUST_USE toi_status toi_ref_prepare(toi_ref_prepared *p, const toi_ref_query *q);

/// The error of q->T against the exact root in direction q->dir, in
/// q->precision (fields read: c or prepared, engine, precision, dir, T).
/// ulp and bits are NaN when there is no such root or T is NaN; +Inf when T
/// is infinite and t* is not. TOI_ERR_RANGE for NULL arguments, an unknown
/// direction, precision or engine, or a prepared case that does not match
/// c or engine; the case check's status for an invalid case (out then NaN).
/// Thread-safe when q->prepared is NULL or used by this thread alone.
TOI_API TOI_MUST_USE toi_status toi_ref_error(toi_ref_error_result *out, const toi_ref_query *q);

/// An enclosure of the error toi_ref_error gives, for callers that only need
/// to place it (a histogram bin, against a running maximum): lo <= ulp <= hi,
/// bits exactly as toi_ref_error gives them. Cheap for most answers: the fast
/// engine bounds T - t* from its enclosure of the root, and measures the
/// error itself (lo = hi) only where that is as cheap or the bound cannot be
/// had; the MPFR engine always measures it. The same fields, statuses and
/// thread safety as toi_ref_error.
TOI_API TOI_MUST_USE toi_status toi_ref_error_bound(toi_ref_error_result *out, const toi_ref_query *q);

/// Kappa of the exact root in direction q->dir (fields read: c or prepared,
/// engine, dir; the precision does not enter). Statuses and thread safety as
/// toi_ref_error.
TOI_API TOI_MUST_USE toi_status toi_ref_kappa(toi_ref_kappa_result *out, const toi_ref_query *q);

/// An enclosure lo <= kappa <= hi: kappa itself (lo = hi) where the fast
/// engine has no enclosure within about 2^-29 of it, where kappa is NaN or
/// infinite, and with the MPFR engine. As toi_ref_kappa otherwise.
TOI_API TOI_MUST_USE toi_status toi_ref_kappa_bound(toi_ref_kappa_result *out, const toi_ref_query *q);

/// "fast" or "mpfr"; NULL for an unknown value. Thread-safe.
TOI_API const char *toi_ref_engine_name(toi_ref_engine e);
/// The engine named name ("fast", "mpfr") into *out: TOI_OK, or
/// TOI_ERR_RANGE for NULL or an unknown name (*out untouched). Thread-safe.
TOI_API TOI_MUST_USE toi_status toi_ref_engine_parse(toi_ref_engine *out, const char *name);

/// How often the fast engine needed help, counted per thread (statistics of
/// the calling thread, not results: no answer depends on them).
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
  unsigned long long fb_prec;   ///< of calls in a precision other than binary64 (toi_ref_solve and
                                ///< toi_ref_solve_batch), fallbacks to MPFR because a rounding boundary of that
                                ///< precision lies next to the certified binary64 root (about 2^-28 of
                                ///< the roots in binary32, or a root built to sit on one)
} toi_ref_fast_stats;

/// The calling thread's counters since it started or since the last reset.
/// Thread-safe (each thread has its own).
TOI_API void toi_ref_fast_stats_get(toi_ref_fast_stats *out);
/// Sets the calling thread's counters to zero. Thread-safe.
TOI_API void toi_ref_fast_stats_reset(void);

/// Versions of the linked MPFR and GMP libraries, for reports. Thread-safe.
TOI_API const char *toi_ref_mpfr_version(void);
TOI_API const char *toi_ref_gmp_version(void);

#endif
