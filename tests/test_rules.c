/* test_rules.c: the scoring rules at their edges (the step, the target, the tolerance, ties of maxima and witnesses). */
/* Each test sits exactly on the edge of one rule, where a comparison written
 * the other way (< for <=, >= for >) changes the answer; tests/mutants/
 * mutants.list names the one-line bugs they catch. Expected values come from
 * the exact constructions, never from the program. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "bench.h"
#include "case_build.h"
#include "cli_check.h"
#include "score.h"
#include "stream.h"
#include "sweep.h"
#include "toiref.h"

/* s = (10, 0), v = (-2, 0), R = 2: the gap is 8 - 2t, contact at t = 4. */
static toi_case head_on(void) { return tc_case2(0, 0, 0, 0, 1, 1, 10, 0, -2, 0, 1, 1); }

static score_detail scored(toi_result r, const toi_case *c, const toi_ref *ref, double tmax, double target,
                           double tolerance, toi_precision q) {
  score_opts o = {tmax, target, tolerance, 1, TOI_REF_FAST, q};
  score_detail d;
  cr_assert_eq(score_answer(&d, r, TOI_FORWARD, 0, c, ref, &o), TOI_OK);
  return d;
}

static toi_ref solved(const toi_case *c) {
  toi_ref ref;
  cr_assert_eq(toi_ref_solve_engine(&ref, c, TOI_REF_FAST), TOI_OK);
  return ref;
}

/* ---- the step: a contact exactly at tmax is inside it ---- */

/* "Hit within the step" takes t <= tmax on both sides: the exact root at
   tmax is a contact of the step, and so is an answer at tmax. */
Test(rules, contact_exactly_at_tmax_is_inside_the_step) {
  toi_case c = head_on();
  toi_ref ref = solved(&c);
  cr_assert_eq(ref.tfwd, 4);
  score_detail d = scored((toi_result){TOI_HIT, 4}, &c, &ref, 4, 0, 0, TOI_BINARY64);
  cr_assert_eq(d.sc.kind, SCORE_AGREE, "hit at tmax: kind %d", d.sc.kind);
  cr_assert(d.sc.timed);
  cr_assert_eq(d.sc.ulp, 0);
  cr_assert_eq(d.target_kind, SCORE_AGREE);
  /* "none" misses the contact the step holds. */
  d = scored((toi_result){TOI_NONE, NAN}, &c, &ref, 4, 0, 0, TOI_BINARY64);
  cr_assert_eq(d.sc.kind, SCORE_MISSED);
  cr_assert_eq(d.target_kind, SCORE_MISSED);
  /* One ULP shorter, the step ends before the contact: "none" agrees, the hit is none too. */
  double before = nextafter(4, 0);
  d = scored((toi_result){TOI_NONE, NAN}, &c, &ref, before, 0, 0, TOI_BINARY64);
  cr_assert_eq(d.sc.kind, SCORE_AGREE);
  d = scored((toi_result){TOI_HIT, 4}, &c, &ref, before, 0, 0, TOI_BINARY64);
  cr_assert_eq(d.sc.kind, SCORE_AGREE);
  cr_assert(!d.sc.timed);
}

/* The same through run: the 3-4-5 hit at t = 1 (s = (3, 8), v = (0, -4),
   R = 5: |s + v t|^2 = 9 + (8 - 4t)^2 = 25 at t = 1 and 3) with --tmax 1,
   answered exactly by the bench's correctly rounded formulation. */
Test(rules, run_scores_the_345_hit_at_tmax_as_agree) {
  char path[] = "/tmp/toirulesXXXXXX";
  int fd = mkstemp(path);
  cr_assert_geq(fd, 0);
  const char *text = "hit345-t1 2  0 0  0 0  2.5 1   3 8  0 -4  2.5 1\n";
  cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
  close(fd);
  char args[256];
  snprintf(args, sizeof args, "run -f accurate --tmax 1 %s", path);
  cc_out *r = cc_run(NULL, args);
  unlink(path);
  cr_assert_eq(r->status, 0, "%s", r->err);
  const char *line = strstr(r->out, "\naccurate ");
  cr_assert_not_null(line, "%s", r->out);
  unsigned long cases, agree, missed, ghost, other, timed;
  cr_assert_eq(sscanf(line, " accurate %lu %lu %lu %lu %lu %lu", &cases, &agree, &missed, &ghost, &other, &timed), 6);
  cr_assert(cases == 1 && agree == 1 && missed == 0 && ghost == 0 && other == 0 && timed == 1, "%s", r->out);
}

/* ---- the target: its ULP, and the tolerance band's edge ---- */

/* A target of -0.5 (an overlap of 0.5) moves the root to 4.25, where one
   ULP is 2^-50 in binary64 and 2^-21 in binary32: an answer k ULPs from
   4.25 is k target ULPs off, whatever its error against the contact. */
Test(rules, target_ulp_of_a_nonzero_target) {
  toi_case c = head_on();
  toi_ref ref = solved(&c);
  for (int k = -3; k <= 5; k += 2) {
    double t = 4.25 + k * 0x1p-50;
    score_detail d = scored((toi_result){TOI_HIT, t}, &c, &ref, INFINITY, -0.5, 0, TOI_BINARY64);
    cr_assert(d.target_timed);
    cr_assert_eq(d.target_ulp, fabs((double)k), "%d ULPs off: target_ulp %a", k, d.target_ulp);
    cr_assert_eq(d.target_dt, fabs(k * 0x1p-50));
    /* and against the contact at 4: (0.25 + k 2^-50) / 2^-50 ULPs */
    cr_assert_eq(d.sc.ulp, 0x1p48 + k, "ulp %a", d.sc.ulp);
  }
  /* binary32: the case as a float candidate receives it (unchanged) and its exact answer there */
  toi_case in;
  toi_ref r32;
  cr_assert_eq(score_input(&in, &r32, &c, TOI_BINARY32, TOI_REF_FAST), 0);
  score_detail d = scored((toi_result){TOI_HIT, 4.25 + 3 * 0x1p-21}, &in, &r32, INFINITY, -0.5, 0, TOI_BINARY32);
  cr_assert(d.target_timed);
  cr_assert_eq(d.target_ulp, 3, "binary32: target_ulp %a", d.target_ulp);
}

/* At t = 4.5 the gap is |10 - 9| - 2 = -1 exactly: 0.5 from a
   target of -0.5. A tolerance of exactly 0.5 holds it; the next double
   below does not; no tolerance (0) claims nothing. */
Test(rules, tolerance_band_includes_its_edge) {
  toi_case c = head_on();
  toi_ref ref = solved(&c);
  toi_result r = {TOI_HIT, 4.5};
  score_detail d = scored(r, &c, &ref, INFINITY, -0.5, 0.5, TOI_BINARY64);
  cr_assert_eq(d.gap, -1);
  cr_assert(d.target_timed);
  cr_assert_eq(d.off_tolerance, 0, "|gap - target| = tolerance is within it");
  d = scored(r, &c, &ref, INFINITY, -0.5, nextafter(0.5, 0), TOI_BINARY64);
  cr_assert_eq(d.off_tolerance, 1);
  d = scored(r, &c, &ref, INFINITY, -0.5, 0, TOI_BINARY64);
  cr_assert_eq(d.off_tolerance, 0, "no tolerance claimed, none missed");
  d = scored((toi_result){TOI_HIT, 4.25}, &c, &ref, INFINITY, -0.5, 0, TOI_BINARY64);
  cr_assert_eq(d.gap, -0.5);
  cr_assert_eq(d.off_tolerance, 0);
}

/* ---- ties: the first case (lowest index) keeps a tied maximum ---- */

static score_case timed_case(double ulp, double bits) {
  score_case sc;
  memset(&sc, 0, sizeof sc);
  sc.kind = SCORE_AGREE;
  sc.timed = 1;
  sc.ulp = ulp;
  sc.bits = bits;
  return sc;
}

Test(rules, tied_maximum_keeps_the_first_worst_id) {
  score_stats s;
  score_stats_init(&s, "x");
  const double ulps[] = {2, 5, 1, 5, 5, 0};
  const char *ids[] = {"a", "b", "c", "d", "e", "f"};
  for (int i = 0; i < 6; i++) {
    score_case sc = timed_case(ulps[i], ulps[i] > 0 ? log2(ulps[i]) : 0);
    cr_assert_eq(score_stats_add(&s, &sc, ids[i]), TOI_OK);
  }
  score_case ghost = timed_case(NAN, NAN);
  ghost.kind = SCORE_GHOST;
  ghost.timed = 0;
  cr_assert_eq(score_stats_add(&s, &ghost, "g1"), TOI_OK);
  cr_assert_eq(score_stats_add(&s, &ghost, "g2"), TOI_OK);
  cr_assert_eq(s.max_ulp, 5);
  cr_assert_str_eq(s.worst_id, "b");
  cr_assert_str_eq(s.worst_class_id, "g1");
  cr_assert_eq(s.timed, 6);
  cr_assert_eq(s.cases, 8);
  cr_assert_eq(s.kind[SCORE_GHOST], 2);
  cr_assert_eq(s.max_bits, log2(5));

  /* Blocks of run merged in input order: a later block's tie leaves the worst ID. */
  toi_run_row acc, first, blk;
  memset(&acc, 0, sizeof acc);
  memset(&first, 0, sizeof first);
  memset(&blk, 0, sizeof blk);
  score_stats_init(&acc.st, "x");
  first.st = s; /* shares s's values, freed with s */
  score_stats_init(&blk.st, "x");
  toi_qstream q;
  cr_assert_eq(toi_qstream_init(&q), 0);
  cr_assert_eq(toi_run_row_merge(&acc, &first, &q), 0);
  cr_assert_str_eq(acc.st.worst_id, "b");
  score_case tie = timed_case(5, log2(5)), bigger = timed_case(7, log2(7));
  cr_assert_eq(score_stats_add(&blk.st, &tie, "later"), TOI_OK);
  cr_assert_eq(toi_run_row_merge(&acc, &blk, &q), 0);
  cr_assert_str_eq(acc.st.worst_id, "b", "a tie in a later block took the worst ID: %s", acc.st.worst_id);
  cr_assert_str_eq(acc.st.worst_class_id, "g1");
  score_stats_free(&blk.st);
  score_stats_init(&blk.st, "x");
  cr_assert_eq(score_stats_add(&blk.st, &bigger, "larger"), TOI_OK);
  cr_assert_eq(toi_run_row_merge(&acc, &blk, &q), 0);
  cr_assert_str_eq(acc.st.worst_id, "larger");
  cr_assert_eq(acc.st.max_ulp, 7);
  cr_assert_eq(acc.st.timed, 8);
  toi_qstream_free(&q);
  score_stats_free(&blk.st);
  score_stats_free(&acc.st);
  score_stats_free(&s);
}

/* A sweep's witness of a maximum: the larger value, or the lower index on a
   tie, whatever order the offers come in (threads and shards offer them in
   any order); the misclassification witness is the lowest index. */
Test(rules, sweep_witness_ties_go_to_the_lowest_index) {
  toi_case c = head_on();
  sweep_witness w;
  memset(&w, 0, sizeof w);
  sweep_witness_offer(&w, 5, 1, 7, &c);
  sweep_witness_offer(&w, 5, 2, 9, &c);
  cr_assert(w.set && w.index == 7 && w.aux == 1, "index %llu", (unsigned long long)w.index);
  sweep_witness_offer(&w, 5, 3, 3, &c);
  cr_assert(w.index == 3 && w.aux == 3, "index %llu", (unsigned long long)w.index);
  sweep_witness_offer(&w, 4, 4, 1, &c);
  sweep_witness_offer(&w, NAN, 4, 0, &c);
  cr_assert(w.index == 3 && w.value == 5);
  sweep_witness_offer(&w, 6, 5, 100, &c);
  cr_assert(w.index == 100 && w.value == 6);

  sweep_witness f;
  memset(&f, 0, sizeof f);
  sweep_witness_offer_first(&f, 2, 0, 7, &c);
  sweep_witness_offer_first(&f, 3, 0, 7, &c);
  cr_assert(f.index == 7 && f.value == 2);
  sweep_witness_offer_first(&f, 1, 0, 9, &c);
  sweep_witness_offer_first(&f, 1, 0, 4, &c);
  cr_assert(f.index == 4 && f.value == 1);

  /* Two accumulators with a tied maximum, merged either way round. */
  for (int order = 0; order < 2; order++) {
    sweep_acc a[2];
    for (int i = 0; i < 2; i++) {
      cr_assert_eq(sweep_acc_init(&a[i], 1, 1), 0);
      a[i].cells[0].max_ulp = 5;
      sweep_witness_offer(&a[i].cells[0].w[SW_MAX_ULP], 5, i, i ? 11 : 12, &c);
      sweep_witness_offer_first(&a[i].cells[0].w[SW_MISCLASS], 1, i, i ? 21 : 20, &c);
    }
    sweep_acc_merge(&a[order], &a[1 - order]);
    const sweep_cell *m = &a[order].cells[0];
    cr_assert_eq(m->w[SW_MAX_ULP].index, 11, "order %d: max witness %llu", order,
                 (unsigned long long)m->w[SW_MAX_ULP].index);
    cr_assert_eq(m->w[SW_MISCLASS].index, 20, "order %d: misclass witness %llu", order,
                 (unsigned long long)m->w[SW_MISCLASS].index);
    sweep_acc_free(&a[0]);
    sweep_acc_free(&a[1]);
  }
}
