/* ref_fast_batch.c: toi_ref_solve_batch, many cases at once: the first stage four cases at a time in AVX2. */
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include "ref_internal.h"

/*
 * The batch runs the first stage of ref_fast_quick.c on four cases at once,
 * one case per lane of a 256-bit vector: the same operations in the same
 * order as the scalar code, lane by lane, so every bound proved there holds
 * in each lane unchanged (the proofs are not repeated here; each step below
 * names the scalar step it copies). Only the control flow differs: where the
 * scalar code returns early (a sign it cannot read, no roots, a check that
 * fails), a lane is marked and left to the scalar engine, which starts from
 * scratch; the lanes that pass every check hold answers certified exactly as
 * the scalar ones are, so the batch answers bit for bit as toi_ref_solve (and
 * so as the MPFR engine).
 *
 * One simplification, which only ever declines more than the scalar code:
 * scaling (the data outside [2^-64, 2^64]): a lane whose largest length or
 * speed is subnormal, zero or at least 2^1023 goes to the scalar engine; the
 * others are scaled by 2^-es and 2^-ev, one product by a normal power of
 * two as in fast_scale, and every result below 2^-480 marks the lane lost,
 * as fast_scale_keep does (so the kept lanes hold exactly the
 * scaled data the scalar code would hold). A lane the batch declines
 * anywhere else, the scalar first stage would decline too: it goes straight
 * to the double-double stage (ref_solve_fast_rest).
 * Nothing here changes the answers; the gain is the vector width and a
 * stream of mixed cases that costs no mispredicted branches.
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
#endif

size_t toi_ref_solve_batch_engine(toi_ref *out, toi_status *st, const toi_case *c, size_t n, toi_ref_engine e) {
  size_t bad = 0, i = 0;
  if (!out || !c) {
    for (size_t j = 0; st && j < n; j++) st[j] = TOI_ERR_RANGE;
    return n;
  }
#if BATCH_BUILD
  const int w = e == TOI_REF_FAST && ref_fast_fma() ? batch_width() : 0;
  if (w) {
    /* First the vector stage over a stretch of cases, noting the lanes it
     * declines (an index and whether the scalar first stage may still
     * answer it), then those cases one by one: the vector loop stays free
     * of calls and of branches on which lanes were declined. */
    enum { STRETCH = 1024 };
    uint32_t left[STRETCH], scalar[STRETCH];
    unsigned long long quick = 0, dd = 0, exact = 0;
    while (i + (size_t)w <= n) {
      size_t end = n - i < STRETCH ? i + (n - i) / (size_t)w * (size_t)w : i + STRETCH, nl = 0;
      const size_t start = i;
      size_t nlat = 0;
      for (; i < end; i += (size_t)w) {
        int signs = 0, later = 0;
        const int done = w == 8 ? ref_fast_batch8(&out[i], &c[i], &signs, &later)
                                : ref_fast_batch4(&out[i], &c[i], &signs, &later);
        quick += (unsigned long long)__builtin_popcount((unsigned)done);
        /* left[]: the offset in the stretch times 2, plus 1 when only the
         * double-double stage is left to try (the scalar first stage would
         * decline the case too); scalar[]: the lanes for the full kernel. */
        for (unsigned m = ~(unsigned)(done | later) & ((1u << w) - 1); m; m &= m - 1) {
          unsigned j = (unsigned)__builtin_ctz(m);
          left[nl++] = (uint32_t)((i - start + j) << 1 | (unsigned)(signs >> j & 1));
        }
        for (unsigned m = (unsigned)later; m; m &= m - 1) scalar[nlat++] = (uint32_t)(i - start) + (unsigned)__builtin_ctz(m);
      }
      /* The lanes that need a second Newton step or the rounding of a
       * subnormal or overflowing root, gathered w at a time for the full
       * kernel (a short last group repeats its last case, which writes the
       * same answer twice). */
      for (size_t k = 0; k < nlat; k += (size_t)w) {
        const toi_case *cp[8];
        toi_ref *op[8];
        batch_gather(cp, op, c, out, start, scalar, k, nlat, w);
        int signs = 0, done = w == 8 ? ref_fast_batch8_full(op, cp, &signs) : ref_fast_batch4_full(op, cp, &signs);
        for (int j = 0; j < w && k + (size_t)j < nlat; j++) {
          if (done >> j & 1)
            quick++;
          else
            left[nl++] = scalar[k + (size_t)j] << 1 | (unsigned)(signs >> j & 1);
        }
      }
      if (st)
        for (size_t k = start; k < end; k++) st[k] = TOI_OK;
      /* The lanes only the double-double stage can answer, w at a time
       * through its vector form (a short last group repeats its last case,
       * which writes the same answer twice), then whatever it declines, and
       * the lanes the scalar first stage may still answer, one by one. */
      size_t nd = 0, ns = 0;
      for (size_t k = 0; k < nl; k++)
        if (left[k] & 1) left[nd++] = left[k] >> 1;
        else scalar[ns++] = left[k] >> 1;
      for (size_t k = 0; k < nd; k += (size_t)w) {
        const toi_case *cp[8];
        toi_ref *op[8];
        batch_gather(cp, op, c, out, start, left, k, nd, w);
        int c3 = 0, done = w == 8 ? ref_fast_batch8_dd(op, cp, &c3) : ref_fast_batch4_dd(op, cp, &c3);
        for (int j = 0; j < w && k + (size_t)j < nd; j++) {
          size_t at = start + left[k + (size_t)j];
          if (done >> j & 1) {
            dd++;
            exact += (unsigned)c3 >> j & 1;
            continue;
          }
          toi_status s = ref_solve_fast_rest(&out[at], &c[at]);
          if (st) st[at] = s;
          bad += s != TOI_OK;
        }
      }
      for (size_t k = 0; k < ns; k++) {
        size_t at = start + scalar[k];
        toi_status s = ref_solve_fast(&out[at], &c[at], NULL);
        if (st) st[at] = s;
        bad += s != TOI_OK;
      }
    }
    ref_fast_count(quick, dd, exact);
  }
#endif
  for (; i < n; i++) {
    toi_status s = toi_ref_solve_engine(&out[i], &c[i], e);
    if (st) st[i] = s;
    bad += s != TOI_OK;
  }
  return bad;
}

size_t toi_ref_solve_batch(toi_ref *out, toi_status *st, const toi_case *c, size_t n) {
  return toi_ref_solve_batch_engine(out, st, c, n, toi_ref_get_engine());
}
