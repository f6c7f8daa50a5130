/* cli_out.c: outputs that appear only when complete, the temporaries behind them, and the signals that remove them. */
#define _GNU_SOURCE /* O_TMPFILE, AT_EMPTY_PATH */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/sendfile.h>
#endif
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "cli.h"
#include "tempfile.h"

/* ---- signals: a temporary is removed when a signal ends the process ---- */

/* Temporary files not yet moved into place and temporary folders being
 * filled, removed if a signal ends the process (a killed `gen -o` must not
 * leave a partial file behind); the signal is then raised again, so the
 * process ends as the signal asks (a shell sees status 128 + N: 130 for
 * SIGINT, 143 for SIGTERM). Only async-signal-safe calls are made in the
 * handler: unlink, and for a folder open/getdents64/unlinkat/rmdir. */
#define MAX_PENDING 16
enum { SLOT_FREE = 0, SLOT_WRITING, SLOT_FILE, SLOT_DIR };
static char pending[MAX_PENDING][4096];
static volatile sig_atomic_t pending_used[MAX_PENDING];
static volatile sig_atomic_t handlers_installed;

/* The signals that end a command and get the cleanup handler, and whether
   each was ignored when the process started (nohup, a shell's `trap '' INT`):
   an ignored one stays ignored. */
static const int fatal_sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
enum { NFATAL = sizeof fatal_sigs / sizeof *fatal_sigs };
static int ignored_at_start[NFATAL];
static int start_noted;

void cli_signals_note_start(void) {
  if (start_noted) return;
  for (int i = 0; i < NFATAL; i++) {
    struct sigaction cur;
    ignored_at_start[i] = sigaction(fatal_sigs[i], NULL, &cur) == 0 && !(cur.sa_flags & SA_SIGINFO) &&
                          cur.sa_handler == SIG_IGN;
  }
  start_noted = 1;
}

/* The entries of the folder open as fd removed, folders among them to depth
   levels; async-signal-safe (no malloc, no stdio). */
static void remove_entries(int fd, int depth) {
  struct dent {
    unsigned long long ino;
    long long off;
    unsigned short reclen;
    unsigned char type;
    char name[];
  };
  char buf[4096] __attribute__((aligned(8)));
  for (int pass = 0, removed = 1; removed && pass < 64; pass++) {
    removed = 0;
    lseek(fd, 0, SEEK_SET);
    for (long n; (n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0;) {
      for (long off = 0; off < n;) {
        struct dent *d = (struct dent *)(buf + off);
        off += d->reclen;
        if (d->name[0] == '.' && (!d->name[1] || (d->name[1] == '.' && !d->name[2]))) continue;
        if (unlinkat(fd, d->name, 0) == 0) {
          removed = 1;
          continue;
        }
        int sub = depth > 0 ? openat(fd, d->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
        if (sub < 0) continue;
        remove_entries(sub, depth - 1);
        close(sub);
        if (unlinkat(fd, d->name, AT_REMOVEDIR) == 0) removed = 1;
      }
    }
  }
}

static void remove_tree(const char *path) {
  int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return;
  remove_entries(fd, 8);
  close(fd);
  rmdir(path);
}

/* cli_defer_signals: the first SIGINT, SIGTERM or SIGHUP is only recorded here. */
static volatile sig_atomic_t defer_first, deferred;

static void on_fatal_signal(int sig) {
  if (defer_first && !deferred && sig != SIGPIPE) {
    deferred = sig;
    return;
  }
  for (int i = 0; i < MAX_PENDING; i++) {
    if (pending_used[i] == SLOT_FILE) unlink(pending[i]);
    if (pending_used[i] == SLOT_DIR) remove_tree(pending[i]);
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

static void install_handlers(void) {
  if (handlers_installed) return;
  cli_signals_note_start(); /* a program that did not note them at its start: as they are now */
  for (int i = 0; i < NFATAL; i++) {
    if (ignored_at_start[i]) continue;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_fatal_signal;
    sigfillset(&sa.sa_mask); /* one cleanup at a time */
    sigaction(fatal_sigs[i], &sa, NULL);
  }
  handlers_installed = 1;
}

void cli_defer_signals(int on) {
  if (on) {
    deferred = 0;
    install_handlers();
  }
  defer_first = on;
}

int cli_deferred_signal(void) { return deferred; }

/* Records path for removal on a signal: 0, or -1 when every slot is taken. */
static int pending_add_kind(const char *path, int kind) {
  install_handlers();
  for (int i = 0; i < MAX_PENDING; i++)
    if (__sync_bool_compare_and_swap(&pending_used[i], SLOT_FREE, SLOT_WRITING)) {
      snprintf(pending[i], sizeof pending[i], "%s", path);
      pending_used[i] = kind;
      return 0;
    }
  return -1;
}

static void pending_add(const char *tmp) { pending_add_kind(tmp, SLOT_FILE); }

static void pending_remove(const char *tmp) {
  for (int i = 0; i < MAX_PENDING; i++)
    if ((pending_used[i] == SLOT_FILE || pending_used[i] == SLOT_DIR) && !strcmp(pending[i], tmp))
      pending_used[i] = SLOT_FREE;
}

int cli_cleanup_register_dir(const char *path) {
  if (strlen(path) >= sizeof pending[0]) return -1;
  return pending_add_kind(path, SLOT_DIR);
}

void cli_cleanup_unregister(const char *path) { pending_remove(path); }

/* Signals that end the process, held while a temporary is created and
   recorded, so that none is created unrecorded. */
void cli_hold_signals(sigset_t *old) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &set, old);
}

/* ---- named temporaries whose owner can be looked up ---- */

/* Who this process is, as its temporaries' names say: its pid is only
   meaningful within one boot (the first 12 hex digits of boot_id) and one pid
   namespace (its inode), and only with its start time (field 22 of
   /proc/PID/stat, clock ticks since boot), which a reused pid does not share.
   known is 0 when /proc cannot tell; the fields are then written as 0 and no
   temporary is ever judged stale. */
typedef struct proc_self {
  int known;
  char boot[13];
  unsigned long long ns, start;
} proc_self;

/* Field 3 (the state) and field 22 (the start time) of /proc/PID/stat: 0, or
   -1 with errno set (ENOENT: no such process). The name in field 2 may hold
   spaces and parentheses: the fields are counted after its last ')'. */
static int stat_start(long pid, char *state, unsigned long long *start) {
  char path[64], buf[1024];
  snprintf(path, sizeof path, "/proc/%ld/stat", pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  int err = errno;
  close(fd);
  if (n <= 0) {
    errno = n < 0 ? err : ENOENT; /* a process that ended while read */
    return -1;
  }
  buf[n] = 0;
  char *p = strrchr(buf, ')');
  if (!p || p[1] != ' ') return errno = EINVAL, -1;
  *state = p[2];
  p += 2;
  for (int field = 3; field < 22; field++) {
    p = strchr(p, ' ');
    if (!p) return errno = EINVAL, -1;
    p++;
  }
  char *end;
  *start = strtoull(p, &end, 10);
  return end == p ? (errno = EINVAL, -1) : 0;
}

static proc_self self;
static pthread_once_t self_once = PTHREAD_ONCE_INIT;

static void self_init(void) {
  char id[64] = "", link[64] = "", state;
  int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
  ssize_t n = fd >= 0 ? read(fd, id, sizeof id - 1) : -1;
  if (fd >= 0) close(fd);
  size_t k = 0;
  for (ssize_t i = 0; i < n && k < 12; i++)
    if ((id[i] >= '0' && id[i] <= '9') || (id[i] >= 'a' && id[i] <= 'f')) self.boot[k++] = id[i];
  self.boot[k] = 0;
  ssize_t ln = readlink("/proc/self/ns/pid", link, sizeof link - 1);
  link[ln > 0 ? ln : 0] = 0;
  const char *open_br = strchr(link, '[');
  self.ns = open_br ? strtoull(open_br + 1, NULL, 10) : 0;
  self.known = k == 12 && self.ns && stat_start((long)getpid(), &state, &self.start) == 0;
  if (!self.known) {
    snprintf(self.boot, sizeof self.boot, "0");
    self.ns = self.start = 0;
  }
}

static const proc_self *self_id(void) {
  pthread_once(&self_once, self_init);
  return &self;
}

/* The longest part of the output's own name kept in a temporary's name, so
   that the temporary's name fits in NAME_MAX (255) bytes. */
#define TEMP_NAME_KEEP 32

int cli_temp_pattern(char *buf, size_t n, const char *dir, const char *name) {
  const proc_self *me = self_id();
  size_t keep = strlen(name) < TEMP_NAME_KEEP ? strlen(name) : TEMP_NAME_KEEP;
  int w = snprintf(buf, n, "%s/.%.*s" CLI_TEMP_TAG "%ld.%llu.%s.%llu.XXXXXX", dir, (int)keep, name, (long)getpid(),
                   me->start, me->boot, me->ns);
  if (w < 0 || (size_t)w >= n) return errno = ENAMETOOLONG, -1;
  return 0;
}

/* The run of digits (at most max) that ends at end, preceded by a '.' just
   after begin's first character or later: its first digit, or NULL. hex
   takes a-f too. */
static const char *digits_before(const char *begin, const char *end, size_t max, int hex) {
  const char *p = end;
  while (p > begin && (size_t)(end - p) < max &&
         ((p[-1] >= '0' && p[-1] <= '9') || (hex && p[-1] >= 'a' && p[-1] <= 'f')))
    p--;
  return p < end && p > begin + 1 && p[-1] == '.' ? p : NULL;
}

/* Reads a temporary's name: 0 with its fields, or -1 when name is not
   exactly .NAME.toibench-tmp.PID.START.BOOT.NS.XXXXXX. */
static int parse_temp_name(const char *name, long *pid, unsigned long long *start, char boot[13],
                           unsigned long long *ns) {
  size_t len = strlen(name);
  if (name[0] != '.' || len < 8 || name[len - 7] != '.') return -1;
  for (size_t i = len - 6; i < len; i++) {
    char c = name[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))) return -1;
  }
  const char *f_ns = digits_before(name, name + len - 7, 20, 0);
  const char *f_boot = f_ns ? digits_before(name, f_ns - 1, 12, 1) : NULL;
  const char *f_start = f_boot ? digits_before(name, f_boot - 1, 20, 0) : NULL;
  const char *f_pid = f_start ? digits_before(name, f_start - 1, 10, 0) : NULL;
  size_t tag = strlen(CLI_TEMP_TAG);
  if (!f_pid || (size_t)(f_pid - name) < 2 + tag || strncmp(f_pid - tag, CLI_TEMP_TAG, tag)) return -1;
  snprintf(boot, 13, "%.*s", (int)(f_ns - 1 - f_boot), f_boot); /* at most 12 digits, as read */
  *pid = strtol(f_pid, NULL, 10);
  *start = strtoull(f_start, NULL, 10);
  *ns = strtoull(f_ns, NULL, 10);
  return 0;
}

int cli_temp_is_stale(const char *name) {
  long pid;
  unsigned long long start, ns, now;
  char boot[13], state;
  if (parse_temp_name(name, &pid, &start, boot, &ns) || pid <= 0) return 0;
  const proc_self *me = self_id();
  /* Another boot's or another namespace's pid cannot be looked up here: such
     a temporary may belong to a live process (a container, another machine
     sharing the folder). */
  if (!me->known || strcmp(boot, me->boot) || ns != me->ns) return 0;
  if (stat_start(pid, &state, &now) != 0) return errno == ENOENT || errno == ESRCH;
  return now != start || state == 'Z' || state == 'X';
}

static int remove_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw) {
  (void)sb, (void)ftw;
  if (type == FTW_DP) rmdir(path);
  else unlink(path);
  return 0; /* best effort: what cannot be removed stays */
}

void cli_temp_sweep(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return;
  char path[4096 + 256];
  for (struct dirent *e; (e = readdir(d));) {
    if (e->d_name[0] != '.' || !strstr(e->d_name, CLI_TEMP_TAG) || !cli_temp_is_stale(e->d_name)) continue;
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= sizeof path) continue;
    nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
  }
  closedir(d);
}

/* The folder of path into dir (size n) and its last component: "." for a
   bare name, "/" for one under the root. */
static const char *split_path(const char *path, char *dir, size_t n) {
  const char *slash = strrchr(path, '/');
  if (!slash) {
    snprintf(dir, n, ".");
    return path;
  }
  snprintf(dir, n, "%.*s", slash == path ? 1 : (int)(slash - path), path);
  return slash + 1;
}

int cli_resolve_link(const char *path, char *target, size_t n) {
  struct stat sb;
  int w = snprintf(target, n, "%s", path);
  if (lstat(path, &sb) != 0 || !S_ISLNK(sb.st_mode)) return w < 0 || (size_t)w >= n ? -1 : 0;
  if (stat(path, &sb) == 0) {
    char *real = realpath(path, NULL);
    if (real) w = snprintf(target, n, "%s", real);
    free(real);
    return w < 0 || (size_t)w >= n ? -1 : 0;
  }
  /* A link to nothing yet: what it names, relative to the link's folder. */
  char link[4096];
  ssize_t k = readlink(path, link, sizeof link - 1);
  if (k <= 0) return 0;
  link[k] = 0;
  const char *slash = strrchr(path, '/');
  w = link[0] == '/' || !slash ? snprintf(target, n, "%s", link)
                               : snprintf(target, n, "%.*s/%s", (int)(slash - path), path, link);
  if (w < 0 || (size_t)w >= n) return snprintf(target, n, "%s", path), -1;
  return 0;
}

/* ---- cli_out ---- */

/* Six letters or digits of a temporary's name, as mkstemp draws them. */
static void fill_suffix(char *six, unsigned long long *x) {
  static const char digits[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  for (int k = 0; k < 6; k++) {
    *x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
    six[k] = digits[(*x >> 33) % (sizeof digits - 1)];
  }
}

static unsigned long long suffix_seed(const void *salt) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (unsigned long long)ts.tv_nsec ^ ((unsigned long long)getpid() << 32) ^ (uintptr_t)salt;
}

/* Makes tmp (its pattern from cli_temp_pattern) a name no file has, by
   calling try with each candidate until it says anything but EEXIST: try's
   result. */
static int unique_name(char *tmp, int (*try)(const char *name, void *ud), void *ud) {
  unsigned long long x = suffix_seed(tmp);
  char *six = tmp + strlen(tmp) - 6;
  for (int attempt = 0; attempt < 1000; attempt++) {
    fill_suffix(six, &x);
    int r = try(tmp, ud);
    if (r >= 0 || errno != EEXIST) return r;
  }
  errno = EEXIST;
  return -1;
}

/* A new file of that name, mode 0666 with the umask applied as for any
   output (mkstemp would force 0600): the descriptor, or -1. */
static int try_create(const char *name, void *ud) {
  (void)ud;
  return open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
}

/* A file without a name in dir (O_TMPFILE: nothing to leave behind however
   the process ends), given a name at commit through /proc/self/fd; -1 with
   errno EOPNOTSUPP where that cannot be done (a file system without
   O_TMPFILE, no /proc). The mode is 0666 with the umask applied, as for a
   named file. */
static int open_unnamed(const char *dir) {
#ifdef O_TMPFILE
  int fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
  if (fd < 0) {
    if (errno == EISDIR || errno == EINVAL || errno == ENOSYS) errno = EOPNOTSUPP; /* older kernels' answers */
    return -1;
  }
  char proc[64];
  struct stat sb;
  snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
  if (stat(proc, &sb) != 0) {
    close(fd);
    return errno = EOPNOTSUPP, -1;
  }
  return fd;
#else
  (void)dir;
  errno = EOPNOTSUPP;
  return -1;
#endif
}

int cli_out_open(cli_out *o, const char *path) {
  memset(o, 0, sizeof *o);
  if (!path || !strcmp(path, "-")) {
    o->f = stdout;
    o->is_stdout = 1;
    return 0;
  }
  if (strlen(path) + 16 >= sizeof o->path) {
    cli_error("%s: path too long", path);
    return -1;
  }
  /* A device or a pipe (/dev/null, a FIFO) is written directly: it cannot be
   * replaced by a rename, and has no partial state to protect. A symbolic
   * link is followed, so the file it names is what gets replaced. */
  struct stat sb;
  char target[4096];
  snprintf(target, sizeof target, "%s", path);
  if (stat(path, &sb) == 0) {
    if (S_ISDIR(sb.st_mode)) {
      cli_error("%s: is a directory", path);
      return -1;
    }
    if (!S_ISREG(sb.st_mode)) {
      o->f = fopen(path, "we");
      if (!o->f) {
        cli_error("%s: cannot open: %s", path, strerror(errno));
        return -1;
      }
      o->is_stdout = 0;
      o->direct = 1;
      snprintf(o->path, sizeof o->path, "%s", path);
      return 0;
    }
    char *real = realpath(path, NULL);
    if (real) {
      snprintf(target, sizeof target, "%s", real);
      free(real);
    }
  } else {
    cli_resolve_link(path, target, sizeof target);
  }
  char dir[4096];
  const char *base = split_path(target, dir, sizeof dir);
  /* The name given at commit (or at once, without O_TMPFILE) must fit: known now, not after the work. */
  if (strlen(target) + 16 >= sizeof o->path || cli_temp_pattern(o->tmp, sizeof o->tmp, dir, base)) {
    cli_error("%s: path too long", path);
    return -1;
  }
  snprintf(o->path, sizeof o->path, "%s", target);
  cli_temp_sweep(dir);
  sigset_t old;
  cli_hold_signals(&old);
  install_handlers();
  int fd = open_unnamed(dir);
  if (fd >= 0) {
    o->unnamed = 1;
  } else if (errno == EOPNOTSUPP) {
    fd = unique_name(o->tmp, try_create, NULL);
    if (fd >= 0) pending_add(o->tmp);
  }
  int err = errno;
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (fd < 0) {
    cli_error("%s: cannot create: %s", path, strerror(err));
    return -1;
  }
  o->f = fdopen(fd, "w");
  if (!o->f) {
    err = errno;
    close(fd);
    if (!o->unnamed) {
      unlink(o->tmp);
      pending_remove(o->tmp);
    }
    cli_error("%s: cannot open: %s", path, strerror(err));
    return -1;
  }
  return 0;
}

/* 1 when standard output is the null device: what is written there is
   neither kept nor seen, so there is nothing to take back on failure. */
static int stdout_is_null(void) {
  struct stat so, sn;
  return fstat(STDOUT_FILENO, &so) == 0 && S_ISCHR(so.st_mode) && stat("/dev/null", &sn) == 0 &&
         S_ISCHR(sn.st_mode) && so.st_rdev == sn.st_rdev;
}

/* The spool's stdio buffer: written to the file a whole 1 MiB at a time, at
   offsets that are multiples of it, the file system keeps the held bytes in
   large pages, which cost less to fill, to copy out and to free than the
   4 KiB-aligned writes of whatever size that a block-sized buffer makes
   (on ext4, 61 MB held: about 40% less system time). */
#define SPOOL_BUF_BYTES ((size_t)1 << 20)

int cli_out_open_spooled(cli_out *o, const char *path) {
  /* A file, or the null device (written in place: no copy of bytes thrown away). */
  if ((path && strcmp(path, "-")) || stdout_is_null()) return cli_out_open(o, path);
  memset(o, 0, sizeof *o);
  sigset_t old;
  cli_hold_signals(&old); /* no name left behind by a signal (toi_temp_file) */
  o->f = toi_temp_file();
  int err = errno;
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (!o->f) {
    cli_error("cannot create a temporary file for standard output: %s", strerror(err));
    return -1;
  }
  /* without the memory, the stream's own buffer */
  if ((o->spool_buf = malloc(SPOOL_BUF_BYTES)) && setvbuf(o->f, o->spool_buf, _IOFBF, SPOOL_BUF_BYTES)) {
    free(o->spool_buf);
    o->spool_buf = NULL;
  }
  o->spool = 1;
  return 0;
}

#ifdef __linux__
/* The largest pipe an unprivileged process may ask for by default
   (/proc/sys/fs/pipe-max-size). */
#define SPOOL_PIPE_BYTES (1 << 20)

/* A pipe on fd that holds less than size bytes grown towards
   SPOOL_PIPE_BYTES, best effort: a copy into the default 64 KiB pipe wakes
   its reader and waits for it about every 64 KiB, which for tens of MB costs
   several times the copy itself. A pipe that cannot grow (over the user's
   share of pipe memory, a kernel's refusal) stays as it was. */
static void widen_pipe(int fd, off_t size) {
  struct stat sb;
  if (fstat(fd, &sb) != 0 || !S_ISFIFO(sb.st_mode)) return;
  int cur = fcntl(fd, F_GETPIPE_SZ);
  if (cur < 0 || cur >= SPOOL_PIPE_BYTES || size <= cur) return;
  (void)fcntl(fd, F_SETPIPE_SZ, SPOOL_PIPE_BYTES);
}
#endif

/* Copies the spool to standard output: 0 or -1. */
static int spool_copy(cli_out *o) {
  if (fflush(o->f) || ferror(o->f) || fflush(stdout)) return -1;
  int in = fileno(o->f), out = fileno(stdout);
  off_t size = lseek(in, 0, SEEK_END);
  if (size < 0 || lseek(in, 0, SEEK_SET) < 0) return -1;
  off_t done = 0;
#ifdef __linux__
  widen_pipe(out, size);
  /* In the kernel, without a copy through this process, where stdout takes it
     (a file, a pipe, a device); else, from where it stopped, read and written. */
  while (done < size) {
    off_t at = done;
    ssize_t k = sendfile(out, in, &at, (size_t)(size - done < (1 << 30) ? size - done : (1 << 30)));
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) break;
    done += k;
  }
  if (done > 0 && lseek(in, done, SEEK_SET) < 0) return -1;
#endif
  char buf[1 << 16];
  while (done < size) {
    ssize_t r = read(in, buf, sizeof buf);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return -1;
    for (ssize_t w = 0; w < r;) {
      ssize_t k = write(out, buf + w, (size_t)(r - w));
      if (k < 0 && errno == EINTR) continue;
      if (k <= 0) return -1;
      w += k;
    }
    done += r;
  }
  return 0;
}

/* Gives the unnamed file open as fd the name tmp (linkat cannot replace a
   file: a new name first, then renamed over the output). */
static int try_link(const char *name, void *ud) {
  int fd = *(const int *)ud;
  char proc[64];
  snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
  pending_add(name); /* a signal between the link and the rename removes it */
  int r = linkat(AT_FDCWD, proc, AT_FDCWD, name, AT_SYMLINK_FOLLOW);
  if (r != 0 && errno == ENOENT) r = linkat(fd, "", AT_FDCWD, name, AT_EMPTY_PATH);
  if (r != 0) {
    int e = errno;
    pending_remove(name);
    errno = e;
  }
  return r;
}

/* Moves the unnamed file fd into place as o->path: 0, or -1 (error printed). */
static int link_into_place(cli_out *o, int fd) {
  if (unique_name(o->tmp, try_link, &fd) != 0) {
    cli_error("%s: cannot move into place: %s", o->path, strerror(errno));
    return -1;
  }
  int rc = rename(o->tmp, o->path);
  if (rc != 0) {
    cli_error("%s: cannot move into place: %s", o->path, strerror(errno));
    unlink(o->tmp);
  }
  pending_remove(o->tmp);
  return rc ? -1 : 0;
}

int cli_out_commit(cli_out *o) {
  if (o->spool) {
    int bad = spool_copy(o);
    fclose(o->f);
    o->f = NULL;
    free(o->spool_buf);
    o->spool_buf = NULL;
    if (bad) cli_error("write error on standard output");
    return bad ? -1 : 0;
  }
  if (o->is_stdout) {
    if (fflush(stdout) != 0 || ferror(stdout)) {
      cli_error("write error on standard output");
      return -1;
    }
    return 0;
  }
  int bad = fflush(o->f) != 0 || ferror(o->f);
  /* The unnamed file needs a descriptor open until it is linked. */
  int keep = o->unnamed && !bad ? fcntl(fileno(o->f), F_DUPFD_CLOEXEC, 3) : -1;
  int keep_err = errno;
  if (fclose(o->f) != 0) bad = 1;
  o->f = NULL;
  if (o->direct) {
    if (bad) cli_error("%s: write error", o->path);
    return bad ? -1 : 0;
  }
  if (o->unnamed) {
    int rc = -1;
    if (bad) cli_error("%s: write error", o->path);
    else if (keep < 0) cli_error("%s: cannot move into place: %s", o->path, strerror(keep_err));
    else rc = link_into_place(o, keep);
    if (keep >= 0) close(keep);
    return rc;
  }
  if (bad) {
    unlink(o->tmp);
    pending_remove(o->tmp);
    cli_error("%s: write error", o->path);
    return -1;
  }
  if (rename(o->tmp, o->path) != 0) {
    cli_error("%s: cannot move into place: %s", o->path, strerror(errno));
    unlink(o->tmp);
    pending_remove(o->tmp);
    return -1;
  }
  pending_remove(o->tmp);
  return 0;
}

void cli_out_abort(cli_out *o) {
  if (o->is_stdout || !o->f) return;
  fclose(o->f); /* an unnamed file or the spool goes with its descriptor */
  o->f = NULL;
  free(o->spool_buf);
  o->spool_buf = NULL;
  if (o->spool || o->direct || o->unnamed) return;
  unlink(o->tmp);
  pending_remove(o->tmp);
}
