/* test_report.c: `toibench report --quick` builds a complete, self-consistent report. */
#include <criterion/criterion.h>
#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cli_check.h"
#include "gen.h"
#include "report.h"

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
    int count = !strcmp(key, "cases") || !strcmp(key, "timed") || !strcmp(key, "missed") || !strcmp(key, "ghost") ||
                !strcmp(key, "failed") || !strcmp(key, "unsupported");
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
  snprintf(cmd, sizeof cmd, "'%s' report --quick --quiet --out '%s' >/dev/null 2>'%s/err'", TOIBENCH_PATH, out, dir);
  int st = cc_cmd(TOI_SOURCE_DIR, cmd);
  char errp[300];
  snprintf(errp, sizeof errp, "%s/err", dir);
  char *err = slurp(errp, NULL);
  cr_assert(st == 0, "report failed: %s", err ? err : "");
  /* Where the report is, even with --quiet and stdout not a terminal. */
  char where[400];
  snprintf(where, sizeof where, "report: written to %s/index.html in ", out);
  cr_assert(err && strstr(err, where), "%s", err ? err : "");
  free(err);

  char path[512];
  snprintf(path, sizeof path, "%s/index.html", out);
  char *html = slurp(path, NULL);
  cr_assert_not_null(html);
  cr_assert(strstr(html, "<!DOCTYPE html>"));
  /* No external resource: nothing fetched by an attribute or a style. The sources' public addresses are
     cited as text, which loads nothing. */
  static const char *const fetch[] = {"src=\"http", "href=\"http", "src='http", "href='http", "url(http",
                                      "url(\"http", "url('http", "@import"};
  for (size_t i = 0; i < sizeof fetch / sizeof *fetch; i++)
    cr_assert_null(strstr(html, fetch[i]), "the report must not load external resources (%s)", fetch[i]);

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
  cc_out *ln = cc_run(NULL, "list --names");
  cr_assert_eq(ln->status, 0, "list --names: %s", ln->err);
  char names[64][64];
  int nn = 0;
  for (const char *p = ln->out; nn < 64 && *p; nn++) {
    size_t len = strcspn(p, "\n");
    snprintf(names[nn], sizeof names[nn], "%.*s", (int)len, p);
    p += len + (p[len] == '\n');
  }
  cr_assert_geq(nn, 9);
  snprintf(path, sizeof path, "%s/summary.md", out);
  char *md = slurp(path, NULL);
  snprintf(path, sizeof path, "%s/report.json", out);
  char *json = slurp(path, NULL);
  cr_assert_not_null(md);
  cr_assert_not_null(json);
  cr_assert(valid_json(json), "report.json does not parse");

  /* The JSON agrees with the Markdown table, cell by cell. */
  const char *keys[] = {"cases",   "timed",   "misclass_pct", "missed",   "ghost",  "median_ulp",
                        "p99_ulp", "max_ulp", "max_ratio",    "max_bits", "failed", "unsupported"};
  const int cols[] = {2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 14, 15};
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
  double inf_lowest = INFINITY, finite_highest = 0;
  for (int i = 0; i < nn; i++) {
    char v[64];
    json_field(json, names[i], "p99_ulp", v, sizeof v);
    if (!strcmp(v, "null")) continue;
    char pat[4400];
    snprintf(pat, sizeof pat, " %s \"", names[i]);
    const char *e = strstr(pareto, pat);
    cr_assert_not_null(e, "%s (p99 %s) missing from pareto.dat", names[i], v);
    const char *b = e;
    while (b > pareto && b[-1] != '\n') b--;
    double ns, drawn;
    char p99[64];
    cr_assert_eq(sscanf(b, "%lf %63s %lf", &ns, p99, &drawn), 3, "%.80s", b);
    if (strstr(v, "inf")) {
      cr_assert_str_eq(p99, "inf", "%s", names[i]);
      inf_lowest = fmin(inf_lowest, drawn);
      infinite++;
    } else {
      double want = strtod(v, NULL), got = strtod(p99, NULL);
      /* the table rounds to 4 digits, the data file to 6 */
      cr_assert(fabs(got - want) <= 5e-4 * fabs(want), "%s: p99 %s in pareto.dat, %s in the table", names[i], p99, v);
      cr_assert_eq(drawn, got);
      finite_highest = fmax(finite_highest, drawn);
    }
  }
  cr_assert_gt(inf_lowest, finite_highest, "an infinite p99 is drawn above every finite one");
  cr_assert_gt(infinite, 0, "the quick suite has formulations with an infinite p99 (overflow in scale cases)");
  free(pareto);
  free(md);
  free(json);
  free(html);
  cc_rmtree(dir);
}

Test(report, missing_gnuplot_is_a_clear_error_and_writes_nothing) {
  char dir[] = "/tmp/toireportXXXXXX";
  cr_assert_not_null(mkdtemp(dir));
  char cmd[1024];
  /* A PATH without gnuplot. */
  snprintf(cmd, sizeof cmd, "PATH=/nonexistent '%s' report --quick --quiet --out '%s/rep' 2>'%s/err'", TOIBENCH_PATH,
           dir, dir);
  int st = cc_cmd(TOI_SOURCE_DIR, cmd);
  cr_assert(st == 1);
  char p[300];
  snprintf(p, sizeof p, "%s/err", dir);
  char *err = slurp(p, NULL);
  cr_assert(err && strstr(err, "gnuplot-nox"), "the error must name the package: %s", err ? err : "");
  free(err);
  snprintf(p, sizeof p, "%s/rep", dir);
  struct stat sb;
  cr_assert_neq(stat(p, &sb), 0, "no report may be left behind");
  cc_rmtree(dir);
}

/* ---- hostile --out paths: no shell anywhere, nothing deleted but our own folder ---- */

/* Runs toibench with argv (no shell) from the source folder, stderr into
 * errpath, and env_set ("NAME=VALUE") added when not NULL; the exit status. */
static int run_argv(char *const argv[], const char *errpath, const char *env_set) {
  pid_t pid = fork();
  cr_assert_neq(pid, -1);
  if (pid == 0) {
    if (chdir(TOI_SOURCE_DIR) || !freopen(errpath, "w", stderr) || !freopen("/dev/null", "w", stdout)) _exit(99);
    if (env_set) putenv((char *)env_set);
    execv(TOIBENCH_PATH, argv);
    _exit(98);
  }
  int st;
  cr_assert_eq(waitpid(pid, &st, 0), pid);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The names in folder dir, sorted, joined by '/' (for comparisons). */
static void listing(const char *dir, char *out, size_t n) {
  struct dirent **v;
  int k = scandir(dir, &v, NULL, alphasort);
  cr_assert_geq(k, 0, "cannot list %s", dir);
  size_t len = 0;
  out[0] = 0;
  for (int i = 0; i < k; i++) {
    if (strcmp(v[i]->d_name, ".") && strcmp(v[i]->d_name, ".."))
      len += (size_t)snprintf(out + len, len < n ? n - len : 0, "%s/", v[i]->d_name);
    free(v[i]);
  }
  free(v);
}

static void touch(const char *path) {
  FILE *f = fopen(path, "w");
  cr_assert_not_null(f, "%s", path);
  fputs("keep\n", f);
  fclose(f);
}

Test(report, hostile_out_paths_work_and_delete_nothing_else, .timeout = 180) {
  char base[] = "/tmp/toireportXXXXXX";
  cr_assert_not_null(mkdtemp(base));
  /* quotes (single and double), spaces, then nine components of 227 single quotes */
  static char parent[4096], out[8192], sib[8400], errp[300], have[4096], want[4096];
  snprintf(parent, sizeof parent, "%s/it's a \"dir\" x", base);
  cr_assert_eq(mkdir(parent, 0755), 0);
  snprintf(sib, sizeof sib, "%s/sibling file", base);
  touch(sib);
  snprintf(sib, sizeof sib, "%s/sibling 'q'", parent);
  touch(sib);
  size_t len = (size_t)snprintf(out, sizeof out, "%s", parent);
  for (int c = 0; c < 9; c++) {
    out[len++] = '/';
    for (int q = 0; q < 227; q++) out[len++] = '\'';
  }
  out[len] = 0;
  snprintf(errp, sizeof errp, "%s/err", base);
  char *const argv[] = {"toibench", "report", "--quick", "--quiet", "-j2", "--out", out, NULL};
  for (int round = 0; round < 2; round++) { /* the second replaces the first */
    int st = run_argv(argv, errp, NULL);
    char *err = slurp(errp, NULL);
    cr_assert_eq(st, 0, "round %d: %s", round, err);
    free(err);
    snprintf(sib, sizeof sib, "%s/img/cdf.svg", out);
    struct stat sb;
    cr_assert_eq(stat(sib, &sb), 0, "round %d: no plot", round);
    /* nothing beside the report in its parent: no DIR.tmp.* nor DIR.old.* left */
    char up[8192];
    snprintf(up, sizeof up, "%.*s", (int)(strrchr(out, '/') - out), out);
    listing(up, have, sizeof have);
    snprintf(want, sizeof want, "%s/", strrchr(out, '/') + 1);
    cr_assert_str_eq(have, want, "round %d", round);
  }
  /* A failure after the temporary folder was made removes that folder only. */
  snprintf(out, sizeof out, "%s/r 'q'", parent);
  char *const argv2[] = {"toibench", "report", "--quick", "--quiet", "-j2", "--out", out, NULL};
  cr_assert_eq(run_argv(argv2, errp, "TOIBENCH_REPORTS_DIR=/nonexistent/reports"), 1);
  char *err = slurp(errp, NULL);
  cr_assert(err && strstr(err, "gnuplot scripts not found"), "%s", err);
  free(err);
  static char before[4096];
  listing(parent, before, sizeof before);
  memset(want, '\'', 227);
  snprintf(want + 227, sizeof want - 227, "/sibling 'q'/");
  cr_assert_str_eq(before, want, "only the first report and the sibling remain");
  listing(base, have, sizeof have);
  cr_assert_str_eq(have, "err/it's a \"dir\" x/sibling file/");
  /* A path too long to handle is refused before any work, nothing created. */
  len = (size_t)snprintf(out, sizeof out, "%s/", parent);
  while (len < 4100) out[len++] = 'a';
  out[len] = 0;
  cr_assert_eq(run_argv(argv2, errp, NULL), 1);
  err = slurp(errp, NULL);
  cr_assert(err && strstr(err, "choose a shorter --out"), "%s", err);
  free(err);
  listing(parent, have, sizeof have);
  cr_assert_str_eq(have, before);
  listing(base, have, sizeof have);
  cr_assert_str_eq(have, "err/it's a \"dir\" x/sibling file/");
  cc_rmtree(base);
}

/* Scans the C files under dir (recursively) for a call of name: 1 when found, where in *at. */
static int calls_in(const char *dir, const char *name, char *at, size_t n) {
  DIR *d = opendir(dir);
  cr_assert_not_null(d, "%s", dir);
  struct dirent *e;
  int found = 0;
  while (!found && (e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    struct stat sb;
    if (stat(path, &sb)) continue;
    if (S_ISDIR(sb.st_mode)) {
      found = calls_in(path, name, at, n);
      continue;
    }
    size_t l = strlen(path);
    if (l < 2 || (strcmp(path + l - 2, ".c") && strcmp(path + l - 2, ".h"))) continue;
    char *text = slurp(path, NULL);
    cr_assert_not_null(text);
    for (const char *p = strstr(text, name); p && !found; p = strstr(p + 1, name)) {
      const char *q = p + strlen(name);
      while (*q == ' ') q++;
      int ident_before = p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_');
      if (*q == '(' && !ident_before) {
        found = 1;
        snprintf(at, n, "%s: %.60s", path, p);
      }
    }
    free(text);
  }
  closedir(d);
  return found;
}

Test(report, no_shell_in_the_sources) {
  const char *dirs[] = {"src", "reference", "include"};
  for (size_t k = 0; k < 3; k++) {
    char dir[1024], at[1200];
    snprintf(dir, sizeof dir, "%s/%s", TOI_SOURCE_DIR, dirs[k]);
    cr_assert_not(calls_in(dir, "system", at, sizeof at), "system() called: %s", at);
    cr_assert_not(calls_in(dir, "popen", at, sizeof at), "popen() called: %s", at);
  }
  /* nor in the gnuplot scripts (gnuplot's own system() runs a shell) */
  char dir[1024], at[1200];
  snprintf(dir, sizeof dir, "%s/reports", TOI_SOURCE_DIR);
  DIR *d = opendir(dir);
  cr_assert_not_null(d);
  struct dirent *e;
  while ((e = readdir(d))) {
    size_t l = strlen(e->d_name);
    if (l < 3 || strcmp(e->d_name + l - 3, ".gp")) continue;
    snprintf(at, sizeof at, "%s/%s", dir, e->d_name);
    char *text = slurp(at, NULL);
    cr_assert_not_null(text);
    cr_assert_null(strstr(text, "system("), "%s runs a shell", at);
    free(text);
  }
  closedir(d);
}

/* ---- precisions ---- */

/* The Markdown row of name in md (from its '| name |'), with the cells of
 * column skip1 (0-based, or -1) and of the fourth from the end (ns/call:
 * machine-dependent) removed, '**' removed. */
static void md_row(const char *md, const char *name, int skip1, char *out, size_t n) {
  char pat[200];
  snprintf(pat, sizeof pat, "\n| %s |", name);
  const char *r = strstr(md, pat);
  cr_assert_not_null(r, "%s missing", name);
  char line[2048];
  snprintf(line, sizeof line, "%.*s", (int)(strchr(r + 1, '\n') - r - 1), r + 1);
  char *cell[40];
  int nc = 0;
  for (char *save = NULL, *t = strtok_r(line, "|", &save); t && nc < 40; t = strtok_r(NULL, "|", &save)) cell[nc++] = t;
  size_t len = 0;
  out[0] = 0;
  for (int c = 0; c < nc; c++) {
    if (c == skip1 || c == nc - 4) continue;
    for (const char *p = cell[c]; *p && len + 1 < n; p++)
      if (*p != '*') out[len++] = *p;
    if (len + 1 < n) out[len++] = '|';
  }
  out[len] = 0;
}

/* A float solver (told binary32) gets a precision column in the main table,
 * is scored there in binary32 ULPs, and has a binary32 section scored against
 * the binary32 reference on float cases; the binary64 rows keep their figures. */
Test(report, binary32_columns_and_section, .timeout = 180) {
  char dir[] = "/tmp/toireportXXXXXX";
  cr_assert_not_null(mkdtemp(dir));
  char out64[300], out32[300], errp[300], cmd[4400];
  snprintf(out64, sizeof out64, "%s/r64", dir);
  snprintf(out32, sizeof out32, "%s/r32", dir);
  snprintf(errp, sizeof errp, "%s/err", dir);
  snprintf(cmd, sizeof cmd, "%s", TOIBENCH_PATH); /* the test solvers are built beside toibench */
  snprintf(strrchr(cmd, '/') + 1, sizeof cmd - (size_t)(strrchr(cmd, '/') + 1 - cmd), "tests/solvers/float_ericson_cmd");
  cr_assert_eq(access(cmd, X_OK), 0, "%s: `make test` builds it", cmd);
  char *const a64[] = {"toibench", "report", "--quick", "--quiet", "-j2", "--out", out64, NULL};
  char *const a32[] = {"toibench", "report", "--quick", "--quiet", "-j2", "--solver-cmd-precision", "binary32",
                       "--solver-cmd", cmd, "--out", out32, NULL};
  cr_assert_eq(run_argv(a64, errp, NULL), 0);
  int st = run_argv(a32, errp, NULL);
  char *err = slurp(errp, NULL);
  cr_assert_eq(st, 0, "%s", err);
  free(err);
  char p[400];
  snprintf(p, sizeof p, "%s/summary.md", out64);
  char *md64 = slurp(p, NULL);
  snprintf(p, sizeof p, "%s/summary.md", out32);
  char *md32 = slurp(p, NULL);
  snprintf(p, sizeof p, "%s/report.json", out32);
  char *json = slurp(p, NULL);
  cr_assert(md64 && md32 && json);
  cr_assert(valid_json(json), "report.json does not parse");
  cr_assert(strstr(md32, "| formulation | precision | direction |"), "%s", md32);
  cr_assert(strstr(md32, "\n| float_ericson_cmd | binary32 | forward |"), "%s", md32);
  /* Without the float solver, the binary32 section still holds the formulations' binary32 variants. */
  const char *sec64 = strstr(md64, "\n## binary32\n");
  cr_assert_not_null(sec64, "%s", md64);
  cr_assert(strstr(sec64, "\n| accurate | forward |") && !strstr(sec64, "float_ericson_cmd"), "%s", sec64);
  const char *sec = strstr(md32, "\n## binary32\n");
  cr_assert_not_null(sec, "%s", md32);
  cr_assert(strstr(sec, "every number a float") && strstr(sec, "binary32 reference"), "%s", sec);
  cr_assert(strstr(sec, "\n| float_ericson_cmd | forward |"), "%s", sec);
  cr_assert(strstr(sec, "\n| grazing | float_ericson_cmd |"), "%s", sec);
  /* In binary32 ULPs the float solver's median is small (in binary64 ULPs it would be ~2^29 larger). */
  const char *b32 = strstr(json, "\"binary32\": {\"precision\": \"binary32\"");
  cr_assert_not_null(b32, "%s", json);
  const char *med = strstr(b32, "\"median_ulp\": ");
  cr_assert_not_null(med);
  double m = strtod(med + strlen("\"median_ulp\": "), NULL);
  cr_assert(m >= 0 && m < 1000, "median %g binary32 ULP", m);
  cr_assert(strstr(json, "\"precision\": \"binary32\", \"cases\""), "%s", json);
  for (const char *pl = "grazing"; pl; pl = strcmp(pl, "grazing") ? NULL : "cdf") {
    snprintf(p, sizeof p, "%s/img/b32_%s.svg", out32, pl);
    struct stat sb;
    cr_assert_eq(stat(p, &sb), 0, "%s", p);
  }
  /* The binary64 rows: the same figures (but ns/call) with or without the binary32 column. */
  const char *names[] = {"expanded", "ericson", "robust", "accurate", "phet-reverse"};
  for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
    char r64[2048], r32[2048];
    md_row(md64, names[k], -1, r64, sizeof r64);
    md_row(md32, names[k], 1, r32, sizeof r32);
    cr_assert_str_eq(r32, r64, "%s", names[k]);
  }
  free(md64);
  free(md32);
  free(json);
  cc_rmtree(dir);
}

/* ---- declined cases, the misclassification rate, the error against conditioning, the cost ---- */

/* The number "key" of the row of name in json (from pos: the main table's first), NaN for null, +-inf for the
   strings "inf" and "-inf". */
static double json_number(const char *json, const char *name, const char *key) {
  char pat[300];
  snprintf(pat, sizeof pat, "{\"name\": \"%s\"", name);
  const char *o = strstr(json, pat);
  cr_assert_not_null(o, "%s missing from report.json", name);
  const char *end = strchr(o, '}');
  snprintf(pat, sizeof pat, "\"%s\": ", key);
  const char *k = strstr(o, pat);
  cr_assert(k && k < end, "%s.%s missing", name, key);
  k += strlen(pat);
  if (!strncmp(k, "null", 4)) return NAN;
  if (!strncmp(k, "\"inf\"", 5)) return INFINITY;
  if (!strncmp(k, "\"-inf\"", 6)) return -INFINITY;
  return strtod(k, NULL);
}

/* Lines of file path holding s. */
static size_t lines_with(const char *path, const char *s) {
  char *text = slurp(path, NULL);
  cr_assert_not_null(text, "%s", path);
  size_t n = 0;
  for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) n += strstr(l, s) != NULL;
  free(text);
  return n;
}

/* The CSV field number col (0-based) of the line of path whose second field is name. */
static double csv_field(const char *path, const char *name, int col) {
  char *text = slurp(path, NULL);
  cr_assert_not_null(text, "%s", path);
  double v = NAN;
  int found = 0;
  for (char *save = NULL, *l = strtok_r(text, "\n", &save); l && !found; l = strtok_r(NULL, "\n", &save)) {
    char *f[20];
    int n = 0;
    for (char *p = l; n < 20 && p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) f[n++] = p;
    size_t len = strcspn(f[1], ",");
    if (n <= col || len != strlen(name) || strncmp(f[1], name, len)) continue;
    found = 1;
    v = !strncmp(f[col], "inf", 3) ? INFINITY : strtod(f[col], NULL);
  }
  cr_assert(found, "%s: no row %s", path, name);
  free(text);
  return v;
}

/* A solver declining the mixed family's scale cases and failing its tangent ones: the report counts them apart
 * (never as failures of the other kind, never scored, never misclassified), uses one misclassification rate,
 * (missed + ghost + other) / scored, in its tables, JSON and verdict, gives each row its largest error against
 * its conditioning as the sweep measures it, and shows the solver's own time apart from the bench's. */
Test(report, declined_apart_one_misclass_rate_ratio_and_own_cost, .timeout = 240) {
  char dir[] = "/tmp/toireportXXXXXX";
  cr_assert_not_null(mkdtemp(dir));
  char out[300], errp[300], solver[4400], cases[300], sweep[300], sum[300], p[400];
  snprintf(out, sizeof out, "%s/rep", dir);
  snprintf(errp, sizeof errp, "%s/err", dir);
  snprintf(cases, sizeof cases, "%s/mixed.cases", dir);
  snprintf(sweep, sizeof sweep, "%s/mixed.sweep", dir);
  snprintf(sum, sizeof sum, "%s/summary.csv", dir);
  snprintf(solver, sizeof solver, "%s -scale- -tangent-", cc_built("tests/solvers/decline_cmd"));
  char *const rep[] = {"toibench", "report", "--quick", "--quiet", "-j2", "--solver-cmd", solver, "--out", out, NULL};
  cr_assert_eq(run_argv(rep, errp, NULL), 0);
  /* The quick report's mixed suite is the generator's cases 0 .. 19999 of seed 1: count what the solver declines
     and fails from the case file itself. */
  char *const gen[] = {"toibench", "gen", "mixed", "--count", "20000", "--seed", "1", "-o", cases, NULL};
  cr_assert_eq(run_argv(gen, errp, NULL), 0);
  size_t declined = lines_with(cases, "-scale-"), failed = lines_with(cases, "-tangent-");
  cr_assert(declined > 0 && failed > 0);
  snprintf(p, sizeof p, "%s/report.json", out);
  char *json = slurp(p, NULL);
  snprintf(p, sizeof p, "%s/summary.md", out);
  char *md = slurp(p, NULL);
  cr_assert(json && md && valid_json(json));
  cr_assert_eq(json_number(json, "decline_cmd", "unsupported"), (double)declined);
  cr_assert_eq(json_number(json, "decline_cmd", "failed"), (double)failed);
  cr_assert_eq(json_number(json, "decline_cmd", "out_of_domain"), 0);
  cr_assert_eq(json_number(json, "decline_cmd", "cases"), 20000.0 - (double)(declined + failed), "scored cases");
  char cell[64], want[64];
  json_field(json, "decline_cmd", "unsupported", cell, sizeof cell);
  snprintf(want, sizeof want, "%zu", declined);
  cr_assert_str_eq(cell, want);
  /* In the table: failed, then unsupported, the last two columns. */
  char row[64];
  snprintf(row, sizeof row, "| %zu | %zu |\n", failed, declined);
  const char *r = strstr(md, "\n| decline_cmd | forward |");
  cr_assert(r && strstr(r, row) && strstr(r, row) < strchr(r + 1, '\n') + 1, "%.400s", r ? r : md);
  /* One misclassification rate for every row (the binary32 part's included). */
  size_t rows = 0;
  for (const char *o = json; (o = strstr(o, "{\"name\": \"")); o++) {
    char name[64];
    cr_assert_eq(sscanf(o + 10, "%63[^\"]", name), 1);
    double c = 0, bad = 0, pct = NAN;
    const char *k;
    const char *end = strchr(o, '}');
    if (!(k = strstr(o, "\"direction\": ")) || k > end) continue; /* a section, not a row */
    if ((k = strstr(o, "\"cases\": ")) && k < end) c = strtod(k + 9, NULL);
    if ((k = strstr(o, "\"missed\": ")) && k < end) bad += strtod(k + 10, NULL);
    if ((k = strstr(o, "\"ghost\": ")) && k < end) bad += strtod(k + 9, NULL);
    if ((k = strstr(o, "\"other\": ")) && k < end) bad += strtod(k + 9, NULL);
    if ((k = strstr(o, "\"misclass_pct\": ")) && k < end) pct = strtod(k + 16, NULL);
    cr_assert(c > 0, "%s", name);
    cr_assert_float_eq(pct, 100 * bad / c, 1e-9 * pct + 1e-12, "%s: misclass_pct %g, (missed + ghost + other) / cases %g",
                       name, pct, 100 * bad / c);
    rows++;
  }
  cr_assert_geq(rows, 12);
  /* The verdict's rates are those. */
  const char *v = strstr(json, "\"verdict\": \"");
  cr_assert_not_null(v);
  char best[64], lo[64], hi[64];
  double pbest, nbest, plo, phi;
  const char *u = strstr(v, "Use ");
  cr_assert(u && sscanf(u, "Use %63s when the answer must be right: it misclassifies %lf%% of its %lf scored cases",
                        best, &pbest, &nbest) == 3, "%.300s", v);
  cr_assert_float_eq(pbest, json_number(json, best, "misclass_pct"), 5e-3 * pbest + 1e-9);
  cr_assert_eq(nbest, json_number(json, best, "cases"));
  const char *f = strstr(v, "forward formulas misclassify from ");
  cr_assert(f && sscanf(f, "forward formulas misclassify from %lf%% (%63[^)]) to %lf%% (%63[^)])", &plo, lo, &phi,
                        hi) == 4, "%.600s", v);
  cr_assert_float_eq(plo, json_number(json, lo, "misclass_pct"), 5e-3 * plo);
  cr_assert_float_eq(phi, json_number(json, hi, "misclass_pct"), 5e-3 * phi);
  /* The largest error against conditioning, and the rate, as a sweep of the same cases measures them. */
  char *const sw[] = {"toibench", "sweep", "mixed", "--count", "20000", "--seed", "1", "-j2", "--quiet", "-o", sweep, NULL};
  cr_assert_eq(run_argv(sw, errp, NULL), 0);
  pid_t pid = fork();
  cr_assert_neq(pid, -1);
  if (pid == 0) {
    if (!freopen(sum, "w", stdout)) _exit(99);
    execl(TOIBENCH_PATH, "toibench", "summary", "--format", "csv", sweep, (char *)NULL);
    _exit(98);
  }
  int st;
  cr_assert_eq(waitpid(pid, &st, 0), pid);
  cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  const char *builtin[] = {"expanded", "ericson", "phet-reverse", "overlap-recovery", "gsl-stable", "robust", "accurate"};
  for (size_t i = 0; i < sizeof builtin / sizeof *builtin; i++) {
    double mine = json_number(json, builtin[i], "max_ratio"), theirs = csv_field(sum, builtin[i], 14);
    if (isinf(theirs))
      cr_assert(isinf(mine), "%s: max_ratio %g, the sweep's inf", builtin[i], mine);
    else
      cr_assert_float_eq(mine, theirs, 1e-15 * theirs, "%s: max_ratio %.17g, the sweep's %.17g", builtin[i], mine, theirs);
    cr_assert_float_eq(json_number(json, builtin[i], "misclass_pct"), csv_field(sum, builtin[i], 9), 1e-9,
                       "%s", builtin[i]);
  }
  /* The conditioning explains robust's and accurate's errors (about 1), not expanded's. */
  cr_assert_lt(json_number(json, "robust", "max_ratio"), 4);
  cr_assert_gt(json_number(json, "expanded", "max_ratio"), 1e6);
  /* Its own time is what it reported (250 ns per case); the bench's wall time per call is apart, and more. */
  double own = json_number(json, "decline_cmd", "ns_per_call"), wall = json_number(json, "decline_cmd", "bench_ns_per_call");
  cr_assert_eq(own, 250);
  cr_assert_gt(wall, own);
  cr_assert_float_eq(json_number(json, "decline_cmd", "overhead_ns_per_call"), wall - own, 1e-9 * wall);
  cr_assert(isnan(json_number(json, "robust", "overhead_ns_per_call")));
  snprintf(p, sizeof p, "%s/data/pareto.dat", out);
  char *pareto = slurp(p, NULL);
  cr_assert_not_null(pareto);
  const char *pl = strstr(pareto, "\n250 ");
  cr_assert_not_null(pl, "the cost plot uses its own time: %s", pareto);
  const char *nm = strstr(pl, " decline_cmd ");
  cr_assert(nm && nm < strchr(pl + 1, '\n'), "%.200s", pl);
  free(pareto);
  free(json);
  free(md);
  cc_rmtree(dir);
}

/* ---- every built-in column timed alike ---- */

typedef struct spy_call {
  const toi_candidate *self;
  const toi_case *cases;
  size_t n;
} spy_call;
static spy_call spy_log[1024];
static size_t spy_calls;
/* The binary32 column's cases as it received them, copied during the calls:
   the array is the timing's own and is freed when the timing ends. */
#define SPY32_MAX 4096
static toi_case spy32_seen[SPY32_MAX];
static size_t spy32_n;

/* A candidate that records each call it gets and answers at once. */
static toi_status spy_solve(const toi_candidate *self, const toi_case *cases, size_t n, const toi_solve_opts *o,
                            toi_answer *ans, toi_run_info *info) {
  (void)o;
  memset(info, 0, sizeof *info);
  cr_assert_lt(spy_calls, 1024);
  spy_log[spy_calls++] = (spy_call){self, cases, n};
  if (self->precision == TOI_BINARY32)
    for (size_t i = 0; i < n && spy32_n < SPY32_MAX; i++) spy32_seen[spy32_n++] = cases[i];
  for (size_t i = 0; i < n; i++) {
    memset(&ans[i], 0, sizeof ans[i]);
    ans[i].state = TOI_ANSWERED;
    ans[i].r = (toi_result){TOI_NONE, cases[i].ra};
  }
  return TOI_OK;
}

/* x rounded to binary32 by the conversion, or -1 when out of its range (infinite, or a mass gone to 0). */
static int round32(double x, double *out, int mass) {
  float f = (float)x;
  *out = f;
  return isinf(f) || (mass && x > 0 && !(f > 0)) ? -1 : 0;
}

/* A binary32 column and a binary64 one are timed on the same thing: their own batch call and nothing else, over
 * one array of cases made once before the clock (the cases as the column receives them), the same array in
 * every repeat, walked in consecutive batches; never through the call that rounds each batch as it goes. */
Test(report, every_builtin_column_timed_on_its_own_call) {
  enum { N = 700 };
  rep_data d;
  memset(&d, 0, sizeof d);
  d.opts.engine = TOI_REF_FAST;
  d.nsec = 1;
  rep_section *s = &d.sec[0];
  s->n = N;
  s->cases = calloc(N, sizeof *s->cases);
  toi_gen_opts g;
  toi_gen_opts_default_in(&g, TOI_GEN_MIXED, TOI_BINARY64);
  g.seed = 1;
  for (size_t i = 0; i < N; i++) {
    size_t bin;
    cr_assert_eq(toi_gen_case(&s->cases[i], NULL, &bin, &g, i), TOI_OK);
  }
  /* What a binary32 column receives: the cases whose numbers all fit binary32, rounded, in order. */
  toi_case *want = calloc(N, sizeof *want);
  size_t nwant = 0;
  for (size_t i = 0; i < N; i++) {
    const toi_case *c = &s->cases[i];
    toi_case w = *c;
    int bad = 0;
    for (int k = 0; k < 3; k++)
      bad |= round32(c->pa[k], &w.pa[k], 0) | round32(c->va[k], &w.va[k], 0) | round32(c->pb[k], &w.pb[k], 0) |
             round32(c->vb[k], &w.vb[k], 0);
    bad |= round32(c->ra, &w.ra, 0) | round32(c->rb, &w.rb, 0) | round32(c->ma, &w.ma, 1) | round32(c->mb, &w.mb, 1);
    if (!bad) want[nwant++] = w;
  }
  cr_assert(nwant > 256 && nwant < N, "the mixed cases hold some beyond binary32's range (%zu of %d fit)", nwant, N);
  toi_candidate cand[2];
  memset(cand, 0, sizeof cand);
  snprintf(cand[0].name, sizeof cand[0].name, "spy64");
  snprintf(cand[1].name, sizeof cand[1].name, "spy32");
  cand[0].solve = cand[1].solve = spy_solve;
  cand[1].precision = TOI_BINARY32;
  rep_col cols[2] = {{"spy64", "", "", TOI_FORWARD, 0, &cand[0]}, {"spy32", "", "", TOI_FORWARD, 0, &cand[1]}};
  double ns[2] = {NAN, NAN}, med[2] = {NAN, NAN};
  d.ncol = 2, d.cols = cols, d.ns_per_call = ns, d.ns_median = med;
  spy_calls = 0;
  spy32_n = 0;
  report_timing(&d);
  for (int k = 0; k < 2; k++) {
    const toi_case *base = NULL;
    size_t total = 0, walked = 0, calls = 0;
    for (size_t j = 0; j < spy_calls; j++) {
      const spy_call *c = &spy_log[j];
      if (c->self != &cand[k]) continue;
      calls++;
      if (walked == 0 && base == NULL) base = c->cases;
      cr_assert_eq(c->cases, base + walked, "%s: call %zu is not the next batch of one array of cases", cand[k].name,
                   calls);
      cr_assert_leq(c->n, 256);
      walked += c->n;
      total += c->n;
      size_t per = k ? nwant : N;
      if (walked == per) walked = 0; /* a repeat ends: the next starts again at base */
    }
    size_t per = k ? nwant : N;
    cr_assert_eq(total, REP_TIMING_REPEATS * per, "%s: %zu cases timed", cand[k].name, total);
    cr_assert_eq(calls, REP_TIMING_REPEATS * ((per + 255) / 256));
    cr_assert(isfinite(ns[k]) && ns[k] > 0 && med[k] >= ns[k], "%s: %g ns, median %g", cand[k].name, ns[k], med[k]);
    if (k == 0) {
      cr_assert_eq(base, s->cases, "binary64: the suite's cases themselves");
    } else {
      cr_assert_geq(spy32_n, nwant, "the first repeat's cases were seen");
      for (size_t i = 0; i < nwant; i++) {
        const toi_case *a = &spy32_seen[i], *b = &want[i];
        cr_assert(!memcmp(a->pa, b->pa, sizeof a->pa) && !memcmp(a->va, b->va, sizeof a->va) &&
                      !memcmp(a->pb, b->pb, sizeof a->pb) && !memcmp(a->vb, b->vb, sizeof a->vb) && a->ra == b->ra &&
                      a->rb == b->rb && a->ma == b->ma && a->mb == b->mb && a->dim == b->dim,
                  "binary32 case %zu is not the rounded case", i);
      }
    }
  }
  free(want);
  free(s->cases);
}
