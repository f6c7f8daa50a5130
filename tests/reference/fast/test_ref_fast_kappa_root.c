/* test_ref_fast_kappa_root.c: kappa's enclosure (ref_kappa_root_bound) and the root's offset (ref_root_offset) from the
   case and the rounded root alone hold toi_ref_kappa's double and the offset MPFR's errors give, on every
   family, both precisions and directions, and on constructed cases at the edges of their range, where they
   must hold or decline. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "candidate.h"
#include "gen.h"
#include "ref_bench.h"
#include "test_env.h"

/* MPFR's kappa of c's root in direction dir (the specification: ref_kappa.c, an independent computation). */
static double mpfr_kappa(const toi_case *c, toi_direction dir) {
  toi_ref_query rq = TOI_REF_QUERY_INIT;
  rq.c = c, rq.engine = TOI_REF_MPFR, rq.dir = dir;
  toi_ref_kappa_result kr;
  cr_assert_eq(toi_ref_kappa(&kr, &rq), TOI_OK);
  return kr.kappa;
}

/* The root of c in direction dir rounded to q, as the reference gives it. */
static double root_of(const toi_case *c, toi_precision q, toi_direction dir) {
  toi_ref_query rq = TOI_REF_QUERY_INIT;
  rq.c = c, rq.precision = q;
  toi_ref r;
  cr_assert_eq(toi_ref_solve(&r, &rq), TOI_OK);
  return dir == TOI_FORWARD ? r.tfwd : r.trev;
}

/* The enclosure for c's root in direction dir and q: when given, it holds MPFR's kappa and is at most 2^-8
   wide relative (ref_bench.h). 1 when given, 0 when declined. */
static int check(const toi_case *c, toi_precision q, toi_direction dir, const char *what) {
  double R = root_of(c, q, dir), lo = NAN, hi = NAN;
  if (!ref_kappa_root_bound(&lo, &hi, c, R, q)) return 0;
  double k = mpfr_kappa(c, dir);
  cr_assert(lo <= k && k <= hi, "%s %s dir %d: kappa %a not in [%a, %a] (R %a)", what, toi_precision_name(q),
            (int)dir, k, lo, hi, R);
  cr_assert(hi <= lo * (1 + 0x1p-8), "%s: [%a, %a] wider than stated", what, lo, hi);
  return 1;
}

/* A probe of c's root in direction dir and q (check, check_offset): 1 when its enclosure is given. */
typedef int (*root_probe)(const toi_case *c, toi_precision q, toi_direction dir, const char *what);

/* Every family and both precisions, n cases each from seed, and both directions of each case as q receives it:
   probe on every root that has_root accepts; the roots probed and the enclosures given, per family and
   precision, into roots[f][qi] and given[f][qi] (qi 1 for binary32). */
static void each_root(long n, unsigned seed, int (*has_root)(double R, toi_precision q), root_probe probe,
                      long roots[][2], long given[][2]) {
  for (int f = 0; f < TOI_GEN_FAMILY_COUNT; f++) {
    for (int qi = 0; qi < 2; qi++) {
      toi_precision q = qi ? TOI_BINARY32 : TOI_BINARY64;
      toi_gen_opts o;
      toi_gen_opts_default_in(&o, (toi_gen_family)f, q);
      o.seed = te_seed(seed);
      roots[f][qi] = given[f][qi] = 0;
      for (long i = 0; i < n; i++) {
        toi_case c, in;
        size_t b;
        cr_assert_eq(toi_gen_case(&c, NULL, &b, &o, (uint64_t)i), TOI_OK);
        if (toi_candidate_input(&in, &c, q) == TOI_ROUND_OVERFLOW) continue;
        for (int d = 0; d < 2; d++) {
          toi_direction dir = d ? TOI_REVERSE : TOI_FORWARD;
          if (!has_root(root_of(&in, q, dir), q)) continue;
          roots[f][qi]++;
          given[f][qi] += probe(&in, q, dir, toi_gen_family_name((toi_gen_family)f));
        }
      }
      cr_log_info("%s %s: %ld of %ld roots enclosed", toi_gen_family_name((toi_gen_family)f),
                  toi_precision_name(q), given[f][qi], roots[f][qi]);
    }
  }
}

static int is_root(double R, toi_precision q) {
  (void)q;
  return !isnan(R);
}

/* Every family, both precisions and directions, 10^4 cases each (TOI_TEST_SCALE times): the enclosure holds
   wherever it is given, and is given for most roots of mixed (else the sweep gains nothing). */
Test(ref_kappa_root, families) {
  long n = 10000 * te_scale(), roots[TOI_GEN_FAMILY_COUNT][2], given[TOI_GEN_FAMILY_COUNT][2];
  each_root(n, 1515, is_root, check, roots, given);
  for (int f = 0; f < TOI_GEN_FAMILY_COUNT; f++)
    for (int qi = 0; qi < 2; qi++) cr_assert_gt(roots[f][qi], n / 10, "%s", toi_gen_family_name((toi_gen_family)f));
  cr_assert_gt(given[TOI_GEN_MIXED][0], roots[TOI_GEN_MIXED][0] * 85 / 100, "mixed binary64: %ld of %ld",
               given[TOI_GEN_MIXED][0], roots[TOI_GEN_MIXED][0]);
  cr_assert_gt(given[TOI_GEN_MIXED][1], roots[TOI_GEN_MIXED][1] * 70 / 100, "mixed binary32: %ld of %ld",
               given[TOI_GEN_MIXED][1], roots[TOI_GEN_MIXED][1]);
}

/* A head-on contact: A at rest at 0, B at pb on the x axis moving at vb, radii ra, rb (t* = (pb - ra - rb) /
   -vb forward), optionally offset by y on the y axis (a graze at y = ra + rb). */
static toi_case head_on(double pb, double vb, double ra, double rb, double y) {
  toi_case c;
  memset(&c, 0, sizeof c);
  c.dim = 2;
  c.pb[0] = pb, c.pb[1] = y, c.vb[0] = vb, c.ra = ra, c.rb = rb, c.ma = c.mb = 1;
  return c;
}

/* t* tiny, the data with it (scaled into range first: ref_fast_kappa_root.c, kr_bound_scaled), or t* tiny
   against the data; a root of 0 (touching) declined, as its kappa is +Inf. */
Test(ref_kappa_root, tiny_roots) {
  for (int e = 40; e <= 1000; e += 30) {
    /* t* = 2^-e: radii 2^-e each, B at 3 2^-e moving at -1 */
    toi_case c = head_on(3 * ldexp(1, -e), -1, ldexp(1, -e), ldexp(1, -e), 0);
    cr_assert(check(&c, TOI_BINARY64, TOI_FORWARD, "tiny root"), "2^-%d declined", e);
    c.vb[0] = -ldexp(1, 700); /* t* = 2^(-e-700): held where that is normal */
    int got = check(&c, TOI_BINARY64, TOI_FORWARD, "tinier root");
    cr_assert(got || e + 700 > 1022, "2^-%d declined", e + 700);
  }
  for (int e = 10; e <= 60; e += 5) { /* t* = 2^-e with unit radii: B at 2 + 2^-e */
    toi_case c = head_on(2 + ldexp(1, -e), -1, 1, 1, 0);
    cr_assert(check(&c, TOI_BINARY64, TOI_FORWARD, "near contact") || e > 50, "2^-%d declined", e);
    check(&c, TOI_BINARY64, TOI_REVERSE, "near contact, reverse");
  }
  toi_case touch = head_on(2, -1, 1, 1, 0);
  double lo, hi;
  cr_assert_eq(mpfr_kappa(&touch, TOI_FORWARD), INFINITY);
  cr_assert_not(ref_kappa_root_bound(&lo, &hi, &touch, root_of(&touch, TOI_BINARY64, TOI_FORWARD), TOI_BINARY64));
}

/* binary32: a root subnormal there is declined (its rounding error is not relative), a normal one held. */
Test(ref_kappa_root, binary32_subnormal_root) {
  for (int e = 100; e <= 149; e++) {
    toi_case c = head_on(3 * ldexp(1, -e), -1, ldexp(1, -e), ldexp(1, -e), 0); /* binary32 values, t* = 2^-e */
    int got = check(&c, TOI_BINARY32, TOI_FORWARD, "binary32 tiny root");
    if (e > 126) cr_assert_not(got, "2^-%d is subnormal in binary32", e);
    else cr_assert(got, "2^-%d: normal, declined", e);
  }
  /* A root that is not a power of two, 3 2^-140 (subnormal in binary32), and one just above the normal range. */
  toi_case c = head_on(0x1p-139 + 0x1p-140 + 0x1p-138, -1, 0x1p-139, 0x1p-138, 0);
  cr_assert_not(check(&c, TOI_BINARY32, TOI_FORWARD, "binary32 t* = 2^-140"));
  c = head_on(0x1p-119 + 0x1p-120, -1, 0x1p-120, 0x1p-120, 0);
  cr_assert(check(&c, TOI_BINARY32, TOI_FORWARD, "binary32 2^-120"));
}

/* Near a graze D is tiny and kappa huge: held or declined, never wrong; at the graze itself (D = 0, kappa
   +Inf) declined. */
Test(ref_kappa_root, grazes) {
  for (int e = 1; e <= 60; e++) {
    double y = 2 - ldexp(1, -e); /* B passes at distance y from A's centre, radii 1 each: D ~ 2^-e */
    toi_case c = head_on(10, -1, 1, 1, y);
    check(&c, TOI_BINARY64, TOI_FORWARD, "near graze");
    check(&c, TOI_BINARY64, TOI_REVERSE, "near graze, reverse");
    check(&c, TOI_BINARY32, TOI_FORWARD, "near graze binary32");
  }
  toi_case g = head_on(10, -1, 1, 1, 2);
  double lo, hi;
  cr_assert_eq(mpfr_kappa(&g, TOI_FORWARD), INFINITY);
  cr_assert_not(ref_kappa_root_bound(&lo, &hi, &g, root_of(&g, TOI_BINARY64, TOI_FORWARD), TOI_BINARY64));
}

/* Huge and small data: a generic case's lengths scaled by 2^k and its velocities by 2^j, exactly (the
   kappa is unchanged: it is invariant under both scalings), held or declined; data spread over more than
   2^400 declined. */
Test(ref_kappa_root, scaled_data) {
  toi_gen_opts o;
  toi_gen_opts_default(&o, TOI_GEN_GENERIC);
  o.seed = te_seed(15);
  int given = 0, tried = 0;
  for (uint64_t i = 0; i < 400; i++) {
    toi_case c;
    size_t b;
    cr_assert_eq(toi_gen_case(&c, NULL, &b, &o, i), TOI_OK);
    if (isnan(root_of(&c, TOI_BINARY64, TOI_FORWARD))) continue;
    static const int ks[] = {-900, -400, -250, -150, -60, 0, 60, 150, 250, 400, 900};
    for (int a = 0; a < 11; a++) {
      toi_case s = c;
      int k = ks[a], j = ks[(a * 7) % 11];
      for (int d = 0; d < 3; d++) {
        s.pa[d] = ldexp(c.pa[d], k), s.pb[d] = ldexp(c.pb[d], k);
        s.va[d] = ldexp(c.va[d], j), s.vb[d] = ldexp(c.vb[d], j);
      }
      s.ra = ldexp(c.ra, k), s.rb = ldexp(c.rb, k);
      if (!isfinite(root_of(&s, TOI_BINARY64, TOI_FORWARD))) continue;
      tried++;
      given += check(&s, TOI_BINARY64, TOI_FORWARD, "scaled");
    }
  }
  cr_assert_gt(given, tried / 2, "%d of %d", given, tried);
  /* both balls far out on the x axis, 3 apart, radii 1: lengths from 2^-1 to 2^420 */
  toi_case far = head_on(0x1p420 + 4, -1, 1, 1, 0);
  far.pa[0] = 0x1p420;
  double lo, hi;
  cr_assert_not(ref_kappa_root_bound(&lo, &hi, &far, root_of(&far, TOI_BINARY64, TOI_FORWARD), TOI_BINARY64));
}

/* ulp_q(R) for R a normal value of q that is not a power of two (then t* is in R's binade and its ulp is
   that), else 0. */
static double ulp_in(double R, toi_precision q) {
  const toi_precision_info *pi = toi_precision_get(q);
  int e;
  double m = frexp(fabs(R), &e);
  if (!isfinite(R) || R == 0 || m == 0.5 || e - 1 < pi->emin) return 0;
  return ldexp(1, e - pi->p);
}

/* MPFR's error of the answer T to c's root in direction dir, in ulps of q. */
static double mpfr_error(const toi_case *c, toi_precision q, toi_direction dir, double T) {
  toi_ref_query rq = TOI_REF_QUERY_INIT;
  rq.c = c, rq.engine = TOI_REF_MPFR, rq.precision = q, rq.dir = dir, rq.T = T;
  toi_ref_error_result er;
  cr_assert_eq(toi_ref_error(&er, &rq), TOI_OK);
  return er.ulp;
}

/* The offset's enclosure [lo, hi] of delta = (t* - R) / u for c's root in direction dir: when given, MPFR's
   errors of R and of R + u, RN(|delta|) and RN(1 - delta), lie where [lo, hi] puts them (RN is monotone, and
   lo, hi, RN(1 - hi), RN(1 - lo) are doubles), and lo <= hi. 1 when given. */
static int check_offset(const toi_case *c, toi_precision q, toi_direction dir, const char *what) {
  toi_ref_query rq = TOI_REF_QUERY_INIT;
  rq.c = c, rq.precision = q;
  toi_ref r;
  cr_assert_eq(toi_ref_solve(&r, &rq), TOI_OK);
  double R = dir == TOI_FORWARD ? r.tfwd : r.trev, u = ulp_in(R, q), lo = NAN, hi = NAN;
  int lower = dir == TOI_FORWARD ? r.fwd_is_lo : r.rev_is_lo;
  if (u == 0 || !ref_root_offset(&lo, &hi, c, R, u, lower)) return 0;
  double mn = lo >= 0 ? lo : hi <= 0 ? -hi : 0, mx = lo >= 0 ? hi : hi <= 0 ? -lo : fmax(-lo, hi);
  double E0 = mpfr_error(c, q, dir, R), E1 = mpfr_error(c, q, dir, R + u);
  cr_assert(mn <= E0 && E0 <= mx, "%s %s dir %d: |delta| %a not in [%a, %a] (R %a)", what, toi_precision_name(q),
            (int)dir, E0, mn, mx, R);
  cr_assert(1 - hi <= E1 && E1 <= 1 - lo, "%s %s dir %d: 1 - delta %a not in [%a, %a] (R %a)", what,
            toi_precision_name(q), (int)dir, E1, 1 - hi, 1 - lo, R);
  cr_assert(lo <= hi, "%s: [%a, %a]", what, lo, hi);
  return 1;
}

static int has_ulp(double R, toi_precision q) { return ulp_in(R, q) != 0; }

/* Every family, both precisions and directions (10^4 cases each, TOI_TEST_SCALE times): the offset holds
   wherever it is given, and is given for most roots of mixed. */
Test(ref_root_offset, families) {
  long n = 10000 * te_scale(), roots[TOI_GEN_FAMILY_COUNT][2], given[TOI_GEN_FAMILY_COUNT][2];
  each_root(n, 1516, has_ulp, check_offset, roots, given);
  for (int qi = 0; qi < 2; qi++)
    cr_assert_gt(given[TOI_GEN_MIXED][qi], roots[TOI_GEN_MIXED][qi] * 8 / 10, "mixed: %ld of %ld",
                 given[TOI_GEN_MIXED][qi], roots[TOI_GEN_MIXED][qi]);
}

/* Constructed roots: the head-on t* = 14/3 (t* - R = -u/3 in binary64), tiny and huge roots, a root next to a
   graze, the two roots of an overlap, binary32 roots near its subnormals: held or declined. */
Test(ref_root_offset, constructed) {
  toi_case c = head_on(16, -3, 1, 1, 0);
  cr_assert(check_offset(&c, TOI_BINARY64, TOI_FORWARD, "14/3"));
  cr_assert(check_offset(&c, TOI_BINARY32, TOI_FORWARD, "14/3 binary32"));
  for (int e = 40; e <= 1000; e += 30) {
    toi_case t = head_on(3 * ldexp(1, -e), -1, ldexp(1, -e), ldexp(1, -e), 0);
    t.vb[0] = -3;
    check_offset(&t, TOI_BINARY64, TOI_FORWARD, "tiny root");
    check_offset(&t, TOI_BINARY32, TOI_FORWARD, "tiny root binary32");
    toi_case h = head_on(ldexp(3, e / 2), -ldexp(1, -e / 2), 1, 1, 0); /* t* ~ 3 2^e */
    check_offset(&h, TOI_BINARY64, TOI_FORWARD, "huge root");
  }
  for (int e = 1; e <= 60; e++) {
    toi_case g = head_on(10, -1, 1, 1, 2 - ldexp(1, -e));
    check_offset(&g, TOI_BINARY64, TOI_FORWARD, "near graze");
    check_offset(&g, TOI_BINARY64, TOI_REVERSE, "near graze, reverse");
    check_offset(&g, TOI_BINARY32, TOI_FORWARD, "near graze binary32");
  }
  toi_case ov = head_on(1, -3, 1, 1, 0.25); /* overlapping at 0: one root each side */
  cr_assert(check_offset(&ov, TOI_BINARY64, TOI_FORWARD, "overlap forward"));
  cr_assert(check_offset(&ov, TOI_BINARY64, TOI_REVERSE, "overlap reverse"));
  for (int e = 118; e <= 130; e++) {
    toi_case b = head_on(0x1p-119 + 3 * ldexp(1, -e), -1, 0x1p-120, 0x1p-120, 0);
    check_offset(&b, TOI_BINARY32, TOI_FORWARD, "binary32 small root");
  }
}
