/* sim_scene.c: the preset scenes of `simulate --scene`: a billiards break, a gas, a dense packing, a bullet, a polydisperse mix. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "rng.h"
#include "sim.h"

static const sim_scene scenes[] = {
    {"billiards", "a break: 15 balls racked 1e-6 apart, hit by one fast cue ball (speed 100): a cascade of "
                  "near-simultaneous contacts through touching neighbours, then slow balls",
     1u << 2, 1, {16, 0}, 0, {1, 1, SIM_RADIUS_UNIFORM, 0, 0}, 20000},
    {"gas", "a dilute gas of 10^4 balls (lattice spacing 10, radii 0.5 to 1): long free flights, far and "
            "grazing predictions, many cell crossings",
     (1u << 2) | (1u << 3), 0, {10000, 10000}, 10, {0.5, 1, SIM_RADIUS_UNIFORM, 0, 0}, 100000},
    {"dense", "a packing near jamming (unit balls jittered on a lattice of spacing 2.05): most pairs near contact, "
              "touching-at-0 and just-separating queries right after each response",
     (1u << 2) | (1u << 3), 0, {400, 512}, 2.05, {1, 1, SIM_RADIUS_UNIFORM, 0, 0}, 50000},
    {"bullet", "one small fast ball (radius 0.05, speed 1000) shot through a lattice of unit balls at rest: "
               "tunnelling, large relative speeds against tiny radii",
     (1u << 2) | (1u << 3), 1, {101, 126}, 4, {1, 1, SIM_RADIUS_UNIFORM, 0, 0}, 20000},
    {"polydisperse", "radii 1:1000 (0.001 to 1, each factor of 2 as likely): tiny balls against big ones, "
                     "R dominated by one radius, grid levels",
     (1u << 2) | (1u << 3), 0, {2000, 2000}, 4, {0.001, 1, SIM_RADIUS_LOGUNIFORM, 0, 0}, 50000},
};

const sim_scene *sim_scenes(size_t *n) {
  *n = sizeof scenes / sizeof *scenes;
  return scenes;
}

const sim_scene *sim_scene_find(const char *name) {
  for (size_t i = 0; i < sizeof scenes / sizeof *scenes; i++)
    if (!strcmp(scenes[i].name, name)) return &scenes[i];
  return NULL;
}

static toi_status alloc_state(sim_state *out, int dim, size_t n) {
  memset(out, 0, sizeof *out);
  out->dim = dim;
  out->n = n;
  out->balls = calloc(n, sizeof *out->balls);
  return out->balls ? TOI_OK : TOI_ERR_NOMEM;
}

/* 15 balls in a triangle, apex towards the cue ball, rows 2 + 1e-6 apart;
   the cue ball's aim off the apex by a seeded 1e-3 at most. */
static toi_status billiards(sim_state *out, uint64_t seed) {
  toi_status s = alloc_state(out, 2, 16);
  if (s != TOI_OK) return s;
  out->box[0] = 100;
  out->box[1] = 50;
  const double d = 2 + 1e-6, row = d * sqrt(3) / 2;
  size_t k = 0;
  for (int r = 0; r < 5; r++)
    for (int j = 0; j <= r; j++) {
      sim_ball *b = &out->balls[k++];
      b->p[0] = 70 + r * row;
      b->p[1] = 25 + (j - r / 2.0) * d;
      b->r = b->m = 1;
    }
  toi_rng rng;
  toi_rng_seed(&rng, seed);
  sim_ball *cue = &out->balls[k];
  cue->p[0] = 20;
  cue->p[1] = 25 + toi_rng_uniform(&rng, -1e-3, 1e-3);
  cue->v[0] = 100;
  cue->r = cue->m = 1;
  return TOI_OK;
}

/* Unit balls at rest on the lattice sites ((i + 1/2) 4 per axis, 10 x 10 or
   5 x 5 x 5), the bullet at the interstitial point (4, 4[, 4]) heading along
   (1, 0.3 + u[, 0.2 + w]) at speed 1000, u and w seeded in [0, 0.01). */
static toi_status bullet(sim_state *out, int dim, uint64_t seed) {
  int side = dim == 2 ? 10 : 5;
  size_t nl = dim == 2 ? 100 : 125;
  toi_status s = alloc_state(out, dim, nl + 1);
  if (s != TOI_OK) return s;
  const double h = 4;
  for (int d = 0; d < dim; d++) out->box[d] = side * h;
  for (size_t i = 0; i < nl; i++) {
    size_t q = i;
    for (int d = 0; d < dim; d++) {
      out->balls[i].p[d] = ((double)(q % (size_t)side) + 0.5) * h;
      q /= (size_t)side;
    }
    out->balls[i].r = out->balls[i].m = 1;
  }
  toi_rng rng;
  toi_rng_seed(&rng, seed);
  sim_ball *b = &out->balls[nl];
  double dir[3] = {1, 0.3 + toi_rng_uniform(&rng, 0, 0.01), dim == 3 ? 0.2 + toi_rng_uniform(&rng, 0, 0.01) : 0};
  double len = sqrt(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);
  for (int d = 0; d < dim; d++) {
    b->p[d] = h;
    b->v[d] = 1000 * dir[d] / len;
  }
  b->r = 0.05;
  b->m = 0.01;
  return TOI_OK;
}

toi_status sim_scene_build(sim_state *out, const sim_scene *sc, int dim, uint64_t seed) {
  memset(out, 0, sizeof *out);
  if (!sc->built || (dim != 2 && dim != 3) || !(sc->dims & (1u << dim))) return TOI_ERR_RANGE;
  if (!strcmp(sc->name, "billiards")) return billiards(out, seed);
  if (!strcmp(sc->name, "bullet")) return bullet(out, dim, seed);
  return TOI_ERR_RANGE;
}
