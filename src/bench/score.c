/* score.c: a candidate's answer against the exact class and root, with a step, a target and the gap. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "class_group.h"
#include "eft.h"
#include "candidate.h"
#include "ref_bench.h"
#include "score.h"
#include "stats.h"
#include "sweep.h"

static int exact_has_reverse(const toi_ref *ref) { return ref->rev_is_lo >= 0; }


/* The error of T against the exact root of c in direction dir, precision q,
   from prep (c prepared with engine; NULL: prepared for this call). */
static toi_status measure_error(double *ulp, double *bits, double T, const toi_case *c, toi_direction dir,
                                toi_ref_engine engine, toi_precision q, toi_ref_prepared *prep) {
  toi_ref_query rq = TOI_REF_QUERY_INIT;
  rq.c = c;
  rq.engine = engine;
  rq.precision = q;
  rq.dir = dir;
  rq.T = T;
  rq.prepared = prep;
  toi_ref_error_result er;
  toi_status st = toi_ref_error(&er, &rq);
  *ulp = er.ulp;
  *bits = er.bits;
  return st;
}

/* score_answer_prepared's prepared case, made on first use: *have says
   whether prep holds it, solved is c's binary64 answer or NULL. */
typedef struct score_lazy {
  int *have;
  const toi_ref *solved;
  score_memo *memo; /* NULL: none */
} score_lazy;

/* *prep made from c with engine, if not made yet (score_answer_prepared). */
static inline void prep_ensure(toi_ref_prepared *prep, const toi_case *c, toi_ref_engine engine, const score_lazy *lz) {
  if (*lz->have) return;
  if (lz->solved)
    ref_prepare_deferred_solved(prep, c, engine, lz->solved);
  else
    ref_prepare_deferred(prep, c, engine);
  *lz->have = 1;
  if (lz->memo) lz->memo->n = lz->memo->next = 0;
}

/* measure_error for a prep that ref_prepare_deferred or _deferred_solved made
   (or makes now) from c with engine (ref_error_prepared: the same doubles
   and status). */
static inline toi_status measure_error_prepared(double *ulp, double *bits, double T, const toi_case *c,
                                                toi_direction dir, toi_ref_engine engine, toi_precision q,
                                                toi_ref_prepared *prep, const score_lazy *lz) {
  prep_ensure(prep, c, engine, lz);
  score_memo *m = lz->memo;
  uint64_t tb;
  memcpy(&tb, &T, sizeof tb);
  if (m)
    for (int i = 0; i < m->n; i++)
      if (m->tbits[i] == tb && m->dir[i] == dir) {
        *ulp = m->ulp[i];
        *bits = m->bits[i];
        return TOI_OK;
      }
  toi_ref_error_result er;
  toi_status st = ref_error_prepared(&er, prep, T, dir, q);
  *ulp = er.ulp;
  *bits = er.bits;
  if (m && st == TOI_OK) {
    int i = m->next;
    m->tbits[i] = tb, m->dir[i] = dir, m->ulp[i] = er.ulp, m->bits[i] = er.bits;
    m->next = (i + 1) % SCORE_MEMO_N;
    if (m->n < SCORE_MEMO_N) m->n++;
  }
  return st;
}

/* The verdict and time against ref, without step or target; the error of a
   timed answer with a time measured (engine, precision q) when measure is
   set (2: by measure_error_prepared, prep made from c), else left NaN for
   the caller (score_case_deferred). Inlined into its callers' paths, so
   that each measure is specialised. */
static inline __attribute__((always_inline)) toi_status score_core(toi_score_case *out, toi_result r, toi_direction dir, unsigned domain,
                             const toi_case *c, const toi_ref *ref, toi_ref_engine engine, toi_precision q,
                             int measure, toi_ref_prepared *prep, const score_lazy *lz) {
  /* Every field is set below (no memset: this runs for every column of every case of a sweep). */
  out->kind = TOI_SCORE_AGREE;
  out->timed = 0;
  out->verdict = r.cls;
  out->ref_cls = ref->cls;
  out->t = r.t;
  out->ref_t = dir == TOI_FORWARD ? ref->tfwd : ref->trev;
  out->ulp = out->bits = NAN;
  if (domain && !(domain & TOI_CLASS_BIT(ref->cls))) {
    out->kind = TOI_SCORE_OUT_OF_DOMAIN;
    return TOI_OK;
  }
  toi_group gv = toi_class_group_inline(r.cls);
  if (dir == TOI_FORWARD) {
    toi_group ge = toi_class_group_inline(ref->cls);
    if (gv == ge)
      out->kind = TOI_SCORE_AGREE;
    else if (ge == TOI_G_CONTACT && gv == TOI_G_NOCONTACT)
      out->kind = TOI_SCORE_MISSED;
    else if (ge == TOI_G_NOCONTACT)
      out->kind = TOI_SCORE_GHOST;
    else
      out->kind = TOI_SCORE_OTHER;
    /* A forward time is scored only for a contact: an overlap's forward root
     * is the exit time, which no formulation means to report. */
    out->timed = out->kind == TOI_SCORE_AGREE && ge == TOI_G_CONTACT && ref->fwd_is_lo >= 0;
  } else {
    int has_e = exact_has_reverse(ref), has_v = gv != TOI_G_NOCONTACT;
    out->kind = has_e == has_v ? TOI_SCORE_AGREE : has_e ? TOI_SCORE_MISSED : TOI_SCORE_GHOST;
    out->timed = has_e && has_v;
  }
  if (out->timed) {
    /* An infinite time can be right (a root beyond DBL_MAX rounds to Inf):
     * the reference decides; a NaN time never is. */
    if (isnan(r.t)) {
      out->ulp = out->bits = INFINITY;
    } else if (measure) {
      toi_status st = measure == 2 ? measure_error_prepared(&out->ulp, &out->bits, r.t, c, dir, engine, q, prep, lz)
                                   : measure_error(&out->ulp, &out->bits, r.t, c, dir, engine, q, prep);
      if (st != TOI_OK) return st;
    }
  }
  return TOI_OK;
}

/* Double-double arithmetic (eft.h): the gap |s + v T| - R cancels to nothing at an
 * accurate contact time, so plain doubles would report their own rounding
 * instead of the solver's error. About 100 bits are enough for the gap of any
 * double T, rounded once at the end. */
static double max_abs(const double *x, int n) {
  double m = 0;
  for (int i = 0; i < n; i++)
    if (fabs(x[i]) > m) m = fabs(x[i]);
  return m;
}

double toi_score_gap(const toi_case *c, double T) {
  if (isnan(T)) return NAN;
  /* Lengths and speeds are scaled apart by powers of two (exact), so that
   * neither pB - pA nor vB - vA can overflow and no square leaves the range. */
  double lens[8] = {c->pa[0], c->pa[1], c->pa[2], c->pb[0], c->pb[1], c->pb[2], c->ra, c->rb};
  double vels[6] = {c->va[0], c->va[1], c->va[2], c->vb[0], c->vb[1], c->vb[2]};
  double ml = max_abs(lens, 8), mv = max_abs(vels, 6);
  int k1 = ml > 0 ? ilogb(ml) : 0, k2 = mv > 0 ? ilogb(mv) : 0;
  double f = ldexp(T, k2 - k1); /* the time in scaled units */
  dd w[3];
  double wmax = 0;
  for (int i = 0; i < 3; i++) {
    dd s = two_sum(ldexp(c->pb[i], -k1), -ldexp(c->pa[i], -k1));
    dd v = two_sum(ldexp(c->vb[i], -k2), -ldexp(c->va[i], -k2));
    w[i] = (v.hi == 0 && v.lo == 0) ? s : dd_add_dd(s, dd_add_dd(dd_mul_d(dd_make(v.hi, 0), f), dd_mul_d(dd_make(v.lo, 0), f)));
    if (!isfinite(w[i].hi)) return INFINITY;
    if (fabs(w[i].hi) > wmax) wmax = fabs(w[i].hi);
  }
  int e = wmax > 0 ? ilogb(wmax) : 0;
  dd sum = dd_make(0, 0);
  for (int i = 0; i < 3; i++) sum = dd_add_dd(sum, dd_sqr(dd_make(ldexp(w[i].hi, -e), ldexp(w[i].lo, -e))));
  dd norm = dd_sqrt_nonneg(sum);
  /* Back to the scale of the radii before subtracting R. */
  norm.hi = ldexp(norm.hi, e);
  norm.lo = ldexp(norm.lo, e);
  if (!isfinite(norm.hi)) return INFINITY;
  dd R = two_sum(ldexp(c->ra, -k1), ldexp(c->rb, -k1));
  dd g = dd_add_dd(norm, dd_make(-R.hi, -R.lo));
  return ldexp(g.hi + g.lo, k1);
}

/* ulp(x) = 2^(max(e,emin)-p+1) for 2^e <= |x| < 2^(e+1), as toiref.h defines
   it (binary64: 2^(max(e,-1022)-52)). */
static double ulp_of(double x, toi_precision q) {
  const toi_precision_info *pi = toi_precision_get(q);
  if (x == 0 || !isfinite(x)) return ldexp(1, pi->emin - pi->p + 1);
  int e = ilogb(x);
  return ldexp(1, (e < pi->emin ? pi->emin : e) - pi->p + 1);
}

/* Forward scoring of a verdict group against an exact group, by score_core's
 * rule, so that the two tables agree at target 0: missed is an exact contact
 * reported as none; an exact overlap reported as none is other. */
static toi_score_kind classify(toi_group gv, toi_group ge) {
  if (gv == ge) return TOI_SCORE_AGREE;
  if (ge == TOI_G_CONTACT && gv == TOI_G_NOCONTACT) return TOI_SCORE_MISSED;
  if (ge == TOI_G_NOCONTACT) return TOI_SCORE_GHOST;
  return TOI_SCORE_OTHER;
}

/* "Hit within the step": a contact after tmax is no contact for this step.
 * The exact side is decided on the correctly rounded root, which differs from
 * the exact decision only when RN(t*) = tmax. */
static toi_group exact_group(const toi_ref *ref, double tmax) {
  toi_group g = toi_class_group_inline(ref->cls);
  if (g == TOI_G_CONTACT && isfinite(tmax) && !(ref->tfwd <= tmax)) g = TOI_G_NOCONTACT;
  return g;
}

/* The least separation |s + v t| - R over t in [0, tmax] (tmax +Inf: t >= 0): at
 * the closest approach t* = -(s . v) / |v|^2, clamped to the window, computed on
 * s and v scaled apart by powers of two; an error in t* moves the gap there by
 * its square only, and the gap itself is toi_score_gap's. */
static double closest_gap(const toi_case *c, double tmax) {
  double lens[6] = {c->pa[0], c->pa[1], c->pa[2], c->pb[0], c->pb[1], c->pb[2]};
  double vels[6] = {c->va[0], c->va[1], c->va[2], c->vb[0], c->vb[1], c->vb[2]};
  double ml = max_abs(lens, 6), mv = max_abs(vels, 6);
  if (mv == 0) return toi_score_gap(c, 0);
  int k1 = ml > 0 ? ilogb(ml) : 0, k2 = ilogb(mv);
  double sv = 0, vv = 0;
  for (int i = 0; i < 3; i++) {
    double s = ldexp(c->pb[i], -k1) - ldexp(c->pa[i], -k1), v = ldexp(c->vb[i], -k2) - ldexp(c->va[i], -k2);
    sv += s * v;
    vv += v * v;
  }
  double t = vv > 0 ? ldexp(-sv / vv, k1 - k2) : 0;
  if (!(t > 0)) t = 0;
  if (t > tmax) t = tmax;
  return toi_score_gap(c, t);
}

/* Against the candidate's target: the exact class and root of |s + v t| = R +
 * target, the gap at the returned time and the error against that root. */
static toi_status score_target(toi_score_detail *out, toi_result r, toi_result rr, int contact_verdict,
                               const toi_case *c, const toi_ref *ref, const toi_score_opts *o) {
  double target = o->target;
  toi_ref tref;
  toi_status st;
  if (target == 0) {
    tref = *ref;
  } else {
    toi_ref_query rq = TOI_REF_QUERY_INIT;
    rq.c = c;
    rq.engine = o->engine;
    rq.precision = o->precision;
    rq.with_target = 1;
    rq.target = target;
    st = toi_ref_solve(&tref, &rq);
    if (st == TOI_ERR_RANGE) return TOI_OK; /* R + target < 0: no such problem */
    if (st != TOI_OK) return st;
  }
  toi_group gt = exact_group(&tref, o->tmax);
  out->target_kind = classify(toi_class_group_inline(rr.cls), gt);
  /* A pass whose closest approach lies within the claimed tolerance of the
   * target meets the contract: a contact there is no ghost (it agrees, untimed:
   * there is no target root to time it against). */
  if (out->target_kind == TOI_SCORE_GHOST && o->tolerance > 0 && closest_gap(c, o->tmax) - target <= o->tolerance)
    out->target_kind = TOI_SCORE_AGREE;
  if (!contact_verdict || !isfinite(r.t)) return TOI_OK;
  out->gap = toi_score_gap(c, r.t);
  if (out->target_kind != TOI_SCORE_AGREE || gt != TOI_G_CONTACT || tref.fwd_is_lo < 0) return TOI_OK;
  out->target_timed = 1;
  out->target_dt = fabs(r.t - tref.tfwd);
  if (target == 0) {
    double bits;
    st = measure_error(&out->target_ulp, &bits, r.t, c, TOI_FORWARD, o->engine, o->precision, o->prepared);
    if (st != TOI_OK) return st;
  } else {
    /* Measured from the correctly rounded target root: within 0.5 ULP of the
     * exact measure, far below the errors of engines that aim at a target. */
    out->target_ulp = out->target_dt / ulp_of(tref.tfwd, o->precision);
  }
  if (o->tolerance > 0) out->off_tolerance = !(fabs(out->gap - target) <= o->tolerance);
  return TOI_OK;
}

/* The score against the true contact, with the step tmax (+Inf: none);
   *rr: the verdict as the step makes it (a contact after the step is none).
   Inlined as score_core is. */
static inline __attribute__((always_inline)) toi_status score_step(toi_score_case *out, toi_result *rr, toi_result r, toi_direction dir, unsigned domain,
                             const toi_case *c, const toi_ref *ref, double tmax, toi_ref_engine engine,
                             toi_precision q, int measure, toi_ref_prepared *prep, const score_lazy *lz) {
  toi_ref within; /* ref, or its copy with the class a step makes of it */
  const toi_ref *use = ref;
  *rr = r;
  if (dir == TOI_FORWARD && isfinite(tmax)) {
    if (exact_group(ref, tmax) != toi_class_group_inline(ref->cls)) {
      within = *ref;
      within.cls = TOI_MISS;
      use = &within;
    }
    /* A verdict with a time after the step claims no contact in it either. */
    if (toi_class_group_inline(r.cls) == TOI_G_CONTACT && r.t > tmax) rr->cls = TOI_NONE;
  }
  toi_status st = score_core(out, *rr, dir, domain, c, use, engine, q, measure, prep, lz);
  if (st != TOI_OK) return st;
  out->verdict = r.cls;
  out->ref_cls = ref->cls;
  out->cause = TOI_CAUSE_NONE; /* an answer was scored */
  return TOI_OK;
}

toi_status score_case_deferred(toi_score_case *out, toi_result r, toi_direction dir, unsigned domain, const toi_case *c,
                               const toi_ref *ref, double tmax) {
  toi_result rr;
  return score_step(out, &rr, r, dir, domain, c, ref, tmax, TOI_REF_FAST, TOI_BINARY64, 0, NULL, NULL);
}

/* toi_score_answer, its error measured as score_core's measure says. */
static inline __attribute__((always_inline)) toi_status score_answer(toi_score_detail *out, toi_result r, toi_direction dir,
                                                                     unsigned domain, const toi_case *c, const toi_ref *ref,
                                                                     const toi_score_opts *o, int measure,
                                                                     const score_lazy *lz) {
  /* Every field is set here or by score_core (no memset, as there). */
  out->target_timed = 0;
  out->off_tolerance = 0;
  out->gap = out->target_ulp = out->target_dt = NAN;
  out->target = o->target;
  out->target_kind = TOI_SCORE_OUT_OF_DOMAIN;
  toi_result rr;
  toi_status st = score_step(&out->sc, &rr, r, dir, domain, c, ref, o->tmax, o->engine, o->precision, measure,
                             o->prepared, lz);
  if (st != TOI_OK) return st;
  if (!o->with_target || out->sc.kind == TOI_SCORE_OUT_OF_DOMAIN || dir != TOI_FORWARD) return TOI_OK;
  if (measure == 2) prep_ensure(o->prepared, c, o->engine, lz); /* score_target may measure from it */
  int contact_verdict = toi_class_group_inline(rr.cls) == TOI_G_CONTACT;
  return score_target(out, r, rr, contact_verdict, c, ref, o);
}

toi_status toi_score_answer(toi_score_detail *out, toi_result r, toi_direction dir, unsigned domain, const toi_case *c,
                        const toi_ref *ref, const toi_score_opts *o) {
  return score_answer(out, r, dir, domain, c, ref, o, 1, NULL);
}

toi_status score_answer_prepared(toi_score_detail *out, toi_result r, toi_direction dir, unsigned domain,
                                 const toi_case *c, const toi_ref *ref, const toi_score_opts *o, int *have_prep,
                                 const toi_ref *solved, score_memo *memo) {
  score_lazy lz = {have_prep, solved, memo};
  return score_answer(out, r, dir, domain, c, ref, o, 2, &lz);
}



toi_status toi_score_input(toi_case *in, toi_ref *ref, toi_round_state *state, const toi_case *c, toi_precision q,
                           toi_ref_engine e) {
  if (!in || !ref || !state || !c) return TOI_ERR_RANGE;
  *state = toi_candidate_input(in, c, q);
  if (*state == TOI_ROUND_OVERFLOW) return TOI_OK;
  toi_ref_query rq = TOI_REF_QUERY_INIT;
  rq.c = q == TOI_BINARY64 ? c : in;
  rq.engine = e;
  rq.precision = q;
  return toi_ref_solve(ref, &rq);
}

void toi_score_stats_init(toi_score_stats *s, const char *name) {
  memset(s, 0, sizeof *s);
  s->name = name;
}

toi_status toi_score_stats_add(toi_score_stats *s, const toi_score_case *sc, const char *id) {
  if (sc->kind == TOI_SCORE_OUT_OF_DOMAIN) {
    s->out_of_domain++;
    s->kind[TOI_SCORE_OUT_OF_DOMAIN]++;
    return TOI_OK;
  }
  s->cases++;
  s->kind[sc->kind]++;
  if (sc->kind != TOI_SCORE_AGREE && !s->worst_class_id[0]) snprintf(s->worst_class_id, sizeof s->worst_class_id, "%s", id);
  if (!sc->timed) return TOI_OK;
  if (s->timed == s->ulps_cap) {
    size_t cap = s->ulps_cap ? 2 * s->ulps_cap : 256;
    double *p = realloc(s->ulps, cap * sizeof *p);
    if (!p) return TOI_ERR_NOMEM;
    s->ulps = p;
    s->ulps_cap = cap;
  }
  s->ulps[s->timed++] = sc->ulp;
  /* The first case reaching the maximum is the witness, so ties do not
   * depend on anything but input order. */
  if (s->timed == 1 || sc->ulp > s->max_ulp) {
    s->max_ulp = sc->ulp;
    snprintf(s->worst_id, sizeof s->worst_id, "%s", id);
  }
  if (s->timed == 1 || sc->bits > s->max_bits) s->max_bits = sc->bits;
  return TOI_OK;
}

double toi_score_stats_quantile(toi_score_stats *s, double q) {
  return toi_quantile(s->ulps, s->timed, q);
}

void toi_score_stats_free(toi_score_stats *s) {
  free(s->ulps);
  s->ulps = NULL;
}
