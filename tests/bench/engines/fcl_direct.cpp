/* fcl_direct.cpp: FCL's continuousCollide called as its users move two spheres over a step, for
 * tests/bench/test_engines_direct.c: fcl_direct CASES W naive|ca prints 'ID hit T' or 'ID none' per case (T in
 * %a, the fraction times W). Each end transform is the start transform with W v added to its translation;
 * the request's defaults, CCDM_TRANS, with the solver type asked for. */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcl/geometry/shape/sphere.h>
#include <fcl/narrowphase/continuous_collision.h>

int main(int argc, char **argv) {
  if (argc != 4) return 2;
  FILE *f = std::fopen(argv[1], "r");
  if (!f) return 2;
  const double W = std::strtod(argv[2], nullptr);
  const bool naive = !std::strcmp(argv[3], "naive");
  char line[4096];
  while (std::fgets(line, sizeof line, f)) {
    char id[256];
    int dim, at = 0;
    if (line[0] == '#' || std::sscanf(line, "%255s %d%n", id, &dim, &at) != 2) continue;
    double x[16] = {0};
    int n = 2 * (2 * dim + 2);
    char *p = line + at;
    for (int k = 0; k < n; k++) x[k] = std::strtod(p, &p);
    fcl::Vector3d pos[2], vel[2];
    double rad[2];
    for (int b = 0; b < 2; b++) {
      const double *y = x + b * (2 * dim + 2);
      pos[b] = fcl::Vector3d(y[0], y[1], dim == 3 ? y[2] : 0);
      vel[b] = fcl::Vector3d(y[dim], y[dim + 1], dim == 3 ? y[dim + 2] : 0);
      rad[b] = y[2 * dim];
    }
    fcl::Sphered sa(rad[0]), sb(rad[1]);
    fcl::Transform3d a0 = fcl::Transform3d::Identity(), b0 = fcl::Transform3d::Identity();
    a0.translation() = pos[0];
    b0.translation() = pos[1];
    fcl::Transform3d a1 = a0, b1 = b0;
    a1.translation() += vel[0] * W;
    b1.translation() += vel[1] * W;
    fcl::ContinuousCollisionRequestd req;
    req.ccd_solver_type = naive ? fcl::CCDC_NAIVE : fcl::CCDC_CONSERVATIVE_ADVANCEMENT;
    fcl::ContinuousCollisionResultd res;
    fcl::continuousCollide(&sa, a0, a1, &sb, b0, b1, req, res);
    if (res.is_collide)
      std::printf("%s hit %a\n", id, res.time_of_contact * W);
    else
      std::printf("%s none\n", id);
  }
  std::fclose(f);
  return 0;
}
