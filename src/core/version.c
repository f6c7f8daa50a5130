/* version.c: the version the library was built as (toi_api.h). */
#include "toi_api.h"

int toi_version(void) { return TOI_VERSION_NUMBER; }

const char *toi_version_string(void) { return TOI_VERSION; }
