/* robust32.c: robust in binary32: robust.c compiled again with real = float (real.h). */
#define TOI_REAL_BITS 32
#include "formulations.h"

#include "robust.c"
