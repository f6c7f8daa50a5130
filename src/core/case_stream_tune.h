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
   1 thirty-two (SSE2), 0 not at all (every line by the general path); -1
   or a level the machine lacks: its best. Returns the level in use. The
   same lines every way; tests hold each way to the others. */
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

#endif
