/* sim_queue.c: the simulation's event queue: per-ball event lists under a tournament tree of N balls. */
#include <stdlib.h>
#include <string.h>
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
 */

#define QNONE UINT32_MAX

#define QKEY_EMPTY (~(sim_qkey)0)

/* (time, seq) as one unsigned number in the same order: a double's bits,
   its sign bit flipped when positive and every bit flipped when negative,
   order as the doubles do (-0 is made +0 first: the two compare equal).
   Times are never NaN (the run refuses a NaN prediction). */
static inline sim_qkey qkey_of(double time, uint64_t seq) {
  double t = time + 0.0;
  uint64_t u;
  memcpy(&u, &t, sizeof u);
  u ^= (uint64_t)(-(int64_t)(u >> 63)) | (UINT64_C(1) << 63);
  return (sim_qkey)u << 64 | seq;
}

/* Ball a's key from its earliest node, then the winners on its path to the
   root. */
static void key_update(sim_queue *q, uint32_t a) {
  uint32_t b = q->best[a];
  sim_qkey k = b == QNONE ? QKEY_EMPTY : qkey_of(q->pool[b].e.time, q->pool[b].e.seq);
  q->hn += (size_t)(k != QKEY_EMPTY) - (size_t)(q->key[a] != QKEY_EMPTY);
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

/* Ball a's key is due for an update. Until the flush the tree stays a tree
   of its stored keys; the flush moves each dirty ball's key to its list's
   earliest event. */
static inline void mark(sim_queue *q, uint32_t a) {
  if (q->isdirty[a]) return;
  q->isdirty[a] = 1;
  q->dirty[q->nd++] = a;
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
  q->head = malloc(n * sizeof *q->head);
  q->best = malloc(n * sizeof *q->best);
  q->lcnt = calloc(n, sizeof *q->lcnt);
  q->key = malloc(L * sizeof *q->key);
  q->win = malloc(2 * L * sizeof *q->win);
  q->dirty = malloc(n * sizeof *q->dirty);
  q->isdirty = calloc(n, 1);
  q->free_ = QNONE;
  if (!q->head || !q->best || !q->lcnt || !q->key || !q->win || !q->dirty || !q->isdirty) {
    sim_queue_free(q);
    return -1;
  }
  for (size_t i = 0; i < n; i++) q->head[i] = q->best[i] = QNONE;
  /* every leaf empty: any ball may win a node */
  for (size_t i = 0; i < L; i++) {
    q->key[i] = QKEY_EMPTY;
    q->win[L + i] = (uint32_t)i;
  }
  for (size_t i = L - 1; i >= 1; i--) q->win[i] = q->win[2 * i];
  return 0;
}

void sim_queue_free(sim_queue *q) {
  free(q->head);
  free(q->best);
  free(q->lcnt);
  free(q->key);
  free(q->win);
  free(q->pool);
  free(q->dirty);
  free(q->isdirty);
  memset(q, 0, sizeof *q);
}

static void drop_list(sim_queue *q, uint32_t a) {
  uint32_t k = q->head[a];
  while (k != QNONE) {
    uint32_t nx = q->pool[k].next;
    q->pool[k].next = q->free_;
    q->free_ = k;
    k = nx;
  }
  q->head[a] = q->best[a] = QNONE;
}

void sim_queue_drop_ball(sim_queue *q, uint32_t a) {
  drop_list(q, a);
  mark(q, a);
}

static int node_alloc(sim_queue *q, uint32_t *out) {
  if (q->free_ != QNONE) {
    *out = q->free_;
    q->free_ = q->pool[*out].next;
    return 0;
  }
  if (q->pn == q->pcap) {
    size_t cap = q->pcap ? 2 * q->pcap : 1024;
    if (cap > QNONE) cap = QNONE;
    if (q->pn >= cap) return -1;
    sim_qnode *p = realloc(q->pool, cap * sizeof *p);
    if (!p) return -1;
    q->pool = p;
    q->pcap = cap;
  }
  *out = (uint32_t)q->pn++;
  return 0;
}

int sim_queue_push_seq(sim_queue *q, ev e, uint64_t seq) {
  uint32_t a = e.a, k;
  if (q->lcnt[a] != e.ca) {
    drop_list(q, a);
    q->lcnt[a] = e.ca;
  }
  if (node_alloc(q, &k)) {
    mark(q, a);
    return -1;
  }
  e.seq = seq;
  q->pool[k].e = e;
  q->pool[k].next = q->head[a];
  q->head[a] = k;
  uint32_t b = q->best[a];
  sim_qkey bk = b == QNONE ? QKEY_EMPTY : qkey_of(q->pool[b].e.time, q->pool[b].e.seq);
  q->best[a] = qkey_of(e.time, e.seq) < bk ? k : b;
  mark(q, a);
  return 0;
}

ev sim_queue_pop(sim_queue *q) {
  if (q->nd) sim_queue_flush(q);
  uint32_t a = q->win[1], m = q->best[a];
  ev top = q->pool[m].e;
  /* unlink m and find the list's next earliest in one walk */
  uint32_t prev = QNONE, best = QNONE;
  sim_qkey bk = QKEY_EMPTY;
  for (uint32_t k = q->head[a]; k != QNONE;) {
    uint32_t nx = q->pool[k].next;
    if (k == m) {
      if (prev == QNONE) q->head[a] = nx;
      else q->pool[prev].next = nx;
      q->pool[k].next = q->free_;
      q->free_ = k;
    } else {
      /* a selection, no branch on the keys */
      sim_qkey xk = qkey_of(q->pool[k].e.time, q->pool[k].e.seq);
      int lt = xk < bk;
      best = lt ? k : best;
      bk = lt ? xk : bk;
      prev = k;
    }
    k = nx;
  }
  q->best[a] = best;
  mark(q, a);
  return top;
}

int sim_queue_push(sim_queue *q, ev e) { return sim_queue_push_seq(q, e, q->seq++); }
