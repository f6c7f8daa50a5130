/* response.c: the collision response pipeline, as an engine writes it, in double (and float: response32.c). */
#include <math.h>
#include "real.h"
#include "response.h"

/*
 * Written once with `real` (src/formulations/real.h): compiled as itself it
 * is the double pipeline, toi_response_compute; response32.c compiles it
 * again with real = float as toi_response_compute32. The float variant reads
 * the case's numbers, T and E as floats (a case rounded to binary32 holds
 * floats, so exactly; E is rounded once to float, as a float engine stores
 * it), does every operation in float and stores its float results as doubles.
 */
toi_status RNAME(toi_response_compute)(toi_response *out, const toi_case *c, double T, double E) {
  for (int i = 0; i < 3; i++) out->pa[i] = out->pb[i] = out->n[i] = out->va[i] = out->vb[i] = 0;
  out->vn = out->j = NAN;
  if (!isfinite(T) || !(E >= 0 && E <= 1) || (c->dim != 2 && c->dim != 3)) goto fail;
  int dim = c->dim;
  real t = (real)T, e = (real)E, pa[3], pb[3], n[3];
  real len2 = 0;
  for (int i = 0; i < dim; i++) {
    pa[i] = (real)c->pa[i] + (real)c->va[i] * t;
    pb[i] = (real)c->pb[i] + (real)c->vb[i] * t;
    out->pa[i] = pa[i];
    out->pb[i] = pb[i];
    real d = pb[i] - pa[i];
    len2 += d * d;
  }
  real len = SQRT(len2);
  /* coincident centres (or an overflowing distance) leave no direction */
  if (!(len > 0) || !isfinite(len)) goto fail;
  real vn = 0;
  for (int i = 0; i < dim; i++) {
    n[i] = (pb[i] - pa[i]) / len;
    out->n[i] = n[i];
    vn += ((real)c->vb[i] - (real)c->va[i]) * n[i];
  }
  real ma = (real)c->ma, mb = (real)c->mb;
  real j = -(1 + e) * vn / (1 / ma + 1 / mb);
  out->vn = vn;
  out->j = j;
  for (int i = 0; i < dim; i++) {
    out->va[i] = (real)c->va[i] - j * n[i] / ma;
    out->vb[i] = (real)c->vb[i] + j * n[i] / mb;
  }
  return TOI_OK;
fail:
  for (int i = 0; i < 3; i++) out->pa[i] = out->pb[i] = out->n[i] = out->va[i] = out->vb[i] = NAN;
  return TOI_ERR_RANGE;
}
