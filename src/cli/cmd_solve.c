/* cmd_solve.c: `toibench solve`, one formulation's or engine solver's own verdict and time per case. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "cli_outcheck.h"

static void help(void) {
  printf("Usage: toibench solve -f NAME [--tmax T] [--timeout SEC] [-o FILE] [-j N] FILE...\n"
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
         "  -o FILE       write to FILE (only when complete) instead of stdout\n"
         "  -j N          threads for a formulation (default: the number of online cores;\n"
         "                the output is the same for any N): the files are read, solved\n"
         "                and written a block at a time, in memory that does not grow\n"
         "                with them; an engine solver gets the whole files at once\n"
         "                (read whole: at most 1073741824 bytes, 1 GiB, each)\n"
         "Outputs appear only when complete (stdout too); invalid input writes nothing.\n");
}

/* One answer's line; a candidate that states targets adds its target when it
   states one. */
static void write_answer(FILE *f, const toi_candidate *c, const char *id, const toi_answer *a) {
  if (a->state == TOI_UNSUPPORTED) {
    fprintf(f, "%s unsupported\n", id);
    return;
  }
  fprintf(f, "%s %s ", id, toi_class_name(a->r.cls));
  cli_print_hex(f, a->r.t);
  if ((c->flags & TOI_CAND_EXTERNAL) && isfinite(a->target)) {
    fputc(' ', f);
    cli_print_hex(f, a->target);
    fputc(' ', f);
    cli_print_hex(f, isfinite(a->tolerance) ? a->tolerance : 0);
  }
  fputc('\n', f);
}

/* The candidate's answers in input order (a solver: the whole files at once). */
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
    if (a->state == TOI_FAILED) {
      if (++failed <= 20) cli_error("solver %s: case %s: %s", c->name, list->items[i].id, a->why);
      continue;
    }
    write_answer(out->f, c, list->items[i].id, a);
  }
  free(ans);
  if (failed > 20) cli_error("solver %s: %zu more failed cases not shown", c->name, failed - 20);
  if (cli_out_commit(out)) return EXIT_RUNTIME;
  return failed ? EXIT_RUNTIME : EXIT_OK;
}

/* ---- a formulation: the files streamed on -j threads ---- */

typedef struct solve_slot {
  toi_answer *ans;
  size_t cap;
} solve_slot;

typedef struct solve_stream {
  const toi_candidate *c;
  const toi_solve_opts *opts;
  solve_slot *slots;
  const char *outpath;
  cli_out out;
  int out_open;
} solve_stream;

/* A block's answers; a formulation answers every case (a failure stops the run). */
static int solve_work(void *ctx, toi_stream_block *b) {
  solve_stream *r = ctx;
  solve_slot *s = &r->slots[b->slot];
  if (b->n > s->cap) {
    free(s->ans);
    s->cap = (s->ans = calloc(b->n, sizeof *s->ans)) ? b->n : 0;
    if (!s->cap) return 1;
  }
  toi_run_info info;
  if (toi_candidate_run(r->c, b->cases, b->n, r->opts, s->ans, &info)) return 1;
  for (size_t i = 0; i < b->n; i++) {
    if (s->ans[i].state == TOI_FAILED) return 1;
    write_answer(b->out, r->c, b->cases[i].id, &s->ans[i]);
  }
  return 0;
}

/* In input order; the output opened at the first block, so that invalid input never touches it. */
static int solve_commit(void *ctx, toi_stream_block *b) {
  solve_stream *r = ctx;
  if (b->work_rc) {
    cli_error("%s: solving a block of cases from %s failed", r->c->name, b->cases[0].id);
    return 1;
  }
  if (!r->out_open) {
    if (cli_out_open_spooled(&r->out, r->outpath)) return 1;
    r->out_open = 1;
  }
  if (fwrite(b->text, 1, b->len, r->out.f) == b->len) return 0;
  cli_error("write error");
  return 1;
}

static int solve_streamed(const toi_candidate *c, const toi_solve_opts *opts, const cli_args *args, int jobs) {
  solve_stream r = {c, opts, NULL, args->out, {0}, 0};
  toi_stream_opts so = {jobs, 0, solve_work, solve_commit, NULL, &r, NULL, 0};
  int ns = toi_stream_slots(&so), rc = EXIT_RUNTIME;
  r.slots = calloc((size_t)ns, sizeof *r.slots);
  if (r.slots) {
    toi_stream_result res;
    rc = cli_stream_cases(&so, args->nfiles, args->files, &res);
    if (rc == EXIT_OK && res.commit_rc) rc = EXIT_RUNTIME;
  }
  if (r.out_open && rc != EXIT_OK) cli_out_abort(&r.out);
  if (r.out_open && rc == EXIT_OK && cli_out_commit(&r.out)) rc = EXIT_RUNTIME;
  for (int i = 0; r.slots && i < ns; i++) free(r.slots[i].ans);
  free(r.slots);
  return rc;
}

int cmd_solve(int argc, char **argv) {
  cli_args args;
  if (cli_args_init(&args, argc)) return EXIT_RUNTIME;
  int jobs = cli_default_jobs();
  for (int i = 1; i < argc; i++) {
    int t = cli_take_jobs("solve", argc, argv, &i, &jobs);
    if (t < 0) {
      cli_args_free(&args);
      return EXIT_USAGE;
    }
    if (t) continue;
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
  if (cli_check_names("solve", name) != EXIT_OK) {
    free(files);
    return EXIT_USAGE;
  }
  toi_candidate cand;
  if (toi_candidate_find(&cand, name, &cli_msg_stderr)) {
    free(files);
    return cli_usage_error_near("solve", CLI_NAMES_CANDIDATES, name,
                                "unknown formulation or solver '%s' (see 'toibench list')", name);
  }
  if (nfiles == 0) {
    free(files);
    toi_candidate_free(&cand);
    return cli_usage_error("solve", "no case file given");
  }
  const cli_file outs[] = {{"-o", outpath ? outpath : "-"}};
  int checked = cli_outputs_check_args("solve", outs, 1, files, nfiles, 0, NULL, NULL, 0);
  if (checked != EXIT_OK) {
    free(files);
    toi_candidate_free(&cand);
    return checked;
  }
  if (!(cand.flags & (TOI_CAND_EXTERNAL | TOI_CAND_OUT_OF_PROCESS))) {
    int rc = solve_streamed(&cand, &opts, &args, jobs);
    free(files);
    toi_candidate_free(&cand);
    return rc;
  }
  toi_caselist list = {0};
  int rc = cli_read_case_files(&list, nfiles, files);
  free(files);
  cli_out out;
  if (rc == EXIT_OK && cli_out_open(&out, outpath)) rc = EXIT_RUNTIME;
  if (rc == EXIT_OK) rc = solve_all(&cand, &list, &opts, &out);
  toi_caselist_free(&list);
  toi_candidate_free(&cand);
  return rc;
}
