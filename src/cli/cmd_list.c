/* cmd_list.c: `toibench list`, the formulations and built engine solvers with their source and summary. */
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "solvers.h"

/* "  LABEL: TEXT", TEXT broken at spaces into lines of at most LIST_WIDTH
   columns, continued under its first word; a word longer than a line is
   printed whole. */
#define LIST_WIDTH 100
static void print_field(const char *label, const char *text) {
  int col = printf("  %s: ", label), indent = col, at_start = 1;
  while (*text) {
    size_t n = strcspn(text, " ");
    if (!at_start && col + 1 + (int)n > LIST_WIDTH) {
      printf("\n%*s", indent, "");
      col = indent;
      at_start = 1;
    }
    if (!at_start) col += printf(" ");
    col += printf("%.*s", (int)n, text);
    at_start = 0;
    text += n;
    text += strspn(text, " ");
  }
  printf("\n");
}

int cmd_list(int argc, char **argv) {
  int names_only = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      printf("Usage: toibench list [--names | --engines]\n"
             "Lists the built-in formulations: name, direction (forward: smallest root >= 0;\n"
             "reverse: largest root <= 0), source document and a summary of its guards and\n"
             "quirks; then the engine solvers built by 'make engines' (found in build/engines/,\n"
             "the installed engines directory, or the directories listed in\n"
             "TOIBENCH_ENGINES), which -f selects like formulations.\n"
             "A formulation from a document computes what the document writes; its summary\n"
             "then names, after 'Left open by DOC, ours:', every choice the document leaves\n"
             "to us: constants it does not give (Ericson's EPSILON), the extension to 3D,\n"
             "the window (a document's step or frame is the bench's: unbounded, and\n"
             "--tmax T scores a forward time after T as no contact), ties (== 0, t = 0),\n"
             "evaluation order, readings of typos, and what is returned when the document\n"
             "returns nothing (the verdict none, time NaN). Each computes in binary64 and,\n"
             "compiled from the same source, in binary32 (--precision binary32).\n"
             "  --names    print the formulation names only, one per line\n"
             "  --engines  print the built engine solver names only, one per line\n");
      return EXIT_OK;
    }
    if (!strcmp(argv[i], "--names"))
      names_only = 1;
    else if (!strcmp(argv[i], "--engines"))
      names_only = 2;
    else
      return cli_unknown_option("list", argv[i]);
  }
  size_t n;
  const toi_formulation *f = toi_formulations(&n);
  for (size_t i = 0; i < n && names_only != 2; i++) {
    if (names_only) {
      printf("%s\n", f[i].name);
      continue;
    }
    printf("%s (%s)\n  source:  %s\n", f[i].name, f[i].direction == TOI_FORWARD ? "forward" : "reverse",
           f[i].source);
    print_field("summary", f[i].summary);
  }
  solver_def *v;
  size_t ne = solvers_engines(&v, &cli_msg_stderr);
  for (size_t i = 0; i < ne && names_only != 1; i++) {
    if (names_only) {
      printf("%s\n", v[i].name);
      continue;
    }
    if (v[i].kind == SOLVER_PLUGIN)
      printf("%s (forward, engine plug-in)\n  source:  %s:%s\n", v[i].name, v[i].path, v[i].symbol);
    else
      printf("%s (forward, engine command)\n  source:  %s\n", v[i].name, v[i].command);
    print_field("summary", v[i].summary[0] ? v[i].summary : "-");
  }
  free(v);
  if (fflush(stdout) == 0 && !ferror(stdout)) return EXIT_OK;
  cli_error("write error on standard output");
  return EXIT_RUNTIME;
}
