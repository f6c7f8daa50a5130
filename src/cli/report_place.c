/* report_place.c: the report's folder on disk: --out checked, the report written beside it and swapped
 * into place, removed on a signal while unfinished; the temporary folder of `report --check`. */
#define _GNU_SOURCE /* renameat2 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"
#include "report.h"
#include "report_check.h"
#include "report_files.h"
#include "report_place.h"

/* The file that marks a folder as a report's, and lists what that report
 * made: --out replaces a folder only while it holds nothing else. */
#define MARKER ".toibench-report"
#define MARKER_TAG "toibench-report v1"

/* Relative paths, folders with a trailing '/'. */
typedef struct path_list {
  char **v;
  size_t n, cap;
} path_list;

static void path_list_free(path_list *l) {
  for (size_t i = 0; i < l->n; i++) free(l->v[i]);
  free(l->v);
  memset(l, 0, sizeof *l);
}

static int path_list_add(path_list *l, const char *s) {
  if (l->n == l->cap) {
    size_t cap = l->cap ? 2 * l->cap : 64;
    char **v = realloc(l->v, cap * sizeof *v);
    if (!v) return -1;
    l->v = v;
    l->cap = cap;
  }
  return (l->v[l->n] = strdup(s)) ? (l->n++, 0) : -1;
}

static int path_list_has(const path_list *l, const char *s) {
  for (size_t i = 0; i < l->n; i++)
    if (!strcmp(l->v[i], s)) return 1;
  return 0;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Calls visit on every entry under the folder open as dfd (closed here),
 * rel its path from the top ("data/cdf.dat", "data/" for a folder), never
 * following a link; a folder's entries follow it when visit returns 0.
 * Returns the first nonzero visit result, or -1 when a folder cannot be read
 * or lies deeper than depth. */
static int walk(int dfd, const char *prefix, int depth, int (*visit)(const char *rel, void *ud), void *ud) {
  DIR *dp = fdopendir(dfd);
  if (!dp) {
    close(dfd);
    return -1;
  }
  int rc = 0;
  char rel[PATH_MAX];
  for (struct dirent *e; !rc && (e = readdir(dp));) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    struct stat sb;
    int is_dir = fstatat(dirfd(dp), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(sb.st_mode);
    if ((size_t)snprintf(rel, sizeof rel, "%s%s%s", prefix, e->d_name, is_dir ? "/" : "") >= sizeof rel) {
      rc = -1;
      break;
    }
    rc = visit(rel, ud);
    if (rc || !is_dir) continue;
    int sub = depth > 0 ? openat(dirfd(dp), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
    rc = sub < 0 ? -1 : walk(sub, rel, depth - 1, visit, ud);
  }
  closedir(dp);
  return rc;
}

static int walk_path(const char *dir, int (*visit)(const char *rel, void *ud), void *ud) {
  int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  return dfd < 0 ? -1 : walk(dfd, "", 8, visit, ud);
}

static int collect(const char *rel, void *ud) { return path_list_add(ud, rel); }

/* Writes the marker into the finished report's folder tmp: its tag, the
 * version, and every path in the folder, sorted. 0 or -1 (error printed). */
static int write_marker(const char *tmp) {
  path_list l = {0};
  if (walk_path(tmp, collect, &l)) {
    cli_error("report: cannot list %s: %s", tmp, strerror(errno));
    path_list_free(&l);
    return -1;
  }
  qsort(l.v, l.n, sizeof *l.v, cmp_str);
  FILE *f = rw_open_in(&cli_msg_stderr, tmp, MARKER);
  if (f) {
    fprintf(f, MARKER_TAG "\ntoibench " TOI_VERSION "\n"
               "# 'toibench report --out' replaces this folder only while it holds what is listed below\n"
               "# (and screenshot.png, from 'toibench report --check'); it refuses when anything else is here.\n");
    for (size_t i = 0; i < l.n; i++) fprintf(f, "%s\n", l.v[i]);
  }
  path_list_free(&l);
  if (!f || rw_close_ok(f)) {
    if (f) cli_error("report: cannot write %s/" MARKER, tmp);
    return -1;
  }
  return 0;
}

/* The paths the marker of dir lists: 1, 0 when dir has no marker, -1 when
 * it has one that is not ours (or cannot be read). */
static int read_marker(const char *dir, path_list *l) {
  char path[PATH_MAX + 32], line[PATH_MAX + 2];
  snprintf(path, sizeof path, "%s/" MARKER, dir);
  int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return errno == ENOENT ? 0 : -1;
  FILE *f = fdopen(fd, "r");
  if (!f) {
    close(fd);
    return -1;
  }
  int rc = fgets(line, sizeof line, f) && !strcmp(line, MARKER_TAG "\n") ? 1 : -1;
  while (rc == 1 && fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = 0;
    if (line[0] && line[0] != '#' && strncmp(line, "toibench ", 9) && path_list_add(l, line)) rc = -1;
  }
  fclose(f);
  return rc;
}

/* What a folder to be replaced may hold: what its marker lists, or (list
 * NULL, a report made before the marker) what such a report could hold. */
typedef struct out_check {
  const path_list *list;
  char foreign[PATH_MAX];
} out_check;

/* The shape of a report made before the marker existed: its files at the
 * top, and in img/, data/ and worst/ only files of their kinds. */
static int legacy_part(const char *rel) {
  static const char *const top[] = {"index.html", "summary.md", "report.json", "worst.cases", "img/", "data/",
                                    "worst/"};
  static const char *const folder[][3] = {{"img/", ".svg", ".png"}, {"data/", ".dat", ""}, {"worst/", ".cases", ""}};
  for (size_t i = 0; i < sizeof top / sizeof *top; i++)
    if (!strcmp(rel, top[i])) return 1;
  for (size_t i = 0; i < 3; i++) {
    size_t pl = strlen(folder[i][0]), n = strlen(rel);
    if (strncmp(rel, folder[i][0], pl) || strchr(rel + pl, '/')) continue;
    for (int k = 1; k < 3; k++) {
      size_t el = strlen(folder[i][k]);
      if (el && n > pl + el && !strcmp(rel + n - el, folder[i][k])) return 1;
    }
  }
  return 0;
}

static int check_entry(const char *rel, void *ud) {
  out_check *c = ud;
  if (!strcmp(rel, MARKER) || !strcmp(rel, "screenshot.png")) return 0;
  if (c->list ? path_list_has(c->list, rel) : legacy_part(rel)) return 0;
  snprintf(c->foreign, sizeof c->foreign, "%s", rel);
  return 1;
}

/* An earlier report's report.json (made before the marker existed). */
static int legacy_report(const char *dir) {
  char path[PATH_MAX + 32], head[256] = "";
  snprintf(path, sizeof path, "%s/report.json", dir);
  FILE *f = fopen(path, "re");
  if (!f) return 0;
  size_t n = fread(head, 1, sizeof head - 1, f);
  head[n] = 0;
  fclose(f);
  return strstr(head, "\"format\": \"toibench-report v1\"") != NULL;
}

static int count_entry(const char *rel, void *ud) {
  (void)rel;
  ++*(int *)ud;
  return 1; /* one is enough */
}

/* 0 when --out may replace dir: it does not exist, is an empty folder, or
 * holds a report and nothing but what that report made (its marker's list;
 * before the marker, the files a report has) and the screenshot of
 * `report --check`. Else -1 with the reason in why; shown is the name the
 * user gave. Nothing a user added to a report's folder is ever deleted. */
static int replaceable(const char *dir, const char *shown, char *why, size_t n) {
  struct stat sb;
  if (lstat(dir, &sb) != 0) {
    if (errno == ENOENT) return 0;
    return snprintf(why, n, "%s: %s", shown, strerror(errno)), -1;
  }
  if (!S_ISDIR(sb.st_mode)) return snprintf(why, n, "%s exists and is not a folder: choose another --out", shown), -1;
  path_list l = {0};
  out_check c = {NULL, ""};
  int marked = read_marker(dir, &l), entries = 0;
  c.list = marked == 1 ? &l : NULL;
  int rc; /* 1: a foreign entry, 2: no report and not empty, -1: unreadable */
  if (marked == 1 || (marked == 0 && legacy_report(dir))) rc = walk_path(dir, check_entry, &c);
  else rc = walk_path(dir, count_entry, &entries) < 0 ? -1 : entries ? 2 : 0;
  path_list_free(&l);
  if (rc == 1)
    snprintf(why, n,
             "%s holds '%s', which the report there did not make: move it out of %s (replacing the report would "
             "delete it) or choose another --out",
             shown, c.foreign, shown);
  else if (rc == 2)
    snprintf(why, n,
             "%s is not empty and holds no toibench report (no " MARKER " in it): choose another --out, or empty it",
             shown);
  else if (rc < 0)
    snprintf(why, n, "%s: cannot read the folder: %s", shown, strerror(errno));
  return rc ? -1 : 0;
}

/* Empties the folder open as dfd (closed here): unlinkat on each entry, never
 * following a symbolic link, folders emptied first. depth bounds the
 * recursion (a report holds data/ and img/). 0 or -1. */
static int empty_dir_fd(int dfd, int depth) {
  DIR *dp = fdopendir(dfd);
  if (!dp) {
    close(dfd);
    return -1;
  }
  int rc = 0;
  struct dirent *e;
  while ((e = readdir(dp))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    if (unlinkat(dfd, e->d_name, 0) == 0) continue;
    if (errno != EISDIR && errno != EPERM) {
      rc = -1;
      continue;
    }
    int sub = depth > 0 ? openat(dfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
    if (sub < 0 || empty_dir_fd(sub, depth - 1) || unlinkat(dfd, e->d_name, AT_REMOVEDIR)) rc = -1;
  }
  closedir(dp);
  return rc;
}

/* Removes the folder path that this report created (its temporary folder, or
 * the previous report it replaced), without a shell and without following a
 * symbolic link out of it. 0 or -1. */
static int remove_tree(const char *path) {
  int dfd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dfd < 0) return -1;
  if (empty_dir_fd(dfd, 8)) return -1;
  return rmdir(path);
}

/* The longest --out path handled: the temporary folder beside it
 * (.NAME.toibench-tmp.PID.START.BOOT.NS.XXXXXX, NAME cut to 32 bytes) and the
 * files in it (data/near_contact.dat) must stay under PATH_MAX. */
#define OUT_PATH_MAX (PATH_MAX - 160)

/* The folder --out DIR names, into real: DIR without its trailing slashes,
 * or the folder it links to (the link stays, the folder is replaced). */
static void out_target(const char *dir, char *real, size_t n) {
  char trimmed[PATH_MAX];
  size_t dl = strlen(dir);
  while (dl > 1 && dir[dl - 1] == '/') dl--;
  snprintf(trimmed, sizeof trimmed, "%.*s", (int)dl, dir);
  cli_resolve_link(trimmed, real, n);
}

int report_out_check(const char *dir) {
  size_t n = strlen(dir);
  if (n == 0) {
    cli_error("report: --out needs a folder");
    return -1;
  }
  if (n > OUT_PATH_MAX) {
    cli_error("report: the output folder's path is %zu bytes long; at most %d are handled (choose a shorter --out)",
              n, OUT_PATH_MAX);
    return -1;
  }
  char real[PATH_MAX], why[2 * PATH_MAX + 256];
  out_target(dir, real, sizeof real);
  if (strlen(real) > OUT_PATH_MAX) {
    cli_error("report: %s leads to a path of %zu bytes; at most %d are handled (choose a shorter --out)", dir,
              strlen(real), OUT_PATH_MAX);
    return -1;
  }
  if (replaceable(real, dir, why, sizeof why)) {
    cli_error("report: %s", why);
    return -1;
  }
  return 0;
}

/* Puts the finished report tmp in the place of real (shown: the name given),
 * replacing what replaceable allows. The two change places at once
 * (RENAME_EXCHANGE: real is never missing), the earlier folder, now at tmp,
 * is checked again (nothing added to it since the start) and removed. 0, or
 * -1 (error printed) with the new report at tmp, or -2 when tmp holds the
 * earlier folder, which could not be put back. */
static int swap_into_place(const char *tmp, const char *real, const char *shown) {
  char why[2 * PATH_MAX + 256];
  if (renameat2(AT_FDCWD, tmp, AT_FDCWD, real, RENAME_EXCHANGE) == 0) {
    if (replaceable(tmp, shown, why, sizeof why)) {
      cli_error("report: %s", why);
      if (renameat2(AT_FDCWD, tmp, AT_FDCWD, real, RENAME_EXCHANGE) == 0) return -1;
      cli_error("report: the earlier folder could not be put back: it is now %s", tmp);
      return -2; /* tmp is theirs now: not to be removed */
    }
    if (remove_tree(tmp)) /* the report is in place; the next one removes this */
      cli_error("report: could not remove the earlier report, now %s: %s", tmp, strerror(errno));
    return 0;
  }
  int err = errno;
  if (err == ENOENT) {
    if (rename(tmp, real) == 0) return 0;
    err = errno;
  } else if (err == EINVAL || err == ENOSYS || err == EOPNOTSUPP) {
    /* No exchange on this file system: the earlier folder moves aside to a
     * temporary's name (a run killed here leaves it to the next run's sweep). */
    char old[PATH_MAX], dirpart[PATH_MAX];
    snprintf(dirpart, sizeof dirpart, "%s", real);
    char *slash = strrchr(dirpart, '/');
    const char *base = slash ? slash + 1 : dirpart;
    if (slash) *slash = 0;
    if (replaceable(real, shown, why, sizeof why)) {
      cli_error("report: %s", why);
      return -1;
    }
    sigset_t prev;
    cli_hold_signals(&prev);
    int moved = cli_temp_pattern(old, sizeof old, slash ? (slash == dirpart ? "/" : dirpart) : ".", base) == 0 &&
                mkdtemp(old) && rename(real, old) == 0;
    err = errno;
    if (moved && rename(tmp, real) != 0) {
      err = errno;
      rename(old, real);
      moved = 0;
    }
    if (moved) cli_cleanup_register_dir(old);
    pthread_sigmask(SIG_SETMASK, &prev, NULL);
    if (moved) {
      remove_tree(old);
      cli_cleanup_unregister(old);
      return 0;
    }
  }
  cli_error("report: cannot move the report into %s: %s", shown, strerror(err));
  return -1;
}

int report_write(const rep_data *d, const char *dir) {
  char real[PATH_MAX], tmp[PATH_MAX], parent[PATH_MAX];
  if (report_out_check(dir)) return -1;
  out_target(dir, real, sizeof real);
  snprintf(parent, sizeof parent, "%s", real);
  char *slash = strrchr(parent, '/');
  const char *base = slash ? real + (slash - parent) + 1 : real;
  if (!slash) snprintf(parent, sizeof parent, ".");
  else if (slash == parent) parent[1] = 0;
  else {
    *slash = 0;
    if (rw_mkdir_p(parent)) {
      cli_error("report: cannot create %s: %s", parent, strerror(errno));
      return -1;
    }
  }
  cli_temp_sweep(parent); /* what killed reports left here */
  if (cli_temp_pattern(tmp, sizeof tmp, parent, base)) {
    cli_error("report: the path of %s is too long", dir);
    return -1;
  }
  /* SIGINT and SIGTERM wait until the folder is registered for removal: one
   * arriving between mkdtemp and the registration would leave it behind. */
  sigset_t prev;
  cli_hold_signals(&prev);
  if (!mkdtemp(tmp)) {
    int e = errno;
    pthread_sigmask(SIG_SETMASK, &prev, NULL);
    cli_error("report: cannot create a temporary folder beside %s: %s", dir, strerror(e));
    return -1;
  }
  /* mkdtemp makes it 0700: give it what mkdir(0777) would under the umask. */
  mode_t mask = umask(0);
  umask(mask);
  chmod(tmp, 0777 & ~mask);
  cli_cleanup_register_dir(tmp); /* removed on SIGINT/SIGTERM while unfinished */
  pthread_sigmask(SIG_SETMASK, &prev, NULL);
  if (report_write_files(d, tmp) || write_marker(tmp)) goto fail;
  int swapped = swap_into_place(tmp, real, dir);
  if (swapped == -1) goto fail;
  cli_cleanup_unregister(tmp);
  return swapped;
fail:
  remove_tree(tmp);
  cli_cleanup_unregister(tmp);
  return -1;
}

/* ---- report --check: Chromium's profile in a temporary folder ---- */

static int remove_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw) {
  (void)sb, (void)type, (void)ftw;
  remove(path);
  return 0;
}

/* Removes the temporary folder (Chromium's profile included), never following a symbolic link. */
static void remove_tmp(const char *tmp) { nftw(tmp, remove_entry, 16, FTW_DEPTH | FTW_PHYS); }

int report_check(const char *dir, const char *shot_in) {
  char abs[PATH_MAX], index[PATH_MAX + 16], shot[PATH_MAX + 32];
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
  report_check_result r;
  int rc = report_check_page(dir, index, tmp, shot, &r, &cli_msg_stderr) ? EXIT_RUNTIME : EXIT_OK;
  if (rc == EXIT_OK)
    fprintf(stderr, "report: %s/index.html: %d images loaded, no error, every summary table fits " REPORT_CHECK_WIDTH
                    " pixels; screenshot %s\n", dir, r.images, shot);
  remove_tmp(tmp);
  cli_cleanup_unregister(tmp);
  return rc;
}
