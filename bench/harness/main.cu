// stnbench: the stnc benchmark harness driver (see bench/README.md).
//
//   stnbench --stnc PATH --workloads DIR --work DIR --json OUT.json [--n 256] [--na 800] [--reps 30]
//            [--warmup 3] [--sets 3] [--steps 100] [--val 37x19x23] [--jobs 16] [--no-validate] [--only ID,...]
//
// 1. Validation: every row's kernels on a small grid against `stnc run --backend cpu` (run in
//    parallel), bit-identical for f64, max|diff|/max|ref| <= 1e-5 for f32; also: no writes outside
//    the interior, inputs unchanged; the hand-written peer against stnc's output.
// 2. Ceilings: D2D copy bandwidth, FP64 and FP32 FMA throughput.
// 3. Timing per row: `sets` rotating input sets and an L2 flush (a read of a 256 MB buffer) before
//    every timed sweep; warm-up; `reps` sweeps timed one by one with CUDA events; median. The same
//    for the peer on the same arrays. Checksums of the outputs (set 0, first sweep) for peers.py.
#include <algorithm>
#include <atomic>
#include <cstdarg>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <thread>
#include <vector>

#include "bench.h"

namespace bench {
namespace {

struct Options {
  long n = 256, na = 800;
  int reps = 30, warmup = 3, sets = 3, jobs = 16;
  long steps = 100;  // time-stepping rows: steps per cuda::step call
  long val[3] = {37, 19, 23};
  size_t flushBytes = 256ul << 20;
  size_t copyBytes = 2ul << 30;
  std::string stnc, workloads, work = "/tmp/stnbench-work", json = "stnbench.json", only;
  bool validate = true;
};

// ---- small utilities -------------------------------------------------------------------------

std::string fmt(const char* f, ...) __attribute__((format(printf, 1, 2)));
std::string fmt(const char* f, ...) {
  char buf[4096];
  va_list ap;
  va_start(ap, f);
  std::vsnprintf(buf, sizeof buf, f, ap);
  va_end(ap);
  return buf;
}

std::string jstr(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\', o += c;
    else if (c == '\n') o += "\\n";
    else if (static_cast<unsigned char>(c) < 0x20) o += ' ';
    else o += c;
  }
  return o + "\"";
}

std::string jnum(double x) {
  if (!std::isfinite(x)) return "null";
  return fmt("%.9g", x);
}

void mkdirs(const std::string& p) {
  std::string cur;
  for (size_t i = 0; i <= p.size(); ++i) {
    if (i == p.size() || p[i] == '/') {
      if (!cur.empty()) ::mkdir(cur.c_str(), 0755);
    }
    if (i < p.size()) cur += p[i];
  }
}

double median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// ---- device helpers --------------------------------------------------------------------------

// Fills every element of a field array: halo-padded logical points get genValue(seed, dense index);
// cells outside the halo (the alignment pad, never read) get NaN.
template <typename T>
__global__ void fillKernel(T* a, const stnc_rt::Layout L, uint32_t seed) {
  const long D1 = L.n[1] + 2 * L.halo[1], D2 = L.n[2] + 2 * L.halo[2];
  for (size_t e = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; e < L.count;
       e += static_cast<size_t>(gridDim.x) * blockDim.x) {
    const long x = static_cast<long>(e / L.stride[0]);
    const long rem = static_cast<long>(e % L.stride[0]);
    const long y = rem / L.stride[1], z = rem % L.stride[1];
    const long X = x - L.pad[0] + L.halo[0], Y = y - L.pad[1] + L.halo[1], Z = z - L.pad[2] + L.halo[2];
    const bool in = X >= 0 && X < L.n[0] + 2 * L.halo[0] && Y >= 0 && Y < D1 && Z >= 0 && Z < D2;
    a[e] = in ? static_cast<T>(genValue(seed, (static_cast<uint64_t>(X) * D1 + Y) * D2 + Z)) : static_cast<T>(NAN);
  }
}

template <typename T>
__global__ void poisonKernel(T* a, size_t count) {
  for (size_t e = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; e < count;
       e += static_cast<size_t>(gridDim.x) * blockDim.x)
    a[e] = static_cast<T>(NAN);
}

// sum and sum of |x| over the interior, accumulated in double (block partials, atomics).
template <typename T>
__global__ void checksumKernel(const T* a, const stnc_rt::Layout L, double* out) {
  __shared__ double s1[256], s2[256];
  double x1 = 0, x2 = 0;
  const size_t total = static_cast<size_t>(L.n[0]) * L.n[1] * L.n[2];
  for (size_t t = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; t < total;
       t += static_cast<size_t>(gridDim.x) * blockDim.x) {
    const long z = static_cast<long>(t % L.n[2]);
    const long y = static_cast<long>((t / L.n[2]) % L.n[1]);
    const long x = static_cast<long>(t / (static_cast<size_t>(L.n[2]) * L.n[1]));
    const double v = static_cast<double>(a[stnc_rt::at(L, x, y, z)]);
    x1 += v;
    x2 += fabs(v);
  }
  s1[threadIdx.x] = x1;
  s2[threadIdx.x] = x2;
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) {
      s1[threadIdx.x] += s1[threadIdx.x + w];
      s2[threadIdx.x] += s2[threadIdx.x + w];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    atomicAdd(&out[0], s1[0]);
    atomicAdd(&out[1], s2[0]);
  }
}

// L2 flush: reads a buffer much larger than the L2 (256 MB vs 60 MB). A read leaves clean lines, so
// the timed kernel pays no write-back of the flush (a memset would leave up to 60 MB dirty), and
// it writes back whatever the previous sweep left dirty before the timed region starts.
__global__ void flushKernel(const int4* __restrict__ buf, size_t n, int* sink) {
  int acc = 0;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    const int4 v = buf[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x7a5c3e1f) *sink = acc;  // practically never; keeps the loads
}

void flushL2(const void* buf, size_t bytes, int* sink) {
  flushKernel<<<1024, 512>>>(static_cast<const int4*>(buf), bytes / sizeof(int4), sink);
}

void fillField(void* a, int elem, const stnc_rt::Layout& L, uint32_t seed) {
  if (elem == 8) fillKernel<double><<<2048, 256>>>(static_cast<double*>(a), L, seed);
  else fillKernel<float><<<2048, 256>>>(static_cast<float*>(a), L, seed);
  BENCH_CHECK(cudaGetLastError());
}

void poisonField(void* a, int elem, size_t count) {
  if (elem == 8) poisonKernel<double><<<2048, 256>>>(static_cast<double*>(a), count);
  else poisonKernel<float><<<2048, 256>>>(static_cast<float*>(a), count);
  BENCH_CHECK(cudaGetLastError());
}

std::pair<double, double> checksum(const void* a, int elem, const stnc_rt::Layout& L, double* scratch) {
  BENCH_CHECK(cudaMemset(scratch, 0, 2 * sizeof(double)));
  if (elem == 8) checksumKernel<double><<<1024, 256>>>(static_cast<const double*>(a), L, scratch);
  else checksumKernel<float><<<1024, 256>>>(static_cast<const float*>(a), L, scratch);
  BENCH_CHECK(cudaGetLastError());
  double h[2];
  BENCH_CHECK(cudaMemcpy(h, scratch, sizeof h, cudaMemcpyDeviceToHost));
  return {h[0], h[1]};
}

// ---- row fields ------------------------------------------------------------------------------

struct RowField {
  std::string name;
  int role;  // bench::Role over the whole row: written by some kernel -> out/inout
  int elem;
};

std::vector<RowField> rowFields(const Row& r) {
  std::vector<RowField> out;
  for (const KernelInfo* k : r.kernels)
    for (int f = 0; f < k->fieldCount; ++f) {
      auto it = std::find_if(out.begin(), out.end(), [&](const RowField& x) { return x.name == k->fieldNames[f]; });
      if (it == out.end()) {
        out.push_back({k->fieldNames[f], k->roles[f], k->elemBytes});
        continue;
      }
      if (it->role != k->roles[f]) it->role = kInout;  // read by one kernel, written by another
    }
  return out;
}

int fieldIndex(const std::vector<RowField>& fs, const std::string& n) {
  for (size_t i = 0; i < fs.size(); ++i)
    if (fs[i].name == n) return static_cast<int>(i);
  return -1;
}

bool sameLayout(const stnc_rt::Layout& a, const stnc_rt::Layout& b) {
  for (int d = 0; d < 3; ++d)
    if (a.n[d] != b.n[d] || a.pad[d] != b.pad[d] || a.dim[d] != b.dim[d] || a.halo[d] != b.halo[d]) return false;
  return a.count == b.count;
}

// Device arrays of one row: sets x fields.
struct RowData {
  stnc_rt::Layout L{};
  std::vector<RowField> fields;
  std::vector<std::vector<void*>> ptr;  // [set][field]
  int elem = 8;

  void alloc(const Row& r, long ni, long nj, long nk, int sets) {
    fields = rowFields(r);
    L = r.kernels[0]->layout(ni, nj, nk);
    for (const KernelInfo* k : r.kernels)
      if (!sameLayout(L, k->layout(ni, nj, nk))) {
        std::fprintf(stderr, "row %s: kernels of different layouts are not supported\n", r.id.c_str());
        std::exit(2);
      }
    elem = fields[0].elem;
    ptr.assign(sets, std::vector<void*>(fields.size(), nullptr));
    for (auto& s : ptr)
      for (auto& p : s) BENCH_CHECK(cudaMalloc(&p, L.count * elem));
  }
  void fill(int set, int seedSet, bool outputsToo) {
    for (size_t f = 0; f < fields.size(); ++f) {
      if (fields[f].role == kOut) {
        if (outputsToo) poisonField(ptr[set][f], elem, L.count);
        continue;
      }
      fillField(ptr[set][f], elem, L, fieldSeed(fields[f].name, seedSet));
    }
  }
  void release() {
    for (auto& s : ptr)
      for (auto& p : s) BENCH_CHECK(cudaFree(p));
    ptr.clear();
  }
};

// Runs the row's kernels once on `set`.
cudaError_t runRow(const Row& r, RowData& d, int set, cudaStream_t s) {
  for (size_t k = 0; k < r.kernels.size(); ++k) {
    const KernelInfo* K = r.kernels[k];
    std::vector<void*> f(K->fieldCount);
    for (int i = 0; i < K->fieldCount; ++i) f[i] = d.ptr[set][fieldIndex(d.fields, K->fieldNames[i])];
    cudaError_t e = K->sweep(d.L, f.data(), r.params[k].data(), s);
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

cudaError_t runRowPeer(const Row& r, RowData& d, int set, cudaStream_t s) {
  std::vector<void*> f;
  for (const std::string& n : r.peer.fields) {
    int i = fieldIndex(d.fields, n);
    if (i < 0) return cudaErrorInvalidValue;
    f.push_back(d.ptr[set][i]);
  }
  return runPeer(r.peer, d.L, f.data(), s);
}

// ---- .npy ------------------------------------------------------------------------------------

bool writeNpy(const std::string& path, const char* descr, const std::vector<long>& shape, const void* data,
              size_t bytes) {
  std::string sh = "(";
  for (size_t i = 0; i < shape.size(); ++i) sh += std::to_string(shape[i]) + (shape.size() == 1 || i + 1 < shape.size() ? ", " : "");
  sh += ")";
  std::string h = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': " + sh + ", }";
  size_t total = 10 + h.size() + 1;
  h += std::string((64 - total % 64) % 64, ' ') + "\n";
  std::ofstream o(path, std::ios::binary);
  if (!o) return false;
  o.write("\x93NUMPY\x01\x00", 8);
  const uint16_t hl = static_cast<uint16_t>(h.size());
  o.write(reinterpret_cast<const char*>(&hl), 2);
  o.write(h.data(), h.size());
  o.write(static_cast<const char*>(data), bytes);
  return static_cast<bool>(o);
}

bool readNpy(const std::string& path, std::string& descr, std::vector<long>& shape, std::vector<char>& data,
             std::string& err) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return err = "cannot open " + path, false;
  char magic[8];
  in.read(magic, 8);
  if (!in || std::memcmp(magic, "\x93NUMPY", 6) != 0) return err = path + ": not a .npy file", false;
  size_t hl = 0;
  if (magic[6] == 1) {
    uint16_t v;
    in.read(reinterpret_cast<char*>(&v), 2);
    hl = v;
  } else {
    uint32_t v;
    in.read(reinterpret_cast<char*>(&v), 4);
    hl = v;
  }
  std::string h(hl, ' ');
  in.read(&h[0], hl);
  auto d0 = h.find("'descr'");
  auto q1 = h.find('\'', h.find(':', d0) + 1);
  auto q2 = h.find('\'', q1 + 1);
  descr = h.substr(q1 + 1, q2 - q1 - 1);
  auto s0 = h.find('(', h.find("'shape'"));
  auto s1 = h.find(')', s0);
  std::stringstream ss(h.substr(s0 + 1, s1 - s0 - 1));
  shape.clear();
  std::string tok;
  size_t count = 1;
  while (std::getline(ss, tok, ',')) {
    if (tok.find_first_not_of(' ') == std::string::npos) continue;
    shape.push_back(std::stol(tok));
    count *= shape.back();
  }
  if (h.find("'fortran_order': True") != std::string::npos) return err = path + ": fortran order", false;
  const size_t es = descr.size() > 2 ? std::stoul(descr.substr(2)) : 8;
  data.resize(count * es);
  in.read(data.data(), data.size());
  if (!in) return err = path + ": short read", false;
  return true;
}

// ---- parallel shell jobs ---------------------------------------------------------------------

std::vector<int> runJobs(const std::vector<std::string>& cmds, int jobs) {
  std::vector<int> rc(cmds.size(), -1);
  std::atomic<size_t> next{0};
  std::vector<std::thread> th;
  for (int t = 0; t < std::max(1, jobs); ++t)
    th.emplace_back([&] {
      for (size_t i; (i = next++) < cmds.size();) rc[i] = std::system(cmds[i].c_str());
    });
  for (auto& t : th) t.join();
  return rc;
}

// `timeout 300 ` when coreutils' timeout exists (a hung job must not hang the benchmark).
std::string timeoutPrefix() {
  static const bool has = std::system("command -v timeout >/dev/null 2>&1") == 0;
  return has ? "timeout 300 " : "";
}

std::string shq(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// ---- validation ------------------------------------------------------------------------------

struct KernelCheck {
  std::string kernel, status = "FAIL", detail;
  long mismatches = 0;
  double maxAbs = 0, maxRel = 0;
};

struct RowValidation {
  std::vector<KernelCheck> kernels;
  bool pass = false, strayWrite = false, inputChanged = false, ran = false;
  std::string peerStatus = "n/a";
  double peerRel = NAN;
  std::string detail;
};

struct ValJob {
  size_t row;
  size_t kernel;
  std::string dir, cmd;
};

// Host copy of one field array (whole allocation).
std::vector<char> download(const void* p, size_t bytes) {
  std::vector<char> h(bytes);
  BENCH_CHECK(cudaMemcpy(h.data(), p, bytes, cudaMemcpyDeviceToHost));
  return h;
}

template <typename T>
bool sameBits(T a, T b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

// Compares a device-layout host array (interior) with an interior-shaped reference.
template <typename T>
void compareInterior(const stnc_rt::Layout& L, const T* got, const T* ref, KernelCheck& c) {
  double maxRef = 0;
  for (long x = 0; x < L.n[0]; ++x)
    for (long y = 0; y < L.n[1]; ++y)
      for (long z = 0; z < L.n[2]; ++z) {
        const T r = ref[(x * L.n[1] + y) * L.n[2] + z];
        const T g = got[stnc_rt::at(L, x, y, z)];
        maxRef = std::max(maxRef, std::fabs(static_cast<double>(r)));
        if (!sameBits(g, r)) ++c.mismatches;  // f32: reported, not a failure by itself
        const double d = std::fabs(static_cast<double>(g) - static_cast<double>(r));
        if (std::isnan(d)) c.maxAbs = INFINITY;
        else c.maxAbs = std::max(c.maxAbs, d);
      }
  c.maxRel = maxRef > 0 ? c.maxAbs / maxRef : c.maxAbs;
}

// Non-interior cells of `got` equal to `init` bit for bit (no writes outside the interior).
template <typename T>
long strayWrites(const stnc_rt::Layout& L, const T* got, const T* init) {
  long n = 0;
  for (long x = 0; x < L.dim[0]; ++x)
    for (long y = 0; y < L.dim[1]; ++y)
      for (long z = 0; z < L.dim[2]; ++z) {
        const long X = x - L.pad[0], Y = y - L.pad[1], Z = z - L.pad[2];
        if (X >= 0 && X < L.n[0] && Y >= 0 && Y < L.n[1] && Z >= 0 && Z < L.n[2]) continue;
        const size_t e = (static_cast<size_t>(x) * L.dim[1] + y) * L.dim[2] + z;
        if (!sameBits(got[e], init[e])) ++n;
      }
  return n;
}

template <typename T>
double peerRelDiff(const stnc_rt::Layout& L, const T* a, const T* b) {
  double maxRef = 0, maxD = 0;
  for (long x = 0; x < L.n[0]; ++x)
    for (long y = 0; y < L.n[1]; ++y)
      for (long z = 0; z < L.n[2]; ++z) {
        const long e = stnc_rt::at(L, x, y, z);
        maxRef = std::max(maxRef, std::fabs(static_cast<double>(a[e])));
        const double d = std::fabs(static_cast<double>(a[e]) - static_cast<double>(b[e]));
        maxD = std::isnan(d) ? INFINITY : std::max(maxD, d);
      }
  return maxRef > 0 ? maxD / maxRef : maxD;
}

std::vector<RowValidation> validate(const Options& o, const std::vector<Row>& rows) {
  std::vector<RowValidation> res(rows.size());
  std::vector<ValJob> jobs;
  // Host copies: [row] -> field -> initial array / stnc GPU result.
  std::vector<std::vector<std::vector<char>>> init(rows.size()), gpu(rows.size());
  std::vector<RowData> data(rows.size());
  const std::string sizeArg = fmt("%ldx%ldx%ld", o.val[0], o.val[1], o.val[2]);
  for (size_t ri = 0; ri < rows.size(); ++ri) {
    const Row& r = rows[ri];
    RowData& d = data[ri];
    d.alloc(r, o.val[0], o.val[1], o.val[2], 1);
    d.fill(0, 7, true);
    BENCH_CHECK(cudaDeviceSynchronize());
    const size_t bytes = d.L.count * d.elem;
    for (size_t f = 0; f < d.fields.size(); ++f) init[ri].push_back(download(d.ptr[0][f], bytes));
    cudaError_t e = runRow(r, d, 0, 0);
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
      res[ri].detail = std::string("sweep failed: ") + cudaGetErrorString(e);
      continue;
    }
    res[ri].ran = true;
    for (size_t f = 0; f < d.fields.size(); ++f) gpu[ri].push_back(download(d.ptr[0][f], bytes));
    // Inputs for stnc run: full-shaped (n + 2 halo per axis), from the initial arrays.
    const std::string dir = o.work + "/val/" + r.id;
    mkdirs(dir);
    const stnc_rt::Layout& L = d.L;
    std::vector<long> full = {L.n[0] + 2 * L.halo[0], L.n[1] + 2 * L.halo[1], L.n[2] + 2 * L.halo[2]};
    for (size_t f = 0; f < d.fields.size(); ++f) {
      if (d.fields[f].role == kOut) continue;
      std::vector<char> buf(full[0] * full[1] * full[2] * d.elem);
      char* w = buf.data();
      for (long x = -L.halo[0]; x < L.n[0] + L.halo[0]; ++x)
        for (long y = -L.halo[1]; y < L.n[1] + L.halo[1]; ++y) {
          std::memcpy(w, init[ri][f].data() + stnc_rt::at(L, x, y, -L.halo[2]) * d.elem, full[2] * d.elem);
          w += full[2] * d.elem;
        }
      writeNpy(dir + "/" + d.fields[f].name + ".npy", d.elem == 8 ? "<f8" : "<f4", full, buf.data(), buf.size());
    }
    for (size_t k = 0; k < r.kernels.size(); ++k) {
      const KernelInfo* K = r.kernels[k];
      std::string cmd = "OMP_NUM_THREADS=1 " + timeoutPrefix() + shq(o.stnc) + " run " + shq(o.workloads + "/" + K->file + ".stn") +
                        " --backend cpu --stencil " + K->name + " --size " + sizeArg;
      // The same stnc options as the timed code (e.g. --fp-contract=on changes the CPU result too).
      if (const char* fl = std::getenv("STNC_FLAGS")) cmd += std::string(" ") + fl;
      for (int f = 0; f < K->fieldCount; ++f) {
        const std::string fn = K->fieldNames[f];
        if (K->roles[f] != kOut) cmd += " --in " + fn + "=" + shq(dir + "/" + fn + ".npy");
        if (K->roles[f] != kIn) cmd += " --out " + fn + "=" + shq(dir + "/" + K->name + ".out." + fn + ".npy");
      }
      for (int p = 0; p < K->paramCount; ++p) cmd += fmt(" --param %s=%.17g", K->paramNames[p], r.params[k][p]);
      cmd += " > " + shq(dir + "/" + K->name + ".log") + " 2>&1";
      jobs.push_back({ri, k, dir, cmd});
    }
  }
  // Peers on the same small inputs, against stnc's GPU output.
  for (size_t ri = 0; ri < rows.size(); ++ri) {
    const Row& r = rows[ri];
    RowData& d = data[ri];
    if (!res[ri].ran || !hasPeer(r.peer)) continue;
    d.fill(0, 7, true);
    cudaError_t e = runRowPeer(r, d, 0, 0);
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
      res[ri].peerStatus = std::string("FAIL (") + cudaGetErrorString(e) + ")";
      continue;
    }
    double worst = 0;
    for (size_t f = 0; f < d.fields.size(); ++f) {
      if (d.fields[f].role == kIn) continue;
      std::vector<char> p = download(d.ptr[0][f], d.L.count * d.elem);
      const double rel = d.elem == 8 ? peerRelDiff(d.L, reinterpret_cast<const double*>(gpu[ri][f].data()),
                                                   reinterpret_cast<const double*>(p.data()))
                                     : peerRelDiff(d.L, reinterpret_cast<const float*>(gpu[ri][f].data()),
                                                   reinterpret_cast<const float*>(p.data()));
      worst = std::max(worst, rel);
    }
    res[ri].peerRel = worst;
    res[ri].peerStatus = worst <= (d.elem == 8 ? 1e-12 : 1e-5) ? "PASS" : "FAIL";
  }
  for (RowData& d : data)
    if (!d.ptr.empty()) d.release();

  // stnc run --backend cpu, in parallel: first one job per .stn file (fills stnc's compile cache),
  // then the rest.
  std::vector<std::string> first, rest;
  std::vector<size_t> firstIdx, restIdx;
  std::set<std::string> seen;
  for (size_t j = 0; j < jobs.size(); ++j) {
    const std::string file = rows[jobs[j].row].kernels[jobs[j].kernel]->file;
    if (seen.insert(file).second) first.push_back(jobs[j].cmd), firstIdx.push_back(j);
    else rest.push_back(jobs[j].cmd), restIdx.push_back(j);
  }
  std::printf("validation: %zu stnc run --backend cpu jobs (%zu files) on %s, %d at a time\n", jobs.size(),
              first.size(), sizeArg.c_str(), o.jobs);
  std::fflush(stdout);
  std::vector<int> rc(jobs.size(), -1);
  std::vector<int> r1 = runJobs(first, o.jobs), r2 = runJobs(rest, o.jobs);
  for (size_t i = 0; i < r1.size(); ++i) rc[firstIdx[i]] = r1[i];
  for (size_t i = 0; i < r2.size(); ++i) rc[restIdx[i]] = r2[i];

  for (size_t j = 0; j < jobs.size(); ++j) {
    const ValJob& J = jobs[j];
    const Row& r = rows[J.row];
    const KernelInfo* K = r.kernels[J.kernel];
    RowValidation& v = res[J.row];
    KernelCheck c;
    c.kernel = K->name;
    if (rc[j] != 0) {
      std::ifstream lg(J.dir + "/" + K->name + ".log");
      std::string all((std::istreambuf_iterator<char>(lg)), std::istreambuf_iterator<char>());
      c.detail = "stnc run failed (status " + std::to_string(rc[j]) + "): " + all.substr(0, 600);
      v.kernels.push_back(c);
      continue;
    }
    const std::vector<RowField> fs = rowFields(r);
    stnc_rt::Layout L = K->layout(o.val[0], o.val[1], o.val[2]);
    bool ok = true;
    for (int f = 0; f < K->fieldCount; ++f) {
      if (K->roles[f] == kIn) continue;
      const std::string fn = K->fieldNames[f];
      std::string descr, err;
      std::vector<long> shape;
      std::vector<char> ref;
      if (!readNpy(J.dir + "/" + K->name + ".out." + fn + ".npy", descr, shape, ref, err)) {
        c.detail += err + "; ";
        ok = false;
        continue;
      }
      if (shape != std::vector<long>{L.n[0], L.n[1], L.n[2]}) {
        c.detail += "reference " + fn + " has an unexpected shape; ";
        ok = false;
        continue;
      }
      const int fi = fieldIndex(fs, fn);
      KernelCheck one;
      if (K->elemBytes == 8)
        compareInterior(L, reinterpret_cast<const double*>(gpu[J.row][fi].data()),
                        reinterpret_cast<const double*>(ref.data()), one);
      else
        compareInterior(L, reinterpret_cast<const float*>(gpu[J.row][fi].data()),
                        reinterpret_cast<const float*>(ref.data()), one);
      c.mismatches += one.mismatches;
      c.maxAbs = std::max(c.maxAbs, one.maxAbs);
      c.maxRel = std::max(c.maxRel, one.maxRel);
      const bool pass = K->elemBytes == 8 ? one.mismatches == 0 : (one.maxRel <= 1e-5 && std::isfinite(one.maxAbs));
      if (!pass) {
        ok = false;
        c.detail += fmt("%s: %ld of %ld differ, max |diff| %.3g (rel %.3g); ", fn.c_str(), one.mismatches,
                        L.n[0] * L.n[1] * L.n[2], one.maxAbs, one.maxRel);
      }
    }
    c.status = ok ? "PASS" : "FAIL";
    v.kernels.push_back(c);
  }
  // Stray writes / modified inputs, per row (whole allocation).
  for (size_t ri = 0; ri < rows.size(); ++ri) {
    RowValidation& v = res[ri];
    if (!v.ran) continue;
    const Row& r = rows[ri];
    const std::vector<RowField> fs = rowFields(r);
    stnc_rt::Layout L = r.kernels[0]->layout(o.val[0], o.val[1], o.val[2]);
    for (size_t f = 0; f < fs.size(); ++f) {
      const char* g = gpu[ri][f].data();
      const char* i0 = init[ri][f].data();
      if (fs[f].role == kIn) {
        if (std::memcmp(g, i0, gpu[ri][f].size()) != 0) v.inputChanged = true;
        continue;
      }
      const long n = fs[f].elem == 8
                         ? strayWrites(L, reinterpret_cast<const double*>(g), reinterpret_cast<const double*>(i0))
                         : strayWrites(L, reinterpret_cast<const float*>(g), reinterpret_cast<const float*>(i0));
      if (n) v.strayWrite = true;
    }
    v.pass = !v.kernels.empty() && v.kernels.size() == r.kernels.size() && !v.strayWrite && !v.inputChanged;
    for (const KernelCheck& c : v.kernels) v.pass = v.pass && c.status == "PASS";
    if (v.strayWrite) v.detail += "writes outside the interior; ";
    if (v.inputChanged) v.detail += "an input array was modified; ";
  }
  return res;
}

// ---- timing ----------------------------------------------------------------------------------

struct Timing {
  std::vector<double> us;
  double med = NAN, min = NAN, max = NAN;
  std::string error;
};

template <typename F>
Timing timeIt(F&& launch, const Options& o, int sets, void* flush, size_t flushBytes, int* sink) {
  Timing t;
  for (int w = 0; w < o.warmup; ++w) {
    cudaError_t e = launch(w % sets);
    if (e != cudaSuccess) return t.error = cudaGetErrorString(e), t;
  }
  std::vector<cudaEvent_t> a(o.reps), b(o.reps);
  for (int i = 0; i < o.reps; ++i) {
    BENCH_CHECK(cudaEventCreate(&a[i]));
    BENCH_CHECK(cudaEventCreate(&b[i]));
  }
  for (int i = 0; i < o.reps; ++i) {
    flushL2(flush, flushBytes, sink);  // evict the L2 (60 MB on the H200)
    BENCH_CHECK(cudaEventRecord(a[i]));
    cudaError_t e = launch(i % sets);
    BENCH_CHECK(cudaEventRecord(b[i]));
    if (e != cudaSuccess) {
      t.error = cudaGetErrorString(e);
      break;
    }
  }
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess && t.error.empty()) t.error = cudaGetErrorString(e);
  if (t.error.empty())
    for (int i = 0; i < o.reps; ++i) {
      float ms = 0;
      BENCH_CHECK(cudaEventElapsedTime(&ms, a[i], b[i]));
      t.us.push_back(ms * 1e3);
    }
  for (int i = 0; i < o.reps; ++i) {
    cudaEventDestroy(a[i]);
    cudaEventDestroy(b[i]);
  }
  if (!t.us.empty()) {
    t.med = median(t.us);
    t.min = *std::min_element(t.us.begin(), t.us.end());
    t.max = *std::max_element(t.us.begin(), t.us.end());
  }
  return t;
}

std::string timingJson(const Timing& t) {
  std::string s = "{\"median_us\": " + jnum(t.med) + ", \"min_us\": " + jnum(t.min) + ", \"max_us\": " + jnum(t.max);
  if (!t.error.empty()) s += ", \"error\": " + jstr(t.error);
  s += ", \"samples_us\": [";
  for (size_t i = 0; i < t.us.size(); ++i) s += (i ? ", " : "") + fmt("%.3f", t.us[i]);
  return s + "]}";
}

struct RowResult {
  long n;
  int moved;
  double pts, bytes, flops, memFloorUs, fpFloorUs, frac;
  std::string sums, peerAgree;
  double peerSumRel;
  Timing ts, tp, tsteps;
  Timing tstream;           // the row's streaming ceiling (launchStream over its own arrays)
  int streamIn = 0, streamOut = 0;
  double streamBytes = 0;   // bytes one streaming pass moves (whole allocations)
  std::string streamPick;   // the fastest variant
  Timing tcopy;             // cudaMemcpy D2D of one array of the row
  double copyBytes = 0;     // read + written
};

std::string rowJson(const Row& r, const std::vector<RowField>& fields, const stnc_rt::Layout& L, int elem,
                    const RowResult& x, const RowValidation& v, const Options& o) {
  std::string kj;
  for (size_t k = 0; k < r.kernels.size(); ++k) kj += (k ? ", " : "") + jstr(r.kernels[k]->name);
  std::string vk;
  for (const KernelCheck& c : v.kernels)
    vk += std::string(vk.empty() ? "" : ", ") + "{\"kernel\": " + jstr(c.kernel) + ", \"status\": " + jstr(c.status) +
          ", \"mismatches\": " + std::to_string(c.mismatches) + ", \"max_abs\": " + jnum(c.maxAbs) +
          ", \"max_rel\": " + jnum(c.maxRel) + ", \"detail\": " + jstr(c.detail) + "}";
  std::string fj;
  for (const RowField& f : fields)
    fj += std::string(fj.empty() ? "" : ", ") + "{\"name\": " + jstr(f.name) + ", \"role\": " +
          jstr(f.role == kIn ? "in" : f.role == kOut ? "out" : "inout") + "}";
  const long n = x.n;
  std::string peer = "null";
  if (hasPeer(r.peer))
    peer = "{\"kind\": " + jstr(r.peer.kind) + ", \"timing\": " + timingJson(x.tp) + ", \"checksum_agrees\": " +
           jstr(x.peerAgree) + ", \"checksum_rel\": " + jnum(x.peerSumRel) + ", \"validation\": " +
           jstr(v.peerStatus) + ", \"validation_rel\": " + jnum(v.peerRel) + "}";
  return "  {\"id\": " + jstr(r.id) + ", \"workload\": " + jstr(r.workload) + ", \"flavour\": " + jstr(r.flavour) +
         ", \"file\": " + jstr(r.file) + ", \"kernels\": [" + kj + "], \"grid\": [" + fmt("%ld, %ld, %ld", n, n, n) +
         "], \"elem_bytes\": " + std::to_string(elem) + ", \"layout\": {\"pad\": [" +
         fmt("%ld, %ld, %ld", L.pad[0], L.pad[1], L.pad[2]) + "], \"dim\": [" +
         fmt("%ld, %ld, %ld", L.dim[0], L.dim[1], L.dim[2]) + "], \"halo\": [" +
         fmt("%d, %d, %d", L.halo[0], L.halo[1], L.halo[2]) + "]}, \"fields\": [" + fj + "], \"points\": " +
         jnum(x.pts) + ", \"arrays_moved\": " + std::to_string(x.moved) + ", \"bytes\": " + jnum(x.bytes) +
         ", \"flops_per_point\": " + jnum(x.flops) + ", \"stnc\": " + timingJson(x.ts) +
         ", \"gpts\": " + jnum(x.pts / x.ts.med / 1e3) + ", \"gbs\": " + jnum(x.bytes / x.ts.med / 1e3) +
         ", \"stream\": {\"reads\": " + std::to_string(x.streamIn) + ", \"writes\": " + std::to_string(x.streamOut) +
         ", \"bytes\": " + jnum(x.streamBytes) + ", \"timing\": " + timingJson(x.tstream) + ", \"gbs\": " +
         jnum(x.streamBytes / x.tstream.med / 1e3) + ", \"variant\": " + jstr(x.streamPick) +
         ", \"copy_at_size\": {\"bytes\": " + jnum(x.copyBytes) + ", \"timing\": " + timingJson(x.tcopy) +
         ", \"gbs\": " + jnum(x.copyBytes / x.tcopy.med / 1e3) + "}}" +
         ", \"mem_floor_us\": " + jnum(x.memFloorUs) + ", \"fp_floor_us\": " + jnum(x.fpFloorUs) +
         ", \"fraction_of_floor\": " + jnum(x.frac) + ", \"checksums\": {" + x.sums + "}" +
         ", \"peer_cuda\": " + peer + ", \"peer_torch\": " + (r.torchPeer ? "true" : "false") +
         ", \"peer_triton\": " + (r.tritonPeer ? "true" : "false") + ", \"steps\": " +
         (r.timeSteps ? "{\"steps_per_call\": " + std::to_string(o.steps) + ", \"per_step\": " + timingJson(x.tsteps) +
                            ", \"gpts\": " + jnum(x.pts / x.tsteps.med / 1e3) + ", \"fraction_of_floor\": " +
                            jnum(std::max(x.memFloorUs, x.fpFloorUs) / x.tsteps.med) + "}"
                      : std::string("null")) +
         ", \"validation\": {\"ran\": " +
         (o.validate ? "true" : "false") + ", \"status\": " + jstr(!o.validate ? "skipped" : v.pass ? "PASS" : "FAIL") +
         ", \"grid\": [" + fmt("%ld, %ld, %ld", o.val[0], o.val[1], o.val[2]) + "], \"kernels\": [" + vk +
         "], \"detail\": " + jstr(v.detail) + "}}";
}

std::string headerJson(const char* name, int sms, int major, int minor, int l2, double mem, int smClock, int memClock,
                       int busWidth, const Options& o, const Ceilings& ce) {
  std::ostringstream js;
  js << "{\n \"device\": {\"name\": " << jstr(name) << ", \"sms\": " << sms << ", \"cc\": \"" << major << "."
     << minor << "\", \"l2_bytes\": " << l2 << ", \"mem_bytes\": " << jnum(mem) << ", \"sm_clock_mhz\": "
     << smClock / 1000 << ", \"mem_clock_mhz\": " << memClock / 1000 << ", \"bus_bits\": " << busWidth << "},\n"
     << " \"options\": {\"n\": " << o.n << ", \"na\": " << o.na << ", \"reps\": " << o.reps << ", \"warmup\": "
     << o.warmup << ", \"sets\": " << o.sets << ", \"steps\": " << o.steps << ", \"flush_bytes\": " << o.flushBytes << ", \"val\": [" << o.val[0]
     << ", " << o.val[1] << ", " << o.val[2] << "], \"validate\": " << (o.validate ? "true" : "false") << "},\n"
     << " \"ceilings\": {\"copy_gbs\": " << jnum(ce.copyGBs) << ", \"copy_bytes_each_way\": " << jnum(ce.copyBytes)
     << ", \"fp64_tflops\": " << jnum(ce.fp64TFs) << ", \"fp32_tflops\": " << jnum(ce.fp32TFs)
     << ", \"fma_blocks\": " << ce.fmaBlocks << ", \"fma_threads\": " << ce.fmaThreads
     << ", \"fma_accumulators\": " << ce.fmaAccumulators << "},\n";
  return js.str();
}

bool parseSize(const std::string& s, long v[3]) {
  return std::sscanf(s.c_str(), "%ldx%ldx%ld", &v[0], &v[1], &v[2]) == 3 && v[0] > 0 && v[1] > 0 && v[2] > 0;
}

int run(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto val = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "stnbench: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--n") o.n = std::stol(val());
    else if (a == "--na") o.na = std::stol(val());
    else if (a == "--reps") o.reps = std::stoi(val());
    else if (a == "--warmup") o.warmup = std::stoi(val());
    else if (a == "--sets") o.sets = std::stoi(val());
    else if (a == "--jobs") o.jobs = std::stoi(val());
    else if (a == "--steps") o.steps = std::stol(val());
    else if (a == "--flush-mb") o.flushBytes = std::stoul(val()) << 20;
    else if (a == "--copy-mb") o.copyBytes = std::stoul(val()) << 20;
    else if (a == "--val") {
      if (!parseSize(val(), o.val)) return std::fprintf(stderr, "stnbench: --val AxBxC\n"), 2;
    } else if (a == "--stnc") o.stnc = val();
    else if (a == "--workloads") o.workloads = val();
    else if (a == "--work") o.work = val();
    else if (a == "--json") o.json = val();
    else if (a == "--only") o.only = val();
    else if (a == "--no-validate") o.validate = false;
    else return std::fprintf(stderr, "stnbench: unknown option %s\n", a.c_str()), 2;
  }
  if (o.reps < 1 || o.sets < 1) return std::fprintf(stderr, "stnbench: --reps and --sets must be >= 1\n"), 2;
  if (o.validate && (o.stnc.empty() || o.workloads.empty()))
    return std::fprintf(stderr, "stnbench: validation needs --stnc and --workloads (or --no-validate)\n"), 2;

  std::vector<Row> rows;
  buildRegistry(rows);
  if (!o.only.empty()) {
    std::vector<Row> keep;
    std::stringstream ss(o.only);
    std::vector<std::string> keys;
    for (std::string k; std::getline(ss, k, ',');)
      if (!k.empty()) keys.push_back(k);
    for (const Row& r : rows)
      for (const std::string& k : keys)
        if (r.id.find(k) != std::string::npos) {
          keep.push_back(r);
          break;
        }
    rows.swap(keep);
  }

  int dev = 0;
  cudaDeviceProp prop{};
  BENCH_CHECK(cudaGetDevice(&dev));
  BENCH_CHECK(cudaGetDeviceProperties(&prop, dev));
  int smClock = 0, memClock = 0, busWidth = 0;
  cudaDeviceGetAttribute(&smClock, cudaDevAttrClockRate, dev);
  cudaDeviceGetAttribute(&memClock, cudaDevAttrMemoryClockRate, dev);
  cudaDeviceGetAttribute(&busWidth, cudaDevAttrGlobalMemoryBusWidth, dev);
  std::printf("device: %s, %d SMs, CC %d.%d, L2 %d B, %.1f GiB, SM clock %d MHz (max), mem %d MHz x %d bit\n",
              prop.name, prop.multiProcessorCount, prop.major, prop.minor, prop.l2CacheSize,
              prop.totalGlobalMem / 1073741824.0, smClock / 1000, memClock / 1000, busWidth);
  std::fflush(stdout);

  // 1. Validation.
  std::vector<RowValidation> val(rows.size());
  if (o.validate) val = validate(o, rows);
  for (size_t i = 0; i < rows.size() && o.validate; ++i) {
    std::printf("  %-16s %s", rows[i].id.c_str(), val[i].pass ? "PASS" : "FAIL");
    for (const KernelCheck& c : val[i].kernels)
      if (c.status != "PASS") std::printf("  [%s: %s]", c.kernel.c_str(), c.detail.c_str());
    if (!val[i].detail.empty()) std::printf("  [%s]", val[i].detail.c_str());
    std::printf("  peer %s", val[i].peerStatus.c_str());
    if (!std::isnan(val[i].peerRel)) std::printf(" (rel %.2g)", val[i].peerRel);
    std::printf("\n");
  }
  std::fflush(stdout);

  // 2. Ceilings.
  const Ceilings ce = measureCeilings(o.copyBytes);
  std::printf("ceilings: D2D copy %.0f GB/s (read+write, %.2f GB each way), FP64 FMA %.2f TFLOP/s, FP32 FMA %.2f TFLOP/s\n",
              ce.copyGBs, ce.copyBytes / 1e9, ce.fp64TFs, ce.fp32TFs);
  std::fflush(stdout);

  // 3. Rows.
  void* flush = nullptr;
  BENCH_CHECK(cudaMalloc(&flush, o.flushBytes));
  BENCH_CHECK(cudaMemset(flush, 0x5a, o.flushBytes));
  int* sink = nullptr;
  BENCH_CHECK(cudaMalloc(&sink, sizeof(int)));
  double* scratch = nullptr;
  BENCH_CHECK(cudaMalloc(&scratch, 2 * sizeof(double)));
  std::string rowsJson;
  auto writeJson = [&](bool complete) {
    std::ofstream js(o.json + ".tmp");
    js << headerJson(prop.name, prop.multiProcessorCount, prop.major, prop.minor, prop.l2CacheSize,
                     static_cast<double>(prop.totalGlobalMem), smClock, memClock, busWidth, o, ce)
       << " \"complete\": " << (complete ? "true" : "false") << ",\n \"rows\": [\n" << rowsJson << "\n ]\n}\n";
    js.close();
    if (!js || std::rename((o.json + ".tmp").c_str(), o.json.c_str()) != 0) {
      std::fprintf(stderr, "stnbench: cannot write %s\n", o.json.c_str());
      return false;
    }
    return true;
  };
  for (size_t ri = 0; ri < rows.size(); ++ri) {
    const Row& r = rows[ri];
    const long n = r.grid == "acoustic" ? o.na : o.n;
    RowData d;
    d.alloc(r, n, n, n, o.sets);
    for (int s = 0; s < o.sets; ++s) d.fill(s, s, true);
    BENCH_CHECK(cudaDeviceSynchronize());
    // Checksums of set 0 after one sweep from fresh data (peers.py recomputes the same data).
    std::string sums;
    std::vector<std::pair<double, double>> stncSums;
    cudaError_t e = runRow(r, d, 0, 0);
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    for (size_t f = 0; f < d.fields.size() && e == cudaSuccess; ++f) {
      if (d.fields[f].role == kIn) continue;
      auto cs = checksum(d.ptr[0][f], d.elem, d.L, scratch);
      stncSums.push_back(cs);
      sums += (sums.empty() ? "" : ", ") + jstr(d.fields[f].name) + ": [" + fmt("%.17g", cs.first) + ", " +
              fmt("%.17g", cs.second) + "]";
    }
    std::string peerAgree = "n/a";
    double peerSumRel = NAN;
    if (e == cudaSuccess && hasPeer(r.peer)) {
      d.fill(0, 0, true);
      cudaError_t pe = runRowPeer(r, d, 0, 0);
      if (pe == cudaSuccess) pe = cudaDeviceSynchronize();
      if (pe == cudaSuccess) {
        double worst = 0;
        size_t k = 0;
        for (size_t f = 0; f < d.fields.size(); ++f) {
          if (d.fields[f].role == kIn) continue;
          auto cs = checksum(d.ptr[0][f], d.elem, d.L, scratch);
          const double rel = std::fabs(cs.first - stncSums[k].first) / std::max(stncSums[k].second, 1e-300);
          worst = std::max(worst, rel);
          ++k;
        }
        peerSumRel = worst;
        peerAgree = worst <= (d.elem == 8 ? 1e-10 : 1e-5) ? "PASS" : "FAIL";
      } else {
        peerAgree = std::string("FAIL (") + cudaGetErrorString(pe) + ")";
      }
      d.fill(0, 0, true);
    }
    Timing ts, tp;
    if (e == cudaSuccess) {
      ts = timeIt([&](int set) { return runRow(r, d, set, 0); }, o, o.sets, flush, o.flushBytes, sink);
      if (hasPeer(r.peer))
        tp = timeIt([&](int set) { return runRowPeer(r, d, set, 0); }, o, o.sets, flush, o.flushBytes, sink);
    } else {
      ts.error = cudaGetErrorString(e);
    }
    // Time stepping through the launcher's cuda::step (CUDA graph of two steps, replayed): one call
    // of o.steps steps per sample, 5 samples after a warm-up call; reported per step.
    Timing tsteps;
    if (e == cudaSuccess && r.timeSteps && r.kernels.size() == 1 && o.steps >= 4) {
      const KernelInfo* K = r.kernels[0];
      d.fill(0, 0, true);
      std::vector<void*> f(K->fieldCount);
      for (int i = 0; i < K->fieldCount; ++i) f[i] = d.ptr[0][fieldIndex(d.fields, K->fieldNames[i])];
      Options so = o;
      so.reps = 5;
      so.warmup = 1;
      tsteps = timeIt([&](int) { return K->step(d.L, o.steps, f.data(), r.params[0].data(), 0); }, so, 1, flush,
                      o.flushBytes, sink);
      for (double& u : tsteps.us) u /= static_cast<double>(o.steps);
      tsteps.med /= o.steps;
      tsteps.min /= o.steps;
      tsteps.max /= o.steps;
    }
    // Streaming ceiling on the row's own arrays (after the row's timings: it overwrites outputs).
    Timing tstream;
    StreamArgs sa[8];
    const int nsets = std::min(o.sets, 8);
    for (int s = 0; s < nsets; ++s) {
      sa[s].n16 = d.L.count * d.elem / sizeof(int4);
      for (size_t f = 0; f < d.fields.size(); ++f) {
        int4* p = static_cast<int4*>(d.ptr[s][f]);
        if (d.fields[f].role != kOut && sa[s].nIn < kStreamMaxIn) sa[s].in[sa[s].nIn++] = p;
        if (d.fields[f].role != kIn && sa[s].nOut < kStreamMaxOut) sa[s].out[sa[s].nOut++] = p;
      }
    }
    const char* streamPick = "";
    for (int var = 0; var < kStreamVariants && e == cudaSuccess; ++var) {
      Timing t = timeIt([&](int set) { return launchStream(sa[set], var, 0); }, o, nsets, flush, o.flushBytes, sink);
      if (t.error.empty() && (std::isnan(tstream.med) || t.med < tstream.med)) {
        tstream = t;
        streamPick = streamVariantName(var);
      }
    }
    // cudaMemcpy of one array of the row (its first read array into its first written one): 1R1W at this size.
    Timing tcopy;
    if (e == cudaSuccess && sa[0].nIn > 0 && sa[0].nOut > 0)
      tcopy = timeIt([&](int set) {
        return cudaMemcpyAsync(sa[set].out[0], sa[set].in[0], sa[set].n16 * sizeof(int4), cudaMemcpyDeviceToDevice, 0);
      }, o, nsets, flush, o.flushBytes, sink);
    const double streamBytes = static_cast<double>(sa[0].nIn + sa[0].nOut) * sa[0].n16 * sizeof(int4);
    const double copyBytes = 2.0 * sa[0].n16 * sizeof(int4);  // read + written
    // Bytes: each input read once, each output written once (inout both), interior points only.
    int moved = 0;
    for (const RowField& f : d.fields) moved += f.role == kInout ? 2 : 1;
    double flops = 0;
    for (const KernelInfo* k : r.kernels) flops += k->flops;
    const double pts = static_cast<double>(n) * n * n;
    const double bytes = pts * moved * d.elem;
    const double memFloorUs = bytes / (ce.copyGBs * 1e9) * 1e6;
    const double fpRate = (d.elem == 8 ? ce.fp64TFs : ce.fp32TFs) * 1e12;
    const double fpFloorUs = pts * flops / fpRate * 1e6;
    const double frac = std::max(memFloorUs, fpFloorUs) / ts.med;
    std::printf("%-16s %4ld^3 %s  stnc %9.1f us  %7.2f Gpts/s  %7.0f GB/s  floor %.3f", r.id.c_str(), n,
                d.elem == 8 ? "f64" : "f32", ts.med, pts / ts.med / 1e3, bytes / ts.med / 1e3, frac);
    std::printf("  | stream %.0f GB/s (%dR%dW, %s): row at %.2f of it; copy at size %.0f GB/s", streamBytes / tstream.med / 1e3,
                sa[0].nIn, sa[0].nOut, streamPick, (bytes / ts.med) / (streamBytes / tstream.med),
                copyBytes / tcopy.med / 1e3);
    if (hasPeer(r.peer)) std::printf("  | cuda-naive %9.1f us (stnc/naive %.2f, sums %s)", tp.med, ts.med / tp.med, peerAgree.c_str());
    if (!ts.error.empty()) std::printf("  ERROR %s", ts.error.c_str());
    std::printf("\n");
    if (r.timeSteps && !std::isnan(tsteps.med))
      std::printf("%-16s %4ld^3 %s  cuda::step x%ld: %9.1f us/step  %7.2f Gpts/s  floor %.3f\n", r.id.c_str(), n,
                  d.elem == 8 ? "f64" : "f32", o.steps, tsteps.med, pts / tsteps.med / 1e3,
                  std::max(memFloorUs, fpFloorUs) / tsteps.med);
    if (r.timeSteps && !tsteps.error.empty()) std::printf("%-16s cuda::step ERROR %s\n", r.id.c_str(), tsteps.error.c_str());
    std::fflush(stdout);

    RowResult rr{n, moved, pts, bytes, flops, memFloorUs, fpFloorUs, frac, sums, peerAgree, peerSumRel, ts, tp, tsteps,
                 tstream, sa[0].nIn, sa[0].nOut, streamBytes, streamPick, tcopy, copyBytes};
    rowsJson += std::string(rowsJson.empty() ? "" : ",\n") + rowJson(r, d.fields, d.L, d.elem, rr, val[ri], o);
    d.release();
    if (!writeJson(false)) return 1;  // after every row: a later crash keeps what was measured
  }
  BENCH_CHECK(cudaFree(flush));
  BENCH_CHECK(cudaFree(scratch));
  BENCH_CHECK(cudaFree(sink));
  if (!writeJson(true)) return 1;
  std::printf("stnbench: wrote %s\n", o.json.c_str());
  return 0;
}

}  // namespace
}  // namespace bench

int main(int argc, char** argv) { return bench::run(argc, argv); }
