/* test_engines_fcl.c: the FCL adapter (build/engines/fcl.so) on cases with known answers, and its worst-case corpora replayed. */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "toi.h"
#include "toi_solver.h"
#include "msg_text.h"

/* The adapter's solvers and the corpus each one's hunt wrote. */
typedef struct fcl_solver {
  const char *name, *symbol;
} fcl_solver;
static const fcl_solver fcl_solvers[] = {{"fcl-naive", "toi_fcl_naive"}, {"fcl-ca", "toi_fcl_ca"}};
#define FCL_NSOLVERS (sizeof fcl_solvers / sizeof fcl_solvers[0])

/* The built adapter, beside toibench under the build directory, opened once
 * per test (the test skips when it is not built). */
static void *fcl_open(void) {
  char path[4200];
  snprintf(path, sizeof path, "%s", TOIBENCH_PATH);
  char *slash = strrchr(path, '/');
  snprintf(slash ? slash + 1 : path, 64, "engines/fcl.so");
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) cr_skip_test("%s is not built: run 'make engines ENGINES=fcl' to test the FCL adapter", path);
  const int *abi = dlsym(h, "toi_solver_abi");
  cr_assert(abi && *abi == TOI_SOLVER_ABI_VERSION, "%s: not built for this ABI", path);
  return h;
}

static toi_solver_fn fcl_fn(void *h, const fcl_solver *s) {
  toi_solver_fn f;
  *(void **)&f = dlsym(h, s->symbol);
  cr_assert_not_null(f, "%s: no symbol %s", s->name, s->symbol);
  return f;
}

/* Unit balls: A at rest at the origin, B at pb moving at vb; tmax as given. */
static toi_solver_case fcl_case(const double pb[3], const double vb[3], double tmax) {
  toi_solver_case c;
  memset(&c, 0, sizeof c);
  snprintf(c.id, sizeof c.id, "fcl-test");
  c.dim = 3;
  c.ra = c.rb = c.ma = c.mb = 1;
  for (int k = 0; k < 3; k++) {
    c.pb[k] = pb[k];
    c.vb[k] = vb[k];
  }
  c.tmax = tmax;
  return c;
}

/* The answer as toibench's runner would see it (result prefilled as it does). */
static toi_solver_result fcl_solve(toi_solver_fn f, const toi_solver_case *c, const char *name) {
  toi_solver_result r = {TOI_SOLVER_NONE, NAN, 0, 0};
  cr_assert_eq(f(&r, c), TOI_SOLVER_OK, "%s: not answered", name);
  return r;
}

/* Head-on: gap 8 - 2t, contact at t = 4. Without tmax the window is W = 16
 * (engine_window: 2 (10 + 2) / 2 = 12, rounded up to a power of two past it);
 * with tmax = 8 it is 8. The naive solver's samples are W i/9: the first
 * past 4 is i = 3 (W = 16) or i = 5 (W = 8). Conservative advancement steps
 * distance / approach = 8 / 32 = 1/4 of the motion, landing on contact. */
Test(engines_fcl, head_on_hit_at_the_known_time) {
  void *h = fcl_open();
  const double pb[3] = {10, 0, 0}, vb[3] = {-2, 0, 0};
  const double tmax[2] = {INFINITY, 8}, naive_t[2] = {(3 / 9.0) * 16, (5 / 9.0) * 8};
  for (int w = 0; w < 2; w++) {
    toi_solver_case c = fcl_case(pb, vb, tmax[w]);
    toi_solver_result n = fcl_solve(fcl_fn(h, &fcl_solvers[0]), &c, "fcl-naive");
    cr_assert_eq(n.cls, TOI_SOLVER_HIT);
    cr_assert_eq(n.t, naive_t[w], "fcl-naive: t = %a", n.t);
    double gap = 8 - 2 * n.t;
    cr_assert_leq(fabs(gap - n.target), n.tolerance, "fcl-naive: gap %g off %g +- %g", gap, n.target, n.tolerance);
    toi_solver_result a = fcl_solve(fcl_fn(h, &fcl_solvers[1]), &c, "fcl-ca");
    cr_assert_eq(a.cls, TOI_SOLVER_HIT);
    cr_assert_eq(a.t, 4, "fcl-ca: t = %a", a.t);
    cr_assert_eq(a.target, 0.5e-4 * 2 * (w ? 8 : 16));
  }
  dlclose(h);
}

/* The naive sampler stops on the first sample at or past contact, never before it: its claimed band is
 * one-sided, a separation in [-|v| W / 9, 0] (head-on at speed 2, W = 8: [-16/9, 0]), widened only by the
 * rounding slack of 2^-40 of the lengths (10 + 2 + 16 here). */
Test(engines_fcl, naive_tolerance_is_one_sided) {
  void *h = fcl_open();
  const double pb[3] = {10, 0, 0}, vb[3] = {-2, 0, 0};
  toi_solver_case c = fcl_case(pb, vb, 8);
  toi_solver_result n = fcl_solve(fcl_fn(h, &fcl_solvers[0]), &c, "fcl-naive");
  double slack = ldexp(28, -40);
  cr_assert_leq(n.target + n.tolerance, slack, "fcl-naive: band %g +- %g reaches past contact", n.target,
                n.tolerance);
  cr_assert_leq(fabs(n.target - n.tolerance + 16.0 / 9), 2 * slack + 1e-15, "fcl-naive: band %g +- %g", n.target,
                n.tolerance);
  dlclose(h);
}

/* The 3-4-12 head-on in 3D: gap 11 - 13 t, contact at 11/13; within each solver's contract. */
Test(engines_fcl, head_on_3d_within_the_contract) {
  void *h = fcl_open();
  const double pb[3] = {3, 4, 12}, vb[3] = {-3, -4, -12};
  toi_solver_case c = fcl_case(pb, vb, INFINITY);
  for (size_t k = 0; k < FCL_NSOLVERS; k++) {
    toi_solver_result r = fcl_solve(fcl_fn(h, &fcl_solvers[k]), &c, fcl_solvers[k].name);
    cr_assert_eq(r.cls, TOI_SOLVER_HIT, "%s", fcl_solvers[k].name);
    double gap = 11 - 13 * r.t;
    cr_assert_leq(fabs(gap - r.target), r.tolerance + 1e-12, "%s: gap %g off %g +- %g", fcl_solvers[k].name, gap,
                  r.target, r.tolerance);
  }
  dlclose(h);
}

/* A clear miss (impact parameter 5 > R = 2) and balls moving apart: no contact. */
Test(engines_fcl, clear_miss_and_leaving_are_no_contact) {
  void *h = fcl_open();
  const double pb[2][3] = {{10, 5, 0}, {10, 0, 0}}, vb[2][3] = {{-2, 0, 0}, {2, 0, 0}};
  for (int i = 0; i < 2; i++) {
    toi_solver_case c = fcl_case(pb[i], vb[i], INFINITY);
    for (size_t k = 0; k < FCL_NSOLVERS; k++) {
      toi_solver_result r = fcl_solve(fcl_fn(h, &fcl_solvers[k]), &c, fcl_solvers[k].name);
      cr_assert_eq(r.cls, TOI_SOLVER_NONE, "%s: case %d says %d", fcl_solvers[k].name, i, r.cls);
    }
  }
  dlclose(h);
}

/* FCL has no overlap state: both solvers call collide() at the start, and an
 * initial overlap (approaching, leaving or at rest) or a touching start is a
 * hit at time 0. */
Test(engines_fcl, initial_overlap_and_touching_start_are_a_hit_at_zero) {
  void *h = fcl_open();
  const double pb[4][3] = {{1, 0, 0}, {1, 0, 0}, {0.5, 0, 0}, {2, 0, 0}};
  const double vb[4][3] = {{-1, 0, 0}, {1, 0, 0}, {0, 0, 0}, {-1, 0, 0}};
  for (int i = 0; i < 4; i++) {
    toi_solver_case c = fcl_case(pb[i], vb[i], INFINITY);
    for (size_t k = 0; k < FCL_NSOLVERS; k++) {
      toi_solver_result r = fcl_solve(fcl_fn(h, &fcl_solvers[k]), &c, fcl_solvers[k].name);
      cr_assert_eq(r.cls, TOI_SOLVER_HIT, "%s: case %d says %d", fcl_solvers[k].name, i, r.cls);
      cr_assert_eq(r.t, 0, "%s: case %d at %a", fcl_solvers[k].name, i, r.t);
    }
  }
  dlclose(h);
}

/* The naive solver's samples are 1/9 of the window apart: a contact that
 * begins and ends between two of them is missed (tunnelling, by design). Here
 * W = 16 and the overlap of B crossing A at speed 64 lasts 4 / 64 < 16 / 9. */
Test(engines_fcl, naive_misses_a_contact_between_samples) {
  void *h = fcl_open();
  const double pb[3] = {-40, 0, 0}, vb[3] = {64, 0, 0};
  toi_solver_case c = fcl_case(pb, vb, 16);
  toi_solver_result n = fcl_solve(fcl_fn(h, &fcl_solvers[0]), &c, "fcl-naive");
  cr_assert_eq(n.cls, TOI_SOLVER_NONE, "the samples 16 i / 9 put B at -40 + 113.8 i: never within 2 of A");
  toi_solver_result a = fcl_solve(fcl_fn(h, &fcl_solvers[1]), &c, "fcl-ca");
  cr_assert_eq(a.cls, TOI_SOLVER_HIT);
  cr_assert_leq(fabs(38 - 64 * a.t - a.target), a.tolerance + 1e-12, "fcl-ca: t = %a", a.t);
  dlclose(h);
}

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return 1e9 * (double)ts.tv_sec + (double)ts.tv_nsec;
}

/* ABI 3: each solver's own cost, the calls it made in this process and the
 * time inside continuousCollide, which the wall time around the calls bounds. */
Test(engines_fcl, reports_its_own_cost_per_solver) {
  void *h = fcl_open();
  toi_solver_cost_fn cost;
  *(void **)&cost = dlsym(h, "toi_solver_report_cost");
  cr_assert_not_null(cost, "fcl.so exports no toi_solver_report_cost");
  toi_solver_cost got = {0, 0};
  cr_assert_eq(cost("toi_fcl_naive", &got), 0, "no call yet, no cost");
  const double pb[3] = {10, 0, 0}, vb[3] = {-2, 0, 0};
  toi_solver_case c = fcl_case(pb, vb, INFINITY);
  double t0 = now_ns();
  for (int i = 0; i < 3; i++) fcl_solve(fcl_fn(h, &fcl_solvers[0]), &c, "fcl-naive");
  for (int i = 0; i < 2; i++) fcl_solve(fcl_fn(h, &fcl_solvers[1]), &c, "fcl-ca");
  double wall = now_ns() - t0;
  toi_solver_cost naive = {0, 0}, ca = {0, 0};
  cr_assert_eq(cost("toi_fcl_naive", &naive), 1);
  cr_assert_eq(cost("toi_fcl_ca", &ca), 1);
  cr_assert_eq(naive.calls, 3);
  cr_assert_eq(ca.calls, 2);
  cr_assert_gt(naive.ns, 0);
  cr_assert_gt(ca.ns, 0);
  cr_assert_leq((double)(naive.ns + ca.ns), wall, "engine %llu + %llu ns in %g ns of wall time", naive.ns, ca.ns,
                wall);
  cr_assert_eq(cost("toi_fcl_other", &got), 0, "an unknown symbol has no cost");
  dlclose(h);
}

/* Every case of cases/engines/fcl-NAME{suffix}.cases answered with the
 * verdict its '# ulp=... verdict=...' line recorded (at hunt time for the
 * corpus, by 'run' for the findings). */
static void replay_corpus(void *h, const fcl_solver *s, const char *suffix) {
  char path[4200];
  snprintf(path, sizeof path, "%s/cases/engines/%s%s.cases", TOI_SOURCE_DIR, s->name, suffix);
  FILE *in = fopen(path, "r");
  cr_assert_not_null(in, "%s: the corpus of %s is missing", path, s->name);
  toi_solver_fn f = fcl_fn(h, s);
  char line[2048], verdict[64] = "";
  long lineno = 0;
  int cases = 0;
  while (fgets(line, sizeof line, in)) {
    lineno++;
    line[strcspn(line, "\r\n")] = 0;
    if (!strncmp(line, "# ulp=", 6)) {
      const char *v = strstr(line, " verdict=");
      cr_assert_not_null(v, "%s:%ld: no verdict", path, lineno);
      cr_assert_eq(sscanf(v + 9, "%63s", verdict), 1);
      continue;
    }
    if (line[0] == '#' || line[strspn(line, " \t")] == 0) continue;
    cr_assert_neq(verdict[0], 0, "%s:%ld: a case without its '# ulp=' line", path, lineno);
    toi_case tc;
    int field;
    char msg[160];
    msg_text mt;
    toi_msg m = msg_text_sink(&mt, msg, sizeof msg);
    cr_assert_eq(toi_parse_case_line(&tc, line, &field, &m), TOI_OK, "%s:%ld: %s", path, lineno, msg);
    toi_solver_case c;
    memset(&c, 0, sizeof c);
    snprintf(c.id, sizeof c.id, "%s", tc.id);
    c.dim = tc.dim;
    memcpy(c.pa, tc.pa, sizeof c.pa);
    memcpy(c.va, tc.va, sizeof c.va);
    memcpy(c.pb, tc.pb, sizeof c.pb);
    memcpy(c.vb, tc.vb, sizeof c.vb);
    c.ra = tc.ra;
    c.rb = tc.rb;
    c.ma = tc.ma;
    c.mb = tc.mb;
    c.tmax = INFINITY;
    toi_solver_result r = fcl_solve(f, &c, s->name);
    cr_expect_str_eq(toi_class_name((toi_class)r.cls), verdict, "%s:%ld (%s): verdict changed", path, lineno, c.id);
    cases++;
    verdict[0] = 0;
  }
  fclose(in);
  cr_assert_gt(cases, 0, "%s: no case", path);
}

Test(engines_fcl, corpus_replays_its_recorded_verdicts, .timeout = 60) {
  void *h = fcl_open();
  for (size_t k = 0; k < FCL_NSOLVERS; k++) {
    replay_corpus(h, &fcl_solvers[k], "");
    replay_corpus(h, &fcl_solvers[k], "-findings");
  }
  dlclose(h);
}
