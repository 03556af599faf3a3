#include "passes/PassManager.h"

#include <chrono>
#include <cstdio>
#include <ostream>

#include "dag/Printer.h"
#include "dag/Verifier.h"

namespace stnc::passes {

std::vector<std::string> PassManager::names() const {
  std::vector<std::string> out;
  for (const Entry& e : passes_) out.push_back(e.name);
  return out;
}

bool PassManager::run(dag::Module& m, DiagEngine& diags, const PassOptions& opts, std::ostream& log) const {
  for (const Entry& e : passes_) {
    int errorsBefore = diags.errorCount();
    auto t0 = std::chrono::steady_clock::now();
    bool changed = e.fn(m, diags);
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (opts.timePasses) {
      char buf[128];
      std::snprintf(buf, sizeof buf, "pass %-18s %8.3f ms%s\n", e.name.c_str(), ms, changed ? "  (changed)" : "");
      log << buf;
    }
    if (diags.errorCount() > errorsBefore) return false;
    if (opts.verifyEach) {
      std::string bad = dag::verifyModule(m);
      if (!bad.empty()) {
        log << "stnc: internal error: DAG invalid after pass '" << e.name << "': " << bad << "\n";
        return false;
      }
    }
    if (opts.printAfterAll || opts.printAfter.count(e.name) || (opts.printChanged && changed)) {
      log << "// ----- after " << e.name << (changed ? " (changed)" : "") << " -----\n";
      dag::printText(log, m);
    }
  }
  return true;
}

}  // namespace stnc::passes
