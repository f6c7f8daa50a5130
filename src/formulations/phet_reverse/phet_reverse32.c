/* phet_reverse32.c: phet-reverse in binary32: phet_reverse.c compiled again with real = float (real.h). */
#define TOI_REAL_BITS 32
#include "formulations.h"

#include "phet_reverse.c"
