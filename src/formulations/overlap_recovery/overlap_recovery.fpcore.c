/* overlap_recovery.fpcore.c: why overlap-recovery has no FPCore expression (fpcore.h). */
#include "fpcore_kit.h"

const toi_fpcore_entry toi_f_overlap_recovery_fpcore = {
    NULL,
    "a reverse formulation answering overlaps only, not a forward time of impact"};
