/* audit.h: the response audit: each formulation's collision response (double or float) against the exact one. */
#ifndef TOI_AUDIT_H
#define TOI_AUDIT_H

#include <stddef.h>
#include "toi.h"
#include "precision.h"
#include "toi_msg.h"
#include "toiresp.h"

/// A gap below -TOI_AUDIT_PENETRATION (relative to R) counts as a penetration.
#define TOI_AUDIT_PENETRATION (1e-12)

/// The metrics of the summary, in its order.
enum { TOI_AUDIT_GAP, TOI_AUDIT_KE, TOI_AUDIT_MOM, TOI_AUDIT_ANGLE, TOI_AUDIT_ULP, TOI_AUDIT_METRICS };

/// "gap", "ke_err", "mom_err", "angle", "ulp_max".
const char *toi_audit_metric_name(int metric);

/// One audited pair of a case and a formulation, as it is computed.
typedef struct toi_audit_row {
  const toi_case *c;
  size_t case_index;          ///< index of c in the case list
  const toi_formulation *f;
  toi_class cls;              ///< the reference's class of the case (hit or contact)
  double t;                   ///< the formulation's time of impact
  toi_resp_audit a;           ///< the metrics of its response (ULPs in the audit's precision)
} toi_audit_row;

/// |metric| over the audited cases of one formulation, NaN values left out.
typedef struct toi_audit_stat {
  size_t n;                   ///< values that are not NaN (0: no statistic)
  double median, p99, max;    ///< nearest rank (toi_quantile_index)
  size_t max_case;            ///< case reaching max (the highest index among equal values)
} toi_audit_stat;

/// What the audit found for one formulation.
typedef struct toi_audit_form {
  const toi_formulation *f;
  size_t audited;             ///< contacts it reported whose response was audited
  size_t not_reported;        ///< exact contacts it did not report as a contact with a finite T
  size_t failed;              ///< responses without a normal (coincident centres at T)
  size_t penetrations;        ///< gaps below -TOI_AUDIT_PENETRATION
  size_t nonfinite;           ///< audited responses with a non-finite position, normal or velocity
  size_t first_nonfinite;     ///< case index of the first of those
  double min_gap;             ///< most negative gap (NaN: none audited)
  size_t min_gap_case;        ///< its case index
  toi_audit_stat stat[TOI_AUDIT_METRICS];
} toi_audit_form;

/// The audit of a case list.
typedef struct toi_audit {
  double restitution;
  toi_precision precision;    ///< the precision the formulations and the pipeline ran in
  size_t cases;               ///< cases in the list
  size_t rounded;             ///< cases whose numbers changed when rounded to the precision
  size_t unrepresentable;     ///< cases left out: a number overflowed or a mass vanished there
  size_t contacts;            ///< cases the reference classifies as hit or contact
  int nforms;
  toi_audit_form *forms;      ///< nforms entries, malloc'ed
} toi_audit;

/// For every case the reference classifies as hit or contact and every
/// formulation of fs (forward ones) that reports a contact with a finite T:
/// the double response at T (toi_response_compute) audited against the exact
/// one (toi_ref_response_audit) with restitution E. on_row (may be NULL)
/// receives each audited pair in case order, then formulation order. Returns
/// TOI_OK with the statistics in *out (toi_audit_free it), TOI_ERR_NOMEM, or
/// TOI_ERR_RANGE when the reference fails on a case (a message through msg
/// names the case); out is then left empty.
TOI_MUST_USE toi_status toi_audit_run(toi_audit *out, const toi_caselist *list,
                                      const toi_formulation *const *fs, int nf, double E,
                                      void (*on_row)(void *ctx, const toi_audit_row *row),
                                      void *ctx, const toi_msg *msg);

/// toi_audit_run in precision q. Every case is first rounded to q
/// (toi_case_round; cases with a number overflowing or a mass rounding to 0
/// are counted in unrepresentable and left out); the reference's class and
/// the exact response are those of the ROUNDED case, so the rounding of the
/// inputs is never charged to the pipeline. Each formulation's variant in q
/// (toi_formulation_solver; a formulation without one reports nothing) gives
/// T, and the pipeline in q (toi_response_pipeline) computes the response.
/// Gap, energy and momentum errors (relative) and the angle are measured as
/// in binary64; the velocity errors are in ULPs of q: ulp_q(x) =
/// 2^(max(min(e, emax), emin) - p + 1), with e the binade of the exact
/// velocity rounded to double (off by one only when that rounding reaches a
/// power of two from below, which changes the figure by 2 only beyond q's
/// normal range). TOI_BINARY64 is toi_audit_run, bit for bit.
TOI_MUST_USE toi_status toi_audit_run_prec(toi_audit *out, const toi_caselist *list,
                                           const toi_formulation *const *fs, int nf, double E,
                                           toi_precision q,
                                           void (*on_row)(void *ctx, const toi_audit_row *row),
                                           void *ctx, const toi_msg *msg);

void toi_audit_free(toi_audit *a);

#endif
