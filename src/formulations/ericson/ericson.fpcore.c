/* ericson.fpcore.c: ericson as FPCore, operation for operation as ericson.c computes it (fpcore.h). */
#include "fpcore_kit.h"

static void body(fpw *w) {
  fp_put(w, "(let* (");
  fp_bind_vec(w, "s", "-", "pb", "pa");
  fp_bind_vec(w, "v", "-", "vb", "va");
  fp_put(w, "\n        (r (+ rb ra))\n        (c (- ");
  fp_dot(w, "s", "s");
  fp_put(w, " (* r r)))\n        (a ");
  fp_dot(w, "v", "v");
  fp_put(w, ")\n        (b ");
  fp_dot(w, "v", "s");
  fp_put(w, ")\n        (d (- (* b b) (* a c))))"
         "\n   (if (< c 0) 0"
         "\n   (if (< a 1e-12) INFINITY"
         "\n   (if (>= b 0) INFINITY"
         "\n   (if (< d 0) INFINITY (/ (- (- b) (sqrt d)) a))))))");
}

const toi_fpcore_entry toi_f_ericson_fpcore = {body, NULL};
