/* test_sim_queue.c: the simulation's event queue against a plain list searched for its (time, seq) minimum. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include "sim.h"
#include "sim_queue.h"
#include "test_env.h"
#include "test_rng.h"

typedef struct model_ev {
  double time;
  uint64_t seq;
  uint32_t a, ca;
  int live;
} model_ev;

/* The live event of the model with the smallest (time, seq); -1 when none. */
static long model_min(const model_ev *m, size_t n) {
  long best = -1;
  for (size_t i = 0; i < n; i++) {
    if (!m[i].live) continue;
    if (best < 0 || m[i].time < m[best].time ||
        (m[i].time == m[best].time && m[i].seq < m[best].seq))
      best = (long)i;
  }
  return best;
}

static void model_drop(model_ev *m, size_t n, uint32_t a) {
  for (size_t i = 0; i < n; i++)
    if (m[i].a == a) m[i].live = 0;
}

/* Random pushes (times from a few values, -0 and +0 among them, so ties in time are frequent),
   changes of a ball (its next push carries a new counter and must drop its
   older events), explicit drops and pops: every pop must be the model's
   earliest live event by (time, seq), the insertion order breaking ties. */
static void check_queue(uint32_t BALLS, int rounds, uint64_t seed) {
  enum { OPS = 20000 };
  test_rng r = {seed};
  for (int round = 0; round < rounds; round++) {
    sim_queue q;
    cr_assert_eq(sim_queue_init(&q, BALLS), 0);
    model_ev *m = calloc(OPS, sizeof *m);
    uint32_t *cnt = calloc(BALLS, sizeof *cnt);
    size_t nm = 0;
    uint64_t pops = 0, ties = 0;
    for (int op = 0; op < OPS; op++) {
      long k = test_rng_int(&r, 0, 9);
      uint32_t a = (uint32_t)test_rng_int(&r, 0, (long)BALLS - 1);
      if (k < 5) {
        if (test_rng_int(&r, 0, 7) == 0) {
          cnt[a]++;
          model_drop(m, nm, a);
        }
        double t = (double)test_rng_int(&r, 0, 30) * 0.25;
        if (t == 0 && (op & 1)) t = -0.0; /* -0 ties with +0: the insertion order decides */
        ev e = {.time = t, .a = a, .b = (uint32_t)test_rng_int(&r, 0, (long)BALLS - 1), .ca = cnt[a]};
        cr_assert_eq(sim_queue_push(&q, e), 0);
        m[nm] = (model_ev){t, nm, a, cnt[a], 1};
        nm++;
      } else if (k == 5) {
        sim_queue_drop_ball(&q, a);
        model_drop(m, nm, a);
      } else {
        long want = model_min(m, nm);
        cr_assert_eq(sim_queue_empty(&q), want < 0, "op %d: empty %d, model %ld", op,
                     sim_queue_empty(&q), want);
        if (want < 0) continue;
        ev got = sim_queue_pop(&q);
        cr_assert_eq(got.seq, m[want].seq, "op %d: popped seq %llu at %g, want %llu at %g", op,
                     (unsigned long long)got.seq, got.time, (unsigned long long)m[want].seq,
                     m[want].time);
        cr_assert_eq(got.a, m[want].a);
        cr_assert_eq(got.ca, m[want].ca);
        cr_assert_eq(got.time, m[want].time);
        long other = -1;
        for (size_t i = 0; i < nm && other < 0; i++)
          if (m[i].live && (long)i != want && m[i].time == m[want].time) other = (long)i;
        ties += other >= 0;
        m[want].live = 0;
        pops++;
      }
    }
    while (model_min(m, nm) >= 0) {
      long want = model_min(m, nm);
      cr_assert(!sim_queue_empty(&q));
      cr_assert_eq(sim_queue_pop(&q).seq, m[want].seq);
      m[want].live = 0;
    }
    cr_assert(sim_queue_empty(&q));
    cr_assert_gt(pops, 1000);
    cr_assert_gt(ties, 100, "the draws must produce ties in time (%llu)", (unsigned long long)ties);
    free(m);
    free(cnt);
    sim_queue_free(&q);
  }
}

Test(sim_queue, pops_in_time_then_insertion_order) { check_queue(40, 4 * (int)te_scale(), te_seed(29)); }

/* The tree's leaves are the balls padded to a power of 2: one ball (the root
   is its leaf), a power of 2, one more (a tree twice as wide, nearly all
   padding) and the simulation's N = 1000. */
Test(sim_queue, any_number_of_balls) {
  static const uint32_t sizes[] = {1, 2, 3, 64, 65, 1000};
  for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
    check_queue(sizes[i], (int)te_scale(), te_seed(31 + (int)i));
}

/* A ball's list holds an event in 40 bytes (its ball and counter are the
   list's, its kind beside its seq): every field comes back as pushed, kind
   and all, and the order is (time, seq) whatever the kinds. */
Test(sim_queue, events_come_back_as_pushed) {
  cr_assert_eq(sizeof(sim_qev), 40);
  sim_queue q;
  cr_assert_eq(sim_queue_init(&q, 3), 0);
  ev in[6] = {
      {.time = 2, .base = 0.5, .dt = 1.5, .a = 1, .b = 2, .ca = 7, .cb = 9, .kind = SIM_EV_PAIR},
      {.time = 1, .base = 0.25, .dt = 0.75, .a = 1, .b = 3, .ca = 7, .kind = SIM_EV_WALL},
      {.time = 1, .a = 1, .b = 4, .ca = 7, .kind = SIM_EV_CELL},
      {.time = 1, .base = -0.0, .dt = 0x1p-1074, .a = 0, .b = 1, .ca = 0, .cb = UINT32_MAX, .kind = SIM_EV_PAIR},
      {.time = 3, .a = 2, .b = 5, .ca = UINT32_MAX, .kind = SIM_EV_CELL},
      {.time = 0.5, .base = 0.5, .dt = 0, .a = 2, .b = 0, .ca = UINT32_MAX, .cb = 1, .kind = SIM_EV_PAIR},
  };
  uint64_t seqs[6] = {5, 3, 4, (UINT64_C(1) << 62) - 1, 0, 1};
  for (int i = 0; i < 6; i++) cr_assert_eq(sim_queue_push_seq(&q, in[i], seqs[i]), 0);
  /* by (time, seq): 5, then 1 (seq 3), 2 (seq 4), 3 (seq 2^62 - 1), 0, 4 */
  const int order[6] = {5, 1, 2, 3, 0, 4};
  for (int i = 0; i < 6; i++) {
    cr_assert(!sim_queue_empty(&q));
    ev got = sim_queue_pop(&q), *w = &in[order[i]];
    cr_assert_eq(got.seq, seqs[order[i]], "pop %d: seq %llu", i, (unsigned long long)got.seq);
    cr_assert(!memcmp(&got.time, &w->time, 8) && !memcmp(&got.base, &w->base, 8) && !memcmp(&got.dt, &w->dt, 8));
    cr_assert(got.a == w->a && got.b == w->b && got.ca == w->ca && got.kind == w->kind, "pop %d", i);
    if (w->kind == SIM_EV_PAIR) cr_assert_eq(got.cb, w->cb);
  }
  cr_assert(sim_queue_empty(&q));
  sim_queue_free(&q);
}

/* sim_queue_room2 and sim_queue_put (a push kept or not by its flag) leave
   the queue as sim_queue_push_seq does for the kept events alone: two
   queues fed the same random events, one each way, pop the same events
   that are not stale. */
Test(sim_queue, put_is_a_push_when_kept) {
  enum { BALLS = 50, OPS = 20000 };
  test_rng r = {te_seed(37)};
  sim_queue q[2];
  cr_assert_eq(sim_queue_init(&q[0], BALLS), 0);
  cr_assert_eq(sim_queue_init(&q[1], BALLS), 0);
  uint32_t cnt[BALLS] = {0};
  uint64_t seq = 0, pops = 0, dropped = 0;
  for (int op = 0; op < OPS; op++) {
    uint32_t a = (uint32_t)test_rng_int(&r, 0, BALLS - 1);
    long k = test_rng_int(&r, 0, 9);
    if (k < 6) {
      if (test_rng_int(&r, 0, 7) == 0) cnt[a]++;
      cr_assert_eq(sim_queue_room2(&q[1], a, cnt[a]), 0);
      uint32_t kept = 0;
      for (int lane = 0; lane < 2; lane++) {
        uint32_t keep = test_rng_int(&r, 0, 2) != 0;
        ev e = {.time = (double)test_rng_int(&r, 0, 30) * 0.25, .base = (double)op, .dt = 0.5, .a = a,
                .b = (uint32_t)test_rng_int(&r, 0, BALLS - 1), .ca = cnt[a], .cb = (uint32_t)op,
                .kind = SIM_EV_PAIR};
        sim_qev x = {.time = e.time, .base = e.base, .dt = e.dt, .sk = seq << 2 | SIM_EV_PAIR, .b = e.b, .cb = e.cb};
        if (keep) cr_assert_eq(sim_queue_push_seq(&q[0], e, seq), 0);
        sim_queue_put(&q[1], a, &x, keep);
        kept |= keep;
        dropped += !keep;
        seq += keep;
      }
      if (kept) sim_qmark(&q[1], a);
    } else if (k < 8) {
      /* as the run: events of a ball that changed since (its counter) are
         stale and skipped; room2 may drop them sooner than a push would */
      ev got[2];
      int any[2] = {0, 0};
      for (int w = 0; w < 2; w++)
        while (!any[w] && !sim_queue_empty(&q[w])) {
          got[w] = sim_queue_pop(&q[w]);
          any[w] = got[w].ca == cnt[got[w].a];
        }
      cr_assert_eq(any[0], any[1], "op %d", op);
      if (!any[0]) continue;
      ev x = got[0], y = got[1];
      cr_assert(x.seq == y.seq && x.time == y.time && x.a == y.a && x.b == y.b && x.cb == y.cb &&
                    x.base == y.base && x.ca == y.ca,
                "op %d: seq %llu and %llu", op, (unsigned long long)x.seq, (unsigned long long)y.seq);
      pops++;
    } else {
      sim_queue_drop_ball(&q[0], a);
      sim_queue_drop_ball(&q[1], a);
    }
  }
  cr_assert(pops > 1000 && dropped > 1000);
  sim_queue_free(&q[0]);
  sim_queue_free(&q[1]);
}
