/* gsl_stable.fpcore.c: gsl-stable as FPCore, operation for operation as gsl_stable.c computes it (fpcore.h). */
#include "fpcore_kit.h"

static void body(fpw *w) {
  fp_put(w, "(let* (");
  fp_bind_abc(w);
  fp_put(w, "\n        (disc (- (* B B) (* (* 4 A) C)))"
         "\n        (sgnb (if (> B 0) 1 -1))"
         "\n        (temp (* -0.5 (+ B (* sgnb (sqrt disc)))))"
         "\n        (r1 (/ temp A))"
         "\n        (r2 (/ C temp)))"
         "\n   (if (< C 0) 0"
         "\n   (if (== A 0) INFINITY"
         "\n   (if (>= B 0) INFINITY"
         "\n   (if (< disc 0) INFINITY"
         "\n   (if (== disc 0) (/ (* -0.5 B) A)"
         "\n   (if (< r1 r2) r1 r2)))))))");
}

const toi_fpcore_entry toi_f_gsl_stable_fpcore = {body, NULL};
