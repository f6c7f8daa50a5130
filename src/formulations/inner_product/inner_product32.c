/* inner_product32.c: inner-product in binary32: inner_product.c compiled again with real = float (real.h). */
#define TOI_REAL_BITS 32
#include "formulations.h"

#include "inner_product.c"
