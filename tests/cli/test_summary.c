/* test_summary.c: `toibench summary` against run's counts on the same cases and the result file's own records. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli_check.h"
#include "tmp_dir.h"

/* The line of `summary --format csv` (or run's csv) for a column: its fields split in place into f[]. */
static int csv_row(char *text, const char *col, int skip, char **f, int max) {
  for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
    char *p = line;
    for (int k = 0; k < skip; k++) p = strchr(p, ',') + 1;
    size_t n = strlen(col);
    if (strncmp(p, col, n) || p[n] != ',') continue;
    int k = 0;
    for (char *q = line; q && k < max; k++) {
      f[k] = q;
      q = strchr(q, ',');
      if (q) *q++ = 0;
    }
    return k;
  }
  return 0;
}

/* The counts come out as run counts them on the same cases: gen and sweep draw
   the same cases from the same seed, run scores them through another path. */
Test(summary, counts_equal_runs_on_the_same_cases, .init = td_setup, .fini = td_teardown) {
  cr_assert_eq(td_tb("gen mixed --count 4000 --seed 7 -o c.cases"), 0);
  cr_assert_eq(td_tb("run -f ericson,robust,accurate c.cases --format csv -o run.csv"), 0);
  cr_assert_eq(td_tb("sweep mixed --count 4000 --seed 7 -f ericson,robust,accurate --quiet -o r.sw"), 0);
  cr_assert_eq(td_tb("summary --format csv r.sw >sum.csv"), 0);
  static const char *const cols[] = {"ericson", "robust", "accurate"};
  for (int c = 0; c < 3; c++) {
    char *run = cc_slurp(td_path("run.csv"), NULL), *sum = cc_slurp(td_path("sum.csv"), NULL);
    char *rf[64], *sf[64];
    /* run: name,precision,external,cases,agree,missed,ghost,other,...
       summary: result,column,precision,cases,in_domain,agree,missed,ghost,other,misclass_pct,... */
    cr_assert_geq(csv_row(run, cols[c], 0, rf, 64), 8, "%s not in run's csv", cols[c]);
    cr_assert_geq(csv_row(sum, cols[c], 1, sf, 64), 15, "%s not in summary's csv", cols[c]);
    cr_assert_str_eq(sf[3], "4000");
    cr_assert_str_eq(sf[3], rf[3], "%s: cases", cols[c]);
    for (int k = 0; k < 4; k++)
      cr_assert_str_eq(sf[5 + k], rf[4 + k], "%s: field %d (agree, missed, ghost, other)", cols[c], k);
    /* misclass = (missed + ghost + other) / in_domain, in percent */
    double bad = atof(rf[5]) + atof(rf[6]) + atof(rf[7]);
    cr_assert_float_eq(atof(sf[9]), 100 * bad / 4000, 1e-9, "%s: misclass %s", cols[c], sf[9]);
    free(run);
    free(sum);
  }
}

/* The quantiles and maxima from the result's own records, read here by text:
   stat fields TIMED (11th) and MAX_ULP_HEX (18th), hist counts per bin H. */
Test(summary, quantile_bins_and_maxima_from_the_records, .init = td_setup, .fini = td_teardown) {
  cr_assert_eq(td_tb("sweep grazing --k 1:40 --count 3000 -f ericson,robust --quiet -o r.sw"), 0);
  cr_assert_eq(td_tb("summary --format csv r.sw >sum.csv"), 0);
  static const char *const cols[] = {"ericson", "robust"};
  for (int c = 0; c < 2; c++) {
    char *res = cc_slurp(td_path("r.sw"), NULL);
    uint64_t hist[68] = {0}, timed = 0;
    double maxulp = -1;
    size_t n = strlen(cols[c]);
    for (char *line = strtok(res, "\n"); line; line = strtok(NULL, "\n")) {
      if (!strncmp(line, "hist ", 5) && !strncmp(line + 5, cols[c], n) && line[5 + n] == ' ') {
        int b, h;
        double lo, hi;
        uint64_t cnt;
        cr_assert_eq(sscanf(line + 6 + n, "%d %d %lf %lf %" SCNu64, &b, &h, &lo, &hi, &cnt), 5, "%s", line);
        hist[h] += cnt;
      }
    }
    free(res);
    res = cc_slurp(td_path("r.sw"), NULL);
    char *save = NULL;
    for (char *line = strtok_r(res, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
      if (strncmp(line, "stat ", 5) || strncmp(line + 5, cols[c], n) || line[5 + n] != ' ') continue;
      char *w[32], *p = NULL;
      int k = 0;
      for (char *q = strtok_r(line, " ", &p); q && k < 32; q = strtok_r(NULL, " ", &p)) w[k++] = q;
      cr_assert_geq(k, 21, "stat line has %d fields", k);
      timed += strtoull(w[10], NULL, 10);
      double m = strtod(w[17], NULL); /* MAX_ULP_HEX */
      if (!isnan(m) && m > maxulp) maxulp = m;
    }
    free(res);
    uint64_t sum = 0;
    for (int h = 0; h < 68; h++) sum += hist[h];
    cr_assert_eq(sum, timed, "%s: hist counts sum to TIMED", cols[c]);
    cr_assert_gt(timed, 100, "%s: enough timed cases", cols[c]);
    /* The bins holding ranks ceil(n/2) and ceil(0.99 n), and their ranges as sweep.h defines the edges. */
    char want[2][64];
    double q[2] = {0.5, 0.99};
    for (int j = 0; j < 2; j++) {
      uint64_t rank = (uint64_t)ceil(q[j] * (double)timed), seen = 0;
      int h = 0;
      while ((seen += hist[h]) < rank) h++;
      if (h == 0) snprintf(want[j], sizeof want[j], "0");
      else if (h == 1) snprintf(want[j], sizeof want[j], "0..0.5");
      else if (h <= 65) snprintf(want[j], sizeof want[j], "%.17g..%.17g", ldexp(1, h - 3), ldexp(1, h - 2));
      else if (h == 66) snprintf(want[j], sizeof want[j], "9223372036854775808..inf");
      else snprintf(want[j], sizeof want[j], "inf");
    }
    char *s = cc_slurp(td_path("sum.csv"), NULL), *f[64];
    cr_assert_geq(csv_row(s, cols[c], 1, f, 64), 15);
    cr_assert_eq(strtoull(f[10], NULL, 10), timed, "%s: timed", cols[c]);
    cr_assert_str_eq(f[11], want[0], "%s: median bin", cols[c]);
    cr_assert_str_eq(f[12], want[1], "%s: p99 bin", cols[c]);
    double got = strtod(f[13], NULL);
    cr_assert(got == maxulp || (isinf(got) && isinf(maxulp)), "%s: max_ulp %s against %.17g", cols[c], f[13], maxulp);
    free(s);
  }
}

/* Bad input: nothing on stdout, the file and line named, exit 3; a later bad file
   prints nothing of an earlier good one. */
Test(summary, bad_input_prints_nothing, .init = td_setup, .fini = td_teardown) {
  cr_assert_eq(td_tb("sweep tangent --count 100 --quiet -o good"), 0);
  FILE *f = fopen(td_path("bad"), "w");
  fputs("# toibench-sweep v1\ngen family=x\n", f);
  fclose(f);
  cr_assert_eq(td_tb("summary good bad >out"), 3);
  size_t n;
  free(cc_slurp(td_path("out"), &n));
  cr_assert_eq(n, 0, "nothing on stdout");
  char *e = cc_slurp(td_path("err"), NULL);
  cr_assert_not_null(strstr(e, "bad:"), "%s", e);
  free(e);
  cr_assert_eq(td_tb("summary no-such-file"), 1);
  cr_assert_eq(td_tb("summary"), 2);
  cr_assert_eq(td_tb("summary --format"), 2);
  cr_assert_eq(td_tb("summary --format xml good"), 2);
  cr_assert_eq(td_tb("summary --help >h"), 0);
  cr_assert_eq(td_tb("summary --format json good good >j"), 0);
  char *j = cc_slurp(td_path("j"), NULL);
  cr_assert(j[0] == '[' && strstr(j, "\"column\": \"ericson\"") && strstr(j, "\"max_ulp_hex\""), "%s", j);
  free(j);
}
