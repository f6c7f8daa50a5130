/* test_cli.c: the toibench command line end to end (exit codes, outputs, atomicity). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cli.h"
#include "gen.h"
#include "cli_check.h"

static int count_lines(const char *s) {
  int n = 0;
  for (; *s; s++) n += *s == '\n';
  return n;
}

/* Finds the line of case id in `reference` output and parses it. */
static void ref_line(const char *out, const char *id, char *cls, double *lo, double *hi) {
  char key[80];
  snprintf(key, sizeof key, "\n%s ", id);
  char buf[1 << 16];
  snprintf(buf, sizeof buf, "\n%s", out);
  const char *p = strstr(buf, key);
  cr_assert_not_null(p, "case %s missing from reference output", id);
  char l[64], h[64];
  cr_assert_eq(sscanf(p + strlen(key), "%31s %63s %63s", cls, l, h), 3);
  *lo = strtod(l, NULL);
  *hi = strtod(h, NULL);
}

Test(cli, help_everywhere) {
  const char *cmds[] = {"--help", "list --help", "reference --help", "solve --help", "run --help"};
  for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
    cc_out *r = cc_run(NULL, cmds[i]);
    cr_assert_eq(r->status, 0, "%s", cmds[i]);
    cr_assert(strstr(r->out, "Usage") || strstr(r->out, "usage"), "%s: no usage text", cmds[i]);
  }
}

Test(cli, usage_errors_exit_2) {
  const char *cmds[] = {"", "frobnicate", "reference", "solve cases/degenerate.cases",
                        "solve -f nosuch cases/degenerate.cases", "run -f nosuch cases/degenerate.cases",
                        "run --bogus cases/degenerate.cases", "audit -f nosuch cases/degenerate.cases",
                        "audit -f , cases/degenerate.cases", "gen generic --count ' -5'",
                        "gen generic --count -1", "gen generic --count 1.5", "gen generic --count 1e-400",
                        "gen generic --count 0x", "gen generic --count 2e19", "gen generic --seed ''",
                        "run -o /tmp/toi_same_out --rows /tmp/toi_same_out cases/degenerate.cases",
                        "audit -o /tmp/toi_twice_a -o /tmp/toi_twice_b cases/degenerate.cases"};
  for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
    cc_out *r = cc_run(NULL, cmds[i]);
    cr_assert_eq(r->status, 2, "'%s' exited %d", cmds[i], r->status);
    cr_assert(strstr(r->err, "toibench"), "'%s': no message", cmds[i]);
    /* The help of the command when there is one ("Try 'toibench run --help'"). */
    char try[128] = "Try 'toibench --help'";
    const char *known[] = {"reference", "solve", "run", "audit", "gen"};
    for (size_t k = 0; k < sizeof known / sizeof *known; k++)
      if (!strncmp(cmds[i], known[k], strlen(known[k])) && strchr(" ", cmds[i][strlen(known[k])]))
        snprintf(try, sizeof try, "Try 'toibench %s --help'\n", known[k]);
    cr_assert(strstr(r->err, try), "'%s': no pointer to the help: %s", cmds[i], r->err);
    cr_assert_eq(r->out[0], 0, "'%s' wrote to stdout", cmds[i]);
  }
  struct stat st;
  cr_assert(stat("/tmp/toi_same_out", &st) && stat("/tmp/toi_twice_a", &st) && stat("/tmp/toi_twice_b", &st),
            "a refused command wrote its output");
}

/* Counts are decimal (a leading zero does not make octal), 0x hexadecimal, or
 * exact integers in exponent form. */
Test(cli, counts_read_as_written) {
  static const struct {
    const char *arg;
    int cases;
  } t[] = {{"10", 10}, {"010", 10}, {"0x10", 16}, {"1e1", 10}, {"1.5e1", 15}, {"2.0", 2}};
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
    char args[128];
    snprintf(args, sizeof args, "gen generic --count %s", t[i].arg);
    cc_out *r = cc_run(NULL, args);
    cr_assert_eq(r->status, 0, "%s: exit %d: %s", args, r->status, r->err);
    int lines = 0;
    for (const char *p = r->out; *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p))
      lines += *p != '#' && *p != '\n';
    cr_assert_eq(lines, t[i].cases, "%s: %d cases", args, lines);
  }
}

/* The reference on exact constructions whose roots are known in closed form
 * (cases/degenerate.cases explains each). */
Test(cli, reference_exact_constructions) {
  cc_out *r = cc_run(NULL, "reference cases/degenerate.cases");
  cr_assert_eq(r->status, 0, "%s", r->err);
  char cls[32];
  double lo, hi;
  ref_line(r->out, "c345-hit", cls, &lo, &hi);
  cr_assert_str_eq(cls, "hit");
  cr_assert(lo == 4 && hi == 8);
  ref_line(r->out, "c345-contact", cls, &lo, &hi);
  cr_assert_str_eq(cls, "contact");
  cr_assert(lo == 0 && hi == 2);
  ref_line(r->out, "c345-leaving", cls, &lo, &hi);
  cr_assert_str_eq(cls, "separating");
  cr_assert(lo == -2 && hi == 0);
  ref_line(r->out, "tangent-graze", cls, &lo, &hi);
  cr_assert_str_eq(cls, "graze");
  cr_assert(lo == 10 && hi == 10);
  ref_line(r->out, "tangent-miss", cls, &lo, &hi);
  cr_assert_str_eq(cls, "miss");
  cr_assert(isnan(lo) && isnan(hi));
  ref_line(r->out, "tangent-hit", cls, &lo, &hi);
  cr_assert(!strcmp(cls, "hit") && lo == 7 && hi == 13);
  ref_line(r->out, "static-apart", cls, &lo, &hi);
  cr_assert(!strcmp(cls, "static") && isnan(lo));
  ref_line(r->out, "overlap", cls, &lo, &hi);
  cr_assert(!strcmp(cls, "overlap") && lo == -3 && hi == 1);
  ref_line(r->out, "overlap-static", cls, &lo, &hi);
  cr_assert(!strcmp(cls, "overlap") && isnan(lo));
  ref_line(r->out, "zero-radius", cls, &lo, &hi);
  cr_assert(!strcmp(cls, "graze") && lo == 2 && hi == 2);
  ref_line(r->out, "zero-radius-miss", cls, &lo, &hi);
  cr_assert_str_eq(cls, "miss");
  ref_line(r->out, "head-on-3d", cls, &lo, &hi);
  /* 11/13 and 15/13 correctly rounded: IEEE division of exact integers is. */
  cr_assert(!strcmp(cls, "hit") && lo == 11.0 / 13.0 && hi == 15.0 / 13.0);
  ref_line(r->out, "separating-past", cls, &lo, &hi);
  cr_assert(!strcmp(cls, "separating") && lo == -7 && hi == -3);
  ref_line(r->out, "pass-wide", cls, &lo, &hi);
  cr_assert_str_eq(cls, "miss");
  ref_line(r->out, "third", cls, &lo, &hi);
  cr_assert(!strcmp(cls, "hit") && lo == 1.0 / 3.0 && hi == 5.0 / 3.0);
  ref_line(r->out, "subnormal-speed", cls, &lo, &hi);
  cr_assert(!strcmp(cls, "hit") && lo == 0x1p1019 && isinf(hi) && hi > 0);
  ref_line(r->out, "subnormal-time", cls, &lo, &hi);
  cr_assert_str_eq(cls, "hit");
  cr_assert_eq(lo, 0x1p-1053);
  cr_assert_eq(hi, (4 - 0x1p-53) * 0x1p-1000);
  ref_line(r->out, "huge", cls, &lo, &hi);
  cr_assert(!strcmp(cls, "hit") && lo == 16 && hi == 48);
  ref_line(r->out, "tiny", cls, &lo, &hi);
  cr_assert(!strcmp(cls, "hit") && lo == 16 && hi == 48);
}

Test(cli, reference_document_times) {
  cc_out *r = cc_run(NULL, "reference cases/documents.cases");
  cr_assert_eq(r->status, 0, "%s", r->err);
  char cls[32];
  double lo, hi;
  /* 001 figure 7: 0.9, 0.7, 0.5; the exact roots are (9/10, 11/10) etc., RN of each. */
  ref_line(r->out, "doc001-fig7-AB", cls, &lo, &hi);
  cr_assert(!strcmp(cls, "hit") && lo == 9.0 / 10.0 && hi == 11.0 / 10.0);
  ref_line(r->out, "doc001-fig7-BC", cls, &lo, &hi);
  cr_assert(lo == 7.0 / 10.0 && hi == 9.0 / 10.0);
  ref_line(r->out, "doc001-fig7-AC", cls, &lo, &hi);
  cr_assert(lo == 0.5 && hi == 0.7);
  ref_line(r->out, "doc000-fig1", cls, &lo, &hi);
  cr_assert(lo == 7.0 / 5.0 && hi == 13.0 / 5.0);
  ref_line(r->out, "doc002-reverse", cls, &lo, &hi);
  cr_assert(!strcmp(cls, "separating") && lo == -0.75 && hi == -0.25);
  ref_line(r->out, "doc004-overlap", cls, &lo, &hi);
  cr_assert(!strcmp(cls, "overlap") && lo == -0.25 && hi == 1.75);
}

Test(cli, bad_input_exit_3_and_no_output_file) {
  char path[] = "/tmp/toiclioutXXXXXX";
  int fd = mkstemp(path);
  close(fd);
  unlink(path);
  const char *cmds[] = {"reference", "solve -f ericson", "run --rows"};
  for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
    char args[512];
    snprintf(args, sizeof args, "%s %s%s cases/degenerate.cases cases/bad/several.cases", cmds[i],
             i == 2 ? "" : "-o ", path);
    cc_out *r = cc_run(NULL, args);
    cr_assert_eq(r->status, 3, "%s: exit %d", args, r->status);
    cr_assert(strstr(r->err, "several.cases:2: field 13 (rB)"), "%s: %s", args, r->err);
    cr_assert(strstr(r->err, "several.cases:5: field 14 (mB)"));
    cr_assert_str_eq(r->out, "");
    struct stat sb;
    cr_assert_neq(stat(path, &sb), 0, "%s left an output file behind", args);
  }
}

Test(cli, missing_file_is_runtime_error) {
  cc_out *r = cc_run(NULL, "reference /nonexistent/x.cases");
  cr_assert_eq(r->status, 1);
  cr_assert(strstr(r->err, "/nonexistent/x.cases"));
}

/* `list`'s text of formulation name: its lines up to the next unindented
   line, the wrapped summary joined back with single spaces. */
static void list_block(const char *out, const char *name, char *buf, size_t n) {
  char key[64];
  snprintf(key, sizeof key, "%s (", name);
  const char *p = out;
  while (p && strncmp(p, key, strlen(key))) p = (p = strchr(p, '\n')) ? p + 1 : NULL;
  cr_assert_not_null(p, "%s missing from list:\n%s", name, out);
  size_t k = 0;
  buf[0] = 0;
  for (const char *line = strchr(p, '\n'); line && line[1] == ' ';) {
    const char *s = line + 1 + strspn(line + 1, " ");
    line = strchr(s, '\n');
    const int len = line ? (int)(line - s) : (int)strlen(s);
    int w = snprintf(buf + k, n - k, "%s%.*s", k ? " " : "", len, s);
    cr_assert(w >= 0 && (size_t)w < n - k, "%s: list text too long", name);
    k += (size_t)w;
  }
}

/* Every formulation from a document names the choices its document leaves
   open: the window, 3D, what "no collision" returns, and its own. */
Test(cli, list_names_the_choices_the_documents_leave_open) {
  cc_out *r = cc_run("TOIBENCH_ENGINES=/nonexistent", "list");
  cr_assert_eq(r->status, 0, "%s", r->err);
  static const struct {
    const char *name, *doc, *own[3];
  } docs[] = {
      {"expanded-corner", "003", {"3D (003 is 2D)", "disc==0 is none", "the bench's window (--tmax)"}},
      {"inner-product", "000", {"000 is ambiguous", "Delta decides", "the bench's window (--tmax)"}},
      {"ericson", "the book", {"EPSILON=1e-12", "1e-12f in binary32", "the bench's window (--tmax)"}},
      {"minkowski", "001", {"the step [0,1] is the bench's window", "overlap at t=0", "3D as in 2D"}},
      {"phet", "002", {"'(v_2 - v_2)' read as v2-v1", "3D adds z", "the bench's window (--tmax)"}},
      {"phet-reverse", "002", {"velocityMultiplier=-1", "3D adds z", "no window"}},
      {"overlap-recovery", "004", {"read as v2-v1", "3D adds z", "no window"}},
  };
  char block[4096], want[64];
  for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
    list_block(r->out, docs[i].name, block, sizeof block);
    snprintf(want, sizeof want, "Left open by %s, ours: ", docs[i].doc);
    cr_assert_not_null(strstr(block, want), "%s: no '%s' in: %s", docs[i].name, want, block);
    cr_assert_not_null(strstr(block, "no collision is the verdict none with a NaN time"), "%s: %s", docs[i].name,
                       block);
    for (int k = 0; k < 3; k++)
      cr_assert_not_null(strstr(block, docs[i].own[k]), "%s: no '%s' in: %s", docs[i].name, docs[i].own[k], block);
  }
  /* The summaries are wrapped to 100 columns. */
  for (const char *p = r->out; *p;) {
    size_t len = strcspn(p, "\n");
    if (!strncmp(p, "  summary: ", 11) || !strncmp(p, "           ", 11))
      cr_assert_leq(len, 100, "%.*s", (int)len, p);
    p += len + (p[len] == '\n');
  }
}

Test(cli, solve_and_run_cover_every_case_and_formulation) {
  cc_out *r = cc_run(NULL, "list --names");
  cr_assert_eq(r->status, 0);
  int nf = count_lines(r->out);
  cr_assert_geq(nf, 9, "every document formulation must be registered");
  static const char *names[] = {"expanded", "expanded-corner", "inner-product", "ericson", "minkowski",
                                "phet", "phet-reverse", "overlap-recovery", "gsl-stable"};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
    char key[64];
    snprintf(key, sizeof key, "%s\n", names[i]);
    cr_assert(strstr(r->out, key), "formulation %s missing", names[i]);
  }
  r = cc_run(NULL, "reference cases/degenerate.cases");
  int ncases = count_lines(r->out);
  r = cc_run(NULL, "solve -f ericson cases/degenerate.cases");
  cr_assert_eq(r->status, 0);
  cr_assert_eq(count_lines(r->out), ncases);
  /* Ericson on the 3-4-5 hit: c = 128, a = 4, b = -24, d = 64, t = (24 - 8)/4 = 4 exactly. */
  cr_assert(strstr(r->out, "c345-hit hit 0x1p+2\n"), "%s", r->out);
  char rows[] = "/tmp/toirowsXXXXXX";
  int fd = mkstemp(rows);
  close(fd);
  char args[256];
  snprintf(args, sizeof args, "run --rows %s cases/degenerate.cases cases/documents.cases", rows);
  r = cc_run(NULL, args);
  cr_assert_eq(r->status, 0, "%s", r->err);
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) cr_assert(strstr(r->out, names[i]));
  cc_out *ref2 = cc_run(NULL, "reference cases/documents.cases");
  int total = ncases + count_lines(ref2->out);
  char *buf = cc_slurp(rows, NULL);
  cr_assert(!strncmp(buf, "# id formulation class ref_class t ref_t ulp bits\n", 50));
  cr_assert_eq(count_lines(buf), 1 + total * nf);
  free(buf);
  unlink(rows);
}

Test(cli, version) {
  const char *args[] = {"--version", "-V"};
  for (size_t i = 0; i < 2; i++) {
    cc_out *r = cc_run(NULL, args[i]);
    cr_assert_eq(r->status, 0, "%s", args[i]);
    cr_assert(!strncmp(r->out, "toibench " TOI_VERSION, strlen("toibench " TOI_VERSION)), "%s: %s", args[i], r->out);
    cr_assert_eq(count_lines(r->out), 1, "%s: %s", args[i], r->out);
  }
  cc_out *r = cc_run(NULL, "--help");
  cr_assert(strstr(r->out, "--version") && strstr(r->out, "-V"), "%s", r->out);
}

/* A mistyped name gets the nearest one of its own list; far-off names get none. */
Test(cli, did_you_mean) {
  static const struct {
    const char *args, *want;
  } t[] = {
      {"rn cases/degenerate.cases", "toibench: unknown command 'rn'; did you mean 'run'?\nTry 'toibench --help'\n"},
      {"refrence x", "did you mean 'reference'?"},
      {"run -f ericsn cases/degenerate.cases", "did you mean 'ericson'?\nTry 'toibench run --help'\n"},
      {"run -f robust,expandd cases/degenerate.cases", "did you mean 'expanded'?"},
      {"solve -f phet-revrese cases/degenerate.cases", "did you mean 'phet-reverse'?"},
      {"audit -f minkowsky cases/degenerate.cases", "did you mean 'minkowski'?"},
      {"run --tmx 1 cases/degenerate.cases", "unknown option '--tmx'; did you mean '--tmax'?"},
      {"run --solver-comd x cases/degenerate.cases", "did you mean '--solver-cmd'?"},
      {"gen grazng", "unknown family 'grazng'; did you mean 'grazing'?\nTry 'toibench gen --help'\n"},
      {"gen near", "did you mean 'near-contact'?"},
      {"run --reference mfpr cases/degenerate.cases", "did you mean 'mpfr'?"},
      {"run --precision binary23 cases/degenerate.cases", "did you mean 'binary32'?"},
      {"list --nmaes", "did you mean '--names'?\nTry 'toibench list --help'\n"},
      {"sweep mixed --count 1 --chekpoint x", "did you mean '--checkpoint'?"},
      {"simulate --evnts 3", "did you mean '--events'?"},
      {"report --qiuck", "did you mean '--quick'?"},
  };
  for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
    cc_out *r = cc_run(NULL, t[i].args);
    cr_assert_eq(r->status, 2, "%s: %d %s", t[i].args, r->status, r->err);
    cr_assert(strstr(r->err, t[i].want), "%s: %s", t[i].args, r->err);
  }
  const char *none[] = {"s", "run -x cases/degenerate.cases", "run -f zzzzzz cases/degenerate.cases", "gen quux"};
  for (size_t i = 0; i < sizeof none / sizeof *none; i++) {
    cc_out *r = cc_run(NULL, none[i]);
    cr_assert_eq(r->status, 2, "%s", none[i]);
    cr_assert_null(strstr(r->err, "did you mean"), "%s: %s", none[i], r->err);
  }
}

Test(cli, suggest_rules) {
  const char *const l[] = {"expanded", "expanded-corner", "ericson", "robust", "run", "reference"};
  size_t n = sizeof l / sizeof *l;
  cr_assert_str_eq(cli_suggest(l, n, "ericosn"), "ericson");   /* a swap is one edit */
  cr_assert_str_eq(cli_suggest(l, n, "expandd"), "expanded");  /* the nearest wins */
  cr_assert_str_eq(cli_suggest(l, n, "expanded-c"), "expanded-corner"); /* a unique prefix */
  cr_assert_str_eq(cli_suggest(l, n, "ref"), "reference");
  cr_assert_null(cli_suggest(l, n, "ex"));      /* a prefix of two */
  cr_assert_null(cli_suggest(l, n, "robust"));  /* itself */
  cr_assert_null(cli_suggest(l, n, "abcdefg"));
  cr_assert_null(cli_suggest(l, n, ""));
}

/* --solver-cmd naming no program: one line, a usage error, nothing run. */
Test(cli, solver_cmd_that_cannot_run) {
  const char *cmds[] = {"run --solver-cmd no-such-solver-cmd cases/degenerate.cases",
                        "run --solver-cmd /nonexistent/solver cases/degenerate.cases",
                        "run --solver-cmd 'cases/degenerate.cases --x' cases/degenerate.cases",
                        "sweep aimed --count 10 --solver-cmd no-such-solver-cmd",
                        "hunt --solver-cmd no-such-solver-cmd --budget 10"};
  for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
    cc_out *r = cc_run(NULL, cmds[i]);
    cr_assert_eq(r->status, 2, "%s: %d %s", cmds[i], r->status, r->err);
    cr_assert_eq(count_lines(r->err), 2, "%s: %s", cmds[i], r->err);
    cr_assert(strstr(r->err, ": cannot run: "), "%s: %s", cmds[i], r->err);
    cr_assert_eq(r->out[0], 0, "%s", cmds[i]);
  }
  cc_out *r = cc_run(NULL, cmds[0]);
  cr_assert_str_eq(r->err, "toibench run: solver no-such-solver-cmd: cannot run: 'no-such-solver-cmd' is not found in "
                           "PATH\nTry 'toibench run --help'\n");
  /* A script whose interpreter is missing, a file that is not executable, a
     quoted path with a space: one line each. */
  char dir[] = "/tmp/toisolvXXXXXX", path[256], args[1024];
  cr_assert_not_null(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/bad interp", dir);
  FILE *f = fopen(path, "w");
  cr_assert_not_null(f);
  fputs("#!/nonexistent/interpreter\n", f);
  fclose(f);
  chmod(path, 0755);
  static const struct {
    const char *cmd, *why;
  } t[] = {{"'%s/bad interp' --x", "bad interpreter /nonexistent/interpreter: No such file or directory"},
           {"\"%s/no such\"", "no such: No such file or directory"},
           {"%s", "is a directory"}};
  for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
    char c[600];
    snprintf(c, sizeof c, t[i].cmd, dir);
    /* Quoted again for the shell that runs toibench. */
    snprintf(args, sizeof args, strchr(c, '\'') ? "run --solver-cmd \"%s\" cases/degenerate.cases"
                                                : "run --solver-cmd '%s' cases/degenerate.cases", c);
    r = cc_run(NULL, args);
    cr_assert_eq(r->status, 2, "%s: %s", args, r->err);
    cr_assert_eq(count_lines(r->err), 2, "%s: %s", args, r->err);
    cr_assert(strstr(r->err, t[i].why), "%s: %s", args, r->err);
  }
  chmod(path, 0644);
  snprintf(args, sizeof args, "run --solver-cmd \"'%s'\" cases/degenerate.cases", path);
  r = cc_run(NULL, args);
  cr_assert(r->status == 2 && strstr(r->err, "Permission denied"), "%s: %s", args, r->err);
  unlink(path);
  rmdir(dir);
}

/* The commands `toibench --help` lists, in order, each as "NAME\n"; n of them. */
static char *help_commands(int *n) {
  cc_out *r = cc_run(NULL, "--help");
  cr_assert_eq(r->status, 0);
  const char *p = strstr(r->out, "Commands:\n");
  cr_assert_not_null(p, "%s", r->out);
  char *v = calloc(1, 4096);
  cr_assert_not_null(v);
  *n = 0;
  for (p += strlen("Commands:\n"); !strncmp(p, "  ", 2) && p[2] != ' '; p = strchr(p, '\n') + 1) {
    char name[64];
    cr_assert_eq(sscanf(p, "%63s", name), 1);
    snprintf(v + strlen(v), 4096 - strlen(v), "%s\n", name);
    ++*n;
  }
  cr_assert_geq(*n, 11, "%s", r->out);
  return v;
}

/* Every command of the help has its entry in the man page, and the options
 * of each (those the "did you mean" compares with) are in it too. */
Test(cli, man_page_lists_every_command_and_option) {
  int n;
  char *cmds = help_commands(&n);
  char *man = cc_slurp(TOI_SOURCE_DIR "/doc/toibench.1", NULL);
  cr_assert(strstr(man, ".SH NAME") && strstr(man, ".SH SYNOPSIS") && strstr(man, ".SH EXIT STATUS") &&
            strstr(man, ".SH FILES") && strstr(man, ".SH EXAMPLES") && strstr(man, ".SH SEE ALSO"));
  for (char *save = NULL, *c = strtok_r(cmds, "\n", &save); c; c = strtok_r(NULL, "\n", &save)) {
    char key[80];
    snprintf(key, sizeof key, "\n.B %s ", c);
    const char *entry = strstr(man, key);
    cr_assert_not_null(entry, "command %s missing from doc/toibench.1", c);
    const char *end = strstr(entry + 1, "\n.TP\n");
    if (!end) end = strstr(entry, "\n.SH ");
    size_t no;
    const char *const *opts = cli_command_options(c, &no);
    cr_assert_not_null(opts, "no option table for %s", c);
    cc_out *h = cc_run(NULL, (snprintf(key, sizeof key, "%s --help", c), key));
    for (size_t k = 0; k < no; k++) {
      /* groff writes a minus as \-. */
      char esc[80] = "";
      for (const char *q = opts[k]; *q; q++)
        snprintf(esc + strlen(esc), sizeof esc - strlen(esc), "%s", *q == '-' ? "\\-" : (char[]){*q, 0});
      const char *hit = strstr(entry, esc);
      /* sweep and hunt refer to gen's generator options. */
      const char *gen = strstr(man, "\n.B gen "), *gen_end = gen ? strstr(gen + 1, "\n.TP\n") : NULL;
      const char *refers = strstr(entry, "generator options"), *in = gen ? strstr(gen, esc) : NULL;
      int in_gen = refers && refers < end && in && in < gen_end;
      cr_assert((hit && hit < end) || in_gen, "%s %s missing from its entry in doc/toibench.1", c, opts[k]);
      cr_assert(strstr(h->out, opts[k]), "%s %s is not in its --help", c, opts[k]);
    }
  }
  free(man);
  free(cmds);
}

/* Runs bash with args; its exit status. */
static int run_bash(char *const args[]) {
  pid_t pid;
  extern char **environ;
  if (posix_spawnp(&pid, "bash", NULL, NULL, args, environ) != 0) return -1;
  int st;
  cr_assert_eq(waitpid(pid, &st, 0), pid);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The completion file is valid bash, knows every command, every option of
 * each, and every family; names come from `toibench list`. */
Test(cli, bash_completion) {
  const char *path = TOI_SOURCE_DIR "/doc/toibench.bash-completion";
  char *const check[] = {"bash", "-n", (char *)path, NULL};
  cr_assert_eq(run_bash(check), 0, "bash -n %s", path);
  char *comp = cc_slurp(path, NULL);
  int n;
  char *cmds = help_commands(&n);
  for (char *save = NULL, *c = strtok_r(cmds, "\n", &save); c; c = strtok_r(NULL, "\n", &save)) {
    char key[80];
    snprintf(key, sizeof key, "_toibench_opts_%s=\"", c);
    const char *line = strstr(comp, key);
    cr_assert_not_null(line, "no options for %s in %s", c, path);
    line += strlen(key);
    size_t len = strcspn(line, "\""), no;
    const char *const *opts = cli_command_options(c, &no);
    int words = 0;
    for (const char *q = line; q < line + len; q += strcspn(q, " \"")) {
      q += strspn(q, " ");
      if (q < line + len) words++;
    }
    cr_assert_eq((size_t)words, no, "%s: %d options in the completion, %zu in cli_command_options", c, words, no);
    for (size_t k = 0; k < no; k++) {
      char w[80];
      snprintf(w, sizeof w, " %s ", opts[k]);
      char *l = calloc(1, len + 3);
      snprintf(l, len + 3, " %.*s ", (int)len, line);
      cr_assert(strstr(l, w), "%s %s missing from the completion", c, opts[k]);
      free(l);
    }
  }
  for (int f = 0; f < TOI_GEN_FAMILY_COUNT; f++) {
    char w[80];
    snprintf(w, sizeof w, "%s", toi_gen_family_name((toi_gen_family)f));
    cr_assert(strstr(comp, w), "family %s missing from the completion", w);
  }
  /* Completing "-f eric" offers ericson, from `toibench list --names`. */
  char script[8192];
  snprintf(script, sizeof script,
           "source '%s'; COMP_WORDS=('%s' run -f robust,eric); COMP_CWORD=3; _toibench; "
           "[ \"${COMPREPLY[*]}\" = robust,ericson ]",
           path, TOIBENCH_PATH);
  char *const complete[] = {"bash", "-c", script, NULL};
  cr_assert_eq(run_bash(complete), 0, "completing -f robust,eric");
  free(cmds);
  free(comp);
}
