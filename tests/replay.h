/* replay.h: scores one formulation on one case straight from the reference API, for the sweep and worst tests. */
#ifndef TOI_TEST_REPLAY_H
#define TOI_TEST_REPLAY_H

#include <math.h>
#include "toi.h"
#include "toiref.h"

/* Outcome kinds, numbered as the sweep and hunt outputs name them. */
enum { RP_AGREE, RP_MISSED, RP_GHOST, RP_OTHER, RP_OUT_OF_DOMAIN };
static const char *const rp_kind_names[] = {"agree", "missed", "ghost", "other", "out-of-domain"};

typedef struct replay {
  toi_class cls, verdict;
  int kind, timed;
  double t, ref_t, ulp, bits;
} replay;

/* The scoring rules of src/cli/score.h, written again from their
   documentation so that the tests do not lean on the code they check. */
static inline int replay_case(replay *r, const toi_formulation *f, const toi_case *c) {
  toi_ref ref;
  if (toi_ref_solve(&ref, c) != TOI_OK) return -1;
  toi_result res = f->solve(c);
  r->cls = ref.cls;
  r->verdict = res.cls;
  r->t = res.t;
  r->ref_t = f->direction == TOI_FORWARD ? ref.tfwd : ref.trev;
  r->ulp = r->bits = NAN;
  r->timed = 0;
  if (f->domain && !(f->domain & TOI_CLASS_BIT(ref.cls))) {
    r->kind = RP_OUT_OF_DOMAIN;
    return 0;
  }
  toi_group gv = toi_class_group(res.cls);
  if (f->direction == TOI_FORWARD) {
    toi_group ge = toi_class_group(ref.cls);
    /* Same group: agree; exact contact, no-contact verdict: missed; exact no
       contact, any other verdict: ghost; the rest (overlap against anything,
       contact reported as overlap): other. */
    r->kind = gv == ge                                     ? RP_AGREE
              : ge == TOI_G_CONTACT && gv == TOI_G_NOCONTACT ? RP_MISSED
              : ge == TOI_G_NOCONTACT                        ? RP_GHOST
                                                             : RP_OTHER;
    r->timed = r->kind == RP_AGREE && ge == TOI_G_CONTACT && ref.fwd_is_lo >= 0;
  } else {
    int has_e = ref.rev_is_lo >= 0, has_v = gv != TOI_G_NOCONTACT;
    r->kind = has_e == has_v ? RP_AGREE : has_e ? RP_MISSED : RP_GHOST;
    r->timed = has_e && has_v;
  }
  if (r->timed) {
    if (!isfinite(res.t))
      r->ulp = r->bits = INFINITY;
    else if (toi_ref_error(&r->ulp, &r->bits, res.t, c, f->direction) != TOI_OK)
      return -1;
  }
  return 0;
}

#endif
