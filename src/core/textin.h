/* textin.h: the checks every text reader of the library makes first: byte order mark, NUL bytes, control characters (private). */
#ifndef TOI_TEXTIN_H
#define TOI_TEXTIN_H

#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* Bytes to skip at the start: 3 for a UTF-8 byte order mark (some editors
   write one; it is not data), else 0. */
static inline size_t text_bom_len(const char *text, size_t len) {
  return len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3) ? 3 : 0;
}

/* The line (from 1) of the first NUL byte, which means the file is not text;
   0 when there is none. */
static inline long text_nul_line(const char *text, size_t len) {
  const char *z = memchr(text, '\0', len);
  if (!z) return 0;
  long ln = 1;
  for (const char *p = text; p < z; p++) ln += *p == '\n';
  return ln;
}

/* The first control character (below 0x20, or 0x7f) of a field, or -1. */
static inline int text_control_byte(const char *tok) {
  for (const unsigned char *q = (const unsigned char *)tok; *q; q++)
    if (*q < 0x20 || *q == 0x7f) return *q;
  return -1;
}

/* Input bytes shown to a person in a message: at most max of them, each byte
   outside printable ASCII (control characters, invalid or any UTF-8) as
   \xHH, so that no raw input byte reaches a terminal; cut short rather than
   overflow out. Returns out. */
static inline const char *text_printable(const char *in, size_t max, char *out, size_t outsz) {
  size_t k = 0;
  for (size_t i = 0; in[i] && i < max && k + 5 < outsz; i++) {
    unsigned char ch = (unsigned char)in[i];
    if (ch >= 0x20 && ch < 0x7f)
      out[k++] = (char)ch;
    else
      k += (size_t)snprintf(out + k, outsz - k, "\\x%02x", ch);
  }
  out[k] = 0;
  return out;
}

#endif
