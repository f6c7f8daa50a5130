/* solver_proc.c: a solver's process tree: a keeper that reaps every process the solver leaves behind, and clean descriptors. */
#define _GNU_SOURCE /* pipe2 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "solvers.h"

/* ---- descriptors ---- */

/* Closes every descriptor from lo on: close_range(2) where the kernel has it,
   else the ones /proc/self/fd lists, else the first 65536. */
void solver_close_from(int lo) {
#ifdef SYS_close_range
  if (syscall(SYS_close_range, (unsigned)lo, ~0U, 0) == 0) return;
#endif
  DIR *d = opendir("/proc/self/fd");
  if (d) {
    int self = dirfd(d);
    for (struct dirent *e; (e = readdir(d));) {
      int fd = atoi(e->d_name);
      if (e->d_name[0] >= '0' && e->d_name[0] <= '9' && fd >= lo && fd != self) close(fd);
    }
    closedir(d);
    return;
  }
  for (int fd = lo; fd < 65536; fd++) close(fd);
}

int solver_child_fds(const int *fds, int nfds) {
  /* Above every target first, so that no dup2 below closes a source still
     needed; the copies are then made without close-on-exec, and the
     originals and the copies above nfds closed with everything else. */
  int high[SOLVER_CHILD_FDS_MAX];
  if (nfds > SOLVER_CHILD_FDS_MAX) return -1;
  for (int i = 0; i < nfds; i++) {
    high[i] = fds[i] >= 0 ? fcntl(fds[i], F_DUPFD, SOLVER_CHILD_FDS_MAX) : open("/dev/null", O_RDWR);
    if (high[i] < 0) return -1;
  }
  for (int i = 0; i < nfds; i++)
    if (dup2(high[i], i) < 0) return -1;
  solver_close_from(nfds);
  return 0;
}

/* Every handler the bench installed (its cleanup on SIGINT, SIGTERM ...) back
   to the default: a child that never calls exec must not run them, nor
   ignore what the bench ignores for itself (SIGPIPE), nor have its children
   reaped behind its back (SIGCHLD ignored by whoever started the bench). */
static void default_signals(void) {
  for (int sig = 1; sig < NSIG; sig++) {
    struct sigaction sa;
    if (sig == SIGKILL || sig == SIGSTOP || sigaction(sig, NULL, &sa) != 0) continue;
    if (sa.sa_handler != SIG_DFL || sig == SIGPIPE || sig == SIGCHLD) signal(sig, SIG_DFL);
  }
}

/* ---- the keeper ---- */

/* Pids already counted as left behind, so that one seen twice (killed, not yet reaped) counts once. */
typedef struct seen {
  pid_t pid[64];
  int n, count;
} seen;

static void note_left(seen *s, pid_t pid) {
  for (int i = 0; i < s->n; i++)
    if (s->pid[i] == pid) return;
  if (s->n < 64) s->pid[s->n++] = pid;
  s->count++;
}

/* Sends SIGKILL to every child of this process, counting into left (may be
   NULL) those that were still running (not zombies). */
static void kill_children(seen *left) {
  DIR *d = opendir("/proc");
  if (!d) return;
  pid_t me = getpid();
  for (struct dirent *e; (e = readdir(d));) {
    if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
    char path[300], buf[512];
    snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) continue;
    buf[n] = 0;
    /* "PID (COMM) STATE PPID ...": COMM may hold spaces and parentheses. */
    char *rp = strrchr(buf, ')');
    char state = 0;
    long ppid = 0;
    if (rp && sscanf(rp + 1, " %c %ld", &state, &ppid) == 2 && ppid == (long)me) {
      pid_t pid = (pid_t)atol(e->d_name);
      if (left && state != 'Z' && state != 'X') note_left(left, pid);
      kill(pid, SIGKILL);
    }
  }
  closedir(d);
}

/* Kills and reaps every descendant: as a child subreaper, this process
   inherits those whose parent died (a grandchild that called setsid()
   included), so killing its children until none is left ends the tree. */
static void reap_tree(seen *left) {
  for (;;) {
    kill_children(left);
    pid_t r = waitpid(-1, NULL, WNOHANG);
    if (r < 0 && errno == ECHILD) return;
    if (r == 0) {
      struct timespec ts = {0, 1000000};
      nanosleep(&ts, NULL);
    }
  }
}

/* The solver's own process: its own process group (so that a hang can be
   killed whole), the signals as a fresh process has them, its descriptors. */
static void run_body(solver_body_fn body, const void *arg, const int *fds, int nfds, const sigset_t *unblock) {
  setpgid(0, 0);
  default_signals();
  sigprocmask(SIG_UNBLOCK, unblock, NULL);
  /* Ends with the keeper, even one killed. */
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (solver_child_fds(fds, nfds)) _exit(127);
  body(arg);
  _exit(127);
}

/* The keeper, the bench's child: runs the body as its own child and, when the
   body ends or the bench sends SIGTERM, kills what is left of its process
   tree, even what left its process group or session; writes to report how
   many processes were left when the body ended by itself, then exits as the
   body did. Only the body holds the solver's pipes. */
static void keeper(solver_body_fn body, const void *arg, const int *fds, int nfds, int report, pid_t bench) {
  setpgid(0, 0);
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  /* The bench's end (a signal, a crash) ends the solver too: SIGUSR1 below.
     It also comes when the bench's thread that started this keeper ends
     though the bench goes on (a binary solver's process serves calls from
     several threads): then the keeper's parent is still the bench. */
  prctl(PR_SET_PDEATHSIG, SIGUSR1);
  struct rlimit rl = {0, 0};
  setrlimit(RLIMIT_CORE, &rl);
  /* Every signal has been blocked since the fork: none can run a handler of
     the bench's here (its cleanup would remove the bench's temporary files). */
  default_signals();
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGCHLD);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGUSR1);
  sigprocmask(SIG_SETMASK, &set, NULL);
  pid_t w = getppid() == bench ? fork() : -1;
  if (w == 0) run_body(body, arg, fds, nfds, &set);
  const int mine[] = {-1, -1, -1, report}; /* the report as descriptor 3, nothing of the bench's */
  solver_child_fds(mine, 4);
  int status = 127 << 8, stopped = 0;
  for (int done = w < 0; !done;) {
    int sig = sigwaitinfo(&set, NULL);
    if (sig == SIGUSR1 && getppid() == bench) continue; /* a thread of the bench ended, not the bench */
    if (sig == SIGTERM || sig == SIGUSR1) {
      stopped = 1;
      break;
    }
    for (pid_t r; (r = waitpid(-1, &status, WNOHANG)) > 0;)
      if (r == w) done = 1;
  }
  seen left = {{0}, 0, 0};
  /* Stopped: the body's group at once; ended by itself: what is left is
     counted as it is killed, one generation of orphans at a time. */
  if (stopped && w > 0) kill(-w, SIGKILL);
  reap_tree(stopped ? NULL : &left);
  ssize_t wr = write(3, &left.count, sizeof left.count);
  (void)wr;
  sigprocmask(SIG_UNBLOCK, &set, NULL);
  if (WIFSIGNALED(status)) {
    signal(WTERMSIG(status), SIG_DFL);
    raise(WTERMSIG(status));
  }
  _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 127);
}

int solver_proc_start(solver_proc *p, solver_body_fn body, const void *arg, const int *fds, int nfds) {
  p->pid = -1;
  p->report_fd = -1;
  int rep[2];
  if (pipe2(rep, O_CLOEXEC)) return -1;
  /* Whatever stdio holds would otherwise be written a second time by a
   * child that flushes or exits through stdio. */
  fflush(NULL);
  pid_t bench = getpid();
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  p->pid = fork();
  if (p->pid == 0) {
    close(rep[0]);
    keeper(body, arg, fds, nfds, rep[1], bench);
  }
  int err = errno;
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  close(rep[1]);
  if (p->pid < 0) {
    close(rep[0]);
    errno = err;
    return -1;
  }
  /* Both sides set the group, so whichever runs first wins the race. */
  setpgid(p->pid, p->pid);
  p->report_fd = rep[0];
  return 0;
}

/* Asks the keeper to end the tree; kills its group after a second if it has not. */
static void kill_and_wait(pid_t pid, int *status) {
  kill(pid, SIGTERM);
  double until = toi_clock_now() + 1;
  for (;;) {
    pid_t r = waitpid(pid, status, WNOHANG);
    if (r == pid || (r < 0 && errno != EINTR)) return;
    if (toi_clock_now() >= until) break;
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
  }
  kill(-pid, SIGKILL);
  kill(pid, SIGKILL);
  while (waitpid(pid, status, 0) < 0 && errno == EINTR) {
  }
}

int solver_proc_wait(solver_proc *p, double deadline, int *status) {
  *status = 0;
  int stopped = 0;
  for (;;) {
    pid_t r = waitpid(p->pid, status, WNOHANG);
    if (r == p->pid || (r < 0 && errno != EINTR)) break;
    if (toi_clock_now() >= deadline) {
      kill_and_wait(p->pid, status);
      stopped = 1;
      break;
    }
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
  }
  kill(-p->pid, SIGKILL);
  return stopped;
}

int solver_proc_leftovers(solver_proc *p) {
  int count = 0;
  if (p->report_fd < 0) return 0;
  ssize_t r;
  while ((r = read(p->report_fd, &count, sizeof count)) < 0 && errno == EINTR) {
  }
  close(p->report_fd);
  p->report_fd = -1;
  return r == (ssize_t)sizeof count && count > 0 ? count : 0;
}

void solver_report_leftovers(const char *name, int count, int *shown, const toi_msg *msg) {
  if (++*shown > SOLVER_MESSAGES_SHOWN) return;
  toi_msgf(msg,
           "solver %s: %d process%s it started %s still running when it ended: killed (a solver must not leave "
           "processes behind)",
           name, count, count == 1 ? "" : "es", count == 1 ? "was" : "were");
}

/* Whole: a line may be longer than toi_msgf's 4095 bytes. */
void solver_relay_line(const char *name, const char *what, int *shown, const toi_msg *msg, const toi_msg *log,
                       const char *line) {
  int show = ++*shown <= SOLVER_LINES_SHOWN && msg && msg->emit, keep = log && log->emit;
  if (!show && !keep) return;
  size_t n = strlen(name) + strlen(what) + strlen(line) + 16;
  char local[1024], *text = n <= sizeof local ? local : malloc(n);
  if (!text) return;
  snprintf(text, n, "solver %s: %s: %s", name, what, line);
  if (keep) log->emit(log->ud, text);
  if (show) msg->emit(msg->ud, text);
  if (text != local) free(text);
}

void solver_quota_report(const char *name, const solver_quota *q, const toi_msg *msg) {
  if (q->stderr_shown > SOLVER_LINES_SHOWN)
    toi_msgf(msg, "solver %s: %d more stderr lines not shown", name, q->stderr_shown - SOLVER_LINES_SHOWN);
  if (q->output_shown > SOLVER_LINES_SHOWN)
    toi_msgf(msg, "solver %s: %d more output lines not shown", name, q->output_shown - SOLVER_LINES_SHOWN);
  if (q->messages_shown > SOLVER_MESSAGES_SHOWN)
    toi_msgf(msg, "solver %s: %d more protocol messages not shown", name,
             q->messages_shown - SOLVER_MESSAGES_SHOWN);
}
