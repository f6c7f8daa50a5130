/* ref_fast_batch.c: the fast engine on many cases at once: its stages in 8 or 4 vector lanes (toi_ref_solve_batch). */
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include "ref_bench.h"
#include "ref_fast_api.h"
#include "ref_fast_kernels.h"

/*
 * A suite of cases through the fast engine, several cases per vector
 * instruction (ref_fast_batch_kernel.inl, built for 8 lanes of AVX-512 in
 * ref_fast_batch8.c and 4 of AVX2 in ref_fast_batch4.c; the widest this
 * processor runs is chosen once). For each stretch of cases:
 *  1. the first stage of ref_fast_quick.c on every case, w at a time, without
 *     its rarer paths (a second Newton step, the rounding of a subnormal or
 *     overflowing root); the lanes that need one are gathered and run again
 *     through the full first stage, w at a time;
 *  2. the lanes the first stage declines where ref_fast_quick would decline
 *     them too, gathered w at a time through the usual path of the
 *     double-double stage (fast_try of ref_fast.c, c near contact by
 *     fast_c3 included);
 *  3. whatever is left, one case at a time: the double-double stage's exact
 *     paths and MPFR (ref_solve_fast_rest), or the whole scalar engine for
 *     the cases the vector code does not follow (invalid or non-finite data,
 *     a largest length or speed that is subnormal, zero or at least 2^1023).
 * The kernels make the scalar code's operations in the same order, lane by
 * lane, so every bound proved there holds in each lane (each step names the
 * scalar step it copies); a lane whose checks do not all pass is handed on,
 * never guessed. Certified answers are unique, so the batch gives bit for bit
 * what one toi_ref_solve per case gives, which is what the MPFR engine gives.
 * The gain: the vector width, and a stream that mixes families pays each
 * path only for the cases that need it, without mispredicted branches.
 * In binary32 (toi_ref_solve_batch) the same stages run with the
 * kernels' binary32 forms, which certify RN_32 of each root from its
 * enclosure (b_certify32), and the scalar steps in binary32
 * (ref_solve_fast_prec, ref_solve_fast_rest): no second pass.
 */

#if defined(__GNUC__) && defined(__x86_64__)
#define BATCH_BUILD 1
#else
#define BATCH_BUILD 0
#endif

#if BATCH_BUILD

/* The widest kernel this machine runs: 8 (AVX-512), 4 (AVX2), else 0. */
static int batch_best(void) {
  __builtin_cpu_init();
  int fma = __builtin_cpu_supports("fma");
  return fma && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") ? 8
         : fma && __builtin_cpu_supports("avx2")                                       ? 4
                                                                                         : 0;
}

/* The width in use; relaxed atomics as for the engine: set before the
 * solving threads start. */
static atomic_int batch_w = -1;

static int batch_width(void) {
  int w = atomic_load_explicit(&batch_w, memory_order_relaxed);
  if (w < 0) {
    w = batch_best();
    atomic_store_explicit(&batch_w, w, memory_order_relaxed);
  }
  return w;
}

int ref_fast_batch_width(void) { return ref_fast_fma() ? batch_width() : 0; }

int ref_fast_batch_use(int w) {
  int best = batch_best();
  atomic_store_explicit(&batch_w, w < 0 || w > best ? best : w >= 8 ? 8 : w >= 4 ? 4 : 0, memory_order_relaxed);
  return batch_width();
}

#else

int ref_fast_batch_use(int w) {
  (void)w;
  return 0;
}

int ref_fast_batch_width(void) { return 0; }

#endif

#if BATCH_BUILD
/* The cases c[at .. at + w - 1] (those before n) into the cache: a suite
 * streams from memory (200 bytes a case), and the first stage's loads would
 * otherwise wait for each of its vectors' 25 cache lines in turn. Measured
 * on `sweep mixed --time-only reference` (65536 cases, 13 MB, reused): about
 * 5% more cases/s with 2 vectors ahead; 4 and 8 did no better. */
#ifndef BATCH_AHEAD
#define BATCH_AHEAD 2
#endif
static inline void batch_prefetch(const toi_case *c, size_t at, size_t w, size_t n) {
  if (at >= n || !BATCH_AHEAD) return;
  const char *p = (const char *)&c[at], *e = (const char *)&c[n - at < w ? n : at + w];
  for (; p < e; p += 64) __builtin_prefetch(p);
  __builtin_prefetch(e - 1);
}

/* The cases list[k .. k + w - 1] of the stretch at start (offsets) as
 * pointers for a kernel; past the list's end n, its last case again (which
 * writes the same answer twice). */
static inline void batch_gather(const toi_case **cp, toi_ref **op, const toi_case *c, toi_ref *out, size_t start,
                                const uint32_t *list, size_t k, size_t n, int w) {
  for (int j = 0; j < w; j++) {
    size_t at = start + list[k + (size_t)j < n ? k + (size_t)j : n - 1];
    cp[j] = &c[at];
    op[j] = &out[at];
  }
}

/* The kernels of one width and precision (ref_fast_kernels.h). */
typedef struct batch_kernels {
  int (*first)(toi_ref *out, const toi_case *c, int *signs, int *later);
  int (*full)(toi_ref *const *out, const toi_case *const *c, int *signs);
  int (*dd)(toi_ref *const *out, const toi_case *const *c, int *c3);
} batch_kernels;

/* [width 8][binary32] */
static const batch_kernels batch_k[2][2] = {
    {{ref_fast_batch4, ref_fast_batch4_full, ref_fast_batch4_dd},
     {ref_fast_batch4_32, ref_fast_batch4_32_full, ref_fast_batch4_32_dd}},
    {{ref_fast_batch8, ref_fast_batch8_full, ref_fast_batch8_dd},
     {ref_fast_batch8_32, ref_fast_batch8_32_full, ref_fast_batch8_32_dd}},
};

/* The offsets of one stretch's cases, sorted by what they still need. */
enum { STRETCH = 1024 };
typedef struct batch_lists {
  const batch_kernels *k;   /* the kernels in use */
  uint32_t left[STRETCH];   /* first pass: offset * 2, + 1 when only the double-double stage is left */
  uint32_t scalar[STRETCH]; /* the lanes the scalar first stage may still answer */
  uint32_t late[STRETCH];   /* the lanes for the full first-stage kernel */
  size_t nl, nlat;
  unsigned long long quick, dd, exact; /* answered by the first stage, by the double-double stage, of those with fast_c3 */
} batch_lists;

/* The first stage's vector pass over c[start .. end - 1], noting the lanes it
 * leaves: left[] gets the offset in the stretch times 2, plus 1 when only the
 * double-double stage is left to try (the scalar first stage would decline
 * the case too); late[] the offsets of the lanes for the full kernel. */
static inline __attribute__((always_inline)) void batch_first(batch_lists *L, toi_ref *out, const toi_case *c, size_t start, size_t end, size_t n, int w) {
  for (size_t i = start; i < end; i += (size_t)w) {
    int signs = 0, later = 0;
    batch_prefetch(c, i + BATCH_AHEAD * (size_t)w, (size_t)w, n);
    const int done = L->k->first(&out[i], &c[i], &signs, &later);
    for (unsigned m = ~(unsigned)(done | later) & ((1u << w) - 1); m; m &= m - 1) {
      unsigned j = (unsigned)__builtin_ctz(m);
      L->left[L->nl++] = (uint32_t)((i - start + j) << 1 | (unsigned)(signs >> j & 1));
    }
    for (unsigned m = (unsigned)later; m; m &= m - 1)
      L->late[L->nlat++] = (uint32_t)(i - start) + (unsigned)__builtin_ctz(m);
  }
  /* Each lane is answered, left or late (later excludes done): the answered
   * ones counted without a popcount, which without the POPCNT instruction
   * is a library call a vector. */
  L->quick += (unsigned long long)(end - start - L->nl - L->nlat);
}

/* The lanes that need a second Newton step or the rounding of a subnormal or
 * overflowing root, gathered w at a time for the full kernel (a short last
 * group repeats its last case, which writes the same answer twice). */
static inline __attribute__((always_inline)) void batch_late(batch_lists *L, toi_ref *out, const toi_case *c, size_t start, int w) {
  for (size_t k = 0; k < L->nlat; k += (size_t)w) {
    const toi_case *cp[8];
    toi_ref *op[8];
    batch_gather(cp, op, c, out, start, L->late, k, L->nlat, w);
    int signs = 0, done = L->k->full(op, cp, &signs);
    for (int j = 0; j < w && k + (size_t)j < L->nlat; j++) {
      if (done >> j & 1)
        L->quick++;
      else
        L->left[L->nl++] = L->late[k + (size_t)j] << 1 | (unsigned)(signs >> j & 1);
    }
  }
}

/* The lanes only the double-double stage can answer, w at a time through its
 * vector form (a short last group repeats its last case, which writes the
 * same answer twice), then whatever it declines, and the lanes the scalar
 * first stage may still answer, one by one. */
static inline __attribute__((always_inline)) size_t batch_rest(batch_lists *L, toi_ref *out, toi_status *st, const toi_case *c, size_t start, int w,
                         toi_precision q) {
  size_t nd = 0, ns = 0, bad = 0;
  for (size_t k = 0; k < L->nl; k++)
    if (L->left[k] & 1) L->left[nd++] = L->left[k] >> 1;
    else L->scalar[ns++] = L->left[k] >> 1;
  for (size_t k = 0; k < nd; k += (size_t)w) {
    const toi_case *cp[8];
    toi_ref *op[8];
    batch_gather(cp, op, c, out, start, L->left, k, nd, w);
    int c3 = 0, done = L->k->dd(op, cp, &c3);
    for (int j = 0; j < w && k + (size_t)j < nd; j++) {
      size_t at = start + L->left[k + (size_t)j];
      if (done >> j & 1) {
        L->dd++;
        L->exact += (unsigned)c3 >> j & 1;
        continue;
      }
      toi_status s = ref_solve_fast_rest(&out[at], &c[at], q);
      if (st) st[at] = s;
      bad += s != TOI_OK;
    }
  }
  for (size_t k = 0; k < ns; k++) {
    size_t at = start + L->scalar[k];
    toi_status s = ref_solve_fast_prec(&out[at], &c[at], NULL, q);
    if (st) st[at] = s;
    bad += s != TOI_OK;
  }
  return bad;
}
#endif

#if BATCH_BUILD
/* A stretch of cases at a time: the first stage's vector pass over all of
 * them, noting the lanes it leaves (see the top of the file), then those
 * lanes, gathered by what they need: the vector loops stay free of calls and
 * of branches on which lanes were left. Inlined once per width and
 * precision, so that every kernel is called directly. */
static inline __attribute__((always_inline)) size_t batch_run(toi_ref *out, toi_status *st, const toi_case *c,
                                                              size_t n, size_t *bad, toi_precision q, const int w,
                                                              const int f32) {
  size_t i = 0;
  batch_lists L;
  L.k = &batch_k[w == 8][f32];
  L.quick = L.dd = L.exact = 0;
  while (i + (size_t)w <= n) {
    const size_t start = i, end = n - i < STRETCH ? i + (n - i) / (size_t)w * (size_t)w : i + STRETCH;
    L.nl = L.nlat = 0;
    batch_first(&L, out, c, start, end, n, w);
    i = end;
    batch_late(&L, out, c, start, w);
    if (st)
      for (size_t k = start; k < end; k++) st[k] = TOI_OK;
    *bad += batch_rest(&L, out, st, c, start, w, q);
  }
  ref_fast_count(L.quick, L.dd, L.exact);
  return i;
}
#endif

size_t ref_fast_solve_batch_q(toi_ref *out, toi_status *st, const toi_case *c, size_t n, size_t *bad,
                              toi_precision q) {
#if BATCH_BUILD
  const int w = ref_fast_fma() ? batch_width() : 0;
  if (!w || (q != TOI_BINARY64 && q != TOI_BINARY32)) return 0;
  if (q == TOI_BINARY32)
    return w == 8 ? batch_run(out, st, c, n, bad, TOI_BINARY32, 8, 1) : batch_run(out, st, c, n, bad, TOI_BINARY32, 4, 1);
  return w == 8 ? batch_run(out, st, c, n, bad, TOI_BINARY64, 8, 0) : batch_run(out, st, c, n, bad, TOI_BINARY64, 4, 0);
#else
  (void)out, (void)st, (void)c, (void)n, (void)bad, (void)q;
  return 0;
#endif
}

size_t ref_fast_solve_batch(toi_ref *out, toi_status *st, const toi_case *c, size_t n, size_t *bad) {
  return ref_fast_solve_batch_q(out, st, c, n, bad, TOI_BINARY64);
}

/* The roots' offsets and kappa's enclosures (ref_bench.h): the kernels
 * ref_fast_root4 or 8 on w roots at a time (a short last group repeats its
 * last root into scratch), each lane they leave by ref_root_offset
 * itself; no vector code: both functions root by root. */
void ref_root_offset_kappa_n(double (*off)[2], double (*kap)[2], unsigned char *ok, const toi_case *const *c,
                             const double *R, const double *u, const signed char *lower, size_t n) {
  size_t j = 0;
#if BATCH_BUILD
  const int w = ref_fast_fma() ? batch_width() : 0;
  for (; w && j < n; j += (size_t)w) {
    const toi_case *cp[8];
    double Rs[8], us[8], olo[8], ohi[8], klo[8], khi[8];
    int low = 0, bad = 0;
    for (int i = 0; i < w; i++) {
      const size_t at = j + (size_t)i < n ? j + (size_t)i : n - 1;
      cp[i] = c[at];
      Rs[i] = R[at];
      us[i] = u[at];
      low |= (lower[at] == 1) << i;
      bad |= (lower[at] != 0 && lower[at] != 1) << i;
    }
    int kok = 0, scalar = 0;
    const int ook = (w == 8 ? ref_fast_root8 : ref_fast_root4)(olo, ohi, klo, khi, &kok, &scalar, cp, Rs, us, low);
    for (int i = 0; i < w && j + (size_t)i < n; i++) {
      const size_t at = j + (size_t)i;
      int o = (ook >> i & 1) && !(bad >> i & 1), k = kok >> i & 1;
      off[at][0] = olo[i], off[at][1] = ohi[i];
      kap[at][0] = klo[i], kap[at][1] = khi[i];
      if (scalar >> i & 1) o = ref_root_offset(&off[at][0], &off[at][1], c[at], R[at], u[at], lower[at]);
      ok[at] = (unsigned char)(o | k << 1);
    }
  }
#endif
  for (; j < n; j++) {
    const int o = ref_root_offset(&off[j][0], &off[j][1], c[j], R[j], u[j], lower[j]);
    const int k = ref_kappa_root_bound(&kap[j][0], &kap[j][1], c[j], R[j], TOI_BINARY64);
    ok[j] = (unsigned char)(o | k << 1);
  }
}
