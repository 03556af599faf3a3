// tests/mpi: box2d (2-D, halo corners, asymmetric footprint, constant field, per-axis rules, swap)
// and a point source into the constant field c next to a rank boundary (so c must be exchanged every
// step), distributed vs single process. See MpiTest.h.
#include "box2d_mpi.h"

#include "MpiTest.h"

namespace K = stn::box2d;
using real = K::real;

int main(int argc, char** argv) {
  const real w = 0.3;
  static real wavelet[4096];
  for (int t = 0; t < 4096; ++t) wavelet[t] = mpitest::hashValue(9, t, -0.5, 0.5);
  const K::Source src[2] = {{1, 20, 14, wavelet}, {0, 3, 0, wavelet + 5}};  // fields u = 0, c = 1, v = 2
  mpitest::Kernel<real> k{"box2d", K::kRank, K::kFieldCount, K::kFields,
      [](const long* n) { return K::layout(n[0], n[1]); },
      [](const long* n, const int* dims, stnc_mpi::Domain& D) { return K::mpi::make_domain(MPI_COMM_WORLD, n[0], n[1], D, dims); },
      [&](const stnc_rt::Layout& L, long steps, real** f) { return K::cpu::step(L, steps, f[0], f[1], f[2], w, src, 2); },
      [&](stnc_mpi::Domain& D, long steps, real** f) { return K::mpi::cpu::step(D, steps, f[0], f[1], f[2], w, src, 2); },
      [](const stnc_mpi::Domain& D, int root, const real* l, real* g) { return K::mpi::gather(D, root, l, g); },
      [](const stnc_mpi::Domain& D, int root, const real* g, real* l) { return K::mpi::scatter(D, root, g, l); }};
  mpitest::Args a;
  a.n[0] = 41, a.n[1] = 29;
  a.steps = 30;
  return mpitest::run(argc, argv, k, a);
}
