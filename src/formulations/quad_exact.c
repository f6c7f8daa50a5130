/* quad_exact.c: exact c = s.s - R^2, b = s.v and D = b^2 - a c, by expansions or by big numbers. */
#include "bigf.h"
#include "expansion.h"
#include "quad_exact.h"

/* Buffer sizes: each pairwise product adds at most two components, and
   xp_add_product refuses to go past them. Sums of squares and products of
   two-component differences need at most 8 components per coordinate (32 in
   all); D multiplies compressed expansions, which in practice have 1 to 4
   components, so QX_CAP_D is only reached by contrived data (the caller then
   falls back to big numbers). */
#define QX_CAP 64
#define QX_CAP_D 256

/* xp_grow and xp_add_product (expansion.c), the same operations in the same
   order, inline: compiled into the FMA copies of the functions below, the
   products' fma is one instruction instead of a library call, and the grow
   loop runs without a call per component. The results are identical. */
TOI_INLINE int grow(double *e, int elen, double b) {
  double q = b;
  int hn = 0;
  for (int i = 0; i < elen; i++) {
    dd t = two_sum(q, e[i]);
    q = t.hi;
    if (t.lo != 0) e[hn++] = t.lo;
  }
  if (q != 0 || hn == 0) e[hn++] = q;
  return hn;
}

TOI_INLINE int add_product(double *acc, int *alen, int cap, const double *e, int elen, const double *f, int flen,
                           double sign) {
  if (*alen + 2 * elen * flen > cap) return -1;
  int n = *alen;
  for (int i = 0; i < elen; i++)
    for (int j = 0; j < flen; j++) {
      dd p = two_prod(e[i], sign * f[j]);
      if (p.lo != 0) n = grow(acc, n, p.lo);
      if (p.hi != 0) n = grow(acc, n, p.hi);
    }
  *alen = n;
  return 0;
}

/* An exact double-double as an expansion: {lo, hi}, or {hi} when lo = 0. */
TOI_INLINE int dd_exp(dd x, double *e) {
  if (x.lo == 0) {
    e[0] = x.hi;
    return 1;
  }
  e[0] = x.lo;
  e[1] = x.hi;
  return 2;
}

static void finish(double *acc, int len, qx_num *out) {
  int n = xp_compress(acc, len, acc);
  out->sign = xp_sign(acc, n);
  xp_approx(acc, n, &out->hi, &out->lo);
  out->e = 0;
}

/* sum_i x_i y_i + extra_sign X Y exactly, compressed into out[]. */
TOI_INLINE int dot_exp(const dd *x, const dd *y, int n, const dd *ex, const dd *ey, double extra_sign, double *out,
                      int *olen) {
  int len = 1;
  out[0] = 0;
  double xe[2], ye[2];
  for (int i = 0; i < n; i++) {
    int xl = dd_exp(x[i], xe), yl = dd_exp(y[i], ye);
    if (add_product(out, &len, QX_CAP, xe, xl, ye, yl, 1.0)) return -1;
  }
  if (ex) {
    int xl = dd_exp(*ex, xe), yl = dd_exp(*ey, ye);
    if (add_product(out, &len, QX_CAP, xe, xl, ye, yl, extra_sign)) return -1;
  }
  *olen = xp_compress(out, len, out);
  return 0;
}

TOI_FMA_CLONES int qx_c(const dd *s, dd R, int n, qx_num *c) {
  double e[QX_CAP];
  int len;
  if (dot_exp(s, s, n, &R, &R, -1.0, e, &len)) return -1;
  finish(e, len, c);
  return 0;
}

TOI_FMA_CLONES int qx_b(const dd *s, const dd *v, int n, qx_num *b) {
  double e[QX_CAP];
  int len;
  if (dot_exp(s, v, n, NULL, NULL, 0, e, &len)) return -1;
  finish(e, len, b);
  return 0;
}

TOI_FMA_CLONES int qx_d(const dd *s, const dd *v, dd R, int n, qx_num *d) {
  double ce[QX_CAP], be[QX_CAP], ae[QX_CAP], acc[QX_CAP_D];
  int cl, bl, al;
  if (dot_exp(s, s, n, &R, &R, -1.0, ce, &cl)) return -1;
  if (dot_exp(s, v, n, NULL, NULL, 0, be, &bl)) return -1;
  if (dot_exp(v, v, n, NULL, NULL, 0, ae, &al)) return -1;
  int len = 1;
  acc[0] = 0;
  if (add_product(acc, &len, QX_CAP_D, be, bl, be, bl, 1.0)) return -1;
  if (add_product(acc, &len, QX_CAP_D, ae, al, ce, cl, -1.0)) return -1;
  finish(acc, len, d);
  return 0;
}

static void big_out(const bigf *x, qx_num *out) {
  out->sign = bigf_sign(x);
  bigf_approx(x, &out->hi, &out->lo, &out->e);
}

void qx_big(const toi_case *cs, int n, qx_num *c, qx_num *b, qx_num *d) {
  /* About 14 numbers of 1.1 KB each: fine on any thread's stack. */
  bigf s[3], v[3], x, y, t, cc, bb, aa;
  for (int i = 0; i < n; i++) {
    bigf_set_d(&x, cs->pb[i]);
    bigf_set_d(&y, cs->pa[i]);
    bigf_sub(&s[i], &x, &y);
    bigf_set_d(&x, cs->vb[i]);
    bigf_set_d(&y, cs->va[i]);
    bigf_sub(&v[i], &x, &y);
  }
  bigf_set_d(&x, cs->ra);
  bigf_set_d(&y, cs->rb);
  bigf_add(&x, &x, &y); /* x = R */
  bigf_mul(&cc, &x, &x);
  cc.neg = cc.n ? 1 : 0; /* cc = -R^2 */
  bb.n = aa.n = 0;
  bb.neg = aa.neg = 0;
  bb.exp = aa.exp = 0;
  for (int i = 0; i < n; i++) {
    bigf_mul(&t, &s[i], &s[i]);
    bigf_add(&cc, &cc, &t);
    bigf_mul(&t, &s[i], &v[i]);
    bigf_add(&bb, &bb, &t);
    bigf_mul(&t, &v[i], &v[i]);
    bigf_add(&aa, &aa, &t);
  }
  big_out(&cc, c);
  big_out(&bb, b);
  bigf_mul(&x, &bb, &bb);
  bigf_mul(&y, &aa, &cc);
  bigf_sub(&t, &x, &y);
  big_out(&t, d);
}

/* With w = s + v m, f(m) = |w|^2 - R^2 = a m^2 + 2 b m + c and g = v.w =
   a m + b, a > 0. The forward root t* = (-b - sqrt D) / a lies at or below
   the vertex -b/a, where f is -D/a: past the vertex (g > 0) m > t*; at the
   vertex m = t* exactly when f(m) = 0 (then D = 0); before it f falls
   through zero at t*, so the sign of f(m) is that of t* - m. Every value is
   exact: m has 54 significant bits, and w^2 spans at most 2^-4298 ..
   2^4102, which BIGF_LIMBS holds. */
int qx_root_side(const toi_case *cs, int n, double y, double gap) {
  bigf m, x, z, w, t, f, g, v;
  bigf_set_d(&x, gap);
  bigf_set_d(&z, 0.5);
  bigf_mul(&t, &x, &z);
  bigf_set_d(&x, y);
  bigf_add(&m, &x, &t);
  bigf_set_d(&x, cs->ra);
  bigf_set_d(&z, cs->rb);
  bigf_add(&t, &x, &z);
  bigf_mul(&f, &t, &t);
  f.neg = f.n ? 1 : 0; /* f = -R^2 */
  g.n = g.neg = g.exp = 0;
  for (int i = 0; i < n; i++) {
    bigf_set_d(&x, cs->vb[i]);
    bigf_set_d(&z, cs->va[i]);
    bigf_sub(&v, &x, &z);
    bigf_mul(&t, &v, &m);
    bigf_set_d(&x, cs->pb[i]);
    bigf_set_d(&z, cs->pa[i]);
    bigf_sub(&w, &x, &z);
    bigf_add(&w, &w, &t); /* w_i = s_i + v_i m */
    bigf_mul(&t, &w, &w);
    bigf_add(&f, &f, &t);
    bigf_mul(&t, &v, &w);
    bigf_add(&g, &g, &t);
  }
  int sg = bigf_sign(&g), sf = bigf_sign(&f);
  if (sg > 0) return -1;
  if (sg == 0) return sf == 0 ? 0 : -1;
  return sf;
}
