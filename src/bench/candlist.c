/* candlist.c: a growable list of candidates with unique names. */
#include <stdlib.h>
#include <string.h>
#include "candlist.h"

static toi_candidate *slot(candlist *l) {
  if (l->n == l->cap) {
    size_t cap = l->cap ? 2 * l->cap : 16;
    toi_candidate *p = realloc(l->v, cap * sizeof *p);
    if (!p) return NULL;
    l->v = p;
    l->cap = cap;
  }
  return &l->v[l->n];
}

int candlist_push(candlist *l, const toi_candidate *c) {
  toi_candidate *x = slot(l);
  if (!x || toi_candidate_copy(x, c)) return -1;
  l->n++;
  return 0;
}

int candlist_take(candlist *l, toi_candidate *c) {
  toi_candidate *x = slot(l);
  if (!x) {
    toi_candidate_free(c);
    return -1;
  }
  *x = *c;
  l->n++;
  return 0;
}

int candlist_has(const candlist *l, size_t upto, const char *name) {
  for (size_t i = 0; i < upto && i < l->n; i++)
    if (!strcmp(l->v[i].name, name)) return 1;
  return 0;
}

int candlist_blank(const char *s) { return s[strspn(s, " \t\n\r\v\f")] == 0; }

int candlist_names_ok(const char *names) {
  for (const char *p = names;; p++) {
    size_t n = strcspn(p, ",");
    size_t blank = strspn(p, " \t\n\r\v\f");
    if (blank >= n) return 0; /* empty, or blanks up to the comma or the end */
    p += n;
    if (!*p) return 1;
  }
}

void candlist_unique_name(candlist *l, size_t k) {
  toi_candidate *x = &l->v[k];
  char base[sizeof x->name];
  memcpy(base, x->name, sizeof base);
  for (int i = 2; candlist_has(l, k, x->name) && i < 1000; i++) snprintf(x->name, sizeof x->name, "%.55s#%d", base, i);
}

void candlist_free(candlist *l) {
  for (size_t i = 0; i < l->n; i++) toi_candidate_free(&l->v[i]);
  free(l->v);
  l->v = NULL;
  l->n = l->cap = 0;
}
