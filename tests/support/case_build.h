/* case_build.h: toi_case values built in tests: a blank case, a 2D case from its numbers, a family's case. */
#ifndef TOI_CASE_BUILD_H
#define TOI_CASE_BUILD_H

#include <string.h>
#include "gen.h"
#include "toi.h"

/* Every number 0 (id empty) but unit masses, in dimension dim: the start of a
   case whose positions, velocities and radii a test then sets. */
static inline void tc_blank(toi_case *c, int dim) {
  memset(c, 0, sizeof *c);
  c->dim = dim;
  c->ma = c->mb = 1;
}

/* A 2D case with id "t" from its numbers in the order of a case file: A's
   centre, velocity, radius and mass, then B's. */
static inline toi_case tc_case2(double pax, double pay, double vax, double vay, double ra, double ma,
                                double pbx, double pby, double vbx, double vby, double rb, double mb) {
  toi_case c;
  memset(&c, 0, sizeof c);
  strcpy(c.id, "t");
  c.dim = 2;
  c.pa[0] = pax, c.pa[1] = pay, c.va[0] = vax, c.va[1] = vay, c.ra = ra, c.ma = ma;
  c.pb[0] = pbx, c.pb[1] = pby, c.vb[0] = vbx, c.vb[1] = vby, c.rb = rb, c.mb = mb;
  return c;
}

/* Case i of family f's stream from seed, with f's default options (toi_gen_opts_default): the generator's
   status. */
static inline toi_status tc_family_case(toi_case *c, toi_gen_family f, uint64_t seed, uint64_t i) {
  toi_gen_opts o;
  toi_gen_opts_default(&o, f);
  o.seed = seed;
  size_t bin;
  return toi_gen_case(c, NULL, &bin, &o, i);
}

#endif
