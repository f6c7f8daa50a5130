/* test_sweep_span.c: a span scored from the columns' score tables (sweep_eval_span) gives the accumulator of its
   cases scored one by one the general way (sweep_eval_case_given), on every family, with every formulation, answers
   near the root, NaN, declined, not a class, in any order, with and without a step. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gen.h"
#include "sweep.h"
#include "toiref.h"
#include "test_env.h"
#include "sweep_cells.h"

enum { SPAN_N = SWEEP_SPAN_MAX, MAXC = 24 };

/* ulp(x) in binary64 for a normal x. */
static double ulp64(double x) {
  int e;
  (void)frexp(x, &e);
  return ldexp(1, e - 53);
}

/* The last column's answers made up from the reference's root R of each case: R + k u for k in -4 .. 4 (the
   bins' edges near the root), R + 2^20 u, R + k u for k = 3, -5, 2^20 + 1 and -(2^33 + 7) (error enclosures
   whose ends share a bin), the root's negative, NaN, declined, a verdict that is no class, the exact class with
   the root, R 2^3 and R 2^-3 (other binades), R + 2^1001 u (beyond the offset's range), +Inf, -Inf: every way an
   answer can go, each in turn. */
static void made_up(sweep_answer *col, const toi_ref *ref, const toi_status *st, size_t n, int dir, uint64_t seed) {
  for (size_t k = 0; k < n; k++) {
    sweep_answer *a = &col[k];
    double R = dir ? ref[k].trev : ref[k].tfwd;
    unsigned pick = (unsigned)((k * 2654435761u + seed) % 24);
    a->state = TOI_ANSWERED;
    a->r.cls = st[k] == TOI_OK ? ref[k].cls : TOI_HIT;
    if (pick < 9 && isfinite(R) && R != 0)
      a->r.t = R + ((double)pick - 4) * ulp64(R);
    else if (pick == 9 && isfinite(R) && R != 0)
      a->r.t = R + 0x1p20 * ulp64(R);
    else if (pick == 10)
      a->r.t = -R;
    else if (pick == 11)
      a->r.t = NAN;
    else if (pick == 12)
      a->state = TOI_UNSUPPORTED;
    else if (pick == 13)
      a->r.cls = (toi_class)(TOI_CLASS_COUNT + 3);
    else if (pick == 16)
      a->r.t = ldexp(R, 3);
    else if (pick == 17)
      a->r.t = ldexp(R, -3);
    else if (pick == 18 && isfinite(R) && R != 0)
      a->r.t = R + 0x1p1001 * ulp64(R);
    else if (pick == 19)
      a->r.t = INFINITY;
    else if (pick == 15)
      a->r.t = -INFINITY;
    else if (pick >= 20 && isfinite(R) && R != 0)
      a->r.t = R + (pick == 20 ? 3 : pick == 21 ? -5 : pick == 22 ? 0x1p20 + 1 : -(0x1p33 + 7)) * ulp64(R);
    else
      a->r.t = R;
  }
}

/* One family: spans of SPAN_N cases, in index order and shuffled, into one accumulator by sweep_eval_span and
   into another case by case; then every cell and bin count compared. */
static void check_family(const char *family, const toi_candidate *cands, size_t nc, double tmax, uint64_t seed) {
  toi_gen_opts o;
  toi_gen_family fam;
  cr_assert_eq(toi_gen_family_parse(&fam, family), TOI_OK);
  toi_gen_opts_default(&o, fam);
  o.seed = seed;
  size_t nb = toi_gen_bin_count(&o);
  sweep_acc span, one;
  cr_assert_eq(sweep_acc_init(&span, nc, nb), 0);
  cr_assert_eq(sweep_acc_init(&one, nc, nb), 0);
  static toi_case cases[SPAN_N];
  static size_t bins[SPAN_N];
  static toi_ref ref[SPAN_N];
  static toi_status st[SPAN_N];
  static toi_answer out[SPAN_N];
  static sweep_answer ans[MAXC * SPAN_N];
  uint16_t order[SPAN_N];
  for (int s = 0; s < 4; s++) {
    uint64_t lo = (uint64_t)s * SPAN_N;
    size_t n = s == 3 ? SPAN_N - 37 : SPAN_N; /* a short span too */
    cr_assert_eq(toi_gen_cases(cases, bins, &o, lo, n, 0), TOI_OK);
    toi_ref_query rq = TOI_REF_QUERY_INIT;
    toi_status bst = toi_ref_solve_batch(ref, st, cases, n, &rq, NULL); /* each case's status in st */
    (void)bst;
    for (size_t j = 0; j + 1 < nc; j++) {
      toi_run_info info;
      cr_assert_eq(toi_candidate_run(&cands[j], cases, n, NULL, out, &info), TOI_OK);
      for (size_t k = 0; k < n; k++) ans[j * SPAN_N + k].state = (int)out[k].state, ans[j * SPAN_N + k].r = out[k].r;
    }
    made_up(&ans[(nc - 1) * SPAN_N], ref, st, n, cands[nc - 1].direction == TOI_REVERSE, seed + (uint64_t)s);
    for (size_t k = 0; k < n; k++) order[k] = (uint16_t)k;
    if (s & 1) /* shuffled */
      for (size_t k = n - 1; k > 0; k--) {
        size_t r = (size_t)((k * 40503u + seed) % (k + 1));
        uint16_t t = order[k];
        order[k] = order[r], order[r] = t;
      }
    size_t fail = 0;
    cr_assert_eq(sweep_eval_span(&span, cands, nc, ans, SPAN_N, tmax, cases, bins, order, n, lo, TOI_REF_FAST, ref,
                                 st, &fail),
                 TOI_OK, "%s span %d", family, s);
    cr_assert_eq(fail, n);
    for (size_t k = 0; k < n; k++) {
      cr_assert_eq(st[k], TOI_OK);
      cr_assert_eq(sweep_eval_case_given(&one, cands, nc, &ans[k], SPAN_N, tmax, &cases[k], bins[k], lo + k,
                                         TOI_REF_FAST, &ref[k]),
                   TOI_OK, "%s case %zu", family, (size_t)lo + k);
    }
  }
  uint64_t timed = 0;
  for (size_t b = 0; b < nb; b++) {
    cr_assert_eq(span.bincount[b], one.bincount[b], "%s bin %zu", family, b);
    cr_assert(!memcmp(&span.bincls[b * TOI_CLASS_COUNT], &one.bincls[b * TOI_CLASS_COUNT],
                      TOI_CLASS_COUNT * sizeof *span.bincls),
              "%s bin %zu classes", family, b);
  }
  for (size_t j = 0; j < nc; j++)
    for (size_t b = 0; b < nb; b++) {
      char what[96];
      snprintf(what, sizeof what, "%s column %zu (%s) bin %zu", family, j, cands[j].name, b);
      tc_same_cell(&span.cells[j * nb + b], &one.cells[j * nb + b], what, 1);
      timed += one.cells[j * nb + b].timed;
    }
  cr_assert_gt(timed, 0, "%s: timed answers", family);
  sweep_acc_free(&span);
  sweep_acc_free(&one);
}

/* Every formulation in binary64, a few in binary32, and a made-up column (the last) in the direction of the
   formulation before it. */
static size_t columns(toi_candidate *cands, int reverse_last) {
  size_t nf, nc = 0;
  const toi_formulation *fs = toi_formulations(&nf);
  for (size_t i = 0; i < nf && nc < MAXC - 4; i++) toi_candidate_formulation(&cands[nc++], &fs[i]);
  static const char *const f32[] = {"accurate", "ericson"};
  for (int i = 0; i < 2; i++)
    cr_assert_eq(toi_candidate_formulation_prec(&cands[nc++], toi_formulation_find(f32[i]), TOI_BINARY32), TOI_OK);
  toi_candidate_formulation(&cands[nc++], toi_formulation_find(reverse_last ? "phet-reverse" : "accurate"));
  return nc;
}

Test(sweep_span, as_case_by_case_every_family) {
  toi_candidate cands[MAXC];
  static const char *const fams[] = {"generic", "aimed", "grazing", "near-contact", "far", "slow", "scale", "tangent",
                                     "mixed"};
  for (size_t f = 0; f < sizeof fams / sizeof fams[0]; f++) {
    size_t nc = columns(cands, (int)(f & 1));
    check_family(fams[f], cands, nc, INFINITY, te_seed(41 + f));
  }
}

Test(sweep_span, as_case_by_case_with_a_step) {
  toi_candidate cands[MAXC];
  size_t nc = columns(cands, 1);
  check_family("mixed", cands, nc, 2.0, te_seed(7));
  check_family("grazing", cands, nc, 0.5, te_seed(8));
}

/* A case the reference did not solve fails the span with TOI_ERR_RANGE at the lowest such index in the order,
   as case by case. */
Test(sweep_span, failure_of_the_lowest_index) {
  toi_candidate cands[MAXC];
  size_t nc = columns(cands, 0);
  toi_gen_opts o;
  toi_gen_family fam;
  cr_assert_eq(toi_gen_family_parse(&fam, "mixed"), TOI_OK);
  toi_gen_opts_default(&o, fam);
  enum { N = 64 };
  toi_case cases[N];
  size_t bins[N];
  toi_ref ref[N];
  toi_status st[N];
  sweep_answer ans[MAXC * N];
  uint16_t order[N];
  cr_assert_eq(toi_gen_cases(cases, bins, &o, 0, N, 0), TOI_OK);
  toi_ref_query rq = TOI_REF_QUERY_INIT;
  cr_assert_eq(toi_ref_solve_batch(ref, st, cases, N, &rq, NULL), TOI_OK);
  for (size_t j = 0; j < nc * N; j++) ans[j].state = TOI_ANSWERED, ans[j].r.cls = TOI_NONE, ans[j].r.t = NAN;
  for (size_t k = 0; k < N; k++) order[k] = (uint16_t)(N - 1 - k);
  st[40] = st[17] = TOI_ERR_INPUT;
  sweep_acc acc;
  cr_assert_eq(sweep_acc_init(&acc, nc, toi_gen_bin_count(&o)), 0);
  size_t fail = 0;
  cr_assert_eq(sweep_eval_span(&acc, cands, nc, ans, N, INFINITY, cases, bins, order, N, 0, TOI_REF_FAST, ref, st, &fail),
               TOI_ERR_RANGE);
  cr_assert_eq(fail, 17);
  sweep_acc_free(&acc);
}

/* Infinite answers to a root R that is finite: the reference's error and bits are +Inf (the MPFR engine's,
   checked here on some of them), as for a NaN time, so a span places them as it places NaN times, from
   kappa's enclosure alone, and gives the accumulator of the cases scored one by one the general way (which
   measures them); the span measures far fewer of them itself (the first in a cell sets its largest ratio
   and figures, the rest are placed). */
Test(sweep_span, infinite_answers) {
  toi_candidate cands[2];
  toi_candidate_formulation(&cands[0], toi_formulation_find("accurate"));
  toi_candidate_formulation(&cands[1], toi_formulation_find("phet-reverse"));
  static const char *const fams[] = {"aimed", "mixed"};
  enum { N = SPAN_N };
  static toi_case cases[N];
  static size_t bins[N];
  static toi_ref ref[N];
  static toi_status st[N];
  static sweep_answer ans[2 * N];
  uint16_t order[N];
  for (size_t f = 0; f < 2; f++) {
    toi_gen_opts o;
    toi_gen_family fam;
    cr_assert_eq(toi_gen_family_parse(&fam, fams[f]), TOI_OK);
    toi_gen_opts_default(&o, fam);
    o.seed = te_seed(91 + f);
    size_t nb = toi_gen_bin_count(&o);
    sweep_acc span, one;
    cr_assert_eq(sweep_acc_init(&span, 2, nb), 0);
    cr_assert_eq(sweep_acc_init(&one, 2, nb), 0);
    size_t infinite = 0, checked = 0;
    for (int s = 0; s < 3; s++) {
      uint64_t lo = (uint64_t)s * N;
      cr_assert_eq(toi_gen_cases(cases, bins, &o, lo, N, 0), TOI_OK);
      toi_ref_query rq = TOI_REF_QUERY_INIT;
      toi_status bst = toi_ref_solve_batch(ref, st, cases, N, &rq, NULL);
      (void)bst;
      for (size_t k = 0; k < N; k++) {
        cr_assert_eq(st[k], TOI_OK);
        for (int j = 0; j < 2; j++) {
          sweep_answer *a = &ans[(size_t)j * N + k];
          const double R = j ? ref[k].trev : ref[k].tfwd;
          a->state = TOI_ANSWERED;
          a->r.cls = ref[k].cls;
          a->r.t = (k + (size_t)j) & 1 ? INFINITY : -INFINITY;
          if (isnan(R) || !isfinite(R)) continue;
          infinite++;
          if (k % 7 == 0) { /* the error the claim rests on, from MPFR */
            toi_ref_query eq = TOI_REF_QUERY_INIT;
            toi_ref_error_result er;
            eq.c = &cases[k], eq.engine = TOI_REF_MPFR, eq.dir = j ? TOI_REVERSE : TOI_FORWARD, eq.T = a->r.t;
            cr_assert_eq(toi_ref_error(&er, &eq), TOI_OK);
            cr_assert(er.ulp == INFINITY && er.bits == INFINITY, "%s case %zu: ulp %g bits %g", fams[f],
                      (size_t)lo + k, er.ulp, er.bits);
            checked++;
          }
        }
        order[k] = (uint16_t)k;
      }
      size_t fail = 0;
      cr_assert_eq(sweep_eval_span(&span, cands, 2, ans, N, INFINITY, cases, bins, order, N, lo, TOI_REF_FAST, ref, st,
                                   &fail),
                   TOI_OK);
      for (size_t k = 0; k < N; k++)
        cr_assert_eq(sweep_eval_case_given(&one, cands, 2, &ans[k], N, INFINITY, &cases[k], bins[k], lo + k,
                                           TOI_REF_FAST, &ref[k]),
                     TOI_OK);
    }
    cr_assert_gt(checked, 4, "%s: %zu errors checked", fams[f], checked);
    for (size_t j = 0; j < 2; j++)
      for (size_t b = 0; b < nb; b++) {
        char what[96];
        snprintf(what, sizeof what, "%s column %zu bin %zu", fams[f], j, b);
        tc_same_cell(&span.cells[j * nb + b], &one.cells[j * nb + b], what, 1);
      }
    /* every timed infinite answer is measured case by case (some of the answers to a root are not timed: an
       overlap's exit time); the span measures only those kappa's enclosure leaves */
    const uint64_t all = one.lazy.placed[SWEEP_BY_EXACT], left = span.lazy.placed[SWEEP_BY_EXACT];
    cr_assert(all > infinite / 2 && all <= infinite, "%s: %llu of %zu measured", fams[f], (unsigned long long)all,
              infinite);
    cr_assert_lt(left * 4, all, "%s: the span measured %llu of %llu", fams[f], (unsigned long long)left,
                 (unsigned long long)all);
    cr_log_info("%s: %zu infinite answers to a root, %llu timed, the span measured %llu", fams[f], infinite,
                (unsigned long long)all, (unsigned long long)left);
    sweep_acc_free(&span);
    sweep_acc_free(&one);
  }
}

/* Constructed cases whose roots round to 0 or overflow: along x, ball B at X from A (radii r in all, X - r the
   gap), closing at speed V, so the lower root is (X - r) / V, exactly for y = 0 and irrational with a y offset.
   Kind 0: X - r = 2^-501, V about 2^574, a root near 2^-1075 (just below, at it, and far below: R = 0, the
   error |t*| 2^1074 near 1/2 or tiny); kind 1: the same with a y offset (irrational roots); kind 2: the balls
   overlapping by 2^-501, so the reverse root is a tiny negative one (R = -0); kind 3: X - r = 2^100 and V
   about 2^-924 or less, a root at or beyond 2^1024 (R = +Inf). */
static void tiny_or_huge(toi_case *c, size_t k) {
  memset(c, 0, sizeof *c);
  c->dim = 3;
  c->ma = c->mb = 1;
  const int kind = (int)(k % 4);
  const double frac[6] = {1, 1 + 0x1p-50, 1 + 0x1p-60, 3, 1.75, 0x1p40};
  const double f = frac[(k / 4) % 6];
  if (kind < 3) {
    c->ra = c->rb = 0x1p-501; /* r = 2^-500 */
    c->pb[0] = kind == 2 ? 0x1p-500 - 0x1p-501 : 0x1p-500 + 0x1p-501;
    if (kind == 1) c->pb[1] = ldexp(1 + (double)(k % 7), -530);
    c->vb[0] = -0x1p574 * f;
    c->va[1] = kind == 1 ? ldexp((double)(k % 5), 560) : 0;
  } else {
    c->ra = c->rb = 0x1p99; /* r = 2^100 */
    c->pb[0] = 0x1p101;
    c->pb[2] = (k / 4) % 2 ? 0x1p60 : 0;
    c->vb[0] = -0x1p-924 / f;
  }
}

/* Answers to roots that round to 0 (below 2^-1075) or overflow, placed by the span from the reference's
   enclosure of the error on the prepared case (an infinite answer equal to an infinite root: error and bits 0)
   give the accumulator of the cases scored one by one the general way; the premises from the MPFR engine:
   the error of an answer equal to an infinite root is 0 and its bits 0, that of 0 to a root that rounds to 0
   is |t*| 2^1074, in [0, 1/2], with bits 0. */
Test(sweep_span, roots_rounding_to_zero_or_overflowing) {
  toi_candidate cands[3];
  toi_candidate_formulation(&cands[0], toi_formulation_find("accurate"));
  toi_candidate_formulation(&cands[1], toi_formulation_find("accurate"));
  toi_candidate_formulation(&cands[2], toi_formulation_find("phet-reverse"));
  enum { N = 240, NB = 3 };
  static toi_case cases[N];
  static size_t bins[N];
  static toi_ref ref[N];
  static toi_status st[N];
  static sweep_answer ans[3 * N];
  static toi_answer out[N];
  uint16_t order[N];
  const double picks[] = {0, 0, -0.0, 0x1p-1074, -0x1p-1074, 0x1p-1060, 0x1p-1022, 1, 0x1.fffffffffffffp+1023,
                          INFINITY, -INFINITY, NAN};
  const size_t np = sizeof picks / sizeof picks[0];
  for (size_t k = 0; k < N; k++) tiny_or_huge(&cases[k], k), bins[k] = k % NB, order[k] = (uint16_t)(N - 1 - k);
  toi_ref_query rq = TOI_REF_QUERY_INIT;
  cr_assert_eq(toi_ref_solve_batch(ref, st, cases, N, &rq, NULL), TOI_OK);
  toi_run_info info;
  cr_assert_eq(toi_candidate_run(&cands[0], cases, N, NULL, out, &info), TOI_OK);
  size_t zero = 0, huge = 0;
  for (size_t k = 0; k < N; k++) {
    cr_assert_eq(st[k], TOI_OK);
    ans[k].state = (int)out[k].state, ans[k].r = out[k].r;
    for (int j = 1; j < 3; j++) {
      sweep_answer *a = &ans[(size_t)j * N + k];
      const double R = j == 2 ? ref[k].trev : ref[k].tfwd;
      const size_t p = (k / 4 + (size_t)j * 5) % (np + 2);
      a->state = TOI_ANSWERED;
      a->r.cls = ref[k].cls;
      a->r.t = p < np ? picks[p] : R; /* R itself, often */
      if (!(R == 0 || isinf(R))) continue;
      zero += R == 0, huge += isinf(R);
      if (k % 3 || !(a->r.t == R || a->r.t == 0)) continue;
      toi_ref_query eq = TOI_REF_QUERY_INIT; /* the premises, from MPFR */
      toi_ref_error_result er;
      eq.c = &cases[k], eq.engine = TOI_REF_MPFR, eq.dir = j == 2 ? TOI_REVERSE : TOI_FORWARD, eq.T = a->r.t;
      cr_assert_eq(toi_ref_error(&er, &eq), TOI_OK);
      if (isinf(R) && a->r.t == R)
        cr_assert(er.ulp == 0 && er.bits == 0, "case %zu: ulp %a bits %a", k, er.ulp, er.bits);
      else if (R == 0)
        cr_assert(er.ulp >= 0 && er.ulp <= 0.5 && er.bits == 0, "case %zu: ulp %a bits %a", k, er.ulp, er.bits);
    }
  }
  cr_assert_gt(zero, N / 4, "%zu answers to a root that rounds to 0", zero);
  cr_assert_gt(huge, N / 8, "%zu answers to a root that overflows", huge);
  sweep_acc span, one;
  cr_assert_eq(sweep_acc_init(&span, 3, NB), 0);
  cr_assert_eq(sweep_acc_init(&one, 3, NB), 0);
  size_t fail = 0;
  cr_assert_eq(sweep_eval_span(&span, cands, 3, ans, N, INFINITY, cases, bins, order, N, 0, TOI_REF_FAST, ref, st, &fail),
               TOI_OK);
  cr_assert_eq(fail, N);
  for (size_t k = 0; k < N; k++)
    cr_assert_eq(sweep_eval_case_given(&one, cands, 3, &ans[k], N, INFINITY, &cases[k], bins[k], k, TOI_REF_FAST,
                                       &ref[k]),
                 TOI_OK);
  uint64_t timed = 0, bins_seen = 0;
  for (size_t j = 0; j < 3; j++)
    for (size_t b = 0; b < NB; b++) {
      char what[64];
      snprintf(what, sizeof what, "column %zu bin %zu", j, b);
      tc_same_cell(&span.cells[j * NB + b], &one.cells[j * NB + b], what, 1);
      timed += one.cells[j * NB + b].timed;
      for (int h = 0; h < 3; h++) bins_seen |= (uint64_t)(one.cells[j * NB + b].hist[h] > 0) << h;
    }
  cr_assert_gt(timed, N / 2);
  cr_assert_eq(bins_seen, 7, "errors in bins 0, 1 and 2 (%llx)", (unsigned long long)bins_seen);
  sweep_acc_free(&span);
  sweep_acc_free(&one);
}
