/* test_accurate_batch.c: accurate's batch solve gives the scalar function's answers bit for bit. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "formulations.h"
#include "gen.h"
#include "msg_text.h"
#include "toi.h"

toi_result toi_f_accurate(const toi_case *c);

/* Cases of every family, per family and dimension (0: any). */
#define AB_COUNT 12000

static int same(toi_result a, toi_result b) { return a.cls == b.cls && !memcmp(&a.t, &b.t, sizeof a.t); }

/* The batch on cs[0..n-1] whole and in calls of lengths 1, 2, ..., 9, 1,
   ... (every lane count and tail), each answer against the scalar one,
   with each set of kernels; and toi_accurate_batch itself once. */
static void check_batches(const toi_case *cs, size_t n, const char *what) {
  toi_result *want = malloc(n * sizeof *want), *got = malloc(n * sizeof *got);
  cr_assert(want && got);
  for (size_t i = 0; i < n; i++) want[i] = toi_f_accurate(&cs[i]);
  /* pass: the kernels (none, as without AVX2; AVX2; AVX-512 where the
     processor has them, the scalar function elsewhere) times whole or in
     short calls */
  for (int pass = 0; pass < 6; pass++) {
    const int kind = pass / 2;
    memset(got, 0xa5, n * sizeof *got);
    if (pass % 2 == 0) {
      toi_accurate_batch_as(kind, cs, n, got);
    } else {
      size_t len = 1;
      for (size_t i = 0; i < n; i += len, len = len % 9 + 1)
        toi_accurate_batch_as(kind, &cs[i], len < n - i ? len : n - i, &got[i]);
    }
    for (size_t i = 0; i < n; i++)
      cr_assert(same(want[i], got[i]), "%s, case %zu (%s, dim %d), pass %d: batch %s %a, scalar %s %a", what, i,
                cs[i].id, cs[i].dim, pass, toi_class_name(got[i].cls), got[i].t, toi_class_name(want[i].cls),
                want[i].t);
  }
  toi_accurate_batch(cs, n, got);
  for (size_t i = 0; i < n; i++) cr_assert(same(want[i], got[i]), "%s, case %zu: toi_accurate_batch", what, i);
  free(want);
  free(got);
}

/* x in each lane j of a group of eight, the other lanes common cases of x's
   dimension from fill[0..63]; each group checked by check_batches (cs: room
   for the eight). */
static void check_in_every_lane(const toi_case *x, const toi_case *fill, toi_case *cs, const char *what) {
  for (int j = 0; j < 8; j++) {
    size_t n = 0;
    for (size_t f = 0; f < 64 && n < 8; f++)
      if (fill[f].dim == x->dim) cs[n++] = fill[f];
    cr_assert_eq(n, 8);
    cs[j] = *x;
    check_batches(cs, 8, what);
  }
}

static toi_case *family_cases(toi_gen_family f, int dim, size_t n) {
  toi_gen_opts o;
  toi_gen_opts_default(&o, f);
  o.seed = 29;
  o.dim = dim;
  toi_case *cs = malloc(n * sizeof *cs);
  size_t *bins = malloc(n * sizeof *bins);
  cr_assert(cs && bins);
  cr_assert_eq(toi_gen_cases(cs, bins, &o, 0, n, 0), TOI_OK);
  free(bins);
  return cs;
}

Test(accurate_batch, every_family_both_dims_and_mixed_batches) {
  for (int f = 0; f < TOI_GEN_FAMILY_COUNT; f++) {
    toi_case *c2 = family_cases((toi_gen_family)f, 2, AB_COUNT), *c3 = family_cases((toi_gen_family)f, 3, AB_COUNT);
    char what[64];
    snprintf(what, sizeof what, "%s dim 2", toi_gen_family_name((toi_gen_family)f));
    check_batches(c2, AB_COUNT, what);
    snprintf(what, sizeof what, "%s dim 3", toi_gen_family_name((toi_gen_family)f));
    check_batches(c3, AB_COUNT, what);
    /* Both dimensions interleaved in runs of 1 to 5: lanes of each dimension
       gathered across the other's. */
    toi_case *mix = malloc(2 * AB_COUNT * sizeof *mix);
    cr_assert(mix);
    size_t i2 = 0, i3 = 0, m = 0;
    uint64_t r = 12345;
    while (i2 < AB_COUNT || i3 < AB_COUNT) {
      r = r * 6364136223846793005u + 1442695040888963407u;
      size_t run = 1 + (size_t)(r >> 61) % 5;
      int three = (int)(r >> 40) & 1;
      for (size_t k = 0; k < run && (i2 < AB_COUNT || i3 < AB_COUNT); k++) {
        if (three && i3 < AB_COUNT)
          mix[m++] = c3[i3++];
        else if (i2 < AB_COUNT)
          mix[m++] = c2[i2++];
        else
          mix[m++] = c3[i3++];
      }
    }
    snprintf(what, sizeof what, "%s dims mixed", toi_gen_family_name((toi_gen_family)f));
    check_batches(mix, m, what);
    free(mix);
    free(c2);
    free(c3);
    toi_case *ca = family_cases((toi_gen_family)f, 0, AB_COUNT);
    snprintf(what, sizeof what, "%s dim any", toi_gen_family_name((toi_gen_family)f));
    check_batches(ca, AB_COUNT, what);
    free(ca);
  }
}

/* Calls of lengths about the batch's chunk of 64 cases and the sweep's 256
   (chunks whole and cut short, the lists carried from chunk to chunk, the
   next chunk prefetched up to the call's end), on the mixed family and on
   the scale family (cases guessed out of the common range) with both
   dimensions: each answer the scalar function's, bit for bit. */
Test(accurate_batch, calls_about_the_chunk_length) {
  static const size_t lens[] = {63, 64, 65, 127, 128, 129, 191, 256, 257, 300, 1, 72};
  const toi_gen_family fams[] = {TOI_GEN_MIXED, TOI_GEN_SCALE, TOI_GEN_TANGENT};
  const size_t n = 6000;
  toi_result *want = malloc(n * sizeof *want), *got = malloc(n * sizeof *got);
  cr_assert(want && got);
  for (size_t f = 0; f < sizeof fams / sizeof fams[0]; f++) {
    toi_case *cs = family_cases(fams[f], 0, n);
    for (size_t i = 0; i < n; i++) want[i] = toi_f_accurate(&cs[i]);
    for (int kind = 0; kind <= 2; kind++) {
      memset(got, 0xa5, n * sizeof *got);
      size_t k = 0;
      for (size_t i = 0, len = lens[0]; i < n; i += len, k++, len = lens[k % (sizeof lens / sizeof lens[0])])
        toi_accurate_batch_as(kind, &cs[i], len < n - i ? len : n - i, &got[i]);
      for (size_t i = 0; i < n; i++)
        cr_assert(same(want[i], got[i]), "%s, case %zu (dim %d), kernels %d: batch %s %a, scalar %s %a",
                  toi_gen_family_name(fams[f]), i, cs[i].dim, kind, toi_class_name(got[i].cls), got[i].t,
                  toi_class_name(want[i].cls), want[i].t);
    }
    free(cs);
  }
  free(want);
  free(got);
}

/* The lists' last cases, run as a group filled up with copies of its first
   case: batches of 8 to 40 cases drawn from a few cases only (one to
   five, so that the real lanes repeat too, beside the copies), from the
   tangent family (lanes whose sign of D the filter leaves unsure), the
   scale family (the kernel with scaling) and the mixed family (both
   dimensions listed), every case's answer the scalar function's. */
Test(accurate_batch, last_cases_in_groups_filled_with_copies) {
  const toi_gen_family fams[] = {TOI_GEN_TANGENT, TOI_GEN_SCALE, TOI_GEN_MIXED};
  enum { POOL = 400, MAXN = 40 };
  toi_case cs[MAXN];
  toi_result want[MAXN], got[MAXN];
  uint64_t r = 2029;
  for (size_t f = 0; f < sizeof fams / sizeof fams[0]; f++) {
    toi_case *pool = family_cases(fams[f], 0, POOL);
    for (int trial = 0; trial < 600; trial++) {
      r = r * 6364136223846793005u + 1442695040888963407u;
      const size_t n = 8 + (size_t)(r >> 33) % (MAXN - 7), distinct = 1 + (size_t)(r >> 20) % 5;
      const size_t first = (size_t)(r >> 45) % (POOL - distinct);
      for (size_t i = 0; i < n; i++) {
        r = r * 6364136223846793005u + 1442695040888963407u;
        cs[i] = pool[first + (size_t)(r >> 40) % distinct];
        want[i] = toi_f_accurate(&cs[i]);
      }
      for (int kind = 0; kind <= 2; kind++) {
        memset(got, 0xa5, sizeof got);
        toi_accurate_batch_as(kind, cs, n, got);
        for (size_t i = 0; i < n; i++)
          cr_assert(same(want[i], got[i]), "%s, trial %d, case %zu of %zu (%s), kernels %d: batch %s %a, scalar %s %a",
                    toi_gen_family_name(fams[f]), trial, i, n, cs[i].id, kind, toi_class_name(got[i].cls), got[i].t,
                    toi_class_name(want[i].cls), want[i].t);
      }
    }
    free(pool);
  }
}

/* Lengths and speeds between 2^-320 and 2^-140 (the scale family with
   --e -320:-140:10 --f -320:0), in both dimensions and mixed: the lanes
   whose largest length or speed is below 2^-150 take the kernel with
   scaling (common_range), the others the common path; every answer the
   scalar function's. */
Test(accurate_batch, tiny_differences_lanes) {
  toi_gen_opts o;
  toi_gen_opts_default(&o, TOI_GEN_SCALE);
  o.e = (toi_gen_range){-320, -140, 10};
  o.f = (toi_gen_range){-320, 0, 1};
  for (int dim = 0; dim <= 3; dim++) {
    if (dim == 1) continue;
    o.seed = 31 + (uint64_t)dim;
    o.dim = dim;
    toi_case *cs = malloc(AB_COUNT * sizeof *cs);
    size_t *bins = malloc(AB_COUNT * sizeof *bins);
    cr_assert(cs && bins);
    cr_assert_eq(toi_gen_cases(cs, bins, &o, 0, AB_COUNT, 0), TOI_OK);
    char what[64];
    snprintf(what, sizeof what, "tiny differences dim %d", dim);
    check_batches(cs, AB_COUNT, what);
    free(bins);
    free(cs);
  }
}

/* The kernel with scaling multiplies by 2^600 the lengths (velocities) of
   the lanes whose first coordinate of pA (vA) is nonzero and below 2^-900,
   before their differences: cases around that guess, each lane's answer
   the scalar function's. Lengths and speeds are drawn at scales from the
   subnormals to 2^500, pA's or vA's first coordinate apart from the rest
   (tiny or subnormal beside ordinary lengths: common lanes among those
   multiplied; beside lengths of 2^423 and more: lanes the product would
   overflow, or that scaled_body would scale down; or zero), in groups
   alone and beside the scale family's cases, whole and in short calls. */
Test(accurate_batch, tiny_inputs_multiplied_before_their_differences) {
  static const int scales[] = {-1074, -1060, -1040, -1000, -990, -950, -901, -899, -800,
                               -300,  -150,  0,     100,   300,  422,  423,  424,  500};
  const int ns = (int)(sizeof scales / sizeof scales[0]);
  const size_t n = 6000;
  toi_case *cs = malloc(2 * n * sizeof *cs), *sc = family_cases(TOI_GEN_SCALE, 0, n);
  cr_assert(cs && sc);
  uint64_t r = 777;
#define AB_NEXT() (r = r * 6364136223846793005u + 1442695040888963407u, r >> 11)
#define AB_UNIT() ((double)AB_NEXT() * 0x1p-53 * 2 - 1) /* [-1, 1) */
  for (size_t i = 0; i < n; i++) {
    toi_case *c = &cs[i];
    memset(c, 0, sizeof *c);
    snprintf(c->id, sizeof c->id, "tiny-%zu", i);
    c->dim = 2 + (int)(AB_NEXT() % 2);
    c->ma = c->mb = 1;
    const int ep = scales[AB_NEXT() % (uint64_t)ns], ev = scales[AB_NEXT() % (uint64_t)ns];
    for (int k = 0; k < c->dim; k++) {
      c->pa[k] = ldexp(8 * AB_UNIT(), ep);
      c->pb[k] = ldexp(8 * AB_UNIT(), ep);
      c->va[k] = ldexp(AB_UNIT(), ev);
      c->vb[k] = ldexp(AB_UNIT(), ev);
    }
    c->ra = ldexp(1 + AB_UNIT(), ep);
    c->rb = ldexp(1 + AB_UNIT(), ep);
    /* the first coordinates apart: tiny, subnormal, zero, or as drawn */
    static const double firsts[] = {0x1.8p-1000, 0x1.4p-960, 0x1p-901, 0x1.2p-1060, 0, NAN};
    const double fp = firsts[AB_NEXT() % 6], fv = firsts[AB_NEXT() % 6];
    if (!isnan(fp)) c->pa[0] = AB_NEXT() % 2 ? fp : -fp;
    if (!isnan(fv)) c->va[0] = AB_NEXT() % 2 ? fv : -fv;
    /* and B's too, now and then: a tiny first difference beside big ones,
       whose low part scaled_body's scaling down would lose */
    if (AB_NEXT() % 3 == 0) c->pb[0] = AB_NEXT() % 2 ? 0 : 3 * c->pa[0];
    if (AB_NEXT() % 3 == 0) c->vb[0] = AB_NEXT() % 2 ? 0 : 3 * c->va[0];
    /* aimed, now and then: B moving towards A */
    if (AB_NEXT() % 4 == 0)
      for (int k = 0; k < c->dim; k++) c->vb[k] = c->va[k] + (c->pa[k] - c->pb[k]) * ldexp(1, ev - ep);
  }
#undef AB_UNIT
#undef AB_NEXT
  check_batches(cs, n, "tiny inputs alone");
  for (size_t i = 0; i < n; i++) cs[n + i] = sc[i];
  for (size_t i = 0; i < n; i += 2) { /* interleaved with the scale family's */
    const toi_case t = cs[i + 1];
    cs[i + 1] = cs[n + i];
    cs[n + i] = t;
  }
  check_batches(cs, 2 * n, "tiny inputs beside the scale family");
  free(sc);
  free(cs);
}

/* The worst-case corpora of every formulation (accurate's and the others':
   cases near the limits of each kernel), and special inputs. */
Test(accurate_batch, worst_case_corpora_and_special_inputs) {
  size_t nf, n = 0, cap = 8192;
  const toi_formulation *fs = toi_formulations(&nf);
  toi_case *cs = malloc(cap * sizeof *cs);
  cr_assert(cs);
  for (size_t k = 0; k < nf; k++) {
    char path[4096], folder[128];
    snprintf(folder, sizeof folder, "%s", fs[k].name);
    for (char *c = folder; *c; c++)
      if (*c == '-') *c = '_';
    snprintf(path, sizeof path, "%s/src/formulations/%s/worst.cases", TOI_SOURCE_DIR, folder);
    FILE *in = fopen(path, "r");
    if (!in) continue;
    char line[2048];
    while (fgets(line, sizeof line, in)) {
      line[strcspn(line, "\r\n")] = 0;
      if (line[0] == '#' || line[strspn(line, " \t")] == 0) continue;
      int field;
      char msg[160];
      msg_text mt;
      toi_msg m = msg_text_sink(&mt, msg, sizeof msg);
      cr_assert(n < cap);
      cr_assert_eq(toi_parse_case_line(&cs[n], line, &field, &m), TOI_OK, "%s: %s", path, msg);
      n++;
    }
    fclose(in);
  }
  cr_assert_geq(n, 40, "the corpora hold at least 40 cases (%zu)", n);
  /* Each corpus case with its lengths and speeds times powers of two (the
     scaled path, t* times a power of two: its roots near midpoints too). */
  const double scales[][2] = {{0x1p200, 1}, {1, 0x1p-350}, {0x1p-500, 0x1p400}, {0x1p600, 0x1p-300}};
  const size_t ncorpus = n;
  for (size_t i = 0; i < ncorpus; i++)
    for (size_t k = 0; k < sizeof scales / sizeof scales[0] && n < cap; k++) {
      toi_case c = cs[i];
      for (int j = 0; j < 3; j++) {
        c.pa[j] *= scales[k][0], c.pb[j] *= scales[k][0];
        c.va[j] *= scales[k][1], c.vb[j] *= scales[k][1];
      }
      c.ra *= scales[k][0], c.rb *= scales[k][0];
      cs[n++] = c;
    }
  /* Special inputs in one lane among common ones: zeros, negative zeros,
     subnormals, huge and infinite values, NaN, each dimension. */
  const double sp[] = {0.0, -0.0, 0x1p-1074, -0x1p-1060, 0x1p-400, 1e300, -0x1.fffffffffffffp1023, INFINITY, NAN, 3.5};
  const size_t nsp = sizeof sp / sizeof sp[0];
  toi_case *base = family_cases(TOI_GEN_AIMED, 0, 64);
  for (size_t j = 0; j < 64 && n + 10 * nsp <= cap; j++)
    for (size_t s = 0; s < nsp; s++) {
      toi_case c = base[j];
      int k = (int)((j * 7 + s) % (size_t)(4 * c.dim + 2));
      double *x = k < 4 * c.dim ? (double *[]){c.pa, c.va, c.pb, c.vb}[k / c.dim] + k % c.dim : k == 4 * c.dim ? &c.ra : &c.rb;
      *x = sp[s];
      cs[n++] = c;
    }
  free(base);
  check_batches(cs, n, "worst cases and special inputs");
  free(cs);
}

/* A case from s = pB - pA (pA at the origin, offset by o in every
   component), v = vB - vA (vA = 0) and the radii. */
static toi_case exact_case(int dim, double o, const double s[3], const double v[3], double ra, double rb) {
  toi_case c;
  memset(&c, 0, sizeof c);
  snprintf(c.id, sizeof c.id, "exact");
  c.dim = dim;
  for (int i = 0; i < dim; i++) {
    c.pa[i] = o;
    c.pb[i] = o + s[i];
    c.vb[i] = v[i];
  }
  c.ra = ra, c.rb = rb, c.ma = c.mb = 1;
  return c;
}

/* Cases whose answers need exact values past the lanes' filter (c in
   integers: int_c; the sign of D in integers: int_d_sign), answered from
   the lanes' state by the scalar function's continuation where no lane of
   the batch goes on to b or to the root (batches of such cases only; among
   common hits, in every lane, the scalar function starts over), against
   answers known from the maths. */
Test(accurate_batch, exact_value_lanes) {
  const double L = 0x1p-40;
  struct {
    double s[3], v[3], ra, rb;
    toi_class cls;
    double t;
  } ex[] = {
      /* |s| = 10.05 closing along x with R = 1 at distance 1 from the line:
         D = b^2 - a c = 100 - 100 = 0 exactly, a graze at t = c / -b = 10 */
      {{10, 1, 0}, {-1, 0, 0}, 0.5, 0.5, TOI_GRAZE, 10},
      {{-4, 0.5, 0}, {1, 0, 0}, 0.25, 0.25, TOI_GRAZE, 4},
      /* gap 2^-40 closing at speed 1 (c = 2^-39 + 2^-80 to 2^-64 needs its
         integer value): a hit at t = 2^-40 */
      {{1 + L, 0, 0}, {-1, 0, 0}, 0.5, 0.5, TOI_HIT, L},
      {{0, -(2 + 2 * L), 0}, {0, 4, 0}, 1.5, 0.5, TOI_HIT, L / 2},
      /* touching (c = 0 exactly) and approaching: a contact at 0 */
      {{1, 0, 0}, {-1, 0, 0}, 0.75, 0.25, TOI_CONTACT, 0},
      /* touching and leaving: separating */
      {{0, 3, 0}, {0, 1, 0}, 2, 1, TOI_SEPARATING, NAN},
  };
  const size_t nex = sizeof ex / sizeof ex[0];
  toi_case *fill = family_cases(TOI_GEN_AIMED, 0, 64);
  toi_case cs[32];
  for (int dim = 2; dim <= 3; dim++)
    for (size_t e = 0; e < nex; e++)
      for (int off = 0; off < 2; off++) {
        /* (off: the whole case moved by 2^10, the differences unchanged) */
        toi_case x = exact_case(dim, off ? 1024 : 0, ex[e].s, ex[e].v, ex[e].ra, ex[e].rb);
        toi_result r = toi_f_accurate(&x);
        cr_assert(r.cls == ex[e].cls && (isnan(ex[e].t) ? isnan(r.t) : r.t == ex[e].t),
                  "exact case %zu dim %d: scalar %s %a, expected %s %a", e, dim, toi_class_name(r.cls), r.t,
                  toi_class_name(ex[e].cls), ex[e].t);
        /* in each lane of 8 among hits of the same dimension */
        for (int j = 0; j < 8; j++) {
          size_t m = 0;
          for (size_t f = 0; f < 64 && m < 8; f++)
            if (fill[f].dim == dim) {
              cs[m] = fill[f];
              m++;
            }
          cr_assert_eq(m, 8);
          cs[j] = x;
          check_batches(cs, 8, "an exact-value case among common ones");
        }
        /* batches of it alone, and of every exact case of the dimension */
        for (int j = 0; j < 8; j++) cs[j] = x;
        check_batches(cs, 8, "exact-value cases only");
        for (size_t k = 0; k < 16; k++)
          cs[k] = exact_case(dim, k % 2 ? 1024 : 0, ex[(e + k) % nex].s, ex[(e + k) % nex].v, ex[(e + k) % nex].ra,
                             ex[(e + k) % nex].rb);
        check_batches(cs, 16, "exact-value cases mixed");
      }
  free(fill);
}

/* A case from its inputs' first two or three components as given: pA, pB
   (the differences exact double-doubles, with a low part where pB and pA
   are far apart), vA = 0, vB = v, the radii. */
static toi_case parts_case(int dim, const double pa[3], const double pb[3], const double v[3], double ra, double rb) {
  toi_case c;
  memset(&c, 0, sizeof c);
  snprintf(c.id, sizeof c.id, "int-d");
  c.dim = dim;
  for (int i = 0; i < dim; i++) {
    c.pa[i] = pa[i];
    c.pb[i] = pb[i];
    c.vb[i] = v[i];
  }
  c.ra = ra, c.rb = rb, c.ma = c.mb = 1;
  return c;
}

/* The sign of D where the filter cannot settle it, in the lanes (integers
   modulo 2^64 where the filter's bound makes them exact) or left to the
   scalar function: s = (X, Y) or (X, 0, Y), v = (-w, 0, 0), so that
   D = w^2 (R^2 - Y^2) (Lagrange's identity: b^2 - a c = a R^2 - |s x v|^2):
   Y = R a graze at t = X / w, Y = R + e a miss, Y = R - e a hit, with
   spans from a few bits to past int_d_sign's 60, differences with a low
   part (pB and pA of different magnitudes), in every lane among common
   cases and in batches of such cases alone. */
Test(accurate_batch, int_d_lanes) {
  struct {
    double pa0, pb0;   /* X = pb0 - pa0 */
    double ra, rb, e;  /* R = ra + rb, Y = R + sigma e */
    double w;
  } g[] = {
      {0, 12345 * 0x1p-10, 20, 17, 0x1p-10, 4},          /* a few bits */
      {-3, 0x1p45, 0x1p20, 0x1p-20, 0x1p-20, 0x1p-3},     /* 66 bits: past int_d_sign's spans */
      {-1, 0x1p55, 1, 0.5, 0.125, 2},                     /* X = 2^55 + 1: a low part, 58 bits */
      {-0x1p-30, 0x1p20, 0x1.8p3, 0x1p-27, 0x1p-27, 0x1p-5}, /* a low part, 50 bits */
      {0, 0x1.fffffp40, 0x1.23p10, 0x1.4p9, 0x1p-9, 0x1.8p-7}, /* speed with two bits */
  };
  const size_t ng = sizeof g / sizeof g[0];
  toi_case *fill = family_cases(TOI_GEN_AIMED, 0, 64);
  toi_case cs[24];
  for (int dim = 2; dim <= 3; dim++)
    for (size_t k = 0; k < ng; k++)
      for (int sigma = -1; sigma <= 1; sigma++) {
        const double R = g[k].ra + g[k].rb, Y = R + sigma * g[k].e;
        cr_assert(Y - R == sigma * g[k].e && R - g[k].ra == g[k].rb, "the construction is exact");
        double pa[3] = {g[k].pa0, 0, 0}, pb[3] = {g[k].pb0, 0, 0}, v[3] = {-g[k].w, 0, 0};
        pb[dim - 1] = Y;
        toi_case x = parts_case(dim, pa, pb, v, g[k].ra, g[k].rb);
        toi_result r = toi_f_accurate(&x);
        const toi_class want = sigma < 0 ? TOI_HIT : sigma > 0 ? TOI_MISS : TOI_GRAZE;
        /* the graze's t = X / w: X correctly rounded (one addition), then
           divided by a power of two */
        const double t = (g[k].pb0 - g[k].pa0) / g[k].w;
        cr_assert(r.cls == want && (sigma || r.t == t), "case %zu dim %d sigma %d: scalar %s %a, expected %s %a", k,
                  dim, sigma, toi_class_name(r.cls), r.t, toi_class_name(want), t);
        check_in_every_lane(&x, fill, cs, "an unsure D among common cases");
      }
  /* batches of such cases only, each dimension, every construction */
  for (int dim = 2; dim <= 3; dim++) {
    size_t m = 0;
    for (size_t k = 0; k < ng; k++)
      for (int sigma = -1; sigma <= 1; sigma++) {
        double pa[3] = {g[k].pa0, 0, 0}, pb[3] = {g[k].pb0, 0, 0}, v[3] = {-g[k].w, 0, 0};
        pb[dim - 1] = g[k].ra + g[k].rb + sigma * g[k].e;
        cs[m++] = parts_case(dim, pa, pb, v, g[k].ra, g[k].rb);
      }
    check_batches(cs, m, "unsure D cases only");
  }
  free(fill);
}

/* Roots in the subnormal range, through the kernel with scaling: s = (d, 0)
   or (d, 0, 0) with d = R + N 2^-75, R = 2^-75, closing at |v| = 2^1000
   (1 + sigma 2^-60) (vA = sigma 2^940, vB = -2^1000: v an exact
   double-double), so t* = (d - R) / |v| = N 2^-1075 (1 - sigma 2^-60 +
   ...). On the grid of 2^-1074: N even gives N / 2 (its distance to that
   point is far below half a step), N odd lies on the midpoint (sigma = 0:
   an exact tie, to the even neighbour) or just below it (sigma = 1) or
   above (sigma = -1), where the low part of the root, not the tie rule,
   picks the side. Each answer from the maths; then the batch in batches of
   such cases alone and alternating with common ones (half the lanes out of
   range: every lane through the kernel with scaling), with N = 2^53 - 1 too,
   whose t* lies next to the grid's last midpoint 2^-1022 - 2^-1075: ties to
   even round it up to 2^-1022, and only the low part tells that t* is below
   it for sigma = 1. */
Test(accurate_batch, subnormal_roots_lanes) {
  const double N[] = {1, 2, 3, 5, 6, 7, 1000001, 0x1p40 + 1, 0x1p45 - 1, 0x1p53 - 1};
  const size_t nn = sizeof N / sizeof N[0];
  toi_case *fill = family_cases(TOI_GEN_AIMED, 0, 64);
  for (int dim = 2; dim <= 3; dim++) {
    toi_case cs[3 * sizeof N / sizeof N[0]], mix[6 * sizeof N / sizeof N[0]];
    size_t m = 0, f = 0;
    for (size_t k = 0; k < nn; k++)
      for (int sigma = -1; sigma <= 1; sigma++) {
        const double R = 0x1p-75, d = R + N[k] * 0x1p-75;
        cr_assert(d - R == N[k] * 0x1p-75, "the construction is exact");
        toi_case x;
        memset(&x, 0, sizeof x);
        snprintf(x.id, sizeof x.id, "sub-%zu-%d", k, sigma);
        x.dim = dim;
        x.pb[0] = d;
        x.va[0] = sigma * 0x1p940;
        x.vb[0] = -0x1p1000;
        x.ra = x.rb = R / 2;
        x.ma = x.mb = 1;
        /* the multiple q of 2^-1074 nearest t* */
        const double h = floor(N[k] / 2);
        double q = h;
        if (N[k] != 2 * h) q = sigma > 0 ? h : sigma < 0 ? h + 1 : fmod(h, 2) == 0 ? h : h + 1;
        const double want = q * 0x1p-1074;
        toi_result r = toi_f_accurate(&x);
        cr_assert(r.cls == TOI_HIT && r.t == want,
                  "N = %a, sigma %d, dim %d: scalar %s %a, expected hit %a", N[k], sigma, dim, toi_class_name(r.cls),
                  r.t, want);
        cs[m++] = x;
        while (fill[f].dim != dim) f = (f + 1) % 64;
        mix[2 * (m - 1)] = x;
        mix[2 * (m - 1) + 1] = fill[f];
        f = (f + 1) % 64;
      }
    check_batches(cs, m, "subnormal roots only");
    check_batches(mix, 2 * m, "subnormal roots among common cases");
  }
  free(fill);
}

/* Roots on, next to and near midpoints between doubles, in the kernel
   without scaling: head-on along an axis, pA = p, pB = X, vB = -V, rA = 3,
   rB = V kappa 2^-115, so that t* = (X - p - 3) / V - kappa 2^-115; with
   X = 3 + V (upper midpoint) or 3 + 2V (lower), p = -V (2^-53 + dp) or
   V (2^-53 - dp), t* = T + delta, delta = dp - kappa 2^-115, for T = 1 +
   2^-53, the midpoint above 1, or 2 - 2^-53, the one under 2 (half the step
   above it). delta = 0 is a tie (to the even neighbour: 1, 2); otherwise
   its sign picks the side: delta = +-2^-115 and +-2^-100 lie within the
   root's error bound (the scalar function decides the side exactly, the
   lanes must leave such cases to it), +-2^-80 and +-2^-62 outside (the
   lanes round them). p, rB and the differences are exact (V has a few
   bits), and so is T + delta; all of it times 2^j (positions and radii
   scaled: t* too). Each answer from the maths; then the batch with each
   case in every lane among common ones, and such cases alone. */
Test(accurate_batch, midpoint_roots_lanes) {
  const double V[] = {1, 3, 5, 7, 13};
  const struct {
    double dp, kappa;
  } dk[] = {{0, 0}, {0, 1}, {0x1p-100, 0x1p15 - 1}, {0x1p-100, 0x1p15 + 1}, {0x1p-100, 0x1p15}, {0x1p-100, 0},
            {-0x1p-100, 0}, {0x1p-100, 3}, {0x1p-80, 0}, {-0x1p-80, 0}, {0x1p-62, 0}, {-0x1p-62, 0}};
  const int js[] = {0, -40, 37};
  const size_t nv = sizeof V / sizeof V[0], nd = sizeof dk / sizeof dk[0];
  toi_case *fill = family_cases(TOI_GEN_AIMED, 0, 64);
  static toi_case all[2 * 3 * sizeof V / sizeof V[0] * sizeof dk / sizeof dk[0]];
  for (int dim = 2; dim <= 3; dim++) {
    size_t m = 0;
    for (int lower = 0; lower < 2; lower++)
      for (size_t jj = 0; jj < 3; jj++)
        for (size_t iv = 0; iv < nv; iv++)
          for (size_t k = 0; k < nd; k++) {
            const double sc = ldexp(1, js[jj]), v = V[iv], dp = dk[k].dp, eps = v * dk[k].kappa * 0x1p-115;
            const double X = lower ? 3 + 2 * v : 3 + v;
            const double p = lower ? v * (0x1p-53 - dp) : -v * (0x1p-53 + dp);
            cr_assert((0x1p-53 + dp) - 0x1p-53 == dp && fma(lower ? v : -v, lower ? 0x1p-53 - dp : 0x1p-53 + dp, -p) == 0 &&
                          eps / v == dk[k].kappa * 0x1p-115,
                      "the construction is exact");
            /* the neighbours of the midpoint T and the even one */
            const double below = lower ? 2 - 0x1p-52 : 1, above = lower ? 2 : 1 + 0x1p-52;
            const double kk = dk[k].kappa * 0x1p-115; /* delta = dp - kk */
            const double want = (dp > kk ? above : dp < kk ? below : lower ? above : below) * sc;
            toi_case x;
            memset(&x, 0, sizeof x);
            snprintf(x.id, sizeof x.id, "mid-%d-%zu-%zu-%zu", lower, jj, iv, k);
            x.dim = dim;
            x.pa[dim - 1] = p * sc;
            x.pb[dim - 1] = X * sc;
            x.vb[dim - 1] = -v;
            x.ra = 3 * sc;
            x.rb = eps * sc;
            x.ma = x.mb = 1;
            toi_result r = toi_f_accurate(&x);
            cr_assert(r.cls == TOI_HIT && r.t == want,
                      "V %g, dp %a, kappa %a, lower %d, 2^%d, dim %d: scalar %s %a, expected hit %a", v, dp,
                      dk[k].kappa, lower, js[jj], dim, toi_class_name(r.cls), r.t, want);
            toi_case cs[8];
            check_in_every_lane(&x, fill, cs, "a root near a midpoint among common cases");
            all[m++] = x;
          }
    check_batches(all, m, "roots near midpoints only");
  }
  free(fill);
}
