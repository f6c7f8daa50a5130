/* ref_fast_err.c: the fast engine's toi_ref_error and toi_ref_kappa: proven enclosures in double arithmetic, else MPFR. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "ref_common.h"
#include "ref_fast_api.h"
#include "ref_fast_state.h"
#include "ref_mpfr.h"

/*
 * What these paths must give: exactly the doubles of the GMP/MPFR paths of
 * ref_error.c and ref_kappa.c, bit for bit. They start from the state the
 * fast engine proved for the case (ref_fast_prepare: the scaled exact data,
 * a, D, the signs, each root as a double-double with an absolute error bound
 * Et <= 2^-60 |t|), build an enclosure of the wanted number, and answer only
 * when every point of it rounds to the same double (fast_certify); otherwise
 * the caller asks MPFR. u = 2^-53 throughout; an "error" is an absolute
 * bound, proved beside the code. All in scaled units (ref_fast_state).
 *
 *  - The ulp error q = |T - t*| / ulp(t*) is, on both paths, the correctly
 *    rounded double of the exact quotient (ref_error.c). ulp(t*) is an exact
 *    power of two read from RN(t*) (the engine's certified root), so what
 *    needs care is d = T - t*. When T is far from t* (|d| >= 2^60 Et) the
 *    root's enclosure gives d to 2^-60 relative ("far"). When T is near t*,
 *    the usual case since most answers are within a few ulps, Et ~ 2^-91 |t|
 *    would give only a few bits of d, so d comes from the identity
 *    F(T) = a (T - t*)(T - t**), F(x) = a x^2 + 2 b x + c, t** the other
 *    root ("near"): d = F(T) / (a (T - t**)), F(T) summed from the exact
 *    expansions of a, b, c (held as three doubles with an error bound, once
 *    per case) and exact products with T, to about 2^-145 of its terms.
 *    a (T - t**) is a times an enclosure of T - t** when the roots are far
 *    apart, else (a T + b) -+ sqrt(D) from the same three-double data (near
 *    a graze). A double root (D = 0, t* = -b/a) uses d = (a T + b) / a.
 *  - kappa = [sum_i (|pA_i| + |pB_i| + |t| (|vA_i| + |vB_i|)) |u_i| + (rA +
 *    rB) R] / (sqrt(D) |t|), u = s + v t, is a sum of nonnegative terms
 *    evaluated in double-double with relative error bounds; the enclosure is
 *    widened by REF_KAPPA_REL_ERR, the proven error of the 128-bit MPFR
 *    value, so that certifying it proves that the MPFR path rounds to the
 *    same double. Near a graze, where D and the root's enclosure lose
 *    accuracy, sqrt(D) comes from the three-double data and t* from the near
 *    method applied to RN(t*).
 *
 * A sweep asks both for the same case many times in a row (one error per
 * formulation, one kappa per direction), so the caller prepares the case
 * once (ref_fast_err_prepare, behind toi_ref_prepare) and passes that state
 * to each; what is derived from it is kept there. Nothing is kept here.
 */

#if defined(__GNUC__) && defined(__x86_64__) && !defined(FP_FAST_FMA)
#define FE_DISPATCH 1
#endif
#ifdef FP_FAST_FMA
#define FE_GEN_FMA 1
#else
#define FE_GEN_FMA 0
#endif

/* ---- the caller's prepared state of a case (ref_fast_prep, ref_fast_state.h) ---- */

static _Thread_local ref_fast_err_counts fe_counts;

void ref_fast_err_counts_get(ref_fast_err_counts *out) { *out = fe_counts; }
void ref_fast_err_counts_reset(void) { memset(&fe_counts, 0, sizeof fe_counts); }

/* What every error and kappa of case c starts from, made once per case into
 * the caller's k (c checked by the caller); the rest is derived on first use
 * and kept in k. */
void ref_fast_err_prepare(ref_fast_prep *k, const toi_case *c) {
  k->ok = ref_fast_prepare(&k->st, c);
  k->have3 = k->haveD = k->haveR[0] = k->haveR[1] = 0;
  k->lite = 0;
  for (int d = 0; d < 2; d++)
    for (int q = 0; q < TOI_PRECISION_COUNT; q++) k->br[d][q].state = 0;
}

/* ---- summing a few exact terms to about u^3 of their magnitude ---- */

/*
 * A TwoSum chain S1 over the terms x_i (exact: S1 + the f_i = sum x), a
 * second chain S2 over the f_i (exact: S2 + the g_i = sum f), the g_i
 * summed in floating point into S3, G the sum of their magnitudes: sum x =
 * S1 + S2 + (the g_i) exactly, and |S3 - sum g| <= gamma_(n-1) G <= n u G
 * (Higham), about n^3 u^3 times the magnitude of the terms. A term known to
 * be small may enter the second chain (fe_sum_add2) or S3 itself
 * (fe_sum_add3, its magnitude then counted in G): the identity and the bound
 * hold whatever the sizes, only the accuracy depends on putting each term
 * at its level. fe_sum_end makes a normalized double-double of it:
 * TwoSum(S1, S2) = H + L exactly, L + S3 rounded once (<= u |L + S3|), a
 * last exact TwoSum. Additions never lose to underflow; nothing here comes
 * near overflow (the callers keep every term below 2^940).
 */
typedef struct fe_sum {
  double S1, S2, S3, G;
  int n;
} fe_sum;

FAST_INLINE void fe_sum_add(fe_sum *s, double x) {
  fdd f = two_sum(s->S1, x);
  s->S1 = f.h;
  fdd g = two_sum(s->S2, f.l);
  s->S2 = g.h;
  s->S3 += g.l;
  s->G += fabs(g.l);
  s->n++;
}

FAST_INLINE void fe_sum_add2(fe_sum *s, double x) {
  fdd g = two_sum(s->S2, x);
  s->S2 = g.h;
  s->S3 += g.l;
  s->G += fabs(g.l);
  s->n++;
}

FAST_INLINE void fe_sum_add3(fe_sum *s, double x) {
  s->S3 += x;
  s->G += fabs(x);
  s->n++;
}

FAST_INLINE fdd fe_sum_end(const fe_sum *s, double *err) {
  fdd hl = two_sum(s->S1, s->S2);
  double l = hl.l + s->S3;
  *err = up((double)(s->n + 1) * 0x1p-53 * s->G + 0x1p-53 * fabs(l));
  return two_sum(hl.h, l);
}

/* x y as two more terms, exactly when the exponents of x and y add up to
 * -970 or more (TwoProd; the callers keep |x|, |y| below 2^995). Below that,
 * |x y| < 2^-900 or so, the FMA's TwoProd errs by <= 2^-1075 and Dekker's by
 * less than 2^-940 (every partial product and sum is then below 2^-899, each
 * rounding costs < 2^-952, each underflow 2^-1075): each caller adds 2^-930
 * for all of its TwoProds, and for the underflows of its rounded products. */
FAST_INLINE void fe_sum_prod(fe_sum *s, double x, double y, const int fm) {
  fdd p = two_prod(x, y, fm);
  fe_sum_add(s, p.h);
  fe_sum_add2(s, p.l);
}

/* The same for a product about u times smaller than the leading terms. */
FAST_INLINE void fe_sum_prod2(fe_sum *s, double x, double y, const int fm) {
  fdd p = two_prod(x, y, fm);
  fe_sum_add2(s, p.h);
  fe_sum_add3(s, p.l);
}

/* A rounded product, about u^2 times the leading terms, into S3; *mag
 * collects |x y| for its error (u |x y|, plus underflow). */
FAST_INLINE void fe_sum_rprod(fe_sum *s, double *mag, double x, double y) {
  double r = x * y;
  fe_sum_add3(s, r);
  *mag += fabs(r);
}

/* ---- a, b, c and sqrt(D) as three doubles ---- */

/* The three-double form of a, b, c, once per case; 0 when the data are not
 * exact. From the exact expansions (ref_fast_expand), by the cascade above
 * with S1, S2, S3 as the three doubles: error (n + 1) u G. */
static void fe_triple(double *o, double *err, const double *e, int m) {
  fe_sum s = {0, 0, 0, 0, 0};
  for (int i = m - 1; i >= 0; i--) fe_sum_add(&s, e[i]);
  o[0] = s.S1, o[1] = s.S2, o[2] = s.S3;
  *err = up((double)(s.n + 1) * 0x1p-53 * s.G);
}

/*
 * The same three doubles straight from the products of the data, without
 * the exact expansion: sum_i x_i y_i, every product of components an exact
 * TwoProd (exact data: nonzero components in [2^-480, 2^65]), each part
 * entering the cascade at its level (the data are normalized double-doubles,
 * so x.l y.h and x.h y.l are about u, x.l y.l about u^2 below x.h y.h). The
 * cascade's identity and bound hold whatever the order, so the error is
 * again (n + 1) u G; only its accuracy differs: when the sum cancels, G is
 * large against the result, and the caller then takes the expansion. 1 when
 * the triple is as fine as the expansion's would be for the callers'
 * purposes: error <= 2^-145 |o[0]|, |o[1]| <= 2^-45 |o[0]|, |o[2]| <= 2^-90
 * |o[0]|, or all zero exactly.
 */
FAST_INLINE int fe_triple_direct(double *o, double *err, const fdd *x, const fdd *y, int n, const int fm) {
  fe_sum s = {0, 0, 0, 0, 0};
  for (int i = 0; i < n; i++) fe_sum_prod(&s, x[i].h, y[i].h, fm);
  for (int i = 0; i < n; i++) {
    if (x[i].l == 0 && y[i].l == 0) continue;
    fe_sum_prod2(&s, x[i].h, y[i].l, fm);
    fe_sum_prod2(&s, x[i].l, y[i].h, fm);
    fdd p = two_prod(x[i].l, y[i].l, fm);
    fe_sum_add3(&s, p.h);
    fe_sum_add3(&s, p.l);
  }
  o[0] = s.S1, o[1] = s.S2, o[2] = s.S3;
  *err = up((double)(s.n + 1) * 0x1p-53 * s.G);
  double m = fabs(o[0]);
  if (m == 0) return o[1] == 0 && o[2] == 0 && *err == 0;
  return *err <= 0x1p-145 * m && fabs(o[1]) <= 0x1p-45 * m && fabs(o[2]) <= 0x1p-90 * m;
}

#ifdef FE_DISPATCH
#include <immintrin.h>

/* x[i].h, y[i].h (w = 0) or their low parts (w = 1) of a (v.v), b (s.v) and
 * c (s.(s, -R)), term i, in lanes 0, 1, 2 (lane 3 unused, whatever comes
 * cheapest); a's and b's fourth term is 0. */
__attribute__((target("avx,fma"))) static inline void fe_lanes(__m256d *x, __m256d *y, const ref_fast_state *fs,
                                                                 int i, int lo) {
  const double vx = i < 3 ? (lo ? fs->v[i].l : fs->v[i].h) : 0, sx = lo ? fs->s[i].l : fs->s[i].h;
  *x = _mm256_setr_pd(vx, i < 3 ? sx : 0, sx, sx);
  *y = _mm256_setr_pd(vx, vx, i < 3 ? sx : -sx, vx);
}

/*
 * fe_triple_direct for a, b and c at once, one lane each (the FMA build):
 * every lane makes the same operations in the same order as the scalar
 * code, so its S1, S2, S3 and G are those doubles bit for bit, and so are
 * the triples, their errors and the verdicts (the proofs above, unchanged;
 * bit i of the result is the verdict of a, b, c for i = 0, 1, 2).
 * Where the scalar code has fewer terms (a and b: three, not four) or skips
 * a term whose low parts are both 0, the lane adds products of zeros
 * instead: TwoSum(x, +-0) = (x, 0) for an x that is not -0, and no sum here
 * is ever -0 (they start at +0, and x + y rounds to -0 only when both are
 * -0), so S1, S2, S3 and G stay as they are; only the counts n differ, and
 * they are counted apart, as the scalar code counts them.
 */
__attribute__((target("avx,fma"))) static int fe_triples_direct_v(ref_fast_prep *k) {
  const ref_fast_state *fs = &k->st;
  __m256d S1 = _mm256_setzero_pd(), S2 = S1, S3 = S1, G = S1, x, y;
  const __m256d sgn = _mm256_set1_pd(-0.0);
#define FE_TS(a, b, hi, lo)                                                                                            \
  do {                                                                                                                 \
    __m256d s_ = _mm256_add_pd(a, b), bb_ = _mm256_sub_pd(s_, a), aa_ = _mm256_sub_pd(s_, bb_);                        \
    lo = _mm256_add_pd(_mm256_sub_pd(a, aa_), _mm256_sub_pd(b, bb_));                                                 \
    hi = s_;                                                                                                           \
  } while (0)
#define FE_ADD1(t)                                                                                                     \
  do {                                                                                                                 \
    __m256d fl_, gl_;                                                                                                  \
    FE_TS(S1, t, S1, fl_);                                                                                             \
    FE_TS(S2, fl_, S2, gl_);                                                                                           \
    S3 = _mm256_add_pd(S3, gl_);                                                                                       \
    G = _mm256_add_pd(G, _mm256_andnot_pd(sgn, gl_));                                                                  \
  } while (0)
#define FE_ADD2(t)                                                                                                     \
  do {                                                                                                                 \
    __m256d gl_;                                                                                                       \
    FE_TS(S2, t, S2, gl_);                                                                                             \
    S3 = _mm256_add_pd(S3, gl_);                                                                                       \
    G = _mm256_add_pd(G, _mm256_andnot_pd(sgn, gl_));                                                                  \
  } while (0)
#define FE_ADD3(t)                                                                                                     \
  do {                                                                                                                 \
    S3 = _mm256_add_pd(S3, t);                                                                                         \
    G = _mm256_add_pd(G, _mm256_andnot_pd(sgn, t));                                                                    \
  } while (0)
#pragma GCC unroll 4
  for (int i = 0; i < 4; i++) { /* fe_sum_prod of the leading parts */
    fe_lanes(&x, &y, fs, i, 0);
    __m256d ph = _mm256_mul_pd(x, y), pl = _mm256_fmsub_pd(x, y, ph);
    FE_ADD1(ph);
    FE_ADD2(pl);
  }
  int na = 6, nb = 6, nc = 8; /* the leading products' terms, then six a pair of low parts */
#pragma GCC unroll 4
  for (int i = 0; i < 4; i++) {
    const int sz = fs->s[i].l == 0, vz = i < 3 ? fs->v[i].l == 0 : 1;
    if (i < 3) {
      na += vz ? 0 : 6;
      nb += sz && vz ? 0 : 6;
    }
    nc += sz ? 0 : 6;
    if (i < 3 ? sz && vz : sz) continue; /* all three skip */
    __m256d xh, yh, xl, yl;
    fe_lanes(&xh, &yh, fs, i, 0);
    fe_lanes(&xl, &yl, fs, i, 1);
    __m256d ph = _mm256_mul_pd(xh, yl), pl = _mm256_fmsub_pd(xh, yl, ph); /* fe_sum_prod2(x.h, y.l) */
    FE_ADD2(ph);
    FE_ADD3(pl);
    ph = _mm256_mul_pd(xl, yh), pl = _mm256_fmsub_pd(xl, yh, ph); /* fe_sum_prod2(x.l, y.h) */
    FE_ADD2(ph);
    FE_ADD3(pl);
    ph = _mm256_mul_pd(xl, yl), pl = _mm256_fmsub_pd(xl, yl, ph); /* two_prod(x.l, y.l), both parts into S3 */
    FE_ADD3(ph);
    FE_ADD3(pl);
  }
#undef FE_TS
#undef FE_ADD1
#undef FE_ADD2
#undef FE_ADD3
  /* fe_triple_direct's tail in each lane: err = up((n + 1) u G), and the
   * verdict err <= 2^-145 m, |S2| <= 2^-45 m, |S3| <= 2^-90 m with m = |S1|,
   * which for m = 0 is its other test (S2 = S3 = 0 and err = 0, err being
   * nonnegative). The triples are written whatever the verdict (a 0 makes
   * the caller write them again from the expansions). */
  const __m256d err = _mm256_mul_pd(
      _mm256_mul_pd(_mm256_mul_pd(_mm256_setr_pd(na + 1, nb + 1, nc + 1, 1), _mm256_set1_pd(0x1p-53)), G),
      _mm256_set1_pd(1 + 0x1p-40));
  const __m256d m = _mm256_andnot_pd(sgn, S1);
  const __m256d ok = _mm256_and_pd(
      _mm256_cmp_pd(err, _mm256_mul_pd(_mm256_set1_pd(0x1p-145), m), _CMP_LE_OQ),
      _mm256_and_pd(_mm256_cmp_pd(_mm256_andnot_pd(sgn, S2), _mm256_mul_pd(_mm256_set1_pd(0x1p-45), m), _CMP_LE_OQ),
                    _mm256_cmp_pd(_mm256_andnot_pd(sgn, S3), _mm256_mul_pd(_mm256_set1_pd(0x1p-90), m), _CMP_LE_OQ)));
  double s1[4], s2[4], s3[4], e[4];
  _mm256_storeu_pd(s1, S1);
  _mm256_storeu_pd(s2, S2);
  _mm256_storeu_pd(s3, S3);
  _mm256_storeu_pd(e, err);
  double *o[3] = {k->a3, k->b3, k->c3};
  for (int i = 0; i < 3; i++) o[i][0] = s1[i], o[i][1] = s2[i], o[i][2] = s3[i];
  k->ea3 = e[0], k->eb3 = e[1], k->ec3 = e[2];
  return _mm256_movemask_pd(ok) & 7;
}
#endif

#ifdef FE_DISPATCH
static int fe_triples_direct_v(ref_fast_prep *k); /* fe_triple_direct's verdicts on a, b, c: bits 0, 1, 2 */
#endif

FAST_INLINE int fe_triples(ref_fast_prep *k, const int fm) {
  if (k->have3) return k->have3 > 0;
  const ref_fast_state *fs = &k->st;
  k->have3 = -1;
  if (!fs->exact_data) return 0;
  fdd sr[4] = {fs->s[0], fs->s[1], fs->s[2], dd_neg(fs->s[3])};
  /* Each of the three from the products where that is fine enough (bit 0
   * a, 1 b, 2 c), the others from the exact expansions: each triple holds
   * with its own bound whichever way it was made. */
  int fine;
#ifdef FE_DISPATCH
  if (fm)
    fine = fe_triples_direct_v(k);
  else
#endif
    fine = fe_triple_direct(k->a3, &k->ea3, fs->v, fs->v, 3, fm) |
           fe_triple_direct(k->b3, &k->eb3, fs->s, fs->v, 3, fm) << 1 |
           fe_triple_direct(k->c3, &k->ec3, fs->s, sr, 4, fm) << 2;
  if (fine != 7) {
    double xa[32], xb[32], xc[32];
    int ma, mb, mc;
    if (!ref_fast_expand(fs, fine & 1 ? NULL : xa, &ma, fine & 2 ? NULL : xb, &mb, fine & 4 ? NULL : xc, &mc))
      return 0;
    if (!(fine & 1)) fe_triple(k->a3, &k->ea3, xa, ma);
    if (!(fine & 2)) fe_triple(k->b3, &k->eb3, xb, mb);
    if (!(fine & 4)) fe_triple(k->c3, &k->ec3, xc, mc);
  }
  k->have3 = 1;
  return 1;
}

#ifdef FE_DISPATCH
/* The scalar triples with FMA and their verdicts (bits 0, 1, 2), for the comparison below. */
__attribute__((target("fma"))) static int fe_triples_scalar_fma(double *t, double *e, const ref_fast_state *fs) {
  fdd sr[4] = {fs->s[0], fs->s[1], fs->s[2], dd_neg(fs->s[3])};
  return fe_triple_direct(t, &e[0], fs->v, fs->v, 3, 1) | fe_triple_direct(t + 3, &e[1], fs->s, fs->v, 3, 1) << 1 |
         fe_triple_direct(t + 6, &e[2], fs->s, sr, 4, 1) << 2;
}
#endif

int ref_fast_triples_same(const toi_case *c) {
#ifdef FE_DISPATCH
  static ref_fast_prep k; /* large; for tests, one thread */
  if (!ref_fast_fma() || !ref_fast_scaled_data(&k.st, c)) return -1;
  double t[9], e[3];
  int r = fe_triples_scalar_fma(t, e, &k.st);
  memset(k.a3, 0xff, sizeof k.a3), memset(k.b3, 0xff, sizeof k.b3), memset(k.c3, 0xff, sizeof k.c3);
  if (fe_triples_direct_v(&k) != r) return 0;
  const double *o[3] = {k.a3, k.b3, k.c3}, eo[3] = {k.ea3, k.eb3, k.ec3};
  for (int i = 0; i < 3; i++)
    if (memcmp(t + 3 * i, o[i], 3 * sizeof(double)) || memcmp(&e[i], &eo[i], sizeof(double))) return 0;
  return 1;
#else
  (void)c;
  return -1;
#endif
}

static double fe_abs3(const double *x) { return fabs(x[0]) + fabs(x[1]) + fabs(x[2]); }

/* sqrt(D) into k from D, within ED, when D is positive and known to 2^-62
   of itself (the bound below, fe_sqrt_D's): 1, else 0 (k unchanged). */
FAST_INLINE int fe_sqrt_D_keep(ref_fast_prep *k, fdd D, double ED, const int fm) {
  if (!(D.h >= 0x1p-800 && D.h <= 0x1p800 && ED <= 0x1p-62 * D.h)) return 0;
  double h, w0;
  const fdd zero = {0, 0};
  k->sD = dd_add_sqrt(zero, D, &h, &w0, fm);
  k->esD = up(0x1p-101 * k->sD.h + ED / h * (1 + 0x1p-51));
  k->haveD = 1;
  return 1;
}

/*
 * sqrt(D), D = b^2 - a c, from the triples, once per case: the nine
 * products of each pair of triples, those of the leading components by
 * TwoProd, the others rounded (u each, in P), and the triples' errors:
 * |b^2 - b~^2| <= eb (2 |b~| + eb), |a c - a~ c~| <= ea |c~| + (|a~| + ea) ec.
 * Near a graze D cancels, but the triples hold a, b, c to about 2^-145 of
 * their magnitude, so D keeps about 145 - (bits lost) bits. Then
 * dd_add_sqrt(0, D): 2^-101 of the result, plus ED / h (1 + 2.1u) for the
 * error of D (ref_fast.c, step 4). The triples stay below 2^140: no
 * overflow.
 */
FAST_INLINE int fe_sqrt_D(ref_fast_prep *k, const int fm) {
  if (k->haveD) return k->haveD > 0;
  k->haveD = -1;
  if (!fe_triples(k, fm)) return 0;
  const double *a = k->a3, *b = k->b3, *c = k->c3;
  fe_sum s = {0, 0, 0, 0, 0};
  double P = 0;
  fe_sum_prod(&s, b[0], b[0], fm);
  fe_sum_prod(&s, -a[0], c[0], fm);
  fe_sum_prod2(&s, 2 * b[0], b[1], fm);
  fe_sum_prod2(&s, -a[0], c[1], fm);
  fe_sum_prod2(&s, -a[1], c[0], fm);
  fe_sum_rprod(&s, &P, b[1], b[1]);
  fe_sum_rprod(&s, &P, 2 * b[0], b[2]);
  fe_sum_rprod(&s, &P, 2 * b[1], b[2]);
  fe_sum_rprod(&s, &P, b[2], b[2]);
  fe_sum_rprod(&s, &P, -a[1], c[1]);
  fe_sum_rprod(&s, &P, -a[0], c[2]);
  fe_sum_rprod(&s, &P, -a[2], c[0]);
  fe_sum_rprod(&s, &P, -a[1], c[2]);
  fe_sum_rprod(&s, &P, -a[2], c[1]);
  fe_sum_rprod(&s, &P, -a[2], c[2]);
  double ED;
  fdd D = fe_sum_end(&s, &ED);
  ED = up(ED + 0x1p-53 * P + k->eb3 * (2 * fe_abs3(b) + k->eb3) + k->ea3 * fe_abs3(c) +
          (fe_abs3(a) + k->ea3) * k->ec3) + 0x1p-930;
  return fe_sqrt_D_keep(k, D, ED, fm);
}

/*
 * The same sqrt(D) from fewer products, where D does not cancel (the usual
 * case; ref_fast_error_light's): fe_sqrt_D's sum with its two TwoProds, the
 * three products of a leading and a second component rounded (u each, in
 * P), and its ten other products (b1^2, 2 b0 b2, 2 b1 b2, b2^2, a1 c1,
 * a0 c2, a2 c0, a1 c2, a2 c1, a2 c2) left out: together at most
 * Q = (|b1| + |b2|)^2 + 2 |b0| |b2| + (|a1| + |a2|)(|c1| + |c2|) + |a0| |c2|
 * + |a2| |c0|, evaluated on nonnegative numbers in eight roundings, which
 * up() covers. With the triples' errors as there. When the check that
 * follows fails (D cancels, near a graze), fe_sqrt_D itself.
 */
FAST_INLINE int fe_sqrt_D_lead(ref_fast_prep *k, const int fm) {
  if (k->haveD) return k->haveD > 0;
  if (!fe_triples(k, fm)) return k->haveD = -1, 0;
  const double *a = k->a3, *b = k->b3, *c = k->c3;
  fe_sum s = {0, 0, 0, 0, 0};
  double P = 0;
  fe_sum_prod(&s, b[0], b[0], fm);
  fe_sum_prod(&s, -a[0], c[0], fm);
  fe_sum_rprod(&s, &P, 2 * b[0], b[1]);
  fe_sum_rprod(&s, &P, -a[0], c[1]);
  fe_sum_rprod(&s, &P, -a[1], c[0]);
  double ED, b12 = fabs(b[1]) + fabs(b[2]);
  double Q = b12 * b12 + 2 * fabs(b[0]) * fabs(b[2]) + (fabs(a[1]) + fabs(a[2])) * (fabs(c[1]) + fabs(c[2])) +
             fabs(a[0]) * fabs(c[2]) + fabs(a[2]) * fabs(c[0]);
  fdd D = fe_sum_end(&s, &ED);
  ED = up(ED + 0x1p-53 * P + Q + k->eb3 * (2 * fe_abs3(b) + k->eb3) + k->ea3 * fe_abs3(c) +
          (fe_abs3(a) + k->ea3) * k->ec3) + 0x1p-930;
  return fe_sqrt_D_keep(k, D, ED, fm) || fe_sqrt_D(k, fm);
}

/* ---- d = T - t* near the root ---- */

/* G = a Ts + b from the triples (error *EG), as fe_sqrt_D: TwoProds of Ts by
 * the two leading components of a, the third rounded; |Ts| <= 2^400. */
FAST_INLINE fdd fe_G(const ref_fast_prep *k, double Ts, double *EG, const int fm) {
  const double *a = k->a3, *b = k->b3;
  fe_sum s = {0, 0, 0, 0, 0};
  double P = 0;
  fe_sum_add(&s, b[0]);
  fe_sum_prod(&s, Ts, a[0], fm);
  fe_sum_add2(&s, b[1]);
  fe_sum_prod2(&s, Ts, a[1], fm);
  fe_sum_add3(&s, b[2]);
  fe_sum_rprod(&s, &P, Ts, a[2]);
  fdd G = fe_sum_end(&s, EG);
  *EG = up(*EG + 0x1p-53 * P + k->eb3 + fabs(Ts) * k->ea3) + 0x1p-930;
  return G;
}

/* F(Ts) = c + 2 Ts b + Ts^2 a from the triples (error *EF): Ts^2 = H + h by
 * TwoProd (exact: |Ts| >= 2^-400 or Ts = 0), then TwoProds of 2 Ts and H by
 * the leading components, h by the first, the rest rounded. With the
 * triples' errors: ec + 2 |Ts| eb + (|H| + |h|) ea. |Ts| <= 2^400 and the
 * triples below 2^140 keep every operand below 2^995 and every term below
 * 2^940. */
FAST_INLINE fdd fe_F(const ref_fast_prep *k, double Ts, double *EF, const int fm) {
  const double *a = k->a3, *b = k->b3, *c = k->c3;
  fe_sum s = {0, 0, 0, 0, 0};
  double P = 0, T2 = 2 * Ts;
  fdd H = two_prod(Ts, Ts, fm);
  fe_sum_add(&s, c[0]);
  fe_sum_prod(&s, T2, b[0], fm);
  fe_sum_prod(&s, H.h, a[0], fm);
  fe_sum_add2(&s, c[1]);
  fe_sum_prod2(&s, T2, b[1], fm);
  fe_sum_prod2(&s, H.h, a[1], fm);
  fe_sum_prod2(&s, H.l, a[0], fm);
  fe_sum_add3(&s, c[2]);
  fe_sum_rprod(&s, &P, T2, b[2]);
  fe_sum_rprod(&s, &P, H.h, a[2]);
  fe_sum_rprod(&s, &P, H.l, a[1]);
  fe_sum_rprod(&s, &P, H.l, a[2]);
  fdd F = fe_sum_end(&s, EF);
  *EF = up(*EF + 0x1p-53 * P + k->ec3 + fabs(T2) * k->eb3 + (fabs(H.h) + fabs(H.l)) * k->ea3) + 0x1p-930;
  return F;
}

#ifdef FE_DISPATCH
/*
 * fe_F and fe_G at once in the FMA build, F in lane 0 and G in lane 1 of
 * 128-bit vectors: every lane makes the same operations in the same order
 * as the scalar code, term by term (F's twelve; G's six at the places of
 * F's terms of the same kind, products of zeros at the others, which leave
 * the sums as they are: fe_triples_direct_v's argument), so F, G, their
 * sums' term counts (17 and 8, kept apart) and errors are those doubles bit
 * for bit. Every term is finite (|Ts| <= 2^400, the triples below 2^140),
 * so adding a zero changes nothing.
 */
__attribute__((target("avx,fma"))) static void fe_FG_v(const ref_fast_prep *k, double Ts, fdd *F, double *EF, fdd *G,
                                                       double *EG) {
  const double *a = k->a3, *b = k->b3, *c = k->c3;
  const double T2 = 2 * Ts;
  const fdd H = two_prod(Ts, Ts, 1);
  const __m128d sgn = _mm_set1_pd(-0.0), z = _mm_setzero_pd();
  __m128d S1 = z, S2 = z, S3 = z, Gs = z, P = z;
#define FE_TS(x, y, hi, lo)                                                                                            \
  do {                                                                                                                 \
    __m128d s_ = _mm_add_pd(x, y), bb_ = _mm_sub_pd(s_, x), aa_ = _mm_sub_pd(s_, bb_);                                 \
    lo = _mm_add_pd(_mm_sub_pd(x, aa_), _mm_sub_pd(y, bb_));                                                           \
    hi = s_;                                                                                                           \
  } while (0)
#define FE_ADD1(t)                                                                                                     \
  do {                                                                                                                 \
    __m128d fl_, gl_;                                                                                                  \
    FE_TS(S1, t, S1, fl_);                                                                                             \
    FE_TS(S2, fl_, S2, gl_);                                                                                           \
    S3 = _mm_add_pd(S3, gl_);                                                                                          \
    Gs = _mm_add_pd(Gs, _mm_andnot_pd(sgn, gl_));                                                                      \
  } while (0)
#define FE_ADD2(t)                                                                                                     \
  do {                                                                                                                 \
    __m128d gl_;                                                                                                       \
    FE_TS(S2, t, S2, gl_);                                                                                             \
    S3 = _mm_add_pd(S3, gl_);                                                                                          \
    Gs = _mm_add_pd(Gs, _mm_andnot_pd(sgn, gl_));                                                                      \
  } while (0)
#define FE_ADD3(t)                                                                                                     \
  do {                                                                                                                 \
    S3 = _mm_add_pd(S3, t);                                                                                            \
    Gs = _mm_add_pd(Gs, _mm_andnot_pd(sgn, t));                                                                        \
  } while (0)
#define FE_PROD(x, y)                                                                                                  \
  do {                                                                                                                 \
    __m128d ph_ = _mm_mul_pd(x, y), pl_ = _mm_fmsub_pd(x, y, ph_);                                                     \
    FE_ADD1(ph_);                                                                                                      \
    FE_ADD2(pl_);                                                                                                      \
  } while (0)
#define FE_PROD2(x, y)                                                                                                 \
  do {                                                                                                                 \
    __m128d ph_ = _mm_mul_pd(x, y), pl_ = _mm_fmsub_pd(x, y, ph_);                                                     \
    FE_ADD2(ph_);                                                                                                      \
    FE_ADD3(pl_);                                                                                                      \
  } while (0)
#define FE_RPROD(x, y)                                                                                                 \
  do {                                                                                                                 \
    __m128d r_ = _mm_mul_pd(x, y);                                                                                     \
    FE_ADD3(r_);                                                                                                       \
    P = _mm_add_pd(P, _mm_andnot_pd(sgn, r_));                                                                         \
  } while (0)
  const __m128d tt = _mm_setr_pd(T2, Ts), hh = _mm_setr_pd(H.h, 0), hl = _mm_setr_pd(H.l, 0);
  const __m128d y0 = _mm_setr_pd(b[0], a[0]), y1 = _mm_setr_pd(b[1], a[1]), y2 = _mm_setr_pd(b[2], a[2]);
  const __m128d a0 = _mm_setr_pd(a[0], 0), a1 = _mm_setr_pd(a[1], 0), a2 = _mm_setr_pd(a[2], 0);
  FE_ADD1(_mm_setr_pd(c[0], b[0]));
  FE_PROD(tt, y0);
  FE_PROD(hh, a0);
  FE_ADD2(_mm_setr_pd(c[1], b[1]));
  FE_PROD2(tt, y1);
  FE_PROD2(hh, a1);
  FE_PROD2(hl, a0);
  FE_ADD3(_mm_setr_pd(c[2], b[2]));
  FE_RPROD(tt, y2);
  FE_RPROD(hh, a2);
  FE_RPROD(hl, a1);
  FE_RPROD(hl, a2);
#undef FE_ADD1
#undef FE_ADD2
#undef FE_ADD3
#undef FE_PROD
#undef FE_PROD2
#undef FE_RPROD
  /* fe_sum_end in both lanes (n = 17 and 8): TwoSum(S1, S2) = H + L, l =
   * L + S3, err = up((n + 1) u G + u |l|), TwoSum(H, l). */
  __m128d h, l, e, r;
  FE_TS(S1, S2, h, l);
  l = _mm_add_pd(l, S3);
  e = _mm_add_pd(_mm_mul_pd(_mm_mul_pd(_mm_setr_pd(18, 9), _mm_set1_pd(0x1p-53)), Gs),
                 _mm_mul_pd(_mm_set1_pd(0x1p-53), _mm_andnot_pd(sgn, l)));
  e = _mm_mul_pd(e, _mm_set1_pd(1 + 0x1p-40));
  FE_TS(h, l, h, r);
  double hh2[2], ll2[2], ee[2], p[2];
  _mm_storeu_pd(hh2, h), _mm_storeu_pd(ll2, r), _mm_storeu_pd(ee, e), _mm_storeu_pd(p, P);
  F->h = hh2[0], F->l = ll2[0], G->h = hh2[1], G->l = ll2[1];
  *EF = up(ee[0] + 0x1p-53 * p[0] + k->ec3 + fabs(T2) * k->eb3 + (fabs(H.h) + fabs(H.l)) * k->ea3) + 0x1p-930;
  *EG = up(ee[1] + 0x1p-53 * p[1] + k->eb3 + fabs(Ts) * k->ea3) + 0x1p-930;
#undef FE_TS
}
#endif

/* y - Q for a double y and an enclosure Q of a root (error EQ): a
 * normalized double-double and its error. TwoSum(y, -Q.h) is exact, the one
 * rounding of d.l - Q.l costs <= u |that|, the last TwoSum is exact. */
FAST_INLINE fdd fe_diff(double y, fdd Q, double EQ, double *err) {
  fdd d = two_sum(y, -Q.h);
  double l = d.l - Q.l;
  *err = up(EQ + 0x1p-53 * fabs(l));
  return two_sum(d.h, l);
}

/* x + y for double-doubles of any signs: TwoSum of the hi parts (exact),
 * two roundings (<= u times each result), a last exact TwoSum. */
FAST_INLINE fdd fe_add_any(fdd x, fdd y, double *err) {
  fdd s = two_sum(x.h, y.h);
  double t = s.l + x.l, l = t + y.l;
  *err = up(0x1p-53 * (fabs(t) + fabs(l)));
  return two_sum(s.h, l);
}

/* A double-double is usable as an operand of dd_div, and known to 2^-62. */
static inline int fe_fine(fdd x, double E) {
  return fabs(x.h) >= 0x1p-800 && fabs(x.h) <= 0x1p800 && E <= 0x1p-62 * fabs(x.h);
}

/*
 * Y = a (Ts - t**) = G + sigma sqrt(D) without sqrt(D), near t* (the light
 * way's first try; G = a Ts + b, X = F(Ts), both from the triples, with
 * their errors): D = G^2 - a F exactly (it is b^2 - a c), so when G has the
 * sign sigma of t*'s side, sigma sqrt(D) = G sqrt(1 - mu), mu = a F / G^2,
 * and Y = G (2 + s), s = sqrt(1 - mu) - 1 = -mu / (1 + sqrt(1 - mu)). Near
 * t*, mu is about 4 (Ts - t*) / (t* - t**): tiny, so mu and s are needed
 * to a few bits of their own only, and plain doubles do. u = 2^-53:
 *  - a* within |a1| + |a2| + ea of a0, F* within |X.l| + EX of X.h, G*
 *    within |G.l| + EG of G.h: relative ra, rX, rG (each checked <= 2^-40;
 *    G* then has G.h's sign); mu~ = RN(RN(a0 X.h) / RN(G.h G.h)), the
 *    products checked in [2^-900, 2^900] (no underflow), is within 3u
 *    (1 + 2^-50) of a0 X.h / G.h^2, itself within (ra + rX + 2 rG)
 *    (1 + 2^-36) of mu*: |mu* - mu~| <= Dmu = |mu~| (ra + rX + 2 rG + 4u)
 *    (1 + 2^-35);
 *  - |mu~| <= 2^-20 (checked), so |mu*| < 2^-19, where s has slope
 *    1 / (2 sqrt(1 - mu)) <= 0.5001; s~ = RN(-mu~ / RN(1 + RN(sqrt(RN(1 -
 *    mu~))))): RN(1 - mu~) within u, its root within 1.5u of sqrt(1 -
 *    mu~), the sum with 1 (>= 1.99) within 3.5u, the quotient u more:
 *    |s~ - s(mu~)| <= 3u |s~|; Es = 0.5001 Dmu + 3u |s~| bounds |s* - s~|;
 *  - Y~ = Fast2Sum(2 G.h, l), l = RN(m + 2 G.l), m = RN(G.h s~) (exact:
 *    |l| < 2^-18 |G.h|): against G~ (2 + s~), G~ = G.h + G.l, it misses
 *    G.l s~ and two roundings: Er = u (|m| + |l|) + |G.l| |s~| + 2^-1070
 *    (m may underflow);
 *  - |Y* - Y~| <= |G* - G~| |2 + s*| + |G~| |s* - s~| + Er <= EG (2 +
 *    2^-18) + (|G.h| + |G.l|) Es + Er, up() covering the roundings of the
 *    bound.
 * 0 when G's sign is not sigma or a check fails: the caller then takes
 * sqrt(D) (fe_sqrt_D_lead).
 */
FAST_INLINE int fe_Y_near(fdd *Y, double *EY, const ref_fast_prep *k, int j, fdd X, double EX, fdd G, double EG) {
  const double u = 0x1p-53, *a = k->a3;
  if (!(j ? G.h > 0 : G.h < 0) || !(a[0] > 0) || !(fabs(G.h) <= 0x1p400) || X.h == 0) return 0;
  const double ra = (fabs(a[1]) + fabs(a[2]) + k->ea3) / a[0], rX = (fabs(X.l) + EX) / fabs(X.h),
               rG = (fabs(G.l) + EG) / fabs(G.h);
  const double p = a[0] * X.h, g2 = G.h * G.h, mu = p / g2, amu = fabs(mu);
  if (!(ra <= 0x1p-40 && rX <= 0x1p-40 && rG <= 0x1p-40) || !(fabs(p) >= 0x1p-900 && fabs(p) <= 0x1p900) ||
      !(g2 >= 0x1p-900 && g2 <= 0x1p900) || !(amu >= 0x1p-900 && amu <= 0x1p-20))
    return 0;
  const double Dmu = amu * (ra + rX + 2 * rG + 4 * u) * (1 + 0x1p-35);
  const double sm = -mu / (1 + sqrt(1 - mu)), Es = 0.5001 * Dmu + 3 * u * fabs(sm);
  const double m = G.h * sm, l = m + 2 * G.l;
  *Y = fast_two_sum(2 * G.h, l);
  const double Er = u * (fabs(m) + fabs(l)) + fabs(G.l) * fabs(sm) + 0x1p-1070;
  *EY = up(EG * (2 + 0x1p-18) + (fabs(G.h) + fabs(G.l)) * Es + Er);
  return 1;
}

/*
 * d = Ts - t* for root j (0 lower, 1 upper), |Ts| <= 2^400, triples ready.
 * Double root: d = G / a. Otherwise d = F / Y, Y = a (Ts - t**), either
 * Y = Delta a with Delta = Ts - t** from the enclosure of t** (two dd_div)
 * or, when that enclosure is too wide for Delta (close roots), Y = G + sigma
 * sqrt(D) (sigma = +1 for the upper root, -1 for the lower: t** = (-b -
 * sigma sqrt D)/a), a sum without cancellation while Ts is near t*. light:
 * the state holds the scaled data and the answer alone
 * (ref_fast_error_light), neither the roots' enclosures nor A nor whether
 * D = 0; only that last way is taken, which needs none of them, given a > 0
 * (v != 0) and D > 0: a D of 0 fails fe_sqrt_D's check (D.h >= 2^-800 with
 * ED <= 2^-62 D.h); Y there first without sqrt(D) (fe_Y_near, whose mu
 * would be 1 at D = 0, where it declines). Each
 * dd_div with iy = RN(1/y.h) is within 2^-100 relative; with r_x the
 * relative errors of the operands (each checked below 2^-62, read against
 * the hi parts, which the factor 1 + 2^-51 covers), the quotient's relative
 * error is below (sum r_x + 2^-99)(1 + 2^-58), and against |d~.h| one more
 * 1 + 2^-52: 1 + 2^-49 and up() cover all of it.
 */
FAST_INLINE int fe_near(fdd *dq, double *Ed, ref_fast_prep *k, int j, double Ts, const int light, const int fm) {
  const ref_fast_state *fs = &k->st;
  double EX, EY, rel;
  fdd X, d;
  if (!light && fs->graze) {
    X = fe_G(k, Ts, &EX, fm);
    if (!fe_fine(X, EX) || !fe_fine(fs->A, fs->Ea)) return 0;
    d = dd_div(X, fs->A, 1 / fs->A.h, fm);
    rel = EX / fabs(X.h) + fs->Ea / fs->A.h;
  } else {
    fdd G;
    double EG;
    int haveG = 0;
#ifdef FE_DISPATCH
    if (light && fm) { /* the light way always takes G: both at once */
      fe_FG_v(k, Ts, &X, &EX, &G, &EG);
      haveG = 1;
    } else
#endif
      X = fe_F(k, Ts, &EX, fm);
    if (!fe_fine(X, EX)) return 0;
    rel = EX / fabs(X.h);
    fdd Y = {0, 0};
    if (!light) Y = fe_diff(Ts, fs->t[1 - j], fs->Et[1 - j], &EY);
    if (!light && fe_fine(Y, EY) && fe_fine(fs->A, fs->Ea)) {
      fdd Z = dd_div(X, Y, 1 / Y.h, fm);
      if (!fe_fine(Z, 0)) return 0;
      d = dd_div(Z, fs->A, 1 / fs->A.h, fm);
      rel += EY / fabs(Y.h) + fs->Ea / fs->A.h;
    } else {
      double Er;
      if (!haveG) G = fe_G(k, Ts, &EG, fm);
      if (!(light && fe_Y_near(&Y, &EY, k, j, X, EX, G, EG))) {
        if (!(light ? fe_sqrt_D_lead(k, fm) : fe_sqrt_D(k, fm))) return 0;
        Y = fe_add_any(G, j ? k->sD : dd_neg(k->sD), &Er);
        EY = up(EG + k->esD + Er);
      }
      if (!fe_fine(Y, EY)) return 0;
      d = dd_div(X, Y, 1 / Y.h, fm);
      rel += EY / fabs(Y.h);
    }
  }
  *dq = d;
  *Ed = up((rel + 0x1p-99) * (1 + 0x1p-49) * fabs(d.h));
  return 1;
}

/* ---- the ulp error ---- */

/* x 2^k exactly into *out, or 0: when bits were lost (a subnormal result;
 * scaling it back then misses x, since scaling up is exact), or beyond
 * 2^1000 (too close to overflow for the sums). */
static int fe_scale_exact(double *out, double x, int k) {
  double y = x;
  if (x != 0 && k != 0) {
    if (k < -2044 || k > 2044) return 0;
    y = fast_scale(x, k);
    if (y == 0 || fast_scale(y, -k) != x) return 0;
  }
  *out = y;
  return fabs(y) <= 0x1p1000;
}

/*
 * The exponent of ulp_pi(t*) from RN(t*) = rn (binary64's rounding whatever
 * pi): 2^e <= |rn| < 2^(e+1) puts t* in
 * the same binade unless |rn| is a power of two, which t* may lie just
 * below; then the enclosure decides (undecided: 0). Below 2^-1021 and for
 * an infinite rn the clamps of ref_error.c make the binade irrelevant (the
 * formats have emin >= -1022 and emax <= 1023).
 */
static int fe_ulp_exp(int *ue, const ref_fast_state *fs, int j, double rn, const toi_precision_info *pi) {
  double arn = fabs(rn);
  if (!(arn >= 0x1p-1021)) { /* then |t*| < 2^-1021: ulp(t*) = 2^-1074 for binary64 */
    *ue = pi->emin - (pi->p - 1);
    return 1;
  }
  if (arn == INFINITY) { /* |t*| >= 2^1024 - 2^970: 2^971 for binary64 */
    *ue = pi->emax - (pi->p - 1);
    return 1;
  }
  int e = fast_ilog2(arn);
  if (arn == fast_pow2(e)) {
    /* sign(|t*| - 2^e) in scaled units: |Q.h| - P is exact (Sterbenz: Q is
     * within 2^-60 of t*, itself within half an ulp of P), adding the low
     * part rounds once (relative u), and Q errs by at most Et. */
    int eP = e - fs->k2;
    if (eP < -1022 || eP > 1023) return 0;
    fdd Q = fs->t[j];
    double sq = Q.h < 0 ? -1 : 1;
    double d = (sq * Q.h - fast_pow2(eP)) + sq * Q.l;
    if (!(fabs(d) * (1 - 0x1p-52) > fs->Et[j])) return 0;
    if (d < 0) e--;
  }
  *ue = (e < pi->emin ? pi->emin : e > pi->emax ? pi->emax : e) - (pi->p - 1);
  return 1;
}

/*
 * rs - t* for root j, rs = RN(t*) scaled, by the near method at rs, once per
 * case and root (triples ready): every answer T near t* then has
 * T - t* = (Ts - rs) + (rs - t*), Ts - rs exact (TwoSum), the sum of the
 * two double-doubles by fe_add_any (its error) plus the error of rs - t*. Since |rs - t*| is at most half an ulp of t*, its enclosure from
 * fe_near errs by about 2^-92 of it, so for T a few ulps from t* this gives
 * d to about 90 bits, where fe_near at Ts would cost the same sums again.
 */
FAST_INLINE int fe_root_dr(ref_fast_prep *k, int j, const int light, const int fm) {
  if (k->haveR[j]) return k->haveR[j] > 0;
  k->haveR[j] = -1;
  double rn = j ? k->st.r.thi : k->st.r.tlo, rs;
  if (!fe_scale_exact(&rs, rn, -k->st.k2) || !(fabs(rs) >= 0x1p-400 && fabs(rs) <= 0x1p400)) return 0;
  if (!fe_near(&k->dr[j], &k->Edr[j], k, j, rs, light, fm)) return 0;
  k->rs[j] = rs;
  k->haveR[j] = 1;
  return 1;
}

/* d = Ts - t* from rs - t* (fe_root_dr ready), with its error *Ed. */
FAST_INLINE fdd fe_near_from_rn(const ref_fast_prep *k, int j, double Ts, double *Ed) {
  fdd x = two_sum(Ts, -k->rs[j]);
  double E;
  fdd d = fe_add_any(x, k->dr[j], &E);
  *Ed = up(E + k->Edr[j]);
  return d;
}

/* |Ts - t*| for root j by the far method: straight from the root's
 * enclosure, within *Ed (fe_diff). Exact (*Ed = 0) for an exact root, the 0
 * of a touching pair (Et = 0). */
FAST_INLINE fdd fe_far(const ref_fast_state *fs, int j, double Ts, double *Ed) {
  fdd d = fe_diff(Ts, fs->t[j], fs->Et[j], Ed);
  return d.h < 0 ? dd_neg(d) : d;
}

/* The ulp error q = |T - t*| 2^kq of root j (0 lower, 1 upper), T given
 * scaled (Ts) and kq from the root's ulp (fe_ulp_root_of): far, else near. */
FAST_INLINE int fe_ulp(double *q, ref_fast_prep *k, int j, double Ts, int kq, const int fm) {
  const ref_fast_state *fs = &k->st;
  double Ed;
  fdd d = fe_far(fs, j, Ts, &Ed);
  if (d.h == 0 && Ed == 0) {
    *q = 0;
    return 1;
  }
  if (fast_certify(q, d, Ed, kq)) return 1;

  /* Near. */
  if (fs->Et[j] == 0 || !(Ts == 0 || (fabs(Ts) >= 0x1p-400 && fabs(Ts) <= 0x1p400))) return 0;
  if (!fe_triples(k, fm)) return 0;
  if (fe_root_dr(k, j, 0, fm)) {
    d = fe_near_from_rn(k, j, Ts, &Ed);
    if (fast_certify(q, d.h < 0 ? dd_neg(d) : d, Ed, kq)) return fe_counts.error_near_rn++, 1;
  }
  if (!fe_near(&d, &Ed, k, j, Ts, 0, fm) || !fast_certify(q, d.h < 0 ? dd_neg(d) : d, Ed, kq)) return 0;
  return fe_counts.error_near_t++, 1;
}

/*
 * The ulp error in binary64 from the light state (ref_fast_error_light): the
 * scaled data and RN(t*) alone. For T near t* this is fe_ulp's per-root
 * path, rs - t* made by the near method without the roots' enclosures
 * (fe_near's light way: Y = a Ts + b + sigma sqrt(D) from the triples); for
 * T far from t*, d = (Ts - rs) + (rs - t*) is known far better than the
 * quotient needs, so no far method is wanted either. 0 whenever anything is
 * missing (t* exact or 0, D = 0 or too close to it, ranges): the caller then
 * prepares the case and measures as before; what is certified here is the
 * same double as there.
 */
FAST_INLINE int fe_ulp_light(double *q, ref_fast_prep *k, int j, double Ts, int kq, const int fm) {
  if (!(Ts == 0 || (fabs(Ts) >= 0x1p-400 && fabs(Ts) <= 0x1p400))) return 0;
  if (!fe_triples(k, fm) || !fe_root_dr(k, j, 1, fm)) return 0;
  double Ed;
  fdd d = fe_near_from_rn(k, j, Ts, &Ed);
  return fast_certify(q, d.h < 0 ? dd_neg(d) : d, Ed, kq);
}

/* ---- kappa ---- */

/* x y for normalized double-doubles: x.h y.h exactly (TwoProd), the cross
 * products rounded, x.l y.l dropped. Error <= (1 + 1 + 1 + 2 + 3) u^2
 * |x.h y.h| (1 + 2^-50) <= 2^-103 |x y|: the dropped term, the two cross
 * products, their sum (<= u 2u), the sum with the TwoProd's low part
 * (<= u 3u); the last Fast2Sum is exact (|l| <= 3.1u |p.h|). Underflow adds
 * at most 5 2^-1075, and a TwoProd below 2^-900 less than 2^-940
 * (fe_sum_prod). */
FAST_INLINE fdd fe_mul(fdd x, fdd y, const int fm) {
  fdd p = two_prod(x.h, y.h, fm);
  double l = p.l + (x.h * y.l + x.l * y.h);
  return fast_two_sum(p.h, l);
}

/* x + y for nonnegative normalized double-doubles: TwoSum of the hi parts
 * (exact), two roundings of the low parts, each within u of a value at most
 * 3u (x + y): error <= 5u^2 (x + y) (1 + 2^-50) <= 2^-103 (x + y); the
 * Fast2Sum is exact. */
FAST_INLINE fdd fe_add(fdd x, fdd y) {
  fdd s = two_sum(x.h, y.h);
  return fast_two_sum(s.h, (s.l + x.l) + y.l);
}

/* |x| + |y| for doubles as an exact normalized double-double, scaled by 2^k:
 * exact when each nonzero part stays in [2^-900, 2^300] (checked; the bounds
 * also keep every product below far from overflow and underflow). */
static int fe_weight(fdd *w, double x, double y, int k) {
  fdd s = two_sum(fabs(x), fabs(y));
  if (!isfinite(s.h)) return 0;
  if (k) {
    s.h = fast_scale(s.h, k);
    s.l = fast_scale(s.l, k);
  }
  int ok = s.h == 0 || (s.h >= 0x1p-900 && s.h <= 0x1p300);
  ok &= s.l == 0 || (fabs(s.l) >= 0x1p-900 && fabs(s.l) <= 0x1p300);
  *w = s;
  return ok;
}

/*
 * kappa from an enclosure Qs of the signed root (error Et) and one of
 * sqrt(D) (error Esq). Weights wp_i = (|pA_i| + |pB_i|) 2^-es, wv_i =
 * (|vA_i| + |vB_i|) 2^-ev, wr = (rA + rB) 2^-es, all exact; |t| = |Qs|
 * (relative error rt = Et / |Q.h|, 1 + 2^-51 for the hi part);
 * u_i = s_i + v_i Qs: TwoProd(v.h, Qs.h) exact (|v.h| >= 2^-480 by exact
 * data, |Q.h| >= 2^-400), TwoSum(s.h, that) exact, the other five pieces
 * summed by recursion (gamma_5 <= 6u of their magnitudes) after three
 * roundings of products (u each, underflow 2^-1075 each), then |v_i| Et
 * for the root: e_i. Then
 *   N = sum_i (wp_i + |t| wv_i) |u_i| + wr R,   den = sqrt(D) |t|,
 * every operation on nonnegative numbers with relative error <= 2^-103
 * (fe_mul, fe_add): N errs by <= sum_i W_i e_i + N (rt + 8 2^-103), W_i >=
 * the weight, plus 2^-600 for underflow (errors below 2^-936 times factors
 * below 2^336: weights <= 2^300, |u_i| <= 2^66); N >= 2^-480 is required.
 * den adds rt and 2^-103 to sqrt(D)'s relative error, dd_div 2^-100. The
 * first-order sum of the relative errors, the rest covered by 1 + 2^-49.
 * Finally the MPFR value lies within REF_KAPPA_REL_ERR of kappa: certifying
 * the widened enclosure certifies its rounding too.
 */
FAST_INLINE int fe_kappa_at(double *kappa, const ref_fast_state *fs, const toi_case *c, fdd Qs, double Et,
                            fdd sq, double Esq, const int fm) {
  const fdd Q = Qs.h < 0 ? dd_neg(Qs) : Qs;
  if (!(Q.h >= 0x1p-400 && Q.h <= 0x1p300) || !(sq.h >= 0x1p-400 && sq.h <= 0x1p400)) return 0;
  const double rt = Et / Q.h * (1 + 0x1p-51);
  fdd N = {0, 0}, w;
  double EN = 0;
  for (int i = 0; i < 3; i++) {
    fdd wp, wv;
    if (!fe_weight(&wp, c->pa[i], c->pb[i], -fs->es) || !fe_weight(&wv, c->va[i], c->vb[i], -fs->ev)) return 0;
    fdd s = fs->s[i], v = fs->v[i];
    fdd p = two_prod(v.h, Qs.h, fm);
    fdd x = two_sum(s.h, p.h);
    double m1 = v.h * Qs.l, m2 = v.l * Qs.h, m3 = v.l * Qs.l;
    double rest = ((((x.l + s.l) + p.l) + m1) + m2) + m3;
    double mag = fabs(x.l) + fabs(s.l) + fabs(p.l) + fabs(m1) + fabs(m2) + fabs(m3);
    fdd U = two_sum(x.h, rest);
    if (U.h < 0) U = dd_neg(U);
    double e = up(6 * 0x1p-53 * mag + 0x1p-53 * (fabs(m1) + fabs(m2) + fabs(m3)) +
                  fabs(v.h) * (1 + 0x1p-52) * Et) + 0x1p-1070;
    w = fe_add(wp, fe_mul(Q, wv, fm));
    N = fe_add(N, fe_mul(w, U, fm));
    EN += w.h * e;
  }
  if (!fe_weight(&w, c->ra, c->rb, -fs->es)) return 0;
  N = fe_add(N, fe_mul(w, fs->s[3], fm));
  if (!(N.h >= 0x1p-480 && N.h <= 0x1p800)) return 0;
  EN = up(EN * (1 + 0x1p-50) + N.h * (rt + 0x1p-100)) + 0x1p-600;
  fdd den = fe_mul(sq, Q, fm);
  fdd K = dd_div(N, den, 1 / den.h, fm);
  double rK = (EN / N.h + Esq / sq.h + rt + 0x1p-103 + 0x1p-100) * (1 + 0x1p-49);
  double E = up(K.h * (rK + REF_KAPPA_REL_ERR * (1 + 0x1p-49)));
  return fast_certify(kappa, K, E, 0);
}

/* kappa for root j: with the engine's root and D first; when either is
 * known to less than 2^-80 and the certification failed (near a graze),
 * again with sqrt(D) from the triples and the root refined by the near
 * method at RN(t*), kept for the errors too (fe_root_dr): t* = rs - dr within
 * Edr plus the rounding (fe_diff). */
FAST_INLINE int fe_kappa(double *kappa, ref_fast_prep *k, const toi_case *c, int j, const int fm) {
  const ref_fast_state *fs = &k->st;
  if (!fs->exact_data) return 0;
  fdd Q = fs->t[j];
  double EQ = fs->Et[j], h, w0;
  const fdd zero = {0, 0};
  fdd sq = dd_add_sqrt(zero, fs->D, &h, &w0, fm);
  double Esq = up(0x1p-101 * sq.h + fs->ED / h * (1 + 0x1p-51)); /* as fe_sqrt_D */
  if (fe_kappa_at(kappa, fs, c, Q, EQ, sq, Esq, fm)) return 1;
  int better = 0;
  if (Esq > 0x1p-80 * sq.h && fe_sqrt_D(k, fm) && k->esD < Esq / sq.h * k->sD.h) {
    sq = k->sD, Esq = k->esD;
    better = 1;
  }
  if (EQ > 0x1p-80 * fabs(Q.h) && fe_triples(k, fm) && fe_root_dr(k, j, 0, fm)) {
    double Er;
    fdd Qr = fe_diff(k->rs[j], k->dr[j], k->Edr[j], &Er);
    if (Er < EQ) Q = Qr, EQ = Er, better = 1;
  }
  return better && fe_kappa_at(kappa, fs, c, Q, EQ, sq, Esq, fm);
}

/* ---- an enclosure of kappa in plain doubles ---- */

/* (|x| + |y|) 2^k rounded once (relative error <= u), or -1 when the sum is
 * not finite or the scaled sum is neither 0 nor in [2^-900, 2^300] (then the
 * scaling is exact and no product below underflows or overflows). */
FAST_INLINE double fe_rough_weight(double x, double y, int k) {
  double w = fabs(x) + fabs(y);
  if (!isfinite(w)) return -1;
  if (k) w = fast_scale(w, k); /* unscaled data (k = 0, the usual case): w itself, as fast_scale gives it */
  return w == 0 || (w >= 0x1p-900 && w <= 0x1p300) ? w : -1;
}

/*
 * An enclosure [*lo, *hi] of the kappa fe_kappa certifies (the MPFR value),
 * from one pass in plain doubles over the same formula, kept only when its
 * relative width is below about 2^-29. With the true signed root T* (scaled),
 * tau = |Q.l| + Et >= |T* - Q.h|, t = |Q.h|, rho = tau / t <= 2^-40 and
 * u = 2^-53:
 *  - u_i = s_i + v_i T* against x = RN(s.h + RN(v.h Q.h)) (s, v exact
 *    double-doubles): |u_i - x| <= |s.l| + |v.l| (t + tau) + |v.h| tau
 *    + u (|p| + |x|) + 2^-1074 =: e_i, evaluated with five roundings of
 *    nonnegative sums and products, covered by 1 + 2^-45;
 *  - the weights wp, wv within u of the exact (fe_rough_weight), w = wp +
 *    t wv within (rho + 3u)(1 + 2^-30) of wp + |T*| wv, relative (t is
 *    within rho of |T*|): call it rw = rho + 4u;
 *  - a term w |u_i| against the computed RN(w |x|): w (1 + rw) e_i + w |x|
 *    (rw + u); wr R likewise with R = s[3] (|s3.l| <= u s3.h) within 3u; the
 *    sum N of four nonnegative terms within 3u N more; EN all of it, its
 *    own roundings covered by 1 + 2^-40, the products' underflows (2^-1074
 *    each) by 2^-1000;
 *  - sqrt(D) |T*| against RN(sq t), sq within rs of sqrt(D) relative (the
 *    caller's: RN(sqrt(D.h)) with D within eD = ED + |D.l| of D.h, rs = eD /
 *    D.h + 2u; near a graze, the hi part of fe_sqrt_D's, rs = (esD + |l|) /
 *    hi), rs <= 2^-40, then rho and u;
 *  - K = RN(N / den) within u more.
 * Every relative error is below 2^-30, so their first-order sum times
 * 1 + 2^-20 bounds the product of the factors: rK. Finally the value
 * certified (MPFR's, REF_KAPPA_REL_ERR from kappa, then rounded: u) lies in
 * K (1 +- (rK + REF_KAPPA_REL_ERR + u)(1 + 2^-20)), whose ends are rounded
 * outward by 1 +- 2^-50 (each product's rounding is within u of it).
 */
static int fe_kappa_rough(double *lo, double *hi, const ref_fast_state *fs, const toi_case *c, int j, double sq,
                          double rs) {
  const double u = 0x1p-53;
  if (!fs->exact_data) return 0;
  const fdd Q = fs->t[j];
  const double t = fabs(Q.h), tau = (fabs(Q.l) + fs->Et[j]) * (1 + 0x1p-50);
  if (!(t >= 0x1p-400 && t <= 0x1p300) || !(tau <= 0x1p-40 * t)) return 0;
  if (!(sq >= 0x1p-400 && sq <= 0x1p400) || !(rs <= 0x1p-40)) return 0;
  const double rho = tau / t * (1 + 0x1p-50), rw = rho + 4 * u;
  double N = 0, EN = 0;
  for (int i = 0; i < 3; i++) {
    double wp = fe_rough_weight(c->pa[i], c->pb[i], -fs->es), wv = fe_rough_weight(c->va[i], c->vb[i], -fs->ev);
    if (wp < 0 || wv < 0) return 0;
    const fdd si = fs->s[i], vi = fs->v[i];
    double p = vi.h * Q.h, x = si.h + p, ax = fabs(x);
    double e = (fabs(si.l) + fabs(vi.l) * (t + tau) + fabs(vi.h) * tau + u * (fabs(p) + ax)) * (1 + 0x1p-45) +
               0x1p-1070;
    double w = wp + t * wv, term = w * ax;
    N += term;
    EN += w * (1 + rw) * e + term * (rw + u);
  }
  double wr = fe_rough_weight(c->ra, c->rb, -fs->es);
  if (wr < 0) return 0;
  double tr = wr * fs->s[3].h;
  N += tr;
  EN = (EN + tr * 3 * u + N * 3 * u) * (1 + 0x1p-40) + 0x1p-1000; /* and the underflows of the products */
  if (!(N >= 0x1p-480 && N <= 0x1p800)) return 0;
  double den = sq * t, K = N / den;
  double rK = (EN / N + rs + rho + 4 * u) * (1 + 0x1p-20);
  if (!(rK <= 0x1p-30) || !isfinite(K)) return 0;
  double r = (rK + REF_KAPPA_REL_ERR + u) * (1 + 0x1p-20);
  *lo = K * (1 - r) * (1 - 0x1p-50);
  *hi = K * (1 + r) * (1 + 0x1p-50);
  return 1;
}

/* ---- the builds ---- */

static int fe_ulp_gen(double *q, ref_fast_prep *k, int j, double Ts, int kq) {
  return fe_ulp(q, k, j, Ts, kq, FE_GEN_FMA);
}
static int fe_kappa_gen(double *kappa, ref_fast_prep *k, const toi_case *c, int j) {
  return fe_kappa(kappa, k, c, j, FE_GEN_FMA);
}
static int fe_sqrt_D_gen(ref_fast_prep *k) { return fe_sqrt_D(k, FE_GEN_FMA); }
static int fe_ulp_light_gen(double *q, ref_fast_prep *k, int j, double Ts, int kq) {
  return fe_ulp_light(q, k, j, Ts, kq, FE_GEN_FMA);
}
#ifdef FE_DISPATCH
__attribute__((target("fma"))) static int fe_ulp_fma(double *q, ref_fast_prep *k, int j, double Ts, int kq) {
  return fe_ulp(q, k, j, Ts, kq, 1);
}
__attribute__((target("fma"))) static int fe_kappa_fma(double *kappa, ref_fast_prep *k, const toi_case *c, int j) {
  return fe_kappa(kappa, k, c, j, 1);
}
__attribute__((target("fma"))) static int fe_sqrt_D_fma(ref_fast_prep *k) { return fe_sqrt_D(k, 1); }
__attribute__((target("fma"))) static int fe_ulp_light_fma(double *q, ref_fast_prep *k, int j, double Ts, int kq) {
  return fe_ulp_light(q, k, j, Ts, kq, 1);
}
#define FE_PICK(name) (ref_fast_fma() ? name##_fma : name##_gen)
/* The upper halves of the vector registers set to zero. A measure reaches
 * ref_fast_error_light with them in use (measured: something before it in
 * the scoring loop leaves them so), and then every change between the FMA
 * build's VEX code and the plain SSE2 code it calls (fe_scale_exact,
 * fast_certify, the library's sqrt) or returns to costs a state change: the
 * light path took 1.3 times the CPU time of the prepared one for fewer
 * instructions. Values are unchanged (the low halves are kept). */
__attribute__((target("avx"))) static void fe_upper_zero(void) { __builtin_ia32_vzeroupper(); }
#define FE_UPPER_ZERO() (ref_fast_fma() ? fe_upper_zero() : (void)0)
/* FE_PICK and FE_UPPER_ZERO with fm = ref_fast_fma() read once by the caller. */
#define FE_FMA_NOW() ref_fast_fma()
#define FE_PICK_FM(name, fm) ((fm) ? name##_fma : name##_gen)
#define FE_UPPER_ZERO_FM(fm) ((fm) ? fe_upper_zero() : (void)0)
#else
#define FE_PICK(name) name##_gen
#define FE_UPPER_ZERO() ((void)0)
#define FE_FMA_NOW() 0
#define FE_PICK_FM(name, fm) ((void)(fm), name##_gen)
#define FE_UPPER_ZERO_FM(fm) ((void)(fm))
#endif

/* The data of the root in direction dir, precision q (k->ok) that every
 * error against it uses: its root j, RN_q(t*) and the exponent kq of
 * q = |d| 2^kq (d scaled), once per case; state -1 when there is no root or
 * they cannot be had here. */
static const struct fe_ulp_root *fe_ulp_root_of(ref_fast_prep *k, toi_direction dir, toi_precision q) {
  struct fe_ulp_root *b = &k->br[dir][q];
  if (b->state) return b;
  b->state = -1;
  const ref_fast_state *fs = &k->st;
  int low = ref_dir_root(&fs->r, dir), ue;
  if (low < 0) return b;
  double rn = low ? fs->r.tlo : fs->r.thi;
  if (!ref_round_certified(&b->rq, rn, q) || !fe_ulp_exp(&ue, fs, low ? 0 : 1, rn, toi_precision_get(q))) return b;
  b->j = low ? 0 : 1;
  b->kq = fs->k2 - ue;
  b->state = 1;
  return b;
}

/* In a precision q other than binary64, RN_q(t*) comes from the certified
 * RN(t*) (ref_round_certified) and the ulp from t*'s binade, clamped to q's
 * range: the same exact quotient, with q's power of two. */
static int fe_error(ref_fast_prep *k, double *ulp, double *bits, double T, toi_direction dir, toi_precision q) {
  fe_counts.error_calls++;
  if (!k->ok) return fe_counts.error_fb++, 0;
  const toi_ref *r = &k->st.r;
  int lo = ref_dir_root(r, dir);
  if (lo < 0 || isnan(T)) { /* as ref_error.c: no root, or no answer */
    *ulp = *bits = NAN;
    return 1;
  }
  double rq;
  if (!ref_round_certified(&rq, lo ? r->tlo : r->thi, q)) return fe_counts.error_fb++, 0;
  if (isinf(T)) {
    *ulp = *bits = T == rq ? 0.0 : INFINITY;
    return 1;
  }
  const struct fe_ulp_root *b = fe_ulp_root_of(k, dir, q);
  double e, Ts;
  if (b->state < 0 || !fe_scale_exact(&Ts, T, -k->st.k2) || !FE_PICK(fe_ulp)(&e, k, b->j, Ts, b->kq))
    return fe_counts.error_fb++, 0;
  *ulp = e;
  *bits = ref_bits_apart_prec(T, rq, q);
  return 1;
}

/*
 * An enclosure [lo, hi] of the ulp error fe_error gives, from the root's
 * enclosure alone (fe_far, fe_ulp's first method): d = Ts - t* within Ed, so the
 * exact quotient |d~| 2^kq, and with it its rounding, lies in
 * [(|d| - Ed) 2^kq, (|d| + Ed) 2^kq]. The ends are rounded outward: three
 * roundings of nonnegative sums (u each) and the product by 1 +- 2^-49
 * (u more) stay inside the factor, and the scaling is exact when both ends
 * are normal and below 2^1000 (checked). lo = hi when the far method
 * certifies the error itself. 0 when the caller must ask fe_error: no
 * root, a NaN or infinite T, or what the checks refuse. A caller that only
 * needs the error's histogram bin or to know it is below a maximum spares
 * the near method, about 90 bits of F(T), for most answers.
 */
static int fe_error_bound(ref_fast_prep *k, double *lo, double *hi, double *bits, double T, toi_direction dir,
                          toi_precision q) {
  if (!k->ok || isnan(T) || isinf(T) || (unsigned)dir > 1 || (unsigned)q >= TOI_PRECISION_COUNT) return 0;
  const struct fe_ulp_root *b = fe_ulp_root_of(k, dir, q);
  const ref_fast_state *fs = &k->st;
  double Ts, Ed;
  if (b->state < 0 || !fe_scale_exact(&Ts, T, -fs->k2)) return 0;
  const int kq = b->kq;
  fdd d = fe_far(fs, b->j, Ts, &Ed);
  double e;
  if (d.h == 0 && Ed == 0) {
    e = 0;
  } else if (!fast_certify(&e, d, Ed, kq)) {
    double w = (fabs(d.l) + Ed) * (1 + 0x1p-50);
    double up_s = (d.h + w) * (1 + 0x1p-49), lo_s = (d.h - w) * (1 - 0x1p-49);
    if (!(up_s > 0) || !isfinite(up_s) || fast_ilog2(up_s) + kq > 1000) return 0;
    if (!(lo_s > 0)) lo_s = 0;
    if (lo_s > 0 && fast_ilog2(lo_s) + kq < -1000) return 0;
    *lo = lo_s > 0 ? fast_scale(lo_s, kq) : 0;
    *hi = fast_scale(up_s, kq);
    *bits = ref_bits_apart_prec(T, b->rq, q);
    return 1;
  }
  *lo = *hi = e;
  *bits = ref_bits_apart_prec(T, b->rq, q);
  return 1;
}

int ref_fast_error_bound_p(ref_fast_prep *k, double *lo, double *hi, double *bits, double T, toi_direction dir,
                           toi_precision q) {
  return fe_error_bound(k, lo, hi, bits, T, dir, q);
}

/*
 * An enclosure [lo, hi] of (t* - R) / u, t* the exact root in direction dir,
 * for any double R and power of two u (the caller's use: R = RN_q(t*), u its
 * ulp, the root's offset), from the root's enclosure alone. In scaled units
 * (Rs = R 2^-k2, exact: fe_scale_exact) fe_diff gives d with
 * |d - (Rs - t*_s)| <= Ed, so X = Rs - t*_s lies in [d.h - w, d.h + w] for
 * w >= |d.l| + Ed: RN(|d.l| + Ed) >= (|d.l| + Ed)(1 - 2^-53) when that sum
 * is 0 or at least 2^-1000 (checked; no underflow), and the product by
 * 1 + 2^-50 rounds to at least (1 - 2^-53)^2 (1 + 2^-50) > 1 times it. The
 * ends A = d.h - w, B = d.h + w are rounded once: |RN(A) - A| <= 2^-53
 * |RN(A)|, so A' = RN(RN(A) - |RN(A)| 2^-52) <= A when |RN(A)| >= 2^-960
 * (the product by 2^-52 exact, the subtraction's rounding at most 2^-53
 * (1 + 2^-52) |RN(A)|: together below 2^-52 |RN(A)|) or RN(A) = 0 (then
 * A = 0: a difference of doubles is 0 only when they are equal); B' >= B
 * alike. Then (t* - R) / u = -X 2^k2 / u lies in [-B' 2^(k2-eu), -A'
 * 2^(k2-eu)], u = 2^eu, each end scaled exactly (a normal end to a normal
 * result, checked). 0 when it cannot be had here: not
 * prepared by the fast engine, no root in direction dir, R or u out of range.
 */
static int fe_offset(const ref_fast_prep *k, double *lo, double *hi, double R, double u, toi_direction dir) {
  if (!k->ok || (unsigned)dir > 1 || !(u > 0) || !isfinite(R)) return 0;
  const ref_fast_state *fs = &k->st;
  int low = ref_dir_root(&fs->r, dir);
  if (low < 0 || !isfinite(u) || !(u >= 0x1p-1022)) return 0;
  int eu = fast_ilog2(u);
  if (u != fast_pow2(eu)) return 0;
  const int j = low ? 0 : 1;
  double Rs, Ed;
  if (!fe_scale_exact(&Rs, R, -fs->k2)) return 0;
  fdd d = fe_diff(Rs, fs->t[j], fs->Et[j], &Ed);
  double a = fabs(d.l) + Ed;
  if (!(a == 0 || (a >= 0x1p-1000 && a <= 0x1p1000))) return 0;
  double w = a * (1 + 0x1p-50);
  double A = d.h - w, B = d.h + w;
  if (!(A == 0 || (fabs(A) >= 0x1p-960 && fabs(A) <= 0x1p1000))) return 0;
  if (!(B == 0 || (fabs(B) >= 0x1p-960 && fabs(B) <= 0x1p1000))) return 0;
  A -= fabs(A) * 0x1p-52;
  B += fabs(B) * 0x1p-52;
  const int ks = fs->k2 - eu;
  double l = 0, h = 0;
  /* Both ends are 0 or normal (above), and so are the scaled ends checked
   * to be: each scaling by a power of two is then exact (fast_scale, |ks|
   * <= 2000 here). */
  if (B != 0) {
    int e = fast_ilog2(fabs(B)) + ks;
    if (e < -1000 || e > 1000) return 0;
    l = fast_scale(B, ks);
  }
  if (A != 0) {
    int e = fast_ilog2(fabs(A)) + ks;
    if (e < -1000 || e > 1000) return 0;
    h = fast_scale(A, ks);
  }
  *lo = -l;
  *hi = -h;
  return 1;
}

int ref_fast_offset_p(const ref_fast_prep *k, double *lo, double *hi, double R, double u, toi_direction dir) {
  return fe_offset(k, lo, hi, R, u, dir);
}

int ref_fast_error_p(ref_fast_prep *k, double *ulp, double *bits, double T, toi_direction dir, toi_precision q) {
  return fe_error(k, ulp, bits, T, dir, q);
}

#ifdef FE_DISPATCH
/*
 * ref_fast_scaled_data in AVX vectors (the FMA build): the same case check
 * (fast_plausible's), s = pB - pA with R = rA + rB in one vector and
 * v = vB - vA in another, each by Knuth's TwoSum with the operands in the
 * same order (the same doubles: RN(x + y) and its exact error), the same
 * checks that every part is finite and that neither s nor v is zero; data
 * that need scaling (a largest component outside [2^-64, 2^64], rare) go
 * to ref_fast_scaled_data itself; else es = ev = k2 = 0 and exact_data is
 * the floor test of fast_exact_ok (every nonzero part at least 2^-480) with
 * nothing lost. The same fields as ref_fast_scaled_data's, bit for bit.
 */
__attribute__((target("avx,fma"))) static int fe_scaled_data_v(ref_fast_state *fs, const toi_case *c) {
  if (!c || (c->dim != 2 && c->dim != 3) || !(c->ra >= 0) || !(c->rb >= 0)) return 0;
  if (c->dim == 2 && !(c->pa[2] == 0 && c->pb[2] == 0 && c->va[2] == 0 && c->vb[2] == 0)) return 0;
  const __m256d sign = _mm256_set1_pd(-0.0), zero = _mm256_setzero_pd();
  /* lanes (x, y, z, R) and (x, y, z, unused): pa[3] is va[0], va[3] is ra (toi_case's order) */
  __m256d a = _mm256_blend_pd(_mm256_loadu_pd(c->pb), _mm256_broadcast_sd(&c->ra), 8);
  __m256d b = _mm256_blend_pd(_mm256_xor_pd(_mm256_loadu_pd(c->pa), sign), _mm256_broadcast_sd(&c->rb), 8);
  __m256d sh = _mm256_add_pd(a, b), bb = _mm256_sub_pd(sh, a), aa = _mm256_sub_pd(sh, bb);
  __m256d sl = _mm256_add_pd(_mm256_sub_pd(a, aa), _mm256_sub_pd(b, bb));
  a = _mm256_blend_pd(_mm256_loadu_pd(c->vb), zero, 8);
  b = _mm256_blend_pd(_mm256_xor_pd(_mm256_loadu_pd(c->va), sign), zero, 8);
  __m256d vh = _mm256_add_pd(a, b);
  bb = _mm256_sub_pd(vh, a), aa = _mm256_sub_pd(vh, bb);
  __m256d vl = _mm256_add_pd(_mm256_sub_pd(a, aa), _mm256_sub_pd(b, bb));
  /* every hi part finite: x - x is 0 exactly then, NaN otherwise */
  __m256d fin = _mm256_and_pd(_mm256_cmp_pd(_mm256_sub_pd(sh, sh), zero, _CMP_EQ_OQ),
                              _mm256_cmp_pd(_mm256_sub_pd(vh, vh), zero, _CMP_EQ_OQ));
  if (_mm256_movemask_pd(fin) != 15) return 0;
  __m256d ash = _mm256_andnot_pd(sign, sh), avh = _mm256_andnot_pd(sign, vh); /* avh's lane 3 is 0 */
  __m256d m = _mm256_unpacklo_pd(ash, avh), n = _mm256_unpackhi_pd(ash, avh); /* (s0 v0 s2 v2), (s1 v1 R 0) */
  m = _mm256_max_pd(m, n);
  __m128d mm = _mm_max_pd(_mm256_castpd256_pd128(m), _mm256_extractf128_pd(m, 1)); /* (ms, mv) */
  const double ms = _mm_cvtsd_f64(mm), mv = _mm_cvtsd_f64(_mm_unpackhi_pd(mm, mm));
  if (ms == 0 || mv == 0) return 0;
  if (!(ms >= 0x1p-64 && ms <= 0x1p64 && mv >= 0x1p-64 && mv <= 0x1p64)) return ref_fast_scaled_data(fs, c);
  __m256d lo = _mm256_unpacklo_pd(sh, sl), hi = _mm256_unpackhi_pd(sh, sl);
  _mm256_storeu_pd(&fs->s[0].h, _mm256_permute2f128_pd(lo, hi, 0x20));
  _mm256_storeu_pd(&fs->s[2].h, _mm256_permute2f128_pd(lo, hi, 0x31));
  lo = _mm256_unpacklo_pd(vh, vl), hi = _mm256_unpackhi_pd(vh, vl);
  _mm256_storeu_pd(&fs->v[0].h, _mm256_permute2f128_pd(lo, hi, 0x20));
  _mm_storeu_pd(&fs->v[2].h, _mm256_extractf128_pd(lo, 1));
  fs->es = fs->ev = fs->k2 = 0;
  /* fast_floor_ok on s[0..3] and v[0..2] (v's lane 3 is 0): a nonzero part below 2^-480 */
  const __m256d floor = _mm256_set1_pd(0x1p-480);
#define FE_LOW(x) _mm256_and_pd(_mm256_cmp_pd(x, zero, _CMP_NEQ_UQ), _mm256_cmp_pd(_mm256_andnot_pd(sign, x), floor, _CMP_NGE_UQ))
  __m256d bad = _mm256_or_pd(_mm256_or_pd(FE_LOW(sh), FE_LOW(sl)), _mm256_or_pd(FE_LOW(vh), FE_LOW(vl)));
#undef FE_LOW
  fs->exact_data = _mm256_movemask_pd(bad) == 0;
  return fs->exact_data;
}
#define FE_SCALED_DATA(fs, c) (ref_fast_fma() ? fe_scaled_data_v(fs, c) : ref_fast_scaled_data(fs, c))
/* The same with fm = ref_fast_fma() read once by the caller. */
#define FE_SCALED_DATA_FM(fs, c, fm) ((fm) ? fe_scaled_data_v(fs, c) : ref_fast_scaled_data(fs, c))

int ref_fast_scaled_data_same(const toi_case *c) {
  if (!ref_fast_fma()) return -1;
  static ref_fast_state x, y; /* for tests, one thread */
  memset(&x, 0x5a, sizeof x), memset(&y, 0x5a, sizeof y);
  int rx = ref_fast_scaled_data(&x, c), ry = fe_scaled_data_v(&y, c);
  if (rx != ry) return 0;
  if (!rx) return 1; /* nothing else is promised then */
  return memcmp(x.s, y.s, sizeof x.s) == 0 && memcmp(x.v, y.v, sizeof x.v) == 0 && x.es == y.es && x.ev == y.ev &&
         x.k2 == y.k2 && x.exact_data == y.exact_data;
}
#else
#define FE_SCALED_DATA(fs, c) ref_fast_scaled_data(fs, c)
#define FE_SCALED_DATA_FM(fs, c, fm) ((void)(fm), ref_fast_scaled_data(fs, c))
int ref_fast_scaled_data_same(const toi_case *c) {
  (void)c;
  return -1;
}
#endif

#ifdef FE_DISPATCH
static int fe_triples_gen_any(ref_fast_prep *k) { return fe_triples(k, FE_GEN_FMA); }
__attribute__((target("fma"))) static void fe_FG_scalar_fma(const ref_fast_prep *k, double Ts, fdd *F, double *EF,
                                                            fdd *G, double *EG) {
  *F = fe_F(k, Ts, EF, 1);
  *G = fe_G(k, Ts, EG, 1);
}
#endif

int ref_fast_FG_same(const toi_case *c, double T) {
#ifdef FE_DISPATCH
  static ref_fast_prep k; /* for tests, one thread */
  double Ts;
  if (!ref_fast_fma() || !ref_fast_scaled_data(&k.st, c)) return -1;
  k.have3 = 0;
  if (!fe_triples_gen_any(&k) || !fe_scale_exact(&Ts, T, -k.st.k2) || !(fabs(Ts) >= 0x1p-400 && fabs(Ts) <= 0x1p400))
    return -1;
  fdd F, G, F2, G2;
  double EF, EG, EF2, EG2;
  fe_FG_scalar_fma(&k, Ts, &F, &EF, &G, &EG);
  fe_FG_v(&k, Ts, &F2, &EF2, &G2, &EG2);
  return !memcmp(&F, &F2, sizeof F) && !memcmp(&G, &G2, sizeof G) && !memcmp(&EF, &EF2, sizeof EF) &&
         !memcmp(&EG, &EG2, sizeof EG);
#else
  (void)c, (void)T;
  return -1;
#endif
}

/*
 * fe_error in binary64 from k->st.r (the case's binary64 answer, set by the
 * caller) and the scaled data of c, made here on first use (k->lite): no
 * solving. Only a finite T, a root in direction dir whose RN(t*) = rn is
 * normal and not a power of two: ulp(t*) is then rn's (fe_ulp_exp, without
 * the root's enclosure), and fe_ulp_light gives the quotient. 0 for the
 * rest: the caller prepares the case (ref_fast_err_prepare) and asks
 * ref_fast_error_p, whose answer is the same double.
 */
int ref_fast_error_light(ref_fast_prep *k, const toi_case *c, double *ulp, double *bits, double T,
                         toi_direction dir) {
  const int fm = FE_FMA_NOW();
  FE_UPPER_ZERO_FM(fm);
  if (!k->lite) {
    k->have3 = k->haveD = k->haveR[0] = k->haveR[1] = 0;
    k->lite = FE_SCALED_DATA_FM(&k->st, c, fm) ? 1 : -1;
  }
  const ref_fast_state *fs = &k->st;
  int low = (unsigned)dir > 1 ? -1 : ref_dir_root(&fs->r, dir);
  if (k->lite < 0 || low < 0 || !isfinite(T)) return fe_counts.error_light_fb++, 0;
  double rn = low ? fs->r.tlo : fs->r.thi, arn = fabs(rn);
  if (!(arn >= 0x1p-1021 && arn < INFINITY)) return fe_counts.error_light_fb++, 0;
  /* 2^-1021 <= |rn| < 2^1024 and not a power of two: fe_ulp_exp's exponent
   * of ulp(t*) in binary64 is ilog2|rn| - 52 (-1022 < ilog2|rn| <= 1023). */
  int erl = fast_ilog2(arn);
  if (arn == fast_pow2(erl)) return fe_counts.error_light_fb++, 0;
  int ue = erl - 52;
  double e, Ts;
  if (!fe_scale_exact(&Ts, T, -fs->k2) || !FE_PICK_FM(fe_ulp_light, fm)(&e, k, low ? 0 : 1, Ts, fs->k2 - ue))
    return fe_counts.error_light_fb++, 0;
  fe_counts.error_light++;
  *ulp = e;
  *bits = ref_bits_apart(T, rn); /* ref_bits_apart_prec's in binary64 */
  return 1;
}

static int fe_kappa_of(ref_fast_prep *k, double *kappa, const toi_case *c, toi_direction dir) {
  fe_counts.kappa_calls++;
  if (!k->ok) return fe_counts.kappa_fb++, 0;
  const ref_fast_state *fs = &k->st;
  int lo = ref_dir_root(&fs->r, dir);
  if (lo < 0) {
    *kappa = NAN;
    return 1;
  }
  /* As ref_kappa.c: t* = 0 (c = 0) or a double root (D = 0). */
  if (fs->sc == 0 || fs->graze) {
    *kappa = INFINITY;
    return 1;
  }
  if (!FE_PICK(fe_kappa)(kappa, k, c, lo ? 0 : 1)) return fe_counts.kappa_fb++, 0;
  return 1;
}

/* kappa's enclosure (fe_kappa_rough), or kappa itself (*lo = *hi) where it
 * is NaN or infinite or the enclosure cannot be had. */
static int fe_kappa_bound_of(ref_fast_prep *k, double *lo, double *hi, const toi_case *c, toi_direction dir) {
  if (k->ok) {
    const ref_fast_state *fs = &k->st;
    int low = ref_dir_root(&fs->r, dir);
    if (low >= 0 && fs->sc != 0 && !fs->graze && fs->exact_data) {
      double Dh = fs->D.h, eD = (fs->ED + fabs(fs->D.l)) * (1 + 0x1p-50), sq = NAN, rs = 1;
      if (Dh >= 0x1p-800 && Dh <= 0x1p800 && eD <= 0x1p-40 * Dh) {
        sq = sqrt(Dh);
        rs = eD / Dh * (1 + 0x1p-50) + 0x1p-52;
      } else if (FE_PICK(fe_sqrt_D)(k) && k->sD.h > 0) { /* near a graze: sqrt(D) from the triples */
        sq = k->sD.h;
        rs = (k->esD + fabs(k->sD.l)) / sq * (1 + 0x1p-50);
      }
      if (fe_kappa_rough(lo, hi, fs, c, low ? 0 : 1, sq, rs)) return 1;
    }
  }
  if (!fe_kappa_of(k, lo, c, dir)) return 0;
  *hi = *lo;
  return 1;
}

int ref_fast_kappa_bound_p(ref_fast_prep *k, double *lo, double *hi, const toi_case *c, toi_direction dir) {
  return fe_kappa_bound_of(k, lo, hi, c, dir);
}

int ref_fast_kappa_p(ref_fast_prep *k, double *kappa, const toi_case *c, toi_direction dir) {
  return fe_kappa_of(k, kappa, c, dir);
}
