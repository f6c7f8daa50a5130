/* response32.c: the float collision response pipeline, compiled from the same source as the double one. */

/* response.c written with `real`: included here with TOI_REAL_BITS 32 it
   defines toi_response_compute32, every operation in float. */
#define TOI_REAL_BITS 32

#include "response.c"

toi_response_fn toi_response_pipeline(toi_precision q) {
  switch (q) {
  case TOI_BINARY64: return toi_response_compute;
  case TOI_BINARY32: return toi_response_compute32;
  default: return NULL;
  }
}
