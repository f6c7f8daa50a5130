/* accurate_lanes.inl: accurate's common path in ACC_W lanes (accurate_batch.c's argument), compiled twice. */

/*
 * A type-generic source, not a header: included by accurate_lanes4.c
 * (ACC_W 4, AVX2 and FMA) and accurate_lanes8.c (ACC_W 8, AVX-512 F and
 * DQ), which define ACC_W, ACC_TARGET, ACC_BATCH (the batch function's
 * name) and the few intrinsics below (ACC_SET1, ACC_SET1I, ACC_FMADD,
 * ACC_SQRT, ACC_SLLV, ACC_SRLV (variable shifts of 64-bit lanes, 0 for a
 * count above 63), ACC_ANY, ACC_MASK, and ACC_GATHER_SETUP and ACC_LOADP,
 * which load a field of the lanes' cases into a vector) before including
 * it. One source for both widths, so the two cannot drift apart; no
 * include guard on purpose.
 * Each lane makes the operations of accurate.c's scalar function in the
 * same order: the argument is in accurate_batch.c.
 */

#include <stdint.h>

#define ACC_ALL ((1 << ACC_W) - 1)

#define ACC_LANES __attribute__((target(ACC_TARGET), always_inline)) static inline
#define ACC_KERNEL __attribute__((target(ACC_TARGET), noinline)) static

#define ACC_REL 0x1p-64 /* accurate.c's */
/* The loops over the components fully unrolled, as in accurate.c. */
#if defined(__clang__)
#define ACC_UNROLL _Pragma("unroll")
#else
#define ACC_UNROLL _Pragma("GCC unroll 3")
#endif
#define ETA 0x1p-1000   /* accurate.c's */

typedef double vd __attribute__((vector_size(8 * ACC_W)));
typedef long long vl __attribute__((vector_size(8 * ACC_W)));
typedef unsigned long long vu __attribute__((vector_size(8 * ACC_W)));

/* put_lanes stores a toi_result as two 8-byte halves: the class in the low
   bytes of the first (little-endian x86-64), the time in the second. */
_Static_assert(sizeof(toi_result) == 16 && offsetof(toi_result, t) == 8, "toi_result: class, padding, time");

typedef struct vdd {
  vd hi, lo;
} vdd;

ACC_LANES vd v_set(double x) { return (vd)ACC_SET1(x); }
ACC_LANES vl v_setl(long long x) { return (vl)ACC_SET1I(x); }
/* The bits of a double but its sign: not those of DBL_MAX, 0x7fef..., which
   lack the exponent's lowest bit. */
ACC_LANES vu v_nosign(void) { return (vu)v_setl(0x7fffffffffffffffLL); }
ACC_LANES vd v_abs(vd x) { return (vd)((vu)x & v_nosign()); }
ACC_LANES vd v_pick(vl m, vd x, vd y) { return (vd)((m & (vl)x) | (~m & (vl)y)); }
ACC_LANES vd v_fma(vd a, vd b, vd c) { return ACC_FMADD(a, b, c); }

/* eft.h's two_sum, fast_two_sum, two_prod and accurate.c's two_diff. */
ACC_LANES vdd v_two_sum(vd a, vd b) {
  vd s = a + b;
  vd bv = s - a;
  vd av = s - bv;
  vdd r = {s, (a - av) + (b - bv)};
  return r;
}

ACC_LANES vdd v_fast_two_sum(vd a, vd b) {
  vd s = a + b;
  vdd r = {s, b - (s - a)};
  return r;
}

ACC_LANES vdd v_two_prod(vd a, vd b) {
  vd p = a * b;
  vdd r = {p, v_fma(a, b, -p)};
  return r;
}

ACC_LANES vdd v_two_diff(vd a, vd b) {
  vd s = a - b;
  vd bv = a - s;
  vd av = s + bv;
  vdd r = {s, (a - av) + (bv - b)};
  return r;
}

/* fast_c */
ACC_LANES vdd v_fast_c(const vdd *s, vdd R, const int n, vd *err) {
  vdd p = v_two_prod(s[0].hi, s[0].hi);
  vd S = p.hi, T = p.lo, M = p.hi, cross = s[0].hi * s[0].lo;
  ACC_UNROLL
  for (int i = 1; i < n; i++) {
    p = v_two_prod(s[i].hi, s[i].hi);
    vdd q = v_two_sum(S, p.hi);
    S = q.hi;
    T += q.lo + p.lo;
    M += p.hi;
    cross += s[i].hi * s[i].lo;
  }
  p = v_two_prod(R.hi, R.hi);
  vdd q = v_two_sum(S, -p.hi);
  T += q.lo - p.lo;
  M += p.hi;
  T += 2.0 * (cross - R.hi * R.lo);
  *err = 0x1p-99 * M + ETA;
  return v_two_sum(q.hi, T);
}

/* fast_dot */
ACC_LANES vdd v_fast_dot(const vdd *x, const vdd *y, const int n, vd *err) {
  vdd p = v_two_prod(x[0].hi, y[0].hi);
  vd S = p.hi, T = p.lo, M = v_abs(p.hi), cross = x[0].hi * y[0].lo + x[0].lo * y[0].hi;
  ACC_UNROLL
  for (int i = 1; i < n; i++) {
    p = v_two_prod(x[i].hi, y[i].hi);
    vdd q = v_two_sum(S, p.hi);
    S = q.hi;
    T += q.lo + p.lo;
    M += v_abs(p.hi);
    cross += x[i].hi * y[i].lo + x[i].lo * y[i].hi;
  }
  T += cross;
  *err = 0x1p-99 * M + ETA;
  return v_two_sum(S, T);
}

/* fast_d (a > 0, b < 0, c > 0 in the lanes that use it) */
ACC_LANES vdd v_fast_d(vdd a, vd ea, vdd b, vd eb, vdd c, vd ec, vd *err) {
  vdd P1 = v_two_prod(b.hi, b.hi);
  vdd P2 = v_two_prod(a.hi, c.hi);
  vdd S = v_two_sum(P1.hi, -P2.hi);
  vd T = S.lo + (P1.lo - P2.lo) + (2.0 * b.hi * b.lo - (a.hi * c.lo + a.lo * c.hi));
  vd ab = a.hi, bb = -b.hi, cb = c.hi;
  *err = 0x1p-100 * (P1.hi + P2.hi) + (2.002 * bb + eb) * eb + 1.001 * ab * ec + (1.001 * cb + ec) * ea + ETA;
  return v_two_sum(S.hi, T);
}

/* The biased exponent field of x >= 0. */
ACC_LANES vl v_expo(vd x) { return (vl)((vu)x >> 52) & v_setl(0x7ff); }

/* 2^k for -1022 <= k <= 1023 (pow2i). */
ACC_LANES vd v_pow2(vl k) { return (vd)((k + 1023) << 52); }

/* track_min: the least of the magnitudes' bits minus one (zero wraps to the top). */
ACC_LANES vu v_track_min(vd x, vu mn1) {
  vu a = ((vu)x & v_nosign()) - 1;
  return (vu)v_pick((vl)(a < mn1), (vd)a, (vd)mn1);
}

/* maybe_midpoint on the bits, lane by lane (all ones where it holds). */
ACC_LANES vl v_maybe_midpoint(vdd t) {
  const vu h = (vu)t.hi, l = (vu)t.lo;
  const vu ex = (vu)v_set(INFINITY); /* 0x7ff0000000000000 */
  const vu half = (h & ex) - ((unsigned long long)53 << 52);
  const vu d1 = (l & v_nosign()) - half;
  const vu d2 = d1 + ((unsigned long long)1 << 52);
  const unsigned long long w = (unsigned long long)1 << 48;
  const vu w2 = (vu)v_setl((long long)(2 * w));
  const unsigned long long lo = (unsigned long long)56 << 52;
  return (vl)((d1 + w) <= w2) | (vl)((d2 + w) <= w2) | (vl)((h & ex) < (vu)v_setl((long long)lo));
}

/* In the kernel without scaling, a gate to the near_midpoint block much
   narrower than maybe_midpoint: the lanes of a hit or a graze where the
   scalar function can call tie_break. maybe_midpoint's window (2^-4 of
   half a step each side of two powers of two) holds in several percent of
   the lanes, so the block ran in most groups of eight and cost the common
   path about a tenth (its branch at the end of the longest chain, taken
   at random); this one holds in a few lanes in a thousand.
   Where the lanes answer a hit or a graze, k = 0 and t is normalized by
   FastTwoSum, so y = RN(t.hi + t.lo) = t.hi and near_midpoint's r is t.lo;
   its half is 2^(E-53) for t.hi in [2^E, 2^(E+1)), or 2^(E-54) where t.hi =
   2^E and t.lo <= 0 (the neighbour below, in the binade under), and |t.lo|
   <= |half|, so dist = |r - half| = |half| - |t.lo|, exact where it is
   below |half| / 2. tie_break needs dist <= RN(rel t.hi) for root_rel's
   rel, which is below 2^-62 there: c_ok gives ec / c.hi <= 2^-64, b_ok eb
   <= 2^-64 (-b.hi) <= 2^-64 H (H = RN(h - b.hi)), the hit's accuracy test
   ed <= 2^-64 h H (1 + u) (none for a graze, h = 0), so den_err / H <=
   2^-63 (1 + 4u), and rel <= 1.01 (3 2^-64 (1 + 5u) + 2^-98) (1 + 3u) <
   2^-62.4. Hence |t.lo| >= |half| - 2^-62 t.hi (m, an exact product), and
   |t.lo| >= RN(|half| - m), RN being monotone and |t.lo| a double. Below
   2^-967 (t.hi's field under 56) half may be subnormal: every such lane
   passes, as in maybe_midpoint (the lanes answer none of them). */
ACC_LANES vl v_tie_gate(vdd t, vd m) {
  const vu h = (vu)t.hi;
  const vu ex = (vu)v_set(INFINITY); /* 0x7ff0000000000000 */
  const vu below = (vu)(((h & (vu)v_setl(0xfffffffffffffLL)) == (vu)v_setl(0)) & ~(t.lo > v_set(0)));
  const vd half = (vd)((h & ex) - ((unsigned long long)53 << 52) - (below & ((unsigned long long)1 << 52)));
  return (vl)(v_abs(t.lo) >= half - m) | (vl)((h & ex) < (vu)v_setl((long long)56 << 52));
}

/* A part's integer significand m and the exponent e0 of its bit 0 (int_bits,
   wide_part): |x| = m 2^e0. */
ACC_LANES vu v_signif(vd x, vl *e0) {
  const vu b = (vu)x & v_nosign();
  const vl ex = (vl)(b >> 52);
  const vl normal = ex != v_setl(0); /* all ones where normal */
  *e0 = ex - v_setl(1074) + normal;   /* ex - 1075, or -1074 where subnormal */
  return (b & (vu)v_setl(0xfffffffffffffLL)) | ((vu)normal & (vu)v_setl(1LL << 52));
}

/* The exponent of the last nonzero bit of m 2^e0, m != 0: the lowest set bit
   of m (at most 2^52) made a double exactly by adding it to the bits of
   2^52, which leaves 2^52 + it, and subtracting 2^52. */
ACC_LANES vl v_last_bit(vu m, vl e0) {
  const vu low = m & ((vu)v_setl(0) - m);
  const vd f = (vd)(low + (vu)v_set(0x1p52)) - v_set(0x1p52);
  return e0 + (vl)((vu)f >> 52) - v_setl(1023);
}

/* int_span over a group's parts x[0..np-1] (both parts of each difference,
   and of R): *lo, the least exponent of a last nonzero bit, and the lanes
   where int_span holds: some part nonzero, hi - lo <= 60, lo in [-1022,
   1022] (hi the largest floor(log2 |x|)). A nonzero subnormal part has its
   last bit below 2^-1022 and fails there, so hi is taken from the
   exponent fields, which a part of zero (field 0) never sets. */
ACC_LANES vl v_int_span(const vd *x, const int np, vu *m, vl *e0, vl *lo) {
  const vl big = v_setl(1 << 20);
  vl l = big, h = v_setl(-(1 << 20));
  ACC_UNROLL
  for (int i = 0; i < np; i++) {
    m[i] = v_signif(x[i], &e0[i]);
    const vl last = v_last_bit(m[i], e0[i]);
    const vl nz = m[i] != (vu)v_setl(0);
    const vl t = e0[i] + v_setl(52); /* floor(log2 |x|) where normal */
    l = (vl)v_pick(nz & (last < l), (vd)last, (vd)l);
    h = (vl)v_pick(nz & (t > h), (vd)t, (vd)h);
  }
  *lo = l;
  return (h - l <= v_setl(60)) & (l >= v_setl(-1022)) & (l <= v_setl(1022));
}

/* x 2^-lo mod 2^64 as a two's complement integer, for a part m 2^e0 of the
   sign of x on the grid of 2^lo (int_of): m shifted left by e0 - lo or
   right by lo - e0 (whose bits are zero), one of the two shifts 0. */
ACC_LANES vu v_int_part(vd x, vu m, vl e0, vl lo) {
  const vl sh = e0 - lo;
  const vu val = ACC_SLLV(m, sh) | ACC_SRLV(m, v_setl(0) - sh);
  const vu neg = (vu)((vl)x < v_setl(0));
  return (val ^ neg) - neg;
}

/*
 * int_d_sign's sign of D where it is cheap in lanes: the lanes (of those
 * the filter left unsure) where int_d_sign's spans hold and D is 0
 * (*zero) or negative (*neg). With s_i = S_i 2^ls, R = Rr 2^ls, v_i =
 * V_i 2^lv (int_d_sign), D = (B^2 - A C) 2^(2 ls + 2 lv): the integer
 * N = B^2 - A C is computed modulo 2^64 (wrapping products of the parts'
 * integers, which are themselves taken modulo 2^64). Where the filter left
 * the sign unsure, |d.hi| <= 1.001 ed and |D - d| <= ed, so |D| < 2.002 ed
 * < 2^(E + 3) for ed < 2^(E + 1), E its exponent (ed >= ETA is normal).
 * Where E <= 60 + 2 ls + 2 lv, |N| < 2^63: N is the residue read as a
 * signed integer, its sign int_d_sign's. Elsewhere (the residue does not
 * determine N) the lane is not decided.
 */
ACC_LANES void v_int_d_parts(const vdd *s, const vdd *v, vdd R, const int n, const int lo_parts, vd ed, vl *zero,
                             vl *neg) {
  const int k = lo_parts ? 2 : 1; /* parts a difference */
  vd xs[8], xv[6];
  vu ms[8], mv[6];
  vl es[8], ev[6], ls, lv;
  ACC_UNROLL
  for (int i = 0; i <= n; i++) {
    const vdd x = i < n ? s[i] : R;
    xs[k * i] = x.hi;
    if (lo_parts) xs[k * i + 1] = x.lo;
  }
  ACC_UNROLL
  for (int i = 0; i < n; i++) {
    xv[k * i] = v[i].hi;
    if (lo_parts) xv[k * i + 1] = v[i].lo;
  }
  vl ok = v_int_span(xs, k * (n + 1), ms, es, &ls) & v_int_span(xv, k * n, mv, ev, &lv);
  ok &= v_expo(ed) - v_setl(1023) <= v_setl(60) + 2 * (ls + lv);
  if (!ACC_ANY(ok)) {
    *zero = *neg = v_setl(0);
    return;
  }
  vu in[7]; /* S_i, Rr, V_i */
  ACC_UNROLL
  for (int i = 0; i < 2 * n + 1; i++) {
    const vd *x = i <= n ? xs : xv;
    const vu *m = i <= n ? ms : mv;
    const vl *e = i <= n ? es : ev;
    const vl l = i <= n ? ls : lv;
    const int j = k * (i <= n ? i : i - n - 1);
    in[i] = v_int_part(x[j], m[j], e[j], l);
    if (lo_parts) in[i] += v_int_part(x[j + 1], m[j + 1], e[j + 1], l);
  }
  vu A = in[n + 1] * in[n + 1], B = in[0] * in[n + 1], C = in[0] * in[0];
  ACC_UNROLL
  for (int i = 1; i < n; i++) {
    A += in[n + 1 + i] * in[n + 1 + i];
    B += in[i] * in[n + 1 + i];
    C += in[i] * in[i];
  }
  C -= in[n] * in[n];
  const vl N = (vl)(B * B - A * C);
  *zero = ok & (N == v_setl(0));
  *neg = ok & (N < v_setl(0));
}

/* Without the low parts where those of every lane in want are zero (data
   with few significant bits, as the constructed tangents and grazes have):
   the same values there, half the work. */
ACC_LANES void v_int_d(const vdd *s, const vdd *v, vdd R, const int n, vd ed, vl want, vl *zero, vl *neg) {
  vu lo = (vu)R.lo;
  ACC_UNROLL
  for (int i = 0; i < n; i++) lo |= (vu)s[i].lo | (vu)v[i].lo;
  if (ACC_ANY(lo & v_nosign() & (vu)want))
    v_int_d_parts(s, v, R, n, 1, ed, zero, neg);
  else
    v_int_d_parts(s, v, R, n, 0, ed, zero, neg);
}

/* The answers of the lanes in done (bits), the scalar function's for the
   others but those in left (left to another kernel, or to the
   continuation, which write their answers after this). Every lane's is
   stored, as two halves of 16 bytes a case (the class, zero padding, the
   time), without a branch on the lanes: those not in done are written
   again after. */
ACC_LANES void put_lanes(const toi_case *cs, const size_t *idx, toi_result *out, vl cls, vd t, int done, int left) {
#if ACC_W == 4
  const vd lo = _mm256_unpacklo_pd((__m256d)cls, t), hi = _mm256_unpackhi_pd((__m256d)cls, t);
  _mm_storeu_pd((double *)&out[idx[0]], _mm256_castpd256_pd128(lo));
  _mm_storeu_pd((double *)&out[idx[1]], _mm256_castpd256_pd128(hi));
  _mm_storeu_pd((double *)&out[idx[2]], _mm256_extractf128_pd(lo, 1));
  _mm_storeu_pd((double *)&out[idx[3]], _mm256_extractf128_pd(hi, 1));
#elif ACC_W == 8
  /* (AVX-512 DQ's extracts) */
  const __m512d lo = _mm512_unpacklo_pd((__m512d)cls, (__m512d)t), hi = _mm512_unpackhi_pd((__m512d)cls, (__m512d)t);
  _mm_storeu_pd((double *)&out[idx[0]], _mm512_castpd512_pd128(lo));
  _mm_storeu_pd((double *)&out[idx[1]], _mm512_castpd512_pd128(hi));
  _mm_storeu_pd((double *)&out[idx[2]], _mm512_extractf64x2_pd(lo, 1));
  _mm_storeu_pd((double *)&out[idx[3]], _mm512_extractf64x2_pd(hi, 1));
  _mm_storeu_pd((double *)&out[idx[4]], _mm512_extractf64x2_pd(lo, 2));
  _mm_storeu_pd((double *)&out[idx[5]], _mm512_extractf64x2_pd(hi, 2));
  _mm_storeu_pd((double *)&out[idx[6]], _mm512_extractf64x2_pd(lo, 3));
  _mm_storeu_pd((double *)&out[idx[7]], _mm512_extractf64x2_pd(hi, 3));
#endif
  for (int rest = ACC_ALL & ~done & ~left; rest; rest &= rest - 1) {
    const size_t i = idx[__builtin_ctz((unsigned)rest)];
    out[i] = toi_f_accurate(&cs[i]);
  }
}

/* The lanes in cont (bits: cases of the common range, k = 0, that
   quick_class left and the lanes do not answer) from their state after
   fast_c on, by the scalar function's own continuation
   (toi_accurate_after_c): its integer and exact steps without computing
   the differences and c again. Only at the early ways out (no lane goes
   on to b, or to the root: near contacts, tangents) and for the signs of
   D left unsure by the filter and the lanes' integers, where the state is
   at hand, and only in the kernel without scaling: past the root, or in
   the scaled kernel (few lanes of the common range), keeping the state
   costs the other lanes more than it saves (the scalar function then
   starts over, as before). Called after put_lanes, whose stores cover
   every lane: keep_state keeps the rows, cont_from answers from them. */
ACC_LANES void keep_state(vd *st, const int n, const vdd *s, const vdd *v, vdd R, vdd c, vd ec) {
  for (int i = 0; i < n; i++) {
    st[ACC_ST_SHI + i] = s[i].hi, st[ACC_ST_SLO + i] = s[i].lo;
    st[ACC_ST_VHI + i] = v[i].hi, st[ACC_ST_VLO + i] = v[i].lo;
  }
  st[ACC_ST_RHI] = R.hi, st[ACC_ST_RLO] = R.lo;
  st[ACC_ST_CHI] = c.hi, st[ACC_ST_CLO] = c.lo;
  st[ACC_ST_EC] = ec;
}

ACC_LANES void cont_from(const toi_case *cs, const size_t *idx, toi_result *out, int cont, const vd *st, int mv) {
  for (; cont; cont &= cont - 1) {
    const int j = __builtin_ctz((unsigned)cont);
    out[idx[j]] = toi_accurate_after_c(&cs[idx[j]], (const double *)st + j, ACC_W, mv >> j & 1);
  }
}

ACC_LANES void cont_lanes(const toi_case *cs, const size_t *idx, toi_result *out, int cont, const int n,
                          const vdd *s, const vdd *v, vdd R, vdd c, vd ec, vl moving) {
  vd st[ACC_ST_ROWS]; /* the rows of toi_accurate_after_c's state, one vector each */
  keep_state(st, n, s, v, R, c, ec);
  cont_from(cs, idx, out, cont, st, ACC_MASK(moving));
}

/* ACC_W cases of dimension n through the common path: out[idx[j]] for each
   lane j, from the lanes or from the scalar function, but for the lanes
   returned: bit j, lane j left to the kernel with scaling; bit ACC_W + j
   (the kernel without scaling, un = 0), lane j's sign of D left unsure by
   the filter, left to the kernel for those (un = 1: int_d_sign's integers
   in lanes, v_int_d, then the root of the grazes). Apart, the unsure lanes
   of several groups fill the vectors of v_int_d, about eight times fewer
   runs in the tangent family, whose lanes are 13% unsure (in seven groups
   of ten), and the common path has no branch on them. */
ACC_LANES int lanes(const toi_case *cs, const size_t *idx, const int n, const int sc, const int un, toi_result *out) {
  ACC_GATHER_SETUP(cs, idx);
#define LOAD(f) ACC_LOADP(cs, f)
  /* In the kernel with scaling, the lanes whose first coordinate of pA
     (of vA) is nonzero and below 2^-900 (gp, gv: a guess, the scale
     family's lengths or speeds of 2^-1000) have their lengths (their
     velocities) multiplied by 2^600 (Kp, Kv: 600 there, else 0) as they
     are loaded: the low parts of their differences would be subnormal, and
     every vector operation on them, with them, is slow (about a case's
     time each, for the whole group). Nothing here changes a value the
     lanes go on with: x 2^K is exact (K > 0, no overflow: a lane that
     overflows is not finite below and goes to the scalar function), and
     each operation of two_diff and two_sum on x 2^K, y 2^K gives its
     result on x, y times 2^K exactly (a sum that rounds is normal, and
     stays so, with the same rounding, times 2^K; one in the subnormal
     range is exact; zeros keep their signs), so the differences and R are
     the scalar function's times 2^K, ms and mv too: the range tests below
     take 2^K times their bounds, the exponents less K, and the powers of
     two that scale the differences 2^(kp - Kp) and 2^(kv - Kv), which give
     the scalar function's scaled parts exactly (the exact products are
     those it makes, doubles; or, where it does not scale, 2^-K: the
     differences themselves). A guessed lane that scaled_body would scale
     down (kp < 0: lengths of 2^423 or more beside a coordinate below
     2^-900) goes to the scalar function, so that 2^(kp - Kp) stays in
     range and the test of the least part holds as written. */
  vd in_pa[3], in_pb[3], in_va[3], in_vb[3], in_ra = LOAD(ra), in_rb = LOAD(rb);
  ACC_UNROLL
  for (int i = 0; i < n; i++) {
    in_pa[i] = LOAD(pa[i]);
    in_pb[i] = LOAD(pb[i]);
    in_va[i] = LOAD(va[i]);
    in_vb[i] = LOAD(vb[i]);
  }
#undef LOAD
  vl gp = v_setl(0), gv = gp;
  int pre = 0;
  if (sc) {
    const vu small = (vu)v_set(0x1p-900) - 1;
    gp = (vl)(((vu)in_pa[0] & v_nosign()) - 1 < small);
    gv = (vl)(((vu)in_va[0] & v_nosign()) - 1 < small);
    pre = ACC_ANY(gp | gv);
    if (pre) {
      const vd Lp = v_pick(gp, v_set(0x1p600), v_set(1.0)), Lv = v_pick(gv, v_set(0x1p600), v_set(1.0));
      ACC_UNROLL
      for (int i = 0; i < n; i++) {
        in_pa[i] *= Lp;
        in_pb[i] *= Lp;
        in_va[i] *= Lv;
        in_vb[i] *= Lv;
      }
      in_ra *= Lp;
      in_rb *= Lp;
    }
  }
  const vl Kp = gp & v_setl(600), Kv = gv & v_setl(600);
  /* diffs */
  vdd s[3], v[3];
  vd as_ = v_set(0), av_ = v_set(0);
  vl mo = v_setl(0), fin = v_setl(-1);
  const vd big = v_set(0x1.fffffffffffffp1023);
  ACC_UNROLL
  for (int i = 0; i < n; i++) {
    s[i] = v_two_diff(in_pb[i], in_pa[i]);
    v[i] = v_two_diff(in_vb[i], in_va[i]);
    vd as = v_abs(s[i].hi), av = v_abs(v[i].hi);
    as_ = v_pick(as > as_, as, as_);
    av_ = v_pick(av > av_, av, av_);
    mo |= (vl)((vu)v[i].hi << 1);
    /* (not in the scalar function: lanes with a NaN or an infinity go to it) */
    fin &= (as <= big) & (av <= big);
  }
  vdd R = v_two_sum(in_ra, in_rb);
  fin &= v_abs(R.hi) <= big;
  vd ms = v_pick(R.hi > as_, R.hi, as_), mv = av_;
  vl moving = mo != v_setl(0);
  /* common_range (its bounds times 2^Kp, 2^Kv) */
  vd ms_lo = v_set(0x1p-150), ms_hi = v_set(0x1p150), mv_lo = ms_lo, mv_hi = ms_hi;
  if (pre) {
    ms_lo = v_pick(gp, v_set(0x1p450), ms_lo);
    ms_hi = v_pick(gp, v_set(0x1p750), ms_hi);
    mv_lo = v_pick(gv, v_set(0x1p450), mv_lo);
    mv_hi = v_pick(gv, v_set(0x1p750), mv_hi);
  }
  vl common = fin & (ms < ms_hi) & (mv < mv_hi) & (ms >= ms_lo) & (~moving | (mv >= mv_lo));
  /* scaled_body where not common (solve_scaled), for ms and mv normal (the
     others go to the scalar function): ilog2d is the exponent field less
     1023, and kp, kv in [-1022, 1023] is that field in [1, 2045]. */
  const vl zero = v_setl(0), b1023 = v_setl(1023);
  vl k = zero, go = common;
  int left = 0; /* lanes left to the kernel with scaling (bits) */
  if (!sc) {
    left = ACC_MASK(~common);
    /* Mostly out of range (the scale family): every lane to the kernel
       with scaling, which answers the common ones too (k = 0). */
    if (__builtin_popcount((unsigned)left) >= ACC_W / 2) return ACC_ALL;
  } else {
    const vl one = v_setl(1), e2045 = v_setl(2045);
    vl ems = v_expo(ms) - Kp, emv = v_expo(mv) - Kv;
    vl kp = b1023 - ems, kv = (b1023 - emv) & moving;
    vl scaled = ~common & fin & (ms > v_set(0)) & (ems >= one) & (ems <= e2045) &
                (~moving | ((emv >= one) & (emv <= e2045))) & ~(gp & (kp < zero)) & ~(gv & (kv < zero));
    /* the least nonzero part, as its bits minus one (track_min) */
    vu pmin = (vu)v_setl(-1), vmin = pmin;
    ACC_UNROLL
    for (int i = 0; i < n; i++) {
      pmin = v_track_min(s[i].hi, v_track_min(s[i].lo, pmin));
      vmin = v_track_min(v[i].hi, v_track_min(v[i].lo, vmin));
    }
    pmin = v_track_min(R.hi, v_track_min(R.lo, pmin));
    scaled &= ~(kp < zero) | (vl)(pmin + 1 >= (vu)(one - kp) << 52);
    scaled &= ~(kv < zero) | (vl)(vmin + 1 >= (vu)(one - kv) << 52);
    kp &= scaled;
    kv &= scaled;
    k = kv - kp; /* t* 2^k is the root of the case as given */
    go = common | scaled;
    /* 1 in the common lanes (x 1 = x) but those guessed, 2^-K there */
    const vd P = v_pow2(kp - Kp), V = v_pow2(kv - Kv);
    ACC_UNROLL
    for (int i = 0; i < n; i++) {
      s[i].hi = s[i].hi * P;
      s[i].lo = s[i].lo * P;
      v[i].hi = v[i].hi * V;
      v[i].lo = v[i].lo * V;
    }
    R.hi = R.hi * P;
    R.lo = R.lo * P;
  }

  /* quick_class */
  const double u = 0x1p-53;
  vd ps = s[0].hi * s[0].hi, pv = v[0].hi * v[0].hi, psv = s[0].hi * v[0].hi, mb = v_abs(psv);
  ACC_UNROLL
  for (int i = 1; i < n; i++) {
    ps += s[i].hi * s[i].hi;
    pv += v[i].hi * v[i].hi;
    vd q = s[i].hi * v[i].hi;
    psv += q;
    mb += v_abs(q);
  }
  vd pr = R.hi * R.hi;
  vd cd = ps - pr, qec = 8 * u * (ps + pr) + ETA;
  vl c_pos = cd > qec;
  vl q_overlap = ~c_pos & (cd < -qec);
  vl q_static = c_pos & ~moving;
  vd qeb = 7 * u * mb + ETA;
  vl b_neg = c_pos & moving & (psv < -qeb);
  vl q_sep = c_pos & moving & ~(psv < -qeb) & (psv > qeb);
  vd qd = psv * psv - pv * cd;
  vl q_miss = b_neg & (qd < -(40 * u * (pv * (ps + pr)) + 0x1p-690));
  const vl quick = q_overlap | q_static | q_sep | q_miss;
  const vl clsq = (q_overlap & TOI_OVERLAP) | (q_static & TOI_STATIC) | (q_sep & TOI_SEPARATING) | (q_miss & TOI_MISS);
  /* The rest only where some lane goes on (none: the scale family, the
     misses and separations of generic). */
  if (!ACC_ANY(go & ~quick)) {
    put_lanes(cs, idx, out, clsq, v_set(NAN), ACC_MASK(go) & ~left, left);
    return left;
  }

  /* fast_body: c, then b and a */
  vd ec, eb, ea, ed;
  vdd c = v_fast_c(s, R, n, &ec);
  vl c_ok = ec <= ACC_REL * c.hi;
  vl l_static = ~quick & c_ok & ~moving;
  /* No lane goes on to b (near contacts: c to the integers or the
     expansions): the answers so far. */
  if (!ACC_ANY(go & ~quick & c_ok & moving)) {
    const int cont = sc ? 0 : ACC_MASK(common & ~quick & ~l_static) & ~left;
    put_lanes(cs, idx, out, clsq | (l_static & TOI_STATIC), v_set(NAN),
              ACC_MASK((go & (quick | l_static))) & ~left, left | cont);
    if (cont) cont_lanes(cs, idx, out, cont, n, s, v, R, c, ec, moving);
    return left;
  }
  vdd b = v_fast_dot(s, v, n, &eb);
  vdd a = v_fast_dot(v, v, n, &ea);
  vl b_ok = eb <= ACC_REL * -b.hi;
  vl rest = ~quick & c_ok & moving & b_ok; /* the lanes that go on to D */
  vdd d = v_fast_d(a, ea, b, eb, c, ec, &ed);
  /* filter_sign, sqrt_pos */
  vl d_pos = d.hi > 1.001 * ed, d_neg = d.hi < -1.001 * ed;
  vd h = ACC_SQRT(v_pick(d.hi > v_set(0), d.hi, v_set(0)));
  vl l_miss = rest & d_neg;
  vl hit = rest & d_pos & ~(ed > ACC_REL * h * (h - b.hi)) & (c.hi >= v_set(0x1p-700)) &
           (b.hi <= v_set(-0x1p-700)) & (d.hi >= v_set(0x1p-900));
  /* The sign the filter leaves unsure, in the kernel without scaling (the
     scalar function's int_d_sign, safe = 0): D = 0 goes on to the root as
     a graze (sd = 0: d = 0, h = 0), D < 0 is a miss; the other unsure
     lanes (D > 0, or spans int_d_sign or the lanes do not take) continue
     from their state (cont_lanes) without computing c again. */
  vl graze = zero;
  int unsure_cont = 0, later = 0, st_mv = 0;
  vd st[ACC_ST_ROWS]; /* unsure_cont's state, for after the answers of the others */
  if (!sc) {
    const vl unsure = rest & ~d_pos & ~d_neg;
    if (!un) {
      later = ACC_MASK(go & unsure);
    } else if (ACC_ANY(unsure)) {
      vl z, ng;
      v_int_d(s, v, R, n, ed, unsure, &z, &ng);
      l_miss |= unsure & ng;
      graze = unsure & z & (c.hi >= v_set(0x1p-700)) & (b.hi <= v_set(-0x1p-700));
      unsure_cont = ACC_MASK(unsure & ~(z | ng)) & ~left;
      if (unsure_cont) {
        keep_state(st, n, s, v, R, c, ec);
        st_mv = ACC_MASK(moving);
      }
    }
  }
  /* No lane goes on to the root (grazes and tangents: D to the integers
     or the expansions): the answers so far. */
  if (!ACC_ANY(go & (hit | graze))) {
    const int cont = sc ? 0 : ACC_MASK(common & ~(quick | l_static | l_miss)) & ~(left | later);
    put_lanes(cs, idx, out, clsq | (l_static & TOI_STATIC) | (l_miss & TOI_MISS), v_set(NAN),
              ACC_MASK((go & (quick | l_static | l_miss))) & ~left, left | cont | later);
    if (cont) cont_lanes(cs, idx, out, cont, n, s, v, R, c, ec, moving);
    return left | later << ACC_W;
  }
  /* root_dd (d.hi > 0; d = 0 and h = 0 in the grazes: Dh = -b.hi, Dl = -b.lo) */
  vd i2 = 0.5 / h;
  vd r = v_fma(-h, h, d.hi);
  vd g = (r + d.lo) * i2;
  vdd sd = v_two_sum(-b.hi, h);
  vd Dh = v_pick(graze, -b.hi, sd.hi), Dl = v_pick(graze, -b.lo, sd.lo + (g - b.lo));
  h = v_pick(graze, v_set(0), h);
  vd q0 = c.hi / Dh, inv = 1.0 / Dh;
  vd e1 = v_fma(-q0, Dh, c.hi);
  vd rho = e1 + (c.lo - q0 * Dl);
  vdd t = v_fast_two_sum(q0, rho * inv);
  /* The rounding (k = 0 in every lane of the kernel without scaling):
     y = RN(t) where k = 0 (the bit test first); elsewhere, with 2^e the
     power of two of t.hi 2^k: +0 where e < -1077; t.hi 2^k in two products
     where e >= -1022, exact where e <= 1023 (the partial product lies
     between t.hi and the result, both normal; scale2 gives the same exact
     value where e = 1023), the bit test applying (y normal), and +inf
     where e >= 1024, as scale2 and scale_round give it there (and
     near_midpoint does not test infinity); in the subnormal range (sub:
     -1077 <= e < -1022) scale_round's RN(t.hi 2^k), t.hi 2^(k + 1022)
     being exact and normal, and the one rounding that of its product by
     2^-1022, then its correction where t.hi 2^k lies on a midpoint of the
     subnormal grid, and near_midpoint in every such lane, y = 2^-1022
     (rounded up from below) included (the scalar function's maybe). The other lanes (|k| > 2040, or a subnormal y with
     k > -53, which t >= 2^-960 excludes) go to the scalar function. */
  const vl e = v_expo(t.hi) - b1023 + k;
  const vl k1 = (k - (k < zero)) >> 1; /* k / 2, rounded toward zero as in C */
  const vl k0 = k == zero;
  const vl tiny = e < v_setl(-1077);
  const vl normal = (e >= v_setl(-1022)) & (k >= v_setl(-2040)) &
                    (k <= v_setl(2040));
  const vl huge = e > v_setl(1023);
  vl mid = sc ? v_maybe_midpoint(t) : v_tie_gate(t, 0x1p-62 * t.hi);
  vd y = t.hi + t.lo;
  vl yn = k0; /* the lanes whose y is normal (or k = 0): the bit test applies */
  vl sub = zero;
  vl nk1 = zero, nk2 = zero; /* 2^nk1 2^nk2 = 2^-k, each exact on yz's and step's scale, else 0 */
  vd yz = y;                 /* y, or y 2^1022 where subnormal (sub) */
  vl gate = mid;             /* near_midpoint's lanes: the bit test's, or every subnormal y */
  const vl root = hit | graze;
  if (sc) {
    const vd one = v_set(1.0);
    const vl m1022 = v_setl(-1022), p1022 = v_setl(1022);
    sub = ~normal & ~tiny & (k >= v_setl(-2040)) & (k <= v_setl(-53));
    y = v_pick(k0, y, v_pick(tiny, v_set(0.0), t.hi * v_pow2(k1 & normal) * v_pow2((k - k1) & normal)));
    yn |= normal & ~huge;
    nk1 = (zero - k1) & yn;
    nk2 = ((k1 - k) & yn) | ((m1022 - k) & sub);
    /* Kept off the subnormal range, where every operation of a vector
       would be slow: x = t.hi 2^(k + 1022) is exact and normal (in [2^-55,
       1)), x + 1 rounds it to the grid of 2^-52 as RN(x 2^-1022) rounds it
       to that of 2^-1074 (ties to the even multiple, up to 2^-1022 from
       above), so yz = (x + 1) - 1 (exact) is RN(t.hi 2^k) 2^1022, and y's
       bits are those of x + 1 less those of 1. */
    yz = v_pick(yn, y, one); /* (1 in the other lanes: harmless) */
    if (ACC_ANY(root & sub)) {
      const vd w = t.hi * v_pow2((k + p1022) & sub) + one;
      vd ys = w - one;
      /* scale_round: back = y 2^-k and diff = t.hi - back exact; where
         y <= 2^-1022, t.lo != 0 and |diff| is half a step of the grid
         (2^(-1075 - k)), t.lo's sign picks the side: back + 2 diff or back,
         a point of the grid, times 2^k (exact, again by its bits). */
      const vd back = ys * v_pow2(nk2 & sub);
      const vd diff = t.hi - back;
      const vl fix = sub & (ys <= one) & (t.lo != v_set(0)) & (v_abs(diff) == v_pow2((v_setl(-1075) - k) & sub));
      vd wf = w;
      if (ACC_ANY(fix)) {
        const vl same = ~((diff > v_set(0)) ^ (t.lo > v_set(0)));
        const vd z = v_pick(same, back + 2.0 * diff, back);
        wf = v_pick(fix, z * v_pow2((k + p1022) & fix) + one, w);
        ys = v_pick(fix, wf - one, ys);
      }
      y = v_pick(sub, (vd)((vu)wf - (vu)one), y);
      yz = v_pick(sub, ys, yz);
    }
    gate = (yn & mid) | sub;
  }
  /* Where the gate holds, near_midpoint and root_rel as the scalar
     function makes them (scale2(x, -k) as exact products: yz and step are
     normal or powers of two, and the results of t's scale; a subnormal y's
     step is 2^-1074 either way, 2^-52 on yz's scale): only a lane whose
     root lies near enough a midpoint for tie_break goes to the scalar
     function. */
  vl tie = gate;
  if (ACC_ANY(root & gate)) {
    const vd back = sc ? yz * v_pow2(nk1) * v_pow2(nk2) : y;
    const vd r = (t.hi - back) + t.lo;
    const vl up = (vl)(r > v_set(0));
    /* yz's neighbour by its bits, in unsigned lanes (a lane left out, such as
       one of -0, may wrap: its value is not used) */
    const vd nb = (vd)((vu)yz + (vu)(v_setl(0) - up - up - v_setl(1)));
    vd step = v_pick(nb < v_set(INFINITY), nb - yz, v_set(0x1p971));
    if (sc) step = v_pick(sub, v_pick(up, v_set(0x1p-52), v_set(-0x1p-52)), step);
    const vd half = 0.5 * (sc ? step * v_pow2(nk1) * v_pow2(nk2) : step);
    const vd dist = v_abs(r - half);
    const vd den_err = eb + v_pick(h > v_set(0), ed / h, v_set(0));
    const vd rel = 1.01 * (ec / c.hi + den_err / (h - b.hi) + 0x1p-98);
    tie = gate & (y < v_set(INFINITY)) & (dist <= 0x1p-6 * v_abs(half)) & (dist <= rel * t.hi);
  }
  if (!sc) {
    hit &= (t.hi >= v_set(0x1p-960)) & ~tie;
    graze &= (t.hi >= v_set(0x1p-960)) & ~tie;
  } else {
    hit &= (t.hi >= v_set(0x1p-960)) & ((k0 & ~tie) | (~k0 & (tiny | (normal & (huge | ~tie)) | (sub & ~tie))));
  }

  vl done = go & (quick | l_static | l_miss | hit | graze);
  /* the classes are exclusive: quick's four, then static, miss, hit and
     graze on the lanes quick leaves, moving or not, D negative, positive
     or zero */
  const vl cls = clsq | (l_static & TOI_STATIC) | (l_miss & TOI_MISS) | (hit & TOI_HIT) | (graze & TOI_GRAZE);
  const vd tv = v_pick(hit | graze, y, v_set(NAN));
  put_lanes(cs, idx, out, cls, tv, ACC_MASK(done) & ~left, left | unsure_cont | later);
  if (unsure_cont) cont_from(cs, idx, out, unsure_cont, st, st_mv);
  return left | later << ACC_W;
}

/* The common path, and the common path on scaled differences (the lanes
   that the first leaves: few, so that the first does none of the scaling). */
ACC_KERNEL int lanes2(const toi_case *cs, const size_t *idx, toi_result *out) { return lanes(cs, idx, 2, 0, 0, out); }
ACC_KERNEL int lanes3(const toi_case *cs, const size_t *idx, toi_result *out) { return lanes(cs, idx, 3, 0, 0, out); }
ACC_KERNEL int lanes2u(const toi_case *cs, const size_t *idx, toi_result *out) { return lanes(cs, idx, 2, 0, 1, out); }
ACC_KERNEL int lanes3u(const toi_case *cs, const size_t *idx, toi_result *out) { return lanes(cs, idx, 3, 0, 1, out); }
ACC_KERNEL void lanes2s(const toi_case *cs, const size_t *idx, toi_result *out) { lanes(cs, idx, 2, 1, 0, out); }
ACC_KERNEL void lanes3s(const toi_case *cs, const size_t *idx, toi_result *out) { lanes(cs, idx, 3, 1, 0, out); }

#define ACC_CHUNK 256

/* The cases' lines are asked for ahead of the kernels (measured on the
   sweep's 65536 cases, 13 MB, read from the L3 cache, in batches of 256).
   In the consecutive groups, the group after the next (its lines in the
   L2 cache by then, brought by the processor's own prefetch) is fetched
   into the L1 cache before each group's kernel call: 3 to 11% less time
   per case on every family taking those groups (generic 11%, tangent and
   slow 5 to 6%); one group ahead, about the same, three or four, less,
   and the next chunk of 64 (from the L3 cache), 1 to 3% more. Where a
   chunk is listed case by case (the mixed family: dimensions at random), listing
   it whole cost as much time as the kernels on it, one after the other:
   it is listed ACC_LIST cases at a time (12.8 kB), each block's lists run
   through the kernels before the next is listed, and while they run the
   next block is fetched (pf_step, a group's worth of lines before each
   kernel call), 10% less time. Two groups' worth a call was slower:
   prefetches wait for the line fill buffers and hold up the calls behind
   them. A prefetch never faults; nothing past the batch is asked for. */
#define ACC_LIST 64
#define ACC_PF_BYTES (ACC_W * sizeof(toi_case))

/* The lines of [p, end) (from p's line on) into the L1 cache. */
static inline void pf_lines(const char *p, const char *end) {
  for (p = (const char *)((uintptr_t)p & ~(uintptr_t)63); p < end; p += 64) __builtin_prefetch(p, 0, 3);
}

/* The lines of [*pf, end) into the L1 cache, ACC_PF_BYTES of them at most
   (*pf on a line's start), and *pf past them. */
static inline void pf_step(const char **pf, const char *end) {
  const char *p = *pf;
  const char *stop = p + ACC_PF_BYTES < end ? p + ACC_PF_BYTES : end;
  for (; p < stop; p += 64) __builtin_prefetch(p, 0, 3);
  *pf = p;
}

/* The least count of a list's last cases that a group filled up with
   copies takes (fewer: the scalar function). */
#define ACC_TAIL 2

/* at[0..ACC_W-1]: the k (1 to ACC_W) indices of from, then copies of the
   first; the real lanes as bits. */
static inline int fill_group(size_t *at, const size_t *from, size_t k) {
  for (size_t j = 0; j < ACC_W; j++) at[j] = from[j < k ? j : 0];
  return (int)((1u << k) - 1);
}

/* A list's n cases of dimension 2 + d, ACC_W at a time, through the kernel
   for an unsure sign of D (scaled 0: its lanes left over go to the scalar
   function) or the kernel with scaling (scaled 1); the last group filled
   up with copies of its first case where at least ACC_TAIL are left
   (fill_group), fewer by the scalar function. */
static void run_list(const toi_case *cs, const size_t *list, size_t n, int d, int scaled, toi_result *out) {
  size_t at[ACC_W];
  for (size_t j = 0; j < n;) {
    const size_t k = n - j < ACC_W ? n - j : ACC_W;
    if (k < ACC_TAIL) {
      for (; j < n; j++) out[list[j]] = toi_f_accurate(&cs[list[j]]);
      break;
    }
    const int real = fill_group(at, &list[j], k);
    if (scaled) {
      if (d)
        lanes3s(cs, at, out);
      else
        lanes2s(cs, at, out);
    } else {
      for (int left = (d ? lanes3u(cs, at, out) : lanes2u(cs, at, out)) & real; left; left &= left - 1) {
        const size_t c = at[__builtin_ctz((unsigned)left)];
        out[c] = toi_f_accurate(&cs[c]);
      }
    }
    j += k;
  }
}

/* pA's first coordinate nonzero, its exponent field out of [1023 - 250,
   1023 + 100] (subtracted and compared unsigned): the guess (pa[0] lies
   next to dim, on the line just read). */
static inline int far_guess(const toi_case *c) {
  uint64_t xb;
  memcpy(&xb, &c->pa[0], sizeof xb);
  const uint64_t xe = xb >> 52 & 0x7ff;
  return (xe - (1023 - 250) > 350) & (xe != 0);
}

/* The cases' indices by dimension, chunk by chunk, each list taken ACC_W
   at a time through the common path; the lanes it leaves (out of its
   range) listed again by dimension and taken ACC_W at a time through the
   scaled one, which also takes at once the cases whose pA has a first
   coordinate far from 1 (a guess that they are out of the common range, as in the scale
   family: it only chooses the kernel; both give the same answers). The
   lanes whose sign of D the filter leaves unsure are listed too, and
   taken ACC_W at a time through the kernel for those. What is left of a
   list at the end of a chunk (fewer than ACC_W) is carried to the next; at
   the end, a group filled up with copies takes it (one case alone, the
   scalar function). Before the lists, the groups of
   consecutive cases that need none go straight to the common path; the
   rest of the chunk is listed and run ACC_LIST cases at a time, the next
   block prefetched meanwhile. The blocks and the prefetch only order the
   work: each case's answer is the same whichever kernel takes it. */
void ACC_BATCH(const toi_case *cs, size_t n, toi_result *out) {
  size_t ix[2][ACC_CHUNK + ACC_W], sx[2][2 * ACC_CHUNK + ACC_W], ux[2][ACC_CHUNK + 2 * ACC_W];
  size_t ni[2] = {0, 0}, ns[2] = {0, 0}, nu[2] = {0, 0};
  static const size_t iota[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  for (size_t base = 0; base < n; base += ACC_CHUNK) {
    const size_t m = n - base < ACC_CHUNK ? n - base : ACC_CHUNK;
    size_t i = base;
    /* Groups of ACC_W consecutive cases of one dimension, none guessed out
       of range (most batches, whole): straight through the common path,
       without the lists, up to the first that is not (a branch on every
       group would be taken at random in a mixture). */
    for (; i + ACC_W <= base + m; i += ACC_W) {
      const int d0 = cs[i].dim;
      int bad = d0 != 2 && d0 != 3;
      for (int j = 0; j < ACC_W; j++) bad |= (cs[i + j].dim != d0) | far_guess(&cs[i + j]);
      if (bad) break;
      /* the group after the next, into the L1 cache */
      pf_lines((const char *)&cs[i + 2 * ACC_W < n ? i + 2 * ACC_W : n],
               (const char *)&cs[i + 3 * ACC_W < n ? i + 3 * ACC_W : n]);
      const int d = d0 == 3;
      const int ret = d ? lanes3(&cs[i], iota, &out[i]) : lanes2(&cs[i], iota, &out[i]);
      for (int left = ret & ACC_ALL; left; left &= left - 1) sx[d][ns[d]++] = i + (size_t)__builtin_ctz((unsigned)left);
      for (int later = ret >> ACC_W; later; later &= later - 1) ux[d][nu[d]++] = i + (size_t)__builtin_ctz((unsigned)later);
    }
    /* The rest listed by dimension, case by case, ACC_LIST at a time (at
       least once: the lists of the groups above are run below). */
    do {
      const size_t lend = base + m - i < ACC_LIST ? base + m : i + ACC_LIST;
      const size_t next_end = n - lend < ACC_LIST ? n : lend + ACC_LIST; /* the next block, to be prefetched */
      const char *pf = (const char *)((uintptr_t)&cs[lend] & ~(uintptr_t)63), *pf_end = (const char *)&cs[next_end];
      if (i == lend) pf = pf_end; /* (nothing listed: no prefetch) */
      size_t n2 = ni[0], n3 = ni[1];
      for (; i < lend; i++) { /* without a branch but for the guess */
        const size_t d = cs[i].dim == 3;
        /* the guess: straight to the scaled kernel */
        if (__builtin_expect(far_guess(&cs[i]), 0)) {
          sx[d][ns[d]++] = i;
          continue;
        }
        ix[0][n2] = i;
        ix[1][n3] = i;
        n2 += 1 - d;
        n3 += d;
      }
      ni[0] = n2, ni[1] = n3;
      for (int d = 0; d < 2; d++) {
        size_t j = 0;
        for (; j + ACC_W <= ni[d]; j += ACC_W) {
          const size_t *at = &ix[d][j];
          pf_step(&pf, pf_end);
          const int ret = d ? lanes3(cs, at, out) : lanes2(cs, at, out);
          for (int left = ret & ACC_ALL; left; left &= left - 1) sx[d][ns[d]++] = at[__builtin_ctz((unsigned)left)];
          for (int later = ret >> ACC_W; later; later &= later - 1) ux[d][nu[d]++] = at[__builtin_ctz((unsigned)later)];
        }
        for (size_t r = j; r < ni[d]; r++) ix[d][r - j] = ix[d][r];
        ni[d] -= j;
        j = 0;
        for (; j + ACC_W <= nu[d]; j += ACC_W) {
          const size_t *at = &ux[d][j];
          pf_step(&pf, pf_end);
          /* (these lanes were of the common range, and are again: none is
             left to the kernel with scaling; the scalar function otherwise) */
          int left = (d ? lanes3u(cs, at, out) : lanes2u(cs, at, out)) & ACC_ALL;
          for (; left; left &= left - 1) {
            const size_t c = at[__builtin_ctz((unsigned)left)];
            out[c] = toi_f_accurate(&cs[c]);
          }
        }
        for (size_t r = j; r < nu[d]; r++) ux[d][r - j] = ux[d][r];
        nu[d] -= j;
        j = 0;
        for (; j + ACC_W <= ns[d]; j += ACC_W) {
          pf_step(&pf, pf_end);
          if (d)
            lanes3s(cs, &sx[d][j], out);
          else
            lanes2s(cs, &sx[d][j], out);
        }
        for (size_t r = j; r < ns[d]; r++) sx[d][r - j] = sx[d][r];
        ns[d] -= j;
      }
    } while (i < base + m);
  }
  /* What the lists hold at the end (fewer than ACC_W a list, but for
     those the first adds to): a group filled up with copies of its first
     case, where at least ACC_TAIL are left, else the scalar function. A
     copy's lane computes that case's answer from the same inputs, so it
     takes the same way and stores the same bits to the same place (a
     group's choices of a way only choose the kernel, never an answer);
     what the kernels hand back is taken from the real lanes only. */
  for (int d = 0; d < 2; d++) {
    size_t at[ACC_W];
    if (ni[d] >= ACC_TAIL) {
      const int real = fill_group(at, ix[d], ni[d]);
      const int ret = d ? lanes3(cs, at, out) : lanes2(cs, at, out);
      for (int left = ret & real; left; left &= left - 1) sx[d][ns[d]++] = at[__builtin_ctz((unsigned)left)];
      for (int later = ret >> ACC_W & real; later; later &= later - 1) ux[d][nu[d]++] = at[__builtin_ctz((unsigned)later)];
      ni[d] = 0;
    }
    run_list(cs, ux[d], nu[d], d, 0, out);
    run_list(cs, sx[d], ns[d], d, 1, out);
    for (size_t j = 0; j < ni[d]; j++) out[ix[d][j]] = toi_f_accurate(&cs[ix[d][j]]);
  }
}

