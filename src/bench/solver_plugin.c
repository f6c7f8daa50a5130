/* solver_plugin.c: runs a plug-in's solve function in a child process kept between calls, so a crash, a hang or a NaN costs one case. */
#define _GNU_SOURCE /* pipe2 */
#include <dirent.h>
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
#include <sys/socket.h>
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

/* The most cases one batch of a session carries; a longer call is cut into
   batches of this many (a run's block for an external solver is 4096). */
#define SESSION_BATCH 4096

/* The memory a session's child shares with the bench (mapped before the
   child is forked): the cases of the batch in in[], the answer of in[i] in
   at[i]. The bench writes the cases, then the batch's size through the job
   socket; the child stores an answer, then done = i + 1 (release); the bench
   reads done (acquire), then the answers below it. No system call per case:
   the answer pipe carries only the batch's end. */
typedef struct answer_area {
  _Atomic uint64_t done;
  _Atomic int32_t body_pid; /* the solving process, set before it loads the library */
  int32_t pad;
  toi_solver_case in[SESSION_BATCH];
  rec at[SESSION_BATCH];
} answer_area;

/* Exit statuses the child uses to explain itself before any solving. */
enum { CHILD_LOAD_FAILED = 125 };

/* The index of the record that carries the engine's own cost (ABI 3), sent
   after the child's last answer of each batch: t holds the nanoseconds of
   that batch, target its calls (doubles hold both exactly up to 2^53). */
#define COST_RECORD UINT64_MAX

/* The child's descriptors: 0 /dev/null, 1 and 2 its output pipe, the ends of
   its batches on ANSWER_FD, the batches' sizes from JOB_FD; nothing else of
   the bench's. */
#define ANSWER_FD 3
#define JOB_FD 4

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

/* A batch's end, the child's only record through the answer pipe: ABI 3's
   engine cost of the batch when the plug-in reports one (what it reports is
   counted since the library was loaded: *seen holds what earlier batches
   reported; versions 1 and 2 are not asked), else zeros. */
static void send_end(toi_solver_cost_fn cost, const char *symbol, int wfd, toi_solver_cost *seen) {
  toi_solver_cost c = {0, 0};
  if (!cost || cost(symbol, &c) != 1) c.calls = 0;
  rec m = {COST_RECORD, 0, 0, 0, 0, 0};
  if (c.calls > seen->calls && c.ns >= seen->ns) {
    m.t = (double)(c.ns - seen->ns);
    m.target = (double)(c.calls - seen->calls);
    *seen = c;
  }
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

/* What a session's child is given: the solver and the shared memory. */
typedef struct solve_job {
  const solver_def *s;
  answer_area *area;
} solve_job;

/* A batch, as the bench sends it through the job socket: cases in[from .. n-1]. */
typedef struct job_msg {
  uint64_t from, n;
} job_msg;

/* The whole message, or 0 at the end of the socket (the session ends). */
static int read_job(job_msg *m) {
  size_t have = 0;
  while (have < sizeof *m) {
    ssize_t r = read(JOB_FD, (char *)m + have, sizeof *m - have);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return 0;
    have += (size_t)r;
  }
  return 1;
}

/* The session's child, its descriptors already set (solver_proc_start): the
   library is loaded only now, when nothing of the bench's is open. It solves
   batch after batch until the bench closes the job socket. */
static void solve_body(const void *arg) {
  const solve_job *j = arg;
  on_exit(exit_now, NULL);
  atomic_store_explicit(&j->area->body_pid, (int32_t)getpid(), memory_order_relaxed);
  void *h = dlopen(j->s->path, RTLD_NOW | RTLD_LOCAL);
  toi_solver_fn fn = NULL;
  if (h) *(void **)(&fn) = dlsym(h, j->s->symbol);
  if (!fn) _exit(CHILD_LOAD_FAILED);
  const int *abi = (const int *)dlsym(h, "toi_solver_abi");
  toi_solver_cost_fn cost = NULL;
  if (abi && *abi >= 3) *(void **)(&cost) = dlsym(h, "toi_solver_report_cost");
  toi_solver_cost seen = {0, 0};
  job_msg m;
  while (read_job(&m)) {
    for (uint64_t i = m.from; i < m.n && i < SESSION_BATCH; i++) {
      toi_solver_case c = j->area->in[i];
      toi_solver_result r = {TOI_SOLVER_NONE, NAN, 0, 0};
      int st = fn(&r, &c);
      j->area->at[i] = (rec){i, st, r.cls, r.t, r.target, r.tolerance};
      atomic_store_explicit(&j->area->done, i + 1, memory_order_release);
    }
    fflush(NULL); /* what the plug-in printed is relayed before its batch ends */
    send_end(cost, j->s->symbol, ANSWER_FD, &seen);
  }
  fflush(NULL);
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

/* A cost record, summed over the batches of a call; one with numbers no
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

/* A plug-in's child kept between calls (solver_def.plug): its keeper, the job
   socket (batches in), its answer pipe (batch ends) and its output pipe (-1
   once closed), and the memory it shares with the bench. */
struct plugin_session {
  solver_proc sp;
  int job_fd, ans_fd, out_fd;
  answer_area *area;
  const toi_msg *msg; /* of the last call: where its end is reported */
  char name[SOLVER_NAME_MAX + 1];
};

/* How a batch ended. */
enum { BATCH_DONE = 0, BATCH_ENDED, BATCH_HUNG, BATCH_GARBLED };

/* What a batch read from the answer pipe: the end record, and bytes that are
   not one. */
typedef struct batch_io {
  char buf[2 * sizeof(rec)];
  size_t have;
  int garbled; /* bytes on the answer pipe other than one end record */
  output_lines *out;
} batch_io;

/* How often the bench looks at the answers stored while waiting (seconds):
   progress resets the timeout. */
#define PROGRESS_POLL 0.05

/* Reads what the child's output pipe holds now (relayed), closing it at its end. */
static void read_out(plugin_session *ss, output_lines *out) {
  for (;;) {
    char chunk[4096];
    ssize_t r = read(ss->out_fd, chunk, sizeof chunk);
    if (r > 0) {
      if (out) take_output(out, chunk, (size_t)r, 0); /* none: the last output at the session's end, not shown */
      continue;
    }
    if (r < 0 && errno == EINTR) continue;
    if (r == 0 || errno != EAGAIN) {
      if (out) take_output(out, "", 0, 1);
      close(ss->out_fd);
      ss->out_fd = -1;
    }
    return;
  }
}

/* Bytes read from the answer pipe, kept in io->buf as far as it holds them:
   more than the one end record garbles the batch. */
static void take_answer_bytes(batch_io *io, const char *chunk, size_t r) {
  size_t take = r <= sizeof io->buf - io->have ? r : sizeof io->buf - io->have;
  memcpy(io->buf + io->have, chunk, take);
  io->have += take;
  if (take < r || io->have > sizeof(rec)) io->garbled = 1;
}

/* How a batch whose answers are all taken ends once the answer pipe holds a
   record's bytes (io->have >= sizeof(rec)): BATCH_DONE, or BATCH_GARBLED
   when the pipe held more. */
static int batch_end(const batch_io *io) {
  return io->garbled || io->have != sizeof(rec) ? BATCH_GARBLED : BATCH_DONE;
}

/* The end record of a batch that ended BATCH_DONE or BATCH_GARBLED: its cost
   into info and 0, or 1 when the stream was garbled (more than one record, or
   one that is not the end record). */
static int take_end(const batch_io *io, int end, solver_run_info *info) {
  rec last;
  memcpy(&last, io->buf, sizeof last);
  if (end == BATCH_GARBLED || last.index != COST_RECORD) return 1;
  take_cost(info, &last);
  return 0;
}

/* Reads from whichever of the child's pipes polls ready. */
static void read_ready(plugin_session *ss, batch_io *io, const struct pollfd *p, int ia, int iout) {
  if (ia >= 0 && p[ia].revents) {
    char chunk[256];
    ssize_t r = read(ss->ans_fd, chunk, sizeof chunk);
    if (r > 0) {
      take_answer_bytes(io, chunk, (size_t)r);
    } else if (r == 0 || (errno != EINTR && errno != EAGAIN)) {
      close(ss->ans_fd);
      ss->ans_fd = -1;
    }
  }
  if (iout >= 0 && p[iout].revents) read_out(ss, io->out);
}

/* The answers the child stored, cases *expect .. done - 1, into ans; a record
   not of its case (the plug-in wrote over the bench's memory) is a broken
   answer. */
static void take_stored(const answer_area *area, solver_answer *ans, size_t n, size_t *expect) {
  uint64_t done = atomic_load_explicit(&area->done, memory_order_acquire);
  for (; *expect < done && *expect < n; ++*expect) {
    const rec *m = &area->at[*expect];
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

/* Takes the answers of the batch in[0 .. n-1], case *expect on, and relays
   the child's output until the batch's end record (BATCH_DONE, or
   BATCH_GARBLED when the answer pipe held more), the child's end
   (BATCH_ENDED) or no answer stored for the timeout (BATCH_HUNG). */
static int read_batch(plugin_session *ss, batch_io *io, solver_answer *ans, size_t n, double timeout,
                      size_t *expect) {
  double deadline = toi_clock_now() + timeout;
  for (;;) {
    take_stored(ss->area, ans, n, expect);
    if (*expect >= n && io->have >= sizeof(rec)) {
      if (ss->out_fd >= 0) read_out(ss, io->out); /* flushed before the end record */
      return batch_end(io);
    }
    if (ss->ans_fd < 0) return BATCH_ENDED; /* the child closed its answer pipe: it ended */
    double left = deadline - toi_clock_now();
    if (left <= 0) return BATCH_HUNG;
    struct pollfd p[2];
    int np = 0, ia = np, iout = -1;
    p[np++] = (struct pollfd){ss->ans_fd, POLLIN, 0};
    if (ss->out_fd >= 0) {
      iout = np;
      p[np++] = (struct pollfd){ss->out_fd, POLLIN, 0};
    }
    size_t before = *expect;
    int pr = poll(p, (nfds_t)np, (int)ceil((left < PROGRESS_POLL ? left : PROGRESS_POLL) * 1000));
    if (pr > 0) read_ready(ss, io, p, ia, iout);
    take_stored(ss->area, ans, n, expect);
    if (*expect > before) deadline = toi_clock_now() + timeout;
  }
}

/* Marks the case the child stopped at (expect) failed, saying why. Returns 1
   when the plug-in could not be loaded at all: then every case from `from` on
   has failed. */
static int blame_case(solver_answer *ans, size_t from, size_t expect, size_t n, int hung, int status,
                      double timeout) {
  if (hung) {
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

/* Starts a session: the shared memory, the pipes, the child under a keeper.
   The session, or NULL after telling o->msg why. */
static plugin_session *session_start(const solver_def *s, const solver_opts *o) {
  plugin_session *ss = malloc(sizeof *ss);
  if (!ss) {
    toi_msgf(o->msg, "solver %s: out of memory", s->name);
    return NULL;
  }
  *ss = (plugin_session){.sp = {-1, -1}, .job_fd = -1, .ans_fd = -1, .out_fd = -1, .msg = o->msg};
  snprintf(ss->name, sizeof ss->name, "%s", s->name);
  ss->area = mmap(NULL, sizeof *ss->area, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (ss->area == MAP_FAILED) {
    toi_msgf(o->msg, "solver %s: mmap: %s", s->name, strerror(errno));
    free(ss);
    return NULL;
  }
  /* The job channel is a socket, so that a write to a child that ended is
     an error (MSG_NOSIGNAL), not SIGPIPE in the bench. */
  int job[2] = {-1, -1}, ans[2] = {-1, -1}, out[2] = {-1, -1};
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, job) || pipe2(ans, O_CLOEXEC) || pipe2(out, O_CLOEXEC)) {
    toi_msgf(o->msg, "solver %s: pipe: %s", s->name, strerror(errno));
    for (int k = 0; k < 2; k++) {
      if (job[k] >= 0) close(job[k]);
      if (ans[k] >= 0) close(ans[k]);
      if (out[k] >= 0) close(out[k]);
    }
    munmap(ss->area, sizeof *ss->area);
    free(ss);
    return NULL;
  }
  solve_job sj = {s, ss->area};
  /* /dev/null as stdin, the output pipe as stdout and stderr, the batch ends on
     ANSWER_FD, the batches on JOB_FD. */
  const int fds[] = {-1, out[1], out[1], ans[1], job[1]};
  int rc = solver_proc_start(&ss->sp, solve_body, &sj, fds, JOB_FD + 1);
  int err = errno;
  close(ans[1]);
  close(out[1]);
  close(job[1]);
  if (rc) {
    close(ans[0]);
    close(out[0]);
    close(job[0]);
    toi_msgf(o->msg, "solver %s: fork: %s", s->name, strerror(err));
    munmap(ss->area, sizeof *ss->area);
    free(ss);
    return NULL;
  }
  fcntl(out[0], F_SETFL, fcntl(out[0], F_GETFL) | O_NONBLOCK);
  ss->job_fd = job[0];
  ss->ans_fd = ans[0];
  ss->out_fd = out[0];
  return ss;
}

/* Ends the session's child: at once (stop), or by the end of its job socket
   with the timeout to exit. *status is how it ended; returns 1 when it had to
   be stopped. What it left running is killed; when it ended by itself, that
   is counted in *left. */
static int session_close(plugin_session *ss, int stop, double timeout, output_lines *out, int *status, int *left) {
  if (ss->job_fd >= 0) close(ss->job_fd);
  if (ss->ans_fd >= 0) close(ss->ans_fd);
  ss->job_fd = ss->ans_fd = -1;
  if (!stop && ss->out_fd >= 0) {
    /* Its last output, until it closes the pipe (its end) or the timeout. */
    double deadline = toi_clock_now() + timeout;
    while (ss->out_fd >= 0 && toi_clock_now() < deadline) {
      struct pollfd p = {ss->out_fd, POLLIN, 0};
      if (poll(&p, 1, 100) > 0) read_out(ss, out);
    }
  }
  if (ss->out_fd >= 0) close(ss->out_fd);
  ss->out_fd = -1;
  if (out) take_output(out, "", 0, 1);
  int stopped = solver_proc_wait(&ss->sp, toi_clock_now() + (stop ? 0 : timeout), status);
  *left = solver_proc_leftovers(&ss->sp);
  if (stopped) *left = 0;
  munmap(ss->area, sizeof *ss->area);
  return stopped;
}

void solver_plugin_session_end(plugin_session *ss) {
  if (!ss) return;
  int status = 0, left = 0;
  int stopped = session_close(ss, 0, SOLVER_LOAD_TIMEOUT, NULL, &status, &left);
  if (stopped)
    toi_msgf(ss->msg, "solver %s: still running after its last batch: stopped", ss->name);
  else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    toi_msgf(ss->msg, "solver %s: ended badly after its last batch (status %d)", ss->name, status);
  if (left) toi_msgf(ss->msg, "solver %s: %d process%s it started %s still running when it ended: killed", ss->name,
                     left, left == 1 ? "" : "es", left == 1 ? "was" : "were");
  free(ss);
}

/* Whether process pid is running (not a zombie): 1, 0, or -1 when /proc cannot tell. */
static int running(long pid) {
  char path[64], buf[512];
  snprintf(path, sizeof path, "/proc/%ld/stat", pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0; /* gone */
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return 0;
  buf[n] = 0;
  char *rp = strrchr(buf, ')');
  char state = 0;
  if (!rp || sscanf(rp + 1, " %c", &state) != 1) return -1;
  return state != 'Z' && state != 'X';
}

/* The running children of every thread of pid, but `except`, added to *count.
   0, or -1 when /proc cannot tell (no /proc/PID/task/TID/children). */
static int count_children(long pid, long except, int *count) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%ld/task", pid);
  DIR *d = opendir(path);
  if (!d) return -1;
  int rc = 0, tasks = 0;
  for (struct dirent *e; (e = readdir(d)) && rc == 0;) {
    if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
    char cpath[300], buf[4096];
    snprintf(cpath, sizeof cpath, "/proc/%ld/task/%s/children", pid, e->d_name);
    int fd = open(cpath, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      rc = -1;
      break;
    }
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n < 0 || n == (ssize_t)sizeof buf - 1) { /* unreadable, or too many to list: ask the keeper */
      rc = -1;
      break;
    }
    tasks++;
    buf[n] = 0;
    for (char *p = buf, *q; *p; p = q) {
      long c = strtol(p, &q, 10);
      if (q == p) break;
      int r = c == except ? 0 : running(c);
      if (r < 0) rc = -1;
      *count += r > 0;
    }
  }
  closedir(d);
  return rc == 0 && tasks ? 0 : -1;
}

/* Processes the plug-in left running once its batch ended: the keeper's
   children but the solving process (orphans it adopted) and the solving
   process's own children. A live descendant always has a live ancestor among
   them (a zombie has no children). -1 when /proc cannot tell. */
static int session_leftovers(const plugin_session *ss) {
  long body = atomic_load_explicit(&ss->area->body_pid, memory_order_relaxed);
  int count = 0;
  if (body <= 0 || count_children(ss->sp.pid, body, &count) || count_children(body, -1, &count)) return -1;
  return count;
}

/* Sends the batch in[0 .. n-1]: 0, or -1 when the child is not there to read it. */
static int send_job(plugin_session *ss, size_t n) {
  job_msg m = {0, n};
  atomic_store_explicit(&ss->area->done, 0, memory_order_relaxed);
  const char *p = (const char *)&m;
  size_t len = sizeof m;
  while (len) {
    ssize_t w = send(ss->job_fd, p, len, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return -1;
    p += w;
    len -= (size_t)w;
  }
  return 0;
}

/* One batch of at most SESSION_BATCH cases in the session *ssp (started when
   NULL): the answers into ans, case *expect on. A batch that goes wrong ends
   the session (*ssp NULL) and leaves *expect at the case it stopped at; the
   return is then BATCH_ENDED or BATCH_HUNG with *status, or -1 when no
   child could be started. */
static int session_batch(plugin_session **ssp, const solver_def *s, const toi_case *cases, size_t n,
                         const solver_opts *o, solver_answer *ans, solver_run_info *info, output_lines *out,
                         solver_quota *q, size_t *expect, int *status) {
  for (int attempt = 0;; attempt++) {
    if (!*ssp && !(*ssp = session_start(s, o))) return -1;
    plugin_session *ss = *ssp;
    ss->msg = o->msg;
    for (size_t i = *expect; i < n; i++) to_abi_case(&ss->area->in[i - *expect], &cases[i], o->tmax);
    if (send_job(ss, n - *expect) == 0) break;
    /* The kept child ended between calls: a fresh one takes the batch. */
    int left;
    session_close(ss, 1, 0, out, status, &left);
    free(ss);
    *ssp = NULL;
    if (attempt) {
      toi_msgf(o->msg, "solver %s: its process ended before reading a batch", s->name);
      return -1;
    }
  }
  plugin_session *ss = *ssp;
  /* The batch's answers are at[0 ..]: read them as cases *expect ... */
  size_t base = *expect, got = 0;
  batch_io io = {.have = 0, .garbled = 0, .out = out};
  int end = read_batch(ss, &io, ans + base, n - base, o->timeout, &got);
  *expect = base + got;
  if (end == BATCH_DONE || end == BATCH_GARBLED) {
    if (take_end(&io, end, info)) {
      info->protocol_errors++;
      if (++q->messages_shown <= SOLVER_MESSAGES_SHOWN)
        toi_msgf(o->msg, "solver %s: garbled answer stream (the plug-in wrote to the bench's pipe)", s->name);
    }
    int seen = end == BATCH_DONE ? session_leftovers(ss) : -1;
    if (seen == 0) return BATCH_DONE;
    /* A process left behind (stopped at once with the tree), a garbled
       stream, or /proc cannot tell (the child ends by the end of its job
       socket, and the keeper kills and counts what is left). */
    int left;
    session_close(ss, seen > 0, o->timeout, out, status, &left);
    if (seen > 0) left = seen;
    if (left > 0) {
      info->protocol_errors++;
      solver_report_leftovers(s->name, left, &q->messages_shown, o->msg);
    }
    free(ss);
    *ssp = NULL;
    return BATCH_DONE;
  }
  /* The child ended or hangs: stopped now, or given the timeout to end when it closed its pipes. */
  int left;
  int stopped = session_close(ss, end == BATCH_HUNG, o->timeout, out, status, &left);
  free(ss);
  *ssp = NULL;
  if (left && !stopped && end == BATCH_ENDED) {
    info->protocol_errors++;
    solver_report_leftovers(s->name, left, &q->messages_shown, o->msg);
  }
  return end == BATCH_HUNG || stopped ? BATCH_HUNG : BATCH_ENDED;
}

int solver_plugin_run(solver_def *s, const toi_case *cases, size_t n, const solver_opts *o, solver_answer *ans,
                      solver_run_info *info) {
  solver_quota local = {0}, *q = o->quota ? o->quota : &local;
  output_lines *out = malloc(sizeof *out);
  if (!out) {
    toi_msgf(o->msg, "solver %s: out of memory", s->name);
    return -1;
  }
  *out = (output_lines){.len = 0, .name = s->name, .shown = &q->output_shown, .msg = o->msg, .log = q->log};
  int rc = 0;
  size_t next = 0;
  while (next < n) {
    size_t stop = n - next > SESSION_BATCH ? next + SESSION_BATCH : n;
    size_t expect = next;
    int status = 0;
    int end = session_batch(&s->plug, s, cases, stop, o, ans, info, out, q, &expect, &status);
    if (end < 0) {
      rc = -1;
      break;
    }
    if (end == BATCH_DONE || expect >= stop) { /* a child that ended after its batch's last answer lost none */
      next = stop;
      continue;
    }
    /* The case that broke the child is blamed; a fresh child goes on after it. */
    if (blame_case(ans, next, expect, stop, end == BATCH_HUNG, status, o->timeout)) {
      for (size_t i = stop; i < n; i++) fail(&ans[i], TOI_CAUSE_CRASH, "%s", "the plug-in could not be loaded in the child");
      break;
    }
    next = expect + 1;
  }
  take_output(out, "", 0, 1);
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
  for (size_t i = 0; i < n; i++) (*out)[i].session = NULL, (*out)[i].plug = NULL; /* pointers of another process */
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
