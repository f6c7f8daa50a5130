#!/usr/bin/env python3
"""pow5_table.py: writes pow5_table.c, the 128-bit powers of five of numparse.c and numfmt.c.

Entry q (TOI_POW5_MIN <= q <= TOI_POW5_MAX) is 5^q scaled by a power of two into [2^127, 2^128):
truncated for q >= 0 and for q < -27, rounded up for -27 <= q < 0: the table of Eisel-Lemire's
algorithm exactly as in Lemire, "Number Parsing at a Gigabyte per Second" (2021) and fast_float, whose
error analysis relies on it. Run: python3 src/core/pow5_table.py > src/core/pow5_table.c (pow5_table.h declares it).
"""
QMIN, QMAX = -342, 347


def entry(q):
    if q >= 0:
        p = 5 ** q
        while p < 1 << 127:
            p <<= 1
        while p >= 1 << 128:
            p >>= 1
        return p
    p = 5 ** -q
    z = p.bit_length()  # 2^(z-1) < p < 2^z
    b = z + 127 if q >= -27 else 2 * z + 128
    c = (1 << b) // p + 1
    while c >= 1 << 128:
        c >>= 1
    return c


def main():
    print("/* pow5_table.c: 5^q scaled into [2^127, 2^128), high then low 64 bits; written by pow5_table.py:")
    print("   do not edit. */")
    print('#include "pow5_table.h"')
    print()
    print("const uint64_t toi_pow5_128[TOI_POW5_MAX - TOI_POW5_MIN + 1][2] = {")
    for q in range(QMIN, QMAX + 1):
        e = entry(q)
        print("    {0x%016xu, 0x%016xu}, /* %d */" % (e >> 64, e & ((1 << 64) - 1), q))
    print("};")


main()
