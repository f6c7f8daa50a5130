/* cmd_list.c: `toibench list`, the formulations with their source and summary. */
#include <string.h>
#include "cli.h"

int cmd_list(int argc, char **argv) {
  int names_only = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      printf("Usage: toibench list [--names]\n"
             "Lists the built-in formulations: name, direction (forward: smallest root >= 0;\n"
             "reverse: largest root <= 0), source document and a one-line summary.\n"
             "  --names   print the names only, one per line\n");
      return EXIT_OK;
    }
    if (!strcmp(argv[i], "--names"))
      names_only = 1;
    else
      return cli_usage_error("list", "unknown option '%s'", argv[i]);
  }
  size_t n;
  const toi_formulation *f = toi_formulations(&n);
  for (size_t i = 0; i < n; i++) {
    if (names_only) {
      printf("%s\n", f[i].name);
      continue;
    }
    printf("%s (%s)\n  source:  %s\n  summary: %s\n", f[i].name,
           f[i].direction == TOI_FORWARD ? "forward" : "reverse", f[i].source, f[i].summary);
  }
  return fflush(stdout) ? EXIT_RUNTIME : EXIT_OK;
}
