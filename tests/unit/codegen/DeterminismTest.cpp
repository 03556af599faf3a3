// Generated FILE.h / FILE.cpp / FILE.cu / FILE.json are byte-identical across compilations.
#include <doctest/doctest.h>

#include "unit/codegen/CodegenTestUtil.h"

using namespace stnc;

namespace {

// The contract's example programs, in one file (imports the stdlib).
const char* kProgram = R"(
import "fd.stn";
const nu = 0.1;
const c8 = [-205.0/72.0, 8.0/5.0, -1.0/5.0, 8.0/315.0, -1.0/560.0];
const a8 = [0.0, 0.8, -0.2, 4.0/105.0, -1.0/280.0];
def dxa(f) = sum(m in 1..4) a8[m] * (f[i+m,j,k] - f[i-m,j,k]);
offsets lap7 = { [0,0,0]: -6.0, [-1,0,0], [1,0,0], [0,-1,0], [0,1,0], [0,0,-1], [0,0,1] };
offsets b1 = box(1);
stencil heat3d(i, j, k) : f64 {
  in u; out unew; param dt;
  unew = u + nu * dt * (u[i-1,j,k] + u[i+1,j,k] + u[i,j-1,k] + u[i,j+1,k] + u[i,j,k-1] + u[i,j,k+1] - 6.0 * u);
}
stencil jacobi2d(i, j) : f32 {
  in a; out b; param w;
  boundary a = periodic;
  b = (1 - w) * a + w * 0.25 * (a[i-1,j] + a[i+1,j] + a[i,j-1] + a[i,j+1]);
}
stencil lap8c(i, j, k) {
  in u; out l;
  l = 3.0 * c8[0] * u + sum(m in 1..4) c8[m] * (u[i+m,j,k] + u[i-m,j,k] + u[i,j+m,k] + u[i,j-m,k]
                                              + u[i,j,k+m] + u[i,j,k-m]);
}
stencil flux(i, j, k) { in rho, u, p; out f; param dxinv; f = -dxinv * dxa(rho * u * u + p) + lap2(p); }
stencil twoout(i, j, k) : f64 {
  in a, b; out s, m;
  let g = a[i+1,j,k] - a[i-1,j,k];
  s = g * b;
  m = select(abs(g) > 0.5, max(a, b[i,j,k+1]), min(a, b[i,j,k-1]));
}
stencil sA(i, j, k) { in u; out la; la = apply(lap7, u); }
stencil sB(i, j, k) { in u, v; out bs; boundary v(k) = value(nu * 2); bs = sum(o in b1) u[o] * v[o]; }
group both = sA, sB;
stencil wave(i, j, k) : f32 {
  in u, roc2; inout v;
  swap u, v;
  v = 2.0 * u - v + roc2 * (sum(m in 1..4) (u[i+m,j,k] + u[i-m,j,k] + u[i,j+m,k]
                                           + u[i,j-m,k] + u[i,j,k+m] + u[i,j,k-m]) - 24.0 * u);
}
)";

}  // namespace

TEST_CASE("two compilations of the same program generate byte-identical files") {
  auto first = test::compileText(kProgram);
  REQUIRE_MESSAGE(first->module, first->diagText());
  auto a = test::generateAll(*first->module);
  // A second, independent compilation (fresh source manager, context and diagnostics).
  auto second = test::compileText(kProgram);
  REQUIRE_MESSAGE(second->module, second->diagText());
  auto b = test::generateAll(*second->module);
  for (const char* ext : {".h", ".cpp", ".cu", ".json"}) {
    CAPTURE(ext);
    CHECK(a.at(ext).size() > 100);
    CHECK(a.at(ext) == b.at(ext));
  }
  // Generating twice from one module is also stable.
  CHECK(test::generateAll(*first->module) == a);
}

TEST_CASE("generated files do not contain the absolute source path") {
  auto c = test::compileText(kProgram);
  REQUIRE_MESSAGE(c->module, c->diagText());
  for (auto& [ext, text] : test::generateAll(*c->module)) {
    CAPTURE(ext);
    CHECK(text.find(STNC_SOURCE_DIR) == std::string::npos);
  }
}

TEST_CASE("every kernel of the file appears in the header, in declaration order") {
  auto c = test::compileText(kProgram);
  REQUIRE_MESSAGE(c->module, c->diagText());
  std::string h = test::generateAll(*c->module).at(".h");
  size_t at = 0;
  for (const char* k : {"heat3d", "jacobi2d", "lap8c", "flux", "twoout", "sA", "sB", "wave", "both"}) {
    size_t p = h.find(std::string("namespace stn::") + k + " {", at);
    CHECK_MESSAGE(p != std::string::npos, k);
    if (p != std::string::npos) at = p;
  }
}

TEST_CASE("two runs of the stnc executable write byte-identical files") {
  // Separate processes (different address-space layout), so no output may depend on pointers.
  if (!std::filesystem::exists(STNC_EXE_PATH)) {
    MESSAGE("stnc executable not built: skipped");
    return;
  }
  test::TempDir dir;
  dir.write("prog.stn", kProgram);
  std::string stdlib = std::string(STNC_SOURCE_DIR) + "/stdlib";
  for (const char* out : {"a", "b"}) {
    std::string cmd = "cd '" + dir.path.string() + "' && '" + STNC_EXE_PATH + "' prog.stn -o " + out +
                      " --target all --stdlib '" + stdlib + "' > " + out + ".log 2>&1";
    REQUIRE_MESSAGE(std::system(cmd.c_str()) == 0, dir.read(std::string(out) + ".log"));
  }
  for (const char* f : {"prog.h", "prog.cpp", "prog.cu", "prog.json"}) {
    CAPTURE(f);
    std::string a = dir.read(std::string("a/") + f), b = dir.read(std::string("b/") + f);
    CHECK(a.size() > 100);
    CHECK(a == b);
  }
}
