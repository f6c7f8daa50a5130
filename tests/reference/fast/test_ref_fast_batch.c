/* test_ref_fast_batch.c: toi_ref_solve_batch's vector kernels (reference/fast/ref_fast_batch.c) at every width against roots known from the maths, in binary64 and binary32; tails and NULL arguments; the roots' offsets and kappa's enclosures in lanes (ref_root_offset_kappa_n) against the scalar functions bit for bit. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gen.h"
#include "ref_bench.h"
#include "ref_common.h"
#include "ref_fast_api.h"
#include "ref_fast_kernels.h"
#include "reference_check.h"
#include "ref_forms.h"
#include "ref_cases.h"
#include "test_env.h"

/*
 * The batch runs the fast engine's first stage on 8 (AVX-512) or 4 (AVX2)
 * cases at once and hands what it declines to the scalar engine. Each test
 * runs at every width this processor has (8, 4 and 0, the scalar loop) on
 * cases whose answers are known from the maths. That the batch answers
 * every case as the MPFR engine at every width: test_ref_generic.c
 * (solve_batch, width 8, 4, 0).
 */

static const int rb_widths[] = {8, 4, 0};

/* Sets the width; 0 when this processor lacks it (the test skips it). */
static int rb_use(int w) {
  int got = ref_fast_batch_use(w);
  return got == w;
}

/* Head-on approaches with roots known exactly: B at (10, 0) moving
 * (-1, 0) towards A at rest, R = 6: |10 - t| = 6 at t = 4 and 16; B at
 * (16, 12) moving (-4, -3) (towards A, speed 5, |s| = 20), R = 10:
 * 20 - 5t = +-10 at t = 2 and 6, in 2D and in 3D. Lengths times 2^e and
 * speeds times 2^f multiply the roots by 2^(e - f), exactly, then rounded
 * to double as ldexp rounds them. */
Test(ref_batch, exact_roots_over_the_exponent_range) {
  tr_rng r = {tr_seed() ^ 0x6578616374ULL};
  size_t n = 4096;
  toi_case *c = malloc(n * sizeof *c);
  double *lo = malloc(n * sizeof *lo), *hi = malloc(n * sizeof *hi);
  cr_assert(c && lo && hi);
  for (size_t i = 0; i < n; i++) {
    /* e - f in [-1100, 1030]: roots normal, subnormal (rounded to the
     * 2^-1074 grid, ties to even: 4 2^-1077 = 2^-1075 gives +0), zero or
     * overflowing to +Inf; ldexp rounds the exact value as IEEE 754 does. */
    int d = (int)tr_int(&r, -1100, 1030), e = (int)tr_int(&r, -900, 900), f = e - d;
    while (f < -1000 || f > 1000) e = (int)tr_int(&r, -900, 900), f = e - d;
    double L = ldexp(1, e), V = ldexp(1, f);
    int rot = (int)(tr_next(&r) % 3);
    if (rot == 0) {
      c[i] = tr_rel2(10 * L, 0, -1 * V, 0, 4 * L, 2 * L);
      lo[i] = ldexp(4, e - f), hi[i] = ldexp(16, e - f);
    } else if (rot == 1) {
      c[i] = tr_rel2(16 * L, 12 * L, -4 * V, -3 * V, 7 * L, 3 * L);
      lo[i] = ldexp(2, e - f), hi[i] = ldexp(6, e - f);
    } else {
      c[i] = tr_rel3(0, 12 * L, 16 * L, 0, -3 * V, -4 * V, 5 * L, 5 * L);
      lo[i] = ldexp(2, e - f), hi[i] = ldexp(6, e - f);
    }
    /* a common offset on both balls' positions and velocities changes
     * nothing exactly when it is exact: use a power of two at the scale */
    if (tr_next(&r) & 1) {
      c[i].pa[0] += 64 * L, c[i].pb[0] += 64 * L;
      c[i].va[1] -= 32 * V, c[i].vb[1] -= 32 * V;
    }
  }
  for (size_t k = 0; k < sizeof rb_widths / sizeof rb_widths[0]; k++) {
    if (!rb_use(rb_widths[k])) continue;
    toi_ref *o = malloc(n * sizeof *o);
    toi_status *st = malloc(n * sizeof *st);
    cr_assert(o && st);
    cr_assert_eq(tr_batch_engine(o, st, c, n, TOI_REF_FAST), 0);
    for (size_t i = 0; i < n; i++) {
      cr_assert_eq(o[i].cls, TOI_HIT, "width %d: %s is a hit", rb_widths[k], tr_fmt(&c[i]));
      cr_assert(tr_same(o[i].tlo, lo[i]) && tr_same(o[i].thi, hi[i]),
                "width %d: %s: roots %a %a, expected %a %a", rb_widths[k], tr_fmt(&c[i]), o[i].tlo, o[i].thi, lo[i],
                hi[i]);
      cr_assert(o[i].fwd_is_lo == 1 && tr_same(o[i].tfwd, lo[i]) && o[i].rev_is_lo == -1 && isnan(o[i].trev),
                "width %d: %s: directions", rb_widths[k], tr_fmt(&c[i]));
    }
    free(o);
    free(st);
  }
  ref_fast_batch_use(-1);
  free(c);
  free(lo);
  free(hi);
}

/* Tails of every length, a NULL status array, and NULL arguments. */
Test(ref_batch, tails_and_null_arguments) {
  toi_case c[19];
  for (int i = 0; i < 19; i++) c[i] = tr_rel2(10 + i, 0, -1, 0, 4, 2); /* roots 4 + i and 16 + i */
  for (size_t k = 0; k < sizeof rb_widths / sizeof rb_widths[0]; k++) {
    if (!rb_use(rb_widths[k])) continue;
    for (size_t n = 0; n <= 19; n++) {
      toi_ref o[19];
      memset(o, 0x55, sizeof o);
      cr_assert_eq(tr_batch_engine(o, NULL, c, n, TOI_REF_FAST), 0);
      for (size_t i = 0; i < n; i++)
        cr_assert(o[i].cls == TOI_HIT && o[i].tlo == 4.0 + (double)i && o[i].thi == 16.0 + (double)i,
                  "width %d, n %zu, case %zu: %a %a", rb_widths[k], n, i, o[i].tlo, o[i].thi);
      for (size_t i = n; i < 19; i++) cr_assert_eq(o[i].fwd_is_lo, 0x55555555, "case %zu beyond n written", i);
    }
  }
  ref_fast_batch_use(-1);
  toi_status st[3] = {TOI_OK, TOI_OK, TOI_OK};
  cr_assert_eq(tr_batch_engine(NULL, st, c, 3, TOI_REF_FAST), 3);
  cr_assert(st[0] == TOI_ERR_RANGE && st[2] == TOI_ERR_RANGE);
  /* The MPFR engine through the batch: the same answers. */
  toi_ref o[5];
  cr_assert_eq(tr_batch_engine(o, NULL, c, 5, TOI_REF_MPFR), 0);
  cr_assert(o[4].tlo == 8 && o[4].thi == 20);
}

/*
 * The fast engine certifies binary32 roots inside its batch kernels and its
 * scalar first stage, from an enclosure of the root; a root on or next to a
 * binary32 midpoint must go on to the exact path. Here batches of thousands
 * of cases go through every vector width this processor runs (8, 4, and 0:
 * one case at a time), so that the kernels, not only the scalar code, see
 * them.
 *
 * Constructed cases (the expected roots from the maths): P an integer
 * vector with |P| = n (Pythagorean: (3,4,0), (2,3,6), ...), t0 = sigma (M +
 * delta) with M an odd integer and delta = j 2^-20, |j| <= 2^10, so M 2^g is
 * a binary32 midpoint and t0 2^g lies within 2^-10 of a binary32 ulp of it
 * (on it when j = 0). B starts at s0 = P (1 + w t0) 2^a, moving v = -P w
 * 2^b, A at rest at the origin, radii summing to n 2^a: |s0 + v t| = n 2^a
 * |1 + w (t0 - t 2^-g)| with g = a - b, so the roots are t0 2^g and (t0 +
 * 2/w) 2^g, the lower one t0 2^g. Every product and sum of the construction
 * is exact (at most 52 significant bits; checked by FMA). RN_32 of t0 2^g
 * is (M + 1) 2^g or (M - 1) 2^g by the sign of delta, the even one of them
 * for delta = 0, infinite beyond FLT_MAX, with t0's sign (the zero too).
 * M in [2^24, 2^25) with g in [-150, 103] gives normal binary32 midpoints,
 * (2^25 - 1) 2^103 the overflow threshold FLT_MAX + ulp/2, M < 2^24 with
 * g = -150 the subnormal ones; a spread a moves the data in and out of the
 * engine's unscaled range ([2^-64, 2^64]).
 */

typedef struct r32_case {
  toi_case c;
  double tlo; /* RN_32 of the lower root, from the maths */
  int tie;    /* the lower root is exactly a binary32 midpoint */
} r32_case;

/* The binary32 widths to try: the widest first, then 4 and 0 when lower. */
static int r32_widths(int *w) {
  int n = 0, best = ref_fast_batch_use(-1);
  w[n++] = best;
  if (best > 4) w[n++] = 4;
  if (best > 0) w[n++] = 0;
  return n;
}

/* RN_32(sigma (M + delta) 2^g) for an odd M and |delta| < 1 of sign dsign. */
static double r32_expected(long M, int dsign, int g, int sigma) {
  long up = M + 1, lo = M - 1;
  long m = dsign > 0 ? up : dsign < 0 ? lo : ((up / 2) % 2 == 0 ? up : lo);
  double e = ldexp((double)m, g);
  if (e > FLT_MAX) e = INFINITY;
  return sigma < 0 ? -e : e;
}

/* One constructed case (r32_case above) from the stream r. */
static r32_case r32_make(tr_rng *r) {
  static const int P[][4] = {{3, 4, 0, 5}, {0, 3, 4, 5}, {2, 3, 6, 7}, {1, 4, 8, 9}, {2, 6, 9, 11}, {4, 0, 3, 5}};
  const int *p = P[tr_int(r, 0, 5)];
  const int kind = (int)tr_int(r, 0, 9); /* 0: subnormal, 1: overflow edge, else normal */
  long M;
  int g;
  if (kind == 0) {
    M = 2 * tr_int(r, 0, (1L << 23) - 1) + 1, g = -150;
  } else if (kind == 1) {
    M = (1L << 25) - 1, g = 103;
  } else {
    M = (1L << 24) + 2 * tr_int(r, 0, (1L << 23) - 1) + 1, g = (int)tr_int(r, -150, 103);
  }
  const long j = tr_int(r, 0, 3) == 0 ? 0 : tr_int(r, -1024, 1024);
  const int sigma = tr_int(r, 0, 1) ? 1 : -1, w = (int)tr_int(r, 1, 7);
  const double t0 = sigma * ((double)M + (double)j * 0x1p-20);
  const double wt = w * t0, x = 1 + wt;
  cr_assert(fma(w, t0, -wt) == 0 && x - 1 == wt, "inexact construction: M %ld j %ld w %d", M, j, w);
  /* Half the time, where g allows it, lengths (up to 2^(a+30)) and speeds
   * (up to 2^(b+3)) inside [2^-64, 2^64]: the engine's unscaled path. */
  const int alo = g - 67 > -94 ? g - 67 : -94, ahi = g + 61 < 34 ? g + 61 : 34;
  const int a = alo <= ahi && tr_int(r, 0, 1) ? (int)tr_int(r, alo, ahi) : g / 2 + (int)tr_int(r, -200, 200);
  const int b = a - g, k = (int)tr_int(r, 0, p[3]);
  double s[3], v[3];
  for (int i = 0; i < 3; i++) {
    s[i] = p[i] * x;
    cr_assert(fma(p[i], x, -s[i]) == 0, "inexact construction");
    s[i] = ldexp(s[i], a);
    v[i] = ldexp(-(double)p[i] * w, b);
  }
  const double ra = ldexp(p[3] - k, a), rb = ldexp(k, a);
  r32_case out;
  if (p[2] == 0 && tr_int(r, 0, 1))
    out.c = tr_rel2(s[0], s[1], v[0], v[1], ra, rb);
  else
    out.c = tr_rel3(s[0], s[1], s[2], v[0], v[1], v[2], ra, rb);
  out.tlo = r32_expected(M, j > 0 ? 1 : j < 0 ? -1 : 0, g, sigma);
  out.tie = j == 0;
  return out;
}

/* Roots on and within 2^-10 binary32 ulp of binary32 midpoints, 4096 a
 * time: the lower root is the expected one through every batch width, the
 * per-call path and the MPFR engine, and all agree field by field; every
 * exact midpoint went to MPFR (toi_ref_fast_stats.fb_prec). */
Test(ref32_batch, near_midpoints_exact) {
  enum { N = 4096 };
  static r32_case rc[N];
  static toi_case c[N];
  static toi_ref b[N], m[N];
  static toi_status sb[N], sm[N];
  tr_rng r = {tr_seed() ^ 0x3232u};
  long rounds = 2 * tr_scale();
  int w[3], nw = r32_widths(w);
  for (long round = 0; round < rounds; round++) {
    unsigned long long ties = 0;
    for (int i = 0; i < N; i++) {
      rc[i] = r32_make(&r);
      c[i] = rc[i].c;
      ties += (unsigned)rc[i].tie;
    }
    (void)tr_batch_prec(m, sm, c, N, TOI_BINARY32, TOI_REF_MPFR);
    for (int i = 0; i < N; i++) {
      cr_assert_eq(sm[i], TOI_OK);
      cr_assert(tr_same(m[i].tlo, rc[i].tlo), "mpfr: lower root %a, expected %a on %s " SEED_MSG, m[i].tlo,
                rc[i].tlo, tr_fmt(&c[i]), SEED_ARGS);
    }
    for (int k = 0; k < nw; k++) {
      cr_assert_eq(ref_fast_batch_use(w[k]), w[k]);
      toi_ref_fast_stats s0, s1;
      toi_ref_fast_stats_get(&s0);
      (void)tr_batch_prec(b, sb, c, N, TOI_BINARY32, TOI_REF_FAST);
      toi_ref_fast_stats_get(&s1);
      cr_assert_geq(s1.fb_prec - s0.fb_prec, ties, "width %d: %llu ties, %llu handed to MPFR", w[k], ties,
                    s1.fb_prec - s0.fb_prec);
      for (int i = 0; i < N; i++) {
        cr_assert_eq(sb[i], TOI_OK);
        cr_assert(tr_same(b[i].tlo, rc[i].tlo), "width %d: lower root %a, expected %a on %s " SEED_MSG, w[k],
                  b[i].tlo, rc[i].tlo, tr_fmt(&c[i]), SEED_ARGS);
        cr_assert(tr_same_ref(&b[i], &m[i]), "width %d: fast %a %a, mpfr %a %a on %s", w[k], b[i].tlo, b[i].thi,
                  m[i].tlo, m[i].thi, tr_fmt(&c[i]));
      }
    }
    for (int i = 0; i < N; i++) {
      toi_ref f;
      cr_assert_eq(tr_solve_prec(&f, &c[i], TOI_BINARY32, TOI_REF_FAST), TOI_OK);
      cr_assert(tr_same_ref(&f, &m[i]), "per call: fast %a %a, mpfr %a %a on %s", f.tlo, f.thi, m[i].tlo, m[i].thi,
                tr_fmt(&c[i]));
    }
  }
  ref_fast_batch_use(-1);
}

/* ---- ref_root_offset_kappa_n: the roots' offsets and kappa's enclosures in vector lanes ---- */

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
