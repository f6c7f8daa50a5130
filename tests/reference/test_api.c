/* test_api.c: the reference's front door (reference/api.c): the query, the engine as an argument, the prepared case, the bounds' arguments, the batch's statuses; no hidden result cache in the library. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "case_build.h"
#include "gen.h"
#include "ref_bench.h"
#include "ref_common.h"
#include "ref_fast_api.h"
#include "reference_check.h"
#include "ref_forms.h"
#include "ref_cases.h"

/*
 * A prepared case (toi_ref_prepare) only saves work: every measure made from
 * it must be, bit for bit, what the MPFR engine measures on the case itself
 * with nothing prepared (the specification, an independent computation),
 * whatever order the answers come in and however many share it. A prepared
 * case that does not match the query is refused, never used. The engine is a
 * field of the query (fast by default); a bad argument is refused with a
 * status. That every entry point answers as the MPFR engine on the corpora
 * and random cases: test_ref_generic.c.
 */

static toi_ref_query query_of(const toi_case *c, toi_ref_engine e, toi_precision q, toi_direction dir, double T) {
  toi_ref_query rq = tr_query(c, q, e);
  rq.dir = dir;
  rq.T = T;
  return rq;
}

/* Answers around the root of direction dir in precision q: RN_q(t*), its
 * neighbours, far ones, NaN and Inf; at most 8. */
static int answers_of(double *T, const toi_ref *r, toi_direction dir) {
  double t = dir == TOI_FORWARD ? r->tfwd : r->trev;
  int n = 0;
  T[n++] = NAN;
  T[n++] = INFINITY;
  T[n++] = 1.0;
  if (!isfinite(t)) return n;
  T[n++] = t;
  T[n++] = nextafter(t, INFINITY);
  T[n++] = nextafter(t, -INFINITY);
  T[n++] = t * (1 + 0x1p-30);
  T[n++] = t == 0 ? 0x1p-1000 : -t;
  return n;
}

/* Every measure of case c from one prepared case (fast engine; deferred:
 * by ref_prepare_deferred, prepared by the first measure), answers
 * interleaved across directions and precisions, against the MPFR engine
 * unprepared. Returns the number of finite errors compared. */
static long check_case_as(const toi_case *c, int deferred) {
  toi_ref_prepared p;
  toi_ref_query pq = TOI_REF_QUERY_INIT;
  pq.c = c;
  if (deferred) {
    ref_prepare_deferred(&p, c, TOI_REF_FAST);
  } else {
    toi_status sp = toi_ref_prepare(&p, &pq);
    cr_assert(sp == TOI_OK || sp == TOI_ERR_INPUT, "prepare: status %d on %s", (int)sp, tr_fmt(c));
  }
  long n = 0;
  for (int rep = 0; rep < 2; rep++) /* the second pass reads what the first derived */
    for (int q = 0; q < TOI_PRECISION_COUNT; q++)
      for (int d = 0; d < 2; d++) {
        toi_ref r;
        if (tr_solve_prec(&r, c, (toi_precision)q, TOI_REF_MPFR) != TOI_OK) r.tfwd = r.trev = NAN;
        double T[8];
        int m = answers_of(T, &r, (toi_direction)d);
        for (int i = 0; i < m; i++) {
          toi_ref_query a = query_of(NULL, TOI_REF_FAST, (toi_precision)q, (toi_direction)d, T[i]);
          a.prepared = &p;
          if (i % 2) a.c = c; /* the case may be named again, and must then match */
          toi_ref_query b = query_of(c, TOI_REF_MPFR, (toi_precision)q, (toi_direction)d, T[i]);
          toi_ref_error_result ea, eb, ba;
          toi_status sa = toi_ref_error(&ea, &a), sb = toi_ref_error(&eb, &b), sc = toi_ref_error_bound(&ba, &a);
          cr_assert_eq(sa, sb, "error status %d against %d (q %d, dir %d, T %a) on %s", (int)sa, (int)sb, q, d, T[i],
                       tr_fmt(c));
          cr_assert_eq(sc, sb, "bound status %d against %d on %s", (int)sc, (int)sb, tr_fmt(c));
          cr_assert(tr_same(ea.ulp, eb.ulp) && tr_same(ea.bits, eb.bits),
                    "error %a/%a against %a/%a (q %d, dir %d, T %a) on %s", ea.ulp, ea.bits, eb.ulp, eb.bits, q, d,
                    T[i], tr_fmt(c));
          cr_assert(tr_same(ea.lo, eb.ulp) && tr_same(ea.hi, eb.ulp));
          cr_assert(tr_same(ba.bits, eb.bits));
          if (tr_same(ba.lo, ba.hi))
            cr_assert(tr_same(ba.lo, eb.ulp) && tr_same(ba.ulp, eb.ulp));
          else
            cr_assert(ba.lo <= eb.ulp && eb.ulp <= ba.hi && isnan(ba.ulp), "[%a, %a] against %a on %s", ba.lo, ba.hi,
                      eb.ulp, tr_fmt(c));
          n += sa == TOI_OK && isfinite(eb.ulp);
        }
        toi_ref_query a = query_of(NULL, TOI_REF_FAST, TOI_BINARY64, (toi_direction)d, 0);
        a.prepared = &p;
        toi_ref_query b = query_of(c, TOI_REF_MPFR, TOI_BINARY64, (toi_direction)d, 0);
        toi_ref_kappa_result ka, kb, kc;
        toi_status sa = toi_ref_kappa(&ka, &a), sb = toi_ref_kappa(&kb, &b), sc = toi_ref_kappa_bound(&kc, &a);
        cr_assert_eq(sa, sb);
        cr_assert_eq(sc, sb);
        cr_assert(tr_same(ka.kappa, kb.kappa), "kappa %a against %a on %s", ka.kappa, kb.kappa, tr_fmt(c));
        cr_assert(tr_same(kc.lo, kb.kappa) || (kc.lo <= kb.kappa && kb.kappa <= kc.hi));
      }
  return n;
}

static long check_case(const toi_case *c) { return check_case_as(c, 0); }

Test(ref_prepared, measures_are_the_mpfr_engines_unprepared) {
  long n = 0;
  const toi_gen_family fams[] = {TOI_GEN_MIXED, TOI_GEN_GRAZING, TOI_GEN_NEAR_CONTACT};
  for (size_t f = 0; f < sizeof fams / sizeof *fams; f++) {
    toi_gen_opts o;
    toi_gen_opts_default(&o, fams[f]);
    o.seed = 11 + f;
    for (uint64_t i = 0; i < 150; i++) {
      toi_case c;
      size_t bin;
      cr_assert_eq(toi_gen_case(&c, NULL, &bin, &o, i), TOI_OK);
      n += check_case(&c);
    }
  }
  toi_case bad = tr_rel2(3, 0, -1, 0, 1, 1);
  bad.ra = -1;
  (void)check_case(&bad);
  cr_expect_gt(n, 1000); /* the comparisons were made on real errors */
}

/* A preparation deferred to the first measure measures as the MPFR engine
 * unprepared, as a prepared case does, the first measure an error or a
 * kappa, of either direction (check_case_as's order, and a kappa first). */
Test(ref_prepared, a_deferred_preparation_measures_the_same) {
  long n = 0;
  const toi_gen_family fams[] = {TOI_GEN_MIXED, TOI_GEN_GRAZING, TOI_GEN_TANGENT};
  for (size_t f = 0; f < sizeof fams / sizeof *fams; f++) {
    toi_gen_opts o;
    toi_gen_opts_default(&o, fams[f]);
    o.seed = 41 + f;
    for (uint64_t i = 0; i < 60; i++) {
      toi_case c;
      size_t bin;
      cr_assert_eq(toi_gen_case(&c, NULL, &bin, &o, i), TOI_OK);
      n += check_case_as(&c, 1);
      toi_ref_prepared p;
      ref_prepare_deferred(&p, &c, TOI_REF_FAST);
      toi_ref_query a = query_of(NULL, TOI_REF_FAST, TOI_BINARY64, TOI_REVERSE, 0), b = a;
      a.prepared = &p;
      b.c = &c;
      b.engine = TOI_REF_MPFR;
      toi_ref_kappa_result ka, kb;
      toi_status sa = toi_ref_kappa_bound(&ka, &a), sb = toi_ref_kappa(&kb, &b);
      cr_assert_eq(sa, sb);
      cr_assert(tr_same(ka.lo, kb.kappa) || (ka.lo <= kb.kappa && kb.kappa <= ka.hi));
    }
  }
  cr_expect_gt(n, 400);
  /* refused cases: a negative radius, a NaN, no case at all; no engine */
  toi_case bad = tr_rel2(3, 0, -1, 0, 1, 1);
  bad.ra = -1;
  (void)check_case_as(&bad, 1);
  toi_case c = tr_rel2(3, 0.5, -1, 0, 1, 1);
  c.vb[0] = NAN;
  toi_ref_prepared p;
  toi_ref_query q = TOI_REF_QUERY_INIT;
  q.prepared = &p;
  q.T = 1;
  toi_ref_error_result e;
  toi_ref_kappa_result k;
  ref_prepare_deferred(&p, &c, TOI_REF_FAST);
  cr_assert_eq(toi_ref_error(&e, &q), TOI_ERR_INPUT);
  cr_assert_eq(toi_ref_kappa_bound(&k, &q), TOI_ERR_INPUT);
  ref_prepare_deferred(&p, NULL, TOI_REF_FAST);
  cr_assert_eq(toi_ref_error(&e, &q), TOI_ERR_INPUT);
  ref_prepare_deferred(&p, &c, (toi_ref_engine)7);
  cr_assert_eq(toi_ref_error(&e, &q), TOI_ERR_RANGE);
  /* a mismatch is refused; the offset is had once a measure prepared it */
  c.vb[0] = 1;
  toi_case other = c;
  other.pb[1] = nextafter(other.pb[1], 1);
  ref_prepare_deferred(&p, &c, TOI_REF_FAST);
  q.c = &other;
  cr_assert_eq(toi_ref_error(&e, &q), TOI_ERR_RANGE);
  ref_prepare_deferred(&p, &c, TOI_REF_FAST);
  double lo, hi;
  cr_assert_eq(ref_prepared_offset(&p, TOI_FORWARD, 1, 0x1p-52, &lo, &hi), 0, "not prepared yet");
  q.c = &c;
  cr_assert_eq(toi_ref_error(&e, &q), TOI_OK);
  toi_ref_prepared full;
  toi_ref_query fq = TOI_REF_QUERY_INIT;
  fq.c = &c;
  cr_assert_eq(toi_ref_prepare(&full, &fq), TOI_OK);
  double lo2, hi2;
  int h1 = ref_prepared_offset(&p, TOI_FORWARD, 1, 0x1p-52, &lo, &hi);
  int h2 = ref_prepared_offset(&full, TOI_FORWARD, 1, 0x1p-52, &lo2, &hi2);
  cr_assert_eq(h1, h2);
  if (h1) cr_assert(tr_same(lo, lo2) && tr_same(hi, hi2));
}

/* ref_prepare_solved (ref_bench.h) is toi_ref_prepare without the case
 * check, for a case toi_ref_solve answered TOI_OK: every measure from it is
 * bit for bit the one from toi_ref_prepare's (the prepared bytes may differ
 * in padding only), on every family in both precisions and both engines;
 * and every case the check refuses (the check ref_prepare_solved skips) is
 * one toi_ref_solve does not answer TOI_OK, in either precision and engine. */
static void check_solved(const toi_case *c, toi_precision q, toi_ref_engine e) {
  toi_ref r;
  if (tr_solve_prec(&r, c, q, e) != TOI_OK) return;
  toi_ref_prepared a, b;
  toi_ref_query pq = TOI_REF_QUERY_INIT;
  pq.c = c, pq.engine = e;
  cr_assert_eq(toi_ref_prepare(&a, &pq), TOI_OK, "%s", tr_fmt(c));
  ref_prepare_solved(&b, c, e);
  for (int d = 0; d < 2; d++) {
    double R = d ? r.trev : r.tfwd;
    double T[3] = {R, nextafter(R, INFINITY), R * (1 + 0x1p-20)};
    for (int i = 0; i < 3; i++) {
      toi_ref_query m = query_of(NULL, e, q, (toi_direction)d, T[i]);
      toi_ref_error_result ea, eb, xa, xb;
      toi_ref_kappa_result ka, kb, ya, yb;
      m.prepared = &a;
      toi_status sa[4] = {toi_ref_error_bound(&ea, &m), toi_ref_kappa_bound(&ka, &m), toi_ref_error(&xa, &m),
                          toi_ref_kappa(&ya, &m)};
      m.prepared = &b;
      toi_status sb[4] = {toi_ref_error_bound(&eb, &m), toi_ref_kappa_bound(&kb, &m), toi_ref_error(&xb, &m),
                          toi_ref_kappa(&yb, &m)};
      cr_assert(memcmp(sa, sb, sizeof sa) == 0 && memcmp(&ea, &eb, sizeof ea) == 0 &&
                    memcmp(&ka, &kb, sizeof ka) == 0 && memcmp(&xa, &xb, sizeof xa) == 0 &&
                    memcmp(&ya, &yb, sizeof ya) == 0,
                "measures differ on %s", tr_fmt(c));
    }
    double la = 0, ha = 0, lb = 0, hb = 0, u = isfinite(R) && R != 0 ? ldexp(1, ilogb(R) - 52) : 1;
    int oa = ref_prepared_offset(&a, (toi_direction)d, R, u, &la, &ha);
    int ob = ref_prepared_offset(&b, (toi_direction)d, R, u, &lb, &hb);
    cr_assert(oa == ob && memcmp(&la, &lb, sizeof la) == 0 && memcmp(&ha, &hb, sizeof ha) == 0,
              "offsets differ on %s", tr_fmt(c));
  }
}

Test(ref_prepared, solved_is_prepare_without_the_check) {
  for (int f = 0; f < TOI_GEN_FAMILY_COUNT; f++)
    for (int q = 0; q < TOI_PRECISION_COUNT; q++) {
      toi_gen_opts o;
      toi_gen_opts_default_in(&o, (toi_gen_family)f, (toi_precision)q);
      o.seed = 0x736f6c766564ULL + (uint64_t)f;
      for (uint64_t i = 0; i < 40; i++) {
        toi_case c;
        size_t bin;
        cr_assert_eq(toi_gen_case(&c, NULL, &bin, &o, i), TOI_OK);
        check_solved(&c, (toi_precision)q, TOI_REF_FAST);
        if (i < 4) check_solved(&c, (toi_precision)q, TOI_REF_MPFR);
      }
    }
  toi_case ok = tr_rel2(3, 0, -1, 0, 1, 1), bad[6];
  for (int k = 0; k < 6; k++) bad[k] = ok;
  bad[0].ra = -1;
  bad[1].pb[0] = NAN;
  bad[2].vb[1] = INFINITY;
  bad[3].dim = 4;
  bad[4].pa[2] = 1; /* a 2D case with a third component */
  bad[5].rb = -INFINITY;
  cr_assert_eq(ref_check_case(&ok), TOI_OK);
  for (int k = 0; k < 6; k++) {
    cr_assert_neq(ref_check_case(&bad[k]), TOI_OK, "bad case %d", k);
    for (int q = 0; q < TOI_PRECISION_COUNT; q++)
      for (int e = 0; e < 2; e++) {
        toi_ref r;
        toi_ref_engine en = e ? TOI_REF_MPFR : TOI_REF_FAST;
        cr_assert_neq(tr_solve_prec(&r, &bad[k], (toi_precision)q, en), TOI_OK, "bad case %d, precision %d", k, q);
      }
  }
}

/* ref_prepare_deferred_solved (ref_bench.h): a case handed over with its
 * binary64 answer is measured without the fast engine's state where that can
 * be had (ref_fast_error_light: its data scaled, the near method at RN(t*)
 * with sqrt(D) from the triples), else prepared as before. Every measure is
 * bit for bit the MPFR engine's on the case unprepared: binary64 errors
 * first, answers around the root and far from it (what the light path
 * answers), then what it leaves (NaN, Inf, binary32, kappa, the bounds) on
 * the same prepared case. Returns the number of finite binary64 errors. */
static long check_solved_deferral(const toi_case *c) {
  toi_ref r;
  if (tr_solve_engine(&r, c, TOI_REF_FAST) != TOI_OK) return 0;
  toi_ref_prepared p;
  ref_prepare_deferred_solved(&p, c, TOI_REF_FAST, &r);
  long n = 0;
  for (int rep = 0; rep < 2; rep++)
    for (int d = 0; d < 2; d++) {
      double t = d ? r.trev : r.tfwd, b = isfinite(t) ? t : 1.0;
      const double T[10] = {b, nextafter(b, INFINITY), nextafter(b, -INFINITY), nextafter(nextafter(b, 1e300), 1e300),
                            b * (1 + 0x1p-40), b * (1 - 0x1p-20), 3 * b + 2, -b, 0.0, 1.0};
      for (int i = 0; i < 10; i++) {
        toi_ref_query a = query_of(i % 2 ? c : NULL, TOI_REF_FAST, TOI_BINARY64, (toi_direction)d, T[i]);
        a.prepared = &p;
        toi_ref_query m = query_of(c, TOI_REF_MPFR, TOI_BINARY64, (toi_direction)d, T[i]);
        toi_ref_error_result ea, em;
        toi_status sa = toi_ref_error(&ea, &a), sm = toi_ref_error(&em, &m);
        cr_assert_eq(sa, sm, "status %d against %d (dir %d, T %a) on %s", (int)sa, (int)sm, d, T[i], tr_fmt(c));
        cr_assert(tr_same(ea.ulp, em.ulp) && tr_same(ea.bits, em.bits) && tr_same(ea.lo, em.ulp) &&
                      tr_same(ea.hi, em.ulp),
                  "error %a/%a against %a/%a (dir %d, T %a) on %s", ea.ulp, ea.bits, em.ulp, em.bits, d, T[i],
                  tr_fmt(c));
        n += sa == TOI_OK && isfinite(em.ulp);
      }
    }
  /* the rest from the same prepared case: check_case_as's measures */
  for (int q = 0; q < TOI_PRECISION_COUNT; q++)
    for (int d = 0; d < 2; d++) {
      toi_ref rq;
      if (tr_solve_prec(&rq, c, (toi_precision)q, TOI_REF_MPFR) != TOI_OK) rq.tfwd = rq.trev = NAN;
      double T[8];
      int m = answers_of(T, &rq, (toi_direction)d);
      for (int i = 0; i < m; i++) {
        toi_ref_query a = query_of(NULL, TOI_REF_FAST, (toi_precision)q, (toi_direction)d, T[i]);
        a.prepared = &p;
        toi_ref_query b = query_of(c, TOI_REF_MPFR, (toi_precision)q, (toi_direction)d, T[i]);
        toi_ref_error_result ea, eb, ba;
        toi_status sa = toi_ref_error(&ea, &a), sb = toi_ref_error(&eb, &b), sc = toi_ref_error_bound(&ba, &a);
        cr_assert_eq(sa, sb);
        cr_assert_eq(sc, sb);
        cr_assert(tr_same(ea.ulp, eb.ulp) && tr_same(ea.bits, eb.bits), "error %a against %a (q %d, T %a) on %s",
                  ea.ulp, eb.ulp, q, T[i], tr_fmt(c));
        cr_assert(tr_same(ba.lo, eb.ulp) || (ba.lo <= eb.ulp && eb.ulp <= ba.hi));
      }
      toi_ref_query a = query_of(NULL, TOI_REF_FAST, TOI_BINARY64, (toi_direction)d, 0);
      a.prepared = &p;
      toi_ref_query b = query_of(c, TOI_REF_MPFR, TOI_BINARY64, (toi_direction)d, 0);
      toi_ref_kappa_result ka, kb;
      cr_assert_eq(toi_ref_kappa(&ka, &a), toi_ref_kappa(&kb, &b));
      cr_assert(tr_same(ka.kappa, kb.kappa), "kappa %a against %a on %s", ka.kappa, kb.kappa, tr_fmt(c));
    }
  return n;
}

Test(ref_prepared, a_solved_deferral_measures_without_preparing) {
  ref_fast_err_counts_reset();
  long n = 0;
  /* with the FMA build and without it (Dekker's products), where there is a choice */
  for (int fma = 1; fma >= 0; fma--)
  for (int f = 0; f < TOI_GEN_FAMILY_COUNT; f++) {
    ref_fast_use_fma(fma ? -1 : 0);
    toi_gen_opts o;
    toi_gen_opts_default(&o, (toi_gen_family)f);
    o.seed = 0x6c69676874ULL + (uint64_t)f;
    for (uint64_t i = 0; i < 40; i++) {
      if (i == 20 && o.dim != 0) o.dim = 3;
      toi_case c;
      size_t bin;
      cr_assert_eq(toi_gen_case(&c, NULL, &bin, &o, i), TOI_OK);
      n += check_solved_deferral(&c);
    }
  }
  ref_fast_use_fma(-1);
  /* exact roots 3 and 7 (rs - t* = 0), a double root (D = 0), a touching
   * pair (the root 0), a 3-4-5 triangle: the light path declines, the
   * prepared case answers */
  const toi_case exact[] = {tr_rel2(-5, 0, 1, 0, 1, 1), tr_rel2(-5, 2, 1, 0, 1, 1), tr_rel2(-2, 0, 1, 0, 1, 1),
                            tr_rel2(-8, -6, 4, 3, 2.5, 2.5)};
  for (size_t k = 0; k < sizeof exact / sizeof *exact; k++) n += check_solved_deferral(&exact[k]);
  cr_expect_gt(n, 6000);
  /* It is the light path that answered: nearly every finite binary64 error
   * asked before anything else of its case. */
  ref_fast_err_counts k;
  ref_fast_err_counts_get(&k);
  cr_expect_gt(k.error_light, 5000, "%llu errors answered without preparing, %llu left", k.error_light,
               k.error_light_fb);
  /* r NULL or the MPFR engine: a plain deferral */
  toi_case c = tr_rel2(3, 0.5, -1, 0, 1, 1);
  toi_ref_prepared p;
  ref_prepare_deferred_solved(&p, &c, TOI_REF_MPFR, NULL);
  double lo, hi;
  cr_assert_eq(ref_prepared_offset(&p, TOI_FORWARD, 1, 0x1p-52, &lo, &hi), 0, "not prepared yet");
}

/* ref_error_prepared (ref_bench.h) is toi_ref_error of the query it does
 * not build: on two prepared cases made alike from c (deferred, with the
 * binary64 answer or without, engine e), the same sequence of measures
 * gives the same statuses and bytes through both, and each error is the
 * MPFR engine's on the case unprepared; bad directions and precisions are
 * refused alike. Returns the number of finite errors compared. */
static long check_error_prepared(const toi_case *c, toi_ref_engine e, int solved) {
  toi_ref r;
  int have = tr_solve_engine(&r, c, TOI_REF_FAST) == TOI_OK;
  toi_ref_prepared pa, pb;
  if (solved && have) {
    ref_prepare_deferred_solved(&pa, c, e, &r);
    ref_prepare_deferred_solved(&pb, c, e, &r);
  } else {
    ref_prepare_deferred(&pa, c, e);
    ref_prepare_deferred(&pb, c, e);
  }
  long n = 0;
  const toi_direction dirs[3] = {TOI_FORWARD, TOI_REVERSE, (toi_direction)5};
  const toi_precision precs[3] = {TOI_BINARY64, TOI_BINARY32, (toi_precision)9};
  for (int pi = 0; pi < 3; pi++)
    for (int d = 0; d < 3; d++) {
      double t = !have ? 1.0 : d == 1 ? r.trev : r.tfwd, b = isfinite(t) ? t : 1.0;
      const double T[8] = {b, nextafter(b, INFINITY), nextafter(b, -INFINITY), b * (1 + 0x1p-30), -b, 0.0, NAN,
                           INFINITY};
      for (int i = 0; i < 8; i++) {
        toi_ref_query q = query_of(c, e, precs[pi], dirs[d], T[i]);
        q.prepared = &pb;
        toi_ref_error_result ea, eb;
        memset(&ea, 0x5a, sizeof ea);
        toi_status sa = ref_error_prepared(&ea, &pa, T[i], dirs[d], precs[pi]), sb = toi_ref_error(&eb, &q);
        cr_assert_eq(sa, sb, "status %d against %d (q %d, dir %d, T %a) on %s", (int)sa, (int)sb, pi, d, T[i],
                     tr_fmt(c));
        cr_assert(memcmp(&ea, &eb, sizeof ea) == 0, "error %a/%a against %a/%a (q %d, dir %d, T %a) on %s", ea.ulp,
                  ea.bits, eb.ulp, eb.bits, pi, d, T[i], tr_fmt(c));
        if (sa != TOI_OK || pi == 2 || d == 2) continue;
        toi_ref_query m = query_of(c, TOI_REF_MPFR, precs[pi], dirs[d], T[i]);
        toi_ref_error_result em;
        cr_assert_eq(toi_ref_error(&em, &m), TOI_OK);
        cr_assert(tr_same(ea.ulp, em.ulp) && tr_same(ea.bits, em.bits), "error %a/%a, MPFR %a/%a (T %a) on %s",
                  ea.ulp, ea.bits, em.ulp, em.bits, T[i], tr_fmt(c));
        n += isfinite(em.ulp);
      }
    }
  return n;
}

Test(ref_prepared, the_private_error_is_the_querys) {
  long n = 0;
  for (int f = 0; f < TOI_GEN_FAMILY_COUNT; f++) {
    for (uint64_t i = 0; i < 30; i++) {
      toi_case c;
      cr_assert_eq(tc_family_case(&c, (toi_gen_family)f, 0x7072657000ULL + (uint64_t)f, i), TOI_OK);
      n += check_error_prepared(&c, TOI_REF_FAST, (int)(i % 3 != 0));
      if (i % 4 == 0) n += check_error_prepared(&c, TOI_REF_MPFR, 0);
    }
  }
  /* exact roots, a double root, a touching pair: the light path declines */
  const toi_case exact[] = {tr_rel2(-5, 0, 1, 0, 1, 1), tr_rel2(-2, 0, 1, 0, 1, 1), tr_rel2(-8, -6, 4, 3, 2.5, 2.5)};
  for (size_t k = 0; k < sizeof exact / sizeof *exact; k++) n += check_error_prepared(&exact[k], TOI_REF_FAST, 1);
  cr_expect_gt(n, 1500, "%ld finite errors compared", n);
  /* refused: a case the check refuses (its status), no engine */
  toi_case bad = tr_rel2(3, 0, -1, 0, 1, 1);
  bad.ra = -1;
  (void)check_error_prepared(&bad, TOI_REF_FAST, 0);
  toi_case c = tr_rel2(3, 0.5, -1, 0, 1, 1);
  (void)check_error_prepared(&c, (toi_ref_engine)7, 0);
  toi_ref_prepared p;
  toi_ref_error_result e;
  ref_prepare_deferred(&p, &bad, TOI_REF_FAST);
  cr_assert_eq(ref_error_prepared(&e, &p, 1, TOI_FORWARD, TOI_BINARY64), TOI_ERR_INPUT);
  cr_assert(isnan(e.ulp) && isnan(e.bits) && isnan(e.lo) && isnan(e.hi));
  ref_prepare_deferred(&p, &c, (toi_ref_engine)7);
  cr_assert_eq(ref_error_prepared(&e, &p, 1, TOI_FORWARD, TOI_BINARY64), TOI_ERR_RANGE);
  cr_assert(isnan(e.ulp) && isnan(e.bits) && isnan(e.lo) && isnan(e.hi));
}

/* A query at T = 1.5 on a's case, prepared into p. */
static toi_ref_query prepared_query(toi_ref_prepared *p, const toi_case *a) {
  toi_ref_query q = TOI_REF_QUERY_INIT;
  q.c = a;
  cr_assert_eq(toi_ref_prepare(p, &q), TOI_OK);
  q.prepared = p;
  q.T = 1.5;
  return q;
}

/* Each of the fourteen numbers changed in its last bit, or from +0 to -0:
 * refused; the masses (which no measure reads) changed: answered. */
Test(ref_prepared, every_number_is_compared) {
  toi_case a = tr_rel2(3, 0.5, -1, 0, 1, 1);
  a.dim = 3;
  toi_ref_prepared p;
  toi_ref_query q = prepared_query(&p, &a);
  toi_ref_error_result e;
  for (int k = 0; k < 14; k++)
    for (int z = 0; z < 2; z++) {
      toi_case b = a;
      double *x = k < 3 ? &b.pa[k] : k < 6 ? &b.va[k - 3] : k < 9 ? &b.pb[k - 6] : k < 12 ? &b.vb[k - 9]
                : k == 12 ? &b.ra : &b.rb;
      if (z && *x != 0) continue;
      *x = z ? -0.0 : nextafter(*x, INFINITY);
      q.c = &b;
      cr_assert_eq(toi_ref_error(&e, &q), TOI_ERR_RANGE, "number %d (%s) not compared", k, z ? "-0" : "last bit");
    }
  toi_case m = a;
  m.ma = 7, m.mb = 0.25;
  q.c = &m;
  cr_assert_eq(toi_ref_error(&e, &q), TOI_OK);
}

/* Two cases that differ in one bit of one number: a prepared case answers
 * for its own case only. */
Test(ref_prepared, a_mismatch_is_refused) {
  toi_case a = tr_rel2(3, 0.5, -1, 0, 1, 1), b = a;
  b.pb[1] = nextafter(0.5, 1);
  toi_ref_prepared p;
  toi_ref_query q = prepared_query(&p, &a);
  toi_ref_error_result e;
  toi_ref_kappa_result k;
  cr_assert_eq(toi_ref_error(&e, &q), TOI_OK);
  cr_assert_eq(toi_ref_kappa(&k, &q), TOI_OK);
  q.c = &b;
  cr_assert_eq(toi_ref_error(&e, &q), TOI_ERR_RANGE);
  cr_assert(isnan(e.ulp) && isnan(e.bits));
  cr_assert_eq(toi_ref_error_bound(&e, &q), TOI_ERR_RANGE);
  cr_assert_eq(toi_ref_kappa(&k, &q), TOI_ERR_RANGE);
  cr_assert(isnan(k.kappa));
  cr_assert_eq(toi_ref_kappa_bound(&k, &q), TOI_ERR_RANGE);
  q.c = NULL;
  q.engine = TOI_REF_MPFR; /* prepared with the fast engine */
  cr_assert_eq(toi_ref_error(&e, &q), TOI_ERR_RANGE);
  /* never prepared: zeroed storage */
  toi_ref_prepared z;
  memset(&z, 0, sizeof z);
  q.engine = TOI_REF_FAST;
  q.prepared = &z;
  cr_assert_eq(toi_ref_error(&e, &q), TOI_ERR_RANGE);
  /* a copy answers as the original */
  toi_ref_prepared cp = p;
  q.prepared = &cp;
  q.c = &a;
  toi_ref_error_result e2;
  cr_assert_eq(toi_ref_error(&e2, &q), TOI_OK);
  q.prepared = NULL;
  cr_assert_eq(toi_ref_error(&e, &q), TOI_OK);
  cr_assert(tr_same(e.ulp, e2.ulp) && tr_same(e.bits, e2.bits));
}

/* A refused case: prepare says why, and every measure on it says the same. */
Test(ref_prepared, a_refused_case_keeps_its_status) {
  toi_case c = tr_rel2(3, 0, -1, 0, 1, 1);
  c.vb[0] = NAN;
  toi_ref_prepared p;
  toi_ref_query q = TOI_REF_QUERY_INIT;
  q.c = &c;
  cr_assert_eq(toi_ref_prepare(&p, &q), TOI_ERR_INPUT);
  q.c = NULL;
  q.prepared = &p;
  toi_ref_error_result e;
  toi_ref_kappa_result k;
  cr_assert_eq(toi_ref_error(&e, &q), TOI_ERR_INPUT);
  cr_assert_eq(toi_ref_kappa_bound(&k, &q), TOI_ERR_INPUT);
  q.engine = (toi_ref_engine)7;
  q.prepared = NULL;
  q.c = &c;
  cr_assert_eq(toi_ref_prepare(&p, &q), TOI_ERR_RANGE);
  cr_assert_eq(toi_ref_prepare(NULL, &q), TOI_ERR_RANGE);
}

/* The documented default: TOI_REF_QUERY_INIT, toi_ref_query_default() and a
 * zeroed query are alike (fast engine, binary64, forward, no target). */
Test(ref_prepared, the_default_query) {
  toi_ref_query a = TOI_REF_QUERY_INIT, b = toi_ref_query_default(), z;
  memset(&z, 0, sizeof z);
  cr_assert(a.c == NULL && b.c == NULL && a.prepared == NULL && b.prepared == NULL);
  cr_assert(a.engine == TOI_REF_FAST && b.engine == TOI_REF_FAST && z.engine == TOI_REF_FAST);
  cr_assert(a.precision == TOI_BINARY64 && b.precision == TOI_BINARY64 && z.precision == TOI_BINARY64);
  cr_assert(a.dir == TOI_FORWARD && b.dir == TOI_FORWARD && z.dir == TOI_FORWARD);
  cr_assert(a.with_target == 0 && b.with_target == 0 && a.T == 0 && b.T == 0 && a.target == 0);
  /* a query with no case is refused, not read */
  toi_ref r;
  cr_assert_eq(toi_ref_solve(&r, &a), TOI_ERR_INPUT);
  cr_assert_eq(r.cls, TOI_NONE);
  cr_assert_eq(toi_ref_solve(&r, NULL), TOI_ERR_RANGE);
  toi_ref_engine e = TOI_REF_MPFR;
  cr_assert_eq(toi_ref_engine_parse(&e, "fast"), TOI_OK);
  cr_assert_eq(e, TOI_REF_FAST);
  cr_assert_eq(toi_ref_engine_parse(&e, "gmp"), TOI_ERR_RANGE);
  cr_assert_eq(e, TOI_REF_FAST);
}

/* The batch refuses a bad call as a whole, with every status said. */
Test(ref_prepared, batch_statuses) {
  toi_case c[3] = {tr_rel2(3, 0, -1, 0, 1, 1), tr_rel2(3, 0, -1, 0, 1, 1),
                   tr_rel2(3, 0, 1, 0, 1, 1)};
  c[1].ra = -1;
  toi_ref out[3];
  toi_status st[3];
  size_t bad = 99;
  toi_ref_query q = TOI_REF_QUERY_INIT;
  cr_assert_eq(toi_ref_solve_batch(out, st, c, 3, &q, &bad), TOI_OK);
  cr_assert_eq(bad, 1);
  cr_assert(st[0] == TOI_OK && st[1] == TOI_ERR_INPUT && st[2] == TOI_OK);
  cr_assert(out[0].cls == TOI_HIT && out[0].tfwd == 1.0 && out[2].cls == TOI_SEPARATING);
  q.precision = (toi_precision)9;
  cr_assert_eq(toi_ref_solve_batch(out, st, c, 3, &q, &bad), TOI_ERR_RANGE);
  cr_assert(bad == 3 && st[0] == TOI_ERR_RANGE && st[2] == TOI_ERR_RANGE);
  cr_assert_eq(toi_ref_solve_batch(out, st, c, 3, NULL, &bad), TOI_ERR_RANGE);
  /* with a target, case by case: R + 1 = 3 reaches 3 - 3 t at t = 0 */
  q.precision = TOI_BINARY64;
  q.with_target = 1;
  q.target = 1;
  cr_assert_eq(toi_ref_solve_batch(out, st, c, 1, &q, &bad), TOI_OK);
  cr_assert(bad == 0 && out[0].cls == TOI_CONTACT && out[0].tfwd == 0.0);
}

/* The engine is an argument: the explicit forms answer alike with both, the
 * short forms are the fast engine, and only the fast engine counts. */
Test(ref_fast, engine_names_and_counters) {
  cr_expect_str_eq(toi_ref_engine_name(TOI_REF_FAST), "fast");
  cr_expect_str_eq(toi_ref_engine_name(TOI_REF_MPFR), "mpfr");
  cr_expect_null(toi_ref_engine_name((toi_ref_engine)9));
  cr_expect_eq(tr_engine_parse("fast"), TOI_REF_FAST);
  cr_expect_eq(tr_engine_parse("mpfr"), TOI_REF_MPFR);
  cr_expect_eq(tr_engine_parse("gmp"), -1);
  cr_expect_eq(tr_engine_parse(NULL), -1);

  toi_case c = tr_rel2(5, 0, -1, 0, 1, 2);
  toi_ref a, b, d;
  toi_ref_fast_stats st;
  toi_ref_fast_stats_reset();
  cr_assert_eq(tr_solve_engine(&a, &c, TOI_REF_FAST), TOI_OK);
  toi_ref_fast_stats_get(&st);
  cr_expect_eq(st.calls, 1, "tr_solve_engine(TOI_REF_FAST) went through the fast engine");
  cr_assert_eq(tr_solve_engine(&b, &c, TOI_REF_MPFR), TOI_OK);
  cr_assert_eq(tr_solve_target_engine(&d, &c, 0.0, TOI_REF_MPFR), TOI_OK);
  toi_ref_fast_stats_get(&st);
  cr_expect_eq(st.calls, 1, "the MPFR engine does not count as the fast one");
  cr_expect(tr_same_ref(&a, &b));
  cr_expect(tr_same_ref(&a, &d));
  cr_expect(tr_same(a.tlo, 2.0) && tr_same(a.thi, 8.0));
  cr_assert_eq(tr_solve_target_engine(&d, &c, 0.0, TOI_REF_FAST), TOI_OK);
  cr_expect(tr_same_ref(&a, &d));
  toi_ref_fast_stats_get(&st);
  cr_expect_eq(st.calls, 2);
}

/* The short forms are the fast engine: the same bits as the explicit forms
 * with TOI_REF_FAST, and counted as fast calls. */
Test(ref_fast, short_forms_are_the_fast_engine) {
  toi_case c = tr_rel2(5, 0, -1, 0, 1, 2);
  toi_ref a, b;
  toi_ref_fast_stats st;
  toi_ref_fast_stats_reset();
  cr_assert_eq(tr_solve(&a, &c), TOI_OK);
  cr_assert_eq(tr_solve_engine(&b, &c, TOI_REF_FAST), TOI_OK);
  cr_expect(tr_same_ref(&a, &b));
  cr_assert_eq(tr_solve_target(&a, &c, 0.5), TOI_OK);
  cr_assert_eq(tr_solve_target_engine(&b, &c, 0.5, TOI_REF_FAST), TOI_OK);
  cr_expect(tr_same_ref(&a, &b));
  toi_ref_fast_stats_get(&st);
  cr_expect_eq(st.calls, 4);
  double u1, b1, u2, b2, k1, k2;
  cr_assert_eq(tr_error(&u1, &b1, 2.5, &c, TOI_FORWARD), TOI_OK);
  cr_assert_eq(tr_error_engine(&u2, &b2, 2.5, &c, TOI_FORWARD, TOI_REF_FAST), TOI_OK);
  cr_expect(tr_same(u1, u2) && tr_same(b1, b2));
  cr_assert_eq(tr_kappa(&k1, &c, TOI_FORWARD), TOI_OK);
  cr_assert_eq(tr_kappa_engine(&k2, &c, TOI_FORWARD, TOI_REF_FAST), TOI_OK);
  cr_expect(tr_same(k1, k2));
  toi_status s1, s2;
  cr_expect_eq(tr_batch(&a, &s1, &c, 1), 0);
  cr_expect_eq(tr_batch_engine(&b, &s2, &c, 1, TOI_REF_FAST), 0);
  cr_expect(tr_same_ref(&a, &b) && s1 == s2);
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

Test(ref_prec, bad_arguments) {
  toi_case c = tp_axis(2, -1, 0.5, 0.5);
  toi_ref r;
  cr_assert_eq(tr_solve_prec(&r, &c, (toi_precision)7, TOI_REF_FAST), TOI_ERR_RANGE);
  cr_assert_eq(tr_solve_prec(&r, &c, TOI_BINARY32, (toi_ref_engine)5), TOI_ERR_RANGE);
  double u, b;
  cr_assert_eq(tr_error_prec(&u, &b, 1.0, &c, TOI_FORWARD, (toi_precision)7, TOI_REF_FAST), TOI_ERR_RANGE);
  c.ra = -1;
  cr_assert_eq(tr_solve_prec(&r, &c, TOI_BINARY32, TOI_REF_FAST), TOI_ERR_INPUT);
  cr_assert_eq(tr_solve_prec(&r, &c, TOI_BINARY32, TOI_REF_MPFR), TOI_ERR_INPUT);
}

/*
 * No result cache hidden in the library: thread-local or static storage in
 * reference/ and src/ (the library's sources; the command line is not the
 * library) is only the documented kinds: per-thread MPFR scratch
 * (ref_ctx.c), per-thread counters (toi_ref_fast_stats, the error paths'
 * counts), and process-wide settings for tests (the FMA and vector-width
 * switches). The memo keyed on the case that used to sit behind
 * toi_ref_error and toi_ref_kappa (a _Thread_local fe_cache) would fail here.
 */
static const char *const allowed[] = {
    "static _Thread_local ref_ctx *ref_tls;",
    "_Thread_local toi_ref_fast_stats ref_fast_tally;",        /* ref_fast_count.c: the fast engine's counters */
    "extern _Thread_local toi_ref_fast_stats ref_fast_tally;", /* ref_fast_count.h */
    "static _Thread_local ref_fast_err_counts fe_counts;",
};

static int scan_file(const char *path, char *bad, size_t badsz) {
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  char line[1024];
  int n = 0;
  while (fgets(line, sizeof line, f)) {
    const char *s = line;
    while (*s == ' ') s++;
    if (!strstr(s, "_Thread_local") && !strstr(s, "thread_local") && !strstr(s, "__thread")) continue;
    if (s[0] == '*' || (s[0] == '/' && (s[1] == '*' || s[1] == '/'))) continue; /* a comment */
    int ok = 0;
    for (size_t i = 0; i < sizeof allowed / sizeof *allowed; i++) ok |= !strncmp(s, allowed[i], strlen(allowed[i]));
    if (!ok && !n++) snprintf(bad, badsz, "%.300s: %.600s", path, s);
  }
  fclose(f);
  return n;
}

static int scan_dir(const char *dir, char *bad, size_t badsz, int *files) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    size_t len = strlen(e->d_name);
    if (!strcmp(path, "src/cli")) continue;
    if (len > 2 && (!strcmp(e->d_name + len - 2, ".c") || !strcmp(e->d_name + len - 2, ".h") ||
                    (len > 4 && !strcmp(e->d_name + len - 4, ".inl")))) {
      n += scan_file(path, bad, badsz);
      ++*files;
    } else if (!strchr(e->d_name, '.')) {
      n += scan_dir(path, bad, badsz, files);
    }
  }
  closedir(d);
  return n;
}

Test(ref_prepared, no_hidden_result_cache_in_the_library) {
  char bad[1200] = "";
  int files = 0;
  int n = scan_dir("reference", bad, sizeof bad, &files) + scan_dir("src", bad, sizeof bad, &files);
  cr_assert_gt(files, 50, "the sources were not found (run from the project's root)");
  cr_assert_eq(n, 0, "%d thread-local variables beyond the documented ones, first %s", n, bad);
}

/* ---- the root's offset from its rounding (ref_prepared_offset, ref_bench.h) against the MPFR engine's errors ---- */

/* ulp_q(R) for R a normal value of q that is not a power of two (then t* is
 * in R's binade and its ulp is u), else 0. */
static double ulp_in(double R, toi_precision q) {
  const toi_precision_info *pi = toi_precision_get(q);
  int e;
  double m = frexp(fabs(R), &e); /* |R| = m 2^e, m in [0.5, 1) */
  if (!isfinite(R) || R == 0 || m == 0.5 || e - 1 < pi->emin) return 0;
  return ldexp(1.0, e - pi->p);
}

/* The MPFR engine's error of T against the root in direction dir. */
static double mpfr_error(const toi_case *c, double T, toi_direction dir, toi_precision q) {
  toi_ref_query rq = TOI_REF_QUERY_INIT;
  toi_ref_error_result er;
  rq.c = c, rq.engine = TOI_REF_MPFR, rq.precision = q, rq.dir = dir, rq.T = T;
  cr_assert_eq(toi_ref_error(&er, &rq), TOI_OK);
  return er.ulp;
}

/* delta = (t* - R) / u in [lo, hi] puts the errors of R + u and R - u, 1 - delta and
 * 1 + delta (both within R's binade), between the roundings of the ends (RN is
 * monotone, and 1 - x, 1 + x computed in double are RN of the exact values). */
static void check_family(toi_gen_family f, toi_precision q, long n, long *had) {
  toi_gen_opts o;
  toi_gen_opts_default_in(&o, f, q);
  o.seed = 0x6f6666736574ULL + (uint64_t)f;
  for (long i = 0; i < n; i++) {
    toi_case c;
    size_t bin;
    cr_assert_eq(toi_gen_case(&c, NULL, &bin, &o, (uint64_t)i), TOI_OK);
    toi_ref_query rq = TOI_REF_QUERY_INIT;
    rq.c = &c, rq.precision = q;
    toi_ref r;
    if (toi_ref_solve(&r, &rq) != TOI_OK) continue;
    toi_ref_prepared prep;
    if (toi_ref_prepare(&prep, &rq) != TOI_OK) continue;
    for (int d = 0; d < 2; d++) {
      toi_direction dir = d ? TOI_REVERSE : TOI_FORWARD;
      double R = d ? r.trev : r.tfwd, u = ulp_in(R, q), lo, hi;
      if (u == 0) continue;
      if (!ref_prepared_offset(&prep, dir, R, u, &lo, &hi)) continue;
      cr_assert(lo <= hi, "%s case %ld dir %d: [%a, %a]", toi_gen_family_name(f), i, d, lo, hi);
      *had += hi - lo <= 0x1p-20; /* narrow enough to place most answers (near a graze it is wider) */
      double e1 = mpfr_error(&c, R + u, dir, q), e2 = mpfr_error(&c, R - u, dir, q);
      cr_assert(e1 >= 1 - hi && e1 <= 1 - lo, "%s case %ld dir %d: error %a of R + u outside [%a, %a]",
                toi_gen_family_name(f), i, d, e1, 1 - hi, 1 - lo);
      cr_assert(e2 >= 1 + lo && e2 <= 1 + hi, "%s case %ld dir %d: error %a of R - u outside [%a, %a]",
                toi_gen_family_name(f), i, d, e2, 1 + lo, 1 + hi);
    }
  }
}

Test(ref_offset, every_family_binary64) {
  long had = 0;
  for (int f = 0; f < TOI_GEN_FAMILY_COUNT; f++) check_family((toi_gen_family)f, TOI_BINARY64, 300, &had);
  cr_expect_gt(had, 1000, "only %ld narrow offsets were given", had);
}

Test(ref_offset, every_family_binary32) {
  long had = 0;
  for (int f = 0; f < TOI_GEN_FAMILY_COUNT; f++) check_family((toi_gen_family)f, TOI_BINARY32, 300, &had);
  cr_expect_gt(had, 1000, "only %ld narrow offsets were given", had);
}

/* R need not be the rounded root: the enclosure is of (t* - R) / u for any R. */
Test(ref_offset, any_R) {
  toi_case c = {.dim = 2, .pa = {0, 0, 0}, .pb = {10, 1, 0}, .va = {1, 0, 0}, .vb = {-1, 0, 0}, .ra = 1, .rb = 1};
  toi_ref_query rq = TOI_REF_QUERY_INIT;
  rq.c = &c;
  toi_ref r;
  toi_ref_prepared prep;
  cr_assert_eq(toi_ref_solve(&r, &rq), TOI_OK);
  cr_assert_eq(toi_ref_prepare(&prep, &rq), TOI_OK);
  /* |s + v t| = 2: (10 - 2t)^2 + 1 = 4, t* = 5 - sqrt(3)/2 = 4.1339745962155614... */
  double lo, hi, R = 4.0, u = 0x1p-10;
  cr_assert(ref_prepared_offset(&prep, TOI_FORWARD, R, u, &lo, &hi));
  double want = (5 - sqrt(3) / 2 - 4) * 1024; /* 137.19... to a few ulps */
  cr_assert(lo <= hi && fabs(lo - want) < 1e-9 && fabs(hi - want) < 1e-9, "[%a, %a] for %a", lo, hi, want);
}

/* Nothing to give: another engine, no root in the direction, a u that is not a power of two. */
Test(ref_offset, refusals) {
  toi_case c = {.dim = 2, .pa = {0, 0, 0}, .pb = {10, 1, 0}, .va = {1, 0, 0}, .vb = {-1, 0, 0}, .ra = 1, .rb = 1};
  toi_ref_query rq = TOI_REF_QUERY_INIT;
  rq.c = &c;
  toi_ref r;
  toi_ref_prepared prep, prep_m;
  double lo, hi;
  cr_assert_eq(toi_ref_solve(&r, &rq), TOI_OK);
  cr_assert_eq(toi_ref_prepare(&prep, &rq), TOI_OK);
  cr_expect(!ref_prepared_offset(&prep, TOI_FORWARD, r.tfwd, 3.0, &lo, &hi));
  cr_expect(!ref_prepared_offset(&prep, TOI_FORWARD, r.tfwd, 0.0, &lo, &hi));
  cr_expect(!ref_prepared_offset(&prep, TOI_FORWARD, NAN, 0x1p-50, &lo, &hi));
  rq.engine = TOI_REF_MPFR;
  cr_assert_eq(toi_ref_prepare(&prep_m, &rq), TOI_OK);
  cr_expect(!ref_prepared_offset(&prep_m, TOI_FORWARD, r.tfwd, 0x1p-50, &lo, &hi));
  toi_case sep = c;
  sep.va[0] = -1, sep.vb[0] = 1; /* moving apart: no forward root */
  rq.c = &sep, rq.engine = TOI_REF_FAST;
  cr_assert_eq(toi_ref_solve(&r, &rq), TOI_OK);
  cr_assert_eq(toi_ref_prepare(&prep, &rq), TOI_OK);
  cr_expect(isnan(r.tfwd));
  cr_expect(!ref_prepared_offset(&prep, TOI_FORWARD, 1.0, 0x1p-52, &lo, &hi));
}
