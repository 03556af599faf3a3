// stdlib/fd.stn: every operator is compiled through the real pipeline, its weights are read back
// from the lowered DAG (the kernel's output node, walked through dag::Context as a linear form in
// the accesses of u), and compared with the textbook central-difference coefficients — listed here
// as exact fractions and cross-checked against Fornberg's algorithm. Then the order of accuracy is
// measured: the recovered weights are applied to a smooth function at spacings h and h/2, and the
// error ratio must be about 2^order.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "../TestUtil.h"  // tests/unit/TestUtil.h, whatever the include path

using namespace stnc;
using dag::NodeId;
using dag::NodeKind;
using dag::Offset;
using dag::Op;

namespace {

// ---- the textbook coefficients ------------------------------------------------------------------
// Central differences on the points -M..M (M = order / 2), weight of f(x + m h) for m = -M..M
// (Fornberg 1988, Table 1). First derivative (divide by h), second derivative (divide by h^2).
const std::map<int, std::vector<double>> kFirst = {
    {2, {-1.0 / 2, 0.0, 1.0 / 2}},
    {4, {1.0 / 12, -2.0 / 3, 0.0, 2.0 / 3, -1.0 / 12}},
    {6, {-1.0 / 60, 3.0 / 20, -3.0 / 4, 0.0, 3.0 / 4, -3.0 / 20, 1.0 / 60}},
    {8, {1.0 / 280, -4.0 / 105, 1.0 / 5, -4.0 / 5, 0.0, 4.0 / 5, -1.0 / 5, 4.0 / 105, -1.0 / 280}},
};
const std::map<int, std::vector<double>> kSecond = {
    {2, {1.0, -2.0, 1.0}},
    {4, {-1.0 / 12, 4.0 / 3, -5.0 / 2, 4.0 / 3, -1.0 / 12}},
    {6, {1.0 / 90, -3.0 / 20, 3.0 / 2, -49.0 / 18, 3.0 / 2, -3.0 / 20, 1.0 / 90}},
    {8, {-1.0 / 560, 8.0 / 315, -1.0 / 5, 8.0 / 5, -205.0 / 72, 8.0 / 5, -1.0 / 5, 8.0 / 315, -1.0 / 560}},
};
const std::vector<double>& textbook(int deriv, int order) { return (deriv == 1 ? kFirst : kSecond).at(order); }

// Fornberg's algorithm: weights of the derivative of order `deriv` at 0 on the nodes -M..M.
std::vector<long double> fornberg(int deriv, int M) {
  std::vector<long double> x;
  for (int m = -M; m <= M; ++m) x.push_back(m);
  const int n = static_cast<int>(x.size());
  std::vector<std::vector<long double>> c(n, std::vector<long double>(deriv + 1, 0.0L));
  long double c1 = 1.0L, c4 = x[0];
  c[0][0] = 1.0L;
  for (int i = 1; i < n; ++i) {
    const int mn = std::min(i, deriv);
    long double c2 = 1.0L;
    const long double c5 = c4;
    c4 = x[i];
    for (int j = 0; j < i; ++j) {
      const long double c3 = x[i] - x[j];
      c2 *= c3;
      if (j == i - 1) {
        for (int k = mn; k >= 1; --k) c[i][k] = c1 * (k * c[i - 1][k - 1] - c5 * c[i - 1][k]) / c2;
        c[i][0] = -c1 * c5 * c[i - 1][0] / c2;
      }
      for (int k = mn; k >= 1; --k) c[j][k] = (c4 * c[j][k] - k * c[j][k - 1]) / c3;
      c[j][0] = c4 * c[j][0] / c3;
    }
    c1 = c2;
  }
  std::vector<long double> w;
  for (int i = 0; i < n; ++i) w.push_back(c[i][deriv]);
  return w;
}

bool close(double a, double b, double rel = 1e-14) { return std::abs(a - b) <= rel * std::max(1.0, std::abs(b)); }

// ---- reading the weights back from the DAG ------------------------------------------------------
// The value of a node as sum(w[o] * u[o]) + constant; `error` is set for anything that is not
// linear in the accesses with constant coefficients.
struct LinearForm {
  std::map<Offset, double> w;
  double constant = 0;
  std::string error;
};

LinearForm linearForm(const dag::Context& ctx, NodeId id) {
  const dag::Node& n = ctx.node(id);
  LinearForm r;
  auto fail = [&](const std::string& why) {
    r.error = why;
    return r;
  };
  auto scaled = [](LinearForm f, double s) {
    for (auto& [o, w] : f.w) w *= s;
    f.constant *= s;
    return f;
  };
  switch (n.kind) {
    case NodeKind::Const: r.constant = n.value; return r;
    case NodeKind::Access:
      if (ctx.name(n.sym) != "u") return fail("access to " + ctx.name(n.sym));
      r.w[n.offset] = 1.0;
      return r;
    case NodeKind::Param: return fail("a param");
    case NodeKind::Select: return fail("a select");
    case NodeKind::Apply: break;
  }
  LinearForm a = linearForm(ctx, n.operands[0]);
  if (!a.error.empty()) return a;
  if (n.op == Op::Neg) return scaled(a, -1.0);
  if (n.operandCount() != 2) return fail(std::string("op ") + dag::opInfo(n.op).spelling);
  LinearForm b = linearForm(ctx, n.operands[1]);
  if (!b.error.empty()) return b;
  switch (n.op) {
    case Op::Add:
    case Op::Sub: {
      const double s = n.op == Op::Add ? 1.0 : -1.0;
      r = a;
      for (auto& [o, w] : b.w) r.w[o] += s * w;
      r.constant += s * b.constant;
      return r;
    }
    case Op::Mul:
      if (a.w.empty()) return scaled(b, a.constant);
      if (b.w.empty()) return scaled(a, b.constant);
      return fail("a product of two accesses");
    case Op::Div:
      if (b.w.empty()) return scaled(a, 1.0 / b.constant);
      return fail("a division by an access");
    default: return fail(std::string("op ") + dag::opInfo(n.op).spelling);
  }
}

// Compiles `r = OP(u);` in a stencil over `axes` and returns the weights of the output.
LinearForm weightsOf(const std::string& op, const std::string& axes) {
  const std::string src = "import \"fd.stn\";\nstencil t(" + axes + ") { in u; out r; r = " + op + "(u); }\n";
  auto c = test::compileText(src);
  INFO(src);
  INFO(c->diagText());
  REQUIRE(c->module.has_value());
  const dag::Kernel* k = c->module->find("t");
  REQUIRE(k != nullptr);
  REQUIRE(k->outputs.size() == 1);
  return linearForm(c->module->ctx, k->outputs[0].value);
}

Offset along(int axis, int m) {
  Offset o;
  o.d[axis] = m;
  return o;
}

// The expected weights of a derivative along `axis`, or of the Laplacian over `rank` axes.
std::map<Offset, double> expected(int deriv, int order, const std::vector<int>& axes) {
  const std::vector<double>& c = textbook(deriv, order);
  const int M = order / 2;
  std::map<Offset, double> w;
  // The stdlib writes the Laplacian's centre as one term, rank * c0; do the same so the sums of
  // identical float64 terms compare exactly.
  for (int a : axes)
    for (int m = -M; m <= M; ++m)
      if (c[m + M] != 0.0 && m != 0) w[along(a, m)] = c[m + M];
  if (c[M] != 0.0) w[Offset{}] = static_cast<double>(axes.size()) * c[M];
  return w;
}

std::string offsetText(const Offset& o) {
  return "[" + std::to_string(o.d[0]) + "," + std::to_string(o.d[1]) + "," + std::to_string(o.d[2]) + "]";
}

void checkWeights(const LinearForm& got, const std::map<Offset, double>& want) {
  REQUIRE_MESSAGE(got.error.empty(), "not a linear form: " << got.error);
  CHECK(got.constant == 0.0);
  for (const auto& [o, w] : want) {
    INFO("offset " << offsetText(o));
    auto it = got.w.find(o);
    REQUIRE_MESSAGE(it != got.w.end(), "offset " << offsetText(o) << " is missing");
    CHECK_MESSAGE(close(it->second, w), "weight " << it->second << ", textbook " << w);
  }
  for (const auto& [o, w] : got.w)
    CHECK_MESSAGE(want.count(o) == 1, "unexpected offset " << offsetText(o) << " with weight " << w);
}

// ---- order of accuracy ----------------------------------------------------------------------------
// f(x, y, z) = sin(x + 0.7) * sin(1.3 y + 0.4) * sin(0.8 z + 1.1): every derivative is known in closed
// form and none vanishes at the origin.
const long double kWave[3] = {1.0L, 1.3L, 0.8L};
const long double kPhase[3] = {0.7L, 0.4L, 1.1L};

long double f(const long double x[3]) {
  long double p = 1.0L;
  for (int a = 0; a < 3; ++a) p *= std::sin(kWave[a] * x[a] + kPhase[a]);
  return p;
}

// d^deriv f / d x_axis^deriv at the origin (deriv = 1, 2); the sum over `axes` for a Laplacian.
long double exactDerivative(int deriv, const std::vector<int>& axes) {
  long double s = 0;
  for (int axis : axes) {
    long double p = 1.0L;
    for (int a = 0; a < 3; ++a) {
      if (a != axis) {
        p *= std::sin(kPhase[a]);
        continue;
      }
      p *= deriv == 1 ? kWave[a] * std::cos(kPhase[a]) : -kWave[a] * kWave[a] * std::sin(kPhase[a]);
    }
    s += p;
  }
  return s;
}

long double apply(const std::map<Offset, double>& w, int deriv, long double h) {
  long double s = 0;
  for (const auto& [o, wt] : w) {
    const long double x[3] = {o.d[0] * h, o.d[1] * h, o.d[2] * h};
    s += static_cast<long double>(wt) * f(x);
  }
  return deriv == 1 ? s / h : s / (h * h);
}

// Observed order from spacings h and h/2: log2(e(h) / e(h/2)).
double observedOrder(const std::map<Offset, double>& w, int deriv, const std::vector<int>& axes, long double h) {
  const long double exact = exactDerivative(deriv, axes);
  const long double e1 = std::abs(apply(w, deriv, h) - exact);
  const long double e2 = std::abs(apply(w, deriv, h / 2) - exact);
  return static_cast<double>(std::log2(e1 / e2));
}

void checkOrder(const LinearForm& got, int deriv, int order, const std::vector<int>& axes) {
  REQUIRE(got.error.empty());
  // h = 0.2 keeps the truncation error (~h^order) far above the long double rounding even at order 8,
  // and small enough that the next term changes the observed order by less than the tolerance.
  const double p = observedOrder(got.w, deriv, axes, 0.2L);
  INFO("observed order " << p << ", nominal " << order);
  CHECK(std::abs(p - order) < 0.15);
}

struct Op1 {
  std::string name;
  int deriv, order;
  std::string axes;          // the stencil's axes
  std::vector<int> along;    // the axes it differentiates along (several: a Laplacian)
};

std::vector<Op1> allOperators() {
  std::vector<Op1> ops;
  const char* first3[3] = {"dx", "dy", "dz"};
  const char* second3[3] = {"dxx", "dyy", "dzz"};
  for (int order : {2, 4, 6, 8}) {
    const std::string N = std::to_string(order);
    for (int a = 0; a < 3; ++a) {
      ops.push_back({first3[a] + N, 1, order, "i, j, k", {a}});
      ops.push_back({second3[a] + N, 2, order, "i, j, k", {a}});
    }
    for (int a = 0; a < 2; ++a) {
      ops.push_back({first3[a] + N + "_2d", 1, order, "i, j", {a}});
      ops.push_back({second3[a] + N + "_2d", 2, order, "i, j", {a}});
    }
    ops.push_back({"d1_" + N, 1, order, "i", {0}});
    ops.push_back({"d2_" + N, 2, order, "i", {0}});
    ops.push_back({"lap" + N, 2, order, "i, j, k", {0, 1, 2}});
    ops.push_back({"lap" + N + "_2d", 2, order, "i, j", {0, 1}});
    ops.push_back({"lap" + N + "_1d", 2, order, "i", {0}});
  }
  return ops;
}

}  // namespace

TEST_CASE("fd: the textbook coefficient tables agree with Fornberg's algorithm") {
  for (int deriv : {1, 2})
    for (int order : {2, 4, 6, 8}) {
      INFO("derivative " << deriv << ", order " << order);
      const std::vector<double>& t = textbook(deriv, order);
      const std::vector<long double> fb = fornberg(deriv, order / 2);
      REQUIRE(t.size() == fb.size());
      for (size_t m = 0; m < t.size(); ++m) CHECK(close(t[m], static_cast<double>(fb[m]), 1e-15));
    }
}

TEST_CASE("fd: every stdlib operator has the textbook central-difference weights") {
  for (const Op1& op : allOperators()) {
    INFO("operator " << op.name << " in a stencil over (" << op.axes << ")");
    checkWeights(weightsOf(op.name, op.axes), expected(op.deriv, op.order, op.along));
  }
}

TEST_CASE("fd: every stdlib operator converges with its nominal order") {
  for (const Op1& op : allOperators()) {
    INFO("operator " << op.name);
    checkOrder(weightsOf(op.name, op.axes), op.deriv, op.order, op.along);
  }
}

// The operators fd.stn defines (lines `def NAME(...`), in file order.
static std::vector<std::string> definedOperators() {
  std::ifstream in(std::string(STNC_SOURCE_DIR) + "/stdlib/fd.stn");
  std::vector<std::string> names;
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("def ", 0) == 0) names.push_back(line.substr(4, line.find('(') - 4));
  return names;
}

TEST_CASE("fd: every operator fd.stn defines is tested, and every tested one is defined") {
  // The header of fd.stn promises exactly the operators of allOperators(): a new def needs a test
  // entry here (weights + order), and a promised operator cannot go missing.
  const std::vector<std::string> defined = definedOperators();
  REQUIRE(defined.size() > 0);
  std::set<std::string> tested;
  for (const Op1& op : allOperators()) tested.insert(op.name);
  for (const std::string& d : defined) CHECK_MESSAGE(tested.count(d) == 1, "fd.stn defines " << d << " but no test covers it");
  const std::set<std::string> def(defined.begin(), defined.end());
  for (const std::string& t : tested) CHECK_MESSAGE(def.count(t) == 1, "tested operator " << t << " is not defined in fd.stn");
  CHECK(def.size() == defined.size());  // no def twice
  CHECK(tested.size() == 4 * (3 + 3 + 2 + 2 + 1 + 1 + 1 + 1 + 1));  // 3-D d1/d2, 2-D d1/d2, 1-D d1/d2, 3 Laplacians
}

TEST_CASE("fd: the header of fd.stn names every operator family it defines") {
  std::ifstream in(std::string(STNC_SOURCE_DIR) + "/stdlib/fd.stn");
  std::string header, line;
  while (std::getline(in, line) && line.rfind("//", 0) == 0) header += line + "\n";
  // Each family's first and last member, as the header lists them (N = 2 ... 8).
  for (const char* name : {"dx2", "dx8", "dy8", "dz2", "dz8", "dx2_2d", "dx8_2d", "dy2_2d", "dy8_2d", "d1_2", "d1_8",
                           "dxx2", "dxx8", "dyy8", "dzz2", "dzz8", "dxx2_2d", "dxx8_2d", "dyy2_2d", "dyy8_2d", "d2_2",
                           "d2_8", "lap2", "lap8", "lap2_2d", "lap8_2d", "lap2_1d", "lap8_1d"}) {
    INFO("operator " << name);
    CHECK(std::regex_search(header, std::regex(std::string("[ /]") + name + "[ \n]")));
  }
}

TEST_CASE("fd: the weights are the float64 values of the fractions, folded exactly") {
  // The recovered weights are the stdlib's constants folded in float64; check a few exactly
  // (not just to a tolerance): no rounding through float32, no reassociation of the centre term.
  LinearForm w = weightsOf("dxx8", "i, j, k");
  REQUIRE(w.error.empty());
  CHECK(w.w.at(Offset{}) == -205.0 / 72.0);
  CHECK(w.w.at(along(0, 3)) == 8.0 / 315.0);
  CHECK(w.w.at(along(0, -4)) == -1.0 / 560.0);
  LinearForm l = weightsOf("lap8", "i, j, k");
  REQUIRE(l.error.empty());
  CHECK(l.w.at(Offset{}) == 3.0 * (-205.0 / 72.0));
  LinearForm d2 = weightsOf("dyy8_2d", "i, j");
  REQUIRE(d2.error.empty());
  CHECK(d2.w.at(Offset{}) == -205.0 / 72.0);
  CHECK(d2.w.at(along(1, -2)) == -1.0 / 5.0);
  LinearForm d1 = weightsOf("dx4_2d", "i, j");
  REQUIRE(d1.error.empty());
  CHECK(d1.w.at(along(0, 2)) == -1.0 / 12.0);
  CHECK(d1.w.at(along(0, -1)) == -(2.0 / 3.0));
  LinearForm d = weightsOf("dz6", "i, j, k");
  REQUIRE(d.error.empty());
  CHECK(d.w.at(along(2, 3)) == 1.0 / 60.0);
  CHECK(d.w.at(along(2, -3)) == -(1.0 / 60.0));
}

TEST_CASE("fd: an operator applied to an expression shifts every access inside it") {
  // dx2(u * v) = 1/2 * (u[i+1] * v[i+1] - u[i-1] * v[i-1]): the product is evaluated at the shifts.
  auto c = test::compileText(
      "import \"fd.stn\";\nstencil t(i, j, k) { in u, v; out r; r = dx2(u * v); }\n");
  INFO(c->diagText());
  REQUIRE(c->module.has_value());
  const dag::Context& ctx = c->module->ctx;
  const dag::Kernel* k = c->module->find("t");
  REQUIRE(k);
  // Collect every (field, offset) the output reads.
  std::map<std::string, std::vector<Offset>> reads;
  std::vector<NodeId> stack{k->outputs.at(0).value};
  std::map<NodeId, bool> seen;
  while (!stack.empty()) {
    NodeId id = stack.back();
    stack.pop_back();
    if (seen[id]) continue;
    seen[id] = true;
    const dag::Node& n = ctx.node(id);
    if (n.kind == NodeKind::Access) reads[ctx.name(n.sym)].push_back(n.offset);
    for (int o = 0; o < n.operandCount(); ++o) stack.push_back(n.operands[o]);
  }
  for (const char* field : {"u", "v"}) {
    INFO("field " << field);
    std::vector<Offset> offs = reads[field];
    std::sort(offs.begin(), offs.end());
    REQUIRE(offs.size() == 2);
    CHECK(offs[0] == along(0, -1));
    CHECK(offs[1] == along(0, 1));
  }
}
