/* gsl/adapter.c: GSL's gsl_poly_solve_quadratic on the time-of-impact quadratic, as a toibench plug-in. */
#include <gsl/gsl_poly.h>
#include <string.h>
#include "engine_common.h"

TOI_SOLVER_ABI;

static toi_solver_cost cost; /* gsl_poly_solve_quadratic's own time */

/* |s + v t|^2 = R^2 as a t^2 + b t + c = 0, coefficients in double as a user
 * would write them: a = v.v, b = 2 s.v, c = s.s - R^2. GSL returns the real
 * roots in ascending order (x0 = x1 for a double root). */
int toi_gsl_quadratic(toi_solver_result *out, const toi_solver_case *c) {
  double a = 0, b = 0, cc = 0, R = c->ra + c->rb;
  for (int k = 0; k < 3; k++) {
    double s = c->pb[k] - c->pa[k], v = c->vb[k] - c->va[k];
    a += v * v;
    b += 2 * s * v;
    cc += s * s;
  }
  cc -= R * R;
  if (cc < 0) {
    out->cls = TOI_SOLVER_OVERLAP;
    return TOI_SOLVER_OK;
  }
  double x0, x1;
  unsigned long long t0 = engine_clock_ns();
  int n = gsl_poly_solve_quadratic(a, b, cc, &x0, &x1);
  engine_cost_add(&cost, t0);
  /* With c >= 0 both roots have one sign; x0 < 0 <= x1 only when touching
   * now and leaving, which is no contact ahead. */
  double t = n >= 1 && x0 >= 0 ? x0 : NAN;
  if (isnan(t) || t > c->tmax) {
    out->cls = TOI_SOLVER_NONE;
    return TOI_SOLVER_OK;
  }
  out->cls = n == 2 && x0 == x1 ? TOI_SOLVER_GRAZE : TOI_SOLVER_HIT;
  out->t = t;
  return TOI_SOLVER_OK;
}

int toi_solver_report_cost(const char *symbol, toi_solver_cost *out) {
  return !strcmp(symbol, "toi_gsl_quadratic") && engine_cost_report(&cost, out);
}

const toi_solver_info toi_solver_catalog[] = {
    {"gsl-quadratic", "toi_gsl_quadratic",
     "GSL 2.7 gsl_poly_solve_quadratic on a t^2 + b t + c (a = v.v, b = 2 s.v, c = s.s - R^2 in double): c < 0 "
     "overlap, else the first root >= 0 is the contact (graze for a double root), none after --tmax; time in "
     "the case's units, no window otherwise; target touching (0); 2D and 3D",
     TOI_SOLVER_BINARY64},
    {0, 0, 0, 0},
};
