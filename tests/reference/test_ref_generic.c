/* test_ref_generic.c: one harness, instantiated per entry point, engine and precision: the reference answers as its MPFR engine does, bit for bit. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "gen.h"
#include "ref_common.h"
#include "reference_check.h"
#include "ref_forms.h"

/*
 * MPFR's tgeneric idea: one harness, parametrised by the entry point of
 * toiref.h (solve, batch, error, error bound, kappa, kappa bound), the engine
 * under test (fast, mpfr) and the precision (binary64, binary32), run on the
 * committed corpora (cases/, cases/worst/, cases/engines/) and on random
 * cases of every generator family. The specification is the MPFR engine
 * called on each case alone, unprepared: the engine under test goes through
 * the path a caller uses (the batch, a prepared case shared by every answer
 * and both directions), so the fast engine is checked against MPFR and the
 * MPFR engine's own batch and prepared paths against its single calls. Every
 * answer must be the same bits with the same status; an enclosure must hold
 * the figure, or be it exactly (lo = hi). Counts scale with TOI_TEST_SCALE;
 * seeds come from TOI_TEST_SEED.
 */

typedef enum g_entry { G_SOLVE, G_BATCH, G_ERROR, G_ERROR_BOUND, G_KAPPA, G_KAPPA_BOUND, G_ENTRIES } g_entry;

static const char *const g_entry_name[G_ENTRIES] = {"solve",       "solve_batch", "error",
                                                   "error_bound", "kappa",       "kappa_bound"};

typedef struct g_param {
  int entry;     /* g_entry */
  int engine;    /* toi_ref_engine under test */
  int precision; /* toi_precision */
} g_param;

/* The instance running (set by each test before it walks its cases). */
static g_param g_now;

static const char *g_label(void) {
  static char buf[96];
  snprintf(buf, sizeof buf, "%s, %s engine, %s", g_entry_name[g_now.entry],
           toi_ref_engine_name((toi_ref_engine)g_now.engine), toi_precision_name((toi_precision)g_now.precision));
  return buf;
}

static void g_show(char *buf, size_t n, const toi_ref *r) {
  snprintf(buf, n, "%s %a %a %a %a fwd %d rev %d", toi_class_name(r->cls), r->tlo, r->thi, r->tfwd, r->trev,
           r->fwd_is_lo, r->rev_is_lo);
}

static void g_same_ref(const toi_ref *a, toi_status sa, const toi_ref *m, toi_status sm, const toi_case *c,
                       double delta, const char *where) {
  cr_assert_eq(sa, sm, "%s (%s): status %d, mpfr %d on %s delta %a", where, g_label(), (int)sa, (int)sm, tr_fmt(c),
               delta);
  if (sa == TOI_OK && !tr_same_ref(a, m)) {
    char x[256], y[256];
    g_show(x, sizeof x, a);
    g_show(y, sizeof y, m);
    cr_assert_fail("%s (%s): differs on %s delta %a\n  tested: %s\n  mpfr:   %s", where, g_label(), tr_fmt(c), delta, x,
                   y);
  }
}

/* ---- the entry points ---- */

static void g_solve(const toi_case *c, const char *where) {
  double R = c->ra + c->rb;
  const double deltas[] = {0.0, 0.5 * R, -0.5 * R, -R, -2 * R - 1};
  for (int k = -1; k < (int)(sizeof deltas / sizeof *deltas); k++) { /* -1: no target */
    if (k >= 0 && !isfinite(deltas[k])) continue;
    toi_ref_query q = tr_query(c, (toi_precision)g_now.precision, (toi_ref_engine)g_now.engine);
    toi_ref_query s = tr_query(c, (toi_precision)g_now.precision, TOI_REF_MPFR);
    q.with_target = s.with_target = k >= 0;
    q.target = s.target = k >= 0 ? deltas[k] : 0;
    toi_ref a, m;
    memset(&a, 0x55, sizeof a); /* garbage, so that a field left unset shows */
    toi_status sa = toi_ref_solve(&a, &q), sm = toi_ref_solve(&m, &s);
    g_same_ref(&a, sa, &m, sm, c, q.target, where);
  }
}

/* The batch takes the cases of a block together (g_flush). */
enum { G_BLK = 512 };
static toi_case g_blk[G_BLK];
static char g_where[G_BLK][200];
static size_t g_nblk;

static void g_flush(void) {
  static toi_ref a[G_BLK];
  static toi_status st[G_BLK];
  toi_ref_query q = tr_query(NULL, (toi_precision)g_now.precision, (toi_ref_engine)g_now.engine);
  size_t bad = 0, want = 0;
  memset(a, 0x55, sizeof a);
  cr_assert_eq(toi_ref_solve_batch(a, st, g_blk, g_nblk, &q, &bad), TOI_OK);
  for (size_t i = 0; i < g_nblk; i++) {
    toi_ref m;
    toi_status sm = tr_solve_prec(&m, &g_blk[i], (toi_precision)g_now.precision, TOI_REF_MPFR);
    g_same_ref(&a[i], st[i], &m, sm, &g_blk[i], 0, g_where[i]);
    want += sm != TOI_OK;
  }
  cr_assert_eq(bad, want, "%s: %zu refused, %zu expected", g_label(), bad, want);
  g_nblk = 0;
}

static void g_batch(const toi_case *c, const char *where) {
  g_blk[g_nblk] = *c;
  snprintf(g_where[g_nblk], sizeof g_where[0], "%s", where);
  if (++g_nblk == G_BLK) g_flush();
}

/* The measures: one prepared case for every answer and both directions. */
static void g_measures(const toi_case *c, const char *where) {
  const toi_precision qp = (toi_precision)g_now.precision;
  const toi_ref_engine e = (toi_ref_engine)g_now.engine;
  toi_ref_prepared p;
  toi_ref_query pq = tr_query(c, qp, e);
  toi_status sp = toi_ref_prepare(&p, &pq);
  toi_ref r;
  toi_status sr = tr_solve_prec(&r, c, qp, TOI_REF_MPFR);
  cr_assert(sp == TOI_OK || sp == sr, "%s (%s): prepare %d, solve %d", where, g_label(), (int)sp, (int)sr);
  for (int d = 0; d < 2; d++) {
    toi_ref_query q = tr_query(NULL, qp, e), s = tr_query(c, qp, TOI_REF_MPFR);
    q.prepared = &p;
    q.dir = s.dir = (toi_direction)d;
    if (g_now.entry == G_KAPPA || g_now.entry == G_KAPPA_BOUND) {
      toi_ref_kappa_result a, m;
      toi_status sa = g_now.entry == G_KAPPA ? toi_ref_kappa(&a, &q) : toi_ref_kappa_bound(&a, &q);
      toi_status sm = toi_ref_kappa(&m, &s);
      cr_assert_eq(sa, sm, "%s (%s): status %d, mpfr %d on %s", where, g_label(), (int)sa, (int)sm, tr_fmt(c));
      if (sa != TOI_OK) continue;
      if (g_now.entry == G_KAPPA || tr_same(a.lo, a.hi))
        cr_assert(tr_same(a.lo, m.kappa) && tr_same(a.hi, m.kappa),
                  "%s (%s, dir %d): kappa [%a, %a], mpfr %a on %s", where, g_label(), d, a.lo, a.hi, m.kappa,
                  tr_fmt(c));
      else
        cr_assert(a.lo > 0 && a.lo <= m.kappa && m.kappa <= a.hi && a.hi <= a.lo * (1 + 0x1p-28),
                  "%s (%s, dir %d): kappa [%a, %a], mpfr %a on %s", where, g_label(), d, a.lo, a.hi, m.kappa,
                  tr_fmt(c));
      continue;
    }
    double rn = sr == TOI_OK ? (d ? r.trev : r.tfwd) : NAN;
    double other = sr == TOI_OK && ref_dir_root(&r, (toi_direction)d) == 1 ? r.thi : r.tlo;
    for (int k = 0; k < TR_T_KINDS; k++) {
      q.T = s.T = tr_kind_T(k, rn, other);
      toi_ref_error_result a, m;
      toi_status sa = g_now.entry == G_ERROR ? toi_ref_error(&a, &q) : toi_ref_error_bound(&a, &q);
      toi_status sm = toi_ref_error(&m, &s);
      cr_assert_eq(sa, sm, "%s (%s): status %d, mpfr %d on %s", where, g_label(), (int)sa, (int)sm, tr_fmt(c));
      if (sa != TOI_OK) continue;
      cr_assert(tr_same(a.bits, m.bits), "%s (%s, dir %d, T %a): bits %a, mpfr %a on %s", where, g_label(), d, q.T,
                a.bits, m.bits, tr_fmt(c));
      if (g_now.entry == G_ERROR || tr_same(a.lo, a.hi))
        cr_assert(tr_same(a.lo, m.ulp) && tr_same(a.hi, m.ulp),
                  "%s (%s, dir %d, T %a): ulp [%a, %a], mpfr %a on %s", where, g_label(), d, q.T, a.lo, a.hi, m.ulp,
                  tr_fmt(c));
      else
        cr_assert(a.lo >= 0 && a.lo <= m.ulp && m.ulp <= a.hi && a.hi < INFINITY,
                  "%s (%s, dir %d, T %a): ulp [%a, %a], mpfr %a on %s", where, g_label(), d, q.T, a.lo, a.hi, m.ulp,
                  tr_fmt(c));
    }
  }
}

static void g_check(const toi_case *c, const char *where) {
  switch ((g_entry)g_now.entry) {
  case G_SOLVE: g_solve(c, where); break;
  case G_BATCH: g_batch(c, where); break;
  default: g_measures(c, where); break;
  }
}

/* ---- the instances ---- */

ParameterizedTestParameters(ref_generic, corpora) {
  static g_param p[G_ENTRIES * 2 * TOI_PRECISION_COUNT];
  size_t k = 0;
  for (int e = 0; e < G_ENTRIES; e++)
    for (int g = 0; g < 2; g++)
      for (int q = 0; q < TOI_PRECISION_COUNT; q++) p[k].entry = e, p[k].engine = g, p[k].precision = q, k++;
  return cr_make_param_array(g_param, p, k);
}

/* Every case of the committed corpora. */
ParameterizedTest(g_param *p, ref_generic, corpora, .timeout = 600) {
  g_now = *p;
  g_nblk = 0;
  int files = tr_each_project_case(g_check);
  files += tr_each_case_file(TOI_SOURCE_DIR "/cases/engines", g_check);
  if (g_nblk) g_flush();
  cr_assert_geq(files, 10, "expected the corpora under cases/, cases/worst/ and cases/engines/");
}

ParameterizedTestParameters(ref_generic, families) {
  static g_param p[G_ENTRIES * 2 * TOI_PRECISION_COUNT];
  size_t k = 0;
  for (int e = 0; e < G_ENTRIES; e++)
    for (int g = 0; g < 2; g++)
      for (int q = 0; q < TOI_PRECISION_COUNT; q++) p[k].entry = e, p[k].engine = g, p[k].precision = q, k++;
  return cr_make_param_array(g_param, p, k);
}

/* Random cases of every family, generated in the instance's precision (half
 * of them in 3D when the family lets the dimension be chosen). */
ParameterizedTest(g_param *p, ref_generic, families, .timeout = 600) {
  g_now = *p;
  g_nblk = 0;
  long n = (p->entry == G_SOLVE || p->entry == G_BATCH ? 400 : 60) * tr_scale();
  for (int f = 0; f < TOI_GEN_FAMILY_COUNT; f++) {
    toi_gen_opts o;
    toi_gen_opts_default_in(&o, (toi_gen_family)f, (toi_precision)p->precision);
    o.seed = tr_seed() + (uint64_t)f;
    for (long i = 0; i < n; i++) {
      if (i == n / 2 && o.dim != 0) o.dim = 3;
      toi_case c;
      size_t bin;
      cr_assert_eq(toi_gen_case(&c, NULL, &bin, &o, (uint64_t)i), TOI_OK);
      char where[200];
      snprintf(where, sizeof where, "%s case %ld " SEED_MSG, toi_gen_family_name(o.family), i, SEED_ARGS);
      g_check(&c, where);
    }
  }
  if (g_nblk) g_flush();
}
