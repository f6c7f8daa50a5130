/* test_phet.c: phet (PhET's collision code) on the exact cases, and its quirks. */
#include <math.h>
#include "formulation_check.h"

/* 5, 6: the lower root is in the past: none. 7, 8: both roots in the past. */
static const fc_row rows[] = {
    FC_HITS_0_TO_4, FC_NONE(5), FC_NONE(6), FC_NONE(7), FC_NONE(8), FC_NONE(9), FC_HIT(10, 10), FC_HIT(11, 0),
    FC_FIG7,
};

Test(phet, exact_constructions) { fc_check_exact("phet", rows, sizeof rows / sizeof rows[0]); }

Test(phet, clamps_a_tiny_gap_to_contact_now) {
  /* s = (2 + 2^-40, 0), R = 2, v = (-1,0): the true contact is at t = 2^-40.
     |s|^2 rounds to 4 + 2^-38, so c = 2^-38 < 1e-10 is clamped to 0; then
     b = -(4 + 2^-39), b*b rounds to 16 + 2^-36 whose root rounds back to |b|,
     and the roots are exactly 0 and 4 + 2^-39: PhET answers t = 0. */
  const toi_case c = C2("tiny-gap", 0, 0, 0, 0, 1, 2 + 0x1p-40, 0, -1, 0, 1);
  toi_result r = fc_solve("phet", &c);
  cr_assert_eq(r.cls, TOI_HIT);
  cr_assert_eq(r.t, 0.0, "t = %a", r.t);
  /* The stable form keeps the gap: its C = 2^-38 lost only the 2^-80 of the
     true c, a relative 2^-42, so t is 2^-40 to within that. */
  r = fc_solve("gsl-stable", &c);
  cr_assert_eq(r.cls, TOI_HIT);
  cr_assert(fabs(r.t - 0x1p-40) <= 0x1p-80, "the stable form finds ~2^-40, got %a", r.t);
}

Test(phet, calls_a_slow_approach_parallel) {
  /* Touching now (c = 0 exactly) and approaching: dv.dr = -2^-39 ~ -1.8e-12,
     below the 1e-11 'effectively parallel' threshold, so no collision. */
  const toi_case c = C2("parallel", 0, 0, 0, 0, 1, 2, 0, -0x1p-40, 1, 1);
  toi_result r = fc_solve("phet", &c);
  cr_assert_eq(r.cls, TOI_NONE);
  r = fc_solve("expanded", &c);
  cr_assert_eq(r.cls, TOI_HIT);
  cr_assert_eq(r.t, 0.0);
}

Test(phet, falls_back_to_the_linear_root) {
  /* s = (10,0), v = (-2^-14,0), R = 1: a = 2^-28, b = -20 2^-14, c = 99, and
     |c/a| = 99 2^28 > 1e7: PhET returns -c/b = 99 2^14 / 20 = 81100.8,
     where the balls meet at (10 - 1) 2^14 = 147456. */
  const toi_case c = C2("linear", 0, 0, 0, 0, 0.5, 10, 0, -0x1p-14, 0, 0.5);
  toi_result r = fc_solve("phet", &c);
  cr_assert_eq(r.cls, TOI_HIT);
  cr_assert_eq(r.t, 81100.8, "t = %a", r.t);
  r = fc_solve("phet-reverse", &c);
  cr_assert_eq(r.cls, TOI_NONE, "reversed, the linear root is -81100.8 < 0");
  r = fc_solve("gsl-stable", &c);
  cr_assert_eq(r.t, 147456.0);
  r = fc_solve("expanded", &c);
  cr_assert_eq(r.t, 147456.0, "the textbook form is exact here (dyadic data)");
}
