/* test_findings.c: the documents' generated blocks are what this build produces, and build/findings catches an edit. */
#include <criterion/criterion.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli_check.h"
#include "tmp_dir.h"

/*
 * build/findings (tools/findings.c) runs the recipes of doc/findings/recipes
 * and writes, or checks, the blocks between the markers in README.md and
 * the pages of doc/. The first test is the check `make test` promises: every
 * deterministic block of the tree is what this build makes (engine and MPI
 * blocks when those are built). The others hold the tool itself to what it
 * says, on small recipes whose output is known without running it.
 */

TestSuite(findings, .init = td_setup, .fini = td_teardown, .timeout = 900);

/* Runs build/findings ARGS in the source directory; stdout and stderr to the
 * files out and err of the test's folder. Its exit status. */
static int fd_run(const char *args) {
  char line[8192];
  snprintf(line, sizeof line, "%s %s >%s 2>%s", cc_built("findings"), args, td_path("out"), td_path("err"));
  return cc_cmd(NULL, line);
}

/* The line number (from 1) of the byte at offset off of text. */
static int line_of(const char *text, size_t off) {
  int n = 1;
  for (size_t i = 0; i < off; i++) n += text[i] == '\n';
  return n;
}

Test(findings, every_block_of_the_tree_is_what_this_build_makes) {
  glob_t g;
  cr_assert_eq(glob(TOI_SOURCE_DIR "/doc/*.md", 0, NULL, &g), 0, "no doc/*.md");
  char args[8192];
  size_t k = (size_t)snprintf(args, sizeof args, "--check %s/README.md", TOI_SOURCE_DIR);
  for (size_t i = 0; i < g.gl_pathc && k < sizeof args; i++)
    k += (size_t)snprintf(args + k, sizeof args - k, " %s", g.gl_pathv[i]);
  globfree(&g);
  int st = fd_run(args);
  char *out = td_read("out"), *err = td_read("err");
  cr_assert_eq(st, 0, "build/findings --check README.md doc/*.md exited %d:\n%s%s", st, err, out);
  cr_assert_not_null(strstr(out, "blocks as this build makes them"), "%s", out);
  /* What was skipped says why, on stdout, so make test shows it. */
  for (const char *s = strstr(out, " skipped: "); s; s = strstr(s + 1, " skipped: "))
    cr_assert(strstr(s, "not built"), "a skipped block without its reason: %s", out);
  free(out);
  free(err);
}

/* The block tour-run of a copy of README.md with one digit of its figures
 * changed: the check fails and names the copy, the block and the line. */
Test(findings, a_figure_edited_by_one_digit_fails_the_check) {
  size_t len;
  char *text = cc_slurp(TOI_SOURCE_DIR "/README.md", &len);
  const char *b = strstr(text, "<!-- findings:tour-run begin -->"), *e = b ? strstr(b, "<!-- findings:tour-run end -->") : NULL;
  cr_assert(b && e, "README.md has no tour-run block");
  /* The last digit of the block: a figure of the run's table, not a command. */
  char *d = (char *)e;
  while (d > b && !(*d >= '0' && *d <= '9')) d--;
  cr_assert_gt(d, b);
  *d = *d == '9' ? '8' : (char)(*d + 1);
  FILE *f = fopen(td_path("README.md"), "wb");
  cr_assert_not_null(f);
  cr_assert_eq(fwrite(text, 1, len, f), len);
  fclose(f);
  int edited_line = line_of(text, (size_t)(d - text));
  char args[512], want[512];
  snprintf(args, sizeof args, "--only tour-run --check %s", td_path("README.md"));
  cr_assert_eq(fd_run(args), 1, "the edited copy passed the check");
  char *err = td_read("err");
  snprintf(want, sizeof want, "%s:%d: block tour-run differs", td_path("README.md"), edited_line);
  cr_assert_not_null(strstr(err, want), "want '%s' in:\n%s", want, err);
  free(err);
  free(text);
}

/* Small recipes whose blocks are known: CSV columns as a table (integers as
 * printed, other numbers to 4 digits), a dropped column, a machine block
 * (written with the machine, never checked) and an engines block whose
 * engine is not built (skipped with the reason, its text kept). */
static const char recipes[] =
    "# test recipes\n"
    "[det]\n"
    "kind deterministic\n"
    "$ printf \"name,x,n\\nrow,0.123456789,12345678\\n\"\n"
    "columns name x n\n"
    "\n"
    "[cols]\n"
    "kind deterministic\n"
    "$ printf \"# c\\nname  aa   bb\\nr      1    2\\n\\nafter\\n\"\n"
    "drop aa\n"
    "[mach]\n"
    "kind machine\n"
    "repeat 2\n"
    "time true\n"
    "[eng]\n"
    "kind engines\n"
    "needs no-such-engine\n"
    "$ build/toibench list --engines\n"
    "[mpi]\n"
    "kind mpi\n"
    "$ true build/no-such-mpi-program\n";

static const char doc[] = "intro\n"
                          "<!-- findings:det begin -->\n"
                          "stale\n"
                          "<!-- findings:det end -->\n"
                          "middle\n"
                          "<!-- findings:cols begin -->\n"
                          "<!-- findings:cols end -->\n"
                          "<!-- findings:mach begin -->\n"
                          "<!-- findings:mach end -->\n"
                          "<!-- findings:eng begin -->\n"
                          "kept\n"
                          "<!-- findings:eng end -->\n"
                          "<!-- findings:mpi begin -->\n"
                          "kept too\n"
                          "<!-- findings:mpi end -->\n"
                          "end\n";

static const char det_block[] = "<!-- findings:det begin -->\n"
                                "```\n"
                                "$ printf \"name,x,n\\nrow,0.123456789,12345678\\n\"\n"
                                "name       x         n\n"
                                "row   0.1235  12345678\n"
                                "```\n"
                                "<!-- findings:det end -->\n";

static const char cols_block[] = "<!-- findings:cols begin -->\n"
                                 "```\n"
                                 "$ printf \"# c\\nname  aa   bb\\nr      1    2\\n\\nafter\\n\"\n"
                                 "# c\n"
                                 "name   bb\n"
                                 "r       2\n"
                                 "\n"
                                 "after\n"
                                 "```\n"
                                 "<!-- findings:cols end -->\n";

static void fd_args(char *buf, size_t n, const char *mode) {
  snprintf(buf, n, "--recipes %s %s %s", td_path("recipes"), mode, td_path("doc.md"));
}

Test(findings, write_renders_each_kind_and_check_checks_only_what_it_should) {
  char args[1024];
  td_put("recipes", recipes);
  td_put("doc.md", doc);
  fd_args(args, sizeof args, "--write");
  int st = fd_run(args);
  char *out = td_read("out"), *err = td_read("err"), *d = td_read("doc.md");
  cr_assert_eq(st, 0, "--write exited %d:\n%s", st, err);
  cr_assert_not_null(strstr(d, det_block), "det:\n%s", d);
  cr_assert_not_null(strstr(d, cols_block), "cols:\n%s", d);
  cr_assert_not_null(strstr(d, "<!-- findings:eng begin -->\nkept\n<!-- findings:eng end -->\n"), "%s", d);
  /* a program of the build that a recipe starts through another (mpirun ... build/toibench-mpi) must be built too */
  cr_assert_not_null(strstr(d, "<!-- findings:mpi begin -->\nkept too\n<!-- findings:mpi end -->\n"), "%s", d);
  cr_assert_not_null(strstr(out, "block mpi skipped, left as it was: build/no-such-mpi-program is not built"), "%s", out);
  cr_assert_not_null(strstr(out, "block eng skipped, left as it was: engines not built (make engines): no-such-engine\n"),
                     "%s", out);
  const char *m = strstr(d, "<!-- findings:mach begin -->\nMeasured on ");
  cr_assert_not_null(m, "%s", d);
  cr_assert_not_null(strstr(m, "load average"), "%s", d);
  cr_assert_not_null(strstr(m, "```\n$ true\n# wall "), "%s", d);
  cr_assert(!strncmp(d, "intro\n", 6) && strstr(d, "middle\n") && strstr(d, "end\n"), "%s", d);
  free(out), free(err);

  fd_args(args, sizeof args, "--check");
  st = fd_run(args);
  out = td_read("out"), err = td_read("err");
  cr_assert_eq(st, 0, "--check after --write exited %d:\n%s", st, err);
  cr_assert_not_null(strstr(out, "block eng skipped: engines not built (make engines): no-such-engine\n"), "%s", out);
  cr_assert_not_null(strstr(out, "1 never checked"), "%s", out);
  free(out), free(err);

  /* A machine block's figures are never asserted: editing them changes nothing. */
  char *w = strstr(d, "# wall ");
  w[7] = w[7] == '9' ? '8' : '9';
  td_put("doc.md", d);
  cr_assert_eq(fd_run(args), 0);
  /* A deterministic one's are. */
  char *x = strstr(d, "0.1235");
  x[5] = '6';
  td_put("doc.md", d);
  cr_assert_eq(fd_run(args), 1);
  err = td_read("err");
  char want[512];
  snprintf(want, sizeof want,
           "%s:6: block det differs from what this build produces, first at line 4 of the block:\n"
           "  in the file: row   0.1236  12345678\n"
           "  produced:    row   0.1235  12345678\n",
           td_path("doc.md"));
  cr_assert_not_null(strstr(err, want), "want:\n%s\ngot:\n%s", want, err);
  free(err);
  free(d);
}

/* Refused inputs name their file and line, exit 3 and write nothing. */
Test(findings, bad_recipes_and_markers_are_refused_by_file_and_line) {
  static const struct {
    const char *recipes, *doc, *message;
  } bad[] = {
      {"[a]\nkind deterministic\nrun true\n", "x\n", "recipes:3: 'run' is not a recipe line"},
      {"[a]\nkind sometimes\n$ true\n", "x\n", "recipes:2: unknown kind 'sometimes'"},
      {"[a]\n$ true\n", "x\n", "recipes:1: recipe a has no kind"},
      {"[a]\nkind engines\n$ true\n", "x\n", "recipes:1: engines recipe a needs its engines"},
      {"[a]\nkind deterministic\n$ true\n", "x\n<!-- findings:b begin -->\n<!-- findings:b end -->\n",
       "doc.md:2: block b: no recipe of that name"},
      {"[a]\nkind deterministic\n$ true\n", "<!-- findings:a begin -->\nstale\n", "doc.md:1: block a has no end marker"},
      {"[a]\nkind deterministic\n$ true\n", "<!-- findings:a end -->\n", "doc.md:1: block a ends but never began"},
      {"[a]\nkind deterministic\n$ true\n", "<!-- findings:a begins -->\n", "doc.md:1: a findings marker is"},
  };
  char args[1024];
  fd_args(args, sizeof args, "--write");
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    td_put("recipes", bad[i].recipes);
    td_put("doc.md", bad[i].doc);
    cr_assert_eq(fd_run(args), 3, "case %zu", i);
    char *err = td_read("err"), *d = td_read("doc.md");
    cr_assert_not_null(strstr(err, bad[i].message), "case %zu: want '%s' in:\n%s", i, bad[i].message, err);
    cr_assert_str_eq(d, bad[i].doc, "case %zu: the document was changed", i);
    free(err);
    free(d);
  }
}

/* A command that fails, or a program a deterministic block needs that is not
 * there, fails the run (exit 1) and leaves the document as it was. */
Test(findings, a_failing_recipe_fails_and_writes_nothing) {
  static const char *const bodies[] = {"$ true\n$ false\n", "$ build/no-such-program\n"};
  static const char *const messages[] = {"recipes:4: recipe a: `false` exited with status 1",
                                         "build/no-such-program is not built"};
  const char *doc_text = "<!-- findings:a begin -->\nstale\n<!-- findings:a end -->\n";
  for (int i = 0; i < 2; i++) {
    char r[256], args[1024];
    snprintf(r, sizeof r, "[a]\nkind deterministic\n%s", bodies[i]);
    td_put("recipes", r);
    td_put("doc.md", doc_text);
    for (int mode = 0; mode < 2; mode++) {
      fd_args(args, sizeof args, mode ? "--check" : "--write");
      cr_assert_eq(fd_run(args), 1, "recipe %d, %s", i, mode ? "--check" : "--write");
      char *err = td_read("err"), *d = td_read("doc.md");
      cr_assert_not_null(strstr(err, messages[i]), "want '%s' in:\n%s", messages[i], err);
      cr_assert_str_eq(d, doc_text);
      free(err);
      free(d);
    }
  }
}

/* Every program under build/ that a recipe runs (build/NAME, or the first
 * folder of build/DIR/...) is made by `make findings` first: its rule's
 * prerequisites, $(VAR)s whose `VAR := $(BUILD)/...` lines name the
 * programs, cover them, so that no figure comes from a stale or missing
 * program. */
Test(findings, make_findings_builds_every_program_a_recipe_runs) {
  char *mk = cc_read(TOI_SOURCE_DIR "/Makefile"), *rc = cc_read(TOI_SOURCE_DIR "/doc/findings/recipes");
  cr_assert(mk && rc, "cannot read the Makefile or the recipes");
  const char *rule = strstr(mk, "\nfindings:");
  cr_assert_not_null(rule, "no findings rule in the Makefile");
  rule += strlen("\nfindings:");
  size_t rlen = strcspn(rule, "\n");
  /* what the prerequisites build: each $(VAR)'s definition, its $(BUILD)/ words */
  char built[4096] = " ";
  for (const char *v = rule; (v = strstr(v, "$(")) && v < rule + rlen; v += 2) {
    char name[64], def[96];
    size_t n = strcspn(v + 2, ")");
    if (n == 0 || n >= sizeof name) continue;
    snprintf(name, sizeof name, "%.*s", (int)n, v + 2);
    snprintf(def, sizeof def, "\n%s := ", name);
    const char *d = strstr(mk, def);
    if (!d) continue; /* $(if ...) and the like */
    d += strlen(def);
    for (const char *w = d; (w = strstr(w, "$(BUILD)/")) && w < d + strcspn(d, "\n"); w += 9) {
      size_t m = strcspn(w + 9, " /\n");
      snprintf(built + strlen(built), sizeof built - strlen(built), "%.*s ", (int)m, w + 9);
    }
  }
  /* what the recipes run from build/ */
  int seen = 0;
  for (const char *p = rc; (p = strstr(p, "build/")); p += 6) {
    if (p > rc && p[-1] != ' ' && p[-1] != '\n' && p[-1] != '=') continue;
    char word[80];
    size_t m = strcspn(p + 6, " /\n'\"");
    if (m == 0 || m >= sizeof word - 2) continue;
    snprintf(word, sizeof word, " %.*s ", (int)m, p + 6);
    /* a program, not a word of prose: the recipe's command starts with it (after `$ ` or `time `) */
    const char *bol = p;
    while (bol > rc && bol[-1] != '\n') bol--;
    if (!(bol == p || !strncmp(bol, "$ ", 2) || !strncmp(bol, "time ", 5))) continue;
    seen++;
    cr_assert_not_null(strstr(built, word), "a recipe runs build/%s, which `make findings` does not build (it builds:%s)",
                       word + 1, built);
  }
  cr_assert_gt(seen, 100, "too few programs found in the recipes: %d", seen);
  free(mk);
  free(rc);
}
