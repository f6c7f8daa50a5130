/* test_rules.c: the scoring rules at their edges (the step, the target, the tolerance, ties of maxima and witnesses);
 * the layers' include rule. */
/* Each test sits exactly on the edge of one rule, where a comparison written
 * the other way (< for <=, >= for >) changes the answer; tests/mutants/
 * mutants.list names the one-line bugs they catch. Expected values come from
 * the exact constructions, never from the program. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "audit.h"
#include "bench.h"
#include "case_build.h"
#include "cli_check.h"
#include "gen.h"
#include "ref_bench.h"
#include "score.h"
#include "stream.h"
#include "sweep.h"
#include "tmp_dir.h"
#include "toiref.h"
#include "ref_forms.h"

/* s = (10, 0), v = (-2, 0), R = 2: the gap is 8 - 2t, contact at t = 4. */
static toi_case head_on(void) { return tc_case2(0, 0, 0, 0, 1, 1, 10, 0, -2, 0, 1, 1); }

static toi_score_detail scored(toi_result r, const toi_case *c, const toi_ref *ref, double tmax, double target,
                           double tolerance, toi_precision q) {
  toi_score_opts o = {tmax, target, tolerance, 1, TOI_REF_FAST, q, NULL};
  toi_score_detail d;
  cr_assert_eq(toi_score_answer(&d, r, TOI_FORWARD, 0, c, ref, &o), TOI_OK);
  return d;
}

static toi_ref solved(const toi_case *c) {
  toi_ref ref;
  cr_assert_eq(tr_solve_engine(&ref, c, TOI_REF_FAST), TOI_OK);
  return ref;
}

/* ---- run's scoring with the prepared case it made (score_answer_prepared) ---- */

/* score_answer_prepared (sweep.h, what run uses) scores as toi_score_answer:
   on two prepared cases made alike from each case (deferred, with the
   binary64 answer or without; the first made by score_answer_prepared
   itself when an error is first measured, for one case in two), the same
   answers (around the root, far, of every group, NaN), directions, steps
   and targets give the same statuses and fields, the errors measured from
   each prepared case in turn; each answer is given three times (once a
   step), so that the memo of errors (score_memo) answers some, and the
   order of directions and answers makes it replace its entries. */
Test(rules, run_scores_as_toi_score_answer) {
  long timed = 0;
  const toi_class cls[3] = {TOI_HIT, TOI_MISS, TOI_SEPARATING};
  score_memo memo; /* one for every case, as run's: what a case left must not answer the next */
  memset(&memo, 0xa5, sizeof memo);
  for (int f = 0; f < TOI_GEN_FAMILY_COUNT; f++) {
    for (uint64_t i = 0; i < 16; i++) {
      toi_case c;
      cr_assert_eq(tc_family_case(&c, (toi_gen_family)f, 0x72756e00ULL + (uint64_t)f, i), TOI_OK);
      toi_ref ref;
      if (tr_solve_engine(&ref, &c, TOI_REF_FAST) != TOI_OK) continue;
      toi_ref_prepared pa, pb;
      int b32 = i % 4 == 3;
      toi_precision q = b32 ? TOI_BINARY32 : TOI_BINARY64;
      if (b32) {
        toi_case in;
        toi_round_state rs;
        if (toi_score_input(&in, &ref, &rs, &c, q, TOI_REF_FAST) != TOI_OK || rs == TOI_ROUND_OVERFLOW) continue;
        c = in;
      }
      int with_r = !b32 && i % 3, have = (int)(i % 2), made = 0;
      memset(&pa, 0xa5, sizeof pa);
      if (have) memo.n = memo.next = 0; /* made here: the memo reset here (else by score_answer_prepared) */
      if (with_r) {
        if (have) ref_prepare_deferred_solved(&pa, &c, TOI_REF_FAST, &ref);
        ref_prepare_deferred_solved(&pb, &c, TOI_REF_FAST, &ref);
      } else {
        if (have) ref_prepare_deferred(&pa, &c, TOI_REF_FAST);
        ref_prepare_deferred(&pb, &c, TOI_REF_FAST);
      }
      for (int d = 0; d < 2; d++) {
        double t = d ? ref.trev : ref.tfwd, b = isfinite(t) ? t : 2.0;
        const double T[6] = {b, nextafter(b, INFINITY), b * (1 + 0x1p-25), 1e300, NAN, -b};
        for (int k = 0; k < 6; k++)
          for (int w = 0; w < 3; w++) {
            double tmax = w == 1 ? fabs(b) : INFINITY, target = w == 2 ? 0x1p-10 : 0;
            toi_score_opts oa = {tmax, target, w == 2 ? 0x1p-12 : 0, w == 2, TOI_REF_FAST, q, &pa}, ob = oa;
            ob.prepared = &pb;
            toi_result r = {k == 5 ? cls[i % 3] : TOI_HIT, T[k]};
            toi_score_detail da, db;
            memset(&da, 0x5a, sizeof da), memset(&db, 0x5a, sizeof db);
            toi_status sa = score_answer_prepared(&da, r, (toi_direction)d, 0, &c, &ref, &oa, &have,
                                                  with_r ? &ref : NULL, i % 5 ? &memo : NULL);
            toi_status sb = toi_score_answer(&db, r, (toi_direction)d, 0, &c, &ref, &ob);
            cr_assert_eq(sa, sb);
            /* made when an error was first measured (or may be, against the
               target), and only then */
            int measured = (db.sc.timed && !isnan(r.t)) ||
                           (oa.with_target && d == TOI_FORWARD && db.sc.kind != TOI_SCORE_OUT_OF_DOMAIN);
            made |= measured;
            cr_assert(have == (made | (int)(i % 2)), "the prepared case made %s (case %d/%d)",
                      have ? "without a measure" : "not made", f, (int)i);
            cr_assert(memcmp(&da, &db, sizeof da) == 0, "scores differ (dir %d, T %a, w %d, ulp %a/%a) on case %d/%d", d,
                      T[k], w, da.sc.ulp, db.sc.ulp, f, (int)i);
            timed += sa == TOI_OK && da.sc.timed && isfinite(da.sc.ulp);
          }
      }
    }
  }
  cr_expect_gt(timed, 300, "%ld timed answers compared", timed);
}

/* ---- the step: a contact exactly at tmax is inside it ---- */

/* "Hit within the step" takes t <= tmax on both sides: the exact root at
   tmax is a contact of the step, and so is an answer at tmax. */
Test(rules, contact_exactly_at_tmax_is_inside_the_step) {
  toi_case c = head_on();
  toi_ref ref = solved(&c);
  cr_assert_eq(ref.tfwd, 4);
  toi_score_detail d = scored((toi_result){TOI_HIT, 4}, &c, &ref, 4, 0, 0, TOI_BINARY64);
  cr_assert_eq(d.sc.kind, TOI_SCORE_AGREE, "hit at tmax: kind %d", d.sc.kind);
  cr_assert(d.sc.timed);
  cr_assert_eq(d.sc.ulp, 0);
  cr_assert_eq(d.target_kind, TOI_SCORE_AGREE);
  /* "none" misses the contact the step holds. */
  d = scored((toi_result){TOI_NONE, NAN}, &c, &ref, 4, 0, 0, TOI_BINARY64);
  cr_assert_eq(d.sc.kind, TOI_SCORE_MISSED);
  cr_assert_eq(d.target_kind, TOI_SCORE_MISSED);
  /* One ULP shorter, the step ends before the contact: "none" agrees, the hit is none too. */
  double before = nextafter(4, 0);
  d = scored((toi_result){TOI_NONE, NAN}, &c, &ref, before, 0, 0, TOI_BINARY64);
  cr_assert_eq(d.sc.kind, TOI_SCORE_AGREE);
  d = scored((toi_result){TOI_HIT, 4}, &c, &ref, before, 0, 0, TOI_BINARY64);
  cr_assert_eq(d.sc.kind, TOI_SCORE_AGREE);
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
    toi_score_detail d = scored((toi_result){TOI_HIT, t}, &c, &ref, INFINITY, -0.5, 0, TOI_BINARY64);
    cr_assert(d.target_timed);
    cr_assert_eq(d.target_ulp, fabs((double)k), "%d ULPs off: target_ulp %a", k, d.target_ulp);
    cr_assert_eq(d.target_dt, fabs(k * 0x1p-50));
    /* and against the contact at 4: (0.25 + k 2^-50) / 2^-50 ULPs */
    cr_assert_eq(d.sc.ulp, 0x1p48 + k, "ulp %a", d.sc.ulp);
  }
  /* binary32: the case as a float candidate receives it (unchanged) and its exact answer there */
  toi_case in;
  toi_ref r32;
  toi_round_state rs = TOI_ROUND_OVERFLOW;
  cr_assert_eq(toi_score_input(&in, &r32, &rs, &c, TOI_BINARY32, TOI_REF_FAST), TOI_OK);
  cr_assert_eq(rs, TOI_ROUND_SAME);
  toi_score_detail d = scored((toi_result){TOI_HIT, 4.25 + 3 * 0x1p-21}, &in, &r32, INFINITY, -0.5, 0, TOI_BINARY32);
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
  toi_score_detail d = scored(r, &c, &ref, INFINITY, -0.5, 0.5, TOI_BINARY64);
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

static toi_score_case timed_case(double ulp, double bits) {
  toi_score_case sc;
  memset(&sc, 0, sizeof sc);
  sc.kind = TOI_SCORE_AGREE;
  sc.timed = 1;
  sc.ulp = ulp;
  sc.bits = bits;
  return sc;
}

Test(rules, tied_maximum_keeps_the_first_worst_id) {
  toi_score_stats s;
  toi_score_stats_init(&s, "x");
  const double ulps[] = {2, 5, 1, 5, 5, 0};
  const char *ids[] = {"a", "b", "c", "d", "e", "f"};
  for (int i = 0; i < 6; i++) {
    toi_score_case sc = timed_case(ulps[i], ulps[i] > 0 ? log2(ulps[i]) : 0);
    cr_assert_eq(toi_score_stats_add(&s, &sc, ids[i]), TOI_OK);
  }
  toi_score_case ghost = timed_case(NAN, NAN);
  ghost.kind = TOI_SCORE_GHOST;
  ghost.timed = 0;
  cr_assert_eq(toi_score_stats_add(&s, &ghost, "g1"), TOI_OK);
  cr_assert_eq(toi_score_stats_add(&s, &ghost, "g2"), TOI_OK);
  cr_assert_eq(s.max_ulp, 5);
  cr_assert_str_eq(s.worst_id, "b");
  cr_assert_str_eq(s.worst_class_id, "g1");
  cr_assert_eq(s.timed, 6);
  cr_assert_eq(s.cases, 8);
  cr_assert_eq(s.kind[TOI_SCORE_GHOST], 2);
  cr_assert_eq(s.max_bits, log2(5));

  /* Blocks of run merged in input order: a later block's tie leaves the worst ID. */
  toi_run_row acc, first, blk;
  memset(&acc, 0, sizeof acc);
  memset(&first, 0, sizeof first);
  memset(&blk, 0, sizeof blk);
  toi_score_stats_init(&acc.st, "x");
  first.st = s; /* shares s's values, freed with s */
  toi_score_stats_init(&blk.st, "x");
  toi_qstream q;
  cr_assert_eq(toi_qstream_init(&q), 0);
  cr_assert_eq(toi_run_row_merge(&acc, &first, &q), 0);
  cr_assert_str_eq(acc.st.worst_id, "b");
  toi_score_case tie = timed_case(5, log2(5)), bigger = timed_case(7, log2(7));
  cr_assert_eq(toi_score_stats_add(&blk.st, &tie, "later"), TOI_OK);
  cr_assert_eq(toi_run_row_merge(&acc, &blk, &q), 0);
  cr_assert_str_eq(acc.st.worst_id, "b", "a tie in a later block took the worst ID: %s", acc.st.worst_id);
  cr_assert_str_eq(acc.st.worst_class_id, "g1");
  toi_score_stats_free(&blk.st);
  toi_score_stats_init(&blk.st, "x");
  cr_assert_eq(toi_score_stats_add(&blk.st, &bigger, "larger"), TOI_OK);
  cr_assert_eq(toi_run_row_merge(&acc, &blk, &q), 0);
  cr_assert_str_eq(acc.st.worst_id, "larger");
  cr_assert_eq(acc.st.max_ulp, 7);
  cr_assert_eq(acc.st.timed, 8);
  toi_qstream_free(&q);
  toi_score_stats_free(&blk.st);
  toi_score_stats_free(&acc.st);
  toi_score_stats_free(&s);
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

/* ---- the audit: penetrations are the rows whose gap is below -TOI_AUDIT_PENETRATION ---- */

typedef struct pen_count {
  size_t below[64], rows[64], above[64];
  double min_gap[64];
  size_t min_case[64];
  const toi_formulation *const *fs;
  int nf;
} pen_count;

static void pen_row(void *ctx, const toi_audit_row *row) {
  pen_count *p = ctx;
  int k = 0;
  while (k < p->nf && p->fs[k] != row->f) k++;
  cr_assert_lt(k, p->nf);
  p->rows[k]++;
  if (row->a.gap < -TOI_AUDIT_PENETRATION) p->below[k]++;
  else p->above[k]++;
  if (p->rows[k] == 1 || row->a.gap < p->min_gap[k]) {
    p->min_gap[k] = row->a.gap;
    p->min_case[k] = row->case_index;
  }
}

/* The committed worst cases of the formulations that penetrate (their
   audits count some), every forward formulation audited on them: each
   count is the number of rows the audit hands out with a gap below the
   threshold, and there are rows on both sides of it. */
Test(rules, audit_penetrations_are_the_rows_below_the_threshold) {
  const char *files[] = {"inner_product", "phet", "accurate", "minkowski"};
  toi_caselist all = {0};
  for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
    char path[512];
    snprintf(path, sizeof path, "%s/src/formulations/%s/worst.cases", TOI_SOURCE_DIR, files[i]);
    toi_caselist l = {0};
    toi_diags dg;
    memset(&dg, 0, sizeof dg);
    cr_assert_eq(toi_read_cases(&l, path, &dg), TOI_OK, "%s", path);
    for (size_t j = 0; j < l.count; j++) cr_assert_eq(toi_caselist_push(&all, &l.items[j]), TOI_OK);
    toi_caselist_free(&l);
  }
  size_t n;
  const toi_formulation *reg = toi_formulations(&n);
  const toi_formulation *fs[64];
  int nf = 0;
  for (size_t i = 0; i < n && nf < 64; i++)
    if (reg[i].direction == TOI_FORWARD) fs[nf++] = &reg[i];
  pen_count pc;
  memset(&pc, 0, sizeof pc);
  pc.fs = fs;
  pc.nf = nf;
  toi_audit au;
  cr_assert_eq(toi_audit_run(&au, &all, fs, nf, 1, pen_row, &pc, NULL), TOI_OK);
  size_t below = 0, above = 0;
  for (int k = 0; k < nf; k++) {
    const toi_audit_form *f = &au.forms[k];
    cr_assert_eq(f->audited, pc.rows[k], "%s", fs[k]->name);
    cr_assert_eq(f->penetrations, pc.below[k], "%s: %zu penetrations counted, %zu rows below -%g", fs[k]->name,
                 f->penetrations, pc.below[k], TOI_AUDIT_PENETRATION);
    if (pc.rows[k]) {
      cr_assert_eq(f->min_gap, pc.min_gap[k], "%s", fs[k]->name);
      cr_assert_eq(f->min_gap_case, pc.min_case[k], "%s", fs[k]->name);
    }
    below += pc.below[k];
    above += pc.above[k];
  }
  cr_assert(below > 0 && above > 0, "%zu rows below the threshold, %zu above: the test decides nothing", below, above);
  toi_audit_free(&au);
  toi_caselist_free(&all);
}

/* ---- the kinds of an answer ---- */

/* The contract's tolerance band: B passes A (R = 2) at impact parameter h, so the
   closest approach, at t = 10, leaves a separation of h - 2 (every number below
   exact in binary64). With target 2^-14 and tolerance 2^-14, a hit answered for a
   pass at target + tol/2 meets the contract (no ghost); at target + 2 tol it is a
   ghost; and a window that ends before the closest approach measures the least
   separation at its end. */
Test(rules, target_band_pass_is_not_a_ghost) {
  const double target = 0x1p-14, tol = 0x1p-14;
  toi_case near = tc_case2(0, 0, 0, 0, 1, 1, -10, 2 + target + tol / 2, 1, 0, 1, 1);
  toi_ref ref = solved(&near);
  cr_assert_eq(ref.cls, TOI_MISS);
  cr_assert_eq(toi_score_gap(&near, 10), target + tol / 2);
  toi_score_detail d = scored((toi_result){TOI_HIT, 10}, &near, &ref, INFINITY, target, tol, TOI_BINARY64);
  cr_assert_eq(d.target_kind, TOI_SCORE_AGREE, "closest approach target + tol/2: target kind %d", d.target_kind);
  cr_assert(!d.target_timed, "no target root to time against");
  cr_assert_eq(d.sc.kind, TOI_SCORE_GHOST, "against the true contact it stays a ghost");
  /* The same band claims nothing without a tolerance. */
  d = scored((toi_result){TOI_HIT, 10}, &near, &ref, INFINITY, target, 0, TOI_BINARY64);
  cr_assert_eq(d.target_kind, TOI_SCORE_GHOST);
  /* A window [0, 5] ends before the closest approach: least separation sqrt(25 + h^2) - 2 > 3. */
  d = scored((toi_result){TOI_HIT, 4}, &near, &ref, 5, target, tol, TOI_BINARY64);
  cr_assert_eq(d.target_kind, TOI_SCORE_GHOST, "window before the closest approach: kind %d", d.target_kind);
  toi_case far = tc_case2(0, 0, 0, 0, 1, 1, -10, 2 + target + 2 * tol, 1, 0, 1, 1);
  ref = solved(&far);
  cr_assert_eq(ref.cls, TOI_MISS);
  d = scored((toi_result){TOI_HIT, 10}, &far, &ref, INFINITY, target, tol, TOI_BINARY64);
  cr_assert_eq(d.target_kind, TOI_SCORE_GHOST, "closest approach target + 2 tol: target kind %d", d.target_kind);
}


/* Against the target: an exact miss answered by a hit is a ghost, an exact
   overlap answered by "none" is other (classify's table, the same as the
   true contact's at target 0). */
Test(rules, target_table_ghost_and_other) {
  /* B passes A at impact parameter 2.25 with R = 2: a miss. */
  toi_case miss = tc_case2(0, 0, 0, 0, 1, 1, -10, 2.25, 1, 0, 1, 1);
  toi_ref ref = solved(&miss);
  cr_assert_eq(ref.cls, TOI_MISS);
  toi_score_detail d = scored((toi_result){TOI_HIT, 10}, &miss, &ref, INFINITY, 0, 0, TOI_BINARY64);
  cr_assert_eq(d.sc.kind, TOI_SCORE_GHOST);
  cr_assert_eq(d.target_kind, TOI_SCORE_GHOST, "target kind %d", d.target_kind);
  /* Centres 1 apart, R = 2: an overlap; "none" is neither missed nor a ghost. */
  toi_case over = tc_case2(0, 0, 0, 0, 1, 1, 1, 0, 1, 0, 1, 1);
  ref = solved(&over);
  cr_assert_eq(ref.cls, TOI_OVERLAP);
  d = scored((toi_result){TOI_NONE, NAN}, &over, &ref, INFINITY, 0, 0, TOI_BINARY64);
  cr_assert_eq(d.sc.kind, TOI_SCORE_OTHER);
  cr_assert_eq(d.target_kind, TOI_SCORE_OTHER);
  /* An agreed overlap is not timed: its forward root is the exit. */
  d = scored((toi_result){TOI_OVERLAP, 0}, &over, &ref, INFINITY, 0, 0, TOI_BINARY64);
  cr_assert_eq(d.sc.kind, TOI_SCORE_AGREE);
  cr_assert(!d.sc.timed && !d.target_timed);
}

/* A hit with a NaN time where the contact is: timed, with an infinite error
   (the histograms' last bin), never an exact one. */
Test(rules, nan_time_of_a_right_verdict_is_an_infinite_error) {
  toi_case c = head_on();
  toi_ref ref = solved(&c);
  toi_score_detail d = scored((toi_result){TOI_HIT, NAN}, &c, &ref, INFINITY, 0, 0, TOI_BINARY64);
  cr_assert_eq(d.sc.kind, TOI_SCORE_AGREE);
  cr_assert(d.sc.timed);
  cr_assert(isinf(d.sc.ulp) && d.sc.ulp > 0, "ulp %a", d.sc.ulp);
  cr_assert(isinf(d.sc.bits) && d.sc.bits > 0, "bits %a", d.sc.bits);
}

/* Reverse time: a past contact answered "none" is missed, a contact claimed
   where there is no past one is a ghost. */
Test(rules, reverse_time_missed_and_ghost) {
  /* s = (10, 0), v = (2, 0), R = 2: leaving, roots -6 and -4 (the reverse root -4). */
  toi_case past = tc_case2(0, 0, 0, 0, 1, 1, 10, 0, 2, 0, 1, 1);
  toi_ref ref = solved(&past);
  cr_assert_eq(ref.trev, -4);
  toi_score_opts o = {INFINITY, 0, 0, 0, TOI_REF_FAST, TOI_BINARY64, NULL};
  toi_score_detail d;
  cr_assert_eq(toi_score_answer(&d, (toi_result){TOI_NONE, NAN}, TOI_REVERSE, 0, &past, &ref, &o), TOI_OK);
  cr_assert_eq(d.sc.kind, TOI_SCORE_MISSED);
  cr_assert_eq(toi_score_answer(&d, (toi_result){TOI_HIT, -4}, TOI_REVERSE, 0, &past, &ref, &o), TOI_OK);
  cr_assert_eq(d.sc.kind, TOI_SCORE_AGREE);
  cr_assert(d.sc.timed && d.sc.ulp == 0);
  /* head-on: both roots ahead (4 and 6), none behind */
  toi_case ahead = head_on();
  ref = solved(&ahead);
  cr_assert_eq(toi_score_answer(&d, (toi_result){TOI_HIT, -1}, TOI_REVERSE, 0, &ahead, &ref, &o), TOI_OK);
  cr_assert_eq(d.sc.kind, TOI_SCORE_GHOST);
}

/* The gap at a time is |s + v T| - (rA + rB): with radii 1 and 3, s = (10, 0)
   and v = (-2, 0), it is 10 - 2T - 4, 0 at T = 3. */
Test(rules, gap_takes_both_radii) {
  toi_case c = tc_case2(0, 0, 0, 0, 1, 1, 10, 0, -2, 0, 3, 1);
  cr_assert_eq(toi_score_gap(&c, 3), 0);
  cr_assert_eq(toi_score_gap(&c, 2), 2);
  toi_case d = tc_case2(0, 0, 0, 0, 3, 1, 10, 0, -2, 0, 1, 1);
  cr_assert_eq(toi_score_gap(&d, 3), 0);
  cr_assert_eq(toi_score_gap(&d, 3.5), -1);
}

/* ---- the audit: which contacts, which times, which values ---- */

static toi_result hit_at_infinity(const toi_case *c) {
  (void)c;
  return (toi_result){TOI_HIT, INFINITY};
}

/* An exact contact touching now (s = (2, 0), v = (-1, 0), R = 2) is audited
   like a hit; a formulation that answers a contact at an infinite time
   reported none (there is no response to audit at Inf). */
Test(rules, audit_takes_contacts_now_and_leaves_infinite_times) {
  toi_caselist l = {0};
  toi_case now = tc_case2(0, 0, 0, 0, 1, 1, 2, 0, -1, 0, 1, 1);
  cr_assert_eq(toi_caselist_push(&l, &now), TOI_OK);
  toi_case hit = head_on();
  cr_assert_eq(toi_caselist_push(&l, &hit), TOI_OK);
  const toi_formulation inf = {"at-infinity", "test", "a hit at +Inf", TOI_FORWARD, hit_at_infinity, 0, NULL};
  const toi_formulation *fs[2] = {toi_formulation_find("robust"), &inf};
  cr_assert_not_null(fs[0]);
  toi_audit au;
  cr_assert_eq(toi_audit_run(&au, &l, fs, 2, 1, NULL, NULL, NULL), TOI_OK);
  cr_assert_eq(au.contacts, 2);
  cr_assert_eq(au.forms[0].audited, 2, "robust: %zu audited", au.forms[0].audited);
  cr_assert_eq(au.forms[1].audited, 0);
  cr_assert_eq(au.forms[1].not_reported, 2);
  cr_assert_eq(au.forms[1].failed, 0);
  toi_audit_free(&au);
  toi_caselist_free(&l);
}

typedef struct nan_rows {
  size_t rows, finite_ke;
} nan_rows;

static void count_finite_ke(void *ctx, const toi_audit_row *row) {
  nan_rows *n = ctx;
  n->rows++;
  n->finite_ke += !isnan(row->a.ke_err);
}

/* A response whose velocity overflows (vB = -1.5e308, masses 1 and 3: A
   leaves at 1.5 |vB| > DBL_MAX) has no kinetic energy error to speak of
   (NaN): the statistics are over the other values, NaN left out. */
Test(rules, audit_statistics_leave_nan_out) {
  toi_caselist l = {0};
  toi_case big = head_on();
  strcpy(big.id, "big");
  big.vb[0] = -1.5e308;
  big.mb = 3;
  cr_assert_eq(toi_caselist_push(&l, &big), TOI_OK);
  toi_case hit = head_on();
  cr_assert_eq(toi_caselist_push(&l, &hit), TOI_OK);
  const toi_formulation *fs[1] = {toi_formulation_find("robust")};
  nan_rows n = {0, 0};
  toi_audit au;
  cr_assert_eq(toi_audit_run(&au, &l, fs, 1, 1, count_finite_ke, &n, NULL), TOI_OK);
  cr_assert_eq(n.rows, 2);
  cr_assert_eq(n.finite_ke, 1, "the test needs one NaN ke_err");
  cr_assert_eq(au.forms[0].nonfinite, 1);
  const toi_audit_stat *ke = &au.forms[0].stat[TOI_AUDIT_KE];
  cr_assert_eq(ke->n, 1, "ke_err over %zu values", ke->n);
  cr_assert_eq(ke->max, 0);
  cr_assert_eq(ke->max_case, 1);
  toi_audit_free(&au);
  toi_caselist_free(&l);
}

/* ---- the layers: no file includes a folder above its own (HACKING.md, the Makefile's INC_*) ---- */

/* Each layer's folders, lowest first, and the folders its files may include:
 * the same lists as the Makefile's INC_core ... INC_cli. A folder below one
 * of these (src/formulations/NAME) belongs to it. */
typedef struct layer_rule {
  const char *dir;
  const char *may[12];
} layer_rule;

static const layer_rule layer_rules[] = {
    {"src/core", {"include/toibench", "src/core"}},
    {"src/formulations", {"include/toibench", "src/core", "src/formulations"}},
    {"reference/mpfr", {"include/toibench", "src/core", "reference", "reference/mpfr", "reference/fast"}},
    {"reference/fast", {"include/toibench", "src/core", "reference", "reference/mpfr", "reference/fast"}},
    {"reference", {"include/toibench", "src/core", "reference", "reference/mpfr", "reference/fast"}},
    {"src/sim", {"include/toibench", "src/core", "src/formulations", "reference", "src/sim"}},
    {"src/bench",
     {"include/toibench", "src/core", "src/formulations", "reference", "reference/mpfr", "reference/fast", "src/sim",
      "src/bench"}},
    {"src/report",
     {"include/toibench", "src/core", "src/formulations", "reference", "reference/mpfr", "reference/fast", "src/sim",
      "src/bench", "src/report"}},
    {"src/cli",
     {"include/toibench", "src/core", "src/formulations", "reference", "reference/mpfr", "reference/fast", "src/sim",
      "src/bench", "src/report", "src/cli"}},
};
#define NLAYER_RULES (sizeof layer_rules / sizeof layer_rules[0])

/* Every folder of the layers (with those below them), for finding where an included name lives. */
typedef struct dir_list {
  char v[256][256];
  size_t n;
} dir_list;

static void add_dirs(dir_list *l, const char *rel) {
  for (size_t i = 0; i < l->n; i++)
    if (!strcmp(l->v[i], rel)) return;
  cr_assert_lt(l->n, 256);
  snprintf(l->v[l->n++], sizeof l->v[0], "%s", rel);
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", TOI_SOURCE_DIR, rel);
  DIR *d = opendir(path);
  cr_assert_not_null(d, "cannot open %s", path);
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char sub[4096], full[8192];
    snprintf(sub, sizeof sub, "%s/%s", rel, e->d_name);
    snprintf(full, sizeof full, "%s/%s", TOI_SOURCE_DIR, sub);
    struct stat sb;
    if (stat(full, &sb) == 0 && S_ISDIR(sb.st_mode)) add_dirs(l, sub);
  }
  closedir(d);
}

static int file_in(const char *dir, const char *name) {
  char full[8192];
  snprintf(full, sizeof full, "%s/%s/%s", TOI_SOURCE_DIR, dir, name);
  return access(full, F_OK) == 0;
}

/* The rule of the folder rel: the longest layer folder it is in. */
static const layer_rule *rule_of(const char *rel) {
  const layer_rule *best = NULL;
  for (size_t i = 0; i < NLAYER_RULES; i++) {
    size_t n = strlen(layer_rules[i].dir);
    if (!strncmp(rel, layer_rules[i].dir, n) && (rel[n] == 0 || rel[n] == '/') &&
        (!best || n > strlen(best->dir)))
      best = &layer_rules[i];
  }
  return best;
}

static int may_include(const layer_rule *r, const char *dir) {
  for (size_t k = 0; k < 12 && r->may[k]; k++)
    if (!strcmp(r->may[k], dir)) return 1;
  return 0;
}

/* The violations of the file rel (in folder dir) appended to bad: a quoted
 * include that names a file of a layer folder the file's layer may not
 * include, found neither beside the file nor in a folder it may include. */
static void check_includes(const dir_list *all, const char *dir, const char *rel, char *bad, size_t n) {
  const layer_rule *r = rule_of(dir);
  char full[8192], line[1024];
  snprintf(full, sizeof full, "%s/%s", TOI_SOURCE_DIR, rel);
  FILE *f = fopen(full, "r");
  cr_assert_not_null(f, "cannot read %s", full);
  int lineno = 0;
  while (fgets(line, sizeof line, f)) {
    lineno++;
    const char *p = line;
    while (*p == ' ' || *p == '\t') p++;
    if (*p++ != '#') continue;
    while (*p == ' ' || *p == '\t') p++;
    if (strncmp(p, "include", 7)) continue;
    p += 7;
    while (*p == ' ' || *p == '\t') p++;
    if (*p != '"') continue;
    const char *q = strchr(p + 1, '"');
    if (!q) continue;
    char name[512];
    snprintf(name, sizeof name, "%.*s", (int)(q - p - 1), p + 1);
    if (file_in(dir, name) && !strstr(name, "..")) continue; /* beside the file */
    int allowed = 0, where = -1;
    for (size_t k = 0; k < 12 && r->may[k] && !allowed; k++) allowed = file_in(r->may[k], name);
    for (size_t k = 0; k < all->n && !allowed && where < 0; k++)
      if (file_in(all->v[k], name) && !may_include(r, all->v[k])) where = (int)k;
    if (!allowed && where >= 0) {
      size_t len = strlen(bad);
      snprintf(bad + len, n - len, "%s:%d: \"%s\" is in %s, above layer %s\n", rel, lineno, name, all->v[where],
               r->dir);
    }
  }
  fclose(f);
}

static void check_dir(const dir_list *all, const char *dir, char *bad, size_t n) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", TOI_SOURCE_DIR, dir);
  DIR *d = opendir(path);
  cr_assert_not_null(d);
  struct dirent *e;
  while ((e = readdir(d))) {
    const char *dot = strrchr(e->d_name, '.');
    if (e->d_name[0] == '.' || !dot || (strcmp(dot, ".c") && strcmp(dot, ".h") && strcmp(dot, ".inl"))) continue;
    char rel[4096];
    snprintf(rel, sizeof rel, "%s/%s", dir, e->d_name);
    check_includes(all, dir, rel, bad, n);
  }
  closedir(d);
}

Test(rules, no_file_includes_a_higher_layer) {
  static dir_list all;
  all.n = 0;
  add_dirs(&all, "include/toibench");
  for (size_t i = 0; i < NLAYER_RULES; i++) add_dirs(&all, layer_rules[i].dir);
  static char bad[16384];
  bad[0] = 0;
  for (size_t k = 0; k < all.n; k++)
    if (strcmp(all.v[k], "include/toibench")) check_dir(&all, all.v[k], bad, sizeof bad);
  cr_expect_str_empty(bad, "includes of a higher layer:\n%s", bad);
}

/* ---- the reference's tests mirror the reference (HACKING.md, "Tests, sanitizers, benchmarks") ---- */

/* The files under root/tests/reference/DIR (DIR "" at the top) that are
 * neither the generic harness (test_ref_generic.c, at the top) nor test_X.c
 * for a source root/reference/DIR/X.c, one line each appended to bad;
 * returns how many. */
static int mirror_check(const char *root, const char *dir, char *bad, size_t n) {
  const char *sep = *dir ? "/" : "";
  char path[4096];
  snprintf(path, sizeof path, "%s/tests/reference%s%s", root, sep, dir);
  DIR *d = opendir(path);
  cr_assert_not_null(d, "cannot open %s", path);
  int nbad = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    char rel[1024], full[8192], src[8192];
    snprintf(rel, sizeof rel, "%s%s%.256s", dir, sep, e->d_name);
    snprintf(full, sizeof full, "%s/tests/reference/%s", root, rel);
    struct stat sb;
    cr_assert_eq(stat(full, &sb), 0, "cannot stat %s", full);
    if (S_ISDIR(sb.st_mode)) {
      nbad += mirror_check(root, rel, bad, n);
      continue;
    }
    if (!*dir && !strcmp(e->d_name, "test_ref_generic.c")) continue;
    size_t len = strlen(e->d_name);
    int named = len > 7 && !strncmp(e->d_name, "test_", 5) && !strcmp(e->d_name + len - 2, ".c");
    const char *x = named ? e->d_name + 5 : "X.c (a name test_X.c)";
    snprintf(src, sizeof src, "%s/reference/%s%s%s", root, dir, sep, x);
    if (named && stat(src, &sb) == 0 && S_ISREG(sb.st_mode)) continue;
    nbad++;
    size_t k = strlen(bad);
    snprintf(bad + k, n - k, "tests/reference/%s: no source reference/%s%s%s\n", rel, dir, sep, x);
  }
  closedir(d);
  return nbad;
}

/* One generic harness checks every entry point against the MPFR engine;
 * every other test file is named after the source it tests, at the same
 * place: tests/reference/fast/test_ref_fast_err.c for reference/fast/ref_fast_err.c. */
Test(rules, reference_tests_mirror_the_reference) {
  static char bad[16384];
  bad[0] = 0;
  cr_expect_eq(mirror_check(TOI_SOURCE_DIR, "", bad, sizeof bad), 0,
               "a file under tests/reference/ is test_X.c for a source X.c at the same place under reference/, "
               "or the harness test_ref_generic.c:\n%s",
               bad);
}

/* The check on a tree of its own: the harness and well-named files pass; a
 * file named after no source, one named after a source of another folder,
 * and a file that is not test_X.c are each named. */
Test(rules, the_mirror_check_finds_misnamed_files, .init = td_setup, .fini = td_teardown) {
  const char *dirs[] = {"reference", "reference/fast", "tests", "tests/reference", "tests/reference/fast"};
  for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) cr_assert_eq(mkdir(td_path(dirs[i]), 0700), 0);
  td_put("reference/api.c", "");
  td_put("reference/fast/ref_fast.c", "");
  td_put("tests/reference/test_ref_generic.c", "");
  td_put("tests/reference/test_api.c", "");
  td_put("tests/reference/fast/test_ref_fast.c", "");
  char bad[4096] = "";
  cr_assert_eq(mirror_check(td_dir, "", bad, sizeof bad), 0, "%s", bad);
  td_put("tests/reference/test_reference_extra.c", "");
  td_put("tests/reference/fast/test_api.c", "");
  td_put("tests/reference/fast/notes.txt", "");
  cr_assert_eq(mirror_check(td_dir, "", bad, sizeof bad), 3, "%s", bad);
  cr_assert(strstr(bad, "tests/reference/test_reference_extra.c: no source reference/reference_extra.c\n"), "%s", bad);
  cr_assert(strstr(bad, "tests/reference/fast/test_api.c: no source reference/fast/api.c\n"), "%s", bad);
  cr_assert(strstr(bad, "tests/reference/fast/notes.txt: no source reference/fast/X.c (a name test_X.c)\n"), "%s", bad);
}
