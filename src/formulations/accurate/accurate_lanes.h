/* accurate_lanes.h: accurate's common path in vector lanes (private to accurate_batch.c). */
#ifndef TOI_ACCURATE_LANES_H
#define TOI_ACCURATE_LANES_H

#include <stddef.h>
#include "toi.h"

toi_result toi_f_accurate(const toi_case *c);

/* out[i] = toi_f_accurate(&cases[i]) for i < n, the common path in lanes:
   four (AVX2 and FMA) or eight (AVX-512 F and DQ); callable only where the
   processor has them (x86-64 with GCC or Clang). */
void toi_accurate_lanes4(const toi_case *cases, size_t n, toi_result *out);
void toi_accurate_lanes8(const toi_case *cases, size_t n, toi_result *out);

/* The state after fast_c of a case of the common range (not scaled) that
   quick_class left, as accurate.c's fast_body computes it, in a lane of w:
   row r's value at st[r * w], rows ACC_ST_* (s = pB - pA, v = vB - vA and
   R = rA + rB normalized, high parts then low parts; c's value and its
   bound ec); moving: whether v != 0. */
enum {
  ACC_ST_SHI = 0, ACC_ST_SLO = 3, ACC_ST_VHI = 6, ACC_ST_VLO = 9, ACC_ST_RHI = 12, ACC_ST_RLO = 13,
  ACC_ST_CHI = 14, ACC_ST_CLO = 15, ACC_ST_EC = 16, ACC_ST_ROWS = 17
};

/* toi_f_accurate(cs) from that state on (accurate.c): the same operations
   from there, so the same answer. */
toi_result toi_accurate_after_c(const toi_case *cs, const double *st, int w, int moving);

#endif
