/* sweep_dist.c: a sweep shared among processes (toibench-mpi): units from a shared counter, merged at rank 0. */
#include <stdlib.h>
#include <string.h>
#include "sweep.h"

/* Cases per unit of a shared sweep: a multiple of the out-of-process block
   (16384), about 8 units per process so that a slow one does not hold the
   others back, at most 2^22 so that a unit takes seconds, not hours. */
#define UNIT_MIN 16384u
#define UNIT_MAX ((uint64_t)1 << 22)

int sweep_dist_lead(const sweep_dist *d) { return !d || d->rank == 0; }

uint64_t sweep_dist_share(const sweep_dist *d, uint64_t v) { return d ? d->bcast(d->ud, v) : v; }

/* The three arrays of an accumulator, in order: pointers and byte sizes. */
static void acc_parts(const sweep_acc *a, void *ptr[3], size_t len[3]) {
  ptr[0] = a->bincount;
  len[0] = a->nbins * sizeof *a->bincount;
  ptr[1] = a->bincls;
  len[1] = a->nbins * TOI_CLASS_COUNT * sizeof *a->bincls;
  ptr[2] = a->cells;
  len[2] = a->nform * a->nbins * sizeof *a->cells;
}

unsigned char *sweep_acc_pack(const sweep_acc *a, size_t *len) {
  void *ptr[3];
  size_t l[3];
  acc_parts(a, ptr, l);
  *len = l[0] + l[1] + l[2];
  unsigned char *p = malloc(*len ? *len : 1);
  if (!p) return NULL;
  for (size_t k = 0, at = 0; k < 3; at += l[k], k++) memcpy(p + at, ptr[k], l[k]);
  return p;
}

int sweep_acc_unpack(sweep_acc *a, const unsigned char *p, size_t len, size_t nform, size_t nbins) {
  if (sweep_acc_init(a, nform, nbins)) return -1;
  void *ptr[3];
  size_t l[3], at = 0;
  acc_parts(a, ptr, l);
  if (len != l[0] + l[1] + l[2]) {
    sweep_acc_free(a);
    return -1;
  }
  for (int k = 0; k < 3; at += l[k], k++) memcpy(ptr[k], p + at, l[k]);
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
