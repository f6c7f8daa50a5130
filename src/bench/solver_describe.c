/* solver_describe.c: what a plug-in library offers, read in the child process that loads it (catalog, ABI, precision). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "solvers.h"
#include "toi_solver.h"

/* The plug-in ABI numbers its verdicts like toi_class so that they pass
 * through unchanged; this fails to compile if the two ever drift apart. */
#define SAME(a, b) ((int)(a) == (int)(b))
_Static_assert(SAME(TOI_SOLVER_NONE, TOI_NONE) && SAME(TOI_SOLVER_OVERLAP, TOI_OVERLAP) &&
                   SAME(TOI_SOLVER_STATIC, TOI_STATIC) && SAME(TOI_SOLVER_CONTACT, TOI_CONTACT) &&
                   SAME(TOI_SOLVER_SEPARATING, TOI_SEPARATING) && SAME(TOI_SOLVER_MISS, TOI_MISS) &&
                   SAME(TOI_SOLVER_GRAZE, TOI_GRAZE) && SAME(TOI_SOLVER_HIT, TOI_HIT) && TOI_CLASS_COUNT == 8,
               "toi_solver.h classes must match toi.h");
#undef SAME
_Static_assert(TOI_SOLVER_ID_MAX == TOI_ID_MAX, "case ID lengths must match");

/* Copies with truncation; names and paths longer than their fields are cut. */
static void copy_str(char *dst, size_t sz, const char *src) {
  size_t n = src ? strlen(src) : 0;
  if (n >= sz) n = sz - 1;
  if (n) memcpy(dst, src, n);
  dst[n] = 0;
}

static const char *base_name(const char *path) {
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

/* The catalog as ABI 2 entries (malloc'ed; NULL with *n = 0 when there is
   none, NULL with *n > 0 when out of memory): a version 1 plug-in's entries
   have no precision field, so they are read with their own layout. */
typedef struct solver_info_v1 {
  const char *name, *symbol, *summary;
} solver_info_v1;

static toi_solver_info *read_catalog(void *h, int abi, size_t *n) {
  const void *sym = dlsym(h, "toi_solver_catalog");
  const toi_solver_info *v2 = sym;
  const solver_info_v1 *v1 = sym;
  *n = 0;
  if (!sym) return NULL;
  while ((abi == 1 ? v1[*n].name : v2[*n].name) && *n < 1000) (*n)++;
  toi_solver_info *out = calloc(*n ? *n : 1, sizeof *out);
  for (size_t k = 0; out && k < *n; k++) {
    if (abi == 1)
      out[k] = (toi_solver_info){v1[k].name, v1[k].symbol, v1[k].summary, TOI_SOLVER_BINARY64};
    else
      out[k] = v2[k];
  }
  return out;
}

/* The bench's precision of a plug-in's declared one, or -1. */
static int solver_precision(int declared) {
  switch (declared) {
  case TOI_SOLVER_BINARY64: return TOI_BINARY64;
  case TOI_SOLVER_BINARY32: return TOI_BINARY32;
  default: return -1;
  }
}

/* A plug-in solver's name and summary: its catalog entry's, the symbol
   asked for, or (no catalog) the library's name without "lib" and ".so". */
static void name_def(solver_def *d, const toi_solver_info *info, const char *symbol, const char *path) {
  if (info) {
    copy_str(d->name, sizeof d->name, info->name);
    copy_str(d->summary, sizeof d->summary, info->summary);
  } else if (symbol) {
    copy_str(d->name, sizeof d->name, symbol);
  } else {
    const char *b = base_name(path);
    if (!strncmp(b, "lib", 3) && b[3]) b += 3;
    copy_str(d->name, sizeof d->name, b);
    char *dot = strstr(d->name, ".so");
    if (dot && dot != d->name) *dot = 0;
  }
}

/* The part of solvers_describe_here that opens the library and checks its ABI
   version: the handle, or NULL after writing the reason to err. */
static void *open_checked(const char *full, const char *path, int *abi_out, char *err, size_t errsz) {
  dlerror();
  void *h = dlopen(full, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *e = dlerror();
    snprintf(err, errsz, "%s: cannot load: %s", path, e ? e : "unknown error");
    return NULL;
  }
  const int *abi = (const int *)dlsym(h, "toi_solver_abi");
  if (!abi) {
    snprintf(err, errsz, "%s: not a toibench solver plug-in (no toi_solver_abi symbol; see toi_solver.h)", path);
  } else if (*abi < 1 || *abi > TOI_SOLVER_ABI_VERSION) {
    snprintf(err, errsz, "%s: built for solver ABI %d, this toibench speaks 1 to %d", path, *abi,
             TOI_SOLVER_ABI_VERSION);
  } else {
    *abi_out = *abi;
    return h;
  }
  dlclose(h);
  return NULL;
}

int solvers_describe_here(const char *full, const char *path, const char *symbol, solver_def **out, char *err,
                          size_t errsz) {
  *out = NULL;
  int abi = 0;
  void *h = open_checked(full, path, &abi, err, errsz);
  if (!h) return -1;
  int count = -1;
  solver_def *v = NULL;
  size_t ncat = 0;
  toi_solver_info *cat = read_catalog(h, abi, &ncat);
  if (!cat && ncat) {
    snprintf(err, errsz, "out of memory");
    goto done;
  }
  const int *prec_sym = abi >= 2 ? (const int *)dlsym(h, "toi_solver_precision") : NULL;
  int lib_prec = prec_sym ? *prec_sym : TOI_SOLVER_BINARY64;
  size_t want = symbol || !ncat ? 1 : ncat;
  v = calloc(want, sizeof *v);
  if (!v) {
    snprintf(err, errsz, "out of memory");
    goto done;
  }
  for (size_t k = 0; k < want; k++) {
    const char *sym = symbol ? symbol : ncat ? cat[k].symbol : "toi_solver_solve";
    const toi_solver_info *info = NULL;
    for (size_t j = 0; j < ncat && !info; j++)
      if (cat[j].symbol && sym && !strcmp(cat[j].symbol, sym)) info = &cat[j];
    if (!sym || !dlsym(h, sym)) {
      snprintf(err, errsz, "%s: no solve function '%s'%s", path, sym ? sym : "(null)",
               symbol || ncat ? "" : " (name one with lib.so:symbol)");
      goto done;
    }
    solver_def *d = &v[k];
    d->kind = SOLVER_PLUGIN;
    copy_str(d->path, sizeof d->path, full);
    copy_str(d->symbol, sizeof d->symbol, sym);
    int prec = solver_precision(info ? info->precision : lib_prec);
    if (prec < 0) {
      snprintf(err, errsz, "%s: solver '%s' declares an unknown precision %d", path, sym,
               info ? info->precision : lib_prec);
      goto done;
    }
    d->precision = (toi_precision)prec;
    name_def(d, info, symbol, path);
  }
  *out = v;
  v = NULL;
  count = (int)want;
done:
  free(v);
  free(cat);
  dlclose(h);
  return count;
}
