/* report_check.c: `toibench report --check DIR`: the report opened in headless Chromium, every image
 * loaded, no error, a screenshot saved. Chromium runs by posix_spawn with an argv, never a shell. */
#define _XOPEN_SOURCE 700 /* nftw */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
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
#include "cli.h"
#include "report_check.h"

/* The window's width: every summary table must fit it. */
#define CHECK_WIDTH "1280"

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
                  "--window-size=" CHECK_WIDTH ",2400", dump ? "--dump-dom" : shot_arg, (char *)url, NULL};
  return run_to_files(argv, out, log);
}

/* The verdict on the page, said on stderr. EXIT_OK or EXIT_RUNTIME. */
static int judge(const char *dir, const char *tmp, const char *shot) {
  char path[PATH_MAX + 16];
  snprintf(path, sizeof path, "%s/dom.html", tmp);
  char *dom = read_all(path);
  snprintf(path, sizeof path, "%s/log", tmp);
  char *log = read_all(path);
  report_check_result r;
  int bad = report_check_dom(dom, log, &r);
  free(dom);
  free(log);
  if (bad) {
    cli_error("report: %s/index.html: no check marker in the page Chromium loaded (not a report of this "
              "version, or its script did not run)", dir);
    return EXIT_RUNTIME;
  }
  if (r.broken || r.errors || r.console || r.images == 0) {
    cli_error("report: %s/index.html: %d of %d images not loaded%s%s, %d errors, %d console messages", dir, r.broken,
              r.images, r.broken ? ": " : "", r.list, r.errors, r.console);
    return EXIT_RUNTIME;
  }
  if (r.wide) {
    cli_error("report: %s/index.html: %d summary table%s wider than the page at " CHECK_WIDTH " pixels (cut off)", dir,
              r.wide, r.wide == 1 ? " is" : "s are");
    return EXIT_RUNTIME;
  }
  fprintf(stderr, "report: %s/index.html: %d images loaded, no error, every summary table fits " CHECK_WIDTH
                  " pixels; screenshot %s\n", dir, r.images, shot);
  return EXIT_OK;
}

static int remove_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw) {
  (void)sb, (void)type, (void)ftw;
  remove(path);
  return 0;
}

/* Removes the temporary folder (Chromium's profile included), never following a symbolic link. */
static void remove_tmp(const char *tmp) { nftw(tmp, remove_entry, 16, FTW_DEPTH | FTW_PHYS); }

int report_check(const char *dir, const char *shot_in) {
  char abs[PATH_MAX], index[PATH_MAX + 16], url[3 * PATH_MAX + 32], shot[PATH_MAX + 32];
  if (!realpath(dir, abs)) {
    cli_error("report: --check %s: %s", dir, strerror(errno));
    return EXIT_RUNTIME;
  }
  snprintf(index, sizeof index, "%s/index.html", abs);
  if (access(index, R_OK) != 0) {
    cli_error("report: --check: no report in %s (no index.html; run 'toibench report --out %s' first)", dir, dir);
    return EXIT_RUNTIME;
  }
  if (shot_in)
    snprintf(shot, sizeof shot, "%s", shot_in);
  else
    snprintf(shot, sizeof shot, "%s/screenshot.png", abs);
  if (file_url(index, url, sizeof url)) {
    cli_error("report: --check: the path of %s is too long", index);
    return EXIT_RUNTIME;
  }
  /* Chromium's profile: a folder named so that the next check removes it
     when a killed one left it (cli_temp_sweep), and removed on a signal. */
  char tmp[PATH_MAX];
  cli_temp_sweep("/tmp");
  cli_temp_pattern(tmp, sizeof tmp, "/tmp", "check");
  sigset_t prev;
  cli_hold_signals(&prev);
  int made = mkdtemp(tmp) != NULL;
  int err = errno;
  if (made) cli_cleanup_register_dir(tmp);
  pthread_sigmask(SIG_SETMASK, &prev, NULL);
  if (!made) {
    cli_error("report: --check: cannot create a temporary folder: %s", strerror(err));
    return EXIT_RUNTIME;
  }
  int rc = EXIT_RUNTIME;
  struct stat sb;
  if (chromium(url, tmp, shot, 1) != 0)
    cli_error("report: --check: %s did not run (Debian package chromium: apt-get install chromium)", browser());
  else if (chromium(url, tmp, shot, 0) != 0 || stat(shot, &sb) != 0 || sb.st_size == 0)
    cli_error("report: --check: %s wrote no screenshot %s", browser(), shot);
  else
    rc = judge(dir, tmp, shot);
  remove_tmp(tmp);
  cli_cleanup_unregister(tmp);
  return rc;
}
