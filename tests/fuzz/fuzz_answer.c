/* fuzz_answer.c: libFuzzer harness for the subprocess answer parser (src/bench/solver_cmd.c), without processes. */
/* The parser (feed, handle_line) and the batch logic around it (next_batch,
 * settle_batch) are static in solver_cmd.c: the file is included here so that
 * the harness calls them as solver_cmd_run does, with the fuzz input standing
 * for what a solver wrote on stdout and stderr. This translation unit then
 * defines solver_cmd.c's external functions itself, so the archive's
 * solver_cmd.o is never linked in beside it. */
#define _GNU_SOURCE /* pipe2, as in the file included */
#include <stdint.h>
#include "solver_cmd.c"
#include "fuzz_support.h"

/* Case IDs of the batch: "a" twice, so that a second batch follows the first
 * as it does for a file list with a repeated ID. */
static const char *const fz_ids[] = {"a", "b", "a", "c-1", "x.y:z", "grazing-k17-in-000123"};
#define FZ_N (sizeof fz_ids / sizeof *fz_ids)

/* As solver_run does before it calls solver_cmd_run. */
static void fz_setup(toi_case *cases, solver_answer *ans) {
  memset(cases, 0, FZ_N * sizeof *cases);
  for (size_t i = 0; i < FZ_N; i++) {
    snprintf(cases[i].id, sizeof cases[i].id, "%s", fz_ids[i]);
    cases[i].dim = 2;
    cases[i].ra = cases[i].rb = cases[i].ma = cases[i].mb = 1;
    cases[i].pb[0] = 3;
    cases[i].vb[0] = -1;
    memset(&ans[i], 0, sizeof ans[i]);
    ans[i].state = SOLVER_FAILED;
    ans[i].r = (toi_result){TOI_NONE, NAN};
    ans[i].target = ans[i].tolerance = NAN;
    snprintf(ans[i].why, sizeof ans[i].why, "no answer");
  }
}

/* One process's output: the text in chunks of `chunk` bytes to stdout and to
 * stderr, then the end of both streams as read_output sees it. */
static void fz_output(batch *b, const char *text, size_t len, size_t chunk) {
  linebuf out = {malloc(LINE_MAX_LEN + 1), 0, 0}, err = {malloc(LINE_MAX_LEN + 1), 0, 0};
  FZ_CHECK(out.buf && err.buf);
  for (size_t off = 0; off < len; off += chunk) {
    size_t k = len - off < chunk ? len - off : chunk;
    feed(b, &out, text + off, k, 0);
    feed(b, &err, text + off, k, 1);
  }
  if (out.len) feed(b, &out, "\n", 1, 0);
  if (err.len) feed(b, &err, "\n", 1, 1);
  free(out.buf);
  free(err.buf);
}

/* The first byte chooses how every process ends (exited, failed, hung) and
 * the read size; the rest is what each process writes. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0) return 0;
  static const int outcomes[] = {OUT_EXITED, OUT_FAILED, OUT_HUNG, OUT_EXITED};
  const int outcome = outcomes[data[0] & 3];
  const size_t chunk = (size_t)1 << (data[0] >> 2 & 15);
  const char *text = (const char *)data + 1;
  const size_t len = size - 1;

  toi_case cases[FZ_N];
  solver_answer ans[FZ_N];
  fz_setup(cases, ans);
  solver_def s = {.name = "fuzz", .kind = SOLVER_COMMAND};
  solver_run_info info;
  memset(&info, 0, sizeof info);
  solver_quota quota = {0};
  size_t total = 0;
  toi_msg msg = {fz_emit, &total};
  size_t todo[FZ_N], bidx[FZ_N], ntodo = FZ_N;
  id_entry map[FZ_N];
  unsigned char got[FZ_N];
  for (size_t i = 0; i < FZ_N; i++) todo[i] = i;
  const char *reason = outcome == OUT_EXITED ? "" : outcome == OUT_HUNG ? "hung" : "killed by signal 11";
  int batches = 0, progress = 1;
  while (ntodo) {
    FZ_CHECK(++batches <= (int)FZ_N); /* each batch settles at least one case */
    batch b = {&s, cases, ans, &info, bidx, 0, map, got, 0, 0, &quota.stderr_shown, &quota.messages_shown, &msg, NULL};
    next_batch(&b, todo, &ntodo);
    fz_output(&b, text, len, chunk);
    FZ_CHECK(b.answered <= b.n);
    if (settle_batch(&b, outcome, reason, 10.0, todo, &ntodo, progress)) break;
    progress = b.answered > 0;
  }
  solver_quota_report(s.name, &quota, &msg);
  for (size_t i = 0; i < FZ_N; i++) {
    solver_check_answer(&ans[i]);
    FZ_CHECK(ans[i].state == SOLVER_ANSWERED || ans[i].state == SOLVER_FAILED ||
             ans[i].state == SOLVER_UNSUPPORTED);
    FZ_CHECK(memchr(ans[i].why, 0, sizeof ans[i].why) != NULL);
  }
  return 0;
}
