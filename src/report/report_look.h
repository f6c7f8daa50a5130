/* report_look.h: how the report reads: groups and colours, significance of a "best", the verdict,
 * document titles and label placement. Pure functions of the figures, unit-tested apart. */
#ifndef TOI_REPORT_LOOK_H
#define TOI_REPORT_LOOK_H

#include <stddef.h>

/// The report's groups of columns, in the order of the panels of its plots.
typedef enum rl_group {
  RL_DOCUMENT = 1, ///< a formula from the documents (or the textbook formula they derive)
  RL_OWN = 2,      ///< toibench's own kernels and library code not from the documents, and the reference
  RL_ENGINE = 3    ///< engines, plug-ins and subprocess solvers
} rl_group;

/// The group of a column from its source text and whether it is external.
rl_group rl_group_of(const char *source, int external);
/// The panel title of a group.
const char *rl_group_title(rl_group g);

/// The palette: the colour ("#rrggbb") of name. Every built-in formulation and the
/// reference have a fixed colour; any other name takes, by its rank among the
/// other names (other_rank, 0-based), a colour of the engines' palette.
const char *rl_colour(const char *name, size_t other_rank);
/// 1 when name has a fixed colour in the palette table.
int rl_colour_fixed(const char *name);

/// A source field as people read it: the document titles it cites, the file
/// names of the seeds folder ("000_48aa0a803641ccdd.txt ") dropped.
void rl_source_title(char *out, size_t n, const char *source);

/// Two-proportion z statistic of x1/n1 against x2/n2 (0 when undefined).
double rl_prop_z(double x1, double n1, double x2, double n2);
/// The significance threshold of the report's tests: |z| above it.
#define RL_Z 3.0
/// Distribution-free interval of the q-quantile of sorted[0..n-1] (ranks
/// n q -+ RL_Z sqrt(n q (1 - q)), clamped): *lo, *hi.
void rl_quantile_interval(const double *sorted, size_t n, double q, double *lo, double *hi);

/// One candidate value of a column for the significance rule: the value, an
/// interval [lo, hi] (lo = hi = value for an exact figure) or a proportion
/// (x of n), whether it takes part (same precision, not NaN).
typedef struct rl_cell {
  double value, lo, hi;
  double x, n; ///< a count x of n (n > 0) for proportions, else n = 0
  int in;
} rl_cell;
/// Marks best[k] = 1 on the rows holding the best value (smaller is better, or
/// larger when larger_better) only when it is beyond noise from the next value:
/// intervals that do not overlap, or a two-proportion |z| > RL_Z. Returns the
/// number of rows marked (0: no bold).
size_t rl_best_significant(const rl_cell *c, size_t n, int larger_better, int *best);

/// The misclassification rate, in percent: (missed + ghost + other) / scored,
/// scored being the cases in the column's domain that it answered (declined,
/// failed and out-of-domain cases are not scored), as `toibench summary` gives
/// it. The one definition of the report (verdict, tables, JSON); NaN when
/// nothing was scored.
double rl_misclass_pct(double missed, double ghost, double other, double scored);
/// That definition, as the report's tables state it.
extern const char rl_misclass_rule[];

/// The verdict's input: one row per column of the main table.
typedef struct rl_entry {
  const char *name;
  rl_group group;
  int forward;              ///< 1 for a forward formulation
  double cases;             ///< scored cases (rl_misclass_pct's denominator)
  double agree, missed, ghost, other, timed;
  double median, p99;       ///< ULP over timed cases (NaN when none)
  double max_ratio;         ///< largest error / (kappa u) over timed cases (NaN when none)
  double nonfinite;         ///< timed cases whose time was NaN or infinite
  double ns;                ///< ns per call (NaN when not timed)
  const char *worst_family; ///< the family where its median error is largest ("" when none)
  double worst_family_median;
  int worst_family_param;   ///< the bin parameter (k or e) of that largest median
  const char *worst_family_param_name; ///< "k" or "e"
} rl_entry;
/// Writes three or four sentences, derived from e[0..n-1], into out. The
/// number of sentences, or 0 when no forward row has any figure.
int rl_verdict(char *out, size_t size, const rl_entry *e, size_t n);

/// Label placement in a plot's unit square: point i at (x[i], y[i]) (0..1)
/// with a label of w[i] by h; chooses (lx[i], ly[i]), the label's lower-left
/// corner, so that labels overlap neither each other nor the points, trying
/// the right, the left, above and below at growing distances. 0, or -1 when
/// some label could not be placed without an overlap (then placed at its right).
int rl_place_labels(const double *x, const double *y, const double *w, double h, size_t n, double *lx, double *ly);
/// A box of the unit square: lower-left corner (x, y), width w, height h.
typedef struct rl_box {
  double x, y, w, h;
} rl_box;
/// rl_place_labels keeping the labels also clear of the boxes keep[0..nkeep-1]
/// (text already on the plot, such as a band's caption).
int rl_place_labels_avoiding(const double *x, const double *y, const double *w, double h, size_t n,
                             const rl_box *keep, size_t nkeep, double *lx, double *ly);

/// The y range of the accuracy-against-cost plot from its values v[0..n-1]
/// (finite p99s, floored at 1e-3 by the caller): the values beyond the upper
/// fence of their decades (q3 + max(1.5 IQR, 3) in log10, quartiles by nearest
/// rank) are outliers, clipped[i] = 1 (drawn at the top edge with a marker and a
/// note); the range runs from the smallest value / 30 to the largest value kept
/// x 30. *lo = 1e-3 / 30, *hi = 1 when no value is given.
void rl_cost_yrange(const double *v, size_t n, double *lo, double *hi, int *clipped);
/// 1 when the boxes [ax, ax + aw] x [ay, ay + ah] and [bx, ...] overlap.
int rl_boxes_overlap(double ax, double ay, double aw, double ah, double bx, double by, double bw, double bh);

#endif
