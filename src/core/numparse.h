/* numparse.h: a decimal or hexadecimal number token read as the nearest double, without strtod's cost (private). */
#ifndef TOI_NUMPARSE_H
#define TOI_NUMPARSE_H

/* What toi_parse_double found. */
typedef enum toi_num_status {
  TOI_NUM_OK = 0,       /* *out holds the nearest double (zero or subnormal when the value is that small) */
  TOI_NUM_SYNTAX = 1,   /* the token is not wholly a number in the forms below */
  TOI_NUM_OVERFLOW = 2, /* the value rounds beyond DBL_MAX: *out is an infinity of its sign */
} toi_num_status;

/* Reads the NUL-terminated token tok, all of it, as the double nearest its
   value (ties to even), exactly as strtod would in the "C" locale, in the
   forms strtod reads that begin with a digit or a point:
     [+-] digits [. [digits]] [(e|E) [+-] digits]      and  [+-] . digits [...]
     [+-] 0(x|X) hexdigits [. [hexdigits]] [(p|P) [+-] digits]   and  0x . hexdigits [...]
   (at least one digit in the significand). The words inf, infinity and nan,
   leading spaces and anything after the number are TOI_NUM_SYNTAX: a token
   strtod would read only in part is refused whole. */
toi_num_status toi_parse_double(const char *tok, double *out);

/* The same reading of a field that ends at a blank or a NUL (the field of a
   line, read in place): a number in the forms above followed by ' ' or '\0',
   *end set to that byte when the status is not TOI_NUM_SYNTAX. A token that
   toi_parse_double reads gives the same status and value here. */
toi_num_status toi_parse_double_field(const char *tok, const char **end, double *out);

/* toi_parse_double_field, the same status, value and *end, when the bytes
   [tok, lim) may all be read: lim past the blank or NUL that ends the field
   (the end of the buffer that holds it), or tok (nothing more is known). Where 16 bytes or more are left
   before lim, the digits of a hex number are read eight at a time; the
   bytes after the field's end are read then but never change the result. */
toi_num_status toi_parse_double_span(const char *tok, const char *lim, const char **end, double *out);

/* The n numbers of a line's fields from p, each after any blanks, into v,
   as parse_number's test (a digit, or a point and a digit, after the sign)
   and toi_parse_double_span with lim read them: 1 with *end at the byte
   after the last number when every one is TOI_NUM_OK, else 0. */
int toi_parse_double_fields(const char *p, const char *lim, int n, double *v, const char **end);

/* How toi_parse_double_fields reads a line where the machine allows: 2
   four fields at a time with AVX2 (then two, then one), 1 two at a time with
   AVX2, 0 one at a time (SSE2 or bytes), -1 the best this machine runs (the
   default). Returns the way now in use (at most the best). The same values
   every way; for tests and measurements. */
int numparse_simd_use(int level);

#endif
