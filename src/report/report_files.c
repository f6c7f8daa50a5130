/* report_files.c: how every writer of the report opens and closes its files (below report_write.c, report_plots.c). */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "report_files.h"

void rw_say(const toi_msg *msg, const char *fmt, ...) {
  if (!msg || !msg->emit) return;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char local[1024], *buf = n >= 0 && (size_t)n >= sizeof local ? malloc((size_t)n + 1) : local;
  if (!buf) buf = local; /* out of memory: the message cut to what fits */
  size_t size = buf == local ? sizeof local : (size_t)n + 1;
  va_start(ap, fmt);
  vsnprintf(buf, size, fmt, ap);
  va_end(ap);
  msg->emit(msg->ud, buf);
  if (buf != local) free(buf);
}

int rw_mkdir_p(const char *path) {
  char buf[PATH_MAX];
  if ((size_t)snprintf(buf, sizeof buf, "%s", path) >= sizeof buf) {
    errno = ENAMETOOLONG;
    return -1;
  }
  for (char *p = buf + 1; *p; p++)
    if (*p == '/') {
      *p = 0;
      if (mkdir(buf, 0755) && errno != EEXIST) return -1;
      *p = '/';
    }
  return mkdir(buf, 0755) && errno != EEXIST ? -1 : 0;
}

FILE *rw_open_in(const toi_msg *msg, const char *dir, const char *name) {
  char path[PATH_MAX];
  if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path) {
    rw_say(msg, "report: the path of %s in the output folder is too long", name);
    return NULL;
  }
  FILE *f = fopen(path, "we");
  if (!f) rw_say(msg, "report: cannot write %s: %s", path, strerror(errno));
  return f;
}

int rw_close_ok(FILE *f) {
  int bad = ferror(f);
  return fclose(f) || bad ? -1 : 0;
}
