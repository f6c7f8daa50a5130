/* test_ref_ctx.c: the reference's per-thread working state and MPFR environment guard (reference/mpfr/ref_ctx.c): the caller's MPFR settings left alone, threads answering as a serial run. */
#include <criterion/criterion.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include "gen.h"
#include "ref_common.h"
#include "ref_fast_api.h"
#include "reference_check.h"
#include "ref_forms.h"
#include "ref_cases.h"

/* The reference leaves the caller's MPFR exponent range and flags alone,
 * and works even when the caller narrowed the range. */
Test(reference_input, mpfr_environment) {
  toi_case c = tr_rel2(-10, 1, 1, 0, 1, 1);
  toi_ref r, r0;
  cr_assert_eq(tr_solve_engine(&r0, &c, TOI_REF_FAST), TOI_OK);
  mpfr_set_emin(-100);
  mpfr_set_emax(100);
  mpfr_clear_flags();
  cr_assert_eq(tr_solve_engine(&r, &c, TOI_REF_FAST), TOI_OK);
  cr_expect(tr_same_ref(&r, &r0));
  cr_expect_eq(mpfr_get_emin(), -100);
  cr_expect_eq(mpfr_get_emax(), 100);
  cr_expect_eq(mpfr_flags_save(), 0, "flags raised by the reference leaked");
  mpfr_set_emin(mpfr_get_emin_min());
  mpfr_set_emax(mpfr_get_emax_max());
}

#define THREAD_CASES 1000

typedef struct thread_job {
  const toi_case *cases;
  toi_ref *out;
  double *ulp, *kap;
  int reverse_order;
  int failures;
} thread_job;

static void *thread_run(void *arg) {
  thread_job *j = arg;
  for (int n = 0; n < THREAD_CASES; n++) {
    int i = j->reverse_order ? THREAD_CASES - 1 - n : n;
    double b;
    if (tr_solve_engine(&j->out[i], &j->cases[i], TOI_REF_FAST) != TOI_OK) j->failures++;
    if (tr_error_engine(&j->ulp[i], &b, 1.0, &j->cases[i], TOI_FORWARD, TOI_REF_FAST) != TOI_OK) j->failures++;
    if (tr_kappa_engine(&j->kap[i], &j->cases[i], TOI_FORWARD, TOI_REF_FAST) != TOI_OK) j->failures++;
  }
  return NULL;
}

Test(reference_threads, two_threads_match_serial) {
  cr_assert(mpfr_buildopt_tls_p(), "MPFR built without thread-local storage: the reference is not thread-safe");
  uint64_t seed = tr_seed();
  tr_rng rng = {seed};
  static toi_case cases[THREAD_CASES];
  static toi_ref serial[THREAD_CASES], par[2][THREAD_CASES];
  static double su[THREAD_CASES], sk[THREAD_CASES], pu[2][THREAD_CASES], pk[2][THREAD_CASES];
  for (int i = 0; i < THREAD_CASES; i++) {
    double s[3], v[3];
    for (int d = 0; d < 3; d++) s[d] = tr_double(&rng, -3, 3), v[d] = tr_double(&rng, -3, 1);
    /* Half of them aimed at each other so that roots occur. */
    if (i % 2) for (int d = 0; d < 3; d++) v[d] = -s[d] * 0.25 + tr_double(&rng, -5, -3);
    cases[i] = tr_rel3(s[0], s[1], s[2], v[0], v[1], v[2], fabs(tr_double(&rng, -2, 1)), fabs(tr_double(&rng, -2, 1)));
  }
  thread_job serial_job = {cases, serial, su, sk, 0, 0};
  thread_run(&serial_job);
  cr_assert_eq(serial_job.failures, 0);
  pthread_t th[2];
  thread_job jobs[2];
  for (int k = 0; k < 2; k++) {
    jobs[k] = (thread_job){cases, par[k], pu[k], pk[k], k, 0};
    cr_assert_eq(pthread_create(&th[k], NULL, thread_run, &jobs[k]), 0);
  }
  for (int k = 0; k < 2; k++) pthread_join(th[k], NULL);
  for (int k = 0; k < 2; k++) {
    cr_expect_eq(jobs[k].failures, 0);
    for (int i = 0; i < THREAD_CASES; i++) {
      cr_assert(tr_same_ref(&par[k][i], &serial[i]), "thread %d case %d differs (seed %llu)", k, i,
                (unsigned long long)seed);
      cr_assert(tr_same(pu[k][i], su[i]) && tr_same(pk[k][i], sk[i]), "thread %d case %d error/kappa differ", k,
                i);
    }
  }
}
