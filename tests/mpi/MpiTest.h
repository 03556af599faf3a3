// tests/mpi harness: runs one kernel on the global grid in one process (stn::K::cpu::step, the
// reference) and distributed over the ranks of MPI_COMM_WORLD (stn::K::mpi::cpu::step), from the
// same random initial arrays (halos included, every field independent), and requires every field's
// interior, per role after the swaps, to be bit-identical. Include after FILE_mpi.h.
//
//   PROG [--size 37x19x23] [--steps N] [--dims 0x0x3] [--chunks C]
//   --dims: ranks per axis, 0 = chosen by MPI_Dims_create. --chunks: interior slabs per sweep.
// Exit status 0 on every rank when all fields match; rank 0 prints a PASS/FAIL line.
#pragma once
#include <mpi.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace mpitest {

struct Args {
  long n[3] = {0, 0, 0};
  int dims[3] = {0, 0, 0};
  long steps = 1;
  int chunks = 4;
};

inline bool parseTriple(const char* s, long* out, int rank) {
  int got = 0;
  const char* p = s;
  while (got < rank) {
    char* end = nullptr;
    out[got++] = std::strtol(p, &end, 10);
    if (end == p) return false;
    if (got < rank) {
      if (*end != 'x') return false;
      p = end + 1;
    } else if (*end != 0) {
      return false;
    }
  }
  return true;
}

inline bool parseArgs(int argc, char** argv, int rank, Args& a) {
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    if (i + 1 >= argc) return false;
    const char* v = argv[++i];
    if (k == "--size") {
      if (!parseTriple(v, a.n, rank)) return false;
    } else if (k == "--dims") {
      long d[3] = {0, 0, 0};
      if (!parseTriple(v, d, rank)) return false;
      for (int x = 0; x < rank; ++x) a.dims[x] = static_cast<int>(d[x]);
    } else if (k == "--steps") {
      a.steps = std::atol(v);
    } else if (k == "--chunks") {
      a.chunks = std::atoi(v);
    } else {
      return false;
    }
  }
  return true;
}

// splitmix64: a deterministic value in [lo, hi) per (seed, index).
inline double hashValue(uint64_t seed, uint64_t i, double lo, double hi) {
  uint64_t z = seed * 0x9e3779b97f4a7c15ULL + i + 0x632be59bd9b4e019ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return lo + (hi - lo) * static_cast<double>(z >> 11) * (1.0 / 9007199254740992.0);
}

template <typename T>
T* allocArray(size_t count) {
  const size_t bytes = (count * sizeof(T) + 127) / 128 * 128;
  T* p = static_cast<T*>(std::aligned_alloc(128, bytes > 0 ? bytes : 128));
  // Garbage that is easy to spot: a halo cell nobody filled stays NaN.
  for (size_t i = 0; p && i < count; ++i) p[i] = static_cast<T>(std::nan(""));
  return p;
}

// Interior mismatches of two arrays of layout L (bitwise), printing the first few.
template <typename T>
long compareInterior(const stnc_rt::Layout& L, const T* got, const T* want, const char* what) {
  long bad = 0;
  for (long x = 0; x < L.n[0]; ++x)
    for (long y = 0; y < L.n[1]; ++y)
      for (long z = 0; z < L.n[2]; ++z) {
        const long p = stnc_rt::at(L, x, y, z);
        if (std::memcmp(&got[p], &want[p], sizeof(T)) == 0) continue;
        if (bad++ < 5)
          std::printf("  mismatch %s at (%ld, %ld, %ld): got %.17g want %.17g\n", what, x, y, z, static_cast<double>(got[p]),
                      static_cast<double>(want[p]));
      }
  return bad;
}

// The kernel under test, through its generated API.
template <typename T>
struct Kernel {
  const char* name;
  int rank;         // kernel rank (axes)
  int fieldCount;
  const char* const* fields;
  std::function<stnc_rt::Layout(const long* n)> layout;                                   // stn::K::layout
  std::function<int(const long* n, const int* dims, stnc_mpi::Domain& D)> makeDomain;     // mpi::make_domain
  std::function<int(const stnc_rt::Layout& L, long steps, T** f)> globalStep;             // cpu::step
  std::function<int(stnc_mpi::Domain& D, long steps, T** f)> mpiStep;                     // mpi::cpu::step
  std::function<int(const stnc_mpi::Domain& D, int root, const T* local, T* global)> gather;
  std::function<int(const stnc_mpi::Domain& D, int root, const T* global, T* local)> scatter;
};

inline int fail(int me, const char* what, int status) {
  std::printf("rank %d: %s failed: %s\n", me, what, stnc_mpi::statusName(status));
  return 1;
}

template <typename T>
int run(int argc, char** argv, const Kernel<T>& K, Args a) {
  MPI_Init(&argc, &argv);
  int me = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (!parseArgs(argc, argv, K.rank, a)) {
    if (me == 0) std::printf("usage: %s [--size AxBxC] [--steps N] [--dims AxBxC] [--chunks C]\n", argv[0]);
    MPI_Finalize();
    return 2;
  }
  long failures = 0;
  {
    stnc_mpi::Domain D;
    if (int s = K.makeDomain(a.n, a.dims, D)) {
      failures += fail(me, "make_domain", s);
    } else {
      D.progressChunks = a.chunks;
      const stnc_rt::Layout G = K.layout(a.n);
      if (G.count != D.G.count) failures += fail(me, "global layout", stnc_rt::kBadArgument);
      if (me == 0) {
        const int off = 3 - K.rank;
        std::string dims, mine;
        for (int d = off; d < 3; ++d) {
          dims += (d > off ? "x" : "") + std::to_string(D.dims[d]);
          mine += (d > off ? "x" : "") + std::to_string(D.n[d]);
        }
        std::printf("%s: %d ranks, dims %s, rank 0 holds %s, %ld steps\n", K.name, size, dims.c_str(), mine.c_str(), a.steps);
      }
      const int nf = K.fieldCount;
      // Global initial arrays and the reference run, on rank 0.
      std::vector<T*> init(nf, nullptr), ref(nf, nullptr), refRole(nf, nullptr);
      if (me == 0)
        for (int f = 0; f < nf; ++f) {
          init[f] = allocArray<T>(G.count);
          ref[f] = allocArray<T>(G.count);
          for (size_t i = 0; i < G.count; ++i) init[f][i] = static_cast<T>(hashValue(1000 + f, i, 0.5, 1.5));
          std::memcpy(ref[f], init[f], G.count * sizeof(T));
          refRole[f] = ref[f];
        }
      double tGlobal = 0;
      if (me == 0) {
        const auto t0 = std::chrono::steady_clock::now();
        if (int s = K.globalStep(G, a.steps, refRole.data())) failures += fail(me, "global cpu::step", s);
        tGlobal = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      }
      // The distributed run.
      std::vector<T*> loc(nf, nullptr), role(nf, nullptr);
      for (int f = 0; f < nf; ++f) {
        loc[f] = allocArray<T>(D.L.count);
        role[f] = loc[f];
        if (int s = K.scatter(D, 0, init[f], loc[f])) failures += fail(me, "scatter", s);
      }
      MPI_Barrier(MPI_COMM_WORLD);
      const auto t0 = std::chrono::steady_clock::now();
      if (int s = K.mpiStep(D, a.steps, role.data())) failures += fail(me, "mpi::cpu::step", s);
      MPI_Barrier(MPI_COMM_WORLD);
      const double tMpi = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      T* got = me == 0 ? allocArray<T>(G.count) : nullptr;
      for (int f = 0; f < nf; ++f) {
        if (int s = K.gather(D, 0, role[f], got)) failures += fail(me, "gather", s);
        if (me == 0) {
          const long bad = compareInterior(G, got, refRole[f], K.fields[f]);
          if (bad) std::printf("  field %s: %ld of %ld interior points differ\n", K.fields[f], bad, G.n[0] * G.n[1] * G.n[2]);
          failures += bad;
        }
      }
      if (me == 0)
        std::printf("%s: global %.2f ms, distributed %.2f ms (%ld steps)\n", K.name, tGlobal, tMpi, a.steps);
      std::free(got);
      for (int f = 0; f < nf; ++f) {
        std::free(loc[f]);
        std::free(init[f]);
        std::free(ref[f]);
      }
    }
  }  // the Domain frees its communicator before MPI_Finalize
  long total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0) std::printf("%s %s on %d ranks: %s\n", total == 0 ? "PASS" : "FAIL", K.name, size,
                           total == 0 ? "bit-identical to the single-process run" : "mismatches");
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}

}  // namespace mpitest
