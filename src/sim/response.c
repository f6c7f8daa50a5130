/* response.c: the double-precision collision response pipeline, as an engine writes it. */
#include <math.h>
#include "response.h"

toi_status toi_response_compute(toi_response *out, const toi_case *c, double T, double E) {
  for (int i = 0; i < 3; i++) out->pa[i] = out->pb[i] = out->n[i] = out->va[i] = out->vb[i] = 0;
  out->vn = out->j = NAN;
  if (!isfinite(T) || !(E >= 0 && E <= 1) || (c->dim != 2 && c->dim != 3)) goto fail;
  int dim = c->dim;
  double len2 = 0;
  for (int i = 0; i < dim; i++) {
    out->pa[i] = c->pa[i] + c->va[i] * T;
    out->pb[i] = c->pb[i] + c->vb[i] * T;
    double d = out->pb[i] - out->pa[i];
    len2 += d * d;
  }
  double len = sqrt(len2);
  /* coincident centres (or an overflowing distance) leave no direction */
  if (!(len > 0) || !isfinite(len)) goto fail;
  double vn = 0;
  for (int i = 0; i < dim; i++) {
    out->n[i] = (out->pb[i] - out->pa[i]) / len;
    vn += (c->vb[i] - c->va[i]) * out->n[i];
  }
  out->vn = vn;
  out->j = -(1 + E) * vn / (1 / c->ma + 1 / c->mb);
  for (int i = 0; i < dim; i++) {
    out->va[i] = c->va[i] - out->j * out->n[i] / c->ma;
    out->vb[i] = c->vb[i] + out->j * out->n[i] / c->mb;
  }
  return TOI_OK;
fail:
  for (int i = 0; i < 3; i++) out->pa[i] = out->pb[i] = out->n[i] = out->va[i] = out->vb[i] = NAN;
  return TOI_ERR_RANGE;
}
