/* test_ericson.c: ericson (Ericson's book, section 5.5.8) on the exact cases, and its quirks. */
#include <math.h>
#include "formulation_check.h"

/* 5, 6: c < 0, already overlapping: the overlap reported at t = 0. 7, 8: b >=
   0, not moving towards each other. 9: a < 1e-12, not moving. */
static const fc_row rows[] = {
    FC_HITS_0_TO_4, {5, TOI_OVERLAP, 0, 0}, {6, TOI_OVERLAP, 0, 0}, FC_NONE(7), FC_NONE(8), FC_NONE(9),
    FC_HIT(10, 10), FC_HIT(11, 0),          FC_FIG7,
};

Test(ericson, exact_constructions) { fc_check_exact("ericson", rows, sizeof rows / sizeof rows[0]); }

Test(ericson, epsilon_is_absolute) {
  /* s = (10,0), R = 2, speed 2^-21: a = 2^-42 < 1e-12, so "not moving", while
     the balls do meet at t = 8 2^21. */
  const toi_case slow = C2("slow", 0, 0, 0, 0, 1, 10, 0, -0x1p-21, 0, 1);
  toi_result r = fc_solve("ericson", &slow);
  cr_assert_eq(r.cls, TOI_NONE);
  r = fc_solve("gsl-stable", &slow);
  cr_assert_eq(r.cls, TOI_HIT);
  cr_assert_eq(r.t, 0x1p24);
  /* Speed 2^-19: a = 2^-38 > 1e-12, and b = -10 2^-19, d = 4 2^-38 give
     t = (10 - 2) 2^-19 / 2^-38 = 8 2^19 exactly. */
  const toi_case faster = C2("faster", 0, 0, 0, 0, 1, 10, 0, -0x1p-19, 0, 1);
  r = fc_solve("ericson", &faster);
  cr_assert_eq(r.cls, TOI_HIT);
  cr_assert_eq(r.t, 0x1p22);
}

/* Touching balls moving tangentially, s = (2,0), v = (0,1), R = 2: c = 0
   (not an overlap), b = v.s = 0, so the book's "b >= 0: not moving towards
   each other" returns no contact; with b > 0 instead, d = 0 and the code
   would report a hit at t = 0. The exact answer agrees: |s + v t|^2 = 4 + t^2
   touches R^2 only at t = 0, a graze that the balls leave at once. */
Test(ericson, touching_and_tangential_is_no_contact) {
  const toi_case c = C2("tangent", 0, 0, 0, 0, 1, 2, 0, 0, 1, 1);
  toi_result r = fc_solve("ericson", &c);
  cr_assert(r.cls == TOI_NONE && isnan(r.t), "ericson: %s %a", toi_class_name(r.cls), r.t);
  /* The same along y, with both balls moving (v = vB - vA = (1, 0)). */
  const toi_case y = C2("tangent-y", 1, 1, 0.5, 0.5, 1, 1, 3, 1.5, 0.5, 1);
  r = fc_solve("ericson", &y);
  cr_assert(r.cls == TOI_NONE && isnan(r.t), "ericson: %s %a", toi_class_name(r.cls), r.t);
  toi_ref ref;
  cr_assert_eq(tr_solve(&ref, &c), TOI_OK);
  cr_assert(toi_class_group(ref.cls) != TOI_G_CONTACT || ref.tfwd == 0, "reference: %s", toi_class_name(ref.cls));
}
