/* expanded.fpcore.c: expanded as FPCore, operation for operation as expanded.c computes it (fpcore.h). */
#include "fpcore_kit.h"

static void body(fpw *w) {
  fp_put(w, "(let* (");
  fp_bind_abc(w);
  fp_put(w, "\n        (disc (- (* B B) (* (* 4 A) C)))"
         "\n        (t (/ (- (- B) (sqrt disc)) (* 2 A))))"
         "\n   (if (== A 0) INFINITY (if (< disc 0) INFINITY (if (>= t 0) t INFINITY))))");
}

const toi_fpcore_entry toi_f_expanded_fpcore = {body, NULL};
