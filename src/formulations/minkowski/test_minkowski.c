/* test_minkowski.c: minkowski (document 001's segment against the inflated circle) on the exact cases, and its quirks. */
#include <math.h>
#include "formulation_check.h"

/* 5, 6: 001's [t-, t+] ([-4, 1], [-0.5, 3.5]) meets the window [0, 1]: p is
   inside the circle, a collision at 0. 7, 8: [t-, t+] in the past. 9: 0/0 ends
   in NaN, hence none. */
static const fc_row rows[] = {
    FC_HITS_0_TO_4, {5, TOI_OVERLAP, 0, 0}, {6, TOI_OVERLAP, 0, 0}, FC_NONE(7), FC_NONE(8), FC_NONE(9),
    FC_HIT(10, 10), FC_HIT(11, 0),          FC_FIG7,
};

Test(minkowski, exact_constructions) { fc_check_exact("minkowski", rows, sizeof rows / sizeof rows[0]); }

/* 001: "The original line segment intersects the circle if the interval
   [t-, t+] intersects the interval [0,1]", [0, 1] being the bench's window
   (unbounded unless --tmax). World coordinates with small integers, so every
   root is exact: pA = (2,3), R = 2, B on the line y = 3. */
Test(minkowski, start_inside_the_inflated_circle_is_a_collision_at_0) {
  static const struct {
    double pbx, vbx;
    int cls;
    double t;
  } rows[] = {
      {3, 1, TOI_OVERLAP, 0},  /* inside, leaving: (1 + t)^2 = 4, [t-, t+] = [-3, 1] */
      {3, -1, TOI_OVERLAP, 0}, /* inside, approaching: [-1, 3] */
      {4, 1, TOI_OVERLAP, 0},  /* on the circle, leaving: [-4, 0] meets [0, 1] at 0 */
      {4, -1, TOI_HIT, 0},     /* on the circle, approaching: t- = 0, the usual case */
      {6, -1, TOI_HIT, 2},     /* outside: [2, 6], "0 <= t-" */
      {6, 1, TOI_NONE, NAN},   /* outside, leaving: [-6, -2] misses [0, 1] */
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    const toi_case c = tc_case2(2, 3, 0, 0, 1, 1, rows[i].pbx, 3, rows[i].vbx, 0, 1, 1);
    const toi_formulation *f = fc_find("minkowski");
    for (int q = 0; q < 2; q++) {
      toi_result r = q ? f->solve32(&c) : f->solve(&c);
      cr_assert_eq(r.cls, rows[i].cls, "row %zu binary%d: %s, expected %s", i, q ? 32 : 64, toi_class_name(r.cls),
                   toi_class_name((toi_class)rows[i].cls));
      cr_assert(isnan(rows[i].t) ? isnan(r.t) : r.t == rows[i].t && !signbit(r.t), "row %zu binary%d: t = %a", i,
                q ? 32 : 64, r.t);
    }
  }
}

Test(minkowski, world_coordinates_are_not_translation_invariant) {
  /* Case 2 moved by (2^30, 2^30): differences stay exact, so expanded still
     gives t = 2 exactly, but minkowski's c = p.p + q.q - 2 p.q - r^2 sums
     terms near 2^61 (spacing 2^9) to get 200, and loses it. */
  toi_case c = fc_exact[2];
  for (int i = 0; i < 2; i++) {
    c.pa[i] += 0x1p30;
    c.pb[i] += 0x1p30;
  }
  toi_result r = fc_solve("expanded", &c);
  cr_assert_eq(r.t, 2.0);
  r = fc_solve("minkowski", &c);
  cr_assert(!(r.cls == TOI_HIT && r.t == 2.0), "minkowski t = %a", r.t);
}
