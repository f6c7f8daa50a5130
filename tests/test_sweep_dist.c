/* test_sweep_dist.c: the library side of toibench-mpi (sweep_dist.c, hunt_dist.c) without MPI: threads play
 * 1 to 3 processes over a transport in shared memory, and rank 0 gets the bytes of one process's sweep and
 * the lists of one process's hunt. */
#include <criterion/criterion.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hunt.h"
#include "sweep.h"

#define MAXP 3

/* What the processes share: the unit counter, a barrier, the gathered buffers, a broadcast slot. */
typedef struct world {
  int size;
  atomic_uint_least64_t counter;
  pthread_barrier_t bar;
  const void *buf[MAXP];
  size_t len[MAXP];
  uint64_t v;
} world;

typedef struct proc {
  world *w;
  int rank;
  uint64_t base;
  sweep_dist d;
} proc;

static uint64_t f_next(void *ud, uint64_t n) {
  proc *p = ud;
  uint64_t v = atomic_fetch_add(&p->w->counter, 1) - p->base;
  if (v < n) return v;
  pthread_barrier_wait(&p->w->bar);
  p->base += n + (uint64_t)p->w->size;
  return n;
}

static int f_gather(void *ud, const void *buf, size_t len, int all, unsigned char **out, size_t *lens) {
  proc *p = ud;
  world *w = p->w;
  w->buf[p->rank] = buf;
  w->len[p->rank] = len;
  pthread_barrier_wait(&w->bar);
  *out = NULL;
  if (all || p->rank == 0) {
    size_t total = 0;
    for (int r = 0; r < w->size; r++) total += w->len[r];
    *out = malloc(total + 1);
    for (int r = 0, at = 0; r < w->size; at += (int)w->len[r], r++) {
      memcpy(*out + at, w->buf[r], w->len[r]);
      if (lens) lens[r] = w->len[r];
    }
  }
  pthread_barrier_wait(&w->bar);
  return 0;
}

static uint64_t f_bcast(void *ud, uint64_t v) {
  proc *p = ud;
  if (p->rank == 0) p->w->v = v;
  pthread_barrier_wait(&p->w->bar);
  v = p->w->v;
  pthread_barrier_wait(&p->w->bar);
  return v;
}

/* ---- sweep ---- */

typedef struct sweep_job {
  proc p;
  const gen_opts *g;
  const toi_candidate *cands;
  size_t nc, nbins;
  uint64_t count;
  sweep_acc acc;
  int rc;
} sweep_job;

static void *sweep_thread(void *arg) {
  sweep_job *j = arg;
  sweep_opts so = {j->g, 0, j->count, 2, NULL, INFINITY, 10, TOI_REF_FAST, NULL, NULL};
  sweep_tally tally[4];
  memset(tally, 0, sizeof tally);
  j->rc = sweep_dist_drive(&j->p.d, &j->acc, j->cands, j->nc, j->nbins, &so, tally);
  return NULL;
}

/* The result file of acc as a string (the caller frees it). */
static char *result_text(const gen_opts *g, uint64_t count, const toi_candidate *cands, size_t nc,
                         const sweep_acc *acc) {
  sweep_meta m;
  cr_assert_eq(sweep_meta_init(&m, g, count, NULL, 0), 0);
  for (size_t k = 0; k < nc; k++) snprintf(m.forms[m.nform++], sizeof m.forms[0], "%s", cands[k].name);
  char *text = NULL;
  size_t n = 0;
  FILE *f = open_memstream(&text, &n);
  cr_assert_not_null(f);
  cr_assert_eq(sweep_write(f, &m, acc), 0);
  fclose(f);
  sweep_meta_free(&m);
  return text;
}

static void world_init(world *w, int k) {
  memset(w, 0, sizeof *w);
  w->size = k;
  atomic_init(&w->counter, 0);
  cr_assert_eq(pthread_barrier_init(&w->bar, NULL, (unsigned)k), 0);
}

static void dist_of(proc *p, int rank, world *w) {
  p->w = w;
  p->rank = rank;
  p->base = 0;
  p->d = (sweep_dist){p, rank, w->size, f_next, f_gather, f_bcast};
}

/* 70000 cases are five units of 16384: with 1, 2 or 3 processes rank 0's accumulator writes the bytes of
 * sweep_drive's. */
Test(sweep_dist, threads_as_processes_same_bytes, .timeout = 120) {
  gen_opts g;
  gen_opts_default(&g, GEN_GRAZING);
  toi_candidate cands[2];
  toi_candidate_formulation(&cands[0], toi_formulation_find("robust"));
  toi_candidate_formulation(&cands[1], toi_formulation_find("expanded"));
  size_t nbins = gen_bin_count(&g);
  uint64_t count = 70000;
  sweep_opts so = {&g, 0, count, 2, NULL, INFINITY, 10, TOI_REF_FAST, NULL, NULL};
  sweep_tally tally[2];
  memset(tally, 0, sizeof tally);
  sweep_acc one;
  cr_assert_eq(sweep_drive(&one, cands, 2, nbins, &so, tally), 0);
  char *want = result_text(&g, count, cands, 2, &one);
  sweep_acc_free(&one);
  for (int k = 1; k <= MAXP; k++) {
    world w;
    sweep_job jobs[MAXP];
    pthread_t th[MAXP];
    world_init(&w, k);
    for (int r = 0; r < k; r++) {
      jobs[r] = (sweep_job){.g = &g, .cands = cands, .nc = 2, .nbins = nbins, .count = count};
      dist_of(&jobs[r].p, r, &w);
      cr_assert_eq(pthread_create(&th[r], NULL, sweep_thread, &jobs[r]), 0);
    }
    for (int r = 0; r < k; r++) pthread_join(th[r], NULL);
    for (int r = 0; r < k; r++) cr_assert_eq(jobs[r].rc, 0, "%d processes: rank %d failed", k, r);
    char *got = result_text(&g, count, cands, 2, &jobs[0].acc);
    cr_assert_str_eq(got, want, "%d processes: rank 0's result differs from one process's", k);
    free(got);
    for (int r = 0; r < k; r++) sweep_acc_free(&jobs[r].acc);
    pthread_barrier_destroy(&w.bar);
  }
  free(want);
}

/* Packing an accumulator and unpacking it gives the same result; bytes of another shape are refused. */
Test(sweep_dist, pack_unpack) {
  gen_opts g;
  gen_opts_default(&g, GEN_NEAR_CONTACT);
  toi_candidate c;
  toi_candidate_formulation(&c, toi_formulation_find("ericson"));
  size_t nbins = gen_bin_count(&g);
  sweep_opts so = {&g, 0, 3000, 1, NULL, INFINITY, 10, TOI_REF_FAST, NULL, NULL};
  sweep_tally tally;
  memset(&tally, 0, sizeof tally);
  sweep_acc a, b;
  cr_assert_eq(sweep_drive(&a, &c, 1, nbins, &so, &tally), 0);
  size_t len;
  unsigned char *p = sweep_acc_pack(&a, &len);
  cr_assert_not_null(p);
  cr_assert_eq(sweep_acc_unpack(&b, p, len, 1, nbins), 0);
  char *ta = result_text(&g, 3000, &c, 1, &a), *tb = result_text(&g, 3000, &c, 1, &b);
  cr_assert_str_eq(ta, tb);
  sweep_acc c2;
  cr_assert_eq(sweep_acc_unpack(&c2, p, len - 1, 1, nbins), -1);
  cr_assert_eq(sweep_acc_unpack(&c2, p, len, 2, nbins), -1);
  free(ta);
  free(tb);
  free(p);
  sweep_acc_free(&a);
  sweep_acc_free(&b);
}

/* ---- hunt ---- */

typedef struct hunt_job {
  proc p;
  const toi_candidate *cand;
  const gen_opts *g;
  hunt_result *r;
  int rc;
} hunt_job;

static void *hunt_thread(void *arg) {
  hunt_job *j = arg;
  toi_quota q = {0};
  hunt_opts o = {j->g, 20000, 4, 1, INFINITY, 10, 0, TOI_REF_FAST, NULL, NULL, &q, &j->p.d};
  j->rc = hunt_search(j->r, j->cand, &o);
  return NULL;
}

static void same_list(const hunt_list *a, const hunt_list *b, const char *what, int k) {
  cr_assert_eq(a->n, b->n, "%s, %d processes: %d cases, not %d", what, k, b->n, a->n);
  for (int i = 0; i < a->n; i++) {
    const hunt_found *x = &a->items[i], *y = &b->items[i];
    cr_assert_str_eq(y->note, x->note, "%s, %d processes, item %d", what, k, i);
    cr_assert_str_eq(y->c.id, x->c.id);
    cr_assert_eq(memcmp(x->c.pa, y->c.pa, sizeof x->c.pa), 0);
    cr_assert_eq(memcmp(x->c.vb, y->c.vb, sizeof x->c.vb), 0);
    cr_assert_eq(memcmp(&x->err, &y->err, sizeof x->err), 0);
    cr_assert_eq(x->index, y->index);
  }
}

/* Rank 0's lists and counters are one process's, for 1, 2 and 3 processes. */
Test(sweep_dist, hunt_threads_as_processes, .timeout = 120) {
  gen_opts g;
  gen_opts_default(&g, GEN_GRAZING);
  toi_candidate cand;
  toi_candidate_formulation(&cand, toi_formulation_find("robust"));
  toi_quota q = {0};
  hunt_opts o = {&g, 20000, 4, 1, INFINITY, 10, 0, TOI_REF_FAST, NULL, NULL, &q, NULL};
  hunt_result *one = calloc(1 + MAXP, sizeof *one);
  cr_assert_not_null(one);
  cr_assert_eq(hunt_search(one, &cand, &o), 0);
  cr_assert_gt(one->best[HUNT_BY_ULP].n, 0);
  for (int k = 1; k <= MAXP; k++) {
    world w;
    hunt_job jobs[MAXP];
    pthread_t th[MAXP];
    world_init(&w, k);
    for (int r = 0; r < k; r++) {
      jobs[r] = (hunt_job){.cand = &cand, .g = &g, .r = &one[1 + r]};
      dist_of(&jobs[r].p, r, &w);
      cr_assert_eq(pthread_create(&th[r], NULL, hunt_thread, &jobs[r]), 0);
    }
    for (int r = 0; r < k; r++) pthread_join(th[r], NULL);
    for (int r = 0; r < k; r++) cr_assert_eq(jobs[r].rc, 0);
    const hunt_result *got = &one[1];
    for (int l = 0; l < HUNT_L_COUNT; l++) same_list(&one->lists[l], &got->lists[l], "list", k);
    same_list(&one->best[0], &got->best[0], "best by ulp", k);
    same_list(&one->best[1], &got->best[1], "best by ratio", k);
    cr_assert_eq(got->sent, one->sent);
    cr_assert_eq(got->rounds, one->rounds);
    pthread_barrier_destroy(&w.bar);
  }
  free(one);
}
