/* bigf.c: exact sums and products of double-derived binary numbers, for inputs no expansion can hold. */
#include <assert.h>
#include <string.h>
#include "bigf.h"
#include "eft.h"

/* Strip zero limbs at both ends so that the top limb is nonzero (magnitude
   comparisons look at the top first) and products stay as short as the
   significant bits allow. */
static void normalize(bigf *r) {
  int lo = 0, hi = r->n;
  while (hi > 0 && r->d[hi - 1] == 0) hi--;
  while (lo < hi && r->d[lo] == 0) lo++;
  if (lo == hi) {
    r->n = 0;
    r->exp = 0;
    r->neg = 0;
    return;
  }
  if (lo) memmove(r->d, r->d + lo, (size_t)(hi - lo) * sizeof r->d[0]);
  r->n = hi - lo;
  r->exp += lo;
}

void bigf_set_d(bigf *r, double x) {
  uint64_t bits;
  memcpy(&bits, &x, sizeof bits);
  r->neg = (int)(bits >> 63);
  int be = (int)((bits >> 52) & 0x7ff);
  uint64_t m = bits & ((UINT64_C(1) << 52) - 1);
  int e2;
  if (be) {
    m |= UINT64_C(1) << 52;
    e2 = be - 1075;
  } else {
    e2 = -1074;
  }
  /* x = m 2^e2; put the shift below one limb into the mantissa so that the
     exponent counts whole limbs (floor division for negative e2). */
  int q = e2 >= 0 ? e2 / 32 : -((-e2 + 31) / 32);
  int sh = e2 - 32 * q;
  uint64_t low = m << sh;
  uint64_t high = sh ? m >> (64 - sh) : 0;
  r->d[0] = (uint32_t)low;
  r->d[1] = (uint32_t)(low >> 32);
  r->d[2] = (uint32_t)high;
  r->n = 3;
  r->exp = q;
  normalize(r);
}

int bigf_sign(const bigf *a) { return a->n == 0 ? 0 : a->neg ? -1 : 1; }

static uint32_t limb_at(const bigf *a, int pos) {
  int i = pos - a->exp;
  return i >= 0 && i < a->n ? a->d[i] : 0;
}

/* Compares |a| and |b|. */
static int cmp_abs(const bigf *a, const bigf *b) {
  if (a->n == 0 || b->n == 0) return (a->n != 0) - (b->n != 0);
  int ta = a->exp + a->n, tb = b->exp + b->n;
  if (ta != tb) return ta > tb ? 1 : -1;
  int lo = a->exp < b->exp ? a->exp : b->exp;
  for (int p = ta - 1; p >= lo; p--) {
    uint32_t x = limb_at(a, p), y = limb_at(b, p);
    if (x != y) return x > y ? 1 : -1;
  }
  return 0;
}

/* r = sign (|a| + |b|) or sign (|a| - |b|) with |a| >= |b|; works on a
   temporary so that r may alias a or b. */
static void add_abs(bigf *r, const bigf *a, const bigf *b, int subtract, int neg) {
  bigf t;
  int lo = a->exp < b->exp ? a->exp : b->exp;
  int hi = a->exp + a->n;
  if (b->exp + b->n > hi) hi = b->exp + b->n;
  int n = hi - lo + 1;
  assert(n <= BIGF_LIMBS);
  int64_t carry = 0;
  for (int i = 0; i < n; i++) {
    int64_t x = (int64_t)limb_at(a, lo + i);
    int64_t y = (int64_t)limb_at(b, lo + i);
    int64_t v = subtract ? x - y + carry : x + y + carry;
    /* v is in [-2^32, 2^33): floor division by 2^32 gives the carry or borrow. */
    carry = v >= 0 ? v >> 32 : -1;
    t.d[i] = (uint32_t)(v - carry * ((int64_t)1 << 32));
  }
  assert(carry == 0);
  t.n = n;
  t.exp = lo;
  t.neg = neg;
  normalize(&t);
  r->neg = t.neg;
  r->n = t.n;
  r->exp = t.exp;
  memcpy(r->d, t.d, (size_t)t.n * sizeof t.d[0]);
}

static void add_signed(bigf *r, const bigf *a, const bigf *b, int bneg) {
  if (b->n == 0) {
    if (r != a) *r = *a;
    return;
  }
  if (a->n == 0) {
    if (r != b) *r = *b;
    r->neg = bneg;
    return;
  }
  if (a->neg == bneg) {
    add_abs(r, a, b, 0, a->neg);
    return;
  }
  int c = cmp_abs(a, b);
  if (c == 0) {
    r->n = 0;
    r->exp = 0;
    r->neg = 0;
  } else if (c > 0) {
    add_abs(r, a, b, 1, a->neg);
  } else {
    add_abs(r, b, a, 1, bneg);
  }
}

void bigf_add(bigf *r, const bigf *a, const bigf *b) { add_signed(r, a, b, b->neg); }

void bigf_sub(bigf *r, const bigf *a, const bigf *b) { add_signed(r, a, b, b->n ? !b->neg : 0); }

void bigf_mul(bigf *r, const bigf *a, const bigf *b) {
  assert(r != a && r != b);
  if (a->n == 0 || b->n == 0) {
    r->n = 0;
    r->exp = 0;
    r->neg = 0;
    return;
  }
  int n = a->n + b->n;
  assert(n <= BIGF_LIMBS);
  memset(r->d, 0, (size_t)n * sizeof r->d[0]);
  for (int i = 0; i < a->n; i++) {
    uint64_t carry = 0, x = a->d[i];
    for (int j = 0; j < b->n; j++) {
      /* (2^32-1)^2 + 2 (2^32-1) < 2^64: no overflow. */
      uint64_t t = x * b->d[j] + r->d[i + j] + carry;
      r->d[i + j] = (uint32_t)t;
      carry = t >> 32;
    }
    r->d[i + b->n] = (uint32_t)carry;
  }
  r->n = n;
  r->exp = a->exp + b->exp;
  r->neg = a->neg ^ b->neg;
  normalize(r);
}

static int clz32(uint32_t x) {
  int n = 0;
  while (!(x & 0x80000000u)) {
    x <<= 1;
    n++;
  }
  return n;
}

void bigf_approx(const bigf *a, double *hi, double *lo, int *e) {
  if (a->n == 0) {
    *hi = *lo = 0;
    *e = 0;
    return;
  }
  /* The top five limbs (160 bits, at least 129 significant) shifted so that
     the leading one is bit 63 of u1; u2 holds the next 64 bits. */
  uint32_t w[5];
  for (int i = 0; i < 5; i++) {
    int j = a->n - 1 - i;
    w[i] = j >= 0 ? a->d[j] : 0;
  }
  int lz = clz32(w[0]);
  uint64_t u1 = 0, u2 = 0;
  for (int i = 0; i < 4; i++) {
    uint64_t limb = ((uint64_t)w[i] << lz) | (lz ? (uint64_t)w[i + 1] >> (32 - lz) : 0);
    limb &= 0xffffffffu;
    if (i < 2)
      u1 = (u1 << 32) | limb;
    else
      u2 = (u2 << 32) | limb;
  }
  /* Bit 63 of u1 weighs 2^E with E = 32 (top limb position) + 31 - lz. */
  int E = 32 * (a->exp + a->n - 1) + 31 - lz;
  /* |a| 2^-E = u1 2^-63 + u2 2^-127 + (below 2^-127). The top 53 bits of u1
     give hi exactly; the rest, rounded once, goes to lo: total error below
     2^-116 + 2^-105 + 2^-127 relative to hi >= 1. */
  double h = (double)(u1 >> 11) * 0x1p-52;
  double l = (double)(u1 & 0x7ff) * 0x1p-63 + (double)u2 * 0x1p-127;
  dd s = fast_two_sum(h, l);
  if (s.hi >= 2) { /* the rounding of l carried into the next binade */
    s.hi *= 0.5;
    s.lo *= 0.5;
    E++;
  }
  *hi = a->neg ? -s.hi : s.hi;
  *lo = a->neg ? -s.lo : s.lo;
  *e = E;
}
