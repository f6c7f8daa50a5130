/* test_sim32.c: the float response pipeline, the binary32 audit and the binary32 simulation kernels. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "audit.h"
#include "case_build.h"
#include "precision.h"
#include "response.h"
#include "sim.h"
#include "toiref.h"
#include "toiresp.h"

/* ---- the float pipeline ---- */

Test(sim32, float_head_on_equals_exact) {
  /* head-on, equal masses, speeds 1 and -1 (powers of two), R = 2, gap 4: t* = 2 exactly; every
     float operation is exact, so the float response is the exact one, for E = 1 and E = 1/2 */
  toi_case c = tc_case2(0, 0, 1, 0, 1, 1, 6, 0, -1, 0, 1, 1);
  const double Es[2] = {1, 0.5};
  for (int k = 0; k < 2; k++) {
    toi_ref_resp ex;
    cr_assert_eq(toi_ref_response(&ex, &c, Es[k]), TOI_OK);
    cr_assert(ex.t == 2);
    toi_result r = toi_formulation_find("ericson")->solve32(&c);
    cr_assert(r.t == 2, "ericson32 T = %a", r.t);
    toi_response f;
    cr_assert_eq(toi_response_compute32(&f, &c, r.t, Es[k]), TOI_OK);
    for (int d = 0; d < 2; d++) {
      cr_assert(f.pa[d] == ex.pa[d] && f.pb[d] == ex.pb[d] && f.n[d] == ex.n[d]);
      cr_assert(f.va[d] == ex.va[d] && f.vb[d] == ex.vb[d], "E %g: va %a vb %a against %a %a", Es[k],
                f.va[d], f.vb[d], ex.va[d], ex.vb[d]);
    }
    cr_assert(f.j == ex.j);
  }
}

/* The pipeline written out in float, independently of response.c. */
static void float_response(const toi_case *c, float T, float E, float pa[2], float pb[2], float n[2],
                           float va[2], float vb[2]) {
  float a0 = (float)c->pa[0], a1 = (float)c->pa[1], b0 = (float)c->pb[0], b1 = (float)c->pb[1];
  float u0 = (float)c->va[0], u1 = (float)c->va[1], w0 = (float)c->vb[0], w1 = (float)c->vb[1];
  float ma = (float)c->ma, mb = (float)c->mb;
  pa[0] = a0 + u0 * T;
  pa[1] = a1 + u1 * T;
  pb[0] = b0 + w0 * T;
  pb[1] = b1 + w1 * T;
  float d0 = pb[0] - pa[0], d1 = pb[1] - pa[1];
  float len = sqrtf(d0 * d0 + d1 * d1);
  n[0] = d0 / len;
  n[1] = d1 / len;
  float vn = (w0 - u0) * n[0] + (w1 - u1) * n[1];
  float j = -(1.0f + E) * vn / (1.0f / ma + 1.0f / mb);
  va[0] = u0 - j * n[0] / ma;
  va[1] = u1 - j * n[1] / ma;
  vb[0] = w0 + j * n[0] / mb;
  vb[1] = w1 + j * n[1] / mb;
}

Test(sim32, float_pipeline_computes_in_float) {
  toi_case c0 = tc_case2(0.1, 0.2, 1, 0.3, 1, 1, 3.3, 0.7, -0.6, 0.1, 1.25, 3), c;
  cr_assert_eq(toi_case_round(&c, &c0, TOI_BINARY32), 1);
  float T = 1.1f, E = 0.9f;
  float pa[2], pb[2], n[2], va[2], vb[2];
  float_response(&c, T, E, pa, pb, n, va, vb);
  toi_response f, d;
  cr_assert_eq(toi_response_compute32(&f, &c, T, 0.9), TOI_OK);
  cr_assert_eq(toi_response_compute(&d, &c, T, 0.9), TOI_OK);
  int differs = 0;
  for (int i = 0; i < 2; i++) {
    cr_assert(f.pa[i] == pa[i] && f.pb[i] == pb[i] && f.n[i] == n[i]);
    cr_assert(f.va[i] == va[i] && f.vb[i] == vb[i], "va %a against %a", f.va[i], (double)va[i]);
    cr_assert(toi_is_value_of(f.va[i], TOI_BINARY32) && toi_is_value_of(f.vb[i], TOI_BINARY32));
    differs |= f.va[i] != d.va[i] || f.vb[i] != d.vb[i] || f.n[i] != d.n[i];
  }
  cr_assert(differs, "the float and double pipelines agree: the case shows nothing");
  cr_assert(toi_response_pipeline(TOI_BINARY32) == toi_response_compute32);
  cr_assert(toi_response_pipeline(TOI_BINARY64) == toi_response_compute);
}

Test(sim32, float_pipeline_no_normal) {
  toi_case c = tc_case2(0, 0, 1, 0, 1, 1, 2, 0, -1, 0, 1, 1);
  toi_response f;
  cr_assert_eq(toi_response_compute32(&f, &c, 1, 1), TOI_ERR_RANGE); /* coincident centres at T */
  cr_assert(isnan(f.va[0]));
}

/* ---- the audit in binary32 ---- */

static void two_cases(toi_caselist *l) {
  l->count = l->cap = 3;
  l->items = calloc(3, sizeof *l->items);
  l->items[0] = tc_case2(0, 0, 1, 0, 1, 1, 6, 0, -1, 0, 1, 1);
  l->items[1] = tc_case2(0.1, 0.2, 1, 0.3, 1, 1, 3.3, 0.7, -0.6, 0.1, 1.25, 3);
  l->items[2] = tc_case2(0, 0, 1, 0, 1, 1e300, 6, 0, -1, 0, 1, 1); /* a mass beyond FLT_MAX */
  strcpy(l->items[0].id, "exact");
  strcpy(l->items[1].id, "oblique");
  strcpy(l->items[2].id, "huge");
}

typedef struct rows_seen {
  double ulp[2];
  int n;
} rows_seen;

/* ulp in binary32 of a normal float-range x */
static double ulp32(double x) { return ldexp(1, (ilogb(x) < -126 ? -126 : ilogb(x)) - 23); }

/* Each velocity's binary32 ULP error, checked against one computed here from
   the float pipeline and the exact response rounded to double (off by at most
   half a binary64 ulp: 2^-30 binary32 ULP). */
static void on_row(void *ctx, const toi_audit_row *row) {
  rows_seen *s = ctx;
  if (!strcmp(row->f->name, "robust")) s->ulp[row->case_index] = row->a.ulp_max;
  s->n++;
  toi_response f;
  toi_ref_resp ex;
  cr_assert_eq(toi_response_compute32(&f, row->c, row->t, 1), TOI_OK);
  cr_assert_eq(toi_ref_response(&ex, row->c, 1), TOI_OK);
  for (int i = 0; i < 2; i++) {
    double want[2] = {fabs(f.va[i] - ex.va[i]) / ulp32(ex.va[i]), fabs(f.vb[i] - ex.vb[i]) / ulp32(ex.vb[i])};
    for (int k = 0; k < 2; k++)
      cr_assert(fabs(row->a.ulp[2 * k + i] - want[k]) <= 1e-8 + 1e-9 * want[k], "%s: %g against %g",
                row->c->id, row->a.ulp[2 * k + i], want[k]);
  }
}

Test(sim32, audit_binary32) {
  toi_caselist l;
  two_cases(&l);
  const toi_formulation *fs[1] = {toi_formulation_find("robust")};
  toi_audit a;
  rows_seen seen = {{NAN, NAN}, 0};
  cr_assert_eq(toi_audit_run_prec(&a, &l, fs, 1, 1, TOI_BINARY32, on_row, &seen, NULL), TOI_OK);
  cr_assert_eq(a.precision, TOI_BINARY32);
  cr_assert_eq(a.unrepresentable, 1);
  cr_assert_eq(a.rounded, 1); /* the oblique case's decimals */
  cr_assert_eq(a.contacts, 2);
  cr_assert_eq(a.forms[0].audited, 2);
  cr_assert(seen.ulp[0] == 0, "exact case: %g", seen.ulp[0]);
  /* binary32 ULPs: a few, not the 2^29 a float answer is in binary64 ULPs */
  cr_assert(seen.ulp[1] > 0 && seen.ulp[1] < 64, "oblique: %g binary32 ULP", seen.ulp[1]);
  toi_audit_free(&a);
  /* binary64: toi_audit_run itself */
  toi_audit b, c;
  cr_assert_eq(toi_audit_run_prec(&b, &l, fs, 1, 1, TOI_BINARY64, NULL, NULL, NULL), TOI_OK);
  cr_assert_eq(toi_audit_run(&c, &l, fs, 1, 1, NULL, NULL, NULL), TOI_OK);
  cr_assert_eq(b.contacts, 3);
  cr_assert_eq(b.unrepresentable, 0);
  for (int m = 0; m < TOI_AUDIT_METRICS; m++)
    cr_assert(!memcmp(&b.forms[0].stat[m], &c.forms[0].stat[m], sizeof b.forms[0].stat[m]));
  toi_audit_free(&b);
  toi_audit_free(&c);
  free(l.items);
}

/* ---- the simulation ---- */

Test(sim32, wall_kernel_in_float) {
  double p[3] = {0.1, 3.3, 0}, v[3] = {0.7, -0.3, 0}, pr[3], vr[3], out[3], dt;
  for (int d = 0; d < 3; d++) {
    pr[d] = (float)p[d];
    vr[d] = (float)v[d];
  }
  cr_assert_eq(sim_wall_toi_float(NULL, pr, vr, 0.6, 2, 0, 10.1, &dt), 1);
  float want = ((10.1f - 0.6f) - (float)pr[0]) / (float)vr[0];
  cr_assert(dt == want, "%a against %a", dt, (double)want);
  cr_assert_eq(sim_wall_respond_float(NULL, pr, vr, 0.6, 2, 0, 10.1, dt, out), 0);
  cr_assert(out[0] == (float)pr[0] + (float)vr[0] * want && out[1] == (float)pr[1] + (float)vr[1] * want);
  cr_assert(out[2] == 0);
}

Test(sim32, kernels_select_binary32) {
  sim_kernel *ks;
  int n = sim_kernels_select_prec(&ks, "robust,reference,accurate", TOI_BINARY32, NULL);
  cr_assert_eq(n, 3);
  cr_assert(ks[0].precision == TOI_BINARY32 && ks[1].precision == TOI_BINARY64 &&
            ks[2].precision == TOI_BINARY32);
  cr_assert_str_eq(ks[1].name, "reference");
  free(ks);
  n = sim_kernels_select_prec(&ks, "all", TOI_BINARY32, NULL);
  cr_assert(n > 3);
  for (int k = 0; k < n; k++) cr_assert_eq(ks[k].precision, TOI_BINARY32);
  free(ks);
  sim_kernel k64 = sim_formulation_kernel_prec(toi_formulation_find("robust"), TOI_BINARY64);
  sim_kernel k0 = sim_formulation_kernel(toi_formulation_find("robust"));
  cr_assert(k64.ctx == k0.ctx && k64.pair_toi == k0.pair_toi && k64.pair_respond == k0.pair_respond &&
            k64.wall_toi == k0.wall_toi && k64.wall_respond == k0.wall_respond &&
            k64.precision == TOI_BINARY64 && !strcmp(k64.name, k0.name));
}

Test(sim32, state_round) {
  sim_state s, r;
  cr_assert_eq(sim_generate(&s, 3, 2, 20, 4), TOI_OK);
  cr_assert_eq(sim_state_round(&r, &s, TOI_BINARY32), TOI_OK);
  cr_assert_eq(r.n, s.n);
  for (size_t i = 0; i < r.n; i++)
    for (int d = 0; d < 2; d++) {
      cr_assert(r.balls[i].p[d] == (float)s.balls[i].p[d] && r.balls[i].v[d] == (float)s.balls[i].v[d]);
      cr_assert(r.balls[i].r == (float)s.balls[i].r && r.balls[i].m == (float)s.balls[i].m);
    }
  sim_state_free(&r);
  s.balls[0].m = 1e300;
  cr_assert_eq(sim_state_round(&r, &s, TOI_BINARY32), TOI_ERR_RANGE);
  sim_state_free(&s);
}

/* The final |ke_err| of a kernel on the default state (100 balls, seed 1). */
static double run_drift(const sim_kernel *k, sim_report *rep) {
  sim_state s;
  cr_assert_eq(sim_generate(&s, 1, 2, 100, 4), TOI_OK);
  sim_config cfg = {.restitution = 1, .events = 20000, .every = 1000, .overlap_tol = 1e-9};
  cr_assert_eq(sim_run(rep, &s, k, &cfg), SIM_OK, "%s: %s", k->name, rep->message);
  sim_state_free(&s);
  return rep->max_abs_ke_err;
}

Test(sim32, float_drift_exceeds_double) {
  /* measured: about 1e-6 against 1e-15 after 2e4 events; asserted by a factor of 1e3 only */
  const char *names[3] = {"ericson", "robust", "accurate"};
  for (int i = 0; i < 3; i++) {
    const toi_formulation *f = toi_formulation_find(names[i]);
    sim_kernel k64 = sim_formulation_kernel(f), k32 = sim_formulation_kernel_prec(f, TOI_BINARY32);
    sim_report r64, r32;
    double d64 = run_drift(&k64, &r64), d32 = run_drift(&k32, &r32);
    cr_assert(isfinite(d32) && isfinite(sim_report_drift(&r32)));
    cr_assert_eq(r32.last.event, 20000);
    cr_assert(d32 > 1e3 * d64 && d32 < 1e-2, "%s: float %g, double %g", names[i], d32, d64);
    cr_assert(isfinite(r32.last.mom_err) && r32.last.mom_err > r64.last.mom_err);
  }
}
