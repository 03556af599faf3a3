// codegen/CPrinter cIdent(): user names become C++ identifiers that are valid, distinct, and never
// one of the identifiers the generated code itself declares.
#include <doctest/doctest.h>

#include "unit/codegen/CodegenTestUtil.h"
#include "codegen/CPrinter.h"

#include <cctype>

using namespace stnc;
using codegen::cIdent;

namespace {

bool compiles(const std::string& program, std::string& log) {
  auto c = test::compileText(program);
  REQUIRE_MESSAGE(c->module, c->diagText());
  auto files = test::generateAll(*c->module);
  test::TempDir dir;
  dir.write("test.h", files.at(".h"));
  dir.write("test.cpp", files.at(".cpp"));
  dir.write("only_header.cpp", "#include \"test.h\"\nint main() { return 0; }\n");
  int h = test::runCompiler(dir, "-std=c++17 -Wall -Wextra -Werror -fsyntax-only", "only_header.cpp");
  log = dir.read("cc.log");
  int s = test::runCompiler(dir, "-std=c++17 -fopenmp -Wall -Wextra -Werror -fsyntax-only", "test.cpp");
  log += dir.read("cc.log");
  return h == 0 && s == 0;
}

}  // namespace

bool isIdentifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

TEST_CASE("ordinary names are kept as they are") {
  for (const char* n : {"u", "rho_u", "unew", "dxinv", "a8", "T"}) CHECK(cIdent(n) == n);
}

TEST_CASE("C++ keywords are renamed to valid identifiers that are not keywords") {
  for (const char* n : {"for", "class", "double", "new", "int", "return", "namespace", "template"}) {
    CAPTURE(n);
    std::string c = cIdent(n);
    CHECK(c != n);
    CHECK(isIdentifier(c));
  }
}

TEST_CASE("user names ending in an underscore become NAME_u_ (generated internals never contain __)") {
  CHECK(cIdent("x_") == "x__u_");
  CHECK(cIdent("t7_") == "t7__u_");
}

// Regression: cIdent was not injective ("a_" became "a_u", the spelling of the user name "a_u").
TEST_CASE("distinct user names stay distinct") {
  CHECK(cIdent("a_") != cIdent("a_u"));
  std::string log;
  CHECK_MESSAGE(compiles("stencil s(i) { in a_, a_u; out o; o = a_[i+1] + a_u; }", log), log);
}

// Names of the generated API (check, kFieldCount, sweepKernel, ...) and of launcher parameters
// (L_, steps_, stream_) must not be shadowed or duplicated by user fields and params.
TEST_CASE("names that collide with generated identifiers still generate compiling code") {
  for (const char* name : {"L", "steps", "check", "kFieldCount", "sweepKernel", "fillKernel"}) {
    CAPTURE(name);
    std::string n = name, log;
    CHECK_MESSAGE(compiles("stencil s(i) { in " + n + "; out o; boundary " + n + " = clamp; o = " + n + "[i+1]; }", log),
                  log);
    CHECK_MESSAGE(compiles("stencil s(i) { in u; out o; param " + n + "; boundary u = clamp; o = u[i+1] * " + n + "; }",
                           log),
                  log);
  }
  for (const char* n : {"L_", "steps_", "stream_", "p_", "s0_", "s1_"}) {
    CAPTURE(n);
    std::string user(n);
    user.pop_back();  // the user name that would map onto it: L, steps, stream, p, s0, s1
    CHECK(cIdent(user) != n);
  }
  // `stream` against the CUDA launchers' `cudaStream_t stream_`, where the CUDA headers exist.
  if (std::filesystem::exists("/usr/local/cuda/include/cuda_runtime.h")) {
    auto c = test::compileText("stencil s(i) { in u; out o; param stream; boundary u = clamp; o = u[i+1] * stream; }");
    REQUIRE_MESSAGE(c->module, c->diagText());
    test::TempDir dir;
    dir.write("test.h", test::generateAll(*c->module).at(".h"));
    dir.write("t.cpp", "#include \"test.h\"\nint main() { return 0; }\n");
    CHECK_MESSAGE(test::runCompiler(dir, "-std=c++17 -Wall -Wextra -Werror -fsyntax-only -DSTNC_WITH_CUDA "
                                         "-isystem /usr/local/cuda/include", "t.cpp") == 0,
                  dir.read("cc.log"));
  }
}

// Regression (fixed): for a kernel with params but no boundary rule, the CPU backend emits
//   void fillKernel(const stnc_rt::Layout& L_, real w) { (void)w; }
// (CppBackend.cpp only writes "(void)L_;" when fill_boundaries has no other argument), so the
// generated FILE.cpp warns "unused parameter 'L_'" and fails to build with -Werror.
TEST_CASE("generated CPU code is warning-free for a kernel with params and no boundary rule") {
  std::string log;
  CHECK_MESSAGE(compiles("stencil s(i) { in u; out o; param w; o = u[i+1] * w; }", log), log);
}
