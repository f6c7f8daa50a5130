/* test_ref_generic.c: one harness, instantiated per entry point, engine, precision, vector width and build: the reference answers as its MPFR engine does, bit for bit. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "gen.h"
#include "ref_common.h"
#include "ref_fast_api.h"
#include "reference_check.h"
#include "ref_forms.h"

/*
 * MPFR's tgeneric idea: one harness, parametrised by the entry point of
 * toiref.h (solve, batch, error, error bound, kappa, kappa bound), the engine
 * under test (fast, mpfr), the precision (binary64, binary32), the batch's
 * vector width (8, 4 or 0 lanes, or the widest this processor runs) and the
 * fast engine's build (the one chosen for this processor, or the one without
 * FMA), run on three sources of cases: the committed corpora (cases/,
 * src/formulations/NAME/, cases/engines/), random cases of every generator
 * family, and random data over the whole exponent range (raw bit patterns,
 * moderate spreads at any scale, one case in 16 invalid). The specification
 * is the MPFR engine called on each case alone, unprepared: the engine under
 * test goes through the path a caller uses (the batch in blocks of an odd
 * size, so that every lane and every tail is used; the measures half from a
 * prepared case shared by every answer and both directions, half from the
 * case itself), so the fast engine is checked against MPFR and the MPFR
 * engine's own batch and prepared paths against its single calls. Every
 * answer must be the same bits with the same status; an enclosure must hold
 * the figure, or be it exactly (lo = hi). The answers T measured are those a
 * scorer meets (tr_kind_T) and the neighbours of the root in the grid of the
 * precision. Counts (g_count) scale with TOI_TEST_SCALE; seeds come from
 * TOI_TEST_SEED.
 */

typedef enum g_entry { G_SOLVE, G_BATCH, G_ERROR, G_ERROR_BOUND, G_KAPPA, G_KAPPA_BOUND, G_ENTRIES } g_entry;

static const char *const g_entry_name[G_ENTRIES] = {"solve",       "solve_batch", "error",
                                                   "error_bound", "kappa",       "kappa_bound"};

typedef enum g_source { G_CORPORA, G_FAMILIES, G_RANDOM } g_source;

typedef struct g_param {
  int entry;     /* g_entry */
  int engine;    /* toi_ref_engine under test */
  int precision; /* toi_precision */
  int width;     /* the batch's vector width: 8, 4, 0, or -1 the widest (every other entry: -1) */
  int fma;       /* the fast engine's build: 1 the chosen one, 0 the one without FMA */
} g_param;

/* The instance running (set by each test before it walks its cases), the
 * source and the index of the case in it (0 for the corpora: every case is
 * checked in full), a stream for the random targets, and the targets that
 * came out TOI_ERR_RANGE (R + delta < 0). */
static g_param g_now;
static g_source g_src;
static long g_index;
static tr_rng g_rng;
static long g_neg;

static const char *g_label(void) {
  static char buf[128];
  snprintf(buf, sizeof buf, "%s, %s engine, %s, width %d%s", g_entry_name[g_now.entry],
           toi_ref_engine_name((toi_ref_engine)g_now.engine), toi_precision_name((toi_precision)g_now.precision),
           g_now.width, g_now.fma ? "" : ", build without FMA");
  return buf;
}

/* Every instance: each entry, engine and precision; the fast engine's batch
 * at every width too; every entry of the fast engine under the build without
 * FMA. Returns the count (at most G_MAX_PARAMS). */
enum { G_MAX_PARAMS = 64 };
static size_t g_params(g_param *p) {
  static const int widths[] = {-1, 8, 4, 0};
  size_t k = 0;
  for (int e = 0; e < G_ENTRIES; e++)
    for (int g = 0; g < 2; g++)
      for (int q = 0; q < TOI_PRECISION_COUNT; q++) {
        int nw = e == G_BATCH && g == TOI_REF_FAST ? 4 : 1;
        for (int w = 0; w < nw; w++) p[k++] = (g_param){e, g, q, widths[w], 1};
        if (g == TOI_REF_FAST) p[k++] = (g_param){e, g, q, -1, 0};
      }
  return k;
}

/* How many cases of a generated source the instance checks, and how many of
 * them in full (every target, every kind of answer); the rest are checked
 * with no target (solve) or with RN(t*) and one more kind of answer in turn
 * (measures). The fast engine gets the counts that make its speed matter. */
static long g_count(long *full) {
  const int fast = g_now.engine == TOI_REF_FAST, b64 = g_now.precision == TOI_BINARY64;
  const int solves = g_now.entry == G_SOLVE || g_now.entry == G_BATCH;
  *full = solves ? 400 : 60;
  if (!fast) return solves ? 400 : 60;
  if (!g_now.fma) {
    *full = solves ? 400 : 3000;
    return 4000;
  }
  if (g_src == G_RANDOM) {
    if (g_now.entry == G_SOLVE) return 40000;
    if (g_now.entry == G_BATCH) return 20000;
    *full = 300;
    return g_now.entry == G_ERROR || g_now.entry == G_KAPPA ? 4000 : 3000;
  }
  switch ((g_entry)g_now.entry) {
  case G_SOLVE: return b64 ? 1000000 : 100000;
  case G_BATCH: return b64 && g_now.width < 0 ? 1000000 : 100000;
  case G_ERROR:
  case G_KAPPA: *full = 3000; return 20000;
  default: return 1500;
  }
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

/* A target distance drawn from the stream: just below R, just above -R
 * (R + delta tiny), below -R (refused), or any small value. */
static double g_random_target(double R) {
  switch (tr_next(&g_rng) % 4) {
  case 0: return R * ldexp(1.0, -(int)tr_int(&g_rng, 1, 60));
  case 1: return -R * (1 - ldexp(1.0, -(int)tr_int(&g_rng, 1, 60)));
  case 2: return -R * (1 + ldexp(1.0, -(int)tr_int(&g_rng, 1, 60))); /* R + delta < 0 */
  default: return tr_double(&g_rng, -60, 4);
  }
}

static void g_solve_one(const toi_case *c, int with_target, double delta, const char *where) {
  toi_ref_query q = tr_query(c, (toi_precision)g_now.precision, (toi_ref_engine)g_now.engine);
  toi_ref_query s = tr_query(c, (toi_precision)g_now.precision, TOI_REF_MPFR);
  q.with_target = s.with_target = with_target;
  q.target = s.target = with_target ? delta : 0;
  toi_ref a, m;
  memset(&a, 0x55, sizeof a); /* garbage, so that a field left unset shows */
  toi_status sa = toi_ref_solve(&a, &q), sm = toi_ref_solve(&m, &s);
  g_same_ref(&a, sa, &m, sm, c, q.target, where);
  g_neg += with_target && sm == TOI_ERR_RANGE;
}

static void g_solve(const toi_case *c, long full, const char *where) {
  double R = c->ra + c->rb;
  const double deltas[] = {0.0, 0.5 * R, -0.5 * R, -R, -2 * R - 1, INFINITY, NAN, -100.0};
  g_solve_one(c, 0, 0, where);
  if (g_index < full)
    for (size_t k = 0; k < sizeof deltas / sizeof *deltas; k++)
      if (isfinite(deltas[k]) || k >= 5) g_solve_one(c, 1, deltas[k], where);
  if (g_src != G_CORPORA && (g_index < full || g_index % 8 == 0) && isfinite(R))
    g_solve_one(c, 1, g_random_target(R), where);
}

/* The batch takes the cases of a block together (g_flush); an odd block
 * size puts every case in every lane and leaves a tail at every width. */
enum { G_BLK = 1021 };
static toi_case g_blk[G_BLK];
static char g_where[G_BLK][200];
static size_t g_nblk;

static void g_flush(void) {
  static toi_ref a[G_BLK];
  static toi_status st[G_BLK];
  toi_ref_query q = tr_query(NULL, (toi_precision)g_now.precision, (toi_ref_engine)g_now.engine);
  size_t bad = 0, want = 0, valid = 0;
  memset(a, 0x55, sizeof a);
  toi_ref_fast_stats s0, s1;
  toi_ref_fast_stats_get(&s0);
  cr_assert_eq(toi_ref_solve_batch(a, st, g_blk, g_nblk, &q, &bad), TOI_OK);
  toi_ref_fast_stats_get(&s1);
  for (size_t i = 0; i < g_nblk; i++) {
    toi_ref m;
    toi_status sm = tr_solve_prec(&m, &g_blk[i], (toi_precision)g_now.precision, TOI_REF_MPFR);
    g_same_ref(&a[i], st[i], &m, sm, &g_blk[i], 0, g_where[i]);
    want += sm != TOI_OK;
    valid += sm == TOI_OK || sm == TOI_ERR_RANGE;
  }
  cr_assert_eq(bad, want, "%s: %zu refused, %zu expected", g_label(), bad, want);
  /* The fast engine counts each valid case it was given once, and no more
   * than the block (the MPFR engine's calls above are not counted). */
  unsigned long long calls = s1.calls - s0.calls;
  if (g_now.engine == TOI_REF_FAST && g_now.precision == TOI_BINARY64) {
    cr_expect_leq(calls, (unsigned long long)g_nblk, "%s: %llu calls counted for %zu cases", g_label(), calls, g_nblk);
    cr_expect_geq(calls, (unsigned long long)valid, "%s: %llu calls counted for %zu valid cases", g_label(), calls,
                  valid);
  }
  g_nblk = 0;
}

static void g_batch(const toi_case *c, const char *where) {
  g_blk[g_nblk] = *c;
  snprintf(g_where[g_nblk], sizeof g_where[0], "%s", where);
  if (++g_nblk == G_BLK) g_flush();
}

/* The answers T: the kinds a scorer meets (tr_kind_T), then the root's
 * neighbours 1..4 steps above and below in the grid of q, a relative step of
 * 2^-12, far values, and the smallest subnormal of q (binary64: 1.5 2^-1060). */
enum { G_T_KINDS = TR_T_KINDS + 12 };

static double g_kind_T(int k, double rn, double other, toi_precision q) {
  if (k < TR_T_KINDS) return tr_kind_T(k, rn, other);
  double base = isnan(rn) ? 1.0 : rn;
  k -= TR_T_KINDS;
  if (k < 8) {
    double t = base, dir = k < 4 ? INFINITY : -INFINITY;
    for (int i = 0; i < k % 4 + 1; i++)
      t = q == TOI_BINARY32 ? (double)nextafterf((float)t, (float)dir) : nextafter(t, dir);
    return t;
  }
  switch (k) {
  case 8: return base * (1 + 0x1p-12);
  case 9: return 3 * base + 2;
  case 10: return -base - 1;
  default: return q == TOI_BINARY32 ? 0x1p-149 : 0x1.8p-1060;
  }
}

static void g_kappa(const toi_case *c, toi_ref_query *q, toi_direction d, const char *where) {
  toi_ref_query s = tr_query(c, (toi_precision)g_now.precision, TOI_REF_MPFR);
  s.dir = d;
  toi_ref_kappa_result a, m;
  toi_status sa = g_now.entry == G_KAPPA ? toi_ref_kappa(&a, q) : toi_ref_kappa_bound(&a, q);
  toi_status sm = toi_ref_kappa(&m, &s);
  cr_assert_eq(sa, sm, "%s (%s): status %d, mpfr %d on %s", where, g_label(), (int)sa, (int)sm, tr_fmt(c));
  if (sa != TOI_OK) return;
  if (g_now.entry == G_KAPPA || tr_same(a.lo, a.hi))
    cr_assert(tr_same(a.lo, m.kappa) && tr_same(a.hi, m.kappa), "%s (%s, dir %d%s): kappa [%a, %a], mpfr %a on %s",
              where, g_label(), (int)d, q->prepared ? ", prepared" : "", a.lo, a.hi, m.kappa, tr_fmt(c));
  else
    cr_assert(a.lo > 0 && a.lo <= m.kappa && m.kappa <= a.hi && a.hi <= a.lo * (1 + 0x1p-28),
              "%s (%s, dir %d%s): kappa [%a, %a], mpfr %a on %s", where, g_label(), (int)d,
              q->prepared ? ", prepared" : "", a.lo, a.hi, m.kappa, tr_fmt(c));
  if (g_now.entry == G_KAPPA)
    cr_assert(tr_same(a.kappa, m.kappa), "%s (%s, dir %d): kappa %a, mpfr %a on %s", where, g_label(), (int)d, a.kappa,
              m.kappa, tr_fmt(c));
}

static void g_error(const toi_case *c, toi_ref_query *q, const char *where) {
  toi_ref_query s = tr_query(c, (toi_precision)g_now.precision, TOI_REF_MPFR);
  s.dir = q->dir;
  s.T = q->T;
  toi_ref_error_result a, m;
  toi_status sa = g_now.entry == G_ERROR ? toi_ref_error(&a, q) : toi_ref_error_bound(&a, q);
  toi_status sm = toi_ref_error(&m, &s);
  cr_assert_eq(sa, sm, "%s (%s): status %d, mpfr %d on %s", where, g_label(), (int)sa, (int)sm, tr_fmt(c));
  if (sa != TOI_OK) return;
  cr_assert(tr_same(a.bits, m.bits), "%s (%s, dir %d, T %a%s): bits %a, mpfr %a on %s", where, g_label(), (int)q->dir,
            q->T, q->prepared ? ", prepared" : "", a.bits, m.bits, tr_fmt(c));
  if (g_now.entry == G_ERROR || tr_same(a.lo, a.hi))
    cr_assert(tr_same(a.lo, m.ulp) && tr_same(a.hi, m.ulp), "%s (%s, dir %d, T %a%s): ulp [%a, %a], mpfr %a on %s",
              where, g_label(), (int)q->dir, q->T, q->prepared ? ", prepared" : "", a.lo, a.hi, m.ulp, tr_fmt(c));
  else
    cr_assert(a.lo >= 0 && a.lo <= m.ulp && m.ulp <= a.hi && a.hi < INFINITY,
              "%s (%s, dir %d, T %a%s): ulp [%a, %a], mpfr %a on %s", where, g_label(), (int)q->dir, q->T,
              q->prepared ? ", prepared" : "", a.lo, a.hi, m.ulp, tr_fmt(c));
  if (g_now.entry == G_ERROR)
    cr_assert(tr_same(a.ulp, m.ulp), "%s (%s, dir %d, T %a): ulp %a, mpfr %a on %s", where, g_label(), (int)q->dir,
              q->T, a.ulp, m.ulp, tr_fmt(c));
}

/* The measures of one case: from one prepared case shared by every answer
 * and both directions, and from the case itself, in turn. */
static void g_measures(const toi_case *c, long full, const char *where) {
  const toi_precision qp = (toi_precision)g_now.precision;
  const toi_ref_engine e = (toi_ref_engine)g_now.engine;
  toi_ref_prepared p;
  toi_ref_query pq = tr_query(c, qp, e);
  toi_status sp = toi_ref_prepare(&p, &pq);
  toi_ref r;
  toi_status sr = tr_solve_prec(&r, c, qp, TOI_REF_MPFR);
  cr_assert(sp == TOI_OK || sp == sr, "%s (%s): prepare %d, solve %d", where, g_label(), (int)sp, (int)sr);
  for (int d = 0; d < 2; d++) {
    toi_ref_query q = tr_query(NULL, qp, e), u = tr_query(c, qp, e);
    q.prepared = &p;
    q.dir = u.dir = (toi_direction)d;
    if (g_now.entry == G_KAPPA || g_now.entry == G_KAPPA_BOUND) {
      g_kappa(c, &q, (toi_direction)d, where);
      g_kappa(c, &u, (toi_direction)d, where);
      continue;
    }
    double rn = sr == TOI_OK ? (d ? r.trev : r.tfwd) : NAN;
    double other = sr == TOI_OK && ref_dir_root(&r, (toi_direction)d) == 1 ? r.thi : r.tlo;
    for (int k = 0; k < G_T_KINDS; k++) {
      /* beyond the cases checked in full: RN(t*) and one more kind in turn */
      if (g_index >= full && k != 0 && k != 1 + (int)((g_index + d) % (G_T_KINDS - 1))) continue;
      toi_ref_query *x = k % 2 ? &u : &q;
      x->T = g_kind_T(k, rn, other, qp);
      g_error(c, x, where);
    }
  }
}

static void g_check(const toi_case *c, const char *where) {
  long full = 0;
  if (g_src == G_CORPORA)
    full = 1, g_index = 0;
  else
    (void)g_count(&full);
  switch ((g_entry)g_now.entry) {
  case G_SOLVE: g_solve(c, full, where); break;
  case G_BATCH: g_batch(c, where); break;
  default: g_measures(c, full, where); break;
  }
}

/* Sets the instance up: its width and build; 0 when this processor has
 * neither (the test then skips). */
static int g_begin(const g_param *p, g_source src, uint64_t salt) {
  g_now = *p;
  g_src = src;
  g_nblk = 0;
  g_neg = 0;
  g_index = 0;
  g_rng = (tr_rng){tr_seed() ^ salt};
  if (p->width >= 0 && ref_fast_batch_use(p->width) != p->width) return 0;
  if (!p->fma && ref_fast_use_fma(0)) return 0;
  return 1;
}

static void g_end(void) {
  if (g_nblk) g_flush();
  ref_fast_batch_use(-1);
  ref_fast_use_fma(-1);
}

/* ---- the instances ---- */

ParameterizedTestParameters(ref_generic, corpora) {
  static g_param p[G_MAX_PARAMS];
  return cr_make_param_array(g_param, p, g_params(p));
}

/* Every case of the committed corpora, in full. */
ParameterizedTest(g_param *p, ref_generic, corpora, .timeout = 600) {
  if (!g_begin(p, G_CORPORA, 0)) cr_skip_test("this processor lacks the width or the build");
  int files = tr_each_project_case(g_check);
  files += tr_each_case_file(TOI_SOURCE_DIR "/cases/engines", g_check);
  g_end();
  cr_assert_geq(files, 10, "expected the corpora under cases/, cases/worst/ and cases/engines/");
}

ParameterizedTestParameters(ref_generic, families) {
  static g_param p[G_MAX_PARAMS];
  return cr_make_param_array(g_param, p, g_params(p));
}

/* Random cases of every family (half of them in 3D when the family lets the
 * dimension be chosen), generated in the instance's precision; in binary32,
 * every other case generated in binary64 and rounded by the reference. */
ParameterizedTest(g_param *p, ref_generic, families, .timeout = 900) {
  if (!g_begin(p, G_FAMILIES, 0x746172676574ULL)) cr_skip_test("this processor lacks the width or the build");
  long full, n = g_count(&full) * tr_scale();
  for (int f = 0; f < TOI_GEN_FAMILY_COUNT; f++) {
    toi_gen_opts o, o64;
    toi_gen_opts_default_in(&o, (toi_gen_family)f, (toi_precision)p->precision);
    toi_gen_opts_default(&o64, (toi_gen_family)f);
    o.seed = o64.seed = tr_seed() + (uint64_t)f;
    const int mix = p->precision != TOI_BINARY64;
    for (long i = 0; i < n; i++) {
      if (i == n / 2 && o.dim != 0) o.dim = 3;
      if (i == n / 2 && o64.dim != 0) o64.dim = 3;
      toi_case c;
      size_t bin;
      const toi_gen_opts *g = mix && (i & 1) ? &o64 : &o;
      cr_assert_eq(toi_gen_case(&c, NULL, &bin, g, (uint64_t)i), TOI_OK);
      char where[200];
      snprintf(where, sizeof where, "%s case %ld%s " SEED_MSG, toi_gen_family_name(o.family), i,
               g == &o64 && mix ? " (binary64)" : "", SEED_ARGS);
      g_index = i;
      g_check(&c, where);
    }
  }
  g_end();
  if (p->entry == G_SOLVE) cr_expect_gt(g_neg, 0, "%s: no target had R + delta < 0", g_label());
}

ParameterizedTestParameters(ref_generic, random) {
  static g_param p[G_MAX_PARAMS];
  return cr_make_param_array(g_param, p, g_params(p));
}

/* Random data over the whole exponent range: a quarter raw bit patterns, the
 * rest lengths with exponents in [el, el + 40] and velocities in [ev, ev +
 * 40] for el, ev anywhere (scaling, subnormal and infinite roots), half of
 * them aimed; one case in 16 invalid in one of the ways the engines refuse. */
ParameterizedTest(g_param *p, ref_generic, random, .timeout = 600) {
  if (!g_begin(p, G_RANDOM, 0x6269747370617474ULL)) cr_skip_test("this processor lacks the width or the build");
  tr_rng r = {tr_seed() ^ 0x6261746368ULL};
  long full, n = g_count(&full) * tr_scale();
  for (long i = 0; i < n; i++) {
    toi_case c;
    memset(&c, 0, sizeof c);
    strcpy(c.id, "rnd");
    c.dim = 2 + (int)(tr_next(&r) & 1);
    c.ma = c.mb = 1;
    if (i % 4 == 0) {
      for (int k = 0; k < c.dim; k++)
        c.pa[k] = tr_bits(&r), c.pb[k] = tr_bits(&r), c.va[k] = tr_bits(&r), c.vb[k] = tr_bits(&r);
      c.ra = fabs(tr_bits(&r)), c.rb = fabs(tr_bits(&r));
    } else {
      int el = (int)tr_int(&r, -1070, 980), ev = (int)tr_int(&r, -1070, 980);
      tr_spread_fill(&r, &c, el, ev, -1, (int)(i & 1));
    }
    switch (tr_next(&r) % 64) {
    case 0: c.dim = 4; break;
    case 1: c.ra = -1; break;
    case 2: c.pb[1] = NAN; break;
    case 3: c.vb[0] = INFINITY; break;
    case 4: c.rb = -INFINITY; break;
    case 5:
      if (c.dim == 2) c.vb[2] = 1; /* a 2D case with a third component */
      break;
    default: break;
    }
    char where[128];
    snprintf(where, sizeof where, "random case %ld " SEED_MSG, i, SEED_ARGS);
    g_index = i;
    g_check(&c, where);
  }
  g_end();
  if (p->entry == G_SOLVE) cr_expect_gt(g_neg, 0, "%s: no target had R + delta < 0", g_label());
}
