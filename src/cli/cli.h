/* cli.h: shared helpers of the toibench command-line tool (the only code that prints). */
#ifndef TOI_CLI_H
#define TOI_CLI_H

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include "toi.h"
#include "toi_msg.h"
#include "toiref.h"
#include "bench.h"
#include "candlist.h"

/// Exit codes of every command.
enum {
  EXIT_OK = 0,       ///< success
  EXIT_RUNTIME = 1,  ///< runtime failure (I/O, memory, a solver that failed)
  EXIT_USAGE = 2,    ///< bad command line
  EXIT_INPUT = 3     ///< invalid input file
};

/// A command: name, one-line summary, entry point.
typedef struct cli_command {
  const char *name;
  const char *summary;
  int (*run)(int argc, char **argv);
} cli_command;

/// Prints "toibench CMD: message" and "Try 'toibench CMD --help'" to stderr; returns EXIT_USAGE.
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/// The names a mistyped word is compared with (src/cli/suggest.c).
typedef enum cli_names {
  CLI_NAMES_OPTIONS,      ///< the options of the command (cli_command_options)
  CLI_NAMES_FORMULATIONS, ///< the built-in formulations
  CLI_NAMES_CANDIDATES,   ///< the formulations, 'all', 'engines' and the built engines
  CLI_NAMES_FAMILIES,     ///< the generator's families
  CLI_NAMES_REFERENCE,    ///< the reference engines (fast, mpfr)
  CLI_NAMES_PRECISIONS    ///< binary64, binary32, ...
} cli_names;
/// The entry of list[0..n) closest to word: the nearest within Damerau-
/// Levenshtein distance 2 (1 for a word of 3 letters or fewer; fewer edits
/// than the word has letters), else the only entry that word is a prefix of;
/// NULL when there is none. word itself is never suggested.
const char *cli_suggest(const char *const *list, size_t n, const char *word);
/// As cli_usage_error, with "; did you mean 'X'?" after the message when
/// cli_suggest finds X for word among the names of kind.
int cli_usage_error_near(const char *cmd, cli_names kind, const char *word, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/// "unknown option 'OPT'" with a suggestion from cmd's options.
int cli_unknown_option(const char *cmd, const char *opt);
/// The options cmd accepts besides --help (NULL-terminated; *n of them), or
/// NULL for an unknown command. The man page and the bash completion list the same.
const char *const *cli_command_options(const char *cmd, size_t *n);
/// The sink that prints each library message as cli_error does.
extern const toi_msg cli_msg_stderr;
/// A sink keeping the first message it is given in buf[0..n-1] (cut there),
/// for a message the command prints inside its own: buf is emptied here.
typedef struct cli_msg_text {
  char *buf;
  size_t n;
} cli_msg_text;
toi_msg cli_msg_into(cli_msg_text *t, char *buf, size_t n);

/// The progress line on stderr ("\rWHAT: DONE/TOTAL cases (P%), R cases/s, ETA Ss").
extern const toi_progress cli_progress_stderr;

/// Prints "toibench: message" to stderr.
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/// Reads every case file named in paths into list; prints every diagnostic.
/// Returns EXIT_OK, EXIT_INPUT or EXIT_RUNTIME.
int cli_read_case_files(toi_caselist *list, int npaths, char **paths);
/// Prints a file's diagnostics to stderr as cli_read_case_files does.
void cli_report_diags(const char *path, const toi_diags *dg);

/* ---- case files streamed through a command (cli_stream.c) ---- */
#include "stream.h"
/// -j N or -jN at argv[*i] (as sweep takes it): 1 taken (*jobs set), 0 not
/// this option, -1 a usage error (printed).
int cli_take_jobs(const char *cmd, int argc, char **argv, int *i, int *jobs);
/// The default of -j: the number of online cores.
int cli_default_jobs(void);
/// Streams the case files through o->work and o->commit (o->file_done is
/// the CLI's: each file's diagnostics printed as cli_read_case_files prints
/// them). EXIT_OK when every file was read without a problem (res says what
/// commit said), EXIT_INPUT after "invalid input: nothing was written", or
/// EXIT_RUNTIME (a file that cannot be read, no memory, no threads).
int cli_stream_cases(const toi_stream_opts *o, int nfiles, char **files, toi_stream_result *res);

/// Splits a comma-separated list of formulation names ("all" or NULL means
/// every built-in one). Returns the count, or -1 after printing an error
/// naming the unknown formulation. *out is malloc'ed.
int cli_parse_formulations(const char *cmd, const char *names, const toi_formulation ***out);

/// Adds the candidates NAMES names (comma-separated formulations and built
/// engines; 'all' every formulation, 'engines' every built engine), skipping
/// names already in l. EXIT_OK, EXIT_USAGE after a usage error for cmd, or
/// EXIT_RUNTIME.
int cli_add_named(const char *cmd, candlist *l, const char *names);
/// The same with the built-in formulations in precision q (their variant; a
/// formulation without one is a usage error naming those that have one).
/// Engines keep the precision they declare.
int cli_add_named_prec(const char *cmd, candlist *l, const char *names, toi_precision q);
/// Appends the candidates of --solver ARG (every solver of the plug-in) or
/// --solver-cmd ARG (opt says which), as they are named. EXIT_OK, EXIT_USAGE,
/// EXIT_RUNTIME.
int cli_add_given(const char *cmd, candlist *l, const char *opt, const char *arg);
/// The same with a --solver-cmd command computing in precision q (a plug-in
/// declares its own precision: q is not used for --solver); a plug-in is
/// loaded in a child process given timeout seconds (cli_timeout_scan).
int cli_add_given_prec(const char *cmd, candlist *l, const char *opt, const char *arg, toi_precision q,
                       double timeout);
/// Checks that a --solver-cmd COMMAND can be started: when its first word is
/// a plain program name or path (no quoting, expansion or shell keyword), it
/// must be an executable file (found in PATH when it has no '/'). EXIT_OK, or
/// EXIT_USAGE after one usage error "solver COMMAND: cannot run: WHY" for cmd.
int cli_check_command(const char *cmd, const char *command);
/// A -f list (or one name) with no empty or blank name: EXIT_OK, or a usage error of cmd.
int cli_check_names(const char *cmd, const char *names);
/// Parses the value of --precision or --solver-cmd-precision into *q:
/// EXIT_OK, or EXIT_USAGE after a usage error listing the precisions.
int cli_parse_precision(const char *cmd, const char *opt, const char *v, toi_precision *q);
/// "the binary32 variants exist for: a, b" or "no formulation has a binary32
/// variant yet", for usage errors.
void cli_variants_note(char *buf, size_t n, toi_precision q);

/// Options several commands share; a command names those it accepts.
enum {
  CLI_OPT_OUT = 1,        ///< -o FILE
  CLI_OPT_ROWS = 2,       ///< --rows FILE
  CLI_OPT_NAMES = 4,      ///< -f NAMES
  CLI_OPT_REFERENCE = 8,  ///< --reference fast|mpfr (cli_args.engine)
  CLI_OPT_TMAX = 16,      ///< --tmax T (> 0)
  CLI_OPT_TIMEOUT = 32,   ///< --timeout SEC (> 0)
  CLI_OPT_TARGET = 64,    ///< --target-distance DELTA
  CLI_OPT_PRECISION = 128 ///< --precision NAME (cli_args.precision): the built-in formulations' variant
};

/// The shared options and the file arguments of a command line.
typedef struct cli_args {
  const char *out, *rows, *names;
  double tmax;      ///< +Inf unless --tmax
  double timeout;   ///< 10 unless --timeout
  double delta;     ///< 0 unless --target-distance
  int have_delta;
  toi_ref_engine engine; ///< TOI_REF_FAST unless --reference
  toi_precision precision; ///< TOI_BINARY64 unless --precision
  char **files;     ///< the arguments that are not options ("-" is stdin)
  int nfiles;
} cli_args;

enum { CLI_TAKEN = 1, CLI_HELP = 2 };
int cli_args_init(cli_args *a, int argc);  ///< 0, or -1 when out of memory
void cli_args_free(cli_args *a);
/// Takes argv[*i] (and its value) as a shared option in `accept` or as a
/// file. Returns CLI_TAKEN, CLI_HELP for --help/-h, or -1 after printing a
/// usage error (an unknown option, a missing or bad value). Call it after the
/// command's own options.
int cli_args_take(cli_args *a, const char *cmd, unsigned accept, int argc, char **argv, int *i);
/// Ends option parsing on r, a cli_args_take result other than CLI_TAKEN:
/// frees *a, prints the help for CLI_HELP; returns the exit status (EXIT_OK
/// after the help, EXIT_USAGE after a usage error).
int cli_args_stop(cli_args *a, int r, void (*help)(void));

/// Output that appears only when complete (cli_out.c): writes go to a file
/// without a name in the output's folder (O_TMPFILE; nothing is left however
/// the process ends), given a temporary name and renamed into place by
/// cli_out_commit; where the file system has no O_TMPFILE, to a named
/// temporary (cli_temp_pattern) beside path. cli_out_abort removes it.
/// path "-" or NULL means stdout.
typedef struct cli_out {
  FILE *f;
  char path[4096];
  char tmp[4096];
  int is_stdout;
  int direct;   ///< a device or pipe written in place
  int spool;    ///< stdout, held in an unnamed temporary file until commit
  int unnamed;  ///< an O_TMPFILE file, linked at commit
  char *spool_buf; ///< the spool's stdio buffer (SPOOL_BUF_BYTES), freed with it
} cli_out;
int cli_out_open(cli_out *o, const char *path);   ///< 0 or -1 (error printed)
/// The same, but stdout too appears only when complete: held in an unnamed
/// temporary file of TMPDIR (mode 0600, gone with the process) and copied to
/// stdout by cli_out_commit; cli_out_abort writes nothing. A stdout that is
/// the null device is written in place (nothing there to take back).
int cli_out_open_spooled(cli_out *o, const char *path);
int cli_out_commit(cli_out *o);                   ///< 0 or -1 (error printed)
void cli_out_abort(cli_out *o);

/// What every temporary's name holds: DIR/.NAME.toibench-tmp.PID.START.BOOT.NS.XXXXXX,
/// NAME the output's own name (its first 32 bytes), PID the owner's process ID,
/// START its start time (field 22 of /proc/PID/stat), BOOT the first 12 hex
/// digits of /proc/sys/kernel/random/boot_id, NS the inode of its pid namespace
/// (/proc/self/ns/pid); 0 for each of the last three when /proc cannot tell.
#define CLI_TEMP_TAG ".toibench-tmp."
/// That name for an output name in folder dir, ending in XXXXXX (for mkdtemp):
/// 0, or -1 (ENAMETOOLONG) when it does not fit in n bytes.
int cli_temp_pattern(char *buf, size_t n, const char *dir, const char *name);
/// 1 when name (an entry, no folder) is exactly such a temporary and its owner
/// is provably gone: made in this boot and pid namespace, and no process of its
/// PID is running, or the one running started at another time (a reused pid)
/// or has ended (a zombie). 0 otherwise (a live owner, or one that cannot be
/// looked up here: another boot, machine or container).
int cli_temp_is_stale(const char *name);
/// Removes the stale temporaries of folder dir (cli_temp_is_stale), files and
/// folders, without following a link; nothing else. Best effort, silent.
void cli_temp_sweep(const char *dir);
/// path, or when it is a symbolic link the file it names (realpath when that
/// exists, else the link's text, relative to the link's folder), into target:
/// 0, or -1 when it does not fit (target is then path).
int cli_resolve_link(const char *path, char *target, size_t n);

/// Notes which of SIGINT, SIGTERM, SIGHUP and SIGPIPE are ignored when the
/// program starts (nohup, `trap '' INT`): those stay ignored, the others get
/// the cleanup handler below once a temporary exists. main calls it first.
void cli_signals_note_start(void);
/// --solver-log FILE: every line the external solvers wrote (toi_quota.log),
/// none left out, in a file that appears when the command ends, failed or not.
typedef struct cli_solver_log {
  cli_out out;
  toi_msg msg;
  pthread_mutex_t lock;
  int open, failed;
} cli_solver_log;
/// Opens path (NULL: no log, the sink is NULL): 0, or -1 (error printed).
int cli_solver_log_open(cli_solver_log *l, const char *path);
/// The sink to put in each solver's toi_quota.log (NULL without a log).
const toi_msg *cli_solver_log_sink(cli_solver_log *l);
/// Puts the file in place: 0, or -1 after a write error (printed).
int cli_solver_log_close(cli_solver_log *l);

/// A temporary folder this process created (a report's): if SIGINT, SIGTERM,
/// SIGHUP or SIGPIPE ends the process before cli_cleanup_unregister(path),
/// the folder and everything in it (8 levels deep) are removed, then the
/// process ends by the signal (a shell sees 130, 143, ...). Register it right
/// after mkdtemp, unregister it once it has been renamed into place or
/// removed. 0, or -1 when 16 paths are registered already or path is too long
/// (then it is not removed on a signal). cli_out's named temporary files are
/// registered the same way.
int cli_cleanup_register_dir(const char *path);
/// on 1: from now on the first SIGINT, SIGTERM or SIGHUP does not end the
/// process but is only recorded, for the caller to notice (cli_deferred_signal)
/// and stop where it can save its work; a second one ends it as above. A signal
/// ignored when the process started stays ignored. on 0: signals end the
/// process again (one recorded before stays recorded).
void cli_defer_signals(int on);
/// The signal recorded since cli_defer_signals(1), or 0.
int cli_deferred_signal(void);
/// Holds SIGINT, SIGTERM and SIGHUP (the previous mask in *old; restore it with
/// pthread_sigmask(SIG_SETMASK, old, NULL)) while a temporary is created and registered.
void cli_hold_signals(sigset_t *old);
void cli_cleanup_unregister(const char *path);

/// --timeout SEC, the same rule for every command: 0 < SEC <= CLI_TIMEOUT_MAX
/// (poll() takes milliseconds in an int), CLI_TIMEOUT_DEFAULT when absent.
#define CLI_TIMEOUT_DEFAULT 10.0
#define CLI_TIMEOUT_MAX 1e6
/// Parses --timeout's value into *out: EXIT_OK, or EXIT_USAGE after a usage error for cmd.
int cli_parse_timeout(const char *cmd, const char *v, double *out);
/// The --timeout of a command line (the last valid one, else the default), for
/// what must happen before the options are all read: loading a plug-in given
/// earlier on the line.
double cli_timeout_scan(int argc, char **argv);

/// Parses a whole decimal or hex number; 0 on success. cli_parse_u64: decimal
/// digits (never octal), 0x hex, or an exact integer such as 1e6; no sign or space.
int cli_parse_double(const char *s, double *out);
int cli_parse_long(const char *s, long *out);
int cli_parse_u64(const char *s, unsigned long long *out);

/// Writes a double as C99 hex float, or "nan", "inf", "-inf".
/// cli_print_hex into buf (at least 32 bytes): the length; a NUL follows.
size_t cli_fmt_hex(char *buf, double x);
void cli_print_hex(FILE *f, double x);
/// Writes a double as printf's "%.6g" would, byte for byte.
void cli_print_g6(FILE *f, double x);

#endif
