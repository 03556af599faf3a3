// samples/cns/mpi_main.cpp — the CNS hypterm distributed over MPI ranks (cns_mpi, -DSTNC_CNS_MPI=ON).
//
//   mpirun -np P cns_mpi [--size 40x33x47] [--dims AxBxC] [--reps R]
//
// stnc --distributed generates cns_mpi.h next to cns.h: per kernel K a namespace stn::K::mpi that
// splits the global grid over the ranks (MPI_Cart_create), exchanges the halo cells each field is read
// at (the 8th-order stencil reads 4 cells; qu only along i, qv along j, qw along k) and runs the
// single-node sweep of the generated cns.cpp on every rank's box. The hypterm is one sweep of fixed
// inputs, so a distributed "step" is: exchange the inputs, sweep.
//
// Rank 0 fills the 8 global inputs with random values (halo included: the global halo is the fixed
// boundary), runs the fused kernel stn::hypterm::cpu::sweep on the whole grid in one process (the
// reference), then every rank runs stn::hypterm::mpi::cpu::step on its box and the five outputs are
// gathered and compared bit for bit. Then the same for the five separate kernels (hyp_rho ..
// hyp_ene, each distributed on its own). Exit status 0 only if everything is bit-identical.
// --reps R also times R distributed sweeps (each with its halo exchange) of the fused kernel.
#include "cns_mpi.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace {

constexpr int NIN = 8, NOUT = 5;
enum In { QU, QV, QW, QPRES, IMX, IMY, IMZ, IENE };
enum Out { RHO, MX, MY, MZ, ENE };
const char* const kOutName[NOUT] = {"flux_irho", "flux_imx", "flux_imy", "flux_imz", "flux_iene"};

struct Array {
  double* p = nullptr;
  explicit Array(size_t count) {
    const size_t bytes = (count * sizeof(double) + 127) / 128 * 128;
    p = static_cast<double*>(std::aligned_alloc(128, bytes > 0 ? bytes : 128));
    if (!p) {
      std::fprintf(stderr, "cns_mpi: out of memory\n");
      std::exit(2);
    }
    std::memset(p, 0, bytes);
  }
  ~Array() { std::free(p); }
  Array(const Array&) = delete;
  Array& operator=(const Array&) = delete;
};

bool parseTriple(const char* s, long* out) {
  char* end = nullptr;
  for (int d = 0; d < 3; ++d) {
    out[d] = std::strtol(s, &end, 10);
    if (end == s || out[d] < 0) return false;
    if (d < 2) {
      if (*end != 'x') return false;
      s = end + 1;
    }
  }
  return *end == 0;
}

void fail(int me, const char* what, int s) {
  std::fprintf(stderr, "cns_mpi: rank %d: %s failed: %s\n", me, what, stnc_mpi::statusName(s));
  MPI_Abort(MPI_COMM_WORLD, 1);
}

// Interior points of `got` whose bits differ from `want` (both in layout L).
long differing(const stnc_rt::Layout& L, const double* got, const double* want) {
  long bad = 0;
  for (long i = 0; i < L.n[0]; ++i)
    for (long j = 0; j < L.n[1]; ++j)
      for (long k = 0; k < L.n[2]; ++k) {
        const long p = stnc_rt::at(L, i, j, k);
        bad += std::memcmp(&got[p], &want[p], sizeof(double)) != 0;
      }
  return bad;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long n[3] = {40, 33, 47};
  long dimsL[3] = {0, 0, 0};
  int reps = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : nullptr;
    bool ok = v != nullptr;
    if (ok && a == "--size") ok = parseTriple(v, n);
    else if (ok && a == "--dims") ok = parseTriple(v, dimsL);
    else if (ok && a == "--reps") reps = std::atoi(v);
    else ok = false;
    if (!ok) {
      if (me == 0) std::fprintf(stderr, "usage: mpirun -np P %s [--size AxBxC] [--dims AxBxC] [--reps R]\n", argv[0]);
      MPI_Finalize();
      return 2;
    }
    ++i;
  }
  const int dims[3] = {static_cast<int>(dimsL[0]), static_cast<int>(dimsL[1]), static_cast<int>(dimsL[2])};
  const double dx[3] = {1.0 / 0.013, 1.0 / 0.021, 1.0 / 0.0087};
  long bad = 0;
  {
    namespace K = stn::hypterm;
    stnc_mpi::Domain D;  // frees its communicator before MPI_Finalize
    if (int s = K::mpi::make_domain(MPI_COMM_WORLD, n[0], n[1], n[2], D, dims)) fail(me, "make_domain", s);
    const stnc_rt::Layout G = K::layout(n[0], n[1], n[2]);
    if (me == 0) {
      std::printf("cns_mpi: hypterm %ldx%ldx%ld on %d rank(s), rank grid %dx%dx%d, rank 0 holds %ldx%ldx%ld\n", n[0], n[1],
                  n[2], size, D.dims[0], D.dims[1], D.dims[2], D.n[0], D.n[1], D.n[2]);
      std::printf("cns_mpi: halo cells exchanged per field below..above the interior (i, j, k):\n");
      for (int f = 0; f < K::kFieldCount; ++f) {
        const int* lo = K::mpi::kExchangeLo[f];
        const int* hi = K::mpi::kExchangeHi[f];
        if (lo[0] + lo[1] + lo[2] + hi[0] + hi[1] + hi[2] == 0) continue;
        std::printf("  %-10s i[%d..%d] j[%d..%d] k[%d..%d]\n", K::kFields[f], lo[0], hi[0], lo[1], hi[1], lo[2], hi[2]);
      }
    }
    // Global arrays (rank 0): inputs random with their halo, outputs of the one-process reference.
    std::vector<std::unique_ptr<Array>> gin, gref;
    if (me == 0) {
      std::mt19937_64 rng(20240601);
      std::uniform_real_distribution<double> vel(-1.0, 1.0), pos(0.5, 2.0);
      for (int f = 0; f < NIN; ++f) {
        gin.push_back(std::make_unique<Array>(G.count));
        for (size_t x = 0; x < G.count; ++x) gin[f]->p[x] = (f == QU || f == QV || f == QW) ? vel(rng) : pos(rng);
      }
      for (int f = 0; f < NOUT; ++f) gref.push_back(std::make_unique<Array>(G.count));
      const int s = K::cpu::sweep(G, gin[IMX]->p, gin[IMY]->p, gin[IMZ]->p, gref[RHO]->p, gin[QU]->p, gin[QV]->p, gin[QW]->p,
                                  gin[QPRES]->p, gref[MX]->p, gref[MY]->p, gref[MZ]->p, gin[IENE]->p, gref[ENE]->p, dx[0],
                                  dx[1], dx[2]);
      if (s) fail(me, "hypterm::cpu::sweep (one process)", s);
    }
    auto global = [&](std::vector<std::unique_ptr<Array>>& v, int f) -> const double* { return me == 0 ? v[f]->p : nullptr; };
    // This rank's boxes of the inputs (with the halo around them) and its outputs.
    std::vector<std::unique_ptr<Array>> in, out;
    for (int f = 0; f < NIN; ++f) {
      in.push_back(std::make_unique<Array>(D.L.count));
      if (int s = K::mpi::scatter(D, 0, global(gin, f), in[f]->p)) fail(me, "scatter", s);
    }
    for (int f = 0; f < NOUT; ++f) out.push_back(std::make_unique<Array>(D.L.count));
    auto fused = [&](long steps) {
      return K::mpi::cpu::step(D, steps, in[IMX]->p, in[IMY]->p, in[IMZ]->p, out[RHO]->p, in[QU]->p, in[QV]->p, in[QW]->p,
                               in[QPRES]->p, out[MX]->p, out[MY]->p, out[MZ]->p, in[IENE]->p, out[ENE]->p, dx[0], dx[1], dx[2]);
    };
    if (int s = fused(1)) fail(me, "hypterm::mpi::cpu::step", s);
    std::vector<double> got(me == 0 ? G.count : 0);
    auto compareOutputs = [&](const char* version) {
      long versionBad = 0;
      for (int f = 0; f < NOUT; ++f) {
        if (int s = K::mpi::gather(D, 0, out[f]->p, me == 0 ? got.data() : nullptr)) fail(me, "gather", s);
        if (me != 0) continue;
        const long b = differing(G, got.data(), gref[f]->p);
        if (b) std::printf("  %s: %s: %ld of %ld values differ\n", version, kOutName[f], b, n[0] * n[1] * n[2]);
        versionBad += b;
      }
      if (me == 0)
        std::printf("cns_mpi: %-38s %s\n", version,
                    versionBad ? "DIFFERS from the one-process run" : "bit-identical to the one-process fused run");
      bad += versionBad;
    };
    compareOutputs("fused (group hypterm), distributed");

    // The five separate kernels, each distributed on its own domain (same grid, same rank grid).
    for (auto& o : out) std::memset(o->p, 0, D.L.count * sizeof(double));
    {
      stnc_mpi::Domain Dr, Dx, Dy, Dz, De;
      const int* dd = dims;
      int s = stn::hyp_rho::mpi::make_domain(MPI_COMM_WORLD, n[0], n[1], n[2], Dr, dd);
      if (!s) s = stn::hyp_rho::mpi::cpu::step(Dr, 1, in[IMX]->p, in[IMY]->p, in[IMZ]->p, out[RHO]->p, dx[0], dx[1], dx[2]);
      if (!s) s = stn::hyp_imx::mpi::make_domain(MPI_COMM_WORLD, n[0], n[1], n[2], Dx, dd);
      if (!s)
        s = stn::hyp_imx::mpi::cpu::step(Dx, 1, in[QU]->p, in[QV]->p, in[QW]->p, in[QPRES]->p, in[IMX]->p, out[MX]->p, dx[0],
                                         dx[1], dx[2]);
      if (!s) s = stn::hyp_imy::mpi::make_domain(MPI_COMM_WORLD, n[0], n[1], n[2], Dy, dd);
      if (!s)
        s = stn::hyp_imy::mpi::cpu::step(Dy, 1, in[QU]->p, in[QV]->p, in[QW]->p, in[QPRES]->p, in[IMY]->p, out[MY]->p, dx[0],
                                         dx[1], dx[2]);
      if (!s) s = stn::hyp_imz::mpi::make_domain(MPI_COMM_WORLD, n[0], n[1], n[2], Dz, dd);
      if (!s)
        s = stn::hyp_imz::mpi::cpu::step(Dz, 1, in[QU]->p, in[QV]->p, in[QW]->p, in[QPRES]->p, in[IMZ]->p, out[MZ]->p, dx[0],
                                         dx[1], dx[2]);
      if (!s) s = stn::hyp_ene::mpi::make_domain(MPI_COMM_WORLD, n[0], n[1], n[2], De, dd);
      if (!s)
        s = stn::hyp_ene::mpi::cpu::step(De, 1, in[QU]->p, in[QV]->p, in[QW]->p, in[QPRES]->p, in[IENE]->p, out[ENE]->p,
                                         dx[0], dx[1], dx[2]);
      if (s) fail(me, "the five kernels' mpi::cpu::step", s);
    }
    compareOutputs("five kernels (hyp_rho..hyp_ene), distr.");

    if (reps > 0) {
      if (int s = fused(1)) fail(me, "warm-up", s);
      MPI_Barrier(MPI_COMM_WORLD);
      const auto t0 = std::chrono::steady_clock::now();
      for (int r = 0; r < reps; ++r)
        if (int s = fused(1)) fail(me, "hypterm::mpi::cpu::step", s);
      MPI_Barrier(MPI_COMM_WORLD);
      const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / reps;
      if (me == 0)
        std::printf("cns_mpi: %.3f ms per distributed sweep (exchange of the 8 inputs + sweep), %.1f Mpts/s\n", ms,
                    static_cast<double>(n[0] * n[1] * n[2]) / ms * 1e-3);
    }
  }
  long total = 0;
  MPI_Allreduce(&bad, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0) std::printf("cns_mpi: %s on %d rank(s)\n", total == 0 ? "PASSED" : "FAILED", size);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
