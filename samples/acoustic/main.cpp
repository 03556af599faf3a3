// samples/acoustic/main.cpp — the Minimod acoustic_iso_cd solver (8th-order, 25-point, isotropic,
// constant density, f32) with a 27-cell PML shell, stepped by the kernels stnc generates from
// acoustic.stn (stn::acoustic in acoustic.h). README.md has the physics and the formulas.
//
//   acoustic [--n N | --size NIxNJxNK] [--steps S] [--init zero|random] [--model const|layers]
//            [--no-pml] [--backend cpu|cuda] [--png FILE] [--save FILE.npy]
//                                                           one run: timing, energies, a slice image, u as .npy
//   acoustic --check [--backend cpu|cuda]                          stnc vs an independent reference
//   acoustic --bench [--n 800] [--steps 1000] [--init random|zero] [--chunk C] [--warmup W]
//
// --check (make check) runs the stnc CPU kernels against the plain-loop reference in this file
// (reference() below: its own array layout, a branch per point for inner/PML, its own source and
// swap) and requires bit-identical u, v and phi; both use the same term order and no FMA
// contraction. With --backend cuda (make GPU=1 check-gpu) it also runs the CUDA kernels for many
// steps and requires them to equal the CPU kernels bit for bit, and the reference on a small grid.
//
// --bench times the step() loop: W warm-up steps, then S steps as S/C calls of step(C) with a CUDA
// event (CPU: a clock) around each call; it prints the median and mean time per step and Gpts/s
// (interior points, PML included, per second; the point source is added in every step).
//
// Images: with libpng (make PNG=1, the default when <png.h> compiles) --png writes a PNG; without it
// (PNG=0) the same picture goes to a binary PPM next to it, FILE.png -> FILE.ppm (samples/heat does the same).
//
// The generated launcher API used here (acoustic.h):
//   stnc_rt::Layout L = stn::acoustic::layout(ni, nj, nk);   every array has L.count floats
//   stn::acoustic::index(L, i, j, k)                          element of point (i, j, k); halo: -4..-1, n..n+3
//   stn::acoustic::cpu::step(L, steps, u, roc2, eta, v, phi, src, nsrc)
//       steps x (sweep: v and phi updated, inner region and PML shell as separate loops;
//                add the source wavelet[t] to v; swap u, v); u holds the newest field on return
//   stn::acoustic::cuda::step(..., stream, src, nsrc)         the same on device pointers
//   stn::acoustic::cuda::sweep_box(L, lo, hi, ...)            one sweep of a sub-box (the breakdown)
//   stn::acoustic_sep::...(L, ..., u, roc2, etax, etay, etaz, v, phi, ...)   the same with eta as three 1-D profiles
//       (--eta profiles; etax holds n + 8 floats: stn::acoustic_sep::count(L, 2))
#include "acoustic.h"

#if !defined(ACOUSTIC_PNG)
#define ACOUSTIC_PNG 0  // the Makefile sets 1 when <png.h> compiles (PNG=1); 0: images are binary PPM
#endif
#define STNC_SAMPLE_PNG ACOUSTIC_PNG
#include "../common/backend.h"   // kHaveCuda, dieAs, describeBackend
#include "../common/image_io.h"  // encodeImage, kImageKind, imagePath (PNG or PPM)
#if defined(_OPENMP)
#include <omp.h>
#endif

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace {

namespace K = stn::acoustic;
namespace KS = stn::acoustic_sep;  // the same solver with eta as three lower-rank profiles (--eta profiles)
static_assert(std::is_same<K::real, KS::real>::value, "both stencils are f32");
using real = K::real;
static_assert(sizeof(real) == 4, "acoustic.stn is an f32 stencil");

// Must equal `region inner = [27:-27, 27:-27, 27:-27]` in acoustic.stn (the check fails otherwise).
constexpr long kPml = 27;
constexpr long kR = 4;  // stencil radius = halo
constexpr double kPi = 3.14159265358979323846;

[[noreturn]] void die(const std::string& msg) { dieAs("acoustic", msg); }

// ---- the problem ------------------------------------------------------------------------------------
struct Config {
  long n[3] = {128, 128, 128};
  long steps = 500;
  std::string init = "zero";     // zero | random (u and v uniform in [-1, 1); halo 0)
  std::string model = "layers";  // const (2000 m/s) | layers (1500 m/s over 2500 m/s)
  bool pml = true;               // false: eta = 0 (the shell equations become the plain update)
  std::string eta = "array";     // array: Minimod's 3-D eta (stencil acoustic) | profiles: three 1-D profiles
                                 // eta_i, eta_j, eta_k (stencil acoustic_sep, lower-rank fields): the same bits
  double h = 20.0;               // grid spacing [m] (Minimod)
  double cfl = 0.5;              // dt = 2 cfl h / (sqrt(sum |lap8 weights|) vmax), Minimod's compute_dt_sch
  double f0 = 10.0;              // Ricker peak frequency [Hz]
  long src[3] = {-1, -1, -1};    // source point; default the centre
  std::uint64_t seed = 1;
  std::string backend = kHaveCuda ? "cuda" : "cpu";
};

// The 8th-order second-derivative weights of stdlib/fd.stn (fd_d2_8), in float64 like stnc folds them.
constexpr double kC8[5] = {-205.0 / 72.0, 8.0 / 5.0, -1.0 / 5.0, 8.0 / 315.0, -1.0 / 560.0};

struct Setup {
  Config c;
  double vmax = 0, dt = 0, etaMax = 0;
  bool layered = false, randomInit = false;  // c.model == "layers", c.init == "random"
  std::vector<real> wavelet;  // one value per step (plus warm-up steps in --bench)

  explicit Setup(const Config& cfg, long waveletSteps) : c(cfg) {
    for (int d = 0; d < 3; ++d)
      if (c.src[d] < 0) c.src[d] = c.n[d] / 2;
    layered = c.model == "layers";
    randomInit = c.init == "random";
    vmax = layered ? 2500.0 : 2000.0;
    double sum = 3 * std::abs(kC8[0]);
    for (int m = 1; m <= 4; ++m) sum += 6 * std::abs(kC8[m]);
    dt = 2 * c.cfl * c.h / (std::sqrt(sum) * vmax);
    // Minimod's init_eta: eta_max = dt * 3 vmax ln(1000) / (2 * width * h), profile (d / width)^2.
    etaMax = c.pml ? dt * 3 * vmax * std::log(1000.0) / (2.0 * kPml * c.h) : 0.0;
    wavelet.resize(static_cast<size_t>(std::max(waveletSteps, 1L)));
    const double t0 = 1.2 / c.f0;
    for (size_t t = 0; t < wavelet.size(); ++t) {
      const double a = kPi * c.f0 * (static_cast<double>(t) * dt - t0);
      wavelet[t] = static_cast<real>((1 - 2 * a * a) * std::exp(-a * a));  // Ricker
    }
  }
  double velocity(long i) const {
    if (!layered) return 2000.0;
    return i < (5 * c.n[0]) / 8 ? 1500.0 : 2500.0;
  }
  // Fields at any point of the array (interior and halo coordinates).
  real roc2(long i, long, long) const {
    const double r = velocity(std::clamp(i, 0L, c.n[0] - 1)) * dt / c.h;
    return static_cast<real>(r * r);
  }
  // Depth into the shell along one axis: 1 at the innermost PML cell, kPml at the outermost, and on into
  // the halo (read only as eta's +-1 neighbour); 0 in the inner region.
  static double depth(long x, long n) {
    if (x < kPml) return static_cast<double>(kPml - x);
    if (x > n - 1 - kPml) return static_cast<double>(x - (n - 1 - kPml));
    return 0.0;
  }
  // One axis's damping profile eta_d(x) = eta_max (depth / width)^2, rounded once to f32; eta is the f32 sum
  // eta_i + (eta_j + eta_k), as acoustic_sep's `let eta = etax + (etay + etaz)` adds it, so the 3-D array and
  // the three profiles (--eta profiles) give the same bits.
  real etaAxis(int d, long x) const {
    if (!c.pml) return 0.0f;
    const double q = depth(x, c.n[d]) / kPml;
    return static_cast<real>(etaMax * q * q);
  }
  real eta(long i, long j, long k) const { return etaAxis(0, i) + (etaAxis(1, j) + etaAxis(2, k)); }
  bool profiles() const { return c.eta == "profiles"; }
  bool interior(long i, long j, long k) const {
    return i >= 0 && i < c.n[0] && j >= 0 && j < c.n[1] && k >= 0 && k < c.n[2];
  }
  // Counter-based random numbers in [-1, 1): the same values on every machine and thread count.
  real random(int field, long i, long j, long k) const {
    std::uint64_t x = c.seed * 0x9E3779B97F4A7C15ull + (static_cast<std::uint64_t>(field) << 58) +
                      static_cast<std::uint64_t>((i * c.n[1] + j) * c.n[2] + k);
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBull;
    x ^= x >> 31;
    return static_cast<real>(static_cast<double>(x >> 40) * 0x1p-23 - 1.0);
  }
  real u0(long i, long j, long k) const {
    return randomInit && interior(i, j, k) ? random(0, i, j, k) : 0.0f;
  }
  real v0(long i, long j, long k) const {
    return randomInit && interior(i, j, k) ? random(1, i, j, k) : 0.0f;
  }
  long points() const { return c.n[0] * c.n[1] * c.n[2]; }
  long innerPoints() const {
    long p = 1;
    for (int d = 0; d < 3; ++d) p *= std::max(0L, c.n[d] - 2 * kPml);
    return p;
  }
};

// Interior values (row-major i, j, k) of the three unknowns after a run.
struct Fields {
  std::vector<real> u, v, phi;
};

std::string sizeText(const long n[3]) {
  return std::to_string(n[0]) + "x" + std::to_string(n[1]) + "x" + std::to_string(n[2]);
}

// ---- the stnc kernels -------------------------------------------------------------------------------
struct HostArray {
  real* p = nullptr;
  size_t count = 0;
  explicit HostArray(size_t n) : count(n) {
    const size_t bytes = (n * sizeof(real) + 127) / 128 * 128;
    p = static_cast<real*>(std::aligned_alloc(128, bytes));
    if (!p) die("out of host memory (" + std::to_string(bytes >> 20) + " MiB)");
  }
  ~HostArray() { std::free(p); }
  HostArray(const HostArray&) = delete;
  HostArray& operator=(const HostArray&) = delete;
};

// Writes f at every point of the array, halo included (padding: 0). Parallel first touch.
void fillArray(const stnc_rt::Layout& L, real* a, const std::function<real(long, long, long)>& f) {
  const long rows = L.dim[0] * L.dim[1];
#pragma omp parallel for schedule(static)
  for (long r = 0; r < rows; ++r) {
    real* row = a + r * L.stride[1];
    std::fill(row, row + L.dim[2], 0.0f);
    const long i = r / L.dim[1] - L.pad[0], j = r % L.dim[1] - L.pad[1];
    for (long k = -kR; k < L.n[2] + kR; ++k) row[L.pad[2] + k] = f(i, j, k);
  }
}

void extract(const stnc_rt::Layout& L, const real* a, std::vector<real>& out) {
  out.resize(static_cast<size_t>(L.n[0] * L.n[1] * L.n[2]));
#pragma omp parallel for collapse(2) schedule(static)
  for (long i = 0; i < L.n[0]; ++i)
    for (long j = 0; j < L.n[1]; ++j)
      std::memcpy(&out[static_cast<size_t>((i * L.n[1] + j) * L.n[2])], a + K::index(L, i, j, 0),
                  static_cast<size_t>(L.n[2]) * sizeof(real));
}

int fieldIndex(const char* name) {
  for (int f = 0; f < K::kFieldCount; ++f)
    if (std::strcmp(K::kFields[f], name) == 0) return f;
  die(std::string("no field ") + name + " in acoustic.stn");
}

// The source for either stencil (their Source types differ only in v's field index).
template <class S>
S makeSourceFor(const Setup& s, int field, const real* wavelet) {
  return S{field, s.c.src[0], s.c.src[1], s.c.src[2], wavelet};
}
K::Source makeSource(const Setup& s, const real* wavelet) { return makeSourceFor<K::Source>(s, fieldIndex("v"), wavelet); }
KS::Source makeSourceSep(const Setup& s, const real* wavelet) {
  for (int f = 0; f < KS::kFieldCount; ++f)
    if (std::strcmp(KS::kFields[f], "v") == 0) return makeSourceFor<KS::Source>(s, f, wavelet);
  die("no field v in acoustic_sep");
}

stnc_rt::Layout makeLayout(const Setup& s) {
  const stnc_rt::Layout L = K::layout(s.c.n[0], s.c.n[1], s.c.n[2]);
  if (L.count == 0) die("bad grid size " + sizeText(s.c.n));
  return L;
}

// The five arrays of the kernel on the host, initialised from the setup.
// (--eta profiles: eta is the three dense profiles ex, ey, ez of n + 2 halo points each, KS::count; the 3-D
// eta array is then not allocated.)
struct HostFields {
  HostArray u, roc2, eta, v, phi, ex, ey, ez;
  explicit HostFields(const stnc_rt::Layout& L, const Setup& s)
      : u(L.count), roc2(L.count), eta(s.profiles() ? 1 : L.count), v(L.count), phi(L.count), ex(KS::count(L, 2)),
        ey(KS::count(L, 3)), ez(KS::count(L, 4)) {
    fillArray(L, u.p, [&](long i, long j, long k) { return s.u0(i, j, k); });
    fillArray(L, v.p, [&](long i, long j, long k) { return s.v0(i, j, k); });
    fillArray(L, roc2.p, [&](long i, long j, long k) { return s.roc2(i, j, k); });
    if (!s.profiles()) fillArray(L, eta.p, [&](long i, long j, long k) { return s.eta(i, j, k); });
    fillArray(L, phi.p, [](long, long, long) { return 0.0f; });
    HostArray* prof[3] = {&ex, &ey, &ez};
    for (int d = 0; d < 3; ++d)
      for (long x = -kR; x < L.n[d] + kR; ++x) prof[d]->p[x + kR] = s.etaAxis(d, x);
  }
};

#if defined(STNC_WITH_CUDA)
void cuOk(cudaError_t e, const char* what) {
  if (e != cudaSuccess) die(std::string(what) + ": " + cudaGetErrorString(e));
}

// The five arrays on the device (cudaMalloc: 256-byte aligned; the launchers need 128).
struct DeviceFields {
  real *u = nullptr, *roc2 = nullptr, *eta = nullptr, *v = nullptr, *phi = nullptr;
  real* base[5] = {};  // u, roc2, eta (only with the 3-D eta: --eta array), v, phi
  real* prof[3] = {};  // eta's three profiles (--eta profiles; allocated either way, they are small)
  size_t bytes = 0, profBytes[3] = {};
  DeviceFields(const stnc_rt::Layout& L, const Setup& s) : bytes(L.count * sizeof(real)) {
    for (int d = 0; d < 3; ++d) {
      profBytes[d] = KS::count(L, 2 + d) * sizeof(real);
      cuOk(cudaMalloc(&prof[d], profBytes[d]), "cudaMalloc");
    }
    const int arrays = s.profiles() ? 4 : 5;
    size_t freeB = 0, totalB = 0;
    cuOk(cudaMemGetInfo(&freeB, &totalB), "cudaMemGetInfo");
    if (arrays * bytes + (64u << 20) > freeB)
      die("the " + std::to_string(arrays) + " fields need " + std::to_string(arrays * bytes >> 20) + " MiB, the device has " +
          std::to_string(freeB >> 20) + " MiB free");
    for (int f = 0; f < 5; ++f)
      if (f != 2 || !s.profiles()) cuOk(cudaMalloc(&base[f], bytes), "cudaMalloc");
    reset();
  }
  void reset() {  // the roles as allocated (step() swaps u and v)
    u = base[0], roc2 = base[1], eta = base[2], v = base[3], phi = base[4];
  }
  void upload(const HostFields& h) {
    const real* src[5] = {h.u.p, h.roc2.p, h.eta.p, h.v.p, h.phi.p};
    for (int f = 0; f < 5; ++f)
      if (base[f]) cuOk(cudaMemcpy(base[f], src[f], bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
    const real* p[3] = {h.ex.p, h.ey.p, h.ez.p};
    for (int d = 0; d < 3; ++d) cuOk(cudaMemcpy(prof[d], p[d], profBytes[d], cudaMemcpyHostToDevice), "cudaMemcpy");
    reset();
  }
  ~DeviceFields() {
    for (real* b : base) cudaFree(b);
    for (real* b : prof) cudaFree(b);
  }
  DeviceFields(const DeviceFields&) = delete;
  DeviceFields& operator=(const DeviceFields&) = delete;
};

// One call of the step loop, or one sweep (of a sub-box: lo, hi), on the stencil --eta chose.
cudaError_t cudaStep(const Setup& s, const stnc_rt::Layout& L, long steps, DeviceFields& d, const real* wavelet) {
  if (s.profiles()) {
    const KS::Source src = makeSourceSep(s, wavelet);
    return KS::cuda::step(L, steps, d.u, d.roc2, d.prof[0], d.prof[1], d.prof[2], d.v, d.phi, 0, &src, 1);
  }
  const K::Source src = makeSource(s, wavelet);
  return K::cuda::step(L, steps, d.u, d.roc2, d.eta, d.v, d.phi, 0, &src, 1);
}
cudaError_t cudaSweep(const Setup& s, const stnc_rt::Layout& L, DeviceFields& d, const long* lo = nullptr, const long* hi = nullptr) {
  if (s.profiles())
    return lo ? KS::cuda::sweep_box(L, lo, hi, d.u, d.roc2, d.prof[0], d.prof[1], d.prof[2], d.v, d.phi, 0)
              : KS::cuda::sweep(L, d.u, d.roc2, d.prof[0], d.prof[1], d.prof[2], d.v, d.phi, 0);
  return lo ? K::cuda::sweep_box(L, lo, hi, d.u, d.roc2, d.eta, d.v, d.phi, 0) : K::cuda::sweep(L, d.u, d.roc2, d.eta, d.v, d.phi, 0);
}

struct DeviceVector {
  real* p = nullptr;
  explicit DeviceVector(const std::vector<real>& h) {
    cuOk(cudaMalloc(&p, h.size() * sizeof(real)), "cudaMalloc");
    cuOk(cudaMemcpy(p, h.data(), h.size() * sizeof(real), cudaMemcpyHostToDevice), "cudaMemcpy");
  }
  ~DeviceVector() { cudaFree(p); }
  DeviceVector(const DeviceVector&) = delete;
  DeviceVector& operator=(const DeviceVector&) = delete;
};
#endif

// One call of the CPU step loop on the stencil --eta chose; u and v hold their roles on return.
int cpuStep(const Setup& s, const stnc_rt::Layout& L, long steps, real*& u, real*& v, HostFields& h, const real* wavelet) {
  if (s.profiles()) {
    const KS::Source src = makeSourceSep(s, wavelet);
    return KS::cpu::step(L, steps, u, h.roc2.p, h.ex.p, h.ey.p, h.ez.p, v, h.phi.p, &src, 1);
  }
  const K::Source src = makeSource(s, wavelet);
  return K::cpu::step(L, steps, u, h.roc2.p, h.eta.p, v, h.phi.p, &src, 1);
}

// One run of s.c.steps steps with the stnc kernels on `backend`; seconds = the step() call.
Fields runStnc(const Setup& s, const std::string& backend, double* seconds = nullptr) {
  const stnc_rt::Layout L = makeLayout(s);
  HostFields h(L, s);
  Fields out;
  if (backend == "cpu") {
    real *u = h.u.p, *v = h.v.p;
    const auto t0 = std::chrono::steady_clock::now();
    const int st = cpuStep(s, L, s.c.steps, u, v, h, s.wavelet.data());
    if (seconds) *seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (st != stnc_rt::kOk) die(std::string("cpu::step failed: ") + stnc_rt::statusName(st));
    extract(L, u, out.u);
    extract(L, v, out.v);
    extract(L, h.phi.p, out.phi);
    return out;
  }
#if defined(STNC_WITH_CUDA)
  DeviceFields d(L, s);
  d.upload(h);
  DeviceVector w(s.wavelet);
  cuOk(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  const auto t0 = std::chrono::steady_clock::now();
  cuOk(cudaStep(s, L, s.c.steps, d, w.p), "cuda::step");
  cuOk(cudaDeviceSynchronize(), "cuda::step (synchronize)");
  if (seconds) *seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  cuOk(cudaMemcpy(h.u.p, d.u, d.bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
  cuOk(cudaMemcpy(h.v.p, d.v, d.bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
  cuOk(cudaMemcpy(h.phi.p, d.phi, d.bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
  extract(L, h.u.p, out.u);
  extract(L, h.v.p, out.v);
  extract(L, h.phi.p, out.phi);
  return out;
#else
  die("this binary was built without CUDA (build with `make GPU=1`)");
#endif
}

// ---- the independent reference: plain loops over plain (n + 8)^3 arrays -----------------------------
// The same formulas in the same term order as acoustic.stn + stdlib/fd.stn (lap8: the centre term, then
// for m = 1..4 the weight times the six arms summed in the order +i -i +j -j +k -k, the four terms
// added left to right), so the result is bit-identical without FMA contraction. The PML cross term
// Minimod writes (eta[+1] - eta[-1]) * (u[+1] - u[-1]) * hd_2, hd_2 = 1/(4 h^2); with phi scaled by h^2
// that is (...) * (...) * 0.25, and the .stn writes it with the stdlib as dx2(eta) * dx2(u) =
// (0.5 * (...)) * (0.5 * (...)). The two round identically except where a product is subnormal, which
// zero-initialised runs do reach ahead of the wave front (this check found it), so the reference uses
// the stdlib's grouping as well.
struct RefArray {
  long n0, n1, n2, s0, s1;
  std::vector<real> a;
  explicit RefArray(const long n[3])
      : n0(n[0]), n1(n[1]), n2(n[2]), s0((n[1] + 2 * kR) * (n[2] + 2 * kR)), s1(n[2] + 2 * kR),
        a(static_cast<size_t>((n[0] + 2 * kR) * s0), 0.0f) {}
  long at(long i, long j, long k) const { return (i + kR) * s0 + (j + kR) * s1 + (k + kR); }
  real& operator()(long i, long j, long k) { return a[static_cast<size_t>(at(i, j, k))]; }
  void fill(const std::function<real(long, long, long)>& f) {
    for (long i = -kR; i < n0 + kR; ++i)
      for (long j = -kR; j < n1 + kR; ++j)
        for (long k = -kR; k < n2 + kR; ++k) (*this)(i, j, k) = f(i, j, k);
  }
  std::vector<real> interior() const {
    std::vector<real> out;
    out.reserve(static_cast<size_t>(n0 * n1 * n2));
    for (long i = 0; i < n0; ++i)
      for (long j = 0; j < n1; ++j)
        for (long k = 0; k < n2; ++k) out.push_back(a[static_cast<size_t>(at(i, j, k))]);
    return out;
  }
};

Fields reference(const Setup& s) {
  const long* n = s.c.n;
  RefArray U(n), V(n), R(n), E(n), P(n);
  U.fill([&](long i, long j, long k) { return s.u0(i, j, k); });
  V.fill([&](long i, long j, long k) { return s.v0(i, j, k); });
  R.fill([&](long i, long j, long k) { return s.roc2(i, j, k); });
  E.fill([&](long i, long j, long k) { return s.eta(i, j, k); });
  const real c0 = static_cast<real>(3.0 * kC8[0]);
  const real c[5] = {0.0f, static_cast<real>(kC8[1]), static_cast<real>(kC8[2]), static_cast<real>(kC8[3]),
                     static_cast<real>(kC8[4])};
  const real half = 0.5f;  // Minimod: hd_2 = 1 / (4 h^2), here (h^2 scaled) 0.5 * 0.5, see above
  RefArray* u = &U;
  RefArray* v = &V;
  for (long t = 0; t < s.c.steps; ++t) {
    RefArray& uu = *u;
    RefArray& vv = *v;
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n[0]; ++i)
      for (long j = 0; j < n[1]; ++j)
        for (long k = 0; k < n[2]; ++k) {
          real sum = 0.0f;
          for (long m = 1; m <= 4; ++m) {
            const real arms = uu(i + m, j, k) + uu(i - m, j, k) + uu(i, j + m, k) + uu(i, j - m, k) +
                              uu(i, j, k + m) + uu(i, j, k - m);
            sum = m == 1 ? c[m] * arms : sum + c[m] * arms;
          }
          const real lap = c0 * uu(i, j, k) + sum;
          const bool inner = i >= kPml && i < n[0] - kPml && j >= kPml && j < n[1] - kPml && k >= kPml &&
                             k < n[2] - kPml;
          if (inner) {
            vv(i, j, k) = 2.0f * uu(i, j, k) - vv(i, j, k) + R(i, j, k) * lap;
          } else {
            const real e = E(i, j, k);
            const real phi = P(i, j, k);
            vv(i, j, k) =
                ((2.0f + 2.0f * e - e * e) * uu(i, j, k) - vv(i, j, k) + R(i, j, k) * (lap + phi)) / (1.0f + 2.0f * e);
            P(i, j, k) =
                (phi - ((half * (E(i + 1, j, k) - E(i - 1, j, k))) * (half * (uu(i + 1, j, k) - uu(i - 1, j, k))) +
                        (half * (E(i, j + 1, k) - E(i, j - 1, k))) * (half * (uu(i, j + 1, k) - uu(i, j - 1, k))) +
                        (half * (E(i, j, k + 1) - E(i, j, k - 1))) * (half * (uu(i, j, k + 1) - uu(i, j, k - 1))))) /
                (1.0f + e);
          }
        }
    vv(s.c.src[0], s.c.src[1], s.c.src[2]) += s.wavelet[static_cast<size_t>(t)];  // the source, into the new field
    std::swap(u, v);
  }
  return Fields{u->interior(), v->interior(), P.interior()};
}

// ---- comparison, statistics --------------------------------------------------------------------------
struct Diff {
  long mismatches = 0;  // elements whose bits differ
  double maxDiff = 0;
  bool finite = true;
};

Diff compare(const std::vector<real>& a, const std::vector<real>& b) {
  Diff d;
  if (a.size() != b.size()) die("compare: sizes differ");
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::memcmp(&a[i], &b[i], sizeof(real)) != 0) {
      ++d.mismatches;
      d.maxDiff = std::max(d.maxDiff, std::abs(static_cast<double>(a[i]) - static_cast<double>(b[i])));
    }
    if (!std::isfinite(a[i]) || !std::isfinite(b[i])) d.finite = false;
  }
  return d;
}

double maxAbs(const std::vector<real>& a) {
  double m = 0;
  for (real x : a) m = std::max(m, static_cast<double>(std::abs(x)));
  return m;
}

// Sum of u^2 over the inner region and over the PML shell.
void energies(const Setup& s, const std::vector<real>& u, double* inner, double* shell) {
  double ei = 0, es = 0;
  const long* n = s.c.n;
  for (long i = 0; i < n[0]; ++i)
    for (long j = 0; j < n[1]; ++j)
      for (long k = 0; k < n[2]; ++k) {
        const double x = u[static_cast<size_t>((i * n[1] + j) * n[2] + k)];
        const bool in = i >= kPml && i < n[0] - kPml && j >= kPml && j < n[1] - kPml && k >= kPml && k < n[2] - kPml;
        (in ? ei : es) += x * x;
      }
  *inner = ei;
  *shell = es;
}

// ---- images: PNG (libpng) or, without libpng (PNG=0), binary PPM: samples/heat's scheme ---------------
// A blue-white-red diverging ramp for t in [-1, 1].
void colour(double t, unsigned char* rgb) {
  static const double stops[][3] = {{5, 48, 97}, {67, 147, 195}, {247, 247, 247}, {214, 96, 77}, {103, 0, 31}};
  t = (std::clamp(t, -1.0, 1.0) + 1) * 2;  // 0 .. 4
  const int i = std::min(static_cast<int>(t), 3);
  const double f = t - i;
  for (int c = 0; c < 3; ++c)
    rgb[c] = static_cast<unsigned char>(std::lround(stops[i][c] + f * (stops[i + 1][c] - stops[i][c])));
}


// The plane j = source j (rows: i, the depth axis of the layered model; columns: k), symmetric colour
// scale at 0.5 * max |u| of the plane; the PML shell is dimmed and the layer interface marked. Returns
// the path written (PNG=0: FILE.png -> FILE.ppm).
std::string writeImage(const std::string& path, const Setup& s, const std::vector<real>& u) {
  const std::string out = imagePath(path);
  const long* n = s.c.n;
  const long j = s.c.src[1];
  auto at = [&](long i, long k) { return static_cast<double>(u[static_cast<size_t>((i * n[1] + j) * n[2] + k)]); };
  double m = 0;
  for (long i = 0; i < n[0]; ++i)
    for (long k = 0; k < n[2]; ++k) m = std::max(m, std::abs(at(i, k)));
  const double scale = m > 0 ? 2.0 / m : 0.0;
  FILE* fp = std::fopen(out.c_str(), "wb");
  if (!fp) die("cannot write " + out);
  const long iface = s.layered ? (5 * n[0]) / 8 : -1;
  const bool ok = encodeImage(fp, n[0], n[2], [&](long i, unsigned char* rgb) {
    for (long k = 0; k < n[2]; ++k) {
      unsigned char* px = rgb + 3 * k;
      colour(at(i, k) * scale, px);
      const bool shell = i < kPml || i >= n[0] - kPml || k < kPml || k >= n[2] - kPml;
      if (i == iface)
        for (int c = 0; c < 3; ++c) px[c] = static_cast<unsigned char>(px[c] / 2 + 40);
      else if (shell)
        for (int c = 0; c < 3; ++c) px[c] = static_cast<unsigned char>(px[c] * 3 / 4);
    }
  });
  if (std::fclose(fp) != 0 || !ok) die(std::string("writing the ") + kImageKind + " " + out + " failed");
  return out;
}

// The interior of u as a NumPy .npy file (float32, C order, shape (ni, nj, nk)).
void writeNpy(const std::string& path, const Setup& s, const std::vector<real>& u) {
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + std::to_string(s.c.n[0]) + ", " +
                       std::to_string(s.c.n[1]) + ", " + std::to_string(s.c.n[2]) + "), }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  FILE* fp = std::fopen(path.c_str(), "wb");
  if (!fp) die("cannot write " + path);
  const unsigned char magic[8] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
  const unsigned short len = static_cast<unsigned short>(header.size());
  const unsigned char lenBytes[2] = {static_cast<unsigned char>(len & 0xff), static_cast<unsigned char>(len >> 8)};
  bool ok = std::fwrite(magic, 1, 8, fp) == 8 && std::fwrite(lenBytes, 1, 2, fp) == 2 &&
            std::fwrite(header.data(), 1, header.size(), fp) == header.size() &&
            std::fwrite(u.data(), sizeof(real), u.size(), fp) == u.size();
  ok = std::fclose(fp) == 0 && ok;
  if (!ok) die("failed writing " + path);
}

// ---- command line -------------------------------------------------------------------------------------
struct Options {
  Config c;
  std::string png, save;
  bool check = false, bench = false, compare = false, sizeGiven = false, stepsGiven = false, initGiven = false;
  long chunk = 10, warmup = 20;
};

void usage() {
  std::printf(
      "usage: acoustic [--n N | --size NIxNJxNK] [--steps S] [--init zero|random] [--model const|layers]\n"
      "                [--no-pml] [--cfl C] [--f0 HZ] [--source I,J,K] [--seed S] [--backend cpu|cuda] [--png FILE]\n"
      "                [--save FILE.npy] [--eta array|profiles]\n"
      "       acoustic --check [--backend cpu|cuda]\n"
      "       acoustic --compare [run options]       one case: stnc <backend> vs the reference, bit for bit\n"
      "       acoustic --bench [--n N] [--steps S] [--init random|zero] [--chunk C] [--warmup W] [--backend cpu|cuda]\n"
      "                [--eta array|profiles]\n"
      "--eta profiles runs stencil acoustic_sep (eta as three 1-D profiles, lower-rank fields; the same bits)\n"
      "grid sizes count every point, the %ld-cell PML shell on each side included; --png writes %s\n"
      "backends in this build: cpu%s (default %s)\n",
      kPml, ACOUSTIC_PNG ? "PNG" : "PPM (built with PNG=0: FILE.png -> FILE.ppm)", kHaveCuda ? ", cuda" : "",
      kHaveCuda ? "cuda" : "cpu");
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) die("missing value after " + a);
      return argv[++i];
    };
    auto number = [&](const std::string& v) {
      char* end = nullptr;
      const double d = std::strtod(v.c_str(), &end);
      if (end == v.c_str() || *end) die("bad number '" + v + "' after " + a);
      return d;
    };
    auto triple = [&](char sep, long* out) {
      const std::string v = value();
      size_t p = 0;
      for (int d = 0; d < 3; ++d) {
        const size_t q = d < 2 ? v.find(sep, p) : v.size();
        if (q == std::string::npos) die("expected three values separated by '" + std::string(1, sep) + "' after " + a);
        out[d] = static_cast<long>(number(v.substr(p, q - p)));
        p = q + 1;
      }
    };
    if (a == "--n") {
      const long n = static_cast<long>(number(value()));
      o.c.n[0] = o.c.n[1] = o.c.n[2] = n;
      o.sizeGiven = true;
    } else if (a == "--size") {
      triple('x', o.c.n);
      o.sizeGiven = true;
    } else if (a == "--steps") {
      o.c.steps = static_cast<long>(number(value()));
      o.stepsGiven = true;
    } else if (a == "--init") {
      o.c.init = value();
      o.initGiven = true;
    } else if (a == "--model") o.c.model = value();
    else if (a == "--no-pml") o.c.pml = false;
    else if (a == "--eta") o.c.eta = value();
    else if (a == "--cfl") o.c.cfl = number(value());
    else if (a == "--f0") o.c.f0 = number(value());
    else if (a == "--source") triple(',', o.c.src);
    else if (a == "--seed") o.c.seed = static_cast<std::uint64_t>(number(value()));
    else if (a == "--backend") o.c.backend = value();
    else if (a == "--png") o.png = value();
    else if (a == "--save") o.save = value();
    else if (a == "--check") o.check = true;
    else if (a == "--bench") o.bench = true;
    else if (a == "--compare") o.compare = true;
    else if (a == "--chunk") o.chunk = static_cast<long>(number(value()));
    else if (a == "--warmup") o.warmup = static_cast<long>(number(value()));
    else if (a == "-h" || a == "--help") {
      usage();
      std::exit(0);
    } else {
      usage();
      die("unknown option " + a);
    }
  }
  for (int d = 0; d < 3; ++d)
    if (o.c.n[d] < 2 * kPml + 1) die("every extent must be at least " + std::to_string(2 * kPml + 1) + " (PML + 1 inner point)");
  if (o.c.steps < 0) die("--steps must be >= 0");
  if (o.c.backend != "cpu" && o.c.backend != "cuda") die("--backend must be cpu or cuda");
  if (o.c.backend == "cuda" && !kHaveCuda) die("this binary was built without CUDA (build with `make GPU=1`)");
  if (o.c.init != "zero" && o.c.init != "random") die("--init must be zero or random");
  if (o.c.model != "const" && o.c.model != "layers") die("--model must be const or layers");
  if (o.c.eta != "array" && o.c.eta != "profiles") die("--eta must be array or profiles");
  if (!(o.c.cfl > 0 && o.c.cfl <= 1)) die("--cfl must be in (0, 1]");
  if (o.chunk < 1 || o.warmup < 0) die("--chunk must be >= 1 and --warmup >= 0");
  for (int d = 0; d < 3; ++d)
    if (o.c.src[d] >= o.c.n[d]) die("--source outside the grid");
  return o;
}

// The backend line (samples/common/backend.h); dies when the CUDA backend has no device.
std::string describeBackend(const std::string& backend) {
  std::string text, error;
  if (!::describeBackend(backend, text, error)) die(error);
  return text;
}

void printSetup(const char* tag, const Setup& s) {
  std::printf("%s: grid %s (h = %g m, %ld-cell PML%s), %ld steps of dt = %.4g ms, model %s (vmax %g m/s), "
              "init %s, Ricker %g Hz at (%ld, %ld, %ld)\n",
              tag, sizeText(s.c.n).c_str(), s.c.h, kPml,
              s.c.pml ? (s.profiles() ? "; eta as three 1-D profiles, stencil acoustic_sep" : "") : " switched off: eta = 0", s.c.steps,
              s.dt * 1e3, s.c.model.c_str(), s.vmax, s.c.init.c_str(), s.c.f0, s.c.src[0], s.c.src[1], s.c.src[2]);
}

// ---- --check -----------------------------------------------------------------------------------------
struct CheckCase {
  std::string what;
  Config c;
  bool cudaVsCpu;  // false: stnc <backend> vs the reference
};

bool runCase(const CheckCase& cc, const std::string& backend) {
  const Setup s(cc.c, cc.c.steps);
  Fields a, b;
  double ta = 0, tb = 0;
  if (cc.cudaVsCpu) {  // against the CPU kernels of acoustic (the 3-D eta array) whichever stencil runs on CUDA
    a = runStnc(s, "cuda", &ta);
    Config ca = cc.c;
    ca.eta = "array";
    b = runStnc(Setup(ca, ca.steps), "cpu", &tb);
  } else {
    a = runStnc(s, backend, &ta);
    const auto r0 = std::chrono::steady_clock::now();
    b = reference(s);
    tb = std::chrono::duration<double>(std::chrono::steady_clock::now() - r0).count();
  }
  const Diff du = compare(a.u, b.u), dv = compare(a.v, b.v), dp = compare(a.phi, b.phi);
  const long bad = du.mismatches + dv.mismatches + dp.mismatches;
  const double md = std::max({du.maxDiff, dv.maxDiff, dp.maxDiff});
  const bool finite = du.finite && dv.finite && dp.finite;
  const double mu = maxAbs(a.u), mp = maxAbs(a.phi);
  // The run must do something: the field moves (random init) or the source arrived (zero init), and the
  // PML's phi is non-zero once a wave has reached the shell.
  const bool alive = mu > 0 && (mp > 0 || !s.c.pml);
  const bool ok = bad == 0 && finite && alive;
  std::printf("  %-38s %-12s %5ld  %-6s  %10ld  %9.3g  %9.3g %9.3g  %6.2f %6.2f  %s\n", cc.what.c_str(),
              sizeText(s.c.n).c_str(), s.c.steps, s.c.init.c_str(), bad, md, mu, mp, ta, tb,
              ok ? "ok" : (bad ? "MISMATCH" : (!finite ? "NOT FINITE" : "NO SIGNAL")));
  return ok;
}

void checkHeader(const std::string& backend) {
  std::printf("acoustic --check: 8th-order 25-point acoustic leapfrog, %ld-cell PML (Minimod target_pml_3d), f32, "
              "backend %s\n", kPml, describeBackend(backend).c_str());
  std::printf("every case compares u, v and phi bit for bit (u: newest field, v: the previous one)\n");
  std::printf("  %-38s %-12s %5s  %-6s  %10s  %9s  %9s %9s  %6s %6s\n", "case", "grid", "steps", "init",
              "mismatches", "max|diff|", "max|u|", "max|phi|", "t1 [s]", "t2 [s]");
}

// --compare: one case with the options given (stnc <backend> vs the reference).
int compareOne(const Options& o) {
  checkHeader(o.c.backend);
  const bool ok = runCase({"stnc " + o.c.backend + " vs reference", o.c, false}, o.c.backend);
  std::printf("acoustic --compare: %s\n", ok ? "PASSED (bitwise equal)" : "FAILED");
  return ok ? 0 : 1;
}

int check(const Options& o) {
  const std::string backend = o.c.backend;
  checkHeader(backend);
  std::vector<CheckCase> cases;
  Config c;
  c.n[0] = c.n[1] = c.n[2] = 64;
  c.steps = 200;
  c.init = "random";
  cases.push_back({"stnc " + backend + " vs reference", c, false});
  Config z = c;  // non-cubic (axis mix-ups), zero fields, an off-centre source, the const model
  z.n[0] = 60, z.n[1] = 64, z.n[2] = 72;
  z.init = "zero";
  z.model = "const";
  z.src[0] = 27, z.src[1] = 35, z.src[2] = 40;  // on the first inner plane along i
  z.steps = 201;                                 // odd: CUDA's step() ends with a step outside its graph
  cases.push_back({"stnc " + backend + " vs reference", z, false});
  if (backend == "cuda") {
    Config g = c;  // many steps on a larger, non-cubic grid: CUDA == CPU kernels
    g.n[0] = 128, g.n[1] = 120, g.n[2] = 112;
    g.steps = 1000;
    cases.push_back({"stnc cuda vs stnc cpu", g, true});
    g.init = "zero";
    g.steps = 999;
    g.src[0] = 40, g.src[1] = 70, g.src[2] = 60;
    cases.push_back({"stnc cuda vs stnc cpu", g, true});
  }
  // The same solver with eta as three lower-rank profiles (stencil acoustic_sep): the same bits (both
  // reference cases, and on CUDA the first 1000-step case against the CPU kernels of the 3-D eta array).
  for (size_t i = 0, n = std::min<size_t>(cases.size(), 3); i < n; ++i) {
    CheckCase p = cases[i];
    p.c.eta = "profiles";
    p.what = (p.cudaVsCpu ? "stnc cuda (eta profiles) vs cpu" : "stnc " + backend + " (eta profiles) vs reference");
    cases.push_back(p);
  }
  bool ok = true;
  for (const CheckCase& cc : cases) ok = runCase(cc, backend) && ok;
  std::printf("acoustic --check: %s\n", ok ? "PASSED (bitwise equal)" : "FAILED");
  return ok ? 0 : 1;
}

// ---- one run ------------------------------------------------------------------------------------------
int single(const Options& o) {
  const Setup s(o.c, o.c.steps);
  printSetup("acoustic", s);
  std::printf("acoustic: backend %s\n", describeBackend(o.c.backend).c_str());
  double seconds = 0;
  const Fields f = runStnc(s, o.c.backend, &seconds);
  const double updates = static_cast<double>(s.points()) * static_cast<double>(s.c.steps);
  std::printf("acoustic: %.3f s for %ld steps, %.3f Gpts/s (step() call, including its setup)\n", seconds, s.c.steps,
              seconds > 0 ? updates / seconds * 1e-9 : 0.0);
  double ei = 0, es = 0;
  energies(s, f.u, &ei, &es);
  std::printf("acoustic: max|u| %.6g, sum u^2: inner region %.6g, PML shell %.6g; max|phi| %.6g\n", maxAbs(f.u), ei, es,
              maxAbs(f.phi));
  if (!o.save.empty()) {
    writeNpy(o.save, s, f.u);
    std::printf("acoustic: wrote %s (u, float32, shape %s)\n", o.save.c_str(), sizeText(s.c.n).c_str());
  }
  if (!o.png.empty()) {
    const std::string out = writeImage(o.png, s, f.u);
    std::printf("acoustic: wrote %s (%s, plane j = %ld: rows i, columns k; PML dimmed)\n", out.c_str(), kImageKind,
                s.c.src[1]);
  }
  return 0;
}

// ---- --bench ------------------------------------------------------------------------------------------
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n == 0 ? 0.0 : n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int bench(Options o) {
  if (!o.sizeGiven) o.c.n[0] = o.c.n[1] = o.c.n[2] = 800;
  if (!o.stepsGiven) o.c.steps = 1000;
  if (!o.initGiven) o.c.init = "random";
  const long chunks = (o.c.steps + o.chunk - 1) / o.chunk;
  const long total = o.warmup + chunks * o.chunk;
  const Setup s(o.c, total);
  const stnc_rt::Layout L = makeLayout(s);
  const double fieldGiB = static_cast<double>(L.count * sizeof(real)) / (1u << 30);
  printSetup("acoustic --bench", s);
  const int arrays = s.profiles() ? 4 : 5;  // --eta profiles: no 3-D eta (its three profiles are n + 8 floats each)
  std::printf("acoustic --bench: backend %s; %d fields of %.2f GiB (array %ldx%ldx%ld incl. halo and padding) = %.2f GiB\n",
              describeBackend(o.c.backend).c_str(), arrays, fieldGiB, L.dim[0], L.dim[1], L.dim[2], arrays * fieldGiB);
  std::printf("acoustic --bench: %ld warm-up steps, then %ld x step(%ld) timed one call at a time\n", o.warmup, chunks,
              o.chunk);
  const double pts = static_cast<double>(s.points());
  const double inner = static_cast<double>(s.innerPoints());
  // Compulsory traffic: inner u, roc2 read, v read + written (16 B); shell also eta, phi read, phi written (28 B;
  // 24 B with --eta profiles, whose reads are per plane, row and column, not per point).
  const double bytesPerStep = inner * 16 + (pts - inner) * (s.profiles() ? 24 : 28);
  std::vector<double> ms;  // per call
  double innerMs = 0, fullMs = 0, b2bMs = 0;
  std::vector<real> u;
  const auto t0 = std::chrono::steady_clock::now();
  std::unique_ptr<HostFields> h = std::make_unique<HostFields>(L, s);
  auto setupDone = [&] {
    std::printf("acoustic --bench: setup (host init%s) %.1f s\n", o.c.backend == "cuda" ? " + upload" : "",
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  };
  if (o.c.backend == "cpu") {
    setupDone();
    real *pu = h->u.p, *pv = h->v.p;
    auto run = [&](long steps, long offset) {
      const int st = cpuStep(s, L, steps, pu, pv, *h, s.wavelet.data() + offset);
      if (st != stnc_rt::kOk) die(std::string("cpu::step failed: ") + stnc_rt::statusName(st));
    };
    run(o.warmup, 0);
    for (long c = 0; c < chunks; ++c) {
      const auto a = std::chrono::steady_clock::now();
      run(o.chunk, o.warmup + c * o.chunk);
      ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count());
    }
    extract(L, pu, u);
  } else {
#if defined(STNC_WITH_CUDA)
    DeviceFields d(L, s);
    d.upload(*h);
    h.reset();  // the host copies are not needed any more (800^3: 11 GiB)
    DeviceVector w(s.wavelet);
    setupDone();
    auto run = [&](long steps, long offset) {
      cuOk(cudaStep(s, L, steps, d, w.p + offset), "cuda::step");
    };
    run(o.warmup, 0);
    std::vector<cudaEvent_t> ev(static_cast<size_t>(chunks + 1));
    for (cudaEvent_t& e : ev) cuOk(cudaEventCreate(&e), "cudaEventCreate");
    cuOk(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    for (long c = 0; c < chunks; ++c) {
      cuOk(cudaEventRecord(ev[static_cast<size_t>(c)], 0), "cudaEventRecord");
      run(o.chunk, o.warmup + c * o.chunk);
    }
    cuOk(cudaEventRecord(ev[static_cast<size_t>(chunks)], 0), "cudaEventRecord");
    cuOk(cudaEventSynchronize(ev[static_cast<size_t>(chunks)]), "cudaEventSynchronize");
    for (long c = 0; c < chunks; ++c) {
      float t = 0;
      cuOk(cudaEventElapsedTime(&t, ev[static_cast<size_t>(c)], ev[static_cast<size_t>(c + 1)]), "cudaEventElapsedTime");
      ms.push_back(t);
    }
    // Breakdown: single sweeps (no source, no swap) of the whole grid and of the inner region alone.
    const long lo[3] = {kPml, kPml, kPml};
    const long hi[3] = {s.c.n[0] - kPml, s.c.n[1] - kPml, s.c.n[2] - kPml};
    auto timeSweeps = [&](bool innerOnly) {
      std::vector<double> t;
      cudaEvent_t a, b;
      cuOk(cudaEventCreate(&a), "cudaEventCreate");
      cuOk(cudaEventCreate(&b), "cudaEventCreate");
      for (int r = 0; r < 12; ++r) {
        cuOk(cudaEventRecord(a, 0), "cudaEventRecord");
        cuOk(innerOnly ? cudaSweep(s, L, d, lo, hi) : cudaSweep(s, L, d), "cuda::sweep");
        cuOk(cudaEventRecord(b, 0), "cudaEventRecord");
        cuOk(cudaEventSynchronize(b), "cudaEventSynchronize");
        float x = 0;
        cuOk(cudaEventElapsedTime(&x, a, b), "cudaEventElapsedTime");
        if (r >= 2) t.push_back(x);
      }
      cudaEventDestroy(a);
      cudaEventDestroy(b);
      return median(t);
    };
    u.resize(static_cast<size_t>(s.points()));
    {
      HostArray hu(L.count);
      cuOk(cudaMemcpy(hu.p, d.u, d.bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
      extract(L, hu.p, u);
    }
    fullMs = timeSweeps(false);
    innerMs = timeSweeps(true);
    // The same sweep 200 times back to back (one event pair, no synchronisation between sweeps): the GPU
    // runs as hot as in the step loop, so (b2b - one sweep) is what sustained power costs and
    // (step - b2b) what the step adds (source kernel, swaps, graph replay).
    {
      cudaEvent_t a, b;
      cuOk(cudaEventCreate(&a), "cudaEventCreate");
      cuOk(cudaEventCreate(&b), "cudaEventCreate");
      const int reps = 200;
      cuOk(cudaEventRecord(a, 0), "cudaEventRecord");
      for (int r = 0; r < reps; ++r)
        cuOk(cudaSweep(s, L, d), "cuda::sweep");
      cuOk(cudaEventRecord(b, 0), "cudaEventRecord");
      cuOk(cudaEventSynchronize(b), "cudaEventSynchronize");
      float x = 0;
      cuOk(cudaEventElapsedTime(&x, a, b), "cudaEventElapsedTime");
      b2bMs = x / reps;
      cudaEventDestroy(a);
      cudaEventDestroy(b);
    }
    for (cudaEvent_t& e : ev) cudaEventDestroy(e);
#else
    die("this binary was built without CUDA (build with `make GPU=1`)");
#endif
  }
  h.reset();
  double sum = 0;
  for (double x : ms) sum += x;
  const double med = median(ms) / static_cast<double>(o.chunk);
  const double mean = sum / static_cast<double>(chunks * o.chunk);
  const double mn = *std::min_element(ms.begin(), ms.end()) / static_cast<double>(o.chunk);
  const double mx = *std::max_element(ms.begin(), ms.end()) / static_cast<double>(o.chunk);
  bool finite = true;
  for (real x : u) finite = finite && std::isfinite(x);
  std::printf("acoustic --bench: per step, call by call (ms):");
  for (double x : ms) std::printf(" %.3f", x / static_cast<double>(o.chunk));
  std::printf("\n");
  std::printf("acoustic --bench: per step: median %.4f ms, mean %.4f ms, min %.4f ms, max %.4f ms\n", med, mean, mn, mx);
  std::printf("acoustic --bench: %.2f Gpts/s (median), %.2f Gpts/s (mean); %.0f GB/s compulsory traffic (median)\n",
              pts / med * 1e-6, pts / mean * 1e-6, bytesPerStep / med * 1e-6);
  if (fullMs > 0)
    std::printf("acoustic --bench: one sweep (no source): whole grid %.4f ms = %.2f Gpts/s; inner region alone "
                "%.4f ms = %.2f Gpts/s of its %.0f points; PML shell (difference) %.4f ms for %.0f points\n",
                fullMs, pts / fullMs * 1e-6, innerMs, inner / innerMs * 1e-6, inner, fullMs - innerMs, pts - inner);
  if (b2bMs > 0)
    std::printf("acoustic --bench: 200 sweeps back to back: %.4f ms per sweep = %.2f Gpts/s (sustained power)\n", b2bMs,
                pts / b2bMs * 1e-6);
  std::printf("acoustic --bench: final max|u| %.6g, %s\n", maxAbs(u), finite ? "finite" : "NOT FINITE");
  std::printf("RESULT backend=%s eta=%s grid=%s init=%s steps=%ld chunk=%ld median_ms=%.4f mean_ms=%.4f gpts_median=%.2f "
              "gpts_mean=%.2f sweep_ms=%.4f inner_sweep_ms=%.4f b2b_sweep_ms=%.4f finite=%d\n",
              o.c.backend.c_str(), o.c.eta.c_str(), sizeText(s.c.n).c_str(), s.c.init.c_str(), chunks * o.chunk, o.chunk, med, mean,
              pts / med * 1e-6, pts / mean * 1e-6, fullMs, innerMs, b2bMs, finite ? 1 : 0);
  return finite ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  if (o.check) return check(o);
  if (o.bench) return bench(o);
  if (o.compare) return compareOne(o);
  return single(o);
}
