/* toibench.h: the whole public API: cases, the exact reference, candidates, scoring, the generator. */
#ifndef TOIBENCH_H
#define TOIBENCH_H

#include "toi_api.h"   /* TOI_API, the version macros, toi_version() */
#include "toi.h"       /* cases, classes, case files, the built-in formulations */
#include "toi_msg.h"   /* the message sink */
#include "precision.h" /* binary64, binary32: the formats candidates compute in */
#include "toiref.h"    /* the certified reference: class and roots, ULP and bits, kappa */
#include "gen.h"       /* the generated families */
#include "score.h"     /* one answer against the reference; per-candidate statistics */
#include "candidate.h" /* the thing under test: built-in, plug-in, command, your own function */
#include "bench.h"     /* a candidate scored over cases or a family: run rows, sweep statistics */

#endif
