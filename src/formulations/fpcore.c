/* fpcore.c: the formulations written out as FPCore expressions, operation for operation. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fpcore.h"

/* A growing text buffer; a failed allocation sets oom and stops writing. */
typedef struct fpw {
  char *buf;
  size_t len, cap;
  int oom;
  int n; /* components: 2 or 3 */
} fpw;

static void put(fpw *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(fpw *w, const char *fmt, ...) {
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

static const char comp[3] = {'x', 'y', 'z'};

/* x.y in the order toi_dot_in_order sums it: ((x0 y0 + x1 y1) + x2 y2). */
static void dot(fpw *w, const char *x, const char *y) {
  for (int i = 1; i < w->n; i++) put(w, "(+ ");
  for (int i = 0; i < w->n; i++) put(w, i ? " (* %s%c %s%c))" : "(* %s%c %s%c)", x, comp[i], y, comp[i]);
}

/* A let* binding per component: (OUTi (OP Ai Bi)). */
static void bind_vec(fpw *w, const char *out, const char *op, const char *a, const char *b) {
  for (int i = 0; i < w->n; i++) put(w, "\n        (%s%c (%s %s%c %s%c))", out, comp[i], op, a, comp[i], b, comp[i]);
}

/* toi_relative_motion: s = pB - pA, v = vB - vA, and R = rA + rB. */
static void bind_relative(fpw *w) {
  bind_vec(w, "s", "-", "pb", "pa");
  bind_vec(w, "v", "-", "vb", "va");
  put(w, "\n        (R (+ ra rb))");
}

/* The coefficients expanded and gsl-stable share: A = v.v, B = 2 s.v, C = s.s - R R. */
static void bind_abc(fpw *w) {
  bind_relative(w);
  put(w, "\n        (A ");
  dot(w, "v", "v");
  put(w, ")\n        (B (* 2 ");
  dot(w, "s", "v");
  put(w, "))\n        (C (- ");
  dot(w, "s", "s");
  put(w, " (* R R)))");
}

static void body_expanded(fpw *w) {
  put(w, "(let* (");
  bind_abc(w);
  put(w, "\n        (disc (- (* B B) (* (* 4 A) C)))"
         "\n        (t (/ (- (- B) (sqrt disc)) (* 2 A))))"
         "\n   (if (== A 0) INFINITY (if (< disc 0) INFINITY (if (>= t 0) t INFINITY))))");
}

/* A left-to-right sum of the components of x: ((x0 + x1) + x2). */
static void sum(fpw *w, const char *x) {
  for (int i = 1; i < w->n; i++) put(w, "(+ ");
  for (int i = 0; i < w->n; i++) put(w, i ? " %s%c)" : "%s%c", x, comp[i]);
}

static void body_expanded_corner(fpw *w) {
  put(w, "(let* (");
  /* corner = centre - own radius */
  for (int i = 0; i < w->n; i++) put(w, "\n        (xa%c (- pa%c ra))", comp[i], comp[i]);
  for (int i = 0; i < w->n; i++) put(w, "\n        (xb%c (- pb%c rb))", comp[i], comp[i]);
  put(w, "\n        (rab (- ra rb))");
  bind_vec(w, "vab", "-", "va", "vb");
  bind_vec(w, "xab", "-", "xa", "xb");
  put(w, "\n        (n ");
  dot(w, "vab", "vab");
  put(w, ")\n        (vsum ");
  sum(w, "vab");
  put(w, ")\n        (xsum ");
  sum(w, "xab");
  put(w, ")\n        (m (* 2 ");
  for (int i = 0; i < w->n; i++) put(w, "(+ ");
  put(w, "(* rab vsum)");
  for (int i = 0; i < w->n; i++) put(w, " (* xab%c vab%c))", comp[i], comp[i]);
  put(w, "))\n        (rab2 (* rab rab))");
  put(w, w->n == 3 ? "\n        (rabsq (+ rab2 rab2))" : "\n        (rabsq rab2)");
  put(w, "\n        (k ");
  for (int i = 0; i < w->n; i++) put(w, "(+ ");
  put(w, "(+ (- rabsq (* (* 4 ra) rb)) (* (* 2 rab) xsum))");
  for (int i = 0; i < w->n; i++) put(w, " (* xab%c xab%c))", comp[i], comp[i]);
  put(w, ")\n        (disc (- (* m m) (* (* 4 n) k)))"
         "\n        (t (/ (- (- (sqrt disc)) m) (* 2 n))))"
         "\n   (if (< disc 0) INFINITY (if (== disc 0) INFINITY (if (< t -1) INFINITY t))))");
}

static void body_inner_product(fpw *w) {
  put(w, "(let* (");
  bind_relative(w);
  put(w, "\n        (p ");
  dot(w, "s", "v");
  put(w, ")\n        (q ");
  dot(w, "v", "v");
  put(w, ")\n        (ss ");
  dot(w, "s", "s");
  put(w, ")\n        (delta (- (+ (* 4 (* p p)) (* (* 4 (* R R)) q)) (* (* 4 q) ss)))"
         "\n        (rad (+ (/ (* p p) (* q q)) (/ (- (* R R) ss) q)))"
         "\n        (t (- (- (/ p q)) (sqrt rad))))"
         "\n   (if (<= delta 0) INFINITY (if (> t 0) t INFINITY)))");
}

static void body_ericson(fpw *w) {
  put(w, "(let* (");
  bind_vec(w, "s", "-", "pb", "pa");
  bind_vec(w, "v", "-", "vb", "va");
  put(w, "\n        (r (+ rb ra))\n        (c (- ");
  dot(w, "s", "s");
  put(w, " (* r r)))\n        (a ");
  dot(w, "v", "v");
  put(w, ")\n        (b ");
  dot(w, "v", "s");
  put(w, ")\n        (d (- (* b b) (* a c))))"
         "\n   (if (< c 0) 0"
         "\n   (if (< a 1e-12) INFINITY"
         "\n   (if (>= b 0) INFINITY"
         "\n   (if (< d 0) INFINITY (/ (- (- b) (sqrt d)) a))))))");
}

static void body_minkowski(fpw *w) {
  put(w, "(let* (");
  bind_vec(w, "d", "-", "vb", "va");
  put(w, "\n        (r (+ ra rb))\n        (a ");
  dot(w, "d", "d");
  put(w, ")\n        (b (* 2 (- ");
  dot(w, "d", "pb");
  put(w, " ");
  dot(w, "d", "pa");
  put(w, ")))\n        (c (- (- (+ ");
  dot(w, "pb", "pb");
  put(w, " ");
  dot(w, "pa", "pa");
  put(w, ") (* 2 ");
  dot(w, "pb", "pa");
  put(w, ")) (* r r)))"
         "\n        (root (sqrt (- (* b b) (* (* 4 a) c))))"
         "\n        (tm (/ (- (- b) root) (* 2 a)))"
         "\n        (tp (/ (+ (- b) root) (* 2 a))))"
         "\n   (if (< (* b b) (* (* 4 a) c)) INFINITY"
         "\n   (if (not (and (<= tm INFINITY) (>= tp 0))) INFINITY"
         "\n   (if (>= tm 0) tm 0))))");
}

static void body_gsl_stable(fpw *w) {
  put(w, "(let* (");
  bind_abc(w);
  put(w, "\n        (disc (- (* B B) (* (* 4 A) C)))"
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

/* phet_detect with velocity multiplier 1 and phet_roots inlined. JavaScript's
   Math.min(Infinity, r) is r (NaN stays NaN), so Math.min(...roots) is the
   linear root, or js_min(r0, r1) written out; the parallel test, the 1e-10
   clamp and the 1e7 fallback are the library's constants. */
static void body_phet(fpw *w) {
  put(w, "(let* (");
  bind_vec(w, "dr", "-", "pb", "pa");
  for (int i = 0; i < w->n; i++) put(w, "\n        (dv%c (* (- vb%c va%c) 1))", comp[i], comp[i], comp[i]);
  put(w, "\n        (S (+ ra rb))\n        (S2 (* S S))\n        (rdp ");
  dot(w, "dv", "dr");
  put(w, ")\n        (c0 (- ");
  dot(w, "dr", "dr");
  put(w, " S2))\n        (c (if (< (fabs c0) 1e-10) 0 c0))\n        (a ");
  dot(w, "dv", "dv");
  put(w, ")\n        (b (* rdp 2)))"
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

typedef struct fp_entry {
  const char *name;
  void (*body)(fpw *w); /* NULL: not exportable, why says why */
  const char *why;
} fp_entry;

static const fp_entry entries[] = {
    {"expanded", body_expanded, NULL},
    {"expanded-corner", body_expanded_corner, NULL},
    {"inner-product", body_inner_product, NULL},
    {"ericson", body_ericson, NULL},
    {"minkowski", body_minkowski, NULL},
    {"phet", body_phet, NULL},
    {"gsl-stable", body_gsl_stable, NULL},
    {"phet-reverse", NULL, "a reverse formulation (largest root <= 0), not a forward time of impact"},
    {"overlap-recovery", NULL, "a reverse formulation answering overlaps only, not a forward time of impact"},
    {"robust", NULL,
     "scales its inputs by data-dependent powers of two and computes compensated terms "
     "(TwoSum, FMA TwoProd, Kahan's determinant): an FPCore of its math would be the plain formula, "
     "not what it computes"},
    {"accurate", NULL,
     "decides signs exactly with double-double filters and Shewchuk expansions (arbitrary length): "
     "not a fixed expression"},
};

static const fp_entry *entry_of(const toi_formulation *f) {
  if (!f) return NULL;
  for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++)
    if (!strcmp(entries[i].name, f->name)) return &entries[i];
  return NULL;
}

const char *toi_fpcore_unsupported(const toi_formulation *f) {
  const fp_entry *e = entry_of(f);
  if (!e) return "no FPCore written for it";
  if (f->direction != TOI_FORWARD) return e->why ? e->why : "not a forward formulation";
  return e->body ? NULL : e->why;
}

/* Text inside an FPCore string: backslash and double quote escaped. */
static void put_escaped(fpw *w, const char *s) {
  for (; *s; s++) put(w, *s == '"' || *s == '\\' ? "\\%c" : "%c", *s);
}

/* The shortest decimal that reads back as x (FPCore numbers are exact
   reals), integers without an exponent, the exponent as FPCore writes it. */
static void put_number(fpw *w, double x) {
  char b[40];
  if (x == floor(x) && fabs(x) < 1e15) {
    put(w, "%.0f", x);
    return;
  }
  for (int p = 1; p <= 17; p++) {
    snprintf(b, sizeof b, "%.*g", p, x);
    if (strtod(b, NULL) == x) break;
  }
  char *e = strchr(b, 'e');
  if (e && e[1] == '+') memmove(e + 1, e + 2, strlen(e + 2) + 1);
  put(w, "%s", b);
}

static void put_range(fpw *w, const char *var, int i, double lo, double hi) {
  put(w, "\n      (<= ");
  put_number(w, lo);
  if (i >= 0)
    put(w, " %s%c ", var, comp[i]);
  else
    put(w, " %s ", var);
  put_number(w, hi);
  put(w, ")");
}

/* :pre, the family's default box for every argument (see fpcore.h). */
static void put_pre(fpw *w, toi_gen_family fam, toi_precision q) {
  toi_gen_opts g;
  toi_gen_opts_default_in(&g, fam, q);
  double pb = g.pos, va = g.vel, vb = g.vel;
  if (fam == TOI_GEN_AIMED) {
    double bmax = fmax(fabs(g.blo), fabs(g.bhi));
    pb = ceil(g.pos + 2 * g.rhi * sqrt(20 * 20 + bmax * bmax));
    va = 1;
    vb = 1 + 4;
  }
  put(w, "\n :pre (and");
  for (int i = 0; i < w->n; i++) put_range(w, "pa", i, -g.pos, g.pos);
  for (int i = 0; i < w->n; i++) put_range(w, "va", i, -va, va);
  put_range(w, "ra", -1, g.rlo, g.rhi);
  for (int i = 0; i < w->n; i++) put_range(w, "pb", i, -pb, pb);
  for (int i = 0; i < w->n; i++) put_range(w, "vb", i, -vb, vb);
  put_range(w, "rb", -1, g.rlo, g.rhi);
  put(w, ")");
}

static void put_header(fpw *w, const toi_formulation *f, const toi_fpcore_opts *o) {
  static const char *const vecs[2][2] = {{"pa", "va"}, {"pb", "vb"}};
  put(w, "(FPCore (");
  for (int ball = 0; ball < 2; ball++) {
    for (int v = 0; v < 2; v++)
      for (int i = 0; i < w->n; i++) put(w, "%s%s%c", ball || v || i ? " " : "", vecs[ball][v], comp[i]);
    put(w, ball ? " rb" : " ra");
  }
  put(w, ")\n :name \"");
  put_escaped(w, f->name);
  put(w, "\"\n :description \"Forward time of impact of two balls in %dD: the time when toibench's '%s' "
         "reports a contact (0 for an overlap at the start), +inf when it reports none. Source: ",
      w->n, f->name);
  put_escaped(w, f->source);
  put(w, ". ");
  put_escaped(w, f->summary);
  put(w, "\"");
  put_pre(w, o->pre, o->precision);
  put(w, "\n :precision %s\n ", toi_precision_name(o->precision));
}

toi_status toi_fpcore_format(char **out, const toi_formulation *f, const toi_fpcore_opts *o) {
  *out = NULL;
  if (!f || toi_fpcore_unsupported(f)) return TOI_ERR_INPUT;
  if (!o || (o->dim != 2 && o->dim != 3) || (o->pre != TOI_GEN_GENERIC && o->pre != TOI_GEN_AIMED) ||
      (o->precision != TOI_BINARY64 && o->precision != TOI_BINARY32))
    return TOI_ERR_RANGE;
  fpw w = {malloc(4096), 0, 4096, 0, o->dim};
  if (!w.buf) return TOI_ERR_NOMEM;
  put_header(&w, f, o);
  entry_of(f)->body(&w);
  put(&w, ")\n");
  /* The first binding of each let* on the line that opens it. */
  static const char open[] = "(let* (\n        ";
  for (char *p = w.oom ? NULL : strstr(w.buf, open); p; p = strstr(p, open)) {
    p += 7;
    memmove(p, p + 9, strlen(p + 9) + 1);
    w.len -= 9;
  }
  if (w.oom) {
    free(w.buf);
    return TOI_ERR_NOMEM;
  }
  *out = w.buf;
  return TOI_OK;
}
