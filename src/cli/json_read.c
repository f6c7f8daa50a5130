/* json_read.c: a small JSON reader (RFC 8259) of a bounded buffer, for the results `compare` reads. */
#include "json_read.h"
#include <stdlib.h>
#include <string.h>
#include "numparse.h"

/* The reader's place in text[0..end); what is set at the first problem. */
typedef struct reader {
  const char *start, *p, *end;
  const char *what;
  int nomem;
} reader;

static int fail(reader *r, const char *what) {
  if (!r->what) r->what = what;
  return -1;
}

static int oom(reader *r) {
  r->nomem = 1;
  return fail(r, "out of memory");
}

/* The next byte, or -1 at the end of the buffer. */
static int peek(const reader *r) { return r->p < r->end ? (unsigned char)*r->p : -1; }

static void skip_ws(reader *r) {
  while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r')) r->p++;
}

static int is_digit(int c) { return c >= '0' && c <= '9'; }

static int hex_value(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* The four hex digits of a \u escape at r->p (moved past them), or -1. */
static long hex4(reader *r) {
  if (r->end - r->p < 4) return fail(r, "a \\u escape needs four hex digits");
  long u = 0;
  for (int i = 0; i < 4; i++) {
    int h = hex_value((unsigned char)r->p[i]);
    if (h < 0) {
      r->p += i;
      return fail(r, "a \\u escape needs four hex digits");
    }
    u = u * 16 + h;
  }
  r->p += 4;
  return u;
}

/* Code point u as UTF-8 into out; the number of bytes. */
static size_t utf8_put(char *out, unsigned long u) {
  if (u < 0x80) {
    out[0] = (char)u;
    return 1;
  }
  if (u < 0x800) {
    out[0] = (char)(0xc0 | u >> 6);
    out[1] = (char)(0x80 | (u & 0x3f));
    return 2;
  }
  if (u < 0x10000) {
    out[0] = (char)(0xe0 | u >> 12);
    out[1] = (char)(0x80 | (u >> 6 & 0x3f));
    out[2] = (char)(0x80 | (u & 0x3f));
    return 3;
  }
  out[0] = (char)(0xf0 | u >> 18);
  out[1] = (char)(0x80 | (u >> 12 & 0x3f));
  out[2] = (char)(0x80 | (u >> 6 & 0x3f));
  out[3] = (char)(0x80 | (u & 0x3f));
  return 4;
}

/* A \u escape's code point (r->p after the 'u'), a surrogate pair joined. */
static long escape_u(reader *r) {
  long u = hex4(r);
  if (u < 0) return -1;
  if (u == 0) return fail(r, "a \\u0000 escape (a NUL inside a string)");
  if (u >= 0xdc00 && u <= 0xdfff) return fail(r, "a low surrogate escape without its high surrogate");
  if (u < 0xd800 || u > 0xdbff) return u;
  if (r->end - r->p < 2 || r->p[0] != '\\' || r->p[1] != 'u')
    return fail(r, "a high surrogate escape without its low surrogate");
  r->p += 2;
  long lo = hex4(r);
  if (lo < 0) return -1;
  if (lo < 0xdc00 || lo > 0xdfff) return fail(r, "a high surrogate escape without its low surrogate");
  return 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
}

/* A string, r->p after its opening quote, into a malloc'ed string
   (*out); r->p after its closing quote. Escapes only shrink the text, so the
   room is the raw length. */
static int string(reader *r, char **out) {
  const char *q = r->p;
  while (q < r->end && *q != '"') q += *q == '\\' && q + 1 < r->end ? 2 : 1;
  if (q >= r->end) {
    r->p = r->end;
    return fail(r, "the text ends inside a string (no closing quote)");
  }
  char *s = malloc((size_t)(q - r->p) + 1);
  if (!s) return oom(r);
  size_t n = 0;
  for (;;) {
    unsigned char c = (unsigned char)*r->p;
    if (c == '"') break;
    if (c < 0x20) {
      free(s);
      return fail(r, "a control character inside a string");
    }
    if (c != '\\') { /* byte for byte: run writes a file name's bytes as they are, UTF-8 or not */
      s[n++] = (char)c;
      r->p++;
      continue;
    }
    r->p++;
    c = (unsigned char)*r->p++;
    const char *e = c ? strchr("\"\\/bfnrt", c) : NULL;
    if (e) {
      s[n++] = "\"\\/\b\f\n\r\t"[e - "\"\\/bfnrt"];
    } else if (c == 'u') {
      long u = escape_u(r);
      if (u < 0) {
        free(s);
        return -1;
      }
      n += utf8_put(s + n, (unsigned long)u);
    } else {
      r->p--;
      free(s);
      return fail(r, "an unknown escape inside a string");
    }
  }
  r->p++;
  s[n] = 0;
  *out = s;
  return 0;
}

/* A number with JSON's grammar, -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?,
   read as the nearest double (toi_parse_double reads a superset of it). */
static int number(reader *r, double *out) {
  const char *q = r->p;
  if (q < r->end && *q == '-') q++;
  if (q < r->end && *q == '0') q++;
  else if (q < r->end && *q >= '1' && *q <= '9')
    while (q < r->end && is_digit(*q)) q++;
  else return fail(r, "not a JSON value");
  if (q < r->end && *q == '.') {
    if (!(++q < r->end && is_digit(*q))) return r->p = q, fail(r, "a digit must follow a decimal point");
    while (q < r->end && is_digit(*q)) q++;
  }
  if (q < r->end && (*q == 'e' || *q == 'E')) {
    q++;
    if (q < r->end && (*q == '+' || *q == '-')) q++;
    if (!(q < r->end && is_digit(*q))) return r->p = q, fail(r, "an exponent needs a digit");
    while (q < r->end && is_digit(*q)) q++;
  }
  size_t len = (size_t)(q - r->p);
  char small[128], *tok = len < sizeof small ? small : malloc(len + 1);
  if (!tok) return oom(r);
  memcpy(tok, r->p, len);
  tok[len] = 0;
  toi_num_status st = toi_parse_double(tok, out);
  if (tok != small) free(tok);
  if (st != TOI_NUM_OK) return fail(r, st == TOI_NUM_OVERFLOW ? "a number beyond the double range" : "not a number");
  r->p = q;
  return 0;
}

static int value(reader *r, json_value *v, int depth);

/* The members of an array or an object, r->p after its opening bracket. The
   room grows by doubling and is cut to the count at the end, so that a
   finished container holds no slack. */
static int members(reader *r, json_value *v, int depth) {
  int obj = v->type == JSON_OBJ;
  char close = obj ? '}' : ']';
  size_t cap = 0;
  skip_ws(r);
  if (peek(r) == close) {
    r->p++;
    return 0;
  }
  for (;;) {
    if (v->n == cap) {
      cap = cap ? 2 * cap : 1;
      json_value *items = realloc(v->items, cap * sizeof *items);
      if (items) v->items = items;
      char **keys = obj ? realloc(v->keys, cap * sizeof *keys) : NULL;
      if (keys) v->keys = keys;
      if (!items || (obj && !keys)) return oom(r);
    }
    memset(&v->items[v->n], 0, sizeof v->items[0]);
    if (obj) v->keys[v->n] = NULL;
    v->n++; /* freeable from here on */
    if (obj) {
      skip_ws(r);
      if (peek(r) != '"') return fail(r, "a member's name (a string) expected");
      r->p++;
      if (string(r, &v->keys[v->n - 1])) return -1;
      skip_ws(r);
      if (peek(r) != ':') return fail(r, "':' expected after a member's name");
      r->p++;
    }
    if (value(r, &v->items[v->n - 1], depth + 1)) return -1;
    skip_ws(r);
    int c = peek(r);
    if (c == close) break;
    if (c != ',') return fail(r, obj ? "',' or '}' expected" : "',' or ']' expected");
    r->p++;
  }
  r->p++;
  json_value *items = realloc(v->items, v->n * sizeof *items);
  if (items) v->items = items;
  char **keys = obj ? realloc(v->keys, v->n * sizeof *keys) : NULL;
  if (keys) v->keys = keys;
  return 0;
}

static int value(reader *r, json_value *v, int depth) {
  memset(v, 0, sizeof *v);
  skip_ws(r);
  int c = peek(r);
  if (c == '{' || c == '[') {
    if (depth >= JSON_MAX_DEPTH) return fail(r, "arrays and objects nested too deep");
    r->p++;
    v->type = c == '{' ? JSON_OBJ : JSON_ARR;
    return members(r, v, depth);
  }
  if (c == '"') {
    r->p++;
    v->type = JSON_STR;
    return string(r, &v->str);
  }
  static const char *const words[] = {"null", "true", "false"};
  for (int i = 0; i < 3; i++) {
    size_t len = strlen(words[i]);
    if ((size_t)(r->end - r->p) >= len && !memcmp(r->p, words[i], len)) {
      r->p += len;
      v->type = i ? JSON_BOOL : JSON_NULL;
      v->num = i == 1;
      return 0;
    }
  }
  if (c < 0) return fail(r, "a value expected, found the end of the text");
  v->type = JSON_NUM;
  return number(r, &v->num);
}

/* Where r stopped, as a line and a column, into err. */
static void locate(const reader *r, json_error *err) {
  err->offset = (size_t)(r->p - r->start);
  err->line = 1;
  err->column = 1;
  for (const char *q = r->start; q < r->p; q++) {
    if (*q == '\n') err->line++, err->column = 1;
    else err->column++;
  }
  err->what = r->what;
}

int json_parse(json_value *v, const char *text, size_t len, json_error *err) {
  memset(v, 0, sizeof *v);
  reader r = {text, text, text + len, NULL, 0};
  const char *nul = memchr(text, 0, len);
  if (nul) {
    r.p = nul;
    r.what = "a NUL byte (not a text file)";
  } else if (!value(&r, v, 0)) {
    skip_ws(&r);
    if (r.p < r.end) fail(&r, "more after the end of the value");
  }
  if (!r.what) return 0;
  json_free(v);
  locate(&r, err);
  return r.nomem ? -2 : -1;
}

void json_free(json_value *v) {
  free(v->str);
  for (size_t i = 0; i < v->n; i++) {
    if (v->keys) free(v->keys[i]);
    json_free(&v->items[i]);
  }
  free(v->keys);
  free(v->items);
  memset(v, 0, sizeof *v);
}

const json_value *json_get(const json_value *obj, const char *key) {
  if (!obj || obj->type != JSON_OBJ) return NULL;
  for (size_t i = 0; i < obj->n; i++)
    if (!strcmp(obj->keys[i], key)) return &obj->items[i];
  return NULL;
}
