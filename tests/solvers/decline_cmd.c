/* decline_cmd.c: a subprocess solver that answers correctly (ball_toi) except that it declines ('ID unsupported')
 * every case whose ID holds argv[1] and fails ('ID failed') every case whose ID holds argv[2] (either may be "-" for
 * none), then reports its engine's own time as exactly 250 ns per case it read ('# engine-time N 250N'). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ball_toi.h"
#include "case_line.h"

int main(int argc, char **argv) {
  const char *decline = argc > 1 && strcmp(argv[1], "-") ? argv[1] : NULL;
  const char *fail = argc > 2 && strcmp(argv[2], "-") ? argv[2] : NULL;
  char line[4096];
  double tmax = INFINITY;
  unsigned long long n = 0;
  while (fgets(line, sizeof line, stdin)) {
    cl_case cs;
    if (!cl_parse(line, &tmax, &cs)) continue;
    const char *id = cs.id;
    n++;
    if (decline && strstr(id, decline)) {
      printf("%s unsupported\n", id);
      continue;
    }
    if (fail && strstr(id, fail)) {
      printf("%s failed\n", id);
      continue;
    }
    double t;
    int cls = ball_toi(cs.pa, cs.va, cs.ra, cs.pb, cs.vb, cs.rb, tmax, &t);
    printf("%s %s %a\n", id, ball_class_names[cls], t);
  }
  printf("# engine-time %llu %llu\n", n, 250 * n);
  return 0;
}
