/* gen.c: the case families of gen.h, each case a pure function of (seed, options, index). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "gen.h"
#include "eft.h"
#include "rng.h"

static const char *const family_names[TOI_GEN_FAMILY_COUNT] = {
    "generic", "aimed", "grazing", "near-contact", "far", "scale", "slow", "tangent", "mixed"};

/* The mixed suite: sub-family of case i is mix_slots[i % 16]. */
static const toi_gen_family mix_slots[16] = {
    TOI_GEN_GENERIC, TOI_GEN_AIMED,        TOI_GEN_GRAZING, TOI_GEN_NEAR_CONTACT, TOI_GEN_FAR,     TOI_GEN_SCALE,
    TOI_GEN_TANGENT, TOI_GEN_GRAZING,      TOI_GEN_GENERIC, TOI_GEN_AIMED,        TOI_GEN_GRAZING, TOI_GEN_NEAR_CONTACT,
    TOI_GEN_FAR,     TOI_GEN_SCALE,        TOI_GEN_SLOW,    TOI_GEN_TANGENT};

/* Limits that keep every generated input finite, per precision (scale: base
   lengths < 2^7, speeds < 2^3; far: 10^e times 2^29 stays below DBL_MAX, 10^38
   below FLT_MAX; binary32 k: the grazing and near-contact offset m n 2^-k,
   on the 2^-(15+k) grid, stays a float down to 2^-149; see gen.h). */
typedef struct gen_limits {
  int k_max, far_min, far_max, scale_min, scale_max;
  int bound_log2; /* --pos, --vel, radii at most 2^bound_log2 */
} gen_limits;
static const gen_limits limits[TOI_PRECISION_COUNT] = {
    [TOI_BINARY64] = {1000, -300, 300, -1100, 1000, 1000},
    [TOI_BINARY32] = {134, -38, 38, -170, 120, 100},
};

/* The grids of the exact families (gen.h): m and alpha on 2^-b, velocities,
   w, mu, eta on 2^-cv, the tangent's translation dyadic(pbits, pshift). */
typedef struct exact_grid {
  int b, cv, pbits, pshift;
} exact_grid;
static const exact_grid grids[TOI_PRECISION_COUNT] = {
    [TOI_BINARY64] = {20, 20, 20, 16},
    [TOI_BINARY32] = {15, 17, 19, 15},
};

const char *toi_gen_family_name(toi_gen_family f) {
  return (unsigned)f < TOI_GEN_FAMILY_COUNT ? family_names[f] : NULL;
}

toi_status toi_gen_family_parse(toi_gen_family *out, const char *name) {
  if (!out || !name) return TOI_ERR_RANGE;
  for (int i = 0; i < TOI_GEN_FAMILY_COUNT; i++)
    if (!strcmp(name, family_names[i])) {
      *out = (toi_gen_family)i;
      return TOI_OK;
    }
  return TOI_ERR_RANGE;
}

void toi_gen_opts_default_in(toi_gen_opts *o, toi_gen_family f, toi_precision q) {
  toi_gen_opts_default(o, f);
  if (q != TOI_BINARY32) return;
  o->precision = q;
  o->k = (toi_gen_range){1, 31, 1};
  if (f == TOI_GEN_SLOW) o->k = (toi_gen_range){10, 31, 1};
  if (f == TOI_GEN_TANGENT) o->k = (toi_gen_range){0, 16, 1};
  o->e = (toi_gen_range){0, 8, 1};
  if (f == TOI_GEN_SCALE) o->e = (toi_gen_range){-140, 120, 10};
  o->f = (toi_gen_range){-140, 120, 1};
}

void toi_gen_opts_default(toi_gen_opts *o, toi_gen_family f) {
  memset(o, 0, sizeof *o);
  o->family = f;
  o->seed = 1;
  o->dim = f == TOI_GEN_MIXED ? 0 : 2;
  o->sampling = TOI_GEN_SAMPLE_REAL;
  o->k = (toi_gen_range){1, 60, 1};
  if (f == TOI_GEN_SLOW) o->k = (toi_gen_range){10, 60, 1};
  if (f == TOI_GEN_TANGENT) o->k = (toi_gen_range){0, 16, 1};
  o->e = (toi_gen_range){0, 15, 1};
  if (f == TOI_GEN_SCALE) o->e = (toi_gen_range){-1000, 1000, 50};
  o->f = (toi_gen_range){-1000, 1000, 1};
  o->pos = 10;
  o->vel = 5;
  o->rlo = 0.1;
  o->rhi = 2;
  o->blo = 0;
  o->bhi = 1.25;
}

static int uses_k(toi_gen_family f) {
  return f == TOI_GEN_GRAZING || f == TOI_GEN_NEAR_CONTACT || f == TOI_GEN_SLOW || f == TOI_GEN_TANGENT;
}
static int uses_e(toi_gen_family f) { return f == TOI_GEN_FAR || f == TOI_GEN_SCALE; }
static int uses_shape(toi_gen_family f) { return f == TOI_GEN_GENERIC || f == TOI_GEN_AIMED; }

static int range_ok(const toi_gen_range *r, int lo, int hi, const char *name, char *msg, size_t msgsz) {
  if (r->step < 1 || r->lo > r->hi || r->lo < lo || r->hi > hi) {
    snprintf(msg, msgsz, "--%s %d:%d:%d: need %d <= LO <= HI <= %d and STEP >= 1", name, r->lo, r->hi,
             r->step, lo, hi);
    return -1;
  }
  return 0;
}

/* The check of toi_gen_opts_check: 0, or -1 with the reason in msg. */
static int opts_check(const toi_gen_opts *o, char *msg, size_t msgsz) {
  if ((unsigned)o->family >= TOI_GEN_FAMILY_COUNT) {
    snprintf(msg, msgsz, "unknown family");
    return -1;
  }
  if (o->dim != 0 && o->dim != 2 && o->dim != 3) {
    snprintf(msg, msgsz, "--dim must be 2, 3 or any");
    return -1;
  }
  if (o->precision != TOI_BINARY64 && o->precision != TOI_BINARY32) {
    snprintf(msg, msgsz, "--precision must be binary64 or binary32");
    return -1;
  }
  const gen_limits *lim = &limits[o->precision];
  if (uses_k(o->family)) {
    int lo = o->family == TOI_GEN_TANGENT ? 0 : 1;
    int hi = o->family == TOI_GEN_TANGENT ? 1 << 20 : lim->k_max;
    if (range_ok(&o->k, lo, hi, "k", msg, msgsz)) return -1;
  }
  if (o->family == TOI_GEN_FAR && range_ok(&o->e, lim->far_min, lim->far_max, "e", msg, msgsz)) return -1;
  if (o->family == TOI_GEN_SCALE) {
    if (range_ok(&o->e, lim->scale_min, lim->scale_max, "e", msg, msgsz)) return -1;
    if (range_ok(&o->f, lim->scale_min, lim->scale_max, "f", msg, msgsz)) return -1;
  }
  double bound = pow2i(lim->bound_log2);
  if (!(o->pos >= 0 && o->pos <= bound) || !(o->vel >= 0 && o->vel <= bound)) {
    snprintf(msg, msgsz, "--pos and --vel must be in [0, 2^%d]", lim->bound_log2);
    return -1;
  }
  if (!(o->rlo >= 0 && o->rlo <= o->rhi && o->rhi <= bound)) {
    snprintf(msg, msgsz, "--radius LO:HI needs 0 <= LO <= HI <= 2^%d", lim->bound_log2);
    return -1;
  }
  if (!(o->blo >= 0 && o->blo <= o->bhi && o->bhi <= 1e6)) {
    snprintf(msg, msgsz, "--impact LO:HI needs 0 <= LO <= HI <= 1e6");
    return -1;
  }
  return 0;
}

toi_status toi_gen_opts_check(const toi_gen_opts *o, const toi_msg *msg) {
  char why[256];
  if (!o) return TOI_ERR_RANGE;
  if (opts_check(o, why, sizeof why) == 0) return TOI_OK;
  toi_msgf(msg, "%s", why);
  return TOI_ERR_RANGE;
}

static size_t range_count(const toi_gen_range *r) { return (size_t)((r->hi - r->lo) / r->step) + 1; }

size_t toi_gen_bin_count(const toi_gen_opts *o) {
  if (o->family == TOI_GEN_MIXED) return TOI_GEN_MIXED;
  if (uses_k(o->family)) return range_count(&o->k);
  if (uses_e(o->family)) return range_count(&o->e);
  return 1;
}

void toi_gen_bin_describe(const toi_gen_opts *o, size_t b, const char **param, int *value, char *label,
                      size_t labelsz) {
  if (o->family == TOI_GEN_MIXED) {
    *param = "family";
    *value = (int)b;
    snprintf(label, labelsz, "%s", family_names[b < TOI_GEN_MIXED ? b : 0]);
  } else if (uses_k(o->family) || uses_e(o->family)) {
    const toi_gen_range *r = uses_k(o->family) ? &o->k : &o->e;
    *param = uses_k(o->family) ? "k" : "e";
    *value = r->lo + (int)b * r->step;
    snprintf(label, labelsz, "%s=%d", *param, *value);
  } else {
    *param = "all";
    *value = 0;
    snprintf(label, labelsz, "all");
  }
}

int toi_gen_opts_format(char *buf, size_t bufsz, const toi_gen_opts *o) {
  char dim[8];
  if (o->dim) snprintf(dim, sizeof dim, "%d", o->dim);
  else snprintf(dim, sizeof dim, "any");
  int n = snprintf(buf, bufsz, "family=%s seed=%" PRIu64 " dim=%s", family_names[o->family], o->seed,
                   dim);
  size_t used = n < 0 ? 0 : (size_t)n;
#define APPEND(...)                                                              \
  do {                                                                           \
    int m_ = snprintf(buf + (used < bufsz ? used : bufsz),                       \
                      used < bufsz ? bufsz - used : 0, __VA_ARGS__);             \
    if (m_ > 0) used += (size_t)m_;                                              \
  } while (0)
  /* binary64 results keep the bytes they had before precisions existed. */
  if (o->precision != TOI_BINARY64) APPEND(" precision=%s", toi_precision_name(o->precision));
  if (uses_k(o->family)) APPEND(" k=%d:%d:%d", o->k.lo, o->k.hi, o->k.step);
  if (uses_e(o->family)) APPEND(" e=%d:%d:%d", o->e.lo, o->e.hi, o->e.step);
  if (o->family == TOI_GEN_SCALE) APPEND(" f=%d:%d", o->f.lo, o->f.hi);
  if (uses_shape(o->family))
    APPEND(" pos=%a vel=%a radius=%a:%a", o->pos, o->vel, o->rlo, o->rhi);
  if (o->family == TOI_GEN_GENERIC)
    APPEND(" sampling=%s", o->sampling == TOI_GEN_SAMPLE_BITS ? "bits" : "real");
  if (o->family == TOI_GEN_AIMED) APPEND(" impact=%a:%a", o->blo, o->bhi);
#undef APPEND
  return (int)used;
}

/* ---- helpers ---- */

/* Pythagorean frames: integer d, n with d.n = 0 and |d| = |n| = h, so that
   multiples of d and n by dyadic numbers stay exact. */
typedef struct frame {
  int d[3], n[3], h;
} frame;
static const frame frames2[] = {{{1, 0, 0}, {0, 1, 0}, 1},     {{3, 4, 0}, {-4, 3, 0}, 5},
                                {{5, 12, 0}, {-12, 5, 0}, 13}, {{8, 15, 0}, {-15, 8, 0}, 17},
                                {{20, 21, 0}, {-21, 20, 0}, 29}};
static const frame frames3[] = {{{1, 0, 0}, {0, 1, 0}, 1},  {{1, 2, 2}, {2, 1, -2}, 3},
                                {{3, 4, 0}, {0, 0, 5}, 5},  {{2, 3, 6}, {3, -6, 2}, 7},
                                {{1, 4, 8}, {4, 7, -4}, 9}, {{2, 6, 9}, {6, 7, -6}, 11}};

static const frame *pick_frame(toi_rng *r, int dim) {
  if (dim == 2) return &frames2[toi_rng_below_i(r, sizeof frames2 / sizeof frames2[0])];
  return &frames3[toi_rng_below_i(r, sizeof frames3 / sizeof frames3[0])];
}

/* Nearest point of the 2^-g grid (|x| < 2^(51-g)): adding and removing 1.5 2^52
   rounds to an integer in the default rounding mode, exactly. */
static double grid(double x, int g) {
  double y = x * pow2i(g);
  y = (y + 0x1.8p52) - 0x1.8p52;
  return y * pow2i(-g);
}
static double grid20(double x) { return grid(x, 20); }

/* x rounded to precision q (nothing for binary64). */
static double in_q(double x, toi_precision q) { return q == TOI_BINARY64 ? x : toi_round_to(x, q); }

/* Uniform over the floats of [float(lo), float(hi)], as toi_rng_bits for doubles. */
static double float_bits(toi_rng *r, double lo, double hi) {
  int64_t a = toi_float_ord(lo), b = toi_float_ord(hi);
  return toi_float_from_ord(a + (int64_t)toi_rng_below_i(r, (uint64_t)(b - a) + 1));
}

/* x rounded to 24 significant bits (nearest, ties away) by integer operations
   on its bit pattern: a carry out of the mantissa correctly bumps the exponent. */
static double round24(double x) {
  uint64_t b;
  memcpy(&b, &x, sizeof b);
  b = (b + ((uint64_t)1 << 28)) & ~(((uint64_t)1 << 29) - 1);
  memcpy(&x, &b, sizeof x);
  return x;
}

/* A uniformly random unit vector (rejection from the cube, then sqrt). */
static void unit(toi_rng *r, int dim, double u[3]) {
  for (;;) {
    double n2 = 0;
    u[2] = 0;
    for (int i = 0; i < dim; i++) {
      u[i] = toi_rng_uniform_i(r, -1, 1);
      n2 += u[i] * u[i];
    }
    if (n2 > 0.0625 && n2 <= 1) {
      double n = sqrt(n2);
      for (int i = 0; i < dim; i++) u[i] /= n;
      return;
    }
  }
}

/* A unit vector perpendicular to the unit vector u. */
static void perpendicular(toi_rng *r, int dim, const double u[3], double w[3]) {
  if (dim == 2) {
    w[0] = -u[1];
    w[1] = u[0];
    w[2] = 0;
    return;
  }
  for (;;) {
    double y[3];
    unit(r, 3, y);
    double p = y[0] * u[0] + y[1] * u[1] + y[2] * u[2];
    double n2 = 0;
    for (int i = 0; i < 3; i++) {
      w[i] = y[i] - p * u[i];
      n2 += w[i] * w[i];
    }
    if (n2 > 0.0625) {
      double n = sqrt(n2);
      for (int i = 0; i < 3; i++) w[i] /= n;
      return;
    }
  }
}

static double mass(toi_rng *r, toi_precision q) { return in_q(toi_rng_uniform_i(r, 0.5, 2), q); }

/* Exact symmetries: a signed permutation of the axes applied to every vector,
   and swapping the two balls (s -> -s, v -> -v): the class and D are unchanged. */
/* toi_rng_below_i(r, 2): its threshold 2^64 mod 2 = 0 takes every draw, and
   x % 2 = x & 1: the same draws and values, without its two divisions (a
   case draws up to seven of these). */
static int coin(toi_rng *r) { return (int)(toi_rng_next_i(r) & 1); }

/* toi_rng_below_i(r, 3), the same loop with the divisor known here. */
static uint64_t below3(toi_rng *r) {
  const uint64_t threshold = (0 - (uint64_t)3) % 3;
  for (;;) {
    uint64_t x = toi_rng_next_i(r);
    if (x >= threshold) return x % 3;
  }
}

static void shuffle(toi_rng *r, toi_case *c) {
  int perm[3] = {0, 1, 2};
  for (int i = c->dim - 1; i > 0; i--) {
    int j = i == 2 ? (int)below3(r) : i == 1 ? coin(r) : (int)toi_rng_below_i(r, (uint64_t)i + 1);
    int t = perm[i];
    perm[i] = perm[j];
    perm[j] = t;
  }
  double sign[3];
  for (int i = 0; i < 3; i++) sign[i] = (double)(1 - 2 * coin(r)); /* -1.0 on heads, 1.0: no branch */
  double *vecs[4] = {c->pa, c->va, c->pb, c->vb};
  for (int k = 0; k < 4; k++) {
    /* Read whole, then written component by component: no wide read of
       narrow writes just made (which the processor cannot forward). */
    double *v = vecs[k], src[3] = {v[0], v[1], v[2]};
    for (int i = 0; i < 3; i++) v[i] = i < c->dim ? sign[i] * src[perm[i]] : 0;
  }
  if (coin(r)) { /* the balls swapped, field by field (not the whole case and its ID) */
    for (int i = 0; i < 3; i++) {
      double p = c->pa[i], v = c->va[i];
      c->pa[i] = c->pb[i];
      c->va[i] = c->vb[i];
      c->pb[i] = p;
      c->vb[i] = v;
    }
    double ra = c->ra, ma = c->ma;
    c->ra = c->rb;
    c->rb = ra;
    c->ma = c->mb;
    c->mb = ma;
  }
}

/* The dyadic scaffolding of the exact families: m = M 2^-b in [0.5, 1),
   R = h m split into two dyadic radii, masses. */
TOI_INLINE double exact_radii(toi_rng *r, toi_case *c, const frame *fr, toi_precision q) {
  int b = grids[q].b;
  int64_t M = toi_rng_int_i(r, (int64_t)1 << (b - 1), ((int64_t)1 << b) - 1);
  int64_t RA = toi_rng_int_i(r, 1, fr->h * M - 1);
  c->ra = (double)RA * pow2i(-b);
  c->rb = (double)(fr->h * M - RA) * pow2i(-b);
  c->ma = mass(r, q);
  c->mb = mass(r, q);
  return (double)M * pow2i(-b);
}

/* A dyadic speed in [0.25, 4] on the 2^-cv grid. */
TOI_INLINE double exact_speed(toi_rng *r, int cv) {
  return (double)toi_rng_int_i(r, (int64_t)1 << (cv - 2), (int64_t)1 << (cv + 2)) * pow2i(-cv);
}

/* ---- the families ---- */

/* One draw of the generic family in [lo, hi]: uniform over the reals (rounded
   to q) or over the values of q. */
static double generic_draw(toi_rng *r, double lo, double hi, int bits, toi_precision q) {
  if (!bits) return in_q(toi_rng_uniform_i(r, lo, hi), q);
  return q == TOI_BINARY64 ? toi_rng_bits_i(r, lo, hi) : float_bits(r, lo, hi);
}

static void fam_generic(toi_case *c, toi_rng *r, const toi_gen_opts *o) {
  int bits = o->sampling == TOI_GEN_SAMPLE_BITS;
#define DRAW(lo, hi) generic_draw(r, (lo), (hi), bits, o->precision)
  for (int i = 0; i < c->dim; i++) c->pa[i] = DRAW(-o->pos, o->pos);
  for (int i = 0; i < c->dim; i++) c->va[i] = DRAW(-o->vel, o->vel);
  c->ra = DRAW(o->rlo, o->rhi);
  for (int i = 0; i < c->dim; i++) c->pb[i] = DRAW(-o->pos, o->pos);
  for (int i = 0; i < c->dim; i++) c->vb[i] = DRAW(-o->vel, o->vel);
  c->rb = DRAW(o->rlo, o->rhi);
#undef DRAW
  c->ma = mass(r, o->precision);
  c->mb = mass(r, o->precision);
}

static void fam_aimed(toi_case *c, toi_rng *r, const toi_gen_opts *o) {
  double u[3], w[3];
  c->ra = toi_rng_uniform_i(r, o->rlo, o->rhi);
  c->rb = toi_rng_uniform_i(r, o->rlo, o->rhi);
  double R = c->ra + c->rb;
  for (int i = 0; i < c->dim; i++) c->pa[i] = toi_rng_uniform_i(r, -o->pos, o->pos);
  for (int i = 0; i < c->dim; i++) c->va[i] = toi_rng_uniform_i(r, -1, 1);
  unit(r, c->dim, u);
  perpendicular(r, c->dim, u, w);
  double d = toi_rng_uniform_i(r, 2, 20);
  double b = toi_rng_uniform_i(r, o->blo, o->bhi);
  double speed = toi_rng_uniform_i(r, 0.25, 4);
  for (int i = 0; i < c->dim; i++) {
    c->pb[i] = c->pa[i] + R * (d * u[i] + b * w[i]);
    c->vb[i] = c->va[i] - speed * u[i];
  }
  c->ma = mass(r, TOI_BINARY64);
  c->mb = mass(r, TOI_BINARY64);
  /* |pB| <= 2^100 + 2^101 (20 + 10^6) < 2^122 (toi_gen_opts_check's bounds): no
     input overflows the float range. */
  if (o->precision != TOI_BINARY64) (void)toi_case_round(c, c, o->precision);
}

/* Impact parameter h m (1 + sigma 2^-k) with sigma in {-1, 0, +1}; see gen.h. */
TOI_INLINE void exact_graze(toi_case *c, toi_rng *r, int sigma, int k, int translate, toi_precision q) {
  const exact_grid *g = &grids[q];
  const frame *fr = pick_frame(r, c->dim);
  double m = exact_radii(r, c, fr, q);
  double alpha = (double)toi_rng_int_i(r, 2 * (int64_t)(m * pow2i(g->b)), 20 * (int64_t)(m * pow2i(g->b)) - 1) *
                 pow2i(-g->b);
  double w = exact_speed(r, g->cv);
  double tiny = sigma ? (double)sigma * m * pow2i(-k) : 0.0;
  for (int i = 0; i < c->dim; i++) {
    double P = translate ? toi_rng_dyadic_i(r, g->pbits, g->pshift) : 0.0;
    double V = toi_rng_dyadic_i(r, g->cv, g->cv);
    c->pb[i] = P + (alpha * fr->d[i] + m * fr->n[i]);
    c->pa[i] = P - tiny * fr->n[i];
    c->va[i] = V;
    c->vb[i] = V - w * fr->d[i];
  }
}

/* Text built without printf (toi_gen_case runs once per case of a sweep): the
   same bytes as snprintf, cut as it cuts, at size - 1 bytes. */
typedef struct gen_text {
  char *p;
  size_t size, len;
} gen_text;

static void gt_str(gen_text *t, const char *s) {
  size_t len = t->len, lim = t->size ? t->size - 1 : 0;
  while (*s && len < lim) t->p[len++] = *s++;
  if (*s) len += strlen(s); /* cut: counted, not written */
  t->len = len;
  if (t->size) t->p[len < t->size ? len : t->size - 1] = 0;
}

/* u in decimal, '-' first when neg, at least width digits (zero-padded): as
   %d for an int, %06 PRIu64 for an index. */
static void gt_num(gen_text *t, uint64_t u, int neg, int width) {
  char d[24], s[26];
  int n = 0, k = 0;
  do {
    d[n++] = (char)('0' + u % 10);
    u /= 10;
  } while (u);
  while (n < width) d[n++] = '0';
  if (neg) s[k++] = '-';
  while (n) s[k++] = d[--n];
  s[k] = 0;
  gt_str(t, s);
}

static void gt_int(gen_text *t, int v) {
  gt_num(t, v < 0 ? (uint64_t)0 - (uint64_t)(int64_t)v : (uint64_t)v, v < 0, 0);
}

/* The tag "<letter>V", then "-s1" and "-s2" when given (s1, s2 NULL: not);
   nothing when tag is NULL (no ID is made). */
static void tag_put(char *tag, size_t tagsz, const char *letter, int v, const char *s1, const char *s2) {
  if (!tag) return;
  gen_text t = {tag, tagsz, 0};
  gt_str(&t, letter);
  gt_int(&t, v);
  if (s1) gt_str(&t, "-"), gt_str(&t, s1);
  if (s2) gt_str(&t, "-"), gt_str(&t, s2);
}

TOI_INLINE void fam_grazing(toi_case *c, toi_rng *r, int k, toi_precision q, char *tag, size_t tagsz) {
  int sigma = coin(r) ? 1 : -1;
  exact_graze(c, r, sigma, k, 0, q);
  shuffle(r, c);
  tag_put(tag, tagsz, "k", k, sigma < 0 ? "in" : "out", NULL);
}

TOI_INLINE void fam_near_contact(toi_case *c, toi_rng *r, int k, toi_precision q, char *tag,
                                size_t tagsz) {
  int cv = grids[q].cv;
  int sigma = coin(r) ? 1 : -1;
  int approach = coin(r);
  const frame *fr = pick_frame(r, c->dim);
  double m = exact_radii(r, c, fr, q);
  double mu = exact_speed(r, cv);
  if (approach) mu = -mu;
  double eta = toi_rng_uniform_i(r, -0.5, 0.5) * mu;
  eta = grid(eta, cv);
  double tiny = (double)sigma * m * pow2i(-k);
  for (int i = 0; i < c->dim; i++) {
    double V = toi_rng_dyadic_i(r, cv, cv);
    c->pb[i] = m * fr->d[i];
    c->pa[i] = -tiny * fr->d[i];
    c->va[i] = V;
    c->vb[i] = V + (mu * fr->d[i] + eta * fr->n[i]);
  }
  shuffle(r, c);
  tag_put(tag, tagsz, "k", k, sigma > 0 ? "gap" : "ovl", approach ? "app" : "lea");
}

/* The far offset in binary32: 10^e u_i rounded to a float, then (below 2^16,
   where floats are finer) to the 2^-8 grid of the positions, so that p + O is
   exact in float while |p + O| < 2^16 (gen.h). */
static double far_offset32(double x) {
  double O = toi_round_to(x, TOI_BINARY32);
  return fabs(O) < 0x1p16 ? grid(O, 8) : O;
}

/* a + b in binary32 arithmetic, one rounding (a, b floats). */
static double add32(double a, double b) { return (double)((float)a + (float)b); }

static void fam_far(toi_case *c, toi_case *base, toi_rng *r, const toi_gen_opts *a, int e, char *tag,
                    size_t tagsz) {
  int f32 = a->precision == TOI_BINARY32;
  fam_aimed(c, r, a);
  for (int i = 0; i < c->dim; i++) {
    c->pa[i] = f32 ? grid(c->pa[i], 8) : grid20(c->pa[i]);
    c->pb[i] = f32 ? grid(c->pb[i], 8) : grid20(c->pb[i]);
  }
  if (base) *base = *c;
  /* 10^e by repeated IEEE products: not exactly 10^e beyond 10^22, but the
     same bits everywhere, which is what the offset needs. */
  double ten = 1;
  for (int i = 0; i < (e < 0 ? -e : e); i++) ten = e < 0 ? ten / 10 : ten * 10;
  double u[3];
  unit(r, c->dim, u);
  for (int i = 0; i < c->dim; i++) {
    if (f32) {
      double O = far_offset32(ten * u[i]);
      c->pa[i] = add32(c->pa[i], O);
      c->pb[i] = add32(c->pb[i], O);
      continue;
    }
    double O = round24(ten * u[i]);
    c->pa[i] += O;
    c->pb[i] += O;
  }
  tag_put(tag, tagsz, "e", e, NULL, NULL);
}

static void fam_scale(toi_case *c, toi_case *base, toi_rng *r, const toi_gen_opts *a, int e, int f,
                      char *tag, size_t tagsz) {
  toi_precision q = a->precision;
  fam_aimed(c, r, a);
  if (base) *base = *c;
  /* x 2^e by scale2 (eft.h): scalbn's value, one rounding, without the libm
     call. In binary32 the exact double is rounded once into the float range
     (toi_gen_opts_check keeps it below FLT_MAX). */
  for (int i = 0; i < c->dim; i++) {
    c->pa[i] = in_q(scale2(c->pa[i], e), q);
    c->pb[i] = in_q(scale2(c->pb[i], e), q);
    c->va[i] = in_q(scale2(c->va[i], f), q);
    c->vb[i] = in_q(scale2(c->vb[i], f), q);
  }
  c->ra = in_q(scale2(c->ra, e), q);
  c->rb = in_q(scale2(c->rb, e), q);
  if (!tag) return;
  tag_put(tag, tagsz, "e", e, NULL, NULL);
  gen_text t = {tag, tagsz, strlen(tag)};
  gt_str(&t, "-f");
  gt_int(&t, f);
}

static void fam_slow(toi_case *c, toi_rng *r, const toi_gen_opts *a, int k, char *tag, size_t tagsz) {
  toi_precision q = a->precision;
  fam_aimed(c, r, a);
  double s = pow2i(-k);
  for (int i = 0; i < c->dim; i++) {
    c->va[i] = in_q(c->va[i] * s, q);
    c->vb[i] = in_q(c->vb[i] * s, q);
  }
  tag_put(tag, tagsz, "k", k, NULL, NULL);
}

TOI_INLINE void fam_tangent(toi_case *c, toi_case *base, toi_rng *r, int k, toi_precision q, char *tag,
                        size_t tagsz) {
  exact_graze(c, r, 0, 0, 1, q);
  shuffle(r, c);
  if (base) *base = *c;
  int pick = (int)toi_rng_below_i(r, (uint64_t)gen_case_input_count(c));
  int up = coin(r);
  double *x = gen_case_input(c, pick);
  if (q == TOI_BINARY32) *x = toi_float_from_ord(toi_float_ord(*x) + (up ? k : -k));
  else *x = toi_double_from_ord(toi_double_ord(*x) + (up ? k : -k));
  if (*x == 0) *x = 0.0;
  tag_put(tag, tagsz, "k", k, NULL, NULL);
}

/* The ID "%s%s%s%s-%06" PRIu64 into id (size bytes, cut as snprintf cuts):
   prefix, family, "-" and the tag when there is one, index. When the whole
   fits (always, for the names and tags of this file), the parts are copied
   in one go; otherwise by gen_text, which cuts. */
static void put_id(char *id, size_t size, const char *prefix, const char *family, const char *tag,
                   uint64_t index) {
  char d[24];
  int n = 0;
  do {
    d[n++] = (char)('0' + index % 10);
    index /= 10;
  } while (index);
  while (n < 6) d[n++] = '0';
  size_t lp = strlen(prefix), lf = strlen(family), lt = strlen(tag);
  size_t len = lp + lf + (lt ? lt + 1 : 0) + 1 + (size_t)n;
  if (len < size) {
    char *p = id;
    memcpy(p, prefix, lp), p += lp;
    memcpy(p, family, lf), p += lf;
    if (lt) *p++ = '-', memcpy(p, tag, lt), p += lt;
    *p++ = '-';
    while (n) *p++ = d[--n];
    *p = 0;
    return;
  }
  char s[26];
  int k = 0;
  while (n) s[k++] = d[--n];
  s[k] = 0;
  gen_text t = {id, size, 0};
  gt_str(&t, prefix);
  gt_str(&t, family);
  gt_str(&t, lt ? "-" : "");
  gt_str(&t, tag);
  gt_str(&t, "-");
  gt_str(&t, s);
}

static int range_draw(toi_rng *r, const toi_gen_range *g) {
  return g->lo + (int)toi_rng_below_i(r, range_count(g)) * g->step;
}

/* What the cases of one set of checked options share: the options; for
   mixed, subs[f] the options of sub-family f (toi_gen_opts_default_in with
   o's precision and seed), made for the sub-families needed; the aimed
   options that far, scale and slow build on (toi_gen_opts_default_in with
   o's precision), made when needed; the key of the options' stream (a
   case's draws: toi_rng_seed_item of o's seed, that stream and its index);
   the number of bins of a family with bins. */
typedef struct gen_run {
  const toi_gen_opts *o;
  toi_gen_opts subs[TOI_GEN_FAMILY_COUNT];
  toi_gen_opts aimed;
  uint64_t key;
  size_t bins;
} gen_run;

static int builds_on_aimed(toi_gen_family f) {
  return f == TOI_GEN_FAR || f == TOI_GEN_SCALE || f == TOI_GEN_SLOW;
}

/* The run of o (checked), with the options of sub-family f of mixed (-1 for
   every sub-family). */
static void run_init(gen_run *g, const toi_gen_opts *o, int f) {
  g->o = o;
  /* Another precision, another stream; binary64 (0) keeps the stream it had. */
  g->key = toi_rng_stream_key(o->seed, (uint64_t)o->family | (uint64_t)o->precision << 32);
  g->bins = toi_gen_bin_count(o);
  int aimed = builds_on_aimed(o->family);
  if (o->family == TOI_GEN_MIXED)
    for (int k = 0; k < TOI_GEN_FAMILY_COUNT; k++) {
      if (f >= 0 && k != f) continue;
      toi_gen_opts_default_in(&g->subs[k], (toi_gen_family)k, o->precision);
      g->subs[k].seed = o->seed;
      aimed |= builds_on_aimed((toi_gen_family)k);
    }
  if (aimed) toi_gen_opts_default_in(&g->aimed, TOI_GEN_AIMED, o->precision);
}

/* A case of an exact family f (grazing, near-contact, tangent), called with a
   constant q: inlined, its grid's draws below constant bounds take no
   division (the compiler multiplies), the same draws and values. */
TOI_INLINE void gen_exact(toi_case *c, toi_case *base, toi_rng *r, toi_gen_family f, int param, toi_precision q,
                          char *tag, size_t tagsz) {
  if (f == TOI_GEN_TANGENT) {
    fam_tangent(c, base, r, param, q, tag, tagsz);
    return;
  }
  if (f == TOI_GEN_GRAZING) fam_grazing(c, r, param, q, tag, tagsz);
  else fam_near_contact(c, r, param, q, tag, tagsz);
  if (base) *base = *c;
}

/* One case of family o->family (not mixed); param is its k or e; its tag into
   tag (tagsz bytes) unless tag is NULL. */
static void gen_one(toi_case *c, toi_case *base, toi_rng *r, const gen_run *g, const toi_gen_opts *o,
                    int param, char *tag, size_t tagsz) {
  toi_precision q = o->precision;
  if (tag) tag[0] = 0;
  switch (o->family) {
    case TOI_GEN_GENERIC: fam_generic(c, r, o); break;
    case TOI_GEN_AIMED: fam_aimed(c, r, o); break;
    case TOI_GEN_GRAZING:
    case TOI_GEN_NEAR_CONTACT:
    case TOI_GEN_TANGENT:
      if (q == TOI_BINARY64) gen_exact(c, base, r, o->family, param, TOI_BINARY64, tag, tagsz);
      else gen_exact(c, base, r, o->family, param, TOI_BINARY32, tag, tagsz);
      return;
    case TOI_GEN_FAR: fam_far(c, base, r, &g->aimed, param, tag, tagsz); return;
    case TOI_GEN_SCALE: fam_scale(c, base, r, &g->aimed, param, range_draw(r, &o->f), tag, tagsz); return;
    case TOI_GEN_SLOW: fam_slow(c, r, &g->aimed, param, tag, tagsz); break;
    default: break;
  }
  if (base) *base = *c;
}

/* Case index of the run g; its ID when ids (the tag made only then). */
static void gen_case_at(toi_case *out, toi_case *base, size_t *bin, const gen_run *g, uint64_t index, int ids) {
  const toi_gen_opts *o = g->o;
  toi_rng r;
  toi_rng_seed_key_i(&r, g->key, index);
  static const toi_case zero; /* copied (padding too): cheaper than memset's string instruction */
  memcpy(out, &zero, sizeof *out);
  out->dim = o->dim ? o->dim : 2 + coin(&r);
  char tagbuf[40], *tag = ids ? tagbuf : NULL;
  const char *prefix = "";
  toi_gen_family fam = o->family;
  if (fam == TOI_GEN_MIXED) {
    fam = mix_slots[index % 16];
    const toi_gen_opts *sub = &g->subs[fam];
    int param = 0;
    if (uses_k(fam)) param = range_draw(&r, &sub->k);
    if (uses_e(fam)) param = range_draw(&r, &sub->e);
    gen_one(out, base, &r, g, sub, param, tag, sizeof tagbuf);
    *bin = (size_t)fam;
    prefix = "mixed-";
  } else {
    int param = 0;
    *bin = 0;
    if (uses_k(fam) || uses_e(fam)) {
      /* round-robin over the range, whose count is g->bins */
      const toi_gen_range *pr = uses_k(fam) ? &o->k : &o->e;
      *bin = (size_t)(index % g->bins);
      param = pr->lo + (int)*bin * pr->step;
    }
    gen_one(out, base, &r, g, o, param, tag, sizeof tagbuf);
  }
  if (ids) put_id(out->id, sizeof out->id, prefix, family_names[fam], tag, index);
  if (base) memcpy(base->id, out->id, sizeof base->id);
}

toi_status toi_gen_case(toi_case *out, toi_case *base, size_t *bin, const toi_gen_opts *o, uint64_t index) {
  char msg[160];
  if (opts_check(o, msg, sizeof msg)) return TOI_ERR_RANGE;
  gen_run g;
  run_init(&g, o, (int)mix_slots[index % 16]); /* for mixed, only the sub-family this case needs */
  gen_case_at(out, base, bin, &g, index, 1);
  return TOI_OK;
}

toi_status toi_gen_cases(toi_case *out, size_t *bins, const toi_gen_opts *o, uint64_t lo, size_t n, int ids) {
  char msg[160];
  if (opts_check(o, msg, sizeof msg)) return TOI_ERR_RANGE;
  gen_run g;
  run_init(&g, o, -1);
  for (size_t k = 0; k < n; k++) gen_case_at(&out[k], NULL, &bins[k], &g, lo + k, ids);
  return TOI_OK;
}
