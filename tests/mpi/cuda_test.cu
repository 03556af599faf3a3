// tests/mpi: the CUDA variant of the distributed launchers (stn::K::mpi::cuda). CTest builds this
// file with nvcc -arch=sm_90 (and, as C++, with the host compiler and STNC_WITH_CUDA), which is all
// a machine without a GPU can check. With a GPU per rank it runs heat3d and hypterm distributed on
// device arrays and requires every field's interior to be bit-identical to stn::K::cuda::step on the
// global grid (exit 77 = skipped: no CUDA device); the f32 wave with point sources (device wavelets; one on
// the rank boundary of a 2-rank split, one into the constant field roc2) as well.
//   mpirun -np N mpi_cuda_test [--size 37x19x23] [--steps N] [--dims AxBxC]
#include "heat3d_mpi.h"
#include "hypterm_mpi.h"
#include "wave_mpi.h"

#include "MpiTest.h"

namespace {

template <typename T>
struct DevKernel {
  const char* name;
  int fieldCount;
  const char* const* fields;
  std::function<stnc_rt::Layout(const long* n)> layout;
  std::function<int(const long* n, const int* dims, stnc_mpi::Domain& D)> makeDomain;
  std::function<cudaError_t(const stnc_rt::Layout& L, long steps, T** f)> globalStep;  // device arrays
  std::function<int(stnc_mpi::Domain& D, long steps, T** f)> mpiStep;                  // device arrays
  std::function<int(const stnc_mpi::Domain& D, int root, const T* local, T* global)> gather;
  std::function<int(const stnc_mpi::Domain& D, int root, const T* global, T* local)> scatter;
};

template <typename T>
T* devAlloc(size_t count) {
  T* p = nullptr;
  if (cudaMalloc(&p, count * sizeof(T)) != cudaSuccess) return nullptr;
  return p;
}

template <typename T>
long runDevice(const DevKernel<T>& K, const mpitest::Args& a, int me) {
  stnc_mpi::Domain D;
  if (int s = K.makeDomain(a.n, a.dims, D)) return mpitest::fail(me, "make_domain", s);
  const stnc_rt::Layout G = K.layout(a.n);
  const int nf = K.fieldCount;
  long failures = 0;
  std::vector<T*> init(nf, nullptr), ref(nf, nullptr), dref(nf, nullptr), drole(nf, nullptr);
  if (me == 0) {
    for (int f = 0; f < nf; ++f) {
      init[f] = mpitest::allocArray<T>(G.count);
      ref[f] = mpitest::allocArray<T>(G.count);
      for (size_t i = 0; i < G.count; ++i) init[f][i] = static_cast<T>(mpitest::hashValue(1000 + f, i, 0.5, 1.5));
      dref[f] = drole[f] = devAlloc<T>(G.count);
      cudaMemcpy(dref[f], init[f], G.count * sizeof(T), cudaMemcpyHostToDevice);
    }
    if (K.globalStep(G, a.steps, drole.data()) != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess)
      failures += mpitest::fail(me, "global cuda::step", stnc_mpi::kCudaError);
    for (int f = 0; f < nf; ++f) cudaMemcpy(ref[f], drole[f], G.count * sizeof(T), cudaMemcpyDeviceToHost);
  }
  std::vector<T*> loc(nf, nullptr), role(nf, nullptr);
  for (int f = 0; f < nf; ++f) {
    loc[f] = role[f] = devAlloc<T>(D.L.count);
    if (int s = K.scatter(D, 0, init[f], loc[f])) failures += mpitest::fail(me, "cuda::scatter", s);
  }
  if (int s = K.mpiStep(D, a.steps, role.data())) failures += mpitest::fail(me, "mpi::cuda::step", s);
  T* got = me == 0 ? mpitest::allocArray<T>(G.count) : nullptr;
  for (int f = 0; f < nf; ++f) {
    if (int s = K.gather(D, 0, role[f], got)) failures += mpitest::fail(me, "cuda::gather", s);
    if (me == 0) failures += mpitest::compareInterior(G, got, ref[f], K.fields[f]);
  }
  if (me == 0) std::printf("%s %s (cuda) on %d ranks\n", failures ? "FAIL" : "PASS", K.name, D.size);
  std::free(got);
  for (int f = 0; f < nf; ++f) {
    cudaFree(loc[f]);
    cudaFree(dref[f]);
    std::free(init[f]);
    std::free(ref[f]);
  }
  return failures;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    if (me == 0) std::printf("SKIP: no CUDA device\n");
    MPI_Finalize();
    return 77;
  }
  // One device per rank of a node.
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int local = 0;
  MPI_Comm_rank(node, &local);
  MPI_Comm_free(&node);
  cudaSetDevice(local % devices);

  mpitest::Args a;
  a.n[0] = 37, a.n[1] = 19, a.n[2] = 23;
  a.steps = 20;
  if (!mpitest::parseArgs(argc, argv, 3, a)) {
    MPI_Finalize();
    return 2;
  }
  long failures = 0;
  {
    namespace H = stn::heat3d;
    const H::real dt = 0.7;
    DevKernel<H::real> k{"heat3d", H::kFieldCount, H::kFields,
        [](const long* n) { return H::layout(n[0], n[1], n[2]); },
        [](const long* n, const int* dims, stnc_mpi::Domain& D) { return H::mpi::make_domain(MPI_COMM_WORLD, n[0], n[1], n[2], D, dims); },
        [&](const stnc_rt::Layout& L, long steps, H::real** f) { return H::cuda::step(L, steps, f[0], f[1], dt); },
        [&](stnc_mpi::Domain& D, long steps, H::real** f) { return H::mpi::cuda::step(D, steps, f[0], f[1], dt); },
        [](const stnc_mpi::Domain& D, int root, const H::real* l, H::real* g) { return H::mpi::cuda::gather(D, root, l, g); },
        [](const stnc_mpi::Domain& D, int root, const H::real* g, H::real* l) { return H::mpi::cuda::scatter(D, root, g, l); }};
    failures += runDevice(k, a, me);
  }
  {
    namespace C = stn::hypterm;
    const C::real d0 = 0.5, d1 = 0.25, d2 = 0.125;
    DevKernel<C::real> k{"hypterm", C::kFieldCount, C::kFields,
        [](const long* n) { return C::layout(n[0], n[1], n[2]); },
        [](const long* n, const int* dims, stnc_mpi::Domain& D) { return C::mpi::make_domain(MPI_COMM_WORLD, n[0], n[1], n[2], D, dims); },
        [&](const stnc_rt::Layout& L, long steps, C::real** f) {
          return C::cuda::step(L, steps, f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[9], f[10], f[11], f[12], d0, d1, d2);
        },
        [&](stnc_mpi::Domain& D, long steps, C::real** f) {
          return C::mpi::cuda::step(D, steps, f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[9], f[10], f[11], f[12], d0,
                                    d1, d2);
        },
        [](const stnc_mpi::Domain& D, int root, const C::real* l, C::real* g) { return C::mpi::cuda::gather(D, root, l, g); },
        [](const stnc_mpi::Domain& D, int root, const C::real* g, C::real* l) { return C::mpi::cuda::scatter(D, root, g, l); }};
    mpitest::Args b = a;
    b.steps = 2;
    failures += runDevice(k, b, me);
  }
  {
    namespace W = stn::wave;
    // Sources in global coordinates (i, j, k): fields u = 0, roc2 = 1, v = 2 (by role); wavelets on the device.
    std::vector<W::real> host(4096);
    for (size_t t = 0; t < host.size(); ++t) host[t] = static_cast<W::real>(mpitest::hashValue(7, t, -0.01, 0.01));
    W::real* wavelet = devAlloc<W::real>(host.size());
    if (!wavelet || cudaMemcpy(wavelet, host.data(), host.size() * sizeof(W::real), cudaMemcpyHostToDevice) != cudaSuccess)
      failures += mpitest::fail(me, "wavelet upload", stnc_mpi::kCudaError);
    const W::Source src[3] = {{2, a.n[0] / 2, 7, 11, wavelet}, {0, 12, 0, 0, wavelet + 1}, {1, 11, 10, 16, wavelet + 2}};
    DevKernel<W::real> k{"wave", W::kFieldCount, W::kFields,
        [](const long* n) { return W::layout(n[0], n[1], n[2]); },
        [](const long* n, const int* dims, stnc_mpi::Domain& D) { return W::mpi::make_domain(MPI_COMM_WORLD, n[0], n[1], n[2], D, dims); },
        [&](const stnc_rt::Layout& L, long steps, W::real** f) { return W::cuda::step(L, steps, f[0], f[1], f[2], 0, src, 3); },
        [&](stnc_mpi::Domain& D, long steps, W::real** f) { return W::mpi::cuda::step(D, steps, f[0], f[1], f[2], 0, src, 3); },
        [](const stnc_mpi::Domain& D, int root, const W::real* l, W::real* g) { return W::mpi::cuda::gather(D, root, l, g); },
        [](const stnc_mpi::Domain& D, int root, const W::real* g, W::real* l) { return W::mpi::cuda::scatter(D, root, g, l); }};
    if (a.steps + 2 <= static_cast<long>(host.size())) failures += runDevice(k, a, me);
    cudaFree(wavelet);
  }
  long total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
