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
  const toi_gen_opts *g;
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
static char *result_text(const toi_gen_opts *g, uint64_t count, const toi_candidate *cands, size_t nc,
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
  toi_gen_opts g;
  toi_gen_opts_default(&g, TOI_GEN_GRAZING);
  toi_candidate cands[2];
  toi_candidate_formulation(&cands[0], toi_formulation_find("robust"));
  toi_candidate_formulation(&cands[1], toi_formulation_find("expanded"));
  size_t nbins = toi_gen_bin_count(&g);
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
  toi_gen_opts g;
  toi_gen_opts_default(&g, TOI_GEN_NEAR_CONTACT);
  toi_candidate c;
  toi_candidate_formulation(&c, toi_formulation_find("ericson"));
  size_t nbins = toi_gen_bin_count(&g);
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

/* ---- the bytes between processes: little-endian fields of fixed width, whatever the host ---- */

/* The encoding as the format says (wire.h), written here by shifts, independently of the library. */
typedef struct le_buf {
  unsigned char b[1 << 16];
  size_t n;
} le_buf;

static void le_put(le_buf *w, uint64_t v, int bytes) {
  cr_assert_leq(w->n + (size_t)bytes, sizeof w->b);
  for (int i = 0; i < bytes; i++) w->b[w->n++] = (unsigned char)(v >> (8 * i));
}

static void le_f64(le_buf *w, double x) {
  uint64_t u;
  memcpy(&u, &x, sizeof u);
  le_put(w, u, 8);
}

static void le_str(le_buf *w, const char *s, size_t width) {
  size_t l = strlen(s);
  cr_assert_lt(l, width);
  for (size_t i = 0; i < width; i++) le_put(w, i < l ? (unsigned char)s[i] : 0, 1);
}

static void le_case(le_buf *w, const toi_case *c) {
  le_str(w, c->id, TOI_ID_MAX + 1);
  le_put(w, (uint32_t)c->dim, 4);
  for (int i = 0; i < 3; i++) le_f64(w, c->pa[i]);
  for (int i = 0; i < 3; i++) le_f64(w, c->va[i]);
  le_f64(w, c->ra);
  le_f64(w, c->ma);
  for (int i = 0; i < 3; i++) le_f64(w, c->pb[i]);
  for (int i = 0; i < 3; i++) le_f64(w, c->vb[i]);
  le_f64(w, c->rb);
  le_f64(w, c->mb);
}

/* A case whose every number has a different bit pattern, and a sign. */
static void known_case(toi_case *c, const char *id, double base) {
  memset(c, 0, sizeof *c);
  snprintf(c->id, sizeof c->id, "%s", id);
  c->dim = 3;
  for (int i = 0; i < 3; i++) {
    c->pa[i] = base + i;
    c->va[i] = -0x1.8p-3 * (i + 1);
    c->pb[i] = 0x1.123456789abcdp+40 + i;
    c->vb[i] = -base / (i + 3);
  }
  c->ra = 0.5, c->ma = 1, c->rb = 0x1p-1074, c->mb = 7;
}

static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

/* The 16 numbers of a case, in the order of the format. */
static void case_numbers(const toi_case *c, double v[16]) {
  const double *part[] = {c->pa, c->va, &c->ra, &c->ma, c->pb, c->vb, &c->rb, &c->mb};
  const int n[] = {3, 3, 1, 1, 3, 3, 1, 1};
  for (int k = 0, at = 0; k < 8; k++)
    for (int i = 0; i < n[k]; i++) v[at++] = part[k][i];
}

static void same_case(const toi_case *a, const toi_case *b) {
  cr_assert_str_eq(a->id, b->id);
  cr_assert_eq(a->dim, b->dim);
  double x[16], y[16];
  case_numbers(a, x);
  case_numbers(b, y);
  for (int i = 0; i < 16; i++) cr_assert(same_bits(x[i], y[i]), "number %d: %a, not %a", i, y[i], x[i]);
}

/* An accumulator of 1 column and 2 bins with a distinct known value in every field packs to exactly the
 * bytes of the format, and those bytes, made here, unpack to the known values: a process on a host of the
 * other byte order or with other padding reads what this one sent. */
Test(sweep_dist, packed_accumulator_is_little_endian_fields) {
  enum { NB = 2 };
  sweep_acc a;
  cr_assert_eq(sweep_acc_init(&a, 1, NB), 0);
  uint64_t v = 0x0102030405060708ULL;
  for (size_t b = 0; b < NB; b++) a.bincount[b] = v++;
  for (size_t k = 0; k < NB * TOI_CLASS_COUNT; k++) a.bincls[k] = (v++) << 20;
  for (size_t b = 0; b < NB; b++) {
    sweep_cell *c = &a.cells[b];
    c->cases = v++;
    for (int k = 0; k < TOI_SCORE_KIND_COUNT; k++) c->kind[k] = v++;
    c->timed = v++, c->kinf = v++;
    c->max_ulp = 0x1.5p+70 + (double)b, c->max_bits = 12.25, c->kmin = -0.0, c->kmax = INFINITY, c->max_ratio = NAN;
    for (int e = 0; e < TOI_CLASS_COUNT; e++)
      for (int d = 0; d < TOI_CLASS_COUNT; d++) c->confusion[e][d] = v++;
    for (int h = 0; h < SWEEP_HBINS; h++) c->hist[h] = v++ ^ ((uint64_t)h << 56);
    for (int h = 0; h < SWEEP_KBINS; h++) c->khist[h] = v++;
    for (int k = 0; k < SW_WHAT_COUNT; k++) {
      c->w[k].set = k != 1;
      c->w[k].value = -0x1.fffffffffffffp+1023 / (k + 1);
      c->w[k].aux = 0x1p-1060 * (k + 1);
      c->w[k].index = 0xfedcba9876543210ULL - (uint64_t)k;
      known_case(&c->w[k].c, k ? "w-1" : "case.7:x", 1e300 * (k + 1));
    }
  }
  static le_buf want;
  want.n = 0;
  for (size_t b = 0; b < NB; b++) le_put(&want, a.bincount[b], 8);
  for (size_t k = 0; k < NB * TOI_CLASS_COUNT; k++) le_put(&want, a.bincls[k], 8);
  for (size_t b = 0; b < NB; b++) {
    const sweep_cell *c = &a.cells[b];
    le_put(&want, c->cases, 8);
    for (int k = 0; k < TOI_SCORE_KIND_COUNT; k++) le_put(&want, c->kind[k], 8);
    le_put(&want, c->timed, 8);
    le_put(&want, c->kinf, 8);
    le_f64(&want, c->max_ulp), le_f64(&want, c->max_bits), le_f64(&want, c->kmin), le_f64(&want, c->kmax);
    le_f64(&want, c->max_ratio);
    for (int e = 0; e < TOI_CLASS_COUNT; e++)
      for (int d = 0; d < TOI_CLASS_COUNT; d++) le_put(&want, c->confusion[e][d], 8);
    for (int h = 0; h < SWEEP_HBINS; h++) le_put(&want, c->hist[h], 8);
    for (int h = 0; h < SWEEP_KBINS; h++) le_put(&want, c->khist[h], 8);
    for (int k = 0; k < SW_WHAT_COUNT; k++) {
      le_put(&want, (uint32_t)c->w[k].set, 4);
      le_f64(&want, c->w[k].value);
      le_f64(&want, c->w[k].aux);
      le_put(&want, c->w[k].index, 8);
      le_case(&want, &c->w[k].c);
    }
  }
  size_t len;
  unsigned char *p = sweep_acc_pack(&a, &len);
  cr_assert_not_null(p);
  cr_assert_eq(len, want.n, "%zu bytes packed, %zu in the format", len, want.n);
  cr_assert_eq(sweep_acc_packed_len(1, NB), want.n);
  for (size_t i = 0; i < len; i++) cr_assert_eq(p[i], want.b[i], "byte %zu: %#x, not %#x", i, p[i], want.b[i]);
  free(p);

  sweep_acc got;
  cr_assert_eq(sweep_acc_unpack(&got, want.b, want.n, 1, NB), 0);
  cr_assert_eq(memcmp(got.bincount, a.bincount, NB * sizeof *a.bincount), 0);
  cr_assert_eq(memcmp(got.bincls, a.bincls, NB * TOI_CLASS_COUNT * sizeof *a.bincls), 0);
  for (size_t b = 0; b < NB; b++) {
    const sweep_cell *x = &a.cells[b], *y = &got.cells[b];
    cr_assert_eq(y->cases, x->cases);
    cr_assert_eq(memcmp(y->kind, x->kind, sizeof x->kind), 0);
    cr_assert_eq(y->timed, x->timed);
    cr_assert_eq(y->kinf, x->kinf);
    cr_assert(same_bits(y->max_ulp, x->max_ulp) && same_bits(y->max_bits, x->max_bits) &&
              same_bits(y->kmin, x->kmin) && same_bits(y->kmax, x->kmax) && same_bits(y->max_ratio, x->max_ratio));
    cr_assert_eq(memcmp(y->confusion, x->confusion, sizeof x->confusion), 0);
    cr_assert_eq(memcmp(y->hist, x->hist, sizeof x->hist), 0);
    cr_assert_eq(memcmp(y->khist, x->khist, sizeof x->khist), 0);
    for (int k = 0; k < SW_WHAT_COUNT; k++) {
      cr_assert_eq(y->w[k].set, x->w[k].set);
      cr_assert(same_bits(y->w[k].value, x->w[k].value) && same_bits(y->w[k].aux, x->w[k].aux));
      cr_assert_eq(y->w[k].index, x->w[k].index);
      same_case(&x->w[k].c, &y->w[k].c);
    }
  }
  sweep_acc_free(&got);
  /* A case id without its end is not an encoding. */
  size_t id_at = NB * 8 * (1 + TOI_CLASS_COUNT) + 8 * (1 + TOI_SCORE_KIND_COUNT + 2) + 8 * 5 +
                 8 * (TOI_CLASS_COUNT * TOI_CLASS_COUNT + SWEEP_HBINS + SWEEP_KBINS) + 4 + 8 + 8 + 8;
  cr_assert_eq(want.b[id_at], 'c');
  memset(want.b + id_at, 'x', TOI_ID_MAX + 1);
  cr_assert_eq(sweep_acc_unpack(&got, want.b, want.n, 1, NB), -1);
  sweep_acc_free(&a);
}

/* A found case of a hunt: the same, through hunt_found_encode and hunt_found_decode. */
Test(sweep_dist, found_case_is_little_endian_fields) {
  hunt_found f;
  memset(&f, 0, sizeof f);
  known_case(&f.c, "hunt-42", -3.75);
  f.index = 0x8000000000000001ULL;
  f.sc = (toi_score_case){TOI_CLASS_COUNT - 1, 2, 0x1.2p-5, -0.0, TOI_SCORE_GHOST, 1, INFINITY, 52.5, TOI_CAUSE_NONE};
  f.err = 0x1.fp+10, f.target = -1e-300, f.tkind = TOI_SCORE_OUT_OF_DOMAIN, f.kappa = NAN, f.ratio = 3;
  f.by = HUNT_BY_RATIO;
  snprintf(f.note, sizeof f.note, "# found: a note of %d characters", 33);
  static le_buf want;
  want.n = 0;
  le_case(&want, &f.c);
  le_put(&want, f.index, 8);
  le_put(&want, (uint32_t)f.sc.verdict, 4), le_put(&want, (uint32_t)f.sc.ref_cls, 4);
  le_f64(&want, f.sc.t), le_f64(&want, f.sc.ref_t);
  le_put(&want, (uint32_t)f.sc.kind, 4), le_put(&want, (uint32_t)f.sc.timed, 4);
  le_f64(&want, f.sc.ulp), le_f64(&want, f.sc.bits);
  le_f64(&want, f.err), le_f64(&want, f.target);
  le_put(&want, (uint32_t)f.tkind, 4);
  le_f64(&want, f.kappa), le_f64(&want, f.ratio);
  le_put(&want, (uint32_t)f.by, 4);
  le_str(&want, f.note, sizeof f.note);
  wire_out w;
  wire_out_init(&w, 16);
  hunt_found_encode(&w, &f);
  cr_assert_not_null(w.p);
  cr_assert_eq(w.n, want.n);
  cr_assert_eq(memcmp(w.p, want.b, w.n), 0, "the encoding is not the format's bytes");
  free(w.p);
  hunt_found g;
  wire_in in = {want.b, want.n, 0, 0};
  hunt_found_decode(&in, &g);
  cr_assert(!in.bad && in.at == want.n);
  same_case(&f.c, &g.c);
  cr_assert_eq(g.index, f.index);
  cr_assert(g.sc.verdict == f.sc.verdict && g.sc.ref_cls == f.sc.ref_cls && g.sc.kind == f.sc.kind &&
            g.sc.timed == f.sc.timed);
  cr_assert(same_bits(g.sc.t, f.sc.t) && same_bits(g.sc.ref_t, f.sc.ref_t) && same_bits(g.sc.ulp, f.sc.ulp) &&
            same_bits(g.sc.bits, f.sc.bits));
  cr_assert(same_bits(g.err, f.err) && same_bits(g.target, f.target) && same_bits(g.kappa, f.kappa) &&
            same_bits(g.ratio, f.ratio));
  cr_assert(g.tkind == f.tkind && g.by == f.by);
  cr_assert_str_eq(g.note, f.note);
  /* Cut short: refused. */
  wire_in cut = {want.b, want.n - 1, 0, 0};
  hunt_found_decode(&cut, &g);
  cr_assert(cut.bad);
}

/* ---- hunt ---- */

typedef struct hunt_job {
  proc p;
  const toi_candidate *cand;
  const toi_gen_opts *g;
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
  toi_gen_opts g;
  toi_gen_opts_default(&g, TOI_GEN_GRAZING);
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
