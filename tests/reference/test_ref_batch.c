/* test_ref_batch.c: toi_ref_solve_batch answers every case bit for bit as the MPFR engine, at every vector width. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gen.h"
#include "ref_common.h"
#include "ref_fast_api.h"
#include "reference_check.h"
#include "ref_forms.h"

/*
 * The batch runs the fast engine's first stage on 8 (AVX-512) or 4 (AVX2)
 * cases at once and hands what it declines to the scalar engine. Each test
 * runs at every width this processor has (8, 4 and 0, the scalar loop) and
 * compares with the MPFR engine case by case: same status, same bits. Blocks
 * of odd sizes put every case in every lane and exercise the tails; cases
 * with answers known from the maths (dyadic 3-4-5 constructions over the
 * exponent range) check the values themselves.
 */

static const int rb_widths[] = {8, 4, 0};

/* Sets the width; 0 when this processor lacks it (the test skips it). */
static int rb_use(int w) {
  int got = ref_fast_batch_use(w);
  return got == w;
}

static void rb_show(char *buf, size_t n, const toi_ref *r) {
  snprintf(buf, n, "%s %a %a %a %a fwd %d rev %d", toi_class_name(r->cls), r->tlo, r->thi, r->tfwd, r->trev,
           r->fwd_is_lo, r->rev_is_lo);
}

/* Solves c[0..n-1] in batches of `block` cases at the current width and
 * compares each answer and status with the MPFR engine's (m, sm). */
static void rb_compare(const toi_case *c, const toi_ref *m, const toi_status *sm, size_t n, size_t block,
                       const char *what) {
  toi_ref *b = malloc(n * sizeof *b);
  toi_status *sb = malloc(n * sizeof *sb);
  cr_assert(b && sb);
  memset(b, 0x55, n * sizeof *b); /* garbage, so that a field left unset shows */
  size_t bad = 0, nb = 0, want = 0;
  for (size_t lo = 0; lo < n; lo += block) {
    size_t k = n - lo < block ? n - lo : block;
    nb += tr_batch_engine(&b[lo], &sb[lo], &c[lo], k, TOI_REF_FAST);
  }
  for (size_t i = 0; i < n; i++) {
    cr_assert_eq(sb[i], sm[i], "%s, case %zu: status batch %d, mpfr %d on %s", what, i, (int)sb[i], (int)sm[i],
                 tr_fmt(&c[i]));
    if (sm[i] == TOI_OK && !tr_same_ref(&b[i], &m[i]) && bad++ == 0) {
      char x[256], y[256];
      rb_show(x, sizeof x, &b[i]);
      rb_show(y, sizeof y, &m[i]);
      cr_assert_fail("%s, case %zu (blocks of %zu): the batch differs from mpfr on\n  %s\n  batch: %s\n"
                     "  mpfr:  %s " SEED_MSG,
                     what, i, block, tr_fmt(&c[i]), x, y, SEED_ARGS);
    }
    want += sm[i] != TOI_OK;
  }
  cr_assert_eq(nb, want, "%s: the batch counts %zu bad statuses, the cases have %zu", what, nb, want);
  free(b);
  free(sb);
}

/* Every width available, blocks of 4093 and of 1000 (both leave tails). */
static void rb_all_widths(const toi_case *c, size_t n, const char *what) {
  toi_ref *m = malloc(n * sizeof *m);
  toi_status *sm = malloc(n * sizeof *sm);
  cr_assert(m && sm);
  for (size_t i = 0; i < n; i++) sm[i] = tr_solve_engine(&m[i], &c[i], TOI_REF_MPFR);
  int ran = 0;
  for (size_t k = 0; k < sizeof rb_widths / sizeof rb_widths[0]; k++) {
    if (!rb_use(rb_widths[k])) continue;
    char label[200];
    snprintf(label, sizeof label, "%s, width %d", what, rb_widths[k]);
    toi_ref_fast_stats_reset();
    rb_compare(c, m, sm, n, k % 2 ? 1000 : 4093, label);
    toi_ref_fast_stats st;
    toi_ref_fast_stats_get(&st);
    size_t valid = 0;
    for (size_t i = 0; i < n; i++) valid += sm[i] == TOI_OK || sm[i] == TOI_ERR_RANGE;
    cr_expect_leq(st.calls, (unsigned long long)n, "%s: %llu calls counted for %zu cases", label, st.calls, n);
    cr_expect_geq(st.calls, (unsigned long long)valid, "%s: %llu calls counted for %zu valid cases", label,
                  st.calls, valid);
    ran++;
  }
  ref_fast_batch_use(-1);
  cr_assert_geq(ran, 1, "no width ran (the scalar loop always can)");
  free(m);
  free(sm);
}

/* ---- the generator families ---- */

ParameterizedTestParameters(ref_batch, families) {
  static int fam[TOI_GEN_FAMILY_COUNT];
  for (int f = 0; f < TOI_GEN_FAMILY_COUNT; f++) fam[f] = f;
  return cr_make_param_array(int, fam, TOI_GEN_FAMILY_COUNT);
}

/* 10^5 cases per family (2D and 3D), against MPFR at each width. */
ParameterizedTest(int *fam, ref_batch, families) {
  size_t n = (size_t)(100000 * tr_scale());
  toi_case *c = malloc(n * sizeof *c);
  cr_assert_not_null(c);
  toi_gen_opts o;
  toi_gen_opts_default(&o, (toi_gen_family)*fam);
  o.seed = tr_seed();
  for (size_t i = 0; i < n; i++) {
    if (i == n / 2 && o.dim != 0) o.dim = 3;
    size_t bin;
    cr_assert_eq(toi_gen_case(&c[i], NULL, &bin, &o, (uint64_t)i), TOI_OK);
  }
  rb_all_widths(c, n, toi_gen_family_name((toi_gen_family)*fam));
  free(c);
}

/* ---- the case files ---- */

static toi_case *rb_files;
static size_t rb_nfiles, rb_capfiles;

static void rb_collect(const toi_case *c, const char *where) {
  (void)where;
  if (rb_nfiles == rb_capfiles) {
    rb_capfiles = rb_capfiles ? 2 * rb_capfiles : 1024;
    rb_files = realloc(rb_files, rb_capfiles * sizeof *rb_files);
    cr_assert_not_null(rb_files);
  }
  rb_files[rb_nfiles++] = *c;
}

Test(ref_batch, case_files) {
  tr_each_project_case(rb_collect);
  cr_assert_geq(rb_nfiles, 100, "expected the case files' cases, found %zu", rb_nfiles);
  rb_all_widths(rb_files, rb_nfiles, "case files");
  free(rb_files);
}

/* ---- random bit patterns: scaling, subnormals, overflow, invalid input ---- */

Test(ref_batch, random_bits_and_invalid_cases) {
  tr_rng r = {tr_seed() ^ 0x6261746368ULL};
  size_t n = (size_t)(20000 * tr_scale());
  toi_case *c = calloc(n, sizeof *c);
  cr_assert_not_null(c);
  for (size_t i = 0; i < n; i++) {
    toi_case *x = &c[i];
    strcpy(x->id, "b");
    x->dim = 2 + (int)(tr_next(&r) & 1);
    /* Moderate spread at any scale for most, raw bit patterns for some. */
    int raw = (tr_next(&r) & 3) == 0;
    int el = (int)tr_int(&r, -1070, 1000), ev = (int)tr_int(&r, -1070, 1000);
    for (int k = 0; k < x->dim; k++) {
      x->pa[k] = raw ? tr_bits(&r) : tr_double(&r, el, el + 20);
      x->pb[k] = raw ? tr_bits(&r) : tr_double(&r, el, el + 20);
      x->va[k] = raw ? tr_bits(&r) : tr_double(&r, ev, ev + 20);
      x->vb[k] = raw ? tr_bits(&r) : tr_double(&r, ev, ev + 20);
    }
    x->ra = fabs(raw ? tr_bits(&r) : tr_double(&r, el, el + 20));
    x->rb = fabs(raw ? tr_bits(&r) : tr_double(&r, el, el + 20));
    x->ma = x->mb = 1;
    /* One case in 16 invalid in one of the ways the engines refuse. */
    switch (tr_next(&r) % 64) {
    case 0: x->dim = 4; break;
    case 1: x->ra = -1; break;
    case 2: x->pb[1] = NAN; break;
    case 3: x->vb[0] = INFINITY; break;
    case 4: x->rb = -INFINITY; break;
    case 5:
      if (x->dim == 2) x->vb[2] = 1; /* a 2D case with a third component */
      break;
    default: break;
    }
  }
  rb_all_widths(c, n, "random bits");
  free(c);
}

/* ---- answers known from the maths ---- */

/* Head-on approaches with roots known exactly: B at (10, 0) moving
 * (-1, 0) towards A at rest, R = 6: |10 - t| = 6 at t = 4 and 16; B at
 * (16, 12) moving (-4, -3) (towards A, speed 5, |s| = 20), R = 10:
 * 20 - 5t = +-10 at t = 2 and 6, in 2D and in 3D. Lengths times 2^e and
 * speeds times 2^f multiply the roots by 2^(e - f), exactly, then rounded
 * to double as ldexp rounds them. */
Test(ref_batch, exact_roots_over_the_exponent_range) {
  tr_rng r = {tr_seed() ^ 0x6578616374ULL};
  size_t n = 4096;
  toi_case *c = malloc(n * sizeof *c);
  double *lo = malloc(n * sizeof *lo), *hi = malloc(n * sizeof *hi);
  cr_assert(c && lo && hi);
  for (size_t i = 0; i < n; i++) {
    /* e - f in [-1100, 1030]: roots normal, subnormal (rounded to the
     * 2^-1074 grid, ties to even: 4 2^-1077 = 2^-1075 gives +0), zero or
     * overflowing to +Inf; ldexp rounds the exact value as IEEE 754 does. */
    int d = (int)tr_int(&r, -1100, 1030), e = (int)tr_int(&r, -900, 900), f = e - d;
    while (f < -1000 || f > 1000) e = (int)tr_int(&r, -900, 900), f = e - d;
    double L = ldexp(1, e), V = ldexp(1, f);
    int rot = (int)(tr_next(&r) % 3);
    if (rot == 0) {
      c[i] = tr_rel2(10 * L, 0, -1 * V, 0, 4 * L, 2 * L);
      lo[i] = ldexp(4, e - f), hi[i] = ldexp(16, e - f);
    } else if (rot == 1) {
      c[i] = tr_rel2(16 * L, 12 * L, -4 * V, -3 * V, 7 * L, 3 * L);
      lo[i] = ldexp(2, e - f), hi[i] = ldexp(6, e - f);
    } else {
      c[i] = tr_rel3(0, 12 * L, 16 * L, 0, -3 * V, -4 * V, 5 * L, 5 * L);
      lo[i] = ldexp(2, e - f), hi[i] = ldexp(6, e - f);
    }
    /* a common offset on both balls' positions and velocities changes
     * nothing exactly when it is exact: use a power of two at the scale */
    if (tr_next(&r) & 1) {
      c[i].pa[0] += 64 * L, c[i].pb[0] += 64 * L;
      c[i].va[1] -= 32 * V, c[i].vb[1] -= 32 * V;
    }
  }
  for (size_t k = 0; k < sizeof rb_widths / sizeof rb_widths[0]; k++) {
    if (!rb_use(rb_widths[k])) continue;
    toi_ref *o = malloc(n * sizeof *o);
    toi_status *st = malloc(n * sizeof *st);
    cr_assert(o && st);
    cr_assert_eq(tr_batch_engine(o, st, c, n, TOI_REF_FAST), 0);
    for (size_t i = 0; i < n; i++) {
      cr_assert_eq(o[i].cls, TOI_HIT, "width %d: %s is a hit", rb_widths[k], tr_fmt(&c[i]));
      cr_assert(tr_same(o[i].tlo, lo[i]) && tr_same(o[i].thi, hi[i]),
                "width %d: %s: roots %a %a, expected %a %a", rb_widths[k], tr_fmt(&c[i]), o[i].tlo, o[i].thi, lo[i],
                hi[i]);
      cr_assert(o[i].fwd_is_lo == 1 && tr_same(o[i].tfwd, lo[i]) && o[i].rev_is_lo == -1 && isnan(o[i].trev),
                "width %d: %s: directions", rb_widths[k], tr_fmt(&c[i]));
    }
    free(o);
    free(st);
  }
  ref_fast_batch_use(-1);
  free(c);
  free(lo);
  free(hi);
}

/* Tails of every length, a NULL status array, and NULL arguments. */
Test(ref_batch, tails_and_null_arguments) {
  toi_case c[19];
  for (int i = 0; i < 19; i++) c[i] = tr_rel2(10 + i, 0, -1, 0, 4, 2); /* roots 4 + i and 16 + i */
  for (size_t k = 0; k < sizeof rb_widths / sizeof rb_widths[0]; k++) {
    if (!rb_use(rb_widths[k])) continue;
    for (size_t n = 0; n <= 19; n++) {
      toi_ref o[19];
      memset(o, 0x55, sizeof o);
      cr_assert_eq(tr_batch_engine(o, NULL, c, n, TOI_REF_FAST), 0);
      for (size_t i = 0; i < n; i++)
        cr_assert(o[i].cls == TOI_HIT && o[i].tlo == 4.0 + (double)i && o[i].thi == 16.0 + (double)i,
                  "width %d, n %zu, case %zu: %a %a", rb_widths[k], n, i, o[i].tlo, o[i].thi);
      for (size_t i = n; i < 19; i++) cr_assert_eq(o[i].fwd_is_lo, 0x55555555, "case %zu beyond n written", i);
    }
  }
  ref_fast_batch_use(-1);
  toi_status st[3] = {TOI_OK, TOI_OK, TOI_OK};
  cr_assert_eq(tr_batch_engine(NULL, st, c, 3, TOI_REF_FAST), 3);
  cr_assert(st[0] == TOI_ERR_RANGE && st[2] == TOI_ERR_RANGE);
  /* The MPFR engine through the batch: the same answers. */
  toi_ref o[5];
  cr_assert_eq(tr_batch_engine(o, NULL, c, 5, TOI_REF_MPFR), 0);
  cr_assert(o[4].tlo == 8 && o[4].thi == 20);
}
