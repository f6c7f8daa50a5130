/* cmd_reference.c: `toibench reference`, the certified class and roots of each case. */
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "toiref.h"

static void help(void) {
  printf("Usage: toibench reference [--precision P] [--target-distance DELTA] [--reference ENGINE] [-o FILE]\n"
         "                          FILE...\n"
         "Prints one line per case, in input order:\n"
         "  ID CLASS TLO THI\n"
         "CLASS is the exact class (overlap, static, contact, separating, miss, graze, hit),\n"
         "decided exactly with GMP; TLO <= THI are the roots of |s + v t| = R correctly\n"
         "rounded to the nearest double (C99 hex floats), or nan when there is no real root.\n"
         "  --precision P            binary64 (default) or binary32: the roots correctly rounded\n"
         "                           to P from the exact roots (ties to even, P's subnormals,\n"
         "                           inf beyond its largest value), printed as the double\n"
         "                           holding that value; the class is the same exact class\n"
         "  --target-distance DELTA  solve |s + v t| = R + DELTA instead (engines that stop\n"
         "                           short of contact); R + DELTA must be >= 0\n"
         "  --reference ENGINE       fast (default: double-double with proven error bounds,\n"
         "                           MPFR only where they cannot decide) or mpfr (GMP and\n"
         "                           MPFR on every case); both print the same bits\n"
         "  -o FILE                  write to FILE (only when complete) instead of stdout\n"
         "FILE may be '-' for standard input.\n");
}

/* --precision NAME at argv[*i]: 1 taken (*q set), 0 not this option, -1 a usage error (printed). */
static int take_precision(toi_precision *q, int *given, int argc, char **argv, int *i) {
  if (strcmp(argv[*i], "--precision") != 0) return 0;
  const char *v = *i + 1 < argc ? argv[*i + 1] : NULL;
  int p = toi_precision_parse(v);
  if (!v || p < 0) {
    cli_usage_error("reference", "--precision must be binary64 or binary32, got '%s'", v ? v : "");
    return -1;
  }
  if (*given) {
    cli_usage_error("reference", "--precision given twice");
    return -1;
  }
  *q = (toi_precision)p;
  *given = 1;
  (*i)++;
  return 1;
}

int cmd_reference(int argc, char **argv) {
  cli_args args;
  if (cli_args_init(&args, argc)) return EXIT_RUNTIME;
  toi_precision prec = TOI_BINARY64;
  int have_prec = 0;
  for (int i = 1; i < argc; i++) {
    int t = take_precision(&prec, &have_prec, argc, argv, &i);
    if (t < 0) {
      cli_args_free(&args);
      return EXIT_USAGE;
    }
    if (t) continue;
    int r = cli_args_take(&args, "reference", CLI_OPT_OUT | CLI_OPT_TARGET | CLI_OPT_REFERENCE, argc, argv, &i);
    if (r != CLI_TAKEN) return cli_args_stop(&args, r, help);
  }
  if (args.nfiles == 0) {
    cli_args_free(&args);
    return cli_usage_error("reference", "no case file given");
  }
  const char *outpath = args.out;
  double delta = args.delta;
  int have_delta = args.have_delta;
  toi_caselist list = {0};
  int rc = cli_read_case_files(&list, args.nfiles, args.files);
  cli_args_free(&args);
  if (rc != EXIT_OK) {
    toi_caselist_free(&list);
    return rc;
  }
  cli_out out;
  if (cli_out_open(&out, outpath)) {
    toi_caselist_free(&list);
    return EXIT_RUNTIME;
  }
  /* Without a target, a block of cases at a time through the batch (the
   * same answers, several cases per vector instruction). */
  enum { BLOCK = 4096 };
  static toi_ref refs[BLOCK];
  static toi_status sts[BLOCK];
  for (size_t lo = 0; lo < list.count; lo += BLOCK) {
    size_t n = list.count - lo < BLOCK ? list.count - lo : BLOCK;
    if (have_delta)
      for (size_t k = 0; k < n; k++)
        sts[k] = toi_ref_solve_target_prec(&refs[k], &list.items[lo + k], delta, prec, args.engine);
    else
      (void)toi_ref_solve_batch_prec(refs, sts, &list.items[lo], n, prec, args.engine);
    for (size_t k = 0; k < n; k++) {
      const toi_ref *ref = &refs[k];
      const toi_case *c = &list.items[lo + k];
      toi_status st = sts[k];
      if (st == TOI_ERR_RANGE) {
        cli_error("case %s: rA + rB + DELTA is negative: no contact distance; nothing was written", c->id);
        cli_out_abort(&out);
        toi_caselist_free(&list);
        return EXIT_INPUT;
      }
      if (st != TOI_OK) {
        cli_error("case %s: the reference failed (status %d)", c->id, (int)st);
        cli_out_abort(&out);
        toi_caselist_free(&list);
        return EXIT_RUNTIME;
      }
      fprintf(out.f, "%s %s ", c->id, toi_class_name(ref->cls));
      cli_print_hex(out.f, ref->tlo);
      fputc(' ', out.f);
      cli_print_hex(out.f, ref->thi);
      fputc('\n', out.f);
    }
  }
  toi_caselist_free(&list);
  return cli_out_commit(&out) ? EXIT_RUNTIME : EXIT_OK;
}
