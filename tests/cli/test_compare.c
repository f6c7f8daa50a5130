/* test_compare.c: run --format json|csv, hunt --format and `toibench compare` end to end. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli_check.h"
#include "tmp_dir.h"
#include "toi.h"

#define DOCS TOI_SOURCE_DIR "/cases/documents.cases"

/* ---- a JSON validator written apart from the one compare uses (RFC 8259 grammar) ---- */

static void jws(const char **p) {
  while (**p == ' ' || **p == '\t' || **p == '\n' || **p == '\r') (*p)++;
}

static int jdigits(const char **p) {
  if (!(**p >= '0' && **p <= '9')) return 0;
  while (**p >= '0' && **p <= '9') (*p)++;
  return 1;
}

static int jval(const char **p, int depth);

static int jstr(const char **p) {
  if (*(*p)++ != '"') return 0;
  for (;;) {
    unsigned char c = (unsigned char)*(*p)++;
    if (c == '"') return 1;
    if (c < 0x20) return 0;
    if (c == '\\') {
      c = (unsigned char)*(*p)++;
      if (c == 'u') {
        for (int i = 0; i < 4; i++, (*p)++)
          if (!strchr("0123456789abcdefABCDEF", **p) || !**p) return 0;
      } else if (!c || !strchr("\"\\/bfnrt", c)) {
        return 0;
      }
    }
  }
}

static int jnum(const char **p) {
  if (**p == '-') (*p)++;
  if (**p == '0') (*p)++;
  else if (!jdigits(p)) return 0;
  if (**p == '.') {
    (*p)++;
    if (!jdigits(p)) return 0;
  }
  if (**p == 'e' || **p == 'E') {
    (*p)++;
    if (**p == '+' || **p == '-') (*p)++;
    if (!jdigits(p)) return 0;
  }
  return 1;
}

static int jseq(const char **p, char close, int obj, int depth) {
  jws(p);
  if (**p == close) return (*p)++, 1;
  for (;;) {
    jws(p);
    if (obj) {
      if (!jstr(p)) return 0;
      jws(p);
      if (*(*p)++ != ':') return 0;
    }
    if (!jval(p, depth + 1)) return 0;
    jws(p);
    char c = *(*p)++;
    if (c == close) return 1;
    if (c != ',') return 0;
  }
}

static int jval(const char **p, int depth) {
  if (depth > 100) return 0;
  jws(p);
  if (**p == '{') return (*p)++, jseq(p, '}', 1, depth);
  if (**p == '[') return (*p)++, jseq(p, ']', 0, depth);
  if (**p == '"') return jstr(p);
  const char *w[] = {"true", "false", "null"};
  for (int i = 0; i < 3; i++)
    if (!strncmp(*p, w[i], strlen(w[i]))) return *p += strlen(w[i]), 1;
  return jnum(p);
}

static int json_valid(const char *s) {
  const char *p = s;
  if (!jval(&p, 0)) return 0;
  jws(&p);
  return *p == 0;
}

/* ---- helpers ---- */

/* The JSON text of candidate NAME's object (from its name to the end). */
static const char *cand_obj(const char *json, const char *name) {
  char key[128];
  snprintf(key, sizeof key, "{\"name\": \"%s\"", name);
  const char *p = strstr(json, key);
  cr_assert_not_null(p, "candidate %s missing from the JSON", name);
  return p;
}

/* A field of the object at obj, as text up to the next ',' or '}'. */
static void field(const char *obj, const char *key, char *out, size_t n) {
  char k[80];
  snprintf(k, sizeof k, "\"%s\": ", key);
  const char *p = strstr(obj, k);
  cr_assert_not_null(p, "field %s missing", key);
  p += strlen(k);
  size_t len = strcspn(p, ",}");
  cr_assert_lt(len, n);
  memcpy(out, p, len);
  out[len] = 0;
}

/* A ULP figure as the table prints it, from the exact _hex field. */
static void table_fig(const char *obj, const char *key, char *out, size_t n) {
  char k[80], hex[64];
  snprintf(k, sizeof k, "%s_hex", key);
  field(obj, k, hex, sizeof hex);
  hex[strlen(hex) - 1] = 0; /* the closing quote */
  double x = strtod(hex + 1, NULL);
  if (isnan(x)) snprintf(out, n, "-");
  else snprintf(out, n, "%.4g", x);
}

static char *run_to(const char *args, const char *out) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "%s -o %s", args, out);
  cr_assert_eq(td_tb(cmd), 0, "%s", cmd);
  return cc_slurp(td_path(out), NULL);
}

TestSuite(compare, .init = td_setup, .fini = td_teardown, .timeout = 120);

/* Every figure of every table row is in the JSON, equal to the table's. */
Test(compare, json_holds_the_table) {
  char *table = run_to("run " DOCS, "t.txt");
  char *json = run_to("run --format json " DOCS, "r.json");
  cr_assert(json_valid(json), "invalid JSON:\n%s", json);
  cr_assert(strstr(json, "\"toibench\": \"" TOI_VERSION "\""));
  cr_assert(strstr(json, "\"mpfr\": \"") && strstr(json, "\"gmp\": \"") && strstr(json, "\"engine\": \"fast\""));
  cr_assert(strstr(json, "\"precision\": \"binary64\""));
  int rows = 0;
  for (char *line = strtok(table, "\n"); line; line = strtok(NULL, "\n")) {
    if (line[0] == '#' || !strncmp(line, "formulation", 11)) continue;
    char name[64], f[10][64], worst[64];
    cr_assert_eq(sscanf(line, "%63s %63s %63s %63s %63s %63s %63s %63s %63s %63s %63s %63s", name, f[0], f[1], f[2],
                        f[3], f[4], f[5], f[6], f[7], f[8], f[9], worst),
                 12, "%s", line);
    const char *obj = cand_obj(json, name), *keys[] = {"cases", "agree", "missed", "ghost", "other", "timed"};
    char got[64];
    for (int i = 0; i < 6; i++) {
      field(obj, keys[i], got, sizeof got);
      cr_assert_str_eq(got, f[i], "%s %s", name, keys[i]);
    }
    const char *ulps[] = {"median_ulp", "p99_ulp", "max_ulp", "max_bits"};
    for (int i = 0; i < 4; i++) {
      table_fig(obj, ulps[i], got, sizeof got);
      cr_assert_str_eq(got, f[6 + i], "%s %s", name, ulps[i]);
    }
    field(obj, "worst", got, sizeof got);
    char quoted[80];
    snprintf(quoted, sizeof quoted, "\"%s\"", worst);
    cr_assert_str_eq(got, strcmp(worst, "-") ? quoted : "null", "%s worst", name);
    rows++;
  }
  cr_assert_gt(rows, 5);
  free(table);
  free(json);
}

/* External candidates get the second table's figures, and the JSON stays valid. */
Test(compare, json_external) {
  char args[1024];
  snprintf(args, sizeof args, "run --format json -f ericson --solver-cmd '%s' " DOCS, cc_built("examples/solver_c"));
  char *json = run_to(args, "r.json");
  cr_assert(json_valid(json), "invalid JSON:\n%s", json);
  const char *obj = cand_obj(json, "solver_c");
  char got[64];
  field(obj, "external", got, sizeof got);
  cr_assert_str_eq(got, "true");
  cr_assert(strstr(obj, "\"target\": {\"target\": 0") && strstr(obj, "\"max_gap_hex\""), "%s", obj);
  free(json);
}

Test(compare, csv_header_and_rows) {
  char *csv = run_to("run --format csv -f ericson,robust " DOCS, "r.csv");
  const char *header = "name,precision,external,cases,agree,missed,ghost,other,timed,median_ulp,p99_ulp,max_ulp,"
                       "max_bits,worst,out_of_domain,inputs_rounded,overflowed,failed,unsupported,target,miss_t,"
                       "ghost_t,t_timed,med_ulp_t,max_ulp_t,med_dt,max_dt,med_gap,max_gap,max_dev,off_tol,"
                       "worst_gap\n";
  cr_assert_eq(strncmp(csv, header, strlen(header)), 0, "%s", csv);
  const char *r1 = csv + strlen(header);
  const char *e = "ericson,binary64,0,12,12,0,0,0,10,0,0.5,0.5,1,doc001-tunnel,0,0,0,0,0,,,,,,,,,,,,,\n";
  cr_assert_eq(strncmp(r1, e, strlen(e)), 0, "%s", r1);
  const char *r2 = strchr(r1, '\n') + 1;
  cr_assert_eq(strncmp(r2, "robust,binary64,0,12,", strlen("robust,binary64,0,12,")), 0, "%s", r2);
  int commas = 0;
  for (const char *p = r2; *p != '\n'; p++) commas += *p == ',';
  cr_assert_eq(commas, 31);
  cr_assert_str_eq(strchr(r2, '\n'), "\n");
  free(csv);
}

Test(compare, bad_format_is_a_usage_error) {
  cr_assert_eq(td_tb("run --format xml " DOCS), 2);
  cr_assert_eq(td_tb("hunt -f ericson --format yaml -o w.cases"), 2);
}

Test(compare, identical_and_worse) {
  char *json = run_to("run --format json -f ericson,robust " DOCS, "before.json");
  cr_assert_eq(td_tb("compare before.json before.json >out"), 0);
  char *out = cc_slurp(td_path("out"), NULL);
  cr_assert(strstr(out, "# no candidate got worse"), "%s", out);
  free(out);
  /* ericson's max ULP error grows from 0.5 to 3 */
  const char *from = "\"max_ulp\": 0.5, \"max_ulp_hex\": \"0x1p-1\"";
  char *p = strstr(cand_obj(json, "ericson"), from);
  cr_assert_not_null(p);
  FILE *f = fopen(td_path("after.json"), "w");
  fprintf(f, "%.*s\"max_ulp\": 3, \"max_ulp_hex\": \"0x1.8p+1\"%s", (int)(p - json), json, p + strlen(from));
  fclose(f);
  cr_assert_eq(td_tb("compare before.json after.json >out"), 1);
  out = cc_slurp(td_path("out"), NULL);
  cr_assert(strstr(out, "# worse: ericson\n"), "%s", out);
  cr_assert(strstr(out, "0.5 -> 3!  WORSE"), "%s", out);
  free(out);
  /* within a relative tolerance of 5 (3 <= 0.5 x 6), and the other way round it got better */
  cr_assert_eq(td_tb("compare --tolerance 5 before.json after.json >out"), 0);
  cr_assert_eq(td_tb("compare after.json before.json >out"), 0);
  free(json);
}

Test(compare, missed_counts_and_kinds) {
  char *json = run_to("run --format json -f ericson " DOCS, "before.json");
  const char *from = "\"missed\": 0";
  char *p = strstr(json, from);
  cr_assert_not_null(p);
  FILE *f = fopen(td_path("after.json"), "w");
  fprintf(f, "%.*s\"missed\": 2%s", (int)(p - json), json, p + strlen(from));
  fclose(f);
  cr_assert_eq(td_tb("compare before.json after.json >out"), 1);
  cr_assert_eq(td_tb("compare --count-tolerance 2 before.json after.json >out"), 0);
  /* a sweep result against a run result; something else; different cases; usage */
  cr_assert_eq(td_tb("sweep grazing --count 500 -f ericson --quiet -o s1"), 0);
  cr_assert_eq(td_tb("compare s1 before.json >out"), 3);
  char *err = cc_slurp(td_path("err"), NULL);
  cr_assert(strstr(err, "compare two of the same kind"), "%s", err);
  free(err);
  cr_assert_eq(td_tb("compare " DOCS " before.json >out"), 3);
  cr_assert_eq(td_tb("run --format json -f ericson " TOI_SOURCE_DIR "/cases/regressions.cases -o other.json"), 0);
  cr_assert_eq(td_tb("compare before.json other.json >out"), 3);
  cr_assert_eq(td_tb("run --format json --precision binary32 -f ericson " DOCS " -o p32.json"), 0);
  cr_assert_eq(td_tb("compare before.json p32.json >out"), 3);
  err = cc_slurp(td_path("err"), NULL);
  cr_assert(strstr(err, "ericson is in binary64 in before.json, in binary32 in p32.json"), "%s", err);
  free(err);
  cr_assert_eq(td_tb("compare before.json >out"), 2);
  cr_assert_eq(td_tb("compare --tolerance -1 before.json before.json >out"), 2);
  cr_assert_eq(td_tb("compare --help >out"), 0);
  free(json);
}

Test(compare, sweep_results) {
  cr_assert_eq(td_tb("sweep grazing --count 2000 -f ericson,robust --quiet -o s1"), 0);
  cr_assert_eq(td_tb("sweep grazing --count 2000 -f ericson,robust --quiet --shard 1/2 -o h1"), 0);
  cr_assert_eq(td_tb("sweep grazing --count 2000 -f ericson,robust --quiet --shard 2/2 -o h2"), 0);
  cr_assert_eq(td_tb("merge -o s2 h1 h2"), 0);
  cr_assert_eq(td_tb("compare s1 s2 >out"), 0);
  char *out = cc_slurp(td_path("out"), NULL);
  cr_assert(strstr(out, "sweep results") && strstr(out, "\nericson ") && strstr(out, "\nrobust "), "%s", out);
  free(out);
  cr_assert_eq(td_tb("sweep grazing --count 1000 -f ericson,robust --quiet -o s3"), 0);
  cr_assert_eq(td_tb("compare s1 s3 >out"), 3);
  cr_assert_eq(td_tb("compare s1 h1 >out"), 3);
}

/* hunt --format json: the summary on stdout, the case file in -o. */
Test(compare, hunt_summary_json) {
  cr_assert_eq(td_tb("hunt -f ericson --seed 7 --budget 2000 --format json -o w.cases >sum.json"), 0);
  char *sum = cc_slurp(td_path("sum.json"), NULL);
  cr_assert(json_valid(sum), "invalid JSON:\n%s", sum);
  cr_assert(strstr(sum, "\"candidate\": \"ericson\"") && strstr(sum, "\"largest_ulp\""), "%s", sum);
  char *cases = cc_slurp(td_path("w.cases"), NULL);
  cr_assert(strstr(cases, "# toibench hunt -f ericson"));
  free(cases);
  free(sum);
  cr_assert_eq(td_tb("hunt -f ericson --seed 7 --budget 2000 --format csv -o w.cases >sum.csv"), 0);
  sum = cc_slurp(td_path("sum.csv"), NULL);
  cr_assert_eq(strncmp(sum, "candidate,", 10), 0, "%s", sum);
  free(sum);
  cr_assert_eq(td_tb("hunt -f ericson --budget 2000 --format json >out"), 2);
}

/* ---- bad and unbounded inputs ---- */

/* Expects `compare ARGS` to refuse invalid input (status 3, nothing on
   stdout) with a message holding each of want (NULL-terminated). */
static void expect_refused(const char *args, const char *const *want) {
  long rss;
  int st = td_tb_rss(args, &rss);
  char *err = td_read("err"), *out = td_read("out");
  cr_assert_eq(st, 3, "compare %s: status %d (-1: a signal): %s", args, st, err);
  for (; *want; want++) cr_assert(strstr(err, *want), "compare %s: no '%s' in: %s", args, *want, err);
  cr_assert_str_eq(out, "", "compare %s wrote: %s", args, out);
  free(err);
  free(out);
}

/* A file holding a NUL byte is invalid input whichever side it is on, not a
   crash: alone, and after a whole valid result. */
Test(compare, nul_byte_is_invalid_input) {
  char *json = run_to("run --format json -f ericson " DOCS, "r.json");
  FILE *f = fopen(td_path("z"), "wb");
  fputc(0, f);
  fclose(f);
  f = fopen(td_path("rz.json"), "wb");
  fwrite(json, 1, strlen(json), f);
  fputc(0, f);
  fclose(f);
  const char *z[] = {"compare: z: ", "NUL byte", NULL}, *rz[] = {"compare: rz.json: ", "NUL byte", NULL};
  expect_refused("compare z z", z);
  expect_refused("compare r.json z", z);
  expect_refused("compare z r.json", z);
  expect_refused("compare rz.json r.json", rz);
  expect_refused("compare r.json rz.json", rz);
  free(json);
}

/* The bound --help states: a run result of exactly that many bytes is read,
   one byte more is refused, naming the file and the bound. */
Test(compare, run_result_bound_is_stated_and_kept) {
  cr_assert_eq(td_tb("compare --help >help"), 0);
  char *help = td_read("help");
  const char *at = strstr(help, "may hold at most ");
  cr_assert_not_null(at, "no bound in compare --help: %s", help);
  size_t bound = strtoul(at + strlen("may hold at most "), NULL, 10);
  cr_assert_gt(bound, 1000, "%s", help);
  free(help);
  char *json = run_to("run --format json -f ericson " DOCS, "r.json");
  size_t len = strlen(json);
  for (size_t size = bound; size <= bound + 1; size++) {
    FILE *f = fopen(td_path("padded.json"), "wb"); /* JSON allows whitespace after the value */
    fwrite(json, 1, len, f);
    for (size_t i = len; i < size; i++) fputc(' ', f);
    fclose(f);
    if (size == bound) {
      cr_assert_eq(td_tb("compare r.json padded.json >out"), 0, "a result of %zu bytes", size);
    } else {
      char bytes[64];
      snprintf(bytes, sizeof bytes, "larger than %zu bytes", bound);
      const char *want[] = {"compare: padded.json: ", bytes, NULL};
      expect_refused("compare r.json padded.json", want);
    }
  }
  free(json);
}

/* An endless device and a huge (sparse) file are refused without being read:
   at once, in little memory. */
Test(compare, endless_and_huge_files_are_refused_unread) {
  char *json = run_to("run --format json -f ericson " DOCS, "r.json");
  int fd = open(td_path("huge"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  cr_assert_geq(fd, 0);
  cr_assert_eq(ftruncate(fd, (off_t)8 << 30), 0); /* 8 GiB of holes: no disk used */
  close(fd);
  const char *args[] = {"compare r.json /dev/zero", "compare /dev/zero r.json", "compare r.json huge",
                        "compare huge huge"};
  for (size_t i = 0; i < sizeof args / sizeof *args; i++) {
    long rss;
    int st = td_tb_rss(args[i], &rss);
    char *err = td_read("err");
    cr_assert_eq(st, 3, "%s: status %d: %s", args[i], st, err);
    cr_assert(strstr(err, "larger than") && strstr(err, strstr(args[i], "zero") ? "/dev/zero" : "huge"), "%s: %s",
              args[i], err);
    cr_assert_lt(rss, 100 * 1024, "%s: %ld KiB resident", args[i], rss);
    free(err);
  }
  free(json);
}
