/* test_sim_kernel.c: any candidate as the simulation's kernel (src/bench/sim_candidate.c, `simulate --solver...`). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli_check.h"
#include "sim_candidate.h"
#include "tmp_dir.h"
#include "toiresp.h"

/* ---- in the library ---- */

/* Every figure of two runs' reports, bit for bit. */
static void same_report(const sim_report *a, const sim_report *b) {
  cr_assert_eq(a->status, b->status, "%s / %s", a->message, b->message);
  cr_assert_eq(a->last.event, b->last.event);
  cr_assert(!memcmp(&a->time, &b->time, sizeof a->time), "time %a vs %a", a->time, b->time);
  cr_assert(!memcmp(&a->last.ke_err, &b->last.ke_err, sizeof(double)), "%a vs %a", a->last.ke_err, b->last.ke_err);
  cr_assert(!memcmp(&a->last.mom_err, &b->last.mom_err, sizeof(double)));
  cr_assert(!memcmp(&a->min_gap, &b->min_gap, sizeof(double)));
  cr_assert(!memcmp(&a->max_pen, &b->max_pen, sizeof(double)));
  cr_assert(!memcmp(&a->max_abs_ke_err, &b->max_abs_ke_err, sizeof(double)));
  cr_assert_eq(a->max_overlaps, b->max_overlaps);
  cr_assert_eq(a->missed, b->missed);
  cr_assert_eq(a->late, b->late);
  cr_assert_eq(a->predictions, b->predictions);
  cr_assert_eq(a->last.null_events, b->last.null_events);
  cr_assert_eq(a->last.cell_events, b->last.cell_events);
}

static void run_both(int dim, size_t n, uint64_t events, const sim_kernel *k1, const sim_kernel *k2) {
  sim_state st;
  cr_assert_eq(sim_generate(&st, 7, dim, n, 3), TOI_OK);
  sim_config cfg = {.restitution = 1, .events = events, .every = 250, .overlap_tol = 1e-9};
  sim_report r1, r2;
  sim_run(&r1, &st, k1, &cfg);
  sim_run(&r2, &st, k2, &cfg);
  cr_assert_eq(r1.status, SIM_OK, "%s", r1.message);
  cr_assert_eq(r1.last.event, events);
  same_report(&r1, &r2);
  sim_state_free(&st);
}

/* A formulation through the candidate interface (batched predictions, the
   bench's response) is the formulation kernel: the same run, bit for bit,
   in binary64 and binary32, 2D and 3D. */
Test(simkernel, formulation_candidate_is_formulation_kernel) {
  const char *names[] = {"ericson", "robust"};
  for (int q = 0; q < 2; q++)
    for (int f = 0; f < 2; f++)
      for (int dim = 2; dim <= 3; dim++) {
        toi_precision prec = q ? TOI_BINARY32 : TOI_BINARY64;
        const toi_formulation *form = toi_formulation_find(names[f]);
        toi_candidate c;
        if (toi_candidate_formulation_prec(&c, form, prec)) continue;
        sim_kernel kf = sim_formulation_kernel_prec(form, prec), kc;
        sim_candidate sc;
        char why[300];
        cr_assert_eq(sim_candidate_init(&sc, &kc, &c, NULL, why, sizeof why), 0, "%s", why);
        run_both(dim, 64, 3000, &kf, &kc);
        cr_assert_eq(sc.failed, 0);
        cr_assert_gt(sc.queries, 0);
        cr_assert_lt(sc.calls, sc.queries, "predictions of one event are asked in one call");
        sim_candidate_free(&sc);
      }
}

/* A candidate whose every answer is unusable (a hit with a NaN time): each
   prediction falls back to the exact reference, so the run is the reference's
   time of impact with the bench's double response and walls. */
static toi_result nan_hit(const toi_case *c) {
  (void)c;
  return (toi_result){TOI_HIT, NAN};
}

Test(simkernel, unusable_answers_fall_back_to_reference) {
  toi_candidate c;
  toi_candidate_function(&c, "nan-hit", nan_hit, TOI_FORWARD, 0);
  sim_kernel kc, kref = {"reference-toi", NULL, toi_ref_sim_pair_toi, sim_pair_respond_double, sim_wall_toi_double,
                         sim_wall_respond_double, TOI_BINARY64, NULL, NULL};
  sim_candidate sc;
  char why[300];
  cr_assert_eq(sim_candidate_init(&sc, &kc, &c, NULL, why, sizeof why), 0, "%s", why);
  run_both(2, 30, 800, &kref, &kc);
  cr_assert_gt(sc.queries, 0);
  cr_assert_eq(sc.failed, sc.queries);
  sim_candidate_free(&sc);
}

/* ---- end to end ---- */

TestSuite(simkcli, .init = td_setup, .fini = td_teardown);

static int tb(const char *args) {
  char cmd[8192];
  snprintf(cmd, sizeof cmd, "'%s' %s >out.txt 2>err.txt </dev/null", TOIBENCH_PATH, args);
  cc_job job = {td_dir, 0, {0}};
  const char *const line[] = {cmd};
  return cc_pipe(&job, 1, line);
}

/* The fields of the table row of kernel name in out.txt (up to 17: the note
   is left out), or 0 when there is none. */
static int row(const char *name, char f[17][64]) {
  char *out = td_read("out.txt");
  char key[80];
  snprintf(key, sizeof key, "\n%s ", name);
  char *at = strstr(out, key);
  int n = 0;
  if (at) {
    at++;
    char *end = strchr(at, '\n');
    if (end) *end = 0;
    for (char *save = NULL, *t = strtok_r(at, " ", &save); t && n < 17; t = strtok_r(NULL, " ", &save))
      snprintf(f[n++], 64, "%s", t);
  }
  free(out);
  return n;
}

enum { C_STATUS = 1, C_EVENTS = 2, C_OVERLAPS = 9, C_MISSED = 10, C_LATE = 11, C_QUERIES = 13, C_FAILED = 14,
       C_MAX_PEN = 15, C_EVS = 16 };

static char solver_arg[3][1200];

static const char *cmd_of(const char *args) {
  static int k;
  k = (k + 1) % 3;
  snprintf(solver_arg[k], sizeof solver_arg[k], "'%s %s'", cc_built("tests/solvers/simkern_cmd"), args);
  return solver_arg[k];
}

/* The same solver as a plug-in and as a command (both ball_toi) drive the
   same run: every column but events/s agrees, and nothing fails. */
Test(simkcli, plugin_and_command_agree) {
  char args[4096];
  snprintf(args, sizeof args, "simulate --n 16 --events 120 --every 60 --solver '%s:misbehave' --solver-cmd %s",
           cc_built("tests/solvers/misbehave_plugin.so"), cmd_of("ok"));
  cr_assert_eq(tb(args), 0);
  char a[17][64], b[17][64];
  cr_assert_eq(row("misbehave", a), 17);
  cr_assert_eq(row("simkern_cmd", b), 17);
  for (int i = 1; i < C_EVS; i++) cr_assert_str_eq(a[i], b[i], "column %d", i);
  cr_assert_str_eq(a[C_EVENTS], "120");
  cr_assert_str_eq(a[C_FAILED], "0");
  cr_assert_neq(atoi(a[C_QUERIES]), 0);
}

/* A solver that declines every case: failed == queries, and the run is the
   one the reference's times give (as a solver that answers exactly as often
   as it can does not: the counts say which answered). */
Test(simkcli, declining_solver_falls_back) {
  char args[4096];
  snprintf(args, sizeof args, "simulate --n 16 --events 120 --every 60 --solver-cmd '%s -p -'",
           cc_built("tests/solvers/decline_cmd"));
  cr_assert_eq(tb(args), 0);
  char a[17][64];
  cr_assert_eq(row("decline_cmd", a), 17);
  cr_assert_str_eq(a[C_STATUS], "ok");
  cr_assert_str_eq(a[C_EVENTS], "120");
  cr_assert_neq(atoi(a[C_QUERIES]), 0);
  cr_assert_str_eq(a[C_QUERIES], a[C_FAILED]);
  char *out = td_read("out.txt");
  cr_assert(strstr(out, " failed predictions fell back to the reference ("), "%s", out);
  free(out);
}

/* A solver that crashes on the predictions of events 50-59: the crashed
   predictions fall back, the process is started again for the rest, the run
   goes on to its end, and the exit status says a solver crashed. */
Test(simkcli, crashing_solver_restarted) {
  char args[4096];
  snprintf(args, sizeof args, "simulate --n 16 --events 120 --every 60 --solver-cmd %s", cmd_of("crash e00005"));
  cr_assert_eq(tb(args), 1);
  char a[17][64];
  cr_assert_eq(row("simkern_cmd", a), 17);
  cr_assert_str_eq(a[C_STATUS], "ok");
  cr_assert_str_eq(a[C_EVENTS], "120");
  cr_assert_gt(atoi(a[C_FAILED]), 0);
  cr_assert_lt(atoi(a[C_FAILED]), atoi(a[C_QUERIES]));
  char *err = td_read("err.txt");
  cr_assert(strstr(err, "lost to crashes, hangs or protocol errors"), "%s", err);
  free(err);
}

/* A hung solver is stopped by --timeout and the simulation goes on. */
Test(simkcli, hung_solver_stopped) {
  char args[4096];
  snprintf(args, sizeof args, "simulate --n 16 --events 80 --every 40 --timeout 0.3 --solver-cmd %s",
           cmd_of("hang e00005"));
  cr_assert_eq(tb(args), 1);
  char a[17][64];
  cr_assert_eq(row("simkern_cmd", a), 17);
  cr_assert_str_eq(a[C_EVENTS], "80");
  cr_assert_gt(atoi(a[C_FAILED]), 0);
}

/* A solver answering every hit 1e-3 late makes pairs penetrate; stating a
   tolerance of 10 (target 0) makes the same run count no overlap, as the
   contract allows those: every other column stays. */
Test(simkcli, contract_tolerance_judges_overlaps) {
  char args[4096];
  snprintf(args, sizeof args, "simulate --n 16 --events 120 --every 10 --solver-cmd %s", cmd_of("late 1e-3"));
  cr_assert_eq(tb(args), 0);
  char a[17][64], b[17][64];
  cr_assert_eq(row("simkern_cmd", a), 17);
  snprintf(args, sizeof args, "simulate --n 16 --events 120 --every 10 --solver-cmd %s", cmd_of("late 1e-3 10"));
  cr_assert_eq(tb(args), 0);
  cr_assert_eq(row("simkern_cmd", b), 17);
  cr_assert_gt(atoi(a[C_OVERLAPS]), 0);
  cr_assert_gt(strtod(a[C_MAX_PEN], NULL), 0);
  cr_assert_str_eq(b[C_OVERLAPS], "0");
  cr_assert_str_eq(b[C_MISSED], "0");
  cr_assert_str_eq(b[C_LATE], "0");
  for (int i = 1; i < C_EVS; i++)
    if (i < C_OVERLAPS || i > C_LATE) cr_assert_str_eq(a[i], b[i], "column %d", i);
}

/* Refused before any work: a 2D-only solver in a 3D scene, an engine that is
   not built. Nothing is written. */
Test(simkcli, refused_before_any_work) {
  char args[4096];
  snprintf(args, sizeof args, "simulate --n 8 --dim 3 --events 10 --series s.txt --solver-cmd %s", cmd_of("planar"));
  cr_assert_eq(tb(args), 2);
  char *err = td_read("err.txt"), *out = td_read("out.txt");
  cr_assert(strstr(err, "'simkern_cmd' declines a 3D case off the plane z = 0 (a 2D-only solver)"), "%s", err);
  cr_assert_str_eq(out, "");
  cr_assert(!td_exists(td_path("s.txt")));
  free(err);
  free(out);
  /* the same solver takes a 2D scene */
  snprintf(args, sizeof args, "simulate --n 8 --dim 2 --events 10 --solver-cmd %s", cmd_of("planar"));
  cr_assert_eq(tb(args), 0);
  cr_assert_eq(tb("simulate -f no-such-engine-castshape --n 8 --events 10 --series s.txt"), 2);
  err = td_read("err.txt");
  cr_assert(strstr(err, "unknown kernel 'no-such-engine-castshape'") && strstr(err, "make engines"), "%s", err);
  cr_assert(!td_exists(td_path("s.txt")));
  free(err);
}

/* --format csv: the table's figures, and the counts per 10^6 events
   computed from them; a format that does not exist is refused, no output. */
Test(simkcli, csv_summary_per_million_events) {
  char args[4096];
  snprintf(args, sizeof args, "simulate --n 16 --events 120 --every 10 --solver-cmd %s", cmd_of("late 1e-3"));
  cr_assert_eq(tb(args), 0);
  char a[17][64];
  cr_assert_eq(row("simkern_cmd", a), 17);
  cr_assert_gt(atoi(a[C_OVERLAPS]), 0);
  snprintf(args, sizeof args, "simulate --n 16 --events 120 --every 10 --format csv --solver-cmd %s",
           cmd_of("late 1e-3"));
  cr_assert_eq(tb(args), 0);
  char *out = td_read("out.txt");
  cr_assert(!strncmp(out, "kernel,status,events,", 21), "%.200s", out);
  char *line = strstr(out, "\nsimkern_cmd,");
  cr_assert(line, "%.400s", out);
  char f[20][64];
  int n = 0;
  for (char *p = line + 1; n < 20 && *p && *p != '\n'; n++) {
    size_t k = strcspn(p, ",\n");
    snprintf(f[n], sizeof f[n], "%.*s", (int)(k < 63 ? k : 63), p);
    p += k;
    if (*p == ',') p++;
  }
  cr_assert_eq(n, 20);
  cr_assert_str_eq(f[2], a[C_EVENTS]);
  cr_assert_str_eq(f[9], a[C_OVERLAPS]);
  cr_assert_str_eq(f[10], a[C_MISSED]);
  cr_assert_str_eq(f[13], a[C_QUERIES]);
  double ev = strtod(a[C_EVENTS], NULL);
  cr_assert_eq(strtod(f[16], NULL), strtod(a[C_OVERLAPS], NULL) * (1e6 / ev));
  cr_assert_eq(strtod(f[17], NULL), strtod(a[C_MISSED], NULL) * (1e6 / ev));
  free(out);
  cr_assert_eq(tb("simulate -f ericson --events 10 --format xml"), 2);
  out = td_read("out.txt");
  cr_assert_str_eq(out, "");
  free(out);
  char *err = td_read("err.txt");
  cr_assert(strstr(err, "--format wants table or csv, got 'xml'"), "%s", err);
  free(err);
}

/* ---- --record ---- */

static size_t count_lines_not_comments(const char *text) {
  size_t n = 0;
  for (const char *p = text; *p;) {
    if (*p != '#') n++;
    const char *e = strchr(p, '\n');
    if (!e) break;
    p = e + 1;
  }
  return n;
}

/* Every prediction is recorded (as many cases as the queries column says),
   the file is a case file `reference` accepts, IDs say scene, kernel, event
   and pair, and a second run writes the same bytes. */
Test(simkcli, record_every_prediction_reproducibly) {
  cr_assert_eq(tb("simulate -f reference,ericson --n 12 --events 150 --every 50 --record r1.cases"), 0);
  char a[17][64], b[17][64];
  cr_assert_eq(row("reference", a), 17);
  cr_assert_eq(row("ericson", b), 17);
  cr_assert_eq(tb("simulate -f reference,ericson --n 12 --events 150 --every 50 --record r2.cases"), 0);
  size_t n1, n2;
  char *r1 = cc_slurp(td_path("r1.cases"), &n1), *r2 = cc_slurp(td_path("r2.cases"), &n2);
  cr_assert_eq(n1, n2);
  cr_assert(!memcmp(r1, r2, n1), "a second run records other bytes");
  cr_assert_eq(count_lines_not_comments(r1), (size_t)(atoll(a[C_QUERIES]) + atoll(b[C_QUERIES])));
  cr_assert(strstr(r1, "\nsim-reference-e000000-p0000-"), "%.300s", r1);
  cr_assert(strstr(r1, "\nsim-ericson-e000"), "%.300s", r1);
  free(r1);
  free(r2);
  cr_assert_eq(tb("reference r1.cases"), 0);
  char *out = td_read("out.txt");
  cr_assert(strstr(out, "sim-ericson-e000000-p0000-"), "%.300s", out);
  free(out);
}

/* A binary32 kernel's predictions are recorded in its precision: every
   number of the file is a float. */
Test(simkcli, record_in_the_kernels_precision) {
  cr_assert_eq(tb("simulate -f ericson --precision binary32 --n 10 --events 60 --record r.cases"), 0);
  toi_caselist l;
  toi_diags dg;
  memset(&dg, 0, sizeof dg);
  cr_assert_eq(toi_read_cases(&l, td_path("r.cases"), &dg), TOI_OK);
  cr_assert_gt(l.count, 0);
  for (size_t i = 0; i < l.count; i++) {
    const toi_case *c = &l.items[i];
    const double x[] = {c->pa[0], c->pa[1], c->va[0], c->va[1], c->pb[0], c->pb[1], c->vb[0], c->vb[1], c->ra, c->rb};
    for (size_t k = 0; k < sizeof x / sizeof *x; k++) cr_assert_eq(x[k], (double)(float)x[k], "%s: %a", c->id, x[k]);
  }
  toi_caselist_free(&l);
}

/* ---- --scene ---- */

Test(simkcli, scenes_listed_checked_and_overridden) {
  cr_assert_eq(tb("simulate --help"), 0);
  char *out = td_read("out.txt");
  const char *names[] = {"billiards", "gas", "dense", "bullet", "polydisperse"};
  for (int i = 0; i < 5; i++) {
    char key[64];
    snprintf(key, sizeof key, "\n  %-13s ", names[i]);
    cr_assert(strstr(out, key), "--help does not describe scene %s", names[i]);
  }
  free(out);
  cr_assert_eq(tb("simulate --scene billiard -f ericson"), 2);
  char *err = td_read("err.txt");
  cr_assert(strstr(err, "unknown scene 'billiard'") && strstr(err, "did you mean 'billiards'?"), "%s", err);
  free(err);
  cr_assert_eq(tb("simulate --scene billiards --dim 3 -f ericson"), 2);
  cr_assert_eq(tb("simulate --scene bullet --n 5 -f ericson"), 2);
  td_put("st.txt", "box 2 10 10\nball 5 5 1 0 1 1\n");
  cr_assert_eq(tb("simulate --scene gas --state st.txt -f ericson"), 2);
  /* a generated scene's size by default, and --n over it */
  cr_assert_eq(tb("simulate --scene gas -f ericson --events 10"), 0);
  out = td_read("out.txt");
  cr_assert(strstr(out, "# toibench simulate: dim 2, 10000 balls,") && strstr(out, "scene gas"), "%.300s", out);
  free(out);
  cr_assert_eq(tb("simulate --scene dense --dim 3 --n 30 -f ericson --events 10"), 0);
  out = td_read("out.txt");
  cr_assert(strstr(out, "# toibench simulate: dim 3, 30 balls,"), "%.300s", out);
  free(out);
}

/* The billiards break as built: 16 balls, 15 at rest racked 2 + 1e-6 apart
   (centre to centre, each with a neighbour at that distance), one cue ball
   at speed 100 along x; a valid state (read back by --state). */
Test(simkcli, billiards_rack) {
  cr_assert_eq(tb("simulate --scene billiards -f ericson --events 1 --write-state b.state"), 0);
  sim_state st;
  toi_diags dg;
  memset(&dg, 0, sizeof dg);
  cr_assert_eq(sim_state_read(&st, td_path("b.state"), &dg), TOI_OK);
  cr_assert_eq(st.n, 16);
  cr_assert_eq(st.dim, 2);
  int moving = 0;
  for (size_t i = 0; i < st.n; i++) {
    if (st.balls[i].v[0] != 0 || st.balls[i].v[1] != 0) {
      moving++;
      cr_assert_eq(st.balls[i].v[0], 100);
      cr_assert_eq(st.balls[i].v[1], 0);
      continue;
    }
    double best = INFINITY;
    for (size_t j = 0; j < st.n; j++) {
      if (j == i || st.balls[j].v[0] != 0) continue;
      double dx = st.balls[j].p[0] - st.balls[i].p[0], dy = st.balls[j].p[1] - st.balls[i].p[1];
      double d = sqrt(dx * dx + dy * dy);
      if (d < best) best = d;
    }
    cr_assert(fabs(best - (2 + 1e-6)) < 1e-12, "ball %zu: nearest at %.17g", i, best);
  }
  cr_assert_eq(moving, 1);
  sim_state_free(&st);
  cr_assert_eq(tb("simulate -f ericson --state b.state --events 200"), 0);
}

/* The committed scene corpora are what their command records: byte for byte. */
Test(simkcli, scene_corpora_reproduce) {
  cr_assert_eq(tb("simulate --scene dense -f reference --events 20000 --record d.cases --record-max 5000"), 0);
  size_t n1, n2;
  char *a = cc_slurp(td_path("d.cases"), &n1), *b = cc_slurp(TOI_SOURCE_DIR "/cases/scenes/dense.cases", &n2);
  cr_assert_eq(n1, n2);
  cr_assert(!memcmp(a, b, n1), "cases/scenes/dense.cases is not what its command records");
  cr_assert_eq(count_lines_not_comments(a), 5000);
  free(a);
  free(b);
}

/* The 3D scene corpora too: each is what its command (cases/README.md)
   records, byte for byte, 5000 predictions of a 3D state. */
Test(simkcli, scene_corpora_3d_reproduce) {
  static const char *const scenes[] = {"dense", "bullet", "gas", "polydisperse"};
  for (size_t i = 0; i < sizeof scenes / sizeof *scenes; i++) {
    char cmd[256], path[256];
    snprintf(cmd, sizeof cmd,
             "simulate --scene %s --dim 3 -f reference --events 20000 --record r3.cases --record-max 5000", scenes[i]);
    cr_assert_eq(tb(cmd), 0, "%s", cmd);
    snprintf(path, sizeof path, TOI_SOURCE_DIR "/cases/scenes/%s-3d.cases", scenes[i]);
    size_t n1 = 0, n2 = 0;
    char *a = cc_slurp(td_path("r3.cases"), &n1), *b = cc_slurp(path, &n2);
    cr_assert(a && b, "%s", path);
    cr_assert_eq(n1, n2, "%s: %zu bytes recorded, %zu committed", path, n1, n2);
    cr_assert(!memcmp(a, b, n1), "%s is not what its command records", path);
    cr_assert_eq(count_lines_not_comments(a), 5000);
    /* Every case is 3D: the dimension field after the ID. */
    const char *line = strstr(a, "\n") + 1;
    while (*line == '#') line = strchr(line, '\n') + 1;
    const char *sp = strchr(line, ' ');
    cr_assert(sp && sp[1] == '3' && sp[2] == ' ', "%s: first case is not 3D", path);
    free(a);
    free(b);
  }
}

/* Memory does not grow with the events: a run 20 times longer, recording
   every prediction, peaks within 2 MB of the short one. */
Test(simkcli, memory_constant_in_events) {
  long short_kb = 0, long_kb = 0;
  cr_assert_eq(td_tb_rss("simulate -f ericson --n 60 --events 2000 --record a.cases", &short_kb), 0);
  cr_assert_eq(td_tb_rss("simulate -f ericson --n 60 --events 40000 --record b.cases", &long_kb), 0);
  cr_assert_lt(long_kb, short_kb + 2048, "%ld KiB vs %ld KiB", long_kb, short_kb);
}
