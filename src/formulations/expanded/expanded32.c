/* expanded32.c: expanded in binary32: expanded.c compiled again with real = float (real.h). */
#define TOI_REAL_BITS 32
#include "formulations.h"

#include "expanded.c"
