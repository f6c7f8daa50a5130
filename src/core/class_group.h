/* class_group.h: the group of an exact class, inline for the scoring's hot path (private). */
#ifndef TOI_CLASS_GROUP_H
#define TOI_CLASS_GROUP_H

#include "toi.h"

/* What toi_class_group returns (classes.c calls this): contact for hit,
   graze and contact, overlap for overlap, no contact for the rest. */
static inline toi_group toi_class_group_inline(toi_class c) {
  switch (c) {
    case TOI_HIT:
    case TOI_GRAZE:
    case TOI_CONTACT: return TOI_G_CONTACT;
    case TOI_OVERLAP: return TOI_G_OVERLAP;
    default: return TOI_G_NOCONTACT;
  }
}

#endif
