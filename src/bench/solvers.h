/* solvers.h: external solvers (plug-ins, subprocesses, built engines) run and scored beside the formulations. */
#ifndef TOI_SOLVERS_H
#define TOI_SOLVERS_H

#include <stddef.h>
#include <sys/types.h>
#include "toi.h"
#include "toi_msg.h"
#include "toiref.h"
#include "score.h"
#include "candidate.h"
#include "clock.h"

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
  toi_precision precision; ///< what it computes in: its inputs are rounded to it
  int binary;          ///< command: 1 + the records' precision once it asked for the binary protocol, else 0
  struct cmd_session *session; ///< command in binary: its process kept between calls, or NULL
  struct plugin_session *plug; ///< plug-in: its child process kept between calls, or NULL
} solver_def;

typedef struct cmd_session cmd_session;
/// Ends a binary command's process kept between calls (closes its input, waits
/// for its end); NULL does nothing. What goes wrong goes to the last call's msg.
void solver_cmd_session_end(cmd_session *ss);
typedef struct plugin_session plugin_session;
/// Ends a plug-in's child process kept between calls (the end of its job
/// socket, then its end awaited); NULL does nothing. What goes wrong goes to
/// the last call's msg.
void solver_plugin_session_end(plugin_session *ss);

/* The candidate interface's types under the names the solver hosts use. */
typedef toi_quota solver_quota;
typedef toi_solve_opts solver_opts;
typedef toi_answer_state solver_state;
#define SOLVER_ANSWERED TOI_ANSWERED
#define SOLVER_UNSUPPORTED TOI_UNSUPPORTED
#define SOLVER_FAILED TOI_FAILED
typedef toi_answer solver_answer;
typedef toi_run_info solver_run_info;

/* ---- registry (solvers.c) ---- */

/// The built engine solvers found in the engines directories (TOIBENCH_ENGINES,
/// a colon-separated list, or else engines/ beside the executable and
/// ../lib/toibench/engines), sorted by name. *out is malloc'ed; returns the
/// count (0 when none is built). A broken engine library is reported to msg.
size_t solvers_engines(solver_def **out, const toi_msg *msg);
/// The engine solver with this name: 0 and *out filled, or -1.
int solvers_find_engine(const char *name, solver_def *out, const toi_msg *msg);
/// Seconds a plug-in may take to load and describe itself when no --timeout
/// applies (engine directories, the library API without a timeout).
#define SOLVER_LOAD_TIMEOUT 10.0
/// Describes a plug-in library: every catalog entry, or the one symbol asked for
/// (symbol NULL: the catalog, or else toi_solver_solve). The library is loaded
/// in a child process stopped after timeout seconds (its constructors never
/// run in this process). Returns the count, or -1 after writing a reason to err.
int solvers_from_plugin(const char *path, const char *symbol, double timeout, solver_def **out, char *err,
                        size_t errsz);
/// solvers_from_plugin's work, done in the calling process (solver_describe.c): dlopen()s full
/// (path is its name in messages). Only the describing child calls it.
int solvers_describe_here(const char *full, const char *path, const char *symbol, solver_def **out, char *err,
                          size_t errsz);
/// Runs solvers_describe_here in a child process and takes its answer back
/// through a pipe; a child that exits, crashes or takes longer than timeout
/// seconds is an error naming path.
int solver_plugin_describe(const char *full, const char *path, const char *symbol, double timeout,
                           solver_def **out, char *err, size_t errsz);
/// A command solver named after the command.
void solvers_from_command(const char *command, solver_def *out);
/// Splits a --solver argument LIB.so[:SYMBOL]: the part after the last colon
/// names a symbol only when it is a C identifier and the part before it is an
/// existing file, or the whole argument is not one (else the colon belongs to
/// the path). Fills path and sym (empty when none); returns 1 when a symbol was named.
int solvers_split_plugin(const char *arg, char *path, size_t psz, char *sym, size_t ssz);
/// solvers_from_plugin on a --solver argument LIB.so[:SYMBOL] (split by
/// solvers_split_plugin); *path_out (may be NULL) receives the library path.
int solvers_from_plugin_arg(const char *arg, double timeout, solver_def **out, char *err, size_t errsz,
                            char *path_out, size_t path_sz);

/// Runs a solver on n cases; ans[i] receives case i's answer. Returns 0, or -1
/// when the solver could not be started at all (reason printed). A command that
/// asks for the binary protocol has s->binary set, and later calls use it.
int solver_run(solver_def *s, const toi_case *cases, size_t n, const solver_opts *o, solver_answer *ans,
               solver_run_info *info);
int solver_plugin_run(solver_def *s, const toi_case *cases, size_t n, const solver_opts *o,
                      solver_answer *ans, solver_run_info *info);
int solver_cmd_run(solver_def *s, const toi_case *cases, size_t n, const solver_opts *o,
                   solver_answer *ans, solver_run_info *info);

/* ---- a solver's processes (solver_proc.c) ---- */

/// A solver's process tree: a keeper, the bench's child in a process group of
/// its own and a child subreaper, runs the solver's body as its own child;
/// when the body ends, or the bench sends the keeper SIGTERM, the keeper kills
/// and reaps every process left of the tree (even one that left the group or
/// the session), reports how many were left, and exits as the body did.
typedef struct solver_proc {
  pid_t pid;     ///< the keeper
  int report_fd; ///< the keeper's report (read end), -1 once read
} solver_proc;

/// What the solver's own process runs: exec, or the work then _exit.
typedef void (*solver_body_fn)(const void *arg);

/// Descriptors a solver's process may be given at most.
#define SOLVER_CHILD_FDS_MAX 8

/// Starts body(arg) under a keeper, with fds[i] (descriptors of this process,
/// -1: /dev/null) as its descriptor i, i < nfds, and no other descriptor; its
/// signals as a new process has them. 0, or -1 with errno set.
int solver_proc_start(solver_proc *p, solver_body_fn body, const void *arg, const int *fds, int nfds);
/// Waits for the keeper's end until deadline (toi_clock_now(), clock.h), then has it end
/// the tree (SIGTERM, and SIGKILL to its group a second later). *status is the
/// body's as the keeper repeats it. Returns 1 when the keeper had to be stopped.
int solver_proc_wait(solver_proc *p, double deadline, int *status);
/// After solver_proc_wait: how many processes were still running when the body
/// ended by itself (killed by the keeper); 0 when none or not known.
int solver_proc_leftovers(solver_proc *p);
/// Tells msg that solver name left count processes behind: a protocol
/// message, counted in *shown (the first SOLVER_MESSAGES_SHOWN are told).
void solver_report_leftovers(const char *name, int count, int *shown, const toi_msg *msg);
/// In a child process: fds[i] becomes descriptor i (-1: /dev/null), every other
/// descriptor is closed. 0, or -1.
int solver_child_fds(const int *fds, int nfds);
/// Closes every descriptor from lo on.
void solver_close_from(int lo);

/// One line of a solver's own output (what: "stderr" for a command, "output"
/// for a plug-in) to msg, prefixed with its name: the first SOLVER_LINES_SHOWN
/// of each solver and run, counted in *shown.
void solver_relay_line(const char *name, const char *what, int *shown, const toi_msg *msg, const toi_msg *log,
                       const char *line);
/// Lines of a solver's own output, and protocol messages, shown per run; the rest are counted.
#define SOLVER_LINES_SHOWN 20
#define SOLVER_MESSAGES_SHOWN 20

/// After the last call with a quota: tells msg how many stderr lines and
/// protocol messages of solver `name` were not shown.
void solver_quota_report(const char *name, const solver_quota *q, const toi_msg *msg);

/// Checks an answer's class and time; on a bad one marks it failed. Returns 0 when usable.
int solver_check_answer(solver_answer *a);

#endif
