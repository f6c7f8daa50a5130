/* report_sim.c: the report's many-ball simulation, one run per kernel from one initial state. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "report.h"
#include "sim.h"
#include "toiresp.h"
#include "sim_candidate.h"
#include "sweep.h"

/* A sample's event and energy error appended to the arrays event and
   ke_err of *n entries, grown 64 entries at a time; 1 when out of memory. */
static int push_sample(uint64_t **event, double **ke_err, size_t *n, const sim_sample *s) {
  if (*n % 64 == 0) {
    size_t cap = *n + 64;
    uint64_t *e = realloc(*event, cap * sizeof *e);
    if (!e) return 1;
    *event = e;
    double *k = realloc(*ke_err, cap * sizeof *k);
    if (!k) return 1;
    *ke_err = k;
  }
  (*event)[*n] = s->event;
  (*ke_err)[*n] = s->ke_err;
  (*n)++;
  return 0;
}

static int on_sample(void *ctx, const sim_sample *s) {
  rep_sim *m = ctx;
  return push_sample(&m->event, &m->ke_err, &m->nsamples, s);
}

int report_simulate(rep_data *d) {
  size_t nballs = d->opts.quick ? 40 : 1000;
  uint64_t events = d->opts.quick ? 2000 : 200000;
  sim_state st;
  if (sim_generate(&st, d->opts.seed, 2, nballs, 2.5) != TOI_OK) {
    toi_msgf(d->opts.msg, "report: cannot generate the simulation state");
    return -1;
  }
  d->sim = calloc(d->ncol + 1, sizeof *d->sim);
  if (!d->sim) {
    sim_state_free(&st);
    return -1;
  }
  /* Built-in formulations have a simulation kernel; other candidates do not. */
  for (size_t k = 0; k <= d->ncol; k++) {
    sim_kernel kern;
    if (k < d->ncol) {
      const toi_formulation *f = d->cols[k].cand->formulation;
      if (!f || f->direction != TOI_FORWARD) continue;
      kern = sim_formulation_kernel(f);
    } else {
      kern = (sim_kernel){"reference", NULL, toi_ref_sim_pair_toi, toi_ref_sim_pair_respond, toi_ref_sim_wall_toi,
                          toi_ref_sim_wall_respond, TOI_BINARY64, NULL, NULL};
    }
    rep_sim *m = &d->sim[d->nsim++];
    snprintf(m->name, sizeof m->name, "%s", kern.name);
    sim_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.restitution = 1.0;
    cfg.events = events;
    cfg.every = events / 50;
    cfg.overlap_tol = 1e-9;
    cfg.on_sample = on_sample;
    cfg.ctx = m;
    sim_report rep;
    memset(&rep, 0, sizeof rep);
    sim_status ss = sim_run(&rep, &st, &kern, &cfg);
    m->ran = 1;
    if (ss == SIM_OK)
      snprintf(m->status, sizeof m->status, "ok");
    else
      snprintf(m->status, sizeof m->status, "%s at event %llu", sim_status_name(ss), (unsigned long long)rep.event);
    m->events = rep.last.event;
    m->final_ke_err = rep.last.ke_err;
    m->drift_per_mevent = m->events ? fabs(rep.last.ke_err) / ((double)m->events / 1e6) : NAN;
    m->overlaps = rep.max_overlaps;
    m->missed = rep.missed;
    if (ss == SIM_NOMEM) {
      sim_state_free(&st);
      toi_msgf(d->opts.msg, "report: out of memory in the simulation");
      return -1;
    }
  }
  sim_state_free(&st);
  return 0;
}

/* The section "Engines in a simulation": the scenes of doc/engines.md's
   recipe engines-simulation, each engine in its own, with fewer events. */
static const struct {
  const char *engine, *scene;
  int dim;
} esim_runs[] = {
    {"jolt-castshape", "dense", 3},     {"jolt-castshape", "bullet", 3},     {"physx-sweep", "dense", 3},
    {"physx-sweep", "bullet", 3},       {"rapier3d-castshape", "dense", 3}, {"rapier3d-castshape", "bullet", 3},
    {"box2d3-castshape", "billiards", 2},
};
#define ESIM_EVENTS 2000
#define ESIM_EVERY 50
#define ESIM_SEED 1

/* The scene's initial state, as `simulate --scene NAME --dim DIM --seed SEED` builds it. */
static toi_status esim_state(sim_state *st, const sim_scene *sc, int dim, uint64_t seed) {
  if (sc->built) return sim_scene_build(st, sc, dim, seed);
  return sim_generate_radii(st, seed, dim, sc->n[dim == 3], sc->spacing, &sc->radii);
}

static int esim_sample(void *ctx, const sim_sample *s) {
  rep_esim *m = ctx;
  return push_sample(&m->event, &m->ke_err, &m->nsamples, s);
}

/* One run: m filled; 0, or -1 out of memory. */
static int esim_one(rep_data *d, const toi_candidate *c, rep_esim *m) {
  const sim_scene *sc = sim_scene_find(m->scene);
  toi_solve_opts so = {INFINITY, d->opts.timeout, NULL, d->opts.msg};
  char why[300];
  if (!sc || !(sc->dims & (1u << m->dim))) {
    snprintf(m->status, sizeof m->status, "no scene %s in %dD", m->scene, m->dim);
    return 0;
  }
  if (sim_candidate_check_dim(c, m->dim, &so, why, sizeof why)) {
    snprintf(m->status, sizeof m->status, "refused: %.50s", why);
    return 0;
  }
  sim_candidate scand;
  sim_kernel kern;
  if (sim_candidate_init(&scand, &kern, c, &so, why, sizeof why)) {
    snprintf(m->status, sizeof m->status, "refused: %.50s", why);
    return 0;
  }
  sim_state st;
  if (esim_state(&st, sc, m->dim, m->seed) != TOI_OK) {
    sim_candidate_free(&scand);
    toi_msgf(d->opts.msg, "report: cannot build scene %s", m->scene);
    return -1;
  }
  sim_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.restitution = 1.0;
  cfg.events = m->asked;
  cfg.every = m->every;
  cfg.overlap_tol = 1e-9;
  cfg.on_sample = esim_sample;
  cfg.ctx = m;
  sim_report rep;
  memset(&rep, 0, sizeof rep);
  sim_status ss = sim_run(&rep, &st, &kern, &cfg);
  sim_state_free(&st);
  m->ran = 1;
  snprintf(m->status, sizeof m->status, "%s", ss == SIM_OK && rep.idle ? "idle" : sim_status_name(ss));
  m->events = rep.last.event;
  m->queries = rep.predictions;
  m->failed = scand.failed;
  m->overlaps = rep.max_overlaps;
  m->missed = rep.missed;
  m->drift = sim_report_drift(&rep);
  double per = m->events ? 1e6 / (double)m->events : NAN;
  m->overlaps_per_mevent = (double)rep.max_overlaps * per;
  m->missed_per_mevent = (double)rep.missed * per;
  m->max_pen = rep.max_pen;
  sim_candidate_free(&scand);
  if (ss == SIM_NOMEM) {
    toi_msgf(d->opts.msg, "report: out of memory in the simulation");
    return -1;
  }
  return 0;
}

int report_simulate_engines(rep_data *d) {
  double t0 = sweep_now();
  size_t nruns = sizeof esim_runs / sizeof esim_runs[0];
  for (size_t r = 0; r < nruns; r++) {
    const toi_candidate *c = NULL;
    for (size_t k = 0; k < d->ncand && !c; k++)
      if (!strcmp(d->cands[k].name, esim_runs[r].engine)) c = &d->cands[k];
    if (!c) continue;
    if (!d->esim) {
      d->esim = calloc(nruns, sizeof *d->esim);
      if (!d->esim) return -1;
    }
    rep_esim *m = &d->esim[d->nesim++];
    snprintf(m->engine, sizeof m->engine, "%.47s", c->name);
    m->scene = esim_runs[r].scene;
    m->dim = esim_runs[r].dim;
    m->seed = ESIM_SEED;
    m->asked = ESIM_EVENTS;
    m->every = ESIM_EVERY;
    if (esim_one(d, c, m)) return -1;
  }
  d->seconds_esim = sweep_now() - t0;
  return 0;
}
