/* report_eval.c: the report's measurements: suite evaluation, pairwise audits, timing. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "report.h"
#include "solvers.h"
#include "response.h"
#include "sweep.h"
#include "toiref.h"
#include "toiresp.h"

#define CHUNK 512

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double rep_quantile_sorted(const double *v, size_t n, double q) {
  if (n == 0) return NAN;
  size_t k = (size_t)ceil(q * (double)n);
  if (k == 0) k = 1;
  if (k > n) k = n;
  return v[k - 1];
}

size_t rep_sorted_copy(const double *v, size_t n, size_t stride, double **out) {
  double *c = malloc((n ? n : 1) * sizeof *c);
  size_t m = 0;
  if (!c) {
    *out = NULL;
    return 0;
  }
  for (size_t i = 0; i < n; i++)
    if (!isnan(v[i * stride])) c[m++] = v[i * stride];
  qsort(c, m, sizeof *c, cmp_double);
  *out = c;
  return m;
}

int report_columns(rep_data *d) {
  d->ncol = d->ncand;
  d->cols = calloc(d->ncol ? d->ncol : 1, sizeof *d->cols);
  if (!d->cols) return -1;
  for (size_t k = 0; k < d->ncand; k++) {
    rep_col *c = &d->cols[k];
    const toi_candidate *cand = &d->cands[k];
    c->name = cand->name;
    c->source = cand->source;
    c->summary = cand->summary[0] || !(cand->flags & TOI_CAND_EXTERNAL) ? cand->summary : "external solver";
    c->dir = cand->direction;
    c->domain = cand->domain;
    c->cand = cand;
  }
  return 0;
}

/* Column k's answer for case i: stored for an out-of-process candidate,
   else solved now into *own. */
static const toi_answer *col_answer(const rep_data *d, const rep_section *s, size_t k, size_t i, toi_answer *own) {
  const toi_candidate *cand = d->cols[k].cand;
  if (cand->flags & TOI_CAND_OUT_OF_PROCESS) return &s->ans[k][i];
  toi_run_info info;
  if (toi_candidate_run(cand, &s->cases[i], 1, NULL, own, &info)) return NULL;
  return own;
}

int report_sections(rep_data *d, toi_case *suite, size_t n) {
  int div = d->opts.quick ? 20 : 1;
  rep_section *s = &d->sec[0];
  if (suite) {
    snprintf(s->name, sizeof s->name, "suite");
    s->from_file = 1;
    s->n = n;
    s->cases = suite;
  } else {
    snprintf(s->name, sizeof s->name, "mixed");
    toi_gen_opts_default_in(&s->gen, TOI_GEN_MIXED, d->precision);
    s->gen.seed = d->opts.seed;
    s->n = 400000 / (size_t)div;
  }
  struct {
    const char *name;
    toi_gen_family fam;
    size_t per_bin;
  } fams[3] = {{"grazing", TOI_GEN_GRAZING, 2000}, {"near-contact", TOI_GEN_NEAR_CONTACT, 1000}, {"far", TOI_GEN_FAR, 2000}};
  d->nsec = 1;
  for (int k = 0; k < 3; k++) {
    rep_section *t = &d->sec[d->nsec++];
    snprintf(t->name, sizeof t->name, "%s", fams[k].name);
    toi_gen_opts_default_in(&t->gen, fams[k].fam, d->precision);
    t->gen.seed = d->opts.seed;
    t->n = toi_gen_bin_count(&t->gen) * fams[k].per_bin / (size_t)div;
  }
  return 0;
}

int report_measure(rep_data *d) {
  double t0 = sweep_now();
  if (report_evaluate(d) || report_audit(d) || report_simulate(d) ||
      report_simulate_engines(d))
    return -1;
  report_timing(d);
  if (d->part) {
    if (report_evaluate(d->part)) return -1;
    report_timing(d->part);
  }
  d->seconds_total = sweep_now() - t0;
  return 0;
}

int report_part(rep_data *d, toi_precision q) {
  size_t nf;
  const toi_formulation *all = toi_formulations(&nf);
  rep_data *p = calloc(1, sizeof *p);
  toi_candidate *own = calloc(nf + d->ncand + 1, sizeof *own);
  if (!p || !own) {
    free(p);
    free(own);
    return -1;
  }
  size_t n = 0;
  for (size_t i = 0; i < nf; i++)
    if (toi_formulation_solver(&all[i], q) && toi_candidate_formulation_prec(&own[n], &all[i], q) == 0) n++;
  for (size_t k = 0; k < d->ncand; k++)
    if ((d->cands[k].flags & TOI_CAND_EXTERNAL) && d->cands[k].precision == q) {
      if (toi_candidate_copy(&own[n], &d->cands[k])) goto fail;
      n++;
    }
  if (n == 0) {
    free(own);
    free(p);
    return 0;
  }
  p->opts = d->opts;
  p->opts.suite_file = NULL;
  p->precision = q;
  p->own = own;
  p->cands = own;
  p->ncand = n;
  d->part = p;
  if (report_columns(p) || report_sections(p, NULL, 0)) return -1;
  return 0;
fail:
  for (size_t k = 0; k < n; k++) toi_candidate_free(&own[k]);
  free(own);
  free(p);
  return -1;
}

typedef struct eval_ctx {
  rep_data *d;
  rep_section *s;
  sweep_run *run;
} eval_ctx;

static int gen_chunk(void *vctx, int worker, uint64_t chunk) {
  (void)worker;
  eval_ctx *e = vctx;
  rep_section *s = e->s;
  size_t lo = (size_t)chunk * CHUNK, hi = lo + CHUNK < s->n ? lo + CHUNK : s->n;
  for (size_t i = lo; i < hi; i++) {
    size_t bin = 0;
    if (toi_gen_case(&s->cases[i], NULL, &bin, &s->gen, i) != TOI_OK) return 1;
    const char *param;
    int value;
    char label[32];
    toi_gen_bin_describe(&s->gen, bin, &param, &value, label, sizeof label);
    s->bin[i] = (int)bin;
    s->param[i] = value;
  }
  atomic_fetch_add(&e->run->done, hi - lo);
  return 0;
}

/* A case as the candidates of one precision receive it, its exact answer
   there, and the condition numbers of its roots (per direction, computed the
   first time a timed column needs one). */
typedef struct prec_case {
  int state; /* toi_score_input: 0 unchanged, 1 rounded, -1 beyond the precision's range */
  toi_case c;
  toi_ref ref;
  double kappa[2]; /* forward, reverse */
  int have[2];
  int have_prep;         /* prep made (when first needed) */
  toi_status prep_st;    /* its status */
  toi_ref_prepared prep; /* c prepared for the error and kappa measures of every column */
} prec_case;

/* pc's case prepared for the reference's measures with engine, made once. */
static toi_ref_prepared *prec_prep(prec_case *pc, toi_ref_engine engine) {
  if (!pc->have_prep) {
    toi_ref_query rq = TOI_REF_QUERY_INIT;
    rq.c = &pc->c;
    rq.engine = engine;
    pc->prep_st = toi_ref_prepare(&pc->prep, &rq);
    pc->have_prep = 1;
  }
  return &pc->prep;
}

/* The kappa of pc's root in direction dir, as the sweep takes it (toi_ref_kappa on the case as received). */
static toi_status prec_kappa(prec_case *pc, toi_direction dir, toi_ref_engine engine, double *kappa) {
  int d = dir == TOI_REVERSE;
  if (!pc->have[d]) {
    toi_ref_query rq = TOI_REF_QUERY_INIT;
    rq.engine = engine;
    rq.dir = dir;
    rq.prepared = prec_prep(pc, engine);
    toi_ref_kappa_result kr;
    toi_status st = toi_ref_kappa(&kr, &rq);
    if (st != TOI_OK) return st;
    pc->kappa[d] = kr.kappa;
    pc->have[d] = 1;
  }
  *kappa = pc->kappa[d];
  return TOI_OK;
}

/* Column k on case i of s, scored in the column's precision against pc (the
   case as it received it and its exact answer). 0, or 4 when scoring failed. */
static int score_col(const rep_data *d, rep_section *s, size_t i, size_t k, prec_case *pc) {
  size_t nc = d->ncol, at = i * nc + k;
  const rep_col *col = &d->cols[k];
  toi_score_opts so = {INFINITY, 0, 0, 0, d->opts.engine, col->cand->precision, NULL};
  toi_score_detail sd;
  toi_answer own;
  s->ulp[at] = s->bits[at] = s->ratio[at] = NAN;
  s->verdict[at] = TOI_NONE;
  if (pc->state < 0) { /* not a case of its precision: it was not asked */
    s->kind[at] = TOI_SCORE_OUT_OF_DOMAIN;
    return 0;
  }
  const toi_answer *a = col_answer(d, s, k, i, &own);
  if (!a) return 4;
  if (a->state != TOI_ANSWERED) { /* declined, or no usable answer: counted apart, never scored */
    s->kind[at] = a->state == TOI_UNSUPPORTED ? REP_UNSUPPORTED : REP_FAILED;
    return 0;
  }
  so.prepared = prec_prep(pc, d->opts.engine);
  if (toi_score_answer(&sd, a->r, col->dir, col->domain, &pc->c, &pc->ref, &so) != TOI_OK) return 4;
  const toi_score_case sc = sd.sc;
  if (sc.timed) {
    s->ulp[at] = sc.ulp;
    s->bits[at] = sc.bits;
    double kappa;
    if (prec_kappa(pc, col->dir, d->opts.engine, &kappa) != TOI_OK) return 3;
    s->ratio[at] = sweep_ratio_prec(sc.ulp, sc.ref_t, kappa, col->cand->precision);
  }
  s->kind[at] = (unsigned char)sc.kind;
  s->verdict[at] = (unsigned char)sc.verdict;
  return 0;
}

/* The precisions of the columns, as a mask (bit q: some column computes in q). */
static unsigned used_precisions(const rep_data *d) {
  unsigned used = 0;
  for (size_t k = 0; k < d->ncol; k++) used |= 1u << d->cols[k].cand->precision;
  return used;
}

static int eval_chunk(void *vctx, int worker, uint64_t chunk) {
  (void)worker;
  eval_ctx *e = vctx;
  rep_section *s = e->s;
  size_t nc = e->d->ncol;
  unsigned used = used_precisions(e->d);
  size_t lo = (size_t)chunk * CHUNK, hi = lo + CHUNK < s->n ? lo + CHUNK : s->n;
  for (size_t i = lo; i < hi; i++) {
    toi_case *c = &s->cases[i];
    prec_case pc[TOI_PRECISION_COUNT];
    toi_ref *ref = &pc[TOI_BINARY64].ref;
    pc[TOI_BINARY64].state = 0;
    pc[TOI_BINARY64].c = *c;
    pc[TOI_BINARY64].have[0] = pc[TOI_BINARY64].have[1] = 0;
    pc[TOI_BINARY64].have_prep = 0;
    toi_ref_query rq = TOI_REF_QUERY_INIT;
    rq.c = c;
    rq.engine = e->d->opts.engine;
    if (toi_ref_solve(ref, &rq) != TOI_OK) return 2;
    s->cls[i] = (unsigned char)ref->cls;
    double kappa = NAN;
    if (ref->fwd_is_lo >= 0 && prec_kappa(&pc[TOI_BINARY64], TOI_FORWARD, e->d->opts.engine, &kappa) != TOI_OK) return 3;
    s->kappa[i] = kappa;
    /* The other precisions: the case rounded as their columns receive it (bits q and 4 + q of rounded[i]). */
    s->rounded[i] = 0;
    for (int q = 1; q < TOI_PRECISION_COUNT; q++) {
      if (!(used & 1u << q)) continue;
      pc[q].have[0] = pc[q].have[1] = 0;
      pc[q].have_prep = 0;
      toi_round_state rs;
      toi_status st = toi_score_input(&pc[q].c, &pc[q].ref, &rs, c, (toi_precision)q, e->d->opts.engine);
      pc[q].state = rs;
      if (st != TOI_OK) return 2;
      s->rounded[i] |= (unsigned char)(pc[q].state == 1 ? 1u << q : pc[q].state < 0 ? 16u << q : 0);
    }
    for (size_t k = 0; k < nc; k++) {
      int rc = score_col(e->d, s, i, k, &pc[e->d->cols[k].cand->precision]);
      if (rc) return rc;
    }
  }
  atomic_fetch_add(&e->run->done, hi - lo);
  return 0;
}

static int section_alloc(rep_section *s, size_t nf, const rep_col *cols) {
  size_t n = s->n ? s->n : 1;
  if (!s->cases) s->cases = calloc(n, sizeof *s->cases);
  s->bin = calloc(n, sizeof *s->bin);
  s->param = calloc(n, sizeof *s->param);
  s->cls = calloc(n, 1);
  s->kappa = calloc(n, sizeof *s->kappa);
  s->rounded = calloc(n, 1);
  s->ulp = calloc(n * nf, sizeof *s->ulp);
  s->bits = calloc(n * nf, sizeof *s->bits);
  s->ratio = calloc(n * nf, sizeof *s->ratio);
  s->kind = calloc(n * nf, 1);
  s->verdict = calloc(n * nf, 1);
  s->ans = calloc(nf ? nf : 1, sizeof *s->ans);
  if (!s->ans) return -1;
  for (size_t j = 0; j < nf; j++)
    if ((cols[j].cand->flags & TOI_CAND_OUT_OF_PROCESS) && !(s->ans[j] = calloc(n, sizeof **s->ans))) return -1;
  return s->cases && s->bin && s->param && s->cls && s->kappa && s->rounded && s->ulp && s->bits && s->ratio && s->kind && s->verdict ? 0 : -1;
}

static int run_chunks(rep_data *d, rep_section *s, sweep_chunk_fn fn, const char *what) {
  sweep_run run;
  memset(&run, 0, sizeof run);
  eval_ctx e = {d, s, &run};
  run.jobs = d->opts.jobs;
  run.nchunks = (s->n + CHUNK - 1) / CHUNK;
  run.fn = fn;
  run.ctx = &e;
  run.total = s->n;
  run.progress = d->opts.progress;
  char label[64];
  snprintf(label, sizeof label, "report: %s %s", what, s->name);
  run.what = label;
  atomic_init(&run.done, 0);
  return sweep_parallel(&run);
}

/* The out-of-process candidates, one after another, each in its own processes. */
static int call_external(rep_data *d, rep_section *s, int first) {
  for (size_t k = 0; k < d->ncol; k++) {
    const toi_candidate *cand = d->cols[k].cand;
    if (!(cand->flags & TOI_CAND_OUT_OF_PROCESS)) continue;
    toi_solve_opts so = {INFINITY, d->opts.timeout, &d->quota[k], d->opts.msg};
    toi_run_info info;
    memset(&info, 0, sizeof info);
    if (d->opts.progress) {
      char note[300];
      snprintf(note, sizeof note, "report: %s on %s (%zu cases)", cand->name, s->name, s->n);
      d->opts.progress->note(d->opts.progress->ud, note);
    }
    if (toi_candidate_run(cand, s->cases, s->n, &so, s->ans[k], &info)) {
      toi_msgf(d->opts.msg, "report: solver %s could not be run", cand->name);
      return -1;
    }
    /* Its own time (what it said its engine took) apart from the bench's wall
       time around the call, which adds the processes and the pipe. */
    if (first) {
      d->ns_per_call[k] = info.engine_calls ? (double)info.engine_ns / (double)info.engine_calls : NAN;
      d->bench_ns[k] = info.bench_calls ? (double)info.bench_ns / (double)info.bench_calls : NAN;
    }
    if (info.malfunctions)
      toi_msgf(d->opts.msg, "report: %s: %zu cases lost to crashes, hangs or protocol errors", cand->name,
               info.malfunctions);
  }
  return 0;
}

int report_evaluate(rep_data *d) {
  double t0 = sweep_now();
  d->ns_per_call = calloc(d->ncol ? d->ncol : 1, sizeof *d->ns_per_call);
  d->ns_median = malloc((d->ncol ? d->ncol : 1) * sizeof *d->ns_median);
  d->bench_ns = malloc((d->ncol ? d->ncol : 1) * sizeof *d->bench_ns);
  d->quota = calloc(d->ncol ? d->ncol : 1, sizeof *d->quota);
  if (!d->ns_per_call || !d->ns_median || !d->bench_ns || !d->quota) return -1;
  for (size_t k = 0; k < d->ncol; k++) d->quota[k].log = d->opts.solver_log;
  for (size_t k = 0; k < d->ncol; k++) d->ns_median[k] = d->bench_ns[k] = NAN; /* an external solver is timed once */
  for (size_t k = 0; k < d->nsec; k++) {
    rep_section *s = &d->sec[k];
    if (section_alloc(s, d->ncol, d->cols)) {
      toi_msgf(d->opts.msg, "report: out of memory");
      return -1;
    }
    if (!s->from_file && run_chunks(d, s, gen_chunk, "generating")) {
      toi_msgf(d->opts.msg, "report: generating section %s failed", s->name);
      return -1;
    }
    if (call_external(d, s, k == 0)) return -1;
    if (run_chunks(d, s, eval_chunk, "evaluating")) {
      toi_msgf(d->opts.msg, "report: evaluating section %s failed", s->name);
      return -1;
    }
  }
  for (size_t k = 0; k < d->ncol; k++) /* what the first 20 lines of each left untold */
    if (d->cols[k].cand->flags & TOI_CAND_OUT_OF_PROCESS) solver_quota_report(d->cols[k].name, &d->quota[k], d->opts.msg);
  d->seconds_eval = sweep_now() - t0;
  return 0;
}

/* ---- pairwise response audit ---- */

#define AUDIT_MAX 4000

typedef struct audit_ctx {
  rep_data *d;
  size_t *todo; /* section indices of exact hits and contacts */
  size_t ntodo;
  sweep_run *run;
} audit_ctx;

static int audit_chunk(void *vctx, int worker, uint64_t chunk) {
  (void)worker;
  audit_ctx *a = vctx;
  rep_data *d = a->d;
  rep_section *s = &d->sec[0];
  size_t lo = (size_t)chunk * 64, hi = lo + 64 < a->ntodo ? lo + 64 : a->ntodo;
  for (size_t j = lo; j < hi; j++) {
    size_t i = a->todo[j];
    const toi_case *c = &s->cases[i];
    for (size_t k = 0; k < d->ncol; k++) {
      rep_audit *au = &d->audit[k];
      const rep_col *col = &d->cols[k];
      au->idx[j] = i;
      au->ke[j] = au->mom[j] = au->gap[j] = au->angle[j] = au->vulp[j] = NAN;
      if (col->dir != TOI_FORWARD) continue;
      if (s->kind[i * d->ncol + k] != TOI_SCORE_AGREE) continue;
      toi_answer own;
      const toi_answer *ans = col_answer(d, s, k, i, &own);
      if (!ans) continue;
      toi_result r = ans->r;
      if (!isfinite(r.t)) continue;
      toi_response resp;
      if (toi_response_compute(&resp, c, r.t, 1.0) != TOI_OK) continue;
      toi_resp_audit ra;
      if (toi_ref_response_audit(&ra, c, 1.0, resp.pa, resp.pb, resp.n, resp.va, resp.vb) != TOI_OK)
        continue;
      au->ke[j] = ra.ke_err;
      au->mom[j] = ra.mom_err;
      au->gap[j] = ra.gap;
      au->angle[j] = ra.angle;
      au->vulp[j] = ra.ulp_max;
    }
  }
  atomic_fetch_add(&a->run->done, hi - lo);
  return 0;
}

int report_audit(rep_data *d) {
  rep_section *s = &d->sec[0];
  d->audit = calloc(d->ncol ? d->ncol : 1, sizeof *d->audit);
  size_t *todo = malloc((s->n ? s->n : 1) * sizeof *todo);
  if (!d->audit || !todo) {
    free(todo);
    toi_msgf(d->opts.msg, "report: out of memory");
    return -1;
  }
  size_t m = 0;
  for (size_t i = 0; i < s->n && m < AUDIT_MAX; i++)
    if (s->cls[i] == TOI_HIT || s->cls[i] == TOI_CONTACT) todo[m++] = i;
  for (size_t k = 0; k < d->ncol; k++) {
    rep_audit *au = &d->audit[k];
    au->n = m;
    size_t n = m ? m : 1;
    au->ke = malloc(n * sizeof(double));
    au->mom = malloc(n * sizeof(double));
    au->gap = malloc(n * sizeof(double));
    au->angle = malloc(n * sizeof(double));
    au->vulp = malloc(n * sizeof(double));
    au->idx = malloc(n * sizeof(size_t));
    if (!au->ke || !au->mom || !au->gap || !au->angle || !au->vulp || !au->idx) {
      free(todo);
      toi_msgf(d->opts.msg, "report: out of memory");
      return -1;
    }
  }
  sweep_run run;
  memset(&run, 0, sizeof run);
  audit_ctx a = {d, todo, m, &run};
  run.jobs = d->opts.jobs;
  run.nchunks = (m + 63) / 64;
  run.fn = audit_chunk;
  run.ctx = &a;
  run.total = m;
  run.progress = d->opts.progress;
  run.what = "report: audit";
  atomic_init(&run.done, 0);
  int rc = sweep_parallel(&run);
  free(todo);
  if (rc) {
    toi_msgf(d->opts.msg, "report: audit failed");
    return -1;
  }
  for (size_t k = 0; k < d->ncol; k++)
    for (size_t j = 0; j < d->audit[k].n; j++)
      if (d->audit[k].gap[j] < -1e-12) d->audit[k].penetrations++;
  return 0;
}

/* ---- timing ---- */

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return 1e9 * (double)ts.tv_sec + (double)ts.tv_nsec;
}

/* The sink keeps the compiler from dropping calls whose results are unused. */
static volatile double timing_sink;

/* Cases per call when timing: the answers stay in the cache. */
#define TIMING_BATCH 256

/* The median of v[0..n-1] (n odd), v reordered. */
static double median_of(double *v, int n) {
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
      double t = v[j];
      v[j] = v[j - 1];
      v[j - 1] = t;
    }
  return v[n / 2];
}

void report_time_solve(const toi_candidate *cand, const toi_case *in, size_t n, double *best, double *median) {
  *best = *median = NAN;
  toi_answer *ans = malloc(TIMING_BATCH * sizeof *ans);
  if (!ans || n == 0) {
    free(ans);
    return;
  }
  double fastest = INFINITY, each[REP_TIMING_REPEATS];
  for (int rep = 0; rep < REP_TIMING_REPEATS; rep++) {
    double acc = 0, t0 = now_ns();
    for (size_t lo = 0; lo < n; lo += TIMING_BATCH) {
      size_t m = n - lo < TIMING_BATCH ? n - lo : TIMING_BATCH;
      toi_run_info info;
      if (cand->solve(cand, &in[lo], m, NULL, ans, &info)) {
        free(ans);
        return;
      }
      for (size_t i = 0; i < m; i++) acc += ans[i].r.t;
    }
    double dt = (now_ns() - t0) / (double)n;
    timing_sink = acc;
    each[rep] = dt;
    if (dt < fastest) fastest = dt;
  }
  free(ans);
  *best = fastest;
  *median = median_of(each, REP_TIMING_REPEATS);
}

/* The first n cases of s as a candidate computing in q receives them, into
   *out (s->cases itself for binary64; a malloc'ed copy, cases that overflow
   q left out, otherwise): their count. */
static size_t timing_inputs(const rep_section *s, size_t n, toi_precision q, toi_case **out) {
  if (q == TOI_BINARY64) {
    *out = s->cases;
    return n;
  }
  toi_case *in = malloc((n ? n : 1) * sizeof *in);
  size_t m = 0;
  for (size_t i = 0; in && i < n; i++)
    if (toi_case_round(&in[m], &s->cases[i], q) >= 0) m++;
  *out = in;
  return in ? m : 0;
}

void report_timing(rep_data *d) {
  rep_section *s = &d->sec[0];
  size_t n = s->n < 20000 ? s->n : 20000;
  if (!d->ns_per_call || n == 0) return;
  /* Each precision's inputs are made once, outside the clock: a binary32
     column is timed on its own call alone, as a binary64 one is. */
  toi_case *in[TOI_PRECISION_COUNT] = {NULL};
  size_t nin[TOI_PRECISION_COUNT] = {0};
  for (size_t k = 0; k < d->ncol; k++) {
    const toi_candidate *cand = d->cols[k].cand;
    if (cand->flags & TOI_CAND_OUT_OF_PROCESS) continue; /* its own time came with its call in report_evaluate */
    toi_precision q = cand->precision;
    if (!in[q]) nin[q] = timing_inputs(s, n, q, &in[q]);
    double best, med;
    report_time_solve(cand, in[q], nin[q], &best, &med);
    d->ns_per_call[k] = best;
    if (d->ns_median) d->ns_median[k] = med;
  }
  for (int q = 0; q < TOI_PRECISION_COUNT; q++)
    if (in[q] != s->cases) free(in[q]);
  size_t nr = n < 5000 ? n : 5000;
  double t0 = now_ns(), acc = 0;
  for (size_t i = 0; i < nr; i++) {
    toi_ref ref;
    toi_ref_query rq = TOI_REF_QUERY_INIT;
    rq.c = &s->cases[i];
    rq.engine = d->opts.engine;
    if (toi_ref_solve(&ref, &rq) == TOI_OK) acc += ref.tlo;
  }
  timing_sink = acc;
  d->ref_ns_per_call = nr ? (now_ns() - t0) / (double)nr : NAN;
}

void report_free(rep_data *d) {
  for (size_t k = 0; k < d->nsec; k++) {
    rep_section *s = &d->sec[k];
    free(s->cases);
    free(s->bin);
    free(s->param);
    free(s->cls);
    free(s->kappa);
    free(s->rounded);
    free(s->ulp);
    free(s->bits);
    free(s->ratio);
    free(s->kind);
    free(s->verdict);
    if (s->ans)
      for (size_t j = 0; j < d->ncol; j++) free(s->ans[j]);
    free(s->ans);
  }
  if (d->audit)
    for (size_t k = 0; k < d->ncol; k++) {
      rep_audit *a = &d->audit[k];
      free(a->ke);
      free(a->mom);
      free(a->gap);
      free(a->angle);
      free(a->vulp);
      free(a->idx);
    }
  free(d->audit);
  for (size_t k = 0; k < d->nsim; k++) {
    free(d->sim[k].event);
    free(d->sim[k].ke_err);
  }
  free(d->sim);
  for (size_t k = 0; k < d->nesim; k++) {
    free(d->esim[k].event);
    free(d->esim[k].ke_err);
  }
  free(d->esim);
  free(d->ns_per_call);
  free(d->ns_median);
  free(d->bench_ns);
  free(d->quota);
  free(d->cols);
  if (d->part) {
    report_free(d->part);
    free(d->part);
    d->part = NULL;
  }
  if (d->own) {
    for (size_t k = 0; k < d->ncand; k++) toi_candidate_free(&d->own[k]);
    free(d->own);
    d->own = NULL;
  }
}
