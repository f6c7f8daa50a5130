/* accurate_lanes8.c: accurate's common path eight cases at a time (AVX-512 F and DQ), from accurate_lanes.inl. */
#include <math.h>
#include <stddef.h>
#include <string.h>
#include "accurate_lanes.h"
#include "formulations.h"

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#define ACC_W 8
#define ACC_TARGET "avx2,fma,avx512f,avx512dq"
#define ACC_BATCH toi_accurate_lanes8
#define ACC_SET1(x) _mm512_set1_pd(x)
#define ACC_SET1I(x) _mm512_set1_epi64(x)
#define ACC_FMADD(a, b, c) _mm512_fmadd_pd(a, b, c)
#define ACC_SQRT(a) _mm512_sqrt_pd(a)
#define ACC_SLLV(a, c) ((vu)_mm512_sllv_epi64((__m512i)(a), (__m512i)(c)))
#define ACC_SRLV(a, c) ((vu)_mm512_srlv_epi64((__m512i)(a), (__m512i)(c)))
#define ACC_ANY(m) (_mm512_test_epi64_mask((__m512i)(m), (__m512i)(m)) != 0)
#define ACC_MASK(m) ((int)_mm512_movepi64_mask((__m512i)(m)))
/* The lanes' inputs by gathers: case idx[j]'s field f lies sizeof (toi_case) / 8
   doubles after case 0's for each unit of idx[j]. */
_Static_assert(sizeof(toi_case) % 8 == 0, "toi_case: a whole number of doubles");
#define ACC_GATHER_SETUP(cs, idx) \
  const __m512i gix = _mm512_mullo_epi64(_mm512_loadu_si512((const void *)(idx)), \
                                         _mm512_set1_epi64((long long)(sizeof(toi_case) / 8)))
#define ACC_LOADP(cs, f) ((vd)_mm512_i64gather_pd(gix, (const void *)&(cs)[0].f, 8))
#include "accurate_lanes.inl"
#endif
