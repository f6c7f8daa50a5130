/* cli_outcheck.h: every output of a command checked before its work: not an input, not another output, creatable. */
#ifndef TOI_CLI_OUTCHECK_H
#define TOI_CLI_OUTCHECK_H

#include <stddef.h>

/// A file a command line names: the option that named it ("-o", "--rows",
/// "--solver"; NULL for a plain file argument) and its path ("-" is standard
/// input or output; a NULL path is an option not given, skipped).
typedef struct cli_file {
  const char *opt;
  const char *path;
} cli_file;

/// Before any work, for command cmd:
/// (a) refuses an output that is the same file (device and inode, so also
///     through a symbolic or hard link, or spelt "./x" for "x") as an input,
///     and two outputs that name the same file, existing or not (standard
///     output twice is one stream written in turn, not a clash): a usage
///     error, EXIT_USAGE;
/// (b) then checks that each output can be created where cli_out_open will
///     create it (a symbolic link followed as it follows one): its folder
///     exists, is a folder and takes a new file (a probe temporary named as
///     cli_out's, created and removed at once with the signals held, so
///     nothing is left behind); an existing folder in the output's place is
///     refused too. Printed as cli_out_open prints it, "toibench: PATH: cannot
///     create: WHY"; EXIT_RUNTIME.
/// Standard output and input are compared by what they are open on: only a
/// regular file can be "the same"; a device (/dev/null), a pipe or a FIFO is
/// never the same as anything and needs no check. EXIT_OK when every output
/// passes.
int cli_outputs_check(const char *cmd, const cli_file *outputs, size_t nout, const cli_file *inputs, size_t nin);

/// The inputs of a command line: the file arguments files[0..nfiles) ("-":
/// standard input), the library of each --solver LIB.so[:SYMBOL] of
/// argv[1..argc) (argv NULL: none), then extra[0..nextra).
typedef struct cli_inputs {
  cli_file *v;
  size_t n;
  char **libs; /* the libraries' paths, owned */
  size_t nlibs;
} cli_inputs;
/// 0, or -1 after "out of memory" (printed).
int cli_inputs_gather(cli_inputs *in, char *const *files, int nfiles, int argc, char **argv, const cli_file *extra,
                      size_t nextra);
void cli_inputs_free(cli_inputs *in);

/// cli_outputs_check with, as inputs, the file arguments files[0..nfiles)
/// ("-": standard input), the library of each --solver LIB.so[:SYMBOL] of
/// argv[1..argc) (argv NULL: none), then extra[0..nextra).
int cli_outputs_check_args(const char *cmd, const cli_file *outputs, size_t nout, char *const *files, int nfiles,
                           int argc, char **argv, const cli_file *extra, size_t nextra);

/// The same for an output folder written as a whole and replaced (report
/// --out DIR): refuses (EXIT_USAGE) an input that is DIR itself (a file
/// named as the folder) or lies anywhere inside it, since replacing DIR
/// would remove it. EXIT_OK when DIR
/// does not exist yet. DIR's own creation is not checked here.
int cli_outdir_check(const char *cmd, const cli_file *dir, const cli_file *inputs, size_t nin);

/// 1 when the existing path is dir itself or lies inside the existing folder
/// dir at any depth, by device and inode of each folder on the way up from
/// path's real location; else 0.
int cli_path_inside(const char *path, const char *dir);

#endif
