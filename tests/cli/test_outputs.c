/* test_outputs.c: no command replaces one of its inputs, and every output is checked before the work. */
#define _GNU_SOURCE /* F_GETPIPE_SZ, F_SETPIPE_SZ */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "tmp_dir.h"

/* Runs `ENV toibench ARGS` in the temporary folder without a shell (ARGS and
 * ENV split by cc_split), stdin empty, stdout to the file "out" there (or
 * appended to the file append_to), stderr to "err". The exit status, -1 on a
 * signal. */
static int tb(const char *env, const char *args, const char *append_to) {
  static char words[8192], envw[1024];
  char *argv[256], *envv[16];
  argv[0] = (char *)TOIBENCH_PATH;
  cc_split(args, words, sizeof words, argv + 1, 255);
  int nenv = env ? cc_split(env, envw, sizeof envw, envv, 16) : 0;
  pid_t pid = fork();
  cr_assert_geq(pid, 0);
  if (pid == 0) {
    if (chdir(td_dir)) _exit(126);
    for (int i = 0; i < nenv; i++) putenv(envv[i]);
    int in = open("/dev/null", O_RDONLY), fe = open("err", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int fo = append_to ? open(append_to, O_WRONLY | O_APPEND) : open("out", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in < 0 || fe < 0 || fo < 0) _exit(126);
    dup2(in, 0), dup2(fo, 1), dup2(fe, 2);
    execv(argv[0], argv);
    _exit(127);
  }
  int st = 0;
  cr_assert_eq(waitpid(pid, &st, 0), pid);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void copy_file(const char *from, const char *to) {
  size_t n;
  char *s = cc_slurp(from, &n);
  FILE *f = fopen(to, "wb");
  cr_assert_not_null(f, "cannot write %s", to);
  cr_assert_eq(fwrite(s, 1, n, f), n);
  cr_assert_eq(fclose(f), 0);
  free(s);
}

/* The first name in the folder dir holding ".tmp." (a temporary left behind), or NULL. */
static const char *tmp_left(const char *dir) {
  static char name[256];
  DIR *d = opendir(dir);
  cr_assert_not_null(d, "cannot list %s", dir);
  const char *found = NULL;
  for (struct dirent *e; !found && (e = readdir(d));)
    if (strstr(e->d_name, ".tmp.")) found = strcpy(name, e->d_name);
  closedir(d);
  return found;
}

/* The inputs every command gets, each with an untouched copy NAME.keep:
 * in.cases (cases), in.res (a sweep result), in.state (a simulation state),
 * p.so (the example plug-in). */
static void inputs(void) {
  cr_assert_eq(tb(NULL, "gen mixed --count 20 -o in.cases", NULL), 0);
  cr_assert_eq(tb(NULL, "sweep mixed --count 200 --quiet -f expanded -o in.res", NULL), 0);
  cr_assert_eq(tb(NULL, "simulate --n 4 --events 5 --write-state in.state", NULL), 0);
  copy_file(cc_built("examples/example_plugin.so"), td_path("p.so"));
  const char *names[] = {"in.cases", "in.res", "in.state", "p.so"};
  for (int k = 0; k < 4; k++) {
    char keep[64];
    snprintf(keep, sizeof keep, "%s.keep", names[k]);
    copy_file(td_path(names[k]), td_path(keep));
  }
}

/* Asserts that the input name is what it was (the same bytes as name.keep). */
static void assert_intact(const char *name, const char *what) {
  char keep[64];
  snprintf(keep, sizeof keep, "%s.keep", name);
  cr_assert(td_same_file(td_path(name), td_path(keep)), "%s: the input %s was changed", what, name);
}

/* A command line with OUT where an output option's file goes, and the input OUT stands for. */
typedef struct clash {
  char args[120];
  char input[16];
} clash;

ParameterizedTestParameters(outputs, output_naming_an_input_is_refused) {
  static clash c[] = {
      {"reference in.cases -o OUT", "in.cases"},
      {"run -f expanded in.cases -o OUT", "in.cases"},
      {"run -f expanded in.cases --rows OUT", "in.cases"},
      {"run --solver ./p.so in.cases -o OUT", "p.so"},
      {"solve -f expanded in.cases -o OUT", "in.cases"},
      {"audit -f expanded in.cases -o OUT", "in.cases"},
      {"audit -f expanded in.cases --rows OUT", "in.cases"},
      {"merge in.res -o OUT", "in.res"},
      {"sweep mixed --count 100 --quiet --solver ./p.so -o OUT", "p.so"},
      {"sweep mixed --count 100 --quiet --solver ./p.so --checkpoint OUT", "p.so"},
      {"hunt --solver ./p.so --budget 100 --keep 1 --quiet -o OUT", "p.so"},
      {"simulate --state in.state --events 5 --write-state OUT", "in.state"},
      {"simulate --state in.state --events 5 --series OUT", "in.state"},
  };
  return cr_make_param_array(clash, c, sizeof c / sizeof *c);
}

/* The output named as the input, as ./input, through a symbolic link and
 * through a hard link: refused as a usage error (2), the input untouched, no
 * temporary left. */
ParameterizedTest(clash *c, outputs, output_naming_an_input_is_refused, .init = td_setup, .fini = td_teardown,
                  .timeout = 120) {
  inputs();
  cr_assert_eq(symlink(c->input, td_path("sym")), 0);
  cr_assert_eq(link(td_path(c->input), td_path("hard")), 0);
  char dotted[32];
  snprintf(dotted, sizeof dotted, "./%s", c->input);
  const char *names[] = {c->input, dotted, "sym", "hard"};
  for (int k = 0; k < 4; k++) {
    char args[256], *at = strstr(c->args, "OUT");
    snprintf(args, sizeof args, "%.*s%s%s", (int)(at - c->args), c->args, names[k], at + 3);
    int rc = tb(NULL, args, NULL);
    char *err = td_read("err");
    cr_assert_eq(rc, 2, "%s: exit %d, stderr:\n%s", args, rc, err);
    cr_assert(strstr(err, "refusing to overwrite it"), "%s: %s", args, err);
    cr_assert(strstr(err, "Try 'toibench "), "%s: %s", args, err);
    free(err);
    assert_intact(c->input, args);
    struct stat sb;
    cr_assert(lstat(td_path("sym"), &sb) == 0 && S_ISLNK(sb.st_mode), "%s: the link was replaced", args);
    cr_assert_null(tmp_left(td_dir), "%s: %s left behind", args, tmp_left(td_dir));
  }
}

Test(outputs, message_names_the_output_and_the_input, .init = td_setup, .fini = td_teardown) {
  inputs();
  cr_assert_eq(tb(NULL, "reference in.cases -o in.cases", NULL), 2);
  char *err = td_read("err");
  cr_assert_str_eq(err, "toibench reference: -o in.cases is the input in.cases: refusing to overwrite it\n"
                        "Try 'toibench reference --help'\n");
  free(err);
  cr_assert_eq(link(td_path("in.cases"), td_path("hard")), 0);
  cr_assert_eq(tb(NULL, "run -f expanded in.cases --rows hard", NULL), 2);
  err = td_read("err");
  cr_assert_str_eq(err, "toibench run: --rows hard is the same file as the input in.cases: refusing to overwrite it\n"
                        "Try 'toibench run --help'\n");
  free(err);
}

/* Standard output on an input (appended to it) and standard input as the -o file. */
Test(outputs, standard_streams_on_an_input_are_refused, .init = td_setup, .fini = td_teardown) {
  inputs();
  cr_assert_eq(tb(NULL, "reference in.cases", "in.cases"), 2);
  char *err = td_read("err");
  cr_assert(strstr(err, "standard output is the input in.cases") ||
                strstr(err, "standard output is the same file as the input in.cases"),
            "%s", err);
  free(err);
  assert_intact("in.cases", "reference >>in.cases");
  char line[4400];
  snprintf(line, sizeof line, "'%s' reference - -o in.cases <in.cases 2>err", TOIBENCH_PATH);
  cr_assert_eq(cc_cmd(td_dir, line), 2);
  err = td_read("err");
  cr_assert(strstr(err, "-o in.cases is the file on standard input: refusing to overwrite it"), "%s", err);
  free(err);
  assert_intact("in.cases", "reference - -o in.cases <in.cases");
  /* a device is never "the same" as anything: /dev/null as an output is fine */
  cr_assert_eq(tb(NULL, "reference in.cases -o /dev/null", NULL), 0);
}

/* Runs toibench ARGS in the folder, every file it writes limited to 64 KiB
 * (RLIMIT_FSIZE: the null device and a pipe are not files), stdout to
 * /dev/null (to_null) or to a pipe drained here (its bytes in *piped),
 * stderr to /dev/null. The exit status, -1 on a signal (SIGXFSZ). */
static int tb_fsize(const char *args, int to_null, size_t *piped) {
  static char words[8192];
  char *argv[256];
  argv[0] = (char *)TOIBENCH_PATH;
  cc_split(args, words, sizeof words, argv + 1, 255);
  int p[2] = {-1, -1};
  cr_assert(to_null || pipe(p) == 0);
  pid_t pid = fork();
  cr_assert_geq(pid, 0);
  if (pid == 0) {
    struct rlimit rl = {64 * 1024, 64 * 1024};
    int nul = open("/dev/null", O_RDWR);
    if (chdir(td_dir) || setrlimit(RLIMIT_FSIZE, &rl) || nul < 0) _exit(126);
    dup2(nul, 0), dup2(to_null ? nul : p[1], 1), dup2(nul, 2);
    if (!to_null) close(p[0]), close(p[1]);
    execv(argv[0], argv);
    _exit(127);
  }
  *piped = 0;
  if (!to_null) {
    close(p[1]);
    char buf[65536];
    for (ssize_t k; (k = read(p[0], buf, sizeof buf)) > 0;) *piped += (size_t)k;
    close(p[0]);
  }
  int st = 0;
  cr_assert_eq(waitpid(pid, &st, 0), pid);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Standard output that is the null device keeps nothing, so `reference` and
 * `solve` write it in place: no temporary copy of what is thrown away. Under a
 * 64 KiB limit on the files a process writes, 2000 cases (about 120 KB of
 * answers) go to /dev/null; to a pipe, where the output is held in a
 * temporary file until complete (no partial output), the same limit stops the
 * run and nothing reaches the pipe. */
Test(outputs, null_standard_output_is_written_in_place, .init = td_setup, .fini = td_teardown) {
  cr_assert_eq(tb(NULL, "gen mixed --count 2000 --seed 5 -o in.cases", NULL), 0);
  const char *cmds[] = {"reference in.cases", "solve -f ericson in.cases"};
  for (int k = 0; k < 2; k++) {
    size_t piped = 0;
    cr_assert_eq(tb_fsize(cmds[k], 1, &piped), 0, "%s >/dev/null under a 64 KiB file limit", cmds[k]);
    int rc = tb_fsize(cmds[k], 0, &piped);
    cr_assert_neq(rc, 0, "%s | ...: the spool is a file, the limit must stop it", cmds[k]);
    cr_assert_eq(piped, 0, "%s | ...: %zu bytes of partial output", cmds[k], piped);
  }
}

/* Runs toibench ARGS in the folder with stdout a new pipe, drained here
 * into *bytes (malloc'ed, *n of them); the pipe's size once the run is over
 * into *pipesz. The exit status, -1 on a signal. */
static int tb_piped(const char *args, char **bytes, size_t *n, int *pipesz) {
  static char words[8192];
  char *argv[256];
  argv[0] = (char *)TOIBENCH_PATH;
  cc_split(args, words, sizeof words, argv + 1, 255);
  int p[2];
  cr_assert_eq(pipe(p), 0);
  pid_t pid = fork();
  cr_assert_geq(pid, 0);
  if (pid == 0) {
    int nul = open("/dev/null", O_RDWR);
    if (chdir(td_dir) || nul < 0) _exit(126);
    dup2(nul, 0), dup2(p[1], 1), dup2(nul, 2);
    close(p[0]), close(p[1]);
    execv(argv[0], argv);
    _exit(127);
  }
  close(p[1]);
  size_t cap = 1 << 16;
  *bytes = malloc(cap);
  *n = 0;
  cr_assert_not_null(*bytes);
  for (ssize_t k; (k = read(p[0], *bytes + *n, cap - *n)) > 0;) {
    *n += (size_t)k;
    if (*n == cap) cr_assert_not_null(*bytes = realloc(*bytes, cap *= 2));
  }
  int st = 0;
  cr_assert_eq(waitpid(pid, &st, 0), pid);
  *pipesz = fcntl(p[0], F_GETPIPE_SZ);
  close(p[0]);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Standard output held until complete is copied into a pipe of the default
 * 64 KiB after it has been widened to 1 MiB (fewer hand-offs to the reader)
 * when it holds more than the pipe: the same bytes as to a file; a pipe
 * that already holds the whole output is left as it is. The widening is
 * asked only where this process may have a 1 MiB pipe itself. */
Test(outputs, spooled_output_widens_a_small_pipe, .init = td_setup, .fini = td_teardown) {
  int probe[2];
  cr_assert_eq(pipe(probe), 0);
  const int dflt = fcntl(probe[0], F_GETPIPE_SZ); /* a new pipe's size */
  const int can_widen = fcntl(probe[1], F_SETPIPE_SZ, 1 << 20) >= (1 << 20);
  close(probe[0]), close(probe[1]);
  cr_assert_gt(dflt, 0);
  cr_assert_eq(tb(NULL, "gen mixed --count 4000 --seed 7 -o big.cases", NULL), 0);
  cr_assert_eq(tb(NULL, "gen mixed --count 10 --seed 7 -o small.cases", NULL), 0);
  cr_assert_eq(tb(NULL, "reference big.cases -o big.ref", NULL), 0);
  cr_assert_eq(tb(NULL, "reference small.cases -o small.ref", NULL), 0);
  const char *names[] = {"big", "small"};
  for (int k = 0; k < 2; k++) {
    char args[64], ref[64];
    snprintf(args, sizeof args, "reference %s.cases", names[k]);
    snprintf(ref, sizeof ref, "%s.ref", names[k]);
    size_t want_n, n;
    char *want = cc_slurp(td_path(ref), &want_n), *got;
    int pipesz;
    cr_assert_eq(tb_piped(args, &got, &n, &pipesz), 0, "%s", args);
    cr_assert(n == want_n && memcmp(got, want, n) == 0, "%s: %zu bytes piped, %zu to a file", args, n, want_n);
    if (k == 0) {
      cr_assert_gt(want_n, (size_t)dflt, "the big output must not fit the pipe");
      if (can_widen) cr_assert_geq(pipesz, 1 << 20, "%s: a pipe of %d bytes", args, pipesz);
    } else {
      cr_assert_lt(want_n, (size_t)dflt);
      cr_assert_eq(pipesz, dflt, "%s: a pipe of %d bytes, %d before", args, pipesz, dflt);
    }
    free(want);
    free(got);
  }
}

/* Two outputs of one command naming one file, which does not exist yet. */
Test(outputs, two_outputs_naming_one_file_are_refused, .init = td_setup, .fini = td_teardown) {
  inputs();
  const char *lines[] = {"run -f expanded in.cases -o x --rows ./x", "audit -f expanded in.cases --rows x -o ./x",
                         "simulate --n 4 --events 5 --write-state x --series ./x",
                         "sweep mixed --count 100 --quiet -o x --checkpoint ./x"};
  for (int k = 0; k < 4; k++) {
    int rc = tb(NULL, lines[k], NULL);
    char *err = td_read("err");
    cr_assert_eq(rc, 2, "%s: exit %d: %s", lines[k], rc, err);
    cr_assert(strstr(err, "name the same file: one would overwrite the other"), "%s: %s", lines[k], err);
    free(err);
    cr_assert(!td_exists(td_path("x")), "%s wrote x", lines[k]);
    cr_assert_null(tmp_left(td_dir), "%s", lines[k]);
  }
}

/* The command line of a solver that leaves the file "ran" in the temporary
 * folder when it is started: the evidence that the work began. */
static const char *marking_solver(void) {
  static char cmd[4400];
  snprintf(cmd, sizeof cmd, "--solver-cmd \"touch '%s/ran'; exec '%s'\"", td_dir, cc_built("examples/solver_c"));
  return cmd;
}

/* sweep and hunt fail on an output that cannot be created before they
 * generate, solve or score a case: the solver is never started, --stats
 * never reports cases done, and nothing is written. */
Test(outputs, sweep_and_hunt_check_outputs_before_the_work, .init = td_setup, .fini = td_teardown, .timeout = 120) {
  td_put("file", "a regular file, not a folder\n");
  const char *bad[] = {"nodir/x", "file/x", "."};
  const char *why[] = {"nodir/x: cannot create: No such file or directory", "file/x: cannot create: Not a directory",
                       ".: is a directory"};
  for (int k = 0; k < 3; k++) {
    const char *forms[] = {"sweep mixed --count 20000 --stats --quiet %s -o %s",
                           "sweep mixed --count 20000 --stats --quiet %s --checkpoint %s",
                           "hunt %s --budget 200 --keep 1 --quiet -o %s"};
    for (int f = 0; f < 3; f++) {
      char args[9000];
      snprintf(args, sizeof args, forms[f], marking_solver(), bad[k]);
      int rc = tb(NULL, args, NULL);
      char *err = td_read("err");
      cr_assert_eq(rc, 1, "%s: exit %d: %s", args, rc, err);
      cr_assert(strstr(err, why[k]), "%s: %s", args, err);
      cr_assert_null(strstr(err, "sweep stats"), "%s: cases were scored first: %s", args, err);
      free(err);
      cr_assert(!td_exists(td_path("ran")), "%s: the solver was started", args);
      cr_assert_null(tmp_left(td_dir), "%s", args);
    }
  }
}

/* A folder without write permission; root writes anywhere, so there it is
 * skipped (the cases above cover it with a path under a regular file). */
Test(outputs, read_only_folder_is_refused_before_the_work, .init = td_setup, .fini = td_teardown) {
  if (geteuid() == 0) cr_skip_test("running as root, which permission bits do not stop");
  cr_assert_eq(mkdir(td_path("ro"), 0555), 0);
  char args[9000];
  snprintf(args, sizeof args, "sweep mixed --count 20000 --stats --quiet %s -o ro/x", marking_solver());
  int rc = tb(NULL, args, NULL);
  char *err = td_read("err");
  cr_assert_eq(rc, 1, "exit %d: %s", rc, err);
  cr_assert(strstr(err, "ro/x: cannot create: Permission denied"), "%s", err);
  free(err);
  cr_assert(!td_exists(td_path("ran")));
  chmod(td_path("ro"), 0755);
}

/* simulate wrote --write-state, then found that --series could not be
 * created: every output is now checked before the first is written. */
Test(outputs, simulate_writes_nothing_when_an_output_cannot_be_created, .init = td_setup, .fini = td_teardown) {
  int rc = tb(NULL, "simulate --n 4 --events 5 --write-state st --series nodir/s", NULL);
  char *err = td_read("err");
  cr_assert_eq(rc, 1, "exit %d: %s", rc, err);
  cr_assert(strstr(err, "nodir/s: cannot create"), "%s", err);
  free(err);
  cr_assert(!td_exists(td_path("st")), "--write-state was written");
  char *out = td_read("out");
  cr_assert_str_eq(out, "", "the simulation ran");
  free(out);
}

/* report --out DIR replaces DIR as a whole: an input inside it (or DIR being
 * the input) is refused before the work. PATH without gnuplot or Chromium: the
 * refusal comes before either is looked for. */
Test(outputs, report_out_holding_an_input_is_refused, .init = td_setup, .fini = td_teardown) {
  inputs();
  cr_assert_eq(mkdir(td_path("rep"), 0755), 0);
  copy_file(td_path("in.cases"), td_path("rep/in.cases"));
  copy_file(td_path("p.so"), td_path("rep/p.so"));
  const char *lines[] = {"report --suite rep/in.cases --out rep", "report --quick --solver ./rep/p.so --out rep",
                         "report --suite in.cases --out in.cases", "report --quick --solver ./rep/p.so --out ./rep/"};
  for (int k = 0; k < 4; k++) {
    int rc = tb("PATH=/nonexistent", lines[k], NULL);
    char *err = td_read("err");
    cr_assert_eq(rc, 2, "%s: exit %d: %s", lines[k], rc, err);
    cr_assert(strstr(err, "refusing to"), "%s: %s", lines[k], err);
    free(err);
  }
  cr_assert(td_same_file(td_path("rep/in.cases"), td_path("in.cases.keep")));
  cr_assert(td_same_file(td_path("rep/p.so"), td_path("p.so.keep")));
  assert_intact("in.cases", "report --out in.cases");
}

/* report --check DIR --screenshot FILE: FILE may not be one of the report's files. */
Test(outputs, report_screenshot_over_the_report_is_refused, .init = td_setup, .fini = td_teardown) {
  cr_assert_eq(mkdir(td_path("rep"), 0755), 0);
  td_put("rep/index.html", "<html>the report</html>\n");
  int rc = tb("PATH=/nonexistent TOIBENCH_CHROMIUM=/nonexistent/chromium",
              "report --check rep --screenshot rep/index.html", NULL);
  char *err = td_read("err");
  cr_assert_eq(rc, 2, "exit %d: %s", rc, err);
  cr_assert(strstr(err, "--screenshot rep/index.html is a file of the report in rep: refusing to overwrite it"), "%s",
            err);
  free(err);
  char *page = td_read("rep/index.html");
  cr_assert_str_eq(page, "<html>the report</html>\n");
  free(page);
}
