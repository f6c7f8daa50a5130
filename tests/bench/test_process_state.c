/* test_process_state.c: the library leaves process-wide state alone: no signal disposition changes while a solver runs. */
#include <criterion/criterion.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "candidate.h"
#include "toi.h"

static atomic_int watching, saw_other;

/* Polls SIGPIPE's disposition until told to stop: anything but SIG_DFL seen is recorded. */
static void *watch(void *ud) {
  (void)ud;
  while (atomic_load(&watching)) {
    struct sigaction sa;
    if (sigaction(SIGPIPE, NULL, &sa) == 0 && sa.sa_handler != SIG_DFL) atomic_store(&saw_other, 1);
    usleep(200);
  }
  return NULL;
}

/* A solver that never reads its input: the bench's write of the cases then hits
   a closed pipe. The process must survive (SIGPIPE stays at its default, which
   would kill it) and no other thread may see the disposition change. */
Test(process_state, a_solver_that_reads_nothing_changes_no_signal_disposition) {
  struct sigaction dfl;
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  cr_assert_eq(sigaction(SIGPIPE, &dfl, NULL), 0);
  /* /bin/true exits at once without reading: the pipe closes under the bench's writes */
  toi_candidate c;
  cr_assert_eq(toi_candidate_command(&c, "/bin/true"), 0);
  enum { N = 4000 };
  static toi_case cases[N];
  for (int i = 0; i < N; i++) {
    toi_case *x = &cases[i];
    memset(x, 0, sizeof *x);
    snprintf(x->id, sizeof x->id, "ok-%d", i);
    x->dim = 2;
    x->pb[0] = 10;
    x->va[0] = 1;
    x->ra = x->rb = x->ma = x->mb = 1;
  }
  static toi_answer ans[N];
  toi_run_info info;
  toi_solve_opts o = {INFINITY, 2, NULL, NULL};
  atomic_store(&watching, 1);
  atomic_store(&saw_other, 0);
  pthread_t t;
  cr_assert_eq(pthread_create(&t, NULL, watch, NULL), 0);
  int rc = toi_candidate_run(&c, cases, N, &o, ans, &info);
  atomic_store(&watching, 0);
  pthread_join(t, NULL);
  cr_assert_eq(rc, 0);
  cr_assert_eq(ans[0].state, TOI_FAILED, "a solver that answers nothing fails its cases");
  cr_assert(!atomic_load(&saw_other), "another thread saw SIGPIPE's disposition changed during the solve");
  struct sigaction after;
  cr_assert_eq(sigaction(SIGPIPE, NULL, &after), 0);
  cr_assert(after.sa_handler == SIG_DFL);
  sigset_t pending;
  sigpending(&pending);
  cr_assert(!sigismember(&pending, SIGPIPE), "a SIGPIPE left pending");
  toi_candidate_free(&c);
}
