// tests/mpi/multigpu.cu — the distributed launchers' CUDA variant (stn::K::mpi::cuda) on several
// GPUs: correctness (bit-identical to one GPU) and timing per step. One source, two ways to run:
//
//   MPI (default build):  mpirun -np P multigpu [--check] [--bench N ...]
//       one rank per GPU (node-local rank % devices); halos through NCCL (-DSTNC_USE_NCCL), CUDA-aware
//       MPI (when the MPI is, or STNC_MPI_CUDA_AWARE=1) or pinned host staging.
//   no MPI (-DSTNC_NO_MPI -DSTNC_USE_NCCL):  multigpu --gpus P [--check] [--bench N ...]
//       one thread per GPU in this process, an NCCL communicator from ncclCommInitAll; the launcher's
//       make_domain takes each thread's communicator, gather/scatter go through NCCL.
//
//   --check          heat3d (37x19x23, periodic, 40 steps; default rank grid, 1x1xP and 1xPx1 splits),
//                    hypterm (8th order, 13 fields, 2 steps), box2d (2-D, corners exchanged axis by axis,
//                    20 steps), regions (regions on the global grid, 30 steps): every field's interior
//                    after stn::K::mpi::cuda::step equals stn::K::cuda::step on one GPU, bit for bit
//   --bench N        heat3d, strong scaling (N^3 over the P GPUs) and weak scaling (N^3 per GPU):
//                    ms per step of mpi::cuda::step, ms per halo exchange alone (mpi::cuda::exchange),
//                    ms per sweep of the local box alone (no exchange), and the one-GPU cuda::step of the
//                    same global grid (strong, when it fits); --steps S (default 50), --reps R (20)
//   --gpus P         (no-MPI build) GPUs to use, default all
// Output: PASS/FAIL lines, and one "RESULT key=value ..." line per measurement for scripts/gpu-multi.sh.
// Exit status: 0 all passed, 1 a mismatch or error, 77 no CUDA device (or fewer than asked for).
#include "box2d_mpi.h"
#include "heat3d_mpi.h"
#include "hypterm_mpi.h"
#include "regions_mpi.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

// ---- the team of ranks: MPI processes, or threads of this process ------------------------------
#if defined(STNC_NO_MPI)
struct Shared {
  int size = 1;
  std::mutex m;
  std::condition_variable cv;
  int waiting = 0;
  long generation = 0;
  long sum = 0;
  double max = 0;
  std::vector<ncclComm_t> comms;
};
#endif

struct Team {
  int rank = 0, size = 1;
#if defined(STNC_NO_MPI)
  Shared* sh = nullptr;
  ncclComm_t comm() const { return sh->comms[static_cast<size_t>(rank)]; }
  void barrier() {
    std::unique_lock<std::mutex> lk(sh->m);
    const long gen = sh->generation;
    if (++sh->waiting == sh->size) {
      sh->waiting = 0;
      ++sh->generation;
      sh->cv.notify_all();
    } else {
      sh->cv.wait(lk, [&] { return sh->generation != gen; });
    }
  }
  long sum(long v) {
    barrier();
    {
      std::lock_guard<std::mutex> lk(sh->m);
      sh->sum += v;
    }
    barrier();
    const long r = sh->sum;
    barrier();
    if (rank == 0) sh->sum = 0;
    barrier();
    return r;
  }
  double max(double v) {
    barrier();
    {
      std::lock_guard<std::mutex> lk(sh->m);
      if (v > sh->max) sh->max = v;
    }
    barrier();
    const double r = sh->max;
    barrier();
    if (rank == 0) sh->max = 0;
    barrier();
    return r;
  }
#else
  MPI_Comm comm() const { return MPI_COMM_WORLD; }
  void barrier() { MPI_Barrier(MPI_COMM_WORLD); }
  long sum(long v) {
    long r = 0;
    MPI_Allreduce(&v, &r, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    return r;
  }
  double max(double v) {
    double r = 0;
    MPI_Allreduce(&v, &r, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return r;
  }
#endif
};

// splitmix64: a deterministic value in [lo, hi) per (seed, index).
double hashValue(uint64_t seed, uint64_t i, double lo, double hi) {
  uint64_t z = seed * 0x9e3779b97f4a7c15ULL + i + 0x632be59bd9b4e019ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return lo + (hi - lo) * static_cast<double>(z >> 11) * (1.0 / 9007199254740992.0);
}

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

template <typename T>
T* devAlloc(size_t count) {
  T* p = nullptr;
  if (cudaMalloc(&p, count * sizeof(T)) != cudaSuccess) return nullptr;
  return p;
}

// A kernel through its generated API, on device arrays (f: the fields in kFields order).
template <typename T>
struct DevKernel {
  const char* name;
  int rank;
  int fieldCount;
  const char* const* fields;
  std::function<stnc_rt::Layout(const long* n)> layout;
  std::function<int(const long* n, const int* dims, stnc_mpi::Domain& D)> makeDomain;
  std::function<cudaError_t(const stnc_rt::Layout& L, long steps, T** f)> globalStep;  // one GPU, whole grid
  std::function<int(stnc_mpi::Domain& D, long steps, T** f)> mpiStep;
  std::function<int(stnc_mpi::Domain& D, T** f)> exchange;
  std::function<cudaError_t(const stnc_rt::Layout& L, T** f)> sweep;  // one sweep of a local box, no exchange
  std::function<int(const stnc_mpi::Domain& D, int root, const T* local, T* global)> gather;
  std::function<int(const stnc_mpi::Domain& D, int root, const T* global, T* local)> scatter;
};

std::string text(const long* n, int rank) {
  std::string s;
  for (int a = 0; a < rank; ++a) s += (a ? "x" : "") + std::to_string(n[a]);
  return s;
}

std::string gridText(const stnc_mpi::Domain& D, int rank, bool local) {
  std::string s;
  for (int d = 3 - rank; d < 3; ++d) s += (d > 3 - rank ? "x" : "") + std::to_string(local ? D.n[d] : D.dims[d]);
  return s;
}

int report(const Team& t, const char* what, int status) {
  std::printf("rank %d: %s failed: %s (%s)\n", t.rank, what, stnc_mpi::statusName(status), cudaGetErrorString(cudaGetLastError()));
  return 1;
}

// One correctness case: the global grid on rank 0's GPU vs the distributed run, every field bitwise.
template <typename T>
long checkCase(Team& t, const DevKernel<T>& K, const long* n, const int* dims, long steps) {
  long failures = 0;
  const stnc_rt::Layout G = K.layout(n);
  const int nf = K.fieldCount;
  std::vector<T*> init(nf, nullptr), ref(nf, nullptr), dref(nf, nullptr);
  if (t.rank == 0) {
    std::vector<T*> role(nf, nullptr);
    for (int f = 0; f < nf; ++f) {
      init[f] = static_cast<T*>(std::malloc(G.count * sizeof(T)));
      ref[f] = static_cast<T*>(std::malloc(G.count * sizeof(T)));
      for (size_t i = 0; i < G.count; ++i) init[f][i] = static_cast<T>(hashValue(1000 + f, i, 0.5, 1.5));
      dref[f] = role[f] = devAlloc<T>(G.count);
      if (!dref[f] || cudaMemcpy(dref[f], init[f], G.count * sizeof(T), cudaMemcpyHostToDevice) != cudaSuccess)
        failures += report(t, "reference upload", stnc_mpi::kCudaError);
    }
    if (K.globalStep(G, steps, role.data()) != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess)
      failures += report(t, "one-GPU cuda::step", stnc_mpi::kCudaError);
    for (int f = 0; f < nf; ++f) cudaMemcpy(ref[f], role[f], G.count * sizeof(T), cudaMemcpyDeviceToHost);
  }
  std::string grid = "?";
  {
    stnc_mpi::Domain D;
    if (int s = K.makeDomain(n, dims, D)) {
      failures += report(t, "make_domain", s);
    } else {
      grid = gridText(D, K.rank, false);
      std::vector<T*> loc(nf, nullptr), role(nf, nullptr);
      for (int f = 0; f < nf; ++f) {
        loc[f] = role[f] = devAlloc<T>(D.L.count);
        if (!loc[f]) failures += report(t, "cudaMalloc", stnc_mpi::kCudaError);
        else if (int s = K.scatter(D, 0, init[f], loc[f])) failures += report(t, "cuda::scatter", s);
      }
      if (int s = K.mpiStep(D, steps, role.data())) failures += report(t, "mpi::cuda::step", s);
      T* got = t.rank == 0 ? static_cast<T*>(std::malloc(G.count * sizeof(T))) : nullptr;
      for (int f = 0; f < nf; ++f) {
        if (int s = K.gather(D, 0, role[f], got)) failures += report(t, "cuda::gather", s);
        if (t.rank != 0) continue;
        long bad = 0;
        for (long x = 0; x < G.n[0]; ++x)
          for (long y = 0; y < G.n[1]; ++y)
            for (long z = 0; z < G.n[2]; ++z) {
              const long p = stnc_rt::at(G, x, y, z);
              if (std::memcmp(&got[p], &ref[f][p], sizeof(T)) == 0) continue;
              if (bad++ < 3)
                std::printf("  mismatch %s.%s at (%ld, %ld, %ld): %.17g vs one GPU %.17g\n", K.name, K.fields[f], x, y, z,
                            static_cast<double>(got[p]), static_cast<double>(ref[f][p]));
            }
        failures += bad;
      }
      std::free(got);
      for (int f = 0; f < nf; ++f) cudaFree(loc[f]);
    }
  }
  const long total = t.sum(failures);
  if (t.rank == 0)
    std::printf("%s %s %s over %d GPU(s) (rank grid %s), %ld steps, %s: %s\n", total ? "FAIL" : "PASS", K.name,
                text(n, K.rank).c_str(), t.size, grid.c_str(), steps, stnc_mpi::transportName(stnc_mpi::cudaTransport()),
                total ? "differs from one GPU" : "bit-identical to one GPU");
  for (int f = 0; f < nf; ++f) {
    std::free(init[f]);
    std::free(ref[f]);
    cudaFree(dref[f]);
  }
  return total;
}

// ---- timing (heat3d) ------------------------------------------------------------------------------
struct Bench {
  long size = 0;
  long steps = 50;
  int reps = 20;
};

template <typename T>
long benchCase(Team& t, const DevKernel<T>& K, const char* mode, const long* n, const int* dims, const Bench& b) {
  long failures = 0;
  stnc_mpi::Domain D;
  if (int s = K.makeDomain(n, dims, D)) {
    failures += report(t, "make_domain", s);
    return t.sum(failures);
  }
  const int nf = K.fieldCount;
  std::vector<T*> loc(nf, nullptr), role(nf, nullptr);
  for (int f = 0; f < nf; ++f) {
    loc[f] = role[f] = devAlloc<T>(D.L.count);
    if (!loc[f]) {
      failures += report(t, "cudaMalloc", stnc_mpi::kCudaError);
      continue;
    }
    // Smooth values (the timing does not depend on them); every rank fills its own arrays.
    cudaMemset(loc[f], 0, D.L.count * sizeof(T));
  }
  if (t.sum(failures)) return 1;
  // Warm-up (NCCL connections, plans, buffers, module loading), then the timed calls.
  if (int s = K.mpiStep(D, 4, role.data())) failures += report(t, "mpi::cuda::step (warm-up)", s);
  t.barrier();
  double t0 = now();
  if (int s = K.mpiStep(D, b.steps, role.data())) failures += report(t, "mpi::cuda::step", s);
  t.barrier();
  const double stepMs = t.max(now() - t0) * 1e3 / static_cast<double>(b.steps);
  t.barrier();
  t0 = now();
  for (int r = 0; r < b.reps; ++r)
    if (int s = K.exchange(D, role.data())) {
      failures += report(t, "mpi::cuda::exchange", s);
      break;
    }
  t.barrier();
  const double exchangeMs = t.max(now() - t0) * 1e3 / b.reps;
  cudaDeviceSynchronize();
  t0 = now();
  for (int r = 0; r < b.reps; ++r) K.sweep(D.L, role.data());
  if (cudaDeviceSynchronize() != cudaSuccess) failures += report(t, "cuda::sweep", stnc_mpi::kCudaError);
  const double sweepMs = t.max(now() - t0) * 1e3 / b.reps;
  const double haloMiB = static_cast<double>(D.plans[1].built ? D.plans[1].sendElems : D.plans[0].sendElems) * sizeof(T) /
                         (1024.0 * 1024.0);
  for (int f = 0; f < nf; ++f) cudaFree(loc[f]);
  // One GPU, the same global grid (strong scaling's reference), when rank 0's GPU holds it.
  double oneMs = -1;
  if (std::strcmp(mode, "strong") == 0 && t.rank == 0) {
    const stnc_rt::Layout G = K.layout(n);
    std::vector<T*> g(nf, nullptr), gr(nf, nullptr);
    bool ok = true;
    for (int f = 0; f < nf; ++f) {
      g[f] = gr[f] = devAlloc<T>(G.count);
      ok = ok && g[f] && cudaMemset(g[f], 0, G.count * sizeof(T)) == cudaSuccess;
    }
    if (ok && K.globalStep(G, 4, gr.data()) == cudaSuccess && cudaDeviceSynchronize() == cudaSuccess) {
      t0 = now();
      if (K.globalStep(G, b.steps, gr.data()) == cudaSuccess && cudaDeviceSynchronize() == cudaSuccess)
        oneMs = (now() - t0) * 1e3 / static_cast<double>(b.steps);
    }
    for (int f = 0; f < nf; ++f) cudaFree(g[f]);
    cudaGetLastError();
  }
  const long total = t.sum(failures);
  if (t.rank == 0) {
    const double points = static_cast<double>(n[0]) * n[1] * n[2];
    std::printf("RESULT kernel=%s transport=%s gpus=%d mode=%s global=%s grid=%s local=%s steps=%ld step_ms=%.4f "
                "exchange_ms=%.4f sweep_ms=%.4f one_gpu_step_ms=%.4f halo_send_mib=%.3f gpts_per_s=%.2f status=%s\n",
                K.name, stnc_mpi::transportName(stnc_mpi::cudaTransport()), t.size, mode, text(n, 3).c_str(),
                gridText(D, 3, false).c_str(), gridText(D, 3, true).c_str(), b.steps, stepMs, exchangeMs, sweepMs, oneMs,
                haloMiB, points / (stepMs * 1e-3) * 1e-9, total ? "error" : "ok");
    std::fflush(stdout);
  }
  return total;
}

struct Options {
  bool check = false;
  Bench bench;
  long cnsSize = 0;  // --cns-size: the hypterm grid of the timing (0: the --bench size)
  int gpus = 0;
};

int body(Team& t, const Options& o) {
  long failures = 0;
  namespace H = stn::heat3d;
  const H::real dt = 0.7;
  DevKernel<H::real> heat{"heat3d", 3, H::kFieldCount, H::kFields,
      [](const long* n) { return H::layout(n[0], n[1], n[2]); },
      [&t](const long* n, const int* dims, stnc_mpi::Domain& D) { return H::mpi::make_domain(t.comm(), n[0], n[1], n[2], D, dims); },
      [&](const stnc_rt::Layout& L, long steps, H::real** f) { return H::cuda::step(L, steps, f[0], f[1], dt); },
      [&](stnc_mpi::Domain& D, long steps, H::real** f) { return H::mpi::cuda::step(D, steps, f[0], f[1], dt); },
      [&](stnc_mpi::Domain& D, H::real** f) { return H::mpi::cuda::exchange(D, f[0], f[1], dt); },
      [&](const stnc_rt::Layout& L, H::real** f) { return H::cuda::sweep(L, f[0], f[1], dt); },
      [](const stnc_mpi::Domain& D, int root, const H::real* l, H::real* g) { return H::mpi::cuda::gather(D, root, l, g); },
      [](const stnc_mpi::Domain& D, int root, const H::real* g, H::real* l) { return H::mpi::cuda::scatter(D, root, g, l); }};
  namespace C = stn::hypterm;
  const C::real d0 = 0.5, d1 = 0.25, d2 = 0.125;
  DevKernel<C::real> hyp{"hypterm", 3, C::kFieldCount, C::kFields,
      [](const long* m) { return C::layout(m[0], m[1], m[2]); },
      [&t](const long* m, const int* dims, stnc_mpi::Domain& D) { return C::mpi::make_domain(t.comm(), m[0], m[1], m[2], D, dims); },
      [&](const stnc_rt::Layout& L, long steps, C::real** f) {
        return C::cuda::step(L, steps, f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[9], f[10], f[11], f[12], d0, d1, d2);
      },
      [&](stnc_mpi::Domain& D, long steps, C::real** f) {
        return C::mpi::cuda::step(D, steps, f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[9], f[10], f[11], f[12], d0,
                                  d1, d2);
      },
      [&](stnc_mpi::Domain& D, C::real** f) {
        return C::mpi::cuda::exchange(D, f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[9], f[10], f[11], f[12], d0, d1, d2);
      },
      [&](const stnc_rt::Layout& L, C::real** f) {
        return C::cuda::sweep(L, f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[9], f[10], f[11], f[12], d0, d1, d2);
      },
      [](const stnc_mpi::Domain& D, int root, const C::real* l, C::real* g) { return C::mpi::cuda::gather(D, root, l, g); },
      [](const stnc_mpi::Domain& D, int root, const C::real* g, C::real* l) { return C::mpi::cuda::scatter(D, root, g, l); }};
  if (o.check) {
    const long n[3] = {37, 19, 23};
    const int alongK[3] = {1, 1, t.size}, alongJ[3] = {1, t.size, 1};
    failures += checkCase(t, heat, n, nullptr, 40);
    if (t.size > 1) {
      failures += checkCase(t, heat, n, alongK, 40);
      failures += checkCase(t, heat, n, alongJ, 40);
    }
    failures += checkCase(t, hyp, n, nullptr, 2);
    namespace B = stn::box2d;
    const B::real w = 0.3;
    DevKernel<B::real> box{"box2d", 2, B::kFieldCount, B::kFields,
        [](const long* m) { return B::layout(m[0], m[1]); },
        [&t](const long* m, const int* dims, stnc_mpi::Domain& D) { return B::mpi::make_domain(t.comm(), m[0], m[1], D, dims); },
        [&](const stnc_rt::Layout& L, long steps, B::real** f) { return B::cuda::step(L, steps, f[0], f[1], f[2], w); },
        [&](stnc_mpi::Domain& D, long steps, B::real** f) { return B::mpi::cuda::step(D, steps, f[0], f[1], f[2], w); },
        nullptr, nullptr,
        [](const stnc_mpi::Domain& D, int root, const B::real* l, B::real* g) { return B::mpi::cuda::gather(D, root, l, g); },
        [](const stnc_mpi::Domain& D, int root, const B::real* g, B::real* l) { return B::mpi::cuda::scatter(D, root, g, l); }};
    const long n2[2] = {41, 29};
    failures += checkCase(t, box, n2, nullptr, 20);
    namespace R = stn::regions;
    const R::real c = 0.11;
    DevKernel<R::real> reg{"regions", 3, R::kFieldCount, R::kFields,
        [](const long* m) { return R::layout(m[0], m[1], m[2]); },
        [&t](const long* m, const int* dims, stnc_mpi::Domain& D) { return R::mpi::make_domain(t.comm(), m[0], m[1], m[2], D, dims); },
        [&](const stnc_rt::Layout& L, long steps, R::real** f) { return R::cuda::step(L, steps, f[0], f[1], c); },
        [&](stnc_mpi::Domain& D, long steps, R::real** f) { return R::mpi::cuda::step(D, steps, f[0], f[1], c); },
        nullptr, nullptr,
        [](const stnc_mpi::Domain& D, int root, const R::real* l, R::real* g) { return R::mpi::cuda::gather(D, root, l, g); },
        [](const stnc_mpi::Domain& D, int root, const R::real* g, R::real* l) { return R::mpi::cuda::scatter(D, root, g, l); }};
    failures += checkCase(t, reg, n, nullptr, 30);
    if (t.size > 1) failures += checkCase(t, reg, n, alongJ, 30);
  }
  if (o.bench.size > 0) {
    const long N = o.bench.size;
    int dims[3] = {0, 0, 0};
    stnc_mpi::dimsCreate(t.size, 3, dims);
    const long strong[3] = {N, N, N}, weak[3] = {N * dims[0], N * dims[1], N * dims[2]};
    failures += benchCase(t, heat, "strong", strong, dims, o.bench);
    failures += benchCase(t, heat, "weak", weak, dims, o.bench);
    // CNS hypterm (13 fields, halo 4 on 8 inputs): the same grids unless --cns-size N is given.
    const long M = o.cnsSize > 0 ? o.cnsSize : N;
    const long strongC[3] = {M, M, M}, weakC[3] = {M * dims[0], M * dims[1], M * dims[2]};
    failures += benchCase(t, hyp, "strong", strongC, dims, o.bench);
    failures += benchCase(t, hyp, "weak", weakC, dims, o.bench);
  }
  return failures ? 1 : 0;
}

bool parse(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> long {
      if (i + 1 >= argc) return -1;
      return std::atol(argv[++i]);
    };
    if (a == "--check") o.check = true;
    else if (a == "--bench") o.bench.size = value();
    else if (a == "--cns-size") o.cnsSize = value();
    else if (a == "--steps") o.bench.steps = value();
    else if (a == "--reps") o.bench.reps = static_cast<int>(value());
    else if (a == "--gpus") o.gpus = static_cast<int>(value());
    else return false;
  }
  if (!o.check && o.bench.size <= 0) o.check = true;
  return o.bench.size >= 0 && o.cnsSize >= 0 && o.bench.steps > 0 && o.bench.reps > 0 && o.gpus >= 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  const bool argsOk = parse(argc, argv, o);
  int devices = 0;
  const bool haveGpu = cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0;
#if defined(STNC_NO_MPI)
  if (!argsOk) {
    std::printf("usage: %s [--gpus P] [--check] [--bench N [--steps S] [--reps R]]\n", argv[0]);
    return 2;
  }
  if (!haveGpu) {
    std::printf("SKIP: no CUDA device\n");
    return 77;
  }
  const int P = o.gpus > 0 ? o.gpus : devices;
  if (P > devices) {
    std::printf("SKIP: %d GPUs asked for, %d present\n", P, devices);
    return 77;
  }
  Shared sh;
  sh.size = P;
  sh.comms.resize(static_cast<size_t>(P));
  std::vector<int> devs(static_cast<size_t>(P));
  for (int r = 0; r < P; ++r) devs[static_cast<size_t>(r)] = r;
  if (ncclCommInitAll(sh.comms.data(), P, devs.data()) != ncclSuccess) {
    std::printf("FAIL: ncclCommInitAll over %d GPUs\n", P);
    return 1;
  }
  std::printf("multigpu: %d GPU(s), one thread each, no MPI (NCCL communicator from ncclCommInitAll)\n", P);
  std::atomic<int> bad{0};
  std::vector<std::thread> threads;
  for (int r = 0; r < P; ++r)
    threads.emplace_back([&, r] {
      cudaSetDevice(devs[static_cast<size_t>(r)]);
      Team t;
      t.rank = r;
      t.size = P;
      t.sh = &sh;
      if (body(t, o)) bad = 1;
    });
  for (auto& th : threads) th.join();
  for (ncclComm_t c : sh.comms) ncclCommDestroy(c);
  return bad ? 1 : 0;
#else
  MPI_Init(&argc, &argv);
  Team t;
  MPI_Comm_rank(MPI_COMM_WORLD, &t.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &t.size);
  if (!argsOk) {
    if (t.rank == 0) std::printf("usage: mpirun -np P %s [--check] [--bench N [--steps S] [--reps R]]\n", argv[0]);
    MPI_Finalize();
    return 2;
  }
  if (!haveGpu) {
    if (t.rank == 0) std::printf("SKIP: no CUDA device\n");
    MPI_Finalize();
    return 77;
  }
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int local = 0;
  MPI_Comm_rank(node, &local);
  MPI_Comm_free(&node);
  cudaSetDevice(local % devices);
  if (t.rank == 0)
    std::printf("multigpu: %d MPI rank(s), %d GPU(s) per node, halo transport %s\n", t.size, devices,
                stnc_mpi::transportName(stnc_mpi::cudaTransport()));
  const int rc = body(t, o);
  int any = 0;
  MPI_Allreduce(&rc, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return any ? 1 : 0;
#endif
}
