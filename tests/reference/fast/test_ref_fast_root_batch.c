/* test_ref_fast_root_batch.c: ref_root_offset_kappa_n (the roots' offsets and kappa's enclosures in vector lanes) gives, at every width, the doubles ref_root_offset and ref_kappa_root_bound give root by root, on every family and on roots, ulps and cases made to fail or to need the scalar functions. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "gen.h"
#include "ref_bench.h"
#include "ref_fast_api.h"
#include "ref_fast_kernels.h"
#include "test_env.h"

/*
 * The expected values are the scalar functions' own, called one root at a
 * time (their enclosures are checked against MPFR in
 * test_ref_fast_kappa_root.c): the lanes must give the same status and the
 * same bits, including where the scalar functions decline, and hand the
 * lanes they do not follow (scaled data, data out of kappa's range) to them.
 */

static const int rr_widths[] = {8, 4, 0};

/* One root to try: case c, R, u, lower. */
typedef struct rr_item {
  const toi_case *c;
  double R, u;
  signed char lower;
} rr_item;

/* What the scalar functions and the lanes made of a list. */
typedef struct rr_tally {
  long items, off, kap;
  long lanes, lane_off; /* at the widest width: the lanes, those whose offset the kernel itself decided */
} rr_tally;

/* The kernel of width w on it[0..n-1] directly, w at a time (the last group repeating its last root): the
   lanes it decides itself (not handed to the scalar functions) into t. */
static void rr_lanes(const rr_item *it, size_t n, int w, rr_tally *t) {
  for (size_t j = 0; j < n; j += (size_t)w) {
    const toi_case *c[8];
    double R[8], u[8], a[8], b[8], ka[8], kb[8];
    int low = 0, kok = 0, scalar = 0;
    for (int i = 0; i < w; i++) {
      const rr_item *x = &it[j + (size_t)i < n ? j + (size_t)i : n - 1];
      c[i] = x->c, R[i] = x->R, u[i] = x->u, low |= (x->lower == 1) << i;
    }
    (w == 8 ? ref_fast_root8 : ref_fast_root4)(a, b, ka, kb, &kok, &scalar, c, R, u, low);
    for (int i = 0; i < w && j + (size_t)i < n; i++) {
      t->lanes++;
      t->lane_off += !(scalar >> i & 1);
    }
  }
}

/* The list it[0..n-1] at every width this processor has, against the scalar functions: same bits. */
static void rr_compare(const rr_item *it, size_t n, rr_tally *t, const char *what) {
  const toi_case **c = malloc((n + 1) * sizeof *c);
  double *R = malloc((n + 1) * sizeof *R), *u = malloc((n + 1) * sizeof *u);
  signed char *lower = malloc(n + 1);
  double(*off)[2] = malloc((n + 1) * sizeof *off), (*kap)[2] = malloc((n + 1) * sizeof *kap);
  unsigned char *ok = malloc(n + 1);
  cr_assert(c && R && u && lower && off && kap && ok);
  for (size_t j = 0; j < n; j++) c[j] = it[j].c, R[j] = it[j].R, u[j] = it[j].u, lower[j] = it[j].lower;
  for (size_t k = 0; k < sizeof rr_widths / sizeof rr_widths[0]; k++) {
    int w = rr_widths[k];
    if (ref_fast_batch_use(w) != w) continue;
    if (w && !t->lanes) rr_lanes(it, n, w, t);
    memset(ok, 0xff, n + 1);
    ref_root_offset_kappa_n(off, kap, ok, c, R, u, lower, n);
    cr_assert_eq(ok[n], 0xff, "%s: written past the end", what);
    for (size_t j = 0; j < n; j++) {
      double lo = NAN, hi = NAN, klo = NAN, khi = NAN;
      int o = ref_root_offset(&lo, &hi, c[j], R[j], u[j], lower[j]);
      int q = ref_kappa_root_bound(&klo, &khi, c[j], R[j], TOI_BINARY64);
      cr_assert_eq(ok[j], o | q << 1, "%s width %d root %zu (R %a u %a lower %d): %d, scalar %d", what, w, j, R[j],
                   u[j], lower[j], ok[j], o | q << 1);
      if (o) {
        cr_assert(!memcmp(&off[j][0], &lo, sizeof lo) && !memcmp(&off[j][1], &hi, sizeof hi),
                  "%s width %d root %zu (R %a): offset [%a, %a], scalar [%a, %a]", what, w, j, R[j], off[j][0],
                  off[j][1], lo, hi);
      }
      if (q) {
        cr_assert(!memcmp(&kap[j][0], &klo, sizeof klo) && !memcmp(&kap[j][1], &khi, sizeof khi),
                  "%s width %d root %zu (R %a): kappa [%a, %a], scalar [%a, %a]", what, w, j, R[j], kap[j][0],
                  kap[j][1], klo, khi);
      }
      if (w == 0) {
        t->items++;
        t->off += o;
        t->kap += q;
      }
    }
  }
  ref_fast_batch_use(-1);
  free(c), free(R), free(u), free(lower), free(off), free(kap), free(ok);
}

/* ulp(R) in binary64 for a normal R that is not a power of two (the sweep's u), else 0. */
static double rr_ulp(double R) {
  int e;
  double m = frexp(fabs(R), &e);
  if (!isfinite(R) || R == 0 || m == 0.5 || e - 1 < -1022) return 0;
  return ldexp(1, e - 53);
}

/* Every family, both directions of n cases each: the reference's roots with their ulps and the root the
   reference names, then the same roots moved, given the other root's side, a wrong ulp or a wrong lower,
   in lists of every length modulo 8 (the short last group). */
Test(ref_root_batch, families) {
  long n = 1500 * te_scale();
  for (int f = 0; f < TOI_GEN_FAMILY_COUNT; f++) {
    toi_gen_opts o;
    toi_gen_opts_default(&o, (toi_gen_family)f);
    o.seed = te_seed(1731);
    toi_case *cs = malloc((size_t)n * sizeof *cs);
    rr_item *it = malloc((size_t)n * 2 * 8 * sizeof *it);
    cr_assert(cs && it);
    size_t ni = 0, nroots = 0;
    for (long i = 0; i < n; i++) {
      size_t b;
      cr_assert_eq(toi_gen_case(&cs[i], NULL, &b, &o, (uint64_t)i), TOI_OK);
      toi_ref_query rq = TOI_REF_QUERY_INIT;
      rq.c = &cs[i];
      toi_ref r;
      if (toi_ref_solve(&r, &rq) != TOI_OK) continue;
      for (int d = 0; d < 2; d++) {
        int lower = d ? r.rev_is_lo : r.fwd_is_lo;
        double R = d ? r.trev : r.tfwd;
        if (lower < 0) continue;
        nroots++;
        double u = rr_ulp(R), u0 = u ? u : 0x1p-52;
        it[ni++] = (rr_item){&cs[i], R, u, (signed char)lower};
        switch (i % 7) { /* one variant a root, in turn */
        case 0: it[ni++] = (rr_item){&cs[i], R + 3 * u0, u, (signed char)lower}; break;
        case 1: it[ni++] = (rr_item){&cs[i], R, u, (signed char)!lower}; break;
        case 2: it[ni++] = (rr_item){&cs[i], R, 3 * u0, (signed char)lower}; break; /* not a power of two */
        case 3: it[ni++] = (rr_item){&cs[i], R, 0x1p-1074, (signed char)lower}; break; /* subnormal */
        case 4: it[ni++] = (rr_item){&cs[i], (i & 8) ? NAN : INFINITY, u0, (signed char)lower}; break;
        case 5: it[ni++] = (rr_item){&cs[i], (i & 8) ? 0.0 : ldexp(1, (int)(i % 41) - 20), u0, 2}; break;
        default: it[ni++] = (rr_item){&cs[i], -R, u, (signed char)lower}; break;
        }
      }
    }
    rr_tally t = {0, 0, 0, 0, 0};
    const char *name = toi_gen_family_name((toi_gen_family)f);
    for (size_t start = 0, len = 1; start < ni; start += len, len = len % 23 + 1)
      rr_compare(it + start, start + len <= ni ? len : ni - start, &t, name);
    rr_tally lanes = {0, 0, 0, 0, 0};
    int w = ref_fast_batch_use(-1);
    if (w) rr_lanes(it, ni, w, &lanes);
    ref_fast_batch_use(-1);
    cr_log_info("%s: %zu roots, %ld tried, %ld offsets, %ld kappas; width %d: %ld of %ld offsets in lanes", name,
                nroots, t.items, t.off, t.kap, w, lanes.lane_off, lanes.lanes);
    if (w) cr_assert_gt(lanes.lane_off, lanes.lanes * 9 / 10, "%s: the lanes follow the usual cases", name);
    cr_assert_gt(nroots, (size_t)n / 10, "%s", name);
    if (f == TOI_GEN_MIXED || f == TOI_GEN_SCALE) {
      cr_assert_gt(t.off, (long)nroots / 2, "%s: offsets given", name);
      cr_assert_gt(t.kap, (long)nroots / 2, "%s: kappas given", name);
    }
    free(cs), free(it);
  }
}

/* A generic case's lengths times 2^k and velocities times 2^j (exact): the lanes scale the data as the
   scalar step does (b_prepare) or leave the case to it, and leave kappa's enclosure of data beyond its
   range to the scalar function, which scales it; subnormal, zero and huge maxima too. */
Test(ref_root_batch, scaled_data) {
  toi_gen_opts o;
  toi_gen_opts_default(&o, TOI_GEN_GENERIC);
  o.seed = te_seed(1732);
  enum { NC = 300, NK = 15 };
  /* up to lengths of 2^-1074 against speeds of 2^1000: kappa's scaling of R by more than 2^2044 */
  static const int ks[NK] = {-1074, -1070, -1000, -900, -400, -250, -150, -60, 0, 60, 150, 250, 400, 900, 1000};
  toi_case *cs = malloc(NC * NK * sizeof *cs);
  rr_item *it = malloc(NC * NK * 2 * sizeof *it);
  cr_assert(cs && it);
  size_t nc = 0, ni = 0;
  for (uint64_t i = 0; i < NC; i++) {
    toi_case c;
    size_t b;
    cr_assert_eq(toi_gen_case(&c, NULL, &b, &o, i), TOI_OK);
    for (int a = 0; a < NK; a++) {
      toi_case s = c;
      int k = ks[a], j = ks[(a * 5 + (int)i) % NK];
      for (int d = 0; d < 3; d++) {
        s.pa[d] = ldexp(c.pa[d], k), s.pb[d] = ldexp(c.pb[d], k);
        s.va[d] = ldexp(c.va[d], j), s.vb[d] = ldexp(c.vb[d], j);
      }
      s.ra = ldexp(c.ra, k), s.rb = ldexp(c.rb, k);
      toi_ref_query rq = TOI_REF_QUERY_INIT;
      rq.c = &s;
      toi_ref r;
      if (toi_ref_solve(&r, &rq) != TOI_OK) continue;
      cs[nc] = s;
      for (int d = 0; d < 2; d++) {
        int lower = d ? r.rev_is_lo : r.fwd_is_lo;
        double R = d ? r.trev : r.tfwd;
        if (lower < 0 || rr_ulp(R) == 0) continue;
        it[ni++] = (rr_item){&cs[nc], R, rr_ulp(R), (signed char)lower};
      }
      nc++;
    }
  }
  rr_tally t = {0, 0, 0, 0, 0};
  rr_compare(it, ni, &t, "scaled");
  cr_log_info("scaled: %ld roots, %ld offsets, %ld kappas; %ld of %ld offsets in lanes", t.items, t.off, t.kap,
              t.lane_off, t.lanes);
  if (ref_fast_batch_use(-1)) cr_assert_gt(t.lane_off, t.lanes / 2, "scaled data in lanes");
  ref_fast_batch_use(-1);
  cr_assert_gt(t.items, NC);
  cr_assert_gt(t.off, t.items / 4, "offsets given");
  cr_assert_gt(t.kap, t.items / 4, "kappas given");
  cr_assert_lt(t.kap, t.items, "some kappa declined");
  free(cs), free(it);
}

/* Cases the lanes do not follow at all: negative radii, a 2D case with a third component, non-finite data:
   the scalar functions decide, as root by root. */
Test(ref_root_batch, odd_cases) {
  toi_case base;
  memset(&base, 0, sizeof base);
  base.dim = 2, base.pb[0] = 16, base.vb[0] = -3, base.ra = base.rb = 1, base.ma = base.mb = 1;
  const double R = 14.0 / 3; /* t* = 14/3 */
  toi_case cs[6];
  for (int i = 0; i < 6; i++) cs[i] = base;
  cs[1].ra = -0.0;
  cs[2].pb[2] = 1;
  cs[3].vb[1] = INFINITY;
  cs[4].pa[1] = NAN;
  cs[5].dim = 3;
  rr_item it[12];
  for (int i = 0; i < 6; i++) {
    it[2 * i] = (rr_item){&cs[i], R, rr_ulp(R), 1};
    it[2 * i + 1] = (rr_item){&cs[i], R, rr_ulp(R), 0};
  }
  rr_tally t = {0, 0, 0, 0, 0};
  rr_compare(it, 12, &t, "odd");
  cr_assert_gt(t.off, 0);
  cr_assert_gt(t.kap, 0);
}
