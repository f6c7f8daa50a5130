/* sim_candidate.h: any candidate (formulation, engine, plug-in, command) as the simulation's kernel. */
#ifndef TOI_SIM_CANDIDATE_H
#define TOI_SIM_CANDIDATE_H

#include <stdint.h>
#include "candidate.h"
#include "sim.h"

/// A candidate driving sim_run: its batch solve answers the pair predictions
/// (the run gathers those of one event into one call), the bench computes
/// the responses and the walls in the candidate's precision (the formulation
/// kernels' double or float ones). A failed or declined prediction, or one
/// whose answer is unusable (a contact with a NaN time), is answered by the
/// exact reference (toi_ref_sim_pair_toi) and counted. Its contract: the
/// largest tolerance - target it states (absolute distances) is the kernel's
/// contact_tolerance, beyond which overlaps count.
typedef struct sim_candidate {
  const toi_candidate *c;
  toi_solve_opts opts;   ///< per call: tmax, timeout, msg; quota points at .quota
  toi_quota quota;       ///< the solver's messages shown, over the whole run
  uint64_t queries;      ///< predictions asked of it
  uint64_t failed;       ///< predictions the reference answered instead
  uint64_t declined;     ///< of those, declined (TOI_UNSUPPORTED)
  uint64_t malfunctions; ///< of those, lost to a crash, a hang or a protocol error
  uint64_t calls;        ///< batch calls made
  uint64_t unrunnable;   ///< calls that could not be run at all (every case fell back)
  double allowance;      ///< largest stated tolerance - target (0: none stated)
  double target;         ///< a stated target (NaN: none), the first one seen
  toi_answer *ans;
  size_t cap;
} sim_candidate;

/// Makes *k drive the simulation with candidate c (which must outlive the
/// run), through sc; o gives tmax, timeout and the message sink (may be NULL:
/// no step, 10 s, messages dropped). 0, or -1 with the reason in why: a
/// reverse-time candidate, or a precision the simulation has no state for
/// (binary64 and binary32 only).
int sim_candidate_init(sim_candidate *sc, sim_kernel *k, const toi_candidate *c, const toi_solve_opts *o,
                       char *why, size_t whysz);
/// Resets the counts, for another run with the same candidate.
void sim_candidate_reset(sim_candidate *sc);
void sim_candidate_free(sim_candidate *sc);

/// Whether c takes dim-dimensional scenes: in 3D it is asked one case off the
/// plane z = 0 (a head-on hit, ID "probe-3d"); a candidate that declines it
/// (a 2D-only engine) or cannot be run is refused: -1 with the reason in why.
/// 0 when it answers, fails or crashes on it (the run counts those itself).
int sim_candidate_check_dim(const toi_candidate *c, int dim, const toi_solve_opts *o, char *why, size_t whysz);

#endif
