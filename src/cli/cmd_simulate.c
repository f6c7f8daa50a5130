/* cmd_simulate.c: `toibench simulate`, the event-driven many-ball audit, kernels side by side. */
#include <inttypes.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cli.h"
#include "candlist.h"
#include "cli_outcheck.h"
#include "sim.h"
#include "sim_candidate.h"
#include "solvers.h"

/* Memory grows with N (a few hundred bytes a ball for the state, the grid and
   the event queue: about 400 MB measured at 10^6 balls): beyond this a run
   wants tens of GB, which is a typing slip rather than an experiment. */
#define SIM_MAX_BALLS 10000000ULL

static void help_formats(void);
static void help_scenes(void);

static void help(void) {
  printf(
      "Usage: toibench simulate [-f NAME,...|reference] [--solver LIB.so[:SYMBOL]]... [--solver-cmd CMD]...\n"
      "                         [--n N] [--events M] [--seed S] [--dim 2|3] [--every K]\n"
      "                         [--state FILE] [--series FILE] [--record FILE] [options]\n"
      "Event-driven simulation of N balls in a box with elastic walls (document 001 section 5):\n"
      "the earliest contact among all pairs and walls is found, everything advances to it, it\n"
      "is resolved, and only what involves the balls that changed is recomputed (document 003).\n"
      "Events wait in per-ball lists under a tournament tree of each ball's earliest event\n"
      "(ties in time broken by the order of prediction), with per-ball change counters; a\n"
      "grid of cells one diameter wide (document 001 section 3; levels of cells for mixed\n"
      "sizes) limits predictions to neighbouring cells, so an event costs O(log N). Every\n"
      "kernel runs from the same initial state, one after another.\n"
      "\n"
      "Kernels (-f, comma-separated; default: all forward formulations):\n"
      "  NAME       a built-in forward formulation ('toibench list'): its time of impact, then\n"
      "             the double response (move to T, normal, impulse, only when approaching);\n"
      "             walls in double: ((wall -+ r) - x)/v\n"
      "  reference  the certified kernel: exact class and RN(t*), the response computed exactly\n"
      "             at t* and rounded to double once; walls exact. Slow: use fewer events\n"
      "  all        every forward formulation\n"
      "  ENGINE     a built engine solver ('toibench list --engines'; 'make engines' builds\n"
      "             them: jolt-castshape, physx-sweep, rapier3d-castshape, box2d3-castshape in\n"
      "             2D, fcl-ca ...), 'engines' for every one built; refused when not built\n"
      "  --solver LIB.so[:SYMBOL]  a plug-in (toi_solver.h), in a child process\n"
      "  --solver-cmd COMMAND  a subprocess-protocol solver (/bin/sh -c); both repeatable\n"
      "  --solver-cmd-precision P  the precision of the --solver-cmd that follow (default\n"
      "             binary64), as for 'run'; a plug-in or an engine declares its own\n"
      "  --timeout SEC  time allowed per answer of a solver (default 10): a hung solver is\n"
      "             stopped and the simulation goes on\n"
      "An engine or solver kernel (a candidate) predicts the pairs: the predictions one event\n"
      "asks for (after a contact, every pair of both balls) go to it in one batch call, each\n"
      "case with the ID eEVENT-pA-B; the response (move to T, normal, impulse, only when\n"
      "approaching), the walls and the stored state are computed by the bench in the\n"
      "candidate's precision, as for the formulation kernels (a binary32 engine runs on the\n"
      "state rounded to float). A failed, declined or unusable answer (a contact with a NaN\n"
      "time) is counted in 'failed' and that prediction is answered by the exact reference\n"
      "instead (said in the note); a crashed solver process is started again for the rest\n"
      "of the batch, as 'run' does, and the exit status is then 1. A candidate that states a\n"
      "target and a tolerance (its contract) is judged against them: a pair overlaps only\n"
      "when it penetrates deeper than tolerance - target too. Refused before any work, with\n"
      "the reason: an engine that is not built, a solver that declines a 3D case off the\n"
      "plane z = 0 (a 2D-only engine) in a 3D scene, a reverse-time solver.\n"
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
      "  --scene NAME      a preset (below) instead of --state or the default generator\n"
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
      "  --format table|csv  the summary as a table (default) or as CSV with a header line and\n"
      "                    two more columns, overlaps_per_1e6 and missed_per_1e6 (the counts per\n"
      "                    10^6 events); numbers to 17 significant digits, the note quoted\n"
      "  --record FILE     every pair prediction of every kernel as a case file (format v1,\n"
      "                    hex floats): the pair's state at that moment in the kernel's\n"
      "                    precision, ID SCENE-KERNEL-eEVENT-pA-B (SCENE 'sim' or --scene's,\n"
      "                    EVENT the events processed before it, A and B the balls; cut to\n"
      "                    63 characters in the kernel's part). Same options, same bytes;\n"
      "                    written as the run goes, in memory that does not grow\n"
      "  --record-max N    record the first N predictions of each kernel only (the run goes on)\n"
      "  --grid auto|uniform  cells for finding neighbours (default auto): uniform is one\n"
      "                    grid of cells one largest diameter wide; auto uses levels of\n"
      "                    cells doubling in size when a few big balls would make that\n"
      "                    grid slow, each ball in the level of its size. Both find the\n"
      "                    same events; with levels, a pair is predicted from the moment it\n"
      "                    comes into a neighbourhood, so times can differ in the last bits.\n"
      "                    uniform gives the results of earlier versions bit for bit\n"
      "\n"
      );
  help_scenes();
  help_formats();
}

/* The scenes, from the library's table. */
static void help_scenes(void) {
  printf("Scenes (--scene NAME): an initial state and a number of events that stress a kernel in a\n"
         "known way. Options given explicitly override the scene's values: --events, --every,\n"
         "--seed and --dim always; for the generated scenes (gas, dense, polydisperse) --n and\n"
         "--spacing too, and --radius or --radius-dist replace its radii (and its spacing, unless\n"
         "--spacing is given). billiards and bullet lay out their own balls: --n, --spacing,\n"
         "--radius and --radius-dist are refused with them, as is --state with any scene.\n");
  size_t n;
  const sim_scene *sc = sim_scenes(&n);
  for (size_t i = 0; i < n; i++) {
    printf("  %-13s %s; ", sc[i].name, (sc[i].dims & 12u) == 12u ? "2D or 3D (--dim 3)" : sc[i].dims & 4u ? "2D only" : "3D only");
    printf("%zu balls", sc[i].n[0]);
    if ((sc[i].dims & 8u) && sc[i].n[1] != sc[i].n[0]) printf(" (%zu in 3D)", sc[i].n[1]);
    printf(", %llu events by default\n", (unsigned long long)sc[i].events);
    /* the sentence, folded at 72 columns under the name */
    const char *t = sc[i].stresses;
    while (*t) {
      size_t len = strlen(t), cut = len;
      if (len > 72) {
        cut = 72;
        while (cut > 0 && t[cut] != ' ') cut--;
        if (cut == 0) cut = 72;
      }
      printf("                %.*s\n", (int)cut, t);
      t += cut;
      while (*t == ' ') t++;
    }
  }
  printf("\n");
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
      "  overlaps  pairs overlapping beyond --overlap-tol at the sample (and, for a candidate\n"
      "            stating a contract, deeper than its tolerance - target)\n"
      "  missed    of those, pairs that were apart when their current paths began and have no\n"
      "            pending contact event: a collision the kernel never predicted\n"
      "  late      of those, pairs whose predicted contact is still pending (predicted late)\n"
      "Same seed, state and kernel give a byte-identical series. Wall-clock rates are not in\n"
      "the series (they are the only non-reproducible figures): they are printed in the summary.\n"
      "\n"
      "Summary (stdout), one row per kernel: status, events, simulated time, final ke_err,\n"
      "drift per 1e6 events (final ke_err * 1e6 / events), max |ke_err| over the samples,\n"
      "final mom_err, smallest gap, most overlaps in a sample, missed and late (summed over\n"
      "samples), null contacts, queries (pair predictions asked of the kernel), failed (those\n"
      "the reference answered instead: 0 for the built-in kernels), max_pen (deepest\n"
      "penetration R - |d| at a sample, absolute; 0 when none), events/s (wall clock), then a\n"
      "note when there is one to make.\n"
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
      "printed) or a solver crashed, hung or broke the protocol; 2 usage; 3 invalid state file.\n");
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
  const char *names, *state_path, *series_path, *write_path, *spacing_arg, *record_path;
  unsigned long long n, events, seed, dim, every, same, record_max;
  double spacing, tol, timeout;
  int spacing_set, radii_set, uniform_grid, n_set, events_set;
  int csv;                     /* --format csv */
  const sim_scene *scene;      /* --scene, or NULL */
  sim_radii radii;
  toi_precision precision;
  toi_precision cmd_precision; /* --solver-cmd-precision: for the --solver-cmd that follow */
  candlist given;              /* --solver and --solver-cmd, in command-line order */
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

/* --scene NAME */
static int scene_option(simulate_opts *o, const char *v) {
  o->scene = sim_scene_find(v);
  if (o->scene) return 0;
  size_t n;
  const sim_scene *all = sim_scenes(&n);
  const char *names[16];
  char list[256] = "";
  for (size_t i = 0; i < n && i < 16; i++) {
    names[i] = all[i].name;
    snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", all[i].name);
  }
  const char *near = cli_suggest(names, n < 16 ? n : 16, v);
  if (near) return cli_usage_error("simulate", "unknown scene '%s' (%s); did you mean '%s'?", v, list, near);
  return cli_usage_error("simulate", "unknown scene '%s' (%s)", v, list);
}

/* A scene's values for what the command line left unsaid, after checking
   that it exists in the dimension asked and that no option contradicts it. */
static int apply_scene(simulate_opts *o, int dim_set) {
  const sim_scene *sc = o->scene;
  if (!sc) return 0;
  if (o->state_path) return cli_usage_error("simulate", "--scene and --state both give the initial state: use one");
  if (!dim_set && !(sc->dims & (1u << o->dim))) o->dim = 3;
  if (!(sc->dims & (1u << o->dim)))
    return cli_usage_error("simulate", "scene %s exists in %s only", sc->name, sc->dims & (1u << 2) ? "2D" : "3D");
  if (sc->built && (o->n_set || o->spacing_set || o->radii_set))
    return cli_usage_error("simulate", "scene %s lays out its own balls: --n, --spacing, --radius and --radius-dist "
                                       "do not apply to it", sc->name);
  if (!o->events_set) o->events = sc->events;
  if (sc->built) return 0;
  if (!o->n_set) o->n = sc->n[o->dim == 3];
  if (!o->radii_set) o->radii = sc->radii;
  if (!o->spacing_set && !o->radii_set) {
    o->spacing = sc->spacing;
    o->spacing_set = 1;
  }
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
    o->n_set = 1;
  }
  else if (!strcmp(a, "--events")) {
    o->events_set = 1;
    return parse_count("simulate", a, v, 0, UINT64_MAX / 2, &o->events);
  }
  else if (!strcmp(a, "--scene")) return scene_option(o, v);
  else if (!strcmp(a, "--seed")) return parse_count("simulate", a, v, 0, UINT64_MAX, &o->seed);
  else if (!strcmp(a, "--dim")) return parse_count("simulate", a, v, 2, 3, &o->dim);
  else if (!strcmp(a, "--every")) return parse_count("simulate", a, v, 1, UINT64_MAX, &o->every);
  else if (!strcmp(a, "--same-instant")) return parse_count("simulate", a, v, 1, UINT64_MAX, &o->same);
  else if (!strcmp(a, "--precision")) return cli_parse_precision("simulate", a, v, &o->precision);
  else if (!strcmp(a, "--solver-cmd-precision")) return cli_parse_precision("simulate", a, v, &o->cmd_precision);
  else if (!strcmp(a, "--solver") || !strcmp(a, "--solver-cmd")) {
    if (!strcmp(a, "--solver-cmd") && !v[0]) return cli_usage_error("simulate", "--solver-cmd needs a command");
    size_t from = o->given.n;
    int rc = cli_add_given_prec("simulate", &o->given, a, v, o->cmd_precision, o->timeout);
    for (size_t k = from; k < o->given.n; k++) candlist_unique_name(&o->given, k);
    return rc;
  } else if (!strcmp(a, "--timeout")) {
    if (cli_parse_double(v, &o->timeout) || !(o->timeout > 0) || o->timeout > CLI_TIMEOUT_MAX)
      return cli_usage_error("simulate", "--timeout wants seconds in (0, %g], got '%s'", (double)CLI_TIMEOUT_MAX, v);
  }
  else if (!strcmp(a, "--format")) {
    if (strcmp(v, "table") && strcmp(v, "csv"))
      return cli_usage_error("simulate", "--format wants table or csv, got '%s'", v);
    o->csv = !strcmp(v, "csv");
  } else if (!strcmp(a, "--record")) o->record_path = v;
  else if (!strcmp(a, "--record-max")) return parse_count("simulate", a, v, 1, UINT64_MAX, &o->record_max);
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
                  .tol = 1e-9, .radii = {0.5, 1, SIM_RADIUS_UNIFORM, 0, 0}, .timeout = cli_timeout_scan(argc, argv)};
  int dim_set = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      help();
      return EXIT_OK;
    }
    if (i + 1 >= argc)
      return cli_usage_error_near("simulate", CLI_NAMES_OPTIONS, a, "unknown option or missing value '%s'", a);
    if (!strcmp(a, "--dim")) dim_set = 1;
    int rc = simulate_option(o, a, argv[++i]);
    if (rc) return rc;
  }
  if (apply_scene(o, dim_set)) return EXIT_USAGE;
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
  if (o->scene && o->scene->built) {
    toi_status gs = sim_scene_build(st, o->scene, (int)o->dim, o->seed);
    if (gs == TOI_OK) return EXIT_OK;
    cli_error("cannot build scene %s (out of memory?)", o->scene->name);
    return EXIT_RUNTIME;
  }
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
  else if (o->scene && o->scene->built) fprintf(sc->f, "scene %s, seed %llu\n", o->scene->name, o->seed);
  else {
    if (o->scene) fprintf(sc->f, "scene %s, ", o->scene->name);
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
  if (o->csv) {
    printf("kernel,status,events,time,ke_err,drift_per_1e6,max_abs_ke_err,mom_err,min_gap,overlaps,missed,late,"
           "null,queries,failed,max_pen,overlaps_per_1e6,missed_per_1e6,events_per_s,note\n");
    return;
  }
  printf("# toibench simulate: dim %d, %zu balls, box", st->dim, st->n);
  for (int d = 0; d < st->dim; d++) printf("%s%.6g", d ? " x " : " ", st->box[d]);
  if (o->scene) printf(", scene %s", o->scene->name);
  if (o->state_path) printf(", state %s", o->state_path);
  else if (o->scene && o->scene->built) printf(", seed %llu", o->seed);
  else printf(", seed %llu, spacing %.6g", o->seed, o->spacing);
  if (!o->state_path && !(o->scene && o->scene->built) && o->radii_set) {
    printf(", radius %.6g:%.6g %s", o->radii.lo, o->radii.hi, radius_dist_name(o->radii.dist));
    if (o->radii.dist == SIM_RADIUS_BIMODAL) printf(":%.6g:%.6g", o->radii.big_fraction, o->radii.big);
  }
  if (o->uniform_grid) printf(", uniform grid");
  if (o->precision != TOI_BINARY64) printf(", precision %s", toi_precision_name(o->precision));
  printf(", %llu events per kernel, sample every %llu\n", o->events, o->every);
  printf("# events/s is wall clock (not reproducible); every other figure is.\n");
  printf("%-16s %-8s %9s %11s %11s %11s %11s %11s %11s %8s %7s %7s %8s %9s %7s %10s %10s  %s\n", "kernel",
         "status", "events", "time", "ke_err", "drift/1e6", "max|ke_err|", "mom_err", "min_gap", "overlaps",
         "missed", "late", "null", "queries", "failed", "max_pen", "events/s", "note");
}

/* What a candidate's run leaves to say: the predictions the reference
   answered instead, and the contract it was judged by. */
static void candidate_note(char *note, size_t n, const sim_candidate *sc) {
  size_t used = strlen(note);
  if (sc->failed) {
    used += (size_t)snprintf(note + used, n - used, "%s%" PRIu64 " failed predictions fell back to the reference",
                             used ? "; " : "", sc->failed);
    if (used < n && (sc->declined || sc->malfunctions))
      used += (size_t)snprintf(note + used, n - used, " (%" PRIu64 " declined, %" PRIu64 " lost to crashes or hangs)",
                               sc->declined, sc->malfunctions);
  }
  if (used < n && sc->c->precision != TOI_BINARY64)
    used += (size_t)snprintf(note + used, n - used, "%scomputes in %s", used ? "; " : "",
                             toi_precision_name(sc->c->precision));
  if (used < n && sc->allowance > 0)
    snprintf(note + used, n - used, "%soverlaps beyond its stated tolerance %.3g below its target", used ? "; " : "",
             sc->allowance);
}

/* The summary row of one kernel's run, and why it stopped (stderr); sc for a candidate, else NULL. */
static void print_row(const char *name, sim_status s, const sim_report *rep, double secs, const sim_candidate *sc,
                      int csv) {
  uint64_t ev = rep->last.event;
  char note[400] = "";
  if (rep->idle) snprintf(note, sizeof note, ev ? "no further event was possible" : "no event was possible");
  if (isnan(rep->last.ke_err) || isnan(rep->max_abs_ke_err))
    snprintf(note + strlen(note), sizeof note - strlen(note), "%ske_err nan: non-finite kinetic energy",
             note[0] ? "; " : "");
  if (isnan(rep->last.mom_err))
    snprintf(note + strlen(note), sizeof note - strlen(note), "%smom_err nan: non-finite momentum",
             note[0] ? "; " : "");
  if (sc) candidate_note(note, sizeof note, sc);
  if (csv) {
    /* Counts per 10^6 events: overlaps (the most in a sample) and missed (summed over the samples). */
    double per = ev ? 1e6 / (double)ev : NAN;
    printf("%s,%s,%" PRIu64 ",%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
           ",%" PRIu64 ",%" PRIu64 ",%.17g,%.17g,%.17g,%.6g,\"",
           name, s == SIM_OK && rep->idle ? "idle" : sim_status_name(s), ev, unsigned_nan(rep->time),
           unsigned_nan(rep->last.ke_err), unsigned_nan(sim_report_drift(rep)), unsigned_nan(rep->max_abs_ke_err),
           unsigned_nan(rep->last.mom_err), unsigned_nan(rep->min_gap), rep->max_overlaps, rep->missed, rep->late,
           rep->last.null_events, rep->predictions, sc ? sc->failed : 0, unsigned_nan(rep->max_pen),
           (double)rep->max_overlaps * per, (double)rep->missed * per, secs > 0 ? (double)ev / secs : 0.0);
    for (const char *p = note; *p; p++) printf(*p == '"' ? "\"\"" : "%c", *p);
    printf("\"\n");
    if (s != SIM_OK) fprintf(stderr, "toibench simulate: kernel %s stopped: %s\n", name, rep->message);
    return;
  }
  printf("%-16s %-8s %9" PRIu64 " %11.5g %11.4g %11.4g %11.4g %11.4g %11.4g %8" PRIu64 " %7" PRIu64
         " %7" PRIu64 " %8" PRIu64 " %9" PRIu64 " %7" PRIu64 " %10.4g %10.4g%s%s\n",
         name, s == SIM_OK && rep->idle ? "idle" : sim_status_name(s), ev, unsigned_nan(rep->time),
         unsigned_nan(rep->last.ke_err), unsigned_nan(sim_report_drift(rep)),
         unsigned_nan(rep->max_abs_ke_err), unsigned_nan(rep->last.mom_err), unsigned_nan(rep->min_gap),
         rep->max_overlaps, rep->missed, rep->late, rep->last.null_events, rep->predictions,
         sc ? sc->failed : 0, unsigned_nan(rep->max_pen), secs > 0 ? (double)ev / secs : 0.0,
         note[0] ? "  " : "", note);
  if (s != SIM_OK) fprintf(stderr, "toibench simulate: kernel %s stopped: %s\n", name, rep->message);
}

/* The kernels of a run in order of first mention: built-in ones (formulations,
   reference) and candidates (engines, plug-ins, commands) driving sim_run
   through a sim_candidate. */
typedef struct sim_entry {
  sim_kernel k;
  size_t cand;          /* index in the candidate list, or SIZE_MAX for a built-in kernel */
  sim_candidate sc;
} sim_entry;

typedef struct kernel_set {
  sim_entry *v;
  size_t n, cap;
  candlist cands;
} kernel_set;

static void kernel_set_free(kernel_set *ks) {
  for (size_t i = 0; i < ks->n; i++)
    if (ks->v[i].cand != SIZE_MAX) sim_candidate_free(&ks->v[i].sc);
  free(ks->v);
  candlist_free(&ks->cands);
}

static int has_kernel(const kernel_set *ks, const char *name) {
  for (size_t i = 0; i < ks->n; i++)
    if (!strcmp(ks->v[i].cand == SIZE_MAX ? ks->v[i].k.name : ks->cands.v[ks->v[i].cand].name, name)) return 1;
  return 0;
}

static int add_entry(kernel_set *ks, const sim_kernel *k, size_t cand) {
  if (ks->n == ks->cap) {
    size_t cap = ks->cap ? 2 * ks->cap : 16;
    sim_entry *v = realloc(ks->v, cap * sizeof *v);
    if (!v) return -1;
    ks->v = v;
    ks->cap = cap;
  }
  memset(&ks->v[ks->n], 0, sizeof ks->v[ks->n]);
  if (k) ks->v[ks->n].k = *k;
  ks->v[ks->n++].cand = cand;
  return 0;
}

/* A candidate as a kernel (taken: freed on failure). EXIT_OK or EXIT_RUNTIME. */
static int add_candidate(kernel_set *ks, toi_candidate *c) {
  if (has_kernel(ks, c->name)) {
    toi_candidate_free(c);
    return EXIT_OK;
  }
  if (candlist_take(&ks->cands, c) || add_entry(ks, NULL, ks->cands.n - 1)) return EXIT_RUNTIME;
  return EXIT_OK;
}

/* The kernels one name of -f stands for. EXIT_OK or an exit status. */
static int add_named_kernel(kernel_set *ks, const char *tok, toi_precision q) {
  if (!strcmp(tok, "reference") || !strcmp(tok, "all") || toi_formulation_find(tok)) {
    sim_kernel *k;
    const toi_msg usage = {usage_msg, NULL};
    int nk = sim_kernels_select_prec(&k, tok, q, &usage);
    if (nk <= 0) return nk < 0 ? EXIT_RUNTIME : EXIT_USAGE;
    int rc = EXIT_OK;
    for (int i = 0; i < nk && rc == EXIT_OK; i++)
      if (!has_kernel(ks, k[i].name) && add_entry(ks, &k[i], SIZE_MAX)) rc = EXIT_RUNTIME;
    free(k);
    return rc;
  }
  if (!strcmp(tok, "engines")) {
    toi_candidate *v;
    size_t n;
    if (toi_candidates_engines(&v, &n, &cli_msg_stderr) != TOI_OK) return cli_error("out of memory"), EXIT_RUNTIME;
    int rc = n == 0 ? cli_usage_error("simulate", "no engine is built (run 'make engines')") : EXIT_OK;
    for (size_t i = 0; i < n; i++) {
      if (rc == EXIT_OK) rc = add_candidate(ks, &v[i]);
      else toi_candidate_free(&v[i]);
    }
    free(v);
    return rc;
  }
  toi_candidate c;
  if (toi_candidate_find(&c, tok, &cli_msg_stderr))
    return cli_usage_error_near("simulate", CLI_NAMES_CANDIDATES, tok,
                                "unknown kernel '%s' (a forward formulation, 'all', 'reference', or an engine "
                                "solver that is built: 'toibench list --engines'; 'make engines' builds them)",
                                tok);
  return add_candidate(ks, &c);
}

/* -f's kernels (all formulations when neither -f nor a solver is given),
   then --solver and --solver-cmd's, each made a kernel. EXIT_OK or an exit status. */
static int select_kernels(simulate_opts *o, kernel_set *ks) {
  memset(ks, 0, sizeof *ks);
  int rc = EXIT_OK;
  const char *names = o->names ? o->names : o->given.n ? NULL : "all";
  if (names) {
    char *list = strdup(names);
    if (!list) return EXIT_RUNTIME;
    for (char *save = NULL, *tok = strtok_r(list, ",", &save); tok && rc == EXIT_OK; tok = strtok_r(NULL, ",", &save))
      rc = add_named_kernel(ks, tok, o->precision);
    free(list);
  }
  for (size_t k = 0; k < o->given.n && rc == EXIT_OK; k++) {
    toi_candidate c;
    if (toi_candidate_copy(&c, &o->given.v[k])) return EXIT_RUNTIME;
    if (candlist_take(&ks->cands, &c) || add_entry(ks, NULL, ks->cands.n - 1)) rc = EXIT_RUNTIME;
    else candlist_unique_name(&ks->cands, ks->cands.n - 1);
  }
  if (rc == EXIT_OK && ks->n == 0) rc = cli_usage_error("simulate", "no kernel selected");
  /* Candidates become kernels now that their list no longer moves. */
  toi_solve_opts so = {INFINITY, o->timeout, NULL, &cli_msg_stderr};
  for (size_t i = 0; i < ks->n && rc == EXIT_OK; i++) {
    sim_entry *e = &ks->v[i];
    if (e->cand == SIZE_MAX) continue;
    char why[300];
    if (sim_candidate_init(&e->sc, &e->k, &ks->cands.v[e->cand], &so, why, sizeof why))
      rc = cli_usage_error("simulate", "%s", why);
  }
  return rc;
}

/* Before any work: every candidate takes the scene's dimension. */
static int check_dims(const kernel_set *ks, int dim, double timeout) {
  toi_solve_opts so = {INFINITY, timeout, NULL, &cli_msg_stderr};
  for (size_t i = 0; i < ks->n; i++) {
    if (ks->v[i].cand == SIZE_MAX) continue;
    char why[300];
    if (sim_candidate_check_dim(&ks->cands.v[ks->v[i].cand], dim, &so, why, sizeof why))
      return cli_usage_error("simulate", "%s", why);
  }
  return EXIT_OK;
}

/* --record: every prediction as a case of format v1, ID SCENE-KERNEL-eEVENT-pA-B. */
typedef struct record_ctx {
  FILE *f;
  char prefix[TOI_ID_MAX + 1];
  uint64_t written, max; /* max 0: no limit */
} record_ctx;

typedef struct run_ctx {
  series_ctx *series;
  record_ctx *record;
} run_ctx;

static int run_sample(void *ctx, const sim_sample *s) { return write_sample(((run_ctx *)ctx)->series, s); }

static int run_predict(void *ctx, const sim_predict_info *p) {
  record_ctx *r = ((run_ctx *)ctx)->record;
  if (r->max && r->written >= r->max) return 0;
  r->written++;
  toi_case c = *p->c;
  /* the kernel's part of the prefix is cut when the whole would pass TOI_ID_MAX */
  size_t ni = strlen(p->c->id), np = strlen(r->prefix);
  if (np + ni > TOI_ID_MAX) np = TOI_ID_MAX - ni;
  memcpy(c.id, r->prefix, np);
  memcpy(c.id + np, p->c->id, ni + 1);
  return toi_write_case(r->f, &c) != TOI_OK || ferror(r->f) ? 1 : 0;
}

/* The ID prefix of kernel name in scene: characters an ID cannot hold become '_'. */
static void record_prefix(record_ctx *r, const char *scene, const char *name) {
  size_t ns = strlen(scene), nn = strlen(name);
  if (ns > 16) ns = 16;
  if (nn > TOI_ID_MAX - 2 - ns) nn = TOI_ID_MAX - 2 - ns;
  memcpy(r->prefix, scene, ns);
  r->prefix[ns] = '-';
  memcpy(r->prefix + ns + 1, name, nn);
  r->prefix[ns + 1 + nn] = '-';
  r->prefix[ns + 2 + nn] = 0;
  for (char *p = r->prefix; *p; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || strchr("._:-", *p)))
      *p = '_';
}

/* Every kernel from the same state, one after another: EXIT_RUNTIME when
   one ran out of memory, else EXIT_OK; *failures counts the kernels stopped
   and the candidates that crashed, hung or broke the protocol. */
static int run_kernels(const simulate_opts *o, const sim_state *st, kernel_set *ks, series_ctx *sc, FILE *record,
                       const char *scene, int *failures) {
  int rc = EXIT_OK;
  *failures = 0;
  for (size_t k = 0; k < ks->n; k++) {
    sim_entry *e = &ks->v[k];
    const char *name = e->cand == SIZE_MAX ? e->k.name : ks->cands.v[e->cand].name;
    if (sc->f) fprintf(sc->f, "%s# kernel %s\n# event time ke_err mom_err min_gap overlaps missed late "
                       "pair_events wall_events cell_events null_events\n", k ? "\n\n" : "", name);
    record_ctx rec = {record, "", 0, o->record_max};
    if (record) record_prefix(&rec, scene, name);
    run_ctx rctx = {sc, &rec};
    sim_config cfg = {1.0, o->events, o->every, o->same, o->tol, run_sample, NULL, &rctx, o->uniform_grid,
                      record ? run_predict : NULL};
    sim_report rep;
    double t0 = now_seconds();
    sim_status s = sim_run(&rep, st, &e->k, &cfg);
    double secs = now_seconds() - t0;
    const sim_candidate *cand = e->cand == SIZE_MAX ? NULL : &e->sc;
    print_row(name, s, &rep, secs, cand, o->csv);
    if (cand && (ks->cands.v[e->cand].flags & TOI_CAND_EXTERNAL))
      solver_quota_report(name, &e->sc.quota, &cli_msg_stderr);
    if (cand && (cand->malfunctions || cand->unrunnable)) {
      cli_error("solver %s: %" PRIu64 " predictions lost to crashes, hangs or protocol errors, %" PRIu64
                " calls could not be run (the reference answered them)", name, cand->malfunctions, cand->unrunnable);
      ++*failures;
    }
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
  kernel_set ks;
  memset(&ks, 0, sizeof ks);
  int rc = simulate_options(argc, argv, &o);
  if (rc < 0) rc = select_kernels(&o, &ks);
  if (rc != EXIT_OK || ks.n == 0) {
    kernel_set_free(&ks);
    candlist_free(&o.given);
    return rc;
  }
  /* Before the state is generated or read: the outputs are not --state nor one file, and can be created. */
  const cli_file outs[] = {{NULL, "-"}, {"--write-state", o.write_path}, {"--series", o.series_path},
                           {"--record", o.record_path}};
  const cli_file ins[] = {{"--state", o.state_path}};
  sim_state st;
  int have_state = 0;
  if ((rc = cli_outputs_check("simulate", outs, 4, ins, 1)) == EXIT_OK) {
    rc = load_state(&o, &st);
    have_state = rc == EXIT_OK;
  }
  if (rc == EXIT_OK && o.precision != TOI_BINARY64) {
    rc = round_state(&st, o.precision); /* frees the state on failure */
    have_state = rc == EXIT_OK;
  }
  if (rc == EXIT_OK) rc = check_dims(&ks, st.dim, o.timeout);
  cli_out series, record;
  series_ctx sc = {NULL};
  if (rc == EXIT_OK) rc = open_outputs(&o, &st, &series, &sc);
  if (rc == EXIT_OK && o.record_path && cli_out_open(&record, o.record_path)) {
    if (sc.f) cli_out_abort(&series);
    rc = EXIT_RUNTIME;
  }
  if (rc != EXIT_OK) {
    if (have_state) sim_state_free(&st);
    kernel_set_free(&ks);
    candlist_free(&o.given);
    return rc;
  }
  if (o.record_path)
    fprintf(record.f, "# toibench simulate --record: every pair prediction, ID SCENE-KERNEL-eEVENT-pA-B (EVENT:\n"
                      "# events processed before it; A, B: the balls), in the kernel's precision\n");
  print_header(&o, &st);
  int failures;
  rc = run_kernels(&o, &st, &ks, &sc, o.record_path ? record.f : NULL, o.scene ? o.scene->name : "sim", &failures);
  if (sc.f && cli_out_commit(&series)) rc = EXIT_RUNTIME;
  if (o.record_path && cli_out_commit(&record)) rc = EXIT_RUNTIME;
  if (fflush(stdout) != 0 || ferror(stdout)) rc = EXIT_RUNTIME;
  sim_state_free(&st);
  kernel_set_free(&ks);
  candlist_free(&o.given);
  if (rc == EXIT_OK && failures) rc = EXIT_RUNTIME;
  return rc;
}
