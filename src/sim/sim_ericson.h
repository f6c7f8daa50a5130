/* sim_ericson.h: the ericson kernel's pair prediction on a case's numbers, without the case (private). */
#ifndef TOI_SIM_ERICSON_H
#define TOI_SIM_ERICSON_H

#include <emmintrin.h>
#include <immintrin.h>
#include <math.h>

/*
 * What the binary64 kernel of the `ericson` formulation answers
 * (sim_formulation_kernel: src/formulations/ericson/ericson.c, then the
 * kernel's reading of its verdict in sim_kernels.c) for the case of ball A
 * (pa, va, ra) and ball B (pb, vb, rb) in dim dimensions: the same operations
 * in the same order (the build never fuses them: -ffp-contract=off), so the
 * same bits, without building the case, calling through two pointers and
 * decoding a verdict. A run predicts some twenty pairs an event, most of them
 * answered by an early out. Returns 1 with *dt (an overlap: 0), 0 for no
 * contact ahead, -1 for a contact with a NaN time (never stored).
 * tests/sim/test_sim_ericson.c holds it to form_pair_toi bit for bit.
 */
/* What a prediction reads of a ball, in one cache line: the centre p at the
   reference time tr, the velocity v, the radius. In 2D the third components
   of p and v are +0, always (every write of them says so). */
typedef struct sim_body {
  double p[3];
  double tr;
  double v[3];
  double r;
} sim_body;

/* The formulation's root once past its early outs: t = (-b - sqrt(d)) / a,
   1 with *dt = t, 0 when t is negative or infinite, -1 when NaN. */
static inline int sim_ericson_root(double a, double b, double d, double *dt) {
  const double t = (-b - sqrt(d)) / a;
  if (isnan(t)) return -1;
  if (!(t >= 0) || isinf(t)) return 0;
  *dt = t;
  return 1;
}

static inline int sim_ericson_toi(const double pa[3], const double va[3], double ra,
                                  const double pb[3], const double vb[3], double rb, int dim,
                                  double *dt) {
  double s0 = pb[0] - pa[0], v0 = vb[0] - va[0];
  double s1 = pb[1] - pa[1], v1 = vb[1] - va[1];
  double ss = s0 * s0 + s1 * s1, vv = v0 * v0 + v1 * v1, vs = v0 * s0 + v1 * s1;
  if (dim == 3) {
    double s2 = pb[2] - pa[2], v2 = vb[2] - va[2];
    ss = ss + s2 * s2;
    vv = vv + v2 * v2;
    vs = vs + v2 * s2;
  }
  const double r = rb + ra;
  const double cc = ss - r * r;
  if (cc < 0) { /* the overlap verdict: in contact now */
    *dt = 0;
    return 1;
  }
  /* The formulation's three early outs, each a "no contact": one test, with
     d computed in any case, as a branch on b's sign alone the processor
     guesses wrong about as often as right. */
  const double a = vv, b = vs, d = b * b - a * cc;
  if ((a < 1e-12) | (b >= 0) | (d < 0)) return 0;
  return sim_ericson_root(a, b, d, dt);
}

/*
 * Two predictions at once, lane k for ball A (pa, va, ra, its centre now)
 * against ball bk (its record) at time t. Each lane makes the same IEEE
 * operations in the same order as centre_at's p + v (t - tr) (sim.c) then
 * sim_ericson_toi, so the same bits; the early outs and the root's checks
 * are masks, the root computed in both lanes whatever they answer. Returns
 * the lanes whose answer is 1 as bits (1: lane 0, 2: lane 1), with dt[k]
 * the time (0 for an overlap), and in *nan the lanes whose answer is -1.
 */
static inline int sim_ericson_toi2(const double pa[3], const double va[3], double ra, const sim_body *b0,
                                   const sim_body *b1, double t, int dim, double dt[2], int *nan) {
  const __m128d tr = _mm_set_pd(b1->tr, b0->tr);
  const __m128d h = _mm_sub_pd(_mm_set1_pd(t), tr);
  const __m128d vx = _mm_set_pd(b1->v[0], b0->v[0]), vy = _mm_set_pd(b1->v[1], b0->v[1]);
  const __m128d px = _mm_add_pd(_mm_set_pd(b1->p[0], b0->p[0]), _mm_mul_pd(vx, h));
  const __m128d py = _mm_add_pd(_mm_set_pd(b1->p[1], b0->p[1]), _mm_mul_pd(vy, h));
  const __m128d s0 = _mm_sub_pd(px, _mm_set1_pd(pa[0])), v0 = _mm_sub_pd(vx, _mm_set1_pd(va[0]));
  const __m128d s1 = _mm_sub_pd(py, _mm_set1_pd(pa[1])), v1 = _mm_sub_pd(vy, _mm_set1_pd(va[1]));
  __m128d ss = _mm_add_pd(_mm_mul_pd(s0, s0), _mm_mul_pd(s1, s1));
  __m128d vv = _mm_add_pd(_mm_mul_pd(v0, v0), _mm_mul_pd(v1, v1));
  __m128d vs = _mm_add_pd(_mm_mul_pd(v0, s0), _mm_mul_pd(v1, s1));
  if (dim == 3) {
    const __m128d vz = _mm_set_pd(b1->v[2], b0->v[2]);
    const __m128d pz = _mm_add_pd(_mm_set_pd(b1->p[2], b0->p[2]), _mm_mul_pd(vz, h));
    const __m128d s2 = _mm_sub_pd(pz, _mm_set1_pd(pa[2])), v2 = _mm_sub_pd(vz, _mm_set1_pd(va[2]));
    ss = _mm_add_pd(ss, _mm_mul_pd(s2, s2));
    vv = _mm_add_pd(vv, _mm_mul_pd(v2, v2));
    vs = _mm_add_pd(vs, _mm_mul_pd(v2, s2));
  }
  const __m128d rr = _mm_add_pd(_mm_set_pd(b1->r, b0->r), _mm_set1_pd(ra));
  const __m128d cc = _mm_sub_pd(ss, _mm_mul_pd(rr, rr));
  const __m128d d = _mm_sub_pd(_mm_mul_pd(vs, vs), _mm_mul_pd(vv, cc));
  const __m128d zero = _mm_setzero_pd();
  const __m128d over = _mm_cmplt_pd(cc, zero);
  const __m128d out = _mm_or_pd(_mm_or_pd(_mm_cmplt_pd(vv, _mm_set1_pd(1e-12)), _mm_cmpge_pd(vs, zero)),
                                _mm_cmplt_pd(d, zero));
  const int mo = _mm_movemask_pd(over), mgo = ~mo & ~_mm_movemask_pd(out) & 3;
  /* sim_ericson_root: (-b - sqrt(d)) / a, -b by its sign bit flipped */
  const __m128d nb = _mm_xor_pd(vs, _mm_set1_pd(-0.0));
  const __m128d tt = _mm_div_pd(_mm_sub_pd(nb, _mm_sqrt_pd(d)), vv);
  const __m128d isn = _mm_cmpunord_pd(tt, tt);
  const __m128d ok = _mm_andnot_pd(_mm_cmpeq_pd(tt, _mm_set1_pd(INFINITY)), _mm_cmpge_pd(tt, zero));
  *nan = mgo & _mm_movemask_pd(isn);
  _mm_storeu_pd(dt, _mm_andnot_pd(over, tt)); /* an overlap: +0 */
  return mo | (mgo & _mm_movemask_pd(ok));
}

/* The build's flags ask for no AVX2: the functions that use it say so, and
   the run calls them only when the processor has it (sim.c). */
#define SIM_AVX2 __attribute__((target("avx2")))

/*
 * sim_ericson_toi2 four partners at a time in AVX2 lanes: lane k for ball bk,
 * each lane the same IEEE operations in the same order (no fused multiply-add
 * in these lanes: the target does not have it and the build never contracts),
 * so the same bits as sim_ericson_toi2's lanes and sim_ericson_toi. Returns
 * the lanes whose answer is 1 as bits (bit k: lane k), dt[k] their times, and
 * in *nan the lanes whose answer is -1.
 */
/* The 16 bytes at x in lanes 0 and 1, those at y in lanes 2 and 3. */
SIM_AVX2 static inline __m256d sim_load22(const double *x, const double *y) {
  return _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(x)), _mm_loadu_pd(y), 1);
}

SIM_AVX2 static inline int sim_ericson_toi4(const double pa[3], const double va[3], double ra,
                                            const sim_body *const bk[4], double t, int dim, double dt[4],
                                            int *nan) {
  const sim_body *b0 = bk[0], *b1 = bk[1], *b2 = bk[2], *b3 = bk[3];
  /* the records' fields into lanes 0 to 3 by pairs: a 16-byte pair of
     fields of b0 and b2 (lanes 0 and 2) and of b1 and b3 (lanes 1 and 3),
     then their first and second fields interleaved (the same values as
     lane-by-lane loads) */
  const __m256d p01a = sim_load22(&b0->p[0], &b2->p[0]);
  const __m256d p01b = sim_load22(&b1->p[0], &b3->p[0]);
  const __m256d p2ta = sim_load22(&b0->p[2], &b2->p[2]);
  const __m256d p2tb = sim_load22(&b1->p[2], &b3->p[2]);
  const __m256d v01a = sim_load22(&b0->v[0], &b2->v[0]);
  const __m256d v01b = sim_load22(&b1->v[0], &b3->v[0]);
  const __m256d v2ra = sim_load22(&b0->v[2], &b2->v[2]);
  const __m256d v2rb = sim_load22(&b1->v[2], &b3->v[2]);
  const __m256d tr = _mm256_unpackhi_pd(p2ta, p2tb);
  const __m256d h = _mm256_sub_pd(_mm256_set1_pd(t), tr);
  const __m256d vx = _mm256_unpacklo_pd(v01a, v01b);
  const __m256d vy = _mm256_unpackhi_pd(v01a, v01b);
  const __m256d px = _mm256_add_pd(_mm256_unpacklo_pd(p01a, p01b), _mm256_mul_pd(vx, h));
  const __m256d py = _mm256_add_pd(_mm256_unpackhi_pd(p01a, p01b), _mm256_mul_pd(vy, h));
  const __m256d s0 = _mm256_sub_pd(px, _mm256_set1_pd(pa[0])), v0 = _mm256_sub_pd(vx, _mm256_set1_pd(va[0]));
  const __m256d s1 = _mm256_sub_pd(py, _mm256_set1_pd(pa[1])), v1 = _mm256_sub_pd(vy, _mm256_set1_pd(va[1]));
  __m256d ss = _mm256_add_pd(_mm256_mul_pd(s0, s0), _mm256_mul_pd(s1, s1));
  __m256d vv = _mm256_add_pd(_mm256_mul_pd(v0, v0), _mm256_mul_pd(v1, v1));
  __m256d vs = _mm256_add_pd(_mm256_mul_pd(v0, s0), _mm256_mul_pd(v1, s1));
  if (dim == 3) {
    const __m256d vz = _mm256_unpacklo_pd(v2ra, v2rb);
    const __m256d pz = _mm256_add_pd(_mm256_unpacklo_pd(p2ta, p2tb), _mm256_mul_pd(vz, h));
    const __m256d s2 = _mm256_sub_pd(pz, _mm256_set1_pd(pa[2])), v2 = _mm256_sub_pd(vz, _mm256_set1_pd(va[2]));
    ss = _mm256_add_pd(ss, _mm256_mul_pd(s2, s2));
    vv = _mm256_add_pd(vv, _mm256_mul_pd(v2, v2));
    vs = _mm256_add_pd(vs, _mm256_mul_pd(v2, s2));
  }
  const __m256d rr = _mm256_add_pd(_mm256_unpackhi_pd(v2ra, v2rb), _mm256_set1_pd(ra));
  const __m256d cc = _mm256_sub_pd(ss, _mm256_mul_pd(rr, rr));
  const __m256d d = _mm256_sub_pd(_mm256_mul_pd(vs, vs), _mm256_mul_pd(vv, cc));
  const __m256d zero = _mm256_setzero_pd();
  /* the ordered, quiet predicates: false on NaN, as SSE2's cmplt, cmpge
     and cmpeq are */
  const __m256d over = _mm256_cmp_pd(cc, zero, _CMP_LT_OQ);
  const __m256d out = _mm256_or_pd(
      _mm256_or_pd(_mm256_cmp_pd(vv, _mm256_set1_pd(1e-12), _CMP_LT_OQ), _mm256_cmp_pd(vs, zero, _CMP_GE_OQ)),
      _mm256_cmp_pd(d, zero, _CMP_LT_OQ));
  const int mo = _mm256_movemask_pd(over), mgo = ~mo & ~_mm256_movemask_pd(out) & 15;
  const __m256d nb = _mm256_xor_pd(vs, _mm256_set1_pd(-0.0));
  const __m256d tt = _mm256_div_pd(_mm256_sub_pd(nb, _mm256_sqrt_pd(d)), vv);
  const __m256d isn = _mm256_cmp_pd(tt, tt, _CMP_UNORD_Q);
  const __m256d ok = _mm256_andnot_pd(_mm256_cmp_pd(tt, _mm256_set1_pd(INFINITY), _CMP_EQ_OQ),
                                      _mm256_cmp_pd(tt, zero, _CMP_GE_OQ));
  *nan = mgo & _mm256_movemask_pd(isn);
  _mm256_storeu_pd(dt, _mm256_andnot_pd(over, tt)); /* an overlap: +0 */
  return mo | (mgo & _mm256_movemask_pd(ok));
}

#endif
