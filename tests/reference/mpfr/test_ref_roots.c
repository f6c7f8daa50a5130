/* test_ref_roots.c: the roots correctly rounded (reference/mpfr/ref_roots.c), against answers known in closed form, a naive solver at high precision, exact rationals and exact symmetries. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "gen.h"
#include "ref_common.h"
#include "ref_fast_api.h"
#include "reference_check.h"
#include "ref_forms.h"
#include "ref_cases.h"

/*
 * The expected answers come from the maths or from an independent
 * computation (reference_check.h), never from the reference. The cases are
 * solved by toi_ref_solve with the default (fast) engine; that both engines
 * give the same bits on every case is test_ref_generic.c's.
 */

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

static void props_expect_naive(const toi_case *c, int n, const char *family) {
  toi_ref r;
  cr_assert_eq(tr_solve_engine(&r, c, TOI_REF_FAST), TOI_OK);
  tr_answer a = tr_naive(c, 0);
  char line[1024];
  if (toi_format_case(line, sizeof line, c) >= (int)sizeof line) strcpy(line, "(long)");
  cr_assert_eq(r.cls, a.cls, "%s #%d: class %s vs naive %s\n  %s\n" SEED_MSG, family, n,
               toi_class_name(r.cls), toi_class_name(a.cls), line, SEED_ARGS);
  cr_assert(tr_same(r.tlo, a.tlo) && tr_same(r.thi, a.thi), "%s #%d: %a %a vs naive %a %a\n  %s\n" SEED_MSG,
            family, n, r.tlo, r.thi, a.tlo, a.thi, line, SEED_ARGS);
}

Test(reference_random, generic_against_naive) {
  tr_rng r = props_rng(0x1111);
  long n = 2000 * tr_scale();
  for (long i = 0; i < n; i++) {
    toi_case c = props_case(&r, -30, 30, -30, 30);
    props_expect_naive(&c, (int)i, "generic");
  }
}

Test(reference_random, wide_against_naive) {
  /* Exponents over the whole double range: overflowing and vanishing roots,
   * integers of thousands of bits. */
  tr_rng r = props_rng(0x2222);
  long n = 300 * tr_scale();
  for (long i = 0; i < n; i++) {
    toi_case c = props_case(&r, -1074, 1000, -1074, 1000);
    props_expect_naive(&c, (int)i, "wide");
  }
}

Test(reference_random, subnormal_roots_against_naive) {
  tr_rng r = props_rng(0x3333);
  long n = 1000 * tr_scale();
  for (long i = 0; i < n; i++) {
    toi_case c = props_case(&r, -1070, -1030, -4, 12);
    props_expect_naive(&c, (int)i, "subnormal");
  }
}

Test(reference_random, near_tangent_against_naive) {
  /* B passes A at height R + d with d a few ulps of R: D tiny of either sign. */
  tr_rng r = props_rng(0x4444);
  long n = 1000 * tr_scale();
  for (long i = 0; i < n; i++) {
    double R = fabs(tr_double(&r, -20, 20));
    double h = R + (double)tr_int(&r, -4, 4) * ldexp(1, (int)tr_int(&r, -60, -52)) * R;
    double x = -fabs(tr_double(&r, -10, 30));
    double vx = fabs(tr_double(&r, -10, 10));
    toi_case c = tr_rel2(x, h, vx, 0, R * 0.25, R * 0.75);
    props_expect_naive(&c, (int)i, "tangent");
  }
}

/* x rounded to 50 significant bits. */
static double props_50bits(double x) {
  if (x == 0) return x;
  int e = ilogb(x);
  return ldexp(nearbyint(ldexp(x, 49 - e)), e - 49);
}

/* Collinear data: roots (-S -+ R)/V are rational; compared with an exact mpq
 * computation rounded the documented way. */
Test(reference_random, collinear_rational_exact) {
  tr_rng r = props_rng(0x5555);
  long n = 2000 * tr_scale();
  mpq_t q, w;
  mpq_inits(q, w, (mpq_ptr)0);
  for (long i = 0; i < n; i++) {
    int wide = i % 4 == 3;
    int pl = wide ? -1074 : -40, ph = wide ? 1000 : 40;
    double pa = tr_double(&r, pl, ph), pb = tr_double(&r, pl, ph);
    double va = tr_double(&r, pl, ph), vb = (i % 16 == 0) ? va : tr_double(&r, pl, ph);
    double ra = fabs(tr_double(&r, pl, ph)), rb = (i % 5 == 0) ? 0 : fabs(tr_double(&r, pl, ph));
    /* Along x, or along (3, 4)/5 scaled by a power of two: still exact. */
    toi_case c;
    int axis = (int)(i % 3);
    if (axis == 2 && fabs(pa) < 0x1p900 && fabs(pb) < 0x1p900 && fabs(va) < 0x1p900 && fabs(vb) < 0x1p900 &&
        fabs(pa) > 0x1p-900 && fabs(pb) > 0x1p-900 && fabs(va) > 0x1p-900 && fabs(vb) > 0x1p-900 &&
        (ra == 0 || ra > 0x1p-900)) {
      /* (3, 4) x/8 and 5 r/8 are exact when x and r have at most 50 bits. */
      double k = 0x1p-3;
      pa = props_50bits(pa), pb = props_50bits(pb), va = props_50bits(va), vb = props_50bits(vb);
      ra = props_50bits(ra), rb = props_50bits(rb);
      c = tr_case2(3 * k * pa, 4 * k * pa, 3 * k * va, 4 * k * va, ra * 5 * k, 3 * k * pb, 4 * k * pb,
                   3 * k * vb, 4 * k * vb, rb * 5 * k);
    } else if (axis == 1) {
      c = tr_rel3(0, 0, 0, 0, 0, 0, ra, rb);
      c.pa[2] = pa, c.pb[2] = pb, c.va[2] = va, c.vb[2] = vb;
    } else {
      c = tr_case2(pa, 0, va, 0, ra, pb, 0, vb, 0, rb);
    }
    toi_ref ref;
    cr_assert_eq(tr_solve_engine(&ref, &c, TOI_REF_FAST), TOI_OK);
    double want_lo = NAN, want_hi = NAN;
    if (va != vb) {
      /* |S + V t| = R: t = (-S -+ R)/V, lower first. */
      double e[2];
      for (int k2 = 0; k2 < 2; k2++) {
        mpq_set_d(q, pa), mpq_set_d(w, pb), mpq_sub(q, q, w); /* -S = pa - pb */
        mpq_set_d(w, ra);
        mpq_t rr;
        mpq_init(rr);
        mpq_set_d(rr, rb);
        mpq_add(w, w, rr);
        if (k2 == 0) mpq_sub(q, q, w);
        else mpq_add(q, q, w);
        mpq_set_d(w, vb), mpq_set_d(rr, va), mpq_sub(w, w, rr);
        mpq_div(q, q, w);
        mpq_clear(rr);
        e[k2] = tr_round_q(q);
        if (e[k2] == 0 && mpq_sgn(q) < 0) e[k2] = -0.0;
      }
      int vpos = vb > va;
      want_lo = vpos ? e[0] : e[1];
      want_hi = vpos ? e[1] : e[0];
    }
    cr_assert(tr_same(ref.tlo, want_lo) && tr_same(ref.thi, want_hi),
              "collinear #%ld: %a %a vs exact %a %a\n" SEED_MSG, i, ref.tlo, ref.thi, want_lo, want_hi,
              SEED_ARGS);
  }
  mpq_clears(q, w, (mpq_ptr)0);
}

static toi_case props_swap(const toi_case *c) {
  toi_case d = *c;
  memcpy(d.pa, c->pb, sizeof d.pa), memcpy(d.pb, c->pa, sizeof d.pb);
  memcpy(d.va, c->vb, sizeof d.va), memcpy(d.vb, c->va, sizeof d.vb);
  d.ra = c->rb, d.rb = c->ra, d.ma = c->mb, d.mb = c->ma;
  return d;
}

Test(reference_invariance, swap_balls) {
  tr_rng r = props_rng(0x6666);
  long n = 3000 * tr_scale();
  for (long i = 0; i < n; i++) {
    toi_case c = (i % 4 == 0) ? props_case(&r, -1074, 1000, -1074, 1000) : props_case(&r, -30, 30, -30, 30);
    toi_case d = props_swap(&c);
    toi_ref x, y;
    cr_assert_eq(tr_solve_engine(&x, &c, TOI_REF_FAST), TOI_OK);
    cr_assert_eq(tr_solve_engine(&y, &d, TOI_REF_FAST), TOI_OK);
    cr_assert(tr_same_ref(&x, &y), "swap #%ld: %s %a %a vs %s %a %a\n" SEED_MSG, i, toi_class_name(x.cls), x.tlo,
              x.thi, toi_class_name(y.cls), y.tlo, y.thi, SEED_ARGS);
    if (i % 8 == 0) {
      double k1, k2;
      cr_assert_eq(tr_kappa_engine(&k1, &c, TOI_FORWARD, TOI_REF_FAST), TOI_OK);
      cr_assert_eq(tr_kappa_engine(&k2, &d, TOI_FORWARD, TOI_REF_FAST), TOI_OK);
      cr_assert(tr_same(k1, k2), "swap kappa #%ld: %a vs %a\n" SEED_MSG, i, k1, k2, SEED_ARGS);
    }
  }
}

/* A multiple of 2^-20 below 2^30 in magnitude: adding an integer below 2^20
 * stays exact (fewer than 53 bits). */
static double props_grid(tr_rng *r) { return (double)tr_int(r, -(1L << 49), 1L << 49) * 0x1p-20; }

Test(reference_invariance, translate_positions_and_velocities) {
  tr_rng r = props_rng(0x7777);
  long n = 3000 * tr_scale();
  for (long i = 0; i < n; i++) {
    toi_case c;
    memset(&c, 0, sizeof c);
    c.dim = 2 + (int)(i & 1);
    c.ma = c.mb = 1;
    for (int k = 0; k < c.dim; k++) {
      c.pa[k] = props_grid(&r), c.pb[k] = c.pa[k] + (double)tr_int(&r, -(1L << 24), 1L << 24) * 0x1p-20;
      c.va[k] = props_grid(&r), c.vb[k] = c.va[k] + (double)tr_int(&r, -(1L << 24), 1L << 24) * 0x1p-20;
    }
    if (i % 2) /* aimed */
      for (int k = 0; k < c.dim; k++) c.vb[k] = c.va[k] - (c.pb[k] - c.pa[k]) * 0.5;
    c.ra = (double)tr_int(&r, 0, 1L << 23) * 0x1p-20, c.rb = (double)tr_int(&r, 0, 1L << 22) * 0x1p-20;
    toi_case d = c;
    for (int k = 0; k < c.dim; k++) {
      double o = (double)tr_int(&r, -(1L << 20) + 1, (1L << 20) - 1);
      double ov = (double)tr_int(&r, -(1L << 20) + 1, (1L << 20) - 1);
      d.pa[k] += o, d.pb[k] += o;
      d.va[k] += ov, d.vb[k] += ov;
      cr_assert(d.pa[k] - o == c.pa[k] && d.pb[k] - o == c.pb[k] && d.va[k] - ov == c.va[k] &&
                    d.vb[k] - ov == c.vb[k],
                "inexact shift");
    }
    toi_ref x, y;
    cr_assert_eq(tr_solve_engine(&x, &c, TOI_REF_FAST), TOI_OK);
    cr_assert_eq(tr_solve_engine(&y, &d, TOI_REF_FAST), TOI_OK);
    cr_assert(tr_same_ref(&x, &y), "translate #%ld: %a %a vs %a %a\n" SEED_MSG, i, x.tlo, x.thi, y.tlo, y.thi,
              SEED_ARGS);
  }
}

static toi_case props_scale(const toi_case *c, int kl, int kv) {
  toi_case d = *c;
  for (int i = 0; i < 3; i++) {
    d.pa[i] = ldexp(c->pa[i], kl), d.pb[i] = ldexp(c->pb[i], kl);
    d.va[i] = ldexp(c->va[i], kv), d.vb[i] = ldexp(c->vb[i], kv);
  }
  d.ra = ldexp(c->ra, kl), d.rb = ldexp(c->rb, kl);
  return d;
}

Test(reference_invariance, scale_everything) {
  /* Lengths and velocities by the same 2^k: t = length/velocity unchanged.
   * Data within 2^+-40, k within +-900: every scaled input stays normal. */
  tr_rng r = props_rng(0x8888);
  long n = 3000 * tr_scale();
  for (long i = 0; i < n; i++) {
    toi_case c = props_case(&r, -30, 30, -30, 30);
    int k = (int)tr_int(&r, -900, 900);
    toi_case d = props_scale(&c, k, k);
    toi_ref x, y;
    cr_assert_eq(tr_solve_engine(&x, &c, TOI_REF_FAST), TOI_OK);
    cr_assert_eq(tr_solve_engine(&y, &d, TOI_REF_FAST), TOI_OK);
    cr_assert(tr_same_ref(&x, &y), "scale 2^%d #%ld: %a %a vs %a %a\n" SEED_MSG, k, i, x.tlo, x.thi, y.tlo,
              y.thi, SEED_ARGS);
  }
}

static int props_normal(double t) { return isfinite(t) && fabs(t) >= DBL_MIN; }

Test(reference_invariance, scale_velocities) {
  /* Velocities by 2^k: the roots are divided by 2^k exactly, as long as
   * neither rounding falls outside the normal range. */
  tr_rng r = props_rng(0x9999);
  long n = 3000 * tr_scale();
  long checked = 0;
  for (long i = 0; i < n; i++) {
    toi_case c = props_case(&r, -30, 30, -30, 30);
    int k = (int)tr_int(&r, -900, 900);
    toi_case d = props_scale(&c, 0, k);
    toi_ref x, y;
    cr_assert_eq(tr_solve_engine(&x, &c, TOI_REF_FAST), TOI_OK);
    cr_assert_eq(tr_solve_engine(&y, &d, TOI_REF_FAST), TOI_OK);
    cr_assert_eq(x.cls, y.cls);
    double t[2] = {x.tlo, x.thi}, u[2] = {y.tlo, y.thi};
    for (int j = 0; j < 2; j++) {
      if (isnan(t[j])) {
        cr_assert(isnan(u[j]));
        continue;
      }
      double want = ldexp(t[j], -k);
      if (!props_normal(t[j]) || !props_normal(want)) continue;
      checked++;
      cr_assert(tr_same(u[j], want), "velocities 2^%d #%ld: %a vs %a\n" SEED_MSG, k, i, u[j], want, SEED_ARGS);
    }
  }
  cr_assert_gt(checked, n / 4, "too few roots checked: %ld", checked);
}
