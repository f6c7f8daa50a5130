/* fuzz_plugin.c: libFuzzer harness for what a plug-in's child hands back (src/bench/solver_plugin.c), without processes. */
/* The decoders are static in solver_plugin.c: the file is included here so
 * that the harness calls them as a session's batch and solver_plugin_describe
 * do, with the fuzz input standing for what the untrusted child wrote: the
 * answers and their count in the memory it shares with the bench, the bytes
 * on its answer pipe (the batch's end record) and on its output pipe and,
 * describing, its catalog. This translation unit then defines
 * solver_plugin.c's external functions itself, so the archive's
 * solver_plugin.o is never linked in beside it. */
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

/* An answer of an earlier batch of the call, which this one must leave alone. */
static const solver_answer fz_earlier = {.state = SOLVER_ANSWERED, .r = {TOI_HIT, 0.5}, .target = 0, .tolerance = 0};

/* The shared memory, mapped once as a session maps it (its end is the end of
   at[], so that a read past the region is out of the mapping's bounds for
   ASan: allocated on the heap, not mmap'ed, for its red zone). */
static answer_area *fz_area(void) {
  static answer_area *area;
  if (!area) FZ_CHECK((area = malloc(sizeof *area)) != NULL);
  return area;
}

/* One batch of cases from .. n-1 (a fresh child after an earlier one broke
 * at case from - 1): the child stored the records recs (k of them; the
 * others hold their own index and zeros, as a child that answered them
 * would) and `done`, wrote pipe[0 .. plen-1] on its answer pipe and its
 * output pipe in chunks of `chunk` bytes, then ended as status says (or
 * hangs). The bench takes the answers as read_batch does, then decodes the
 * end record or blames the case the child stopped at as
 * solver_plugin_run does. */
static void fz_batch(const uint8_t *recs, size_t k, uint64_t done, const uint8_t *pipe, size_t plen, size_t chunk,
                     size_t n, size_t from, int hung, int status) {
  answer_area *area = fz_area();
  memset(area->at, 0, n * sizeof area->at[0]);
  memcpy(area->at, recs, k * sizeof(rec));
  for (size_t i = k; i < n; i++) area->at[i].index = i;
  atomic_store_explicit(&area->done, done, memory_order_relaxed);
  solver_answer *ans = malloc(n * sizeof *ans); /* exactly n, so that a write past them is seen */
  FZ_CHECK(ans != NULL);
  fz_setup(ans, n);
  for (size_t i = 0; i < from; i++) ans[i] = fz_earlier;
  solver_run_info info;
  memset(&info, 0, sizeof info);
  output_lines *out = malloc(sizeof *out);
  FZ_CHECK(out != NULL);
  size_t total = 0;
  toi_msg msg = {fz_emit, &total};
  int shown = 0;
  *out = (output_lines){.len = 0, .name = "fuzz", .shown = &shown, .msg = &msg};
  batch_io io = {.have = 0, .garbled = 0, .out = out};
  size_t got = 0, off = 0;
  int end;
  for (;;) {
    size_t before = got;
    take_stored(area, ans + from, n - from, &got);
    FZ_CHECK(got >= before && got <= n - from && got <= (done < n ? done : n));
    if (got >= n - from && io.have >= sizeof(rec)) {
      end = batch_end(&io);
      break;
    }
    if (off >= plen) { /* the child closed its pipes, or holds them open and answers no more */
      end = hung ? BATCH_HUNG : BATCH_ENDED;
      break;
    }
    size_t c = plen - off < chunk ? plen - off : chunk;
    take_answer_bytes(&io, (const char *)pipe + off, c);
    /* The same bytes as the plug-in's output: any of them, lines or not. */
    take_output(out, (const char *)pipe + off, c, 0);
    off += c;
    FZ_CHECK(io.have <= sizeof io.buf);
    FZ_CHECK(io.garbled || io.have <= sizeof(rec));
  }
  take_output(out, "", 0, 1);
  FZ_CHECK(shown >= 0 && out->len == 0);
  size_t expect = from + got;
  int load_failed = 0;
  if (end == BATCH_DONE || end == BATCH_GARBLED) {
    FZ_CHECK(expect == n && io.have >= sizeof(rec));
    FZ_CHECK(end == BATCH_GARBLED || (!io.garbled && io.have == sizeof(rec)));
    rec last;
    memcpy(&last, io.buf, sizeof last);
    int garbled = take_end(&io, end, &info);
    FZ_CHECK(garbled == (end == BATCH_GARBLED || last.index != COST_RECORD));
    if (garbled) info.protocol_errors++;
    /* The cost counters: both or none taken, each a count a uint64_t holds
       summed over many batches. */
    FZ_CHECK(info.engine_calls < ((uint64_t)1 << 63) && info.engine_ns < ((uint64_t)1 << 63));
    FZ_CHECK(info.engine_calls >= 1 || info.engine_ns == 0);
    FZ_CHECK(!garbled || info.engine_calls == 0);
  } else {
    FZ_CHECK(info.engine_calls == 0 && info.engine_ns == 0);
    if (expect < n) {
      load_failed = blame_case(ans, from, expect, n, end == BATCH_HUNG, status, 10.0);
      FZ_CHECK(!load_failed || (expect == from && !hung));
      FZ_CHECK(ans[expect].state == SOLVER_FAILED && ans[expect].malfunction);
      FZ_CHECK(ans[expect].cause == (hung ? TOI_CAUSE_HANG : TOI_CAUSE_CRASH));
    }
  }
  FZ_CHECK(info.protocol_errors <= 1);
  for (size_t i = 0; i < n; i++) {
    if (i < from) { /* another batch's: untouched */
      FZ_CHECK(memcmp(&ans[i], &fz_earlier, sizeof ans[i]) == 0);
      continue;
    }
    solver_check_answer(&ans[i]);
    FZ_CHECK(ans[i].state == SOLVER_ANSWERED || ans[i].state == SOLVER_FAILED ||
             ans[i].state == SOLVER_UNSUPPORTED);
    FZ_CHECK(memchr(ans[i].why, 0, sizeof ans[i].why) != NULL);
    /* A case answered is a class. */
    if (ans[i].state == SOLVER_ANSWERED) FZ_CHECK((int)ans[i].r.cls >= 0 && (int)ans[i].r.cls < TOI_CLASS_COUNT);
    /* The case the child stopped at is blamed; none after it has an answer. */
    if (i >= expect) FZ_CHECK(ans[i].state == SOLVER_FAILED);
    if (load_failed) FZ_CHECK(ans[i].cause == TOI_CAUSE_CRASH);
  }
  free(out);
  free(ans);
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
 * in the batch (1 to 7, or SESSION_BATCH to reach the end of the shared
 * region) and how the child ended; the last byte the batch's first case and
 * whether the child hangs. The rest is what the child wrote: up to 8 records
 * of answers, the count of answers stored (8 bytes; without them, the
 * records given), then its pipes' bytes. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0) return 0;
  static const int statuses[] = {0, 11, CHILD_LOAD_FAILED << 8, 3 << 8};
  const size_t chunk = (size_t)1 << (data[0] & 7);
  const size_t pick = data[0] >> 3 & 7, n = pick == 7 ? SESSION_BATCH : 1 + pick;
  const uint8_t last = data[size - 1];
  const size_t from = (size_t)(last >> 1) % n;
  const uint8_t *body = data + 1;
  size_t len = size - 1, k = len / sizeof(rec);
  if (k > 8) k = 8;
  if (k > n) k = n;
  uint64_t done = k;
  size_t at = k * sizeof(rec);
  if (len - at >= sizeof done) {
    memcpy(&done, body + at, sizeof done);
    at += sizeof done;
  }
  fz_batch(body, k, done, body + at, len - at, chunk, n, from, last & 1, statuses[data[0] >> 6 & 3]);
  fz_description(data + 1, size - 1);
  return 0;
}
