/* fuzz_json.c: libFuzzer harness for compare's JSON reader (json_parse), with a write/read round trip. */
#include <stdint.h>
#include "fuzz_support.h"
#include "json_read.h"

/* The tree's shape as the reader promises it: strings and names present, the
   depth bound, members that are all there. */
static void check_tree(const json_value *v, int depth) {
  FZ_CHECK(v->type >= JSON_NULL && v->type <= JSON_OBJ);
  if (v->type == JSON_STR) FZ_CHECK(v->str != NULL);
  if (v->type == JSON_BOOL) FZ_CHECK(v->num == 0 || v->num == 1);
  if (v->type == JSON_NUM) FZ_CHECK(v->num - v->num == 0); /* finite */
  if (v->type != JSON_ARR && v->type != JSON_OBJ) {
    FZ_CHECK(v->n == 0 && !v->items && !v->keys);
    return;
  }
  FZ_CHECK(depth < JSON_MAX_DEPTH);
  FZ_CHECK((v->type == JSON_OBJ) == (v->keys != NULL) || v->n == 0);
  for (size_t i = 0; i < v->n; i++) {
    if (v->type == JSON_OBJ) FZ_CHECK(v->keys[i] != NULL);
    check_tree(&v->items[i], depth + 1);
  }
}

static void put_string(FILE *f, const char *s) {
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
    else if (*p < 0x20) fprintf(f, "\\u%04x", *p);
    else fputc(*p, f);
  }
  fputc('"', f);
}

/* v as JSON text: numbers by %.17g (round-trip exact), strings escaped only
   where JSON requires it. */
static void put_value(FILE *f, const json_value *v) {
  switch (v->type) {
  case JSON_NULL: fputs("null", f); break;
  case JSON_BOOL: fputs(v->num ? "true" : "false", f); break;
  case JSON_NUM: fprintf(f, "%.17g", v->num); break;
  case JSON_STR: put_string(f, v->str); break;
  default:
    fputc(v->type == JSON_OBJ ? '{' : '[', f);
    for (size_t i = 0; i < v->n; i++) {
      if (i) fputc(',', f);
      if (v->type == JSON_OBJ) {
        put_string(f, v->keys[i]);
        fputc(':', f);
      }
      put_value(f, &v->items[i]);
    }
    fputc(v->type == JSON_OBJ ? '}' : ']', f);
  }
}

static char *write_value(const json_value *v, size_t *len) {
  char *text = NULL;
  FILE *f = open_memstream(&text, len);
  FZ_CHECK(f != NULL);
  put_value(f, v);
  FZ_CHECK(fclose(f) == 0);
  return text;
}

static int same_value(const json_value *a, const json_value *b) {
  if (a->type != b->type || a->n != b->n) return 0;
  if ((a->type == JSON_NUM || a->type == JSON_BOOL) && !fz_same_double(a->num, b->num)) return 0;
  if (a->type == JSON_STR && strcmp(a->str, b->str)) return 0;
  for (size_t i = 0; i < a->n; i++) {
    if (a->type == JSON_OBJ && strcmp(a->keys[i], b->keys[i])) return 0;
    if (!same_value(&a->items[i], &b->items[i])) return 0;
  }
  return 1;
}

/* A value read is written and read back: the same tree, and writing it again
   gives the same bytes. */
static void round_trip(const json_value *v) {
  size_t len1, len2;
  char *first = write_value(v, &len1);
  json_value back;
  json_error err;
  FZ_CHECK(json_parse(&back, first, len1, &err) == 0);
  FZ_CHECK(same_value(v, &back));
  char *second = write_value(&back, &len2);
  FZ_CHECK(len1 == len2 && memcmp(first, second, len1) == 0);
  json_free(&back);
  free(first);
  free(second);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* A copy of exactly size bytes: ASan sees any read past the end. */
  char *text = malloc(size ? size : 1);
  FZ_CHECK(text != NULL);
  memcpy(text, data, size);
  json_value v;
  json_error err;
  int rc = json_parse(&v, text, size, &err);
  FZ_CHECK(rc == 0 || rc == -1);
  if (rc == 0) {
    FZ_CHECK(memchr(text, 0, size) == NULL); /* a NUL byte is never valid input */
    check_tree(&v, 0);
    round_trip(&v);
    const json_value *k = json_get(&v, "format");
    FZ_CHECK(v.type == JSON_OBJ || k == NULL);
  } else {
    FZ_CHECK(err.what != NULL && err.offset <= size && err.line >= 1 && err.column >= 1);
    FZ_CHECK(v.n == 0 && !v.items && !v.keys && !v.str); /* nothing left allocated */
  }
  json_free(&v);
  free(text);
  return 0;
}
