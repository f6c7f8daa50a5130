/* bench_fastref.c: the fast reference engine against the MPFR one: bit-identity, speed ratio, fallbacks per family. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "gen.h"
#include "ref_common.h"
#include "ref_fast_api.h"
#include "ref_fast_kernels.h"
#include "toiref.h"

/*
 * Cases are generated a block at a time (not timed), then the block is
 * solved by the fast engine and by the MPFR engine, each timed on its own
 * over the same cases in the same process, and the two answers compared
 * field by field, bit for bit. Single thread: the figures are per core.
 * Exit status 1 when any answer differs (the first ones are printed as
 * case lines, hex floats, so they can be replayed with
 * `toibench reference --reference mpfr`).
 */

#define BLOCK 4096 /* cases per block: they stay in cache, as in a sweep's chunks */

/* The CPU time of this thread: on a shared machine, the time the work itself
   took, not the time others held the core (the wall clock counts both, and
   the short fast-engine timings suffered most). */
static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int same_d(double x, double y) { return memcmp(&x, &y, sizeof x) == 0 || (x != x && y != y); }

static int same_ref(const toi_ref *x, const toi_ref *y) {
  return x->cls == y->cls && same_d(x->tlo, y->tlo) && same_d(x->thi, y->thi) && same_d(x->tfwd, y->tfwd) &&
         same_d(x->trev, y->trev) && x->fwd_is_lo == y->fwd_is_lo && x->rev_is_lo == y->rev_is_lo;
}

typedef struct tally {
  uint64_t cases, differ;
  double tbatch, tfast, tmpfr;
  double tbatch64, tfast64; /* in a precision other than binary64: binary64 on the same cases */
  toi_ref_fast_stats st; /* of the batch calls alone */
} tally;

static void stats_add(toi_ref_fast_stats *t, const toi_ref_fast_stats *a, const toi_ref_fast_stats *b) {
  t->calls += b->calls - a->calls;
  t->exact += b->exact - a->exact;
  t->fb_range += b->fb_range - a->fb_range;
  t->fb_sign += b->fb_sign - a->fb_sign;
  t->fb_round += b->fb_round - a->fb_round;
  t->quick += b->quick - a->quick;
  t->fb_prec += b->fb_prec - a->fb_prec;
}

static void show_diff(const toi_case *c, const toi_ref *f, const toi_ref *m) {
  fprintf(stderr, "bench_fastref: DIFFERENT ANSWERS on this case:\n  ");
  if (toi_write_case(stderr, c) != TOI_OK) fprintf(stderr, "(case %s)\n", c->id);
  fprintf(stderr, "  fast: %s %a %a fwd %d rev %d\n  mpfr: %s %a %a fwd %d rev %d\n", toi_class_name(f->cls),
          f->tlo, f->thi, f->fwd_is_lo, f->rev_is_lo, toi_class_name(m->cls), m->tlo, m->thi, m->fwd_is_lo,
          m->rev_is_lo);
}

/* The fast engine on n cases in precision q, batch then per call, their
 * times into tb[0] and tb[1] (the least so far: where not below, kept), the
 * batch's toi_ref_fast_stats added to *st (when not NULL); 0, or -1 on a
 * failure. */
static int time_fast(toi_ref *rb, toi_status *sb, toi_ref *rf, const toi_case *cases, size_t n, toi_precision q,
                     double *tb, toi_ref_fast_stats *st) {
  toi_ref_fast_stats s0, s1;
  toi_ref_fast_stats_get(&s0);
  toi_ref_query rq = TOI_REF_QUERY_INIT;
  rq.precision = q;
  size_t bad;
  double t0 = now();
  if (toi_ref_solve_batch(rb, sb, cases, n, &rq, &bad) != TOI_OK || bad) return -1;
  double t1 = now();
  toi_ref_fast_stats_get(&s1);
  if (st) stats_add(st, &s0, &s1);
  t1 = now();
  for (size_t i = 0; i < n; i++) {
    rq.c = &cases[i];
    if (toi_ref_solve(&rf[i], &rq) != TOI_OK) return -1;
  }
  const double t2 = now();
  if (t1 - t0 < tb[0]) tb[0] = t1 - t0;
  if (t2 - t1 < tb[1]) tb[1] = t2 - t1;
  return 0;
}

/* Runs count cases of family fam (default options, the given seed), the
 * roots in precision q (binary64: toi_ref_solve_batch's answers). In
 * another precision the fast engine also solves each block in binary64, the
 * two in turns (the first to touch a block pays its cache misses), three
 * times, each block's least time kept: the two speeds come from the same
 * cases in the same run, and a pause of this process on a shared machine
 * does not land on one of them alone. */
static int run(tally *t, toi_gen_family fam, uint64_t seed, uint64_t count, toi_precision q) {
  static toi_case cases[BLOCK];
  static toi_ref rb[BLOCK], rf[BLOCK], rm[BLOCK], r64[BLOCK];
  static toi_status sb[BLOCK];
  toi_gen_opts o;
  toi_gen_opts_default(&o, fam);
  o.seed = seed;
  memset(t, 0, sizeof *t);
  for (uint64_t lo = 0; lo < count; lo += BLOCK) {
    size_t n = count - lo < BLOCK ? (size_t)(count - lo) : BLOCK;
    for (size_t i = 0; i < n; i++) {
      size_t bin;
      if (toi_gen_case(&cases[i], NULL, &bin, &o, lo + i) != TOI_OK) {
        fprintf(stderr, "bench_fastref: generating case %" PRIu64 " failed\n", lo + i);
        return -1;
      }
    }
    const int twice = q != TOI_BINARY64;
    double tq[2] = {1e300, 1e300}, t64[2] = {1e300, 1e300};
    for (int rep = 0; rep < (twice ? 3 : 1); rep++) {
      const int first64 = twice && rep % 2 == 0;
      if (first64 && time_fast(r64, sb, r64, cases, n, TOI_BINARY64, t64, NULL)) return -1;
      if (time_fast(rb, sb, rf, cases, n, q, tq, rep ? NULL : &t->st)) return -1;
      if (twice && !first64 && time_fast(r64, sb, r64, cases, n, TOI_BINARY64, t64, NULL)) return -1;
    }
    t->tbatch += tq[0];
    t->tfast += tq[1];
    if (twice) t->tbatch64 += t64[0], t->tfast64 += t64[1];
    toi_ref_query mq = TOI_REF_QUERY_INIT;
    mq.engine = TOI_REF_MPFR;
    mq.precision = q;
    double t2 = now();
    for (size_t i = 0; i < n; i++) {
      mq.c = &cases[i];
      if (toi_ref_solve(&rm[i], &mq) != TOI_OK) return -1;
    }
    t->tmpfr += now() - t2;
    for (size_t i = 0; i < n; i++) {
      if (!same_ref(&rb[i], &rm[i]) && t->differ++ < 5) show_diff(&cases[i], &rb[i], &rm[i]);
      if (!same_ref(&rf[i], &rm[i]) && t->differ++ < 5) show_diff(&cases[i], &rf[i], &rm[i]);
    }
    t->cases += n;
  }
  return 0;
}

static double pct(uint64_t a, uint64_t b) { return b ? 100.0 * (double)a / (double)b : 0.0; }

/* The table per family: the fast engine's stages and fallbacks, the speeds,
 * and whether both engines agreed; 1 when any family disagreed. In a
 * precision other than binary64 a prec% column (toi_ref_fast_stats.fb_prec)
 * and the speed against binary64 on the same cases (x64: batch, per call). */
static int families(unsigned long long seed, unsigned long long per, toi_precision q) {
  tally t;
  int bad = 0, pc = q != TOI_BINARY64;
  printf("\n  answers of the fast engine's first stage alone (quick%%) and fallbacks to MPFR per family\n"
         "  (%llu cases each, default options, roots in %s):\n",
         per, toi_precision_name(q));
  printf("  %-13s %8s %8s %8s %9s %9s %9s %s%9s %10s %10s %10s %s%s\n", "family", "cases", "quick%", "exact%",
         "range%", "sign%", "round%", pc ? "    prec% " : "", "fallback%", "fast/s", "call/s", "mpfr/s",
         pc ? "  x64 fast   x64 call " : "", "identical");
  for (int f = 0; f < TOI_GEN_FAMILY_COUNT; f++) {
    if (run(&t, (toi_gen_family)f, seed, per, q)) return 1;
    const toi_ref_fast_stats *s = &t.st;
    uint64_t fb = s->fb_range + s->fb_sign + s->fb_round + s->fb_prec;
    char prec[32] = "", x64[32] = "";
    if (pc) snprintf(prec, sizeof prec, "%9.4f ", pct(s->fb_prec, s->calls));
    if (pc) snprintf(x64, sizeof x64, "%9.3f %10.3f ", t.tbatch64 / t.tbatch, t.tfast64 / t.tfast);
    printf("  %-13s %8" PRIu64 " %8.3f %8.3f %9.4f %9.4f %9.4f %s%9.4f %10.3g %10.3g %10.3g %s%s\n",
           toi_gen_family_name((toi_gen_family)f), t.cases, pct(s->quick, s->calls), pct(s->exact, s->calls),
           pct(s->fb_range, s->calls), pct(s->fb_sign, s->calls), pct(s->fb_round, s->calls), prec,
           pct(fb, s->calls), (double)t.cases / t.tbatch, (double)t.cases / t.tfast, (double)t.cases / t.tmpfr, x64,
           t.differ ? "NO" : "yes");
    if (t.differ) bad = 1;
  }
  return bad;
}

/* --layout: what reading its inputs costs the batch's first stage. On the
 * same mixed cases, a block at a time, each timed by the least of RUNS runs
 * (the variants in turns, the order rotated each run): the whole batch
 * (toi_ref_solve_batch), the first-stage kernel alone on the cases as they
 * are (toi_case, 200 bytes each, the ID inline) with each field gathered
 * from the w cases (ref_fast_batchW_gather) and read as the batch reads
 * them (ref_fast_batchW), the same kernel on the numbers already in a
 * structure of arrays (ref_fast_batchW_soa), and the transposition of the
 * block into that structure alone. The kernels' answers, declined lanes and
 * lanes left for later are compared bit for bit, and the batch's answers
 * with MPFR's. */
enum { RUNS = 5, VARIANTS = 6, SOA_STRIDE = BLOCK + 24 }; /* + 24: fields not 32 KiB apart, which one L1 set holds */
typedef int (*first_fn)(toi_ref *, const toi_case *, int *, int *);
typedef int (*soa_fn)(toi_ref *, const double *, size_t, int *, int *);

static void to_soa(double *soa, size_t stride, const toi_case *c, size_t n) {
  for (size_t i = 0; i < n; i++) {
    for (int k = 0; k < 3; k++) {
      soa[(REF_FAST_SOA_PA + k) * stride + i] = c[i].pa[k];
      soa[(REF_FAST_SOA_VA + k) * stride + i] = c[i].va[k];
      soa[(REF_FAST_SOA_PB + k) * stride + i] = c[i].pb[k];
      soa[(REF_FAST_SOA_VB + k) * stride + i] = c[i].vb[k];
    }
    soa[REF_FAST_SOA_RA * stride + i] = c[i].ra;
    soa[REF_FAST_SOA_RB * stride + i] = c[i].rb;
    soa[REF_FAST_SOA_DIM * stride + i] = c[i].dim;
  }
}

/* The first stage over c[0 .. n - 1], n a multiple of w: its masks into m
 * (done, signs, later for each group). The cases two vectors ahead into the
 * cache, as the batch does (batch_prefetch of ref_fast_batch.c). */
static void first_aos(first_fn f, toi_ref *out, const toi_case *c, size_t n, size_t w, int *m) {
  for (size_t i = 0; i < n; i += w, m += 3) {
    if (i + 2 * w < n) {
      const char *p = (const char *)&c[i + 2 * w], *e = (const char *)&c[i + 3 * w];
      for (; p < e; p += 64) __builtin_prefetch(p);
      __builtin_prefetch(e - 1);
    }
    m[0] = f(&out[i], &c[i], &m[1], &m[2]);
  }
}

static void first_soa(soa_fn f, toi_ref *out, const double *soa, size_t n, size_t w, int *m) {
  for (size_t i = 0; i < n; i += w, m += 3) m[0] = f(&out[i], soa + i, SOA_STRIDE, &m[1], &m[2]);
}

/* w cases at a time transposed into a local structure, then the kernel on it
 * (what the batch could do without a new interface). */
static void first_local(soa_fn f, toi_ref *out, const toi_case *c, size_t n, size_t w, int *m) {
  double loc[REF_FAST_SOA_FIELDS * 8];
  for (size_t i = 0; i < n; i += w, m += 3) {
    to_soa(loc, w, &c[i], w);
    m[0] = f(&out[i], loc, w, &m[1], &m[2]);
  }
}

/* 1 when the masks agree and so do the answers of the lanes answered. */
static int same_first(const int *ma, const toi_ref *ra, const int *mb, const toi_ref *rb, size_t n, size_t w) {
  for (size_t g = 0; g < n / w; g++) {
    if (memcmp(&ma[3 * g], &mb[3 * g], 3 * sizeof *ma)) return 0;
    for (size_t j = 0; j < w; j++)
      if (ma[3 * g] >> j & 1 && !same_ref(&ra[g * w + j], &rb[g * w + j])) return 0;
  }
  return 1;
}

static int layout(unsigned long long seed, unsigned long long count) {
  const int w = ref_fast_batch_width();
  if (w != 4 && w != 8) {
    fprintf(stderr, "bench_fastref: --layout needs a vector width of 4 or 8\n");
    return 2;
  }
  const first_fn fg = w == 8 ? ref_fast_batch8_gather : ref_fast_batch4_gather;
  const first_fn fp = w == 8 ? ref_fast_batch8 : ref_fast_batch4;
  const soa_fn fs = w == 8 ? ref_fast_batch8_soa : ref_fast_batch4_soa;
  static toi_case cases[BLOCK];
  static toi_ref rb[BLOCK], rm[BLOCK], rk[4][BLOCK];
  static toi_status sb[BLOCK];
  static double soa[REF_FAST_SOA_FIELDS * SOA_STRIDE];
  static int mk[4][3 * BLOCK / 4];
  toi_gen_opts o;
  toi_gen_opts_default(&o, TOI_GEN_MIXED);
  o.seed = seed;
  double tt[VARIANTS] = {0}, tm = 0;
  uint64_t cases_n = 0, kern_n = 0, differ = 0;
  for (uint64_t lo = 0; lo < count; lo += BLOCK) {
    const size_t n = count - lo < BLOCK ? (size_t)(count - lo) : BLOCK, nk = n / (size_t)w * (size_t)w;
    for (size_t i = 0; i < n; i++) {
      size_t bin;
      if (toi_gen_case(&cases[i], NULL, &bin, &o, lo + i) != TOI_OK) return 1;
    }
    double best[VARIANTS];
    for (int v = 0; v < VARIANTS; v++) best[v] = 1e300;
    for (int r = 0; r < RUNS; r++)
      for (int k = 0; k < VARIANTS; k++) {
        const int v = (k + r) % VARIANTS;
        toi_ref_query rq = TOI_REF_QUERY_INIT;
        size_t bad = 0;
        const double t0 = now();
        switch (v) {
        case 0:
          if (toi_ref_solve_batch(rb, sb, cases, n, &rq, &bad) != TOI_OK || bad) return 1;
          break;
        case 1: first_aos(fg, rk[0], cases, nk, (size_t)w, mk[0]); break;
        case 2: first_aos(fp, rk[1], cases, nk, (size_t)w, mk[1]); break;
        case 3: to_soa(soa, SOA_STRIDE, cases, nk); break;
        case 4: first_soa(fs, rk[2], soa, nk, (size_t)w, mk[2]); break;
        default: first_local(fs, rk[3], cases, nk, (size_t)w, mk[3]); break;
        }
        const double t = now() - t0;
        if (t < best[v]) best[v] = t;
      }
    for (int v = 0; v < VARIANTS; v++) tt[v] += best[v];
    differ += !same_first(mk[0], rk[0], mk[1], rk[1], nk, (size_t)w) +
              !same_first(mk[0], rk[0], mk[2], rk[2], nk, (size_t)w) +
              !same_first(mk[0], rk[0], mk[3], rk[3], nk, (size_t)w);
    toi_ref_query mq = TOI_REF_QUERY_INIT;
    mq.engine = TOI_REF_MPFR;
    const double t0 = now();
    for (size_t i = 0; i < n; i++) {
      mq.c = &cases[i];
      if (toi_ref_solve(&rm[i], &mq) != TOI_OK) return 1;
    }
    tm += now() - t0;
    for (size_t i = 0; i < n; i++) differ += !same_ref(&rb[i], &rm[i]);
    cases_n += n;
    kern_n += nk;
  }
  const double cm = (double)cases_n / tm, cb = (double)cases_n / tt[0];
  const double pg = tt[1] / (double)kern_n * (double)cases_n, pp = tt[2] / (double)kern_n * (double)cases_n;
  const double ptr = tt[3] / (double)kern_n * (double)cases_n, ps = tt[4] / (double)kern_n * (double)cases_n;
  const double pl = tt[5] / (double)kern_n * (double)cases_n;
  printf("  layout: mixed, %" PRIu64 " cases, seed %llu, vector width %d, roots in binary64, the least of %d runs a "
         "block of %d: %s\n",
         cases_n, seed, w, RUNS, BLOCK, differ ? "ANSWERS DIFFER" : "answers bit-identical (kernels, batch, mpfr)");
  printf("  %-44s %10.4g cases/s  %6.3g x mpfr\n", "mpfr", cm, 1.0);
  printf("  %-44s %10.4g cases/s  %6.3g x mpfr\n", "batch (toi_ref_solve_batch)", cb, cb / cm);
  printf("  %-44s %10.4g cases/s  %5.1f%% of the batch's time\n", "first stage, fields gathered (toi_case)",
         (double)cases_n / pg, 100 * pg / tt[0]);
  printf("  %-44s %10.4g cases/s  %5.1f%% of the batch's time\n", "first stage, as the batch reads (toi_case)",
         (double)cases_n / pp, 100 * pp / tt[0]);
  printf("  %-44s %10.4g cases/s  %5.1f%% of the batch's time\n", "first stage, structure of arrays",
         (double)cases_n / ps, 100 * ps / tt[0]);
  printf("  %-44s %10.4g cases/s  %5.1f%% of the batch's time\n", "transposition into it alone",
         (double)cases_n / ptr, 100 * ptr / tt[0]);
  printf("  %-44s %10.4g cases/s  %5.1f%% of the batch's time\n", "first stage, transposed w cases at a time",
         (double)cases_n / pl, 100 * pl / tt[0]);
  printf("  reading toi_case instead of arrays: %.1f%% of the first stage gathered, %.1f%% as the batch reads\n",
         100 * (pg - ps) / pg, 100 * (pp - ps) / pp);
  printf("  the batch with its inputs free (arrays given, no transposition): %.3g x mpfr; with the transposition: "
         "%.3g x mpfr\n",
         (double)cases_n / (tt[0] - pp + ps) / cm, (double)cases_n / (tt[0] - pp + ps + ptr) / cm);
  return differ ? 1 : 0;
}

static void usage(FILE *f) {
  fprintf(f, "Usage: bench_fastref [--count N] [--per-family M] [--seed S] [--width W] [--precision P] [--layout]\n"
             "Checks that the fast reference engine answers bit for bit as the MPFR engine on N\n"
             "mixed cases (default 10^7) and M cases of every family (default 10^5), and prints\n"
             "the cases/s of both engines on the mixed cases (one thread, same run), their ratio,\n"
             "for the fast engine both through toi_ref_solve_batch (the way a suite is solved) and\n"
             "one toi_ref_solve call per case; and, per family, how often the fast engine's first stage answered alone (quick%%)\n"
             "and how often it fell back to MPFR. --width: the batch's vector width, 8 (AVX-512),\n"
             "4 (AVX2) or 0 (one case at a time); default the widest this processor runs.\n"
             "--precision: binary64 (default) or binary32, the precision the roots are rounded to\n"
             "(both engines); in binary32 the table adds prec%%, the fallbacks to MPFR for a root\n"
             "next to a binary32 rounding boundary (counted in fallback%% too), and the fast engine\n"
             "is also timed in binary64 on the same cases in the same run: the ratio binary32 /\n"
             "binary64 of its throughput, batch and per call (x64 columns per family).\n"
             "--layout: instead, on the N mixed cases, what reading its inputs costs the batch's\n"
             "first stage: the batch, the first-stage kernel alone on toi_case with each field\n"
             "gathered and as the batch reads them, the same kernel on a structure of arrays, and\n"
             "the transposition into it, each in cases/s and in shares of the batch's time.\n");
}

int main(int argc, char **argv) {
  unsigned long long count = 10000000, per = 100000, seed = 1, width = 99;
  int lay = 0;
  toi_precision q = TOI_BINARY64;
  for (int i = 1; i < argc; i++) {
    unsigned long long *dst = NULL;
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      usage(stdout);
      return 0;
    } else if (!strcmp(argv[i], "--precision") && i + 1 < argc && toi_precision_parse(&q, argv[i + 1]) == TOI_OK) {
      i++;
      continue;
    } else if (!strcmp(argv[i], "--layout")) {
      lay = 1;
      continue;
    } else if (!strcmp(argv[i], "--count")) {
      dst = &count;
    } else if (!strcmp(argv[i], "--per-family")) {
      dst = &per;
    } else if (!strcmp(argv[i], "--seed")) {
      dst = &seed;
    } else if (!strcmp(argv[i], "--width")) {
      dst = &width;
    }
    char *end = NULL;
    if (!dst || i + 1 >= argc || (*dst = strtoull(argv[i + 1], &end, 0), *end != 0 || end == argv[i + 1])) {
      fprintf(stderr, "bench_fastref: bad argument '%s'\n", argv[i]);
      usage(stderr);
      return 2;
    }
    i++;
  }
  if (width != 99 && ref_fast_batch_use((int)width) != (int)width) {
    fprintf(stderr, "bench_fastref: this processor cannot run the batch %llu lanes wide\n", width);
    return 2;
  }
  if (lay) return layout(seed, count);
  int bad = 0;
  tally t;
  if (run(&t, TOI_GEN_MIXED, seed, count, q)) return 1;
  double rb = (double)t.cases / t.tbatch, rf = (double)t.cases / t.tfast, rm = (double)t.cases / t.tmpfr;
  printf("  mixed, %" PRIu64 " cases, seed %llu, vector width %d, roots in %s: %s\n", t.cases, seed,
         ref_fast_batch_width(), toi_precision_name(q),
         t.differ ? "ANSWERS DIFFER" : "fast (batch and per call) and mpfr answers bit-identical");
  if (q != TOI_BINARY64)
    printf("  fallbacks to MPFR at a %s rounding boundary: %" PRIu64 " of %" PRIu64 " calls (%.3g%%)\n",
           toi_precision_name(q), (uint64_t)t.st.fb_prec, (uint64_t)t.st.calls, pct(t.st.fb_prec, t.st.calls));
  printf("  %-10s %12.4g cases/s\n", "mpfr", rm);
  printf("  %-10s %12.4g cases/s   %.3g x mpfr (target >= 25: %s)\n", "fast", rb, rb / rm,
         rb >= 25 * rm ? "met" : "NOT met");
  printf("  %-10s %12.4g cases/s   %.3g x mpfr (one toi_ref_solve call per case)\n", "fast/call", rf, rf / rm);
  if (q != TOI_BINARY64) {
    const toi_ref_fast_stats *s = &t.st;
    uint64_t fb = s->fb_range + s->fb_sign + s->fb_round + s->fb_prec;
    double b64 = (double)t.cases / t.tbatch64, f64 = (double)t.cases / t.tfast64;
    printf("  handed to MPFR in all (any stage, batch): %" PRIu64 " of %" PRIu64 " calls (%.3g%%)\n", fb,
           (uint64_t)s->calls, pct(fb, s->calls));
    printf("  %-10s %12.4g cases/s   fast in binary64 on the same cases (batch)\n", "fast64", b64);
    printf("  %-10s %12.4g cases/s   fast in binary64 on the same cases (per call)\n", "fast64/call", f64);
    printf("  %s / binary64 throughput, same cases, same run: batch %.3g, per call %.3g (target >= 1: %s)\n",
           toi_precision_name(q), rb / b64, rf / f64, rb >= b64 && rf >= f64 ? "met" : "NOT met");
  }
  if (t.differ) {
    printf("  %" PRIu64 " cases differ\n", t.differ);
    bad = 1;
  }
  return families(seed, per, q) || bad;
}
