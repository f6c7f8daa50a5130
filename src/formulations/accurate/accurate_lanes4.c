/* accurate_lanes4.c: accurate's common path four cases at a time (AVX2 and FMA), from accurate_lanes.inl. */
#include <math.h>
#include <stddef.h>
#include <string.h>
#include "accurate_lanes.h"
#include "formulations.h"

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#define ACC_W 4
#define ACC_TARGET "avx2,fma"
#define ACC_BATCH toi_accurate_lanes4
#define ACC_SET1(x) _mm256_set1_pd(x)
#define ACC_SET1I(x) _mm256_set1_epi64x(x)
#define ACC_FMADD(a, b, c) _mm256_fmadd_pd(a, b, c)
#define ACC_SQRT(a) _mm256_sqrt_pd(a)
#define ACC_SLLV(a, c) ((vu)_mm256_sllv_epi64((__m256i)(a), (__m256i)(c)))
#define ACC_SRLV(a, c) ((vu)_mm256_srlv_epi64((__m256i)(a), (__m256i)(c)))
#define ACC_ANY(m) (!_mm256_testz_si256((__m256i)(m), (__m256i)(m)))
#define ACC_MASK(m) _mm256_movemask_pd((__m256d)(m))
#define ACC_GATHER_SETUP(cs, idx) \
  const toi_case *cp[ACC_W];       \
  for (int j = 0; j < ACC_W; j++) cp[j] = &(cs)[(idx)[j]]
#define ACC_LOADP(cs, f) ((vd){cp[0]->f, cp[1]->f, cp[2]->f, cp[3]->f})
#include "accurate_lanes.inl"
#endif
