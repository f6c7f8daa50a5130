/* test_formulations.c: what holds for every formulation: the registry, each one's folder test, extreme
   inputs, and well-conditioned random cases against the reference. Each formulation's own answers on the
   exact cases and its quirks are in its folder, src/formulations/NAME/test_NAME.c. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "formulation_check.h"

static long fm_scale(void) { return te_scale(); }

static uint64_t fm_seed(void) { return fc_seed(); }


/* Overlapping balls, centre distance in [0.1 R, 0.9 R] (never near touching),
   relative speed in [0.5, 5] in any direction. */
static void fm_overlap_case(test_rng *r, toi_case *c, int dim) {
  tc_blank(c, dim);
  double u[3], w[3];
  c->ra = test_rng_uniform(r, 0.5, 2);
  c->rb = test_rng_uniform(r, 0.5, 2);
  fc_unit(r, u, dim);
  const double d = test_rng_uniform(r, 0.1, 0.9) * (c->ra + c->rb);
  for (int i = 0; i < dim; i++) {
    c->pa[i] = test_rng_uniform(r, -10, 10);
    c->pb[i] = c->pa[i] + d * u[i];
  }
  fc_unit(r, u, dim);
  fc_unit(r, w, dim);
  const double speed = test_rng_uniform(r, 0.5, 5), sa = test_rng_uniform(r, 0, 5);
  for (int i = 0; i < dim; i++) {
    c->va[i] = sa * w[i];
    c->vb[i] = c->va[i] + speed * u[i];
  }
}

/* ---- the registry ---- */

static const char *const fm_names[] = {"expanded",  "expanded-corner", "inner-product",
                                       "ericson",   "minkowski",       "phet",
                                       "phet-reverse", "overlap-recovery", "gsl-stable",
                                       "robust",    "accurate"};
#define FM_NAMES (sizeof fm_names / sizeof fm_names[0])

Test(formulation_registry, entries_are_complete_and_unique) {
  size_t n = 0;
  const toi_formulation *f = toi_formulations(&n);
  cr_assert_not_null(f);
  cr_assert_eq(n, FM_NAMES, "expected %zu formulations, got %zu", FM_NAMES, n);
  for (size_t i = 0; i < n; i++) {
    cr_assert(f[i].name && f[i].name[0], "entry %zu has no name", i);
    cr_assert(f[i].source && f[i].source[0], "%s has no source", f[i].name);
    cr_assert(f[i].summary && f[i].summary[0], "%s has no summary", f[i].name);
    cr_assert(!strchr(f[i].summary, '\n'), "%s: the summary is one line", f[i].name);
    cr_assert_not_null(f[i].solve, "%s has no solve function", f[i].name);
    cr_assert(f[i].direction == TOI_FORWARD || f[i].direction == TOI_REVERSE, "%s", f[i].name);
    cr_assert_lt(f[i].domain, 1u << TOI_CLASS_COUNT, "%s", f[i].name);
    for (size_t j = 0; j < i; j++) cr_assert_str_neq(f[i].name, f[j].name, "duplicate name");
  }
}

Test(formulation_registry, every_required_name_is_found) {
  size_t n = 0;
  const toi_formulation *all = toi_formulations(&n);
  for (size_t i = 0; i < FM_NAMES; i++) {
    const toi_formulation *f = fc_find(fm_names[i]);
    cr_assert_str_eq(f->name, fm_names[i]);
    cr_assert(f >= all && f < all + n, "find returns a table entry");
  }
}

Test(formulation_registry, unknown_names_give_null) {
  cr_assert_null(toi_formulation_find("no-such-formulation"));
  cr_assert_null(toi_formulation_find(""));
  cr_assert_null(toi_formulation_find("Expanded"));
  cr_assert_null(toi_formulation_find("expanded "));
  cr_assert_null(toi_formulation_find(NULL));
}

Test(formulation_registry, directions_and_domains) {
  cr_assert_eq(fc_find("phet-reverse")->direction, TOI_REVERSE);
  cr_assert_eq(fc_find("overlap-recovery")->direction, TOI_REVERSE);
  cr_assert_eq(fc_find("overlap-recovery")->domain, TOI_CLASS_BIT(TOI_OVERLAP));
  const char *fwd[] = {"expanded", "expanded-corner", "inner-product", "ericson", "minkowski", "phet",
                       "gsl-stable"};
  for (size_t i = 0; i < sizeof fwd / sizeof fwd[0]; i++) {
    cr_assert_eq(fc_find(fwd[i])->direction, TOI_FORWARD, "%s", fwd[i]);
    cr_assert_eq(fc_find(fwd[i])->domain, 0u, "%s answers every class", fwd[i]);
  }
}

/* Each formulation from a document cites it so that a reader can find it: its
   label, its title as the document gives it and, where the document gives one,
   the public address of its project; never the name of a file of ours. The
   table is the documents' heads, read by hand. */
Test(formulation_registry, sources_cite_the_documents) {
  static const struct {
    const char *name, *label, *title, *address;
  } cite[] = {
      {"inner-product", "000", "\"Ball-Ball Collision Detection\"", NULL},
      {"minkowski", "001", "\"Colliding balls\"", NULL},
      {"ericson", "001", "\"Colliding balls\"", NULL},
      {"phet", "002", "\"How To Compute When Two Balls Will Collide\"", "https://github.com/phetsims/collision-lab"},
      {"phet-reverse", "002", "\"How To Compute When Two Balls Will Collide\"",
       "https://github.com/phetsims/collision-lab"},
      {"expanded-corner", "003", "\"Bouncing Balls\"", "https://github.com/EddyTodd/BouncingBalls"},
      {"overlap-recovery", "004", "\"How To Find the Time of Impact (TOI) of two Balls\"",
       "https://github.com/phetsims/collision-lab"},
  };
  for (size_t i = 0; i < sizeof cite / sizeof cite[0]; i++) {
    const char *s = fc_find(cite[i].name)->source, *t = strstr(s, cite[i].title);
    cr_assert_not_null(t, "%s: the source '%s' gives no title %s", cite[i].name, s, cite[i].title);
    cr_assert(t - s >= 4 && !strncmp(t - 4, cite[i].label, 3) && t[-1] == ' ', "%s: '%s' labels the title %s",
              cite[i].name, s, cite[i].label);
    if (cite[i].address) cr_assert_not_null(strstr(s, cite[i].address), "%s: no address in '%s'", cite[i].name, s);
  }
  size_t n = 0;
  const toi_formulation *f = toi_formulations(&n);
  for (size_t i = 0; i < n; i++) {
    cr_assert_null(strstr(f[i].source, ".txt"), "%s cites a file name: %s", f[i].name, f[i].source);
    cr_assert_null(strstr(f[i].summary, ".txt"), "%s cites a file name: %s", f[i].name, f[i].summary);
  }
}

/* A formulation is one folder (HACKING.md): each registered one has its own
   test, src/formulations/NAME/test_NAME.c, which checks its answers on every
   exact case of formulation_check.h (fc_check_exact names it). */
Test(formulation_registry, every_formulation_has_its_folder_test) {
  size_t n;
  const toi_formulation *f = toi_formulations(&n);
  for (size_t i = 0; i < n; i++) {
    char folder[128], path[4096], want[160];
    snprintf(folder, sizeof folder, "%s", f[i].name);
    for (char *c = folder; *c; c++)
      if (*c == '-') *c = '_';
    snprintf(path, sizeof path, "%s/src/formulations/%s/test_%s.c", TOI_SOURCE_DIR, folder, folder);
    FILE *in = fopen(path, "r");
    cr_assert_not_null(in, "%s: every built-in formulation has its own test", path);
    static char text[1 << 16];
    size_t len = fread(text, 1, sizeof text - 1, in);
    text[len] = 0;
    fclose(in);
    snprintf(want, sizeof want, "fc_check_exact(\"%s\"", f[i].name);
    cr_assert_not_null(strstr(text, want), "%s: it does not call %s...)", path, want);
  }
}

/* Any finite input, however extreme: no crash, and "none" always comes with
   a NaN time. */
Test(formulations, extreme_inputs_never_crash) {
  test_rng rng = {fm_seed() ^ 0x5eed};
  size_t nf = 0;
  const toi_formulation *f = toi_formulations(&nf);
  const double special[] = {0.0, -0.0, 0x1p-1074, -0x1p-1074, DBL_MIN, DBL_MAX, -DBL_MAX, 1.0, -1.0};
  const long n = 2000 * fm_scale();
  for (long k = 0; k < n; k++) {
    toi_case c;
    tc_blank(&c, 2 + (int)(k & 1));
    double *fields[] = {c.pa, c.va, c.pb, c.vb};
    for (int j = 0; j < 4; j++)
      for (int i = 0; i < c.dim; i++) {
        uint64_t u = test_rng_next(&rng);
        double d;
        if (u % 4 == 0) {
          d = special[(u >> 8) % (sizeof special / sizeof special[0])];
        } else {
          do {
            u = test_rng_next(&rng);
            memcpy(&d, &u, sizeof d);
          } while (!isfinite(d));
        }
        fields[j][i] = d;
      }
    c.ra = fabs(fields[0][0]) * 0.5;
    c.rb = k % 3 ? fabs(fields[1][0]) : 0x1p-1074;
    for (size_t i = 0; i < nf; i++) {
      toi_result r = f[i].solve(&c);
      cr_assert((unsigned)r.cls < TOI_CLASS_COUNT, "%s: class %d", f[i].name, (int)r.cls);
      if (r.cls == TOI_NONE) cr_assert(isnan(r.t), "%s: none with t = %a", f[i].name, r.t);
    }
  }
}
/* ---- against the certified reference ---- */

/* Largest ULP error over the timed cases, measured with this file's
   generators and the reference on 4,000,000 cases of each kind (seeds 21 to
   28, 500,000 each, 2D and 3D alternating) before the bounds were set:
     expanded 61.2, expanded-corner 44.7, inner-product 59.2, ericson 61.2,
     minkowski 359 (world coordinates: c sums terms up to ~600 to get >= 1),
     phet 61.2, phet-reverse 61.2, overlap-recovery 21.4, gsl-stable 60.2.
   No verdict disagreed with the exact group in those runs. gsl-stable is no
   better than the textbook forms here because these cases are built away
   from cancellation: the error left comes from forming s, v and C in double.
   The bounds leave a factor of two or more. */
typedef struct fm_bound {
  const char *name;
  double max_ulp;
} fm_bound;
static const fm_bound fm_bounds[] = {
    {"expanded", 128},  {"expanded-corner", 128}, {"inner-product", 128},
    {"ericson", 128},   {"minkowski", 1024},      {"phet", 128},
    {"phet-reverse", 128}, {"overlap-recovery", 64}, {"gsl-stable", 128},
    {"robust", 16},     {"accurate", 1},
};

static double fm_bound_of(const char *name) {
  for (size_t i = 0; i < sizeof fm_bounds / sizeof fm_bounds[0]; i++)
    if (!strcmp(fm_bounds[i].name, name)) return fm_bounds[i].max_ulp;
  cr_assert_fail("no ULP bound for %s", name);
  return 0;
}

/* The case a formulation is measured on: forward ones on the generated case,
   reverse ones on the same case with time running backwards (its contacts
   are in the past), overlap-recovery on an overlapping one. */
static void fm_check_against_reference(int dim) {
  const uint64_t seed = fm_seed() + (uint64_t)dim;
  test_rng rng = {seed};
  size_t nf = 0;
  const toi_formulation *f = toi_formulations(&nf);
  const long n = 400 * fm_scale();
  long timed[16] = {0};
  cr_assert_leq(nf, 16u);
  for (long k = 0; k < n; k++) {
    toi_case hit, back, over;
    fc_hit_case(&rng, &hit, dim);
    fm_overlap_case(&rng, &over, dim);
    back = fc_negate_velocities(&hit);
    for (size_t i = 0; i < nf; i++) {
      const toi_case *c = f[i].direction == TOI_FORWARD ? &hit : f[i].domain ? &over : &back;
      toi_ref ref;
      cr_assert_eq(tr_solve(&ref, c), TOI_OK);
      toi_result r = f[i].solve(c);
      /* Well-conditioned cases: every verdict falls in the exact group. */
      if (f[i].direction == TOI_FORWARD) {
        cr_assert_eq(toi_class_group(r.cls), toi_class_group(ref.cls),
                     "%s case %ld dim %d (seed %#llx): verdict %s, exact %s", f[i].name, k, dim,
                     (unsigned long long)seed, toi_class_name(r.cls), toi_class_name(ref.cls));
      } else {
        cr_assert_eq(r.cls != TOI_NONE, !isnan(ref.trev),
                     "%s case %ld dim %d (seed %#llx): verdict %s, exact reverse root %a", f[i].name,
                     k, dim, (unsigned long long)seed, toi_class_name(r.cls), ref.trev);
      }
      const int both = f[i].direction == TOI_FORWARD
                           ? toi_class_group(r.cls) == TOI_G_CONTACT &&
                                 toi_class_group(ref.cls) == TOI_G_CONTACT
                           : r.cls != TOI_NONE && !isnan(ref.trev);
      if (!both) continue;
      double ulp, bits;
      cr_assert_eq(tr_error(&ulp, &bits, r.t, c, f[i].direction), TOI_OK);
      const double bound = fm_bound_of(f[i].name);
      cr_assert(ulp <= bound, "%s case %ld dim %d (seed %#llx): t = %a is %.4g ULP from %a (bound %g)",
                f[i].name, k, dim, (unsigned long long)seed, r.t, ulp,
                f[i].direction == TOI_FORWARD ? ref.tfwd : ref.trev, bound);
      timed[i]++;
    }
  }
  /* Most generated cases are hits, so every formulation was really timed. */
  for (size_t i = 0; i < nf; i++)
    cr_assert_gt(timed[i], n / 2, "%s: only %ld of %ld cases timed", f[i].name, timed[i], n);
}

Test(formulation_reference, random_cases_2d) { fm_check_against_reference(2); }
Test(formulation_reference, random_cases_3d) { fm_check_against_reference(3); }
