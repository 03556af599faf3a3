// The generated launcher header compiles on its own with the system C++ compiler and strict
// warnings, and the generated CPU source compiles against it.
#include <doctest/doctest.h>

#include "unit/codegen/CodegenTestUtil.h"

using namespace stnc;

namespace {

const char* kStrict = "-std=c++17 -Wall -Wextra -Werror -fsyntax-only";

const char* kProgram = R"(
const c = [0.5, 0.25];
stencil heat(i, j, k) { in u; out unew; param dt; boundary u = periodic;
  unew = u + dt * (u[i-1,j,k] + u[i+1,j,k] - 2.0 * u); }
stencil jac(i, j) : f32 { in a; out b; param w; boundary a(j) = value(w * 2); boundary a(i) = mirror;
  b = (1 - w) * a + w * c[1] * (a[i-1,j] + a[i+1,j] + a[i,j-1] + a[i,j+1]); }
stencil line(x) { in p, q; out r; inout s; swap p, s; r = select(p > 0 && q < 1, p[x+2], -q); s = s * 0.5; }
stencil sA(i, j, k) { in u; out la; la = u[i+1,j,k] - u; }
stencil sB(i, j, k) { in u, v; out bs; bs = u[i+1,j,k] * v; }
group both = sA, sB;
)";

// Writes test.h (+ test.cpp) of `program` and a translation unit that includes only the header.
struct Generated {
  test::TempDir dir;
  explicit Generated(const std::string& program) {
    auto c = test::compileText(program);
    REQUIRE_MESSAGE(c->module, c->diagText());
    auto files = test::generateAll(*c->module);
    dir.write("test.h", files.at(".h"));
    dir.write("test.cpp", files.at(".cpp"));
    dir.write("only_header.cpp", "#include \"test.h\"\nint main() { return 0; }\n");
  }
  std::string log() const { return dir.read("cc.log"); }
};

bool haveCompiler() { return std::system("g++ --version > /dev/null 2>&1") == 0; }

}  // namespace

TEST_CASE("the generated header compiles on its own with -Wall -Wextra -Werror") {
  if (!haveCompiler()) {
    MESSAGE("g++ not found: skipped");
    return;
  }
  Generated g(kProgram);
  CHECK_MESSAGE(test::runCompiler(g.dir, kStrict, "only_header.cpp") == 0, g.log());
}

TEST_CASE("the generated header also compiles with -pedantic as C++20") {
  if (!haveCompiler()) return;
  Generated g(kProgram);
  CHECK_MESSAGE(test::runCompiler(g.dir, "-std=c++20 -pedantic -Wall -Wextra -Werror -fsyntax-only", "only_header.cpp") == 0,
                g.log());
}

TEST_CASE("the CUDA launcher declarations of the header compile with STNC_WITH_CUDA") {
  if (!haveCompiler()) return;
  const char* cudaInclude = "/usr/local/cuda/include";
  if (!std::filesystem::exists(std::string(cudaInclude) + "/cuda_runtime.h")) {
    MESSAGE("cuda_runtime.h not found: skipped");
    return;
  }
  Generated g(kProgram);
  CHECK_MESSAGE(test::runCompiler(g.dir, std::string(kStrict) + " -DSTNC_WITH_CUDA -isystem " + cudaInclude,
                                  "only_header.cpp") == 0,
                g.log());
}

TEST_CASE("the generated CPU source compiles against the header") {
  if (!haveCompiler()) return;
  Generated g(kProgram);
  CHECK_MESSAGE(test::runCompiler(g.dir, std::string(kStrict) + " -fopenmp", "test.cpp") == 0, g.log());
}

TEST_CASE("headers generated from two files can be included together") {
  if (!haveCompiler()) return;
  test::TempDir dir;
  for (const char* name : {"one", "two"}) {
    std::string prog = std::string("stencil k_") + name + "(i) { in u; out o; o = u[i+1]; }";
    auto c = test::compileText(prog);
    REQUIRE_MESSAGE(c->module, c->diagText());
    dir.write(std::string(name) + ".h", test::generateAll(*c->module).at(".h"));
  }
  dir.write("both.cpp", "#include \"one.h\"\n#include \"two.h\"\nint main() { return stn::k_one::kRank + stn::k_two::kRank; }\n");
  CHECK_MESSAGE(test::runCompiler(dir, kStrict, "both.cpp") == 0, dir.read("cc.log"));
}

TEST_CASE("C++ keywords and names ending in _ are usable as stencil names") {
  if (!haveCompiler()) return;
  Generated g(
      "stencil for(i) { in new; out class, x_; param int; boundary new = clamp;\n"
      "  class = new[i+1] * int; x_ = new; }\n");
  CHECK_MESSAGE(test::runCompiler(g.dir, kStrict, "only_header.cpp") == 0, g.log());
  CHECK_MESSAGE(test::runCompiler(g.dir, std::string(kStrict) + " -fopenmp", "test.cpp") == 0, g.log());
}
