/* kernel_check.h: what the tests of the bench's own kernels (src/formulations/robust/test_robust.c,
   src/formulations/accurate/test_accurate.c) share: seeds, the certified MPFR reference, cases exact by
   construction at every scaling, and the generator families. */
#ifndef TOI_KERNEL_CHECK_H
#define TOI_KERNEL_CHECK_H

#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "gen.h"
#include "toi.h"
#include "toiref.h"
#include "case_build.h"
#include "test_env.h"
#include "test_rng.h"
#include "ref_forms.h"

/* The kernels' entry points (declared for the library by the registry's
   list; accurate's test checks that they are the listed ones). */
toi_result toi_f_robust(const toi_case *c);
toi_result toi_f_accurate(const toi_case *c);

/* ---- environment and random data ---- */

static inline long kt_scale(void) { return te_scale(); }

static inline uint64_t kt_seed(void) { return te_seed(0x6b65726eu); }

#define KT_SEED_MSG "(seed %llu: rerun with TOI_TEST_SEED=%llu; include it in bug reports)"
#define KT_SEED_ARGS (unsigned long long)kt_seed(), (unsigned long long)kt_seed()

static inline void kt_blank(toi_case *c, int dim) {
  tc_blank(c, dim);
  snprintf(c->id, sizeof c->id, "kt");
}

/* The doubles of a case that enter the problem (masses do not). */
static inline int kt_fields(toi_case *c, double **f) {
  int k = 0, n = c->dim;
  for (int i = 0; i < n; i++) f[k++] = &c->pa[i];
  for (int i = 0; i < n; i++) f[k++] = &c->va[i];
  f[k++] = &c->ra;
  for (int i = 0; i < n; i++) f[k++] = &c->pb[i];
  for (int i = 0; i < n; i++) f[k++] = &c->vb[i];
  f[k++] = &c->rb;
  return k;
}

static inline void kt_case_text(const toi_case *c, char *buf, size_t n) {
  if (toi_format_case(buf, n, c) < 0) snprintf(buf, n, "(unprintable)");
}

/* ---- checking one answer against the reference ---- */

/* The certified MPFR engine of the reference, the ground truth whatever
   engine toi_ref_solve defaults to. */
static inline toi_status kt_ref(toi_ref *ref, const toi_case *c) { return tr_solve_engine(ref, c, TOI_REF_MPFR); }

static inline int kt_normal(double t) { return isfinite(t) && fabs(t) >= DBL_MIN; }

static inline int kt_contact_class(toi_class c) { return c == TOI_HIT || c == TOI_GRAZE || c == TOI_CONTACT; }

/* ---- exact answers from the maths ---- */

/* Base 2D configurations (A at the origin at rest) whose class and root are
   exact dyadic numbers, each worked out by hand in the comment. */
typedef struct kt_exact {
  char name[24];
  double s[2], v[2], ra, rb;
  toi_class cls;
  double t;  /* the exact root, NaN when none */
  int plain; /* R = rA + rB is a double: every operation of robust is exact */
} kt_exact;

static const kt_exact kt_exacts[] = {
    /* 3-4-5: a = 25, b = -50, c = 100 - 25 = 75, D = 2500 - 1875 = 625 = 25^2:
       t = (50 - 25) / 25 = 1 */
    {"hit-345", {6, 8}, {-3, -4}, 2, 3, TOI_HIT, 1, 1},
    /* line y = 2 at distance R = 2 from A: D = aR^2 - (s x v)^2 = 4 - 4 = 0,
       t = -b / a = 10 */
    {"graze", {10, 2}, {-1, 0}, 1, 1, TOI_GRAZE, 10, 1},
    /* the same with R = 2 - ulp: D = (2 - 2^-51)^2 - 4 < 0 */
    {"miss-by-an-ulp", {10, 2}, {-1, 0}, 1, 0x1.fffffffffffffp-1, TOI_MISS, NAN, 0},
    /* |s| = 5 = R, b = -3 < 0: touching and approaching */
    {"contact", {3, 4}, {-1, 0}, 2, 3, TOI_CONTACT, 0, 1},
    /* |s| = R, b = 4 > 0 */
    {"touch-leaving", {3, 4}, {0, 1}, 2, 3, TOI_SEPARATING, NAN, 1},
    /* |s| = R, b = 0 (tangential motion): separating by the reference's order */
    {"touch-sliding", {3, 4}, {4, -3}, 2, 3, TOI_SEPARATING, NAN, 1},
    /* |s|^2 = 25 < (5 + 2^-50)^2 */
    {"overlap-by-an-ulp", {3, 4}, {-1, 0}, 2, 0x1.0000000000001p+1 + 1, TOI_OVERLAP, NAN, 0},
    /* overlap is decided before static */
    {"overlap-static", {1, 0}, {0, 0}, 1, 1, TOI_OVERLAP, NAN, 1},
    {"static", {10, 0}, {0, 0}, 1, 1, TOI_STATIC, NAN, 1},
    {"separating", {10, 0}, {1, 0}, 1, 1, TOI_SEPARATING, NAN, 1},
    /* D = 4 - 25 < 0 */
    {"miss", {10, 5}, {-1, 0}, 1, 1, TOI_MISS, NAN, 1},
    /* points meeting: R = 0, s x v = 0, so D = 0; t = -b/a = 8/4 = 2 */
    {"points-meet", {4, 0}, {-2, 0}, 0, 0, TOI_GRAZE, 2, 1},
};

/* Lengths times 2^e and speeds times 2^f move t to t 2^(e - f); every pair
   keeps the data exact (the smallest length, 2^-1069 times an integer, is
   still a double) and the expected root is exact, overflow included. */
static const int kt_scalings[][2] = {{0, 0},         {-1000, -1000}, {1000, 1000}, {1015, 0},    {0, 1015},
                                     {-1069, 0},     {0, -1069},     {-1069, -1069}, {1015, -1069}, {-1069, 1015},
                                     {-520, 500},    {3, -7}};

/* x 2^e when that is exact (a double whose scaling back gives x), else NaN. */
static inline double kt_ldexp_exact(double x, int e) {
  double y = ldexp(x, e);
  return isfinite(y) && ldexp(y, -e) == x ? y : NAN;
}

/* Case k of the table at scaling (e, f), in 2D or in 3D (the plane z = 0
   turned by a signed permutation, which is exact), with A moved by an exact
   offset so that differences, not coordinates, carry the data. Returns 0
   when the scaled data are not exactly the table's (an ulp-sized radius
   pushed below 2^-1074), and the case must be skipped. */
static inline int kt_exact_case(toi_case *c, const kt_exact *x, int e, int f, int dim) {
  kt_blank(c, dim);
  double s[3] = {x->s[0], x->s[1], 0}, v[3] = {x->v[0], x->v[1], 0};
  if (dim == 3) { /* (x, y, z) -> (z, x, -y) */
    double s2[3] = {0, s[0], -s[1]}, v2[3] = {0, v[0], -v[1]};
    memcpy(s, s2, sizeof s);
    memcpy(v, v2, sizeof v);
  }
  int ok = 1;
  for (int i = 0; i < dim; i++) {
    double ss = kt_ldexp_exact(s[i], e), vv = kt_ldexp_exact(v[i], f);
    c->pa[i] = ldexp(i == 0 ? 0.5 : -0.25, e); /* an offset on the data's grid */
    c->pb[i] = c->pa[i] + ss;
    c->va[i] = ldexp(i == 1 ? 1 : 0, f);
    c->vb[i] = c->va[i] + vv;
    ok &= !isnan(ss) && !isnan(vv) && c->pb[i] - c->pa[i] == ss && c->vb[i] - c->va[i] == vv;
  }
  c->ra = kt_ldexp_exact(x->ra, e);
  c->rb = kt_ldexp_exact(x->rb, e);
  return ok && !isnan(c->ra) && !isnan(c->rb);
}

static inline void kt_exact_answers(toi_solve_fn fn, const char *name, int robust) {
  char line[512];
  int n = (int)(sizeof kt_exacts / sizeof kt_exacts[0]);
  int m = (int)(sizeof kt_scalings / sizeof kt_scalings[0]);
  int checked = 0;
  for (int k = 0; k < n; k++)
    for (int j = 0; j < m; j++)
      for (int dim = 2; dim <= 3; dim++) {
        const kt_exact *x = &kt_exacts[k];
        if (robust && !x->plain) continue;
        int e = kt_scalings[j][0], f = kt_scalings[j][1];
        toi_case c;
        if (!kt_exact_case(&c, x, e, f, dim)) continue;
        checked++;
        toi_result r = fn(&c);
        kt_case_text(&c, line, sizeof line);
        cr_assert_eq(r.cls, x->cls, "%s on %s (e=%d f=%d dim %d): class %s, want %s: %s", name, x->name, e, f, dim,
                     toi_class_name(r.cls), toi_class_name(x->cls), line);
        if (isnan(x->t)) {
          cr_assert(isnan(r.t), "%s on %s: t = %a, want NaN", name, x->name, r.t);
        } else {
          double want = ldexp(x->t, e - f); /* exact, or 0 / +inf beyond the range */
          cr_assert(r.t == want, "%s on %s (e=%d f=%d dim %d): t = %a, want %a: %s", name, x->name, e, f, dim, r.t,
                    want, line);
        }
      }
  cr_assert(checked > n * m, "only %d exact cases built", checked);
}

/* ---- families ---- */

typedef struct kt_family {
  char name[24];
  int family;    /* toi_gen_family */
  int dim;       /* 2, 3, or 0 for any */
  int sampling;  /* generic only */
  double pos, vel;
  long count;    /* at TOI_TEST_SCALE=1 */
} kt_family;

/* family's default options, the test's seed plus add, dimensions 2 and 3 */
static inline void kt_opts(toi_gen_opts *o, toi_gen_family family, uint64_t add) {
  toi_gen_opts_default(o, family);
  o->seed = kt_seed() + add;
  o->dim = 0;
}

/* Case i of o into c, asserted made. */
static inline void kt_gen(toi_case *c, const toi_gen_opts *o, long i) {
  size_t bin;
  cr_assert_eq(toi_gen_case(c, NULL, &bin, o, (uint64_t)i), TOI_OK);
}

static inline void kt_family_opts(toi_gen_opts *o, const kt_family *f) {
  toi_gen_opts_default(o, (toi_gen_family)f->family);
  o->seed = kt_seed();
  if (f->family != TOI_GEN_MIXED) o->dim = f->dim;
  if (f->family == TOI_GEN_GENERIC) {
    o->sampling = (toi_gen_sampling)f->sampling;
    if (f->pos > 0) o->pos = f->pos;
    if (f->vel > 0) o->vel = f->vel;
  }
}

#endif
