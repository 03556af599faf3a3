// PassManager: runs module passes in order through one wrapper that times each pass, records
// whether it changed the module, verifies the DAG (--verify-each) and prints it on request
// (--print-after=P, --print-after-all, --print-changed). It stops at the first pass that reports
// an error.
#pragma once
#include <functional>
#include <iosfwd>
#include <set>
#include <string>
#include <vector>

#include "dag/Kernel.h"
#include "support/Diagnostics.h"

namespace stnc::passes {

// A pass returns true when it changed the module.
using PassFn = std::function<bool(dag::Module&, DiagEngine&)>;

struct PassOptions {
  std::set<std::string> printAfter;
  bool printAfterAll = false;
  bool printChanged = false;
  bool verifyEach = false;
  bool timePasses = false;
};

class PassManager {
 public:
  void add(std::string name, PassFn fn) { passes_.push_back({std::move(name), std::move(fn)}); }
  // Returns false when a pass reported an error (or verification failed).
  bool run(dag::Module& m, DiagEngine& diags, const PassOptions& opts, std::ostream& log) const;
  std::vector<std::string> names() const;

 private:
  struct Entry {
    std::string name;
    PassFn fn;
  };
  std::vector<Entry> passes_;
};

}  // namespace stnc::passes
