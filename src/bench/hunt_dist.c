/* hunt_dist.c: a worst-case search shared among processes (toibench-mpi): lists merged, walks brought back. */
#include <stdlib.h>
#include <string.h>
#include "hunt.h"

uint64_t hunt_dist_next(const hunt_opts *o, uint64_t b, uint64_t n) {
  return o->dist ? o->dist->next(o->dist->ud, n) : b;
}

int hunt_dist_mine(const hunt_opts *o, int k) { return !o->dist || k % o->dist->size == o->dist->rank; }

/* The counters the processes add up. */
#define NCOUNT 7
static uint64_t *counter(hunt_result *r, int i) {
  uint64_t *c[NCOUNT] = {&r->sent, &r->failed, &r->declined, &r->stated, &r->aimed, &r->malfunctions,
                         &r->protocol_errors};
  return c[i];
}

/* A growing byte buffer; a failed allocation leaves it NULL (and the run fails). */
typedef struct bytes {
  unsigned char *p;
  size_t n, cap;
} bytes;

static void put(bytes *b, const void *v, size_t n) {
  if (b->p && b->n + n > b->cap) {
    size_t cap = 2 * (b->n + n);
    unsigned char *q = realloc(b->p, cap);
    if (!q) free(b->p);
    b->p = q;
    b->cap = cap;
  }
  if (b->p) memcpy(b->p + b->n, v, n);
  b->n += n;
}

/* Reads n bytes at *at of [p, end) into v; 0, or -1 past the end. */
static int get(const unsigned char *p, size_t end, size_t *at, void *v, size_t n) {
  if (end - *at < n) return -1;
  memcpy(v, p + *at, n);
  *at += n;
  return 0;
}

/* The head of every process's bytes: its status and its counters. */
static void put_head(bytes *b, hunt_result *r, int failed) {
  unsigned char f = (unsigned char)failed;
  put(b, &f, 1);
  for (int i = 0; i < NCOUNT; i++) put(b, counter(r, i), sizeof(uint64_t));
}

/* Reads a head into *failed and adds its counters to sum (when not NULL). 0 or -1. */
static int get_head(const unsigned char *p, size_t end, size_t *at, int *failed, hunt_result *sum) {
  unsigned char f;
  if (get(p, end, at, &f, 1)) return -1;
  *failed |= f != 0;
  for (int i = 0; i < NCOUNT; i++) {
    uint64_t v;
    if (get(p, end, at, &v, sizeof v)) return -1;
    if (sum) *counter(sum, i) += v;
  }
  return 0;
}

/* Gathers b (to every process when all); calls take(ud, rank, bytes, len, sum) for each process's bytes
   there. Returns 1 when any process failed or the bytes are short, else 0. */
static int exchange(const hunt_opts *o, bytes *b, int all, hunt_result *sum,
                    int (*take)(void *ud, const unsigned char *p, size_t len, hunt_result *sum), void *ud) {
  const sweep_dist *d = o->dist;
  unsigned char *got = NULL, failed = 1;
  size_t *lens = calloc((size_t)d->size, sizeof *lens);
  int bad = !b->p || !lens;
  if (bad) toi_msgf(o->msg, "hunt: out of memory");
  bad |= d->gather(d->ud, bad ? &failed : b->p, bad ? 1 : b->n, all, &got, lens) != 0;
  if (!bad && (all || d->rank == 0)) {
    size_t at = 0;
    for (int k = 0; k < d->size && !bad; at += lens[k], k++) bad = take(ud, got + at, lens[k], sum) != 0;
  }
  free(got);
  free(lens);
  free(b->p);
  return bad;
}

static int take_lists(void *ud, const unsigned char *p, size_t len, hunt_result *sum) {
  const hunt_opts *o = ud;
  size_t at = 0;
  int failed = 0;
  if (get_head(p, len, &at, &failed, sum) || failed) return 1;
  for (int l = 0; l < HUNT_L_COUNT; l++) {
    int n;
    if (get(p, len, &at, &n, sizeof n) || n < 0 || n > HUNT_MAXKEEP) return 1;
    for (int i = 0; i < n; i++) {
      hunt_found f;
      if (get(p, len, &at, &f, sizeof f)) return 1;
      hunt_list_offer(&sum->lists[l], &f, o->keep, l != HUNT_L_ULP && l != HUNT_L_RATIO);
    }
  }
  return 0;
}

int hunt_dist_global(const hunt_opts *o, hunt_result *r, uint64_t nb, int failed) {
  const sweep_dist *d = o->dist;
  while (failed && d->next(d->ud, nb) < nb) continue; /* the batches left, undone, so that the pass ends */
  bytes b = {malloc(4096), 0, 4096};
  put_head(&b, r, failed);
  for (int l = 0; l < HUNT_L_COUNT; l++) {
    put(&b, &r->lists[l].n, sizeof r->lists[l].n);
    put(&b, r->lists[l].items, (size_t)r->lists[l].n * sizeof r->lists[l].items[0]);
  }
  hunt_result *sum = calloc(1, sizeof *sum);
  int bad = !sum || exchange(o, &b, 1, sum, take_lists, (void *)o);
  if (!sum) free(b.p);
  if (!bad) {
    memcpy(r->lists, sum->lists, sizeof r->lists);
    /* Rank 0 holds the counters; the others count their part of the local search from 0. */
    for (int i = 0; i < NCOUNT; i++) *counter(r, i) = d->rank == 0 ? *counter(sum, i) : 0;
  }
  free(sum);
  return bad;
}

/* What rank 0 takes of another process's walks. */
typedef struct walks_in {
  const hunt_opts *o;
  hunt_result *r;
  hunt_found *cands;
  hunt_walk *w;
  int rank;
} walks_in;

static int take_walks(void *ud, const unsigned char *p, size_t len, hunt_result *sum) {
  walks_in *x = ud;
  size_t at = 0;
  int failed = 0, n, mine = x->rank++ == 0;
  if (get_head(p, len, &at, &failed, mine ? NULL : sum) || failed) return 1;
  if (get(p, len, &at, &n, sizeof n) || n < 0) return 1;
  for (int i = 0; i < n; i++) {
    int k;
    hunt_found c;
    hunt_walk w;
    if (get(p, len, &at, &k, sizeof k) || k < 0 || k >= x->r->ncands || get(p, len, &at, &c, sizeof c) ||
        get(p, len, &at, &w, sizeof w))
      return 1;
    x->cands[k] = c;
    x->w[k] = w;
  }
  if (get(p, len, &at, &n, sizeof n) || n < 0 || n > HUNT_MAXKEEP) return 1;
  for (int i = 0; i < n; i++) {
    hunt_found f;
    if (get(p, len, &at, &f, sizeof f)) return 1;
    if (!mine) hunt_list_offer(&x->r->lists[HUNT_L_FAIL], &f, x->o->keep, 1);
  }
  return 0;
}

int hunt_dist_local(const hunt_opts *o, hunt_result *r, hunt_found *cands, hunt_walk *w, int failed) {
  bytes b = {malloc(4096), 0, 4096};
  put_head(&b, r, failed);
  int n = 0;
  for (int k = 0; k < r->ncands; k++) n += hunt_dist_mine(o, k);
  put(&b, &n, sizeof n);
  for (int k = 0; k < r->ncands; k++)
    if (hunt_dist_mine(o, k)) {
      put(&b, &k, sizeof k);
      put(&b, &cands[k], sizeof cands[k]);
      put(&b, &w[k], sizeof w[k]);
    }
  /* The failures of this process's local search: those ranked past the global pass. */
  const hunt_list *fl = &r->lists[HUNT_L_FAIL];
  n = 0;
  for (int i = 0; i < fl->n; i++) n += fl->items[i].index >= r->global;
  put(&b, &n, sizeof n);
  for (int i = 0; i < fl->n; i++)
    if (fl->items[i].index >= r->global) put(&b, &fl->items[i], sizeof fl->items[i]);
  walks_in x = {o, r, cands, w, 0};
  int bad = exchange(o, &b, 0, r, take_walks, &x);
  return (int)sweep_dist_share(o->dist, (uint64_t)bad);
}
