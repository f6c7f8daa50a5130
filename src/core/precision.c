/* precision.c: the table of floating-point formats and rounding into them. */
#include <math.h>
#include <string.h>
#include "precision.h"
#include "toi.h"

static const toi_precision_info table[TOI_PRECISION_COUNT] = {
    [TOI_BINARY64] = {"binary64", 53, -1022, 1023},
    [TOI_BINARY32] = {"binary32", 24, -126, 127},
};

const toi_precision_info *toi_precision_get(toi_precision q) {
  return (unsigned)q < TOI_PRECISION_COUNT ? &table[q] : NULL;
}

const char *toi_precision_name(toi_precision q) {
  const toi_precision_info *i = toi_precision_get(q);
  return i ? i->name : NULL;
}

toi_status toi_precision_parse(toi_precision *out, const char *name) {
  if (!out || !name) return TOI_ERR_RANGE;
  for (int q = 0; q < TOI_PRECISION_COUNT; q++)
    if (!strcmp(name, table[q].name)) {
      *out = (toi_precision)q;
      return TOI_OK;
    }
  return TOI_ERR_RANGE;
}

double toi_round_to(double x, toi_precision q) {
  switch (q) {
  case TOI_BINARY32: return (double)(float)x;
  default: return x;
  }
}

int toi_is_value_of(double x, toi_precision q) {
  double r = toi_round_to(x, q);
  return r == x || (isnan(r) && isnan(x));
}

static int round_vec(double *out, const double *in, int n, toi_precision q, int *changed) {
  for (int i = 0; i < n; i++) {
    out[i] = toi_round_to(in[i], q);
    if (isinf(out[i]) && !isinf(in[i])) return -1;
    *changed |= out[i] != in[i];
  }
  return 0;
}

toi_round_state toi_case_round(toi_case *out, const toi_case *in, toi_precision q) {
  if (out != in) *out = *in;
  int changed = 0;
  if (round_vec(out->pa, in->pa, 3, q, &changed) || round_vec(out->va, in->va, 3, q, &changed) ||
      round_vec(out->pb, in->pb, 3, q, &changed) || round_vec(out->vb, in->vb, 3, q, &changed) ||
      round_vec(&out->ra, &in->ra, 1, q, &changed) || round_vec(&out->ma, &in->ma, 1, q, &changed) ||
      round_vec(&out->rb, &in->rb, 1, q, &changed) || round_vec(&out->mb, &in->mb, 1, q, &changed))
    return TOI_ROUND_OVERFLOW;
  /* Format v1 wants masses > 0: one that rounds to 0 is as far beyond q's range as an overflow. */
  if ((in->ma > 0 && !(out->ma > 0)) || (in->mb > 0 && !(out->mb > 0))) return TOI_ROUND_OVERFLOW;
  return changed ? TOI_ROUND_CHANGED : TOI_ROUND_SAME;
}
