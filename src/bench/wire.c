/* wire.c: fixed-width little-endian fields for the bytes sent between processes (format in wire.h). */
#include "wire.h"
#include <stdlib.h>
#include <string.h>

void wire_out_init(wire_out *w, size_t cap) {
  w->n = 0;
  w->cap = cap ? cap : 64;
  w->p = malloc(w->cap);
}

static void put(wire_out *w, const void *v, size_t n) {
  if (w->p && w->n + n > w->cap) {
    size_t cap = 2 * (w->n + n);
    unsigned char *q = realloc(w->p, cap);
    if (!q) free(w->p);
    w->p = q;
    w->cap = cap;
  }
  if (w->p) memcpy(w->p + w->n, v, n);
  w->n += n;
}

/* The low `bytes` bytes of v, least significant first: the same bytes on any host. */
static void put_le(wire_out *w, uint64_t v, int bytes) {
  unsigned char b[8];
  for (int i = 0; i < bytes; i++) b[i] = (unsigned char)(v >> (8 * i));
  put(w, b, (size_t)bytes);
}

void wire_u64(wire_out *w, uint64_t v) { put_le(w, v, 8); }

void wire_i32(wire_out *w, int32_t v) { put_le(w, (uint32_t)v, 4); }

void wire_f64(wire_out *w, double x) {
  uint64_t u;
  memcpy(&u, &x, sizeof u);
  put_le(w, u, 8);
}

void wire_str(wire_out *w, const char *s, size_t width) {
  static const unsigned char zeros[64];
  size_t l = strnlen(s, width - 1);
  put(w, s, l);
  for (size_t k = width - l; k > 0;) {
    size_t z = k < sizeof zeros ? k : sizeof zeros;
    put(w, zeros, z);
    k -= z;
  }
}

void wire_case(wire_out *w, const toi_case *c) {
  wire_str(w, c->id, sizeof c->id);
  wire_i32(w, c->dim);
  const double *v[] = {c->pa, c->va, &c->ra, &c->ma, c->pb, c->vb, &c->rb, &c->mb};
  const int n[] = {3, 3, 1, 1, 3, 3, 1, 1};
  for (int k = 0; k < 8; k++)
    for (int i = 0; i < n[k]; i++) wire_f64(w, v[k][i]);
}

/* The next `bytes` bytes as a little-endian number; 0 (and bad) past the end. */
static uint64_t get_le(wire_in *r, int bytes) {
  if (r->bad || r->n - r->at < (size_t)bytes) {
    r->bad = 1;
    return 0;
  }
  uint64_t v = 0;
  for (int i = 0; i < bytes; i++) v |= (uint64_t)r->p[r->at + (size_t)i] << (8 * i);
  r->at += (size_t)bytes;
  return v;
}

uint64_t wire_get_u64(wire_in *r) { return get_le(r, 8); }

int32_t wire_get_i32(wire_in *r) {
  uint32_t u = (uint32_t)get_le(r, 4);
  /* two's complement without an implementation-defined conversion */
  return u <= INT32_MAX ? (int32_t)u : (int32_t)(u - 0x80000000u) - INT32_MAX - 1;
}

double wire_get_f64(wire_in *r) {
  uint64_t u = get_le(r, 8);
  double x;
  memcpy(&x, &u, sizeof x);
  return x;
}

void wire_get_str(wire_in *r, char *s, size_t width) {
  memset(s, 0, width);
  if (r->bad || r->n - r->at < width || !memchr(r->p + r->at, 0, width)) {
    r->bad = 1;
    return;
  }
  memcpy(s, r->p + r->at, width);
  r->at += width;
}

void wire_get_case(wire_in *r, toi_case *c) {
  wire_get_str(r, c->id, sizeof c->id);
  c->dim = wire_get_i32(r);
  double *v[] = {c->pa, c->va, &c->ra, &c->ma, c->pb, c->vb, &c->rb, &c->mb};
  const int n[] = {3, 3, 1, 1, 3, 3, 1, 1};
  for (int k = 0; k < 8; k++)
    for (int i = 0; i < n[k]; i++) v[k][i] = wire_get_f64(r);
}
