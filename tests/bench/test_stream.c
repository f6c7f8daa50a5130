/* test_stream.c: the streamed commands: the same bytes for any -j and as the whole-file path, blocks, duplicates, stdin, late errors. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench.h"
#include "case_stream_tune.h"
#include "gen.h"
#include "stats.h"
#include "stream.h"
#include "tmp_dir.h"
#include "toi.h"
#include "toiref.h"
#include "ref_forms.h"

TestSuite(stream, .init = td_setup, .fini = td_teardown);

/* Cases 0 .. n-1 of the mixed family written to name; dup >= 0 gives case
   dup_at the ID of case dup. */
static void write_mixed(const char *name, size_t n, long dup, size_t dup_at) {
  toi_gen_opts g;
  toi_gen_opts_default(&g, TOI_GEN_MIXED);
  FILE *f = fopen(td_path(name), "w");
  cr_assert_not_null(f);
  fprintf(f, "# a comment line, and a blank one\n\n");
  toi_case first = {0};
  for (size_t i = 0; i < n; i++) {
    toi_case c;
    size_t bin;
    cr_assert_eq(toi_gen_case(&c, NULL, &bin, &g, i), TOI_OK);
    if (dup >= 0 && i == (size_t)dup) first = c;
    if (dup >= 0 && i == dup_at) memcpy(c.id, first.id, sizeof c.id);
    cr_assert_eq(toi_write_case(f, &c), TOI_OK);
  }
  fclose(f);
}

static void put_hex(FILE *f, double x) {
  if (x != x) fputs("nan", f);
  else fprintf(f, "%a", x);
}

/* The cases of the file name, read whole (the library's reader), which must
   accept it. */
static toi_caselist read_whole(const char *name) {
  toi_caselist l = {0};
  toi_diags dg;
  memset(&dg, 0, sizeof dg);
  cr_assert_eq(toi_read_cases(&l, td_path(name), &dg), TOI_OK, "%s", name);
  return l;
}

/* The expected output of `reference`, computed case by case with the
   library's unbatched reference on the cases toi_read_cases gives. */
static void expected_reference(const char *in, const char *out) {
  toi_caselist l = read_whole(in);
  FILE *f = fopen(td_path(out), "w");
  for (size_t i = 0; i < l.count; i++) {
    toi_ref r;
    cr_assert_eq(tr_solve(&r, &l.items[i]), TOI_OK);
    fprintf(f, "%s %s ", l.items[i].id, toi_class_name(r.cls));
    put_hex(f, r.tlo);
    fputc(' ', f);
    put_hex(f, r.thi);
    fputc('\n', f);
  }
  fclose(f);
  toi_caselist_free(&l);
}

/* reference on n cases with -j 1, 2 and 3: each the independent output. */
static void check_reference(size_t n) {
  write_mixed("c.txt", n, -1, 0);
  expected_reference("c.txt", "want.txt");
  const char *js[] = {"-j1", "-j 2", "-j3"};
  for (int k = 0; k < 3; k++) {
    char cmd[128];
    snprintf(cmd, sizeof cmd, "reference %s c.txt >got.txt", js[k]);
    cr_assert_eq(td_tb(cmd), 0, "%s", cmd);
    cr_assert(td_same_file(td_path("got.txt"), td_path("want.txt")), "%s on %zu cases", cmd, n);
  }
}

/* Blocks hold 1024 cases for these -j (a reference's block; run's hold 4096
   with one candidate): a file of exactly one block, one more, and more than a
   round of blocks. */
Test(stream, reference_same_bytes_at_block_boundaries) {
  check_reference(1024);
  check_reference(1025);
  check_reference(4096);
  check_reference(4097);
  check_reference(7 * 1024 + 5);
}

Test(stream, reference_small_file) {
  check_reference(1);
}

/* A duplicate ID in a later block is found, with both lines named. */
Test(stream, duplicate_id_across_blocks) {
  write_mixed("d.txt", 9000, 3, 8500);
  cr_assert_eq(td_tb("reference -j2 d.txt >got.txt"), 3);
  char *err = td_read("err"), *out = td_read("got.txt");
  /* two header lines: case i is on line i + 3 */
  cr_assert_not_null(strstr(err, "d.txt:8503: field 1 (id): duplicate ID"), "%s", err);
  cr_assert_not_null(strstr(err, "(first on line 6)"), "%s", err);
  cr_assert_eq(strlen(out), 0);
  free(err);
  free(out);
}

/* A bad line after 5000 good ones: nothing on stdout, the line named. */
Test(stream, late_bad_line_leaves_stdout_empty) {
  write_mixed("b.txt", 5000, -1, 0);
  FILE *f = fopen(td_path("b.txt"), "a");
  fputs("late 2 1 2 3\n", f);
  fclose(f);
  const char *cmds[] = {"reference b.txt >got.txt", "reference -j1 b.txt >got.txt", "reference -j3 b.txt >got.txt"};
  for (int k = 0; k < 3; k++) {
    cr_assert_eq(td_tb(cmds[k]), 3, "%s", cmds[k]);
    char *err = td_read("err"), *out = td_read("got.txt");
    cr_assert_eq(strlen(out), 0, "%s wrote %zu bytes", cmds[k], strlen(out));
    cr_assert_not_null(strstr(err, "b.txt:5003: field 6 (vA.y): missing"), "%s", err);
    free(err);
    free(out);
  }
  cr_assert_eq(td_tb("reference -o o.txt b.txt"), 3);
  cr_assert(!td_exists(td_path("o.txt")));
}

/* A NUL byte late in the file: that problem alone, as the whole-file reader says. */
Test(stream, late_nul_byte) {
  write_mixed("n.txt", 5000, 2, 10);
  FILE *f = fopen(td_path("n.txt"), "a");
  fputs("x 2 ", f);
  fputc(0, f);
  fputc('\n', f);
  fclose(f);
  cr_assert_eq(td_tb("reference n.txt >got.txt"), 3);
  char *err = td_read("err");
  cr_assert_not_null(strstr(err, "n.txt:5003: NUL byte in the file"), "%s", err);
  cr_assert_null(strstr(err, "duplicate"), "%s", err);
  free(err);
}

/* The problems the stream reports for a file, formatted, one a line. */
/* The whole-file reader's status and problems for path, in
   stream_problems's form; returns how many problems it found. */
static size_t whole_file_problems(const char *path, char *want, size_t wantsz) {
  toi_caselist l = {0};
  toi_diags dg;
  memset(&dg, 0, sizeof dg);
  toi_status st = toi_read_cases(&l, path, &dg);
  toi_caselist_free(&l);
  size_t k = (size_t)snprintf(want, wantsz, "status %d\n", (int)st);
  for (size_t i = 0; i < dg.count && k + 1 < wantsz; i++) {
    toi_diag_format(&dg.items[i], want + k, wantsz - k);
    k += strlen(want + k);
    if (k + 1 >= wantsz) break;
    want[k++] = '\n';
    want[k] = '\0';
  }
  return dg.total;
}

/* With the in-memory ID set's hash and bound replaced (tune). */
/* The file's problems as its stream reports them at close; before close,
   toi_case_stream_check_ids is called on parts [first, nparts) (step 2 when
   odd: every other part) of nparts, or not at all (nparts 0). */
static void stream_problems_checked(const char *path, int tune, uint64_t (*hash)(const char *, size_t),
                                    size_t mem_ids, unsigned nparts, int odd, int hashed, char *out, size_t outsz) {
  toi_diags dg;
  memset(&dg, 0, sizeof dg);
  toi_case_stream *s;
  cr_assert_eq(toi_case_stream_open(&s, path, &dg), TOI_OK);
  if (tune) toi_case_stream_tune(s, hash, mem_ids);
  toi_line_block b;
  memset(&b, 0, sizeof b);
  uint64_t *h = hashed ? malloc(1000 * sizeof *h) : NULL;
  cr_assert(!hashed || h);
  while (toi_case_stream_read(s, &b, 1000, (size_t)1 << 20) == TOI_OK && b.n) {
    toi_line_block_parse(&b);
    if (hashed) {
      /* each hash is the set's function of its ID, as the plain accept makes it */
      toi_case_stream_hash_ids(s, &b, h);
      for (size_t i = 0; i < b.n; i++)
        if (b.ok[i] && hash) cr_assert_eq(h[i], hash(b.cases[i].id, strlen(b.cases[i].id)), "line %ld", b.line[i]);
    }
    toi_status ast = hashed ? toi_case_stream_accept_hashed(s, &b, h, &dg) : toi_case_stream_accept(s, &b, &dg);
    if (ast != TOI_OK) break;
  }
  free(h);
  for (unsigned part = (unsigned)odd; part < nparts; part += 1 + (unsigned)odd)
    cr_assert_eq(toi_case_stream_check_ids(s, part, nparts), 0);
  toi_status st = toi_case_stream_close(s, &dg);
  toi_line_block_free(&b);
  size_t k = (size_t)snprintf(out, outsz, "status %d\n", (int)st);
  for (size_t i = 0; i < dg.count && k < outsz; i++) {
    toi_diag_format(&dg.items[i], out + k, outsz - k);
    k += strlen(out + k);
    if (k + 1 < outsz) out[k++] = '\n', out[k] = '\0';
  }
}

/* The same problems, which must not depend on the ID check before close:
   none, every part of one or of two, every other part of three (the rest
   left to close); nor on whether the IDs' hashes were made beside the
   blocks' work (toi_case_stream_hash_ids, toi_case_stream_accept_hashed). */
static void stream_problems_tuned(const char *path, int tune, uint64_t (*hash)(const char *, size_t), size_t mem_ids,
                                  char *out, size_t outsz) {
  static const unsigned ways[][2] = {{1, 0}, {2, 0}, {3, 1}};
  stream_problems_checked(path, tune, hash, mem_ids, 0, 0, 0, out, outsz);
  char *other = malloc(outsz);
  cr_assert_not_null(other);
  for (int hashed = 0; hashed <= 1; hashed++)
    for (size_t w = 0; w < sizeof ways / sizeof *ways; w++) {
      stream_problems_checked(path, tune, hash, mem_ids, ways[w][0], (int)ways[w][1], hashed, other, outsz);
      cr_assert_str_eq(other, out, "%s: checked in %u parts%s before close%s", path, ways[w][0],
                       ways[w][1] ? " (odd ones)" : "", hashed ? ", hashed beside the work" : "");
    }
  stream_problems_checked(path, tune, hash, mem_ids, 0, 0, 1, other, outsz);
  cr_assert_str_eq(other, out, "%s: hashed beside the work", path);
  free(other);
}

static void stream_problems(const char *path, char *out, size_t outsz) {
  stream_problems_tuned(path, 0, NULL, 0, out, outsz);
}

/* A NUL byte on each side of the reader's first read (256 KiB) and of its
   first megabyte, and in a line that spans either: the same report as the
   whole-file reader's, which names the line (lines of 100 bytes, the NUL at
   byte `at` of the file). */
Test(stream, nul_byte_around_the_first_read) {
  static const long at[] = {10,      262043,  262143,  262144,  262145,  262200,  262244, 524288,
                            1048475, 1048575, 1048576, 1048577, 1048600, 1048676, 2097152, 3000000};
  for (size_t t = 0; t < sizeof at / sizeof *at; t++) {
    FILE *f = fopen(td_path("z.txt"), "w");
    cr_assert_not_null(f);
    for (long i = 0; i * 100 < 3100000; i++) {
      char line[101];
      int n = snprintf(line, sizeof line, "c%ld 2 1 2 3 4 0.5 1 5 6 7 8 0.5 1", i);
      memset(line + n, ' ', 99 - (size_t)n); /* trailing blanks are allowed */
      line[99] = '\n';
      if (at[t] / 100 == i) line[at[t] % 100] = '\0';
      fwrite(line, 1, 100, f);
    }
    fclose(f);
    char got[4096], want[4096];
    stream_problems(td_path("z.txt"), got, sizeof got);
    (void)whole_file_problems(td_path("z.txt"), want, sizeof want);
    cr_assert_str_eq(got, want, "NUL at byte %ld", at[t]);
    char line_no[32];
    snprintf(line_no, sizeof line_no, ":%ld: NUL byte", at[t] / 100 + 1);
    cr_assert_not_null(strstr(got, line_no), "NUL at byte %ld: %s", at[t], got);
  }
}

/* Enough IDs that the duplicate finder keeps most of them in its temporary
   file, of every length from 1 to TOI_ID_MAX, with some repeated (the same
   ID of any length, and IDs that differ only in length or in a byte past
   the eighth): the same report as the whole-file reader's. */
Test(stream, duplicate_ids_of_every_length_in_a_large_file) {
  FILE *f = fopen(td_path("ids.txt"), "w");
  cr_assert_not_null(f);
  char id[TOI_ID_MAX + 1];
  const long n = 150000;
  for (long i = 0; i < n; i++) {
    long src = i % 997 == 5 ? i / 3 : i; /* a repeat of an earlier line's ID */
    int len = snprintf(id, sizeof id, "%lx", (unsigned long)src);
    int want = 1 + (int)((src * 7) % TOI_ID_MAX);
    for (; len < want; len++) id[len] = len % 9 == 8 ? 'z' : '_';
    id[len] = '\0';
    fprintf(f, "%s 2 1 2 3 4 0.5 1 5 6 7 8 0.5 1\n", id);
  }
  fclose(f);
  char got[8192], want[8192];
  stream_problems(td_path("ids.txt"), got, sizeof got);
  size_t total = whole_file_problems(td_path("ids.txt"), want, sizeof want);
  cr_assert_str_eq(got, want);
  /* line 6 repeats line 2's ID: "1", 1 + 7 characters long */
  cr_assert_not_null(strstr(got, ":6: field 1 (id): duplicate ID '1_______' (first on line 2)"), "%s", got);
  size_t dups = 0; /* a repeat is one when the line it copies has its own ID */
  for (long i = 5; i < n; i += 997) dups += (i / 3) % 997 != 5;
  cr_assert_eq(total, dups, "%zu duplicates, %zu expected", total, dups);
}

/* Hashes for the in-memory ID set that collide on purpose: every ID alike,
   or just 'alpha' and 'beta' (the others by their first bytes). */
static uint64_t hash_all_alike(const char *id, size_t len) {
  (void)id;
  (void)len;
  return 0x5a5a5a5a5a5a5a5aull;
}

static uint64_t hash_alpha_beta(const char *id, size_t len) {
  if ((len == 5 && !memcmp(id, "alpha", 5)) || (len == 4 && !memcmp(id, "beta", 4))) return 42;
  uint64_t h = len;
  for (size_t i = 0; i < len; i++) h = h * 0x100000001b3ull ^ (unsigned char)id[i];
  return h | 0x8000000000000000ull; /* never 42 */
}

static void write_ids(const char *name, const char *const *ids, size_t n) {
  FILE *f = fopen(td_path(name), "w");
  cr_assert_not_null(f);
  for (size_t i = 0; i < n; i++) fprintf(f, "%s 2 1 2 3 4 0.5 1 5 6 7 8 0.5 1\n", ids[i]);
  fclose(f);
}

/* Two IDs of the same 64-bit hash are not duplicates; a real duplicate among
   IDs whose hashes collide is named exactly, with its first line. */
Test(stream, duplicate_ids_with_colliding_hashes) {
  const char *two[] = {"alpha", "beta", "gamma"};
  write_ids("c1.txt", two, 3);
  char got[4096];
  stream_problems_tuned(td_path("c1.txt"), 1, hash_alpha_beta, 1000, got, sizeof got);
  cr_assert_str_eq(got, "status 0\n");
  stream_problems_tuned(td_path("c1.txt"), 1, hash_all_alike, 1000, got, sizeof got);
  cr_assert_str_eq(got, "status 0\n");
  const char *dup[] = {"alpha", "beta", "gamma", "beta", "delta", "alpha"};
  write_ids("c2.txt", dup, 6);
  const char *want = "status 3\n"
                     "%s:4: field 1 (id): duplicate ID 'beta' (first on line 2)\n"
                     "%s:6: field 1 (id): duplicate ID 'alpha' (first on line 1)\n";
  char exp[4096];
  snprintf(exp, sizeof exp, want, td_path("c2.txt"), td_path("c2.txt"));
  stream_problems_tuned(td_path("c2.txt"), 1, hash_alpha_beta, 1000, got, sizeof got);
  cr_assert_str_eq(got, exp);
  stream_problems_tuned(td_path("c2.txt"), 1, hash_all_alike, 1000, got, sizeof got);
  cr_assert_str_eq(got, exp);
  /* with a bad line too: the bad line and the duplicates in line order */
  FILE *f = fopen(td_path("c3.txt"), "w");
  fprintf(f, "alpha 2 1 2 3 4 0.5 1 5 6 7 8 0.5 1\nbeta 2 x\nbeta 2 1 2 3 4 0.5 1 5 6 7 8 0.5 1\n"
             "alpha 2 1 2 3 4 0.5 1 5 6 7 8 0.5 1\n");
  fclose(f);
  char whole[4096];
  (void)whole_file_problems(td_path("c3.txt"), whole, sizeof whole);
  stream_problems_tuned(td_path("c3.txt"), 1, hash_all_alike, 1000, got, sizeof got);
  cr_assert_str_eq(got, whole);
  cr_assert_not_null(strstr(got, ":4: field 1 (id): duplicate ID 'alpha' (first on line 1)"), "%s", got);
  cr_assert_null(strstr(got, "'beta'"), "%s", got);
}

/* Past the in-memory bound the IDs go to the spill: duplicates among those,
   and between one kept in memory and one spilled, are still found. */
Test(stream, duplicate_ids_past_the_memory_bound) {
  const char *ids[] = {"a", "b", "c", "d", "e", "f", "b", "g", "f", "h", "a"};
  write_ids("b.txt", ids, 11);
  char exp[4096], got[4096];
  const char *p = td_path("b.txt");
  snprintf(exp, sizeof exp,
           "status 3\n%s:7: field 1 (id): duplicate ID 'b' (first on line 2)\n"
           "%s:9: field 1 (id): duplicate ID 'f' (first on line 6)\n"
           "%s:11: field 1 (id): duplicate ID 'a' (first on line 1)\n",
           p, p, p);
  for (size_t bound = 0; bound <= 12; bound++) {
    stream_problems_tuned(p, 1, NULL, bound, got, sizeof got);
    cr_assert_str_eq(got, exp, "bound %zu", bound);
  }
  /* only spilled IDs repeat (the first three in memory, unrepeated) */
  const char *late[] = {"a", "b", "c", "d", "e", "d", "f", "e"};
  write_ids("l.txt", late, 8);
  p = td_path("l.txt");
  snprintf(exp, sizeof exp,
           "status 3\n%s:6: field 1 (id): duplicate ID 'd' (first on line 4)\n"
           "%s:8: field 1 (id): duplicate ID 'e' (first on line 5)\n",
           p, p);
  stream_problems_tuned(p, 1, NULL, 3, got, sizeof got);
  cr_assert_str_eq(got, exp);
  /* no duplicate at all, the bound passed */
  const char *none[] = {"a", "b", "c", "d", "e", "f"};
  write_ids("n.txt", none, 6);
  stream_problems_tuned(td_path("n.txt"), 1, NULL, 2, got, sizeof got);
  cr_assert_str_eq(got, "status 0\n");
}

/* Every line of a large file with one ID: each repeat is counted, the first
   named, in time linear in the lines (equal hashes never make long runs). */
Test(stream, one_id_on_every_line, .timeout = 60) {
  FILE *f = fopen(td_path("same.txt"), "w");
  cr_assert_not_null(f);
  const long n = 300000;
  for (long i = 0; i < n; i++) fputs("same 2 1 2 3 4 0.5 1 5 6 7 8 0.5 1\n", f);
  fclose(f);
  char got[8192], want[8192];
  stream_problems(td_path("same.txt"), got, sizeof got);
  size_t total = whole_file_problems(td_path("same.txt"), want, sizeof want);
  cr_assert_str_eq(got, want);
  cr_assert_eq(total, (size_t)n - 1);
  cr_assert_not_null(strstr(got, ":2: field 1 (id): duplicate ID 'same' (first on line 1)"), "%s", got);
}

/* Standard input is streamed like a file. */
Test(stream, reference_from_stdin) {
  write_mixed("s.txt", 5000, -1, 0);
  expected_reference("s.txt", "want.txt");
  pid_t pid = fork();
  cr_assert_geq(pid, 0);
  if (pid == 0) {
    int in = open(td_path("s.txt"), O_RDONLY), out = open(td_path("got.txt"), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (in < 0 || out < 0) _exit(126);
    dup2(in, 0), dup2(out, 1);
    execl(TOIBENCH_PATH, TOIBENCH_PATH, "reference", "-j2", "-", (char *)NULL);
    _exit(127);
  }
  int st = 0;
  cr_assert_eq(waitpid(pid, &st, 0), pid);
  cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  cr_assert(td_same_file(td_path("got.txt"), td_path("want.txt")));
}

/* -j needs a number in 1..1024. */
Test(stream, jobs_usage) {
  write_mixed("c.txt", 3, -1, 0);
  cr_assert_eq(td_tb("reference -j0 c.txt"), 2);
  cr_assert_eq(td_tb("reference -j x c.txt"), 2);
  cr_assert_eq(td_tb("reference -j 1025 c.txt"), 2);
}

/* ---- exact quantiles of a stream: toi_quantile's value, whatever the buckets ---- */

/* The quantiles of v[0..n-1] added 1000 at a time to a stream that keeps
   up to mem values in memory (past it, all in its temporary file). */
static void check_qstream_mem(const double *v, size_t n, size_t mem) {
  toi_qstream q;
  cr_assert_eq(toi_qstream_init_mem(&q, mem), 0);
  for (size_t i = 0; i < n; i += 1000) cr_assert_eq(toi_qstream_add(&q, v + i, n - i < 1000 ? n - i : 1000), 0);
  double *copy = malloc((n ? n : 1) * sizeof *copy);
  if (n) memcpy(copy, v, n * sizeof *copy);
  const double qs[] = {0, 0.001, 0.25, 0.5, 0.75, 0.99, 0.999999, 1};
  double all[8];
  cr_assert_eq(toi_qstream_quantiles(&q, qs, 8, all), 0); /* all at once: one load when they fit */
  for (int k = 0; k < 8; k++) {
    double got, want = toi_quantile(copy, n, qs[k]);
    cr_assert_eq(toi_qstream_quantile(&q, qs[k], &got), 0);
    cr_assert(memcmp(&got, &want, sizeof got) == 0 || (got != got && want != want), "q %g of %zu: %a, want %a", qs[k],
              n, got, want);
    cr_assert(memcmp(&all[k], &want, sizeof got) == 0 || (all[k] != all[k] && want != want),
              "q %g of %zu, with the others: %a, want %a", qs[k], n, all[k], want);
  }
  cr_assert_eq(q.spill != NULL, n > mem, "%zu values, %zu in memory: %s", n, mem, q.spill ? "spilled" : "in memory");
  free(copy);
  toi_qstream_free(&q);
}

/* The same in memory (the default bound, 2^20), in the file from the first
   value, and moved to the file after two adds (2000 values in memory). */
static void check_qstream(const double *v, size_t n) {
  check_qstream_mem(v, n, TOI_QSTREAM_MEM);
  check_qstream_mem(v, n, 0);
  check_qstream_mem(v, n, 2500);
}

/* Few values (sorted in memory at once), and 3*2^20 values that share
   buckets down to the last 16 bits (narrowed pass after pass): zeros,
   neighbours of 1 and a spread over the whole range. */
Test(stream, qstream_exact_quantiles, .timeout = 120) {
  check_qstream(NULL, 0);
  double one = 3.5;
  check_qstream(&one, 1);
  size_t n = 3u << 20;
  double *v = malloc(n * sizeof *v);
  uint64_t s = 0x9e3779b97f4a7c15ull;
  for (size_t i = 0; i < n; i++) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    uint64_t r = s >> 11;
    switch (i % 4) {
    case 0: v[i] = 0; break;
    case 1: v[i] = nextafter(1.0, 2.0) + (double)(r & 0xff) * 0x1p-52; break;
    case 2: v[i] = ldexp((double)(r & 0xfffff) + 1, (int)(r % 1000) - 500); break;
    default: v[i] = i % 1000 == 3 ? INFINITY : 1.0 + (double)(r & 0xffff) * 0x1p-40; break;
    }
  }
  check_qstream(v, n);
  for (size_t i = 0; i < n; i++) v[i] = 1.0 + (double)(i % 7) * 0x1p-52; /* one top bucket, 7 values */
  check_qstream(v, n);
  free(v);
}

/* The values loaded at once (up to 2^20) are selected, not sorted: every
   small size with few distinct values, and 2^20 values sorted, reversed, all
   equal, two alternating, in an organ pipe and in a median-of-three killer's
   order, where a plain quickselect would take quadratic time. */
Test(stream, qstream_selection_in_memory, .timeout = 120) {
  double small[64];
  for (size_t n = 1; n <= 64; n++) {
    for (size_t i = 0; i < n; i++) small[i] = (double)((i * 7 + n) % 5) * 0.25;
    check_qstream(small, n);
  }
  size_t n = (size_t)1 << 20;
  double *v = malloc(n * sizeof *v);
  for (int shape = 0; shape < 6; shape++) {
    for (size_t i = 0; i < n; i++) {
      size_t m = n / 2;
      switch (shape) {
      case 0: v[i] = (double)i; break;
      case 1: v[i] = (double)(n - i); break;
      case 2: v[i] = 0.5; break;
      case 3: v[i] = i % 2 ? 1.0 : INFINITY; break;
      case 4: v[i] = (double)(i < m ? i : n - i); break;
      default: v[i] = (double)(i % 2 ? m + i : i / 2 + (i % 4 == 0 ? m : 0)); break;
      }
    }
    check_qstream(v, n);
  }
  free(v);
}

/* ---- run: the same bytes for any -j, and the figures of the whole-file library path ---- */

/* "KEY_hex": "VALUE" of the n-th candidate object of a run's JSON, parsed. */
static double json_hex(const char *json, int n, const char *key) {
  const char *p = strstr(json, "\"candidates\"");
  for (int i = 0; i <= n; i++) p = strstr(p + 1, "{\"name\"");
  char pat[64];
  snprintf(pat, sizeof pat, "\"%s_hex\": \"", key);
  p = strstr(p, pat);
  cr_assert_not_null(p, "%s", key);
  return strtod(p + strlen(pat), NULL);
}

Test(stream, run_same_as_library_and_any_jobs, .timeout = 120) {
  write_mixed("r.txt", 9000, -1, 0);
  cr_assert_eq(td_tb("run -j1 --format json r.txt >j1.txt"), 0);
  cr_assert_eq(td_tb("run -j3 --format json r.txt >j3.txt"), 0);
  cr_assert(td_same_file(td_path("j1.txt"), td_path("j3.txt")));
  cr_assert_eq(td_tb("run -j1 --rows rows1.txt r.txt >t1.txt"), 0);
  cr_assert_eq(td_tb("run -j2 --rows rows2.txt r.txt >t2.txt"), 0);
  cr_assert(td_same_file(td_path("t1.txt"), td_path("t2.txt")));
  cr_assert(td_same_file(td_path("rows1.txt"), td_path("rows2.txt")));
  /* The library on the whole list at once. */
  toi_caselist l = read_whole("r.txt");
  size_t nf;
  const toi_formulation *fs = toi_formulations(&nf);
  toi_candidate *c = calloc(nf, sizeof *c);
  toi_run_row *rows = calloc(nf, sizeof *rows);
  for (size_t k = 0; k < nf; k++) toi_candidate_formulation(&c[k], &fs[k]);
  toi_bench_opts o;
  toi_bench_opts_init(&o);
  cr_assert_eq(toi_bench_run(rows, c, nf, l.items, l.count, &o, NULL, NULL), 0);
  char *json = td_read("j1.txt");
  for (size_t k = 0; k < nf; k++) {
    toi_run_stats st;
    toi_run_row_stats(&rows[k], &st);
    const double want[] = {st.median_ulp, st.p99_ulp, st.max_ulp};
    const char *keys[] = {"median_ulp", "p99_ulp", "max_ulp"};
    for (int i = 0; i < 3; i++) {
      double got = json_hex(json, (int)k, keys[i]);
      cr_assert(got == want[i] || (got != got && want[i] != want[i]), "%s %s: %a, want %a", fs[k].name, keys[i], got,
                want[i]);
    }
  }
  free(json);
  toi_run_rows_free(rows, nf);
  for (size_t k = 0; k < nf; k++) toi_candidate_free(&c[k]);
  free(rows);
  free(c);
  toi_caselist_free(&l);
}

Test(stream, run_late_bad_line_writes_nothing) {
  write_mixed("b.txt", 5000, -1, 0);
  FILE *f = fopen(td_path("b.txt"), "a");
  fputs("late 2 1 2 3\n", f);
  fclose(f);
  cr_assert_eq(td_tb("run -f ericson --rows rows.txt b.txt >got.txt"), 3);
  char *out = td_read("got.txt"), *err = td_read("err");
  cr_assert_eq(strlen(out), 0);
  cr_assert(!td_exists(td_path("rows.txt")));
  cr_assert_not_null(strstr(err, "b.txt:5003: field 6 (vA.y): missing"), "%s", err);
  free(out);
  free(err);
}

/* ---- solve and audit: any -j, and the library on the whole list ---- */

Test(stream, solve_same_as_library_and_any_jobs) {
  write_mixed("s.txt", 4097, -1, 0);
  toi_caselist l = read_whole("s.txt");
  const toi_formulation *f = toi_formulation_find("ericson");
  FILE *w = fopen(td_path("want.txt"), "w");
  for (size_t i = 0; i < l.count; i++) {
    toi_result r = f->solve(&l.items[i]);
    fprintf(w, "%s %s ", l.items[i].id, toi_class_name(r.cls));
    put_hex(w, r.t);
    fputc('\n', w);
  }
  fclose(w);
  toi_caselist_free(&l);
  const char *cmds[] = {"solve -f ericson -j1 s.txt >got.txt", "solve -f ericson -j2 s.txt >got.txt",
                        "solve -f ericson -j3 s.txt >got.txt"};
  for (int k = 0; k < 3; k++) {
    cr_assert_eq(td_tb(cmds[k]), 0, "%s", cmds[k]);
    cr_assert(td_same_file(td_path("got.txt"), td_path("want.txt")), "%s", cmds[k]);
  }
}

#include "audit.h"

Test(stream, audit_same_as_library_and_any_jobs, .timeout = 120) {
  write_mixed("a.txt", 9000, -1, 0);
  cr_assert_eq(td_tb("audit -j1 --rows r1.txt a.txt >s1.txt"), 0);
  cr_assert_eq(td_tb("audit -j3 --rows r3.txt a.txt >s3.txt"), 0);
  cr_assert(td_same_file(td_path("s1.txt"), td_path("s3.txt")));
  cr_assert(td_same_file(td_path("r1.txt"), td_path("r3.txt")));
  toi_caselist l = read_whole("a.txt");
  size_t n;
  const toi_formulation *all = toi_formulations(&n);
  const toi_formulation *fs[64];
  int nf = 0;
  for (size_t i = 0; i < n; i++)
    if (all[i].direction == TOI_FORWARD) fs[nf++] = &all[i];
  toi_audit au;
  cr_assert_eq(toi_audit_run(&au, &l, fs, nf, 1, NULL, NULL, NULL), TOI_OK);
  char *got = td_read("s1.txt"), line[512];
  for (int k = 0; k < nf; k++) {
    snprintf(line, sizeof line, "\n%s: %zu audited, %zu not reported", fs[k]->name, au.forms[k].audited,
             au.forms[k].not_reported);
    cr_assert_not_null(strstr(got, line), "%s", line);
    for (int m = 0; m < TOI_AUDIT_METRICS; m++) {
      const toi_audit_stat *st = &au.forms[k].stat[m];
      if (!st->n) continue;
      snprintf(line, sizeof line, "  %-8s %12.4g %12.4g %12.4g  %s\n", toi_audit_metric_name(m), st->median, st->p99,
               st->max, l.items[st->max_case].id);
      cr_assert_not_null(strstr(got, line), "%s: %s", fs[k]->name, line);
    }
  }
  free(got);
  toi_audit_free(&au);
  toi_caselist_free(&l);
}

/* ---- toi_stream_files itself: order, slots and stops under uneven work ---- */

#define LIB_SLOTS_MAX 64

typedef struct lib_run {
  int nslots;
  int busy[LIB_SLOTS_MAX];      /* slot k holds a block worked on and not yet committed */
  char *text[LIB_SLOTS_MAX];    /* each slot's scratch: the block's IDs, a line each */
  int in_commit, overlaps, reuse;
  size_t commits, stop_at;      /* commit refuses its stop_at-th call (0: never) */
  size_t cases;                 /* the cases of the blocks committed */
  char *got;
  size_t len, cap;
} lib_run;

/* The IDs of a block, a line each, into the slot's scratch, after a wait
   that differs from block to block (so that blocks finish out of order). */
static int lib_work(void *ctx, toi_stream_block *b) {
  lib_run *r = ctx;
  cr_assert(b->slot >= 0 && b->slot < r->nslots);
  if (__atomic_exchange_n(&r->busy[b->slot], 1, __ATOMIC_ACQ_REL)) __atomic_store_n(&r->reuse, 1, __ATOMIC_RELAXED);
  uint64_t h = 1469598103934665603u;
  for (const char *p = b->cases[0].id; *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211u;
  volatile uint64_t spin = 0;
  for (uint64_t k = 0; k < (h % 7) * 20000; k++) spin += k;
  size_t need = b->n * (TOI_ID_MAX + 2), at = 0;
  free(r->text[b->slot]);
  r->text[b->slot] = malloc(need);
  cr_assert_not_null(r->text[b->slot]);
  for (size_t i = 0; i < b->n; i++) at += (size_t)sprintf(r->text[b->slot] + at, "%s\n", b->cases[i].id);
  b->text = r->text[b->slot];
  b->len = at;
  return 0;
}

static int lib_commit(void *ctx, toi_stream_block *b) {
  lib_run *r = ctx;
  if (__atomic_exchange_n(&r->in_commit, 1, __ATOMIC_ACQ_REL)) r->overlaps = 1;
  __atomic_store_n(&r->busy[b->slot], 0, __ATOMIC_RELEASE);
  int rc = 0;
  if (++r->commits == r->stop_at) {
    rc = 1;
  } else {
    if (r->len + b->len + 1 > r->cap) {
      r->cap = 2 * (r->len + b->len + 1);
      r->got = realloc(r->got, r->cap);
      cr_assert_not_null(r->got);
    }
    memcpy(r->got + r->len, b->text, b->len);
    r->len += b->len;
    r->cases += b->n;
    r->got[r->len] = '\0';
  }
  __atomic_store_n(&r->in_commit, 0, __ATOMIC_RELEASE);
  return rc;
}

/* The IDs of the file's first n cases, a line each (toi_read_cases'). */
static char *ids_of(const char *name, size_t n) {
  toi_caselist l = read_whole(name);
  cr_assert_geq(l.count, n);
  char *s = malloc(n * (TOI_ID_MAX + 2) + 1);
  size_t at = 0;
  s[0] = '\0';
  for (size_t i = 0; i < n; i++) at += (size_t)sprintf(s + at, "%s\n", l.items[i].id);
  toi_caselist_free(&l);
  return s;
}

/* The options of a run of lib_work and lib_commit, r made ready. */
static toi_stream_opts lib_init(lib_run *r, int jobs, size_t block) {
  memset(r, 0, sizeof *r);
  toi_stream_opts o = {jobs, block, lib_work, lib_commit, NULL, r, NULL, 1};
  r->nslots = toi_stream_slots(&o);
  cr_assert_leq(r->nslots, LIB_SLOTS_MAX);
  return o;
}

static void lib_free(lib_run *r) {
  for (int k = 0; k < LIB_SLOTS_MAX; k++) free(r->text[k]);
  free(r->got);
}

/* Blocks finish out of order on 1 to 4 threads: the commits come one at a
   time, in input order, and a slot is never given to a second block before
   the first is committed; the IDs come out as the file holds them, over two
   files too. */
Test(stream, library_blocks_in_input_order_under_uneven_work, .timeout = 120) {
  write_mixed("u.txt", 20000, -1, 0);
  char *want = ids_of("u.txt", 20000);
  size_t wl = strlen(want);
  char *two = malloc(2 * wl + 1);
  memcpy(two, want, wl);
  memcpy(two + wl, want, wl + 1);
  char p[4096];
  snprintf(p, sizeof p, "%s", td_path("u.txt"));
  char *ps[] = {p, p};
  for (int jobs = 1; jobs <= 4; jobs++) {
    for (int nf = 1; nf <= 2; nf++) {
      lib_run r;
      toi_stream_result res;
      toi_stream_opts o = lib_init(&r, jobs, 37);
      cr_assert_eq(toi_stream_files(&res, &o, nf, ps), 0);
      cr_assert_eq(res.read, TOI_OK);
      cr_assert_eq(res.commit_rc, 0);
      cr_assert_eq(res.cases, (size_t)nf * 20000);
      cr_assert_eq(r.overlaps, 0, "-j%d: two commits at once", jobs);
      cr_assert_eq(r.reuse, 0, "-j%d: a slot given to a block before the last one's commit", jobs);
      cr_assert_eq(r.commits, (size_t)nf * ((20000 + 36) / 37));
      cr_assert_str_eq(r.got, nf == 1 ? want : two, "-j%d, %d files: IDs out of order", jobs, nf);
      lib_free(&r);
    }
  }
  free(want);
  free(two);
}

/* commit's refusal stops the stream: no later commit, the cases before it
   counted, the rest of the file still read (its status TOI_OK). A block
   holds at most 50 of the file's lines (the first, read by ranges, its
   comment and blank line too). */
Test(stream, library_commit_refusal_stops_later_commits, .timeout = 120) {
  write_mixed("s.txt", 5000, -1, 0);
  char *want = ids_of("s.txt", 5000);
  char p[4096];
  snprintf(p, sizeof p, "%s", td_path("s.txt"));
  char *ps[] = {p};
  for (int jobs = 1; jobs <= 3; jobs++) {
    lib_run r;
    toi_stream_result res;
    toi_stream_opts o = lib_init(&r, jobs, 50);
    r.stop_at = 7;
    cr_assert_eq(toi_stream_files(&res, &o, 1, ps), 0);
    cr_assert_eq(res.read, TOI_OK);
    cr_assert_eq(res.commit_rc, 1);
    cr_assert_eq(r.commits, 7, "-j%d: %zu commits", jobs, r.commits);
    cr_assert(r.cases >= 6 * 50 - 2 && r.cases <= 6 * 50, "-j%d: %zu cases in 6 blocks", jobs, r.cases);
    cr_assert_eq(res.cases, r.cases);
    cr_assert_eq(strncmp(r.got, want, r.len), 0, "-j%d: the committed IDs are not the file's first", jobs);
    size_t lines = 0;
    for (size_t i = 0; i < r.len; i++) lines += r.got[i] == '\n';
    cr_assert_eq(lines, r.cases);
    lib_free(&r);
  }
  free(want);
}
