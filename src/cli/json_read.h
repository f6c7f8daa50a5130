/* json_read.h: a small JSON reader (RFC 8259) of a bounded buffer, for the results `compare` reads. */
#ifndef TOI_JSON_READ_H
#define TOI_JSON_READ_H

#include <stddef.h>

/// The kinds of value.
typedef enum json_type { JSON_NULL, JSON_BOOL, JSON_NUM, JSON_STR, JSON_ARR, JSON_OBJ } json_type;

/// One value and, for an array or an object, its members (in file order).
typedef struct json_value {
  json_type type;
  double num;                /* JSON_NUM; JSON_BOOL: 1 true, 0 false */
  char *str;                 /* JSON_STR: NUL-terminated (a \u0000 escape is refused); bytes other
                                than escapes are kept as they are, UTF-8 or not */
  size_t n;                  /* members of JSON_ARR and JSON_OBJ */
  char **keys;               /* JSON_OBJ: the members' names, as str */
  struct json_value *items;  /* JSON_ARR, JSON_OBJ: the members' values */
} json_value;

/// Deepest nesting of arrays and objects read (a deeper document is refused,
/// so that the recursion's stack stays small).
#define JSON_MAX_DEPTH 64

/// Why json_parse refused its input: the byte offset (from 0) where it
/// stopped, its line and column (from 1), and what was wrong there.
typedef struct json_error {
  size_t offset;
  long line, column;
  const char *what;
} json_error;

/// Reads text[0..len) as one JSON value, with only whitespace around it. The
/// buffer need not be NUL-terminated and is never read past len; a NUL byte
/// anywhere in it is invalid input. Numbers must be within the double range.
/// Returns 0, -1 for invalid input (*err says where and why) or -2 when out of
/// memory. *v is always left freeable with json_free, and empty unless 0.
/// Memory: a value takes 48 bytes and at least 2 bytes of text ("0,"), and a
/// finished array or object keeps no spare room, so the tree takes at most
/// about 50 bytes per byte of text (1 MiB of adversarial text: 34 MiB at most).
int json_parse(json_value *v, const char *text, size_t len, json_error *err);

/// Frees what json_parse allocated in v (and leaves v empty).
void json_free(json_value *v);

/// The value of obj's first member named key, or NULL (also when obj is NULL
/// or not an object).
const json_value *json_get(const json_value *obj, const char *key);

#endif
