/* candlist.h: a growable list of candidates, as the commands gather them from -f, --solver and --solver-cmd. */
#ifndef TOI_CANDLIST_H
#define TOI_CANDLIST_H

#include <stddef.h>
#include "candidate.h"

typedef struct candlist {
  toi_candidate *v;
  size_t n, cap;
} candlist;

/// Appends a copy of c (an external one's description duplicated). 0 or -1.
int candlist_push(candlist *l, const toi_candidate *c);
/// Appends c itself, taking what it owns (freed even on failure). 0 or -1.
int candlist_take(candlist *l, toi_candidate *c);
/// 1 when one of the first upto candidates is called name.
int candlist_has(const candlist *l, size_t upto, const char *name);
/// 1 when every name of the comma-separated list names is there: none empty
/// (",,", a comma first or last, an empty list) or only blanks.
int candlist_names_ok(const char *names);
/// 1 when s is empty or holds only blanks (spaces, tabs, line ends).
int candlist_blank(const char *s);
/// Gives candidate k a name no earlier one has: NAME, NAME#2, NAME#3 ...
void candlist_unique_name(candlist *l, size_t k);
void candlist_free(candlist *l);

#endif
