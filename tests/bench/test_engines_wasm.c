/* test_engines_wasm.c: the WebAssembly engine adapters (box2d3, jolt, physx, rapier3d) on constructed
 * cases with known answers, and their worst-case corpora (cases/engines/NAME.cases) replayed verdict for
 * verdict. Each engine is skipped, saying so, until `make engines` has built it. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "gen.h"
#include "toi.h"

extern char **environ;

typedef struct wasm_engine {
  const char *dir;    /* build/engines/DIR.solvers */
  const char *solver; /* its solver name */
  int dim;            /* 2: the cases go in at z = 0 as 2D cases */
} wasm_engine;

static const wasm_engine engines[] = {
    {"box2d3", "box2d3-castshape", 2},
    {"jolt", "jolt-castshape", 3},
    {"physx", "physx-sweep", 3},
    {"rapier3d", "rapier3d-castshape", 3},
};

static const char *bin_dir(void) {
  static char dir[4096];
  snprintf(dir, sizeof dir, "%s", TOIBENCH_PATH);
  char *slash = strrchr(dir, '/');
  if (slash) *slash = 0;
  return dir;
}

static int engine_built(const wasm_engine *e) {
  char path[4200];
  snprintf(path, sizeof path, "%s/engines/%s.solvers", bin_dir(), e->dir);
  return access(path, R_OK) == 0;
}

/* `toibench CMD -f SOLVER FILE` (CMD solve or run) with TOIBENCH_ENGINES set, its stdout into out (no shell). */
static void toibench(const char *cmd, const wasm_engine *e, const char *file, char *out, size_t n) {
  char env_dir[4200], outf[] = "/tmp/toiwasmXXXXXX";
  snprintf(env_dir, sizeof env_dir, "%s/engines", bin_dir());
  int fd = mkstemp(outf);
  cr_assert_geq(fd, 0);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, fd, 1);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  char *argv[] = {(char *)TOIBENCH_PATH, (char *)cmd, "-f", (char *)e->solver, (char *)file, NULL};
  cr_assert_eq(setenv("TOIBENCH_ENGINES", env_dir, 1), 0);
  pid_t pid;
  cr_assert_eq(posix_spawn(&pid, TOIBENCH_PATH, &fa, NULL, argv, environ), 0);
  int st = 0;
  waitpid(pid, &st, 0);
  unsetenv("TOIBENCH_ENGINES");
  posix_spawn_file_actions_destroy(&fa);
  /* Status 1: the solver failed on some case (a protocol error such as a
     negative time); the corpus records those cases' verdict as failed. */
  cr_assert(WIFEXITED(st) && WEXITSTATUS(st) <= 1, "%s: %s %s failed", e->solver, cmd, file);
  ssize_t got = pread(fd, out, n - 1, 0);
  out[got > 0 ? got : 0] = 0;
  close(fd);
  unlink(outf);
}

static void solve(const wasm_engine *e, const char *file, char *out, size_t n) { toibench("solve", e, file, out, n); }

/* The answer line for ID: class, time, target, tolerance. */
static int answer(const char *out, const char *id, char *cls, double *t, double *target, double *tol) {
  char want[80];
  snprintf(want, sizeof want, "\n%s ", id);
  char *buf = malloc(strlen(out) + 2);
  sprintf(buf, "\n%s", out);
  const char *p = strstr(buf, want);
  char ts[64] = "nan", tg[64] = "0", tl[64] = "0";
  int n = p ? sscanf(p + strlen(want), "%31s %63s %63s %63s", cls, ts, tg, tl) : 0;
  free(buf);
  *t = strtod(ts, NULL);
  *target = strtod(tg, NULL);
  *tol = strtod(tl, NULL);
  return n;
}

/* Head-on (gap 8 - 2t), a clear miss (impact parameter 5 > R = 2), an initial overlap approaching,
 * a touching start approaching (gap -t). */
static const char *known_cases(int dim) {
  static char path[64];
  snprintf(path, sizeof path, "/tmp/toiwasm-known-%d-%ld", dim, (long)getpid());
  FILE *f = fopen(path, "w");
  cr_assert_not_null(f);
  if (dim == 2)
    fputs("head-on 2 0 0 0 0 1 1 10 0 -2 0 1 1\nmiss 2 0 0 0 0 1 1 10 5 -2 0 1 1\n"
          "overlap 2 0 0 0 0 1 1 1 0 -2 0 1 1\ntouching 2 0 0 0 0 1 1 2 0 -1 0 1 1\n", f);
  else
    fputs("head-on 3 0 0 0 0 0 0 1 1 10 0 0 -2 0 0 1 1\nmiss 3 0 0 0 0 0 0 1 1 10 0 5 -2 0 0 1 1\n"
          "overlap 3 0 0 0 0 0 0 1 1 1 0 0 -2 0 0 1 1\ntouching 3 0 0 0 0 0 0 1 1 2 0 0 -1 0 0 1 1\n", f);
  fclose(f);
  return path;
}

static void check_known(const wasm_engine *e) {
  if (!engine_built(e)) cr_skip_test("%s is not built: run 'make engines' to test it", e->dir);
  const char *f = known_cases(e->dim);
  static char out[1 << 14];
  solve(e, f, out, sizeof out);
  unlink(f);
  char cls[32];
  double t, target, tol;
  /* A hit head-on where the gap 8 - 2t meets the engine's target, within its tolerance and float
   * rounding of lengths near 10. */
  cr_assert_geq(answer(out, "head-on", cls, &t, &target, &tol), 2, "%s: %s", e->solver, out);
  cr_assert_str_eq(cls, "hit", "%s", e->solver);
  cr_assert_leq(fabs(8 - 2 * t - target), tol + 1e-5, "%s: t = %.9g, target %g +- %g", e->solver, t, target, tol);
  answer(out, "miss", cls, &t, &target, &tol);
  cr_assert_str_eq(cls, "none", "%s", e->solver);
  answer(out, "overlap", cls, &t, &target, &tol);
  cr_assert_str_eq(cls, "overlap", "%s", e->solver);
  cr_assert_eq(t, 0, "%s", e->solver);
  /* Touching now: Box2D v3 aims at an overlap of linearSlop, so it advances to gap -0.005 (the start is
   * beyond target + tolerance); the others report their initial overlap at time 0. */
  answer(out, "touching", cls, &t, &target, &tol);
  if (!strcmp(e->dir, "box2d3")) {
    cr_assert_str_eq(cls, "hit", "%s", e->solver);
    cr_assert_leq(fabs(-t - target), tol + 1e-6, "%s: t = %.9g", e->solver, t);
  } else {
    cr_assert_str_eq(cls, "overlap", "%s", e->solver);
    cr_assert_eq(t, 0, "%s", e->solver);
  }
}

Test(engines_wasm, box2d3_known_answers, .timeout = 60) { check_known(&engines[0]); }
Test(engines_wasm, jolt_known_answers, .timeout = 60) { check_known(&engines[1]); }
Test(engines_wasm, physx_known_answers, .timeout = 60) { check_known(&engines[2]); }
Test(engines_wasm, rapier3d_known_answers, .timeout = 60) { check_known(&engines[3]); }

/* Every case of cases/engines/DIR.cases gets the verdict its '# ulp=... verdict=V' line recorded. */
static void check_corpus(const wasm_engine *e) {
  char path[4200];
  snprintf(path, sizeof path, "%s/cases/engines/%s.cases", TOI_SOURCE_DIR, e->dir);
  FILE *f = fopen(path, "r");
  cr_assert_not_null(f, "%s is missing", path);
  if (!engine_built(e)) {
    fclose(f);
    cr_skip_test("%s is not built: run 'make engines' to replay its corpus", e->dir);
  }
  static char out[1 << 17];
  solve(e, path, out, sizeof out);
  char line[4096], verdict[32] = "", id[128], cls[32];
  int n = 0;
  while (fgets(line, sizeof line, f)) {
    const char *v = strstr(line, " verdict=");
    if (line[0] == '#' && v) {
      sscanf(v + 9, "%31s", verdict);
      continue;
    }
    if (line[0] == '#' || sscanf(line, "%127s", id) != 1) continue;
    double t, target, tol;
    int got = answer(out, id, cls, &t, &target, &tol);
    if (!strcmp(verdict, "failed")) { /* `solve` prints no line for a case the solver failed on */
      cr_assert_eq(got, 0, "%s: %s answers %s, the corpus recorded a failure", e->solver, id, cls);
      n++;
      continue;
    }
    cr_assert_geq(got, 1, "%s: no answer for %s", e->solver, id);
    cr_assert_str_eq(cls, verdict, "%s: %s answers %s, the corpus recorded %s", e->solver, id, cls, verdict);
    n++;
  }
  fclose(f);
  cr_assert_gt(n, 0, "%s: an empty corpus", path);
}

/* The engine's own cost: the adapter times each call of the engine's routine and reports the sum on the
 * protocol's '# engine-time' line; `run` shows it beside its own time per call. Each of the four known
 * cases calls the routine once, so the two figures are per the same calls, and the engine's time lies
 * inside the bench's (which adds node's start, the WebAssembly's compilation and the protocol). */
static void check_cost(const wasm_engine *e) {
  if (!engine_built(e)) cr_skip_test("%s is not built: run 'make engines' to test it", e->dir);
  const char *f = known_cases(e->dim);
  static char out[1 << 14];
  toibench("run", e, f, out, sizeof out);
  unlink(f);
  const char *p = strstr(out, "(engine ");
  double engine = 0, bench = 0;
  cr_assert(p && sscanf(p, "(engine %lf us/call, bench %lf us/call)", &engine, &bench) == 2,
            "%s reports no cost (an adapter built before the cost report: run 'make engines'): %s", e->solver, out);
  cr_assert_gt(engine, 0, "%s", e->solver);
  cr_assert_leq(engine, bench, "%s: the engine's %g us per call exceed the bench's %g", e->solver, engine, bench);
}

Test(engines_wasm, box2d3_reports_its_cost, .timeout = 60) { check_cost(&engines[0]); }
Test(engines_wasm, jolt_reports_its_cost, .timeout = 60) { check_cost(&engines[1]); }
Test(engines_wasm, physx_reports_its_cost, .timeout = 60) { check_cost(&engines[2]); }
Test(engines_wasm, rapier3d_reports_its_cost, .timeout = 60) { check_cost(&engines[3]); }

Test(engines_wasm, box2d3_corpus_replays, .timeout = 120) { check_corpus(&engines[0]); }
Test(engines_wasm, jolt_corpus_replays, .timeout = 120) { check_corpus(&engines[1]); }
Test(engines_wasm, physx_corpus_replays, .timeout = 120) { check_corpus(&engines[2]); }
Test(engines_wasm, rapier3d_corpus_replays, .timeout = 120) { check_corpus(&engines[3]); }

/* Jolt decides at fraction 0 on one float expression (GJKClosestPoint::CastShape: `v.Dot(w) -
 * sum_convex_radius * v.Length()`, with a sphere's support its centre): |d|^2 - R |d| for d = pA - pB and
 * R = rA + rB, all in float. An approaching case is answered at fraction 0 (overlap) exactly when that is
 * <= 0, so near contact the float rounding, not the exact gap, sets the class. The expression here is
 * evaluated independently in C float (each operation rounded to float, the dot product left to right). */
static int jolt_float_not_apart(const toi_case *c) {
  float d[3];
  for (int k = 0; k < 3; k++) d[k] = (float)c->pa[k] - (float)c->pb[k];
  float dot = d[0] * d[0];
  dot = dot + d[1] * d[1];
  dot = dot + d[2] * d[2];
  float len = sqrtf(dot), R = (float)c->ra + (float)c->rb;
  float v_dot_w = dot - R * len;
  return !(v_dot_w > 0.0f);
}

Test(engines_wasm, jolt_near_contact_class_is_the_float_sign_at_fraction_0, .timeout = 120) {
  const wasm_engine *e = &engines[1];
  if (!engine_built(e)) cr_skip_test("%s is not built: run 'make engines' to test it", e->dir);
  enum { N = 4000 };
  static toi_case cases[N];
  static char out[1 << 19];
  toi_gen_opts o;
  toi_gen_opts_default_in(&o, TOI_GEN_NEAR_CONTACT, TOI_BINARY32);
  o.dim = 3;
  char path[64], line[1024];
  snprintf(path, sizeof path, "/tmp/toiwasm-jolt-nc-%ld.cases", (long)getpid());
  FILE *f = fopen(path, "w");
  cr_assert_not_null(f);
  for (int i = 0; i < N; i++) {
    size_t bin;
    cr_assert_eq(toi_gen_case(&cases[i], NULL, &bin, &o, (uint64_t)i), TOI_OK);
    cr_assert_gt(toi_format_case(line, sizeof line, &cases[i]), 0);
    fprintf(f, "%s\n", line);
  }
  fclose(f);
  solve(e, path, out, sizeof out);
  unlink(path);
  int approaching = 0, apart_at_zero = 0, inside_advanced = 0;
  for (int i = 0; i < N; i++) {
    if (!strstr(cases[i].id, "-app-")) continue;
    char cls[32];
    double t, target, tol;
    cr_assert_geq(answer(out, cases[i].id, cls, &t, &target, &tol), 1, "no answer for %s", cases[i].id);
    int at_zero = jolt_float_not_apart(&cases[i]);
    cr_assert_str_eq(cls, at_zero ? "overlap" : "hit", "%s: jolt answers %s", cases[i].id, cls);
    approaching++;
    apart_at_zero += at_zero && strstr(cases[i].id, "-gap-") != NULL;
    inside_advanced += !at_zero && strstr(cases[i].id, "-ovl-") != NULL;
  }
  /* The family reaches the float effect both ways: balls apart read as touching, overlapping as apart. */
  cr_assert_gt(approaching, N / 4);
  cr_assert_gt(apart_at_zero, 0);
  cr_assert_gt(inside_advanced, 0);
}
