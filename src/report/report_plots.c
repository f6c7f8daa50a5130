/* report_plots.c: the report's data files (data/NAME.dat) and its plots (gnuplot, SVG and PNG, one palette). */
#define _GNU_SOURCE /* posix_spawn_file_actions_addchdir_np: gnuplot runs in the report folder */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "report_int.h"

/* ---- data files ---- */

static int write_family(const rep_data *d, const rep_section *s, const char *dir, const char *file,
                        const char *param) {
  FILE *f = rw_open_in(d->opts.msg, dir, file);
  if (!f) return -1;
  size_t nb = toi_gen_bin_count(&s->gen);
  fprintf(f, "# toibench report: %s family, per formulation (gnuplot index = formulation order)\n", s->name);
  double *buf = malloc((s->n ? s->n : 1) * sizeof *buf);
  if (!buf) {
    fclose(f);
    return -1;
  }
  for (size_t k = 0; k < d->ncol; k++) {
    fprintf(f, "%s# formulation %s\n# %s cases timed median_ulp max_ulp missed ghost other\n", k ? "\n\n" : "",
            d->cols[k].name, param);
    int rows_written = 0;
    for (size_t b = 0; b < nb; b++) {
      size_t cases = 0, m = 0, missed = 0, ghost = 0, other = 0;
      int value = 0;
      for (size_t i = 0; i < s->n; i++) {
        if ((size_t)s->bin[i] != b) continue;
        value = s->param[i];
        int kind = s->kind[i * d->ncol + k];
        if (!rep_kind_scored(kind)) continue;
        cases++;
        missed += kind == TOI_SCORE_MISSED;
        ghost += kind == TOI_SCORE_GHOST;
        other += kind == TOI_SCORE_OTHER;
        double u = s->ulp[i * d->ncol + k];
        if (!isnan(u)) buf[m++] = u;
      }
      if (!cases) continue;
      double *sorted;
      size_t ms = rep_sorted_copy(buf, m, 1, &sorted);
      double med = rep_quantile_sorted(sorted, ms, 0.5), mx = ms ? sorted[ms - 1] : NAN;
      free(sorted);
      fprintf(f, "%d %zu %zu %.6g %.6g %zu %zu %zu\n", value, cases, m, med, mx, missed, ghost, other);
      rows_written = 1;
    }
    /* gnuplot numbers blocks by their data: an empty block needs a row. */
    if (!rows_written) fprintf(f, "nan 0 0 nan nan nan nan nan\n");
  }
  free(buf);
  return rw_close_ok(f);
}

/* data/kappa.dat: the ULP error against kappa, per column. */
static int write_kappa(const rep_data *d, const char *dir) {
  const rep_section *s = &d->sec[0];
  FILE *f = rw_open_in(d->opts.msg, dir, "kappa.dat");
  if (!f) return -1;
  fprintf(f, "# toibench report: ULP error against the condition number kappa of t*, per formulation\n");
  for (size_t k = 0; k < d->ncol; k++) {
    fprintf(f, "%s# formulation %s\n# kappa ulp\n", k ? "\n\n" : "", d->cols[k].name);
    size_t timed = 0;
    for (size_t i = 0; i < s->n; i++) timed += !isnan(s->ulp[i * d->ncol + k]) && isfinite(s->kappa[i]);
    size_t stride = timed > 1500 ? timed / 1500 : 1, seen = 0;
    if (timed == 0) fprintf(f, "nan nan\n");
    for (size_t i = 0; i < s->n; i++) {
      double u = s->ulp[i * d->ncol + k];
      if (isnan(u) || !isfinite(s->kappa[i]) || !isfinite(u)) continue;
      if (seen++ % stride) continue;
      fprintf(f, "%.6g %.6g\n", s->kappa[i], u);
    }
  }
  return rw_close_ok(f);
}

/* data/cdf.dat: the distribution of the ULP error, per column. */
static int write_cdf(const rep_data *d, const char *dir, const char *file) {
  const rep_section *s = &d->sec[0];
  FILE *f = rw_open_in(d->opts.msg, dir, file);
  if (!f) return -1;
  fprintf(f, "# toibench report: cumulative distribution of the ULP error on the %s suite\n", s->name);
  for (size_t k = 0; k < d->ncol; k++) {
    fprintf(f, "%s# formulation %s\n# ulp fraction_at_or_below\n", k ? "\n\n" : "", d->cols[k].name);
    double *sorted;
    size_t m = rep_sorted_copy(s->ulp + k, s->n, d->ncol, &sorted);
    size_t step = m > 400 ? m / 400 : 1;
    if (m == 0 || !isfinite(sorted[0])) fprintf(f, "nan nan\n");
    for (size_t i = 0; i < m; i += step)
      if (isfinite(sorted[i])) fprintf(f, "%.6g %.6g\n", sorted[i], (double)(i + 1) / (double)m);
    if (m && isfinite(sorted[m - 1])) fprintf(f, "%.6g 1\n", sorted[m - 1]);
    free(sorted);
  }
  return rw_close_ok(f);
}

/* data/audit.dat: the response audit's distributions, per column. */
static int write_audit(const rep_data *d, const char *dir) {
  FILE *f = rw_open_in(d->opts.msg, dir, "audit.dat");
  if (!f) return -1;
  fprintf(f, "# toibench report: pairwise response audit (E = 1), distributions per formulation\n");
  for (size_t k = 0; k < d->ncol; k++) {
    fprintf(f, "%s# formulation %s\n# fraction abs_energy_error abs_gap\n", k ? "\n\n" : "", d->cols[k].name);
    if (!d->audit) {
      fprintf(f, "nan nan nan\n");
      continue;
    }
    const rep_audit *a = &d->audit[k];
    double *ke = malloc((a->n ? a->n : 1) * sizeof *ke), *gp = malloc((a->n ? a->n : 1) * sizeof *gp);
    if (!ke || !gp) {
      free(ke);
      free(gp);
      fclose(f);
      return -1;
    }
    for (size_t j = 0; j < a->n; j++) {
      ke[j] = isnan(a->ke[j]) ? NAN : fabs(a->ke[j]);
      gp[j] = isnan(a->gap[j]) ? NAN : fabs(a->gap[j]);
    }
    double *sk, *sg;
    size_t mk = rep_sorted_copy(ke, a->n, 1, &sk), mg = rep_sorted_copy(gp, a->n, 1, &sg);
    size_t m = mk < mg ? mk : mg, step = m > 300 ? m / 300 : 1;
    if (m == 0) fprintf(f, "nan nan nan\n");
    for (size_t i = 0; i < m; i += step)
      fprintf(f, "%.6g %.6g %.6g\n", (double)(i + 1) / (double)m, sk[i], sg[i]);
    free(sk);
    free(sg);
    free(ke);
    free(gp);
  }
  return rw_close_ok(f);
}

/* data/engines_sim.dat: each engine's energy error in its scenes (only when engines ran). */
static int write_esim(const rep_data *d, const char *dir) {
  if (!d->nesim) return 0;
  FILE *f = rw_open_in(d->opts.msg, dir, "engines_sim.dat");
  if (!f) return -1;
  fprintf(f, "# toibench report: engines in a simulation, kinetic energy error against events, per engine and scene\n");
  for (size_t j = 0; j < d->nesim; j++) {
    const rep_esim *m = &d->esim[j];
    fprintf(f, "%s# engine %s, scene %s %dD, seed %llu (%s)\n# event ke_err\n", j ? "\n\n" : "", m->engine, m->scene,
            m->dim, (unsigned long long)m->seed, m->status);
    if (m->nsamples == 0) fprintf(f, "nan nan\n");
    for (size_t i = 0; i < m->nsamples; i++)
      fprintf(f, "%llu %.17g\n", (unsigned long long)m->event[i], m->ke_err[i]);
  }
  return rw_close_ok(f);
}

/* data/sim.dat: the many-ball simulation's energy error. */
static int write_sim(const rep_data *d, const char *dir) {
  FILE *f = rw_open_in(d->opts.msg, dir, "sim.dat");
  if (!f) return -1;
  fprintf(f, "# toibench report: many-ball simulation, kinetic energy error against events, per kernel\n");
  for (size_t j = 0; j < d->nsim; j++) {
    fprintf(f, "%s# kernel %s (%s)\n# event abs_ke_err running_max_abs_ke_err\n", j ? "\n\n" : "", d->sim[j].name,
            d->sim[j].status);
    if (d->sim[j].nsamples == 0) fprintf(f, "nan nan nan\n");
    double run = 0;
    for (size_t i = 0; i < d->sim[j].nsamples; i++) {
      double e = fabs(d->sim[j].ke_err[i]);
      if (e > run) run = e;
      fprintf(f, "%llu %.6g %.6g\n", (unsigned long long)d->sim[j].event[i], e, run);
    }
  }
  return rw_close_ok(f);
}

/* The binary32 part's data: its families and its distribution, data/b32_*.dat. */
static int write_part_data(const rep_data *p, const char *dir) {
  if (write_family(p, &p->sec[1], dir, "b32_grazing.dat", "k")) return -1;
  if (write_family(p, &p->sec[2], dir, "b32_near_contact.dat", "k")) return -1;
  if (write_family(p, &p->sec[3], dir, "b32_far.dat", "e")) return -1;
  return write_cdf(p, dir, "b32_cdf.dat");
}

int rw_write_data(const rep_data *d, const char *dir) {
  if (d->part && write_part_data(d->part, dir)) return -1;
  if (write_family(d, &d->sec[1], dir, "grazing.dat", "k")) return -1;
  if (write_family(d, &d->sec[2], dir, "near_contact.dat", "k")) return -1;
  if (write_family(d, &d->sec[3], dir, "far.dat", "e")) return -1;
  if (write_kappa(d, dir) || write_cdf(d, dir, "cdf.dat") || write_audit(d, dir) || write_sim(d, dir) ||
      write_esim(d, dir))
    return -1;
  return 0;
}

/* The group of a column (documents, own kernels, engines). */
rl_group rw_col_group(const rep_col *c) {
  return rl_group_of(c->source, (c->cand->flags & TOI_CAND_EXTERNAL) != 0);
}

/* The palette's colour of name: fixed for the built-in names, else by its rank
 * among the main report's other names (so every plot, the binary32 part's
 * included, gives a name the same colour). */
const char *rw_name_colour(const rep_data *d, const char *name) {
  if (rl_colour_fixed(name)) return rl_colour(name, 0);
  size_t rank = 0;
  for (size_t k = 0; k < d->ncol; k++) {
    if (!strcmp(d->cols[k].name, name)) return rl_colour(name, rank);
    rank += !rl_colour_fixed(d->cols[k].name);
  }
  size_t h = 0; /* a name only in the binary32 part: after the main report's */
  for (const char *p = name; *p; p++) h = h * 31 + (unsigned char)*p;
  return rl_colour(name, rank + h % 7);
}

/* The accuracy-against-cost plot's frame, in the plot's unit square: the
   finite p99s fill the bottom PARETO_FINITE_TOP of it, from rl_cost_yrange's
   range (its outliers clipped to the top edge of that area, an arrow up and
   their value in their label), and the band "p99 infinite" (more than 1% of the
   timed cases got a NaN or infinite time) the rest: its points at
   PARETO_INF_AT, its caption above them at PARETO_CAPTION_AT. */
#define PARETO_FINITE_TOP 0.82
#define PARETO_INF_AT 0.86
#define PARETO_CLIP_AT 0.79
#define PARETO_CAPTION_AT 0.955
static const char pareto_caption[] = "p99 infinite: NaN or overflow on more than 1% of the timed cases";

/* The plot's frame: x (ns, log when they span more than 20x) and y (log ULP). */
typedef struct pareto_frame {
  double xlo, xhi, ylo, ytop, yhi, band_at, clip_at, ytic;
  int logx;
} pareto_frame;

/* The unit-square position of x (or y) in [lo, hi], log or linear. */
static double unit(double v, double lo, double hi, int logscale) {
  return logscale ? log(v / lo) / log(hi / lo) : (v - lo) / (hi - lo);
}
static double from_unit(double u, double lo, double hi, int logscale) {
  return logscale ? lo * pow(hi / lo, u) : lo + u * (hi - lo);
}

/* A p99 as the plot takes it: floored at 1e-3 (its axis' floor). */
static double pareto_p99(double p) { return p < 1e-3 ? 1e-3 : p; }

/* The frame of the rows drawn (at[0..n-1]); clipped[j] = 1 for an outlier. */
static void pareto_frame_of(const row *rows, const size_t *at, size_t n, pareto_frame *fr, int *clipped) {
  double nmin = INFINITY, nmax = 0, *v = malloc((n ? n : 1) * sizeof *v);
  for (size_t j = 0; j < n; j++) {
    const row *r = &rows[at[j]];
    nmin = fmin(nmin, r->ns);
    nmax = fmax(nmax, r->ns);
    if (v) v[j] = isfinite(r->p99) ? pareto_p99(r->p99) : NAN;
  }
  if (!(nmax > 0)) nmin = 1, nmax = 10;
  fr->logx = nmax / nmin > 20;
  fr->xlo = fr->logx ? nmin / 2 : 0;
  fr->xhi = fr->logx ? nmax * 8 : nmax * 1.35;
  for (size_t j = 0; j < n; j++) clipped[j] = 0;
  if (v) rl_cost_yrange(v, n, &fr->ylo, &fr->ytop, clipped);
  else fr->ylo = 1e-3 / 30, fr->ytop = 1;
  free(v);
  fr->yhi = fr->ylo * pow(fr->ytop / fr->ylo, 1 / PARETO_FINITE_TOP);
  fr->band_at = from_unit(PARETO_INF_AT, fr->ylo, fr->yhi, 1);
  fr->clip_at = from_unit(PARETO_CLIP_AT, fr->ylo, fr->yhi, 1);
  fr->ytic = from_unit((1 + PARETO_FINITE_TOP) / 2, fr->ylo, fr->yhi, 1);
}

/* Label size in the unit square: the plot area is about 800 by 470 pixels,
   a character of the labels' font about 6 pixels wide and 13 high. */
#define PARETO_CHAR_W (6.0 / 800)
#define PARETO_LABEL_H (13.0 / 470)

/* A point's label: its name, and for a clipped one its p99 as well. */
static void pareto_label(char *buf, size_t n, const row *r, int clipped) {
  if (clipped)
    snprintf(buf, n, "%s (p99 %.3g)", r->name, r->p99);
  else
    snprintf(buf, n, "%s", r->name);
}

int rw_write_pareto(const rep_data *d, const row *rows, const char *dir) {
  FILE *f = rw_open_in(d->opts.msg, dir, "pareto.dat");
  if (!f) return -1;
  size_t n = 0, *at = malloc((d->ncol + 1) * sizeof *at);
  double *ux = malloc((d->ncol + 1) * 5 * sizeof *ux);
  int *clipped = malloc((d->ncol + 1) * sizeof *clipped);
  if (!at || !ux || !clipped) {
    free(at);
    free(ux);
    free(clipped);
    fclose(f);
    return -1;
  }
  /* Drawn: the rows with a cost of their own (an external solver's engine time) and a p99. */
  for (size_t k = 0; k < d->ncol; k++)
    if (isfinite(rows[k].ns) && !isnan(rows[k].p99)) at[n++] = k;
  pareto_frame fr;
  pareto_frame_of(rows, at, n, &fr, clipped);
  double *uy = ux + d->ncol + 1, *uw = uy + d->ncol + 1, *lx = uw + d->ncol + 1, *ly = lx + d->ncol + 1;
  size_t nclipped = 0;
  for (size_t j = 0; j < n; j++) {
    const row *r = &rows[at[j]];
    double y = isinf(r->p99) ? fr.band_at : clipped[j] ? fr.clip_at : pareto_p99(r->p99);
    char label[200];
    pareto_label(label, sizeof label, r, clipped[j]);
    ux[j] = unit(r->ns, fr.xlo, fr.xhi, fr.logx);
    uy[j] = unit(y, fr.ylo, fr.yhi, 1);
    uw[j] = PARETO_CHAR_W * (double)strlen(label) + 0.004;
    nclipped += clipped[j] != 0;
  }
  /* The band's caption, right-aligned at 0.99, above its points: no label may cover it. */
  rl_box caption = {0.99 - PARETO_CHAR_W * (double)strlen(pareto_caption), PARETO_CAPTION_AT,
                    PARETO_CHAR_W * (double)strlen(pareto_caption), PARETO_LABEL_H};
  rl_place_labels_avoiding(ux, uy, uw, PARETO_LABEL_H, n, &caption, 1, lx, ly);
  fprintf(f,
          "# toibench report: accuracy against cost (timing: machine-dependent; an external solver at the time it\n"
          "# reported for its engine, left out when it reported none)\n"
          "# ns_per_call p99_ulp drawn_at label_x label_y colour group clipped name \"label\" (an infinite p99 is drawn\n"
          "# inside the band 'p99 infinite', an outlier above the scale (clipped 1) at its top edge; colour: the\n"
          "# palette's, 0xRRGGBB; labels placed apart, clear of the band's caption)\n");
  for (size_t j = 0; j < n; j++) {
    const row *r = &rows[at[j]];
    char p99[32] = "inf", label[200];
    if (!isinf(r->p99)) snprintf(p99, sizeof p99, "%.6g", r->p99);
    pareto_label(label, sizeof label, r, clipped[j]);
    for (char *c = label; *c; c++)
      if (*c == '"') *c = '\''; /* the label is one quoted column */
    fprintf(f, "%.6g %s %.6g %.6g %.6g %ld %d %d %s \"%s\"\n", r->ns, p99,
            isinf(r->p99) ? fr.band_at : clipped[j] ? fr.clip_at : r->p99, from_unit(lx[j], fr.xlo, fr.xhi, fr.logx),
            from_unit(ly[j] + PARETO_LABEL_H / 2, fr.ylo, fr.yhi, 1),
            strtol(rw_name_colour(d, r->name) + 1, NULL, 16), (int)rw_col_group(&d->cols[at[j]]), clipped[j], r->name, label);
  }
  if (n == 0) fprintf(f, "nan nan nan nan nan 0 1 0 - \"\"\n");
  fprintf(f,
          "\n\n# xlo xhi ylo yhi band_lo band_hi logx ytic caption_x caption_y clipped (band_lo: the top of the\n"
          "# finite p99s; ytic: the band's tick; caption: the band caption's right end and middle, data coordinates)\n"
          "%.6g %.6g %.6g %.6g %.6g %.6g %d %.6g %.6g %.6g %zu\n",
          fr.xlo, fr.xhi, fr.ylo, fr.yhi, fr.ytop, fr.yhi, fr.logx, fr.ytic, from_unit(0.99, fr.xlo, fr.xhi, fr.logx),
          from_unit(PARETO_CAPTION_AT + PARETO_LABEL_H / 2, fr.ylo, fr.yhi, 1), nclipped);
  free(at);
  free(ux);
  free(clipped);
  return rw_close_ok(f);
}

/* ---- plots ---- */


static const rw_plot plots[] = {
    {"grazing", "grazing.dat", "ULP error near grazing",
     "Median (solid) and maximum (dashed) ULP error of the contact time against k, for impact parameters "
     "R(1 - 2^-k) (hits) and R(1 + 2^-k) (misses) of the grazing family. Only correctly classified hits are "
     "timed. Rising lines show digits lost as the discriminant goes to zero; a line that stops means the "
     "formulation no longer reports those hits (see the classification plot)."},
    {"near_contact", "near_contact.dat", "ULP error near contact",
     "Median (solid) and maximum (dashed) ULP error against k for an initial gap of R 2^-k (near-contact "
     "family): the constant term c = |s|^2 - R^2 cancels, and the contact time is tiny."},
    {"far", "far.dat", "ULP error far from the origin",
     "Median (solid) and maximum (dashed) ULP error against e for a configuration translated by 10^e (far "
     "family). World-coordinate formulations (minkowski) lose digits as e grows; difference-first ones do not."},
    {"kappa", "kappa.dat", "Error against conditioning",
     "ULP error of each timed case against the relative condition number kappa of t* (mixed suite). The "
     "black line is error = kappa: below it the error is what the problem's conditioning explains; points far "
     "above it are losses of the formulation itself."},
    {"cdf", "cdf.dat", "Distribution of ULP error",
     "Cumulative distribution of the ULP error over the timed cases of the main suite: the fraction of cases "
     "with an error at or below x, one panel per group. The axis starts at 0: errors of 0 ULP (and any below "
     "10^-4) are drawn at its left edge, labelled 0; curves further left are better."},
    {"classification", "grazing.dat", "Classification errors near grazing",
     "Missed collisions (exact hit, formulation says no contact; solid) and ghost collisions (no exact contact, "
     "formulation reports one; dashed) per k in the grazing family, out of the cases per k."},
    {"audit", "audit.dat", "Collision response audit",
     "Left: cumulative distribution of the relative kinetic energy error after moving both balls to the "
     "formulation's time and applying the elastic impulse in double (exact change: 0). Right: the same for "
     "the relative contact gap |(|pB - pA| - R)/R| at that time."},
    {"sim", "sim.dat", "Energy drift in a many-ball simulation",
     "Relative kinetic energy error of the whole system against processed events in the event-driven "
     "many-ball simulation (elastic balls in a box), one line per TOI kernel, all from the same initial state: "
     "the running maximum of |error| on a log scale (the raw error crosses zero and the lines tangle), one panel "
     "per group."},
    {"pareto", "pareto.dat", "Accuracy against cost",
     "p99 ULP error on the main suite against the cost of one call in nanoseconds on this machine: the "
     "lower-left frontier holds the formulations worth choosing. A formulation whose p99 is infinite (more "
     "than 1% of its timed cases got a NaN or infinite time, mostly by overflow in the scale cases) is drawn "
     "in the shaded band at the top, 'p99 = inf'. Each point in its formulation's colour, its shape by group "
     "(circle: documents, square: own kernels, triangle: engines); labels placed apart."},
};
#define NPLOTS (sizeof plots / sizeof plots[0])

/* The binary32 part's plots: the same scripts on its data, img/b32_NAME. */
static const rw_plot part_plots[] = {
    {"grazing", "b32_grazing.dat", "binary32: ULP error near grazing",
     "As plot 1, for the binary32 grazing family (every number a float), errors in binary32 ULPs."},
    {"near_contact", "b32_near_contact.dat", "binary32: ULP error near contact",
     "As plot 2, for the binary32 near-contact family, errors in binary32 ULPs."},
    {"far", "b32_far.dat", "binary32: ULP error far from the origin",
     "As plot 3, for the binary32 far family, errors in binary32 ULPs."},
    {"cdf", "b32_cdf.dat", "binary32: distribution of ULP error",
     "As plot 5, over the binary32 mixed suite, errors in binary32 ULPs."},
    {"classification", "b32_grazing.dat", "binary32: classification errors near grazing",
     "As plot 6, for the binary32 grazing family."},
};
#define NPART_PLOTS (sizeof part_plots / sizeof part_plots[0])

/* The folder of the gnuplot scripts, as an absolute path (gnuplot runs in the
 * output folder): TOIBENCH_REPORTS_DIR, beside the executable, or ./reports. */
static int find_scripts(char *out, size_t n) {
  const char *env = getenv("TOIBENCH_REPORTS_DIR");
  char probe[PATH_MAX + 64], found[PATH_MAX + 64] = "";
  if (env) snprintf(found, sizeof found, "%s", env);
  char exe[PATH_MAX];
  ssize_t len = env ? -1 : readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (len > 0) {
    exe[len] = 0;
    char *slash = strrchr(exe, '/');
    if (slash) *slash = 0;
    const char *cands[] = {"/../reports", "/../share/toibench/reports"};
    for (size_t i = 0; i < 2 && !found[0]; i++) {
      snprintf(probe, sizeof probe, "%s%s/grazing.gp", exe, cands[i]);
      if (access(probe, R_OK) == 0) snprintf(found, sizeof found, "%s%s", exe, cands[i]);
    }
  }
  if (!env && !found[0] && access("reports/grazing.gp", R_OK) == 0) snprintf(found, sizeof found, "reports");
  char abs[PATH_MAX];
  if (!found[0] || !realpath(found, abs)) return -1;
  return (size_t)snprintf(out, n, "%s", abs) < n ? 0 : -1;
}

/* Runs argv (argv[0] found on the PATH) with its working directory dir, its
 * output and errors collected into msg (cut at n - 1 bytes), no shell. Returns
 * the exit status, or -1 when it could not be run or ended by a signal. */
static int run_in(const char *dir, char *const argv[], char *msg, size_t n) {
  int fd[2];
  msg[0] = 0;
  if (pipe2(fd, O_CLOEXEC)) return -1;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
  posix_spawn_file_actions_adddup2(&fa, fd[1], 2);
  posix_spawn_file_actions_addclose(&fa, fd[0]);
  posix_spawn_file_actions_addclose(&fa, fd[1]);
  posix_spawn_file_actions_addchdir_np(&fa, dir);
  extern char **environ;
  pid_t pid;
  int err = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  close(fd[1]);
  size_t got = 0;
  char buf[4096];
  ssize_t r;
  /* Read to the end (a child blocked on a full pipe would never exit), keep the start. */
  while ((r = read(fd[0], buf, sizeof buf)) != 0) {
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) break;
    size_t take = got + 1 < n ? n - 1 - got : 0;
    if (take > (size_t)r) take = (size_t)r;
    memcpy(msg + got, buf, take);
    got += take;
  }
  msg[got] = 0;
  close(fd[0]);
  if (err) {
    snprintf(msg, n, "%s", strerror(err));
    return -1;
  }
  int st;
  while (waitpid(pid, &st, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The plots' arguments after the data: the names (ARG4), their palette
 * colours (ARG5), their groups (ARG6), the groups present (ARG7) and the
 * legend's titles (ARG8: one double-quoted title per name, "" for none). */
typedef struct plot_args {
  char names[4096], colours[2048], groups[512], present[16], titles[8192];
  int group[256]; /* the group of each name (the first 256) */
  size_t count;
} plot_args;

/* The group of a simulation kernel: its column's, the reference's own. */
static rl_group sim_group(const rep_data *d, const char *name) {
  for (size_t k = 0; k < d->ncol; k++)
    if (!strcmp(d->cols[k].name, name)) return rw_col_group(&d->cols[k]);
  return RL_OWN;
}

/* The arguments for the columns of d (or the simulation's kernels); colours from main's palette. */
static void plot_args_of(const rep_data *main, const rep_data *d, int sim, plot_args *a) {
  size_t ln = 0, lc = 0, lg = 0, count = sim ? d->nsim : d->ncol;
  int seen[4] = {0};
  a->names[0] = a->colours[0] = a->groups[0] = a->present[0] = a->titles[0] = 0;
  a->count = 0;
  for (size_t k = 0; k < count && ln < sizeof a->names && lc < sizeof a->colours && lg < sizeof a->groups; k++) {
    const char *name = sim ? d->sim[k].name : d->cols[k].name;
    rl_group g = sim ? sim_group(d, name) : rw_col_group(&d->cols[k]);
    seen[g] = 1;
    if (k < sizeof a->group / sizeof *a->group) a->group[a->count++] = (int)g;
    ln += (size_t)snprintf(a->names + ln, sizeof a->names - ln, "%s%s", k ? " " : "", name);
    lc += (size_t)snprintf(a->colours + lc, sizeof a->colours - lc, "%s%s", k ? " " : "", rw_name_colour(main, name));
    lg += (size_t)snprintf(a->groups + lg, sizeof a->groups - lg, "%s%d", k ? " " : "", (int)g);
  }
  size_t lp = 0;
  for (int g = RL_DOCUMENT; g <= RL_ENGINE; g++)
    if (seen[g]) lp += (size_t)snprintf(a->present + lp, sizeof a->present - lp, "%s%d", lp ? " " : "", g);
}

/* The columns of its data a plot's script draws: x, up to three y columns (0:
 * none), and the column that must be > 0 for a row to be drawn (0: none). A
 * row is drawn when x and one of its y are numbers. */
typedef struct drawn_cols {
  const char *script;
  int x, y[3], cond;
} drawn_cols;
static const drawn_cols drawn[] = {
    {"grazing", 1, {4, 5, 0}, 3}, {"near_contact", 1, {4, 5, 0}, 3}, {"far", 1, {4, 5, 0}, 3},
    {"kappa", 1, {2, 0, 0}, 0},   {"cdf", 1, {2, 0, 0}, 0},          {"classification", 1, {6, 7, 0}, 0},
    {"audit", 1, {2, 3, 0}, 0},   {"sim", 1, {3, 0, 0}, 0},
};

/* The drawn rows of each block (gnuplot index) of a data file, as text: one
 * string per block, "" for a block with nothing drawn. *n blocks; NULL when
 * the file cannot be read. */
static char **drawn_rows(const char *path, const drawn_cols *dc, size_t *n) {
  FILE *f = fopen(path, "re");
  *n = 0;
  if (!f) return NULL;
  size_t cap = 16, blanks = 0;
  char **v = calloc(cap, sizeof *v), line[4096];
  size_t *len = calloc(cap, sizeof *len);
  int started = 0;
  while (v && len && fgets(line, sizeof line, f)) {
    if (line[0] == '\n') {
      blanks++;
      continue;
    }
    if (started && blanks >= 2) (*n)++; /* two blank lines end a block */
    blanks = 0;
    if (!started) started = 1, *n = 1;
    if (*n > cap) {
      char **nv = realloc(v, 2 * cap * sizeof *v);
      size_t *nl = nv ? realloc(len, 2 * cap * sizeof *len) : NULL;
      if (nv) v = nv;
      if (!nv || !nl) break;
      len = nl;
      memset(v + cap, 0, cap * sizeof *v), memset(len + cap, 0, cap * sizeof *len);
      cap *= 2;
    }
    if (line[0] == '#') continue;
    char *tok[16];
    int nt = 0;
    for (char *save = NULL, *t = strtok_r(line, " \t\n", &save); t && nt < 16; t = strtok_r(NULL, " \t\n", &save))
      tok[nt++] = t;
    double x = dc->x <= nt ? strtod(tok[dc->x - 1], NULL) : NAN;
    if (isnan(x) || (dc->cond && !(dc->cond <= nt && strtod(tok[dc->cond - 1], NULL) > 0))) continue;
    int any = 0;
    for (int j = 0; j < 3 && dc->y[j]; j++) any |= dc->y[j] <= nt && !isnan(strtod(tok[dc->y[j] - 1], NULL));
    if (!any) continue;
    char row[512];
    size_t rl = (size_t)snprintf(row, sizeof row, "%s", tok[dc->x - 1]);
    for (int j = 0; j < 3 && dc->y[j]; j++)
      rl += (size_t)snprintf(row + rl, rl < sizeof row ? sizeof row - rl : 0, " %s", dc->y[j] <= nt ? tok[dc->y[j] - 1] : "-");
    char *b = realloc(v[*n - 1], len[*n - 1] + strlen(row) + 2);
    if (!b) break;
    v[*n - 1] = b;
    len[*n - 1] += (size_t)sprintf(b + len[*n - 1], "%s;", row);
  }
  fclose(f);
  free(len);
  return v;
}

/* The legend's titles of plot p (its data in dir/data) into a->titles: a name
 * whose series draws nothing has no entry; one whose curve is identical to an
 * earlier one's in the same panel reads "NAME (= EARLIER)", since it hides it. */
static void plot_titles(const char *dir, const rw_plot *p, plot_args *a) {
  const drawn_cols *dc = NULL;
  for (size_t j = 0; j < sizeof drawn / sizeof *drawn; j++)
    if (!strcmp(drawn[j].script, p->script)) dc = &drawn[j];
  char path[PATH_MAX + 160];
  snprintf(path, sizeof path, "%s/data/%s", dir, p->data);
  size_t nb = 0;
  char **rows = dc ? drawn_rows(path, dc, &nb) : NULL;
  size_t lt = 0, i = 0;
  a->titles[0] = 0;
  char names[sizeof a->names];
  snprintf(names, sizeof names, "%s", a->names);
  char *name[256];
  size_t nn = 0;
  for (char *save = NULL, *t = strtok_r(names, " ", &save); t && nn < 256; t = strtok_r(NULL, " ", &save))
    name[nn++] = t;
  int one_panel = !strcmp(p->script, "audit"); /* every group in one panel */
  for (i = 0; i < nn && lt < sizeof a->titles; i++) {
    char title[300] = "";
    const char *mine = rows && i < nb && rows[i] ? rows[i] : "";
    if (!dc) {
      snprintf(title, sizeof title, "%s", name[i]);
    } else if (mine[0]) {
      snprintf(title, sizeof title, "%s", name[i]);
      for (size_t j = 0; j < i; j++)
        if (i < a->count && (one_panel || a->group[j] == a->group[i]) && j < nb && rows[j] && !strcmp(rows[j], mine)) {
          snprintf(title, sizeof title, "%s (= %s)", name[i], name[j]);
          break;
        }
    }
    for (char *c = title; *c; c++)
      if (*c == '"') *c = '\'';
    lt += (size_t)snprintf(a->titles + lt, sizeof a->titles - lt, "%s\"%s\"", i ? " " : "", title);
  }
  for (size_t j = 0; rows && j < nb; j++) free(rows[j]);
  free(rows);
}

/* Plot p in SVG and PNG, into img/PREFIXSCRIPT.{svg,png}: gnuplot runs in the
 * report's folder dir with the script's absolute path and relative paths. */
static int plot_one(const toi_msg *msg, const char *dir, const char *scripts, const rw_plot *p, const char *prefix,
                    plot_args *a) {
  for (int fmt = 0; fmt < 2; fmt++) {
    char script[PATH_MAX + 64], data[128], out[128], said[4096];
    if ((size_t)snprintf(script, sizeof script, "%s/%s.gp", scripts, p->script) >= sizeof script) {
      rw_say(msg, "report: the gnuplot scripts' folder path is too long: %s", scripts);
      return -1;
    }
    snprintf(data, sizeof data, "data/%s", p->data);
    snprintf(out, sizeof out, "img/%s%s.%s", prefix, p->script, fmt ? "png" : "svg");
    char *argv[] = {"gnuplot", "-c", script, data, out, fmt ? "png" : "svg", a->names, a->colours, a->groups,
                    a->present, a->titles, NULL};
    int st = run_in(dir, argv, said, sizeof said);
    char outpath[PATH_MAX + 160];
    snprintf(outpath, sizeof outpath, "%s/%s", dir, out);
    struct stat sb;
    if (st != 0 || stat(outpath, &sb) != 0 || sb.st_size == 0) {
      rw_say(msg, "report: gnuplot failed on %s:\n%s", script, said);
      return -1;
    }
  }
  return 0;
}

/* Every plot in SVG and PNG: gnuplot runs in the report's folder dir, given
 * the script's absolute path and relative data and output paths as -c
 * arguments (gnuplot reads them as the strings ARG1.., never as script text),
 * so any folder name works. */
int rw_run_plots(const rep_data *d, const char *dir) {
  char scripts[PATH_MAX];
  if (find_scripts(scripts, sizeof scripts)) {
    rw_say(d->opts.msg, "report: gnuplot scripts not found (set TOIBENCH_REPORTS_DIR to the reports/ folder)");
    return -1;
  }
  plot_args *a = malloc(2 * sizeof *a);
  if (!a) return -1;
  plot_args_of(d, d, 0, &a[0]);
  plot_args_of(d, d, 1, &a[1]);
  int rc = 0;
  for (size_t p = 0; p < NPLOTS && !rc; p++) {
    plot_args *pa = &a[strcmp(plots[p].script, "sim") ? 0 : 1];
    plot_titles(dir, &plots[p], pa);
    rc = plot_one(d->opts.msg, dir, scripts, &plots[p], "", pa);
  }
  if (d->nesim && !rc) {
    /* engines_sim.gp: one line per engine and scene, titled "ENGINE SCENE DIMD", in the engine's colour */
    static const rw_plot esim = {"engines_sim", "engines_sim.dat", "Engines in a simulation", ""};
    plot_args *pa = &a[0];
    size_t ln = 0, lc = 0, lt = 0;
    pa->names[0] = pa->colours[0] = pa->titles[0] = pa->groups[0] = pa->present[0] = 0;
    for (size_t j = 0; j < d->nesim; j++) {
      const rep_esim *m = &d->esim[j];
      ln += (size_t)snprintf(pa->names + ln, sizeof pa->names - ln, "%s%s", j ? " " : "", m->engine);
      lc += (size_t)snprintf(pa->colours + lc, sizeof pa->colours - lc, "%s%s", j ? " " : "",
                             rw_name_colour(d, m->engine));
      lt += (size_t)snprintf(pa->titles + lt, sizeof pa->titles - lt, "%s\"%s %s %dD\"", j ? " " : "", m->engine,
                             m->scene, m->dim);
    }
    rc = plot_one(d->opts.msg, dir, scripts, &esim, "", pa);
  }
  if (d->part && !rc) {
    plot_args_of(d, d->part, 0, &a[0]);
    for (size_t p = 0; p < NPART_PLOTS && !rc; p++) {
      plot_titles(dir, &part_plots[p], &a[0]);
      rc = plot_one(d->opts.msg, dir, scripts, &part_plots[p], "b32_", &a[0]);
    }
  }
  free(a);
  return rc;
}

const rw_plot *rw_plots(int part, size_t *n) {
  *n = part ? NPART_PLOTS : NPLOTS;
  return part ? part_plots : plots;
}
