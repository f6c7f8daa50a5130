/* suggest.c: "did you mean" for mistyped names (edit distance), and each command's options. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "gen.h"

/* Damerau-Levenshtein distance in its optimal-string-alignment form (a swap
   of two neighbours costs 1), stopped at cap + 1: only small distances are
   wanted, and names are short (longer ones are never close). */
static size_t edit_distance(const char *a, const char *b, size_t cap) {
  enum { MAXLEN = 64 };
  size_t la = strlen(a), lb = strlen(b);
  if (la > MAXLEN || lb > MAXLEN) return cap + 1;
  if ((la > lb ? la - lb : lb - la) > cap) return cap + 1;
  size_t d[MAXLEN + 1][MAXLEN + 1];
  for (size_t i = 0; i <= la; i++) d[i][0] = i;
  for (size_t j = 0; j <= lb; j++) d[0][j] = j;
  for (size_t i = 1; i <= la; i++)
    for (size_t j = 1; j <= lb; j++) {
      size_t cost = a[i - 1] != b[j - 1];
      size_t best = d[i - 1][j - 1] + cost;
      if (d[i - 1][j] + 1 < best) best = d[i - 1][j] + 1;
      if (d[i][j - 1] + 1 < best) best = d[i][j - 1] + 1;
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < best)
        best = d[i - 2][j - 2] + 1;
      d[i][j] = best;
    }
  return d[la][lb] > cap ? cap + 1 : d[la][lb];
}

const char *cli_suggest(const char *const *list, size_t n, const char *word) {
  if (!word || !*word) return NULL;
  size_t len = strlen(word), best = 3, count = 0;
  const char *pick = NULL;
  /* The only name word begins ("near" for near-contact), else the nearest
     within 2 edits (1 for a short word), fewer edits than the word has letters
     after its dashes: "-x" is not a typo of "-o". */
  for (size_t i = 0; i < n; i++)
    if (list[i] && strcmp(list[i], word) && !strncmp(list[i], word, len) && (!pick || strcmp(pick, list[i])))
      pick = list[i], count++;
  if (count == 1) return pick;
  pick = NULL;
  size_t letters = strlen(word + strspn(word, "-"));
  size_t cap = letters > 3 ? 2 : 1;
  for (size_t i = 0; i < n; i++) {
    if (!list[i] || !strcmp(list[i], word)) continue;
    size_t d = edit_distance(word, list[i], cap);
    if (d <= cap && d < letters && d < best) best = d, pick = list[i];
  }
  return pick;
}

/* The generator's options (gen_cli.c), shared by gen, sweep and hunt. */
#define GEN_OPTS "--seed", "--dim", "--k", "--e", "--f", "--pos", "--vel", "--radius", "--impact", "--sampling", \
                 "--precision"
#define SOLVER_OPTS "--solver", "--solver-cmd", "--solver-cmd-precision"

static const char *const opts_list[] = {"--names", "--engines", NULL};
static const char *const opts_reference[] = {"--precision", "--target-distance", "--reference", "-o", "-j", NULL};
static const char *const opts_solve[] = {"-f", "--tmax", "--timeout", "-o", "-j", NULL};
static const char *const opts_run[] = {"-f",        SOLVER_OPTS, "--precision", "--reference", "--tmax", "--timeout",
                                       "--target-distance", "--rows", "--format", "--solver-log", "-o", "-j", NULL};
static const char *const opts_gen[] = {GEN_OPTS, "--count", "--start", "-o", NULL};
static const char *const opts_sweep[] = {GEN_OPTS,       "--count",      "-f",
                                         SOLVER_OPTS,    "--reference",  "--tmax",
                                         "--timeout",    "-j",
                                         "--shard",      "--quiet",      "--stats",
                                         "--profile",    "--time-only",  "--checkpoint", "--checkpoint-every",
                                         "--resume",     "-o",           NULL};
static const char *const opts_merge[] = {"-o", "--partial", NULL};
static const char *const opts_hunt[] = {GEN_OPTS, "-f",     SOLVER_OPTS, "--budget", "--keep", "--tmax", "--timeout",
                                        "--target-distance", "-j", "--quiet", "--format", "-o", NULL};
static const char *const opts_audit[] = {"-f", "--restitution", "--precision", "--rows", "-o", "-j", NULL};
static const char *const opts_simulate[] = {"-f",          "--n",          "--events",       "--seed",
                                            "--dim",       "--every",      "--state",        "--series",
                                            "--spacing",   "--radius",     "--radius-dist",  "--write-state",
                                            "--same-instant", "--overlap-tol", "--grid",     "--precision",
                                            SOLVER_OPTS,   "--timeout",    "--record",       "--scene",
                                            "--record-max",
                                            NULL};
static const char *const opts_report[] = {"--out",   "--quick",   "--quiet", "--reference", "--seed", SOLVER_OPTS,
                                          "--suite", "--timeout", "-j",      "--engines",   "--solver-log", NULL};

static const char *const opts_fpcore[] = {"--precision", "--dim", "--pre", NULL};
static const char *const opts_compare[] = {"--tolerance", "--ulp-slack", "--count-tolerance", NULL};
static const char *const opts_summary[] = {"--format", NULL};

static const struct {
  const char *cmd;
  const char *const *opts;
} command_opts[] = {{"list", opts_list},   {"reference", opts_reference}, {"solve", opts_solve},
                    {"run", opts_run},     {"gen", opts_gen},             {"sweep", opts_sweep},
                    {"merge", opts_merge}, {"hunt", opts_hunt},           {"audit", opts_audit},
                    {"simulate", opts_simulate}, {"report", opts_report},
                    {"fpcore", opts_fpcore}, {"compare", opts_compare},
                    {"summary", opts_summary}};

const char *const *cli_command_options(const char *cmd, size_t *n) {
  *n = 0;
  for (size_t i = 0; i < sizeof command_opts / sizeof *command_opts; i++)
    if (!strcmp(cmd, command_opts[i].cmd)) {
      while (command_opts[i].opts[*n]) ++*n;
      return command_opts[i].opts;
    }
  return NULL;
}

/* The names a word of kind k is chosen from, with room for extra more;
   malloc'ed (NULL when out of memory). Engines are added by the caller. */
static const char **names_of(cli_names k, const char *cmd, size_t extra, size_t *n) {
  size_t nf = 0, no = 0;
  const toi_formulation *f = NULL;
  const char *const *o = k == CLI_NAMES_OPTIONS ? cli_command_options(cmd, &no) : NULL;
  if (k == CLI_NAMES_FORMULATIONS || k == CLI_NAMES_CANDIDATES) f = toi_formulations(&nf);
  const char **v = malloc((nf + no + TOI_GEN_FAMILY_COUNT + TOI_PRECISION_COUNT + 4 + extra) * sizeof *v);
  *n = 0;
  if (!v) return NULL;
  for (size_t i = 0; i < no; i++) v[(*n)++] = o[i];
  if (k == CLI_NAMES_OPTIONS) v[(*n)++] = "--help";
  for (size_t i = 0; i < nf; i++) v[(*n)++] = f[i].name;
  for (size_t i = 0; k == CLI_NAMES_FAMILIES && i < TOI_GEN_FAMILY_COUNT; i++) v[(*n)++] = toi_gen_family_name((toi_gen_family)i);
  for (size_t i = 0; k == CLI_NAMES_PRECISIONS && i < TOI_PRECISION_COUNT; i++)
    v[(*n)++] = toi_precision_name((toi_precision)i);
  if (k == CLI_NAMES_REFERENCE) v[(*n)++] = "fast", v[(*n)++] = "mpfr";
  if (k == CLI_NAMES_CANDIDATES) v[(*n)++] = "all", v[(*n)++] = "engines";
  return v;
}

int cli_usage_error_near(const char *cmd, cli_names kind, const char *word, const char *fmt, ...) {
  size_t n;
  toi_candidate *eng = NULL;
  size_t ne = 0;
  if (kind == CLI_NAMES_CANDIDATES && toi_candidates_engines(&eng, &ne, NULL) != TOI_OK) ne = 0;
  const char **v = names_of(kind, cmd, ne, &n);
  for (size_t i = 0; v && i < ne; i++) v[n++] = eng[i].name;
  /* Copied: the engines' names are freed with them. */
  char pick[256] = "";
  const char *s = v ? cli_suggest(v, n, word) : NULL;
  if (s) snprintf(pick, sizeof pick, "%s", s);
  free(v);
  for (size_t i = 0; i < ne; i++) toi_candidate_free(&eng[i]);
  free(eng);
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "toibench %s: ", cmd);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  if (pick[0]) fprintf(stderr, "; did you mean '%s'?", pick);
  fprintf(stderr, "\nTry 'toibench %s --help'\n", cmd);
  return EXIT_USAGE;
}

int cli_unknown_option(const char *cmd, const char *opt) {
  return cli_usage_error_near(cmd, CLI_NAMES_OPTIONS, opt, "unknown option '%s'", opt);
}
