/* sweep.c: the order-independent accumulator of sweep statistics and the per-case scoring of candidates. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sweep.h"
#include "toiref.h"

static void cell_init(sweep_cell *c) {
  memset(c, 0, sizeof *c);
  c->max_ulp = c->max_bits = c->kmin = c->kmax = c->max_ratio = NAN;
}

/* Zeroed memory on whole cache lines of its own, so that the accumulators of
   two threads never share a line (no false sharing); NULL when out of memory
   or the size overflows. Freed with free. */
static void *zalloc_lines(size_t n) {
  size_t m = (n + 63) / 64 * 64;
  void *p = NULL;
  if (m < n || posix_memalign(&p, 64, m ? m : 64)) return NULL;
  memset(p, 0, m ? m : 64);
  return p;
}

int sweep_acc_init(sweep_acc *a, size_t nform, size_t nbins) {
  memset(a, 0, sizeof *a);
  a->nform = nform;
  a->nbins = nbins;
  a->bincount = zalloc_lines((nbins ? nbins : 1) * sizeof *a->bincount);
  a->bincls = zalloc_lines((nbins ? nbins : 1) * TOI_CLASS_COUNT * sizeof *a->bincls);
  size_t ncells = nform * nbins;
  a->cells = zalloc_lines((ncells > 0 ? ncells : 1) * sizeof *a->cells);
  if (!a->bincount || !a->bincls || !a->cells) {
    sweep_acc_free(a);
    return -1;
  }
  for (size_t i = 0; i < nform * nbins; i++) cell_init(&a->cells[i]);
  return 0;
}

void sweep_acc_free(sweep_acc *a) {
  free(a->bincount);
  free(a->bincls);
  free(a->cells);
  a->bincount = a->bincls = NULL;
  a->cells = NULL;
}

/* Maximum and minimum that treat NaN as "not set yet". */
static double max_set(double a, double b) { return isnan(a) || b > a ? b : a; }
static double min_set(double a, double b) { return isnan(a) || b < a ? b : a; }

void sweep_witness_offer(sweep_witness *w, double value, double aux, uint64_t index, const toi_case *c) {
  if (isnan(value)) return;
  if (w->set && !(value > w->value || (value == w->value && index < w->index))) return;
  w->set = 1;
  w->value = value;
  w->aux = aux;
  w->index = index;
  w->c = *c;
}

void sweep_witness_offer_first(sweep_witness *w, double value, double aux, uint64_t index,
                               const toi_case *c) {
  if (w->set && index >= w->index) return;
  w->set = 1;
  w->value = value;
  w->aux = aux;
  w->index = index;
  w->c = *c;
}

static void witness_merge(sweep_witness *w, const sweep_witness *o, int first) {
  if (!o->set) return;
  if (first)
    sweep_witness_offer_first(w, o->value, o->aux, o->index, &o->c);
  else
    sweep_witness_offer(w, o->value, o->aux, o->index, &o->c);
}

void sweep_acc_merge(sweep_acc *a, const sweep_acc *b) {
  for (size_t i = 0; i < a->nbins; i++) a->bincount[i] += b->bincount[i];
  for (size_t i = 0; i < a->nbins * TOI_CLASS_COUNT; i++) a->bincls[i] += b->bincls[i];
  for (size_t i = 0; i < a->nform * a->nbins; i++) {
    sweep_cell *x = &a->cells[i];
    const sweep_cell *y = &b->cells[i];
    x->cases += y->cases;
    for (int k = 0; k < TOI_SCORE_KIND_COUNT; k++) x->kind[k] += y->kind[k];
    for (int e = 0; e < TOI_CLASS_COUNT; e++)
      for (int v = 0; v < TOI_CLASS_COUNT; v++) x->confusion[e][v] += y->confusion[e][v];
    x->timed += y->timed;
    for (int h = 0; h < SWEEP_HBINS; h++) x->hist[h] += y->hist[h];
    for (int h = 0; h < SWEEP_KBINS; h++) x->khist[h] += y->khist[h];
    x->kinf += y->kinf;
    if (!isnan(y->max_ulp)) x->max_ulp = max_set(x->max_ulp, y->max_ulp);
    if (!isnan(y->max_bits)) x->max_bits = max_set(x->max_bits, y->max_bits);
    if (!isnan(y->max_ratio)) x->max_ratio = max_set(x->max_ratio, y->max_ratio);
    if (!isnan(y->kmin)) x->kmin = min_set(x->kmin, y->kmin);
    if (!isnan(y->kmax)) x->kmax = max_set(x->kmax, y->kmax);
    for (int w = 0; w < SW_WHAT_COUNT; w++) witness_merge(&x->w[w], &y->w[w], w == SW_MISCLASS);
  }
}

/* frexp by the bit pattern (frexp is a libm call, and this runs for every
   timed column of every case): x = m 2^e with |m| in [0.5, 1), m of x's sign;
   zero, infinities and NaN come back as they are with e = 0, as frexp gives
   them; a subnormal x is first scaled by 2^64 (exact). */
static inline __attribute__((always_inline)) double frexp_bits(double x, int *e) {
  uint64_t b;
  memcpy(&b, &x, sizeof b);
  int be = (int)(b >> 52 & 0x7ff), shift = 0;
  if (be == 0x7ff || (b << 1) == 0) {
    *e = 0;
    return x;
  }
  if (be == 0) { /* subnormal: 2^64 x is normal, exactly */
    x *= 0x1p64;
    memcpy(&b, &x, sizeof b);
    be = (int)(b >> 52 & 0x7ff);
    shift = 64;
  }
  *e = be - 1022 - shift;
  b = (b & ~((uint64_t)0x7ff << 52)) | (uint64_t)1022 << 52;
  memcpy(&x, &b, sizeof x);
  return x;
}

double sweep_frexp(double x, int *e) { return frexp_bits(x, e); }

/* The bins inline here (they run several times per scored column), and by their public names. */
static inline __attribute__((always_inline)) int ulp_bin(double ulp) {
  if (isnan(ulp) || ulp < 0) return -1;
  if (ulp == 0) return 0;
  if (isinf(ulp)) return SWEEP_HBINS - 1;
  if (ulp < 0.5) return 1;
  int e;
  (void)frexp_bits(ulp, &e); /* ulp in [2^(e-1), 2^e) */
  int h = e + 2;
  return h > SWEEP_HBINS - 3 ? SWEEP_HBINS - 2 : h;
}

static inline __attribute__((always_inline)) int kappa_bin(double kappa) {
  if (isnan(kappa) || kappa < 0) return -1;
  if (isinf(kappa)) return SWEEP_KBINS - 1;
  if (kappa < 2) return 0;
  int e;
  (void)frexp_bits(kappa, &e); /* kappa in [2^(e-1), 2^e) */
  int j = e - 1;
  return j > SWEEP_KBINS - 2 ? SWEEP_KBINS - 2 : j;
}

int sweep_ulp_bin(double ulp) { return ulp_bin(ulp); }
int sweep_kappa_bin(double kappa) { return kappa_bin(kappa); }

/* 2^k exactly as ldexp(1, k) gives it for k <= 1023, without the libm call
   (the ratio is taken for every timed column of every case): exact down to
   2^-1074, 0 below (2^-1075 is a tie and rounds to the even 0). */
static double pow2_upto_1023(int k) {
  if (k < -1074) return 0.0;
  uint64_t bits = k >= -1022 ? (uint64_t)(k + 1023) << 52 : (uint64_t)1 << (k + 1074);
  double d;
  memcpy(&d, &bits, sizeof d);
  return d;
}

/* The ratio of ulp over the denominator den (ratio_den). */
static double ratio_with(double ulp, double den) {
  if (isnan(ulp) || isnan(den)) return NAN;
  if (ulp == 0) return 0;
  if (isinf(ulp)) return INFINITY;
  return ulp / den;
}

static double ratio_den(double ref_t, double kappa, toi_precision q);

double sweep_ratio(double ulp, double ref_t, double kappa) { return sweep_ratio_prec(ulp, ref_t, kappa, TOI_BINARY64); }

double sweep_ratio_prec(double ulp, double ref_t, double kappa, toi_precision q) {
  return ratio_with(ulp, ratio_den(ref_t, kappa, q));
}

/* The ratio's denominator for ref_t, kappa and q, the same for every error
   (NaN where the ratio is NaN whatever the error). */
static double ratio_den(double ref_t, double kappa, toi_precision q) {
  if (!isfinite(ref_t) || ref_t == 0 || !isfinite(kappa) || !(kappa > 0)) return NAN;
  int p = 53, emin = -1022; /* binary64's, without the table's call (this runs for every timed column) */
  if (q != TOI_BINARY64) {
    const toi_precision_info *pi = toi_precision_get(q);
    p = pi->p, emin = pi->emin;
  }
  int e;
  double m = frexp_bits(fabs(ref_t), &e); /* |t*| = m 2^e, m in [0.5, 1) */
  int ue = (e - 1 < emin ? emin : e - 1) - (p - 1); /* ulp(t*) = 2^ue, as toi_ref_error */
  /* |T - t*| / (kappa 2^-p |t*| + 2^(emin-p)) (binary64: 2^-53, 2^-1075): the
     error against the best the format can do, the conditioning's share plus
     half the smallest subnormal (a subnormal t* cannot be closer than that,
     whatever kappa says). In units of 2^ue: numerator ulp, denominator
     kappa m 2^(e-p-ue) + 2^(emin-p-ue); the exponents stay small
     (e - p - ue <= 0, emin - p - ue <= -1), so nothing overflows on the way. */
  /* ldexp(m, e - p - ue) is exact (e - p - ue is 0, or in [-1074 - emin, -1]
     when t* is below 2^emin, and m 2^(e-p-ue) >= 2^(-1075-emin) is a normal
     double), so it is m times that power of two; ldexp(1, emin - p - ue) is
     the power itself, with its underflow. */
  return kappa * (m * pow2_upto_1023(e - p - ue)) + pow2_upto_1023(emin - p - ue);
}

/* A scored answer into its cell: kinds, confusion, witnesses, histograms. */
static void add_scored(sweep_cell *cell, const toi_score_case *sc, double ulp, double bits, toi_class ref_cls,
                       const toi_case *c, uint64_t index) {
  cell->cases++;
  if ((unsigned)sc->kind < TOI_SCORE_KIND_COUNT) cell->kind[sc->kind]++;
  unsigned verdict = (unsigned)sc->verdict < TOI_CLASS_COUNT ? (unsigned)sc->verdict : TOI_NONE;
  cell->confusion[ref_cls][verdict]++;
  if (sc->kind == TOI_SCORE_MISSED || sc->kind == TOI_SCORE_GHOST || sc->kind == TOI_SCORE_OTHER)
    sweep_witness_offer_first(&cell->w[SW_MISCLASS], (double)sc->kind, (double)verdict, index, c);
  if (!sc->timed) return;
  cell->timed++;
  int h = ulp_bin(ulp);
  if (h >= 0) cell->hist[h]++;
  if (!isnan(ulp)) cell->max_ulp = max_set(cell->max_ulp, ulp);
  if (!isnan(bits)) cell->max_bits = max_set(cell->max_bits, bits);
  /* As for the ratio: the witness holds max_ulp, so a smaller ULP error cannot win. */
  if (!(ulp < cell->max_ulp)) sweep_witness_offer(&cell->w[SW_MAX_ULP], ulp, bits, index, c);
}

/* The case as the candidates of each precision receive it, its exact answer
   and kappa there, computed when a column of that precision first needs it,
   and the case prepared for the reference's error and kappa measures
   (toi_ref_prepare, made when the first of them is asked). */
typedef struct sweep_view {
  int state; /* 0 unchanged, 1 rounded, -1 beyond the precision's range, 2 not computed yet */
  const toi_case *c; /* the case and its answer: cbuf, rbuf, or the caller's (binary64, given) */
  const toi_ref *ref;
  toi_case cbuf;
  toi_ref rbuf;
  double kappa[2], den[2]; /* per direction: kappa, the ratio's denominator (ratio_den) */
  int have[2];
  double kb[2][3]; /* per direction: an enclosure of kappa and the denominator at its low end (view_kappa_bound) */
  int have_kb[2];
  int have_prep;         /* 0 not prepared yet, 1 prepared (prep_st its status) */
  toi_status prep_st;
  toi_ref_prepared prep;
} sweep_view;

/* A query on the view's case, prepared once for all the view's measures:
   its direction dir, precision q and engine; the preparation's status. */
static toi_status view_query(toi_ref_query *rq, sweep_view *v, toi_direction dir, toi_ref_engine engine,
                             toi_precision q) {
  toi_ref_query z = TOI_REF_QUERY_INIT;
  *rq = z;
  rq->engine = engine;
  if (!v->have_prep) {
    rq->c = v->c;
    v->prep_st = toi_ref_prepare(&v->prep, rq);
    v->have_prep = 1;
  }
  rq->c = NULL;
  rq->prepared = &v->prep;
  rq->precision = q;
  rq->dir = dir;
  return v->prep_st;
}

/* Kappa of the view's root in direction dir, and the ratio's denominator with
   it (ref_t the root's time), computed the first time they are needed. */
static toi_status view_kappa(sweep_view *v, toi_direction dir, double ref_t, toi_ref_engine engine,
                             toi_precision q) {
  int d = dir == TOI_REVERSE;
  if (v->have[d]) return TOI_OK;
  toi_ref_query rq;
  toi_ref_kappa_result kr;
  toi_status st = view_query(&rq, v, dir, engine, q);
  if (st == TOI_OK) st = toi_ref_kappa(&kr, &rq);
  if (st != TOI_OK) return st;
  v->kappa[d] = kr.kappa;
  v->den[d] = ratio_den(ref_t, v->kappa[d], q);
  v->have[d] = 1;
  return TOI_OK;
}


/* Kappa and the ratio of a timed case in cell. */
static toi_status add_kappa(sweep_cell *cell, const toi_score_case *sc, double ulp, toi_direction dir, sweep_view *v,
                            uint64_t index, toi_ref_engine engine, toi_precision q) {
  toi_status st = view_kappa(v, dir, sc->ref_t, engine, q);
  if (st != TOI_OK) return st;
  int d = dir == TOI_REVERSE;
  double k = v->kappa[d];
  int kb = kappa_bin(k);
  if (kb < 0) return TOI_OK;
  cell->khist[kb]++;
  if (isinf(k)) {
    cell->kinf++;
    return TOI_OK;
  }
  cell->kmin = min_set(cell->kmin, k);
  cell->kmax = max_set(cell->kmax, k);
  double r = ratio_with(ulp, v->den[d]);
  if (isnan(r)) return TOI_OK;
  cell->max_ratio = max_set(cell->max_ratio, r);
  /* The witness holds the maximum (set exactly when it is): below it, r cannot win. */
  if (!(r < cell->max_ratio)) sweep_witness_offer(&cell->w[SW_MAX_RATIO], r, k, index, v->c);
  return TOI_OK;
}

static toi_status view_of(sweep_view *v, const toi_case *c, toi_precision q, toi_ref_engine engine) {
  if (v->state != 2) return TOI_OK;
  toi_round_state rs;
  toi_status st = toi_score_input(&v->cbuf, &v->rbuf, &rs, c, q, engine);
  v->state = rs;
  v->c = &v->cbuf;
  v->ref = &v->rbuf;
  if (st != TOI_OK) return TOI_ERR_RANGE;
  if (v->state >= 0 && (unsigned)v->ref->cls >= TOI_CLASS_COUNT) return TOI_ERR_RANGE;
  return TOI_OK;
}

/* An enclosure of the view's kappa in direction dir (toi_ref_kappa_bound),
   or kappa itself when it is known already, kept for the other columns, with
   the ratio's denominator at its low end (ref_t the root's time). */
static toi_status view_kappa_bound(sweep_view *v, toi_direction dir, double ref_t, toi_ref_engine engine,
                                   toi_precision q, double *lo, double *hi, double *den_lo) {
  int d = dir == TOI_REVERSE;
  if (v->have[d]) {
    *lo = *hi = v->kappa[d];
    *den_lo = v->den[d];
    return TOI_OK;
  }
  if (!v->have_kb[d]) {
    toi_ref_query rq;
    toi_ref_kappa_result kr;
    toi_status st = view_query(&rq, v, dir, engine, q);
    if (st == TOI_OK) st = toi_ref_kappa_bound(&kr, &rq);
    if (st != TOI_OK) return st;
    v->kb[d][0] = kr.lo;
    v->kb[d][1] = kr.hi;
    v->kb[d][2] = ratio_den(ref_t, v->kb[d][0], q);
    v->have_kb[d] = 1;
  }
  *lo = v->kb[d][0];
  *hi = v->kb[d][1];
  *den_lo = v->kb[d][2];
  return TOI_OK;
}

/* 1 when enclosures [lo, hi] of a timed answer's ULP error and [klo, khi] of
   its kappa decide all that the cell makes of them, as the errors would: lo
   and hi in the same histogram bin and hi below the cell's largest error,
   klo and khi in the same kappa bin, and either kappa infinite (klo = khi)
   or klo > 0 within the cell's range of kappa and the ratio of hi at klo
   (den_lo, ratio_den's) below the cell's largest ratio (the ratio grows with the error and falls
   with kappa: one division, by a denominator that grows with kappa). Then
   no maximum, minimum or witness moves, with the errors or with hi. */
static int lazy_decided(const sweep_cell *cell, double lo, double hi, double klo, double khi, double den_lo) {
  int kb = kappa_bin(klo);
  if (ulp_bin(lo) != ulp_bin(hi) || !(hi < cell->max_ulp) || kb < 0 || kb != kappa_bin(khi))
    return 0;
  if (isinf(klo)) return klo == khi;
  if (!(klo > 0 && klo >= cell->kmin && khi <= cell->kmax)) return 0;
  double r = ratio_with(hi, den_lo);
  return isnan(r) || r < cell->max_ratio;
}

/* A timed answer whose error was deferred (score_case_deferred) into its
   cell: from the enclosures of its error and kappa when they decide
   (lazy_decided; the error's bits are always exact), else from the error
   and kappa themselves, as add_scored and add_kappa take them. */
/* A scored column's error measure, shared by the columns with its answer
   (same_answer): 0 not measured yet, 1 the enclosure (toi_ref_error_bound's),
   2 the error itself (lo = hi). */
typedef struct error_memo {
  int have;
  toi_ref_error_result er;
} error_memo;

static toi_status add_lazy(sweep_cell *cell, const toi_score_case *sc, sweep_view *v, toi_direction dir, uint64_t index,
                           toi_ref_engine engine, toi_precision q, error_memo *m) {
  double klo, khi, den;
  toi_ref_query rq;
  toi_status st = TOI_OK;
  if (!m->have) {
    st = view_query(&rq, v, dir, engine, q);
    rq.T = sc->t;
    if (st == TOI_OK) st = toi_ref_error_bound(&m->er, &rq);
    if (st != TOI_OK) return st;
    m->have = m->er.lo == m->er.hi ? 2 : 1;
  }
  if ((st = view_kappa_bound(v, dir, sc->ref_t, engine, q, &klo, &khi, &den)) != TOI_OK) return st;
  if (lazy_decided(cell, m->er.lo, m->er.hi, klo, khi, den)) {
    add_scored(cell, sc, m->er.hi, m->er.bits, v->ref->cls, v->c, index); /* hi: in the error's bin, below the largest */
    cell->khist[kappa_bin(klo)]++;
    if (isinf(klo)) cell->kinf++;
    return TOI_OK;
  }
  if (m->have == 1) { /* lo < hi: the error itself */
    if ((st = view_query(&rq, v, dir, engine, q)) != TOI_OK) return st;
    rq.T = sc->t;
    if ((st = toi_ref_error(&m->er, &rq)) != TOI_OK) return st;
    m->have = 2;
  }
  add_scored(cell, sc, m->er.ulp, m->er.bits, v->ref->cls, v->c, index);
  return add_kappa(cell, sc, m->er.ulp, dir, v, index, engine, q);
}

/* Column j's answer: stored, or solved here for an in-process candidate; NULL when it cannot be had. */
static const toi_answer *answer_of(const toi_candidate *cand, const toi_answer *stored, const toi_case *c,
                                   toi_answer *own) {
  if (stored && (cand->flags & TOI_CAND_OUT_OF_PROCESS)) return stored;
  toi_run_info info;
  if (cand->flags & TOI_CAND_OUT_OF_PROCESS) return NULL; /* its answers come stored */
  if (toi_candidate_run(cand, c, 1, NULL, own, &info)) return NULL;
  return own;
}

toi_status sweep_eval_case_with(sweep_acc *acc, const toi_candidate *cands, size_t nc,
                                const toi_answer *const *stored, double tmax, const toi_case *c, size_t b,
                                uint64_t index, toi_ref_engine engine) {
  sweep_answer ans[SWEEP_MAXFORMS];
  if (nc > SWEEP_MAXFORMS) return TOI_ERR_RANGE;
  for (size_t j = 0; j < nc; j++) {
    toi_answer own;
    const toi_answer *a = answer_of(&cands[j], stored ? stored[j] : NULL, c, &own);
    ans[j].state = a ? (int)a->state : SWEEP_NOT_RUN;
    if (a) ans[j].r = a->r;
  }
  return sweep_eval_case_given(acc, cands, nc, ans, 1, tmax, c, b, index, engine, NULL);
}

/* The binary64 view from an exact answer solved before (toi_score_input's): the
   caller's case and answer themselves, not copies. */
static toi_status view_given(sweep_view *v, const toi_case *c, const toi_ref *ref) {
  v->state = 0;
  v->c = c;
  v->ref = ref;
  return (unsigned)ref->cls >= TOI_CLASS_COUNT ? TOI_ERR_RANGE : TOI_OK;
}

/* What the scoring of a column's answer depends on besides the case: the
   answer, bit for bit, and the column's precision, direction and domain. */
typedef struct answer_key {
  uint64_t t;    /* the time's bits */
  uint64_t rest; /* state, verdict, and the column's precision, direction and domain */
} answer_key;

static answer_key key_of(const toi_candidate *cand, const sweep_answer *a) {
  answer_key k;
  memcpy(&k.t, &a->r.t, sizeof k.t);
  k.rest = (uint64_t)(uint8_t)a->state | (uint64_t)(uint8_t)a->r.cls << 8 | (uint64_t)(uint8_t)cand->precision << 16 |
           (uint64_t)(uint8_t)cand->direction << 24 | (uint64_t)(uint32_t)cand->domain << 32;
  return k;
}

/* The first scored column k < j whose key is column j's (its score is then
   column j's), among the nrep columns rep[] that were the first with their key;
   j, appended to rep[], when there is none. An unscored column never shares a
   scored one's key (the state and precision that leave it unscored are in it). */
static size_t same_answer(const answer_key *keys, size_t *rep, size_t *nrep, size_t j) {
  for (size_t i = 0; i < *nrep; i++) {
    size_t k = rep[i];
    if (keys[k].t == keys[j].t && keys[k].rest == keys[j].rest) return k;
  }
  rep[(*nrep)++] = j;
  return j;
}

toi_status sweep_eval_case_given(sweep_acc *acc, const toi_candidate *cands, size_t nc,
                                 const sweep_answer *ans, size_t stride, double tmax, const toi_case *c,
                                 size_t b, uint64_t index, toi_ref_engine engine, const toi_ref *ref64) {
  sweep_view view[TOI_PRECISION_COUNT];
  toi_score_case sd[SWEEP_MAXFORMS]; /* each scored column's score (same_answer's columns share one) */
  answer_key keys[SWEEP_MAXFORMS];
  size_t rep[SWEEP_MAXFORMS], nrep = 0; /* the scored columns first with their key (same_answer) */
  error_memo memo[SWEEP_MAXFORMS]; /* each scored column's error measure (set when first needed) */
  for (int q = 0; q < TOI_PRECISION_COUNT; q++) {
    view[q].state = 2;
    view[q].kappa[0] = view[q].kappa[1] = NAN;
    view[q].have[0] = view[q].have[1] = 0;
    view[q].have_kb[0] = view[q].have_kb[1] = 0;
    view[q].have_prep = 0;
  }
  toi_status st = ref64 ? view_given(&view[TOI_BINARY64], c, ref64) : view_of(&view[TOI_BINARY64], c, TOI_BINARY64, engine);
  if (st != TOI_OK) return st;
  const toi_ref *r64 = view[TOI_BINARY64].ref;
  acc->bincount[b]++;
  acc->bincls[b * TOI_CLASS_COUNT + r64->cls]++;
  for (size_t j = 0; j < nc; j++) {
    const toi_candidate *cand = &cands[j];
    sweep_cell *cell = &acc->cells[j * acc->nbins + b];
    sweep_view *v = &view[cand->precision];
    if ((st = view_of(v, c, cand->precision, engine)) != TOI_OK) return st;
    const sweep_answer *a = &ans[j * stride];
    if (a->state == SWEEP_NOT_RUN) return TOI_ERR_RANGE;
    if (v->state < 0 || a->state != TOI_ANSWERED) { /* beyond its precision's range, declined or failed */
      cell->cases++;
      cell->kind[TOI_SCORE_OUT_OF_DOMAIN]++;
      continue;
    }
    keys[j] = key_of(cand, a);
    size_t k = same_answer(keys, rep, &nrep, j);
    if (k == j) {
      memo[j].have = 0;
      if ((st = score_case_deferred(&sd[j], a->r, cand->direction, cand->domain, v->c, v->ref, tmax)) != TOI_OK)
        return st;
    }
    const toi_score_case *sc = &sd[k]; /* read in place, not copied */
    if (sc->timed && isnan(sc->ulp)) {
      st = add_lazy(cell, sc, v, cand->direction, index, engine, cand->precision, &memo[k]);
      if (st != TOI_OK) return st;
      continue;
    }
    add_scored(cell, sc, sc->ulp, sc->bits, v->ref->cls, v->c, index);
    if (sc->timed && (st = add_kappa(cell, sc, sc->ulp, cand->direction, v, index, engine, cand->precision)) != TOI_OK)
      return st;
  }
  return TOI_OK;
}
