// passes/FactorSums: which weighted sums are factored, the plan, and the rewritten DAG. The rewritten
// output is checked numerically against the sum as written (a small evaluator of the DAG on random
// data: rounding only), and bit for bit against the plane-streaming evaluation the CUDA sumfactor
// kernel performs (X and Y once per point, accumulators filled plane by plane): the argument that
// makes the CPU and GPU results identical.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <sstream>

#include "passes/FactorSums.h"
#include "unit/DagText.h"
#include "unit/TestUtil.h"
#include "unit/codegen/CodegenTestUtil.h"

using namespace stnc;

namespace {

passes::ScheduleOverride factorOn(bool fma = false) {
  passes::ScheduleOverride o;
  o.factorSums = true;
  o.contractFma = fma;
  o.tensorCores = "off";  // with fma, box125_rt would take the tensor schedule (TensorSumsTest); these tests factor
  return o;
}

std::string box125Text() {
  std::ifstream in(std::string(STNC_SOURCE_DIR) + "/bench/workloads/box125_c.stn");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A 4-plane box, radius 2 in j and k: coefficients symmetric in j and k, not in i.
const char* const kLopsided =
    "stencil b(i, j, k) : f64 { in u; out v;\n"
    "  v = sum(a in -1..2) (sum(b in -2..2) (sum(c in -2..2) (1.0 + 0.25 * a) / (1.0 + b * b + 2.0 * c * c) * u[i+a, j+b, k+c])); }";

// A random field on [-4, 4]^3 around the point evaluated.
struct Field {
  std::map<dag::Offset, double> v;
  explicit Field(unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> d(-1.0, 1.0);
    for (int a = -4; a <= 4; ++a)
      for (int b = -4; b <= 4; ++b)
        for (int c = -4; c <= 4; ++c) v[dag::Offset{{a, b, c}}] = d(rng);
  }
  double at(int a, int b, int c) const { return v.at(dag::Offset{{a, b, c}}); }
};

// The value every param takes in these evaluations.
constexpr double kParamValue = 0.7;

// Evaluates node `id` at the origin, one rounding per node (std::fma for Fma), like the backends.
double evalNode(const dag::Context& ctx, dag::NodeId id, const Field& f) {
  std::map<dag::NodeId, double> memo;
  std::function<double(dag::NodeId)> ev = [&](dag::NodeId n) -> double {
    auto it = memo.find(n);
    if (it != memo.end()) return it->second;
    const dag::Node& x = ctx.node(n);
    double r = 0;
    if (x.kind == dag::NodeKind::Const) r = x.value;
    else if (x.kind == dag::NodeKind::Param) r = kParamValue;
    else if (x.kind == dag::NodeKind::Access) r = f.at(x.offset.d[0], x.offset.d[1], x.offset.d[2]);
    else if (x.kind == dag::NodeKind::Apply) {
      const double a = ev(x.operands[0]);
      const double b = x.operandCount() > 1 ? ev(x.operands[1]) : 0.0;
      switch (x.op) {
        case dag::Op::Add: r = a + b; break;
        case dag::Op::Sub: r = a - b; break;
        case dag::Op::Mul: r = a * b; break;
        case dag::Op::Div: r = a / b; break;
        case dag::Op::Neg: r = -a; break;
        case dag::Op::Fma: r = std::fma(a, b, ev(x.operands[2])); break;
        default: FAIL("unexpected op in a weighted sum");
      }
    } else {
      FAIL("unexpected node kind in a weighted sum");
    }
    return memo[n] = r;
  };
  return ev(id);
}

// The CUDA kernel's order: planes arrive in ascending d0; each plane's X, Y and S of its class (computed
// once) are added to the accumulator of every output they feed. Returns the output at the origin.
double streamEval(const dag::SumFactor& sf, const Field& f) {
  auto X = [&](int a, int d0, int d1) { return !sf.pair2 || a == 0 ? f.at(d0, d1, a) : f.at(d0, d1, -a) + f.at(d0, d1, a); };
  auto Y = [&](int a, int b, int d0) { return !sf.pair1 || b == 0 ? X(a, d0, b) : X(a, d0, -b) + X(a, d0, b); };
  auto coef = [&](const dag::SumFactorTerm& t) { return t.param.empty() ? t.coef : t.coef == 1.0 ? kParamValue : t.coef * kParamValue; };
  double acc = 0;
  bool firstPlane = true;
  for (int plane = sf.d0lo(); plane <= sf.d0hi(); ++plane) {
    const int k = sf.planeClass[plane - sf.d0lo()];
    if (k < 0) continue;
    double s = 0;
    bool first = true;
    for (const dag::SumFactorTerm& t : sf.classes[k]) {
      const double y = Y(t.a, t.b, plane);
      s = first ? coef(t) * y : sf.fma ? std::fma(coef(t), y, s) : s + coef(t) * y;
      first = false;
    }
    acc = firstPlane ? s : acc + s;
    firstPlane = false;
  }
  return acc;
}

// Compiles `text` with and without --factor-sums=on (FMA contraction as `fma`) and checks, on `seeds`
// random fields (params take kParamValue), that the factored output equals the sum as written up to
// rounding and the CUDA kernel's streaming order bit for bit.
void checkAgainstWritten(const std::string& text, bool fma, unsigned seeds) {
  passes::ScheduleOverride written;
  written.contractFma = fma;
  auto plain = test::compileText(text, {}, written);
  auto fac = test::compileText(text, {}, factorOn(fma));
  REQUIRE_MESSAGE(plain->module, plain->diagText());
  REQUIRE_MESSAGE(fac->module, fac->diagText());
  const dag::Kernel& kp = plain->module->kernels.at(0);
  const dag::Kernel& kf = fac->module->kernels.at(0);
  REQUIRE(kf.sumFactor);
  for (unsigned seed = 1; seed <= seeds; ++seed) {
    const Field f(seed);
    const double want = evalNode(plain->module->ctx, kp.outputs[0].value, f);
    const double got = evalNode(fac->module->ctx, kf.outputs[0].value, f);
    CHECK(std::fabs(got - want) <= 1e-13 * (1.0 + std::fabs(want)));
    CHECK(got == streamEval(*kf.sumFactor, f));
  }
}

}  // namespace

TEST_CASE("the 125-point box with symmetric coefficients is factored: 45 terms in 3 plane classes, 249 -> 63 operations per point") {
  auto c = test::compileText(box125Text(), {}, factorOn());
  REQUIRE_MESSAGE(c->module, c->diagText());
  const dag::Kernel& k = test::kernelOf(*c, "box125_c");
  REQUIRE(k.sumFactor);
  const dag::SumFactor& f = *k.sumFactor;
  CHECK(f.field == "u");
  CHECK(f.output == "v");
  CHECK(f.terms.size() == 45);  // 5 planes x (b, a) in {0, 1, 2}^2
  CHECK(f.d0lo() == -2);
  CHECK(f.d0hi() == 2);
  CHECK(f.r1() == 2);
  CHECK(f.r2() == 2);
  CHECK(f.naiveOps == 249);
  CHECK(f.sharedOps == 2 + 6 + 3 * 17 + 4);
  // Planes -2 and 2, -1 and 1 share their coefficients.
  REQUIRE(f.classes.size() == 3);
  CHECK(f.planeClass == std::vector<int>{0, 1, 2, 1, 0});
  CHECK(f.classes[2].size() == 9);
  CHECK(f.classes[2][0].coef == 0.1);
  // Terms in evaluation order: d0 ascending, then b, then a.
  CHECK(f.terms[0].d0 == -2);
  CHECK(f.terms[0].b == 0);
  CHECK(f.terms[0].a == 0);
  CHECK(f.terms[0].coef == 0.03);
  CHECK(f.terms[1].a == 1);
  CHECK(f.terms[3].b == 1);
  CHECK(k.schedule.strategy == dag::Strategy::SumFactor);
  CHECK(k.schedule.vec == 2);
  // The footprint is the box's: the factored DAG reads the same offsets.
  REQUIRE(k.footprint.fields.size() == 1);
  CHECK(k.footprint.fields[0].lo == std::array<int, 3>{-2, -2, -2});
  CHECK(k.footprint.fields[0].hi == std::array<int, 3>{2, 2, 2});
  CHECK(k.footprint.fields[0].accesses == 125);
}

TEST_CASE("without --factor-sums the sum stays as written, and the fma form has its own counts") {
  auto off = test::compileText(box125Text());
  REQUIRE_MESSAGE(off->module, off->diagText());
  CHECK_FALSE(test::kernelOf(*off, "box125_c").sumFactor);
  CHECK(test::kernelOf(*off, "box125_c").schedule.strategy == dag::Strategy::Stream);
  auto fma = test::compileText(box125Text(), {}, factorOn(true));
  REQUIRE_MESSAGE(fma->module, fma->diagText());
  const dag::Kernel& k = test::kernelOf(*fma, "box125_c");
  REQUIRE(k.sumFactor);
  CHECK(k.sumFactor->fma);
  CHECK(k.sumFactor->naiveOps == 125);
  CHECK(k.sumFactor->sharedOps == 2 + 6 + 27 + 4);
  // out = ... + S0(p + 2e0): the planes add up, each S folds with fma.
  const dag::Node& root = fma->module->ctx.node(k.outputs[0].value);
  CHECK(root.op == dag::Op::Add);
  CHECK(fma->module->ctx.node(root.operands[1]).op == dag::Op::Fma);
}

TEST_CASE("the factored output equals the sum as written up to rounding, and the streaming order bit for bit") {
  for (const bool fma : {false, true})
    for (const std::string text : {box125Text(), std::string(kLopsided)}) {
      CAPTURE(fma);
      checkAgainstWritten(text, fma, 20);
    }
}

TEST_CASE("a box lopsided along i is factored with accumulators for planes -1 .. 2") {
  auto c = test::compileText(kLopsided, {}, factorOn());
  REQUIRE_MESSAGE(c->module, c->diagText());
  const dag::Kernel& k = test::kernelOf(*c, "b");
  REQUIRE(k.sumFactor);
  CHECK(k.sumFactor->d0lo() == -1);
  CHECK(k.sumFactor->d0hi() == 2);
  CHECK(k.sumFactor->terms.size() == 36);
  CHECK(k.sumFactor->classes.size() == 4);  // (1 + 0.25 a) scales every plane differently
  const std::string cu = test::generateAll(*c->module).at(".cu");
  CHECK(cu.find("real acc0_[kRows][kVec] = {}, acc1_[kRows][kVec] = {}, acc2_[kRows][kVec] = {}, acc3_[kRows][kVec] = {};") != std::string::npos);
  CHECK(cu.find("const long xs_ = x0_ - 1, n_ = x1_ - x0_ + 3;") != std::string::npos);
}

TEST_CASE("sums that do not qualify keep their form, and analyzeSumFactor says why") {
  struct Case {
    const char* text;
    const char* why;
  };
  const Case cases[] = {
      {"stencil s(i, j, k) : f64 { in u; out v;\n"
       "  v = sum(a in 0..1) (sum(b in -3..3) (sum(c in -3..3) (1.0 + 0.1 * c + 0.2 * a) * u[i+a, j+b, k+c])); }",
       "save too little (195 -> 132 operations per point"},
      {"stencil s(i, j, k) : f64 { in u; out v; param w;\n"
       "  v = sum(a in -2..2) (sum(b in -2..2) (sum(c in -2..2) w * w * u[i+a, j+b, k+c])); }",
       "not a weighted sum of one field"},
      {"stencil s(i, j, k) : f64 { in u, q; out v;\n"
       "  v = sum(a in -2..2) (sum(b in -2..2) (sum(c in -2..2) u[i+a, j+b, k+c])) + q; }",
       "not a weighted sum of one field"},
      {"stencil s(i, j, k) : f64 { in u; out v;\n"
       "  v = sum(a in -2..2) (sum(b in -2..2) (sum(c in -2..2) u[i+a, j+b, k+c])) + 1.0; }",
       "not a weighted sum of one field"},
      {"stencil s(i, j, k) : f64 { in u; out v;\n"
       "  v = sum(a in 0..1) (sum(b in -1..1) (sum(c in -1..1) u[i+a, j+b, k+c])); }",
       "not arithmetic-heavy (17 operations per point"},
      {"stencil s(i, j, k) : f64 { in u; out v;\n"
       "  v = sum(m in -4..4) (u[i+m, j, k] + u[i, j+m, k] + u[i, j, k+m]); }",
       "not arithmetic-heavy"},
      {"stencil s(i, j) : f64 { in u; out v;\n"
       "  v = sum(b in -5..5) (sum(c in -5..5) u[i+b, j+c]); }",
       "not rank 3"},
  };
  for (const Case& t : cases) {
    const std::string text = t.text;
    CAPTURE(text);
    auto c = test::compileText(t.text, {}, factorOn());
    REQUIRE_MESSAGE(c->module, c->diagText());
    const dag::Kernel& k = c->module->kernels.at(0);
    CHECK_FALSE(k.sumFactor);
    CHECK(k.schedule.strategy != dag::Strategy::SumFactor);
    std::string why;
    CHECK_FALSE(passes::analyzeSumFactor(c->module->ctx, k, false, &why));
    CHECK_MESSAGE(why.find(t.why) != std::string::npos, why);
  }
}

TEST_CASE("the sumfactor CUDA code: a tile ring through cp.async, one barrier per plane, X and Y once, a one-point fallback") {
  auto c = test::compileText(box125Text(), {}, factorOn());
  REQUIRE_MESSAGE(c->module, c->diagText());
  const std::string cu = test::generateAll(*c->module).at(".cu");
  CHECK(cu.find("sweepPart_sf(const stnc_rt::Layout L_, const stnc_rt::Box B_, const long chunk_, const real* __restrict__ u, real* __restrict__ v)") !=
        std::string::npos);
  CHECK(cu.find("constexpr int kR1 = 2, kA2 = 2;") != std::string::npos);
  CHECK(cu.find("constexpr int kSlots = 5;") != std::string::npos);
  // The window's 2 columns (16 bytes) each side are copied as whole 32-byte sectors: 4 columns.
  CHECK(cu.find("constexpr int kC2 = 4;") != std::string::npos);
  CHECK(cu.find("stnc_rt::RingCopier<real, kTileRows, kTileCols, kBlockX * kBlockY, true> uC_(L_, uS_, yb_ - kR1, zb_ - kC2, tid_);") != std::string::npos);
  CHECK(cu.find("threadIdx.x * kVec + (kC2 - kA2);  // this thread's window in slot 0") != std::string::npos);
  CHECK(cu.find("stnc_rt::cpAsyncWait<kSlots - 2>();") != std::string::npos);
  CHECK(cu.find("X2_[r_][c_] = w_[kA2 + c_ - 2] + w_[kA2 + c_ + 2];") != std::string::npos);
  CHECK(cu.find("const real y_a1_b2_ = X1_[r_ + kR1 - 2][c_] + X1_[r_ + kR1 + 2][c_];") != std::string::npos);
  CHECK(cu.find("real S0_ = 0.03 * y_a0_b0_;  // S of class 0 (planes -2, 2)") != std::string::npos);
  CHECK(cu.find("S2_ = S2_ + 0.004 * y_a2_b2_;") != std::string::npos);
  CHECK(cu.find("acc4_[r_][c_] = S0_;  // output plane x_ + 2 (plane offset -2): its first plane") != std::string::npos);
  CHECK(cu.find("acc0_[r_][c_] = acc0_[r_][c_] + S0_;  // output plane x_ - 2 (plane offset 2)") != std::string::npos);
  CHECK(cu.find("stnc_rt::storeOnce(reinterpret_cast<double2*>(&v[p_]), double2{acc0_[r_][0], acc0_[r_][1]});") != std::string::npos);
  CHECK(cu.find("return naive_fallback::launchPart(L_, B_, u, v, stream_);") != std::string::npos);
  // One __syncthreads in the kernel: the ring is refilled two planes after its last read.
  const size_t at = cu.find("sweepPart_sf(");
  const size_t end = cu.find("}  // sweepPart_sf", at);
  REQUIRE(end != std::string::npos);
  const std::string body = cu.substr(at, end - at);
  CHECK(body.find("__syncthreads()") != std::string::npos);
  CHECK(body.find("__syncthreads()", body.find("__syncthreads()") + 1) == std::string::npos);
}

TEST_CASE("the sumfactor launch raises the shared-memory limit at every launch when its 5-slot ring of 36x40 tiles exceeds 48 KiB") {
  auto c = test::compileText(box125Text(), {}, factorOn());
  REQUIRE_MESSAGE(c->module, c->diagText());
  const std::string cu = test::generateAll(*c->module).at(".cu");
  const size_t attr = cu.find("cudaFuncSetAttribute(sweepPart_sf, cudaFuncAttributeMaxDynamicSharedMemorySize, 57600)");
  const size_t once = cu.find("if (sms_ == 0) {", cu.find("cudaError_t launchPart(", cu.find("}  // sweepPart_sf")));
  REQUIRE(attr != std::string::npos);
  REQUIRE(once != std::string::npos);
  CHECK(attr < once);  // not only on the first launch: the attribute is per device
  CHECK(cu.find("sweepPart_sf<<<grid_, block_, 57600, stream_>>>") != std::string::npos);
}

TEST_CASE("coefficients symmetric along one axis pair only that axis, runtime coefficients are summed plane by plane") {
  // Asymmetric along k: Y pairs +-b along j, X takes every signed a.
  auto c = test::compileText("stencil s(i, j, k) : f64 { in u; out v;\n"
                             "  v = sum(a in -2..2) (sum(b in -2..2) (sum(c in -2..2) (1.0 + 0.1 * c) * u[i+a, j+b, k+c])); }",
                             {}, factorOn());
  REQUIRE_MESSAGE(c->module, c->diagText());
  const dag::Kernel& k = c->module->kernels.at(0);
  REQUIRE(k.sumFactor);
  CHECK(k.sumFactor->pair1);
  CHECK_FALSE(k.sumFactor->pair2);
  CHECK(k.sumFactor->terms.size() == 5 * 3 * 5);
  CHECK(k.sumFactor->terms.front().a == -2);
  CHECK(k.sumFactor->r2() == 2);
  const std::string cu = test::generateAll(*c->module).at(".cu");
  CHECK(cu.find("Xm2_[r_][c_] = w_[kA2 + c_ - 2];") != std::string::npos);
  CHECK(cu.find("const real y_am1_b2_ = Xm1_[r_ + kR1 - 2][c_] + Xm1_[r_ + kR1 + 2][c_];") != std::string::npos);
  // One runtime coefficient for every point: symmetric, so paired, with the param in every term.
  auto w = test::compileText("stencil s(i, j, k) : f64 { in u; out v; param w;\n"
                             "  v = sum(a in -2..2) (sum(b in -2..2) (sum(c in -2..2) 0.5 * w * u[i+a, j+b, k+c])); }",
                             {}, factorOn());
  REQUIRE_MESSAGE(w->module, w->diagText());
  const dag::Kernel& kw = w->module->kernels.at(0);
  REQUIRE(kw.sumFactor);
  CHECK(kw.sumFactor->pair1);
  CHECK(kw.sumFactor->pair2);
  CHECK(kw.sumFactor->terms[0].param == "w");
  CHECK(kw.sumFactor->terms[0].coef == 0.5);
  CHECK(kw.sumFactor->classes.size() == 1);  // every plane has the same coefficients
  CHECK(test::generateAll(*w->module).at(".cu").find("real S0_ = (0.5 * w) * y_a0_b0_;") != std::string::npos);
  // The suite's box125 with 125 runtime coefficients: no pairing, 5 classes, 2 rows per thread.
  std::ifstream in(std::string(STNC_SOURCE_DIR) + "/bench/workloads/box125_rt.stn");
  std::stringstream ss;
  ss << in.rdbuf();
  auto rt = test::compileText(ss.str(), {}, factorOn(true));
  REQUIRE_MESSAGE(rt->module, rt->diagText());
  const dag::Kernel& kr = rt->module->kernels.at(0);
  REQUIRE(kr.sumFactor);
  CHECK_FALSE(kr.sumFactor->pair1);
  CHECK_FALSE(kr.sumFactor->pair2);
  CHECK(kr.sumFactor->classes.size() == 5);
  CHECK(kr.sumFactor->naiveOps == 125);
  CHECK(kr.sumFactor->sharedOps == 129);
  CHECK(kr.schedule.rows == 2);
  CHECK(kr.schedule.reason.find("without symmetry (summed plane by plane)") != std::string::npos);
  const std::string cu2 = test::generateAll(*rt->module).at(".cu");
  CHECK(cu2.find("real S0_ = c_m2_m2_m2 * y_am2_bm2_;") != std::string::npos);
  CHECK(cu2.find("S4_ = fma(c_p2_p2_p2, y_a2_b2_, S4_);") != std::string::npos);
}

TEST_CASE("runtime and one-axis-symmetric sums: the factored output equals the sum as written up to rounding, the streaming order bit for bit") {
  const char* texts[] = {
      "stencil s(i, j, k) : f64 { in u; out v;\n"
      "  v = sum(a in -2..2) (sum(b in -2..2) (sum(c in -2..2) (1.0 + 0.1 * c + 0.01 * b) * u[i+a, j+b, k+c])); }",
      "stencil s(i, j, k) : f64 { in u; out v; param w;\n"
      "  v = sum(a in -2..2) (sum(b in -2..2) (sum(c in -2..2) (0.5 + 0.1 * a) * w * u[i+a, j+b, k+c])); }",
  };
  for (const char* text : texts) checkAgainstWritten(text, false, 10);
}

TEST_CASE("box-like sums (3 planes or more of 9 points or more) take the sumfactor schedule even when sharing saves little") {
  auto c = test::compileText("stencil s(i, j, k) : f64 { in u; out v;\n"
                             "  v = sum(a in -1..1) (sum(b in -1..1) (sum(c in -1..1) u[i+a, j+b, k+c])); }",
                             {}, factorOn());
  REQUIRE_MESSAGE(c->module, c->diagText());
  const dag::Kernel& k = c->module->kernels.at(0);
  REQUIRE(k.sumFactor);
  CHECK(k.sumFactor->naiveOps == 26);
  CHECK(k.sumFactor->classes.size() == 1);  // every plane's coefficients are 1
  CHECK(k.schedule.strategy == dag::Strategy::SumFactor);
  // A ring of one plane (radius 1): a wider tile, 64x2 threads of 2 rows for paired (symmetric) sums like this
  // one, 32x4 for unpaired ones (session 22); the 5x5 box of the first case keeps 16x8 threads of 4 rows.
  CHECK((k.sumFactor->pair1 || k.sumFactor->pair2));
  CHECK(k.schedule.blockX == 64);
  CHECK(k.schedule.blockY == 2);
  CHECK(k.schedule.rows == 2);
  auto u = test::compileText("stencil s(i, j, k) : f64 { in u; param w; out v;\n"
                             "  v = sum(a in -1..1) (sum(b in -1..1) (sum(c in -1..1) (w * (a + 2) * (b + 3) * (c + 5)) * u[i+a, j+b, k+c])); }",
                             {}, factorOn());
  REQUIRE_MESSAGE(u->module, u->diagText());
  const dag::Kernel& uk = u->module->kernels.at(0);
  REQUIRE(uk.sumFactor);
  CHECK_FALSE((uk.sumFactor->pair1 || uk.sumFactor->pair2));
  CHECK(uk.schedule.blockX == 32);
  CHECK(uk.schedule.blockY == 4);
}
