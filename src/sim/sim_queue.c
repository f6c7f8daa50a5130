/* sim_queue.c: the simulation's event queue: per-ball event lists under an indexed heap of N balls. */
#include <stdlib.h>
#include <string.h>
#include "sim_queue.h"

/*
 * Why not one heap of every event: a pair contact is predicted for both of
 * its balls' neighbourhoods and most predictions go stale before they come
 * due, so a heap of events holds about 16 N entries, most of them dead, and
 * its sifts miss the cache. Here the heap holds N keys (one per ball, its
 * earliest event) and a ball's change drops its own list at once; the order
 * of what comes out is the same, since (time, seq) is a total order.
 */

#define QNONE UINT32_MAX

static inline int key_less(double ta, uint64_t sa, double tb, uint64_t sb) {
  if (ta != tb) return ta < tb;
  return sa < sb;
}

static inline int qkey_less(const sim_qkey *x, const sim_qkey *y) {
  return key_less(x->time, x->seq, y->time, y->seq);
}

static void sift_up(sim_queue *q, size_t i) {
  sim_qkey k = q->heap[i];
  while (i > 0) {
    size_t p = (i - 1) / 2;
    if (!qkey_less(&k, &q->heap[p])) break;
    q->heap[i] = q->heap[p];
    q->pos[q->heap[i].ball] = (uint32_t)i;
    i = p;
  }
  q->heap[i] = k;
  q->pos[k.ball] = (uint32_t)i;
}

static void sift_down(sim_queue *q, size_t i) {
  sim_qkey k = q->heap[i];
  size_t n = q->hn;
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= n) break;
    if (c + 1 < n && qkey_less(&q->heap[c + 1], &q->heap[c])) c++;
    if (!qkey_less(&q->heap[c], &k)) break;
    q->heap[i] = q->heap[c];
    q->pos[q->heap[i].ball] = (uint32_t)i;
    i = c;
  }
  q->heap[i] = k;
  q->pos[k.ball] = (uint32_t)i;
}

/* For a key that grew (a ball whose earliest event was just popped, at the
   root): the hole goes down along the smaller children to a leaf, one
   comparison a level, and the key rises from there, usually a step or two
   (Floyd's bottom-up sift). Same heap as sift_down, fewer mispredicted
   branches. */
static void sift_down_bottom_up(sim_queue *q, size_t i) {
  sim_qkey k = q->heap[i];
  size_t n = q->hn, start = i;
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= n) break;
    if (c + 1 < n && qkey_less(&q->heap[c + 1], &q->heap[c])) c++;
    q->heap[i] = q->heap[c];
    q->pos[q->heap[i].ball] = (uint32_t)i;
    i = c;
  }
  while (i > start) {
    size_t p = (i - 1) / 2;
    if (!qkey_less(&k, &q->heap[p])) break;
    q->heap[i] = q->heap[p];
    q->pos[q->heap[i].ball] = (uint32_t)i;
    i = p;
  }
  q->heap[i] = k;
  q->pos[k.ball] = (uint32_t)i;
}

/* Ball a's key from its earliest node (removed from the heap when none). */
static void key_update(sim_queue *q, uint32_t a) {
  uint32_t b = q->best[a];
  size_t i = q->pos[a];
  if (b == QNONE) {
    if (i == QNONE) return;
    q->pos[a] = QNONE;
    q->hn--;
    if (i == q->hn) return;
    q->heap[i] = q->heap[q->hn];
    q->pos[q->heap[i].ball] = (uint32_t)i;
    if (i > 0 && qkey_less(&q->heap[i], &q->heap[(i - 1) / 2])) sift_up(q, i);
    else sift_down(q, i);
    return;
  }
  sim_qkey k = {q->pool[b].e.time, q->pool[b].e.seq, a};
  if (i == QNONE) {
    i = q->hn++;
    q->heap[i] = k;
    sift_up(q, i);
    return;
  }
  int up = qkey_less(&k, &q->heap[i]);
  q->heap[i] = k;
  if (up) sift_up(q, i);
  else sift_down_bottom_up(q, i);
}

/* Ball a's key is due for an update. Until the flush the heap stays a heap of
   its stored keys, so the other balls' sifts stay correct; the flush moves
   each dirty ball's key to its list's earliest event. */
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
  q->head = malloc(n * sizeof *q->head);
  q->best = malloc(n * sizeof *q->best);
  q->lcnt = calloc(n, sizeof *q->lcnt);
  q->pos = malloc(n * sizeof *q->pos);
  q->heap = malloc(n * sizeof *q->heap);
  q->dirty = malloc(n * sizeof *q->dirty);
  q->isdirty = calloc(n, 1);
  q->free_ = QNONE;
  if (!q->head || !q->best || !q->lcnt || !q->pos || !q->heap || !q->dirty || !q->isdirty) {
    sim_queue_free(q);
    return -1;
  }
  for (size_t i = 0; i < n; i++) q->head[i] = q->best[i] = q->pos[i] = QNONE;
  return 0;
}

void sim_queue_free(sim_queue *q) {
  free(q->head);
  free(q->best);
  free(q->lcnt);
  free(q->pos);
  free(q->heap);
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
  if (b == QNONE || key_less(e.time, e.seq, q->pool[b].e.time, q->pool[b].e.seq)) q->best[a] = k;
  mark(q, a);
  return 0;
}

ev sim_queue_pop(sim_queue *q) {
  if (q->nd) sim_queue_flush(q);
  uint32_t a = q->heap[0].ball, m = q->best[a];
  ev top = q->pool[m].e;
  /* unlink m and find the list's next earliest in one walk */
  uint32_t prev = QNONE, best = QNONE;
  for (uint32_t k = q->head[a]; k != QNONE;) {
    uint32_t nx = q->pool[k].next;
    if (k == m) {
      if (prev == QNONE) q->head[a] = nx;
      else q->pool[prev].next = nx;
      q->pool[k].next = q->free_;
      q->free_ = k;
    } else {
      const ev *x = &q->pool[k].e;
      if (best == QNONE || key_less(x->time, x->seq, q->pool[best].e.time, q->pool[best].e.seq))
        best = k;
      prev = k;
    }
    k = nx;
  }
  q->best[a] = best;
  mark(q, a);
  return top;
}

int sim_queue_push(sim_queue *q, ev e) { return sim_queue_push_seq(q, e, q->seq++); }
