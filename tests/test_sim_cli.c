/* test_sim_cli.c: `toibench audit` and `toibench simulate` end to end. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char simcli_dir[64];

static void simcli_setup(void) {
  snprintf(simcli_dir, sizeof simcli_dir, "/tmp/toi-simcli-XXXXXX");
  cr_assert_not_null(mkdtemp(simcli_dir));
}

static void simcli_teardown(void) {
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", simcli_dir);
  cr_assert_eq(system(cmd), 0);
}

/* runs toibench in the temporary directory; returns its exit status */
static int tb(const char *args) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "cd '%s' && '%s' %s >out.txt 2>err.txt </dev/null", simcli_dir, TOIBENCH_PATH, args);
  int st = system(cmd);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static char *slurp(const char *name) {
  char path[256];
  snprintf(path, sizeof path, "%s/%s", simcli_dir, name);
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  static char buf[1 << 20];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = 0;
  fclose(f);
  char *s = malloc(n + 1);
  memcpy(s, buf, n + 1);
  return s;
}

static void put(const char *name, const char *text) {
  char path[256];
  snprintf(path, sizeof path, "%s/%s", simcli_dir, name);
  FILE *f = fopen(path, "w");
  cr_assert_not_null(f);
  fputs(text, f);
  fclose(f);
}

static int exists(const char *name) {
  char path[256];
  struct stat sb;
  snprintf(path, sizeof path, "%s/%s", simcli_dir, name);
  return stat(path, &sb) == 0;
}

TestSuite(simcli, .init = simcli_setup, .fini = simcli_teardown);

Test(simcli, audit_345_rows) {
  /* the 3-4-5 target: T = 2 exactly for every formulation, centres exact, so gap 0 */
  put("c.cases", "# 3-4-5\ns345 2 -10 0 5 0 2.5 1 3 4 0 0 2.5 1\nmiss 2 0 0 1 0 1 1 4 5 -1 0 1 1\n");
  cr_assert_eq(tb("audit -f expanded,ericson --rows rows.txt c.cases"), 0);
  char *out = slurp("out.txt"), *rows = slurp("rows.txt");
  cr_assert(strstr(out, "2 cases, 1 exact hits or contacts"), "%s", out);
  cr_assert(strstr(out, "expanded: 1 audited") && strstr(out, "ericson: 1 audited"), "%s", out);
  cr_assert(strstr(rows, "# id formulation class T gap"), "%s", rows);
  cr_assert(strstr(rows, "s345 expanded hit 0x1p+1 0 "), "%s", rows);
  cr_assert(!strstr(rows, "miss "));
  free(out);
  free(rows);
}

Test(simcli, audit_errors) {
  put("c.cases", "s345 2 -10 0 5 0 2.5 1 3 4 0 0 2.5 1\n");
  cr_assert_eq(tb("audit --restitution 1.5 c.cases"), 2);
  char *err = slurp("err.txt");
  cr_assert(strstr(err, "Try 'toibench --help'"), "%s", err);
  free(err);
  cr_assert_eq(tb("audit -f phet-reverse c.cases"), 2);
  put("bad.cases", "s345 2 -10 0 5 0 2.5 1 3 4 0 0 2.5\n");
  cr_assert_eq(tb("audit --rows rows.txt bad.cases"), 3);
  cr_assert(!exists("rows.txt"));
  cr_assert_eq(tb("audit --help"), 0);
}

Test(simcli, simulate_reproducible) {
  const char *args = "simulate -f expanded,reference --n 40 --events 600 --every 100 --seed 5 --series %s "
                     "--write-state %s";
  char a[512];
  snprintf(a, sizeof a, args, "s1.txt", "st.txt");
  cr_assert_eq(tb(a), 0);
  snprintf(a, sizeof a, args, "s2.txt", "st2.txt");
  cr_assert_eq(tb(a), 0);
  char *s1 = slurp("s1.txt"), *s2 = slurp("s2.txt"), *st = slurp("st.txt");
  cr_assert(s1 && s2 && !strcmp(s1, s2), "series differ for the same seed");
  cr_assert(strstr(s1, "# kernel expanded") && strstr(s1, "\n\n\n# kernel reference"));
  cr_assert(strstr(st, "box 2 ") && strstr(st, "\nball "));
  /* the written state gives the same series (the header names the state's origin) */
  cr_assert_eq(tb("simulate -f expanded,reference --state st.txt --events 600 --every 100 --series s3.txt"), 0);
  char *s3 = slurp("s3.txt");
  const char *b1 = strstr(s1, "# kernel"), *b3 = strstr(s3, "# kernel");
  cr_assert(b1 && b3 && !strcmp(b1, b3), "state file run differs");
  free(s1);
  free(s2);
  free(s3);
  free(st);
}

Test(simcli, simulate_bad_state_and_zeno) {
  put("bad.state", "box 2 10 10\nball 5 5 0 0 1 1\nball 6 5 0 0 1 1\n");
  cr_assert_eq(tb("simulate -f expanded --state bad.state --series s.txt"), 3);
  char *err = slurp("err.txt");
  cr_assert(strstr(err, "bad.state:3:"), "%s", err);
  cr_assert(!exists("s.txt"));
  free(err);
  /* touching each other and both walls, approaching: a state that does not advance */
  put("trap.state", "box 2 4 4\nball 1 2 1 0 1 1\nball 3 2 -1 0 1 1\n");
  cr_assert_eq(tb("simulate -f expanded --state trap.state --same-instant 100"), 1);
  err = slurp("err.txt");
  cr_assert(strstr(err, "stopped") && strstr(err, "event 10"), "%s", err);
  free(err);
  cr_assert_eq(tb("simulate -f overlap-recovery"), 2);
  cr_assert_eq(tb("simulate --dim 4"), 2);
}
