/* case_stream_tune.h: the in-memory ID check of a case stream, tuned by tests (private). */
#ifndef TOI_CASE_STREAM_TUNE_H
#define TOI_CASE_STREAM_TUNE_H

#include <stddef.h>
#include <stdint.h>
#include "toi.h"

/* Right after toi_case_stream_open: the hash of the in-memory ID set (NULL
   keeps it) and how many IDs it holds before the next go to the spill (a
   file that is not read through the set keeps holding none). Tests use it to
   make hashes collide and to pass the bound with few lines. */
void toi_case_stream_tune(toi_case_stream *s, uint64_t (*hash)(const char *id, size_t len), size_t mem_ids);

/* The one-pass reader of short lines (toi_case_stream_read) from now on, in
   this process: 2 sixty-four bytes a step (AVX2, where the machine has it),
   1 thirty-two (SSE2), 0 not at all (every line by the general path); 3 as
   2, but the newlines of the blocks read whole (toi_case_stream_read_raw,
   toi_line_block_split) found by AVX-512 (BW); -1 or a level the machine
   lacks: its best. Returns the level in use. The same lines every way;
   tests hold each way to the others. */
int toi_case_stream_simd_use(int level);

/* After the last toi_case_stream_accept of a file and before its
   toi_case_stream_close: checks buckets part, part + nparts, ... of the
   in-memory ID set for a hash seen twice, so that close does not check the
   buckets found clean again (a bucket with a hash twice, or with IDs in the
   spill, is left to close, which checks and reports as ever). Calls with the
   parts 0 .. nparts - 1 may run at once on several threads, each on its own
   part; a part never checked is checked at close. 0, or -1 without memory
   (the buckets not yet checked are left to close). */
int toi_case_stream_check_ids(toi_case_stream *s, unsigned part, unsigned nparts);

/* The hash the in-memory ID set keeps for each case of b that parsed
   (toi_line_block_parse), into hash[0 .. b->n - 1] (0 for a bad line):
   reads s's hash function alone, so that the threads of a stream can hash
   their blocks while another accepts its own. */
void toi_case_stream_hash_ids(const toi_case_stream *s, const toi_line_block *b, uint64_t *hash);

/* toi_case_stream_accept with the hashes of toi_case_stream_hash_ids (made
   with the same s): the same diagnostics, IDs and status, in file order. */
TOI_MUST_USE toi_status toi_case_stream_accept_hashed(toi_case_stream *s, const toi_line_block *b, const uint64_t *hash,
                                         toi_diags *diags);

/* A block of a case stream read whole (toi_case_stream_read_raw): the bytes
   of its lines, cut into lines by toi_line_block_split on the thread that
   parses them. */
typedef struct toi_raw_block {
  size_t from, to;  /* its lines: the bytes [from, to) of the block's text */
  size_t nlines;    /* the file's lines there (blank and comment lines too); 0: nothing to split */
  long first_line;  /* the number of the first */
} toi_raw_block;

/* toi_case_stream_read, the same lines with the same numbers, problems and
   end of the file, but the block's lines are left as the file's bytes in
   b's text (one read into it, after the bytes the last block left), with
   their count (at most max_lines): b->n is 0 and raw->nlines not, and
   toi_line_block_split makes the lines. So the reading lock of a stream
   holds a read and a count, no copy line by line. The first block (its byte
   order mark), bytes that hold a NUL, and a line that one read does not hold
   whole (perhaps longer than TOI_LINE_MAX) are read as toi_case_stream_read
   reads them (raw->nlines 0, b->n set). The end of the file: b->n and
   raw->nlines 0. */
TOI_MUST_USE toi_status toi_case_stream_read_raw(toi_case_stream *s, toi_line_block *b, size_t max_lines,
                                                 size_t max_bytes, toi_raw_block *raw);

/* A range of a regular file (its bytes [k R, (k + 1) R), R = 256 KiB),
   read outside the reading lock by toi_case_stream_pread, with what can be
   known of it alone. */
typedef struct toi_range {
  uint64_t k;
  size_t got;   /* bytes read: fewer than R, the end of the file is there */
  int err;      /* errno of a failed read, or 0 */
  size_t nl;    /* its newlines */
  size_t last;  /* the offset past its last newline (0: none) */
  size_t nul;   /* the offset of its first NUL byte, or SIZE_MAX */
} toi_range;

/* 1 while s reads a regular file by ranges (from its open, if it is one and
   not standard input; until a block needs the reading in order). */
int toi_case_stream_ranged(const toi_case_stream *s);

/* Range rr->k of s's file into *text (grown to fit, *cap its size; the
   range at a fixed offset in it), with its counts: on any thread at once
   (reads s's descriptor alone). 0, or -1 out of memory (a failed read is in
   rr->err). */
int toi_case_stream_pread(const toi_case_stream *s, toi_range *rr, char **text, size_t *cap);

/* The next block as toi_case_stream_read_raw gives it, made of the range
   that toi_case_stream_pread read into b's text and what the last block
   left: in the order of the ranges (0, 1, 2, ...: another order is
   TOI_ERR_IO), one at a time, so that the reading lock holds a copy of a
   line's end and a sum. Where the bytes left are more than a line's end
   (max_lines reached early), the range holds a NUL byte, or a line longer
   than a range, the file goes on in order from there (its offset set past
   the range, the range's bytes kept), and from then on, as once s is not
   ranged, this is toi_case_stream_read_raw (the range's bytes are not read).
   max_lines >= 1. */
TOI_MUST_USE toi_status toi_case_stream_read_range(toi_case_stream *s, toi_line_block *b, size_t max_lines,
                                                   size_t max_bytes, const toi_range *rr, toi_raw_block *raw);

/* The lines of a block of toi_case_stream_read_raw, on any thread (touches b
   only): each NUL-terminated in place (a CR before its '\n' taken off),
   blank and comment lines skipped, numbered, as toi_case_stream_read leaves
   them. Nothing when raw->nlines is 0. */
void toi_line_block_split(toi_line_block *b, const toi_raw_block *raw);

#endif
