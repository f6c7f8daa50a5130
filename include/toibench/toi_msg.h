/* toi_msg.h: where the library's messages go: the library never prints, the caller decides. */
#ifndef TOI_MSG_H
#define TOI_MSG_H

#include "toi_api.h"

/// A message sink: emit(ud, text) receives one message without its line end
/// (a solver's stderr line, a protocol error, a progress line). A NULL sink,
/// or one with a NULL emit, drops every message.
typedef struct toi_msg {
  void (*emit)(void *ud, const char *text);
  void *ud;
} toi_msg;

/// Formats a message (printf-style) and hands it to m; longer than 4095
/// bytes, it is cut there.
TOI_API void toi_msgf(const toi_msg *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
