/* ref_forms.h: the reference's entry points (toiref.h, one query struct each) in the argument forms the tests use. */
#ifndef TESTS_SUPPORT_REF_FORMS_H
#define TESTS_SUPPORT_REF_FORMS_H

#include <stddef.h>
#include "toiref.h"

/*
 * Each helper fills a toi_ref_query and calls the public entry point: the
 * tests of the reference ask the same things many times with a case, an
 * engine, a precision and a direction, and this spells each ask on one line.
 * Nothing here computes anything.
 */

static inline toi_ref_query tr_query(const toi_case *c, toi_precision q, toi_ref_engine e) {
  toi_ref_query rq = TOI_REF_QUERY_INIT;
  rq.c = c;
  rq.precision = q;
  rq.engine = e;
  return rq;
}

static inline toi_status tr_solve_prec(toi_ref *out, const toi_case *c, toi_precision q, toi_ref_engine e) {
  toi_ref_query rq = tr_query(c, q, e);
  return toi_ref_solve(out, &rq);
}

static inline toi_status tr_solve_engine(toi_ref *out, const toi_case *c, toi_ref_engine e) {
  return tr_solve_prec(out, c, TOI_BINARY64, e);
}

static inline toi_status tr_solve(toi_ref *out, const toi_case *c) { return tr_solve_prec(out, c, TOI_BINARY64, TOI_REF_FAST); }

static inline toi_status tr_solve_target_prec(toi_ref *out, const toi_case *c, double delta, toi_precision q,
                                              toi_ref_engine e) {
  toi_ref_query rq = tr_query(c, q, e);
  rq.with_target = 1;
  rq.target = delta;
  return toi_ref_solve(out, &rq);
}

static inline toi_status tr_solve_target_engine(toi_ref *out, const toi_case *c, double delta, toi_ref_engine e) {
  return tr_solve_target_prec(out, c, delta, TOI_BINARY64, e);
}

static inline toi_status tr_solve_target(toi_ref *out, const toi_case *c, double delta) {
  return tr_solve_target_prec(out, c, delta, TOI_BINARY64, TOI_REF_FAST);
}

/* toi_ref_solve_batch; the number of statuses not TOI_OK (n when refused). */
static inline size_t tr_batch_prec(toi_ref *out, toi_status *st, const toi_case *c, size_t n, toi_precision q,
                                   toi_ref_engine e) {
  toi_ref_query rq = tr_query(NULL, q, e);
  size_t bad = 0;
  if (toi_ref_solve_batch(out, st, c, n, &rq, &bad) != TOI_OK) return n;
  return bad;
}

static inline size_t tr_batch_engine(toi_ref *out, toi_status *st, const toi_case *c, size_t n, toi_ref_engine e) {
  return tr_batch_prec(out, st, c, n, TOI_BINARY64, e);
}

static inline size_t tr_batch(toi_ref *out, toi_status *st, const toi_case *c, size_t n) {
  return tr_batch_prec(out, st, c, n, TOI_BINARY64, TOI_REF_FAST);
}

static inline toi_status tr_error_prec(double *ulp, double *bits, double T, const toi_case *c, toi_direction dir,
                                       toi_precision q, toi_ref_engine e) {
  toi_ref_query rq = tr_query(c, q, e);
  rq.dir = dir;
  rq.T = T;
  toi_ref_error_result r;
  toi_status st = toi_ref_error(&r, &rq);
  *ulp = r.ulp;
  *bits = r.bits;
  return st;
}

static inline toi_status tr_error_engine(double *ulp, double *bits, double T, const toi_case *c, toi_direction dir,
                                         toi_ref_engine e) {
  return tr_error_prec(ulp, bits, T, c, dir, TOI_BINARY64, e);
}

static inline toi_status tr_error(double *ulp, double *bits, double T, const toi_case *c, toi_direction dir) {
  return tr_error_prec(ulp, bits, T, c, dir, TOI_BINARY64, TOI_REF_FAST);
}

static inline toi_status tr_error_bound(double *lo, double *hi, double *bits, double T, const toi_case *c,
                                        toi_direction dir, toi_precision q, toi_ref_engine e) {
  toi_ref_query rq = tr_query(c, q, e);
  rq.dir = dir;
  rq.T = T;
  toi_ref_error_result r;
  toi_status st = toi_ref_error_bound(&r, &rq);
  *lo = r.lo;
  *hi = r.hi;
  *bits = r.bits;
  return st;
}

static inline toi_status tr_kappa_engine(double *kappa, const toi_case *c, toi_direction dir, toi_ref_engine e) {
  toi_ref_query rq = tr_query(c, TOI_BINARY64, e);
  rq.dir = dir;
  toi_ref_kappa_result r;
  toi_status st = toi_ref_kappa(&r, &rq);
  *kappa = r.kappa;
  return st;
}

static inline toi_status tr_kappa(double *kappa, const toi_case *c, toi_direction dir) {
  return tr_kappa_engine(kappa, c, dir, TOI_REF_FAST);
}

static inline toi_status tr_kappa_bound(double *lo, double *hi, const toi_case *c, toi_direction dir, toi_ref_engine e) {
  toi_ref_query rq = tr_query(c, TOI_BINARY64, e);
  rq.dir = dir;
  toi_ref_kappa_result r;
  toi_status st = toi_ref_kappa_bound(&r, &rq);
  *lo = r.lo;
  *hi = r.hi;
  return st;
}

/* toi_ref_engine_parse's engine, or -1 for an unknown name. */
static inline int tr_engine_parse(const char *name) {
  toi_ref_engine e;
  return toi_ref_engine_parse(&e, name) == TOI_OK ? (int)e : -1;
}

#endif
