// support/LargeStack: compileModule runs on its own large stack, so the nesting limits
// (kMaxParseDepth, kMaxEvalDepth) and not the caller's stack bound the recursion. Regression: under
// AddressSanitizer (scripts/test.sh's build-asan) tests/diag/err_too_deep.stn and two fuzz
// regressions overflowed the 8 MiB main-thread stack before reaching the limit.
#include <doctest/doctest.h>
#include <pthread.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "unit/DagText.h"
#include "support/LargeStack.h"

using namespace stnc;

namespace {

std::string readFile(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

struct SmallStackRun {
  std::string text;
  std::vector<std::string> errors;
  bool compiled = true;
};

// Compiles on a thread whose own stack is only 64 KiB.
void compileOnSmallStack(SmallStackRun& run) {
  pthread_attr_t attr;
  REQUIRE(pthread_attr_init(&attr) == 0);
  REQUIRE(pthread_attr_setstacksize(&attr, 64 * 1024) == 0);
  pthread_t t;
  auto body = [](void* p) -> void* {
    auto* r = static_cast<SmallStackRun*>(p);
    auto c = test::compileText(r->text);
    r->compiled = c->module.has_value();
    r->errors = test::diagsOf(*c, Severity::Error);
    return nullptr;
  };
  REQUIRE(pthread_create(&t, &attr, body, &run) == 0);
  pthread_attr_destroy(&attr);
  pthread_join(t, nullptr);
}

}  // namespace

TEST_CASE("expressions nested up to the limit compile on a caller with a small stack") {
  SmallStackRun run;
  run.text = readFile(std::filesystem::path(STNC_TEST_DATA) / "diag" / "err_too_deep.stn");
  REQUIRE(run.text.size() > 1000);
  compileOnSmallStack(run);
  CHECK_FALSE(run.compiled);
  REQUIRE(run.errors.size() == 1);
  CHECK(run.errors[0].find("expression nested too deeply (more than 2000 levels)") != std::string::npos);
}

TEST_CASE("a deep but allowed expression compiles on a caller with a small stack") {
  SmallStackRun run;
  std::string e = "u";
  for (int i = 0; i < 130; ++i) e = "(" + e + " + u[i+1])";  // the parser allows about 140
  run.text = "stencil s(i) { in u; out w; w = " + e + "; }\n";
  compileOnSmallStack(run);
  CHECK(run.compiled);
  CHECK(run.errors.empty());
}

TEST_CASE("runOnLargeStack runs the function to completion and passes exceptions on") {
  int x = 0;
  runOnLargeStack([&] { x = 42; });
  CHECK(x == 42);
  CHECK_THROWS_AS(runOnLargeStack([] { throw std::runtime_error("boom"); }), std::runtime_error);
}
