/* ref_fast_batch_kernel.inl: the fast engine's first stage and double-double usual path on BW cases at once. */

/*
 * A type-generic source, not a header: it is compiled twice, once included
 * by ref_fast_batch4.c (BW 4, AVX2) and once by ref_fast_batch8.c (BW 8,
 * AVX-512), which define BW, BATCH_ATTR, the kernels' names (B_NAME,
 * B_NAME_FULL, B_NAME_DD, and B_NAME32, B_NAME32_FULL, B_NAME32_DD for
 * their binary32 forms) and the few intrinsics below before including it.
 * One source for both widths, so the two cannot drift apart. It has no
 * include guard on purpose and must not be included anywhere else. bvd and
 * bvl: BW doubles and BW 64-bit integers (lane masks: all ones or all
 * zeros). The argument is in ref_fast_batch.c.
 */

#define BATCH_INLINE BATCH_ATTR FAST_INLINE

#include <stddef.h>

/* Operands of error-free sums kept opaque, as FAST_OPAQUE does. */
#define V_OPAQUE(x) __asm__("" : "+v"(x))

typedef double bvd __attribute__((vector_size(8 * BW)));
typedef long long bvl __attribute__((vector_size(8 * BW)));
typedef float bvf __attribute__((vector_size(4 * BW)));
typedef int bvi __attribute__((vector_size(4 * BW)));

BATCH_INLINE bvd b_set(double x) { return B_SET(x); }
BATCH_INLINE bvd b_abs(bvd x) { return (bvd)(~(bvl)b_set(-0.0) & (bvl)x); }
BATCH_INLINE bvd b_up(bvd e) { return e * b_set(1 + 0x1p-40); }
BATCH_INLINE bvd b_max(bvd a, bvd b) { return B_MAX(a, b); }
/* m ? x : y lane by lane (m all ones or all zeros). */
BATCH_INLINE bvd b_pick(bvl m, bvd x, bvd y) { return (bvd)((m & (bvl)x) | (~m & (bvl)y)); }

BATCH_INLINE void b_two_sum(bvd a, bvd b, bvd *s, bvd *l) {
  V_OPAQUE(a);
  V_OPAQUE(b);
  bvd x = a + b, bb = x - a, aa = x - bb;
  *s = x;
  *l = (a - aa) + (b - bb);
}

/* quick_low lane by lane: the low part of s = RN(x + y). */
BATCH_INLINE bvd b_low(bvd x, bvd y, bvd s) {
  V_OPAQUE(x);
  V_OPAQUE(y);
  V_OPAQUE(s);
  bvd yy = s - x, xx = s - yy;
  return (x - xx) + (y - yy);
}

BATCH_INLINE void b_two_prod(bvd a, bvd b, bvd *h, bvd *l) {
  bvd p = a * b;
  *h = p;
  *l = B_FMSUB(a, b, p);
}

/* The biased exponent field of x >= 0 (0 for zero and subnormals). */
BATCH_INLINE bvl b_expo(bvd x) { return ((bvl)x >> 52) & 0x7ff; }

/* 2^k for -1022 <= k <= 1023, from its bits. */
BATCH_INLINE bvd b_pow2(bvl k) { return (bvd)((k + 1023) << 52); }

/* x 2^k in two products by 2^(k>>1) and 2^(k - (k>>1)): for |k| <= 2044
 * both factors are normal powers of two, and the product is exact whenever
 * the result is normal (the intermediate lies between x and the result). */
BATCH_INLINE bvd b_scale(bvd x, bvl k) {
  bvl k1 = k >> 1;
  return x * b_pow2(k1) * b_pow2(k - k1);
}

/* The data of BW cases, scaled as ref_fast_quick scales them. */
typedef struct bdata {
  bvd sh[3], sl[3], vh[3], vl[3], ash[3], avh[3];
  bvd Rh, Rl;
} bdata;

/* quick_step of ref_fast_quick.c in BW lanes, for the root named by want
 * lane by lane (-1 the lower, +1 the upper). Returns the mask of lanes whose checks all
 * hold; *dlo, *Eo and *Fo as there. */
BATCH_INLINE bvl b_step(bvd *dlo, bvd *Eo, bvd *Fo, bvd T, bvd want, const bdata *d, bvd H2h, bvd H2l, bvd mR, bvd A,
                        bvd Ea) {
  const bvd aT = b_abs(T);
  bvl ok = (aT >= b_set(0x1p-300)) & (aT <= b_set(0x1p200));
  bvd S[3], tau[3], m2 = b_set(0), vm = b_set(0), qp = b_set(0);
#pragma GCC unroll 3
  for (int i = 0; i < 3; i++) {
    bvd P, p, Sh, g;
    b_two_prod(d->vh[i], T, &P, &p);
    bvd r = d->vl[i] * T;
    b_two_sum(d->sh[i], P, &Sh, &g);
    S[i] = Sh;
    tau[i] = ((g + p) + d->sl[i]) + r;
    bvd m = d->ash[i] + b_abs(P);
    m2 += m * m;
    vm += d->avh[i] * m;
    qp += d->vh[i] * Sh;
  }
  const bvd Qp = 2 * qp, aQp = b_abs(Qp);
  const bvd EQp = b_up(b_set(0x1p-48) * vm) + b_set(0x1p-990);
  ok &= (EQp <= b_set(0x1p-20) * aQp) & (Qp * want > b_set(0));
  const bvd iQ = b_set(1) / Qp, aiQ = b_abs(iQ);
  bvd H[3], h[3], g1, e1, g2, e2, g3, e3;
#pragma GCC unroll 3
  for (int i = 0; i < 3; i++) b_two_prod(S[i], S[i], &H[i], &h[i]);
  b_two_sum(H[0], H[1], &g1, &e1);
  b_two_sum(H[2], -H2h, &g2, &e2);
  b_two_sum(g1, g2, &g3, &e3);
  const bvd small = (((h[0] + h[1]) + (h[2] - H2l)) + ((e1 + e2) + e3)) +
                    (((tau[0] * (2 * S[0] + tau[0]) + tau[1] * (2 * S[1] + tau[1])) + tau[2] * (2 * S[2] + tau[2])) -
                     mR);
  const bvd Q = g3 + small, aQ = b_abs(Q);
  const bvd X0 = b_set(0x1p-98) * (m2 + d->Rh * d->Rh) + b_set(0x1p-999);
  const bvd K1 = EQp * aiQ + b_set(0x1p-51), K2 = aiQ * b_set(1 + 0x1p-19);
  const bvd K4 = b_up(2 * (A + Ea) * K2);
  const bvd dl = -Q * iQ;
  const bvd Ed = b_up((aQ * K1 + X0) * K2);
  const bvd dm = aQ * b_up(aiQ) + Ed;
  ok &= dm * K4 <= b_set(0.25);
  *dlo = dl;
  *Eo = b_up(Ed + dm * dm * K4);
  *Fo = X0 * K2;
  return ok;
}

/* fast_rn of ref_fdd.h in the lanes of mask: RN(x 2^k) for the
 * normalized pair x = xh + xl, 2^-850 <= |xh| <= 2^850, overflow to +-Inf
 * and the subnormal grid as IEEE 754 rounds (the argument is there). */
BATCH_INLINE bvd b_rn(bvd xh, bvd xl, bvl k, bvl mask) {
  const bvl sign = (bvl)b_set(-0.0);
  const bvl km = k & mask;
  const bvl e = b_expo(b_abs(xh)) - 1023 + km;
  const bvl inf = e > 1023, norm = ~inf & (e >= -1022), zero = e < -1080, sub = ~inf & ~norm & ~zero;
  const bvd yn = b_scale(xh, km & norm);
  const bvd m = b_abs(b_scale(xh, (km + 1074) & sub)); /* exact: normal, in [2^-6, 2^52) */
  const bvd l = b_pick(xh > b_set(0), xl, -xl);       /* the correction toward larger |x| */
  bvd f = B_FLOOR(m);
  const bvd fr = m - f; /* exact */
  const bvl odd = ((bvl)(f + b_set(0x1p52)) & 1) != 0;
  const bvl upr = (fr > b_set(0.5)) | ((fr == b_set(0.5)) & ((l > b_set(0)) | ((l == b_set(0)) & odd)));
  f += (bvd)(upr & (bvl)b_set(1));
  /* f 2^-1074, 0 <= f <= 2^52, from its bits (the integer f itself): no
   * arithmetic with a subnormal result, which some processors microcode. */
  const bvd ys = (bvd)((bvl)(f + b_set(0x1p52)) - (bvl)b_set(0x1p52));
  const bvd mag = b_pick(inf, b_set(INFINITY), b_pick(sub, ys, b_set(0)));
  return b_pick(norm, yn, (bvd)(((bvl)mag & ~sign) | ((bvl)xh & sign)));
}

/* fast_certify in BW lanes: T + dl (a TwoSum) within E of the root, times
 * 2^k; the mask of lanes certified, the doubles in *out. Its first path
 * (both ends round to the same double, which scales exactly), else its
 * second (each end rounded by fast_rn, subnormal and overflowing results
 * included, and compared), as there; only when full, else the lanes that
 * need it are added to *later. */
BATCH_INLINE bvl b_certify(bvd *out, bvl *later, bvd T, bvd dl, bvd E, bvl k, const int full) {
  bvd Th, Tl;
  b_two_sum(T, dl, &Th, &Tl);
  const bvd ah = b_abs(Th);
  const bvl ok = (ah >= b_set(0x1p-850)) & (ah <= b_set(0x1p850)) & (E <= b_set(0x1p-60) * ah);
  const bvd E2 = (E + ah * b_set(0x1p-104)) * b_set(1 + 0x1p-50);
  const bvd l1 = Tl - E2, l2 = Tl + E2;
  const bvd h1 = Th + l1, h2 = Th + l2;
  /* ah is normal where ok holds: its exponent is the field less 1023. */
  const bvl e = b_expo(ah) - 1023 + k;
  const bvl first = ok & (h1 == h2) & (e >= -1021) & (e <= 1022);
  bvd y = b_scale(h1, k & first); /* k & first: no shift of a garbage k */
  const bvl slow = ok & ~first;
  bvl done = first;
  *later |= slow;
  if (full && __builtin_expect(B_MASK(slow) != 0, 0)) {
    bvd a = Th, b1 = l1, b2 = l2;
    V_OPAQUE(a);
    V_OPAQUE(b1);
    V_OPAQUE(b2);
    const bvd x1 = a + b1, x2 = a + b2; /* fast_two_sum(T.h, l1), (T.h, l2) */
    const bvd y1 = b_rn(x1, b1 - (x1 - a), k, slow), y2 = b_rn(x2, b2 - (x2 - a), k, slow);
    const bvl same = slow & ((bvl)y1 == (bvl)y2);
    y = b_pick(same, y1, y);
    done |= same;
  }
  *out = y;
  return done;
}

/* b_certify in binary32 (f32): RN_32(t 2^k) from T + dl within E of t,
 * lane by lane as quick_certify32 of ref_fast_quick.c (the argument is
 * there): with Th = RN(T + dl) and G = RN(E + 2^-50 |Th|), the doubles
 * RN(Th -+ G) enclose t; when both, times 2^k (exact), round alike to
 * binary32, so does t 2^k. A scaled |Th| 2^k of 2^1023 or more,
 * or below 2^-1021, is far outside binary32's range: +-Inf or the zero of
 * Th's sign. No lane is left for the full kernel: the mask of lanes
 * certified. */
BATCH_INLINE bvl b_certify32(bvd *out, bvd T, bvd dl, bvd E, bvl k) {
  V_OPAQUE(T);
  V_OPAQUE(dl);
  const bvd Th = T + dl, ah = b_abs(Th);
  const bvl ok = (ah >= b_set(0x1p-850)) & (ah <= b_set(0x1p850)) & (E <= b_set(0x1p-40) * ah);
  const bvd G = E + ah * b_set(0x1p-50);
  /* ah is normal where ok holds: its exponent is the field less 1023. */
  const bvl e = b_expo(ah) - 1023 + k;
  const bvl inr = ok & (e >= -1021) & (e <= 1022);
  const bvl km = k & inr; /* no shift of a garbage k */
  /* RN_32 of both ends (the conversion to float: nearest even, binary32
   * subnormals and overflow included), compared as bits; then back (exact). */
#if BW == 8
  /* vscalefpd: x 2^k in one instruction, exact here as b_scale (normal
   * results); a little cheaper than b_scale's two products. */
  const __m512d kd = _mm512_cvtepi64_pd((__m512i)km);
  const bvf flo = __builtin_convertvector((bvd)_mm512_scalef_pd(Th - G, kd), bvf);
  const bvf fhi = __builtin_convertvector((bvd)_mm512_scalef_pd(Th + G, kd), bvf);
#else
  const bvf flo = __builtin_convertvector(b_scale(Th - G, km), bvf);
  const bvf fhi = __builtin_convertvector(b_scale(Th + G, km), bvf);
#endif
  const bvl same = __builtin_convertvector((bvi)flo == (bvi)fhi, bvl);
  const bvl sign = (bvl)Th & (bvl)b_set(-0.0);
  const bvd far = (bvd)((bvl)b_pick(e > 1022, b_set(INFINITY), b_set(0)) | sign);
  *out = b_pick(inr, __builtin_convertvector(flo, bvd), far);
  return ok & (~inr | same);
}

/* The certification of a root in the precision of the kernel. */
BATCH_INLINE bvl b_cert(bvd *out, bvl *later, bvd T, bvd dl, bvd E, bvl k, const int full, const int f32) {
  return f32 ? b_certify32(out, T, dl, E, k) : b_certify(out, later, T, dl, E, k, full);
}

/* The numbers of BW cases as the kernels read them, lane j from case j. */
typedef struct bin {
  bvd pa[3], va[3], pb[3], vb[3], ra, rb, dim;
} bin;

/* The numbers of the cases *cp[0..BW-1], field by field: each vector
 * built from BW scalar loads. */
BATCH_INLINE void b_in_gather(bin *in, const toi_case *const *cp) {
#pragma GCC unroll 3
  for (int i = 0; i < 3; i++) {
    in->pa[i] = B_LOADP(cp, pa[i]);
    in->va[i] = B_LOADP(cp, va[i]);
    in->pb[i] = B_LOADP(cp, pb[i]);
    in->vb[i] = B_LOADP(cp, vb[i]);
  }
  in->ra = B_LOADP(cp, ra);
  in->rb = B_LOADP(cp, rb);
  in->dim = B_LOADP(cp, dim);
}

/* The numbers in a structure of arrays: field f of lane j at
 * soa[f * stride + j], the fields in the order of enum ref_fast_soa_field
 * (ref_fast_kernels.h). */
typedef double bvdu __attribute__((vector_size(8 * BW), aligned(8)));
BATCH_INLINE void b_in_soa(bin *in, const double *soa, size_t stride) {
#define SOA(f) (*(const bvdu *)(soa + (size_t)(f) * stride))
#pragma GCC unroll 3
  for (int i = 0; i < 3; i++) {
    in->pa[i] = SOA(REF_FAST_SOA_PA + i);
    in->va[i] = SOA(REF_FAST_SOA_VA + i);
    in->pb[i] = SOA(REF_FAST_SOA_PB + i);
    in->vb[i] = SOA(REF_FAST_SOA_VB + i);
  }
  in->ra = SOA(REF_FAST_SOA_RA);
  in->rb = SOA(REF_FAST_SOA_RB);
  in->dim = SOA(REF_FAST_SOA_DIM);
#undef SOA
}

/* b_in_gather transposed in registers: the sixteen doubles of a case from
 * pa[0] to mb lie side by side (asserted below), so two neighbouring fields
 * of the even cases make one vector of 16-byte loads, those of the odd
 * cases another, and one unpack of the two gives each of the two fields in
 * lane order: with 4 lanes (AVX2) 3 instructions a field, one of them a
 * shuffle, where the gather takes 5, three of them shuffles; with 8
 * (AVX-512) 5 where the gather takes 11. The same numbers, so the
 * same answers. */
_Static_assert(offsetof(toi_case, va) == offsetof(toi_case, pa) + 24 &&
                   offsetof(toi_case, ra) == offsetof(toi_case, pa) + 48 &&
                   offsetof(toi_case, ma) == offsetof(toi_case, pa) + 56 &&
                   offsetof(toi_case, pb) == offsetof(toi_case, pa) + 64 &&
                   offsetof(toi_case, vb) == offsetof(toi_case, pa) + 88 &&
                   offsetof(toi_case, rb) == offsetof(toi_case, pa) + 112 &&
                   offsetof(toi_case, mb) == offsetof(toi_case, pa) + 120,
               "a toi_case's numbers from pa[0] to mb are sixteen doubles side by side");
/* Fields k and k + 1 of the cases p[j], p[j + 2], ... side by side. */
BATCH_INLINE bvd b_two(const double *const *p, int k, int j) {
#if BW == 8
  __m512d v = _mm512_castpd128_pd512(_mm_loadu_pd(p[j] + k));
  v = _mm512_insertf64x2(v, _mm_loadu_pd(p[j + 2] + k), 1);
  v = _mm512_insertf64x2(v, _mm_loadu_pd(p[j + 4] + k), 2);
  return (bvd)_mm512_insertf64x2(v, _mm_loadu_pd(p[j + 6] + k), 3);
#else
  return (bvd)_mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(p[j] + k)), _mm_loadu_pd(p[j + 2] + k), 1);
#endif
}
BATCH_INLINE void b_in_pairs(bin *in, const toi_case *const *cp) {
  const double *p[BW];
  for (int j = 0; j < BW; j++) p[j] = cp[j]->pa;
  bvd f[16];
#pragma GCC unroll 8
  for (int k = 0; k < 16; k += 2) {
    const bvd lo = b_two(p, k, 0), hi = b_two(p, k, 1);
#if BW == 8
    f[k] = (bvd)_mm512_unpacklo_pd((__m512d)lo, (__m512d)hi);
    f[k + 1] = (bvd)_mm512_unpackhi_pd((__m512d)lo, (__m512d)hi);
#else
    f[k] = (bvd)_mm256_unpacklo_pd((__m256d)lo, (__m256d)hi);
    f[k + 1] = (bvd)_mm256_unpackhi_pd((__m256d)lo, (__m256d)hi);
#endif
  }
#pragma GCC unroll 3
  for (int i = 0; i < 3; i++) {
    in->pa[i] = f[i];
    in->va[i] = f[3 + i];
    in->pb[i] = f[8 + i];
    in->vb[i] = f[11 + i];
  }
  in->ra = f[6];
  in->rb = f[14];
  in->dim = B_LOADP(cp, dim);
}
#define b_in b_in_pairs

/* The data of the cases read into *in (lane j: case j) into d: s = pB - pA, v = vB - vA and
 * R = rA + rB as exact pairs (hi, lo), scaled as ref_fast_quick and fast_try
 * scale them (*k2 = es - ev, t = T 2^k2). Returns the lanes of valid cases
 * whose data are finite and exactly held; *whole: those, plus the lanes whose scaling lost
 * bits (which both scalar stages decline too, the FMA build's fast_try only
 * in its exact stages). Lanes whose largest length or speed is subnormal or
 * zero are in neither. */
BATCH_INLINE bvl b_prepare(bdata *dp, bvl *wholep, bvl *k2p, const bin *in) {
  bdata d;
  bvd z = b_set(0);
  bvl z3 = {};
#pragma GCC unroll 3
  for (int i = 0; i < 3; i++) {
    const bvd pa = in->pa[i], pb = in->pb[i], va = in->va[i], vb = in->vb[i];
    if (i == 2) z3 = (pa == b_set(0)) & (pb == b_set(0)) & (va == b_set(0)) & (vb == b_set(0));
    d.sh[i] = pb - pa;
    d.vh[i] = vb - va;
    z += (d.sh[i] - d.sh[i]) + (d.vh[i] - d.vh[i]);
    d.sl[i] = b_low(pb, -pa, d.sh[i]);
    d.vl[i] = b_low(vb, -va, d.vh[i]);
  }
  const bvd ra = in->ra, rb = in->rb, dim = in->dim;
  d.Rh = ra + rb;
  d.Rl = b_low(ra, rb, d.Rh);
  /* The checks ref_solve_fast makes first (dimension, radii, a 2D case's
   * zero third components), then finite data. */
  const bvl plain = (ra >= b_set(0)) & (rb >= b_set(0)) & ((dim == b_set(3)) | ((dim == b_set(2)) & z3));
  bvl live = plain & ((z + (d.Rh - d.Rh)) == b_set(0));
  bvd ms = d.Rh, mv = b_set(0);
#pragma GCC unroll 3
  for (int i = 0; i < 3; i++) {
    ms = b_max(ms, b_abs(d.sh[i]));
    mv = b_max(mv, b_abs(d.vh[i]));
  }
  const bvl inr = (ms >= b_set(0x1p-64)) & (ms <= b_set(0x1p64)) & (mv >= b_set(0x1p-64)) & (mv <= b_set(0x1p64));
  bvl k2 = {};
  bvl whole = live;
  if (__builtin_expect(B_MASK(~inr & live) != 0, 0)) {
    /* Scaling, for the live lanes out of range (as ref_fast_quick). */
    const bvl xs = b_expo(ms), xv = b_expo(mv);
    const bvl sc = ~inr & live;
    /* Subnormal or zero maxima, or a maximum of 2^1023 or more (2^-1023 is
     * no normal double): the scalar engine. */
    live &= inr | ((xs != 0) & (xv != 0) & (xs < 2046) & (xv < 2046));
    whole = live;
    const bvl es = (xs - 1023) & sc & live, ev = (xv - 1023) & sc & live;
    /* One product by the normal power 2^-es (2^-ev): exact when the result
     * is normal, else one rounding, as fast_scale's single product. */
    const bvd ps = b_pow2(-es), pv = b_pow2(-ev);
    bvl lost = {};
#define KEEP(x, p)                                                                 \
  do {                                                                             \
    const bvd y_ = x * p;                                                          \
    lost |= (x != b_set(0)) & ~(b_abs(y_) >= b_set(0x1p-480));                     \
    x = y_;                                                                        \
  } while (0)
#pragma GCC unroll 3
    for (int i = 0; i < 3; i++) {
      KEEP(d.sh[i], ps);
      KEEP(d.sl[i], ps);
      KEEP(d.vh[i], pv);
      KEEP(d.vl[i], pv);
    }
    KEEP(d.Rh, ps);
    KEEP(d.Rl, ps);
#undef KEEP
    live &= ~(lost & sc);
    k2 = es - ev;
  }
#pragma GCC unroll 3
  for (int i = 0; i < 3; i++) {
    d.ash[i] = b_abs(d.sh[i]);
    d.avh[i] = b_abs(d.vh[i]);
  }
  *dp = d;
  *wholep = whole;
  *k2p = k2;
  return live;
}

/* The answers of the lanes in noroot | roots into *op[j], with directions
 * as ref_set_dirs sets them, chosen lane by lane without branches (a stream
 * of cases draws the signs at random): c < 0 (cneg): overlap, forward the
 * upper root, backward the lower; c > 0, b < 0 (bneg): hit, forward the
 * lower; c > 0, b > 0: separating, backward the upper; noroot: the class
 * alone (miss or separating by bpos), NaN times. Returns the lanes stored. */
BATCH_INLINE int b_store(toi_ref *const *op, bvl noroot, bvl roots, bvl cneg, bvl bneg, bvl bpos, bvd tlo, bvd thi) {
  const bvd nan = b_set(NAN);
  const bvl hit = ~cneg & bneg, sep = ~cneg & ~bneg;
  const bvd tfwd = b_pick(roots & cneg, thi, b_pick(roots & hit, tlo, nan));
  const bvd trev = b_pick(roots & cneg, tlo, b_pick(roots & sep, thi, nan));
  const bvl none = (bvl)b_set(0) - 1;
  const bvl fwd = (roots & hit & 1) | (~(roots & (cneg | hit)) & none);
  const bvl rev = (roots & cneg & 1) | (~(roots & (cneg | sep)) & none);
  const bvl cls = (roots & cneg & TOI_OVERLAP) | (roots & hit & TOI_HIT) | (roots & sep & TOI_SEPARATING) |
                  (noroot & bpos & TOI_SEPARATING) | (noroot & ~bpos & TOI_MISS);
  tlo = b_pick(roots, tlo, nan);
  thi = b_pick(roots, thi, nan);
  const int m = B_MASK(noroot | roots);
#if BW == 8
  /* Each toi_ref as six quadwords (cls and its padding, the four times, the
   * two directions), the columns transposed into rows in registers, each
   * row stored by one masked store. */
  const bvd w0 = (bvd)(cls & 0xffffffff), w5 = (bvd)((fwd & 0xffffffff) | (rev << 32));
  const __m512d c[8] = {(__m512d)w0, (__m512d)tlo, (__m512d)thi, (__m512d)tfwd, (__m512d)trev, (__m512d)w5,
                        (__m512d)w5, (__m512d)w5};
  __m512d t[8], u[8], r[8];
  for (int j = 0; j < 8; j += 2) {
    t[j] = _mm512_unpacklo_pd(c[j], c[j + 1]);
    t[j + 1] = _mm512_unpackhi_pd(c[j], c[j + 1]);
  }
  for (int j = 0; j < 8; j += 4) {
    u[j] = _mm512_shuffle_f64x2(t[j], t[j + 2], 0x88);
    u[j + 1] = _mm512_shuffle_f64x2(t[j], t[j + 2], 0xdd);
    u[j + 2] = _mm512_shuffle_f64x2(t[j + 1], t[j + 3], 0x88);
    u[j + 3] = _mm512_shuffle_f64x2(t[j + 1], t[j + 3], 0xdd);
  }
  r[0] = _mm512_shuffle_f64x2(u[0], u[4], 0x88);
  r[4] = _mm512_shuffle_f64x2(u[0], u[4], 0xdd);
  r[2] = _mm512_shuffle_f64x2(u[1], u[5], 0x88);
  r[6] = _mm512_shuffle_f64x2(u[1], u[5], 0xdd);
  r[1] = _mm512_shuffle_f64x2(u[2], u[6], 0x88);
  r[5] = _mm512_shuffle_f64x2(u[2], u[6], 0xdd);
  r[3] = _mm512_shuffle_f64x2(u[3], u[7], 0x88);
  r[7] = _mm512_shuffle_f64x2(u[3], u[7], 0xdd);
  for (int j = 0; j < 8; j++)
    if (m >> j & 1) _mm512_mask_storeu_pd((double *)op[j], 0x3f, r[j]);
#else
  /* The same in AVX2: the first four quadwords of each toi_ref (cls and its
   * padding, tlo, thi, tfwd) by a 4x4 transpose, one 32-byte store a lane;
   * the last two (trev, the two directions) by one unpack, 16 bytes a lane.
   * As many instructions as a store of each field of each lane (callgrind),
   * fewer of them extracts: the first stage 2-4% faster on mixed cases
   * (bench_fastref --layout --width 4, runs alternated). */
  const __m256d w0 = (__m256d)(cls & 0xffffffff), w5 = (__m256d)((fwd & 0xffffffff) | (rev << 32));
  const __m256d a0 = _mm256_unpacklo_pd(w0, (__m256d)tlo), a1 = _mm256_unpackhi_pd(w0, (__m256d)tlo);
  const __m256d b0 = _mm256_unpacklo_pd((__m256d)thi, (__m256d)tfwd);
  const __m256d b1 = _mm256_unpackhi_pd((__m256d)thi, (__m256d)tfwd);
  const __m256d e0 = _mm256_unpacklo_pd((__m256d)trev, w5), e1 = _mm256_unpackhi_pd((__m256d)trev, w5);
  const __m256d r[4] = {_mm256_permute2f128_pd(a0, b0, 0x20), _mm256_permute2f128_pd(a1, b1, 0x20),
                        _mm256_permute2f128_pd(a0, b0, 0x31), _mm256_permute2f128_pd(a1, b1, 0x31)};
  const __m128d t[4] = {_mm256_castpd256_pd128(e0), _mm256_castpd256_pd128(e1), _mm256_extractf128_pd(e0, 1),
                        _mm256_extractf128_pd(e1, 1)};
  for (int j = 0; j < 4; j++)
    if (m >> j & 1) {
      _mm256_storeu_pd((double *)op[j], r[j]);
      _mm_storeu_pd((double *)op[j] + 4, t[j]);
    }
#endif
  return m;
}

_Static_assert(sizeof(toi_ref) == 48 && offsetof(toi_ref, tlo) == 8 && offsetof(toi_ref, thi) == 16 &&
                   offsetof(toi_ref, tfwd) == 24 && offsetof(toi_ref, trev) == 32 &&
                   offsetof(toi_ref, fwd_is_lo) == 40 && offsetof(toi_ref, rev_is_lo) == 44 &&
                   sizeof(toi_class) == 4,
               "toi_ref is six quadwords: cls, the four times, the two directions");

/* The first stage on *cp[0..BW-1]. Lane j answered: bit j of the result
 * set and *op[j] written; the other lanes untouched. Bit j of *signs set:
 * lane j was declined where ref_fast_quick would decline it too (a sign its
 * filter cannot read, no D > 0 where roots are needed, a lossy scaling,
 * roots it cannot certify in two steps), so it may go straight to the
 * double-double stage. Unless full, the lanes that need a second Newton
 * step or fast_certify's second path are left undone and marked in *later
 * (a few lanes in a stream of mixed cases: done for all BW lanes, that work
 * would cost every group; the caller gathers them for the full kernel).
 * B_NAME: the cases c[0..BW-1] without those paths; B_NAME_FULL: with. */

BATCH_INLINE int b_quick(toi_ref *const *op, const bin *in, int *signs, int *later, const int full,
                        const int f32) {
  bdata d;
  /* whole: the lanes this code follows ref_fast_quick through to the end:
   * what it declines there, ref_fast_quick declines too. */
  bvl whole, k2;
  bvl live = b_prepare(&d, &whole, &k2, in);

  /* Step 1 of ref_fast_quick.c. */
  const bvd *sh = d.sh, *vh = d.vh;
  const bvd A = (vh[0] * vh[0] + vh[1] * vh[1]) + vh[2] * vh[2];
  const bvd b0 = sh[0] * vh[0], b1 = sh[1] * vh[1], b2 = sh[2] * vh[2];
  const bvd B = (b0 + b1) + b2, Mb = (b_abs(b0) + b_abs(b1)) + b_abs(b2);
  const bvd SS = (sh[0] * sh[0] + sh[1] * sh[1]) + sh[2] * sh[2], RR = d.Rh * d.Rh;
  const bvd C = SS - RR;
  const bvd Ea = b_set(0x1p-50) * A + b_set(0x1p-1000), Eb = b_set(0x1p-50) * Mb + b_set(0x1p-1000);
  const bvd Ec = b_set(0x1p-50) * (SS + RR) + b_set(0x1p-1000);
  const bvl cpos = C > Ec, cneg = C < -Ec, bpos = B > Eb, bneg = B < -Eb;
  const bvd BB = B * B, AC = A * C, Dc = BB - AC;
  const bvd ED = b_up(Eb * (2 * b_abs(B) + Eb) + Ea * b_abs(C) + (A + Ea) * Ec +
                      b_set(0x1p-53) * (BB + b_abs(AC) + b_abs(Dc))) +
                 b_set(0x1p-1000);
  const bvl dpos = Dc > ED, dneg = Dc < -ED;
  const bvl read = (cpos | cneg) & ~(cpos & ~((bpos | bneg) & (dpos | dneg)));
  const bvl noroot = live & read & cpos & dneg; /* miss or separating: the class alone */
  bvl roots = live & read & ~noroot & (Dc > b_set(0));

  /* Step 2: the estimates, then one Newton step for each root. */
  bvd tlo = b_set(0), thi = b_set(0);
  bvl late = {};
  const bvl want = roots;
  if (B_MASK(roots)) {
    const bvd W = b_abs(B) + B_SQRT(Dc);
    const bvd q1 = C / W, q2 = W / A;
    const bvl bp = B > b_set(0);
    const bvd Tlo = b_pick(bp, -q2, q1), Thi = b_pick(bp, -q1, q2);
    bvd H2h, H2l;
    b_two_prod(d.Rh, d.Rh, &H2h, &H2l);
    const bvd mR = d.Rl * (2 * d.Rh + d.Rl);
    bvd dlo, dhi, E, Flo, Fhi;
    bvl okl = b_step(&dlo, &E, &Flo, Tlo, b_set(-1.0), &d, H2h, H2l, mR, A, Ea);
    okl &= b_cert(&tlo, &late, Tlo, dlo, E, k2, full, f32);
    bvl okh = b_step(&dhi, &E, &Fhi, Thi, b_set(1.0), &d, H2h, H2l, mR, A, Ea);
    okh &= b_cert(&thi, &late, Thi, dhi, E, k2, full, f32);
    /* quick_roots: where the first step could not certify both roots yet
     * both floors leave room, a second step from RN(T + dl). */
    const bvl again = roots & ~(okl & okh) & (Flo <= b_set(0x1p-66) * b_abs(Tlo)) &
                      (Fhi <= b_set(0x1p-66) * b_abs(Thi));
    roots &= okl & okh;
    /* Unless full, a few such lanes are left for the full kernel; when half
     * the vector or more needs the step (a stream of grazing cases), it is
     * cheaper here than twice. */
    const int na = __builtin_popcount((unsigned)B_MASK(again)), here = full || 2 * na >= BW;
    if (!here) late |= again;
    if (here && na) {
      const bvd T2lo = Tlo + dlo, T2hi = Thi + dhi;
      bvd t2lo, t2hi;
      bvl ok2 = again & b_step(&dlo, &E, &Flo, T2lo, b_set(-1.0), &d, H2h, H2l, mR, A, Ea);
      ok2 &= b_cert(&t2lo, &late, T2lo, dlo, E, k2, full, f32);
      ok2 &= b_step(&dhi, &E, &Fhi, T2hi, b_set(1.0), &d, H2h, H2l, mR, A, Ea);
      ok2 &= b_cert(&t2hi, &late, T2hi, dhi, E, k2, full, f32);
      tlo = b_pick(ok2, t2lo, tlo);
      thi = b_pick(ok2, t2hi, thi);
      roots |= ok2;
    }
  }
  const int done = b_store(op, noroot, roots, cneg, bneg, bpos, tlo, thi);
  *later = full ? 0 : B_MASK(late & want) & ~done;
  *signs = B_MASK(whole) & ~done & ~*later;
  return done;
}

BATCH_INLINE int b_quick_at(toi_ref *out, const toi_case *c, int *signs, int *later, const int f32) {
  const toi_case *cp[BW];
  toi_ref *op[BW];
  for (int j = 0; j < BW; j++) cp[j] = &c[j], op[j] = &out[j];
  bin in;
  b_in(&in, cp);
  return b_quick(op, &in, signs, later, 0, f32);
}

BATCH_ATTR int B_NAME(toi_ref *out, const toi_case *c, int *signs, int *later) {
  return b_quick_at(out, c, signs, later, 0);
}

BATCH_ATTR int B_NAME32(toi_ref *out, const toi_case *c, int *signs, int *later) {
  return b_quick_at(out, c, signs, later, 1);
}

BATCH_ATTR int B_NAME_FULL(toi_ref *const *op, const toi_case *const *cp, int *signs) {
  int later;
  bin in;
  b_in(&in, cp);
  return b_quick(op, &in, signs, &later, 1, 0);
}

BATCH_ATTR int B_NAME32_FULL(toi_ref *const *op, const toi_case *const *cp, int *signs) {
  int later;
  bin in;
  b_in(&in, cp);
  return b_quick(op, &in, signs, &later, 1, 1);
}

/* B_NAME with its inputs read two other ways, for bench_fastref --layout
 * alone: each field gathered from the cases (B_NAME_GATHER), and from a
 * structure of arrays (B_NAME_SOA, b_in_soa). */
BATCH_ATTR int B_NAME_GATHER(toi_ref *out, const toi_case *c, int *signs, int *later) {
  const toi_case *cp[BW];
  toi_ref *op[BW];
  for (int j = 0; j < BW; j++) cp[j] = &c[j], op[j] = &out[j];
  bin in;
  b_in_gather(&in, cp);
  return b_quick(op, &in, signs, later, 0, 0);
}

BATCH_ATTR int B_NAME_SOA(toi_ref *out, const double *soa, size_t stride, int *signs, int *later) {
  toi_ref *op[BW];
  for (int j = 0; j < BW; j++) op[j] = &out[j];
  bin in;
  b_in_soa(&in, soa, stride);
  return b_quick(op, &in, signs, later, 0, 0);
}


/* ---- the double-double stage (fast_try of ref_fast.c) in BW lanes ---- */

typedef struct vdd {
  bvd h, l;
} vdd;

BATCH_INLINE vdd d_two_sum(bvd a, bvd b) {
  vdd r;
  b_two_sum(a, b, &r.h, &r.l);
  return r;
}

BATCH_INLINE vdd d_fast_two_sum(bvd a, bvd b) {
  V_OPAQUE(a);
  V_OPAQUE(b);
  const bvd s = a + b;
  return (vdd){s, b - (s - a)};
}

BATCH_INLINE vdd d_two_prod(bvd a, bvd b) {
  vdd r;
  b_two_prod(a, b, &r.h, &r.l);
  return r;
}

BATCH_INLINE vdd d_neg(vdd x) { return (vdd){-x.h, -x.l}; }

/* dd_dot of ref_fdd.h, lane by lane (its bound: 2^-99 M + 2^-1000). */
BATCH_INLINE vdd d_dot(const vdd *x, const vdd *y, int n, bvd *mag) {
  vdd p = d_two_prod(x[0].h, y[0].h);
  bvd S = p.h, T = p.l + (x[0].h * y[0].l + x[0].l * y[0].h), M = b_abs(p.h);
#pragma GCC unroll 4
  for (int i = 1; i < n; i++) {
    p = d_two_prod(x[i].h, y[i].h);
    const vdd q = d_two_sum(S, p.h);
    S = q.h;
    T = ((T + q.l) + p.l) + (x[i].h * y[i].l + x[i].l * y[i].h);
    M += b_abs(p.h);
  }
  *mag = M;
  return d_two_sum(S, T);
}

/* fast_c3 of ref_fast.c for n = 4 (c near contact, to about 2^-145 M),
 * lane by lane, with its bound in *err. */
BATCH_INLINE vdd d_c3(const vdd *x, const vdd *y, bvd *err) {
  vdd P = d_two_prod(x[0].h, y[0].h);
  bvd S1 = P.h, S2 = P.l, T = b_set(0), A3 = b_set(0);
#pragma GCC unroll 4
  for (int i = 0; i < 4; i++) {
    if (i > 0) {
      P = d_two_prod(x[i].h, y[i].h);
      const vdd e1 = d_two_sum(S1, P.h);
      S1 = e1.h;
      vdd f = d_two_sum(S2, e1.l);
      S2 = f.h;
      T += f.l, A3 += b_abs(f.l);
      f = d_two_sum(S2, P.l);
      S2 = f.h;
      T += f.l, A3 += b_abs(f.l);
    }
    const vdd Q = d_two_prod(2 * x[i].h, y[i].l);
    const vdd f = d_two_sum(S2, Q.h);
    S2 = f.h;
    const bvd r = x[i].l * y[i].l;
    T += f.l + Q.l + r;
    A3 += b_abs(f.l) + b_abs(Q.l) + 2 * b_abs(r);
  }
  const vdd HL = d_two_sum(S1, S2);
  const bvd L = HL.l + T;
  *err = b_up(b_set(24 * 0x1p-52) * A3 + b_set(0x1p-52) * (b_abs(HL.l) + b_abs(T))) + b_set(0x1p-1000);
  return d_two_sum(HL.h, L);
}

/* dd_add_sqrt, lane by lane (bound 2^-101 W.h; |W.h - w0| <= 3.57u w0). */
BATCH_INLINE vdd d_add_sqrt(vdd x, vdd d, bvd *h0, bvd *w0) {
  const bvd h = B_SQRT(d.h), g = b_set(0.5) / d.h;
  const vdd p = d_two_prod(h, h);
  const bvd r = ((d.h - p.h) - p.l) + d.l;
  const bvd corr = r * (h * g);
  const vdd s = d_two_sum(x.h, h);
  *h0 = h;
  *w0 = s.h;
  return d_fast_two_sum(s.h, s.l + (x.l + corr));
}

/* dd_div, lane by lane. */
BATCH_INLINE vdd d_div(vdd x, vdd y, bvd iy) {
  const bvd q1 = x.h * iy;
  const vdd p = d_two_prod(q1, y.h);
  const bvd r = (((x.h - p.h) - p.l) + x.l) - q1 * y.l;
  return d_fast_two_sum(q1, r * iy);
}

/* fast_quot_err, lane by lane. */
BATCH_INLINE bvd d_quot_err(vdd T, double ed, bvd rx, bvd ry) {
  return b_abs(T.h) * (b_set(ed) + b_set(1.001) * (rx + ry));
}

/*
 * Step 4 of B_NAME_DD: the roots by W = |B| + sqrt D, c / W and W / a, with fast_try's
 * bounds as they stood when this copy was made (ref_fast.c has tighter
 * ones since; these stay valid, and a wider bound only declines more).
 * W = |B| + sqrt(D) pairs with W* = -sigma b + sqrt D, sigma the sign of
 * B.h (the formula stays exact whatever the true sign of b);
 * |W - W*| <= Eb + |sqrt D - sqrt D~| + 2^-101 W.h (dd_add_sqrt), and
 * |sqrt D - sqrt D~| <= ED / sqrt(D~) <= ED / h (1 + 2.1u). So with
 * EW = up(Eb + ED / h + 2^-101 W.h) and rw = EW / W.h, the quotients
 * c / W and W / a err by at most fast_quot_err(Q1, 2^-98, Ec / |C.h|, rw)
 * and fast_quot_err(Q2, 2^-100, rw, Ea / A.h) (dd_div's own 2^-98 for a
 * divisor W read through w0, 2^-100 for A). Usual case: ED <= 2^-96 h^2,
 * Eb <= 2^-96 W.h, Ec <= 2^-93 |C.h|, Ea <= 2^-93 A.h give ED / h <=
 * 2^-96 h (1 + 2^-50) and h <= W.h (1 + 4u), so |W - W*| <= (2^-96 +
 * 2^-96 + 2^-101)(1 + 2^-40) W.h < 2^-94.9 W.h, and fast_quot_err <= |Q.h|
 * (2^-98 + 1.001 (2^-93 + 2^-94.9)) < 2^-92.3 |Q.h|: 2^-91 |Q.h| is used.
 * b <= 0: lower = c/W, upper = W/a; b > 0: lower = -W/a, upper = -c/W.
 * The lanes of roots whose roots are certified stay set; their roots go
 * to *tlo and *thi.
 */
BATCH_INLINE bvl b_dd_roots(bvd *tlo, bvd *thi, bvl roots, vdd A, bvd Ea, bvd ia, vdd B, bvd Eb, vdd C, bvd Ec,
                            vdd D, bvd ED, bvl k2, const int f32) {
  const bvl bn = B.h <= b_set(0);
  const vdd X = {b_pick(bn, -B.h, B.h), b_pick(bn, -B.l, B.l)};
  bvd h, w0;
  const vdd W = d_add_sqrt(X, D, &h, &w0);
  const bvd iw = b_set(1) / w0;
  const vdd Q1 = d_div(C, W, iw), Q2 = d_div(W, A, ia);
  const bvl usual = (ED <= b_set(0x1p-96) * (h * h)) & (Eb <= b_set(0x1p-96) * W.h) &
                    (Ec <= b_set(0x1p-93) * b_abs(C.h)) & (Ea <= b_set(0x1p-93) * A.h);
  const bvd EW = b_up(Eb + ED / h + b_set(0x1p-101) * W.h);
  const bvd rw = EW / W.h;
  const bvd E1 = b_pick(usual, b_set(0x1p-91) * b_abs(Q1.h), d_quot_err(Q1, 0x1p-98, Ec / b_abs(C.h), rw));
  const bvd E2 = b_pick(usual, b_set(0x1p-91) * b_abs(Q2.h), d_quot_err(Q2, 0x1p-100, rw, Ea / A.h));
  /* b <= 0: lower = c/W, upper = W/a; b > 0: lower = -W/a, upper = -c/W. */
  const bvd s1 = b_pick(bn, b_set(1), b_set(-1));
  bvd t1, t2;
  bvl late = {}; /* unused: the full certification runs here */
  roots &= b_cert(&t1, &late, Q1.h * s1, Q1.l * s1, E1, k2, 1, f32);
  roots &= b_cert(&t2, &late, Q2.h * s1, Q2.l * s1, E2, k2, 1, f32);
  *tlo = b_pick(bn, t1, t2);
  *thi = b_pick(bn, t2, t1);
  return roots;
}

/*
 * fast_try's usual path (FMA build, no target distance) on the cases
 * *cp[0..BW-1], answers into *op[j]: the same operations in the same order
 * lane by lane, so its proofs hold in each lane; c near contact by fast_c3
 * as there (*c3: the lanes that needed it). A lane is declined (left to the
 * scalar engine) wherever fast_try would take a rarer path: c's sign not
 * read after fast_c3, b's or D's sign not read by the double-double filter
 * (exact expansions), data outside the range of step 4, a root that
 * fast_certify's first path cannot round, a lossy scaling. Returns the
 * lanes answered.
 */
BATCH_INLINE int b_dd(toi_ref *const *op, const toi_case *const *cp, int *c3, const int f32) {
  bdata d;
  bvl whole, k2;
  bin in;
  b_in(&in, cp);
  bvl live = b_prepare(&d, &whole, &k2, &in);
  vdd s[4], sr[4], v[3];
#pragma GCC unroll 3
  for (int i = 0; i < 3; i++) {
    s[i] = sr[i] = (vdd){d.sh[i], d.sl[i]};
    v[i] = (vdd){d.vh[i], d.vl[i]};
  }
  s[3] = (vdd){d.Rh, d.Rl};
  sr[3] = d_neg(s[3]);

  /* Step 2: a, b, c with errors 2^-99 M + 2^-1000. */
  bvd Ma, Mb, Mc;
  const vdd A = d_dot(v, v, 3, &Ma), B = d_dot(s, v, 3, &Mb);
  vdd C = d_dot(s, sr, 4, &Mc);
  const bvd Ea = b_set(0x1p-99) * Ma + b_set(0x1p-1000), Eb = b_set(0x1p-99) * Mb + b_set(0x1p-1000);
  bvd Ec = b_set(0x1p-99) * Mc + b_set(0x1p-1000);
  const bvd ia = b_set(1) / A.h;
  bvl cpos = C.h > b_set(0x1p64) * Ec, cneg = -C.h > b_set(0x1p64) * Ec;
  /* c lost more than 64 bits (or its sign is in doubt): fast_c3. */
  const bvl near = live & ~(cpos | cneg);
  *c3 = B_MASK(near);
  if (*c3) {
    bvd E3;
    const vdd C3 = d_c3(s, sr, &E3);
    C.h = b_pick(near, C3.h, C.h);
    C.l = b_pick(near, C3.l, C.l);
    Ec = b_pick(near, E3, Ec);
    cpos |= near & (C.h > 2 * Ec);
    cneg |= near & (-C.h > 2 * Ec);
  }
  const bvl bpos = B.h > 2 * Eb, bneg = -B.h > 2 * Eb;
  live &= (cpos | cneg) & (cneg | bpos | bneg);

  /* Step 3: D = b^2 - a c with its bound. */
  const bvd Aa = A.h * b_set(1 + 0x1p-52), Ba = b_abs(B.h) * b_set(1 + 0x1p-52), Ca = b_abs(C.h) * b_set(1 + 0x1p-52);
  const vdd dx[2] = {B, A}, dy[2] = {B, d_neg(C)};
  bvd Md;
  const vdd D = d_dot(dx, dy, 2, &Md);
  const bvd ED = b_up(b_set(0x1p-99) * Md + Eb * (2 * Ba + Eb) + Ea * Ca + (Aa + Ea) * Ec) + b_set(0x1p-1000);
  const bvl dpos = cneg | (D.h > 2 * ED), dneg = ~cneg & (-D.h > 2 * ED);
  live &= dpos | dneg;
  const bvl noroot = live & dneg;
  bvl roots = live & dpos;

  /* Step 4: the roots (b_dd_roots). */
  roots &= (D.h >= b_set(0x1p-800)) & (D.h <= b_set(0x1p800)) & (b_abs(C.h) >= b_set(0x1p-800));
  bvd tlo = b_set(0), thi = b_set(0);
  if (B_MASK(roots)) roots = b_dd_roots(&tlo, &thi, roots, A, Ea, ia, B, Eb, C, Ec, D, ED, k2, f32);
  return b_store(op, noroot, roots, cneg, bneg, bpos, tlo, thi);
}

BATCH_ATTR int B_NAME_DD(toi_ref *const *op, const toi_case *const *cp, int *c3) { return b_dd(op, cp, c3, 0); }

BATCH_ATTR int B_NAME32_DD(toi_ref *const *op, const toi_case *const *cp, int *c3) { return b_dd(op, cp, c3, 1); }


/* ---- the root's offset and kappa's enclosure from a rounded root (ref_bench.h) ---- */

/* fast_scale of ref_fdd.h lane by lane, the same products: one by 2^k for
 * -1022 <= k <= 1023, else two by 2^(k/2) (C's division) and 2^(k - k/2),
 * for |k| <= 2044 (what fast_scale requires; other lanes give garbage). */
BATCH_INLINE bvd b_fast_scale(bvd x, bvl k) {
  const bvl one = (k >= -1022) & (k <= 1023);
  const bvl k1 = (k - (k >> 63)) >> 1; /* k / 2, toward zero */
  return b_pick(one, x * b_pow2(k & one), x * b_pow2(k1 & ~one) * b_pow2((k - k1) & ~one));
}

/* quick_offset of ref_fast_quick.c in BW lanes (R, u, lower lane by lane,
 * lower all ones for the lower root): the same data (b_prepare makes them
 * as quick_offset does, scaled or not, for its live lanes), the same step
 * (b_step) and the same checks and scalings, so each lane gives quick_offset's
 * doubles, and the bound proved there. Returns the lanes where quick_offset
 * gives 1, with *lo, *hi; *scalar: the lanes b_prepare does not follow
 * (not live), which the caller gives to quick_offset itself. */
BATCH_INLINE bvl b_offset(bvd *lo, bvd *hi, bvl *scalar, const bin *in, bvd R, bvd u, bvl lower) {
  const bvd inf = b_set(INFINITY);
  const bvl eu = b_expo(u) - 1023; /* fast_ilog2(u) for a normal u */
  bvl pre = (u >= b_set(0x1p-1022)) & (u < inf) & (b_abs(R) < inf);
  pre &= (bvl)u == (bvl)b_pow2(eu & pre);
  bdata d;
  bvl whole, k2;
  const bvl live = b_prepare(&d, &whole, &k2, in);
  *scalar = pre & ~live;
  const bvd *vh = d.vh;
  const bvd A = (vh[0] * vh[0] + vh[1] * vh[1]) + vh[2] * vh[2];
  const bvd Ea = b_set(0x1p-50) * A + b_set(0x1p-1000);
  bvd H2h, H2l;
  b_two_prod(d.Rh, d.Rh, &H2h, &H2l);
  const bvd mR = d.Rl * (2 * d.Rh + d.Rl);
  const bvd Ts = b_pick(k2 == 0, R, b_fast_scale(R, -k2));
  bvd dl, E, F;
  bvl ok = pre & live & b_step(&dl, &E, &F, Ts, b_pick(lower, b_set(-1.0), b_set(1.0)), &d, H2h, H2l, mR, A, Ea);
  bvd a = dl - E, b = dl + E;
  const bvd aa = b_abs(a), ab = b_abs(b);
  ok &= ((a == b_set(0)) | ((aa >= b_set(0x1p-960)) & (aa <= b_set(0x1p1000)))) &
        ((b == b_set(0)) | ((ab >= b_set(0x1p-960)) & (ab <= b_set(0x1p1000))));
  a -= b_abs(a) * b_set(0x1p-52);
  b += b_abs(b) * b_set(0x1p-52);
  const bvl ks = k2 - eu, za = a == b_set(0), zb = b == b_set(0);
  /* |a|, |b| normal where ok holds and they are not 0: their exponents are the fields less 1023. */
  const bvl ea = b_expo(b_abs(a)) - 1023 + ks, eb = b_expo(b_abs(b)) - 1023 + ks;
  ok &= (za | ((ea >= -1000) & (ea <= 1000))) & (zb | ((eb >= -1000) & (eb <= 1000)));
  const bvl ksok = ks & ok; /* no scaling by a garbage ks */
  *lo = b_pick(za, a, b_fast_scale(a, ksok));
  *hi = b_pick(zb, b, b_fast_scale(b, ksok));
  return ok;
}

/* kr_bound of ref_fast_kappa_root.c in BW lanes, its operations in its
 * order (rho = 2^-53: binary64), so each lane gives its doubles and the
 * bound proved there. Returns the lanes where it gives 1, with *lo, *hi;
 * *far: those where it gives -1 (a number out of its range: the caller
 * gives them to ref_kappa_root_bound itself, which scales them). */
BATCH_INLINE bvl b_kr_bound(bvd *lo, bvd *hi, bvl *far, const bin *in, bvd R) {
  const double u = 0x1p-53, rho = 0x1p-53;
  const bvd r0 = b_abs(R);
  bvl range = (r0 >= b_set(0x1p-200)) & (r0 <= b_set(0x1p200));
  const bvd hr = r0 * rho;
  const double rw = rho + 4 * u, U1 = u * (1 + 0x1p-45);
  const bvd c1 = (u * (r0 + hr) + hr) * (1 + 0x1p-45);
  bvd N = b_set(0), WE = b_set(0), d = b_set(0), A = b_set(0), Ed = b_set(0);
  bvd mL = b_pick(in->ra > in->rb, in->ra, in->rb), mV = b_set(0);
#pragma GCC unroll 3
  for (int i = 0; i < 3; i++) {
    const bvd s = in->pb[i] - in->pa[i], v = in->vb[i] - in->va[i];
    const bvd P = v * R, x = s + P, ax = b_abs(x), av = b_abs(v);
    const bvd e = U1 * ((b_abs(s) + b_abs(P)) + ax) + av * c1 + 0x1p-1070;
    const bvd fa = b_abs(in->pa[i]), fb = b_abs(in->pb[i]), ga = b_abs(in->va[i]), gb = b_abs(in->vb[i]);
    const bvd wp = fa + fb, wv = ga + gb;
    mL = b_pick(fa > mL, fa, mL);
    mL = b_pick(fb > mL, fb, mL);
    mV = b_pick(ga > mV, ga, mV);
    mV = b_pick(gb > mV, gb, mV);
    const bvd w = wp + r0 * wv;
    N += w * ax;
    WE += w * e;
    const bvd xv = x * v;
    d += xv;
    A += b_abs(xv);
    Ed += e * av;
  }
  range &= (mL <= b_set(0x1p200)) & (mV <= b_set(0x1p200));
  const bvd Rr = in->ra + in->rb, tr = Rr * Rr;
  bvd EN = (1 + rw) * WE + (rw * (1 + u) + u) * N;
  N += tr;
  EN = b_up(EN + tr * 3 * u * (1 + 0x1p-50) + N * 3 * u) + 0x1p-660;
  const bvd ad = b_abs(d);
  Ed = b_up(Ed + 5 * u * A) + 0x1p-800;
  bvl ok = (N >= b_set(0x1p-600)) & (N <= b_set(0x1p820)) & (ad >= b_set(0x1p-700)) & (Ed <= 0x1p-12 * ad);
  const bvd den = ad * r0, K = N / den;
  ok &= (den >= b_set(0x1p-900)) & (K >= b_set(0x1p-900)) & (b_abs(K) < b_set(INFINITY));
  const bvd S = b_up(EN / N + Ed / ad + rho + 3 * u);
  ok &= S <= b_set(0x1p-10);
  const bvd r = (S * (1 + 0x1p-7) + REF_KAPPA_REL_ERR + u) * (1 + 0x1p-8);
  const bvd l = K * (1 - r) * (1 - 0x1p-50), h = K * (1 + r) * (1 + 0x1p-50);
  ok &= b_abs(h) < b_set(INFINITY);
  *lo = l;
  *hi = h;
  *far = ~range;
  return range & ok;
}

/* floor(log2 |x|) of a finite x != 0 as fast_ilog2 of ref_fdd.h gives it,
 * lane by lane: the exponent field, or that of x 2^64 (exact) for a
 * subnormal x. */
BATCH_INLINE bvl b_ilog2(bvd x) {
  const bvl e = b_expo(b_abs(x)), sub = e == 0;
  return (sub & (b_expo(b_abs(x * b_set(0x1p64))) - 1023 - 64)) | (~sub & (e - 1023));
}

/* The largest |x_i| of kr_top, in its order (a NaN is passed over). */
BATCH_INLINE bvd b_top(const bvd *x, int n) {
  bvd m = b_set(0);
  for (int i = 0; i < n; i++) m = b_pick(b_abs(x[i]) > m, b_abs(x[i]), m);
  return m;
}

/* kr_bound_scaled of ref_fast_kappa_root.c in BW lanes, its scalings
 * (fast_scale's products, b_fast_scale) and checks: the lanes where it
 * gives 1, with *lo, *hi. */
BATCH_INLINE bvl b_kr_scaled(bvd *lo, bvd *hi, const bin *in, bvd R) {
  bvd L[8], V[6];
  for (int i = 0; i < 3; i++) L[i] = in->pa[i], L[3 + i] = in->pb[i], V[i] = in->va[i], V[3 + i] = in->vb[i];
  L[6] = in->ra, L[7] = in->rb;
  const bvd mL = b_top(L, 8), mV = b_top(V, 6);
  bvl ok = (mL > b_set(0)) & (mV > b_set(0)); /* kr_top's INT_MIN: 0 */
  const bvl el = b_ilog2(b_pick(ok, mL, b_set(1))) & ok, ev = b_ilog2(b_pick(ok, mV, b_set(1))) & ok;
  bvl lost = {};
  bin s;
  for (int i = 0; i < 8; i++) {
    L[i] = b_fast_scale(L[i], -el);
    lost |= (L[i] != b_set(0)) & ~(b_abs(L[i]) >= b_set(0x1p-1000));
  }
  for (int i = 0; i < 6; i++) {
    V[i] = b_fast_scale(V[i], -ev);
    lost |= (V[i] != b_set(0)) & ~(b_abs(V[i]) >= b_set(0x1p-1000));
  }
  ok &= ~lost;
  for (int i = 0; i < 3; i++) s.pa[i] = L[i], s.pb[i] = L[3 + i], s.va[i] = V[i], s.vb[i] = V[3 + i];
  s.ra = L[6], s.rb = L[7], s.dim = in->dim;
  bvl far;
  return ok & b_kr_bound(lo, hi, &far, &s, b_fast_scale(R, ev - el));
}

/* B_NAME_ROOT (ref_fast_kernels.h): quick_offset and ref_kappa_root_bound
 * in binary64 on the cases *cp[0..BW-1], whose roots are R[j] (ulp u[j], the
 * lower when bit j of lower is set). */
BATCH_ATTR int B_NAME_ROOT(double *olo, double *ohi, double *klo, double *khi, int *kok, int *scalar,
                           const toi_case *const *cp, const double *R, const double *u, int lower) {
  bin in;
  b_in(&in, cp);
  bvl bit;
  for (int j = 0; j < BW; j++) bit[j] = 1LL << j;
  const bvd vR = *(const bvdu *)R, vu = *(const bvdu *)u;
  bvd lo, hi;
  bvl soff, far;
  const bvl ook = b_offset(&lo, &hi, &soff, &in, vR, vu, (bit & lower) != 0);
  *(bvdu *)olo = lo;
  *(bvdu *)ohi = hi;
  /* ref_kappa_root_bound's own checks in binary64: R normal and finite. */
  const bvd aR = b_abs(vR);
  const bvl pre = (aR >= b_set(0x1p-1022)) & (aR < b_set(INFINITY));
  bvl kk = pre & b_kr_bound(&lo, &hi, &far, &in, vR);
  if (__builtin_expect(B_MASK(pre & far) != 0, 0)) { /* data out of kr_bound's range: scaled */
    bvd slo, shi;
    const bvl sk = pre & far & b_kr_scaled(&slo, &shi, &in, vR);
    lo = b_pick(sk, slo, lo);
    hi = b_pick(sk, shi, hi);
    kk |= sk;
  }
  *(bvdu *)klo = lo;
  *(bvdu *)khi = hi;
  *kok = B_MASK(kk);
  *scalar = B_MASK(soff);
  return B_MASK(ook);
}
