/* expansion.c: Shewchuk's expansion arithmetic with zero elimination (grow, products, compress). */
#include "eft.h"
#include "expansion.h"

int xp_grow(const double *e, int elen, double b, double *h) {
  /* GROW-EXPANSION (Shewchuk's Theorem 10): running b through the components
     from the smallest keeps every rounding error, and the errors come out
     nonoverlapping and in increasing order. */
  double q = b;
  int hn = 0;
  for (int i = 0; i < elen; i++) {
    dd t = two_sum(q, e[i]);
    q = t.hi;
    if (t.lo != 0) h[hn++] = t.lo;
  }
  if (q != 0 || hn == 0) h[hn++] = q;
  return hn;
}

int xp_add_product(double *acc, int *alen, int cap, const double *e, int elen, const double *f, int flen,
                   double sign) {
  /* Each product adds at most two components; refuse before writing past
     cap rather than after. */
  if (*alen + 2 * elen * flen > cap) return -1;
  int n = *alen;
  for (int i = 0; i < elen; i++)
    for (int j = 0; j < flen; j++) {
      dd p = two_prod(e[i], sign * f[j]);
      if (p.lo != 0) n = xp_grow(acc, n, p.lo, acc);
      if (p.hi != 0) n = xp_grow(acc, n, p.hi, acc);
    }
  *alen = n;
  return 0;
}

int xp_compress(const double *e, int elen, double *h) {
  /* COMPRESS, as in Shewchuk's predicates.c: a top-down pass that merges
     components into the running sum, then a bottom-up pass that renormalizes. */
  int bottom = elen - 1;
  double q = e[bottom];
  for (int i = elen - 2; i >= 0; i--) {
    dd t = fast_two_sum(q, e[i]);
    if (t.lo != 0) {
      h[bottom--] = t.hi;
      q = t.lo;
    } else {
      q = t.hi;
    }
  }
  int top = 0;
  for (int i = bottom + 1; i < elen; i++) {
    dd t = fast_two_sum(h[i], q);
    if (t.lo != 0) h[top++] = t.lo;
    q = t.hi;
  }
  h[top] = q;
  return top + 1;
}

int xp_sign(const double *e, int elen) {
  double x = e[elen - 1];
  return (x > 0) - (x < 0);
}

void xp_approx(const double *e, int elen, double *hi, double *lo) {
  /* The components below the top one sum to less than an ulp of it; adding
     them from the smallest keeps their own rounding far below 2^-100. */
  double rest = 0;
  for (int i = 0; i < elen - 1; i++) rest += e[i];
  dd r = two_sum(e[elen - 1], rest);
  *hi = r.hi;
  *lo = r.lo;
}
