/* stream.c: case files read, parsed, worked on and written in blocks on a pool of threads, in input order. */
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "rng.h"
#include "stats.h"
#include "stream.h"
#include "tempfile.h"
#include "sweep.h"

/* Bytes of case lines per block at most, so that a file of long lines keeps
   the memory of a block bounded too. */
#define STREAM_BLOCK_BYTES ((size_t)4 << 20)

typedef struct slot {
  toi_line_block lb;
  FILE *out;
  char *obuf;
  size_t olen;
  const char *wtext; /* own_text: what work set */
  size_t wlen;
  int worked, rc;
} slot;

/* The state of one file's stream: three sets of slots, which take turns:
   while one set is parsed and worked on, the next is read and the previous
   one committed, so that the work in input order (the IDs, the output)
   overlaps the parallel work instead of waiting for it. */
#define STREAM_SETS 3
/* Blocks a thread works on each round. */
#define STREAM_PER_JOB 2

typedef struct stream_run {
  const toi_stream_opts *o;
  toi_case_stream *cs;
  slot *set[STREAM_SETS];
  size_t nslots, block, filled[STREAM_SETS];
  int cur;       /* the set worked on this round */
  int to_commit; /* the set worked on last round, or -1 */
  int working;   /* no problem so far: read and written by several threads (atomics) */
  toi_status commit_st;
  toi_diags *dg;
  toi_stream_result *res;
} stream_run;

int toi_stream_slots(const toi_stream_opts *o) {
  return STREAM_SETS * STREAM_PER_JOB * (o->jobs < 1 ? 1 : o->jobs);
}

/* Cases in flight at most (every slot of the three sets full), whatever
   the number of threads, so that memory stays bounded: about 200 bytes a case
   and a block's answers. */
#define STREAM_IN_FLIGHT ((size_t)32768)

static size_t block_cases(const toi_stream_opts *o, size_t nslots) {
  size_t cap = STREAM_IN_FLIGHT / (STREAM_SETS * nslots);
  if (cap < 256) cap = 256;
  size_t b = o->block ? o->block : 1024;
  return b < cap ? b : cap;
}

static int is_working(stream_run *r) { return __atomic_load_n(&r->working, __ATOMIC_ACQUIRE); }
static void stop_working(stream_run *r) { __atomic_store_n(&r->working, 0, __ATOMIC_RELEASE); }

/* Fills the slots of set k from the file, in order, until it ends. */
static void read_set(stream_run *r, int k) {
  r->filled[k] = 0;
  for (size_t i = 0; i < r->nslots; i++) {
    toi_line_block *b = &r->set[k][i].lb;
    toi_status st = toi_case_stream_read(r->cs, b, r->block, STREAM_BLOCK_BYTES);
    if (b->n == 0 || st != TOI_OK) return; /* the problem is reported at close */
    r->filled[k]++;
  }
}

static void slot_drop_out(slot *s) {
  if (s->out) fclose(s->out);
  free(s->obuf);
  s->out = NULL;
  s->obuf = NULL;
  s->olen = 0;
  s->wtext = NULL;
  s->wlen = 0;
}

static toi_status commit_set(stream_run *r, int k);

/* Chunk 0 reads the next set, chunk 1 commits the previous one, the others
   parse and work on the current one. */
static int run_chunk(void *ctx, int worker, uint64_t chunk) {
  (void)worker;
  stream_run *r = ctx;
  if (chunk == 0) {
    read_set(r, (r->cur + 1) % STREAM_SETS);
    return 0;
  }
  if (chunk == 1) {
    if (r->to_commit >= 0) r->commit_st = commit_set(r, r->to_commit);
    return 0;
  }
  size_t i = (size_t)chunk - 2;
  if (i >= r->filled[r->cur]) return 0;
  slot *s = &r->set[r->cur][i];
  toi_line_block_parse(&s->lb);
  s->worked = 0;
  if (!is_working(r) || s->lb.nbad) return 0;
  if (!r->o->own_text && !(s->out = open_memstream(&s->obuf, &s->olen))) {
    s->rc = -1;
    return 0;
  }
  toi_stream_block b = {s->lb.cases, s->lb.n, s->out, r->cur * (int)r->nslots + (int)i, 0, NULL, 0};
  s->rc = r->o->work(r->o->ctx, &b);
  s->wtext = b.text;
  s->wlen = b.text ? b.len : 0;
  s->worked = 1;
  return 0;
}

/* In input order: the checks that need the whole file so far, then commit
   and the output of set k. TOI_OK or TOI_ERR_NOMEM. */
static toi_status commit_set(stream_run *r, int k) {
  toi_stream_result *res = r->res;
  for (size_t i = 0; i < r->filled[k]; i++) {
    slot *s = &r->set[k][i];
    size_t before = r->dg->total;
    toi_status st = toi_case_stream_accept(r->cs, &s->lb, r->dg);
    if (st != TOI_OK) return st;
    if (r->dg->total > before) stop_working(r);
    if (is_working(r) && s->worked) {
      if (s->out && fflush(s->out)) s->rc = -1;
      const char *text = r->o->own_text ? s->wtext : s->obuf;
      size_t len = r->o->own_text ? s->wlen : s->olen;
      toi_stream_block b = {s->lb.cases, s->lb.n, NULL, k * (int)r->nslots + (int)i, s->rc, text, len};
      int rc = r->o->commit ? r->o->commit(r->o->ctx, &b) : s->rc;
      if (rc) {
        res->commit_rc = rc;
        stop_working(r);
      } else {
        if (r->o->out && len && fwrite(text, 1, len, r->o->out) != len) {
          res->commit_rc = -1;
          stop_working(r);
        }
        res->cases += s->lb.n;
      }
    }
    slot_drop_out(s);
  }
  return TOI_OK;
}

/* One file through the pipeline; working says whether blocks are still
   worked on (no problem so far). The file's status. */
static toi_status run_file(stream_run *r, const char *path, toi_stream_result *res) {
  toi_diags dg;
  memset(&dg, 0, sizeof dg);
  toi_status st = toi_case_stream_open(&r->cs, path, &dg);
  if (st == TOI_OK) {
    r->dg = &dg;
    r->res = res;
    r->cur = 0;
    r->to_commit = -1;
    read_set(r, 0);
    while ((r->filled[r->cur] || r->to_commit >= 0) && st == TOI_OK) {
      sweep_run sr;
      memset(&sr, 0, sizeof sr);
      sr.jobs = r->o->jobs;
      sr.nchunks = 2 + r->filled[r->cur];
      sr.fn = run_chunk;
      sr.ctx = r;
      r->commit_st = TOI_OK;
      if (sweep_parallel(&sr)) st = TOI_ERR_NOMEM;
      if (st == TOI_OK) st = r->commit_st;
      r->to_commit = r->filled[r->cur] ? r->cur : -1;
      r->cur = (r->cur + 1) % STREAM_SETS;
    }
    for (int k = 0; k < STREAM_SETS; k++)
      for (size_t i = 0; i < r->nslots; i++) slot_drop_out(&r->set[k][i]);
    toi_status cst = toi_case_stream_close(r->cs, &dg);
    r->cs = NULL;
    r->dg = NULL;
    if (st == TOI_OK) st = cst;
  }
  if (st != TOI_OK) stop_working(r);
  if (r->o->file_done) r->o->file_done(r->o->ctx, path, &dg, st);
  return st;
}

int toi_stream_files(toi_stream_result *res, const toi_stream_opts *o, int nfiles, char **paths) {
  memset(res, 0, sizeof *res);
  stream_run r;
  memset(&r, 0, sizeof r);
  r.o = o;
  r.nslots = (size_t)STREAM_PER_JOB * (size_t)(o->jobs < 1 ? 1 : o->jobs);
  r.block = block_cases(o, r.nslots);
  r.working = 1;
  int rc = 0, have = 1;
  for (int k = 0; k < STREAM_SETS; k++) have &= (r.set[k] = calloc(r.nslots, sizeof *r.set[k])) != NULL;
  if (!have) {
    res->read = TOI_ERR_NOMEM;
    rc = -1;
  }
  for (int f = 0; f < nfiles && !rc; f++) {
    toi_status st = run_file(&r, paths[f], res);
    if (st == TOI_ERR_NOMEM) rc = -1;
    if (st != TOI_OK && (res->read == TOI_OK || st == TOI_ERR_NOMEM)) res->read = st;
  }
  for (int k = 0; k < STREAM_SETS; k++) {
    for (size_t i = 0; i < r.nslots && r.set[k]; i++) toi_line_block_free(&r.set[k][i].lb);
    free(r.set[k]);
  }
  return rc;
}

/* ---- exact quantiles of a stream ---- */

/* Values loaded and sorted once the bucket of the wanted rank holds no more. */
#define QSTREAM_LOAD_MAX ((uint64_t)1 << 20)

/* The order of x as an unsigned key: x < y iff key(x) < key(y). */
static uint64_t qkey(double x) {
  return (uint64_t)toi_double_ord(x) ^ ((uint64_t)1 << 63);
}

int toi_qstream_init(toi_qstream *q) {
  memset(q, 0, sizeof *q);
  q->spill = toi_temp_file();
  return q->spill ? 0 : -1;
}

int toi_qstream_add(toi_qstream *q, const double *v, size_t n) {
  q->n += n;
  return n && fwrite(v, sizeof *v, n, q->spill) != n ? -1 : 0;
}

void toi_qstream_free(toi_qstream *q) {
  if (q->spill) fclose(q->spill);
  memset(q, 0, sizeof *q);
}

/* One pass over the spill, over the values whose key has the top bits
   prefix (above shift + 16): counted by their next 16 bits into h, or, when
   into is not NULL, copied there. 0 or -1. */
static int spill_pass(toi_qstream *q, uint64_t prefix, int shift, uint64_t *h, double *into) {
  if (fflush(q->spill) || fseeko(q->spill, 0, SEEK_SET)) return -1;
  double buf[4096];
  size_t got, k = 0;
  uint64_t left = q->n;
  while (left && (got = fread(buf, sizeof *buf, sizeof buf / sizeof *buf, q->spill)) > 0) {
    left -= got;
    for (size_t i = 0; i < got; i++) {
      uint64_t key = qkey(buf[i]);
      if (shift + 16 < 64 && key >> (shift + 16) != prefix) continue;
      if (into) into[k++] = buf[i];
      else h[(key >> shift) & 0xffff]++;
    }
  }
  if (left) return -1;
  return fseeko(q->spill, 0, SEEK_END);
}

static int cmp_key(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* The k-th smallest of a[0..n-1] (k < n), a reordered: quickselect with a
   three-way partition around the median of three (runs of equal values cost
   one pass), and after 2 log2(n) + 8 rounds without the answer, a sort of
   what is left, so that no input costs more than a sort. */
static uint64_t select_key(uint64_t *a, size_t n, size_t k) {
  size_t lo = 0, hi = n;
  int rounds = 8;
  for (size_t m = n; m > 1; m >>= 1) rounds += 2;
  while (hi - lo > 1) {
    if (rounds-- == 0) {
      qsort(a + lo, hi - lo, sizeof *a, cmp_key);
      return a[k];
    }
    uint64_t x = a[lo], y = a[lo + (hi - lo) / 2], z = a[hi - 1];
    uint64_t p = x < y ? (y < z ? y : x < z ? z : x) : (x < z ? x : y < z ? z : y);
    size_t lt = lo, i = lo, gt = hi; /* [lo, lt) < p, [lt, i) = p, [gt, hi) > p */
    while (i < gt) {
      uint64_t t = a[i];
      if (t < p) {
        a[i++] = a[lt];
        a[lt++] = t;
      } else if (t > p) {
        a[i] = a[--gt];
        a[gt] = t;
      } else {
        i++;
      }
    }
    if (k < lt) hi = lt;
    else if (k >= gt) lo = gt;
    else return p;
  }
  return a[lo];
}

/* The k-th smallest (from 0) of the n values whose key has the top bits
   prefix (above shift + 16), loaded and selected by their keys (the order of
   toi_quantile's sort; -0 and +0, which it does not tell apart, come back as
   +0). */
static int select_loaded(toi_qstream *q, uint64_t prefix, int shift, uint64_t n, uint64_t k, double *out) {
  double *v = malloc((size_t)n * sizeof *v);
  uint64_t *key = malloc((size_t)n * sizeof *key);
  int rc = -1;
  if (v && key && !spill_pass(q, prefix, shift, NULL, v)) {
    for (size_t i = 0; i < (size_t)n; i++) key[i] = qkey(v[i]);
    *out = toi_double_from_ord((int64_t)(select_key(key, (size_t)n, (size_t)k) ^ ((uint64_t)1 << 63)));
    rc = 0;
  }
  free(v);
  free(key);
  return rc;
}

int toi_qstream_quantile(toi_qstream *q, double quantile, double *out) {
  *out = NAN;
  if (q->n == 0) return 0;
  uint64_t k = toi_quantile_index((size_t)q->n, quantile), n = q->n, prefix = 0;
  uint64_t *h = malloc(((size_t)1 << 16) * sizeof *h);
  if (!h) return -1;
  int rc = 0;
  for (int shift = 48; shift >= 0; shift -= 16) {
    if (n <= QSTREAM_LOAD_MAX) {
      rc = select_loaded(q, prefix, shift, n, k, out);
      free(h);
      return rc;
    }
    memset(h, 0, ((size_t)1 << 16) * sizeof *h);
    if ((rc = spill_pass(q, prefix, shift, h, NULL))) break;
    uint64_t b = 0;
    while (k >= h[b]) k -= h[b++];
    n = h[b];
    prefix = (prefix << 16) | b;
  }
  if (!rc) *out = toi_double_from_ord((int64_t)(prefix ^ ((uint64_t)1 << 63)));
  free(h);
  return rc;
}

/* ---- rows of `run` merged block by block ---- */

/* The second table's counts, the targets' range and the largest gap with its
   first witness (add_target's rules in bench_run.c); its values are not kept. */
static void merge_target_counts(toi_run_row *acc, const toi_run_row *blk) {
  if (blk->targets_seen) {
    if (!acc->targets_seen || blk->tmin < acc->tmin) acc->tmin = blk->tmin;
    if (!acc->targets_seen || blk->tmax_seen > acc->tmax_seen) acc->tmax_seen = blk->tmax_seen;
    acc->targets_seen = 1;
  }
  for (int i = 0; i < TOI_SCORE_KIND_COUNT; i++) acc->tkind[i] += blk->tkind[i];
  if (blk->ngaps && (acc->ngaps == 0 || blk->max_gap > acc->max_gap)) {
    acc->max_gap = blk->max_gap;
    memcpy(acc->worst_gap, blk->worst_gap, sizeof acc->worst_gap);
  }
  acc->ntulps += blk->ntulps;
  acc->ngaps += blk->ngaps;
  acc->ndevs += blk->ndevs;
  acc->ndts += blk->ndts;
  acc->off_tol += blk->off_tol;
  acc->have_tol += blk->have_tol;
}

int toi_run_row_merge(toi_run_row *acc, const toi_run_row *blk, toi_qstream *ulps) {
  toi_score_stats *a = &acc->st;
  const toi_score_stats *b = &blk->st;
  if (b->timed && (!a->timed || b->max_ulp > a->max_ulp)) {
    a->max_ulp = b->max_ulp;
    memcpy(a->worst_id, b->worst_id, sizeof a->worst_id);
  }
  if (b->timed && (!a->timed || b->max_bits > a->max_bits)) a->max_bits = b->max_bits;
  if (!a->worst_class_id[0]) memcpy(a->worst_class_id, b->worst_class_id, sizeof a->worst_class_id);
  a->cases += b->cases;
  a->out_of_domain += b->out_of_domain;
  for (int i = 0; i < TOI_SCORE_KIND_COUNT; i++) a->kind[i] += b->kind[i];
  a->timed += b->timed;
  acc->failed += blk->failed;
  for (int k = 0; k < TOI_CAUSE_COUNT; k++) { /* blocks come in input order: the first of each stays */
    if (!acc->fail_causes[k] && blk->fail_causes[k]) memcpy(acc->first_failed[k], blk->first_failed[k], sizeof acc->first_failed[k]);
    acc->fail_causes[k] += blk->fail_causes[k];
  }
  acc->unsupported += blk->unsupported;
  acc->inputs_rounded += blk->inputs_rounded;
  acc->overflowed += blk->overflowed;
  acc->info.malfunctions += blk->info.malfunctions;
  acc->info.protocol_errors += blk->info.protocol_errors;
  acc->info.engine_calls += blk->info.engine_calls;
  acc->info.engine_ns += blk->info.engine_ns;
  acc->info.bench_calls += blk->info.bench_calls;
  acc->info.bench_ns += blk->info.bench_ns;
  merge_target_counts(acc, blk);
  return toi_qstream_add(ulps, b->ulps, b->timed);
}

/* The largest of v[0..n-1] into *m, NaN meaning none yet (as run's max_of). */
static void max_into(double *m, const double *v, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (isnan(*m) || v[i] > *m) *m = v[i];
}

int toi_target_merge_init(toi_target_merge *m) {
  memset(m, 0, sizeof *m);
  m->max_tulp = m->max_dt = m->max_dev = NAN;
  if (toi_qstream_init(&m->tulps) || toi_qstream_init(&m->dts) || toi_qstream_init(&m->gaps)) {
    toi_target_merge_free(m);
    return -1;
  }
  return 0;
}

int toi_run_row_merge_target(toi_target_merge *m, const toi_run_row *blk) {
  max_into(&m->max_tulp, blk->tulps, blk->ntulps);
  max_into(&m->max_dt, blk->dts, blk->ndts);
  max_into(&m->max_dev, blk->devs, blk->ndevs);
  if (toi_qstream_add(&m->tulps, blk->tulps, blk->ntulps) || toi_qstream_add(&m->dts, blk->dts, blk->ndts) ||
      toi_qstream_add(&m->gaps, blk->gaps, blk->ngaps))
    return -1;
  return 0;
}

void toi_target_merge_free(toi_target_merge *m) {
  toi_qstream_free(&m->tulps);
  toi_qstream_free(&m->dts);
  toi_qstream_free(&m->gaps);
}
