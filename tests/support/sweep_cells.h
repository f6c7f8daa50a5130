/* sweep_cells.h: two sweep cells compared statistic by statistic, bit for bit. */
#ifndef TOI_SWEEP_CELLS_H
#define TOI_SWEEP_CELLS_H

#include <criterion/criterion.h>
#include <string.h>
#include "sweep.h"
#include "test_env.h"

/* Every statistic of two cells, bit for bit; the witnesses by their numbers, and by their cases' centres
   too when cases is set (a cell filled from generated cases keeps them). */
static inline void tc_same_cell(const sweep_cell *x, const sweep_cell *y, const char *what, int cases) {
  cr_assert_eq(x->cases, y->cases, "%s: cases", what);
  cr_assert_eq(x->timed, y->timed, "%s: timed", what);
  cr_assert_eq(x->kinf, y->kinf, "%s: kinf", what);
  cr_assert(!memcmp(x->kind, y->kind, sizeof x->kind), "%s: kinds", what);
  cr_assert(!memcmp(x->confusion, y->confusion, sizeof x->confusion), "%s: confusion", what);
  cr_assert(!memcmp(x->hist, y->hist, sizeof x->hist), "%s: histogram", what);
  cr_assert(!memcmp(x->khist, y->khist, sizeof x->khist), "%s: kappa histogram", what);
  const double a[5] = {x->max_ulp, x->max_bits, x->kmin, x->kmax, x->max_ratio};
  const double b[5] = {y->max_ulp, y->max_bits, y->kmin, y->kmax, y->max_ratio};
  for (int i = 0; i < 5; i++) cr_assert_eq(te_bits(a[i]), te_bits(b[i]), "%s: field %d %a, not %a", what, i, a[i], b[i]);
  for (int w = 0; w < SW_WHAT_COUNT; w++) {
    cr_assert_eq(x->w[w].set, y->w[w].set, "%s: witness %d", what, w);
    if (!x->w[w].set) continue;
    cr_assert_eq(x->w[w].index, y->w[w].index, "%s: witness %d index", what, w);
    cr_assert_eq(te_bits(x->w[w].value), te_bits(y->w[w].value), "%s: witness %d value", what, w);
    cr_assert_eq(te_bits(x->w[w].aux), te_bits(y->w[w].aux), "%s: witness %d aux", what, w);
    if (cases) cr_assert(!memcmp(x->w[w].c.pa, y->w[w].c.pa, sizeof x->w[w].c.pa), "%s: witness %d case", what, w);
  }
}

#endif
