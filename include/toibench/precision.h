/* precision.h: the floating-point formats a candidate computes in, described by their parameters. */
#ifndef TOI_PRECISION_H
#define TOI_PRECISION_H

#include "toi_api.h"


/// A binary interchange format. Adding one (binary16, binary128) is an entry
/// in the table of src/core/precision.c and tests, not a rewrite.
typedef enum toi_precision {
  TOI_BINARY64 = 0, ///< double: the default, every figure before precisions existed
  TOI_BINARY32 = 1, ///< float: most engines (Box2D, Jolt, PhysX, rapier, Bullet's default build)
  TOI_PRECISION_COUNT
} toi_precision;

/// A format's parameters: p significand bits (the hidden one included), and
/// the exponent range: normal numbers are 2^emin <= |x| < 2^(emax+1).
/// ulp(x) = 2^(max(e, emin) - p + 1) for 2^e <= |x| < 2^(e+1).
typedef struct toi_precision_info {
  const char *name; ///< "binary64", "binary32"
  int p;            ///< 53, 24
  int emin;         ///< -1022, -126
  int emax;         ///< 1023, 127
} toi_precision_info;

/// The parameters of precision q; NULL for an unknown value.
TOI_API const toi_precision_info *toi_precision_get(toi_precision q);
/// The name of q ("binary64"), or NULL.
TOI_API const char *toi_precision_name(toi_precision q);
/// The precision named name ("binary64", "binary32") into *out: TOI_OK, or
/// TOI_ERR_RANGE for NULL or an unknown name (*out untouched). Thread-safe.
TOI_API TOI_MUST_USE toi_status toi_precision_parse(toi_precision *out, const char *name);

/// x rounded to the nearest value of q (ties to even), overflowing to +-inf
/// beyond the largest finite value, into q's subnormals below 2^emin. Exact
/// for binary64 (x itself). For binary32 this is (double)(float)x, a single
/// rounding of the double x.
TOI_API double toi_round_to(double x, toi_precision q);
/// 1 when x is a value of q (finite or not), 0 otherwise.
TOI_API int toi_is_value_of(double x, toi_precision q);

/// What rounding a case to a precision did to it: a value, not an error (a
/// case beyond a precision's range is out of the domain of a candidate
/// computing in it). The values are those the functions returned as int
/// before 0.2.0.
typedef enum toi_round_state {
  TOI_ROUND_OVERFLOW = -1, ///< a number overflowed q, or a mass > 0 rounded to 0: not a case of q
  TOI_ROUND_SAME = 0,      ///< every number is a value of q already
  TOI_ROUND_CHANGED = 1    ///< some number changed by rounding
} toi_round_state;

/// A case with every number (positions, velocities, radii, masses) rounded
/// to q, as a candidate computing in q receives it. TOI_ROUND_OVERFLOW when
/// a number overflowed to an infinity or a mass > 0 rounded to 0 (format v1
/// wants masses > 0): the case is beyond q's range, not a case of q; out is
/// then unspecified. Cannot fail.
struct toi_case;
TOI_API toi_round_state toi_case_round(struct toi_case *out, const struct toi_case *in, toi_precision q);

#endif
