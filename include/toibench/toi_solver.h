/* toi_solver.h: the plug-in ABI through which toibench loads a time-of-impact solver from a shared library. */
#ifndef TOI_SOLVER_H
#define TOI_SOLVER_H

/*
 * A plug-in is a shared library that exports:
 *
 *   TOI_SOLVER_ABI;                        (required: the ABI version it was built for)
 *   int my_solve(toi_solver_result *out, const toi_solver_case *c);   (one or more)
 *   const toi_solver_info toi_solver_catalog[] = {...};  (optional: names, summaries, precisions)
 *   const int toi_solver_precision = TOI_SOLVER_BINARY32; (optional: the precision of solvers
 *                                          the catalog does not describe; default binary64)
 *   int toi_solver_report_cost(const char *symbol, toi_solver_cost *out);  (optional: the
 *                                          engine's own time, measured inside the plug-in)
 *
 * `toibench run --solver lib.so:my_solve FILE` calls my_solve once per case in a
 * child process with a time limit, so a crash, a hang or a NaN is reported for
 * that case and the run goes on. Without ":symbol" every solver of the catalog
 * is run, or, without a catalog, the function named toi_solver_solve.
 *
 * This header depends on nothing else: a plug-in needs only this file.
 * The ABI version changes whenever a struct below changes layout.
 *
 * Version 2 (from version 1): toi_solver_info gained `precision`, the format
 * the solver computes in, and the optional symbol toi_solver_precision says
 * it for solvers without a catalog entry. A solver of precision binary32
 * receives every number of the case rounded to float (still as doubles; a
 * case whose numbers overflow float is not given to it) and is scored in
 * binary32 ULPs against the exact answer of that rounded case. A plug-in
 * built for version 1 still loads: its solvers are binary64.
 *
 * Version 3 (from version 2): the optional function toi_solver_report_cost,
 * through which a plug-in reports the time its engine's own routine took,
 * apart from the bench's overhead. No struct of version 2 changed: a plug-in
 * built for version 1 or 2 still loads, and is not asked for a cost.
 */

#ifdef __cplusplus
extern "C" {
#endif

/// Version of the structs below; a plug-in built for another version is refused.
#define TOI_SOLVER_ABI_VERSION 3

/// Longest case ID, terminating NUL excluded.
#define TOI_SOLVER_ID_MAX 63

/// Verdicts, with the numbering of toibench's classes (see `toibench reference --help`).
enum toi_solver_class {
  TOI_SOLVER_NONE = 0,       ///< no contact, without saying why
  TOI_SOLVER_OVERLAP = 1,    ///< the balls overlap at t = 0
  TOI_SOLVER_STATIC = 2,     ///< no relative motion
  TOI_SOLVER_CONTACT = 3,    ///< touching at t = 0 and approaching
  TOI_SOLVER_SEPARATING = 4, ///< moving apart
  TOI_SOLVER_MISS = 5,       ///< approaching, but passing without contact
  TOI_SOLVER_GRAZE = 6,      ///< one touching instant
  TOI_SOLVER_HIT = 7         ///< a forward contact at time t
};

/// What a solve function returns.
enum toi_solver_status {
  TOI_SOLVER_OK = 0,          ///< *out holds the answer
  TOI_SOLVER_UNSUPPORTED = 1, ///< the solver does not handle this case (a 2D engine given a 3D case); not scored
  TOI_SOLVER_FAILED = 2       ///< the solver gave up (an engine's own failure state); counted as failed
};

/// One case: two balls moving at constant velocity. In 2D the third components are zero.
typedef struct toi_solver_case {
  char id[TOI_SOLVER_ID_MAX + 1]; ///< the case ID, for messages
  int dim;                        ///< 2 or 3
  double pa[3];                   ///< centre of ball A at t = 0
  double va[3];                   ///< velocity of ball A (length per unit time)
  double ra;                      ///< radius of A, >= 0
  double ma;                      ///< mass of A, > 0
  double pb[3];                   ///< centre of ball B at t = 0
  double vb[3];                   ///< velocity of ball B
  double rb;                      ///< radius of B, >= 0
  double mb;                      ///< mass of B, > 0
  /// The step: contacts after tmax need not be reported (an engine's time
  /// window is [0, tmax]). +INFINITY when the run gives no step (no --tmax).
  double tmax;
} toi_solver_case;

/// One answer. toibench fills it with {TOI_SOLVER_NONE, NaN, 0, 0} before the call.
typedef struct toi_solver_result {
  int cls;          ///< a toi_solver_class
  double t;         ///< time of the contact for a contact verdict (hit, graze, contact), else NaN
  /// Separation the solver aims at, as centre distance minus rA + rB at the
  /// returned time: 0 for touching, negative for an engine that stops in slight
  /// overlap (Box2D), positive for one that stops short. The reference is then
  /// also solved for |s + v t| = R + target and the answer scored against it.
  double target;
  double tolerance; ///< the accepted deviation from target the solver claims (0: none claimed)
} toi_solver_result;

/// Signature of a solve function: fills *out and returns a toi_solver_status.
typedef int (*toi_solver_fn)(toi_solver_result *out, const toi_solver_case *c);

/// The format a solver computes in (toi_solver_info.precision, toi_solver_precision).
enum toi_solver_precision {
  TOI_SOLVER_BINARY64 = 0, ///< double (the default)
  TOI_SOLVER_BINARY32 = 1  ///< float: inputs rounded to float, errors in float ULPs
};

/// One entry of the optional catalog.
typedef struct toi_solver_info {
  const char *name;    ///< the solver's name: letters, digits and '-' (as used with -f)
  const char *symbol;  ///< the exported solve function
  const char *summary; ///< one line: the contract, the units and the time-window semantics
  int precision;       ///< a toi_solver_precision (ABI 2; 0, binary64, when left out of an initializer)
} toi_solver_info;

/// An engine's own cost (ABI 3): what a plug-in measured around its engine's routine.
typedef struct toi_solver_cost {
  unsigned long long ns;    ///< nanoseconds spent inside the engine's routine over these calls
  unsigned long long calls; ///< calls of the routine measured
} toi_solver_cost;

/// Optional (ABI 3): reports the engine's own cost. toibench calls it in the
/// child process that solves cases (one process serves call after call) after
/// each batch of cases it solved, with the symbol of the solve function the
/// process runs. It fills *out with what that function measured since the
/// library was loaded and returns 1, or returns 0 when it measured nothing;
/// toibench counts each batch the difference from the previous report. `toibench run` shows the cost per call
/// beside its own time per call.
typedef int (*toi_solver_cost_fn)(const char *symbol, toi_solver_cost *out);

/// Defines the required version symbol; write `TOI_SOLVER_ABI;` once in a plug-in.
#define TOI_SOLVER_ABI const int toi_solver_abi = TOI_SOLVER_ABI_VERSION

/// The catalog a plug-in may define, ending with an entry whose name is NULL.
extern const toi_solver_info toi_solver_catalog[];
extern const int toi_solver_abi;
/// Optional: the precision of the solvers the catalog does not describe.
extern const int toi_solver_precision;
/// Optional (ABI 3): see toi_solver_cost_fn.
int toi_solver_report_cost(const char *symbol, toi_solver_cost *out);

#ifdef __cplusplus
}
#endif

#endif
