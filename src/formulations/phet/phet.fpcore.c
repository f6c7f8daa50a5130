/* phet.fpcore.c: phet as FPCore, operation for operation as phet.c computes it (fpcore.h). */
#include "fpcore_kit.h"

/* phet_detect with velocity multiplier 1 and phet_roots inlined. JavaScript's
   Math.min(Infinity, r) is r (NaN stays NaN), so Math.min(...roots) is the
   linear root, or js_min(r0, r1) written out; the parallel test, the 1e-10
   clamp and the 1e7 fallback are the library's constants. */
static void body(fpw *w) {
  fp_put(w, "(let* (");
  fp_bind_vec(w, "dr", "-", "pb", "pa");
  for (int i = 0; i < w->n; i++) fp_put(w, "\n        (dv%c (* (- vb%c va%c) 1))", fp_comp[i], fp_comp[i], fp_comp[i]);
  fp_put(w, "\n        (S (+ ra rb))\n        (S2 (* S S))\n        (rdp ");
  fp_dot(w, "dv", "dr");
  fp_put(w, ")\n        (c0 (- ");
  fp_dot(w, "dr", "dr");
  fp_put(w, " S2))\n        (c (if (< (fabs c0) 1e-10) 0 c0))\n        (a ");
  fp_dot(w, "dv", "dv");
  fp_put(w, ")\n        (b (* rdp 2)))"
         "\n   (if (or (== a 0) (> (fabs (/ b a)) 1e7) (> (fabs (/ c a)) 1e7))"
         "\n     (if (== b 0) INFINITY"
         "\n       (let ((root (/ (- c) b)))"
         "\n         (if (and (isfinite root) (>= root 0) (not (< (fabs rdp) 1e-11))) (* root 1) INFINITY)))"
         "\n     (let ((disc (- (* b b) (* (* 4 a) c))))"
         "\n       (if (< disc 0) INFINITY"
         "\n         (let* ((sq (sqrt disc))"
         "\n                (r0 (/ (- (- b) sq) (* 2 a)))"
         "\n                (r1 (/ (+ (- b) sq) (* 2 a)))"
         "\n                (root (if (or (isnan r0) (isnan r1)) NAN"
         "\n                        (if (== r0 r1) (if (signbit r0) r0 r1) (if (< r0 r1) r0 r1)))))"
         "\n           (if (and (isfinite root) (>= root 0) (not (< (fabs rdp) 1e-11))) (* root 1) INFINITY))))))");
}

const toi_fpcore_entry toi_f_phet_fpcore = {body, NULL};
