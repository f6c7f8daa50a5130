/* bench_run.c: candidates scored on a list of cases against the certified reference: the rows of `run`. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "bench.h"
#include "ref_bench.h"
#include "stats.h"
#include "sweep.h"

void toi_bench_opts_init(toi_bench_opts *o) {
  memset(o, 0, sizeof *o);
  o->tmax = INFINITY;
  o->delta = 0;
  o->timeout = 10;
  o->engine = TOI_REF_FAST;
  o->msg = NULL;
  o->quota = NULL;
}

/* Appends to an array whose capacity is the count rounded up to a power of two. */
static int push_val(double **v, size_t *n, double x) {
  if ((*n & (*n - 1)) == 0) {
    size_t cap = *n ? 2 * *n : 1;
    double *p = realloc(*v, cap * sizeof *p);
    if (!p) return -1;
    *v = p;
  }
  (*v)[(*n)++] = x;
  return 0;
}

/* A case without an answer: counted, the first failures told (of the call,
   or of every call with a quota), its row written. */
static void no_answer(toi_run_row *x, const toi_candidate *cand, const toi_case *c, const toi_ref *ref,
                      const toi_answer *a, const toi_bench_opts *o, toi_quota *quota, toi_case_row_fn row,
                      void *ud) {
  if (a->state == TOI_UNSUPPORTED) {
    x->unsupported++;
  } else {
    x->failed++;
    unsigned k = (unsigned)a->cause < TOI_CAUSE_COUNT ? (unsigned)a->cause : TOI_CAUSE_NONE;
    if (x->fail_causes[k]++ == 0) snprintf(x->first_failed[k], sizeof x->first_failed[k], "%s", c->id);
    size_t told = quota ? ++quota->failures_shown : x->failed;
    if (told <= TOI_FAILURES_SHOWN) toi_msgf(o->msg, "solver %s: case %s: %s", cand->name, c->id, a->why);
  }
  if (!row) return;
  toi_score_case sc;
  memset(&sc, 0, sizeof sc);
  sc.ref_cls = ref->cls;
  sc.t = sc.ulp = sc.bits = NAN;
  sc.ref_t = ref->tfwd;
  sc.cause = a->state == TOI_FAILED ? a->cause : TOI_CAUSE_NONE;
  row(ud, c, cand, a->state == TOI_UNSUPPORTED ? "unsupported" : "failed", &sc);
}

/* The second table: an external answer against its target, the error in time
   and the gap at the returned time. */
static int add_target(toi_run_row *x, const toi_case *c, const toi_score_detail *ss, double target, double tol) {
  if (!x->targets_seen || target < x->tmin) x->tmin = target;
  if (!x->targets_seen || target > x->tmax_seen) x->tmax_seen = target;
  x->targets_seen = 1;
  x->tkind[ss->target_kind]++;
  if (ss->target_timed && push_val(&x->tulps, &x->ntulps, ss->target_ulp)) return -1;
  /* The error in time itself, in the case's time units: what a user of the
   * engine sees as "how late or early". */
  if (ss->sc.timed && isfinite(ss->sc.t) && isfinite(ss->sc.ref_t) &&
      push_val(&x->dts, &x->ndts, fabs(ss->sc.t - ss->sc.ref_t)))
    return -1;
  if (ss->sc.timed && !isnan(ss->gap)) {
    double R = c->ra + c->rb;
    double rel = R > 0 ? fabs(ss->gap) / R : fabs(ss->gap);
    double dev = R > 0 ? fabs(ss->gap - target) / R : fabs(ss->gap - target);
    if (push_val(&x->gaps, &x->ngaps, rel) || push_val(&x->devs, &x->ndevs, dev)) return -1;
    if (x->ngaps == 1 || rel > x->max_gap) {
      x->max_gap = rel;
      snprintf(x->worst_gap, sizeof x->worst_gap, "%s", c->id);
    }
  }
  if (tol > 0 && ss->target_timed) {
    x->have_tol++;
    x->off_tol += (size_t)ss->off_tolerance;
  }
  return 0;
}

/* A case as the candidates of one precision see it: rounded (state 1) or
   not (0), or beyond the precision's range (-1: no reference). */
typedef struct prec_case {
  int state;
  toi_case c;
  toi_ref ref;
  int have_prep;         /* prep set (by the first error measured: score_answer_prepared) */
  toi_ref_prepared prep; /* c prepared for the error measures of every candidate (when the first asks) */
  score_memo memo;       /* the errors measured from prep (valid once prep is set) */
} prec_case;

/* Scores one candidate's answer for case c into its row: TOI_OK, or the
   status of what failed (the scoring's, TOI_ERR_NOMEM). */
static toi_status score_one(toi_run_row *x, const toi_candidate *cand, prec_case *pc, const toi_answer *a,
                     const toi_bench_opts *o, toi_quota *quota, toi_case_row_fn row, void *ud, int memo) {
  const toi_case *c = &pc->c;
  const toi_ref *ref = &pc->ref;
  if (pc->state < 0) {
    x->overflowed++;
    if (row) {
      toi_score_case sc;
      memset(&sc, 0, sizeof sc);
      sc.ref_cls = TOI_NONE;
      sc.t = sc.ref_t = sc.ulp = sc.bits = NAN;
      sc.kind = TOI_SCORE_OUT_OF_DOMAIN;
      row(ud, c, cand, "overflow", &sc);
    }
    return 0;
  }
  x->inputs_rounded += (size_t)pc->state;
  if (a->state != TOI_ANSWERED) {
    no_answer(x, cand, c, ref, a, o, quota, row, ud);
    return 0;
  }
  int external = (cand->flags & TOI_CAND_EXTERNAL) != 0;
  double target = isfinite(a->target) ? a->target : o->delta;
  double tol = isfinite(a->tolerance) ? a->tolerance : 0;
  /* Made by the first answer whose error is measured (most answers need
     none), prepared by the first measure that needs it: the measures give
     what they give after toi_ref_prepare, a case the check refuses its
     status. A binary64 case comes with its answer, from which most errors
     are had without the preparation. */
  toi_score_opts so = {o->tmax, target, tol, external, o->engine, cand->precision, &pc->prep};
  toi_score_detail ss;
  toi_status st = score_answer_prepared(&ss, a->r, cand->direction, cand->domain, c, ref, &so, &pc->have_prep,
                                        cand->precision == TOI_BINARY64 ? ref : NULL, memo ? &pc->memo : NULL);
  if (st == TOI_OK) st = toi_score_stats_add(&x->st, &ss.sc, c->id);
  if (st == TOI_OK && external && add_target(x, c, &ss, target, tol)) st = TOI_ERR_NOMEM;
  if (st != TOI_OK) return st;
  if (row) row(ud, c, cand, toi_class_name(a->r.cls), &ss.sc);
  return TOI_OK;
}

/* Every candidate's answers to every case, [candidate][case]; NULL after a
   failure, whose status is then in *st. */
static toi_answer *solve_all(toi_run_row *rows, const toi_candidate *cands, size_t nc, const toi_case *cases,
                             size_t n, const toi_bench_opts *o, toi_status *st) {
  toi_answer *ans = malloc((nc * n > 0 ? nc * n : 1) * sizeof *ans);
  if (!ans) {
    toi_msgf(o->msg, "run: out of memory");
    *st = TOI_ERR_NOMEM;
    return NULL;
  }
  for (size_t k = 0; k < nc; k++) {
    toi_solve_opts so = {o->tmax, o->timeout, o->quota ? &o->quota[k] : NULL, o->msg};
    *st = toi_candidate_run(&cands[k], cases, n, &so, &ans[k * n], &rows[k].info);
    if (*st != TOI_OK) {
      free(ans);
      return NULL;
    }
  }
  return ans;
}

/* The case and its exact answer in every precision of mask used: the input
   rounded as the candidates of that precision receive it (binary64: the case
   itself, as always), the binary64 answer and status from ref64 and st64
   when given (solved before with the others, bit for bit the same).
   TOI_OK, or the reference's status when it failed (said to o->msg). */
static toi_status prepare_case(prec_case *pc, unsigned used, const toi_case *c, const toi_ref *ref64,
                               const toi_status *st64, const toi_bench_opts *o) {
  for (int q = 0; q < TOI_PRECISION_COUNT; q++) {
    if (!(used & 1u << q)) continue;
    toi_round_state rs;
    toi_status st;
    if (q == TOI_BINARY64 && ref64) {
      rs = toi_candidate_input(&pc[q].c, c, TOI_BINARY64);
      pc[q].ref = *ref64;
      st = *st64;
    } else {
      st = toi_score_input(&pc[q].c, &pc[q].ref, &rs, c, (toi_precision)q, o->engine);
    }
    pc[q].state = rs;
    pc[q].have_prep = 0;
    if (st != TOI_OK) {
      toi_msgf(o->msg, "case %s: the reference failed", c->id);
      return st;
    }
  }
  return TOI_OK;
}

toi_status toi_bench_run(toi_run_row *rows, const toi_candidate *cands, size_t nc, const toi_case *cases, size_t n,
                         const toi_bench_opts *o, toi_case_row_fn row, void *ud) {
  if (!rows || !o || (nc && !cands) || (n && !cases)) return TOI_ERR_RANGE;
  memset(rows, 0, nc * sizeof *rows);
  for (size_t k = 0; k < nc; k++) toi_score_stats_init(&rows[k].st, cands[k].name);
  toi_status rc = TOI_OK;
  toi_answer *ans = solve_all(rows, cands, nc, cases, n, o, &rc);
  if (!ans) return rc;
  unsigned used = 0; /* the precisions of the candidates, as a mask */
  for (size_t k = 0; k < nc; k++) used |= 1u << cands[k].precision;
  /* The binary64 answers of all the cases at once, in the fast engine's
     vector kernels (toi_ref_solve_batch: toi_ref_solve's, bit for bit); out
     of memory, one by one as before. */
  toi_ref *ref64 = NULL;
  toi_status *st64 = NULL;
  if (n > 0 && (used & 1u << TOI_BINARY64)) {
    ref64 = malloc(n * sizeof *ref64);
    st64 = malloc(n * sizeof *st64);
    toi_ref_query rq = TOI_REF_QUERY_INIT;
    rq.engine = o->engine;
    rq.precision = TOI_BINARY64;
    if (!ref64 || !st64 || toi_ref_solve_batch(ref64, st64, cases, n, &rq, NULL) != TOI_OK) {
      free(ref64), free(st64);
      ref64 = NULL, st64 = NULL;
    }
  }
  for (size_t i = 0; i < n && rc == TOI_OK; i++) {
    prec_case pc[TOI_PRECISION_COUNT];
    rc = prepare_case(pc, used, &cases[i], ref64 ? &ref64[i] : NULL, st64 ? &st64[i] : NULL, o);
    for (size_t k = 0; k < nc && rc == TOI_OK; k++) {
      rc = score_one(&rows[k], &cands[k], &pc[cands[k].precision], &ans[k * n + i], o,
                     o->quota ? &o->quota[k] : NULL, row, ud, nc > 1); /* the memo: for answers given again */
      if (rc != TOI_OK) toi_msgf(o->msg, "case %s: scoring %s failed", cases[i].id, cands[k].name);
    }
  }
  free(ref64), free(st64);
  free(ans);
  return rc;
}

toi_status toi_bench_run_family(toi_run_row *rows, const toi_candidate *cands, size_t nc, const toi_gen_opts *g,
                                uint64_t count, const toi_bench_opts *o) {
  if (!rows || !g || !o || (nc && !cands)) return TOI_ERR_RANGE;
  memset(rows, 0, nc * sizeof *rows);
  toi_case *cases = malloc((count ? (size_t)count : 1) * sizeof *cases);
  if (!cases) {
    toi_msgf(o->msg, "run: out of memory");
    return TOI_ERR_NOMEM;
  }
  for (uint64_t i = 0; i < count; i++) {
    size_t bin;
    toi_status st = toi_gen_case(&cases[i], NULL, &bin, g, i);
    if (st != TOI_OK) {
      toi_msgf(o->msg, "run: generating case %llu failed", (unsigned long long)i);
      free(cases);
      return st;
    }
  }
  toi_status rc = toi_bench_run(rows, cands, nc, cases, (size_t)count, o, NULL, NULL);
  free(cases);
  return rc;
}

/* The last line of a failed run: for each solver with failed cases or protocol
   errors, its failed cases by cause with the first case ID of each. */
static void run_failed_line(const toi_run_row *rows, const toi_candidate *cands, size_t nc, const toi_msg *msg) {
  char line[4096];
  size_t at = (size_t)snprintf(line, sizeof line, "run failed:");
  for (size_t k = 0; k < nc && at < sizeof line; k++) {
    const toi_run_row *x = &rows[k];
    if (!x->failed && !x->info.protocol_errors) continue;
    at += (size_t)snprintf(line + at, sizeof line - at, "%s solver %s:", at > 11 ? ";" : "", cands[k].name);
    int any = 0;
    /* crashes and hangs first: they stop a solver; then what its answers broke */
    static const toi_fail_cause order[] = {TOI_CAUSE_CRASH, TOI_CAUSE_HANG, TOI_CAUSE_PROTOCOL, TOI_CAUSE_RANGE,
                                           TOI_CAUSE_DECLARED, TOI_CAUSE_NONE};
    for (size_t j = 0; j < sizeof order / sizeof *order && at < sizeof line; j++) {
      toi_fail_cause c = order[j];
      if (!x->fail_causes[c]) continue;
      at += (size_t)snprintf(line + at, sizeof line - at, "%s %zu %s (first %s)", any ? "," : "", x->fail_causes[c],
                             c == TOI_CAUSE_NONE ? "without a cause" : toi_fail_cause_name(c), x->first_failed[c]);
      any = 1;
    }
    if (x->info.protocol_errors && at < sizeof line)
      at += (size_t)snprintf(line + at, sizeof line - at, "%s %zu protocol error%s outside any case", any ? "," : "",
                             x->info.protocol_errors, x->info.protocol_errors == 1 ? "" : "s");
  }
  toi_msgf(msg, "%s", line);
}

int toi_run_finish(const toi_run_row *rows, const toi_candidate *cands, size_t nc, const toi_msg *msg) {
  int bad = 0;
  for (size_t k = 0; k < nc; k++) {
    const toi_run_row *x = &rows[k];
    if (x->failed > TOI_FAILURES_SHOWN)
      toi_msgf(msg, "solver %s: %zu more failed cases not shown", cands[k].name, x->failed - TOI_FAILURES_SHOWN);
    if (x->info.malfunctions || x->info.protocol_errors) {
      toi_msgf(msg,
               "solver %s: %zu case%s lost to crashes, hangs or protocol errors; %zu protocol error%s outside any "
               "case",
               cands[k].name, x->info.malfunctions, x->info.malfunctions == 1 ? "" : "s", x->info.protocol_errors,
               x->info.protocol_errors == 1 ? "" : "s");
      bad = 1;
    }
  }
  if (bad) run_failed_line(rows, cands, nc, msg);
  return bad;
}

void toi_run_row_stats(toi_run_row *row, toi_run_stats *out) {
  toi_run_row_counts(row, out);
  out->median_ulp = toi_score_stats_quantile(&row->st, 0.5);
  out->p99_ulp = toi_score_stats_quantile(&row->st, 0.99);
}

void toi_run_row_counts(const toi_run_row *row, toi_run_stats *out) {
  const toi_score_stats *s = &row->st;
  memset(out, 0, sizeof *out);
  out->cases = s->cases;
  out->agree = s->kind[TOI_SCORE_AGREE];
  out->missed = s->kind[TOI_SCORE_MISSED];
  out->ghost = s->kind[TOI_SCORE_GHOST];
  out->other = s->kind[TOI_SCORE_OTHER];
  out->timed = s->timed;
  out->out_of_domain = s->out_of_domain;
  out->failed = row->failed;
  out->unsupported = row->unsupported;
  out->inputs_rounded = row->inputs_rounded;
  out->overflowed = row->overflowed;
  out->median_ulp = out->p99_ulp = NAN;
  out->max_ulp = s->timed ? s->max_ulp : NAN;
  out->max_bits = s->timed ? s->max_bits : NAN;
  snprintf(out->worst_id, sizeof out->worst_id, "%s", s->timed ? s->worst_id : "-");
}

void toi_run_rows_free(toi_run_row *rows, size_t nc) {
  for (size_t k = 0; rows && k < nc; k++) {
    toi_score_stats_free(&rows[k].st);
    free(rows[k].tulps);
    free(rows[k].gaps);
    free(rows[k].devs);
    free(rows[k].dts);
  }
}
