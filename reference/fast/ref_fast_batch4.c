/* ref_fast_batch4.c: the batch kernels four cases at a time (AVX2 and FMA), from ref_fast_batch_kernel.inl. */
#include "ref_common.h"
#include "ref_fast_kernels.h"
#include "ref_fdd.h"
#include "ref_mpfr.h"

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#define BW 4
#define BATCH_ATTR __attribute__((target("avx2,fma")))
#define B_NAME ref_fast_batch4
#define B_NAME_FULL ref_fast_batch4_full
#define B_NAME_DD ref_fast_batch4_dd
#define B_NAME_GATHER ref_fast_batch4_gather
#define B_NAME_SOA ref_fast_batch4_soa
#define B_NAME_ROOT ref_fast_root4
#define B_NAME32 ref_fast_batch4_32
#define B_NAME32_FULL ref_fast_batch4_32_full
#define B_NAME32_DD ref_fast_batch4_32_dd
#define B_MAX(a, b) _mm256_max_pd(a, b)
#define B_FMSUB(a, b, c) _mm256_fmsub_pd(a, b, c)
#define B_SQRT(a) _mm256_sqrt_pd(a)
#define B_FLOOR(a) _mm256_round_pd(a, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC)
#define B_MASK(m) _mm256_movemask_pd((__m256d)(m))
#define B_LOADP(c, f) ((bvd){c[0]->f, c[1]->f, c[2]->f, c[3]->f})
#define B_SET(x) ((bvd){x, x, x, x})
#include "ref_fast_batch_kernel.inl"
#endif
