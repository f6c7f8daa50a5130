/* test_gen.c: the PRNG and the case families: determinism and each family's stated exact property. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <float.h>
#include <gmp.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "gen.h"
#include "rng.h"
#include "toi.h"
#include "toiref.h"
#include "cli_check.h"
#include "tmp_dir.h"
#include "test_env.h"
#include "ref_forms.h"
#include "msg_text.h"
#include "exact_quad.h"
#include "eft.h"

static int test_scale(void) { return (int)te_scale(); }

static uint64_t test_seed(void) { return te_seed(20240601u); }

/* ---- the generator against independently computed vectors ---- */

Test(gen, xoshiro256starstar_reference_vector) {
  /* First outputs of xoshiro256** from the state {1, 2, 3, 4}, computed with
     a separate big-integer implementation of the published algorithm. */
  toi_rng r = {{1, 2, 3, 4}};
  const uint64_t want[] = {11520u, 0u, 1509978240u, 1215971899390074240u, 1216172134540287360u,
                           607988272756665600u};
  for (int i = 0; i < 6; i++) cr_assert_eq(toi_rng_next(&r), want[i], "output %d", i);
}

Test(gen, splitmix64_reference_vector) {
  uint64_t x = 1234567;
  const uint64_t want[] = {6457827717110365317u, 3203168211198807973u, 9817491932198370423u,
                           4593380528125082431u, 16408922859458223821u};
  for (int i = 0; i < 5; i++) cr_assert_eq(toi_splitmix64(&x), want[i], "output %d", i);
}

Test(gen, item_streams_reference_vector) {
  /* seed_item(42, 2, 7) chains splitmix64 as documented in rng.h; the values
     come from the same separate implementation. */
  toi_rng r;
  toi_rng_seed_item(&r, 42, 2, 7);
  cr_assert_eq(toi_rng_next(&r), 13471820067416331683u);
  cr_assert_eq(toi_rng_next(&r), 1015912402355517850u);
  cr_assert_eq(toi_rng_next(&r), 8543995177701239905u);
}

Test(gen, jump_is_deterministic_and_moves) {
  toi_rng a, b;
  toi_rng_seed(&a, 9);
  toi_rng_seed(&b, 9);
  toi_rng_jump(&a);
  toi_rng_jump(&b);
  cr_assert_eq(memcmp(&a, &b, sizeof a), 0);
  toi_rng c;
  toi_rng_seed(&c, 9);
  cr_assert_neq(memcmp(&a, &c, sizeof a), 0);
}

Test(gen, uniform_doubles_and_integers_in_range) {
  toi_rng r;
  toi_rng_seed(&r, test_seed());
  int n = 20000 * test_scale();
  int lo_seen = 0, hi_seen = 0;
  for (int i = 0; i < n; i++) {
    double u = toi_rng_u01(&r);
    cr_assert(u >= 0 && u < 1, "u01 %a (seed %llu)", u, (unsigned long long)test_seed());
    cr_assert_eq(u, ldexp(floor(ldexp(u, 53)), -53), "u01 not on the 2^-53 grid");
    int64_t k = toi_rng_int(&r, -3, 5);
    cr_assert(k >= -3 && k <= 5);
    lo_seen |= k == -3;
    hi_seen |= k == 5;
    double b = toi_rng_bits(&r, -10, 10);
    cr_assert(b >= -10 && b <= 10);
    double d = toi_rng_dyadic(&r, 20, 20);
    cr_assert(fabs(d) < 1 && ldexp(d, 20) == floor(ldexp(d, 20)));
  }
  cr_assert(lo_seen && hi_seen, "both ends of [-3, 5] drawn");
}

Test(gen, double_order_is_monotone) {
  const double xs[] = {-INFINITY, -DBL_MAX, -1.0, -DBL_MIN, -0x1p-1074, 0.0, 0x1p-1074, DBL_MIN, 1.0, DBL_MAX};
  for (size_t i = 0; i + 1 < sizeof xs / sizeof xs[0]; i++)
    cr_assert_lt(toi_double_ord(xs[i]), toi_double_ord(xs[i + 1]), "%a < %a", xs[i], xs[i + 1]);
  cr_assert_eq(toi_double_ord(-0.0), 0);
  cr_assert_eq(toi_double_ord(nextafter(1.0, 2.0)) - toi_double_ord(1.0), 1);
  cr_assert_eq(toi_double_ord(0x1p-1074) - toi_double_ord(-0x1p-1074), 2);
  for (size_t i = 1; i + 1 < sizeof xs / sizeof xs[0]; i++)
    cr_assert_eq(toi_double_from_ord(toi_double_ord(xs[i])), xs[i]);
}

Test(gen, bit_sampling_favours_small_magnitudes) {
  /* Uniform over the doubles of [-1, 1], a magnitude below 2^-10 has
     probability (1022 - 10) / 1023 binades ~ 0.99; uniform over the reals,
     2^-10. */
  toi_rng r;
  toi_rng_seed(&r, test_seed());
  int small_bits = 0, small_real = 0, n = 4000;
  for (int i = 0; i < n; i++) {
    small_bits += fabs(toi_rng_bits(&r, -1, 1)) < 0x1p-10;
    small_real += fabs(toi_rng_uniform(&r, -1, 1)) < 0x1p-10;
  }
  cr_assert_gt(small_bits, n * 95 / 100);
  cr_assert_lt(small_real, n / 100);
}

/* ---- exact quantities with GMP, independent of the reference ---- */


static int sign_D(const toi_case *c, int *sign_c) {
  mpq_t a, b, cc, D;
  mpq_inits(a, b, cc, D, NULL);
  tq_abcd(c, a, b, cc, D);
  int sd = mpq_sgn(D);
  if (sign_c) *sign_c = mpq_sgn(cc);
  mpq_clears(a, b, cc, D, NULL);
  return sd;
}

static toi_class ref_class(const toi_case *c) {
  toi_ref r;
  cr_assert_eq(tr_solve(&r, c), TOI_OK, "reference failed on %s", c->id);
  return r.cls;
}

static toi_gen_opts opts(toi_gen_family f, int dim) {
  toi_gen_opts o;
  toi_gen_opts_default(&o, f);
  o.seed = test_seed();
  o.dim = dim;
  return o;
}

typedef struct dim_param {
  int dim;
} dim_param;

ParameterizedTestParameters(gen, grazing_discriminant_sign) {
  static dim_param p[] = {{2}, {3}};
  return cr_make_param_array(dim_param, p, 2);
}

ParameterizedTest(dim_param *p, gen, grazing_discriminant_sign) {
  toi_gen_opts o = opts(TOI_GEN_GRAZING, p->dim);
  o.k = (toi_gen_range){1, 60, 1};
  int n = 600 * test_scale(), in = 0, out = 0;
  for (int i = 0; i < n; i++) {
    toi_case c;
    size_t b;
    cr_assert_eq(toi_gen_case(&c, NULL, &b, &o, (uint64_t)i), TOI_OK);
    cr_assert_eq(b, (size_t)(i % 60));
    int inside = strstr(c.id, "-in-") != NULL;
    in += inside;
    out += !inside;
    /* Inside (sigma = -1): D > 0, a hit; outside: D < 0, a miss. For every k. */
    cr_assert_eq(sign_D(&c, NULL), inside ? 1 : -1, "%s: exact D sign (seed %llu)", c.id,
                 (unsigned long long)o.seed);
    cr_assert_eq(ref_class(&c), inside ? TOI_HIT : TOI_MISS, "%s: reference class", c.id);
  }
  cr_assert(in > n / 4 && out > n / 4);
}

Test(gen, grazing_deep_k_keeps_the_sign) {
  toi_gen_opts o = opts(TOI_GEN_GRAZING, 2);
  o.k = (toi_gen_range){100, 1000, 100};
  for (int i = 0; i < 60; i++) {
    toi_case c;
    size_t b;
    cr_assert_eq(toi_gen_case(&c, NULL, &b, &o, (uint64_t)i), TOI_OK);
    int inside = strstr(c.id, "-in-") != NULL;
    cr_assert_eq(sign_D(&c, NULL), inside ? 1 : -1, "%s", c.id);
    cr_assert_eq(ref_class(&c), inside ? TOI_HIT : TOI_MISS, "%s", c.id);
  }
}

ParameterizedTestParameters(gen, near_contact_gap_sign) {
  static dim_param p[] = {{2}, {3}};
  return cr_make_param_array(dim_param, p, 2);
}

ParameterizedTest(dim_param *p, gen, near_contact_gap_sign) {
  toi_gen_opts o = opts(TOI_GEN_NEAR_CONTACT, p->dim);
  int n = 480 * test_scale();
  for (int i = 0; i < n; i++) {
    toi_case c;
    size_t b;
    cr_assert_eq(toi_gen_case(&c, NULL, &b, &o, (uint64_t)i), TOI_OK);
    int gap = strstr(c.id, "-gap-") != NULL, approach = strstr(c.id, "-app-") != NULL;
    int sc;
    int sd = sign_D(&c, &sc);
    cr_assert_eq(sc, gap ? 1 : -1, "%s: sign of the gap c (seed %llu)", c.id, (unsigned long long)o.seed);
    toi_class want = !gap ? TOI_OVERLAP : approach ? TOI_HIT : TOI_SEPARATING;
    cr_assert_eq(ref_class(&c), want, "%s: class", c.id);
    if (gap && approach) cr_assert_eq(sd, 1, "%s: approaching with a gap is a hit", c.id);
  }
}

ParameterizedTestParameters(gen, tangent_exact_and_neighbours) {
  static dim_param p[] = {{2}, {3}};
  return cr_make_param_array(dim_param, p, 2);
}

ParameterizedTest(dim_param *p, gen, tangent_exact_and_neighbours) {
  toi_gen_opts o = opts(TOI_GEN_TANGENT, p->dim);
  int n = 340 * test_scale(), moved_class = 0;
  for (int i = 0; i < n; i++) {
    toi_case c, base;
    size_t b;
    cr_assert_eq(toi_gen_case(&c, &base, &b, &o, (uint64_t)i), TOI_OK);
    int k = o.k.lo + (int)b;
    cr_assert_eq(sign_D(&base, NULL), 0, "%s: the base is exactly tangent", c.id);
    cr_assert_eq(ref_class(&base), TOI_GRAZE, "%s", c.id);
    /* Exactly one input differs from the tangent base, by exactly k ulps. */
    const double *x = &c.pa[0], *y = &base.pa[0];
    double *fx[] = {c.pa, c.va, c.pb, c.vb}, *fy[] = {base.pa, base.va, base.pb, base.vb};
    int differ = 0;
    for (int v = 0; v < 4; v++)
      for (int d = 0; d < 3; d++)
        if (fx[v][d] != fy[v][d]) differ++, x = &fx[v][d], y = &fy[v][d];
    if (c.ra != base.ra) differ++, x = &c.ra, y = &base.ra;
    if (c.rb != base.rb) differ++, x = &c.rb, y = &base.rb;
    cr_assert_eq(c.ma, base.ma);
    cr_assert_eq(c.mb, base.mb);
    if (k == 0) {
      cr_assert_eq(differ, 0, "%s", c.id);
      cr_assert_eq(ref_class(&c), TOI_GRAZE);
    } else {
      cr_assert_eq(differ, 1, "%s: %d inputs moved", c.id, differ);
      int64_t dist = toi_double_ord(*x) - toi_double_ord(*y);
      cr_assert(dist == k || dist == -k, "%s: moved %lld ulps", c.id, (long long)dist);
      moved_class += ref_class(&c) != TOI_GRAZE;
    }
  }
  cr_assert_gt(moved_class, n / 2, "most neighbours leave the tangent");
}

Test(gen, far_translation_exact_up_to_e9_preserves_class) {
  toi_gen_opts o = opts(TOI_GEN_FAR, 2);
  int n = 320 * test_scale(), exact_seen = 0, moved = 0;
  for (int i = 0; i < n; i++) {
    toi_case c, base;
    size_t b;
    cr_assert_eq(toi_gen_case(&c, &base, &b, &o, (uint64_t)i), TOI_OK);
    int e = o.e.lo + (int)b;
    /* The translation is exact when s = pB - pA is unchanged as a real. */
    mpq_t x, y, t;
    mpq_inits(x, y, t, NULL);
    int exact = 1;
    for (int d = 0; d < c.dim; d++) {
      mpq_set_d(x, c.pb[d]);
      mpq_set_d(t, c.pa[d]);
      mpq_sub(x, x, t);
      mpq_set_d(y, base.pb[d]);
      mpq_set_d(t, base.pa[d]);
      mpq_sub(y, y, t);
      exact &= mpq_equal(x, y) != 0;
    }
    mpq_clears(x, y, t, NULL);
    cr_assert(memcmp(c.va, base.va, sizeof c.va) == 0 && c.ra == base.ra && c.rb == base.rb);
    if (e <= 9) cr_assert(exact, "%s: the translation by 10^%d must be exact", c.id, e);
    if (exact) {
      exact_seen++;
      cr_assert_eq(ref_class(&c), ref_class(&base), "%s: class of the base case", c.id);
    } else {
      moved++;
    }
    /* The offset has the stated magnitude. */
    double off = fabs(c.pa[0] - base.pa[0]) + fabs(c.pa[1] - base.pa[1]);
    double ten = 1;
    for (int k = 0; k < e; k++) ten *= 10;
    if (e >= 3) cr_assert(off > ten * 0.5 && off < ten * 2, "%s: offset %g for e = %d", c.id, off, e);
  }
  cr_assert_gt(exact_seen, 0);
  cr_assert_gt(moved, 0, "large offsets round");
}

Test(gen, scale_preserves_class_and_scales_roots_when_exact) {
  toi_gen_opts o = opts(TOI_GEN_SCALE, 3);
  o.e = (toi_gen_range){-1000, 1000, 100};
  int n = 420 * test_scale(), checked_t = 0;
  for (int i = 0; i < n; i++) {
    toi_case c, base;
    size_t b;
    cr_assert_eq(toi_gen_case(&c, &base, &b, &o, (uint64_t)i), TOI_OK);
    int e = o.e.lo + (int)b * o.e.step;
    /* f is not recorded apart: recover it from the ID "scale-eE-fF-...". */
    const char *fp = strstr(c.id, "-f");
    cr_assert_not_null(fp);
    int f = atoi(fp + 2);
    int exact = 1;
    for (int d = 0; d < 3; d++) {
      exact &= scalbn(c.pa[d], -e) == base.pa[d] && scalbn(c.pb[d], -e) == base.pb[d];
      exact &= scalbn(c.va[d], -f) == base.va[d] && scalbn(c.vb[d], -f) == base.vb[d];
    }
    exact &= scalbn(c.ra, -e) == base.ra && scalbn(c.rb, -e) == base.rb;
    if (!exact) continue;
    toi_ref rc, rb;
    cr_assert_eq(tr_solve(&rc, &c), TOI_OK);
    cr_assert_eq(tr_solve(&rb, &base), TOI_OK);
    cr_assert_eq(rc.cls, rb.cls, "%s: class of the base case", c.id);
    /* t* scales by exactly 2^(e-f); its rounding too while both are normal. */
    if (!isnan(rb.tfwd) && rb.tfwd != 0) {
      double want = scalbn(rb.tfwd, e - f);
      if (isnormal(want) && fabs(want) < DBL_MAX / 2 && isnormal(rb.tfwd)) {
        cr_assert_eq(rc.tfwd, want, "%s: %a vs %a", c.id, rc.tfwd, want);
        checked_t++;
      }
    }
  }
  cr_assert_gt(checked_t, 10);
}

/* The scale family scales by eft.h's scale2: it must round as scalbn (one
   rounding, to nearest even) for every exponent the family reaches, into the
   subnormals and the overflow too. Values worked by hand, then a sweep of
   significands and exponents against libm's scalbn. */
Test(gen, scale2_rounds_as_scalbn) {
  cr_assert_eq(scale2(1.0, -1074), 0x1p-1074);
  cr_assert_eq(scale2(3.0, -1075), 0x1p-1073, "1.5 ulp of the subnormals: tie to even, up");
  cr_assert_eq(scale2(1.0, -1075), 0.0, "half the least subnormal: tie to even, down");
  cr_assert(signbit(scale2(-1.0, -1075)), "a negative tie rounds to -0");
  cr_assert_eq(scale2(0x1.0000000000001p0, -1075), 0x1p-1074, "above the half: up");
  cr_assert_eq(scale2(0x1.8p0, -1023), 0x1.8p-1023, "exact subnormal");
  cr_assert_eq(scale2(0x1.fffffffffffffp0, -1023), 0x1p-1022, "rounds up to the least normal");
  cr_assert_eq(scale2(0x1p-1074, 2097), 0x1p1023, "subnormal to the top binade");
  cr_assert_eq(scale2(1.0, 1024), INFINITY);
  cr_assert_eq(scale2(-0x1p-1074, 2100), -INFINITY);
  cr_assert_eq(scale2(DBL_MAX, -2100), 0.0);
  const double xs[] = {1.0, -1.0, 0x1.8p0, 0x1.0000000000001p0, 0x1.fffffffffffffp0, 0x1.4000000000001p-3,
                       -0x1.6a09e667f3bcdp5, 0x1.ffffffffffffep700, 0x1p-1074, 0x1.8p-1070, -0x1.123456789abcdp-1030,
                       DBL_MAX, 0.0, -0.0};
  int n = 0;
  for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++)
    for (int k = -2200; k <= 2200; k++) {
      double got = scale2(xs[i], k), want = scalbn(xs[i], k);
      cr_assert(got == want && signbit(got) == signbit(want), "scale2(%a, %d) = %a, scalbn %a", xs[i], k, got, want);
      n++;
    }
  cr_assert_gt(n, 60000);
}

Test(gen, slow_velocities_are_tiny) {
  toi_gen_opts o = opts(TOI_GEN_SLOW, 2);
  for (int i = 0; i < 102 * test_scale(); i++) {
    toi_case c;
    size_t b;
    cr_assert_eq(toi_gen_case(&c, NULL, &b, &o, (uint64_t)i), TOI_OK);
    int k = o.k.lo + (int)b;
    for (int d = 0; d < 2; d++) {
      cr_assert_leq(fabs(c.va[d]), ldexp(1, -k));
      cr_assert_leq(fabs(c.vb[d]), ldexp(5, -k));
    }
  }
}

Test(gen, generic_ranges_real_and_bits) {
  for (int bits = 0; bits < 2; bits++) {
    toi_gen_opts o = opts(TOI_GEN_GENERIC, 3);
    o.sampling = bits ? TOI_GEN_SAMPLE_BITS : TOI_GEN_SAMPLE_REAL;
    o.pos = 1e300;
    for (int i = 0; i < 500; i++) {
      toi_case c;
      size_t b;
      cr_assert_eq(toi_gen_case(&c, NULL, &b, &o, (uint64_t)i), TOI_OK);
      for (int d = 0; d < 3; d++) {
        cr_assert(fabs(c.pa[d]) <= 1e300 && fabs(c.pb[d]) <= 1e300);
        cr_assert(fabs(c.va[d]) <= 5 && fabs(c.vb[d]) <= 5);
      }
      cr_assert(c.ra >= 0.1 && c.ra <= 2 && c.rb >= 0.1 && c.rb <= 2);
      cr_assert(c.ma >= 0.5 && c.ma <= 2);
      (void)ref_class(&c); /* every generated input is legal for the reference */
    }
  }
}

Test(gen, aimed_mostly_hits) {
  toi_gen_opts o = opts(TOI_GEN_AIMED, 2);
  int n = 1000, hits = 0;
  for (int i = 0; i < n; i++) {
    toi_case c;
    size_t b;
    cr_assert_eq(toi_gen_case(&c, NULL, &b, &o, (uint64_t)i), TOI_OK);
    hits += ref_class(&c) == TOI_HIT;
  }
  /* Impact parameter uniform in [0, 1.25] R: a hit with probability 0.8. */
  cr_assert(hits > 740 && hits < 860, "%d hits of %d", hits, n);
}

Test(gen, mixed_blend_and_bins) {
  toi_gen_opts o = opts(TOI_GEN_MIXED, 0);
  int dims[4] = {0};
  for (int i = 0; i < 320; i++) {
    toi_case c;
    size_t b;
    cr_assert_eq(toi_gen_case(&c, NULL, &b, &o, (uint64_t)i), TOI_OK);
    char want[64];
    snprintf(want, sizeof want, "mixed-%s-", toi_gen_family_name((toi_gen_family)b));
    cr_assert_eq(strncmp(c.id, want, strlen(want)), 0, "%s in bin %zu", c.id, b);
    dims[c.dim]++;
    (void)ref_class(&c);
  }
  cr_assert(dims[2] > 100 && dims[3] > 100);
  size_t counts[TOI_GEN_MIXED] = {0};
  for (int i = 0; i < 16; i++) {
    toi_case c;
    size_t b;
    cr_assert_eq(toi_gen_case(&c, NULL, &b, &o, (uint64_t)i), TOI_OK);
    counts[b]++;
  }
  const size_t want[TOI_GEN_MIXED] = {2, 2, 3, 2, 2, 2, 1, 2};
  for (int f = 0; f < TOI_GEN_MIXED; f++) cr_assert_eq(counts[f], want[f], "%s", toi_gen_family_name((toi_gen_family)f));
}

typedef struct fam_param {
  int family;
  int dim;
} fam_param;

ParameterizedTestParameters(gen, deterministic_and_order_free) {
  static fam_param p[2 * TOI_GEN_FAMILY_COUNT];
  for (int f = 0; f < TOI_GEN_FAMILY_COUNT; f++) {
    p[2 * f] = (fam_param){f, 2};
    p[2 * f + 1] = (fam_param){f, 3};
  }
  return cr_make_param_array(fam_param, p, 2 * TOI_GEN_FAMILY_COUNT);
}

ParameterizedTest(fam_param *p, gen, deterministic_and_order_free) {
  toi_gen_opts o = opts((toi_gen_family)p->family, p->dim);
  enum { N = 200 };
  static toi_case fwd[N];
  char seen[N][TOI_ID_MAX + 1];
  for (int i = 0; i < N; i++) {
    size_t b;
    cr_assert_eq(toi_gen_case(&fwd[i], NULL, &b, &o, (uint64_t)i), TOI_OK);
    cr_assert(toi_id_valid(fwd[i].id), "invalid ID %s", fwd[i].id);
    memcpy(seen[i], fwd[i].id, sizeof seen[i]);
  }
  /* Backwards, case i is the same bits: nothing depends on what came before. */
  for (int i = N - 1; i >= 0; i--) {
    toi_case c;
    size_t b;
    cr_assert_eq(toi_gen_case(&c, NULL, &b, &o, (uint64_t)i), TOI_OK);
    cr_assert_eq(memcmp(&c, &fwd[i], sizeof c), 0, "case %d differs", i);
  }
  for (int i = 0; i < N; i++)
    for (int j = i + 1; j < N; j++) cr_assert_neq(strcmp(seen[i], seen[j]), 0, "duplicate ID %s", seen[i]);
  /* Another seed gives other cases. */
  o.seed ^= 1;
  toi_case c;
  size_t b;
  cr_assert_eq(toi_gen_case(&c, NULL, &b, &o, 5), TOI_OK);
  cr_assert_neq(memcmp(c.pb, fwd[5].pb, sizeof c.pb), 0);
}

Test(gen, options_checked) {
  char msg[160];
  msg_text mt;
  toi_msg m = msg_text_sink(&mt, msg, sizeof msg);
  toi_gen_opts o = opts(TOI_GEN_GRAZING, 2);
  o.k = (toi_gen_range){5, 2, 1};
  cr_assert_eq(toi_gen_opts_check(&o, &m), TOI_ERR_RANGE);
  cr_assert_neq(strstr(msg, "--k"), NULL);
  o = opts(TOI_GEN_SCALE, 2);
  o.e = (toi_gen_range){0, 2000, 1};
  cr_assert_eq(toi_gen_opts_check(&o, &m), TOI_ERR_RANGE);
  toi_case c;
  size_t b;
  cr_assert_eq(toi_gen_case(&c, NULL, &b, &o, 0), TOI_ERR_RANGE);
  o = opts(TOI_GEN_GENERIC, 5);
  cr_assert_eq(toi_gen_opts_check(&o, &m), TOI_ERR_RANGE);
}

/* ---- the command ---- */

static int run_cmd(const char *args, const char *out) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "'%s' %s >'%s' 2>/dev/null </dev/null", TOIBENCH_PATH, args, out);
  return cc_cmd(NULL, cmd);
}


Test(gen, command_output_is_reproducible_and_parses_back, .init = td_setup, .fini = td_teardown) {
  const char *a = td_path("a.cases"), *b = td_path("b.cases");
  cr_assert_eq(run_cmd("gen mixed --count 300 --seed 77", a), 0);
  cr_assert_eq(run_cmd("gen mixed --seed 77 --count 300", b), 0);
  size_t la, lb;
  char *x = cc_slurp(a, &la), *y = cc_slurp(b, &lb);
  cr_assert(la == lb && memcmp(x, y, la) == 0, "same seed, same bytes");
  toi_caselist list = {0};
  toi_diags diags = {0};
  cr_assert_eq(toi_parse_cases(&list, a, x, la, &diags), TOI_OK, "gen output must parse");
  cr_assert_eq(list.count, 300);
  toi_gen_opts o = opts(TOI_GEN_MIXED, 0);
  o.seed = 77;
  for (size_t i = 0; i < list.count; i++) {
    toi_case c;
    size_t bin;
    cr_assert_eq(toi_gen_case(&c, NULL, &bin, &o, i), TOI_OK);
    cr_assert_str_eq(list.items[i].id, c.id);
    cr_assert_eq(list.items[i].dim, c.dim);
    cr_assert_eq(memcmp(list.items[i].pa, c.pa, sizeof c.pa), 0, "%s round trip", c.id);
    cr_assert_eq(memcmp(list.items[i].vb, c.vb, sizeof c.vb), 0, "%s round trip", c.id);
    cr_assert(list.items[i].ra == c.ra && list.items[i].rb == c.rb && list.items[i].mb == c.mb);
  }
  /* A slice with --start is the same cases. */
  cr_assert_eq(run_cmd("gen mixed --seed 77 --start 100 --count 5", b), 0);
  free(y);
  y = cc_slurp(b, &lb);
  const char *first = strchr(y, '\n') + 1;
  toi_case c100;
  size_t bin100;
  cr_assert_eq(toi_gen_case(&c100, NULL, &bin100, &o, 100), TOI_OK);
  cr_assert_eq(strncmp(first, c100.id, strlen(c100.id)), 0, "%.40s", first);
  cr_assert_eq(strncmp(first, la > 0 ? strstr(x, c100.id) : "", strcspn(first, "\n")), 0,
               "the slice repeats the line of case 100");
  toi_caselist_free(&list);
  free(x);
  free(y);
}

Test(gen, command_usage_errors, .init = td_setup, .fini = td_teardown) {
  const char *o = td_path("err.txt");
  cr_assert_eq(run_cmd("gen --help", o), 0);
  cr_assert_eq(run_cmd("gen", o), 2);
  cr_assert_eq(run_cmd("gen nosuchfamily", o), 2);
  cr_assert_eq(run_cmd("gen grazing --e 1:2", o), 2);
  cr_assert_eq(run_cmd("gen grazing --k 9:3", o), 2);
  cr_assert_eq(run_cmd("gen tangent --k 0:100000", o), 2);
  cr_assert_eq(run_cmd("gen generic --sampling maybe", o), 2);
  cr_assert_eq(run_cmd("gen generic --count", o), 2);
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "'%s' gen grazing --bogus 2>&1 >/dev/null", TOIBENCH_PATH);
  const char *const pipeline[] = {cmd, "grep -q \"Try 'toibench gen --help'\""};
  cc_job job = {0};
  cr_assert_eq(cc_pipe(&job, 2, pipeline), 0, "usage errors end with the Try line");
}

/* toi_gen_cases gives, for a whole run of indexes, the bytes toi_gen_case gives one
 * by one (case, ID and bin), for every family in both precisions, from an
 * index past 2^32, or the same with empty IDs; and refuses what toi_gen_case
 * refuses, writing nothing. */
Test(gen, cases_in_a_run_are_the_cases_one_by_one) {
  enum { N = 300 };
  static toi_case run[N], one;
  size_t bins[N], bin;
  for (int prec = 0; prec < 2; prec++)
    for (int f = 0; f < TOI_GEN_FAMILY_COUNT; f++) {
      toi_gen_opts o;
      toi_gen_opts_default_in(&o, (toi_gen_family)f, prec ? TOI_BINARY32 : TOI_BINARY64);
      o.seed = 99;
      uint64_t lo = (uint64_t)1 << 33;
      cr_assert_eq(toi_gen_cases(run, bins, &o, lo, N, 1), TOI_OK);
      for (int k = 0; k < N; k++) {
        cr_assert_eq(toi_gen_case(&one, NULL, &bin, &o, lo + (uint64_t)k), TOI_OK);
        cr_assert_eq(memcmp(&one, &run[k], sizeof one), 0, "%s case %d differs", toi_gen_family_name((toi_gen_family)f), k);
        cr_assert_eq(bin, bins[k]);
      }
      /* Without IDs: the same cases, each ID empty (and nothing else). */
      cr_assert_eq(toi_gen_cases(run, bins, &o, lo, N, 0), TOI_OK);
      for (int k = 0; k < N; k++) {
        cr_assert_eq(toi_gen_case(&one, NULL, &bin, &o, lo + (uint64_t)k), TOI_OK);
        cr_assert(one.id[0] != 0 && run[k].id[0] == 0);
        memcpy(run[k].id, one.id, sizeof one.id);
        cr_assert_eq(memcmp(&one, &run[k], sizeof one), 0, "%s case %d differs", toi_gen_family_name((toi_gen_family)f), k);
      }
    }
  toi_gen_opts bad;
  toi_gen_opts_default(&bad, TOI_GEN_GRAZING);
  bad.k.lo = 0; /* grazing needs k >= 1 */
  memset(run, 0x5a, sizeof run[0]);
  cr_assert_eq(toi_gen_case(&one, NULL, &bin, &bad, 0), TOI_ERR_RANGE);
  cr_assert_eq(toi_gen_cases(run, bins, &bad, 0, N, 1), TOI_ERR_RANGE);
  cr_assert_eq(((unsigned char *)run)[0], 0x5a, "nothing written");
}
