/* ericson32.c: ericson in binary32: ericson.c compiled again with real = float (real.h). */
#define TOI_REAL_BITS 32
#include "formulations.h"

#include "ericson.c"
