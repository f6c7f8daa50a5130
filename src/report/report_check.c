/* report_check.c: `toibench report --check DIR`: the report opened in headless Chromium, every image
 * loaded, no error, a screenshot saved. Chromium runs by posix_spawn with an argv, never a shell. */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "report_check.h"
#include "report_files.h"

/* Seconds a Chromium run may take before it is stopped. */
#define CHECK_TIMEOUT 180

/* The browser: $TOIBENCH_CHROMIUM, else chromium on the PATH. */
static const char *browser(void) {
  const char *b = getenv("TOIBENCH_CHROMIUM");
  return b && b[0] ? b : "chromium";
}

/* file:// URL of path (absolute), bytes other than unreserved ones and '/' escaped. */
static int file_url(const char *path, char *out, size_t n) {
  size_t k = (size_t)snprintf(out, n, "file://");
  for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
    int plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
                strchr("/-._~", *p);
    if (k + 4 >= n) return -1;
    k += (size_t)(plain ? snprintf(out + k, n - k, "%c", *p) : snprintf(out + k, n - k, "%%%02X", *p));
  }
  return 0;
}

/* Runs argv with stdout into out_path and stderr into err_path; stopped after
 * CHECK_TIMEOUT seconds. The exit status, or -1 (not run, signal, timeout). */
static int run_to_files(char *const argv[], const char *out_path, const char *err_path) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&fa, 2, err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  extern char **environ;
  pid_t pid;
  int err = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  if (err) return -1;
  int st = 0;
  for (int waited = 0;; waited++) {
    pid_t r = waitpid(pid, &st, WNOHANG);
    if (r == pid) break;
    if (r < 0 && errno != EINTR) return -1;
    if (waited >= CHECK_TIMEOUT * 10) {
      kill(pid, SIGKILL);
      waitpid(pid, &st, 0);
      return -1;
    }
    struct timespec ts = {0, 100000000};
    nanosleep(&ts, NULL);
  }
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static char *read_all(const char *path) {
  FILE *f = fopen(path, "rbe");
  if (!f) return NULL;
  size_t cap = 1 << 16, len = 0;
  char *s = malloc(cap);
  for (size_t got; s && (got = fread(s + len, 1, cap - len - 1, f)) > 0;) {
    len += got;
    if (len + 1 == cap) {
      char *t = realloc(s, cap *= 2);
      if (!t) free(s);
      s = t;
    }
  }
  fclose(f);
  if (s) s[len] = 0;
  return s;
}

int report_check_dom(const char *dom, const char *log, report_check_result *r) {
  memset(r, 0, sizeof *r);
  const char *m = dom ? strstr(dom, "id=\"toi-check\"") : NULL;
  m = m ? strchr(m, '>') : NULL;
  if (!m || sscanf(m + 1, "images=%d broken=%d errors=%d", &r->images, &r->broken, &r->errors) != 3) return -1;
  const char *w = strstr(m, " wide=");
  if (w && w < strstr(m, "</pre>")) r->wide = atoi(w + 6);
  const char *l = strstr(m, " list=");
  const char *e = l ? strstr(l, "</pre>") : NULL;
  if (l && e) snprintf(r->list, sizeof r->list, "%.*s", (int)(e - l - 6), l + 6);
  for (const char *p = log; p && (p = strstr(p, ":CONSOLE(")); p++) r->console++;
  return 0;
}

/* One Chromium run on url: the DOM (into tmp/dom.html, stderr tmp/log) or the screenshot. */
static int chromium(const char *url, const char *tmp, const char *shot, int dump) {
  char out[PATH_MAX + 16], log[PATH_MAX + 16], shot_arg[PATH_MAX + 16], profile[PATH_MAX + 16];
  snprintf(out, sizeof out, "%s/%s", tmp, dump ? "dom.html" : "shot.out");
  snprintf(log, sizeof log, "%s/%s", tmp, dump ? "log" : "shot.log");
  snprintf(profile, sizeof profile, "--user-data-dir=%s/profile", tmp);
  snprintf(shot_arg, sizeof shot_arg, "--screenshot=%s", shot);
  char *argv[] = {(char *)browser(), "--headless", "--disable-gpu", "--no-sandbox", "--no-first-run",
                  profile, "--enable-logging=stderr", "--v=0", "--virtual-time-budget=10000", "--hide-scrollbars",
                  "--window-size=" REPORT_CHECK_WIDTH ",2400", dump ? "--dump-dom" : shot_arg, (char *)url, NULL};
  return run_to_files(argv, out, log);
}

/* The verdict on the page: 0 with *r filled when it passes, else -1 after saying why to msg. */
static int judge(const toi_msg *msg, const char *dir, const char *tmp, report_check_result *rp) {
  char path[PATH_MAX + 16];
  snprintf(path, sizeof path, "%s/dom.html", tmp);
  char *dom = read_all(path);
  snprintf(path, sizeof path, "%s/log", tmp);
  char *log = read_all(path);
  report_check_result r;
  int bad = report_check_dom(dom, log, &r);
  *rp = r;
  free(dom);
  free(log);
  if (bad) {
    rw_say(msg, "report: %s/index.html: no check marker in the page Chromium loaded (not a report of this "
           "version, or its script did not run)", dir);
    return -1;
  }
  if (r.broken || r.errors || r.console || r.images == 0) {
    rw_say(msg, "report: %s/index.html: %d of %d images not loaded%s%s, %d errors, %d console messages", dir,
           r.broken, r.images, r.broken ? ": " : "", r.list, r.errors, r.console);
    return -1;
  }
  if (r.wide) {
    rw_say(msg,
           "report: %s/index.html: %d summary table%s wider than the page at " REPORT_CHECK_WIDTH " pixels (cut off)",
           dir, r.wide, r.wide == 1 ? " is" : "s are");
    return -1;
  }
  return 0;
}

int report_check_page(const char *dir, const char *index, const char *tmp, const char *shot, report_check_result *r,
                      const toi_msg *msg) {
  char url[3 * PATH_MAX + 32];
  if (file_url(index, url, sizeof url)) {
    rw_say(msg, "report: --check: the path of %s is too long", index);
    return -1;
  }
  struct stat sb;
  if (chromium(url, tmp, shot, 1) != 0) {
    rw_say(msg, "report: --check: %s did not run (Debian package chromium: apt-get install chromium)", browser());
    return -1;
  }
  if (chromium(url, tmp, shot, 0) != 0 || stat(shot, &sb) != 0 || sb.st_size == 0) {
    rw_say(msg, "report: --check: %s wrote no screenshot %s", browser(), shot);
    return -1;
  }
  return judge(msg, dir, tmp, r);
}
