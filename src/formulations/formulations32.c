/* formulations32.c: the shared helpers' binary32 variant, compiled from the same generic source as binary64. */

/*
 * The helpers phet and phet-reverse share (phet_roots.c, phet_detect.c) in
 * binary32: included here with TOI_REAL_BITS 32 they compute in float and
 * define toi_phet_quadratic_roots32 and toi_phet_detect32. Each formulation's
 * own variant is NAME/NAME32.c, which includes NAME/NAME.c the same way.
 */
#define TOI_REAL_BITS 32

#include "formulations.h"

#include "phet_roots.c"
#include "phet_detect.c"
