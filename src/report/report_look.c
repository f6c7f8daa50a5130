/* report_look.c: groups and colours, significance of a "best", the verdict, document titles, labels. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report_look.h"

rl_group rl_group_of(const char *source, int external) {
  if (external) return RL_ENGINE;
  if (!source) return RL_DOCUMENT;
  if (strstr(source, "not from the documents") || strstr(source, "toibench's own")) return RL_OWN;
  return RL_DOCUMENT;
}

const char *rl_group_title(rl_group g) {
  switch (g) {
    case RL_DOCUMENT: return "formulas from the documents";
    case RL_OWN: return "own kernels, library code and the reference";
    default: return "engines and solvers";
  }
}

/* The palette table: one colour per built-in name, every other name from
 * other_colours by rank. Chosen apart by their CIEDE2000 distance (at least 20
 * between the fixed colours, 15 between any two of the table; none lighter than
 * L* 75, so that a line shows on white): documents' formulas in saturated hues,
 * our own kernels in green, grey and black, the reference in navy, engines in the
 * remainder. tests/report/test_report_look.c holds these distances. */
static const struct {
  const char *name, *colour;
} palette[] = {
    {"expanded", "#1f77b4"},         {"expanded-corner", "#d62728"}, {"inner-product", "#ff7f0e"},
    {"ericson", "#9467bd"},          {"minkowski", "#775500"},       {"phet", "#ff99aa"},
    {"phet-reverse", "#17becf"},     {"overlap-recovery", "#bcbd22"}, {"gsl-stable", "#888888"},
    {"robust", "#2ca02c"},           {"accurate", "#000000"},        {"reference", "#00008b"},
};
static const char *other_colours[] = {"#005544", "#661133", "#99aaff", "#ee1188", "#444455", "#662200",
                                      "#446600", "#ee99ff", "#99bb99", "#aa8844", "#333311", "#4433ff",
                                      "#880088", "#448877", "#885555", "#ccaa99", "#004455", "#221133"};

int rl_colour_fixed(const char *name) {
  for (size_t i = 0; i < sizeof palette / sizeof *palette; i++)
    if (!strcmp(palette[i].name, name)) return 1;
  return 0;
}

const char *rl_colour(const char *name, size_t other_rank) {
  for (size_t i = 0; i < sizeof palette / sizeof *palette; i++)
    if (!strcmp(palette[i].name, name)) return palette[i].colour;
  return other_colours[other_rank % (sizeof other_colours / sizeof *other_colours)];
}

/* The length of a seeds-folder file name at p ("NNN_hex.txt"), else 0. */
static size_t seed_file_len(const char *p) {
  size_t i = 0;
  while (i < 3 && p[i] >= '0' && p[i] <= '9') i++;
  if (i != 3 || p[i] != '_') return 0;
  i++;
  size_t h = i;
  while ((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f')) i++;
  return i > h && !strncmp(p + i, ".txt", 4) ? i + 4 : 0;
}

void rl_source_title(char *out, size_t n, const char *source) {
  size_t k = 0;
  if (!n) return;
  for (const char *p = source ? source : ""; *p && k + 1 < n;) {
    size_t f = (p == source || p[-1] == ' ' || p[-1] == '(') ? seed_file_len(p) : 0;
    if (f) {
      p += f;
      while (*p == ' ') p++;
      continue;
    }
    out[k++] = *p++;
  }
  out[k] = 0;
}

double rl_prop_z(double x1, double n1, double x2, double n2) {
  if (n1 <= 0 || n2 <= 0) return 0;
  double p1 = x1 / n1, p2 = x2 / n2, p = (x1 + x2) / (n1 + n2);
  double se = sqrt(p * (1 - p) * (1 / n1 + 1 / n2));
  if (se == 0) return 0;
  return (p1 - p2) / se;
}

void rl_quantile_interval(const double *sorted, size_t n, double q, double *lo, double *hi) {
  if (n == 0) {
    *lo = *hi = NAN;
    return;
  }
  double c = (double)n * q, d = RL_Z * sqrt((double)n * q * (1 - q));
  double a = floor(c - d), b = ceil(c + d);
  size_t ia = a < 0 ? 0 : (size_t)a, ib = b > (double)(n - 1) ? n - 1 : (size_t)b;
  if (ia > n - 1) ia = n - 1;
  *lo = sorted[ia];
  *hi = sorted[ib];
}

/* 1 when a is better than b beyond noise. */
static int beyond_noise(const rl_cell *a, const rl_cell *b, int larger_better) {
  if (a->n > 0 && b->n > 0) {
    double z = rl_prop_z(a->x, a->n, b->x, b->n);
    return larger_better ? z > RL_Z : z < -RL_Z;
  }
  return larger_better ? a->lo > b->hi : a->hi < b->lo;
}

size_t rl_best_significant(const rl_cell *c, size_t n, int larger_better, int *best) {
  size_t ib = n;
  for (size_t k = 0; k < n; k++) {
    best[k] = 0;
    if (!c[k].in || isnan(c[k].value)) continue;
    if (ib == n || (larger_better ? c[k].value > c[ib].value : c[k].value < c[ib].value)) ib = k;
  }
  if (ib == n) return 0;
  /* Every row not tied with the best must be beyond noise from each tied one. */
  size_t marked = 0;
  for (size_t k = 0; k < n; k++)
    if (c[k].in && c[k].value == c[ib].value) best[k] = 1, marked++;
  int any_other = 0;
  for (size_t j = 0; j < n; j++) {
    if (!c[j].in || isnan(c[j].value) || best[j]) continue;
    any_other = 1;
    for (size_t k = 0; k < n; k++)
      if (best[k] && !beyond_noise(&c[k], &c[j], larger_better)) any_other = -1;
    if (any_other < 0) break;
  }
  if (any_other != 1) {
    for (size_t k = 0; k < n; k++) best[k] = 0;
    return 0;
  }
  return marked;
}

/* ---- the verdict ---- */

static void add(char *out, size_t size, size_t *len, const char *fmt, ...) {
  if (*len >= size) return;
  va_list ap;
  va_start(ap, fmt);
  int w = vsnprintf(out + *len, size - *len, fmt, ap);
  va_end(ap);
  if (w > 0) *len += (size_t)w < size - *len ? (size_t)w : size - *len - 1;
}

double rl_misclass_pct(double missed, double ghost, double other, double scored) {
  return scored > 0 ? 100 * (missed + ghost + other) / scored : NAN;
}

const char rl_misclass_rule[] =
    "misclass % = (missed + ghost + other) / scored cases, scored cases being those in the row's domain that "
    "it answered (cases it declined or failed, and out-of-domain ones, are counted apart and never scored), as "
    "toibench summary gives it.";

/* The misclassification rate as a fraction (the verdict prints it in percent). */
static double miscl(const rl_entry *e) { return rl_misclass_pct(e->missed, e->ghost, e->other, e->cases) / 100; }

/* The most accurate forward row: fewest classification errors, then the lower p99, then the faster. */
static const rl_entry *most_accurate(const rl_entry *e, size_t n) {
  const rl_entry *b = NULL;
  for (size_t k = 0; k < n; k++) {
    const rl_entry *r = &e[k];
    if (!r->forward || !(r->cases > 0) || isnan(r->p99)) continue;
    if (!b) {
      b = r;
      continue;
    }
    double mr = miscl(r), mb = miscl(b);
    if (mr != mb ? mr < mb : r->p99 != b->p99 ? r->p99 < b->p99 : r->ns < b->ns) b = r;
  }
  return b;
}

/* The best cheaper forward row than a: the lowest finite p99 among those faster. */
static const rl_entry *cheaper(const rl_entry *e, size_t n, const rl_entry *a) {
  const rl_entry *b = NULL;
  for (size_t k = 0; k < n; k++) {
    const rl_entry *r = &e[k];
    if (r == a || !r->forward || !isfinite(r->p99) || !(r->ns < a->ns)) continue;
    if (!b || r->p99 < b->p99 || (r->p99 == b->p99 && miscl(r) < miscl(b))) b = r;
  }
  return b;
}

static const char *ulps(char *buf, size_t n, double u) {
  if (isinf(u))
    snprintf(buf, n, "infinite");
  else
    snprintf(buf, n, "%.3g ULP", u);
  return buf;
}

/* Sentences 1 and 2: what to use, and the cheaper choice. */
static int verdict_choice(char *out, size_t size, size_t *len, const rl_entry *e, size_t n) {
  const rl_entry *a = most_accurate(e, n);
  if (!a) return 0;
  char u1[32], u2[32];
  add(out, size, len, "Use %s when the answer must be right: it misclassifies %.3g%% of its %.0f scored cases, with a "
                      "median error of %s and a p99 of %s",
      a->name, 100 * miscl(a), a->cases, ulps(u1, sizeof u1, a->median), ulps(u2, sizeof u2, a->p99));
  if (isfinite(a->ns)) add(out, size, len, ", at %.3g ns per call", a->ns);
  add(out, size, len, ".");
  const rl_entry *c = cheaper(e, n, a);
  if (!c) {
    add(out, size, len, " No faster formulation has a finite p99 error.");
    return 2;
  }
  add(out, size, len, " Where cost matters more, %s takes %.3g ns (%.2gx less) with a p99 of %s", c->name, c->ns,
      a->ns / c->ns, ulps(u1, sizeof u1, c->p99));
  if (isfinite(c->max_ratio))
    add(out, size, len, " (its largest error is %.2g times what the conditioning allows, kappa u)", c->max_ratio);
  add(out, size, len, ", but misclassifies %.3g%% of its scored cases.", 100 * miscl(c));
  return 2;
}

/* Sentence 3: the documents' formulas' classification and overflow. */
static int verdict_documents(char *out, size_t size, size_t *len, const rl_entry *e, size_t n) {
  const rl_entry *lo = NULL, *hi = NULL;
  double missed = 0, ghost = 0, other = 0;
  size_t nonfinite = 0;
  char names[256] = "";
  size_t nl = 0;
  for (size_t k = 0; k < n; k++) {
    const rl_entry *r = &e[k];
    if (r->group != RL_DOCUMENT || !r->forward || !(r->cases > 0)) continue;
    if (!lo || miscl(r) < miscl(lo)) lo = r;
    if (!hi || miscl(r) > miscl(hi)) hi = r;
    missed += r->missed;
    ghost += r->ghost;
    other += r->other;
    if (r->timed > 0 && r->nonfinite > 0.01 * r->timed) {
      nonfinite++;
      add(names, sizeof names, &nl, "%s%s", nl ? ", " : "", r->name);
    }
  }
  if (!lo) return 0;
  add(out, size, len,
      " The documents' forward formulas misclassify from %.3g%% (%s) to %.3g%% (%s) of their scored cases, mostly as %s",
      100 * miscl(lo), lo->name, 100 * miscl(hi), hi->name,
      missed >= ghost && missed >= other ? "missed collisions"
      : ghost >= other                   ? "ghost collisions"
                                         : "other disagreements (overlaps)");
  if (nonfinite)
    add(out, size, len, "; %zu of them (%s) return a NaN or infinite time on more than 1%% of the timed cases",
        nonfinite, names);
  add(out, size, len, ".");
  return 1;
}

/* Sentence 4: where the documents' formulas lose their digits. */
static int verdict_where(char *out, size_t size, size_t *len, const rl_entry *e, size_t n) {
  const rl_entry *w = NULL;
  for (size_t k = 0; k < n; k++) {
    const rl_entry *r = &e[k];
    if (r->group != RL_DOCUMENT || !r->worst_family || !r->worst_family[0] || isnan(r->worst_family_median)) continue;
    if (!w || r->worst_family_median > w->worst_family_median) w = r;
  }
  if (!w) return 0;
  char u[32];
  add(out, size, len, " Their largest loss of digits is in the %s family: %s reaches a median error of %s at %s = %d.",
      w->worst_family, w->name, ulps(u, sizeof u, w->worst_family_median),
      w->worst_family_param_name ? w->worst_family_param_name : "k", w->worst_family_param);
  return 1;
}

int rl_verdict(char *out, size_t size, const rl_entry *e, size_t n) {
  size_t len = 0;
  if (size) out[0] = 0;
  int s = verdict_choice(out, size, &len, e, n);
  if (!s) return 0;
  s += verdict_documents(out, size, &len, e, n);
  s += verdict_where(out, size, &len, e, n);
  return s;
}

/* ---- label placement ---- */

int rl_boxes_overlap(double ax, double ay, double aw, double ah, double bx, double by, double bw, double bh) {
  return ax < bx + bw && bx < ax + aw && ay < by + bh && by < ay + ah;
}

/* 1 when a label at (x, y) of w by h is clear of the points, the placed labels, the kept boxes and the unit
   square's edge. */
static int label_free(double x, double y, double w, double h, size_t self, const double *px, const double *py,
                      size_t n, const double *lx, const double *ly, const double *lw, size_t placed, const rl_box *keep,
                      size_t nkeep) {
  if (x < 0 || y < 0 || x + w > 1 || y + h > 1) return 0;
  const double r = 0.008; /* a point's half size */
  for (size_t j = 0; j < n; j++)
    if (j != self && rl_boxes_overlap(x, y, w, h, px[j] - r, py[j] - r, 2 * r, 2 * r)) return 0;
  for (size_t j = 0; j < placed; j++)
    if (rl_boxes_overlap(x, y, w, h, lx[j], ly[j], lw[j], h)) return 0;
  for (size_t j = 0; j < nkeep; j++)
    if (rl_boxes_overlap(x, y, w, h, keep[j].x, keep[j].y, keep[j].w, keep[j].h)) return 0;
  return 1;
}

int rl_place_labels_avoiding(const double *x, const double *y, const double *w, double h, size_t n,
                             const rl_box *keep, size_t nkeep, double *lx, double *ly) {
  int rc = 0;
  for (size_t i = 0; i < n; i++) {
    int ok = 0;
    for (int step = 1; step <= 12 && !ok; step++) {
      double d = 0.012 * step;
      double cx[6] = {x[i] + d, x[i] - d - w[i], x[i] - w[i] / 2, x[i] - w[i] / 2, x[i] + d, x[i] + d};
      double cy[6] = {y[i] - h / 2, y[i] - h / 2, y[i] + d, y[i] - d - h, y[i] + d, y[i] - d - h};
      for (int c = 0; c < 6 && !ok; c++)
        if (label_free(cx[c], cy[c], w[i], h, i, x, y, n, lx, ly, w, i, keep, nkeep)) {
          lx[i] = cx[c];
          ly[i] = cy[c];
          ok = 1;
        }
    }
    if (!ok) {
      lx[i] = x[i] + 0.012;
      ly[i] = y[i] - h / 2;
      rc = -1;
    }
  }
  return rc;
}

int rl_place_labels(const double *x, const double *y, const double *w, double h, size_t n, double *lx, double *ly) {
  return rl_place_labels_avoiding(x, y, w, h, n, NULL, 0, lx, ly);
}

/* ---- the cost plot's y range ---- */

static int cmp_dbl(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

void rl_cost_yrange(const double *v, size_t n, double *lo, double *hi, int *clipped) {
  double *l = malloc((n ? n : 1) * sizeof *l);
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    clipped[i] = 0;
    if (l && isfinite(v[i]) && v[i] > 0) l[m++] = log10(v[i]);
  }
  *lo = 1e-3 / 30;
  *hi = 1;
  if (m == 0) {
    free(l);
    return;
  }
  qsort(l, m, sizeof *l, cmp_dbl);
  size_t r1 = (size_t)ceil(0.25 * (double)m), r3 = (size_t)ceil(0.75 * (double)m);
  double q1 = l[(r1 ? r1 : 1) - 1], q3 = l[(r3 ? r3 : 1) - 1];
  double fence = q3 + fmax(1.5 * (q3 - q1), 3.0);
  double vmin = INFINITY, vmax = 0;
  for (size_t i = 0; i < n; i++) {
    if (!isfinite(v[i]) || !(v[i] > 0)) continue;
    if (log10(v[i]) > fence) {
      clipped[i] = 1;
      continue;
    }
    vmin = fmin(vmin, v[i]);
    vmax = fmax(vmax, v[i]);
  }
  free(l);
  *lo = vmin / 30;
  *hi = vmax * 30;
}
