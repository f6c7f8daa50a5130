/* sweep.h: the sweep result accumulator, its versioned text format, and the shared gen options. */
#ifndef TOI_SWEEP_H
#define TOI_SWEEP_H

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include "bench.h"
#include "candidate.h"
#include "gen.h"
#include "score.h"
#include "toi.h"
#include "toi_msg.h"
#include "toiref.h"

/*
 * Result file format, version 1 (`toibench sweep`, `toibench merge`).
 *
 * Text, one record per line, fields separated by single spaces; lines
 * starting with '#' are comments. The first line is exactly
 * "# toibench-sweep v1". Then a header:
 *
 *   gen OPTIONS...        the generator options (toi_gen_opts_format), e.g.
 *                         "gen family=grazing seed=1 dim=2 k=1:60:1"
 *                         (then " tmax=T" when sweep --tmax scored every
 *                         column as hit within the step T)
 *   count N               cases in the whole sweep (indexes 0 .. N-1)
 *   range START END       the cases this file covers, [START, END): a shard
 *                         covers a part, a whole sweep or a full merge 0 N
 *   formulations NAME...  the formulations scored, in order, then the
 *                         external solvers (sweep --solver, --solver-cmd,
 *                         engines named by -f), each a column like a
 *                         formulation's
 *   precisions NAME...    only when some column is not binary64: each
 *                         column's precision, in the order of formulations
 *                         (binary64, binary32). Such a column's cases are
 *                         rounded to its precision (a case with a number
 *                         beyond its range is OUT_OF_DOMAIN, without a
 *                         confusion record), scored against the exact answer
 *                         of the rounded case, and its ULP errors, bits and
 *                         MAX_RATIO (with kappa 2^-p and 2^(emin-p)) are in its
 *                         precision; its confusion records use the rounded
 *                         case's exact class. merge refuses inputs whose
 *                         precisions differ. Without the line: all binary64.
 *   bins B                number of parameter bins
 *
 * and six blocks, each introduced by two blank lines (gnuplot's `index 0`
 * .. `index 5`) and a '#' line naming its columns. Every record starts with
 * its block's tag, so `grep '^stat '` or awk also select a block.
 *
 * index 0  bin B PARAM VALUE LABEL CASES N_none N_overlap N_static N_contact
 *              N_separating N_miss N_graze N_hit
 *          one per bin: its parameter (k, e, family or all), value, label,
 *          case count and the counts per exact class (reference).
 * index 1  stat FORM B CASES IN_DOMAIN OUT_OF_DOMAIN AGREE MISSED GHOST OTHER
 *               TIMED MAX_ULP MAX_BITS KAPPA_MIN KAPPA_MAX KAPPA_INF MAX_RATIO
 *               MAX_ULP_HEX MAX_BITS_HEX KAPPA_MIN_HEX KAPPA_MAX_HEX MAX_RATIO_HEX
 *          one per formulation and bin. A solver's OUT_OF_DOMAIN counts the
 *          cases it declined or failed on (not scored). MISSED/GHOST/OTHER are classification
 *          errors (see score.h); TIMED cases have their time scored. MAX_ULP is
 *          the largest |T - t*|/ulp(t*), MAX_BITS the largest bits of error,
 *          KAPPA_* the range of the relative condition number of t* over timed
 *          cases (KAPPA_INF counts kappa = +Inf: t* = 0 or D = 0), MAX_RATIO the
 *          largest |T - t*| / (kappa 2^-53 |t*| + 2^-1075) (relative error
 *          against conditioning, with the subnormal floor): about 1
 *          or below means the error is what the conditioning explains, far
 *          above means the formulation loses accuracy of its own. Maxima are
 *          %.6g for people and again as C99 hex floats (exact, used by merge);
 *          "nan" when there is no timed case.
 * index 2  hist FORM B H LO HI COUNT
 *          histogram of the ULP error of timed cases, nonzero bins only (the
 *          edges LO, HI are exact, %.17g):
 *          H = 0: ulp = 0 (LO = HI = 0); H = 1: 0 < ulp < 0.5 (correctly
 *          rounded); H = 2..65: 2^(H-3) <= ulp < 2^(H-2); H = 66: ulp >= 2^63;
 *          H = 67: infinite (a NaN or infinite time where a root exists).
 * index 3  khist FORM B J LO HI COUNT
 *          histogram of kappa over timed cases, nonzero bins only: J = 0:
 *          kappa < 2; J = 1..126: 2^J <= kappa < 2^(J+1); J = 127: >= 2^127;
 *          J = 128: infinite.
 * index 4  confusion FORM B EXACT VERDICT COUNT
 *          nonzero counts of (exact class, the formulation's verdict).
 * index 5  witness FORM B WHAT INDEX VALUE AUX VALUE_HEX AUX_HEX CASE-LINE...
 *          WHAT = max_ulp (largest ULP error; AUX its bits of error),
 *          max_ratio (largest relerr/(kappa 2^-53); AUX its kappa) or misclass
 *          (the lowest-index classification error; VALUE its score kind,
 *          1 missed, 2 ghost, 3 other, AUX the verdict as a toi_class number).
 *          INDEX is the case index in the sweep; ties of VALUE go to the lowest
 *          index. From field 10 on, the line is the case in format v1, so
 *            grep '^witness ' R | cut -d' ' -f10- > worst.cases
 *          gives a replayable case file.
 *
 * Every count is an integer and every statistic a maximum or minimum with a
 * deterministic tie rule, so the result does not depend on the order in which
 * cases are evaluated: any -j gives the same bytes, and merging shards gives
 * exactly the whole sweep's file. Sampled maxima are lower bounds of the true
 * maxima over the family.
 *
 * Reading (sweep_read, behind merge) refuses a file cut short or edited, with
 * "FILE:LINE: what" (or "FILE: what" for a check on the whole file). Beyond
 * the syntax of each field, it checks what sweep_write and the accumulator
 * (sweep_eval_case_with, sweep_acc_merge) make true of every result, shards
 * and merges included; every sum is checked for 64-bit overflow:
 *  - every line ends with a newline; the six column lines ("# bin ...",
 *    "# stat ...", "# hist ...", "# khist ...", "# confusion ...",
 *    "# witness ...") come once each, in this order, after the header, even
 *    when their blocks are empty, and each record lies in its own block;
 *  - one bin record per bin and one stat record per column and bin; no second
 *    hist or khist record for the same FORM B H, confusion record for the
 *    same FORM B EXACT VERDICT, or witness for the same FORM B WHAT; no zero
 *    histogram or confusion count (those are not written);
 *  - the bins' CASES sum to END - START and each bin's class counts to its
 *    CASES;
 *  - per column and bin: CASES is the bin's CASES; IN_DOMAIN + OUT_OF_DOMAIN
 *    = CASES; AGREE + MISSED + GHOST + OTHER = IN_DOMAIN; TIMED <= AGREE; the
 *    hist counts sum to TIMED and so do the khist counts (a timed case has a
 *    ULP error and a kappa, never NaN: its root exists); KAPPA_INF is the
 *    count of khist bin 128;
 *  - the statistics: MAX_ULP and MAX_BITS are nan exactly when TIMED is 0,
 *    MAX_ULP lies in the highest hist bin, MAX_BITS >= 0; KAPPA_MIN and
 *    KAPPA_MAX are nan exactly when no timed kappa is finite, else lie in the
 *    lowest and highest of khist bins 0..127; MAX_RATIO is nan when no kappa
 *    is finite, and 0 or nan when MAX_ULP is 0; each %.6g field is its hex
 *    field printed with %.6g, and histogram edges are those of their bin;
 *  - confusion (for a column that is not binary64, only: the counts sum to
 *    between IN_DOMAIN and CASES, and the scores fit them): the counts of an
 *    exact class are at most the bin's count of that class; they sum to CASES for a formulation (its out-of-domain cases
 *    have records) or to IN_DOMAIN for a solver (the cases it declined have
 *    none), a column is the same in every bin, and the formulations come
 *    first; the counts AGREE (TIMED of them timed), MISSED, GHOST and OTHER
 *    can be spread over the confusion entries as scoring does (score.h:
 *    forward, by the groups of the exact class and the verdict; with tmax=,
 *    either contact may count as no contact; a formulation named as a
 *    reverse one in the registry, also agree or missed for a no-contact
 *    verdict, agree or ghost for another), the out-of-domain cases making
 *    whole exact classes;
 *  - witnesses: max_ulp exactly when TIMED > 0, with VALUE = MAX_ULP and AUX
 *    <= MAX_BITS; max_ratio exactly when MAX_RATIO is not nan, with VALUE =
 *    MAX_RATIO and KAPPA_MIN <= AUX <= KAPPA_MAX; misclass exactly when
 *    MISSED + GHOST + OTHER > 0, VALUE a kind with a nonzero count and AUX a
 *    verdict of a confusion entry that can hold that kind; INDEX in
 *    [START, END); VALUE and AUX are VALUE_HEX and AUX_HEX printed with %.6g.
 *  - a line "# checksum fnv1a64 HEX" (a checkpoint's, sweep --checkpoint)
 *    is the last line, and HEX, 16 lowercase hex digits, the 64-bit FNV-1a
 *    hash of every byte before it; sweep_read_checkpoint requires it. A result
 *    written by sweep_write has none.
 * Not checked within one file: the count line, the gen line and the bin
 * descriptions (merge compares them between its inputs), a witness's INDEX
 * against its case, and the case itself.
 */

#define SWEEP_VERSION_LINE "# toibench-sweep v1"
#define SWEEP_CHECKSUM_PREFIX "# checksum fnv1a64 "
#define SWEEP_HBINS 68
#define SWEEP_KBINS 129
#define SWEEP_MAXFORMS 64

typedef enum sweep_what { SW_MAX_ULP = 0, SW_MAX_RATIO, SW_MISCLASS, SW_WHAT_COUNT } sweep_what;

/// A case that reached a statistic: value (ULP error, ratio, or the score
/// kind of a misclassification), aux (bits of error, kappa, or the verdict).
typedef struct sweep_witness {
  int set;
  double value, aux;
  uint64_t index;
  toi_case c;
} sweep_witness;

/// Statistics of one formulation on one bin.
/// The fields every scored case touches come first, on two cache lines.
typedef struct sweep_cell {
  uint64_t cases;
  uint64_t kind[TOI_SCORE_KIND_COUNT];
  uint64_t timed;
  uint64_t kinf;
  double max_ulp, max_bits, kmin, kmax, max_ratio; ///< NaN until set
  uint64_t confusion[TOI_CLASS_COUNT][TOI_CLASS_COUNT]; ///< [exact][verdict]
  uint64_t hist[SWEEP_HBINS];
  uint64_t khist[SWEEP_KBINS];
  sweep_witness w[SW_WHAT_COUNT];
} sweep_cell;

/// One parameter bin as written in the file.
typedef struct sweep_bin {
  char param[16];
  int value;
  char label[32];
} sweep_bin;

/// At most this many bins (a finer range needs a STEP).
#define SWEEP_MAXBINS 4096

/// What a result file describes, apart from its statistics.
typedef struct sweep_meta {
  char gen[512];
  uint64_t count, start, end;
  size_t nform;
  char forms[SWEEP_MAXFORMS][64];  ///< formulations, then solver columns
  toi_precision prec[SWEEP_MAXFORMS]; ///< each column's precision (binary64 unless a precisions line says)
  size_t nbins;
  sweep_bin *bins;  ///< [nbins], malloc'ed
} sweep_meta;

/// Fills m from generator options and formulations (range 0..count). 0 or -1.
int sweep_meta_init(sweep_meta *m, const toi_gen_opts *g, uint64_t count, const toi_formulation *const *fs,
                    size_t nf);
void sweep_meta_free(sweep_meta *m);

/// How an accumulator's cases had the ULP errors of their timed answers
/// placed (statistics, not results: no output depends on them; merged by
/// sweep_acc_merge as sums): placed[s] counts
/// the answers placed from stage s, SWEEP_BY_ULPS their distance in values of
/// the precision to the rounded root alone, SWEEP_BY_OFFSET that and the
/// root's offset from its rounding (one error measure per case and
/// direction: probes counts them), SWEEP_BY_BOUND toi_ref_error_bound's
/// enclosure, SWEEP_BY_EXACT the error itself; kappas counts the kappas
/// measured (not only enclosed), one at most per case and direction.
enum { SWEEP_BY_ULPS = 1, SWEEP_BY_OFFSET, SWEEP_BY_BOUND, SWEEP_BY_EXACT, SWEEP_BY_COUNT };
typedef struct sweep_lazy_counts {
  uint64_t placed[SWEEP_BY_COUNT];
  uint64_t probes;
  uint64_t kappas;
} sweep_lazy_counts;

typedef struct sweep_acc {
  size_t nform, nbins;
  uint64_t *bincount;  ///< [bin]
  uint64_t *bincls;    ///< [bin][class]
  sweep_cell *cells;   ///< [form][bin]
  sweep_lazy_counts lazy; ///< how its timed answers were placed (statistics)
  /// The columns' part of their answers' keys (sweep_eval_case_given), made
  /// for the candidates keyed (their array and count) and kept for the next
  /// cases: an accumulator's columns are the same candidates in every case,
  /// as its cells are theirs.
  const toi_candidate *keyed;
  size_t nkeyed;
  uint64_t colkey[SWEEP_MAXFORMS];
  /// Made with colkey: each column's score of a binary64 answer without a
  /// step, by [root in its direction][exact class][verdict] (sweep.c,
  /// score_table), 0 where the column is scored the general way.
  uint8_t coltab[SWEEP_MAXFORMS][2][TOI_CLASS_COUNT][TOI_CLASS_COUNT];
} sweep_acc;

int sweep_acc_init(sweep_acc *a, size_t nform, size_t nbins);  ///< 0 or -1 (no memory)
void sweep_acc_free(sweep_acc *a);
/// Adds b into a (same shape): commutative and associative.
void sweep_acc_merge(sweep_acc *a, const sweep_acc *b);
/// Offers a witness: kept when the value is larger, or equal with a lower index.
void sweep_witness_offer(sweep_witness *w, double value, double aux, uint64_t index, const toi_case *c);
/// Offers a witness kept when its index is the lowest (first occurrence).
void sweep_witness_offer_first(sweep_witness *w, double value, double aux, uint64_t index,
                               const toi_case *c);

/// frexp(x, e) bit for bit, by the bit pattern (sweep.c): subnormals,
/// zeros, infinities and NaN included.
double sweep_frexp(double x, int *e);
/// Histogram bin of a ULP error (>= 0 or +Inf) and of a kappa (>= 0 or +Inf).
int sweep_ulp_bin(double ulp);
int sweep_kappa_bin(double kappa);
/// |T - t*| / (kappa 2^-53 |t*| + 2^-1075) for a scored time (about 1 or
/// below: what the conditioning and the double format explain), or NaN.
double sweep_ratio(double ulp, double ref_t, double kappa);
/// The same in precision q: |T - t*| / (kappa 2^-p |t*| + 2^(emin-p)), ulp in
/// q's ULPs (binary64 is sweep_ratio).
double sweep_ratio_prec(double ulp, double ref_t, double kappa, toi_precision q);
/// The binary64 ratio's denominator (sweep_ratio is ulp over it, ulp in
/// units of ulp(t*)) for ref_t and kappa, and the same for a normal ref_t
/// by the shorter way the span's table pass takes (sweep.c, ratio_den64n):
/// the same doubles. For tests.
double sweep_ratio_den(double ref_t, double kappa);
double sweep_ratio_den64n(double ref_t, double kappa);


/// Scores one case for every candidate (column j is cands[j]) into acc (bin
/// b): an in-process candidate is solved here; an out-of-process one's answer
/// is stored[j] (stored may be NULL when there is none). An answer that is not
/// there (declined, failed) is counted OUT_OF_DOMAIN, not scored. Each column
/// is scored with its candidate's direction and domain against the true
/// contact; a finite tmax scores every column as "hit within the step" (as
/// `run --tmax`). Kappa is computed only when some time is scored in that
/// direction.
TOI_MUST_USE toi_status sweep_eval_case_with(sweep_acc *acc, const toi_candidate *cands, size_t nc,
                                             const toi_answer *const *stored, double tmax, const toi_case *c,
                                             size_t b, uint64_t index, toi_ref_engine engine);

/// A column's answer to one case as scoring uses it: state is a
/// toi_answer_state (only TOI_ANSWERED is scored), or SWEEP_NOT_RUN when the
/// candidate could not be run (the case then fails with TOI_ERR_RANGE).
typedef struct sweep_answer {
  int state;
  toi_result r;
} sweep_answer;
#define SWEEP_NOT_RUN (-1)

/// toi_score_answer's score against the true contact alone (its sc, with_target
/// 0), with the step tmax (+Inf: none), the same bits, except that the ULP
/// error and bits of a timed answer whose time is not NaN are left NaN for
/// the caller to measure or bound (toi_ref_error, toi_ref_error_bound); a
/// timed answer's error is never NaN otherwise.
TOI_MUST_USE toi_status score_case_deferred(toi_score_case *out, toi_result r, toi_direction dir, unsigned domain,
                                            const toi_case *c, const toi_ref *ref, double tmax);

/// The errors score_answer_prepared measured on one prepared case, the last
/// SCORE_MEMO_N (answer's bits, direction): an answer given again (several
/// formulations often give the same double) has its error from here, the
/// same doubles, instead of being measured again. Reset when the prepared
/// case is made.
#define SCORE_MEMO_N 4
typedef struct score_memo {
  int n, next;                   /* entries in use; the one to replace next */
  uint64_t tbits[SCORE_MEMO_N];  /* the answers' bits */
  toi_direction dir[SCORE_MEMO_N];
  double ulp[SCORE_MEMO_N], bits[SCORE_MEMO_N];
} score_memo;

/// toi_score_answer (the same *out and status) with o->prepared (not NULL)
/// made from c with o->engine by ref_prepare_deferred_solved (ref_bench.h;
/// solved: c's binary64 answer, status TOI_OK) or, solved NULL,
/// ref_prepare_deferred, and filled since by the measures alone: made here
/// when *have_prep is 0 and an error is measured (then *have_prep is 1),
/// so an answer without a time to score costs no copy; the error of a
/// timed answer by ref_error_prepared, or from *memo (NULL: none; reset
/// with the prepared case) when that answer was measured already.
TOI_MUST_USE toi_status score_answer_prepared(toi_score_detail *out, toi_result r, toi_direction dir, unsigned domain,
                                              const toi_case *c, const toi_ref *ref, const toi_score_opts *o,
                                              int *have_prep, const toi_ref *solved, score_memo *memo);

/// sweep_eval_case_with with every column's answer given: ans[j * stride] is
/// column j's. ref64, when not NULL, is the exact answer of c in binary64 as
/// toi_ref_solve gives it with the status TOI_OK (from toi_ref_solve_batch),
/// so it is not solved again.
TOI_MUST_USE toi_status sweep_eval_case_given(sweep_acc *acc, const toi_candidate *cands, size_t nc,
                                              const sweep_answer *ans, size_t stride, double tmax,
                                              const toi_case *c, size_t b, uint64_t index, toi_ref_engine engine,
                                              const toi_ref *ref64);

/// Cases at most in one call of sweep_eval_span.
#define SWEEP_SPAN_MAX 256

/// sweep_eval_case_given on each case k of cases[0..n-1] in the order
/// order[0..n-1] (a permutation of 0..n-1): bin bins[k], index index0 + k,
/// column j's answer ans[j * stride + k], its exact binary64 answer refs[k]
/// when st[k] is TOI_OK (else the case fails with TOI_ERR_RANGE). The same
/// accumulator as those calls: a case's binary64 columns are placed from
/// their score tables where that decides (no view, no answer key, no measure
/// of the answer's own), and only the columns left are scored the general
/// way. A failure stops the cases after it in
/// the order whose index is higher: *fail is the failing position of the
/// lowest index (with its status returned), or n with TOI_OK.
TOI_MUST_USE toi_status sweep_eval_span(sweep_acc *acc, const toi_candidate *cands, size_t nc, const sweep_answer *ans,
                                        size_t stride, double tmax, const toi_case *cases, const size_t *bins,
                                        const uint16_t *order, size_t n, uint64_t index0, toi_ref_engine engine,
                                        const toi_ref *refs, const toi_status *st, size_t *fail);

/// Where the time of a sweep went (sweep --profile): seconds summed over the
/// threads, measured per block of cases (not per case) on the monotonic clock.
typedef struct sweep_profile {
  double gen;                   ///< generating the cases
  double ref;                   ///< the reference's exact answers (batch solve)
  double cand[SWEEP_MAXFORMS];  ///< each column's candidate: its solve calls
  double score;                 ///< scoring: error and kappa measures, accumulation
  uint64_t cases;               ///< cases scored
} sweep_profile;

/// What became of one external candidate over a whole sweep.
typedef struct sweep_tally {
  uint64_t failed, declined, malfunctions, protocol_errors;
  toi_quota quota; ///< stderr lines and protocol messages shown, over every block
} sweep_tally;

/// How a sweep runs.
typedef struct sweep_opts {
  const toi_gen_opts *g;
  uint64_t start, end;          ///< the cases [start, end)
  int jobs;
  const toi_progress *progress; ///< NULL: none
  double tmax, timeout;
  toi_ref_engine engine;
  const toi_msg *msg;           ///< failures and solver messages
  sweep_profile *profile;       ///< NULL: not measured; else the times are added to it
} sweep_opts;

/// Scores the candidates (in-process ones first: the result file's column
/// order) on the cases [o->start, o->end) of o->g into *out (nbins bins; free
/// it with sweep_acc_free), with the same bytes for any o->jobs. With an
/// out-of-process candidate, block by block. tally[0..nc-1] accumulates
/// (zero it before the first of several calls over parts of a sweep). 0, or
/// -1 after saying why to o->msg.
int sweep_drive(sweep_acc *out, const toi_candidate *cands, size_t nc, size_t nbins, const sweep_opts *o,
                sweep_tally *tally);
/// Measures speed alone: generation (gen), the reference (cand NULL) or one
/// in-process candidate on count cases (the first 65536 generated beforehand
/// and reused), on jobs threads; *seconds the time taken. 0 or -1.
int sweep_time_only(double *seconds, const toi_gen_opts *g, uint64_t count, int jobs, int gen,
                    const toi_candidate *cand, toi_ref_engine engine);
/// After the result is written: tells msg what was not shown, not scored, and
/// which candidates malfunctioned; returns 1 when one did.
int sweep_finish(const toi_candidate *cands, size_t nc, const sweep_tally *tally, const toi_msg *msg);

/// Name of a score kind ("agree", "missed", ...).
const char *sweep_kind_name(int k);

/// Writes the result file. 0 or -1 on a write error.
int sweep_write(FILE *f, const sweep_meta *m, const sweep_acc *a);
/// Reads a result file into m and a (both initialised here; free them even on
/// error) and checks it as the format comment above says. On error hands msg
/// "FILE:LINE: message" (or "FILE: message") and returns -1 for a bad result,
/// -2 when the file cannot be read (missing, a directory, an I/O error).
int sweep_read(const char *path, sweep_meta *m, sweep_acc *a, const toi_msg *msg);
/// Writes a checkpoint: the result file, then its checksum line. 0 or -1.
int sweep_write_checkpoint(FILE *f, const sweep_meta *m, const sweep_acc *a);
/// sweep_read of a checkpoint: also -1 when its checksum line is missing.
int sweep_read_checkpoint(const char *path, sweep_meta *m, sweep_acc *a, const toi_msg *msg);

/* ---- generator options shared by gen, sweep and hunt ---- */

/// Options given on the command line before the family is known.
typedef struct gen_cli {
  int family;           ///< -1 until given
  int has_seed, has_dim, has_k, has_e, has_f, has_pos, has_vel, has_radius, has_impact, has_sampling;
  uint64_t seed;
  int dim;
  toi_gen_range k, e, f;
  double pos, vel, rlo, rhi, blo, bhi;
  toi_gen_sampling sampling;
  int has_precision;
  toi_precision precision; ///< --precision: every number of every case a value of it
} gen_cli;

void gen_cli_init(gen_cli *g);
/// Tries argv[*i] as a generator option (consuming its value). Returns 1 when
/// consumed, 0 when not a generator option, -1 after printing a usage error.
int gen_cli_option(gen_cli *g, const char *cmd, int argc, char **argv, int *i);
/// Builds the options of family g->family (default_family when none was
/// given). Returns 0 or -1 after printing a usage error (an option that does
/// not apply to the family, a range out of bounds).
int gen_cli_build(const gen_cli *g, const char *cmd, toi_gen_family default_family, toi_gen_opts *o);
/// The generator part of --help.
void gen_cli_help(FILE *f);

/* ---- parallel chunks with a progress line ---- */

/// Work on one chunk; returns 0, or nonzero to stop every worker.
typedef int (*sweep_chunk_fn)(void *ctx, int worker, uint64_t chunk);

typedef struct sweep_run {
  int jobs;
  uint64_t nchunks;
  sweep_chunk_fn fn;
  void *ctx;
  atomic_uint_least64_t done;  ///< cases done, updated by fn
  uint64_t total;              ///< cases to do, for the progress line
  const toi_progress *progress; ///< where progress goes (NULL: nowhere)
  const char *what;            ///< label of the progress line
} sweep_run;

/// Runs fn over chunks 0 .. nchunks-1 on `jobs` threads. Returns the first
/// nonzero value fn returned (0 when all succeeded), or -1 when threads could
/// not be started.
int sweep_parallel(sweep_run *r);

/// Number of online cores (at least 1).
int sweep_default_jobs(void);
/// Parses -j's value (1..1024). 0 or -1.
int sweep_parse_jobs(const char *s, int *jobs);
/// Peak resident set size of this process in kB (VmHWM), or -1.
long sweep_peak_rss_kb(void);
/// Monotonic seconds.
double sweep_now(void);

/* ---- work shared among processes (toibench-mpi, src/mpi/; src/bench/sweep_dist.c) ---- */

/// How the processes of one run talk, given by the caller (src/mpi/ over
/// MPI); the library never sees MPI. Every call is collective: every process
/// makes it, in the same order. Wherever a `const sweep_dist *` is taken,
/// NULL means one process doing it all.
typedef struct sweep_dist {
  void *ud;
  int rank, size; ///< this process, of size; rank 0 writes the result
  /// The next unit of a pass of n units, from a counter the processes share
  /// (each unit comes out once); >= n when none is left, after which the
  /// process calls it no more in this pass.
  uint64_t (*next)(void *ud, uint64_t n);
  /// The bytes buf[0..len) of every process, at rank 0 (at every process when
  /// all): *out (malloc'ed; free it) holds them in rank order, lens[0..size)
  /// their lengths (caller's array; may be NULL where no bytes arrive). 0, or -1.
  int (*gather)(void *ud, const void *buf, size_t len, int all, unsigned char **out, size_t *lens);
  /// Rank 0's v, at every process.
  uint64_t (*bcast)(void *ud, uint64_t v);
} sweep_dist;

/// 1 at the process that writes (rank 0, or d NULL).
int sweep_dist_lead(const sweep_dist *d);
/// Rank 0's v at every process (v itself when d is NULL).
uint64_t sweep_dist_share(const sweep_dist *d, uint64_t v);
/// sweep_drive with the work shared among the processes of d (d NULL:
/// sweep_drive itself): [o->start, o->end) in units of a multiple of 16384
/// cases handed out one at a time, each scored by sweep_drive on o->jobs
/// threads, merged with sweep_acc_merge; rank 0's accumulator gets every
/// process's. At rank 0 *out has the bytes sweep_drive gives; elsewhere, that
/// process's part. Every process returns 0, or every one -1 (said to o->msg
/// where it failed).
int sweep_dist_drive(const sweep_dist *d, sweep_acc *out, const toi_candidate *cands, size_t nc, size_t nbins,
                     const sweep_opts *o, sweep_tally *tally);
/// An accumulator as bytes that read the same on any machine type (wire.h:
/// every field little-endian at a fixed width, doubles as their bits):
/// bincount[], bincls[][], then each cell of cells[] in order; *len bytes
/// (sweep_acc_packed_len), malloc'ed, or NULL. sweep_acc_unpack fills a
/// (initialised here, of the shape nform x nbins; 0, or -1 when the bytes are
/// not one of that shape).
unsigned char *sweep_acc_pack(const sweep_acc *a, size_t *len);
int sweep_acc_unpack(sweep_acc *a, const unsigned char *p, size_t len, size_t nform, size_t nbins);
/// The length of a packed accumulator of nform x nbins.
size_t sweep_acc_packed_len(size_t nform, size_t nbins);

#endif
