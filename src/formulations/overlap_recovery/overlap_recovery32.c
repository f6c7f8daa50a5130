/* overlap_recovery32.c: overlap-recovery in binary32: overlap_recovery.c compiled again with real = float (real.h). */
#define TOI_REAL_BITS 32
#include "formulations.h"

#include "overlap_recovery.c"
