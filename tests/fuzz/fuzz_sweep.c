/* fuzz_sweep.c: libFuzzer harness for the sweep-result reader (sweep_read), with a write/read round trip. */
#define _GNU_SOURCE /* memfd_create */
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>
#include "fuzz_support.h"
#include "sweep.h"

/* sweep_read takes a path: each input goes into an in-memory file made once
 * per process and named by /proc/self/fd/N, so nothing is left on disk after
 * a crash and nothing is shared between fuzzing jobs. */
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

/* Writes a result into m with sweep_write; returns the bytes written (malloc'ed). */
static char *write_result(const mem_file *m, const sweep_meta *meta, const sweep_acc *a, size_t *len) {
  char *text = NULL;
  FILE *f = open_memstream(&text, len);
  FZ_CHECK(f != NULL);
  FZ_CHECK(sweep_write(f, meta, a) == 0);
  FZ_CHECK(fclose(f) == 0);
  mem_file_put(m, text, *len);
  return text;
}

/* A result read is written, read back and written again: the writer's output
 * must be accepted (merge reads what sweep and merge write), and writing is
 * then a fixed point. */
static void round_trip(const mem_file *m, const sweep_meta *meta, const sweep_acc *a, const toi_msg *msg) {
  size_t len1, len2;
  char *first = write_result(m, meta, a, &len1);
  sweep_meta m2;
  sweep_acc a2;
  FZ_CHECK(sweep_read(m->path, &m2, &a2, msg) == 0);
  char *second = write_result(m, &m2, &a2, &len2);
  FZ_CHECK(len1 == len2 && memcmp(first, second, len1) == 0);
  free(first);
  free(second);
  sweep_meta_free(&m2);
  sweep_acc_free(&a2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static mem_file in, out;
  if (!in.path[0]) {
    mem_file_open(&in, "fuzz-sweep-in");
    mem_file_open(&out, "fuzz-sweep-out");
  }
  mem_file_put(&in, data, size);
  size_t total = 0;
  toi_msg msg = {fz_emit, &total};
  sweep_meta m;
  sweep_acc a;
  int rc = sweep_read(in.path, &m, &a, &msg);
  FZ_CHECK(rc == 0 || rc == -1);
  FZ_CHECK(rc == 0 || total > 0); /* a refusal says why */
  if (rc == 0) round_trip(&out, &m, &a, &msg);
  sweep_meta_free(&m);
  sweep_acc_free(&a);
  return 0;
}
