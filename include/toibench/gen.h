/* gen.h: case families for sweeps and searches; every case is a function of (seed, options, index). */
#ifndef TOI_GEN_H
#define TOI_GEN_H

#include <stddef.h>
#include <stdint.h>
#include "precision.h"
#include "toi.h"
#include "toi_msg.h"

/*
 * The families. Notation: s = pB - pA, v = vB - vA, R = rA + rB; D = (s.v)^2 -
 * (v.v)(s.s - R^2) is the exact discriminant the reference decides the class
 * with. Masses are uniform in [0.5, 2] everywhere (they do not enter the TOI).
 * With --dim 2 the third components are zero; --dim any draws 2 or 3 per case.
 *
 * generic       pA, pB uniform in [-P, P]^dim, vA, vB in [-V, V]^dim, rA, rB in
 *               [RLO, RHI] (--pos P = 10, --vel V = 5, --radius RLO:RHI = 0.1:2).
 *               --sampling real (uniform over the reals of each range) or bits
 *               (uniform over the doubles of each range: small magnitudes dominate;
 *               with --pos and --vel near 1e308 it covers the whole double range).
 * aimed         rA, rB in [RLO, RHI]; pA in [-P, P]^dim, vA in [-1, 1]^dim; a random
 *               unit direction u and a unit w perpendicular to it; pB = pA +
 *               R (d u + b w) with d uniform in [2, 20] and the impact parameter b
 *               uniform in [BLO, BHI] (--impact, default 0:1.25, so about 80% hit);
 *               vB = vA - c u with closing speed c uniform in [0.25, 4]. Rounding
 *               makes b approximate; the exact class is the reference's.
 * grazing       impact parameter R(1 + sigma 2^-k), sigma = -1 (inside: D > 0, hit)
 *               or +1 (outside: D < 0, miss), k round-robin over --k (default 1:60).
 *               Built exactly: a Pythagorean frame (d, n), d.n = 0, |d| = |n| = h
 *               (h = 1, 5, 13, 17, 29 in 2D; 1, 3, 5, 7, 9, 11 in 3D), m = M 2^-20 in
 *               [0.5, 1), R = h m split into two dyadic radii, the distance along
 *               d, alpha h with alpha in [2m, 20m) on the 2^-20 grid, and
 *               s = alpha d + m(1 + sigma 2^-k) n realised as pB = alpha d + m n,
 *               pA = -sigma m 2^-k n (a difference of two doubles holds the exact
 *               value), vA = V (dyadic, |V_i| < 1), vB = V - w d with w in
 *               [0.25, 4] on the 2^-20 grid. Then D = w^2 h^4 m^2 (1 - (1 + sigma
 *               2^-k)^2) has the sign -sigma exactly, for every k <= 1000. A random
 *               signed permutation of the axes and a random swap of A and B (both
 *               exact) vary the layout.
 * near-contact  gap at t = 0 of sigma R 2^-k (sigma = +1: apart, -1: overlapping), k
 *               round-robin over --k (default 1:60), approaching or leaving with
 *               equal odds: s = m(1 + sigma 2^-k) d exactly as above (pB = m d, pA =
 *               -sigma m 2^-k d), R = h m, so c = s.s - R^2 has the sign sigma exactly;
 *               v = mu d + eta n with |eta| <= |mu|/2, mu < 0 when approaching. An
 *               approaching pair that is apart is a hit with a tiny t*
 *               (cancellation in c); leaving, it separates.
 * far           an aimed configuration whose positions lie on the 2^-20 grid,
 *               translated by an offset O of magnitude 10^e (O = 10^e times a random
 *               unit vector, rounded to 24 significant bits); e round-robin over --e
 *               (default 0:15). Up to e = 9 the translation is exact (same class as
 *               the untranslated case); beyond, the rounding of pA + O and pB + O
 *               moves the case, and world-coordinate formulations cancel.
 * scale         an aimed configuration with every length (positions, radii) times
 *               2^e and every velocity times 2^f, so t* scales by 2^(e-f): e
 *               round-robin over --e (default -1000:1000:50), f uniform over --f
 *               (default -1000:1000). Results range from subnormal to overflow.
 *               Scaling uses scalbn (exact unless the result is subnormal, where it
 *               is correctly rounded; IEEE 754 defines it, so it is the same on
 *               every machine).
 * slow          an aimed configuration whose velocities are all multiplied by 2^-k,
 *               k round-robin over --k (default 10:60): the relative speed is tiny
 *               against the separation and t* is large, which is where absolute
 *               thresholds (1e-11, 1e-12) of real solvers act.
 * tangent       exactly tangent trajectories: the grazing construction with sigma
 *               = 0 (impact parameter exactly R, D = 0 exactly, class graze), all
 *               data dyadic, translated by a dyadic point; then one input chosen at
 *               random (a position or velocity component, or a radius) moved k ulps
 *               up or down, k round-robin over --k (default 0:16; k = 0 is the
 *               exact tangent). A move along the path (a position or velocity
 *               component along an axis-aligned direction of travel) keeps D = 0,
 *               so a few neighbours are still grazes; the others hit or miss.
 * mixed         the default suite: case i belongs to a sub-family by i mod 16:
 *               generic 2, aimed 2, grazing 3, near-contact 2, far 2, scale 2,
 *               slow 1, tangent 2 (of 16), each with its default options and its
 *               parameter (k or e) drawn at random from its default range; --dim
 *               defaults to any. Bins are the sub-families.
 *
 * Precision (--precision binary32; binary64 is the default and everything
 * above): every number of every case is a binary32 value, and the families'
 * parameters are in binary32 terms. The promised classes hold exactly (the
 * data are exact; the reference is exact for any input).
 *   generic, aimed  the same draws, each rounded to the nearest float; --sampling
 *               bits is uniform over the floats of each range. --pos, --vel and
 *               the radii at most 2^100 (binary64: 2^1000), so that aimed
 *               positions stay below 2^122 and every input is finite.
 *   grazing, near-contact, tangent  the same exact constructions on coarser
 *               grids so that every number fits a 24-bit significand: m on the
 *               2^-15 grid, alpha on 2^-15 (|pB_i| < 440 < 2^9: 9 + 15 = 24
 *               bits), velocities and w, mu, eta on 2^-17 (|vB_i| < 127 2^17
 *               units: 7 + 17 = 24 bits), the tangent's translation on 2^-15
 *               with |P| < 16. pA = -sigma m 2^-k n has at most 20 bits (m n_i
 *               < 2^15 21 < 2^20), so it is a float while its last bit 2^(-15-k)
 *               is at least the smallest subnormal 2^-149: k <= 134, the limit
 *               for these families. Default --k 1:31 (seven past p = 24, as
 *               binary64's 1:60 is seven past 53). The tangent's moves are k
 *               float ulps (default 0:16).
 *   far         the aimed configuration (floats, |p| < 2^7) on the 2^-8 grid, the
 *               offset 10^e u rounded to a float and, below 2^16, to the 2^-8 grid;
 *               pA + O, pB + O rounded in float arithmetic. Exact (class kept)
 *               while 10^e + 2^7 < 2^16, i.e. up to e = 4. --e default 0:8, range
 *               -38:38 (10^38 < FLT_MAX).
 *   scale       float lengths (< 2^7) times 2^e and speeds (< 2^3) times 2^f,
 *               each rounded to a float (exact unless below 2^-126): --e default
 *               -140:120:10, --f default -140:120, both within -170:120 (2^127 <
 *               FLT_MAX); t* from below the float subnormals to overflow.
 *   slow        float velocities times 2^-k, rounded to a float; --k default
 *               10:31, at most 134.
 *   mixed       the same slots, each sub-family with its binary32 defaults.
 * Masses are the binary64 draws rounded to float. Case i of binary32 draws from
 * its own stream (the precision is part of the stream number).
 *
 * Determinism: case i draws from toi_rng_seed_item(seed, family, i) only, uses
 * IEEE basic operations (+ - * / sqrt), scalbn, and no other libm function, so
 * the same seed and options give the same bits on every machine and whatever
 * thread or shard generates it. Powers of ten come from a table of exact
 * double constants.
 */

typedef enum toi_gen_family {
  TOI_GEN_GENERIC = 0,
  TOI_GEN_AIMED,
  TOI_GEN_GRAZING,
  TOI_GEN_NEAR_CONTACT,
  TOI_GEN_FAR,
  TOI_GEN_SCALE,
  TOI_GEN_SLOW,
  TOI_GEN_TANGENT,
  TOI_GEN_MIXED,
  TOI_GEN_FAMILY_COUNT
} toi_gen_family;

typedef enum toi_gen_sampling {
  TOI_GEN_SAMPLE_REAL = 0,  ///< uniform over the reals of a range
  TOI_GEN_SAMPLE_BITS = 1   ///< uniform over the doubles of a range
} toi_gen_sampling;

/// An integer range lo:hi:step (step >= 1), as given to --k, --e and --f.
typedef struct toi_gen_range {
  int lo, hi, step;
} toi_gen_range;

typedef struct toi_gen_opts {
  toi_gen_family family;
  uint64_t seed;
  int dim;               ///< 2, 3, or 0 for "any" (2 or 3 per case)
  toi_gen_sampling sampling; ///< generic only
  toi_gen_range k;           ///< grazing, near-contact, slow, tangent
  toi_gen_range e;           ///< far, scale
  toi_gen_range f;           ///< scale: velocity exponents (drawn per case)
  double pos, vel;       ///< generic, aimed: coordinate and velocity bounds
  double rlo, rhi;       ///< generic, aimed: radius range
  double blo, bhi;       ///< aimed: impact parameter range in units of R
  toi_precision precision; ///< every number a value of this format (binary64 or binary32)
} toi_gen_opts;

/// Name of a family ("near-contact"), or NULL.
TOI_API const char *toi_gen_family_name(toi_gen_family f);
/// The family named name ("near-contact") into *out: TOI_OK, or
/// TOI_ERR_RANGE for NULL or an unknown name (*out untouched). Thread-safe.
TOI_API TOI_MUST_USE toi_status toi_gen_family_parse(toi_gen_family *out, const char *name);
/// Fills o with the documented defaults of family f (seed 1), binary64.
TOI_API void toi_gen_opts_default(toi_gen_opts *o, toi_gen_family f);
/// Fills o with the documented defaults of family f in precision q (its k, e
/// and f ranges differ for binary32; see above).
TOI_API void toi_gen_opts_default_in(toi_gen_opts *o, toi_gen_family f, toi_precision q);
/// Checks the options (ranges in order and within the limits the families
/// support): TOI_OK, or TOI_ERR_RANGE with the reason (naming the option, as
/// "--k LO:HI:STEP: need ...") said to msg.
TOI_API TOI_MUST_USE toi_status toi_gen_opts_check(const toi_gen_opts *o, const toi_msg *msg);

/// Number of result bins of the family: one per k or e value, one per
/// sub-family for mixed, else one.
TOI_API size_t toi_gen_bin_count(const toi_gen_opts *o);
/// Bin b as a parameter name and value ("k" 17, "e" -50, "family" 2 for
/// mixed, "all" 0) and a label ("k=17", "grazing", "all").
TOI_API void toi_gen_bin_describe(const toi_gen_opts *o, size_t b, const char **param, int *value, char *label,
                      size_t labelsz);

/// Canonical one-line description of the options that matter for the family,
/// e.g. "family=grazing seed=1 dim=2 k=1:60:1" (identical options give
/// identical text; " precision=binary32" follows dim unless the precision is
/// binary64); returns the snprintf length (the text's, even when bufsz cut
/// it). Cannot fail.
TOI_API int toi_gen_opts_format(char *buf, size_t bufsz, const toi_gen_opts *o);

/// The inputs a perturbation may move: the position and velocity components
/// in use, then the two radii. gen_case_input_count(c) of them; input k
/// (0-based) of c.
static inline int gen_case_input_count(const toi_case *c) { return 4 * c->dim + 2; }
static inline double *gen_case_input(toi_case *c, int k) {
  if (k < 4 * c->dim) {
    double *vecs[4] = {c->pa, c->va, c->pb, c->vb};
    return &vecs[k / c->dim][k % c->dim];
  }
  return k == 4 * c->dim ? &c->ra : &c->rb;
}

/// Generates case number index. *bin receives its result bin. When base is
/// not NULL it receives the configuration before the family's final
/// transformation (far: before the translation, scale: before the scaling,
/// tangent: before the ulp moves; otherwise the case itself).
TOI_API TOI_MUST_USE toi_status toi_gen_case(toi_case *out, toi_case *base, size_t *bin, const toi_gen_opts *o,
                                 uint64_t index);
/// Cases lo .. lo + n - 1 into out[0..n-1] and their bins into bins, exactly
/// as toi_gen_case gives them one by one, the options checked once; with ids 0,
/// every ID is left empty (a caller that names few cases writes their IDs
/// later, by toi_gen_case). TOI_ERR_RANGE (nothing written) when toi_gen_case would
/// refuse them.
TOI_API TOI_MUST_USE toi_status toi_gen_cases(toi_case *out, size_t *bins, const toi_gen_opts *o, uint64_t lo, size_t n, int ids);

#endif
