/* ref_load.c: a case as exact scaled integers (GMP) and its class decided exactly. */
#include <limits.h>
#include <math.h>
#include "ref_mpfr.h"

_Static_assert(LONG_MAX >= (1LL << 53), "mpz_set_si must hold a 54-bit integer");

/* x = m 2^e with m odd (or zero): the smallest integer that carries x. */
typedef struct ref_dyadic {
  long m;
  long e;
} ref_dyadic;

static ref_dyadic ref_split(double x) {
  ref_dyadic d = {0, 0};
  if (x == 0) return d;
  int E;
  double f = frexp(x, &E); /* exact, subnormals included: 0.5 <= |f| < 1 */
  long m = (long)ldexp(f, 53);
  long e = (long)E - 53;
  /* Odd mantissas keep the integers short: 1.0 becomes 1, not 2^52. */
  int tz = __builtin_ctzl((unsigned long)(m < 0 ? -m : m));
  d.m = m / (1L << tz);
  d.e = e + tz;
  return d;
}

static void ref_min_exp(long *emin, int *any, ref_dyadic d) {
  if (d.m == 0) return;
  if (!*any || d.e < *emin) *emin = d.e;
  *any = 1;
}

/* z = d 2^-base, an exact integer since base <= d.e. */
static void ref_set_scaled(mpz_ptr z, ref_dyadic d, long base) {
  mpz_set_si(z, d.m);
  if (d.m) mpz_mul_2exp(z, z, (mp_bitcnt_t)(d.e - base));
}

toi_status ref_load(ref_ctx *x, const toi_case *c, const double *delta) {
  int n = c->dim;
  ref_dyadic pa[3], pb[3], va[3], vb[3], r[3];
  int nr = delta ? 3 : 2;
  long ep = 0, ev = 0;
  int anyp = 0, anyv = 0;
  for (int i = 0; i < n; i++) {
    pa[i] = ref_split(c->pa[i]);
    pb[i] = ref_split(c->pb[i]);
    va[i] = ref_split(c->va[i]);
    vb[i] = ref_split(c->vb[i]);
    ref_min_exp(&ep, &anyp, pa[i]);
    ref_min_exp(&ep, &anyp, pb[i]);
    ref_min_exp(&ev, &anyv, va[i]);
    ref_min_exp(&ev, &anyv, vb[i]);
  }
  r[0] = ref_split(c->ra);
  r[1] = ref_split(c->rb);
  if (delta) r[2] = ref_split(*delta);
  for (int k = 0; k < nr; k++) ref_min_exp(&ep, &anyp, r[k]);
  x->n = n;
  x->ep = ep;
  x->ev = ev;

  mpz_ptr t = x->z[0];
  for (int i = 0; i < n; i++) {
    ref_set_scaled(t, pa[i], ep);
    ref_set_scaled(x->s[i], pb[i], ep);
    mpz_sub(x->s[i], x->s[i], t);
    ref_set_scaled(t, va[i], ev);
    ref_set_scaled(x->v[i], vb[i], ev);
    mpz_sub(x->v[i], x->v[i], t);
  }
  ref_set_scaled(x->R, r[0], ep);
  for (int k = 1; k < nr; k++) {
    ref_set_scaled(t, r[k], ep);
    mpz_add(x->R, x->R, t);
  }
  if (mpz_sgn(x->R) < 0) return TOI_ERR_RANGE;

  mpz_mul(x->A, x->v[0], x->v[0]);
  mpz_mul(x->B, x->s[0], x->v[0]);
  mpz_mul(x->C, x->s[0], x->s[0]);
  for (int i = 1; i < n; i++) {
    mpz_addmul(x->A, x->v[i], x->v[i]);
    mpz_addmul(x->B, x->s[i], x->v[i]);
    mpz_addmul(x->C, x->s[i], x->s[i]);
  }
  mpz_submul(x->C, x->R, x->R);

  /* D only matters when there is motion; then it decides roots and class. */
  int sa = mpz_sgn(x->A), sb = mpz_sgn(x->B), sc = mpz_sgn(x->C), sd = 0;
  if (sa > 0) {
    mpz_mul(x->D, x->B, x->B);
    mpz_submul(x->D, x->A, x->C);
    sd = mpz_sgn(x->D);
  } else {
    mpz_set_ui(x->D, 0);
  }
  x->cls = ref_classify(sa, sb, sc, sd);

  x->has_roots = sa > 0 && sd >= 0;
  x->rational = 0;
  if (x->has_roots && mpz_perfect_square_p(x->D)) {
    mpz_sqrt(x->Q, x->D);
    x->rational = 1;
  }
  return TOI_OK;
}
