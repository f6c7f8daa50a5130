/* stream.h: case files read, worked on and written a block at a time on several threads, output in input order. */
#ifndef TOI_STREAM_H
#define TOI_STREAM_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include "toi.h"

/// One block of cases of a file, all valid, in input order.
typedef struct toi_stream_block {
  const toi_case *cases;
  size_t n;
  FILE *out;   ///< work: the block's output, in memory
  int slot;    ///< 0 .. toi_stream_slots() - 1: the caller's scratch for this block
  int work_rc; ///< commit: what work returned
  const char *text; ///< commit: what work wrote to out, len bytes
  size_t len;
} toi_stream_block;

/// The work of a command on a stream of case files.
typedef struct toi_stream_opts {
  int jobs;       ///< threads (1 or more)
  size_t block;   ///< cases per block (0: a default suited to jobs); with jobs > 1, lines of the file per block at
                  ///< most, blank and comment lines among them, and at most 256 KiB of them
  /// Solves and scores a block and writes its output to b->out, on any
  /// thread, using only the scratch of b->slot: 0, or nonzero (kept for commit).
  int (*work)(void *ctx, toi_stream_block *b);
  /// In input order on one thread, before b->out is copied: 0, or nonzero to
  /// stop (nothing more is worked on or written; the files are still read to
  /// the end for their diagnostics).
  int (*commit)(void *ctx, toi_stream_block *b);
  /// After each file: its diagnostics and status (as toi_read_cases gives them).
  void (*file_done)(void *ctx, const char *path, const toi_diags *dg, toi_status st);
  void *ctx;
  FILE *out;      ///< where the blocks' outputs go, in input order (NULL: commit writes them)
  /// 1: work gets no b->out and sets b->text and b->len itself, to bytes of
  /// its slot's scratch that stay until commit (no copy through a stream).
  int own_text;
} toi_stream_opts;

/// What a stream did.
typedef struct toi_stream_result {
  toi_status read;  ///< TOI_OK, or the first problem of the files (TOI_ERR_NOMEM stops at once)
  int commit_rc;    ///< the first nonzero value of commit, or 0
  size_t cases;     ///< cases committed
} toi_stream_result;

/// Slots of scratch a caller needs for opts (blocks in flight at once).
int toi_stream_slots(const toi_stream_opts *o);
/// Reads paths[0..nfiles-1] ("-": standard input) a block at a time: each
/// block is read, parsed and worked on by one of o->jobs threads (the
/// caller's among them) while the others read and work on the next ones,
/// then checked for bad lines, committed and copied to o->out in input order
/// (commit runs on one thread at a time), so the output is the same for any
/// jobs. Duplicate IDs are
/// found exactly at the end of each file (toi_case_stream_close): a caller
/// keeps its output until r->read says every file was valid. After the first
/// problem (a bad line, a file that cannot be read, commit's refusal) nothing
/// more is worked on or written, but every file is still read for its
/// diagnostics. Memory does not depend on the files' sizes. 0, or -1 when
/// threads or memory could not be had (r->read is then TOI_ERR_NOMEM).
int toi_stream_files(toi_stream_result *r, const toi_stream_opts *o, int nfiles, char **paths);

#endif

/* ---- exact quantiles of a stream, and rows of `run` merged block by block ---- */

#include "bench.h"

/// Exact nearest-rank quantiles (toi_quantile's) of a stream of doubles (no
/// NaN) in bounded memory: the values' keys (their order, toi_double_ord) are
/// kept in memory up to a bound (max values, 8 bytes each); past it every
/// value goes to an unnamed temporary file of TMPDIR (8 bytes a value), and a
/// quantile rereads it, counting the values by 16 bits of their order at a
/// time, top bits first, within the bucket of the wanted rank, until that
/// bucket holds at most 2^20 values, which are then selected in memory (8 MB
/// at most).
typedef struct toi_qstream {
  FILE *spill;   ///< NULL while the values are in memory
  uint64_t n;
  uint64_t *mem; ///< the keys of the n values while in memory
  size_t cap, max;
} toi_qstream;

/// Values kept in memory by toi_qstream_init: 2^20 (8 MB).
#define TOI_QSTREAM_MEM ((size_t)1 << 20)
/// A stream that keeps up to TOI_QSTREAM_MEM values in memory: 0.
int toi_qstream_init(toi_qstream *q);
/// A stream that keeps up to max values in memory (0: none; a temporary file
/// from the first value): 0.
int toi_qstream_init_mem(toi_qstream *q, size_t max);
/// 0, or -1 without memory (errno ENOMEM) or on a write error (errno kept),
/// the temporary file made when the values pass the bound.
int toi_qstream_add(toi_qstream *q, const double *v, size_t n);
/// What toi_quantile(all values, q) gives (NaN when there is none) in *out:
/// 0, or -1 on a read error or without memory.
int toi_qstream_quantile(toi_qstream *q, double quantile, double *out);
/// The same for quantiles[0..nq-1] into out[0..nq-1], the values read once
/// when they can be selected in memory (at most 2^20 of them). 0, or -1.
int toi_qstream_quantiles(toi_qstream *q, const double *quantiles, size_t nq, double *out);
void toi_qstream_free(toi_qstream *q);

/// Adds the row of a block of cases (after every earlier block) to acc, as
/// toi_bench_run over all the cases at once would have made it: the counts
/// summed, the maxima with their first witness, the ULP errors to ulps
/// (acc->st keeps none), the second table's counts, extremes and witness
/// (its values go to toi_run_row_merge_target). 0, or -1 on a write error.
int toi_run_row_merge(toi_run_row *acc, const toi_run_row *blk, toi_qstream *ulps);

/// The values of an external candidate's second table, merged block by block:
/// spilled for exact medians, their maxima kept (NaN while there is none).
typedef struct toi_target_merge {
  toi_qstream tulps, dts, gaps;
  double max_tulp, max_dt, max_dev;
} toi_target_merge;

/// Its three streams each keep up to mem values in memory: 0.
int toi_target_merge_init(toi_target_merge *m, size_t mem);
/// Adds the second table's values of a block's row (after every earlier
/// block) to m, the row's counts having gone to acc by toi_run_row_merge.
/// 0, or -1 on a write error.
int toi_run_row_merge_target(toi_target_merge *m, const toi_run_row *blk);
void toi_target_merge_free(toi_target_merge *m);
