/* report_int.h: what the files of the report's writer share (report_write.c: tables, HTML, Markdown, JSON;
 * report_plots.c: data files and gnuplot plots; report_files.c: opening their files). Internal to src/report. */
#ifndef TOI_REPORT_INT_H
#define TOI_REPORT_INT_H

#include <stdio.h>
#include "report.h"
#include "report_files.h"
#include "report_look.h"

/* One row of the summary table. */
typedef struct row {
  const char *name;
  const char *dir;
  size_t cases, agree, missed, ghost, other, timed, ood, failed, unsupported; /* cases: the scored ones */
  double agree_pct, misclass_pct, median, p99, max, max_bits;
  double max_ratio;        /* largest error / (kappa u) over the timed cases (NaN: none) */
  double ke_max, mom_max, gap_min;
  size_t penetrations;
  double drift, ns, ns_med;  /* ns: its own time per call, fastest of the repeats; ns_med: their median (NaN: timed once) */
  double bench_ns, overhead; /* an external row's wall time per call around the whole call, and that minus ns (else NaN) */
  int external;
  unsigned long long scored_set; /* a hash of the direction and the scored cases: rows are compared (bold) only within one */
  double med_lo, med_hi, p99_lo, p99_hi; /* distribution-free intervals of the median and the p99 */
  size_t nonfinite;        /* timed cases with a NaN or infinite time */
  toi_precision q;         /* the column's precision: its ULPs and bits are in it */
  size_t rounded, beyond;  /* cases whose inputs rounding to q changed, or put beyond q's range */
  long worst_ulp, first_missed, first_ghost, worst_ke, worst_gap; /* section indices or -1 */
} row;

/// One plot: reports/SCRIPT.gp drawn from data/DATA, with its title and caption.
typedef struct rw_plot {
  const char *script; /* reports/NAME.gp */
  const char *data;   /* data/FILE */
  const char *title;
  const char *caption;
} rw_plot;

/// The main plots (part 0) or the binary32 part's (part 1), *n of them.
const rw_plot *rw_plots(int part, size_t *n);

/// The group of a column (documents, own kernels, engines).
rl_group rw_col_group(const rep_col *c);
/// The palette's colour of name, the same in every plot and table of report d.
const char *rw_name_colour(const rep_data *d, const char *name);
/// data/*.dat: the families, kappa, the CDF, the audit, the simulation (and the binary32 part's). 0 or -1.
int rw_write_data(const rep_data *d, const char *dir);
/// data/pareto.dat: accuracy against cost, labels placed apart. 0 or -1.
int rw_write_pareto(const rep_data *d, const row *rows, const char *dir);
/// Every plot in SVG and PNG under dir/img, gnuplot run in dir. 0 or -1.
int rw_run_plots(const rep_data *d, const char *dir);

#endif
