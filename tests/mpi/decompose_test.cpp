// tests/mpi: the decomposition arithmetic that the MPI-free variant (STNC_NO_MPI: ranks of an NCCL
// communicator) uses instead of MPI: stnc_mpi::dimsCreate must give MPI_Dims_create's rank grids,
// and stnc_mpi::decomposeRanks the same coordinates, neighbours, boxes and layouts as
// stnc_mpi::decompose over a Cartesian communicator (checked on every rank of this run, for
// several kernels' periodicities and user dims). And the invariant the NCCL exchange relies on
// (NCCL matches the sends and receives between two ranks by posting order, not by tag): over all
// ranks of a decomposition (built here with decomposeRanks, 1..8 ranks, every rank grid), the
// messages A sends to B, in Plan::byTag order, have the same tags and sizes as the messages B
// receives from A in byTag order, phase by phase. Prints PASS/FAIL on rank 0.
#include "box2d_mpi.h"
#include "heat3d_mpi.h"
#include "hypterm_mpi.h"
#include "regions_mpi.h"

#include <cstdio>
#include <cstring>
#include <utility>
#include <vector>

namespace {

long failures = 0;

void expect(bool ok, const char* what, int size, int a, int b) {
  if (ok) return;
  if (failures++ < 20) std::printf("  mismatch: %s (size %d, %d vs %d)\n", what, size, a, b);
}

bool sameLayout(const stnc_rt::Layout& x, const stnc_rt::Layout& y) {
  bool same = x.origin == y.origin && x.count == y.count;
  for (int d = 0; d < 3; ++d)
    same = same && x.n[d] == y.n[d] && x.pad[d] == y.pad[d] && x.dim[d] == y.dim[d] && x.stride[d] == y.stride[d] &&
           x.halo[d] == y.halo[d];
  return same;
}

void compareDomains(const stnc_mpi::KernelSpec& K, const long* n, const int* dims) {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  stnc_mpi::Domain A, B;
  const int sa = stnc_mpi::decompose(MPI_COMM_WORLD, K, n, dims, A);
  int me = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  const int sb = stnc_mpi::decomposeRanks(size, me, K, n, dims, B);
  expect(sa == sb, "status", size, sa, sb);
  if (sa != stnc_rt::kOk || sb != stnc_rt::kOk) return;
  expect(A.rank == B.rank, "rank", size, A.rank, B.rank);
  for (int d = 0; d < 3; ++d) {
    expect(A.dims[d] == B.dims[d], "dims", size, A.dims[d], B.dims[d]);
    expect(A.coords[d] == B.coords[d], "coords", size, A.coords[d], B.coords[d]);
    expect(A.periodic[d] == B.periodic[d], "periodic", size, A.periodic[d], B.periodic[d]);
    expect(A.n[d] == B.n[d] && A.offset[d] == B.offset[d], "box", size, static_cast<int>(A.n[d]), static_cast<int>(B.n[d]));
    for (int side = 0; side < 2; ++side) expect(A.nbr[d][side] == B.nbr[d][side], "neighbour", size, A.nbr[d][side], B.nbr[d][side]);
  }
  expect(sameLayout(A.L, B.L) && sameLayout(A.G, B.G) && sameLayout(A.F, B.F), "layouts", size, 0, 1);
  for (int r = 0; r < size; ++r) {
    const stnc_mpi::Box3 x = stnc_mpi::rankBox(A, r), y = stnc_mpi::rankBox(B, r);
    expect(std::memcmp(&x, &y, sizeof x) == 0, "rankBox", size, r, r);
  }
}

// The NCCL pairing invariant for one kernel on `size` ranks with rank grid `dims` (null: free).
void checkPairing(const char* name, const stnc_mpi::KernelSpec& K, const long* n, int size, const int* dims) {
  std::vector<stnc_mpi::Domain> doms(static_cast<size_t>(size));
  for (int r = 0; r < size; ++r)
    if (stnc_mpi::decomposeRanks(size, r, K, n, dims, doms[static_cast<size_t>(r)]) != stnc_rt::kOk) return;  // too small
  for (int all = 0; all < 2; ++all) {
    std::vector<stnc_mpi::Plan> plans(static_cast<size_t>(size));
    for (int r = 0; r < size; ++r) stnc_mpi::buildPlan(doms[static_cast<size_t>(r)], K, all == 1, plans[static_cast<size_t>(r)]);
    for (int phase = -1; phase < 3; ++phase)  // -1: all phases at once (face mode), else one dimension (corner mode)
      for (int a = 0; a < size; ++a)
        for (int b = 0; b < size; ++b) {
          std::vector<std::pair<int, long>> sent, received;
          for (const auto& di : plans[static_cast<size_t>(a)].byTag) {
            const stnc_mpi::Message& m = plans[static_cast<size_t>(a)].msgs[di.first][static_cast<size_t>(di.second)];
            if (m.send && m.peer == b && (phase < 0 || di.first == phase)) sent.emplace_back(m.tag, m.count);
          }
          for (const auto& di : plans[static_cast<size_t>(b)].byTag) {
            const stnc_mpi::Message& m = plans[static_cast<size_t>(b)].msgs[di.first][static_cast<size_t>(di.second)];
            if (!m.send && m.peer == a && (phase < 0 || di.first == phase)) received.emplace_back(m.tag, m.count);
          }
          if (sent != received && failures++ < 20)
            std::printf("  NCCL pairing: %s on %d ranks, %d -> %d, phase %d: %zu sends vs %zu receives differ\n", name, size, a, b,
                        phase, sent.size(), received.size());
        }
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  // dimsCreate vs MPI_Dims_create (local calls): every size up to 64, 1-3 dimensions, some fixed entries.
  for (int p = 1; p <= 64; ++p)
    for (int nd = 1; nd <= 3; ++nd)
      for (int fix = 0; fix <= 2; ++fix) {
        int a[3] = {0, 0, 0}, b[3] = {0, 0, 0};
        // (a wrong product would be erroneous for MPI_Dims_create, fatal with the default handler)
        if (fix == 1 && (nd < 2 || p % 2 != 0)) continue;
        if (fix == 2 && (nd < 3 || p % 3 != 0)) continue;
        if (fix == 1) a[0] = b[0] = 2;
        if (fix == 2) a[1] = b[1] = 3;
        if (MPI_Dims_create(p, nd, a) != MPI_SUCCESS) continue;
        const bool ok = stnc_mpi::dimsCreate(p, nd, b);
        expect(ok, "dimsCreate failed", p, nd, fix);
        for (int d = 0; d < nd; ++d) expect(a[d] == b[d], "dimsCreate vs MPI_Dims_create", p, a[d], b[d]);
      }
  const long n3[3] = {37, 19, 23}, n2[2] = {41, 29}, small[3] = {9, 8, 16};
  const int d122[3] = {1, 2, 2}, d001[3] = {0, 0, 1};
  for (const int* dims : {static_cast<const int*>(nullptr), d122, d001}) {
    if (dims == d122 && size % 4 != 0) continue;
    compareDomains(stn::heat3d::mpi::kSpec, n3, dims);
    compareDomains(stn::hypterm::mpi::kSpec, dims == d122 ? small : n3, dims);
    compareDomains(stn::regions::mpi::kSpec, n3, dims);
  }
  compareDomains(stn::box2d::mpi::kSpec, n2, nullptr);
  if (me == 0) {
    const long tiny[3] = {9, 8, 16};
    for (int p = 1; p <= 8; ++p) {
      std::vector<std::vector<int>> grids = {{0, 0, 0}};
      for (int x = 1; x <= p; ++x)
        for (int y = 1; x * y <= p; ++y)
          if (p % (x * y) == 0) grids.push_back({x, y, p / (x * y)});
      for (const auto& g : grids) {
        checkPairing("heat3d", stn::heat3d::mpi::kSpec, n3, p, g.data());
        checkPairing("hypterm", stn::hypterm::mpi::kSpec, n3, p, g.data());
        checkPairing("hypterm", stn::hypterm::mpi::kSpec, tiny, p, g.data());
        checkPairing("regions", stn::regions::mpi::kSpec, n3, p, g.data());
        const int g2[2] = {g[0] == 0 ? 0 : g[0] * g[1], g[2]};
        checkPairing("box2d", stn::box2d::mpi::kSpec, n2, p, g2);
      }
    }
  }
  long total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0)
    std::printf("%s decompose on %d ranks: stnc_mpi::decomposeRanks/dimsCreate vs MPI's Cartesian decomposition, and the "
                "NCCL send/receive order on 1..8 ranks: %s\n",
                total == 0 ? "PASS" : "FAIL", size, total == 0 ? "all agree" : "mismatches");
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
