/* sim_queue.c: the simulation's event queue: per-ball event lists under a tournament tree of N balls. */
#include <stdlib.h>
#include <string.h>
#include "sim.h"
#include "sim_queue.h"

/*
 * Why not one heap of every event: a pair contact is predicted for both of
 * its balls' neighbourhoods and most predictions go stale before they come
 * due, so a heap of events holds about 16 N entries, most of them dead, and
 * its sifts miss the cache. Here the tree holds N keys (one per ball, its
 * earliest event) and a ball's change drops its own list at once; the order
 * of what comes out is the same, since (time, seq) is a total order.
 *
 * Why a tournament tree rather than a binary heap of the N keys: a key's
 * update climbs from its leaf to the root, one comparison with the sibling's
 * winner per level, and each comparison only selects (no branch taken on
 * its outcome, and the sibling's key is loaded independently of the path
 * so far), where a heap's sifts branch on comparisons of (time, seq) that
 * the processor cannot guess. Every update costs log2 N levels, a few
 * cycles each, and the keys and winners of 1000 balls fit in the L1 cache.
 *
 * Why an array a ball rather than linked nodes from a shared pool: a ball's
 * change empties its list by setting its length to 0, and its new
 * predictions are written from the start of the same memory, where nodes
 * had to be walked onto a free list and taken back from it one cold node
 * at a time; a pop scans its ball's events in one run of memory. The
 * arrays keep their largest size (a ball's list is as long as its
 * neighbourhood asks for, the order of events is the same).
 */

/* Ball a's key from its earliest event, then the winners on its path to the
   root. */
static void key_update(sim_queue *q, uint32_t a) {
  sim_qkey k = q->bkey[a];
  q->hn += (size_t)(k != SIM_QKEY_EMPTY) - (size_t)(q->key[a] != SIM_QKEY_EMPTY);
  q->key[a] = k;
  const sim_qkey *key = q->key;
  uint32_t *win = q->win, cur = a;
  for (size_t i = q->lsize + a; i > 1; i >>= 1) {
    /* the sibling's winner takes the node when its key is smaller (keys of
       events never tie, their seq differ; empty leaves may) */
    uint32_t sib = win[i ^ 1];
    sim_qkey sk = key[sib];
    int sw = sk < k;
    cur = sw ? sib : cur;
    k = sw ? sk : k;
    win[i >> 1] = cur;
  }
}

void sim_queue_flush(sim_queue *q) {
  for (size_t i = 0; i < q->nd; i++) {
    uint32_t a = q->dirty[i];
    q->isdirty[a] = 0;
    key_update(q, a);
  }
  q->nd = 0;
}

int sim_queue_init(sim_queue *q, size_t n) {
  memset(q, 0, sizeof *q);
  q->n = n;
  size_t L = 1;
  while (L < n) L *= 2;
  q->lsize = L;
  q->list = calloc(n, sizeof *q->list);
  q->best = malloc(n * sizeof *q->best);
  q->lcnt = calloc(n, sizeof *q->lcnt);
  q->bkey = malloc(n * sizeof *q->bkey);
  q->key = malloc(L * sizeof *q->key);
  q->win = malloc(2 * L * sizeof *q->win);
  q->dirty = malloc(n * sizeof *q->dirty);
  q->isdirty = calloc(n, 1);
  if (!q->list || !q->best || !q->lcnt || !q->bkey || !q->key || !q->win || !q->dirty || !q->isdirty) {
    sim_queue_free(q);
    return -1;
  }
  for (size_t i = 0; i < n; i++) {
    q->best[i] = SIM_QNONE;
    q->bkey[i] = SIM_QKEY_EMPTY;
  }
  /* every leaf empty: any ball may win a node */
  for (size_t i = 0; i < L; i++) {
    q->key[i] = SIM_QKEY_EMPTY;
    q->win[L + i] = (uint32_t)i;
  }
  for (size_t i = L - 1; i >= 1; i--) q->win[i] = q->win[2 * i];
  return 0;
}

void sim_queue_free(sim_queue *q) {
  if (q->list)
    for (size_t i = 0; i < q->n; i++) free(q->list[i].e);
  free(q->list);
  free(q->best);
  free(q->lcnt);
  free(q->bkey);
  free(q->key);
  free(q->win);
  free(q->dirty);
  free(q->isdirty);
  memset(q, 0, sizeof *q);
}

void sim_queue_drop_ball(sim_queue *q, uint32_t a) {
  sim_qdrop(q, a);
  sim_qmark(q, a);
}

/* sim_queue_fail_grow's countdown: 0 when no growth is to fail. */
static uint64_t grow_fail_in;

void sim_queue_fail_grow(uint64_t k) { grow_fail_in = k; }

int sim_queue_grow(sim_qlist *l) {
  if (l->cap == UINT32_MAX / 2) return -1;
  if (grow_fail_in && --grow_fail_in == 0) return -1;
  uint32_t cap = l->cap ? 2 * l->cap : 4;
  sim_qev *e = realloc(l->e, cap * sizeof *e);
  if (!e) return -1;
  l->e = e;
  l->cap = cap;
  return 0;
}

ev sim_queue_pop(sim_queue *q) {
  if (q->nd) sim_queue_flush(q);
  uint32_t a = q->win[1], m = q->best[a];
  sim_qlist *l = &q->list[a];
  ev top = sim_queue_ev(q, a, &l->e[m]);
  /* the last event takes m's place; then the list's next earliest */
  l->e[m] = l->e[--l->n];
  uint32_t best = SIM_QNONE;
  sim_qkey bk = SIM_QKEY_EMPTY;
  for (uint32_t k = 0; k < l->n; k++) {
    /* a selection, no branch on the keys */
    sim_qkey xk = sim_qkey_of(l->e[k].time, l->e[k].sk);
    int lt = xk < bk;
    best = lt ? k : best;
    bk = lt ? xk : bk;
  }
  q->best[a] = best;
  q->bkey[a] = bk;
  sim_qmark(q, a);
  return top;
}

