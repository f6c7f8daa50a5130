/* cmd_summary.c: `toibench summary RESULT...`, a sweep result read as a table per column (table, json, csv). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "cli_fmt.h"
#include "sweep.h"

static void help(void) {
  printf(
      "Usage: toibench summary [--format table|json|csv] RESULT...\n"
      "Reads sweep results ('# toibench-sweep v1': sweep or merge output) and prints,\n"
      "for each column (formulation or solver), its figures summed over the bins:\n"
      "  cases        cases of the result's range\n"
      "  in_domain    cases scored (the others are outside the column's domain, or\n"
      "               declined or failed by a solver)\n"
      "  agree, missed, ghost, other   the scores of the scored cases\n"
      "  misclass     (missed + ghost + other) / in_domain, in percent\n"
      "  timed        agreeing cases whose time was scored\n"
      "  median_ulp, p99_ulp   the bin of the ULP-error histogram that holds the\n"
      "               quantile (lower rank ceil(q n)): a result keeps power-of-two\n"
      "               bins, not the errors, so the quantile is given as that bin's\n"
      "               range, LO..HI (the error is >= LO and < HI); 0 is exact,\n"
      "               0..0.5 correctly rounded, inf an infinite error\n"
      "  max_ulp      the largest ULP error, exact (in the column's precision)\n"
      "  max_ratio    the largest error / (kappa u): about 1 or below is what the\n"
      "               conditioning explains, far above is accuracy lost by the\n"
      "               formulation itself\n"
      "Figures that do not exist (no timed case) are '-' (null in json, an empty\n"
      "field in csv). json gives the quantile ranges as the strings above, and each\n"
      "maximum again exact as a string in KEY_hex (nan, inf or a C99 hex float): an\n"
      "infinite maximum is null in KEY and \"inf\" in KEY_hex, as in run's json.\n"
      "  --format F   table (default), json or csv\n"
      "Exit status: 0, 1 a file cannot be read, 2 usage error, 3 a file is not a\n"
      "valid sweep result (the message names the file and line).\n");
}

/* One column's figures summed over the bins. */
typedef struct col_sum {
  uint64_t cases, in_domain, kind[TOI_SCORE_KIND_COUNT], timed;
  uint64_t hist[SWEEP_HBINS];
  double max_ulp, max_ratio; /* NaN when none */
} col_sum;

static void col_add(col_sum *s, const sweep_cell *x) {
  s->cases += x->cases;
  for (int k = 0; k < TOI_SCORE_KIND_COUNT; k++) s->kind[k] += x->kind[k];
  s->timed += x->timed;
  for (int h = 0; h < SWEEP_HBINS; h++) s->hist[h] += x->hist[h];
  if (!isnan(x->max_ulp) && (isnan(s->max_ulp) || x->max_ulp > s->max_ulp)) s->max_ulp = x->max_ulp;
  if (!isnan(x->max_ratio) && (isnan(s->max_ratio) || x->max_ratio > s->max_ratio)) s->max_ratio = x->max_ratio;
}

/* The histogram bin holding the q-quantile of the timed errors (rank ceil(q n), at least 1), or -1. */
static int quantile_bin(const col_sum *s, double q) {
  if (s->timed == 0) return -1;
  uint64_t rank = (uint64_t)ceil(q * (double)s->timed);
  if (rank < 1) rank = 1;
  uint64_t seen = 0;
  for (int h = 0; h < SWEEP_HBINS; h++)
    if ((seen += s->hist[h]) >= rank) return h;
  return SWEEP_HBINS - 1;
}

/* Bin h's edges as sweep.h defines them: 0: [0,0]; 1: (0, 0.5); 2..65: [2^(h-3), 2^(h-2)); 66: >= 2^63; 67: inf. */
static void bin_range(char *buf, size_t n, int h) {
  if (h < 0)
    snprintf(buf, n, "-");
  else if (h == 0)
    snprintf(buf, n, "0");
  else if (h == 1)
    snprintf(buf, n, "0..0.5");
  else if (h <= 65)
    snprintf(buf, n, "%.17g..%.17g", ldexp(1, h - 3), ldexp(1, h - 2));
  else if (h == 66)
    snprintf(buf, n, "%.17g..inf", ldexp(1, 63));
  else
    snprintf(buf, n, "inf");
}

static void fmt_g(char *buf, size_t n, double x) {
  if (isnan(x))
    snprintf(buf, n, "-");
  else
    snprintf(buf, n, "%.6g", x);
}

static double misclass_pct(const col_sum *s) {
  uint64_t bad = s->kind[TOI_SCORE_MISSED] + s->kind[TOI_SCORE_GHOST] + s->kind[TOI_SCORE_OTHER];
  return s->in_domain ? 100.0 * (double)bad / (double)s->in_domain : NAN;
}

typedef struct row_text {
  char med[64], p99[64], max[32], ratio[32], mis[32];
} row_text;

static void row_texts(row_text *t, const col_sum *s) {
  bin_range(t->med, sizeof t->med, quantile_bin(s, 0.5));
  bin_range(t->p99, sizeof t->p99, quantile_bin(s, 0.99));
  fmt_g(t->max, sizeof t->max, s->max_ulp);
  fmt_g(t->ratio, sizeof t->ratio, s->max_ratio);
  double m = misclass_pct(s);
  if (isnan(m))
    snprintf(t->mis, sizeof t->mis, "-");
  else
    snprintf(t->mis, sizeof t->mis, "%.4g", m);
}

static void print_header(cli_format f) {
  if (f == CLI_FMT_TABLE)
    printf("%-24s %-9s %10s %10s %10s %8s %8s %8s %9s %10s %-22s %-22s %12s %12s\n", "column", "precision", "cases",
           "in_domain", "agree", "missed", "ghost", "other", "misclass%", "timed", "median_ulp", "p99_ulp", "max_ulp",
           "max_ratio");
  else if (f == CLI_FMT_CSV)
    printf("result,column,precision,cases,in_domain,agree,missed,ghost,other,misclass_pct,timed,median_ulp,p99_ulp,"
           "max_ulp,max_ratio\n");
}

static void print_row(cli_format f, const char *path, const sweep_meta *m, size_t j, const col_sum *s, int first) {
  row_text t;
  row_texts(&t, s);
  const char *prec = toi_precision_name(m->prec[j]);
  if (f == CLI_FMT_TABLE) {
    printf("%-24s %-9s %10" PRIu64 " %10" PRIu64 " %10" PRIu64 " %8" PRIu64 " %8" PRIu64 " %8" PRIu64 " %9s %10" PRIu64
           " %-22s %-22s %12s %12s\n",
           m->forms[j], prec, s->cases, s->in_domain, s->kind[TOI_SCORE_AGREE], s->kind[TOI_SCORE_MISSED],
           s->kind[TOI_SCORE_GHOST], s->kind[TOI_SCORE_OTHER], t.mis, s->timed, t.med, t.p99, t.max, t.ratio);
  } else if (f == CLI_FMT_CSV) {
    cli_csv_str(stdout, path);
    putchar(',');
    cli_csv_str(stdout, m->forms[j]);
    printf(",%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",", prec, s->cases,
           s->in_domain, s->kind[TOI_SCORE_AGREE], s->kind[TOI_SCORE_MISSED], s->kind[TOI_SCORE_GHOST], s->kind[TOI_SCORE_OTHER]);
    cli_csv_num(stdout, misclass_pct(s));
    printf(",%" PRIu64 ",%s,%s,", s->timed, strcmp(t.med, "-") ? t.med : "", strcmp(t.p99, "-") ? t.p99 : "");
    cli_csv_num(stdout, s->max_ulp);
    putchar(',');
    cli_csv_num(stdout, s->max_ratio);
    putchar('\n');
  } else {
    printf("%s    {\"column\": ", first ? "" : ",\n");
    cli_json_str(stdout, m->forms[j]);
    printf(", \"precision\": \"%s\", \"cases\": %" PRIu64 ", \"in_domain\": %" PRIu64 ", \"agree\": %" PRIu64
           ", \"missed\": %" PRIu64 ", \"ghost\": %" PRIu64 ", \"other\": %" PRIu64 ", \"misclass_pct\": ",
           prec, s->cases, s->in_domain, s->kind[TOI_SCORE_AGREE], s->kind[TOI_SCORE_MISSED], s->kind[TOI_SCORE_GHOST],
           s->kind[TOI_SCORE_OTHER]);
    cli_json_num(stdout, misclass_pct(s));
    printf(", \"timed\": %" PRIu64 ", \"median_ulp\": ", s->timed);
    if (strcmp(t.med, "-")) cli_json_str(stdout, t.med); else printf("null");
    printf(", \"p99_ulp\": ");
    if (strcmp(t.p99, "-")) cli_json_str(stdout, t.p99); else printf("null");
    printf(", ");
    cli_json_num_hex(stdout, "max_ulp", s->max_ulp);
    printf(", ");
    cli_json_num_hex(stdout, "max_ratio", s->max_ratio);
    printf("}");
  }
}

/* One result, read and summed per column; nothing is printed until every file has been read. */
typedef struct summed {
  const char *path;
  sweep_meta m; /* bins freed: only the header and the columns are kept */
  col_sum *cols;
} summed;

/* Reads path into *x: EXIT_OK or the reader's exit code (said). */
static int summarise(summed *x, const char *path) {
  sweep_acc a;
  x->path = path;
  int r = sweep_read(path, &x->m, &a, &cli_msg_stderr);
  if (r) {
    sweep_acc_free(&a);
    return r == -2 ? EXIT_RUNTIME : EXIT_INPUT;
  }
  x->cols = calloc(x->m.nform ? x->m.nform : 1, sizeof *x->cols);
  if (!x->cols) {
    cli_error("summary: out of memory");
    r = -1;
  }
  for (size_t j = 0; !r && j < x->m.nform; j++) {
    col_sum *s = &x->cols[j];
    s->max_ulp = s->max_ratio = NAN;
    for (size_t b = 0; b < x->m.nbins; b++) col_add(s, &a.cells[j * x->m.nbins + b]);
    s->in_domain = s->cases - s->kind[TOI_SCORE_OUT_OF_DOMAIN];
  }
  sweep_acc_free(&a);
  free(x->m.bins);
  x->m.bins = NULL;
  x->m.nbins = 0;
  return r ? EXIT_RUNTIME : EXIT_OK;
}

static void print_result(cli_format f, const summed *x, int index, int nfiles) {
  const sweep_meta *m = &x->m;
  if (f == CLI_FMT_TABLE) {
    if (nfiles > 1 && index) printf("\n");
    printf("%s: %s, count %" PRIu64 ", range %" PRIu64 " %" PRIu64 "\n", x->path, m->gen, m->count, m->start, m->end);
    print_header(f);
  } else if (f == CLI_FMT_JSON) {
    printf("%s  {\"result\": ", index ? ",\n" : "");
    cli_json_str(stdout, x->path);
    printf(", \"gen\": ");
    cli_json_str(stdout, m->gen);
    printf(", \"count\": %" PRIu64 ", \"range\": [%" PRIu64 ", %" PRIu64 "], \"columns\": [\n", m->count, m->start,
           m->end);
  }
  for (size_t j = 0; j < m->nform; j++) print_row(f, x->path, m, j, &x->cols[j], j == 0);
  if (f == CLI_FMT_JSON) printf("%s]}", m->nform ? "\n  " : "");
}

int cmd_summary(int argc, char **argv) {
  cli_format f = CLI_FMT_TABLE;
  cli_args args;
  if (cli_args_init(&args, argc)) return EXIT_RUNTIME;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--format")) {
      int bad = i + 1 >= argc ? cli_usage_error("summary", "--format needs table, json or csv")
                              : cli_parse_format("summary", argv[++i], &f);
      if (bad != EXIT_OK) {
        cli_args_free(&args);
        return bad;
      }
      continue;
    }
    int r = cli_args_take(&args, "summary", 0, argc, argv, &i);
    if (r != CLI_TAKEN) return cli_args_stop(&args, r, help);
  }
  if (args.nfiles == 0) {
    cli_args_free(&args);
    return cli_usage_error("summary", "no result file given");
  }
  int n = args.nfiles, rc = EXIT_OK, got = 0;
  summed *x = calloc((size_t)n, sizeof *x);
  if (!x) rc = EXIT_RUNTIME;
  for (; rc == EXIT_OK && got < n; got++)
    if ((rc = summarise(&x[got], args.files[got])) != EXIT_OK) {
      sweep_meta_free(&x[got].m);
      free(x[got].cols);
    }
  if (rc == EXIT_OK) {
    if (f == CLI_FMT_JSON) printf("[\n");
    if (f == CLI_FMT_CSV) print_header(f);
    for (int k = 0; k < n; k++) print_result(f, &x[k], k, n);
    if (f == CLI_FMT_JSON) printf("\n]\n");
  }
  for (int k = 0; k < got - (rc != EXIT_OK); k++) {
    sweep_meta_free(&x[k].m);
    free(x[k].cols);
  }
  free(x);
  cli_args_free(&args);
  return rc;
}
