/* ref_version.c: versions of the MPFR and GMP libraries the reference runs on, for reports. */
#include <gmp.h>
#include <mpfr.h>
#include "toiref.h"

const char *toi_ref_mpfr_version(void) { return mpfr_get_version(); }

const char *toi_ref_gmp_version(void) { return gmp_version; }
