/* parallel.c: chunked work on a pool of threads, with a progress line for terminals. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "sweep.h"

typedef struct pool {
  sweep_run *run;
  atomic_uint_least64_t next;
  atomic_int rc;
  atomic_int running;
  int worker;
} pool;

typedef struct worker_arg {
  pool *p;
  int id;
} worker_arg;

static void *worker(void *arg) {
  worker_arg *w = arg;
  pool *p = w->p;
  for (;;) {
    if (atomic_load(&p->rc)) break;
    uint64_t chunk = atomic_fetch_add(&p->next, 1);
    if (chunk >= p->run->nchunks) break;
    int rc = p->run->fn(p->run->ctx, w->id, chunk);
    if (rc) {
      int zero = 0;
      atomic_compare_exchange_strong(&p->rc, &zero, rc);
      break;
    }
  }
  atomic_fetch_sub(&p->running, 1);
  return NULL;
}

double sweep_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void show(const sweep_run *r, double t0, int final) {
  r->progress->show(r->progress->ud, r->what, atomic_load(&r->done), r->total, sweep_now() - t0, final);
}

int sweep_parallel(sweep_run *r) {
  pool p;
  memset(&p, 0, sizeof p);
  p.run = r;
  atomic_init(&p.next, 0);
  atomic_init(&p.rc, 0);
  int jobs = r->jobs < 1 ? 1 : r->jobs;
  atomic_init(&p.running, jobs);
  pthread_t *th = calloc((size_t)jobs, sizeof *th);
  worker_arg *args = calloc((size_t)jobs, sizeof *args);
  if (!th || !args) {
    free(th);
    free(args);
    return -1;
  }
  double t0 = sweep_now();
  int started = 0;
  for (int i = 0; i < jobs; i++) {
    args[i].p = &p;
    args[i].id = i;
    if (pthread_create(&th[i], NULL, worker, &args[i])) {
      atomic_store(&p.rc, -1);
      atomic_fetch_sub(&p.running, jobs - i);
      break;
    }
    started++;
  }
  if (r->progress) {
    while (atomic_load(&p.running) > 0) {
      struct timespec ts = {0, 250000000};
      nanosleep(&ts, NULL);
      show(r, t0, 0);
    }
  }
  for (int i = 0; i < started; i++) pthread_join(th[i], NULL);
  if (r->progress) show(r, t0, 1);
  free(th);
  free(args);
  return atomic_load(&p.rc);
}

int sweep_default_jobs(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : n > 1024 ? 1024 : (int)n;
}

int sweep_parse_jobs(const char *s, int *jobs) {
  char *end;
  long v = strtol(s, &end, 10);
  if (!*s || *end || v < 1 || v > 1024) return -1;
  *jobs = (int)v;
  return 0;
}

long sweep_peak_rss_kb(void) {
  FILE *f = fopen("/proc/self/status", "re");
  if (!f) return -1;
  char line[256];
  long kb = -1;
  while (fgets(line, sizeof line, f))
    if (!strncmp(line, "VmHWM:", 6)) {
      kb = strtol(line + 6, NULL, 10);
      break;
    }
  fclose(f);
  return kb;
}
