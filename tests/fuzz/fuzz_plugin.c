/* fuzz_plugin.c: libFuzzer harness for what a plug-in's child sends back (src/bench/solver_plugin.c), without processes. */
/* The decoders are static in solver_plugin.c: the file is included here so
 * that the harness calls them as solver_plugin_run and solver_plugin_describe
 * do, with the fuzz input standing for the bytes a child wrote on its answer
 * pipe, on its output pipe and, describing, its catalog. This translation
 * unit then defines solver_plugin.c's external functions itself, so the
 * archive's solver_plugin.o is never linked in beside it. */
#define _GNU_SOURCE /* pipe2, as in the file included */
#include <stdint.h>
#include "solver_plugin.c"
#include "fuzz_support.h"

/* As solver_run does before it calls solver_plugin_run. */
static void fz_setup(solver_answer *ans, size_t n) {
  for (size_t i = 0; i < n; i++) {
    memset(&ans[i], 0, sizeof ans[i]);
    ans[i].state = SOLVER_FAILED;
    ans[i].r = (toi_result){TOI_NONE, NAN};
    ans[i].target = ans[i].tolerance = NAN;
    snprintf(ans[i].why, sizeof ans[i].why, "no answer");
  }
}

/* The answer stream in chunks of `chunk` bytes, as read() may cut it, for
 * children starting at case `from` until one ends the stream or garbles it;
 * then the case it stopped at blamed as solver_plugin_run blames it. */
static void fz_answers(const uint8_t *data, size_t len, size_t chunk, size_t n, int status) {
  solver_answer ans[8];
  fz_setup(ans, n);
  solver_run_info info;
  memset(&info, 0, sizeof info);
  output_lines *out = malloc(sizeof *out);
  FZ_CHECK(out != NULL);
  size_t total = 0;
  toi_msg msg = {fz_emit, &total};
  int shown = 0;
  *out = (output_lines){.len = 0, .name = "fuzz", .shown = &shown, .msg = &msg};
  child_io io = {-1, -1, {0}, 0, out};
  size_t expect = 0, off = 0;
  int stream = STREAM_ENDED;
  while (off < len) {
    size_t room = sizeof io.buf - io.have, k = len - off < chunk ? len - off : chunk;
    if (k > room) k = room;
    memcpy(io.buf + io.have, data + off, k);
    /* The same bytes as the plug-in's output: any of them, lines or not. */
    take_output(out, (const char *)data + off, k, 0);
    off += k;
    int took = take_buffered(&io, k, ans, n, &expect, &info);
    FZ_CHECK(expect <= n);
    if (took < 0) {
      stream = STREAM_GARBLED;
      break;
    }
    FZ_CHECK(io.have < sizeof(rec)); /* whole records are taken at once */
  }
  if (stream == STREAM_ENDED && io.have) stream = STREAM_GARBLED; /* as read_ready at the end of the pipe */
  take_output(out, "", 0, 1);
  FZ_CHECK(shown >= 0 && out->len == 0);
  if (expect < n) blame_case(ans, 0, expect, n, stream, 0, status, 10.0);
  for (size_t i = 0; i < n; i++) {
    solver_check_answer(&ans[i]);
    FZ_CHECK(ans[i].state == SOLVER_ANSWERED || ans[i].state == SOLVER_FAILED ||
             ans[i].state == SOLVER_UNSUPPORTED);
    FZ_CHECK(memchr(ans[i].why, 0, sizeof ans[i].why) != NULL);
    /* A case answered is a class, with a finite time for a contact. */
    if (ans[i].state == SOLVER_ANSWERED) FZ_CHECK((int)ans[i].r.cls >= 0 && (int)ans[i].r.cls < TOI_CLASS_COUNT);
    /* The case the stream stopped at is blamed; none after it has an answer. */
    if (i >= expect) FZ_CHECK(ans[i].state == SOLVER_FAILED);
  }
  FZ_CHECK(info.engine_ns < ((uint64_t)1 << 63) || info.engine_calls == 0);
  free(out);
}

/* The describing child's answer as take_description reads it. */
static void fz_description(const uint8_t *data, size_t len) {
  if (len < sizeof(describe_head)) return;
  solver_def *v = NULL;
  char err[600];
  int count = take_description((const char *)data, len, "fuzz.so", &v, err, sizeof err);
  if (count < 0) {
    FZ_CHECK(v == NULL);
    FZ_CHECK(memchr(err, 0, sizeof err) != NULL);
    return;
  }
  FZ_CHECK(count > 0 && len == sizeof(describe_head) + (size_t)count * sizeof(solver_def));
  free(v);
}

/* The first byte chooses the read size (1 to 128 bytes), the number of cases
 * (1 to 8) and how the child ended; the rest is what it sent. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0) return 0;
  static const int statuses[] = {0, 11, CHILD_LOAD_FAILED << 8, 3 << 8};
  const size_t chunk = (size_t)1 << (data[0] & 7);
  const size_t n = 1 + (data[0] >> 3 & 7);
  fz_answers(data + 1, size - 1, chunk, n, statuses[data[0] >> 6 & 3]);
  fz_description(data + 1, size - 1);
  return 0;
}
