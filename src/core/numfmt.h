/* numfmt.h: doubles written as printf's "%a" and "%.6g" would write them, without printf (private). */
#ifndef TOI_NUMFMT_H
#define TOI_NUMFMT_H

#include <stddef.h>

/* Room for any result of the writers below, with its NUL. */
#define TOI_FMT_MAX 32

/* Writes x into buf (at least TOI_FMT_MAX bytes) byte for byte as glibc's
   printf("%a", x): 0x1.HHHp+E for a normal number (trailing zero digits and
   an empty fraction dropped), 0x0.HHHp-1022 for a subnormal, 0x0p+0, inf,
   nan, each with '-' when the sign bit is set. Returns the length (without
   the NUL written after it). */
size_t toi_fmt_hex(char *buf, double x);

/* Writes x into buf (at least TOI_FMT_MAX bytes) byte for byte as glibc's
   printf("%.6g", x) in the default rounding mode: six significant digits,
   rounded to nearest from the exact value (ties to even), %e style when the
   decimal exponent after rounding is below -4 or above 5, trailing zeros
   dropped. Returns the length (without the NUL written after it). */
size_t toi_fmt_g6(char *buf, double x);

#endif
