/* msg.c: formatting a message for a caller's sink. */
#include <stdarg.h>
#include <stdio.h>
#include "toi_msg.h"

void toi_msgf(const toi_msg *m, const char *fmt, ...) {
  if (!m || !m->emit) return;
  char buf[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  m->emit(m->ud, buf);
}
