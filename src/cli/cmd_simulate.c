/* cmd_simulate.c: `toibench simulate`, the event-driven many-ball audit, kernels side by side. */
#include <inttypes.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cli.h"
#include "cli_outcheck.h"
#include "sim.h"

/* Memory grows with N (a few hundred bytes a ball for the state, the grid and
   the event heap: about 360 MB measured at 10^6 balls): beyond this a run
   wants tens of GB, which is a typing slip rather than an experiment. */
#define SIM_MAX_BALLS 10000000ULL

static void help_formats(void);

static void help(void) {
  printf(
      "Usage: toibench simulate [-f NAME,...|reference] [--n N] [--events M] [--seed S]\n"
      "                         [--dim 2|3] [--every K] [--state FILE] [--series FILE] [options]\n"
      "Event-driven simulation of N balls in a box with elastic walls (document 001 section 5):\n"
      "the earliest contact among all pairs and walls is found, everything advances to it, it\n"
      "is resolved, and only what involves the balls that changed is recomputed (document 003).\n"
      "Events wait in a binary heap with per-ball change counters; a grid of cells one\n"
      "diameter wide (document 001 section 3; levels of cells for mixed sizes) limits\n"
      "predictions to neighbouring cells, so an event costs O(log N). Every kernel runs from\n"
      "the same initial state, one after another.\n"
      "\n"
      "Kernels (-f, comma-separated; default: all forward formulations):\n"
      "  NAME       a built-in forward formulation ('toibench list'): its time of impact, then\n"
      "             the double response (move to T, normal, impulse, only when approaching);\n"
      "             walls in double: ((wall -+ r) - x)/v\n"
      "  reference  the certified kernel: exact class and RN(t*), the response computed exactly\n"
      "             at t* and rounded to double once; walls exact. Slow: use fewer events\n"
      "  all        every forward formulation\n"
      "\n"
      "Initial state:\n"
      "  --state FILE      read it (format below); otherwise generate it from:\n"
      "  --n N             balls (default 100, at most 10^7: memory grows by a few\n"
      "                    hundred bytes a ball)\n"
      "  --dim 2|3         (default 2)\n"
      "  --seed S          (default 1)\n"
      "  --spacing H       lattice spacing, > 2 HI (default 4 HI): ceil(N^(1/dim)) sites per\n"
      "                    axis, box side = sites * H; masses in [0.5, 2], velocity\n"
      "                    components in [-1, 1], balls jittered in distinct sites\n"
      "  --radius LO:HI    radii in [LO, HI], 0 < LO <= HI (default 0.5:1)\n"
      "  --radius-dist D   how radii are drawn (default uniform):\n"
      "                      uniform           uniform in [LO, HI]\n"
      "                      loguniform        every double of [LO, HI] equally likely, so\n"
      "                                        each factor of 2 holds as many balls\n"
      "                      bimodal:F:BIG     a fraction F in (0, 1) of the balls (at least\n"
      "                                        one) of radius BIG, placed first, apart, on a\n"
      "                                        coarser lattice; the rest uniform in [LO, HI];\n"
      "                                        the box grows to hold them\n"
      "  --write-state FILE  write the initial state (hex floats) and go on\n"
      "Precision:\n"
      "  --precision P     binary64 (default) or binary32. binary32: the initial state is\n"
      "                    rounded to float (every kernel, reference included, starts from\n"
      "                    it); each formulation kernel is its binary32 variant and stores\n"
      "                    centres and velocities as floats: a pair's case is built by\n"
      "                    advancing the float centres in float (p + v dt, dt = t - tr\n"
      "                    rounded to float; the schedule's absolute times stay double),\n"
      "                    the time of impact, the response (move to T, normal, impulse,\n"
      "                    velocities) and the walls are computed in float. 'reference'\n"
      "                    stays exact. Energy and momentum are measured exactly as in\n"
      "                    binary64, so drift/1e6 compares a float engine with a double one\n"
      "Run:\n"
      "  --events M        physical events per kernel: contacts with an impulse, and wall\n"
      "                    bounces (default 100000); cell crossings and null contacts (predicted\n"
      "                    but not approaching: nothing changes) are counted apart\n"
      "  --every K         sample every K events (default 1000)\n"
      "  --same-instant L  most events at one instant before the run is stopped as a state that\n"
      "                    does not advance (document 001's warning; default 10 N + 1000)\n"
      "  --overlap-tol X   a pair overlaps when (|d| - R)/R < -X (default 1e-9; the absolute time\n"
      "                    grows, so the state carries errors of order ulp(t) |v|)\n"
      "  --series FILE     the time series (below)\n"
      "  --grid auto|uniform  cells for finding neighbours (default auto): uniform is one\n"
      "                    grid of cells one largest diameter wide; auto uses levels of\n"
      "                    cells doubling in size when a few big balls would make that\n"
      "                    grid slow, each ball in the level of its size. Both find the\n"
      "                    same events; with levels, a pair is predicted from the moment it\n"
      "                    comes into a neighbourhood, so times can differ in the last bits.\n"
      "                    uniform gives the results of earlier versions bit for bit\n"
      "\n"
      );
  help_formats();
}

/* The second half of the help: the series, the summary and the state files. */
static void help_formats(void) {
  printf(
      "Series (text, '# toibench-series v1', one block per kernel, blocks separated by two\n"
      "blank lines for gnuplot's 'index'); columns:\n"
      "  event time ke_err mom_err min_gap overlaps missed late pair_events wall_events\n"
      "  cell_events null_events\n"
      "  ke_err    (KE - KE0)/KE0, sums in double-double (exact to ~1e-30)\n"
      "  mom_err   |sum over pair contacts of (P' - P)| / sum_i m_i |v_i(0)|: the walls change\n"
      "            momentum by design, so momentum is audited across ball-ball contacts only\n"
      "  min_gap   smallest (|d| - R)/R over neighbouring pairs at the sample, in double\n"
      "  overlaps  pairs overlapping beyond --overlap-tol at the sample\n"
      "  missed    of those, pairs that were apart when their current paths began and have no\n"
      "            pending contact event: a collision the kernel never predicted\n"
      "  late      of those, pairs whose predicted contact is still pending (predicted late)\n"
      "Same seed, state and kernel give a byte-identical series. Wall-clock rates are not in\n"
      "the series (they are the only non-reproducible figures): they are printed in the summary.\n"
      "\n"
      "Summary (stdout), one row per kernel: status, events, simulated time, final ke_err,\n"
      "drift per 1e6 events (final ke_err * 1e6 / events), max |ke_err| over the samples,\n"
      "final mom_err, smallest gap, most overlaps in a sample, missed and late (summed over\n"
      "samples), null contacts, events/s (wall clock), then a note when there is one to make.\n"
      "Status: ok (ran its events), idle (no event was pending before the events asked for:\n"
      "every ball at rest, or too slow to reach a wall in finite time; note 'no event was\n"
      "possible'), or why the kernel stopped (nan, zeno, failed, out-of-memory).\n"
      "A figure that has no finite value is printed 'nan' with the reason in the note:\n"
      "momenta or kinetic energy beyond DBL_MAX (velocities near 1e308, or 1e154 for\n"
      "the energy) leave mom_err or ke_err without meaning.\n"
      "\n"
      "State files ('# toibench-state v1'): read whole, at most 1073741824 bytes (1 GiB; a\n"
      "larger file is refused unread); '#' comments, blank lines ignored, numbers\n"
      "decimal or hex floats:\n"
      "  box DIM L1 L2 [L3]               the box [0,L1] x [0,L2] (x [0,L3]), first\n"
      "  ball X Y [Z] VX VY [VZ] R M       one line per ball, inside the box, not overlapping\n"
      "R and M must be > 0. Unlike case files, R = 0 is refused: gaps are measured relative\n"
      "to ra + rb, and two point balls touch only with coincident centres, where a contact\n"
      "has no normal to resolve it along.\n"
      "\n"
      "Exit status: 0 when every kernel ran its events or was idle; 1 when a kernel stopped on a\n"
      "pathological state (NaN time, too many events at one instant: the event number is\n"
      "printed); 2 usage; 3 invalid state file.\n");
}

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct series_ctx {
  FILE *f;
} series_ctx;

/* printf writes a NaN with its sign bit as "-nan"; the sign of a NaN means
   nothing here, so every NaN is printed "nan". */
static double unsigned_nan(double x) { return isnan(x) ? NAN : x; }

static int write_sample(void *ctx, const sim_sample *s) {
  series_ctx *c = ctx;
  if (!c->f) return 0;
  fprintf(c->f,
          "%" PRIu64 " %.17g %.17g %.17g %.17g %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
          " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
          s->event, unsigned_nan(s->time), unsigned_nan(s->ke_err), unsigned_nan(s->mom_err),
          unsigned_nan(s->min_gap), s->overlaps, s->missed, s->late,
          s->pair_events, s->wall_events, s->cell_events, s->null_events);
  return ferror(c->f) ? 1 : 0;
}

static int parse_count(const char *cmd, const char *opt, const char *s, unsigned long long lo,
                       unsigned long long hi, unsigned long long *out) {
  if (cli_parse_u64(s, out) || *out < lo || *out > hi)
    return cli_usage_error(cmd, "%s wants an integer in [%llu, %llu], got '%s'", opt, lo, hi, s);
  return 0;
}

typedef struct simulate_opts {
  const char *names, *state_path, *series_path, *write_path, *spacing_arg;
  unsigned long long n, events, seed, dim, every, same;
  double spacing, tol;
  int spacing_set, radii_set, uniform_grid;
  sim_radii radii;
  toi_precision precision;
} simulate_opts;

/* --radius LO:HI */
static int radius_option(simulate_opts *o, const char *v) {
  char lo[64], *colon = strchr(v, ':');
  size_t nl = colon ? (size_t)(colon - v) : 0;
  if (!colon || nl >= sizeof lo)
    return cli_usage_error("simulate", "--radius wants LO:HI, got '%s'", v);
  memcpy(lo, v, nl);
  lo[nl] = 0;
  if (cli_parse_double(lo, &o->radii.lo) || cli_parse_double(colon + 1, &o->radii.hi) ||
      !(o->radii.lo > 0) || !(o->radii.lo <= o->radii.hi) || !isfinite(o->radii.hi))
    return cli_usage_error("simulate", "--radius wants LO:HI with 0 < LO <= HI, finite, got '%s'", v);
  o->radii_set = 1;
  return 0;
}

/* --radius-dist uniform|loguniform|bimodal:F:BIG */
static int radius_dist_option(simulate_opts *o, const char *v) {
  o->radii_set = 1;
  if (!strcmp(v, "uniform")) o->radii.dist = SIM_RADIUS_UNIFORM;
  else if (!strcmp(v, "loguniform")) o->radii.dist = SIM_RADIUS_LOGUNIFORM;
  else if (!strncmp(v, "bimodal:", 8)) {
    char f[64];
    const char *colon = strchr(v + 8, ':');
    size_t nf = colon ? (size_t)(colon - (v + 8)) : 0;
    if (!colon || nf >= sizeof f) return cli_usage_error("simulate", "--radius-dist bimodal wants bimodal:F:BIG, got '%s'", v);
    memcpy(f, v + 8, nf);
    f[nf] = 0;
    o->radii.dist = SIM_RADIUS_BIMODAL;
    if (cli_parse_double(f, &o->radii.big_fraction) || cli_parse_double(colon + 1, &o->radii.big) ||
        !(o->radii.big_fraction > 0 && o->radii.big_fraction < 1) || !(o->radii.big > 0) ||
        !isfinite(o->radii.big))
      return cli_usage_error("simulate", "--radius-dist bimodal:F:BIG wants 0 < F < 1 and BIG > 0, got '%s'", v);
  } else
    return cli_usage_error("simulate", "--radius-dist wants uniform, loguniform or bimodal:F:BIG, got '%s'", v);
  return 0;
}

/* The value of option a; 0, or the exit status of a usage error. */
static int simulate_option(simulate_opts *o, const char *a, const char *v) {
  if (!strcmp(a, "-f")) {
    if (cli_check_names("simulate", v) != EXIT_OK) return EXIT_USAGE;
    o->names = v;
  } else if (!strcmp(a, "--n")) {
    if (cli_parse_u64(v, &o->n) || o->n < 1)
      return cli_usage_error("simulate", "--n wants a number of balls >= 1, got '%s'", v);
    if (o->n > SIM_MAX_BALLS)
      return cli_usage_error("simulate", "--n %s is above the limit of %llu balls (10^7)", v, SIM_MAX_BALLS);
  }
  else if (!strcmp(a, "--events")) return parse_count("simulate", a, v, 0, UINT64_MAX / 2, &o->events);
  else if (!strcmp(a, "--seed")) return parse_count("simulate", a, v, 0, UINT64_MAX, &o->seed);
  else if (!strcmp(a, "--dim")) return parse_count("simulate", a, v, 2, 3, &o->dim);
  else if (!strcmp(a, "--every")) return parse_count("simulate", a, v, 1, UINT64_MAX, &o->every);
  else if (!strcmp(a, "--same-instant")) return parse_count("simulate", a, v, 1, UINT64_MAX, &o->same);
  else if (!strcmp(a, "--precision")) return cli_parse_precision("simulate", a, v, &o->precision);
  else if (!strcmp(a, "--state")) o->state_path = v;
  else if (!strcmp(a, "--series")) o->series_path = v;
  else if (!strcmp(a, "--write-state")) o->write_path = v;
  else if (!strcmp(a, "--spacing")) {
    if (cli_parse_double(v, &o->spacing) || !(o->spacing > 0) || o->spacing > 1e100)
      return cli_usage_error("simulate", "--spacing wants a number > 2, got '%s'", v);
    o->spacing_set = 1;
    o->spacing_arg = v;
  } else if (!strcmp(a, "--radius")) return radius_option(o, v);
  else if (!strcmp(a, "--radius-dist")) return radius_dist_option(o, v);
  else if (!strcmp(a, "--grid")) {
    if (strcmp(v, "auto") && strcmp(v, "uniform"))
      return cli_usage_error("simulate", "--grid wants auto or uniform, got '%s'", v);
    o->uniform_grid = !strcmp(v, "uniform");
  } else if (!strcmp(a, "--overlap-tol")) {
    if (cli_parse_double(v, &o->tol) || !(o->tol >= 0) || !isfinite(o->tol))
      return cli_usage_error("simulate", "--overlap-tol wants a finite number >= 0, got '%s'", v);
  } else
    return cli_unknown_option("simulate", a);
  return 0;
}

/* -1 to go on, or the exit status (after the help or a usage error). */
static int simulate_options(int argc, char **argv, simulate_opts *o) {
  *o = (simulate_opts){.n = 100, .events = 100000, .seed = 1, .dim = 2, .every = 1000, .spacing = 4,
                  .tol = 1e-9, .radii = {0.5, 1, SIM_RADIUS_UNIFORM, 0, 0}};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      help();
      return EXIT_OK;
    }
    if (i + 1 >= argc)
      return cli_usage_error_near("simulate", CLI_NAMES_OPTIONS, a, "unknown option or missing value '%s'", a);
    int rc = simulate_option(o, a, argv[++i]);
    if (rc) return rc;
  }
  if (!o->spacing_set) o->spacing = 4 * o->radii.hi;
  if (!(o->spacing > 2 * o->radii.hi) && !o->radii_set)
    return cli_usage_error("simulate", "--spacing wants a number > 2, got '%s'", o->spacing_arg);
  if (!(o->spacing > 2 * o->radii.hi))
    return cli_usage_error("simulate", "--spacing %.17g: the lattice needs a spacing > 2 HI = %.17g",
                           o->spacing, 2 * o->radii.hi);
  return -1;
}

/* The library's message about the kernel list is a usage error. */
static void usage_msg(void *ud, const char *text) {
  (void)ud;
  cli_usage_error("simulate", "%s", text);
}

/* The initial state, shared by every kernel: read (its problems printed) or generated. */
static int load_state(const simulate_opts *o, sim_state *st) {
  if (!o->state_path) {
    toi_status gs = sim_generate_radii(st, o->seed, (int)o->dim, (size_t)o->n, o->spacing, &o->radii);
    if (gs == TOI_OK) return EXIT_OK;
    if (gs == TOI_ERR_RANGE)
      cli_error("cannot generate %llu balls: the big balls need more than 10^8 lattice sites", o->n);
    else cli_error("cannot generate %llu balls (out of memory?)", o->n);
    return EXIT_RUNTIME;
  }
  toi_diags dg;
  memset(&dg, 0, sizeof dg);
  toi_status s = sim_state_read(st, o->state_path, &dg);
  for (size_t k = 0; k < dg.count; k++) {
    char buf[700];
    toi_diag_format(&dg.items[k], buf, sizeof buf);
    fprintf(stderr, "%s\n", buf);
  }
  if (dg.total > dg.count)
    fprintf(stderr, "%s: %zu more problems not shown\n", o->state_path, dg.total - dg.count);
  if (s == TOI_OK) return EXIT_OK;
  if (s == TOI_ERR_INPUT) {
    fprintf(stderr, "toibench: invalid input: nothing was written\n");
    return EXIT_INPUT;
  }
  if (s == TOI_ERR_NOMEM) cli_error("out of memory reading %s", o->state_path);
  return EXIT_RUNTIME;
}

/* --precision: the state every kernel starts from, rounded to q. */
static int round_state(sim_state *st, toi_precision q) {
  sim_state r;
  toi_status ts = sim_state_round(&r, st, q);
  if (ts != TOI_OK) {
    if (ts == TOI_ERR_NOMEM) cli_error("out of memory");
    else cli_error("the state has a number beyond %s (or a radius or mass rounding to 0)", toi_precision_name(q));
    sim_state_free(st);
    return EXIT_RUNTIME;
  }
  sim_state_free(st);
  *st = r;
  return EXIT_OK;
}

static const char *radius_dist_name(sim_radius_dist d) {
  return d == SIM_RADIUS_LOGUNIFORM ? "loguniform" : d == SIM_RADIUS_BIMODAL ? "bimodal" : "uniform";
}

/* --write-state (written at once) and --series (opened, its header written). */
static int open_outputs(const simulate_opts *o, const sim_state *st, cli_out *series, series_ctx *sc) {
  cli_out wstate;
  sc->f = NULL;
  if (o->write_path) {
    if (cli_out_open(&wstate, o->write_path)) return EXIT_RUNTIME;
    if (sim_state_write(wstate.f, st)) {
      cli_error("%s: write error: %s", o->write_path, strerror(errno));
      cli_out_abort(&wstate);
      return EXIT_RUNTIME;
    }
    if (cli_out_commit(&wstate)) return EXIT_RUNTIME;
  }
  if (!o->series_path) return EXIT_OK;
  if (cli_out_open(series, o->series_path)) return EXIT_RUNTIME;
  sc->f = series->f;
  fprintf(sc->f, "# toibench-series v1\n# state: ");
  if (o->state_path) fprintf(sc->f, "file %s\n", o->state_path);
  else {
    fprintf(sc->f, "generated, seed %llu, spacing %a", o->seed, o->spacing);
    if (o->radii_set) {
      fprintf(sc->f, ", radius %a:%a %s", o->radii.lo, o->radii.hi, radius_dist_name(o->radii.dist));
      if (o->radii.dist == SIM_RADIUS_BIMODAL) fprintf(sc->f, ":%a:%a", o->radii.big_fraction, o->radii.big);
    }
    fprintf(sc->f, "\n");
  }
  fprintf(sc->f, "# dim %d, balls %zu, events %llu, every %llu, overlap_tol %a", st->dim, st->n, o->events,
          o->every, o->tol);
  if (o->precision != TOI_BINARY64) fprintf(sc->f, ", precision %s", toi_precision_name(o->precision));
  fprintf(sc->f, "\n");
  return EXIT_OK;
}

static void print_header(const simulate_opts *o, const sim_state *st) {
  printf("# toibench simulate: dim %d, %zu balls, box", st->dim, st->n);
  for (int d = 0; d < st->dim; d++) printf("%s%.6g", d ? " x " : " ", st->box[d]);
  if (o->state_path) printf(", state %s", o->state_path);
  else printf(", seed %llu, spacing %.6g", o->seed, o->spacing);
  if (!o->state_path && o->radii_set) {
    printf(", radius %.6g:%.6g %s", o->radii.lo, o->radii.hi, radius_dist_name(o->radii.dist));
    if (o->radii.dist == SIM_RADIUS_BIMODAL) printf(":%.6g:%.6g", o->radii.big_fraction, o->radii.big);
  }
  if (o->uniform_grid) printf(", uniform grid");
  if (o->precision != TOI_BINARY64) printf(", precision %s", toi_precision_name(o->precision));
  printf(", %llu events per kernel, sample every %llu\n", o->events, o->every);
  printf("# events/s is wall clock (not reproducible); every other figure is.\n");
  printf("%-16s %-8s %9s %11s %11s %11s %11s %11s %11s %8s %7s %7s %8s %10s  %s\n", "kernel", "status",
         "events", "time", "ke_err", "drift/1e6", "max|ke_err|", "mom_err", "min_gap", "overlaps",
         "missed", "late", "null", "events/s", "note");
}

/* The summary row of one kernel's run, and why it stopped (stderr). */
static void print_row(const char *name, sim_status s, const sim_report *rep, double secs) {
  uint64_t ev = rep->last.event;
  char note[160] = "";
  if (rep->idle) snprintf(note, sizeof note, ev ? "no further event was possible" : "no event was possible");
  if (isnan(rep->last.ke_err) || isnan(rep->max_abs_ke_err))
    snprintf(note + strlen(note), sizeof note - strlen(note), "%ske_err nan: non-finite kinetic energy",
             note[0] ? "; " : "");
  if (isnan(rep->last.mom_err))
    snprintf(note + strlen(note), sizeof note - strlen(note), "%smom_err nan: non-finite momentum",
             note[0] ? "; " : "");
  printf("%-16s %-8s %9" PRIu64 " %11.5g %11.4g %11.4g %11.4g %11.4g %11.4g %8" PRIu64 " %7" PRIu64
         " %7" PRIu64 " %8" PRIu64 " %10.4g%s%s\n",
         name, s == SIM_OK && rep->idle ? "idle" : sim_status_name(s), ev, unsigned_nan(rep->time),
         unsigned_nan(rep->last.ke_err), unsigned_nan(sim_report_drift(rep)),
         unsigned_nan(rep->max_abs_ke_err), unsigned_nan(rep->last.mom_err), unsigned_nan(rep->min_gap),
         rep->max_overlaps, rep->missed, rep->late, rep->last.null_events, secs > 0 ? (double)ev / secs : 0.0,
         note[0] ? "  " : "", note);
  if (s != SIM_OK) fprintf(stderr, "toibench simulate: kernel %s stopped: %s\n", name, rep->message);
}

/* Every kernel from the same state, one after another: EXIT_RUNTIME when
   one ran out of memory, else EXIT_OK; *failures counts the kernels stopped. */
static int run_kernels(const simulate_opts *o, const sim_state *st, const sim_kernel *kernels, int nk,
                       series_ctx *sc, int *failures) {
  int rc = EXIT_OK;
  *failures = 0;
  for (int k = 0; k < nk; k++) {
    if (sc->f) fprintf(sc->f, "%s# kernel %s\n# event time ke_err mom_err min_gap overlaps missed late "
                       "pair_events wall_events cell_events null_events\n", k ? "\n\n" : "", kernels[k].name);
    sim_config cfg = {1.0, o->events, o->every, o->same, o->tol, write_sample, NULL, sc, o->uniform_grid};
    sim_report rep;
    double t0 = now_seconds();
    sim_status s = sim_run(&rep, st, &kernels[k], &cfg);
    double secs = now_seconds() - t0;
    print_row(kernels[k].name, s, &rep, secs);
    if (s != SIM_OK) {
      ++*failures;
      if (s == SIM_NOMEM) rc = EXIT_RUNTIME;
    }
    fflush(stdout);
  }
  return rc;
}

int cmd_simulate(int argc, char **argv) {
  simulate_opts o;
  int rc = simulate_options(argc, argv, &o);
  if (rc >= 0) return rc;
  sim_kernel *kernels;
  const toi_msg usage = {usage_msg, NULL};
  int nk = sim_kernels_select_prec(&kernels, o.names, o.precision, &usage);
  if (nk <= 0) return nk < 0 ? EXIT_RUNTIME : EXIT_USAGE;
  /* Before the state is generated or read: the outputs are not --state nor one file, and can be created. */
  const cli_file outs[] = {{NULL, "-"}, {"--write-state", o.write_path}, {"--series", o.series_path}};
  const cli_file ins[] = {{"--state", o.state_path}};
  if ((rc = cli_outputs_check("simulate", outs, 3, ins, 1)) != EXIT_OK) {
    free(kernels);
    return rc;
  }
  sim_state st;
  rc = load_state(&o, &st);
  if (rc == EXIT_OK && o.precision != TOI_BINARY64) rc = round_state(&st, o.precision);
  if (rc != EXIT_OK) {
    free(kernels);
    return rc;
  }
  cli_out series;
  series_ctx sc;
  rc = open_outputs(&o, &st, &series, &sc);
  if (rc != EXIT_OK) {
    sim_state_free(&st);
    free(kernels);
    return rc;
  }
  print_header(&o, &st);
  int failures;
  rc = run_kernels(&o, &st, kernels, nk, &sc, &failures);
  if (sc.f && cli_out_commit(&series)) rc = EXIT_RUNTIME;
  if (fflush(stdout) != 0 || ferror(stdout)) rc = EXIT_RUNTIME;
  sim_state_free(&st);
  free(kernels);
  if (rc == EXIT_OK && failures) rc = EXIT_RUNTIME;
  return rc;
}
