/* test_plugin_session.c: a plug-in's child process serves call after call of one candidate (its session); a
 * crash ends it and the next call starts a fresh one; a process it leaves behind is a protocol error of the
 * call that left it, killed there. The cost plug-in reports 1000 N^2 ns for the N calls its process has
 * made since the library was loaded, so each call's engine cost tells which process answered it. */
#include <criterion/criterion.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "candidate.h"
#include "cli_check.h"
#include "toi.h"

/* Head-on balls with the IDs given. */
static void make_cases(toi_case *v, const char *const *ids, int n) {
  for (int i = 0; i < n; i++) {
    toi_case *x = &v[i];
    memset(x, 0, sizeof *x);
    snprintf(x->id, sizeof x->id, "%s", ids[i]);
    x->dim = 2;
    x->pb[0] = 10 + i;
    x->vb[0] = -2;
    x->ra = x->rb = x->ma = x->mb = 1;
  }
}

/* The plug-in's solver named name, loaded as a candidate (sym: its solve function, for a library without
   a catalog). */
static void session_keep_msg(void *ud, const char *text) { snprintf(ud, 512, "%s", text); }

static void load(toi_candidate *c, const char *lib, const char *sym, const char *name) {
  toi_candidate *v = NULL;
  char err[512] = "", arg[4300];
  snprintf(arg, sizeof arg, "%s%s%s", cc_built(lib), sym ? ":" : "", sym ? sym : "");
  size_t count = 0;
  toi_msg m = {session_keep_msg, err};
  cr_assert_eq(toi_candidates_plugin(&v, &count, arg, &m, NULL, 0), TOI_OK, "%s", err);
  int n = (int)count;
  cr_assert_gt(n, 0, "%s", err);
  int k = 0;
  while (k < n && strcmp(v[k].name, name)) k++;
  cr_assert_lt(k, n, "no solver %s in %s", name, lib);
  *c = v[k];
  for (int i = 0; i < n; i++)
    if (i != k) toi_candidate_free(&v[i]);
  free(v);
}

static char said[4096];

static void keep(void *ud, const char *text) {
  (void)ud;
  size_t len = strlen(said);
  snprintf(said + len, sizeof said - len, "%s\n", text);
}

static const toi_msg sink = {keep, NULL};

/* One call on the cases with these IDs. */
static void call(toi_candidate *c, const char *const *ids, int n, toi_answer *ans, toi_run_info *info) {
  toi_case cases[8];
  make_cases(cases, ids, n);
  toi_solve_opts o = {INFINITY, 20, NULL, &sink};
  cr_assert_eq(toi_candidate_run(c, cases, (size_t)n, &o, ans, info), 0, "%s", said);
}

Test(plugin_session, one_process_serves_every_call) {
  toi_candidate c;
  load(&c, "tests/solvers/cost_plugin.so", NULL, "cost-square");
  toi_answer ans[8];
  toi_run_info info;
  const char *first[] = {"a", "b", "c"}, *second[] = {"d", "e"};
  call(&c, first, 3, ans, &info);
  cr_assert_eq(info.engine_calls, 3);
  cr_assert_eq(info.engine_ns, 9000, "1000 * 3^2: %llu", (unsigned long long)info.engine_ns);
  /* The same process: 5 calls so far, 25000 ns, of which this call's are 25000 - 9000 (a fresh process
     would report 1000 * 2^2 = 4000). */
  call(&c, second, 2, ans, &info);
  cr_assert_eq(info.engine_calls, 2);
  cr_assert_eq(info.engine_ns, 16000, "%llu", (unsigned long long)info.engine_ns);
  for (int i = 0; i < 2; i++) cr_assert_eq(ans[i].state, TOI_ANSWERED);
  toi_candidate_free(&c);
}

Test(plugin_session, a_crash_ends_the_session_and_a_fresh_process_goes_on) {
  toi_candidate c;
  load(&c, "tests/solvers/cost_plugin.so", NULL, "cost-square");
  toi_answer ans[8];
  toi_run_info info;
  const char *first[] = {"a", "b"}, *second[] = {"c", "crash-d", "e"}, *third[] = {"f"};
  call(&c, first, 2, ans, &info);
  cr_assert_eq(info.engine_ns, 4000);
  /* The kept process answers c and dies on crash-d, its batch's cost with it; a fresh one answers e: one
     call, 1000 ns. */
  call(&c, second, 3, ans, &info);
  cr_assert_eq(ans[0].state, TOI_ANSWERED);
  cr_assert_eq(ans[1].state, TOI_FAILED);
  cr_assert_eq(ans[1].cause, TOI_CAUSE_CRASH, "%s", ans[1].why);
  cr_assert_eq(ans[2].state, TOI_ANSWERED);
  cr_assert_eq(info.engine_calls, 1);
  cr_assert_eq(info.engine_ns, 1000, "%llu", (unsigned long long)info.engine_ns);
  /* The fresh process serves the next call: 2 calls so far, 4000 - 1000 ns for this one. */
  call(&c, third, 1, ans, &info);
  cr_assert_eq(ans[0].state, TOI_ANSWERED);
  cr_assert_eq(info.engine_ns, 3000, "%llu", (unsigned long long)info.engine_ns);
  toi_candidate_free(&c);
}

/* The first process ID in the file, or 0. */
static long first_pid(const char *path) {
  FILE *f = fopen(path, "r");
  long pid = 0;
  if (f && fscanf(f, "%ld", &pid) != 1) pid = 0;
  if (f) fclose(f);
  return pid;
}

Test(plugin_session, a_process_left_behind_is_the_calls_protocol_error_and_is_killed) {
  char pids[128];
  snprintf(pids, sizeof pids, "/tmp/toisession-%ld.pids", (long)getpid());
  unlink(pids);
  setenv("TOI_TEST_PIDFILE", pids, 1);
  toi_candidate c;
  load(&c, "tests/solvers/fork_plugin.so", "forker", "forker");
  toi_answer ans[8];
  toi_run_info info;
  const char *clean[] = {"ok-1"}, *leaves[] = {"ok-2", "setsid-3", "ok-4"}, *after[] = {"ok-5", "ok-6"};
  said[0] = 0;
  call(&c, clean, 1, ans, &info);
  cr_assert_eq(info.protocol_errors, 0, "%s", said);
  call(&c, leaves, 3, ans, &info);
  for (int i = 0; i < 3; i++) cr_assert_eq(ans[i].state, TOI_ANSWERED, "%s", ans[i].why);
  cr_assert_eq(info.protocol_errors, 1, "the call that left a process says so: %s", said);
  cr_assert(strstr(said, "solver forker: 1 process it started was still running when it ended: killed"), "%s",
            said);
  long pid = first_pid(pids);
  unlink(pids);
  cr_assert_gt(pid, 0, "the plug-in's child did not start");
  int gone = 0;
  for (int i = 0; i < 50 && !gone; i++) {
    gone = kill((pid_t)pid, 0) != 0;
    if (!gone) usleep(20000);
  }
  if (!gone) kill((pid_t)pid, SIGKILL);
  cr_assert(gone, "the process left behind outlived its call");
  /* The next call is served by a fresh process, and is clean. */
  said[0] = 0;
  call(&c, after, 2, ans, &info);
  cr_assert_eq(info.protocol_errors, 0, "%s", said);
  for (int i = 0; i < 2; i++) cr_assert_eq(ans[i].state, TOI_ANSWERED);
  toi_candidate_free(&c);
  unsetenv("TOI_TEST_PIDFILE");
}
