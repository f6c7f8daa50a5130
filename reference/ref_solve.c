/* ref_solve.c: toi_ref_solve and toi_ref_solve_target, the certified class and roots of a case. */
#include <math.h>
#include "ref_internal.h"

static void ref_clear(toi_ref *out) {
  out->cls = TOI_NONE;
  out->tlo = out->thi = out->tfwd = out->trev = NAN;
  out->fwd_is_lo = out->rev_is_lo = -1;
}

static toi_status ref_solve_with(toi_ref *out, const toi_case *c, const double *delta) {
  if (!out) return TOI_ERR_RANGE;
  ref_clear(out);
  toi_status st = ref_check_case(c);
  if (st != TOI_OK) return st;
  if (delta && !isfinite(*delta)) return TOI_ERR_RANGE;
  ref_ctx *x = ref_ctx_get();
  if (!x) return TOI_ERR_NOMEM;
  ref_env env;
  ref_env_enter(&env);
  st = ref_load(x, c, delta);
  if (st == TOI_OK) ref_solve_loaded(x, out);
  ref_env_leave(&env);
  return st;
}

toi_status toi_ref_solve(toi_ref *out, const toi_case *c) { return ref_solve_with(out, c, NULL); }

toi_status toi_ref_solve_target(toi_ref *out, const toi_case *c, double delta) {
  return ref_solve_with(out, c, &delta);
}
