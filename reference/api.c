/* api.c: the reference's front door: solve, solve_target, batch, error and kappa by engine, and the engines' names. */
#include <math.h>
#include <string.h>
#include "ref_common.h"
#include "ref_fast_api.h"
#include "ref_mpfr.h"

/*
 * Every public entry point of toiref.h that takes an engine starts here and
 * picks it: the fast engine (fast/) for TOI_REF_FAST, which itself falls
 * back on the GMP/MPFR engine (mpfr/) for what it cannot certify, or the
 * GMP/MPFR engine directly. So the dependencies run one way: api.c -> fast
 * -> mpfr, and both engines only share ref_common.h below them.
 *
 * The short forms (no engine argument) use TOI_REF_FAST. There is no
 * process-wide setting: two callers in one process may use two engines.
 */

static toi_status ref_solve_by(toi_ref *out, const toi_case *c, const double *delta, toi_ref_engine e) {
  if (e == TOI_REF_FAST) return ref_solve_fast(out, c, delta);
  if (e == TOI_REF_MPFR) return ref_solve_mpfr(out, c, delta);
  return TOI_ERR_RANGE;
}

toi_status toi_ref_solve_engine(toi_ref *out, const toi_case *c, toi_ref_engine e) {
  return ref_solve_by(out, c, NULL, e);
}

toi_status toi_ref_solve_target_engine(toi_ref *out, const toi_case *c, double delta, toi_ref_engine e) {
  return ref_solve_by(out, c, &delta, e);
}

/* The fast engine's vector kernels take whole groups of cases; the rest, and
 * every case of the MPFR engine, go one by one. */
size_t toi_ref_solve_batch_engine(toi_ref *out, toi_status *st, const toi_case *c, size_t n, toi_ref_engine e) {
  size_t bad = 0, i = 0;
  if (!out || !c) {
    for (size_t j = 0; st && j < n; j++) st[j] = TOI_ERR_RANGE;
    return n;
  }
  if (e == TOI_REF_FAST) i = ref_fast_solve_batch(out, st, c, n, &bad);
  for (; i < n; i++) {
    toi_status s = toi_ref_solve_engine(&out[i], &c[i], e);
    if (st) st[i] = s;
    bad += s != TOI_OK;
  }
  return bad;
}

/* The checks are made here, the same for both engines so that they refuse
 * alike (the fast engine makes ref_check_case once per case, with the state
 * it keeps); the fast path answers only what it proves, and MPFR starts
 * again from NaN. */
toi_status toi_ref_error_engine(double *ulp, double *bits, double T, const toi_case *c, toi_direction dir,
                                toi_ref_engine e) {
  if (!ulp || !bits) return TOI_ERR_RANGE;
  *ulp = *bits = NAN;
  if (dir != TOI_FORWARD && dir != TOI_REVERSE) return TOI_ERR_RANGE;
  toi_status st;
  if (e == TOI_REF_FAST ? ref_fast_error_checked(&st, ulp, bits, T, c, dir, TOI_BINARY64)
                        : (st = ref_check_case(c)) != TOI_OK)
    return st;
  *ulp = *bits = NAN;
  return ref_error_mpfr(ulp, bits, T, c, dir);
}

toi_status toi_ref_kappa_engine(double *kappa, const toi_case *c, toi_direction dir, toi_ref_engine e) {
  if (!kappa) return TOI_ERR_RANGE;
  *kappa = NAN;
  if (dir != TOI_FORWARD && dir != TOI_REVERSE) return TOI_ERR_RANGE;
  toi_status st;
  if (e == TOI_REF_FAST ? ref_fast_kappa_checked(&st, kappa, c, dir) : (st = ref_check_case(c)) != TOI_OK)
    return st;
  *kappa = NAN;
  return ref_kappa_mpfr(kappa, c, dir);
}

/* The fast engine's enclosure where it has one, else kappa itself. */
toi_status toi_ref_kappa_bound(double *lo, double *hi, const toi_case *c, toi_direction dir, toi_ref_engine e) {
  if (!lo || !hi) return TOI_ERR_RANGE;
  toi_status st;
  if (e == TOI_REF_FAST && (dir == TOI_FORWARD || dir == TOI_REVERSE) &&
      ref_fast_kappa_bound_checked(&st, lo, hi, c, dir)) {
    if (st != TOI_OK) *lo = *hi = NAN;
    return st;
  }
  st = toi_ref_kappa_engine(lo, c, dir, e);
  *hi = *lo;
  return st;
}

/* ---- the short forms: the fast engine ---- */

toi_status toi_ref_solve(toi_ref *out, const toi_case *c) {
  return ref_solve_by(out, c, NULL, TOI_REF_FAST);
}

toi_status toi_ref_solve_target(toi_ref *out, const toi_case *c, double delta) {
  return ref_solve_by(out, c, &delta, TOI_REF_FAST);
}

size_t toi_ref_solve_batch(toi_ref *out, toi_status *st, const toi_case *c, size_t n) {
  return toi_ref_solve_batch_engine(out, st, c, n, TOI_REF_FAST);
}

toi_status toi_ref_error(double *ulp, double *bits, double T, const toi_case *c, toi_direction dir) {
  return toi_ref_error_engine(ulp, bits, T, c, dir, TOI_REF_FAST);
}

toi_status toi_ref_kappa(double *kappa, const toi_case *c, toi_direction dir) {
  return toi_ref_kappa_engine(kappa, c, dir, TOI_REF_FAST);
}

/* ---- the engines' names, as the command line spells them ---- */

const char *toi_ref_engine_name(toi_ref_engine e) {
  switch (e) {
  case TOI_REF_FAST: return "fast";
  case TOI_REF_MPFR: return "mpfr";
  }
  return NULL;
}

int toi_ref_engine_parse(const char *name) {
  if (!name) return -1;
  if (!strcmp(name, "fast")) return TOI_REF_FAST;
  if (!strcmp(name, "mpfr")) return TOI_REF_MPFR;
  return -1;
}
