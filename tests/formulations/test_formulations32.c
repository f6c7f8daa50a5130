/* test_formulations32.c: the formulations' binary32 variants: exact cases, float arithmetic, accurate's rounding. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <float.h>
#include <math.h>
#include <mpfr.h>
#include <stdint.h>
#include <string.h>
#include "gen.h"
#include "precision.h"
#include "toi.h"
#include "toiref.h"
#include "case_build.h"
#include "test_env.h"
#include "test_rng.h"
#include "ref_forms.h"

static const char *const f32_names[] = {"expanded",     "expanded-corner",  "inner-product", "ericson",
                                        "minkowski",    "phet",             "phet-reverse",  "overlap-recovery",
                                        "gsl-stable",   "robust",           "accurate"};
#define F32_NAMES (sizeof f32_names / sizeof f32_names[0])

static const toi_formulation *f32_find(const char *name) {
  const toi_formulation *f = toi_formulation_find(name);
  cr_assert_not_null(f, "formulation '%s' is not registered", name);
  return f;
}

static int f32_same_time(double x, double y) {
  if (isnan(x) || isnan(y)) return isnan(x) && isnan(y);
  return x == y && signbit(x) == signbit(y);
}

/* ---- the registry ---- */

Test(formulation32, every_formulation_has_a_binary32_variant) {
  size_t n = 0;
  const toi_formulation *all = toi_formulations(&n);
  cr_assert_eq(n, F32_NAMES);
  for (size_t i = 0; i < n; i++) {
    cr_assert_not_null(all[i].solve32, "%s has no binary32 variant", all[i].name);
    cr_assert(all[i].solve32 != all[i].solve, "%s: the binary32 variant is the binary64 one", all[i].name);
    cr_assert(toi_formulation_solver(&all[i], TOI_BINARY32) == all[i].solve32);
    cr_assert(toi_formulation_solver(&all[i], TOI_BINARY64) == all[i].solve);
  }
  cr_assert_null(toi_formulation_solver(NULL, TOI_BINARY32));
}

/* ---- cases where float arithmetic is exact ---- */

/* Small integers and power-of-two radii: every sum, product, square root and
   quotient of every formulation is exact in float, so each variant's answer
   is the double one, and the hits are at the times the maths gives. */
typedef struct f32_exact {
  toi_case c;
  double t; /* the forward hit time, NaN when there is none */
} f32_exact;

static toi_case f32_case3(const double pa[3], const double va[3], double ra, const double pb[3],
                          const double vb[3], double rb) {
  toi_case c;
  tc_blank(&c, 3);
  strcpy(c.id, "t3");
  memcpy(c.pa, pa, sizeof c.pa);
  memcpy(c.va, va, sizeof c.va);
  memcpy(c.pb, pb, sizeof c.pb);
  memcpy(c.vb, vb, sizeof c.vb);
  c.ra = ra;
  c.rb = rb;
  return c;
}

static size_t f32_exact_cases(f32_exact *out) {
  size_t k = 0;
  /* s = (10, 0), v = (-2, 0), R = 2: c = 96, b = -20, D = 16, t = 16 / 4 = 4. */
  out[k++] = (f32_exact){tc_case2(0, 0, 0, 0, 1, 1, 10, 0, -2, 0, 1, 1), 4};
  /* The same translated by (3, -2) and with A moving too (v unchanged). */
  out[k++] = (f32_exact){tc_case2(3, -2, 1, 1, 1, 1, 13, -2, -1, 1, 1, 1), 4};
  /* 3D: s = (8, 0, 6), v = (-4, 0, -3), R = 1 + 4: c = 75, b = -50, D = 625, t = 1. */
  {
    const double pa[3] = {1, 2, 3}, va[3] = {0, 0, 0}, pb[3] = {9, 2, 9}, vb[3] = {-4, 0, -3};
    out[k++] = (f32_exact){f32_case3(pa, va, 1, pb, vb, 4), 1};
  }
  /* A miss (passes at distance 4 > R = 2), a separation, a static pair. */
  out[k++] = (f32_exact){tc_case2(0, 0, 0, 0, 1, 1, 10, 4, -2, 0, 1, 1), NAN};
  out[k++] = (f32_exact){tc_case2(0, 0, 0, 0, 1, 1, 10, 0, 2, 0, 1, 1), NAN};
  out[k++] = (f32_exact){tc_case2(0, 0, 1, 1, 1, 1, 10, 0, 1, 1, 1, 1), NAN};
  /* Overlaps: centres 1 apart, R = 4; approaching and leaving. overlap-recovery:
     |dr|^2 = 1, dr.dv = 2, dv.dv = 4: roots of 4x^2 - 4x - 15 are -1.5, 2.5. */
  out[k++] = (f32_exact){tc_case2(0, 0, 0, 0, 2, 1, 1, 0, 2, 0, 2, 1), NAN};
  out[k++] = (f32_exact){tc_case2(0, 0, 0, 0, 2, 1, 1, 0, -2, 0, 2, 1), NAN};
  /* A head-on hit at t = 0.5 with fractions: s = (3, 0), v = (-2, 0), R = 2. */
  out[k++] = (f32_exact){tc_case2(0, 0, 0, 0, 0.5, 1, 3, 0, -2, 0, 1.5, 1), 0.5};
  return k;
}

Test(formulation32, exact_cases_equal_binary64) {
  f32_exact cases[16];
  size_t nc = f32_exact_cases(cases);
  for (size_t j = 0; j < F32_NAMES; j++) {
    const toi_formulation *f = f32_find(f32_names[j]);
    for (size_t i = 0; i < nc; i++) {
      const toi_case *c = &cases[i].c;
      toi_result r64 = f->solve(c), r32 = f->solve32(c);
      cr_assert_eq(r32.cls, r64.cls, "%s case %zu: binary32 %s, binary64 %s", f->name, i,
                   toi_class_name(r32.cls), toi_class_name(r64.cls));
      cr_assert(f32_same_time(r32.t, r64.t), "%s case %zu: binary32 t = %a, binary64 %a", f->name, i, r32.t,
                r64.t);
      if (r32.cls == TOI_HIT && f->direction == TOI_FORWARD)
        cr_assert(r32.t == cases[i].t, "%s case %zu: t = %a, expected %a", f->name, i, r32.t, cases[i].t);
    }
  }
}

/* The forward hits of the table are hits for every forward formulation (all
   of them answer these plain cases), and overlap-recovery finds 2.5 back. */
Test(formulation32, exact_cases_known_answers) {
  f32_exact cases[16];
  size_t nc = f32_exact_cases(cases);
  for (size_t j = 0; j < F32_NAMES; j++) {
    const toi_formulation *f = f32_find(f32_names[j]);
    if (f->direction != TOI_FORWARD) continue;
    for (size_t i = 0; i < nc; i++) {
      if (isnan(cases[i].t)) continue;
      toi_result r = f->solve32(&cases[i].c);
      cr_assert(r.cls == TOI_HIT && r.t == cases[i].t, "%s case %zu: %s %a, expected hit %a", f->name, i,
                toi_class_name(r.cls), r.t, cases[i].t);
    }
  }
  toi_result r = f32_find("overlap-recovery")->solve32(&cases[6].c);
  cr_assert(r.cls == TOI_OVERLAP && r.t == -2.5, "overlap-recovery: %s %a", toi_class_name(r.cls), r.t);
}

/* robust scales lengths and speeds outside its range, which is narrower in
   float: lengths and speeds times 2^40 or 2^-40 (exact, t unchanged) go
   through the scaled path of the binary32 variant. accurate too. */
Test(formulation32, exact_kernels_far_from_one) {
  const int ks[] = {40, -40, 100, -100};
  for (size_t j = 0; j < sizeof ks / sizeof ks[0]; j++) {
    const double q = ldexp(1, ks[j]);
    toi_case c = tc_case2(0, 0, 0, 0, q, 1, 10 * q, 0, -2 * q, 0, q, 1);
    for (int m = 0; m < 2; m++) {
      const toi_formulation *f = f32_find(m ? "accurate" : "robust");
      toi_result r = f->solve32(&c);
      cr_assert(r.cls == TOI_HIT && r.t == 4, "%s at 2^%d: %s %a", f->name, ks[j], toi_class_name(r.cls), r.t);
    }
  }
}

/* ---- the variants really compute in float ---- */

/* Ericson's and the expanded formula written directly in float in the test:
   an independent float computation the variants must equal bit for bit. */
static toi_result f32_ericson_float(const toi_case *c) {
  float s[3] = {0}, v[3] = {0};
  const int n = c->dim == 3 ? 3 : 2;
  for (int i = 0; i < n; i++) {
    s[i] = (float)c->pb[i] - (float)c->pa[i];
    v[i] = (float)c->vb[i] - (float)c->va[i];
  }
  float ss = s[0] * s[0], vv = v[0] * v[0], vs = v[0] * s[0];
  for (int i = 1; i < n; i++) {
    ss = ss + s[i] * s[i];
    vv = vv + v[i] * v[i];
    vs = vs + v[i] * s[i];
  }
  const float r = (float)c->rb + (float)c->ra;
  const float cc = ss - r * r;
  if (cc < 0) return (toi_result){TOI_OVERLAP, 0.0};
  if (vv < 1e-12f) return (toi_result){TOI_NONE, NAN};
  if (vs >= 0) return (toi_result){TOI_NONE, NAN};
  const float d = vs * vs - vv * cc;
  if (d < 0) return (toi_result){TOI_NONE, NAN};
  return (toi_result){TOI_HIT, (-vs - sqrtf(d)) / vv};
}

static toi_result f32_expanded_float(const toi_case *c) {
  float s[3] = {0}, v[3] = {0};
  const int n = c->dim == 3 ? 3 : 2;
  for (int i = 0; i < n; i++) {
    s[i] = (float)c->pb[i] - (float)c->pa[i];
    v[i] = (float)c->vb[i] - (float)c->va[i];
  }
  float ss = s[0] * s[0], vv = v[0] * v[0], sv = s[0] * v[0];
  for (int i = 1; i < n; i++) {
    ss = ss + s[i] * s[i];
    vv = vv + v[i] * v[i];
    sv = sv + s[i] * v[i];
  }
  const float R = (float)c->ra + (float)c->rb;
  const float A = vv, B = 2 * sv, C = ss - R * R;
  if (A == 0) return (toi_result){TOI_NONE, NAN};
  const float disc = B * B - 4 * A * C;
  if (disc < 0) return (toi_result){TOI_NONE, NAN};
  const float t = (-B - sqrtf(disc)) / (2 * A);
  if (t >= 0) return (toi_result){TOI_HIT, t};
  return (toi_result){TOI_NONE, NAN};
}

/* Cases of floats from the aimed family (hits and misses near 80/20): the
   variants equal the test's float formulas on every case, and on many of
   them the float answer is not the double answer rounded to float (so the
   variant is not a double computation rounded at the end). */
static void f32_check_float_formula(const char *name, toi_result (*ref)(const toi_case *)) {
  const toi_formulation *f = f32_find(name);
  toi_gen_opts o;
  toi_gen_opts_default(&o, TOI_GEN_AIMED);
  o.seed = te_seed(0x3232u);
  long n = 20000 * te_scale(), differ = 0, hits = 0;
  for (long i = 0; i < n; i++) {
    toi_case c0, c;
    size_t bin;
    cr_assert_eq(toi_gen_case(&c0, NULL, &bin, &o, (uint64_t)i), TOI_OK);
    cr_assert_geq(toi_case_round(&c, &c0, TOI_BINARY32), 0);
    toi_result want = ref(&c), got = f->solve32(&c), r64 = f->solve(&c);
    cr_assert(got.cls == want.cls && f32_same_time(got.t, want.t), "%s case %ld: %s %a, float formula %s %a",
              name, i, toi_class_name(got.cls), got.t, toi_class_name(want.cls), want.t);
    cr_assert((double)(float)got.t == got.t || isnan(got.t), "%s: t = %a is not a float", name, got.t);
    if (got.cls == TOI_HIT) hits++;
    if (got.cls == TOI_HIT && r64.cls == TOI_HIT && (double)(float)r64.t != got.t) differ++;
  }
  cr_assert_gt(hits, n / 2, "%s: %ld hits of %ld", name, hits, n);
  cr_assert_gt(differ, hits / 20, "%s: only %ld of %ld float times differ from the double time rounded", name,
               differ, hits);
}

Test(formulation32, ericson_computes_in_float) { f32_check_float_formula("ericson", f32_ericson_float); }
Test(formulation32, expanded_computes_in_float) { f32_check_float_formula("expanded", f32_expanded_float); }

/* One constructed case where float and double disagree visibly: ericson's
   discriminant b^2 - a c cancels. s = (1 + 2^-12, 0), v = (-1, 2^-11),
   R = 1: in float c = 2^-11 + 2^-24 is exact, b = -(1 + 2^-12), and
   b^2 = 1 + 2^-11 + 2^-24 rounds to 1 + 2^-11 in float (24 bits), so the
   float discriminant loses the 2^-24 the double one keeps. */
Test(formulation32, ericson_float_discriminant_rounds) {
  toi_case c = tc_case2(0, 0, 0, 0, 0.5, 1, 1 + 0x1p-12, 0, -1, 0x1p-11, 0.5, 1);
  toi_result want = f32_ericson_float(&c), got = f32_find("ericson")->solve32(&c);
  toi_result r64 = f32_find("ericson")->solve(&c);
  cr_assert(got.cls == want.cls && f32_same_time(got.t, want.t), "ericson32 %s %a, float formula %s %a",
            toi_class_name(got.cls), got.t, toi_class_name(want.cls), want.t);
  cr_assert(r64.cls == TOI_HIT && got.cls == TOI_HIT);
  cr_assert((double)(float)r64.t != got.t, "float %a, double %a: the same after rounding", got.t, r64.t);
}

/* Ericson's "b >= 0" guard in float: touching balls moving tangentially,
   s = (2,0), v = (0,1), radii 1 (c = 0, b = 0, every float exact) are no
   contact, as in binary64; "b > 0" would give a hit at t = 0. */
Test(formulation32, ericson_touching_and_tangential_is_no_contact) {
  toi_case c = tc_case2(0, 0, 0, 0, 1, 1, 2, 0, 0, 1, 1, 1);
  toi_result r = f32_find("ericson")->solve32(&c);
  cr_assert(r.cls == TOI_NONE && isnan(r.t), "ericson32: %s %a", toi_class_name(r.cls), r.t);
  toi_result want = f32_ericson_float(&c);
  cr_assert(want.cls == TOI_NONE, "the float formula: %s", toi_class_name(want.cls));
}

/* ---- accurate in binary32: the exact class and the correctly rounded root ---- */

/* The exact c, b, D of a case of floats: s, R are exact in 300 bits, their
   squares and products in 600, D in 1300 (every float is a multiple of
   2^-149 below 2^128). */
#define F32_EXACT_PREC 1400

typedef struct f32_exact_quad {
  mpfr_t a, b, c, d;
} f32_exact_quad;

static void f32_quad(f32_exact_quad *q, const toi_case *cs) {
  mpfr_t x, y, t, R;
  mpfr_inits2(F32_EXACT_PREC, q->a, q->b, q->c, q->d, x, y, t, R, (mpfr_ptr)0);
  mpfr_set_zero(q->a, 1);
  mpfr_set_zero(q->b, 1);
  mpfr_set_zero(q->c, 1);
  for (int i = 0; i < cs->dim; i++) {
    mpfr_set_d(x, cs->pb[i], MPFR_RNDN);
    mpfr_sub_d(x, x, cs->pa[i], MPFR_RNDN); /* s_i, exact */
    mpfr_set_d(y, cs->vb[i], MPFR_RNDN);
    mpfr_sub_d(y, y, cs->va[i], MPFR_RNDN); /* v_i, exact */
    mpfr_fma(q->a, y, y, q->a, MPFR_RNDN);
    mpfr_fma(q->b, x, y, q->b, MPFR_RNDN);
    mpfr_fma(q->c, x, x, q->c, MPFR_RNDN);
  }
  mpfr_set_d(R, cs->ra, MPFR_RNDN);
  mpfr_add_d(R, R, cs->rb, MPFR_RNDN);
  mpfr_sqr(t, R, MPFR_RNDN);
  mpfr_sub(q->c, q->c, t, MPFR_RNDN);
  mpfr_sqr(q->d, q->b, MPFR_RNDN);
  mpfr_mul(t, q->a, q->c, MPFR_RNDN);
  mpfr_sub(q->d, q->d, t, MPFR_RNDN);
  mpfr_clears(x, y, t, R, (mpfr_ptr)0);
}

/* x rounded to binary32 (nearest even, subnormals, overflow to inf) as a
   double: 24 bits in the exponent range of float. */
static double f32_round(const mpfr_t x, mpfr_rnd_t rnd) {
  mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
  mpfr_t y;
  mpfr_init2(y, 24);
  mpfr_set_emin(-148);
  mpfr_set_emax(128);
  int inex = mpfr_set(y, x, rnd); /* x itself may lie outside the float range */
  inex = mpfr_check_range(y, inex, rnd);
  inex = mpfr_subnormalize(y, inex, rnd);
  double r = mpfr_get_d(y, MPFR_RNDN); /* exact */
  mpfr_set_emin(emin);
  mpfr_set_emax(emax);
  mpfr_clear(y);
  return r;
}

/* The exact side of t* (the lower root) against m: with q(m) = a m^2 + 2 b m
   + c and g(m) = a m + b, m < t* when q(m) > 0 and g(m) < 0 (left of both
   roots); m = t* when q(m) = 0 and g(m) <= 0; otherwise t* < m. */
static int f32_root_side(const f32_exact_quad *q, double m) {
  mpfr_t M, x, y;
  mpfr_inits2(8000, M, x, y, (mpfr_ptr)0);
  mpfr_set_d(M, m, MPFR_RNDN);
  mpfr_mul(x, q->a, M, MPFR_RNDN);
  mpfr_add(y, x, q->b, MPFR_RNDN); /* g(m), exact */
  mpfr_add(x, y, q->b, MPFR_RNDN); /* a m + 2b */
  mpfr_mul(x, x, M, MPFR_RNDN);
  mpfr_add(x, x, q->c, MPFR_RNDN); /* q(m), exact */
  int sq = mpfr_sgn(x), sg = mpfr_sgn(y);
  mpfr_clears(M, x, y, (mpfr_ptr)0);
  if (sq > 0 && sg < 0) return 1;
  if (sq == 0 && sg <= 0) return 0;
  return -1;
}

/* RN32(t*), t* = c / (sqrt D - b) for a hit or graze: an enclosure at 200
   bits with directed roundings; when its ends round to different floats,
   the midpoint between them is inside and its exact side decides (an exact
   tie to the even float, 2^128 counting as even past FLT_MAX). */
static double f32_root_rounded(const f32_exact_quad *q) {
  mpfr_t slo, shi, lo, hi;
  mpfr_inits2(200, slo, shi, lo, hi, (mpfr_ptr)0);
  mpfr_sqrt(slo, q->d, MPFR_RNDD);
  mpfr_sqrt(shi, q->d, MPFR_RNDU);
  mpfr_sub(slo, slo, q->b, MPFR_RNDD);
  mpfr_sub(shi, shi, q->b, MPFR_RNDU);
  mpfr_div(lo, q->c, shi, MPFR_RNDD);
  mpfr_div(hi, q->c, slo, MPFR_RNDU);
  double flo = f32_round(lo, MPFR_RNDN), fhi = f32_round(hi, MPFR_RNDN);
  mpfr_clears(slo, shi, lo, hi, (mpfr_ptr)0);
  if (flo == fhi) return flo;
  cr_assert(flo < fhi);
  double below = f32_round(lo, MPFR_RNDD), above = below < FLT_MAX ? nextafterf((float)below, INFINITY) : INFINITY;
  double m = above < INFINITY ? below + (above - below) / 2 : 0x1p128 - 0x1p103;
  int side = f32_root_side(q, m);
  if (side > 0) return above;
  if (side < 0) return below;
  if (!(above < INFINITY)) return above;
  float fb = (float)below;
  uint32_t bits;
  memcpy(&bits, &fb, sizeof bits);
  return bits & 1 ? above : below;
}

static void f32_quad_clear(f32_exact_quad *q) { mpfr_clears(q->a, q->b, q->c, q->d, (mpfr_ptr)0); }

typedef struct f32_family {
  int family;
} f32_family;

ParameterizedTestParameters(formulation32, accurate_is_correctly_rounded) {
  static f32_family fams[TOI_GEN_FAMILY_COUNT + 1];
  for (int i = 0; i <= TOI_GEN_FAMILY_COUNT; i++) fams[i].family = i;
  return cr_make_param_array(f32_family, fams, TOI_GEN_FAMILY_COUNT + 1);
}

/* On 10^5 cases of each family rounded to binary32: the reference's binary32
   roots (toi_ref_solve in a precision, both engines) and accurate's binary32
   variant have the exact class of the rounded case (toi_ref_solve) and its
   time is the root correctly rounded to binary32, computed here with MPFR.
   The last parameter is generic with every bit pattern alike over the float
   range (subnormal inputs, roots from 0 to inf). */
ParameterizedTest(f32_family *p, formulation32, accurate_is_correctly_rounded, .timeout = 600) {
  const toi_formulation *f = f32_find("accurate");
  toi_gen_opts o;
  const int bits = p->family == TOI_GEN_FAMILY_COUNT;
  toi_gen_opts_default(&o, bits ? TOI_GEN_GENERIC : (toi_gen_family)p->family);
  o.seed = te_seed(0xacc32u) + (uint64_t)p->family;
  if (bits) {
    o.sampling = TOI_GEN_SAMPLE_BITS;
    o.pos = o.vel = 0x1p126;
    o.rlo = 0x1p-149;
    o.rhi = 0x1p120;
  }
  if (o.family == TOI_GEN_SCALE) { /* exponents in float terms: roots from 0 through subnormals to inf */
    o.e = (toi_gen_range){-100, 100, 10};
    o.f = (toi_gen_range){-100, 100, 1};
  }
  long n = 100000 * te_scale(), rooted = 0, skipped = 0;
  for (long i = 0; i < n; i++) {
    toi_case c0, c;
    size_t bin;
    cr_assert_eq(toi_gen_case(&c0, NULL, &bin, &o, (uint64_t)i), TOI_OK);
    if (toi_case_round(&c, &c0, TOI_BINARY32) < 0) {
      skipped++; /* an input beyond the float range: not a binary32 case */
      continue;
    }
    toi_ref ref;
    cr_assert_eq(tr_solve(&ref, &c), TOI_OK);
    toi_result r = f->solve32(&c);
    cr_assert_eq(r.cls, ref.cls, "%s case %ld (%s): class %s, exact %s", toi_gen_family_name(o.family), i, c.id,
                 toi_class_name(r.cls), toi_class_name(ref.cls));
    if (r.cls == TOI_HIT || r.cls == TOI_GRAZE) {
      f32_exact_quad q;
      f32_quad(&q, &c);
      double want = f32_root_rounded(&q);
      f32_quad_clear(&q);
      cr_assert(r.t == want, "%s case %ld: t = %a, correctly rounded %a", toi_gen_family_name(o.family), i, r.t, want);
      /* The reference in binary32 against the same independent rounding: the
         fast engine on every case, the MPFR engine on every 16th. */
      for (int e = 0; e < (i % 16 ? 1 : 2); e++) {
        toi_ref r32;
        cr_assert_eq(tr_solve_prec(&r32, &c, TOI_BINARY32, e ? TOI_REF_MPFR : TOI_REF_FAST), TOI_OK);
        cr_assert(r32.tfwd == want && r32.cls == ref.cls, "%s case %ld: reference (%s) in binary32 %a, exact %a",
                  toi_gen_family_name(o.family), i, e ? "mpfr" : "fast", r32.tfwd, want);
      }
      rooted++;
    } else if (r.cls == TOI_CONTACT) {
      cr_assert(r.t == 0);
    } else {
      cr_assert(isnan(r.t));
    }
  }
  cr_assert_lt(skipped, n / 2);
  cr_log_info("%s: %ld roots checked, %ld cases beyond float", toi_gen_family_name(o.family), rooted, skipped);
}

/* Constructed roots on binary32 midpoints and beside them: s = (x, 0),
   v = (vx, 0), R = 1 gives D = vx^2 and t* = (x - 1) / |vx| exactly; with
   x and vx floats, t* is an exact midpoint (a tie, to even) or a known
   distance from one. Then a root in the binary32 subnormals (a tie on the
   2^-149 grid) and roots beside FLT_MAX and past it. */
Test(formulation32, accurate_on_midpoints) {
  const toi_formulation *f = f32_find("accurate");
  struct {
    double r, x, vx, want;
  } rows[] = {
      {0.5, 0x1p24 + 2, -1, 0x1p24},          /* t* = 2^24 + 1: a tie, to even 2^24 */
      {0.5, 0x1p24 + 4, -1, 0x1p24 + 4},      /* t* = 2^24 + 3: a tie, to even 2^24 + 4 */
      {0.5, 0x1p25, -2, 0x1p24},              /* t* = 2^24 - 1/2: a tie, to even 2^24 */
      {0.5, 0x1p25 + 4, -2, 0x1p24 + 2},      /* t* = 2^24 + 3/2: up */
      {0.5, 0x1p25 + 8, -3, 11184813},        /* t* = (2^25 + 7) / 3 = 11184813, a float */
      {0x1p-31, 0x1p-30 + 0x3p-52, -0x1p98, 0x1p-148}, /* t* = 3 2^-150: a tie, to 2^-148 */
      {0x1p-31, 0x1p-30 + 0x1p-52, -0x1p98, 0},        /* t* = 2^-150: a tie, to even +0 */
      {0.5, 0x1p127 - 0x1p103, -0.5, FLT_MAX}, /* t* = FLT_MAX - 2: FLT_MAX */
      {0.5, 0x1p127, -0.5, INFINITY},          /* t* = 2^128 - 2, past the last midpoint: inf */
      {0.5, 0x1p100, -0x1p-100, INFINITY},     /* t* ~ 2^200 */
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    const double r = rows[i].r;
    toi_case c = tc_case2(0, 0, 0, 0, r, 1, rows[i].x, 0, rows[i].vx, 0, r, 1);
    toi_case cr;
    cr_assert_eq(toi_case_round(&cr, &c, TOI_BINARY32), 0, "row %zu: not a float case", i);
    toi_result res = f->solve32(&c);
    cr_assert(res.cls == TOI_HIT && res.t == rows[i].want, "row %zu: %s %a, expected %a", i,
              toi_class_name(res.cls), res.t, rows[i].want);
  }
}

/* Roots whose binary64 rounding lands exactly on a binary32 midpoint: the
   float nearest the double is then the wrong one half of the time. With
   v = (-1, 0) and s = (X, Y), D = R^2 - Y^2 and t* = X - sqrt D.
   Above: R = 2^30, Y = 1, X = 2^30 + 2^24 + 1: sqrt D = 2^30 - 2^-31 - ...,
   t* = 2^24 + 1 + 2^-31 + ..., within a quarter of a double ulp above the
   midpoint 2^24 + 1: 2^24 + 2, where the double gives the even 2^24.
   Below: R = 2^30 + 2^7, Y = 2^19, D = 2^60 + 2^14, sqrt D = 2^30 + 2^-17
   - ..., X = 2^40 + 2^30 + 3 2^16: t* = 2^40 + 3 2^16 - 2^-17 + ..., just
   below the midpoint: 2^40 + 2^17, where the double gives the even 2^40 +
   2^18. Each is checked against the MPFR rounding above too. */
Test(formulation32, accurate_where_double_rounding_fails) {
  const toi_formulation *f = f32_find("accurate");
  toi_case cases[2] = {
      tc_case2(-1, 0, 0, 0, 0x1p29, 1, 0x1p30 + 0x1p24, 1, -1, 0, 0x1p29, 1),
      tc_case2(-0x3p16, 0, 0, 0, 0x1p29 + 0x1p6, 1, 0x1p40 + 0x1p30, 0x1p19, -1, 0, 0x1p29 + 0x1p6, 1),
  };
  const double want[2] = {0x1p24 + 2, 0x1p40 + 0x1p17};
  for (int i = 0; i < 2; i++) {
    toi_case cr;
    cr_assert_eq(toi_case_round(&cr, &cases[i], TOI_BINARY32), 0, "case %d: not a float case", i);
    toi_result r = f->solve32(&cases[i]), r64 = f->solve(&cases[i]);
    f32_exact_quad q;
    f32_quad(&q, &cases[i]);
    double mp = f32_root_rounded(&q);
    f32_quad_clear(&q);
    cr_assert(mp == want[i], "case %d: MPFR %a, expected %a", i, mp, want[i]);
    cr_assert(r.cls == TOI_HIT && r.t == want[i], "case %d: %s %a, expected %a", i, toi_class_name(r.cls), r.t,
              want[i]);
    cr_assert((double)(float)r64.t != want[i], "case %d: the double %a rounds right: not a double-rounding case",
              i, r64.t);
  }
}

/* Every binary32 variant on cases of floats from the mixed suite: a time
   that is a float value (or NaN), and the binary64 variant unaffected by
   having run the binary32 one (the same answer before and after). */
Test(formulation32, every_variant_answers_in_float) {
  size_t nf = 0;
  const toi_formulation *all = toi_formulations(&nf);
  toi_gen_opts o;
  toi_gen_opts_default(&o, TOI_GEN_MIXED);
  o.seed = te_seed(0x3233u);
  long n = 20000 * te_scale();
  for (long i = 0; i < n; i++) {
    toi_case c0, c;
    size_t bin;
    cr_assert_eq(toi_gen_case(&c0, NULL, &bin, &o, (uint64_t)i), TOI_OK);
    if (toi_case_round(&c, &c0, TOI_BINARY32) < 0) continue;
    for (size_t j = 0; j < nf; j++) {
      toi_result before = all[j].solve(&c), r = all[j].solve32(&c), after = all[j].solve(&c);
      cr_assert(isnan(r.t) || (double)(float)r.t == r.t, "%s case %ld: t = %a is not a float", all[j].name, i, r.t);
      cr_assert(before.cls == after.cls && f32_same_time(before.t, after.t), "%s case %ld", all[j].name, i);
    }
  }
}
