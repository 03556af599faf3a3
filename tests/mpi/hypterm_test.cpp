// tests/mpi: the CNS hypterm kernel (8 in, 5 out, halo 4, mixed boundary rules) distributed vs
// single process. See MpiTest.h.
#include "hypterm_mpi.h"

#include "MpiTest.h"

namespace K = stn::hypterm;
using real = K::real;

int main(int argc, char** argv) {
  const real d0 = 0.5, d1 = 0.25, d2 = 0.125;
  mpitest::Kernel<real> k{"hypterm", K::kRank, K::kFieldCount, K::kFields,
      [](const long* n) { return K::layout(n[0], n[1], n[2]); },
      [](const long* n, const int* dims, stnc_mpi::Domain& D) { return K::mpi::make_domain(MPI_COMM_WORLD, n[0], n[1], n[2], D, dims); },
      [&](const stnc_rt::Layout& L, long steps, real** f) {
        return K::cpu::step(L, steps, f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[9], f[10], f[11], f[12], d0, d1, d2);
      },
      [&](stnc_mpi::Domain& D, long steps, real** f) {
        return K::mpi::cpu::step(D, steps, f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[9], f[10], f[11], f[12], d0, d1, d2);
      },
      [](const stnc_mpi::Domain& D, int root, const real* l, real* g) { return K::mpi::gather(D, root, l, g); },
      [](const stnc_mpi::Domain& D, int root, const real* g, real* l) { return K::mpi::scatter(D, root, g, l); }};
  mpitest::Args a;
  a.n[0] = 37, a.n[1] = 19, a.n[2] = 23;
  a.steps = 2;
  return mpitest::run(argc, argv, k, a);
}
