/* hunt.h: what the worst-case searches of `toibench hunt` share: found cases, ranked lists, moves, output. */
#ifndef TOI_HUNT_H
#define TOI_HUNT_H

#include <stdint.h>
#include <stdio.h>
#include "rng.h"
#include "score.h"
#include "sweep.h"
#include "wire.h"

#define HUNT_MAXKEEP 64
/* Stream of the local-search generators, apart from the families' streams. */
#define HUNT_STREAM 0x68756e74u

enum { HUNT_BY_ULP = 0, HUNT_BY_RATIO = 1 };

/// The lists of a search: by ULP error, by ratio, NaN or infinite errors,
/// classification errors, and (solvers only) failures.
enum { HUNT_L_ULP, HUNT_L_RATIO, HUNT_L_INF, HUNT_L_BAD, HUNT_L_FAIL, HUNT_L_COUNT };

/// A case found by the search, with its score at search time.
typedef struct hunt_found {
  toi_case c;
  uint64_t index;      ///< global-pass index of the case it grew from (fail list: order of discovery)
  toi_score_case sc;       ///< against the true contact
  double err;          ///< the ranked ULP error (NaN when not timed): sc.ulp, or against a solver's target
  double target;       ///< solvers: the separation scored against (0 for formulations)
  toi_score_kind tkind;    ///< solvers: the verdict against that target
  double kappa, ratio; ///< NaN when not timed or kappa is not finite
  int by;              ///< HUNT_BY_ULP or HUNT_BY_RATIO: the key of its list
  char note[320];
} hunt_found;

/// The `keep` best found cases of one kind, best first.
typedef struct hunt_list {
  hunt_found items[HUNT_MAXKEEP];
  int n;
} hunt_list;

/// The ranked value: the ratio for HUNT_BY_RATIO, else the ULP error.
double hunt_key(const hunt_found *f);
/// The case with the largest finite ULP error (by HUNT_BY_ULP) or ratio (by
/// HUNT_BY_RATIO) over lists[0 .. nlists-1], whatever list it was kept in (a
/// local search around a case kept by ratio may raise its ULP error past the
/// ULP list's best); NULL when none has one.
const hunt_found *hunt_largest(const hunt_list *lists, int nlists, int by);
/// Keeps the `keep` largest keys (ties: lower index), or the `keep` lowest indexes when first.
void hunt_list_offer(hunt_list *l, const hunt_found *f, int keep, int first);
/// 1 for a missed, ghost or other classification error.
int hunt_misclassified(toi_score_kind k);
/// Moves one input of c by a few ulps of precision q (binary32: steps of
/// nextafterf, the result a float); 0 when the result is not a legal case.
int hunt_perturb(toi_rng *r, toi_case *c, toi_precision q);
/// Files a scored case of the global pass (index i) in lists[HUNT_L_ULP ..
/// HUNT_L_BAD]: a classification error (kind), else an infinite err, else
/// ranked by err and, when known, by ratio; writes its '# found:' note.
void hunt_file(hunt_list *lists, hunt_found *fd, toi_score_kind kind, int keep, uint64_t i);

/// What a hunt is asked.
typedef struct hunt_opts {
  const toi_gen_opts *g;
  uint64_t budget;              ///< cases evaluated in all (>= 2)
  int keep;                     ///< cases kept per list (1 .. HUNT_MAXKEEP)
  int jobs;                     ///< threads scoring
  double tmax, timeout;         ///< the step and the time per answer (external candidates)
  double delta;                 ///< --target-distance: the target of answers stating none
  toi_ref_engine engine;
  const toi_msg *msg;           ///< failures, solver messages
  const toi_progress *progress; ///< NULL: none
  toi_quota *quota;             ///< a solver's messages shown, over every call
  const sweep_dist *dist;       ///< toibench-mpi: the processes sharing the search (NULL: this one alone)
} hunt_opts;

/// What a hunt found.
typedef struct hunt_result {
  hunt_list lists[HUNT_L_COUNT]; ///< the global pass's lists (HUNT_L_INF, _BAD with the flips, _FAIL)
  hunt_list best[2];             ///< after the local search: by ULP error, by ratio
  uint64_t global;               ///< cases of the global pass
  uint64_t rounds, per;          ///< local search: rounds of `per` proposals per kept case
  int ncands;                    ///< cases kept for the local search
  uint64_t sent, failed, declined, stated, aimed, malfunctions, protocol_errors;
} hunt_result;

/// The search for one candidate: a global pass over cases 0 .. budget/2 - 1 in
/// calls of up to 4096 cases, then a local search around the kept cases in
/// rounds, each one call: an in-process candidate makes one move per round
/// (a walk of single steps), an out-of-process one at most 64 rounds of many
/// proposals. Scoring runs on o->jobs threads; the result does not depend on
/// them. 0, or -1 after saying why to o->msg.
int hunt_search(hunt_result *r, const toi_candidate *cand, const hunt_opts *o);

/* ---- a search shared among processes (toibench-mpi; src/bench/hunt_dist.c) ----
   With o->dist, hunt_search hands out the global pass's batches from the shared counter; then every
   process gets every process's lists merged (hunt_list_offer: the same lists as one process's) and rank 0
   the counters; each kept case k is walked by process k % size; rank 0 gets the walks back. Rank 0's
   result is byte for byte one process's: a local-search failure is ranked by (round, proposal slot),
   the order in which one process would have sent it. */

/// One kept case's walk in the local search.
typedef struct hunt_walk {
  toi_rng rng;
  double start;
  uint64_t raised;
  int has_flip, has_best;
  hunt_found flip, best;
} hunt_walk;

/// The next batch of the global pass (of n): b itself without o->dist.
uint64_t hunt_dist_next(const hunt_opts *o, uint64_t b, uint64_t n);
/// A found case as the processes send it (wire.h: every field in declaration
/// order, little-endian at a fixed width; the note as its char[320], zero-filled).
void hunt_found_encode(wire_out *w, const hunt_found *f);
/// Reads one back (r->bad when the bytes are short or the note has no end).
void hunt_found_decode(wire_in *r, hunt_found *f);
/// 1 when kept case k is walked by this process.
int hunt_dist_mine(const hunt_opts *o, int k);
/// After the global pass of nb batches (failed: this process's pass failed, and it takes the batches
/// left without doing them): every process's lists merged at every process, the counters summed at rank
/// 0 (zero elsewhere). Returns 1 when any process failed, else 0.
int hunt_dist_global(const hunt_opts *o, hunt_result *r, uint64_t nb, int failed);
/// After the local search: at rank 0, each kept case, its walk and the failures of the process that
/// walked it, and every counter. Returns 1 when any process failed, else 0.
int hunt_dist_local(const hunt_opts *o, hunt_result *r, hunt_found *cands, hunt_walk *w, int failed);

#endif
