/* test_phet_reverse.c: phet-reverse (PhET's code on time-reversed motion) on the exact cases, and against phet. */
#include <math.h>
#include <string.h>
#include "formulation_check.h"

/* Time runs backwards: no past contact in 0-4 and 12-14, nor in the overlaps
   5 and 6 (the lowest reversed root, -1 in 5, is below 0). 7: both roots in
   the past, the upper root -4 is the contact. 8: case 2 five units later, the
   upper root 4 - 5 = -1, where phet on case 2 gave the lower root 2: the pair
   gives both roots. */
static const fc_row rows[] = {
    FC_NONE_0_TO_4, FC_NONE(5), FC_NONE(6), FC_HIT(7, -4), FC_HIT(8, -1), FC_NONE(9), FC_NONE(10), FC_NONE(11),
    FC_NONE_FIG7,
};

Test(phet_reverse, exact_constructions) { fc_check_exact("phet-reverse", rows, sizeof rows / sizeof rows[0]); }

/* phet-reverse is phet on the time-reversed motion: the same rounding, with
   the sign of the answer flipped. Swapping the balls changes nothing either. */
Test(phet_reverse, mirrors_phet) {
  test_rng rng = {fc_seed()};
  const toi_formulation *fwd = fc_find("phet"), *rev = fc_find("phet-reverse");
  const long n = 500 * te_scale();
  for (long k = 0; k < n; k++) {
    toi_case c;
    fc_hit_case(&rng, &c, 2 + (int)(k & 1));
    toi_case back = fc_negate_velocities(&c);
    toi_result a = fwd->solve(&c), b = rev->solve(&back);
    cr_assert_eq(a.cls, b.cls, "case %ld (seed %#llx)", k, (unsigned long long)fc_seed());
    if (a.cls != TOI_NONE)
      cr_assert(b.t == -a.t, "case %ld (seed %#llx): %a vs %a", k, (unsigned long long)fc_seed(), a.t, b.t);
    toi_case sw = c;
    memcpy(sw.pa, c.pb, sizeof sw.pa);
    memcpy(sw.pb, c.pa, sizeof sw.pb);
    memcpy(sw.va, c.vb, sizeof sw.va);
    memcpy(sw.vb, c.va, sizeof sw.vb);
    sw.ra = c.rb;
    sw.rb = c.ra;
    toi_result s = fwd->solve(&sw);
    cr_assert(s.cls == a.cls && (isnan(a.t) ? isnan(s.t) : s.t == a.t), "case %ld (seed %#llx): swap", k,
              (unsigned long long)fc_seed());
  }
}
