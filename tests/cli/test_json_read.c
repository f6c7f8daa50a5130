/* test_json_read.c: compare's JSON reader (src/cli/json_read.c) against RFC 8259, on buffers without a NUL end. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "json_read.h"

/* Parses the first len bytes of text from a copy of exactly that size, so
   that a read past the end would be one past a malloc'ed block. */
static int parse_n(json_value *v, const char *text, size_t len, json_error *err) {
  char *copy = malloc(len ? len : 1);
  cr_assert_not_null(copy);
  memcpy(copy, text, len);
  int rc = json_parse(v, copy, len, err);
  free(copy);
  return rc;
}

static int parse(json_value *v, const char *text, json_error *err) { return parse_n(v, text, strlen(text), err); }

/* Expects text refused at line:column with a message holding what. */
static void refused(const char *text, size_t len, long line, long column, const char *what) {
  json_value v;
  json_error err;
  cr_assert_eq(parse_n(&v, text, len, &err), -1, "accepted: %.*s", (int)len, text);
  cr_assert_eq(err.line, line, "%.*s: line %ld", (int)len, text, err.line);
  cr_assert_eq(err.column, column, "%.*s: column %ld", (int)len, text, err.column);
  cr_assert(strstr(err.what, what), "%.*s: '%s'", (int)len, text, err.what);
  cr_assert(v.n == 0 && !v.items && !v.keys && !v.str);
}

Test(json_read, values_and_members) {
  json_value v;
  json_error err;
  cr_assert_eq(parse(&v, " {\"a\": [1, -0.5e1, true, null], \"b\": {\"c\": \"d\"}, \"a\": 2}\n", &err), 0);
  cr_assert_eq(v.type, JSON_OBJ);
  cr_assert_eq(v.n, 3);
  const json_value *a = json_get(&v, "a"); /* the first of two */
  cr_assert(a && a->type == JSON_ARR && a->n == 4);
  cr_assert(a->items[0].type == JSON_NUM && a->items[0].num == 1);
  cr_assert(a->items[1].type == JSON_NUM && a->items[1].num == -5);
  cr_assert(a->items[2].type == JSON_BOOL && a->items[2].num == 1);
  cr_assert_eq(a->items[3].type, JSON_NULL);
  cr_assert_str_eq(json_get(json_get(&v, "b"), "c")->str, "d");
  cr_assert_null(json_get(&v, "z"));
  cr_assert_null(json_get(a, "a"));
  json_free(&v);
}

/* Numbers as the nearest double; a value that rounds beyond the range is refused. */
Test(json_read, numbers) {
  json_value v;
  json_error err;
  cr_assert_eq(parse(&v, "[0.1, 4.9406564584124654e-324, 1.7976931348623157e308, -0, 1E2]", &err), 0);
  cr_assert_eq(v.items[0].num, 0.1);
  cr_assert_eq(v.items[1].num, 0x1p-1074);
  cr_assert_eq(v.items[2].num, 0x1.fffffffffffffp+1023);
  cr_assert(v.items[3].num == 0 && signbit(v.items[3].num));
  cr_assert_eq(v.items[4].num, 100);
  json_free(&v);
  refused("[1e400]", 7, 1, 2, "beyond the double range");
  refused("[01]", 4, 1, 3, "',' or ']' expected");
  refused("[1.]", 4, 1, 4, "digit must follow");
  refused("[-]", 3, 1, 2, "not a JSON value");
  refused("[.5]", 4, 1, 2, "not a JSON value");
  refused("[1e]", 4, 1, 4, "exponent");
}

/* Escapes as RFC 8259 section 7 says: U+1F600 from its surrogate pair is
   F0 9F 98 80; a lone surrogate and \u0000 are refused. */
Test(json_read, strings) {
  json_value v;
  json_error err;
  cr_assert_eq(parse(&v, "\"\\\"\\\\\\/\\b\\f\\n\\r\\t \\u00e9\\u20ac\\ud83d\\ude00\"", &err), 0);
  cr_assert_str_eq(v.str, "\"\\/\b\f\n\r\t \xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
  json_free(&v);
  /* Bytes outside escapes are kept: run writes a program's file name as it is. */
  cr_assert_eq(parse(&v, "\"caf\xe9 \xc3\xa9\"", &err), 0);
  cr_assert_str_eq(v.str, "caf\xe9 \xc3\xa9");
  json_free(&v);
  refused("\"\\ud83d\"", 8, 1, 8, "without its low surrogate");
  refused("\"\\ude00\"", 8, 1, 8, "without its high surrogate");
  refused("\"a\\u0000\"", 9, 1, 9, "\\u0000");
  refused("\"\\x\"", 4, 1, 3, "unknown escape");
  refused("\"\\u12\"", 6, 1, 4, "four hex digits");
  refused("\"a\tb\"", 5, 1, 3, "control character");
  refused("\"abc", 4, 1, 5, "ends inside a string");
}

/* A NUL byte anywhere is invalid input; the buffer's end is the text's end
   wherever it falls. */
Test(json_read, nul_bytes_and_ends) {
  refused("\0", 1, 1, 1, "NUL byte");
  refused("{\"a\": 1}\0", 9, 1, 9, "NUL byte");
  refused("{\"a\":\n \"b\0\"}", 12, 2, 4, "NUL byte");
  refused("{\"a\": 1", 7, 1, 8, "',' or '}' expected");
  refused("{\"a\": tru", 9, 1, 7, "not a JSON value");
  refused("", 0, 1, 1, "found the end");
  refused("{} {}", 5, 1, 4, "more after the end");
  json_value v;
  json_error err;
  cr_assert_eq(parse_n(&v, "[true]garbage", 6, &err), 0); /* only len bytes are the text */
  cr_assert_eq(v.n, 1);
  json_free(&v);
}

/* JSON_MAX_DEPTH nested arrays are read; one more is refused. */
Test(json_read, depth_bound) {
  char text[2 * JSON_MAX_DEPTH + 3];
  for (int extra = 0; extra <= 1; extra++) {
    int d = JSON_MAX_DEPTH + extra;
    memset(text, '[', (size_t)d);
    memset(text + d, ']', (size_t)d);
    json_value v;
    json_error err;
    int rc = parse_n(&v, text, (size_t)(2 * d), &err);
    if (!extra) {
      cr_assert_eq(rc, 0);
      json_free(&v);
    } else {
      cr_assert_eq(rc, -1);
      cr_assert_eq(err.column, JSON_MAX_DEPTH + 1);
      cr_assert(strstr(err.what, "nested too deep"));
    }
  }
}
