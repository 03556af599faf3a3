// tests/mpi: the f32 leapfrog wave (inout field, halo 4, periodic, swap) with point sources (one on
// a rank boundary, one into the constant field roc2) distributed vs single process. See MpiTest.h.
#include "wave_mpi.h"

#include "MpiTest.h"

namespace K = stn::wave;
using real = K::real;

int main(int argc, char** argv) {
  // Sources in global coordinates (i, j, k): fields u = 0, roc2 = 1, v = 2 (by role).
  static real wavelet[4096];
  for (int t = 0; t < 4096; ++t) wavelet[t] = static_cast<real>(mpitest::hashValue(7, t, -0.01, 0.01));
  const K::Source src[3] = {{2, 5, 7, 30, wavelet}, {0, 12, 0, 0, wavelet + 1}, {1, 11, 10, 16, wavelet + 2}};
  mpitest::Kernel<real> k{"wave", K::kRank, K::kFieldCount, K::kFields,
      [](const long* n) { return K::layout(n[0], n[1], n[2]); },
      [](const long* n, const int* dims, stnc_mpi::Domain& D) { return K::mpi::make_domain(MPI_COMM_WORLD, n[0], n[1], n[2], D, dims); },
      [&](const stnc_rt::Layout& L, long steps, real** f) { return K::cpu::step(L, steps, f[0], f[1], f[2], src, 3); },
      [&](stnc_mpi::Domain& D, long steps, real** f) { return K::mpi::cpu::step(D, steps, f[0], f[1], f[2], src, 3); },
      [](const stnc_mpi::Domain& D, int root, const real* l, real* g) { return K::mpi::gather(D, root, l, g); },
      [](const stnc_mpi::Domain& D, int root, const real* g, real* l) { return K::mpi::scatter(D, root, g, l); }};
  mpitest::Args a;
  a.n[0] = 24, a.n[1] = 20, a.n[2] = 33;
  a.steps = 10;
  return mpitest::run(argc, argv, k, a);
}
