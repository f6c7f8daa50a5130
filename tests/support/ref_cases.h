/* ref_cases.h: cases and checks the reference's test files share: both engines on one case, cases built from the maths, exact rational roots rounded to binary32. */
#ifndef TESTS_SUPPORT_REF_CASES_H
#define TESTS_SUPPORT_REF_CASES_H

#include <criterion/criterion.h>
#include <float.h>
#include <gmp.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "exact_quad.h"
#include "reference_check.h"
#include "ref_forms.h"

/*
 * rf_*: the fast and the MPFR engine on one case, and cases along a line
 * with answers known in closed form (tests/reference/fast/). props_*: random
 * cases over chosen exponent ranges, every other one aimed
 * (tests/reference/mpfr/). tp_*: the roots of a case as exact rationals when
 * D is a perfect square (GMP), rounded to binary32 by integer arithmetic, and
 * the four paths (per call and batch, both engines) that must give one
 * binary32 answer (tests/reference/fast/test_ref_fast_prec.c,
 * mpfr/test_ref_error.c).
 */

static inline void rf_show(char *buf, size_t n, const toi_ref *r) {
  snprintf(buf, n, "%s %a %a %a %a fwd %d rev %d", toi_class_name(r->cls), r->tlo, r->thi, r->tfwd, r->trev,
           r->fwd_is_lo, r->rev_is_lo);
}

/* Both engines on one case (delta NULL: no target); returns the status and,
 * when mo is not NULL, the MPFR engine's answer in *mo. */
static inline toi_status rf_check_keep(const toi_case *c, const double *delta, const char *where, toi_ref *mo) {
  toi_ref f, m;
  memset(&f, 0x55, sizeof f); /* garbage, so that a field left unset shows */
  memset(&m, 0x55, sizeof m);
  toi_status sf = delta ? tr_solve_target_engine(&f, c, *delta, TOI_REF_FAST)
                        : tr_solve_engine(&f, c, TOI_REF_FAST);
  toi_status sm = delta ? tr_solve_target_engine(&m, c, *delta, TOI_REF_MPFR)
                        : tr_solve_engine(&m, c, TOI_REF_MPFR);
  cr_assert_eq(sf, sm, "%s: status fast %d, mpfr %d on %s delta %a", where, (int)sf, (int)sm, tr_fmt(c),
               delta ? *delta : 0.0);
  if (!tr_same_ref(&f, &m)) {
    char a[256], b[256];
    rf_show(a, sizeof a, &f);
    rf_show(b, sizeof b, &m);
    cr_assert_fail("%s: engines differ on\n  %s (delta %a)\n  fast: %s\n  mpfr: %s", where, tr_fmt(c),
                   delta ? *delta : 0.0, a, b);
  }
  if (mo) *mo = m;
  return sf;
}

static inline toi_status rf_check(const toi_case *c, const double *delta, const char *where) {
  return rf_check_keep(c, delta, where, NULL);
}

/* A on the origin at rest, B at s moving v; radii 2^k and 2^(k+1) (R = 3 2^k),
 * along axis ax (0..2) in 3D, or in the plane in 2D. */
static inline toi_case rf_line(int dim, int ax, double s0, double s1, double v0, double v1, int k) {
  toi_case c;
  memset(&c, 0, sizeof c);
  strcpy(c.id, "exact");
  c.dim = dim;
  int ay = (ax + 1) % dim;
  c.pb[ax] = s0, c.pb[ay] = s1;
  c.vb[ax] = v0, c.vb[ay] = v1;
  c.ra = ldexp(1.0, k), c.rb = ldexp(1.0, k + 1);
  c.ma = c.mb = 1;
  return c;
}

static inline void rf_expect(const toi_case *c, toi_class cls, double tlo, double thi, const char *what) {
  toi_ref f;
  cr_assert_eq(tr_solve_engine(&f, c, TOI_REF_FAST), TOI_OK);
  rf_check(c, NULL, what);
  cr_expect_eq(f.cls, cls, "%s: class %s, expected %s on %s", what, toi_class_name(f.cls), toi_class_name(cls),
               tr_fmt(c));
  if (!isnan(tlo)) cr_expect(tr_same(f.tlo, tlo), "%s: tlo %a, expected %a on %s", what, f.tlo, tlo, tr_fmt(c));
  if (!isnan(thi)) cr_expect(tr_same(f.thi, thi), "%s: thi %a, expected %a on %s", what, f.thi, thi, tr_fmt(c));
}

/* Every test draws from its own stream: seed ^ a per-test constant, so that
 * one failure is reproduced by TOI_TEST_SEED alone. */
static inline tr_rng props_rng(uint64_t salt) {
  tr_rng r = {tr_seed() ^ salt};
  return r;
}

/* A random case whose lengths have exponents in [pl, ph] and velocities in
 * [vl, vh]; every other one is aimed so that roots are common. */
static inline toi_case props_case(tr_rng *r, int pl, int ph, int vl, int vh) {
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

/* The roots of a case as rationals when D is a perfect square (returns 1). */
static inline int tp_exact_roots(mpq_t lo, mpq_t hi, const toi_case *c) {
  mpq_t t, a, b, cc, D;
  mpq_inits(t, a, b, cc, D, (mpq_ptr)0);
  tq_abcd(c, a, b, cc, D);
  int ok = mpq_sgn(a) > 0 && mpq_sgn(D) >= 0 && mpz_perfect_square_p(mpq_numref(D)) &&
           mpz_perfect_square_p(mpq_denref(D));
  if (ok) {
    mpz_sqrt(mpq_numref(t), mpq_numref(D));
    mpz_sqrt(mpq_denref(t), mpq_denref(D));
    mpq_canonicalize(t);
    mpq_neg(b, b);
    mpq_sub(lo, b, t);
    mpq_div(lo, lo, a);
    mpq_add(hi, b, t);
    mpq_div(hi, hi, a);
  }
  mpq_clears(t, a, b, cc, D, (mpq_ptr)0);
  return ok;
}

/* floor(log2 |x|) for x != 0. */
static inline long tp_ilog2(const mpq_t x) {
  mpz_t n;
  mpz_init(n);
  mpz_abs(n, mpq_numref(x));
  long e = (long)mpz_sizeinbase(n, 2) - (long)mpz_sizeinbase(mpq_denref(x), 2);
  /* compare |x| with 2^e */
  mpz_t l, r;
  mpz_inits(l, r, (mpz_ptr)0);
  mpz_set(l, n);
  mpz_set(r, mpq_denref(x));
  if (e >= 0)
    mpz_mul_2exp(r, r, (mp_bitcnt_t)e);
  else
    mpz_mul_2exp(l, l, (mp_bitcnt_t)-e);
  if (mpz_cmp(l, r) < 0) e--;
  mpz_clears(n, l, r, (mpz_ptr)0);
  return e;
}

/* The exponent of the binary32 quantum at x: ulp32(x) = 2^tp_q32(x). */
static inline long tp_q32(const mpq_t x) {
  long e = mpq_sgn(x) ? tp_ilog2(x) : -126;
  if (e < -126) e = -126;
  if (e > 127) e = 127;
  return e - 23;
}

/* RN32(x) by integer arithmetic: m = floor(|x| 2^-qe), ties to even. */
static inline double tp_rn32(const mpq_t x) {
  if (mpq_sgn(x) == 0) return 0.0;
  long qe = tp_q32(x);
  mpz_t n, d, m, r;
  mpz_inits(n, d, m, r, (mpz_ptr)0);
  mpz_abs(n, mpq_numref(x));
  mpz_set(d, mpq_denref(x));
  if (qe >= 0)
    mpz_mul_2exp(d, d, (mp_bitcnt_t)qe);
  else
    mpz_mul_2exp(n, n, (mp_bitcnt_t)-qe);
  mpz_fdiv_qr(m, r, n, d);
  mpz_mul_2exp(r, r, 1);
  int cmp = mpz_cmp(r, d);
  if (cmp > 0 || (cmp == 0 && mpz_odd_p(m))) mpz_add_ui(m, m, 1);
  double y = ldexp(mpz_get_d(m), (int)qe); /* m <= 2^24: exact */
  if (y > FLT_MAX) y = INFINITY;
  mpz_clears(n, d, m, r, (mpz_ptr)0);
  return mpq_sgn(x) < 0 ? -y : y;
}

/* The engines' binary32 answers (per call, both engines; batch, both
 * engines) are one answer; returned in *out. */
static inline void tp_solve(toi_ref *out, const toi_case *c, const char *what) {
  toi_ref r[4];
  toi_status st[4];
  memset(r, 0x55, sizeof r);
  st[0] = tr_solve_prec(&r[0], c, TOI_BINARY32, TOI_REF_FAST);
  st[1] = tr_solve_prec(&r[1], c, TOI_BINARY32, TOI_REF_MPFR);
  (void)tr_batch_prec(&r[2], &st[2], c, 1, TOI_BINARY32, TOI_REF_FAST);
  (void)tr_batch_prec(&r[3], &st[3], c, 1, TOI_BINARY32, TOI_REF_MPFR);
  for (int k = 0; k < 4; k++) {
    cr_assert_eq(st[k], TOI_OK, "%s: status %d (path %d) on %s", what, (int)st[k], k, tr_fmt(c));
    cr_assert(tr_same_ref(&r[k], &r[1]), "%s: path %d gives %a %a, mpfr %a %a on %s", what, k, r[k].tlo,
              r[k].thi, r[1].tlo, r[1].thi, tr_fmt(c));
  }
  *out = r[1];
}

/* B at (s0, 0) moving (v0, 0), A at rest at the origin; radii R/2 each
 * (exact for the powers of two and sums used here: R is passed as ra, rb). */
static inline toi_case tp_axis(double s0, double v0, double ra, double rb) {
  return tr_rel2(s0, 0, v0, 0, ra, rb);
}

#endif
