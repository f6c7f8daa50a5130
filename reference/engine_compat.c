/* engine_compat.c: the process-wide engine of the short forms (toi_ref_solve and the like); transitional. */
#include <stdatomic.h>
#include "toiref.h"

/*
 * Transitional: removed once no caller remains. The engine is an argument
 * of the explicit forms (toi_ref_solve_engine and the like); this setting
 * only survives so that callers still written against the short forms (the
 * command line's --reference) keep their behaviour while they move to the
 * explicit forms. Nothing else in reference/ reads it: api.c's short forms
 * are its only readers.
 *
 * Relaxed atomics: it is set before the solving threads start, and a reader
 * only needs some valid value.
 */
static atomic_int ref_engine = TOI_REF_FAST;

toi_status toi_ref_set_engine(toi_ref_engine e) {
  if (e != TOI_REF_FAST && e != TOI_REF_MPFR) return TOI_ERR_RANGE;
  atomic_store_explicit(&ref_engine, (int)e, memory_order_relaxed);
  return TOI_OK;
}

toi_ref_engine toi_ref_get_engine(void) {
  return (toi_ref_engine)atomic_load_explicit(&ref_engine, memory_order_relaxed);
}
