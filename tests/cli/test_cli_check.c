/* test_cli_check.c: the shell-free command runner of the end-to-end tests (cc_which, cc_pipe, cc_cmd). */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli_check.h"
#include "tmp_dir.h"

TestSuite(cli_check, .init = td_setup, .fini = td_teardown);

Test(cli_check, which_searches_path_in_order) {
  char buf[4200];
  cr_assert_null(cc_which("no-such-program-toibench", buf, sizeof buf));
  /* a name with a slash is itself, when executable */
  cr_assert_str_eq(cc_which(TOIBENCH_PATH, buf, sizeof buf), TOIBENCH_PATH);
  cr_assert_null(cc_which(td_path("nothing"), buf, sizeof buf));
  const char *sh = cc_which("sh", buf, sizeof buf);
  cr_assert_not_null(sh);
  cr_assert_eq(strcmp(sh + strlen(sh) - 3, "/sh"), 0, "%s", sh);
  cr_assert_eq(access(sh, X_OK), 0);
}

Test(cli_check, which_skips_directories_and_plain_files) {
  char buf[4200], path[400], *old = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
  cr_assert_eq(mkdir(td_path("d1"), 0755), 0);
  cr_assert_eq(mkdir(td_path("d1/prog"), 0755), 0); /* a directory named prog */
  cr_assert_eq(mkdir(td_path("d2"), 0755), 0);
  td_put("d2/prog", "not executable");
  cr_assert_eq(mkdir(td_path("d3"), 0755), 0);
  td_put("d3/prog", "#!/bin/false\n");
  cr_assert_eq(chmod(td_path("d3/prog"), 0755), 0);
  snprintf(path, sizeof path, "%s/d1:%s/d2:%s/d3", td_dir, td_dir, td_dir);
  setenv("PATH", path, 1);
  const char *got = cc_which("prog", buf, sizeof buf);
  char want[400];
  snprintf(want, sizeof want, "%s/d3/prog", td_dir);
  if (old) setenv("PATH", old, 1);
  free(old);
  cr_assert_not_null(got);
  cr_assert_str_eq(got, want);
}

Test(cli_check, pipeline_status_is_the_last_commands) {
  cc_job job = {td_dir, 0, {0}};
  const char *const ft[] = {"false", "true"}, *const tf[] = {"true", "false"};
  cr_assert_eq(cc_pipe(&job, 2, ft), 0);
  cr_assert_eq(job.status[0], 1);
  cr_assert_eq(job.status[1], 0);
  cr_assert_eq(cc_pipe(&job, 2, tf), 1);
  cr_assert_eq(job.status[0], 0);
  cr_assert_eq(cc_cmd(td_dir, "no-such-program-toibench --help"), 127, "a missing program is 127, as in a shell");
  cr_assert_eq(cc_cmd(td_dir, "true <no-such-file"), 126, "a failed redirection stops the command");
}

Test(cli_check, words_quotes_and_pipes_carry_the_bytes) {
  td_put("in", "b 2\na 1\nb 2\nc 3\n");
  cc_job job = {td_dir, 0, {0}};
  const char *const p[] = {"cat in", "sort", "uniq", "wc -l >n"};
  cr_assert_eq(cc_pipe(&job, 4, p), 0);
  char *n = td_read("n");
  cr_assert_eq(strtol(n, NULL, 10), 3, "%s", n);
  free(n);
  /* quoted words reach the program whole, spaces, $ and the other quote included */
  cr_assert_eq(cc_cmd(td_dir, "awk '{ print $2 \"x y\" }' in >o"), 0);
  char *o = td_read("o");
  cr_assert_str_eq(o, "2x y\n1x y\n2x y\n3x y\n");
  free(o);
  cr_assert_eq(cc_cmd(td_dir, "printf %s| \"it's\" 'a \"b\"' x' 'y >q"), 0);
  o = td_read("q");
  cr_assert_str_eq(o, "it's|a \"b\"|x y|");
  free(o);
  /* stdin from a file, and /dev/null when none is given */
  cr_assert_eq(cc_cmd(td_dir, "cat <in >o2"), 0);
  cr_assert(td_same_file(td_path("in"), td_path("o2")));
  cr_assert_eq(cc_cmd(td_dir, "cat >o3"), 0);
  o = td_read("o3");
  cr_assert_str_eq(o, "");
  free(o);
}

Test(cli_check, redirections_apply_in_order) {
  cc_job job = {td_dir, 0, {0}};
  /* stderr to the pipe, then stdout away: only the message goes through */
  const char *const a[] = {"ls . no-such-entry 2>&1 >/dev/null", "wc -l >n"};
  cr_assert_eq(cc_pipe(&job, 2, a), 0);
  cr_assert_neq(job.status[0], 0);
  char *n = td_read("n");
  cr_assert_eq(strtol(n, NULL, 10), 1, "%s", n);
  free(n);
  /* stdout away, then stderr where stdout now is: nothing goes through */
  const char *const b[] = {"ls . no-such-entry >/dev/null 2>&1", "wc -l >n"};
  cr_assert_eq(cc_pipe(&job, 2, b), 0);
  n = td_read("n");
  cr_assert_eq(strtol(n, NULL, 10), 0, "%s", n);
  free(n);
  cr_assert_eq(cc_cmd(td_dir, "ls no-such-entry 2> e"), 2);
  n = td_read("e");
  cr_assert(strstr(n, "no-such-entry"), "%s", n);
  free(n);
}

Test(cli_check, assignments_directory_and_limit) {
  cr_assert_eq(cc_cmd(td_dir, "TOI_A=1 TOI_B='x y' env >e"), 0);
  char *e = td_read("e");
  cr_assert(strstr(e, "TOI_A=1\n") && strstr(e, "TOI_B=x y\n"), "%s", e);
  cr_assert_null(getenv("TOI_A"), "the test's own environment is left alone");
  free(e);
  cr_assert_eq(cc_cmd(td_dir, "pwd >w"), 0);
  char *w = td_read("w"), real[PATH_MAX];
  cr_assert_not_null(realpath(td_dir, real));
  cr_assert(!strncmp(w, real, strlen(real)) && !strcmp(w + strlen(real), "\n"), "%s vs %s", w, real);
  free(w);
  if (getenv("ASAN_OPTIONS")) return;
  /* 4 MiB of address space is too little for toibench to start */
  char cmd[4300];
  snprintf(cmd, sizeof cmd, "'%s' --help >/dev/null 2>&1", TOIBENCH_PATH);
  cc_job job = {td_dir, 4096, {0}};
  const char *const line[] = {cmd};
  cr_assert_neq(cc_pipe(&job, 1, line), 0);
  job.vmem_kb = 0;
  cr_assert_eq(cc_pipe(&job, 1, line), 0);
}
