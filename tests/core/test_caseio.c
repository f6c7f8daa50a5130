/* test_caseio.c: the case file format v1: parsing, rejection, round trip. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "case_stream_tune.h"
#include "toi.h"
#include "test_env.h"
#include "test_rng.h"
#include "msg_text.h"

static toi_status parse(toi_caselist *l, const char *text, toi_diags *dg) {
  memset(dg, 0, sizeof *dg);
  return toi_parse_cases(l, "t.cases", text, strlen(text), dg);
}

Test(caseio, reads_decimal_hex_and_extremes) {
  toi_caselist l = {0};
  toi_diags dg;
  const char *text =
      "# comment\n\n  \t\n"
      "a 2 1 -2 0x1.8p+1 -0x1p-1074 0.5 3  1e300 -1e-300 4.9e-324 1.7976931348623157e308 0 1e-320\n"
      "b.c:d_e-f 3 0 0 0 1 2 3 0 1  1 1 1 0 0 0 2 2\n";
  cr_assert_eq(parse(&l, text, &dg), TOI_OK, "first diag: %s", dg.count ? dg.items[0].message : "");
  cr_assert_eq(l.count, 2);
  toi_case *a = &l.items[0], *b = &l.items[1];
  cr_assert_str_eq(a->id, "a");
  cr_assert_eq(a->dim, 2);
  cr_assert_eq(a->pa[0], 1.0);
  cr_assert_eq(a->pa[1], -2.0);
  cr_assert_eq(a->va[0], 3.0);
  cr_assert_eq(a->va[1], -0x1p-1074);
  cr_assert_eq(a->ra, 0.5);
  cr_assert_eq(a->ma, 3.0);
  cr_assert_eq(a->pb[0], 1e300);
  cr_assert_eq(a->pb[1], -1e-300);
  cr_assert_eq(a->vb[0], 0x1p-1074);
  cr_assert_eq(a->vb[1], 0x1.fffffffffffffp+1023);
  cr_assert_eq(a->rb, 0.0);
  cr_assert_eq(a->mb, 1e-320);
  cr_assert_eq(a->pa[2], 0.0);
  cr_assert_str_eq(b->id, "b.c:d_e-f");
  cr_assert_eq(b->dim, 3);
  cr_assert_eq(b->va[2], 3.0);
  cr_assert_eq(b->rb, 2.0);
  cr_assert_eq(b->mb, 2.0);
  toi_caselist_free(&l);
}

Test(caseio, decimal_is_read_as_nearest_double) {
  toi_caselist l = {0};
  toi_diags dg;
  /* 0.1 and 2^-1075 * 3 (halfway cases are where a sloppy reader goes wrong). */
  cr_assert_eq(parse(&l, "x 2 0.1 0 0 0 1 1 0 0 0 0 1 1\n", &dg), TOI_OK);
  cr_assert_eq(l.items[0].pa[0], 0x1.999999999999ap-4);
  toi_caselist_free(&l);
}

Test(caseio, crlf_is_accepted) {
  toi_caselist l = {0};
  toi_diags dg;
  cr_assert_eq(parse(&l, "# c\r\nx 2 0 0 0 0 1 1 3 0 -1 0 1 2\r\ny 2 0 0 0 0 1 1 3 0 -1 0 1 2\r\n", &dg),
               TOI_OK);
  cr_assert_eq(l.count, 2);
  cr_assert_eq(l.items[0].mb, 2.0);
  toi_caselist_free(&l);
}

Test(caseio, utf8_bom_is_skipped) {
  toi_caselist l = {0};
  toi_diags dg;
  cr_assert_eq(parse(&l, "\xEF\xBB\xBFx 2 0 0 0 0 1 1 3 0 -1 0 1 2\n", &dg), TOI_OK);
  cr_assert_str_eq(l.items[0].id, "x");
  toi_caselist_free(&l);
}

Test(caseio, bad_file_is_refused_whole) {
  toi_caselist l = {0};
  toi_diags dg;
  cr_assert_eq(parse(&l, "x 2 0 0 0 0 1 1 3 0 -1 0 1 2\ny 2 0 0 0 0 1 1 3 0 -1 0 1 0\n", &dg),
               TOI_ERR_INPUT);
  cr_assert_eq(l.count, 0, "no case of a refused file may be kept");
  cr_assert_eq(dg.total, 1);
  char buf[512];
  toi_diag_format(&dg.items[0], buf, sizeof buf);
  cr_assert_str_eq(buf, "t.cases:2: field 14 (mB): mass must be > 0, found 0");
}

/* The field's name follows the line's dimension even when the line is refused
 * before its numbers are read (a control character, an overlong line). The
 * names come from the format: 3D field 13 is pB.z, 2D field 8 is mA. */
Test(caseio, early_refusals_name_the_field_of_the_lines_layout) {
  static const struct {
    const char *text, *want;
  } t[] = {
      {"ok 3 0 0 0 1 0 0 1 1 10 0 0\x01 -1 0 0 1 1\n",
       "t.cases:1: field 13 (pB.z): control character 0x01 in the field"},
      {"ok 2 0 0 1 0 1 1\x01 10 0 -1 0 1 1\n", "t.cases:1: field 8 (mA): control character 0x01 in the field"},
      {"ok 3\x02 0 0 0 1 0 0 1 1 10 0 0 -1 0 0 1 1\n",
       "t.cases:1: field 2 (dim): control character 0x02 in the field"},
  };
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
    toi_caselist l = {0};
    toi_diags dg;
    cr_assert_eq(parse(&l, t[i].text, &dg), TOI_ERR_INPUT);
    char buf[512];
    toi_diag_format(&dg.items[0], buf, sizeof buf);
    cr_assert_str_eq(buf, t[i].want);
  }
}

/* The exact decimal expansion of 2^-k: 5^k / 10^k, 5^k by schoolbook
 * multiplication in base 10 (an independent computation). */
static char *exact_pow2_decimal(int k) {
  int digits[1200] = {1}, n = 1; /* little endian */
  for (int i = 0; i < k; i++) {
    int carry = 0;
    for (int j = 0; j < n; j++) {
      int v = digits[j] * 5 + carry;
      digits[j] = v % 10;
      carry = v / 10;
    }
    if (carry) digits[n++] = carry;
  }
  char *s = malloc((size_t)k + 3);
  cr_assert_not_null(s);
  size_t at = 0;
  s[at++] = '0';
  s[at++] = '.';
  for (int i = 0; i < k - n; i++) s[at++] = '0';
  for (int j = n - 1; j >= 0; j--) s[at++] = (char)('0' + digits[j]);
  s[at] = 0;
  return s;
}

/* Every finite double is legal, however it is written: the exact decimal
 * expansions of the smallest subnormal (1076 characters) read as that
 * subnormal, four in one line; a line beyond TOI_LINE_MAX is refused. */
Test(caseio, long_exact_decimals_are_read) {
  char *d = exact_pow2_decimal(1074);
  cr_assert_eq(strlen(d), 1076);
  size_t cap = 8 * strlen(d) + 200;
  char *text = malloc(cap);
  cr_assert_not_null(text);
  snprintf(text, cap, "sub 2 0 0 %s %s 1 1 3 0 %s %s 1 1\n", d, d, d, d);
  cr_assert_gt(strlen(text), 4096);
  toi_caselist l = {0};
  toi_diags dg;
  cr_assert_eq(parse(&l, text, &dg), TOI_OK, "%s", dg.count ? dg.items[0].message : "");
  cr_assert_eq(l.count, 1);
  cr_assert_eq(l.items[0].va[0], 0x1p-1074);
  cr_assert_eq(l.items[0].va[1], 0x1p-1074);
  cr_assert_eq(l.items[0].vb[0], 0x1p-1074);
  cr_assert_eq(l.items[0].vb[1], 0x1p-1074);
  toi_caselist_free(&l);
  free(text);
  free(d);
  size_t big = (size_t)TOI_LINE_MAX + 2;
  text = malloc(big + 64);
  cr_assert_not_null(text);
  int at = snprintf(text, big + 64, "big 2 0 0 0 0 1 1 3 0 0 0 1 0.");
  memset(text + at, '0', big - (size_t)at);
  memcpy(text + big, "1\n", 3);
  memset(&l, 0, sizeof l);
  cr_assert_eq(parse(&l, text, &dg), TOI_ERR_INPUT);
  char buf[512];
  toi_diag_format(&dg.items[0], buf, sizeof buf);
  char want[128];
  snprintf(want, sizeof want, "t.cases:1: line is longer than %d characters", TOI_LINE_MAX);
  cr_assert_str_eq(buf, want);
  free(text);
}

Test(caseio, diagnostics_are_capped_but_counted) {
  char *text = malloc(100 * 40);
  size_t n = 0;
  for (int i = 0; i < 50; i++) n += (size_t)sprintf(text + n, "c%d 2 0 0\n", i);
  toi_caselist l = {0};
  toi_diags dg;
  cr_assert_eq(parse(&l, text, &dg), TOI_ERR_INPUT);
  cr_assert_eq(dg.count, TOI_DIAG_MAX);
  cr_assert_eq(dg.total, 50);
  cr_assert_eq(dg.items[TOI_DIAG_MAX - 1].line, TOI_DIAG_MAX);
  free(text);
}

Test(caseio, nul_byte_is_refused) {
  toi_caselist l = {0};
  toi_diags dg = {0};
  const char text[] = "x 2 0 0 0 0 1 1 3 0 -1 0 1 2\n\0y";
  cr_assert_eq(toi_parse_cases(&l, "t.cases", text, sizeof text - 1, &dg), TOI_ERR_INPUT);
  cr_assert_eq(dg.items[0].line, 2);
}

Test(caseio, format_then_parse_is_bit_exact) {
  const char *seed = getenv("TOI_TEST_SEED");
  test_rng rng = {te_seed(12345)};
  const char *sc = getenv("TOI_TEST_SCALE");
  int count = 2000 * (sc ? atoi(sc) : 1);
  for (int i = 0; i < count; i++) {
    toi_case c;
    memset(&c, 0, sizeof c);
    snprintf(c.id, sizeof c.id, "r%d", i);
    c.dim = 2 + (i & 1);
    for (int k = 0; k < c.dim; k++) {
      c.pa[k] = test_rng_finite_bits(&rng);
      c.va[k] = test_rng_finite_bits(&rng);
      c.pb[k] = test_rng_finite_bits(&rng);
      c.vb[k] = test_rng_finite_bits(&rng);
    }
    c.ra = fabs(test_rng_finite_bits(&rng));
    c.rb = fabs(test_rng_finite_bits(&rng));
    c.ma = fabs(test_rng_finite_bits(&rng)) + 0x1p-1074;
    c.mb = fabs(test_rng_finite_bits(&rng)) + 0x1p-1074;
    char line[1024];
    int n = toi_format_case(line, sizeof line, &c);
    cr_assert(n > 0 && (size_t)n < sizeof line);
    toi_case back;
    int field = 0;
    char msg[160];
    msg_text mt;
    toi_msg m = msg_text_sink(&mt, msg, sizeof msg);
    cr_assert_eq(toi_parse_case_line(&back, line, &field, &m), TOI_OK,
                 "seed %s: line %s: %s (include this in bug reports)", seed ? seed : "12345", line, msg);
    cr_assert_eq(memcmp(&back, &c, sizeof c), 0, "round trip of %s changed bits", line);
  }
}

/* Every file in cases/bad/ is refused with exactly the messages listed in
 * cases/bad/EXPECTED (written from the format's rules, not from the program). */
Test(caseio, bad_corpus_messages) {
  FILE *f = fopen(TOI_SOURCE_DIR "/cases/bad/EXPECTED", "r");
  cr_assert_not_null(f);
  char line[1024];
  int checked = 0;
  while (fgets(line, sizeof line, f)) {
    if (line[0] == '#' || line[0] == '\n') continue;
    line[strcspn(line, "\n")] = 0;
    char *tab = strchr(line, '\t');
    cr_assert_not_null(tab);
    *tab = 0;
    char path[2048];
    snprintf(path, sizeof path, "%s/cases/bad/%s", TOI_SOURCE_DIR, line);
    toi_caselist l = {0};
    toi_diags dg = {0};
    cr_assert_eq(toi_read_cases(&l, path, &dg), TOI_ERR_INPUT, "%s was not refused", line);
    cr_assert_eq(l.count, 0);
    int found = 0;
    for (size_t i = 0; i < dg.count; i++) {
      char buf[700];
      toi_diag_format(&dg.items[i], buf, sizeof buf);
      const char *base = strstr(buf, "/cases/bad/");
      if (base && !strcmp(base + strlen("/cases/bad/"), tab + 1)) found = 1;
    }
    cr_assert(found, "%s: expected message '%s' not produced", line, tab + 1);
    checked++;
  }
  fclose(f);
  cr_assert_geq(checked, 15);
}

Test(caseio, good_corpus_parses) {
  const char *files[] = {"/cases/degenerate.cases", "/cases/documents.cases"};
  for (size_t i = 0; i < 2; i++) {
    char path[2048];
    snprintf(path, sizeof path, "%s%s", TOI_SOURCE_DIR, files[i]);
    toi_caselist l = {0};
    toi_diags dg = {0};
    cr_assert_eq(toi_read_cases(&l, path, &dg), TOI_OK, "%s: %s", files[i],
                 dg.count ? dg.items[0].message : "");
    cr_assert_gt(l.count, 5);
    toi_caselist_free(&l);
  }
}

Test(caseio, class_names_round_trip) {
  for (int c = 0; c < TOI_CLASS_COUNT; c++) {
    toi_class got = TOI_CLASS_COUNT;
    cr_assert_eq(toi_class_parse(&got, toi_class_name((toi_class)c)), TOI_OK);
    cr_assert_eq(got, c);
  }
  toi_class keep = TOI_CLASS_COUNT;
  cr_assert_eq(toi_class_parse(&keep, "bogus"), TOI_ERR_RANGE);
  cr_assert_eq(toi_class_parse(&keep, NULL), TOI_ERR_RANGE);
  cr_assert_eq(toi_class_parse(NULL, "none"), TOI_ERR_RANGE);
  cr_assert_eq(keep, TOI_CLASS_COUNT, "an unknown name leaves *out untouched");
  cr_assert_eq(toi_class_group(TOI_GRAZE), TOI_G_CONTACT);
  cr_assert_eq(toi_class_group(TOI_MISS), TOI_G_NOCONTACT);
  cr_assert_eq(toi_class_group(TOI_OVERLAP), TOI_G_OVERLAP);
}

/* Lines of the common shape are read in one pass (caseio.c's fast path), all
   others by the general reader. The two must agree: each random line is also
   read with its first separator a tab, which the fast path leaves to the
   general one, and both cases must hold the same bytes, or the same refusal
   (field and message). Numbers as hex, %.17g, short decimals, and, now and
   then, a bad token, a negative radius, a zero mass or a 70-digit number. */
Test(caseio, one_pass_reader_agrees_with_the_general_reader) {
  test_rng r = {te_seed(0x5ca1ab1e)};
  char line[4096], tabbed[4096];
  for (int it = 0; it < 20000; it++) {
    int dim = test_rng_int(&r, 2, 3), nnum = dim == 2 ? 12 : 16;
    int n = snprintf(line, sizeof line, "case-%d%s %d", it, it % 7 ? "" : ".x", dim);
    for (int k = 0; k < nnum; k++) {
      double v = test_rng_uniform(&r, -8, 8) * ldexp(1, (int)test_rng_int(&r, -60, 60));
      int is_radius = k == (dim == 2 ? 4 : 6) || k == (dim == 2 ? 10 : 14);
      int is_mass = k == (dim == 2 ? 5 : 7) || k == (dim == 2 ? 11 : 15);
      if (is_radius || is_mass) v = fabs(v) + (is_mass ? 1 : 0);
      long pick = test_rng_int(&r, 0, 99);
      const char *sep = pick == 0 ? "   " : " ";
      if (pick < 40)
        n += snprintf(line + n, sizeof line - n, "%s%a", sep, v);
      else if (pick < 80)
        n += snprintf(line + n, sizeof line - n, "%s%.17g", sep, v);
      else if (pick < 95)
        n += snprintf(line + n, sizeof line - n, "%s%.3f", sep, v);
      else if (pick == 95)
        n += snprintf(line + n, sizeof line - n, "%s1.%068d", sep, 7);
      else if (pick == 96)
        n += snprintf(line + n, sizeof line - n, "%s%s", sep, is_radius ? "-1" : "zz");
      else if (pick == 97)
        n += snprintf(line + n, sizeof line - n, "%s%s", sep, is_mass ? "0" : "nan");
      else
        n += snprintf(line + n, sizeof line - n, "%s0x1p+2000", sep);
    }
    if (it % 11 == 0) n += snprintf(line + n, sizeof line - n, "  ");
    snprintf(tabbed, sizeof tabbed, "%s", line);
    *strchr(tabbed, ' ') = '\t';
    toi_case a, b;
    int fa = 0, fb = 0;
    char ma[160] = "", mb[160] = "";
    msg_text ta, tb;
    toi_msg sa = msg_text_sink(&ta, ma, sizeof ma), sb = msg_text_sink(&tb, mb, sizeof mb);
    toi_status ra = toi_parse_case_line(&a, line, &fa, &sa);
    toi_status rb = toi_parse_case_line(&b, tabbed, &fb, &sb);
    cr_assert_eq(ra, rb, "line %s: %d against %d (%s)", line, ra, rb, ra ? ma : mb);
    if (ra == 0)
      cr_assert_eq(memcmp(&a, &b, sizeof a), 0, "line %s: the cases differ", line);
    else {
      cr_assert_eq(fa, fb, "line %s: field %d against %d", line, fa, fb);
      cr_assert_str_eq(ma, mb, "line %s", line);
    }
  }
}

/* A block's lines are read with their ID scanned sixteen bytes at a time
   and the case written field by field when at least 64 bytes follow the
   line's start in the block, byte by byte otherwise (the last lines, and
   toi_parse_case_line): both must give the same case bytes (the ID's array
   zero after it, padding and a 2D case's z zero) or the same refusal.
   Random IDs of 1 to 70 bytes, mostly ID bytes, now and then any other
   byte but NUL, 2D and 3D lines, blocks of 1 to 40 lines. */
Test(caseio, block_reader_agrees_with_the_line_reader) {
  test_rng r = {te_seed(0x1d5ca11)};
  static const char idb[] = "abcxyzABCXYZ0189._:-";
  char *text = malloc(1 << 16);
  size_t start[40];
  long lineno[40];
  toi_case cases[40];
  unsigned char ok[40];
  cr_assert(text);
  for (int it = 0; it < 4000; it++) {
    toi_line_block b;
    memset(&b, 0, sizeof b);
    b.text = text;
    b.start = start;
    b.line = lineno;
    b.cases = cases;
    b.ok = ok;
    b.n = (size_t)test_rng_int(&r, 1, 40);
    size_t at = 0;
    for (size_t i = 0; i < b.n; i++) {
      char *line = text + at;
      int n = 0, idlen = (int)test_rng_int(&r, 1, 70), dim = (int)test_rng_int(&r, 2, 3);
      for (int k = 0; k < idlen; k++) {
        long pick = test_rng_int(&r, 0, 199);
        line[n++] = pick ? idb[pick % (long)(sizeof idb - 1)] : (char)test_rng_int(&r, 1, 255);
      }
      n += sprintf(line + n, " %d", dim);
      for (int k = 0; k < (dim == 2 ? 12 : 16); k++) {
        double v = test_rng_uniform(&r, 0.5, 8) * ldexp(1, (int)test_rng_int(&r, -60, 60));
        n += test_rng_int(&r, 0, 9) ? sprintf(line + n, " %a", v) : sprintf(line + n, " %.17g", v);
      }
      start[i] = at;
      lineno[i] = (long)i + 1;
      at += (size_t)n + 1;
    }
    b.len = at;
    memset(cases, 0xa5, sizeof cases); /* every byte must be written */
    toi_line_block_parse(&b);
    size_t bad = 0;
    for (size_t i = 0; i < b.n; i++) {
      const char *line = text + start[i];
      toi_case a;
      int fa = 0;
      char ma[160] = "";
      msg_text ta;
      toi_msg sa = msg_text_sink(&ta, ma, sizeof ma);
      toi_status ra = toi_parse_case_line(&a, line, &fa, &sa);
      cr_assert_eq(ra == TOI_OK, ok[i] == 1, "line %s: %d against %d", line, ra, ok[i]);
      if (ra == TOI_OK) {
        cr_assert_eq(memcmp(&a, &cases[i], sizeof a), 0, "line %s: the cases differ", line);
        continue;
      }
      if (bad++ >= TOI_DIAG_MAX) continue; /* counted, not kept */
      const toi_line_error *e = &b.errs[bad - 1];
      cr_assert_eq(e->line, lineno[i]);
      cr_assert_eq(e->field, fa, "line %s: field %d against %d", line, e->field, fa);
      cr_assert_str_eq(e->message, ma, "line %s", line);
    }
    cr_assert_eq(b.nbad, bad);
  }
  free(text);
}

/* The lines a case stream lists, against the file's lines cut by hand: a
   file of about 3 MB (past the stream's 1 MB reads) of lines of 0 to 3000
   bytes, now and then CRLF, blank, a comment, with leading blanks and tabs,
   the last without its LF, read in blocks of few lines and few bytes: each
   block's lines are the file's non-blank, non-comment lines in order, with
   their numbers, leading blanks and the CR taken off, each NUL-terminated. */
/* path opened as a case stream (it must open), with empty diagnostics and
   an empty block to read it into. */
/* The next range stream_block reads (raw 2); 0 for a stream just opened. */
static uint64_t range_next;

static toi_case_stream *stream_open_fresh(const char *path, toi_diags *dg, toi_line_block *b) {
  range_next = 0;
  memset(dg, 0, sizeof *dg);
  memset(b, 0, sizeof *b);
  toi_case_stream *s;
  cr_assert_eq(toi_case_stream_open(&s, path, dg), TOI_OK);
  return s;
}

/* A file of about 3 MB of random lines of 1 to maxlen bytes (blank lines,
   comments, leading blanks, CRLF, the last line without its LF) read by
   toi_case_stream_read in blocks of random bounds: the lines, their numbers
   and their text as split here byte by byte. */
/* One block of s into b: by toi_case_stream_read (raw 0), or as a stream's
   threads read it: by toi_case_stream_read_raw (raw 1) or by ranges (raw 2:
   toi_case_stream_pread, toi_case_stream_read_range), then
   toi_line_block_split. 1 a block (perhaps of comments alone: b->n 0), 0
   the end. */
static int stream_block(toi_case_stream *s, toi_line_block *b, size_t max_lines, size_t max_bytes, int raw,
                        toi_status *st) {
  if (!raw) {
    *st = toi_case_stream_read(s, b, max_lines, max_bytes);
    return *st == TOI_OK && b->n;
  }
  toi_raw_block rb;
  if (raw == 2) {
    toi_range rr;
    memset(&rr, 0, sizeof rr);
    rr.k = range_next++;
    if (toi_case_stream_ranged(s)) cr_assert_eq(toi_case_stream_pread(s, &rr, &b->text, &b->cap), 0);
    *st = toi_case_stream_read_range(s, b, max_lines, max_bytes, &rr, &rb);
  } else {
    *st = toi_case_stream_read_raw(s, b, max_lines, max_bytes, &rb);
  }
  if (*st != TOI_OK || (!b->n && !rb.nlines)) return 0;
  cr_assert_leq(rb.nlines, max_lines);
  toi_line_block_split(b, &rb);
  return 1;
}

/* A new file for writing at a fresh path (size bytes) in TMPDIR, named from
   stem: its stream. */
static FILE *fresh_file(char *path, size_t size, const char *stem) {
  const char *tmp = getenv("TMPDIR");
  snprintf(path, size, "%s/%sXXXXXX", tmp && *tmp ? tmp : "/tmp", stem);
  int fd = mkstemp(path);
  cr_assert_geq(fd, 0, "mkstemp %s", path);
  FILE *f = fdopen(fd, "w");
  cr_assert(f);
  return f;
}

static void stream_lines_check_way(uint64_t seed, long maxlen, int raw) {
  test_rng r = {te_seed(seed)};
  char path[512];
  FILE *f = fresh_file(path, sizeof path, "toistream");
  size_t nwant = 0, cap = 1 << 14;
  char **want = malloc(cap * sizeof *want);
  long *wline = malloc(cap * sizeof *wline);
  cr_assert(want && wline);
  char *line = malloc(4096);
  size_t total = 0;
  for (long ln = 1; total < ((size_t)3 << 20); ln++) {
    long kind = test_rng_int(&r, 0, 19), lead = test_rng_int(&r, 0, 9) ? 0 : test_rng_int(&r, 1, 3);
    int len = 0;
    for (long i = 0; i < lead; i++) line[len++] = i % 2 ? '\t' : ' ';
    int body = len;
    if (kind == 0) { /* blank */
    } else if (kind == 1) {
      len += sprintf(line + len, "# comment %ld", ln);
    } else {
      long n = test_rng_int(&r, 1, maxlen);
      for (long i = 0; i < n; i++) line[len++] = "ab 7x.-"[test_rng_int(&r, 0, 6)];
      line[body] = 'c'; /* not a blank, not '#' */
      if (line[len - 1] == ' ') line[len - 1] = 'z'; /* no trailing blank: the lines are kept as written */
    }
    int crlf = test_rng_int(&r, 0, 4) == 0;
    if (kind >= 2) {
      if (nwant == cap) {
        cap *= 2;
        want = realloc(want, cap * sizeof *want);
        wline = realloc(wline, cap * sizeof *wline);
        cr_assert(want && wline);
      }
      want[nwant] = strndup(line + body, (size_t)(len - body));
      wline[nwant++] = ln;
    }
    total += (size_t)len + 1 + (size_t)crlf;
    int last = total >= ((size_t)3 << 20);
    fwrite(line, 1, (size_t)len, f);
    if (crlf) fputc('\r', f);
    if (!last) fputc('\n', f); /* the last line without its LF */
  }
  cr_assert_eq(fclose(f), 0);
  toi_diags dg;
  toi_line_block b;
  toi_case_stream *s = stream_open_fresh(path, &dg, &b);
  size_t got = 0;
  for (;;) {
    /* raw: blocks of up to a few thousand lines too, cut by the reads; by
       ranges, mostly (few lines a block go on in order, once one leaves
       more than a line's end) */
    size_t max_lines = (size_t)test_rng_int(&r, 1, raw && test_rng_int(&r, 0, raw == 2 ? 7 : 1) ? 5000 : 40);
    size_t max_bytes = (size_t)test_rng_int(&r, 1, 60000);
    toi_status st;
    int more = stream_block(s, &b, max_lines, max_bytes, raw, &st);
    cr_assert_eq(st, TOI_OK);
    if (!more) break;
    cr_assert_leq(b.n, max_lines);
    for (size_t i = 0; i < b.n; i++, got++) {
      cr_assert_lt(got, nwant);
      cr_assert_eq(b.line[i], wline[got]);
      cr_assert_lt(b.start[i], b.len);
      cr_assert_str_eq(b.text + b.start[i], want[got], "line %ld", wline[got]);
    }
  }
  cr_assert_eq(got, nwant);
  toi_line_block_free(&b);
  toi_status cst = toi_case_stream_close(s, &dg); /* the lines were not parsed: nothing more to check */
  (void)cst;
  unlink(path);
  for (size_t i = 0; i < nwant; i++) free(want[i]);
  free(want);
  free(wline);
  free(line);
}

/* The same lines whether a block's lines are made as it is read or, read
   whole, on the thread that parses them, and whether by ranges. */
static void stream_lines_check(uint64_t seed, long maxlen) {
  for (int raw = 0; raw <= 2; raw++) stream_lines_check_way(seed, maxlen, raw);
}

Test(caseio, stream_blocks_list_the_files_lines) {
  stream_lines_check(0x11e5b10c, 3000);
}

/* Lines up to 700 bytes: most are found and copied in one pass (those of
   up to 512 bytes, 32 or 64 at a time), the others, and those cut by the
   end of a read, by the general path; either way the same lines. */
Test(caseio, stream_short_lines_every_length_and_place) {
  for (int way = 3; way >= 0; way--) { /* AVX-512 and AVX2 where the machine has them, SSE2, the general path alone */
    cr_assert_leq(toi_case_stream_simd_use(way), way);
    stream_lines_check(0x5a17e11e, 700);
    stream_lines_check(0x5a17e11f, 80);
  }
  toi_case_stream_simd_use(-1);
}

/* A NUL in a short line (the one-pass path's lines) ends the file at that
   line, as toi_read_cases reports it, wherever the line is. */
Test(caseio, stream_nul_in_a_short_line_is_refused) {
  for (int at = 0; at < 3 * 4 * 200; at += 7) {
    const int raw = at / (4 * 200); /* 1: the blocks read whole, after the first of 2 lines; 2: by ranges */
    toi_case_stream_simd_use(3 - at % 800 / 200); /* each way: AVX-512, AVX2 where the machine has them, SSE2, the general path */
    char path[512];
    FILE *f = fresh_file(path, sizeof path, "toistreamnul");
    for (int k = 0; k < 3; k++) fprintf(f, "line%d-%0200d\n", k, 0);
    char bad[300];
    memset(bad, 'q', sizeof bad);
    bad[at % 200] = '\0';
    fwrite(bad, 1, 250, f);
    fputc('\n', f);
    for (int k = 0; k < 3; k++) fprintf(f, "after%d\n", k);
    cr_assert_eq(fclose(f), 0);
    toi_diags dg;
    toi_line_block b;
    toi_case_stream *s = stream_open_fresh(path, &dg, &b);
    size_t got = 0;
    toi_status st;
    while (stream_block(s, &b, raw == 1 ? 2 : 100, 1 << 20, raw, &st)) got += b.n;
    cr_assert_eq(st, TOI_ERR_INPUT, "NUL at %d", at);
    cr_assert_leq(got, 3);
    toi_line_block_free(&b);
    cr_assert_eq(toi_case_stream_close(s, &dg), TOI_ERR_INPUT);
    cr_assert_eq(dg.count, 1);
    cr_assert_eq(dg.items[0].line, 4, "NUL at %d", at);
    cr_assert(strstr(dg.items[0].message, "NUL"), "%s", dg.items[0].message);
    unlink(path);
  }
}

/* Line by line, read whole after a first block of 2 lines, or by ranges: a
   line of TOI_LINE_MAX + 1 bytes (the readers' bound) is a line; one byte
   more, or a CR after it, ends the file at that line. */
Test(caseio, stream_overlong_line_ends_the_file_either_way) {
  for (int k = 0; k < 9; k++) {
    const int raw = k % 3, over = k / 3 > 0, cr = k / 3 == 2;
    char path[512];
    FILE *f = fresh_file(path, sizeof path, "toistreamlong");
    for (int i = 0; i < 3; i++) fprintf(f, "line%d\n", i);
    for (long i = 0; i < (long)TOI_LINE_MAX + 1 + (k / 3 == 1); i++) fputc('w', f);
    if (cr) fputc('\r', f);
    fputs("\nafter0\nafter1\n", f);
    cr_assert_eq(fclose(f), 0);
    toi_diags dg;
    toi_line_block b;
    toi_case_stream *s = stream_open_fresh(path, &dg, &b);
    size_t got = 0;
    long last = 0;
    toi_status st;
    while (stream_block(s, &b, 2, 1 << 20, raw, &st))
      for (size_t i = 0; i < b.n; i++, got++) last = b.line[i];
    cr_assert_eq(st, over ? TOI_ERR_INPUT : TOI_OK, "case %d", k);
    if (over) cr_assert_leq(got, 3, "case %d: %zu lines", k, got); /* the blocks before the line's, as cut */
    else cr_assert(got == 6 && last == 6, "case %d: %zu lines, the last %ld", k, got, last);
    toi_line_block_free(&b);
    toi_status cst = toi_case_stream_close(s, &dg);
    if (over) {
      cr_assert_eq(cst, TOI_ERR_INPUT);
      cr_assert_eq(dg.count, 1);
      cr_assert_eq(dg.items[0].line, 4);
      cr_assert(strstr(dg.items[0].message, "longer than"), "%s", dg.items[0].message);
    }
    unlink(path);
  }
}

/* A sparse file of n bytes (holes: no disk used) at a fresh path in TMPDIR. */
static void sparse_file(char *path, size_t size, unsigned long long n) {
  const char *tmp = getenv("TMPDIR");
  snprintf(path, size, "%s/toicaseioXXXXXX", tmp && *tmp ? tmp : "/tmp");
  int fd = mkstemp(path);
  cr_assert_geq(fd, 0, "mkstemp %s", path);
  cr_assert_eq(ftruncate(fd, (off_t)n), 0);
  close(fd);
}

/* TOI_INPUT_MAX is the bound: a regular file one byte larger is refused by
   its size, before a byte is read; one of exactly that size is read (and
   here refused for its first byte, a NUL). */
Test(caseio, input_bound_is_exact_and_checked_before_reading) {
  char path[4200];
  toi_diags dg = {0};
  char *text = NULL;
  size_t len = 0;
  sparse_file(path, sizeof path, (unsigned long long)TOI_INPUT_MAX + 1);
  cr_assert_eq(toi_read_file(&text, &len, path, &dg), TOI_ERR_INPUT);
  unlink(path);
  cr_assert_null(text);
  char want[128];
  snprintf(want, sizeof want, "larger than %zu bytes", (size_t)TOI_INPUT_MAX);
  cr_assert_eq(dg.count, 1);
  cr_assert_str_eq(dg.items[0].file, path);
  cr_assert(strstr(dg.items[0].message, want), "%s", dg.items[0].message);
  memset(&dg, 0, sizeof dg);
  sparse_file(path, sizeof path, (unsigned long long)TOI_INPUT_MAX);
  cr_assert_eq(toi_read_file(&text, &len, path, &dg), TOI_ERR_INPUT);
  unlink(path);
  cr_assert_eq(dg.count, 1);
  cr_assert(strstr(dg.items[0].message, "NUL byte"), "%s", dg.items[0].message);
}

/* A line that does not parse: TOI_ERR_INPUT, the field at fault (rA is field
   7 of a 2D line: ID, dim, pA (2), vA (2), rA) and the reason in the sink. */
Test(caseio, parse_case_line_reports_by_status_and_sink) {
  toi_case c;
  int field = -1;
  char msg[160];
  msg_text mt;
  toi_msg m = msg_text_sink(&mt, msg, sizeof msg);
  cr_assert_eq(toi_parse_case_line(&c, "bad 2 0 0 0 0 -1 1 3 0 0 0 1 1", &field, &m), TOI_ERR_INPUT);
  cr_assert_eq(field, 7);
  cr_assert(strstr(msg, "radius must be >= 0"), "'%s'", msg);
  msg[0] = 0;
  cr_assert_eq(toi_parse_case_line(&c, "ok 2 0 0 0 0 1 1 3 0 0 0 1 1", &field, &m), TOI_OK);
  cr_assert_eq(field, 0);
  cr_assert_str_eq(msg, "", "nothing said on success");
  cr_assert_eq(toi_parse_case_line(&c, "bad 2 0 0 0 0 -1 1 3 0 0 0 1 1", NULL, NULL), TOI_ERR_INPUT);
  cr_assert_eq(toi_parse_case_line(NULL, "x", &field, &m), TOI_ERR_RANGE);
}

/* Every byte value at every place of an ID of 63 bytes, and IDs of every
   length, through the block reader (whose ID is classified sixteen bytes at
   a time): a line is a case exactly when each byte of its ID is a letter, a
   digit or one of ._:- (the format's rule, written out here), and its ID
   array holds the ID then zeros. */
Test(caseio, block_reader_id_bytes_every_value_and_place) {
  enum { NL = 64 };
  char *text = malloc((size_t)NL * 160);
  size_t start[NL];
  long lineno[NL];
  toi_case cases[NL];
  unsigned char ok[NL];
  cr_assert(text);
  static const char nums[] = " 2 0x1p+0 0x1p+1 0x1p+2 0x1p+3 0x1p-1 0x1.8p+0 0x1p+4 0x1p+5 0x1p+6 0x1p+7 0x1p-2 0x1p+0";
  for (int byte = 1; byte < 256; byte++) {
    const int legal = (byte >= '0' && byte <= '9') || (byte >= 'a' && byte <= 'z') || (byte >= 'A' && byte <= 'Z') ||
                      byte == '.' || byte == '_' || byte == ':' || byte == '-';
    for (int half = 0; half < 2; half++) { /* places 0-31, then 32-62 */
      toi_line_block b;
      memset(&b, 0, sizeof b);
      b.text = text, b.start = start, b.line = lineno, b.cases = cases, b.ok = ok;
      size_t at = 0;
      for (int i = 0; i < 32 && 32 * half + i < 63; i++) {
        char *line = text + at;
        memset(line, 'k', 63);
        line[32 * half + i] = (char)byte;
        memcpy(line + 63, nums, sizeof nums);
        start[b.n] = at;
        lineno[b.n] = (long)b.n + 1;
        b.n++;
        at += 63 + sizeof nums;
      }
      b.len = at;
      memset(cases, 0xa5, sizeof cases);
      toi_line_block_parse(&b);
      for (size_t i = 0; i < b.n; i++) {
        const int place = 32 * half + (int)i;
        if ((byte == ' ' || byte == '\t') && (place == 0 || place == 62)) continue; /* a blank before or after the ID */
        cr_assert_eq(ok[i], legal, "byte 0x%02x at place %d", byte, place);
        if (legal) cr_assert(memcmp(cases[i].id, text + start[i], 63) == 0 && cases[i].id[63] == 0);
      }
    }
  }
  /* IDs of 1 to 63 bytes: the ID, then zeros to the array's end */
  toi_line_block b;
  memset(&b, 0, sizeof b);
  b.text = text, b.start = start, b.line = lineno, b.cases = cases, b.ok = ok;
  size_t at = 0;
  for (int len = 1; len <= 63; len++) {
    char *line = text + at;
    for (int k = 0; k < len; k++) line[k] = "Az09._:-"[(k + len) % 8];
    memcpy(line + len, nums, sizeof nums);
    start[b.n] = at;
    lineno[b.n] = (long)b.n + 1;
    b.n++;
    at += (size_t)len + sizeof nums;
  }
  b.len = at;
  memset(cases, 0xa5, sizeof cases);
  toi_line_block_parse(&b);
  for (size_t i = 0; i < b.n; i++) {
    const size_t len = i + 1;
    cr_assert(ok[i], "ID of %zu bytes", len);
    cr_assert(memcmp(cases[i].id, text + start[i], len) == 0, "ID of %zu bytes", len);
    for (size_t k = len; k < sizeof cases[i].id; k++) cr_assert_eq(cases[i].id[k], 0, "ID of %zu bytes, byte %zu", len, k);
  }
  free(text);
}
