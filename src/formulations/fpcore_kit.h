/* fpcore_kit.h: what a formulation's FPCore transcription (NAME/NAME.fpcore.c) is written with. */
#ifndef TOI_FPCORE_KIT_H
#define TOI_FPCORE_KIT_H

#include <stddef.h>
#include "toi.h"

/* A growing text buffer; a failed allocation sets oom and stops writing. */
typedef struct fpw {
  char *buf;
  size_t len, cap;
  int oom;
  int n; /* components: 2 or 3 */
} fpw;

/// A formulation's FPCore: body writes its BODY (fpcore.h says what it must
/// be); NULL when it has none, and why says why. Each formulation defines one,
/// named after its solve function: toi_f_NAME_fpcore (registry.c lists them).
typedef struct toi_fpcore_entry {
  void (*body)(fpw *w);
  const char *why;
} toi_fpcore_entry;

/// The entry of the built-in formulation named f->name (registry.c), or NULL.
const toi_fpcore_entry *toi_formulation_fpcore(const toi_formulation *f);

/// Appends printf-style text to w.
void fp_put(fpw *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/// The components' letters: x, y, z.
extern const char fp_comp[3];
/// x.y in the order toi_dot_in_order sums it: ((x0 y0 + x1 y1) + x2 y2).
void fp_dot(fpw *w, const char *x, const char *y);
/// A let* binding per component: (OUTi (OP Ai Bi)).
void fp_bind_vec(fpw *w, const char *out, const char *op, const char *a, const char *b);
/// toi_relative_motion: s = pB - pA, v = vB - vA, and R = rA + rB.
void fp_bind_relative(fpw *w);
/// The coefficients expanded and gsl-stable share: A = v.v, B = 2 s.v, C = s.s - R R.
void fp_bind_abc(fpw *w);
/// A left-to-right sum of the components of x: ((x0 + x1) + x2).
void fp_sum(fpw *w, const char *x);

#endif
