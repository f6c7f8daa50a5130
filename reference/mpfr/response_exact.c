/* response_exact.c: certified collision response in GMP/MPFR: contact, normal, impulse, energy, walls. */
#include <math.h>
#include <string.h>
#include "ref_mpfr.h"
#include "toiresp.h"

/* Precision cap of the Ziv loops. The values are algebraic numbers of bounded
   height built from finite doubles, so the loops end well before it; reaching
   it would be a bug, reported as TOI_ERR_RANGE rather than looping. */
#define PREC_START 96
#define PREC_MAX (1L << 18)

/* ---- exact numbers of the form (X + Y sqrt(D)) / Z * 2^k ---- */

/* D is shared by every output of one response; when it is a perfect square
   the outputs are rational and are rounded from exact rationals. */
typedef struct rootd {
  mpz_t d;         /* D >= 0 */
  mpz_t sq;        /* sqrt(D) when D is a perfect square */
  int square;
  mpfr_t dm;       /* D as an exact MPFR number */
  mpfr_t rl, rh;   /* sqrt(D) rounded down and up at precision prec */
  mpfr_prec_t prec;
} rootd;

typedef struct qs {
  mpz_t x, y, z;   /* z != 0 */
  long k;
} qs;

static void rootd_init(rootd *r, const mpz_t d) {
  mpz_init_set(r->d, d);
  mpz_init(r->sq);
  r->square = mpz_sgn(d) >= 0 && mpz_perfect_square_p(d);
  if (r->square) mpz_sqrt(r->sq, d);
  size_t bits = mpz_sizeinbase(d, 2);
  mpfr_init2(r->dm, (mpfr_prec_t)(bits < 2 ? 2 : bits));
  mpfr_set_z(r->dm, d, MPFR_RNDN); /* exact: the precision holds every bit */
  mpfr_init2(r->rl, PREC_START);
  mpfr_init2(r->rh, PREC_START);
  r->prec = 0;
}

static void rootd_clear(rootd *r) {
  mpz_clear(r->d);
  mpz_clear(r->sq);
  mpfr_clear(r->dm);
  mpfr_clear(r->rl);
  mpfr_clear(r->rh);
}

static void rootd_at(rootd *r, mpfr_prec_t p) {
  if (r->prec == p) return;
  mpfr_set_prec(r->rl, p);
  mpfr_set_prec(r->rh, p);
  mpfr_sqrt(r->rl, r->dm, MPFR_RNDD);
  mpfr_sqrt(r->rh, r->dm, MPFR_RNDU);
  r->prec = p;
}

static void qs_init(qs *q) {
  mpz_init(q->x);
  mpz_init(q->y);
  mpz_init_set_ui(q->z, 1);
  q->k = 0;
}

static void qs_clear(qs *q) {
  mpz_clear(q->x);
  mpz_clear(q->y);
  mpz_clear(q->z);
}

/* The exact value as a rational, when it is one (Y = 0 or D a square). */
static int qs_rational(mpq_t out, const qs *q, const rootd *r) {
  if (mpz_sgn(q->y) != 0 && !r->square) return 0;
  mpz_t num;
  mpz_init(num);
  if (mpz_sgn(q->y) != 0) mpz_mul(num, q->y, r->sq);
  mpz_add(num, num, q->x);
  mpq_set_num(out, num);
  mpq_set_den(out, q->z);
  if (mpz_sgn(q->z) < 0) {
    mpz_neg(mpq_numref(out), mpq_numref(out));
    mpz_neg(mpq_denref(out), mpq_denref(out));
  }
  mpq_canonicalize(out);
  if (q->k > 0) mpq_mul_2exp(out, out, (mp_bitcnt_t)q->k);
  if (q->k < 0) mpq_div_2exp(out, out, (mp_bitcnt_t)-q->k);
  mpz_clear(num);
  return 1;
}

/* Encloses the value in [lo, hi] (precision p) by directed rounding of every
   operation; lo == hi when the value is exactly representable. */
static void qs_bounds(mpfr_t lo, mpfr_t hi, const qs *q, rootd *r, mpfr_prec_t p) {
  mpfr_set_prec(lo, p);
  mpfr_set_prec(hi, p);
  mpq_t e;
  mpq_init(e);
  if (qs_rational(e, q, r)) {
    mpfr_set_q(lo, e, MPFR_RNDD);
    mpfr_set_q(hi, e, MPFR_RNDU);
    mpq_clear(e);
    return;
  }
  mpq_clear(e);
  rootd_at(r, p);
  int ys = mpz_sgn(q->y);
  mpfr_mul_z(lo, ys > 0 ? r->rl : r->rh, q->y, MPFR_RNDD);
  mpfr_mul_z(hi, ys > 0 ? r->rh : r->rl, q->y, MPFR_RNDU);
  mpfr_add_z(lo, lo, q->x, MPFR_RNDD);
  mpfr_add_z(hi, hi, q->x, MPFR_RNDU);
  if (mpz_sgn(q->z) > 0) {
    mpfr_div_z(lo, lo, q->z, MPFR_RNDD);
    mpfr_div_z(hi, hi, q->z, MPFR_RNDU);
  } else {
    mpfr_div_z(lo, lo, q->z, MPFR_RNDU); /* lo/z >= hi/z: swap the ends */
    mpfr_div_z(hi, hi, q->z, MPFR_RNDD);
    mpfr_swap(lo, hi);
  }
  mpfr_mul_2si(lo, lo, q->k, MPFR_RNDD); /* exact: MPFR's exponent range is wide */
  mpfr_mul_2si(hi, hi, q->k, MPFR_RNDU);
}

/* Correct rounding to double: RN is monotone, so when both ends of an
   enclosure round to the same double (same sign of zero too), so does the
   exact value. */
static int qs_round(double *out, const qs *q, rootd *r) {
  mpfr_t lo, hi;
  mpfr_inits2(PREC_START, lo, hi, (mpfr_ptr)0);
  int ok = 0;
  for (mpfr_prec_t p = PREC_START; p <= PREC_MAX; p *= 2) {
    qs_bounds(lo, hi, q, r, p);
    double dl = mpfr_get_d(lo, MPFR_RNDN), dh = mpfr_get_d(hi, MPFR_RNDN);
    if (dl == dh && signbit(dl) == signbit(dh)) {
      *out = dl;
      ok = 1;
      break;
    }
  }
  mpfr_clears(lo, hi, (mpfr_ptr)0);
  if (!ok) *out = NAN;
  return ok;
}

/* A close approximation (relative error about 2^-p) for metrics that only
   need their printed digits. */
static void qs_approx(mpfr_t out, const qs *q, rootd *r, mpfr_prec_t p) {
  mpfr_t lo, hi;
  mpfr_inits2(p, lo, hi, (mpfr_ptr)0);
  qs_bounds(lo, hi, q, r, p);
  mpfr_set_prec(out, p);
  mpfr_add(out, lo, hi, MPFR_RNDN);
  mpfr_div_2ui(out, out, 1, MPFR_RNDN);
  mpfr_clears(lo, hi, (mpfr_ptr)0);
}

/* ulp(x) = 2^(max(e,-1022)-52) for 2^e <= |x| < 2^(e+1), as toi_ref_error; a
   value beyond DBL_MAX takes the ulp of DBL_MAX (2^971). */
static long ulp_exp_of(const mpfr_t x) {
  if (mpfr_zero_p(x)) return -1074;
  long e = (long)mpfr_get_exp(x) - 1;
  if (e > 1023) e = 1023;
  if (e < -1022) e = -1022;
  return e - 52;
}

/* |T - Q| / ulp(Q), right to about 2^-30 relative. */
static int qs_ulp_err(double *out, double T, const qs *q, rootd *r) {
  if (isnan(T)) {
    *out = NAN;
    return 1;
  }
  if (isinf(T)) {
    *out = INFINITY;
    return 1;
  }
  mpfr_t lo, hi, d1, d2, t;
  mpfr_inits2(PREC_START, lo, hi, d1, d2, (mpfr_ptr)0);
  mpfr_init2(t, 53);
  mpfr_set_d(t, T, MPFR_RNDN);
  int ok = 0;
  for (mpfr_prec_t p = PREC_START; p <= PREC_MAX; p *= 2) {
    qs_bounds(lo, hi, q, r, p);
    int exact = mpfr_equal_p(lo, hi);
    if (!exact) {
      /* the exponent of Q and the sign of T - Q must be known */
      if (mpfr_sgn(lo) != mpfr_sgn(hi) || mpfr_zero_p(lo) || mpfr_zero_p(hi)) continue;
      if (mpfr_get_exp(lo) != mpfr_get_exp(hi)) continue;
      if (mpfr_cmp(t, lo) >= 0 && mpfr_cmp(t, hi) <= 0) continue;
    }
    mpfr_set_prec(d1, p + 64);
    mpfr_set_prec(d2, p + 64);
    mpfr_sub(d1, t, lo, MPFR_RNDN);
    mpfr_sub(d2, t, hi, MPFR_RNDN);
    mpfr_abs(d1, d1, MPFR_RNDN);
    mpfr_abs(d2, d2, MPFR_RNDN);
    if (!exact) {
      /* accept when both ends give the same error to 2^-30 */
      mpfr_t w;
      mpfr_init2(w, p + 64);
      mpfr_sub(w, d1, d2, MPFR_RNDN);
      mpfr_abs(w, w, MPFR_RNDN);
      mpfr_mul_2si(w, w, 30, MPFR_RNDN);
      int tight = mpfr_cmp(w, d1) <= 0 && mpfr_cmp(w, d2) <= 0;
      mpfr_clear(w);
      if (!tight) continue;
    }
    mpfr_add(d1, d1, d2, MPFR_RNDN);
    mpfr_div_2ui(d1, d1, 1, MPFR_RNDN);
    mpfr_mul_2si(d1, d1, -ulp_exp_of(lo), MPFR_RNDN);
    *out = mpfr_get_d(d1, MPFR_RNDN);
    ok = 1;
    break;
  }
  mpfr_clears(lo, hi, d1, d2, t, (mpfr_ptr)0);
  if (!ok) *out = NAN;
  return ok;
}

/* A rational rounded to double (correctly: RN of its directed roundings). */
static double q_round(const mpq_t v) {
  qs q;
  qs_init(&q);
  mpz_set(q.x, mpq_numref(v));
  mpz_set(q.z, mpq_denref(v));
  mpz_t zero;
  mpz_init(zero);
  rootd r;
  rootd_init(&r, zero);
  double d;
  qs_round(&d, &q, &r);
  rootd_clear(&r);
  mpz_clear(zero);
  qs_clear(&q);
  return d;
}

/* ---- the exact case ---- */

/* Positions, velocities and radii as integers times 2^k, with one k for all
   of them, so s, v, R, a, b, c, D are exact integers (2^k, 2^2k, 2^4k). */
typedef struct exact {
  int dim;
  long k;
  mpz_t pa[3], pb[3], va[3], vb[3], ra, rb;
  mpz_t s[3], v[3], R, a, b, c, d;
  mpq_t ma, mb, e1;  /* masses and 1 + E */
  toi_class cls;
} exact;

static long lsb_exp(double x) {
  int e;
  frexp(x, &e);
  return (long)e - 53;
}

static void to_int(mpz_t z, double x, long k) {
  if (x == 0) {
    mpz_set_ui(z, 0);
    return;
  }
  int e;
  double f = frexp(x, &e);
  mpz_set_d(z, ldexp(f, 53)); /* the 53-bit integer mantissa, exact */
  mpz_mul_2exp(z, z, (mp_bitcnt_t)((long)e - 53 - k));
}

static int case_finite(const toi_case *c) {
  for (int i = 0; i < 3; i++)
    if (!isfinite(c->pa[i]) || !isfinite(c->pb[i]) || !isfinite(c->va[i]) || !isfinite(c->vb[i]))
      return 0;
  return isfinite(c->ra) && isfinite(c->rb) && isfinite(c->ma) && isfinite(c->mb) && c->ra >= 0 &&
         c->rb >= 0 && c->ma > 0 && c->mb > 0 && (c->dim == 2 || c->dim == 3);
}

static void exact_init(exact *x, const toi_case *c, double E) {
  x->dim = c->dim;
  const double *all[4] = {c->pa, c->pb, c->va, c->vb};
  long k = 0;
  int any = 0;
  for (int q = 0; q < 4; q++)
    for (int i = 0; i < c->dim; i++)
      if (all[q][i] != 0) {
        long e = lsb_exp(all[q][i]);
        if (!any || e < k) k = e;
        any = 1;
      }
  double radii[2] = {c->ra, c->rb};
  for (int i = 0; i < 2; i++)
    if (radii[i] != 0) {
      long e = lsb_exp(radii[i]);
      if (!any || e < k) k = e;
      any = 1;
    }
  x->k = k;
  for (int i = 0; i < 3; i++) {
    mpz_inits(x->pa[i], x->pb[i], x->va[i], x->vb[i], x->s[i], x->v[i], (mpz_ptr)0);
    if (i < c->dim) {
      to_int(x->pa[i], c->pa[i], k);
      to_int(x->pb[i], c->pb[i], k);
      to_int(x->va[i], c->va[i], k);
      to_int(x->vb[i], c->vb[i], k);
    }
    mpz_sub(x->s[i], x->pb[i], x->pa[i]);
    mpz_sub(x->v[i], x->vb[i], x->va[i]);
  }
  mpz_inits(x->ra, x->rb, x->R, x->a, x->b, x->c, x->d, (mpz_ptr)0);
  to_int(x->ra, c->ra, k);
  to_int(x->rb, c->rb, k);
  mpz_add(x->R, x->ra, x->rb);
  mpz_t t;
  mpz_init(t);
  mpz_mul(x->c, x->R, x->R);
  mpz_neg(x->c, x->c);
  for (int i = 0; i < x->dim; i++) {
    mpz_addmul(x->a, x->v[i], x->v[i]);
    mpz_addmul(x->b, x->s[i], x->v[i]);
    mpz_addmul(x->c, x->s[i], x->s[i]);
  }
  mpz_mul(x->d, x->b, x->b);
  mpz_mul(t, x->a, x->c);
  mpz_sub(x->d, x->d, t);
  mpz_clear(t);
  mpq_inits(x->ma, x->mb, x->e1, (mpq_ptr)0);
  mpq_set_d(x->ma, c->ma);
  mpq_set_d(x->mb, c->mb);
  mpq_set_d(x->e1, E);
  mpq_t one;
  mpq_init(one);
  mpq_set_ui(one, 1, 1);
  mpq_add(x->e1, x->e1, one);
  mpq_clear(one);
  x->cls = ref_classify(mpz_sgn(x->a), mpz_sgn(x->b), mpz_sgn(x->c), mpz_sgn(x->d));
}

static void exact_clear(exact *x) {
  for (int i = 0; i < 3; i++)
    mpz_clears(x->pa[i], x->pb[i], x->va[i], x->vb[i], x->s[i], x->v[i], (mpz_ptr)0);
  mpz_clears(x->ra, x->rb, x->R, x->a, x->b, x->c, x->d, (mpz_ptr)0);
  mpq_clears(x->ma, x->mb, x->e1, (mpq_ptr)0);
}

/* f = (1 + E) m_other / (mA + mB): the share of the impulse a ball takes. */
static void share(mpq_t f, const exact *x, const mpq_t other) {
  mpq_t sum;
  mpq_init(sum);
  mpq_add(sum, x->ma, x->mb);
  mpq_div(f, other, sum);
  mpq_mul(f, f, x->e1);
  mpq_clear(sum);
}

/* mu = mA mB / (mA + mB) */
static void reduced_mass(mpq_t mu, const exact *x) {
  mpq_t sum;
  mpq_init(sum);
  mpq_add(sum, x->ma, x->mb);
  mpq_mul(mu, x->ma, x->mb);
  mpq_div(mu, mu, sum);
  mpq_clear(sum);
}

/* The outputs at the exact root, as (X + Y sqrt D)/Z 2^k. */
typedef struct at_root {
  qs t, pa[3], pb[3], n[3], va[3], vb[3], j;
} at_root;

static void at_root_build(at_root *o, const exact *x) {
  int dim = x->dim;
  mpz_t w, ar2, tmp;
  mpz_inits(w, ar2, tmp, (mpz_ptr)0);
  qs_init(&o->t);
  qs_init(&o->j);
  /* t* = (-b - sqrt D)/a */
  mpz_neg(o->t.x, x->b);
  mpz_set_si(o->t.y, -1);
  mpz_set(o->t.z, x->a);
  mpz_mul(ar2, x->R, x->R);
  mpz_mul(ar2, ar2, x->a);
  mpq_t fa, fb, g;
  mpq_inits(fa, fb, g, (mpq_ptr)0);
  share(fa, x, x->mb);
  share(fb, x, x->ma);
  reduced_mass(g, x);
  mpq_mul(g, g, x->e1);
  for (int i = 0; i < 3; i++) {
    qs_init(&o->pa[i]);
    qs_init(&o->pb[i]);
    qs_init(&o->n[i]);
    qs_init(&o->va[i]);
    qs_init(&o->vb[i]);
    if (i >= dim) continue;
    /* p(t*) = (a p - b v - v sqrt D)/a */
    mpz_mul(o->pa[i].x, x->a, x->pa[i]);
    mpz_submul(o->pa[i].x, x->b, x->va[i]);
    mpz_neg(o->pa[i].y, x->va[i]);
    mpz_set(o->pa[i].z, x->a);
    o->pa[i].k = x->k;
    mpz_mul(o->pb[i].x, x->a, x->pb[i]);
    mpz_submul(o->pb[i].x, x->b, x->vb[i]);
    mpz_neg(o->pb[i].y, x->vb[i]);
    mpz_set(o->pb[i].z, x->a);
    o->pb[i].k = x->k;
    /* n = (a s - b v - v sqrt D)/(a R) */
    mpz_mul(w, x->a, x->s[i]);
    mpz_submul(w, x->b, x->v[i]);
    mpz_set(o->n[i].x, w);
    mpz_neg(o->n[i].y, x->v[i]);
    mpz_mul(o->n[i].z, x->a, x->R);
    /* j n = (1+E) mu [sqrt D (a s - b v) - D v]/(a R^2):
       vA' = [vA a R^2 fa_d + fa_n D v - fa_n w sqrt D]/(a R^2 fa_d), vB' likewise */
    mpz_mul(o->va[i].z, ar2, mpq_denref(fa));
    mpz_mul(o->va[i].x, x->va[i], o->va[i].z);
    mpz_mul(tmp, mpq_numref(fa), x->d);
    mpz_addmul(o->va[i].x, tmp, x->v[i]);
    mpz_mul(o->va[i].y, mpq_numref(fa), w);
    mpz_neg(o->va[i].y, o->va[i].y);
    o->va[i].k = x->k;
    mpz_mul(o->vb[i].z, ar2, mpq_denref(fb));
    mpz_mul(o->vb[i].x, x->vb[i], o->vb[i].z);
    mpz_mul(tmp, mpq_numref(fb), x->d);
    mpz_submul(o->vb[i].x, tmp, x->v[i]);
    mpz_mul(o->vb[i].y, mpq_numref(fb), w);
    o->vb[i].k = x->k;
  }
  /* j = (1+E) mu sqrt(D)/R */
  mpz_set(o->j.y, mpq_numref(g));
  mpz_mul(o->j.z, mpq_denref(g), x->R);
  o->j.k = x->k;
  mpq_clears(fa, fb, g, (mpq_ptr)0);
  mpz_clears(w, ar2, tmp, (mpz_ptr)0);
}

static void at_root_clear(at_root *o) {
  qs_clear(&o->t);
  qs_clear(&o->j);
  for (int i = 0; i < 3; i++) {
    qs_clear(&o->pa[i]);
    qs_clear(&o->pb[i]);
    qs_clear(&o->n[i]);
    qs_clear(&o->va[i]);
    qs_clear(&o->vb[i]);
  }
}

/* KE = (mA |vA|^2 + mB |vB|^2)/2 from doubles taken as exact. */
static void kinetic(mpq_t ke, const exact *x, const double va[3], const double vb[3]) {
  mpq_t t, sa, sb;
  mpq_inits(t, sa, sb, (mpq_ptr)0);
  for (int i = 0; i < x->dim; i++) {
    mpq_set_d(t, va[i]);
    mpq_mul(t, t, t);
    mpq_add(sa, sa, t);
    mpq_set_d(t, vb[i]);
    mpq_mul(t, t, t);
    mpq_add(sb, sb, t);
  }
  mpq_mul(sa, sa, x->ma);
  mpq_mul(sb, sb, x->mb);
  mpq_add(ke, sa, sb);
  mpq_div_2exp(ke, ke, 1);
  mpq_clears(t, sa, sb, (mpq_ptr)0);
}

/* -(1 - E^2) mu q / 2 with q = (v.n)^2 */
static void energy_change(mpq_t dke, const exact *x, const mpq_t vn2) {
  mpq_t e, one, mu;
  mpq_inits(e, one, mu, (mpq_ptr)0);
  mpq_set_ui(one, 1, 1);
  mpq_sub(e, x->e1, one); /* E */
  mpq_mul(e, e, e);
  mpq_sub(e, one, e);     /* 1 - E^2 */
  reduced_mass(mu, x);
  mpq_mul(dke, e, mu);
  mpq_mul(dke, dke, vn2);
  mpq_neg(dke, dke);
  mpq_div_2exp(dke, dke, 1);
  mpq_clears(e, one, mu, (mpq_ptr)0);
}

/* (v.n)^2 = D/R^2 at the root, in real units (2^2k). */
static void vn2_at_root(mpq_t out, const exact *x) {
  mpz_t r2;
  mpz_init(r2);
  mpz_mul(r2, x->R, x->R);
  mpq_set_num(out, x->d);
  mpq_set_den(out, r2);
  mpq_canonicalize(out);
  long k2 = 2 * x->k;
  if (k2 > 0) mpq_mul_2exp(out, out, (mp_bitcnt_t)k2);
  if (k2 < 0) mpq_div_2exp(out, out, (mp_bitcnt_t)-k2);
  mpz_clear(r2);
}

static void resp_nan(toi_ref_resp *out) {
  out->applied = 0;
  out->t = out->j = out->ke0 = out->dke = out->ke1 = NAN;
  for (int i = 0; i < 3; i++)
    out->pa[i] = out->pb[i] = out->n[i] = out->va[i] = out->vb[i] = out->mom[i] = NAN;
}

/* The energy after (exact sum, one rounding) and the momentum, conserved
   exactly by the impulse, from the inputs. */
static void resp_totals(toi_ref_resp *out, const exact *x, const toi_case *c, const mpq_t ke0,
                        const mpq_t dke) {
  mpq_t t, u;
  mpq_inits(t, u, (mpq_ptr)0);
  mpq_add(t, ke0, dke);
  out->ke1 = q_round(t);
  for (int i = 0; i < 3; i++) {
    if (i >= c->dim) {
      out->mom[i] = 0;
      continue;
    }
    mpq_set_d(t, c->va[i]);
    mpq_mul(t, t, x->ma);
    mpq_set_d(u, c->vb[i]);
    mpq_mul(u, u, x->mb);
    mpq_add(t, t, u);
    out->mom[i] = q_round(t);
  }
  mpq_clears(t, u, (mpq_ptr)0);
}

static int valid_e(double E) { return E >= 0 && E <= 1; }

static toi_status response_exact(toi_ref_resp *out, const toi_case *c, double E) {
  resp_nan(out);
  out->cls = TOI_NONE;
  if (!case_finite(c) || !valid_e(E)) return TOI_ERR_RANGE;
  exact x;
  exact_init(&x, c, E);
  out->cls = x.cls;
  if (x.cls != TOI_HIT && x.cls != TOI_CONTACT && x.cls != TOI_GRAZE) {
    exact_clear(&x);
    return TOI_ERR_RANGE;
  }
  rootd r;
  rootd_init(&r, x.d);
  at_root o;
  at_root_build(&o, &x);
  int ok = qs_round(&out->t, &o.t, &r);
  for (int i = 0; i < 3; i++) {
    out->pa[i] = out->pb[i] = out->n[i] = 0;
    out->va[i] = i < c->dim ? c->va[i] : 0;
    out->vb[i] = i < c->dim ? c->vb[i] : 0;
  }
  out->applied = mpz_sgn(x.d) > 0; /* v.n = -sqrt(D)/R */
  for (int i = 0; i < c->dim; i++) {
    ok &= qs_round(&out->pa[i], &o.pa[i], &r);
    ok &= qs_round(&out->pb[i], &o.pb[i], &r);
    ok &= qs_round(&out->n[i], &o.n[i], &r);
    if (out->applied) {
      ok &= qs_round(&out->va[i], &o.va[i], &r);
      ok &= qs_round(&out->vb[i], &o.vb[i], &r);
    }
  }
  mpq_t ke, dke;
  mpq_inits(ke, dke, (mpq_ptr)0);
  kinetic(ke, &x, c->va, c->vb);
  out->ke0 = q_round(ke);
  if (out->applied) {
    ok &= qs_round(&out->j, &o.j, &r);
    mpq_t vn2;
    mpq_init(vn2);
    vn2_at_root(vn2, &x);
    energy_change(dke, &x, vn2);
    mpq_clear(vn2);
  } else {
    out->j = 0;
  }
  out->dke = q_round(dke);
  resp_totals(out, &x, c, ke, dke);
  mpq_clears(ke, dke, (mpq_ptr)0);
  at_root_clear(&o);
  rootd_clear(&r);
  exact_clear(&x);
  return ok ? TOI_OK : TOI_ERR_RANGE;
}

/* The exact centres qa, qb at T, s = qb - qa, v = vB - vA, ss = s.s and
 * w = s.v (ss and w start at 0) for the first dim components; the others of
 * qa, qb, s, v stay 0. tmp is scratch. */
static void at_centres(mpq_t *qa, mpq_t *qb, mpq_t *s, mpq_t *v, mpq_ptr ss, mpq_ptr w, mpq_ptr tmp,
                       const toi_case *c, mpq_srcptr tq) {
  for (int i = 0; i < c->dim; i++) {
    /* exact centres at T */
    mpq_set_d(tmp, c->va[i]);
    mpq_mul(qa[i], tmp, tq);
    mpq_set_d(tmp, c->pa[i]);
    mpq_add(qa[i], qa[i], tmp);
    mpq_set_d(tmp, c->vb[i]);
    mpq_mul(qb[i], tmp, tq);
    mpq_set_d(tmp, c->pb[i]);
    mpq_add(qb[i], qb[i], tmp);
    mpq_sub(s[i], qb[i], qa[i]);
    mpq_set_d(v[i], c->vb[i]);
    mpq_set_d(tmp, c->va[i]);
    mpq_sub(v[i], v[i], tmp);
    mpq_mul(tmp, s[i], s[i]);
    mpq_add(ss, ss, tmp);
    mpq_mul(tmp, s[i], v[i]);
    mpq_add(w, w, tmp);
  }
}

/* The impulse of response_at when the balls approach at T: the velocities
 * after it, j and the change of kinetic energy dke. qa is scratch; q holds
 * (x + y sqrt(Sn Sd))/z with r the root of Sn Sd. 0 when a rounding failed. */
static int at_impulse(toi_ref_resp *out, mpq_ptr dke, mpq_t *qa, const mpq_t *s, mpq_srcptr ss, mpq_srcptr w,
                      mpq_ptr f, mpq_ptr tmp, qs *q, rootd *r, const exact *x, const toi_case *c) {
  int dim = c->dim, ok = 1;
  /* j n / m = (1+E) m_other/(mA+mB) (v.s) s / S: rational, no square root */
  for (int side = 0; side < 2; side++) {
    share(f, x, side == 0 ? x->mb : x->ma);
    mpq_mul(f, f, w);
    mpq_div(f, f, ss);
    for (int i = 0; i < dim; i++) {
      mpq_mul(tmp, f, s[i]);
      mpq_set_d(qa[i], side == 0 ? c->va[i] : c->vb[i]);
      if (side == 0) mpq_add(qa[i], qa[i], tmp);
      else mpq_sub(qa[i], qa[i], tmp);
      if (side == 0) out->va[i] = q_round(qa[i]);
      else out->vb[i] = q_round(qa[i]);
    }
  }
  /* j = -(1+E) mu (v.s)/sqrt(S) = -(1+E) mu w sqrt(Sn Sd)/Sn */
  reduced_mass(f, x);
  mpq_mul(f, f, x->e1);
  mpq_mul(f, f, w);
  mpq_neg(f, f);
  mpz_set_ui(q->x, 0);
  mpz_set(q->y, mpq_numref(f));
  mpz_mul(q->z, mpq_denref(f), mpq_numref(ss));
  ok &= qs_round(&out->j, q, r);
  mpq_mul(tmp, w, w);
  mpq_div(tmp, tmp, ss);
  energy_change(dke, x, tmp);
  return ok;
}

/* The response at T from the exact centres there (at_centres), ss = s.s > 0:
 * the centres, the normal s / sqrt(ss), and the impulse when w = s.v < 0.
 * 0 when a rounding failed. */
static int at_respond(toi_ref_resp *out, mpq_t *qa, mpq_t *qb, const mpq_t *s, mpq_srcptr ss, mpq_srcptr w, mpq_ptr f,
                      mpq_ptr tmp, const exact *x, const toi_case *c) {
  int dim = c->dim, ok = 1;
  /* n = s/sqrt(S): with S = Sn/Sd, 1/sqrt(S) = sqrt(Sn Sd)/Sn */
  mpz_t dd;
  mpz_init(dd);
  mpz_mul(dd, mpq_numref(ss), mpq_denref(ss));
  rootd r;
  rootd_init(&r, dd);
  mpz_clear(dd);
  out->applied = mpq_sgn(w) < 0;
  for (int i = 0; i < 3; i++) {
    out->pa[i] = out->pb[i] = out->n[i] = 0;
    out->va[i] = i < dim ? c->va[i] : 0;
    out->vb[i] = i < dim ? c->vb[i] : 0;
  }
  qs q;
  qs_init(&q);
  for (int i = 0; i < dim; i++) {
    out->pa[i] = q_round(qa[i]);
    out->pb[i] = q_round(qb[i]);
    mpz_set_ui(q.x, 0);
    mpz_set(q.y, mpq_numref(s[i]));
    mpz_mul(q.z, mpq_denref(s[i]), mpq_numref(ss));
    ok &= qs_round(&out->n[i], &q, &r);
  }
  mpq_t ke, dke;
  mpq_inits(ke, dke, (mpq_ptr)0);
  kinetic(ke, x, c->va, c->vb);
  out->ke0 = q_round(ke);
  if (out->applied)
    ok &= at_impulse(out, dke, qa, s, ss, w, f, tmp, &q, &r, x, c);
  else
    out->j = 0;
  out->dke = q_round(dke);
  resp_totals(out, x, c, ke, dke);
  mpq_clears(ke, dke, (mpq_ptr)0);
  qs_clear(&q);
  rootd_clear(&r);
  return ok;
}

static toi_status response_at(toi_ref_resp *out, const toi_case *c, double E, double T) {
  resp_nan(out);
  out->cls = TOI_NONE;
  if (!case_finite(c) || !valid_e(E) || !isfinite(T)) return TOI_ERR_RANGE;
  exact x;
  exact_init(&x, c, E);
  out->cls = x.cls;
  out->t = T;
  mpq_t tq, qa[3], qb[3], s[3], v[3], ss, w, tmp, f;
  mpq_inits(tq, ss, w, tmp, f, (mpq_ptr)0);
  mpq_set_d(tq, T);
  for (int i = 0; i < 3; i++) mpq_inits(qa[i], qb[i], s[i], v[i], (mpq_ptr)0);
  at_centres(qa, qb, s, v, ss, w, tmp, c, tq);
  toi_status st = TOI_OK;
  if (mpq_sgn(ss) == 0)
    st = TOI_ERR_RANGE;
  else if (!at_respond(out, qa, qb, s, ss, w, f, tmp, &x, c))
    st = TOI_ERR_RANGE;
  for (int i = 0; i < 3; i++) mpq_clears(qa[i], qb[i], s[i], v[i], (mpq_ptr)0);
  mpq_clears(tq, ss, w, tmp, f, (mpq_ptr)0);
  exact_clear(&x);
  return st;
}

/* sqrt of a non-negative rational at precision p */
static void q_sqrt(mpfr_t out, const mpq_t v, mpfr_prec_t p) {
  mpfr_set_prec(out, p);
  mpfr_set_q(out, v, MPFR_RNDN);
  mpfr_sqrt(out, out, MPFR_RNDN);
}

/* Precision of the audit's metrics: they need a few digits; cancellation is done exactly. */
#define AUDIT_PREC 256

/* Scratch of response_audit's metrics, each of which sets what it reads. */
typedef struct audit_tmp {
  mpq_t t1, t2, sum, rq;
  mpfr_t f1, f2, f3;
} audit_tmp;

/* 1 when the first dim components of the given doubles are all finite. */
static int audit_finite(const double *a, const double *b, int dim) {
  int finite = 1;
  for (int i = 0; i < dim; i++) finite &= isfinite(a[i]) && isfinite(b[i]);
  return finite;
}

/* gap = (|d| - R)/R = (|d|^2 - R^2)/((|d| + R) R), the numerator exact */
static void audit_gap(toi_resp_audit *out, audit_tmp *k, const toi_case *c, const double pa[3], const double pb[3]) {
  int dim = c->dim;
  mpq_set_d(k->rq, c->ra);
  mpq_set_d(k->t1, c->rb);
  mpq_add(k->rq, k->rq, k->t1);
  if (!audit_finite(pa, pb, dim)) return;
  for (int i = 0; i < dim; i++) {
    mpq_set_d(k->t1, pb[i]);
    mpq_set_d(k->t2, pa[i]);
    mpq_sub(k->t1, k->t1, k->t2);
    mpq_mul(k->t1, k->t1, k->t1);
    mpq_add(k->sum, k->sum, k->t1);
  }
  q_sqrt(k->f1, k->sum, AUDIT_PREC);
  mpfr_add_q(k->f1, k->f1, k->rq, MPFR_RNDN);
  mpfr_mul_q(k->f1, k->f1, k->rq, MPFR_RNDN);
  mpq_mul(k->t1, k->rq, k->rq);
  mpq_sub(k->t1, k->sum, k->t1);
  mpfr_set_q(k->f2, k->t1, MPFR_RNDN);
  mpfr_div(k->f2, k->f2, k->f1, MPFR_RNDN);
  out->gap = mpfr_get_d(k->f2, MPFR_RNDN);
}

/* momentum: |P' - P| / (|mA vA| + |mB vB|), for finite va, vb */
static void audit_momentum(toi_resp_audit *out, audit_tmp *k, const exact *x, const toi_case *c, const double va[3],
                           const double vb[3]) {
  int dim = c->dim;
  mpq_set_ui(k->sum, 0, 1);
  for (int i = 0; i < dim; i++) {
    mpq_set_d(k->t1, va[i]);
    mpq_set_d(k->t2, c->va[i]);
    mpq_sub(k->t1, k->t1, k->t2);
    mpq_mul(k->t1, k->t1, x->ma);
    mpq_set_d(k->t2, vb[i]);
    mpq_set_d(k->rq, c->vb[i]);
    mpq_sub(k->t2, k->t2, k->rq);
    mpq_mul(k->t2, k->t2, x->mb);
    mpq_add(k->t1, k->t1, k->t2);
    mpq_mul(k->t1, k->t1, k->t1);
    mpq_add(k->sum, k->sum, k->t1);
  }
  q_sqrt(k->f1, k->sum, AUDIT_PREC);
  mpq_t na, nb;
  mpq_inits(na, nb, (mpq_ptr)0);
  for (int i = 0; i < dim; i++) {
    mpq_set_d(k->t1, c->va[i]);
    mpq_mul(k->t1, k->t1, k->t1);
    mpq_add(na, na, k->t1);
    mpq_set_d(k->t1, c->vb[i]);
    mpq_mul(k->t1, k->t1, k->t1);
    mpq_add(nb, nb, k->t1);
  }
  q_sqrt(k->f2, na, AUDIT_PREC);
  mpfr_mul_q(k->f2, k->f2, x->ma, MPFR_RNDN);
  q_sqrt(k->f3, nb, AUDIT_PREC);
  mpfr_mul_q(k->f3, k->f3, x->mb, MPFR_RNDN);
  mpfr_add(k->f2, k->f2, k->f3, MPFR_RNDN);
  mpfr_div(k->f1, k->f1, k->f2, MPFR_RNDN);
  out->mom_err = mpfr_get_d(k->f1, MPFR_RNDN);
  mpq_clears(na, nb, (mpq_ptr)0);
}

/* energy: KE(va, vb) - (KE0 + dKE exact), over KE0; then the momentum */
static void audit_energy(toi_resp_audit *out, audit_tmp *k, const exact *x, const toi_case *c, const double va[3],
                         const double vb[3]) {
  mpq_t ke0, ke1, dke, vn2;
  mpq_inits(ke0, ke1, dke, vn2, (mpq_ptr)0);
  kinetic(ke0, x, c->va, c->vb);
  vn2_at_root(vn2, x);
  energy_change(dke, x, vn2);
  if (audit_finite(va, vb, c->dim)) {
    kinetic(ke1, x, va, vb);
    mpq_sub(ke1, ke1, ke0);
    mpq_sub(ke1, ke1, dke);
    if (mpq_sgn(ke0) != 0) {
      mpq_div(ke1, ke1, ke0);
      out->ke_err = q_round(ke1);
    }
    audit_momentum(out, k, x, c, va, vb);
  }
  mpq_clears(ke0, ke1, dke, vn2, (mpq_ptr)0);
}

/* angle = 2 asin(|u - n*|/2), u the given normal made unit at precision P */
static void audit_angle(toi_resp_audit *out, audit_tmp *k, const at_root *o, rootd *r, int dim, const double n[3]) {
  if (!audit_finite(n, n, dim)) return;
  mpfr_t u[3], ne;
  mpfr_init2(ne, AUDIT_PREC);
  mpfr_set_ui(k->f1, 0, MPFR_RNDN);
  for (int i = 0; i < dim; i++) {
    mpfr_init2(u[i], AUDIT_PREC);
    mpfr_set_d(u[i], n[i], MPFR_RNDN);
    mpfr_fma(k->f1, u[i], u[i], k->f1, MPFR_RNDN);
  }
  mpfr_sqrt(k->f1, k->f1, MPFR_RNDN);
  if (!mpfr_zero_p(k->f1)) {
    mpfr_set_ui(k->f3, 0, MPFR_RNDN);
    for (int i = 0; i < dim; i++) {
      mpfr_div(u[i], u[i], k->f1, MPFR_RNDN);
      qs_approx(ne, &o->n[i], r, AUDIT_PREC);
      mpfr_sub(k->f2, u[i], ne, MPFR_RNDN);
      mpfr_fma(k->f3, k->f2, k->f2, k->f3, MPFR_RNDN);
    }
    mpfr_sqrt(k->f3, k->f3, MPFR_RNDN);
    mpfr_div_2ui(k->f3, k->f3, 1, MPFR_RNDN);
    mpfr_asin(k->f3, k->f3, MPFR_RNDN);
    mpfr_mul_2ui(k->f3, k->f3, 1, MPFR_RNDN);
    out->angle = mpfr_get_d(k->f3, MPFR_RNDN);
  }
  for (int i = 0; i < dim; i++) mpfr_clear(u[i]);
  mpfr_clear(ne);
}

/* ULP error of each velocity component, and the largest; 0 when a rounding failed */
static int audit_ulps(toi_resp_audit *out, const at_root *o, rootd *r, int dim, const double va[3],
                      const double vb[3]) {
  int ok = 1;
  double mx = 0;
  for (int i = 0; i < dim; i++) {
    ok &= qs_ulp_err(&out->ulp[i], va[i], &o->va[i], r);
    ok &= qs_ulp_err(&out->ulp[dim + i], vb[i], &o->vb[i], r);
  }
  for (int i = 0; i < 2 * dim; i++) {
    if (isnan(out->ulp[i])) mx = NAN;
    else if (!isnan(mx) && out->ulp[i] > mx) mx = out->ulp[i];
  }
  out->ulp_max = mx;
  return ok;
}

static toi_status response_audit(toi_resp_audit *out, const toi_case *c, double E, const double pa[3],
                                 const double pb[3], const double n[3], const double va[3],
                                 const double vb[3]) {
  out->gap = out->ke_err = out->mom_err = out->angle = out->ulp_max = NAN;
  for (int i = 0; i < 6; i++) out->ulp[i] = NAN;
  if (!case_finite(c) || !valid_e(E)) return TOI_ERR_RANGE;
  exact x;
  exact_init(&x, c, E);
  if (x.cls != TOI_HIT && x.cls != TOI_CONTACT) {
    exact_clear(&x);
    return TOI_ERR_RANGE;
  }
  rootd r;
  rootd_init(&r, x.d);
  at_root o;
  at_root_build(&o, &x);
  audit_tmp k;
  mpq_inits(k.t1, k.t2, k.sum, k.rq, (mpq_ptr)0);
  mpfr_inits2(AUDIT_PREC, k.f1, k.f2, k.f3, (mpfr_ptr)0);
  audit_gap(out, &k, c, pa, pb);
  audit_energy(out, &k, &x, c, va, vb);
  audit_angle(out, &k, &o, &r, c->dim, n);
  int ok = audit_ulps(out, &o, &r, c->dim, va, vb);
  mpfr_clears(k.f1, k.f2, k.f3, (mpfr_ptr)0);
  mpq_clears(k.t1, k.t2, k.sum, k.rq, (mpq_ptr)0);
  at_root_clear(&o);
  rootd_clear(&r);
  exact_clear(&x);
  return ok ? TOI_OK : TOI_ERR_RANGE;
}

static toi_status wall_exact(double *t, double pout[3], const double p[3], const double v[3], double r,
                             int dim, int axis, double wall) {
  *t = NAN;
  for (int i = 0; i < 3; i++) pout[i] = NAN;
  if ((dim != 2 && dim != 3) || axis < 0 || axis >= dim || !(r >= 0) || !isfinite(r) ||
      !isfinite(wall))
    return TOI_ERR_RANGE;
  for (int i = 0; i < dim; i++)
    if (!isfinite(p[i]) || !isfinite(v[i])) return TOI_ERR_RANGE;
  if (v[axis] == 0) return TOI_ERR_RANGE;
  /* t* = (wall -+ r - x)/v, then p + v t* with t* = X/Z kept exact */
  mpq_t tq, a, b;
  mpq_inits(tq, a, b, (mpq_ptr)0);
  mpq_set_d(tq, wall);
  mpq_set_d(a, r);
  if (v[axis] > 0) mpq_sub(tq, tq, a);
  else mpq_add(tq, tq, a);
  mpq_set_d(a, p[axis]);
  mpq_sub(tq, tq, a);
  mpq_set_d(a, v[axis]);
  mpq_div(tq, tq, a);
  *t = q_round(tq);
  for (int i = 0; i < 3; i++) {
    if (i >= dim) {
      pout[i] = 0;
      continue;
    }
    mpq_set_d(a, v[i]);
    mpq_mul(a, a, tq);
    mpq_set_d(b, p[i]);
    mpq_add(a, a, b);
    pout[i] = q_round(a);
  }
  mpq_clears(tq, a, b, (mpq_ptr)0);
  return TOI_OK;
}

/* ---- the simulation's certified kernel ---- */

/* The public entry points run in the reference's MPFR environment (a wide
 * exponent range, the caller's range and flags restored on return), as the
 * solver's do: the bounds above assume the range cannot overflow. */
toi_status toi_ref_response(toi_ref_resp *out, const toi_case *c, double E) {
  ref_env env;
  ref_env_enter(&env);
  toi_status st = response_exact(out, c, E);
  ref_env_leave(&env);
  return st;
}

toi_status toi_ref_response_at(toi_ref_resp *out, const toi_case *c, double E, double T) {
  ref_env env;
  ref_env_enter(&env);
  toi_status st = response_at(out, c, E, T);
  ref_env_leave(&env);
  return st;
}

toi_status toi_ref_response_audit(toi_resp_audit *out, const toi_case *c, double E, const double pa[3],
                                  const double pb[3], const double n[3], const double va[3],
                                  const double vb[3]) {
  ref_env env;
  ref_env_enter(&env);
  toi_status st = response_audit(out, c, E, pa, pb, n, va, vb);
  ref_env_leave(&env);
  return st;
}

toi_status toi_ref_wall(double *t, double pout[3], const double p[3], const double v[3], double r, int dim,
                        int axis, double wall) {
  ref_env env;
  ref_env_enter(&env);
  toi_status st = wall_exact(t, pout, p, v, r, dim, axis, wall);
  ref_env_leave(&env);
  return st;
}

int toi_ref_sim_pair_toi(void *ctx, const toi_case *c, double *dt) {
  (void)ctx;
  toi_ref r;
  toi_ref_query q = TOI_REF_QUERY_INIT;
  q.c = c;
  if (toi_ref_solve(&r, &q) != TOI_OK) return -1;
  if (r.cls == TOI_HIT || r.cls == TOI_CONTACT) {
    *dt = r.tfwd;
    return isnan(r.tfwd) ? -1 : 1;
  }
  if (r.cls == TOI_OVERLAP) {
    *dt = 0;
    return 1;
  }
  return 0;
}

int toi_ref_sim_pair_respond(void *ctx, const toi_case *c, double dt, double E, double pa[3],
                             double pb[3], double va[3], double vb[3]) {
  (void)ctx;
  toi_ref_resp r;
  toi_status st = toi_ref_response(&r, c, E);
  if (st != TOI_OK) {
    if (r.cls == TOI_HIT || r.cls == TOI_CONTACT || r.cls == TOI_GRAZE) return -1;
    if (toi_ref_response_at(&r, c, E, dt) != TOI_OK) return -1;
  }
  if (!r.applied) return 0;
  for (int d = 0; d < 3; d++) {
    pa[d] = r.pa[d];
    pb[d] = r.pb[d];
    va[d] = r.va[d];
    vb[d] = r.vb[d];
  }
  return 1;
}

int toi_ref_sim_wall_toi(void *ctx, const double p[3], const double v[3], double r, int dim,
                         int axis, double wall, double *dt) {
  (void)ctx;
  double pout[3];
  if (toi_ref_wall(dt, pout, p, v, r, dim, axis, wall) != TOI_OK) return -1;
  return 1;
}

int toi_ref_sim_wall_respond(void *ctx, const double p[3], const double v[3], double r, int dim,
                             int axis, double wall, double dt, double pout[3]) {
  (void)ctx;
  (void)dt; /* the exact contact is recomputed, not moved by the rounded dt */
  double t;
  return toi_ref_wall(&t, pout, p, v, r, dim, axis, wall) == TOI_OK ? 0 : -1;
}
