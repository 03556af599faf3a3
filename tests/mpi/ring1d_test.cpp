// tests/mpi: ring1d (1-D, asymmetric footprint, mirror rule, swap) distributed vs single process.
// See MpiTest.h.
#include "ring1d_mpi.h"

#include "MpiTest.h"

namespace K = stn::ring1d;
using real = K::real;

int main(int argc, char** argv) {
  mpitest::Kernel<real> k{"ring1d", K::kRank, K::kFieldCount, K::kFields,
      [](const long* n) { return K::layout(n[0]); },
      [](const long* n, const int* dims, stnc_mpi::Domain& D) { return K::mpi::make_domain(MPI_COMM_WORLD, n[0], D, dims); },
      [&](const stnc_rt::Layout& L, long steps, real** f) { return K::cpu::step(L, steps, f[0], f[1]); },
      [&](stnc_mpi::Domain& D, long steps, real** f) { return K::mpi::cpu::step(D, steps, f[0], f[1]); },
      [](const stnc_mpi::Domain& D, int root, const real* l, real* g) { return K::mpi::gather(D, root, l, g); },
      [](const stnc_mpi::Domain& D, int root, const real* g, real* l) { return K::mpi::scatter(D, root, g, l); }};
  mpitest::Args a;
  a.n[0] = 101;
  a.steps = 40;
  return mpitest::run(argc, argv, k, a);
}
