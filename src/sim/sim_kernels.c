/* sim_kernels.c: the simulation's kernels: formulations in double or float, or the certified one. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "class_group.h"
#include "response.h"
#include "sim.h"
#include "toiresp.h"

int sim_wall_toi_double(void *ctx, const double p[3], const double v[3], double r, int dim,
                        int axis, double wall, double *dt) {
  (void)ctx;
  (void)dim;
  double target = v[axis] > 0 ? wall - r : wall + r;
  *dt = (target - p[axis]) / v[axis];
  return isnan(*dt) ? -1 : 1;
}

int sim_wall_respond_double(void *ctx, const double p[3], const double v[3], double r, int dim,
                            int axis, double wall, double dt, double pout[3]) {
  (void)ctx;
  (void)r;
  (void)axis;
  (void)wall;
  for (int d = 0; d < 3; d++) pout[d] = d < dim ? p[d] + v[d] * dt : 0;
  return 0;
}

int sim_wall_toi_float(void *ctx, const double p[3], const double v[3], double r, int dim,
                       int axis, double wall, double *dt) {
  (void)ctx;
  (void)dim;
  float target = v[axis] > 0 ? (float)wall - (float)r : (float)wall + (float)r;
  float t = (target - (float)p[axis]) / (float)v[axis];
  *dt = t;
  return isnan(*dt) ? -1 : 1;
}

int sim_wall_respond_float(void *ctx, const double p[3], const double v[3], double r, int dim,
                           int axis, double wall, double dt, double pout[3]) {
  (void)ctx;
  (void)r;
  (void)axis;
  (void)wall;
  float t = (float)dt;
  for (int d = 0; d < 3; d++) {
    float x = (float)p[d] + (float)v[d] * t;
    pout[d] = d < dim ? x : 0;
  }
  return 0;
}

/* ---- formulation kernels ---- */

/* A verdict and time as a kernel's answer (form_pair_toi). */
static int pair_answer(toi_result r, double *dt) {
  toi_group g = toi_class_group_inline(r.cls);
  if (g == TOI_G_NOCONTACT) return 0;
  /* An overlap verdict means "in contact now", whatever time comes with it
   * (Ericson says 0, the exact kernels say NaN: the overlap has no forward
   * contact time). Rounding leaves touching pairs overlapping by an ulp after
   * a contact; the response then applies an impulse only if they approach. */
  if (g == TOI_G_OVERLAP) {
    *dt = 0;
    return 1;
  }
  if (isnan(r.t)) return -1;
  if (!(r.t >= 0) || isinf(r.t)) return 0;
  *dt = r.t;
  return 1;
}

static int form_pair_toi(void *ctx, const toi_case *c, double *dt) {
  const toi_formulation *f = ctx;
  return pair_answer(f->solve(c), dt);
}

/* The response by pipeline fn, applied when the balls approach. */
static int pair_respond_with(toi_response_fn fn, const toi_case *c, double dt, double E,
                             double pa[3], double pb[3], double va[3], double vb[3]) {
  toi_response r;
  if (fn(&r, c, dt, E) != TOI_OK) return -1;
  if (!(r.vn < 0)) return 0; /* separating or tangent: no impulse */
  for (int d = 0; d < 3; d++) {
    pa[d] = r.pa[d];
    pb[d] = r.pb[d];
    va[d] = r.va[d];
    vb[d] = r.vb[d];
  }
  return 1;
}

int sim_pair_respond_double(void *ctx, const toi_case *c, double dt, double E, double pa[3],
                            double pb[3], double va[3], double vb[3]) {
  (void)ctx;
  return pair_respond_with(toi_response_compute, c, dt, E, pa, pb, va, vb);
}

/* binary32: the case is read as floats (the run builds it from floats, so
   rounding it changes nothing there); -1 when it overflows float */
static int form_pair_toi32(void *ctx, const toi_case *c, double *dt) {
  const toi_formulation *f = ctx;
  toi_case rc;
  if (toi_case_round(&rc, c, TOI_BINARY32) < 0) return -1;
  return pair_answer(f->solve32(&rc), dt);
}

int sim_pair_respond_float(void *ctx, const toi_case *c, double dt, double E, double pa[3],
                           double pb[3], double va[3], double vb[3]) {
  (void)ctx;
  toi_case rc;
  if (toi_case_round(&rc, c, TOI_BINARY32) < 0) return -1;
  return pair_respond_with(toi_response_compute32, &rc, dt, E, pa, pb, va, vb);
}

sim_kernel sim_formulation_kernel(const toi_formulation *f) {
  sim_kernel k = {f->name, (void *)f, form_pair_toi, sim_pair_respond_double, sim_wall_toi_double,
                  sim_wall_respond_double, TOI_BINARY64, NULL, NULL};
  return k;
}

int sim_kernel_is_ericson(const sim_kernel *k) {
  return k->pair_toi == form_pair_toi && k->ctx == (void *)toi_formulation_find("ericson");
}

sim_kernel sim_formulation_kernel_prec(const toi_formulation *f, toi_precision q) {
  if (q == TOI_BINARY64) return sim_formulation_kernel(f);
  sim_kernel none = {NULL, NULL, NULL, NULL, NULL, NULL, q, NULL, NULL};
  if (q != TOI_BINARY32 || !f->solve32) return none;
  sim_kernel k = {f->name, (void *)f, form_pair_toi32, sim_pair_respond_float, sim_wall_toi_float,
                  sim_wall_respond_float, TOI_BINARY32, NULL, NULL};
  return k;
}


/* The certified kernel (reference/, toiresp.h): exact class and RN(t*), the
   response computed exactly at t* and rounded once, walls exact. */
static sim_kernel reference_kernel(void) {
  sim_kernel k = {"reference", NULL, toi_ref_sim_pair_toi, toi_ref_sim_pair_respond,
                  toi_ref_sim_wall_toi, toi_ref_sim_wall_respond, TOI_BINARY64, NULL, NULL};
  return k;
}

/* Adds the kernels one name of the list stands for, each only once: 0, or
   -1 after a message when the name is not a forward formulation. */
static int add_kernels(sim_kernel *ks, int *nk, int cap, const char *tok, toi_precision q,
                       const toi_msg *msg) {
  if (!strcmp(tok, "reference")) {
    int dup = 0;
    for (int k = 0; k < *nk; k++) dup |= !strcmp(ks[k].name, "reference");
    if (!dup) ks[(*nk)++] = reference_kernel();
    return 0;
  }
  int want_all = !strcmp(tok, "all");
  const toi_formulation *f = want_all ? NULL : toi_formulation_find(tok);
  if (!want_all && !f) {
    toi_msgf(msg, "unknown kernel '%s' (a forward formulation, 'all' or 'reference')", tok);
    return -1;
  }
  if (f && f->direction != TOI_FORWARD) {
    toi_msgf(msg, "'%s' answers in reverse time: a simulation needs a forward formulation", tok);
    return -1;
  }
  if (f && !sim_formulation_kernel_prec(f, q).name) {
    toi_msgf(msg, "'%s' has no %s variant", tok, toi_precision_name(q));
    return -1;
  }
  size_t nall;
  const toi_formulation *all = toi_formulations(&nall);
  for (size_t j = 0; j < nall; j++) {
    const toi_formulation *g = &all[j];
    if (g->direction != TOI_FORWARD || (f && g != f)) continue;
    sim_kernel kg = sim_formulation_kernel_prec(g, q);
    int dup = !kg.name; /* 'all' in another precision: the formulations with a variant there */
    for (int k = 0; k < *nk; k++) dup |= ks[k].ctx == (void *)g;
    if (!dup && *nk < cap) ks[(*nk)++] = kg;
  }
  return 0;
}

int sim_kernels_select(sim_kernel **out, const char *names, const toi_msg *msg) {
  return sim_kernels_select_prec(out, names, TOI_BINARY64, msg);
}

int sim_kernels_select_prec(sim_kernel **out, const char *names, toi_precision q,
                            const toi_msg *msg) {
  *out = NULL;
  size_t nall;
  toi_formulations(&nall);
  sim_kernel *ks = calloc(nall + 2, sizeof *ks);
  char *list = strdup(names ? names : "all");
  if (!ks || !list) {
    free(ks);
    free(list);
    return -1;
  }
  int nk = 0, bad = 0;
  for (char *save = NULL, *tok = strtok_r(list, ",", &save); tok && !bad; tok = strtok_r(NULL, ",", &save))
    bad = add_kernels(ks, &nk, (int)nall + 1, tok, q, msg) != 0;
  free(list);
  if (bad || nk == 0) {
    if (!bad) toi_msgf(msg, "no kernel selected");
    free(ks);
    return 0;
  }
  *out = ks;
  return nk;
}
