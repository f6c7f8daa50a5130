/* bench_solverpath.c: the external solver path's cost per case over the same kernel built in, and the node engines' bench time against their own. */
/*
 * Usage: bench_solverpath BUILD_DIR [--count N] [--block B] [--runs R] [--engine-calls K]
 * The example kernel (examples/solver_c/ball_toi.h) is called four ways on the same N generated cases, in
 * calls of B cases (a run's block for one external solver is 4096): built in (a function candidate), as the
 * example plug-in (BUILD_DIR/examples/example_plugin.so, in a child process), as the example command in the
 * binary protocol and in text (BUILD_DIR/examples/solver_c, with --text). Wall clock (the work is in child
 * processes), the median of R runs: a plug-in's child and a binary command's process are started once (each
 * serves every call). Then every built engine that is a node script: one call of B cases not counted (it
 * starts the process and loads the engine), then K calls of B cases, the bench's time per call (the whole
 * call) against the time the engine reported for its own routine over the same call's cases; the row shows
 * the call of the median ratio.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "../examples/solver_c/ball_toi.h"
#include "toibench.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The example's kernel as a built-in candidate. */
static toi_result kernel(const toi_case *c) {
  double t;
  int cls = ball_toi(c->pa, c->va, c->ra, c->pb, c->vb, c->rb, INFINITY, &t);
  return (toi_result){(toi_class)cls, t};
}

static void to_stderr(void *ud, const char *text) {
  (void)ud;
  fprintf(stderr, "  %s\n", text);
}

static const toi_msg msg = {to_stderr, NULL};

/* Seconds per case of candidate c on cases in calls of block (NAN when a call failed). */
static double per_case(const toi_candidate *c, const toi_case *cases, size_t n, size_t block, toi_answer *ans) {
  toi_solve_opts o = {INFINITY, 10, NULL, &msg};
  double t0 = now();
  for (size_t at = 0; at < n; at += block) {
    toi_run_info info;
    size_t k = n - at < block ? n - at : block;
    if (toi_candidate_run(c, cases + at, k, &o, ans + at, &info) || info.malfunctions) return NAN;
  }
  return (now() - t0) / (double)n;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: bench_solverpath BUILD_DIR [--count N] [--block B] [--runs R] [--engine-calls K]\n");
    return 2;
  }
  const char *dir = argv[1];
  size_t n = 200000, block = 4096;
  int runs = 5, ecalls = 3;
  for (int i = 2; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--count")) n = strtoull(argv[i + 1], NULL, 10);
    else if (!strcmp(argv[i], "--block")) block = strtoull(argv[i + 1], NULL, 10);
    else if (!strcmp(argv[i], "--runs")) runs = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--engine-calls")) ecalls = atoi(argv[i + 1]);
  }
  if (n < 1 || block < 1 || runs < 1 || runs > 99 || ecalls < 1 || ecalls > 99) return 2;
  toi_case *cases = malloc(n * sizeof *cases);
  toi_answer *ans = malloc(n * sizeof *ans);
  size_t *bins = malloc(n * sizeof *bins);
  toi_gen_opts g;
  toi_gen_opts_default(&g, TOI_GEN_GENERIC);
  if (!cases || !ans || !bins || toi_gen_cases(cases, bins, &g, 0, n, 0) != TOI_OK) return 1;
  for (size_t i = 0; i < n; i++) snprintf(cases[i].id, sizeof cases[i].id, "g%zu", i);

  char plug[4300], cmd[4300], text[4300];
  snprintf(plug, sizeof plug, "%s/examples/example_plugin.so", dir);
  snprintf(cmd, sizeof cmd, "'%s/examples/solver_c'", dir);
  snprintf(text, sizeof text, "'%s/examples/solver_c' --text", dir);
  toi_candidate c[4], *pv = NULL;
  size_t np = 0;
  toi_candidate_function(&c[0], "built-in", kernel, TOI_FORWARD, ~0u);
  if (toi_candidates_plugin(&pv, &np, plug, &msg, NULL, 0) != TOI_OK || np < 1) return 1;
  c[1] = pv[0];
  if (toi_candidate_command(&c[2], cmd) || toi_candidate_command(&c[3], text)) return 1;
  static const char *names[] = {"built in (function)", "C plug-in", "C command, binary", "C command, text"};
  static const char *goals[] = {"(baseline)", "goal <= +0.5 us", "goal <= +1 us", "(the text protocol)"};
  double t[4][99];
  for (int r = 0; r < runs; r++)
    for (int k = 0; k < 4; k++) t[k][r] = per_case(&c[k], cases, n, block, ans);
  double med[4];
  for (int k = 0; k < 4; k++) med[k] = median(t[k], runs) * 1e6;
  printf("  %-22s %10s %12s  %s\n", "path", "us/case", "over built-in", "");
  for (int k = 0; k < 4; k++) {
    char over[32] = "-";
    if (k) snprintf(over, sizeof over, "%+.3g us", med[k] - med[0]);
    printf("  %-22s %10.3g %12s  %s\n", names[k], med[k], over, goals[k]);
  }
  printf("  (%zu generic 3D cases in calls of %zu, the median of %d runs, wall clock)\n", n, block, runs);

  /* The node engines: bench time per call against their own, on aimed 2D cases (every node engine takes
     them; the 3D ones in the plane z = 0). */
  toi_candidate *ev = NULL;
  size_t ne = 0, shown = 0;
  if (toi_candidates_engines(&ev, &ne, &msg) != TOI_OK) ne = 0;
  size_t en = block * (size_t)(ecalls + 1);
  toi_case *ecases = malloc(en * sizeof *ecases);
  toi_answer *eans = malloc(en * sizeof *eans);
  size_t *ebins = malloc(en * sizeof *ebins);
  toi_gen_opts_default(&g, TOI_GEN_AIMED);
  g.dim = 2;
  if (!ecases || !eans || !ebins || toi_gen_cases(ecases, ebins, &g, 0, en, 0) != TOI_OK) return 1;
  for (size_t i = 0; i < en; i++) snprintf(ecases[i].id, sizeof ecases[i].id, "a%zu", i);
  printf("\n");
  for (size_t e = 0; e < ne; e++) {
    if (!strstr(ev[e].source, ".js")) continue; /* a node script */
    if (!shown++)
      printf("  %-26s %14s %14s %8s  %s\n", "node engine", "own us/call", "bench us/call", "ratio",
             "goal <= 2 x own, or own + 2 us");
    toi_solve_opts o = {INFINITY, 30, NULL, &msg};
    double own[99], bench[99], ratio[99];
    /* A first call, not counted, starts the process and loads the engine (and warms its JIT); then each
       call's two figures come from the same batch: the bench's whole call and the engine's own time over
       that call's cases. */
    toi_run_info info;
    int ok = !toi_candidate_run(&ev[e], ecases, block, &o, eans, &info);
    for (int k = 0; k < ecalls && ok; k++) {
      size_t at = (size_t)(k + 1) * block;
      ok = !toi_candidate_run(&ev[e], ecases + at, block, &o, eans + at, &info) && info.engine_calls;
      own[k] = ok ? 1e-3 * (double)info.engine_ns / (double)info.engine_calls : NAN;
      bench[k] = ok ? 1e-3 * (double)info.bench_ns / (double)info.bench_calls : NAN;
      ratio[k] = bench[k] / own[k];
    }
    if (!ok) {
      printf("  %-26s (no engine time reported)\n", ev[e].name);
      continue;
    }
    /* The call of the median ratio: its own and bench figures, one batch. */
    double sorted[99];
    memcpy(sorted, ratio, (size_t)ecalls * sizeof *ratio);
    double mr = median(sorted, ecalls);
    int mid = 0;
    for (int k = 1; k < ecalls; k++)
      if (fabs(ratio[k] - mr) < fabs(ratio[mid] - mr)) mid = k;
    double mo = own[mid], mb = bench[mid];
    mr = ratio[mid];
    int met = mb <= fmax(2 * mo, mo + 2);
    printf("  %-26s %14.3g %14.3g %8.3g  %s\n", ev[e].name, mo, mb, mr, met ? "met" : "NOT met");
  }
  if (!shown) printf("  (no node engine is built: `make engines` builds them)\n");
  else
    printf("  (%d calls of %zu aimed 2D cases each after one not counted that starts the process, in binary: one\n"
           "   process serves them all; own and bench per call of the same call, the one of the median ratio)\n",
           ecalls, block);
  for (size_t e = 0; e < ne; e++) toi_candidate_free(&ev[e]);
  free(ev);
  for (int k = 2; k < 4; k++) toi_candidate_free(&c[k]);
  toi_candidate_free(&pv[0]);
  free(pv);
  free(cases);
  free(ans);
  free(ecases);
  free(eans);
  free(bins);
  free(ebins);
  return 0;
}
