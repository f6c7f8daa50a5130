/* test_overlap_recovery.c: overlap-recovery on the exact cases, and its linear fallback. */
#include <math.h>
#include "formulation_check.h"

/* It looks only at overlapping balls, and goes back to their entry: 5 entered
   4 time units ago, 6 half a unit ago. 11: touching is not overlapping
   (distance 2 is not < 2). */
static const fc_row rows[] = {
    FC_NONE_0_TO_4, {5, TOI_OVERLAP, -4, 0}, {6, TOI_OVERLAP, -0.5, 0}, FC_NONE(7), FC_NONE(8), FC_NONE(9),
    FC_NONE(10),    FC_NONE(11),             FC_NONE_FIG7,
};

Test(overlap_recovery, exact_constructions) {
  fc_check_exact("overlap-recovery", rows, sizeof rows / sizeof rows[0]);
}

Test(overlap_recovery, linear_fallback) {
  /* Overlapping, s = (1,0), R = 2, v = (2^-14,0): a = 2^-28, b = -2 2^-14,
     c = -3, |c/a| > 1e7: the linear root -c/b = -3 / 2^-13 < 0 is not >= 0,
     so `|| 0` gives 0: "overlap at t = 0". The true entry was at -3 2^14. */
  const toi_case c = C2("slow-overlap", 0, 0, 0, 0, 1, 1, 0, 0x1p-14, 0, 1);
  toi_result r = fc_solve("overlap-recovery", &c);
  cr_assert_eq(r.cls, TOI_OVERLAP);
  cr_assert_eq(r.t, 0.0);
  cr_assert(!signbit(r.t), "t = +0");
}
