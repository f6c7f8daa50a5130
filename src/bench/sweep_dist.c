/* sweep_dist.c: a sweep shared among processes (toibench-mpi): units from a shared counter, merged at rank 0. */
#include <stdlib.h>
#include <string.h>
#include "sweep.h"
#include "wire.h"

/* Cases per unit of a shared sweep: a multiple of the out-of-process block
   (16384), about 8 units per process so that a slow one does not hold the
   others back, at most 2^22 so that a unit takes seconds, not hours. */
#define UNIT_MIN 16384u
#define UNIT_MAX ((uint64_t)1 << 22)

int sweep_dist_lead(const sweep_dist *d) { return !d || d->rank == 0; }

uint64_t sweep_dist_share(const sweep_dist *d, uint64_t v) { return d ? d->bcast(d->ud, v) : v; }

/* Bytes of one sweep_cell (wire.h): cases, kind[], timed, kinf (u64); the five maxima and minima (f64);
   confusion[][], hist[], khist[] (u64); each witness: set (i32), value, aux (f64), index (u64), case. */
#define CELL_U64 (1 + TOI_SCORE_KIND_COUNT + 2 + TOI_CLASS_COUNT * TOI_CLASS_COUNT + SWEEP_HBINS + SWEEP_KBINS)
#define WITNESS_BYTES (4 + 8 + 8 + 8 + WIRE_CASE_BYTES)
#define CELL_BYTES (8 * CELL_U64 + 8 * 5 + SW_WHAT_COUNT * WITNESS_BYTES)

size_t sweep_acc_packed_len(size_t nform, size_t nbins) {
  return nbins * 8 * (1 + TOI_CLASS_COUNT) + nform * nbins * (size_t)CELL_BYTES;
}

static void put_u64s(wire_out *w, const uint64_t *v, size_t n) {
  for (size_t i = 0; i < n; i++) wire_u64(w, v[i]);
}

static void get_u64s(wire_in *r, uint64_t *v, size_t n) {
  for (size_t i = 0; i < n; i++) v[i] = wire_get_u64(r);
}

static void put_cell(wire_out *w, const sweep_cell *c) {
  wire_u64(w, c->cases);
  put_u64s(w, c->kind, TOI_SCORE_KIND_COUNT);
  wire_u64(w, c->timed);
  wire_u64(w, c->kinf);
  const double m[5] = {c->max_ulp, c->max_bits, c->kmin, c->kmax, c->max_ratio};
  for (int k = 0; k < 5; k++) wire_f64(w, m[k]);
  put_u64s(w, &c->confusion[0][0], TOI_CLASS_COUNT * TOI_CLASS_COUNT);
  put_u64s(w, c->hist, SWEEP_HBINS);
  put_u64s(w, c->khist, SWEEP_KBINS);
  for (int k = 0; k < SW_WHAT_COUNT; k++) {
    wire_i32(w, c->w[k].set);
    wire_f64(w, c->w[k].value);
    wire_f64(w, c->w[k].aux);
    wire_u64(w, c->w[k].index);
    wire_case(w, &c->w[k].c);
  }
}

static void get_cell(wire_in *r, sweep_cell *c) {
  c->cases = wire_get_u64(r);
  get_u64s(r, c->kind, TOI_SCORE_KIND_COUNT);
  c->timed = wire_get_u64(r);
  c->kinf = wire_get_u64(r);
  double *m[5] = {&c->max_ulp, &c->max_bits, &c->kmin, &c->kmax, &c->max_ratio};
  for (int k = 0; k < 5; k++) *m[k] = wire_get_f64(r);
  get_u64s(r, &c->confusion[0][0], TOI_CLASS_COUNT * TOI_CLASS_COUNT);
  get_u64s(r, c->hist, SWEEP_HBINS);
  get_u64s(r, c->khist, SWEEP_KBINS);
  for (int k = 0; k < SW_WHAT_COUNT; k++) {
    c->w[k].set = wire_get_i32(r);
    c->w[k].value = wire_get_f64(r);
    c->w[k].aux = wire_get_f64(r);
    c->w[k].index = wire_get_u64(r);
    wire_get_case(r, &c->w[k].c);
  }
}

unsigned char *sweep_acc_pack(const sweep_acc *a, size_t *len) {
  size_t want = sweep_acc_packed_len(a->nform, a->nbins);
  wire_out w;
  wire_out_init(&w, want);
  put_u64s(&w, a->bincount, a->nbins);
  put_u64s(&w, a->bincls, a->nbins * TOI_CLASS_COUNT);
  for (size_t k = 0; k < a->nform * a->nbins; k++) put_cell(&w, &a->cells[k]);
  if (w.p && w.n != want) { /* CELL_BYTES out of step with put_cell */
    free(w.p);
    w.p = NULL;
  }
  *len = w.n;
  return w.p;
}

int sweep_acc_unpack(sweep_acc *a, const unsigned char *p, size_t len, size_t nform, size_t nbins) {
  if (len != sweep_acc_packed_len(nform, nbins) || sweep_acc_init(a, nform, nbins)) return -1;
  wire_in r = {p, len, 0, 0};
  get_u64s(&r, a->bincount, nbins);
  get_u64s(&r, a->bincls, nbins * TOI_CLASS_COUNT);
  for (size_t k = 0; k < nform * nbins && !r.bad; k++) get_cell(&r, &a->cells[k]);
  if (r.bad || r.at != len) {
    sweep_acc_free(a);
    return -1;
  }
  return 0;
}

/* The units of this process, merged into *acc (initialised here). 0, or -1
   after saying why to o->msg; then the process takes no more units. */
static int run_units(const sweep_dist *d, sweep_acc *acc, const toi_candidate *cands, size_t nc, size_t nbins,
                     const sweep_opts *o, sweep_tally *tally) {
  uint64_t n = o->end - o->start, unit = n / ((uint64_t)d->size * 8) / UNIT_MIN * UNIT_MIN;
  if (unit < UNIT_MIN) unit = UNIT_MIN;
  if (unit > UNIT_MAX) unit = UNIT_MAX;
  uint64_t nunits = (n + unit - 1) / unit;
  int rc = sweep_acc_init(acc, nc, nbins);
  if (rc) {
    toi_msgf(o->msg, "sweep: out of memory");
    return rc;
  }
  for (uint64_t u; !rc && (u = d->next(d->ud, nunits)) < nunits;) {
    sweep_opts so = *o;
    so.start = o->start + u * unit;
    so.end = o->end - so.start < unit ? o->end : so.start + unit;
    so.progress = NULL;
    sweep_acc part;
    if ((rc = sweep_drive(&part, cands, nc, nbins, &so, tally))) break;
    sweep_acc_merge(acc, &part);
    sweep_acc_free(&part);
  }
  if (rc) sweep_acc_free(acc);
  /* A process that failed takes the units left (undone: the run fails) so that the pass ends everywhere. */
  while (rc && d->next(d->ud, nunits) < nunits) continue;
  return rc;
}

/* Rank 0 merges every other process's accumulator (bytes: a status byte,
   then the packed accumulator) into its own. 0 or -1. */
static int merge_all(const sweep_dist *d, sweep_acc *acc, const unsigned char *all, const size_t *lens,
                     const sweep_opts *o) {
  size_t at = lens[0];
  for (int r = 1; r < d->size; at += lens[r], r++) {
    sweep_acc part;
    if (lens[r] < 1 || all[at] != 0) return -1;
    if (sweep_acc_unpack(&part, all + at + 1, lens[r] - 1, acc->nform, acc->nbins)) {
      toi_msgf(o->msg, "sweep: the accumulator of process %d does not have this sweep's shape", r);
      return -1;
    }
    sweep_acc_merge(acc, &part);
    sweep_acc_free(&part);
  }
  return 0;
}

int sweep_dist_drive(const sweep_dist *d, sweep_acc *out, const toi_candidate *cands, size_t nc, size_t nbins,
                     const sweep_opts *o, sweep_tally *tally) {
  if (!d) return sweep_drive(out, cands, nc, nbins, o, tally);
  int rc = run_units(d, out, cands, nc, nbins, o, tally);
  /* Every process stays in the collectives, failed or not, so that none waits for ever. */
  size_t len = 0;
  unsigned char *packed = rc ? NULL : sweep_acc_pack(out, &len);
  unsigned char *buf = malloc(len + 1), *all = NULL;
  size_t *lens = calloc((size_t)d->size, sizeof *lens);
  if (!rc && (!packed || !buf)) toi_msgf(o->msg, "sweep: out of memory");
  int bad = rc || !packed || !buf || !lens;
  if (buf) {
    buf[0] = (unsigned char)bad;
    if (!bad) memcpy(buf + 1, packed, len);
  }
  free(packed);
  static const unsigned char failed = 1;
  int grc = d->gather(d->ud, buf && !bad ? buf : &failed, buf && !bad ? len + 1 : 1, 0, &all, lens);
  if (d->rank == 0 && !bad) bad = grc || merge_all(d, out, all, lens, o);
  free(all);
  free(buf);
  free(lens);
  bad = (int)sweep_dist_share(d, (uint64_t)bad);
  if (bad && !rc) sweep_acc_free(out); /* a failed run_units has freed it */
  if (bad) memset(out, 0, sizeof *out);
  return bad ? -1 : 0;
}
