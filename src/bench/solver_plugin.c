/* solver_plugin.c: runs a plug-in's solve function in a child process, so a crash, a hang or a NaN costs one case. */
#define _GNU_SOURCE /* pipe2 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "solvers.h"
#include "toi_solver.h"

/* One answer as the child stores it; also the record of its end sent through
   its answer pipe (index COST_RECORD; smaller than PIPE_BUF, so atomic). */
typedef struct rec {
  uint64_t index;
  int32_t status;
  int32_t cls;
  double t, target, tolerance;
} rec;

/* The answers of a run's children: memory shared with them (mapped before
   they are forked), the answer of case i in at[i]. A child stores it, then
   done = i + 1 (release); the bench reads done (acquire), then the answers
   below it. No system call per case: the answer pipe carries only the end. */
typedef struct answer_area {
  _Atomic uint64_t done;
  rec at[];
} answer_area;

/* Exit statuses the child uses to explain itself before any solving. */
enum { CHILD_LOAD_FAILED = 125 };

/* The index of the record that carries the engine's own cost (ABI 3), sent
   once after the child's last answer: t holds the nanoseconds, target the
   calls (doubles hold both exactly up to 2^53). */
#define COST_RECORD UINT64_MAX

/* The child's descriptors: 0 /dev/null, 1 and 2 its output pipe, the answers
   on ANSWER_FD; nothing else of the bench's. */
#define ANSWER_FD 3

/* Longest line of a plug-in's output relayed whole; a longer one is cut there. */
#define OUTPUT_LINE_MAX 8192

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

/* The child's end, its only record through the answer pipe: ABI 3's engine
   cost when the plug-in reports one (versions 1 and 2 are not asked), else
   zeros. */
static void send_end(void *h, const char *symbol, int wfd) {
  const int *abi = (const int *)dlsym(h, "toi_solver_abi");
  toi_solver_cost_fn cost = NULL;
  if (abi && *abi >= 3) *(void **)(&cost) = dlsym(h, "toi_solver_report_cost");
  toi_solver_cost c = {0, 0};
  if (!cost || cost(symbol, &c) != 1) c.calls = 0;
  rec m = {COST_RECORD, 0, 0, c.calls ? (double)c.ns : 0, (double)c.calls, 0};
  write_all(wfd, &m, sizeof m);
}

/* A plug-in's exit() ends its process as _exit() does, once what it printed
   is flushed: no exit handler the bench registered runs in the child (nor a
   sanitized bench's leak check, which would take the bench's memory there for
   leaks). Registered before the library is loaded, so that the plug-in's own
   handlers still run first. */
static void exit_now(int status, void *arg) {
  (void)arg;
  fflush(NULL);
  _exit(status);
}

/* What a solving child is given: the solver and its cases from .. n-1. */
typedef struct solve_job {
  const solver_def *s;
  const toi_case *cases;
  size_t from, n;
  double tmax;
  answer_area *area;
} solve_job;

/* The solving child, its descriptors already set (solver_proc_start): the
   library is loaded only now, when nothing of the bench's is open. */
static void solve_body(const void *arg) {
  const solve_job *j = arg;
  on_exit(exit_now, NULL);
  void *h = dlopen(j->s->path, RTLD_NOW | RTLD_LOCAL);
  toi_solver_fn fn = NULL;
  if (h) *(void **)(&fn) = dlsym(h, j->s->symbol);
  if (!fn) _exit(CHILD_LOAD_FAILED);
  toi_solver_case c;
  for (size_t i = j->from; i < j->n; i++) {
    to_abi_case(&c, &j->cases[i], j->tmax);
    toi_solver_result r = {TOI_SOLVER_NONE, NAN, 0, 0};
    int st = fn(&r, &c);
    j->area->at[i] = (rec){(uint64_t)i, st, r.cls, r.t, r.target, r.tolerance};
    atomic_store_explicit(&j->area->done, (uint64_t)i + 1, memory_order_release);
  }
  send_end(h, j->s->symbol, ANSWER_FD);
  fflush(NULL); /* what the plug-in printed and left in stdio's buffers is relayed too */
  _exit(0);
}

static void fail(solver_answer *a, toi_fail_cause cause, const char *fmt, const char *detail) {
  a->state = SOLVER_FAILED;
  a->cause = cause;
  a->malfunction = cause != TOI_CAUSE_DECLARED && cause != TOI_CAUSE_RANGE;
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
    a->cause = TOI_CAUSE_DECLARED;
    snprintf(a->why, sizeof a->why, "the solver reported failure");
  } else {
    a->state = SOLVER_FAILED;
    a->cause = TOI_CAUSE_PROTOCOL;
    a->malfunction = 1;
    snprintf(a->why, sizeof a->why, "the solver returned status %d, not a toi_solver_status", (int)m->status);
  }
}

/* A cost record, summed over the children of a run; one with numbers no
   count or duration can have (or none measured) is ignored. */
static void take_cost(solver_run_info *info, const rec *m) {
  if (!(m->t >= 0 && m->t < 0x1p63 && m->target >= 1 && m->target < 0x1p63)) return;
  info->engine_ns += (uint64_t)m->t;
  info->engine_calls += (uint64_t)m->target;
}

/* The partial line of a plug-in's output, and where its lines go. */
typedef struct output_lines {
  char buf[OUTPUT_LINE_MAX + 1];
  size_t len;
  const char *name;
  int *shown;
  const toi_msg *msg;
  const toi_msg *log;
} output_lines;

/* Relays every complete line of data, and with end the last one without its
   newline; a line longer than OUTPUT_LINE_MAX is cut there. */
static void take_output(output_lines *o, const char *data, size_t len, int end) {
  for (size_t i = 0; i < len; i++) {
    if (data[i] != '\n') {
      if (o->len < OUTPUT_LINE_MAX) o->buf[o->len++] = data[i];
      continue;
    }
    o->buf[o->len] = 0;
    solver_relay_line(o->name, "output", o->shown, o->msg, o->log, o->buf);
    o->len = 0;
  }
  if (end && o->len) take_output(o, "\n", 1, 0);
}

enum { STREAM_ENDED = 0, STREAM_HUNG };

/* A child's two pipes: the record of its end and its output (-1 once at their
   end), and the answers it stored. */
typedef struct child_io {
  int ans_fd, out_fd;
  char buf[2 * sizeof(rec)];
  size_t have;
  int garbled; /* bytes on the answer pipe other than one end record */
  output_lines *out;
  answer_area *area;
} child_io;

/* How often the bench looks at the answers stored while waiting (seconds):
   progress resets the timeout. */
#define PROGRESS_POLL 0.05

/* Reads from whichever of the child's pipes polls ready. */
static void read_ready(child_io *io, const struct pollfd *p, int ia, int io_out) {
  if (ia >= 0 && p[ia].revents) {
    char chunk[256];
    ssize_t r = read(io->ans_fd, chunk, sizeof chunk);
    if (r > 0) {
      size_t take = (size_t)r <= sizeof io->buf - io->have ? (size_t)r : sizeof io->buf - io->have;
      memcpy(io->buf + io->have, chunk, take);
      io->have += take;
      if (take < (size_t)r || io->have > sizeof(rec)) io->garbled = 1;
    } else if (r == 0 || (errno != EINTR && errno != EAGAIN)) {
      close(io->ans_fd);
      io->ans_fd = -1;
    }
  }
  if (io_out >= 0 && p[io_out].revents) {
    char chunk[4096];
    ssize_t r = read(io->out_fd, chunk, sizeof chunk);
    if (r > 0) {
      take_output(io->out, chunk, (size_t)r, 0);
    } else if (r == 0 || (errno != EINTR && errno != EAGAIN)) {
      take_output(io->out, "", 0, 1);
      close(io->out_fd);
      io->out_fd = -1;
    }
  }
}

/* The answers the child stored, cases *expect .. done - 1, into ans; a record
   not of its case (the plug-in wrote over the bench's memory) is a broken
   answer. */
static void take_stored(child_io *io, solver_answer *ans, size_t n, size_t *expect) {
  uint64_t done = atomic_load_explicit(&io->area->done, memory_order_acquire);
  for (; *expect < done && *expect < n; ++*expect) {
    const rec *m = &io->area->at[*expect];
    if (m->index != *expect) {
      memset(&ans[*expect], 0, sizeof ans[*expect]);
      ans[*expect].state = SOLVER_FAILED;
      ans[*expect].cause = TOI_CAUSE_PROTOCOL;
      ans[*expect].malfunction = 1;
      snprintf(ans[*expect].why, sizeof ans[*expect].why, "garbled answer (the plug-in wrote over the bench's memory)");
      continue;
    }
    take_record(&ans[*expect], m);
  }
}

/* Takes the child's answers, case *expect on, and relays its output until it
   closes both pipes (STREAM_ENDED) or stores no answer for the timeout
   (STREAM_HUNG). */
static int read_answers(child_io *io, solver_answer *ans, size_t n, double timeout, size_t *expect) {
  double deadline = toi_clock_now() + timeout;
  while (io->ans_fd >= 0 || io->out_fd >= 0) {
    double left = deadline - toi_clock_now();
    if (left <= 0) {
      take_stored(io, ans, n, expect);
      return STREAM_HUNG;
    }
    struct pollfd p[2];
    int np = 0, ia = -1, iout = -1;
    if (io->ans_fd >= 0) {
      ia = np;
      p[np++] = (struct pollfd){io->ans_fd, POLLIN, 0};
    }
    if (io->out_fd >= 0) {
      iout = np;
      p[np++] = (struct pollfd){io->out_fd, POLLIN, 0};
    }
    int pr = poll(p, (nfds_t)np, (int)ceil((left < PROGRESS_POLL ? left : PROGRESS_POLL) * 1000));
    if (pr > 0) read_ready(io, p, ia, iout);
    size_t before = *expect;
    take_stored(io, ans, n, expect);
    if (*expect > before) deadline = toi_clock_now() + timeout;
  }
  take_stored(io, ans, n, expect);
  return STREAM_ENDED;
}

/* Marks the case the child stopped at (expect) failed, saying why. Returns 1
   when the plug-in could not be loaded at all: then every case from `from` on
   has failed. */
static int blame_case(solver_answer *ans, size_t from, size_t expect, size_t n, int stream, int killed, int status,
                      double timeout) {
  if (stream == STREAM_HUNG || killed) {
    char t[64];
    snprintf(t, sizeof t, "%g", timeout);
    fail(&ans[expect], TOI_CAUSE_HANG, "no answer within %ss: the solver was stopped", t);
  } else if (WIFEXITED(status) && WEXITSTATUS(status) == CHILD_LOAD_FAILED && expect == from) {
    for (size_t i = from; i < n; i++) fail(&ans[i], TOI_CAUSE_CRASH, "%s", "the plug-in could not be loaded in the child");
    return 1;
  } else {
    char why[128];
    describe_exit(why, sizeof why, status);
    fail(&ans[expect], TOI_CAUSE_CRASH, "%s", why);
  }
  return 0;
}

/* Starts a child solving cases from .. n-1 under a keeper, its answer pipe
   and its output pipe in io. 0, or -1 after telling o->msg why. */
static int start_child(solver_proc *sp, child_io *io, const solve_job *job, const solver_opts *o) {
  int ans[2], out[2] = {-1, -1};
  if (pipe2(ans, O_CLOEXEC) || pipe2(out, O_CLOEXEC)) {
    toi_msgf(o->msg, "solver %s: pipe: %s", job->s->name, strerror(errno));
    if (out[0] < 0) close(ans[0]), close(ans[1]);
    return -1;
  }
  /* /dev/null as stdin, the output pipe as stdout and stderr, the answers on ANSWER_FD. */
  const int fds[] = {-1, out[1], out[1], ans[1]};
  int rc = solver_proc_start(sp, solve_body, job, fds, ANSWER_FD + 1);
  int err = errno;
  close(ans[1]);
  close(out[1]);
  if (rc) {
    close(ans[0]);
    close(out[0]);
    toi_msgf(o->msg, "solver %s: fork: %s", job->s->name, strerror(err));
    return -1;
  }
  io->ans_fd = ans[0];
  io->out_fd = out[0];
  io->have = 0;
  return 0;
}

/* One child from case `next` on: its answers into ans, then its end. *expect
   is where it stopped; *stopped says it had to be killed. The stream's end
   (STREAM_*), or -1 when it could not be started. */
static int run_child(const solver_def *s, const toi_case *cases, size_t next, size_t n, const solver_opts *o,
                     solver_answer *ans, solver_run_info *info, output_lines *out, solver_quota *q,
                     answer_area *area, size_t *expect, int *stopped, int *status) {
  solve_job job = {s, cases, next, n, o->tmax, area};
  solver_proc sp;
  child_io io = {.ans_fd = -1, .out_fd = -1, .out = out, .area = area};
  atomic_store_explicit(&area->done, next, memory_order_relaxed);
  if (start_child(&sp, &io, &job, o)) return -1;
  *expect = next;
  int stream = read_answers(&io, ans, n, o->timeout, expect);
  /* The end record: the engine's cost; anything else on the pipe was written by the plug-in. */
  rec end;
  memcpy(&end, io.buf, sizeof end);
  if (io.garbled || (io.have && (io.have != sizeof end || end.index != COST_RECORD))) {
    info->protocol_errors++;
    if (++q->messages_shown <= SOLVER_MESSAGES_SHOWN)
      toi_msgf(o->msg, "solver %s: garbled answer stream (the plug-in wrote to the bench's pipe)", s->name);
  } else if (io.have) {
    take_cost(info, &end);
  }
  if (io.ans_fd >= 0) close(io.ans_fd);
  if (io.out_fd >= 0) close(io.out_fd);
  take_output(out, "", 0, 1);
  /* A child that sent everything has the timeout to end; any other is stopped now. */
  *stopped = solver_proc_wait(&sp, toi_clock_now() + (stream == STREAM_ENDED ? o->timeout : 0), status);
  int left = solver_proc_leftovers(&sp);
  if (left && !*stopped && stream == STREAM_ENDED) {
    info->protocol_errors++;
    solver_report_leftovers(s->name, left, &q->messages_shown, o->msg);
  }
  return stream;
}

int solver_plugin_run(const solver_def *s, const toi_case *cases, size_t n, const solver_opts *o,
                      solver_answer *ans, solver_run_info *info) {
  solver_quota local = {0}, *q = o->quota ? o->quota : &local;
  output_lines *out = malloc(sizeof *out);
  if (!out) {
    toi_msgf(o->msg, "solver %s: out of memory", s->name);
    return -1;
  }
  *out = (output_lines){.len = 0, .name = s->name, .shown = &q->output_shown, .msg = o->msg, .log = q->log};
  /* The answers' memory, shared with every child of this call: mapped once. */
  size_t area_len = sizeof(answer_area) + (n ? n : 1) * sizeof(rec);
  answer_area *area = mmap(NULL, area_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (area == MAP_FAILED) {
    toi_msgf(o->msg, "solver %s: mmap: %s", s->name, strerror(errno));
    free(out);
    return -1;
  }
  int rc = 0;
  size_t next = 0;
  while (next < n) {
    size_t expect;
    int stopped = 0, status = 0;
    int stream = run_child(s, cases, next, n, o, ans, info, out, q, area, &expect, &stopped, &status);
    if (stream < 0) {
      rc = -1;
      break;
    }
    if (expect >= n) break;
    if (blame_case(ans, next, expect, n, stream, stopped, status, o->timeout)) break;
    /* The case that broke the child is blamed; a fresh child goes on after it. */
    next = expect + 1;
  }
  munmap(area, area_len);
  if (!o->quota) solver_quota_report(s->name, &local, o->msg);
  free(out);
  return rc;
}

/* ---- describing a plug-in: its catalog read in a child process ---- */

/* What the describing child sends first; count solver_defs follow. */
typedef struct describe_head {
  int32_t count; /* -1: err says why */
  char err[512];
} describe_head;

/* What a describing child is given. */
typedef struct describe_job {
  const char *full, *path, *symbol;
} describe_job;

/* The describing child, its descriptors set (solver_proc_start): its stdout
   and stderr are the bench's stderr (a constructor's puts must not reach the
   bench's tables), the answer goes to ANSWER_FD. */
static void describe_body(const void *arg) {
  const describe_job *j = arg;
  on_exit(exit_now, NULL);
  describe_head h;
  memset(&h, 0, sizeof h);
  solver_def *v = NULL;
  h.count = solvers_describe_here(j->full, j->path, j->symbol, &v, h.err, sizeof h.err);
  fflush(NULL);
  if (write_all(ANSWER_FD, &h, sizeof h) == 0 && h.count > 0) write_all(ANSWER_FD, v, (size_t)h.count * sizeof *v);
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
    double left = deadline - toi_clock_now();
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

/* Why loading failed, from how the child ended, into err. */
static void describe_failure(const char *path, int rs, int stopped, int status, double timeout, char *err,
                             size_t errsz) {
  if (rs < 0) {
    snprintf(err, errsz, "out of memory");
  } else if (rs > 0 || stopped) {
    snprintf(err, errsz, "%s: the plug-in did not finish loading within %gs (its initialisation hangs): stopped",
             path, timeout);
  } else {
    char why[128];
    describe_exit(why, sizeof why, status);
    /* describe_exit speaks of answering; here the child died while loading. */
    char *b = strstr(why, " before answering");
    if (b) *b = 0;
    snprintf(err, errsz, "%s: the plug-in %s while being loaded (its initialisation code ends the process)", path,
             why);
  }
}

int solver_plugin_describe(const char *full, const char *path, const char *symbol, double timeout,
                           solver_def **out, char *err, size_t errsz) {
  *out = NULL;
  int fds[2];
  if (pipe2(fds, O_CLOEXEC)) {
    snprintf(err, errsz, "%s: pipe: %s", path, strerror(errno));
    return -1;
  }
  describe_job job = {full, path, symbol};
  const int child_fds[] = {-1, 2, 2, fds[1]};
  solver_proc sp;
  int started = solver_proc_start(&sp, describe_body, &job, child_fds, ANSWER_FD + 1);
  int e = errno;
  close(fds[1]);
  if (started) {
    close(fds[0]);
    snprintf(err, errsz, "%s: fork: %s", path, strerror(e));
    return -1;
  }
  char *buf = NULL;
  size_t len = 0;
  int rs = read_stream(fds[0], toi_clock_now() + timeout, &buf, &len);
  close(fds[0]);
  int status;
  int stopped = solver_proc_wait(&sp, toi_clock_now() + (rs == 0 ? timeout : 0), &status);
  int left = solver_proc_leftovers(&sp);
  int count = -1;
  if (rs == 0 && !stopped && len >= sizeof(describe_head)) {
    count = take_description(buf, len, path, out, err, errsz);
    if (count >= 0 && left) {
      /* The same rule as for a solving child's leftovers: the plug-in misbehaves. */
      snprintf(err, errsz, "%s: the plug-in left %d process%s running while being loaded: killed", path, left,
               left == 1 ? "" : "es");
      free(*out);
      *out = NULL;
      count = -1;
    }
  } else {
    describe_failure(path, rs, stopped, status, timeout, err, errsz);
  }
  free(buf);
  return count;
}
