/* cmd_solve.c: `toibench solve`, one formulation's or engine solver's own verdict and time per case. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "solvers.h"

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
         "  --timeout SEC time allowed per answer of an engine solver (default 10)\n"
         "  -o FILE       write to FILE (only when complete) instead of stdout\n");
}

/* An engine solver's answers, in the same format, with its target when it states one. */
static int solve_engine(const solver_def *s, const toi_caselist *list, const solver_opts *opts, cli_out *out) {
  solver_answer *ans = calloc(list->count ? list->count : 1, sizeof *ans);
  solver_run_info info;
  if (!ans || solver_run(s, list->items, list->count, opts, ans, &info)) {
    free(ans);
    cli_out_abort(out);
    return EXIT_RUNTIME;
  }
  size_t failed = 0;
  for (size_t i = 0; i < list->count; i++) {
    const solver_answer *a = &ans[i];
    const char *id = list->items[i].id;
    if (a->state == SOLVER_FAILED) {
      if (++failed <= 20) cli_error("solver %s: case %s: %s", s->name, id, a->why);
      continue;
    }
    if (a->state == SOLVER_UNSUPPORTED) {
      fprintf(out->f, "%s unsupported\n", id);
      continue;
    }
    fprintf(out->f, "%s %s ", id, toi_class_name(a->r.cls));
    cli_print_hex(out->f, a->r.t);
    if (isfinite(a->target)) {
      fputc(' ', out->f);
      cli_print_hex(out->f, a->target);
      fputc(' ', out->f);
      cli_print_hex(out->f, isfinite(a->tolerance) ? a->tolerance : 0);
    }
    fputc('\n', out->f);
  }
  free(ans);
  if (failed > 20) cli_error("solver %s: %zu more failed cases not shown", s->name, failed - 20);
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
  solver_opts opts = {args.tmax, args.timeout, NULL, &cli_msg_stderr};
  int nfiles = args.nfiles;
  char **files = args.files;
  if (!name) {
    free(files);
    return cli_usage_error("solve", "-f NAME is required");
  }
  const toi_formulation *f = toi_formulation_find(name);
  solver_def engine;
  if (!f && solvers_find_engine(name, &engine, &cli_msg_stderr)) {
    free(files);
    return cli_usage_error("solve", "unknown formulation or solver '%s' (see 'toibench list')", name);
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
  if (!f) {
    int rc = solve_engine(&engine, &list, &opts, &out);
    toi_caselist_free(&list);
    return rc;
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
