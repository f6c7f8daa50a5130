/* robust.fpcore.c: why robust has no FPCore expression (fpcore.h). */
#include "fpcore_kit.h"

const toi_fpcore_entry toi_f_robust_fpcore = {
    NULL,
    "scales its inputs by data-dependent powers of two and computes compensated terms "
    "(TwoSum, FMA TwoProd, Kahan's determinant): an FPCore of its math would be the plain formula, "
    "not what it computes"};
