/* report_files.h: opening, closing and making the report's files and folders; errors said to a sink. */
#ifndef TOI_REPORT_FILES_H
#define TOI_REPORT_FILES_H

#include <stdio.h>
#include "toi_msg.h"

/// Formats a message (printf-style) and hands it whole to msg (toi_msgf cuts
/// at 4095 bytes; a path and gnuplot's own message can be longer).
void rw_say(const toi_msg *msg, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/// dir/name opened for writing, or NULL after saying why to msg.
FILE *rw_open_in(const toi_msg *msg, const char *dir, const char *name);
/// Closes f: 0, or -1 when a write or the close failed.
int rw_close_ok(FILE *f);
/// mkdir -p path. 0 or -1 (errno set).
int rw_mkdir_p(const char *path);

#endif
