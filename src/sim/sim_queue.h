/* sim_queue.h: the simulation's event queue: per-ball event lists under a tournament tree of balls (private). */
#ifndef TOI_SIM_QUEUE_H
#define TOI_SIM_QUEUE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/// A predicted event. Events are ordered by (time, seq), seq being the
/// insertion number, so ties in time break the same way in any queue.
typedef struct ev {
  double time;   /* when it happens */
  double base;   /* pair: origin of the case; wall: the ball's reference time */
  double dt;     /* the kernel's answer from base */
  uint64_t seq;  /* insertion number: ties in time break deterministically */
  uint32_t a, b; /* balls; wall and cell events: b = 2 axis + side */
  uint32_t ca, cb;
  uint8_t kind;
} ev;

/// A ball's events: n of them in e (cap allocated), in no particular order.
typedef struct sim_qlist {
  ev *e;
  uint32_t n, cap;
} sim_qlist;

/// A ball's earliest event as the tree sees it: its time's bits, ordered as
/// the times are, above its seq, so that one unsigned comparison orders
/// (time, seq); all ones: no event (sim_queue.c).
__extension__ typedef unsigned __int128 sim_qkey;

/*
 * Each event sits in the list of its ball `a` (the ball it was predicted
 * for), an array of its own; a tournament tree over the balls holds one key
 * per ball, its earliest (time, seq), and each inner node the ball whose key
 * is the smallest below it, so the root is the earliest event of all. An
 * event's `ca` is its ball's change counter at prediction: a push for ball a
 * with a newer counter than the list's empties the list first (every event
 * in it is stale: the array is reused from its start, nothing is walked).
 * Events made stale by their partner b stay until they come first and are
 * dropped by the caller, as in a heap with lazy invalidation. Pops come in
 * exactly the (time, seq) order of the events pushed and not dropped.
 * A ball's key is brought up to date once before the next pop, not at every
 * push to its list: an event changes one or two balls, whose lists are
 * dropped and filled again by several pushes.
 */
typedef struct sim_queue {
  size_t n;
  sim_qlist *list;              /* per ball: its events */
  uint32_t *best, *lcnt;        /* per ball: its earliest event's index in list, counter */
  sim_qkey *key;                /* per leaf (lsize, balls then padding): the ball's earliest event */
  uint32_t *win;                /* 2 lsize: win[i] the ball winning node i; leaves at lsize + ball */
  size_t lsize;                 /* leaves: n rounded up to a power of 2 */
  size_t hn;                    /* balls with a key */
  uint64_t seq;
  uint32_t *dirty; /* balls whose key waits for the next flush */
  size_t nd;
  uint8_t *isdirty;
} sim_queue;

/// -1 when out of memory (nothing left allocated).
int sim_queue_init(sim_queue *q, size_t n);
void sim_queue_free(sim_queue *q);

/* The pushes are inline: the caller's event is then written once, into its
   ball's list, rather than passed through the stack. */

#define SIM_QNONE UINT32_MAX

#define SIM_QKEY_EMPTY (~(sim_qkey)0)

/* (time, seq) as one unsigned number in the same order: a double's bits,
   its sign bit flipped when positive and every bit flipped when negative,
   order as the doubles do (-0 is made +0 first: the two compare equal).
   Times are never NaN (the run refuses a NaN prediction). */
static inline sim_qkey sim_qkey_of(double time, uint64_t seq) {
  double t = time + 0.0;
  uint64_t u;
  memcpy(&u, &t, sizeof u);
  u ^= (uint64_t)(-(int64_t)(u >> 63)) | (UINT64_C(1) << 63);
  return (sim_qkey)u << 64 | seq;
}

/* Ball a's key is due for an update. Until the flush the tree stays a tree
   of its stored keys; the flush moves each dirty ball's key to its list's
   earliest event. */
static inline void sim_qmark(sim_queue *q, uint32_t a) {
  if (q->isdirty[a]) return;
  q->isdirty[a] = 1;
  q->dirty[q->nd++] = a;
}

static inline void sim_qdrop(sim_queue *q, uint32_t a) {
  q->list[a].n = 0;
  q->best[a] = SIM_QNONE;
}

/// Room for one more event in the list; -1 when out of memory.
int sim_queue_grow(sim_qlist *l);

/// Adds e with insertion number seq, reserved earlier from q->seq (a batched
/// prediction keeps the place it had when it was asked). -1 when out of memory.
static inline int sim_queue_push_seq(sim_queue *q, ev e, uint64_t seq) {
  uint32_t a = e.a;
  if (q->lcnt[a] != e.ca) {
    sim_qdrop(q, a);
    q->lcnt[a] = e.ca;
  }
  sim_qlist *l = &q->list[a];
  if (l->n == l->cap && sim_queue_grow(l)) {
    sim_qmark(q, a);
    return -1;
  }
  uint32_t k = l->n++;
  e.seq = seq;
  l->e[k] = e;
  uint32_t b = q->best[a];
  sim_qkey bk = b == SIM_QNONE ? SIM_QKEY_EMPTY : sim_qkey_of(l->e[b].time, l->e[b].seq);
  q->best[a] = sim_qkey_of(e.time, e.seq) < bk ? k : b;
  sim_qmark(q, a);
  return 0;
}

/// Adds e with the next insertion number. -1 when out of memory.
static inline int sim_queue_push(sim_queue *q, ev e) { return sim_queue_push_seq(q, e, q->seq++); }

/// Brings the tree's keys up to date with the lists (see sim_queue.c).
void sim_queue_flush(sim_queue *q);

/// 1 when no event is left.
static inline int sim_queue_empty(sim_queue *q) {
  if (q->nd) sim_queue_flush(q);
  return q->hn == 0;
}

/// Removes and returns the earliest event (the queue must not be empty).
ev sim_queue_pop(sim_queue *q);

/// Drops every event of ball a's list (they are all stale).
void sim_queue_drop_ball(sim_queue *q, uint32_t a);

/// Ball a's pending events, *n of them, in no particular order.
static inline const ev *sim_queue_events(const sim_queue *q, uint32_t a, uint32_t *n) {
  *n = q->list[a].n;
  return q->list[a].e;
}

#endif
