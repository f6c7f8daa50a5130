/* test_ref_version.c: the versions of MPFR and GMP the reference reports (reference/mpfr/ref_version.c). */
#include <criterion/criterion.h>
#include <gmp.h>
#include <mpfr.h>
#include <stdio.h>
#include "gen.h"
#include "ref_common.h"
#include "ref_fast_api.h"
#include "reference_check.h"
#include "ref_forms.h"
#include "ref_cases.h"

Test(reference_input, versions) {
  /* The versions of the libraries linked, against the headers compiled with:
     a mismatch means a build against one library and a run against another. */
  cr_expect_str_eq(toi_ref_mpfr_version(), MPFR_VERSION_STRING);
  char gmp[32];
  snprintf(gmp, sizeof gmp, "%d.%d.%d", __GNU_MP_VERSION, __GNU_MP_VERSION_MINOR, __GNU_MP_VERSION_PATCHLEVEL);
  cr_expect_str_eq(toi_ref_gmp_version(), gmp);
  cr_expect(toi_ref_mpfr_version()[0] >= '4', "MPFR 4 or later is required (mpfr_flags_save)");
}
