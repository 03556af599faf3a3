// `stnc run`: compile a stencil, run it on .npy inputs with the CPU or CUDA backend, write .npy
// outputs (atomically). The generated code is compiled into a cached shared object and called
// through its C entry point (see codegen/Backends.h).
#include <dlfcn.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <iostream>

#include "codegen/Backends.h"
#include "codegen/KernelBody.h"
#include "codegen/runtime/stnc_runtime.h"
#include "driver/ArgText.h"
#include "driver/Driver.h"
#include "driver/Files.h"
#include "driver/InferExtents.h"
#include "driver/Npy.h"
#include "driver/PointSources.h"
#include "driver/RegionCheck.h"
#include "driver/RunData.h"
#include "support/Text.h"
#ifdef STNC_HAVE_INTERP
#include "interp/Interpreter.h"
#endif

namespace stnc::driver {

namespace {

int fail(const std::string& msg) {
  std::cerr << "stnc run: error: " << msg << "\n";
  return 1;
}

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
  addImportOptions(app, fe);
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
  for (const dag::Kernel& x : m->kernels) appendItem(names, x.name);
  if (m->kernels.empty()) return fail("'" + input + "' declares no stencil or group to run");
  if (stencil.empty() && m->kernels.size() > 1)
    return fail("'" + input + "' declares " + std::to_string(m->kernels.size()) + " stencils or groups (" + names +
                "): name one with --stencil");
  const dag::Kernel* k = stencil.empty() ? &m->kernels.front() : m->find(stencil);
  if (!k) return fail("no stencil or group named '" + stencil + "' (available: " + names + ")");

  // The --in options, then the extents: --size, or the --in arrays' headers.
  std::vector<InputSpec> inputs;
  {
    std::string error;
    if (!parseInputSpecs(*k, ins, inputs, error)) return fail(error);
  }
  std::vector<long> n;
  if (size.empty()) {
    std::vector<InputShape> shapes;
    for (const InputSpec& in : inputs) {
      std::string err;
      NpyArray header;
      if (!readNpy(in.file, header, err, /*withData=*/false)) return fail(err);
      shapes.push_back({in.field, in.file, header.shape});
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
  for (const std::string& w : regionWarnings(*k, n)) std::cerr << "stnc run: warning: " << w << "\n";

  // Point sources.
  PointSources src;
  {
    std::string error;
    if (!parsePointSources(*k, n, steps, sources, src, error)) return fail(error);
  }

  // Params.
  std::vector<double> pv;
  {
    std::string error;
    if (!parseParams(*k, params, pv, error)) return fail(error);
  }

  // Buffers in the generated layout, the inputs copied in.
  RunData data;
  {
    std::string error;
    if (!data.allocate(*k, n, error) || !data.load(inputs, error)) return fail(error);
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
  if (outputs.empty()) {
    std::string written;
    for (const dag::Field& f : k->fields)
      if (dag::isWritten(f.role)) appendItem(written, f.name);
    std::cerr << "stnc run: warning: no --out given; nothing will be written (--out NAME=FILE.npy for any of: " << written
              << ")\n";
  }

  // Generate, build (cached), load, run.
  std::vector<void*> ptrs = data.pointers();
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
  // ptrs[f] is the buffer that holds role f after the steps (the entry point swaps pointers, not data).
  for (auto& [idx, file] : outputs) files.push_back({file, data.interiorNpy(ptrs[static_cast<size_t>(idx)])});
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
  if (files.empty()) std::cerr << " nothing";
  std::cerr << "\n";
  if (bench > 0) {
    const size_t es = data.elemSize();
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
