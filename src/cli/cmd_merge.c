/* cmd_merge.c: `toibench merge`, shard results combined into the result of the whole sweep. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "cli_outcheck.h"
#include "sweep.h"

static void help(void) {
  printf(
      "Usage: toibench merge [-o RESULT] [--partial] RESULT...\n"
      "Combines sweep results of disjoint parts of the same sweep (toibench sweep\n"
      "--shard I/N) into one result: with every shard of a sweep, the output is\n"
      "byte-identical to the result of the whole sweep. The inputs may come in any\n"
      "order; they must share the generator options, the case count, the\n"
      "formulations and the bins, every column must be in the same precision in\n"
      "each (a 'precisions' line; none: binary64), and their ranges must join without\n"
      "gap or overlap (otherwise nothing is written and the exit status is 3; 1 when a file cannot\n"
      "be read).\n"
      "Bounds: each input is read a line at a time (lines of at most 1048576 bytes)\n"
      "and added to the sum as soon as it is read, so memory holds two results'\n"
      "statistics whatever the number of inputs: about 2.9 KB per column and bin, at\n"
      "most 64 columns x 4096 bins. Above 64 MiB of them, a file must be large enough\n"
      "to hold a stat record per cell before they are taken (else it is cut short).\n"
      "The inputs must also cover the whole sweep, cases 0 .. count-1: a set with\n"
      "shards missing at either end is refused (exit status 3, the missing cases\n"
      "named) unless --partial says that a result of part of the sweep is meant.\n"
      "  -o RESULT   output file (default stdout; appears only when complete)\n"
      "  --partial   accept inputs that join but do not cover the whole sweep; the\n"
      "              result's range line says which cases it holds\n");
}

/* What is kept of each input: its description. Its statistics are added to
   the sum as soon as it is read (sweep_acc_merge is exact in any order), so
   memory holds two accumulators whatever the number of inputs. */
typedef struct input {
  const char *path;
  sweep_meta m;
} input;

static int by_start(const void *x, const void *y) {
  const input *a = x, *b = y;
  return (a->m.start > b->m.start) - (a->m.start < b->m.start);
}

static int same_shape(const input *a, const input *b) {
  if (strcmp(a->m.gen, b->m.gen)) {
    cli_error("merge: %s and %s come from different generator options:\n  %s\n  %s", a->path, b->path,
              a->m.gen, b->m.gen);
    return 0;
  }
  if (a->m.count != b->m.count) {
    cli_error("merge: %s and %s come from sweeps of different sizes (count %" PRIu64 " and %" PRIu64 ")",
              a->path, b->path, a->m.count, b->m.count);
    return 0;
  }
  int forms = a->m.nform == b->m.nform;
  for (size_t j = 0; forms && j < a->m.nform; j++) forms = !strcmp(a->m.forms[j], b->m.forms[j]);
  if (!forms) {
    cli_error("merge: %s and %s score different formulations", a->path, b->path);
    return 0;
  }
  for (size_t j = 0; j < a->m.nform; j++)
    if (a->m.prec[j] != b->m.prec[j]) {
      cli_error("merge: %s and %s score %s in different precisions (%s and %s)", a->path, b->path, a->m.forms[j],
                toi_precision_name(a->m.prec[j]), toi_precision_name(b->m.prec[j]));
      return 0;
    }
  int bins = a->m.nbins == b->m.nbins;
  for (size_t k = 0; bins && k < a->m.nbins; k++)
    bins = !strcmp(a->m.bins[k].param, b->m.bins[k].param) && a->m.bins[k].value == b->m.bins[k].value &&
           !strcmp(a->m.bins[k].label, b->m.bins[k].label);
  if (!bins) {
    cli_error("merge: %s and %s have different bins", a->path, b->path);
    return 0;
  }
  return 1;
}

/* EXIT_OK when the joined inputs in[0..n) (sorted, without gaps) cover the whole
   sweep, cases 0 .. count-1; else EXIT_INPUT after naming the missing cases. */
static int check_whole(const input *in, int n) {
  uint64_t first = in[0].m.start, last = in[n - 1].m.end, count = in[0].m.count;
  if (first == 0 && last == count) return EXIT_OK;
  if (first > 0)
    cli_error("merge: cases 0..%" PRIu64 " of the sweep's %" PRIu64 " are in none of the inputs (the first, %s, starts at %" PRIu64 ")",
              first - 1, count, in[0].path, first);
  if (last < count)
    cli_error("merge: cases %" PRIu64 "..%" PRIu64 " of the sweep's %" PRIu64 " are in none of the inputs (the last, %s, ends at %" PRIu64 ")",
              last, count - 1, count, in[n - 1].path, last);
  cli_error("merge: some shards are missing: nothing written (--partial writes a result of part of the sweep)");
  return EXIT_INPUT;
}

int cmd_merge(int argc, char **argv) {
  cli_args args;
  int partial = 0;
  if (cli_args_init(&args, argc)) return EXIT_RUNTIME;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--partial")) {
      partial = 1;
      continue;
    }
    int r = cli_args_take(&args, "merge", CLI_OPT_OUT, argc, argv, &i);
    if (r != CLI_TAKEN) return cli_args_stop(&args, r, help);
  }
  const char *out = args.out;
  int n = args.nfiles;
  const cli_file outs[] = {{"-o", out ? out : "-"}};
  int checked = n ? cli_outputs_check_args("merge", outs, 1, args.files, n, 0, NULL, NULL, 0) : EXIT_OK;
  if (checked != EXIT_OK) {
    cli_args_free(&args);
    return checked;
  }
  input *in = calloc((size_t)argc, sizeof *in);
  if (!in) {
    cli_args_free(&args);
    return EXIT_RUNTIME;
  }
  for (int k = 0; k < n; k++) in[k].path = args.files[k];
  cli_args_free(&args);
  if (n == 0) {
    free(in);
    return cli_usage_error("merge", "no result file given");
  }
  int rc = EXIT_OK;
  sweep_acc sum;
  memset(&sum, 0, sizeof sum);
  for (int i = 0; i < n && rc == EXIT_OK; i++) {
    sweep_acc a;
    int r = sweep_read(in[i].path, &in[i].m, &a, &cli_msg_stderr);
    if (r) rc = r == -2 ? EXIT_RUNTIME : EXIT_INPUT;
    if (rc == EXIT_OK && i == 0) {
      sum = a; /* taken over */
      continue;
    }
    /* Inputs of another shape are not added: the checks below refuse them. */
    if (rc == EXIT_OK && a.nform == sum.nform && a.nbins == sum.nbins) sweep_acc_merge(&sum, &a);
    sweep_acc_free(&a);
  }
  if (rc == EXIT_OK) {
    qsort(in, (size_t)n, sizeof *in, by_start);
    for (int i = 1; i < n && rc == EXIT_OK; i++) {
      if (!same_shape(&in[0], &in[i])) {
        rc = EXIT_INPUT;
      } else if (in[i].m.start < in[i - 1].m.end) {
        cli_error("merge: %s and %s overlap (cases %" PRIu64 "..%" PRIu64 " are in both)", in[i - 1].path,
                  in[i].path, in[i].m.start, (in[i - 1].m.end < in[i].m.end ? in[i - 1].m.end : in[i].m.end) - 1);
        rc = EXIT_INPUT;
      } else if (in[i].m.start > in[i - 1].m.end) {
        cli_error("merge: cases %" PRIu64 "..%" PRIu64 " are missing between %s and %s", in[i - 1].m.end,
                  in[i].m.start - 1, in[i - 1].path, in[i].path);
        rc = EXIT_INPUT;
      }
    }
  }
  if (rc == EXIT_OK && !partial) rc = check_whole(in, n);
  if (rc == EXIT_OK) {
    in[0].m.end = in[n - 1].m.end;
    cli_out w;
    if (cli_out_open(&w, out)) {
      rc = EXIT_RUNTIME;
    } else if (sweep_write(w.f, &in[0].m, &sum)) {
      cli_error("merge: write error");
      cli_out_abort(&w);
      rc = EXIT_RUNTIME;
    } else if (cli_out_commit(&w)) {
      rc = EXIT_RUNTIME;
    }
  }
  for (int i = 0; i < n; i++) sweep_meta_free(&in[i].m);
  sweep_acc_free(&sum);
  free(in);
  return rc;
}
