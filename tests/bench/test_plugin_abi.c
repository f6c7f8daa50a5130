/* test_plugin_abi.c: a plug-in built against the released ABI 3 header (tests/solvers/abi_old) loads and answers
 * as the example plug-in built against today's header does. */
#include <stdio.h>
#include <string.h>
#include "cli_check.h"

/* The row of `out` that starts with name and a space, into row. */
static int abi_row(const char *out, const char *name, char *row, size_t n) {
  size_t len = strlen(name);
  for (const char *p = out; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
    if (strncmp(p, name, len) || p[len] != ' ') continue;
    snprintf(row, n, "%.*s", (int)strcspn(p, "\n"), p);
    return 1;
  }
  return 0;
}

/* The two plug-ins run the same quadratic (examples/solver_c/ball_toi.h): their rows agree after the
 * name, bit for bit in every figure, on a file of awkward cases. */
Test(plugin_abi, a_plugin_built_against_the_abi3_header_loads_and_answers) {
  char args[8192], old[1024], now[1024];
  snprintf(args, sizeof args, "run --solver %s --solver %s cases/degenerate.cases",
           cc_built("tests/solvers/abi_old/abi3_plugin.so"), cc_built("examples/example_plugin.so"));
  cc_out *r = cc_run(NULL, args);
  cr_assert_eq(r->status, 0, "%s", r->err);
  cr_assert(abi_row(r->out, "abi3-old-stable", old, sizeof old), "%s", r->out);
  cr_assert(abi_row(r->out, "example-stable", now, sizeof now), "%s", r->out);
  const size_t skip = strlen("abi3-old-stable");
  cr_assert_gt(strlen(old), skip + 20);
  /* The names differ in length: compare what follows each, spaces of alignment left out. */
  const char *a = old + skip, *b = now + strlen("example-stable");
  while (*a == ' ') a++;
  while (*b == ' ') b++;
  cr_assert_str_eq(a, b);
}
