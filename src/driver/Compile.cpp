// `stnc FILE.stn`: compile to CPU and/or CUDA sources + the launcher header, or print an IR.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <fstream>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "codegen/Backends.h"
#include "codegen/mpi/MpiLauncher.h"
#include "dag/Printer.h"
#include "driver/ArgText.h"
#include "driver/Autotune.h"
#include "driver/Driver.h"
#include "driver/Files.h"
#include "passes/Pipeline.h"
#include "sema/ScheduleArgs.h"
#include "syntax/AstPrinter.h"
#include "syntax/Parser.h"
#include "driver/PtxasCheck.h"
#include "driver/Report.h"

namespace stnc::driver {

namespace fs = std::filesystem;

std::string stncVersion() { return STNC_VERSION; }

std::string defaultStdlibDir(const char* argv0) {
  if (const char* e = std::getenv("STNC_STDLIB")) return e;
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) exe = fs::path(argv0);
  fs::path installed = exe.parent_path().parent_path() / "share" / "stnc" / "stdlib";
  if (fs::is_directory(installed, ec)) return installed.string();
  return STNC_SOURCE_STDLIB;
}

codegen::GenOptions genOptions(const std::string& target) {
  codegen::GenOptions o;
  o.stncVersion = stncVersion();
  o.commandLine = "--target " + target;
  return o;
}

std::optional<dag::Module> Frontend::compile(const std::string& path) {
  SourceManager sm;
  DiagEngine diags(sm);
  diags.warningsAsErrors = werror;
  LoadOptions lo{includeDirs, stdlibDir};
  std::ostringstream log;
  passes::CompileResult r = passes::compileModule(path, nullptr, lo, passOpts, sm, diags, log, schedule);
  std::cerr << log.str();
  diags.print(std::cerr);
  filesRead = r.files;
  if (!r.module || diags.hasErrors()) {
    if (diags.errorCount() > 0)
      std::cerr << diags.errorCount() << " error" << (diags.errorCount() > 1 ? "s" : "") << " generated.\n";
    return std::nullopt;
  }
  return r.module;
}

void addImportOptions(CLI::App& app, Frontend& fe) {
  app.add_option("-I,--include", fe.includeDirs, "Directory searched for imports (after the importing file's own)");
  app.add_option("--stdlib", fe.stdlibDir, "The stdlib directory searched last for imports")->capture_default_str();
}

void addScheduleOptions(CLI::App& app, Frontend& fe, std::string& block) {
  app.add_option("--schedule", fe.schedule.strategy,
                 "CUDA mapping: auto (chosen from the DAG), naive (one point per thread) or stream "
                 "(2.5-D along the first axis with register queues). A `schedule stream(block = 32x8, ...);` "
                 "statement in the source sets these for one kernel; options given here win over it")
      ->check(CLI::IsMember({"auto", "naive", "stream"}))
      ->capture_default_str();
  app.add_option("--block", block, "CUDA thread block XxY over the two innermost axes (default: the policy's per kernel, e.g. 32x8 naive, 16x16 for rings of reach 4, 64x4 for f64 rings of reach 1, 32x8 for f32 rings of reach 1-3; --report shows it)");
  app.add_option("--chunk", fe.schedule.chunk, "stream: points of the first axis per block (default: from the SM count)")
      ->check(wholeAtLeast(0));
  app.add_option("--prefetch", fe.schedule.prefetch, "stream: planes the register queues load ahead of use (more bytes in flight); with shared-memory rings: "
                 "planes of cp.async copies in flight (default 2; 3 for f64 rings of in-plane reach 1 and f32 rings of reach 1-3)")
      ->check(CLI::Range(0, 8));
  app.add_option("--fp-contract", fe.fpContract,
                 "off: every + - * rounds on its own (default; bit-identical to plain C++ loops); on: a*b+c with "
                 "a single-use product becomes fma(a,b,c) in the DAG, identically on CPU, CUDA and the interpreter")
      ->check(CLI::IsMember({"off", "on"}))
      ->each([&fe](const std::string& v) { fe.schedule.contractFma = v == "on"; })
      ->capture_default_str();
  app.add_option("--factor-sums", fe.factorSums,
                 "off: weighted sums are evaluated as written (default); on: a weighted sum of one field whose constant "
                 "coefficients are mirror-symmetric along the two inner axes (e.g. a 125-point box) is evaluated as shared "
                 "partial sums (249 -> 63 operations per point for the 125-point box; CUDA: the sumfactor schedule); "
                 "rounding differs from the sum as written, identically on CPU, CUDA and the interpreter; --report "
                 "says which kernels qualify")
      ->check(CLI::IsMember({"off", "on"}))
      ->each([&fe](const std::string& v) { fe.schedule.factorSums = v == "on"; })
      ->capture_default_str();
  app.add_option("--tensor-cores", fe.schedule.tensorCores,
                 "auto (with --fp-contract=on): an f64 weighted sum of 64 or more terms of one field within offsets -2..2 "
                 "(e.g. a 125-point box with runtime coefficients), written term by term in ascending (plane, row, column) "
                 "order, runs on the FP64 tensor cores (CUDA schedule `tensor`, mma.sync: box125_rt 1.10x faster than "
                 "sumfactor at 256^3 on the H200, and bit for bit the sum as written); off: never")
      ->check(CLI::IsMember({"auto", "off"}))
      ->capture_default_str();
  app.add_option("--rows", fe.schedule.rows, "stream: consecutive rows of the second axis per thread (shared loads)")
      ->check(CLI::Range(1, 8));
  app.add_option("--vec", fe.schedule.vec,
                 "stream: consecutive points of the innermost axis per thread, loaded and stored as one vector "
                 "(1, 2 or 4; at most 16 bytes: 2 for f64); in-row neighbours are shared between them")
      ->check(CLI::IsMember({1, 2, 4}));
  app.add_option("--slab-vec", fe.schedule.slabVec,
                 "stream, a region kernel's default part: points per thread of its slab kernel (the boxes around the "
                 "regions that are thin along the first or second axis, copied by the tensor memory accelerator; the "
                 "source's key slab_vec), which may differ from --vec: slab boxes are whole rows wide, while the part's "
                 "narrow boxes (a 27-column PML face) idle lanes at wide tiles. Default: --vec")
      ->check(CLI::IsMember({1, 2, 4}));
  auto autoOnOff = [&app](const std::string& name, std::string& value, const std::string& help) {
    app.add_option(name, value, help)->check(CLI::IsMember({"auto", "on", "off"}))->capture_default_str();
  };
  autoOnOff("--smem", fe.schedule.smem,
            "stream: on brings every plane a kernel reads into shared memory through a ring of cp.async copies "
            "(--prefetch planes in flight, default 2; --rows rows per thread) and reads the in-plane neighbours there "
            "instead of through L1; a part whose rings exceed 200 KiB keeps L1 loads; auto: the policy (rings for "
            "stars and other non-box kernels where they fit two blocks per SM); off: never");
  autoOnOff("--tma", fe.schedule.tma,
            "stream with shared-memory rings: on copies each plane's tiles with the Hopper tensor memory accelerator "
            "(one thread issues one cp.async.bulk.tensor per field and plane against a tensor map the launcher encodes "
            "for the box; the copies complete on an mbarrier) instead of every thread issuing 16-byte cp.async copies; "
            "auto: the policy (on where the launch cuts few tile columns into one wave of long chunks and the first-axis reach "
            "is 2 or more: the 13-, 19- and 25-point stars; and, for a region kernel's default part, a second kernel for the boxes "
            "left around the regions that are thin along the first or second axis and two tiles wide or more, such as PML faces; "
            "off elsewhere); off: never");
  app.add_option("--queue-heads", fe.schedule.queueHeads,
                 "stream with shared-memory rings: where each register queue (a field read at several offsets along "
                 "the first axis) loads its newest plane. ring: from its plane's tile, so the ring also holds the "
                 "planes between the in-plane reads and the head; global: straight from global memory --prefetch "
                 "planes ahead into registers, so the rings shrink (the fused CNS hypterm: 171 -> 92 KiB per block at 2 planes in flight); "
                 "auto: the policy")
      ->check(CLI::IsMember({"auto", "ring", "global"}))
      ->capture_default_str();
  autoOnOff("--temporal", fe.schedule.temporal,
            "CUDA step loop: on fuses two time steps per sweep (temporal blocking) in cuda::step where the kernel "
            "qualifies (--report says whether and why not); auto: the policy (today: f64 kernels, for fields of 2 GiB or "
            "more: 1.13x at 768^3, 0.72x at 256^3 where L2 helps single steps, bench/results/2026-12-01-s17-temporal.md); "
            "off: never");
  autoOnOff("--fuse-regions", fe.schedule.fuseRegions,
            "CUDA: on runs a kernel's region and its default equations as one kernel over the whole box (the "
            "region's tile and rings; blocks inside or outside the region run one body, blocks on its boundary "
            "choose per point) instead of one launch per part; auto: the policy (today: not used, the acoustic "
            "sample measured 4.78 vs 3.10 ms per step, bench/results/2026-11-30-s7-variants.md); off: never. "
            "--report says whether a kernel qualifies");
  autoOnOff("--region-edges", fe.schedule.regionEdges,
            "CUDA, a kernel with one region: where the region starts or ends along the last axis off a tile boundary "
            "(e.g. a 27-cell PML), the default part's faces thin along that axis widen into the region to whole tiles "
            "and run both bodies, point by point, so the region's kernel covers whole tiles; auto: the policy (today: not "
            "used, the acoustic sample measured 190.6 vs 191.6 Gpts/s, bench/results/2026-12-04-s27-edges.md); off: never. "
            "--report says whether a kernel qualifies");
  app.add_option("--align-region", fe.schedule.alignRegion,
                 "Kernels with regions: on pads the arrays' rows (layout()) so that the largest region's first column along "
                 "the last axis starts on a 128-byte boundary instead of interior column 0 (the acoustic PML's column 27), "
                 "so the region's kernel and the default part's do not share the sectors of that boundary; the kernels "
                 "align their tiles and vectors to the layout either way and results are the same bits (not with --distributed; "
                 "measured: bench/results/2026-12-07-s39-align-region.md)")
      ->check(CLI::IsMember({"on", "off"}))
      ->capture_default_str();
  app.add_option("--unroll", fe.schedule.unroll, "stream: unroll factor of the loop along the first axis")
      ->check(CLI::Range(1, 16));
}

bool applyBlockOption(const std::string& block, Frontend& fe) {
  if (block.empty()) return true;
  dag::ScheduleRequest r;  // the same rule as a `schedule` statement's block
  std::string expected;
  if (!sema::readScheduleArg("block", block, r, expected)) {
    std::cerr << "stnc: error: --block " << block << ": expected " << expected << "\n";
    return false;
  }
  fe.schedule.blockX = r.blockX;
  fe.schedule.blockY = r.blockY;
  return true;
}

namespace {

void addCommonOptions(CLI::App& app, Frontend& fe) {
  addImportOptions(app, fe);
  app.add_flag("--Werror", fe.werror, "Treat warnings as errors");
}

std::string escapeMake(const std::string& s) {
  std::string o;
  for (char c : s) o += c == ' ' ? std::string("\\ ") : c == '$' ? std::string("$$") : std::string(1, c);
  return o;
}

}  // namespace

int compileMain(int argc, char** argv) {
  CLI::App app{
      "stnc — a compiler for the .stn stencil language.\n\n"
      "  stnc FILE.stn [-o DIR] [--target cpu|cuda|all]   write FILE.h (+ FILE.cpp / FILE.cu, FILE.json) into DIR\n"
      "  stnc info FILE.stn                               print the stencils' interfaces and halos as JSON\n"
      "  stnc run FILE.stn [--stencil NAME] --in f=f.npy --out g=g.npy [--param p=v] [--steps N] [--size NxMxK]\n"
      "                                                   run a stencil on .npy data (see `stnc run --help`)\n\n"
      "Inspecting the compiler: --emit=ast|dag|json|dot prints an IR instead of writing code;\n"
      "--print-after=PASS / --print-after-all / --time-passes / --verify-each follow the pass pipeline.\n",
      "stnc"};
  Frontend fe;
  fe.stdlibDir = defaultStdlibDir(argv[0]);
  std::string input, outDir = ".", target = "all", emit, depfile, arch = "sm_90";
  std::vector<std::string> printAfter;
  bool listPasses = false, version = false, report = false, verify = false;
  std::string block;
  app.add_option("file", input, "The .stn source file");
  app.add_option("-o,--output", outDir, "Output directory (created if missing)")->capture_default_str();
  app.add_option("--target", target, "What to generate: cpu (FILE.cpp), cuda (FILE.cu) or all")
      ->check(CLI::IsMember({"cpu", "cuda", "all"}))
      ->capture_default_str();
  app.add_option("--arch", arch, "CUDA architecture of the builds: recorded for stnc run's and --autotune's nvcc; below sm_90 the "
                 "policy leaves the tensor memory accelerator out (--tma)")->capture_default_str();
  app.add_option("-M,--depfile", depfile, "Also write a Makefile depfile listing every file read");
  app.add_option("--emit", emit, "Print an IR to stdout instead of generating code")
      ->check(CLI::IsMember({"ast", "dag", "json", "dot"}));
  app.add_option("--print-after", printAfter, "Print the DAG after the named pass (repeatable)");
  app.add_flag("--print-after-all", fe.passOpts.printAfterAll, "Print the DAG after every pass");
  app.add_flag("--print-changed", fe.passOpts.printChanged, "Print the DAG after every pass that changed it");
  app.add_flag("--verify-each", fe.passOpts.verifyEach, "Verify the DAG after every pass");
  app.add_flag("--time-passes", fe.passOpts.timePasses, "Print the time each pass took");
  app.add_flag("--list-passes", listPasses, "List the passes of the pipeline, in order");
  app.add_flag("--version", version, "Print the version");
  app.add_flag("--report", report, "Print the optimization report: per kernel the schedule, tile, loads and floors");
  app.add_flag("--verify-schedules", verify,
               "Compile the CUDA code with nvcc -Xptxas -v and demote stream schedules that spill to naive (the "
               "report then shows registers and spills, each part's resident blocks per SM and, for region "
               "kernels, how many of the default part's blocks fit beside the region's)");
  bool fitBeside = false;
  app.add_flag("--fit-beside", fitBeside,
               "With --verify-schedules (implied): give a region kernel's default part blocks of half the rows "
               "(16x16 -> 16x8) where none of its blocks fits on an SM beside the region's resident blocks and the "
               "halved one does, unless a block was given. Off by default: the acoustic PML shell gained 0.4 % on "
               "an H100 and lost 0.6-1 % on an H200");
  bool autotuneFlag = false;
  AutotuneOptions tune;
  std::string schedulesFile;
  app.add_flag("--autotune", autotuneFlag,
               "Time every schedule candidate of every kernel on this machine's GPU (needs nvcc and a GPU), keep the "
               "fastest and save the choices as DIR/FILE.schedules.json, which later compiles into DIR reuse");
  app.add_option("--autotune-size", tune.size, "Extents the autotuner times rank-3 kernels at")->default_str("256x256x256");
  app.add_option("--schedules", schedulesFile,
                 "Schedules file to apply (default: DIR/FILE.schedules.json when present; 'none' ignores it). "
                 "Schedule options on the command line win over it");
  bool distributed = false;
  app.add_flag("--distributed", distributed, "Also write FILE_mpi.h: MPI domain-decomposition launchers (docs/DISTRIBUTED.md)");
  addScheduleOptions(app, fe, block);
  addCommonOptions(app, fe);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return cliExit(app, e);
  }
  if (version) {
    std::cout << "stnc " << stncVersion() << "\n";
    return 0;
  }
  if (listPasses) {
    for (auto& n : passes::standardPasses().names()) std::cout << n << "\n";
    return 0;
  }
  if (input.empty()) {
    std::cerr << app.help();
    return 1;
  }
  if (!applyBlockOption(block, fe)) return 1;
  fe.passOpts.printAfter.insert(printAfter.begin(), printAfter.end());
  for (auto& p : printAfter) {
    auto names = passes::standardPasses().names();
    if (std::find(names.begin(), names.end(), p) == names.end()) {
      std::cerr << "stnc: error: unknown pass '" << p << "' (see --list-passes)\n";
      return 1;
    }
  }
  if (emit == "ast") {
    SourceManager sm;
    DiagEngine diags(sm);
    std::optional<ast::Program> prog = loadProgram(input, {fe.includeDirs, fe.stdlibDir}, sm, diags);
    diags.print(std::cerr);
    if (!prog) return 1;
    printAst(std::cout, prog->merged);
    return 0;
  }
  fe.schedule.smVersion = passes::smVersionOf(arch);
  std::optional<dag::Module> m = fe.compile(input);
  if (!m) return 1;
  const std::string base = (fs::path(outDir) / m->sourceName).string();
  std::vector<std::pair<std::string, std::string>> files;
  if (autotuneFlag) {
    tune.arch = arch;
    std::string error, saved = autotune(*m, fe.schedule, tune, std::cerr, error);
    if (saved.empty()) {
      std::cerr << "stnc: error: " << error << "\n";
      return 1;
    }
    files.push_back({base + ".schedules.json", saved});
  } else if (schedulesFile != "none" && !passes::forcesSchedule(fe.schedule)) {
    const std::string path = schedulesFile.empty() ? base + ".schedules.json" : schedulesFile;
    std::ifstream in(path);
    if (in) {
      std::stringstream text;
      text << in.rdbuf();
      std::string error;
      if (applySchedules(*m, text.str(), error) < 0) {
        std::cerr << "stnc: error: " << path << ": " << error << "\n";
        return 1;
      }
    } else if (!schedulesFile.empty()) {
      std::cerr << "stnc: error: cannot read schedules file '" << schedulesFile << "'\n";
      return 1;
    }
  }
  std::map<std::string, PtxasInfo> ptxas;
  if (verify || fitBeside) {
    std::string error;
    if (!verifySchedules(*m, arch, ptxas, error, fitBeside, fe.schedule.blockX > 0)) {
      std::cerr << "stnc: error: " << error << "\n";
      return 1;
    }
  }
  if (report) printReport(std::cout, *m, ptxas, passes::smVersionOf(arch));
  if (emit == "dag") dag::printText(std::cout, *m);
  if (emit == "json") dag::printJson(std::cout, *m);
  if (emit == "dot") dag::printDot(std::cout, *m);
  if (!emit.empty() || (report && outDir == ".")) return 0;

  if (distributed)  // before anything is written: a failed compile leaves no file behind
    for (const dag::Kernel& k : m->kernels) {
      if (k.alignColumn > 0) {
        std::cerr << "stnc: error: --distributed with --align-region=on: the MPI launchers (docs/DISTRIBUTED.md) allocate "
                     "each rank's arrays with rows aligned on interior column 0, and '"
                  << k.name << "' would run them on its one-point kernels; leave --align-region off\n";
        return 1;
      }
      for (const dag::Field& f : k.fields)
        if (f.lowerRank()) {
          std::cerr << "stnc: error: --distributed: field '" << f.name << "' of '" << k.name
                    << "' has fewer axes than the kernel; the MPI launchers (docs/DISTRIBUTED.md) decompose full fields only\n";
          return 1;
        }
    }
  codegen::GenOptions go = genOptions(target);
  files.push_back({base + ".h", codegen::generateHeader(*m, go)});
  if (target == "cpu" || target == "all") files.push_back({base + ".cpp", codegen::generateCpp(*m, go)});
  if (target == "cuda" || target == "all") files.push_back({base + ".cu", codegen::generateCuda(*m, go)});
  files.push_back({base + ".json", codegen::generateMetadata(*m, go)});
  if (distributed) files.push_back({base + "_mpi.h", codegen::generateMpiHeader(*m, go)});
  if (!depfile.empty()) {
    std::string deps;
    for (auto& f : files) deps += escapeMake(f.first) + " ";
    deps += ":";
    for (auto& f : fe.filesRead) deps += " " + escapeMake(f);
    deps += "\n";
    for (size_t i = 1; i < fe.filesRead.size(); ++i) deps += escapeMake(fe.filesRead[i]) + ":\n";
    files.push_back({depfile, deps});
  }
  std::string error;
  if (!writeFilesAtomically(files, error)) {
    std::cerr << "stnc: error: " << error << "\n";
    return 1;
  }
  return 0;
}

}  // namespace stnc::driver
