/* cmd_solve.c: `toibench solve`, one formulation's or engine solver's own verdict and time per case. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

static void help(void) {
  printf("Usage: toibench solve -f NAME [--tmax T] [--timeout SEC] [-o FILE] FILE...\n"
         "Runs one formulation or built engine solver (see 'toibench list') on every case\n"
         "and prints, in input order:\n"
         "  ID CLASS T [TARGET TOLERANCE]\n"
         "CLASS is the formulation's own verdict ('none' when it only knows \"no contact\"),\n"
         "T its time as a C99 hex float, or nan. An engine solver adds the separation it\n"
         "aims at and its claimed tolerance, and prints 'ID unsupported' for a case it\n"
         "declines; a case it fails on (crash, hang) is reported on stderr and the exit\n"
         "status is 1. This is also the answer format of the subprocess solver protocol.\n"
         "  -f NAME       the formulation or engine solver (required)\n"
         "  --tmax T      the step given to an engine solver (default: none)\n"
         "  --timeout SEC time allowed per answer of an engine solver (default 10, at most 1e6)\n"
         "  -o FILE       write to FILE (only when complete) instead of stdout\n");
}

/* The candidate's answers in input order; a candidate that states targets adds
   its target when it states one. */
static int solve_all(const toi_candidate *c, const toi_caselist *list, const toi_solve_opts *opts, cli_out *out) {
  toi_answer *ans = calloc(list->count ? list->count : 1, sizeof *ans);
  toi_run_info info;
  if (!ans || toi_candidate_run(c, list->items, list->count, opts, ans, &info)) {
    free(ans);
    cli_out_abort(out);
    return EXIT_RUNTIME;
  }
  size_t failed = 0;
  for (size_t i = 0; i < list->count; i++) {
    const toi_answer *a = &ans[i];
    const char *id = list->items[i].id;
    if (a->state == TOI_FAILED) {
      if (++failed <= 20) cli_error("solver %s: case %s: %s", c->name, id, a->why);
      continue;
    }
    if (a->state == TOI_UNSUPPORTED) {
      fprintf(out->f, "%s unsupported\n", id);
      continue;
    }
    fprintf(out->f, "%s %s ", id, toi_class_name(a->r.cls));
    cli_print_hex(out->f, a->r.t);
    if ((c->flags & TOI_CAND_EXTERNAL) && isfinite(a->target)) {
      fputc(' ', out->f);
      cli_print_hex(out->f, a->target);
      fputc(' ', out->f);
      cli_print_hex(out->f, isfinite(a->tolerance) ? a->tolerance : 0);
    }
    fputc('\n', out->f);
  }
  free(ans);
  if (failed > 20) cli_error("solver %s: %zu more failed cases not shown", c->name, failed - 20);
  if (cli_out_commit(out)) return EXIT_RUNTIME;
  return failed ? EXIT_RUNTIME : EXIT_OK;
}

int cmd_solve(int argc, char **argv) {
  cli_args args;
  if (cli_args_init(&args, argc)) return EXIT_RUNTIME;
  for (int i = 1; i < argc; i++) {
    int r = cli_args_take(&args, "solve", CLI_OPT_OUT | CLI_OPT_NAMES | CLI_OPT_TMAX | CLI_OPT_TIMEOUT, argc, argv,
                          &i);
    if (r != CLI_TAKEN) return cli_args_stop(&args, r, help);
  }
  const char *outpath = args.out, *name = args.names;
  toi_solve_opts opts = {args.tmax, args.timeout, NULL, &cli_msg_stderr};
  int nfiles = args.nfiles;
  char **files = args.files;
  if (!name) {
    free(files);
    return cli_usage_error("solve", "-f NAME is required");
  }
  toi_candidate cand;
  if (toi_candidate_find(&cand, name, &cli_msg_stderr)) {
    free(files);
    return cli_usage_error_near("solve", CLI_NAMES_CANDIDATES, name,
                                "unknown formulation or solver '%s' (see 'toibench list')", name);
  }
  toi_caselist list = {0};
  int rc = nfiles == 0 ? cli_usage_error("solve", "no case file given") : cli_read_case_files(&list, nfiles, files);
  free(files);
  cli_out out;
  if (rc == EXIT_OK && cli_out_open(&out, outpath)) rc = EXIT_RUNTIME;
  if (rc == EXIT_OK) rc = solve_all(&cand, &list, &opts, &out);
  toi_caselist_free(&list);
  toi_candidate_free(&cand);
  return rc;
}
