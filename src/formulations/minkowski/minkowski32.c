/* minkowski32.c: minkowski in binary32: minkowski.c compiled again with real = float (real.h). */
#define TOI_REAL_BITS 32
#include "formulations.h"

#include "minkowski.c"
