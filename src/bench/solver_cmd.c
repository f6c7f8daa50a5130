/* solver_cmd.c: the subprocess protocol: case lines to a command's stdin, `ID CLASS T` answers from its stdout;
   or, for a command that asks for it, the binary protocol: fixed-size little-endian records both ways. */
#define _GNU_SOURCE /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "solvers.h"
#include "textin.h"

/* Longest answer line accepted; a longer one is malformed, not a reason to
 * grow without bound. */
#define LINE_MAX_LEN 8192

typedef struct id_entry {
  const char *id;
  size_t pos; /* position in the batch */
} id_entry;

/* The binary protocol's sizes (doc/validating.md): a request record is dim,
   a reserved word and 16 numbers; an answer record a code, flags and 3
   numbers; the answer stream is a count, the records and a trailer. */
#define BIN_REQ_WORDS 16
#define BIN_CODE_UNSUPPORTED 16u
#define BIN_CODE_FAILED 17u
#define BIN_FLAG_TARGET 1u
#define BIN_FLAG_TOLERANCE 2u
enum { BIN_COUNT, BIN_RECORDS, BIN_TRAILER, BIN_DONE, BIN_REFUSED };

typedef struct batch {
  const solver_def *s;
  const toi_case *cases;
  solver_answer *ans;
  solver_run_info *info;
  size_t *idx; /* case indices */
  size_t n;
  id_entry *map; /* sorted by ID */
  unsigned char *got;
  size_t answered;
  size_t line_no;
  int *stderr_shown, *messages_shown;
  const toi_msg *msg;
  const toi_msg *log; /* every stderr line (toi_quota.log), or NULL */
  int bin;            /* 1 + the records' precision: this process speaks the binary protocol; 0: text */
  int asked;          /* what the solver asked for in answer to the offer (as bin), or 0 */
  int stage;          /* binary: what the next bytes are (BIN_*) */
  size_t rec;         /* binary: the next answer record */
  size_t have;        /* binary: bytes of the current item in part */
  unsigned char part[32];
} batch;

typedef struct linebuf {
  char *buf;
  size_t len;
  int overflow;
} linebuf;

static int cmp_entry(const void *a, const void *b) {
  return strcmp(((const id_entry *)a)->id, ((const id_entry *)b)->id);
}

static int cmp_entry_pos(const void *a, const void *b) {
  const id_entry *x = a, *y = b;
  int c = strcmp(x->id, y->id);
  return c ? c : (x->pos > y->pos) - (x->pos < y->pos);
}

static int cmp_size(const void *a, const void *b) {
  size_t x = *(const size_t *)a, y = *(const size_t *)b;
  return (x > y) - (x < y);
}


static void message(batch *b, const char *fmt, const char *arg, size_t line) {
  if (++*b->messages_shown > SOLVER_MESSAGES_SHOWN) return;
  char text[512], shown[400];
  snprintf(text, sizeof text, fmt, text_printable(arg, 80, shown, sizeof shown));
  if (line)
    toi_msgf(b->msg, "solver %s: answer line %zu: %s", b->s->name, line, text);
  else
    toi_msgf(b->msg, "solver %s: %s", b->s->name, text);
}

static void relay_stderr(const batch *b, const char *line) {
  solver_relay_line(b->s->name, "stderr", b->stderr_shown, b->msg, b->log, line);
}

static int parse_num(const char *s, double *out) {
  char *end;
  errno = 0;
  double x = strtod(s, &end);
  if (end == s || *end) return -1;
  *out = x;
  return 0;
}

static void set_failed_at(solver_answer *a, toi_fail_cause cause, const char *why, const char *unit, size_t line) {
  a->state = SOLVER_FAILED;
  a->cause = cause;
  a->malfunction = 1;
  char at[48] = "";
  if (line) snprintf(at, sizeof at, " (answer %s %zu)", unit, line);
  size_t n = strlen(why), room = sizeof a->why - 1 - strlen(at);
  if (n > room) n = room;
  memcpy(a->why, why, n);
  strcpy(a->why + n, at);
}

static void set_failed_as(solver_answer *a, toi_fail_cause cause, const char *why, size_t line) {
  set_failed_at(a, cause, why, "line", line);
}

/* A protocol error on an answer line. */
static void set_failed(solver_answer *a, const char *why, size_t line) {
  set_failed_as(a, TOI_CAUSE_PROTOCOL, why, line);
}

/* A pipe whose ends no other child of the bench inherits, even one forked
   by another thread meanwhile. */
static int cloexec_pipe(int fd[2]) { return pipe2(fd, O_CLOEXEC); }

/* The size asked for a solver's input and output pipes: a block of 4096
   binary records (136 bytes a request) fits. */
#define SOLVER_PIPE_SIZE (1 << 20)

/* A count of the `# engine-time CALLS NS` line: decimal digits only, below 2^63. */
static int parse_count(const char *s, uint64_t *out) {
  if (!*s || strspn(s, "0123456789") != strlen(s) || strlen(s) > 18) return -1;
  *out = strtoull(s, NULL, 10);
  return 0;
}

/* `# engine-time CALLS NS`: the engine's own cost, summed over the solver's
   processes (an answer line starting with '#' is otherwise a comment). */
static void engine_time_line(batch *b, char **tok, int nt, size_t ln) {
  uint64_t calls, ns;
  if (nt != 4 || parse_count(tok[2], &calls) || parse_count(tok[3], &ns)) {
    b->info->protocol_errors++;
    message(b, "malformed engine-time line: expected '# engine-time CALLS NANOSECONDS'%s", "", ln);
    return;
  }
  b->info->engine_calls += calls;
  b->info->engine_ns += ns;
}

static void handle_line(batch *b, char *line) {
  size_t ln = ++b->line_no;
  line[strcspn(line, "\r")] = 0;
  char *tok[6];
  int nt = 0;
  for (char *save = NULL, *t = strtok_r(line, " \t", &save); t && nt < 6; t = strtok_r(NULL, " \t", &save))
    tok[nt++] = t;
  if (nt >= 2 && !strcmp(tok[0], "#") && !strcmp(tok[1], "engine-time")) {
    engine_time_line(b, tok, nt, ln);
    return;
  }
  if ((nt == 2 || nt == 3) && !strcmp(tok[0], "#") && !strcmp(tok[1], "binary")) {
    /* The answer to the header's offer: later processes speak binary, with
       numbers in the solver's precision, or binary64 when it says so. */
    toi_precision q = b->s->precision;
    if (nt == 3 && toi_precision_parse(&q, tok[2]) != TOI_OK) q = TOI_PRECISION_COUNT;
    if (q != TOI_BINARY64 && q != b->s->precision) {
      b->info->protocol_errors++;
      message(b, "'# binary %s': the records are in the solver's precision or binary64", tok[2], ln);
      return;
    }
    b->asked = 1 + q;
    return;
  }
  if (nt == 0 || tok[0][0] == '#') return;
  id_entry key = {tok[0], 0};
  id_entry *e = bsearch(&key, b->map, b->n, sizeof *b->map, cmp_entry);
  if (!e) {
    b->info->protocol_errors++;
    message(b, "answer for unknown case ID '%s'", tok[0], ln);
    return;
  }
  solver_answer *a = &b->ans[b->idx[e->pos]];
  if (b->got[e->pos]) {
    set_failed(a, "answered more than once", ln);
    return;
  }
  b->got[e->pos] = 1;
  b->answered++;
  memset(a, 0, sizeof *a);
  a->r = (toi_result){TOI_NONE, NAN};
  a->target = a->tolerance = NAN;
  if (nt == 2 && !strcmp(tok[1], "unsupported")) {
    a->state = SOLVER_UNSUPPORTED;
    return;
  }
  if (nt == 2 && !strcmp(tok[1], "failed")) {
    /* The solver's own failure state: counted, not a malfunction. */
    a->state = SOLVER_FAILED;
    a->cause = TOI_CAUSE_DECLARED;
    snprintf(a->why, sizeof a->why, "the solver reported failure");
    return;
  }
  if (nt < 3 || nt > 5) {
    set_failed(a, "malformed answer: expected 'ID CLASS T [TARGET [TOLERANCE]]', 'ID unsupported' or 'ID failed'",
               ln);
    return;
  }
  toi_class cls;
  double t, target = NAN, tol = NAN;
  if (toi_class_parse(&cls, tok[1]) != TOI_OK) {
    char why[256], shown[200];
    snprintf(why, sizeof why, "malformed answer: unknown class '%s'", text_printable(tok[1], 40, shown, sizeof shown));
    set_failed(a, why, ln);
    return;
  }
  if (parse_num(tok[2], &t) || (nt > 3 && (parse_num(tok[3], &target) || !isfinite(target))) ||
      (nt > 4 && (parse_num(tok[4], &tol) || !isfinite(tol)))) {
    set_failed(a, "malformed answer: a number is not readable", ln);
    return;
  }
  a->state = SOLVER_ANSWERED;
  a->r = (toi_result){(toi_class)cls, t};
  a->target = target;
  a->tolerance = tol;
}

/* Appends data and hands every complete line to handle (stdout) or relays it (stderr). */
static int feed(batch *b, linebuf *lb, const char *data, size_t len, int is_err) {
  int answers = 0;
  for (size_t i = 0; i < len; i++) {
    char ch = data[i];
    if (ch != '\n') {
      if (lb->len < LINE_MAX_LEN)
        lb->buf[lb->len++] = ch;
      else
        lb->overflow = 1;
      continue;
    }
    lb->buf[lb->len] = 0;
    if (is_err) {
      relay_stderr(b, lb->buf);
    } else if (lb->overflow) {
      b->line_no++;
      b->info->protocol_errors++;
      message(b, "line longer than %s bytes ignored", "8192", b->line_no);
    } else {
      size_t before = b->answered;
      handle_line(b, lb->buf);
      answers += b->answered > before;
    }
    lb->len = 0;
    lb->overflow = 0;
  }
  return answers;
}

/* ---- the binary protocol: little-endian whatever the machine ---- */

static void put_u32(unsigned char *p, uint32_t x) {
  for (int k = 0; k < 4; k++) p[k] = (unsigned char)(x >> (8 * k));
}

static void put_u64(unsigned char *p, uint64_t x) {
  for (int k = 0; k < 8; k++) p[k] = (unsigned char)(x >> (8 * k));
}

static uint32_t get_u32(const unsigned char *p) {
  uint32_t x = 0;
  for (int k = 3; k >= 0; k--) x = x << 8 | p[k];
  return x;
}

static uint64_t get_u64(const unsigned char *p) {
  uint64_t x = 0;
  for (int k = 7; k >= 0; k--) x = x << 8 | p[k];
  return x;
}

/* A number in the solver's precision: 8 bytes of binary64 or 4 of binary32
   (the cases are already rounded to it, so the conversion is exact). */
static size_t put_num(unsigned char *p, double x, int f32) {
  if (f32) {
    float f = (float)x;
    uint32_t u;
    memcpy(&u, &f, 4);
    put_u32(p, u);
    return 4;
  }
  uint64_t u;
  memcpy(&u, &x, 8);
  put_u64(p, u);
  return 8;
}

static double get_num(const unsigned char *p, int f32) {
  if (f32) {
    uint32_t u = get_u32(p);
    float f;
    memcpy(&f, &u, 4);
    return (double)f;
  }
  uint64_t u = get_u64(p);
  double x;
  memcpy(&x, &u, 8);
  return x;
}

static size_t bin_req_size(int f32) { return 8 + BIN_REQ_WORDS * (f32 ? 4u : 8u); }
static size_t bin_ans_size(int f32) { return 8 + 3 * (f32 ? 4u : 8u); }

/* One case as a request record. */
static void put_case(unsigned char *p, const toi_case *c, int f32) {
  put_u32(p, (uint32_t)c->dim);
  put_u32(p + 4, 0);
  p += 8;
  const double *v[] = {c->pa, c->va};
  const double *w[] = {c->pb, c->vb};
  for (int k = 0; k < 2; k++)
    for (int j = 0; j < 3; j++) p += put_num(p, j < c->dim ? v[k][j] : 0, f32);
  p += put_num(p, c->ra, f32);
  p += put_num(p, c->ma, f32);
  for (int k = 0; k < 2; k++)
    for (int j = 0; j < 3; j++) p += put_num(p, j < c->dim ? w[k][j] : 0, f32);
  p += put_num(p, c->rb, f32);
  put_num(p, c->mb, f32);
}

/* A binary protocol error on answer record k (from 1). */
static void bin_failed(batch *b, size_t k, const char *why) {
  set_failed_at(&b->ans[b->idx[k - 1]], TOI_CAUSE_PROTOCOL, why, "record", k);
}

/* The answer record of case b->rec, whole in b->part. */
static void take_bin_record(batch *b) {
  int f32 = b->bin - 1 == TOI_BINARY32;
  size_t k = b->rec++;
  solver_answer *a = &b->ans[b->idx[k]];
  b->got[k] = 1;
  b->answered++;
  memset(a, 0, sizeof *a);
  a->r = (toi_result){TOI_NONE, NAN};
  a->target = a->tolerance = NAN;
  uint32_t code = get_u32(b->part), flags = get_u32(b->part + 4);
  size_t w = f32 ? 4 : 8;
  double t = get_num(b->part + 8, f32), target = get_num(b->part + 8 + w, f32),
         tol = get_num(b->part + 8 + 2 * w, f32);
  char why[160];
  if (code == BIN_CODE_UNSUPPORTED) {
    a->state = SOLVER_UNSUPPORTED;
    return;
  }
  if (code == BIN_CODE_FAILED) {
    a->state = SOLVER_FAILED;
    a->cause = TOI_CAUSE_DECLARED;
    snprintf(a->why, sizeof a->why, "the solver reported failure");
    return;
  }
  if (code >= TOI_CLASS_COUNT) {
    snprintf(why, sizeof why, "malformed answer: unknown class code %" PRIu32, code);
    bin_failed(b, k + 1, why);
    return;
  }
  if ((flags & ~(BIN_FLAG_TARGET | BIN_FLAG_TOLERANCE)) || flags == BIN_FLAG_TOLERANCE) {
    snprintf(why, sizeof why, "malformed answer: flags 0x%" PRIx32 " (bit 0 target, bit 1 tolerance with a target)",
             flags);
    bin_failed(b, k + 1, why);
    return;
  }
  if (((flags & BIN_FLAG_TARGET) && !isfinite(target)) || ((flags & BIN_FLAG_TOLERANCE) && !isfinite(tol))) {
    bin_failed(b, k + 1, "malformed answer: a declared target or tolerance is not finite");
    return;
  }
  a->state = SOLVER_ANSWERED;
  a->r = (toi_result){(toi_class)code, t};
  if (flags & BIN_FLAG_TARGET) a->target = target;
  if (flags & BIN_FLAG_TOLERANCE) a->tolerance = tol;
}

/* The size of the binary item expected next. */
static size_t bin_need(const batch *b) {
  switch (b->stage) {
  case BIN_COUNT: return 8;
  case BIN_RECORDS: return bin_ans_size(b->bin - 1 == TOI_BINARY32);
  case BIN_TRAILER: return 16;
  default: return 0;
  }
}

/* The whole item in b->part. */
static void take_bin_item(batch *b) {
  char why[160];
  if (b->stage == BIN_COUNT) {
    uint64_t count = get_u64(b->part);
    if (count != b->n) {
      /* No record can be matched to its case: every case of the batch fails. */
      snprintf(why, sizeof why, "malformed answer: the answer count is %" PRIu64 " for %zu cases", count, b->n);
      for (size_t k = 0; k < b->n; k++) {
        set_failed_at(&b->ans[b->idx[k]], TOI_CAUSE_PROTOCOL, why, "record", 0);
        b->got[k] = 1;
      }
      b->answered = b->n;
      b->stage = BIN_REFUSED;
      return;
    }
    b->stage = b->n ? BIN_RECORDS : BIN_TRAILER;
  } else if (b->stage == BIN_RECORDS) {
    take_bin_record(b);
    if (b->rec == b->n) b->stage = BIN_TRAILER;
  } else if (b->stage == BIN_TRAILER) {
    uint64_t calls = get_u64(b->part), ns = get_u64(b->part + 8);
    b->stage = BIN_DONE;
    if (calls >= (uint64_t)1 << 63 || ns >= (uint64_t)1 << 63) {
      b->info->protocol_errors++;
      message(b, "malformed engine-time trailer: a count is 2^63 or more%s", "", 0);
      return;
    }
    b->info->engine_calls += calls;
    b->info->engine_ns += ns;
  }
}

/* Takes binary answer bytes. Returns the count of cases answered. */
static int feed_bin(batch *b, const unsigned char *data, size_t len) {
  size_t before = b->answered;
  while (len) {
    size_t need = bin_need(b);
    if (!need) {
      if (b->stage == BIN_DONE) {
        char n[32];
        snprintf(n, sizeof n, "%zu", len);
        b->info->protocol_errors++;
        message(b, "%s bytes after the answer trailer (binary protocol)", n, 0);
        b->stage = BIN_REFUSED;
      }
      break;
    }
    size_t take = need - b->have < len ? need - b->have : len;
    memcpy(b->part + b->have, data, take);
    b->have += take;
    data += take;
    len -= take;
    if (b->have == need) {
      b->have = 0;
      take_bin_item(b);
    }
  }
  return (int)(b->answered - before);
}

/* The end of the binary answers: a record in part is a short one, a missing
   or short count or trailer a protocol error. */
static void end_bin(batch *b) {
  if (b->stage == BIN_COUNT && !b->have) return; /* nothing came: no answer */
  char why[160];
  size_t need = bin_need(b);
  if (b->stage == BIN_RECORDS && b->have) {
    snprintf(why, sizeof why, "malformed answer: short record (%zu of %zu bytes)", b->have, need);
    b->got[b->rec] = 1;
    b->answered++;
    bin_failed(b, ++b->rec, why);
  } else if ((b->stage == BIN_COUNT && b->have) || (b->stage == BIN_TRAILER && b->rec == b->n)) {
    snprintf(why, sizeof why, "%zu", b->have);
    b->info->protocol_errors++;
    message(b, b->stage == BIN_COUNT ? "short answer count (%s of 8 bytes, binary protocol)"
                                     : "missing or short answer trailer (%s of 16 bytes, binary protocol)",
            why, 0);
  }
  b->have = 0;
  b->stage = BIN_REFUSED;
}

static void set_nonblock(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

/* The input of a batch: the header and the cases; a binary process already
   running (header 0) gets the count and the records alone. */
static char *build_input(const batch *b, double tmax, int header, size_t *len) {
  int f32 = b->bin - 1 == TOI_BINARY32;
  size_t cap = 160 + (b->bin ? bin_req_size(f32) + 8 : 512) * b->n, n = 0;
  char *buf = malloc(cap);
  if (!buf) return NULL;
  if (!header) {
    put_u64((unsigned char *)buf, b->n);
    n = 8;
    for (size_t i = 0; i < b->n; i++, n += bin_req_size(f32))
      put_case((unsigned char *)buf + n, &b->cases[b->idx[i]], f32);
    *len = n;
    return buf;
  }
  n += (size_t)snprintf(buf, cap, "# toibench solver protocol 1\n");
  if (isfinite(tmax))
    n += (size_t)snprintf(buf + n, cap - n, "# tmax %a\n", tmax);
  else
    n += (size_t)snprintf(buf + n, cap - n, "# tmax inf\n");
  /* Only for another precision: a binary64 solver's input stays as it was. */
  if (b->s->precision != TOI_BINARY64)
    n += (size_t)snprintf(buf + n, cap - n, "# precision %s\n", toi_precision_name(b->s->precision));
  if (b->bin) {
    /* The header's last line, then the count and the records. */
    n += (size_t)snprintf(buf + n, cap - n, "# binary 1 %s\n", toi_precision_name((toi_precision)(b->bin - 1)));
    put_u64((unsigned char *)buf + n, b->n);
    n += 8;
    for (size_t i = 0; i < b->n; i++, n += bin_req_size(f32))
      put_case((unsigned char *)buf + n, &b->cases[b->idx[i]], f32);
    *len = n;
    return buf;
  }
  /* The offer: a solver that wants the binary protocol answers '# binary'. */
  n += (size_t)snprintf(buf + n, cap - n, "# binary offered\n");
  for (size_t i = 0; i < b->n; i++) {
    int need = toi_format_case(NULL, 0, &b->cases[b->idx[i]]);
    if (need < 0) continue;
    if (n + (size_t)need + 2 > cap) {
      cap = 2 * (n + (size_t)need + 2);
      char *p = realloc(buf, cap);
      if (!p) {
        free(buf);
        return NULL;
      }
      buf = p;
    }
    toi_format_case(buf + n, cap - n, &b->cases[b->idx[i]]);
    n += (size_t)need;
    buf[n++] = '\n';
  }
  *len = n;
  return buf;
}

enum { OUT_EXITED, OUT_FAILED, OUT_HUNG, OUT_NOSTART };

/* A running solver: its pipe ends (-1 once closed), its input and how much of
   it is written, and the partial lines of its stdout and stderr. */
typedef struct proc {
  solver_proc sp;
  int in_fd, out_fd, err_fd;
  char *input;
  size_t inlen, woff;
  linebuf lo, le;
} proc;

/* A solver speaking the binary protocol serves batch after batch: its
   process stays from one call to the next (solver_def.session) until a
   batch goes wrong or the candidate is freed. */
struct cmd_session {
  proc p;
  const toi_msg *msg; /* of the last call: where its end is reported */
  char name[SOLVER_NAME_MAX + 1];
};

static void proc_free(proc *p) {
  free(p->input);
  free(p->lo.buf);
  free(p->le.buf);
}

static void close_pipes(int pin[2], int pout[2], int perr[2]) {
  for (int k = 0; k < 2; k++) {
    if (pin[k] >= 0) close(pin[k]);
    if (pout[k] >= 0) close(pout[k]);
    if (perr[k] >= 0) close(perr[k]);
  }
}

/* The solver's own process: /bin/sh runs the command. */
static void exec_body(const void *command) {
  execl("/bin/sh", "sh", "-c", (const char *)command, (char *)NULL);
}

/* Starts the command with the batch's input ready to write. 0, or -1 with
   the reason in reason. */
static int start_solver(batch *b, const solver_opts *o, proc *p, char *reason, size_t rsz) {
  *p = (proc){.sp = {-1, -1}, .in_fd = -1, .out_fd = -1, .err_fd = -1};
  p->input = build_input(b, o->tmax, 1, &p->inlen);
  int pin[2] = {-1, -1}, pout[2] = {-1, -1}, perr[2] = {-1, -1};
  p->lo.buf = malloc(LINE_MAX_LEN + 1);
  p->le.buf = malloc(LINE_MAX_LEN + 1);
  if (!p->input || !p->lo.buf || !p->le.buf || cloexec_pipe(pin) || cloexec_pipe(pout) || cloexec_pipe(perr)) {
    snprintf(reason, rsz, "cannot start: %s",
             p->input && p->lo.buf && p->le.buf ? strerror(errno) : "out of memory");
    proc_free(p);
    close_pipes(pin, pout, perr);
    return -1;
  }
  const int fds[] = {pin[0], pout[1], perr[1]};
  int started = solver_proc_start(&p->sp, exec_body, b->s->command, fds, 3);
  int err = errno;
  close(pin[0]);
  close(pout[1]);
  close(perr[1]);
  if (started) {
    snprintf(reason, rsz, "cannot start: fork: %s", strerror(err));
    close(pin[1]);
    close(pout[0]);
    close(perr[0]);
    proc_free(p);
    return -1;
  }
  /* Pipes of a batch's size where the system allows: a batch of binary
     records then crosses in a few system calls and wake-ups, not one per
     64 KiB (a refusal only leaves the default). */
  fcntl(pin[1], F_SETPIPE_SZ, SOLVER_PIPE_SIZE);
  fcntl(pout[0], F_SETPIPE_SZ, SOLVER_PIPE_SIZE);
  set_nonblock(pin[1]);
  set_nonblock(pout[0]);
  set_nonblock(perr[0]);
  p->in_fd = pin[1];
  p->out_fd = pout[0];
  p->err_fd = perr[0];
  if (p->inlen == 0) {
    close(p->in_fd);
    p->in_fd = -1;
  }
  return 0;
}

/* Writes what the solver can take of its input, closing it when all is
   written. 1 when bytes went through. */
static int write_input(proc *p, int keep_open) {
  int progress = 0;
  ssize_t w = write(p->in_fd, p->input + p->woff, p->inlen - p->woff);
  if (w > 0) {
    p->woff += (size_t)w;
    progress = 1;
  } else if (w < 0 && errno != EAGAIN && errno != EINTR) {
    p->woff = p->inlen; /* the solver closed its input (EPIPE): it has all it wants */
    keep_open = 0;
  }
  if (p->woff >= p->inlen && !keep_open) {
    close(p->in_fd);
    p->in_fd = -1;
  }
  return progress;
}

/* Reads from the solver's stdout or stderr (is_err) into its lines, closing
   *fd at its end. Returns the count of cases answered. */
static int read_output(batch *b, int *fd, linebuf *lb, int is_err) {
  char chunk[65536];
  ssize_t r = read(*fd, chunk, sizeof chunk);
  if (r > 0 && b->bin && !is_err) return feed_bin(b, (const unsigned char *)chunk, (size_t)r);
  if (r > 0) return feed(b, lb, chunk, (size_t)r, is_err);
  if (r == 0 || (errno != EAGAIN && errno != EINTR)) {
    if (b->bin && !is_err)
      end_bin(b);
    else if (lb->len)
      feed(b, lb, "\n", 1, is_err); /* a last line without newline still counts */
    close(*fd);
    *fd = -1;
  }
  return 0;
}

/* Feeds the input and takes the answers and stderr lines until both outputs
   close. Returns 1 when the solver made no progress for the timeout (hung). */
static int exchange(batch *b, proc *p, double timeout) {
  double deadline = toi_clock_now() + timeout;
  /* A binary batch ends with its trailer; its process may serve the next. */
  while ((p->out_fd >= 0 || p->err_fd >= 0) && !(b->bin && b->stage == BIN_DONE)) {
    double left = deadline - toi_clock_now();
    if (left <= 0) return 1;
    struct pollfd fds[3];
    int np = 0, iin = -1, iout = -1, ierr = -1;
    if (p->in_fd >= 0 && p->woff < p->inlen) {
      iin = np;
      fds[np++] = (struct pollfd){p->in_fd, POLLOUT, 0};
    }
    if (p->out_fd >= 0) {
      iout = np;
      fds[np++] = (struct pollfd){p->out_fd, POLLIN, 0};
    }
    if (p->err_fd >= 0) {
      ierr = np;
      fds[np++] = (struct pollfd){p->err_fd, POLLIN, 0};
    }
    int pr = poll(fds, (nfds_t)np, (int)ceil(left * 1000));
    if (pr < 0 && errno != EINTR) break;
    if (pr <= 0) continue;
    int progress = 0;
    if (iin >= 0 && fds[iin].revents) progress = write_input(p, b->bin);
    if (iout >= 0 && fds[iout].revents) progress |= read_output(b, &p->out_fd, &p->lo, 0) > 0;
    if (ierr >= 0 && fds[ierr].revents) read_output(b, &p->err_fd, &p->le, 1);
    if (progress) deadline = toi_clock_now() + timeout;
  }
  return 0;
}

/* Waits for the solver's exit status: a hung one is stopped at once, else it
   has the timeout to exit once its output closed. Anything it left running is
   killed; when it ended by itself, that is a protocol error. Returns 1 when it
   had to be stopped. */
static int stop_solver(batch *b, proc *p, int hung, double timeout, int *status) {
  int stopped = solver_proc_wait(&p->sp, toi_clock_now() + (hung ? 0 : timeout), status) || hung;
  int left = solver_proc_leftovers(&p->sp);
  if (left && !stopped) {
    b->info->protocol_errors++;
    solver_report_leftovers(b->s->name, left, b->messages_shown, b->msg);
  }
  return stopped;
}

/* The outcome of a solver's end, with the reason for any but OUT_EXITED. */
static int outcome_of(int stopped, int status, double timeout, char *reason, size_t rsz) {
  if (stopped) {
    snprintf(reason, rsz, "no answer within %gs: the solver was stopped", timeout);
    return OUT_HUNG;
  }
  if (WIFSIGNALED(status)) {
    snprintf(reason, rsz, "the solver crashed (signal %d, %s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
    return OUT_FAILED;
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) > 128 && WEXITSTATUS(status) < 128 + 65) {
    /* The shell running the command reports a signal as 128 + N. */
    int sig = WEXITSTATUS(status) - 128;
    snprintf(reason, rsz, "the solver crashed (signal %d, %s; shell status %d)", sig, strsignal(sig),
             WEXITSTATUS(status));
    return OUT_FAILED;
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
    snprintf(reason, rsz, "the solver exited with status %d", WEXITSTATUS(status));
    return OUT_FAILED;
  }
  return OUT_EXITED;
}

static void close_proc(proc *p) {
  if (p->in_fd >= 0) close(p->in_fd);
  if (p->out_fd >= 0) close(p->out_fd);
  if (p->err_fd >= 0) close(p->err_fd);
  p->in_fd = p->out_fd = p->err_fd = -1;
}

/* Runs the command on one batch (IDs unique within it): in the process of the
   solver's session when it has one (binary), else in a new one, which stays
   as the session when it speaks binary and its batch ended well. */
static int run_batch(batch *b, solver_def *s, const solver_opts *o, char *reason, size_t rsz) {
  cmd_session *ss = b->bin ? s->session : NULL;
  proc local, *p = &local;
  if (ss) {
    p = &ss->p;
    free(p->input);
    p->woff = 0;
    if (!(p->input = build_input(b, o->tmax, 0, &p->inlen))) {
      snprintf(reason, rsz, "cannot start: out of memory");
      return OUT_NOSTART;
    }
  } else if (start_solver(b, o, p, reason, rsz)) {
    return OUT_NOSTART;
  }
  int hung = exchange(b, p, o->timeout);
  if (ss && !hung && b->answered == 0 && b->stage == BIN_COUNT && !b->have && p->out_fd < 0) {
    /* The kept process ended instead of reading this batch (a solver that
       serves one batch a process): a new one takes it. */
    s->session = NULL;
    close_proc(p);
    int status;
    stop_solver(b, p, 0, o->timeout, &status);
    proc_free(p);
    free(ss);
    b->stage = BIN_COUNT;
    return run_batch(b, s, o, reason, rsz);
  }
  if (!hung && b->bin && b->stage == BIN_DONE && p->in_fd >= 0) {
    if (!ss && (ss = malloc(sizeof *ss))) {
      ss->p = local;
      s->session = ss;
    }
    if (ss) {
      ss->msg = o->msg;
      snprintf(ss->name, sizeof ss->name, "%s", s->name);
      return OUT_EXITED;
    }
  }
  /* Done with this process: its end is judged as any command's. */
  if (ss) s->session = NULL;
  close_proc(p);
  int status;
  int stopped = stop_solver(b, p, hung, o->timeout, &status);
  proc_free(p);
  free(ss);
  return outcome_of(stopped, status, o->timeout, reason, rsz);
}

void solver_cmd_session_end(cmd_session *ss) {
  if (!ss) return;
  proc *p = &ss->p;
  /* The end of its input: a solver serving batches exits. Its last output is drained, not shown. */
  close(p->in_fd);
  p->in_fd = -1;
  double deadline = toi_clock_now() + SOLVER_LOAD_TIMEOUT;
  while ((p->out_fd >= 0 || p->err_fd >= 0) && toi_clock_now() < deadline) {
    struct pollfd fds[2] = {{p->out_fd, POLLIN, 0}, {p->err_fd, POLLIN, 0}};
    if (poll(fds, 2, 100) <= 0) continue;
    for (int k = 0; k < 2; k++) {
      int *fd = k ? &p->err_fd : &p->out_fd;
      char chunk[4096];
      if (*fd >= 0 && fds[k].revents && read(*fd, chunk, sizeof chunk) <= 0 && errno != EAGAIN && errno != EINTR) {
        close(*fd);
        *fd = -1;
      }
    }
  }
  close_proc(p);
  int status = 0;
  int stopped = solver_proc_wait(&p->sp, toi_clock_now() + (p->out_fd < 0 ? SOLVER_LOAD_TIMEOUT : 0), &status);
  int left = solver_proc_leftovers(&p->sp);
  if (stopped)
    toi_msgf(ss->msg, "solver %s: still running after its input ended: stopped", ss->name);
  else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    toi_msgf(ss->msg, "solver %s: ended badly after its input ended (status %d)", ss->name, status);
  if (left) toi_msgf(ss->msg, "solver %s: %d process%s it started %s still running when it ended: killed", ss->name,
                     left, left == 1 ? "" : "es", left == 1 ? "was" : "were");
  proc_free(p);
  free(ss);
}

/* Moves the next batch out of todo[0 .. *ntodo) into b: each ID once (IDs are
   unique per file, not across files); a repeated ID waits in todo for a later
   batch. Sorting by ID, then by input position, finds the repeats. */
static void next_batch(batch *b, size_t *todo, size_t *ntodo) {
  id_entry *map = b->map;
  if (b->bin) {
    /* Binary answers go by position, not by ID: every case in one batch, in order (todo is sorted). */
    memcpy(b->idx, todo, *ntodo * sizeof *todo);
    b->n = *ntodo;
    *ntodo = 0;
    memset(b->got, 0, b->n);
    return;
  }
  for (size_t k = 0; k < *ntodo; k++) map[k] = (id_entry){b->cases[todo[k]].id, todo[k]};
  qsort(map, *ntodo, sizeof *map, cmp_entry_pos);
  size_t keep = 0;
  for (size_t k = 0; k < *ntodo; k++) {
    if (k > 0 && !strcmp(map[k].id, map[k - 1].id))
      todo[keep++] = map[k].pos;
    else
      b->idx[b->n++] = map[k].pos;
  }
  *ntodo = keep;
  qsort(b->idx, b->n, sizeof *b->idx, cmp_size);
  qsort(todo, *ntodo, sizeof *todo, cmp_size);
  for (size_t j = 0; j < b->n; j++) map[j] = (id_entry){b->cases[b->idx[j]].id, j};
  qsort(map, b->n, sizeof *map, cmp_entry);
  memset(b->got, 0, b->n);
}

/* A solver that answered everything but then hung or failed breaks the protocol. */
static void after_every_answer(batch *b, int outcome, const char *reason, double timeout) {
  if (outcome == OUT_HUNG) {
    char t[32];
    snprintf(t, sizeof t, "%g", timeout);
    b->info->protocol_errors++;
    message(b, "still running %ss after answering every case: stopped (a solver must exit when its input ends)", t,
            0);
  } else if (outcome != OUT_EXITED) {
    b->info->protocol_errors++;
    message(b, "%s after answering every case", reason, 0);
  }
}

/* Crash, hang or failure before every answer: the first unanswered case in
   input order is the likely culprit. The others go back to todo for a fresh
   process, as long as this one made progress or the one before did (a crash
   on the first case of a batch costs that case alone); after two processes
   in a row that answered nothing they would only fail the same way again, and
   so would the cases waiting for a later batch. */
static void blame_batch(batch *b, toi_fail_cause cause, const char *reason, size_t *todo, size_t *ntodo,
                        int retry) {
  size_t first = b->n;
  for (size_t j = 0; j < b->n && first == b->n; j++)
    if (!b->got[j]) first = j;
  char blame[200], why[200];
  snprintf(blame, sizeof blame, "%s (first unanswered case)", reason);
  set_failed_as(&b->ans[b->idx[first]], cause, blame, 0);
  snprintf(why, sizeof why, "%s before answering anything", reason);
  int again = b->answered > 0 || retry;
  for (size_t j = first + 1; j < b->n; j++) {
    if (b->got[j]) continue;
    if (again)
      todo[(*ntodo)++] = b->idx[j];
    else
      set_failed_as(&b->ans[b->idx[j]], cause, why, 0);
  }
  if (!again) {
    for (size_t k = 0; k < *ntodo; k++) set_failed_as(&b->ans[todo[k]], cause, why, 0);
    *ntodo = 0;
  } else {
    qsort(todo, *ntodo, sizeof *todo, cmp_size); /* input order for the next batch */
  }
}

/* Settles the cases of a batch after its run. Returns 1 when no batch can
   follow (the solver cannot be started): every case left has failed. retry:
   the batch before made progress (or there was none), so a batch that makes
   none gets one more process. */
static int settle_batch(batch *b, int outcome, const char *reason, double timeout, size_t *todo, size_t *ntodo,
                        int retry) {
  if (outcome == OUT_NOSTART) {
    toi_msgf(b->msg, "solver %s: %s", b->s->name, reason);
    for (size_t j = 0; j < b->n; j++) set_failed_as(&b->ans[b->idx[j]], TOI_CAUSE_CRASH, reason, 0);
    for (size_t k = 0; k < *ntodo; k++) set_failed_as(&b->ans[todo[k]], TOI_CAUSE_CRASH, reason, 0);
    return 1;
  }
  if (b->answered == b->n) {
    after_every_answer(b, outcome, reason, timeout);
  } else if (outcome == OUT_EXITED) {
    for (size_t j = 0; j < b->n; j++)
      if (!b->got[j]) set_failed(&b->ans[b->idx[j]], "no answer (the solver exited normally without answering)", 0);
  } else {
    blame_batch(b, outcome == OUT_HUNG ? TOI_CAUSE_HANG : TOI_CAUSE_CRASH, reason, todo, ntodo, retry);
  }
  return 0;
}

int solver_cmd_run(solver_def *s, const toi_case *cases, size_t n, const solver_opts *o,
                   solver_answer *ans, solver_run_info *info) {
  size_t *todo = malloc((n ? n : 1) * sizeof *todo), ntodo = n;
  size_t *bidx = malloc((n ? n : 1) * sizeof *bidx);
  id_entry *map = malloc((n ? n : 1) * sizeof *map);
  unsigned char *got = malloc(n ? n : 1);
  if (!todo || !bidx || !map || !got) {
    free(todo);
    free(bidx);
    free(map);
    free(got);
    toi_msgf(o->msg, "solver %s: out of memory", s->name);
    return -1;
  }
  for (size_t i = 0; i < n; i++) todo[i] = i;
  /* A solver that does not read its input must not kill the bench with
     SIGPIPE: the signal is blocked in this thread alone (a write to a closed
     pipe then fails with EPIPE), and the one such a write left pending is
     taken before the mask is restored. The process's dispositions, which
     other threads share, are never touched. */
  sigset_t pipe_set, old_mask, before;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_set, &old_mask);
  sigpending(&before);
  solver_quota local = {0}, *q = o->quota ? o->quota : &local;
  int progress = 1; /* the last process answered something (or none ran yet) */
  while (ntodo) {
    batch b = {.s = s, .cases = cases, .ans = ans, .info = info, .idx = bidx, .map = map, .got = got,
               .stderr_shown = &q->stderr_shown, .messages_shown = &q->messages_shown, .msg = o->msg,
               .log = q->log, .bin = s->binary};
    next_batch(&b, todo, &ntodo);
    char reason[160];
    int outcome = run_batch(&b, s, o, reason, sizeof reason);
    if (!b.bin && b.asked) {
      s->binary = b.asked;
      if (outcome == OUT_EXITED && b.answered == 0) {
        /* It only asked: the same batch again, in the binary protocol. */
        b.bin = b.asked;
        b.line_no = 0;
        memset(got, 0, b.n);
        outcome = run_batch(&b, s, o, reason, sizeof reason);
      }
    }
    if (settle_batch(&b, outcome, reason, o->timeout, todo, &ntodo, progress)) break;
    progress = b.answered > 0;
  }
  sigset_t now;
  sigpending(&now);
  if (sigismember(&now, SIGPIPE) && !sigismember(&before, SIGPIPE)) {
    const struct timespec zero = {0, 0};
    sigtimedwait(&pipe_set, NULL, &zero);
  }
  pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
  if (!o->quota) solver_quota_report(s->name, &local, o->msg);
  free(todo);
  free(bidx);
  free(map);
  free(got);
  return 0;
}
