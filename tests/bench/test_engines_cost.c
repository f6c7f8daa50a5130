/* test_engines_cost.c: an engine's own cost per call, reported by a plug-in (ABI 3, toi_solver_report_cost)
 * or a command (the protocol's '# engine-time CALLS NS' line) and shown by `run` beside the bench's own time
 * per call; plug-ins built for ABI 1 and 2 still load and are not asked. The test solvers report a cost
 * of 1000 N^2 ns for the N calls of a process, so that the figure shown tells which processes were summed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli_check.h"

/* Case lines: head-on balls, each ID once; the IDs given are used in order. */
static const char *write_cases(const char *tag, const char *const *ids, int n) {
  static char path[2][96];
  static int next;
  char *p = path[next++ % 2];
  snprintf(p, sizeof path[0], "/tmp/toicost-%s-%ld.cases", tag, (long)getpid());
  FILE *f = fopen(p, "w");
  cr_assert_not_null(f);
  for (int i = 0; i < n; i++) fprintf(f, "%s 2 0 0 0 0 1 1 %d 0 -2 0 1 1\n", ids[i], 10 + i);
  fclose(f);
  return p;
}

/* The table row of solver name (the line starting with it), copied into row; 0 when there is none. */
static int row_of(const char *out, const char *name, char *row, size_t n) {
  size_t len = strlen(name);
  for (const char *p = out; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
    if (strncmp(p, name, len) || p[len] != ' ') continue;
    size_t k = strcspn(p, "\n");
    snprintf(row, n, "%.*s", (int)k, p);
    return 1;
  }
  return 0;
}

/* The engine's and the bench's time per call in a row's "(engine E us/call, bench B us/call)". */
static int cost_of(const char *row, double *engine, double *bench) {
  const char *p = strstr(row, "(engine ");
  return p && sscanf(p, "(engine %lf us/call, bench %lf us/call)", engine, bench) == 2;
}

Test(engines_cost, plugin_reports_its_engine_cost_beside_the_bench_time) {
  const char *ids[] = {"c1", "c2", "c3", "c4", "c5"};
  const char *f = write_cases("plugin", ids, 5);
  char args[8192], row[1024];
  snprintf(args, sizeof args, "run --solver %s %s", cc_built("tests/solvers/cost_plugin.so"), f);
  cc_out *r = cc_run(NULL, args);
  unlink(f);
  cr_assert_eq(r->status, 0, "%s", r->err);
  cr_assert(row_of(r->out, "cost-square", row, sizeof row), "%s", r->out);
  double e, b;
  /* One process, 5 calls: 1000 * 25 ns over 5 calls, 5 us per call. */
  cr_assert(cost_of(row, &e, &b), "%s", row);
  cr_assert_eq(e, 5.0, "%s", row);
  cr_assert_gt(b, 0, "%s", row);
  /* A solver that measured nothing shows nothing. */
  cr_assert(row_of(r->out, "cost-silent", row, sizeof row), "%s", r->out);
  cr_assert_null(strstr(row, "(engine"), "%s", row);
}

Test(engines_cost, a_crashed_process_takes_its_cost_with_it) {
  /* The first process answers c1 and dies on crash-2; a fresh one answers c3, c4, c5 and reports 3 calls
   * (9000 ns): 3 us per call, the calls of the process that finished. */
  const char *ids[] = {"c1", "crash-2", "c3", "c4", "c5"};
  const char *f = write_cases("crash", ids, 5);
  char args[8192], row[1024];
  snprintf(args, sizeof args, "run --solver %s:cost_square %s", cc_built("tests/solvers/cost_plugin.so"), f);
  cc_out *r = cc_run(NULL, args);
  unlink(f);
  cr_assert_eq(r->status, 1, "a crash makes the run fail: %s", r->err);
  cr_assert(row_of(r->out, "cost-square", row, sizeof row), "%s", r->out);
  double e, b;
  cr_assert(cost_of(row, &e, &b), "%s", row);
  cr_assert_eq(e, 3.0, "%s", row);
  cr_assert(strstr(row, "(1 failed)"), "%s", row);
}

Test(engines_cost, command_cost_lines_are_summed_over_lines_and_processes) {
  char args[8192], row[1024];
  double e, b;
  /* Two lines of one process: 2 + 2 calls, 8000 + 8000 ns: 4 us per call. */
  const char *ids[] = {"x", "y", "z", "w"};
  const char *f = write_cases("split", ids, 4);
  snprintf(args, sizeof args, "run --solver-cmd '%s split' %s", cc_built("tests/solvers/cost_cmd"), f);
  cc_out *r = cc_run(NULL, args);
  cr_assert_eq(r->status, 0, "%s", r->err);
  cr_assert(row_of(r->out, "cost_cmd", row, sizeof row), "%s", r->out);
  cr_assert(cost_of(row, &e, &b), "%s", row);
  cr_assert_eq(e, 4.0, "%s", row);
  /* x repeated in a second file goes to a second process: (1000 * 4^2 + 1000 * 1^2) / 5 = 3.4 us per
   * call; either process alone would show 4 or 1. */
  const char *again[] = {"x"};
  const char *g = write_cases("again", again, 1);
  snprintf(args, sizeof args, "run --solver-cmd '%s square' %s %s", cc_built("tests/solvers/cost_cmd"), f, g);
  r = cc_run(NULL, args);
  unlink(f);
  unlink(g);
  cr_assert_eq(r->status, 0, "%s", r->err);
  cr_assert(row_of(r->out, "cost_cmd", row, sizeof row), "%s", r->out);
  cr_assert(cost_of(row, &e, &b), "%s", row);
  cr_assert_eq(e, 3.4, "%s", row);
}

Test(engines_cost, a_run_without_a_reported_cost_is_unchanged) {
  /* The same command with and without its cost line: the tables differ by the row's suffix alone. */
  const char *ids[] = {"x", "y", "z"};
  const char *f = write_cases("same", ids, 3);
  char args[8192];
  snprintf(args, sizeof args, "run --solver-cmd '%s none' %s", cc_built("tests/solvers/cost_cmd"), f);
  cc_out *r = cc_run(NULL, args);
  cr_assert_eq(r->status, 0, "%s", r->err);
  char *plain = strdup(r->out);
  cr_assert_null(strstr(plain, "(engine"), "%s", plain);
  snprintf(args, sizeof args, "run --solver-cmd '%s square' %s", cc_built("tests/solvers/cost_cmd"), f);
  r = cc_run(NULL, args);
  unlink(f);
  cr_assert_eq(r->status, 0, "%s", r->err);
  char *p = strstr(r->out, "  (engine ");
  cr_assert_not_null(p, "%s", r->out);
  char *end = strchr(p, ')');
  cr_assert_not_null(end);
  memmove(p, end + 1, strlen(end + 1) + 1);
  cr_assert_str_eq(r->out, plain);
  free(plain);
}

Test(engines_cost, a_malformed_cost_line_breaks_the_protocol) {
  const char *ids[] = {"x", "y"};
  const char *f = write_cases("bad", ids, 2);
  char args[8192];
  snprintf(args, sizeof args, "run --solver-cmd '%s bad' %s", cc_built("tests/solvers/cost_cmd"), f);
  cc_out *r = cc_run(NULL, args);
  unlink(f);
  cr_assert_eq(r->status, 1, "%s", r->err);
  cr_assert(strstr(r->err, "malformed engine-time line"), "%s", r->err);
  cr_assert_null(strstr(r->out, "(engine"), "%s", r->out);
}

Test(engines_cost, plugins_of_abi_1_and_2_still_load_and_are_not_asked_for_a_cost) {
  /* Each defines toi_solver_report_cost, a name that meant nothing before version 3: it must not be
   * called. Their answers are the example plug-in's, so their rows match its row after the name. */
  char args[8192], r1[1024], r2[1024], r3[1024];
  snprintf(args, sizeof args, "run --solver %s --solver %s --solver %s cases/degenerate.cases",
           cc_built("tests/solvers/abi1_plugin.so"), cc_built("tests/solvers/abi2_plugin.so"),
           cc_built("examples/example_plugin.so"));
  cc_out *r = cc_run(NULL, args);
  cr_assert_eq(r->status, 0, "%s", r->err);
  cr_assert_null(strstr(r->out, "(engine"), "%s", r->out);
  cr_assert(row_of(r->out, "abi1-stable", r1, sizeof r1), "%s", r->out);
  cr_assert(row_of(r->out, "abi2-stable", r2, sizeof r2), "%s", r->out);
  cr_assert(row_of(r->out, "example-stable", r3, sizeof r3), "%s", r->out);
  const size_t skip = strlen("example-stable");
  cr_assert_str_eq(r1 + skip, r3 + skip);
  cr_assert_str_eq(r2 + skip, r3 + skip);
  /* binary64, as a version 1 plug-in's solvers are: no precision column. */
  cr_assert_null(strstr(r->out, "binary32"), "%s", r->out);
}

Test(engines_cost, every_built_engine_reports_its_own_cost, .timeout = 120) {
  cc_out *r = cc_run(NULL, "list --engines");
  cr_assert_eq(r->status, 0, "%s", r->err);
  if (!r->out[0]) cr_skip_test("no engine is built: run 'make engines' to test their cost reports");
  static char names[sizeof r->out];
  snprintf(names, sizeof names, "%s", r->out);
  /* Head-on in the plane, apart at the start: every engine calls its routine once per case, so the
   * engine's time per call is part of the bench's time per call. */
  const char *ids[] = {"h1", "h2", "h3", "h4"};
  const char *f = write_cases("engines", ids, 4);
  char args[512];
  snprintf(args, sizeof args, "run -f engines %s", f);
  r = cc_run(NULL, args);
  unlink(f);
  cr_assert_eq(r->status, 0, "%s", r->err);
  int n = 0;
  for (char *save = NULL, *name = strtok_r(names, "\n", &save); name; name = strtok_r(NULL, "\n", &save), n++) {
    char row[1024];
    double e, b;
    cr_assert(row_of(r->out, name, row, sizeof row), "%s: no row\n%s", name, r->out);
    cr_assert(cost_of(row, &e, &b), "%s reports no cost (built before the cost report? run 'make engines'): %s",
              name, row);
    cr_assert_gt(e, 0, "%s", row);
    cr_assert_leq(e, b, "%s", row);
  }
  cr_assert_gt(n, 0);
}
