/* main.c: the toibench command dispatcher. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "cli.h"

/* The commit it was built from, from the Makefile (git describe); none when unknown. */
#ifndef TOI_GIT_VERSION
#define TOI_GIT_VERSION "unknown"
#endif

int cmd_list(int argc, char **argv);
int cmd_reference(int argc, char **argv);
int cmd_solve(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_hunt(int argc, char **argv);
int cmd_audit(int argc, char **argv);
int cmd_simulate(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_fpcore(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_summary(int argc, char **argv);
/* COMMAND DECLARATIONS: add `int cmd_NAME(int argc, char **argv);` above this line */

static const cli_command commands[] = {
    {"list", "list the formulations with their source and summary", cmd_list},
    {"reference", "print the certified exact class and roots of each case", cmd_reference},
    {"solve", "print one formulation's verdict and time for each case", cmd_solve},
    {"run", "score formulations against the certified reference", cmd_run},
    {"gen", "write cases of a family (grazing, near-contact, tangent, mixed, ...)", cmd_gen},
    {"sweep", "stream a family through every formulation: binned errors, mergeable", cmd_sweep},
    {"merge", "combine sweep shard results into the whole sweep's result", cmd_merge},
    {"hunt", "search for the worst inputs of one formulation or external solver", cmd_hunt},
    {"audit", "audit the collision response of each formulation against the exact one", cmd_audit},
    {"simulate", "event-driven many-ball simulation: energy, momentum, overlaps per kernel", cmd_simulate},
    {"report", "run the default suite and write the HTML/Markdown/JSON accuracy report", cmd_report},
    {"fpcore", "print formulations as FPCore expressions (FPBench) for Herbie, FPTaylor, Daisy", cmd_fpcore},
    {"compare", "compare two run (--format json) or sweep results: regressions, exit 1 when worse", cmd_compare},
    {"summary", "read sweep results as a table per column (table, json, csv)", cmd_summary},
    /* COMMAND TABLE: add `{"NAME", "summary", cmd_NAME},` above this line */
};

static void print_help(FILE *f) {
  fprintf(f,
          "Usage: toibench COMMAND [OPTIONS] [FILE...]\n"
          "A verification and numerical-accuracy bench for the time of impact of two\n"
          "moving balls. Formulations in double precision are checked against a\n"
          "certified MPFR/GMP reference.\n\nCommands:\n");
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
  fprintf(f,
          "\nOptions:\n"
          "  -h, --help     print this help\n"
          "  -V, --version  print the version (and the commit it was built from)\n"
          "\n'toibench COMMAND --help' describes a command.\n"
          "Exit status: 0 success, 1 runtime failure, 2 usage error, 3 invalid input.\n"
          "Every output (-o, --rows, --checkpoint, ...) is checked before the work: one\n"
          "that is the same file as an input or another output is a usage error (symbolic\n"
          "and hard links included); one that cannot be created fails at once. A device\n"
          "(/dev/null), a pipe or a terminal is never the same file as anything.\n");
}

static int dispatch(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "toibench: no command given (toibench COMMAND [OPTIONS] ...)\nTry 'toibench --help'\n");
    return EXIT_USAGE;
  }
  if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
    print_help(stdout);
    return EXIT_OK;
  }
  if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
    if (strcmp(TOI_GIT_VERSION, "unknown") && strcmp(TOI_GIT_VERSION, ""))
      printf("toibench %s (%s)\n", TOI_VERSION, TOI_GIT_VERSION);
    else
      printf("toibench %s\n", TOI_VERSION);
    return EXIT_OK;
  }
  enum { NCOMMANDS = sizeof commands / sizeof commands[0] };
  const char *names[NCOMMANDS];
  for (size_t i = 0; i < NCOMMANDS; i++) {
    if (!strcmp(argv[1], commands[i].name)) return commands[i].run(argc - 1, argv + 1);
    names[i] = commands[i].name;
  }
  const char *near = cli_suggest(names, NCOMMANDS, argv[1]);
  fprintf(stderr, "toibench: unknown command '%s'", argv[1]);
  if (near) fprintf(stderr, "; did you mean '%s'?", near);
  fprintf(stderr, "\nTry 'toibench --help'\n");
  return EXIT_USAGE;
}

int main(int argc, char **argv) {
  cli_signals_note_start(); /* before anything changes them */
  int rc = dispatch(argc, argv);
  /* Whatever went to stdout (a help text, a table) must have arrived: a full
   * device or a closed pipe is an error, not a success. A command that has
   * failed already has said why. */
  int bad = fflush(stdout) != 0 || ferror(stdout);
  if (fclose(stdout) != 0) bad = 1;
  if (bad && rc == EXIT_OK) {
    cli_error("write error on standard output: %s", strerror(errno ? errno : EIO));
    rc = EXIT_RUNTIME;
  }
  return rc;
}
