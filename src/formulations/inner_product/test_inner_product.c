/* test_inner_product.c: inner-product (document 000) on the exact cases, and its quirks. */
#include <math.h>
#include "formulation_check.h"

/* 5, 6: the lower root is in the past: none. 10: rad = 0 exactly is "no
   collision" in 000 (Delta <= 0). 11: t = 0 is not "t_c positive". 12-14
   (figure 7): rad = p^2/q^2 + (R^2 - s.s)/q ~ 0.01 carries two roundings of
   ~0.6 (2^-54 each), the square root divides that by 2 sqrt(rad) = 0.2, and
   p/q and the last subtraction add 2^-54 each: at most ~6.1 ULP of t. */
static const fc_row rows[] = {
    FC_HITS_0_TO_4,      FC_NONE(5),          FC_NONE(6),          FC_NONE(7),  FC_NONE(8), FC_NONE(9),
    FC_NONE(10),         FC_NONE(11),         {12, TOI_HIT, 0.9, 8}, {13, TOI_HIT, 0.7, 8}, {14, TOI_HIT, 0.5, 8},
};

Test(inner_product, exact_constructions) { fc_check_exact("inner-product", rows, sizeof rows / sizeof rows[0]); }

Test(inner_product, misses_an_exact_graze_and_a_contact_now) {
  toi_result r = fc_solve("inner-product", &fc_exact[10]);
  cr_assert_eq(r.cls, TOI_NONE, "rad = 0 exactly is 'no collision' in 000");
  r = fc_solve("inner-product", &fc_exact[11]);
  cr_assert_eq(r.cls, TOI_NONE, "t = 0 is not positive");
}

/* An exact graze built from a 3-4-5 triangle: B starts at s = lam (3,4) +
   Rp (4,-3) from A and moves by v = (-3,-4), so its path passes at distance
   |Rp (4,-3)| = 5 Rp = R from A's centre: D = 0 exactly, the double root at
   t = lam. lam and Rp are dyadic with few bits, so every number is exact. */
static toi_case exact_graze(double lam, double Rp) {
  toi_case c = tc_case2(0, 0, 0, 0, 2.5 * Rp, 1, 3 * lam + 4 * Rp, 4 * lam - 3 * Rp, -3, -4, 2.5 * Rp, 1);
  cr_assert(c.pb[0] - 4 * Rp == 3 * lam && c.pb[1] + 3 * Rp == 4 * lam && c.ra + c.rb == 5 * Rp,
            "the construction is not exact");
  return c;
}

/* 000's Delta = 4<s,v>^2 + 4R^2||v||^2 - 4||v||^2||s||^2 and the radicand of
   its last formula, p^2/q^2 + (R^2 - <s,s>)/q, recomputed here in double. */
static void doc000_quantities(const toi_case *c, double *delta, double *rad) {
  const double sx = c->pb[0] - c->pa[0], sy = c->pb[1] - c->pa[1];
  const double vx = c->vb[0] - c->va[0], vy = c->vb[1] - c->va[1], R = c->ra + c->rb;
  const double p = sx * vx + sy * vy, q = vx * vx + vy * vy, ss = sx * sx + sy * sy;
  *delta = 4 * (p * p) + 4 * (R * R) * q - 4 * q * ss;
  *rad = (p * p) / (q * q) + (R * R - ss) / q;
}

/* Delta and the radicand are one quantity up to the factor 4 q^2 in exact
   arithmetic, but not once rounded. Two exact grazes (found by a search over
   lam and Rp) where they disagree: the document's test, Delta <= 0, decides. */
Test(inner_product, decides_on_delta_as_written) {
  /* Delta = 0 but the radicand rounds to 2^-53 > 0: a graze at t = lam that
     the radicand would call a hit; "Delta <= 0: the balls won't collide". */
  toi_case c = exact_graze(0x1.90f0b6p-1, 2.75);
  toi_ref ref;
  cr_assert_eq(tr_solve(&ref, &c), TOI_OK);
  cr_assert(ref.cls == TOI_GRAZE && ref.tfwd == 0x1.90f0b6p-1, "exact: %s %a", toi_class_name(ref.cls), ref.tfwd);
  double delta, rad;
  doc000_quantities(&c, &delta, &rad);
  cr_assert(delta <= 0 && rad > 0, "Delta = %a, radicand = %a", delta, rad);
  toi_result r = fc_solve("inner-product", &c);
  cr_assert_eq(r.cls, TOI_NONE, "Delta = %a <= 0, but %s at %a", delta, toi_class_name(r.cls), r.t);
  /* Delta = 2^-32 > 0 with the radicand exactly 0: the document goes on to
     its formula, t = -p/q - sqrt(0) = lam, the graze time exactly. */
  c = exact_graze(0x1.b49fe5cp+4, 2.0625);
  cr_assert_eq(tr_solve(&ref, &c), TOI_OK);
  cr_assert(ref.cls == TOI_GRAZE && ref.tfwd == 0x1.b49fe5cp+4, "exact: %s %a", toi_class_name(ref.cls), ref.tfwd);
  doc000_quantities(&c, &delta, &rad);
  cr_assert(delta > 0 && rad == 0, "Delta = %a, radicand = %a", delta, rad);
  r = fc_solve("inner-product", &c);
  cr_assert(r.cls == TOI_HIT && r.t == 0x1.b49fe5cp+4, "Delta = %a > 0: %s at %a", delta, toi_class_name(r.cls), r.t);
}
