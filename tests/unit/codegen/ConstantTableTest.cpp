// codegen/cuda/ConstantTable: f64 constants that are not FP64 immediates (low 32 bits set) go to one
// __constant__ array per stencil and the CUDA kernels read them from there; immediates, booleans and f32
// kernels keep inline literals; the CPU backend is untouched. The GPU checks the bits (gpu-check).
#include <doctest/doctest.h>

#include "unit/DagText.h"
#include "unit/codegen/CodegenTestUtil.h"
#include "codegen/cuda/ConstantTable.h"

using namespace stnc;

TEST_CASE("the constant table holds the f64 constants that need registers, ascending, each once") {
  auto c = test::compileText(
      "stencil s(i, j, k) : f64 { in u; out v;\n"
      "  v = 0.8 * (u[i+1,j,k] - u[i-1,j,k]) - 0.2 * (u[i+2,j,k] - u[i-2,j,k]) + 0.8 * u[i,j+1,k] + 0.5 * u + 2.0 * u[i,j,k+1]; }");
  REQUIRE_MESSAGE(c->module, c->diagText());
  const dag::Kernel& k = test::kernelOf(*c, "s");
  const std::vector<double> t = codegen::constantTable(c->module->ctx, k);
  REQUIRE(t.size() == 2);  // 0.5 and 2.0 are immediates (their low 32 bits are zero)
  CHECK(t[0] == 0.2);      // -0.2 * x is folded to a subtraction or kept as 0.2: either way one entry
  CHECK(t[1] == 0.8);
  const codegen::LiteralFn ref = codegen::constantRef(c->module->ctx, k);
  CHECK(ref(0.8) == "kConst_[1]");
  CHECK(ref(0.5) == codegen::literal(0.5, dag::ElemType::F64));
  CHECK(ref(0.3) == codegen::literal(0.3, dag::ElemType::F64));  // not the kernel's: the literal
  const auto out = test::generateAll(*c->module);
  const std::string& cu = out.at(".cu");
  CHECK(cu.find("__constant__ double kConst_[2] = {0.2, 0.8};") != std::string::npos);
  CHECK(cu.find("kConst_[1] * ") != std::string::npos);
  CHECK(out.at(".cpp").find("kConst_") == std::string::npos);
}

TEST_CASE("f32 kernels and kernels without such constants have no table") {
  auto f = test::compileText("stencil s(i, j, k) : f32 { in u; out v; v = 0.8 * u[i+1,j,k] + 0.8 * u[i-1,j,k]; }");
  REQUIRE_MESSAGE(f->module, f->diagText());
  CHECK(codegen::constantTable(f->module->ctx, test::kernelOf(*f, "s")).empty());
  CHECK(test::generateAll(*f->module).at(".cu").find("kConst_") == std::string::npos);
  auto h = test::compileText("stencil s(i, j, k) : f64 { in u; out v; v = 0.25 * (u[i+1,j,k] + u[i-1,j,k]) + u; }");
  REQUIRE_MESSAGE(h->module, h->diagText());
  CHECK(codegen::constantTable(h->module->ctx, test::kernelOf(*h, "s")).empty());
}
