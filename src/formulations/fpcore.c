/* fpcore.c: a formulation's FPCore expression: the header, its :pre, and its body (NAME/NAME.fpcore.c). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fpcore.h"
#include "fpcore_kit.h"

const char *toi_fpcore_unsupported(const toi_formulation *f) {
  const toi_fpcore_entry *e = toi_formulation_fpcore(f);
  if (!e) return "no FPCore written for it";
  if (f->direction != TOI_FORWARD) return e->why ? e->why : "not a forward formulation";
  return e->body ? NULL : e->why;
}

/* Text inside an FPCore string: backslash and double quote escaped. */
static void put_escaped(fpw *w, const char *s) {
  for (; *s; s++) fp_put(w, *s == '"' || *s == '\\' ? "\\%c" : "%c", *s);
}

/* The shortest decimal that reads back as x (FPCore numbers are exact
   reals), integers without an exponent, the exponent as FPCore writes it. */
static void put_number(fpw *w, double x) {
  char b[40];
  if (x == floor(x) && fabs(x) < 1e15) {
    fp_put(w, "%.0f", x);
    return;
  }
  for (int p = 1; p <= 17; p++) {
    snprintf(b, sizeof b, "%.*g", p, x);
    if (strtod(b, NULL) == x) break;
  }
  char *e = strchr(b, 'e');
  if (e && e[1] == '+') memmove(e + 1, e + 2, strlen(e + 2) + 1);
  fp_put(w, "%s", b);
}

static void put_range(fpw *w, const char *var, int i, double lo, double hi) {
  fp_put(w, "\n      (<= ");
  put_number(w, lo);
  if (i >= 0)
    fp_put(w, " %s%c ", var, fp_comp[i]);
  else
    fp_put(w, " %s ", var);
  put_number(w, hi);
  fp_put(w, ")");
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
  fp_put(w, "\n :pre (and");
  for (int i = 0; i < w->n; i++) put_range(w, "pa", i, -g.pos, g.pos);
  for (int i = 0; i < w->n; i++) put_range(w, "va", i, -va, va);
  put_range(w, "ra", -1, g.rlo, g.rhi);
  for (int i = 0; i < w->n; i++) put_range(w, "pb", i, -pb, pb);
  for (int i = 0; i < w->n; i++) put_range(w, "vb", i, -vb, vb);
  put_range(w, "rb", -1, g.rlo, g.rhi);
  fp_put(w, ")");
}

static void put_header(fpw *w, const toi_formulation *f, const toi_fpcore_opts *o) {
  static const char *const vecs[2][2] = {{"pa", "va"}, {"pb", "vb"}};
  fp_put(w, "(FPCore (");
  for (int ball = 0; ball < 2; ball++) {
    for (int v = 0; v < 2; v++)
      for (int i = 0; i < w->n; i++) fp_put(w, "%s%s%c", ball || v || i ? " " : "", vecs[ball][v], fp_comp[i]);
    fp_put(w, ball ? " rb" : " ra");
  }
  fp_put(w, ")\n :name \"");
  put_escaped(w, f->name);
  fp_put(w, "\"\n :description \"Forward time of impact of two balls in %dD: the time when toibench's '%s' "
         "reports a contact (0 for an overlap at the start), +inf when it reports none. Source: ",
      w->n, f->name);
  put_escaped(w, f->source);
  fp_put(w, ". ");
  put_escaped(w, f->summary);
  fp_put(w, "\"");
  put_pre(w, o->pre, o->precision);
  fp_put(w, "\n :precision %s\n ", toi_precision_name(o->precision));
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
  toi_formulation_fpcore(f)->body(&w);
  fp_put(&w, ")\n");
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
