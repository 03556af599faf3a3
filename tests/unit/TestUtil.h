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
inline std::unique_ptr<Compiled> compileText(const std::string& text, passes::PassOptions opts = {}) {
  auto c = std::make_unique<Compiled>();
  LoadOptions lo;
  lo.stdlibDir = std::string(STNC_SOURCE_DIR) + "/stdlib";
  std::ostringstream log;
  passes::CompileResult r = passes::compileModule("test.stn", &text, lo, opts, c->sm, c->diags, log);
  c->module = std::move(r.module);
  return c;
}

}  // namespace stnc::test
