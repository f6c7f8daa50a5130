/* cmd_gen.c: `toibench gen`, a case family written as a case file (format v1). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "cli_outcheck.h"
#include "sweep.h"

static void help(void) {
  printf(
      "Usage: toibench gen FAMILY [--count N] [--start I] [generator options] [-o FILE]\n"
      "Writes cases I .. I+N-1 of a family as a case file (format v1, hex floats) to\n"
      "stdout or FILE. The same seed and options give byte-identical output on any\n"
      "machine; case i is the same whatever --start, so any slice can be regenerated.\n"
      "  --count N   number of cases (default 1000), at least 1: a case file with no\n"
      "              case is not valid input (sweep allows 0: its empty result is)\n"
      "  --start I   index of the first case (default 0)\n"
      "  -o FILE     output file (appears only when complete)\n\n");
  gen_cli_help(stdout);
}

int cmd_gen(int argc, char **argv) {
  gen_cli g;
  gen_cli_init(&g);
  unsigned long long count = 1000, start = 0;
  const char *out = NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      help();
      return EXIT_OK;
    } else if (!strcmp(a, "--count") || !strcmp(a, "--start")) {
      if (i + 1 >= argc) return cli_usage_error("gen", "%s needs a value", a);
      if (cli_parse_u64(argv[++i], a[2] == 'c' ? &count : &start))
        return cli_usage_error("gen", "%s: not an unsigned integer '%s'", a, argv[i]);
    } else if (!strcmp(a, "-o")) {
      if (i + 1 >= argc) return cli_usage_error("gen", "-o needs a file name");
      out = argv[++i];
    } else {
      int r = gen_cli_option(&g, "gen", argc, argv, &i);
      if (r < 0) return EXIT_USAGE;
      if (r == 0) return cli_unknown_option("gen", a);
    }
  }
  if (g.family < 0) return cli_usage_error("gen", "no family given");
  if (start + count < start) return cli_usage_error("gen", "--start + --count overflows");
  /* A file with no case is refused by every reader: do not write one. */
  if (count == 0) return cli_usage_error("gen", "--count must be at least 1");
  toi_gen_opts o;
  if (gen_cli_build(&g, "gen", TOI_GEN_MIXED, &o)) return EXIT_USAGE;
  const cli_file outs[] = {{"-o", out}}; /* gen reads no file: only where FILE goes */
  int checked = cli_outputs_check("gen", outs, 1, NULL, 0);
  if (checked != EXIT_OK) return checked;

  cli_out w;
  if (cli_out_open(&w, out)) return EXIT_RUNTIME;
  static char iobuf[1 << 16];
  setvbuf(w.f, iobuf, _IOFBF, sizeof iobuf);
  char desc[512];
  toi_gen_opts_format(desc, sizeof desc, &o);
  fprintf(w.f, "# toibench gen %s start=%llu count=%llu\n", desc, start, count);
  /* In runs of cases (toi_gen_cases: the cases of toi_gen_case, with what they
     share made once a run). */
  enum { RUN = 256 };
  static toi_case cases[RUN];
  size_t bins[RUN];
  size_t n;
  for (unsigned long long done = 0; done < count; done += n) { /* never past start + count (no wrap) */
    unsigned long long lo = start + done;
    n = count - done < RUN ? (size_t)(count - done) : RUN;
    int ok = toi_gen_cases(cases, bins, &o, lo, n, 1) == TOI_OK;
    for (size_t k = 0; k < n; k++) {
      if (ok && toi_write_case(w.f, &cases[k]) == TOI_OK) continue;
      cli_error("gen: could not generate or write case %llu", lo + k);
      cli_out_abort(&w);
      return EXIT_RUNTIME;
    }
  }
  if (fflush(w.f)) {
    cli_error("gen: write error");
    cli_out_abort(&w);
    return EXIT_RUNTIME;
  }
  return cli_out_commit(&w) ? EXIT_RUNTIME : EXIT_OK;
}
