/* test_ref_bounds.c: toi_ref_error_bound and toi_ref_kappa_bound enclose what the MPFR engine measures. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "gen.h"
#include "ref_common.h"
#include "reference_check.h"
#include "ref_forms.h"

/*
 * The sweep places most answers from these enclosures alone (sweep.c,
 * lazy_decided), so each must hold the exact figure: the ULP error and
 * kappa that the GMP/MPFR engine gives (the specification), bits equal to
 * its bits, an enclosure of kappa within 2^-28 of it relative, and the
 * error's enclosure 0 <= lo < hi < Inf whenever lo != hi. The fast engine
 * must moreover give true enclosures (lo < hi) for a good share of the
 * answers, else the tests below would not reach that code. Counts scale with TOI_TEST_SCALE.
 */

typedef struct bound_counts {
  long calls, enclosed, kcalls, kenclosed;
} bound_counts;

static void check_error_bound(const toi_case *c, toi_direction dir, double T, toi_precision q, const char *where,
                              bound_counts *n) {
  double lo, hi, bits, ulp, b2;
  toi_status sb = tr_error_bound(&lo, &hi, &bits, T, c, dir, q, TOI_REF_FAST);
  toi_status se = tr_error_prec(&ulp, &b2, T, c, dir, q, TOI_REF_MPFR);
  cr_assert_eq(sb, se, "%s: status bound %d, mpfr %d on %s", where, (int)sb, (int)se, tr_fmt(c));
  if (se != TOI_OK) return;
  n->calls += isfinite(ulp) && ulp > 0;
  cr_assert(tr_same(bits, b2), "%s: bits %a against %a (T = %a) on %s", where, bits, b2, T, tr_fmt(c));
  if (tr_same(lo, hi)) {
    cr_assert(tr_same(lo, ulp), "%s: error %a against %a (T = %a) on %s", where, lo, ulp, T, tr_fmt(c));
    return;
  }
  n->enclosed++;
  cr_assert(lo >= 0 && hi < INFINITY && lo < hi, "%s: enclosure [%a, %a] (T = %a) on %s", where, lo, hi, T,
            tr_fmt(c));
  cr_assert(lo <= ulp && ulp <= hi, "%s: error %a outside [%a, %a] (T = %a) on %s", where, ulp, lo, hi, T,
            tr_fmt(c));
}

static void check_kappa_bound(const toi_case *c, toi_direction dir, const char *where, bound_counts *n) {
  double lo, hi, k;
  toi_status sb = tr_kappa_bound(&lo, &hi, c, dir, TOI_REF_FAST);
  toi_status se = tr_kappa_engine(&k, c, dir, TOI_REF_MPFR);
  cr_assert_eq(sb, se, "%s: kappa status bound %d, mpfr %d on %s", where, (int)sb, (int)se, tr_fmt(c));
  if (se != TOI_OK) return;
  n->kcalls += isfinite(k);
  if (tr_same(lo, hi)) {
    cr_assert(tr_same(lo, k), "%s: kappa %a against %a on %s", where, lo, k, tr_fmt(c));
    return;
  }
  n->kenclosed++;
  cr_assert(lo > 0 && lo < hi && hi <= lo * (1 + 0x1p-28), "%s: kappa enclosure [%a, %a] on %s", where, lo, hi,
            tr_fmt(c));
  cr_assert(lo <= k && k <= hi, "%s: kappa %a outside [%a, %a] on %s", where, k, lo, hi, tr_fmt(c));
}

static void check_case(const toi_case *c, toi_precision q, long i, const char *where, bound_counts *n) {
  toi_ref r;
  if (tr_solve_prec(&r, c, q, TOI_REF_FAST) != TOI_OK) return;
  for (int dir = 0; dir < 2; dir++) {
    double rn = dir ? r.trev : r.tfwd;
    double other = ref_dir_root(&r, (toi_direction)dir) == 1 ? r.thi : r.tlo;
    check_error_bound(c, (toi_direction)dir, tr_kind_T(0, rn, other), q, where, n);
    check_error_bound(c, (toi_direction)dir, tr_kind_T(1 + (int)((i + dir) % (TR_T_KINDS - 1)), rn, other), q,
                      where, n);
    if (q == TOI_BINARY64) check_kappa_bound(c, (toi_direction)dir, where, n);
  }
}

/* Every family, binary64 and binary32, 1500 cases each per scale unit. */
Test(ref_bounds, families_enclose_the_exact_figures) {
  long per = 1500 * tr_scale();
  for (int prec = 0; prec < 2; prec++) {
    toi_precision q = prec ? TOI_BINARY32 : TOI_BINARY64;
    for (int f = 0; f < TOI_GEN_FAMILY_COUNT; f++) {
      toi_gen_opts o;
      toi_gen_opts_default_in(&o, (toi_gen_family)f, q);
      o.seed = tr_seed();
      bound_counts n = {0, 0, 0, 0};
      for (long i = 0; i < per; i++) {
        toi_case c;
        size_t bin;
        cr_assert_eq(toi_gen_case(&c, NULL, &bin, &o, (uint64_t)i), TOI_OK);
        char where[160];
        snprintf(where, sizeof where, "%s %s case %ld " SEED_MSG, toi_gen_family_name((toi_gen_family)f),
                 prec ? "binary32" : "binary64", i, SEED_ARGS);
        check_case(&c, q, i, where, &n);
      }
      /* Measured (binary64): a tenth to a half of the finite nonzero errors
       * come as enclosures (the rest certified at once, far from t*), and
       * most finite kappas; in binary32 the errors are mostly certified. */
      if (q != TOI_BINARY64) continue;
      cr_expect_geq(n.enclosed * 20, n.calls, "%s: %ld of %ld errors enclosed", toi_gen_family_name((toi_gen_family)f),
                    n.enclosed, n.calls);
      cr_expect_geq(n.kenclosed * 2, n.kcalls, "%s: %ld of %ld kappas enclosed", toi_gen_family_name((toi_gen_family)f),
                    n.kenclosed, n.kcalls);
    }
  }
}

/* Random data over the whole exponent range: lengths in [2^el, 2^(el+40)],
 * velocities in [2^ev, 2^(ev+40)], half the pairs aimed at each other. */
Test(ref_bounds, any_scale_encloses_the_exact_figures) {
  tr_rng r = {tr_seed() ^ 0x626f756e6473ULL};
  long n_cases = 3000 * tr_scale();
  bound_counts n = {0, 0, 0, 0};
  for (long i = 0; i < n_cases; i++) {
    toi_case c;
    memset(&c, 0, sizeof c);
    strcpy(c.id, "rnd");
    c.dim = 2 + (int)(tr_next(&r) & 1);
    c.ma = c.mb = 1;
    int el = (int)tr_int(&r, -1000, 950), ev = (int)tr_int(&r, -1000, 950);
    tr_spread_fill(&r, &c, el, ev, (int)(i % 2), 0);
    char where[128];
    snprintf(where, sizeof where, "random case %ld " SEED_MSG, i, SEED_ARGS);
    check_case(&c, TOI_BINARY64, i, where, &n);
  }
  cr_expect_gt(n.enclosed, 0);
  cr_expect_gt(n.kenclosed, 0);
}

/* An answer on an exact root that the fast engine only encloses: B at (3, 0)
 * moving at (-1, 0) meets A (radii 1 and 1) at t* = 1 exactly. T = 1 has
 * error 0, which the enclosure must hold (its low end may be 0 itself); the
 * neighbours of 1 have errors 1 (above, ulp(1) = 2^-52) and 0.5 (below). */
Test(ref_bounds, an_exact_root_is_enclosed) {
  toi_case c = {.id = "x", .dim = 2, .pa = {0, 0, 0}, .pb = {3, 0, 0}, .va = {0, 0, 0}, .vb = {-1, 0, 0},
                .ra = 1, .rb = 1, .ma = 1, .mb = 1};
  const double T[3] = {1.0, nextafter(1.0, 2), nextafter(1.0, 0)}, want[3] = {0, 1, 0.5};
  for (int i = 0; i < 3; i++) {
    double lo, hi, bits;
    cr_assert_eq(tr_error_bound(&lo, &hi, &bits, T[i], &c, TOI_FORWARD, TOI_BINARY64, TOI_REF_FAST), TOI_OK);
    cr_assert(lo <= want[i] && want[i] <= hi && lo >= 0 && hi < INFINITY, "T = %a: [%a, %a]", T[i], lo, hi);
    cr_assert_eq(bits, i == 0 ? 0.0 : 1.0);
  }
}

/* The MPFR engine measures: lo = hi, the figure itself. */
Test(ref_bounds, mpfr_engine_gives_the_figures) {
  toi_case c = {.id = "b", .dim = 2, .pa = {0, 0, 0}, .pb = {3, 1, 0}, .va = {0, 0, 0}, .vb = {-1, 0, 0},
                .ra = 0.5, .rb = 0.25, .ma = 1, .mb = 1};
  double lo, hi, bits, ulp, b2;
  cr_assert_eq(tr_error_bound(&lo, &hi, &bits, 2.0, &c, TOI_FORWARD, TOI_BINARY64, TOI_REF_MPFR), TOI_OK);
  cr_assert_eq(tr_error_engine(&ulp, &b2, 2.0, &c, TOI_FORWARD, TOI_REF_MPFR), TOI_OK);
  cr_assert(tr_same(lo, ulp) && tr_same(hi, ulp) && tr_same(bits, b2));
  double k;
  cr_assert_eq(tr_kappa_bound(&lo, &hi, &c, TOI_FORWARD, TOI_REF_MPFR), TOI_OK);
  cr_assert_eq(tr_kappa_engine(&k, &c, TOI_FORWARD, TOI_REF_MPFR), TOI_OK);
  cr_assert(tr_same(lo, k) && tr_same(hi, k));
  /* Bad arguments: a refused case, no output pointer. */
  c.ra = -1;
  cr_assert_eq(tr_error_bound(&lo, &hi, &bits, 2.0, &c, TOI_FORWARD, TOI_BINARY64, TOI_REF_FAST), TOI_ERR_INPUT);
  cr_assert_eq(tr_kappa_bound(&lo, &hi, &c, TOI_FORWARD, TOI_REF_FAST), TOI_ERR_INPUT);
  toi_ref_query rq = tr_query(&c, TOI_BINARY64, TOI_REF_FAST);
  cr_assert_eq(toi_ref_kappa_bound(NULL, &rq), TOI_ERR_RANGE);
  cr_assert_eq(toi_ref_error_bound(NULL, &rq), TOI_ERR_RANGE);
}
