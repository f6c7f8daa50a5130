/* ref_fast_batch8.c: the batch kernels eight cases at a time (AVX-512), from ref_fast_batch_kernel.inl. */
#include "ref_common.h"
#include "ref_fast_kernels.h"
#include "ref_fdd.h"
#include "ref_mpfr.h"

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#define BW 8
#define BATCH_ATTR __attribute__((target("avx512f,avx512dq,fma")))
#define B_NAME ref_fast_batch8
#define B_NAME_FULL ref_fast_batch8_full
#define B_NAME_DD ref_fast_batch8_dd
#define B_NAME_GATHER ref_fast_batch8_gather
#define B_NAME_SOA ref_fast_batch8_soa
#define B_NAME_ROOT ref_fast_root8
#define B_NAME32 ref_fast_batch8_32
#define B_NAME32_FULL ref_fast_batch8_32_full
#define B_NAME32_DD ref_fast_batch8_32_dd
#define B_MAX(a, b) _mm512_max_pd(a, b)
#define B_FMSUB(a, b, c) _mm512_fmsub_pd(a, b, c)
#define B_SQRT(a) _mm512_sqrt_pd(a)
#define B_FLOOR(a) _mm512_roundscale_pd(a, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC)
#define B_MASK(m) ((int)_mm512_movepi64_mask((__m512i)(m)))
#define B_LOADP(c, f) ((bvd){c[0]->f, c[1]->f, c[2]->f, c[3]->f, c[4]->f, c[5]->f, c[6]->f, c[7]->f})
#define B_SET(x) ((bvd){x, x, x, x, x, x, x, x})
#include "ref_fast_batch_kernel.inl"
#endif
