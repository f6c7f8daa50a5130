/* fuzz_checkpoint.c: libFuzzer harness for the checkpoint reader (sweep_read_checkpoint), its checksum and a round trip. */
#define _GNU_SOURCE /* memfd_create */
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>
#include "fuzz_support.h"
#include "sweep.h"

/* Each input goes into an in-memory file named by /proc/self/fd/N (the
 * reader takes a path): nothing on disk, nothing shared between jobs. */
typedef struct mem_file {
  int fd;
  char path[64];
} mem_file;

static void mem_file_open(mem_file *m, const char *name) {
  m->fd = memfd_create(name, 0);
  FZ_CHECK(m->fd >= 0);
  snprintf(m->path, sizeof m->path, "/proc/self/fd/%d", m->fd);
}

static void mem_file_put(const mem_file *m, const void *data, size_t size) {
  FZ_CHECK(ftruncate(m->fd, 0) == 0);
  FZ_CHECK(pwrite(m->fd, data, size, 0) == (ssize_t)size);
}

/* FNV-1a, 64 bits, written here apart from the library's: the checksum a checkpoint's last line holds. */
static uint64_t fnv(const uint8_t *p, size_t n) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ULL;
  return h;
}

/* Where the input's own last line starts when it is a checksum line, else size. */
static size_t body_length(const uint8_t *data, size_t size) {
  size_t plen = strlen(SWEEP_CHECKSUM_PREFIX), end = size;
  if (end > 0 && data[end - 1] == '\n') end--;
  size_t start = end;
  while (start > 0 && data[start - 1] != '\n') start--;
  return end - start >= plen && !memcmp(data + start, SWEEP_CHECKSUM_PREFIX, plen) ? start : size;
}

/* The input's body with the checksum line it should end with: the reader
 * then gets past the checksum to everything else the fuzzer changed. */
static uint8_t *with_checksum(const uint8_t *data, size_t size, size_t *len) {
  size_t body = body_length(data, size);
  uint8_t *out = malloc(body + 1 + 64);
  FZ_CHECK(out != NULL);
  memcpy(out, data, body);
  /* a body whose last line has no newline gets one: the checksum line must be a line of its own */
  if (body > 0 && out[body - 1] != '\n') out[body++] = '\n';
  char line[64];
  int n = snprintf(line, sizeof line, "%s%016llx\n", SWEEP_CHECKSUM_PREFIX, (unsigned long long)fnv(out, body));
  memcpy(out + body, line, (size_t)n);
  *len = body + (size_t)n;
  return out;
}

/* A checkpoint's text as sweep_write_checkpoint writes it (malloc'ed). */
static char *write_checkpoint(const sweep_meta *meta, const sweep_acc *a, size_t *len) {
  char *text = NULL;
  FILE *f = open_memstream(&text, len);
  FZ_CHECK(f != NULL);
  FZ_CHECK(sweep_write_checkpoint(f, meta, a) == 0);
  FZ_CHECK(fclose(f) == 0);
  return text;
}

/* What was read is written as a checkpoint, read back and written again: the
 * writer's checkpoints are accepted, and writing is then a fixed point. */
static void round_trip(const mem_file *m, const sweep_meta *meta, const sweep_acc *a, const toi_msg *msg) {
  size_t len1, len2;
  char *first = write_checkpoint(meta, a, &len1);
  mem_file_put(m, first, len1);
  sweep_meta m2;
  sweep_acc a2;
  FZ_CHECK(sweep_read_checkpoint(m->path, &m2, &a2, msg) == 0);
  char *second = write_checkpoint(&m2, &a2, &len2);
  FZ_CHECK(len1 == len2 && memcmp(first, second, len1) == 0);
  free(first);
  free(second);
  sweep_meta_free(&m2);
  sweep_acc_free(&a2);
}

/* Reads the file both ways: as a checkpoint (returned) and as a result (in *plain). */
static int read_both(const mem_file *in, const toi_msg *msg, sweep_meta *m, sweep_acc *a, int *plain) {
  size_t *total = msg->ud;
  *total = 0;
  int rc = sweep_read_checkpoint(in->path, m, a, msg);
  FZ_CHECK(rc == 0 || rc == -1);
  FZ_CHECK(rc == 0 || *total > 0); /* a refusal says why */
  sweep_meta pm;
  sweep_acc pa;
  *plain = sweep_read(in->path, &pm, &pa, msg);
  FZ_CHECK(*plain == 0 || *plain == -1);
  sweep_meta_free(&pm);
  sweep_acc_free(&pa);
  return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static mem_file in, out;
  if (!in.path[0]) {
    mem_file_open(&in, "fuzz-checkpoint-in");
    mem_file_open(&out, "fuzz-checkpoint-out");
  }
  size_t total = 0;
  toi_msg msg = {fz_emit, &total};
  sweep_meta m;
  sweep_acc a;
  int plain;

  /* As it is: a checkpoint is accepted only with the right checksum as its last line. */
  mem_file_put(&in, data, size);
  int raw = read_both(&in, &msg, &m, &a, &plain);
  FZ_CHECK(raw != 0 || plain == 0); /* a checkpoint is a result too */
  sweep_meta_free(&m);
  sweep_acc_free(&a);

  /* With the checksum made right: the rest of the reader; its verdict is the plain reader's. */
  size_t len;
  uint8_t *fixed = with_checksum(data, size, &len);
  FZ_CHECK(raw != 0 || (len == size && memcmp(fixed, data, size) == 0)); /* an accepted input was already so */
  mem_file_put(&in, fixed, len);
  int rc = read_both(&in, &msg, &m, &a, &plain);
  FZ_CHECK(rc == plain);
  if (rc == 0) round_trip(&out, &m, &a, &msg);
  sweep_meta_free(&m);
  sweep_acc_free(&a);
  free(fixed);
  return 0;
}
