/* expanded_corner32.c: expanded-corner in binary32: expanded_corner.c compiled again with real = float (real.h). */
#define TOI_REAL_BITS 32
#include "formulations.h"

#include "expanded_corner.c"
