/* hunt_search.c: the worst-case search of `toibench hunt` for any candidate: a global pass, then a local search in rounds. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "hunt.h"

/* Cases per candidate call in the global pass: a solver slow to start (a node
 * process, a Python interpreter) costs little per case on batches this size. */
#define BATCH 4096
/* Rounds of the local search of an out-of-process candidate are one call
 * each: a few dozen calls whatever the budget, unless a round would exceed
 * ROUND_CASES proposals (memory), in which case there are more rounds. */
#define MAX_ROUNDS 64
#define ROUND_CASES 65536
/* Cases scored by the workers at a time. */
#define SCORE_CHUNK 64

typedef struct search {
  const toi_candidate *cand;
  const hunt_opts *o;
  hunt_result *r;
  /* the cases being scored on the workers */
  hunt_found *fds;
  const toi_answer *ans;
  size_t n;
  toi_status st;
} search;

/* Scores the answer for fd->c as `run` does: fd->sc against the true contact;
 * fd->err, the ranked error, against the target of a candidate scored against
 * targets (its own, else --target-distance), else against the true contact.
 * Kappa and the ratio only when that target is the true contact. A failed
 * answer keeps only the exact class. */
static toi_status hunt_score(hunt_found *fd, const toi_candidate *cand, const toi_answer *a, const hunt_opts *o) {
  toi_ref ref;
  toi_case in; /* the case as the candidate received it, in its precision */
  toi_round_state state;
  if (toi_score_input(&in, &ref, &state, &fd->c, cand->precision, o->engine) != TOI_OK) return TOI_ERR_RANGE;
  toi_status st;
  fd->target = isfinite(a->target) ? a->target : o->delta;
  fd->err = fd->kappa = fd->ratio = NAN;
  fd->tkind = TOI_SCORE_OUT_OF_DOMAIN;
  if (state < 0) ref.cls = TOI_NONE; /* beyond its precision's range: not scored */
  if (state < 0 || a->state != TOI_ANSWERED) {
    memset(&fd->sc, 0, sizeof fd->sc);
    fd->sc.ref_cls = ref.cls;
    fd->sc.t = fd->sc.ref_t = fd->sc.ulp = fd->sc.bits = NAN;
    return TOI_OK;
  }
  int against_target = (cand->flags & TOI_CAND_EXTERNAL) != 0;
  toi_ref_prepared prep;
  toi_ref_query rq = TOI_REF_QUERY_INIT;
  rq.c = &in;
  rq.engine = o->engine;
  rq.dir = cand->direction;
  if ((st = toi_ref_prepare(&prep, &rq)) != TOI_OK) return st;
  toi_score_opts so = {o->tmax, fd->target, isfinite(a->tolerance) ? a->tolerance : 0, against_target, o->engine,
                   cand->precision, &prep};
  toi_score_detail ss;
  st = toi_score_answer(&ss, a->r, cand->direction, cand->domain, &in, &ref, &so);
  if (st != TOI_OK) return st;
  fd->sc = ss.sc;
  fd->tkind = against_target ? ss.target_kind : ss.sc.kind;
  if (against_target ? ss.target_timed : ss.sc.timed) fd->err = against_target ? ss.target_ulp : ss.sc.ulp;
  if (fd->target != 0 || !ss.sc.timed || !isfinite(ss.sc.ulp)) return TOI_OK;
  rq.c = NULL;
  rq.prepared = &prep;
  toi_ref_kappa_result kr;
  st = toi_ref_kappa(&kr, &rq);
  fd->kappa = kr.kappa;
  if (st == TOI_OK) fd->ratio = sweep_ratio_prec(ss.sc.ulp, ss.sc.ref_t, fd->kappa, cand->precision);
  return st;
}

static int score_chunk(void *vctx, int worker, uint64_t chunk) {
  (void)worker;
  search *h = vctx;
  size_t lo = (size_t)chunk * SCORE_CHUNK, hi = lo + SCORE_CHUNK < h->n ? lo + SCORE_CHUNK : h->n;
  for (size_t j = lo; j < hi; j++) {
    if (h->ans[j].state == TOI_UNSUPPORTED) continue;
    toi_status st = hunt_score(&h->fds[j], h->cand, &h->ans[j], h->o);
    if (st != TOI_OK) {
      h->st = st;
      return 1;
    }
  }
  return 0;
}

/* Scores fds[0..n-1] with their answers on the workers (the scores do not
 * depend on which worker or in which order). 0 or -1. */
static int score_all(search *h, hunt_found *fds, const toi_answer *ans, size_t n) {
  h->fds = fds;
  h->ans = ans;
  h->n = n;
  sweep_run run;
  memset(&run, 0, sizeof run);
  run.jobs = h->o->jobs;
  run.nchunks = (n + SCORE_CHUNK - 1) / SCORE_CHUNK;
  run.fn = score_chunk;
  run.ctx = h;
  run.total = n;
  run.what = "toibench hunt";
  return n && sweep_parallel(&run) ? -1 : 0;
}

/* One candidate call; what went wrong stays in ans[] (the hosts isolate it). */
static int call(search *h, const toi_case *cases, size_t n, toi_answer *ans) {
  hunt_result *r = h->r;
  const hunt_opts *o = h->o;
  toi_run_info info;
  toi_solve_opts so = {o->tmax, o->timeout, o->quota, o->msg};
  if (toi_candidate_run(h->cand, cases, n, &so, ans, &info)) return -1;
  r->sent += n;
  r->malfunctions += info.malfunctions;
  r->protocol_errors += info.protocol_errors;
  for (size_t i = 0; i < n; i++) {
    r->failed += ans[i].state == TOI_FAILED;
    r->declined += ans[i].state == TOI_UNSUPPORTED;
    if (ans[i].state != TOI_ANSWERED) continue;
    r->stated += isfinite(ans[i].target);
    r->aimed += (isfinite(ans[i].target) ? ans[i].target : o->delta) != 0;
  }
  if (o->progress) {
    char line[160];
    snprintf(line, sizeof line, "toibench hunt %s: %" PRIu64 " cases sent, %" PRIu64 " failed", h->cand->name,
             r->sent, r->failed);
    o->progress->status(o->progress->ud, line);
  }
  return 0;
}

/* A failed answer joins the fail list; `order` numbers cases in the order sent. */
static void offer_failure(search *h, hunt_found *fd, uint64_t order, const char *why) {
  size_t len = strlen(fd->note);
  snprintf(fd->note + len, sizeof fd->note - len, ": %s", why);
  fd->index = order;
  hunt_list_offer(&h->r->lists[HUNT_L_FAIL], fd, h->o->keep, 1);
}

/* Cases 0 .. global-1 in batches: generated, one call, scored on the workers,
 * filed in index order. */
static int global_pass(search *h, toi_case *cases, toi_answer *ans, hunt_found *fds) {
  const hunt_opts *o = h->o;
  uint64_t nb = (h->r->global + BATCH - 1) / BATCH;
  for (uint64_t b = 0; (b = hunt_dist_next(o, b, nb)) < nb; b++) {
    uint64_t lo = b * BATCH;
    size_t n = h->r->global - lo < BATCH ? (size_t)(h->r->global - lo) : BATCH, bin;
    for (size_t j = 0; j < n; j++)
      if (toi_gen_case(&cases[j], NULL, &bin, o->g, lo + j) != TOI_OK) return -1;
    if (call(h, cases, n, ans)) return -1;
    for (size_t j = 0; j < n; j++) {
      memset(&fds[j], 0, sizeof fds[j]);
      fds[j].c = cases[j];
      fds[j].index = lo + j;
    }
    if (score_all(h, fds, ans, n)) return -1;
    for (size_t j = 0; j < n; j++) {
      if (ans[j].state == TOI_UNSUPPORTED) continue;
      if (ans[j].state == TOI_FAILED) {
        snprintf(fds[j].note, sizeof fds[j].note, "global pass, case %" PRIu64 " (%s)", lo + j, fds[j].c.id);
        offer_failure(h, &fds[j], lo + j, ans[j].why);
      } else {
        hunt_file(h->r->lists, &fds[j], fds[j].tkind, o->keep, lo + j);
      }
    }
  }
  return 0;
}

static const char *key_name(const hunt_found *f) {
  return f->by == HUNT_BY_RATIO ? "ratio" : f->target == 0 ? "ulp" : "ulp_t";
}

/* Per kept case during the local search. */
typedef hunt_walk walk;

/* The proposals of round r: `per` moves of each kept case from its own
 * generator, with IDs unique within the call (a repeated ID would cost the
 * subprocess protocol a second process). Returns their number. */
static size_t propose(search *h, const hunt_found *cands, walk *w, uint64_t r, toi_case *props, uint64_t *from) {
  size_t m = 0;
  uint64_t per = h->r->per;
  for (int k = 0; k < h->r->ncands; k++)
    for (uint64_t p = 0; p < per && hunt_dist_mine(h->o, k); p++) {
      toi_case c = cands[k].c;
      if (!hunt_perturb(&w[k].rng, &c, h->cand->precision)) continue;
      snprintf(c.id, sizeof c.id, "%.32s.r%u.c%u.p%u", cands[k].c.id, (unsigned)(r % 100000), (unsigned)(k % 1000),
               (unsigned)(p % 100000));
      from[m] = (uint64_t)k * per + p;
      props[m++] = c;
    }
  return m;
}

/* The flip note: the step of a walk, the round and proposal of a batched search. */
static void flip_note(const search *h, hunt_found *fl, const hunt_found *cur, uint64_t r, uint64_t p) {
  if (h->cand->flags & TOI_CAND_OUT_OF_PROCESS)
    snprintf(fl->note, sizeof fl->note,
             "local search from global case %" PRIu64 " (%s, %s %.6g), round %" PRIu64 ", proposal %" PRIu64
             " flipped the classification",
             cur->index, cur->c.id, key_name(cur), hunt_key(cur), r + 1, p + 1);
  else
    snprintf(fl->note, sizeof fl->note,
             "local search from global case %" PRIu64 " (%s, %s %.6g), step %" PRIu64 " flipped the classification",
             cur->index, cur->c.id, key_name(cur), hunt_key(cur), r + 1);
}

/* One scored proposal j (from kept case k, proposal p) of round r. */
static void fold(search *h, hunt_found *cands, walk *w, hunt_found *fd, const toi_answer *a, uint64_t r, uint64_t j,
                 uint64_t from, const toi_case *sent) {
  uint64_t per = h->r->per;
  int k = (int)(from / per);
  uint64_t p = from % per;
  if (a->state == TOI_UNSUPPORTED) return;
  if (a->state == TOI_FAILED) {
    snprintf(fd->note, sizeof fd->note,
             "local search from global case %" PRIu64 " (%s), round %" PRIu64 ", proposal %" PRIu64 " (sent as %s)",
             cands[k].index, cands[k].c.id, r + 1, p + 1, sent->id);
    offer_failure(h, fd, j, a->why);
  } else if (hunt_misclassified(fd->tkind)) {
    if (w[k].has_flip) return;
    w[k].flip = *fd;
    flip_note(h, &w[k].flip, &cands[k], r, p);
    w[k].has_flip = 1;
  } else if (isfinite(fd->err) && !isnan(hunt_key(fd)) && (!w[k].has_best || hunt_key(fd) > hunt_key(&w[k].best))) {
    w[k].best = *fd;
    w[k].has_best = 1;
  }
}

/* One round: the proposals, one call, scored on the workers in slices of
 * BATCH, folded in order; then each kept case moves to its best proposal
 * (the earliest of equal keys) when that does not lower its key. */
static int round_of(search *h, hunt_found *cands, walk *w, uint64_t r, toi_case *props, toi_answer *ans,
                    uint64_t *from, hunt_found *fds) {
  size_t m = propose(h, cands, w, r, props, from);
  uint64_t base = h->r->sent;
  if (m && call(h, props, m, ans)) return -1;
  for (int k = 0; k < h->r->ncands; k++) w[k].has_best = 0;
  for (size_t lo = 0; lo < m; lo += BATCH) {
    size_t n = m - lo < BATCH ? m - lo : BATCH;
    for (size_t j = 0; j < n; j++) {
      const hunt_found *c = &cands[from[lo + j] / h->r->per];
      fds[j] = *c;
      fds[j].c = props[lo + j];
      memcpy(fds[j].c.id, c->c.id, sizeof fds[j].c.id);
    }
    if (score_all(h, fds, &ans[lo], n)) return -1;
    for (size_t j = 0; j < n; j++)
      fold(h, cands, w, &fds[j], &ans[lo + j], r,
           h->o->dist ? h->r->global + r * (uint64_t)h->r->ncands * h->r->per + from[lo + j] : base + lo + j,
           from[lo + j], &props[lo + j]);
  }
  for (int k = 0; k < h->r->ncands; k++)
    if (w[k].has_best && hunt_key(&w[k].best) >= hunt_key(&cands[k])) {
      w[k].raised += hunt_key(&w[k].best) > hunt_key(&cands[k]);
      cands[k] = w[k].best;
    }
  return 0;
}

/* The final note of a kept case: steps of a walk, or rounds of proposals. */
static void final_note(const search *h, hunt_found *c, const walk *w) {
  const hunt_result *r = h->r;
  if (h->cand->flags & TOI_CAND_OUT_OF_PROCESS)
    snprintf(c->note, sizeof c->note,
             "global pass case %" PRIu64 " (%s, %s %.6g), then local search: %" PRIu64 " rounds of %" PRIu64
             " proposals, %" PRIu64 " moves raised it, %s %.6g; kappa %.6g, ratio %.6g",
             c->index, c->c.id, key_name(c), w->start, r->rounds, r->per, w->raised, key_name(c), hunt_key(c),
             c->kappa, c->ratio);
  else
    snprintf(c->note, sizeof c->note,
             "global pass case %" PRIu64 " (%s, %s %.6g), then local search: %" PRIu64 " steps, %" PRIu64
             " raised it, %s %.6g; kappa %.6g, ratio %.6g",
             c->index, c->c.id, key_name(c), w->start, r->rounds, w->raised, key_name(c), hunt_key(c), c->kappa,
             c->ratio);
}

/* The local search around the kept cases; flips join the classification
 * errors while there is room. 0 or -1. */
static int local_search(search *h, hunt_found *cands, hunt_found *fds) {
  int nc = h->r->ncands;
  size_t cap = (size_t)nc * h->r->per + 1; /* + 1: no zero-size allocation when there is no round */
  walk *w = calloc((size_t)nc, sizeof *w);
  toi_case *props = malloc(cap * sizeof *props);
  toi_answer *ans = malloc(cap * sizeof *ans);
  uint64_t *from = malloc(cap * sizeof *from); /* kept case * per + proposal */
  int rc = -1;
  if (!w || !props || !ans || !from) goto done;
  for (int k = 0; k < nc; k++) {
    toi_rng_seed_item(&w[k].rng, h->o->g->seed, HUNT_STREAM + (uint64_t)cands[k].by, cands[k].index);
    w[k].start = hunt_key(&cands[k]);
  }
  int failed = 0;
  for (uint64_t r = 0; r < h->r->rounds && !failed; r++) failed = round_of(h, cands, w, r, props, ans, from, fds) != 0;
  for (int k = 0; k < nc; k++) final_note(h, &cands[k], &w[k]);
  if (h->o->dist) failed = hunt_dist_local(h->o, h->r, cands, w, failed);
  if (failed) goto done;
  hunt_list *bad = &h->r->lists[HUNT_L_BAD];
  for (int k = 0; k < nc; k++)
    if (w[k].has_flip && bad->n < h->o->keep) bad->items[bad->n++] = w[k].flip;
  rc = 0;
done:
  free(w);
  free(props);
  free(ans);
  free(from);
  return rc;
}

/* How the rest of the budget is spent on ncands kept cases: an in-process
 * candidate walks one move per round (one evaluation a step); an
 * out-of-process one gets a few dozen rounds of `per` proposals each, the
 * whole round one call. No round at all when the budget cannot give every
 * kept case one proposal. */
static void plan_rounds(hunt_result *r, const toi_candidate *cand, uint64_t rest) {
  uint64_t nc = (uint64_t)r->ncands;
  r->rounds = r->per = 0;
  if (!nc) return;
  r->rounds = rest / nc;
  if (!(cand->flags & TOI_CAND_OUT_OF_PROCESS)) {
    r->per = 1;
    return;
  }
  if (r->rounds > MAX_ROUNDS) r->rounds = MAX_ROUNDS;
  r->per = r->rounds ? rest / (r->rounds * nc) : 0;
  if (r->per * nc > ROUND_CASES) {
    r->per = ROUND_CASES / nc;
    r->rounds = rest / (r->per * nc);
  }
}

/* A candidate computing in another precision than binary64: every note says
   so (binary64 notes keep their bytes). */
static void note_precision(hunt_result *r, toi_precision q) {
  hunt_list *all[HUNT_L_COUNT + 2];
  for (int k = 0; k < HUNT_L_COUNT; k++) all[k] = &r->lists[k];
  all[HUNT_L_COUNT] = &r->best[0];
  all[HUNT_L_COUNT + 1] = &r->best[1];
  for (int k = 0; k < HUNT_L_COUNT + 2; k++)
    for (int i = 0; i < all[k]->n; i++) {
      char *note = all[k]->items[i].note;
      size_t len = strlen(note);
      snprintf(note + len, sizeof all[k]->items[i].note - len, "; in %s: inputs rounded to it, errors in its ulps",
               toi_precision_name(q));
    }
}

int hunt_search(hunt_result *r, const toi_candidate *cand, const hunt_opts *o) {
  memset(r, 0, sizeof *r);
  r->global = o->budget / 2;
  search h = {cand, o, r, NULL, NULL, 0, TOI_OK};
  toi_case *cases = malloc(BATCH * sizeof *cases);
  toi_answer *ans = malloc(BATCH * sizeof *ans);
  hunt_found *fds = malloc(BATCH * sizeof *fds);
  hunt_found *cands = calloc(2 * HUNT_MAXKEEP, sizeof *cands);
  int rc = -1;
  if (!cases || !ans || !fds || !cands) {
    toi_msgf(o->msg, "hunt: out of memory");
    goto done;
  }
  int bad = global_pass(&h, cases, ans, fds) != 0;
  if (o->dist) bad = hunt_dist_global(o, r, (r->global + BATCH - 1) / BATCH, bad);
  if (bad) goto failed;
  for (int k = HUNT_L_ULP; k <= HUNT_L_RATIO; k++)
    for (int i = 0; i < r->lists[k].n; i++) cands[r->ncands++] = r->lists[k].items[i];
  plan_rounds(r, cand, o->budget - r->global);
  if (r->ncands && local_search(&h, cands, fds)) goto failed;
  if (o->progress) o->progress->note(o->progress->ud, "");
  for (int k = 0; k < r->ncands; k++) hunt_list_offer(&r->best[cands[k].by], &cands[k], o->keep, 0);
  if (cand->precision != TOI_BINARY64) note_precision(r, cand->precision);
  rc = 0;
  goto done;
failed:
  if (cand->flags & TOI_CAND_EXTERNAL)
    toi_msgf(o->msg, "hunt: solver %s: the run, the reference or scoring failed", cand->name);
  else
    toi_msgf(o->msg, "hunt: the reference or scoring failed");
done:
  free(cases);
  free(ans);
  free(fds);
  free(cands);
  return rc;
}
