/* expanded_corner.fpcore.c: expanded-corner as FPCore, operation for operation as expanded_corner.c (fpcore.h). */
#include "fpcore_kit.h"

static void body(fpw *w) {
  fp_put(w, "(let* (");
  /* corner = centre - own radius */
  for (int i = 0; i < w->n; i++) fp_put(w, "\n        (xa%c (- pa%c ra))", fp_comp[i], fp_comp[i]);
  for (int i = 0; i < w->n; i++) fp_put(w, "\n        (xb%c (- pb%c rb))", fp_comp[i], fp_comp[i]);
  fp_put(w, "\n        (rab (- ra rb))");
  fp_bind_vec(w, "vab", "-", "va", "vb");
  fp_bind_vec(w, "xab", "-", "xa", "xb");
  fp_put(w, "\n        (n ");
  fp_dot(w, "vab", "vab");
  fp_put(w, ")\n        (vsum ");
  fp_sum(w, "vab");
  fp_put(w, ")\n        (xsum ");
  fp_sum(w, "xab");
  fp_put(w, ")\n        (m (* 2 ");
  for (int i = 0; i < w->n; i++) fp_put(w, "(+ ");
  fp_put(w, "(* rab vsum)");
  for (int i = 0; i < w->n; i++) fp_put(w, " (* xab%c vab%c))", fp_comp[i], fp_comp[i]);
  fp_put(w, "))\n        (rab2 (* rab rab))");
  fp_put(w, w->n == 3 ? "\n        (rabsq (+ rab2 rab2))" : "\n        (rabsq rab2)");
  fp_put(w, "\n        (k ");
  for (int i = 0; i < w->n; i++) fp_put(w, "(+ ");
  fp_put(w, "(+ (- rabsq (* (* 4 ra) rb)) (* (* 2 rab) xsum))");
  for (int i = 0; i < w->n; i++) fp_put(w, " (* xab%c xab%c))", fp_comp[i], fp_comp[i]);
  fp_put(w, ")\n        (disc (- (* m m) (* (* 4 n) k)))"
         "\n        (t (/ (- (- (sqrt disc)) m) (* 2 n))))"
         "\n   (if (< disc 0) INFINITY (if (== disc 0) INFINITY (if (< t -1) INFINITY t))))");
}

const toi_fpcore_entry toi_f_expanded_corner_fpcore = {body, NULL};
