/* test_ref_err_ctx.c: the fast error's per-case state (RN(t*) - t* once per root) gives MPFR's bits for every answer a sweep meets. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "candidate.h"
#include "gen.h"
#include "ref_common.h"
#include "ref_fast_api.h"
#include "reference_check.h"
#include "ref_forms.h"

/*
 * A sweep measures the error of about eleven answers to the same case in a
 * row; the fast engine keeps the case's state between them and, near the
 * root, derives T - t* from RN(t*) - t* computed once per root. The MPFR
 * engine is the specification: for every family, in binary64 and binary32
 * (the case rounded as the binary32 candidates receive it), every answer
 * kind below must give the same status and bits from both engines, asked in
 * the order a sweep asks them (all the fast answers of a case first, so
 * that they share its state), and kappa too. The per-root path must be the
 * one that decides most answers near the root, and MPFR must rarely be
 * needed. Counts scale with TOI_TEST_SCALE; seeds come from TOI_TEST_SEED.
 */

enum { CX_KINDS = 20 };

/* One step of q's grid from x towards dir. */
static double cx_next(double x, double dir, toi_precision q) {
  return q == TOI_BINARY32 ? (double)nextafterf((float)x, (float)dir) : nextafter(x, dir);
}

/* Kind k of answer for a root that rounds to rq in q (1.0 when there is
 * none): rq, its neighbours 1..4 steps above and below in q, one binary64
 * step each side, far values, 0, -0, a negative, the infinities, NaN, the
 * smallest subnormal of q and a binary64 subnormal. */
static double cx_T(int k, double rq, toi_precision q) {
  double base = isnan(rq) ? 1.0 : rq;
  if (k >= 1 && k <= 8) {
    double t = base, dir = k <= 4 ? INFINITY : -INFINITY;
    for (int i = 0; i < (k - 1) % 4 + 1; i++) t = cx_next(t, dir, q);
    return t;
  }
  switch (k) {
  case 0: return base;
  case 9: return nextafter(base, INFINITY);
  case 10: return nextafter(base, -INFINITY);
  case 11: return base * (1 + 0x1p-12);
  case 12: return 3 * base + 2;
  case 13: return 0.0;
  case 14: return -0.0;
  case 15: return -base - 1;
  case 16: return INFINITY;
  case 17: return -INFINITY;
  case 18: return NAN;
  default: return q == TOI_BINARY32 ? 0x1p-149 : 0x1.8p-1060;
  }
}

typedef struct cx_param {
  int family;
  int prec; /* toi_precision */
} cx_param;

ParameterizedTestParameters(ref_err_ctx, families_both_precisions) {
  static cx_param p[2 * TOI_GEN_FAMILY_COUNT];
  size_t k = 0;
  for (int q = 0; q < 2; q++)
    for (int f = 0; f < TOI_GEN_FAMILY_COUNT; f++) p[k].family = f, p[k].prec = q ? TOI_BINARY32 : TOI_BINARY64, k++;
  return cr_make_param_array(cx_param, p, k);
}

static toi_status cx_error(double *u, double *b, double T, const toi_case *c, toi_direction d, toi_precision q,
                           toi_ref_engine e) {
  return q == TOI_BINARY64 ? tr_error_engine(u, b, T, c, d, e) : tr_error_prec(u, b, T, c, d, q, e);
}

/* Every kind for both directions of one case: the fast answers first, then
 * MPFR's, compared; kappa likewise. Returns the number of (case, T) pairs. */
static long cx_check_case(const toi_case *c, toi_precision q, const char *where) {
  toi_ref r;
  if (tr_solve_prec(&r, c, q, TOI_REF_MPFR) != TOI_OK) return 0;
  double uf[2][CX_KINDS], bf[2][CX_KINDS], kf[2];
  toi_status sf[2][CX_KINDS], skf[2];
  for (int d = 0; d < 2; d++) {
    double rq = d ? r.trev : r.tfwd;
    for (int k = 0; k < CX_KINDS; k++)
      sf[d][k] = cx_error(&uf[d][k], &bf[d][k], cx_T(k, rq, q), c, (toi_direction)d, q, TOI_REF_FAST);
    skf[d] = tr_kappa_engine(&kf[d], c, (toi_direction)d, TOI_REF_FAST);
  }
  for (int d = 0; d < 2; d++) {
    double rq = d ? r.trev : r.tfwd;
    for (int k = 0; k < CX_KINDS; k++) {
      double T = cx_T(k, rq, q), um, bm;
      toi_status sm = cx_error(&um, &bm, T, c, (toi_direction)d, q, TOI_REF_MPFR);
      cr_assert_eq(sf[d][k], sm, "%s: status fast %d mpfr %d, T = %a", where, (int)sf[d][k], (int)sm, T);
      cr_assert(tr_same(uf[d][k], um) && tr_same(bf[d][k], bm),
                "%s: dir %d T = %a (kind %d): fast ulp %a bits %a, mpfr ulp %a bits %a on %s", where, d, T, k,
                uf[d][k], bf[d][k], um, bm, tr_fmt(c));
    }
    double km;
    toi_status sm = tr_kappa_engine(&km, c, (toi_direction)d, TOI_REF_MPFR);
    cr_assert_eq(skf[d], sm, "%s: kappa status", where);
    cr_assert(tr_same(kf[d], km), "%s: dir %d kappa fast %a mpfr %a on %s", where, d, kf[d], km, tr_fmt(c));
  }
  return 2 * CX_KINDS;
}

/* 3000 cases per family, precision and scale unit (the second half in 3D
 * when the family lets the dimension be chosen): 120,000 (case, T) pairs. */
ParameterizedTest(cx_param *p, ref_err_ctx, families_both_precisions) {
  toi_precision q = (toi_precision)p->prec;
  long n = 3000 * tr_scale(), pairs = 0;
  toi_gen_opts o;
  toi_gen_opts_default(&o, (toi_gen_family)p->family);
  o.seed = tr_seed() + 17;
  ref_fast_err_counts_reset();
  for (long i = 0; i < n; i++) {
    if (i == n / 2 && o.dim != 0) o.dim = 3;
    toi_case c0, c;
    size_t bin;
    cr_assert_eq(toi_gen_case(&c0, NULL, &bin, &o, (uint64_t)i), TOI_OK);
    if (toi_candidate_input(&c, &c0, q) < 0) continue; /* beyond binary32's range */
    char where[160];
    snprintf(where, sizeof where, "%s %s case %ld " SEED_MSG, toi_gen_family_name(o.family),
             q == TOI_BINARY32 ? "binary32" : "binary64", i, SEED_ARGS);
    pairs += cx_check_case(&c, q, where);
  }
  cr_expect_gt(pairs, 0, "%s: no case solved", toi_gen_family_name(o.family));
  ref_fast_err_counts k;
  ref_fast_err_counts_get(&k);
  /* In binary32 the fast error leaves many cases of some families to MPFR
   * (rounded data whose roots it does not certify): only the bits count there. */
  if (q != TOI_BINARY64) return;
  cr_expect_gt(pairs, n * CX_KINDS, "%s: too few cases solved", toi_gen_family_name(o.family));
  cr_expect_leq(k.error_fb * 50, k.error_calls, "%s: %llu of %llu errors left to MPFR " SEED_MSG,
                toi_gen_family_name(o.family), k.error_fb, k.error_calls, SEED_ARGS);
  cr_expect_leq(k.kappa_fb * 50, k.kappa_calls, "%s: %llu of %llu kappas left to MPFR " SEED_MSG,
                toi_gen_family_name(o.family), k.kappa_fb, k.kappa_calls, SEED_ARGS);
  /* Near the root the per-root path decides nearly always. */
  cr_expect_leq(k.error_near_t * 20, k.error_near_rn + k.error_near_t, "%s: near %llu by RN(t*), %llu at T",
                toi_gen_family_name(o.family), k.error_near_rn, k.error_near_t);
}

/* Answers to two cases interleaved (A, B, A, ...): the state of one case
 * must never answer for the other, and a repeated case is measured alike. */
Test(ref_err_ctx, interleaved_cases) {
  toi_gen_opts o;
  toi_gen_opts_default(&o, TOI_GEN_MIXED);
  o.seed = tr_seed() + 29;
  long n = 400 * tr_scale();
  for (long i = 0; i + 1 < n; i += 2) {
    toi_case a, b;
    size_t bin;
    cr_assert_eq(toi_gen_case(&a, NULL, &bin, &o, (uint64_t)i), TOI_OK);
    cr_assert_eq(toi_gen_case(&b, NULL, &bin, &o, (uint64_t)i + 1), TOI_OK);
    toi_ref ra, rb;
    if (tr_solve_engine(&ra, &a, TOI_REF_MPFR) != TOI_OK || tr_solve_engine(&rb, &b, TOI_REF_MPFR) != TOI_OK)
      continue;
    for (int k = 0; k < CX_KINDS; k++) {
      const toi_case *c[2] = {&a, &b};
      const toi_ref *r[2] = {&ra, &rb};
      for (int s = 0; s < 4; s++) {
        const toi_case *x = c[s & 1];
        double T = cx_T(k, r[s & 1]->tfwd, TOI_BINARY64), uf, bf, um, bm;
        toi_status sf = tr_error_engine(&uf, &bf, T, x, TOI_FORWARD, TOI_REF_FAST);
        toi_status sm = tr_error_engine(&um, &bm, T, x, TOI_FORWARD, TOI_REF_MPFR);
        cr_assert_eq(sf, sm);
        cr_assert(tr_same(uf, um) && tr_same(bf, bm), "case %ld kind %d step %d: fast %a mpfr %a on %s", i, k, s,
                  uf, um, tr_fmt(x));
      }
    }
  }
}
