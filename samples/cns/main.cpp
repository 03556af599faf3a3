// samples/cns — the compressible Navier-Stokes hypterm (flux divergence) with stnc-generated kernels.
//
//   cns --check                    1. both generated versions (the fused group `hypterm` and the five
//                                     separate kernels) against an independent reference written here
//                                     with plain loops: f64, bit-identical expected;
//                                  2. 8th-order convergence on smooth periodic fields on [0,2pi)^3;
//                                  fails unless every output converges with order >= --min-order (7.5).
//   cns --bench [--size N] [--reps R]   ms per sweep of the fused kernel and of the five kernels.
//   --gpu auto|on|off              with a CUDA build: use the GPU too (auto: when a device answers;
//                                  on: fail without one). The GPU results must equal the CPU's bit for bit.
//
// The reference below does not use anything generated: its own arrays (dense, halo 4, no padding),
// its own loops, the formulas of WORKLOADS.md written out with the source's term order:
//   D[f] = ALP (f(+1) - f(-1)) + BET (f(+2) - f(-2)) + GAM (f(+3) - f(-3)) + DEL (f(+4) - f(-4))
//   flux = -(dxinv0 D_x[fx] + dxinv1 D_y[fy] + dxinv2 D_z[fz])
// Build with -ffp-contract=off (the CMakeLists does), so the compiler does not fuse a*b+c either.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "cns.h"

namespace {

constexpr int H = 4;  // the hypterm's halo on every axis
enum In { QU, QV, QW, QPRES, IMX, IMY, IMZ, IENE, NIN };
enum Out { RHO, MX, MY, MZ, ENE, NOUT };
const char* const kInName[NIN] = {"qu", "qv", "qw", "qpres", "cons_imx", "cons_imy", "cons_imz", "cons_iene"};
const char* const kOutName[NOUT] = {"flux_irho", "flux_imx", "flux_imy", "flux_imz", "flux_iene"};

// ---- the independent reference ------------------------------------------------------------------
// A dense array of (n0+8) x (n1+8) x (n2+8) doubles; g(i, j, k) with i in [-4, n0+4), ...
struct Grid {
  long n[3] = {0, 0, 0};
  std::vector<double> v;
  Grid() = default;
  explicit Grid(const long nn[3]) {
    for (int d = 0; d < 3; ++d) n[d] = nn[d];
    v.assign(static_cast<size_t>((n[0] + 2 * H) * (n[1] + 2 * H) * (n[2] + 2 * H)), 0.0);
  }
  double& operator()(long i, long j, long k) { return v[((i + H) * (n[1] + 2 * H) + (j + H)) * (n[2] + 2 * H) + (k + H)]; }
  double operator()(long i, long j, long k) const {
    return v[((i + H) * (n[1] + 2 * H) + (j + H)) * (n[2] + 2 * H) + (k + H)];
  }
};

const double ALP = 4.0 / 5.0, BET = -1.0 / 5.0, GAM = 4.0 / 105.0, DEL = -1.0 / 280.0;

// D[f] of a function of the shift m along one axis.
template <class F>
double d8(F f) {
  return ALP * (f(1) - f(-1)) + BET * (f(2) - f(-2)) + GAM * (f(3) - f(-3)) + DEL * (f(4) - f(-4));
}

void reference(const std::vector<Grid>& q, const double dxinv[3], std::vector<Grid>& flux) {
  const Grid &qu = q[QU], &qv = q[QV], &qw = q[QW], &qp = q[QPRES];
  const Grid &imx = q[IMX], &imy = q[IMY], &imz = q[IMZ], &ene = q[IENE];
  const long* n = qu.n;
  for (long i = 0; i < n[0]; ++i)
    for (long j = 0; j < n[1]; ++j)
      for (long k = 0; k < n[2]; ++k) {
        // D_x[f], D_y[f], D_z[f] of a pointwise expression f(a, b, c), evaluated at the shifted points.
        auto Dx = [&](auto f) { return d8([&](long m) { return f(i + m, j, k); }); };
        auto Dy = [&](auto f) { return d8([&](long m) { return f(i, j + m, k); }); };
        auto Dz = [&](auto f) { return d8([&](long m) { return f(i, j, k + m); }); };
        flux[RHO](i, j, k) = -(dxinv[0] * Dx([&](long a, long b, long c) { return imx(a, b, c); }) +
                               dxinv[1] * Dy([&](long a, long b, long c) { return imy(a, b, c); }) +
                               dxinv[2] * Dz([&](long a, long b, long c) { return imz(a, b, c); }));
        flux[MX](i, j, k) =
            -(dxinv[0] * Dx([&](long a, long b, long c) { return imx(a, b, c) * qu(a, b, c) + qp(a, b, c); }) +
              dxinv[1] * Dy([&](long a, long b, long c) { return imx(a, b, c) * qv(a, b, c); }) +
              dxinv[2] * Dz([&](long a, long b, long c) { return imx(a, b, c) * qw(a, b, c); }));
        flux[MY](i, j, k) =
            -(dxinv[0] * Dx([&](long a, long b, long c) { return imy(a, b, c) * qu(a, b, c); }) +
              dxinv[1] * Dy([&](long a, long b, long c) { return imy(a, b, c) * qv(a, b, c) + qp(a, b, c); }) +
              dxinv[2] * Dz([&](long a, long b, long c) { return imy(a, b, c) * qw(a, b, c); }));
        flux[MZ](i, j, k) =
            -(dxinv[0] * Dx([&](long a, long b, long c) { return imz(a, b, c) * qu(a, b, c); }) +
              dxinv[1] * Dy([&](long a, long b, long c) { return imz(a, b, c) * qv(a, b, c); }) +
              dxinv[2] * Dz([&](long a, long b, long c) { return imz(a, b, c) * qw(a, b, c) + qp(a, b, c); }));
        flux[ENE](i, j, k) =
            -(dxinv[0] * Dx([&](long a, long b, long c) { return (ene(a, b, c) + qp(a, b, c)) * qu(a, b, c); }) +
              dxinv[1] * Dy([&](long a, long b, long c) { return (ene(a, b, c) + qp(a, b, c)) * qv(a, b, c); }) +
              dxinv[2] * Dz([&](long a, long b, long c) { return (ene(a, b, c) + qp(a, b, c)) * qw(a, b, c); }));
      }
}

// ---- the generated kernels ----------------------------------------------------------------------
// All six kernels have the halo (4, 4, 4), hence the same layout: one set of 13 arrays serves both
// versions.
struct Aligned {
  void operator()(double* p) const { std::free(p); }
};
using Buffer = std::unique_ptr<double[], Aligned>;

Buffer allocHost(size_t count) {
  size_t bytes = (count * sizeof(double) + 127) / 128 * 128;
  auto* p = static_cast<double*>(std::aligned_alloc(128, bytes));
  if (!p) {
    std::fprintf(stderr, "cns: out of memory\n");
    std::exit(2);
  }
  std::memset(p, 0, bytes);
  return Buffer(p);
}

struct StnArrays {
  stnc_rt::Layout L{};
  Buffer in[NIN], out[NOUT];
  explicit StnArrays(const long n[3]) : L(stn::hypterm::layout(n[0], n[1], n[2])) {
    for (auto& b : in) b = allocHost(L.count);
    for (auto& b : out) b = allocHost(L.count);
  }
  void load(const std::vector<Grid>& q) {  // inputs, halo included
    const long* n = L.n;
    for (int f = 0; f < NIN; ++f)
      for (long i = -H; i < n[0] + H; ++i)
        for (long j = -H; j < n[1] + H; ++j)
          for (long k = -H; k < n[2] + H; ++k) in[f][stn::hypterm::index(L, i, j, k)] = q[f](i, j, k);
  }
  void store(std::vector<Grid>& flux) const {  // interior of the outputs
    const long* n = L.n;
    for (int f = 0; f < NOUT; ++f)
      for (long i = 0; i < n[0]; ++i)
        for (long j = 0; j < n[1]; ++j)
          for (long k = 0; k < n[2]; ++k) flux[f](i, j, k) = out[f][stn::hypterm::index(L, i, j, k)];
  }
};

bool sameLayout(const stnc_rt::Layout& a, const stnc_rt::Layout& b) {
  for (int d = 0; d < 3; ++d)
    if (a.n[d] != b.n[d] || a.pad[d] != b.pad[d] || a.dim[d] != b.dim[d] || a.stride[d] != b.stride[d] ||
        a.halo[d] != b.halo[d])
      return false;
  return a.origin == b.origin && a.count == b.count;
}

// The 13 pointers of one backend's arrays and the two versions of the hypterm on them.
struct Ptrs {
  const double* q[NIN];
  double* f[NOUT];
};

int checkStatus(int s, const char* what) {
  if (s != 0) {
    std::fprintf(stderr, "cns: %s failed: %s\n", what, stnc_rt::statusName(s));
    std::exit(1);
  }
  return s;
}

void cpuFused(const stnc_rt::Layout& L, const Ptrs& p, const double dx[3]) {
  checkStatus(stn::hypterm::cpu::sweep(L, p.q[IMX], p.q[IMY], p.q[IMZ], p.f[RHO], p.q[QU], p.q[QV], p.q[QW],
                                       p.q[QPRES], p.f[MX], p.f[MY], p.f[MZ], p.q[IENE], p.f[ENE], dx[0], dx[1], dx[2]),
              "hypterm::cpu::sweep");
}

void cpuSeparate(const stnc_rt::Layout& L, const Ptrs& p, const double dx[3]) {
  checkStatus(stn::hyp_rho::cpu::sweep(L, p.q[IMX], p.q[IMY], p.q[IMZ], p.f[RHO], dx[0], dx[1], dx[2]), "hyp_rho");
  checkStatus(stn::hyp_imx::cpu::sweep(L, p.q[QU], p.q[QV], p.q[QW], p.q[QPRES], p.q[IMX], p.f[MX], dx[0], dx[1], dx[2]),
              "hyp_imx");
  checkStatus(stn::hyp_imy::cpu::sweep(L, p.q[QU], p.q[QV], p.q[QW], p.q[QPRES], p.q[IMY], p.f[MY], dx[0], dx[1], dx[2]),
              "hyp_imy");
  checkStatus(stn::hyp_imz::cpu::sweep(L, p.q[QU], p.q[QV], p.q[QW], p.q[QPRES], p.q[IMZ], p.f[MZ], dx[0], dx[1], dx[2]),
              "hyp_imz");
  checkStatus(stn::hyp_ene::cpu::sweep(L, p.q[QU], p.q[QV], p.q[QW], p.q[QPRES], p.q[IENE], p.f[ENE], dx[0], dx[1], dx[2]),
              "hyp_ene");
}

#ifdef STNC_WITH_CUDA
void cudaCheck(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "cns: %s failed: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

void gpuFused(const stnc_rt::Layout& L, const Ptrs& p, const double dx[3]) {
  cudaCheck(stn::hypterm::cuda::sweep(L, p.q[IMX], p.q[IMY], p.q[IMZ], p.f[RHO], p.q[QU], p.q[QV], p.q[QW],
                                      p.q[QPRES], p.f[MX], p.f[MY], p.f[MZ], p.q[IENE], p.f[ENE], dx[0], dx[1], dx[2]),
            "hypterm::cuda::sweep");
}

void gpuSeparate(const stnc_rt::Layout& L, const Ptrs& p, const double dx[3]) {
  cudaCheck(stn::hyp_rho::cuda::sweep(L, p.q[IMX], p.q[IMY], p.q[IMZ], p.f[RHO], dx[0], dx[1], dx[2]), "hyp_rho");
  cudaCheck(stn::hyp_imx::cuda::sweep(L, p.q[QU], p.q[QV], p.q[QW], p.q[QPRES], p.q[IMX], p.f[MX], dx[0], dx[1], dx[2]),
            "hyp_imx");
  cudaCheck(stn::hyp_imy::cuda::sweep(L, p.q[QU], p.q[QV], p.q[QW], p.q[QPRES], p.q[IMY], p.f[MY], dx[0], dx[1], dx[2]),
            "hyp_imy");
  cudaCheck(stn::hyp_imz::cuda::sweep(L, p.q[QU], p.q[QV], p.q[QW], p.q[QPRES], p.q[IMZ], p.f[MZ], dx[0], dx[1], dx[2]),
            "hyp_imz");
  cudaCheck(stn::hyp_ene::cuda::sweep(L, p.q[QU], p.q[QV], p.q[QW], p.q[QPRES], p.q[IENE], p.f[ENE], dx[0], dx[1], dx[2]),
            "hyp_ene");
}

// Device copies of a StnArrays (same layout; cudaMalloc is 256-byte aligned).
struct DeviceArrays {
  const stnc_rt::Layout& L;
  double* in[NIN] = {};
  double* out[NOUT] = {};
  explicit DeviceArrays(const StnArrays& h) : L(h.L) {
    const size_t bytes = L.count * sizeof(double);
    for (auto& p : in) cudaCheck(cudaMalloc(&p, bytes), "cudaMalloc");
    for (auto& p : out) {
      cudaCheck(cudaMalloc(&p, bytes), "cudaMalloc");
      cudaCheck(cudaMemset(p, 0, bytes), "cudaMemset");
    }
    for (int f = 0; f < NIN; ++f) cudaCheck(cudaMemcpy(in[f], h.in[f].get(), bytes, cudaMemcpyHostToDevice), "upload");
  }
  ~DeviceArrays() {
    for (auto* p : in) cudaFree(p);
    for (auto* p : out) cudaFree(p);
  }
  void download(StnArrays& h) const {
    cudaCheck(cudaDeviceSynchronize(), "kernel");
    for (int f = 0; f < NOUT; ++f)
      cudaCheck(cudaMemcpy(h.out[f].get(), out[f], L.count * sizeof(double), cudaMemcpyDeviceToHost), "download");
  }
  Ptrs ptrs() const {
    Ptrs p{};
    for (int f = 0; f < NIN; ++f) p.q[f] = in[f];
    for (int f = 0; f < NOUT; ++f) p.f[f] = out[f];
    return p;
  }
};
#endif

Ptrs hostPtrs(const StnArrays& a) {
  Ptrs p{};
  for (int f = 0; f < NIN; ++f) p.q[f] = a.in[f].get();
  for (int f = 0; f < NOUT; ++f) p.f[f] = a.out[f].get();
  return p;
}

// One way of computing the five fluxes: a name and a function (inputs -> outputs on the host).
struct Version {
  std::string name;
  std::function<void(StnArrays&, const double*)> run;
};

std::vector<Version> versions(bool gpu) {
  std::vector<Version> v;
  auto clearOut = [](StnArrays& a) {
    for (auto& b : a.out) std::memset(b.get(), 0, a.L.count * sizeof(double));
  };
  v.push_back({"cpu fused (group hypterm, 1 kernel)", [clearOut](StnArrays& a, const double* dx) {
                 clearOut(a);
                 cpuFused(a.L, hostPtrs(a), dx);
               }});
  v.push_back({"cpu five kernels (hyp_rho..hyp_ene)", [clearOut](StnArrays& a, const double* dx) {
                 clearOut(a);
                 cpuSeparate(a.L, hostPtrs(a), dx);
               }});
#ifdef STNC_WITH_CUDA
  if (gpu) {
    v.push_back({"cuda fused (group hypterm, 1 kernel)", [clearOut](StnArrays& a, const double* dx) {
                   clearOut(a);
                   DeviceArrays d(a);
                   gpuFused(a.L, d.ptrs(), dx);
                   d.download(a);
                 }});
    v.push_back({"cuda five kernels (hyp_rho..hyp_ene)", [clearOut](StnArrays& a, const double* dx) {
                   clearOut(a);
                   DeviceArrays d(a);
                   gpuSeparate(a.L, d.ptrs(), dx);
                   d.download(a);
                 }});
  }
#else
  (void)gpu;
#endif
  return v;
}

// ---- comparison ---------------------------------------------------------------------------------
struct Diff {
  long differing = 0;  // values whose bits differ
  double maxRel = 0;   // max |a - b| / max |b|
};

Diff compare(const Grid& a, const Grid& ref) {
  Diff d;
  double maxAbs = 0, maxRef = 0;
  for (long i = 0; i < a.n[0]; ++i)
    for (long j = 0; j < a.n[1]; ++j)
      for (long k = 0; k < a.n[2]; ++k) {
        const double x = a(i, j, k), y = ref(i, j, k);
        if (std::memcmp(&x, &y, sizeof x) != 0) ++d.differing;
        maxAbs = std::max(maxAbs, std::fabs(x - y));
        maxRef = std::max(maxRef, std::fabs(y));
        if (std::isnan(x) != std::isnan(y)) maxAbs = INFINITY;
      }
  d.maxRel = maxRef > 0 ? maxAbs / maxRef : maxAbs;
  return d;
}

std::vector<Grid> makeGrids(int count, const long n[3]) { return std::vector<Grid>(count, Grid(n)); }

// Part 1: random data (halo included), odd extents, distinct dxinv per axis.
bool compareWithReference(const std::vector<Version>& vs) {
  const long n[3] = {37, 29, 45};
  const double dxinv[3] = {1.0 / 0.013, 1.0 / 0.021, 1.0 / 0.0087};
  std::vector<Grid> q = makeGrids(NIN, n), ref = makeGrids(NOUT, n), got = makeGrids(NOUT, n);
  std::mt19937_64 rng(20240601);
  std::uniform_real_distribution<double> vel(-1.0, 1.0), pos(0.5, 2.0);
  for (int f = 0; f < NIN; ++f)
    for (auto& x : q[f].v) x = (f == QU || f == QV || f == QW) ? vel(rng) : pos(rng);
  reference(q, dxinv, ref);

  StnArrays a(n);
  // The six kernels have one layout (halo 4 on every axis).
  const stnc_rt::Layout Ls[] = {stn::hyp_rho::layout(n[0], n[1], n[2]), stn::hyp_imx::layout(n[0], n[1], n[2]),
                                stn::hyp_imy::layout(n[0], n[1], n[2]), stn::hyp_imz::layout(n[0], n[1], n[2]),
                                stn::hyp_ene::layout(n[0], n[1], n[2])};
  for (const auto& L : Ls)
    if (!sameLayout(L, a.L)) {
      std::printf("FAILED: the five kernels do not share the fused kernel's layout\n");
      return false;
    }
  a.load(q);

  std::printf("== 1. generated code vs the independent reference (f64, %ldx%ldx%ld interior, random data,\n"
              "      dxinv = %.6g %.6g %.6g; -ffp-contract=off / -fmad=false, source term order) ==\n",
              n[0], n[1], n[2], dxinv[0], dxinv[1], dxinv[2]);
  std::printf("  %-38s", "version");
  for (auto* o : kOutName) std::printf(" %12s", o);
  std::printf("\n");
  bool allIdentical = true;
  double worst = 0;
  for (const auto& v : vs) {
    v.run(a, dxinv);
    a.store(got);
    std::printf("  %-38s", v.name.c_str());
    for (int f = 0; f < NOUT; ++f) {
      Diff d = compare(got[f], ref[f]);
      if (d.differing == 0)
        std::printf(" %12s", "bit-ident.");
      else
        std::printf(" %12.2e", d.maxRel);
      allIdentical &= d.differing == 0;
      worst = std::max(worst, d.maxRel);
    }
    std::printf("\n");
  }
  const long values = n[0] * n[1] * n[2] * NOUT;
  if (allIdentical)
    std::printf("  => every version is BIT-IDENTICAL to the reference (%ld values each)\n", values);
  else
    std::printf("  => NOT bit-identical: max relative error %.3e (cells show max|diff|/max|ref| where bits differ)\n",
                worst);
  // Bitwise equality is the design's promise (docs/DESIGN.md, floating point); a tolerance would hide
  // a reordering.
  return allIdentical;
}

// ---- convergence on smooth periodic fields ------------------------------------------------------
// Each input is a + b sin(x + px) sin(y + py) sin(z + pz) on [0, 2pi)^3: separable, so the exact
// derivatives of the products follow from the product rule, and the halo is filled with the exact
// (periodic) values.
struct Wave {
  double a, b, p[3];
};
const Wave kWaves[NIN] = {
    {0.20, 0.50, {0.1, 0.7, 1.3}},   // qu
    {-0.10, 0.40, {0.9, 0.2, 2.1}},  // qv
    {0.30, 0.30, {1.7, 1.1, 0.4}},   // qw
    {1.00, 0.20, {0.3, 2.5, 1.9}},   // qpres
    {0.50, 0.30, {2.2, 0.6, 0.8}},   // cons_imx
    {-0.40, 0.35, {1.2, 1.6, 2.7}},  // cons_imy
    {0.25, 0.45, {0.5, 2.9, 1.4}},   // cons_imz
    {2.50, 0.50, {2.8, 0.3, 0.6}},   // cons_iene
};

struct Exact {
  double v, d[3];  // value and its partial derivatives
};

// Value and gradient of field f at grid point (i, j, k) with spacing h.
Exact exact(int f, const double h[3], long i, long j, long k) {
  const Wave& w = kWaves[f];
  const double x[3] = {i * h[0] + w.p[0], j * h[1] + w.p[1], k * h[2] + w.p[2]};
  const double s[3] = {std::sin(x[0]), std::sin(x[1]), std::sin(x[2])};
  const double c[3] = {std::cos(x[0]), std::cos(x[1]), std::cos(x[2])};
  return {w.a + w.b * s[0] * s[1] * s[2],
          {w.b * c[0] * s[1] * s[2], w.b * s[0] * c[1] * s[2], w.b * s[0] * s[1] * c[2]}};
}

// The exact fluxes at (i, j, k): -(d/dx fx + d/dy fy + d/dz fz), product rule.
void exactFluxes(const double h[3], long i, long j, long k, double out[NOUT]) {
  Exact e[NIN];
  for (int f = 0; f < NIN; ++f) e[f] = exact(f, h, i, j, k);
  auto prod = [&](int a, int b, int d) { return e[a].d[d] * e[b].v + e[a].v * e[b].d[d]; };  // d(ab)
  const Exact &u = e[QU], &v = e[QV], &w = e[QW], &p = e[QPRES];
  out[RHO] = -(e[IMX].d[0] + e[IMY].d[1] + e[IMZ].d[2]);
  out[MX] = -(prod(IMX, QU, 0) + p.d[0] + prod(IMX, QV, 1) + prod(IMX, QW, 2));
  out[MY] = -(prod(IMY, QU, 0) + prod(IMY, QV, 1) + p.d[1] + prod(IMY, QW, 2));
  out[MZ] = -(prod(IMZ, QU, 0) + prod(IMZ, QV, 1) + prod(IMZ, QW, 2) + p.d[2]);
  // (E + p) u etc.
  const Exact& E = e[IENE];
  const double ep = E.v + p.v;
  out[ENE] = -((E.d[0] + p.d[0]) * u.v + ep * u.d[0] + (E.d[1] + p.d[1]) * v.v + ep * v.d[1] +
               (E.d[2] + p.d[2]) * w.v + ep * w.d[2]);
}

bool convergence(const std::vector<Version>& vs, int base, int levels, double minOrder) {
  std::printf("\n== 2. convergence on [0,2pi)^3, smooth periodic fields (a + b sin sin sin; halo = exact values) ==\n");
  std::printf("  error = max|flux - exact| / max|exact| over the interior (%s);\n"
              "  every other version must give the same bits\n",
              vs[0].name.c_str());
  std::printf("  %-12s", "grid");
  for (auto* o : kOutName) std::printf(" %18s", o);
  std::printf("\n");
  std::vector<std::vector<double>> err;
  bool same = true;
  double worstOrder = INFINITY;
  for (int l = 0; l < levels; ++l) {
    const long m = static_cast<long>(base) << l;
    const long n[3] = {m, m + m / 4, m + m / 2};  // anisotropic: three different dxinv
    const double twoPi = 6.283185307179586;  // 2 pi
    const double h[3] = {twoPi / n[0], twoPi / n[1], twoPi / n[2]};
    const double dxinv[3] = {1.0 / h[0], 1.0 / h[1], 1.0 / h[2]};
    std::vector<Grid> q = makeGrids(NIN, n), got = makeGrids(NOUT, n), first = makeGrids(NOUT, n);
    for (int f = 0; f < NIN; ++f)
      for (long i = -H; i < n[0] + H; ++i)
        for (long j = -H; j < n[1] + H; ++j)
          for (long k = -H; k < n[2] + H; ++k) q[f](i, j, k) = exact(f, h, i, j, k).v;
    StnArrays a(n);
    a.load(q);
    for (size_t vi = 0; vi < vs.size(); ++vi) {
      vs[vi].run(a, dxinv);
      a.store(vi == 0 ? first : got);
      if (vi > 0)
        for (int f = 0; f < NOUT; ++f)
          if (compare(got[f], first[f]).differing != 0) {
            std::printf("  FAILED: %s differs from %s on the %ldx%ldx%ld grid (%s)\n", vs[vi].name.c_str(),
                        vs[0].name.c_str(), n[0], n[1], n[2], kOutName[f]);
            same = false;
          }
    }
    std::vector<double> e(NOUT, 0.0), emax(NOUT, 0.0);
    for (long i = 0; i < n[0]; ++i)
      for (long j = 0; j < n[1]; ++j)
        for (long k = 0; k < n[2]; ++k) {
          double ex[NOUT];
          exactFluxes(h, i, j, k, ex);
          for (int f = 0; f < NOUT; ++f) {
            e[f] = std::max(e[f], std::fabs(first[f](i, j, k) - ex[f]));
            emax[f] = std::max(emax[f], std::fabs(ex[f]));
          }
        }
    for (int f = 0; f < NOUT; ++f) e[f] /= emax[f];
    char g[32];
    std::snprintf(g, sizeof g, "%ldx%ldx%ld", n[0], n[1], n[2]);
    std::printf("  %-12s", g);
    for (int f = 0; f < NOUT; ++f) {
      if (l == 0) {
        std::printf(" %18.3e", e[f]);
      } else {
        const double order = std::log(err.back()[f] / e[f]) / std::log(2.0);
        worstOrder = std::min(worstOrder, order);
        std::printf("  %9.3e (%4.2f)", e[f], order);
      }
    }
    std::printf("\n");
    err.push_back(e);
  }
  std::printf("  (in parentheses: the observed order against the grid above, log2(e_coarse / e_fine))\n");
  const bool ok = worstOrder >= minOrder && same;
  std::printf("  => minimum observed order %.2f (required >= %.2f)%s\n", worstOrder, minOrder,
              same ? "; all versions agree bit for bit" : "");
  return ok;
}

// ---- benchmark ----------------------------------------------------------------------------------
void bench(const std::vector<Version>& vs, long size, int reps, bool gpu) {
  const long n[3] = {size, size, size};
  const double dxinv[3] = {1.0, 1.0, 1.0};
  StnArrays a(n);
  for (int f = 0; f < NIN; ++f)
    for (size_t x = 0; x < a.L.count; ++x) a.in[f][x] = 1.0 + 1e-3 * static_cast<double>((x * (f + 3)) % 1009);
  const double pts = static_cast<double>(size) * size * size;
  std::printf("== benchmark, %ld^3 interior, %d sweeps (104 compulsory bytes per point) ==\n", size, reps);
  auto report = [&](const char* what, double ms) {
    std::printf("  %-38s %9.3f ms/sweep  %8.3f Gpts/s  %8.1f GB/s\n", what, ms, pts / ms * 1e-6, 104.0 * pts / ms * 1e-6);
  };
  Ptrs hp = hostPtrs(a);
  auto timeIt = [&](auto fn, auto sync) {
    fn();
    sync();
    auto t0 = std::chrono::steady_clock::now();
    for (int r = 0; r < reps; ++r) fn();
    sync();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / reps;
  };
  auto none = [] {};
  report(vs[0].name.c_str(), timeIt([&] { cpuFused(a.L, hp, dxinv); }, none));
  report(vs[1].name.c_str(), timeIt([&] { cpuSeparate(a.L, hp, dxinv); }, none));
#ifdef STNC_WITH_CUDA
  if (gpu) {
    DeviceArrays d(a);
    Ptrs dp = d.ptrs();
    auto sync = [] { cudaCheck(cudaDeviceSynchronize(), "sync"); };
    report("cuda fused (group hypterm, 1 kernel)", timeIt([&] { gpuFused(a.L, dp, dxinv); }, sync));
    report("cuda five kernels (hyp_rho..hyp_ene)", timeIt([&] { gpuSeparate(a.L, dp, dxinv); }, sync));
  }
#else
  (void)gpu;
#endif
}

int usage() {
  std::fprintf(stderr,
               "usage: cns --check [--base N] [--levels L] [--min-order P] [--gpu auto|on|off]\n"
               "       cns --bench [--size N] [--reps R] [--gpu auto|on|off]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  bool check = false, doBench = false;
  int base = 16, levels = 3, reps = 10;
  long size = 128;
  double minOrder = 7.5;
  std::string gpuMode = "auto";
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> const char* {
      if (i + 1 >= argc) std::exit(usage());
      return argv[++i];
    };
    if (a == "--check") check = true;
    else if (a == "--bench") doBench = true;
    else if (a == "--base") base = std::atoi(next());
    else if (a == "--levels") levels = std::atoi(next());
    else if (a == "--min-order") minOrder = std::atof(next());
    else if (a == "--size") size = std::atol(next());
    else if (a == "--reps") reps = std::atoi(next());
    else if (a == "--gpu") gpuMode = next();
    else return usage();
  }
  if ((!check && !doBench) || base < 8 || levels < 2 || size < 1 || reps < 1) return usage();
  if (gpuMode != "auto" && gpuMode != "on" && gpuMode != "off") return usage();

  bool gpu = false;
#ifdef STNC_WITH_CUDA
  if (gpuMode != "off") {
    int count = 0;
    gpu = cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
    if (!gpu && gpuMode == "on") {
      std::printf("FAILED: --gpu on, but no CUDA device answers\n");
      return 1;
    }
    if (!gpu) std::printf("(CUDA build, but no CUDA device: only the CPU versions run)\n");
  }
#else
  if (gpuMode == "on") {
    std::printf("FAILED: --gpu on, but this is a CPU-only build (configure with -DSTNC_CNS_CUDA=ON)\n");
    return 1;
  }
#endif
  const std::vector<Version> vs = versions(gpu);

  if (doBench) bench(vs, size, reps, gpu);
  if (!check) return 0;
  auto t0 = std::chrono::steady_clock::now();
  const bool identical = compareWithReference(vs);
  const bool converges = convergence(vs, base, levels, minOrder);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("\ncns --check: %s (%.1f s)\n", identical && converges ? "PASSED" : "FAILED", s);
  return identical && converges ? 0 : 1;
}
