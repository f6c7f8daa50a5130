/* ref_ctx.c: the per-thread working state of the reference and the MPFR environment guard. */
#include <pthread.h>
#include <stdlib.h>
#include "ref_mpfr.h"

/*
 * Thread safety. The sweeps call the reference from several pthreads, and
 * allocating a dozen mpz/mpfr variables per call would dominate its cost, so
 * each thread keeps its own ref_ctx behind a _Thread_local pointer. C11 TLS
 * has no destructor, so the same pointer is also registered under a pthread
 * key whose destructor frees it when the thread exits (the key is created
 * once under pthread_once; it is the only static state, written once).
 *
 * MPFR keeps its exponent range and flags per thread only when it is built
 * with thread-local storage: mpfr_buildopt_tls_p() is true for the Debian
 * build used here, and the test suite checks it. With a build without TLS
 * the reference is correct but must not be called from two threads at once.
 */

static pthread_key_t ref_key;
static pthread_once_t ref_once = PTHREAD_ONCE_INIT;
static int ref_key_ok;
static _Thread_local ref_ctx *ref_tls;

static void ref_ctx_free(void *p) {
  ref_ctx *x = p;
  for (int i = 0; i < 3; i++) mpz_clears(x->s[i], x->v[i], (mpz_ptr)0);
  mpz_clears(x->R, x->A, x->B, x->C, x->D, x->Q, (mpz_ptr)0);
  for (int i = 0; i < 4; i++) mpz_clear(x->z[i]);
  for (int i = 0; i < 2; i++) mpq_clear(x->q[i]);
  for (int i = 0; i < REF_NF; i++) mpfr_clear(x->f[i]);
  if (ref_tls == x) ref_tls = NULL;
  free(x);
  /* MPFR's own per-thread pools would otherwise outlive the thread. */
  mpfr_free_cache2(MPFR_FREE_LOCAL_CACHE);
}

static void ref_key_make(void) { ref_key_ok = pthread_key_create(&ref_key, ref_ctx_free) == 0; }

ref_ctx *ref_ctx_get(void) {
  if (ref_tls) return ref_tls;
  pthread_once(&ref_once, ref_key_make);
  ref_ctx *x = malloc(sizeof *x);
  if (!x) return NULL;
  for (int i = 0; i < 3; i++) mpz_inits(x->s[i], x->v[i], (mpz_ptr)0);
  mpz_inits(x->R, x->A, x->B, x->C, x->D, x->Q, (mpz_ptr)0);
  for (int i = 0; i < 4; i++) mpz_init(x->z[i]);
  for (int i = 0; i < 2; i++) mpq_init(x->q[i]);
  for (int i = 0; i < REF_NF; i++) mpfr_init2(x->f[i], 128);
  x->ep = x->ev = 0;
  x->n = 0;
  x->cls = TOI_NONE;
  x->has_roots = x->rational = 0;
  /* Without the key the state would leak at thread exit: better refuse. */
  if (!ref_key_ok || pthread_setspecific(ref_key, x) != 0) {
    ref_ctx_free(x);
    return NULL;
  }
  ref_tls = x;
  return x;
}

/* Integers reach about 2^13000 (squares of products of 2^2100-sized data)
 * and roots about 2^(+-7000); these bounds leave a wide margin. MPFR's
 * default range (+-2^30) is far wider, so the range is touched only when the
 * caller narrowed it. */
#define REF_EMIN_NEED (-(1L << 20))
#define REF_EMAX_NEED (1L << 20)

void ref_env_enter(ref_env *env) {
  /* Every thread that reaches MPFR through the reference gets its context
   * here, even on paths that do not use it (the response audit): the
   * context's destructor is what frees MPFR's per-thread caches when the
   * thread exits. After the first call this is a thread-local load. */
  (void)ref_ctx_get();
  env->emin = mpfr_get_emin();
  env->emax = mpfr_get_emax();
  env->flags = mpfr_flags_save();
  env->widened = env->emin > REF_EMIN_NEED || env->emax < REF_EMAX_NEED;
  if (env->widened) {
    mpfr_set_emin(mpfr_get_emin_min());
    mpfr_set_emax(mpfr_get_emax_max());
  }
}

void ref_env_leave(const ref_env *env) {
  if (env->widened) {
    mpfr_set_emin(env->emin);
    mpfr_set_emax(env->emax);
  }
  mpfr_flags_restore(env->flags, MPFR_FLAGS_ALL);
}
