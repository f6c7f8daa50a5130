/* gen_cli.c: command-line options of the case families, shared by gen, sweep and hunt. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "sweep.h"

void gen_cli_init(gen_cli *g) {
  memset(g, 0, sizeof *g);
  g->family = -1;
}

/* Value of option `name` at argv[*i]: "--name VALUE" or "--name=VALUE".
   Returns NULL when argv[*i] is not that option; *missing is set when the
   value is absent. */
static const char *optval(int argc, char **argv, int *i, const char *name, int *missing) {
  size_t n = strlen(name);
  if (strncmp(argv[*i], name, n)) return NULL;
  if (argv[*i][n] == '=') return argv[*i] + n + 1;
  if (argv[*i][n]) return NULL;
  if (*i + 1 >= argc) {
    *missing = 1;
    return NULL;
  }
  return argv[++*i];
}

static int parse_int(const char *s, int *out) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (!*s || *end || errno || v < INT_MIN / 2 || v > INT_MAX / 2) return -1;
  *out = (int)v;
  return 0;
}

/* "LO:HI[:STEP]" or "V". */
static int parse_range(const char *s, toi_gen_range *r) {
  char buf[64];
  if (strlen(s) >= sizeof buf) return -1;
  snprintf(buf, sizeof buf, "%s", s);
  char *parts[3] = {buf, NULL, NULL};
  int n = 1;
  for (char *p = buf; *p; p++)
    if (*p == ':') {
      if (n == 3) return -1;
      *p = 0;
      parts[n++] = p + 1;
    }
  r->step = 1;
  if (parse_int(parts[0], &r->lo)) return -1;
  r->hi = r->lo;
  if (n >= 2 && parse_int(parts[1], &r->hi)) return -1;
  if (n == 3 && parse_int(parts[2], &r->step)) return -1;
  return 0;
}

static int parse_pair(const char *s, double *lo, double *hi) {
  char buf[128];
  if (strlen(s) >= sizeof buf) return -1;
  snprintf(buf, sizeof buf, "%s", s);
  char *colon = strchr(buf, ':');
  if (!colon) return -1;
  *colon = 0;
  return cli_parse_double(buf, lo) || cli_parse_double(colon + 1, hi) ? -1 : 0;
}

int gen_cli_option(gen_cli *g, const char *cmd, int argc, char **argv, int *i) {
  int missing = 0;
  const char *v;
  const char *a = argv[*i];
  if (a[0] != '-' || !a[1]) {
    if (g->family >= 0) return cli_usage_error(cmd, "unexpected argument '%s'", a), -1;
    toi_gen_family fam;
    if (toi_gen_family_parse(&fam, a) != TOI_OK) return cli_usage_error_near(cmd, CLI_NAMES_FAMILIES, a, "unknown family '%s'", a), -1;
    g->family = fam;
    return 1;
  }
#define OPT(name) ((v = optval(argc, argv, i, name, &missing)) != NULL || missing)
#define NEED(name)                                                              \
  if (missing) return cli_usage_error(cmd, "%s needs a value", name), -1
  if (OPT("--seed")) {
    NEED("--seed");
    unsigned long long s;
    if (cli_parse_u64(v, &s)) return cli_usage_error(cmd, "--seed: not an unsigned integer '%s'", v), -1;
    g->seed = s;
    g->has_seed = 1;
  } else if (OPT("--dim")) {
    NEED("--dim");
    if (!strcmp(v, "2")) g->dim = 2;
    else if (!strcmp(v, "3")) g->dim = 3;
    else if (!strcmp(v, "any")) g->dim = 0;
    else return cli_usage_error(cmd, "--dim must be 2, 3 or any, not '%s'", v), -1;
    g->has_dim = 1;
  } else if (OPT("--k")) {
    NEED("--k");
    if (parse_range(v, &g->k)) return cli_usage_error(cmd, "--k: expected LO:HI[:STEP], not '%s'", v), -1;
    g->has_k = 1;
  } else if (OPT("--e")) {
    NEED("--e");
    if (parse_range(v, &g->e)) return cli_usage_error(cmd, "--e: expected LO:HI[:STEP], not '%s'", v), -1;
    g->has_e = 1;
  } else if (OPT("--f")) {
    NEED("--f");
    if (parse_range(v, &g->f)) return cli_usage_error(cmd, "--f: expected LO:HI, not '%s'", v), -1;
    g->has_f = 1;
  } else if (OPT("--pos")) {
    NEED("--pos");
    if (cli_parse_double(v, &g->pos)) return cli_usage_error(cmd, "--pos: not a number '%s'", v), -1;
    g->has_pos = 1;
  } else if (OPT("--vel")) {
    NEED("--vel");
    if (cli_parse_double(v, &g->vel)) return cli_usage_error(cmd, "--vel: not a number '%s'", v), -1;
    g->has_vel = 1;
  } else if (OPT("--radius")) {
    NEED("--radius");
    if (parse_pair(v, &g->rlo, &g->rhi)) return cli_usage_error(cmd, "--radius: expected LO:HI, not '%s'", v), -1;
    g->has_radius = 1;
  } else if (OPT("--impact")) {
    NEED("--impact");
    if (parse_pair(v, &g->blo, &g->bhi)) return cli_usage_error(cmd, "--impact: expected LO:HI, not '%s'", v), -1;
    g->has_impact = 1;
  } else if (OPT("--sampling")) {
    NEED("--sampling");
    if (!strcmp(v, "real")) g->sampling = TOI_GEN_SAMPLE_REAL;
    else if (!strcmp(v, "bits")) g->sampling = TOI_GEN_SAMPLE_BITS;
    else return cli_usage_error(cmd, "--sampling must be real or bits, not '%s'", v), -1;
    g->has_sampling = 1;
  } else if (OPT("--precision")) {
    NEED("--precision");
    toi_precision q;
    if (toi_precision_parse(&q, v) != TOI_OK || (q != TOI_BINARY64 && q != TOI_BINARY32))
      return cli_usage_error(cmd, "--precision must be binary64 or binary32, not '%s'", v), -1;
    g->precision = q;
    g->has_precision = 1;
  } else {
    return 0;
  }
#undef OPT
#undef NEED
  return 1;
}

int gen_cli_build(const gen_cli *g, const char *cmd, toi_gen_family default_family, toi_gen_opts *o) {
  toi_gen_family fam = g->family >= 0 ? (toi_gen_family)g->family : default_family;
  toi_gen_opts_default_in(o, fam, g->has_precision ? g->precision : TOI_BINARY64);
  const char *name = toi_gen_family_name(fam);
  int k_ok = fam == TOI_GEN_GRAZING || fam == TOI_GEN_NEAR_CONTACT || fam == TOI_GEN_SLOW || fam == TOI_GEN_TANGENT;
  int e_ok = fam == TOI_GEN_FAR || fam == TOI_GEN_SCALE;
  int shape_ok = fam == TOI_GEN_GENERIC || fam == TOI_GEN_AIMED;
  struct {
    int given, ok;
    const char *opt;
  } apply[] = {{g->has_k, k_ok, "--k"},
               {g->has_e, e_ok, "--e"},
               {g->has_f, fam == TOI_GEN_SCALE, "--f"},
               {g->has_pos, shape_ok, "--pos"},
               {g->has_vel, shape_ok, "--vel"},
               {g->has_radius, shape_ok, "--radius"},
               {g->has_impact, fam == TOI_GEN_AIMED, "--impact"},
               {g->has_sampling, fam == TOI_GEN_GENERIC, "--sampling"}};
  for (size_t i = 0; i < sizeof apply / sizeof apply[0]; i++)
    if (apply[i].given && !apply[i].ok)
      return cli_usage_error(cmd, "%s does not apply to family %s", apply[i].opt, name), -1;
  if (g->has_seed) o->seed = g->seed;
  if (g->has_dim) o->dim = g->dim;
  if (g->has_k) o->k = g->k;
  if (g->has_e) o->e = g->e;
  if (g->has_f) o->f = g->f;
  if (g->has_pos) o->pos = g->pos;
  if (g->has_vel) o->vel = g->vel;
  if (g->has_radius) o->rlo = g->rlo, o->rhi = g->rhi;
  if (g->has_impact) o->blo = g->blo, o->bhi = g->bhi;
  if (g->has_sampling) o->sampling = g->sampling;
  char msg[160];
  cli_msg_text t;
  toi_msg m = cli_msg_into(&t, msg, sizeof msg);
  if (toi_gen_opts_check(o, &m) != TOI_OK) return cli_usage_error(cmd, "%s", msg), -1;
  if (toi_gen_bin_count(o) > SWEEP_MAXBINS)
    return cli_usage_error(cmd, "%zu parameter bins: at most %d (give a STEP)", toi_gen_bin_count(o),
                           SWEEP_MAXBINS), -1;
  return 0;
}

void gen_cli_help(FILE *f) {
  fprintf(f,
      "Families (s = pB - pA, v = vB - vA, R = rA + rB, D the exact discriminant;\n"
      "masses uniform in [0.5, 2]; bins of a sweep in brackets):\n"
      "  generic       pA, pB in [-P,P]^dim, vA, vB in [-V,V]^dim, radii in [RLO,RHI]\n"
      "                (--pos P = 10, --vel V = 5, --radius RLO:RHI = 0.1:2); --sampling\n"
      "                real (uniform over the reals, default) or bits (uniform over the\n"
      "                doubles of each range; --pos/--vel up to 1e300 reach the whole\n"
      "                double range) [one bin]\n"
      "  aimed         B aimed at A: pB = pA + R(d u + b w), u a random unit vector, w\n"
      "                perpendicular, d in [2,20], impact parameter b in [BLO,BHI] R\n"
      "                (--impact, default 0:1.25, ~80%% hits), closing speed in\n"
      "                [0.25,4], vA in [-1,1]^dim, pA in [-P,P]^dim [one bin]\n"
      "  grazing       impact parameter R(1 + sigma 2^-k), sigma = -1 (hit) or +1\n"
      "                (miss), k round-robin over --k (default 1:60, at most 1000).\n"
      "                Built exactly from dyadic data along Pythagorean directions, so\n"
      "                the exact D has the intended sign for every k [k]\n"
      "  near-contact  gap sigma R 2^-k at t = 0 (sigma = +1 apart, -1 overlapping),\n"
      "                approaching or leaving, --k default 1:60; exact sign of the gap\n"
      "                (approaching and apart: a hit with a tiny t*) [k]\n"
      "  far           an aimed case on the 2^-20 grid translated by an offset of\n"
      "                magnitude 10^e, --e default 0:15 (range -300:300); exact (class\n"
      "                kept) up to e = 9, rounded beyond [e]\n"
      "  scale         an aimed case with lengths times 2^e (--e, default\n"
      "                -1000:1000:50) and velocities times 2^f, f uniform over --f\n"
      "                (default -1000:1000): t* from subnormal to overflow [e]\n"
      "  slow          an aimed case with all velocities times 2^-k, --k default 10:60:\n"
      "                tiny relative speed against the separation [k]\n"
      "  tangent       exactly tangent trajectories (D = 0, class graze) from dyadic\n"
      "                data, then one random input moved k ulps, --k default 0:16\n"
      "                (k = 0: the exact tangent) [k]\n"
      "  mixed         the default suite, case i by i mod 16: generic 2, aimed 2,\n"
      "                grazing 3, near-contact 2, far 2, scale 2, slow 1, tangent 2,\n"
      "                each with its default options and a random parameter; --dim any\n"
      "                by default [one bin per sub-family]\n"
      "Binary32 (--precision binary32): every number of every case is a float and\n"
      "the families' parameters are in float terms:\n"
      "  generic, aimed  the same draws rounded to float; --sampling bits uniform\n"
      "                over the floats; --pos, --vel, radii at most 2^100\n"
      "  grazing, near-contact, tangent  the same exact constructions on grids\n"
      "                that fit 24-bit significands (lengths on 2^-15, speeds on\n"
      "                2^-17); the offset m n 2^-k stays a float while 15 + k <= 149,\n"
      "                so --k at most 134, default 1:31 (tangent: float ulps, 0:16)\n"
      "  far           positions on 2^-8, offsets floats; exact up to e = 4 (10^e +\n"
      "                2^7 < 2^16), --e default 0:8 (range -38:38)\n"
      "  scale         --e default -140:120:10, --f -140:120 (range -170:120): t*\n"
      "                from below the float subnormals to overflow\n"
      "  slow          --k default 10:31 (at most 134)\n"
      "  mixed         the same suite, each sub-family with its binary32 defaults\n"
      "Generator options:\n"
      "  --seed S        64-bit seed (default 1); case i depends only on (seed,\n"
      "                  family, options, i), whatever -j or --shard\n"
      "  --dim 2|3|any   dimension (default 2; mixed: any, 2 or 3 per case)\n"
      "  --k LO:HI[:STEP] --e LO:HI[:STEP] --f LO:HI   family parameters\n"
      "  --pos P --vel V --radius LO:HI --impact LO:HI --sampling real|bits\n"
      "  --precision binary64|binary32   the format of every number (default\n"
      "                  binary64)\n"
      "Case IDs name the family, its parameter and the index: grazing-k17-in-000123.\n"
      "Generation uses only + - * / sqrt and scalbn (exact or correctly rounded in\n"
      "IEEE 754; binary32 adds the correctly rounded conversion to float), so the\n"
      "same options give the same bytes on every machine.\n");
}
