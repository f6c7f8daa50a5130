/* solver.c: an example solver speaking toibench's subprocess protocol, binary when offered (else text lines). */
/*
 * Build: cc -O2 -o solver examples/solver_c/solver.c -lm
 * Run:   toibench run --solver-cmd './solver' cases/degenerate.cases
 *        toibench run --solver-cmd './solver --text' ...     (never asks for the binary protocol)
 *
 * toibench writes a header of '#' lines on stdin:
 *   # toibench solver protocol 1
 *   # tmax inf                      (or the step as a hex float, with --tmax)
 *   # binary offered                (the offer; or '# binary 1 binary64': binary records follow)
 * Text protocol: case format v1 lines follow, then stdin closes:
 *   ID DIM pA[DIM] vA[DIM] rA mA pB[DIM] vB[DIM] rB mB
 * and toibench reads one answer per case from stdout, in any order:
 *   ID CLASS T                      (T a number or nan; hex floats round-trip)
 * Other '#' lines and blank lines are comments.
 * Binary protocol: answering the offer with the line '# binary binary64' (here, and exiting at once) makes
 * toibench start the solver again with '# binary 1 binary64' as the header's last line, then a little-endian
 * uint64 count and that many 136-byte records; the answer is the count, as many 32-byte records in the same
 * order, and a 16-byte trailer (doc/validating.md gives every byte); then the next batch's count, until
 * the input ends. '# binary' alone asks for records in
 * the solver's precision (binary32 numbers for a binary32 solver); this one computes in double.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ball_toi.h"

/* Little-endian fields, whatever this machine's byte order. */
static uint64_t get_u64(const unsigned char *p) {
  uint64_t x = 0;
  for (int k = 7; k >= 0; k--) x = x << 8 | p[k];
  return x;
}

static double get_f64(const unsigned char *p) {
  uint64_t u = get_u64(p);
  double x;
  memcpy(&x, &u, 8);
  return x;
}

static void put_u64(unsigned char *p, uint64_t x) {
  for (int k = 0; k < 8; k++) p[k] = (unsigned char)(x >> (8 * k));
}

static void put_f64(unsigned char *p, double x) {
  uint64_t u;
  memcpy(&u, &x, 8);
  put_u64(p, u);
}

/* The binary protocol: the count, then request records of 8 + 16 * 8 bytes
   (dim, a reserved word, pA vA rA mA pB vB rB mB with z = 0 in 2D), answered
   by the count, records of 8 + 3 * 8 bytes (class code, flags, T, target,
   tolerance) and the trailer (engine calls and nanoseconds: none measured). */
static int serve_binary(double tmax) {
  unsigned char head[8], in[136], out[32];
  /* Batch after batch, until the input ends. */
  while (fread(head, 1, 8, stdin) == 8) {
    uint64_t n = get_u64(head);
    fwrite(head, 1, 8, stdout);
    for (uint64_t i = 0; i < n; i++) {
      if (fread(in, 1, sizeof in, stdin) != sizeof in) return 1;
      double x[16];
      for (int k = 0; k < 16; k++) x[k] = get_f64(in + 8 + 8 * k);
      double t;
      int cls = ball_toi(x, x + 3, x[6], x + 8, x + 11, x[14], tmax, &t);
      memset(out, 0, sizeof out);
      out[0] = (unsigned char)cls; /* the code: the class number, as in ball_class_names */
      put_f64(out + 8, t);         /* flags 0: no target or tolerance declared */
      fwrite(out, 1, sizeof out, stdout);
    }
    memset(out, 0, 16);
    fwrite(out, 1, 16, stdout);
    if (fflush(stdout)) return 1; /* the answers of a batch go out as it ends */
  }
  return 0;
}

int main(int argc, char **argv) {
  int text_only = argc > 1 && !strcmp(argv[1], "--text");
  static char obuf[1 << 16];
  setvbuf(stdout, obuf, _IOFBF, sizeof obuf);
  static char ibuf[1 << 16]; /* a batch's records read in a few system calls, not one per 4 KiB */
  setvbuf(stdin, ibuf, _IOFBF, sizeof ibuf);
  char line[4096];
  double tmax = INFINITY;
  while (fgets(line, sizeof line, stdin)) {
    if (!strncmp(line, "# tmax ", 7)) {
      tmax = strtod(line + 7, NULL);
      continue;
    }
    if (!text_only && !strcmp(line, "# binary offered\n")) {
      fputs("# binary binary64\n", stdout); /* yes, please: toibench starts this solver again, in binary */
      return fflush(stdout) ? 1 : 0;
    }
    if (!strcmp(line, "# binary 1 binary64\n")) return serve_binary(tmax);
    char *tok[20];
    int n = 0;
    for (char *p = strtok(line, " \t\r\n"); p && n < 20; p = strtok(NULL, " \t\r\n")) tok[n++] = p;
    if (n == 0 || tok[0][0] == '#') continue;
    int dim = atoi(tok[1]);
    if ((dim != 2 && dim != 3) || n != 2 + 2 * (2 * dim + 2)) {
      /* Answering "unsupported" keeps the case out of the scores; toibench reads only valid cases anyway. */
      printf("%s unsupported\n", tok[0]);
      continue;
    }
    double x[16];
    for (int k = 2; k < n; k++) x[k - 2] = strtod(tok[k], NULL); /* strtod reads hex floats exactly */
    double pa[3] = {0}, va[3] = {0}, pb[3] = {0}, vb[3] = {0};
    const double *a = x, *b = x + 2 * dim + 2;
    for (int k = 0; k < dim; k++) {
      pa[k] = a[k];
      va[k] = a[dim + k];
      pb[k] = b[k];
      vb[k] = b[dim + k];
    }
    double t;
    int cls = ball_toi(pa, va, a[2 * dim], pb, vb, b[2 * dim], tmax, &t);
    if (isnan(t))
      printf("%s %s nan\n", tok[0], ball_class_names[cls]);
    else
      printf("%s %s %a\n", tok[0], ball_class_names[cls], t);
  }
  /* Answers are written when the input ends; fflush reports a closed pipe. */
  return fflush(stdout) ? 1 : 0;
}
