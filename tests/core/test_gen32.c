/* test_gen32.c: the families in binary32: all floats, the promised classes, determinism, binary64 kept. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gen.h"
#include "precision.h"
#include "toi.h"
#include "toiref.h"
#include "cli_check.h"
#include "test_env.h"
#include "ref_forms.h"
#include "msg_text.h"

static uint64_t test_seed(void) { return te_seed(20250301u); }

/* Cases per family in the class tests: at least 10^4 (TOI_TEST_SCALE more). */
static int per_family(void) { return 10000 * (int)te_scale(); }

static toi_gen_opts opts32(toi_gen_family f, int dim) {
  toi_gen_opts o;
  toi_gen_opts_default_in(&o, f, TOI_BINARY32);
  o.seed = test_seed();
  o.dim = dim;
  return o;
}

static toi_class ref_class(const toi_case *c) {
  toi_ref r;
  cr_assert_eq(tr_solve(&r, c), TOI_OK, "reference failed on %s", c->id);
  return r.cls;
}

/* Every number of c (positions, velocities, radii, masses; all three
   components) is a finite binary32 value. */
static void assert_all_float(const toi_case *c) {
  const double *v[4] = {c->pa, c->va, c->pb, c->vb};
  for (int k = 0; k < 4; k++)
    for (int i = 0; i < 3; i++)
      cr_assert(toi_is_value_of(v[k][i], TOI_BINARY32) && isfinite(v[k][i]), "%s: vector %d[%d] = %a",
                c->id, k, i, v[k][i]);
  const double s[4] = {c->ra, c->rb, c->ma, c->mb};
  for (int k = 0; k < 4; k++)
    cr_assert(toi_is_value_of(s[k], TOI_BINARY32) && isfinite(s[k]), "%s: scalar %d = %a", c->id, k, s[k]);
}

/* The parameter written in the ID after the family name ("-k17-", "-e-3-"). */
static int id_param(const char *id, const char *fam, char letter) {
  const char *p = strstr(id, fam);
  cr_assert_not_null(p, "%s", id);
  p += strlen(fam);
  cr_assert(p[0] == '-' && p[1] == letter, "%s: no %c parameter", id, letter);
  return atoi(p + 2);
}

/* The position of a float in the ordered floats (+0 and -0 both 0). */
static int64_t f_ord(double x) {
  float f = (float)x;
  int32_t i;
  memcpy(&i, &f, sizeof i);
  return i >= 0 ? i : -(int64_t)(i & INT32_MAX);
}

/* Tangent: the base is exactly tangent; the case moves one input by k float ulps. */
static void check_tangent(const toi_case *c, const toi_case *base, int k) {
  cr_assert_eq(ref_class(base), TOI_GRAZE, "%s: the base is a graze", c->id);
  assert_all_float(base);
  toi_case cc = *c, bb = *base;
  int differ = 0;
  int64_t dist = 0;
  for (int i = 0; i < gen_case_input_count(&cc); i++) {
    double x = *gen_case_input(&cc, i), y = *gen_case_input(&bb, i);
    if (x != y) differ++, dist = f_ord(x) - f_ord(y);
  }
  if (k == 0) {
    cr_assert_eq(differ, 0, "%s", c->id);
    cr_assert_eq(ref_class(c), TOI_GRAZE, "%s: the exact tangent", c->id);
  } else {
    cr_assert_eq(differ, 1, "%s: %d inputs moved", c->id, differ);
    cr_assert(dist == k || dist == -k, "%s: moved %lld float ulps, not %d", c->id, (long long)dist, k);
  }
}

/* Far: up to e = 4 the translation keeps s = pB - pA exactly, so the class. */
static void check_far(const toi_case *c, const toi_case *base, int e) {
  assert_all_float(base);
  if (e > 4) return;
  for (int d = 0; d < c->dim; d++) {
    /* Exact when p + O - O gives p back with both sums exact: compare the
       differences, all on the 2^-8 grid below 2^16, so exact in double. */
    cr_assert_eq(c->pb[d] - c->pa[d], base->pb[d] - base->pa[d], "%s: s moved at e = %d", c->id, e);
  }
  cr_assert_eq(ref_class(c), ref_class(base), "%s: class of the base", c->id);
}

/* Scale: when every scaling was exact, the class is the base's. */
static void check_scale(const toi_case *c, const toi_case *base, int e, int f) {
  assert_all_float(base);
  int exact = 1;
  for (int d = 0; d < c->dim; d++) {
    exact &= scalbn(c->pa[d], -e) == base->pa[d] && scalbn(c->pb[d], -e) == base->pb[d];
    exact &= scalbn(c->va[d], -f) == base->va[d] && scalbn(c->vb[d], -f) == base->vb[d];
  }
  exact &= scalbn(c->ra, -e) == base->ra && scalbn(c->rb, -e) == base->rb;
  if (exact) cr_assert_eq(ref_class(c), ref_class(base), "%s: class of the base", c->id);
}

/* The class family fam promises for case c (base: before the last step). */
static void check_promise(const toi_case *c, const toi_case *base, toi_gen_family fam) {
  const char *name = toi_gen_family_name(fam);
  assert_all_float(c);
  switch (fam) {
    case TOI_GEN_GRAZING: {
      int in = strstr(c->id, "-in-") != NULL;
      cr_assert(in || strstr(c->id, "-out-"), "%s", c->id);
      cr_assert_eq(ref_class(c), in ? TOI_HIT : TOI_MISS, "%s: class", c->id);
      break;
    }
    case TOI_GEN_NEAR_CONTACT: {
      int gap = strstr(c->id, "-gap-") != NULL, app = strstr(c->id, "-app-") != NULL;
      toi_class want = !gap ? TOI_OVERLAP : app ? TOI_HIT : TOI_SEPARATING;
      cr_assert_eq(ref_class(c), want, "%s: class", c->id);
      break;
    }
    case TOI_GEN_TANGENT: check_tangent(c, base, id_param(c->id, name, 'k')); break;
    case TOI_GEN_FAR: check_far(c, base, id_param(c->id, name, 'e')); break;
    case TOI_GEN_SCALE: {
      const char *fp = strstr(strstr(c->id, name) + strlen(name) + 2, "-f");
      cr_assert_not_null(fp, "%s", c->id);
      check_scale(c, base, id_param(c->id, name, 'e'), atoi(fp + 2));
      break;
    }
    default: (void)ref_class(c); /* a legal case: the class is the reference's */
  }
}

typedef struct fam_param {
  int family;
} fam_param;

ParameterizedTestParameters(gen32, every_number_a_float_and_the_class_promised) {
  static fam_param p[TOI_GEN_FAMILY_COUNT];
  for (int f = 0; f < TOI_GEN_FAMILY_COUNT; f++) p[f].family = f;
  return cr_make_param_array(fam_param, p, TOI_GEN_FAMILY_COUNT);
}

ParameterizedTest(fam_param *p, gen32, every_number_a_float_and_the_class_promised) {
  toi_gen_opts o = opts32((toi_gen_family)p->family, 0);
  size_t nb = toi_gen_bin_count(&o);
  size_t *seen = calloc(nb, sizeof *seen);
  cr_assert_not_null(seen);
  int n = per_family();
  for (int i = 0; i < n; i++) {
    toi_case c, base;
    size_t b;
    cr_assert_eq(toi_gen_case(&c, &base, &b, &o, (uint64_t)i), TOI_OK);
    cr_assert_lt(b, nb);
    seen[b]++;
    toi_gen_family fam = o.family == TOI_GEN_MIXED ? (toi_gen_family)b : o.family;
    check_promise(&c, &base, fam);
  }
  for (size_t b = 0; b < nb; b++)
    cr_assert_gt(seen[b], 0, "%s: bin %zu empty", toi_gen_family_name(o.family), b);
  free(seen);
}

typedef struct deep_param {
  int family, dim;
} deep_param;

ParameterizedTestParameters(gen32, deep_k_up_to_the_float_limit) {
  static deep_param p[] = {{TOI_GEN_GRAZING, 2}, {TOI_GEN_GRAZING, 3}, {TOI_GEN_NEAR_CONTACT, 2}, {TOI_GEN_NEAR_CONTACT, 3}};
  return cr_make_param_array(deep_param, p, sizeof p / sizeof p[0]);
}

/* k from p + 8 to 134 (the limit: m n 2^-k on the 2^-(15+k) grid stays a
   float down to 2^-149); the offset falls into the float subnormals. */
ParameterizedTest(deep_param *p, gen32, deep_k_up_to_the_float_limit) {
  toi_gen_opts o = opts32((toi_gen_family)p->family, p->dim);
  o.k = (toi_gen_range){32, 134, 1};
  int n = 2060 * (int)te_scale(), subnormal = 0;
  for (int i = 0; i < n; i++) {
    toi_case c;
    size_t b;
    cr_assert_eq(toi_gen_case(&c, NULL, &b, &o, (uint64_t)i), TOI_OK);
    check_promise(&c, NULL, o.family);
    for (int d = 0; d < c.dim; d++) subnormal |= c.pa[d] != 0 && fabs(c.pa[d]) < FLT_MIN;
    subnormal |= c.pb[0] != 0 && fabs(c.pb[0]) < FLT_MIN; /* after the swap */
  }
  cr_assert(subnormal, "deep k reaches the float subnormals");
  char msg[160];
  msg_text mt;
  toi_msg m = msg_text_sink(&mt, msg, sizeof msg);
  o.k = (toi_gen_range){1, 135, 1};
  cr_assert_eq(toi_gen_opts_check(&o, &m), TOI_ERR_RANGE, "k = 135 is past the float limit");
}

Test(gen32, generic_bits_uniform_over_floats) {
  toi_gen_opts o = opts32(TOI_GEN_GENERIC, 3);
  o.sampling = TOI_GEN_SAMPLE_BITS;
  o.pos = 0x1p100;
  int n = 4000, tiny = 0;
  for (int i = 0; i < n; i++) {
    toi_case c;
    size_t b;
    cr_assert_eq(toi_gen_case(&c, NULL, &b, &o, (uint64_t)i), TOI_OK);
    assert_all_float(&c);
    for (int d = 0; d < 3; d++) cr_assert(fabs(c.pa[d]) <= 0x1p100 && fabs(c.va[d]) <= 5);
    cr_assert(c.ra >= (float)0.1 && c.ra <= 2, "%a", c.ra);
    tiny += fabs(c.pa[0]) < 0x1p-100;
    (void)ref_class(&c);
  }
  /* Floats of [0, 2^100]: 226 binades and the subnormals (one binade's worth
     of floats); 27 of those 227 lie below 2^-100, about 12% (in doubles it
     would be about 82%, over the reals 2^-200). */
  cr_assert(tiny > n * 9 / 100 && tiny < n * 15 / 100, "%d of %d below 2^-100", tiny, n);
  o.pos = 0x1p101;
  char msg[160];
  msg_text mt;
  toi_msg m = msg_text_sink(&mt, msg, sizeof msg);
  cr_assert_eq(toi_gen_opts_check(&o, &m), TOI_ERR_RANGE);
}

/* Scale reaches roots below the float normals and above FLT_MAX. */
Test(gen32, scale_reaches_float_subnormal_and_overflowing_roots) {
  toi_gen_opts o = opts32(TOI_GEN_SCALE, 2);
  int small = 0, huge = 0;
  for (int i = 0; i < 4000; i++) {
    toi_case c;
    size_t b;
    cr_assert_eq(toi_gen_case(&c, NULL, &b, &o, (uint64_t)i), TOI_OK);
    toi_ref r;
    cr_assert_eq(tr_solve(&r, &c), TOI_OK);
    if (r.cls != TOI_HIT) continue;
    small += r.tfwd > 0 && r.tfwd < FLT_MIN;
    huge += r.tfwd > FLT_MAX;
  }
  cr_assert(small > 0 && huge > 0, "%d subnormal, %d overflowing roots", small, huge);
}

Test(gen32, limits_of_the_parameters) {
  char msg[160];
  msg_text mt;
  toi_msg m = msg_text_sink(&mt, msg, sizeof msg);
  toi_gen_opts o = opts32(TOI_GEN_SCALE, 2);
  o.e = (toi_gen_range){0, 121, 1};
  cr_assert_eq(toi_gen_opts_check(&o, &m), TOI_ERR_RANGE);
  o.e = (toi_gen_range){-170, 120, 10};
  o.f = o.e;
  cr_assert_eq(toi_gen_opts_check(&o, &m), TOI_OK, "%s", msg);
  o = opts32(TOI_GEN_FAR, 2);
  o.e = (toi_gen_range){-38, 38, 1};
  cr_assert_eq(toi_gen_opts_check(&o, &m), TOI_OK, "%s", msg);
  for (int i = 0; i < 77 * 4; i++) {
    toi_case c, base;
    size_t b;
    cr_assert_eq(toi_gen_case(&c, &base, &b, &o, (uint64_t)i), TOI_OK);
    assert_all_float(&c);
    (void)ref_class(&c);
  }
  o.e = (toi_gen_range){0, 39, 1};
  cr_assert_eq(toi_gen_opts_check(&o, &m), TOI_ERR_RANGE);
  o = opts32(TOI_GEN_SLOW, 3);
  o.k = (toi_gen_range){1, 134, 1};
  for (int i = 0; i < 134 * 2; i++) {
    toi_case c;
    size_t b;
    cr_assert_eq(toi_gen_case(&c, NULL, &b, &o, (uint64_t)i), TOI_OK);
    assert_all_float(&c);
    (void)ref_class(&c);
  }
}

ParameterizedTestParameters(gen32, deterministic_and_order_free) {
  static fam_param p[TOI_GEN_FAMILY_COUNT];
  for (int f = 0; f < TOI_GEN_FAMILY_COUNT; f++) p[f].family = f;
  return cr_make_param_array(fam_param, p, TOI_GEN_FAMILY_COUNT);
}

ParameterizedTest(fam_param *p, gen32, deterministic_and_order_free) {
  toi_gen_opts o = opts32((toi_gen_family)p->family, 0);
  enum { N = 300 };
  static toi_case fwd[N];
  for (int i = 0; i < N; i++) {
    size_t b;
    cr_assert_eq(toi_gen_case(&fwd[i], NULL, &b, &o, (uint64_t)i), TOI_OK);
    cr_assert(toi_id_valid(fwd[i].id), "invalid ID %s", fwd[i].id);
  }
  /* Case i alone, backwards: the same bits. */
  for (int i = N - 1; i >= 0; i--) {
    toi_case c;
    size_t b;
    cr_assert_eq(toi_gen_case(&c, NULL, &b, &o, (uint64_t)i), TOI_OK);
    cr_assert_eq(memcmp(&c, &fwd[i], sizeof c), 0, "case %d differs", i);
  }
  /* binary32 is its own stream, not the binary64 cases rounded. */
  toi_gen_opts d;
  toi_gen_opts_default(&d, o.family);
  d.seed = o.seed;
  d.dim = o.dim;
  toi_case c;
  size_t b;
  cr_assert_eq(toi_gen_case(&c, NULL, &b, &d, 7), TOI_OK);
  cr_assert_neq(memcmp(c.pb, fwd[7].pb, sizeof c.pb), 0);
}

/* ---- binary64 keeps its bytes ---- */

/* FNV-1a of what `toibench gen FAMILY --dim 3 --count 300 --seed 11` wrote
   before precisions existed (header line included). */
static const struct {
  const char *family;
  uint64_t hash;
} b64_hashes[] = {
    {"generic", 0xc504e8a92ca58bd3u}, {"aimed", 0x3de5604a799fd541u}, {"grazing", 0x3ff4802eb6249761u},
    {"near-contact", 0x13290d43acf4e74eu}, {"far", 0x4aed57dd7996a9b2u}, {"scale", 0x2906cecccd59ce6bu},
    {"slow", 0xb9a97986f2da0220u}, {"tangent", 0xe8e2d11479136aa6u}, {"mixed", 0x49168d7f8c4118dfu},
};

static uint64_t fnv1a(uint64_t h, const char *s, size_t n) {
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 0x100000001b3u;
  return h;
}

/* The bytes cmd_gen writes for o, cases 0..count-1, hashed. */
static uint64_t gen_file_hash(const toi_gen_opts *o, int count) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  cr_assert_not_null(f);
  char desc[512];
  toi_gen_opts_format(desc, sizeof desc, o);
  fprintf(f, "# toibench gen %s start=0 count=%d\n", desc, count);
  for (int i = 0; i < count; i++) {
    toi_case c;
    size_t b;
    cr_assert_eq(toi_gen_case(&c, NULL, &b, o, (uint64_t)i), TOI_OK);
    cr_assert_eq(toi_write_case(f, &c), TOI_OK);
  }
  fclose(f);
  uint64_t h = fnv1a(0xcbf29ce484222325u, buf, len);
  free(buf);
  return h;
}

Test(gen32, binary64_bytes_unchanged) {
  for (size_t k = 0; k < sizeof b64_hashes / sizeof b64_hashes[0]; k++) {
    toi_gen_family fam;
    cr_assert_eq(toi_gen_family_parse(&fam, b64_hashes[k].family), TOI_OK, "%s", b64_hashes[k].family);
    toi_gen_opts o, q;
    toi_gen_opts_default(&o, fam);
    toi_gen_opts_default_in(&q, fam, TOI_BINARY64);
    cr_assert_eq(memcmp(&o, &q, sizeof o), 0, "%s: default and explicit binary64", b64_hashes[k].family);
    o.seed = 11;
    o.dim = 3;
    cr_assert_eq(gen_file_hash(&o, 300), b64_hashes[k].hash, "%s: binary64 bytes changed",
                 b64_hashes[k].family);
    char desc[512];
    toi_gen_opts_format(desc, sizeof desc, &o);
    cr_assert_null(strstr(desc, "precision"), "%s", desc);
    o.precision = TOI_BINARY32;
    toi_gen_opts_format(desc, sizeof desc, &o);
    cr_assert_not_null(strstr(desc, " precision=binary32"), "%s", desc);
  }
}

/* ---- the command ---- */

Test(gen32, command_precision_option) {
  cc_out *r = cc_run(NULL, "gen grazing --precision binary32 --count 40 --seed 5");
  cr_assert_eq(r->status, 0, "%s", r->err);
  cr_assert(!strncmp(r->out, "# toibench gen family=grazing seed=5 dim=2 precision=binary32 k=1:31:1 ",
                     strlen("# toibench gen family=grazing seed=5 dim=2 precision=binary32 k=1:31:1 ")),
            "header names the precision and the binary32 k range: %.200s", r->out);
  const char *bad[] = {"gen grazing --precision binary16", "gen grazing --precision binary32 --k 1:135",
                       "gen scale --precision binary32 --e 0:200", "gen far --precision binary32 --e 40",
                       "gen aimed --precision binary32 --pos 1e31", "gen mixed --precision"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    cr_assert_eq(cc_run(NULL, bad[i])->status, 2, "%s: usage error", bad[i]);
  static char plain[sizeof r->out];
  r = cc_run(NULL, "gen grazing --count 50");
  cr_assert_eq(r->status, 0);
  memcpy(plain, r->out, sizeof plain);
  r = cc_run(NULL, "gen grazing --precision binary64 --count 50");
  cr_assert_eq(r->status, 0);
  cr_assert_str_eq(r->out, plain, "--precision binary64 is the default, byte for byte");
  r = cc_run(NULL, "gen --help");
  cr_assert(strstr(r->out, "--precision binary64|binary32"), "--help documents --precision");
}
