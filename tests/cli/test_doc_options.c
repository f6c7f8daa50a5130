/* test_doc_options.c: the man page, the bash completion and each command's --help agree with the commands' option tables. */
#include <criterion/criterion.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "cli_check.h"
#include "tmp_dir.h"

#define MAXCMD 32

/* The commands, from `toibench --help` ("Commands:" then "  NAME  summary" lines). */
static int commands(char names[MAXCMD][32]) {
  cc_out *o = cc_run(NULL, "--help");
  cr_assert_eq(o->status, 0);
  int n = 0;
  char *p = strstr(o->out, "Commands:\n");
  cr_assert_not_null(p);
  for (p = strchr(p, '\n') + 1; p[0] == ' ' && p[1] == ' ' && n < MAXCMD; p = strchr(p, '\n') + 1) {
    sscanf(p, " %31s", names[n]);
    n++;
  }
  cr_assert_gt(n, 10, "commands listed by --help");
  return n;
}

static int in_table(const char *const *opts, size_t n, const char *o) {
  for (size_t i = 0; i < n; i++)
    if (!strcmp(opts[i], o)) return 1;
  return 0;
}

/* The options of a completion variable `_toibench_opts_CMD="..."`, space-separated into words. */
static int completion_opts(const char *text, const char *cmd, char words[64][40]) {
  char key[1100];
  snprintf(key, sizeof key, "\n_toibench_opts_%s=\"", cmd);
  const char *p = strstr(text, key);
  if (!p) return -1;
  p += strlen(key);
  int n = 0;
  while (*p && *p != '"' && n < 64) {
    int len = 0;
    while (p[len] && p[len] != ' ' && p[len] != '"') len++;
    snprintf(words[n++], 40, "%.*s", len, p);
    p += len;
    if (*p == ' ') p++;
  }
  return n;
}

/* The completion offers exactly each command's options, and knows every command. */
Test(doc_options, completion_equals_the_option_tables) {
  char names[MAXCMD][32];
  int nc = commands(names);
  char *comp = cc_slurp(TOI_SOURCE_DIR "/doc/toibench.bash-completion", NULL);
  for (int c = 0; c < nc; c++) {
    size_t n;
    const char *const *opts = cli_command_options(names[c], &n);
    cr_assert_not_null(opts, "%s has no option table (src/cli/suggest.c)", names[c]);
    char words[64][40];
    int nw = completion_opts(comp, names[c], words);
    cr_assert_geq(nw, 0, "no _toibench_opts_%s in doc/toibench.bash-completion", names[c]);
    for (int w = 0; w < nw; w++)
      cr_expect(in_table(opts, n, words[w]), "completion offers %s %s, which is not in its option table", names[c],
                words[w]);
    for (size_t i = 0; i < n; i++) {
      int found = 0;
      for (int w = 0; w < nw && !found; w++) found = !strcmp(words[w], opts[i]);
      cr_expect(found, "completion lacks %s %s", names[c], opts[i]);
    }
    char *list = strstr(comp, "\n_toibench_commands=\"");
    cr_assert_not_null(list);
    char word[1100];
    snprintf(word, sizeof word, " %s", names[c]);
    char *end = strchr(list + 1, '\n');
    *end = 0;
    cr_expect(strstr(list, word) || strstr(list, word + 1) == list + 21, "completion lacks the command %s", names[c]);
    *end = '\n';
  }
  free(comp);
}

/* Every option a command's table lists is accepted by the command (not "unknown", not "not supported")
   and named by its --help. */
Test(doc_options, every_table_option_is_accepted_and_in_help, .init = td_setup, .fini = td_teardown) {
  char names[MAXCMD][32];
  int nc = commands(names);
  for (int c = 0; c < nc; c++) {
    size_t n;
    const char *const *opts = cli_command_options(names[c], &n);
    char args[2200];
    snprintf(args, sizeof args, "%s --help", names[c]);
    cc_out *h = cc_run(NULL, args);
    cr_assert_eq(h->status, 0, "%s", args);
    char *help = strdup(h->out);
    for (size_t i = 0; i < n; i++) {
      cr_expect_not_null(strstr(help, opts[i]), "%s --help does not name %s", names[c], opts[i]);
      /* The option with a value, then an unknown option that stops the command
         before any work: the command may refuse the value, never the option. */
      snprintf(args, sizeof args, "%s %s 1 --no-such-option-zz", names[c], opts[i]);
      int st = td_tb(args);
      char *err = cc_slurp(td_path("err"), NULL), bad[1100];
      snprintf(bad, sizeof bad, "unknown option '%s'", opts[i]);
      cr_expect(st != 0 && !strstr(err, bad) && !strstr(err, "not supported"), "%s (exit %d): %s", args, st, err);
      free(err);
    }
    free(help);
  }
}

/* Every option the man page names in a command's entry is in that command's table. */
Test(doc_options, man_page_offers_only_table_options) {
  char names[MAXCMD][32];
  int nc = commands(names);
  char *man = cc_slurp(TOI_SOURCE_DIR "/doc/toibench.1", NULL);
  for (int c = 0; c < nc; c++) {
    char key[1100];
    snprintf(key, sizeof key, "\n.TP\n.B %s ", names[c]);
    char *p = strstr(man, key);
    if (!p) {
      snprintf(key, sizeof key, "\n.TP\n.B %s\n", names[c]);
      p = strstr(man, key);
    }
    cr_expect_not_null(p, "the man page has no entry for %s", names[c]);
    if (!p) continue;
    p += strlen(key);
    char *end = strstr(p, "\n.TP\n");
    char *sh = strstr(p, "\n.SH");
    if (!end || (sh && sh < end)) end = sh;
    size_t n;
    const char *const *opts = cli_command_options(names[c], &n);
    for (char *q = p; q < end; q++) {
      if (!(q[0] == '\\' && q[1] == '-' && q[2] == '\\' && q[3] == '-' && isalpha((unsigned char)q[4]))) continue;
      /* ".B run \-\-format json" in another command's entry names run's option, not this one's */
      char *bol = q;
      while (bol > man && bol[-1] != '\n') bol--;
      int other = 0;
      for (int d = 0; d < nc && !other; d++) {
        char lead[1100];
        snprintf(lead, sizeof lead, ".B %s \\-", names[d]);
        other = d != c && !strncmp(bol, lead, strlen(lead));
      }
      if (other) continue;
      char opt[48] = "--";
      size_t k = 2;
      for (q += 4; q < end && k < sizeof opt - 1 && (isalnum((unsigned char)*q) || (q[0] == '\\' && q[1] == '-'));) {
        if (*q == '\\') {
          opt[k++] = '-';
          q += 2;
        } else {
          opt[k++] = *q++;
        }
      }
      opt[k] = 0;
      cr_expect(in_table(opts, n, opt) || !strcmp(opt, "--help"), "the man page offers %s %s, which %s does not take",
                names[c], opt, names[c]);
    }
  }
  free(man);
}
