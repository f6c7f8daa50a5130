/* sim_queue.h: the simulation's event queue: per-ball event lists under a tournament tree of balls (private). */
#ifndef TOI_SIM_QUEUE_H
#define TOI_SIM_QUEUE_H

#include <emmintrin.h>
#include <math.h>
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

/// An event as its ball's list holds it: its ball a and counter ca are the
/// list's (every event in a ball's list has the list's counter), its kind is
/// in the two low bits of sk above which sits its seq, so that sk orders as
/// seq does. 40 bytes where an ev takes 56.
typedef struct sim_qev {
  double time, base, dt;
  uint64_t sk; /* seq << 2 | kind */
  uint32_t b, cb;
} sim_qev;

/// A ball's events: n of them in e (cap allocated), in no particular order.
typedef struct sim_qlist {
  sim_qev *e;
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
  double *btime;                /* per ball: its earliest event's time (+infinity: none; times are finite) */
  uint64_t *khi, *klo;          /* per leaf (lsize, balls then padding): the ball's earliest event's key,
                                   its high and low halves (the tree compares the high ones) */
  uint32_t *win;                /* 2 lsize: win[i] the ball winning node i; leaves at lsize + ball */
  size_t lsize;                 /* leaves: n rounded up to a power of 2 */
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

/* (time, sk) as one unsigned number in the same order as (time, seq): a
   double's bits, its sign bit flipped when positive and every bit flipped
   when negative, order as the doubles do (-0 is made +0 first: the two
   compare equal); sk orders as seq does (seqs are distinct, the kind is
   below them). Times are never NaN (the run refuses a NaN prediction). */
static inline sim_qkey sim_qkey_of(double time, uint64_t sk) {
  double t = time + 0.0;
  uint64_t u;
  memcpy(&u, &t, sizeof u);
  u ^= (uint64_t)(-(int64_t)(u >> 63)) | (UINT64_C(1) << 63);
  return (sim_qkey)u << 64 | sk;
}

/* m (all ones or 0) ? x : y, by masks on the bits. */
static inline double sim_select_time(uint64_t m, double x, double y) {
  uint64_t ux, uy;
  memcpy(&ux, &x, sizeof ux);
  memcpy(&uy, &y, sizeof uy);
  ux = (ux & m) | (uy & ~m);
  memcpy(&x, &ux, sizeof x);
  return x;
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
  q->btime[a] = INFINITY;
}

/// Room for one more event in the list; -1 when out of memory.
int sim_queue_grow(sim_qlist *l);

/// Room for k more events in the list, grown one sim_queue_grow at a time
/// (apart from the callers: seldom needed); -1 when out of memory.
int sim_queue_grow_to(sim_qlist *l, uint32_t k);

/// Adds e with insertion number seq (below 2^62), reserved earlier from
/// q->seq (a batched prediction keeps the place it had when it was asked).
/// -1 when out of memory.
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
  uint64_t sk = seq << 2 | e.kind;
  l->e[k] = (sim_qev){.time = e.time, .base = e.base, .dt = e.dt, .sk = sk, .b = e.b, .cb = e.cb};
  /* the earliest kept by masks: whether the new event is earlier is no
     pattern the processor can guess (seq may be below the list's: a
     batched prediction's, reserved earlier, so ties compare it) */
  const uint32_t b = q->best[a], none = b == SIM_QNONE;
  const sim_qev *be = &l->e[none ? k : b];
  uint64_t lt = -(uint64_t)(none | (sim_qkey_of(e.time, sk) < sim_qkey_of(be->time, be->sk)));
  q->best[a] = b ^ ((b ^ k) & (uint32_t)lt);
  q->btime[a] = sim_select_time(lt, e.time, q->btime[a]);
  sim_qmark(q, a);
  return 0;
}

/// Room for k more events in ball a's list, whose events from now on carry
/// counter ca (older ones are dropped: all stale). -1 when out of memory.
static inline int sim_queue_room(sim_queue *q, uint32_t a, uint32_t ca, uint32_t k) {
  if (q->lcnt[a] != ca) {
    sim_qdrop(q, a);
    sim_qmark(q, a);
    q->lcnt[a] = ca;
  }
  sim_qlist *l = &q->list[a];
  if (__builtin_expect(l->n + k > l->cap, 0)) return sim_queue_grow_to(l, k);
  return 0;
}

/// sim_queue_room for 2 events.
static inline int sim_queue_room2(sim_queue *q, uint32_t a, uint32_t ca) { return sim_queue_room(q, a, ca, 2); }

/// Writes x at the end of ball a's list (room made by sim_queue_room2) and
/// keeps it when keep is 1, not when 0: a push without a branch (the caller
/// marks the ball when it kept any: sim_qmark). x's seq must be above those
/// of the list's events (a fresh one from q->seq): x is then the earliest
/// when its time is below theirs, ties going to the older.
static inline void sim_queue_put(sim_queue *q, uint32_t a, const sim_qev *x, uint32_t keep) {
  sim_qlist *l = &q->list[a];
  uint32_t k = l->n;
  /* field by field: a copy of the whole record would be built on the stack
     and read back in wider loads than its stores */
  sim_qev *d = &l->e[k];
  d->time = x->time;
  d->base = x->base;
  d->dt = x->dt;
  d->sk = x->sk;
  d->b = x->b;
  d->cb = x->cb;
  l->n = k + keep;
  /* earlier than the list's earliest, in time alone: x's seq is above
     theirs (-0 and +0 compare equal, as in the keys) */
  const __m128d xt = _mm_set_sd(x->time), bt = _mm_load_sd(&q->btime[a]);
  const __m128d m = _mm_and_pd(_mm_cmplt_sd(xt, bt), _mm_castsi128_pd(_mm_cvtsi64_si128(-(int64_t)keep)));
  const uint64_t lt = (uint64_t)_mm_cvtsi128_si64(_mm_castpd_si128(m));
  q->best[a] ^= (q->best[a] ^ k) & (uint32_t)lt;
  _mm_store_sd(&q->btime[a], _mm_or_pd(_mm_and_pd(m, xt), _mm_andnot_pd(m, bt)));
}

/// Adds e with the next insertion number. -1 when out of memory.
static inline int sim_queue_push(sim_queue *q, ev e) { return sim_queue_push_seq(q, e, q->seq++); }

/* (*kh, *cur) = (sh, sib) when sh < *kh, by conditional moves: the
   compiler, left to itself, branches on the comparison, whose outcome the
   processor cannot guess. Returns sh == *kh (the comparison's own flag, no
   second comparison): a tie, left to the caller. */
static inline int sim_qselect(uint64_t sh, uint32_t sib, uint64_t *kh, uint32_t *cur) {
#if defined(__x86_64__) && defined(__GNUC__) && defined(__GCC_ASM_FLAG_OUTPUTS__)
  int eq;
  __asm__("cmpq %[k], %[s]\n\tcmovbq %[s], %[k]\n\tcmovbl %[j], %[c]"
          : [k] "+r"(*kh), [c] "+r"(*cur), "=@ccz"(eq)
          : [s] "r"(sh), [j] "r"(sib)
          : "cc");
  return eq;
#else
  int sw = sh < *kh, eq = sh == *kh;
  *cur = sw ? sib : *cur;
  *kh = sw ? sh : *kh;
  return eq;
#endif
}

/* Ball a's key from its earliest event, then the winners on its path to the
   root. A level compares the high halves of the keys (the time's bits) and
   looks at the low halves (the insertion number) only when they tie, which
   the processor rightly guesses never happens: one 64-bit selection a level
   instead of a 128-bit one, the same winners. */
static inline void sim_qkey_update(sim_queue *q, uint32_t a) {
  const uint32_t b = q->best[a];
  const sim_qkey k = b == SIM_QNONE ? SIM_QKEY_EMPTY : sim_qkey_of(q->list[a].e[b].time, q->list[a].e[b].sk);
  uint64_t kh = (uint64_t)(k >> 64);
  q->khi[a] = kh;
  q->klo[a] = (uint64_t)k;
  const uint64_t *khi = q->khi, *klo = q->klo;
  uint32_t *win = q->win, cur = a;
  for (size_t i = q->lsize + a; i > 1; i >>= 1) {
    /* the sibling's winner takes the node when its key is smaller (keys of
       events never tie, their seq differ; empty leaves may): on a tie in
       the high halves the selection leaves cur, and the low halves decide */
    uint32_t sib = win[i ^ 1];
    if (__builtin_expect(sim_qselect(khi[sib], sib, &kh, &cur), 0)) {
      int sw = klo[sib] < klo[cur];
      cur = sw ? sib : cur;
    }
    win[i >> 1] = cur;
  }
}

/// Brings the tree's keys up to date with the lists: inline, in the event
/// loop that calls it before every pop.
static inline void sim_queue_flush(sim_queue *q) {
  for (size_t i = 0; i < q->nd; i++) {
    uint32_t a = q->dirty[i];
    q->isdirty[a] = 0;
    sim_qkey_update(q, a);
  }
  q->nd = 0;
}

/// 1 when no event is left: the root's key is empty (an event's key never
/// has its high half all ones: that would be a NaN time).
static inline int sim_queue_empty(sim_queue *q) {
  if (q->nd) sim_queue_flush(q);
  return q->khi[q->win[1]] == UINT64_MAX;
}

/// Drops every event of ball a's list (they are all stale).
void sim_queue_drop_ball(sim_queue *q, uint32_t a);

/// The event as pushed (its seq in seq) from ball a's list entry x.
static inline ev sim_queue_ev(const sim_queue *q, uint32_t a, const sim_qev *x) {
  return (ev){.time = x->time, .base = x->base, .dt = x->dt, .seq = x->sk >> 2, .a = a, .b = x->b,
              .ca = q->lcnt[a], .cb = x->cb, .kind = (uint8_t)(x->sk & 3)};
}

/// Ball a's pending events, *n of them, in no particular order (sim_queue_ev
/// gives each as pushed).
static inline const sim_qev *sim_queue_events(const sim_queue *q, uint32_t a, uint32_t *n) {
  *n = q->list[a].n;
  return q->list[a].e;
}

/* (*bt, *best) = (t, k) when t < *bt (t and *bt not equal), by a
   conditional move and a minimum. */
static inline void sim_qselect_time(double t, uint32_t k, double *bt, uint32_t *best) {
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

/// Removes and returns the earliest event (the queue must not be empty):
/// inline, so that the caller reads the event's fields from the list.
static inline ev sim_queue_pop(sim_queue *q) {
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
      sim_qselect_time(t, k, &bt, &best); /* a selection, no branch on the times */
  }
  q->best[a] = best;
  q->btime[a] = bt;
  sim_qmark(q, a);
  return top;
}

#endif
