/* test_expanded_corner.c: expanded-corner on the exact cases, and its quirks. */
#include <math.h>
#include "formulation_check.h"

/* 5: the entry root -4 is below -1 and dropped: none. 6: the overlap entered
   half a time unit ago, t = -0.5 >= -1 is kept (a contact within the last
   frame). 10: 003's zero discriminant (no energy transfer) misses the graze. */
static const fc_row rows[] = {
    FC_HITS_0_TO_4, FC_NONE(5), FC_HIT(6, -0.5), FC_NONE(7), FC_NONE(8), FC_NONE(9), FC_NONE(10), FC_HIT(11, 0),
    FC_FIG7,
};

Test(expanded_corner, exact_constructions) {
  fc_check_exact("expanded-corner", rows, sizeof rows / sizeof rows[0]);
}

Test(expanded_corner, keeps_times_down_to_minus_one) {
  /* s = (1,0), v = (-1,0), R = 2: roots -1 and 3; -1 is not below -1. */
  const toi_case c = C2("minus-one", 0, 0, 0, 0, 1, 1, 0, -1, 0, 1);
  toi_result r = fc_solve("expanded-corner", &c);
  cr_assert_eq(r.cls, TOI_HIT);
  cr_assert_eq(r.t, -1.0);
  /* s = (3,0), v = (1,0): roots -5 and -1; the lower one, -5, is dropped. */
  const toi_case d = C2("minus-five", 0, 0, 0, 0, 1, 3, 0, 1, 0, 1);
  r = fc_solve("expanded-corner", &d);
  cr_assert_eq(r.cls, TOI_NONE);
  cr_assert(isnan(r.t));
}

Test(expanded_corner, divides_by_an_underflowed_n) {
  /* v_ab = (2^-540, 0): n = 2^-1080 underflows to +0, but m = 2 (-10 2^-540)
     = -2.5 2^-537 does not. m*m = 6.25 2^-1074 rounds to the subnormal
     6 2^-1074, its root is 2.449 2^-537 < |m|, so -sqrt(disc) - m > 0 and the
     unguarded division gives +Inf, not below -1: a hit at +Inf. (The true
     contact time is 8 2^540.) */
  const toi_case c = C2("tiny-v", 0, 0, 0, 0, 1, 10, 0, -0x1p-540, 0, 1);
  toi_result r = fc_solve("expanded-corner", &c);
  cr_assert_eq(r.cls, TOI_HIT);
  cr_assert(isinf(r.t) && r.t > 0, "t = %a", r.t);
}

Test(expanded_corner, is_exact_in_3d_with_unequal_radii) {
  /* Case 4 has rA - rB = -2: the 3D constant needs 2 (rA - rB)^2, and only
     then is the contact at exactly t = 1. */
  toi_result r = fc_solve("expanded-corner", &fc_exact[4]);
  cr_assert_eq(r.cls, TOI_HIT);
  cr_assert_eq(r.t, 1.0);
}
