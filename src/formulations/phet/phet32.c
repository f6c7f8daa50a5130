/* phet32.c: phet in binary32: phet.c compiled again with real = float (real.h). */
#define TOI_REAL_BITS 32
#include "formulations.h"

#include "phet.c"
