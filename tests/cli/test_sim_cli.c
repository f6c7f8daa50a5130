/* test_sim_cli.c: `toibench audit` and `toibench simulate` end to end. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include "tmp_dir.h"
#include "toi.h"

/* runs toibench in the temporary directory, without a shell, under an
   address-space limit of vmem_kb KiB (0: none); returns its exit status */
static int tb_limited(long vmem_kb, const char *args) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "'%s' %s >out.txt 2>err.txt </dev/null", TOIBENCH_PATH, args);
  cc_job job = {td_dir, vmem_kb, {0}};
  const char *const line[] = {cmd};
  return cc_pipe(&job, 1, line);
}

static int tb(const char *args) { return tb_limited(0, args); }

/* tb under a 1 GB address-space limit (as `ulimit -v 1000000`), so that a
   regression of a size check fails fast (out of memory, exit 1) instead of
   taking the machine's memory; AddressSanitizer reserves far more address
   space than that, so not under it */
static int tb_small(const char *args) { return tb_limited(getenv("ASAN_OPTIONS") ? 0 : 1000000, args); }

TestSuite(simcli, .init = td_setup, .fini = td_teardown);

Test(simcli, audit_345_rows) {
  /* the 3-4-5 target: T = 2 exactly for every formulation, centres exact, so gap 0 */
  td_put("c.cases", "# 3-4-5\ns345 2 -10 0 5 0 2.5 1 3 4 0 0 2.5 1\nmiss 2 0 0 1 0 1 1 4 5 -1 0 1 1\n");
  cr_assert_eq(tb("audit -f expanded,ericson --rows rows.txt c.cases"), 0);
  char *out = td_read("out.txt"), *rows = td_read("rows.txt");
  cr_assert(strstr(out, "2 cases, 1 exact hits or contacts"), "%s", out);
  cr_assert(strstr(out, "expanded: 1 audited") && strstr(out, "ericson: 1 audited"), "%s", out);
  cr_assert(strstr(rows, "# id formulation class T gap"), "%s", rows);
  cr_assert(strstr(rows, "s345 expanded hit 0x1p+1 0 "), "%s", rows);
  cr_assert(!strstr(rows, "miss "));
  free(out);
  free(rows);
}

Test(simcli, audit_huge_masses_counted_apart) {
  /* Head-on, unit speeds, mA = mB = 1.5e308 (legal inputs): the double pipeline's impulse
   * j = (1 + E)(-(vB - vA).n) / (1/mA + 1/mB) = 2 * 2 / (2 / 1.5e308) = 3e308 > DBL_MAX overflows,
   * so its velocities are not finite. The second case is the same with unit masses (finite, exact).
   * The summary must count the first apart and keep its NaN metrics out of the statistics. */
  td_put("c.cases", "big 2 0 0 1 0 1 1.5e308 3 0 -1 0 1 1.5e308\n"
                 "unit 2 0 0 1 0 1 1 3 0 -1 0 1 1\n");
  cr_assert_eq(tb("audit -f ericson c.cases"), 0);
  char *out = td_read("out.txt");
  cr_assert(strstr(out, "ericson: 2 audited"), "%s", out);
  cr_assert(strstr(out, "1 with a non-finite response (the double pipeline overflowed), first at big"), "%s", out);
  cr_assert(strstr(out, "  ke_err              0            0            0  unit"), "%s", out);
  cr_assert(!strstr(out, "nan"), "%s", out);
  free(out);
  /* alone, the overflowing case leaves no value for the velocity metrics: '-' */
  td_put("c.cases", "big 2 0 0 1 0 1 1.5e308 3 0 -1 0 1 1.5e308\n");
  cr_assert_eq(tb("audit -f ericson c.cases"), 0);
  out = td_read("out.txt");
  cr_assert(strstr(out, "  ke_err              -            -            -  -"), "%s", out);
  cr_assert(strstr(out, "  gap                 0            0            0  big"), "%s", out);
  cr_assert(!strstr(out, "nan"), "%s", out);
  free(out);
}

Test(simcli, audit_errors) {
  td_put("c.cases", "s345 2 -10 0 5 0 2.5 1 3 4 0 0 2.5 1\n");
  cr_assert_eq(tb("audit --restitution 1.5 c.cases"), 2);
  char *err = td_read("err.txt");
  cr_assert(strstr(err, "Try 'toibench audit --help'"), "%s", err);
  free(err);
  cr_assert_eq(tb("audit -f phet-reverse c.cases"), 2);
  td_put("bad.cases", "s345 2 -10 0 5 0 2.5 1 3 4 0 0 2.5\n");
  cr_assert_eq(tb("audit --rows rows.txt bad.cases"), 3);
  cr_assert(!td_exists(td_path("rows.txt")));
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
  char *s1 = td_read("s1.txt"), *s2 = td_read("s2.txt"), *st = td_read("st.txt");
  cr_assert(s1 && s2 && !strcmp(s1, s2), "series differ for the same seed");
  cr_assert(strstr(s1, "# kernel expanded") && strstr(s1, "\n\n\n# kernel reference"));
  cr_assert(strstr(st, "box 2 ") && strstr(st, "\nball "));
  /* the written state gives the same series (the header names the state's origin) */
  cr_assert_eq(tb("simulate -f expanded,reference --state st.txt --events 600 --every 100 --series s3.txt"), 0);
  char *s3 = td_read("s3.txt");
  const char *b1 = strstr(s1, "# kernel"), *b3 = strstr(s3, "# kernel");
  cr_assert(b1 && b3 && !strcmp(b1, b3), "state file run differs");
  free(s1);
  free(s2);
  free(s3);
  free(st);
}

Test(simcli, simulate_bad_state_and_zeno) {
  td_put("bad.state", "box 2 10 10\nball 5 5 0 0 1 1\nball 6 5 0 0 1 1\n");
  cr_assert_eq(tb("simulate -f expanded --state bad.state --series s.txt"), 3);
  char *err = td_read("err.txt");
  cr_assert(strstr(err, "bad.state:3:"), "%s", err);
  cr_assert(!td_exists(td_path("s.txt")));
  free(err);
  /* touching each other and both walls, approaching: a state that does not advance */
  td_put("trap.state", "box 2 4 4\nball 1 2 1 0 1 1\nball 3 2 -1 0 1 1\n");
  cr_assert_eq(tb("simulate -f expanded --state trap.state --same-instant 100"), 1);
  err = td_read("err.txt");
  cr_assert(strstr(err, "stopped") && strstr(err, "event 10"), "%s", err);
  free(err);
  cr_assert_eq(tb("simulate -f overlap-recovery"), 2);
  cr_assert_eq(tb("simulate --dim 4"), 2);
}

/* `simulate --help` succeeds and documents what: checked by every test of a
   behaviour that --help promises */
static void simulate_help_says(const char *what) {
  cr_assert_eq(tb("simulate --help"), 0);
  char *out = td_read("out.txt");
  cr_assert(out && strstr(out, what), "--help does not say '%s'", what);
  free(out);
}

/* The field under column NAME of the row of kernel k in a summary table
   (found by the header's names, in C, apart from the script under test). */
static void table_field(const char *table, const char *k, const char *name, char *out, size_t n) {
  const char *hdr = strstr(table, "\nkernel ");
  cr_assert(hdr, "%s", table);
  char row[1024] = "", head[1024] = "";
  snprintf(head, sizeof head, "%.*s", (int)strcspn(hdr + 1, "\n"), hdr + 1);
  char key[64];
  snprintf(key, sizeof key, "\n%s ", k);
  const char *r = strstr(table, key);
  cr_assert(r, "%s", table);
  snprintf(row, sizeof row, "%.*s", (int)strcspn(r + 1, "\n"), r + 1);
  char *hs = NULL, *rs = NULL;
  int col = -1, i = 0;
  for (char *w = strtok_r(head, " ", &hs); w; w = strtok_r(NULL, " ", &hs), i++)
    if (!strcmp(w, name)) col = i;
  cr_assert_geq(col, 0, "no column %s", name);
  i = 0;
  out[0] = 0;
  for (char *w = strtok_r(row, " ", &rs); w; w = strtok_r(NULL, " ", &rs), i++)
    if (i == col) snprintf(out, n, "%s", w);
}

/* make bench reads the summary's figures with reports/sim_field.awk, by the
   column's name: events/s is the 17th column, not the 14th (queries). */
Test(simcli, bench_reads_events_per_s_by_name) {
  cr_assert_eq(tb("simulate -f ericson,expanded --n 60 --events 3000 --every 1000"), 0);
  char *out = td_read("out.txt");
  const char *fields[] = {"events/s", "queries", "events", "drift/1e6", "status"};
  for (size_t f = 0; f < sizeof fields / sizeof *fields; f++) {
    char want[64], got[256] = "", line[512];
    table_field(out, "expanded", fields[f], want, sizeof want);
    snprintf(line, sizeof line, "awk -v kernel=expanded -v field=%s -f %s/reports/sim_field.awk %s/out.txt >%s/field.txt",
             fields[f], TOI_SOURCE_DIR, td_dir, td_dir);
    cr_assert_eq(cc_cmd(td_dir, line), 0, "%s", line);
    char *g = td_read("field.txt");
    snprintf(got, sizeof got, "%.*s", (int)strcspn(g ? g : "", "\n"), g ? g : "");
    cr_assert_str_eq(got, want, "%s: got '%s', want '%s'", fields[f], got, want);
    free(g);
  }
  /* the rate is a rate (a positive number with an exponent), not a count */
  char rate[64];
  table_field(out, "expanded", "events/s", rate, sizeof rate);
  cr_assert(strchr(rate, 'e') && strtod(rate, NULL) > 0, "%s", rate);
  free(out);
}

/* The queue --help describes is the one the run has (src/sim/sim_queue.c):
   per-ball lists under a tournament tree, no longer a binary heap. */
Test(simcli, simulate_help_names_its_queue) {
  simulate_help_says("tournament tree");
  simulate_help_says("ties in time broken by the order of prediction");
  char *out = td_read("out.txt");
  cr_assert(out && !strstr(out, "binary heap"), "--help still says 'binary heap'");
  free(out);
}

Test(simcli, simulate_nan_printed_unsigned_with_reason) {
  /* velocities near DBL_MAX: sum m |v| and the kinetic energy overflow */
  td_put("big.state", "box 2 100 100\nball 10 50 1e308 0 1 1\nball 90 50 -1e308 0 1 1\n");
  cr_assert_eq(tb("simulate -f expanded,reference --state big.state --events 6 --every 1 --series s.txt"), 0);
  char *out = td_read("out.txt"), *ser = td_read("s.txt");
  cr_assert(!strstr(out, "-nan") && !strstr(ser, "-nan"), "%s\n%s", out, ser);
  const char *row = strstr(out, "\nreference ");
  cr_assert(row && strstr(row, " nan ") && strstr(row, "mom_err nan: non-finite momentum"), "%s", out);
  cr_assert(strstr(strstr(out, "\nexpanded "), "mom_err nan: non-finite momentum"), "%s", out);
  cr_assert(strstr(ser, " nan nan "), "%s", ser);
  free(out);
  free(ser);
  /* speeds of 1e155: the energy overflows, the momenta do not */
  td_put("fast.state", "box 2 100 100\nball 10 50 1e155 0 1 1\nball 90 50 -1e155 0 1 1\n");
  cr_assert_eq(tb("simulate -f reference --state fast.state --events 6 --every 1"), 0);
  out = td_read("out.txt");
  cr_assert(strstr(out, "ke_err nan: non-finite kinetic energy") && !strstr(out, "mom_err nan"), "%s", out);
  free(out);
  simulate_help_says("'nan'");
  simulate_help_says("DBL_MAX");
}

Test(simcli, simulate_refuses_absurd_n) {
  cr_assert_eq(tb_small("simulate --n 100000000 --events 1"), 2);
  char *err = td_read("err.txt"), *out = td_read("out.txt");
  cr_assert(strstr(err, "limit of 10000000 balls") && strstr(err, "Try 'toibench simulate --help'"), "%s", err);
  cr_assert(!strstr(out, "kernel"), "nothing runs: %s", out);
  free(err);
  free(out);
  cr_assert_eq(tb_small("simulate --n 10000001 --events 1"), 2);
  cr_assert_eq(tb("simulate --n 0"), 2);
  cr_assert_eq(tb("simulate -f expanded --n 5 --events 3"), 0);
  simulate_help_says("at most 10^7");
}

/* A state file over the bound --help states is refused by its size, unread:
   a sparse file of that many bytes plus one (holes, no disk used). */
Test(simcli, simulate_state_bound_is_stated_and_checked_unread) {
  cr_assert_eq(tb("simulate --help"), 0);
  char *help = td_read("out.txt");
  const char *at = strstr(help, "read whole, at most ");
  cr_assert_not_null(at, "simulate --help states no bound for state files");
  unsigned long long bound = strtoull(at + strlen("read whole, at most "), NULL, 10);
  free(help);
  cr_assert_eq(bound, (unsigned long long)TOI_INPUT_MAX);
  int fd = open(td_path("huge.state"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  cr_assert_geq(fd, 0);
  cr_assert_eq(ftruncate(fd, (off_t)(bound + 1)), 0);
  close(fd);
  cr_assert_eq(tb_small("simulate -f expanded --state huge.state --events 1"), 3);
  char *err = td_read("err.txt"), want[96];
  snprintf(want, sizeof want, "huge.state: larger than %llu bytes", bound);
  cr_assert(strstr(err, want), "%s", err);
  free(err);
}

Test(simcli, simulate_idle_when_nothing_moves) {
  td_put("still.state", "box 2 100 100\nball 10 50 0 0 1 1\nball 90 50 0 0 1 1\n");
  cr_assert_eq(tb("simulate -f expanded,reference --state still.state --events 10"), 0);
  char *out = td_read("out.txt");
  const char *row = strstr(out, "\nexpanded ");
  cr_assert(row && !strncmp(row + 1 + 17, "idle ", 5), "%s", out);
  cr_assert(strstr(row, "no event was possible"), "%s", out);
  cr_assert(strstr(strstr(out, "\nreference "), "idle"), "%s", out);
  cr_assert(!strstr(out, " ok "), "%s", out);
  free(out);
  /* the same balls moving run their events: ok, no note */
  td_put("moving.state", "box 2 100 100\nball 10 50 1 0 1 1\nball 90 50 -1 0 1 1\n");
  cr_assert_eq(tb("simulate -f expanded --state moving.state --events 10"), 0);
  out = td_read("out.txt");
  row = strstr(out, "\nexpanded ");
  cr_assert(row && !strncmp(row + 1 + 17, "ok ", 3) && !strstr(out, "possible"), "%s", out);
  free(out);
  simulate_help_says("idle (no event was pending");
}

Test(simcli, simulate_zero_radius_refused_with_reason) {
  td_put("point.state", "box 2 100 100\nball 10 50 1 0 0 1\nball 90 50 -1 0 1 1\n");
  cr_assert_eq(tb("simulate -f expanded --state point.state --series s.txt"), 3);
  char *err = td_read("err.txt");
  cr_assert(strstr(err, "point.state:2:") && strstr(err, "radius must be > 0") &&
                strstr(err, "coincident centres"),
            "%s", err);
  free(err);
  cr_assert(!td_exists(td_path("s.txt")));
  simulate_help_says("R = 0 is refused");
}

/* --radius and --radius-dist: the default radii give the default state bit
   for bit; a bimodal state is written, read back and run on either grid; bad
   values are usage errors. */
Test(simcli, simulate_radius_options) {
  simulate_help_says("--radius LO:HI");
  simulate_help_says("bimodal:F:BIG");
  simulate_help_says("--grid auto|uniform");
  cr_assert_eq(tb("simulate -f robust --n 300 --events 10 --write-state a.state"), 0);
  cr_assert_eq(tb("simulate -f robust --n 300 --events 10 --radius 0.5:1 --radius-dist uniform "
                  "--write-state b.state"), 0);
  cr_assert(td_same_file(td_path("a.state"), td_path("b.state")), "the default radii changed the state");
  cr_assert_eq(tb("simulate -f robust --n 2000 --events 0 --radius-dist bimodal:0.001:20 --write-state m.state"), 0);
  char *st = td_read("m.state");
  cr_assert(st && strstr(st, " 0x1.4p+4 "), "no ball of radius 20 in the state");
  free(st);
  cr_assert_eq(tb("simulate -f robust --state m.state --events 3000 --every 1000 --series s1.txt"), 0);
  cr_assert_eq(tb("simulate -f robust --state m.state --events 3000 --every 1000 --grid uniform --series s2.txt"), 0);
  char *out = td_read("out.txt");
  cr_assert(strstr(out, "uniform grid") && strstr(out, "robust           ok"), "%s", out);
  free(out);
  cr_assert_eq(tb("simulate --radius 0.5"), 2);
  cr_assert_eq(tb("simulate --radius 1:0.5"), 2);
  cr_assert_eq(tb("simulate -f robust --n 20 --events 10 --radius 0.5:3"), 0); /* spacing 4 HI */
  cr_assert_eq(tb("simulate --radius 0.5:3 --spacing 5"), 2); /* 5 < 2 HI */
  cr_assert_eq(tb("simulate --radius-dist bimodal:0:5"), 2);
  cr_assert_eq(tb("simulate --radius-dist normal"), 2);
  cr_assert_eq(tb("simulate --grid fine"), 2);
}

/* On balls of one size the grid is the uniform one: auto and uniform give
   the same series, byte for byte. */
Test(simcli, simulate_grid_uniform_same_series) {
  cr_assert_eq(tb("simulate -f ericson --n 500 --events 3000 --every 100 --series a.txt"), 0);
  cr_assert_eq(tb("simulate -f ericson --n 500 --events 3000 --every 100 --grid uniform --series b.txt"), 0);
  cr_assert(td_same_file(td_path("a.txt"), td_path("b.txt")));
}

Test(simcli, audit_precision_binary32) {
  /* the 3-4-5 target holds floats: T = 2 and the response exact in float too */
  td_put("c.cases", "# 3-4-5\ns345 2 -10 0 5 0 2.5 1 3 4 0 0 2.5 1\nmiss 2 0 0 1 0 1 1 4 5 -1 0 1 1\n");
  cr_assert_eq(tb("audit -f robust,ericson --precision binary32 --rows rows.txt c.cases"), 0);
  char *out = td_read("out.txt"), *rows = td_read("rows.txt");
  cr_assert(strstr(out, "restitution 1, precision binary32 (0 cases changed by rounding, 0 not representable; "
                        "ulp in binary32)"), "%s", out);
  cr_assert(strstr(out, "robust: 1 audited") && strstr(out, "ericson: 1 audited"), "%s", out);
  cr_assert(strstr(rows, "restitution 0x1p+0, precision binary32\n"), "%s", rows);
  cr_assert(strstr(rows, "s345 robust hit 0x1p+1 0 "), "%s", rows);
  free(out);
  free(rows);
  /* binary64 keeps its header */
  cr_assert_eq(tb("audit -f robust --precision binary64 c.cases"), 0);
  out = td_read("out.txt");
  cr_assert(strstr(out, "restitution 1\n") && !strstr(out, "precision"), "%s", out);
  free(out);
  cr_assert_eq(tb("audit --precision binary80 c.cases"), 2);
}

Test(simcli, simulate_precision_binary32) {
  cr_assert_eq(tb("simulate -f robust,reference --n 30 --events 400 --every 100 --precision binary32 "
                  "--series s.txt"), 0);
  char *out = td_read("out.txt"), *s = td_read("s.txt");
  cr_assert(strstr(out, ", precision binary32, 400 events per kernel"), "%s", out);
  cr_assert(strstr(out, "\nrobust           ok ") && strstr(out, "\nreference        ok "), "%s", out);
  cr_assert(strstr(s, ", precision binary32\n"), "%s", s);
  free(out);
  free(s);
  cr_assert_eq(tb("simulate -f robust --n 30 --events 400"), 0);
  out = td_read("out.txt");
  cr_assert(!strstr(out, "precision"), "%s", out);
  free(out);
  cr_assert_eq(tb("simulate --precision binary80"), 2);
}
