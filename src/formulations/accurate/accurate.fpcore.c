/* accurate.fpcore.c: why accurate has no FPCore expression (fpcore.h). */
#include "fpcore_kit.h"

const toi_fpcore_entry toi_f_accurate_fpcore = {
    NULL,
    "decides signs exactly with double-double filters and Shewchuk expansions (arbitrary length): "
    "not a fixed expression"};
