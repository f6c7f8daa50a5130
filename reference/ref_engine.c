/* ref_engine.c: the names of the reference's engines, as the command line spells them. */
#include <string.h>
#include "toiref.h"

const char *toi_ref_engine_name(toi_ref_engine e) {
  switch (e) {
  case TOI_REF_FAST: return "fast";
  case TOI_REF_MPFR: return "mpfr";
  }
  return NULL;
}

int toi_ref_engine_parse(const char *name) {
  if (!name) return -1;
  if (!strcmp(name, "fast")) return TOI_REF_FAST;
  if (!strcmp(name, "mpfr")) return TOI_REF_MPFR;
  return -1;
}
