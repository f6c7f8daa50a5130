/* cli_fmt.c: JSON and CSV pieces shared by run, hunt and compare. */
#include "cli_fmt.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

int cli_parse_format(const char *cmd, const char *v, cli_format *out) {
  if (!strcmp(v, "table")) *out = CLI_FMT_TABLE;
  else if (!strcmp(v, "json")) *out = CLI_FMT_JSON;
  else if (!strcmp(v, "csv")) *out = CLI_FMT_CSV;
  else return cli_usage_error(cmd, "--format must be table, json or csv, not '%s'", v);
  return EXIT_OK;
}

void cli_json_str(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"' || *s == '\\')
      fprintf(f, "\\%c", *s);
    else if ((unsigned char)*s < 0x20 || *s == 0x7f)
      fprintf(f, "\\u%04x", (unsigned char)*s);
    else
      fputc(*s, f);
  }
  fputc('"', f);
}

/* The shortest %.Ng (N = 15, 16 or 17) that reads back as x. */
static void shortest(FILE *f, double x) {
  char b[40];
  for (int p = 15; p <= 17; p++) {
    snprintf(b, sizeof b, "%.*g", p, x);
    if (strtod(b, NULL) == x) break;
  }
  fputs(b, f);
}

void cli_json_num(FILE *f, double x) {
  if (isfinite(x)) shortest(f, x);
  else fputs("null", f);
}

void cli_json_num_hex(FILE *f, const char *key, double x) {
  fprintf(f, "\"%s\": ", key);
  cli_json_num(f, x);
  fprintf(f, ", \"%s_hex\": \"", key);
  cli_print_hex(f, x);
  fputc('"', f);
}

void cli_csv_str(FILE *f, const char *s) {
  if (!strpbrk(s, ",\"\r\n")) {
    fputs(s, f);
    return;
  }
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"') fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

void cli_csv_num(FILE *f, double x) {
  if (isnan(x)) return;
  if (isinf(x)) fputs(x > 0 ? "inf" : "-inf", f);
  else shortest(f, x);
}

static uint64_t fnv(uint64_t h, const void *p, size_t n) {
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ULL;
  return h;
}

uint64_t cli_cases_hash(const toi_case *cases, size_t n) {
  return cli_cases_hash_more(CLI_CASES_HASH_START, cases, n);
}

uint64_t cli_cases_hash_more(uint64_t h, const toi_case *cases, size_t n) {
  for (size_t i = 0; i < n; i++) {
    const toi_case *c = &cases[i];
    h = fnv(h, c->id, strlen(c->id) + 1);
    h = fnv(h, &c->dim, sizeof c->dim);
    const double *v[] = {c->pa, c->va, c->pb, c->vb};
    for (int k = 0; k < 4; k++) h = fnv(h, v[k], 3 * sizeof(double));
    const double s[] = {c->ra, c->ma, c->rb, c->mb};
    h = fnv(h, s, sizeof s);
  }
  return h;
}
