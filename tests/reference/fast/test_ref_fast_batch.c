/* test_ref_fast_batch.c: toi_ref_solve_batch's vector kernels (reference/fast/ref_fast_batch.c) at every width against roots known from the maths, in binary64 and binary32; tails and NULL arguments. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gen.h"
#include "ref_common.h"
#include "ref_fast_api.h"
#include "reference_check.h"
#include "ref_forms.h"
#include "ref_cases.h"

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
