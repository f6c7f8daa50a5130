/* test_reference_props.c: the reference on random cases, against a naive solver and under exact symmetries. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include "reference_check.h"
#include "ref_forms.h"

/* Every test draws from its own stream: seed ^ a per-test constant, so that
 * one failure is reproduced by TOI_TEST_SEED alone. */
static tr_rng props_rng(uint64_t salt) {
  tr_rng r = {tr_seed() ^ salt};
  return r;
}

/* A random case whose lengths have exponents in [pl, ph] and velocities in
 * [vl, vh]; every other one is aimed so that roots are common. */
static toi_case props_case(tr_rng *r, int pl, int ph, int vl, int vh) {
  int dim = 2 + (int)(tr_next(r) & 1);
  double s[3] = {0, 0, 0}, v[3] = {0, 0, 0}, pa[3] = {0, 0, 0}, va[3] = {0, 0, 0};
  for (int i = 0; i < dim; i++) {
    pa[i] = tr_double(r, pl, ph);
    s[i] = tr_double(r, pl, ph);
    va[i] = tr_double(r, vl, vh);
    v[i] = tr_double(r, vl, vh);
  }
  if (tr_next(r) & 1) {
    /* Aim B roughly at A: v = -s k + noise, with k a velocity/length ratio
     * (kept only when it is a finite double). */
    double k = ldexp(1.0, (int)tr_int(r, vl, vh) - (int)tr_int(r, pl, ph));
    double f = 0.5 + 0.5 * ldexp(1, -(int)tr_int(r, 0, 3)), w[3];
    int ok = 1;
    for (int i = 0; i < dim; i++) {
      w[i] = -s[i] * k * f + v[i] * 0x1p-4;
      ok = ok && isfinite(w[i]);
    }
    if (ok) memcpy(v, w, sizeof w);
  }
  toi_case c;
  memset(&c, 0, sizeof c);
  strcpy(c.id, "r");
  c.dim = dim;
  c.ma = c.mb = 1;
  double smax = 0;
  for (int i = 0; i < dim; i++) {
    c.pa[i] = pa[i];
    c.pb[i] = pa[i] + s[i];
    c.va[i] = va[i];
    c.vb[i] = va[i] + v[i];
    if (fabs(s[i]) > smax) smax = fabs(s[i]);
  }
  /* Radii comparable to the gap, sometimes 0. */
  c.ra = (tr_next(r) % 8) ? fabs(smax * 0.25 * ldexp(1, -(int)tr_int(r, 0, 3)) * (1 + 0.5 * (double)(tr_next(r) % 7))) : 0;
  c.rb = fabs(tr_double(r, pl, ph));
  int finite = isfinite(c.ra) && isfinite(c.rb);
  for (int i = 0; i < dim; i++) finite = finite && isfinite(c.pb[i]) && isfinite(c.vb[i]);
  if (!finite) return props_case(r, pl, ph, vl, vh);
  return c;
}

static void props_expect_naive(const toi_case *c, int n, const char *family) {
  toi_ref r;
  cr_assert_eq(tr_solve_engine(&r, c, TOI_REF_FAST), TOI_OK);
  tr_answer a = tr_naive(c, 0);
  char line[1024];
  if (toi_format_case(line, sizeof line, c) >= (int)sizeof line) strcpy(line, "(long)");
  cr_assert_eq(r.cls, a.cls, "%s #%d: class %s vs naive %s\n  %s\n" SEED_MSG, family, n,
               toi_class_name(r.cls), toi_class_name(a.cls), line, SEED_ARGS);
  cr_assert(tr_same(r.tlo, a.tlo) && tr_same(r.thi, a.thi), "%s #%d: %a %a vs naive %a %a\n  %s\n" SEED_MSG,
            family, n, r.tlo, r.thi, a.tlo, a.thi, line, SEED_ARGS);
}

/* ---- against the naive solver ---- */

Test(reference_random, generic_against_naive) {
  tr_rng r = props_rng(0x1111);
  long n = 2000 * tr_scale();
  for (long i = 0; i < n; i++) {
    toi_case c = props_case(&r, -30, 30, -30, 30);
    props_expect_naive(&c, (int)i, "generic");
  }
}

Test(reference_random, wide_against_naive) {
  /* Exponents over the whole double range: overflowing and vanishing roots,
   * integers of thousands of bits. */
  tr_rng r = props_rng(0x2222);
  long n = 300 * tr_scale();
  for (long i = 0; i < n; i++) {
    toi_case c = props_case(&r, -1074, 1000, -1074, 1000);
    props_expect_naive(&c, (int)i, "wide");
  }
}

Test(reference_random, subnormal_roots_against_naive) {
  tr_rng r = props_rng(0x3333);
  long n = 1000 * tr_scale();
  for (long i = 0; i < n; i++) {
    toi_case c = props_case(&r, -1070, -1030, -4, 12);
    props_expect_naive(&c, (int)i, "subnormal");
  }
}

Test(reference_random, near_tangent_against_naive) {
  /* B passes A at height R + d with d a few ulps of R: D tiny of either sign. */
  tr_rng r = props_rng(0x4444);
  long n = 1000 * tr_scale();
  for (long i = 0; i < n; i++) {
    double R = fabs(tr_double(&r, -20, 20));
    double h = R + (double)tr_int(&r, -4, 4) * ldexp(1, (int)tr_int(&r, -60, -52)) * R;
    double x = -fabs(tr_double(&r, -10, 30));
    double vx = fabs(tr_double(&r, -10, 10));
    toi_case c = tr_rel2(x, h, vx, 0, R * 0.25, R * 0.75);
    props_expect_naive(&c, (int)i, "tangent");
  }
}

/* x rounded to 50 significant bits. */
static double props_50bits(double x) {
  if (x == 0) return x;
  int e = ilogb(x);
  return ldexp(nearbyint(ldexp(x, 49 - e)), e - 49);
}

/* Collinear data: roots (-S -+ R)/V are rational; compared with an exact mpq
 * computation rounded the documented way. */
Test(reference_random, collinear_rational_exact) {
  tr_rng r = props_rng(0x5555);
  long n = 2000 * tr_scale();
  mpq_t q, w;
  mpq_inits(q, w, (mpq_ptr)0);
  for (long i = 0; i < n; i++) {
    int wide = i % 4 == 3;
    int pl = wide ? -1074 : -40, ph = wide ? 1000 : 40;
    double pa = tr_double(&r, pl, ph), pb = tr_double(&r, pl, ph);
    double va = tr_double(&r, pl, ph), vb = (i % 16 == 0) ? va : tr_double(&r, pl, ph);
    double ra = fabs(tr_double(&r, pl, ph)), rb = (i % 5 == 0) ? 0 : fabs(tr_double(&r, pl, ph));
    /* Along x, or along (3, 4)/5 scaled by a power of two: still exact. */
    toi_case c;
    int axis = (int)(i % 3);
    if (axis == 2 && fabs(pa) < 0x1p900 && fabs(pb) < 0x1p900 && fabs(va) < 0x1p900 && fabs(vb) < 0x1p900 &&
        fabs(pa) > 0x1p-900 && fabs(pb) > 0x1p-900 && fabs(va) > 0x1p-900 && fabs(vb) > 0x1p-900 &&
        (ra == 0 || ra > 0x1p-900)) {
      /* (3, 4) x/8 and 5 r/8 are exact when x and r have at most 50 bits. */
      double k = 0x1p-3;
      pa = props_50bits(pa), pb = props_50bits(pb), va = props_50bits(va), vb = props_50bits(vb);
      ra = props_50bits(ra), rb = props_50bits(rb);
      c = tr_case2(3 * k * pa, 4 * k * pa, 3 * k * va, 4 * k * va, ra * 5 * k, 3 * k * pb, 4 * k * pb,
                   3 * k * vb, 4 * k * vb, rb * 5 * k);
    } else if (axis == 1) {
      c = tr_rel3(0, 0, 0, 0, 0, 0, ra, rb);
      c.pa[2] = pa, c.pb[2] = pb, c.va[2] = va, c.vb[2] = vb;
    } else {
      c = tr_case2(pa, 0, va, 0, ra, pb, 0, vb, 0, rb);
    }
    toi_ref ref;
    cr_assert_eq(tr_solve_engine(&ref, &c, TOI_REF_FAST), TOI_OK);
    double want_lo = NAN, want_hi = NAN;
    if (va != vb) {
      /* |S + V t| = R: t = (-S -+ R)/V, lower first. */
      double e[2];
      for (int k2 = 0; k2 < 2; k2++) {
        mpq_set_d(q, pa), mpq_set_d(w, pb), mpq_sub(q, q, w); /* -S = pa - pb */
        mpq_set_d(w, ra);
        mpq_t rr;
        mpq_init(rr);
        mpq_set_d(rr, rb);
        mpq_add(w, w, rr);
        if (k2 == 0) mpq_sub(q, q, w);
        else mpq_add(q, q, w);
        mpq_set_d(w, vb), mpq_set_d(rr, va), mpq_sub(w, w, rr);
        mpq_div(q, q, w);
        mpq_clear(rr);
        e[k2] = tr_round_q(q);
        if (e[k2] == 0 && mpq_sgn(q) < 0) e[k2] = -0.0;
      }
      int vpos = vb > va;
      want_lo = vpos ? e[0] : e[1];
      want_hi = vpos ? e[1] : e[0];
    }
    cr_assert(tr_same(ref.tlo, want_lo) && tr_same(ref.thi, want_hi),
              "collinear #%ld: %a %a vs exact %a %a\n" SEED_MSG, i, ref.tlo, ref.thi, want_lo, want_hi,
              SEED_ARGS);
  }
  mpq_clears(q, w, (mpq_ptr)0);
}

/* ---- exact symmetries ---- */

static toi_case props_swap(const toi_case *c) {
  toi_case d = *c;
  memcpy(d.pa, c->pb, sizeof d.pa), memcpy(d.pb, c->pa, sizeof d.pb);
  memcpy(d.va, c->vb, sizeof d.va), memcpy(d.vb, c->va, sizeof d.vb);
  d.ra = c->rb, d.rb = c->ra, d.ma = c->mb, d.mb = c->ma;
  return d;
}

Test(reference_invariance, swap_balls) {
  tr_rng r = props_rng(0x6666);
  long n = 3000 * tr_scale();
  for (long i = 0; i < n; i++) {
    toi_case c = (i % 4 == 0) ? props_case(&r, -1074, 1000, -1074, 1000) : props_case(&r, -30, 30, -30, 30);
    toi_case d = props_swap(&c);
    toi_ref x, y;
    cr_assert_eq(tr_solve_engine(&x, &c, TOI_REF_FAST), TOI_OK);
    cr_assert_eq(tr_solve_engine(&y, &d, TOI_REF_FAST), TOI_OK);
    cr_assert(tr_same_ref(&x, &y), "swap #%ld: %s %a %a vs %s %a %a\n" SEED_MSG, i, toi_class_name(x.cls), x.tlo,
              x.thi, toi_class_name(y.cls), y.tlo, y.thi, SEED_ARGS);
    if (i % 8 == 0) {
      double k1, k2;
      cr_assert_eq(tr_kappa_engine(&k1, &c, TOI_FORWARD, TOI_REF_FAST), TOI_OK);
      cr_assert_eq(tr_kappa_engine(&k2, &d, TOI_FORWARD, TOI_REF_FAST), TOI_OK);
      cr_assert(tr_same(k1, k2), "swap kappa #%ld: %a vs %a\n" SEED_MSG, i, k1, k2, SEED_ARGS);
    }
  }
}

/* A multiple of 2^-20 below 2^30 in magnitude: adding an integer below 2^20
 * stays exact (fewer than 53 bits). */
static double props_grid(tr_rng *r) { return (double)tr_int(r, -(1L << 49), 1L << 49) * 0x1p-20; }

Test(reference_invariance, translate_positions_and_velocities) {
  tr_rng r = props_rng(0x7777);
  long n = 3000 * tr_scale();
  for (long i = 0; i < n; i++) {
    toi_case c;
    memset(&c, 0, sizeof c);
    c.dim = 2 + (int)(i & 1);
    c.ma = c.mb = 1;
    for (int k = 0; k < c.dim; k++) {
      c.pa[k] = props_grid(&r), c.pb[k] = c.pa[k] + (double)tr_int(&r, -(1L << 24), 1L << 24) * 0x1p-20;
      c.va[k] = props_grid(&r), c.vb[k] = c.va[k] + (double)tr_int(&r, -(1L << 24), 1L << 24) * 0x1p-20;
    }
    if (i % 2) /* aimed */
      for (int k = 0; k < c.dim; k++) c.vb[k] = c.va[k] - (c.pb[k] - c.pa[k]) * 0.5;
    c.ra = (double)tr_int(&r, 0, 1L << 23) * 0x1p-20, c.rb = (double)tr_int(&r, 0, 1L << 22) * 0x1p-20;
    toi_case d = c;
    for (int k = 0; k < c.dim; k++) {
      double o = (double)tr_int(&r, -(1L << 20) + 1, (1L << 20) - 1);
      double ov = (double)tr_int(&r, -(1L << 20) + 1, (1L << 20) - 1);
      d.pa[k] += o, d.pb[k] += o;
      d.va[k] += ov, d.vb[k] += ov;
      cr_assert(d.pa[k] - o == c.pa[k] && d.pb[k] - o == c.pb[k] && d.va[k] - ov == c.va[k] &&
                    d.vb[k] - ov == c.vb[k],
                "inexact shift");
    }
    toi_ref x, y;
    cr_assert_eq(tr_solve_engine(&x, &c, TOI_REF_FAST), TOI_OK);
    cr_assert_eq(tr_solve_engine(&y, &d, TOI_REF_FAST), TOI_OK);
    cr_assert(tr_same_ref(&x, &y), "translate #%ld: %a %a vs %a %a\n" SEED_MSG, i, x.tlo, x.thi, y.tlo, y.thi,
              SEED_ARGS);
  }
}

static toi_case props_scale(const toi_case *c, int kl, int kv) {
  toi_case d = *c;
  for (int i = 0; i < 3; i++) {
    d.pa[i] = ldexp(c->pa[i], kl), d.pb[i] = ldexp(c->pb[i], kl);
    d.va[i] = ldexp(c->va[i], kv), d.vb[i] = ldexp(c->vb[i], kv);
  }
  d.ra = ldexp(c->ra, kl), d.rb = ldexp(c->rb, kl);
  return d;
}

Test(reference_invariance, scale_everything) {
  /* Lengths and velocities by the same 2^k: t = length/velocity unchanged.
   * Data within 2^+-40, k within +-900: every scaled input stays normal. */
  tr_rng r = props_rng(0x8888);
  long n = 3000 * tr_scale();
  for (long i = 0; i < n; i++) {
    toi_case c = props_case(&r, -30, 30, -30, 30);
    int k = (int)tr_int(&r, -900, 900);
    toi_case d = props_scale(&c, k, k);
    toi_ref x, y;
    cr_assert_eq(tr_solve_engine(&x, &c, TOI_REF_FAST), TOI_OK);
    cr_assert_eq(tr_solve_engine(&y, &d, TOI_REF_FAST), TOI_OK);
    cr_assert(tr_same_ref(&x, &y), "scale 2^%d #%ld: %a %a vs %a %a\n" SEED_MSG, k, i, x.tlo, x.thi, y.tlo,
              y.thi, SEED_ARGS);
  }
}

static int props_normal(double t) { return isfinite(t) && fabs(t) >= DBL_MIN; }

Test(reference_invariance, scale_velocities) {
  /* Velocities by 2^k: the roots are divided by 2^k exactly, as long as
   * neither rounding falls outside the normal range. */
  tr_rng r = props_rng(0x9999);
  long n = 3000 * tr_scale();
  long checked = 0;
  for (long i = 0; i < n; i++) {
    toi_case c = props_case(&r, -30, 30, -30, 30);
    int k = (int)tr_int(&r, -900, 900);
    toi_case d = props_scale(&c, 0, k);
    toi_ref x, y;
    cr_assert_eq(tr_solve_engine(&x, &c, TOI_REF_FAST), TOI_OK);
    cr_assert_eq(tr_solve_engine(&y, &d, TOI_REF_FAST), TOI_OK);
    cr_assert_eq(x.cls, y.cls);
    double t[2] = {x.tlo, x.thi}, u[2] = {y.tlo, y.thi};
    for (int j = 0; j < 2; j++) {
      if (isnan(t[j])) {
        cr_assert(isnan(u[j]));
        continue;
      }
      double want = ldexp(t[j], -k);
      if (!props_normal(t[j]) || !props_normal(want)) continue;
      checked++;
      cr_assert(tr_same(u[j], want), "velocities 2^%d #%ld: %a vs %a\n" SEED_MSG, k, i, u[j], want, SEED_ARGS);
    }
  }
  cr_assert_gt(checked, n / 4, "too few roots checked: %ld", checked);
}

/* ---- toi_ref_error on random cases ---- */

/* ulp(x) exponent of the double next to the root, for the nextafter bound. */
static int props_is_pow2(double x) {
  int e;
  return x != 0 && isfinite(x) && frexp(x, &e) == 0.5 * copysign(1, x);
}

Test(reference_random, error_of_neighbours) {
  tr_rng r = props_rng(0xaaaa);
  long n = 1500 * tr_scale();
  long checked = 0;
  for (long i = 0; i < n; i++) {
    toi_case c = (i % 5 == 0) ? props_case(&r, -1074, 1000, -1074, 1000) : props_case(&r, -30, 30, -30, 30);
    toi_ref x;
    cr_assert_eq(tr_solve_engine(&x, &c, TOI_REF_FAST), TOI_OK);
    for (int dir = 0; dir < 2; dir++) {
      double t = dir ? x.trev : x.tfwd;
      double u, b;
      cr_assert_eq(tr_error_engine(&u, &b, isnan(t) ? 1.0 : t, &c, (toi_direction)dir, TOI_REF_FAST), TOI_OK);
      if (isnan(t)) {
        cr_assert(isnan(u) && isnan(b));
        continue;
      }
      if (isinf(t)) {
        cr_assert(u == 0 && b == 0);
        continue;
      }
      checked++;
      cr_assert(u <= 0.5 && b == 0, "RN #%ld dir %d: ulp %a bits %g\n" SEED_MSG, i, dir, u, b, SEED_ARGS);
      /* Next to RN(t*): one ulp of t* off, give or take a half; two and a
       * half when RN(t*) is a power of two reached from the binade below. */
      double hi = props_is_pow2(t) ? 2.5 : 1.5;
      double nb[2] = {nextafter(t, INFINITY), nextafter(t, -INFINITY)};
      for (int j = 0; j < 2; j++) {
        if (isinf(nb[j])) continue;
        cr_assert_eq(tr_error_engine(&u, &b, nb[j], &c, (toi_direction)dir, TOI_REF_FAST), TOI_OK);
        cr_assert(b == 1 && u >= 0.5 && u <= hi, "neighbour #%ld dir %d: T %a t %a ulp %a bits %g\n" SEED_MSG, i, dir,
                  nb[j], t, u, b, SEED_ARGS);
      }
    }
  }
  cr_assert_gt(checked, n / 4);
}

/* |T - t*| / ulp(t*) against the naive root evaluated at high precision. */
Test(reference_random, error_against_naive) {
  tr_rng r = props_rng(0xbbbb);
  long n = 300 * tr_scale();
  mpfr_t t, d;
  mpfr_inits2(2000, t, d, (mpfr_ptr)0);
  for (long i = 0; i < n; i++) {
    toi_case c = props_case(&r, -30, 30, -30, 30);
    toi_ref x;
    cr_assert_eq(tr_solve_engine(&x, &c, TOI_REF_FAST), TOI_OK);
    if (isnan(x.tfwd) || x.tfwd == 0) continue;
    /* t* by the textbook formula, 2000 bits, data within 2^+-31: cancellation costs < 300 bits. */
    mpfr_t a, b, cc, s, v, w;
    mpfr_inits2(2000, a, b, cc, s, v, w, (mpfr_ptr)0);
    mpfr_set_zero(a, 1), mpfr_set_zero(b, 1), mpfr_set_zero(cc, 1);
    for (int k = 0; k < c.dim; k++) {
      mpfr_set_d(s, c.pb[k], MPFR_RNDN), mpfr_sub_d(s, s, c.pa[k], MPFR_RNDN);
      mpfr_set_d(v, c.vb[k], MPFR_RNDN), mpfr_sub_d(v, v, c.va[k], MPFR_RNDN);
      mpfr_fma(a, v, v, a, MPFR_RNDN), mpfr_fma(b, s, v, b, MPFR_RNDN), mpfr_fma(cc, s, s, cc, MPFR_RNDN);
    }
    mpfr_set_d(w, c.ra, MPFR_RNDN), mpfr_add_d(w, w, c.rb, MPFR_RNDN), mpfr_sqr(w, w, MPFR_RNDN);
    mpfr_sub(cc, cc, w, MPFR_RNDN);
    mpfr_sqr(w, b, MPFR_RNDN), mpfr_mul(s, a, cc, MPFR_RNDN), mpfr_sub(w, w, s, MPFR_RNDN);
    mpfr_sqrt(w, w, MPFR_RNDN);
    mpfr_neg(t, b, MPFR_RNDN);
    if (x.fwd_is_lo) mpfr_sub(t, t, w, MPFR_RNDN);
    else mpfr_add(t, t, w, MPFR_RNDN);
    mpfr_div(t, t, a, MPFR_RNDN);
    mpfr_clears(a, b, cc, s, v, w, (mpfr_ptr)0);
    long e = mpfr_get_exp(t) - 1;
    if (e < -1022) e = -1022;
    if (e > 1023) e = 1023;
    double Ts[3] = {x.tfwd, x.tfwd * (1 + 0x1p-30), x.tfwd + ldexp(1, (int)e - 52) * (double)tr_int(&r, 2, 1000)};
    for (int j = 0; j < 3; j++) {
      if (!isfinite(Ts[j])) continue;
      double u, bits;
      cr_assert_eq(tr_error_engine(&u, &bits, Ts[j], &c, TOI_FORWARD, TOI_REF_FAST), TOI_OK);
      mpfr_set_d(d, Ts[j], MPFR_RNDN);
      mpfr_sub(d, d, t, MPFR_RNDN);
      mpfr_abs(d, d, MPFR_RNDN);
      mpfr_mul_2si(d, d, 52 - e, MPFR_RNDN);
      double want = mpfr_get_d(d, MPFR_RNDN);
      cr_assert(fabs(u - want) <= 1e-9 * want || (want == 0 && u == 0),
                "error #%ld T %a: %.17g vs %.17g\n" SEED_MSG, i, Ts[j], u, want, SEED_ARGS);
    }
  }
  mpfr_clears(t, d, (mpfr_ptr)0);
}
