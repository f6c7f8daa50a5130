/* real.h: the floating-point type the formulations' generic sources are compiled in. */
#ifndef TOI_REAL_H
#define TOI_REAL_H

#include <math.h>

/*
 * Every formulation (NAME/NAME.c) is written once with the type `real`, the
 * functions SQRT, FABS, FMA, constants written REAL(c) and its exported names
 * written RNAME(name). Compiled as itself it is the binary64 formulation:
 * real is double, REAL(1e-12) is the double constant 1e-12, RNAME(x) is x,
 * and the generated code is the same as before the type was generic.
 * NAME/NAME32.c (and formulations32.c for the shared helpers) defines
 * TOI_REAL_BITS as 32 and includes the generic source again: real is float,
 * SQRT is sqrtf, REAL(1e-12) is 1e-12f (the document's decimal constant
 * rounded once to float, as a float engine writes it) and RNAME(x) is x32.
 * A constant that must differ between the formats
 * for another reason than rounding (a range limit) is chosen by
 * TOI_REAL_BITS in the source itself, with a comment.
 *
 * Integer constants (2 * x) need no REAL(): they convert to real. A double
 * constant left bare in a float expression would compute in double, so none
 * is.
 */
#if defined(TOI_REAL_BITS) && TOI_REAL_BITS == 32
typedef float real;
#define REAL(c) c##f
#define SQRT sqrtf
#define FABS fabsf
#define FMA fmaf
#define RNAME(name) name##32
#else
#ifndef TOI_REAL_BITS
#define TOI_REAL_BITS 64
#endif
typedef double real;
#define REAL(c) c
#define SQRT sqrt
#define FABS fabs
#define FMA fma
#define RNAME(name) name
#endif

#endif
