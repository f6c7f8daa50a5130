/* fuzz_support.h: what the libFuzzer harnesses share: a sink that formats every message, a check that aborts. */
#ifndef TOI_FUZZ_SUPPORT_H
#define TOI_FUZZ_SUPPORT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "toi_msg.h"

/* Reads every byte of a message, so that a message built past its buffer is
 * seen by ASan, but prints nothing: a harness's output is libFuzzer's. */
static inline void fz_emit(void *ud, const char *text) {
  size_t *total = ud;
  *total += strlen(text);
}

/* A property the harness checks beyond "does not crash": failing it is a
 * finding, so it aborts and libFuzzer keeps the input. */
#define FZ_CHECK(cond)                                                            \
  do {                                                                            \
    if (!(cond)) {                                                                \
      fprintf(stderr, "%s:%d: property failed: %s\n", __FILE__, __LINE__, #cond); \
      abort();                                                                    \
    }                                                                             \
  } while (0)

/* Bit-for-bit equality of two doubles (NaN payloads and signed zeros included). */
static inline int fz_same_double(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

#endif
