/* reference_check.h: independent checks for the reference tests (naive MPFR solver, RNG, case builders). */
#ifndef REFERENCE_CHECK_H
#define REFERENCE_CHECK_H

/*
 * Everything here recomputes the answer by another road than reference/:
 * a, b, c, D as MPFR floats at a precision that makes them exact, the
 * textbook formula (-b -+ sqrt D)/a at a precision that swamps its
 * cancellation, and the rounding to double done the way the MPFR manual
 * documents for emulating IEEE doubles (exponent range [-1073, 1024] and
 * mpfr_subnormalize) on an exact mpq, not by the reference's round-to-odd
 * or Ziv loop.
 */

#include <criterion/criterion.h>
#include <dirent.h>
#include <gmp.h>
#include <math.h>
#include <mpfr.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "gen.h"
#include <float.h>
#include <math.h>
#include "toiref.h"
#include "test_env.h"
#include "case_build.h"
#include "test_rng.h"

/* ---- environment: scale and seed ---- */

static inline long tr_scale(void) { return te_scale(); }

static inline uint64_t tr_seed(void) { return te_seed(20240611u); }

/* The shared stream (test_rng.h): tr_ names kept for the reference's tests. */
typedef test_rng tr_rng;
static inline uint64_t tr_next(tr_rng *r) { return test_rng_next(r); }
static inline long tr_int(tr_rng *r, long lo, long hi) { return test_rng_int(r, lo, hi); }
static inline double tr_double(tr_rng *r, int elo, int ehi) { return test_rng_double(r, elo, ehi); }

/* ---- case builders ---- */

/* A 2D case with A at pa moving va and B at pb moving vb, unit masses. */
static inline toi_case tr_case2(double pax, double pay, double vax, double vay, double ra, double pbx,
                                double pby, double vbx, double vby, double rb) {
  return tc_case2(pax, pay, vax, vay, ra, 1, pbx, pby, vbx, vby, rb, 1);
}

/* A at rest at the origin with radius ra; B at s moving v with radius rb. */
static inline toi_case tr_rel2(double sx, double sy, double vx, double vy, double ra, double rb) {
  return tr_case2(0, 0, 0, 0, ra, sx, sy, vx, vy, rb);
}

static inline toi_case tr_rel3(double sx, double sy, double sz, double vx, double vy, double vz,
                               double ra, double rb) {
  toi_case c = tr_rel2(sx, sy, vx, vy, ra, rb);
  c.dim = 3;
  c.pb[2] = sz;
  c.vb[2] = vz;
  return c;
}

/* Bit-for-bit equality of doubles (NaN equals NaN, +0 differs from -0). */
static inline int tr_same(double x, double y) { return memcmp(&x, &y, sizeof x) == 0 || (isnan(x) && isnan(y)); }

static inline int tr_same_ref(const toi_ref *x, const toi_ref *y) {
  return x->cls == y->cls && tr_same(x->tlo, y->tlo) && tr_same(x->thi, y->thi) &&
         tr_same(x->tfwd, y->tfwd) && tr_same(x->trev, y->trev) && x->fwd_is_lo == y->fwd_is_lo &&
         x->rev_is_lo == y->rev_is_lo;
}

/* ---- rounding to double as the MPFR manual documents it ---- */

/* RN(q) in IEEE binary64, subnormals and overflow included. */
static inline double tr_round_q(const mpq_t q) {
  mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
  mpfr_t r;
  mpfr_set_emin(-1073);
  mpfr_set_emax(1024);
  mpfr_init2(r, 53);
  int i = mpfr_set_q(r, q, MPFR_RNDN);
  i = mpfr_subnormalize(r, i, MPFR_RNDN);
  double d = mpfr_get_d(r, MPFR_RNDN);
  mpfr_clear(r);
  mpfr_set_emin(emin);
  mpfr_set_emax(emax);
  return d;
}

/* RN of a high-precision float, through its exact rational value. */
static inline double tr_round_fr(mpfr_srcptr x) {
  /* A root that is exactly 0 (c = 0) has no sign: +0, whatever -b - sqrt D gave. */
  if (mpfr_zero_p(x)) return 0.0;
  mpq_t q;
  mpq_init(q);
  mpfr_get_q(q, x);
  double d = tr_round_q(q);
  /* A value that rounds to zero keeps its sign. */
  if (d == 0 && mpfr_sgn(x) < 0) d = -0.0;
  mpq_clear(q);
  return d;
}

/* ---- the naive solver ---- */

/* Span in bits of the binary exponents of a case's nonzero fields. */
static inline long tr_span(const toi_case *c, double delta) {
  double v[15];
  int k = 0;
  for (int i = 0; i < 3; i++) v[k++] = c->pa[i], v[k++] = c->pb[i], v[k++] = c->va[i], v[k++] = c->vb[i];
  v[k++] = c->ra, v[k++] = c->rb, v[k++] = delta;
  int lo = 2000, hi = -2000;
  for (int i = 0; i < k; i++) {
    if (v[i] == 0) continue;
    int e;
    frexp(v[i], &e);
    if (e > hi) hi = e;
    if (e - 53 < lo) lo = e - 53;
  }
  return hi >= lo ? hi - lo : 0;
}

typedef struct tr_answer {
  toi_class cls;
  double tlo, thi; /* NaN when no roots */
} tr_answer;

/* a = v.v, b = s.v, c = s.s - (R + delta)^2 and D = b^2 - a c of a case,
 * exactly, in MPFR numbers of precision pe (4 span + 64 bits: every
 * product of four factors of span bits fits), which the caller clears. */
static inline void tr_exact_abcd(mpfr_t a, mpfr_t b, mpfr_t cc, mpfr_t D, const toi_case *c, double delta,
                                 mpfr_prec_t pe) {
  mpfr_t s, v, t, R;
  mpfr_inits2(pe, s, v, t, R, a, b, cc, D, (mpfr_ptr)0);
  mpfr_set_zero(a, 1), mpfr_set_zero(b, 1), mpfr_set_zero(cc, 1);
  for (int i = 0; i < c->dim; i++) {
    mpfr_set_d(t, c->pb[i], MPFR_RNDN);
    mpfr_sub_d(s, t, c->pa[i], MPFR_RNDN);
    mpfr_set_d(t, c->vb[i], MPFR_RNDN);
    mpfr_sub_d(v, t, c->va[i], MPFR_RNDN);
    mpfr_fma(a, v, v, a, MPFR_RNDN);
    mpfr_fma(b, s, v, b, MPFR_RNDN);
    mpfr_fma(cc, s, s, cc, MPFR_RNDN);
  }
  mpfr_set_d(R, c->ra, MPFR_RNDN);
  mpfr_add_d(R, R, c->rb, MPFR_RNDN);
  mpfr_add_d(R, R, delta, MPFR_RNDN);
  mpfr_mul(t, R, R, MPFR_RNDN);
  mpfr_sub(cc, cc, t, MPFR_RNDN);
  mpfr_mul(D, b, b, MPFR_RNDN);
  mpfr_mul(t, a, cc, MPFR_RNDN);
  mpfr_sub(D, D, t, MPFR_RNDN);
  mpfr_clears(s, v, t, R, (mpfr_ptr)0);
}

/* The class and RN roots from the textbook formulas in MPFR. */
static inline tr_answer tr_naive(const toi_case *c, double delta) {
  long span = tr_span(c, delta);
  mpfr_prec_t pe = 4 * span + 64;  /* a, b, c, D exact: four factors of span bits */
  mpfr_prec_t pr = 2 * pe + 256;   /* the root: cancellation loses at most ~pe bits */
  mpfr_t a, b, cc, D;
  tr_exact_abcd(a, b, cc, D, c, delta, pe);
  int sa = mpfr_sgn(a), sb = mpfr_sgn(b), sc = mpfr_sgn(cc), sd = mpfr_sgn(D);
  tr_answer ans;
  if (sc < 0) ans.cls = TOI_OVERLAP;
  else if (sa == 0) ans.cls = TOI_STATIC;
  else if (sc == 0) ans.cls = sb < 0 ? TOI_CONTACT : TOI_SEPARATING;
  else if (sb >= 0) ans.cls = TOI_SEPARATING;
  else ans.cls = sd < 0 ? TOI_MISS : sd == 0 ? TOI_GRAZE : TOI_HIT;
  ans.tlo = ans.thi = NAN;
  if (sa > 0 && sd >= 0) {
    mpfr_t q, r;
    mpfr_inits2(pr, q, r, (mpfr_ptr)0);
    mpfr_sqrt(q, D, MPFR_RNDN);
    mpfr_neg(r, b, MPFR_RNDN);
    mpfr_sub(r, r, q, MPFR_RNDN);
    mpfr_div(r, r, a, MPFR_RNDN);
    ans.tlo = tr_round_fr(r);
    mpfr_neg(r, b, MPFR_RNDN);
    mpfr_add(r, r, q, MPFR_RNDN);
    mpfr_div(r, r, a, MPFR_RNDN);
    ans.thi = tr_round_fr(r);
    mpfr_clears(q, r, (mpfr_ptr)0);
  }
  mpfr_clears(a, b, cc, D, (mpfr_ptr)0);
  return ans;
}

/* A family, and the fast engine's build it runs under: the parameters of the
 * tests that run every family through both builds. */
typedef struct tr_fam_param {
  int family;
  int fma; /* 1: the build chosen for this processor; 0: the build without FMA */
} tr_fam_param;

/* Every family under the chosen build, then under the build without FMA,
 * into p (2 TOI_GEN_FAMILY_COUNT entries); returns the count. */
static inline size_t tr_fam_params(tr_fam_param *p) {
  size_t k = 0;
  for (int fma = 1; fma >= 0; fma--)
    for (int f = 0; f < TOI_GEN_FAMILY_COUNT; f++) p[k].family = f, p[k].fma = fma, k++;
  return k;
}

/* The line a failure message ends with, so the failing seed can be rerun. */
#define SEED_MSG "(seed %llu: rerun with TOI_TEST_SEED=%llu; include it in bug reports)"
#define SEED_ARGS (unsigned long long)tr_seed(), (unsigned long long)tr_seed()

/* A case as a replayable line (hex floats), for failure messages. */
static inline const char *tr_fmt(const toi_case *c) {
  static char buf[1024];
  if (toi_format_case(buf, sizeof buf, c) < 0) snprintf(buf, sizeof buf, "(unprintable case)");
  return buf;
}

/* A random finite double: random bits, exponent field uniform over the
 * finite ones (zero and subnormals included), one in eight a signed zero. */
static inline double tr_bits(tr_rng *r) {
  uint64_t b = tr_next(r);
  uint64_t e = tr_next(r) % 0x7ff; /* 0 .. 0x7fe */
  b = (b & 0x800fffffffffffffULL) | (e << 52);
  if ((tr_next(r) & 7) == 0) b &= 0x8000000000000000ULL;
  double x;
  memcpy(&x, &b, sizeof x);
  return x;
}

/* Calls fn on every case of every *.cases file in dir (not recursing), with a
 * "FILE case ID" label; returns the number of files. Every file must read. */
static inline int tr_each_case_file(const char *dir, void (*fn)(const toi_case *c, const char *where)) {
  DIR *d = opendir(dir);
  cr_assert_not_null(d, "cannot open %s", dir);
  struct dirent *e;
  int files = 0;
  while ((e = readdir(d))) {
    size_t len = strlen(e->d_name);
    if (len < 7 || strcmp(e->d_name + len - 6, ".cases")) continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    toi_caselist list = {0};
    toi_diags diags = {0};
    cr_assert_eq(toi_read_cases(&list, path, &diags), TOI_OK, "%s does not read", path);
    for (size_t i = 0; i < list.count; i++) {
      char where[4200];
      snprintf(where, sizeof where, "%s case %s", path, list.items[i].id);
      fn(&list.items[i], where);
    }
    toi_caselist_free(&list);
    files++;
  }
  closedir(d);
  return files;
}

/* tr_each_case_file over cases/ and the formulations' folders
 * (src/formulations/NAME/worst.cases) of the source tree, which must hold at
 * least three case files between them; returns the files. */
static inline int tr_each_project_case(void (*fn)(const toi_case *c, const char *where)) {
  int n = tr_each_case_file(TOI_SOURCE_DIR "/cases", fn);
  DIR *d = opendir(TOI_SOURCE_DIR "/src/formulations");
  cr_assert_not_null(d, "cannot open src/formulations");
  struct dirent *e;
  while ((e = readdir(d))) {
    char sub[4096];
    struct stat sb;
    snprintf(sub, sizeof sub, "%s/src/formulations/%s", TOI_SOURCE_DIR, e->d_name);
    if (e->d_name[0] != '.' && stat(sub, &sb) == 0 && S_ISDIR(sb.st_mode)) n += tr_each_case_file(sub, fn);
  }
  closedir(d);
  cr_assert_geq(n, 3, "expected the case files under cases/ and src/formulations/*/");
  return n;
}

/* ---- random data over the whole exponent range ---- */

/* The components of c (its dim set) for the scales el and ev: lengths in
 * [2^el, 2^(el+40)], velocities in [2^ev, 2^(ev+40)], B at A + s; when aimed
 * (aim -1: drawn here), B's velocity is A's minus f s, f = 2^(ev-el) times a
 * drawn factor in {0.75, 1, 1.25, 1.5} when vary is set, else 2^(ev-el)
 * alone; otherwise A's plus a draw v. The radii on the lengths' scale. */
static inline void tr_spread_fill(tr_rng *r, toi_case *c, int el, int ev, int aim, int vary) {
  double s[3], v[3];
  for (int k = 0; k < c->dim; k++) {
    c->pa[k] = tr_double(r, el, el + 40);
    s[k] = tr_double(r, el, el + 40);
    c->va[k] = tr_double(r, ev, ev + 40);
    v[k] = tr_double(r, ev, ev + 40);
    c->pb[k] = c->pa[k] + s[k];
  }
  if (aim < 0) aim = (int)(tr_next(r) & 1);
  double f = ldexp(1.0, ev - el) * (vary ? 0.75 + 0.25 * (double)(tr_next(r) & 3) : 1.0);
  for (int k = 0; k < c->dim; k++) c->vb[k] = aim && isfinite(f) ? c->va[k] - s[k] * f : c->va[k] + v[k];
  c->ra = fabs(tr_double(r, el, el + 40)), c->rb = fabs(tr_double(r, el, el + 40));
}

/* ---- the times T a scorer can meet ---- */

enum { TR_T_KINDS = 24 };

/* Kind k of T for a root that rounds to rn (1.0 when there is none): rn,
 * its neighbours 1..5 ulps above and below, far values, 0 and -0, the
 * infinities, subnormals, NaN, DBL_MAX, the other root. */
static inline double tr_kind_T(int k, double rn, double other) {
  double base = isnan(rn) ? 1.0 : rn;
  if (k >= 1 && k <= 10) {
    double t = base, dir = k <= 5 ? INFINITY : -INFINITY;
    for (int i = 0; i < (k - 1) % 5 + 1; i++) t = nextafter(t, dir);
    return t;
  }
  switch (k) {
  case 0: return base;
  case 11: return base * (1 + 0x1p-20);
  case 12: return 2 * base + 1;
  case 13: return -base;
  case 14: return 0.0;
  case 15: return -0.0;
  case 16: return INFINITY;
  case 17: return -INFINITY;
  case 18: return 0x1p-1074;
  case 19: return -0x1.8p-1030;
  case 20: return NAN;
  case 21: return DBL_MAX;
  case 22: return isnan(other) ? base * 0.5 : other;
  default: return base * 0x1p-600;
  }
}

#endif
