/* wire.h: the fixed byte encoding of what crosses between processes (sweep_dist.c, hunt_dist.c). */
#ifndef TOI_WIRE_H
#define TOI_WIRE_H

#include <stddef.h>
#include <stdint.h>
#include "toi.h"

/*
 * The processes of one job may be machines of different types, so nothing
 * crosses as the bytes of a struct: each field is written on its own, with a
 * fixed width and in little-endian order whatever the host's:
 *   an integer count or index  8 bytes, unsigned (u64)
 *   an int or an enum          4 bytes, two's complement (i32)
 *   a double                   its IEEE 754 binary64 bits as a u64
 *   a string of a char[W]      W bytes: its characters, then zeros
 *   a toi_case                 id (string of TOI_ID_MAX + 1), dim (i32),
 *                              pa[3] va[3] ra ma pb[3] vb[3] rb mb (doubles)
 * A struct is its fields in declaration order; an array its elements in order.
 */

#define WIRE_CASE_BYTES (TOI_ID_MAX + 1 + 4 + 16 * 8)

/// Bytes being written. A failed allocation leaves p NULL; later writes are
/// then only counted in n, and the caller sees p NULL.
typedef struct wire_out {
  unsigned char *p;
  size_t n, cap;
} wire_out;

/// Starts an empty buffer of room cap (p NULL when there is no memory).
void wire_out_init(wire_out *w, size_t cap);
void wire_u64(wire_out *w, uint64_t v);
void wire_i32(wire_out *w, int32_t v);
void wire_f64(wire_out *w, double x);
/// s into width bytes, zero-filled; at most width - 1 of its characters.
void wire_str(wire_out *w, const char *s, size_t width);
void wire_case(wire_out *w, const toi_case *c);

/// Bytes being read: a read past the end, or a string without its end,
/// sets bad (sticky) and gives zeros.
typedef struct wire_in {
  const unsigned char *p;
  size_t n, at;
  int bad;
} wire_in;

uint64_t wire_get_u64(wire_in *r);
int32_t wire_get_i32(wire_in *r);
double wire_get_f64(wire_in *r);
/// width bytes into s[width]; bad unless they hold a zero byte.
void wire_get_str(wire_in *r, char *s, size_t width);
void wire_get_case(wire_in *r, toi_case *c);

#endif
