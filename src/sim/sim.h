/* sim.h: event-driven many-ball simulation in a box, with pluggable TOI and response kernels. */
#ifndef TOI_SIM_H
#define TOI_SIM_H

#include <stdint.h>
#include <stdio.h>
#include "precision.h"
#include "toi.h"
#include "toi_msg.h"

/// One ball of a state.
typedef struct sim_ball {
  double p[3];  ///< centre (third component 0 in 2D)
  double v[3];  ///< velocity
  double r;     ///< radius, > 0 (gaps are relative to ra + rb, and two point balls touch
                ///< only with coincident centres, where the contact has no normal)
  double m;     ///< mass, > 0
} sim_ball;

/// Balls in the box [0, box[0]] x [0, box[1]] (x [0, box[2]] in 3D) with
/// elastic walls, at time 0.
typedef struct sim_state {
  int dim;           ///< 2 or 3
  double box[3];     ///< side lengths (third 0 in 2D)
  size_t n;          ///< number of balls
  sim_ball *balls;   ///< n balls, malloc'ed
  long *lines;       ///< line of each ball in its state file, or NULL
} sim_state;

void sim_state_free(sim_state *s);

/// A copy of in with every number (box, centres, velocities, radii, masses)
/// rounded to q (toi_round_to); lines are not copied. TOI_ERR_RANGE when a
/// number overflows there or a radius or mass rounds to 0 (out is then
/// empty), TOI_ERR_NOMEM. Rounding may bring touching balls into a tiny
/// overlap, which the run counts like any other.
TOI_MUST_USE toi_status sim_state_round(sim_state *out, const sim_state *in, toi_precision q);

/// Generates a non-overlapping state from a seed: ceil(n^(1/dim)) sites per
/// axis spaced `spacing` apart (box side = sites * spacing), n distinct sites
/// chosen at random, each ball jittered inside its site; radii uniform in
/// [0.5, 1], masses uniform in [0.5, 2], velocity components uniform in
/// [-1, 1]. spacing must be > 2 (the largest diameter). Same arguments, same
/// state, on every machine (toi_rng, no libm).
TOI_MUST_USE toi_status sim_generate(sim_state *out, uint64_t seed, int dim, size_t n,
                                     double spacing);

/// How the radii of a generated state are drawn.
typedef enum sim_radius_dist {
  SIM_RADIUS_UNIFORM = 0, ///< uniform in [lo, hi]
  SIM_RADIUS_LOGUNIFORM,  ///< every double of [lo, hi] equally likely: each binade as likely
  SIM_RADIUS_BIMODAL      ///< round(big_fraction n) balls (at least 1) of radius big, the rest uniform
} sim_radius_dist;

/// Radii of a generated state; {0.5, 1, SIM_RADIUS_UNIFORM} is sim_generate's.
typedef struct sim_radii {
  double lo, hi;        ///< 0 < lo <= hi; spacing must be > 2 hi
  sim_radius_dist dist;
  double big_fraction;  ///< bimodal: in (0, 1)
  double big;           ///< bimodal: the big radius, > 0
} sim_radii;

/// sim_generate with other radii. The balls of [lo, hi] sit on the lattice
/// as in sim_generate; bimodal big balls are placed first, at random, apart
/// from each other, and the lattice grows (one site per axis at a time)
/// until it has a free site (one no big ball reaches) for every other ball;
/// the big balls come first in the state. With the default radii the state
/// is sim_generate's, bit for bit. TOI_ERR_RANGE for arguments out of range
/// or a state that needs more than 10^8 sites.
TOI_MUST_USE toi_status sim_generate_radii(sim_state *out, uint64_t seed, int dim, size_t n,
                                           double spacing, const sim_radii *radii);

/// A preset scene (`simulate --scene NAME`): the state, or the generator's
/// arguments, of a situation that stresses a kernel in a known way.
typedef struct sim_scene {
  const char *name;
  const char *stresses;  ///< what it stresses, for people (one sentence)
  unsigned dims;         ///< the dimensions it exists in: bit 2 for 2D, bit 3 for 3D
  int built;             ///< 1: its state is sim_scene_build's (its own layout); 0: sim_generate_radii's
  size_t n[2];           ///< generated: balls in 2D and in 3D
  double spacing;        ///< generated: the lattice spacing
  sim_radii radii;       ///< generated: the radii
  uint64_t events;       ///< physical events it runs by default
} sim_scene;

/// The scenes, *n of them, in a fixed order.
const sim_scene *sim_scenes(size_t *n);
/// The scene called name, or NULL.
const sim_scene *sim_scene_find(const char *name);
/// The state of a built scene (sc->built) in dimension dim (one of its dims)
/// from a seed: the same on every machine. TOI_ERR_RANGE for a scene or a
/// dimension without one, TOI_ERR_NOMEM.
TOI_MUST_USE toi_status sim_scene_build(sim_state *out, const sim_scene *sc, int dim, uint64_t seed);

/// State files (format "toibench-state v1"): '#' starts a comment, blank
/// lines are ignored, numbers are decimal or C99 hex floats.
///   box DIM L1 L2 [L3]                    once, before the balls
///   ball X Y [Z] VX VY [VZ] R M           one line per ball
/// Every ball must lie inside the box (r <= x <= L - r on each axis) and no
/// two balls may overlap. Errors name FILE:LINE: field N (name).
TOI_MUST_USE toi_status sim_state_parse(sim_state *out, const char *name, const char *text,
                                        size_t len, toi_diags *diags);
TOI_MUST_USE toi_status sim_state_read(sim_state *out, const char *path, toi_diags *diags);
/// Writes a state in that format with hex floats (reads back bit for bit).
int sim_state_write(FILE *f, const sim_state *s);

/// The pluggable numerics. All callbacks are deterministic functions of their
/// arguments. A pair is always passed as a toi_case whose time origin is the
/// moment of prediction (both centres moved there in double).
typedef struct sim_kernel {
  const char *name;
  void *ctx;
  /// Time to the next contact of the pair from the case's origin. Returns 1
  /// with *dt >= 0 for a predicted contact, 0 for none, -1 when the kernel
  /// claims a contact with a NaN time (pathological).
  int (*pair_toi)(void *ctx, const toi_case *c, double *dt);
  /// Resolves the contact predicted at dt with restitution E: centres at the
  /// contact and velocities after. Returns 1 when an impulse was applied, 0
  /// when the balls do not approach (nothing changes), -1 on failure.
  int (*pair_respond)(void *ctx, const toi_case *c, double dt, double E, double pa[3],
                      double pb[3], double va[3], double vb[3]);
  /// Time for the ball (p, v, r) to touch the wall plane x[axis] = wall
  /// (v[axis] != 0 points at it): 1 with *dt, or -1 for a NaN time.
  int (*wall_toi)(void *ctx, const double p[3], const double v[3], double r, int dim, int axis,
                  double wall, double *dt);
  /// Centre of that ball at its wall contact dt later; 0 or -1 on failure.
  int (*wall_respond)(void *ctx, const double p[3], const double v[3], double r, int dim,
                      int axis, double wall, double dt, double pout[3]);
  /// The precision the kernel stores its state in (0, binary64, when left
  /// out of an initializer). A binary32 kernel runs on the state rounded to
  /// float (sim_state_round), every pair case is built by advancing the float
  /// centres in float (p + v dt with dt = t - tr rounded to float; the
  /// schedule's absolute times stay double), and its responses return
  /// floats: positions and velocities are floats throughout the run.
  toi_precision precision;
  /// Optional (NULL: pair_toi one pair at a time): predicts n pairs in one
  /// call, r[i] and dt[i] as pair_toi returns and sets them for cases[i].
  /// The run gathers the predictions one event asks for (after a contact,
  /// every pair of both balls) and calls it once; the results are the same
  /// as pair_toi's one by one would be, in the same order. Each case then
  /// carries an ID naming the prediction (sim_config.on_predict).
  void (*pair_toi_batch)(void *ctx, const toi_case *cases, size_t n, int *r, double *dt);
  /// Optional (NULL: 0): the separation the kernel states it may miss its
  /// contacts by (its contract's tolerance, an absolute distance), as known
  /// so far: a pair overlaps only when it penetrates deeper than that too.
  double (*contact_tolerance)(void *ctx);
} sim_kernel;

/// The double-precision wall kernel shared by the formulation kernels:
/// dt = ((wall -+ r) - x)/v, centre p + v dt.
int sim_wall_toi_double(void *ctx, const double p[3], const double v[3], double r, int dim,
                        int axis, double wall, double *dt);
int sim_wall_respond_double(void *ctx, const double p[3], const double v[3], double r, int dim,
                            int axis, double wall, double dt, double pout[3]);
/// The same in float (the arguments read as floats, every operation in float).
int sim_wall_toi_float(void *ctx, const double p[3], const double v[3], double r, int dim,
                       int axis, double wall, double *dt);
int sim_wall_respond_float(void *ctx, const double p[3], const double v[3], double r, int dim,
                           int axis, double wall, double dt, double pout[3]);

/// A kernel from a built-in forward formulation f. Pairs: f->solve; a verdict
/// of the contact or overlap group with a time >= 0 is a predicted contact,
/// a NaN time with such a verdict is pathological, a negative or infinite
/// time is ignored (no contact ahead). Response: toi_response_compute at the
/// predicted time, applied only when the balls approach there (vn < 0), the
/// usual engine rule. Walls: sim_wall_toi_double / sim_wall_respond_double.
sim_kernel sim_formulation_kernel(const toi_formulation *f);
/// The kernel of f's variant in precision q: binary64 is
/// sim_formulation_kernel; binary32: f's binary32 solver on the case rounded
/// to float, toi_response_compute32 (same rule), sim_wall_*_float, and
/// .precision = TOI_BINARY32. .name is NULL when f has no variant in q.
sim_kernel sim_formulation_kernel_prec(const toi_formulation *f, toi_precision q);

/// 1 when k is sim_formulation_kernel's kernel of `ericson` in binary64: a run
/// then predicts its pairs through sim_ericson.h, with the same answers.
int sim_kernel_is_ericson(const sim_kernel *k);

/// The kernels a comma-separated list names (NULL: "all"): a built-in forward
/// formulation by name, "all" (every forward formulation) or "reference" (the
/// certified kernel of toiresp.h), each kept once in order of first mention.
/// Returns their number with *out malloc'ed; 0 after a message through msg
/// (an unknown or reverse-time name, or no kernel at all); -1 when out of
/// memory.
int sim_kernels_select(sim_kernel **out, const char *names, const toi_msg *msg);
/// The double and float responses of the formulation kernels: the contact
/// of toi_response_compute (toi_response_compute32 on the case rounded to
/// float) at dt, applied only when the balls approach there (1), else 0;
/// -1 on failure. ctx is unused.
int sim_pair_respond_double(void *ctx, const toi_case *c, double dt, double E, double pa[3],
                            double pb[3], double va[3], double vb[3]);
int sim_pair_respond_float(void *ctx, const toi_case *c, double dt, double E, double pa[3],
                           double pb[3], double va[3], double vb[3]);

/// The same with the formulations' kernels in precision q
/// (sim_formulation_kernel_prec; 'all' is every forward formulation with a
/// variant in q, a name without one is refused). "reference" stays the exact
/// kernel, in binary64.
int sim_kernels_select_prec(sim_kernel **out, const char *names, toi_precision q,
                            const toi_msg *msg);

/// Kinds of events.
typedef enum sim_event_kind { SIM_EV_PAIR = 0, SIM_EV_WALL = 1, SIM_EV_CELL = 2 } sim_event_kind;

/// An event as it is processed (for logs and tests).
typedef struct sim_event_info {
  uint64_t number;   ///< 1-based number among physical (pair and wall) events
  sim_event_kind kind;
  double time;
  size_t a, b;       ///< balls (b: the second ball of a pair; for a wall 2*axis+side)
  int applied;       ///< pair: 1 when an impulse was applied
} sim_event_info;

/// A sample of the time series, taken every K physical events.
typedef struct sim_sample {
  uint64_t event;      ///< physical events processed so far
  double time;         ///< simulated time
  double ke_err;       ///< (KE - KE0)/KE0, sums in double-double; NaN when KE0 is not finite
  double mom_err;      ///< |sum over pair events of (P' - P)| / sum_i m_i |v_i(0)|; NaN when
                       ///< either is not finite (momenta beyond DBL_MAX)
  double min_gap;      ///< smallest (|d| - R)/R over neighbouring pairs, in double
  uint64_t overlaps;   ///< pairs with (|d| - R)/R < -overlap_tol and R - |d| beyond the
                       ///< kernel's contact_tolerance
  uint64_t missed;     ///< of those, pairs that crossed contact unseen (see sim.c)
  uint64_t late;       ///< of those, pairs with a pending contact event in the past
  uint64_t pair_events, wall_events, cell_events, null_events;
  double max_pen;      ///< deepest penetration R - |d| over neighbouring pairs (0: none)
} sim_sample;

/// A pair prediction as the run asks the kernel for it (sim_config.on_predict).
typedef struct sim_predict_info {
  uint64_t event;      ///< events processed before it (physical, null and cell
                       ///< crossings; 0: the first sweep): with a and b, unique in a run
  uint32_t a, b;       ///< the balls, in the order of the case
  const toi_case *c;   ///< the case given to the kernel, in its precision; its ID
                       ///< is "eEVENT-pA-B" (EVENT 6 digits, A and B 4 at least)
} sim_predict_info;

/// Run parameters.
typedef struct sim_config {
  double restitution;        ///< ball-ball E in [0, 1]; walls are always elastic
  uint64_t events;           ///< physical events to run
  uint64_t every;            ///< sample every K physical events (0: first and last only)
  uint64_t same_instant;     ///< most events allowed at one instant (0: 10 n + 1000)
  double overlap_tol;        ///< relative overlap threshold for the overlap count
  /// Called for each sample; a non-zero return stops the run (SIM_STOPPED).
  int (*on_sample)(void *ctx, const sim_sample *s);
  /// Called for each processed event (may be NULL); non-zero stops the run.
  int (*on_event)(void *ctx, const sim_event_info *e);
  void *ctx;
  /// 1: the uniform grid of one largest diameter whatever the radii (0: a
  /// hierarchy when a few big balls would make it slow). Events are found the
  /// same either way; their times can differ in the last bits, as a pair is
  /// predicted from the moment it enters a neighbourhood. The uniform grid
  /// gives the results of versions before the hierarchy, bit for bit.
  int uniform_grid;
  /// Called with every pair prediction before the kernel answers it (may be
  /// NULL); non-zero stops the run (SIM_STOPPED).
  int (*on_predict)(void *ctx, const sim_predict_info *p);
} sim_config;

/// The widest lanes the ericson predictions may take from now on, in this
/// process: 4 (AVX2, when the processor has it: the default) or 2 (SSE2).
/// The same events and figures either way; tests set it to hold each path
/// to the other.
void sim_set_lanes(int lanes);

/// Test hook: the k-th growth of a ball's event list from now on fails, in
/// this process, as when memory runs out (k = 0: none fails). Tests use it
/// to hold the ways of writing events to one another when a run stops.
void sim_queue_fail_grow(uint64_t k);

/// How a run ended.
typedef enum sim_status {
  SIM_OK = 0,        ///< ran the requested number of events (or no event was left: idle)
  SIM_NOMEM,         ///< out of memory
  SIM_NAN,           ///< a kernel produced a NaN time or state
  SIM_ZENO,          ///< too many events at one instant
  SIM_FAILED,        ///< a response failed (coincident centres)
  SIM_STOPPED,       ///< a callback asked to stop
  SIM_BAD_INPUT      ///< invalid state or configuration
} sim_status;

/// Outcome of a run.
typedef struct sim_report {
  sim_status status;
  uint64_t event;        ///< physical event number at which the run stopped early
  double time;           ///< simulated time reached
  size_t a, b;           ///< balls involved in a failure (SIZE_MAX: none)
  char message[200];     ///< what went wrong, for people
  sim_sample last;       ///< the final sample
  double max_abs_ke_err; ///< largest |ke_err| over the samples
  double min_gap;        ///< smallest gap over the samples
  uint64_t max_overlaps; ///< most overlapping pairs in one sample
  uint64_t missed;       ///< sum of missed over the samples
  uint64_t late;         ///< sum of late over the samples
  uint64_t predictions;  ///< pair predictions asked of the kernel
  double max_pen;        ///< deepest penetration over the samples (absolute, 0: none)
  int idle;              ///< 1 when the run ended with fewer events than asked because none
                         ///< was pending (every ball at rest, or too slow to reach anything)
  int grid_levels;       ///< levels of the grid holding balls (1: the uniform grid)
} sim_report;

const char *sim_status_name(sim_status s);

/// Runs the event-driven simulation of document 001 section 5 from state s
/// with kernel k. Returns the status also stored in rep->status.
sim_status sim_run(sim_report *rep, const sim_state *s, const sim_kernel *k,
                   const sim_config *cfg);

/// The final ke_err per 10^6 physical events: last.ke_err * 1e6 / last.event
/// (0 when no event ran).
double sim_report_drift(const sim_report *rep);

#endif
