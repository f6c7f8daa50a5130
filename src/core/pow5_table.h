/* pow5_table.h: the 128-bit powers of five of numparse.c and numfmt.c (private). */
#ifndef TOI_POW5_TABLE_H
#define TOI_POW5_TABLE_H

#include <stdint.h>

#define TOI_POW5_MIN (-342)
#define TOI_POW5_MAX 347

/* Row q - TOI_POW5_MIN: 5^q times the power of two that brings it into
   [2^127, 2^128), high then low 64 bits; truncated, except for -27 <= q < 0
   where it is rounded up (pow5_table.py writes pow5_table.c, and says why). */
extern const uint64_t toi_pow5_128[TOI_POW5_MAX - TOI_POW5_MIN + 1][2];

#endif
