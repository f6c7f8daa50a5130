/* accurate.h: the accurate kernel with a record of the path it took, for tests and statistics (private). */
#ifndef TOI_ACCURATE_H
#define TOI_ACCURATE_H

#include "toi.h"

/// Bits of toi_accurate_info.path.
enum {
  TOI_ACC_SCALED = 1u,  ///< a group of inputs was scaled by a power of two
  TOI_ACC_WIDE = 2u,    ///< inputs too spread out for doubles: big numbers throughout
  TOI_ACC_EXACT_C = 4u, ///< the filter could not settle c (sign or accuracy): expansions (on either path)
  TOI_ACC_EXACT_B = 8u, ///< same for b
  TOI_ACC_EXACT_D = 16u,///< same for D
  TOI_ACC_BIG = 32u,    ///< an expansion outgrew its buffer: big numbers instead
  TOI_ACC_SLOW = 64u,   ///< the common path could not answer unscaled (any of the above may follow)
  TOI_ACC_INT_D = 128u, ///< D's sign (zero or negative) in 128- and 256-bit integers, no expansions
  TOI_ACC_INT_C = 256u  ///< c (sign or value) in 128-bit integers, no expansions
};

/// What the accurate kernel did on one case. The fast estimates are those
/// of the scaled problem (lengths times 2^kp, velocities times 2^kv), so
/// the true c is c_est 2^(-2 kp), b is b_est 2^(-kp-kv), D is
/// d_est 2^(-2 kp - 2 kv); *_err are the proven bounds on |estimate - value|.
/// An estimate that was not computed is NaN.
typedef struct toi_accurate_info {
  unsigned path;
  int kp, kv;
  double c_est[2], c_err;
  double b_est[2], b_err;
  double d_est[2], d_err;
} toi_accurate_info;

/// toi_f_accurate, also filling *info (info may be NULL).
toi_result toi_accurate_explain(const toi_case *c, toi_accurate_info *info);

#endif
