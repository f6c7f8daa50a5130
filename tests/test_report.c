/* test_report.c: `toibench report --quick` builds a complete, self-consistent report. */
#include <criterion/criterion.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  size_t got = fread(buf, 1, (size_t)n, f);
  buf[got] = 0;
  fclose(f);
  if (len) *len = got;
  return buf;
}

/* ---- a small strict JSON reader: enough to validate the file and read numbers ---- */

typedef struct jp {
  const char *s;
  int ok;
} jp;

static void ws(jp *p) {
  while (isspace((unsigned char)*p->s)) p->s++;
}
static void value(jp *p);
static void string(jp *p) {
  if (*p->s != '"') {
    p->ok = 0;
    return;
  }
  p->s++;
  while (*p->s && *p->s != '"') {
    if ((unsigned char)*p->s < 0x20) p->ok = 0;
    if (*p->s == '\\') p->s++;
    if (*p->s) p->s++;
  }
  if (*p->s != '"') p->ok = 0;
  else p->s++;
}
static void value(jp *p) {
  ws(p);
  if (!p->ok) return;
  if (*p->s == '{' || *p->s == '[') {
    char close = *p->s == '{' ? '}' : ']';
    int obj = close == '}';
    p->s++;
    ws(p);
    if (*p->s == close) {
      p->s++;
      return;
    }
    for (;;) {
      if (obj) {
        ws(p);
        string(p);
        ws(p);
        if (*p->s != ':') {
          p->ok = 0;
          return;
        }
        p->s++;
      }
      value(p);
      ws(p);
      if (!p->ok) return;
      if (*p->s == ',') {
        p->s++;
        continue;
      }
      if (*p->s == close) {
        p->s++;
        return;
      }
      p->ok = 0;
      return;
    }
  } else if (*p->s == '"') {
    string(p);
  } else if (!strncmp(p->s, "null", 4) || !strncmp(p->s, "true", 4)) {
    p->s += 4;
  } else if (!strncmp(p->s, "false", 5)) {
    p->s += 5;
  } else {
    char *end;
    strtod(p->s, &end);
    if (end == p->s || !strncasecmp(p->s, "nan", 3) || !strncasecmp(p->s, "inf", 3)) p->ok = 0;
    p->s = end;
  }
}

static int valid_json(const char *s) {
  jp p = {s, 1};
  value(&p);
  ws(&p);
  return p.ok && *p.s == 0;
}

/* The value of "key": in the object of formulation name, as the table prints it. */
static void json_field(const char *json, const char *name, const char *key, char *out, size_t n) {
  char pat[4400];
  snprintf(pat, sizeof pat, "{\"name\": \"%s\"", name);
  const char *o = strstr(json, pat);
  cr_assert_not_null(o, "formulation %s missing from report.json", name);
  const char *end = strchr(o, '}');
  snprintf(pat, sizeof pat, "\"%s\": ", key);
  const char *k = strstr(o, pat);
  cr_assert(k && k < end, "%s.%s missing", name, key);
  k += strlen(pat);
  if (!strncmp(k, "null", 4)) {
    snprintf(out, n, "-");
  } else if (*k == '"') {
    snprintf(out, n, "%.*s", (int)(strchr(k + 1, '"') - k - 1), k + 1);
  } else {
    size_t len = strcspn(k, ",}");
    int count = !strcmp(key, "cases") || !strcmp(key, "timed") || !strcmp(key, "missed") || !strcmp(key, "ghost");
    if (count)
      snprintf(out, n, "%.*s", (int)len, k);
    else
      snprintf(out, n, "%.4g", strtod(k, NULL));
  }
}

Test(report, quick_report_is_complete, .timeout = 120) {
  char dir[] = "/tmp/toireportXXXXXX";
  cr_assert_not_null(mkdtemp(dir));
  char out[256], cmd[1024];
  snprintf(out, sizeof out, "%s/rep", dir);
  snprintf(cmd, sizeof cmd, "cd '%s' && '%s' report --quick --quiet --out '%s' 2>'%s/err'", TOI_SOURCE_DIR,
           TOIBENCH_PATH, out, dir);
  int st = system(cmd);
  char errp[300];
  snprintf(errp, sizeof errp, "%s/err", dir);
  char *err = slurp(errp, NULL);
  cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "report failed: %s", err ? err : "");
  free(err);

  char path[512];
  snprintf(path, sizeof path, "%s/index.html", out);
  char *html = slurp(path, NULL);
  cr_assert_not_null(html);
  cr_assert(strstr(html, "<!DOCTYPE html>"));
  cr_assert_null(strstr(html, "http://"), "the report must not load external resources");
  cr_assert_null(strstr(html, "https://"), "the report must not load external resources");

  /* Every image the page references exists and is a real SVG or PNG. */
  int images = 0;
  for (const char *p = html; (p = strstr(p, "src=\"")); p += 5) {
    const char *q = strchr(p + 5, '"');
    char rel[256];
    snprintf(rel, sizeof rel, "%.*s", (int)(q - p - 5), p + 5);
    char img[768];
    snprintf(img, sizeof img, "%s/%s", out, rel);
    size_t len;
    char *data = slurp(img, &len);
    cr_assert_not_null(data, "image %s missing", rel);
    cr_assert(strstr(data, "<svg") && strstr(data, "</svg>"), "%s is not a complete SVG", rel);
    char png[768];
    snprintf(png, sizeof png, "%.*s.png", (int)(strlen(img) - 4), img);
    size_t plen;
    char *pdata = slurp(png, &plen);
    cr_assert_not_null(pdata, "%s missing", png);
    cr_assert(plen > 8 && !memcmp(pdata, "\x89PNG\r\n\x1a\n", 8), "%s is not a PNG", png);
    free(pdata);
    free(data);
    images++;
  }
  cr_assert_geq(images, 9, "the report must hold the nine plots");

  /* Every formulation has its row in the Markdown and the HTML tables. */
  snprintf(cmd, sizeof cmd, "'%s' list --names", TOIBENCH_PATH);
  FILE *pp = popen(cmd, "r");
  char names[64][64];
  int nn = 0;
  while (nn < 64 && fgets(names[nn], sizeof names[nn], pp)) {
    names[nn][strcspn(names[nn], "\n")] = 0;
    nn++;
  }
  pclose(pp);
  cr_assert_geq(nn, 9);
  snprintf(path, sizeof path, "%s/summary.md", out);
  char *md = slurp(path, NULL);
  snprintf(path, sizeof path, "%s/report.json", out);
  char *json = slurp(path, NULL);
  cr_assert_not_null(md);
  cr_assert_not_null(json);
  cr_assert(valid_json(json), "report.json does not parse");

  /* The JSON agrees with the Markdown table, cell by cell. */
  const char *keys[] = {"cases", "timed", "agree_pct", "missed", "ghost", "median_ulp", "p99_ulp", "max_ulp", "max_bits"};
  const int cols[] = {2, 3, 4, 5, 6, 7, 8, 9, 10};
  for (int i = 0; i < nn; i++) {
    char pat[4400];
    snprintf(pat, sizeof pat, "\n| %s |", names[i]);
    const char *r = strstr(md, pat);
    cr_assert_not_null(r, "%s missing from summary.md", names[i]);
    snprintf(pat, sizeof pat, ">%s</td>", names[i]);
    cr_assert(strstr(html, pat), "%s missing from index.html", names[i]);
    /* split the Markdown row */
    char rowbuf[2048];
    snprintf(rowbuf, sizeof rowbuf, "%.*s", (int)(strchr(r + 1, '\n') - r - 1), r + 1);
    char *cell[32];
    int nc = 0;
    for (char *save = NULL, *t = strtok_r(rowbuf, "|", &save); t && nc < 32; t = strtok_r(NULL, "|", &save)) {
      while (*t == ' ') t++;
      char *e = t + strlen(t);
      while (e > t && (e[-1] == ' ' || e[-1] == '*')) *--e = 0;
      while (*t == '*') t++;
      cell[nc++] = t;
    }
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
      char v[64];
      json_field(json, names[i], keys[k], v, sizeof v);
      cr_assert_str_eq(cell[cols[k]], v, "%s %s: Markdown '%s' but JSON '%s'", names[i], keys[k], cell[cols[k]], v);
    }
  }
  /* The accuracy-against-cost plot holds every column with a p99, an
     infinite one included (drawn at the top), with the table's p99. */
  snprintf(path, sizeof path, "%s/data/pareto.dat", out);
  char *pareto = slurp(path, NULL);
  cr_assert_not_null(pareto);
  int infinite = 0;
  for (int i = 0; i < nn; i++) {
    char v[64];
    json_field(json, names[i], "p99_ulp", v, sizeof v);
    if (!strcmp(v, "null")) continue;
    char pat[4400];
    snprintf(pat, sizeof pat, " %s\n", names[i]);
    const char *e = strstr(pareto, pat);
    cr_assert_not_null(e, "%s (p99 %s) missing from pareto.dat", names[i], v);
    const char *b = e;
    while (b > pareto && b[-1] != '\n') b--;
    double ns, drawn;
    char p99[64];
    cr_assert_eq(sscanf(b, "%lf %63s %lf", &ns, p99, &drawn), 3, "%.80s", b);
    if (strstr(v, "inf")) {
      cr_assert_str_eq(p99, "inf", "%s", names[i]);
      cr_assert_geq(drawn, 1e30, "%s: an infinite p99 is drawn above every finite one", names[i]);
      infinite++;
    } else {
      double want = strtod(v, NULL), got = strtod(p99, NULL);
      /* the table rounds to 4 digits, the data file to 6 */
      cr_assert(fabs(got - want) <= 5e-4 * fabs(want), "%s: p99 %s in pareto.dat, %s in the table", names[i], p99, v);
      cr_assert_eq(drawn, got);
    }
  }
  cr_assert_gt(infinite, 0, "the quick suite has formulations with an infinite p99 (overflow in scale cases)");
  free(pareto);
  free(md);
  free(json);
  free(html);
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  cr_assert_eq(system(cmd), 0);
}

Test(report, missing_gnuplot_is_a_clear_error_and_writes_nothing) {
  char dir[] = "/tmp/toireportXXXXXX";
  cr_assert_not_null(mkdtemp(dir));
  char cmd[1024];
  /* A PATH without gnuplot (but with the shell tools). */
  snprintf(cmd, sizeof cmd, "cd '%s' && PATH=/nonexistent '%s' report --quick --quiet --out '%s/rep' 2>'%s/err'",
           TOI_SOURCE_DIR, TOIBENCH_PATH, dir, dir);
  int st = system(cmd);
  cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 1);
  char p[300];
  snprintf(p, sizeof p, "%s/err", dir);
  char *err = slurp(p, NULL);
  cr_assert(err && strstr(err, "gnuplot-nox"), "the error must name the package: %s", err ? err : "");
  free(err);
  snprintf(p, sizeof p, "%s/rep", dir);
  struct stat sb;
  cr_assert_neq(stat(p, &sb), 0, "no report may be left behind");
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  cr_assert_eq(system(cmd), 0);
}
