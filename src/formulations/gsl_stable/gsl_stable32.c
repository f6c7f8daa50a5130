/* gsl_stable32.c: gsl-stable in binary32: gsl_stable.c compiled again with real = float (real.h). */
#define TOI_REAL_BITS 32
#include "formulations.h"

#include "gsl_stable.c"
