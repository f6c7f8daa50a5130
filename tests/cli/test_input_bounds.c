/* test_input_bounds.c: readers of sweep results keep the memory bounds they state, whatever the files claim. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli_check.h"
#include "sweep.h"
#include "tmp_dir.h"

/* Under AddressSanitizer freed memory is held in quarantine and every block
   has red zones: resident sizes say nothing of the program's own, so only
   the results are checked there. */
#if defined(__SANITIZE_ADDRESS__)
#define IB_SANITIZED 1
#else
#define IB_SANITIZED 0
#endif

TestSuite(input_bounds, .init = td_setup, .fini = td_teardown, .timeout = 120);

#define FORMS "ericson,robust,expanded,accurate,minkowski,inner-product,phet,gsl-stable"
#define NFORMS 8
#define NBINS 1000
#define SHARDS 16

/* merge adds each input to its sum as it is read: 16 shards take the memory
   of about two accumulators, as one does, not sixteen; and give the bytes of
   the whole sweep. */
Test(input_bounds, merge_memory_does_not_grow_with_its_inputs) {
  const char *sweep = "sweep grazing --count 2000 --k 1:1000 -f " FORMS " --quiet -j1";
  char cmd[1024], merge[1024] = "merge -o merged";
  snprintf(cmd, sizeof cmd, "%s -o whole", sweep);
  cr_assert_eq(td_tb(cmd), 0, "%s", cmd);
  for (int i = 1; i <= SHARDS; i++) {
    snprintf(cmd, sizeof cmd, "%s --shard %d/%d -o s%d", sweep, i, SHARDS, i);
    cr_assert_eq(td_tb(cmd), 0, "%s", cmd);
    size_t len = strlen(merge);
    snprintf(merge + len, sizeof merge - len, " s%d", SHARDS + 1 - i); /* in reverse order */
  }
  long one, all;
  cr_assert_eq(td_tb_rss("merge --partial -o single s1", &one), 0);
  cr_assert_eq(td_tb_rss(merge, &all), 0, "%s", merge);
  cr_assert(td_same_file(td_path("merged"), td_path("whole")), "the merged shards differ from the whole sweep");
  long acc_kb = (long)(NFORMS * NBINS * sizeof(sweep_cell) / 1024);
  if (!IB_SANITIZED)
    cr_assert_lt(all - one, 8 * acc_kb, "%d inputs: %ld KiB, one: %ld KiB (an accumulator: %ld KiB)", SHARDS, all,
                 one, acc_kb);
}

/* A header declaring the most cells (60 columns x 4096 bins, some 700 MB),
   then nothing: merge and compare refuse it as cut short, naming the file
   and the line, before taking that memory. */
Test(input_bounds, sweep_header_claims_no_memory_its_file_cannot_fill) {
  FILE *f = fopen(td_path("head.sw"), "w");
  cr_assert_not_null(f);
  fprintf(f, "%s\ngen family=grazing seed=1 dim=2 k=1:4096:1\ncount 4096\nrange 0 4096\nformulations",
          SWEEP_VERSION_LINE);
  for (int j = 0; j < 60; j++) fprintf(f, " f%d", j);
  fprintf(f, "\nbins %d\n", SWEEP_MAXBINS);
  fclose(f);
  const char *args[] = {"merge head.sw", "compare head.sw head.sw"};
  for (int i = 0; i < 2; i++) {
    long rss;
    int st = td_tb_rss(args[i], &rss);
    char *err = td_read("err");
    cr_assert_eq(st, 3, "%s: status %d: %s", args[i], st, err);
    cr_assert(strstr(err, "head.sw:6: 60 columns x 4096 bins") && strstr(err, "cut short"), "%s: %s", args[i], err);
    cr_assert_lt(rss, 100 * 1024, "%s: %ld KiB resident", args[i], rss);
    free(err);
  }
}

/* The commands that read a file whole state TOI_INPUT_MAX, the bound
   toi_read_file keeps (tests/core/test_caseio.c checks it), in their --help. */
Test(input_bounds, whole_file_readers_state_their_bound) {
  char bound[32];
  snprintf(bound, sizeof bound, "at most %zu bytes", (size_t)TOI_INPUT_MAX);
  const char *helps[] = {"solve --help", "report --help", "simulate --help"};
  for (size_t i = 0; i < sizeof helps / sizeof *helps; i++) {
    long rss;
    cr_assert_eq(td_tb_rss(helps[i], &rss), 0, "%s", helps[i]);
    char *out = td_read("out");
    char *flat = out; /* the help may break the phrase across lines */
    for (char *p = flat; *p; p++)
      if (*p == '\n') *p = ' ';
    for (char *p = flat, *q = flat; ; p++) { /* squeeze runs of blanks */
      if (*p == ' ' && q > flat && q[-1] == ' ') continue;
      if (!(*q++ = *p)) break;
    }
    cr_assert(strstr(flat, bound), "%s does not say '%s'", helps[i], bound);
    free(out);
  }
}
