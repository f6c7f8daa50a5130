/* accurate_batch.c: accurate on many cases, the common path in AVX2 or AVX-512 lanes. */
#include <math.h>
#include <stddef.h>
#include <string.h>
#include "accurate.h"
#include "accurate_lanes.h"
#include "formulations.h"

/*
 * toi_accurate_batch gives out[i] = toi_f_accurate(&cases[i]) bit for bit.
 * Where the processor has AVX2 and FMA (checked at run time), cases of the
 * same dimension are taken four at a time (eight with AVX-512 F and DQ:
 * accurate_lanes4.c, accurate_lanes8.c, one source accurate_lanes.inl)
 * through the common path of
 * accurate.c (fast_body on unscaled differences, k = 0, no info) in the
 * lanes of 256-bit vectors: each lane makes exactly the operations of the
 * scalar function, in the same order, with the same roundings (every
 * operation is an IEEE 754 basic operation or a fused multiply-add, which
 * are correctly rounded in both; -ffp-contract=off keeps every product and
 * sum as written), so every value, every test and every answer is that of
 * the scalar function by construction. The lane answers only where the
 * scalar function ends on the common path's first way out:
 *   - quick_class settles the class (overlap, static, separating, miss),
 *   - or c and b are certain and accurate enough at once (c_ok, b_ok), the
 *     sign of D settled by the filter (a miss, or a hit whose sqrt D is
 *     accurate enough) or, unsettled, by int_d_sign's integers where they
 *     are exact modulo 2^64 (a graze, D = 0, or a miss; v_int_d, in a
 *     kernel that takes the unsure lanes of several groups at once), every
 *     magnitude in range for root_dd and the root clear of a midpoint by
 *     a bit test (maybe_midpoint's in the kernel with scaling, a narrower
 *     one, v_tie_gate, that root_rel's bound allows, in the other);
 * plus the static cases after c_ok. Every other lane (out of the common
 * range, a sign or an accuracy the filter cannot settle, integer or exact
 * values, a root near a midpoint, tiny magnitudes) is recomputed by the
 * scalar function, as are batches of fewer than four cases, a list's one
 * case left over at the end of a batch (two or more fill a group with
 * copies of the first, each copy giving the same answer to the same
 * place) and every case on a processor without AVX2 or FMA. The lane
 * code below follows accurate.c function by function (names in comments);
 * the two must change together (tests/formulations/test_accurate_batch.c
 * compares them on every family). One step is the lanes' own: in the
 * kernel with scaling, the inputs of lanes guessed tiny (lengths or speeds
 * of 2^-1000) are multiplied by 2^600 before their differences, which are
 * then the scalar function's times 2^600 exactly, and scaled back by the
 * same power less 600 (the argument at the top of lanes(), in
 * accurate_lanes.inl): the same values, without subnormal low parts.
 */

static void scalar_run(const toi_case *cs, size_t n, toi_result *out) {
  for (size_t i = 0; i < n; i++) out[i] = toi_f_accurate(&cs[i]);
}

#if defined(__GNUC__) && defined(__x86_64__) && !defined(TOI_ACC_NO_BATCH)
/* 0: no lanes, 1: AVX2 and FMA, 2: AVX-512 F and DQ too. */
static int lane_kind(void) {
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) return 0;
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") ? 2 : 1;
}

void toi_accurate_batch_as(int kind, const toi_case *cases, size_t n, toi_result *out) {
  const int have = lane_kind(); /* (reads what the loader's check found: cheap, once a batch) */
  if (kind > have) kind = have;
  if (kind == 2 && n >= 8)
    toi_accurate_lanes8(cases, n, out);
  else if (kind >= 1 && n >= 4)
    toi_accurate_lanes4(cases, n, out);
  else
    scalar_run(cases, n, out);
}
#else
void toi_accurate_batch_as(int kind, const toi_case *cases, size_t n, toi_result *out) {
  (void)kind;
  scalar_run(cases, n, out);
}
#endif

void toi_accurate_batch(const toi_case *cases, size_t n, toi_result *out) { toi_accurate_batch_as(2, cases, n, out); }
