/* bin_cmd.c: a subprocess solver that asks for the binary protocol (or not), and can break it on purpose. */
/*
 * The example's quadratic (ball_toi.h) in double on the inputs as received; a binary32 run
 * ('# precision binary32') gets float records and answers the time rounded to float. Contact verdicts
 * declare target 0 and tolerance 0. The first argument is the mode:
 *   text       never asks: the text protocol throughout (the same answers, as lines)
 *   bin        asks for the binary protocol and speaks it correctly (the default)
 *   bin64      the same, asking for binary64 records whatever its precision
 *   once       binary, but a process ends after its first batch instead of serving the next
 *   short      binary: the second record is cut short and the solver exits
 *   code       binary: the second record has class code 9
 *   count      binary: the answer count is one less than the request's
 *   nantarget  binary: the second record declares a NaN target
 *   flags      binary: the second record has flags 4
 *   trailing   binary: 3 bytes after the trailer
 *   notrailer  binary: no trailer
 *   crash      binary: each process raises SIGSEGV on its third record
 * In binary it serves batch after batch until its input ends.
 */
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ball_toi.h"

static uint64_t get_le(const unsigned char *p, int bytes) {
  uint64_t x = 0;
  for (int k = bytes - 1; k >= 0; k--) x = x << 8 | p[k];
  return x;
}

static void put_le(unsigned char *p, uint64_t x, int bytes) {
  for (int k = 0; k < bytes; k++) p[k] = (unsigned char)(x >> (8 * k));
}

static double get_num(const unsigned char *p, int f32) {
  if (f32) {
    uint32_t u = (uint32_t)get_le(p, 4);
    float f;
    memcpy(&f, &u, 4);
    return f;
  }
  uint64_t u = get_le(p, 8);
  double x;
  memcpy(&x, &u, 8);
  return x;
}

static void put_num(unsigned char *p, double x, int f32) {
  if (f32) {
    float f = (float)x;
    uint32_t u;
    memcpy(&u, &f, 4);
    put_le(p, u, 4);
  } else {
    uint64_t u;
    memcpy(&u, &x, 8);
    put_le(p, u, 8);
  }
}

/* The verdict on x (pA vA rA mA pB vB rB mB, 3 components each), t rounded to float in binary32. */
static int verdict(const double *x, double tmax, int f32, double *t) {
  int cls = ball_toi(x, x + 3, x[6], x + 8, x + 11, x[14], tmax, t);
  if (f32 && !isnan(*t)) *t = (float)*t;
  return cls;
}

/* f32: the solver computes in binary32 (its times rounded to float); r32: the records hold binary32 numbers. */
static int serve_binary(const char *mode, double tmax, int f32, int r32) {
  int w = r32 ? 4 : 8;
  size_t req = 8 + 16 * (size_t)w, ans = 8 + 3 * (size_t)w;
  unsigned char head[8], in[136], out[40];
  int batches = 0;
  while (fread(head, 1, 8, stdin) == 8) {
    if (!strcmp(mode, "once") && batches++) return 0; /* one batch a process */
    uint64_t n = get_le(head, 8);
    put_le(head, n - (strcmp(mode, "count") == 0), 8);
    fwrite(head, 1, 8, stdout);
    for (uint64_t i = 0; i < n; i++) {
      if (fread(in, 1, req, stdin) != req) return 1;
      if (!strcmp(mode, "crash") && i == 2) {
        fflush(stdout);
        raise(SIGSEGV);
      }
      double x[16], t;
      for (int k = 0; k < 16; k++) x[k] = get_num(in + 8 + (size_t)w * k, r32);
      int cls = verdict(x, tmax, f32, &t);
      int contact = cls == 3 || cls == 6 || cls == 7;
      uint32_t flags = contact ? 3 : 0;
      double target = 0;
      if (i == 1 && !strcmp(mode, "code")) cls = 9;
      if (i == 1 && !strcmp(mode, "flags")) flags = 4;
      if (i == 1 && !strcmp(mode, "nantarget")) flags = 1, target = NAN;
      memset(out, 0, sizeof out);
      put_le(out, (uint32_t)cls, 4);
      put_le(out + 4, flags, 4);
      put_num(out + 8, t, r32);
      put_num(out + 8 + w, target, r32);
      if (i == 1 && !strcmp(mode, "short")) {
        fwrite(out, 1, ans / 2, stdout);
        return fflush(stdout) ? 1 : 0;
      }
      fwrite(out, 1, ans, stdout);
    }
    memset(out, 0, 16);
    if (strcmp(mode, "notrailer")) fwrite(out, 1, 16, stdout);
    if (!strcmp(mode, "trailing")) fwrite("xyz", 1, 3, stdout);
    if (fflush(stdout)) return 1;
    if (!strcmp(mode, "notrailer")) return 0;
  }
  return 0;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "bin";
  char line[4096];
  double tmax = INFINITY;
  int f32 = 0;
  while (fgets(line, sizeof line, stdin)) {
    if (!strncmp(line, "# tmax ", 7)) {
      tmax = strtod(line + 7, NULL);
      continue;
    }
    if (!strcmp(line, "# precision binary32\n")) f32 = 1;
    if (strcmp(mode, "text") && !strcmp(line, "# binary offered\n")) {
      puts(strcmp(mode, "bin64") ? "# binary" : "# binary binary64");
      return fflush(stdout) ? 1 : 0;
    }
    if (!strcmp(line, "# binary 1 binary64\n")) return serve_binary(mode, tmax, f32, 0);
    if (!strcmp(line, "# binary 1 binary32\n")) return serve_binary(mode, tmax, f32, 1);
    char *tok[20];
    int n = 0;
    for (char *p = strtok(line, " \t\r\n"); p && n < 20; p = strtok(NULL, " \t\r\n")) tok[n++] = p;
    if (n == 0 || tok[0][0] == '#') continue;
    int dim = atoi(tok[1]);
    double y[16], x[16] = {0};
    for (int k = 2; k < n && k < 18; k++) y[k - 2] = strtod(tok[k], NULL);
    const double *a = y, *b = y + 2 * dim + 2;
    for (int k = 0; k < dim; k++) {
      x[k] = a[k], x[3 + k] = a[dim + k];
      x[8 + k] = b[k], x[11 + k] = b[dim + k];
    }
    x[6] = a[2 * dim], x[7] = a[2 * dim + 1], x[14] = b[2 * dim], x[15] = b[2 * dim + 1];
    double t;
    int cls = verdict(x, tmax, f32, &t);
    if (cls == 3 || cls == 6 || cls == 7)
      printf("%s %s %a 0 0\n", tok[0], ball_class_names[cls], t);
    else
      printf("%s %s nan\n", tok[0], ball_class_names[cls]);
  }
  return fflush(stdout) ? 1 : 0;
}
