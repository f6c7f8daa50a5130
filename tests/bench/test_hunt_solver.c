/* test_hunt_solver.c: `toibench hunt` for external solvers: replayable, deterministic, robust, agreeing with -f. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cli_check.h"
#include "test_env.h"
#include "toi.h"

/* The seed of every hunt here (TOI_TEST_SEED overrides it); printed on failure. */
static unsigned long long hs_seed(void) { return te_seed(11); }

/* Budgets grow with TOI_TEST_SCALE. */
static long hs_budget(long base) {
  const char *e = getenv("TOI_TEST_SCALE");
  long k = e ? atol(e) : 1;
  return base * (k > 0 ? k : 1);
}

/* A file under a fresh temporary directory, removed by hs_clean. */
typedef struct hs_tmp {
  char dir[64];
  char path[4][128];
} hs_tmp;

static void hs_tmp_make(hs_tmp *t) {
  snprintf(t->dir, sizeof t->dir, "/tmp/toihuntXXXXXX");
  cr_assert_not_null(mkdtemp(t->dir));
  static const char *const names[4] = {"out", "err", "file", "rows"};
  for (int k = 0; k < 4; k++) snprintf(t->path[k], sizeof t->path[k], "%s/%s", t->dir, names[k]);
}

static void hs_clean(hs_tmp *t) {
  cc_rmtree(t->dir);
}


typedef struct hs_result {
  int status;
  char *out, *err;
} hs_result;

/* Runs `ENV toibench ARGS` from the source directory, stdin closed. */
static hs_result hs_toibench(hs_tmp *t, const char *env, const char *args) {
  char *cmd = malloc(16384);
  cr_assert_not_null(cmd);
  snprintf(cmd, 16384, "%s '%s' %s >'%s' 2>'%s' </dev/null", env ? env : "", TOIBENCH_PATH, args, t->path[0],
           t->path[1]);
  int st = cc_cmd(TOI_SOURCE_DIR, cmd);
  free(cmd);
  hs_result r = {st, cc_read(t->path[0]), cc_read(t->path[1])};
  return r;
}

static void hs_free(hs_result *r) {
  free(r->out);
  free(r->err);
}


static void hs_write(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  cr_assert_not_null(f);
  fputs(text, f);
  fclose(f);
}

/* Field k (0-based, space-separated) of a line, into buf. */
static const char *hs_field(const char *line, int k, char *buf, size_t n) {
  const char *p = line;
  for (int i = 0; i < k && p; i++) {
    p = strchr(p, ' ');
    if (p) p++;
  }
  if (!p) return NULL;
  size_t len = strcspn(p, " \n");
  snprintf(buf, n, "%.*s", (int)len, p);
  return buf;
}

/* Checks that every '# ulp=' line of a hunt file is what `run --rows` says of
 * its case: the ULP error, the exact class and the verdict (or "failed").
 * Returns the number of cases checked. */
static int hs_replay(hs_tmp *t, const char *hunt, const char *solver_arg, const char *name) {
  hs_write(t->path[2], hunt);
  char args[8192];
  snprintf(args, sizeof args, "run %s --rows '%s' '%s'", solver_arg, t->path[3], t->path[2]);
  hs_result r = hs_toibench(t, NULL, args);
  cr_assert_eq(r.status, 0, "seed %llu: %s", hs_seed(), r.err);
  char *rows = cc_read(t->path[3]);
  int checked = 0;
  for (const char *p = strstr(hunt, "\n# ulp="); p; p = strstr(p + 1, "\n# ulp=")) {
    char ulp[64], cls[64], verdict[64], id[80], key[200];
    cr_assert_eq(sscanf(p + 1, "# ulp=%63s bits=%*s class=%63s verdict=%63s", ulp, cls, verdict), 3);
    const char *c = strchr(p + 1, '\n');
    cr_assert_not_null(c);
    cr_assert_not_null(hs_field(c + 1, 0, id, sizeof id));
    snprintf(key, sizeof key, "\n%s %s ", id, name);
    const char *row = strstr(rows, key);
    cr_assert_not_null(row, "seed %llu: no row for %s in\n%s", hs_seed(), key + 1, rows);
    char got[64];
    cr_assert_str_eq(hs_field(row + 1, 6, got, sizeof got), ulp, "seed %llu: %s: hunt says ulp=%s", hs_seed(), id, ulp);
    cr_assert_str_eq(hs_field(row + 1, 2, got, sizeof got), verdict, "seed %llu: %s", hs_seed(), id);
    cr_assert_str_eq(hs_field(row + 1, 3, got, sizeof got), cls, "seed %llu: %s", hs_seed(), id);
    checked++;
  }
  free(rows);
  hs_free(&r);
  return checked;
}

/* Hunts twice (byte-identical), then replays the file. */
static void hs_examples(const char *solver_arg, const char *name) {
  hs_tmp t;
  hs_tmp_make(&t);
  char args[8192];
  snprintf(args, sizeof args, "hunt %s --budget %ld --keep 4 --seed %llu --quiet", solver_arg, hs_budget(3000),
           hs_seed());
  hs_result a = hs_toibench(&t, NULL, args), b = hs_toibench(&t, NULL, args);
  cr_assert_eq(a.status, 0, "seed %llu: %s", hs_seed(), a.err);
  cr_assert_str_eq(a.out, b.out, "seed %llu: two hunts differ", hs_seed());
  char want[128];
  snprintf(want, sizeof want, "\nworst-%s-ulp-01 ", name);
  cr_assert(strstr(a.out, want), "seed %llu: no %s in\n%s", hs_seed(), want + 1, a.out);
  cr_assert(strstr(a.out, "rounds x "), "%s", a.out);
  cr_assert_geq(hs_replay(&t, a.out, solver_arg, name), 8);
  hs_free(&a);
  hs_free(&b);
  hs_clean(&t);
}

Test(hunt_solver, example_plugin_hunt_is_deterministic_and_replays) {
  char arg[4400];
  snprintf(arg, sizeof arg, "--solver '%s'", cc_built("examples/example_plugin.so"));
  hs_examples(arg, "example-stable");
}

Test(hunt_solver, example_command_hunt_is_deterministic_and_replays) {
  char arg[4400];
  snprintf(arg, sizeof arg, "--solver-cmd '%s'", cc_built("examples/solver_c"));
  hs_examples(arg, "solver_c");
}

/* The lines of `text` starting with `prefix`, each cut before `cut` (when
 * given) and with `name` taken out, sorted and joined: what two outputs must
 * share. */
static char *hs_lines(const char *text, const char *prefix, const char *name, const char *cut) {
  size_t cap = strlen(text) + 1, n = 0, count = 0;
  char **v = malloc(cap * sizeof *v);
  char *out = malloc(cap + 1);
  cr_assert(v && out);
  for (const char *p = text; *p;) {
    size_t len = strcspn(p, "\n");
    if (!strncmp(p, prefix, strlen(prefix))) {
      v[count] = strndup(p, len);
      char *c = cut ? strstr(v[count], cut) : NULL;
      if (c) *c = 0;
      count++;
    }
    p += len + (p[len] == '\n');
  }
  for (size_t i = 0; i + 1 < count; i++)
    for (size_t j = i + 1; j < count; j++)
      if (strcmp(v[j], v[i]) < 0) {
        char *x = v[i];
        v[i] = v[j];
        v[j] = x;
      }
  out[0] = 0;
  for (size_t i = 0; i < count; i++) {
    char *s = name[0] ? strstr(v[i], name) : NULL;
    if (s) memmove(s, s + strlen(name), strlen(s + strlen(name)) + 1);
    n += (size_t)sprintf(out + n, "%s\n", v[i]);
    free(v[i]);
  }
  free(v);
  return out;
}

/* A formulation served through the subprocess protocol is a solver giving
 * the formulation's answers bit for bit: the global pass must keep the same
 * cases with the same errors (where the local search starts from) and the
 * same first classification errors, whatever the batches and the threads. */
Test(hunt_solver, formulation_through_the_protocol_matches_the_formulation_path) {
  hs_tmp t;
  hs_tmp_make(&t);
  char args[8192];
  snprintf(args, sizeof args, "hunt -f expanded --budget %ld --keep 6 --seed %llu --quiet -j2", hs_budget(6000),
           hs_seed());
  hs_result f = hs_toibench(&t, NULL, args);
  cr_assert_eq(f.status, 0, "%s", f.err);
  snprintf(args, sizeof args, "hunt --solver-cmd '%s solve -f expanded -' --budget %ld --keep 6 --seed %llu --quiet",
           TOIBENCH_PATH, hs_budget(6000), hs_seed());
  hs_result s = hs_toibench(&t, NULL, args);
  cr_assert_eq(s.status, 0, "%s", s.err);
  /* Where each ranked case started: "# found: global pass case N (ID, ulp X)";
   * the searches after that differ by design. */
  char *fa = hs_lines(f.out, "# found: global pass case ", "", "), then"),
       *fb = hs_lines(s.out, "# found: global pass case ", "", "), then");
  cr_assert_gt(strlen(fa), 0);
  cr_assert_str_eq(fa, fb, "seed %llu: the global passes kept different cases", hs_seed());
  /* The first classification errors of the global pass: the same cases, the same exact class and verdict. */
  char *ca = hs_lines(f.out, "worst-expanded-class-", "expanded", NULL),
       *cb = hs_lines(s.out, "worst-toibench-class-", "toibench", NULL);
  cr_assert_gt(strlen(ca), 0, "seed %llu: no classification error to compare", hs_seed());
  cr_assert_str_eq(ca, cb, "seed %llu", hs_seed());
  /* The solver's local search only ever raises a key: final >= start in every note. */
  static const char start[] = "# found: global pass case ";
  for (const char *p = strstr(s.out, start); p; p = strstr(p + 1, start)) {
    const char *k = strstr(p, ", ulp ") ? strstr(p, ", ulp ") : strstr(p, ", ratio ");
    const char *e = strstr(p, " raised it, "), *eol = strchr(p, '\n');
    cr_assert(k && e && eol && k < eol && e < eol, "%.200s", p);
    double start = strtod(strchr(k + 2, ' ') + 1, NULL), end = strtod(strchr(e + 12, ' ') + 1, NULL);
    cr_assert_geq(end, start, "seed %llu: %.200s", hs_seed(), p);
  }
  free(fa);
  free(fb);
  free(ca);
  free(cb);
  hs_free(&f);
  hs_free(&s);
  hs_clean(&t);
}

/* A built engine (an engines directory with a manifest) is the same solver
 * as the command it names: the same cases found. */
Test(hunt_solver, engine_by_name_is_the_command_it_names) {
  hs_tmp t;
  hs_tmp_make(&t);
  char manifest[4400], env[200], args[8192];
  snprintf(manifest, sizeof manifest, "%s/ex.solvers", t.dir);
  char line[4400];
  snprintf(line, sizeof line, "ex-engine\t%s\tthe example, as an engine\n", cc_built("examples/solver_c"));
  hs_write(manifest, line);
  snprintf(env, sizeof env, "TOIBENCH_ENGINES='%s'", t.dir);
  snprintf(args, sizeof args, "hunt -f ex-engine --budget %ld --keep 3 --seed %llu --quiet", hs_budget(1000),
           hs_seed());
  hs_result e = hs_toibench(&t, env, args);
  cr_assert_eq(e.status, 0, "%s", e.err);
  snprintf(args, sizeof args, "hunt --solver-cmd '%s' --budget %ld --keep 3 --seed %llu --quiet",
           cc_built("examples/solver_c"), hs_budget(1000), hs_seed());
  hs_result c = hs_toibench(&t, NULL, args);
  cr_assert_eq(c.status, 0, "%s", c.err);
  char *a = hs_lines(e.out, "worst-", "ex-engine", NULL), *b = hs_lines(c.out, "worst-", "solver_c", NULL);
  cr_assert_gt(strlen(a), 0);
  cr_assert_str_eq(a, b, "seed %llu", hs_seed());
  free(a);
  free(b);
  hs_free(&e);
  hs_free(&c);
  hs_clean(&t);
}

/* The broken command, fed through sed so that generated IDs reach its
 * failure prefixes: IDs ending in 7 crash it, case 13 hangs it. */
Test(hunt_solver, command_crashes_and_hangs_fill_the_fail_list, .timeout = 120) {
  hs_tmp t;
  hs_tmp_make(&t);
  char args[8192];
  snprintf(args, sizeof args,
           "hunt --timeout 1 --budget 200 --keep 8 --quiet --solver-cmd "
           "\"sed -u 's/^\\([^ #]*7\\) /crash-\\1 /; s/^\\([^ #]*000013\\) /hang-\\1 /' | '%s'\"",
           cc_built("tests/solvers/misbehave_cmd"));
  hs_result r = hs_toibench(&t, NULL, args);
  cr_assert_eq(r.status, 1, "a crash makes the exit status 1: %s", r.err);
  cr_assert(strstr(r.out, "\nworst-misbehave_cmd-ulp-01 "), "the search went on: %s", r.out);
  cr_assert(strstr(r.out, "\nworst-misbehave_cmd-fail-08 "), "%s", r.out);
  const char *crash = strstr(r.out, "# found: global pass, case 7 (");
  cr_assert_not_null(crash, "%s", r.out);
  const char *why = strstr(crash, "the solver crashed (signal 11");
  cr_assert(why && why < strchr(crash, '\n'), "%.300s", crash);
  const char *hang = strstr(r.out, "# found: global pass, case 13 (");
  cr_assert_not_null(hang, "%s", r.out);
  cr_assert(strstr(hang, "no answer within 1s") && strstr(hang, "no answer within 1s") < strchr(hang, '\n'),
            "%.300s", hang);
  cr_assert(strstr(r.out, "verdict=failed kind=failed"), "%s", r.out);
  cr_assert(strstr(r.err, "lost to crashes, hangs or protocol errors"), "%s", r.err);
  hs_free(&r);
  hs_clean(&t);
}

/* A plug-in built here: a catalog of two solvers, one of them the broken
 * plug-in under IDs renamed as above. NULL when no compiler is found. */
static const char *hs_plugin(hs_tmp *t) {
  static char so[200];
  char src[200], cmd[9000];
  snprintf(src, sizeof src, "%s/two.c", t->dir);
  snprintf(so, sizeof so, "%s/two.so", t->dir);
  hs_write(src,
           "#include <dlfcn.h>\n#include <stdio.h>\n#include <string.h>\n#include \"toi_solver.h\"\n"
           "TOI_SOLVER_ABI;\n"
           "typedef int (*fn_t)(toi_solver_result *, const toi_solver_case *);\n"
           "int renamed(toi_solver_result *out, const toi_solver_case *c) {\n"
           "  static fn_t fn;\n"
           "  if (!fn) {\n"
           "    void *h = dlopen(MISBEHAVE, RTLD_NOW);\n"
           "    if (h) *(void **)&fn = dlsym(h, \"misbehave\");\n"
           "    if (!fn) return TOI_SOLVER_FAILED;\n"
           "  }\n"
           "  toi_solver_case d = *c;\n"
           "  size_t n = strlen(c->id);\n"
           "  const char *p = n > 6 && !strcmp(c->id + n - 6, \"000013\") ? \"hang-\"\n"
           "                  : c->id[n - 1] == '7'                          ? \"crash-\" : \"\";\n"
           "  snprintf(d.id, sizeof d.id, \"%s%.50s\", p, c->id);\n"
           "  return fn(out, &d);\n"
           "}\n"
           "int declines(toi_solver_result *out, const toi_solver_case *c) {\n"
           "  (void)out;\n  (void)c;\n  return TOI_SOLVER_UNSUPPORTED;\n}\n"
           "const toi_solver_info toi_solver_catalog[] = {\n"
           "  {\"renamed\", \"renamed\", \"the broken plug-in\"},\n"
           "  {\"declines\", \"declines\", \"declines all\"},\n  {0, 0, 0}};\n");
  snprintf(cmd, sizeof cmd, "cc -shared -fPIC -I'%s/include/toibench' -DMISBEHAVE='\"%s\"' -o '%s' '%s' -ldl 2>/dev/null",
           TOI_SOURCE_DIR, cc_built("tests/solvers/misbehave_plugin.so"), so, src);
  return cc_cmd(NULL, cmd) == 0 ? so : NULL;
}

/* Runs hunt on the plug-in's solver SYM with ARGS and checks the exit status. */
static hs_result hs_plugin_hunt(hs_tmp *t, const char *so, const char *sym, const char *args, int status) {
  char all[8192];
  snprintf(all, sizeof all, "hunt %s --solver '%s%s%s'", args, so, sym ? ":" : "", sym ? sym : "");
  hs_result r = hs_toibench(t, NULL, all);
  cr_assert_eq(r.status, status, "%s: %s", all, r.err);
  return r;
}

Test(hunt_solver, plugin_crashes_and_hangs_fill_the_fail_list, .timeout = 120) {
  hs_tmp t;
  hs_tmp_make(&t);
  const char *so = hs_plugin(&t);
  if (!so) cr_skip_test("no C compiler to build the test plug-in");
  hs_result r = hs_plugin_hunt(&t, so, "renamed", "--timeout 1 --budget 200 --keep 8 --quiet", 1);
  cr_assert(strstr(r.out, "\nworst-renamed-ulp-01 "), "the search went on: %s", r.out);
  const char *crash = strstr(r.out, "# found: global pass, case 7 (");
  cr_assert_not_null(crash, "%s", r.out);
  const char *why = strstr(crash, "crashed (signal 11");
  cr_assert(why && why < strchr(crash, '\n'), "%s", r.out);
  const char *hang = strstr(r.out, "# found: global pass, case 13 (");
  cr_assert(hang && strstr(hang, "no answer within 1s") && strstr(hang, "no answer within 1s") < strchr(hang, '\n'),
            "%s", r.out);
  hs_free(&r);
  /* A solver that declines everything: nothing found, nothing failed, exit 0. */
  r = hs_plugin_hunt(&t, so, "declines", "--budget 100 --quiet", 0);
  cr_assert(strstr(r.out, "failed on 0 cases") && strstr(r.out, "declined 50."), "%s", r.out);
  cr_assert_null(strstr(r.out, "\nworst-"), "%s", r.out);
  hs_free(&r);
  /* The catalog of two without a SYMBOL: refused, naming both. */
  r = hs_plugin_hunt(&t, so, NULL, "", 2);
  cr_assert(strstr(r.err, "renamed (") && strstr(r.err, "declines ("), "%s", r.err);
  cr_assert(strstr(r.err, "Try 'toibench hunt --help'\n"), "%s", r.err);
  cr_assert_str_empty(r.out);
  hs_free(&r);
  hs_clean(&t);
}

Test(hunt_solver, usage_errors) {
  hs_tmp t;
  hs_tmp_make(&t);
  char two[9000];
  snprintf(two, sizeof two, "hunt --solver '%s' --solver-cmd '%s'", cc_built("examples/example_plugin.so"),
           cc_built("examples/solver_c"));
  const char *const cases[][2] = {
      {two, "only one of -f, --solver, --solver-cmd"},
      {"hunt -f expanded --solver-cmd cat", "only one of"},
      {"hunt -f no-such-solver", "unknown formulation or solver 'no-such-solver'"},
      {"hunt --budget 10", "is required"},
      {"hunt -f expanded --tmax 1", "apply to solvers"},
      {"hunt --solver-cmd cat --timeout 0", "--timeout needs"},
      {"hunt --solver /nonexistent/lib.so", "no such plug-in file"},
      {"hunt --solver-cmd ''", "needs a command"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    hs_result r = hs_toibench(&t, NULL, cases[k][0]);
    cr_assert_eq(r.status, 2, "%s: %s", cases[k][0], r.err);
    cr_assert(strstr(r.err, cases[k][1]), "%s: %s", cases[k][0], r.err);
    size_t n = strlen(r.err);
    cr_assert(n > 0 && strstr(r.err, "Try 'toibench hunt --help'\n") == r.err + n - strlen("Try 'toibench hunt --help'\n"),
              "%s: %s", cases[k][0], r.err);
    cr_assert_str_empty(r.out);
    hs_free(&r);
  }
  hs_result r = hs_toibench(&t, NULL, "hunt --help");
  cr_assert_eq(r.status, 0);
  cr_assert(strstr(r.out, "--solver-cmd COMMAND") && strstr(r.out, "worst-NAME-fail-NN"), "%s", r.out);
  hs_free(&r);
  hs_clean(&t);
}

/* The budget counts every case the solver is sent: counted here by a tee in
 * front of the example solver, independently of what hunt says. With a budget
 * too small for one proposal per kept case there is no local search at all. */
Test(hunt_solver, budget_bounds_the_cases_sent) {
  hs_tmp t;
  hs_tmp_make(&t);
  static const struct {
    int budget, keep;
  } runs[] = {{16, 64}, {10, 64}, {1000, 8}, {2, 1}};
  for (size_t k = 0; k < sizeof runs / sizeof runs[0]; k++) {
    char count[600], args[9000];
    snprintf(count, sizeof count, "%s.count", t.path[0]);
    remove(count);
    /* The example in text (--text): every case sent is a line of its input. */
    snprintf(args, sizeof args, "hunt --solver-cmd \"tee -a '%s' | '%s' --text\" aimed --budget %d --keep %d --quiet",
             count, cc_built("examples/solver_c"), runs[k].budget, runs[k].keep);
    hs_result r = hs_toibench(&t, NULL, args);
    cr_assert_eq(r.status, 0, "%s", r.err);
    char *sent = cc_read(count);
    long lines = 0; /* case lines: the protocol's '#' header lines are not cases */
    for (const char *p = sent; *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p))
      lines += *p != '#' && *p != '\n';
    cr_assert_leq(lines, runs[k].budget, "budget %d, keep %d: %ld cases sent", runs[k].budget, runs[k].keep, lines);
    char said[64];
    snprintf(said, sizeof said, "): %ld cases sent to the solver.", lines);
    cr_assert(strstr(r.out, said), "hunt's own count differs from %ld:\n%.600s", lines, r.out);
    free(sent);
    hs_free(&r);
    remove(count);
  }
  hs_clean(&t);
}

/* With --target-distance, answers that state no target are ranked against
 * it: every score line names that target, and there is no ratio list (kappa
 * belongs to the true contact). */
Test(hunt_solver, target_distance_ranks_against_the_target) {
  hs_tmp t;
  hs_tmp_make(&t);
  char args[4400];
  snprintf(args, sizeof args, "hunt --solver-cmd '%s' aimed --target-distance 0.25 --budget 400 --keep 4 --quiet",
           cc_built("examples/solver_c"));
  hs_result r = hs_toibench(&t, NULL, args);
  cr_assert_eq(r.status, 0, "%s", r.err);
  cr_assert(strstr(r.out, "\nworst-solver_c-ulp-01 "), "%s", r.out);
  cr_assert_null(strstr(r.out, "-ratio-"), "%s", r.out);
  int lines = 0;
  for (const char *p = strstr(r.out, "\n# ulp="); p; p = strstr(p + 1, "\n# ulp=")) {
    const char *eol = strchr(p + 1, '\n'), *tg = strstr(p, " target=0.25 ulp_t=");
    cr_assert(tg && tg < eol, "%.200s", p + 1);
    lines++;
  }
  cr_assert_gt(lines, 0);
  hs_free(&r);
  hs_clean(&t);
}

/* Every number of every case line of a hunt file (after the ID and dim) is a
 * float: a binary32 hunt moves its inputs by float ulps. Returns the cases. */
static int hs_all_floats(const char *hunt) {
  int cases = 0;
  for (const char *p = strstr(hunt, "\nworst-"); p; p = strstr(p + 1, "\nworst-")) {
    const char *eol = strchr(p + 1, '\n');
    char line[2048];
    snprintf(line, sizeof line, "%.*s", (int)(eol ? eol - p - 1 : (long)strlen(p + 1)), p + 1);
    char *save = NULL, *tok = strtok_r(line, " ", &save);
    int k = 0;
    for (; tok; tok = strtok_r(NULL, " ", &save), k++) {
      if (k < 2) continue; /* the ID and the dimension */
      double x = strtod(tok, NULL);
      cr_assert_eq((double)(float)x, x, "seed %llu: %s is not a float in %s", hs_seed(), tok, line);
    }
    cr_assert_gt(k, 10);
    cases++;
  }
  return cases;
}

/* hunt in binary32: the float Ericson solver as a command (told its precision)
 * and as a plug-in (declaring it) is searched on float cases, moved by float
 * ulps; every score line says the precision and replays through `run` with
 * the same precision; the header says kappa 2^-24. */
Test(hunt_solver, binary32_hunt_keeps_floats_and_replays, .timeout = 120) {
  hs_tmp t;
  hs_tmp_make(&t);
  char cmd[4400], plug[4400];
  snprintf(cmd, sizeof cmd, "--solver-cmd-precision binary32 --solver-cmd '%s'",
           cc_built("tests/solvers/float_ericson_cmd"));
  snprintf(plug, sizeof plug, "--solver '%s'", cc_built("tests/solvers/float_ericson_plugin.so"));
  const char *const sel[2] = {cmd, plug};
  const char *const name[2] = {"float_ericson_cmd", "float-ericson"}; /* the plug-in's catalog name */
  for (int k = 0; k < 2; k++) {
    char args[9000];
    snprintf(args, sizeof args, "hunt %s --precision binary32 --budget %ld --keep 3 --seed %llu --quiet", sel[k],
             hs_budget(1500), hs_seed());
    hs_result r = hs_toibench(&t, NULL, args);
    cr_assert_eq(r.status, 0, "seed %llu: %s", hs_seed(), r.err);
    cr_assert(strstr(r.out, "(kappa 2^-24)") && strstr(r.out, "\n# Precision binary32: "), "%s", r.out);
    cr_assert(strstr(r.out, "precision=binary32\n"), "%s", r.out);
    cr_assert(strstr(r.out, "; in binary32: inputs rounded to it"), "%s", r.out);
    cr_assert_geq(hs_all_floats(r.out), 3);
    cr_assert_geq(hs_replay(&t, r.out, sel[k], name[k]), 3);
    hs_free(&r);
  }
  hs_clean(&t);
}

/* -f NAME --precision binary32 hunts the formulation's binary32 variant, or
 * says clearly that it has none. */
Test(hunt_solver, binary32_formulation_variant_or_a_clear_refusal) {
  hs_tmp t;
  hs_tmp_make(&t);
  int has = toi_formulation_solver(toi_formulation_find("ericson"), TOI_BINARY32) != NULL;
  hs_result r = hs_toibench(&t, NULL, "hunt -f ericson --precision binary32 --budget 400 --keep 2 --quiet");
  if (has) {
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(strstr(r.out, "\n# Precision binary32: ") && strstr(r.out, "(kappa 2^-24)"), "%s", r.out);
    cr_assert_geq(hs_all_floats(r.out), 1);
  } else {
    cr_assert_eq(r.status, 2, "%s", r.err);
    cr_assert(strstr(r.err, "formulation 'ericson' has no binary32 variant"), "%s", r.err);
  }
  hs_free(&r);
  r = hs_toibench(&t, NULL, "hunt --solver-cmd cat --solver-cmd-precision binary16");
  cr_assert_eq(r.status, 2, "%s", r.err);
  cr_assert(strstr(r.err, "--solver-cmd-precision must be one of binary64, binary32"), "%s", r.err);
  hs_free(&r);
  hs_clean(&t);
}
