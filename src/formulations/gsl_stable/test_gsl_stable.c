/* test_gsl_stable.c: gsl-stable (GSL's stable quadratic) on the exact cases, and its quirks. */
#include <math.h>
#include "formulation_check.h"

/* It names every class: 5, 6 overlapping now (reported at t = 0); 7, 8
   separating; 9 static; 10 the exact graze. */
static const fc_row rows[] = {
    FC_HITS_0_TO_4,
    {5, TOI_OVERLAP, 0, 0},
    {6, TOI_OVERLAP, 0, 0},
    {7, TOI_SEPARATING, NAN, 0},
    {8, TOI_SEPARATING, NAN, 0},
    {9, TOI_STATIC, NAN, 0},
    {10, TOI_GRAZE, 10, 0},
    FC_HIT(11, 0),
    FC_FIG7,
};

Test(gsl_stable, exact_constructions) { fc_check_exact("gsl-stable", rows, sizeof rows / sizeof rows[0]); }

/* Apart and passing at the closest point now, s = (0,5), v = (1,0), R = 2:
   B = 2 v.s = 0 with C = 21 > 0. GSL's "B >= 0: separating" names the class
   the reference gives; with "B > 0" the code would go on to D = -4AC < 0, a
   miss. */
Test(gsl_stable, calls_a_closest_approach_now_separating) {
  const toi_case c = C2("closest-now", 0, 0, 0, 0, 1, 0, 5, 1, 0, 1);
  toi_result r = fc_solve("gsl-stable", &c);
  cr_assert(r.cls == TOI_SEPARATING && isnan(r.t), "gsl-stable: %s %a", toi_class_name(r.cls), r.t);
  toi_ref ref;
  cr_assert_eq(tr_solve(&ref, &c), TOI_OK);
  cr_assert_eq(ref.cls, TOI_SEPARATING, "reference: %s", toi_class_name(ref.cls));
}
