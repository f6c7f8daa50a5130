/* solver_plugin.c: runs a plug-in's solve function in a child process, so a crash, a hang or a NaN costs one case. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "solvers.h"
#include "toi_solver.h"

/* One answer as the child sends it; smaller than PIPE_BUF, so each write is atomic. */
typedef struct rec {
  uint64_t index;
  int32_t status;
  int32_t cls;
  double t, target, tolerance;
} rec;

/* Exit statuses the child uses to explain itself before any solving. */
enum { CHILD_LOAD_FAILED = 125 };

/* The index of the record that carries the engine's own cost (ABI 3), sent
   once after the child's last answer: t holds the nanoseconds, target the
   calls (doubles hold both exactly up to 2^53). */
#define COST_RECORD UINT64_MAX

double solver_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void to_abi_case(toi_solver_case *o, const toi_case *c, double tmax) {
  memset(o, 0, sizeof *o);
  memcpy(o->id, c->id, sizeof o->id);
  o->dim = c->dim;
  for (int k = 0; k < 3; k++) {
    o->pa[k] = c->pa[k];
    o->va[k] = c->va[k];
    o->pb[k] = c->pb[k];
    o->vb[k] = c->vb[k];
  }
  o->ra = c->ra;
  o->ma = c->ma;
  o->rb = c->rb;
  o->mb = c->mb;
  o->tmax = tmax;
}

static int write_all(int fd, const void *buf, size_t len) {
  const char *p = buf;
  while (len) {
    ssize_t w = write(fd, p, len);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return -1;
    p += w;
    len -= (size_t)w;
  }
  return 0;
}

/* ABI 3: the engine's own cost, when the plug-in reports one, as the child's
   last record. Versions 1 and 2 are not asked. */
static void send_cost(void *h, const char *symbol, int wfd) {
  const int *abi = (const int *)dlsym(h, "toi_solver_abi");
  toi_solver_cost_fn cost = NULL;
  if (abi && *abi >= 3) *(void **)(&cost) = dlsym(h, "toi_solver_report_cost");
  toi_solver_cost c = {0, 0};
  if (!cost || cost(symbol, &c) != 1 || c.calls == 0) return;
  rec m = {COST_RECORD, 0, 0, (double)c.ns, (double)c.calls, 0};
  write_all(wfd, &m, sizeof m);
}

static void child_main(const solver_def *s, const toi_case *cases, size_t from, size_t n, double tmax, int wfd) {
  /* Ends with the bench, even one killed by a signal. */
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  /* A deliberate crash should not leave a core file behind. */
  struct rlimit rl = {0, 0};
  setrlimit(RLIMIT_CORE, &rl);
  /* What the plug-in prints must not land in the bench's own output. */
  dup2(2, 1);
  int null = open("/dev/null", O_RDONLY);
  if (null >= 0) {
    dup2(null, 0);
    close(null);
  }
  void *h = dlopen(s->path, RTLD_NOW | RTLD_LOCAL);
  toi_solver_fn fn = NULL;
  if (h) *(void **)(&fn) = dlsym(h, s->symbol);
  if (!fn) _exit(CHILD_LOAD_FAILED);
  for (size_t i = from; i < n; i++) {
    toi_solver_case c;
    to_abi_case(&c, &cases[i], tmax);
    toi_solver_result r = {TOI_SOLVER_NONE, NAN, 0, 0};
    int st = fn(&r, &c);
    rec m = {(uint64_t)i, st, r.cls, r.t, r.target, r.tolerance};
    if (write_all(wfd, &m, sizeof m)) _exit(0);
  }
  send_cost(h, s->symbol, wfd);
  _exit(0);
}

static void fail(solver_answer *a, int malfunction, const char *fmt, const char *detail) {
  a->state = SOLVER_FAILED;
  a->malfunction = malfunction;
  snprintf(a->why, sizeof a->why, fmt, detail);
}

static void describe_exit(char *buf, size_t sz, int status) {
  if (WIFSIGNALED(status))
    snprintf(buf, sz, "crashed (signal %d, %s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
  else if (WIFEXITED(status))
    snprintf(buf, sz, "exited with status %d before answering", WEXITSTATUS(status));
  else
    snprintf(buf, sz, "stopped");
}

/* Waits for the child until the deadline, then kills it. */
static int reap(pid_t pid, double deadline, int *killed) {
  int status = 0;
  *killed = 0;
  for (;;) {
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) return status;
    if (r < 0 && errno != EINTR) return 0;
    if (solver_now() >= deadline) break;
    struct timespec ts = {0, 2000000};
    nanosleep(&ts, NULL);
  }
  kill(pid, SIGKILL);
  *killed = 1;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

/* Starts a child solving cases from .. n-1. Returns the read end of its
   answer pipe (and *pid), or -1 after telling o->msg why. */
static int start_child(const solver_def *s, const toi_case *cases, size_t from, size_t n, const solver_opts *o,
                       pid_t *pid) {
  int fds[2];
  if (pipe(fds)) {
    toi_msgf(o->msg, "solver %s: pipe: %s", s->name, strerror(errno));
    return -1;
  }
  /* Whatever stdio holds would otherwise be written a second time by a
   * plug-in that flushes or exits in the child. */
  fflush(NULL);
  *pid = fork();
  if (*pid < 0) {
    close(fds[0]);
    close(fds[1]);
    toi_msgf(o->msg, "solver %s: fork: %s", s->name, strerror(errno));
    return -1;
  }
  if (*pid == 0) {
    close(fds[0]);
    child_main(s, cases, from, n, o->tmax, fds[1]);
  }
  close(fds[1]);
  return fds[0];
}

/* The answer a record carries. */
static void take_record(solver_answer *a, const rec *m) {
  memset(a, 0, sizeof *a);
  a->target = m->target;
  a->tolerance = m->tolerance;
  a->r = (toi_result){(toi_class)m->cls, m->t};
  if (m->status == TOI_SOLVER_OK) {
    a->state = SOLVER_ANSWERED;
  } else if (m->status == TOI_SOLVER_UNSUPPORTED) {
    a->state = SOLVER_UNSUPPORTED;
  } else if (m->status == TOI_SOLVER_FAILED) {
    a->state = SOLVER_FAILED;
    snprintf(a->why, sizeof a->why, "the solver reported failure");
  } else {
    a->state = SOLVER_FAILED;
    a->malfunction = 1;
    snprintf(a->why, sizeof a->why, "the solver returned status %d, not a toi_solver_status", (int)m->status);
  }
}

/* A cost record, summed over the children of a run; one with numbers no
   count or duration can have is ignored. */
static void take_cost(solver_run_info *info, const rec *m) {
  if (!(m->t >= 0 && m->t < 0x1p63 && m->target >= 1 && m->target < 0x1p63)) return;
  info->engine_ns += (uint64_t)m->t;
  info->engine_calls += (uint64_t)m->target;
}

enum { STREAM_ENDED = 0, STREAM_HUNG, STREAM_GARBLED };

/* Takes the child's answers, case *expect on, until it closes the pipe
   (STREAM_ENDED), sends nothing for the timeout (STREAM_HUNG) or sends a
   record out of turn (STREAM_GARBLED). */
static int read_answers(int fd, solver_answer *ans, size_t n, double timeout, size_t *expect,
                        solver_run_info *info) {
  double deadline = solver_now() + timeout;
  char buf[64 * sizeof(rec)];
  size_t have = 0;
  for (;;) {
    double left = deadline - solver_now();
    if (left <= 0) return STREAM_HUNG;
    struct pollfd p = {fd, POLLIN, 0};
    int pr = poll(&p, 1, (int)ceil(left * 1000));
    if (pr < 0 && errno == EINTR) continue;
    if (pr == 0) continue; /* the deadline check above decides */
    ssize_t r = read(fd, buf + have, sizeof buf - have);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return STREAM_ENDED;
    have += (size_t)r;
    size_t off = 0;
    for (; have - off >= sizeof(rec); off += sizeof(rec)) {
      rec m;
      memcpy(&m, buf + off, sizeof m);
      if (m.index == COST_RECORD && *expect >= n) {
        take_cost(info, &m);
        continue;
      }
      /* Only a plug-in scribbling over the bench's descriptors can send one out of turn. */
      if (m.index != *expect || *expect >= n) return STREAM_GARBLED;
      take_record(&ans[*expect], &m);
      ++*expect;
      deadline = solver_now() + timeout;
    }
    memmove(buf, buf + off, have - off);
    have -= off;
  }
}

/* Marks the case the child stopped at (expect) failed, saying why. Returns 1
   when the plug-in could not be loaded at all: then every case from `from` on
   has failed. */
static int blame_case(solver_answer *ans, size_t from, size_t expect, size_t n, int stream, int killed, int status,
                      double timeout) {
  if (stream == STREAM_GARBLED) {
    fail(&ans[expect], 1, "%s", "garbled answer stream (the plug-in wrote to the bench's pipe)");
  } else if (stream == STREAM_HUNG || killed) {
    char t[64];
    snprintf(t, sizeof t, "%g", timeout);
    fail(&ans[expect], 1, "no answer within %ss: the solver was stopped", t);
  } else if (WIFEXITED(status) && WEXITSTATUS(status) == CHILD_LOAD_FAILED && expect == from) {
    for (size_t i = from; i < n; i++) fail(&ans[i], 1, "%s", "the plug-in could not be loaded in the child");
    return 1;
  } else {
    char why[128];
    describe_exit(why, sizeof why, status);
    fail(&ans[expect], 1, "%s", why);
  }
  return 0;
}

int solver_plugin_run(const solver_def *s, const toi_case *cases, size_t n, const solver_opts *o,
                      solver_answer *ans, solver_run_info *info) {
  size_t next = 0;
  while (next < n) {
    pid_t pid;
    int fd = start_child(s, cases, next, n, o, &pid);
    if (fd < 0) return -1;
    size_t expect = next;
    int stream = read_answers(fd, ans, n, o->timeout, &expect, info);
    close(fd);
    int killed = 0, status;
    if (stream != STREAM_ENDED) {
      kill(pid, SIGKILL);
      status = reap(pid, solver_now(), &killed);
    } else {
      status = reap(pid, solver_now() + o->timeout, &killed);
    }
    if (expect >= n) break;
    if (blame_case(ans, next, expect, n, stream, killed, status, o->timeout)) break;
    /* The case that broke the child is blamed; a fresh child goes on after it. */
    next = expect + 1;
  }
  return 0;
}

/* ---- describing a plug-in: its catalog read in a child process ---- */

/* What the describing child sends first; count solver_defs follow. */
typedef struct describe_head {
  int32_t count; /* -1: err says why */
  char err[512];
} describe_head;

/* The child's side: stdout goes to stderr (a constructor's puts must not
   reach the bench's tables), the answer to wfd. */
static void describe_child(const char *full, const char *path, const char *symbol, int wfd) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  struct rlimit rl = {0, 0};
  setrlimit(RLIMIT_CORE, &rl);
  dup2(2, 1);
  int null = open("/dev/null", O_RDONLY);
  if (null >= 0) {
    dup2(null, 0);
    close(null);
  }
  describe_head h;
  memset(&h, 0, sizeof h);
  solver_def *v = NULL;
  h.count = solvers_describe_here(full, path, symbol, &v, h.err, sizeof h.err);
  fflush(stdout);
  if (write_all(wfd, &h, sizeof h) == 0 && h.count > 0) write_all(wfd, v, (size_t)h.count * sizeof *v);
  _exit(0);
}

/* Everything the child sends until it closes the pipe or the deadline:
   *buf (malloc'ed) and *len. 0 at the end of the stream, 1 at the deadline,
   -1 out of memory. */
static int read_stream(int fd, double deadline, char **buf, size_t *len) {
  size_t cap = sizeof(describe_head) + 4 * sizeof(solver_def);
  *len = 0;
  if (!(*buf = malloc(cap))) return -1;
  for (;;) {
    double left = deadline - solver_now();
    if (left <= 0) return 1;
    struct pollfd p = {fd, POLLIN, 0};
    int pr = poll(&p, 1, (int)ceil(left * 1000));
    if (pr <= 0) continue; /* EINTR or the deadline, checked above */
    if (*len == cap) {
      char *q = cap < ((size_t)1 << 30) ? realloc(*buf, 2 * cap) : NULL;
      if (!q) return -1;
      *buf = q;
      cap *= 2;
    }
    ssize_t r = read(fd, *buf + *len, cap - *len);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return 0;
    *len += (size_t)r;
  }
}

/* The child's answer in buf: the count and *out, or -1 and err. */
static int take_description(const char *buf, size_t len, const char *path, solver_def **out, char *err,
                            size_t errsz) {
  describe_head h;
  memcpy(&h, buf, sizeof h);
  h.err[sizeof h.err - 1] = 0;
  if (h.count < 0) {
    snprintf(err, errsz, "%s", h.err);
    return -1;
  }
  size_t n = (size_t)h.count;
  if (n == 0 || len != sizeof h + n * sizeof(solver_def)) {
    snprintf(err, errsz, "%s: garbled description from the loading process", path);
    return -1;
  }
  if (!(*out = malloc(n * sizeof **out))) {
    snprintf(err, errsz, "out of memory");
    return -1;
  }
  memcpy(*out, buf + sizeof h, n * sizeof **out);
  return h.count;
}

int solver_plugin_describe(const char *full, const char *path, const char *symbol, double timeout,
                           solver_def **out, char *err, size_t errsz) {
  *out = NULL;
  int fds[2];
  if (pipe(fds)) {
    snprintf(err, errsz, "%s: pipe: %s", path, strerror(errno));
    return -1;
  }
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    snprintf(err, errsz, "%s: fork: %s", path, strerror(errno));
    return -1;
  }
  if (pid == 0) {
    close(fds[0]);
    describe_child(full, path, symbol, fds[1]);
  }
  close(fds[1]);
  char *buf = NULL;
  size_t len = 0;
  int rs = read_stream(fds[0], solver_now() + timeout, &buf, &len);
  close(fds[0]);
  int killed = 0;
  if (rs != 0) kill(pid, SIGKILL);
  int status = reap(pid, solver_now() + (rs == 0 ? timeout : 0), &killed);
  int count = -1;
  if (rs < 0) {
    snprintf(err, errsz, "out of memory");
  } else if (rs > 0 || killed) {
    snprintf(err, errsz, "%s: the plug-in did not finish loading within %gs (its initialisation hangs): stopped",
             path, timeout);
  } else if (len >= sizeof(describe_head)) {
    count = take_description(buf, len, path, out, err, errsz);
  } else {
    char why[128];
    describe_exit(why, sizeof why, status);
    /* describe_exit speaks of answering; here the child died while loading. */
    char *b = strstr(why, " before answering");
    if (b) *b = 0;
    snprintf(err, errsz, "%s: the plug-in %s while being loaded (its initialisation code ends the process)", path,
             why);
  }
  free(buf);
  return count;
}
