/* test_report_esim.c: the report's section "Engines in a simulation". With the engines built, its figures
 * are those of `simulate --format csv` run here on the same scene, seed and events; without an engine, one
 * sentence says what the section needs. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli_check.h"
#include "tmp_dir.h"

TestSuite(reportesim, .init = td_setup, .fini = td_teardown, .timeout = 600);


static int tb(const char *args, const char *out) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "'%s' %s >%s 2>err.txt </dev/null", TOIBENCH_PATH, args, out);
  cc_job job = {td_dir, 0, {0}};
  const char *const line[] = {cmd};
  return cc_pipe(&job, 1, line);
}

/* The text after "KEY": in line, up to the next ',' or '}' (quotes removed). */
static void field(const char *line, const char *key, char *v, size_t n) {
  char k[64];
  snprintf(k, sizeof k, "\"%s\": ", key);
  const char *at = strstr(line, k);
  cr_assert_not_null(at, "no %s in %s", key, line);
  at += strlen(k);
  if (*at == '"') at++;
  size_t i = 0;
  while (at[i] && at[i] != ',' && at[i] != '}' && at[i] != '"' && i + 1 < n) {
    v[i] = at[i];
    i++;
  }
  v[i] = 0;
}

/* Column col of the csv row of kernel in text (header on the first line). */
static void csv_field(const char *text, const char *col, char *v, size_t n) {
  const char *nl = strchr(text, '\n');
  cr_assert_not_null(nl);
  char head[1024];
  snprintf(head, sizeof head, "%.*s", (int)(nl - text), text);
  int idx = -1, i = 0;
  for (char *save = NULL, *t = strtok_r(head, ",", &save); t; t = strtok_r(NULL, ",", &save), i++)
    if (!strcmp(t, col)) idx = i;
  cr_assert_geq(idx, 0, "no column %s", col);
  const char *p = nl + 1;
  for (i = 0; i < idx; i++) {
    p = strchr(p, ',');
    cr_assert_not_null(p);
    p++;
  }
  size_t k = 0;
  while (p[k] && p[k] != ',' && p[k] != '\n' && k + 1 < n) {
    v[k] = p[k];
    k++;
  }
  v[k] = 0;
}

Test(reportesim, without_engines_one_sentence) {
  char empty[4200];
  snprintf(empty, sizeof empty, "%s/no-engines", td_dir);
  cr_assert_eq(mkdir(empty, 0700), 0);
  setenv("TOIBENCH_ENGINES", empty, 1);
  cr_assert_eq(tb("report --quick --quiet --out r", "out.txt"), 0);
  char *md = td_read("r/summary.md");
  const char *want = "\n## Engines in a simulation\n\nThis section needs the engines built ('make engines') and the "
                     "report made with --engines: each engine then drives the event-driven simulation in the "
                     "scenes of doc/engines.md.\n";
  cr_assert_not_null(strstr(md, want), "%s", md);
  free(md);
  char *html = td_read("r/index.html");
  cr_assert_not_null(strstr(html, "<h2 id=\"engines-simulation\">Engines in a simulation</h2>\n<p>This section needs"));
  free(html);
  char *js = td_read("r/report.json");
  cr_assert_not_null(strstr(js, "\"engines_simulation\": {\"note\": \"This section needs"), "%s", js);
  cr_assert_not_null(strstr(js, "\"runs\": []}"));
  free(js);
  cr_assert(!td_exists(td_path("r/data/engines_sim.dat")));
}

Test(reportesim, figures_equal_simulate_csv) {
  if (!cc_engine_built("jolt.solvers") || !cc_engine_built("box2d3.solvers"))
    cr_skip_test("jolt and box2d3 are not built: run 'make engines' to test the engines' simulation section");
  cr_assert_eq(tb("report --quick --quiet --engines --out r", "out.txt"), 0);
  char *js = td_read("r/report.json");
  char *sec = strstr(js, "\"engines_simulation\": ");
  cr_assert_not_null(sec);
  char *end = strstr(sec, "]}");
  cr_assert_not_null(end);
  *end = 0;
  int runs = 0, saw_jolt = 0, saw_box2d3 = 0;
  char *next = NULL;
  for (char *line = strstr(sec, "{\"engine\": "); line; line = next ? strstr(next, "{\"engine\": ") : NULL) {
    char *nl = strchr(line, '\n');
    next = nl ? nl + 1 : NULL;
    if (nl) *nl = 0;
    char engine[64], scene[32], dim[8], seed[24], events[24], every[24], args[512];
    field(line, "engine", engine, sizeof engine);
    field(line, "scene", scene, sizeof scene);
    field(line, "dim", dim, sizeof dim);
    field(line, "seed", seed, sizeof seed);
    field(line, "every", every, sizeof every);
    field(line, "events", events, sizeof events);
    cr_assert_str_eq(events, "2000", "%s", line);
    saw_jolt |= !strcmp(engine, "jolt-castshape");
    saw_box2d3 |= !strcmp(engine, "box2d3-castshape") && !strcmp(scene, "billiards") && !strcmp(dim, "2");
    snprintf(args, sizeof args, "simulate -f %s --scene %s --dim %s --seed %s --events 2000 --every %s --format csv",
             engine, scene, dim, seed, every);
    int rc = tb(args, "sim.csv");
    cr_assert(rc == 0 || rc == 1, "%s: exit %d", args, rc);
    char *csv = td_read("sim.csv");
    static const char *const pairs[][2] = {{"status", "status"},
                                           {"events", "events"},
                                           {"drift_per_1e6", "drift_per_1e6"},
                                           {"missed_per_1e6", "missed_per_1e6"},
                                           {"overlaps_per_1e6", "overlaps_per_1e6"},
                                           {"failed", "failed"},
                                           {"queries", "queries"},
                                           {"max_pen", "max_pen"}};
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
      char a[64], b[64];
      field(line, pairs[i][0], a, sizeof a);
      csv_field(csv, pairs[i][1], b, sizeof b);
      if (strcmp(pairs[i][0], "status")) cr_assert_eq(strtod(a, NULL), strtod(b, NULL), "%s %s %s: %s vs %s", engine, scene, pairs[i][0], a, b);
      else cr_assert_str_eq(a, b, "%s %s status", engine, scene);
    }
    free(csv);
    runs++;
  }
  cr_assert(saw_jolt && saw_box2d3, "runs: %d", runs);
  free(js);
  cr_assert(td_exists(td_path("r/img/engines_sim.svg")));
  char *dat = td_read("r/data/engines_sim.dat");
  cr_assert_not_null(strstr(dat, "# engine box2d3-castshape, scene billiards 2D, seed 1"));
  free(dat);
}
