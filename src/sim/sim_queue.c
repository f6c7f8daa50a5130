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

int sim_queue_init(sim_queue *q, size_t n) {
  memset(q, 0, sizeof *q);
  q->n = n;
  size_t L = 1;
  while (L < n) L *= 2;
  q->lsize = L;
  q->list = calloc(n, sizeof *q->list);
  q->best = malloc(n * sizeof *q->best);
  q->lcnt = calloc(n, sizeof *q->lcnt);
  q->btime = malloc(n * sizeof *q->btime);
  q->khi = malloc(L * sizeof *q->khi);
  q->klo = malloc(L * sizeof *q->klo);
  q->win = malloc(2 * L * sizeof *q->win);
  q->dirty = malloc(n * sizeof *q->dirty);
  q->isdirty = calloc(n, 1);
  if (!q->list || !q->best || !q->lcnt || !q->btime || !q->khi || !q->klo || !q->win || !q->dirty || !q->isdirty) {
    sim_queue_free(q);
    return -1;
  }
  for (size_t i = 0; i < n; i++) {
    q->best[i] = SIM_QNONE;
    q->btime[i] = INFINITY;
  }
  /* every leaf empty: any ball may win a node */
  for (size_t i = 0; i < L; i++) {
    q->khi[i] = q->klo[i] = UINT64_MAX;
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
  free(q->btime);
  free(q->khi);
  free(q->klo);
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

int sim_queue_grow_to(sim_qlist *l, uint32_t k) {
  while (l->n + k > l->cap)
    if (sim_queue_grow(l)) return -1;
  return 0;
}
