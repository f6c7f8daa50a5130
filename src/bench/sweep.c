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

int sweep_acc_init(sweep_acc *a, size_t nform, size_t nbins) {
  memset(a, 0, sizeof *a);
  a->nform = nform;
  a->nbins = nbins;
  a->bincount = calloc(nbins ? nbins : 1, sizeof *a->bincount);
  a->bincls = calloc((nbins ? nbins : 1) * TOI_CLASS_COUNT, sizeof *a->bincls);
  size_t ncells = nform * nbins;
  a->cells = malloc((ncells > 0 ? ncells : 1) * sizeof *a->cells);
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
    for (int k = 0; k < SCORE_KIND_COUNT; k++) x->kind[k] += y->kind[k];
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

int sweep_ulp_bin(double ulp) {
  if (isnan(ulp) || ulp < 0) return -1;
  if (ulp == 0) return 0;
  if (isinf(ulp)) return SWEEP_HBINS - 1;
  if (ulp < 0.5) return 1;
  int e;
  (void)frexp(ulp, &e); /* ulp in [2^(e-1), 2^e) */
  int h = e + 2;
  return h > SWEEP_HBINS - 3 ? SWEEP_HBINS - 2 : h;
}

int sweep_kappa_bin(double kappa) {
  if (isnan(kappa) || kappa < 0) return -1;
  if (isinf(kappa)) return SWEEP_KBINS - 1;
  if (kappa < 2) return 0;
  int e;
  (void)frexp(kappa, &e); /* kappa in [2^(e-1), 2^e) */
  int j = e - 1;
  return j > SWEEP_KBINS - 2 ? SWEEP_KBINS - 2 : j;
}

double sweep_ratio(double ulp, double ref_t, double kappa) {
  if (isnan(ulp) || !isfinite(ref_t) || ref_t == 0 || !isfinite(kappa) || !(kappa > 0)) return NAN;
  if (ulp == 0) return 0;
  if (isinf(ulp)) return INFINITY;
  int e;
  double m = frexp(fabs(ref_t), &e); /* |t*| = m 2^e, m in [0.5, 1) */
  int ue = (e - 1 < -1022 ? -1022 : e - 1) - 52; /* ulp(t*) = 2^ue, as toi_ref_error */
  /* |T - t*| / (kappa 2^-53 |t*| + 2^-1075): the error against the best a
     double can do, the conditioning's share plus half the smallest subnormal
     (a subnormal t* cannot be closer than that, whatever kappa says). In units
     of 2^ue: numerator ulp, denominator kappa m 2^(e-53-ue) + 2^(-1075-ue); the
     exponents stay small (e - 53 - ue <= 0, -1075 - ue <= -1), so nothing
     overflows on the way. */
  double den = kappa * ldexp(m, e - 53 - ue) + ldexp(1, -1075 - ue);
  return ulp / den;
}

/* Kappa and the ratio of a timed case in cell. */
static toi_status add_kappa(sweep_cell *cell, const score_case *sc, toi_direction dir, double kappa[2], int have[2],
                            const toi_case *c, uint64_t index, toi_ref_engine engine) {
  int d = dir == TOI_REVERSE;
  if (!have[d]) {
    toi_status st = toi_ref_kappa_engine(&kappa[d], c, dir, engine);
    if (st != TOI_OK) return st;
    have[d] = 1;
  }
  double k = kappa[d];
  int kb = sweep_kappa_bin(k);
  if (kb < 0) return TOI_OK;
  cell->khist[kb]++;
  if (isinf(k)) {
    cell->kinf++;
    return TOI_OK;
  }
  cell->kmin = min_set(cell->kmin, k);
  cell->kmax = max_set(cell->kmax, k);
  double r = sweep_ratio(sc->ulp, sc->ref_t, k);
  if (isnan(r)) return TOI_OK;
  cell->max_ratio = max_set(cell->max_ratio, r);
  sweep_witness_offer(&cell->w[SW_MAX_RATIO], r, k, index, c);
  return TOI_OK;
}

/* A scored answer into its cell: kinds, confusion, witnesses, histograms. */
static void add_scored(sweep_cell *cell, const score_case *sc, toi_class ref_cls, const toi_case *c, uint64_t index) {
  cell->cases++;
  if ((unsigned)sc->kind < SCORE_KIND_COUNT) cell->kind[sc->kind]++;
  unsigned verdict = (unsigned)sc->verdict < TOI_CLASS_COUNT ? (unsigned)sc->verdict : TOI_NONE;
  cell->confusion[ref_cls][verdict]++;
  if (sc->kind == SCORE_MISSED || sc->kind == SCORE_GHOST || sc->kind == SCORE_OTHER)
    sweep_witness_offer_first(&cell->w[SW_MISCLASS], (double)sc->kind, (double)verdict, index, c);
  if (!sc->timed) return;
  cell->timed++;
  int h = sweep_ulp_bin(sc->ulp);
  if (h >= 0) cell->hist[h]++;
  if (!isnan(sc->ulp)) cell->max_ulp = max_set(cell->max_ulp, sc->ulp);
  if (!isnan(sc->bits)) cell->max_bits = max_set(cell->max_bits, sc->bits);
  sweep_witness_offer(&cell->w[SW_MAX_ULP], sc->ulp, sc->bits, index, c);
}

toi_status sweep_eval_case_with(sweep_acc *acc, const toi_candidate *cands, size_t nc,
                                const toi_answer *const *stored, double tmax, const toi_case *c, size_t b,
                                uint64_t index, toi_ref_engine engine) {
  toi_ref ref;
  toi_status st = toi_ref_solve_engine(&ref, c, engine);
  if (st != TOI_OK) return st;
  if ((unsigned)ref.cls >= TOI_CLASS_COUNT) return TOI_ERR_RANGE;
  acc->bincount[b]++;
  acc->bincls[b * TOI_CLASS_COUNT + ref.cls]++;
  double kappa[2] = {NAN, NAN};
  int have[2] = {0, 0};
  score_opts so = {tmax, 0, 0, 0, engine};
  for (size_t j = 0; j < nc; j++) {
    const toi_candidate *cand = &cands[j];
    sweep_cell *cell = &acc->cells[j * acc->nbins + b];
    toi_answer own;
    const toi_answer *a = stored && (cand->flags & TOI_CAND_OUT_OF_PROCESS) ? stored[j] : NULL;
    if (!a) {
      toi_run_info info;
      if (cand->flags & TOI_CAND_OUT_OF_PROCESS) return TOI_ERR_RANGE; /* its answers come stored */
      if (toi_candidate_run(cand, c, 1, NULL, &own, &info)) return TOI_ERR_RANGE;
      a = &own;
    }
    if (a->state != TOI_ANSWERED) {
      cell->cases++;
      cell->kind[SCORE_OUT_OF_DOMAIN]++;
      continue;
    }
    score_detail sd;
    st = score_answer(&sd, a->r, cand->direction, cand->domain, c, &ref, &so);
    if (st != TOI_OK) return st;
    add_scored(cell, &sd.sc, ref.cls, c, index);
    if (sd.sc.timed && (st = add_kappa(cell, &sd.sc, cand->direction, kappa, have, c, index, engine)) != TOI_OK)
      return st;
  }
  return TOI_OK;
}
