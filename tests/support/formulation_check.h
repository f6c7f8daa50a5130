/* formulation_check.h: what every formulation's own test (src/formulations/NAME/test_NAME.c) and the shared
   formulation tests use: the exact cases worked out by hand, the check of a formulation's answers on them, its
   lookup, and a generator of well-conditioned random cases. */
#ifndef TOI_FORMULATION_CHECK_H
#define TOI_FORMULATION_CHECK_H

#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "toi.h"
#include "toiref.h"
#include "case_build.h"
#include "ref_forms.h"
#include "test_env.h"
#include "test_rng.h"

static inline uint64_t fc_seed(void) { return te_seed(0x70b1u); }

static inline const toi_formulation *fc_find(const char *name) {
  const toi_formulation *f = toi_formulation_find(name);
  cr_assert_not_null(f, "formulation '%s' is not registered", name);
  return f;
}

static inline toi_result fc_solve(const char *name, const toi_case *c) { return fc_find(name)->solve(c); }

#define C2(ID, AX, AY, VAX, VAY, RA, BX, BY, VBX, VBY, RB) \
  {.id = ID, .dim = 2, .pa = {AX, AY, 0}, .va = {VAX, VAY, 0}, .ra = RA, .ma = 1, \
   .pb = {BX, BY, 0}, .vb = {VBX, VBY, 0}, .rb = RB, .mb = 1}
#define C3(ID, AX, AY, AZ, VAX, VAY, VAZ, RA, BX, BY, BZ, VBX, VBY, VBZ, RB) \
  {.id = ID, .dim = 3, .pa = {AX, AY, AZ}, .va = {VAX, VAY, VAZ}, .ra = RA, .ma = 1, \
   .pb = {BX, BY, BZ}, .vb = {VBX, VBY, VBZ}, .rb = RB, .mb = 1}

/* Every case is small dyadic data whose roots are integers or the quotients
   of integers, worked out by hand in the comment: with s = pB - pA,
   v = vB - vA, R = rA + rB the contact times solve |s + v t| = R. All the
   intermediate values of the formulations are then exact integers or dyadic
   numbers, so the times must come out exactly (or, for quotients such as
   0.9, as the correctly rounded quotient). */
static const toi_case fc_exact[] = {
    /* 0: head-on, s = (10,0), v = (-2,0), R = 2: 10 - 2t = 2 at t = 4 (and 6). */
    C2("head-on", 0, 0, 0, 0, 1, 10, 0, -2, 0, 1),
    /* 1: 3-4-5, s = (3,14), v = (0,-2), R = 5: 9 + (14-2t)^2 = 25 at t = 5, 9. */
    C2("3-4-5", 0, 0, 0, 0, 2, 3, 14, 0, -2, 3),
    /* 2: both moving, s = (9,12) = 3(3,4), v = (-3,-4), R = 5: 15 - 5t = 5 at t = 2 (and 4). */
    C2("diagonal", 1, -2, 1, 1, 1.5, 10, 10, -2, -3, 3.5),
    /* 3: 2-3-6-7 in 3D, s = (2,3,16), v = (0,0,-2), R = 7: 13 + (16-2t)^2 = 49 at t = 5, 11. */
    C3("2-3-6-7", 0, 0, 0, 1, 0, 0, 3, 2, 3, 16, 1, 0, -2, 4),
    /* 4: 3D, unequal radii, s = (4,6,12) = 2(2,3,6), v = (-2,-3,-6), R = 7: 14 - 7t = 7 at t = 1 (and 3). */
    C3("diagonal-3d", -1, 2, 0.5, 0.5, 0, -1, 2.5, 3, 8, 12.5, -1.5, -3, -7, 4.5),
    /* 5: overlap, s = (3,0), v = (2,0), R = 5: 3 + 2t = -5 or 5 at t = -4, 1. */
    C2("overlap", 0, 0, 0, 0, 2, 3, 0, 2, 0, 3),
    /* 6: overlap in 3D, s = (1.5,0,0), v = (-1,0,0), R = 2: roots -0.5 and 3.5. */
    C3("overlap-3d", 0, 0, 0, 0, 0, 0, 1, 1.5, 0, 0, -1, 0, 0, 1),
    /* 7: apart and separating, s = (10,0), v = (2,0), R = 2: roots -6, -4. */
    C2("separating", 0, 0, 0, 0, 1, 10, 0, 2, 0, 1),
    /* 8: case 2 five time units later (p + 5v): roots 2 - 5 = -3 and 4 - 5 = -1. */
    C2("diagonal+5", 6, 3, 1, 1, 1.5, 0, -5, -2, -3, 3.5),
    /* 9: no relative motion, 5 apart, R = 2. */
    C2("static", 0, 0, 1, 1, 1, 5, 0, 1, 1, 1),
    /* 10: exact graze, s = (10,2), v = (-1,0), R = 2: D = 0, the double root t = 10. */
    C2("graze", 0, 0, 0, 0, 1, 10, 2, -1, 0, 1),
    /* 11: touching now (c = 0) and approaching, s = (2,0), v = (-1,0), R = 2: roots 0, 4. */
    C2("contact", 0, 0, 0, 0, 1, 2, 0, -1, 0, 1),
    /* 12-14: document 001 figure 7's pair times, relative speed 20, R = 2:
       gaps 18, 14 and 10 give t = 18/20 = 0.9, 14/20 = 0.7, 10/20 = 0.5. */
    C2("fig7-AB", 0, 0, 0, 0, 1, 20, 0, -20, 0, 1),
    C2("fig7-BC", 0, 0, 0, 0, 1, 16, 0, -20, 0, 1),
    C2("fig7-AC", 0, 0, 0, 0, 1, 12, 0, -20, 0, 1),
};
#define FC_EXACT (sizeof fc_exact / sizeof fc_exact[0])

/* A formulation's expected answer on exact case case_index. */
typedef struct fc_row {
  int case_index;
  int cls;        /* expected verdict */
  double t;       /* expected time, NaN when none */
  double max_ulp; /* 0: the time must be exactly t */
} fc_row;

#define FC_NONE(k) {k, TOI_NONE, NAN, 0}
#define FC_HIT(k, t) {k, TOI_HIT, t, 0}
/* Cases 0-4, where every forward textbook formulation hits at the lower root exactly. */
#define FC_HITS_0_TO_4 FC_HIT(0, 4), FC_HIT(1, 5), FC_HIT(2, 2), FC_HIT(3, 5), FC_HIT(4, 1)
/* Cases 12-14, figure 7: the root is a quotient of integers, RN(t) for one exact division. */
#define FC_FIG7 FC_HIT(12, 0.9), FC_HIT(13, 0.7), FC_HIT(14, 0.5)
/* A reverse formulation (or one that looks only at overlaps) on cases 0-4 and 12-14: nothing. */
#define FC_NONE_0_TO_4 FC_NONE(0), FC_NONE(1), FC_NONE(2), FC_NONE(3), FC_NONE(4)
#define FC_NONE_FIG7 FC_NONE(12), FC_NONE(13), FC_NONE(14)
/* The bench's own kernels (robust, accurate) give every case its exact class
   and the exact lower root (all the roots here are integers or quotients of
   integers, correctly rounded). */
#define FC_EXACT_KERNEL_ROWS                                                                                     \
  FC_HITS_0_TO_4, {5, TOI_OVERLAP, NAN, 0}, {6, TOI_OVERLAP, NAN, 0}, {7, TOI_SEPARATING, NAN, 0},              \
      {8, TOI_SEPARATING, NAN, 0}, {9, TOI_STATIC, NAN, 0}, {10, TOI_GRAZE, 10, 0}, {11, TOI_CONTACT, 0, 0}, FC_FIG7

static inline double fc_ulp(double x) {
  x = fabs(x);
  return nextafter(x, INFINITY) - x;
}

/* Formulation name's answers on the exact cases: rows covers every case once,
   each answer is the row's (exactly, or within max_ulp), and each exact time
   of the table is the certified reference's root too (a check of the hand
   computation; an overlap's 0 and a time before 0 of a forward formulation
   are verdicts, not roots). */
static inline void fc_check_exact(const char *name, const fc_row *rows, size_t n) {
  const toi_formulation *f = fc_find(name);
  cr_assert_eq(n, FC_EXACT, "%s: %zu rows for %zu exact cases", name, n, (size_t)FC_EXACT);
  int seen[FC_EXACT] = {0};
  for (size_t j = 0; j < n; j++) {
    const fc_row *row = &rows[j];
    cr_assert(row->case_index >= 0 && row->case_index < (int)FC_EXACT, "%s: row %zu", name, j);
    cr_assert_eq(seen[row->case_index]++, 0, "%s: two rows for case %d", name, row->case_index);
    const toi_case *c = &fc_exact[row->case_index];
    toi_result r = f->solve(c);
    cr_assert_eq(r.cls, row->cls, "%s on %s: verdict %s, expected %s", name, c->id, toi_class_name(r.cls),
                 toi_class_name((toi_class)row->cls));
    if (isnan(row->t)) {
      cr_assert(isnan(r.t), "%s on %s: t = %a, expected none", name, c->id, r.t);
      continue;
    }
    if (row->max_ulp == 0) {
      cr_assert(r.t == row->t, "%s on %s: t = %a, expected exactly %a", name, c->id, r.t, row->t);
    } else {
      const double err = fabs(r.t - row->t) / fc_ulp(row->t);
      cr_assert(err <= row->max_ulp, "%s on %s: t = %a is %.3g ULP from %a (bound %g)", name, c->id, r.t, err,
                row->t, row->max_ulp);
      continue;
    }
    if (f->direction == TOI_FORWARD && (row->cls == TOI_OVERLAP || row->t < 0)) continue;
    toi_ref ref;
    cr_assert_eq(tr_solve(&ref, c), TOI_OK);
    const double want = f->direction == TOI_FORWARD ? ref.tfwd : ref.trev;
    cr_assert(want == row->t, "%s on %s: table says %a, reference %a", name, c->id, row->t, want);
  }
}

static inline double fc_norm(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += x[i] * x[i];
  return sqrt(s);
}

/* A random unit vector in n dimensions (rejection from the cube). */
static inline void fc_unit(test_rng *r, double *u, int n) {
  double len;
  do {
    for (int i = 0; i < n; i++) u[i] = test_rng_uniform(r, -1, 1);
    len = fc_norm(u, n);
  } while (len < 0.1 || len > 1);
  for (int i = 0; i < n; i++) u[i] /= len;
}

/* A well-conditioned case, built from its answer: positions in [-10,10],
   radii in [0.5,2], relative speed in [0.5,5]. B's relative path passes at
   distance d from A's centre, nine in ten with d <= 0.8 R (hits), the rest with
   d >= 1.3 R (misses): never near a graze, where the root is ill-conditioned
   and any formulation loses digits. B starts at least 1 before the contact
   along its path, so the root is >= 0.2 and the balls are apart. */
static inline void fc_hit_case(test_rng *r, toi_case *c, int dim) {
  tc_blank(c, dim);
  double off[3], u[3], w[3];
  int inside;
  do {
    c->ra = test_rng_uniform(r, 0.5, 2);
    c->rb = test_rng_uniform(r, 0.5, 2);
    const double R = c->ra + c->rb;
    const double d = (test_rng_next(r) % 10 ? test_rng_uniform(r, 0, 0.8) : test_rng_uniform(r, 1.3, 2)) * R;
    fc_unit(r, off, dim);
    double dot;
    do { /* u: a unit direction of motion orthogonal to off */
      fc_unit(r, w, dim);
      dot = 0;
      for (int i = 0; i < dim; i++) dot += w[i] * off[i];
      for (int i = 0; i < dim; i++) u[i] = w[i] - dot * off[i];
    } while (fc_norm(u, dim) < 0.1);
    const double ulen = fc_norm(u, dim);
    for (int i = 0; i < dim; i++) u[i] /= ulen;
    const double half = d < R ? sqrt(R * R - d * d) : 0, L = test_rng_uniform(r, half + 1, half + 16);
    inside = 1;
    for (int i = 0; i < dim; i++) {
      c->pa[i] = test_rng_uniform(r, -10, 10);
      c->pb[i] = c->pa[i] + d * off[i] - L * u[i];
      if (fabs(c->pb[i]) > 10) inside = 0;
    }
  } while (!inside);
  const double speed = test_rng_uniform(r, 0.5, 5), sa = test_rng_uniform(r, 0, 5);
  fc_unit(r, w, dim);
  for (int i = 0; i < dim; i++) {
    c->va[i] = sa * w[i];
    c->vb[i] = c->va[i] + speed * u[i];
  }
}

static inline toi_case fc_negate_velocities(const toi_case *c) {
  toi_case n = *c;
  for (int i = 0; i < 3; i++) {
    n.va[i] = -c->va[i];
    n.vb[i] = -c->vb[i];
  }
  return n;
}

#endif
