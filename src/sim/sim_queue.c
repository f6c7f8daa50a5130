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

/* (*kh, *cur) = (sh, sib) when sh < *kh, by conditional moves: the
   compiler, left to itself, branches on the comparison, whose outcome the
   processor cannot guess. */
static inline void qselect(uint64_t sh, uint32_t sib, uint64_t *kh, uint32_t *cur) {
#if defined(__x86_64__) && defined(__GNUC__)
  __asm__("cmpq %[k], %[s]\n\tcmovbq %[s], %[k]\n\tcmovbl %[j], %[c]"
          : [k] "+r"(*kh), [c] "+r"(*cur)
          : [s] "r"(sh), [j] "r"(sib)
          : "cc");
#else
  int sw = sh < *kh;
  *cur = sw ? sib : *cur;
  *kh = sw ? sh : *kh;
#endif
}

/* (*bt, *best) = (t, k) when t < *bt (t and *bt not equal), by a
   conditional move and a minimum. */
static inline void qselect_time(double t, uint32_t k, double *bt, uint32_t *best) {
#if defined(__x86_64__) && defined(__GNUC__)
  __asm__("ucomisd %[b], %[t]\n\tcmovbl %[k], %[i]\n\tminsd %[t], %[b]"
          : [b] "+x"(*bt), [i] "+r"(*best)
          : [t] "x"(t), [k] "r"(k)
          : "cc");
#else
  int lt = t < *bt;
  *best = lt ? k : *best;
  *bt = lt ? t : *bt;
#endif
}

/* Ball a's key from its earliest event, then the winners on its path to the
   root. A level compares the high halves of the keys (the time's bits) and
   looks at the low halves (the insertion number) only when they tie, which
   the processor rightly guesses never happens: one 64-bit selection a level
   instead of a 128-bit one, the same winners. */
static void key_update(sim_queue *q, uint32_t a) {
  const uint32_t b = q->best[a];
  const sim_qkey k = b == SIM_QNONE ? SIM_QKEY_EMPTY : sim_qkey_of(q->list[a].e[b].time, q->list[a].e[b].sk);
  uint64_t kh = (uint64_t)(k >> 64);
  q->khi[a] = kh;
  q->klo[a] = (uint64_t)k;
  const uint64_t *khi = q->khi, *klo = q->klo;
  uint32_t *win = q->win, cur = a;
  for (size_t i = q->lsize + a; i > 1; i >>= 1) {
    /* the sibling's winner takes the node when its key is smaller (keys of
       events never tie, their seq differ; empty leaves may) */
    uint32_t sib = win[i ^ 1];
    uint64_t sh = khi[sib];
    if (__builtin_expect(sh == kh, 0)) {
      int sw = klo[sib] < klo[cur];
      cur = sw ? sib : cur;
    } else
      qselect(sh, sib, &kh, &cur);
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

ev sim_queue_pop(sim_queue *q) {
  if (q->nd) sim_queue_flush(q);
  uint32_t a = q->win[1], m = q->best[a];
  sim_qlist *l = &q->list[a];
  ev top = sim_queue_ev(q, a, &l->e[m]);
  /* the last event takes m's place; then the list's next earliest */
  l->e[m] = l->e[--l->n];
  uint32_t best = SIM_QNONE;
  double bt = INFINITY;
  const sim_qev *e = l->e;
  for (uint32_t k = 0; k < l->n; k++) {
    const double t = e[k].time;
    if (__builtin_expect(t == bt, 0)) { /* a tie in time (never with +infinity): the older first */
      if (e[k].sk < e[best].sk) best = k;
    } else
      qselect_time(t, k, &bt, &best); /* a selection, no branch on the times */
  }
  q->best[a] = best;
  q->btime[a] = bt;
  sim_qmark(q, a);
  return top;
}

