/* fpcore_kit.c: the pieces every formulation's FPCore expression is written with (fpcore_kit.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "fpcore_kit.h"

void fp_put(fpw *w, const char *fmt, ...) {
  if (w->oom) return;
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(w->buf + w->len, w->cap - w->len, fmt, ap);
    va_end(ap);
    if (k < 0) {
      w->oom = 1;
      return;
    }
    if ((size_t)k < w->cap - w->len) {
      w->len += (size_t)k;
      return;
    }
    size_t cap = (w->cap + (size_t)k + 1) * 2;
    char *b = realloc(w->buf, cap);
    if (!b) {
      w->oom = 1;
      return;
    }
    w->buf = b;
    w->cap = cap;
  }
}

const char fp_comp[3] = {'x', 'y', 'z'};

/* x.y in the order toi_dot_in_order sums it: ((x0 y0 + x1 y1) + x2 y2). */
void fp_dot(fpw *w, const char *x, const char *y) {
  for (int i = 1; i < w->n; i++) fp_put(w, "(+ ");
  for (int i = 0; i < w->n; i++) fp_put(w, i ? " (* %s%c %s%c))" : "(* %s%c %s%c)", x, fp_comp[i], y, fp_comp[i]);
}

/* A let* binding per component: (OUTi (OP Ai Bi)). */
void fp_bind_vec(fpw *w, const char *out, const char *op, const char *a, const char *b) {
  for (int i = 0; i < w->n; i++)
    fp_put(w, "\n        (%s%c (%s %s%c %s%c))", out, fp_comp[i], op, a, fp_comp[i], b, fp_comp[i]);
}

/* toi_relative_motion: s = pB - pA, v = vB - vA, and R = rA + rB. */
void fp_bind_relative(fpw *w) {
  fp_bind_vec(w, "s", "-", "pb", "pa");
  fp_bind_vec(w, "v", "-", "vb", "va");
  fp_put(w, "\n        (R (+ ra rb))");
}

/* The coefficients expanded and gsl-stable share: A = v.v, B = 2 s.v, C = s.s - R R. */
void fp_bind_abc(fpw *w) {
  fp_bind_relative(w);
  fp_put(w, "\n        (A ");
  fp_dot(w, "v", "v");
  fp_put(w, ")\n        (B (* 2 ");
  fp_dot(w, "s", "v");
  fp_put(w, "))\n        (C (- ");
  fp_dot(w, "s", "s");
  fp_put(w, " (* R R)))");
}

/* A left-to-right sum of the components of x: ((x0 + x1) + x2). */
void fp_sum(fpw *w, const char *x) {
  for (int i = 1; i < w->n; i++) fp_put(w, "(+ ");
  for (int i = 0; i < w->n; i++) fp_put(w, i ? " %s%c)" : "%s%c", x, fp_comp[i]);
}
