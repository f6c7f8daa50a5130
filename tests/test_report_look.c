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

/* ---- the verdict follows the data ---- */

static rl_entry entry(const char *name, rl_group g, double missed, double ghost, double median, double p99,
                      double ns) {
  rl_entry e = {name, g, 1, 1000, 1000 - missed - ghost, missed, ghost, 500, median, p99, 0, ns, "", NAN, 0, "k"};
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
  cr_assert(strstr(v, "from 10% (beta) to 15% (gamma)"), "%s", v);
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

Test(report_look, palette_gives_distinct_colours) {
  const char *names[] = {"expanded", "expanded-corner", "inner-product", "ericson", "minkowski", "phet",
                         "phet-reverse", "overlap-recovery", "gsl-stable", "robust", "accurate", "reference"};
  size_t n = sizeof names / sizeof *names;
  for (size_t i = 0; i < n; i++) {
    cr_assert(rl_colour_fixed(names[i]), "%s", names[i]);
    const char *c = rl_colour(names[i], 0);
    cr_assert(strlen(c) == 7 && c[0] == '#', "%s: %s", names[i], c);
    for (size_t j = 0; j < i; j++) cr_assert_str_neq(c, rl_colour(names[j], 0), "%s and %s", names[i], names[j]);
    for (size_t r = 0; r < 12; r++) cr_assert_str_neq(c, rl_colour("some-engine", r), "%s, engine rank %zu", names[i], r);
  }
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

/* The pareto labels, placed by the report, do not overlap (same geometry as the plot's frame). */
static void check_pareto_labels(const char *dir) {
  char path[512];
  snprintf(path, sizeof path, "%s/data/pareto.dat", dir);
  char *dat = cc_slurp(path, NULL);
  double lx[64], ly[64], lw[64], fr[7] = {0};
  int n = 0, logx = 0;
  const char *frame = strstr(dat, "# xlo xhi ylo yhi band_lo band_hi logx\n");
  cr_assert_not_null(frame);
  cr_assert_eq(sscanf(strchr(frame, '\n') + 1, "%lf %lf %lf %lf %lf %lf %d", &fr[0], &fr[1], &fr[2], &fr[3], &fr[4],
                      &fr[5], &logx), 7);
  for (char *line = dat; line < frame && n < 64; line = strchr(line, '\n') + 1) {
    double ns, drawn, x, y;
    char p99[32], name[128];
    long colour;
    int group;
    if (line[0] == '#' || line[0] == '\n') continue;
    cr_assert_eq(sscanf(line, "%lf %31s %lf %lf %lf %ld %d %127s", &ns, p99, &drawn, &x, &y, &colour, &group, name), 8);
    char want[8];
    snprintf(want, sizeof want, "#%06lx", colour);
    if (rl_colour_fixed(name)) cr_assert_str_eq(want, rl_colour(name, 0), "%s", name);
    if (!strcmp(p99, "inf")) cr_assert(drawn > fr[4] && drawn < fr[5], "%s: infinite p99 inside the band", name);
    lx[n] = logx ? log(x / fr[0]) / log(fr[1] / fr[0]) : (x - fr[0]) / (fr[1] - fr[0]);
    ly[n] = log(y / fr[2]) / log(fr[3] / fr[2]);
    lw[n] = strlen(name) * 6.0 / 800;
    n++;
  }
  cr_assert_geq(n, 9);
  double h = 13.0 / 470;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < i; j++)
      cr_assert_not(rl_boxes_overlap(lx[i], ly[i] - h / 2, lw[i], h, lx[j], ly[j] - h / 2, lw[j], h),
                    "pareto labels %d and %d overlap", i, j);
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
  cr_assert(strstr(html, "<p class=\"rule\">Bold: the best value of a column, only where it is beyond"));
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
  cr_assert_null(strstr(cell[10], "**"), "max bits bold: %s", cell[10]);
  cr_assert(strstr(cell[8], "**"), "accurate's p99 (0.49 against robust's 1e6) is beyond noise: %s", cell[8]);
  cr_assert(strstr(md, "**Verdict** (from the figures below): Use accurate"));
  free(md);
  free(html);
  cc_rmtree(dir);
}

/* ---- the report in a browser (make report-check) ---- */

Test(report_look, check_reads_the_page_marker) {
  report_check_result r;
  cr_assert_eq(report_check_dom("<html><body><p>no marker</p></body></html>", NULL, &r), -1);
  const char *dom = "<body><img src=\"a.svg\"><pre id=\"toi-check\" hidden=\"\">images=9 broken=2 errors=3 "
                    "list=img/a.svg,img/b.svg</pre></body>";
  const char *log = "[1:2:INFO:CONSOLE(3)] \"boom\", source: file:///x (3)\nnoise\n[4:5:INFO:CONSOLE(9)] \"x\"\n";
  cr_assert_eq(report_check_dom(dom, log, &r), 0);
  cr_assert_eq(r.images, 9);
  cr_assert_eq(r.broken, 2);
  cr_assert_eq(r.errors, 3);
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
  char dir[] = "/tmp/toichkXXXXXX", out[300], args[700], path[600];
  cr_assert_not_null(mkdtemp(dir));
  snprintf(out, sizeof out, "%s/rep", dir);
  snprintf(args, sizeof args, "report --quick --quiet -j 2 --out %s", out);
  cc_out *r = cc_run(NULL, args);
  cr_assert_eq(r->status, 0, "%s", r->err);
  snprintf(args, sizeof args, "report --check %s", out);
  r = cc_run(NULL, args);
  cr_assert_eq(r->status, 0, "%s", r->err);
  cr_assert(strstr(r->err, "images loaded, no error"), "%s", r->err);
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
    score_kind want;
  } rows[] = {{&overlap, TOI_SEPARATING, NAN, SCORE_OTHER},
              {&hit, TOI_MISS, NAN, SCORE_MISSED},
              {&miss, TOI_HIT, 1.0, SCORE_GHOST},
              {&hit, TOI_HIT, 2.0, SCORE_AGREE}};
  score_opts o = {INFINITY, 0, 0, 1, TOI_REF_FAST, TOI_BINARY64};
  for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
    toi_ref ref;
    cr_assert_eq(toi_ref_solve_engine(&ref, rows[i].c, TOI_REF_FAST), TOI_OK);
    score_detail d;
    toi_result r = {rows[i].verdict, rows[i].t};
    cr_assert_eq(score_answer(&d, r, TOI_FORWARD, 0, rows[i].c, &ref, &o), TOI_OK);
    cr_assert_eq(d.sc.kind, rows[i].want, "row %zu: %d against the true contact", i, d.sc.kind);
    cr_assert_eq(d.target_kind, rows[i].want, "row %zu: %d against the target 0", i, d.target_kind);
  }
}
