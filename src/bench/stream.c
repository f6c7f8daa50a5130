/* stream.c: case files read, parsed, worked on and written in blocks on a pool of threads, in input order. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "rng.h"
#include "stats.h"
#include "case_stream_tune.h"
#include "stream.h"
#include "tempfile.h"
#include "sweep.h"

/* Bytes of case lines per block at most, so that a file of long lines keeps
   the memory of a block bounded too. */
#define STREAM_BLOCK_BYTES ((size_t)4 << 20)
/* Threads of one stream at most (-j is at most 1024). */
#define STREAM_THREADS_MAX 1024

typedef struct slot {
  toi_line_block lb;
  toi_raw_block raw; /* lb's lines still to make (toi_case_stream_read_raw) */
  uint64_t *hash; /* the IDs' hashes (toi_case_stream_hash_ids), made beside the work */
  size_t hcap;
  FILE *out;
  char *obuf;
  size_t olen;
  const char *wtext; /* own_text: what work set */
  size_t wlen;
  int worked, rc;
} slot;

/* The blocks of a file go through a ring of slots, in input order: a thread
   takes the next block from the file (one thread at a time, the reading
   lock), parses and works on it, then commits every block that is done, in
   input order (one thread at a time, the commit lock). So every thread does
   every kind of work, reading and committing overlap the others' parsing and
   work without rounds or barriers, and a block is parsed on the thread that
   just read it, into its own buffer (text_buf). With several threads a
   regular file is read by ranges: the read, outside the reading lock; in
   the lock, in the order of the ranges, a line's end put before the range
   and a sum (toi_case_stream_pread, toi_case_stream_read_range). Other
   inputs: the lock holds one read and a count of the lines
   (toi_case_stream_read_raw). Either way the lines are cut out of the bytes,
   in place, outside the lock, and a block is at most a range or a read
   (256 KiB). One thread reads line by line, blocks of o->block cases (an
   out-of-process solver's calls). Block k uses slot k mod nslots: it is
   read only once block k - nslots is committed, so memory stays bounded. */

/* Blocks in flight per thread, at most. */
#define STREAM_PER_JOB 6

typedef struct stream_run {
  const toi_stream_opts *o;
  toi_case_stream *cs;
  slot *slots;
  size_t nslots, block;
  int working; /* no problem so far: read and written by several threads (atomics) */
  toi_diags *dg;
  toi_stream_result *res;
  /* the file's progress: read under rd, committed under cm */
  pthread_mutex_t rd, cm;
  pthread_cond_t freed; /* a slot was committed (under cm) */
  /* a regular file read by ranges (toi_case_stream_read_range): each thread
     claims the next range and reads it outside the lock, then takes its
     turn in the order of the ranges */
  int whole;            /* blocks read whole (several threads: the lock is shared); else line by line, as
                           many cases a block as o->block says (one thread, often for a solver's process) */
  int ranged;           /* still read so (rd; read outside it by atomics) */
  uint64_t claimed;     /* ranges claimed (atomics) */
  uint64_t turn;        /* the range whose turn it is (rd) */
  pthread_cond_t turned; /* the turn moved, or the ranges ended (under rd) */
  uint64_t nread;       /* blocks read (rd) */
  int eof;              /* no more blocks: the end, a reading problem or a stop (rd; atomics) */
  uint64_t ncommitted;  /* blocks committed (cm) */
  unsigned char *done;  /* slot k: its block is worked on and waits for its commit (cm) */
  toi_status st;        /* the file's first problem of memory or of the ID file (cm) */
  unsigned nparts, next_part; /* the threads' parts of the ID check (toi_case_stream_check_ids) */
} stream_run;

int toi_stream_slots(const toi_stream_opts *o) {
  return STREAM_PER_JOB * (o->jobs < 1 ? 1 : o->jobs);
}

/* Cases in flight at most (every slot full), whatever the number of
   threads, so that memory stays bounded: about 200 bytes a case and a
   block's answers. */
#define STREAM_IN_FLIGHT ((size_t)32768)

static size_t block_cases(const toi_stream_opts *o, size_t nslots) {
  size_t cap = STREAM_IN_FLIGHT / nslots;
  if (cap < 256) cap = 256;
  size_t b = o->block ? o->block : 1024;
  return b < cap ? b : cap;
}

static int is_working(stream_run *r) { return __atomic_load_n(&r->working, __ATOMIC_ACQUIRE); }
static void stop_working(stream_run *r) { __atomic_store_n(&r->working, 0, __ATOMIC_RELEASE); }

static void slot_drop_out(slot *s) {
  if (s->out) fclose(s->out);
  free(s->obuf);
  s->out = NULL;
  s->obuf = NULL;
  s->olen = 0;
  s->wtext = NULL;
  s->wlen = 0;
}

/* A thread's buffer for the bytes of the blocks it reads (*text, *cap):
   lent to the block from its read to its parse, so that each thread reads
   into the same memory, still in its core's caches. */
typedef struct text_buf {
  char *text;
  size_t cap;
} text_buf;

static void text_lend(toi_line_block *b, text_buf *t) {
  b->text = t->text;
  b->cap = t->cap;
  t->text = NULL;
  t->cap = 0;
}

static void text_take_back(toi_line_block *b, text_buf *t) {
  free(t->text);
  t->text = b->text;
  t->cap = b->cap;
  b->text = NULL;
  b->cap = b->len = 0;
}

/* Parses the block of slot i (its bytes then back in tb) and, while nothing
   went wrong, works on it. */
static void work_slot(stream_run *r, size_t i, text_buf *tb) {
  slot *s = &r->slots[i];
  toi_line_block_split(&s->lb, &s->raw);
  toi_line_block_parse(&s->lb);
  text_take_back(&s->lb, tb); /* the cases hold what is needed of them */
  s->worked = 0;
  s->rc = 0;
  if (s->lb.n > s->hcap) {
    free(s->hash);
    s->hash = malloc(s->lb.n * sizeof *s->hash);
    s->hcap = s->hash ? s->lb.n : 0;
  }
  /* the hashes here, on every thread, not in commit_slot, one thread at a time */
  if (s->hash) toi_case_stream_hash_ids(r->cs, &s->lb, s->hash);
  if (!is_working(r) || s->lb.nbad || !s->lb.n) return; /* a block of comments: nothing to work on */
  if (!r->o->own_text && !(s->out = open_memstream(&s->obuf, &s->olen))) {
    s->rc = -1;
    return;
  }
  toi_stream_block b = {s->lb.cases, s->lb.n, s->out, (int)i, 0, NULL, 0};
  s->rc = r->o->work(r->o->ctx, &b);
  s->wtext = b.text;
  s->wlen = b.text ? b.len : 0;
  s->worked = 1;
}

/* In input order, under cm: the checks that need the whole file so far,
   then commit and the output of the block of slot i. TOI_OK or the problem
   of toi_case_stream_accept. */
static toi_status commit_slot(stream_run *r, size_t i) {
  toi_stream_result *res = r->res;
  slot *s = &r->slots[i];
  size_t before = r->dg->total;
  toi_status st = s->hash ? toi_case_stream_accept_hashed(r->cs, &s->lb, s->hash, r->dg)
                          : toi_case_stream_accept(r->cs, &s->lb, r->dg);
  if (st != TOI_OK) {
    slot_drop_out(s);
    return st;
  }
  if (r->dg->total > before) stop_working(r);
  if (is_working(r) && s->worked) {
    if (s->out && fflush(s->out)) s->rc = -1;
    const char *text = r->o->own_text ? s->wtext : s->obuf;
    size_t len = r->o->own_text ? s->wlen : s->olen;
    toi_stream_block b = {s->lb.cases, s->lb.n, NULL, (int)i, s->rc, text, len};
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
  return TOI_OK;
}

/* Marks block k (in slot i) done, then commits every block that is done, in
   input order. After a problem of accept, the reading stops. */
static void finish_block(stream_run *r, uint64_t k, size_t i) {
  (void)k;
  pthread_mutex_lock(&r->cm);
  r->done[i] = 1;
  int freed = 0;
  for (;;) {
    size_t j = (size_t)(r->ncommitted % r->nslots);
    if (!r->done[j]) break;
    r->done[j] = 0;
    if (r->st == TOI_OK) r->st = commit_slot(r, j);
    else slot_drop_out(&r->slots[j]);
    r->ncommitted++;
    freed = 1;
  }
  if (freed) pthread_cond_broadcast(&r->freed);
  pthread_mutex_unlock(&r->cm);
}

/* The next block of the file into its slot: 1 with *k and *i set, or 0 at
   the end (of the file, after a reading problem, or after a problem of
   accept), *k then the number of blocks read. */
static int next_block(stream_run *r, uint64_t *k, size_t *i, text_buf *tb) {
  toi_range rr;
  int ranged = __atomic_load_n(&r->ranged, __ATOMIC_ACQUIRE) && !__atomic_load_n(&r->eof, __ATOMIC_RELAXED);
  if (ranged) { /* the read, the search for NUL bytes and the count of newlines outside the lock */
    rr.k = __atomic_fetch_add(&r->claimed, 1, __ATOMIC_RELAXED);
    if (toi_case_stream_pread(r->cs, &rr, &tb->text, &tb->cap)) rr.err = ENOMEM;
  }
  pthread_mutex_lock(&r->rd);
  while (ranged && r->ranged && !r->eof && r->turn != rr.k) pthread_cond_wait(&r->turned, &r->rd);
  int got = 0;
  if (!r->eof) {
    uint64_t n = r->nread;
    /* the slot is free once block n - nslots is committed */
    pthread_mutex_lock(&r->cm);
    while (r->ncommitted + r->nslots <= n && r->st == TOI_OK) pthread_cond_wait(&r->freed, &r->cm);
    toi_status pst = r->st;
    pthread_mutex_unlock(&r->cm);
    if (pst != TOI_OK) {
      __atomic_store_n(&r->eof, 1, __ATOMIC_RELAXED);
    } else {
      size_t at = (size_t)(n % r->nslots);
      slot *sl = &r->slots[at];
      text_lend(&sl->lb, tb);
      toi_status st;
      if (ranged) st = toi_case_stream_read_range(r->cs, &sl->lb, r->block, STREAM_BLOCK_BYTES, &rr, &sl->raw);
      else if (r->whole) st = toi_case_stream_read_raw(r->cs, &sl->lb, r->block, STREAM_BLOCK_BYTES, &sl->raw);
      else st = toi_case_stream_read(r->cs, &sl->lb, r->block, STREAM_BLOCK_BYTES); /* sl->raw stays empty */
      if (r->ranged && !toi_case_stream_ranged(r->cs)) { /* in order from here on: nobody waits for a turn */
        __atomic_store_n(&r->ranged, 0, __ATOMIC_RELEASE);
        pthread_cond_broadcast(&r->turned);
      }
      if ((sl->lb.n == 0 && sl->raw.nlines == 0) || st != TOI_OK) {
        text_take_back(&sl->lb, tb);
        __atomic_store_n(&r->eof, 1, __ATOMIC_RELAXED); /* the problem is reported at close */
      } else {
        r->nread = n + 1;
        *k = n;
        *i = at;
        got = 1;
      }
    }
  }
  if (!got) *k = r->nread;
  if (ranged && r->turn == rr.k) {
    r->turn = rr.k + 1;
    pthread_cond_broadcast(&r->turned);
  }
  if (r->eof) pthread_cond_broadcast(&r->turned); /* those waiting for a turn stop */
  pthread_mutex_unlock(&r->rd);
  return got;
}

static void *stream_thread(void *arg) {
  stream_run *r = arg;
  unsigned part = __atomic_fetch_add(&r->next_part, 1, __ATOMIC_RELAXED);
  uint64_t k;
  size_t i;
  text_buf tb = {NULL, 0};
  while (next_block(r, &k, &i, &tb)) {
    work_slot(r, i, &tb);
    finish_block(r, k, i);
  }
  free(tb.text);
  /* Once every block is committed, the file's ID set is checked by the
     threads together, each its part, so that little is left to
     toi_case_stream_close, which runs on one. */
  pthread_mutex_lock(&r->cm);
  while (r->ncommitted < k && r->st == TOI_OK) pthread_cond_wait(&r->freed, &r->cm);
  int check = r->st == TOI_OK;
  pthread_mutex_unlock(&r->cm);
  if (check) (void)toi_case_stream_check_ids(r->cs, part, r->nparts); /* what it leaves, close checks */
  return NULL;
}

/* One file through the pipeline on the caller's thread and jobs - 1 more
   (fewer when threads cannot be had: the output does not change). The
   file's status. */
static toi_status run_file(stream_run *r, const char *path, toi_stream_result *res) {
  toi_diags dg;
  memset(&dg, 0, sizeof dg);
  toi_status st = toi_case_stream_open(&r->cs, path, &dg);
  if (st == TOI_OK) {
    r->dg = &dg;
    r->res = res;
    r->nread = r->ncommitted = 0;
    r->whole = r->o->jobs > 1;
    r->ranged = r->whole && toi_case_stream_ranged(r->cs);
    r->claimed = r->turn = 0;
    __atomic_store_n(&r->eof, 0, __ATOMIC_RELAXED);
    r->st = TOI_OK;
    memset(r->done, 0, r->nslots);
    int jobs = r->o->jobs < 1 ? 1 : r->o->jobs, started = 0;
    pthread_t th[STREAM_THREADS_MAX];
    if (jobs > STREAM_THREADS_MAX) jobs = STREAM_THREADS_MAX;
    r->nparts = (unsigned)jobs;
    r->next_part = 0;
    while (started < jobs - 1 && !pthread_create(&th[started], NULL, stream_thread, r)) started++;
    stream_thread(r);
    for (int t = 0; t < started; t++) pthread_join(th[t], NULL);
    st = r->st;
    for (size_t i = 0; i < r->nslots; i++) slot_drop_out(&r->slots[i]);
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
  r.nslots = (size_t)toi_stream_slots(o);
  r.block = block_cases(o, r.nslots);
  r.working = 1;
  int rc = 0;
  r.slots = calloc(r.nslots, sizeof *r.slots);
  r.done = calloc(r.nslots, 1);
  int sync = 0;
  if (r.slots && r.done) {
    sync = !pthread_mutex_init(&r.rd, NULL);
    sync += sync == 1 && !pthread_mutex_init(&r.cm, NULL);
    sync += sync == 2 && !pthread_cond_init(&r.freed, NULL);
    sync += sync == 3 && !pthread_cond_init(&r.turned, NULL);
  }
  if (sync < 4) {
    res->read = TOI_ERR_NOMEM;
    rc = -1;
  }
  for (int f = 0; f < nfiles && !rc; f++) {
    toi_status st = run_file(&r, paths[f], res);
    if (st == TOI_ERR_NOMEM) rc = -1;
    if (st != TOI_OK && (res->read == TOI_OK || st == TOI_ERR_NOMEM)) res->read = st;
  }
  if (sync >= 4) pthread_cond_destroy(&r.turned);
  if (sync >= 3) pthread_cond_destroy(&r.freed);
  if (sync >= 2) pthread_mutex_destroy(&r.cm);
  if (sync >= 1) pthread_mutex_destroy(&r.rd);
  for (size_t i = 0; i < r.nslots && r.slots; i++) {
    toi_line_block_free(&r.slots[i].lb);
    free(r.slots[i].hash);
  }
  free(r.slots);
  free(r.done);
  return rc;
}

/* ---- exact quantiles of a stream ---- */

/* Values loaded and sorted once the bucket of the wanted rank holds no more. */
#define QSTREAM_LOAD_MAX ((uint64_t)1 << 20)

/* The order of x as an unsigned key: x < y iff key(x) < key(y). */
static uint64_t qkey(double x) {
  return (uint64_t)toi_double_ord(x) ^ ((uint64_t)1 << 63);
}

int toi_qstream_init_mem(toi_qstream *q, size_t max) {
  memset(q, 0, sizeof *q);
  q->max = max;
  return 0;
}

int toi_qstream_init(toi_qstream *q) { return toi_qstream_init_mem(q, TOI_QSTREAM_MEM); }

/* The values in memory moved to a new temporary file (as the doubles of
   their keys: -0 comes back as +0, the same key), the memory freed. 0, or -1
   (errno kept). */
static int qstream_spill_start(toi_qstream *q) {
  if (!(q->spill = toi_temp_file())) return -1;
  double buf[4096];
  for (uint64_t i = 0; i < q->n;) {
    size_t k = 0;
    for (; k < sizeof buf / sizeof *buf && i < q->n; k++, i++)
      buf[k] = toi_double_from_ord((int64_t)(q->mem[i] ^ ((uint64_t)1 << 63)));
    if (fwrite(buf, sizeof *buf, k, q->spill) != k) return -1;
  }
  free(q->mem);
  q->mem = NULL;
  q->cap = 0;
  return 0;
}

int toi_qstream_add(toi_qstream *q, const double *v, size_t n) {
  if (!n) return 0;
  if (!q->spill && q->n + n <= q->max) {
    size_t need = (size_t)q->n + n;
    if (need > q->cap) {
      size_t cap = q->cap ? q->cap : 4096;
      while (cap < need) cap *= 2;
      if (cap > q->max) cap = q->max;
      uint64_t *m = realloc(q->mem, cap * sizeof *m);
      if (m) {
        q->mem = m;
        q->cap = cap;
      }
    }
    if (need <= q->cap) {
      uint64_t *to = q->mem + q->n;
      for (size_t i = 0; i < n; i++) to[i] = qkey(v[i]);
      q->n = need;
      return 0;
    }
    /* no memory for more: to the file, as past the bound */
  }
  if (!q->spill && qstream_spill_start(q)) return -1;
  q->n += n;
  return fwrite(v, sizeof *v, n, q->spill) != n ? -1 : 0;
}

void toi_qstream_free(toi_qstream *q) {
  if (q->spill) fclose(q->spill);
  free(q->mem);
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

/* Below this many keys the quickselect is cheap enough. */
#define SELECT_RADIX_MIN 4096

/* The k-th smallest of a[0..n-1] (k < n), a reordered and its first
   elements overwritten: by the keys' 16-bit digits from the top, each pass
   counting the digits of what is left (no branch on the data), keeping the
   bucket of rank k (moved to the front without a branch) and k's rank in
   it, until few are left for select_key or the last digit makes them all
   equal. Linear in n whatever the values (at most four passes); select_key
   alone when the counts cannot be had. */
static uint64_t select_key_radix(uint64_t *a, size_t n, size_t k) {
  uint32_t *cnt = n > SELECT_RADIX_MIN ? malloc(((size_t)1 << 16) * sizeof *cnt) : NULL;
  if (!cnt) return select_key(a, n, k);
  for (int shift = 48; n > SELECT_RADIX_MIN; shift -= 16) {
    memset(cnt, 0, ((size_t)1 << 16) * sizeof *cnt);
    for (size_t i = 0; i < n; i++) cnt[(a[i] >> shift) & 0xffff]++;
    size_t b = 0;
    while (k >= cnt[b]) k -= cnt[b++];
    if (shift == 0) { /* every key left in bucket b is the same */
      uint64_t prefix = a[0] >> 16 << 16; /* the digits above, alike in all that are left */
      free(cnt);
      return prefix | b;
    }
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
      const uint64_t x = a[i];
      a[m] = x;
      m += ((x >> shift) & 0xffff) == b;
    }
    n = m;
  }
  free(cnt);
  return select_key(a, n, k);
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
    *out = toi_double_from_ord((int64_t)(select_key_radix(key, (size_t)n, (size_t)k) ^ ((uint64_t)1 << 63)));
    rc = 0;
  }
  free(v);
  free(key);
  return rc;
}

/* The quantiles of the values kept in memory, each selected on a copy of
   their keys. 0, or -1 without memory. */
static int quantiles_in_memory(toi_qstream *q, const double *quantiles, size_t nq, double *out) {
  size_t n = (size_t)q->n;
  uint64_t *work = malloc(n * sizeof *work);
  if (!work) return -1;
  for (size_t j = 0; j < nq; j++) {
    memcpy(work, q->mem, n * sizeof *work);
    out[j] = toi_double_from_ord((int64_t)(select_key_radix(work, n, toi_quantile_index(n, quantiles[j])) ^ ((uint64_t)1 << 63)));
  }
  free(work);
  return 0;
}

int toi_qstream_quantiles(toi_qstream *q, const double *quantiles, size_t nq, double *out) {
  for (size_t j = 0; j < nq; j++) out[j] = NAN;
  if (q->n && !q->spill) return quantiles_in_memory(q, quantiles, nq, out);
  if (q->n == 0 || q->n > QSTREAM_LOAD_MAX) {
    for (size_t j = 0; j < nq; j++)
      if (toi_qstream_quantile(q, quantiles[j], &out[j])) return -1;
    return 0;
  }
  /* every value loaded once; each selection leaves the keys a permutation
     of themselves, so the next one selects among the same keys */
  size_t n = (size_t)q->n;
  double *v = malloc(n * sizeof *v);
  uint64_t *key = malloc(n * sizeof *key);
  int rc = -1;
  if (v && key && !spill_pass(q, 0, 48, NULL, v)) {
    for (size_t i = 0; i < n; i++) key[i] = qkey(v[i]);
    /* each selection on a copy of the keys in v's room (it keeps only its
       bucket); the values are not needed any more */
    uint64_t *work = (uint64_t *)(void *)v;
    for (size_t j = 0; j < nq; j++) {
      size_t k = toi_quantile_index(n, quantiles[j]);
      memcpy(work, key, n * sizeof *key);
      out[j] = toi_double_from_ord((int64_t)(select_key_radix(work, n, k) ^ ((uint64_t)1 << 63)));
    }
    rc = 0;
  }
  free(v);
  free(key);
  return rc;
}

int toi_qstream_quantile(toi_qstream *q, double quantile, double *out) {
  *out = NAN;
  if (q->n == 0) return 0;
  if (!q->spill) return quantiles_in_memory(q, &quantile, 1, out);
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

int toi_target_merge_init(toi_target_merge *m, size_t mem) {
  memset(m, 0, sizeof *m);
  m->max_tulp = m->max_dt = m->max_dev = NAN;
  toi_qstream_init_mem(&m->tulps, mem);
  toi_qstream_init_mem(&m->dts, mem);
  toi_qstream_init_mem(&m->gaps, mem);
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
