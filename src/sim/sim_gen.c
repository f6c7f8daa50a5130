/* sim_gen.c: simulation states generated from a seed: balls on a jittered lattice, big balls placed apart. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "rng.h"
#include "sim.h"

#define SIM_GEN_MAX_SITES 100000000

/* A radius of the lattice balls (no libm: the same state on every machine). */
static double draw_radius(toi_rng *rng, const sim_radii *rd) {
  if (rd->dist == SIM_RADIUS_LOGUNIFORM) return toi_rng_bits(rng, rd->lo, rd->hi);
  return toi_rng_uniform(rng, rd->lo, rd->hi);
}

/* Squared distance from point p to the site [idx h, (idx + 1) h] per axis. */
static double site_dist2(const double p[3], const size_t idx[3], double h, int dim) {
  double s = 0;
  for (int d = 0; d < dim; d++) {
    double lo = (double)idx[d] * h, hi = lo + h, x = 0;
    if (p[d] < lo) x = lo - p[d];
    else if (p[d] > hi) x = p[d] - hi;
    s += x * x;
  }
  return s;
}

static void site_coords(size_t site, size_t k, int dim, size_t idx[3]) {
  for (int d = 0; d < 3; d++) {
    idx[d] = d < dim ? site % k : 0;
    if (d < dim) site /= k;
  }
}

/* Partial Fisher-Yates: n distinct entries of perm[0 .. m) at random. */
static void pick(uint32_t *perm, size_t n, size_t m, toi_rng *rng) {
  for (size_t i = 0; i < n; i++) {
    size_t j = i + (size_t)toi_rng_below(rng, m - i);
    uint32_t t = perm[i];
    perm[i] = perm[j];
    perm[j] = t;
  }
}

/* The big balls on a coarse lattice of cells `cm` sites wide (cm h > 2 r):
   distinct coarse cells at random, each ball jittered inside its cell, so
   they never touch. -1 when the kc^dim coarse cells are too few. */
static int place_big(sim_ball *big, size_t nb, toi_rng *rng, int dim, size_t kc, double H, double r) {
  size_t cells = 1;
  for (int d = 0; d < dim; d++) cells *= kc;
  if (cells < nb) return -1;
  uint32_t *perm = malloc((cells ? cells : 1) * sizeof *perm);
  if (!perm) return -2;
  for (size_t i = 0; i < cells; i++) perm[i] = (uint32_t)i;
  pick(perm, nb, cells, rng);
  double amp = (H / 2 - r) * (1 - 0x1p-10);
  for (size_t i = 0; i < nb; i++) {
    size_t idx[3];
    site_coords(perm[i], kc, dim, idx);
    big[i].r = r;
    big[i].m = toi_rng_uniform(rng, 0.5, 2);
    for (int d = 0; d < dim; d++) {
      big[i].p[d] = ((double)idx[d] + 0.5) * H + toi_rng_uniform(rng, -amp, amp);
      big[i].v[d] = toi_rng_uniform(rng, -1, 1);
    }
  }
  free(perm);
  return 0;
}

/* The free sites (no big ball reaches them) of a lattice of k^dim sites of
   side h into free_[], in increasing order; their number, or SIZE_MAX when
   out of memory. Each big ball marks the sites of its bounding box. */
static size_t free_sites(uint32_t *free_, size_t sites, size_t k, int dim, double h, const sim_ball *big,
                         size_t nb) {
  uint8_t *taken = calloc(sites, 1);
  if (!taken) return SIZE_MAX;
  for (size_t b = 0; b < nb; b++) {
    size_t lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0}, idx[3];
    for (int d = 0; d < dim; d++) {
      double a = floor((big[b].p[d] - big[b].r) / h), z = floor((big[b].p[d] + big[b].r) / h);
      lo[d] = a > 0 ? (size_t)a : 0;
      hi[d] = z < (double)(k - 1) ? (size_t)z : k - 1;
    }
    for (idx[2] = lo[2]; idx[2] <= hi[2]; idx[2]++)
      for (idx[1] = lo[1]; idx[1] <= hi[1]; idx[1]++)
        for (idx[0] = lo[0]; idx[0] <= hi[0]; idx[0]++)
          if (site_dist2(big[b].p, idx, h, dim) <= big[b].r * big[b].r * (1 + 0x1p-20))
            taken[(idx[2] * k + idx[1]) * k + idx[0]] = 1;
  }
  size_t nf = 0;
  for (size_t s = 0; s < sites; s++)
    if (!taken[s]) free_[nf++] = (uint32_t)s;
  free(taken);
  return nf;
}

/* The lattice balls: n distinct free sites at random (partial Fisher-Yates),
   each ball jittered inside its site. */
static void place_lattice(sim_ball *b, size_t n, uint32_t *perm, size_t nfree, size_t k, int dim,
                          double spacing, toi_rng *rng, const sim_radii *rd) {
  pick(perm, n, nfree, rng);
  for (size_t i = 0; i < n; i++, b++) {
    b->r = draw_radius(rng, rd);
    b->m = toi_rng_uniform(rng, 0.5, 2);
    /* the jitter keeps a margin so that neighbours never touch */
    double amp = (spacing / 2 - b->r) * (1 - 0x1p-10);
    size_t idx[3];
    site_coords(perm[i], k, dim, idx);
    for (int d = 0; d < 3; d++) {
      if (d >= dim) {
        b->p[d] = b->v[d] = 0;
        continue;
      }
      b->p[d] = ((double)idx[d] + 0.5) * spacing + toi_rng_uniform(rng, -amp, amp);
      b->v[d] = toi_rng_uniform(rng, -1, 1);
    }
  }
}

static int radii_ok(const sim_radii *rd, double spacing) {
  if (!(rd->lo > 0) || !(rd->lo <= rd->hi) || !isfinite(rd->hi) || !(spacing > 2 * rd->hi)) return 0;
  if (rd->dist == SIM_RADIUS_BIMODAL)
    return rd->big_fraction > 0 && rd->big_fraction < 1 && rd->big > 0 && isfinite(rd->big);
  return rd->dist == SIM_RADIUS_UNIFORM || rd->dist == SIM_RADIUS_LOGUNIFORM;
}

/* Sites per axis for n lattice balls: the smallest k with k^dim >= n, or 0
   beyond SIM_GEN_MAX_SITES. */
static size_t lattice_side(size_t n, int dim, size_t *sites) {
  for (size_t k = 1;; k++) {
    size_t c = 1;
    for (int d = 0; d < dim; d++) c *= k;
    if (c > SIM_GEN_MAX_SITES) return 0;
    if (c >= n) {
      *sites = c;
      return k;
    }
  }
}

/* One attempt on a lattice of k sites per axis: TOI_OK, TOI_ERR_RANGE when
   the balls do not fit (try a larger k), TOI_ERR_NOMEM. */
static toi_status generate_on(sim_state *out, uint64_t seed, size_t k, size_t nb, double spacing,
                              const sim_radii *rd) {
  int dim = out->dim;
  size_t sites = 1, n = out->n;
  for (int d = 0; d < dim; d++) sites *= k;
  uint32_t *perm = malloc(sites * sizeof *perm);
  if (!perm) return TOI_ERR_NOMEM;
  toi_rng rng;
  toi_rng_seed(&rng, seed);
  size_t cm = nb ? (size_t)ceil(2 * rd->big * (1 + 0x1p-10) / spacing) : 1, nfree = 0;
  int big = nb ? place_big(out->balls, nb, &rng, dim, k / cm, (double)cm * spacing, rd->big) : 0;
  if (!big) nfree = free_sites(perm, sites, k, dim, spacing, out->balls, nb);
  toi_status st = big == -2 || nfree == SIZE_MAX ? TOI_ERR_NOMEM : TOI_ERR_RANGE;
  if (!big && nfree != SIZE_MAX && nfree >= n - nb) {
    for (int d = 0; d < 3; d++) out->box[d] = d < dim ? (double)k * spacing : 0;
    place_lattice(out->balls + nb, n - nb, perm, nfree, k, dim, spacing, &rng, rd);
    st = TOI_OK;
  }
  free(perm);
  return st;
}

toi_status sim_generate_radii(sim_state *out, uint64_t seed, int dim, size_t n, double spacing,
                              const sim_radii *rd) {
  memset(out, 0, sizeof *out);
  if ((dim != 2 && dim != 3) || n == 0 || n > SIM_GEN_MAX_SITES || !isfinite(spacing) || spacing > 1e100 ||
      !radii_ok(rd, spacing))
    return TOI_ERR_RANGE;
  size_t nb = 0, sites = 0, need = n;
  if (rd->dist == SIM_RADIUS_BIMODAL) {
    double f = floor(rd->big_fraction * (double)n + 0.5);
    nb = f < 1 ? 1 : (f > (double)n ? n : (size_t)f);
    /* room for the lattice balls and about one coarse cell per big ball */
    double cm = ceil(2 * rd->big * (1 + 0x1p-10) / spacing) + 1, cells = (double)nb;
    for (int d = 0; d < dim; d++) cells *= cm;
    if (!(cells + (double)(n - nb) <= SIM_GEN_MAX_SITES)) return TOI_ERR_RANGE;
    need = n - nb + (size_t)cells;
  }
  size_t k = lattice_side(need, dim, &sites);
  out->balls = calloc(n, sizeof *out->balls);
  if (!out->balls) return TOI_ERR_NOMEM;
  out->n = n;
  out->dim = dim;
  for (; k && sites <= SIM_GEN_MAX_SITES; k++) {
    toi_status st = generate_on(out, seed, k, nb, spacing, rd);
    if (st != TOI_ERR_RANGE) {
      if (st != TOI_OK) sim_state_free(out);
      return st;
    }
    sites = 1;
    for (int d = 0; d < dim; d++) sites *= k + 1;
  }
  sim_state_free(out);
  return TOI_ERR_RANGE;
}

toi_status sim_generate(sim_state *out, uint64_t seed, int dim, size_t n, double spacing) {
  const sim_radii rd = {0.5, 1, SIM_RADIUS_UNIFORM, 0, 0};
  return sim_generate_radii(out, seed, dim, n, spacing, &rd);
}
