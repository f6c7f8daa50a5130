/* bench_numparse.c: toi_parse_double against strtod, toi_fmt_hex and toi_fmt_g6 against snprintf, on a case file's numbers. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "numfmt.h"
#include "numparse.h"
#include "toi.h"

#define REPS 5

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts); /* CPU time: the machine may be shared */
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The numbers of a case file, each NUL-terminated, one after the other. */
typedef struct tokens {
  char *text;
  size_t len, count;
} tokens;

/* Every field after ID and DIM of every case line of path; -1 on error. */
static int load(tokens *t, const char *path) {
  char *buf;
  size_t len;
  toi_diags dg = {0};
  if (toi_read_file(&buf, &len, path, &dg) != TOI_OK) return -1;
  char *nb = realloc(buf, len + 1);
  if (!nb) return -1;
  buf = nb;
  buf[len] = '\0';
  t->text = malloc(len + 1);
  t->len = t->count = 0;
  char *save_line;
  for (char *line = strtok_r(buf, "\n", &save_line); line; line = strtok_r(NULL, "\n", &save_line)) {
    if (line[0] == '#') continue;
    char *save;
    int field = 0;
    for (char *tok = strtok_r(line, " \t\r", &save); tok; tok = strtok_r(NULL, " \t\r", &save), field++) {
      if (field < 2) continue;
      size_t n = strlen(tok) + 1;
      memcpy(t->text + t->len, tok, n);
      t->len += n;
      t->count++;
    }
  }
  free(buf);
  return 0;
}

/* Seconds of the fastest of REPS passes over every token; the values in v.
   use_strtod: 0 toi_parse_double, 1 strtod, 2 toi_parse_double_span with
   the bytes after each token readable, as a case file's fields are read. */
static double time_parse(const tokens *t, double *v, int use_strtod) {
  double best = 1e30;
  for (int r = 0; r < REPS; r++) {
    double t0 = now();
    const char *p = t->text;
    for (size_t i = 0; i < t->count; i++) {
      if (use_strtod == 2) {
        const char *end = p;
        if (toi_parse_double_span(p, t->text + t->len, &end, &v[i]) != TOI_NUM_OK) v[i] = -1;
        p = end + strlen(end) + 1;
        continue;
      }
      if (use_strtod) v[i] = strtod(p, NULL);
      else if (toi_parse_double(p, &v[i]) != TOI_NUM_OK) v[i] = -1;
      p += strlen(p) + 1;
    }
    double dt = now() - t0;
    if (dt < best) best = dt;
  }
  return best;
}

/* Seconds of the fastest of REPS passes writing every value; a checksum of the bytes in *sum. */
static double time_write(const double *v, size_t n, int which, uint64_t *sum) {
  double best = 1e30;
  char b[64];
  for (int r = 0; r < REPS; r++) {
    uint64_t s = 0;
    double t0 = now();
    for (size_t i = 0; i < n; i++) {
      size_t k;
      switch (which) {
      case 0: k = toi_fmt_hex(b, v[i]); break;
      case 1: k = (size_t)snprintf(b, sizeof b, "%a", v[i]); break;
      case 2: k = toi_fmt_g6(b, v[i]); break;
      default: k = (size_t)snprintf(b, sizeof b, "%.6g", v[i]);
      }
      s = s * 31 + k + (unsigned char)b[k - 1];
    }
    double dt = now() - t0;
    if (dt < best) best = dt;
    *sum = s;
  }
  return best;
}

/* The same numbers written as %.17g: the decimal path. */
static void to_decimal(tokens *d, const double *v, size_t n) {
  d->text = malloc(n * 32);
  d->len = 0;
  d->count = n;
  for (size_t i = 0; i < n; i++) d->len += (size_t)sprintf(d->text + d->len, "%.17g", v[i]) + 1;
}

static void row(const char *what, double ours, double theirs, size_t n) {
  printf("%-34s %8.1f ns  %8.1f ns  %6.2fx\n", what, 1e9 * ours / (double)n, 1e9 * theirs / (double)n,
         theirs / ours);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: bench_numparse CASEFILE\n");
    return 2;
  }
  tokens t;
  if (load(&t, argv[1]) || !t.count) {
    fprintf(stderr, "bench_numparse: cannot read numbers from %s\n", argv[1]);
    return 1;
  }
  double *a = malloc(t.count * sizeof *a), *b = malloc(t.count * sizeof *b);
  printf("%zu numbers from %s; fastest of %d passes, per number\n", t.count, argv[1], REPS);
  printf("%-34s %11s  %11s  %7s\n", "", "toibench", "libc", "speedup");
  double ours = time_parse(&t, a, 0), theirs = time_parse(&t, b, 1);
  if (memcmp(a, b, t.count * sizeof *a)) printf("MISMATCH between toi_parse_double and strtod\n");
  row("parse, as written (hex floats)", ours, theirs, t.count);
  ours = time_parse(&t, a, 2);
  if (memcmp(a, b, t.count * sizeof *a)) printf("MISMATCH between toi_parse_double_span and strtod\n");
  row("parse, as a line's fields (span)", ours, theirs, t.count);
  tokens d;
  to_decimal(&d, b, t.count);
  ours = time_parse(&d, a, 0);
  if (memcmp(a, b, t.count * sizeof *a)) printf("MISMATCH between toi_parse_double and %%.17g's value\n");
  theirs = time_parse(&d, a, 1);
  row("parse, the same as %.17g", ours, theirs, t.count);
  uint64_t s1, s2;
  ours = time_write(b, t.count, 0, &s1), theirs = time_write(b, t.count, 1, &s2);
  if (s1 != s2) printf("MISMATCH between toi_fmt_hex and %%a\n");
  row("write %a", ours, theirs, t.count);
  ours = time_write(b, t.count, 2, &s1), theirs = time_write(b, t.count, 3, &s2);
  if (s1 != s2) printf("MISMATCH between toi_fmt_g6 and %%.6g\n");
  row("write %.6g", ours, theirs, t.count);
  free(a), free(b), free(t.text), free(d.text);
  return 0;
}
