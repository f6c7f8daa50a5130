/* test_sim.c: the event-driven simulation on states whose event sequence is known by construction. */
#include <criterion/criterion.h>
#include <math.h>
#include <mpfr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "response.h"
#include "sim.h"
#include "toiresp.h"
#include "test_env.h"

static unsigned long long sim_seed(void) { return te_seed(7ULL); }

static int sim_scale(void) { return (int)te_scale(); }

/* the kernels under test: every forward formulation that resolves a contact
   at t = 0 (the cradle needs it), and the certified one */
static const char *const exact_kernels[] = {"reference", "expanded", "ericson", "gsl-stable", "minkowski"};

static sim_kernel kernel_named(const char *name) {
  if (!strcmp(name, "reference"))
    return (sim_kernel){"reference", NULL, toi_ref_sim_pair_toi, toi_ref_sim_pair_respond,
                        toi_ref_sim_wall_toi, toi_ref_sim_wall_respond, TOI_BINARY64, NULL, NULL};
  const toi_formulation *f = toi_formulation_find(name);
  cr_assert(f, "formulation %s missing", name);
  return sim_formulation_kernel(f);
}

typedef struct evlog {
  sim_event_info ev[64];
  size_t n;
} evlog;

static int log_event(void *ctx, const sim_event_info *e) {
  evlog *l = ctx;
  if (e->kind == SIM_EV_PAIR && !e->applied) return 0;
  if (l->n < 64) l->ev[l->n++] = *e;
  return 0;
}

/* a state of balls of radius 1 and mass 1 on the line y = 8, given x and vx */
static sim_state line_state(double lx, double ly, const double *x, const double *vx, size_t n) {
  sim_state s;
  memset(&s, 0, sizeof s);
  s.dim = 2;
  s.box[0] = lx;
  s.box[1] = ly;
  s.n = n;
  s.balls = calloc(n, sizeof *s.balls);
  for (size_t i = 0; i < n; i++) {
    s.balls[i].p[0] = x[i];
    s.balls[i].p[1] = ly / 2;
    s.balls[i].v[0] = vx[i];
    s.balls[i].r = 1;
    s.balls[i].m = 1;
  }
  return s;
}

static sim_config config(uint64_t events, void *ctx) {
  sim_config c = {1.0, events, 0, 0, 1e-9, NULL, log_event, ctx, 0, NULL};
  return c;
}

/* Two balls between walls: A at x = 2 moving +1, B at x = 10 moving -1, box 16.
   They meet at t = 3 (x = 5, 7) and swap; A reaches the left wall (x = 1) at 7,
   B the right wall (x = 15) at 11; they meet at 15 (x = 9, 11); B's wall at 19,
   A's at 23; they meet again at 27. Every time is an integer. */
Test(sim, two_balls_between_walls) {
  double x[2] = {2, 10}, vx[2] = {1, -1};
  sim_state st = line_state(16, 16, x, vx, 2);
  struct {
    sim_event_kind kind;
    double t;
    size_t a, b;
  } want[7] = {{SIM_EV_PAIR, 3, 0, 1}, {SIM_EV_WALL, 7, 0, 0},  {SIM_EV_WALL, 11, 1, 1},
               {SIM_EV_PAIR, 15, 0, 1}, {SIM_EV_WALL, 19, 1, 1}, {SIM_EV_WALL, 23, 0, 0},
               {SIM_EV_PAIR, 27, 0, 1}};
  for (size_t k = 0; k < sizeof exact_kernels / sizeof exact_kernels[0]; k++) {
    sim_kernel ker = kernel_named(exact_kernels[k]);
    evlog log = {.n = 0};
    sim_config cfg = config(7, &log);
    sim_report rep;
    cr_assert_eq(sim_run(&rep, &st, &ker, &cfg), SIM_OK, "%s: %s", ker.name, rep.message);
    cr_assert_eq(log.n, 7, "%s: %zu events", ker.name, log.n);
    for (size_t i = 0; i < 7; i++) {
      const sim_event_info *e = &log.ev[i];
      size_t a = e->a < e->b || e->kind != SIM_EV_PAIR ? e->a : e->b;
      size_t b = e->kind == SIM_EV_PAIR ? (e->a < e->b ? e->b : e->a) : e->b;
      cr_assert(e->kind == want[i].kind && e->time == want[i].t && a == want[i].a,
                "%s event %zu: kind %d t %a ball %zu", ker.name, i + 1, e->kind, e->time, a);
      if (e->kind == SIM_EV_WALL) cr_assert_eq(b, want[i].b ? 1 : 0, "%s: wall side", ker.name); /* axis 0 */
      cr_assert_eq(e->number, i + 1);
    }
    cr_assert(rep.last.ke_err == 0 && rep.last.mom_err == 0 && rep.last.overlaps == 0);
    cr_assert(rep.time == 27);
  }
  sim_state_free(&st);
}

/* Newton's cradle: a striker at x = 4 moving +1 against four touching balls at
   8, 10, 12, 14. The striker hits at t = 2 and the impulse runs down the line
   in three contacts at the same instant (c = 0 exactly, approaching); the last
   ball leaves at speed 1 and reaches the wall (x = 31) at t = 19, comes back
   and touches the line at t = 36, and the striker leaves at speed -1. */
Test(sim, newtons_cradle) {
  double x[5] = {4, 8, 10, 12, 14}, vx[5] = {1, 0, 0, 0, 0};
  sim_state st = line_state(32, 16, x, vx, 5);
  for (size_t k = 0; k < sizeof exact_kernels / sizeof exact_kernels[0]; k++) {
    sim_kernel ker = kernel_named(exact_kernels[k]);
    evlog log = {.n = 0};
    sim_config cfg = config(5, &log);
    sim_report rep;
    cr_assert_eq(sim_run(&rep, &st, &ker, &cfg), SIM_OK, "%s: %s", ker.name, rep.message);
    cr_assert_eq(log.n, 5);
    for (size_t i = 0; i < 4; i++) {
      const sim_event_info *e = &log.ev[i];
      size_t lo = e->a < e->b ? e->a : e->b, hi = e->a < e->b ? e->b : e->a;
      cr_assert(e->kind == SIM_EV_PAIR && e->time == 2 && lo == i && hi == i + 1,
                "%s event %zu: kind %d t %a balls %zu %zu", ker.name, i + 1, e->kind, e->time, lo, hi);
    }
    cr_assert(log.ev[4].kind == SIM_EV_WALL && log.ev[4].time == 19 && log.ev[4].a == 4, "%s", ker.name);
    /* the way back: 4 more contacts at t = 36, then the striker's wall at x = 1: t = 41 */
    log.n = 0;
    cfg.events = 10;
    cr_assert_eq(sim_run(&rep, &st, &ker, &cfg), SIM_OK);
    cr_assert_eq(log.n, 10);
    for (size_t i = 5; i < 9; i++) cr_assert(log.ev[i].kind == SIM_EV_PAIR && log.ev[i].time == 36);
    cr_assert(log.ev[9].kind == SIM_EV_WALL && log.ev[9].time == 41 && log.ev[9].a == 0, "%s: t %a ball %zu",
              ker.name, log.ev[9].time, log.ev[9].a);
    cr_assert(rep.last.ke_err == 0 && rep.last.overlaps == 0);
  }
  sim_state_free(&st);
}

/* ---- pathological kernels ---- */

typedef struct nan_ctx {
  int calls, nan_at;
} nan_ctx;

static int nan_pair_toi(void *ctx, const toi_case *c, double *dt) {
  nan_ctx *n = ctx;
  if (++n->calls == n->nan_at) {
    *dt = NAN;
    return 1;
  }
  sim_kernel k = sim_formulation_kernel(toi_formulation_find("expanded"));
  return k.pair_toi(k.ctx, c, dt);
}

static int expanded_respond(void *ctx, const toi_case *c, double dt, double E, double pa[3], double pb[3],
                            double va[3], double vb[3]) {
  (void)ctx;
  sim_kernel k = sim_formulation_kernel(toi_formulation_find("expanded"));
  return k.pair_respond(k.ctx, c, dt, E, pa, pb, va, vb);
}

Test(sim, nan_kernel_reported_with_event_number) {
  /* the third pair prediction happens after event 2 (A's wall at t = 7), so
     the run stops while preparing event 3 */
  double x[2] = {2, 10}, vx[2] = {1, -1};
  sim_state st = line_state(16, 16, x, vx, 2);
  nan_ctx nc = {0, 3};
  sim_kernel k = {"nan-at-3", &nc, nan_pair_toi, expanded_respond, sim_wall_toi_double,
                  sim_wall_respond_double, TOI_BINARY64, NULL, NULL};
  evlog log = {.n = 0};
  sim_config cfg = config(100, &log);
  sim_report rep;
  cr_assert_eq(sim_run(&rep, &st, &k, &cfg), SIM_NAN);
  cr_assert_eq(rep.event, 3, "event %llu", (unsigned long long)rep.event);
  cr_assert_eq(log.n, 2);
  cr_assert(strstr(rep.message, "event 3") && strstr(rep.message, "NaN"), "%s", rep.message);
  sim_state_free(&st);
}

static int zero_toi(void *ctx, const toi_case *c, double *dt) {
  (void)ctx;
  (void)c;
  *dt = 0;
  return 1;
}

/* the response without the engine's approach test: always applies the impulse */
static int blind_respond(void *ctx, const toi_case *c, double dt, double E, double pa[3], double pb[3],
                         double va[3], double vb[3]) {
  (void)ctx;
  toi_response r;
  if (toi_response_compute(&r, c, dt, E) != TOI_OK) return -1;
  memcpy(pa, r.pa, sizeof r.pa);
  memcpy(pb, r.pb, sizeof r.pb);
  memcpy(va, r.va, sizeof r.va);
  memcpy(vb, r.vb, sizeof r.vb);
  return 1;
}

Test(sim, zero_time_kernel_stops) {
  double x[2] = {2, 10}, vx[2] = {1, -1};
  sim_state st = line_state(16, 16, x, vx, 2);
  sim_kernel k = {"always-zero", NULL, zero_toi, blind_respond, sim_wall_toi_double, sim_wall_respond_double,
                  TOI_BINARY64, NULL, NULL};
  evlog log = {.n = 0};
  sim_config cfg = config(1000000, &log);
  cfg.same_instant = 50;
  sim_report rep;
  cr_assert_eq(sim_run(&rep, &st, &k, &cfg), SIM_ZENO, "%s", rep.message);
  cr_assert_eq(rep.event, 51, "event %llu", (unsigned long long)rep.event);
  cr_assert(rep.time == 0);
  sim_state_free(&st);
}

/* A real state that does not advance: two balls touching each other and both
   walls (box 4, centres 1 and 3), approaching. Contact, wall, wall, contact...
   all at t = 0. Every correct kernel must be stopped, not hang. */
Test(sim, trapped_pair_stops) {
  double x[2] = {1, 3}, vx[2] = {1, -1};
  sim_state st = line_state(4, 4, x, vx, 2);
  for (size_t k = 0; k < sizeof exact_kernels / sizeof exact_kernels[0]; k++) {
    sim_kernel ker = kernel_named(exact_kernels[k]);
    sim_config cfg = config(1000000, NULL);
    cfg.on_event = NULL;
    cfg.same_instant = 200;
    sim_report rep;
    cr_assert_eq(sim_run(&rep, &st, &ker, &cfg), SIM_ZENO, "%s: %s", ker.name, rep.message);
    cr_assert(rep.event > 100 && rep.event <= 201, "%s: event %llu", ker.name, (unsigned long long)rep.event);
  }
  sim_state_free(&st);
}

/* ---- generated states, determinism, conservation ---- */

Test(sim, generated_state_is_valid) {
  for (int dim = 2; dim <= 3; dim++) {
    sim_state st;
    cr_assert_eq(sim_generate(&st, sim_seed(), dim, 300, 2.5), TOI_OK);
    for (size_t i = 0; i < st.n; i++) {
      const sim_ball *a = &st.balls[i];
      for (int d = 0; d < dim; d++) cr_assert(a->p[d] - a->r > 0 && a->p[d] + a->r < st.box[d]);
      for (size_t j = i + 1; j < st.n; j++) {
        double s2 = 0, R = a->r + st.balls[j].r;
        for (int d = 0; d < dim; d++) s2 += (st.balls[j].p[d] - a->p[d]) * (st.balls[j].p[d] - a->p[d]);
        cr_assert(s2 > R * R, "dim %d: balls %zu and %zu overlap", dim, i, j);
      }
    }
    sim_state_free(&st);
  }
}

typedef struct membuf {
  char *buf;
  size_t len;
  FILE *f;
} membuf;

static int sample_to_file(void *ctx, const sim_sample *s) {
  membuf *m = ctx;
  fprintf(m->f, "%llu %a %a %a %a %llu %llu %llu\n", (unsigned long long)s->event, s->time, s->ke_err,
          s->mom_err, s->min_gap, (unsigned long long)s->overlaps, (unsigned long long)s->missed,
          (unsigned long long)s->late);
  return 0;
}

static void series_of(membuf *m, const sim_state *st, const sim_kernel *k, uint64_t events, sim_report *rep) {
  m->buf = NULL;
  m->len = 0;
  m->f = open_memstream(&m->buf, &m->len);
  sim_config cfg = {1.0, events, 200, 0, 1e-9, sample_to_file, NULL, m, 0, NULL};
  sim_run(rep, st, k, &cfg);
  fclose(m->f);
}

Test(sim, same_seed_same_series) {
  sim_state a, b, c;
  unsigned long long seed = sim_seed();
  cr_assert_eq(sim_generate(&a, seed, 2, 120, 4), TOI_OK);
  cr_assert_eq(sim_generate(&b, seed, 2, 120, 4), TOI_OK);
  cr_assert_eq(sim_generate(&c, seed + 1, 2, 120, 4), TOI_OK);
  cr_assert(!memcmp(a.balls, b.balls, a.n * sizeof *a.balls));
  sim_kernel k = kernel_named("expanded");
  membuf m1, m2, m3;
  sim_report r1, r2, r3;
  series_of(&m1, &a, &k, 3000, &r1);
  series_of(&m2, &b, &k, 3000, &r2);
  series_of(&m3, &c, &k, 3000, &r3);
  cr_assert_eq(r1.status, SIM_OK, "%s", r1.message);
  cr_assert(m1.len == m2.len && !memcmp(m1.buf, m2.buf, m1.len), "seed %llu: series differ", seed);
  cr_assert(m1.len != m3.len || memcmp(m1.buf, m3.buf, m1.len), "another seed gave the same series");
  free(m1.buf);
  free(m2.buf);
  free(m3.buf);
  sim_state_free(&a);
  sim_state_free(&b);
  sim_state_free(&c);
}

/* Every kernel conserves energy and momentum to rounding on a small gas, and
   the cells hide no contact: no pair is ever found overlapping. */
Test(sim, small_gas_conserves) {
  unsigned long long seed = sim_seed();
  uint64_t events = 4000 * (uint64_t)sim_scale();
  for (int dim = 2; dim <= 3; dim++) {
    sim_state st;
    cr_assert_eq(sim_generate(&st, seed, dim, 150, 3), TOI_OK);
    for (size_t k = 0; k < sizeof exact_kernels / sizeof exact_kernels[0]; k++) {
      sim_kernel ker = kernel_named(exact_kernels[k]);
      if (!strcmp(ker.name, "reference") && dim == 3) continue; /* keep the suite fast */
      sim_config cfg = {1.0, events, 500, 0, 1e-9, NULL, NULL, NULL, 0, NULL};
      sim_report rep;
      cr_assert_eq(sim_run(&rep, &st, &ker, &cfg), SIM_OK, "seed %llu %s: %s", seed, ker.name, rep.message);
      cr_assert_eq(rep.last.event, events);
      cr_assert(rep.last.pair_events > events / 4, "%s: only %llu pair contacts", ker.name,
                (unsigned long long)rep.last.pair_events);
      cr_assert(rep.max_abs_ke_err < 1e-12, "seed %llu %s dim %d: |ke_err| %g", seed, ker.name, dim,
                rep.max_abs_ke_err);
      cr_assert(rep.last.mom_err < 1e-13, "seed %llu %s: mom_err %g", seed, ker.name, rep.last.mom_err);
      cr_assert(rep.max_overlaps == 0 && rep.missed == 0 && rep.late == 0, "seed %llu %s: overlaps %llu",
                seed, ker.name, (unsigned long long)rep.max_overlaps);
      cr_assert(rep.min_gap > -1e-9);
    }
    sim_state_free(&st);
  }
}

/* ---- ke_err against an exact recomputation ---- */

/* The run's velocities followed from outside: the kernel's responses (va, vb
   of the pair event about to be reported) and the walls' exact sign flips. */
typedef struct ke_track {
  sim_kernel inner;
  double va[3], vb[3];
  double *v;  /* 3 per ball */
  const sim_state *st;
  double ke0; /* the exact KE0 (its relative error 2^-4000 at most) */
  size_t samples, mismatches;
  double max_abs, min_gap, worst_got, worst_want;
  mpfr_t sum, term;
} ke_track;

static int ke_toi(void *ctx, const toi_case *c, double *dt) {
  ke_track *k = ctx;
  return k->inner.pair_toi(k->inner.ctx, c, dt);
}

static int ke_wall_toi(void *ctx, const double p[3], const double v[3], double r, int dim, int axis, double wall,
                       double *dt) {
  ke_track *k = ctx;
  return k->inner.wall_toi(k->inner.ctx, p, v, r, dim, axis, wall, dt);
}

static int ke_wall_respond(void *ctx, const double p[3], const double v[3], double r, int dim, int axis, double wall,
                           double dt, double pout[3]) {
  ke_track *k = ctx;
  return k->inner.wall_respond(k->inner.ctx, p, v, r, dim, axis, wall, dt, pout);
}

static int ke_respond(void *ctx, const toi_case *c, double dt, double E, double pa[3], double pb[3], double va[3],
                      double vb[3]) {
  ke_track *k = ctx;
  int r = k->inner.pair_respond(k->inner.ctx, c, dt, E, pa, pb, va, vb);
  memcpy(k->va, va, sizeof k->va);
  memcpy(k->vb, vb, sizeof k->vb);
  return r;
}

static int ke_event(void *ctx, const sim_event_info *e) {
  ke_track *k = ctx;
  if (e->kind == SIM_EV_PAIR && e->applied) {
    memcpy(&k->v[3 * e->a], k->va, sizeof k->va);
    memcpy(&k->v[3 * e->b], k->vb, sizeof k->vb);
  } else if (e->kind == SIM_EV_WALL) {
    k->v[3 * e->a + e->b / 2] = -k->v[3 * e->a + e->b / 2];
  }
  return 0;
}

/* sum m v^2 / 2 over the balls, exactly: every product of three doubles has
   at most 159 significant bits and their exponents stay within a few hundred
   of one another here, so 4000 bits hold the sum without rounding. */
static void ke_exact(ke_track *k, mpfr_t out) {
  mpfr_set_zero(out, 1);
  for (size_t i = 0; i < k->st->n; i++)
    for (int d = 0; d < k->st->dim; d++) {
      mpfr_set_d(k->term, k->v[3 * i + d], MPFR_RNDN);
      mpfr_sqr(k->term, k->term, MPFR_RNDN);
      mpfr_mul_d(k->term, k->term, k->st->balls[i].m, MPFR_RNDN);
      mpfr_add(out, out, k->term, MPFR_RNDN);
    }
  mpfr_div_2ui(out, out, 1, MPFR_RNDN);
}

/* Each sample's ke_err against (KE - KE0)/KE0 from the tracked velocities.
   The run sums in double-double (error ~2^-100 KE) and divides once: within
   2^-45 of the value relative, plus 2^-90 absolute. A sign error in the low
   parts would be off by ~2^-53 absolute, 10^13 times that. */
static int ke_sample(void *ctx, const sim_sample *smp) {
  ke_track *k = ctx;
  mpfr_t ke, ke0;
  mpfr_init2(ke, 4000);
  mpfr_init2(ke0, 4000);
  ke_exact(k, ke);
  mpfr_set(ke0, k->sum, MPFR_RNDN);
  mpfr_sub(ke, ke, ke0, MPFR_RNDN); /* exact at 4000 bits */
  mpfr_div(ke, ke, ke0, MPFR_RNDN);
  double want = mpfr_get_d(ke, MPFR_RNDN);
  mpfr_clear(ke);
  mpfr_clear(ke0);
  k->samples++;
  if (!(fabs(smp->ke_err - want) <= 0x1p-45 * fabs(want) + 0x1p-90)) {
    if (!k->mismatches++) k->worst_got = smp->ke_err, k->worst_want = want;
  }
  if (fabs(smp->ke_err) > k->max_abs) k->max_abs = fabs(smp->ke_err);
  if (smp->min_gap < k->min_gap) k->min_gap = smp->min_gap;
  return 0;
}

/* A gas under a double kernel (expanded: its responses round, so KE drifts
   by a few ULPs) with restitution E: every sample's ke_err equals the exact
   relative change of the tracked velocities' kinetic energy, and
   max_abs_ke_err is the largest |ke_err| of the samples (with E < 1 every
   ke_err is negative: the maximum of |ke_err| is a negative one's), min_gap
   the smallest of their gaps. */
static void ke_check(double E, uint64_t events) {
  sim_state st;
  cr_assert_eq(sim_generate(&st, sim_seed(), 2, 60, 3), TOI_OK);
  ke_track k;
  memset(&k, 0, sizeof k);
  k.min_gap = INFINITY;
  k.inner = kernel_named("expanded");
  k.st = &st;
  k.v = calloc(3 * st.n, sizeof *k.v);
  for (size_t i = 0; i < st.n; i++) memcpy(&k.v[3 * i], st.balls[i].v, sizeof st.balls[i].v);
  mpfr_init2(k.sum, 4000);
  mpfr_init2(k.term, 4000);
  ke_exact(&k, k.sum); /* KE0, kept in sum */
  sim_kernel ker = {"tracked", &k, ke_toi, ke_respond, ke_wall_toi, ke_wall_respond, TOI_BINARY64, NULL, NULL};
  sim_config cfg = {E, events, 25, 0, 1e-9, ke_sample, ke_event, &k, 0, NULL};
  sim_report rep;
  cr_assert_eq(sim_run(&rep, &st, &ker, &cfg), SIM_OK, "%s", rep.message);
  cr_assert_eq(rep.last.event, events);
  cr_assert_geq(k.samples, events / 25);
  cr_assert_eq(k.mismatches, 0, "E %g: %zu of %zu samples differ from the exact ke_err, first %a against %a", E,
               k.mismatches, k.samples, k.worst_got, k.worst_want);
  cr_assert(k.max_abs > 0, "E %g: the energy never changed", E);
  cr_assert_eq(rep.max_abs_ke_err, k.max_abs, "E %g: max_abs_ke_err %a, largest |ke_err| %a", E,
               rep.max_abs_ke_err, k.max_abs);
  if (E < 1) cr_assert_lt(rep.last.ke_err, 0);
  cr_assert(isfinite(k.min_gap) && rep.min_gap == k.min_gap, "E %g: min_gap %a, smallest sampled %a", E, rep.min_gap,
            k.min_gap);
  mpfr_clear(k.sum);
  mpfr_clear(k.term);
  free(k.v);
  sim_state_free(&st);
}

Test(sim, ke_err_is_the_exact_relative_change) { ke_check(1.0, 1500); }

Test(sim, max_abs_ke_err_counts_energy_losses) { ke_check(0.75, 300); }

/* Balls at rest: KE0 = 0 leaves no relative change to divide, and none
   happened: ke_err is 0 (not 0/0), as is its maximum. */
Test(sim, ke_err_of_a_state_at_rest_is_zero) {
  double x[2] = {4, 6.5}, vx[2] = {0, 0};
  sim_state st = line_state(16, 16, x, vx, 2);
  sim_kernel ker = kernel_named("expanded");
  sim_config cfg = {1.0, 10, 1, 0, 1e-9, NULL, NULL, NULL, 0, NULL};
  sim_report rep;
  cr_assert_eq(sim_run(&rep, &st, &ker, &cfg), SIM_OK, "%s", rep.message);
  cr_assert(rep.last.ke_err == 0 && rep.max_abs_ke_err == 0, "ke_err %a, max %a", rep.last.ke_err,
            rep.max_abs_ke_err);
  cr_assert_eq(rep.min_gap, 0.25, "centres 2.5 apart, R = 2: relative gap 0.5/2, got %a", rep.min_gap);
  sim_state_free(&st);
}

/* Every forward formulation of the registry, whatever it answers for an
   overlap left by rounding (a time of 0 or NaN), runs a small gas without
   stopping and without losing energy: the simulation must not take an
   overlap verdict for a pathological state. */
Test(sim, every_forward_formulation_runs_a_gas) {
  unsigned long long seed = sim_seed();
  sim_state st;
  cr_assert_eq(sim_generate(&st, seed, 2, 150, 3), TOI_OK);
  size_t n;
  const toi_formulation *all = toi_formulations(&n);
  for (size_t k = 0; k < n; k++) {
    if (all[k].direction != TOI_FORWARD) continue;
    sim_kernel ker = sim_formulation_kernel(&all[k]);
    sim_config cfg = {1.0, 4000, 500, 0, 1e-9, NULL, NULL, NULL, 0, NULL};
    sim_report rep;
    cr_assert_eq(sim_run(&rep, &st, &ker, &cfg), SIM_OK, "seed %llu %s: %s", seed, ker.name, rep.message);
    cr_assert_eq(rep.last.event, 4000, "%s", ker.name);
    cr_assert(rep.max_abs_ke_err < 1e-12, "seed %llu %s: |ke_err| %g", seed, ker.name, rep.max_abs_ke_err);
  }
  sim_state_free(&st);
}

/* A kernel that never sees contacts lets balls pass through each other: the
   sample finds them overlapping and counts them as missed. */
static int blind_toi(void *ctx, const toi_case *c, double *dt) {
  (void)ctx;
  (void)c;
  (void)dt;
  return 0;
}

Test(sim, missed_collisions_counted) {
  /* A (x = 4, +1) and B (x = 7, -1) would touch at t = 0.5; C (x = 14.5, +0.5)
     reaches the right wall (x = 15) at t = 1, the first event for a kernel
     blind to pairs. Then A is at 5 and B at 6: overlapping, and they were
     apart when their paths began, with no contact pending: one missed. */
  double x[3] = {4, 7, 14.5}, vx[3] = {1, -1, 0.5};
  sim_state st = line_state(16, 16, x, vx, 3);
  sim_kernel k = {"blind", NULL, blind_toi, expanded_respond, sim_wall_toi_double, sim_wall_respond_double,
                  TOI_BINARY64, NULL, NULL};
  sim_config cfg = {1.0, 1, 1, 0, 1e-9, NULL, NULL, NULL, 0, NULL};
  sim_report rep;
  cr_assert_eq(sim_run(&rep, &st, &k, &cfg), SIM_OK);
  cr_assert(rep.time == 1, "t %a", rep.time);
  cr_assert_eq(rep.last.overlaps, 1);
  cr_assert_eq(rep.last.missed, 1);
  cr_assert_eq(rep.last.late, 0);
  cr_assert(rep.last.min_gap == -0.5);
  /* the same state with a real kernel: the contact at 0.5 comes first */
  sim_kernel e = kernel_named("expanded");
  cr_assert_eq(sim_run(&rep, &st, &e, &cfg), SIM_OK);
  cr_assert(rep.time == 0.5 && rep.last.overlaps == 0 && rep.last.missed == 0);
  sim_state_free(&st);
}

Test(sim, state_file_round_trip_and_errors) {
  sim_state st, back;
  cr_assert_eq(sim_generate(&st, sim_seed(), 3, 40, 3), TOI_OK);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  cr_assert_eq(sim_state_write(f, &st), 0);
  fclose(f);
  toi_diags dg;
  memset(&dg, 0, sizeof dg);
  cr_assert_eq(sim_state_parse(&back, "mem", buf, len, &dg), TOI_OK);
  cr_assert(back.n == st.n && back.dim == 3 && !memcmp(back.box, st.box, sizeof st.box));
  for (size_t i = 0; i < st.n; i++) {
    cr_assert(!memcmp(back.balls[i].p, st.balls[i].p, sizeof st.balls[i].p));
    cr_assert(!memcmp(back.balls[i].v, st.balls[i].v, sizeof st.balls[i].v));
    cr_assert(back.balls[i].r == st.balls[i].r && back.balls[i].m == st.balls[i].m);
  }
  free(buf);
  sim_state_free(&st);
  sim_state_free(&back);

  struct {
    const char *text;
    long line;
    int field;
  } bad[] = {
      {"box 2 10 10\nball 5 5 0 0 1 1\nball 6 5 0 0 1 1\n", 3, 0}, /* overlap */
      {"box 2 10 10\n# c\nball 0.5 5 0 0 1 1\n", 3, 2},          /* outside the box */
      {"box 2 10 10\nball 5 5 zz 0 1 1\n", 2, 4},                /* not a number */
      {"box 2 10 10\nball 5 5 0 0 1 -1\n", 2, 7},                /* mass */
      {"ball 5 5 0 0 1 1\n", 1, 1},                              /* no box yet */
      {"box 4 10 10\n", 1, 2},                                   /* dimension */
      {"box 2 10 10\nball 5 5 0 0 1\n", 2, 7},                   /* missing field */
      {"box 2 10 10\nball 5 5 nan 0 1 1\n", 2, 4},               /* NaN */
      {"box 2 10 10\nball 5 5 0\x01 0 1 1\n", 2, 4},             /* control character */
      {"box 2 10 10\x02\nball 5 5 0 0 1 1\n", 1, 4},             /* control character */
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    memset(&dg, 0, sizeof dg);
    cr_assert_eq(sim_state_parse(&back, "s.state", bad[i].text, strlen(bad[i].text), &dg), TOI_ERR_INPUT,
                 "bad %zu accepted", i);
    cr_assert(dg.count >= 1 && dg.items[0].line == bad[i].line && dg.items[0].field == bad[i].field,
              "bad %zu: line %ld field %d: %s", i, dg.items[0].line, dg.items[0].field, dg.items[0].message);
    cr_assert(!strcmp(dg.items[0].file, "s.state"));
    cr_assert(back.balls == NULL && back.n == 0);
  }
  /* A NUL byte is refused, not taken for the end of its line; a byte order
   * mark is skipped. */
  static const char nul[] = "box 2 10 10\nball 5 5 0 0 1 1\0junk\n";
  memset(&dg, 0, sizeof dg);
  cr_assert_eq(sim_state_parse(&back, "s.state", nul, sizeof nul - 1, &dg), TOI_ERR_INPUT);
  cr_assert_eq(dg.items[0].line, 2);
  cr_assert(strstr(dg.items[0].message, "NUL"), "%s", dg.items[0].message);
  static const char bom[] = "\xEF\xBB\xBF" "box 2 10 10\nball 5 5 0 0 1 1\n";
  memset(&dg, 0, sizeof dg);
  cr_assert_eq(sim_state_parse(&back, "s.state", bom, sizeof bom - 1, &dg), TOI_OK);
  cr_assert_eq(back.n, 1);
  cr_assert_eq(back.balls[0].p[0], 5.0);
  sim_state_free(&back);
}

/* Runs kernel on two unit balls at x = 2 and 10 on the line y = 8 of a 16 x 16
   box with velocities vx; the run must end normally. */
static sim_report run_two_balls(const char *kernel, double vx0, double vx1, uint64_t events) {
  double x[2] = {2, 10}, vx[2] = {vx0, vx1};
  sim_kernel ker = kernel_named(kernel);
  sim_config cfg = config(events, NULL);
  cfg.on_event = NULL;
  sim_report rep;
  sim_state st = line_state(16, 16, x, vx, 2);
  cr_assert_eq(sim_run(&rep, &st, &ker, &cfg), SIM_OK, "%s: %s", kernel, rep.message);
  sim_state_free(&st);
  return rep;
}

/* Balls at rest: no event can be predicted, so the run ends at once and says
   it was idle; moving balls are not idle, nor is a run asked for no event. */
Test(sim, idle_when_nothing_can_happen) {
  sim_report rep = run_two_balls("expanded", 0, 0, 5);
  cr_assert_eq(rep.idle, 1);
  cr_assert_eq(rep.last.event, 0);
  rep = run_two_balls("expanded", 1, -1, 5);
  cr_assert_eq(rep.idle, 0);
  cr_assert_eq(rep.last.event, 5);
  rep = run_two_balls("expanded", 1, -1, 0);
  cr_assert_eq(rep.idle, 0);
}

/* Speeds of 2^520: the kinetic energy (2^1040) is beyond DBL_MAX but every
   momentum is not. ke_err has no value (NaN, not 0); mom_err is measured:
   equal masses head on swap velocities exactly (reference kernel), so the
   momentum change is exactly 0. Speeds of 2^1023 make sum m |v| overflow:
   mom_err is then NaN too, and never a NaN with its sign bit set. */
Test(sim, overflowing_energy_and_momentum) {
  sim_report rep = run_two_balls("reference", 0x1p520, -0x1p520, 4);
  cr_assert_gt(rep.last.pair_events, 0);
  cr_assert(isnan(rep.last.ke_err) && !signbit(rep.last.ke_err), "ke_err %g", rep.last.ke_err);
  cr_assert_eq(rep.last.mom_err, 0, "mom_err %g", rep.last.mom_err);
  rep = run_two_balls("expanded", 0x1p1023, -0x1p1023, 4);
  cr_assert(isnan(rep.last.mom_err) && !signbit(rep.last.mom_err), "mom_err %g", rep.last.mom_err);
  cr_assert(isnan(rep.last.ke_err) && !signbit(rep.last.ke_err), "ke_err %g", rep.last.ke_err);
}

/* ---- mixed radii: the hierarchical grid ---- */

#include "sim_grid.h"

/* A lattice of small balls (radius rs, spacing h, k sites per axis, velocity
   components vs in {-1, +1} times vs) leaving out the sites within `clear` of
   centre c; the first `extra` balls are left zero for the caller. */
static sim_state lattice_around(int dim, size_t k, double h, double rs, double vs, const double c[3],
                                double clear, size_t extra) {
  sim_state s;
  memset(&s, 0, sizeof s);
  s.dim = dim;
  size_t sites = dim == 2 ? k * k : k * k * k;
  s.balls = calloc(sites + extra, sizeof *s.balls);
  s.n = extra;
  for (size_t i = 0; i < sites; i++) {
    size_t idx[3] = {i % k, (i / k) % k, dim == 3 ? i / (k * k) : 0};
    sim_ball *b = &s.balls[s.n];
    double d2 = 0;
    for (int d = 0; d < dim; d++) {
      b->p[d] = ((double)idx[d] + 0.5) * h;
      b->v[d] = ((idx[d] + (size_t)d + i) % 2 ? vs : -vs);
      d2 += (b->p[d] - c[d]) * (b->p[d] - c[d]);
    }
    if (d2 < clear * clear) {
      memset(b, 0, sizeof *b);
      continue;
    }
    b->r = rs;
    b->m = 1;
    s.n++;
  }
  for (int d = 0; d < dim; d++) s.box[d] = (double)k * h;
  return s;
}

/* One ball of radius 40 at rest among 2000 small ones (radius 0.5, spacing 4,
   drifting at 1/64 so that none can touch another or a wall before t = 8),
   and a small one 8 away from its surface coming at speed 1: the first event
   is that contact at t = 8 exactly (s = 48.5, R = 40.5: disc = 81^2), found
   across levels, the small ball's cell a dozen cells from the big one's. */
Test(sim, mixed_radii_first_contact_exact) {
  const double c[3] = {100, 100, 0};
  sim_state st = lattice_around(2, 50, 4, 0.5, 1.0 / 64, c, 60, 2);
  st.balls[0] = (sim_ball){{100, 100, 0}, {0, 0, 0}, 40, 1};
  st.balls[1] = (sim_ball){{148.5, 100, 0}, {-1, 0, 0}, 0.5, 1};
  static const char *const exact[] = {"reference", "expanded", "ericson", "gsl-stable"}; /* minkowski's
                                                 p.p + q.q - 2 p.q rounds at these coordinates */
  for (size_t k = 0; k < sizeof exact / sizeof exact[0]; k++) {
    sim_kernel ker = kernel_named(exact[k]);
    evlog log = {.n = 0};
    sim_config cfg = config(1, &log);
    sim_report rep;
    cr_assert_eq(sim_run(&rep, &st, &ker, &cfg), SIM_OK, "%s: %s", exact[k], rep.message);
    cr_assert_gt(rep.grid_levels, 1, "%s: the hierarchy was not used", exact[k]);
    cr_assert_eq(log.n, 1);
    cr_assert(log.ev[0].kind == SIM_EV_PAIR && log.ev[0].time == 8.0, "%s: event at %a", exact[k],
              log.ev[0].time);
    cr_assert((log.ev[0].a == 0 && log.ev[0].b == 1) || (log.ev[0].a == 1 && log.ev[0].b == 0));
  }
  sim_state_free(&st);
}

/* ---- an all-pairs event loop: the yardstick for the grid ---- */

typedef struct bf_ev {
  int kind;
  size_t a, b;
  double t;
} bf_ev;

/* Earliest contact of every pair (skipping pairs whose last contact was
   null and that have not changed since) and every wall, from the common time. */
static bf_ev bf_next(const sim_state *s, const sim_kernel *k, double tnow, const unsigned char *nulled) {
  bf_ev best = {-1, 0, 0, INFINITY};
  for (size_t i = 0; i < s->n; i++) {
    const sim_ball *a = &s->balls[i];
    for (size_t j = i + 1; j < s->n; j++) {
      if (nulled[i * s->n + j]) continue;
      const sim_ball *b = &s->balls[j];
      toi_case c = {.dim = s->dim, .ra = a->r, .rb = b->r, .ma = a->m, .mb = b->m};
      memcpy(c.pa, a->p, sizeof c.pa);
      memcpy(c.pb, b->p, sizeof c.pb);
      memcpy(c.va, a->v, sizeof c.va);
      memcpy(c.vb, b->v, sizeof c.vb);
      double dt;
      if (k->pair_toi(k->ctx, &c, &dt) == 1 && dt >= 0 && tnow + dt < best.t)
        best = (bf_ev){SIM_EV_PAIR, i, j, tnow + dt};
    }
    for (int d = 0; d < s->dim; d++) {
      if (a->v[d] == 0) continue;
      int side = a->v[d] > 0;
      double dt;
      if (k->wall_toi(k->ctx, a->p, a->v, a->r, s->dim, d, side ? s->box[d] : 0, &dt) == 1) {
        if (dt < 0) dt = 0;
        if (tnow + dt < best.t) best = (bf_ev){SIM_EV_WALL, i, (size_t)(2 * d + side), tnow + dt};
      }
    }
  }
  return best;
}

/* Resolves e (every ball advanced to its time first); 1 when it changed
   something, 0 for a null contact. */
static int bf_apply(sim_state *s, const sim_kernel *k, const bf_ev *e, double dt) {
  for (size_t i = 0; i < s->n; i++)
    for (int d = 0; d < s->dim; d++) s->balls[i].p[d] += s->balls[i].v[d] * dt;
  sim_ball *a = &s->balls[e->a];
  if (e->kind == SIM_EV_WALL) {
    a->v[e->b / 2] = -a->v[e->b / 2];
    return 1;
  }
  sim_ball *b = &s->balls[e->b];
  toi_case c = {.dim = s->dim, .ra = a->r, .rb = b->r, .ma = a->m, .mb = b->m};
  memcpy(c.pa, a->p, sizeof c.pa);
  memcpy(c.pb, b->p, sizeof c.pb);
  memcpy(c.va, a->v, sizeof c.va);
  memcpy(c.vb, b->v, sizeof c.vb);
  double pa[3] = {0}, pb[3] = {0}, va[3] = {0}, vb[3] = {0};
  if (k->pair_respond(k->ctx, &c, 0, 1.0, pa, pb, va, vb) != 1) return 0;
  memcpy(a->v, va, sizeof va);
  memcpy(b->v, vb, sizeof vb);
  return 1;
}

/* The first `want` physical events of an all-pairs loop on a copy of st. */
static size_t bf_run(const sim_state *st, const sim_kernel *k, bf_ev *out, size_t want) {
  sim_state s = *st;
  s.balls = malloc(st->n * sizeof *s.balls);
  memcpy(s.balls, st->balls, st->n * sizeof *s.balls);
  unsigned char *nulled = calloc(st->n * st->n, 1);
  double tnow = 0;
  size_t got = 0;
  for (int guard = 0; got < want && guard < 100 * (int)want; guard++) {
    bf_ev e = bf_next(&s, k, tnow, nulled);
    if (e.kind < 0) break;
    double dt = e.t - tnow;
    tnow = e.t;
    if (!bf_apply(&s, k, &e, dt)) {
      nulled[e.a * s.n + e.b] = 1;
      continue;
    }
    for (size_t i = 0; i < s.n; i++) /* the balls that changed may meet anyone again */
      for (size_t j = 0; j < s.n; j++)
        if (i == e.a || j == e.a || (e.kind == SIM_EV_PAIR && (i == e.b || j == e.b))) nulled[i * s.n + j] = 0;
    out[got++] = e;
  }
  free(nulled);
  free(s.balls);
  return got;
}


/* A few hundred random states with mixed radii (one to three big balls among
   small ones, 2D and 3D): the grid's first 60 events are those of the
   all-pairs loop, the same pairs and walls in the same order at the same
   times up to the rounding of where each prediction starts. */
Test(sim, hierarchy_matches_all_pairs) {
  unsigned long long seed = sim_seed();
  sim_kernel k = kernel_named("robust");
  int states = 200 * sim_scale(), levelled = 0;
  for (int t = 0; t < states; t++) {
    int dim = 2 + t % 2;
    sim_radii rd = {0.3, 1, t % 4 == 3 ? SIM_RADIUS_LOGUNIFORM : SIM_RADIUS_BIMODAL, 0.03,
                    dim == 2 ? 6 + t % 5 : 3 + 0.5 * (t % 3)};
    if (rd.dist == SIM_RADIUS_LOGUNIFORM) rd.lo = 0.02;
    sim_state st;
    cr_assert_eq(sim_generate_radii(&st, seed + (unsigned long long)t, dim, dim == 2 ? 150 : 120, 2.5, &rd), TOI_OK);
    bf_ev want[60];
    size_t nw = bf_run(&st, &k, want, 60);
    evlog log = {.n = 0};
    sim_config cfg = {1.0, nw, 0, 0, 1e-9, NULL, log_event, &log, 0, NULL};
    sim_report rep;
    cr_assert_eq(sim_run(&rep, &st, &k, &cfg), SIM_OK, "state %d: %s", t, rep.message);
    levelled += rep.grid_levels > 1;
    cr_assert_eq(log.n, nw, "state %d: %zu events, all-pairs %zu", t, log.n, nw);
    for (size_t i = 0; i < nw; i++) {
      const sim_event_info *e = &log.ev[i];
      size_t a = e->a, b = e->b;
      if (e->kind == SIM_EV_PAIR && a > b) a = e->b, b = e->a;
      cr_assert(e->kind == (sim_event_kind)want[i].kind && a == want[i].a && b == want[i].b,
                "seed %llu state %d event %zu: %d %zu %zu, all-pairs %d %zu %zu", seed, t, i, e->kind, a, b,
                want[i].kind, want[i].a, want[i].b);
      cr_assert(fabs(e->time - want[i].t) <= 1e-9 * (1 + fabs(want[i].t)), "state %d event %zu: time %a vs %a", t, i,
                e->time, want[i].t);
    }
    sim_state_free(&st);
  }
  cr_assert_geq(levelled, states / 2, "only %d of %d states used the hierarchy", levelled, states);
}

/* The state reader's overlap check on the hierarchy: a big ball overlapping a
   small one whose centre is a dozen small cells away is refused and named;
   moved 0.4 further out, the same state is accepted. */
Test(sim, overlap_check_big_small_far_apart) {
  const double c[3] = {100, 100, 0};
  for (int overl = 1; overl >= 0; overl--) {
    sim_state st = lattice_around(2, 50, 4, 0.5, 0, c, 36, 2);
    st.balls[0] = (sim_ball){{100, 100, 0}, {0, 0, 0}, 30, 1};
    st.balls[1] = (sim_ball){{overl ? 130.2 : 130.6, 100, 0}, {0, 0, 0}, 0.5, 1};
    sim_levels g;
    cr_assert_eq(sim_levels_plan(&g, 2, st.box, st.balls, st.n, 0), 0);
    cr_assert_gt(g.nused, 1);
    int32_t c0 = sim_cell_coord(st.balls[0].p[0], g.w[0], g.nc[0][0]);
    int32_t c1 = sim_cell_coord(st.balls[1].p[0], g.w[0], g.nc[0][0]);
    cr_assert_geq(c1 - c0, 6, "the small ball is only %d cells away", c1 - c0);
    sim_levels_free(&g);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert_eq(sim_state_write(f, &st), 0);
    fclose(f);
    toi_diags dg;
    memset(&dg, 0, sizeof dg);
    sim_state back;
    toi_status s = sim_state_parse(&back, "m.state", buf, len, &dg);
    if (overl) {
      cr_assert_eq(s, TOI_ERR_INPUT);
      cr_assert_eq(dg.total, 1);
      cr_assert(dg.items[0].line == 5 && strstr(dg.items[0].message, "line 4"), "line %ld: %s", dg.items[0].line,
                dg.items[0].message);
    } else {
      cr_assert_eq(s, TOI_OK, "%s", dg.count ? dg.items[0].message : "");
      sim_state_free(&back);
    }
    free(buf);
    sim_state_free(&st);
  }
}

/* ---- generated states with mixed radii ---- */

Test(sim, generated_radii) {
  unsigned long long seed = sim_seed();
  sim_state a, b;
  const sim_radii dflt = {0.5, 1, SIM_RADIUS_UNIFORM, 0, 0};
  for (int dim = 2; dim <= 3; dim++) {
    cr_assert_eq(sim_generate(&a, seed, dim, 500, 2.5), TOI_OK);
    cr_assert_eq(sim_generate_radii(&b, seed, dim, 500, 2.5, &dflt), TOI_OK);
    cr_assert(a.n == b.n && !memcmp(a.box, b.box, sizeof a.box) && !memcmp(a.balls, b.balls, a.n * sizeof *a.balls));
    sim_state_free(&a);
    sim_state_free(&b);
  }
  const sim_radii kinds[] = {{0.1, 2, SIM_RADIUS_UNIFORM, 0, 0},
                             {0.01, 1, SIM_RADIUS_LOGUNIFORM, 0, 0},
                             {0.5, 1, SIM_RADIUS_BIMODAL, 0.01, 25},
                             {0.5, 1, SIM_RADIUS_BIMODAL, 0.3, 3}};
  for (size_t kk = 0; kk < sizeof kinds / sizeof kinds[0]; kk++)
    for (int dim = 2; dim <= 3; dim++) {
      const sim_radii *rd = &kinds[kk];
      cr_assert_eq(sim_generate_radii(&a, seed, dim, 400, 4.5, rd), TOI_OK, "kind %zu", kk);
      size_t big = 0;
      for (size_t i = 0; i < a.n; i++) {
        const sim_ball *x = &a.balls[i];
        if (rd->dist == SIM_RADIUS_BIMODAL && x->r == rd->big) big++;
        else cr_assert(x->r >= rd->lo && x->r <= rd->hi, "kind %zu: radius %g", kk, x->r);
        for (int d = 0; d < dim; d++) cr_assert(x->p[d] - x->r > 0 && x->p[d] + x->r < a.box[d]);
        for (size_t j = i + 1; j < a.n; j++) {
          double s2 = 0, R = x->r + a.balls[j].r;
          for (int d = 0; d < dim; d++) s2 += (a.balls[j].p[d] - x->p[d]) * (a.balls[j].p[d] - x->p[d]);
          cr_assert(s2 > R * R, "kind %zu dim %d: balls %zu and %zu overlap", kk, dim, i, j);
        }
      }
      if (rd->dist == SIM_RADIUS_BIMODAL) cr_assert_eq(big, kk == 2 ? 4 : 120, "kind %zu: %zu big", kk, big);
      cr_assert_eq(sim_generate_radii(&b, seed, dim, 400, 4.5, rd), TOI_OK);
      cr_assert(!memcmp(a.balls, b.balls, a.n * sizeof *a.balls), "not reproducible");
      sim_state_free(&a);
      sim_state_free(&b);
    }
  const sim_radii bad = {0.5, 3, SIM_RADIUS_UNIFORM, 0, 0}; /* spacing 4.5 < 2 HI */
  cr_assert_eq(sim_generate_radii(&a, seed, 2, 10, 4.5, &bad), TOI_ERR_RANGE);
}
