/* test_ref32_batch.c: the fast engine's binary32 batch (its vector kernels) and per-call path against exact roots and MPFR. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <float.h>
#include <math.h>
#include <string.h>
#include "gen.h"
#include "ref_fast_api.h"
#include "reference_check.h"
#include "ref_forms.h"

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

/* One constructed case (the top of the file) from the stream r. */
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

/* Every family, generated in binary64 and in binary32 (gen --precision),
 * 3000 cases each: the binary32 batch through every width and the per-call
 * fast path give the per-case MPFR answers in binary32, status and every
 * field, bit for bit. */
typedef struct r32_fam {
  int fam;
  int prec;
} r32_fam;

ParameterizedTestParameters(ref32_batch, families_vs_mpfr) {
  static r32_fam p[2 * TOI_GEN_FAMILY_COUNT];
  for (int f = 0; f < TOI_GEN_FAMILY_COUNT; f++) {
    p[2 * f] = (r32_fam){f, TOI_BINARY64};
    p[2 * f + 1] = (r32_fam){f, TOI_BINARY32};
  }
  return cr_make_param_array(r32_fam, p, 2 * TOI_GEN_FAMILY_COUNT);
}

ParameterizedTest(r32_fam *p, ref32_batch, families_vs_mpfr) {
  const long n = 3000 * tr_scale();
  toi_gen_opts o;
  toi_gen_opts_default_in(&o, (toi_gen_family)p->fam, (toi_precision)p->prec);
  o.seed = tr_seed();
  toi_case *c = malloc((size_t)n * sizeof *c);
  toi_ref *b = malloc((size_t)n * sizeof *b), *m = malloc((size_t)n * sizeof *m);
  toi_status *sb = malloc((size_t)n * sizeof *sb), *sm = malloc((size_t)n * sizeof *sm);
  cr_assert(c && b && m && sb && sm);
  for (long i = 0; i < n; i++) {
    size_t bin;
    cr_assert_eq(toi_gen_case(&c[i], NULL, &bin, &o, (uint64_t)i), TOI_OK);
    sm[i] = tr_solve_prec(&m[i], &c[i], TOI_BINARY32, TOI_REF_MPFR);
  }
  const char *fam = toi_gen_family_name(o.family), *gp = toi_precision_name((toi_precision)p->prec);
  int w[3], nw = r32_widths(w);
  for (int k = 0; k < nw; k++) {
    cr_assert_eq(ref_fast_batch_use(w[k]), w[k]);
    (void)tr_batch_prec(b, sb, c, (size_t)n, TOI_BINARY32, TOI_REF_FAST);
    for (long i = 0; i < n; i++) {
      cr_assert_eq(sb[i], sm[i], "%s (%s) case %ld, width %d: status", fam, gp, i, w[k]);
      cr_assert(tr_same_ref(&b[i], &m[i]), "%s (%s) case %ld, width %d: fast %a %a, mpfr %a %a on %s " SEED_MSG,
                fam, gp, i, w[k], b[i].tlo, b[i].thi, m[i].tlo, m[i].thi, tr_fmt(&c[i]), SEED_ARGS);
    }
  }
  ref_fast_batch_use(-1);
  for (long i = 0; i < n; i++) {
    toi_ref f;
    cr_assert_eq(tr_solve_prec(&f, &c[i], TOI_BINARY32, TOI_REF_FAST), sm[i]);
    cr_assert(tr_same_ref(&f, &m[i]), "%s (%s) case %ld: per call", fam, gp, i);
  }
  free(c), free(b), free(m), free(sb), free(sm);
}
