// Helpers for unit tests: compile .stn text in memory through the real pipeline.
#pragma once
#include <sstream>
#include <string>

#include "passes/Pipeline.h"

namespace stnc::test {

struct Compiled {
  SourceManager sm;
  DiagEngine diags{sm};
  std::optional<dag::Module> module;
  std::string diagText() const {
    std::ostringstream os;
    diags.print(os);
    return os.str();
  }
};

// Runs load -> sema -> lower -> passes on `text` (named "test.stn"); stdlib = the repo's stdlib/.
inline std::unique_ptr<Compiled> compileText(const std::string& text, passes::PassOptions opts = {},
                                             const passes::ScheduleOverride& schedule = {}) {
  auto c = std::make_unique<Compiled>();
  LoadOptions lo;
  lo.stdlibDir = std::string(STNC_SOURCE_DIR) + "/stdlib";
  std::ostringstream log;
  passes::CompileResult r = passes::compileModule("test.stn", &text, lo, opts, c->sm, c->diags, log, schedule);
  c->module = std::move(r.module);
  return c;
}

// The acoustic sample's shape (samples/acoustic): a radius-4 inner region and a five-field PML shell
// (the default equations), f32 — per-part schedules, rings and reports are pinned on it.
inline const char* const kAcousticShell =
    "import \"fd.stn\";\n"
    "stencil s(i, j, k) : f32 { in u, roc2, eta; inout v, phi; swap u, v;\n"
    "  region inner = [6:-6, 6:-6, 6:-6];\n"
    "  v @ inner = 2.0 * u - v + roc2 * lap8(u);\n"
    "  v = ((2.0 + 2.0 * eta) * u - v + roc2 * (lap8(u) + phi)) / (1.0 + 2.0 * eta);\n"
    "  phi = (phi - (dx2(eta) * dx2(u) + dy2(eta) * dy2(u) + dz2(eta) * dz2(u))) / (1.0 + eta); }";

// Kernels without the region-pair shape (passes/RegionPair: one region plus default equations, rank 3),
// each with a word of the reason both region kernels (fused, edges) give.
struct NotRegionPair {
  const char* src;
  const char* why;
};
inline const NotRegionPair kNotRegionPair[] = {
    {"stencil s(i, j, k) : f64 { in u; out v; v = u[i-1,j,k] + u[i+1,j,k]; }", "no regions"},
    {"stencil s(i, j) : f64 { in u; out v; region r = [1:-1, 1:-1]; v @ r = u[i-1,j] + u[i+1,j]; v = u; }", "rank 2"},
    {"stencil s(i, j, k) : f64 { in u; out v; region a = [1:-1, 1:-1, 1:-1]; region b = [2:-2, 2:-2, 2:-2];\n"
     "  v @ a = u[i-1,j,k] + u[i+1,j,k]; v @ b = u; v = u; }",
     "2 regions"},
    {"stencil s(i, j, k) : f64 { in u; out v; region r = [1:-1, 1:-1, 1:-1]; v @ r = u[i-1,j,k] + u[i+1,j,k]; }",
     "both have equations"},
};

}  // namespace stnc::test
