/* inner_product.fpcore.c: inner-product as FPCore, operation for operation as inner_product.c (fpcore.h). */
#include "fpcore_kit.h"

static void body(fpw *w) {
  fp_put(w, "(let* (");
  fp_bind_relative(w);
  fp_put(w, "\n        (p ");
  fp_dot(w, "s", "v");
  fp_put(w, ")\n        (q ");
  fp_dot(w, "v", "v");
  fp_put(w, ")\n        (ss ");
  fp_dot(w, "s", "s");
  fp_put(w, ")\n        (delta (- (+ (* 4 (* p p)) (* (* 4 (* R R)) q)) (* (* 4 q) ss)))"
         "\n        (rad (+ (/ (* p p) (* q q)) (/ (- (* R R) ss) q)))"
         "\n        (t (- (- (/ p q)) (sqrt rad))))"
         "\n   (if (<= delta 0) INFINITY (if (> t 0) t INFINITY)))");
}

const toi_fpcore_entry toi_f_inner_product_fpcore = {body, NULL};
