/* sim_candidate.c: any candidate as the simulation's kernel: its batch solve predicts, the bench responds. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sim_candidate.h"
#include "toiresp.h"

/* The answer as the run takes it (the formulation kernels' reading): 1 with
   *dt for a contact ahead (an overlap is a contact now), 0 for none, -1 for
   an answer the run cannot use (a contact verdict with a NaN time). */
static int take_answer(const toi_answer *a, double *dt) {
  toi_group g = toi_class_group(a->r.cls);
  if ((unsigned)a->r.cls >= TOI_CLASS_COUNT) return -1;
  if (g == TOI_G_NOCONTACT) return 0;
  if (g == TOI_G_OVERLAP) {
    *dt = 0;
    return 1;
  }
  if (isnan(a->r.t)) return -1;
  if (!(a->r.t >= 0) || isinf(a->r.t)) return 0;
  *dt = a->r.t;
  return 1;
}

/* A stated contract: how far below its target a contact may come, by its tolerance. */
static void note_contract(sim_candidate *sc, const toi_answer *a) {
  double target = isfinite(a->target) ? a->target : 0;
  if (isfinite(a->target) && isnan(sc->target)) sc->target = a->target;
  if (isfinite(a->tolerance) && a->tolerance - target > sc->allowance) sc->allowance = a->tolerance - target;
}

static void cand_batch(void *ctx, const toi_case *cases, size_t n, int *r, double *dt) {
  sim_candidate *sc = ctx;
  int rc = -1;
  if (n > sc->cap) {
    toi_answer *a = realloc(sc->ans, n * sizeof *a);
    if (a) {
      sc->ans = a;
      sc->cap = n;
    }
  }
  toi_run_info info;
  memset(&info, 0, sizeof info);
  if (n <= sc->cap) rc = toi_candidate_run(sc->c, cases, n, &sc->opts, sc->ans, &info);
  sc->calls++;
  sc->queries += n;
  if (rc != 0) sc->unrunnable++;
  for (size_t i = 0; i < n; i++) {
    const toi_answer *a = rc == 0 ? &sc->ans[i] : NULL;
    if (a && a->state == TOI_ANSWERED) {
      r[i] = take_answer(a, &dt[i]);
      if (r[i] >= 0) {
        note_contract(sc, a);
        continue;
      }
    }
    sc->failed++;
    if (a && a->state == TOI_UNSUPPORTED) sc->declined++;
    if (a && a->state == TOI_FAILED && a->malfunction) sc->malfunctions++;
    r[i] = toi_ref_sim_pair_toi(NULL, &cases[i], &dt[i]);
  }
}

static int cand_one(void *ctx, const toi_case *c, double *dt) {
  int r = 0;
  cand_batch(ctx, c, 1, &r, dt);
  return r;
}

static double cand_tolerance(void *ctx) { return ((const sim_candidate *)ctx)->allowance; }

int sim_candidate_init(sim_candidate *sc, sim_kernel *k, const toi_candidate *c, const toi_solve_opts *o,
                       char *why, size_t whysz) {
  memset(sc, 0, sizeof *sc);
  memset(k, 0, sizeof *k);
  if (c->direction != TOI_FORWARD) {
    snprintf(why, whysz, "'%s' answers in reverse time: a simulation needs a forward solver", c->name);
    return -1;
  }
  if (c->precision != TOI_BINARY64 && c->precision != TOI_BINARY32) {
    snprintf(why, whysz, "'%s' computes in %s: a simulation stores its state in binary64 or binary32 only",
             c->name, toi_precision_name(c->precision));
    return -1;
  }
  sc->c = c;
  if (o) sc->opts = *o;
  else sc->opts = (toi_solve_opts){INFINITY, 10, NULL, NULL};
  sc->opts.quota = &sc->quota;
  sim_candidate_reset(sc);
  int f32 = c->precision == TOI_BINARY32;
  k->name = c->name;
  k->ctx = sc;
  k->pair_toi = cand_one;
  k->pair_respond = f32 ? sim_pair_respond_float : sim_pair_respond_double;
  k->wall_toi = f32 ? sim_wall_toi_float : sim_wall_toi_double;
  k->wall_respond = f32 ? sim_wall_respond_float : sim_wall_respond_double;
  k->precision = c->precision;
  k->pair_toi_batch = cand_batch;
  k->contact_tolerance = cand_tolerance;
  return 0;
}

void sim_candidate_reset(sim_candidate *sc) {
  sc->queries = sc->failed = sc->declined = sc->malfunctions = sc->calls = sc->unrunnable = 0;
  sc->allowance = 0;
  sc->target = NAN;
}

void sim_candidate_free(sim_candidate *sc) {
  free(sc->ans);
  sc->ans = NULL;
  sc->cap = 0;
}

int sim_candidate_check_dim(const toi_candidate *c, int dim, const toi_solve_opts *o, char *why, size_t whysz) {
  if (dim != 3) return 0;
  toi_case probe;
  memset(&probe, 0, sizeof probe);
  snprintf(probe.id, sizeof probe.id, "probe-3d");
  probe.dim = 3;
  for (int d = 0; d < 3; d++) {
    probe.va[d] = 1;
    probe.pb[d] = 4;
  }
  probe.ra = probe.rb = probe.ma = probe.mb = 1;
  toi_answer a;
  toi_run_info info;
  toi_solve_opts so = o ? *o : (toi_solve_opts){INFINITY, 10, NULL, NULL};
  toi_quota q;
  memset(&q, 0, sizeof q);
  so.quota = &q;
  if (toi_candidate_run(c, &probe, 1, &so, &a, &info) != 0) {
    snprintf(why, whysz, "'%s' could not be run", c->name);
    return -1;
  }
  if (a.state == TOI_UNSUPPORTED) {
    snprintf(why, whysz, "'%s' declines a 3D case off the plane z = 0 (a 2D-only solver): a 3D scene needs a 3D solver",
             c->name);
    return -1;
  }
  return 0;
}
