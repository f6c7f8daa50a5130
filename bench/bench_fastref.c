/* bench_fastref.c: the fast reference engine against the MPFR one: bit-identity, speed ratio, fallbacks per family. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "gen.h"
#include "ref_common.h"
#include "ref_fast_api.h"
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

static void usage(FILE *f) {
  fprintf(f, "Usage: bench_fastref [--count N] [--per-family M] [--seed S] [--width W] [--precision P]\n"
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
             "binary64 of its throughput, batch and per call (x64 columns per family).\n");
}

int main(int argc, char **argv) {
  unsigned long long count = 10000000, per = 100000, seed = 1, width = 99;
  toi_precision q = TOI_BINARY64;
  for (int i = 1; i < argc; i++) {
    unsigned long long *dst = NULL;
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      usage(stdout);
      return 0;
    } else if (!strcmp(argv[i], "--precision") && i + 1 < argc && toi_precision_parse(&q, argv[i + 1]) == TOI_OK) {
      i++;
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
