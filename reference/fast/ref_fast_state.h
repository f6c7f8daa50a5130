/* ref_fast_state.h: what the fast engine proved about one case, kept for the fast error and kappa paths. */
#ifndef REF_FAST_STATE_H
#define REF_FAST_STATE_H

#include "ref_fdd.h"
#include "toiref.h"

/// What the fast engine proved about a case, for the fast paths of
/// toi_ref_error and toi_ref_kappa (ref_fast_err.c). The data are scaled as
/// in ref_fast.c: lengths by 2^-es, velocities by 2^-ev, so times by 2^-k2
/// with k2 = es - ev; 2D cases in the 3D layout with zero third components.
typedef struct ref_fast_state {
  toi_ref r;          ///< the answer, bit for bit what toi_ref_solve gives
  fdd s[4];           ///< s = pB - pA (s[0..2]) and R (s[3]), scaled, as double-doubles
  fdd v[3];           ///< v = vB - vA, scaled
  int es, ev, k2;     ///< the scales
  int exact_data;     ///< s, R, v are the exact scaled data, every nonzero component in [2^-480, 2^65]
  int sb, sc;         ///< the exact signs of b and c
  fdd A;              ///< a = v.v, |A - a| <= Ea
  double Ea;
  int roots;          ///< a > 0 and D >= 0: t and Et below are valid
  int graze;          ///< D = 0 exactly: one double root
  fdd t[2];           ///< the lower (0) and upper (1) roots, scaled: |t[j] - t*_j 2^-k2| <= Et[j]
  double Et[2];       ///< 0 for the exact root 0 of a touching pair; else <= 2^-60 |t[j].h|
  fdd D;              ///< D when the roots came from step 4 of ref_fast.c (c != 0, D > 0),
  double ED;          ///< |D - D*| <= ED; unset otherwise
} ref_fast_state;

/// Runs the fast engine on a case (no target distance) and keeps its state.
/// 1 when it answered alone (then fs->r is toi_ref_solve's answer); 0 when
/// it would hand the case to the MPFR engine or the case is invalid (fs is
/// then unspecified). Does not touch the toi_ref_fast_stats counters.
int ref_fast_prepare(ref_fast_state *fs, const toi_case *c);

/// Only the scaled data of c as ref_fast_prepare keeps them (s, v, es, ev,
/// k2, exact_data; nothing else of fs is set), without solving: 1 when
/// they are exact (exact_data), 0 otherwise or for an invalid case.
int ref_fast_scaled_data(ref_fast_state *fs, const toi_case *c);

/// The exact expansions (ref_fast.c: nonoverlapping, increasing magnitude)
/// of a = v.v, b = s.v and c = s.s - R^2 of a prepared state whose data are
/// exact (fs->exact_data), each in at most 32 doubles. 0 when not exact_data.
/// xa, xb or xc NULL: that one is not made (its length untouched).
int ref_fast_expand(const ref_fast_state *fs, double *xa, int *ma, double *xb, int *mb, double *xc, int *mc);

/// What toi_ref_error and toi_ref_kappa derive from a case with the fast
/// engine, held in the caller's toi_ref_prepared (ref_fast_err.c): the
/// engine's state, and what the errors and kappas derive from it, each made
/// on first use and kept for the next.
typedef struct ref_fast_prep {
  int ok;               /* ref_fast_prepare answered alone for the case */
  ref_fast_state st;
  int have3;            /* a3, b3, c3: 0 not computed yet, 1 ready, -1 unavailable */
  double a3[3], b3[3], c3[3];
  double ea3, eb3, ec3; /* their absolute errors */
  int haveD;            /* sD: the same */
  fdd sD;               /* sqrt(D) from the triples, with absolute error esD */
  double esD;
  int haveR[2];         /* dr[j]: the same, per root */
  int lite;             /* ref_fast_error_light's state: 0 not made, 1 st.r and the scaled data alone, -1 unusable */
  double rs[2];         /* RN(t*_j) scaled (exact) */
  fdd dr[2];            /* rs[j] - t*_j scaled, with absolute error Edr[j] */
  double Edr[2];
  /* What every error derives from the root alone (fe_ulp_root_of), per
   * direction and precision: state 0 not yet, 1 ready, -1 none. */
  struct fe_ulp_root {
    int state, j, kq;
    double rq;
  } br[2][TOI_PRECISION_COUNT];
} ref_fast_prep;

#endif
