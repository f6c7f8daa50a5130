/* sweep_time.c: the speed of generation, of the reference or of one in-process candidate alone. */
#include <stdlib.h>
#include <string.h>
#include "sweep.h"

#define CHUNK 1024

typedef struct time_ctx {
  const toi_gen_opts *g;
  const toi_case *cases;
  size_t ncases;
  uint64_t count;
  const toi_candidate *cand; /* NULL: the reference, or generation when gen */
  int gen;
  toi_ref_engine engine;
  sweep_run *run;
  double sink[1024];
} time_ctx;

/* The reference as a suite is solved, and a candidate called: in batches of
   consecutive cases. */
static int time_batches(time_ctx *x, uint64_t lo, uint64_t hi, double *acc) {
  toi_ref r[256];
  toi_status st[256];
  toi_answer a[256];
  toi_run_info info;
  for (uint64_t i = lo; i < hi;) {
    size_t at = (size_t)(i % x->ncases), n = x->ncases - at;
    if (n > 256) n = 256;
    if (n > hi - i) n = (size_t)(hi - i);
    if (x->cand) {
      if (toi_candidate_run(x->cand, &x->cases[at], n, NULL, a, &info)) return 1;
      for (size_t k = 0; k < n; k++) *acc += a[k].r.t;
    } else {
      toi_ref_query rq = TOI_REF_QUERY_INIT;
      rq.engine = x->engine;
      rq.precision = x->g->precision;
      size_t bad;
      if (toi_ref_solve_batch(r, st, &x->cases[at], n, &rq, &bad) != TOI_OK || bad) return 1;
      for (size_t k = 0; k < n; k++) *acc += r[k].tfwd;
    }
    i += n;
  }
  return 0;
}

static int time_chunk(void *vctx, int worker, uint64_t chunk) {
  time_ctx *x = vctx;
  uint64_t lo = chunk * CHUNK, hi = x->count - lo < CHUNK ? x->count : lo + CHUNK;
  double acc = 0;
  if (!x->gen && time_batches(x, lo, hi, &acc)) return 1;
  for (uint64_t i = lo; i < hi && x->gen; i++) {
    toi_case g;
    size_t b;
    if (toi_gen_case(&g, NULL, &b, x->g, i) != TOI_OK) return 1;
    acc += g.pa[0];
  }
  x->sink[worker % 1024] += acc; /* keeps the work observable */
  atomic_fetch_add(&x->run->done, hi - lo);
  return 0;
}

int sweep_time_only(double *seconds, const toi_gen_opts *g, uint64_t count, int jobs, int gen,
                    const toi_candidate *cand, toi_ref_engine engine) {
  time_ctx x;
  memset(&x, 0, sizeof x);
  x.g = g;
  x.count = count;
  x.gen = gen;
  x.cand = cand;
  x.engine = engine;
  x.ncases = count < 65536 ? (size_t)count : 65536;
  if (x.ncases == 0) x.ncases = 1;
  toi_case *cases = malloc(x.ncases * sizeof *cases);
  if (!cases) return -1;
  for (size_t i = 0; i < x.ncases; i++) {
    size_t b;
    if (toi_gen_case(&cases[i], NULL, &b, g, i) != TOI_OK) {
      free(cases);
      return -1;
    }
  }
  x.cases = cases;
  sweep_run run;
  memset(&run, 0, sizeof run);
  run.jobs = jobs;
  run.nchunks = (count + CHUNK - 1) / CHUNK;
  run.fn = time_chunk;
  run.ctx = &x;
  run.total = count;
  run.what = "time";
  x.run = &run;
  double t0 = sweep_now();
  int rc = sweep_parallel(&run);
  *seconds = sweep_now() - t0;
  free(cases);
  return rc ? -1 : 0;
}
