// stnc_random: differential testing of stnc with random programs (see Gen.h).
//
//   stnc_random check --stnc PATH [--seed S] [--count N] [--batch B] [--work DIR]
//                     [--runs R] [--regressions DIR] [--ulp U] [--lenient-zero] [--no-shrink] [--max-failures F]
//                     [--region-chance P] [--lower-chance P]
//       Generates N cases from seed S, B per .stn file (one C++ compile covers a batch), and for
//       each case checks
//         (1) front end: the sugared stencil and the generator's own flat expansion of it lower to
//             the same DAG nodes (in process, through passes::compileModule);
//         (2) back end: `stnc run --backend cpu` and `stnc run --backend interp` on the same random
//             inputs (odd extents mostly) write bit-identical outputs (NaN == NaN; --ulp U allows
//             U ulps where exp/log/pow/sin/cos were generated, default 0).
//       Each program runs R times (other extents, steps, params, inputs): N*R cases. The sign of
//       zero is compared too (min/max are defined selects on every backend, docs/LANGUAGE.md);
//       --lenient-zero counts +0 vs -0 differences instead of failing on them.
//       A failing case is shrunk and written to DIR (default WORK/regressions) as NAME.stn + NAME.run.
//   stnc_random replay --stnc PATH [--work DIR] FILE.run...
//       Re-runs saved regressions (both checks).
//   stnc_random print [--seed S] [--count N]      Prints the cases (sugared, flat, run line).
//   --region-chance P: the share of single stencils that get regions (default 0.3; 1: all, 0: none;
//   the rest of each program does not depend on it). --lower-chance P: likewise, the share of single stencils
//   of rank >= 2 that get 1-2 lower-rank inputs (`in e0(j);`) read in their equations and lets (default 0.3).
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>

#include "Gen.h"
#include "passes/Pipeline.h"

namespace fs = std::filesystem;
using namespace stnrand;

namespace {

// ---------------------------------------------------------------- options
struct Options {
  std::string stnc;
  uint64_t seed = 1;
  int count = 100;
  int batch = 40;
  std::string work = "stnc-random-work";
  std::string regressions;
  // Cases with exp/log/pow/sin/cos: the CPU build may call another libm path (gcc turns pow(x, 2.0)
  // into x*x; glibc's pow is not always correctly rounded), so allow this many ulps, or a
  // difference below 1e-12 (f64) / 1e-5 (f32) of max(1, |value|) after cancellation.
  int ulp = 16;
  bool shrink = true;
  int maxFailures = 5;
  int runs = 1;             // runs per generated stencil (new extents, steps, params, inputs)
  int jobs = 2;             // cases checked in parallel
  bool strictZero = true;   // +0 / -0 differences are mismatches (--lenient-zero: counted only)
  bool verbose = false;
  std::string stncFlags;    // extra options for both `stnc run`s (e.g. --fp-contract=on)
  GenOptions gen;           // --region-chance P: the share of single stencils with regions (default 0.3);
                            // --lower-chance P: of single stencils of rank >= 2 with lower-rank inputs (0.3)
  std::vector<std::string> files;
};

// ---------------------------------------------------------------- .npy
struct Array {
  bool f32 = false;
  std::vector<long> shape;
  std::vector<double> data;  // values (float data widened exactly)
};

bool writeNpy(const std::string& path, const Array& a) {
  std::string shape = "(";
  for (long s : a.shape) shape += std::to_string(s) + ", ";
  if (a.shape.size() > 1) shape.resize(shape.size() - 2);
  else if (a.shape.size() == 1) shape.resize(shape.size() - 1);
  shape += ")";
  std::string h = std::string("{'descr': '") + (a.f32 ? "<f4" : "<f8") + "', 'fortran_order': False, 'shape': " + shape + ", }";
  size_t total = 10 + h.size() + 1;
  h.append((64 - total % 64) % 64, ' ');
  h += '\n';
  std::ofstream o(path, std::ios::binary);
  o.write("\x93NUMPY\x01\x00", 8);
  uint16_t len = static_cast<uint16_t>(h.size());
  o.write(reinterpret_cast<const char*>(&len), 2);
  o.write(h.data(), static_cast<std::streamsize>(h.size()));
  for (double v : a.data) {
    if (a.f32) {
      float f = static_cast<float>(v);
      o.write(reinterpret_cast<const char*>(&f), 4);
    } else {
      o.write(reinterpret_cast<const char*>(&v), 8);
    }
  }
  return static_cast<bool>(o);
}

// Reads the raw element bytes of a .npy written by stnc (format 1.0, C order).
bool readNpyRaw(const std::string& path, std::string& descr, std::string& data) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (all.size() < 10 || all.compare(0, 6, "\x93NUMPY") != 0) return false;
  size_t hl = static_cast<unsigned char>(all[8]) | (static_cast<unsigned char>(all[9]) << 8);
  std::string h = all.substr(10, hl);
  descr = h.find("<f4") != std::string::npos ? "<f4" : "<f8";
  data = all.substr(10 + hl);
  return true;
}

// ---------------------------------------------------------------- processes
int runCommand(const std::string& cmd, const std::string& log) {
  std::string full = cmd + " >" + log + " 2>&1";
  int st = std::system(full.c_str());
  if (st == -1) return -1;
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// ---------------------------------------------------------------- front end in process
struct Compiled {
  stnc::SourceManager sm;
  stnc::DiagEngine diags{sm};
  std::optional<stnc::dag::Module> module;
  std::string diagText() const {
    std::ostringstream os;
    diags.print(os);
    return os.str();
  }
};

std::unique_ptr<Compiled> compileText(const std::string& name, const std::string& text) {
  auto c = std::make_unique<Compiled>();
  stnc::LoadOptions lo;
  std::ostringstream log;
  stnc::passes::CompileResult r = stnc::passes::compileModule(name, &text, lo, {}, c->sm, c->diags, log);
  c->module = std::move(r.module);
  return c;
}

// The front-end check: every stencil NAME with a NAME_flat twin has the same regions (names and
// bounds: the flat twin spells them as plain integers) and the same output nodes, equation by
// equation (field and region: dag::Output::region indexes the regions in declaration order).
std::string dagCheck(const stnc::dag::Module& m) {
  std::string problems;
  for (const stnc::dag::Kernel& k : m.kernels) {
    if (k.isGroup) continue;
    const stnc::dag::Kernel* f = m.find(k.name + "_flat");
    if (!f) continue;
    auto regionText = [](const stnc::dag::Kernel& x, int r) {  // "NAME [lo:hi, ...]"
      if (r < 0) return std::string();
      const stnc::dag::Region& g = x.regions[static_cast<size_t>(r)];
      std::string t = g.name + " [";
      for (int a = 0; a < x.rank(); ++a) t += (a ? ", " : "") + std::to_string(g.lo[a]) + ":" + std::to_string(g.hi[a]);
      return t + "]";
    };
    if (k.regions.size() != f->regions.size())
      problems += "stencil " + k.name + ": " + std::to_string(k.regions.size()) + " regions, the flat twin " +
                  std::to_string(f->regions.size()) + "\n";
    for (size_t r = 0; r < k.regions.size() && r < f->regions.size(); ++r)
      if (regionText(k, static_cast<int>(r)) != regionText(*f, static_cast<int>(r)))
        problems += "stencil " + k.name + ": region " + regionText(k, static_cast<int>(r)) + " != flat region " +
                    regionText(*f, static_cast<int>(r)) + "\n";
    for (const stnc::dag::Output& o : k.outputs) {
      bool found = false;
      const std::string what = o.field + (o.region < 0 ? "" : " @ " + regionText(k, o.region));
      for (const stnc::dag::Output& p : f->outputs)
        if (p.field == o.field && p.region == o.region) {
          found = true;
          if (p.value != o.value)
            problems += "stencil " + k.name + ", output " + what + ": sugared node " + std::to_string(o.value) +
                        " != flat node " + std::to_string(p.value) + "\n";
        }
      if (!found) problems += "stencil " + k.name + ": flat twin lacks output " + what + "\n";
    }
    if (k.outputs.size() != f->outputs.size())
      problems += "stencil " + k.name + ": " + std::to_string(k.outputs.size()) + " equations, the flat twin " +
                  std::to_string(f->outputs.size()) + "\n";
  }
  return problems;
}

// ---------------------------------------------------------------- one run of a case
struct RunSpec {
  std::string kernel;
  std::vector<long> size;
  long steps = 0;
  uint64_t inputSeed = 0;
  bool interior = false;
  bool f32 = false;
  bool transcendental = false;
  std::vector<std::pair<std::string, std::string>> params;  // name, text
};

RunSpec specOf(const Case& c) {
  RunSpec s;
  s.kernel = c.kernelName();
  s.size = c.size;
  s.steps = c.steps;
  s.inputSeed = c.inputSeed;
  s.interior = c.interiorInputs;
  s.f32 = c.f32;
  s.transcendental = c.transcendental;
  char buf[64];
  for (auto& [k, v] : c.params) {
    std::snprintf(buf, sizeof buf, "%.17g", v);
    s.params.push_back({k, buf});
  }
  return s;
}

bool parseRunLine(const std::string& line, RunSpec& s) {
  std::istringstream in(line);
  std::string w;
  while (in >> w) {
    if (w == "kernel") in >> s.kernel;
    else if (w == "size") {
      s.size.clear();
      std::string t;
      while (in >> t) {
        if (t.empty() || !std::isdigit(static_cast<unsigned char>(t[0]))) {
          w = t;
          break;
        }
        s.size.push_back(std::stol(t));
      }
      if (w == "steps") in >> s.steps;
    } else if (w == "steps") in >> s.steps;
    else if (w == "inputseed") in >> s.inputSeed;
    else if (w == "interior") {
      int b;
      in >> b;
      s.interior = b;
    } else if (w == "type") {
      std::string t;
      in >> t;
      s.f32 = t == "f32";
    } else if (w == "transcendental") {
      int b;
      in >> b;
      s.transcendental = b;
    } else if (w == "param") {
      std::string n, v;
      in >> n >> v;
      s.params.push_back({n, v});
    }
  }
  return !s.kernel.empty() && !s.size.empty();
}

std::string printSpec(const RunSpec& s) {
  std::ostringstream o;
  o << "kernel " << s.kernel << " size";
  for (long n : s.size) o << " " << n;
  o << " steps " << s.steps << " inputseed " << s.inputSeed << " interior " << (s.interior ? 1 : 0) << " type "
    << (s.f32 ? "f32" : "f64") << " transcendental " << (s.transcendental ? 1 : 0);
  for (auto& [k, v] : s.params) o << " param " << k << " " << v;
  return o.str();
}

double inputValue(Rng& r, bool f32) {
  double u = r.unit();
  double v;
  if (u < 0.05) v = 0.0;
  else if (u < 0.07) v = -0.0;
  else if (u < 0.12) v = r.range(-3, 3);
  else v = r.unit() * 4.0 - 2.0;
  return f32 ? static_cast<double>(static_cast<float>(v)) : v;
}

bool haloFilledByRules(const stnc::dag::Kernel& k, const std::string& field) {
  unsigned mask = 0;
  for (const stnc::dag::Boundary& b : k.boundaries)
    if (b.field == field) mask |= b.axisMask;
  for (int a = 0; a < k.rank(); ++a)
    if (k.footprint.halo[a] > 0 && !(mask & (1u << a))) return false;
  return true;
}

uint64_t hashName(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (char c : s) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return h;
}

struct Outcome {
  enum Kind { Ok, Reject, Dag, RunError, Mismatch } kind = Ok;
  std::string detail;
};
const char* kindName(Outcome::Kind k) {
  switch (k) {
    case Outcome::Ok: return "ok";
    case Outcome::Reject: return "rejected by the front end";
    case Outcome::Dag: return "front-end mismatch (sugared vs flat DAG)";
    case Outcome::RunError: return "stnc run failed";
    case Outcome::Mismatch: return "cpu vs interp mismatch";
  }
  return "?";
}

std::string hexBits(double v, bool f32) {
  char buf[64];
  if (f32) {
    float f = static_cast<float>(v);
    uint32_t b;
    std::memcpy(&b, &f, 4);
    std::snprintf(buf, sizeof buf, "%.9g [0x%08x]", v, b);
  } else {
    uint64_t b;
    std::memcpy(&b, &v, 8);
    std::snprintf(buf, sizeof buf, "%.17g [0x%016llx]", v, static_cast<unsigned long long>(b));
  }
  return buf;
}

// Distance in ulps between two finite values of the same type.
long long ulpDistance(double a, double b, bool f32) {
  auto key = [&](double x) -> long long {
    if (f32) {
      float f = static_cast<float>(x);
      int32_t i;
      std::memcpy(&i, &f, 4);
      return i < 0 ? static_cast<long long>(INT32_MIN) - i : i;
    }
    int64_t i;
    std::memcpy(&i, &x, 8);
    return i < 0 ? INT64_MIN - i : i;
  };
  long long d = key(a) - key(b);
  return d < 0 ? -d : d;
}

std::atomic<long> zeroSign{0};           // values that differed only in the sign of zero
std::atomic<long> transcendentalUlps{0};  // values within the libm tolerance

// Runs the kernel of `spec` from `stn` with both backends and compares every output.
Outcome runBoth(const Options& opt, const std::string& stn, const stnc::dag::Module& m, const RunSpec& spec,
                const std::string& dir) {
  Outcome out;
  const stnc::dag::Kernel* k = m.find(spec.kernel);
  if (!k) return {Outcome::RunError, "no kernel " + spec.kernel};
  fs::create_directories(dir);
  std::string args = " run " + stn + " --stencil " + spec.kernel + " --size ";
  for (size_t a = 0; a < spec.size.size(); ++a) args += (a ? "x" : "") + std::to_string(spec.size[a]);
  if (spec.steps > 0) args += " --steps " + std::to_string(spec.steps);
  for (auto& [n, v] : spec.params) args += " --param " + n + "=" + v;
  if (!opt.stncFlags.empty()) args += " " + opt.stncFlags;
  // Inputs.
  for (size_t fi = 0; fi < k->fields.size(); ++fi) {
    const stnc::dag::Field& f = k->fields[fi];
    if (!stnc::dag::isRead(f.role)) continue;
    bool interior = spec.interior && haloFilledByRules(*k, f.name);
    Array a;
    a.f32 = spec.f32;
    size_t count = 1;
    for (int ax = 0; ax < k->rank(); ++ax) {
      if (f.lowerRank() && !(f.axes & (1u << ax))) continue;  // a lower-rank input: (n_a + 2 h_a) along its own axes
      long n = spec.size[ax] + (interior ? 0 : 2 * k->footprint.halo[ax]);
      a.shape.push_back(n);
      count *= static_cast<size_t>(n);
    }
    Rng r(spec.inputSeed ^ hashName(f.name));
    for (size_t i = 0; i < count; ++i) a.data.push_back(inputValue(r, spec.f32));
    std::string path = dir + "/in_" + f.name + ".npy";
    writeNpy(path, a);
    args += " --in " + f.name + "=" + path;
  }
  std::vector<std::string> outs;
  for (const stnc::dag::Field& f : k->fields)
    if ((spec.steps > 0 && !f.lowerRank()) || stnc::dag::isWritten(f.role)) outs.push_back(f.name);  // (`--out` refuses lower-rank inputs)
  for (const std::string backend : {"cpu", "interp"}) {
    std::string cmd = opt.stnc + args + " --backend " + backend;
    for (auto& o : outs) cmd += " --out " + o + "=" + dir + "/" + backend + "_" + o + ".npy";
    std::string log = dir + "/" + backend + ".log";
    int rc = runCommand(cmd, log);
    if (rc != 0) return {Outcome::RunError, backend + " exited " + std::to_string(rc) + ": " + cmd + "\n" + slurp(log)};
  }
  for (auto& o : outs) {
    std::string d1, d2, b1, b2;
    if (!readNpyRaw(dir + "/cpu_" + o + ".npy", d1, b1) || !readNpyRaw(dir + "/interp_" + o + ".npy", d2, b2))
      return {Outcome::RunError, "cannot read the outputs of " + o};
    if (b1 == b2) continue;
    if (b1.size() != b2.size()) return {Outcome::Mismatch, o + ": outputs differ in size"};
    size_t es = spec.f32 ? 4 : 8, n = b1.size() / es, bad = 0;
    std::string first;
    for (size_t i = 0; i < n; ++i) {
      double x, y;
      if (spec.f32) {
        float fx, fy;
        std::memcpy(&fx, b1.data() + i * 4, 4);
        std::memcpy(&fy, b2.data() + i * 4, 4);
        x = fx;
        y = fy;
      } else {
        std::memcpy(&x, b1.data() + i * 8, 8);
        std::memcpy(&y, b2.data() + i * 8, 8);
      }
      if (std::memcmp(b1.data() + i * es, b2.data() + i * es, es) == 0) continue;
      if (std::isnan(x) && std::isnan(y)) continue;  // NaN payloads/signs are not compared
      if (x == 0 && y == 0 && !opt.strictZero) {
        // +0 vs -0 with --lenient-zero: counted, tolerated. (Before min/max were defined as
        // selects, the backends called fmin/fmax, unspecified for opposite zeros.)
        ++zeroSign;
        continue;
      }
      if (spec.transcendental && opt.ulp > 0 && std::isfinite(x) && std::isfinite(y) &&
          (ulpDistance(x, y, spec.f32) <= opt.ulp ||
           std::fabs(x - y) <= (spec.f32 ? 1e-5 : 1e-12) * std::max({1.0, std::fabs(x), std::fabs(y)}))) {
        ++transcendentalUlps;
        continue;
      }
      if (bad++ < 3) {
        // Interior coordinates of element i.
        std::string at;
        size_t rest = i;
        std::vector<long> c(spec.size.size());
        for (size_t a = spec.size.size(); a-- > 0;) {
          c[a] = static_cast<long>(rest % static_cast<size_t>(spec.size[a]));
          rest /= static_cast<size_t>(spec.size[a]);
        }
        for (size_t a = 0; a < c.size(); ++a) at += (a ? "," : "") + std::to_string(c[a]);
        first += "  " + o + "[" + at + "]: cpu " + hexBits(x, spec.f32) + " interp " + hexBits(y, spec.f32) + "\n";
      }
    }
    if (bad) {
      out.kind = Outcome::Mismatch;
      out.detail += o + ": " + std::to_string(bad) + " of " + std::to_string(n) + " values differ\n" + first;
    }
  }
  return out;
}

// Run r > 0 of a case: the same program with other extents, steps, params and inputs.
Case variant(const Case& c, int r) {
  if (r == 0) return c;
  Case v = c;
  Rng g(mixSeed(c.inputSeed, static_cast<uint64_t>(r)));
  long maxPoints = c.rank == 1 ? 61 : c.rank == 2 ? 400 : 1000;
  do {
    long pts = 1;
    for (long& n : v.size) {
      n = (c.rank == 1 ? g.range(0, 30) : c.rank == 2 ? g.range(0, 9) : g.range(0, 5)) * 2 + 1;
      pts *= n;
    }
    if (pts <= maxPoints) break;
  } while (true);
  bool swaps = false;
  for (auto& s : c.stencils) swaps |= !s.swaps.empty();
  v.steps = swaps ? g.range(0, 4) : (g.chance(0.2) ? g.range(1, 2) : 0);
  for (auto& [k, val] : v.params) val = g.range(-150, 150) / 100.0 + (g.chance(0.3) ? g.unit() * 1e-3 : 0.0);
  v.inputSeed = g.next();
  v.interiorInputs = !c.interiorInputs;
  return v;
}

// ---------------------------------------------------------------- a case, end to end
std::string caseFileText(const Case& c) { return printCase(c) + "\n// flat twins (generator's expansion)\n" + printFlat(c, "_flat"); }

// Checks a single case in its own file (used by the shrinker and for confirmation).
Outcome checkSingle(const Options& opt, const Case& c, const std::string& dir) {
  fs::create_directories(dir);
  std::string stn = dir + "/case.stn";
  std::string text = printCase(c);
  std::ofstream(stn) << text;
  auto comp = compileText(stn, caseFileText(c));
  if (!comp->module) return {Outcome::Reject, comp->diagText()};
  std::string d = dagCheck(*comp->module);
  if (!d.empty()) return {Outcome::Dag, d};
  return runBoth(opt, stn, *comp->module, specOf(c), dir + "/run");
}

// Shrinking steps on one stencil; false where the step would leave no output.
// An output field with its equations (and swaps).
bool dropOutput(StencilDecl& s, const std::string& f) {
  int outputs = 0;
  for (const FieldDecl& d : s.fields) outputs += d.role != Role::In;
  if (outputs < 2) return false;
  s.eqs.erase(std::remove_if(s.eqs.begin(), s.eqs.end(), [&](const Equation& e) { return e.field == f; }), s.eqs.end());
  s.fields.erase(std::remove_if(s.fields.begin(), s.fields.end(), [&](const FieldDecl& d) { return d.name == f; }),
                 s.fields.end());
  s.swaps.erase(std::remove_if(s.swaps.begin(), s.swaps.end(), [&](auto& p) { return p.first == f || p.second == f; }),
                s.swaps.end());
  return true;
}

// Equation i; its field too when that was its only equation (an output needs one).
bool dropEquation(StencilDecl& s, size_t i) {
  const std::string f = s.eqs[i].field;
  int left = 0;
  for (const Equation& e : s.eqs) left += e.field == f;
  if (left == 1) return dropOutput(s, f);
  s.eqs.erase(s.eqs.begin() + static_cast<long>(i));
  return true;
}

// Region i with its equations (and the outputs only it wrote).
bool dropRegion(StencilDecl& s, size_t i) {
  const std::string name = s.regions[i].name;
  s.regions.erase(s.regions.begin() + static_cast<long>(i));
  for (size_t e = 0; e < s.eqs.size(); ++e)
    if (s.eqs[e].region == name) {
      if (!dropEquation(s, e)) return false;
      e = static_cast<size_t>(-1);  // dropEquation may remove other equations: start over
    }
  return true;
}

// Greedy shrinking: keep any simplification under which the failure (same kind) persists.
Case shrinkCase(const Options& opt, Case c, Outcome::Kind kind, const std::string& dir, int budget) {
  int tries = 0;
  auto still = [&](const Case& x) {
    if (tries >= budget) return false;
    ++tries;
    return checkSingle(opt, x, dir).kind == kind;
  };
  bool progress = true;
  while (progress && tries < budget) {
    progress = false;
    // Group members.
    for (size_t i = 0; c.stencils.size() > 1 && i < c.stencils.size(); ++i) {
      Case x = c;
      x.stencils.erase(x.stencils.begin() + static_cast<long>(i));
      if (still(x)) {
        c = x;
        progress = true;
        --i;
      }
    }
    if (c.group.size() && c.stencils.size() == 1) {
      Case x = c;
      x.group.clear();
      if (still(x)) c = x, progress = true;
    }
    // Steps, swaps, boundaries, sizes.
    if (c.steps > 0) {
      Case x = c;
      x.steps = 0;
      for (auto& s : x.stencils) s.swaps.clear();
      if (still(x)) c = x, progress = true;
      else if (c.steps > 1) {
        x = c;
        x.steps = c.steps - 1;
        if (still(x)) c = x, progress = true;
      }
    }
    for (auto& s : c.stencils)
      for (size_t i = 0; i < s.swaps.size(); ++i) {
        Case x = c;
        auto& xs = x.stencils[static_cast<size_t>(&s - &c.stencils[0])];
        xs.swaps.erase(xs.swaps.begin() + static_cast<long>(i));
        if (still(x)) {
          c = x;
          progress = true;
          break;
        }
      }
    for (size_t si = 0; si < c.stencils.size(); ++si)
      for (size_t i = 0; i < c.stencils[si].boundaries.size(); ++i) {
        Case x = c;
        x.stencils[si].boundaries.erase(x.stencils[si].boundaries.begin() + static_cast<long>(i));
        if (still(x)) {
          c = x;
          progress = true;
          --i;
        }
      }
    // Regions (with their equations), single equations (with regions), region bounds; then outputs
    // (their equations + field), input fields, params, lets.
    for (size_t si = 0; si < c.stencils.size(); ++si) {
      for (size_t i = 0; i < c.stencils[si].regions.size(); ++i) {
        Case x = c;
        if (!dropRegion(x.stencils[si], i)) continue;
        if (still(x)) {
          c = x;
          progress = true;
          --i;
        }
      }
      for (size_t i = 0; !c.stencils[si].regions.empty() && i < c.stencils[si].eqs.size(); ++i) {
        Case x = c;  // any equation, the default ones too (their outputs then live in regions only)
        if (!dropEquation(x.stencils[si], i)) continue;
        if (still(x)) {
          c = x;
          progress = true;
          --i;
        }
      }
      for (size_t i = 0; i < c.stencils[si].regions.size(); ++i)
        for (int a = 0; a < c.rank; ++a)
          for (int hi = 0; hi < 2; ++hi) {
            Case x = c;
            RegionDecl& g = x.stencils[si].regions[i];
            int& v = hi ? g.hi[a] : g.lo[a];
            if (v == 0) continue;
            v = 0;
            (hi ? g.hiText[a] : g.loText[a]) = "0";
            if (still(x)) c = x, progress = true;
          }
      for (size_t i = 0; i < c.stencils[si].fields.size(); ++i) {
        if (c.stencils[si].fields[i].role == Role::In) continue;
        Case x = c;
        if (!dropOutput(x.stencils[si], x.stencils[si].fields[i].name)) continue;
        if (still(x)) {
          c = x;
          progress = true;
          --i;
        }
      }
      for (size_t i = 0; i < c.stencils[si].fields.size(); ++i) {
        if (c.stencils[si].fields[i].role != Role::In) continue;
        Case x = c;
        auto& s = x.stencils[si];
        std::string f = s.fields[i].name;
        s.fields.erase(s.fields.begin() + static_cast<long>(i));
        s.boundaries.erase(std::remove_if(s.boundaries.begin(), s.boundaries.end(), [&](auto& b) { return b.field == f; }),
                           s.boundaries.end());
        if (still(x)) {
          c = x;
          progress = true;
          --i;
        }
      }
      for (size_t i = 0; i < c.stencils[si].lets.size(); ++i) {
        Case x = c;
        x.stencils[si].lets.erase(x.stencils[si].lets.begin() + static_cast<long>(i));
        if (still(x)) {
          c = x;
          progress = true;
          --i;
        }
      }
      for (size_t i = 0; i < c.stencils[si].params.size(); ++i) {
        Case x = c;
        x.stencils[si].params.erase(x.stencils[si].params.begin() + static_cast<long>(i));
        if (still(x)) {
          c = x;
          progress = true;
          --i;
        }
      }
    }
    // Globals.
    for (size_t i = 0; i < c.defs.size(); ++i) {
      Case x = c;
      x.defs.erase(x.defs.begin() + static_cast<long>(i));
      if (still(x)) c = x, progress = true, --i;
    }
    for (size_t i = 0; i < c.offsets.size(); ++i) {
      Case x = c;
      x.offsets.erase(x.offsets.begin() + static_cast<long>(i));
      if (still(x)) c = x, progress = true, --i;
    }
    for (size_t i = 0; i < c.consts.size(); ++i) {
      Case x = c;
      x.consts.erase(x.consts.begin() + static_cast<long>(i));
      if (still(x)) c = x, progress = true, --i;
    }
    // Expressions: hoist a child into its parent's place, or replace a node by a literal.
    {
      bool changed = true;
      while (changed && tries < budget) {
        changed = false;
        Case x = c;  // deep enough: GExpr nodes are shared, so mutate copies only
        std::vector<GP*> slots = exprSlots(c);
        for (size_t si = 0; si < slots.size() && !changed; ++si) {
          std::vector<GP*> nodes;
          collectNodes(*slots[si], nodes);
          for (size_t ni = 0; ni < nodes.size() && !changed; ++ni) {
            GP node = *nodes[ni];
            std::vector<GP> candidates(node->args.begin(), node->args.end());
            if (node->k != GK::Lit) candidates.push_back(lit(1.0, "1.0"));
            for (GP& cand : candidates) {
              // Rebuild the path with the replacement (copy-on-write along the path).
              Case y = c;
              std::vector<GP*> ys = exprSlots(y);
              std::function<bool(GP&, const GExpr*)> replace = [&](GP& at, const GExpr* target) -> bool {
                if (at.get() == target) {
                  at = cand;
                  return true;
                }
                for (size_t a = 0; a < at->args.size(); ++a) {
                  GP copy = std::make_shared<GExpr>(*at);
                  if (replace(copy->args[a], target)) {
                    at = copy;
                    return true;
                  }
                }
                return false;
              };
              if (!replace(*ys[si], node.get())) continue;
              if (still(y)) {
                c = y;
                changed = progress = true;
                break;
              }
            }
          }
        }
        (void)x;
      }
    }
    // Extents.
    for (size_t a = 0; a < c.size.size(); ++a)
      while (c.size[a] > 1) {
        Case x = c;
        x.size[a] = c.size[a] > 3 ? (c.size[a] - 1) / 2 | 1 : 1;
        if (!still(x)) break;
        c = x;
        progress = true;
      }
  }
  return c;
}

void saveRegression(const std::string& dir, const std::string& name, const Case& c, const Outcome& o) {
  fs::create_directories(dir);
  std::ofstream(dir + "/" + name + ".stn") << caseFileText(c);
  std::ofstream run(dir + "/" + name + ".run");
  run << "# " << kindName(o.kind) << "\n";
  std::istringstream d(o.detail);
  std::string line;
  int n = 0;
  while (std::getline(d, line) && n++ < 8) run << "# " << line << "\n";
  run << printSpec(specOf(c)) << "\n";
}

int cmdCheck(const Options& opt) {
  auto t0 = std::chrono::steady_clock::now();
  fs::create_directories(opt.work);
  std::string regdir = opt.regressions.empty() ? opt.work + "/regressions" : opt.regressions;
  int cases = 0, failures = 0, transc = 0, withRegions = 0, withLower = 0;
  std::map<std::string, int> counts;
  for (int b0 = 0; b0 < opt.count; b0 += opt.batch) {
    int n = std::min(opt.batch, opt.count - b0);
    std::vector<Case> batch;
    std::string text, full;
    for (int i = 0; i < n; ++i) batch.push_back(generateCase(opt.seed, b0 + i, opt.gen));
    for (auto& c : batch) {
      text += printCase(c) + "\n";
      full += caseFileText(c) + "\n";
    }
    std::string dir = opt.work + "/s" + std::to_string(opt.seed) + "_b" + std::to_string(b0);
    fs::create_directories(dir);
    std::string stn = dir + "/batch.stn";
    std::ofstream(stn) << text;
    auto comp = compileText(stn, full);
    std::vector<std::pair<Case, Outcome>> failed;
    for (auto& c : batch) {
      counts[std::string(c.f32 ? "f32" : "f64")] += static_cast<int>(c.stencils.size());
      transc += c.transcendental;
      withRegions += !c.stencils.front().regions.empty();
      withLower += std::any_of(c.stencils.front().fields.begin(), c.stencils.front().fields.end(), [](const FieldDecl& f) { return !f.axes.empty(); });
    }
    if (!comp->module) {
      // Find the culprits one by one.
      std::printf("batch %d: the front end rejected the batch file; checking its cases one by one\n%s", b0,
                  comp->diagText().substr(0, 2000).c_str());
      for (auto& c : batch) {
        Outcome o = checkSingle(opt, c, dir + "/single");
        if (o.kind != Outcome::Ok) failed.push_back({c, o});
      }
      cases += n * opt.runs;
    } else {
      std::string d = dagCheck(*comp->module);
      std::mutex mu;
      // One case: its runs in order, stopping at the first failure.
      auto one = [&](const Case& c) {
        if (d.find("stencil " + c.prefix) != std::string::npos) {
          std::lock_guard<std::mutex> lock(mu);
          failed.push_back({c, {Outcome::Dag, d}});
          return;
        }
        for (int r = 0; r < opt.runs; ++r) {
          Case v = variant(c, r);
          Outcome o = runBoth(opt, stn, *comp->module, specOf(v), dir + "/case" + std::to_string(c.index) + "_" + std::to_string(r));
          std::lock_guard<std::mutex> lock(mu);
          if (opt.verbose) std::printf("case %d run %d: %s\n", c.index, r, kindName(o.kind));
          if (o.kind != Outcome::Ok) {
            failed.push_back({v, o});
            return;
          }
        }
      };
      cases += n * opt.runs;
      // The first case builds the batch's shared object; the others share it, --jobs at a time.
      one(batch[0]);
      std::atomic<size_t> next{1};
      std::vector<std::thread> workers;
      for (int j = 0; j < opt.jobs; ++j)
        workers.emplace_back([&] {
          for (size_t i = next++; i < batch.size(); i = next++) one(batch[i]);
        });
      for (auto& w : workers) w.join();
      std::sort(failed.begin(), failed.end(), [](auto& a, auto& b) { return a.first.index < b.first.index; });
    }
    std::printf("batch %d-%d: %zu failed (%.0f s)\n", b0, b0 + n - 1, failed.size(),
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    std::fflush(stdout);
    for (auto& [c, o] : failed) {
      ++failures;
      std::printf("FAIL seed %llu case %d (%s): %s\n%s", static_cast<unsigned long long>(opt.seed), c.index,
                  c.kernelName().c_str(), kindName(o.kind), o.detail.c_str());
      Case small = c;
      Outcome so = o;
      if (opt.shrink) {
        Outcome again = checkSingle(opt, c, dir + "/shrink");
        if (again.kind == o.kind) {
          small = shrinkCase(opt, c, o.kind, dir + "/shrink", o.kind == Outcome::Dag || o.kind == Outcome::Reject ? 400 : 120);
          so = checkSingle(opt, small, dir + "/shrink");
        }
      }
      std::string name = "seed" + std::to_string(opt.seed) + "_case" + std::to_string(c.index);
      saveRegression(regdir, name, small, so);
      std::printf("  reproducer: %s/%s.stn (+ .run)\n%s\n", regdir.c_str(), name.c_str(), printCase(small).c_str());
      if (failures >= opt.maxFailures) break;
    }
    if (failures >= opt.maxFailures) {
      std::printf("stopping after %d failures\n", failures);
      break;
    }
  }
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("stnc_random: seed %llu: %d cases = runs of %d generated programs (%d f64, %d f32 stencils; %d with "
              "exp/log/pow/sin/cos, %d with regions, %d with lower-rank inputs), %d failed, %.1f s\n",
              static_cast<unsigned long long>(opt.seed), cases, opt.count, counts["f64"], counts["f32"], transc, withRegions,
              withLower, failures, s);
  if (zeroSign)
    std::printf("note: %ld output values differed only in the sign of zero (tolerated: --lenient-zero)\n",
                zeroSign.load());
  if (transcendentalUlps)
    std::printf("note: %ld output values of cases with exp/log/pow/sin/cos differed within the libm tolerance (--ulp %d)\n",
                transcendentalUlps.load(), opt.ulp);
  std::printf("%d passed, %d failed\n", cases - failures, failures);
  return failures ? 1 : 0;
}

// Every run line of each .run file (its .stn beside it) is one replayed case.
int cmdReplay(const Options& opt) {
  int failures = 0, n = 0;
  for (const std::string& runFile : opt.files) {
    std::string stn = fs::path(runFile).replace_extension(".stn").string();
    std::ifstream in(runFile);
    std::string line;
    std::vector<std::string> specLines;
    while (std::getline(in, line))
      if (!line.empty() && line[0] != '#') specLines.push_back(line);
    if (specLines.empty()) {
      ++n;
      std::printf("FAIL %s: no run line\n", runFile.c_str());
      ++failures;
      continue;
    }
    std::string text = slurp(stn);
    auto comp = compileText(stn, text);
    for (size_t i = 0; i < specLines.size(); ++i) {
      ++n;
      RunSpec spec;
      Outcome o;
      if (!parseRunLine(specLines[i], spec)) o = {Outcome::Reject, "unreadable run line: " + specLines[i]};
      else if (!comp->module) o = {Outcome::Reject, comp->diagText()};
      else if (std::string d = dagCheck(*comp->module); !d.empty()) o = {Outcome::Dag, d};
      else
        o = runBoth(opt, stn, *comp->module, spec,
                    opt.work + "/replay_" + fs::path(runFile).stem().string() + (i ? "_" + std::to_string(i) : std::string()));
      if (o.kind != Outcome::Ok) {
        ++failures;
        std::printf("FAIL %s (%s): %s\n%s\n", runFile.c_str(), spec.kernel.c_str(), kindName(o.kind), o.detail.c_str());
      } else {
        std::printf("ok   %s (%s)\n", runFile.c_str(), spec.kernel.c_str());
      }
    }
  }
  std::printf("%d passed, %d failed\n", n - failures, failures);
  return failures ? 1 : 0;
}

int cmdPrint(const Options& opt) {
  for (int i = 0; i < opt.count; ++i) {
    Case c = generateCase(opt.seed, i, opt.gen);
    std::printf("%s\n%s// run: %s\n\n", printCase(c).c_str(), printFlat(c, "_flat").c_str(), printRun(c).c_str());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: stnc_random check|replay|print [options] (see the comment in tests/random/Main.cpp)\n");
    return 2;
  }
  std::string cmd = argv[1];
  Options opt;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "stnc_random: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--stnc") opt.stnc = fs::absolute(next()).string();
    else if (a == "--seed") opt.seed = std::stoull(next());
    else if (a == "--count") opt.count = std::stoi(next());
    else if (a == "--batch") opt.batch = std::max(1, std::stoi(next()));
    else if (a == "--work") opt.work = next();
    else if (a == "--regressions") opt.regressions = next();
    else if (a == "--ulp") opt.ulp = std::stoi(next());
    else if (a == "--no-shrink") opt.shrink = false;
    else if (a == "--runs") opt.runs = std::max(1, std::stoi(next()));
    else if (a == "--jobs") opt.jobs = std::max(1, std::stoi(next()));
    else if (a == "--strict-zero") opt.strictZero = true;  // the default; kept for old command lines
    else if (a == "--lenient-zero") opt.strictZero = false;
    else if (a == "--max-failures") opt.maxFailures = std::stoi(next());
    else if (a == "-v" || a == "--verbose") opt.verbose = true;
    else if (a == "--stnc-flags") opt.stncFlags = next();
    else if (a == "--region-chance") opt.gen.regionChance = std::stod(next());
    else if (a == "--lower-chance") opt.gen.lowerChance = std::stod(next());
    else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "stnc_random: unknown option %s\n", a.c_str());
      return 2;
    } else opt.files.push_back(a);
  }
  opt.work = fs::absolute(opt.work).string();
  if (cmd == "print") return cmdPrint(opt);
  if (opt.stnc.empty()) {
    std::fprintf(stderr, "stnc_random: --stnc PATH is required\n");
    return 2;
  }
  // Keep the compile cache of `stnc run` inside the work folder unless told otherwise.
  if (!std::getenv("STNC_CACHE_DIR")) setenv("STNC_CACHE_DIR", (opt.work + "/cache").c_str(), 1);
  // Small grids: threads only cost time (and results must not depend on them).
  if (!std::getenv("OMP_NUM_THREADS")) setenv("OMP_NUM_THREADS", "1", 1);
  if (cmd == "check") return cmdCheck(opt);
  if (cmd == "replay") return cmdReplay(opt);
  std::fprintf(stderr, "stnc_random: unknown command %s\n", cmd.c_str());
  return 2;
}
