/* report_write.c: the report's files: data, gnuplot plots, HTML, Markdown and JSON. */
#define _GNU_SOURCE /* posix_spawn_file_actions_addchdir_np: gnuplot runs in the report folder */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "report.h"
#include "report_int.h"
#include "toiref.h"

#ifndef TOI_GIT_VERSION
#define TOI_GIT_VERSION "unknown"
#endif
#ifndef TOI_BUILD_FLAGS
#define TOI_BUILD_FLAGS "unknown"
#endif

/* Columns of the summary table. */
enum {
  COL_MISCLASS, COL_MISSED, COL_GHOST, COL_MEDIAN, COL_P99, COL_MAX, COL_RATIO, COL_BITS, COL_KE, COL_MOM, COL_DRIFT,
  COL_NS, COL_OVERHEAD, COL_FAILED, COL_UNSUPPORTED, NCOLS
};


static double maxabs(const double *v, size_t n, long *at) {
  double m = NAN;
  *at = -1;
  for (size_t i = 0; i < n; i++)
    if (!isnan(v[i]) && (isnan(m) || fabs(v[i]) > m)) {
      m = fabs(v[i]);
      *at = (long)i;
    }
  return m;
}

static void build_rows(const rep_data *d, row *rows) {
  const rep_section *s = &d->sec[0];
  for (size_t k = 0; k < d->ncol; k++) {
    row *r = &rows[k];
    memset(r, 0, sizeof *r);
    r->name = d->cols[k].name;
    r->dir = d->cols[k].dir == TOI_FORWARD ? "forward" : "reverse";
    r->worst_ulp = r->first_missed = r->first_ghost = r->worst_ke = r->worst_gap = -1;
    r->max_bits = NAN;
    r->q = d->cols[k].cand->precision;
    r->external = (d->cols[k].cand->flags & TOI_CAND_EXTERNAL) != 0;
    r->max_ratio = NAN;
    /* FNV-1a over the direction and the indices of the scored cases. */
    unsigned long long set = 1469598103934665603ull ^ (unsigned long long)d->cols[k].dir;
    double maxu = -1;
    for (size_t i = 0; i < s->n; i++) {
      if (r->q != TOI_BINARY64) {
        r->rounded += (s->rounded[i] >> r->q) & 1u;
        r->beyond += (s->rounded[i] >> (4 + r->q)) & 1u;
      }
      int kind = s->kind[i * d->ncol + k];
      if (kind == TOI_SCORE_OUT_OF_DOMAIN) {
        r->ood++;
        continue;
      }
      if (kind == REP_FAILED) {
        r->failed++;
        continue;
      }
      if (kind == REP_UNSUPPORTED) {
        r->unsupported++;
        continue;
      }
      r->cases++;
      set = (set ^ (unsigned long long)i) * 1099511628211ull;
      if (kind == TOI_SCORE_AGREE) r->agree++;
      if (kind == TOI_SCORE_MISSED) {
        r->missed++;
        if (r->first_missed < 0) r->first_missed = (long)i;
      }
      if (kind == TOI_SCORE_GHOST) {
        r->ghost++;
        if (r->first_ghost < 0) r->first_ghost = (long)i;
      }
      if (kind == TOI_SCORE_OTHER) r->other++;
      double u = s->ulp[i * d->ncol + k];
      if (!isnan(u)) {
        r->timed++;
        r->nonfinite += isinf(u) != 0;
        if (u > maxu) {
          maxu = u;
          r->worst_ulp = (long)i;
        }
        double b = s->bits[i * d->ncol + k];
        if (isnan(r->max_bits) || b > r->max_bits) r->max_bits = b;
        double q = s->ratio[i * d->ncol + k];
        if (!isnan(q) && (isnan(r->max_ratio) || q > r->max_ratio)) r->max_ratio = q;
      }
    }
    r->scored_set = set;
    r->agree_pct = r->cases ? 100.0 * (double)r->agree / (double)r->cases : NAN;
    r->misclass_pct = rl_misclass_pct((double)r->missed, (double)r->ghost, (double)r->other, (double)r->cases);
    double *sorted;
    size_t m = rep_sorted_copy(s->ulp + k, s->n, d->ncol, &sorted);
    r->median = rep_quantile_sorted(sorted, m, 0.5);
    r->p99 = rep_quantile_sorted(sorted, m, 0.99);
    r->max = m ? sorted[m - 1] : NAN;
    rl_quantile_interval(sorted, m, 0.5, &r->med_lo, &r->med_hi);
    rl_quantile_interval(sorted, m, 0.99, &r->p99_lo, &r->p99_hi);
    free(sorted);
    r->ke_max = r->mom_max = r->gap_min = NAN;
    if (d->audit && d->cols[k].dir == TOI_FORWARD) {
      const rep_audit *a = &d->audit[k];
      long at;
      r->ke_max = maxabs(a->ke, a->n, &at);
      if (at >= 0) r->worst_ke = (long)a->idx[at];
      r->mom_max = maxabs(a->mom, a->n, &at);
      for (size_t j = 0; j < a->n; j++)
        if (!isnan(a->gap[j]) && (isnan(r->gap_min) || a->gap[j] < r->gap_min)) {
          r->gap_min = a->gap[j];
          r->worst_gap = (long)a->idx[j];
        }
      r->penetrations = a->penetrations;
    }
    r->drift = NAN;
    for (size_t j = 0; j < d->nsim; j++)
      if (!strcmp(d->sim[j].name, r->name) && d->sim[j].ran) r->drift = d->sim[j].drift_per_mevent;
    r->ns = d->ns_per_call ? d->ns_per_call[k] : NAN;
    r->ns_med = d->ns_median ? d->ns_median[k] : NAN;
    r->bench_ns = d->bench_ns ? d->bench_ns[k] : NAN;
    r->overhead = r->bench_ns - r->ns; /* NaN unless both are known */
  }
}

/* %.4g for people, "-" for a missing value, "inf" for infinity. */
static const char *fmt_num(char *buf, size_t n, double x);
/* Counts are printed whole; everything else with fmt_num. */
static const char *fmt_col(char *buf, size_t n, double x, int col) {
  if ((col == COL_MISSED || col == COL_GHOST || col == COL_FAILED || col == COL_UNSUPPORTED) && !isnan(x)) {
    snprintf(buf, n, "%.0f", x);
    return buf;
  }
  return fmt_num(buf, n, x);
}
static const char *fmt_num(char *buf, size_t n, double x) {
  if (isnan(x))
    snprintf(buf, n, "-");
  else if (isinf(x))
    snprintf(buf, n, x > 0 ? "inf" : "-inf");
  else
    snprintf(buf, n, "%.4g", x);
  return buf;
}

static void json_num(FILE *f, double x) {
  if (isnan(x))
    fputs("null", f);
  else if (isinf(x))
    fputs(x > 0 ? "\"inf\"" : "\"-inf\"", f);
  else
    fprintf(f, "%.17g", x);
}

static void json_str(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"' || *s == '\\')
      fprintf(f, "\\%c", *s);
    else if ((unsigned char)*s < 0x20)
      fprintf(f, "\\u%04x", (unsigned char)*s);
    else
      fputc(*s, f);
  }
  fputc('"', f);
}

static void html_str(FILE *f, const char *s) {
  for (; *s; s++) {
    if (*s == '<')
      fputs("&lt;", f);
    else if (*s == '>')
      fputs("&gt;", f);
    else if (*s == '&')
      fputs("&amp;", f);
    else if (*s == '"')
      fputs("&quot;", f);
    else
      fputc(*s, f);
  }
}

/* A table of summary.md or index.html: the same header and cells, written
   in Markdown (t->html 0) or in HTML. */
typedef struct tw {
  FILE *f;
  int html;
} tw;

/* A column: its name in Markdown and in HTML, and whether it holds numbers
   (right-aligned in Markdown). */
typedef struct tw_col {
  const char *md, *html;
  int num;
} tw_col;

/* The header row of the n columns c; in HTML after open, the table's opening tags. */
static void tw_head(const tw *t, const char *open, const tw_col *c, size_t n) {
  if (t->html) {
    fprintf(t->f, "%s\n<tr>", open);
    for (size_t i = 0; i < n; i++) fprintf(t->f, "<th>%s</th>", c[i].html);
    fputs("</tr>\n", t->f);
    return;
  }
  fputc('|', t->f);
  for (size_t i = 0; i < n; i++) fprintf(t->f, " %s |", c[i].md);
  fputs("\n|", t->f);
  for (size_t i = 0; i < n; i++) fputs(c[i].num ? "---:|" : "---|", t->f);
  fputc('\n', t->f);
}

static void tw_row(const tw *t) { fputs(t->html ? "<tr>" : "|", t->f); }

static void tw_row_end(const tw *t) { fputs(t->html ? "</tr>\n" : "\n", t->f); }

/* A cell holding text, escaped in HTML when esc (text that is not the
   bench's own: a status, a message). */
static void tw_text(const tw *t, const char *text, int esc) {
  if (!t->html) {
    fprintf(t->f, " %s |", text);
    return;
  }
  fputs("<td>", t->f);
  if (esc)
    html_str(t->f, text);
  else
    fputs(text, t->f);
  fputs("</td>", t->f);
}

static void tw_cell(const tw *t, const char *text) { tw_text(t, text, 0); }

static void tw_cellf(const tw *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void tw_cellf(const tw *t, const char *fmt, ...) {
  char buf[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  tw_cell(t, buf);
}

/* A figure cell, marked as the column's best when best: bold in Markdown, class "best" in HTML. */
static void tw_best(const tw *t, const char *text, int best) {
  if (t->html)
    fprintf(t->f, "<td%s>%s</td>", best ? " class=\"best\"" : "", text);
  else
    fprintf(t->f, " %s%s%s |", best ? "**" : "", text, best ? "**" : "");
}

/* A cell with a tooltip in HTML (its title attribute, escaped); Markdown has none. */
static void tw_titled(const tw *t, const char *text, const char *title) {
  if (!t->html) {
    tw_cell(t, text);
    return;
  }
  fputs("<td title=\"", t->f);
  html_str(t->f, title);
  fprintf(t->f, "\">%s</td>", text);
}

static void tw_end(const tw *t, const char *close) {
  if (t->html) fprintf(t->f, "%s\n", close);
}

/* The section "Engines in a simulation": its introduction (or, without an engine, why it is empty). */
static void esim_intro(char *buf, size_t n, const rep_data *d) {
  if (!d->nesim) {
    snprintf(buf, n, "This section needs the engines built ('make engines') and the report made with --engines: "
                     "each engine then drives the event-driven simulation in the scenes of doc/engines.md.");
    return;
  }
  const rep_esim *m = &d->esim[0];
  snprintf(buf, n, "Each engine drives the event-driven simulation in the scenes of doc/engines.md (recipe "
                   "engines-simulation), from seed %llu for %llu events, sampled every %llu: the figures of "
                   "'toibench simulate -f ENGINE --scene SCENE --dim DIM --seed %llu --events %llu --every %llu "
                   "--format csv'. Drift: the final kinetic energy error per 10^6 events; tunnelling (missed, summed "
                   "over the samples) and overlaps (the most in one sample) per 10^6 events; failed: predictions the "
                   "exact reference answered instead; max_pen: the deepest penetration. These runs took %.1f s.",
           (unsigned long long)m->seed, (unsigned long long)m->asked, (unsigned long long)m->every,
           (unsigned long long)m->seed, (unsigned long long)m->asked, (unsigned long long)m->every, d->seconds_esim);
}

/* The table of the engines in a simulation. */
static void esim_table(const tw *t, const rep_data *d) {
  static const tw_col cols[] = {{"engine", "engine", 0},
                                {"scene", "scene", 0},
                                {"status", "status", 0},
                                {"events", "events", 1},
                                {"drift per 1e6 events", "drift per 10<sup>6</sup> events", 1},
                                {"missed per 1e6 events", "missed per 10<sup>6</sup> events", 1},
                                {"overlaps per 1e6 events", "overlaps per 10<sup>6</sup> events", 1},
                                {"failed", "failed", 1},
                                {"queries", "queries", 1},
                                {"max_pen", "max_pen", 1}};
  tw_head(t, "<table>", cols, sizeof cols / sizeof cols[0]);
  for (size_t j = 0; j < d->nesim; j++) {
    const rep_esim *m = &d->esim[j];
    char a[32], b[32], c[32], e[32];
    tw_row(t);
    tw_cell(t, m->engine);
    tw_cellf(t, "%s %dD", m->scene, m->dim);
    tw_text(t, m->status, 1);
    tw_cellf(t, "%llu", (unsigned long long)m->events);
    tw_cell(t, fmt_num(a, sizeof a, m->drift));
    tw_cell(t, fmt_num(b, sizeof b, m->missed_per_mevent));
    tw_cell(t, fmt_num(c, sizeof c, m->overlaps_per_mevent));
    tw_cellf(t, "%llu", (unsigned long long)m->failed);
    tw_cellf(t, "%llu", (unsigned long long)m->queries);
    tw_cell(t, fmt_num(e, sizeof e, m->max_pen));
    tw_row_end(t);
  }
  tw_end(t, "</table>");
}

static void md_esim(FILE *f, const rep_data *d) {
  char intro[1200];
  esim_intro(intro, sizeof intro, d);
  fprintf(f, "\n## Engines in a simulation\n\n%s\n", intro);
  if (!d->nesim) return;
  fputc('\n', f);
  esim_table(&(tw){f, 0}, d);
  fprintf(f, "\n![Energy error of the engines in a simulation](img/engines_sim.svg)\n");
}

static void html_esim(FILE *f, const rep_data *d) {
  char intro[1200];
  esim_intro(intro, sizeof intro, d);
  fprintf(f, "<h2 id=\"engines-simulation\">Engines in a simulation</h2>\n<p>");
  html_str(f, intro);
  fprintf(f, "</p>\n");
  if (!d->nesim) return;
  esim_table(&(tw){f, 1}, d);
  fprintf(f, "<figure id=\"engines_sim\"><img src=\"img/engines_sim.svg\" alt=\"Energy error of the "
             "engines in a simulation\"><figcaption>Kinetic energy error of the whole system against events, one "
             "line per engine and scene (<a href=\"img/engines_sim.png\">PNG</a>, <a "
             "href=\"data/engines_sim.dat\">data</a>)</figcaption></figure>\n");
}

static void json_esim(FILE *f, const rep_data *d) {
  char intro[1200];
  esim_intro(intro, sizeof intro, d);
  fprintf(f, ",\n  \"engines_simulation\": {\"note\": ");
  json_str(f, intro);
  fprintf(f, ", \"seconds\": ");
  json_num(f, d->nesim ? d->seconds_esim : 0.0);
  fprintf(f, ", \"runs\": [%s", d->nesim ? "\n" : "");
  for (size_t j = 0; j < d->nesim; j++) {
    const rep_esim *m = &d->esim[j];
    fprintf(f, "    {\"engine\": ");
    json_str(f, m->engine);
    fprintf(f, ", \"scene\": ");
    json_str(f, m->scene);
    fprintf(f, ", \"dim\": %d, \"seed\": %llu, \"every\": %llu, \"status\": ", m->dim, (unsigned long long)m->seed,
            (unsigned long long)m->every);
    json_str(f, m->status);
    fprintf(f, ", \"events\": %llu, \"drift_per_1e6\": ", (unsigned long long)m->events);
    json_num(f, m->drift);
    fprintf(f, ", \"missed_per_1e6\": ");
    json_num(f, m->missed_per_mevent);
    fprintf(f, ", \"overlaps_per_1e6\": ");
    json_num(f, m->overlaps_per_mevent);
    fprintf(f, ", \"failed\": %llu, \"queries\": %llu, \"max_pen\": ", (unsigned long long)m->failed,
            (unsigned long long)m->queries);
    json_num(f, m->max_pen);
    fprintf(f, "}%s\n", j + 1 < d->nesim ? "," : "");
  }
  fprintf(f, "%s]}", d->nesim ? "  " : "");
}

/* ---- tables ---- */


static double col_value(const row *r, int c) {
  switch (c) {
    case COL_MISCLASS: return r->misclass_pct;
    case COL_MISSED: return (double)r->missed;
    case COL_GHOST: return (double)r->ghost;
    case COL_MEDIAN: return r->median;
    case COL_P99: return r->p99;
    case COL_MAX: return r->max;
    case COL_RATIO: return r->max_ratio;
    case COL_BITS: return r->max_bits;
    case COL_KE: return r->ke_max;
    case COL_MOM: return r->mom_max;
    case COL_DRIFT: return r->drift;
    case COL_NS: return r->ns;
    case COL_OVERHEAD: return r->overhead;
    case COL_FAILED: return (double)r->failed;
    default: return (double)r->unsupported;
  }
}

/* The figure of row r and column c for the significance rule: a proportion
   (misclassification, missed, ghost: of the row's scored cases), an interval
   (median and p99: distribution-free; ns/call: fastest to median repeat), or
   out of it (the maxima, the single-run figures and the counts apart are
   never marked). */
static rl_cell cell_of(const row *r, int c, toi_precision q) {
  rl_cell x = {NAN, NAN, NAN, 0, 0, r->q == q};
  double n = (double)r->cases;
  switch (c) {
    case COL_MISCLASS: x.x = (double)(r->missed + r->ghost + r->other); break;
    case COL_MISSED: x.x = (double)r->missed; break;
    case COL_GHOST: x.x = (double)r->ghost; break;
    case COL_MEDIAN: x.value = r->median, x.lo = r->med_lo, x.hi = r->med_hi; return x;
    case COL_P99: x.value = r->p99, x.lo = r->p99_lo, x.hi = r->p99_hi; return x;
    case COL_NS: x.value = r->ns, x.lo = r->ns, x.hi = isnan(r->ns_med) ? INFINITY : r->ns_med; return x;
    default: x.in = 0; return x;
  }
  x.n = n;
  x.value = n > 0 ? x.x / n : NAN;
  x.lo = x.hi = x.value;
  return x;
}

/* mark[k * NCOLS + c] = 1 where row k holds column c's best value beyond noise
   (rl_best_significant) among the rows in precision q scored on the same cases
   as it (the same scored_set): a reverse formulation, a formulation of a
   narrower domain or a solver that declined or failed cases is never bold
   against rows that answered other questions. */
static void best_marks(const row *rows, size_t n, toi_precision q, int *mark) {
  rl_cell *cells = malloc((n ? n : 1) * sizeof *cells);
  int *best = malloc((n ? n : 1) * sizeof *best), *done = calloc(n ? n : 1, sizeof *done);
  memset(mark, 0, n * NCOLS * sizeof *mark);
  for (size_t g = 0; g < n && cells && best && done; g++) {
    if (done[g]) continue;
    unsigned long long set = rows[g].scored_set;
    for (size_t k = 0; k < n; k++) done[k] |= rows[k].scored_set == set;
    for (int c = 0; c < NCOLS; c++) {
      for (size_t k = 0; k < n; k++) {
        cells[k] = cell_of(&rows[k], c, q);
        cells[k].in &= rows[k].scored_set == set;
      }
      rl_best_significant(cells, n, 0, best);
      for (size_t k = 0; k < n; k++) mark[k * NCOLS + c] |= best[k];
    }
  }
  free(cells);
  free(best);
  free(done);
}

/* The rule behind the bold figures, as the tables state it. */
static const char best_rule[] =
    "Bold: the best value of a column among the rows scored on the same cases (same direction and the very same "
    "scored cases: a reverse formulation, one of a narrower domain such as overlap-recovery, or a solver that "
    "declined or failed some cases is compared only with rows scored on exactly its cases), only where it is "
    "beyond measurement noise from every other such row: misclass %, missed and ghost as proportions of each "
    "row's scored cases, by a two-proportion z-test (|z| > 3); median and p99 "
    "when their distribution-free 3-sigma intervals (order statistics) do not overlap; ns/call when the "
    "fastest row's median of 5 timings is below every other row's fastest. Maxima and single-run figures "
    "(max ULP, max error/(kappa u), bits, energy, momentum, drift) are never bold. Classification: an exact "
    "overlap reported as no contact (or as a hit) counts as other, never as missed; missed is an exact contact "
    "reported as none.";

/* What the ratio and the cost columns measure, as the tables state it. */
static const char ratio_cost_rule[] =
    "max error/(kappa u): the largest |T - t*| / (kappa u |t*| + 2^(emin-p)) over the timed cases, kappa the "
    "condition number of the root in the row's direction and u = 2^-p the unit roundoff of the row's precision "
    "(the sweep's MAX_RATIO): about 1 or below, the error is what the conditioning of the cases allows, so a "
    "large ULP error there comes from ill-conditioned cases; far above, the formulation itself loses accuracy. "
    "ns/call: the candidate's own time per call. Every built-in row is timed alike: its batch call alone over "
    "the first 20000 cases of the suite, already in its precision, fastest of 5 passes. An external solver's is "
    "the time it reported for its engine (plug-in toi_solver_report_cost, the protocol's # engine-time line; "
    "- when it reported none); bench overhead ns/call is the rest of the wall time per call the bench measured "
    "around it (processes, pipe, protocol). unsupported: cases a solver declined; failed: cases it gave no "
    "usable answer for; neither is scored nor counted as misclassified.";

/* 1 for the columns of the response audit and simulation table (the forward
   rows' energy, momentum and drift), 0 for the summary table's. */
static int col_response(int c) { return c == COL_KE || c == COL_MOM || c == COL_DRIFT; }

static const char response_intro[] =
    "The response after each forward row's time: energy and momentum, the largest relative errors of the pairwise "
    "response audit (E = 1); sim drift, |energy error| per 10^6 events of the many-ball simulation (built-in "
    "kernels only).";

static const char *col_names[NCOLS] = {"misclass %", "missed", "ghost", "median ULP", "p99 ULP", "max ULP",
                                        "max error / (kappa u)", "max bits", "energy max", "momentum max",
                                        "sim drift/1e6 ev", "ns/call", "bench overhead ns/call", "failed",
                                        "unsupported"};

static void case_line(const rep_section *s, long i, char *buf, size_t n) {
  if (i < 0 || (size_t)i >= s->n) {
    snprintf(buf, n, "-");
    return;
  }
  toi_format_case(buf, n, &s->cases[i]);
}

/* The worst cases of one column: metric name, case index, value, and the
 * command that shows that metric (the audit metrics need `audit`). */
typedef struct worst_item {
  const char *what;
  long idx;
  double value;
  const char *verb;
} worst_item;

static int worst_items(const row *r, worst_item *w) {
  worst_item all[5] = {{"max ULP", r->worst_ulp, r->max, "run"},
                       {"first missed", r->first_missed, NAN, "run"},
                       {"first ghost", r->first_ghost, NAN, "run"},
                       {"max energy error", r->worst_ke, r->ke_max, "audit"},
                       {"min contact gap", r->worst_gap, r->gap_min, "audit"}};
  int n = 0;
  for (int m = 0; m < 5; m++)
    if (all[m].idx >= 0) w[n++] = all[m];
  return n;
}

/* How an external solver is named on a replay command line. */
static void replay_selector(const rep_data *d, size_t k, char *buf, size_t n) {
  toi_candidate_selector(d->cols[k].cand, buf, n);
}

/* worst/NAME-METRIC.cases: the one-case file of a worst case, relative to the
 * report's folder (characters other than letters, digits and ._- made '_'). */
static void worst_file(const char *name, const char *what, char *buf, size_t n) {
  size_t k = (size_t)snprintf(buf, n, "worst/");
  for (const char *p = name; *p && k + 1 < n; p++)
    buf[k++] = (isalnum((unsigned char)*p) || *p == '.' || *p == '-' || *p == '_') ? *p : '_';
  if (k + 1 < n) buf[k++] = '-';
  for (const char *p = what; *p && k + 1 < n; p++) buf[k++] = *p == ' ' ? '-' : (char)tolower((unsigned char)*p);
  snprintf(buf + k, n - k, ".cases");
}

/* Appends word to buf, in single quotes when it holds anything but letters, digits and ./_-=:+. */
static size_t add_word(char *buf, size_t n, size_t k, const char *word) {
  int plain = *word != 0;
  for (const char *p = word; *p; p++)
    if (!isalnum((unsigned char)*p) && !strchr("./_-=:+,", *p)) plain = 0;
  if (k < n) k += (size_t)snprintf(buf + k, n - k, "%s", k ? " " : "");
  if (plain) {
    if (k < n) k += (size_t)snprintf(buf + k, n - k, "%s", word);
    return k;
  }
  if (k < n) buf[k++] = '\'';
  for (const char *p = word; *p && k + 5 < n; p++) {
    if (*p == '\'') k += (size_t)snprintf(buf + k, n - k, "'\\''");
    else buf[k++] = *p;
  }
  if (k + 1 < n) buf[k++] = '\'';
  if (k < n) buf[k] = 0;
  return k;
}

/* The program as this report was run: its path when it lies below the
 * current folder (build/toibench in a source tree), else toibench. */
static void replay_prog(char *buf, size_t n) {
  char exe[PATH_MAX], cwd[PATH_MAX];
  ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
  snprintf(buf, n, "toibench");
  if (len <= 0 || !getcwd(cwd, sizeof cwd)) return;
  exe[len] = 0;
  size_t c = strlen(cwd);
  if (!strncmp(exe, cwd, c) && exe[c] == '/') snprintf(buf, n, "%s", exe + c + 1);
}

/* The command that replays worst case w of column k from its one-case file. */
static void replay_command(const rep_data *d, size_t k, const worst_item *w, char *buf, size_t n) {
  char prog[PATH_MAX], sel[4300], file[256], path[PATH_MAX + 300];
  replay_prog(prog, sizeof prog);
  replay_selector(d, k, sel, sizeof sel);
  worst_file(d->cols[k].name, w->what, file, sizeof file);
  snprintf(path, sizeof path, "%s/%s", d->opts.out_dir, file);
  size_t len = add_word(buf, n, 0, prog);
  len = add_word(buf, n, len, w->verb);
  if (len < n) len += (size_t)snprintf(buf + len, n - len, " %s", sel); /* already quoted */
  add_word(buf, n, len, path);
}

/* The one-case file of every worst case, under dir/worst/. */
static int write_worst_files(const rep_data *d, const row *rows, const char *dir) {
  const rep_section *s = &d->sec[0];
  for (size_t k = 0; k < d->ncol; k++) {
    worst_item w[5];
    int n = worst_items(&rows[k], w);
    for (int m = 0; m < n; m++) {
      char file[256], line[1024], cmd[8192];
      worst_file(rows[k].name, w[m].what, file, sizeof file);
      FILE *f = rw_open_in(d->opts.msg, dir, file);
      if (!f) return -1;
      case_line(s, w[m].idx, line, sizeof line);
      replay_command(d, k, &w[m], cmd, sizeof cmd);
      fprintf(f, "# toibench report: %s, %s (format v1). Replay: %s\n%s\n", rows[k].name, w[m].what, cmd, line);
      if (rw_close_ok(f)) return -1;
    }
  }
  return 0;
}

static int write_worst(const rep_data *d, const row *rows, const char *dir) {
  char sub[PATH_MAX + 16];
  snprintf(sub, sizeof sub, "%s/worst", dir);
  if (rw_mkdir_p(sub) || write_worst_files(d, rows, dir)) return -1;
  FILE *f = rw_open_in(d->opts.msg, dir, "worst.cases");
  if (!f) return -1;
  const rep_section *s = &d->sec[0];
  fprintf(f, "# toibench report: the worst case of each formulation and metric (format v1).\n"
             "# Sampled maxima are lower bounds of the true maxima. Each one is also in worst/, a file of its own.\n");
  /* A case may be the worst of several columns: each line appears once, so
   * the IDs stay unique, with every reason on a comment line before it. */
  char *written = calloc(s->n ? s->n : 1, 1);
  if (!written) {
    fclose(f);
    return -1;
  }
  for (size_t k = 0; k < d->ncol; k++) {
    worst_item w[5];
    int n = worst_items(&rows[k], w);
    for (int m = 0; m < n; m++) {
      fprintf(f, "# %s: %s\n", rows[k].name, w[m].what);
      if (written[w[m].idx]) continue;
      written[w[m].idx] = 1;
      char line[1024];
      case_line(s, w[m].idx, line, sizeof line);
      fprintf(f, "%s\n", line);
    }
  }
  free(written);
  return rw_close_ok(f);
}

/* One row of the worst-case table: formulation, metric, value, the case's ID
 * and exact class, its one-case file and the command that replays it. */
static void html_worst_row(FILE *f, const rep_data *d, size_t k, const worst_item *w) {
  const rep_section *s = &d->sec[0];
  char v[32], file[256], cmd[8192];
  worst_file(d->cols[k].name, w->what, file, sizeof file);
  replay_command(d, k, w, cmd, sizeof cmd);
  fprintf(f, "<tr><td>%s</td><td>%s</td><td>%s</td><td>", d->cols[k].name, w->what, fmt_num(v, sizeof v, w->value));
  html_str(f, s->cases[w->idx].id);
  fprintf(f, "</td><td>%s</td><td><a href=\"", toi_class_name((toi_class)s->cls[w->idx]));
  html_str(f, file);
  fprintf(f, "\">");
  html_str(f, file);
  fprintf(f, "</a></td><td><code>");
  html_str(f, cmd);
  fprintf(f, "</code></td></tr>\n");
}

/* 1 when some column computes in another precision than the table's: the
   tables then get a precision column (binary64-only tables keep their bytes). */
static int mixed_precisions(const rep_data *d) {
  for (size_t k = 0; k < d->ncol; k++)
    if (d->cols[k].cand->precision != d->precision) return 1;
  return 0;
}

/* The summary table, with a precision column when precisions are mixed (in
   HTML inside open: the summary's own class, and a frame that scrolls it). */
static void summary_table(const tw *t, const rep_data *d, const row *rows, const char *open) {
  int prec = mixed_precisions(d);
  tw_col cols[5 + NCOLS];
  size_t n = 0;
  cols[n++] = (tw_col){"formulation", "formulation", 0};
  if (prec) cols[n++] = (tw_col){"precision", "precision", 0};
  cols[n++] = (tw_col){"direction", "dir", 0};
  cols[n++] = (tw_col){"cases", "cases", 1};
  cols[n++] = (tw_col){"timed", "timed", 1};
  for (int c = 0; c < NCOLS; c++)
    if (!col_response(c)) cols[n++] = (tw_col){col_names[c], col_names[c], 1};
  tw_head(t, open, cols, n);
  int *mark = calloc((d->ncol ? d->ncol : 1) * NCOLS, sizeof *mark);
  if (mark) best_marks(rows, d->ncol, d->precision, mark);
  for (size_t k = 0; k < d->ncol; k++) {
    tw_row(t);
    tw_titled(t, rows[k].name, d->cols[k].summary);
    if (prec) tw_cell(t, toi_precision_name(rows[k].q));
    tw_cell(t, rows[k].dir);
    tw_cellf(t, "%zu", rows[k].cases);
    tw_cellf(t, "%zu", rows[k].timed);
    for (int c = 0; c < NCOLS; c++) {
      if (col_response(c)) continue;
      char b[32];
      tw_best(t, fmt_col(b, sizeof b, col_value(&rows[k], c), c), mark && mark[k * NCOLS + c]);
    }
    tw_row_end(t);
  }
  free(mark);
}

static void md_table(FILE *f, const rep_data *d, const row *rows) { summary_table(&(tw){f, 0}, d, rows, NULL); }

/* The response audit and simulation columns of the forward rows (never marked best: maxima and single runs). */
static void response_table(const tw *t, const rep_data *d, const row *rows) {
  tw_col cols[1 + NCOLS];
  size_t n = 0;
  cols[n++] = (tw_col){"formulation", "formulation", 0};
  for (int c = 0; c < NCOLS; c++)
    if (col_response(c)) cols[n++] = (tw_col){col_names[c], col_names[c], 1};
  tw_head(t, "<table>", cols, n);
  for (size_t k = 0; k < d->ncol; k++) {
    if (d->cols[k].dir != TOI_FORWARD) continue;
    tw_row(t);
    tw_cell(t, rows[k].name);
    for (int c = 0; c < NCOLS; c++) {
      char b[32];
      if (col_response(c)) tw_cell(t, fmt_col(b, sizeof b, col_value(&rows[k], c), c));
    }
    tw_row_end(t);
  }
  tw_end(t, "</table>");
}

static void md_response_table(FILE *f, const rep_data *d, const row *rows) {
  fprintf(f, "\n## Response audit and simulation\n\n%s\n\n", response_intro);
  response_table(&(tw){f, 0}, d, rows);
}

/* After the rules under a table: the external rows that reported no time of
   their own, with the wall time per call the bench measured around them. */
static void own_time_note(FILE *f, const rep_data *d, const row *rows) {
  for (size_t k = 0; k < d->ncol; k++)
    if (rows[k].external && isnan(rows[k].ns) && !isnan(rows[k].bench_ns))
      fprintf(f, " %s reported no time of its own: the bench measured %.4g ns per call around it, processes and "
                 "pipe included (not drawn in the accuracy-against-cost plot).",
              rows[k].name, rows[k].bench_ns);
}

/* Below a table with rows in another precision: what their figures mean. */
static void md_precision_note(FILE *f, const rep_data *d, const row *rows) {
  if (!mixed_precisions(d)) return;
  fprintf(f, "\nULP and bits are in each row's precision: a row in another precision than %s received each case "
             "rounded to it and is scored against the exact answer of the rounded case (best values are among "
             "the %s rows).",
          toi_precision_name(d->precision), toi_precision_name(d->precision));
  for (size_t k = 0; k < d->ncol; k++)
    if (rows[k].q != d->precision)
      fprintf(f, " %s: %zu cases changed by rounding to %s, %zu beyond its range (out of domain).", rows[k].name,
              rows[k].rounded, toi_precision_name(rows[k].q), rows[k].beyond);
  fputc('\n', f);
}

/* One family of the binary32 part for one column: the whole family's figures. */
typedef struct fam_stat {
  size_t cases, timed, missed, ghost;
  double median, p99, max;
} fam_stat;

static void family_stat(const rep_data *p, const rep_section *s, size_t k, fam_stat *o) {
  memset(o, 0, sizeof *o);
  for (size_t i = 0; i < s->n; i++) {
    int kind = s->kind[i * p->ncol + k];
    if (!rep_kind_scored(kind)) continue;
    o->cases++;
    o->missed += kind == TOI_SCORE_MISSED;
    o->ghost += kind == TOI_SCORE_GHOST;
  }
  double *sorted;
  size_t m = rep_sorted_copy(s->ulp + k, s->n, p->ncol, &sorted);
  o->timed = m;
  o->median = rep_quantile_sorted(sorted, m, 0.5);
  o->p99 = rep_quantile_sorted(sorted, m, 0.99);
  o->max = m ? sorted[m - 1] : NAN;
  free(sorted);
}

/* What the binary32 section measures, or why it is empty (one paragraph's text). */
static void part_intro(char *buf, size_t n, const rep_data *d) {
  const rep_data *p = d->part;
  if (!p) {
    snprintf(buf, n, "No candidate computes in binary32 in this report: no formulation has a binary32 variant in "
                     "this build, and no engine or solver declaring binary32 was given (--engines, --solver, or "
                     "--solver-cmd-precision binary32 --solver-cmd CMD).");
    return;
  }
  snprintf(buf, n, "Every candidate computing in binary32 (the formulations' binary32 variants, the engines and "
                   "solvers declaring binary32) on the binary32 families: %zu cases of the mixed family and the "
                   "grazing, near-contact and far families, every number a float (toibench gen --precision "
                   "binary32, seed %llu). Each answer is scored in binary32 ULPs against the binary32 reference: "
                   "the exact root correctly rounded to binary32. Every ULP, p99 and bits figure of this section is "
                   "in binary32.",
           p->sec[0].n, (unsigned long long)p->opts.seed);
}

/* The binary32 section's table of its families: each formulation's figures per family. */
static void family_table(const tw *t, const rep_data *p, const row *rows) {
  static const tw_col cols[] = {{"family", "family", 0},       {"formulation", "formulation", 0},
                                {"cases", "cases", 1},         {"timed", "timed", 1},
                                {"median ULP", "median ULP", 1}, {"p99 ULP", "p99 ULP", 1},
                                {"max ULP", "max ULP", 1},     {"missed", "missed", 1},
                                {"ghost", "ghost", 1}};
  tw_head(t, "<table>", cols, sizeof cols / sizeof cols[0]);
  for (size_t j = 1; j < p->nsec; j++)
    for (size_t k = 0; k < p->ncol; k++) {
      fam_stat st;
      char a[32], b[32], c[32];
      family_stat(p, &p->sec[j], k, &st);
      tw_row(t);
      tw_cell(t, p->sec[j].name);
      tw_cell(t, rows[k].name);
      tw_cellf(t, "%zu", st.cases);
      tw_cellf(t, "%zu", st.timed);
      tw_cell(t, fmt_num(a, sizeof a, st.median));
      tw_cell(t, fmt_num(b, sizeof b, st.p99));
      tw_cell(t, fmt_num(c, sizeof c, st.max));
      tw_cellf(t, "%zu", st.missed);
      tw_cellf(t, "%zu", st.ghost);
      tw_row_end(t);
    }
  tw_end(t, "</table>");
}

/* The binary32 section of summary.md. */
static void md_part(FILE *f, const rep_data *d) {
  char intro[1200];
  part_intro(intro, sizeof intro, d);
  fprintf(f, "\n## binary32\n\n%s\n", intro);
  const rep_data *p = d->part;
  row *rows = p ? calloc(p->ncol ? p->ncol : 1, sizeof *rows) : NULL;
  if (!rows) return;
  build_rows(p, rows);
  fprintf(f, "\nThe %s suite in binary32 (ULPs of binary32):\n\n", p->sec[0].name);
  md_table(f, p, rows);
  fprintf(f, "\nPer family (binary32 ULPs):\n\n");
  family_table(&(tw){f, 0}, p, rows);
  free(rows);
}

/* The median ULP error of column k over bin b of family s (*param its k or e); buf holds s->n. */
static double bin_median(const rep_data *d, const rep_section *s, size_t k, size_t b, double *buf, int *param) {
  size_t m = 0;
  for (size_t i = 0; i < s->n; i++) {
    if ((size_t)s->bin[i] != b) continue;
    *param = s->param[i];
    double u = s->ulp[i * d->ncol + k];
    if (!isnan(u)) buf[m++] = u;
  }
  double *sorted;
  size_t ms = rep_sorted_copy(buf, m, 1, &sorted);
  double med = rep_quantile_sorted(sorted, ms, 0.5);
  free(sorted);
  return med;
}

/* The family bin where column k's median error is largest: e->worst_family... */
static void worst_family(const rep_data *d, size_t k, rl_entry *e, double *buf) {
  e->worst_family = "";
  e->worst_family_median = NAN;
  for (size_t j = 1; j < d->nsec; j++) {
    const rep_section *s = &d->sec[j];
    size_t nb = toi_gen_bin_count(&s->gen);
    for (size_t b = 0; b < nb; b++) {
      int param = 0;
      double med = bin_median(d, s, k, b, buf, &param);
      if (isnan(med) || (!isnan(e->worst_family_median) && med <= e->worst_family_median)) continue;
      e->worst_family = s->name;
      e->worst_family_median = med;
      e->worst_family_param = param;
      e->worst_family_param_name = strcmp(s->name, "far") ? "k" : "e";
    }
  }
}

/* The verdict: sentences from the table's figures and the families (rl_verdict). */
static void verdict_of(const rep_data *d, const row *rows, char *out, size_t n) {
  size_t most = 1;
  for (size_t j = 1; j < d->nsec; j++) most = d->sec[j].n > most ? d->sec[j].n : most;
  rl_entry *e = calloc(d->ncol ? d->ncol : 1, sizeof *e);
  double *buf = malloc(most * sizeof *buf);
  out[0] = 0;
  if (e && buf) {
    for (size_t k = 0; k < d->ncol; k++) {
      const row *r = &rows[k];
      e[k] = (rl_entry){r->name, rw_col_group(&d->cols[k]),
                        d->cols[k].dir == TOI_FORWARD && r->q == d->precision, (double)r->cases,
                        (double)r->agree, (double)r->missed, (double)r->ghost, (double)r->other, (double)r->timed,
                        r->median, r->p99, r->max_ratio, (double)r->nonfinite, r->ns, "", NAN, 0, "k"};
      worst_family(d, k, &e[k], buf);
    }
    rl_verdict(out, n, e, d->ncol);
  }
  free(e);
  free(buf);
}

/* The many-ball simulation's table: one run per kernel. */
static void sim_table(const tw *t, const rep_data *d) {
  static const tw_col cols[] = {{"kernel", "kernel", 0},
                                {"status", "status", 0},
                                {"events", "events", 1},
                                {"final energy error", "final energy error", 1},
                                {"drift per 1e6 events", "drift per 10<sup>6</sup> events", 1},
                                {"overlaps (max)", "overlaps (max)", 1},
                                {"missed", "missed", 1}};
  tw_head(t, "<table>", cols, sizeof cols / sizeof cols[0]);
  for (size_t j = 0; j < d->nsim; j++) {
    const rep_sim *m = &d->sim[j];
    char a[32], b[32];
    tw_row(t);
    tw_cell(t, m->name);
    tw_text(t, m->status, 1);
    tw_cellf(t, "%llu", (unsigned long long)m->events);
    tw_cell(t, fmt_num(a, sizeof a, m->final_ke_err));
    tw_cell(t, fmt_num(b, sizeof b, m->drift_per_mevent));
    tw_cellf(t, "%llu", (unsigned long long)m->overlaps);
    tw_cellf(t, "%llu", (unsigned long long)m->missed);
    tw_row_end(t);
  }
  tw_end(t, "</table>");
}

static int write_markdown(const rep_data *d, const row *rows, const char *dir, const char *date) {
  FILE *f = rw_open_in(d->opts.msg, dir, "summary.md");
  if (!f) return -1;
  const rep_section *s = &d->sec[0];
  fprintf(f, "# toibench accuracy report\n\n%s, toibench %s (%s), %zu cases in the %s suite, seed %llu, %s reference.\n"
             "Reproduce: `%s`\n\n",
          date, TOI_VERSION, TOI_GIT_VERSION, s->n, s->name, (unsigned long long)d->opts.seed,
          toi_ref_engine_name(d->opts.engine), d->opts.command);
  char verdict[2048];
  verdict_of(d, rows, verdict, sizeof verdict);
  fprintf(f, "**Verdict** (from the figures below): %s\n\n", verdict);
  md_table(f, d, rows);
  fprintf(f, "\n%s %s %s ULP statistics are over correctly classified cases with an exact root; classification "
             "errors are counted apart. Timing (ns/call) is machine-dependent; everything else is reproducible from "
             "the seed.",
          best_rule, rl_misclass_rule, ratio_cost_rule);
  own_time_note(f, d, rows);
  fputc('\n', f);
  md_precision_note(f, d, rows);
  md_response_table(f, d, rows);
  fprintf(f, "\n## Worst cases\n\nSampled maxima are lower bounds. Each case is a one-case file under worst/; "
             "the command replays it.\n\n| formulation | metric | value | case ID | exact class | replay |\n"
             "|---|---|---:|---|---|---|\n");
  for (size_t k = 0; k < d->ncol; k++) {
    worst_item w[5];
    int n = worst_items(&rows[k], w);
    for (int m = 0; m < n; m++) {
      char v[32], cmd[8192];
      replay_command(d, k, &w[m], cmd, sizeof cmd);
      fprintf(f, "| %s | %s | %s | %s | %s | `%s` |\n", rows[k].name, w[m].what, fmt_num(v, sizeof v, w[m].value),
              s->cases[w[m].idx].id, toi_class_name((toi_class)s->cls[w[m].idx]), cmd);
    }
  }
  fprintf(f, "\n## Many-ball simulation\n\n");
  sim_table(&(tw){f, 0}, d);
  md_esim(f, d);
  md_part(f, d);
  return rw_close_ok(f);
}

static void machine_line(char *buf, size_t n) {
  struct utsname u;
  char model[256] = "unknown cpu";
  FILE *f = fopen("/proc/cpuinfo", "re");
  if (f) {
    char line[512];
    while (fgets(line, sizeof line, f))
      if (!strncmp(line, "model name", 10)) {
        char *c = strchr(line, ':');
        if (c) {
          snprintf(model, sizeof model, "%s", c + 2);
          model[strcspn(model, "\n")] = 0;
        }
        break;
      }
    fclose(f);
  }
  if (uname(&u) == 0)
    snprintf(buf, n, "%s %s %s, %s, %ld cores", u.sysname, u.release, u.machine, model, sysconf(_SC_NPROCESSORS_ONLN));
  else
    snprintf(buf, n, "%s", model);
}

/* The meta table: date, version, machine, compiler, reference, seed, cases, command, time. */
static void html_meta(FILE *f, const rep_data *d, const char *date) {
  char machine[600];
  machine_line(machine, sizeof machine);
  fprintf(f, "<table class=\"meta\">\n<tr><td>date</td><td>%s</td></tr>\n", date);
  fprintf(f, "<tr><td>version</td><td>toibench %s (%s)</td></tr>\n", TOI_VERSION, TOI_GIT_VERSION);
  fprintf(f, "<tr><td>machine</td><td>");
  html_str(f, machine);
  fprintf(f, "</td></tr>\n<tr><td>compiler</td><td>");
  html_str(f, __VERSION__);
  fprintf(f, "; flags: ");
  html_str(f, TOI_BUILD_FLAGS);
  fprintf(f, "</td></tr>\n<tr><td>reference</td><td>%s engine (bit-identical to the other); MPFR %s, GMP %s</td></tr>\n",
          toi_ref_engine_name(d->opts.engine), toi_ref_mpfr_version(), toi_ref_gmp_version());
  fprintf(f, "<tr><td>seed</td><td>%llu (generator families sampled uniformly over real ranges)</td></tr>\n",
          (unsigned long long)d->opts.seed);
  fprintf(f, "<tr><td>cases</td><td>");
  for (size_t k = 0; k < d->nsec; k++) fprintf(f, "%s%s: %zu", k ? ", " : "", d->sec[k].name, d->sec[k].n);
  fprintf(f, "; audit: %zu hits; simulation: %zu kernels</td></tr>\n", d->audit ? d->audit[0].n : 0, d->nsim);
  fprintf(f, "<tr><td>reproduce</td><td><code>");
  html_str(f, d->opts.command);
  fprintf(f, "</code></td></tr>\n<tr><td>run time</td><td>%.1f s (evaluation %.1f s) on %d threads</td></tr>\n</table>\n",
          d->seconds_total, d->seconds_eval, d->opts.jobs);

}

/* The summary table (closed), with a precision column when precisions are mixed. */
static void html_table(FILE *f, const rep_data *d, const row *rows) {
  int prec = mixed_precisions(d);
  summary_table(&(tw){f, 1}, d, rows, "<div class=\"tw\"><table class=\"summary\">");
  fprintf(f, "</table></div>\n<p class=\"rule\">%s</p>\n<p class=\"rule\">%s</p>\n<p class=\"rule\">%s", best_rule,
          rl_misclass_rule, ratio_cost_rule);
  own_time_note(f, d, rows);
  fprintf(f, "</p>\n");
  if (!prec) return;
  fprintf(f, "<p>ULP and bits are in each row's precision: a row in another precision than %s received each case "
             "rounded to it and is scored against the exact answer of the rounded case (best values are among the "
             "%s rows).",
          toi_precision_name(d->precision), toi_precision_name(d->precision));
  for (size_t k = 0; k < d->ncol; k++)
    if (rows[k].q != d->precision)
      fprintf(f, " %s: %zu cases changed by rounding to %s, %zu beyond its range (out of domain).", rows[k].name,
              rows[k].rounded, toi_precision_name(rows[k].q), rows[k].beyond);
  fprintf(f, "</p>\n");
}

/* The summary table and the list of formulations. */
static void html_summary(FILE *f, const rep_data *d, const row *rows) {
  const rep_section *s = &d->sec[0];
  fprintf(f, "<h2>Summary</h2>\n<p>One row per formulation on the %s suite. ULP error = |T - t*| / ulp(t*) over "
             "correctly classified cases with an exact root; <em>missed</em>: exact contact, no contact reported; "
             "<em>ghost</em>: contact reported, none exact.</p>\n",
          s->name);
  html_table(f, d, rows);
  fprintf(f, "<h3>Response audit and simulation</h3>\n<p>");
  html_str(f, response_intro);
  fprintf(f, "</p>\n");
  response_table(&(tw){f, 1}, d, rows);
  fprintf(f, "<h3>Formulations</h3>\n<p>The colour of each one in every plot, its group (a panel of its own in "
             "the plots) and the document it comes from.</p>\n<table class=\"desc\">\n<tr><th>formulation</th>"
             "<th>group</th><th>source</th><th>what it computes</th></tr>\n");
  for (size_t k = 0; k < d->ncol; k++) {
    char title[1024];
    rl_source_title(title, sizeof title, d->cols[k].source);
    fprintf(f, "<tr><td style=\"white-space:nowrap\"><span class=\"sw\" style=\"background:%s\"></span>%s</td><td>%s"
               "</td><td>",
            rw_name_colour(d, d->cols[k].name), d->cols[k].name, rl_group_title(rw_col_group(&d->cols[k])));
    html_str(f, title);
    fprintf(f, "</td><td>");
    html_str(f, d->cols[k].summary);
    fprintf(f, "</td></tr>\n");
  }
}

/* Plots, worst cases and the many-ball simulation. */
static void html_sections(FILE *f, const rep_data *d, const row *rows) {
  fprintf(f, "</table>\n<h2>Plots</h2>\n");
  size_t nplots;
  const rw_plot *plots = rw_plots(0, &nplots);
  for (size_t p = 0; p < nplots; p++)
    fprintf(f, "<figure id=\"%s\"><h3>%zu. %s</h3><img src=\"img/%s.svg\" alt=\"%s\"><figcaption>%s "
               "(<a href=\"img/%s.png\">PNG</a>, <a href=\"data/%s\">data</a>)</figcaption></figure>\n",
            plots[p].script, p + 1, plots[p].title, plots[p].script, plots[p].title, plots[p].caption,
            plots[p].script, plots[p].data);
  fprintf(f, "<h2>Worst cases</h2>\n<p>Each worst case is a one-case file (format v1) under worst/; the "
             "command replays it from the folder the report was made in. All of them are in <a "
             "href=\"worst.cases\">worst.cases</a>. Sampled maxima are lower bounds.</p>\n"
             "<div class=\"tw\"><table class=\"worst\">\n<tr><th>formulation</th><th>metric</th><th>value</th><th>case ID</th>"
             "<th>exact class</th><th>file</th><th>replay</th></tr>\n");
  for (size_t k = 0; k < d->ncol; k++) {
    worst_item w[5];
    int n = worst_items(&rows[k], w);
    for (int m = 0; m < n; m++) html_worst_row(f, d, k, &w[m]);
  }
  fprintf(f, "</table></div>\n<h2>Many-ball simulation</h2>\n");
  sim_table(&(tw){f, 1}, d);
  html_esim(f, d);
}

/* The binary32 section of index.html: its table, its families, its plots. */
static void html_part(FILE *f, const rep_data *d) {
  char intro[1200];
  part_intro(intro, sizeof intro, d);
  fprintf(f, "<h2 id=\"binary32\">binary32</h2>\n<p>");
  html_str(f, intro);
  fprintf(f, "</p>\n");
  const rep_data *p = d->part;
  row *rows = p ? calloc(p->ncol ? p->ncol : 1, sizeof *rows) : NULL;
  if (!rows) return;
  build_rows(p, rows);
  fprintf(f, "<h3>The %s suite in binary32 (ULPs of binary32)</h3>\n", p->sec[0].name);
  html_table(f, p, rows);
  fprintf(f, "<h3>Per family (binary32 ULPs)</h3>\n");
  family_table(&(tw){f, 1}, p, rows);
  size_t nparts;
  const rw_plot *part_plots = rw_plots(1, &nparts);
  for (size_t q = 0; q < nparts; q++)
    fprintf(f, "<figure id=\"b32_%s\"><h3>%s</h3><img src=\"img/b32_%s.svg\" alt=\"%s\"><figcaption>%s "
               "(<a href=\"img/b32_%s.png\">PNG</a>, <a href=\"data/%s\">data</a>)</figcaption></figure>\n",
            part_plots[q].script, part_plots[q].title, part_plots[q].script, part_plots[q].title,
            part_plots[q].caption, part_plots[q].script, part_plots[q].data);
  free(rows);
}

/* The page checks itself once loaded (make report-check reads it from the
 * DOM Chromium dumps): a hidden <pre id="toi-check"> with the number of
 * images, of those not loaded (naturalWidth 0), of errors (window error
 * events, a failed image's included, and console.error calls) and of summary
 * tables wider than the page's column (cut off, scrolled sideways). */
static const char check_script[] =
    "<script>\n(function () {\n  var errors = 0;\n"
    "  window.addEventListener('error', function () { errors++; }, true);\n"
    "  var ce = console.error;\n"
    "  console.error = function () { errors++; return ce.apply(console, arguments); };\n"
    "  window.addEventListener('load', function () {\n"
    "    var bad = [], im = document.images;\n"
    "    for (var i = 0; i < im.length; i++)\n"
    "      if (!im[i].complete || im[i].naturalWidth === 0) bad.push(im[i].getAttribute('src'));\n"
    "    var m = document.createElement('pre');\n"
    "    m.id = 'toi-check';\n    m.hidden = true;\n"
    "    var wide = 0, tw = document.querySelectorAll('table.summary');\n"
    "    for (var j = 0; j < tw.length; j++)\n"
    "      if (tw[j].parentNode.scrollWidth > tw[j].parentNode.clientWidth) wide++;\n"
    "    m.textContent = 'images=' + im.length + ' broken=' + bad.length + ' errors=' + errors + ' wide=' + wide + "
    "' list=' + bad.join(',');\n"
    "    document.body.appendChild(m);\n  });\n})();\n</script>\n";

static int write_html(const rep_data *d, const row *rows, const char *dir, const char *date) {
  FILE *f = rw_open_in(d->opts.msg, dir, "index.html");
  if (!f) return -1;
  fprintf(f,
          "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<title>toibench accuracy report</title>\n<style>\n"
          "body{font-family:system-ui,sans-serif;max-width:1400px;margin:1em auto;padding:0 1em;color:#222}\n"
          "table{border-collapse:collapse;font-size:0.85em;margin:0.5em 0}\n"
          "th,td{border:1px solid #ccc;padding:3px 5px;text-align:right;white-space:nowrap;"
          "font-variant-numeric:tabular-nums}th{background:#f0f0f0}\n"
          "table.summary{font-size:0.8em}table.summary th{white-space:normal;vertical-align:bottom}\n"
          "table.summary th,table.summary td{padding:3px 4px}\n"
          "table.desc td,table.desc th{white-space:normal;text-align:left}\n"
          ".tw{overflow-x:auto;max-width:100%%}\n"
          ".verdict{font-size:1.05em;background:#f4f8fc;border-left:4px solid #1f77b4;padding:0.6em 1em}\n"
          ".rule{font-size:0.85em;color:#444;max-width:1000px}\n"
          ".sw{display:inline-block;width:0.9em;height:0.9em;margin-right:0.4em;vertical-align:middle}\n"
          "td:first-child,th:first-child{text-align:left}\n"
          "td.best{background:#d8f5d0;font-weight:bold}\n"
          "table.meta td{text-align:left}\n"
          "figure{margin:1.5em 0}figure img{max-width:100%%;border:1px solid #ddd}\n"
          "figcaption{font-size:0.9em;color:#444;max-width:900px}\n"
          "code{font-size:0.85em;word-break:break-all}\n"
          ".worst td{text-align:left}\n"
          "</style>\n%s</head><body>\n<h1>toibench accuracy report</h1>\n",
          check_script);
  char verdict[2048];
  verdict_of(d, rows, verdict, sizeof verdict);
  fprintf(f, "<p id=\"verdict\" class=\"verdict\"><strong>Verdict</strong> (derived from the figures below): ");
  html_str(f, verdict);
  fprintf(f, "</p>\n");
  html_meta(f, d, date);
  html_summary(f, d, rows);
  html_sections(f, d, rows);
  html_part(f, d);
  fprintf(f, "<p>Files: <a href=\"summary.md\">summary.md</a>, <a href=\"report.json\">report.json</a>, "
             "<a href=\"data/\">data/</a>.</p>\n</body></html>\n");
  return rw_close_ok(f);
}

/* "sections" and "formulations" (every row with its precision), indented by ind. */
static void json_sections_rows(FILE *f, const rep_data *d, const row *rows, const char *ind) {
  fprintf(f, ",\n%s\"sections\": [", ind);
  for (size_t k = 0; k < d->nsec; k++) {
    fprintf(f, "%s{\"name\": ", k ? ", " : "");
    json_str(f, d->sec[k].name);
    fprintf(f, ", \"cases\": %zu}", d->sec[k].n);
  }
  fprintf(f, "],\n%s\"formulations\": [\n", ind);
  for (size_t k = 0; k < d->ncol; k++) {
    const row *r = &rows[k];
    fprintf(f, "%s  {\"name\": ", ind);
    json_str(f, r->name);
    fprintf(f, ", \"direction\": \"%s\", \"precision\": \"%s\", \"cases\": %zu, \"out_of_domain\": %zu, "
               "\"agree\": %zu, \"missed\": %zu, \"ghost\": %zu, \"other\": %zu, \"timed\": %zu, \"failed\": %zu, "
               "\"unsupported\": %zu, \"external\": %s",
            r->dir, toi_precision_name(r->q), r->cases, r->ood, r->agree, r->missed, r->ghost, r->other, r->timed,
            r->failed, r->unsupported, r->external ? "true" : "false");
    if (r->q != TOI_BINARY64) fprintf(f, ", \"inputs_rounded\": %zu, \"beyond_range\": %zu", r->rounded, r->beyond);
    /* cases: the scored ones; misclass_pct = 100 (missed + ghost + other) / cases (rl_misclass_pct). */
    static const struct {
      const char *key;
      int col;
    } figures[] = {{"misclass_pct", COL_MISCLASS}, {"median_ulp", COL_MEDIAN},  {"p99_ulp", COL_P99},
                   {"max_ulp", COL_MAX},           {"max_ratio", COL_RATIO},    {"max_bits", COL_BITS},
                   {"energy_max", COL_KE},         {"momentum_max", COL_MOM},   {"sim_drift_per_mevent", COL_DRIFT},
                   {"ns_per_call", COL_NS},        {"overhead_ns_per_call", COL_OVERHEAD}};
    fprintf(f, ", \"agree_pct\": ");
    json_num(f, r->agree_pct);
    for (size_t c = 0; c < sizeof figures / sizeof *figures; c++) {
      fprintf(f, ", \"%s\": ", figures[c].key);
      json_num(f, col_value(r, figures[c].col));
    }
    fprintf(f, ", \"bench_ns_per_call\": ");
    json_num(f, r->bench_ns);
    fprintf(f, ", \"gap_min\": ");
    json_num(f, r->gap_min);
    fprintf(f, ", \"penetrations\": %zu}%s\n", r->penetrations, k + 1 < d->ncol ? "," : "");
  }
  fprintf(f, "%s]", ind);
}

/* "binary32": the part's sections and rows, or null when no candidate computes in binary32. */
static void json_part(FILE *f, const rep_data *d) {
  fprintf(f, ",\n  \"binary32\": ");
  if (!d->part) {
    fprintf(f, "null");
    return;
  }
  row *rows = calloc(d->part->ncol ? d->part->ncol : 1, sizeof *rows);
  if (!rows) {
    fprintf(f, "null");
    return;
  }
  build_rows(d->part, rows);
  fprintf(f, "{\"precision\": \"%s\"", toi_precision_name(d->part->precision));
  json_sections_rows(f, d->part, rows, "    ");
  fprintf(f, "\n  }");
  free(rows);
}

static int write_json(const rep_data *d, const row *rows, const char *dir, const char *date) {
  FILE *f = rw_open_in(d->opts.msg, dir, "report.json");
  if (!f) return -1;
  fprintf(f, "{\n  \"format\": \"toibench-report v1\",\n  \"date\": ");
  json_str(f, date);
  fprintf(f, ",\n  \"version\": ");
  json_str(f, TOI_VERSION);
  fprintf(f, ",\n  \"git\": ");
  json_str(f, TOI_GIT_VERSION);
  fprintf(f, ",\n  \"command\": ");
  json_str(f, d->opts.command);
  fprintf(f, ",\n  \"seed\": %llu,\n  \"mpfr\": ", (unsigned long long)d->opts.seed);
  json_str(f, toi_ref_mpfr_version());
  fprintf(f, ",\n  \"gmp\": ");
  json_str(f, toi_ref_gmp_version());
  fprintf(f, ",\n  \"reference_engine\": ");
  json_str(f, toi_ref_engine_name(d->opts.engine));
  char verdict[2048];
  verdict_of(d, rows, verdict, sizeof verdict);
  fprintf(f, ",\n  \"verdict\": ");
  json_str(f, verdict);
  json_sections_rows(f, d, rows, "  ");
  json_part(f, d);
  fprintf(f, ",\n  \"simulation\": [\n");
  for (size_t j = 0; j < d->nsim; j++) {
    const rep_sim *m = &d->sim[j];
    fprintf(f, "    {\"kernel\": ");
    json_str(f, m->name);
    fprintf(f, ", \"status\": ");
    json_str(f, m->status);
    fprintf(f, ", \"events\": %llu, \"final_energy_error\": ", (unsigned long long)m->events);
    json_num(f, m->final_ke_err);
    fprintf(f, ", \"drift_per_mevent\": ");
    json_num(f, m->drift_per_mevent);
    fprintf(f, ", \"overlaps\": %llu, \"missed\": %llu}%s\n", (unsigned long long)m->overlaps,
            (unsigned long long)m->missed, j + 1 < d->nsim ? "," : "");
  }
  fprintf(f, "  ]");
  json_esim(f, d);
  fprintf(f, ",\n  \"reference_ns_per_call\": ");
  json_num(f, d->ref_ns_per_call);
  fprintf(f, ",\n  \"seconds\": ");
  json_num(f, d->seconds_total);
  fprintf(f, "\n}\n");
  return rw_close_ok(f);
}

/* The files of the report, into the folder dir (made and placed by the caller). */
int report_write_files(const rep_data *d, const char *dir) {
  char sub[PATH_MAX + 16];
  row *rows = calloc(d->ncol ? d->ncol : 1, sizeof *rows);
  if (!rows) goto done;
  build_rows(d, rows);
  snprintf(sub, sizeof sub, "%s/data", dir);
  if (rw_mkdir_p(sub)) goto done;
  snprintf(sub, sizeof sub, "%s/img", dir);
  if (rw_mkdir_p(sub)) goto done;
  snprintf(sub, sizeof sub, "%s/data", dir);
  if (rw_write_data(d, sub) || rw_write_pareto(d, rows, sub)) goto done;
  if (rw_run_plots(d, dir)) goto done;
  char date[64];
  time_t now = time(NULL);
  struct tm tmv;
  gmtime_r(&now, &tmv);
  strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S UTC", &tmv);
  if (write_markdown(d, rows, dir, date) || write_html(d, rows, dir, date) || write_json(d, rows, dir, date) ||
      write_worst(d, rows, dir))
    goto done;
  free(rows);
  return 0;
done:
  free(rows);
  return -1;
}
