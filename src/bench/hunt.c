/* hunt.c: the pieces of the worst-case search of `toibench hunt`: ranked lists, filing, moves. */
#include <inttypes.h>
#include <math.h>
#include <string.h>
#include "hunt.h"

double hunt_key(const hunt_found *f) { return f->by == HUNT_BY_RATIO ? f->ratio : f->err; }

const hunt_found *hunt_largest(const hunt_list *lists, int nlists, int by) {
  const hunt_found *best = NULL;
  for (int j = 0; j < nlists; j++)
    for (int k = 0; k < lists[j].n; k++) {
      const hunt_found *f = &lists[j].items[k];
      double v = by == HUNT_BY_RATIO ? f->ratio : f->err;
      if (isfinite(v) && (!best || v > (by == HUNT_BY_RATIO ? best->ratio : best->err))) best = f;
    }
  return best;
}

/* Ordering of the ranked lists: larger key first, then lower index. */
static int better(const hunt_found *a, const hunt_found *b) {
  double ka = hunt_key(a), kb = hunt_key(b);
  if (ka != kb) return ka > kb;
  return a->index < b->index;
}

void hunt_list_offer(hunt_list *l, const hunt_found *f, int keep, int first) {
  int pos = l->n;
  while (pos > 0 && (first ? f->index < l->items[pos - 1].index : better(f, &l->items[pos - 1]))) pos--;
  if (pos >= keep) return;
  int last = l->n < keep ? l->n : keep - 1;
  memmove(&l->items[pos + 1], &l->items[pos], (size_t)(last - pos) * sizeof *f);
  l->items[pos] = *f;
  if (l->n < keep) l->n++;
}

int hunt_misclassified(toi_score_kind k) { return k == TOI_SCORE_MISSED || k == TOI_SCORE_GHOST || k == TOI_SCORE_OTHER; }

int hunt_perturb(toi_rng *r, toi_case *c, toi_precision q) {
  double *x = gen_case_input(c, (int)toi_rng_below(r, (uint64_t)gen_case_input_count(c)));
  int64_t k = 1 + (int64_t)toi_rng_below(r, 4);
  if (toi_rng_below(r, 4) == 0) k = 1 + (int64_t)toi_rng_below(r, (uint64_t)1 << 16);
  if (toi_rng_below(r, 2)) k = -k;
  /* k steps of nextafter (nextafterf in binary32), done at once on the ordered
     positions of the precision's values (|ordinal| + 2^16 fits an int32 for
     every finite float: beyond FLT_MAX lie inf and NaNs, refused below). */
  double y = q == TOI_BINARY32 ? toi_float_from_ord(toi_float_ord(*x) + k) : toi_double_from_ord(toi_double_ord(*x) + k);
  if (!isfinite(y)) return 0;
  if ((x == &c->ra || x == &c->rb) && y < 0) return 0;
  *x = y == 0 ? 0.0 : y;
  return 1;
}

void hunt_file(hunt_list *lists, hunt_found *fd, toi_score_kind kind, int keep, uint64_t i) {
  if (hunt_misclassified(kind)) {
    snprintf(fd->note, sizeof fd->note, "global pass, case %" PRIu64 " (%s)", i, fd->c.id);
    hunt_list_offer(&lists[HUNT_L_BAD], fd, keep, 1);
  } else if (isinf(fd->err)) {
    snprintf(fd->note, sizeof fd->note, "global pass, case %" PRIu64 " (%s), time %a", i, fd->c.id, fd->sc.t);
    hunt_list_offer(&lists[HUNT_L_INF], fd, keep, 1);
  } else if (!isnan(fd->err)) {
    fd->by = HUNT_BY_ULP;
    hunt_list_offer(&lists[HUNT_L_ULP], fd, keep, 0);
    if (!isnan(fd->ratio)) {
      fd->by = HUNT_BY_RATIO;
      hunt_list_offer(&lists[HUNT_L_RATIO], fd, keep, 0);
    }
  }
}
