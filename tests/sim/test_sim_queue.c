/* test_sim_queue.c: the simulation's event queue against a plain list searched for its (time, seq) minimum. */
#include <criterion/criterion.h>
#include <stdlib.h>
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

/* Random pushes (times from a few values, so ties in time are frequent),
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
