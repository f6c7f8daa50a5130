/* report.h: the accuracy report: evaluated suites, audits, simulations, and their output. */
#ifndef TOI_REPORT_H
#define TOI_REPORT_H

#include <stdint.h>
#include <stdio.h>
#include "bench.h"
#include "gen.h"
#include "candidate.h"
#include "score.h"
#include "toi.h"

/// One evaluated section of the suite (a generated family, or a case file).
typedef struct rep_section {
  char name[32];          ///< "mixed", "grazing", "near-contact", "far", or "suite"
  toi_gen_opts gen;           ///< generator options (unused for a case file)
  int from_file;
  size_t n;               ///< cases
  toi_case *cases;        ///< [n]
  int *bin;               ///< [n] generator bin (k or e index), 0 for a file
  int *param;             ///< [n] bin parameter value (k or e)
  unsigned char *cls;     ///< [n] exact class
  double *kappa;          ///< [n] condition number of the forward root (NaN if none)
  /// [n] for each precision q other than binary64 some column computes in:
  /// bit q when the case's numbers changed by rounding to q, bit 4 + q when a
  /// number is beyond q's range (those columns were not asked: out of domain).
  unsigned char *rounded;
  double *ulp;            ///< [n * ncol] ULP error, NaN when not timed
  double *bits;           ///< [n * ncol] bits of error, NaN when not timed
  /// [n * ncol] error / (kappa u) (sweep_ratio_prec: kappa of the root in the
  /// column's direction on the case as the column received it, u its
  /// precision's unit roundoff), NaN when not timed or kappa is not finite
  double *ratio;
  unsigned char *kind;    ///< [n * ncol] toi_score_kind, REP_FAILED or REP_UNSUPPORTED
  unsigned char *verdict; ///< [n * ncol] the verdict
  toi_answer **ans;       ///< [ncol][n] answers of the out-of-process columns (NULL for the others)
} rep_section;

/// Kind of a case a candidate gave no usable answer for (crash, hang, NaN,
/// its own failure): counted apart, never scored.
#define REP_FAILED TOI_SCORE_KIND_COUNT
/// Kind of a case a candidate declined (TOI_UNSUPPORTED: not a question it
/// answers): counted apart from the failures, never scored, never a failure.
#define REP_UNSUPPORTED (TOI_SCORE_KIND_COUNT + 1)
/// 1 when kind is a scored case: in the column's domain and answered (neither
/// out of domain, failed nor declined). The misclassification rate's denominator.
static inline int rep_kind_scored(int kind) {
  return kind != TOI_SCORE_OUT_OF_DOMAIN && kind != REP_FAILED && kind != REP_UNSUPPORTED;
}

/// One column of the results: a candidate.
typedef struct rep_col {
  const char *name;
  const char *source;
  const char *summary;
  toi_direction dir;
  unsigned domain;
  const toi_candidate *cand;
} rep_col;

/// Pairwise audit of one formulation (over the suite's exact hits and contacts).
typedef struct rep_audit {
  size_t n;                 ///< audited cases
  double *ke, *mom, *gap, *angle, *vulp; ///< [n] per-case metrics
  size_t *idx;              ///< [n] index of the case in the section
  size_t penetrations;      ///< gap < -1e-12
} rep_audit;

/// Many-ball simulation of one kernel.
typedef struct rep_sim {
  char name[48];
  int ran;                  ///< 0 when the kernel could not run
  char status[64];          ///< how the run ended
  size_t nsamples;
  uint64_t *event;          ///< [nsamples]
  double *ke_err;           ///< [nsamples]
  double drift_per_mevent;  ///< |final ke_err| per 10^6 events
  double final_ke_err;
  uint64_t overlaps, missed, events;
} rep_sim;

/// One engine's run in one scene of the section "Engines in a simulation":
/// the summary of `simulate -f ENGINE --scene SCENE --dim DIM --seed SEED
/// --events EVENTS --every EVERY` and its energy error at each sample.
typedef struct rep_esim {
  char engine[48];
  const char *scene;        ///< the scene's name (static)
  int dim;
  uint64_t seed, asked, every;
  char status[64];          ///< "ok", "idle", or why the run stopped or could not run
  int ran;                  ///< 0: the engine refused the scene (status says why)
  uint64_t events, queries, failed, overlaps, missed;
  double drift;             ///< final ke_err per 10^6 events (sim_report_drift)
  double overlaps_per_mevent, missed_per_mevent, max_pen;
  size_t nsamples;
  uint64_t *event;          ///< [nsamples]
  double *ke_err;           ///< [nsamples]
} rep_esim;

typedef struct rep_opts {
  int quick;
  const char *suite_file;
  const char *out_dir;
  uint64_t seed;
  int jobs;
  const toi_progress *progress; ///< NULL: no progress line
  int engines;              ///< include every built engine
  double timeout;           ///< seconds per answer of an external solver
  toi_ref_engine engine;    ///< the reference engine (--reference)
  const toi_msg *msg;       ///< where errors and solver messages go
  const toi_msg *solver_log; ///< every line the solvers wrote (--solver-log), or NULL
  char command[1024];       ///< the command that reproduces the report
  const char *check_dir;    ///< --check DIR: check that report in a browser instead of making one
  const char *screenshot;   ///< --screenshot FILE (with --check)
} rep_opts;

typedef struct rep_data {
  rep_opts opts;
  /// The precision of the generated sections' numbers (binary64 for the main
  /// report; binary32 for its binary32 part, every number a float).
  toi_precision precision;
  size_t ncand;             ///< the candidates, one column each (built-in ones first)
  const toi_candidate *cands;
  size_t ncol;
  rep_col *cols;
  size_t nsec;
  rep_section sec[4];       ///< sec[0] is the main suite (mixed or the file)
  rep_audit *audit;         ///< [ncol]
  size_t nsim;
  rep_sim *sim;             ///< [nsim]
  size_t nesim;
  rep_esim *esim;           ///< [nesim] the engines in their scenes (none without engines)
  double seconds_esim;      ///< wall seconds those runs took
  /// [ncol] the candidate's own time per call: an in-process one's fastest of
  /// REP_TIMING_REPEATS (report_time_solve), an external one's engine time as it
  /// reported it (toi_run_info engine_ns / engine_calls; NaN when it reported none)
  double *ns_per_call;
  double *ns_median;        ///< [ncol] median of the repeats (NULL, or NaN for a column timed once)
  /// [ncol] an external candidate's wall time per call as the bench measured it
  /// around the whole call (processes, pipe, protocol and engine), NaN for the others
  double *bench_ns;
  /// Each column's messages shown, over every section: the first 20 of a
  /// solver's lines in the whole report, then a count.
  toi_quota *quota;
  double ref_ns_per_call;
  double seconds_eval, seconds_total;
  /// The binary32 part: the binary32 families, scored for every candidate
  /// computing in binary32 (the formulations' binary32 variants, the engines
  /// and solvers declaring it) against the binary32 reference; its own
  /// candidates (owned), no audit nor simulation. NULL when not made.
  struct rep_data *part;
  toi_candidate *own;       ///< candidates this part owns (freed by report_free), or NULL
} rep_data;

/// The sections: the main suite (the cases suite[0..n-1], taken over, or the
/// mixed family when suite is NULL), then the grazing, near-contact and far
/// families; sized by opts.quick. 0 or -1.
int report_sections(rep_data *d, toi_case *suite, size_t n);
/// Evaluates, audits, simulates and times (seconds_total set), then the part
/// (evaluated and timed) when there is one. 0 or -1 (said to opts.msg).
int report_measure(rep_data *d);
/// Makes d->part for precision q: its candidates are every formulation's
/// variant in q (those that have one) and a copy of every external candidate
/// of d computing in q, its sections the families generated in q. 0 (d->part
/// stays NULL when there is no such candidate) or -1 (out of memory).
int report_part(rep_data *d, toi_precision q);
/// Builds the columns from the candidates.
int report_columns(rep_data *d);
/// Evaluates every section against the reference (threads, deterministic).
int report_evaluate(rep_data *d);
/// Pairwise response audits of every forward column on sec[0].
int report_audit(rep_data *d);
/// Runs the many-ball simulation for every forward built-in formulation and the reference.
int report_simulate(rep_data *d);
/// The section "Engines in a simulation": each engine among the candidates
/// that has a scene in the fixed list (report_sim.c) runs it. 0 or -1.
int report_simulate_engines(rep_data *d);
/// Repeats of the timing of an in-process candidate: ns_per_call is their minimum, ns_median their median.
#define REP_TIMING_REPEATS 5
/// Measures ns per call of every in-process candidate and of the reference on sec[0].
/// Every in-process column is timed alike (report_time_solve): its cases are put in
/// its precision once, before the clock starts.
void report_timing(rep_data *d);
/// Times cand's own batch call over in[0..n-1], cases already as cand receives them
/// (in its precision): REP_TIMING_REPEATS passes, each a run of calls of at most 256
/// cases straight to cand->solve (nothing else inside the clock). *best: the fastest
/// pass's ns per case, *median: the median pass's (NaN both when n is 0 or a call fails).
void report_time_solve(const toi_candidate *cand, const toi_case *in, size_t n, double *best, double *median);
/// Writes the report's files into the existing folder dir (data, plots, HTML,
/// Markdown, JSON, the worst cases). 0 or -1 (said to opts.msg). The CLI
/// makes the folder and puts it in place (src/cli/report_place.c).
int report_write_files(const rep_data *d, const char *dir);
void report_free(rep_data *d);

/// Quantile (nearest rank) of v[0..n-1] sorted ascending; NaN if n = 0.
double rep_quantile_sorted(const double *v, size_t n, double q);
/// Sorts a copy of the non-NaN values; returns the count (*out malloc'ed).
size_t rep_sorted_copy(const double *v, size_t n, size_t stride, double **out);

#endif
