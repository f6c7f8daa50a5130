/* test_sweep_read.c: merge refuses sweep results cut short or edited, and still takes every result sweep writes. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "sweep.h"
#include "cli_check.h"
#include "rng.h"
#include "test_env.h"
#include "tmp_dir.h"

/* The sweep the damage is done to: every family of mixed (8 bins), forward
   formulations, a reverse one, one with a domain (overlap-recovery: its
   out-of-domain cases have confusion records), and a solver that declines the
   cases whose index ends in 5 (out of domain, without confusion records). */
static long count_of_sweep(void) { return 400 * te_scale(); }

static void write_declining_solver(void) {
  FILE *f = fopen(td_path("decl.sh"), "w");
  cr_assert_not_null(f);
  fprintf(f, "'%s' solve -f expanded - | sed -u 's/^\\([^ ]*5\\) .*/\\1 unsupported/'\n", TOIBENCH_PATH);
  fclose(f);
}

/* Sweeps `args` whole (-o whole) and in n shards (-o s1 .. sN). */
static void sweep_whole_and_shards(const char *args, int n) {
  char a[4096];
  snprintf(a, sizeof a, "sweep %s --quiet -o whole", args);
  cr_assert_eq(td_tb(a), 0, "%s", a);
  for (int i = 1; i <= n; i++) {
    snprintf(a, sizeof a, "sweep %s --quiet --shard %d/%d -o s%d", args, i, n, i);
    cr_assert_eq(td_tb(a), 0, "%s", a);
  }
}

static void sweep_main(void) {
  write_declining_solver();
  char args[512];
  snprintf(args, sizeof args,
           "mixed --count %ld -f ericson,accurate,phet-reverse,overlap-recovery --solver-cmd 'sh decl.sh'",
           count_of_sweep());
  sweep_whole_and_shards(args, 2);
}

/* ---- a result as lines, and damaged copies of it ---- */

typedef struct lines {
  char *text;   /* the file, '\n' replaced by NUL */
  char **line;  /* [n] */
  size_t n;
} lines;

static lines read_lines(const char *p) {
  lines t;
  size_t len;
  t.text = cc_slurp(p, &len);
  cr_assert(len > 0 && t.text[len - 1] == '\n', "%s: a result ends with a newline", p);
  t.n = 0;
  for (size_t i = 0; i < len; i++) t.n += t.text[i] == '\n';
  t.line = malloc(t.n * sizeof *t.line);
  cr_assert_not_null(t.line);
  char *s = t.text;
  for (size_t k = 0; k < t.n; k++) {
    char *e = strchr(s, '\n');
    *e = 0;
    t.line[k] = s;
    s = e + 1;
  }
  return t;
}

static void free_lines(lines *t) {
  free(t->line);
  free(t->text);
}

#define NONE SIZE_MAX

/* Writes the first `keep` lines of t to p, leaving out line `del`, writing
   line `dup` twice and line `sub` as `with` (NONE: no such change). */
static void write_lines(const char *p, const lines *t, size_t keep, size_t del, size_t dup, size_t sub,
                        const char *with) {
  FILE *f = fopen(p, "w");
  cr_assert_not_null(f);
  for (size_t k = 0; k < keep && k < t->n; k++) {
    if (k == del) continue;
    const char *l = k == sub ? with : t->line[k];
    fprintf(f, "%s\n", l);
    if (k == dup) fprintf(f, "%s\n", l);
  }
  cr_assert_eq(fclose(f), 0);
}

/* Line l with its field k (0-based, space separated) replaced by v. */
static void with_field(char *out, size_t n, const char *l, int k, const char *v) {
  const char *p = l;
  for (int i = 0; i < k && p; i++) {
    p = strchr(p, ' ');
    if (p) p++;
  }
  cr_assert_not_null(p);
  size_t flen = strcspn(p, " ");
  snprintf(out, n, "%.*s%s%s", (int)(p - l), l, v, p + flen);
}

static uint64_t field_u64(const char *l, int k) {
  const char *p = l;
  for (int i = 0; i < k; i++) p = strchr(p, ' ') + 1;
  return strtoull(p, NULL, 10);
}

static int is_record(const char *l) { return l[0] && l[0] != '#'; }

static int starts(const char *l, const char *tag) { return !strncmp(l, tag, strlen(tag)); }

/* ---- reading in this process: fast enough for every position ---- */

/* A message sink keeping each message as the CLI prints it ("toibench: TEXT\n"). */
typedef struct kept {
  char *text;
  size_t len;
} kept;

static void keep_message(void *ud, const char *text) {
  kept *k = ud;
  size_t n = strlen("toibench: \n") + strlen(text);
  k->text = realloc(k->text, k->len + n + 1);
  cr_assert_not_null(k->text);
  k->len += (size_t)snprintf(k->text + k->len, n + 1, "toibench: %s\n", text);
}

/* sweep_read on p, its messages kept in *msg (the caller frees it); the
   library itself must print nothing. 0 or -1. */
static int read_result(const char *p, char **msg) {
  const char *errp = td_path("read.err");
  fflush(stderr);
  int saved = dup(2), fd = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  cr_assert(saved >= 0 && fd >= 0);
  dup2(fd, 2);
  close(fd);
  sweep_meta m;
  sweep_acc a;
  kept k = {calloc(1, 1), 0};
  cr_assert_not_null(k.text);
  const toi_msg sink = {keep_message, &k};
  int rc = sweep_read(p, &m, &a, &sink);
  sweep_meta_free(&m);
  sweep_acc_free(&a);
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  char *printed = cc_read(errp);
  cr_assert_str_empty(printed, "sweep_read printed to stderr: %s", printed);
  free(printed);
  *msg = k.text;
  return rc;
}

/* 1 when p is refused with a message naming it ("toibench: P:"). */
static int refused(const char *p, const char *what) {
  char *msg, name[300];
  int rc = read_result(p, &msg);
  snprintf(name, sizeof name, "toibench: %s:", p);
  int ok = rc != 0 && strstr(msg, name) == msg;
  if (!ok) cr_log_error("%s: %s (read returned %d, said: %s)", p, what, rc, msg);
  free(msg);
  return ok;
}

static int accepted(const char *p) {
  char *msg;
  int rc = read_result(p, &msg);
  int ok = rc == 0 && !msg[0];
  if (!ok) cr_log_error("%s refused: %s", p, msg);
  free(msg);
  return ok;
}

/* ---- intact results ---- */

Test(sweep_read, intact_shards_merge_into_the_whole, .init = td_setup, .fini = td_teardown) {
  sweep_main();
  cr_assert(accepted(td_path("whole")));
  cr_assert(accepted(td_path("s1")));
  cr_assert(accepted(td_path("s2")));
  cr_assert_eq(td_tb("merge s2 s1 -o m"), 0);
  cr_assert(td_same_file(td_path("whole"), td_path("m")), "the merged shards differ from the whole sweep");
  cr_assert_eq(td_tb("merge whole -o m1"), 0);
  cr_assert(td_same_file(td_path("whole"), td_path("m1")), "a whole result read and written again differs");
}

/* Sweeps with a step, every formulation, one case and no case: three shards
   merge into the whole sweep's bytes. */
Test(sweep_read, every_kind_of_sweep_is_accepted, .init = td_setup, .fini = td_teardown) {
  static const char *const sweeps[] = {
      "grazing --count 300 --tmax 0.5 -f all",
      "near-contact --count 300 --dim 3 -f all",
      "tangent --count 200 -f phet-reverse,overlap-recovery,accurate",
      "scale --count 200 -f ericson --tmax 3",
      "mixed --count 1",
      "mixed --count 0",
  };
  for (size_t k = 0; k < sizeof sweeps / sizeof sweeps[0]; k++) {
    sweep_whole_and_shards(sweeps[k], 3);
    cr_assert(accepted(td_path("whole")), "%s", sweeps[k]);
    cr_assert_eq(td_tb("merge s3 s1 s2 -o m"), 0, "%s", sweeps[k]);
    cr_assert(td_same_file(td_path("whole"), td_path("m")), "%s: the merged shards differ from the whole sweep", sweeps[k]);
  }
}

/* ---- damage ---- */

Test(sweep_read, every_cut_is_refused, .init = td_setup, .fini = td_teardown) {
  sweep_main();
  lines t = read_lines(td_path("s1"));
  char d[256];
  snprintf(d, sizeof d, "%s", td_path("d")); /* td_path() reuses its buffers */
  /* At every line: the header, between blocks, inside one. */
  for (size_t keep = 0; keep < t.n; keep++) {
    write_lines(d, &t, keep, NONE, NONE, NONE, NULL);
    char what[64];
    snprintf(what, sizeof what, "the first %zu of %zu lines", keep, t.n);
    cr_assert(refused(d, what), "%s", what);
  }
  /* Inside a line, even where what is left still reads as a number. */
  size_t len;
  char *text = cc_slurp(td_path("s1"), &len);
  uint64_t seed = te_seed(0x5eed5eadu);
  toi_rng r;
  toi_rng_seed(&r, seed);
  for (long k = 0; k < 100 * te_scale(); k++) {
    size_t cut = (size_t)toi_rng_below(&r, len);
    if (cut > 0 && text[cut - 1] == '\n') continue; /* a line cut: done above */
    FILE *f = fopen(d, "w");
    cr_assert_not_null(f);
    fwrite(text, 1, cut, f);
    fclose(f);
    char what[64];
    snprintf(what, sizeof what, "cut after byte %zu", cut);
    cr_assert(refused(d, what), "%s (TOI_TEST_SEED=%" PRIu64 ")", what, seed);
  }
  free(text);
  free_lines(&t);
}

/* A sweep with no case leaves the last four blocks empty: only their column
   lines show that the file is complete. */
Test(sweep_read, empty_blocks_are_still_required, .init = td_setup, .fini = td_teardown) {
  cr_assert_eq(td_tb("sweep mixed --count 0 --quiet -o r"), 0);
  cr_assert(accepted(td_path("r")));
  lines t = read_lines(td_path("r"));
  char d[256];
  snprintf(d, sizeof d, "%s", td_path("d")); /* td_path() reuses its buffers */
  static const char *const tags[] = {"bin", "stat", "hist", "khist", "confusion", "witness"};
  size_t k = 0;
  for (size_t i = 0; i < sizeof tags / sizeof tags[0]; i++) {
    char col[32];
    snprintf(col, sizeof col, "# %s ", tags[i]);
    while (k < t.n && !starts(t.line[k], col)) k++;
    cr_assert_lt(k, t.n, "no '%s' line", col);
    write_lines(d, &t, k, NONE, NONE, NONE, NULL);
    char *msg;
    cr_assert_neq(read_result(d, &msg), 0, "cut before '%s'", col);
    char want[64];
    snprintf(want, sizeof want, "ends before the '# %s' column line", tags[i]);
    if (i > 0) cr_assert(strstr(msg, want), "cut before '%s': %s", col, msg);
    free(msg);
  }
  cr_assert_eq(k, t.n - 1, "the witness column line is the last line");
  free_lines(&t);
}

Test(sweep_read, every_deleted_or_repeated_record_is_refused, .init = td_setup, .fini = td_teardown) {
  sweep_main();
  lines t = read_lines(td_path("s1"));
  char d[256];
  snprintf(d, sizeof d, "%s", td_path("d")); /* td_path() reuses its buffers */
  size_t records = 0;
  for (size_t k = 0; k < t.n; k++) {
    if (!is_record(t.line[k])) continue;
    records++;
    char what[160];
    write_lines(d, &t, t.n, k, NONE, NONE, NULL);
    snprintf(what, sizeof what, "line %zu deleted: %.100s", k + 1, t.line[k]);
    cr_assert(refused(d, what), "%s", what);
    write_lines(d, &t, t.n, NONE, k, NONE, NULL);
    snprintf(what, sizeof what, "line %zu repeated: %.100s", k + 1, t.line[k]);
    cr_assert(refused(d, what), "%s", what);
  }
  cr_assert_gt(records, 100);
  free_lines(&t);
}

/* Every count field: bin CASES and classes, stat CASES .. TIMED and
   KAPPA_INF, histogram and confusion counts. */
static const struct {
  const char *tag;
  int lo, hi;
} count_fields[] = {
    {"bin ", 5, 5 + TOI_CLASS_COUNT}, {"stat ", 3, 10}, {"stat ", 15, 15},
    {"hist ", 6, 6},                  {"khist ", 6, 6}, {"confusion ", 5, 5},
};

Test(sweep_read, every_count_changed_is_refused, .init = td_setup, .fini = td_teardown) {
  sweep_main();
  lines t = read_lines(td_path("s1"));
  char d[256];
  snprintf(d, sizeof d, "%s", td_path("d")); /* td_path() reuses its buffers */
  size_t changes = 0;
  for (size_t k = 0; k < t.n; k++)
    for (size_t c = 0; c < sizeof count_fields / sizeof count_fields[0]; c++) {
      if (!starts(t.line[k], count_fields[c].tag)) continue;
      for (int f = count_fields[c].lo; f <= count_fields[c].hi; f++) {
        uint64_t v = field_u64(t.line[k], f);
        /* One more, one fewer, and 2^64 - 1 (which wraps any sum around). */
        const uint64_t to[3] = {v + 1, v - 1, UINT64_MAX};
        for (int i = 0; i < 3; i++) {
          if (i == 1 && v == 0) continue;
          char num[32], l[2048], what[2200];
          snprintf(num, sizeof num, "%" PRIu64, to[i]);
          with_field(l, sizeof l, t.line[k], f, num);
          write_lines(d, &t, t.n, NONE, NONE, k, l);
          snprintf(what, sizeof what, "line %zu field %d: %s", k + 1, f, l);
          cr_assert(refused(d, what), "%s", what);
          changes++;
        }
      }
    }
  cr_assert_gt(changes, 1000);
  free_lines(&t);
}

/* Through the command: exit status 3, no output, the damaged file named,
   and what is wrong said. */
Test(sweep_read, merge_refuses_each_damage, .init = td_setup, .fini = td_teardown) {
  sweep_main();
  lines t = read_lines(td_path("s1"));
  size_t first[6] = {NONE, NONE, NONE, NONE, NONE, NONE};
  static const char *const tags[6] = {"bin ", "stat ", "hist ", "khist ", "confusion ", "witness "};
  for (size_t k = 0; k < t.n; k++)
    for (int i = 0; i < 6; i++)
      if (first[i] == NONE && starts(t.line[k], tags[i])) first[i] = k;
  for (int i = 0; i < 6; i++) cr_assert_neq(first[i], NONE, "no '%s' record", tags[i]);
  size_t hist = first[2] + 1; /* a hist record that is not the block's first */
  cr_assert(starts(t.line[hist], "hist "));
  char num[32];
  snprintf(num, sizeof num, "%" PRIu64, field_u64(t.line[hist], 6) + 1);
  char plus1[2048];
  with_field(plus1, sizeof plus1, t.line[hist], 6, num);
  char huge[2048];
  with_field(huge, sizeof huge, t.line[hist], 6, "18446744073709551615");
  snprintf(num, sizeof num, "%" PRIu64, field_u64(t.line[first[1]], 10) + 1);
  char timed[2048];
  with_field(timed, sizeof timed, t.line[first[1]], 10, num);
  const struct {
    const char *what;
    size_t keep, del, dup, sub;
    const char *with, *says;
  } damage[] = {
      {"the first 200 lines", 200, NONE, NONE, NONE, NULL, ""},
      {"cut after the first confusion record", first[4] + 1, NONE, NONE, NONE, NULL,
       "ends before the '# witness' column line"},
      {"cut after the first witness record", first[5] + 1, NONE, NONE, NONE, NULL, "witness"},
      {"a bin line deleted", t.n, first[0], NONE, NONE, NULL, "no 'bin 0' record"},
      {"a stat line deleted", t.n, first[1], NONE, NONE, NULL, "record: the file is incomplete"},
      {"a hist line deleted", t.n, hist, NONE, NONE, NULL, "the hist counts sum to"},
      {"a khist line deleted", t.n, first[3], NONE, NONE, NULL, "the khist counts sum to"},
      {"a confusion line deleted", t.n, first[4], NONE, NONE, NULL, "confusion"},
      {"a witness line deleted", t.n, first[5], NONE, NONE, NULL, "witness"},
      {"a hist line repeated", t.n, NONE, hist, NONE, NULL, "a second 'hist "},
      {"a hist count + 1", t.n, NONE, NONE, hist, plus1, "the hist counts sum to"},
      {"a hist count 2^64 - 1", t.n, NONE, NONE, hist, huge, "overflow"},
      {"TIMED + 1", t.n, NONE, NONE, first[1], timed, "not TIMED"},
  };
  for (size_t i = 0; i < sizeof damage / sizeof damage[0]; i++) {
    write_lines(td_path("d"), &t, damage[i].keep, damage[i].del, damage[i].dup, damage[i].sub, damage[i].with);
    cr_assert_eq(td_tb("merge d s2 -o out"), 3, "%s", damage[i].what);
    cr_assert(!td_exists(td_path("out")), "%s: nothing is written", damage[i].what);
    char *err = cc_read(td_path("err"));
    cr_assert(strstr(err, "toibench: d:"), "%s: the message names the file: %s", damage[i].what, err);
    cr_assert(strstr(err, damage[i].says), "%s: the message says '%s': %s", damage[i].what, damage[i].says, err);
    free(err);
  }
  /* Cut inside the last line: what is left of its last field may still read as a number. */
  size_t len;
  char *text = cc_slurp(td_path("s1"), &len);
  FILE *f = fopen(td_path("d"), "w");
  cr_assert_not_null(f);
  fwrite(text, 1, len - 2, f);
  fclose(f);
  free(text);
  cr_assert_eq(td_tb("merge s2 d -o out"), 3);
  cr_assert(!td_exists(td_path("out")));
  char *err = cc_read(td_path("err"));
  cr_assert(strstr(err, "toibench: d:"), "%s", err);
  cr_assert(strstr(err, "cut short"), "%s", err);
  free(err);
  free_lines(&t);
  /* A file that cannot be read is a runtime error (exit 1), as for every
     command: a directory, a missing file. */
  cr_assert_eq(mkdir(td_path("adir"), 0700), 0);
  cr_assert_eq(td_tb("merge adir s2 -o out"), 1);
  cr_assert(!td_exists(td_path("out")));
  err = cc_read(td_path("err"));
  cr_assert(strstr(err, "adir: is a directory"), "%s", err);
  free(err);
  cr_assert_eq(td_tb("merge s1 no-such-file -o out"), 1);
  cr_assert(!td_exists(td_path("out")));
  /* The intact shards still merge. */
  cr_assert_eq(td_tb("merge s1 s2 -o out"), 0);
  cr_assert(td_same_file(td_path("whole"), td_path("out")));
}

/* A message quoting a long token from the file keeps it whole (the CLI printed it whole before the sink). */
Test(sweep_read, a_long_token_is_quoted_whole, .init = td_setup, .fini = td_teardown) {
  const char *p = td_path("long");
  FILE *f = fopen(p, "w");
  cr_assert_not_null(f);
  char tok[6001];
  memset(tok, '7', 6000);
  tok[0] = 'x';
  tok[6000] = 0;
  fprintf(f, "%s\ngen family=grazing\ncount %s\n", "# toibench-sweep v1", tok);
  cr_assert_eq(fclose(f), 0);
  char *msg, want[7000];
  cr_assert_neq(read_result(p, &msg), 0);
  snprintf(want, sizeof want, "toibench: %s:3: not a count: '%s'\n", p, tok);
  cr_assert_str_eq(msg, want);
  free(msg);
}
