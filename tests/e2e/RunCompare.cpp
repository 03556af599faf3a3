// End-to-end tests of `stnc run` (CPU backend) against independent references.
//
//   stnc_e2e_run --stnc STNC --stn-dir DIR --stdlib DIR --work DIR [--file FILE.stn] [--backend cuda] CASE
//                                        (--backend: what `stnc run` uses, default cpu; cuda on a GPU machine)
//   stnc_e2e_run --list                  print every case name
//   stnc_e2e_run --check-list a,b,c      check that the CMake registration lists exactly the cases
//
// A run case writes random (never all-zero) inputs of the right shape as .npy files, runs
// `stnc run FILE --stencil NAME --size ... --in ... --out ... --param ... [--steps N]` as a
// subprocess, reads the outputs back and compares them with a reference computed here: plain loops
// over the mathematical definition of the stencil and our own numpy.pad-style boundary fill. The
// reference does not call generated code or any stnc library (driver/Npy.h is used for file I/O
// only).
//
// Floating point and tolerances. This file is compiled with -ffp-contract=off (no FMA). Every
// reference expression is written in the source's term order (sums unrolled left to right, `a*b*c`
// as (a*b)*c), literals and const expressions are evaluated in double and rounded once to the
// stencil type (the language folds constants in float64), params are parsed with strtod and
// rounded once. So the reference performs exactly the operations the language defines:
//   * f64: outputs must be bit-identical (tolerance 0).
//   * f32: also written in source order and expected bit-identical; the check reports how many
//     points are. A case may set `tol` (relative, at most 1e-5 as the issue allows): a point passes
//     when |got - ref| <= tol * max(|ref|, 1e-3 * max|ref| over the array). No case needs it today.
// exp uses the same libm as the generated code on this machine, so it is exact here too.
// Orders the contract leaves open and this file assumes: box(R) offsets enumerate
// lexicographically (first axis slowest, -R..R); star(R) lists the centre, then axis 0 from -R to R,
// then axis 1, ...
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

#include "driver/Npy.h"

namespace fs = std::filesystem;
using stnc::driver::NpyArray;

namespace {

// ---- options, failures, subprocesses --------------------------------------------------------

struct Options {
  std::string stnc, stnDir, stdlib, work;
  std::string file;  // --file: the .stn file the CMake registration expects the case to use
  std::string backend = "cpu";  // --backend: `stnc run --backend` (cuda validates the GPU code against the same references)
};
Options g_opt;

[[noreturn]] void die(const std::string& msg) {
  std::cout.flush();
  std::cerr << "e2e: FAIL: " << msg << "\n";
  std::exit(1);
}

void expect(bool cond, const std::string& msg) {
  if (!cond) die(msg);
}

std::string shellQuote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

struct Proc {
  int status = -1;
  std::string output;  // stdout and stderr together (stdout only with stdoutOnly)
};

// Runs a command; its stderr goes to ours when stdoutOnly (for `stnc info`, whose JSON is stdout).
Proc runProcess(const std::vector<std::string>& args, const std::string& cwd = "", bool stdoutOnly = false) {
  std::string cmd;
  if (!cwd.empty()) cmd = "cd " + shellQuote(cwd) + " && ";
  for (const std::string& a : args) cmd += shellQuote(a) + " ";
  if (!stdoutOnly) cmd += "2>&1";
  std::cout << "$ " << cmd << "\n";
  std::cout.flush();
  Proc r;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) die("popen failed for: " + cmd);
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.output.append(buf, n);
  int st = ::pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
  std::cout << r.output << "[exit " << r.status << "]\n";
  return r;
}

std::string readFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) die("cannot read " + p.string());
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void writeFile(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << bytes;
  if (!out) die("cannot write " + p.string());
}

bool contains(const std::string& hay, const std::string& needle) { return hay.find(needle) != std::string::npos; }

fs::path freshWorkDir() {
  fs::path w = g_opt.work;
  std::error_code ec;
  fs::remove_all(w, ec);
  fs::create_directories(w);
  return w;
}

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

// ---- arrays with a halo ------------------------------------------------------------------------

// A full-shaped array: n[d] + 2*h[d] points per axis, axis 0 slowest (like the .npy files).
// Coordinates are interior-relative: halo points have coordinates in [-h, 0) and [n, n + h).
// Unused trailing axes have n = 1, h = 0. Every access is bounds-checked, so a reference that reads
// outside the stencil's halo fails loudly instead of reading garbage.
template <class T>
struct Arr {
  int rank = 0;
  long n[3] = {1, 1, 1};
  long h[3] = {0, 0, 0};
  std::vector<T> v;
  Arr() = default;
  Arr(const std::vector<long>& ns, const std::vector<int>& hs, T init) : rank(static_cast<int>(ns.size())) {
    for (int d = 0; d < rank; ++d) {
      n[d] = ns[d];
      h[d] = hs[d];
    }
    v.assign(static_cast<size_t>(dim(0) * dim(1) * dim(2)), init);
  }
  long dim(int d) const { return n[d] + 2 * h[d]; }
  size_t idx(long i, long j, long k) const {
    const long c[3] = {i, j, k};
    for (int d = 0; d < 3; ++d)
      if (c[d] < -h[d] || c[d] >= n[d] + h[d])
        die("reference reads outside the array: axis " + std::to_string(d) + " coordinate " + std::to_string(c[d]) +
            " (n=" + std::to_string(n[d]) + ", halo=" + std::to_string(h[d]) + ")");
    return static_cast<size_t>(((i + h[0]) * dim(1) + (j + h[1])) * dim(2) + (k + h[2]));
  }
  T& operator()(long i, long j = 0, long k = 0) { return v[idx(i, j, k)]; }
  const T& operator()(long i, long j = 0, long k = 0) const { return v[idx(i, j, k)]; }
};

// ---- boundary rules: numpy.pad(interior, halo, mode) -------------------------------------------

enum class Rule { Periodic, Value, Clamp, Mirror };

// The interior coordinate numpy.pad copies into halo coordinate x along an axis of extent n:
// 'wrap' (periodic), 'edge' (clamp), 'symmetric' (mirror: the edge value is repeated, period 2n).
long padSource(long x, long n, Rule r) {
  switch (r) {
    case Rule::Periodic: return ((x % n) + n) % n;
    case Rule::Clamp: return std::min(std::max(x, 0L), n - 1);
    case Rule::Mirror: {
      const long p = 2 * n;
      const long m = ((x % p) + p) % p;
      return m < n ? m : p - 1 - m;
    }
    case Rule::Value: break;
  }
  return -1;
}

// numpy.pad pads one axis after the other, in axis order: axis d is padded along the already padded
// extent of the axes before it and the interior extent of the axes after it.
template <class T>
void padAxis(Arr<T>& a, int d, Rule r, T value) {
  long lo[3], hi[3];
  for (int e = 0; e < 3; ++e) {
    lo[e] = e <= d ? -a.h[e] : 0;
    hi[e] = e <= d ? a.n[e] + a.h[e] : a.n[e];
  }
  for (long x = lo[0]; x < hi[0]; ++x)
    for (long y = lo[1]; y < hi[1]; ++y)
      for (long z = lo[2]; z < hi[2]; ++z) {
        long c[3] = {x, y, z};
        if (c[d] >= 0 && c[d] < a.n[d]) continue;  // interior along d
        if (r == Rule::Value) {
          a(x, y, z) = value;
          continue;
        }
        c[d] = padSource(c[d], a.n[d], r);
        a(x, y, z) = a(c[0], c[1], c[2]);
      }
}

// ---- cases -------------------------------------------------------------------------------------

enum Role { In, Out, InOut };

struct FieldSpec {
  std::string name;
  Role role;
  bool interiorInput = false;  // write the input .npy interior-shaped (a boundary rule fills the halo)
  double lo = -1.0, hi = 1.0;  // uniform random input values in [lo, hi)
  std::vector<int> axes = {};  // a lower-rank input (`in c(k);`): the stencil axes it has; empty = every axis
};

template <class T>
struct Env {
  std::vector<long> n;
  std::vector<int> halo;
  std::map<std::string, Arr<T>*> cur;  // role -> the array holding it now
  std::map<std::string, Arr<T>> outs;  // this sweep's results (copied into the role arrays after it)
  std::map<std::string, T> params;
  const Arr<T>& in(const std::string& f) const {
    auto it = cur.find(f);
    if (it == cur.end()) die("reference: no field " + f);
    return *it->second;
  }
  Arr<T>& out(const std::string& f) {
    auto it = outs.find(f);
    if (it == outs.end()) it = outs.emplace(f, Arr<T>(n, halo, std::numeric_limits<T>::quiet_NaN())).first;
    return it->second;
  }
  T p(const std::string& name) const {
    auto it = params.find(name);
    if (it == params.end()) die("reference: no param " + name);
    return it->second;
  }
  // Calls f(i, j, k) for every interior point (unused axes are 0).
  template <class F>
  void each(F f) const {
    long N[3] = {1, 1, 1};
    for (size_t d = 0; d < n.size(); ++d) N[d] = n[d];
    for (long i = 0; i < N[0]; ++i)
      for (long j = 0; j < N[1]; ++j)
        for (long k = 0; k < N[2]; ++k) f(i, j, k);
  }
};

template <class T>
struct BoundarySpec {
  std::string field;
  std::vector<int> axes;  // empty = every axis
  Rule rule;
  std::function<T(const Env<T>&)> value;  // Rule::Value only, evaluated in the stencil type
};

// A point source (stnc run --source FIELD@C,...=WAVE): after step t's sweep, wave[t] is added to role
// `field` at interior point `at`. constant: passed as a number (the same value every step), else as a
// float64 .npy file (which may hold more values than steps).
struct SourceSpec {
  std::string field;
  std::vector<long> at;
  std::vector<double> wave;
  bool constant = false;
};

template <class T>
struct Case {
  std::string file, stencil;
  std::vector<long> size;
  std::vector<int> halo;  // the stencil's halo, worked out by hand from its equations
  std::vector<FieldSpec> fields;
  std::vector<std::pair<std::string, std::string>> params;  // NAME, VALUE text as passed to --param
  std::vector<std::pair<std::string, std::string>> swaps;
  std::vector<BoundarySpec<T>> rules;
  long steps = 0;  // > 0: pass --steps N
  long bench = 0;  // > 0: pass --bench R (the timed sweeps must not change the results)
  std::vector<SourceSpec> sources;  // --source, with steps > 0
  std::function<void(Env<T>&)> sweep;
  std::vector<std::string> check;  // fields written with --out and compared
  double tol = 0.0;                // relative tolerance, f32 only (0 = bit-identical)
};

std::string sizeText(const std::vector<long>& n) {
  std::string s;
  for (size_t i = 0; i < n.size(); ++i) s += (i ? "x" : "") + std::to_string(n[i]);
  return s;
}

template <class T>
const char* descrOf() {
  return std::is_same<T, float>::value ? "<f4" : "<f8";
}

template <class T>
bool sameBits(T a, T b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

// Compares an interior-shaped output with the interior of the reference array.
template <class T>
bool compareOutput(const std::string& field, const NpyArray& got, const Arr<T>& ref, double tol) {
  std::vector<long> shape(ref.n, ref.n + ref.rank);
  if (got.descr != descrOf<T>()) {
    std::cout << field << ": dtype " << got.descr << ", expected " << descrOf<T>() << "\n";
    return false;
  }
  if (got.shape != shape) {
    std::cout << field << ": shape " << stnc::driver::shapeText(got.shape) << ", expected "
              << stnc::driver::shapeText(shape) << "\n";
    return false;
  }
  double maxAbs = 0;
  for (long i = 0; i < ref.n[0]; ++i)
    for (long j = 0; j < ref.n[1]; ++j)
      for (long k = 0; k < ref.n[2]; ++k) {
        T r = ref(i, j, k);
        if (std::isnan(r)) die("reference left " + field + " unset or NaN at an interior point");
        maxAbs = std::max(maxAbs, std::fabs(static_cast<double>(r)));
      }
  size_t total = 0, exact = 0, within = 0, bad = 0;
  double maxRel = 0;
  const T* g = reinterpret_cast<const T*>(got.data.data());
  for (long i = 0; i < ref.n[0]; ++i)
    for (long j = 0; j < ref.n[1]; ++j)
      for (long k = 0; k < ref.n[2]; ++k, ++g) {
        T gv;
        std::memcpy(&gv, g, sizeof(T));
        const T rv = ref(i, j, k);
        ++total;
        if (sameBits(gv, rv)) {
          ++exact;
          continue;
        }
        const double err = std::fabs(static_cast<double>(gv) - static_cast<double>(rv));
        const double scale = std::max(std::fabs(static_cast<double>(rv)), 1e-3 * maxAbs);
        const double rel = scale > 0 ? err / scale : err;
        if (!std::isnan(rel)) maxRel = std::max(maxRel, rel);
        if (tol > 0 && rel <= tol) {
          ++within;
          continue;
        }
        if (++bad <= 10) {
          std::printf("  %s mismatch at (%ld, %ld, %ld)[:rank %d]: got %.17g, expected %.17g (rel %.3g)\n",
                      field.c_str(), i, j, k, ref.rank, static_cast<double>(gv), static_cast<double>(rv), rel);
        }
      }
  std::printf("%s: %zu points, %zu bit-identical, %zu within tol %.1e, %zu wrong; max rel err %.3g (max |ref| %.4g)\n",
              field.c_str(), total, exact, within, tol, bad, maxRel, maxAbs);
  return bad == 0;
}

// `stnc info` describes the stencil (or group) as the case does: halo per axis (worked out by hand
// in the case), fields by role, params and type.
template <class T>
void checkInfo(const Case<T>& c) {
  Proc p = runProcess({g_opt.stnc, "info", (fs::path(g_opt.stnDir) / c.file).string(), "-I", g_opt.stdlib}, "", true);
  expect(p.status == 0, "stnc info exited with " + std::to_string(p.status));
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(p.output);
  } catch (const std::exception& e) {
    die(std::string("stnc info printed invalid JSON: ") + e.what());
  }
  const nlohmann::json* entry = nullptr;
  bool isGroup = false;
  for (const char* kind : {"stencils", "groups"})
    if (j.contains(kind))
      for (const auto& x : j.at(kind))
        if (x.value("name", "") == c.stencil) {
          entry = &x;
          isGroup = std::string(kind) == "groups";
        }
  expect(entry != nullptr, "stnc info does not list " + c.stencil);
  expect(entry->contains("halo") && entry->at("halo").get<std::vector<int>>() == c.halo,
         "stnc info: halo of " + c.stencil + " is " + entry->value("halo", nlohmann::json()).dump() +
             ", the case expects another");
  auto names = [&](const char* key) {
    std::set<std::string> out;
    if (entry->contains(key))
      for (const auto& x : entry->at(key)) out.insert(x.get<std::string>());
    return out;
  };
  std::set<std::string> in, out, inout;
  for (const FieldSpec& f : c.fields) (f.role == In ? in : f.role == Out ? out : inout).insert(f.name);
  expect(names("inputs") == in, "stnc info: inputs of " + c.stencil + " differ from the case's");
  expect(names("outputs") == out, "stnc info: outputs of " + c.stencil + " differ from the case's");
  if (!isGroup) {
    expect(names("inouts") == inout, "stnc info: inouts of " + c.stencil + " differ from the case's");
    std::set<std::string> params;
    for (auto& pr : c.params) params.insert(pr.first);
    expect(names("params") == params, "stnc info: params of " + c.stencil + " differ from the case's");
    expect(entry->value("type", "") == (std::is_same<T, float>::value ? "f32" : "f64"),
           "stnc info: type of " + c.stencil + " differs from the case's");
  }
}

template <class T>
int runCase(const std::string& name, const Case<T>& c) {
  static_assert(std::is_same<T, float>::value || std::is_same<T, double>::value, "f32 or f64");
  expect(c.tol == 0 || (std::is_same<T, float>::value && c.tol <= 1e-5), "tolerance only for f32, at most 1e-5");
  if (!g_opt.file.empty() && g_opt.file != c.file)
    die("case " + name + " uses " + c.file + ", but tests/e2e/CMakeLists.txt registers it under " + g_opt.file);
  const fs::path work = freshWorkDir();
  const int rank = static_cast<int>(c.size.size());
  expect(static_cast<int>(c.halo.size()) == rank, "case halo has the wrong rank");
  std::vector<long> full;
  for (int a = 0; a < rank; ++a) full.push_back(c.size[a] + 2 * c.halo[a]);

  // Buffers, one per field, all zero (as `stnc run` allocates them).
  std::map<std::string, Arr<T>> buf;
  // A lower-rank field's buffer has extent 1 and no halo along the axes it lacks (read as c(i, 0, 0)).
  auto sizeOf = [&](const FieldSpec& f, const std::vector<long>& all) {
    if (f.axes.empty()) return all;
    std::vector<long> s(all.size(), 1);
    for (int a : f.axes) s[static_cast<size_t>(a)] = all[static_cast<size_t>(a)];
    return s;
  };
  auto haloOf = [&](const FieldSpec& f) {
    if (f.axes.empty()) return c.halo;
    std::vector<int> h(c.halo.size(), 0);
    for (int a : f.axes) h[static_cast<size_t>(a)] = c.halo[static_cast<size_t>(a)];
    return h;
  };
  for (const FieldSpec& f : c.fields) buf.emplace(f.name, Arr<T>(sizeOf(f, c.size), haloOf(f), T(0)));

  std::vector<std::string> cmd = {g_opt.stnc, "run", (fs::path(g_opt.stnDir) / c.file).string(), "-I", g_opt.stdlib, "--backend", g_opt.backend,
                                  "--stencil", c.stencil, "--size", sizeText(c.size)};
  std::mt19937_64 rng(fnv1a(name));
  std::set<std::string> loaded;
  for (const FieldSpec& f : c.fields) {
    if (f.role == Out) continue;
    std::uniform_real_distribution<double> dist(f.lo, f.hi);
    NpyArray a;
    a.descr = descrOf<T>();
    a.shape = f.interiorInput ? c.size : full;
    if (!f.axes.empty()) {  // dense over its own axes, halo included: n + 2*halo each
      a.shape.clear();
      for (int ax : f.axes) a.shape.push_back(full[static_cast<size_t>(ax)]);
    }
    std::vector<T> vals(a.count());
    bool nonZero = false;
    for (T& x : vals) {
      x = static_cast<T>(dist(rng));
      nonZero |= x != T(0);
    }
    expect(nonZero, "random input " + f.name + " is all zero");
    a.data.resize(vals.size() * sizeof(T));
    std::memcpy(a.data.data(), vals.data(), a.data.size());
    const fs::path file = work / ("in_" + f.name + ".npy");
    writeFile(file, stnc::driver::npyBytes(a));
    cmd.push_back("--in");
    cmd.push_back(f.name + "=" + file.string());
    // Same data into the reference buffer: interior-shaped inputs leave the halo at zero.
    Arr<T>& b = buf.at(f.name);
    const long off = f.interiorInput ? 0 : 1;
    long ext[3] = {1, 1, 1};
    const std::vector<long> fext = f.interiorInput ? c.size : sizeOf(f, full);
    for (int d = 0; d < rank; ++d) ext[d] = fext[static_cast<size_t>(d)];
    size_t at = 0;
    for (long x = 0; x < ext[0]; ++x)
      for (long y = 0; y < ext[1]; ++y)
        for (long z = 0; z < ext[2]; ++z) b(x - off * b.h[0], y - off * b.h[1], z - off * b.h[2]) = vals[at++];
    loaded.insert(f.name);
  }
  // Both buffers of a swap pair start from the given input, halo included.
  for (auto& [a, b] : c.swaps) {
    if (loaded.count(a) && !loaded.count(b)) buf.at(b) = buf.at(a);
    if (loaded.count(b) && !loaded.count(a)) buf.at(a) = buf.at(b);
  }
  for (const std::string& f : c.check) {
    cmd.push_back("--out");
    cmd.push_back(f + "=" + (work / ("out_" + f + ".npy")).string());
  }
  Env<T> env;
  env.n = c.size;
  env.halo = c.halo;
  for (auto& [pname, text] : c.params) {
    cmd.push_back("--param");
    cmd.push_back(pname + "=" + text);
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    expect(end && *end == '\0', "bad param text " + text);
    env.params[pname] = static_cast<T>(v);
  }
  if (c.steps > 0) {
    cmd.push_back("--steps");
    cmd.push_back(std::to_string(c.steps));
  }

  for (size_t q = 0; q < c.sources.size(); ++q) {
    const SourceSpec& src = c.sources[q];
    std::string at;
    for (long x : src.at) at += (at.empty() ? "" : ",") + std::to_string(x);
    std::string wave;
    if (src.constant) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.17g", src.wave.at(0));
      wave = buf;
    } else {
      NpyArray a;
      a.descr = "<f8";
      a.shape = {static_cast<long>(src.wave.size())};
      a.data.resize(src.wave.size() * 8);
      std::memcpy(a.data.data(), src.wave.data(), a.data.size());
      const fs::path file = work / ("wave" + std::to_string(q) + ".npy");
      writeFile(file, stnc::driver::npyBytes(a));
      wave = file.string();
    }
    cmd.push_back("--source");
    cmd.push_back(src.field + "@" + at + "=" + wave);
  }
  if (c.bench > 0) {
    cmd.push_back("--bench");
    cmd.push_back(std::to_string(c.bench));
  }
  checkInfo(c);
  Proc pr = runProcess(cmd);
  expect(pr.status == 0, "stnc run exited with " + std::to_string(pr.status));
  if (c.bench > 0) expect(contains(pr.output, "ms") && contains(pr.output, "GB/s"), "--bench printed no timing");

  // The reference: N x (fill boundaries, sweep, swap), or one fill + sweep without --steps.
  std::map<std::string, std::string> role;  // role -> buffer name
  for (const FieldSpec& f : c.fields) role[f.name] = f.name;
  const long n = c.steps > 0 ? c.steps : 1;
  for (long s = 0; s < n; ++s) {
    env.cur.clear();
    for (auto& [r, b] : role) env.cur[r] = &buf.at(b);
    for (int d = 0; d < rank; ++d)
      for (const BoundarySpec<T>& b : c.rules) {
        if (!b.axes.empty() && std::find(b.axes.begin(), b.axes.end(), d) == b.axes.end()) continue;
        T value = b.rule == Rule::Value ? b.value(env) : T(0);
        padAxis(*env.cur.at(b.field), d, b.rule, value);
      }
    env.outs.clear();
    c.sweep(env);
    for (auto& [f, result] : env.outs) {
      Arr<T>& dst = *env.cur.at(f);
      env.each([&](long i, long j, long k) { dst(i, j, k) = result(i, j, k); });
    }
    for (const SourceSpec& src : c.sources) {  // after the sweep, before the swap; the value rounded once to T
      const long at[3] = {src.at.at(0), src.at.size() > 1 ? src.at[1] : 0, src.at.size() > 2 ? src.at[2] : 0};
      (*env.cur.at(src.field))(at[0], at[1], at[2]) += static_cast<T>(src.constant ? src.wave.at(0) : src.wave.at(s));
    }
    if (c.steps > 0)
      for (auto& [a, b] : c.swaps) std::swap(role.at(a), role.at(b));
  }

  bool ok = true;
  for (const std::string& f : c.check) {
    NpyArray got;
    std::string err;
    if (!stnc::driver::readNpy((work / ("out_" + f + ".npy")).string(), got, err)) die(err);
    ok &= compareOutput(f, got, buf.at(role.at(f)), c.tol);
  }
  if (!ok) die("outputs differ from the reference");
  std::cout << "e2e: PASS " << name << "\n";
  return 0;
}

// ---- the stencils' references ------------------------------------------------------------------
// Each mirrors the equations of tests/e2e/stn/FILE.stn term by term (see the header comment).

using Shape = std::vector<long>;

template <class T>
T mn(T a, T b) {
  return a < b ? a : b;
}
template <class T>
T mx(T a, T b) {
  return a > b ? a : b;
}

// heat3d.stn (LANGUAGE.md): unew = u + nu*dt*(six neighbours - 6u).
Case<double> heat3d(Shape n, long steps = 0) {
  Case<double> c;
  c.file = "heat3d.stn";
  c.stencil = "heat3d";
  c.size = n;
  c.halo = {1, 1, 1};
  c.fields = {{"u", In}, {"unew", Out}};
  c.params = {{"dt", "0.37"}};
  c.steps = steps;
  c.check = {"unew"};
  c.sweep = [](Env<double>& e) {
    const auto& u = e.in("u");
    auto& unew = e.out("unew");
    const double dt = e.p("dt"), nu = 0.1;
    e.each([&](long i, long j, long k) {
      unew(i, j, k) = u(i, j, k) + nu * dt *
                                       (u(i - 1, j, k) + u(i + 1, j, k) + u(i, j - 1, k) + u(i, j + 1, k) +
                                        u(i, j, k - 1) + u(i, j, k + 1) - 6.0 * u(i, j, k));
    });
  };
  return c;
}

// jacobi2d.stn (LANGUAGE.md), f32, periodic.
Case<float> jacobi2d(Shape n, bool interiorInput) {
  Case<float> c;
  c.file = "jacobi2d.stn";
  c.stencil = "jacobi2d";
  c.size = n;
  c.halo = {1, 1};
  c.fields = {{"a", In, interiorInput}, {"b", Out}};
  c.params = {{"w", "0.8"}};
  c.rules = {{"a", {}, Rule::Periodic, nullptr}};
  c.check = {"b"};
  c.sweep = [](Env<float>& e) {
    const auto& a = e.in("a");
    auto& b = e.out("b");
    const float w = e.p("w");
    e.each([&](long i, long j, long) {
      b(i, j) = (1.0f - w) * a(i, j) + w * 0.25f * (a(i - 1, j) + a(i + 1, j) + a(i, j - 1) + a(i, j + 1));
    });
  };
  return c;
}

// lap8.stn (LANGUAGE.md): 3*c8[0]*u + sum(m in 1..4) c8[m]*(six arms at distance m). The same stencil
// with a `schedule` statement: scheduled.stn's lap8s.
Case<double> lap8(Shape n, const char* file = "lap8.stn", const char* stencil = "lap8") {
  Case<double> c;
  c.file = file;
  c.stencil = stencil;
  c.size = n;
  c.halo = {4, 4, 4};
  c.fields = {{"u", In}, {"l", Out}};
  c.check = {"l"};
  c.sweep = [](Env<double>& e) {
    const auto& u = e.in("u");
    auto& l = e.out("l");
    const double c8[5] = {-205.0 / 72.0, 8.0 / 5.0, -1.0 / 5.0, 8.0 / 315.0, -1.0 / 560.0};
    e.each([&](long i, long j, long k) {
      double s = 0;
      for (int m = 1; m <= 4; ++m) {
        double t = c8[m] * (u(i + m, j, k) + u(i - m, j, k) + u(i, j + m, k) + u(i, j - m, k) + u(i, j, k + m) +
                            u(i, j, k - m));
        s = m == 1 ? t : s + t;
      }
      l(i, j, k) = 3.0 * c8[0] * u(i, j, k) + s;
    });
  };
  return c;
}

// flux.stn (LANGUAGE.md): f = -dxinv * dx(rho*u*u + p), dx an 8th-order first derivative along i.
Case<double> flux(Shape n) {
  Case<double> c;
  c.file = "flux.stn";
  c.stencil = "flux";
  c.size = n;
  c.halo = {4, 0, 0};
  c.fields = {{"rho", In, false, 0.5, 1.5}, {"u", In}, {"p", In}, {"f", Out}};
  c.params = {{"dxinv", "12.5"}};
  c.check = {"f"};
  c.sweep = [](Env<double>& e) {
    const auto &rho = e.in("rho"), &u = e.in("u"), &p = e.in("p");
    auto& f = e.out("f");
    const double dxinv = e.p("dxinv");
    const double a8[5] = {0.0, 0.8, -0.2, 4.0 / 105.0, -1.0 / 280.0};
    auto F = [&](long i, long j, long k) { return rho(i, j, k) * u(i, j, k) * u(i, j, k) + p(i, j, k); };
    e.each([&](long i, long j, long k) {
      double d = 0;
      for (int m = 1; m <= 4; ++m) {
        double t = a8[m] * (F(i + m, j, k) - F(i - m, j, k));
        d = m == 1 ? t : d + t;
      }
      f(i, j, k) = -dxinv * d;
    });
  };
  return c;
}

// twoout.stn (LANGUAGE.md): two outputs, a let, select/abs/max/min.
Case<double> twoout(Shape n) {
  Case<double> c;
  c.file = "twoout.stn";
  c.stencil = "twoout";
  c.size = n;
  c.halo = {1, 0, 1};
  c.fields = {{"a", In}, {"b", In}, {"s", Out}, {"m", Out}};
  c.check = {"s", "m"};
  c.sweep = [](Env<double>& e) {
    const auto &a = e.in("a"), &b = e.in("b");
    auto &s = e.out("s"), &m = e.out("m");
    e.each([&](long i, long j, long k) {
      const double g = a(i + 1, j, k) - a(i - 1, j, k);
      s(i, j, k) = g * b(i, j, k);
      m(i, j, k) = std::fabs(g) > 0.5 ? mx(a(i, j, k), b(i, j, k + 1)) : mn(a(i, j, k), b(i, j, k - 1));
    });
  };
  return c;
}

// both.stn (LANGUAGE.md): sA = apply(lap7, u), sB = sum over box(1) of u[o]*v[o], group both.
void bothLa(Env<double>& e) {
  const auto& u = e.in("u");
  auto& la = e.out("la");
  e.each([&](long i, long j, long k) {
    la(i, j, k) = -6.0 * u(i, j, k) + u(i - 1, j, k) + u(i + 1, j, k) + u(i, j - 1, k) + u(i, j + 1, k) +
                  u(i, j, k - 1) + u(i, j, k + 1);
  });
}
void bothBs(Env<double>& e) {
  const auto &u = e.in("u"), &v = e.in("v");
  auto& bs = e.out("bs");
  e.each([&](long i, long j, long k) {
    double s = 0;
    bool first = true;
    for (int a = -1; a <= 1; ++a)
      for (int b = -1; b <= 1; ++b)
        for (int d = -1; d <= 1; ++d) {
          double t = u(i + a, j + b, k + d) * v(i + a, j + b, k + d);
          s = first ? t : s + t;
          first = false;
        }
    bs(i, j, k) = s;
  });
}
Case<double> both(const std::string& stencil, Shape n) {
  Case<double> c;
  c.file = "both.stn";
  c.stencil = stencil;
  c.size = n;
  c.halo = {1, 1, 1};
  if (stencil == "sA") {
    c.fields = {{"u", In}, {"la", Out}};
    c.check = {"la"};
    c.sweep = bothLa;
  } else if (stencil == "sB") {
    c.fields = {{"u", In}, {"v", In}, {"bs", Out}};
    c.check = {"bs"};
    c.sweep = bothBs;
  } else {
    c.fields = {{"u", In}, {"v", In}, {"la", Out}, {"bs", Out}};
    c.check = {"la", "bs"};
    c.sweep = [](Env<double>& e) {
      bothLa(e);
      bothBs(e);
    };
  }
  return c;
}

// The 6-arm sum of a 3-D star at distance m, in the order of the .stn sources.
template <class T>
T arms3(const Arr<T>& u, long i, long j, long k, int m) {
  return u(i + m, j, k) + u(i - m, j, k) + u(i, j + m, k) + u(i, j - m, k) + u(i, j, k + m) + u(i, j, k - m);
}

// wave.stn (LANGUAGE.md): leapfrog, f32, inout v swapped with u, no boundary rules.
Case<float> wave(Shape n, long steps) {
  Case<float> c;
  c.file = "wave.stn";
  c.stencil = "wave";
  c.size = n;
  c.halo = {4, 4, 4};
  c.fields = {{"u", In}, {"roc2", In, false, 0.0, 0.05}, {"v", InOut}};
  c.swaps = {{"u", "v"}};
  c.steps = steps;
  c.check = {"u", "v"};
  c.sweep = [](Env<float>& e) {
    const auto &u = e.in("u"), &roc2 = e.in("roc2"), &v = e.in("v");
    auto& vn = e.out("v");
    e.each([&](long i, long j, long k) {
      float s = 0;
      for (int m = 1; m <= 4; ++m) s = m == 1 ? arms3(u, i, j, k, m) : s + arms3(u, i, j, k, m);
      vn(i, j, k) = 2.0f * u(i, j, k) - v(i, j, k) + roc2(i, j, k) * (s - 24.0f * u(i, j, k));
    });
  };
  return c;
}

// lowerrank.stn coef3d: profiles cx(i), cz(k) and s(i, k) (lower-rank inputs), shifted through a def and a let.
Case<double> coef3d(Shape n) {
  Case<double> c;
  c.file = "lowerrank.stn";
  c.stencil = "coef3d";
  c.size = n;
  c.halo = {1, 0, 2};
  c.fields = {{"u", In}, {"cx", In, false, 0.5, 1.5, {0}}, {"cz", In, false, -1.0, 1.0, {2}}, {"s", In, false, -1.0, 1.0, {0, 2}}, {"w", Out}};
  c.check = {"w"};
  c.sweep = [](Env<double>& e) {
    const auto &u = e.in("u"), &cx = e.in("cx"), &cz = e.in("cz"), &s = e.in("s");
    auto& w = e.out("w");
    e.each([&](long i, long j, long k) {
      const double ee = cx(i, 0, 0) + cz(0, 0, k - 2);  // e[i,j,k-2]
      w(i, j, k) = cx(i, 0, 0) * (u(i - 1, j, k) + u(i + 1, j, k)) + cz(0, 0, k + 1) * u(i, j, k + 1) -
                   cz(0, 0, k - 1) * u(i, j, k - 1) + s(i + 1, 0, k) * u(i, j, k) +
                   (cx(i + 1, 0, 0) * u(i + 1, j, k) - cx(i - 1, 0, 0) * u(i - 1, j, k)) + ee * u(i, j, k);
    });
  };
  return c;
}

// lowerrank.stn damp2d: f32, a profile g(j) along the contiguous axis, in-place b swapped with a.
Case<float> damp2d(Shape n, long steps) {
  Case<float> c;
  c.file = "lowerrank.stn";
  c.stencil = "damp2d";
  c.size = n;
  c.halo = {1, 1};
  c.fields = {{"a", In}, {"g", In, false, 0.0, 0.5, {1}}, {"b", InOut}};
  c.swaps = {{"a", "b"}};
  c.steps = steps;
  c.check = {"a", "b"};
  c.sweep = [](Env<float>& e) {
    const auto &a = e.in("a"), &g = e.in("g"), &b = e.in("b");
    auto& bn = e.out("b");
    e.each([&](long i, long j, long) {
      const float lap = a(i - 1, j) + a(i + 1, j) + a(i, j - 1) + a(i, j + 1) - 4.0f * a(i, j);
      bn(i, j) = lap * 0.2f + a(i, j) - g(0, j) * (a(i, j) - b(i, j)) - (g(0, j + 1) - g(0, j - 1)) * a(i, j);
    });
  };
  return c;
}

// lowerrank.stn pml3d: f32, eta = ex(i) + (ey(j) + ez(k)) at seven points, an in-place p divided per point.
Case<float> pml3d(Shape n) {
  Case<float> c;
  c.file = "lowerrank.stn";
  c.stencil = "pml3d";
  c.size = n;
  c.halo = {1, 1, 1};
  c.fields = {{"u", In},
              {"ex", In, false, 0.0, 0.5, {0}},
              {"ey", In, false, 0.0, 0.5, {1}},
              {"ez", In, false, 0.0, 0.5, {2}},
              {"p", InOut}};
  c.check = {"p"};
  c.sweep = [](Env<float>& e) {
    const auto &u = e.in("u"), &ex = e.in("ex"), &ey = e.in("ey"), &ez = e.in("ez"), &p = e.in("p");
    auto& pn = e.out("p");
    e.each([&](long i, long j, long k) {
      auto eta = [&](long a, long b, long c) { return ex(a, 0, 0) + (ey(0, b, 0) + ez(0, 0, c)); };
      const float s = (eta(i + 1, j, k) - eta(i - 1, j, k)) * (u(i + 1, j, k) - u(i - 1, j, k)) +
                      (eta(i, j + 1, k) - eta(i, j - 1, k)) * (u(i, j + 1, k) - u(i, j - 1, k)) +
                      (eta(i, j, k + 1) - eta(i, j, k - 1)) * (u(i, j, k + 1) - u(i, j, k - 1));
      pn(i, j, k) = (p(i, j, k) - s) / (1.0f + 2.0f * eta(i, j, k));
    });
  };
  return c;
}

// stdlib fd.stn coefficient tables, rounded once to the stencil type.
template <class T>
struct Fd {
  T d1_4[3] = {T(0.0), T(2.0 / 3.0), T(-1.0 / 12.0)};
  T d1_8[5] = {T(0.0), T(4.0 / 5.0), T(-1.0 / 5.0), T(4.0 / 105.0), T(-1.0 / 280.0)};
  T d2_2[2] = {T(-2.0), T(1.0)};
  T d2_4[3] = {T(-5.0 / 2.0), T(4.0 / 3.0), T(-1.0 / 12.0)};
  T d2_8[5] = {T(-205.0 / 72.0), T(8.0 / 5.0), T(-1.0 / 5.0), T(8.0 / 315.0), T(-1.0 / 560.0)};
};

// onedim.stn adv1d: r = -c*d1_4(u)/h + kappa*d2_8(u)/(h*h), f32, mirror.
Case<float> adv1d(Shape n) {
  Case<float> c;
  c.file = "onedim.stn";
  c.stencil = "adv1d";
  c.size = n;
  c.halo = {4};
  c.fields = {{"u", In, true}, {"c", In}, {"r", Out}};
  c.params = {{"h", "0.5"}, {"kappa", "0.01"}};
  c.rules = {{"u", {}, Rule::Mirror, nullptr}};
  c.check = {"r"};
  c.sweep = [](Env<float>& e) {
    const auto &u = e.in("u"), &cc = e.in("c");
    auto& r = e.out("r");
    const float h = e.p("h"), kappa = e.p("kappa");
    const Fd<float> fd;
    e.each([&](long i, long, long) {
      float d1 = 0, s2 = 0;
      for (int m = 1; m <= 2; ++m) {
        float t = fd.d1_4[m] * (u(i + m) - u(i - m));
        d1 = m == 1 ? t : d1 + t;
      }
      for (int m = 1; m <= 4; ++m) {
        float t = fd.d2_8[m] * (u(i + m) + u(i - m));
        s2 = m == 1 ? t : s2 + t;
      }
      const float d2 = fd.d2_8[0] * u(i) + s2;
      r(i) = -cc(i) * d1 / h + kappa * d2 / (h * h);
    });
  };
  return c;
}

// onedim.stn ring1d: d = d1_8(u); r = d*s + lap2_1d(u[i-2]) - u[i+3]; e = exp(-abs(d))*u[i+1].
Case<double> ring1d(Shape n) {
  Case<double> c;
  c.file = "onedim.stn";
  c.stencil = "ring1d";
  c.size = n;
  c.halo = {4};
  c.fields = {{"u", In, true}, {"r", Out}, {"e", Out}};
  c.params = {{"s", "-1.25"}};
  c.rules = {{"u", {}, Rule::Periodic, nullptr}};
  c.check = {"r", "e"};
  c.sweep = [](Env<double>& en) {
    const auto& u = en.in("u");
    auto &r = en.out("r"), &e = en.out("e");
    const double s = en.p("s");
    const Fd<double> fd;
    en.each([&](long i, long, long) {
      double d = 0;
      for (int m = 1; m <= 4; ++m) {
        double t = fd.d1_8[m] * (u(i + m) - u(i - m));
        d = m == 1 ? t : d + t;
      }
      const double lap = fd.d2_2[0] * u(i - 2) + fd.d2_2[1] * (u(i - 2 + 1) + u(i - 2 - 1));
      r(i) = d * s + lap - u(i + 3);
      e(i) = std::exp(-std::fabs(d)) * u(i + 1);
    });
  };
  return c;
}

// math2d.stn math2d (f64) / math2f (f32): lets and intrinsics, clamp + value(alpha*2-1).
template <class T>
Case<T> math2(Shape n) {
  Case<T> c;
  c.file = "math2d.stn";
  c.stencil = std::is_same<T, float>::value ? "math2f" : "math2d";
  c.size = n;
  c.halo = {1, 1};
  c.fields = {{"a", In, true}, {"b", In, true}, {"c", In}, {"r", Out}, {"s", Out}, {"t", Out}};
  c.params = {{"alpha", "0.3"}, {"beta", "1.1"}};
  c.rules = {{"a", {}, Rule::Clamp, nullptr},
             {"b", {}, Rule::Value, [](const Env<T>& e) { return e.p("alpha") * T(2.0) - T(1.0); }}};
  c.check = {"r", "s", "t"};
  c.sweep = [](Env<T>& e) {
    const auto &a = e.in("a"), &b = e.in("b"), &cc = e.in("c");
    auto &r = e.out("r"), &s = e.out("s"), &t = e.out("t");
    const T alpha = e.p("alpha"), beta = e.p("beta");
    e.each([&](long i, long j, long) {
      const T g = a(i + 1, j) - a(i - 1, j);
      const T h = b(i, j + 1) - b(i, j - 1);
      const T mag = std::sqrt(g * g + h * h);
      r(i, j) = mag > beta ? std::exp(-mag) : mn(std::fabs(g), std::fabs(h)) + mx(cc(i, j), a(i, j + 1));
      s(i, j) = g * h + alpha * cc(i, j);
      t(i, j) = mx(std::sqrt(std::fabs(cc(i, j))), std::fabs(g)) - mn(a(i, j), b(i, j)) / (T(1.0) + mag);
    });
  };
  return c;
}

// defs3d.stn: const arrays, defs with shifted arguments, sum index as a value, an indexed let.
Case<double> defs3d(Shape n) {
  Case<double> c;
  c.file = "defs3d.stn";
  c.stencil = "defs3d";
  c.size = n;
  c.halo = {2, 1, 2};
  c.fields = {{"a", In, true}, {"b", In}, {"r", Out}, {"s", Out}};
  c.params = {{"q", "0.625"}};
  c.rules = {{"a", {}, Rule::Periodic, nullptr}, {"b", {}, Rule::Mirror, nullptr}};
  c.check = {"r", "s"};
  c.sweep = [](Env<double>& e) {
    const auto &a = e.in("a"), &b = e.in("b");
    auto &r = e.out("r"), &s = e.out("s");
    const double q = e.p("q");
    const double wts[3] = {0.25, 0.5, 0.25};
    // avgx(f) = sum(m in -1..1) wts[m+1] * f[i+m,j,k], for f given as a function of a point.
    auto avgx = [&](auto f, long i, long j, long k) {
      double acc = 0;
      for (int m = -1; m <= 1; ++m) {
        double t = wts[m + 1] * f(i + m, j, k);
        acc = m == -1 ? t : acc + t;
      }
      return acc;
    };
    auto ab = [&](long i, long j, long k) { return a(i, j, k) * b(i + 1, j, k); };  // a * b[i+1,j,k]
    // grad(a, b) = a[i,j+1,k] * b - a * b[i,j+1,k]
    auto gab = [&](long i, long j, long k) { return a(i, j + 1, k) * b(i, j, k) - a(i, j, k) * b(i, j + 1, k); };
    e.each([&](long i, long j, long k) {
      // twice(f) = avgx(f[i,j,k+1]) - avgx(f[i,j,k-2])
      const double tw = avgx([&](long x, long y, long z) { return ab(x, y, z + 1); }, i, j, k) -
                        avgx([&](long x, long y, long z) { return ab(x, y, z - 2); }, i, j, k);
      // grad(a, b[i,j,k+1]) = a[i,j+1,k] * b[i,j,k+1] - a * b[i,j+1,k+1]
      const double gr = a(i, j + 1, k) * b(i, j, k + 1) - a(i, j, k) * b(i, j + 1, k + 1);
      r(i, j, k) = tw + q * gr;
      const double ag = avgx(gab, i, j, k);
      const double p = a(i, j - 1, k) * b(i, j - 1, k);  // p[i,j-1,k] with p = a*b
      const double sm = 2.0 * b(i, j, k + 1) / 1.0 + 3.0 * b(i, j, k + 2) / 2.0;
      s(i, j, k) = ag - p + sm;
    });
  };
  return c;
}

// defnest.stn: a def applied to the result of the same def (defnest, dxdx, letdef).
Case<double> defnest(const std::string& stencil, Shape n) {
  Case<double> c;
  c.file = "defnest.stn";
  c.stencil = stencil;
  c.size = n;
  c.halo = {2, 0, 0};
  const std::string in = stencil == "dxdx" ? "u" : "a";
  c.fields = {{in, In}, {"s", Out}};
  c.check = {"s"};
  const bool dx2 = stencil == "dxdx";
  c.sweep = [in, dx2](Env<double>& e) {
    const auto& a = e.in(in);
    auto& s = e.out("s");
    // avgx(f) = 0.5 * (f[i+1] + f[i-1]);  dx2(f) = sum(m in 1..1) fd_d1_2[m] * (f[i+m] - f[i-m]), fd_d1_2[1] = 1/2
    auto op = [dx2](auto f, long i, long j, long k) {
      return dx2 ? (1.0 / 2.0) * (f(i + 1, j, k) - f(i - 1, j, k)) : 0.5 * (f(i + 1, j, k) + f(i - 1, j, k));
    };
    auto inner = [&](long i, long j, long k) { return op([&](long x, long y, long z) { return a(x, y, z); }, i, j, k); };
    e.each([&](long i, long j, long k) { s(i, j, k) = op(inner, i, j, k); });
  };
  return c;
}

// exprs.stn exprs3d: hex floats, exponents, 1/3, comparisons and logic, nested selects,
// floor ceil log pow sin cos, sum indices as values, a negative bound, an empty and nested sums.
Case<double> exprs3d(Shape n) {
  Case<double> c;
  c.file = "exprs.stn";
  c.stencil = "exprs3d";
  c.size = n;
  c.halo = {2, 1, 2};
  c.fields = {{"a", In}, {"b", In, true}, {"r", Out}, {"s", Out}, {"t", Out}, {"w", Out}};
  c.params = {{"p", "0.25"}};
  c.rules = {{"b", {}, Rule::Clamp, nullptr}};
  c.check = {"r", "s", "t", "w"};
  c.sweep = [](Env<double>& e) {
    const auto &a = e.in("a"), &b = e.in("b");
    auto &r = e.out("r"), &s = e.out("s"), &t = e.out("t"), &w = e.out("w");
    const double p = e.p("p");
    const double third = 1.0 / 3.0, h = 0.375, e3 = 2.5e-3;
    e.each([&](long i, long j, long k) {
      const double A = a(i, j, k), B = b(i, j, k);
      r(i, j, k) = third * A + h * b(i, j, k + 1) - e3 * a(i, j - 1, k);
      double sm = 0;
      for (int m = -2; m <= 2; ++m) {
        const double term = (1.0 + std::abs(m)) * a(i, j, k + m);
        sm = m == -2 ? term : sm + term;
      }
      s(i, j, k) = sm + 0.0;  // + sum(m in 1..0) ... = + 0
      t(i, j, k) = ((A > B && !(A >= 0.5)) || A == B)
                       ? std::floor(A * 4.0) + std::ceil(B * 3.0)
                       : ((A != B && B <= p) ? std::log(std::fabs(A) + 1.0) : std::pow(std::fabs(B), 1.5));
      double outer = 0;
      for (int m = 1; m <= 2; ++m) {
        double inner = 0;
        for (int q = 0; q <= m; ++q) {
          const double term = a(i + m, j, k - q) * static_cast<double>(m - q);
          inner = q == 0 ? term : inner + term;
        }
        outer = m == 1 ? inner : outer + inner;
      }
      w(i, j, k) = std::sin(A) * std::cos(B) + outer;
    });
  };
  return c;
}

// exprs.stn exprs1f: the same intrinsics in f32 (floorf, logf, powf, ...), value(p * 0x1p-1).
Case<float> exprs1f(Shape n) {
  Case<float> c;
  c.file = "exprs.stn";
  c.stencil = "exprs1f";
  c.size = n;
  c.halo = {1};
  c.fields = {{"a", In, true}, {"b", In, true}, {"t", Out}, {"w", Out}};
  c.params = {{"p", "0.25"}};
  c.rules = {{"a", {}, Rule::Periodic, nullptr},
             {"b", {}, Rule::Value, [](const Env<float>& e) { return e.p("p") * 0.5f; }}};
  c.check = {"t", "w"};
  c.sweep = [](Env<float>& e) {
    const auto &a = e.in("a"), &b = e.in("b");
    auto &t = e.out("t"), &w = e.out("w");
    const float p = e.p("p");
    const float third = static_cast<float>(1.0 / 3.0), milli = static_cast<float>(1e-3);
    e.each([&](long i, long, long) {
      const float A = a(i), B = b(i);
      t(i) = ((A > B && !(A >= 0.5f)) || A == B)
                 ? std::floor(A * 4.0f) + std::ceil(B * 3.0f)
                 : ((A != B && B <= p) ? std::log(std::fabs(A) + 1.0f) : std::pow(std::fabs(B), 1.5f));
      w(i) = std::sin(a(i - 1)) * std::cos(b(i + 1)) + third * A - milli / (1.0f + B * B);
    });
  };
  return c;
}

// names.stn: keywords and generated-looking names as fields/params, axes x y z, a zero halo.
Case<double> names(Shape n) {
  Case<double> c;
  c.file = "names.stn";
  c.stencil = "names";
  c.size = n;
  c.halo = {1, 1};
  c.fields = {{"class", In, true}, {"p_", In}, {"L_", In}, {"new", Out}, {"s0_", Out}};
  c.params = {{"float", "1.75"}, {"row_", "-0.5"}};
  c.rules = {{"class", {}, Rule::Periodic, nullptr}};
  c.check = {"new", "s0_"};
  c.sweep = [](Env<double>& e) {
    const auto &cl = e.in("class"), &p = e.in("p_"), &L = e.in("L_");
    auto &nw = e.out("new"), &s0 = e.out("s0_");
    const double fl = e.p("float"), row = e.p("row_");
    e.each([&](long i, long j, long) {
      nw(i, j) = cl(i + 1, j) * p(i, j) + fl * L(i, j);
      s0(i, j) = cl(i, j - 1) - row * p(i, j);
    });
  };
  return c;
}
Case<float> namesDelete(Shape n) {
  Case<float> c;
  c.file = "names.stn";
  c.stencil = "delete";
  c.size = n;
  c.halo = {1, 2};
  c.fields = {{"real", In, true}, {"std", In}, {"Lx", In}, {"nsteps", Out}};
  c.params = {{"str", "0.3"}};
  c.rules = {{"real", {}, Rule::Mirror, nullptr}};
  c.check = {"nsteps"};
  c.sweep = [](Env<float>& e) {
    const auto &re = e.in("real"), &sd = e.in("std"), &L = e.in("Lx");
    auto& o = e.out("nsteps");
    const float str = e.p("str");
    e.each([&](long x, long y, long) { o(x, y) = re(x - 1, y) * sd(x, y) + str * L(x, y) - re(x, y + 2); });
  };
  return c;
}
Case<float> pointwise(Shape n) {
  Case<float> c;
  c.file = "names.stn";
  c.stencil = "pointwise";
  c.size = n;
  c.halo = {0, 0, 0};
  c.fields = {{"a", In, true}, {"b", In}, {"c", Out}};
  c.params = {{"p", "-2.5"}};
  c.rules = {{"a", {}, Rule::Periodic, nullptr}};
  c.check = {"c"};
  c.sweep = [](Env<float>& e) {
    const auto &a = e.in("a"), &b = e.in("b");
    auto& o = e.out("c");
    const float p = e.p("p");
    e.each([&](long x, long y, long z) { o(x, y, z) = a(x, y, z) * b(x, y, z) + p; });
  };
  return c;
}

// reserved.stn: names the generated code itself uses (libm, CUDA builtins, macros, its own parameters).
Case<double> reserved(Shape n) {
  Case<double> c;
  c.file = "reserved.stn";
  c.stencil = "reserved";
  c.size = n;
  c.halo = {1, 0};
  c.fields = {{"fabs", In, true}, {"blockIdx", In}, {"fmin", Out}};
  c.params = {{"fmax", "1.5"}, {"INFINITY", "0.25"}};
  c.rules = {{"fabs", {}, Rule::Clamp, nullptr}};
  c.check = {"fmin"};
  c.sweep = [](Env<double>& e) {
    const auto &fa = e.in("fabs"), &bi = e.in("blockIdx");
    auto& o = e.out("fmin");
    const double fx = e.p("fmax"), inf = e.p("INFINITY");
    e.each([&](long i, long j, long) {
      o(i, j) = mx(std::fabs(fa(i + 1, j)), bi(i, j)) * fx + mn(fa(i, j), inf);
    });
  };
  return c;
}
Case<float> mangled(Shape n) {
  Case<float> c;
  c.file = "reserved.stn";
  c.stencil = "mangled";
  c.size = n;
  c.halo = {1, 1};
  c.fields = {{"L", In, true}, {"steps", Out}};
  c.params = {{"stream", "0.75"}};
  c.rules = {{"L", {}, Rule::Periodic, nullptr}};
  c.check = {"steps"};
  c.sweep = [](Env<float>& e) {
    const auto& L = e.in("L");
    auto& o = e.out("steps");
    const float st = e.p("stream");
    e.each([&](long i, long j, long) { o(i, j) = L(i + 1, j) * st - L(i, j - 1); });
  };
  return c;
}

// shapes2d.stn: weighted offsets, box(2), star(2), apply, sum with weight(o); f32.
Case<float> shapes2d(Shape n) {
  Case<float> c;
  c.file = "shapes2d.stn";
  c.stencil = "shapes2d";
  c.size = n;
  c.halo = {2, 2};
  c.fields = {{"u", In, true}, {"v", In, true}, {"a", Out}, {"b", Out}, {"c", Out}, {"d", Out}};
  c.rules = {{"u", {}, Rule::Periodic, nullptr}, {"v", {}, Rule::Clamp, nullptr}};
  c.check = {"a", "b", "c", "d"};
  c.sweep = [](Env<float>& e) {
    const auto &u = e.in("u"), &v = e.in("v");
    auto &A = e.out("a"), &B = e.out("b"), &C = e.out("c"), &D = e.out("d");
    struct W {
      int di, dj;
      float w;
    };
    const W w5[5] = {{0, 0, 4.0f}, {-1, 0, -1.0f}, {1, 0, -1.0f}, {0, -1, -0.5f}, {0, 1, -1.5f}};
    const W lop[3] = {{2, -1, 1.0f}, {0, 0, 0.5f}, {-1, 2, static_cast<float>(1.0 / 3.0)}};
    e.each([&](long i, long j, long) {
      float a = 0, b = 0, bx = 0, lp = 0, d = 0;
      for (int t = 0; t < 5; ++t) {
        const long x = i + w5[t].di, y = j + w5[t].dj;
        const float ta = w5[t].w * (u(x, y) * v(x, y));
        const float tb = w5[t].w * u(x, y) * v(i, j);
        a = t == 0 ? ta : a + ta;
        b = t == 0 ? tb : b + tb;
      }
      bool first = true;
      for (int x = -2; x <= 2; ++x)
        for (int y = -2; y <= 2; ++y) {
          bx = first ? u(i + x, j + y) : bx + u(i + x, j + y);
          first = false;
        }
      for (int t = 0; t < 3; ++t) {
        const float tl = v(i + lop[t].di, j + lop[t].dj) * lop[t].w;
        lp = t == 0 ? tl : lp + tl;
      }
      // star(2): centre, then axis 0 from -2 to 2, then axis 1.
      d = (u(i, j) - v(i, j)) * 1.0f;
      for (int ax = 0; ax < 2; ++ax)
        for (int m = -2; m <= 2; ++m) {
          if (m == 0) continue;
          const long x = i + (ax == 0 ? m : 0), y = j + (ax == 1 ? m : 0);
          d = d + (u(x, y) - v(x, y)) * 1.0f;
        }
      A(i, j) = a;
      B(i, j) = b;
      C(i, j) = bx / 25.0f + lp;
      D(i, j) = d;
    });
  };
  return c;
}

// groups.stn: gA (x = p*(u[i+1]-u[i-1])), gB (y = u[j+2]*w - u[j-2]/w), group g2; periodic u.
Case<double> groups(const std::string& stencil, Shape n) {
  Case<double> c;
  c.file = "groups.stn";
  c.stencil = stencil;
  c.size = n;
  const bool a = stencil != "gB", b = stencil != "gA";
  c.halo = {a ? 1 : 0, b ? 2 : 0};
  c.fields = {{"u", In, true}};
  if (a) c.fields.push_back({"x", Out});
  if (b) {
    c.fields.push_back({"w", In, false, 0.5, 1.5});
    c.fields.push_back({"y", Out});
  }
  if (a) c.params = {{"p", "3.5"}};
  c.rules = {{"u", {}, Rule::Periodic, nullptr}};
  if (a) c.check.push_back("x");
  if (b) c.check.push_back("y");
  c.sweep = [a, b](Env<double>& e) {
    const auto& u = e.in("u");
    if (a) {
      auto& x = e.out("x");
      const double p = e.p("p");
      e.each([&](long i, long j, long) { x(i, j) = p * (u(i + 1, j) - u(i - 1, j)); });
    }
    if (b) {
      const auto& w = e.in("w");
      auto& y = e.out("y");
      e.each([&](long i, long j, long) { y(i, j) = u(i, j + 2) * w(i, j) - u(i, j - 2) / w(i, j); });
    }
  };
  return c;
}

// inplace.stn relax: inout v updated in place, f32, f with value(0.5*omega).
Case<float> relax(Shape n) {
  Case<float> c;
  c.file = "inplace.stn";
  c.stencil = "relax";
  c.size = n;
  c.halo = {1, 0, 1};
  c.fields = {{"f", In, true}, {"v", InOut}};
  c.params = {{"omega", "0.7"}};
  c.rules = {{"f", {}, Rule::Value, [](const Env<float>& e) { return 0.5f * e.p("omega"); }}};
  c.check = {"v"};
  c.sweep = [](Env<float>& e) {
    const auto &f = e.in("f"), &v = e.in("v");
    auto& vn = e.out("v");
    const float omega = e.p("omega");
    e.each([&](long i, long j, long k) {
      vn(i, j, k) = (1.0f - omega) * v(i, j, k) +
                    omega * (f(i - 1, j, k) + f(i + 1, j, k) + f(i, j, k - 1) + f(i, j, k + 1)) / 4.0f;
    });
  };
  return c;
}

// boundaries.stn: r = apply(box(1), u) under each rule (3-D f64), and btwo (2-D f32 star(3)).
Case<double> bnd(const std::string& stencil, Shape n) {
  Case<double> c;
  c.file = "boundaries.stn";
  c.stencil = stencil;
  c.size = n;
  c.halo = {1, 1, 1};
  c.fields = {{"u", In, true}, {"r", Out}};
  c.check = {"r"};
  if (stencil == "bper") c.rules = {{"u", {}, Rule::Periodic, nullptr}};
  if (stencil == "bclamp") c.rules = {{"u", {}, Rule::Clamp, nullptr}};
  if (stencil == "bmirror") c.rules = {{"u", {}, Rule::Mirror, nullptr}};
  if (stencil == "bval") {
    c.params = {{"p", "-0.75"}};
    c.rules = {{"u", {}, Rule::Value, [](const Env<double>& e) { return 0.25 + 2.0 * e.p("p"); }}};
  }
  if (stencil == "baxes") {
    c.params = {{"p", "1.5"}};
    c.rules = {{"u", {2}, Rule::Periodic, nullptr},
               {"u", {0}, Rule::Value, [](const Env<double>& e) { return e.p("p"); }},
               {"u", {1}, Rule::Clamp, nullptr}};
  }
  if (stencil == "baxes2") c.rules = {{"u", {2}, Rule::Periodic, nullptr}, {"u", {0, 1}, Rule::Mirror, nullptr}};
  if (stencil == "bpartial") {
    c.fields[0].interiorInput = false;  // axes i and k keep the input's halo
    c.rules = {{"u", {1}, Rule::Clamp, nullptr}};
  }
  expect(!c.rules.empty(), "unknown boundary stencil " + stencil);
  c.sweep = [](Env<double>& e) {
    const auto& u = e.in("u");
    auto& r = e.out("r");
    e.each([&](long i, long j, long k) {
      double s = 0;
      bool first = true;
      for (int a = -1; a <= 1; ++a)
        for (int b = -1; b <= 1; ++b)
          for (int d = -1; d <= 1; ++d) {
            s = first ? u(i + a, j + b, k + d) : s + u(i + a, j + b, k + d);
            first = false;
          }
      r(i, j, k) = s;
    });
  };
  return c;
}

Case<float> btwo(Shape n) {
  Case<float> c;
  c.file = "boundaries.stn";
  c.stencil = "btwo";
  c.size = n;
  c.halo = {3, 3};
  c.fields = {{"u", In, true}, {"v", In, true}, {"r", Out}};
  c.rules = {{"u", {}, Rule::Mirror, nullptr}, {"v", {}, Rule::Periodic, nullptr}};
  c.check = {"r"};
  c.sweep = [](Env<float>& e) {
    const auto &u = e.in("u"), &v = e.in("v");
    auto& r = e.out("r");
    e.each([&](long i, long j, long) {
      float s = u(i, j) * (1.0f + v(i, j));
      for (int ax = 0; ax < 2; ++ax)
        for (int m = -3; m <= 3; ++m) {
          if (m == 0) continue;
          const long x = i + (ax == 0 ? m : 0), y = j + (ax == 1 ? m : 0);
          s = s + u(x, y) * (1.0f + v(x, y));
        }
      r(i, j) = s;
    });
  };
  return c;
}

// n values of a Ricker wavelet (1 - 2a) exp(-a), a = (pi f (t - 2))^2: a typical seismic source.
std::vector<double> ricker(int n, double f) {
  std::vector<double> w;
  for (int t = 0; t < n; ++t) {
    const double a = std::pow(3.141592653589793 * f * (t - 2), 2);
    w.push_back((1.0 - 2.0 * a) * std::exp(-a));
  }
  return w;
}

// steps.stn heat2d: unew = u + nu*dt*lap2_2d(u), periodic, swap u, unew (nu = 0.2).
Case<double> heat2d(Shape n, long steps) {
  Case<double> c;
  c.file = "steps.stn";
  c.stencil = "heat2d";
  c.size = n;
  c.halo = {1, 1};
  c.fields = {{"u", In, true}, {"unew", Out}};
  c.params = {{"dt", "0.5"}};
  c.swaps = {{"u", "unew"}};
  c.rules = {{"u", {}, Rule::Periodic, nullptr}};
  c.steps = steps;
  c.check = {"u", "unew"};
  c.sweep = [](Env<double>& e) {
    const auto& u = e.in("u");
    auto& un = e.out("unew");
    const double dt = e.p("dt"), nu = 0.2;
    e.each([&](long i, long j, long) {
      // lap2_2d(f) = 2.0*fd_d2_2[0]*f + sum(m in 1..1) fd_d2_2[m]*(f[i+m,j] + f[i-m,j] + f[i,j+m] + f[i,j-m])
      const double lap = 2.0 * -2.0 * u(i, j) + 1.0 * (u(i + 1, j) + u(i - 1, j) + u(i, j + 1) + u(i, j - 1));
      un(i, j) = u(i, j) + nu * dt * lap;
    });
  };
  return c;
}

// steps.stn heat3c: un = u + 0.05*(six neighbours - 6u), f32, clamp, swap u, un.
Case<float> heat3c(Shape n, long steps) {
  Case<float> c;
  c.file = "steps.stn";
  c.stencil = "heat3c";
  c.size = n;
  c.halo = {1, 1, 1};
  c.fields = {{"u", In}, {"un", Out}};
  c.swaps = {{"u", "un"}};
  c.rules = {{"u", {}, Rule::Clamp, nullptr}};
  c.steps = steps;
  c.check = {"u", "un"};
  c.sweep = [](Env<float>& e) {
    const auto& u = e.in("u");
    auto& un = e.out("un");
    e.each([&](long i, long j, long k) {
      un(i, j, k) = u(i, j, k) + 0.05f * (u(i - 1, j, k) + u(i + 1, j, k) + u(i, j - 1, k) + u(i, j + 1, k) +
                                          u(i, j, k - 1) + u(i, j, k + 1) - 6.0f * u(i, j, k));
    });
  };
  return c;
}

// steps.stn wave2d: v = 2u - v + c2*lap4_2d(u), inout v, swap u, v, mirror on u.
Case<double> wave2d(Shape n, long steps) {
  Case<double> c;
  c.file = "steps.stn";
  c.stencil = "wave2d";
  c.size = n;
  c.halo = {2, 2};
  c.fields = {{"u", In}, {"c2", In, false, 0.0, 0.1}, {"v", InOut}};
  c.swaps = {{"u", "v"}};
  c.rules = {{"u", {}, Rule::Mirror, nullptr}};
  c.steps = steps;
  c.check = {"u", "v"};
  c.sweep = [](Env<double>& e) {
    const auto &u = e.in("u"), &c2 = e.in("c2"), &v = e.in("v");
    auto& vn = e.out("v");
    const Fd<double> fd;
    e.each([&](long i, long j, long) {
      double s = 0;
      for (int m = 1; m <= 2; ++m) {
        double t = fd.d2_4[m] * (u(i + m, j) + u(i - m, j) + u(i, j + m) + u(i, j - m));
        s = m == 1 ? t : s + t;
      }
      const double lap = 2.0 * fd.d2_4[0] * u(i, j) + s;
      vn(i, j) = 2.0 * u(i, j) - v(i, j) + c2(i, j) * lap;
    });
  };
  return c;
}

// steps.stn coupled: two swap pairs, per-axis rules on v, and e = u*v outside the pairs.
Case<double> coupled(Shape n, long steps) {
  Case<double> c;
  c.file = "steps.stn";
  c.stencil = "coupled";
  c.size = n;
  c.halo = {1, 1};
  c.fields = {{"u", In, true}, {"v", In, true}, {"un", Out}, {"vn", Out}, {"e", Out}};
  c.params = {{"kk", "0.125"}};
  c.swaps = {{"u", "un"}, {"v", "vn"}};
  c.rules = {{"u", {}, Rule::Periodic, nullptr}, {"v", {0}, Rule::Clamp, nullptr}, {"v", {1}, Rule::Mirror, nullptr}};
  c.steps = steps;
  c.check = {"u", "v", "un", "vn", "e"};
  c.sweep = [](Env<double>& e) {
    const auto &u = e.in("u"), &v = e.in("v");
    auto &un = e.out("un"), &vn = e.out("vn"), &ee = e.out("e");
    const double kk = e.p("kk");
    e.each([&](long i, long j, long) {
      un(i, j) = u(i, j) + kk * (v(i + 1, j) - v(i - 1, j));
      vn(i, j) = v(i, j) + kk * (u(i, j + 1) - u(i, j - 1));
      ee(i, j) = u(i, j) * v(i, j);
    });
  };
  return c;
}

// onedim.stn fwd1d: r = u[i+2] - 2u[i+1] + u, clamp; halo 2 on both sides.
Case<double> fwd1d(Shape n) {
  Case<double> c;
  c.file = "onedim.stn";
  c.stencil = "fwd1d";
  c.size = n;
  c.halo = {2};
  c.fields = {{"u", In, true}, {"r", Out}};
  c.rules = {{"u", {}, Rule::Clamp, nullptr}};
  c.check = {"r"};
  c.sweep = [](Env<double>& e) {
    const auto& u = e.in("u");
    auto& r = e.out("r");
    e.each([&](long i, long, long) { r(i) = u(i + 2) - 2.0 * u(i + 1) + u(i); });
  };
  return c;
}

// ---- error paths -------------------------------------------------------------------------------

std::string stn(const std::string& file) { return (fs::path(g_opt.stnDir) / file).string(); }

// Writes a full-shaped or any-shaped f64/f32 input with non-zero values.
std::string writeInput(const fs::path& dir, const std::string& name, const std::vector<long>& shape, bool f32 = false) {
  NpyArray a;
  a.descr = f32 ? "<f4" : "<f8";
  a.shape = shape;
  a.data.resize(a.count() * a.elemSize());
  for (size_t i = 0; i < a.count(); ++i) {
    if (f32) {
      float v = 1.0f + static_cast<float>(i % 7);
      std::memcpy(a.data.data() + i * 4, &v, 4);
    } else {
      double v = 1.0 + static_cast<double>(i % 7);
      std::memcpy(a.data.data() + i * 8, &v, 8);
    }
  }
  fs::path p = dir / (name + ".npy");
  writeFile(p, stnc::driver::npyBytes(a));
  return p.string();
}

// Errors exit 1, command-line usage errors that CLI11 reports itself (a check on an option's value) too.
void expectFailure(const Proc& p, const std::vector<std::string>& mustContain) {
  expect(p.status == 1, "expected exit status 1, got " + std::to_string(p.status));
  for (const std::string& s : mustContain) expect(contains(p.output, s), "the error output does not mention '" + s + "'");
}

// `stnc run` with a wrongly shaped input names the expected shape and exits 1, writing nothing.
int errWrongShape() {
  const fs::path w = freshWorkDir();
  const std::string out = (w / "out.npy").string();
  // heat3d has no boundary rule: only the full shape (n + 2*halo) is accepted.
  std::string u = writeInput(w, "u_interior", {37, 19, 23});
  Proc p = runProcess({g_opt.stnc, "run", stn("heat3d.stn"), "-I", g_opt.stdlib, "--stencil", "heat3d", "--size",
                       "37x19x23", "--in", "u=" + u, "--out", "unew=" + out, "--param", "dt=0.1"});
  expectFailure(p, {"(39, 21, 25)", "(37, 19, 23)", "u"});
  expect(!fs::exists(out), "an output was written although the run failed");
  // jacobi2d's periodic rule fills the halo: both shapes are named.
  std::string a = writeInput(w, "a_bad", {34, 17}, true);
  p = runProcess({g_opt.stnc, "run", stn("jacobi2d.stn"), "--stencil", "jacobi2d", "--size", "33x17", "--in",
                  "a=" + a, "--out", "b=" + out, "--param", "w=0.5"});
  expectFailure(p, {"(35, 19)", "(33, 17)", "(34, 17)"});
  expect(!fs::exists(out), "an output was written although the run failed");
  // 1-D: a one-element tuple.
  std::string u1 = writeInput(w, "u1_bad", {100});
  p = runProcess({g_opt.stnc, "run", stn("onedim.stn"), "-I", g_opt.stdlib, "--stencil", "ring1d", "--size", "101",
                  "--in", "u=" + u1, "--out", "r=" + out, "--param", "s=1"});
  expectFailure(p, {"(109,)", "(101,)"});
  // A wrong rank.
  std::string u2 = writeInput(w, "u2_bad", {39, 21});
  p = runProcess({g_opt.stnc, "run", stn("heat3d.stn"), "-I", g_opt.stdlib, "--stencil", "heat3d", "--size",
                  "37x19x23", "--in", "u=" + u2, "--out", "unew=" + out, "--param", "dt=0.1"});
  expectFailure(p, {"(39, 21, 25)"});
  // The wrong dtype.
  std::string u3 = writeInput(w, "u3_f32", {39, 21, 25}, true);
  p = runProcess({g_opt.stnc, "run", stn("heat3d.stn"), "-I", g_opt.stdlib, "--stencil", "heat3d", "--size",
                  "37x19x23", "--in", "u=" + u3, "--out", "unew=" + out, "--param", "dt=0.1"});
  expectFailure(p, {"<f4", "<f8"});
  expect(!fs::exists(out), "an output was written although the run failed");
  std::cout << "e2e: PASS err_wrong_shape\n";
  return 0;
}

// Missing --param / --in, unknown names: exit 1, nothing written.
int errMissingArgs() {
  const fs::path w = freshWorkDir();
  const std::string out = (w / "out.npy").string();
  std::string u = writeInput(w, "u", {39, 21, 25});
  const std::vector<std::string> base = {g_opt.stnc, "run", stn("heat3d.stn"), "-I", g_opt.stdlib,
                                         "--stencil", "heat3d", "--size", "37x19x23"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> v = base;
    v.insert(v.end(), extra.begin(), extra.end());
    return runProcess(v);
  };
  expectFailure(with({"--in", "u=" + u, "--out", "unew=" + out}), {"dt"});
  expect(!fs::exists(out), "an output was written without --param");
  expectFailure(with({"--out", "unew=" + out, "--param", "dt=0.1"}), {"--in u"});
  expect(!fs::exists(out), "an output was written without --in");
  expectFailure(with({"--in", "u=" + u, "--out", "unew=" + out, "--param", "nosuch=1", "--param", "dt=0.1"}),
                {"nosuch"});
  expectFailure(with({"--in", "u=" + u, "--out", "unew=" + out, "--param", "dt=abc"}), {"abc", "not a number"});
  expect(!fs::exists(out), "an output was written with a bad --param");
  expectFailure(with({"--in", "u=" + u, "--out", "unew=" + out, "--param", "dt=0.1", "--steps", "-1"}),
                {"--steps", "whole number >= 0", "'-1'"});
  // CLI11's own usage errors (an unknown option, a value outside a set) exit 1 too; --help exits 0.
  expectFailure(with({"--in", "u=" + u, "--out", "unew=" + out, "--param", "dt=0.1", "--no-such-option"}),
                {"--no-such-option"});
  expectFailure(with({"--in", "u=" + u, "--out", "unew=" + out, "--param", "dt=0.1", "--backend", "fpga"}),
                {"--backend", "fpga"});
  expect(runProcess({g_opt.stnc, "run", "--help"}).status == 0, "stnc run --help did not exit 0");
  expect(runProcess({g_opt.stnc, "--help"}).status == 0, "stnc --help did not exit 0");
  expectFailure(runProcess({g_opt.stnc, stn("heat3d.stn"), "--target", "fpga"}), {"--target", "fpga"});
  expect(!fs::exists(out), "an output was written with --steps -1");
  expectFailure(with({"--in", "u=" + u, "--out", "unew=" + out, "--param", "dt=1e400"}), {"1e400", "float64 range"});
  expect(!fs::exists(out), "an output was written with a --param beyond float64");
  {  // An f32 stencil's param must be a finite f32 (1e39 would run as inf).
    std::string f = writeInput(w, "f_f32", {39, 21, 25}, true), v = writeInput(w, "v_f32", {39, 21, 25}, true);
    Proc q = runProcess({g_opt.stnc, "run", stn("inplace.stn"), "--stencil", "relax", "--size", "37x19x23", "--in",
                         "f=" + f, "--in", "v=" + v, "--out", "v=" + out, "--param", "omega=-1e39"});
    expectFailure(q, {"-1e39", "f32 range", "relax"});
    expect(!fs::exists(out), "an output was written with a --param beyond f32");
  }
  Proc p = runProcess({g_opt.stnc, "run", stn("both.stn"), "--stencil", "nosuch", "--size", "4x4x4"});
  expectFailure(p, {"nosuch", "sA", "sB", "both"});
  // --stencil may be left out only when the file declares one stencil or group.
  p = runProcess({g_opt.stnc, "run", stn("both.stn"), "--size", "4x4x4"});
  expectFailure(p, {"3 stencils or groups", "sA, sB, both", "--stencil"});
  p = runProcess({g_opt.stnc, "run", stn("heat3d.stn"), "-I", g_opt.stdlib, "--size", "37x19x23", "--in", "u=" + u,
                  "--out", "unew=" + out, "--param", "dt=0.1"});
  expect(p.status == 0 && fs::exists(out), "heat3d.stn (one stencil) did not run without --stencil: " + p.output);
  // --size may be left out when an input array fixes every axis (u: 39x21x25 = 37x19x23 + 2*halo).
  const std::string out2 = (w / "out2.npy").string();
  p = runProcess({g_opt.stnc, "run", stn("heat3d.stn"), "-I", g_opt.stdlib, "--in", "u=" + u, "--out", "unew=" + out2,
                  "--param", "dt=0.1"});
  expect(p.status == 0 && p.output.find("on 37x19x23") != std::string::npos,
         "heat3d.stn did not run on 37x19x23 without --size: " + p.output);
  expect(readFile(out) == readFile(out2), "the run without --size wrote another result than the one with it");
  fs::remove(out);
  fs::remove(out2);
  p = runProcess({g_opt.stnc, "run", stn("heat3d.stn"), "-I", g_opt.stdlib, "--out", "unew=" + out, "--param", "dt=0.1"});
  expectFailure(p, {"give --size", "along i, j, k"});
  // No --out: runs, warns and names what could be written.
  p = runProcess({g_opt.stnc, "run", stn("heat3d.stn"), "-I", g_opt.stdlib, "--in", "u=" + u, "--param", "dt=0.1"});
  expect(p.status == 0 && contains(p.output, "no --out given") && contains(p.output, "any of: unew)") &&
             contains(p.output, "wrote nothing"),
         "a run without --out did not say what it could write: " + p.output);
  p = runProcess({g_opt.stnc, "run", stn("heat3d.stn"), "-I", g_opt.stdlib, "--stencil", "heat3d", "--size", "37x19",
                  "--in", "u=" + u, "--out", "unew=" + out, "--param", "dt=0.1"});
  expectFailure(p, {"--size"});
  expect(!fs::exists(out), "an output was written with a bad --size");
  // Regions apart at one size overlap at another: the run says so (the compiler cannot: driver/RegionCheck).
  {
    const std::string r37 = writeInput(w, "r37", {39, 10}), r41 = writeInput(w, "r41", {43, 10});
    p = runProcess({g_opt.stnc, "run", stn("tworegions2d.stn"), "--in", "u=" + r37, "--out", "v=" + out});
    expect(p.status == 0 && !contains(p.output, "warning"), "regions apart at 37x10 drew a warning: " + p.output);
    p = runProcess({g_opt.stnc, "run", stn("tworegions2d.stn"), "--in", "u=" + r41, "--out", "v=" + out});
    expect(p.status == 0 && contains(p.output, "warning: regions 'a' and 'b' overlap at 41x10"),
           "regions overlapping at 41x10 drew no warning: " + p.output);
    fs::remove(out);
  }
  std::cout << "e2e: PASS err_missing_args\n";
  return 0;
}

// Bad --source options: each names what is wrong, exits 1 and writes nothing.
int errBadSources() {
  const fs::path w = freshWorkDir();
  const std::string out = (w / "out.npy").string();
  std::string u = writeInput(w, "u", {35, 19});
  std::string wave3 = writeInput(w, "wave3", {3});
  std::string wave2d = writeInput(w, "wave2d", {4, 2});
  const std::vector<std::string> base = {g_opt.stnc, "run", stn("steps.stn"), "-I", g_opt.stdlib, "--stencil", "heat2d",
                                         "--size", "33x17", "--in", "u=" + u, "--out", "u=" + out, "--param", "dt=0.5"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> v = base;
    v.insert(v.end(), extra.begin(), extra.end());
    Proc p = runProcess(v);
    expect(!fs::exists(out), "an output was written despite a bad --source");
    return p;
  };
  expectFailure(with({"--source", "unew@1,1=1.0"}), {"--steps"});
  expectFailure(with({"--steps", "3", "--source", "nosuch@1,1=1.0"}), {"nosuch"});
  expectFailure(with({"--steps", "3", "--source", "unew@1=1.0"}), {"1 coordinates", "2 axes"});
  expectFailure(with({"--steps", "3", "--source", "unew@1,17=1.0"}), {"j = 17", "[0, 17)"});
  expectFailure(with({"--steps", "3", "--source", "unew@-1,0=1.0"}), {"i = -1"});
  expectFailure(with({"--steps", "3", "--source", "unew@1,x=1.0"}), {"'x'"});
  expectFailure(with({"--steps", "3", "--source", "unew=1.0"}), {"FIELD@i,j="});
  expectFailure(with({"--steps", "4", "--source", "unew@1,1=" + wave3}), {"3 values", "--steps 4"});
  expectFailure(with({"--steps", "2", "--source", "unew@1,1=" + wave2d}), {"1-D"});
  expectFailure(with({"--steps", "2", "--source", "unew@1,1=" + (w / "missing.npy").string()}), {"missing.npy"});
  expectFailure(with({"--steps", "2", "--source", "unew@1,1=-1e999"}), {"'-1e999'", "float64 range"});
  std::cout << "e2e: PASS err_bad_sources\n";
  return 0;
}

// Lower-rank fields: a profile of the wrong shape, --out of a profile, a source on one, --distributed.
int errLowerRank() {
  const fs::path w = freshWorkDir();
  const std::string out = (w / "out.npy").string();
  std::string u = writeInput(w, "u", {39, 19, 27});  // coef3d at 37x19x23: halo (1, 0, 2)
  std::string cx = writeInput(w, "cx", {39}), cxBad = writeInput(w, "cx_bad", {37}), cz = writeInput(w, "cz", {27});
  std::string s = writeInput(w, "s", {39, 27}), s3 = writeInput(w, "s3", {39, 19, 27});
  const std::vector<std::string> base = {g_opt.stnc, "run", stn("lowerrank.stn"), "--stencil", "coef3d", "--size", "37x19x23",
                                         "--in", "u=" + u, "--in", "cz=" + cz};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> v = base;
    v.insert(v.end(), extra.begin(), extra.end());
    Proc p = runProcess(v);
    expect(!fs::exists(out), "an output was written although the run failed");
    return p;
  };
  expectFailure(with({"--in", "cx=" + cxBad, "--in", "s=" + s, "--out", "w=" + out}), {"'cx'", "(37,)", "(39,)", "over i"});
  expectFailure(with({"--in", "cx=" + cx, "--in", "s=" + s3, "--out", "w=" + out}), {"(39, 19, 27)", "(39, 27)"});
  expectFailure(with({"--in", "cx=" + cx, "--in", "s=" + s, "--out", "cx=" + out}), {"--out cx", "never written"});
  std::string a = writeInput(w, "a", {35, 43}, true), g = writeInput(w, "g", {43}, true), b = writeInput(w, "b", {35, 43}, true);
  Proc p = runProcess({g_opt.stnc, "run", stn("lowerrank.stn"), "--stencil", "damp2d", "--size", "33x41", "--in", "a=" + a, "--in",
                       "g=" + g, "--in", "b=" + b, "--out", "b=" + out, "--steps", "2", "--source", "g@1,1=1.0"});
  expectFailure(p, {"'g'", "fewer axes"});
  expect(!fs::exists(out), "an output was written despite a source on a profile");
  // --distributed refuses the file before anything is written.
  const fs::path dir = w / "mpi";
  p = runProcess({g_opt.stnc, stn("lowerrank.stn"), "-o", dir.string(), "--distributed"});
  expectFailure(p, {"--distributed", "fewer axes"});
  expect(!fs::exists(dir / "lowerrank.h") && !fs::exists(dir / "lowerrank_mpi.h"), "--distributed wrote files although it failed");
  std::cout << "e2e: PASS err_lower_rank\n";
  return 0;
}

struct DirState {
  std::map<std::string, std::string> bytes;
  std::map<std::string, fs::file_time_type> mtime;
};

DirState snapshot(const fs::path& dir) {
  DirState s;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    std::string rel = fs::relative(e.path(), dir).string();
    s.bytes[rel] = readFile(e.path());
    s.mtime[rel] = fs::last_write_time(e.path());
  }
  return s;
}

// A compile error exits 1 with `file:line:col: error:` and leaves earlier outputs untouched.
int errCompileKeepsOutputs() {
  const fs::path w = freshWorkDir();
  const fs::path src = w / "keep.stn";
  const fs::path out = w / "out";
  writeFile(src, "stencil keep(i, j) { in a; out b; b = a[i+1,j] - a[i-1,j]; }\n");
  Proc p = runProcess({g_opt.stnc, src.string(), "-o", out.string(), "--target", "all"});
  expect(p.status == 0, "compiling the good file failed");
  DirState before = snapshot(out);
  for (const char* f : {"keep.h", "keep.cpp", "keep.cu", "keep.json"})
    expect(before.bytes.count(f) && !before.bytes.at(f).empty(), std::string("missing or empty output ") + f);
  // The same name, now broken (an undefined name on line 3).
  writeFile(src, "// broken\nstencil keep(i, j) {\n  in a; out b; b = a[i+1,j] - nosuch;\n}\n");
  for (const char* target : {"all", "cpu", "cuda"}) {
    p = runProcess({g_opt.stnc, src.string(), "-o", out.string(), "--target", target});
    expectFailure(p, {"keep.stn:3:", ": error: ", "nosuch", "^"});
    DirState after = snapshot(out);
    expect(after.bytes == before.bytes, "a failed compile changed the output directory's files");
    expect(after.mtime == before.mtime, "a failed compile touched the output directory's files");
  }
  // A syntax error too.
  writeFile(src, "stencil keep(i, j) { in a; out b; b = a[i+1,j] - ; }\n");
  p = runProcess({g_opt.stnc, src.string(), "-o", out.string()});
  expectFailure(p, {"keep.stn:1:", ": error: "});
  expect(snapshot(out).bytes == before.bytes, "a syntax error changed the output directory's files");
  // `stnc run` on the broken file leaves an existing output file alone.
  const fs::path prev = w / "prev.npy";
  writeFile(prev, "previous contents");
  std::string a = writeInput(w, "a", {6, 5});
  p = runProcess({g_opt.stnc, "run", src.string(), "--stencil", "keep", "--size", "4x5", "--in", "a=" + a, "--out",
                  "b=" + prev.string()});
  expectFailure(p, {"keep.stn:1:", ": error: "});
  expect(readFile(prev) == "previous contents", "a failed stnc run overwrote an output file");
  // A directory given as the source (an ifstream reads it as an empty file: it compiled to empty outputs).
  const fs::path dirOut = w / "dirout";
  p = runProcess({g_opt.stnc, w.string(), "-o", dirOut.string()});
  expectFailure(p, {"is a directory, not a .stn file"});
  expect(!fs::exists(dirOut), "compiling a directory created the output directory");
  // -o naming an existing file.
  writeFile(src, "stencil keep(i, j) { in a; out b; b = a[i+1,j] - a[i-1,j]; }\n");
  p = runProcess({g_opt.stnc, src.string(), "-o", prev.string()});
  expectFailure(p, {"prev.npy' is not a directory"});
  expect(readFile(prev) == "previous contents", "-o FILE changed the file");
  std::cout << "e2e: PASS err_compile_keeps_outputs\n";
  return 0;
}

// ---- registry ----------------------------------------------------------------------------------

std::map<std::string, std::function<int()>>& registry() {
  static std::map<std::string, std::function<int()>> r;
  return r;
}

template <class T>
void add(const std::string& name, std::function<Case<T>()> make) {
  if (registry().count(name)) die("duplicate case " + name);
  registry()[name] = [name, make] { return runCase<T>(name, make()); };
}

void registerCases() {
  using D = double;
  using F = float;
  // LANGUAGE.md examples.
  add<D>("heat3d_37x19x23", [] { return heat3d({37, 19, 23}); });
  add<D>("heat3d_32x16x8", [] { return heat3d({32, 16, 8}); });
  add<D>("heat3d_steps3_noswap", [] { return heat3d({37, 19, 23}, 3); });  // no swap: 3 steps = 1 sweep
  add<F>("jacobi2d_33x17_interior", [] { return jacobi2d({33, 17}, true); });
  add<F>("jacobi2d_64x64_full", [] { return jacobi2d({64, 64}, false); });
  add<F>("jacobi2d_5x3_interior", [] { return jacobi2d({5, 3}, true); });
  add<D>("lap8_37x19x23", [] { return lap8({37, 19, 23}); });
  add<D>("lap8_16x16x16", [] { return lap8({16, 16, 16}); });
  add<D>("lap8_3x5x2", [] { return lap8({3, 5, 2}); });
  add<D>("lap8_scheduled_37x19x23", [] { return lap8({37, 19, 23}, "scheduled.stn", "lap8s"); });
  add<D>("flux_37x19x23", [] { return flux({37, 19, 23}); });
  add<D>("flux_32x8x16", [] { return flux({32, 8, 16}); });
  add<D>("twoout_37x19x23", [] { return twoout({37, 19, 23}); });
  add<D>("twoout_8x4x32", [] { return twoout({8, 4, 32}); });
  add<D>("both_group_37x19x23", [] { return both("both", {37, 19, 23}); });
  add<D>("both_group_16x8x4", [] { return both("both", {16, 8, 4}); });
  add<D>("both_sA_37x19x23", [] { return both("sA", {37, 19, 23}); });
  add<D>("both_sB_37x19x23", [] { return both("sB", {37, 19, 23}); });
  add<F>("wave_steps4_37x19x23", [] { return wave({37, 19, 23}, 4); });
  add<F>("wave_steps3_16x16x16", [] { return wave({16, 16, 16}, 3); });
  add<F>("wave_sweep_37x19x23", [] { return wave({37, 19, 23}, 0); });
  // 1-D.
  add<F>("adv1d_101", [] { return adv1d({101}); });
  add<F>("adv1d_128", [] { return adv1d({128}); });
  add<F>("adv1d_3", [] { return adv1d({3}); });
  add<F>("adv1d_1", [] { return adv1d({1}); });
  add<D>("ring1d_101", [] { return ring1d({101}); });
  add<D>("ring1d_128", [] { return ring1d({128}); });
  add<D>("ring1d_3", [] { return ring1d({3}); });
  add<D>("fwd1d_101", [] { return fwd1d({101}); });
  add<D>("fwd1d_2", [] { return fwd1d({2}); });
  // 2-D intrinsics, f64 and f32.
  add<D>("math2d_33x17", [] { return math2<D>({33, 17}); });
  add<D>("math2d_64x32", [] { return math2<D>({64, 32}); });
  add<F>("math2f_33x17", [] { return math2<F>({33, 17}); });
  add<F>("math2f_32x64", [] { return math2<F>({32, 64}); });
  // defs, consts, offsets, groups, inout.
  add<D>("defs3d_37x19x23", [] { return defs3d({37, 19, 23}); });
  add<D>("defs3d_16x8x8", [] { return defs3d({16, 8, 8}); });
  add<D>("defnest_37x19x23", [] { return defnest("defnest", {37, 19, 23}); });
  add<D>("dxdx_37x19x23", [] { return defnest("dxdx", {37, 19, 23}); });
  add<D>("letdef_37x19x23", [] { return defnest("letdef", {37, 19, 23}); });
  add<D>("coef3d_37x19x23", [] { return coef3d({37, 19, 23}); });
  add<D>("coef3d_8x3x64", [] { return coef3d({8, 3, 64}); });
  add<F>("damp2d_steps5_33x41", [] { return damp2d({33, 41}, 5); });
  add<F>("damp2d_sweep_7x128", [] { return damp2d({7, 128}, 0); });
  add<F>("pml3d_37x19x23", [] { return pml3d({37, 19, 23}); });
  add<F>("pml3d_64x40x70", [] { return pml3d({64, 40, 70}); });
  add<D>("exprs3d_37x19x23", [] { return exprs3d({37, 19, 23}); });
  add<D>("exprs3d_8x8x8", [] { return exprs3d({8, 8, 8}); });
  add<F>("exprs1f_101", [] { return exprs1f({101}); });
  add<F>("exprs1f_64", [] { return exprs1f({64}); });
  add<D>("names_33x17", [] { return names({33, 17}); });
  add<F>("names_delete_17x33", [] { return namesDelete({17, 33}); });
  add<F>("names_pointwise_37x19x23", [] { return pointwise({37, 19, 23}); });
  add<D>("reserved_33x17", [] { return reserved({33, 17}); });
  add<F>("reserved_mangled_33x17", [] { return mangled({33, 17}); });
  add<F>("shapes2d_33x17", [] { return shapes2d({33, 17}); });
  add<F>("shapes2d_64x64", [] { return shapes2d({64, 64}); });
  add<F>("shapes2d_3x2", [] { return shapes2d({3, 2}); });
  add<D>("groups_g2_33x17", [] { return groups("g2", {33, 17}); });
  add<D>("groups_g2_32x32", [] { return groups("g2", {32, 32}); });
  add<D>("groups_gA_33x17", [] { return groups("gA", {33, 17}); });
  add<D>("groups_gB_33x17", [] { return groups("gB", {33, 17}); });
  add<F>("relax_37x19x23", [] { return relax({37, 19, 23}); });
  add<F>("relax_32x16x8", [] { return relax({32, 16, 8}); });
  // Boundary rules.
  for (const char* s : {"bper", "bval", "bclamp", "bmirror", "baxes", "baxes2", "bpartial"}) {
    std::string st = s;
    add<D>(st + "_37x19x23", [st] { return bnd(st, {37, 19, 23}); });
  }
  for (const char* s : {"bper", "bmirror", "baxes"}) {
    std::string st = s;
    add<D>(st + "_2x1x3", [st] { return bnd(st, {2, 1, 3}); });
  }
  add<F>("btwo_2x5", [] { return btwo({2, 5}); });
  add<F>("btwo_17x9", [] { return btwo({17, 9}); });
  // Time stepping.
  add<D>("heat2d_steps7_33x17", [] { return heat2d({33, 17}, 7); });
  add<D>("heat2d_steps7_64x32", [] { return heat2d({64, 32}, 7); });
  add<D>("heat2d_sweep_33x17", [] { return heat2d({33, 17}, 0); });
  add<D>("heat2d_steps4_bench_33x17", [] {
    Case<double> c = heat2d({33, 17}, 4);
    c.bench = 3;
    return c;
  });
  add<F>("wave_sweep_bench_16x16x16", [] {
    Case<float> c = wave({16, 16, 16}, 0);
    c.bench = 2;
    return c;
  });
  add<F>("heat3c_steps5_37x19x23", [] { return heat3c({37, 19, 23}, 5); });
  add<D>("wave2d_steps6_33x17", [] { return wave2d({33, 17}, 6); });
  add<D>("wave2d_steps3_64x64", [] { return wave2d({64, 64}, 3); });
  add<D>("coupled_steps5_33x17", [] { return coupled({33, 17}, 5); });
  add<D>("coupled_sweep_17x8", [] { return coupled({17, 8}, 0); });
  // Point sources (--source): a Ricker wavelet from a .npy file with more values than steps, and a constant.
  add<F>("wave_steps5_sources_37x19x23", [] {
    Case<float> c = wave({37, 19, 23}, 5);
    c.sources = {{"v", {18, 9, 11}, ricker(8, 0.3), false}, {"v", {0, 0, 22}, {-0.25}, true}};
    return c;
  });
  add<D>("heat2d_steps7_source_33x17", [] {
    Case<double> c = heat2d({33, 17}, 7);
    c.sources = {{"unew", {32, 16}, ricker(7, 0.7), false}, {"unew", {32, 16}, {1.0 / 3.0}, true}};
    return c;
  });
  // Error paths.
  registry()["err_wrong_shape"] = errWrongShape;
  registry()["err_missing_args"] = errMissingArgs;
  registry()["err_compile_keeps_outputs"] = errCompileKeepsOutputs;
  registry()["err_bad_sources"] = errBadSources;
  registry()["err_lower_rank"] = errLowerRank;
}

}  // namespace

int main(int argc, char** argv) {
  registerCases();
  std::vector<std::string> positional;
  std::string checkList;
  bool list = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) die("missing value after " + a);
      return argv[++i];
    };
    if (a == "--stnc") g_opt.stnc = value();
    else if (a == "--stn-dir") g_opt.stnDir = value();
    else if (a == "--stdlib") g_opt.stdlib = value();
    else if (a == "--work") g_opt.work = value();
    else if (a == "--file") g_opt.file = value();
    else if (a == "--backend") g_opt.backend = value();
    else if (a == "--list") list = true;
    else if (a == "--check-list") checkList = value();
    else positional.push_back(a);
  }
  if (list) {
    for (auto& [name, fn] : registry()) std::cout << name << "\n";
    return 0;
  }
  if (!checkList.empty()) {
    std::set<std::string> registered;
    std::stringstream ss(checkList);
    std::string item;
    while (std::getline(ss, item, ',')) registered.insert(item);
    bool ok = true;
    for (auto& [name, fn] : registry())
      if (!registered.count(name)) {
        std::cout << "case " << name << " is not registered in tests/e2e/CMakeLists.txt\n";
        ok = false;
      }
    for (const std::string& r : registered)
      if (!registry().count(r)) {
        std::cout << "tests/e2e/CMakeLists.txt registers " << r << ", which RunCompare.cpp does not define\n";
        ok = false;
      }
    return ok ? 0 : 1;
  }
  if (positional.size() != 1) die("usage: stnc_e2e_run --stnc STNC --stn-dir DIR --stdlib DIR --work DIR CASE");
  if (g_opt.stnc.empty() || g_opt.stnDir.empty() || g_opt.stdlib.empty() || g_opt.work.empty())
    die("--stnc, --stn-dir, --stdlib and --work are required");
  auto it = registry().find(positional[0]);
  if (it == registry().end()) die("unknown case " + positional[0] + " (see --list)");
  return it->second();
}
