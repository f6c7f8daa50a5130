/* score.c: a formulation's verdict and time against the exact class and root. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "score.h"
#include "stats.h"

static int exact_has_reverse(const toi_ref *ref) { return ref->rev_is_lo >= 0; }

toi_status score_result(score_case *out, toi_result r, toi_direction dir, unsigned domain,
                        const toi_case *c, const toi_ref *ref) {
  memset(out, 0, sizeof *out);
  out->verdict = r.cls;
  out->ref_cls = ref->cls;
  out->t = r.t;
  out->ref_t = dir == TOI_FORWARD ? ref->tfwd : ref->trev;
  out->ulp = out->bits = NAN;
  if (domain && !(domain & TOI_CLASS_BIT(ref->cls))) {
    out->kind = SCORE_OUT_OF_DOMAIN;
    return TOI_OK;
  }
  toi_group gv = toi_class_group(r.cls);
  if (dir == TOI_FORWARD) {
    toi_group ge = toi_class_group(ref->cls);
    if (gv == ge)
      out->kind = SCORE_AGREE;
    else if (ge == TOI_G_CONTACT && gv == TOI_G_NOCONTACT)
      out->kind = SCORE_MISSED;
    else if (ge == TOI_G_NOCONTACT)
      out->kind = SCORE_GHOST;
    else
      out->kind = SCORE_OTHER;
    /* A forward time is scored only for a contact: an overlap's forward root
     * is the exit time, which no formulation means to report. */
    out->timed = out->kind == SCORE_AGREE && ge == TOI_G_CONTACT && ref->fwd_is_lo >= 0;
  } else {
    int has_e = exact_has_reverse(ref), has_v = gv != TOI_G_NOCONTACT;
    out->kind = has_e == has_v ? SCORE_AGREE : has_e ? SCORE_MISSED : SCORE_GHOST;
    out->timed = has_e && has_v;
  }
  if (out->timed) {
    /* An infinite time can be right (a root beyond DBL_MAX rounds to Inf):
     * the reference decides; a NaN time never is. */
    if (isnan(r.t)) {
      out->ulp = out->bits = INFINITY;
    } else {
      toi_status st = toi_ref_error(&out->ulp, &out->bits, r.t, c, dir);
      if (st != TOI_OK) return st;
    }
  }
  return TOI_OK;
}

toi_status score_eval(score_case *out, const toi_formulation *f, const toi_case *c, const toi_ref *ref) {
  return score_result(out, f->solve(c), f->direction, f->domain, c, ref);
}

void score_stats_init(score_stats *s, const char *name) {
  memset(s, 0, sizeof *s);
  s->name = name;
}

toi_status score_stats_add(score_stats *s, const score_case *sc, const char *id) {
  if (sc->kind == SCORE_OUT_OF_DOMAIN) {
    s->out_of_domain++;
    s->kind[SCORE_OUT_OF_DOMAIN]++;
    return TOI_OK;
  }
  s->cases++;
  s->kind[sc->kind]++;
  if (sc->kind != SCORE_AGREE && !s->worst_class_id[0]) snprintf(s->worst_class_id, sizeof s->worst_class_id, "%s", id);
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

double score_stats_quantile(score_stats *s, double q) {
  return toi_quantile(s->ulps, s->timed, q);
}

void score_stats_free(score_stats *s) {
  free(s->ulps);
  s->ulps = NULL;
}
