// passes/TensorSums + codegen/cuda/TensorSumKernel: which sums the tensor schedule takes (one fma chain in
// ascending (plane, row, column) order within offsets -2..2, 64 terms or more, no mirror symmetry that
// factor-sums would share; --fp-contract=on (unless --tensor-cores=off)), and the CUDA form it generates. The GPU
// checks the results bit for bit against the CPU (scripts/gpu-check.sh --stnc-flags=--fp-contract=on with
// tests/gpu/tensorbox.stn and bench/workloads/box125_rt.stn; the generated .cu carries the schedule).
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "passes/TensorSums.h"
#include "unit/DagText.h"
#include "unit/TestUtil.h"
#include "unit/codegen/CodegenTestUtil.h"

using namespace stnc;

namespace {

std::string fileText(const std::string& rel) {
  std::ifstream in(std::string(STNC_SOURCE_DIR) + "/" + rel);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

passes::ScheduleOverride tensorOn(bool fma = true, bool factor = false) {
  passes::ScheduleOverride o;
  o.contractFma = fma;
  o.factorSums = factor;
  o.tensorCores = "auto";
  return o;
}

}  // namespace

TEST_CASE("box125_rt takes the tensor schedule with --fp-contract=on (unless --tensor-cores=off), even with --factor-sums=on") {
  auto c = test::compileText(fileText("bench/workloads/box125_rt.stn"), {}, tensorOn(true, true));
  REQUIRE_MESSAGE(c->module, c->diagText());
  const dag::Kernel& k = c->module->kernels.at(0);
  REQUIRE(k.tensorSum);
  CHECK(k.tensorSum->terms.size() == 125);
  CHECK(k.tensorSum->terms.front().param == "c_m2_m2_m2");
  CHECK(k.tensorSum->terms.back().d0 == 2);
  CHECK_FALSE(k.sumFactor);  // factor-sums leaves it: its chain is what the tensor cores compute
  CHECK(k.schedule.strategy == dag::Strategy::Tensor);
  CHECK(k.schedule.blockX == 32);
  CHECK(k.schedule.blockY == 4);
  const std::string cu = test::generateAll(*c->module).at(".cu");
  CHECK(cu.find("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64") != std::string::npos);
  CHECK(cu.find("sweepPart_tc(const stnc_rt::Layout L_, const stnc_rt::Box B_, const long chunk_, ") != std::string::npos);
  CHECK(cu.find("cS_[0] = c_m2_m2_m2; cS_[1] = c_m2_m2_m1;") != std::string::npos);
  // Interior tile columns: unchecked 16-byte stores; the box's edge columns: the checked instantiation.
  CHECK(cu.find("sweepPart_tc<false><<<g_, block_, 18432, stream_>>>(L_, B_, chunk_, in0_, ") != std::string::npos);
  CHECK(cu.find("sweepPart_tc<true><<<g_, block_, 18432, stream_>>>(L_, B_, chunk_, in1_, ") != std::string::npos);
  CHECK(cu.find("return naive_fallback::launchPart(") != std::string::npos);  // unaligned layouts
  // Without the option, or without fma contraction (then the sum is not one fma chain): sumfactor / stream.
  passes::ScheduleOverride off = tensorOn(true, true);
  off.tensorCores = "off";
  auto c2 = test::compileText(fileText("bench/workloads/box125_rt.stn"), {}, off);
  REQUIRE(c2->module);
  CHECK_FALSE(c2->module->kernels.at(0).tensorSum);
  CHECK(c2->module->kernels.at(0).schedule.strategy == dag::Strategy::SumFactor);
  auto c3 = test::compileText(fileText("bench/workloads/box125_rt.stn"), {}, tensorOn(false));
  REQUIRE(c3->module);
  CHECK_FALSE(c3->module->kernels.at(0).tensorSum);
}

TEST_CASE("the tensor plan: terms in chain order with zero taps where the box has none, and why other sums do not qualify") {
  auto c = test::compileText(fileText("tests/gpu/tensorbox.stn"), {}, tensorOn());
  REQUIRE_MESSAGE(c->module, c->diagText());
  const dag::Kernel& partial = test::kernelOf(*c, "partial");
  REQUIRE(partial.tensorSum);
  CHECK(partial.tensorSum->terms.size() == 100);  // column +2 missing: zero entries of A
  CHECK(partial.tensorSum->terms[1].a == -1);
  CHECK(partial.tensorSum->terms[1].coef == doctest::Approx(0.779));
  CHECK(test::kernelOf(*c, "lopsided4").tensorSum);  // planes -2..1: the rows of plane offset 2 are zero
  const std::string cu = test::generateAll(*c->module).at(".cu");
  CHECK(cu.find("cS_[0] = 0.778; cS_[1] = 0.779; cS_[2] = 0.78; cS_[3] = 0.781; cS_[4] = 0.0;") != std::string::npos);
  std::string why;
  // A sum(...) expression is a tree of partial sums: not one chain.
  auto tree = test::compileText("stencil s(i, j, k) : f64 { in u; out v;\n"
                                "  v = sum(a in -2..2) (sum(b in -2..2) (sum(c in -2..2) (1.0 + 0.1 * a + 0.01 * b + 0.001 * c) * u[i+a, j+b, k+c])); }",
                                {}, tensorOn());
  REQUIRE(tree->module);
  CHECK_FALSE(passes::analyzeTensorSum(tree->module->ctx, tree->module->kernels.at(0), &why));
  CHECK(why.find("not one fma chain") != std::string::npos);
  // Few terms: memory-bound, the stream schedule.
  auto star = test::compileText("stencil s(i, j, k) : f64 { in u; out v;\n"
                                "  v = 0.4 * u + 0.1 * u[i-1,j,k] + 0.1 * u[i+1,j,k] + 0.1 * u[i,j-1,k] + 0.1 * u[i,j+1,k]; }",
                                {}, tensorOn());
  REQUIRE(star->module);
  CHECK_FALSE(passes::analyzeTensorSum(star->module->ctx, star->module->kernels.at(0), &why));
  CHECK(why.find("not FP64-bound") != std::string::npos);
  // Symmetric coefficients: factor-sums shares their arithmetic, the tensor pass leaves them.
  auto sym = test::compileText(fileText("bench/workloads/box125_c.stn"), {}, tensorOn(true, true));
  REQUIRE(sym->module);
  CHECK_FALSE(sym->module->kernels.at(0).tensorSum);
  CHECK(sym->module->kernels.at(0).schedule.strategy == dag::Strategy::SumFactor);
}

TEST_CASE("terms out of (plane, row, column) order: the tensor cores would round them differently") {
  std::string text = fileText("tests/gpu/tensorbox.stn");
  // Swap the first two terms of `partial`.
  const size_t a = text.find("0.778 * u[i-2, j-2, k-2]"), b = text.find("0.779 * u[i-2, j-2, k-1]");
  REQUIRE(a != std::string::npos);
  REQUIRE(b != std::string::npos);
  text.replace(b, 24, "0.778 * u[i-2, j-2, k-2]");
  text.replace(a, 24, "0.779 * u[i-2, j-2, k-1]");
  auto c = test::compileText(text, {}, tensorOn());
  REQUIRE_MESSAGE(c->module, c->diagText());
  std::string why;
  CHECK_FALSE(passes::analyzeTensorSum(c->module->ctx, test::kernelOf(*c, "partial"), &why));
  CHECK(why.find("not in ascending") != std::string::npos);
  CHECK(test::kernelOf(*c, "partial").schedule.strategy != dag::Strategy::Tensor);
}

TEST_CASE("with --factor-sums=on, an unpaired box written with sum(...) is reassociated into the chain and takes the tensor schedule") {
  // tests/gpu/symbox.stn's `runtime`: 100 terms (k in -1..2), coefficients constant * param, a tree of partial sums as written.
  const char* text =
      "stencil runtime(i, j, k) : f64 { in u; out v; param w;\n"
      "  v = sum(a in -2..2) (sum(b in -2..2) (sum(c in -1..2) (1.0 + 0.1 * a + 0.01 * b + 0.001 * c) * w * u[i+a, j+b, k+c])); }";
  passes::ScheduleOverride o = tensorOn(true, true);
  auto c = test::compileText(text, {}, o);
  REQUIRE_MESSAGE(c->module, c->diagText());
  const dag::Kernel& k = c->module->kernels.at(0);
  REQUIRE(k.tensorSum);
  CHECK_FALSE(k.sumFactor);
  CHECK(k.tensorSum->terms.size() == 100);
  CHECK(k.tensorSum->terms.front().param == "w");
  CHECK(k.tensorSum->terms.front().coef == doctest::Approx(1.0 - 0.2 - 0.02 - 0.001));
  CHECK(k.schedule.strategy == dag::Strategy::Tensor);
  const std::string cu = test::generateAll(*c->module).at(".cu");
  CHECK(cu.find("cS_[0] = 0.0; cS_[1] = (") != std::string::npos);  // (a, b, c) = (-2, -2, -2): no term
  // Without the tensor schedule the same flags factor it (5 plane classes, the sumfactor schedule).
  o.tensorCores = "off";
  auto f = test::compileText(text, {}, o);
  REQUIRE(f->module);
  CHECK(f->module->kernels.at(0).sumFactor);
  CHECK_FALSE(f->module->kernels.at(0).tensorSum);
  // Without fma no chain: factored.
  auto nf = test::compileText(text, {}, tensorOn(false, true));
  REQUIRE(nf->module);
  CHECK(nf->module->kernels.at(0).sumFactor);
}
