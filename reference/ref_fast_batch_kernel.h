/* ref_fast_batch_kernel.h: the first stage of ref_fast_quick.c on BW cases at once, one per vector lane. */

/*
 * Included by ref_fast_batch4.c (BW 4, AVX2) and ref_fast_batch8.c (BW 8,
 * AVX-512), which define BW, BATCH_ATTR, B_NAME and the few intrinsics
 * below. The argument is in ref_fast_batch.c.
 */

#define BATCH_INLINE BATCH_ATTR FAST_INLINE

/* Operands of error-free sums kept opaque, as FAST_OPAQUE does. */
#define V_OPAQUE(x) __asm__("" : "+v"(x))

typedef double v4d __attribute__((vector_size(8 * BW)));
typedef long long v4l __attribute__((vector_size(8 * BW)));

BATCH_INLINE v4d b_set(double x) { return B_SET(x); }
BATCH_INLINE v4d b_abs(v4d x) { return (v4d)(~(v4l)b_set(-0.0) & (v4l)x); }
BATCH_INLINE v4d b_up(v4d e) { return e * b_set(1 + 0x1p-40); }
BATCH_INLINE v4d b_max(v4d a, v4d b) { return B_MAX(a, b); }
/* m ? x : y lane by lane (m all ones or all zeros). */
BATCH_INLINE v4d b_pick(v4l m, v4d x, v4d y) { return (v4d)((m & (v4l)x) | (~m & (v4l)y)); }

BATCH_INLINE void b_two_sum(v4d a, v4d b, v4d *s, v4d *l) {
  V_OPAQUE(a);
  V_OPAQUE(b);
  v4d x = a + b, bb = x - a, aa = x - bb;
  *s = x;
  *l = (a - aa) + (b - bb);
}

/* quick_low lane by lane: the low part of s = RN(x + y). */
BATCH_INLINE v4d b_low(v4d x, v4d y, v4d s) {
  V_OPAQUE(x);
  V_OPAQUE(y);
  V_OPAQUE(s);
  v4d yy = s - x, xx = s - yy;
  return (x - xx) + (y - yy);
}

BATCH_INLINE void b_two_prod(v4d a, v4d b, v4d *h, v4d *l) {
  v4d p = a * b;
  *h = p;
  *l = B_FMSUB(a, b, p);
}

/* The biased exponent field of x >= 0 (0 for zero and subnormals). */
BATCH_INLINE v4l b_expo(v4d x) { return ((v4l)x >> 52) & 0x7ff; }

/* 2^k for -1022 <= k <= 1023, from its bits. */
BATCH_INLINE v4d b_pow2(v4l k) { return (v4d)((k + 1023) << 52); }

/* x 2^k in two products by 2^(k>>1) and 2^(k - (k>>1)): for |k| <= 2044
 * both factors are normal powers of two, and the product is exact whenever
 * the result is normal (the intermediate lies between x and the result). */
BATCH_INLINE v4d b_scale(v4d x, v4l k) {
  v4l k1 = k >> 1;
  return x * b_pow2(k1) * b_pow2(k - k1);
}

/* The data of BW cases, scaled as ref_fast_quick scales them. */
typedef struct bdata {
  v4d sh[3], sl[3], vh[3], vl[3], ash[3], avh[3];
  v4d Rh, Rl;
} bdata;

/* quick_step of ref_fast_quick.c in BW lanes, for the root named by want
 * (-1 the lower, +1 the upper). Returns the mask of lanes whose checks all
 * hold; *dlo, *Eo and *Fo as there. */
BATCH_INLINE v4l b_step(v4d *dlo, v4d *Eo, v4d *Fo, v4d T, double want, const bdata *d, v4d H2h, v4d H2l, v4d mR, v4d A,
                        v4d Ea) {
  const v4d aT = b_abs(T);
  v4l ok = (aT >= b_set(0x1p-300)) & (aT <= b_set(0x1p200));
  v4d S[3], tau[3], m2 = b_set(0), vm = b_set(0), qp = b_set(0);
#pragma GCC unroll 3
  for (int i = 0; i < 3; i++) {
    v4d P, p, Sh, g;
    b_two_prod(d->vh[i], T, &P, &p);
    v4d r = d->vl[i] * T;
    b_two_sum(d->sh[i], P, &Sh, &g);
    S[i] = Sh;
    tau[i] = ((g + p) + d->sl[i]) + r;
    v4d m = d->ash[i] + b_abs(P);
    m2 += m * m;
    vm += d->avh[i] * m;
    qp += d->vh[i] * Sh;
  }
  const v4d Qp = 2 * qp, aQp = b_abs(Qp);
  const v4d EQp = b_up(b_set(0x1p-48) * vm) + b_set(0x1p-990);
  ok &= (EQp <= b_set(0x1p-20) * aQp) & (Qp * b_set(want) > b_set(0));
  const v4d iQ = b_set(1) / Qp, aiQ = b_abs(iQ);
  v4d H[3], h[3], g1, e1, g2, e2, g3, e3;
#pragma GCC unroll 3
  for (int i = 0; i < 3; i++) b_two_prod(S[i], S[i], &H[i], &h[i]);
  b_two_sum(H[0], H[1], &g1, &e1);
  b_two_sum(H[2], -H2h, &g2, &e2);
  b_two_sum(g1, g2, &g3, &e3);
  const v4d small = (((h[0] + h[1]) + (h[2] - H2l)) + ((e1 + e2) + e3)) +
                    (((tau[0] * (2 * S[0] + tau[0]) + tau[1] * (2 * S[1] + tau[1])) + tau[2] * (2 * S[2] + tau[2])) -
                     mR);
  const v4d Q = g3 + small, aQ = b_abs(Q);
  const v4d X0 = b_set(0x1p-98) * (m2 + d->Rh * d->Rh) + b_set(0x1p-999);
  const v4d K1 = EQp * aiQ + b_set(0x1p-51), K2 = aiQ * b_set(1 + 0x1p-19);
  const v4d K4 = b_up(2 * (A + Ea) * K2);
  const v4d dl = -Q * iQ;
  const v4d Ed = b_up((aQ * K1 + X0) * K2);
  const v4d dm = aQ * b_up(aiQ) + Ed;
  ok &= dm * K4 <= b_set(0.25);
  *dlo = dl;
  *Eo = b_up(Ed + dm * dm * K4);
  *Fo = X0 * K2;
  return ok;
}

/* fast_certify's first path in BW lanes: T + dl within E of the root,
 * times 2^k; the mask of lanes certified, the doubles in *out. A lane that
 * needs fast_certify's second path (the enclosure straddles a double's
 * rounding boundary only after the scaling) is declined. */
BATCH_INLINE v4l b_certify(v4d *out, v4l *edge, v4d T, v4d dl, v4d E, v4l k) {
  v4d Th, Tl;
  b_two_sum(T, dl, &Th, &Tl);
  const v4d ah = b_abs(Th);
  v4l ok = (ah >= b_set(0x1p-850)) & (ah <= b_set(0x1p850)) & (E <= b_set(0x1p-60) * ah);
  const v4d E2 = (E + ah * b_set(0x1p-104)) * b_set(1 + 0x1p-50);
  const v4d l1 = Tl - E2, l2 = Tl + E2;
  const v4d h1 = Th + l1, h2 = Th + l2;
  /* ah is normal where ok holds: its exponent is the field less 1023. */
  const v4l e = b_expo(ah) - 1023 + k;
  const v4l inside = (h1 == h2) & (e >= -1021) & (e <= 1022);
  *edge |= ok & ~inside;
  ok &= inside;
  *out = b_scale(h1, k & ok); /* k & ok: no shift of a garbage k */
  return ok;
}

/* The first stage on c[0..BW-1]. Lane j answered: bit j of the result set and
 * out[j] written; the other lanes untouched. Bit j of *signs set: lane j
 * was declined where ref_fast_quick would decline it too (a sign its filter
 * cannot read, no D > 0 where roots are needed, a lossy scaling, roots it
 * cannot certify in two steps), so it may go straight to the double-double
 * stage. */
BATCH_ATTR int B_NAME(toi_ref *out, const toi_case *c, int *signs) {
#define LD(f) B_LOAD(c, f)
  bdata d;
  v4d z = b_set(0);
#pragma GCC unroll 3
  for (int i = 0; i < 3; i++) {
    const v4d pa = LD(pa[i]), pb = LD(pb[i]), va = LD(va[i]), vb = LD(vb[i]);
    d.sh[i] = pb - pa;
    d.vh[i] = vb - va;
    z += (d.sh[i] - d.sh[i]) + (d.vh[i] - d.vh[i]);
    d.sl[i] = b_low(pb, -pa, d.sh[i]);
    d.vl[i] = b_low(vb, -va, d.vh[i]);
  }
  const v4d ra = LD(ra), rb = LD(rb);
#undef LD
  d.Rh = ra + rb;
  d.Rl = b_low(ra, rb, d.Rh);
  v4l live = (z + (d.Rh - d.Rh)) == b_set(0);
  v4d ms = d.Rh, mv = b_set(0);
#pragma GCC unroll 3
  for (int i = 0; i < 3; i++) {
    ms = b_max(ms, b_abs(d.sh[i]));
    mv = b_max(mv, b_abs(d.vh[i]));
  }
  const v4l inr = (ms >= b_set(0x1p-64)) & (ms <= b_set(0x1p64)) & (mv >= b_set(0x1p-64)) & (mv <= b_set(0x1p64));
  v4l k2 = {};
  /* The lanes this code follows ref_fast_quick through to the end: what it
   * declines there, ref_fast_quick declines too. */
  v4l whole = live;
  if (__builtin_expect(B_MASK(~inr & live) != 0, 0)) {
    /* Scaling, for the live lanes out of range (as ref_fast_quick). */
    const v4l xs = b_expo(ms), xv = b_expo(mv);
    const v4l sc = ~inr & live;
    live &= inr | ((xs != 0) & (xv != 0)); /* subnormal or zero maxima: scalar */
    whole = live;
    const v4l es = (xs - 1023) & sc & live, ev = (xv - 1023) & sc & live;
    v4l lost = {};
#define KEEP(x, k)                                                                 \
  do {                                                                             \
    const v4d y_ = b_scale(x, -(k));                                               \
    lost |= (x != b_set(0)) & ~(b_abs(y_) >= b_set(0x1p-480));                     \
    x = y_;                                                                        \
  } while (0)
#pragma GCC unroll 3
    for (int i = 0; i < 3; i++) {
      KEEP(d.sh[i], es);
      KEEP(d.sl[i], es);
      KEEP(d.vh[i], ev);
      KEEP(d.vl[i], ev);
    }
    KEEP(d.Rh, es);
    KEEP(d.Rl, es);
#undef KEEP
    live &= ~(lost & sc);
    k2 = es - ev;
  }
#pragma GCC unroll 3
  for (int i = 0; i < 3; i++) {
    d.ash[i] = b_abs(d.sh[i]);
    d.avh[i] = b_abs(d.vh[i]);
  }

  /* Step 1 of ref_fast_quick.c. */
  const v4d *sh = d.sh, *vh = d.vh;
  const v4d A = (vh[0] * vh[0] + vh[1] * vh[1]) + vh[2] * vh[2];
  const v4d b0 = sh[0] * vh[0], b1 = sh[1] * vh[1], b2 = sh[2] * vh[2];
  const v4d B = (b0 + b1) + b2, Mb = (b_abs(b0) + b_abs(b1)) + b_abs(b2);
  const v4d SS = (sh[0] * sh[0] + sh[1] * sh[1]) + sh[2] * sh[2], RR = d.Rh * d.Rh;
  const v4d C = SS - RR;
  const v4d Ea = b_set(0x1p-50) * A + b_set(0x1p-1000), Eb = b_set(0x1p-50) * Mb + b_set(0x1p-1000);
  const v4d Ec = b_set(0x1p-50) * (SS + RR) + b_set(0x1p-1000);
  const v4l cpos = C > Ec, cneg = C < -Ec, bpos = B > Eb, bneg = B < -Eb;
  const v4d BB = B * B, AC = A * C, Dc = BB - AC;
  const v4d ED = b_up(Eb * (2 * b_abs(B) + Eb) + Ea * b_abs(C) + (A + Ea) * Ec +
                      b_set(0x1p-53) * (BB + b_abs(AC) + b_abs(Dc))) +
                 b_set(0x1p-1000);
  const v4l dpos = Dc > ED, dneg = Dc < -ED;
  const v4l read = (cpos | cneg) & ~(cpos & ~((bpos | bneg) & (dpos | dneg)));
  const v4l noroot = live & read & cpos & dneg; /* miss or separating: the class alone */
  v4l roots = live & read & ~noroot & (Dc > b_set(0));

  /* Step 2: the estimates, then one Newton step for each root. */
  v4d tlo = b_set(0), thi = b_set(0);
  if (B_MASK(roots)) {
    const v4d W = b_abs(B) + B_SQRT(Dc);
    const v4d q1 = C / W, q2 = W / A;
    const v4l bp = B > b_set(0);
    const v4d Tlo = b_pick(bp, -q2, q1), Thi = b_pick(bp, -q1, q2);
    v4d H2h, H2l;
    b_two_prod(d.Rh, d.Rh, &H2h, &H2l);
    const v4d mR = d.Rl * (2 * d.Rh + d.Rl);
    v4d dlo, dhi, E, Flo, Fhi;
    v4l edge = {};
    v4l okl = b_step(&dlo, &E, &Flo, Tlo, -1.0, &d, H2h, H2l, mR, A, Ea);
    okl &= b_certify(&tlo, &edge, Tlo, dlo, E, k2);
    v4l okh = b_step(&dhi, &E, &Fhi, Thi, 1.0, &d, H2h, H2l, mR, A, Ea);
    okh &= b_certify(&thi, &edge, Thi, dhi, E, k2);
    /* quick_roots: where the first step could not certify both roots yet
     * both floors leave room, a second step from RN(T + dl). */
    const v4l again = roots & ~(okl & okh) & (Flo <= b_set(0x1p-66) * b_abs(Tlo)) &
                      (Fhi <= b_set(0x1p-66) * b_abs(Thi));
    roots &= okl & okh;
    if (B_MASK(again)) {
      const v4d T2lo = Tlo + dlo, T2hi = Thi + dhi;
      v4d t2lo, t2hi;
      v4l ok2 = again & b_step(&dlo, &E, &Flo, T2lo, -1.0, &d, H2h, H2l, mR, A, Ea);
      ok2 &= b_certify(&t2lo, &edge, T2lo, dlo, E, k2);
      ok2 &= b_step(&dhi, &E, &Fhi, T2hi, 1.0, &d, H2h, H2l, mR, A, Ea);
      ok2 &= b_certify(&t2hi, &edge, T2hi, dhi, E, k2);
      tlo = b_pick(ok2, t2lo, tlo);
      thi = b_pick(ok2, t2hi, thi);
      roots |= ok2;
    }
    whole &= ~edge;
  }
  /* The answers, with directions as ref_fast_quick sets them, chosen lane
   * by lane without branches (a stream of cases draws the signs at random):
   * c < 0: overlap, forward the upper root, backward the lower; c > 0,
   * b < 0: hit, forward the lower; c > 0, b > 0: separating, backward the
   * upper; without roots the class alone (miss or separating), NaN times. */
  const int mn = B_MASK(noroot), mr = B_MASK(roots);
  *signs = B_MASK(whole) & ~(mn | mr);
  const v4d nan = b_set(NAN);
  const v4l hit = ~cneg & bneg, sep = ~cneg & ~bneg;
  const v4d tfwd = b_pick(roots & cneg, thi, b_pick(roots & hit, tlo, nan));
  const v4d trev = b_pick(roots & cneg, tlo, b_pick(roots & sep, thi, nan));
  const v4l none = (v4l)b_set(0) - 1;
  const v4l fwd = (roots & hit & 1) | (~(roots & (cneg | hit)) & none);
  const v4l rev = (roots & cneg & 1) | (~(roots & (cneg | sep)) & none);
  const v4l cls = (roots & cneg & TOI_OVERLAP) | (roots & hit & TOI_HIT) | (roots & sep & TOI_SEPARATING) |
                  (noroot & bpos & TOI_SEPARATING) | (noroot & ~bpos & TOI_MISS);
  tlo = b_pick(roots, tlo, nan);
  thi = b_pick(roots, thi, nan);
  for (unsigned m = (unsigned)(mn | mr); m; m &= m - 1) {
    const int j = __builtin_ctz(m);
    out[j] = (toi_ref){.cls = (toi_class)cls[j], .tlo = tlo[j], .thi = thi[j], .tfwd = tfwd[j], .trev = trev[j],
                       .fwd_is_lo = (int)fwd[j], .rev_is_lo = (int)rev[j]};
  }
  return mn | mr;
}
