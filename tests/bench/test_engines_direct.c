/* test_engines_direct.c: each WebAssembly engine adapter against a direct call of its engine.
 *
 * tests/bench/engines/NAME.js calls the engine's API the way its documentation and samples do (a body placed
 * where the ball is, the engine's own vector arithmetic, the engine's query path) on the same fixed cases;
 * the adapter (build/engines/NAME/NAME.js, spoken to through the subprocess protocol) must answer every
 * case with the same class and the same time, bit for bit. FCL's plug-in is compared likewise with
 * build/engines/fcl-direct (tests/bench/engines/fcl_direct.cpp). Each engine is skipped, saying so, until
 * `make engines` has built it. */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli_check.h"
#include "tmp_dir.h"
#include "toi_solver.h"

/* Every number exact in binary32, so that the cases reach both sides unrounded: a head-on hit, a clear
 * miss, an oblique hit off the axes, a hit far from the origin, an overlap and a touch while leaving, an
 * overlap while approaching, lengths near 2^-70 and 2^50 (whose squares leave float's range), a near
 * graze, a slow approach; and two cases of the mixed family (seed 1) that the broadphase of Jolt's
 * narrowphase query drops (a far hit near 2^26, a hit at 2^82 on lengths near 2^-18). */
static const char cases3[] =
    "head-on 3 0 0 0 0 0 0 1 1 10 0 0 -2 0 0 1 1\n"
    "miss 3 0 0 0 0 0 0 1 1 10 0 5 -2 0 0 1 1\n"
    "oblique 3 0.125 0.25 -0.375 1.5 0.5 0.25 0.5 1 3.25 1.125 0.125 -0.5 -0.125 0 0.75 1\n"
    "far-off 3 1000.5 -2000.25 500 3 1 -2 0.5 1 1010.75 -1997 494.5 -1 0.5 0.25 2.625 1\n"
    "overlap-leaving 3 0 0 0 -1 0 0 1 1 1.5 0 0 1 0 0 1 1\n"
    "touching-leaving 3 0 0 0 0 0 0 1 1 2 0 0 1 0 0 1 1\n"
    "overlap-approaching 3 0 0 0 0 0 0 1 1 1.5 0 0 -1 0 0 1 1\n"
    "tiny 3 0x1p-70 0 0 0x1p-60 0x1p-62 0 0x1p-72 1 0x1.8p-68 0x1p-71 0 -0x1p-61 0 0 0x1p-72 1\n"
    "huge 3 0 0 0 0x1p40 0 0 0x1p50 1 0x1p54 0x1p51 0 -0x1p40 0 0 0x1p50 1\n"
    "graze 3 0 0 0 0 0 0 1 1 -20 1.9999 0 1 0 0 1 1\n"
    "slow 3 0 0 0 0 0 0 1 1 3 0.5 0.25 -0x1p-20 0 0 1 1\n"
    "mixed-far-e8-000004 3 0x1.3502eap+26 -0x1.bf01ccp+25 0x1.194ceep+21 -0x1.2e6796p-1 0x1.0b9ccp-1 "
    "0x1.4afc04p-1 0x1.4e0b1p+0 0x1.7f581cp-1 0x1.3502eap+26 -0x1.bf01c4p+25 0x1.194ca4p+21 -0x1.3c8d76p-1 "
    "-0x1.071e22p-1 0x1.38fffep+0 0x1.620948p-1 0x1.ab1ae4p+0\n"
    "mixed-scale-e-20-f-101-000053 3 -0x1.f7286ap-18 -0x1.add868p-20 0x1.c5e946p-18 0x1.fb300ap-102 "
    "0x1.7420c8p-104 -0x1.d1c41ep-102 0x1.5ba09p-20 0x1.c7b6eep-1 -0x1.453df4p-18 0x1.1e2a56p-18 "
    "0x1.5799aep-16 0x1.f7dcf8p-102 -0x1.181426p-101 -0x1.25cb68p-99 0x1.242cf6p-20 0x1.db8afcp+0\n";

/* The same situations in the plane, for Box2D v3 (2D only). */
static const char cases2[] = "head-on 2 0 0 0 0 1 1 10 0 -2 0 1 1\n"
                             "miss 2 0 0 0 0 1 1 10 5 -2 0 1 1\n"
                             "oblique 2 0.125 0.25 1.5 0.5 0.5 1 3.25 1.125 -0.5 -0.125 0.75 1\n"
                             "far-off 2 1000.5 -2000.25 3 1 0.5 1 1010.75 -1997 -1 0.5 2.625 1\n"
                             "overlap-leaving 2 0 0 -1 0 1 1 1.5 0 1 0 1 1\n"
                             "overlap-approaching 2 0 0 0 0 1 1 1.5 0 -1 0 1 1\n"
                             "tiny 2 0x1p-70 0 0x1p-60 0x1p-62 0x1p-72 1 0x1.8p-68 0x1p-71 -0x1p-61 0 0x1p-72 1\n"
                             "huge 2 0 0 0x1p40 0 0x1p50 1 0x1p54 0x1p51 -0x1p40 0 0x1p50 1\n"
                             "graze 2 0 0 0 0 1 1 -20 1.9999 1 0 1 1\n"
                             "slow 2 0 0 0 0 1 1 3 0.5 -0x1p-20 0 1 1\n";

typedef struct direct_engine {
  const char *dir;    /* build/engines/DIR/, tests/bench/engines/DIR.js */
  const char *solver; /* the adapter's solver name */
  const char *cases;  /* the fixed cases */
} direct_engine;

/* The build folder: where TOIBENCH_PATH lives. */
static const char *build_dir(void) {
  static char dir[4096];
  snprintf(dir, sizeof dir, "%s", TOIBENCH_PATH);
  char *slash = strrchr(dir, '/');
  if (slash) *slash = 0;
  return dir;
}

/* The answer lines of out (no comment lines), each cut to its first three fields: ID CLASS T. */
static void answers(char *out, char *dst, size_t n) {
  size_t k = 0;
  dst[0] = 0;
  for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
    if (line[0] == '#') continue;
    char id[256], cls[32], t[64] = "";
    int got = sscanf(line, "%255s %31s %63s", id, cls, t);
    cr_assert_geq(got, 2, "answer line '%s'", line);
    k += (size_t)snprintf(dst + k, n - k, got == 3 ? "%s %s %s\n" : "%s %s\n", id, cls, t);
    cr_assert_lt(k, n);
  }
}

static void check_direct(const direct_engine *e) {
  char manifest[4200], buf[4200], node[4096];
  snprintf(manifest, sizeof manifest, "%s/engines/%s.solvers", build_dir(), e->dir);
  if (access(manifest, R_OK) != 0) cr_skip_test("%s is not built: run 'make engines' to test it", e->dir);
  if (!cc_which("node", node, sizeof node)) cr_skip_test("node is not on PATH");
  char tmp[] = "/tmp/toidirectXXXXXX";
  cr_assert_not_null(mkdtemp(tmp));
  snprintf(buf, sizeof buf, "%s/cases", tmp);
  FILE *f = fopen(buf, "w");
  cr_assert_not_null(f);
  fputs(e->cases, f);
  fclose(f);
  /* The adapter, through the protocol (the cases on stdin). */
  snprintf(buf, sizeof buf, "node %s/engines/%s/%s.js %s <%s/cases >%s/adapter 2>%s/adapter.err", build_dir(),
           e->dir, e->dir, e->solver, tmp, tmp, tmp);
  cr_assert_eq(cc_cmd(NULL, buf), 0, "%s: the adapter failed", e->solver);
  /* The direct call (run from the source folder). */
  snprintf(buf, sizeof buf, "node tests/bench/engines/%s.js %s/engines/%s %s %s/cases >%s/direct 2>%s/direct.err", e->dir,
           build_dir(), e->dir, e->solver, tmp, tmp, tmp);
  cr_assert_eq(cc_cmd(NULL, buf), 0, "%s: the direct call failed", e->solver);
  static char a[1 << 14], d[1 << 14], fa[1 << 14], fd[1 << 14];
  snprintf(buf, sizeof buf, "%s/adapter", tmp);
  cc_read_into(buf, a, sizeof a);
  snprintf(buf, sizeof buf, "%s/direct", tmp);
  cc_read_into(buf, d, sizeof d);
  cc_rmtree(tmp);
  answers(a, fa, sizeof fa);
  answers(d, fd, sizeof fd);
  int lines = 0;
  for (const char *p = e->cases; *p; p++) lines += *p == '\n';
  int got = 0;
  for (const char *p = fd; *p; p++) got += *p == '\n';
  cr_assert_eq(got, lines, "%s: the direct call answered %d of %d cases:\n%s", e->solver, got, lines, fd);
  cr_assert_str_eq(fa, fd, "%s: the adapter\n%s\ndiffers from the direct call\n%s", e->solver, fa, fd);
}

static const direct_engine engines[] = {
    {"jolt", "jolt-castshape", cases3},  {"jolt", "jolt-narrowphase-castshape", cases3},
    {"box2d3", "box2d3-castshape", cases2}, {"physx", "physx-sweep", cases3},
    {"rapier3d", "rapier3d-castshape", cases3},
};

Test(engines_direct, jolt_castshape, .timeout = 120) { check_direct(&engines[0]); }
Test(engines_direct, jolt_narrowphase_castshape, .timeout = 120) { check_direct(&engines[1]); }
Test(engines_direct, box2d3_castshape, .timeout = 120) { check_direct(&engines[2]); }
Test(engines_direct, physx_sweep, .timeout = 120) { check_direct(&engines[3]); }
Test(engines_direct, rapier3d_castshape, .timeout = 120) { check_direct(&engines[4]); }

/* FCL: the plug-in's answer for each case of cases3 (window W = 8, given as the step) against
 * fcl-direct's, class and time bit for bit. */
static void check_fcl(const char *symbol, const char *type) {
  char path[4200], buf[8400];
  snprintf(path, sizeof path, "%s/engines/fcl.so", build_dir());
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) cr_skip_test("%s is not built: run 'make engines' to test it", path);
  snprintf(buf, sizeof buf, "%s/engines/fcl-direct", build_dir());
  if (access(buf, X_OK) != 0) cr_skip_test("%s is not built: run 'make engines' to test it", buf);
  toi_solver_fn fn;
  *(void **)&fn = dlsym(h, symbol);
  cr_assert_not_null(fn);
  char tmp[] = "/tmp/toidirectXXXXXX";
  cr_assert_not_null(mkdtemp(tmp));
  snprintf(buf, sizeof buf, "%s/cases", tmp);
  FILE *f = fopen(buf, "w");
  cr_assert_not_null(f);
  fputs(cases3, f);
  fclose(f);
  snprintf(buf, sizeof buf, "%s/engines/fcl-direct %s/cases 8 %s >%s/direct", build_dir(), tmp, type, tmp);
  cr_assert_eq(cc_cmd(NULL, buf), 0, "fcl-direct failed");
  static char d[1 << 14], a[1 << 14];
  snprintf(buf, sizeof buf, "%s/direct", tmp);
  cc_read_into(buf, d, sizeof d);
  cc_rmtree(tmp);
  size_t k = 0;
  char *save = NULL, *copy = strdup(cases3);
  for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    toi_solver_case c;
    memset(&c, 0, sizeof c);
    char *p = line;
    size_t idn = strcspn(p, " ");
    memcpy(c.id, p, idn < TOI_SOLVER_ID_MAX ? idn : TOI_SOLVER_ID_MAX);
    p += idn;
    c.dim = (int)strtol(p, &p, 10);
    double *ball[2][4] = {{c.pa, c.va, &c.ra, &c.ma}, {c.pb, c.vb, &c.rb, &c.mb}};
    for (int b = 0; b < 2; b++) {
      for (int v = 0; v < 2; v++)
        for (int i = 0; i < c.dim; i++) ball[b][v][i] = strtod(p, &p);
      *ball[b][2] = strtod(p, &p);
      *ball[b][3] = strtod(p, &p);
    }
    c.tmax = 8;
    toi_solver_result r = {TOI_SOLVER_NONE, NAN, 0, 0};
    cr_assert_eq(fn(&r, &c), TOI_SOLVER_OK, "%s: %s not answered", symbol, c.id);
    if (r.cls == TOI_SOLVER_HIT)
      k += (size_t)snprintf(a + k, sizeof a - k, "%s hit %a\n", c.id, r.t);
    else
      k += (size_t)snprintf(a + k, sizeof a - k, "%s none\n", c.id);
  }
  free(copy);
  dlclose(h);
  cr_assert_str_eq(a, d, "%s: the adapter\n%s\ndiffers from the direct call\n%s", symbol, a, d);
}

Test(engines_direct, fcl_naive, .timeout = 60) { check_fcl("toi_fcl_naive", "naive"); }
Test(engines_direct, fcl_ca, .timeout = 60) { check_fcl("toi_fcl_ca", "ca"); }
