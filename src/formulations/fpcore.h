/* fpcore.h: a formulation's forward time of impact as an FPCore expression (FPBench standard). */
#ifndef TOI_FPCORE_H
#define TOI_FPCORE_H

#include "gen.h"
#include "toi.h"

/*
 * The export writes one (FPCore (ARGS) :name :description :pre :precision
 * BODY) whose BODY is the formulation's computation: the same operations on
 * the same operands in the same order (every sum and product binary, as the
 * C code associates it), its guards as `if`, bound with let*.
 *
 * Arguments: the case's numbers in 2D, pax pay vax vay ra pbx pby vbx vby rb
 * (in 3D paz, vaz, pbz, vbz follow each vector's y).
 * Value: the formulation's time when it reports a contact (hit, graze, or 0
 * for an overlap at the start), +INFINITY when it reports no contact (none,
 * miss, separating, static). A few formulations' unguarded hits can
 * themselves be NaN or +inf (no guard for a == 0, overflow): the expression
 * gives the same value.
 * :pre: the default box of the family named in the options, as inputs
 * ranges: generic exactly; aimed as a bounding box of its construction
 * (|pB - pA| <= 2 rhi sqrt(20^2 + b^2), |vB - vA| <= 4 per component).
 * :precision binary32 is the formulation's binary32 variant: FPCore rounds
 * the decimal constants (1e-12, 1e7, ...) to the precision, as REAL() does.
 */
typedef struct toi_fpcore_opts {
  toi_precision precision; ///< binary64 or binary32
  int dim;                 ///< 2 or 3
  toi_gen_family pre;          ///< TOI_GEN_GENERIC or TOI_GEN_AIMED: the family whose default ranges give :pre
} toi_fpcore_opts;

/// Why f has no FPCore export ("robust: scales by data-dependent powers of
/// two ..."), or NULL when it has one.
const char *toi_fpcore_unsupported(const toi_formulation *f);

/// Writes f's FPCore (ending in a newline) into *out, malloc'ed, NUL-terminated.
/// TOI_ERR_INPUT when f is not exportable (toi_fpcore_unsupported), TOI_ERR_RANGE
/// for options outside those documented, TOI_ERR_NOMEM.
TOI_MUST_USE toi_status toi_fpcore_format(char **out, const toi_formulation *f, const toi_fpcore_opts *o);

#endif
