/* test_ref_common.c: the case check both engines share (reference/ref_common.c): what is refused, with which status, and what is left of the output. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "gen.h"
#include "ref_common.h"
#include "ref_fast_api.h"
#include "reference_check.h"
#include "ref_forms.h"
#include "ref_cases.h"

Test(reference_input, refused) {
  toi_case good = tr_rel2(-10, 3, 1, 0, 1, 4), c;
  toi_ref r;
  double u, b, k;
  c = good, c.dim = 4;
  cr_expect_eq(tr_solve_engine(&r, &c, TOI_REF_FAST), TOI_ERR_INPUT);
  c = good, c.pb[1] = NAN;
  cr_expect_eq(tr_solve_engine(&r, &c, TOI_REF_FAST), TOI_ERR_INPUT);
  c = good, c.va[0] = -INFINITY;
  cr_expect_eq(tr_solve_engine(&r, &c, TOI_REF_FAST), TOI_ERR_INPUT);
  c = good, c.ra = -1;
  cr_expect_eq(tr_solve_engine(&r, &c, TOI_REF_FAST), TOI_ERR_INPUT);
  c = good, c.pb[2] = 1; /* a 2D case with a third component */
  cr_expect_eq(tr_solve_engine(&r, &c, TOI_REF_FAST), TOI_ERR_INPUT);
  cr_expect_eq(tr_error_engine(&u, &b, 6, &c, TOI_FORWARD, TOI_REF_FAST), TOI_ERR_INPUT);
  cr_expect(isnan(u) && isnan(b));
  cr_expect_eq(tr_kappa_engine(&k, &c, TOI_FORWARD, TOI_REF_FAST), TOI_ERR_INPUT);
  cr_expect(isnan(k));
  cr_expect_eq(tr_solve_engine(&r, NULL, TOI_REF_FAST), TOI_ERR_INPUT);
  cr_expect_eq(tr_solve_engine(NULL, &good, TOI_REF_FAST), TOI_ERR_RANGE);
  cr_expect_eq(tr_error_engine(&u, &b, 6, &good, (toi_direction)7, TOI_REF_FAST), TOI_ERR_RANGE);
  cr_expect_eq(tr_kappa_engine(&k, &good, (toi_direction)-1, TOI_REF_FAST), TOI_ERR_RANGE);
  /* -0.0 is a legal radius. */
  c = good, c.ra = -0.0;
  cr_expect_eq(tr_solve_engine(&r, &c, TOI_REF_FAST), TOI_OK);
}

Test(ref_fast, invalid_inputs_same_status_and_cleared_output) {
  toi_case good = tr_rel2(5, 0, -1, 0, 1, 2);
  toi_case bad[8];
  for (int i = 0; i < 8; i++) bad[i] = good;
  bad[0].pa[0] = NAN;
  bad[1].vb[1] = INFINITY;
  bad[2].ra = -1;
  bad[3].rb = NAN;
  bad[4].dim = 4;
  bad[5].pb[2] = 1; /* 2D with a third component */
  bad[6].va[0] = -INFINITY;
  bad[7].dim = 1;
  for (int i = 0; i < 8; i++) {
    char where[32];
    snprintf(where, sizeof where, "bad case %d", i);
    cr_expect_eq(rf_check(&bad[i], NULL, where), TOI_ERR_INPUT, "%s", where);
    /* An invalid case is refused as such whatever the target. */
    double deltas[] = {0.0, -100.0, INFINITY, NAN};
    for (int k = 0; k < 4; k++) cr_expect_eq(rf_check(&bad[i], &deltas[k], where), TOI_ERR_INPUT, "%s", where);
  }
  double inf = INFINITY;
  cr_expect_eq(rf_check(&good, &inf, "infinite delta"), TOI_ERR_RANGE);
  cr_expect_eq(tr_solve_engine(NULL, &good, TOI_REF_FAST), TOI_ERR_RANGE);
  toi_ref r;
  cr_expect_eq(tr_solve_engine(&r, &good, (toi_ref_engine)7), TOI_ERR_RANGE);
}
