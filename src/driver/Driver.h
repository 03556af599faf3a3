// The stnc command line: `stnc FILE.stn` (compile), `stnc info FILE.stn`, `stnc run FILE.stn`.
#pragma once
#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "codegen/Launcher.h"
#include "dag/Kernel.h"
#include "passes/ChooseSchedule.h"
#include "passes/PassManager.h"
#include "syntax/ModuleLoader.h"

namespace stnc_rt {
struct Layout;
}

namespace stnc::driver {

// The C entry point of every generated source (codegen::entryName, codegen/Backends.h): extents per
// axis, field buffers, params, steps, point sources (count, field + point per source, wavelets), timed
// sweeps, ms[2] (median, min) out, error text; 0 on success.
using EntryFn = int (*)(const long*, void**, const double*, long, int, const long*, const double*, long, double*, char*,
                        unsigned long);

// The buffer layout of kernel k for interior extents n (one per axis); false on bad extents.
bool kernelLayout(const dag::Kernel& k, const long* n, stnc_rt::Layout& L);


int compileMain(int argc, char** argv);
int infoMain(int argc, char** argv);
int runMain(int argc, char** argv);

// Front + middle end on a file with the usual diagnostics printing. nullopt on error.
struct Frontend {
  std::vector<std::string> includeDirs;
  std::string stdlibDir;
  bool werror = false;
  passes::PassOptions passOpts;
  passes::ScheduleOverride schedule;
  std::string fpContract = "off";  // --fp-contract; sets schedule.contractFma
  std::string factorSums = "off";  // --factor-sums; sets schedule.factorSums
  std::vector<std::string> filesRead;
  std::optional<dag::Module> compile(const std::string& path);
};

std::string defaultStdlibDir(const char* argv0);
// -I / --stdlib (where imports are found), shared by `stnc`, `stnc info` and `stnc run`.
void addImportOptions(class CLI::App& app, Frontend& fe);
// --schedule / --block / --chunk, shared by `stnc` and `stnc run`.
void addScheduleOptions(class CLI::App& app, Frontend& fe, std::string& block);
bool applyBlockOption(const std::string& block, Frontend& fe);
std::string stncVersion();
codegen::GenOptions genOptions(const std::string& target);

// Compiles generated sources into a cached shared object; returns its path or "" (error set).
struct SharedObjectRequest {
  std::string backend;     // cpu | cuda
  std::string baseName;    // FILE (the .stn stem)
  std::string header, source;
  std::string arch = "sm_90";
};
std::string buildSharedObject(const SharedObjectRequest& req, bool verbose, std::string& error);
std::string findNvcc();

}  // namespace stnc::driver
