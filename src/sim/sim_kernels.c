/* sim_kernels.c: the double kernels of the simulation: a formulation's TOI and response, walls in double. */
#include <math.h>
#include "response.h"
#include "sim.h"

int sim_wall_toi_double(void *ctx, const double p[3], const double v[3], double r, int dim,
                        int axis, double wall, double *dt) {
  (void)ctx;
  (void)dim;
  double target = v[axis] > 0 ? wall - r : wall + r;
  *dt = (target - p[axis]) / v[axis];
  return isnan(*dt) ? -1 : 1;
}

int sim_wall_respond_double(void *ctx, const double p[3], const double v[3], double r, int dim,
                            int axis, double wall, double dt, double pout[3]) {
  (void)ctx;
  (void)r;
  (void)axis;
  (void)wall;
  for (int d = 0; d < 3; d++) pout[d] = d < dim ? p[d] + v[d] * dt : 0;
  return 0;
}

/* ---- formulation kernels ---- */

static int form_pair_toi(void *ctx, const toi_case *c, double *dt) {
  const toi_formulation *f = ctx;
  toi_result r = f->solve(c);
  if (toi_class_group(r.cls) == TOI_G_NOCONTACT) return 0;
  /* An overlap verdict means "in contact now", whatever time comes with it
   * (Ericson says 0, the exact kernels say NaN: the overlap has no forward
   * contact time). Rounding leaves touching pairs overlapping by an ulp after
   * a contact; the response then applies an impulse only if they approach. */
  if (toi_class_group(r.cls) == TOI_G_OVERLAP) {
    *dt = 0;
    return 1;
  }
  if (isnan(r.t)) return -1;
  if (!(r.t >= 0) || isinf(r.t)) return 0;
  *dt = r.t;
  return 1;
}

static int form_pair_respond(void *ctx, const toi_case *c, double dt, double E, double pa[3],
                             double pb[3], double va[3], double vb[3]) {
  (void)ctx;
  toi_response r;
  if (toi_response_compute(&r, c, dt, E) != TOI_OK) return -1;
  if (!(r.vn < 0)) return 0; /* separating or tangent: no impulse */
  for (int d = 0; d < 3; d++) {
    pa[d] = r.pa[d];
    pb[d] = r.pb[d];
    va[d] = r.va[d];
    vb[d] = r.vb[d];
  }
  return 1;
}

sim_kernel sim_formulation_kernel(const toi_formulation *f) {
  sim_kernel k = {f->name, (void *)f, form_pair_toi, form_pair_respond, sim_wall_toi_double,
                  sim_wall_respond_double};
  return k;
}

