/* solvers.h: external solvers (plug-ins, subprocesses, built engines) run and scored beside the formulations. */
#ifndef TOI_SOLVERS_H
#define TOI_SOLVERS_H

#include <stddef.h>
#include "toi.h"
#include "toi_msg.h"
#include "toiref.h"
#include "score.h"

/// How a solver is reached.
typedef enum solver_kind {
  SOLVER_PLUGIN = 0, ///< a shared library and a symbol (toi_solver.h)
  SOLVER_COMMAND     ///< a command speaking the subprocess protocol
} solver_kind;

#define SOLVER_NAME_MAX 63

/// One external solver.
typedef struct solver_def {
  char name[SOLVER_NAME_MAX + 1];
  solver_kind kind;
  char path[4096];     ///< plug-in: the library
  char symbol[128];    ///< plug-in: the solve function
  char command[4096];  ///< command: run with /bin/sh -c
  char summary[512];   ///< from the catalog or the manifest; may be empty
  int engine;          ///< 1 when found in an engines directory
} solver_def;

/// How many of a solver's stderr lines and protocol messages were relayed:
/// one per solver, carried across the calls of a sweep or a hunt so that the
/// first 20 of each are shown in all, not per call.
typedef struct solver_quota {
  int stderr_shown, messages_shown;
} solver_quota;

/// Options of one run.
typedef struct solver_opts {
  double tmax;         ///< the step given to solvers (+Inf: none)
  double timeout;      ///< seconds allowed per answer
  solver_quota *quota; ///< NULL: the first 20 per call, and the rest counted at the end of the call;
                       ///< else counts carried across calls (solver_quota_report tells the rest)
  const toi_msg *msg;  ///< where the solver's stderr lines, protocol errors and failures go (NULL: dropped)
} solver_opts;

/// What became of one case.
typedef enum solver_state {
  SOLVER_ANSWERED = 0,
  SOLVER_UNSUPPORTED, ///< the solver declined the case: not scored
  SOLVER_FAILED       ///< no usable answer: see why
} solver_state;

typedef struct solver_answer {
  solver_state state;
  int malfunction;    ///< 1 for a crash, hang or protocol error (makes the run fail)
  toi_result r;
  double target;      ///< the separation the solver aimed at (NaN: not stated)
  double tolerance;   ///< its claimed tolerance (NaN: not stated)
  char why[256];      ///< for failures
} solver_answer;

/// Counts of a run, for the exit status.
typedef struct solver_run_info {
  size_t malfunctions;    ///< cases lost to crashes, hangs and protocol errors
  size_t protocol_errors; ///< answer lines not attributable to a case
} solver_run_info;

/* ---- registry (solvers.c) ---- */

/// The built engine solvers found in the engines directories (TOIBENCH_ENGINES,
/// a colon-separated list, or else engines/ beside the executable and
/// ../lib/toibench/engines), sorted by name. *out is malloc'ed; returns the
/// count (0 when none is built).
size_t solvers_engines(solver_def **out);
/// The engine solver with this name: 0 and *out filled, or -1.
int solvers_find_engine(const char *name, solver_def *out);
/// Describes a plug-in library: every catalog entry, or the one symbol asked for
/// (symbol NULL: the catalog, or else toi_solver_solve). Returns the count, or -1
/// after writing a reason to err.
int solvers_from_plugin(const char *path, const char *symbol, solver_def **out, char *err, size_t errsz);
/// A command solver named after the command.
void solvers_from_command(const char *command, solver_def *out);
/// Splits a --solver argument LIB.so[:SYMBOL]: the part after the last colon
/// names a symbol only when it is a C identifier and the part before it is an
/// existing file, or the whole argument is not one (else the colon belongs to
/// the path). Fills path and sym (empty when none); returns 1 when a symbol was named.
int solvers_split_plugin(const char *arg, char *path, size_t psz, char *sym, size_t ssz);
/// solvers_from_plugin on a --solver argument LIB.so[:SYMBOL] (split by
/// solvers_split_plugin); *path_out (may be NULL) receives the library path.
int solvers_from_plugin_arg(const char *arg, solver_def **out, char *err, size_t errsz, char *path_out,
                            size_t path_sz);

/// Runs a solver on n cases; ans[i] receives case i's answer. Returns 0, or -1
/// when the solver could not be started at all (reason printed).
int solver_run(const solver_def *s, const toi_case *cases, size_t n, const solver_opts *o, solver_answer *ans,
               solver_run_info *info);
int solver_plugin_run(const solver_def *s, const toi_case *cases, size_t n, const solver_opts *o,
                      solver_answer *ans, solver_run_info *info);
int solver_cmd_run(const solver_def *s, const toi_case *cases, size_t n, const solver_opts *o,
                   solver_answer *ans, solver_run_info *info);

/// After the last call with a quota: tells msg how many stderr lines and
/// protocol messages of solver `name` were not shown.
void solver_quota_report(const char *name, const solver_quota *q, const toi_msg *msg);

/// Monotonic clock in seconds.
double solver_now(void);

/// Checks an answer's class and time; on a bad one marks it failed. Returns 0 when usable.
int solver_check_answer(solver_answer *a);

/* ---- scoring (solver_score.c) ---- */

/// Scoring of one answer beyond score_case: the step, the target and the gap.
typedef struct solver_score {
  score_case sc;      ///< against the true contact (with the step when tmax is finite)
  double gap;         ///< |s + v T| - R at the returned time, NaN when not timed
  double target;      ///< the target scored against (the solver's own, else --target-distance)
  /// The verdict against the exact class of |s + v t| = R + target (with the
  /// step): agree, missed, ghost or other; SCORE_OUT_OF_DOMAIN when R + target < 0.
  score_kind target_kind;
  int target_timed;   ///< 1 when the time was scored against the target root
  double target_ulp;  ///< ULP error against the target root
  double target_dt;   ///< |T - t_target|
  int off_tolerance;  ///< 1 when |gap - target| exceeds a claimed tolerance > 0
} solver_score;

/// Scores result r of a formulation or solver with direction dir, domain mask,
/// against the exact answers; tmax finite applies "hit within the step";
/// target is the separation aimed at (0: touching), tolerance the claimed one.
TOI_MUST_USE toi_status solver_score_result(solver_score *out, toi_result r, toi_direction dir, unsigned domain,
                                            const toi_case *c, const toi_ref *ref, double tmax, double target,
                                            double tolerance);
/// |s + v T| - (rA + rB) in double-double arithmetic, rounded once to double.
double solver_gap(const toi_case *c, double T);

#endif
