/* candidate.h: the thing under test: a built-in formulation, a C plug-in, a subprocess command or a user's function. */
#ifndef TOI_CANDIDATE_H
#define TOI_CANDIDATE_H

#include <stddef.h>
#include <stdint.h>
#include "toi.h"
#include "toi_msg.h"

/// What became of one case.
typedef enum toi_answer_state {
  TOI_ANSWERED = 0,
  TOI_UNSUPPORTED, ///< the candidate declined the case: not scored
  TOI_FAILED       ///< no usable answer: see why
} toi_answer_state;

/// A candidate's answer to one case.
typedef struct toi_answer {
  toi_answer_state state;
  toi_fail_cause cause; ///< why it failed (TOI_FAILED), else TOI_CAUSE_NONE
  int malfunction;    ///< 1 for a crash, hang or protocol error (makes the run fail)
  toi_result r;       ///< its verdict and time
  double target;      ///< the separation it aimed at (NaN: not stated; built-in ones state 0)
  double tolerance;   ///< its claimed tolerance (NaN: not stated)
  char why[256];      ///< for failures
} toi_answer;

/// How many of an external candidate's stderr lines and protocol messages
/// were relayed: carried across the calls of a run, a sweep or a hunt so that
/// the first 20 of each are shown in all, not per call.
typedef struct toi_quota {
  int stderr_shown, messages_shown;
  int output_shown;      ///< lines a plug-in wrote to its stdout or stderr
  size_t failures_shown; ///< failed cases told by toi_bench_run (toi_bench_opts.quota)
  /// When not NULL, every line the solver wrote (a command's stderr, a
  /// plug-in's output), none left out, as "solver NAME: stderr: LINE" or
  /// "solver NAME: output: LINE": the whole text the capped messages leave out.
  const toi_msg *log;
} toi_quota;

/// Options of one batch solve call.
typedef struct toi_solve_opts {
  double tmax;         ///< the step given to external candidates (+Inf: none)
  double timeout;      ///< seconds allowed per answer (external candidates)
  toi_quota *quota;    ///< NULL: the first 20 messages per call; else counts carried across calls
  const toi_msg *msg;  ///< where stderr lines, protocol errors and failures go (NULL: dropped)
} toi_solve_opts;

/// Counts of one batch solve call.
typedef struct toi_run_info {
  size_t malfunctions;    ///< cases lost to crashes, hangs and protocol errors
  size_t protocol_errors; ///< answer lines not attributable to a case
  /// An external candidate's own cost, as it reported it (plug-in ABI 3
  /// toi_solver_report_cost, the protocol's `# engine-time` line), summed over
  /// its processes: engine_calls 0 when it reported none.
  uint64_t engine_calls, engine_ns;
  /// The bench's side of an external call: cases sent and the wall time of
  /// the whole call (process starts, protocol, engine), in nanoseconds.
  uint64_t bench_calls, bench_ns;
} toi_run_info;

/// Properties of a candidate (toi_candidate.flags).
enum {
  /// Run outside this process (a child process, kept between calls where the
  /// solver allows): called from one thread at a time, on large batches,
  /// since each call costs at least a wake-up of another process.
  TOI_CAND_OUT_OF_PROCESS = 1,
  /// May state targets and tolerances, fail or decline cases: scored against
  /// its target too and reported with its failures (plug-ins, commands).
  TOI_CAND_EXTERNAL = 2
};

typedef struct toi_candidate toi_candidate;

/// Solves cases[0..n-1] into ans[0..n-1]. Returns TOI_OK, or another status
/// when the candidate could not be run at all (the reason went to o->msg).
typedef toi_status (*toi_candidate_solve_fn)(const toi_candidate *self, const toi_case *cases, size_t n,
                                             const toi_solve_opts *o, toi_answer *ans, toi_run_info *info);

/// A solve function for one case, as a user's program has it.
typedef toi_result (*toi_case_fn)(const toi_case *c);

/// The thing under test. Build one with a constructor below; release it with
/// toi_candidate_free. An in-process candidate (a built-in formulation, a
/// user's function) is called from several threads at once by the sweep, the
/// hunt and the report: its function must be safe to call that way. An
/// out-of-process one is only ever called from one thread, while no other of
/// the bench's threads runs (a child process is forked).
struct toi_candidate {
  char name[64];          ///< unique within a run (a repeated one becomes NAME#2 ...)
  const char *source;     ///< the document it comes from, or the plug-in / command
  const char *summary;    ///< one line; may be empty
  toi_direction direction;
  unsigned domain;        ///< exact classes answered (mask of TOI_CLASS_BIT), 0: every class
  unsigned flags;         ///< TOI_CAND_*
  toi_candidate_solve_fn solve;
  const toi_formulation *formulation; ///< the built-in one, or NULL
  toi_case_fn fn;         ///< the user's function, a formulation's variant in its precision, or NULL
  void *impl;             ///< the external solver's description (private), or NULL
  /// The format it computes in (TOI_BINARY64 unless declared): it receives
  /// each case rounded to it (toi_case_round; a case that overflows is not
  /// given to it: its answer is TOI_UNSUPPORTED) and is scored in its ULPs
  /// against the exact answer of the rounded case.
  toi_precision precision;
};

/// A built-in formulation, solved in this process.
TOI_API void toi_candidate_formulation(toi_candidate *c, const toi_formulation *f);
/// The formulation's variant in precision q (toi_formulation_solver): TOI_OK,
/// or TOI_ERR_RANGE when it has none in q (c is then the binary64 candidate).
TOI_API TOI_MUST_USE toi_status toi_candidate_formulation_prec(toi_candidate *c, const toi_formulation *f,
                                                               toi_precision q);
/// A user's own function, solved in this process (forward, every class unless
/// domain says otherwise). name is copied.
TOI_API void toi_candidate_function(toi_candidate *c, const char *name, toi_case_fn fn, toi_direction dir,
                            unsigned domain);
/// The built-in formulation or built engine solver called name: TOI_OK;
/// TOI_ERR_RANGE when there is none (or name is NULL), TOI_ERR_NOMEM. A
/// broken engine library is reported to msg.
TOI_API TOI_MUST_USE toi_status toi_candidate_find(toi_candidate *c, const char *name, const toi_msg *msg);
/// A subprocess command speaking the subprocess protocol (run with /bin/sh -c):
/// TOI_OK, TOI_ERR_NOMEM, or TOI_ERR_RANGE for a NULL argument.
TOI_API TOI_MUST_USE toi_status toi_candidate_command(toi_candidate *c, const char *command);
/// The same computing in precision q: its inputs are q's values and, unless
/// q is binary64, the protocol's header says "# precision NAME" (TOI_ERR_RANGE
/// for an unknown q too).
TOI_API TOI_MUST_USE toi_status toi_candidate_command_prec(toi_candidate *c, const char *command, toi_precision q);
/// Every solver of a plug-in argument LIB.so[:SYMBOL] (its catalog, the symbol
/// named, or toi_solver_solve) into *out (malloc'ed) and their number into
/// *count: TOI_OK; TOI_ERR_INPUT when the argument names no usable plug-in
/// (no such file, not loadable, no such symbol, a broken catalog: the reason,
/// naming the file, goes to msg), TOI_ERR_NOMEM (said to msg), TOI_ERR_RANGE
/// for NULL arguments; *out NULL and *count 0 on failure. *path_out (may be
/// NULL) receives the library's path. Plug-ins always run in a child process.
TOI_API TOI_MUST_USE toi_status toi_candidates_plugin(toi_candidate **out, size_t *count, const char *arg,
                                                      const toi_msg *msg, char *path_out, size_t path_sz);
/// The same, the library loaded and its catalog read in a child process that
/// is stopped after timeout seconds (toi_candidates_plugin allows 10): a
/// plug-in whose initialisation exits, crashes or hangs is TOI_ERR_INPUT,
/// said to msg naming it.
TOI_API TOI_MUST_USE toi_status toi_candidates_plugin_timeout(toi_candidate **out, size_t *count, const char *arg,
                                                              double timeout, const toi_msg *msg, char *path_out,
                                                              size_t path_sz);
/// Every built engine solver (the engines directories), sorted by name, into
/// *out (malloc'ed) and their number into *count (0 when none is built):
/// TOI_OK, TOI_ERR_NOMEM, TOI_ERR_RANGE for NULL arguments. A broken engine
/// library is reported to msg and left out.
TOI_API TOI_MUST_USE toi_status toi_candidates_engines(toi_candidate **out, size_t *count, const toi_msg *msg);
/// Copies src into dst (an external candidate's description is duplicated):
/// TOI_OK or TOI_ERR_NOMEM.
TOI_API TOI_MUST_USE toi_status toi_candidate_copy(toi_candidate *dst, const toi_candidate *src);
/// How c is named on toibench's command line: "-f NAME" (built-in ones,
/// engines, functions), "--solver LIB.so:SYMBOL" or "--solver-cmd 'COMMAND'".
TOI_API void toi_candidate_selector(const toi_candidate *c, char *buf, size_t n);
/// Releases what a constructor allocated (nothing for built-in ones and functions).
TOI_API void toi_candidate_free(toi_candidate *c);

/// Runs c on n cases into ans[0..n-1]. An external candidate's answers start as
/// failed ("no answer") and are checked (a verdict that is not a class, a
/// contact without a finite time: failed); an in-process one answers every
/// case. o may be NULL for an in-process candidate. A candidate whose precision
/// is not binary64 is given the cases rounded to its precision; a case that
/// overflows there is answered TOI_UNSUPPORTED for it, without a call (see
/// toi_candidate_input). Returns TOI_OK, or when the candidate could not be
/// run at all (the reason went to o->msg) TOI_ERR_IO (its process could not
/// be started or spoken to) or TOI_ERR_NOMEM.
TOI_API TOI_MUST_USE toi_status toi_candidate_run(const toi_candidate *c, const toi_case *cases, size_t n,
                                                  const toi_solve_opts *o, toi_answer *ans, toi_run_info *info);

/// The case c as a candidate computing in q receives it, into *out: returns
/// TOI_ROUND_SAME when it is c itself (always for binary64), TOI_ROUND_CHANGED
/// when some number changed by rounding, TOI_ROUND_OVERFLOW when a number
/// overflows q (not a case of q: out of the candidate's domain). Scoring uses
/// *out and the exact answer of *out. Cannot fail.
TOI_API toi_round_state toi_candidate_input(toi_case *out, const toi_case *c, toi_precision q);

#endif
