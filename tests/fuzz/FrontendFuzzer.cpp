// libFuzzer target over stnc's front and middle end: the input bytes are a .stn file that goes
// through passes::compileModule (parse + imports + sema + lowering + passes), then the
// diagnostics are rendered. Invariants checked on every input (a violation aborts, so libFuzzer
// reports it like a crash):
//   - the compiler never crashes, hangs, leaks or trips a sanitizer;
//   - an input that fails to compile has at least one error, and every error has a source
//     location (file:line:col) inside the input (imports of the stdlib aside);
//   - an input that compiles has no error and its DAG passes the verifier.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

#include "dag/Verifier.h"
#include "passes/Pipeline.h"

namespace {

[[noreturn]] void fail(const std::string& what, const stnc::DiagEngine& diags) {
  std::ostringstream os;
  diags.print(os);
  std::fprintf(stderr, "stnc fuzz invariant violated: %s\n%s\n", what.c_str(), os.str().c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 64 * 1024) return 0;
  std::string text(reinterpret_cast<const char*>(data), size);
  stnc::SourceManager sm;
  stnc::DiagEngine diags(sm);
  stnc::LoadOptions lo;
  lo.stdlibDir = STNC_FUZZ_STDLIB;  // `import "fd.stn";` finds the real stdlib
  std::ostringstream log;
  // A path in a folder that does not exist: relative imports resolve to nothing but the stdlib.
  stnc::passes::CompileResult r =
      stnc::passes::compileModule("/nonexistent-stnc-fuzz/input.stn", &text, lo, {}, sm, diags, log);
  std::ostringstream rendered;
  diags.print(rendered);
  if (!r.module) {
    if (!diags.hasErrors()) fail("compilation failed without an error", diags);
  } else {
    if (diags.hasErrors()) fail("a module was produced despite errors", diags);
    std::string v = stnc::dag::verifyModule(*r.module);
    if (!v.empty()) fail("DAG verifier: " + v, diags);
  }
  for (const stnc::Diagnostic& d : diags.all()) {
    if (d.severity != stnc::Severity::Error) continue;
    if (!d.loc.valid()) fail("an error without a location: " + d.message, diags);
    if (d.loc.line == 0 || d.loc.col == 0) fail("an error at line or column 0: " + d.message, diags);
  }
  return 0;
}
