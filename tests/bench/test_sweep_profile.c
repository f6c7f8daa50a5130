/* test_sweep_profile.c: `toibench sweep --profile`: lines that parse, shares that add up, results unchanged. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli_check.h"
#include "sweep.h"
#include "test_env.h"

static char sp_dir[64];

static void sp_setup(void) {
  snprintf(sp_dir, sizeof sp_dir, "/tmp/toisweepprofXXXXXX");
  cr_assert_not_null(mkdtemp(sp_dir));
}

static void sp_teardown(void) { cc_rmtree(sp_dir); }

TestSuite(sweep_profile, .init = sp_setup, .fini = sp_teardown);

/* sp_dir/name, in one of four slots. */
static const char *sp_path(const char *name) {
  static char slots[4][128];
  static int next;
  char *p = slots[next++ % 4];
  snprintf(p, sizeof slots[0], "%s/%s", sp_dir, name);
  return p;
}

/* The words of the "formulations" line of a result file, in order, into names; their count. */
static int result_columns(const char *text, char names[][64], int max) {
  const char *l = strstr(text, "\nformulations ");
  cr_assert_not_null(l, "no formulations line");
  l += strlen("\nformulations ");
  int n = 0;
  while (*l && *l != '\n') {
    size_t w = strcspn(l, " \n");
    cr_assert_lt(n, max);
    cr_assert_lt(w, (size_t)64);
    memcpy(names[n], l, w);
    names[n++][w] = 0;
    l += w;
    if (*l == ' ') l++;
  }
  return n;
}

/* One parsed part line: "sweep profile: PART NAME SEC s SHARE% SPEED cases/s". */
typedef struct sp_part {
  char part[32], name[64];
  double sec, share, speed;
} sp_part;

/* The profile on stderr: the header's cases, threads and summed seconds, and the part lines in order. */
static int parse_profile(const char *err, unsigned long long *cases, int *threads, double *sum, sp_part *parts,
                         int max) {
  const char *h = strstr(err, "sweep profile: ");
  cr_assert_not_null(h, "no profile on stderr: %s", err);
  double wall;
  char th[16];
  cr_assert_eq(sscanf(h, "sweep profile: %llu cases on %d %15s %lf s wall, %lf s summed over the threads", cases,
                      threads, th, &wall, sum),
               5, "header line does not parse: %.200s", h);
  cr_assert(wall > 0 && *sum > 0);
  int n = 0;
  for (const char *l = strchr(h, '\n'); l && (l = strstr(l, "sweep profile: ")); l = strchr(l, '\n')) {
    cr_assert_lt(n, max);
    sp_part *p = &parts[n++];
    char pct, unit[16];
    int got = sscanf(l, "sweep profile: %31s %63s %lf s %lf%c %lf %15s", p->part, p->name, &p->sec, &p->share, &pct,
                     &p->speed, unit);
    cr_assert_eq(got, 7, "part line does not parse: %.200s", l);
    cr_assert_eq(pct, '%');
    cr_assert_str_eq(unit, "cases/s");
    cr_assert(p->sec >= 0 && p->share >= 0 && p->share <= 100 && p->speed >= 0, "%.200s", l);
  }
  return n;
}

/* Every part is there in order (gen, reference, one candidate per column, scoring), the shares add up to
   100% and the seconds to the header's sum, within the rounding of the printed figures. */
static void check_profile(const char *err, const char *result, unsigned long long count, int jobs) {
  char cols[70][64];
  int nc = result_columns(result, cols, 70);
  sp_part parts[80];
  unsigned long long cases;
  int threads;
  double sum;
  int n = parse_profile(err, &cases, &threads, &sum, parts, 80);
  cr_assert_eq(cases, count);
  cr_assert_eq(threads, jobs);
  cr_assert_eq(n, nc + 3, "%d part lines for %d columns", n, nc);
  cr_assert_str_eq(parts[0].part, "gen");
  cr_assert_str_eq(parts[1].part, "reference");
  for (int j = 0; j < nc; j++) {
    cr_assert_str_eq(parts[2 + j].part, "candidate");
    cr_assert_str_eq(parts[2 + j].name, cols[j]);
  }
  cr_assert_str_eq(parts[n - 1].part, "scoring");
  double share = 0, sec = 0;
  for (int k = 0; k < n; k++) {
    share += parts[k].share;
    sec += parts[k].sec;
  }
  /* each share is rounded to 0.05%, each time to 0.0005 s */
  cr_assert(share > 100 - 0.05 * n - 1e-9 && share < 100 + 0.05 * n + 1e-9, "shares sum to %g%%", share);
  cr_assert(sec > sum - 0.0005 * (n + 1) && sec < sum + 0.0005 * (n + 1), "seconds %g, header %g", sec, sum);
  /* the generator, the reference and the scoring do real work on every case: a
     speed (from the unrounded time) each */
  cr_assert(parts[0].speed > 0 && parts[1].speed > 0 && parts[n - 1].speed > 0);
}

/* The same sweep with and without --profile, on one and two threads: the same bytes. */
static void same_with_profile(const char *sweep, unsigned long long count) {
  char args[1024];
  snprintf(args, sizeof args, "%s --quiet -j1 -o %s", sweep, sp_path("plain"));
  cr_assert_eq(cc_run(NULL, args)->status, 0);
  char *plain = cc_slurp(sp_path("plain"), NULL);
  for (int jobs = 1; jobs <= 2; jobs++) {
    snprintf(args, sizeof args, "%s --quiet -j%d --profile -o %s", sweep, jobs, sp_path("prof"));
    cc_out *r = cc_run(NULL, args);
    cr_assert_eq(r->status, 0, "%s: %s", args, r->err);
    char *prof = cc_slurp(sp_path("prof"), NULL);
    cr_assert_str_eq(prof, plain, "%s: the result differs with --profile", args);
    check_profile(r->err, prof, count, jobs);
    free(prof);
  }
  free(plain);
}

Test(sweep_profile, every_formulation_mixed) {
  char sweep[256];
  snprintf(sweep, sizeof sweep, "sweep mixed --count 6000 --seed %llu", (unsigned long long)te_seed(1));
  same_with_profile(sweep, 6000);
}

Test(sweep_profile, shard_and_family) {
  /* --shard 2/3 of 9001 cases: 3000 of them (the 1st shard takes the remainder) */
  char sweep[256];
  snprintf(sweep, sizeof sweep, "sweep grazing --count 9001 --shard 2/3 --seed %llu -f expanded,accurate,phet-reverse",
           (unsigned long long)te_seed(2));
  same_with_profile(sweep, 3000);
}

Test(sweep_profile, stdout_unchanged) {
  cc_out *r = cc_run(NULL, "sweep aimed --count 3000 --quiet -j2 -f ericson,accurate");
  cr_assert_eq(r->status, 0);
  size_t n = strlen(r->out);
  cr_assert_lt(n, sizeof r->out - 1, "result cut short");
  char *plain = strdup(r->out);
  r = cc_run(NULL, "sweep aimed --count 3000 --quiet -j2 -f ericson,accurate --profile");
  cr_assert_eq(r->status, 0);
  cr_assert_str_eq(r->out, plain);
  cr_assert_null(strstr(r->out, "profile"), "the profile goes to stderr only");
  check_profile(r->err, plain, 3000, 2);
  free(plain);
}

Test(sweep_profile, with_a_solver_command) {
  /* An out-of-process column goes block by block: its calls are profiled too. */
  char sweep[512];
  snprintf(sweep, sizeof sweep, "sweep aimed --count 2500 --seed %llu -f robust --solver-cmd '%s'",
           (unsigned long long)te_seed(3),
           cc_built("examples/solver_c"));
  same_with_profile(sweep, 2500);
}

Test(sweep_profile, checkpointed_run) {
  char args[512];
  snprintf(args, sizeof args, "sweep slow --count 40000 --quiet -j2 -f ericson --profile --checkpoint %s -o %s",
           sp_path("ck"), sp_path("out"));
  cc_out *r = cc_run(NULL, args);
  cr_assert_eq(r->status, 0, "%s", r->err);
  char *res = cc_slurp(sp_path("out"), NULL);
  check_profile(r->err, res, 40000, 2);
  free(res);
}

/* The ratio as sweep.h defines it, |T - t*| / (kappa 2^-p |t*| + 2^(emin-p)) in units of ulp(t*) = 2^ue,
   computed with ldexp throughout. */
static double ratio_by_definition(double ulp, double t, double kappa, int p, int emin) {
  int e;
  double m = frexp(fabs(t), &e);
  int ue = (e - 1 < emin ? emin : e - 1) - (p - 1);
  return ulp / (kappa * ldexp(m, e - p - ue) + ldexp(1, emin - p - ue));
}

/* xorshift64*, for inputs spread over every exponent */
static uint64_t sp_next(uint64_t *s) {
  *s ^= *s >> 12, *s ^= *s << 25, *s ^= *s >> 27;
  return *s * 0x2545F4914F6CDD1DULL;
}

static double sp_double(uint64_t *s) {
  uint64_t b = sp_next(s) & 0x7fefffffffffffffULL; /* finite, >= 0 */
  double d;
  memcpy(&d, &b, sizeof d);
  return d;
}

Test(sweep_profile, ratio_bits_as_defined) {
  uint64_t s = 0x9e3779b97f4a7c15ULL ^ (uint64_t)te_seed(4);
  const double edge[] = {0x1p-1074, 0x1.8p-1074, 0x1p-1022, 0x1.fffffffffffffp-1023, 0x1p-149, 0x1p-126, 1, 0x1p1023,
                         0x1.fffffffffffffp1023, 0x1p-1000, 0x1p50, 0x1.8p-1060};
  for (int i = 0; i < 400000; i++) {
    double t = i < 12 * 12 ? edge[i % 12] : sp_double(&s);
    double kappa = i < 12 * 12 ? edge[i / 12] : (i & 1) ? sp_double(&s) : ldexp((double)(sp_next(&s) >> 40), -20);
    double ulp = i < 12 * 12 ? 0x1p-60 : (i & 2) ? (double)(sp_next(&s) >> 44) / 16 : sp_double(&s);
    if (t == 0 || !(kappa > 0) || ulp == 0 || !isfinite(kappa)) continue;
    double want = ratio_by_definition(ulp, t, kappa, 53, -1022), got = sweep_ratio(ulp, t, kappa);
    cr_assert(memcmp(&want, &got, sizeof got) == 0, "ratio(%a, %a, %a) = %a, by definition %a", ulp, t, kappa, got,
              want);
    double w32 = ratio_by_definition(ulp, t, kappa, 24, -126), g32 = sweep_ratio_prec(ulp, t, kappa, TOI_BINARY32);
    cr_assert(memcmp(&w32, &g32, sizeof g32) == 0, "binary32 ratio(%a, %a, %a) = %a, by definition %a", ulp, t, kappa,
              g32, w32);
  }
}
