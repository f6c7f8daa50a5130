/* sweep_drive.c: a family generated and scored in a constant-memory parallel stream, for any candidates. */
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "solvers.h"
#include "sweep.h"

/* Cases per unit of work: large enough to amortise the atomic counter, small
   enough to balance the threads and to keep the progress line moving. */
#define CHUNK 1024
/* Cases scored together inside a chunk: generated, solved by the reference
   (one batch), by each candidate (one call each), then scored case by case.
   The buffers of a span stay in a core's cache; the profile reads the clock
   once per phase of a span, not per case. */
#define SPAN SWEEP_SPAN_MAX
/* A column's row of answers: SPAN and three more, so that the columns' answers
   to one case (read together) are not 4 KiB apart, where they would share
   the few ways of one set of the first-level cache. */
#define ANS_STRIDE (SPAN + 3)
/* Cases per call of an out-of-process candidate: a child process per
   candidate per block, so the start-up of a slow solver is amortised; memory
   stays a few MB per candidate. A multiple of CHUNK. */
#define BLOCK 16384

/* A worker's buffers for one span and its share of the profile, aligned on
   cache lines of its own (allocated apart per worker). */
typedef struct sweep_scratch {
  toi_case cases[SPAN];
  size_t bins[SPAN];
  toi_ref ref[SPAN];
  toi_status st[SPAN];
  uint16_t order[SPAN]; /* the span's positions in the order they are scored */
  toi_answer one[64];   /* a candidate's toi_answer for part of a span */
  sweep_answer *ans;    /* [column][ANS_STRIDE], the first SPAN of each row used */
  sweep_profile prof;
} sweep_scratch;

typedef struct sweep_ctx {
  const sweep_opts *o;
  const toi_candidate *cands;
  size_t nc;
  sweep_acc *accs;
  sweep_scratch **scratch; /* [worker] */
  sweep_profile main_prof; /* what the calling thread does alone: out-of-process candidates */
  sweep_run *run;
  /* With out-of-process candidates: the block [blo, blo + bn), its cases,
     bins and answers ([candidate][BLOCK], only theirs); gen_only: the pass
     that generates the block. */
  uint64_t blo;
  size_t bn;
  toi_case *cases;
  size_t *bins;
  toi_answer *ans;
  size_t slot[SWEEP_MAXFORMS]; /* a candidate's row of ans */
  size_t nslots;
  int gen_only;
  pthread_mutex_t lock;
  uint64_t err_index;
  toi_status err_status;
  int failed;
} sweep_ctx;

/* Records the lowest failing case index; returns 1 to stop the workers. */
static int chunk_failed(sweep_ctx *x, uint64_t i, toi_status st) {
  pthread_mutex_lock(&x->lock);
  if (!x->failed || i < x->err_index) {
    x->failed = 1;
    x->err_index = i;
    x->err_status = st;
  }
  pthread_mutex_unlock(&x->lock);
  return 1;
}

/* Seconds since *t, and *t moved to now: the profile's clock, read only when profiling. */
static double lap(double *t) {
  double now = sweep_now(), d = now - *t;
  *t = now;
  return d;
}

/* Every in-process column's answers to cases[0..n-1] into w->ans, one call
   per candidate and part; a candidate that cannot be run leaves SWEEP_NOT_RUN. */
static void solve_columns(sweep_ctx *x, sweep_scratch *w, const toi_case *cases, size_t n, int prof, double *t) {
  const size_t part = sizeof w->one / sizeof w->one[0];
  for (size_t j = 0; j < x->nc; j++) {
    const toi_candidate *cand = &x->cands[j];
    if (cand->flags & TOI_CAND_OUT_OF_PROCESS) continue;
    sweep_answer *col = &w->ans[j * ANS_STRIDE];
    for (size_t k0 = 0; k0 < n; k0 += part) {
      size_t m = n - k0 < part ? n - k0 : part;
      toi_run_info info;
      int rc = toi_candidate_run(cand, &cases[k0], m, NULL, w->one, &info);
      for (size_t k = 0; k < m; k++) {
        col[k0 + k].state = rc ? SWEEP_NOT_RUN : (int)w->one[k].state;
        col[k0 + k].r = w->one[k].r;
      }
    }
    if (prof) w->prof.cand[j] += lap(t);
  }
}

/* The positions 0..n-1 of a span into order, stably by their bins and,
   within a bin, by their exact classes (ref; TOI_NONE where the reference
   failed, st) when there are at most SPAN_SORT_BINS bins, else as they are;
   returns n. A bin's cells stay in the core's cache, and cases of one class
   follow one another: their columns mostly take the same ways through the
   scoring (timed or not, misclassified or not), which the processor then
   predicts. */
#define SPAN_SORT_BINS 64
static size_t span_order(uint16_t *order, const size_t *bins, const toi_ref *ref, const toi_status *st, size_t n,
                         size_t nbins) {
  enum { NCLS = TOI_CLASS_COUNT };
  size_t start[SPAN_SORT_BINS * NCLS + 1];
  for (size_t k = 0; k < n && nbins <= SPAN_SORT_BINS; k++)
    if (bins[k] >= nbins) nbins = SPAN_SORT_BINS + 1; /* not a bin: left where it is */
  if (nbins > SPAN_SORT_BINS) {
    for (size_t k = 0; k < n; k++) order[k] = (uint16_t)k;
    return n;
  }
  uint16_t key[SPAN];
  for (size_t k = 0; k < n; k++) {
    const unsigned c = st[k] == TOI_OK && (unsigned)ref[k].cls < NCLS ? (unsigned)ref[k].cls : TOI_NONE;
    key[k] = (uint16_t)(bins[k] * NCLS + c);
  }
  const size_t nkeys = nbins * NCLS;
  memset(start, 0, (nkeys + 1) * sizeof start[0]);
  for (size_t k = 0; k < n; k++) start[key[k] + 1]++;
  for (size_t b = 0; b < nkeys; b++) start[b + 1] += start[b];
  for (size_t k = 0; k < n; k++) order[start[key[k]]++] = (uint16_t)k;
  return n;
}

/* Scores the span cases[0..n-1] (case indexes index0 ..; with out-of-process
   candidates, at offset at of the block, whose stored answers they use) into
   worker's accumulator. 0, or 1 after recording the first failing case. */
static int score_span(sweep_ctx *x, int worker, const toi_case *cases, const size_t *bins, size_t n,
                      uint64_t index0, size_t at) {
  sweep_scratch *w = x->scratch[worker];
  int prof = x->o->profile != NULL;
  double t = prof ? sweep_now() : 0;
  toi_ref_query rq = TOI_REF_QUERY_INIT;
  rq.engine = x->o->engine;
  /* A refused call sets every st[k] to TOI_ERR_RANGE, which the loop below reports. */
  toi_status bst = toi_ref_solve_batch(w->ref, w->st, cases, n, &rq, NULL);
  (void)bst;
  if (prof) w->prof.ref += lap(&t);
  solve_columns(x, w, cases, n, prof, &t);
  for (size_t s = 0; s < x->nc && x->nslots; s++) {
    if (!(x->cands[s].flags & TOI_CAND_OUT_OF_PROCESS)) continue;
    const toi_answer *stored = &x->ans[x->slot[s] * BLOCK + at];
    for (size_t k = 0; k < n; k++) {
      w->ans[s * ANS_STRIDE + k].state = (int)stored[k].state;
      w->ans[s * ANS_STRIDE + k].r = stored[k].r;
    }
  }
  /* Bin by bin, so that the cells of one bin stay in the core's cache: the
     accumulator does not depend on the order (sweep.h), and a failure is
     that of the lowest index, as in index order. */
  size_t nord = span_order(w->order, bins, w->ref, w->st, n, x->accs[worker].nbins);
  size_t fail;
  toi_status fst = sweep_eval_span(&x->accs[worker], x->cands, x->nc, w->ans, ANS_STRIDE, x->o->tmax, cases, bins,
                                   w->order, nord, index0, x->o->engine, w->ref, w->st, &fail);
  if (fst != TOI_OK) return chunk_failed(x, index0 + fail, fst);
  if (prof) {
    w->prof.score += lap(&t);
    w->prof.cases += n;
  }
  return 0;
}

/* Generates the cases [lo, lo + n) into cases and bins; the number generated
   before the first failure (whose index and status go to *fail, *fst): all
   of them, or none when the options are refused (toi_gen_cases). */
static size_t gen_span(const sweep_opts *o, toi_case *cases, size_t *bins, uint64_t lo, size_t n, int ids,
                       uint64_t *fail, toi_status *fst) {
  toi_status st = toi_gen_cases(cases, bins, o->g, lo, n, ids);
  if (st == TOI_OK) return n;
  *fail = lo;
  *fst = st;
  return 0;
}

/* A chunk when every candidate runs in this process: generated and scored,
   span by span. A failure is that of the lowest case index. */
static int stream_chunk(void *vctx, int worker, uint64_t chunk) {
  sweep_ctx *x = vctx;
  sweep_scratch *w = x->scratch[worker];
  uint64_t lo = x->o->start + chunk * CHUNK;
  uint64_t hi = x->o->end - lo < CHUNK ? x->o->end : lo + CHUNK;
  for (uint64_t s = lo; s < hi; s += SPAN) {
    size_t n = hi - s < SPAN ? (size_t)(hi - s) : SPAN;
    uint64_t fail = 0;
    toi_status fst = TOI_OK;
    double t = x->o->profile ? sweep_now() : 0;
    size_t ok = gen_span(x->o, w->cases, w->bins, s, n, 0, &fail, &fst); /* IDs: witnesses only (name_witnesses) */
    if (x->o->profile) w->prof.gen += lap(&t);
    if (score_span(x, worker, w->cases, w->bins, ok, s, 0)) return 1;
    if (ok < n) return chunk_failed(x, fail, fst);
  }
  atomic_fetch_add(&x->run->done, hi - lo);
  return 0;
}

/* A chunk of the current block: generated (gen_only), or scored with the
   out-of-process candidates' stored answers. */
static int block_chunk(void *vctx, int worker, uint64_t chunk) {
  sweep_ctx *x = vctx;
  size_t lo = (size_t)chunk * CHUNK, hi = x->bn - lo < CHUNK ? x->bn : lo + CHUNK;
  for (size_t k = lo; k < hi; k += SPAN) {
    size_t n = hi - k < SPAN ? hi - k : SPAN;
    if (!x->gen_only) {
      if (score_span(x, worker, &x->cases[k], &x->bins[k], n, x->blo + k, k)) return 1;
      continue;
    }
    uint64_t fail = 0;
    toi_status fst = TOI_OK;
    double t = x->o->profile ? sweep_now() : 0;
    size_t ok = gen_span(x->o, &x->cases[k], &x->bins[k], x->blo + k, n, 1, &fail, &fst); /* solvers see IDs */
    if (x->o->profile) x->scratch[worker]->prof.gen += lap(&t);
    if (ok < n) return chunk_failed(x, fail, fst);
  }
  if (!x->gen_only) atomic_fetch_add(&x->run->done, hi - lo);
  return 0;
}

/* Runs one pass over the workers: the stream, or a pass of the current block. */
static int pass(sweep_ctx *x, sweep_chunk_fn fn, uint64_t n, const toi_progress *progress, int gen_only) {
  sweep_run run;
  memset(&run, 0, sizeof run);
  run.jobs = x->o->jobs;
  run.nchunks = (n + CHUNK - 1) / CHUNK;
  run.fn = fn;
  run.ctx = x;
  run.total = n;
  run.progress = progress;
  run.what = "toibench sweep";
  x->run = &run;
  x->gen_only = gen_only;
  int rc = sweep_parallel(&run);
  x->run = NULL;
  return rc;
}

/* Calls every out-of-process candidate on the current block from this thread
   alone (no other thread runs while a child process is forked) and tallies
   its failures. 0, or -2 when one could not be run (said to msg). */
static int call_block(sweep_ctx *x, sweep_tally *tally) {
  const sweep_opts *o = x->o;
  for (size_t s = 0; s < x->nc; s++) {
    const toi_candidate *cand = &x->cands[s];
    if (!(cand->flags & TOI_CAND_OUT_OF_PROCESS)) continue;
    toi_answer *ans = &x->ans[x->slot[s] * BLOCK];
    toi_run_info info;
    sweep_tally *t = &tally[s];
    toi_solve_opts so = {o->tmax, o->timeout, &t->quota, o->msg};
    double t0 = o->profile ? sweep_now() : 0;
    int rc = toi_candidate_run(cand, x->cases, x->bn, &so, ans, &info);
    if (o->profile) x->main_prof.cand[s] += sweep_now() - t0;
    if (rc) {
      toi_msgf(o->msg, "sweep: solver %s could not be run", cand->name);
      return -2;
    }
    t->malfunctions += info.malfunctions;
    t->protocol_errors += info.protocol_errors;
    for (size_t k = 0; k < x->bn; k++) {
      if (ans[k].state == TOI_UNSUPPORTED) t->declined++;
      if (ans[k].state != TOI_FAILED) continue;
      t->failed++;
      if (t->failed <= TOI_FAILURES_SHOWN)
        toi_msgf(o->msg, "solver %s: case %s: %s", cand->name, x->cases[k].id, ans[k].why);
    }
  }
  return 0;
}

/* Block by block: the workers generate the block, the out-of-process
   candidates are called on it, then the workers score it. Returns 0, nonzero
   when the workers failed (x->failed says why) or could not start, -2 when a
   candidate could not be run or memory ran out (said to msg). */
static int sweep_blocks(sweep_ctx *x, sweep_tally *tally) {
  const sweep_opts *o = x->o;
  x->cases = malloc(BLOCK * sizeof *x->cases);
  x->bins = malloc(BLOCK * sizeof *x->bins);
  x->ans = malloc(x->nslots * BLOCK * sizeof *x->ans);
  int rc = 0;
  if (!x->cases || !x->bins || !x->ans) {
    toi_msgf(o->msg, "sweep: out of memory");
    rc = -2;
  }
  double t0 = sweep_now();
  for (uint64_t lo = o->start; lo < o->end && !rc; lo += BLOCK) {
    x->blo = lo;
    x->bn = o->end - lo < BLOCK ? (size_t)(o->end - lo) : BLOCK;
    if ((rc = pass(x, block_chunk, x->bn, NULL, 1))) break;
    rc = call_block(x, tally);
    if (!rc) rc = pass(x, block_chunk, x->bn, NULL, 0);
    if (o->progress && !rc)
      o->progress->show(o->progress->ud, "toibench sweep", lo + x->bn - o->start, o->end - o->start,
                        sweep_now() - t0, lo + x->bn == o->end);
  }
  free(x->cases);
  free(x->bins);
  free(x->ans);
  return rc;
}

/* Frees the workers' buffers. */
static void scratch_free(sweep_ctx *x) {
  for (int w = 0; x->scratch && w < x->o->jobs; w++) {
    if (x->scratch[w]) free(x->scratch[w]->ans);
    free(x->scratch[w]);
  }
  free(x->scratch);
  x->scratch = NULL;
}

/* Each worker's span buffers, on cache lines of their own; 0 or -1. */
static int scratch_init(sweep_ctx *x) {
  x->scratch = calloc((size_t)x->o->jobs, sizeof *x->scratch);
  if (!x->scratch) return -1;
  for (int w = 0; w < x->o->jobs; w++) {
    void *p = NULL;
    if (posix_memalign(&p, 64, (sizeof(sweep_scratch) + 63) / 64 * 64)) break;
    x->scratch[w] = p;
    memset(p, 0, sizeof(sweep_scratch));
    x->scratch[w]->ans = malloc((x->nc ? x->nc : 1) * ANS_STRIDE * sizeof(sweep_answer));
    if (!x->scratch[w]->ans) break;
    if (w == x->o->jobs - 1) return 0;
  }
  scratch_free(x);
  return -1;
}

/* One accumulator per worker; 0 or -1. */
static int accs_init(sweep_ctx *x, size_t nbins) {
  x->accs = calloc((size_t)x->o->jobs, sizeof *x->accs);
  for (int w = 0; x->accs && w < x->o->jobs; w++)
    if (sweep_acc_init(&x->accs[w], x->nc, nbins)) {
      for (int k = 0; k < w; k++) sweep_acc_free(&x->accs[k]);
      free(x->accs);
      x->accs = NULL;
    }
  if (x->accs && scratch_init(x)) {
    for (int k = 0; k < x->o->jobs; k++) sweep_acc_free(&x->accs[k]);
    free(x->accs);
    x->accs = NULL;
  }
  return x->accs ? 0 : -1;
}

/* Adds p to the profile sum. */
static void profile_add(sweep_profile *sum, const sweep_profile *p, size_t nc) {
  sum->gen += p->gen;
  sum->ref += p->ref;
  sum->score += p->score;
  sum->cases += p->cases;
  for (size_t j = 0; j < nc; j++) sum->cand[j] += p->cand[j];
}

/* The IDs of the witnesses' cases, which the stream generates without them
   (an ID costs more to write than a case to score, and only witnesses show
   theirs): generated again from their indexes. 0, or -1 (said to msg). */
static int name_witnesses(sweep_acc *a, const sweep_opts *o) {
  for (size_t i = 0; i < a->nform * a->nbins; i++)
    for (int w = 0; w < SW_WHAT_COUNT; w++) {
      sweep_witness *x = &a->cells[i].w[w];
      if (!x->set || x->c.id[0]) continue;
      toi_case c;
      size_t bin;
      if (toi_gen_case(&c, NULL, &bin, o->g, x->index) != TOI_OK) {
        toi_msgf(o->msg, "sweep: case %" PRIu64 " cannot be generated again", x->index);
        return -1;
      }
      memcpy(x->c.id, c.id, sizeof c.id);
    }
  return 0;
}

int sweep_drive(sweep_acc *out, const toi_candidate *cands, size_t nc, size_t nbins, const sweep_opts *o,
                sweep_tally *tally) {
  sweep_ctx x;
  memset(&x, 0, sizeof x);
  memset(out, 0, sizeof *out);
  x.o = o;
  x.cands = cands;
  x.nc = nc;
  if (nc > SWEEP_MAXFORMS || accs_init(&x, nbins)) {
    toi_msgf(o->msg, "sweep: out of memory");
    return -1;
  }
  pthread_mutex_init(&x.lock, NULL);
  for (size_t k = 0; k < nc; k++)
    if (cands[k].flags & TOI_CAND_OUT_OF_PROCESS) x.slot[k] = x.nslots++;
  int prc = x.nslots ? sweep_blocks(&x, tally) : pass(&x, stream_chunk, o->end - o->start, o->progress, 0);
  if (prc && x.failed)
    toi_msgf(o->msg, "sweep: the reference or scoring failed (status %d) on case %" PRIu64, (int)x.err_status,
             x.err_index);
  else if (prc && prc != -2)
    toi_msgf(o->msg, "sweep: could not start threads");
  for (int w = 0; w < o->jobs && o->profile; w++) profile_add(o->profile, &x.scratch[w]->prof, nc);
  if (o->profile) profile_add(o->profile, &x.main_prof, nc);
  scratch_free(&x);
  for (int w = 1; w < o->jobs && !prc; w++) sweep_acc_merge(&x.accs[0], &x.accs[w]);
  if (!prc && name_witnesses(&x.accs[0], o)) prc = -2;
  if (!prc) *out = x.accs[0];
  for (int w = prc ? 0 : 1; w < o->jobs; w++) sweep_acc_free(&x.accs[w]);
  free(x.accs);
  pthread_mutex_destroy(&x.lock);
  return prc ? -1 : 0;
}

int sweep_finish(const toi_candidate *cands, size_t nc, const sweep_tally *tally, const toi_msg *msg) {
  int bad = 0;
  for (size_t k = 0; k < nc; k++) {
    if (!(cands[k].flags & TOI_CAND_EXTERNAL)) continue;
    const sweep_tally *t = &tally[k];
    const char *name = cands[k].name;
    if (t->failed > TOI_FAILURES_SHOWN)
      toi_msgf(msg, "solver %s: %" PRIu64 " more failed cases not shown", name, t->failed - TOI_FAILURES_SHOWN);
    solver_quota_report(name, &t->quota, msg);
    if (t->failed || t->declined)
      toi_msgf(msg, "solver %s: %" PRIu64 " failed and %" PRIu64 " declined cases not scored (counted in OUT_OF_DOMAIN)",
               name, t->failed, t->declined);
    if (t->malfunctions || t->protocol_errors) {
      toi_msgf(msg,
               "solver %s: %" PRIu64 " case%s lost to crashes, hangs or protocol errors; %" PRIu64
               " protocol error%s outside any case",
               name, t->malfunctions, t->malfunctions == 1 ? "" : "s", t->protocol_errors,
               t->protocol_errors == 1 ? "" : "s");
      bad = 1;
    }
  }
  return bad;
}

static double max_nan(double a, double b) { return isnan(a) || b > a ? b : a; }
static double min_nan(double a, double b) { return isnan(a) || b < a ? b : a; }

/* A candidate's cells summed over the bins. */
static void fold_cells(toi_sweep_stats *st, const sweep_acc *acc, size_t k) {
  memset(st, 0, sizeof *st);
  st->max_ulp = st->max_bits = st->kappa_min = st->kappa_max = st->max_ratio = NAN;
  for (size_t b = 0; b < acc->nbins; b++) {
    const sweep_cell *c = &acc->cells[k * acc->nbins + b];
    st->cases += c->cases;
    st->out_of_domain += c->kind[TOI_SCORE_OUT_OF_DOMAIN];
    st->agree += c->kind[TOI_SCORE_AGREE];
    st->missed += c->kind[TOI_SCORE_MISSED];
    st->ghost += c->kind[TOI_SCORE_GHOST];
    st->other += c->kind[TOI_SCORE_OTHER];
    st->timed += c->timed;
    st->kappa_inf += c->kinf;
    if (!isnan(c->max_ulp)) st->max_ulp = max_nan(st->max_ulp, c->max_ulp);
    if (!isnan(c->max_bits)) st->max_bits = max_nan(st->max_bits, c->max_bits);
    if (!isnan(c->kmin)) st->kappa_min = min_nan(st->kappa_min, c->kmin);
    if (!isnan(c->kmax)) st->kappa_max = max_nan(st->kappa_max, c->kmax);
    if (!isnan(c->max_ratio)) st->max_ratio = max_nan(st->max_ratio, c->max_ratio);
  }
  st->in_domain = st->cases - st->out_of_domain;
}

toi_status toi_bench_sweep(toi_sweep_stats *stats, const toi_candidate *cands, size_t nc, const toi_gen_opts *g,
                           uint64_t count, int jobs, const toi_bench_opts *o) {
  if (!stats || !g || !o || (nc && !cands)) return TOI_ERR_RANGE;
  sweep_opts so = {g, 0, count, jobs < 1 ? 1 : jobs, NULL, o->tmax, o->timeout, o->engine, o->msg, NULL};
  sweep_tally *tally = calloc(nc ? nc : 1, sizeof *tally);
  sweep_acc acc;
  if (!tally) {
    toi_msgf(o->msg, "sweep: out of memory");
    return TOI_ERR_NOMEM;
  }
  int rc = sweep_drive(&acc, cands, nc, toi_gen_bin_count(g), &so, tally);
  free(tally);
  /* What failed was said to o->msg: a candidate that could not be run, the
     reference, or memory. */
  if (rc) return TOI_ERR_IO;
  for (size_t k = 0; k < nc; k++) fold_cells(&stats[k], &acc, k);
  sweep_acc_free(&acc);
  return TOI_OK;
}
