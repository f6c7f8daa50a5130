/* classes.c: names and groups of the exact classes and verdicts. */
#include <string.h>
#include "class_group.h"
#include "toi.h"

static const char *const class_names[TOI_CLASS_COUNT] = {
    "none", "overlap", "static", "contact", "separating", "miss", "graze", "hit"};

const char *toi_class_name(toi_class c) {
  if ((unsigned)c >= TOI_CLASS_COUNT) return "invalid";
  return class_names[c];
}

toi_status toi_class_parse(toi_class *out, const char *name) {
  if (!out || !name) return TOI_ERR_RANGE;
  for (int i = 0; i < TOI_CLASS_COUNT; i++)
    if (!strcmp(name, class_names[i])) {
      *out = (toi_class)i;
      return TOI_OK;
    }
  return TOI_ERR_RANGE;
}

toi_group toi_class_group(toi_class c) { return toi_class_group_inline(c); }
