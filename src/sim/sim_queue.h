/* sim_queue.h: the simulation's event queue: per-ball event lists under a tournament tree of balls (private). */
#ifndef TOI_SIM_QUEUE_H
#define TOI_SIM_QUEUE_H

#include <stddef.h>
#include <stdint.h>

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

/// One event in its ball's list (`next`: the next node, or UINT32_MAX).
typedef struct sim_qnode {
  ev e;
  uint32_t next;
} sim_qnode;

/// A ball's earliest event as the tree sees it: its time's bits, ordered as
/// the times are, above its seq, so that one unsigned comparison orders
/// (time, seq); all ones: no event (sim_queue.c).
__extension__ typedef unsigned __int128 sim_qkey;

/*
 * Each event sits in the list of its ball `a` (the ball it was predicted
 * for); a tournament tree over the balls holds one key per ball, its
 * earliest (time, seq), and each inner node the ball whose key is the
 * smallest below it, so the root is the earliest event of all. An event's
 * `ca` is its ball's change counter at prediction: a push for ball a with a
 * newer counter than the list's drops the whole list first (every event in
 * it is stale). Events made stale by their partner b stay until they come
 * first and are dropped by the caller, as in a heap with lazy invalidation.
 * Pops come in exactly the (time, seq) order of the events pushed and not
 * dropped.
 * A ball's key is brought up to date once before the next pop, not at every
 * push to its list: an event changes one or two balls, whose lists are
 * dropped and filled again by several pushes.
 */
typedef struct sim_queue {
  size_t n;
  uint32_t *head, *best, *lcnt; /* per ball: list, its earliest node, counter */
  sim_qkey *key;                /* per leaf (lsize, balls then padding): the ball's earliest event */
  uint32_t *win;                /* 2 lsize: win[i] the ball winning node i; leaves at lsize + ball */
  size_t lsize;                 /* leaves: n rounded up to a power of 2 */
  size_t hn;                    /* balls with a key */
  sim_qnode *pool;
  size_t pn, pcap;
  uint32_t free_;
  uint64_t seq;
  uint32_t *dirty; /* balls whose key waits for the next flush */
  size_t nd;
  uint8_t *isdirty;
} sim_queue;

/// -1 when out of memory (nothing left allocated).
int sim_queue_init(sim_queue *q, size_t n);
void sim_queue_free(sim_queue *q);

/// Adds e with the next insertion number. -1 when out of memory.
int sim_queue_push(sim_queue *q, ev e);
/// Adds e with insertion number seq, reserved earlier from q->seq (a batched
/// prediction keeps the place it had when it was asked). -1 when out of memory.
int sim_queue_push_seq(sim_queue *q, ev e, uint64_t seq);

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

#endif
