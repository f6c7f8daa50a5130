/* test_exports.c: libtoibench.so exports exactly the functions the public headers declare, under a version node. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli_check.h"
#include "tmp_dir.h"
#include "toibench.h"

#define MAXSYM 512

typedef struct symset {
  char name[MAXSYM][64];
  int n;
} symset;

static int has(const symset *s, const char *name) {
  for (int i = 0; i < s->n; i++)
    if (!strcmp(s->name[i], name)) return 1;
  return 0;
}

static void add(symset *s, const char *name, size_t len) {
  cr_assert_lt(s->n, MAXSYM);
  cr_assert_lt(len, sizeof s->name[0]);
  memcpy(s->name[s->n], name, len);
  s->name[s->n][len] = 0;
  if (!has(s, s->name[s->n])) s->n++;
}

/* Every function the public headers declare (not static inline), as the compiler
   lists them: cc -aux-info on a file that includes toibench.h. */
static void declared(symset *s) {
  FILE *f = fopen(td_path("all.c"), "w");
  fputs("#include \"toibench.h\"\n", f);
  fclose(f);
  char line[2048];
  snprintf(line, sizeof line, "cc -std=c11 -D_POSIX_C_SOURCE=200809L -I%s/include/toibench -aux-info %s -c %s -o %s",
           TOI_SOURCE_DIR, td_path("aux"), td_path("all.c"), td_path("all.o"));
  cr_assert_eq(cc_cmd(td_dir, line), 0, "%s", line);
  char *aux = cc_slurp(td_path("aux"), NULL);
  for (char *l = strtok(aux, "\n"); l; l = strtok(NULL, "\n")) {
    if (!strstr(l, "include/toibench/") || strstr(l, "*/ static ")) continue;
    char *body = strstr(l, "*/");
    char *paren = body ? strchr(body, '(') : NULL;
    cr_assert_not_null(paren, "%s", l);
    char *end = paren;
    while (end > body && end[-1] == ' ') end--;
    char *start = end;
    while (start > body && (start[-1] == '_' || (start[-1] >= 'a' && start[-1] <= 'z') ||
                            (start[-1] >= 'A' && start[-1] <= 'Z') || (start[-1] >= '0' && start[-1] <= '9')))
      start--;
    add(s, start, (size_t)(end - start));
  }
  free(aux);
}

/* The symbols exported in the node TOIBENCH_0.2 (filled by exported). */
static symset node02;

/* The defined dynamic symbols of the shared library, with their version (nm -D --defined-only). */
static void exported(symset *s, symset *versions) {
  char line[2048];
  node02.n = 0;
  /* the library of this build: beside TOIBENCH_PATH (build/ or build/sanitize/) */
  char lib[1024];
  snprintf(lib, sizeof lib, "%s", TOIBENCH_PATH);
  char *slash = strrchr(lib, '/');
  cr_assert_not_null(slash);
  snprintf(slash + 1, sizeof lib - (size_t)(slash + 1 - lib), "libtoibench.so");
  snprintf(line, sizeof line, "nm -D --defined-only %s >%s", lib, td_path("nm"));
  cr_assert_eq(cc_cmd(td_dir, line), 0, "%s", line);
  char *nm = cc_slurp(td_path("nm"), NULL);
  for (char *l = strtok(nm, "\n"); l; l = strtok(NULL, "\n")) {
    char addr[64], type[8], sym[256];
    if (sscanf(l, "%63s %7s %255s", addr, type, sym) != 3) continue;
    if (!strcmp(type, "A")) { /* the version node itself */
      add(versions, sym, strlen(sym));
      continue;
    }
    char *at = strchr(sym, '@');
    cr_assert_not_null(at, "%s has no version", sym);
    cr_assert(!strcmp(at, "@@TOIBENCH_0") || !strcmp(at, "@@TOIBENCH_0.2"), "%s: version", sym);
    add(s, sym, (size_t)(at - sym));
    if (!strcmp(at, "@@TOIBENCH_0.2")) add(&node02, sym, (size_t)(at - sym));
  }
  free(nm);
}

Test(exports, the_library_exports_exactly_the_public_functions, .init = td_setup, .fini = td_teardown) {
  static symset decl, exp, ver;
  declared(&decl);
  exported(&exp, &ver);
  cr_assert_gt(decl.n, 50, "public functions found: %d", decl.n);
  for (int i = 0; i < exp.n; i++)
    cr_expect(has(&decl, exp.name[i]), "%s is exported but no public header declares it", exp.name[i]);
  for (int i = 0; i < decl.n; i++)
    cr_expect(has(&exp, decl.name[i]), "%s is declared public but not exported (TOI_API, toibench.map)", decl.name[i]);
  cr_assert_eq(ver.n, 2);
  cr_assert(has(&ver, "TOIBENCH_0") && has(&ver, "TOIBENCH_0.2"));
}

/* The functions whose arguments changed in 0.2.0 carry the node TOIBENCH_0.2,
 * so that a program linked against 0.1.0 (toi_ref_solve@TOIBENCH_0 taking a
 * case) is refused by the loader instead of calling them with old arguments;
 * the functions left as they were keep TOIBENCH_0. */
Test(exports, changed_functions_carry_the_new_node, .init = td_setup, .fini = td_teardown) {
  static symset exp, ver;
  exported(&exp, &ver);
  const char *changed[] = {"toi_ref_solve", "toi_ref_solve_batch", "toi_ref_error", "toi_ref_error_bound",
                           "toi_ref_kappa", "toi_ref_kappa_bound", "toi_ref_engine_parse", "toi_score_answer",
                           "toi_ref_prepare", "toi_ref_query_default",
                           /* a status instead of -1 or 0 (the one error style) */
                           "toi_class_parse", "toi_precision_parse", "toi_gen_family_parse",
                           "toi_candidate_formulation_prec", "toi_candidate_find", "toi_candidate_command",
                           "toi_candidate_command_prec", "toi_candidate_copy", "toi_candidate_run",
                           "toi_candidates_engines", "toi_candidates_plugin", "toi_candidates_plugin_timeout",
                           "toi_bench_run", "toi_bench_run_family", "toi_bench_sweep", "toi_score_input",
                           "toi_gen_opts_check", "toi_parse_case_line", "toi_write_case"};
  for (size_t i = 0; i < sizeof changed / sizeof *changed; i++)
    cr_expect(has(&node02, changed[i]), "%s is not in TOIBENCH_0.2", changed[i]);
  cr_expect_eq(node02.n, (int)(sizeof changed / sizeof *changed));
  cr_expect(!has(&node02, "toi_ref_engine_name") && !has(&node02, "toi_version"));
}

/* The version script names each public function: none missing, none extra. */
Test(exports, the_version_script_lists_the_public_functions, .init = td_setup, .fini = td_teardown) {
  static symset decl, map;
  declared(&decl);
  char *text = cc_slurp(TOI_SOURCE_DIR "/toibench.map", NULL);
  /* every node's "global:" list, up to its "local:" or the node's closing brace */
  for (char *g = strstr(text, "global:"); g; g = strstr(g + 7, "global:")) {
    char *l = strstr(g, "local:"), *b = strchr(g, '}');
    if (!l || (b && b < l)) l = b;
    cr_assert_not_null(l);
    for (char *p = g + 7; p < l;) {
      while (p < l && (*p == ' ' || *p == '\n')) p++;
      char *e = strchr(p, ';');
      if (!e || e > l) break;
      add(&map, p, (size_t)(e - p));
      p = e + 1;
    }
  }
  free(text);
  cr_assert_eq(map.n, decl.n, "toibench.map lists %d names, the headers declare %d", map.n, decl.n);
  for (int i = 0; i < decl.n; i++) cr_expect(has(&map, decl.name[i]), "toibench.map lacks %s", decl.name[i]);
}

Test(exports, version) {
  cr_assert_eq(toi_version(), TOI_VERSION_NUMBER);
  cr_assert_str_eq(toi_version_string(), TOI_VERSION);
  char v[32];
  snprintf(v, sizeof v, "%d.%d.%d", TOI_VERSION_MAJOR, TOI_VERSION_MINOR, TOI_VERSION_PATCH);
  cr_assert_str_eq(v, TOI_VERSION);
}
