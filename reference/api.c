/* api.c: the reference's front door: one entry point per operation, each taking a toi_ref_query. */
#include <math.h>
#include <stddef.h>
#include <string.h>
#include "ref_bench.h"
#include "ref_common.h"
#include "ref_fast_api.h"
#include "ref_mpfr.h"
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/*
 * Every public entry point of toiref.h starts here and picks the engine
 * named by the query: the fast engine (fast/) for TOI_REF_FAST, which itself
 * falls back on the GMP/MPFR engine (mpfr/) for what it cannot certify, or
 * the GMP/MPFR engine directly. So the dependencies run one way: api.c ->
 * fast -> mpfr, and both engines only share ref_common.h below them.
 *
 * The precision is a field like the others: binary64 is the engines' own
 * path; another precision q has the same classes and directions, and each
 * root is RN_q(t*), rounded once from the exact root, by the MPFR engine
 * directly (mpfr/ref_roots.c) or by the fast engine from its certified
 * enclosures (fast/ref_fast_prec.c). Both engines give the same bits.
 *
 * Nothing here keeps a result between calls. The error and kappa measures
 * start from a prepared case (toi_ref_prepared), which the caller owns and
 * passes in the query, or which the call prepares on its own stack.
 */

/* The private layout of toi_ref_prepared. */
typedef struct ref_prep {
  uint32_t magic;        /* REF_PREP_MAGIC once toi_ref_prepare filled it */
  toi_ref_engine engine; /* the engine it was prepared with */
  toi_status chk;        /* ref_check_case's verdict on the case */
  toi_case c;            /* the case's numbers (id empty) */
  ref_fast_prep fp;      /* the fast engine's state (engine TOI_REF_FAST, chk TOI_OK) */
} ref_prep;

#define REF_PREP_MAGIC 0x746f6970u
#define REF_PREP_DEFERRED 0x746f6964u /* numbers and engine set, the rest to do (ref_prepare_deferred) */
#define REF_PREP_LIGHT 0x746f696cu /* numbers, the fast engine, chk TOI_OK and fp.st.r set (ref_prepare_deferred_solved) */

_Static_assert(sizeof(ref_prep) <= sizeof(toi_ref_prepared), "toi_ref_prepared too small");
_Static_assert(_Alignof(ref_prep) <= _Alignof(toi_ref_prepared), "toi_ref_prepared under-aligned");

static int engine_ok(toi_ref_engine e) { return e == TOI_REF_FAST || e == TOI_REF_MPFR; }
static int dir_ok(toi_direction d) { return d == TOI_FORWARD || d == TOI_REVERSE; }

toi_ref_query toi_ref_query_default(void) {
  toi_ref_query q = TOI_REF_QUERY_INIT;
  return q;
}

/* ---- solving ---- */

/* One case, engine e, precision q, R + *delta (delta NULL: R). */
static toi_status solve_by(toi_ref *out, const toi_case *c, const double *delta, toi_precision q, toi_ref_engine e) {
  const toi_precision_info *pi = toi_precision_get(q);
  if (!pi || !engine_ok(e)) {
    if (out) ref_clear(out, TOI_NONE);
    return TOI_ERR_RANGE;
  }
  if (q == TOI_BINARY64) return e == TOI_REF_FAST ? ref_solve_fast(out, c, delta) : ref_solve_mpfr(out, c, delta);
  if (e == TOI_REF_FAST) return ref_solve_fast_prec(out, c, delta, q);
  return ref_solve_mpfr_prec(out, c, delta, pi);
}

toi_status toi_ref_solve(toi_ref *out, const toi_ref_query *q) {
  if (!q) {
    if (out) ref_clear(out, TOI_NONE);
    return TOI_ERR_RANGE;
  }
  return solve_by(out, q->c, q->with_target ? &q->target : NULL, q->precision, q->engine);
}

/* The fast engine's vector kernels take whole groups of cases; the rest, and
 * every case of the MPFR engine or with a target, go one by one. */
toi_status toi_ref_solve_batch(toi_ref *out, toi_status *st, const toi_case *c, size_t n, const toi_ref_query *q,
                               size_t *nbad) {
  size_t bad = 0, i = 0;
  if (!out || !c || !q || !engine_ok(q->engine) || !toi_precision_get(q->precision)) {
    for (size_t j = 0; st && j < n; j++) st[j] = TOI_ERR_RANGE;
    for (size_t j = 0; out && j < n; j++) ref_clear(&out[j], TOI_NONE);
    if (nbad) *nbad = n;
    return TOI_ERR_RANGE;
  }
  const double *delta = q->with_target ? &q->target : NULL;
  if (q->engine == TOI_REF_FAST && !delta) {
    if (q->precision == TOI_BINARY64)
      i = ref_fast_solve_batch(out, st, c, n, &bad);
    else
      bad = ref_fast_solve_batch_prec(out, st, c, n, q->precision), i = n;
  }
  for (; i < n; i++) {
    toi_status s = solve_by(&out[i], &c[i], delta, q->precision, q->engine);
    if (st) st[i] = s;
    bad += s != TOI_OK;
  }
  if (nbad) *nbad = bad;
  return TOI_OK;
}

/* ---- the prepared case ---- */

/* c prepared for engine e, with chk ref_check_case's verdict on it (made by the caller). */
static void prep_fill_checked(ref_prep *p, const toi_case *c, toi_ref_engine e, toi_status chk) {
  p->engine = e;
  p->chk = chk;
  if (c) { /* the numbers, not the id */
    p->c.id[0] = 0;
    memcpy((char *)&p->c + offsetof(toi_case, dim), (const char *)c + offsetof(toi_case, dim),
           sizeof *c - offsetof(toi_case, dim));
  } else {
    memset(&p->c, 0, sizeof p->c);
  }
  if (p->chk == TOI_OK && e == TOI_REF_FAST) ref_fast_err_prepare(&p->fp, &p->c);
  p->magic = REF_PREP_MAGIC;
}

static void prep_fill(ref_prep *p, const toi_case *c, toi_ref_engine e) {
  prep_fill_checked(p, c, e, ref_check_case(c));
}

toi_status toi_ref_prepare(toi_ref_prepared *pp, const toi_ref_query *q) {
  if (!pp) return TOI_ERR_RANGE;
  ref_prep *p = (ref_prep *)(void *)pp->opaque;
  if (!q || !engine_ok(q->engine)) {
    p->magic = 0;
    return TOI_ERR_RANGE;
  }
  prep_fill(p, q->c, q->engine);
  return p->chk;
}

/* The bits of x ^ those of y: 0 exactly when x and y are the same double. */
static inline uint64_t bits_xor(double x, double y) {
  uint64_t a, b;
  memcpy(&a, &x, sizeof a);
  memcpy(&b, &y, sizeof b);
  return a ^ b;
}

/* 1 when c's numbers are p's, bit for bit (the measures depend on nothing else). */
static int same_case(const toi_case *p, const toi_case *c) {
  if (p->dim != c->dim) return 0;
#ifdef __SSE2__
  /* pa, va, ra and pb, vb, rb: seven doubles each, the masses after them
   * left out; the bits of two doubles a step. */
  _Static_assert(offsetof(toi_case, va) == offsetof(toi_case, pa) + 3 * sizeof(double) &&
                     offsetof(toi_case, ra) == offsetof(toi_case, pa) + 6 * sizeof(double) &&
                     offsetof(toi_case, vb) == offsetof(toi_case, pb) + 3 * sizeof(double) &&
                     offsetof(toi_case, rb) == offsetof(toi_case, pb) + 6 * sizeof(double),
                 "toi_case's numbers in this order");
  __m128i d = _mm_setzero_si128();
  for (int k = 0; k < 2; k++) {
    const double *x = k ? p->pb : p->pa, *y = k ? c->pb : c->pa;
    for (int i = 0; i < 6; i += 2)
      d = _mm_or_si128(d, _mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)(x + i)),
                                        _mm_loadu_si128((const __m128i *)(const void *)(y + i))));
    d = _mm_or_si128(d, _mm_xor_si128(_mm_loadl_epi64((const __m128i *)(const void *)(x + 6)),
                                      _mm_loadl_epi64((const __m128i *)(const void *)(y + 6))));
  }
  return _mm_movemask_epi8(_mm_cmpeq_epi8(d, _mm_setzero_si128())) == 0xffff;
#else
  uint64_t d = bits_xor(p->ra, c->ra) | bits_xor(p->rb, c->rb);
  for (int i = 0; i < 3; i++)
    d |= bits_xor(p->pa[i], c->pa[i]) | bits_xor(p->pb[i], c->pb[i]) | bits_xor(p->va[i], c->va[i]) |
         bits_xor(p->vb[i], c->vb[i]);
  return d == 0;
#endif
}

/* The prepared case a measure starts from: the query's, checked against its
 * c and engine, or *own prepared here for this call. NULL for a mismatch or
 * a prepared case toi_ref_prepare did not fill. */
/* The work a deferred *p left, done (REF_PREP_LIGHT kept when light: the
 * measure may not need it); 1 when *p is then a prepared case, else 0. */
static inline int prep_settle(ref_prep *p, int light) {
  if (p->magic == REF_PREP_LIGHT && !light) { /* the fast engine's state, the check being known */
    ref_fast_err_prepare(&p->fp, &p->c);
    p->magic = REF_PREP_MAGIC;
  }
  if (p->magic == REF_PREP_DEFERRED) { /* prep_fill's work past the copy, on the copy */
    p->chk = ref_check_case(&p->c);
    if (p->chk == TOI_OK && p->engine == TOI_REF_FAST) ref_fast_err_prepare(&p->fp, &p->c);
    p->magic = REF_PREP_MAGIC;
  }
  return p->magic == REF_PREP_MAGIC || p->magic == REF_PREP_LIGHT;
}

static ref_prep *prep_of(const toi_ref_query *q, ref_prep *own, int light) {
  if (q->prepared) {
    ref_prep *p = (ref_prep *)(void *)q->prepared->opaque;
    if (!prep_settle(p, light) || p->engine != q->engine) return NULL;
    /* The check reads the numbers alone: a c of p's numbers has p's verdict. */
    if (q->c && p->chk == TOI_OK && !same_case(&p->c, q->c)) return NULL;
    return p;
  }
  if (!engine_ok(q->engine)) return NULL;
  prep_fill(own, q->c, q->engine);
  return own;
}

/* ---- the error and kappa measures ---- */

/* The checks are made here, the same for both engines so that they refuse
 * alike; the fast path answers only what it proves, and MPFR starts again
 * from NaN. */
static toi_status error_of(double *ulp, double *bits, ref_prep *p, double T, toi_direction dir, toi_precision q) {
  *ulp = *bits = NAN;
  if (p->chk != TOI_OK) return p->chk;
  if (p->engine == TOI_REF_FAST && ref_fast_error_p(&p->fp, ulp, bits, T, dir, q)) return TOI_OK;
  *ulp = *bits = NAN;
  return q == TOI_BINARY64 ? ref_error_mpfr(ulp, bits, T, &p->c, dir) : ref_error_mpfr_prec(ulp, bits, T, &p->c, dir, q);
}

static toi_status kappa_of(double *kappa, ref_prep *p, toi_direction dir) {
  *kappa = NAN;
  if (p->chk != TOI_OK) return p->chk;
  if (p->engine == TOI_REF_FAST && ref_fast_kappa_p(&p->fp, kappa, &p->c, dir)) return TOI_OK;
  *kappa = NAN;
  return ref_kappa_mpfr(kappa, &p->c, dir);
}

static void error_clear(toi_ref_error_result *out) { out->ulp = out->bits = out->lo = out->hi = NAN; }
static void kappa_clear(toi_ref_kappa_result *out) { out->kappa = out->lo = out->hi = NAN; }

/* toi_ref_error's measure on p (prep_of's, light), dir and q valid: every
 * field of *out set. */
static inline toi_status error_measure(toi_ref_error_result *out, ref_prep *p, double T, toi_direction dir,
                                       toi_precision q) {
  if (p->magic == REF_PREP_LIGHT) {
    if (q == TOI_BINARY64 && ref_fast_error_light(&p->fp, &p->c, &out->ulp, &out->bits, T, dir)) {
      out->lo = out->hi = out->ulp;
      return TOI_OK;
    }
    ref_fast_err_prepare(&p->fp, &p->c); /* as prep_of would have */
    p->magic = REF_PREP_MAGIC;
  }
  toi_status st = error_of(&out->ulp, &out->bits, p, T, dir, q);
  out->lo = out->hi = out->ulp;
  return st;
}

toi_status toi_ref_error(toi_ref_error_result *out, const toi_ref_query *q) {
  if (!out) return TOI_ERR_RANGE;
  error_clear(out);
  if (!q || !dir_ok(q->dir) || !toi_precision_get(q->precision)) return TOI_ERR_RANGE;
  ref_prep own, *p = prep_of(q, &own, 1);
  if (!p) return TOI_ERR_RANGE;
  return error_measure(out, p, q->T, q->dir, q->precision);
}

/* The fast engine's enclosure where it has one, else the error itself. */
toi_status toi_ref_error_bound(toi_ref_error_result *out, const toi_ref_query *q) {
  if (!out) return TOI_ERR_RANGE;
  error_clear(out);
  if (!q || !dir_ok(q->dir) || !toi_precision_get(q->precision)) return TOI_ERR_RANGE;
  ref_prep own, *p = prep_of(q, &own, 0);
  if (!p) return TOI_ERR_RANGE;
  if (p->chk != TOI_OK) return p->chk;
  if (p->engine == TOI_REF_FAST &&
      ref_fast_error_bound_p(&p->fp, &out->lo, &out->hi, &out->bits, q->T, q->dir, q->precision)) {
    out->ulp = out->lo == out->hi ? out->lo : NAN;
    return TOI_OK;
  }
  toi_status st = error_of(&out->ulp, &out->bits, p, q->T, q->dir, q->precision);
  out->lo = out->hi = out->ulp;
  return st;
}

toi_status toi_ref_kappa(toi_ref_kappa_result *out, const toi_ref_query *q) {
  if (!out) return TOI_ERR_RANGE;
  kappa_clear(out);
  if (!q || !dir_ok(q->dir)) return TOI_ERR_RANGE;
  ref_prep own, *p = prep_of(q, &own, 0);
  if (!p) return TOI_ERR_RANGE;
  toi_status st = kappa_of(&out->kappa, p, q->dir);
  out->lo = out->hi = out->kappa;
  return st;
}

/* The fast engine's enclosure where it has one, else kappa itself. */
toi_status toi_ref_kappa_bound(toi_ref_kappa_result *out, const toi_ref_query *q) {
  if (!out) return TOI_ERR_RANGE;
  kappa_clear(out);
  if (!q || !dir_ok(q->dir)) return TOI_ERR_RANGE;
  ref_prep own, *p = prep_of(q, &own, 0);
  if (!p) return TOI_ERR_RANGE;
  if (p->chk != TOI_OK) return p->chk;
  if (p->engine == TOI_REF_FAST && ref_fast_kappa_bound_p(&p->fp, &out->lo, &out->hi, &p->c, q->dir)) {
    out->kappa = out->lo == out->hi ? out->lo : NAN;
    return TOI_OK;
  }
  toi_status st = kappa_of(&out->kappa, p, q->dir);
  out->lo = out->hi = out->kappa;
  return st;
}

/* ---- src/bench's private entry points (ref_bench.h) ---- */

/* toi_ref_solve's TOI_OK for c means ref_check_case(c) is TOI_OK: it returns
 * TOI_ERR_INPUT for every case that check refuses (toiref.h), whatever the
 * engine and precision. So the verdict is TOI_OK without the check, and
 * *pp is what toi_ref_prepare would make of c. */
void ref_prepare_solved(toi_ref_prepared *pp, const toi_case *c, toi_ref_engine e) {
  prep_fill_checked((ref_prep *)(void *)pp->opaque, c, e, TOI_OK);
}

int ref_prepared_offset(const toi_ref_prepared *pp, toi_direction dir, double R, double u, double *lo, double *hi) {
  if (!pp || !lo || !hi || !dir_ok(dir)) return 0;
  const ref_prep *p = (const ref_prep *)(const void *)pp->opaque;
  if (p->magic != REF_PREP_MAGIC || p->engine != TOI_REF_FAST || p->chk != TOI_OK) return 0;
  return ref_fast_offset_p(&p->fp, lo, hi, R, u, dir);
}

/* toi_ref_error's steps less those that cannot fail here: no query, and no
 * comparison of the case with *pp's numbers, which are the case's (copied
 * from it by ref_prepare_deferred or _deferred_solved), nor of the engine,
 * which is the one *pp was made with. */
toi_status ref_error_prepared(toi_ref_error_result *out, toi_ref_prepared *pp, double T, toi_direction dir,
                              toi_precision q) {
  ref_prep *p = (ref_prep *)(void *)pp->opaque;
  if (!dir_ok(dir) || (q != TOI_BINARY64 && !toi_precision_get(q)) || !prep_settle(p, 1)) {
    error_clear(out);
    return TOI_ERR_RANGE;
  }
  return error_measure(out, p, T, dir, q);
}

/* The copy prep_fill makes, the check (which reads the numbers alone) and the
 * fast engine's state left to prep_of. */
void ref_prepare_deferred(toi_ref_prepared *pp, const toi_case *c, toi_ref_engine e) {
  if (!pp) return;
  ref_prep *p = (ref_prep *)(void *)pp->opaque;
  p->magic = 0;
  if (!engine_ok(e)) return;
  p->engine = e;
  if (c) {
    p->c.id[0] = 0;
    memcpy((char *)&p->c + offsetof(toi_case, dim), (const char *)c + offsetof(toi_case, dim),
           sizeof *c - offsetof(toi_case, dim));
  } else {
    memset(&p->c, 0, sizeof p->c); /* dim 0: refused by the check, as a NULL case is */
  }
  p->magic = REF_PREP_DEFERRED;
}

/* As ref_prepare_deferred, and with r (toi_ref_solve's TOI_OK answer for c
 * in binary64, engine e) the check's verdict is TOI_OK (ref_prepare_solved);
 * the fast engine's state is left to the first measure that needs it, which
 * toi_ref_error in binary64 may not (ref_fast_error_light). */
void ref_prepare_deferred_solved(toi_ref_prepared *pp, const toi_case *c, toi_ref_engine e, const toi_ref *r) {
  ref_prepare_deferred(pp, c, e);
  ref_prep *p = (ref_prep *)(void *)pp->opaque;
  if (!c || !r || e != TOI_REF_FAST || p->magic != REF_PREP_DEFERRED) return;
  p->chk = TOI_OK;
  p->fp.st.r = *r;
  p->fp.lite = 0;
  p->magic = REF_PREP_LIGHT;
}

/* ---- the engines' names, as the command line spells them ---- */

const char *toi_ref_engine_name(toi_ref_engine e) {
  switch (e) {
  case TOI_REF_FAST: return "fast";
  case TOI_REF_MPFR: return "mpfr";
  }
  return NULL;
}

toi_status toi_ref_engine_parse(toi_ref_engine *out, const char *name) {
  if (!out || !name) return TOI_ERR_RANGE;
  if (!strcmp(name, "fast")) *out = TOI_REF_FAST;
  else if (!strcmp(name, "mpfr")) *out = TOI_REF_MPFR;
  else return TOI_ERR_RANGE;
  return TOI_OK;
}
