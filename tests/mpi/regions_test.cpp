// tests/mpi: a kernel with regions (3-D, periodic + mirror, swap) distributed vs single process:
// the regions must be placed on the global grid on every rank grid. See MpiTest.h.
#include "regions_mpi.h"

#include "MpiTest.h"

namespace K = stn::regions;
using real = K::real;

int main(int argc, char** argv) {
  const real c = 0.11;
  mpitest::Kernel<real> k{"regions", K::kRank, K::kFieldCount, K::kFields,
      [](const long* n) { return K::layout(n[0], n[1], n[2]); },
      [](const long* n, const int* dims, stnc_mpi::Domain& D) { return K::mpi::make_domain(MPI_COMM_WORLD, n[0], n[1], n[2], D, dims); },
      [&](const stnc_rt::Layout& L, long steps, real** f) { return K::cpu::step(L, steps, f[0], f[1], c); },
      [&](stnc_mpi::Domain& D, long steps, real** f) { return K::mpi::cpu::step(D, steps, f[0], f[1], c); },
      [](const stnc_mpi::Domain& D, int root, const real* l, real* g) { return K::mpi::gather(D, root, l, g); },
      [](const stnc_mpi::Domain& D, int root, const real* g, real* l) { return K::mpi::scatter(D, root, g, l); }};
  mpitest::Args a;
  a.n[0] = 37, a.n[1] = 19, a.n[2] = 23;
  a.steps = 30;
  return mpitest::run(argc, argv, k, a);
}
