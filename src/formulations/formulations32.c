/* formulations32.c: every formulation's binary32 variant, compiled from the same generic source as binary64. */

/*
 * Each f_NAME.c is written with the type real (real.h): included here with
 * TOI_REAL_BITS 32, its formula computes in float and defines toi_f_NAME32,
 * registered beside toi_f_NAME (registry.c). A variant reads the case's
 * numbers as floats (a case rounded to binary32 holds floats, so exactly),
 * computes every operation in float, and returns its float time as a
 * double. `accurate` is not generic: its binary32 variant is f_accurate32.c.
 */
#define TOI_REAL_BITS 32

#include "formulations.h"

#include "phet_roots.c"
#include "phet_detect.c"
#include "f_expanded.c"
#include "f_expanded_corner.c"
#include "f_inner_product.c"
#include "f_ericson.c"
#include "f_minkowski.c"
#include "f_phet.c"
#include "f_phet_reverse.c"
#include "f_overlap_recovery.c"
#include "f_gsl_stable.c"
#include "f_robust.c"
