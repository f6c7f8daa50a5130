/* test_redteam.c: the red team's worst case files through every command that reads them: clear errors, exit 3, no output. */
/* NUL bytes, /dev/zero, 10 MB of random bytes, lines at the 1 MiB bound and
 * hostile numbers, through reference, run, solve and audit. `make sanitize`
 * builds the whole suite with ASan and UBSan, so these inputs run there too:
 * an out-of-bounds read or an undefined conversion on any of them fails the
 * sanitized run. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "test_env.h"
#include "test_rng.h"
#include "tmp_dir.h"
#include "toi.h"

/* The commands that read case files, with the options each needs. */
static const char *const rt_cmds[] = {"reference", "run -f all", "solve -f robust", "audit"};
#define RT_NCMDS (sizeof rt_cmds / sizeof *rt_cmds)

/* Writes n bytes to the file name in the test's directory. */
static void rt_put_bytes(const char *name, const void *data, size_t n) {
  FILE *f = fopen(td_path(name), "wb");
  cr_assert_not_null(f);
  cr_assert_eq(fwrite(data, 1, n, f), n);
  cr_assert_eq(fclose(f), 0);
}

/* 1 when every byte of s is printable ASCII or a newline: what a file holds
   never reaches the terminal as it is. */
static int rt_printable(const char *s) {
  for (; *s; s++)
    if (*s != '\n' && (*s < 0x20 || *s > 0x7e)) return 0;
  return 1;
}

/* Every command on file (a path as the command sees it, from the test's
   directory) must refuse it (rt_refused_by: the first ncmds of them): exit 3, want in its messages, the closing
   "nothing was written", nothing on stdout, and with -o no file. */
static void rt_refused_by(const char *file, const char *want, size_t ncmds) {
  for (size_t k = 0; k < ncmds; k++) {
    char args[512];
    snprintf(args, sizeof args, "%s %s >out", rt_cmds[k], file);
    int st = td_tb(args);
    char *err = td_read("err"), *out = td_read("out");
    cr_assert_eq(st, 3, "%s: exit %d, stderr:\n%s", args, st, err);
    cr_assert(strstr(err, want), "%s: stderr lacks '%s':\n%.2000s", args, want, err);
    cr_assert(strstr(err, "toibench: invalid input: nothing was written\n"), "%s:\n%.2000s", args, err);
    cr_assert(rt_printable(err), "%s: a raw byte reached stderr", args);
    cr_assert_eq(out[0], 0, "%s: stdout not empty:\n%.200s", args, out);
    free(err);
    free(out);
    snprintf(args, sizeof args, "%s %s -o res", rt_cmds[k], file);
    cr_assert_eq(td_tb(args), 3, "%s", args);
    cr_assert(!td_exists(td_path("res")), "%s left a file", args);
  }
}

static void rt_refused(const char *file, const char *want) { rt_refused_by(file, want, RT_NCMDS); }

/* The first ncmds commands on file must succeed; reference's output is
   returned (the caller frees it). */
static char *rt_accepted_by(const char *file, size_t ncmds) {
  for (size_t k = 1; k < ncmds; k++) {
    char args[512];
    snprintf(args, sizeof args, "%s %s >out", rt_cmds[k], file);
    int st = td_tb(args);
    char *err = td_read("err");
    cr_assert_eq(st, 0, "%s: exit %d, stderr:\n%.2000s", args, st, err);
    free(err);
  }
  char args[512];
  snprintf(args, sizeof args, "reference %s >out", file);
  int st = td_tb(args);
  char *err = td_read("err");
  cr_assert_eq(st, 0, "%s: exit %d, stderr:\n%.2000s", args, st, err);
  free(err);
  return td_read("out");
}

static char *rt_accepted(const char *file) { return rt_accepted_by(file, RT_NCMDS); }

#define RT_LINE "a 2  0 0  0 0  1 1   3 0  -1 0  1 1\n"

Test(redteam, nul_bytes, .init = td_setup, .fini = td_teardown) {
  rt_put_bytes("first.cases", "\0", 1);
  rt_refused("first.cases", "first.cases:1: NUL byte in the file (not a text file)");
  const char mid[] = RT_LINE "b 2  0 0\0 0 0  1 1   3 0  -1 0  1 1\n";
  rt_put_bytes("mid.cases", mid, sizeof mid - 1);
  rt_refused("mid.cases", "mid.cases:2: NUL byte in the file (not a text file)");
  const char last[] = RT_LINE RT_LINE "\0";
  rt_put_bytes("last.cases", last, sizeof last - 1);
  rt_refused("last.cases", "last.cases:3: NUL byte in the file (not a text file)");
}

/* An endless file of NUL bytes: refused at once, not read to the end. */
Test(redteam, dev_zero, .init = td_setup, .fini = td_teardown, .timeout = 60) { rt_refused("/dev/zero", "/dev/zero"); }

/* 10 MB of random bytes (a fixed seed, TOI_TEST_SEED to change it): as they
   are (NUL bytes among them), and as text (no NUL, a newline every few
   hundred bytes), where every line is wrong and the first one is named. */
Test(redteam, ten_megabytes_of_random_bytes, .init = td_setup, .fini = td_teardown, .timeout = 120) {
  const size_t n = (size_t)10 << 20;
  unsigned char *b = malloc(n);
  cr_assert_not_null(b);
  test_rng r = {te_seed(0x7ed7ea3u)};
  for (size_t i = 0; i < n; i += 8) {
    uint64_t x = test_rng_next(&r);
    for (size_t j = 0; j < 8 && i + j < n; j++) b[i + j] = (unsigned char)(x >> (8 * j));
  }
  b[0] = 0xff; /* the first line is not empty whatever the seed */
  rt_put_bytes("raw.bin", b, n);
  rt_refused("raw.bin", "raw.bin:");
  for (size_t i = 0; i < n; i++) {
    if (b[i] == 0) b[i] = 1;
    if (b[i] == '\n' || (b[i] & 63) == 0) b[i] = i % 3 ? 0x80 : '\n';
  }
  b[0] = 0xff;
  rt_put_bytes("rand.txt", b, n);
  rt_refused("rand.txt", "rand.txt:1: field ");
  free(b);
}

/* A line of exactly TOI_LINE_MAX characters is read (here a number of a
   million digits, 0.000...05 scaled to 5 10^-k, far below anything that
   changes the answer next to 3), with or without a CR before its newline;
   one character more is refused, whichever path reads the line (a tab sends
   it to the general one); a 3 MiB line is refused early. */
Test(redteam, lines_at_the_one_mebibyte_bound, .init = td_setup, .fini = td_teardown, .timeout = 120) {
  const char *pre = "big 2  0 0  0 0  1 1   3 ", *post = "  -1 0  1 1";
  size_t lp = strlen(pre), lq = strlen(post), max = TOI_LINE_MAX;
  char *line = malloc(4 * max);
  cr_assert_not_null(line);
  /* exactly max characters: pre, the number (0. then zeros then 5), post */
  size_t nd = max - lp - lq;
  memcpy(line, pre, lp);
  memcpy(line + lp, "0.", 2);
  memset(line + lp + 2, '0', nd - 3);
  line[lp + nd - 1] = '5';
  memcpy(line + lp + nd, post, lq);
  line[max] = '\n';
  rt_put_bytes("max.cases", line, max + 1);
  td_put("small.cases", "big 2  0 0  0 0  1 1   3 0  -1 0  1 1\n");
  char *want = rt_accepted("small.cases");
  char *got = rt_accepted("max.cases");
  cr_assert_str_eq(got, want, "a line of %zu characters", max);
  free(got);
  /* the same with CRLF */
  line[max] = '\r';
  line[max + 1] = '\n';
  rt_put_bytes("crlf.cases", line, max + 2);
  got = rt_accepted("crlf.cases");
  cr_assert_str_eq(got, want);
  free(got);
  free(want);
  /* one zero more: max + 1 characters, refused by the fast path's reading and by the general one's */
  memmove(line + lp + 3, line + lp + 2, max - lp - 2);
  line[lp + 2] = '0';
  line[max + 1] = '\n';
  rt_put_bytes("over.cases", line, max + 2);
  rt_refused("over.cases", "over.cases:1: line is longer than 1048576 characters");
  line[3] = '\t';
  rt_put_bytes("over-tab.cases", line, max + 2);
  rt_refused("over-tab.cases", "over-tab.cases:1: line is longer than 1048576 characters");
  /* 3 MiB of digits in one line */
  memcpy(line, pre, lp);
  memset(line + lp, '1', 3 * max);
  line[lp + 3 * max] = '\n';
  rt_put_bytes("huge.cases", line, lp + 3 * max + 1);
  rt_refused("huge.cases", "huge.cases:1: line is longer than 1048576 characters");
  free(line);
}

/* Numbers at and beyond the edges of binary64, in field 10 (pB.y) of a case
   that hits at t = 1 (s = (3, y), v = (-1, 0), R = 2 with y = 0): a number
   that rounds to 0 or a subnormal is read as that double (the answer is the
   one of the double it names), one beyond the range or not finite is
   refused, naming the field and the text. */
typedef struct rt_number {
  const char *text;
  const char *same_as; /* accepted: the double it names, in another spelling; NULL: refused */
  const char *why;     /* refused: the message's end */
} rt_number;

static const rt_number rt_numbers[] = {
    {"-0", "0", NULL},
    {"-0.0e-999", "0", NULL},
    {"1e-400", "0", NULL},
    {"0x1p-1075", "0", NULL}, /* half the smallest subnormal: a tie, to the even 0 */
    {"4.9e-324", "0x1p-1074", NULL},
    {"2.4703282292062328e-324", "0x1p-1074", NULL}, /* just above 2^-1075: up to 2^-1074 */
    {"0x1.8p-1074", "0x1p-1073", NULL},            /* 1.5 subnormals: to the even 2 */
    {"2.2250738585072011e-308", "0x0.fffffffffffffp-1022", NULL},
    {"1.7976931348623157e308", "0x1.fffffffffffffp1023", NULL},
    {"1.7976931348623158e308", "0x1.fffffffffffffp1023", NULL}, /* below the midpoint to 2^1024 */
    {"1.7976931348623159e308", NULL, "'1.7976931348623159e308' is beyond the double range (overflow)"},
    {"0x1.fffffffffffff8p1023", NULL, "'0x1.fffffffffffff8p1023' is beyond the double range (overflow)"}, /* the midpoint: to 2^1024 */
    {"1e309", NULL, "'1e309' is beyond the double range (overflow)"},
    {"-1e99999999999999999999", NULL, "'-1e99999999999999999999' is beyond the double range (overflow)"},
    {"nan", NULL, "'nan' is not finite (NaN and Inf are not allowed)"},
    {"-NaN", NULL, "'-NaN' is not finite (NaN and Inf are not allowed)"},
    {"inf", NULL, "'inf' is not finite (NaN and Inf are not allowed)"},
    {"-Infinity", NULL, "'-Infinity' is not finite (NaN and Inf are not allowed)"},
    {"0x", NULL, "'0x' is not a number"},
    {"1e", NULL, "'1e' is not a number"},
    {".e1", NULL, "'.e1' is not a number"},
    {"1,5", NULL, "'1,5' is not a number"},
};

Test(redteam, hostile_numbers, .init = td_setup, .fini = td_teardown) {
  for (size_t i = 0; i < sizeof rt_numbers / sizeof *rt_numbers; i++) {
    const rt_number *n = &rt_numbers[i];
    char text[256];
    snprintf(text, sizeof text, "h 2  0 0  0 0  1 1   3 %s  -1 0  1 1\n", n->text);
    td_put("n.cases", text);
    if (n->same_as) {
      char *got = rt_accepted_by("n.cases", 2);
      snprintf(text, sizeof text, "h 2  0 0  0 0  1 1   3 %s  -1 0  1 1\n", n->same_as);
      td_put("n.cases", text);
      char *want = rt_accepted_by("n.cases", 1);
      cr_assert_str_eq(got, want, "%s read as another double than %s", n->text, n->same_as);
      free(got);
      free(want);
    } else {
      char want[256];
      snprintf(want, sizeof want, "n.cases:1: field 10 (pB.y): %s", n->why);
      rt_refused_by("n.cases", want, i % 2 ? 2 : RT_NCMDS);
    }
  }
}

/* Valid cases at the edges of what the numbers allow (the largest and the
   subnormal positions and speeds, zero radii, -0, masses 10^-300 and
   10^300, radii near DBL_MAX in 3D) go through every command and every
   formulation: exit 0, one line per case from reference. */
Test(redteam, extreme_valid_cases, .init = td_setup, .fini = td_teardown, .timeout = 120) {
  td_put("ext.cases",
         "huge-pos 2 -1.7976931348623157e308 0 1 0 1 1 1.7976931348623157e308 0 -1 0 1 1\n"
         "huge-vel 2 0 0 1.7976931348623157e308 0 1 1 10 0 -1.7976931348623157e308 0 1 1\n"
         "sub-vel 2 0 0 0 0 1 1 3 0 -4.9e-324 0 1 1\n"
         "sub-all 2 0 0 0 0 0x1p-1074 1 0x1p-1072 0 -0x1p-1074 0 0x1p-1074 1\n"
         "zero-radii 2 0 0 0 0 0 1 0 0 0 0 0 1\n"
         "zero-radii-moving 2 0 0 1 0 0 1 1 0 0 0 0 1\n"
         "neg-zero 2 -0 -0 -0 -0 1 1 -0 3 -0 -1 1 1\n"
         "mass-range 2 0 0 0 0 1 1e-300 3 0 -1 0 1 1e300\n"
         "huge-radii 3 0 0 0 0 0 0 1e308 1 1e308 1e308 1e308 -1e308 -1e308 -1e308 1e308 1\n"
         "tiny-speed 3 0 0 0 0 0 0 1 1 2.0000000000000004 0 0 -1e-300 0 0 1 1\n");
  char *ref = rt_accepted("ext.cases");
  size_t lines = 0;
  for (const char *p = ref; *p; p++) lines += *p == '\n';
  cr_assert_eq(lines, 10, "%s", ref);
  cr_assert(strstr(ref, "neg-zero hit 0x1p+0 "), "%s", ref);
  free(ref);
}
