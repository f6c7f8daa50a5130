/* score.h: scoring one formulation's answer against the certified reference. */
#ifndef TOI_SCORE_H
#define TOI_SCORE_H

#include "toi.h"
#include "toiref.h"

/// How a verdict compares with the exact answer.
///
/// Forward formulations: verdicts and exact classes fall in three groups:
/// no contact {none, miss, separating, static}, contact {hit, graze, contact}
/// and overlap {overlap}. Same group: agree. Exact contact but a no-contact
/// verdict: missed. Exact no contact but a contact or overlap verdict: ghost.
/// Any other disagreement (an exact overlap reported as no contact or as a
/// contact, an exact contact reported as an overlap): other.
/// Reverse formulations: the exact answer "has a reverse contact" when the
/// largest root <= 0 exists; the verdict claims one unless it is in the
/// no-contact group. missed / ghost as above.
typedef enum toi_score_kind {
  TOI_SCORE_AGREE = 0,
  TOI_SCORE_MISSED,
  TOI_SCORE_GHOST,
  TOI_SCORE_OTHER,
  TOI_SCORE_OUT_OF_DOMAIN,  ///< exact class outside the formulation's domain
  TOI_SCORE_KIND_COUNT
} toi_score_kind;

typedef struct toi_score_case {
  toi_class verdict;  ///< the formulation's verdict
  toi_class ref_cls;  ///< the exact class
  double t;           ///< the formulation's time
  double ref_t;       ///< RN of the exact root in the formulation's direction, or NaN
  toi_score_kind kind;
  int timed;          ///< 1 when the time is scored (agree, and an exact root exists)
  double ulp;         ///< ULP error when timed (+Inf for a NaN time)
  double bits;        ///< bits of error when timed
  toi_fail_cause cause; ///< for a case without an answer (a solver's failure): why; else TOI_CAUSE_NONE
} toi_score_case;

/// How an answer is scored.
typedef struct toi_score_opts {
  double tmax;           ///< the step: finite scores "hit within the step"; +Inf: no step
  double target;         ///< the separation aimed at (0: touching)
  double tolerance;      ///< the tolerance claimed (0: none)
  int with_target;       ///< 1: also score against the target (the toi_score_detail fields after sc)
  toi_ref_engine engine; ///< the reference engine for the error measures
  /// The candidate's precision (0, binary64, when left out of an initializer):
  /// c is then the case as it received it (toi_candidate_input), ref its exact
  /// answer in that precision (toi_ref_solve), and ULPs and bits are
  /// measured in it.
  toi_precision precision;
  /// c prepared for the error measures (toi_ref_prepare on c with engine),
  /// owned by the caller, or NULL (each measure then prepares c for itself):
  /// scoring several answers to one case, pass the same prepared case.
  /// Written by the measures: one thread at a time.
  toi_ref_prepared *prepared;
} toi_score_opts;

/// An answer's score: against the true contact, and against its target.
typedef struct toi_score_detail {
  toi_score_case sc;      ///< against the true contact (with the step when tmax is finite)
  double gap;         ///< |s + v T| - R at the returned time, NaN when not timed
  double target;      ///< the target scored against
  /// The verdict against the exact class of |s + v t| = R + target (with the
  /// step): agree, missed, ghost or other; TOI_SCORE_OUT_OF_DOMAIN when R + target
  /// < 0, for a reverse direction, or without with_target.
  toi_score_kind target_kind;
  int target_timed;   ///< 1 when the time was scored against the target root
  double target_ulp;  ///< ULP error against the target root
  double target_dt;   ///< |T - t_target|
  int off_tolerance;  ///< 1 when |gap - target| exceeds a claimed tolerance > 0
} toi_score_detail;

/// Scores result r of a candidate with direction dir and domain mask against
/// ref (the exact answer of case c in o->precision, from the same engine): the
/// one scoring path of run, sweep, hunt and the report. Thread-safe when
/// o->prepared is NULL or used by this thread alone.
TOI_API TOI_MUST_USE toi_status toi_score_answer(toi_score_detail *out, toi_result r, toi_direction dir, unsigned domain,
                                     const toi_case *c, const toi_ref *ref, const toi_score_opts *o);
/// The case c as a candidate computing in q receives it, into *in
/// (toi_candidate_input), what rounding did into *state, and its exact answer
/// in q into *ref (binary64: toi_ref_solve on c itself, else toi_ref_solve in
/// q on *in; not set when *state is TOI_ROUND_OVERFLOW: out of the
/// candidate's domain). TOI_OK, or toi_ref_solve's status when the reference
/// failed (TOI_ERR_INPUT for a case it refuses), TOI_ERR_RANGE for NULL
/// arguments.
TOI_API TOI_MUST_USE toi_status toi_score_input(toi_case *in, toi_ref *ref, toi_round_state *state, const toi_case *c,
                                                toi_precision q, toi_ref_engine e);
/// |s + v T| - (rA + rB) in double-double arithmetic, rounded once to double.
TOI_API double toi_score_gap(const toi_case *c, double T);

/// Per-formulation summary of many scored cases (values kept for quantiles).
typedef struct toi_score_stats {
  const char *name;
  size_t cases;                    ///< in-domain cases
  size_t out_of_domain;
  size_t kind[TOI_SCORE_KIND_COUNT];
  size_t timed;
  double *ulps;                    ///< timed ULP errors (cases)
  size_t ulps_cap;
  double max_ulp, max_bits;
  char worst_id[TOI_ID_MAX + 1];   ///< case with the largest ULP error
  char worst_class_id[TOI_ID_MAX + 1]; ///< first misclassified case
} toi_score_stats;

TOI_API void toi_score_stats_init(toi_score_stats *s, const char *name);
TOI_API TOI_MUST_USE toi_status toi_score_stats_add(toi_score_stats *s, const toi_score_case *sc, const char *id);
/// Quantile q in [0,1] of the timed ULP errors (sorts in place); NaN if none.
TOI_API double toi_score_stats_quantile(toi_score_stats *s, double q);
TOI_API void toi_score_stats_free(toi_score_stats *s);

#endif
