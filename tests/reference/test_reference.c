/* test_reference.c: the certified reference against answers known in closed form. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include "reference_check.h"
#include "ref_forms.h"

/* ---- exact constructions ---- */

/* One case given in full and its answer worked out by hand. Roots are given
 * as the exact rationals' correct roundings: integers, dyadics, or quotients
 * of small integers (an IEEE division is correctly rounded). */
typedef struct exact_param {
  char name[24];
  int dim;
  double pa[3], va[3], ra, pb[3], vb[3], rb;
  toi_class cls;
  double tlo, thi;
  int fwd_is_lo, rev_is_lo;
} exact_param;

#define P2(x, y) {x, y, 0}
#define TINY 0x1p-1074
#define M DBL_MAX

static exact_param exact_cases[] = {
    /* s = (-10, 3), v = (1, 0), R = 5: (t - 10)^2 + 9 = 25, t = 10 -+ 4. */
    {"345-hit", 2, P2(0, 0), P2(0, 0), 1, P2(-10, 3), P2(1, 0), 4, TOI_HIT, 6, 14, 1, -1},
    /* s = (-20, 3, 4), R = 13: (t - 20)^2 + 25 = 169, t = 20 -+ 12. */
    {"345-12-13-3d", 3, {0, 0, 0}, {0, 0, 0}, 6, {-20, 3, 4}, {1, 0, 0}, 7, TOI_HIT, 8, 32, 1, -1},
    /* Both moving: s = (10, 0), v = (-2, 0), R = 2: (10 - 2t)^2 = 4, t = 4, 6. */
    {"head-on", 2, P2(0, 0), P2(1, 0), 1, P2(10, 0), P2(-1, 0), 1, TOI_HIT, 4, 6, 1, -1},
    /* (3t - 2)^2 = 1: t = 1/3, 1. */
    {"third", 2, P2(0, 0), P2(0, 0), 0.5, P2(-2, 0), P2(3, 0), 0.5, TOI_HIT, 0x1.5555555555555p-2, 1, 1,
     -1},
    /* (7t - 4)^2 = 9: t = 1/7, 1. */
    {"seventh", 2, P2(0, 0), P2(0, 0), 1, P2(-4, 0), P2(7, 0), 2, TOI_HIT, 1.0 / 7.0, 1, 1, -1},
    /* 3D head-on along z: s = (0, 0, 7), v = (0, 0, -3), R = 2: (7 - 3t)^2 = 4, t = 5/3, 3. */
    {"five-thirds-3d", 3, {1, 2, 3}, {0, 0, 1}, 1, {1, 2, 10}, {0, 0, -2}, 1, TOI_HIT, 5.0 / 3.0, 3, 1,
     -1},
    {"static", 2, P2(0, 0), P2(0.5, 0.5), 1, P2(5, 0), P2(0.5, 0.5), 1, TOI_STATIC, NAN, NAN, -1, -1},
    /* c < 0 is decided before a = 0. */
    {"static-overlap", 2, P2(0, 0), P2(0, 0), 1, P2(1, 0), P2(0, 0), 1, TOI_OVERLAP, NAN, NAN, -1, -1},
    /* Touching, approaching: roots 0 and -2b/a = 4. */
    {"contact", 2, P2(0, 0), P2(0, 0), 1, P2(2, 0), P2(-1, 0), 1, TOI_CONTACT, 0, 4, 1, 1},
    /* Touching, leaving: roots -4 and 0. */
    {"separating-c0", 2, P2(0, 0), P2(0, 0), 1, P2(2, 0), P2(1, 0), 1, TOI_SEPARATING, -4, 0, 0, 0},
    /* Touching, sliding tangentially: b = 0, double root 0. */
    {"separating-c0-b0", 2, P2(0, 0), P2(0, 0), 1, P2(2, 0), P2(0, 1), 1, TOI_SEPARATING, 0, 0, 1, 0},
    /* Leaving with roots in the past: (10 + t)^2 = 4, t = -12, -8. */
    {"separating-past", 2, P2(0, 0), P2(0, 0), 1, P2(10, 0), P2(1, 0), 1, TOI_SEPARATING, -12, -8, -1, 0},
    /* b > 0, D = 100 - 121 < 0. */
    {"separating-nor", 2, P2(0, 0), P2(0, 0), 1, P2(10, 5), P2(1, 0), 1, TOI_SEPARATING, NAN, NAN, -1,
     -1},
    /* b = 0, c > 0: D = -96. */
    {"separating-b0", 2, P2(0, 0), P2(0, 0), 1, P2(0, 10), P2(1, 0), 1, TOI_SEPARATING, NAN, NAN, -1, -1},
    /* (1 + t)^2 = 4: t = -3, 1. */
    {"overlap", 2, P2(0, 0), P2(0, 0), 1, P2(1, 0), P2(1, 0), 1, TOI_OVERLAP, -3, 1, 0, 1},
    {"overlap-3d", 3, {0, 0, 0}, {0, 0, 0}, 1, {0, 0, 1}, {0, 0, 1}, 1, TOI_OVERLAP, -3, 1, 0, 1},
    /* Tangent: (t - 10)^2 + 25 = 25, double root 10. */
    {"graze", 2, P2(0, 0), P2(0, 0), 5, P2(-10, 5), P2(1, 0), 0, TOI_GRAZE, 10, 10, 1, -1},
    {"miss", 2, P2(0, 0), P2(0, 0), 3, P2(-10, 6), P2(1, 0), 2, TOI_MISS, NAN, NAN, -1, -1},
    /* Radii 0: two points meet once, or never. */
    {"points-graze", 2, P2(0, 0), P2(0, 0), 0, P2(-10, 0), P2(1, 0), 0, TOI_GRAZE, 10, 10, 1, -1},
    {"points-miss", 2, P2(0, 0), P2(0, 0), 0, P2(-10, 1), P2(1, 0), 0, TOI_MISS, NAN, NAN, -1, -1},
    {"points-coincide", 2, P2(0, 0), P2(0, 0), 0, P2(0, 0), P2(1, 0), 0, TOI_SEPARATING, 0, 0, 1, 0},
    /* Subnormal roots. (8t - 3 2^-1074)^2 = 2^-2148: t = 2^-1076, 2^-1075:
     * both round to +0 (the second is a tie, to the even 0). */
    {"sub-ties-to-zero", 2, P2(0, 0), P2(0, 0), TINY, P2(-3 * TINY, 0), P2(8, 0), 0, TOI_HIT, 0, 0, 1, -1},
    /* t = 3 2^-1075, a tie between 2^-1074 and 2^-1073: to the even 2^-1073. */
    {"sub-tie-to-even", 2, P2(0, 0), P2(0, 0), 0, P2(-3 * TINY, 0), P2(2, 0), 0, TOI_GRAZE, 2 * TINY,
     2 * TINY, 1, -1},
    /* t = (5 -+ 1)/3 2^-1074 = 4/3 2^-1074 -> 2^-1074, and 2^-1073. */
    {"sub-four-thirds", 2, P2(0, 0), P2(0, 0), TINY, P2(-5 * TINY, 0), P2(3, 0), 0, TOI_HIT, TINY,
     2 * TINY, 1, -1},
    /* Exact ties need the sticky information: s = 3 + 3 2^-53 (the difference
     * of two doubles, exact here), v = -3, R = 2^-80: t = 1 + 2^-53 -+ 2^-80/3,
     * the midpoint between 1 and 1 + 2^-52 missed by a hair either way. */
    {"hair-off-midpoint", 2, P2(-3 * 0x1p-53, 0), P2(0, 0), 0x1p-80, P2(3, 0), P2(-3, 0), 0, TOI_HIT, 1,
     1 + 0x1p-52, 1, -1},
    /* The same in the past, negated: ties of negative roots. */
    {"hair-off-midpoint-neg", 2, P2(-3 * 0x1p-53, 0), P2(0, 0), 0x1p-80, P2(3, 0), P2(3, 0), 0,
     TOI_SEPARATING, -1 - 0x1p-52, -1, -1, 0},
    /* Normal/subnormal border: t = (2^-1022 -+ 2^-1074)/1, exact subnormal and normal. */
    {"sub-border", 2, P2(0, 0), P2(0, 0), TINY, P2(-0x1p-1022, 0), P2(1, 0), 0, TOI_HIT,
     0x1p-1022 - TINY, 0x1p-1022 + TINY, 1, -1},
    /* Overflow: t = (2^54 -+ 1) 2^970. The lower is the midpoint between
     * DBL_MAX and 2^1024: ties to even, Inf. */
    {"overflow-midpoint", 2, P2(0, 0), P2(0, 0), 1, P2(-0x1p54, 0), P2(0x1p-970, 0), 0, TOI_HIT, INFINITY,
     INFINITY, 1, -1},
    /* R = 1 + 2^-52: the lower root is just below the midpoint: DBL_MAX. */
    {"overflow-below", 2, P2(0, 0), P2(0, 0), 1, P2(-0x1p54, 0), P2(0x1p-970, 0), 0x1p-52, TOI_HIT, M,
     INFINITY, 1, -1},
    /* Mirror image in the past: -(2^54 +- 1) 2^970, both -Inf. */
    {"overflow-past", 2, P2(0, 0), P2(0, 0), 1, P2(-0x1p54, 0), P2(-0x1p-970, 0), 0, TOI_SEPARATING,
     -INFINITY, -INFINITY, -1, 0},
    /* 1e300 / 1e-300 and 1e-300 / 1e300: out of range both ways. */
    {"huge-root", 2, P2(0, 0), P2(0, 0), 0, P2(-1e300, 0), P2(1e-300, 0), 0, TOI_GRAZE, INFINITY,
     INFINITY, 1, -1},
    {"tiny-root", 2, P2(0, 0), P2(0, 0), 0, P2(-1e-300, 0), P2(1e300, 0), 0, TOI_GRAZE, 0, 0, 1, -1},
    /* Subnormal velocity: t = (3 -+ 1) 2^-100 / 2^-1074 = 2^975, 2^976. */
    {"subnormal-velocity", 2, P2(0, 0), P2(0, 0), 0x1p-100, P2(-3 * 0x1p-100, 0), P2(TINY, 0), 0,
     TOI_HIT, 0x1p975, 0x1p976, 1, -1},
    /* Near DBL_MAX: s = 2M and v = -2M overflow in double, not here:
     * (2M - 2M t)^2 = M^2, t = 1/2, 3/2. */
    {"dbl-max", 2, P2(-M, 0), P2(M, 0), M / 2, P2(M, 0), P2(-M, 0), M / 2, TOI_HIT, 0.5, 1.5, 1, -1},
    /* The 3-4-5 case scaled by 2^990 and by 2^-1000: same roots. */
    {"345-times-2^990", 2, P2(0, 0), P2(0, 0), 0x1p990, P2(-10 * 0x1p990, 3 * 0x1p990), P2(0x1p990, 0),
     4 * 0x1p990, TOI_HIT, 6, 14, 1, -1},
    {"345-times-2^-1000", 2, P2(0, 0), P2(0, 0), 0x1p-1000, P2(-10 * 0x1p-1000, 3 * 0x1p-1000),
     P2(0x1p-1000, 0), 4 * 0x1p-1000, TOI_HIT, 6, 14, 1, -1},
    /* Translated far away (exactly: 2^50 + small integers is a double). */
    {"345-far", 2, P2(0x1p50, -0x1p50), P2(0, 0), 1, P2(0x1p50 - 10, -0x1p50 + 3), P2(1, 0), 4, TOI_HIT, 6,
     14, 1, -1},
};

ParameterizedTestParameters(reference_exact, known) {
  return cr_make_param_array(exact_param, exact_cases, sizeof exact_cases / sizeof exact_cases[0]);
}

static toi_case exact_case(const exact_param *p) {
  toi_case c;
  memset(&c, 0, sizeof c);
  strcpy(c.id, "x");
  c.dim = p->dim;
  for (int i = 0; i < 3; i++) c.pa[i] = p->pa[i], c.va[i] = p->va[i], c.pb[i] = p->pb[i], c.vb[i] = p->vb[i];
  c.ra = p->ra, c.rb = p->rb, c.ma = c.mb = 1;
  return c;
}

ParameterizedTest(exact_param *p, reference_exact, known) {
  toi_case c = exact_case(p);
  toi_ref r;
  cr_assert_eq(tr_solve_engine(&r, &c, TOI_REF_FAST), TOI_OK, "%s", p->name);
  cr_expect_eq(r.cls, p->cls, "%s: class %s, expected %s", p->name, toi_class_name(r.cls),
               toi_class_name(p->cls));
  cr_expect(tr_same(r.tlo, p->tlo), "%s: tlo %a, expected %a", p->name, r.tlo, p->tlo);
  cr_expect(tr_same(r.thi, p->thi), "%s: thi %a, expected %a", p->name, r.thi, p->thi);
  cr_expect_eq(r.fwd_is_lo, p->fwd_is_lo, "%s: fwd_is_lo", p->name);
  cr_expect_eq(r.rev_is_lo, p->rev_is_lo, "%s: rev_is_lo", p->name);
  double fwd = p->fwd_is_lo < 0 ? NAN : p->fwd_is_lo ? p->tlo : p->thi;
  double rev = p->rev_is_lo < 0 ? NAN : p->rev_is_lo ? p->tlo : p->thi;
  cr_expect(tr_same(r.tfwd, fwd), "%s: tfwd %a, expected %a", p->name, r.tfwd, fwd);
  cr_expect(tr_same(r.trev, rev), "%s: trev %a, expected %a", p->name, r.trev, rev);
  /* The textbook computation agrees too. */
  tr_answer n = tr_naive(&c, 0);
  cr_expect_eq(n.cls, p->cls, "%s: naive class", p->name);
  cr_expect(tr_same(n.tlo, p->tlo) && tr_same(n.thi, p->thi), "%s: naive %a %a", p->name, n.tlo, n.thi);
}

/* The independent rounding used by the other tests, checked on its own. */
Test(reference_exact, independent_rounding) {
  mpq_t q;
  mpq_init(q);
  mpq_set_ui(q, 1, 3);
  cr_expect(tr_same(tr_round_q(q), 0x1.5555555555555p-2));
  mpq_set_ui(q, 1, 1);
  mpq_div_2exp(q, q, 1075);
  cr_expect(tr_same(tr_round_q(q), 0.0), "2^-1075 ties to 0");
  mpq_set_ui(q, 3, 1);
  mpq_div_2exp(q, q, 1075);
  cr_expect(tr_same(tr_round_q(q), 0x1p-1073), "3 2^-1075 ties to 2^-1073");
  mpq_set_ui(q, (1UL << 54) - 1, 1);
  mpq_mul_2exp(q, q, 970);
  cr_expect(tr_same(tr_round_q(q), INFINITY), "midpoint above DBL_MAX");
  mpq_clear(q);
}

/* ---- irrational roots ---- */

/* (t - 10)^2 + 1 = 4: t = 10 -+ sqrt 3, against the textbook formula at high
 * precision and against long double arithmetic. */
Test(reference_irrational, ten_minus_sqrt3) {
  toi_case c = tr_rel2(-10, 1, 1, 0, 1, 1);
  toi_ref r;
  cr_assert_eq(tr_solve_engine(&r, &c, TOI_REF_FAST), TOI_OK);
  cr_expect_eq(r.cls, TOI_HIT);
  tr_answer n = tr_naive(&c, 0);
  cr_expect(tr_same(r.tlo, n.tlo) && tr_same(r.thi, n.thi), "%a %a vs %a %a", r.tlo, r.thi, n.tlo, n.thi);
  long double s3 = sqrtl(3.0L);
  cr_expect(fabsl((long double)r.tlo - (10.0L - s3)) <= 0x1p-50L, "%a", r.tlo);
  cr_expect(fabsl((long double)r.thi - (10.0L + s3)) <= 0x1p-49L, "%a", r.thi);
  cr_expect(tr_same(r.tfwd, r.tlo));
}

/* A table of irrational cases over the ranges, each against the naive solver. */
Test(reference_irrational, ranges) {
  static const struct {
    double k;   /* lengths scale */
    double kv;  /* velocities scale */
  } sc[] = {{1, 1}, {0x1p-1060, 1}, {0x1p-1000, 0x1p-1000}, {0x1p900, 0x1p900}, {1, 0x1p-1070},
            {0x1p1000, 0x1p-20}, {0x1p-1065, 0x1p30}, {1e-300, 1}, {1e300, 1e-300}, {3e-310, 7.0}};
  for (size_t i = 0; i < sizeof sc / sizeof sc[0]; i++) {
    double k = sc[i].k, kv = sc[i].kv;
    toi_case c = tr_rel3(-10 * k, k, 3 * k, kv, 0.5 * kv, -0.25 * kv, 2 * k, k);
    toi_ref r;
    cr_assert_eq(tr_solve_engine(&r, &c, TOI_REF_FAST), TOI_OK);
    tr_answer n = tr_naive(&c, 0);
    cr_expect_eq(r.cls, n.cls, "scale %a/%a", k, kv);
    cr_expect(tr_same(r.tlo, n.tlo) && tr_same(r.thi, n.thi), "scale %a/%a: %a %a vs %a %a", k, kv, r.tlo,
              r.thi, n.tlo, n.thi);
  }
}

/*
 * Irrational roots a hair (about 2^-80 relative) off a rounding breakpoint,
 * on the side where ties-to-even would go wrong: the first approximation
 * cannot decide, and a loop that trusted it would misround about half of
 * them. With h small, sqrt(R^2 - h^2) = R - h^2/(2R) - ...:
 *  A: s = (0, h), v = (1, 0), R = 1 + 3 2^-53 (a 53-bit midpoint whose even
 *     neighbour is above): roots -+(R - eps) -> -+(1 + 2^-52).
 *  B: s = (-2, h), v = (1, 0), R = 1 + 3 2^-54: lower root 1 - 3 2^-54 + eps,
 *     just above a midpoint whose even neighbour is below -> 1 - 2^-53.
 *  C: subnormal: s = (0, 2^-1074), v = (2, 0), R = (2k + 1) 2^-1074 with k
 *     odd: upper root (k + 1/2) 2^-1074 - eps -> k 2^-1074.
 */
Test(reference_irrational, hair_off_midpoints) {
  const double hs[] = {0x1p-40, 0x1.8p-41, 0x1.4p-43, 0x1p-35, 0x1.cp-37, 0x1.1p-33, 0x1.3p-45, 0x1p-50};
  for (size_t i = 0; i < sizeof hs / sizeof hs[0]; i++) {
    toi_ref r;
    toi_case a = tr_rel2(0, hs[i], 1, 0, 1, 3 * 0x1p-53);
    cr_assert_eq(tr_solve_engine(&r, &a, TOI_REF_FAST), TOI_OK);
    cr_expect(r.cls == TOI_OVERLAP && r.thi == 1 + 0x1p-52 && r.tlo == -1 - 0x1p-52, "A h=%a: %a %a", hs[i],
              r.tlo, r.thi);
    tr_answer n = tr_naive(&a, 0);
    cr_expect(tr_same(n.tlo, r.tlo) && tr_same(n.thi, r.thi), "A h=%a: naive %a %a", hs[i], n.tlo, n.thi);
    toi_case b = tr_rel2(-2, hs[i], 1, 0, 1, 3 * 0x1p-54);
    cr_assert_eq(tr_solve_engine(&r, &b, TOI_REF_FAST), TOI_OK);
    cr_expect(r.cls == TOI_HIT && r.tlo == 1 - 0x1p-53 && r.thi == 3, "B h=%a: %a %a", hs[i], r.tlo, r.thi);
    n = tr_naive(&b, 0);
    cr_expect(tr_same(n.tlo, r.tlo) && tr_same(n.thi, r.thi), "B h=%a: naive %a %a", hs[i], n.tlo, n.thi);
  }
  const double ks[] = {0x1p50 + 1, 0x1p51 - 1, 0x1p49 + 3, 0x1.23456789abcdp50 + 1, 12345, 0x1p52 - 1};
  for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
    toi_ref r;
    toi_case c = tr_rel2(0, 0x1p-1074, 2, 0, 2 * ks[i] * 0x1p-1074, 0x1p-1074);
    cr_assert_eq(tr_solve_engine(&r, &c, TOI_REF_FAST), TOI_OK);
    double want = ks[i] * 0x1p-1074;
    cr_expect(r.cls == TOI_OVERLAP && r.thi == want && r.tlo == -want, "C k=%a: %a %a", ks[i], r.tlo, r.thi);
    tr_answer n = tr_naive(&c, 0);
    cr_expect(tr_same(n.tlo, r.tlo) && tr_same(n.thi, r.thi), "C k=%a: naive %a %a", ks[i], n.tlo, n.thi);
  }
}

/* ---- the contact distance R + delta ---- */

Test(reference_target, three_four_five) {
  /* R = 4 (+1) and R = 6 (-1) both make the 3-4-5 contact at 5: t = 6, 14. */
  toi_case c = tr_rel2(-10, 3, 1, 0, 1, 3);
  toi_ref r;
  cr_assert_eq(tr_solve_target_engine(&r, &c, 1.0, TOI_REF_FAST), TOI_OK);
  cr_expect(r.cls == TOI_HIT && r.tlo == 6 && r.thi == 14);
  c.rb = 5;
  cr_assert_eq(tr_solve_target_engine(&r, &c, -1.0, TOI_REF_FAST), TOI_OK);
  cr_expect(r.cls == TOI_HIT && r.tlo == 6 && r.thi == 14);
  /* delta = 0 is the plain solve. */
  toi_ref r0;
  cr_assert_eq(tr_solve_target_engine(&r, &c, 0.0, TOI_REF_FAST), TOI_OK);
  cr_assert_eq(tr_solve_engine(&r0, &c, TOI_REF_FAST), TOI_OK);
  cr_expect(tr_same_ref(&r, &r0));
  /* R + delta = 0 is allowed: the centres meet, (t - 10)^2 + 9 = 0 never. */
  cr_assert_eq(tr_solve_target_engine(&r, &c, -6.0, TOI_REF_FAST), TOI_OK);
  cr_expect_eq(r.cls, TOI_MISS);
}

Test(reference_target, delta_not_representable_sum) {
  /* R + delta = 5 + 2^-60 is no double, but is exact in the reference:
   * t = 10 -+ sqrt((5 + 2^-60)^2 - 9). */
  toi_case c = tr_rel2(-10, 3, 1, 0, 1, 4);
  toi_ref r;
  cr_assert_eq(tr_solve_target_engine(&r, &c, 0x1p-60, TOI_REF_FAST), TOI_OK);
  tr_answer n = tr_naive(&c, 0x1p-60);
  cr_expect_eq(r.cls, TOI_HIT);
  cr_expect(tr_same(r.tlo, n.tlo) && tr_same(r.thi, n.thi), "%a %a vs %a %a", r.tlo, r.thi, n.tlo, n.thi);
  /* sqrt(16 + 10 2^-60 + 2^-120) = 4 + 1.25 2^-60 - ...: the roots are 6 and 14 moved by far
   * less than half their ulp (2^-50 and 2^-49). */
  cr_expect_eq(r.tlo, 6.0);
  cr_expect_eq(r.thi, 14.0);
}

Test(reference_target, range_errors) {
  toi_case c = tr_rel2(-10, 3, 1, 0, 1, 4);
  toi_ref r;
  cr_expect_eq(tr_solve_target_engine(&r, &c, -5.5, TOI_REF_FAST), TOI_ERR_RANGE);
  cr_expect_eq(r.cls, TOI_NONE);
  cr_expect(isnan(r.tlo) && isnan(r.tfwd));
  cr_expect_eq(tr_solve_target_engine(&r, &c, NAN, TOI_REF_FAST), TOI_ERR_RANGE);
  cr_expect_eq(tr_solve_target_engine(&r, &c, INFINITY, TOI_REF_FAST), TOI_ERR_RANGE);
  /* R + delta just below 0: -(5 + 2^-52) with R = 5. */
  cr_expect_eq(tr_solve_target_engine(&r, &c, -5 - 0x1p-50, TOI_REF_FAST), TOI_ERR_RANGE);
}

/* ---- input checks ---- */

Test(reference_input, refused) {
  toi_case good = tr_rel2(-10, 3, 1, 0, 1, 4), c;
  toi_ref r;
  double u, b, k;
  c = good, c.dim = 4;
  cr_expect_eq(tr_solve_engine(&r, &c, TOI_REF_FAST), TOI_ERR_INPUT);
  c = good, c.pb[1] = NAN;
  cr_expect_eq(tr_solve_engine(&r, &c, TOI_REF_FAST), TOI_ERR_INPUT);
  c = good, c.va[0] = -INFINITY;
  cr_expect_eq(tr_solve_engine(&r, &c, TOI_REF_FAST), TOI_ERR_INPUT);
  c = good, c.ra = -1;
  cr_expect_eq(tr_solve_engine(&r, &c, TOI_REF_FAST), TOI_ERR_INPUT);
  c = good, c.pb[2] = 1; /* a 2D case with a third component */
  cr_expect_eq(tr_solve_engine(&r, &c, TOI_REF_FAST), TOI_ERR_INPUT);
  cr_expect_eq(tr_error_engine(&u, &b, 6, &c, TOI_FORWARD, TOI_REF_FAST), TOI_ERR_INPUT);
  cr_expect(isnan(u) && isnan(b));
  cr_expect_eq(tr_kappa_engine(&k, &c, TOI_FORWARD, TOI_REF_FAST), TOI_ERR_INPUT);
  cr_expect(isnan(k));
  cr_expect_eq(tr_solve_engine(&r, NULL, TOI_REF_FAST), TOI_ERR_INPUT);
  cr_expect_eq(tr_solve_engine(NULL, &good, TOI_REF_FAST), TOI_ERR_RANGE);
  cr_expect_eq(tr_error_engine(&u, &b, 6, &good, (toi_direction)7, TOI_REF_FAST), TOI_ERR_RANGE);
  cr_expect_eq(tr_kappa_engine(&k, &good, (toi_direction)-1, TOI_REF_FAST), TOI_ERR_RANGE);
  /* -0.0 is a legal radius. */
  c = good, c.ra = -0.0;
  cr_expect_eq(tr_solve_engine(&r, &c, TOI_REF_FAST), TOI_OK);
}

/* The reference leaves the caller's MPFR exponent range and flags alone,
 * and works even when the caller narrowed the range. */
Test(reference_input, mpfr_environment) {
  toi_case c = tr_rel2(-10, 1, 1, 0, 1, 1);
  toi_ref r, r0;
  cr_assert_eq(tr_solve_engine(&r0, &c, TOI_REF_FAST), TOI_OK);
  mpfr_set_emin(-100);
  mpfr_set_emax(100);
  mpfr_clear_flags();
  cr_assert_eq(tr_solve_engine(&r, &c, TOI_REF_FAST), TOI_OK);
  cr_expect(tr_same_ref(&r, &r0));
  cr_expect_eq(mpfr_get_emin(), -100);
  cr_expect_eq(mpfr_get_emax(), 100);
  cr_expect_eq(mpfr_flags_save(), 0, "flags raised by the reference leaked");
  mpfr_set_emin(mpfr_get_emin_min());
  mpfr_set_emax(mpfr_get_emax_max());
}

Test(reference_input, versions) {
  /* The versions of the libraries linked, against the headers compiled with:
     a mismatch means a build against one library and a run against another. */
  cr_expect_str_eq(toi_ref_mpfr_version(), MPFR_VERSION_STRING);
  char gmp[32];
  snprintf(gmp, sizeof gmp, "%d.%d.%d", __GNU_MP_VERSION, __GNU_MP_VERSION_MINOR, __GNU_MP_VERSION_PATCHLEVEL);
  cr_expect_str_eq(toi_ref_gmp_version(), gmp);
  cr_expect(toi_ref_mpfr_version()[0] >= '4', "MPFR 4 or later is required (mpfr_flags_save)");
}

/* ---- toi_ref_error ---- */

Test(reference_error, exact_root_six) {
  toi_case c = tr_rel2(-10, 3, 1, 0, 1, 4); /* t* = 6, ulp(6) = 2^-50 */
  double u, b;
  cr_assert_eq(tr_error_engine(&u, &b, 6, &c, TOI_FORWARD, TOI_REF_FAST), TOI_OK);
  cr_expect(u == 0 && b == 0, "%g %g", u, b);
  cr_assert_eq(tr_error_engine(&u, &b, nextafter(6, 7), &c, TOI_FORWARD, TOI_REF_FAST), TOI_OK);
  cr_expect(u == 1 && b == 1, "%a %g", u, b);
  cr_assert_eq(tr_error_engine(&u, &b, nextafter(6, 0), &c, TOI_FORWARD, TOI_REF_FAST), TOI_OK);
  cr_expect(u == 1 && b == 1, "%a %g", u, b);
  cr_assert_eq(tr_error_engine(&u, &b, 6 + 0x1p-40, &c, TOI_FORWARD, TOI_REF_FAST), TOI_OK);
  cr_expect(u == 1024 && b == log2(1025.0), "%a %g", u, b);
  cr_assert_eq(tr_error_engine(&u, &b, 7, &c, TOI_FORWARD, TOI_REF_FAST), TOI_OK);
  cr_expect(u == 0x1p50, "%a", u);
  /* No reverse root: NaN. */
  cr_assert_eq(tr_error_engine(&u, &b, 6, &c, TOI_REVERSE, TOI_REF_FAST), TOI_OK);
  cr_expect(isnan(u) && isnan(b));
  cr_assert_eq(tr_error_engine(&u, &b, NAN, &c, TOI_FORWARD, TOI_REF_FAST), TOI_OK);
  cr_expect(isnan(u) && isnan(b));
  cr_assert_eq(tr_error_engine(&u, &b, INFINITY, &c, TOI_FORWARD, TOI_REF_FAST), TOI_OK);
  cr_expect(isinf(u) && u > 0 && isinf(b) && b > 0);
}

Test(reference_error, power_of_two_root) {
  /* t* = 4: the double below is 4 - 2^-51, half an ulp(4) = 2^-50 away. */
  toi_case c = tr_rel2(-5, 0, 1, 0, 0.5, 0.5);
  double u, b;
  cr_assert_eq(tr_error_engine(&u, &b, nextafter(4, 0), &c, TOI_FORWARD, TOI_REF_FAST), TOI_OK);
  cr_expect(u == 0.5 && b == 1, "%a %g", u, b);
  /* The reverse root of an overlap, t* = -3 (contact at 1 and -3). */
  c = tr_rel2(1, 0, 1, 0, 1, 1);
  cr_assert_eq(tr_error_engine(&u, &b, -3, &c, TOI_REVERSE, TOI_REF_FAST), TOI_OK);
  cr_expect(u == 0 && b == 0);
  cr_assert_eq(tr_error_engine(&u, &b, 3, &c, TOI_REVERSE, TOI_REF_FAST), TOI_OK);
  cr_expect(u == 6 * 0x1p51, "%a", u);
  /* 3.0 is the bit pattern 0x4008000000000000; -3 sits as far below 0. */
  cr_expect_eq(b, log2(1.0 + 2.0 * (double)0x4008000000000000LL), "sign change: ord distance");
}

Test(reference_error, third) {
  /* t* = 1/3, RN = 0x1.5555555555555p-2 = (2^54 - 1)/3 2^-54: 1/3 ulp short. */
  toi_case c = tr_rel2(-2, 0, 3, 0, 0.5, 0.5);
  double u, b;
  cr_assert_eq(tr_error_engine(&u, &b, 0x1.5555555555555p-2, &c, TOI_FORWARD, TOI_REF_FAST), TOI_OK);
  cr_expect(fabs(u - 1.0 / 3.0) < 1e-15 && b == 0, "%a", u);
  cr_assert_eq(tr_error_engine(&u, &b, 0x1.5555555555556p-2, &c, TOI_FORWARD, TOI_REF_FAST), TOI_OK);
  cr_expect(fabs(u - 2.0 / 3.0) < 1e-15 && b == 1, "%a", u);
}

Test(reference_error, zero_root_and_overflow) {
  /* Contact at t* = 0: ulp(0) = 2^-1074. */
  toi_case c = tr_rel2(2, 0, -1, 0, 1, 1);
  double u, b;
  cr_assert_eq(tr_error_engine(&u, &b, 0, &c, TOI_FORWARD, TOI_REF_FAST), TOI_OK);
  cr_expect(u == 0 && b == 0);
  cr_assert_eq(tr_error_engine(&u, &b, -0.0, &c, TOI_FORWARD, TOI_REF_FAST), TOI_OK);
  cr_expect(u == 0 && b == 0, "-0 is the same point as +0");
  cr_assert_eq(tr_error_engine(&u, &b, 3 * 0x1p-1074, &c, TOI_FORWARD, TOI_REF_FAST), TOI_OK);
  cr_expect(u == 3 && b == 2, "%a %g", u, b);
  cr_assert_eq(tr_error_engine(&u, &b, 1.0, &c, TOI_FORWARD, TOI_REF_FAST), TOI_OK);
  cr_expect(isinf(u), "%a", u); /* 2^1074 ulps is beyond the double range */
  /* A root beyond DBL_MAX: RN is Inf, so Inf is exact, DBL_MAX is 1 away in bits and
   * (2^54 - 1) 2^970 - DBL_MAX = 2^970 = half the ulp of DBL_MAX. */
  c = tr_rel2(-0x1p54, 0, 0x1p-970, 0, 1, 0);
  cr_assert_eq(tr_error_engine(&u, &b, INFINITY, &c, TOI_FORWARD, TOI_REF_FAST), TOI_OK);
  cr_expect(u == 0 && b == 0);
  cr_assert_eq(tr_error_engine(&u, &b, DBL_MAX, &c, TOI_FORWARD, TOI_REF_FAST), TOI_OK);
  cr_expect(u == 0.5 && b == 1, "%a %g", u, b);
  cr_assert_eq(tr_error_engine(&u, &b, -INFINITY, &c, TOI_FORWARD, TOI_REF_FAST), TOI_OK);
  cr_expect(isinf(u) && isinf(b));
}

/* ulp error of RN(10 - sqrt 3) checked against a 600-bit evaluation. */
Test(reference_error, irrational_against_mpfr) {
  toi_case c = tr_rel2(-10, 1, 1, 0, 1, 1);
  mpfr_t t, d;
  mpfr_inits2(600, t, d, (mpfr_ptr)0);
  mpfr_sqrt_ui(t, 3, MPFR_RNDN);
  mpfr_ui_sub(t, 10, t, MPFR_RNDN);
  double T0 = mpfr_get_d(t, MPFR_RNDN);
  double Ts[] = {T0, nextafter(T0, 0), nextafter(T0, 20), T0 + 0x1p-40, 8.0};
  for (size_t i = 0; i < sizeof Ts / sizeof Ts[0]; i++) {
    double u, b;
    cr_assert_eq(tr_error_engine(&u, &b, Ts[i], &c, TOI_FORWARD, TOI_REF_FAST), TOI_OK);
    mpfr_set_d(d, Ts[i], MPFR_RNDN);
    mpfr_sub(d, d, t, MPFR_RNDN);
    mpfr_abs(d, d, MPFR_RNDN);
    mpfr_mul_2si(d, d, 49, MPFR_RNDN); /* 8 <= t* < 16: ulp 2^-49 */
    double want = mpfr_get_d(d, MPFR_RNDN);
    cr_expect(fabs(u - want) <= 1e-12 * want, "T=%a: %.17g vs %.17g", Ts[i], u, want);
  }
  mpfr_clears(t, d, (mpfr_ptr)0);
}

/* ---- toi_ref_kappa ---- */

/*
 * kappa = [sum_i (|pA_i| + |pB_i| + |t| (|vA_i| + |vB_i|)) |u_i| + (rA + rB) R] / (sqrt(D) |t|)
 * with u = s + v t and sqrt(D) = |u.v|, worked out by hand below.
 */
Test(reference_kappa, closed_forms) {
  double k;
  /* A at (1, 0) at rest r 1, B at (11, 0) moving (-1, 0) r 1: s = (10, 0), R = 2,
   * t = 8, u = (2, 0), u.v = -2: [(1 + 11 + 8 (0 + 1)) 2 + 2 2] / (2 8) = 44/16. */
  toi_case c = tr_case2(1, 0, 0, 0, 1, 11, 0, -1, 0, 1);
  cr_assert_eq(tr_kappa_engine(&k, &c, TOI_FORWARD, TOI_REF_FAST), TOI_OK);
  cr_expect(fabs(k - 2.75) <= 1e-12, "%.17g", k);
  /* 3-4-5: t = 6, u = (-4, 3), u.v = -4: [(10 + 6) 4 + 3 3 + 5 5] / (4 6) = 98/24. */
  c = tr_rel2(-10, 3, 1, 0, 1, 4);
  cr_assert_eq(tr_kappa_engine(&k, &c, TOI_FORWARD, TOI_REF_FAST), TOI_OK);
  cr_expect(fabs(k - 98.0 / 24.0) <= 1e-12 * k, "%.17g", k);
  /* Time reversal (v -> -v) turns it into the reverse root t = -6 with the same kappa. */
  c = tr_rel2(-10, 3, -1, 0, 1, 4);
  cr_assert_eq(tr_kappa_engine(&k, &c, TOI_REVERSE, TOI_REF_FAST), TOI_OK);
  cr_expect(fabs(k - 98.0 / 24.0) <= 1e-12 * k, "%.17g", k);
  /* Overlap: s = (1, 0), v = (1, 0), R = 2; forward t = 1, u = 2: [(1 + 1) 2 + 4]/(2 1) = 4;
   * reverse t = -3, u = -2: [(1 + 3) 2 + 4]/(2 3) = 2. */
  c = tr_rel2(1, 0, 1, 0, 1, 1);
  cr_assert_eq(tr_kappa_engine(&k, &c, TOI_FORWARD, TOI_REF_FAST), TOI_OK);
  cr_expect(fabs(k - 4) <= 1e-12, "%.17g", k);
  cr_assert_eq(tr_kappa_engine(&k, &c, TOI_REVERSE, TOI_REF_FAST), TOI_OK);
  cr_expect(fabs(k - 2) <= 1e-12, "%.17g", k);
  /* Graze (D = 0) and contact (t* = 0): infinite; no root: NaN. */
  c = tr_rel2(-10, 5, 1, 0, 5, 0);
  cr_assert_eq(tr_kappa_engine(&k, &c, TOI_FORWARD, TOI_REF_FAST), TOI_OK);
  cr_expect(isinf(k) && k > 0);
  c = tr_rel2(2, 0, -1, 0, 1, 1);
  cr_assert_eq(tr_kappa_engine(&k, &c, TOI_FORWARD, TOI_REF_FAST), TOI_OK);
  cr_expect(isinf(k) && k > 0);
  c = tr_rel2(-10, 6, 1, 0, 3, 2);
  cr_assert_eq(tr_kappa_engine(&k, &c, TOI_FORWARD, TOI_REF_FAST), TOI_OK);
  cr_expect(isnan(k));
}

/* Root of the naive quadratic at precision p from inputs x[0..13]
 * (pa, pb, va, vb as 3 each, ra, rb), lower or upper. */
static void kappa_root(mpfr_t t, mpfr_t x[14], int lo, mpfr_prec_t p) {
  mpfr_t s, v, a, b, cc, q, w;
  mpfr_inits2(p, s, v, a, b, cc, q, w, (mpfr_ptr)0);
  mpfr_set_zero(a, 1), mpfr_set_zero(b, 1), mpfr_set_zero(cc, 1);
  for (int i = 0; i < 3; i++) {
    mpfr_sub(s, x[3 + i], x[i], MPFR_RNDN);
    mpfr_sub(v, x[9 + i], x[6 + i], MPFR_RNDN);
    mpfr_fma(a, v, v, a, MPFR_RNDN);
    mpfr_fma(b, s, v, b, MPFR_RNDN);
    mpfr_fma(cc, s, s, cc, MPFR_RNDN);
  }
  mpfr_add(w, x[12], x[13], MPFR_RNDN);
  mpfr_sqr(w, w, MPFR_RNDN);
  mpfr_sub(cc, cc, w, MPFR_RNDN);
  mpfr_sqr(q, b, MPFR_RNDN);
  mpfr_mul(w, a, cc, MPFR_RNDN);
  mpfr_sub(q, q, w, MPFR_RNDN);
  mpfr_sqrt(q, q, MPFR_RNDN);
  mpfr_neg(w, b, MPFR_RNDN);
  if (lo)
    mpfr_sub(w, w, q, MPFR_RNDN);
  else
    mpfr_add(w, w, q, MPFR_RNDN);
  mpfr_div(t, w, a, MPFR_RNDN);
  mpfr_clears(s, v, a, b, cc, q, w, (mpfr_ptr)0);
}

/* kappa from central differences of the root, each input moved by 2^-80 of itself. */
Test(reference_kappa, finite_differences) {
  toi_case cs[] = {tr_case2(0.25, -1, 0.5, 0.125, 1, -9, 2.5, 1.5, -0.25, 1.5),
                   tr_case2(3, 1, -1, 0, 1, 0.5, 1, 2, 0, 2), /* overlap */
                   tr_rel3(-7, 2, 1.5, 1.25, -0.5, 0.125, 1, 1.75)};
  const mpfr_prec_t p = 1000;
  for (size_t n = 0; n < sizeof cs / sizeof cs[0]; n++) {
    toi_case *c = &cs[n];
    toi_ref r;
    cr_assert_eq(tr_solve_engine(&r, c, TOI_REF_FAST), TOI_OK);
    for (int dir = 0; dir < 2; dir++) {
      int lo = dir == 0 ? r.fwd_is_lo : r.rev_is_lo;
      if (lo < 0) continue;
      double k;
      cr_assert_eq(tr_kappa_engine(&k, c, (toi_direction)dir, TOI_REF_FAST), TOI_OK);
      double in[14];
      for (int i = 0; i < 3; i++) in[i] = c->pa[i], in[3 + i] = c->pb[i], in[6 + i] = c->va[i], in[9 + i] = c->vb[i];
      in[12] = c->ra, in[13] = c->rb;
      mpfr_t x[14], t0, tp, tm, sum;
      for (int i = 0; i < 14; i++) mpfr_init2(x[i], p), mpfr_set_d(x[i], in[i], MPFR_RNDN);
      mpfr_inits2(p, t0, tp, tm, sum, (mpfr_ptr)0);
      kappa_root(t0, x, lo, p);
      mpfr_set_zero(sum, 1);
      for (int i = 0; i < 14; i++) {
        if (in[i] == 0) continue;
        double h = fabs(in[i]) * 0x1p-80;
        mpfr_add_d(x[i], x[i], h, MPFR_RNDN);
        kappa_root(tp, x, lo, p);
        mpfr_set_d(x[i], in[i], MPFR_RNDN);
        mpfr_sub_d(x[i], x[i], h, MPFR_RNDN);
        kappa_root(tm, x, lo, p);
        mpfr_set_d(x[i], in[i], MPFR_RNDN);
        mpfr_sub(tp, tp, tm, MPFR_RNDN);
        mpfr_abs(tp, tp, MPFR_RNDN);
        mpfr_mul_d(tp, tp, fabs(in[i]) / (2 * h), MPFR_RNDN);
        mpfr_add(sum, sum, tp, MPFR_RNDN);
      }
      mpfr_abs(t0, t0, MPFR_RNDN);
      mpfr_div(sum, sum, t0, MPFR_RNDN);
      double want = mpfr_get_d(sum, MPFR_RNDN);
      cr_expect(fabs(k - want) <= 1e-6 * want, "case %zu dir %d: %.17g vs %.17g", n, dir, k, want);
      for (int i = 0; i < 14; i++) mpfr_clear(x[i]);
      mpfr_clears(t0, tp, tm, sum, (mpfr_ptr)0);
    }
  }
}

/* ---- threads ---- */

#define THREAD_CASES 1000

typedef struct thread_job {
  const toi_case *cases;
  toi_ref *out;
  double *ulp, *kap;
  int reverse_order;
  int failures;
} thread_job;

static void *thread_run(void *arg) {
  thread_job *j = arg;
  for (int n = 0; n < THREAD_CASES; n++) {
    int i = j->reverse_order ? THREAD_CASES - 1 - n : n;
    double b;
    if (tr_solve_engine(&j->out[i], &j->cases[i], TOI_REF_FAST) != TOI_OK) j->failures++;
    if (tr_error_engine(&j->ulp[i], &b, 1.0, &j->cases[i], TOI_FORWARD, TOI_REF_FAST) != TOI_OK) j->failures++;
    if (tr_kappa_engine(&j->kap[i], &j->cases[i], TOI_FORWARD, TOI_REF_FAST) != TOI_OK) j->failures++;
  }
  return NULL;
}

Test(reference_threads, two_threads_match_serial) {
  cr_assert(mpfr_buildopt_tls_p(), "MPFR built without thread-local storage: the reference is not thread-safe");
  uint64_t seed = tr_seed();
  tr_rng rng = {seed};
  static toi_case cases[THREAD_CASES];
  static toi_ref serial[THREAD_CASES], par[2][THREAD_CASES];
  static double su[THREAD_CASES], sk[THREAD_CASES], pu[2][THREAD_CASES], pk[2][THREAD_CASES];
  for (int i = 0; i < THREAD_CASES; i++) {
    double s[3], v[3];
    for (int d = 0; d < 3; d++) s[d] = tr_double(&rng, -3, 3), v[d] = tr_double(&rng, -3, 1);
    /* Half of them aimed at each other so that roots occur. */
    if (i % 2) for (int d = 0; d < 3; d++) v[d] = -s[d] * 0.25 + tr_double(&rng, -5, -3);
    cases[i] = tr_rel3(s[0], s[1], s[2], v[0], v[1], v[2], fabs(tr_double(&rng, -2, 1)), fabs(tr_double(&rng, -2, 1)));
  }
  thread_job serial_job = {cases, serial, su, sk, 0, 0};
  thread_run(&serial_job);
  cr_assert_eq(serial_job.failures, 0);
  pthread_t th[2];
  thread_job jobs[2];
  for (int k = 0; k < 2; k++) {
    jobs[k] = (thread_job){cases, par[k], pu[k], pk[k], k, 0};
    cr_assert_eq(pthread_create(&th[k], NULL, thread_run, &jobs[k]), 0);
  }
  for (int k = 0; k < 2; k++) pthread_join(th[k], NULL);
  for (int k = 0; k < 2; k++) {
    cr_expect_eq(jobs[k].failures, 0);
    for (int i = 0; i < THREAD_CASES; i++) {
      cr_assert(tr_same_ref(&par[k][i], &serial[i]), "thread %d case %d differs (seed %llu)", k, i,
                (unsigned long long)seed);
      cr_assert(tr_same(pu[k][i], su[i]) && tr_same(pk[k][i], sk[i]), "thread %d case %d error/kappa differ", k,
                i);
    }
  }
}
