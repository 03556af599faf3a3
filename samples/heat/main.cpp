// samples/heat/main.cpp — the heat equation u_t = nu * lap(u) on the periodic box [0, 2*pi)^d,
// stepped by the kernels stnc generates from heat.stn (stn::heat2d, stn::heat3d in heat.h).
//
//   heat [--dim 2|3] [--n N] [--steps S] [--cfl C] [--nu NU] [--init blobs|sine]
//        [--backend cpu|cuda] [--png FILE] [--save FILE.npy]     one run, prints timing, writes an image
//   heat --check [--backend cpu|cuda] [--png FILE]               convergence study (make check)
//   mpirun -np P heat [one-run options] [--verify]               the MPI build (make MPI=1): the same run
//        distributed over P ranks (stn::heat3d::mpi::cpu::step, from heat_mpi.h); --verify also runs it
//        in one process on rank 0 and exits 1 unless the two results are bit-identical
//
// Images: with libpng (make PNG=1, the default when png.h is found) --png writes a PNG; without it
// (PNG=0) the same picture goes to a binary PPM (P6) next to it: FILE.png -> FILE.ppm.
// --save writes the final interior field as a float64 .npy (shape n x n or n x n x n).
//
// --check runs the sine mode u = exp(-nu*|k|^2*t) * sin(x) sin(y) [sin(z)] (|k|^2 = d) to a fixed
// time T at three resolutions with dt proportional to h^2 (constant nu*dt/h^2), prints the max-norm
// errors against the analytic solution and the observed orders, and exits 1 unless every order lies
// in [--order-min, --order-max] (default 1.8 .. 2.2; the scheme is 2nd order in h). Built with
// CUDA (make GPU=1), --check also runs the CPU kernels and requires bit-identical results.
//
// The generated launcher API used here (see heat.h):
//   stnc_rt::Layout L = stn::heat3d::layout(n, n, n);      allocate L.count doubles per field
//   stn::heat3d::index(L, i, j, k)                          element index of interior point (i, j, k)
//   stn::heat3d::cpu::step(L, steps, u, unew, nu, dt, rdx2) fills u's halo, sweeps, swaps; returns a
//                                                           stnc_rt::Status and leaves the result in u
//   stn::heat3d::cuda::step(...)                            the same on device pointers (cudaError_t)
#include "heat.h"
#if defined(HEAT_MPI)
#include "heat_mpi.h"  // stnc --distributed: stn::heat2d::mpi, stn::heat3d::mpi
#endif

#if !defined(HEAT_PNG)
#define HEAT_PNG 1
#endif
#define STNC_SAMPLE_PNG HEAT_PNG
#include "../common/backend.h"   // kHaveCuda, dieAs, describeBackend
#include "../common/image_io.h"  // encodeImage, kImageKind, imagePath (PNG or PPM)
#if defined(_OPENMP)
#include <omp.h>
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kLength = 2 * kPi;  // the periodic box is [0, 2*pi) along every axis

#if defined(HEAT_MPI)
constexpr bool kHaveMpi = true;
#else
constexpr bool kHaveMpi = false;
#endif

[[noreturn]] void die(const std::string& msg) { dieAs("heat", msg); }

// ---- the two kernels behind one interface ---------------------------------------------------------
// Points are addressed as (a, b, c) with a = 0 in 2-D (heat2d's axes i, j are b, c here).
struct Kernel {
  int dim;
  stnc_rt::Layout (*layout)(long n);
  long (*index)(const stnc_rt::Layout& L, long a, long b, long c);
  int (*cpuStep)(const stnc_rt::Layout& L, long steps, double*& u, double*& unew, double nu, double dt, double rdx2);
#if defined(STNC_WITH_CUDA)
  cudaError_t (*cudaStep)(const stnc_rt::Layout& L, long steps, double*& u, double*& unew, double nu, double dt,
                          double rdx2);
#endif
#if defined(HEAT_MPI)
  int (*makeDomain)(MPI_Comm comm, long n, stnc_mpi::Domain& D);
  int (*mpiStep)(stnc_mpi::Domain& D, long steps, double*& u, double*& unew, double nu, double dt, double rdx2);
  int (*gather)(const stnc_mpi::Domain& D, int root, const double* local, double* global);
  int (*scatter)(const stnc_mpi::Domain& D, int root, const double* global, double* local);
#endif
};

const Kernel kHeat2d{
    2,
    [](long n) { return stn::heat2d::layout(n, n); },
    [](const stnc_rt::Layout& L, long, long b, long c) { return stn::heat2d::index(L, b, c); },
    [](const stnc_rt::Layout& L, long s, double*& u, double*& un, double nu, double dt, double r) {
      return stn::heat2d::cpu::step(L, s, u, un, nu, dt, r);
    },
#if defined(STNC_WITH_CUDA)
    [](const stnc_rt::Layout& L, long s, double*& u, double*& un, double nu, double dt, double r) {
      return stn::heat2d::cuda::step(L, s, u, un, nu, dt, r);
    },
#endif
#if defined(HEAT_MPI)
    [](MPI_Comm comm, long n, stnc_mpi::Domain& D) { return stn::heat2d::mpi::make_domain(comm, n, n, D); },
    [](stnc_mpi::Domain& D, long s, double*& u, double*& un, double nu, double dt, double r) {
      return stn::heat2d::mpi::cpu::step(D, s, u, un, nu, dt, r);
    },
    [](const stnc_mpi::Domain& D, int root, const double* l, double* g) { return stn::heat2d::mpi::gather(D, root, l, g); },
    [](const stnc_mpi::Domain& D, int root, const double* g, double* l) { return stn::heat2d::mpi::scatter(D, root, g, l); },
#endif
};

const Kernel kHeat3d{
    3,
    [](long n) { return stn::heat3d::layout(n, n, n); },
    [](const stnc_rt::Layout& L, long a, long b, long c) { return stn::heat3d::index(L, a, b, c); },
    [](const stnc_rt::Layout& L, long s, double*& u, double*& un, double nu, double dt, double r) {
      return stn::heat3d::cpu::step(L, s, u, un, nu, dt, r);
    },
#if defined(STNC_WITH_CUDA)
    [](const stnc_rt::Layout& L, long s, double*& u, double*& un, double nu, double dt, double r) {
      return stn::heat3d::cuda::step(L, s, u, un, nu, dt, r);
    },
#endif
#if defined(HEAT_MPI)
    [](MPI_Comm comm, long n, stnc_mpi::Domain& D) { return stn::heat3d::mpi::make_domain(comm, n, n, n, D); },
    [](stnc_mpi::Domain& D, long s, double*& u, double*& un, double nu, double dt, double r) {
      return stn::heat3d::mpi::cpu::step(D, s, u, un, nu, dt, r);
    },
    [](const stnc_mpi::Domain& D, int root, const double* l, double* g) { return stn::heat3d::mpi::gather(D, root, l, g); },
    [](const stnc_mpi::Domain& D, int root, const double* g, double* l) { return stn::heat3d::mpi::scatter(D, root, g, l); },
#endif
};

// ---- one run ----------------------------------------------------------------------------------------
using InitFn = std::function<double(double x, double y, double z)>;  // 2-D: z unused

struct Problem {
  const Kernel* kernel;
  long n;        // points per axis; h = 2*pi / n
  long steps;
  double nu, dt;
  std::string backend;  // cpu | cuda
  bool warmup = false;  // cuda: one untimed 4-step call first (module loading, graph path)
};

struct Result {
  std::vector<double> field;  // interior values, row-major (a, b, c); a has extent 1 in 2-D
  double seconds = 0;         // time of the step call (including the device synchronisation)
  size_t bytesPerField = 0;
  double initialSum = 0, initialAbsSum = 0;  // sums of u0 and |u0| over the interior
};

struct HostArray {
  double* p = nullptr;
  explicit HostArray(size_t count) {
    const size_t bytes = (count * sizeof(double) + 127) / 128 * 128;
    p = static_cast<double*>(std::aligned_alloc(128, bytes));
    if (!p) die("out of host memory");
    std::memset(p, 0, bytes);
  }
  ~HostArray() { std::free(p); }
  HostArray(const HostArray&) = delete;
  HostArray& operator=(const HostArray&) = delete;
};

long extentA(const Problem& pb) { return pb.kernel->dim == 3 ? pb.n : 1; }

// The initial field at the interior points of an array of layout L (halo cells are left as they are).
void fillInitial(const Problem& pb, const InitFn& init, const stnc_rt::Layout& L, double* u) {
  const Kernel& K = *pb.kernel;
  const double h = kLength / static_cast<double>(pb.n);
  const long na = extentA(pb), n = pb.n;
#pragma omp parallel for collapse(2) schedule(static)
  for (long a = 0; a < na; ++a)
    for (long b = 0; b < n; ++b)
      for (long c = 0; c < n; ++c) u[K.index(L, a, b, c)] = K.dim == 3 ? init(a * h, b * h, c * h) : init(b * h, c * h, 0.0);
}

// The interior of an array of layout L as a dense row-major (a, b, c) vector.
std::vector<double> interiorOf(const Problem& pb, const stnc_rt::Layout& L, const double* u) {
  const Kernel& K = *pb.kernel;
  const long na = extentA(pb), n = pb.n;
  std::vector<double> f(static_cast<size_t>(na * n * n));
#pragma omp parallel for collapse(2) schedule(static)
  for (long a = 0; a < na; ++a)
    for (long b = 0; b < n; ++b)
      for (long c = 0; c < n; ++c) f[static_cast<size_t>((a * n + b) * n + c)] = u[K.index(L, a, b, c)];
  return f;
}

Result run(const Problem& pb, const InitFn& init) {
  const Kernel& K = *pb.kernel;
  const stnc_rt::Layout L = K.layout(pb.n);
  if (L.count == 0) die("bad grid size " + std::to_string(pb.n));
  const double h = kLength / static_cast<double>(pb.n);
  const double rdx2 = 1.0 / (h * h);
  const long na = extentA(pb), n = pb.n;

  // Both buffers of the swap pair start as the initial field; the halos are filled by step().
  HostArray u(L.count), unew(L.count);
  fillInitial(pb, init, L, u.p);
  std::memcpy(unew.p, u.p, L.count * sizeof(double));

  Result r;
  long double sum = 0, absSum = 0;
  for (long a = 0; a < na; ++a)
    for (long b = 0; b < n; ++b)
      for (long c = 0; c < n; ++c) {
        sum += u.p[K.index(L, a, b, c)];
        absSum += std::abs(u.p[K.index(L, a, b, c)]);
      }
  r.initialSum = static_cast<double>(sum);
  r.initialAbsSum = static_cast<double>(absSum);
  r.bytesPerField = L.count * sizeof(double);
  const double* final = nullptr;
  double* pu = u.p;
  double* pun = unew.p;
  if (pb.backend == "cpu") {
    const auto t0 = std::chrono::steady_clock::now();
    const int s = K.cpuStep(L, pb.steps, pu, pun, pb.nu, pb.dt, rdx2);
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (s != stnc_rt::kOk) die(std::string("cpu::step failed: ") + stnc_rt::statusName(s));
    final = pu;  // step() leaves the latest field in the role `u`
  } else {
#if defined(STNC_WITH_CUDA)
    auto ok = [](cudaError_t e, const char* what) {
      if (e != cudaSuccess) die(std::string(what) + ": " + cudaGetErrorString(e));
    };
    double *du = nullptr, *dun = nullptr;  // cudaMalloc: 256-byte aligned (the API needs 128)
    ok(cudaMalloc(&du, r.bytesPerField), "cudaMalloc");
    ok(cudaMalloc(&dun, r.bytesPerField), "cudaMalloc");
    ok(cudaMemcpy(du, u.p, r.bytesPerField, cudaMemcpyHostToDevice), "cudaMemcpy");
    ok(cudaMemcpy(dun, unew.p, r.bytesPerField, cudaMemcpyHostToDevice), "cudaMemcpy");
    double* const allocated[2] = {du, dun};
    if (pb.warmup) {
      ok(K.cudaStep(L, 4, du, dun, pb.nu, pb.dt, rdx2), "cuda::step (warm-up)");
      ok(cudaMemcpy(allocated[0], u.p, r.bytesPerField, cudaMemcpyHostToDevice), "cudaMemcpy");
      ok(cudaMemcpy(allocated[1], unew.p, r.bytesPerField, cudaMemcpyHostToDevice), "cudaMemcpy");
      du = allocated[0];
      dun = allocated[1];
    }
    ok(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    const auto t0 = std::chrono::steady_clock::now();
    ok(K.cudaStep(L, pb.steps, du, dun, pb.nu, pb.dt, rdx2), "cuda::step");
    ok(cudaDeviceSynchronize(), "cuda::step (synchronize)");
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ok(cudaMemcpy(u.p, du, r.bytesPerField, cudaMemcpyDeviceToHost), "cudaMemcpy");
    cudaFree(allocated[0]);
    cudaFree(allocated[1]);
    final = u.p;
#else
    die("this binary was built without CUDA (build with `make GPU=1`)");
#endif
  }
  r.field = interiorOf(pb, L, final);
  return r;
}

// ---- images: PNG (libpng) or, without libpng, binary PPM -------------------------------------------
// A perceptual dark-to-bright ramp (approximately matplotlib's 'inferno').
void colour(double t, unsigned char* rgb) {
  static const double stops[][3] = {{0, 0, 4},      {40, 11, 84},   {101, 21, 110}, {159, 42, 99},
                                    {212, 72, 66},  {245, 125, 21}, {250, 193, 39}, {252, 255, 164}};
  const int m = sizeof stops / sizeof stops[0] - 1;
  t = std::clamp(t, 0.0, 1.0) * m;
  const int i = std::min(static_cast<int>(t), m - 1);
  const double f = t - i;
  for (int c = 0; c < 3; ++c)
    rgb[c] = static_cast<unsigned char>(std::lround(stops[i][c] + f * (stops[i + 1][c] - stops[i][c])));
}


// Writes rows x cols values (row-major) as an RGB image, scaled from [min, max] to the ramp; returns
// the path written (imagePath(path)).
std::string writeImage(const std::string& path, const double* v, long rows, long cols) {
  const std::string out = imagePath(path);
  const auto [lo, hi] = std::minmax_element(v, v + rows * cols);
  const double base = *lo, scale = *hi > *lo ? 1.0 / (*hi - *lo) : 0.0;
  FILE* fp = std::fopen(out.c_str(), "wb");
  if (!fp) die("cannot write " + out);
  const bool ok = encodeImage(fp, rows, cols, [&](long r, unsigned char* rgb) {
    for (long j = 0; j < cols; ++j) colour((v[r * cols + j] - base) * scale, rgb + 3 * j);
  });
  if (std::fclose(fp) != 0 || !ok) die(std::string("writing the ") + kImageKind + " " + out + " failed");
  return out;
}

// The final field as a float64 .npy (NumPy format 1.0, C order): n x n (2-D) or n x n x n (3-D).
void saveNpy(const std::string& path, int dim, long n, const std::vector<double>& field) {
  std::string header = "{'descr': '<f8', 'fortran_order': False, 'shape': (" + std::to_string(n) + ", " + std::to_string(n) +
                       (dim == 3 ? ", " + std::to_string(n) : std::string()) + "), }";
  const size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  FILE* fp = std::fopen(path.c_str(), "wb");
  if (!fp) die("cannot write " + path);
  const unsigned char magic[8] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
  const unsigned short len = static_cast<unsigned short>(header.size());
  const unsigned char lenBytes[2] = {static_cast<unsigned char>(len & 0xff), static_cast<unsigned char>(len >> 8)};
  bool ok = std::fwrite(magic, 1, 8, fp) == 8 && std::fwrite(lenBytes, 1, 2, fp) == 2 &&
            std::fwrite(header.data(), 1, header.size(), fp) == header.size() &&
            std::fwrite(field.data(), sizeof(double), field.size(), fp) == field.size();
  if (std::fclose(fp) != 0 || !ok) die("writing " + path + " failed");
}

// 2-D: the whole field; 3-D: the plane through the middle of the first axis. Returns the path written.
std::string writeFieldImage(const std::string& path, const Problem& pb, const Result& r) {
  const long n = pb.n;
  const long a = pb.kernel->dim == 3 ? n / 2 : 0;
  return writeImage(path, r.field.data() + a * n * n, n, n);
}

// ---- initial conditions -----------------------------------------------------------------------------
double sineMode(int dim, double x, double y, double z) {
  return std::sin(x) * std::sin(y) * (dim == 3 ? std::sin(z) : 1.0);
}

// A few Gaussian blobs (periodic distance), positive and negative: a picture worth looking at.
// 3-D centres sit near the middle plane x = pi (the plane the PNG shows); 2-D uses their (y, z).
double blobs(int dim, double x, double y, double z) {
  static const double c[][5] = {  // centre x, y, z, width, amplitude
      {3.0, 1.5, 2.0, 0.35, 1.0}, {3.4, 4.2, 1.2, 0.5, 0.8}, {3.1, 3.3, 4.6, 0.25, -0.9},
      {2.8, 5.4, 5.2, 0.6, 0.6},  {3.6, 2.4, 3.6, 0.3, 0.7}, {3.2, 1.0, 5.0, 0.4, -0.5}};
  auto d = [](double p, double q) { return std::remainder(p - q, kLength); };
  double s = 0;
  for (const auto& b : c) {
    double r2 = dim == 3 ? d(x, b[0]) * d(x, b[0]) + d(y, b[1]) * d(y, b[1]) + d(z, b[2]) * d(z, b[2])
                         : d(x, b[1]) * d(x, b[1]) + d(y, b[2]) * d(y, b[2]);
    s += b[4] * std::exp(-r2 / (2 * b[3] * b[3]));
  }
  return s;
}

// ---- command line -----------------------------------------------------------------------------------
struct Options {
  int dim = 3;
  long n = 128;
  long steps = 200;
  double nu = 1.0;
  double cfl = -1;  // nu*dt/h^2; default 80% of the stability limit 1/(2*dim)
  std::string init = "blobs";
  std::string backend = kHaveCuda && !kHaveMpi ? "cuda" : "cpu";
  std::string png;
  std::string save;
  bool check = false;
  bool verify = false;
  double orderMin = 1.8, orderMax = 2.2;
};

void usage() {
  std::printf(
      "usage: heat [--dim 2|3] [--n N] [--steps S] [--cfl C] [--nu NU] [--init blobs|sine]\n"
      "            [--backend cpu|cuda] [--png FILE] [--save FILE.npy]\n"
      "       heat --check [--backend cpu|cuda] [--png FILE] [--order-min P] [--order-max P]\n"
      "       mpirun -np P heat [one-run options] [--verify]     (MPI build, make MPI=1; cpu backend)\n"
      "backends in this build: cpu%s (default %s); images: %s%s\n",
      kHaveCuda ? ", cuda" : "", kHaveCuda ? "cuda" : "cpu", kImageKind, kHaveMpi ? "; MPI build" : "");
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) die("missing value after " + a);
      return argv[++i];
    };
    auto number = [&]() {
      const std::string v = value();
      char* end = nullptr;
      const double d = std::strtod(v.c_str(), &end);
      if (end == v.c_str() || *end) die("bad number '" + v + "' after " + a);
      return d;
    };
    if (a == "--dim") o.dim = static_cast<int>(number());
    else if (a == "--n") o.n = static_cast<long>(number());
    else if (a == "--steps") o.steps = static_cast<long>(number());
    else if (a == "--cfl") o.cfl = number();
    else if (a == "--nu") o.nu = number();
    else if (a == "--init") o.init = value();
    else if (a == "--backend") o.backend = value();
    else if (a == "--png") o.png = value();
    else if (a == "--save") o.save = value();
    else if (a == "--verify") o.verify = true;
    else if (a == "--check") o.check = true;
    else if (a == "--order-min") o.orderMin = number();
    else if (a == "--order-max") o.orderMax = number();
    else if (a == "-h" || a == "--help") {
      usage();
      std::exit(0);
    } else {
      usage();
      die("unknown option " + a);
    }
  }
  if (o.dim != 2 && o.dim != 3) die("--dim must be 2 or 3");
  if (o.n < 4) die("--n must be at least 4");
  if (o.steps < 0) die("--steps must be >= 0");
  if (o.backend != "cpu" && o.backend != "cuda") die("--backend must be cpu or cuda");
  if (o.backend == "cuda" && !kHaveCuda) die("this binary was built without CUDA (build with `make GPU=1`)");
  if (o.init != "blobs" && o.init != "sine") die("--init must be blobs or sine");
  if (kHaveMpi && o.check) die("--check is not part of the MPI build (use the plain build: make check)");
  if (kHaveMpi && o.backend != "cpu") die("the MPI build runs the cpu backend (--backend cpu)");
  if (!kHaveMpi && o.verify) die("--verify belongs to the MPI build (make MPI=1)");
  if (o.cfl < 0) o.cfl = 0.8 / (2 * o.dim);
  return o;
}

// The backend line (samples/common/backend.h); dies when the CUDA backend has no device.
std::string describeBackend(const std::string& backend) {
  std::string text, error;
  if (!::describeBackend(backend, text, error)) die(error);
  return text;
}

std::string pngPath(const std::string& base, const std::string& suffix) {
  const size_t dot = base.rfind(".png");
  return dot != std::string::npos && dot + 4 == base.size() ? base.substr(0, dot) + suffix + ".png"
                                                            : base + suffix + ".png";
}

// ---- convergence check ------------------------------------------------------------------------------
struct Level {
  long n, steps;
};

bool convergence(const Options& o, int dim, double T, const std::vector<Level>& levels) {
  const Kernel* K = dim == 3 ? &kHeat3d : &kHeat2d;
  const double k2 = dim;  // |k|^2 of sin(x) sin(y) [sin(z)]
  std::printf("\n%d-D  u0 = sin(x) sin(y)%s on [0,2pi)^%d, T = %g, exact u = exp(-%g*nu*t) u0\n", dim,
              dim == 3 ? " sin(z)" : "", dim, T, k2);
  std::printf("  %6s %7s %11s %13s %7s %10s%s\n", "n", "steps", "nu*dt/h^2", "max error", "order", "time [s]",
              o.backend == "cuda" ? "   |cuda - cpu|" : "");
  bool ok = true;
  double prev = 0;
  Problem last{};
  Result lastResult;
  for (size_t l = 0; l < levels.size(); ++l) {
    Problem pb{K, levels[l].n, levels[l].steps, o.nu, T / static_cast<double>(levels[l].steps), o.backend, false};
    const double h = kLength / static_cast<double>(pb.n);
    Result r = run(pb, [dim](double x, double y, double z) { return sineMode(dim, x, y, z); });
    const double decay = std::exp(-k2 * o.nu * T);
    const long na = extentA(pb), n = pb.n;
    double err = 0;
    size_t idx = 0;
    for (long a = 0; a < na; ++a)
      for (long b = 0; b < n; ++b)
        for (long c = 0; c < n; ++c) {
          const double exact = decay * (dim == 3 ? sineMode(3, a * h, b * h, c * h) : sineMode(2, b * h, c * h, 0));
          err = std::max(err, std::abs(r.field[idx++] - exact));
        }
    std::string orderText = "-";
    if (l > 0) {
      const double order = std::log(prev / err) / std::log(static_cast<double>(levels[l].n) / levels[l - 1].n);
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.3f", order);
      orderText = buf;
      if (!(order >= o.orderMin && order <= o.orderMax)) ok = false;
    }
    std::string cmp;
    if (o.backend == "cuda") {
      Problem cpu = pb;
      cpu.backend = "cpu";
      Result rc = run(cpu, [dim](double x, double y, double z) { return sineMode(dim, x, y, z); });
      double diff = 0;
      for (size_t i = 0; i < r.field.size(); ++i) diff = std::max(diff, std::abs(r.field[i] - rc.field[i]));
      char buf[64];
      std::snprintf(buf, sizeof buf, "   %.3e%s", diff, diff == 0 ? " (bitwise equal)" : "  MISMATCH");
      cmp = buf;
      if (diff != 0 || std::memcmp(r.field.data(), rc.field.data(), r.field.size() * sizeof(double)) != 0) ok = false;
    }
    std::printf("  %6ld %7ld %11.4f %13.4e %7s %10.3f%s\n", pb.n, pb.steps, o.nu * pb.dt / (h * h), err,
                orderText.c_str(), r.seconds, cmp.c_str());
    prev = err;
    last = pb;
    lastResult = std::move(r);
  }
  if (!o.png.empty()) {
    const std::string path = writeFieldImage(pngPath(o.png, "-" + std::to_string(dim) + "d"), last, lastResult);
    std::printf("  wrote %s (final field, n = %ld%s)\n", path.c_str(), last.n, dim == 3 ? ", middle plane" : "");
  }
  return ok;
}

[[maybe_unused]] int check(const Options& o) {
  std::printf("heat --check: u_t = nu*lap(u), nu = %g, forward Euler + 2nd-order Laplacian, dt ~ h^2, backend %s\n",
              o.nu, describeBackend(o.backend).c_str());
  std::printf("expected order 2 in h; accepted range [%g, %g]\n", o.orderMin, o.orderMax);
  // Steps grow 4x per refinement so nu*dt/h^2 is the same on every level (about 0.20 in 2-D and
  // 0.14 in 3-D: below the stability limits 1/4 and 1/6, and away from the value where the time
  // and space errors of the sine mode cancel, which would hide the order).
  const double T2 = 0.5 / o.nu, T3 = 0.25 / o.nu;
  const bool ok2 = convergence(o, 2, T2, {{64, 256}, {128, 1024}, {256, 4096}});
  const bool ok3 = convergence(o, 3, T3, {{16, 12}, {32, 48}, {64, 192}});
  const bool ok = ok2 && ok3;
  std::printf("\nheat --check: %s\n", ok ? "PASSED (observed orders ~ 2)"
                                        : "FAILED (an observed order is outside the accepted range, or cuda != cpu)");
  return ok ? 0 : 1;
}

// ---- one run (make run, the demo) -------------------------------------------------------------------
// The one run's problem (dt from the CFL number) and initial condition.
Problem oneRunProblem(const Options& o, const std::string& backend) {
  const Kernel* K = o.dim == 3 ? &kHeat3d : &kHeat2d;
  const double h = kLength / static_cast<double>(o.n);
  return Problem{K, o.n, o.steps, o.nu, o.cfl * h * h / o.nu, backend, true};
}

InitFn oneRunInit(const Options& o) {
  const int dim = o.dim;
  return o.init == "sine" ? InitFn([dim](double x, double y, double z) { return sineMode(dim, x, y, z); })
                          : InitFn([dim](double x, double y, double z) { return blobs(dim, x, y, z); });
}

// Timing, conservation, error against the analytic solution (sine), image and .npy of one run.
void report(const Options& o, const Problem& pb, const Result& r) {
  const double h = kLength / static_cast<double>(o.n);
  const long points = o.dim == 3 ? o.n * o.n * o.n : o.n * o.n;
  // Total heat (sum of u * h^d) is conserved exactly by the periodic scheme, up to rounding.
  const double cell = std::pow(h, o.dim);
  const double heat0 = r.initialSum * cell, mass0 = r.initialAbsSum * cell;  // mass0: integral of |u0|
  long double sum1 = 0;
  for (double v : r.field) sum1 += v;
  const double heat1 = static_cast<double>(sum1) * cell;
  const auto [mn, mx] = std::minmax_element(r.field.begin(), r.field.end());
  const double updates = static_cast<double>(points) * static_cast<double>(o.steps);
  std::printf("heat: %.3f s, %.1f Mpoint-updates/s, %.1f GB/s effective (one read + one write of u per point)\n",
              r.seconds, r.seconds > 0 ? updates / r.seconds * 1e-6 : 0.0,
              r.seconds > 0 ? updates * 2 * sizeof(double) / r.seconds * 1e-9 : 0.0);
  std::printf("heat: final field min %.6f max %.6f; total heat %.12g -> %.12g (change %.1e of the integral of |u0|)\n",
              *mn, *mx, heat0, heat1, mass0 > 0 ? std::abs(heat1 - heat0) / mass0 : 0.0);
  if (o.init == "sine") {
    const double decay = std::exp(-o.dim * o.nu * pb.dt * static_cast<double>(o.steps));
    double err = 0;
    size_t idx = 0;
    const long na = extentA(pb);
    for (long a = 0; a < na; ++a)
      for (long b = 0; b < o.n; ++b)
        for (long c = 0; c < o.n; ++c)
          err = std::max(err, std::abs(r.field[idx++] - decay * (o.dim == 3 ? sineMode(3, a * h, b * h, c * h)
                                                                            : sineMode(2, b * h, c * h, 0))));
    std::printf("heat: max error against the analytic solution %.4e\n", err);
  }
  if (!o.png.empty()) {
    const std::string path = writeFieldImage(o.png, pb, r);
    std::printf("heat: wrote %s (%ldx%ld%s)\n", path.c_str(), o.n, o.n, o.dim == 3 ? ", middle plane i = n/2" : "");
  }
  if (!o.save.empty()) {
    saveNpy(o.save, o.dim, o.n, r.field);
    std::printf("heat: wrote %s (final field, float64)\n", o.save.c_str());
  }
}

[[maybe_unused]] int single(const Options& o) {
  const Problem pb = oneRunProblem(o, o.backend);
  std::printf("heat: %d-D, %ld^%d points, %ld steps of dt = %.4g (nu*dt/h^2 = %.3f), init %s, backend %s\n", o.dim,
              o.n, o.dim, o.steps, pb.dt, o.cfl, o.init.c_str(), describeBackend(o.backend).c_str());
  const Result r = run(pb, oneRunInit(o));
  report(o, pb, r);
  return 0;
}

#if defined(HEAT_MPI)
// ---- the MPI build: the one run distributed over the ranks of MPI_COMM_WORLD ------------------------
// Rank 0 fills the global initial field, scatter() hands every rank its box (with the halo around it),
// mpi::cpu::step exchanges halos and sweeps (periodic across ranks), gather() collects the result.
int distributed(const Options& o) {
  int me = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const Problem pb = oneRunProblem(o, "cpu");
  const InitFn init = oneRunInit(o);
  const Kernel& K = *pb.kernel;
  int rc = 0;
  {
    stnc_mpi::Domain D;  // frees its communicator before MPI_Finalize
    if (int s = K.makeDomain(MPI_COMM_WORLD, o.n, D))
      die(std::string("make_domain: ") + stnc_mpi::statusName(s) + " (" + std::to_string(size) + " ranks, n = " +
          std::to_string(o.n) + ")");
    const stnc_rt::Layout G = K.layout(o.n);
    std::vector<double> global;  // rank 0 only
    Result r;
    if (me == 0) {
      global.assign(G.count, 0.0);
      fillInitial(pb, init, G, global.data());
      const std::vector<double> u0 = interiorOf(pb, G, global.data());
      long double sum = 0, absSum = 0;
      for (double v : u0) {
        sum += v;
        absSum += std::abs(v);
      }
      r.initialSum = static_cast<double>(sum);
      r.initialAbsSum = static_cast<double>(absSum);
      std::string grid, mine;
      for (int d = 3 - o.dim; d < 3; ++d) {
        grid += (d > 3 - o.dim ? "x" : "") + std::to_string(D.dims[d]);
        mine += (d > 3 - o.dim ? "x" : "") + std::to_string(D.n[d]);
      }
      std::printf("heat: %d-D, %ld^%d points, %ld steps of dt = %.4g (nu*dt/h^2 = %.3f), init %s, backend %s\n", o.dim,
                  o.n, o.dim, o.steps, pb.dt, o.cfl, o.init.c_str(), describeBackend("cpu").c_str());
      std::printf("heat: MPI, %d rank(s), rank grid %s, rank 0 holds %s points (stn::heat%dd::mpi::cpu::step)\n", size,
                  grid.c_str(), mine.c_str(), o.dim);
    }
    HostArray u(D.L.count), unew(D.L.count);
    if (int s = K.scatter(D, 0, me == 0 ? global.data() : nullptr, u.p)) die(std::string("scatter: ") + stnc_mpi::statusName(s));
    if (int s = K.scatter(D, 0, me == 0 ? global.data() : nullptr, unew.p)) die(std::string("scatter: ") + stnc_mpi::statusName(s));
    double* pu = u.p;
    double* pun = unew.p;
    MPI_Barrier(MPI_COMM_WORLD);
    const auto t0 = std::chrono::steady_clock::now();
    const double h = kLength / static_cast<double>(o.n);
    if (int s = K.mpiStep(D, o.steps, pu, pun, pb.nu, pb.dt, 1.0 / (h * h)))  // rdx2 exactly as run() computes it
      die(std::string("mpi::cpu::step: ") + stnc_mpi::statusName(s));
    MPI_Barrier(MPI_COMM_WORLD);
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (int s = K.gather(D, 0, pu, me == 0 ? global.data() : nullptr)) die(std::string("gather: ") + stnc_mpi::statusName(s));
    if (me == 0) {
      r.field = interiorOf(pb, G, global.data());
      report(o, pb, r);
      if (o.verify) {
        Problem one = pb;
        one.warmup = false;
        const Result ref = run(one, init);
        const bool same = ref.field.size() == r.field.size() &&
                          std::memcmp(ref.field.data(), r.field.data(), r.field.size() * sizeof(double)) == 0;
        double diff = 0;
        for (size_t i = 0; i < r.field.size() && i < ref.field.size(); ++i) diff = std::max(diff, std::abs(r.field[i] - ref.field[i]));
        std::printf("heat --verify: %d rank(s) vs one process (%.3f s): %s\n", size, ref.seconds,
                    same ? "bit-identical" : ("MISMATCH, max |difference| " + std::to_string(diff)).c_str());
        rc = same ? 0 : 1;
      }
    }
  }
  MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return rc;
}
#endif

}  // namespace

int main(int argc, char** argv) {
#if defined(HEAT_MPI)
  MPI_Init(&argc, &argv);
  const Options o = parse(argc, argv);
  const int rc = distributed(o);
  MPI_Finalize();
  return rc;
#else
  const Options o = parse(argc, argv);
  return o.check ? check(o) : single(o);
#endif
}
