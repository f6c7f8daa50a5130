/* ref_solve.c: toi_ref_solve and toi_ref_solve_target, the certified class and roots of a case. */
#include <math.h>
#include <stdatomic.h>
#include "ref_internal.h"

toi_status ref_solve_mpfr(toi_ref *out, const toi_case *c, const double *delta) {
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
  if (st == TOI_OK) ref_solve_loaded(x, out);
  ref_env_leave(&env);
  return st;
}

/* The process-wide engine. Relaxed atomics: it is set before the solving
 * threads start, and a reader only needs some valid value. */
static atomic_int ref_engine = TOI_REF_FAST;

toi_status toi_ref_set_engine(toi_ref_engine e) {
  if (e != TOI_REF_FAST && e != TOI_REF_MPFR) return TOI_ERR_RANGE;
  atomic_store_explicit(&ref_engine, (int)e, memory_order_relaxed);
  return TOI_OK;
}

toi_ref_engine toi_ref_get_engine(void) {
  return (toi_ref_engine)atomic_load_explicit(&ref_engine, memory_order_relaxed);
}

static toi_status ref_solve_by(toi_ref *out, const toi_case *c, const double *delta, toi_ref_engine e) {
  if (e == TOI_REF_FAST) return ref_solve_fast(out, c, delta);
  if (e == TOI_REF_MPFR) return ref_solve_mpfr(out, c, delta);
  return TOI_ERR_RANGE;
}

toi_status toi_ref_solve(toi_ref *out, const toi_case *c) {
  return ref_solve_by(out, c, NULL, toi_ref_get_engine());
}

toi_status toi_ref_solve_target(toi_ref *out, const toi_case *c, double delta) {
  return ref_solve_by(out, c, &delta, toi_ref_get_engine());
}

toi_status toi_ref_solve_engine(toi_ref *out, const toi_case *c, toi_ref_engine e) {
  return ref_solve_by(out, c, NULL, e);
}

toi_status toi_ref_solve_target_engine(toi_ref *out, const toi_case *c, double delta, toi_ref_engine e) {
  return ref_solve_by(out, c, &delta, e);
}
