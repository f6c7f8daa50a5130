/* test_sim_ericson.c: the run's direct ericson prediction (sim_ericson.h) against the ericson kernel, and runs through both. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sim.h"
#include "sim_ericson.h"
#include "test_env.h"
#include "test_rng.h"

static sim_kernel ericson_kernel(void) { return sim_formulation_kernel(toi_formulation_find("ericson")); }

/* The kernel's answer (r, dt) for c and sim_ericson_toi's must be the same,
   dt bit for bit when a contact is predicted. */
static void same_answer(const sim_kernel *k, const toi_case *c, const char *what) {
  double dk = NAN, df = NAN;
  int rk = k->pair_toi(k->ctx, c, &dk);
  int rf = sim_ericson_toi(c->pa, c->va, c->ra, c->pb, c->vb, c->rb, c->dim, &df);
  cr_assert_eq(rf, rk, "%s: direct %d, kernel %d", what, rf, rk);
  if (rk == 1) cr_assert(!memcmp(&df, &dk, sizeof df), "%s: direct %a, kernel %a", what, df, dk);
}

static toi_case case_of(int dim, const double pa[3], const double va[3], double ra, const double pb[3],
                        const double vb[3], double rb) {
  toi_case c;
  memset(&c, 0, sizeof c);
  c.dim = dim;
  for (int d = 0; d < dim; d++) {
    c.pa[d] = pa[d];
    c.va[d] = va[d];
    c.pb[d] = pb[d];
    c.vb[d] = vb[d];
  }
  c.ra = ra;
  c.rb = rb;
  c.ma = c.mb = 1;
  return c;
}

/* Each early out of the formulation, and the answers the kernel turns away:
   an overlap (t = 0), a = 2^-42 < 1e-12 (not moving), b = 0 (touching and
   tangential), d < 0 (a miss), hits at t = 1 and 0, and NaN times (-1). */
Test(sim_ericson, early_outs_and_edges) {
  sim_kernel k = ericson_kernel();
  const double z[3] = {0, 0, 0};
  struct {
    const char *what;
    double pb[3], vb[3], rb;
    int want;
    double dt;
  } rows[] = {
      {"overlap", {1.5, 0, 0}, {1, 0, 0}, 1, 1, 0},
      {"slow", {10, 0, 0}, {-0x1p-21, 0, 0}, 1, 0, 0},
      {"tangent", {2, 0, 0}, {0, 1, 0}, 1, 0, 0},
      {"receding", {3, 0, 0}, {1, 0, 0}, 1, 0, 0},
      {"miss", {0, 5, 0}, {-1, -1, 0}, 1, 0, 0},
      {"hit at 1", {4, 0, 0}, {-2, 0, 0}, 1, 1, 1},
      {"hit at 0 (touching, approaching)", {2, 0, 0}, {-1, 0, 0}, 1, 1, 0},
      {"|s|^2 overflows: d = inf - inf", {0x1p1000, 0, 0}, {-0x1p-19, 0, 0}, 1, -1, 0},
      {"NaN centre", {NAN, 0, 0}, {-1, 0, 0}, 1, -1, 0},
      {"NaN radius", {4, 0, 0}, {-2, 0, 0}, NAN, -1, 0},
  };
  for (int dim = 2; dim <= 3; dim++)
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
      toi_case c = case_of(dim, z, z, 1, rows[i].pb, rows[i].vb, rows[i].rb);
      same_answer(&k, &c, rows[i].what);
      double dt = -1;
      int r = sim_ericson_toi(c.pa, c.va, c.ra, c.pb, c.vb, c.rb, dim, &dt);
      cr_assert_eq(r, rows[i].want, "%s (%dD): %d", rows[i].what, dim, r);
      if (r == 1) cr_assert_eq(dt, rows[i].dt, "%s (%dD): %a", rows[i].what, dim, dt);
    }
}

/* Random pairs of every kind the run makes (near contact, far, fast, slow,
   scales from 2^-30 to 2^30, 2D and 3D): the same answers. */
Test(sim_ericson, random_cases_bit_for_bit) {
  sim_kernel k = ericson_kernel();
  test_rng g = {te_seed(5)};
  long n = 200000 * te_scale();
  for (long i = 0; i < n; i++) {
    int dim = 2 + (int)(i & 1);
    int e = (int)test_rng_int(&g, -30, 30);
    double pa[3], va[3], pb[3], vb[3], ra = ldexp(test_rng_uniform(&g, 0.5, 1), e);
    double rb = (i % 7 == 0) ? ra : ldexp(test_rng_uniform(&g, 0.001, 1), e);
    for (int d = 0; d < 3; d++) {
      pa[d] = ldexp(test_rng_uniform(&g, -4, 4), e);
      pb[d] = ldexp(test_rng_uniform(&g, -4, 4), e);
      va[d] = test_rng_double(&g, -24, 4);
      vb[d] = (i % 5 == 0) ? va[d] : test_rng_double(&g, -24, 4);
    }
    toi_case c = case_of(dim, pa, va, ra, pb, vb, rb);
    same_answer(&k, &c, "random");
  }
}

Test(sim_ericson, only_the_binary64_ericson_kernel) {
  sim_kernel k = ericson_kernel();
  cr_assert(sim_kernel_is_ericson(&k));
  const toi_formulation *f = toi_formulation_find("ericson");
  sim_kernel k32 = sim_formulation_kernel_prec(f, TOI_BINARY32);
  cr_assert(!sim_kernel_is_ericson(&k32));
  sim_kernel other = sim_formulation_kernel(toi_formulation_find("expanded"));
  cr_assert(!sim_kernel_is_ericson(&other));
  sim_kernel wrapped = k;
  wrapped.ctx = (void *)toi_formulation_find("expanded");
  cr_assert(!sim_kernel_is_ericson(&wrapped));
}

/* A run's figures, sample by sample, and its events in order. */
typedef struct trace {
  sim_sample s[64];
  size_t ns;
  uint64_t h; /* a hash of every event's kind, time, balls and outcome */
} trace;

static int on_sample(void *ctx, const sim_sample *s) {
  trace *t = ctx;
  if (t->ns < 64) t->s[t->ns++] = *s;
  return 0;
}

static int on_event(void *ctx, const sim_event_info *e) {
  trace *t = ctx;
  uint64_t w[5] = {e->number, (uint64_t)e->kind, 0, e->a, e->b * 2 + (uint64_t)e->applied};
  memcpy(&w[2], &e->time, sizeof e->time);
  for (int i = 0; i < 5; i++) t->h = (t->h ^ w[i]) * 0x100000001b3ULL;
  return 0;
}

static int on_predict(void *ctx, const sim_predict_info *p) {
  (void)ctx;
  (void)p;
  return 0;
}

/* A caller that watches the predictions (on_predict) gets each case built
   and handed to the kernel; one that does not gets sim_ericson_toi's
   arithmetic, in four lanes (AVX2, when the processor has it) or in two
   (SSE2, sim_set_lanes(2)). The runs must agree in every figure and event.
   Returns the levels of the grid that hold balls. */
static int both_paths(const sim_state *st, uint64_t events) {
  sim_kernel k = ericson_kernel();
  trace t[3];
  sim_report rep[3];
  for (int run = 0; run < 3; run++) {
    memset(&t[run], 0, sizeof t[run]);
    t[run].h = 0xcbf29ce484222325ULL;
    sim_config cfg = {.restitution = 1, .events = events, .every = events / 20, .overlap_tol = 1e-9,
                      .on_sample = on_sample, .on_event = on_event, .ctx = &t[run],
                      .on_predict = run == 1 ? on_predict : NULL};
    sim_set_lanes(run == 2 ? 2 : 4);
    sim_run(&rep[run], st, &k, &cfg);
    sim_set_lanes(4);
    cr_assert_eq(rep[run].status, SIM_OK, "%s", rep[run].message);
  }
  cr_assert_eq(rep[0].last.event, events);
  cr_assert(rep[0].predictions > events, "%llu predictions", (unsigned long long)rep[0].predictions);
  for (int run = 1; run < 3; run++) {
    cr_assert_eq(rep[0].predictions, rep[run].predictions, "run %d", run);
    cr_assert_eq(t[0].h, t[run].h, "run %d: the events differ", run);
    cr_assert_eq(t[0].ns, t[run].ns);
    cr_assert(!memcmp(t[0].s, t[run].s, t[0].ns * sizeof t[0].s[0]), "run %d: the samples differ", run);
    cr_assert(!memcmp(&rep[0].last, &rep[run].last, sizeof rep[0].last));
    cr_assert_eq(rep[0].time, rep[run].time);
  }
  return rep[0].grid_levels;
}

Test(sim_ericson, runs_match_the_general_path) {
  uint64_t seed = te_seed(3);
  for (int dim = 2; dim <= 3; dim++) {
    sim_state st;
    cr_assert_eq(sim_generate(&st, seed, dim, 300, 4), TOI_OK);
    both_paths(&st, 20000);
    sim_state_free(&st);
  }
  /* one big ball among small ones: grid levels, many partners a prediction */
  sim_radii rd = {0.5, 1, SIM_RADIUS_BIMODAL, 0.004, 20};
  sim_state big;
  cr_assert_eq(sim_generate_radii(&big, seed, 2, 300, 4, &rd), TOI_OK);
  both_paths(&big, 20000);
  sim_state_free(&big);
}

/* Several big balls of one level, 16 or fewer (looked at directly by the
   small ones, in the order a walk of their cells finds them; in 2D and 3D)
   or more (their cells walked; 2D), sharing cells and crossing them: the
   same events and figures as the general path's walk of the cells. */
Test(sim_ericson, runs_with_a_few_big_balls_match_the_general_path) {
  uint64_t seed = te_seed(5);
  const double fraction[3] = {0.01, 0.03, 0.06};
  for (int dim = 2; dim <= 3; dim++)
    for (int f = 0; f < (dim == 2 ? 3 : 2); f++) {
      sim_radii rd = {0.5, 1, SIM_RADIUS_BIMODAL, fraction[f], dim == 2 ? 10 : 5};
      sim_state st;
      cr_assert_eq(sim_generate_radii(&st, seed + (uint64_t)f, dim, 400, 4, &rd), TOI_OK);
      cr_assert_gt(both_paths(&st, 20000), 1, "%dD, fraction %g: one level", dim, fraction[f]);
      sim_state_free(&st);
    }
}

/* Ball A against the record b at time t, one pair at a time: the centre as
   the run computes it (p + v (t - tr)), then sim_ericson_toi. */
static int one_pair(const double pa[3], const double va[3], double ra, const sim_body *b, double t, int dim,
                    double *dt) {
  double h = t - b->tr, pb[3] = {b->p[0] + b->v[0] * h, b->p[1] + b->v[1] * h, 0};
  if (dim == 3) pb[2] = b->p[2] + b->v[2] * h;
  return sim_ericson_toi(pa, va, ra, pb, b->v, b->r, dim, dt);
}

/* One draw for the lane tests: a moving ball (pa, va, ra at time t) and nb
   partners near contact, overlapping, receding, slow, and with NaN and
   infinite numbers, at a scale 2^e. */
typedef struct lane_draw {
  int dim;
  double pa[3], va[3], ra, t;
  sim_body b[4];
} lane_draw;

static void draw_lanes(lane_draw *w, test_rng *g, long i, int nb) {
  memset(w, 0, sizeof *w);
  w->dim = 2 + (int)(i & 1);
  int e = (int)test_rng_int(g, -20, 20);
  w->ra = ldexp(test_rng_uniform(g, 0.5, 1), e);
  w->t = ldexp(test_rng_uniform(g, 0, 8), e);
  for (int d = 0; d < w->dim; d++) {
    w->pa[d] = ldexp(test_rng_uniform(g, -4, 4), e);
    w->va[d] = test_rng_double(g, -24, 4);
  }
  for (int k = 0; k < nb; k++) {
    sim_body *b = &w->b[k];
    b->tr = ldexp(test_rng_uniform(g, 0, 8), e);
    b->r = (i % 7 == 0) ? w->ra : ldexp(test_rng_uniform(g, 0.001, 1), e);
    for (int d = 0; d < w->dim; d++) {
      b->p[d] = w->pa[d] + ldexp(test_rng_uniform(g, -3, 3), e);
      b->v[d] = (i % 5 == 0) ? w->va[d] : test_rng_double(g, -24, 4);
    }
    long odd = test_rng_int(g, 0, 199);
    if (odd == 0) b->v[0] = NAN;
    if (odd == 1) b->p[1] = INFINITY;
    if (odd == 2) b->p[0] = 0x1p1000;
    if (odd == 3) b->r = NAN;
  }
}

/* Lanes hit (1) and nan (-1) with times dtl of w's nb partners against
   one_pair on each: the same answer, dt bit for bit when 1; seen counts the
   answers (-1, 0, 1). */
static void check_lanes(const lane_draw *w, long i, int nb, int hit, int nan, const double *dtl, long seen[3]) {
  for (int k = 0; k < nb; k++) {
    double dt = -1;
    int r = one_pair(w->pa, w->va, w->ra, &w->b[k], w->t, w->dim, &dt);
    int got = (hit >> k & 1) ? 1 : (nan >> k & 1) ? -1 : 0;
    cr_assert_eq(got, r, "pair %ld lane %d of %d (%dD): lanes %d, one %d", i, k, nb, w->dim, got, r);
    cr_assert(!((hit & nan) >> k & 1), "lane %d both 1 and -1", k);
    if (r == 1) cr_assert(!memcmp(&dt, &dtl[k], sizeof dt), "pair %ld lane %d: %a, one %a", i, k, dtl[k], dt);
    seen[r + 1]++;
  }
}

/* Each lane of sim_ericson_toi2 against one_pair, whatever the other lane
   holds. */
Test(sim_ericson, two_lanes_bit_for_bit) {
  test_rng g = {te_seed(7)};
  long n = 200000 * te_scale();
  long seen[3] = {0, 0, 0};
  for (long i = 0; i < n; i++) {
    lane_draw w;
    draw_lanes(&w, &g, i, 2);
    double dt2[2] = {-1, -1};
    int nan = 0, hit = sim_ericson_toi2(w.pa, w.va, w.ra, &w.b[0], &w.b[1], w.t, w.dim, dt2, &nan);
    check_lanes(&w, i, 2, hit, nan, dt2, seen);
  }
  cr_assert(seen[0] > 100 && seen[1] > n / 4 && seen[2] > n / 20, "-1: %ld, 0: %ld, 1: %ld", seen[0], seen[1],
            seen[2]);
}

/* Each lane of sim_ericson_toi4 (AVX2) against one_pair, whatever the
   other three lanes hold. */
Test(sim_ericson, four_lanes_bit_for_bit) {
  if (!__builtin_cpu_supports("avx2")) cr_skip_test("no AVX2 on this processor");
  test_rng g = {te_seed(13)};
  long n = 100000 * te_scale();
  long seen[3] = {0, 0, 0};
  for (long i = 0; i < n; i++) {
    lane_draw w;
    draw_lanes(&w, &g, i, 4);
    const sim_body *bk[4] = {&w.b[0], &w.b[1], &w.b[2], &w.b[3]};
    double dt4[4] = {-1, -1, -1, -1};
    int nan = 0, hit = sim_ericson_toi4(w.pa, w.va, w.ra, bk, w.t, w.dim, dt4, &nan);
    check_lanes(&w, i, 4, hit, nan, dt4, seen);
  }
  cr_assert(seen[0] > 100 && seen[1] > n && seen[2] > n / 5, "-1: %ld, 0: %ld, 1: %ld", seen[0], seen[1],
            seen[2]);
}

/* Balls so far apart that |s|^2 overflows: an approaching pair's time is
   NaN (d = inf - inf) and the run stops there. The paths (cases, four
   lanes, two lanes) must stop at the same prediction, whichever lane the
   NaN pair takes and whatever the other lanes hold: the same status,
   message and count of predictions. */
Test(sim_ericson, nan_stops_both_paths_alike) {
  sim_kernel k = ericson_kernel();
  test_rng g = {te_seed(11)};
  int nans = 0;
  for (int round = 0; round < 40; round++) {
    sim_state st = {.dim = 2, .box = {0x1p520, 0x1p520, 0}, .n = 6};
    st.balls = calloc(st.n, sizeof *st.balls);
    cr_assert(st.balls);
    for (size_t i = 0; i < st.n; i++) {
      st.balls[i].p[0] = ldexp(1 + (double)i, 515);
      st.balls[i].p[1] = ldexp(test_rng_uniform(&g, 1, 30), 515);
      st.balls[i].v[0] = (double)test_rng_int(&g, -1, 1);
      st.balls[i].v[1] = (double)test_rng_int(&g, -1, 1);
      st.balls[i].r = 1;
      st.balls[i].m = 1;
    }
    sim_report rep[3];
    for (int run = 0; run < 3; run++) {
      sim_config cfg = {.restitution = 1, .events = 50, .every = 10, .overlap_tol = 1e-9,
                        .on_predict = run == 1 ? on_predict : NULL};
      sim_set_lanes(run == 2 ? 2 : 4);
      sim_run(&rep[run], &st, &k, &cfg);
      sim_set_lanes(4);
    }
    for (int run = 1; run < 3; run++) {
      cr_assert_eq(rep[0].status, rep[run].status, "round %d run %d: %s / %s", round, run, rep[0].message,
                   rep[run].message);
      cr_assert_str_eq(rep[0].message, rep[run].message);
      cr_assert_eq(rep[0].predictions, rep[run].predictions, "round %d run %d: %llu and %llu predictions", round,
                   run, (unsigned long long)rep[0].predictions, (unsigned long long)rep[run].predictions);
    }
    nans += rep[0].status == SIM_NAN;
    sim_state_free(&st);
  }
  cr_assert_gt(nans, 10, "%d runs stopped by a NaN", nans);
}

/* sim_wall_toi_double through a function of the test's own: a kernel with
   it predicts its walls by calls to the kernel, one axis at a time, and its
   cell crossings one axis at a time (predict_wall, predict_cell), where the
   kernel with sim_wall_toi_double itself has both computed together, both
   axes at once in 2D. */
static int wall_toi_called(void *ctx, const double p[3], const double v[3], double r, int dim, int axis,
                           double wall, double *dt) {
  return sim_wall_toi_double(ctx, p, v, r, dim, axis, wall, dt);
}

/* Runs st with the ericson kernel, once with its walls and once with
   wall_toi_called: the same events, samples and figures. */
static void walls_both_ways(const sim_state *st, uint64_t events) {
  sim_kernel k[2] = {ericson_kernel(), ericson_kernel()};
  k[1].wall_toi = wall_toi_called;
  trace t[2];
  sim_report rep[2];
  for (int run = 0; run < 2; run++) {
    memset(&t[run], 0, sizeof t[run]);
    t[run].h = 0xcbf29ce484222325ULL;
    sim_config cfg = {.restitution = 1, .events = events, .every = events / 20, .overlap_tol = 1e-9,
                      .on_sample = on_sample, .on_event = on_event, .ctx = &t[run]};
    sim_run(&rep[run], st, &k[run], &cfg);
    cr_assert_eq(rep[run].status, SIM_OK, "%s", rep[run].message);
  }
  cr_assert_eq(rep[0].last.event, events);
  cr_assert_gt(rep[0].last.wall_events, 0);
  cr_assert_gt(rep[0].last.cell_events, 0);
  cr_assert_eq(rep[0].predictions, rep[1].predictions);
  cr_assert_eq(t[0].h, t[1].h, "dim %d: the events differ", st->dim);
  cr_assert_eq(t[0].ns, t[1].ns);
  cr_assert(!memcmp(t[0].s, t[1].s, t[0].ns * sizeof t[0].s[0]), "dim %d: the samples differ", st->dim);
  cr_assert(!memcmp(&rep[0].last, &rep[1].last, sizeof rep[0].last));
  cr_assert_eq(rep[0].time, rep[1].time);
}

Test(sim_ericson, walls_and_crossings_match_the_kernel_path) {
  uint64_t seed = te_seed(5);
  for (int dim = 2; dim <= 3; dim++) {
    sim_state st;
    cr_assert_eq(sim_generate(&st, seed, dim, 200, 4), TOI_OK);
    walls_both_ways(&st, 20000);
    /* velocities along the axes only, some at rest: axes with no wall and
       no crossing ahead, balls that sit in the box's edge cells */
    test_rng g = {seed};
    for (size_t i = 0; i < st.n; i++) {
      long axis = test_rng_int(&g, -1, dim - 1);
      for (int d = 0; d < dim; d++) st.balls[i].v[d] = d == axis ? (double)(2 * test_rng_int(&g, 0, 1) - 1) : 0;
    }
    walls_both_ways(&st, 5000);
    sim_state_free(&st);
  }
  sim_radii rd = {0.5, 1, SIM_RADIUS_BIMODAL, 0.004, 20};
  sim_state big;
  cr_assert_eq(sim_generate_radii(&big, seed, 2, 300, 4, &rd), TOI_OK);
  walls_both_ways(&big, 20000);
  sim_state_free(&big);
  /* balls a little past a wall, moving out: a wall time below 0, bounced
     at once (dt 0, not the negative time) */
  for (int dim = 2; dim <= 3; dim++) {
    sim_state st = {.dim = dim, .box = {20, 20, dim == 3 ? 20 : 0}, .n = 8};
    st.balls = calloc(st.n, sizeof *st.balls);
    cr_assert(st.balls);
    for (size_t i = 0; i < st.n; i++) {
      sim_ball *b = &st.balls[i];
      int axis = (int)(i % (size_t)dim), out = (int)(i / 2 % 2);
      b->r = 0.5 + 0.0625 * (double)i;
      b->m = 1;
      for (int d = 0; d < dim; d++) {
        b->p[d] = 2.5 * (double)(i + 1);
        b->v[d] = d == axis ? (out ? 1 : -1) : 0.25 * (double)(d + 1);
      }
      b->p[axis] = out ? 20 - b->r + 0x1p-20 : b->r - 0x1p-20;
    }
    walls_both_ways(&st, 300);
    sim_state_free(&st);
  }
}

/* The kernel's pair responses through a call: a pointer other than
   sim_pair_respond_double's, so the run builds each contact's case and
   calls it (the general path) rather than responding from the balls'
   records (pair_respond_dim). */
static int pair_respond_called(void *ctx, const toi_case *c, double dt, double E, double pa[3], double pb[3],
                               double va[3], double vb[3]) {
  return sim_pair_respond_double(ctx, c, dt, E, pa, pb, va, vb);
}

/* Runs st with the kernel k and with k's pair responses called
   (pair_respond_called), restitution E: the same events (null contacts
   among them), samples and figures. */
static void responses_both_ways(const sim_state *st, sim_kernel k, uint64_t events, double E) {
  sim_kernel kk[2] = {k, k};
  kk[1].pair_respond = pair_respond_called;
  trace t[2];
  sim_report rep[2];
  for (int run = 0; run < 2; run++) {
    memset(&t[run], 0, sizeof t[run]);
    t[run].h = 0xcbf29ce484222325ULL;
    sim_config cfg = {.restitution = E, .events = events, .every = events / 20, .overlap_tol = 1e-9,
                      .on_sample = on_sample, .on_event = on_event, .ctx = &t[run]};
    sim_run(&rep[run], st, &kk[run], &cfg);
    cr_assert_eq(rep[run].status, SIM_OK, "%s", rep[run].message);
  }
  cr_assert_eq(rep[0].last.event, events);
  cr_assert_gt(rep[0].last.pair_events, 0);
  cr_assert_gt(rep[0].last.null_events, 0);
  cr_assert_eq(rep[0].predictions, rep[1].predictions);
  cr_assert_eq(t[0].h, t[1].h, "dim %d, E %g: the events differ", st->dim, E);
  cr_assert_eq(t[0].ns, t[1].ns);
  cr_assert(!memcmp(t[0].s, t[1].s, t[0].ns * sizeof t[0].s[0]), "dim %d, E %g: the samples differ", st->dim, E);
  cr_assert(!memcmp(&rep[0].last, &rep[1].last, sizeof rep[0].last));
  cr_assert_eq(rep[0].time, rep[1].time);
}

/* In binary64 a pair contact with sim_pair_respond_double is answered from
   the two balls' records (no case built, no call): the same bits as the
   case and the call, for every restitution, in 2D and 3D, with unequal
   masses (radii 0.5 to 1, a big ball) and with kernels other than ericson
   (accurate: its predictions through the case path, the same responses). */
Test(sim_ericson, pair_responses_match_the_kernel_path) {
  uint64_t seed = te_seed(7);
  const double E[3] = {1, 0.9, 0.75};
  for (int dim = 2; dim <= 3; dim++) {
    sim_state st;
    cr_assert_eq(sim_generate(&st, seed, dim, 200, 4), TOI_OK);
    for (int e = 0; e < 3; e++) responses_both_ways(&st, ericson_kernel(), 10000, E[e]);
    responses_both_ways(&st, sim_formulation_kernel(toi_formulation_find("accurate")), 3000, 1);
    sim_state_free(&st);
  }
  sim_radii rd = {0.5, 1, SIM_RADIUS_BIMODAL, 0.004, 20};
  sim_state big;
  cr_assert_eq(sim_generate_radii(&big, seed, 2, 300, 4, &rd), TOI_OK);
  responses_both_ways(&big, ericson_kernel(), 20000, 1);
  responses_both_ways(&big, ericson_kernel(), 10000, 0.5);
  sim_state_free(&big);
}

/* Out of memory at the k-th growth of an event list, for k = 1 to 400: the
   ericson predictions four lanes at a time and two at a time stop at the
   same place, with the same status and the same count of predictions (the
   run's report is printed even when it stopped). The two ways grow the
   lists in the same order (room for two events at each pair that has a
   contact), so the same growth fails in both. */
Test(sim_ericson, out_of_memory_stops_both_lane_paths_alike) {
  sim_kernel k = ericson_kernel();
  int nomem = 0;
  for (int dim = 2; dim <= 3; dim++) {
    sim_state st;
    cr_assert_eq(sim_generate(&st, 3, dim, 300, 4), TOI_OK);
    for (uint64_t at = 1; at <= 400; at++) {
      sim_report rep[2];
      for (int run = 0; run < 2; run++) {
        sim_config cfg = {.restitution = 1, .events = 20000, .every = 1000, .overlap_tol = 1e-9};
        sim_set_lanes(run ? 2 : 4);
        sim_queue_fail_grow(at);
        sim_run(&rep[run], &st, &k, &cfg);
        sim_queue_fail_grow(0);
        sim_set_lanes(4);
      }
      cr_assert_eq(rep[0].status, rep[1].status, "dim %d, growth %llu: %s / %s", dim, (unsigned long long)at,
                   rep[0].message, rep[1].message);
      cr_assert_eq(rep[0].predictions, rep[1].predictions, "dim %d, growth %llu fails: %llu and %llu predictions",
                   dim, (unsigned long long)at, (unsigned long long)rep[0].predictions,
                   (unsigned long long)rep[1].predictions);
      cr_assert_eq(rep[0].event, rep[1].event);
      nomem += rep[0].status == SIM_NOMEM;
    }
    sim_state_free(&st);
  }
  cr_assert_gt(nomem, 100, "%d runs ran out of memory", nomem);
}
