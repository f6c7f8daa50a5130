/* test_sweep_ulps.c: the sweep places an answer k values of its precision away from the rounded root in the
   histogram bin, maximum and bits the maths gives, from that distance and the root's offset (sweep.c,
   ulp_distance), at the bins' edges, in binary32 and for a subnormal root. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "gen.h"
#include "sweep.h"
#include "toiref.h"
#include "test_env.h"

/* A head-on 1D contact: A at rest at 0, B at pb moving at vb < 0, radii 1: t* = (pb - 2) / -vb. */
static toi_case head_on(double pb, double vb) {
  toi_case c;
  memset(&c, 0, sizeof c);
  c.dim = 2;
  c.pb[0] = pb, c.vb[0] = vb, c.ra = c.rb = 1, c.ma = c.mb = 1;
  return c;
}

/* One column of expanded in precision q, warmed on mixed cases (its errors reach far beyond a few ulps, its
   kappa spans decades), so that the enclosures decide where they can. */
static void warm(sweep_acc *acc, toi_candidate *cand, toi_precision q) {
  const toi_formulation *f = toi_formulation_find("expanded");
  cr_assert_not_null(f);
  cr_assert_eq(toi_candidate_formulation_prec(cand, f, q), TOI_OK);
  toi_gen_opts o;
  toi_gen_family fam;
  cr_assert_eq(toi_gen_family_parse(&fam, "mixed"), TOI_OK);
  toi_gen_opts_default(&o, fam);
  o.seed = te_seed(29);
  cr_assert_eq(sweep_acc_init(acc, 1, 1), 0);
  for (uint64_t i = 0; i < 3000; i++) {
    toi_case c;
    size_t b;
    cr_assert_eq(toi_gen_case(&c, NULL, &b, &o, i), TOI_OK);
    cr_assert_eq(sweep_eval_case_with(acc, cand, 1, NULL, INFINITY, &c, 0, i, TOI_REF_FAST), TOI_OK);
  }
}

/* The answer R + k u to case c (a value of q), R = RN_q(t*), u = ulp_q(R), into a copy of the warmed
   column: the histogram grows by one in the bin of the expected error E, the largest error and bits are
   the old ones or E and log2(1 + |k|) (bits: |k| values apart), kappa as MPFR gives it. E is checked
   against MPFR's error too. Returns the stage that placed it (the accumulator's lazy counts); *ratio its ratio. */
static int place_at(const sweep_acc *warmed, const toi_candidate *cand, const toi_case *c, toi_precision q, double k,
                    double T, double E, double bits, const char *what, double *ratio);

/* The reference's error measures made at R + u (the root's offset), summed over the calls to place. */
static uint64_t probe_count;

static int place(const sweep_acc *warmed, const toi_candidate *cand, const toi_case *c, toi_precision q, double k,
                 double E, const char *what, double *ratio) {
  toi_ref ref;
  toi_ref_query rq = TOI_REF_QUERY_INIT;
  rq.c = c, rq.precision = q;
  cr_assert_eq(toi_ref_solve(&ref, &rq), TOI_OK, "%s", what);
  double R = ref.tfwd, dist = fabs(k);
  int e;
  (void)frexp(R, &e);
  const toi_precision_info *pi = toi_precision_get(q);
  double u = ldexp(1, (e - 1 < pi->emin ? pi->emin : e - 1) - pi->p + 1);
  return place_at(warmed, cand, c, q, k, R + k * u, E, dist <= 1 ? dist : log2(1 + dist), what, ratio);
}

/* The same for the answer T, whose error is E and bits bits. */
static int place_at(const sweep_acc *warmed, const toi_candidate *cand, const toi_case *c, toi_precision q, double k,
                    double T, double E, double bits, const char *what, double *ratio) {
  toi_case in;
  toi_ref ref;
  toi_round_state rs;
  cr_assert_eq(toi_score_input(&in, &ref, &rs, c, q, TOI_REF_FAST), TOI_OK, "%s", what);
  cr_assert_eq(rs, TOI_ROUND_SAME, "%s: the case is a case of the precision", what);
  double R = ref.tfwd;
  cr_assert(toi_is_value_of(T, q), "%s", what);

  toi_ref_query rq = TOI_REF_QUERY_INIT;
  rq.c = &in, rq.engine = TOI_REF_MPFR, rq.precision = q, rq.T = T;
  toi_ref_error_result er;
  toi_ref_kappa_result kr;
  cr_assert_eq(toi_ref_error(&er, &rq), TOI_OK, "%s", what);
  cr_assert_eq(toi_ref_kappa(&kr, &rq), TOI_OK, "%s", what);
  cr_assert_eq(te_bits(er.ulp), te_bits(E), "%s k %g: MPFR's error %a, the maths' %a", what, k, er.ulp, E);
  cr_assert_eq(te_bits(er.bits), te_bits(bits), "%s k %g: MPFR's bits %a, the maths' %a", what, k, er.bits, bits);

  sweep_acc acc;
  cr_assert_eq(sweep_acc_init(&acc, 1, 1), 0);
  sweep_acc_merge(&acc, warmed); /* a copy */
  const sweep_cell *before = &warmed->cells[0], *after = &acc.cells[0];
  sweep_answer ans = {.state = TOI_ANSWERED, .r = {.cls = ref.cls, .t = T}};
  sweep_lazy_counts c0 = acc.lazy;
  cr_assert_eq(sweep_eval_case_given(&acc, cand, 1, &ans, 1, INFINITY, c, 0, 1u << 20, TOI_REF_FAST, NULL), TOI_OK);
  sweep_lazy_counts c1 = acc.lazy;
  probe_count += c1.probes - c0.probes;

  int h = sweep_ulp_bin(E), kb = sweep_kappa_bin(kr.kappa);
  for (int i = 0; i < SWEEP_HBINS; i++)
    cr_assert_eq(after->hist[i], before->hist[i] + (i == h), "%s k %g: bin %d (E %a in %d)", what, k, i, E, h);
  for (int i = 0; i < SWEEP_KBINS; i++) cr_assert_eq(after->khist[i], before->khist[i] + (i == kb), "%s", what);
  cr_assert_eq(after->timed, before->timed + 1, "%s", what);
  double mu = E > before->max_ulp ? E : before->max_ulp, mb = bits > before->max_bits ? bits : before->max_bits;
  cr_assert_eq(te_bits(after->max_ulp), te_bits(mu), "%s k %g: max_ulp", what, k);
  cr_assert_eq(te_bits(after->max_bits), te_bits(mb), "%s k %g: max_bits", what, k);
  double kmin = kr.kappa < before->kmin ? kr.kappa : before->kmin;
  double kmax = kr.kappa > before->kmax ? kr.kappa : before->kmax;
  cr_assert_eq(te_bits(after->kmin), te_bits(kmin), "%s", what);
  cr_assert_eq(te_bits(after->kmax), te_bits(kmax), "%s", what);
  double r = sweep_ratio_prec(E, R, kr.kappa, q), mr = r > before->max_ratio ? r : before->max_ratio;
  cr_assert_eq(te_bits(after->max_ratio), te_bits(mr), "%s k %g: max_ratio", what, k);
  *ratio = r;
  sweep_acc_free(&acc);
  int stage = 0, n = 0;
  for (int s = SWEEP_BY_ULPS; s < SWEEP_BY_COUNT; s++)
    if (c1.placed[s] != c0.placed[s]) stage = s, n++;
  cr_assert_eq(n, 1, "%s: one answer placed once", what);
  return stage;
}

/* The answers at k = -9 .. 9 and around the powers of two up to 2^10 values away. */
static const double ks[] = {0,  1,  -1, 2,  -2, 3,  -3, 4,  -4, 5,   -5,   7,    -7,   8,   -8,
                            9,  -9, 15, 16, 17, 31, 32, 33, -31, -32, -33, 1023, 1024, 1025, -1024};
enum { NK = sizeof ks / sizeof ks[0] };

/* t* = 14/3 in binary64: 14/3 = (N + 2/3) 2^-50 with N = floor(14 2^50 / 3) (2^50 = 1 mod 3), so R =
   (N + 1) 2^-50, t* - R = -u/3 and the answer R + k u is |k + 1/3| ulps away: (|3k + 1|) / 3, rounded
   once. Every such answer is placed without measuring its own error: from k alone or with the root's
   offset (one measure per case and direction). */
Test(sweep_ulps, binary64_third) {
  sweep_acc warmed;
  toi_candidate cand;
  warm(&warmed, &cand, TOI_BINARY64);
  cr_assert_gt(warmed.cells[0].max_ulp, 1e4, "the warm-up's largest error");
  toi_case c = head_on(16, -3);
  uint64_t p0 = probe_count, by_ulps = 0;
  for (int i = 0; i < NK; i++) {
    double E = fabs(3 * ks[i] + 1) / 3, r;
    int s = place(&warmed, &cand, &c, TOI_BINARY64, ks[i], E, "binary64 14/3", &r);
    cr_assert(r < warmed.cells[0].max_ratio, "k %g: ratio %g", ks[i], r);
    cr_assert(s == SWEEP_BY_ULPS || s == SWEEP_BY_OFFSET, "k %g placed by stage %d", ks[i], s);
    /* The distance alone decides where [|k| - 1/2, |k| + 1/2] holds no power of two. */
    double a = fabs(ks[i]);
    if (a >= 3 && a != 4 && a != 8 && a != 16 && a != 32 && a != 1024) cr_assert_eq(s, SWEEP_BY_ULPS, "k %g", ks[i]);
    by_ulps += s == SWEEP_BY_ULPS;
  }
  cr_assert_eq(probe_count - p0, NK - by_ulps, "one probe for each case whose answer needed the offset");
  sweep_acc_free(&warmed);
}

/* The same contact in binary32: 14/3 = (N + 1/3) 2^-21 (2^21 = 2 mod 3), so R = N 2^-21, t* - R = u/3, and
   the answer R + k u is |3k - 1| / 3 ulps away. */
Test(sweep_ulps, binary32_third) {
  sweep_acc warmed;
  toi_candidate cand;
  warm(&warmed, &cand, TOI_BINARY32);
  cr_assert_gt(warmed.cells[0].max_ulp, 1e4, "the warm-up's largest error");
  toi_case c = head_on(16, -3);
  int below = 0;
  for (int i = 0; i < NK; i++) {
    double E = fabs(3 * ks[i] - 1) / 3, r;
    int s = place(&warmed, &cand, &c, TOI_BINARY32, ks[i], E, "binary32 14/3", &r);
    /* Beyond the warm-up's largest ratio of error to conditioning the error itself is needed. */
    if (r < warmed.cells[0].max_ratio) {
      cr_assert(s == SWEEP_BY_ULPS || s == SWEEP_BY_OFFSET, "k %g placed by stage %d", ks[i], s);
      below++;
    }
  }
  cr_assert_geq(below, NK / 2, "%d answers below the largest ratio", below);
  sweep_acc_free(&warmed);
}

/* An exact root, t* = 12: the answer R + k u is exactly |k| ulps away, at a bin's lower edge when |k| is a
   power of two (1 in [1, 2), 2 in [2, 4), ...): the enclosures straddle it and the error is measured. */
Test(sweep_ulps, exact_root_at_edges) {
  sweep_acc warmed;
  toi_candidate cand;
  warm(&warmed, &cand, TOI_BINARY64);
  toi_case c = head_on(14, -1);
  static const int bin_of[] = {0, 3, 4, 4, 5, 5, 5, 5, 6, 6}; /* |k| = 0 .. 9: 0, then 2^(H-3) <= |k| < 2^(H-2) */
  for (int i = 0; i < NK; i++) {
    double E = fabs(ks[i]), r;
    if (E <= 9) cr_assert_eq(sweep_ulp_bin(E), bin_of[(int)E]);
    (void)place(&warmed, &cand, &c, TOI_BINARY64, ks[i], E, "binary64 12", &r);
  }
  sweep_acc_free(&warmed);
}

/* A subnormal root: B at 2 + 2^-51 closing at 3 2^1000, t* = 2^-1051 / 3 = (2^23 / 3) 2^-1074 = (N + 2/3)
   2^-1074 (2^23 = 2 mod 3): R = (N + 1) 2^-1074, t* - R = -u/3, the answer R + k u |3k + 1| / 3 ulps away
   (the distance's shortcut does not apply below the normal range: the error is bounded or measured). */
Test(sweep_ulps, subnormal_root) {
  sweep_acc warmed;
  toi_candidate cand;
  warm(&warmed, &cand, TOI_BINARY64);
  toi_case c = head_on(2 + 0x1p-51, -3 * 0x1p1000);
  static const double small[] = {0, 1, -1, 2, -2, 3, -3, 4, -4, 5, 8, -8};
  for (size_t i = 0; i < sizeof small / sizeof small[0]; i++) {
    double E = fabs(3 * small[i] + 1) / 3, r;
    int s = place(&warmed, &cand, &c, TOI_BINARY64, small[i], E, "subnormal", &r);
    cr_assert(s >= SWEEP_BY_BOUND, "k %g placed by stage %d", small[i], s);
  }
  sweep_acc_free(&warmed);
}

/* A NaN time where a root exists: an infinite error, its kappa counted and its ratio +Inf. Its kappa is
   measured only when the enclosure cannot decide: the first such answer sets the largest ratio and its
   witness (kappa measured: the witness holds it), a later one leaves them (kappa enclosed), an earlier one
   takes the witness over (measured again). Every figure as MPFR's kappa gives it. */
static void nan_answer(sweep_acc *acc, const toi_candidate *cand, const toi_case *c, uint64_t index,
                       int measured, const char *what) {
  toi_case in;
  toi_ref ref;
  toi_round_state rs;
  cr_assert_eq(toi_score_input(&in, &ref, &rs, c, TOI_BINARY64, TOI_REF_FAST), TOI_OK, "%s", what);
  toi_ref_query rq = TOI_REF_QUERY_INIT;
  rq.c = &in, rq.engine = TOI_REF_MPFR;
  toi_ref_kappa_result kr;
  cr_assert_eq(toi_ref_kappa(&kr, &rq), TOI_OK, "%s", what);
  sweep_cell before = acc->cells[0];
  const sweep_cell *after = &acc->cells[0];
  sweep_answer ans = {.state = TOI_ANSWERED, .r = {.cls = ref.cls, .t = NAN}};
  sweep_lazy_counts c0 = acc->lazy;
  cr_assert_eq(sweep_eval_case_given(acc, cand, 1, &ans, 1, INFINITY, c, 0, index, TOI_REF_FAST, NULL), TOI_OK);
  sweep_lazy_counts c1 = acc->lazy;
  cr_assert_eq(c1.kappas - c0.kappas, (uint64_t)measured, "%s: kappa measured", what);
  int kb = sweep_kappa_bin(kr.kappa);
  for (int i = 0; i < SWEEP_KBINS; i++) cr_assert_eq(after->khist[i], before.khist[i] + (i == kb), "%s", what);
  cr_assert_eq(after->hist[SWEEP_HBINS - 1], before.hist[SWEEP_HBINS - 1] + 1, "%s", what);
  double kmin = kr.kappa < before.kmin ? kr.kappa : before.kmin, kmax = kr.kappa > before.kmax ? kr.kappa : before.kmax;
  cr_assert_eq(te_bits(after->kmin), te_bits(kmin), "%s", what);
  cr_assert_eq(te_bits(after->kmax), te_bits(kmax), "%s", what);
  cr_assert_eq(after->max_ratio, INFINITY, "%s", what);
  const sweep_witness *w = &after->w[SW_MAX_RATIO];
  cr_assert(w->set && w->value == INFINITY, "%s", what);
  if (before.max_ratio != INFINITY || index < before.w[SW_MAX_RATIO].index) {
    cr_assert_eq(w->index, index, "%s: the witness", what);
    cr_assert_eq(te_bits(w->aux), te_bits(kr.kappa), "%s: the witness's kappa", what);
  } else {
    cr_assert_eq(w->index, before.w[SW_MAX_RATIO].index, "%s: the witness stays", what);
  }
}

Test(sweep_ulps, nan_time_kappa) {
  sweep_acc acc;
  toi_candidate cand;
  warm(&acc, &cand, TOI_BINARY64);
  /* Head-on, kappa = 2 pb / (pb - 2): 32/14, 28/12, 30/13, within the range the first two leave. */
  toi_case third = head_on(16, -3), twelve = head_on(14, -1), other = head_on(15, -3);
  nan_answer(&acc, &cand, &third, 1u << 20, 1, "first");
  nan_answer(&acc, &cand, &twelve, (1u << 20) + 1, 0, "later");
  nan_answer(&acc, &cand, &other, (1u << 20) + 2, 0, "later again");
  nan_answer(&acc, &cand, &twelve, 5000, 1, "earlier");
  nan_answer(&acc, &cand, &third, (1u << 20) + 3, 0, "after the earlier");
  sweep_acc_free(&acc);
}

/* An answer of 0 to a root in [1/2, 1): 0 is R / u values of q below R in ulps of R's binade, so its error
   is |0 - t*| / u, but it lies below every smaller binade: as many values apart as there are values in
   (0, R], R's position in q's values (its bits read as an integer: 2^52 0.6 + 1021 2^52 in binary64 for
   R = RN(0.6), whose binade starts at the 1022nd power of two), which the bits count. In binary64 and
   binary32. */
Test(sweep_ulps, zero_answer_below_the_binade) {
  static const toi_precision qs[] = {TOI_BINARY64, TOI_BINARY32};
  for (int i = 0; i < 2; i++) {
    toi_precision q = qs[i];
    sweep_acc warmed;
    toi_candidate cand;
    warm(&warmed, &cand, q);
    toi_case c = head_on(2.5, -0x1.aaaaacp-1); /* vb a float near 5/6: t* = 0.5 / -vb, about 0.6 */
    toi_ref ref;
    toi_ref_query rq = TOI_REF_QUERY_INIT;
    rq.c = &c, rq.precision = q;
    cr_assert_eq(toi_ref_solve(&ref, &rq), TOI_OK);
    double R = ref.tfwd;
    cr_assert(R >= 0.5 && R < 1, "R %a", R);
    /* R's position among the nonnegative values of q: its bits as an integer (binary64), or those of the
       float (binary32). */
    double pos;
    if (q == TOI_BINARY64) {
      pos = (double)te_bits(R);
    } else {
      float f = (float)R;
      uint32_t b;
      memcpy(&b, &f, sizeof b);
      pos = (double)b;
    }
    const toi_precision_info *pi = toi_precision_get(q);
    double u = ldexp(1, -pi->p), k = -R / u; /* ulp of [1/2, 1): 2^(-1 - (p - 1)) */
    /* E = t* / u: MPFR's (checked against its own bits in place_at); the bits from R's position. */
    toi_case in;
    toi_round_state rs;
    cr_assert_eq(toi_score_input(&in, &ref, &rs, &c, q, TOI_REF_FAST), TOI_OK);
    toi_ref_query eq = TOI_REF_QUERY_INIT;
    toi_ref_error_result er;
    eq.c = &in, eq.engine = TOI_REF_MPFR, eq.precision = q, eq.T = 0;
    cr_assert_eq(toi_ref_error(&er, &eq), TOI_OK);
    cr_assert(fabs(er.ulp + k) <= 0.5, "E %a within half an ulp of |k| %a", er.ulp, -k);
    double r;
    const char *what = q == TOI_BINARY64 ? "zero, binary64" : "zero, binary32";
    (void)place_at(&warmed, &cand, &c, q, k, 0.0, er.ulp, log2(1 + pos), what, &r);
    sweep_acc_free(&warmed);
  }
}

/* Answers in other binades than the rounded root's, or of the other sign: t* = 4 + 2^-(p-3) / 3 (B at
   14 + 2^-(p-6) closing at 3), R = 4 + 3 2^-(p-3) (8/3 rounded, u = 2^-(p-3)), delta = -1/3, in binary64
   and binary32, answers a few values of q below 4 (in [2, 4), half as far apart), further below,
   from 8 on, negative and 0. The error (MPFR's, checked in place_at, as are the bits, the histogram bin and
   the largest figures the sweep keeps) comes from the distance T - R and the root's offset, without the
   error's own measure (sweep.c, error_far), wherever the cell's largest ratio and error and the bins'
   edges leave the enclosure to decide. */
Test(sweep_ulps, other_binade) {
  static const toi_precision qs[] = {TOI_BINARY64, TOI_BINARY32};
  for (int i = 0; i < 2; i++) {
    toi_precision q = qs[i];
    const int p = toi_precision_get(q)->p;
    sweep_acc warmed;
    toi_candidate cand;
    warm(&warmed, &cand, q);
    toi_case c = head_on(14 + ldexp(1, -(p - 6)), -3), in;
    toi_ref ref;
    toi_round_state rs;
    cr_assert_eq(toi_score_input(&in, &ref, &rs, &c, q, TOI_REF_FAST), TOI_OK);
    cr_assert_eq(ref.tfwd, 4 + 3 * ldexp(1, -(p - 3)), "R %a", ref.tfwd);
    double Ts[40];
    int n = 0;
    for (int j = 1; j <= 24; j++) Ts[n++] = 4 - j * ldexp(1, -(p - 2));
    Ts[n++] = 4 - ldexp(1, -(p - 12));
    Ts[n++] = 3.75, Ts[n++] = 8, Ts[n++] = 100, Ts[n++] = -1, Ts[n++] = 0, Ts[n++] = -4 - ldexp(1, -(p - 3));
    int by_offset = 0, decidable = 0;
    for (int j = 0; j < n; j++) {
      toi_ref_query eq = TOI_REF_QUERY_INIT;
      toi_ref_error_result er;
      eq.c = &in, eq.engine = TOI_REF_MPFR, eq.precision = q, eq.T = Ts[j];
      cr_assert_eq(toi_ref_error(&er, &eq), TOI_OK);
      double r;
      char what[64];
      snprintf(what, sizeof what, "%s T %a", q == TOI_BINARY64 ? "binary64" : "binary32", Ts[j]);
      int s = place_at(&warmed, &cand, &c, q, NAN, Ts[j], er.ulp, er.bits, what, &r);
      /* Decidable: below the largest ratio and error, and off the bins' edges (powers of two). */
      double f = er.ulp / exp2(floor(log2(er.ulp)));
      if (r < warmed.cells[0].max_ratio && er.ulp < warmed.cells[0].max_ulp && f > 1.001 && f < 1.999) {
        decidable++;
        by_offset += s == SWEEP_BY_OFFSET;
        cr_assert_eq(s, SWEEP_BY_OFFSET, "%s: placed by stage %d", what, s);
      }
    }
    cr_assert_geq(decidable, 16, "%d decidable answers", decidable);
    cr_log_info("other binades %s: %d of %d decidable answers by the offset", toi_precision_name(q), by_offset,
                decidable);
    sweep_acc_free(&warmed);
  }
}
