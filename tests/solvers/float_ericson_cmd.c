/* float_ericson_cmd.c: a subprocess solver computing in float (Ericson's test), for the binary32 bench tests. */
/*
 * Reads the protocol's input and answers every case. It insists on the
 * header line "# precision binary32" (without it every case is answered
 * 'failed'), unless run with --any, which answers whatever it is given.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "case_line.h"
#include "float_ericson.h"

int main(int argc, char **argv) {
  int any = argc > 1 && !strcmp(argv[1], "--any"), told = 0;
  char line[4096];
  static const char *const names[] = {"none", "overlap", "static", "contact", "separating", "miss", "graze", "hit"};
  while (fgets(line, sizeof line, stdin)) {
    if (!strcmp(line, "# precision binary32\n")) told = 1;
    cl_case cs;
    if (!cl_parse(line, NULL, &cs)) continue;
    if (!any && !told) {
      printf("%s failed\n", cs.id);
      continue;
    }
    double t;
    int cls = float_ericson(cs.pa, cs.va, cs.ra, cs.pb, cs.vb, cs.rb, &t);
    printf("%s %s %a\n", cs.id, names[cls], t);
  }
  return 0;
}
