// `stnc run`: compile a stencil, run it on .npy inputs with the CPU or CUDA backend, write .npy
// outputs (atomically). The generated code is compiled into a cached shared object and called
// through its C entry point (see codegen/Backends.h).
#include <dlfcn.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>

#include "codegen/Backends.h"
#include "codegen/KernelBody.h"
#include "codegen/runtime/stnc_runtime.h"
#include "driver/ArgText.h"
#include "driver/Driver.h"
#include "driver/Files.h"
#include "driver/InferExtents.h"
#include "driver/Npy.h"
#include "driver/PointSources.h"
#ifdef STNC_HAVE_INTERP
#include "interp/Interpreter.h"
#endif
#include "syntax/Parser.h"

namespace stnc::driver {

namespace fs = std::filesystem;

namespace {

int fail(const std::string& msg) {
  std::cerr << "stnc run: error: " << msg << "\n";
  return 1;
}

bool splitAssign(const std::string& s, std::string& name, std::string& value) {
  size_t eq = s.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == s.size()) return false;
  name = s.substr(0, eq);
  value = s.substr(eq + 1);
  return true;
}

struct AlignedBuffer {
  void* p = nullptr;
  explicit AlignedBuffer(size_t bytes) { p = std::aligned_alloc(128, stnc_rt::roundUp(static_cast<long>(bytes), 128)); }
  ~AlignedBuffer() { std::free(p); }
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
};

}  // namespace

bool kernelLayout(const dag::Kernel& k, const long* n, stnc_rt::Layout& L) {
  std::array<int, 3> ih = codegen::internalHalo(k);
  long n3[3] = {1, 1, 1};
  for (int a = 0; a < k.rank(); ++a) n3[codegen::internalDim(k, a)] = n[a];
  return stnc_rt::makeLayout(n3, ih.data(), static_cast<int>(dag::elemSize(k.type)), L, k.alignColumn);  // the generated layout()'s
}

int runMain(int argc, char** argv) {
  CLI::App app{"stnc run — compile one stencil (or group) and run it on .npy data.\n\n"
               "  stnc run heat.stn --stencil heat3d --size 64x64x64 --in u=u.npy --out unew=unew.npy --param dt=0.1\n\n"
               "--stencil may be left out when the file declares one stencil (or group), --size when an input array\n"
               "fixes every axis (its shape minus 2*halo).\n"
               "Inputs are .npy arrays of the stencil's dtype shaped n + 2*halo per axis (the halo values are the\n"
               "boundary); an interior-shaped array is accepted where a boundary rule fills the halo. Outputs are\n"
               "written interior-shaped. Without --steps one sweep runs (after boundary fills); with --steps N,\n"
               "N steps of (fill boundaries, sweep, swap) run and --out NAME writes the array holding role NAME.\n"
               "--source adds a value at one point after each step's sweep (before the swap), e.g. a wavelet:\n"
               "  stnc run wave.stn --stencil wave --size 128x128x128 --in u=u.npy --in v=v.npy --in roc2=c.npy \\\n"
               "           --steps 100 --source v@64,64,64=ricker.npy --out u=u100.npy",
               "stnc run"};
  Frontend fe;
  fe.stdlibDir = defaultStdlibDir(argv[0]);
  std::string input, stencil, size, backend = "cpu", arch = "sm_90";
  std::vector<std::string> ins, outs, params, sources;
  long steps = 0, bench = 0;
  bool verbose = false;
  std::string block;
  addScheduleOptions(app, fe, block);
  app.add_option("file", input, "The .stn source file")->required();
  app.add_option("--stencil", stencil, "The stencil or group to run (may be left out when the file has only one)");
  app.add_option("--size", size,
                 "Interior extents, one per axis: 64x64x64 (default: from the --in arrays' shapes, interior + 2*halo)");
  app.add_option("--backend", backend, "cpu (OpenMP C++), cuda (needs nvcc and a GPU) or interp (the reference interpreter)")
      ->check(CLI::IsMember({"cpu", "cuda", "interp"}))
      ->capture_default_str();
  app.add_option("--arch", arch, "CUDA architecture for nvcc (below sm_90 the policy leaves the tensor memory accelerator out)")->capture_default_str();
  app.add_option("--in", ins, "NAME=FILE.npy for every input (and inout) field");
  app.add_option("--out", outs, "NAME=FILE.npy for each field to write (interior-shaped)");
  app.add_option("--param", params, "NAME=VALUE for every param");
  app.add_option("--steps", steps, "Run N time steps (fill boundaries, sweep, swap) instead of one sweep")
      ->check(wholeAtLeast(0));
  app.add_option("--source", sources,
                 "FIELD@I,J,K=WAVELET.npy (or =VALUE): after step t's sweep, add WAVELET[t] to FIELD at interior point "
                 "(I,J,K); repeatable; needs --steps");
  app.add_option("--bench", bench, "Also time R sweeps (median ms per sweep and GB/s; on the GPU each sweep starts with a cold L2)")->check(wholeAtLeast(0));
  app.add_flag("-v,--verbose", verbose, "Print the compiler commands");
  app.add_option("-I,--include", fe.includeDirs, "Directory searched for imports");
  app.add_option("--stdlib", fe.stdlibDir, "The stdlib directory searched last for imports");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return cliExit(app, e);
  }

  if (!applyBlockOption(block, fe)) return 1;
  fe.schedule.smVersion = passes::smVersionOf(arch);
  std::optional<dag::Module> m = fe.compile(input);
  if (!m) return 1;
  std::string names;
  for (const dag::Kernel& x : m->kernels) names += (names.empty() ? "" : ", ") + x.name;
  if (m->kernels.empty()) return fail("'" + input + "' declares no stencil or group to run");
  if (stencil.empty() && m->kernels.size() > 1)
    return fail("'" + input + "' declares " + std::to_string(m->kernels.size()) + " stencils or groups (" + names +
                "): name one with --stencil");
  const dag::Kernel* k = stencil.empty() ? &m->kernels.front() : m->find(stencil);
  if (!k) return fail("no stencil or group named '" + stencil + "' (available: " + names + ")");

  // Extents: --size, or the --in arrays' headers (malformed --in options are reported below).
  std::vector<long> n;
  if (size.empty()) {
    std::vector<InputShape> shapes;
    for (const std::string& s : ins) {
      std::string name, file, err;
      NpyArray header;
      const int idx = splitAssign(s, name, file) ? k->fieldIndex(name) : -1;
      if (idx < 0) continue;
      if (!readNpy(file, header, err, /*withData=*/false)) return fail(err);
      shapes.push_back({idx, file, header.shape});
    }
    std::string error;
    if (!inferExtents(*k, shapes, n, error)) return fail(error);
  } else {
    std::string bad;
    if (!parseLongList(size, 'x', n, bad) || std::any_of(n.begin(), n.end(), [](long v) { return v <= 0; }))
      return fail("--size '" + size + "': expected positive extents like 64x64x64");
  }
  if (static_cast<int>(n.size()) != k->rank())
    return fail("--size has " + std::to_string(n.size()) + " extents, stencil '" + k->name + "' has " +
                std::to_string(k->rank()) + " axes");

  // Point sources.
  PointSources src;
  {
    std::string error;
    if (!parsePointSources(*k, n, steps, sources, src, error)) return fail(error);
  }

  // Params.
  std::vector<double> pv(k->params.size(), 0.0);
  std::vector<bool> given(k->params.size(), false);
  for (const std::string& p : params) {
    std::string name, value;
    if (!splitAssign(p, name, value)) return fail("--param '" + p + "': expected NAME=VALUE");
    int idx = k->paramIndex(name);
    if (idx < 0) return fail("'" + k->name + "' has no param '" + name + "'");
    double v;
    if (const NumberRead r = readSignedNumber(value, v); r == NumberRead::Overflow || r == NumberRead::Malformed)
      return fail("--param " + name + ": '" + value + "' is " + notANumberReason(r));
    if (k->type == dag::ElemType::F32 && !std::isfinite(static_cast<float>(v)))
      return fail("--param " + name + ": " + value + " is beyond the f32 range of stencil '" + k->name +
                  "' (largest 3.4028235e+38)");
    pv[idx] = v;
    given[idx] = true;
  }
  for (size_t i = 0; i < k->params.size(); ++i)
    if (!given[i]) return fail("missing --param " + k->params[i] + "=VALUE");

  // Layout and buffers.
  stnc_rt::Layout L{};
  const size_t es = dag::elemSize(k->type);
  if (!kernelLayout(*k, n.data(), L)) return fail("extents too large");
  const std::string descr = k->type == dag::ElemType::F32 ? "<f4" : "<f8";
  std::vector<std::unique_ptr<AlignedBuffer>> bufs;
  // Elements of field f's array: the layout's, or a lower-rank field's dense n + 2*halo along its axes.
  auto elems = [&](const dag::Field& f) { return stnc_rt::fieldCount(L, dag::fieldDims(*k, f)); };
  for (const dag::Field& f : k->fields) {
    const size_t bytes = elems(f) * es;
    bufs.push_back(std::make_unique<AlignedBuffer>(bytes));
    if (!bufs.back()->p) return fail("out of memory allocating " + std::to_string(bytes) + " bytes");
    std::memset(bufs.back()->p, 0, bytes);
  }
  std::vector<long> full, interior;
  for (int a = 0; a < k->rank(); ++a) {
    full.push_back(n[a] + 2 * k->footprint.halo[a]);
    interior.push_back(n[a]);
  }
  auto lowerShape = [&](const dag::Field& f) {  // n + 2*halo along the axes the field has
    std::vector<long> s;
    for (int a = 0; a < k->rank(); ++a)
      if (f.axes & (1u << a)) s.push_back(full[static_cast<size_t>(a)]);
    return s;
  };
  // Copies an array of the given shape (full or interior) into a padded buffer.
  auto scatter = [&](const NpyArray& arr, void* dst, bool isFull) {
    long ext[3] = {1, 1, 1}, off[3] = {0, 0, 0};
    for (int a = 0; a < k->rank(); ++a) {
      int d = codegen::internalDim(*k, a);
      ext[d] = arr.shape[a];
      off[d] = isFull ? -k->footprint.halo[a] : 0;
    }
    const char* src = arr.data.data();
    for (long x = 0; x < ext[0]; ++x)
      for (long y = 0; y < ext[1]; ++y) {
        long at = stnc_rt::at(L, x + off[0], y + off[1], off[2]);
        std::memcpy(static_cast<char*>(dst) + at * es, src, ext[2] * es);
        src += ext[2] * es;
      }
  };
  std::map<std::string, bool> loaded;
  for (const std::string& s : ins) {
    std::string name, file, err;
    if (!splitAssign(s, name, file)) return fail("--in '" + s + "': expected NAME=FILE.npy");
    int idx = k->fieldIndex(name);
    if (idx < 0) return fail("'" + k->name + "' has no field '" + name + "'");
    if (!dag::isRead(k->fields[idx].role)) return fail("'" + name + "' is an output of '" + k->name + "', not an input");
    NpyArray arr;
    if (!readNpy(file, arr, err)) return fail(err);
    if (arr.descr != descr)
      return fail("'" + file + "' has dtype " + arr.descr + "; stencil '" + k->name + "' is " + dag::elemTypeName(k->type) +
                  " (" + descr + ")");
    if (k->fields[idx].lowerRank()) {  // dense, halo included: copied as it is
      const std::vector<long> want = lowerShape(k->fields[idx]);
      if (arr.shape != want)
        return fail("'" + file + "' for field '" + name + "' (over " + [&] {
                 std::string s;
                 for (const std::string& a : dag::fieldAxisNames(*k, k->fields[idx])) s += (s.empty() ? "" : ", ") + a;
                 return s;
               }() + ") has shape " + shapeText(arr.shape) + "; expected " + shapeText(want) + " (interior + 2*halo along its axes)");
      std::memcpy(bufs[idx]->p, arr.data.data(), elems(k->fields[idx]) * es);
      loaded[name] = true;
      continue;
    }
    bool isFull = arr.shape == full;
    bool isInterior = arr.shape == interior && haloFilledByRules(*k, name);
    if (!isFull && !isInterior) {
      std::string msg = "'" + file + "' for field '" + name + "' has shape " + shapeText(arr.shape) + "; expected " +
                        shapeText(full) + " (interior + 2*halo)";
      if (haloFilledByRules(*k, name)) msg += " or " + shapeText(interior) + " (interior; the boundary rule fills the halo)";
      return fail(msg);
    }
    scatter(arr, bufs[idx]->p, isFull);
    loaded[name] = true;
  }
  for (const dag::Field& f : k->fields)
    if (dag::isRead(f.role) && !loaded.count(f.name)) return fail("missing --in " + f.name + "=FILE.npy");
  // Both buffers of a swap pair start as a copy of the input (halo included).
  for (auto& [a, b] : k->swaps) {
    int ia = k->fieldIndex(a), ib = k->fieldIndex(b);
    if (loaded.count(a) && !loaded.count(b)) std::memcpy(bufs[ib]->p, bufs[ia]->p, L.count * es);
    if (loaded.count(b) && !loaded.count(a)) std::memcpy(bufs[ia]->p, bufs[ib]->p, L.count * es);
  }
  std::vector<std::pair<int, std::string>> outputs;
  for (const std::string& s : outs) {
    std::string name, file;
    if (!splitAssign(s, name, file)) return fail("--out '" + s + "': expected NAME=FILE.npy");
    int idx = k->fieldIndex(name);
    if (idx < 0) return fail("'" + k->name + "' has no field '" + name + "'");
    if (k->fields[idx].lowerRank()) return fail("--out " + name + ": a field with fewer axes than '" + k->name + "' is an input, never written");
    outputs.push_back({idx, file});
  }
  if (outputs.empty()) std::cerr << "stnc run: warning: no --out given; nothing will be written\n";

  // Generate, build (cached), load, run.
  std::vector<void*> ptrs;
  for (auto& b : bufs) ptrs.push_back(b->p);
  double ms[2] = {0, 0};
  char err[512] = {0};
  std::string error;
  int status = 0;
#ifdef STNC_HAVE_INTERP
  if (backend == "interp")  // the reference interpreter of the DAG (src/interp): no code generation
    status = interp::run(*m, *k, n.data(), ptrs.data(), pv.data(), steps, src.count, src.at.data(), src.wave.data(), bench, ms,
                         err, sizeof err);
  else
#endif
  {
    codegen::GenOptions go = genOptions(backend);
    SharedObjectRequest req;
    req.backend = backend;
    req.baseName = m->sourceName;
    req.header = codegen::generateHeader(*m, go);
    req.source = backend == "cpu" ? codegen::generateCpp(*m, go) : codegen::generateCuda(*m, go);
    req.arch = arch;
    std::string so = buildSharedObject(req, verbose, error);
    if (so.empty()) return fail(error);
    void* lib = ::dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) return fail(std::string("cannot load '") + so + "': " + ::dlerror());
    auto entry = reinterpret_cast<EntryFn>(::dlsym(lib, codegen::entryName(*k, backend).c_str()));
    if (!entry) return fail("entry point " + codegen::entryName(*k, backend) + " missing from '" + so + "'");
    status = entry(n.data(), ptrs.data(), pv.data(), steps, src.count, src.at.data(), src.wave.data(), bench, ms, err, sizeof err);
  }
  if (status != 0) return fail(std::string(backend) + " run failed: " + err);

  // Outputs: interior-shaped, written atomically.
  std::vector<std::pair<std::string, std::string>> files;
  for (auto& [idx, file] : outputs) {
    NpyArray arr;
    arr.descr = descr;
    arr.shape = interior;
    arr.data.resize(arr.count() * es);
    long ext[3] = {1, 1, 1};
    for (int a = 0; a < k->rank(); ++a) ext[codegen::internalDim(*k, a)] = n[a];
    char* dst = arr.data.data();
    for (long x = 0; x < ext[0]; ++x)
      for (long y = 0; y < ext[1]; ++y) {
        std::memcpy(dst, static_cast<const char*>(ptrs[idx]) + stnc_rt::at(L, x, y, 0) * es, ext[2] * es);
        dst += ext[2] * es;
      }
    files.push_back({file, npyBytes(arr)});
  }
  if (!writeFilesAtomically(files, error)) return fail(error);
  long points = 1;
  for (long v : n) points *= v;
  std::cerr << "stnc run: " << (k->isGroup ? "group " : "stencil ") << k->name << " [" << backend << "] on ";
  for (size_t a = 0; a < n.size(); ++a) std::cerr << (a ? "x" : "") << n[a];
  if (steps > 0) std::cerr << ", " << steps << " steps";
  else std::cerr << ", 1 sweep";
  if (src.count > 0) std::cerr << ", " << src.count << " point source" << (src.count > 1 ? "s" : "");
  std::cerr << "; wrote";
  for (auto& f : files) std::cerr << " " << f.first;
  std::cerr << "\n";
  if (bench > 0) {
    int moved = 0;
    for (const dag::Field& f : k->fields)
      if (!f.lowerRank()) moved += (dag::isRead(f.role) ? 1 : 0) + (dag::isWritten(f.role) ? 1 : 0);
    double bytes = static_cast<double>(points) * moved * static_cast<double>(es);
    std::printf("bench: %ld sweeps, median %.4f ms/sweep (min %.4f), %.1f GB/s effective (%d arrays x %ld points x %zu B), %.3f Gpts/s\n",
                bench, ms[0], ms[1], bytes / (ms[0] * 1e6), moved, points, es, points / (ms[0] * 1e6));
  }
  return 0;
}

}  // namespace stnc::driver
