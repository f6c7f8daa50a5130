/* test_accurate.c: accurate, the bench's correctly rounded kernel: exact answers, families, neighbours, bounds and ties. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <float.h>
#include <gmp.h>
#include <math.h>
#include <mpfr.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "accurate/accurate.h"
#include "bigf.h"
#include "eft.h"
#include "gen.h"
#include "quad_exact.h"
#include "toi.h"
#include "toiref.h"
#include "test_env.h"
#include "test_rng.h"
#include "ref_forms.h"
#include "formulation_check.h"
#include "kernel_check.h"

/*
 * Measured with `toibench sweep FAMILY -f robust,accurate --count 10000000`
 * (seed 1, 10^7 cases per family; errors over timed cases): accurate's
 * verdict equal to the exact class on all 9 x 10^7 cases (one "missed" in
 * mixed is a fault of the reference's fast engine: exact rationals and the
 * MPFR engine agree with accurate); every root correctly rounded (max 0.5
 * ulp), t* subnormal included. The hunt (400000 evaluations each on mixed,
 * tangent, grazing) found nothing above 0.5 ulp.
 *
 * The tests below assert those claims on smaller samples (TOI_TEST_SCALE
 * multiplies the counts) with fixed seeds (TOI_TEST_SEED overrides them).
 * The reference is its certified MPFR engine, whatever toi_ref_solve's
 * default engine is (tests/support/kernel_check.h).
 */

static const fc_row rows[] = {FC_EXACT_KERNEL_ROWS};

Test(accurate, exact_constructions) { fc_check_exact("accurate", rows, sizeof rows / sizeof rows[0]); }



typedef struct kt_tally {
  long cases, timed, rounded;
  double max_ulp;
} kt_tally;

/* accurate on one case: exact class, t = 0 for a contact, NaN without a
   contact, and otherwise the time correctly rounded: RN(t*) itself, the
   reference's certified rounding (ties to even included), with its exact
   error at most half an ulp when t* is finite. */
static void kt_check_accurate(const toi_case *c, kt_tally *tl) {
  char line[512];
  toi_ref ref;
  cr_assert_eq(kt_ref(&ref, c), TOI_OK);
  toi_result r = toi_f_accurate(c);
  tl->cases++;
  if (r.cls != ref.cls) {
    kt_case_text(c, line, sizeof line);
    cr_assert_fail("accurate says %s, exact class %s: %s " KT_SEED_MSG, toi_class_name(r.cls),
                   toi_class_name(ref.cls), line, KT_SEED_ARGS);
  }
  if (ref.cls == TOI_CONTACT) {
    cr_assert(r.t == 0, "contact at t = %a, not 0", r.t);
    return;
  }
  if (!kt_contact_class(ref.cls)) {
    cr_assert(isnan(r.t), "%s with t = %a, not NaN", toi_class_name(r.cls), r.t);
    return;
  }
  tl->timed++;
  if (r.t == ref.tfwd) tl->rounded++;
  /* The claim holds into the subnormal range and for a t* that rounds to
     infinity, which are checked too. */
  if (isinf(ref.tfwd)) {
    cr_assert(r.t == ref.tfwd, "t* overflows but accurate says %a", r.t);
    return;
  }
  double ulp, bits;
  cr_assert_eq(tr_error(&ulp, &bits, r.t, c, TOI_FORWARD), TOI_OK);
  if (ulp > tl->max_ulp) tl->max_ulp = ulp;
  if (ulp > 0.5 || r.t != ref.tfwd) { /* RN(E) <= 1/2 alone would pass an E just above 1/2 */
    kt_case_text(c, line, sizeof line);
    cr_assert_fail("accurate t = %a is %.3g ulp from t* (RN %a): %s " KT_SEED_MSG, r.t, ulp, ref.tfwd, line,
                   KT_SEED_ARGS);
  }
}

/* The sample had roots, each correctly rounded (kt_check_accurate asserts
   each; the count guards a sample that lost its roots). */
static void kt_assert_rounding(const kt_tally *tl, const char *what) {
  cr_assert(tl->timed > 0, "%s: the sample has no root " KT_SEED_MSG, what, KT_SEED_ARGS);
  double frac = (double)tl->rounded / (double)tl->timed;
  cr_assert(tl->rounded == tl->timed, "%s: accurate correctly rounded on %.4f%% of %ld roots (want all) " KT_SEED_MSG,
            what, 100 * frac, tl->timed, KT_SEED_ARGS);
}



Test(accurate, exact_answers) { kt_exact_answers(toi_f_accurate, "accurate", 0); }

Test(accurate, exact_answers_agree_with_the_reference) {
  /* The table itself, checked against the certified reference, so that a
     wrong hand computation cannot make both kernels "pass". */
  int n = (int)(sizeof kt_exacts / sizeof kt_exacts[0]);
  for (int k = 0; k < n; k++) {
    toi_case c;
    cr_assert(kt_exact_case(&c, &kt_exacts[k], 0, 0, 2));
    toi_ref ref;
    cr_assert_eq(kt_ref(&ref, &c), TOI_OK);
    cr_assert_eq(ref.cls, kt_exacts[k].cls, "%s: reference says %s", kt_exacts[k].name, toi_class_name(ref.cls));
    if (!isnan(kt_exacts[k].t)) cr_assert(ref.tfwd == kt_exacts[k].t, "%s: reference root %a", kt_exacts[k].name, ref.tfwd);
  }
}

Test(accurate, registered) {
  const toi_formulation *a = toi_formulation_find("accurate"), *r = toi_formulation_find("robust");
  cr_assert(a && r);
  cr_assert(a->solve == toi_f_accurate && r->solve == toi_f_robust);
  cr_assert(a->direction == TOI_FORWARD && r->direction == TOI_FORWARD);
  cr_assert(a->domain == 0 && r->domain == 0);
}


ParameterizedTestParameters(accurate, families) {
  static kt_family p[] = {
      {"generic-2d", TOI_GEN_GENERIC, 2, TOI_GEN_SAMPLE_REAL, 0, 0, 6000},
      {"generic-3d", TOI_GEN_GENERIC, 3, TOI_GEN_SAMPLE_REAL, 0, 0, 6000},
      {"generic-bits-full", TOI_GEN_GENERIC, 0, TOI_GEN_SAMPLE_BITS, 1e300, 1e300, 3000},
      {"generic-bits", TOI_GEN_GENERIC, 0, TOI_GEN_SAMPLE_BITS, 0, 0, 3000},
      {"aimed", TOI_GEN_AIMED, 0, 0, 0, 0, 4000},
      {"grazing-2d", TOI_GEN_GRAZING, 2, 0, 0, 0, 6000},
      {"grazing-3d", TOI_GEN_GRAZING, 3, 0, 0, 0, 6000},
      {"near-contact", TOI_GEN_NEAR_CONTACT, 0, 0, 0, 0, 6000},
      {"far", TOI_GEN_FAR, 0, 0, 0, 0, 4000},
      {"scale", TOI_GEN_SCALE, 0, 0, 0, 0, 6000},
      {"slow", TOI_GEN_SLOW, 0, 0, 0, 0, 3000},
      {"tangent", TOI_GEN_TANGENT, 0, 0, 0, 0, 6000},
      {"mixed", TOI_GEN_MIXED, 0, 0, 0, 0, 8000},
  };
  return cr_make_param_array(kt_family, p, sizeof p / sizeof p[0]);
}

ParameterizedTest(kt_family *f, accurate, families) {
  toi_gen_opts o;
  kt_family_opts(&o, f);
  kt_tally tl = {0};
  long n = f->count * kt_scale();
  for (long i = 0; i < n; i++) {
    toi_case c;
    kt_gen(&c, &o, i);
    kt_check_accurate(&c, &tl);
  }
  kt_assert_rounding(&tl, f->name);
}

/* Every input of exact tangent cases (D = 0) moved by one ulp up and down,
   one at a time: the class flips between graze, hit and miss on a knife's
   edge, and the root is as ill-conditioned as it gets. */
Test(accurate, tangent_cases_and_every_one_ulp_neighbour) {
  toi_gen_opts o;
  kt_opts(&o, TOI_GEN_TANGENT, 0);
  o.k.lo = o.k.hi = 0; /* the exact tangent itself */
  kt_tally tl = {0};
  long n = 150 * kt_scale();
  for (long i = 0; i < n; i++) {
    toi_case base;
    kt_gen(&base, &o, i);
    kt_check_accurate(&base, &tl);
    double *fld[18];
    int nf = kt_fields(&base, fld);
    for (int j = 0; j < nf; j++)
      for (int dir = -1; dir <= 1; dir += 2) {
        toi_case c = base;
        double *g[18];
        kt_fields(&c, g);
        *g[j] = nextafter(*g[j], dir * INFINITY);
        if ((g[j] == &c.ra || g[j] == &c.rb) && *g[j] < 0) continue;
        kt_check_accurate(&c, &tl);
      }
  }
  kt_assert_rounding(&tl, "tangent neighbours");
}

/* Exact tangents (D = 0, built from dyadic data) are settled by D's sign in
   integers, without the expansions, and so are their one-ulp neighbours
   whose D is a tiny negative (a miss); every answer is checked against the
   reference. */
Test(accurate, exact_grazes_settle_in_integers) {
  toi_gen_opts o;
  kt_opts(&o, TOI_GEN_TANGENT, 53);
  o.k.lo = o.k.hi = 0;
  kt_tally tl = {0};
  long n = 100 * kt_scale(), misses = 0;
  char line[512];
  for (long i = 0; i < n; i++) {
    toi_case base;
    kt_gen(&base, &o, i);
    toi_accurate_info info;
    toi_result x = toi_accurate_explain(&base, &info);
    kt_case_text(&base, line, sizeof line);
    cr_assert_eq(x.cls, TOI_GRAZE, "not a graze: %s", line);
    cr_assert(!(info.path & TOI_ACC_EXACT_D), "exact graze through the expansions: %s", line);
    kt_check_accurate(&base, &tl);
    double *g[18];
    int nf = kt_fields(&base, g);
    for (int j = 0; j < nf; j++)
      for (int dir = -1; dir <= 1; dir += 2) {
        toi_case c = base;
        kt_fields(&c, g);
        *g[j] = nextafter(*g[j], dir * INFINITY);
        if ((g[j] == &c.ra || g[j] == &c.rb) && *g[j] < 0) continue;
        x = toi_accurate_explain(&c, &info);
        if (x.cls == TOI_MISS && !(info.path & TOI_ACC_EXACT_D) && isnan(info.d_err) == 0 &&
            fabs(info.d_est[0]) <= 1.001 * info.d_err)
          misses++;
        kt_check_accurate(&c, &tl);
      }
  }
  cr_assert(misses > 0, "no unsettled miss decided in integers");
  kt_assert_rounding(&tl, "exact tangents in integers");
}

/* Gaps R 2^-k too small for the filter to give c to 2^-64 (k > 35) or its
   sign: c is computed exactly in integers, without the expansions, in both
   dimensions; every answer is checked against the reference. */
Test(accurate, near_contacts_take_c_in_integers) {
  kt_tally tl = {0};
  long exact = 0;
  char line[512];
  for (int dim = 2; dim <= 3; dim++) {
    toi_gen_opts o;
    toi_gen_opts_default(&o, TOI_GEN_NEAR_CONTACT);
    o.seed = kt_seed() + 59;
    o.dim = dim;
    o.k.lo = 36;
    o.k.hi = 60;
    o.k.step = 1;
    long n = 25 * 20 * kt_scale();
    for (long i = 0; i < n; i++) {
      toi_case c;
      kt_gen(&c, &o, i);
      toi_accurate_info info;
      (void)toi_accurate_explain(&c, &info);
      kt_case_text(&c, line, sizeof line);
      cr_assert(!(info.path & TOI_ACC_EXACT_C), "c through the expansions: %s", line);
      if (!isnan(info.c_err) && (fabs(info.c_est[0]) <= 1.001 * info.c_err || info.c_err > 0x1p-64 * info.c_est[0]))
        exact++;
      kt_check_accurate(&c, &tl);
    }
  }
  cr_assert(exact > 100, "only %ld cases needed c exactly", exact);
  kt_assert_rounding(&tl, "near-contact in integers");
  /* Exact contacts, c = 0: s = (3, 4) 2^e (pA offset by 2^(e - 20), which
     the difference cancels exactly), R = 5 2^e; approaching (a contact at
     t = 0) and leaving. */
  for (int e = -40; e <= 40; e += 20)
    for (int dir = -1; dir <= 1; dir += 2) {
      toi_case c;
      kt_blank(&c, 2);
      c.pa[0] = ldexp(1, e - 20);
      c.pb[0] = ldexp(3, e) + ldexp(1, e - 20);
      c.pb[1] = ldexp(4, e);
      c.ra = ldexp(2, e);
      c.rb = ldexp(3, e);
      c.vb[0] = dir;
      toi_accurate_info info;
      toi_result x = toi_accurate_explain(&c, &info);
      kt_case_text(&c, line, sizeof line);
      cr_assert(info.path & TOI_ACC_INT_C, "c not from the integers: %s", line);
      cr_assert_eq(x.cls, dir < 0 ? TOI_CONTACT : TOI_SEPARATING, "%s", line);
      kt_check_accurate(&c, &tl);
    }
}

/* Grazing impact parameters R (1 +- 2^-k) for every k in 1..60, and gaps
   R 2^-k, apart and overlapping, approaching and leaving, in both
   dimensions (the generators build them exactly). */
Test(accurate, every_grazing_and_near_contact_k) {
  kt_tally tl = {0};
  for (int fam = 0; fam < 2; fam++)
    for (int dim = 2; dim <= 3; dim++) {
      toi_gen_opts o;
      toi_gen_opts_default(&o, fam ? TOI_GEN_NEAR_CONTACT : TOI_GEN_GRAZING);
      o.seed = kt_seed() + 7;
      o.dim = dim;
      o.k.lo = 1;
      o.k.hi = 60;
      o.k.step = 1;
      long n = 60 * 20 * kt_scale();
      for (long i = 0; i < n; i++) {
        toi_case c;
        kt_gen(&c, &o, i);
        kt_check_accurate(&c, &tl);
      }
    }
  kt_assert_rounding(&tl, "grazing and near-contact");
}

/* Translations by 10^e for e up to 300 (beyond e ~ 8 the rounding of the
   translated coordinates changes the case, whose exact answer is still the
   reference's), and lengths and speeds scaled far into the subnormal and
   near-overflow ranges. */
Test(accurate, far_and_extreme_scales) {
  kt_tally tl = {0};
  toi_gen_opts o;
  kt_opts(&o, TOI_GEN_FAR, 11);
  o.e.lo = 0;
  o.e.hi = 300;
  o.e.step = 1;
  long n = 3000 * kt_scale();
  for (long i = 0; i < n; i++) {
    toi_case c;
    kt_gen(&c, &o, i);
    kt_check_accurate(&c, &tl);
  }
  kt_opts(&o, TOI_GEN_SCALE, 13);
  o.e.lo = -1100;
  o.e.hi = 1000;
  o.e.step = 10;
  o.f.lo = -1100;
  o.f.hi = 1000;
  for (long i = 0; i < n; i++) {
    toi_case c;
    kt_gen(&c, &o, i);
    kt_check_accurate(&c, &tl);
  }
  kt_assert_rounding(&tl, "far and scale");
}

/* Cases on the edge of each sign the first filters decide (c: touching,
   b: moving sideways, D: passing at exactly the sum of the radii), with
   rounded, rotated coordinates so that the differences are inexact and the
   edge is missed or hit by a few ulps either way: every class and time must
   be the reference's, bit for bit. */
Test(accurate, signs_within_a_few_ulps_of_zero) {
  test_rng r = {kt_seed() + 59};
  long n = 3000 * kt_scale(), classes[8] = {0};
  char line[512];
  for (long i = 0; i < n; i++) {
    int edge = (int)(i % 3), dim = 2 + (int)((i / 3) % 2);
    double unit = (double)(test_rng_next(&r) >> 11) * 0x1p-53;
    double R = 0.5 + unit, delta = ldexp(test_rng_next(&r) % 2 ? 1.0 : -1.0, -(int)test_rng_int(&r, 44, 60));
    double sx, sy, vx, vy;
    if (edge == 0) { /* |s| = R (1 + delta), moving anywhere */
      sx = R * (1 + delta);
      sy = 0;
      vx = -1 + 2 * (double)(test_rng_next(&r) >> 11) * 0x1p-53;
      vy = -1 + 2 * (double)(test_rng_next(&r) >> 11) * 0x1p-53;
    } else if (edge == 1) { /* v nearly perpendicular to s */
      sx = 2 * R;
      sy = R * unit;
      vx = -sy * (1 + delta);
      vy = sx;
    } else { /* passing at distance R (1 + delta) */
      sx = 4 * R;
      sy = R * (1 + delta);
      vx = -1.5;
      vy = 0;
    }
    /* A rotation in the plane, and in 3D a tilt out of it, so that every
       product of the dot products is inexact and their sums round. */
    double th = 6.283185307179586 * (double)(test_rng_next(&r) >> 11) * 0x1p-53;
    double ph = dim == 3 ? 6.283185307179586 * (double)(test_rng_next(&r) >> 11) * 0x1p-53 : 0;
    double co = cos(th), si = sin(th), cp = cos(ph), sp = sin(ph);
    double S[3] = {co * sx - si * sy, (si * sx + co * sy) * cp, (si * sx + co * sy) * sp};
    double V[3] = {co * vx - si * vy, (si * vx + co * vy) * cp, (si * vx + co * vy) * sp};
    toi_case c;
    kt_blank(&c, dim);
    double P[3] = {3.25 + unit, -1.75 * unit, 0.625 + unit}; /* A off the origin: pb - pa rounds */
    for (int j = 0; j < dim; j++) {
      c.pa[j] = P[j];
      c.pb[j] = P[j] + S[j];
      c.va[j] = 0.5;
      c.vb[j] = 0.5 + V[j];
    }
    c.ra = R * 0.375;
    c.rb = R - c.ra;
    toi_ref ref;
    cr_assert_eq(kt_ref(&ref, &c), TOI_OK);
    toi_result res = toi_f_accurate(&c);
    kt_case_text(&c, line, sizeof line);
    cr_assert(res.cls == ref.cls, "class %s, exact %s: %s " KT_SEED_MSG, toi_class_name(res.cls),
              toi_class_name(ref.cls), line, KT_SEED_ARGS);
    double want = ref.cls == TOI_CONTACT ? 0.0 : kt_contact_class(ref.cls) ? ref.tfwd : NAN;
    cr_assert(memcmp(&res.t, &want, sizeof want) == 0 || (isnan(res.t) && isnan(want)),
              "t = %a, want %a: %s " KT_SEED_MSG, res.t, want, line, KT_SEED_ARGS);
    classes[ref.cls & 7]++;
  }
  cr_assert(classes[TOI_OVERLAP] && classes[TOI_SEPARATING] && classes[TOI_MISS] && classes[TOI_HIT],
            "classes met: overlap %ld separating %ld miss %ld hit %ld", classes[TOI_OVERLAP],
            classes[TOI_SEPARATING], classes[TOI_MISS], classes[TOI_HIT]);
}

/* Roots at the bottom of the subnormal range, from inputs that must be
   scaled: lengths x 2^e (2^e below 2^-300) closing at speed 2^f, so that
   t* = T 2^(e-f) with T in [1, 4) lands from 2^-1083 to 2^-1068, across
   +0, the midpoint 2^-1075 and the least subnormals. The kernel answers +0
   outright when t* 2^k is clearly below 2^-1076; every answer must be the
   reference's RN(t*), bit for bit. */
Test(accurate, roots_at_the_bottom_of_the_subnormal_range) {
  test_rng r = {kt_seed() + 53};
  static const int es[] = {-320, -600, -1000};
  long zeros = 0, nonzero = 0;
  char line[512];
  for (int ie = 0; ie < 3; ie++)
    for (int d = 1068; d <= 1083; d++)
      for (int rep = 0; rep < 8 * kt_scale(); rep++) {
        int e = es[ie], f = e + d;
        toi_case c;
        kt_blank(&c, rep % 2 ? 3 : 2);
        double x = 1 + 3 * ((double)(test_rng_next(&r) >> 11) * 0x1p-53); /* [1, 4) */
        double R = x * (test_rng_next(&r) % 2 ? 0.5 : 0.25);                  /* exact */
        c.pb[0] = ldexp(x, e);
        c.ra = ldexp(R, e);
        c.vb[0] = -ldexp(1 + (double)(test_rng_next(&r) >> 12) * 0x1p-52, f); /* [1, 2) 2^f */
        toi_ref ref;
        cr_assert_eq(kt_ref(&ref, &c), TOI_OK);
        toi_result res = toi_f_accurate(&c);
        kt_case_text(&c, line, sizeof line);
        cr_assert(res.cls == ref.cls, "class %s, exact %s: %s", toi_class_name(res.cls), toi_class_name(ref.cls),
                  line);
        cr_assert(memcmp(&res.t, &ref.tfwd, sizeof res.t) == 0, "t = %a, RN(t*) = %a: %s " KT_SEED_MSG, res.t,
                  ref.tfwd, line, KT_SEED_ARGS);
        if (ref.tfwd == 0)
          zeros++;
        else
          nonzero++;
      }
  cr_assert(zeros > 0 && nonzero > 0, "%ld zeros, %ld subnormals", zeros, nonzero);
}

/* Inputs no power of two can bring into one range: huge and tiny lengths or
   speeds mixed in one case, differences that overflow, subnormal speeds
   against coordinates near DBL_MAX. These take the big-number path. */
Test(accurate, wide_inputs_take_the_exact_path) {
  test_rng r = {kt_seed() + 17};
  kt_tally tl = {0};
  long n = 3000 * kt_scale();
  long wide = 0;
  for (long i = 0; i < n; i++) {
    toi_case c;
    int dim = (int)test_rng_int(&r, 2, 3);
    kt_blank(&c, dim);
    int style = (int)(i % 4);
    for (int j = 0; j < dim; j++) {
      switch (style) {
        case 0: /* everything anywhere */
          c.pa[j] = test_rng_double(&r, -1074, 1023);
          c.pb[j] = test_rng_double(&r, -1074, 1023);
          c.va[j] = test_rng_double(&r, -1074, 1023);
          c.vb[j] = test_rng_double(&r, -1074, 1023);
          break;
        case 1: /* near DBL_MAX, approaching across the origin */
          c.pa[j] = -test_rng_double(&r, 1020, 1023) * (j ? 0x1p-600 : 1);
          c.pb[j] = fabs(test_rng_double(&r, 1020, 1023)) * (j ? 0x1p-600 : 1);
          c.va[j] = fabs(test_rng_double(&r, 1000, 1020));
          c.vb[j] = -fabs(test_rng_double(&r, -1074, -900));
          break;
        case 2: /* a huge gap to close at subnormal-plus-normal speed */
          c.pa[j] = test_rng_double(&r, -400, -300);
          c.pb[j] = j ? test_rng_double(&r, -1074, -1000) : 0x1p700;
          c.va[j] = j ? 0 : 0x1p-1070;
          c.vb[j] = j ? test_rng_double(&r, -1074, -1060) : -1.5;
          break;
        default: /* radius far above the tiny offsets, and tiny radius far below */
          c.pa[j] = test_rng_double(&r, -1074, -1000);
          c.pb[j] = test_rng_double(&r, -1074, -1000);
          c.va[j] = test_rng_double(&r, -10, 10);
          c.vb[j] = test_rng_double(&r, -1074, 1000);
          break;
      }
    }
    c.ra = fabs(test_rng_double(&r, -1074, style == 3 ? 1000 : 1023));
    c.rb = fabs(test_rng_double(&r, -1074, -1000));
    toi_accurate_info info;
    toi_result x = toi_accurate_explain(&c, &info);
    toi_result y = toi_f_accurate(&c);
    cr_assert(x.cls == y.cls && (x.t == y.t || (isnan(x.t) && isnan(y.t))), "explain and solve differ");
    if (info.path & TOI_ACC_WIDE) wide++;
    kt_check_accurate(&c, &tl);
  }
  cr_assert(wide > n / 4, "only %ld of %ld cases took the wide path", wide, n);
}

/* Random bit patterns: every finite double is legal. */
Test(accurate, random_bit_patterns) {
  test_rng r = {kt_seed() + 19};
  kt_tally tl = {0};
  long n = 3000 * kt_scale();
  for (long i = 0; i < n; i++) {
    toi_case c;
    kt_blank(&c, (int)test_rng_int(&r, 2, 3));
    double *f[18];
    int nf = kt_fields(&c, f);
    for (int j = 0; j < nf; j++) *f[j] = test_rng_finite_bits(&r);
    c.ra = fabs(c.ra);
    c.rb = fabs(c.rb);
    kt_check_accurate(&c, &tl);
  }
}

/* ---- metamorphic properties ---- */

/* Swapping the balls negates s and v exactly and leaves a, b, c, D
   unchanged: both kernels must give the same bits. Scaling lengths by 2^k
   and speeds by 2^m multiplies t by 2^(k-m) exactly when nothing leaves the
   normal range: accurate (correctly rounded) must follow exactly. */
static void kt_swap(toi_case *c) {
  for (int i = 0; i < 3; i++) {
    double t = c->pa[i];
    c->pa[i] = c->pb[i];
    c->pb[i] = t;
    t = c->va[i];
    c->va[i] = c->vb[i];
    c->vb[i] = t;
  }
  double t = c->ra;
  c->ra = c->rb;
  c->rb = t;
}

static int kt_same(toi_result x, toi_result y) {
  return x.cls == y.cls && (x.t == y.t || (isnan(x.t) && isnan(y.t)));
}

Test(accurate, swap_and_power_of_two_scaling) {
  toi_gen_opts o;
  toi_gen_opts_default(&o, TOI_GEN_MIXED);
  o.seed = kt_seed() + 23;
  test_rng r = {kt_seed() + 29};
  long n = 6000 * kt_scale(), scaled = 0;
  char line[512];
  for (long i = 0; i < n; i++) {
    toi_case c;
    kt_gen(&c, &o, i);
    toi_result x = toi_f_accurate(&c), xr = toi_f_robust(&c);
    toi_case d = c;
    kt_swap(&d);
    kt_case_text(&c, line, sizeof line);
    cr_assert(kt_same(x, toi_f_accurate(&d)), "accurate not symmetric in the balls: %s", line);
    cr_assert(kt_same(xr, toi_f_robust(&d)), "robust not symmetric in the balls: %s", line);
    int k = (int)test_rng_int(&r, -300, 300), m = (int)test_rng_int(&r, -300, 300);
    toi_case e = c;
    double *f[18];
    int nf = kt_fields(&e, f);
    int exact = 1;
    int dim = e.dim;
    for (int j = 0; j < nf; j++) {
      /* kt_fields order: pA, vA, rA, pB, vB, rB */
      int isvel = (j >= dim && j < 2 * dim) || (j >= 3 * dim + 1 && j < 4 * dim + 1);
      double y = ldexp(*f[j], isvel ? m : k);
      exact &= *f[j] == 0 || (isfinite(y) && fabs(y) >= DBL_MIN && ldexp(y, isvel ? -m : -k) == *f[j]);
      *f[j] = y;
    }
    if (!exact || !kt_normal(x.t) || !kt_normal(ldexp(x.t, k - m))) continue;
    scaled++;
    toi_result y = toi_f_accurate(&e);
    cr_assert_eq(y.cls, x.cls, "scaling by 2^%d, 2^%d changed the class: %s", k, m, line);
    cr_assert(y.t == ldexp(x.t, k - m), "scaling by 2^%d, 2^%d: t = %a, want %a: %s", k, m, y.t, ldexp(x.t, k - m),
              line);
  }
  cr_assert(scaled > n / 4, "only %ld scaled cases checked", scaled);
}

/* Case c explained (its path into *info, its text into line), the same
   answer as toi_f_accurate's, and checked against the reference
   (kt_check_accurate: the exact class, RN(t*) bit for bit). */
static void kt_explain_checked(const toi_case *c, toi_accurate_info *info, char line[512], kt_tally *tl) {
  toi_result x = toi_accurate_explain(c, info);
  kt_case_text(c, line, 512);
  cr_assert(kt_same(x, toi_f_accurate(c)), "explain and solve differ: %s", line);
  kt_check_accurate(c, tl);
}

/* Cases whose differences lie outside the common path's range but scale
   exactly by powers of two (the scale family: lengths and speeds from
   2^-1000 to 2^1000) take the common path on their scaled differences, not
   the slow path, and still answer as the reference does, bit for bit. */
Test(accurate, scaled_differences_take_the_common_path) {
  kt_tally tl = {0};
  toi_gen_opts o;
  kt_opts(&o, TOI_GEN_SCALE, 97);
  long n = 2000 * kt_scale(), scaled = 0, common = 0;
  char line[512];
  for (long i = 0; i < n; i++) {
    toi_case c;
    kt_gen(&c, &o, i);
    toi_accurate_info info;
    kt_explain_checked(&c, &info, line, &tl);
    if (!(info.path & TOI_ACC_SCALED)) continue;
    scaled++;
    if (!(info.path & TOI_ACC_SLOW)) common++;
  }
  cr_assert(scaled > n / 2, "only %ld of %ld cases scaled", scaled, n);
  cr_assert(common > scaled * 9 / 10, "only %ld of %ld scaled cases took the common path", common, scaled);
  kt_assert_rounding(&tl, "scale");
}

/* Lengths and speeds between 2^-320 and 2^-140 (the scale family's, with
   --e -320:-140:10 --f -320:0): where the largest length or speed is below
   2^-150 the case's differences leave the common path for the scaled one
   (common_range), which keeps every product off the subnormals. Every
   answer must be the reference's: the exact class and RN(t*) bit for bit
   (every path rounds correctly); and a case whose lengths are all below
   2^-151 (so its differences are below 2^-150) must have been scaled. */
Test(accurate, tiny_differences_take_the_scaled_path) {
  toi_gen_opts o;
  kt_opts(&o, TOI_GEN_SCALE, 131);
  o.e = (toi_gen_range){-320, -140, 10};
  o.f = (toi_gen_range){-320, 0, 1};
  kt_tally tl = {0};
  long n = 3000 * kt_scale(), tiny = 0;
  char line[512];
  for (long i = 0; i < n; i++) {
    toi_case c;
    kt_gen(&c, &o, i);
    toi_accurate_info info;
    kt_explain_checked(&c, &info, line, &tl);
    double big = fmax(fabs(c.ra), fabs(c.rb));
    for (int k = 0; k < c.dim; k++) big = fmax(big, fmax(fabs(c.pa[k]), fabs(c.pb[k])));
    if (big < 0x1p-151) {
      tiny++;
      cr_assert(info.path & TOI_ACC_SCALED, "lengths below 2^-151, not scaled: %s", line);
    }
  }
  cr_assert(tiny > n / 10 && tl.timed > n / 20, "only %ld tiny cases, %ld roots of %ld", tiny, tl.timed, n);
}

/* ---- the filter's proven bounds and the exact modules, against MPFR ---- */

/* MPFR numbers this wide hold any sum or product of degree 4 of doubles
   exactly (at most about 8400 significant bits). */
#define KT_PREC 9000

typedef struct kt_exact_q {
  mpfr_t c, b, d, a;
} kt_exact_q;

static void kt_q_init(kt_exact_q *q) { mpfr_inits2(KT_PREC, q->c, q->b, q->d, q->a, (mpfr_ptr)0); }
static void kt_q_clear(kt_exact_q *q) { mpfr_clears(q->c, q->b, q->d, q->a, (mpfr_ptr)0); }

/* c, b, a and D of the case with lengths times 2^kp and speeds times 2^kv,
   exactly. */
static void kt_q_compute(kt_exact_q *q, const toi_case *cs, int kp, int kv) {
  mpfr_t s, v, t, R;
  mpfr_inits2(KT_PREC, s, v, t, R, (mpfr_ptr)0);
  mpfr_set_d(R, cs->ra, MPFR_RNDN);
  mpfr_set_d(t, cs->rb, MPFR_RNDN);
  mpfr_add(R, R, t, MPFR_RNDN);
  mpfr_mul_2si(R, R, kp, MPFR_RNDN);
  mpfr_sqr(q->c, R, MPFR_RNDN);
  mpfr_neg(q->c, q->c, MPFR_RNDN);
  mpfr_set_zero(q->b, 1);
  mpfr_set_zero(q->a, 1);
  int n = cs->dim == 3 ? 3 : 2;
  for (int i = 0; i < n; i++) {
    mpfr_set_d(s, cs->pb[i], MPFR_RNDN);
    mpfr_set_d(t, cs->pa[i], MPFR_RNDN);
    mpfr_sub(s, s, t, MPFR_RNDN);
    mpfr_mul_2si(s, s, kp, MPFR_RNDN);
    mpfr_set_d(v, cs->vb[i], MPFR_RNDN);
    mpfr_set_d(t, cs->va[i], MPFR_RNDN);
    mpfr_sub(v, v, t, MPFR_RNDN);
    mpfr_mul_2si(v, v, kv, MPFR_RNDN);
    mpfr_fma(q->c, s, s, q->c, MPFR_RNDN);
    mpfr_fma(q->b, s, v, q->b, MPFR_RNDN);
    mpfr_fma(q->a, v, v, q->a, MPFR_RNDN);
  }
  mpfr_sqr(q->d, q->b, MPFR_RNDN);
  mpfr_mul(t, q->a, q->c, MPFR_RNDN);
  mpfr_sub(q->d, q->d, t, MPFR_RNDN);
  mpfr_clears(s, v, t, R, (mpfr_ptr)0);
}

/* |(hi + lo) 2^e - x| <= bound (all exact in MPFR). */
static int kt_within(double hi, double lo, int e, mpfr_t x, double bound) {
  mpfr_t y, z;
  mpfr_inits2(KT_PREC, y, z, (mpfr_ptr)0);
  mpfr_set_d(y, hi, MPFR_RNDN);
  mpfr_set_d(z, lo, MPFR_RNDN);
  mpfr_add(y, y, z, MPFR_RNDN);
  mpfr_mul_2si(y, y, e, MPFR_RNDN);
  mpfr_sub(y, y, x, MPFR_RNDN);
  mpfr_abs(y, y, MPFR_RNDN);
  int ok = mpfr_cmp_d(y, bound) <= 0;
  mpfr_clears(y, z, (mpfr_ptr)0);
  return ok;
}

/* relative: |(hi + lo) 2^e - x| <= 2^-100 |x|, and the exact sign. */
static int kt_approx_ok(const qx_num *q, mpfr_t x) {
  if (q->sign != mpfr_sgn(x)) return 0;
  if (mpfr_zero_p(x)) return q->hi == 0 && q->lo == 0;
  mpfr_t b;
  mpfr_init2(b, 64);
  mpfr_abs(b, x, MPFR_RNDU);
  mpfr_mul_2si(b, b, -100, MPFR_RNDU);
  double bound = mpfr_get_d(b, MPFR_RNDU);
  mpfr_clear(b);
  /* bound may underflow to 0 only far below anything here */
  return kt_within(q->hi, q->lo, q->e, x, bound);
}

/* Hard inputs for the filter: near-degenerate cases from the families, with
   the exact tangent's inputs nudged by random ulps, and random low bits. */
static void kt_hard_case(toi_case *c, test_rng *r, uint64_t i) {
  static const int fams[] = {TOI_GEN_TANGENT, TOI_GEN_GRAZING, TOI_GEN_NEAR_CONTACT, TOI_GEN_MIXED, TOI_GEN_GENERIC, TOI_GEN_FAR};
  toi_gen_opts o;
  kt_opts(&o, (toi_gen_family)fams[i % 6], 31);
  kt_gen(c, &o, (long)i);
  if (i % 3 == 0) {
    double *f[18];
    int nf = kt_fields(c, f);
    int j = (int)test_rng_int(r, 0, nf - 1);
    double x = *f[j] + ldexp(test_rng_double(r, 0, 0), ilogb(*f[j] == 0 ? 1 : *f[j]) - (int)test_rng_int(r, 30, 60));
    if (!((f[j] == &c->ra || f[j] == &c->rb) && x < 0)) *f[j] = x;
  }
}

Test(accurate, filter_bounds_hold) {
  test_rng r = {kt_seed() + 37};
  long n = 4000 * kt_scale(), checked = 0;
  kt_exact_q q;
  kt_q_init(&q);
  char line[512];
  for (long i = 0; i < n; i++) {
    toi_case c;
    kt_hard_case(&c, &r, (uint64_t)i);
    toi_accurate_info info;
    (void)toi_accurate_explain(&c, &info);
    if (info.path & TOI_ACC_WIDE) continue;
    kt_q_compute(&q, &c, info.kp, info.kv);
    kt_case_text(&c, line, sizeof line);
    if (!isnan(info.c_err)) {
      cr_assert(kt_within(info.c_est[0], info.c_est[1], 0, q.c, info.c_err), "c bound broken: %s " KT_SEED_MSG,
                line, KT_SEED_ARGS);
      checked++;
    }
    if (!isnan(info.b_err))
      cr_assert(kt_within(info.b_est[0], info.b_est[1], 0, q.b, info.b_err), "b bound broken: %s " KT_SEED_MSG,
                line, KT_SEED_ARGS);
    if (!isnan(info.d_err))
      cr_assert(kt_within(info.d_est[0], info.d_est[1], 0, q.d, info.d_err), "D bound broken: %s " KT_SEED_MSG,
                line, KT_SEED_ARGS);
  }
  kt_q_clear(&q);
  cr_assert(checked > n / 2);
}

/* qx_big (big numbers, any input) and the expansions (safe range) give the
   exact sign and a value within 2^-100, checked against MPFR. */
Test(accurate, exact_modules_match_mpfr) {
  test_rng r = {kt_seed() + 41};
  long n = 2000 * kt_scale();
  kt_exact_q q;
  kt_q_init(&q);
  char line[512];
  for (long i = 0; i < n; i++) {
    toi_case c;
    if (i % 2) {
      kt_hard_case(&c, &r, (uint64_t)i);
    } else {
      kt_blank(&c, (int)test_rng_int(&r, 2, 3));
      double *f[18];
      int nf = kt_fields(&c, f);
      for (int j = 0; j < nf; j++) *f[j] = test_rng_finite_bits(&r);
      c.ra = fabs(c.ra);
      c.rb = fabs(c.rb);
    }
    int n3 = c.dim == 3 ? 3 : 2;
    kt_q_compute(&q, &c, 0, 0);
    kt_case_text(&c, line, sizeof line);
    qx_num xc, xb, xd;
    qx_big(&c, n3, &xc, &xb, &xd);
    cr_assert(kt_approx_ok(&xc, q.c), "big c wrong: %s", line);
    cr_assert(kt_approx_ok(&xb, q.b), "big b wrong: %s", line);
    cr_assert(kt_approx_ok(&xd, q.d), "big D wrong: %s", line);
    /* The expansions need every input in [2^-150, 2^150) or zero. */
    double *f[18];
    int nf = kt_fields(&c, f), safe = 1;
    for (int j = 0; j < nf; j++) safe &= *f[j] == 0 || (fabs(*f[j]) >= 0x1p-150 && fabs(*f[j]) < 0x1p150);
    if (!safe) continue;
    dd s[3], v[3];
    for (int j = 0; j < n3; j++) {
      s[j] = two_sum(c.pb[j], -c.pa[j]);
      v[j] = two_sum(c.vb[j], -c.va[j]);
    }
    dd R = two_sum(c.ra, c.rb);
    cr_assert_eq(qx_c(s, R, n3, &xc), 0);
    cr_assert_eq(qx_b(s, v, n3, &xb), 0);
    cr_assert_eq(qx_d(s, v, R, n3, &xd), 0);
    cr_assert(kt_approx_ok(&xc, q.c), "expansion c wrong: %s", line);
    cr_assert(kt_approx_ok(&xb, q.b), "expansion b wrong: %s", line);
    cr_assert(kt_approx_ok(&xd, q.d), "expansion D wrong: %s", line);
  }
  kt_q_clear(&q);
}

/* Big numbers on their own: sums and products of doubles with every
   magnitude, against MPFR. */
Test(accurate, big_numbers_match_mpfr) {
  test_rng r = {kt_seed() + 43};
  long n = 3000 * kt_scale();
  mpfr_t x, y, z;
  mpfr_inits2(KT_PREC, x, y, z, (mpfr_ptr)0);
  for (long i = 0; i < n; i++) {
    double u = test_rng_finite_bits(&r), v = test_rng_finite_bits(&r), w = test_rng_finite_bits(&r);
    if (i % 3 == 0) v = -u * (1 + 0x1p-52 * (double)test_rng_int(&r, -2, 2)); /* cancellation */
    bigf a, b, c, p;
    bigf_set_d(&a, u);
    bigf_set_d(&b, v);
    bigf_set_d(&c, w);
    bigf_add(&p, &a, &b);  /* u + v */
    bigf_mul(&a, &p, &c);  /* (u + v) w */
    bigf_sub(&p, &a, &c);  /* (u + v) w - w */
    bigf_mul(&a, &p, &p);  /* squared */
    mpfr_set_d(x, u, MPFR_RNDN);
    mpfr_set_d(y, v, MPFR_RNDN);
    mpfr_add(x, x, y, MPFR_RNDN);
    mpfr_set_d(z, w, MPFR_RNDN);
    mpfr_mul(x, x, z, MPFR_RNDN);
    mpfr_sub(x, x, z, MPFR_RNDN);
    mpfr_sqr(x, x, MPFR_RNDN);
    qx_num q;
    q.sign = bigf_sign(&a);
    bigf_approx(&a, &q.hi, &q.lo, &q.e);
    cr_assert(kt_approx_ok(&q, x), "big numbers wrong for %a %a %a", u, v, w);
    if (q.sign) cr_assert(fabs(q.hi) >= 1 && fabs(q.hi) < 2, "approx not normalized: %a", q.hi);
  }
  mpfr_clears(x, y, z, (mpfr_ptr)0);
}

/* ---- exact ties ---- */

/* Roots exactly halfway between two doubles: m = M 2^-54 with M odd in
   [2^53, 2^54), so that the even neighbour is (M - 1) or (M + 1) 2^-54,
   whichever is a multiple of 4 in units of 2^-54. Two constructions from
   integers, each derived in cases/ties.cases: a hit with v = (-3, 0) and
   D = 9 R^2, and a graze with v = (-3, -4) and D = 0. Lengths 2^e and speeds
   2^f move the tie to m 2^(e-f): in the fast path, the scaled slow path,
   near the ends of the range and, for e - f = -1021, onto the subnormal
   grid (M 2^-1075, odd: again a tie). */
static const int kt_tie_scalings[][2] = {{0, 0},       {-600, 0}, {500, 500}, {3, -7},    {-1000, -1000},
                                         {-1000, -40}, {0, -600}, {600, -400}, {-900, 100}, {-500, 521}};

static void kt_tie_case(toi_case *c, test_rng *r, int hit, int e, int f, int dim, int swap, uint64_t *M_out) {
  uint64_t M = ((UINT64_C(1) << 53) + (test_rng_next(r) >> 11)) | 1; /* odd, [2^53, 2^54) */
  double s[2], v[2], ra, rb;
  if (hit) {
    uint64_t X = (3 * M + 3) / 4 + (test_rng_next(r) >> 14); /* x = X 2^-52 >= 3m, R = x - 3m < 2^-2 */
    if (X >= (UINT64_C(1) << 53)) X += X & 1;        /* x in [2, 4): an even X */
    s[0] = ldexp((double)X, -52);
    s[1] = 0;
    v[0] = -3;
    v[1] = 0;
    ra = ldexp((double)(4 * X - 3 * M), -54);
    rb = 0;
  } else {
    /* R'' = R 2^54 / 20 with 16 R'' < 3 M and R'' = M mod 4, so that
       s2 2^54 = 4 M + 12 R'' is a multiple of 16 (s2 < 8 needs no more). */
    uint64_t q = (3 * M) / 16;
    while (q % 4 != M % 4 || 16 * q >= 3 * M) q--;
    s[0] = ldexp((double)(3 * M - 16 * q), -54);
    s[1] = ldexp((double)(4 * M + 12 * q), -54);
    v[0] = -3;
    v[1] = -4;
    ra = ldexp((double)(16 * q), -54);
    rb = ldexp((double)(4 * q), -54);
    cr_assert(ldexp(s[1], 54) == (double)(4 * M + 12 * q), "s2 not exact");
  }
  cr_assert(ldexp(s[0], 52) == floor(ldexp(s[0], 52)) || !hit, "x not exact");
  kt_blank(c, dim);
  double S[3] = {s[0], s[1], 0}, V[3] = {v[0], v[1], 0};
  if (dim == 3) { /* (x, y, z) -> (z, x, -y), exact */
    double S2[3] = {0, S[0], -S[1]}, V2[3] = {0, V[0], -V[1]};
    memcpy(S, S2, sizeof S);
    memcpy(V, V2, sizeof V);
  }
  for (int i = 0; i < dim; i++) {
    double ss = ldexp(S[i], e) + 0.0, vv = ldexp(V[i], f) + 0.0; /* exact for every scaling of the table */
    if (swap) { /* B at the origin: s and v change sign, t* does not */
      c->pa[i] = -ss;
      c->va[i] = -vv;
    } else {
      c->pb[i] = ss;
      c->vb[i] = vv;
    }
  }
  c->ra = ldexp(swap ? rb : ra, e);
  c->rb = ldexp(swap ? ra : rb, e);
  *M_out = M;
}

Test(accurate, constructed_ties_go_to_even) {
  test_rng r = {kt_seed() ^ 0x7469u};
  int m = (int)(sizeof kt_tie_scalings / sizeof kt_tie_scalings[0]);
  long reps = 6 * kt_scale(), checked = 0;
  char line[512];
  for (long rep = 0; rep < reps; rep++)
    for (int j = 0; j < m; j++)
      for (int k = 0; k < 8; k++) {
        int hit = k & 1, dim = 2 + ((k >> 1) & 1), swap = k >> 2;
        int e = kt_tie_scalings[j][0], f = kt_tie_scalings[j][1];
        toi_case c;
        uint64_t M;
        kt_tie_case(&c, &r, hit, e, f, dim, swap, &M);
        uint64_t even = (M - 1) % 4 == 0 ? M - 1 : M + 1;
        double want = ldexp((double)even, -54 + e - f); /* exact: even < 2^55, a double of the grid */
        toi_result res = toi_f_accurate(&c);
        kt_case_text(&c, line, sizeof line);
        cr_assert_eq(res.cls, hit ? TOI_HIT : TOI_GRAZE, "class %s: %s", toi_class_name(res.cls), line);
        cr_assert(res.t == want, "tie rounded to %a, the even neighbour is %a (M = %llu): %s " KT_SEED_MSG, res.t,
                  want, (unsigned long long)M, line, KT_SEED_ARGS);
        checked++;
        if (rep == 0) { /* the construction itself, against the certified reference */
          toi_ref ref;
          cr_assert_eq(kt_ref(&ref, &c), TOI_OK);
          cr_assert(ref.cls == res.cls && ref.tfwd == want, "reference: %s %a, want %a: %s",
                    toi_class_name(ref.cls), ref.tfwd, want, line);
        }
      }
  cr_assert_eq(checked, reps * m * 8);
}

/* cases/ties.cases: each root an exact tie (the exact side test says t* is
   the midpoint between the reference's double and one neighbour), rounded by
   accurate to the reference's double, which is the even one; the "near-"
   cases are no ties, and only the rounding is checked. */
Test(accurate, tie_regression_cases) {
  toi_caselist list = {0};
  toi_diags diags = {0};
  const char *path = TOI_SOURCE_DIR "/cases/ties.cases";
  cr_assert_eq(toi_read_cases(&list, path, &diags), TOI_OK, "%s does not read", path);
  cr_assert_geq(list.count, 5, "%s: only %zu cases", path, list.count);
  for (size_t i = 0; i < list.count; i++) {
    const toi_case *c = &list.items[i];
    toi_ref ref;
    cr_assert_eq(kt_ref(&ref, c), TOI_OK);
    cr_assert(ref.cls == TOI_HIT || ref.cls == TOI_GRAZE, "%s: class %s", c->id, toi_class_name(ref.cls));
    double y = ref.tfwd, up = nextafter(y, INFINITY), down = nextafter(y, 0);
    int tie = qx_root_side(c, c->dim, y, up - y) == 0 || qx_root_side(c, c->dim, y, down - y) == 0;
    int near = !strncmp(c->id, "near-", 5);
    cr_assert(tie != near, "%s: t* is %sa tie", c->id, tie ? "" : "not ");
    uint64_t bits;
    memcpy(&bits, &y, sizeof bits);
    cr_assert(near || (bits & 1) == 0, "%s: the reference's %a is odd", c->id, y);
    toi_result res = toi_f_accurate(c);
    cr_assert(res.cls == ref.cls && res.t == y, "%s: accurate %s %a, reference %a", c->id,
              toi_class_name(res.cls), res.t, y);
  }
  toi_caselist_free(&list);
}
