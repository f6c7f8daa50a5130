/* sweep.c: the order-independent accumulator of sweep statistics and the per-case scoring of candidates. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "ref_bench.h"
#include "ref_common.h"
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
  for (int s = 0; s < SWEEP_BY_COUNT; s++) a->lazy.placed[s] += b->lazy.placed[s];
  a->lazy.probes += b->lazy.probes;
  a->lazy.kappas += b->lazy.kappas;
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
  /* From the exponent field: an ulp >= 0.5 is a normal double or +Inf, and
     for 2^(e-1) <= ulp < 2^e (frexp's e) the biased exponent is e - 1 + 1023,
     so H = e + 2 is that field less 1020. NaN and negatives fail ulp >= 0.5
     and ulp > 0; -0 is 0. */
  if (!(ulp >= 0.5)) return ulp == 0 ? 0 : ulp > 0 ? 1 : -1;
  uint64_t b;
  memcpy(&b, &ulp, sizeof b);
  int be = (int)(b >> 52); /* the sign is 0 */
  if (be == 0x7ff) return SWEEP_HBINS - 1;
  int h = be - 1020;
  return h > SWEEP_HBINS - 3 ? SWEEP_HBINS - 2 : h;
}

static inline __attribute__((always_inline)) int kappa_bin(double kappa) {
  /* As ulp_bin: kappa >= 2 is normal or +Inf, in [2^(e-1), 2^e) with a
     biased exponent e - 1 + 1023, so J = e - 1 is that field less 1023. */
  if (!(kappa >= 2)) return kappa >= 0 ? 0 : -1;
  uint64_t b;
  memcpy(&b, &kappa, sizeof b);
  int be = (int)(b >> 52);
  if (be == 0x7ff) return SWEEP_KBINS - 1;
  int j = be - 1023;
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

/* ratio_den(R, kappa, TOI_BINARY64) for a normal R, the same double with
   fewer steps: |R| = m 2^e (frexp's), e - 1 >= -1022, so ulp(t*) = 2^ue
   with ue = e - 53, e - p - ue = 0 (the product m 2^0 is m) and emin - p -
   ue = -1022 - e: kappa m + 2^(-1022-e). */
static inline __attribute__((always_inline)) double ratio_den64n(double R, double kappa) {
  if (!isfinite(kappa) || !(kappa > 0)) return NAN;
  uint64_t b;
  memcpy(&b, &R, sizeof b);
  const int e = (int)(b >> 52 & 0x7ff) - 1022;
  b = (b & ~((uint64_t)0xfff << 52)) | (uint64_t)1022 << 52; /* m = |R| 2^-e, in [1/2, 1) */
  double m;
  memcpy(&m, &b, sizeof m);
  return kappa * m + pow2_upto_1023(-1022 - e);
}

double sweep_ratio_den(double ref_t, double kappa) { return ratio_den(ref_t, kappa, TOI_BINARY64); }
double sweep_ratio_den64n(double ref_t, double kappa) { return ratio_den64n(ref_t, kappa); }

/* The verdict of a score as the confusion counts take it: a class, or
   TOI_NONE for a value that is none (a candidate's answer is not checked). */
static inline __attribute__((always_inline)) unsigned verdict_of(const toi_score_case *sc) {
  return (unsigned)sc->verdict < TOI_CLASS_COUNT ? (unsigned)sc->verdict : TOI_NONE;
}

/* A scored answer into its cell: kinds, confusion, witnesses, histograms
   (inline: it runs for every scored column of every case); add_scored_h
   with h = ulp_bin(ulp) known already, ref_cls the exact class (< TOI_CLASS_COUNT:
   view_of, view_given) and verdict verdict_of(sc), both made once per answer.
   sc->kind is one of the kinds (score_core sets it from them). */
static inline __attribute__((always_inline)) void add_scored_h(sweep_cell *cell, const toi_score_case *sc, double ulp,
                                                               int h, double bits, unsigned ref_cls, unsigned verdict,
                                                               const toi_case *c, uint64_t index) {
  cell->cases++;
  cell->kind[sc->kind]++;
  cell->confusion[ref_cls][verdict]++;
  if (sc->kind == TOI_SCORE_MISSED || sc->kind == TOI_SCORE_GHOST || sc->kind == TOI_SCORE_OTHER)
    sweep_witness_offer_first(&cell->w[SW_MISCLASS], (double)sc->kind, (double)verdict, index, c);
  if (!sc->timed) return;
  cell->timed++;
  if (h >= 0) cell->hist[h]++;
  if (!isnan(ulp)) cell->max_ulp = max_set(cell->max_ulp, ulp);
  if (!isnan(bits)) cell->max_bits = max_set(cell->max_bits, bits);
  /* As for the ratio: the witness holds max_ulp, so a smaller ULP error cannot win. */
  if (!(ulp < cell->max_ulp)) sweep_witness_offer(&cell->w[SW_MAX_ULP], ulp, bits, index, c);
}

/* add_scored_h for a timed answer placed from the enclosures of its error
   and kappa (add_lazy, lazy_decided): h the bin of the error's upper end hi
   < the cell's largest error. A timed answer agrees (score_core times only
   an answer whose kind is TOI_SCORE_AGREE), so no misclassification
   witness; and max_set leaves the largest error as it is for hi below it, and
   no witness of it can win: add_scored_h would change the same counts, the
   bin and the largest bits, and nothing else. */
static inline __attribute__((always_inline)) void add_placed(sweep_cell *cell, const toi_score_case *sc, int h,
                                                             double bits, unsigned ref_cls, unsigned verdict) {
  cell->cases++;
  cell->kind[sc->kind]++; /* TOI_SCORE_AGREE */
  cell->confusion[ref_cls][verdict]++;
  cell->timed++;
  if (h >= 0) cell->hist[h]++;
  if (!isnan(bits)) cell->max_bits = max_set(cell->max_bits, bits);
}

static inline __attribute__((always_inline)) void add_scored(sweep_cell *cell, const toi_score_case *sc, double ulp,
                                                             double bits, unsigned ref_cls, unsigned verdict,
                                                             const toi_case *c, uint64_t index) {
  add_scored_h(cell, sc, ulp, sc->timed ? ulp_bin(ulp) : -1, bits, ref_cls, verdict, c, index);
}

/* An enclosure [lo, hi] of a root's kappa, the ratio's denominator at lo
   (ratio_den), and what lazy_decided asks of it alone, once per case and
   direction: bin, the kappa bin of both ends when they share it and either
   lo = hi = +Inf or lo > 0 (else -1); inf, lo infinite. */
typedef struct kappa_enc {
  double lo, hi, den;
  int bin, inf;
} kappa_enc;

static kappa_enc kappa_enc_of(double lo, double hi, double den) {
  kappa_enc k = {lo, hi, den, kappa_bin(lo), isinf(lo)};
  if (k.bin < 0 || k.bin != kappa_bin(hi) || (k.inf ? lo != hi : !(lo > 0))) k.bin = -1;
  return k;
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
  kappa_enc ke[2]; /* per direction: an enclosure of kappa (view_kappa_bound) */
  int have_kb[2];  /* per direction: 1 when ke[d] holds it */
  int have_off[2];   /* per direction: 0 not yet, 1 off[d] holds the root's offset (view_offset), -1 none */
  double off[2][2];  /* per direction: an enclosure [lo, hi] of (t* - R) / ulp(t*), R = RN(t*) */
  int have_prep;         /* 0 not prepared yet, 1 prepared (prep_st its status) in *pp */
  int tried[2];          /* per direction: bit 0 when ref_kappa_root_bound, bit 1 when ref_root_offset gave 0 already */
  sweep_lazy_counts *counts; /* the accumulator's (statistics) */
  toi_status prep_st;
  toi_ref_prepared *pp; /* &prep, or a preparation of the case made before the view (span_prep) */
  toi_ref_prepared prep;
} sweep_view;

/* A query on the view's case, prepared once for all the view's measures:
   its direction dir, precision q and engine; the preparation's status. Only
   a scored column asks, so the view's case is one the reference solved with
   TOI_OK with this engine (view_of: toi_score_input's status; view_given:
   sweep_eval_case_given's ref64; a case beyond the precision's range,
   state < 0, is never solved and never scored): ref_prepare_solved spares
   the case check, whose verdict is then TOI_OK. */
static toi_status view_query(toi_ref_query *rq, sweep_view *v, toi_direction dir, toi_ref_engine engine,
                             toi_precision q) {
  toi_ref_query z = TOI_REF_QUERY_INIT;
  *rq = z;
  rq->engine = engine;
  if (!v->have_prep) {
    ref_prepare_solved(v->pp, v->c, engine);
    v->prep_st = TOI_OK;
    v->have_prep = 1;
  }
  rq->prepared = v->pp;
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
  v->counts->kappas++;
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

/* An enclosure of the view's kappa in direction dir, or kappa itself when it
   is known already, kept for the other columns, with the ratio's denominator
   at its low end (ref_t the root's time). The enclosure comes from the case
   and ref_t alone where it can (ref_kappa_root_bound: ref_t is RN_q(t*),
   the reference's root of the view's case in dir, the view's case solved
   with TOI_OK, as view_query states), else from the prepared case
   (toi_ref_kappa_bound). Both enclose the same double, toi_ref_kappa's
   with either engine, and the callers (lazy_decided, inf_error_decided)
   decide from an enclosure only what every point of it decides, so which
   one is used changes no output. */
static __attribute__((noinline)) toi_status view_kappa_enclose(sweep_view *v, toi_direction dir, double ref_t,
                                                               toi_ref_engine engine, toi_precision q) {
  int d = dir == TOI_REVERSE;
  double lo, hi;
  if ((v->tried[d] & 1) || !ref_kappa_root_bound(&lo, &hi, v->c, ref_t, q)) {
    toi_ref_query rq;
    toi_ref_kappa_result kr;
    toi_status st = view_query(&rq, v, dir, engine, q);
    if (st == TOI_OK) st = toi_ref_kappa_bound(&kr, &rq);
    if (st != TOI_OK) return st;
    lo = kr.lo, hi = kr.hi;
  }
  v->ke[d] = kappa_enc_of(lo, hi, ratio_den(ref_t, lo, q));
  v->have_kb[d] = 1;
  return TOI_OK;
}

static inline __attribute__((always_inline)) toi_status view_kappa_bound(sweep_view *v, toi_direction dir,
                                                                         double ref_t, toi_ref_engine engine,
                                                                         toi_precision q, const kappa_enc **out) {
  int d = dir == TOI_REVERSE;
  if (v->have[d]) {
    if (v->have_kb[d] != 2) { /* kappa itself, measured since */
      v->ke[d] = kappa_enc_of(v->kappa[d], v->kappa[d], v->den[d]);
      v->have_kb[d] = 2;
    }
  } else if (!v->have_kb[d]) {
    toi_status st = view_kappa_enclose(v, dir, ref_t, engine, q);
    if (st != TOI_OK) return st;
  }
  *out = &v->ke[d];
  return TOI_OK;
}

/* 1 when enclosures [lo, hi] of a timed answer's ULP error and [klo, khi] of
   its kappa decide all that the cell makes of them, as the errors would: lo
   and hi in the same histogram bin (hsame: error_memo's) and hi below the cell's largest error,
   klo and khi in the same kappa bin, and either kappa infinite (klo = khi)
   or klo > 0 within the cell's range of kappa and the ratio of hi at klo
   (den_lo, ratio_den's) below the cell's largest ratio (the ratio grows with the error and falls
   with kappa: one division, by a denominator that grows with kappa). Then
   no maximum, minimum or witness moves, with the errors or with hi. */
static inline __attribute__((always_inline)) int lazy_decided(const sweep_cell *cell, int hsame, double hi,
                                                              const kappa_enc *k) {
  if (k->bin < 0 || !hsame || !(hi < cell->max_ulp)) return 0;
  if (k->inf) return 1; /* klo = khi = +Inf (kappa_enc_of) */
  if (!(k->lo >= cell->kmin && k->hi <= cell->kmax)) return 0;
  double r = ratio_with(hi, k->den);
  return isnan(r) || r < cell->max_ratio;
}

/*
 * The ULP error of an answer from its distance in values of the precision to
 * the correctly rounded root, before any measure of the reference's.
 *
 * Let R = RN_q(t*) be the root as the reference gives it (ref_t), u = ulp_q(R)
 * and T an answer. When R is a normal value of q that is not a power of two,
 * 2^e < |R| < 2^(e+1), every point within u/2 of R lies in (2^e, 2^(e+1))
 * (R is at least u away from both ends), so t* is in R's binade and
 * ulp_q(t*) = u (toiref.h's ulp, e >= emin). When T is a value of q of R's
 * sign and binade, T - R = k u exactly for an integer k (both are multiples
 * of u below 2^(e+1): their difference is a double, and dividing it by u is
 * exact). With delta = (t* - R) / u, |delta| <= 1/2 (round to nearest):
 *
 *   E = |T - t*| / u = |k - delta|,
 *
 * so E lies in [|k| - 1/2, |k| + 1/2] (k != 0) or [0, 1/2] (k = 0), and, with
 * an enclosure [dlo, dhi] of delta, in [k - dhi, k - dlo] (k >= 1: k - delta
 * > 0), [|k| + dlo, |k| + dhi] (k <= -1) or, for k = 0, the enclosure of
 * |delta|. The reference's ulp is RN(E) (toi_ref_error: correctly rounded),
 * and RN is monotone: E in [a, b] (a, b real) puts RN(E) in [RN(a), RN(b)],
 * and a floating-point a - b or a + b is RN of the exact result. So each end
 * computed below in doubles bounds the reference's ulp, which is all that
 * lazy_decided asks of lo and hi (its bins and comparisons are monotone in
 * the error).
 *
 * The bits (toiref.h: log2(1 + the number of values of q between T and
 * RN_q(t*))) are then exact too: consecutive values of q in one binade are u
 * apart, so T is |k| values from R, and ref_bits_apart (binary64) and
 * ref_bits_apart_prec (other precisions, T being a value of q) give
 * |k| <= 1 ? |k| : log2(1.0 + (double)|k|), as ulp_bits_for does.
 *
 * delta itself comes once per case and direction (view_offset) from an
 * enclosure of (t* - R) / u, which is delta, intersected with [-1/2, 1/2]:
 * one Newton step from R on the view's case, the lower or upper root as the
 * reference's answer names it (ref_root_offset, without preparing the case),
 * else the reference's enclosure of the prepared root (ref_prepared_offset),
 * or, where neither can be had, from one measure:
 * the answer T1 = R + u (a value of q, exact) has E1 = |1 - delta| = 1 - delta
 * (delta <= 1/2), so an enclosure [l1, h1] of RN(E1) (toi_ref_error_bound)
 * gives E1 in (pred(l1), succ(h1)) (RN(E1) >= l1 needs E1 above the midpoint
 * of pred(l1) and l1) and delta in [1 - succ(h1), 1 - pred(l1)], intersected
 * with [-1/2, 1/2]. 1 - x is exact for x in [1/2, 2] (Sterbenz); outside it
 * the rounded 1 - x is still beyond the clamp (below -1 for x > 2; above 1/2
 * for x < 1/2, as 1 - x rounds monotonically), so the clamped ends hold.
 */

/* k = (T - R) / ulp_q(R) into *k when the argument above applies to T and R
   (R a normal value of q, not a power of two; T finite, a value of q of R's
   sign and binade); u is ulp_q(R). 0 otherwise. */
static inline __attribute__((always_inline)) int ulp_distance(double *k, double *u, double T, double R,
                                                              toi_precision q) {
  /* By the bit patterns: R a normal double (exponent field neither 0 nor
     all ones), not a power of two (a significand field other than 0), and T
     with R's sign and exponent fields, so T is a normal double of R's sign
     and binade too (finite, not 0). For |R| in [2^(eR-1), 2^eR) (frexp's
     eR), the exponent field is eR - 1 + 1023. A subnormal R, refused here,
     is below every precision's normal range (emin >= -1022) as below. */
  uint64_t bR, bT;
  memcpy(&bR, &R, sizeof bR);
  memcpy(&bT, &T, sizeof bT);
  int be = (int)(bR >> 52 & 0x7ff);
  if ((bR ^ bT) >> 52 || be == 0 || be == 0x7ff || !(bR << 12)) return 0;
  int eR = be - 1022;
  int p = 53, emin = -1022;
  if (q != TOI_BINARY64) {
    const toi_precision_info *pi = toi_precision_get(q);
    if (!pi || !toi_is_value_of(T, q) || !toi_is_value_of(R, q)) return 0;
    p = pi->p, emin = pi->emin;
  }
  if (eR - 1 < emin) return 0; /* |R| below q's normal range */
  *u = pow2_upto_1023(eR - p); /* 2^(eR - 1 - (p - 1)) */
  /* exact, an integer (above); by 1/u, a power of two too, where it is a double */
  *k = p - eR <= 1023 ? (T - R) * pow2_upto_1023(p - eR) : (T - R) / *u;
  return 1;
}

/* The bits of an answer |k| values of q from RN_q(t*), as the reference
   gives them (ref_bits_apart, ref_bits_apart_prec: the same expression), as cell takes them
   (add_scored: only to raise its largest bits), without log2 where they
   cannot raise it: NaN then (add_scored leaves the largest bits). With
   x = 1 + |k| (exact: |k| <= 2^52) in [2^(n-1), 2^n), log2(x) < n, and libm's
   log2 errs by far less than 1 (an ulp or two, below 2^-45 here), so the
   bits it gives are below n + 1: when n + 1 <= the cell's largest
   bits, they leave it as it is. */
static double ulp_bits_for(double k, const sweep_cell *cell) {
  double dist = fabs(k);
  if (dist <= 1) return dist;
  /* x = 1 + |k| in (2, 2^52] (exact, above) is a normal double: frexp's n is its
     biased exponent less 1022, read from the bits (frexp_bits without its
     zero, infinite and subnormal cases). */
  double x = 1.0 + dist;
  uint64_t b;
  memcpy(&b, &x, sizeof b);
  int n = (int)(b >> 52) - 1022; /* the sign is 0 */
  if (n + 1 <= cell->max_bits) return NAN;
  return log2(x);
}

/* An enclosure [dlo, dhi] of delta = (t* - R) / u for the view's root in
   direction dir, R its rounding to q, kept for the case's other answers
   (the proof above ulp_distance), into v->off[d] with have_off[d] = 1, or
   have_off[d] = -1 when it cannot be had (R not fit for ulp_distance, or the
   reference's measure fails: the caller then measures as without it). */
static __attribute__((noinline)) void view_offset_measure(sweep_view *v, toi_direction dir, double R,
                                                          toi_ref_engine engine, toi_precision q) {
  int d = dir == TOI_REVERSE;
  {
    v->have_off[d] = -1; /* until it is had */
    double k, u;
    if (!ulp_distance(&k, &u, R, R, q)) return;
    double T1 = R + u; /* a multiple of u, at most 2^eR in magnitude: exact */
    toi_ref_query rq;
    toi_ref_error_result er;
    if (!isfinite(T1) || (q != TOI_BINARY64 && !toi_is_value_of(T1, q))) return;
    double lo, hi;
    int lower = dir == TOI_REVERSE ? v->ref->rev_is_lo : v->ref->fwd_is_lo;
    /* The prepared root's enclosure where the case is prepared already (it
       costs less than the step), else the step, else the preparation's. */
    int got = v->have_prep && ref_prepared_offset(v->pp, dir, R, u, &lo, &hi);
    if (!got && !(v->tried[d] & 2)) got = ref_root_offset(&lo, &hi, v->c, R, u, lower);
    if (!got) {
      if (view_query(&rq, v, dir, engine, q) != TOI_OK) return;
      rq.T = T1;
      v->counts->probes++;
      if (!ref_prepared_offset(v->pp, dir, R, u, &lo, &hi)) {
        if (toi_ref_error_bound(&er, &rq) != TOI_OK || !(er.lo >= 0) || !(er.hi < INFINITY)) return;
        lo = 1 - nextafter(er.hi, INFINITY), hi = 1 - nextafter(er.lo, -INFINITY);
      }
    } else {
      v->counts->probes++;
    }
    v->off[d][0] = lo < -0.5 ? -0.5 : lo;
    v->off[d][1] = hi > 0.5 ? 0.5 : hi;
    if (!(v->off[d][0] <= v->off[d][1])) return; /* cannot happen for a true enclosure */
    v->have_off[d] = 1;
  }
}

/* view_offset_measure once per case and direction, then the kept enclosure: 1, or 0 when it could not be had. */
static inline __attribute__((always_inline)) int view_offset(sweep_view *v, toi_direction dir, double R,
                                                             toi_ref_engine engine, toi_precision q, double *dlo,
                                                             double *dhi) {
  int d = dir == TOI_REVERSE;
  if (!v->have_off[d]) view_offset_measure(v, dir, R, engine, q);
  if (v->have_off[d] < 0) return 0;
  *dlo = v->off[d][0];
  *dhi = v->off[d][1];
  return 1;
}

/* A scored column's error measure, shared by the columns with its answer
   (same_answer), from the cheapest to the dearest: what each holds in er.lo,
   er.hi, and er.bits: exact from ERR_BOUND on (and from error_far's ERR_OFFSET), before it NaN and
   ulp_bits_for's from k. */
enum {
  ERR_NONE = 0,                 /* not measured yet */
  ERR_ULPS = SWEEP_BY_ULPS,     /* [|k| - 1/2, |k| + 1/2] from the answer's distance k alone (ulp_distance) */
  ERR_OFFSET = SWEEP_BY_OFFSET, /* |k - delta| from the root's offset (view_offset) */
  ERR_BOUND = SWEEP_BY_BOUND,   /* toi_ref_error_bound's enclosure, lo < hi */
  ERR_EXACT = SWEEP_BY_EXACT    /* the error itself: lo = hi = ulp */
};
typedef struct error_memo {
  int have;
  int hbin, hsame; /* ulp_bin(er.hi), and 1 when ulp_bin(er.lo) is the same (error_next) */
  double k; /* ERR_ULPS, ERR_OFFSET: the answer's distance (ulp_distance) */
  toi_ref_error_result er;
} error_memo;

/* The first level, ERR_ULPS, into m (have ERR_NONE) from the answer's
   distance k alone: 1, or 0 when ulp_distance does not apply (m unchanged). */
static inline __attribute__((always_inline)) int error_ulps(error_memo *m, const toi_score_case *sc,
                                                            toi_precision q) {
  double u;
  if (!ulp_distance(&m->k, &u, sc->t, sc->ref_t, q)) return 0;
  double a = fabs(m->k);
  m->er.ulp = NAN;
  m->er.lo = a == 0 ? 0 : a - 0.5;
  m->er.hi = a + 0.5;
  m->er.bits = NAN; /* ulp_bits(m->k), given to each cell as it needs it (ulp_bits_for) */
  m->have = ERR_ULPS;
  return 1;
}

/*
 * An answer in another binade than R's (or of the other sign), R = RN_q(t*)
 * being fit for ulp_distance (a normal value of q, not a power of two): its
 * error from the root's offset delta = (t* - R) / u in [dlo, dhi]
 * (view_offset), without the prepared case.
 *
 * t* is in R's binade (above ulp_distance), so ulp_q(t*) = u and the
 * reference's error is RN(E), E = |T - t*| / u = |k - delta| with the real
 * k = (T - R) / u. R is at least u inside its binade [2^e, 2^(e+1)) (a
 * multiple of u other than 2^e), so a finite T outside it, or of the other
 * sign (or zero), has |T - R| >= u. d = RN(T - R) (checked finite) has
 * |d - (T - R)| <= 2^-53 |d|, so K = d / u (exact: u a power of two, the
 * quotient checked in [1, 2^1000] in magnitude, which such a T passes as RN
 * is monotone and u a double) has k's sign and |k| in [|K| (1 - 2^-53),
 * |K| (1 + 2^-53)]: |k| > 1/2 >= |delta|, and E = |k| - sgn(k) delta lies in
 * [|k| + L, |k| + H] with L = -dhi, H = -dlo (k > 0) or L = dlo, H = dhi
 * (k < 0). |K| 2^-50 is exact. lo = RN(RN(|K| + L) - |K| 2^-50):
 * |K| + L >= 1/2 > 0, RN(|K| + L) <= |K| + L + (|K| + 1/2) 2^-53 <=
 * |K| + L + 1.5 |K| 2^-53, so x = RN(|K| + L) - |K| 2^-50 <= |K| + L -
 * 6.5 |K| 2^-53, and x >= (|K| + L)(1 - 2^-53) - 8 |K| 2^-53 > 0 (|K| + L
 * >= |K| / 2); RN(x) <= x + 2^-53 x <= x + 1.5 |K| 2^-53 <= |K| (1 - 2^-53)
 * + L: lo is at most E's lower end, a double, so lo <= RN(E). Likewise
 * hi = RN(RN(|K| + H) + |K| 2^-50) >= |K| (1 + 2^-53) + H: hi >= RN(E).
 * The bits are the reference's own (ref_bits_apart_prec of T and RN_q(t*),
 * as both engines give them), exact.
 */

/* The argument above's K = RN(T - R) / u and the reference's bits into *K
   and *bits, when its conditions hold (T finite, R fit for ulp_distance,
   T - R finite, |K| in [1, 2^1000], the bits not NaN): 1, else 0. */
static inline __attribute__((always_inline)) int far_distance(double *K, double *bits, double T, double R,
                                                              toi_precision q) {
  double k, u;
  if (!isfinite(T) || !ulp_distance(&k, &u, R, R, q)) return 0;
  const double d = T - R;
  if (!isfinite(d)) return 0;
  *K = d / u;
  const double aK = fabs(*K);
  if (!(aK >= 1 && aK <= 0x1p1000)) return 0;
  *bits = ref_bits_apart_prec(T, R, q);
  return *bits >= 0;
}

/* The argument above's enclosure [*lo, *hi] of the error E = |k - delta|
   from K (far_distance) and the root's offset delta in [dlo, dhi]. */
static inline __attribute__((always_inline)) void far_bounds(double *lo, double *hi, double K, double dlo,
                                                             double dhi) {
  const double aK = fabs(K), L = K > 0 ? -dhi : dlo, H = K > 0 ? -dlo : dhi;
  *lo = (aK + L) - aK * 0x1p-50;
  *hi = (aK + H) + aK * 0x1p-50;
}

/* The argument above for sc's answer, the offset from the case's view: 1
   with m at ERR_OFFSET and er.bits set (not NaN: add_lazy takes them, not
   k's); 0 when anything is not so. */
static int error_far(error_memo *m, const toi_score_case *sc, sweep_view *v, toi_direction dir,
                     toi_ref_engine engine, toi_precision q) {
  const double T = sc->t, R = sc->ref_t;
  double K, bits, dlo, dhi;
  if (!far_distance(&K, &bits, T, R, q) || !view_offset(v, dir, R, engine, q, &dlo, &dhi)) return 0;
  m->er.ulp = NAN;
  far_bounds(&m->er.lo, &m->er.hi, K, dlo, dhi);
  m->er.bits = bits;
  m->k = K;
  m->have = ERR_OFFSET;
  return 1;
}

/* The error measure at the next level, from m's (a cheaper one skipped when it
   cannot be had): status, and m->have > ERR_NONE then. */
static toi_status error_level(error_memo *m, const toi_score_case *sc, sweep_view *v, toi_direction dir,
                               toi_ref_engine engine, toi_precision q) {
  toi_ref_query rq;
  toi_status st;
  double dlo, dhi;
  switch (m->have) {
  case ERR_NONE:
    if (error_ulps(m, sc, q) || error_far(m, sc, v, dir, engine, q)) return TOI_OK;
    break;
  case ERR_ULPS:
    if (view_offset(v, dir, sc->ref_t, engine, q, &dlo, &dhi)) {
      double k = m->k;
      if (k >= 1) {
        m->er.lo = k - dhi;
        m->er.hi = k - dlo;
      } else if (k <= -1) {
        m->er.lo = -k + dlo;
        m->er.hi = -k + dhi;
      } else if (dlo >= 0) {
        m->er.lo = dlo;
        m->er.hi = dhi;
      } else if (dhi <= 0) {
        m->er.lo = -dhi;
        m->er.hi = -dlo;
      } else {
        m->er.lo = 0;
        m->er.hi = dhi > -dlo ? dhi : -dlo;
      }
      m->have = ERR_OFFSET;
      return TOI_OK;
    }
    break;
  case ERR_OFFSET:
    break;
  default: /* ERR_BOUND: the error itself */
    if ((st = view_query(&rq, v, dir, engine, q)) != TOI_OK) return st;
    rq.T = sc->t;
    if ((st = toi_ref_error(&m->er, &rq)) != TOI_OK) return st;
    m->have = ERR_EXACT;
    return TOI_OK;
  }
  st = view_query(&rq, v, dir, engine, q);
  rq.T = sc->t;
  if (st == TOI_OK) st = toi_ref_error_bound(&m->er, &rq);
  if (st != TOI_OK) return st;
  m->have = m->er.lo == m->er.hi ? ERR_EXACT : ERR_BOUND;
  return TOI_OK;
}

/* error_level, and the bins of the new level's ends, once for every column
   with the answer (lazy_decided, add_scored_h). The first level, the usual
   one, inline (error_level would try error_ulps again, in vain, and go on). */
static inline __attribute__((always_inline)) toi_status error_next(error_memo *m, const toi_score_case *sc,
                                                                   sweep_view *v, toi_direction dir,
                                                                   toi_ref_engine engine, toi_precision q) {
  if (!(m->have == ERR_NONE && error_ulps(m, sc, q))) {
    toi_status st = error_level(m, sc, v, dir, engine, q);
    if (st != TOI_OK) return st;
  }
  m->hbin = ulp_bin(m->er.hi);
  m->hsame = ulp_bin(m->er.lo) == m->hbin;
  return TOI_OK;
}

/* A scored column's score and error measure (the columns with its answer
   share them: same_answer), on 128 bytes, so that the column's entry is
   reached by a shift of its index, not a multiplication, per column of every case. */
typedef union column_score {
  struct {
    toi_score_case sc;
    error_memo m; /* set when first needed */
    unsigned char ref_cls, verdict; /* the view's exact class, verdict_of(&sc) (add_scored_h) */
  } s;
  char pow2[128];
} column_score;
_Static_assert(sizeof(column_score) == 128, "a power of two");

/* A timed answer whose error was deferred into its cell from the enclosures
   of its error m and kappa ke when they decide (lazy_decided; the error's
   bits are always exact): 1, else 0 with the cell unchanged. */
static inline __attribute__((always_inline)) int lazy_place(sweep_cell *cell, const column_score *cs, sweep_view *v,
                                                            const kappa_enc *ke) {
  const error_memo *m = &cs->s.m;
  if (!lazy_decided(cell, m->hsame, m->er.hi, ke)) return 0;
  double bits = m->have <= ERR_OFFSET && isnan(m->er.bits) ? ulp_bits_for(m->k, cell) : m->er.bits;
  /* hi: in the error's bin, below the largest */
  add_placed(cell, &cs->s.sc, m->hbin, bits, cs->s.ref_cls, cs->s.verdict);
  v->counts->placed[m->have]++;
  cell->khist[ke->bin]++;
  cell->kinf += ke->inf;
  return 1;
}

/* add_lazy past a first attempt that did not decide: each dearer enclosure
   of the error in turn (error_next), else the error and kappa themselves, as
   add_scored and add_kappa take them. Out of line: the usual column is
   placed at the first attempt, and the loop's registers would cost it. */
static __attribute__((noinline)) toi_status add_lazy_next(sweep_cell *cell, column_score *cs, sweep_view *v,
                                                          toi_direction dir, uint64_t index, toi_ref_engine engine,
                                                          toi_precision q, const kappa_enc *ke) {
  const toi_score_case *sc = &cs->s.sc;
  error_memo *m = &cs->s.m;
  toi_status st;
  while (m->have != ERR_EXACT) {
    if ((st = error_next(m, sc, v, dir, engine, q)) != TOI_OK) return st;
    if (lazy_place(cell, cs, v, ke)) return TOI_OK;
  }
  add_scored(cell, sc, m->er.ulp, m->er.bits, cs->s.ref_cls, cs->s.verdict, v->c, index);
  v->counts->placed[ERR_EXACT]++;
  return add_kappa(cell, sc, m->er.ulp, dir, v, index, engine, q);
}

/* A timed answer whose error was deferred (score_case_deferred) into its
   cell: from the enclosures of its error and kappa when they decide
   (lazy_place), each enclosure tried from the cheapest (error_next), else
   from the error and kappa themselves (add_lazy_next). */
static inline __attribute__((always_inline)) toi_status add_lazy(sweep_cell *cell, column_score *cs, sweep_view *v,
                                                                 toi_direction dir, uint64_t index,
                                                                 toi_ref_engine engine, toi_precision q) {
  const toi_score_case *sc = &cs->s.sc;
  error_memo *m = &cs->s.m;
  const kappa_enc *ke;
  toi_status st = TOI_OK;
  if (m->have == ERR_NONE && (st = error_next(m, sc, v, dir, engine, q)) != TOI_OK) return st;
  if ((st = view_kappa_bound(v, dir, sc->ref_t, engine, q, &ke)) != TOI_OK) return st;
  if (lazy_place(cell, cs, v, ke)) return TOI_OK;
  return add_lazy_next(cell, cs, v, dir, index, engine, q, ke);
}

/* 1 when kappa's enclosure k decides all that add_kappa makes of a timed
   answer with an infinite error (a NaN time) in cell, as kappa would: k's
   ends share a kappa bin (kappa_enc_of), so kappa is in it; then either
   kappa = +Inf (lo = hi), which add_kappa only counts, or kappa is finite and
   > 0 within the cell's range (kmin, kmax stay) and the ratio is NaN (the
   denominator NaN: ref_t not finite or 0, since kappa is finite and > 0, as
   at k->lo) or +Inf, and +Inf changes neither the largest ratio nor its
   witness: a witness of +Inf already there from an index no later. */
static int inf_error_decided(const sweep_cell *cell, const kappa_enc *k, uint64_t index) {
  if (k->bin < 0) return 0;
  if (k->inf) return 1;
  if (!(k->lo >= cell->kmin && k->hi <= cell->kmax)) return 0;
  if (isnan(k->den)) return 1;
  const sweep_witness *w = &cell->w[SW_MAX_RATIO];
  return cell->max_ratio == INFINITY && w->set && w->value == INFINITY && w->index <= index;
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

/* The column's part of rest: its precision, direction and domain. */
static uint64_t column_key(const toi_candidate *cand) {
  return (uint64_t)(uint8_t)cand->precision << 16 | (uint64_t)(uint8_t)cand->direction << 24 |
         (uint64_t)(uint32_t)cand->domain << 32;
}

/* The key of answer a in a column whose part is col (column_key). */
static inline __attribute__((always_inline)) answer_key key_of(uint64_t col, const sweep_answer *a) {
  answer_key k;
  memcpy(&k.t, &a->r.t, sizeof k.t);
  k.rest = (uint64_t)(uint8_t)a->state | (uint64_t)(uint8_t)a->r.cls << 8 | col;
  return k;
}

/* A key no scored column has (its state byte is not TOI_ANSWERED's): an
   unscored column's, so that same_answer may compare every column before j. */
static const answer_key no_key = {0, UINT64_MAX};

/* The first scored column k < j whose key is column j's (its score is then
   column j's), or j. Every column before j is compared, without a branch per
   comparison (they are hard to predict, and the count j follows the columns):
   bit i of hit for column i, the first the lowest. The lowest column with a
   key is the one that was scored with it. */
static size_t same_answer(const answer_key *keys, size_t j, uint64_t *seen, uint8_t *first) {
  _Static_assert(SWEEP_MAXFORMS <= 64, "one bit per column");
  const answer_key kj = keys[j];
  /* *seen has bit h set for each hash h of an earlier scored key, first[h]
     the first column with it: none of them has kj's key when kj's hash is
     not there, the usual case; first[h] is the answer when its key is kj's
     (a column with kj's key has kj's hash, so none comes before it). */
  /* The key folded onto itself before the multiplication: a multiplication
     carries a difference only upwards, so keys apart in a single high bit
     alone (two columns' domains, bit 33 of rest) could share the top six
     bits of the product for good, as two columns answering no contact (NaN)
     in every case did; any hash gives the same result, only the scans below
     depend on it. */
  uint64_t x = kj.t ^ kj.t >> 32 ^ kj.rest;
  unsigned h = (unsigned)((x ^ x >> 29) * 0x9e3779b97f4a7c15u >> 58);
  if (!(*seen >> h & 1)) {
    *seen |= (uint64_t)1 << h;
    first[h] = (uint8_t)j;
    return j;
  }
  const answer_key kf = keys[first[h]];
  if (kf.t == kj.t && kf.rest == kj.rest) return first[h];
  uint64_t hit = 0;
  for (size_t i = 0; i < j; i++) hit |= (uint64_t)((keys[i].t == kj.t) & (keys[i].rest == kj.rest)) << i;
  return hit ? (size_t)__builtin_ctzll(hit) : j;
}

/* A column's score table (sweep_acc's coltab): for a binary64 column, the
   score of an answer with each verdict v against an exact answer of class e
   with a root in the column's direction or without (root 1 or 0), without a
   step, as tab[root][e][v] = SCORE_TAB_SET | its kind | SCORE_TAB_TIMED when
   it is timed; 0 everywhere for another precision (scored the general way).
   Filled by score_case_deferred itself on an exact answer reduced to what it
   reads of one without a step (score_core: the class and whether the root
   exists) and a time that is not NaN (the only other thing it reads of the
   answer), so the table holds its scores, not a second copy of its rules. */
#define SCORE_TAB_SET 0x80u
#define SCORE_TAB_TIMED 0x40u
#define SCORE_TAB_MISCLASS 0x20u /* the kind is missed, ghost or other (a misclassification witness) */
#define SCORE_TAB_KIND 0x07u
typedef uint8_t score_tab[2][TOI_CLASS_COUNT][TOI_CLASS_COUNT];

static void score_table(score_tab tab, const toi_candidate *cand) {
  memset(tab, 0, sizeof(score_tab));
  if (cand->precision != TOI_BINARY64) return;
  toi_case c;
  memset(&c, 0, sizeof c);
  for (int root = 0; root < 2; root++)
    for (int e = 0; e < TOI_CLASS_COUNT; e++)
      for (int v = 0; v < TOI_CLASS_COUNT; v++) {
        toi_ref ref = {(toi_class)e, 1, 2, 1, -1, root ? 1 : -1, root ? 1 : -1};
        toi_result r = {(toi_class)v, 1};
        toi_score_case sc;
        if (score_case_deferred(&sc, r, cand->direction, cand->domain, &c, &ref, INFINITY) != TOI_OK) continue;
        if ((unsigned)sc.kind > SCORE_TAB_KIND || verdict_of(&sc) != (unsigned)v || sc.ref_cls != (toi_class)e)
          continue;
        const int mis = sc.kind == TOI_SCORE_MISSED || sc.kind == TOI_SCORE_GHOST || sc.kind == TOI_SCORE_OTHER;
        tab[root][e][v] = (uint8_t)(SCORE_TAB_SET | (unsigned)sc.kind | (sc.timed ? SCORE_TAB_TIMED : 0) |
                                    (mis ? SCORE_TAB_MISCLASS : 0));
      }
}

/* The case the table pass prepared for the reference's measures
   (ref_prepare_solved with engine), where kappa's enclosure or the root's
   offset could not be had from the case and its root alone: one case at a
   time (c, NULL before the first), handed on to the case's view
   (eval_case_cols), which would prepare it for the same measures. */
typedef struct span_prep {
  const toi_case *c;
  toi_ref_engine engine;
  int bset[2]; /* per direction, 1 when er[d] holds the reference's enclosure of the error of bT[d] (span_bound) */
  double bT[2];
  toi_ref_error_result er[2];
  toi_ref_prepared p;
} span_prep;

/* What sweep_eval_span's table pass (span_case_cols) learnt of one case without a
   view, per direction: kappa's enclosure (kb 1; 2: kappa itself, measured
   on the prepared case (span_kappa_exact), ke[d] its point enclosure; -1:
   not had from the case and its root alone, the prepared case not asked
   yet; -2: not had either way) and the root's offset (off_set 1; 2: had by span_prepare and not
   used yet, which counts it as a probe when it is; -1: not had by the step,
   the prepared case not asked yet; -2: not had either way). sp: the span's
   preparation (span_prep). rs: per direction, 1 / ulp(R) where the root R
   is fit for ulp_distance and that is a double, else 0 (span_prepare; what
   span_timed needs of R alone). The view made for the case's remaining
   columns starts from what was had. */
typedef struct span_case {
  kappa_enc ke[2];
  double off[2][2];
  double rs[2];
  signed char kb[2], off_set[2];
  span_prep *sp;
} span_case;

/* Makes acc's column keys and score tables for cands, once per accumulator. */
static void acc_key(sweep_acc *acc, const toi_candidate *cands, size_t nc) {
  if (acc->keyed == cands && acc->nkeyed == nc) return;
  for (size_t j = 0; j < nc; j++) acc->colkey[j] = column_key(&cands[j]);
  for (size_t j = 0; j < nc; j++) score_table(acc->coltab[j], &cands[j]);
  acc->keyed = cands;
  acc->nkeyed = nc;
}

/* sweep_eval_case_given for the columns of todo (bit j for column j; the
   others were scored already), the binary64 view starting from sc0 (NULL:
   nothing known). */
static toi_status eval_case_cols(sweep_acc *acc, const toi_candidate *cands, size_t nc, const sweep_answer *ans,
                                 size_t stride, double tmax, const toi_case *c, size_t b, uint64_t index,
                                 toi_ref_engine engine, const toi_ref *ref64, uint64_t todo, const span_case *sc0) {
  sweep_view view[TOI_PRECISION_COUNT];
  column_score sd[SWEEP_MAXFORMS]; /* each scored column's score and error measure (same_answer's columns share them) */
  answer_key keys[SWEEP_MAXFORMS];
  uint64_t seen = 0; /* the hashes of the scored columns' keys (same_answer) */
  uint8_t first[64];  /* for each hash in seen, the first column with it */
  for (int q = 0; q < TOI_PRECISION_COUNT; q++) {
    view[q].state = 2;
    view[q].kappa[0] = view[q].kappa[1] = NAN;
    view[q].have[0] = view[q].have[1] = 0;
    view[q].have_kb[0] = view[q].have_kb[1] = 0;
    view[q].have_off[0] = view[q].have_off[1] = 0;
    view[q].have_prep = 0;
    view[q].pp = &view[q].prep;
    view[q].tried[0] = view[q].tried[1] = 0;
    view[q].counts = &acc->lazy;
  }
  toi_status st = ref64 ? view_given(&view[TOI_BINARY64], c, ref64) : view_of(&view[TOI_BINARY64], c, TOI_BINARY64, engine);
  if (st != TOI_OK) return st;
  const toi_ref *r64 = view[TOI_BINARY64].ref;
  acc->bincount[b]++;
  acc->bincls[b * TOI_CLASS_COUNT + r64->cls]++;
  if (!todo) return TOI_OK;
  if (sc0 && sc0->sp->c == c) { /* prepared by the table pass */
    view[TOI_BINARY64].pp = &sc0->sp->p;
    view[TOI_BINARY64].have_prep = 1;
    view[TOI_BINARY64].prep_st = TOI_OK;
  }
  for (int d = 0; sc0 && d < 2; d++) {
    sweep_view *v = &view[TOI_BINARY64];
    if (sc0->kb[d] > 0) v->ke[d] = sc0->ke[d], v->have_kb[d] = 1;
    if (sc0->kb[d] == 2) /* kappa itself, as view_kappa keeps it */
      v->kappa[d] = sc0->ke[d].lo, v->den[d] = sc0->ke[d].den, v->have[d] = 1, v->have_kb[d] = 2;
    /* what failed there fails again: not asked twice */
    v->tried[d] = (sc0->kb[d] < 0) | (sc0->off_set[d] < 0) << 1;
    if (sc0->off_set[d] > 0) v->off[d][0] = sc0->off[d][0], v->off[d][1] = sc0->off[d][1], v->have_off[d] = 1;
  }
  /* Column j's cell, view and answer by pointers that step with j (a view is
     large: an index would multiply by its size, per column of every case). */
  sweep_view *vq[TOI_PRECISION_COUNT];
  for (int q = 0; q < TOI_PRECISION_COUNT; q++) vq[q] = &view[q];
  acc_key(acc, cands, nc);
  const uint64_t *colkey = acc->colkey;
  const size_t nbins = acc->nbins; /* read once: the cells' counts could alias it for the compiler */
  sweep_cell *cell = acc->cells + b - nbins;
  const sweep_answer *a = ans - stride;
  for (size_t j = 0; j < nc; j++) {
    const toi_candidate *cand = &cands[j];
    cell += nbins;
    a += stride;
    if (!(todo >> j & 1)) {
      keys[j] = no_key;
      continue;
    }
    sweep_view *v = vq[cand->precision];
    /* A view made (state 0 or 1) and an answer: nothing below applies, so
       the usual column makes one test (states -1 and 2 fail the first). */
    if ((unsigned)v->state > 1 || a->state != TOI_ANSWERED) {
      if ((st = view_of(v, c, cand->precision, engine)) != TOI_OK) return st;
      if (a->state == SWEEP_NOT_RUN) return TOI_ERR_RANGE;
      if (v->state < 0 || a->state != TOI_ANSWERED) { /* beyond its precision's range, declined or failed */
        keys[j] = no_key;
        cell->cases++;
        cell->kind[TOI_SCORE_OUT_OF_DOMAIN]++;
        continue;
      }
    }
    keys[j] = key_of(colkey[j], a);
    size_t k = same_answer(keys, j, &seen, first);
    if (k == j) {
      sd[j].s.m.have = ERR_NONE;
      if ((st = score_case_deferred(&sd[j].s.sc, a->r, cand->direction, cand->domain, v->c, v->ref, tmax)) != TOI_OK)
        return st;
      sd[j].s.ref_cls = (unsigned char)v->ref->cls;
      sd[j].s.verdict = (unsigned char)verdict_of(&sd[j].s.sc);
    }
    column_score *cs = &sd[k];
    const toi_score_case *sc = &cs->s.sc; /* read in place, not copied */
    if (sc->timed && isnan(sc->ulp)) {
      st = add_lazy(cell, cs, v, cand->direction, index, engine, cand->precision);
      if (st != TOI_OK) return st;
      continue;
    }
    add_scored(cell, sc, sc->ulp, sc->bits, cs->s.ref_cls, cs->s.verdict, v->c, index);
    if (!sc->timed) continue;
    if (isinf(sc->ulp)) { /* a NaN time: kappa from its enclosure where that decides */
      const kappa_enc *ke;
      if ((st = view_kappa_bound(v, cand->direction, sc->ref_t, engine, cand->precision, &ke)) != TOI_OK) return st;
      if (inf_error_decided(cell, ke, index)) {
        cell->khist[ke->bin]++;
        cell->kinf += ke->inf;
        continue;
      }
    }
    if ((st = add_kappa(cell, sc, sc->ulp, cand->direction, v, index, engine, cand->precision)) != TOI_OK) return st;
  }
  return TOI_OK;
}

toi_status sweep_eval_case_given(sweep_acc *acc, const toi_candidate *cands, size_t nc,
                                 const sweep_answer *ans, size_t stride, double tmax, const toi_case *c,
                                 size_t b, uint64_t index, toi_ref_engine engine, const toi_ref *ref64) {
  return eval_case_cols(acc, cands, nc, ans, stride, tmax, c, b, index, engine, ref64, UINT64_MAX, NULL);
}

/* sc's case prepared in sc->sp (span_prep), once. */
static void span_prepared(span_case *sc, const toi_case *c) {
  span_prep *sp = sc->sp;
  if (sp->c == c) return;
  ref_prepare_solved(&sp->p, c, sp->engine);
  sp->c = c;
  sp->bset[0] = sp->bset[1] = 0;
}

/* The reference query of case c prepared (span_prepared) in direction d,
   binary64, as the case's view asks it. */
static toi_ref_query span_query(span_case *sc, const toi_case *c, int d) {
  toi_ref_query rq = TOI_REF_QUERY_INIT;
  span_prepared(sc, c);
  rq.engine = sc->sp->engine;
  rq.prepared = &sc->sp->p;
  rq.precision = TOI_BINARY64;
  rq.dir = d ? TOI_REVERSE : TOI_FORWARD;
  return rq;
}

/* Kappa's enclosure for case c's root R in direction d from the prepared
   case (view_kappa_enclose's second way, the same query): 1, or 0 when not
   had so (kb -2; the case's view then asks again and reports a failure). */
static __attribute__((noinline)) int span_kappa_prepared(span_case *sc, int d, const toi_case *c, double R) {
  toi_ref_kappa_result kr;
  sc->kb[d] = -2;
  const toi_ref_query rq = span_query(sc, c, d);
  if (toi_ref_kappa_bound(&kr, &rq) != TOI_OK) return 0;
  sc->ke[d] = kappa_enc_of(kr.lo, kr.hi, ratio_den(R, kr.lo, TOI_BINARY64));
  sc->kb[d] = 1;
  return 1;
}

/* Kappa itself for case c's root R in direction d, where its enclosure
   (kb 1) leaves its bin open (ke's bin -1: the ends straddle a power of
   two, as for a kappa that is one): measured on the prepared case as
   view_kappa measures it (toi_ref_kappa, the same query), its point
   enclosure and ratio_den at it into ke[d] (kb 2), as view_kappa_bound
   makes them of a measured kappa. 1 when its bin is then known; 0 otherwise
   (kb 2 still, or the measure failed: kb stays 1 and the view measures). */
static __attribute__((noinline)) int span_kappa_exact(span_case *sc, int d, const toi_case *c, double R,
                                                      sweep_lazy_counts *counts) {
  if (sc->kb[d] != 1) return 0;
  toi_ref_kappa_result kr;
  const toi_ref_query rq = span_query(sc, c, d);
  if (toi_ref_kappa(&kr, &rq) != TOI_OK) return 0;
  sc->ke[d] = kappa_enc_of(kr.kappa, kr.kappa, ratio_den(R, kr.kappa, TOI_BINARY64));
  sc->kb[d] = 2;
  counts->kappas++;
  return sc->ke[d].bin >= 0;
}

/* Kappa's enclosure for case c's root R in direction d from the case and R
   alone (view_kappa_enclose's first way), else from the prepared case (its
   second), kept in sc: 1, or 0 when not had either way (the case's view
   then measures kappa). */
static inline __attribute__((always_inline)) int span_kappa(span_case *sc, int d, const toi_case *c, double R) {
  if (sc->kb[d] > 0) return 1;
  if (!sc->kb[d]) {
    double lo, hi;
    if (ref_kappa_root_bound(&lo, &hi, c, R, TOI_BINARY64)) {
      sc->ke[d] = kappa_enc_of(lo, hi, ratio_den(R, lo, TOI_BINARY64));
      sc->kb[d] = 1;
      return 1;
    }
    sc->kb[d] = -1;
  }
  return sc->kb[d] == -1 && span_kappa_prepared(sc, d, c, R);
}

/* An offset [lo, hi] measured for direction d kept in sc, clamped to half
   an ulp each side, counted as a probe: 1, or 0 when the clamp leaves it
   empty. */
static int span_offset_keep(span_case *sc, int d, double lo, double hi, sweep_lazy_counts *counts) {
  counts->probes++;
  sc->off[d][0] = lo < -0.5 ? -0.5 : lo;
  sc->off[d][1] = hi > 0.5 ? 0.5 : hi;
  if (!(sc->off[d][0] <= sc->off[d][1])) return 0;
  sc->off_set[d] = 1;
  return 1;
}

/* The root's offset for case c's root R in direction d by one step from R
   (view_offset_measure's way without a prepared case), kept in sc: 1 with
   [*dlo, *dhi], or 0 when not had so (the case's view then tries its other
   ways). */
static __attribute__((noinline)) int span_offset_measure(span_case *sc, int d, const toi_case *c, const toi_ref *ref,
                                                         double R, sweep_lazy_counts *counts) {
  double k, u, lo, hi;
  sc->off_set[d] = -1;
  if (!ulp_distance(&k, &u, R, R, TOI_BINARY64) || !isfinite(R + u)) return 0;
  if (!ref_root_offset(&lo, &hi, c, R, u, d ? ref->rev_is_lo : ref->fwd_is_lo)) return 0;
  return span_offset_keep(sc, d, lo, hi, counts);
}

/* The bits of x. */
static inline __attribute__((always_inline)) uint64_t span_bits64(double x) {
  uint64_t b;
  memcpy(&b, &x, sizeof b);
  return b;
}

/* Cases of a span whose offsets and kappas span_prepare makes at once. */
#define SPAN_GROUP 64

/* The span_case of each case order[i0 .. i1 - 1] (at most SPAN_GROUP) into
   sc[i - i0]: for each direction of dmask (bit d: some binary64 column
   takes direction d) in which the case has a root R fit for ulp_distance,
   kappa's enclosure and the root's offset as span_kappa and
   span_offset_measure would make them, all of them in one call
   (ref_root_offset_kappa_n: vector lanes, the same doubles as
   ref_kappa_root_bound and ref_root_offset one by one); nothing known
   for the rest (made when first needed, as before). Nearly every case with
   a root in a column's direction needs both (an answer equal to R needs
   the offset), so they are made for every such case; one made and not
   used changes nothing but the time (off_set 2 is counted as a probe only
   when used). */
static void span_prepare(span_case *sc, const uint16_t *order, size_t i0, size_t i1, unsigned dmask,
                         const toi_case *cases, const toi_ref *refs, const toi_status *st) {
  const toi_case *cp[2 * SPAN_GROUP];
  double R[2 * SPAN_GROUP], u[2 * SPAN_GROUP], off[2 * SPAN_GROUP][2], kap[2 * SPAN_GROUP][2];
  signed char lower[2 * SPAN_GROUP];
  uint8_t ok[2 * SPAN_GROUP], at[2 * SPAN_GROUP]; /* at: the case's place in sc times 2, plus d */
  size_t m = 0;
  for (size_t i = i0; i < i1; i++) {
    span_case *s = &sc[i - i0];
    s->kb[0] = s->kb[1] = s->off_set[0] = s->off_set[1] = 0;
    s->rs[0] = s->rs[1] = 0;
    const size_t k = order[i];
    const toi_ref *r = &refs[k];
    if (st[k] != TOI_OK || (unsigned)r->cls >= TOI_CLASS_COUNT) continue;
    for (int d = 0; d < 2; d++) {
      const int lo = d ? r->rev_is_lo : r->fwd_is_lo;
      const double Rd = d ? r->trev : r->tfwd;
      double kd, ud;
      if (!(dmask >> d & 1) || lo < 0 || !ulp_distance(&kd, &ud, Rd, Rd, TOI_BINARY64)) continue;
      /* ulp_distance's factor for k where it multiplies: 2^(53 - eR) (ud = 2^(eR - 53)) */
      const int eR = (int)(span_bits64(Rd) >> 52 & 0x7ff) - 1022;
      if (53 - eR <= 1023) s->rs[d] = pow2_upto_1023(53 - eR);
      cp[m] = &cases[k], R[m] = Rd, u[m] = ud, lower[m] = (signed char)lo;
      at[m++] = (uint8_t)((i - i0) * 2 + (size_t)d);
    }
  }
  if (!m) return;
  ref_root_offset_kappa_n(off, kap, ok, cp, R, u, lower, m);
  for (size_t j = 0; j < m; j++) {
    span_case *s = &sc[at[j] >> 1];
    const int d = at[j] & 1;
    if (ok[j] & 2) {
      s->ke[d] = kappa_enc_of(kap[j][0], kap[j][1], ratio_den64n(R[j], kap[j][0]));
      s->kb[d] = 1;
    } else {
      s->kb[d] = -1;
    }
    /* span_offset_measure's conditions and clamp */
    s->off_set[d] = -1;
    if (!(ok[j] & 1) || !isfinite(R[j] + u[j])) continue;
    s->off[d][0] = off[j][0] < -0.5 ? -0.5 : off[j][0];
    s->off[d][1] = off[j][1] > 0.5 ? 0.5 : off[j][1];
    if (s->off[d][0] <= s->off[d][1]) s->off_set[d] = 2;
  }
}

/* The cell's largest bits raised by an answer |k| values of q from
   RN_q(t*), as ulp_bits_for's bits and add_placed take them, with one
   branch the usual answer takes the same way: with x = 1 + |k| (exact) in
   [2^(n-1), 2^n), the bits are below n + 1 (ulp_bits_for; |k| <= 1 gives
   bits |k| <= 1 < n + 1 too), so when n + 1 is at most the largest bits
   they leave it; else they are ulp_bits_for's (|k| for |k| <= 1). */
static inline __attribute__((always_inline)) void span_bits(sweep_cell *cell, double k) {
  const double dist = fabs(k), x = 1.0 + dist;
  uint64_t b;
  memcpy(&b, &x, sizeof b);
  const int n = (int)(b >> 52) - 1022; /* x >= 1: normal, sign 0 */
  if (n + 1 <= cell->max_bits) return;
  cell->max_bits = max_set(cell->max_bits, dist <= 1 ? dist : log2(x));
}

/* The root's offset for case c's root R in direction d from the prepared
   case's enclosure of the root (view_offset_measure's way once the case is
   prepared: ref_prepared_offset, the same conditions and clamp), kept in
   sc: 1, or 0 when not had so (off_set -2; the case's view then tries its
   last way, from an error's enclosure). */
static __attribute__((noinline)) int span_offset_prepared(span_case *sc, int d, const toi_case *c, double R,
                                                          sweep_lazy_counts *counts) {
  double k, u, lo, hi;
  sc->off_set[d] = -2;
  if (!ulp_distance(&k, &u, R, R, TOI_BINARY64) || !isfinite(R + u)) return 0;
  span_prepared(sc, c);
  if (!ref_prepared_offset(&sc->sp->p, d ? TOI_REVERSE : TOI_FORWARD, R, u, &lo, &hi)) return 0;
  return span_offset_keep(sc, d, lo, hi, counts);
}

/* The root's offset for case c's root R in direction d from sc (made when
   first needed: span_offset_measure, else span_offset_prepared), an offset
   span_prepare made counted as a probe when first used: 1, or 0 when it
   cannot be had so. */
static inline __attribute__((always_inline)) int span_offset(span_case *sc, int d, const toi_case *c,
                                                             const toi_ref *ref, double R, sweep_lazy_counts *counts) {
  if (sc->off_set[d] == 1) return 1;
  if (sc->off_set[d] == 2) { /* made by span_prepare, first used here */
    counts->probes++;
    sc->off_set[d] = 1;
    return 1;
  }
  if (!sc->off_set[d] && span_offset_measure(sc, d, c, ref, R, counts)) return 1;
  return sc->off_set[d] == -1 && span_offset_prepared(sc, d, c, R, counts);
}

/* A placed timed answer's counts, as add_placed and lazy_place add them: its
   case, kind agree, exact class and verdict at conf of the confusion counts
   ([exact][verdict] flattened), its ULP bin h (none when h < 0) and kappa's
   bin from its enclosure ke. The bits are the caller's. */
static inline __attribute__((always_inline)) void span_add(sweep_cell *cell, unsigned conf, int h,
                                                           const kappa_enc *ke) {
  cell->cases++;
  cell->kind[TOI_SCORE_AGREE]++;
  (&cell->confusion[0][0])[conf]++;
  cell->timed++;
  if (h >= 0) cell->hist[h]++;
  cell->khist[ke->bin]++;
  cell->kinf += ke->inf;
}

/* A timed answer T to case c's root R in direction d whose error the
   reference encloses in [lo, hi] (0 <= lo, ulp_bin(lo) = ulp_bin(hi) = h)
   with its bits exact, into cell as lazy_place would place it, with kappa's
   enclosure (span_kappa; kappa itself where that leaves its bin open,
   span_kappa_exact): 1 when lazy_decided takes them, counted at level;
   0 with the cell as it was. */
static int span_enclosed(sweep_cell *cell, double hi, int h, double bits, int level, double R, unsigned conf,
                         const toi_case *c, span_case *sc, int d, sweep_lazy_counts *counts) {
  if (!span_kappa(sc, d, c, R)) return 0;
  const kappa_enc *ke = &sc->ke[d];
  if (!lazy_decided(cell, 1, hi, ke) &&
      !(ke->bin < 0 && span_kappa_exact(sc, d, c, R, counts) && lazy_decided(cell, 1, hi, ke)))
    return 0;
  span_add(cell, conf, h, ke);
  if (!isnan(bits)) cell->max_bits = max_set(cell->max_bits, bits);
  counts->placed[level]++;
  return 1;
}

/*
 * What is left of span_far's answers to the general way's measures, taken
 * here on the case the table pass prepares (span_prep), as the case's view
 * takes them (add_lazy, error_level; the same query: view_query's and
 * span_query's):
 *
 * - an infinite T equal to R, the root beyond the largest double (t* at
 *   least the overflow threshold): the reference's error and bits are both
 *   0, exactly, with either engine (ref_error.c's ref_error_mpfr_prec and
 *   ref_fast_err.c's fe_error: ulp = bits = 0 when T is RN_q(t*); the fast
 *   engine's toi_ref_error_bound refuses an infinite T and gives fe_error's
 *   double, lo = hi): the enclosure [0, 0], bin ulp_bin(0) = 0;
 * - a finite T to a root R that ulp_distance does not take (0, subnormal,
 *   a power of two, infinite) or that error_far's enclosure leaves open:
 *   toi_ref_error_bound's enclosure, lo <= the reference's error <= hi, its
 *   bits exactly the reference's (toiref.h), as error_level asks it; it
 *   depends on the case, the direction and T alone, so it is kept for the
 *   case's other columns with the same T (span_prep's bset, bT, er, while
 *   sp holds the case: the columns of a case mostly agree, as same_answer
 *   finds for the case's view).
 *
 * Either enclosure is then placed as lazy_place places one (span_enclosed:
 * lazy_decided on the enclosure and kappa's, the counts add_placed adds;
 * the bits exact), which gives the cell what the exact error and kappa would
 * give it (lazy_decided's proof), so the cell is the general way's whatever
 * way it would have taken. A failed measure, or an enclosure that does not
 * decide, leaves the answer to the general way (0), which measures again and
 * reports a failure itself. Typical answers: 0 to a root below 2^-1075 (R =
 * 0: the error is |t*| 2^1074, in [0, 1/2]), +Inf to a root that overflows.
 */
static __attribute__((noinline)) int span_bound(sweep_cell *cell, double T, double R, unsigned conf,
                                                const toi_case *c, span_case *sc, int d, sweep_lazy_counts *counts) {
  if (isinf(T)) /* T = R (span_far): error and bits 0 */
    return span_enclosed(cell, 0.0, ulp_bin(0.0), 0.0, ERR_EXACT, R, conf, c, sc, d, counts);
  span_prep *sp = sc->sp;
  toi_ref_error_result *er = &sp->er[d];
  if (sp->c != c || !sp->bset[d] || span_bits64(sp->bT[d]) != span_bits64(T)) { /* kept for the case's columns */
    toi_ref_query rq = span_query(sc, c, d); /* c prepared in sp (which clears bset when it prepares another) */
    rq.T = T;
    sp->bset[d] = 0;
    if (toi_ref_error_bound(er, &rq) != TOI_OK) return 0;
    sp->bT[d] = T, sp->bset[d] = 1;
  }
  const int h = ulp_bin(er->hi);
  if (ulp_bin(er->lo) != h) return 0;
  return span_enclosed(cell, er->hi, h, er->bits, er->lo == er->hi ? ERR_EXACT : ERR_BOUND, R, conf, c, sc, d, counts);
}

/* span_timed for an answer T that ulp_distance does not take, as add_lazy
   and add_scored would place it in case c's view where that takes no
   measure of the reference's: a NaN time (score_core's error and bits
   +Inf) as eval_case_cols adds it, with kappa's enclosure where
   inf_error_decided takes it (it reads nothing add_scored_h changes, so it
   is asked first); an infinite T other than R the same way: its error and
   bits are +Inf too (toi_ref_error, either engine: ref_error.c and
   ref_fast_err.c's fe_error give +Inf for an infinite T unless RN(t*) is
   T, and R is RN(t*), the reference's certified root in binary64), which
   is all add_lazy takes of the measures, so the general way would place it
   as a NaN time (add_scored with +Inf, then kappa's), whose counts
   inf_error_decided proves; a finite T outside R's binade from error_far's
   enclosure (the same conditions and doubles, its bits the reference's)
   where lazy_decided takes it with kappa's; what is left of the rest
   (an infinite T equal to R, a root R that ulp_distance does not take,
   error_far's enclosure not had or open) from the reference's measure on
   the prepared case (span_bound). 1 when placed, 0 with the cell as it
   was. Out of line: about one answer in ten. */
static __attribute__((noinline)) int span_far(sweep_cell *cell, double T, double R, unsigned conf,
                                              const toi_ref *ref, const toi_case *c, span_case *sc, int d,
                                              sweep_lazy_counts *counts, uint64_t index) {
  if (isnan(T) || (isinf(T) && T != R)) {
    if (!span_kappa(sc, d, c, R)) return 0;
    const kappa_enc *ke = &sc->ke[d];
    if (!inf_error_decided(cell, ke, index) &&
        !(ke->bin < 0 && span_kappa_exact(sc, d, c, R, counts) && inf_error_decided(cell, ke, index)))
      return 0;
    /* add_scored_h with ulp = bits = +Inf, kind agree, timed */
    cell->cases++;
    cell->kind[TOI_SCORE_AGREE]++;
    (&cell->confusion[0][0])[conf]++;
    cell->timed++;
    cell->hist[ulp_bin(INFINITY)]++;
    cell->max_ulp = max_set(cell->max_ulp, INFINITY);
    cell->max_bits = max_set(cell->max_bits, INFINITY);
    if (!(INFINITY < cell->max_ulp)) sweep_witness_offer(&cell->w[SW_MAX_ULP], INFINITY, INFINITY, index, c);
    cell->khist[ke->bin]++;
    cell->kinf += ke->inf;
    return 1;
  }
  /* error_far */
  double K, bits, lo, hi;
  if (far_distance(&K, &bits, T, R, TOI_BINARY64) && span_offset(sc, d, c, ref, R, counts)) {
    far_bounds(&lo, &hi, K, sc->off[d][0], sc->off[d][1]);
    const int h = ulp_bin(hi);
    if (ulp_bin(lo) == h && span_enclosed(cell, hi, h, bits, ERR_OFFSET, R, conf, c, sc, d, counts)) return 1;
  }
  return span_bound(cell, T, R, conf, c, sc, d, counts);
}

/* lazy_decided(cell, 1, hi, k) for an error's upper end hi that is finite
   and >= 0 (span_timed's), the ratio as a plain quotient: ratio_with gives
   NaN for a NaN den, 0 for hi = 0, else hi / den, and every kappa_enc's
   den (ratio_den, ratio_den64n: kappa times a positive factor plus a power
   of two, or NaN) is NaN or > 0, so hi / den is NaN, a zero (of either
   sign, which compare alike) or the same quotient. */
static inline __attribute__((always_inline)) int span_decided(const sweep_cell *cell, double hi, const kappa_enc *k) {
  if (k->bin < 0 || !(hi < cell->max_ulp)) return 0;
  if (k->inf) return 1;
  if (!(k->lo >= cell->kmin && k->hi <= cell->kmax)) return 0;
  const double r = hi / k->den;
  return isnan(r) || r < cell->max_ratio;
}

/* A timed answer T (kind agree; its exact class and verdict at conf of the
   cell's confusion counts, [exact][verdict] flattened) to the root R of case
   c in direction d into cell as add_lazy's first levels would place it: from
   its distance k to R alone (error_ulps), else with the root's offset
   (error_level's step from ERR_ULPS), when lazy_decided takes that and
   kappa's enclosure; the offset and the enclosure from sc (made here when
   first needed: span_offset_measure, span_kappa). The counts, bin and bits
   add_placed and lazy_place would add. 1 when placed; 0 with the cell as it
   was (the case's view then takes the answer the general way). */
static inline __attribute__((always_inline)) int span_timed(sweep_cell *cell, double T, double R, unsigned conf,
                                                            const toi_ref *ref, const toi_case *c, span_case *sc,
                                                            int d, sweep_lazy_counts *counts, uint64_t index) {
  double k, u;
  const double rs = sc->rs[d];
  if (rs != 0) {
    /* ulp_distance with R's part made once (span_prepare): R is fit, and T
       is taken when it has R's sign and exponent fields; k = (T - R) rs. */
    if ((span_bits64(R) ^ span_bits64(T)) >> 52) return span_far(cell, T, R, conf, ref, c, sc, d, counts, index);
    k = (T - R) * rs;
  } else if (!ulp_distance(&k, &u, T, R, TOI_BINARY64)) {
    return span_far(cell, T, R, conf, ref, c, sc, d, counts, index);
  }
  /* The bins of [|k| - 1/2, |k| + 1/2] (k = 0: [0, 1/2]) from the integer
     n = |k| < 2^52 (T and R in one binade): for n >= 1, n + 1/2 (exact) is
     in n's binade [2^m, 2^(m+1)), m = floor(log2 n), whose ulp_bin is m + 3
     (the exponent field m + 1023, less 1020; m <= 51, below the cap); n - 1/2
     is in it too unless n = 2^m (then in the binade below, 1/2 for n = 1).
     So the ends share a bin exactly when n is neither 0 nor a power of two;
     for n = 0, 1, 2, 4, ... (n & (n - 1) = 0) the offset is asked. */
  const double ak = fabs(k);
  const uint64_t n = (uint64_t)ak;
  double lo = ak - 0.5, hi = ak + 0.5;
  int h = 63 - __builtin_clzll(n | 1) + 3, level = ERR_ULPS;
  if (!(n & (n - 1))) {
    if (!span_offset(sc, d, c, ref, R, counts)) return 0;
    const double dlo = sc->off[d][0], dhi = sc->off[d][1];
    if (k >= 1) {
      lo = k - dhi, hi = k - dlo;
    } else if (k <= -1) {
      lo = -k + dlo, hi = -k + dhi;
    } else if (dlo >= 0) {
      lo = dlo, hi = dhi;
    } else if (dhi <= 0) {
      lo = -dhi, hi = -dlo;
    } else {
      lo = 0, hi = dhi > -dlo ? dhi : -dlo;
    }
    h = ulp_bin(hi);
    if (ulp_bin(lo) != h) return 0;
    level = ERR_OFFSET;
  }
  if (!span_kappa(sc, d, c, R)) return 0;
  const kappa_enc *ke = &sc->ke[d];
  if (!span_decided(cell, hi, ke) &&
      !(ke->bin < 0 && span_kappa_exact(sc, d, c, R, counts) && lazy_decided(cell, 1, hi, ke)))
    return 0;
  span_add(cell, conf, h, ke);
  span_bits(cell, k);
  counts->placed[level]++;
  return 1;
}

/* A binary64 column as a span's table pass reads it: its answers (a row of
   the span's), its score table flattened, its cells (one per bin), its bit
   in a mask of columns, its direction (1: reverse). Made once per span. */
typedef struct span_col {
  const sweep_answer *a;
  const uint8_t *tab;
  sweep_cell *cells;
  uint64_t bit;
  int d;
} span_col;

/* Case k's binary64 columns (cols[0 .. ncol - 1])
   by their score tables alone, where that places them (row: the tables'
   rows for the case by direction, root * 64 + exact class * 8): an untimed
   answer by its score, a timed one by span_timed. Returns the columns left,
   a mask of todo. */
static inline __attribute__((always_inline)) uint64_t span_case_cols(sweep_acc *acc, const span_col *cols,
                                                                     size_t ncol, size_t k, const toi_case *c,
                                                                     size_t b, const toi_ref *ref,
                                                                     const uint8_t row[2], span_case *sc,
                                                                     uint64_t index, uint64_t todo) {
  for (const span_col *cq = cols; cq < cols + ncol; cq++) {
    const int d = cq->d;
    const sweep_answer *a = cq->a + k;
    const unsigned vc = (unsigned)a->r.cls;
    if (a->state != TOI_ANSWERED || vc >= TOI_CLASS_COUNT) continue;
    const unsigned e = cq->tab[row[d] + vc];
    sweep_cell *cell = cq->cells + b;
    if (e & SCORE_TAB_TIMED) {
      if (span_timed(cell, a->r.t, d ? ref->trev : ref->tfwd, (row[d] & 63) + vc, ref, c, sc, d, &acc->lazy, index))
        todo &= ~cq->bit;
      continue;
    }
    if (!e) continue;
    const unsigned kind = e & SCORE_TAB_KIND;
    cell->cases++;
    cell->kind[kind]++;
    (&cell->confusion[0][0])[(row[d] & 63) + vc]++;
    todo &= ~cq->bit;
    if (e & SCORE_TAB_MISCLASS)
      sweep_witness_offer_first(&cell->w[SW_MISCLASS], (double)kind, (double)vc, index, c);
  }
  return todo;
}

toi_status sweep_eval_span(sweep_acc *acc, const toi_candidate *cands, size_t nc, const sweep_answer *ans,
                           size_t stride, double tmax, const toi_case *cases, const size_t *bins,
                           const uint16_t *order, size_t n, uint64_t index0, toi_ref_engine engine,
                           const toi_ref *refs, const toi_status *st, size_t *fail) {
  *fail = n;
  if (n > SWEEP_SPAN_MAX || nc > SWEEP_MAXFORMS) {
    *fail = 0;
    return TOI_ERR_RANGE;
  }
  acc_key(acc, cands, nc);
  const uint64_t all = nc == 64 ? UINT64_MAX : ((uint64_t)1 << nc) - 1;
  /* The columns the score tables take: binary64, without a step. */
  uint8_t col[SWEEP_MAXFORMS], dir[SWEEP_MAXFORMS];
  size_t ncol = 0;
  for (size_t j = 0; j < nc && tmax == INFINITY; j++)
    if (cands[j].precision == TOI_BINARY64) col[ncol] = (uint8_t)j, dir[ncol++] = cands[j].direction == TOI_REVERSE;
  /* Case by case in the order given: the columns the tables place, then the
     others, with a view made only for a case that has some (eval_case_cols);
     the first failure is that of the lowest index, as case by case. */
  unsigned dmask = 0;
  span_col cols[SWEEP_MAXFORMS];
  for (size_t q = 0; q < ncol; q++) {
    dmask |= 1u << dir[q];
    cols[q].a = &ans[col[q] * stride];
    cols[q].tab = &acc->coltab[col[q]][0][0][0];
    cols[q].cells = &acc->cells[col[q] * acc->nbins];
    cols[q].bit = (uint64_t)1 << col[q];
    cols[q].d = dir[q];
  }
  toi_status fst = TOI_OK;
  span_case scs[SPAN_GROUP];
  span_prep prep;
  prep.c = NULL;
  prep.engine = engine;
  for (size_t i = 0; i < n; i++) {
    if (i % SPAN_GROUP == 0) span_prepare(scs, order, i, n - i < SPAN_GROUP ? n : i + SPAN_GROUP, dmask, cases, refs, st);
    const size_t k = order[i];
    if (k > *fail) continue;
    const toi_ref *r = &refs[k];
    uint64_t todo = all;
    span_case *const sc = &scs[i % SPAN_GROUP];
    sc->sp = &prep;
    if (st[k] == TOI_OK && (unsigned)r->cls < TOI_CLASS_COUNT) {
      const uint8_t row[2] = {(uint8_t)((r->fwd_is_lo >= 0) * 64 + (unsigned)r->cls * 8),
                              (uint8_t)((r->rev_is_lo >= 0) * 64 + (unsigned)r->cls * 8)};
      todo = span_case_cols(acc, cols, ncol, k, &cases[k], bins[k], r, row, sc, index0 + k, todo);
      if (!todo) { /* every column placed: the case's bin counts alone */
        acc->bincount[bins[k]]++;
        acc->bincls[bins[k] * TOI_CLASS_COUNT + r->cls]++;
        continue;
      }
    }
    toi_status s2 = st[k] != TOI_OK ? TOI_ERR_RANGE
                                    : eval_case_cols(acc, cands, nc, ans + k, stride, tmax, &cases[k], bins[k],
                                                     index0 + k, engine, r, todo, sc);
    if (s2 != TOI_OK) *fail = k, fst = s2;
  }
  return fst;
}
