/* cmd_fpcore.c: `toibench fpcore`, the formulations' forward time of impact as FPCore (FPBench). */
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "fpcore.h"

static void fpcore_help(void) {
  printf("Usage: toibench fpcore [NAME...] [--precision binary64|binary32] [--dim 2|3]\n"
         "                       [--pre generic|aimed]\n"
         "Prints each named formulation (default: all) as one FPCore expression of the\n"
         "FPBench standard, for Herbie, FPTaylor or Daisy: the formulation's own operations\n"
         "in its own order, its guards as if, returning the time when it reports a contact\n"
         "(0 for an overlap at the start) and +inf when it reports none.\n"
         "Arguments: pax pay vax vay ra pbx pby vbx vby rb (--dim 3 adds the z components).\n"
         "A formulation that is not one expression is printed as a ';' comment saying why.\n"
         "  --precision P  binary64 (default) or binary32 (the binary32 variant)\n"
         "  --dim D        2 (default) or 3\n"
         "  --pre FAMILY   :pre from the default ranges of generic (default) or aimed\n");
}

static int fpcore_options(int argc, char **argv, toi_fpcore_opts *o, const toi_formulation **want, int *nwant) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      fpcore_help();
      return -1;
    }
    if (!strcmp(a, "--precision") || !strcmp(a, "--dim") || !strcmp(a, "--pre")) {
      if (i + 1 >= argc) return cli_usage_error("fpcore", "%s needs a value", a);
      const char *v = argv[++i];
      if (!strcmp(a, "--precision")) {
        if (cli_parse_precision("fpcore", a, v, &o->precision) != EXIT_OK) return EXIT_USAGE;
      } else if (!strcmp(a, "--dim")) {
        if (strcmp(v, "2") && strcmp(v, "3")) return cli_usage_error("fpcore", "--dim must be 2 or 3, not '%s'", v);
        o->dim = v[0] - '0';
      } else if (!strcmp(v, "generic") || !strcmp(v, "aimed")) {
        o->pre = v[0] == 'g' ? TOI_GEN_GENERIC : TOI_GEN_AIMED;
      } else {
        return cli_usage_error("fpcore", "--pre must be generic or aimed, not '%s'", v);
      }
    } else if (a[0] == '-' && a[1]) {
      return cli_usage_error("fpcore", "unknown option '%s'", a);
    } else {
      const toi_formulation *f = toi_formulation_find(a);
      if (!f) return cli_usage_error("fpcore", "unknown formulation '%s' (toibench list --names)", a);
      want[(*nwant)++] = f;
    }
  }
  return EXIT_OK;
}

int cmd_fpcore(int argc, char **argv) {
  toi_fpcore_opts o = {TOI_BINARY64, 2, TOI_GEN_GENERIC};
  size_t n;
  const toi_formulation *all = toi_formulations(&n);
  const toi_formulation **want = malloc(((size_t)argc + n) * sizeof *want);
  if (!want) {
    cli_error("out of memory");
    return EXIT_RUNTIME;
  }
  int nwant = 0, rc = fpcore_options(argc, argv, &o, want, &nwant);
  if (rc) {
    free(want);
    return rc < 0 ? EXIT_OK : rc;
  }
  int named = nwant > 0;
  for (size_t i = 0; !named && i < n; i++) want[nwant++] = &all[i];
  for (int i = 0; i < nwant && rc == EXIT_OK; i++) {
    const char *why = toi_fpcore_unsupported(want[i]);
    if (why) {
      printf("%s; %s: not exported: %s\n", i ? "\n" : "", want[i]->name, why);
      if (named) {
        cli_error("fpcore: %s is not exportable: %s", want[i]->name, why);
        rc = EXIT_RUNTIME;
      }
      continue;
    }
    char *text;
    toi_status st = toi_fpcore_format(&text, want[i], &o);
    if (st != TOI_OK) {
      cli_error("fpcore: %s: %s", want[i]->name, st == TOI_ERR_NOMEM ? "out of memory" : "cannot export");
      rc = EXIT_RUNTIME;
      break;
    }
    printf("%s%s", i ? "\n" : "", text);
    free(text);
  }
  free(want);
  if (rc == EXIT_OK && (fflush(stdout) != 0 || ferror(stdout))) {
    cli_error("write error on standard output");
    rc = EXIT_RUNTIME;
  }
  return rc;
}
