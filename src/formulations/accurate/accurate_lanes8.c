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
#define ACC_LOADP(c, f) ((vd){c[0]->f, c[1]->f, c[2]->f, c[3]->f, c[4]->f, c[5]->f, c[6]->f, c[7]->f})
#include "accurate_lanes.inl"
#endif
