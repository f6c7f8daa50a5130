/* cost_cmd.c: a subprocess solver (protocol 1) that answers 'none' to every case and then reports its
 * cost as argv[1] says: "square" one line '# engine-time N 1000 N^2' for the N cases of its process,
 * "split" the same as two lines (calls and time in halves), "bad" an unreadable line, "none" no line. */
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "none";
  char line[8192], id[128];
  unsigned long long n = 0;
  while (fgets(line, sizeof line, stdin)) {
    if (line[0] == '#' || sscanf(line, "%127s", id) != 1) continue;
    printf("%s none nan\n", id);
    n++;
  }
  unsigned long long ns = 1000 * n * n;
  if (!strcmp(mode, "square")) printf("# engine-time %llu %llu\n", n, ns);
  if (!strcmp(mode, "split"))
    printf("# engine-time %llu %llu\n# engine-time %llu %llu\n", n / 2, ns / 2, n - n / 2, ns - ns / 2);
  if (!strcmp(mode, "bad")) printf("# engine-time many 12\n");
  return 0;
}
