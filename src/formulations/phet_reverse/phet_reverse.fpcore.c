/* phet_reverse.fpcore.c: why phet-reverse has no FPCore expression (fpcore.h). */
#include "fpcore_kit.h"

const toi_fpcore_entry toi_f_phet_reverse_fpcore = {
    NULL,
    "a reverse formulation (largest root <= 0), not a forward time of impact"};
