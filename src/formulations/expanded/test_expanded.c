/* test_expanded.c: expanded (document 000's textbook quadratic) on the exact cases. */
#include "formulation_check.h"

/* The textbook form: the lower root of the expanded quadratic when it is >= 0.
   5, 6: in an overlap the lower root is in the past: none. 7, 8: both roots
   in the past. 9: a = 0, no motion. 10: the double root of an exact graze. */
static const fc_row rows[] = {
    FC_HITS_0_TO_4, FC_NONE(5), FC_NONE(6), FC_NONE(7), FC_NONE(8), FC_NONE(9), FC_HIT(10, 10), FC_HIT(11, 0),
    FC_FIG7,
};

Test(expanded, exact_constructions) { fc_check_exact("expanded", rows, sizeof rows / sizeof rows[0]); }
