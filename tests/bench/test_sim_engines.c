/* test_sim_engines.c: the built engines as the simulation's kernel (`simulate -f ENGINE`). Each engine is
 * skipped, saying so, until `make engines` has built it. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli_check.h"
#include "tmp_dir.h"

TestSuite(simengines, .init = td_setup, .fini = td_teardown);


static int tb(const char *args) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "'%s' %s >out.txt 2>err.txt </dev/null", TOIBENCH_PATH, args);
  cc_job job = {td_dir, 0, {0}};
  const char *const line[] = {cmd};
  return cc_pipe(&job, 1, line);
}

/* The row of solver: every column filled (17 fields before the note), status ok, its events run,
   predictions asked of it. */
static void check_row(const char *solver, const char *events) {
  char *out = td_read("out.txt"), key[80];
  snprintf(key, sizeof key, "\n%s ", solver);
  char *at = strstr(out, key);
  cr_assert_not_null(at, "no row for %s: %s", solver, out);
  at++;
  char *end = strchr(at, '\n');
  if (end) *end = 0;
  char *f[20];
  int n = 0;
  for (char *save = NULL, *t = strtok_r(at, " ", &save); t && n < 20; t = strtok_r(NULL, " ", &save)) f[n++] = t;
  cr_assert_geq(n, 17, "%s: %d fields", solver, n);
  cr_assert_str_eq(f[1], "ok");
  cr_assert_str_eq(f[2], events);
  cr_assert_gt(atoll(f[13]), 0, "%s asked no prediction", solver);
  for (int i = 3; i < 17; i++) cr_assert(strcmp(f[i], "nan") && strcmp(f[i], "-"), "%s column %d: %s", solver, i, f[i]);
  free(out);
}

static void engine_in_dense_3d(const char *dir, const char *solver) {
  if (!cc_engine_built(dir)) cr_skip_test("%s is not built: run 'make engines' to test it", solver);
  char args[512];
  snprintf(args, sizeof args, "simulate -f %s --scene dense --dim 3 --n 8 --events 3 --every 1", solver);
  int rc = tb(args);
  cr_assert(rc == 0 || rc == 1, "%s: exit %d", solver, rc);
  check_row(solver, "3");
}

Test(simengines, jolt) { engine_in_dense_3d("jolt.solvers", "jolt-castshape"); }
Test(simengines, physx) { engine_in_dense_3d("physx.solvers", "physx-sweep"); }
Test(simengines, rapier3d) { engine_in_dense_3d("rapier3d.solvers", "rapier3d-castshape"); }
Test(simengines, fcl) { engine_in_dense_3d("fcl.so", "fcl-ca"); }

/* Box2D v3 is 2D: refused in a 3D scene before any work, run in a 2D one. */
Test(simengines, box2d3_2d_only) {
  if (!cc_engine_built("box2d3.solvers")) cr_skip_test("box2d3-castshape is not built: run 'make engines' to test it");
  cr_assert_eq(tb("simulate -f box2d3-castshape --scene dense --dim 3 --n 8 --events 3 --series s.txt"), 2);
  char *err = td_read("err.txt");
  cr_assert(strstr(err, "'box2d3-castshape' declines a 3D case off the plane z = 0 (a 2D-only solver)"), "%s", err);
  free(err);
  cr_assert(!td_exists(td_path("s.txt")));
  int rc = tb("simulate -f box2d3-castshape --scene dense --n 8 --events 3 --every 1");
  cr_assert(rc == 0 || rc == 1, "exit %d", rc);
  check_row("box2d3-castshape", "3");
}
