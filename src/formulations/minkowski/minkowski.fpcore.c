/* minkowski.fpcore.c: minkowski as FPCore, operation for operation as minkowski.c computes it (fpcore.h). */
#include "fpcore_kit.h"

static void body(fpw *w) {
  fp_put(w, "(let* (");
  fp_bind_vec(w, "d", "-", "vb", "va");
  fp_put(w, "\n        (r (+ ra rb))\n        (a ");
  fp_dot(w, "d", "d");
  fp_put(w, ")\n        (b (* 2 (- ");
  fp_dot(w, "d", "pb");
  fp_put(w, " ");
  fp_dot(w, "d", "pa");
  fp_put(w, ")))\n        (c (- (- (+ ");
  fp_dot(w, "pb", "pb");
  fp_put(w, " ");
  fp_dot(w, "pa", "pa");
  fp_put(w, ") (* 2 ");
  fp_dot(w, "pb", "pa");
  fp_put(w, ")) (* r r)))"
         "\n        (root (sqrt (- (* b b) (* (* 4 a) c))))"
         "\n        (tm (/ (- (- b) root) (* 2 a)))"
         "\n        (tp (/ (+ (- b) root) (* 2 a))))"
         "\n   (if (< (* b b) (* (* 4 a) c)) INFINITY"
         "\n   (if (not (and (<= tm INFINITY) (>= tp 0))) INFINITY"
         "\n   (if (>= tm 0) tm 0))))");
}

const toi_fpcore_entry toi_f_minkowski_fpcore = {body, NULL};
