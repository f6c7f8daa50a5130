/* msg_text.h: a toi_msg sink keeping the last message in a caller's buffer, for tests that check what the library said. */
#ifndef TEST_MSG_TEXT_H
#define TEST_MSG_TEXT_H

#include <stdio.h>
#include "toi_msg.h"

typedef struct msg_text {
  char *buf;
  size_t n;
} msg_text;

static inline void msg_text_keep(void *ud, const char *text) {
  msg_text *t = ud;
  if (t->n) snprintf(t->buf, t->n, "%s", text);
}

/* A sink writing into buf[0..n-1] (emptied here), through *t. */
static inline toi_msg msg_text_sink(msg_text *t, char *buf, size_t n) {
  t->buf = buf;
  t->n = n;
  if (n) buf[0] = 0;
  return (toi_msg){msg_text_keep, t};
}

#endif
