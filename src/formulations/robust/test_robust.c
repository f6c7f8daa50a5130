/* test_robust.c: robust, one of the bench's own kernels, on the exact cases (tests/formulations/test_kernels.c checks it further). */
#include <math.h>
#include "formulation_check.h"

static const fc_row rows[] = {FC_EXACT_KERNEL_ROWS};

Test(robust, exact_constructions) { fc_check_exact("robust", rows, sizeof rows / sizeof rows[0]); }
