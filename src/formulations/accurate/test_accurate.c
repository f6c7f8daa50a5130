/* test_accurate.c: accurate, one of the bench's own kernels, on the exact cases (tests/formulations/test_kernels.c checks it further). */
#include <math.h>
#include "formulation_check.h"

static const fc_row rows[] = {FC_EXACT_KERNEL_ROWS};

Test(accurate, exact_constructions) { fc_check_exact("accurate", rows, sizeof rows / sizeof rows[0]); }
