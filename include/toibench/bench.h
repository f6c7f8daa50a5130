/* bench.h: scoring candidates over a case list or a generated family: the statistics of a `run` row. */
#ifndef TOI_BENCH_H
#define TOI_BENCH_H

#include <stddef.h>
#include <stdint.h>
#include "candidate.h"
#include "gen.h"
#include "score.h"
#include "toi.h"
#include "toi_msg.h"
#include "toiref.h"

/// Where progress goes: show(ud, what, done, total, seconds, final) is called
/// a few times a second from the thread that started the work, and once more
/// with final = 1 at the end; note(ud, text) is a line of its own (what starts
/// next); status(ud, text) replaces the current status line. The library draws
/// nothing itself.
typedef struct toi_progress {
  void (*show)(void *ud, const char *what, uint64_t done, uint64_t total, double seconds, int final);
  void (*note)(void *ud, const char *text);
  void (*status)(void *ud, const char *text);
  void *ud;
} toi_progress;

/// Options of a scoring run.
typedef struct toi_bench_opts {
  double tmax;           ///< the step (+Inf: none): every candidate scored "hit within the step"
  double delta;          ///< the target of external answers stating none (0: touching)
  double timeout;        ///< seconds per answer of an external candidate
  toi_ref_engine engine; ///< the reference engine
  const toi_msg *msg;    ///< failures, solver messages (NULL: dropped)
  /// One per candidate, carried across the calls of a run made of several
  /// (the blocks of a stream): the failures told and the solver's lines and
  /// messages shown count over every call, the first TOI_FAILURES_SHOWN (and
  /// 20 of each kind) being told in all. NULL: each call tells its own first
  /// ones, and reports what it did not show.
  toi_quota *quota;
} toi_bench_opts;

/// The defaults: no step, target 0, timeout 10 s, the fast engine, no messages, no quota.
TOI_API void toi_bench_opts_init(toi_bench_opts *o);

/// Failure messages shown per candidate; the rest are counted.
#define TOI_FAILURES_SHOWN 20

/// One candidate's row of a run.
typedef struct toi_run_row {
  toi_score_stats st;           ///< against the true contact (the first table)
  size_t failed, unsupported;
  /// A candidate not in binary64: cases whose numbers changed when rounded to
  /// its precision, and cases with a number beyond its range (not given to it,
  /// not scored, not in failed or unsupported).
  size_t inputs_rounded, overflowed;
  toi_run_info info;        ///< crashes, hangs, protocol errors
  /// The failed cases by cause (TOI_CAUSE_NONE: a failure that gave none),
  /// and the ID of the first of each in input order ("" when none).
  size_t fail_causes[TOI_CAUSE_COUNT];
  char first_failed[TOI_CAUSE_COUNT][TOI_ID_MAX + 1];
  /* external candidates: against their target (the second table) */
  double *tulps, *gaps, *devs, *dts;
  size_t ntulps, ngaps, ndevs, ndts, off_tol, have_tol;
  size_t tkind[TOI_SCORE_KIND_COUNT];
  double tmin, tmax_seen, max_gap;
  int targets_seen;
  char worst_gap[TOI_ID_MAX + 1];
} toi_run_row;

/// The summary of a row, as `run` prints it.
typedef struct toi_run_stats {
  size_t cases, agree, missed, ghost, other, timed, out_of_domain, failed, unsupported;
  size_t inputs_rounded, overflowed; ///< as toi_run_row (0 for binary64)
  double median_ulp, p99_ulp, max_ulp, max_bits; ///< NaN when nothing is timed
  char worst_id[TOI_ID_MAX + 1];                 ///< "-" when nothing is timed
} toi_run_stats;

/// Called for every case and candidate, in case order then candidate order:
/// verdict is the class name, or "failed" / "unsupported", or "overflow" for
/// a case beyond the range of the candidate's precision. c is the case as the
/// candidate received it (rounded to its precision) and sc is in its ULPs.
typedef void (*toi_case_row_fn)(void *ud, const toi_case *c, const toi_candidate *cand, const char *verdict,
                                const toi_score_case *sc);

/// Scores cands[0..nc-1] on cases[0..n-1] into rows[0..nc-1] (initialised
/// here; free them with toi_run_rows_free even on failure). Failures of
/// external candidates (the first TOI_FAILURES_SHOWN of the call, or of every
/// call with o->quota) go to o->msg. Returns TOI_OK; when a candidate could
/// not be run, toi_candidate_run's status (what the candidate said went to
/// o->msg); when the reference or the scoring failed, their status (said to
/// o->msg naming the case); TOI_ERR_NOMEM (said to o->msg); TOI_ERR_RANGE for
/// NULL arguments (rows untouched).
TOI_API TOI_MUST_USE toi_status toi_bench_run(toi_run_row *rows, const toi_candidate *cands, size_t nc,
                                              const toi_case *cases, size_t n, const toi_bench_opts *o,
                                              toi_case_row_fn row, void *ud);
/// The same over cases 0 .. count-1 of a generated family (toi_gen_case's
/// status when a case cannot be generated, said to o->msg).
TOI_API TOI_MUST_USE toi_status toi_bench_run_family(toi_run_row *rows, const toi_candidate *cands, size_t nc,
                                                     const toi_gen_opts *g, uint64_t count, const toi_bench_opts *o);
/// After a run: tells o->msg how many failures were not shown and which
/// candidates malfunctioned; returns 1 when one did (crash, hang, protocol),
/// else 0. An answer about the run, not a status: it cannot fail.
TOI_API int toi_run_finish(const toi_run_row *rows, const toi_candidate *cands, size_t nc, const toi_msg *msg);
/// The summary of a row (sorts its ULP errors).
TOI_API void toi_run_row_stats(toi_run_row *row, toi_run_stats *out);
/// The same without the quantiles (median and p99 NaN): row's ULP errors
/// need not be kept (a stream keeps them elsewhere).
TOI_API void toi_run_row_counts(const toi_run_row *row, toi_run_stats *out);
TOI_API void toi_run_rows_free(toi_run_row *rows, size_t nc);

/// What a sweep's stat records say of one candidate, over every bin of a
/// family (see 'toibench sweep --help'): maxima NaN when nothing is timed,
/// kappa range and ratio NaN when no finite kappa was seen.
typedef struct toi_sweep_stats {
  uint64_t cases, in_domain, out_of_domain; ///< out of domain: also the declined and failed cases
  uint64_t agree, missed, ghost, other, timed;
  double max_ulp, max_bits;                 ///< over timed cases
  double kappa_min, kappa_max;              ///< the condition number of t* over timed cases
  uint64_t kappa_inf;                       ///< timed cases with kappa = +Inf
  double max_ratio;                         ///< largest |T - t*| / (kappa 2^-53 |t*| + 2^-1075)
} toi_sweep_stats;

/// Scores cands[0..nc-1] on cases 0 .. count-1 of family g as `toibench
/// sweep` does (in a stream: memory does not grow with count; the numbers do
/// not depend on jobs), into stats[0..nc-1]. Out-of-process candidates are
/// called on blocks of cases from this thread. TOI_OK; TOI_ERR_NOMEM, or
/// TOI_ERR_IO when a candidate could not be run or the reference failed (the
/// reason said to o->msg); TOI_ERR_RANGE for NULL arguments.
TOI_API TOI_MUST_USE toi_status toi_bench_sweep(toi_sweep_stats *stats, const toi_candidate *cands, size_t nc,
                                                const toi_gen_opts *g, uint64_t count, int jobs,
                                                const toi_bench_opts *o);

#endif
