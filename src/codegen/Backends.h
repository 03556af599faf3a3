// The code generators. Each writes complete file contents (strings); the driver writes files.
//   generateCpp:  FILE.cpp — OpenMP C++17 kernels + the cpu:: launchers + C entry points for `stnc run`
//   generateCuda: FILE.cu  — CUDA kernels + the cuda:: launchers + C entry points for `stnc run`
//   generateMetadata: FILE.json — kernels, fields, params, halos, layout rules (for tools)
#pragma once
#include <string>

#include "codegen/Launcher.h"

namespace stnc::codegen {

std::string generateCpp(const dag::Module& m, const GenOptions& o);
std::string generateCuda(const dag::Module& m, const GenOptions& o);
std::string generateMetadata(const dag::Module& m, const GenOptions& o);

// Names of the C entry points `stnc run` loads from the compiled shared object:
//   int ENTRY(const long* n, void** fields, const double* params, long steps,
//             int nsrc, const long* srcAt, const double* srcWave, long reps,
//             double* ms /*[2]: median, min*/, char* err, unsigned long errlen)
// fields: host arrays in the kernel's layout, in field order; on return fields[f] holds role f.
// steps == 0: fill boundaries + one sweep; steps > 0: the step loop. reps > 0: also time reps
// sweeps on scratch copies first.
// Point sources (steps > 0 only): source q adds srcWave[q * steps + t] after step t's sweep to field
// srcAt[q * (1 + rank)] (index into the fields, by role) at the interior point srcAt[q * (1 + rank) + 1 ...].
std::string entryName(const dag::Kernel& k, const std::string& backend);

// Helpers shared by the two backends.
std::string usedNamesVoidCast(const dag::Context& ctx, const dag::Kernel& k, bool fillOnly, int part = -2);
void emitFillBody(CPrinter& p, const dag::Context& ctx, const dag::Kernel& k, const std::string& fillCall,
                  const std::string& suffix);
// The C entry point of kernel k (codegen/EntryPoints.cpp), after the backend's kernels and launchers.
void emitCpuEntry(CPrinter& p, const dag::Kernel& k);
void emitCudaEntry(CPrinter& p, const dag::Kernel& k);

}  // namespace stnc::codegen
