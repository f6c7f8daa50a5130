/* replay.h: scores one formulation on one case with the scoring of src/bench/score.c, for the sweep and worst tests. */
#ifndef TOI_TEST_REPLAY_H
#define TOI_TEST_REPLAY_H

#include <math.h>
#include "score.h"
#include "toi.h"
#include "toiref.h"
#include "ref_forms.h"

/* Outcome kinds as the sweep and hunt outputs spell them: written out here,
   not taken from the writers, so that a renamed kind fails the tests. */
static const char *const rp_kind_names[TOI_SCORE_KIND_COUNT] = {"agree", "missed", "ghost", "other",
                                                            "out-of-domain"};

/* Solves c with the reference and scores f on it as sweep and hunt do.
   0, or -1 when the reference or the error measurement fails. */
static inline int replay_case(toi_score_case *r, const toi_formulation *f, const toi_case *c) {
  toi_ref ref;
  if (tr_solve_engine(&ref, c, TOI_REF_FAST) != TOI_OK) return -1;
  toi_score_opts o = {INFINITY, 0, 0, 0, TOI_REF_FAST, TOI_BINARY64, NULL};
  toi_score_detail d;
  if (toi_score_answer(&d, f->solve(c), f->direction, f->domain, c, &ref, &o) != TOI_OK) return -1;
  *r = d.sc;
  return 0;
}

#endif
