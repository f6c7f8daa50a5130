/* cmd_solve.c: `toibench solve`, one formulation's own verdict and time per case. */
#include <stdlib.h>
#include <string.h>
#include "cli.h"

static void help(void) {
  printf("Usage: toibench solve -f NAME [-o FILE] FILE...\n"
         "Runs one formulation (see 'toibench list') on every case and prints, in input order:\n"
         "  ID CLASS T\n"
         "CLASS is the formulation's own verdict ('none' when it only knows \"no contact\"),\n"
         "T its time as a C99 hex float, or nan. This is also the answer format of the\n"
         "subprocess solver protocol.\n"
         "  -f NAME   the formulation (required)\n"
         "  -o FILE   write to FILE (only when complete) instead of stdout\n");
}

int cmd_solve(int argc, char **argv) {
  const char *outpath = NULL, *name = NULL;
  int nfiles = 0;
  char **files = calloc((size_t)argc, sizeof *files);
  if (!files) return EXIT_RUNTIME;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      help();
      free(files);
      return EXIT_OK;
    } else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
      outpath = argv[++i];
    } else if (!strcmp(argv[i], "-f") && i + 1 < argc) {
      name = argv[++i];
    } else if (argv[i][0] == '-' && argv[i][1]) {
      free(files);
      return cli_usage_error("solve", "unknown option '%s'", argv[i]);
    } else {
      files[nfiles++] = argv[i];
    }
  }
  if (!name) {
    free(files);
    return cli_usage_error("solve", "-f NAME is required");
  }
  const toi_formulation *f = toi_formulation_find(name);
  if (!f) {
    free(files);
    return cli_usage_error("solve", "unknown formulation '%s' (see 'toibench list')", name);
  }
  if (nfiles == 0) {
    free(files);
    return cli_usage_error("solve", "no case file given");
  }
  toi_caselist list = {0};
  int rc = cli_read_case_files(&list, nfiles, files);
  free(files);
  if (rc != EXIT_OK) {
    toi_caselist_free(&list);
    return rc;
  }
  cli_out out;
  if (cli_out_open(&out, outpath)) {
    toi_caselist_free(&list);
    return EXIT_RUNTIME;
  }
  for (size_t i = 0; i < list.count; i++) {
    toi_result r = f->solve(&list.items[i]);
    fprintf(out.f, "%s %s ", list.items[i].id, toi_class_name(r.cls));
    cli_print_hex(out.f, r.t);
    fputc('\n', out.f);
  }
  toi_caselist_free(&list);
  return cli_out_commit(&out) ? EXIT_RUNTIME : EXIT_OK;
}
