// tests/mpi: heat3d (3-D, periodic, swap) distributed vs single process. See MpiTest.h.
#include "heat3d_mpi.h"

#include "MpiTest.h"

namespace K = stn::heat3d;
using real = K::real;

int main(int argc, char** argv) {
  const real dt = 0.7;
  mpitest::Kernel<real> k{"heat3d", K::kRank, K::kFieldCount, K::kFields,
      [](const long* n) { return K::layout(n[0], n[1], n[2]); },
      [](const long* n, const int* dims, stnc_mpi::Domain& D) { return K::mpi::make_domain(MPI_COMM_WORLD, n[0], n[1], n[2], D, dims); },
      [&](const stnc_rt::Layout& L, long steps, real** f) { return K::cpu::step(L, steps, f[0], f[1], dt); },
      [&](stnc_mpi::Domain& D, long steps, real** f) { return K::mpi::cpu::step(D, steps, f[0], f[1], dt); },
      [](const stnc_mpi::Domain& D, int root, const real* l, real* g) { return K::mpi::gather(D, root, l, g); },
      [](const stnc_mpi::Domain& D, int root, const real* g, real* l) { return K::mpi::scatter(D, root, g, l); }};
  mpitest::Args a;
  a.n[0] = 37, a.n[1] = 19, a.n[2] = 23;
  a.steps = 50;
  return mpitest::run(argc, argv, k, a);
}
