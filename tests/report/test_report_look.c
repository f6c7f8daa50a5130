/* test_report_look.c: how the report reads: verdict from the data, bold only beyond noise, one palette,
 * the CDF's axis, labels apart, worst cases as files, numbers that do not wrap. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli_check.h"
#include "report_check.h"
#include "report_look.h"
#include "case_build.h"
#include "score.h"
#include "toiref.h"
#include "ref_forms.h"

/* ---- the verdict follows the data ---- */

static rl_entry entry(const char *name, rl_group g, double missed, double ghost, double median, double p99,
                      double ns) {
  rl_entry e = {name, g, 1, 1000, 1000 - missed - ghost, missed, ghost, 0, 500, median, p99, NAN, 0, ns, "", NAN, 0,
                "k"};
  return e;
}

Test(report_look, verdict_names_the_measured_best_and_changes_with_the_data) {
  rl_entry a[3] = {entry("alpha", RL_OWN, 0, 0, 0.25, 0.5, 80), entry("beta", RL_DOCUMENT, 100, 0, 3, 1e6, 20),
                   entry("gamma", RL_DOCUMENT, 50, 100, 9, INFINITY, 10)};
  a[1].worst_family = "grazing", a[1].worst_family_median = 1e7, a[1].worst_family_param = 40;
  a[2].worst_family = "far", a[2].worst_family_median = 1e3, a[2].worst_family_param = 12;
  a[2].worst_family_param_name = "e";
  a[2].nonfinite = 30; /* 6% of its 500 timed cases */
  char v[2048];
  cr_assert_eq(rl_verdict(v, sizeof v, a, 3), 4, "%s", v);
  cr_assert(strstr(v, "Use alpha when"), "%s", v);
  /* gamma is faster but its p99 is infinite: the cheaper choice is beta (20 ns, 4x less than 80). */
  cr_assert(strstr(v, "beta takes 20 ns (4x less)"), "%s", v);
  /* beta misclassifies 100/1000, gamma 150/1000; missed 150 > ghost 100 in all. */
  cr_assert(strstr(v, "from 10% (beta) to 15% (gamma) of their scored cases"), "%s", v);
  cr_assert(strstr(v, "mostly as missed collisions"), "%s", v);
  cr_assert(strstr(v, "1 of them (gamma) return a NaN"), "%s", v);
  cr_assert(strstr(v, "grazing family: beta reaches a median error of 1e+07 ULP at k = 40"), "%s", v);

  /* Another world: alpha misclassifies 30%, beta nothing and is the most accurate; ghosts dominate. */
  rl_entry b[3] = {entry("alpha", RL_OWN, 300, 0, 0.25, 0.5, 80), entry("beta", RL_DOCUMENT, 0, 0, 0.4, 2, 20),
                   entry("gamma", RL_DOCUMENT, 10, 400, 9, 50, 10)};
  b[2].worst_family = "far", b[2].worst_family_median = 1e3, b[2].worst_family_param = 12;
  b[2].worst_family_param_name = "e";
  cr_assert_eq(rl_verdict(v, sizeof v, b, 3), 4, "%s", v);
  cr_assert(strstr(v, "Use beta when"), "%s", v);
  cr_assert(strstr(v, "gamma takes 10 ns (2x less)"), "%s", v);
  cr_assert(strstr(v, "mostly as ghost collisions"), "%s", v);
  cr_assert_null(strstr(v, "NaN or infinite"), "%s", v);
  cr_assert(strstr(v, "far family: gamma reaches a median error of 1e+03 ULP at e = 12"), "%s", v);

  /* One rate, (missed + ghost + other) / scored: beta's 30 others of its 600 scored cases (400 declined or
     failed are not scored) make 80 / 600 = 13.3%, gamma's 150 / 1000 = 15%. */
  rl_entry c[3] = {entry("alpha", RL_OWN, 0, 0, 0.25, 0.5, 80), entry("beta", RL_DOCUMENT, 30, 20, 3, 1e6, 20),
                   entry("gamma", RL_DOCUMENT, 50, 100, 9, 50, 10)};
  c[1].cases = 600, c[1].agree = 520, c[1].other = 30;
  c[2].max_ratio = 2.1;
  cr_assert_eq(rl_verdict(v, sizeof v, c, 3), 3, "%s", v);
  cr_assert(strstr(v, "it misclassifies 0% of its 1000 scored cases"), "%s", v);
  cr_assert(strstr(v, "from 13.3% (beta) to 15% (gamma) of their scored cases"), "%s", v);
  /* The cheaper choice's large p99 is said against its conditioning. */
  cr_assert(strstr(v, "gamma takes 10 ns (8x less) with a p99 of 50 ULP (its largest error is 2.1 times what the "
                      "conditioning allows, kappa u), but misclassifies 15% of its scored cases."),
            "%s", v);
  cr_assert_float_eq(rl_misclass_pct(30, 20, 30, 600), 100.0 * 80 / 600, 1e-12);
  cr_assert(isnan(rl_misclass_pct(0, 0, 0, 0)));

  /* Nothing forward: no verdict. */
  for (int i = 0; i < 3; i++) b[i].forward = 0;
  cr_assert_eq(rl_verdict(v, sizeof v, b, 3), 0);
}

/* ---- bold only beyond noise ---- */

static rl_cell prop(double x, double n) { return (rl_cell){x / n, x / n, x / n, x, n, 1}; }
static rl_cell interval(double v, double lo, double hi) { return (rl_cell){v, lo, hi, 0, 0, 1}; }

Test(report_look, bold_only_with_a_significant_gap) {
  int best[4];
  /* 0 of 20000 against 346 of 20000: z about -18.7. */
  rl_cell c1[2] = {prop(0, 20000), prop(346, 20000)};
  cr_assert_eq(rl_best_significant(c1, 2, 0, best), 1);
  cr_assert(best[0] && !best[1]);
  /* 5 of 1000 against 7 of 1000: pooled p = 0.006, se = sqrt(0.006 * 0.994 * 0.002) = 0.003453, z = -0.579. */
  cr_assert_float_eq(rl_prop_z(5, 1000, 7, 1000), -0.002 / sqrt(0.006 * 0.994 * 0.002), 1e-12);
  rl_cell c2[2] = {prop(5, 1000), prop(7, 1000)};
  cr_assert_eq(rl_best_significant(c2, 2, 0, best), 0);
  cr_assert(!best[0] && !best[1]);
  /* Larger is better (agreement): 990 of 1000 against 900 of 1000 is significant. */
  rl_cell c3[2] = {prop(900, 1000), prop(990, 1000)};
  cr_assert_eq(rl_best_significant(c3, 2, 1, best), 1);
  cr_assert(best[1] && !best[0]);
  /* Intervals: apart, overlapping. */
  rl_cell c4[2] = {interval(1.5, 1, 2), interval(3.5, 3, 4)};
  cr_assert_eq(rl_best_significant(c4, 2, 0, best), 1);
  cr_assert(best[0]);
  rl_cell c5[2] = {interval(1.5, 1, 3), interval(3.5, 2, 4)};
  cr_assert_eq(rl_best_significant(c5, 2, 0, best), 0);
  /* Ties at the best are marked together when every other row is beyond noise; a row out of the
     comparison (another precision) is never marked. */
  rl_cell c6[4] = {prop(0, 20000), prop(0, 20000), prop(500, 20000), prop(0, 20000)};
  c6[3].in = 0;
  cr_assert_eq(rl_best_significant(c6, 4, 0, best), 2);
  cr_assert(best[0] && best[1] && !best[2] && !best[3]);
  /* A single row, or all equal: nothing to be better than. */
  cr_assert_eq(rl_best_significant(c6, 1, 0, best), 0);
}

Test(report_look, quantile_interval_by_order_statistics) {
  enum { N = 10000 };
  double *v = malloc(N * sizeof *v);
  for (int i = 0; i < N; i++) v[i] = i;
  double lo, hi;
  /* rank n q -+ 3 sqrt(n q (1 - q)) = 5000 -+ 150. */
  rl_quantile_interval(v, N, 0.5, &lo, &hi);
  cr_assert_eq(lo, 4850);
  cr_assert_eq(hi, 5150);
  /* 9900 -+ 3 sqrt(99) = 9900 -+ 29.85: floor and ceiling. */
  rl_quantile_interval(v, N, 0.99, &lo, &hi);
  cr_assert_eq(lo, 9870);
  cr_assert_eq(hi, 9930);
  rl_quantile_interval(v, 3, 0.99, &lo, &hi);
  cr_assert_eq(hi, 2, "clamped to the last element");
  free(v);
}

/* ---- palette, titles, labels ---- */

/* CIEDE2000 colour difference of two "#rrggbb" colours (sRGB, D65), as Sharma, Wu and Dalal's formulas. */
static void hex_lab(const char *hex, double lab[3]) {
  unsigned v = (unsigned)strtoul(hex + 1, NULL, 16);
  double c[3] = {(v >> 16 & 255) / 255.0, (v >> 8 & 255) / 255.0, (v & 255) / 255.0};
  for (int i = 0; i < 3; i++) c[i] = c[i] <= 0.04045 ? c[i] / 12.92 : pow((c[i] + 0.055) / 1.055, 2.4);
  double xyz[3] = {(0.4124 * c[0] + 0.3576 * c[1] + 0.1805 * c[2]) / 0.95047,
                   0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2],
                   (0.0193 * c[0] + 0.1192 * c[1] + 0.9505 * c[2]) / 1.08883};
  for (int i = 0; i < 3; i++) xyz[i] = xyz[i] > 0.008856 ? cbrt(xyz[i]) : 7.787 * xyz[i] + 16.0 / 116;
  lab[0] = 116 * xyz[1] - 16, lab[1] = 500 * (xyz[0] - xyz[1]), lab[2] = 200 * (xyz[1] - xyz[2]);
}

static double deg(double r) { return r * 180 / M_PI; }
static double rad(double d) { return d * M_PI / 180; }

static double ciede2000(const char *h1, const char *h2) {
  double a[3], b[3];
  hex_lab(h1, a), hex_lab(h2, b);
  double c1 = hypot(a[1], a[2]), c2 = hypot(b[1], b[2]), cb = (c1 + c2) / 2;
  double g = 0.5 * (1 - sqrt(pow(cb, 7) / (pow(cb, 7) + pow(25, 7))));
  double a1 = (1 + g) * a[1], a2 = (1 + g) * b[1], c1p = hypot(a1, a[2]), c2p = hypot(a2, b[2]);
  double h1p = c1p ? fmod(deg(atan2(a[2], a1)) + 360, 360) : 0, h2p = c2p ? fmod(deg(atan2(b[2], a2)) + 360, 360) : 0;
  double dl = b[0] - a[0], dc = c2p - c1p, dh = 0;
  if (c1p * c2p != 0) dh = h2p - h1p > 180 ? h2p - h1p - 360 : h2p - h1p < -180 ? h2p - h1p + 360 : h2p - h1p;
  double dhh = 2 * sqrt(c1p * c2p) * sin(rad(dh / 2));
  double lb = (a[0] + b[0]) / 2, cbp = (c1p + c2p) / 2, hb;
  if (c1p * c2p == 0) hb = h1p + h2p;
  else if (fabs(h1p - h2p) <= 180) hb = (h1p + h2p) / 2;
  else hb = h1p + h2p < 360 ? (h1p + h2p + 360) / 2 : (h1p + h2p - 360) / 2;
  double t = 1 - 0.17 * cos(rad(hb - 30)) + 0.24 * cos(rad(2 * hb)) + 0.32 * cos(rad(3 * hb + 6)) -
             0.20 * cos(rad(4 * hb - 63));
  double dth = 30 * exp(-pow((hb - 275) / 25, 2)), rc = 2 * sqrt(pow(cbp, 7) / (pow(cbp, 7) + pow(25, 7)));
  double sl = 1 + 0.015 * pow(lb - 50, 2) / sqrt(20 + pow(lb - 50, 2)), sc = 1 + 0.045 * cbp, sh = 1 + 0.015 * cbp * t;
  double rt = -sin(rad(2 * dth)) * rc;
  return sqrt(pow(dl / sl, 2) + pow(dc / sc, 2) + pow(dhh / sh, 2) + rt * (dc / sc) * (dhh / sh));
}

/* Colours told apart at a glance: CIEDE2000 distance at least this (robust's green against the old light-green
   reference was 19.8; two hues of one family, such as two blues, fall below 15). */
#define FIXED_APART 20.0
#define ANY_APART 15.0

Test(report_look, palette_gives_distinct_colours) {
  /* Black against white: L* 0 and 100, no chroma, so exactly 100. */
  cr_assert_float_eq(ciede2000("#000000", "#ffffff"), 100.0, 1e-6);
  cr_assert_float_eq(ciede2000("#123456", "#123456"), 0.0, 1e-12);
  const char *names[] = {"expanded", "expanded-corner", "inner-product", "ericson", "minkowski", "phet",
                         "phet-reverse", "overlap-recovery", "gsl-stable", "robust", "accurate", "reference"};
  size_t n = sizeof names / sizeof *names;
  for (size_t i = 0; i < n; i++) {
    cr_assert(rl_colour_fixed(names[i]), "%s", names[i]);
    const char *c = rl_colour(names[i], 0);
    cr_assert(strlen(c) == 7 && c[0] == '#', "%s: %s", names[i], c);
    double lab[3];
    hex_lab(c, lab);
    cr_assert_leq(lab[0], 75.0, "%s: %s is too light to show on white", names[i], c);
    for (size_t j = 0; j < i; j++)
      cr_assert_geq(ciede2000(c, rl_colour(names[j], 0)), FIXED_APART, "%s %s and %s %s look alike", names[i], c,
                    names[j], rl_colour(names[j], 0));
    for (size_t r = 0; r < 18; r++)
      cr_assert_geq(ciede2000(c, rl_colour("some-engine", r)), ANY_APART, "%s %s and engine rank %zu %s look alike",
                    names[i], c, r, rl_colour("some-engine", r));
  }
  for (size_t r = 0; r < 18; r++)
    for (size_t q = 0; q < r; q++)
      cr_assert_geq(ciede2000(rl_colour("e", r), rl_colour("e", q)), ANY_APART, "engine ranks %zu and %zu", r, q);
  cr_assert_not(rl_colour_fixed("some-engine"));
  cr_assert_str_neq(rl_colour("e1", 0), rl_colour("e2", 1));
}

Test(report_look, sources_read_as_document_titles) {
  char t[512];
  rl_source_title(t, sizeof t, "000_48aa0a803641ccdd.txt \"Ball-Ball Collision Detection\"");
  cr_assert_str_eq(t, "\"Ball-Ball Collision Detection\"");
  rl_source_title(t, sizeof t, "001_bf656084b5936b72.txt \"Colliding balls\", section 4");
  cr_assert_str_eq(t, "\"Colliding balls\", section 4");
  rl_source_title(t, sizeof t,
                  "Real-Time Collision Detection 5.5.5 TestMovingSphereSphere (Ericson), cited by "
                  "001_bf656084b5936b72.txt \"Colliding balls\"");
  cr_assert_str_eq(t, "Real-Time Collision Detection 5.5.5 TestMovingSphereSphere (Ericson), cited by \"Colliding balls\"");
  rl_source_title(t, sizeof t, "toibench's own kernel, not from the documents");
  cr_assert_str_eq(t, "toibench's own kernel, not from the documents");
  cr_assert_eq(rl_group_of("toibench's own kernel, not from the documents", 0), RL_OWN);
  cr_assert_eq(rl_group_of("GSL gsl_poly_solve_quadratic (poly/solve_quadratic.c), not from the documents", 0), RL_OWN);
  cr_assert_eq(rl_group_of("002_be075b6429cbd308.txt \"How To Compute When Two Balls Will Collide\"", 0), RL_DOCUMENT);
  cr_assert_eq(rl_group_of("anything", 1), RL_ENGINE);
}

Test(report_look, labels_are_placed_apart) {
  /* Five points on top of one another and two close by: every label clear of every other and of the points. */
  double x[7] = {0.3, 0.3, 0.3, 0.3, 0.3, 0.32, 0.5}, y[7] = {0.9, 0.9, 0.9, 0.9, 0.9, 0.88, 0.5};
  double w[7] = {0.08, 0.1, 0.12, 0.06, 0.09, 0.1, 0.05}, h = 0.03, lx[7], ly[7];
  cr_assert_eq(rl_place_labels(x, y, w, h, 7, lx, ly), 0);
  for (int i = 0; i < 7; i++) {
    cr_assert(lx[i] >= 0 && ly[i] >= 0 && lx[i] + w[i] <= 1 && ly[i] + h <= 1, "label %d outside", i);
    for (int j = 0; j < i; j++)
      cr_assert_not(rl_boxes_overlap(lx[i], ly[i], w[i], h, lx[j], ly[j], w[j], h), "labels %d and %d overlap", i, j);
  }
  cr_assert(rl_boxes_overlap(0, 0, 1, 1, 0.5, 0.5, 1, 1));
  cr_assert_not(rl_boxes_overlap(0, 0, 1, 1, 1, 0, 1, 1), "touching edges do not overlap");
}

/* The cost plot's y range follows the p99s: the engines' outlier (1e137) is clipped, not stretched to; the
   others fill the range, whose ends are the extreme kept values / 30 and x 30. */
Test(report_look, cost_plot_range_from_quartiles) {
  double v[12] = {0.49, 8.3e6, 5.6e14, 2e15, 6.4e15, 7.1e15, 8.9e15, 1e16, 3e3, 12, 1e137, 4e5};
  int clipped[12];
  double lo, hi;
  rl_cost_yrange(v, 12, &lo, &hi, clipped);
  /* log10: quartiles by nearest rank of the 12 sorted: rank 3 (3e3: 3.48) and rank 9 (7.1e15: 15.85); the fence
     is 15.85 + 1.5 (15.85 - 3.48) = 34.4, so only 1e137 is beyond it. */
  for (int i = 0; i < 12; i++) cr_assert_eq(clipped[i], i == 10, "value %d (%g)", i, v[i]);
  cr_assert_float_eq(lo, 0.49 / 30, 1e-15);
  cr_assert_float_eq(hi, 1e16 * 30, 1e3);
  /* Values close together: the fence is at least 3 decades above the upper quartile, nothing clipped. */
  double w[4] = {1, 2, 3, 4};
  rl_cost_yrange(w, 4, &lo, &hi, clipped);
  for (int i = 0; i < 4; i++) cr_assert_eq(clipped[i], 0);
  cr_assert_float_eq(hi, 120, 1e-12);
  /* No finite value: a default frame. */
  double z[1] = {INFINITY};
  rl_cost_yrange(z, 1, &lo, &hi, clipped);
  cr_assert(lo > 0 && hi > lo && !clipped[0]);
}

/* A label never covers a box kept on the plot (the band's caption), even when its point sits under it. */
Test(report_look, labels_keep_clear_of_kept_boxes) {
  double x[3] = {0.8, 0.85, 0.9}, y[3] = {0.86, 0.86, 0.86}, w[3] = {0.12, 0.1, 0.08}, h = 0.03, lx[3], ly[3];
  rl_box caption = {0.5, 0.95, 0.49, 0.03};
  cr_assert_eq(rl_place_labels_avoiding(x, y, w, h, 3, &caption, 1, lx, ly), 0);
  for (int i = 0; i < 3; i++) {
    cr_assert_not(rl_boxes_overlap(lx[i], ly[i], w[i], h, caption.x, caption.y, caption.w, caption.h), "label %d", i);
    for (int j = 0; j < i; j++) cr_assert_not(rl_boxes_overlap(lx[i], ly[i], w[i], h, lx[j], ly[j], w[j], h));
  }
}

/* ---- a quick report, end to end ---- */

/* The colour "#rrggbb" of the first line (stroke='rgb(R, G, B)') or point (color='rgb(...)') after p
   and before end, or "" when none. */
static void first_stroke(const char *p, const char *end, char *out) {
  out[0] = 0;
  const char *s = strstr(p, "stroke='rgb("), *c = strstr(p, "color='rgb(");
  if (c && (!s || c < s)) s = c;
  if (!s || (end && s > end)) return;
  int r, g, b;
  if (sscanf(strchr(s, '(') + 1, "%d ,%d ,%d", &r, &g, &b) == 3) snprintf(out, 8, "#%02x%02x%02x", r, g, b);
}

/* Every series titled with a palette name in an SVG of img/ is drawn in that name's colour. */
static int check_svg_palette(const char *path) {
  char *svg = cc_slurp(path, NULL);
  int checked = 0;
  for (const char *p = svg; (p = strstr(p, "<title>")); p += 7) {
    const char *e = strstr(p, "</title>");
    char name[128];
    snprintf(name, sizeof name, "%.*s", (int)(e - p - 7), p + 7);
    char *note = strstr(name, " (= "); /* a curve identical to another's keeps its own colour */
    if (note) *note = 0;
    if (!rl_colour_fixed(name)) continue;
    char got[8];
    first_stroke(e, strstr(e, "<title>"), got);
    cr_assert_str_eq(got, rl_colour(name, 0), "%s: %s drawn in %s, the palette says %s", path, name, got,
                     rl_colour(name, 0));
    checked++;
  }
  free(svg);
  return checked;
}

/* ---- legends against the data ---- */

/* What a plot's script draws of each block of its data: a row is drawn when column x and one of the y columns
   are numbers (and column cond > 0, when cond is set). */
typedef struct legend_spec {
  const char *svg, *data;
  int x, y[2], cond;
} legend_spec;

/* One series of a data file: its name and its drawn rows as text ("" when it draws nothing). */
typedef struct plot_series {
  char name[64];
  char *rows;
} plot_series;

static int read_series(const char *path, const legend_spec *sp, plot_series *out, int max) {
  char *text = cc_slurp(path, NULL);
  int n = 0;
  for (char *save = NULL, *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    char name[64];
    if (sscanf(line, "# formulation %63s", name) == 1 || sscanf(line, "# kernel %63s", name) == 1) {
      cr_assert_lt(n, max);
      snprintf(out[n].name, sizeof out[n].name, "%s", name);
      out[n].rows = calloc(1, 1);
      n++;
      continue;
    }
    if (line[0] == '#' || n == 0) continue;
    double v[16];
    int nv = 0;
    for (char *p = line, *e; nv < 16; p = e) {
      v[nv] = strtod(p, &e);
      if (e == p) break;
      nv++;
    }
    int any = 0;
    for (int j = 0; j < 2 && sp->y[j]; j++) any |= sp->y[j] <= nv && !isnan(v[sp->y[j] - 1]);
    if (isnan(v[sp->x - 1]) || !any || (sp->cond && !(v[sp->cond - 1] > 0))) continue;
    char drawn[200]; /* the curve: x and the y columns */
    int dl = snprintf(drawn, sizeof drawn, "%.17g", v[sp->x - 1]);
    for (int j = 0; j < 2 && sp->y[j]; j++)
      dl += snprintf(drawn + dl, sizeof drawn - (size_t)dl, " %.17g", sp->y[j] <= nv ? v[sp->y[j] - 1] : NAN);
    size_t len = strlen(out[n - 1].rows);
    out[n - 1].rows = realloc(out[n - 1].rows, len + (size_t)dl + 2);
    sprintf(out[n - 1].rows + len, "%s;", drawn);
  }
  free(text);
  return n;
}

/* The group title of name from the page's table of formulations (the reference: our own). */
static void group_of(const char *html, const char *name, char *out, size_t n) {
  char pat[128];
  snprintf(pat, sizeof pat, "</span>%s</td><td>", name);
  const char *p = strstr(html, pat);
  if (!p) {
    cr_assert_str_eq(name, "reference", "%s has no row in the table of formulations", name);
    snprintf(out, n, "own kernels, library code and the reference");
    return;
  }
  p += strlen(pat);
  snprintf(out, n, "%.*s", (int)(strchr(p, '<') - p), p);
}

/* The legend of each plot names exactly the series that draw something; a series drawn exactly over an earlier
   one of its panel (a panel per group; the audit's two panels hold every group) is named "NAME (= EARLIER)"; the
   colours of the named series are told apart at a glance. */
static void check_legends(const char *dir, const char *html) {
  static const legend_spec specs[] = {
      {"grazing", "grazing", 1, {4, 5}, 3},         {"near_contact", "near_contact", 1, {4, 5}, 3},
      {"far", "far", 1, {4, 5}, 3},                 {"classification", "grazing", 1, {6, 7}, 0},
      {"kappa", "kappa", 1, {2, 0}, 0},             {"cdf", "cdf", 1, {2, 0}, 0},
      {"audit", "audit", 1, {2, 3}, 0},             {"sim", "sim", 1, {3, 0}, 0},
      {"b32_grazing", "b32_grazing", 1, {4, 5}, 3}, {"b32_classification", "b32_grazing", 1, {6, 7}, 0},
      {"b32_cdf", "b32_cdf", 1, {2, 0}, 0},
  };
  int identical = 0, hidden = 0;
  for (size_t k = 0; k < sizeof specs / sizeof *specs; k++) {
    char path[600];
    snprintf(path, sizeof path, "%s/data/%s.dat", dir, specs[k].data);
    plot_series sr[64];
    int n = read_series(path, &specs[k], sr, 64);
    cr_assert_geq(n, 9, "%s", path);
    snprintf(path, sizeof path, "%s/img/%s.svg", dir, specs[k].svg);
    char *svg = cc_slurp(path, NULL);
    char colours[64][8];
    int ncol = 0;
    for (int i = 0; i < n; i++) {
      char want[300] = "", gi[128], gj[128];
      if (sr[i].rows[0]) {
        snprintf(want, sizeof want, "%.63s", sr[i].name);
        group_of(html, sr[i].name, gi, sizeof gi);
        for (int j = 0; j < i; j++) {
          group_of(html, sr[j].name, gj, sizeof gj);
          if ((!strcmp(gi, gj) || !strcmp(specs[k].svg, "audit")) && !strcmp(sr[i].rows, sr[j].rows)) {
            snprintf(want, sizeof want, "%.63s (= %.63s)", sr[i].name, sr[j].name);
            identical++;
            break;
          }
        }
      }
      char tag[400], tag_noted[400];
      snprintf(tag, sizeof tag, "<title>%.63s</title>", sr[i].name);
      snprintf(tag_noted, sizeof tag_noted, "<title>%.63s (= ", sr[i].name);
      if (!want[0]) {
        cr_assert(!strstr(svg, tag) && !strstr(svg, tag_noted), "%s: %s draws nothing but has a legend entry", path,
                  sr[i].name);
        hidden++;
        continue;
      }
      snprintf(tag, sizeof tag, "<title>%s</title>", want);
      const char *at = strstr(svg, tag);
      cr_assert_not_null(at, "%s: no legend entry '%s'", path, want);
      first_stroke(at, strstr(at + 7, "<title>"), colours[ncol]);
      cr_assert(colours[ncol][0], "%s: %s has no colour", path, want);
      for (int j = 0; j < ncol; j++)
        cr_assert_geq(ciede2000(colours[ncol], colours[j]), ANY_APART, "%s: %s in %s, too close to %s", path,
                      want, colours[ncol], colours[j]);
      ncol++;
    }
    for (int i = 0; i < n; i++) free(sr[i].rows);
    free(svg);
  }
  /* The quick suite has both: reverse formulations without a grazing hit, and ericson's curves over expanded's. */
  cr_assert_gt(hidden, 0);
  cr_assert_gt(identical, 0);
}

/* The exponents of the x tick labels of the CDF (gnuplot writes 10^{-4} as 10 then a raised -4). */
static void check_cdf_axis(const char *dir) {
  char path[512];
  snprintf(path, sizeof path, "%s/data/cdf.dat", dir);
  char *dat = cc_slurp(path, NULL);
  /* The data does hold errors below 1e-4 (0, or tiny ones of the scale cases)... */
  int tiny = 0;
  for (char *line = strtok(dat, "\n"); line; line = strtok(NULL, "\n"))
    if (line[0] != '#' && strtod(line, NULL) < 1e-4) tiny = 1;
  cr_assert(tiny, "the quick suite has errors below 1e-4 ULP");
  free(dat);
  /* ...yet no axis label goes below 10^-3, and the left edge is labelled 0. */
  snprintf(path, sizeof path, "%s/img/cdf.svg", dir);
  char *svg = cc_slurp(path, NULL);
  int zero = 0;
  for (const char *p = svg; (p = strstr(p, "<tspan")); p++) {
    const char *t = strchr(p, '>');
    if (!t) break;
    if (!strncmp(t, ">0</tspan>", 10)) zero = 1;
    if (t[1] == '-' && strstr(p, "dy=") && strstr(p, "dy=") < t) {
      int e = atoi(t + 2);
      cr_assert_leq(e, 3, "a CDF tick at 10^-%d", e);
    }
  }
  cr_assert(zero, "the CDF's left edge is labelled 0");
  free(svg);
}

/* The pareto plot: its y range is the p99s' (the finite ones fill most of it, the band sits right above them),
   its labels, placed by the report, overlap neither each other nor the band's caption, and no point sits under
   that caption (same geometry as the plot's frame: about 800 by 470 pixels, 6 by 13 per character). */
static void check_pareto_labels(const char *dir) {
  char path[512];
  snprintf(path, sizeof path, "%s/data/pareto.dat", dir);
  char *dat = cc_slurp(path, NULL);
  double lx[64], ly[64], lw[64], px[64], py[64], fr[10] = {0};
  int n = 0, logx = 0;
  size_t nclipped = 0;
  const char *frame = strstr(dat, "# xlo xhi ylo yhi band_lo band_hi logx ytic caption_x caption_y clipped");
  cr_assert_not_null(frame);
  const char *nums = frame;
  while (*nums == '#') nums = strchr(nums, '\n') + 1;
  cr_assert_eq(sscanf(nums, "%lf %lf %lf %lf %lf %lf %d %lf %lf %lf %zu", &fr[0], &fr[1], &fr[2], &fr[3], &fr[4],
                      &fr[5], &logx, &fr[6], &fr[7], &fr[8], &nclipped), 11);
  double ylo = fr[2], yhi = fr[3], band_lo = fr[4], kept_min = INFINITY, kept_max = 0;
  size_t clipped_seen = 0;
#define UX(v) (logx ? log((v) / fr[0]) / log(fr[1] / fr[0]) : ((v) - fr[0]) / (fr[1] - fr[0]))
#define UY(v) (log((v) / ylo) / log(yhi / ylo))
  for (char *line = dat; line < frame && n < 64; line = strchr(line, '\n') + 1) {
    double ns, drawn, x, y;
    char p99[32], name[128], label[200];
    long colour;
    int group, clipped;
    if (line[0] == '#' || line[0] == '\n') continue;
    cr_assert_eq(sscanf(line, "%lf %31s %lf %lf %lf %ld %d %d %127s \"%199[^\"]\"", &ns, p99, &drawn, &x, &y, &colour,
                        &group, &clipped, name, label), 10, "%.100s", line);
    char want[8];
    snprintf(want, sizeof want, "#%06lx", colour);
    if (rl_colour_fixed(name)) cr_assert_str_eq(want, rl_colour(name, 0), "%s", name);
    if (!strcmp(p99, "inf")) {
      cr_assert(drawn > band_lo && drawn < yhi, "%s: infinite p99 inside the band", name);
    } else if (clipped) {
      cr_assert_gt(strtod(p99, NULL), band_lo, "%s: clipped but within the scale", name);
      cr_assert(drawn < band_lo && strstr(label, "(p99 "), "%s: drawn at the top edge, its value in its label", name);
      clipped_seen++;
    } else {
      double v = fmax(strtod(p99, NULL), 1e-3);
      cr_assert(v >= ylo && v <= band_lo, "%s: p99 %g outside the finite range [%g, %g]", name, v, ylo, band_lo);
      kept_min = fmin(kept_min, v), kept_max = fmax(kept_max, v);
    }
    px[n] = UX(ns);
    py[n] = UY(drawn < 1e-3 ? 1e-3 : drawn);
    lx[n] = UX(x);
    ly[n] = UY(y);
    lw[n] = strlen(label) * 6.0 / 800;
    n++;
  }
  cr_assert_geq(n, 9);
  cr_assert_eq(clipped_seen, nclipped);
  /* The range is the data's: ends within 30x (and a rounding) of the kept p99s, which span most of it. */
  cr_assert_geq(kept_min / ylo, 30 * (1 - 1e-5), "the range starts %g below the smallest p99", kept_min / ylo);
  cr_assert_leq(band_lo / kept_max, 30 * (1 + 1e-5), "the range ends %g above the largest p99", band_lo / kept_max);
  cr_assert_geq(log(kept_max / kept_min) / log(band_lo / ylo), 0.75, "the p99s fill too little of the y axis");
  /* The band over the finite area takes less than a quarter of the plot. */
  cr_assert_leq(1 - UY(band_lo), 0.25);
  static const char caption[] = "p99 infinite: NaN or overflow on more than 1% of the timed cases";
  double h = 13.0 / 470, cw = strlen(caption) * 6.0 / 800, cx = UX(fr[7]) - cw, cy = UY(fr[8]) - h / 2;
  cr_assert(cx >= 0 && cy + h <= 1, "the caption lies inside the plot");
  for (int i = 0; i < n; i++) {
    cr_assert_not(rl_boxes_overlap(lx[i], ly[i] - h / 2, lw[i], h, cx, cy, cw, h), "pareto label %d covers the caption",
                  i);
    cr_assert_not(rl_boxes_overlap(px[i] - 0.008, py[i] - 0.008, 0.016, 0.016, cx, cy, cw, h),
                  "pareto point %d lies under the caption", i);
    for (int j = 0; j < i; j++)
      cr_assert_not(rl_boxes_overlap(lx[i], ly[i] - h / 2, lw[i], h, lx[j], ly[j] - h / 2, lw[j], h),
                    "pareto labels %d and %d overlap", i, j);
  }
#undef UX
#undef UY
  snprintf(path, sizeof path, "%s/img/pareto.svg", dir);
  char *svg = cc_slurp(path, NULL);
  cr_assert(strstr(svg, caption), "the band's caption is drawn");
  free(svg);
  free(dat);
}

/* Every worst case of the HTML table links a one-case file that exists and holds one case line. */
static void check_worst_files(const char *dir, const char *html) {
  int links = 0;
  for (const char *p = html; (p = strstr(p, "<a href=\"worst/")); p++) {
    char rel[256], path[600];
    snprintf(rel, sizeof rel, "%.*s", (int)(strchr(p + 9, '"') - p - 9), p + 9);
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    char *c = cc_slurp(path, NULL);
    int cases = 0;
    for (char *line = strtok(c, "\n"); line; line = strtok(NULL, "\n")) cases += line[0] != '#';
    cr_assert_eq(cases, 1, "%s holds %d cases", rel, cases);
    free(c);
    links++;
  }
  cr_assert_geq(links, 11, "a worst case per formulation at least");
  cr_assert_null(strstr(html, "echo '"), "no wrapped case lines in the table");
}

Test(report_look, quick_report_reads_at_a_glance, .timeout = 180) {
  char dir[] = "/tmp/toilookXXXXXX", out[300], args[600];
  cr_assert_not_null(mkdtemp(dir));
  snprintf(out, sizeof out, "%s/rep", dir);
  snprintf(args, sizeof args, "report --quick --quiet -j 2 --out %s", out);
  cc_out *r = cc_run(NULL, args);
  cr_assert_eq(r->status, 0, "%s", r->err);
  char path[512];
  snprintf(path, sizeof path, "%s/index.html", out);
  char *html = cc_slurp(path, NULL);
  /* The verdict comes first, and is made of the figures. */
  const char *v = strstr(html, "<p id=\"verdict\"");
  cr_assert(v && v < strstr(html, "<table"), "the verdict opens the report");
  cr_assert(strstr(v, "Use accurate when the answer must be right"), "%.400s", v);
  /* Numbers never wrap; the rule of the bold figures is stated under the table. */
  cr_assert(strstr(html, "white-space:nowrap"));
  cr_assert(strstr(html, "font-variant-numeric:tabular-nums"));
  cr_assert(strstr(html, "<p class=\"rule\">Bold: the best value of a column among the rows scored on the same cases"));
  cr_assert(strstr(html, "<p class=\"rule\">misclass % = (missed + ghost + other) / scored cases"));
  cr_assert(strstr(html, "counts as other, never as missed"));
  /* Sources read as titles, not as file names of the seeds folder. */
  cr_assert(strstr(html, "&quot;Ball-Ball Collision Detection&quot;"));
  cr_assert_null(strstr(html, "48aa0a803641ccdd.txt"));
  check_worst_files(out, html);
  /* One palette across every plot. */
  const char *svgs[] = {"grazing", "near_contact", "far", "kappa", "cdf", "classification", "audit", "sim",
                        "b32_grazing", "b32_near_contact", "b32_far", "b32_cdf", "b32_classification"};
  for (size_t i = 0; i < sizeof svgs / sizeof *svgs; i++) {
    snprintf(path, sizeof path, "%s/img/%s.svg", out, svgs[i]);
    cr_assert_geq(check_svg_palette(path), 9, "%s: every formulation in its colour", svgs[i]);
  }
  check_cdf_axis(out);
  check_pareto_labels(out);
  check_legends(out, html);
  /* Maxima are never bold (accurate's max ULP, 0.5, is the smallest but a single extreme). */
  snprintf(path, sizeof path, "%s/summary.md", out);
  char *md = cc_slurp(path, NULL);
  const char *acc = strstr(md, "\n| accurate | forward |");
  cr_assert_not_null(acc);
  char line[1024];
  snprintf(line, sizeof line, "%.*s", (int)(strchr(acc + 1, '\n') - acc - 1), acc + 1);
  char *cell[32];
  int nc = 0;
  for (char *save = NULL, *t = strtok_r(line, "|", &save); t && nc < 32; t = strtok_r(NULL, "|", &save)) cell[nc++] = t;
  cr_assert_geq(nc, 12);
  cr_assert_null(strstr(cell[9], "**"), "max ULP bold: %s", cell[9]);
  cr_assert_null(strstr(cell[10], "**"), "max error / (kappa u) bold: %s", cell[10]);
  cr_assert_null(strstr(cell[11], "**"), "max bits bold: %s", cell[11]);
  cr_assert(strstr(cell[8], "**"), "accurate's p99 (0.49 against robust's 1e6) is beyond noise: %s", cell[8]);
  /* Rows scored on other cases than the forward rows' (a reverse formulation; overlap-recovery, on the overlaps
     alone) are never bold: each stands alone among the rows scored on its cases. */
  const char *alone[] = {"\n| phet-reverse | reverse |", "\n| overlap-recovery | reverse |"};
  for (int i = 0; i < 2; i++) {
    const char *r = strstr(md, alone[i]);
    cr_assert_not_null(r, "%s", alone[i] + 1);
    snprintf(line, sizeof line, "%.*s", (int)(strchr(r + 1, '\n') - r - 1), r + 1);
    cr_assert_null(strstr(line, "**"), "bold against rows scored on other cases: %s", line);
  }
  cr_assert(strstr(md, "**Verdict** (from the figures below): Use accurate"));
  free(md);
  free(html);
  cc_rmtree(dir);
}

/* ---- the report in a browser (make report-check) ---- */

Test(report_look, check_reads_the_page_marker) {
  report_check_result r;
  cr_assert_eq(report_check_dom("<html><body><p>no marker</p></body></html>", NULL, &r), -1);
  const char *dom = "<body><img src=\"a.svg\"><pre id=\"toi-check\" hidden=\"\">images=9 broken=2 errors=3 wide=1 "
                    "list=img/a.svg,img/b.svg</pre></body>";
  const char *log = "[1:2:INFO:CONSOLE(3)] \"boom\", source: file:///x (3)\nnoise\n[4:5:INFO:CONSOLE(9)] \"x\"\n";
  cr_assert_eq(report_check_dom(dom, log, &r), 0);
  cr_assert_eq(r.images, 9);
  cr_assert_eq(r.broken, 2);
  cr_assert_eq(r.errors, 3);
  cr_assert_eq(r.wide, 1);
  cr_assert_eq(r.console, 2);
  cr_assert_str_eq(r.list, "img/a.svg,img/b.svg");
}

/* 1 when chromium (or $TOIBENCH_CHROMIUM) can be run. */
static int chromium_present(void) {
  const char *b = getenv("TOIBENCH_CHROMIUM");
  if (b && b[0]) return access(b, X_OK) == 0;
  const char *path = getenv("PATH");
  char *copy = strdup(path ? path : "/usr/bin:/bin"), *save = NULL;
  int found = 0;
  for (char *d = strtok_r(copy, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
    char full[4200];
    snprintf(full, sizeof full, "%s/chromium", d);
    found = access(full, X_OK) == 0;
  }
  free(copy);
  return found;
}

Test(report_look, report_opens_in_chromium_with_every_image, .timeout = 300) {
  if (!chromium_present()) cr_skip_test("chromium is not installed (apt-get install chromium): report --check not run");
  char dir[] = "/tmp/toichkXXXXXX", out[300], args[1400], path[600];
  cr_assert_not_null(mkdtemp(dir));
  snprintf(out, sizeof out, "%s/rep", dir);
  /* The widest summary table: a precision column and external rows (declined, failed, their own time). */
  snprintf(args, sizeof args,
           "report --quick --quiet -j 2 --solver-cmd '%s -scale- -tangent-' --solver-cmd-precision binary32 "
           "--solver-cmd %s --out %s",
           cc_built("tests/solvers/decline_cmd"), cc_built("tests/solvers/float_ericson_cmd"), out);
  cc_out *r = cc_run(NULL, args);
  cr_assert_eq(r->status, 0, "%s", r->err);
  snprintf(args, sizeof args, "report --check %s", out);
  r = cc_run(NULL, args);
  cr_assert_eq(r->status, 0, "%s", r->err);
  cr_assert(strstr(r->err, "images loaded, no error, every summary table fits 1280 pixels"), "%s", r->err);
  /* The same page without its summary tables' compact style: too wide, and the check says so. */
  snprintf(path, sizeof path, "%s/index.html", out);
  char *page = cc_slurp(path, NULL);
  char *style = strstr(page, "table.summary{font-size:0.8em}");
  cr_assert_not_null(style);
  memset(style, ' ', strlen("table.summary{font-size:0.8em}"));
  FILE *pf = fopen(path, "w");
  cr_assert_not_null(pf);
  fputs(page, pf);
  fclose(pf);
  free(page);
  snprintf(args, sizeof args, "report --check %s --screenshot %s/wide.png", out, dir);
  r = cc_run(NULL, args);
  cr_assert_eq(r->status, 1, "%s", r->err);
  cr_assert(strstr(r->err, "wider than the page at 1280 pixels"), "%s", r->err);
  snprintf(path, sizeof path, "%s/screenshot.png", out);
  size_t len;
  char *png = cc_slurp(path, &len);
  cr_assert(len > 8 && !memcmp(png, "\x89PNG\r\n\x1a\n", 8), "the screenshot is a PNG");
  free(png);
  /* An image gone: the check fails and names it. */
  char img[600];
  snprintf(img, sizeof img, "%s/img/far.svg", out);
  cr_assert_eq(unlink(img), 0);
  snprintf(args, sizeof args, "report --check %s --screenshot %s/other.png", out, dir);
  r = cc_run(NULL, args);
  cr_assert_eq(r->status, 1, "%s", r->err);
  cr_assert(strstr(r->err, "img/far.svg"), "%s", r->err);
  cc_rmtree(dir);
}

/* ---- one classification rule in both tables ---- */

/* The table against the true contact and the table against the target agree at target 0: an
   exact overlap reported as separating is `other` in both (never missed), an exact hit reported
   as none is missed in both, and a ghost is a ghost in both. */
Test(report_look, both_tables_use_one_rule_at_target_0) {
  toi_case overlap = tc_case2(0, 0, 0, 0, 1, 1, 1, 0, 1, 0, 1, 1);  /* centres 1 apart, R = 2 */
  toi_case hit = tc_case2(0, 0, 0, 0, 0.5, 1, 3, 0, -1, 0, 0.5, 1); /* contact at t = 2 */
  toi_case miss = tc_case2(0, 0, 0, 0, 0.5, 1, 3, 5, -1, 0, 0.5, 1); /* passes 5 away */
  struct {
    const toi_case *c;
    toi_class verdict;
    double t;
    toi_score_kind want;
  } rows[] = {{&overlap, TOI_SEPARATING, NAN, TOI_SCORE_OTHER},
              {&hit, TOI_MISS, NAN, TOI_SCORE_MISSED},
              {&miss, TOI_HIT, 1.0, TOI_SCORE_GHOST},
              {&hit, TOI_HIT, 2.0, TOI_SCORE_AGREE}};
  toi_score_opts o = {INFINITY, 0, 0, 1, TOI_REF_FAST, TOI_BINARY64, NULL};
  for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
    toi_ref ref;
    cr_assert_eq(tr_solve_engine(&ref, rows[i].c, TOI_REF_FAST), TOI_OK);
    toi_score_detail d;
    toi_result r = {rows[i].verdict, rows[i].t};
    cr_assert_eq(toi_score_answer(&d, r, TOI_FORWARD, 0, rows[i].c, &ref, &o), TOI_OK);
    cr_assert_eq(d.sc.kind, rows[i].want, "row %zu: %d against the true contact", i, d.sc.kind);
    cr_assert_eq(d.target_kind, rows[i].want, "row %zu: %d against the target 0", i, d.target_kind);
  }
}
