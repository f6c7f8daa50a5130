/* test_engines_npm.c: an engine whose npm packages cannot be installed is skipped by `make engines` with a
 * message naming it, and the other engines still build and run. npm is made to fail without the network:
 * offline (npm_config_offline) with an empty cache (npm_config_cache), so `npm ci` cannot fetch anything,
 * whatever the machine's cache holds. The engines go to a temporary build directory (BUILD=...). */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli_check.h"

extern char **environ;

/* The engines built beside toibench: this test needs what `make engines` needs (the Debian packages and
 * npm), so it runs only where `make engines` has built gsl and jolt, and installs nothing. */
static int engines_built_here(void) {
  char gsl[4200], jolt[4200];
  snprintf(gsl, sizeof gsl, "%s", TOIBENCH_PATH);
  char *slash = strrchr(gsl, '/');
  snprintf(slash ? slash + 1 : gsl, 64, "engines/gsl.so");
  snprintf(jolt, sizeof jolt, "%s", gsl);
  snprintf(strrchr(jolt, '/') + 1, 64, "jolt.solvers");
  return access(gsl, R_OK) == 0 && access(jolt, R_OK) == 0;
}

/* `make -C SOURCE BUILD=dir/build engines ENGINES="jolt gsl"` with npm offline on an empty cache, outside
 * any make that runs the tests (its MAKEFLAGS would hand the child a job server it cannot reach); both
 * streams into dir/make.log. Returns the exit status. */
static int make_engines(const char *dir) {
  char build[256], cache[256], log[256], ovr[300];
  snprintf(build, sizeof build, "BUILD=%s/build", dir);
  snprintf(cache, sizeof cache, "%s/npm-cache", dir);
  snprintf(log, sizeof log, "%s/make.log", dir);
  cr_assert_eq(setenv("npm_config_offline", "true", 1), 0);
  cr_assert_eq(setenv("npm_config_cache", cache, 1), 0);
  unsetenv("MAKEFLAGS");
  unsetenv("MFLAGS");
  unsetenv("MAKELEVEL");
  snprintf(ovr, sizeof ovr, "ENGINES=jolt gsl");
  char *argv[] = {"make", "-C", (char *)TOI_SOURCE_DIR, "--no-print-directory", build, "engines", ovr, NULL};
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  pid_t pid;
  cr_assert_eq(posix_spawnp(&pid, "make", &fa, NULL, argv, environ), 0, "cannot run make");
  posix_spawn_file_actions_destroy(&fa);
  int st = 0;
  cr_assert_eq(waitpid(pid, &st, 0), pid);
  unsetenv("npm_config_offline");
  unsetenv("npm_config_cache");
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

Test(engines_npm, an_engine_whose_npm_install_fails_is_skipped_and_the_others_build, .timeout = 300) {
  if (!engines_built_here())
    cr_skip_test("gsl and jolt are not built: run 'make engines' first (this test installs nothing)");
  char dir[] = "/tmp/toinpmXXXXXX";
  cr_assert_not_null(mkdtemp(dir));
  int status = make_engines(dir);
  char path[512];
  snprintf(path, sizeof path, "%s/make.log", dir);
  char *log = cc_slurp(path, NULL);
  cr_assert_eq(status, 0, "a skipped engine does not fail the build:\n%s", log);
  /* Which engine, and why: the rule's own line, npm's error above it, and the summary. */
  cr_assert(strstr(log, "engines: skipping jolt: npm ci could not install its packages\n"), "%s", log);
  cr_assert(strstr(log, "ENOTCACHED"), "npm's own reason is shown:\n%s", log);
  cr_assert(strstr(log, "engines: built gsl; skipped jolt;"), "%s", log);
  /* jolt left no manifest and no partial node_modules; gsl built. */
  snprintf(path, sizeof path, "%s/build/engines/jolt.solvers", dir);
  cr_assert_neq(access(path, F_OK), 0, "%s exists", path);
  snprintf(path, sizeof path, "%s/build/engines/jolt/node_modules", dir);
  cr_assert_neq(access(path, F_OK), 0, "%s exists", path);
  snprintf(path, sizeof path, "%s/build/engines/gsl.so", dir);
  cr_assert_eq(access(path, R_OK), 0, "%s is missing:\n%s", path, log);
  free(log);
  /* The engines found there: gsl's solver, not jolt's; and gsl runs. */
  char env[600];
  snprintf(env, sizeof env, "TOIBENCH_ENGINES=%s/build/engines", dir);
  cc_out *r = cc_run(env, "list --engines");
  cr_assert_eq(r->status, 0, "%s", r->err);
  cr_assert_str_eq(r->out, "gsl-quadratic\n");
  r = cc_run(env, "run -f gsl-quadratic cases/degenerate.cases");
  cr_assert_eq(r->status, 0, "%s", r->err);
  cr_assert(strstr(r->out, "\ngsl-quadratic "), "%s", r->out);
  cc_rmtree(dir);
}
