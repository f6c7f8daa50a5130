/* test_api_rules.c: one error style in every public header: a function that can fail returns a toi_status. */
#include <criterion/criterion.h>
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli_check.h"

/* The public functions that return an integer and cannot fail, each with the
   reason. Any other TOI_API function returning an integer type breaks the
   rule (doc/api.md, "Rules for every function"): a function that can fail
   returns a toi_status marked TOI_MUST_USE and says why through a toi_msg
   sink, and gives what it computes through an out parameter. */
static const struct {
  const char *name, *why;
} cannot_fail[] = {
    {"toi_version", "the linked library's version number: a value"},
    {"toi_is_value_of", "a yes/no predicate on a number"},
    {"toi_id_valid", "a yes/no predicate on a string"},
    {"toi_format_case", "snprintf's convention: the length the line needs, whatever the buffer's size"},
    {"toi_gen_opts_format", "snprintf's convention: the length the text needs, whatever the buffer's size"},
    {"toi_gen_bin_count", "a count computed from the options (their range is toi_gen_opts_check's)"},
    {"toi_run_finish", "1 when a candidate malfunctioned: an answer about a run, said to the sink too"},
};
#define NALLOW (sizeof cannot_fail / sizeof *cannot_fail)

/* toi_solver.h is the plug-in ABI (versions 1 to 3): it declares what a
   plug-in defines, in the ABI's own convention, unchanged so that old
   plug-ins load; it declares nothing TOI_API. */
static const char *const not_scanned[] = {"toi_solver.h"};

/* text without comments, every run of blanks and newlines one space (malloc'ed) */
static char *normalized(const char *text) {
  size_t n = strlen(text), j = 0;
  char *out = malloc(n + 1);
  cr_assert_not_null(out);
  for (size_t i = 0; i < n; i++) {
    if (text[i] == '/' && text[i + 1] == '*') {
      const char *e = strstr(text + i + 2, "*/");
      i = e ? (size_t)(e - text) + 1 : n;
      continue;
    }
    if (text[i] == '/' && text[i + 1] == '/') {
      while (i < n && text[i] != '\n') i++;
    }
    char ch = isspace((unsigned char)text[i]) ? ' ' : text[i];
    if (ch == ' ' && (j == 0 || out[j - 1] == ' ')) continue;
    out[j++] = ch;
  }
  out[j] = 0;
  return out;
}

static int is_integer_type(const char *ret) {
  static const char *const words[] = {"int", "unsigned", "signed", "long", "short", "char", "size_t", "ssize_t",
                                      "ptrdiff_t", "bool", "_Bool", "intptr_t", "uintptr_t"};
  if (strchr(ret, '*')) return 0; /* a pointer */
  char buf[256];
  snprintf(buf, sizeof buf, "%s", ret);
  for (char *save = NULL, *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
    for (size_t k = 0; k < sizeof words / sizeof *words; k++)
      if (!strcmp(w, words[k])) return 1;
    size_t l = strlen(w);
    if (l > 2 && !strcmp(w + l - 2, "_t") && (!strncmp(w, "int", 3) || !strncmp(w, "uint", 4))) return 1;
  }
  return 0;
}

static const char *allowed(const char *name) {
  for (size_t k = 0; k < NALLOW; k++)
    if (!strcmp(cannot_fail[k].name, name)) return cannot_fail[k].why;
  return NULL;
}

/* The breaches of the rule in one header's text, appended to bad (one a
   line); the allow-listed names met are marked in seen. Returns their number. */
static int scan(const char *file, const char *text, char *bad, size_t badsz, int seen[NALLOW]) {
  char *t = normalized(text);
  int nbad = 0;
  for (char *p = strstr(t, "TOI_API "); p; p = strstr(p + 1, "TOI_API ")) {
    if (p > t && (isalnum((unsigned char)p[-1]) || p[-1] == '_')) continue;
    if (p - t >= 8 && !strncmp(p - 8, "#define ", 8)) continue; /* the macro itself */
    char *semi = strchr(p, ';'), *paren = strchr(p, '(');
    if (!semi || !paren || paren > semi) continue; /* a variable, or the macro's own definition */
    char decl[1024];
    snprintf(decl, sizeof decl, "%.*s", (int)(semi - p), p);
    /* the name: the identifier before the first parenthesis */
    char *end = paren;
    while (end > p && end[-1] == ' ') end--;
    char *start = end;
    while (start > p && (isalnum((unsigned char)start[-1]) || start[-1] == '_')) start--;
    char name[128], ret[256];
    snprintf(name, sizeof name, "%.*s", (int)(end - start), start);
    /* the return type: between TOI_API and the name, TOI_MUST_USE and const taken out */
    char head[256];
    snprintf(head, sizeof head, "%.*s", (int)(start - (p + 8)), p + 8);
    cr_assert_null(strchr(head, '#'), "%s: cannot read the declaration '%s'", file, decl);
    int must_use = 0;
    ret[0] = 0;
    for (char *save = NULL, *w = strtok_r(head, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
      if (!strcmp(w, "TOI_MUST_USE")) {
        must_use = 1;
        continue;
      }
      if (!strcmp(w, "const") || !strcmp(w, "struct") || !strcmp(w, "enum")) continue;
      size_t l = strlen(ret);
      snprintf(ret + l, sizeof ret - l, "%s%s", l ? " " : "", w);
    }
    char why[512] = "";
    if (is_integer_type(ret)) {
      const char *a = allowed(name);
      if (a) {
        for (size_t k = 0; k < NALLOW; k++) seen[k] |= !strcmp(cannot_fail[k].name, name);
      } else {
        snprintf(why, sizeof why, "returns %s: a function that can fail returns toi_status; one that cannot "
                                  "belongs in test_api_rules.c's list, with the reason", ret);
      }
    } else if (!strcmp(ret, "toi_status") && !must_use) {
      snprintf(why, sizeof why, "returns toi_status without TOI_MUST_USE");
    }
    /* a message buffer among the parameters: messages go to a toi_msg sink */
    for (const char *q = paren; !why[0] && (q = strstr(q, "char *")) != NULL && q < semi; q += 6) {
      int is_const = q - p >= 6 && !strncmp(q - 6, "const ", 6);
      const char *id = q + 6;
      static const char *const bufs[] = {"err", "msg", "why", "errbuf", "msgbuf", "error"};
      for (size_t k = 0; k < sizeof bufs / sizeof *bufs && !is_const; k++) {
        size_t l = strlen(bufs[k]);
        if (!strncmp(id, bufs[k], l) && !(isalnum((unsigned char)id[l]) || id[l] == '_'))
          snprintf(why, sizeof why, "takes a message buffer 'char *%s': say it through a const toi_msg *", bufs[k]);
      }
    }
    if (why[0]) {
      size_t l = strlen(bad);
      snprintf(bad + l, badsz - l, "%s: %s %s\n", file, name, why);
      nbad++;
    }
  }
  free(t);
  return nbad;
}

Test(api_rules, the_scan_finds_what_breaks_the_rule) {
  int seen[NALLOW] = {0};
  char bad[4096] = "";
  const char *ok = "/* TOI_API int toi_in_a_comment(void); */\n"
                   "TOI_API TOI_MUST_USE toi_status toi_open(toi_thing **out,\n   const char *path, const toi_msg *msg);\n"
                   "TOI_API const char *toi_name(int x);\nTOI_API double toi_len(const char *s);\n"
                   "TOI_API int toi_version(void);\n#define TOI_API __attribute__((visibility(\"default\")))\n";
  cr_assert_eq(scan("ok.h", ok, bad, sizeof bad, seen), 0, "%s", bad);
  cr_assert(seen[0], "toi_version is met");
  const char *broken = "TOI_API int toi_open(const char *path);\n"
                       "TOI_API size_t toi_count(const char *path);\n"
                       "TOI_API toi_status toi_close(toi_thing *t);\n"
                       "TOI_API TOI_MUST_USE toi_status toi_parse(const char *s, char *err, size_t errsz);\n"
                       "TOI_API unsigned long long toi_bits(double x);\nTOI_API uint64_t toi_hash(const char *s);\n";
  cr_assert_eq(scan("broken.h", broken, bad, sizeof bad, seen), 6, "%s", bad);
  cr_assert(strstr(bad, "toi_open returns int"), "%s", bad);
  cr_assert(strstr(bad, "toi_count returns size_t"), "%s", bad);
  cr_assert(strstr(bad, "toi_close returns toi_status without TOI_MUST_USE"), "%s", bad);
  cr_assert(strstr(bad, "toi_parse takes a message buffer 'char *err'"), "%s", bad);
}

/* Every public header follows the rule; every name of the list is still a
   public function returning an integer (a stale entry is an error too). */
Test(api_rules, public_headers_report_failure_by_status) {
  const char *dir = TOI_SOURCE_DIR "/include/toibench";
  DIR *d = opendir(dir);
  cr_assert_not_null(d, "%s", dir);
  int seen[NALLOW] = {0}, nbad = 0, nfiles = 0;
  static char bad[1 << 16];
  bad[0] = 0;
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    size_t l = strlen(e->d_name);
    if (l < 3 || strcmp(e->d_name + l - 2, ".h")) continue;
    int skip = 0;
    for (size_t k = 0; k < sizeof not_scanned / sizeof *not_scanned; k++) skip |= !strcmp(e->d_name, not_scanned[k]);
    if (skip) continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    char *text = cc_slurp(path, NULL);
    cr_assert_not_null(text, "%s", path);
    nbad += scan(e->d_name, text, bad, sizeof bad, seen);
    nfiles++;
    free(text);
  }
  closedir(d);
  cr_assert_geq(nfiles, 9, "the public headers are in %s", dir);
  cr_expect_eq(nbad, 0, "%d declarations break the one error style:\n%s", nbad, bad);
  for (size_t k = 0; k < NALLOW; k++)
    cr_expect(seen[k], "%s is listed as unable to fail (%s) but no public header declares it returning an integer",
              cannot_fail[k].name, cannot_fail[k].why);
}
