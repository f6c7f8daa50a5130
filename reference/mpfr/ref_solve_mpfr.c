/* ref_solve_mpfr.c: the GMP/MPFR engine's whole solve: check, load exactly, classify, round the roots. */
#include <math.h>
#include "ref_mpfr.h"

/* Every case goes through GMP and MPFR here; the fast engine hands over only
 * what it cannot certify, so this is also its fallback. */
toi_status ref_solve_mpfr(toi_ref *out, const toi_case *c, const double *delta) {
  return ref_solve_mpfr_prec(out, c, delta, toi_precision_get(TOI_BINARY64));
}

toi_status ref_solve_mpfr_prec(toi_ref *out, const toi_case *c, const double *delta, const toi_precision_info *pi) {
  if (!out) return TOI_ERR_RANGE;
  ref_clear(out, TOI_NONE);
  toi_status st = ref_check_case(c);
  if (st != TOI_OK) return st;
  if (delta && !isfinite(*delta)) return TOI_ERR_RANGE;
  ref_ctx *x = ref_ctx_get();
  if (!x) return TOI_ERR_NOMEM;
  ref_env env;
  ref_env_enter(&env);
  st = ref_load(x, c, delta);
  if (st == TOI_OK) ref_solve_loaded_prec(x, out, pi);
  ref_env_leave(&env);
  return st;
}
