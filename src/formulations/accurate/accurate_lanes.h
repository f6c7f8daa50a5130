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

#endif
