/* ref_fast_batch.c: toi_ref_solve_batch, many cases at once: the first stage four cases at a time in AVX2. */
#include <math.h>
#include <stdatomic.h>
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
 * Two simplifications, both only ever declining more than the scalar code:
 * - scaling (the data outside [2^-64, 2^64]): a lane whose largest length or
 *   speed is subnormal or zero goes to the scalar engine; the others are
 *   scaled by 2^-es and 2^-ev in two products by normal powers of two, each
 *   exact while the result is normal, and every result below 2^-480 marks
 *   the lane lost, as fast_scale_keep does (so the kept lanes hold exactly
 *   the scaled data the scalar code would hold).
 * - one Newton step: a lane that the first step cannot certify goes to the
 *   scalar engine, whose first stage tries a second step.
 * Nothing here changes the answers; the mixing of families in a stream of
 * cases costs no mispredicted branches, which is most of the gain.
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

int ref_fast_batch_use(int w) {
  int best = batch_best();
  atomic_store_explicit(&batch_w, w < 0 || w > best ? best : w >= 8 ? 8 : w >= 4 ? 4 : 0, memory_order_relaxed);
  return batch_width();
}

/* The plain checks ref_solve_fast makes before its first stage: a case that
 * fails one goes to the scalar engine, which refuses it as toi_ref_solve does. */
static inline int batch_plain(const toi_case *c) {
  /* & rather than &&: 2D and 3D cases alternate at random in a suite. */
  return (c->ra >= 0) & (c->rb >= 0) &
         ((c->dim == 3) | ((c->dim == 2) & (c->pa[2] == 0) & (c->pb[2] == 0) & (c->va[2] == 0) & (c->vb[2] == 0)));
}

#else

int ref_fast_batch_use(int w) {
  (void)w;
  return 0;
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
    unsigned long long quick = 0;
    for (; i + (size_t)w <= n; i += (size_t)w) {
      int signs = 0, done = 0, plain = 1;
      for (int j = 0; j < w; j++) plain &= batch_plain(&c[i + j]);
      if (plain) done = w == 8 ? ref_fast_batch8(&out[i], &c[i], &signs) : ref_fast_batch4(&out[i], &c[i], &signs);
      quick += (unsigned long long)__builtin_popcount((unsigned)done);
      for (int j = 0; j < w; j++) {
        if ((done >> j & 1) && !st) continue;
        toi_status s = TOI_OK;
        /* A sign the first stage cannot read: straight to the double-double
         * stage; anything else the scalar first stage may still answer. */
        if (signs >> j & 1)
          s = ref_solve_fast_rest(&out[i + j], &c[i + j]);
        else if (!(done >> j & 1))
          s = ref_solve_fast(&out[i + j], &c[i + j], NULL);
        if (st) st[i + j] = s;
        bad += s != TOI_OK;
      }
    }
    ref_fast_count_quick(quick);
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
