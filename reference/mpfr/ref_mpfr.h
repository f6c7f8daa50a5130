/* ref_mpfr.h: the GMP/MPFR engine's state and stages, shared by the files of reference/mpfr/ and their callers. */
#ifndef REF_MPFR_H
#define REF_MPFR_H

#include <gmp.h>
#include <mpfr.h>
#include "ref_common.h"

/// Scratch floats per thread; ref_kappa.c uses the most (f[0..8]).
#define REF_NF 9

/// Per-thread working state. The exact data are integers: with ep the
/// smallest binary exponent among the nonzero lengths (positions, radii,
/// delta) and ev the smallest among the nonzero velocities,
/// s = S 2^ep, R = Rr 2^ep, v = V 2^ev, so that a = A 2^(2ev),
/// b = B 2^(ep+ev), c = C 2^(2ep), D = (B^2 - A C) 2^(2ep+2ev) and the roots
/// are (-B -+ sqrt D)/A 2^(ep-ev). Signs, classes and the rationality of the
/// roots are those of the integers.
typedef struct ref_ctx {
  mpz_t s[3], v[3], R;  ///< S, V, Rr
  mpz_t A, B, C, D;     ///< the integer quadratic and its discriminant
  mpz_t Q;              ///< sqrt(D) when D is a perfect square
  mpz_t z[4];           ///< integer scratch
  mpq_t q[2];           ///< rational scratch (ref_error.c)
  mpfr_t f[REF_NF];     ///< float scratch, precision set by each user
  long ep, ev;          ///< the two scale exponents
  int n;                ///< number of components, 2 or 3
  toi_class cls;        ///< exact class
  int has_roots;        ///< A > 0 and D >= 0
  int rational;         ///< has_roots and D is a perfect square (Q valid)
} ref_ctx;

/// The calling thread's state, created on first use and freed when the
/// thread exits; NULL when out of memory.
ref_ctx *ref_ctx_get(void);

/// MPFR exponent range and flags of the caller, saved on entry to a public
/// function and restored on exit so that the reference leaves no trace.
typedef struct ref_env {
  mpfr_exp_t emin, emax;
  mpfr_flags_t flags;
  int widened;
} ref_env;
void ref_env_enter(ref_env *env);
void ref_env_leave(const ref_env *env);
/// Loads a checked case exactly into x and decides its class; delta (NULL
/// for none) is added to R. TOI_ERR_RANGE when R + delta < 0.
toi_status ref_load(ref_ctx *x, const toi_case *c, const double *delta);

/// Fills out from a loaded x: class, correctly rounded roots, directions.
void ref_solve_loaded(ref_ctx *x, toi_ref *out);
/// The same with the roots correctly rounded to precision pi (p <= 53,
/// emin >= -1022, emax <= 1023: a format whose values are doubles) from the
/// exact roots; ref_solve_loaded is this with binary64. Uses f[7] too.
void ref_solve_loaded_prec(ref_ctx *x, toi_ref *out, const toi_precision_info *pi);
/// For a root of a case with has_roots and |B| + sqrt(D) > 0 (every
/// irrational root; kappa also uses it on rational ones): an approximation t of the
/// lower (lo = 1) or upper root, in real units, at precision p >= 64, with
/// |t - t*| < 2^(EXP(t) + 4 - p). Uses f[0..3]; t may be f[4] or above.
void ref_root_approx(ref_ctx *x, int lo, mpfr_ptr t, mpfr_prec_t p);

/// For a rational root: t* = num / den 2^e2 exactly, den > 0.
void ref_root_rational(ref_ctx *x, int lo, mpz_ptr num, mpz_ptr den, long *e2);

/// Precision whose error bound ref_root_approx meets, for mpfr_can_round.
#define REF_ERR_BITS(p) ((mpfr_exp_t)(p) - 5)
/// The whole of toi_ref_solve with a target (delta != NULL) or without with
/// the GMP/MPFR engine (ref_solve_mpfr.c); the fast engine falls back on it.
toi_status ref_solve_mpfr(toi_ref *out, const toi_case *c, const double *delta);
/// The same with the roots in precision pi (ref_solve_loaded_prec).
toi_status ref_solve_mpfr_prec(toi_ref *out, const toi_case *c, const double *delta, const toi_precision_info *pi);

/// toi_ref_error and toi_ref_kappa by GMP and MPFR alone, for a case that
/// passed ref_check_case and a direction that is TOI_FORWARD or TOI_REVERSE
/// (api.c checks both); *ulp, *bits and *kappa must hold NaN on entry.
toi_status ref_error_mpfr(double *ulp, double *bits, double T, const toi_case *c, toi_direction dir);
/// toi_ref_error in a precision's answer by GMP and MPFR (same conditions): the ulp of
/// pi, RN_pi(t*) for the bits and an infinite T.
toi_status ref_error_mpfr_prec(double *ulp, double *bits, double T, const toi_case *c, toi_direction dir,
                               toi_precision q);
toi_status ref_kappa_mpfr(double *kappa, const toi_case *c, toi_direction dir);

/// A bound on the relative error of the 128-bit kappa of ref_kappa.c before
/// its rounding to double (proved there).
#define REF_KAPPA_REL_ERR 0x1p-120
#endif
