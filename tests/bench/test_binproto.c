/* test_binproto.c: the subprocess protocol's binary mode: negotiation, the same results as text, every malformed answer refused. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli_check.h"
#include "tmp_dir.h"

TestSuite(binproto, .init = td_setup, .fini = td_teardown);

#define CASES                                                                                                   \
  TOI_SOURCE_DIR "/cases/degenerate.cases " TOI_SOURCE_DIR "/cases/documents.cases " TOI_SOURCE_DIR             \
                 "/cases/regressions.cases " TOI_SOURCE_DIR "/cases/ties.cases gen.cases"

/* A run of bin_cmd in mode (its input of the last process kept in the file in.MODE, through tee) with the
   options opts: its stdout in out.MODE, its rows in rows.MODE. The exit status. */
static int run_mode(const char *mode, const char *opts, const char *files) {
  char args[4096];
  snprintf(args, sizeof args, "run %s --rows rows.%s --solver-cmd 'tee in.%s | %s %s' %s >out.%s", opts, mode, mode,
           cc_built("tests/solvers/bin_cmd"), mode, files, mode);
  return td_tb(args);
}

/* bin_cmd in mode (bin or bin64) gives the same tables and rows as in text, and spoke binary with records
   in precision rec. */
static void same_in_both_modes(const char *opts, const char *mode, const char *rec) {
  cr_assert_eq(td_tb("gen generic --count 3000 --dim 3 -o gen.cases"), 0);
  cr_assert_eq(run_mode("text", opts, CASES), 0); /* a NaN time (case huge) is counted, not fatal */
  cr_assert_eq(run_mode(mode, opts, CASES), 0);
  char in[32], out[32], rows_name[32], line[64];
  snprintf(in, sizeof in, "in.%s", mode);
  snprintf(out, sizeof out, "out.%s", mode);
  snprintf(rows_name, sizeof rows_name, "rows.%s", mode);
  snprintf(line, sizeof line, "\n# binary 1 %s\n", rec);
  char *in_text = td_read("in.text"), *in_bin = td_read(in);
  /* The offer, declined by silence: text throughout. Asked for: the last process spoke binary. */
  cr_assert(strstr(in_text, "\n# binary offered\n") && !strstr(in_text, "# binary 1"), "%.200s", in_text);
  cr_assert(strstr(in_bin, line), "the binary protocol was not used: %.200s", in_bin);
  cr_assert(td_same_file(td_path("out.text"), td_path(out)), "tables differ");
  cr_assert(td_same_file(td_path("rows.text"), td_path(rows_name)), "rows differ");
  char *rows = td_read(rows_name);
  cr_assert(strstr(rows, " hit hit "), "the rows hold answers");
  free(rows);
  free(in_text);
  free(in_bin);
}

Test(binproto, binary64_answers_equal_text_answers) { same_in_both_modes("", "bin", "binary64"); }

Test(binproto, binary32_answers_equal_text_answers) {
  same_in_both_modes("--solver-cmd-precision binary32", "bin", "binary32");
}

/* A binary32 solver may ask for binary64 records (its inputs still rounded to binary32). */
Test(binproto, binary32_solver_with_binary64_records) {
  same_in_both_modes("--solver-cmd-precision binary32", "bin64", "binary64");
}

/* A solver that does not know the binary mode (the example in text alone) is never sent a binary record. */
Test(binproto, a_solver_that_does_not_ask_gets_text) {
  char args[4096];
  snprintf(args, sizeof args, "run --solver-cmd 'tee in | %s --text' %s/cases/degenerate.cases >out",
           cc_built("examples/solver_c"), TOI_SOURCE_DIR);
  cr_assert_eq(td_tb(args), 0);
  char *in = td_read("in"), *out = td_read("out");
  cr_assert(!strstr(in, "# binary 1"), "%.200s", in);
  cr_assert(strstr(in, "c345-hit 2 "), "case lines: %.300s", in);
  cr_assert(strstr(out, "\nsolver_c "), "%s", out);
  free(in);
  free(out);
}

/* A mode of bin_cmd breaking the binary protocol on degenerate.cases: exit 1 and the message want on stderr. */
static void refused(const char *mode, const char *want) {
  char args[4096];
  snprintf(args, sizeof args, "run --solver-cmd '%s %s' %s/cases/degenerate.cases >out",
           cc_built("tests/solvers/bin_cmd"), mode, TOI_SOURCE_DIR);
  cr_assert_eq(td_tb(args), 1, "mode %s", mode);
  char *err = td_read("err");
  cr_assert(strstr(err, want), "mode %s: want '%s' in:\n%s", mode, want, err);
  free(err);
}

/* degenerate.cases has 19 cases; the second is c345-contact (its answer record 2). */
Test(binproto, short_record) {
  refused("short", "solver bin_cmd: case c345-contact: malformed answer: short record (16 of 32 bytes) "
                   "(answer record 2)");
  refused("short", "solver bin_cmd: case c345-leaving: no answer");
}

Test(binproto, bad_class_code) {
  refused("code", "solver bin_cmd: case c345-contact: malformed answer: unknown class code 9 (answer record 2)");
}

Test(binproto, count_mismatch) {
  refused("count", "solver bin_cmd: case c345-hit: malformed answer: the answer count is 18 for 19 cases");
}

Test(binproto, nan_target) {
  refused("nantarget", "solver bin_cmd: case c345-contact: malformed answer: a declared target or tolerance is "
                       "not finite (answer record 2)");
}

Test(binproto, unknown_flags) {
  refused("flags", "solver bin_cmd: case c345-contact: malformed answer: flags 0x4");
}

Test(binproto, bytes_after_the_trailer) {
  refused("trailing", "solver bin_cmd: 3 bytes after the answer trailer (binary protocol)");
}

Test(binproto, missing_trailer) {
  refused("notrailer", "solver bin_cmd: missing or short answer trailer (0 of 16 bytes, binary protocol)");
}

/* Each process crashes on its third record: a fresh one goes on in binary after the blamed case, so of 19
   cases 2, 5, 8, 11, 14, 17 (from 0) fail, 6 in all. */
Test(binproto, crash_restarts_in_binary) {
  char args[4096];
  snprintf(args, sizeof args, "run --rows rows --solver-cmd '%s crash' %s/cases/degenerate.cases >out",
           cc_built("tests/solvers/bin_cmd"), TOI_SOURCE_DIR);
  cr_assert_eq(td_tb(args), 1);
  char *err = td_read("err"), *out = td_read("out");
  cr_assert(strstr(err, "6 crash (first c345-leaving)"), "%s", err);
  cr_assert(strstr(out, "(6 failed)"), "%s", out);
  free(err);
  free(out);
}

/* The lines of the file name in the test's folder. */
static int lines_of(const char *name) {
  char *s = td_read(name);
  int n = 0;
  for (const char *p = s; *p; p++) n += *p == '\n';
  free(s);
  return n;
}

/* A binary solver's process serves every call of the run (one per file here): the process that answered
   the offer and one more, whatever the count of files. A solver that ends after a batch is started again
   for the next, with the same results. */
Test(binproto, one_process_serves_every_call) {
  cr_assert_eq(td_tb("gen generic --count 3000 --dim 3 -o gen.cases"), 0);
  char args[4096];
  const char *modes[] = {"text", "bin", "once"};
  for (int k = 0; k < 3; k++) {
    snprintf(args, sizeof args, "run --rows rows.%s --solver-cmd 'echo x >> starts.%s; exec %s %s' %s >out.%s",
             modes[k], modes[k], cc_built("tests/solvers/bin_cmd"), modes[k], CASES, modes[k]);
    cr_assert_eq(td_tb(args), 0, "%s", modes[k]);
  }
  cr_assert_eq(lines_of("starts.text"), 5, "a text process per call (5 files)");
  cr_assert_eq(lines_of("starts.bin"), 2, "the offer's process and one binary process");
  cr_assert_eq(lines_of("starts.once"), 6, "the offer's process and one binary process per call");
  for (int k = 1; k < 3; k++) {
    char rows[32], out[32];
    snprintf(rows, sizeof rows, "rows.%s", modes[k]);
    snprintf(out, sizeof out, "out.%s", modes[k]);
    cr_assert(td_same_file(td_path("rows.text"), td_path(rows)), "%s", modes[k]);
    cr_assert(td_same_file(td_path("out.text"), td_path(out)), "%s", modes[k]);
  }
}
