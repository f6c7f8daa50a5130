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
typedef enum score_kind {
  SCORE_AGREE = 0,
  SCORE_MISSED,
  SCORE_GHOST,
  SCORE_OTHER,
  SCORE_OUT_OF_DOMAIN,  ///< exact class outside the formulation's domain
  SCORE_KIND_COUNT
} score_kind;

typedef struct score_case {
  toi_class verdict;  ///< the formulation's verdict
  toi_class ref_cls;  ///< the exact class
  double t;           ///< the formulation's time
  double ref_t;       ///< RN of the exact root in the formulation's direction, or NaN
  score_kind kind;
  int timed;          ///< 1 when the time is scored (agree, and an exact root exists)
  double ulp;         ///< ULP error when timed (+Inf for a NaN time)
  double bits;        ///< bits of error when timed
} score_case;

/// Runs formulation f on case c and scores it against ref (from toi_ref_solve
/// on the same case).
TOI_MUST_USE toi_status score_eval(score_case *out, const toi_formulation *f, const toi_case *c,
                                   const toi_ref *ref);
/// Scores an already computed result r (for external solvers).
TOI_MUST_USE toi_status score_result(score_case *out, toi_result r, toi_direction dir, unsigned domain,
                                     const toi_case *c, const toi_ref *ref);

/// Per-formulation summary of many scored cases (values kept for quantiles).
typedef struct score_stats {
  const char *name;
  size_t cases;                    ///< in-domain cases
  size_t out_of_domain;
  size_t kind[SCORE_KIND_COUNT];
  size_t timed;
  double *ulps;                    ///< timed ULP errors (cases)
  size_t ulps_cap;
  double max_ulp, max_bits;
  char worst_id[TOI_ID_MAX + 1];   ///< case with the largest ULP error
  char worst_class_id[TOI_ID_MAX + 1]; ///< first misclassified case
} score_stats;

void score_stats_init(score_stats *s, const char *name);
TOI_MUST_USE toi_status score_stats_add(score_stats *s, const score_case *sc, const char *id);
/// Quantile q in [0,1] of the timed ULP errors (sorts in place); NaN if none.
double score_stats_quantile(score_stats *s, double q);
void score_stats_free(score_stats *s);

#endif
