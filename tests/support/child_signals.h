/* child_signals.h: a forked child's signals as a fresh shell would give them. */
#ifndef CHILD_SIGNALS_H
#define CHILD_SIGNALS_H

#include <signal.h>
#include <string.h>

/* In a child about to exec the program under test: SIGHUP, SIGINT, SIGQUIT,
 * SIGTERM and SIGPIPE to their default actions and no signal blocked. A test
 * runner started by nohup, or as a background job of a script (which ignores
 * SIGINT), would otherwise hand its ignored signals down, and the program
 * keeps a signal ignored at its start ignored (README, "Commands"): a test of
 * what a signal does would then see it do nothing. Returns 0, or -1 when a
 * call fails. */
static inline int cs_default_signals(void) {
  static const int sigs[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE};
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = SIG_DFL;
  sigemptyset(&sa.sa_mask);
  for (size_t k = 0; k < sizeof sigs / sizeof sigs[0]; k++)
    if (sigaction(sigs[k], &sa, NULL)) return -1;
  sigset_t none;
  sigemptyset(&none);
  return sigprocmask(SIG_SETMASK, &none, NULL) ? -1 : 0;
}

#endif
