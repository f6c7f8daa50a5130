/* audit.c: the response audit: the pipeline (double or float) at each formulation's T against the exact response. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "audit.h"
#include "response.h"
#include "stats.h"
#include "toiref.h"

static const char *const metric_names[TOI_AUDIT_METRICS] = {"gap", "ke_err", "mom_err", "angle",
                                                            "ulp_max"};

const char *toi_audit_metric_name(int metric) {
  return metric >= 0 && metric < TOI_AUDIT_METRICS ? metric_names[metric] : "?";
}

typedef struct mval {
  double v;   /* |metric| */
  size_t c;   /* case index */
} mval;

/* The values of one formulation's metrics, one array per metric. */
typedef struct mvals {
  mval *m[TOI_AUDIT_METRICS];
} mvals;

static int mval_cmp(const void *a, const void *b) {
  const mval *x = a, *y = b;
  /* NaN last, then by value, then by case for a stable, reproducible order */
  int xn = isnan(x->v), yn = isnan(y->v);
  if (xn != yn) return xn - yn;
  if (!xn && x->v != y->v) return x->v < y->v ? -1 : 1;
  return x->c < y->c ? -1 : x->c > y->c;
}

/* nearest-rank quantile of a sorted array */
static double quantile(const mval *v, size_t n, double q) {
  if (n == 0) return NAN;
  return v[toi_quantile_index(n, q)].v;
}

/* 1 when the n numbers of every group are finite */
static int response_finite(const toi_response *r, int n) {
  int ok = 1;
  for (int i = 0; i < n; i++)
    ok &= isfinite(r->pa[i]) && isfinite(r->pb[i]) && isfinite(r->n[i]) && isfinite(r->va[i]) &&
          isfinite(r->vb[i]);
  return ok;
}

static void free_vals(mvals *vals, int nf) {
  for (int k = 0; k < nf && vals; k++)
    for (int m = 0; m < TOI_AUDIT_METRICS; m++) free(vals[k].m[m]);
  free(vals);
}

/* What every case of one run shares. */
typedef struct audit_ctx {
  toi_audit *out;
  mvals *vals;
  toi_precision q;
  toi_response_fn respond;
  void (*on_row)(void *ctx, const toi_audit_row *row);
  void *ctx;
  const toi_msg *msg;
} audit_ctx;

/* The binary64 ULP error u64 of a value whose exact value rounds to the
   double x, in ULPs of q (toi_audit_run_prec says how the binade is taken). */
static double ulp_in(double u64, double x, toi_precision q) {
  const toi_precision_info *pi = toi_precision_get(q);
  if (q == TOI_BINARY64 || !pi || isnan(u64)) return u64;
  int e = x == 0 ? pi->emin : ilogb(x);
  int e64 = (e < -1022 ? -1022 : e) - 52, eq = (e > pi->emax ? pi->emax : e < pi->emin ? pi->emin : e);
  if (x == 0) e64 = -1074;
  return ldexp(u64, e64 - (eq - pi->p + 1));
}

/* The velocity ULP errors of a in q's ULPs, from the exact response er. */
static void audit_ulps_in(toi_resp_audit *a, const toi_ref_resp *er, int dim, toi_precision q) {
  if (q == TOI_BINARY64) return;
  double mx = -INFINITY;
  for (int i = 0; i < 2 * dim; i++) {
    a->ulp[i] = ulp_in(a->ulp[i], i < dim ? er->va[i] : er->vb[i - dim], q);
    if (isnan(a->ulp[i])) mx = NAN;
    else if (!isnan(mx) && a->ulp[i] > mx) mx = a->ulp[i];
  }
  a->ulp_max = mx;
}

/* Formulation k on one exact contact: its response in the audit's precision
   audited and counted. TOI_ERR_RANGE when the exact audit fails. */
static toi_status audit_one(const audit_ctx *ax, int k, const toi_case *c, size_t ci,
                            toi_class cls, const toi_ref_resp *er) {
  toi_audit_form *s = &ax->out->forms[k];
  double E = ax->out->restitution;
  toi_solve_fn solve = toi_formulation_solver(s->f, ax->q);
  toi_result r = solve ? solve(c) : (toi_result){TOI_NONE, NAN};
  if (toi_class_group(r.cls) != TOI_G_CONTACT || !isfinite(r.t)) {
    s->not_reported++;
    return TOI_OK;
  }
  toi_response dp;
  if (ax->respond(&dp, c, r.t, E) != TOI_OK) {
    s->failed++;
    return TOI_OK;
  }
  toi_audit_row row = {.c = c, .case_index = ci, .f = s->f, .cls = cls, .t = r.t};
  toi_resp_audit *a = &row.a;
  if (toi_ref_response_audit(a, c, E, dp.pa, dp.pb, dp.n, dp.va, dp.vb) != TOI_OK) {
    toi_msgf(ax->msg, "%s: the exact audit failed for %s", c->id, s->f->name);
    return TOI_ERR_RANGE;
  }
  audit_ulps_in(a, er, c->dim, ax->q);
  if (!response_finite(&dp, c->dim) && s->nonfinite++ == 0) s->first_nonfinite = ci;
  size_t i = s->audited++;
  double v[TOI_AUDIT_METRICS] = {fabs(a->gap), fabs(a->ke_err), fabs(a->mom_err), fabs(a->angle),
                                 a->ulp_max};
  for (int m = 0; m < TOI_AUDIT_METRICS; m++) ax->vals[k].m[m][i] = (mval){v[m], ci};
  if (a->gap < -TOI_AUDIT_PENETRATION) s->penetrations++;
  if (isnan(s->min_gap) || a->gap < s->min_gap) {
    s->min_gap = a->gap;
    s->min_gap_case = ci;
  }
  if (ax->on_row) ax->on_row(ax->ctx, &row);
  return TOI_OK;
}

/* One case, rounded to the audit's precision: the reference's class, and
   for an exact contact every formulation's response. */
static toi_status audit_case(const audit_ctx *ax, const toi_case *c0, size_t ci) {
  toi_audit *out = ax->out;
  toi_case rc;
  const toi_case *c = c0;
  if (ax->q != TOI_BINARY64) {
    int ch = toi_case_round(&rc, c0, ax->q);
    /* the exact response needs masses > 0: one that vanishes leaves no case */
    if (ch < 0 || !(rc.ma > 0) || !(rc.mb > 0)) {
      out->unrepresentable++;
      return TOI_OK;
    }
    out->rounded += ch > 0;
    c = &rc;
  }
  toi_ref ref;
  toi_ref_query rq = TOI_REF_QUERY_INIT;
  rq.c = c;
  if (toi_ref_solve(&ref, &rq) != TOI_OK) {
    toi_msgf(ax->msg, "%s: the reference failed", c->id);
    return TOI_ERR_RANGE;
  }
  if (ref.cls != TOI_HIT && ref.cls != TOI_CONTACT) return TOI_OK;
  out->contacts++;
  /* the exact response's own RN(t*) must be the reference's: two independent computations */
  toi_ref_resp er;
  if (toi_ref_response(&er, c, out->restitution) != TOI_OK || !(er.t == ref.tfwd)) {
    toi_msgf(ax->msg, "%s: the exact response disagrees with the reference (t %a against %a)",
             c->id, er.t, ref.tfwd);
    return TOI_ERR_RANGE;
  }
  for (int k = 0; k < out->nforms; k++) {
    toi_status st = audit_one(ax, k, c, ci, ref.cls, &er);
    if (st != TOI_OK) return st;
  }
  return TOI_OK;
}

/* The statistics of one metric's values (sorted here). */
static void summarise(toi_audit_stat *st, mval *v, size_t audited) {
  /* NaN sorts last: the statistics are over the values before it */
  qsort(v, audited, sizeof *v, mval_cmp);
  size_t n = audited;
  while (n > 0 && isnan(v[n - 1].v)) n--;
  st->n = n;
  st->median = st->p99 = st->max = NAN;
  st->max_case = 0;
  if (n == 0) return;
  st->median = quantile(v, n, 0.5);
  st->p99 = quantile(v, n, 0.99);
  st->max = v[n - 1].v;
  st->max_case = v[n - 1].c;
}

toi_status toi_audit_run(toi_audit *out, const toi_caselist *list, const toi_formulation *const *fs,
                         int nf, double E, void (*on_row)(void *ctx, const toi_audit_row *row),
                         void *ctx, const toi_msg *msg) {
  return toi_audit_run_prec(out, list, fs, nf, E, TOI_BINARY64, on_row, ctx, msg);
}

toi_status toi_audit_run_prec(toi_audit *out, const toi_caselist *list,
                              const toi_formulation *const *fs, int nf, double E, toi_precision q,
                              void (*on_row)(void *ctx, const toi_audit_row *row), void *ctx,
                              const toi_msg *msg) {
  memset(out, 0, sizeof *out);
  out->restitution = E;
  out->precision = q;
  out->cases = list->count;
  audit_ctx ax = {out, NULL, q, toi_response_pipeline(q), on_row, ctx, msg};
  if (!ax.respond) {
    toi_msgf(msg, "no response pipeline in precision %d", (int)q);
    return TOI_ERR_RANGE;
  }
  out->forms = calloc((size_t)(nf > 0 ? nf : 1), sizeof *out->forms);
  mvals *vals = calloc((size_t)(nf > 0 ? nf : 1), sizeof *vals);
  ax.vals = vals;
  toi_status st = out->forms && vals ? TOI_OK : TOI_ERR_NOMEM;
  for (int k = 0; k < nf && st == TOI_OK; k++) {
    out->nforms = k + 1;
    out->forms[k].f = fs[k];
    out->forms[k].min_gap = NAN;
    for (int m = 0; m < TOI_AUDIT_METRICS; m++) {
      vals[k].m[m] = malloc((list->count ? list->count : 1) * sizeof(mval));
      if (!vals[k].m[m]) st = TOI_ERR_NOMEM;
    }
  }
  for (size_t ci = 0; ci < list->count && st == TOI_OK; ci++)
    st = audit_case(&ax, &list->items[ci], ci);
  for (int k = 0; k < out->nforms && st == TOI_OK; k++)
    for (int m = 0; m < TOI_AUDIT_METRICS; m++)
      summarise(&out->forms[k].stat[m], vals[k].m[m], out->forms[k].audited);
  free_vals(vals, nf);
  if (st != TOI_OK) toi_audit_free(out);
  return st;
}

void toi_audit_free(toi_audit *a) {
  free(a->forms);
  a->forms = NULL;
  a->nforms = 0;
}
