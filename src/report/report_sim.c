/* report_sim.c: the report's many-ball simulation, one run per kernel from one initial state. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "report.h"
#include "sim.h"
#include "toiresp.h"

typedef struct series {
  rep_sim *m;
  size_t cap;
} series;

static int on_sample(void *ctx, const sim_sample *s) {
  series *z = ctx;
  rep_sim *m = z->m;
  if (m->nsamples == z->cap) {
    size_t cap = z->cap ? 2 * z->cap : 64;
    uint64_t *e = realloc(m->event, cap * sizeof *e);
    if (!e) return 1;
    m->event = e;
    double *k = realloc(m->ke_err, cap * sizeof *k);
    if (!k) return 1;
    m->ke_err = k;
    z->cap = cap;
  }
  m->event[m->nsamples] = s->event;
  m->ke_err[m->nsamples] = s->ke_err;
  m->nsamples++;
  return 0;
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
    series z = {m, 0};
    sim_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.restitution = 1.0;
    cfg.events = events;
    cfg.every = events / 50;
    cfg.overlap_tol = 1e-9;
    cfg.on_sample = on_sample;
    cfg.ctx = &z;
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
