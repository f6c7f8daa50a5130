/* hunt_dist.c: a worst-case search shared among processes (toibench-mpi): lists merged, walks brought back. */
#include <stdlib.h>
#include <string.h>
#include "hunt.h"

uint64_t hunt_dist_next(const hunt_opts *o, uint64_t b, uint64_t n) {
  return o->dist ? o->dist->next(o->dist->ud, n) : b;
}

int hunt_dist_mine(const hunt_opts *o, int k) { return !o->dist || k % o->dist->size == o->dist->rank; }

/* The counters the processes add up. */
#define NCOUNT 7
static uint64_t *counter(hunt_result *r, int i) {
  uint64_t *c[NCOUNT] = {&r->sent, &r->failed, &r->declined, &r->stated, &r->aimed, &r->malfunctions,
                         &r->protocol_errors};
  return c[i];
}

/* A score as bytes (wire.h): verdict, ref_cls (i32), t, ref_t (f64), kind, timed (i32), ulp, bits (f64). */
static void put_score(wire_out *w, const toi_score_case *sc) {
  wire_i32(w, (int32_t)sc->verdict);
  wire_i32(w, (int32_t)sc->ref_cls);
  wire_f64(w, sc->t);
  wire_f64(w, sc->ref_t);
  wire_i32(w, (int32_t)sc->kind);
  wire_i32(w, sc->timed);
  wire_f64(w, sc->ulp);
  wire_f64(w, sc->bits);
}

static void get_score(wire_in *r, toi_score_case *sc) {
  sc->verdict = (toi_class)wire_get_i32(r);
  sc->ref_cls = (toi_class)wire_get_i32(r);
  sc->t = wire_get_f64(r);
  sc->ref_t = wire_get_f64(r);
  sc->kind = (toi_score_kind)wire_get_i32(r);
  sc->timed = wire_get_i32(r);
  sc->ulp = wire_get_f64(r);
  sc->bits = wire_get_f64(r);
}

void hunt_found_encode(wire_out *w, const hunt_found *f) {
  wire_case(w, &f->c);
  wire_u64(w, f->index);
  put_score(w, &f->sc);
  wire_f64(w, f->err);
  wire_f64(w, f->target);
  wire_i32(w, (int32_t)f->tkind);
  wire_f64(w, f->kappa);
  wire_f64(w, f->ratio);
  wire_i32(w, f->by);
  wire_str(w, f->note, sizeof f->note);
}

void hunt_found_decode(wire_in *r, hunt_found *f) {
  memset(f, 0, sizeof *f);
  wire_get_case(r, &f->c);
  f->index = wire_get_u64(r);
  get_score(r, &f->sc);
  f->err = wire_get_f64(r);
  f->target = wire_get_f64(r);
  f->tkind = (toi_score_kind)wire_get_i32(r);
  f->kappa = wire_get_f64(r);
  f->ratio = wire_get_f64(r);
  f->by = wire_get_i32(r);
  wire_get_str(r, f->note, sizeof f->note);
}

/* A walk as bytes: rng.s[4], start, raised, has_flip, has_best, flip, best. */
static void put_walk(wire_out *w, const hunt_walk *k) {
  for (int i = 0; i < 4; i++) wire_u64(w, k->rng.s[i]);
  wire_f64(w, k->start);
  wire_u64(w, k->raised);
  wire_i32(w, k->has_flip);
  wire_i32(w, k->has_best);
  hunt_found_encode(w, &k->flip);
  hunt_found_encode(w, &k->best);
}

static void get_walk(wire_in *r, hunt_walk *k) {
  for (int i = 0; i < 4; i++) k->rng.s[i] = wire_get_u64(r);
  k->start = wire_get_f64(r);
  k->raised = wire_get_u64(r);
  k->has_flip = wire_get_i32(r);
  k->has_best = wire_get_i32(r);
  hunt_found_decode(r, &k->flip);
  hunt_found_decode(r, &k->best);
}

/* The head of every process's bytes: its status (i32) and its counters (u64). */
static void put_head(wire_out *b, hunt_result *r, int failed) {
  wire_i32(b, failed);
  for (int i = 0; i < NCOUNT; i++) wire_u64(b, *counter(r, i));
}

/* Reads a head into *failed and adds its counters to sum (when not NULL). 0 or -1. */
static int get_head(wire_in *in, int *failed, hunt_result *sum) {
  *failed |= wire_get_i32(in) != 0;
  for (int i = 0; i < NCOUNT; i++) {
    uint64_t v = wire_get_u64(in);
    if (sum) *counter(sum, i) += v;
  }
  return in->bad ? -1 : 0;
}

/* Gathers b (to every process when all); calls take(ud, in, sum) for each process's bytes there. Returns 1
   when any process failed or the bytes are short, else 0. */
static int exchange(const hunt_opts *o, wire_out *b, int all, hunt_result *sum,
                    int (*take)(void *ud, wire_in *in, hunt_result *sum), void *ud) {
  const sweep_dist *d = o->dist;
  unsigned char *got = NULL, failed[4] = {1, 0, 0, 0}; /* an i32 status of 1, alone */
  size_t *lens = calloc((size_t)d->size, sizeof *lens);
  int bad = !b->p || !lens;
  if (bad) toi_msgf(o->msg, "hunt: out of memory");
  bad |= d->gather(d->ud, bad ? failed : b->p, bad ? sizeof failed : b->n, all, &got, lens) != 0;
  if (!bad && (all || d->rank == 0)) {
    size_t at = 0;
    for (int k = 0; k < d->size && !bad; at += lens[k], k++) {
      wire_in in = {got + at, lens[k], 0, 0};
      bad = take(ud, &in, sum) != 0 || in.at != in.n;
    }
  }
  free(got);
  free(lens);
  free(b->p);
  return bad;
}

static int take_lists(void *ud, wire_in *in, hunt_result *sum) {
  const hunt_opts *o = ud;
  int failed = 0;
  if (get_head(in, &failed, sum) || failed) return 1;
  for (int l = 0; l < HUNT_L_COUNT; l++) {
    int32_t n = wire_get_i32(in);
    if (in->bad || n < 0 || n > HUNT_MAXKEEP) return 1;
    for (int i = 0; i < n; i++) {
      hunt_found f;
      hunt_found_decode(in, &f);
      if (in->bad) return 1;
      hunt_list_offer(&sum->lists[l], &f, o->keep, l != HUNT_L_ULP && l != HUNT_L_RATIO);
    }
  }
  return 0;
}

int hunt_dist_global(const hunt_opts *o, hunt_result *r, uint64_t nb, int failed) {
  const sweep_dist *d = o->dist;
  while (failed && d->next(d->ud, nb) < nb) continue; /* the batches left, undone, so that the pass ends */
  wire_out b;
  wire_out_init(&b, 4096);
  put_head(&b, r, failed);
  for (int l = 0; l < HUNT_L_COUNT; l++) {
    wire_i32(&b, r->lists[l].n);
    for (int i = 0; i < r->lists[l].n; i++) hunt_found_encode(&b, &r->lists[l].items[i]);
  }
  hunt_result *sum = calloc(1, sizeof *sum);
  int bad = !sum || exchange(o, &b, 1, sum, take_lists, (void *)o);
  if (!sum) free(b.p);
  if (!bad) {
    memcpy(r->lists, sum->lists, sizeof r->lists);
    /* Rank 0 holds the counters; the others count their part of the local search from 0. */
    for (int i = 0; i < NCOUNT; i++) *counter(r, i) = d->rank == 0 ? *counter(sum, i) : 0;
  }
  free(sum);
  return bad;
}

/* What rank 0 takes of another process's walks. */
typedef struct walks_in {
  const hunt_opts *o;
  hunt_result *r;
  hunt_found *cands;
  hunt_walk *w;
  int rank;
} walks_in;

static int take_walks(void *ud, wire_in *in, hunt_result *sum) {
  walks_in *x = ud;
  int failed = 0, mine = x->rank++ == 0;
  if (get_head(in, &failed, mine ? NULL : sum) || failed) return 1;
  int32_t n = wire_get_i32(in);
  if (in->bad || n < 0) return 1;
  for (int i = 0; i < n; i++) {
    int32_t k = wire_get_i32(in);
    if (in->bad || k < 0 || k >= x->r->ncands) return 1;
    hunt_found_decode(in, &x->cands[k]);
    get_walk(in, &x->w[k]);
    if (in->bad) return 1;
  }
  n = wire_get_i32(in);
  if (in->bad || n < 0 || n > HUNT_MAXKEEP) return 1;
  for (int i = 0; i < n; i++) {
    hunt_found f;
    hunt_found_decode(in, &f);
    if (in->bad) return 1;
    if (!mine) hunt_list_offer(&x->r->lists[HUNT_L_FAIL], &f, x->o->keep, 1);
  }
  return 0;
}

int hunt_dist_local(const hunt_opts *o, hunt_result *r, hunt_found *cands, hunt_walk *w, int failed) {
  wire_out b;
  wire_out_init(&b, 4096);
  put_head(&b, r, failed);
  int n = 0;
  for (int k = 0; k < r->ncands; k++) n += hunt_dist_mine(o, k);
  wire_i32(&b, n);
  for (int k = 0; k < r->ncands; k++)
    if (hunt_dist_mine(o, k)) {
      wire_i32(&b, k);
      hunt_found_encode(&b, &cands[k]);
      put_walk(&b, &w[k]);
    }
  /* The failures of this process's local search: those ranked past the global pass. */
  const hunt_list *fl = &r->lists[HUNT_L_FAIL];
  n = 0;
  for (int i = 0; i < fl->n; i++) n += fl->items[i].index >= r->global;
  wire_i32(&b, n);
  for (int i = 0; i < fl->n; i++)
    if (fl->items[i].index >= r->global) hunt_found_encode(&b, &fl->items[i]);
  walks_in x = {o, r, cands, w, 0};
  int bad = exchange(o, &b, 0, r, take_walks, &x);
  return (int)sweep_dist_share(o->dist, (uint64_t)bad);
}
