// passes/PruneDeadNodes: only nodes reachable from an output or a boundary value survive; ids are
// renumbered densely in their old relative order; a second run changes nothing.
#include <doctest/doctest.h>

#include "unit/DagText.h"
#include "dag/Verifier.h"
#include "passes/PruneDeadNodes.h"

using namespace stnc;
using dag::NodeKind;

namespace {

dag::Field makeField(const std::string& name, dag::Role role) {
  dag::Field f;
  f.name = name;
  f.role = role;
  return f;
}

// An output of `field` (set by name: the struct grows other members over time).
dag::Output makeOutput(const std::string& field, dag::NodeId value) {
  dag::Output o;
  o.field = field;
  o.value = value;
  return o;
}

dag::Kernel oneKernel(std::vector<std::string> in, std::string out) {
  dag::Kernel k;
  k.name = "s";
  k.axes = {"i"};
  for (auto& f : in) k.fields.push_back(makeField(f, dag::Role::In));
  k.fields.push_back(makeField(out, dag::Role::Out));
  return k;
}

std::vector<std::string> nodeTexts(const dag::Context& ctx) {
  std::vector<std::string> out;
  for (dag::NodeId id = 0; id < ctx.size(); ++id) out.push_back(test::tree(ctx, id, 1));
  return out;
}

}  // namespace

TEST_CASE("dead nodes are dropped and ids renumbered in their old order") {
  SourceManager sm;
  DiagEngine diags(sm);
  dag::Module m;
  dag::Context& c = m.ctx;
  dag::NodeId two = c.constant(2);                        // dead
  dag::NodeId three = c.constant(3);                      // live
  dag::NodeId u = c.access(c.intern("u"), {});            // live
  c.access(c.intern("v"), dag::Offset{{1, 0, 0}});        // dead
  dag::NodeId dead = c.apply(dag::Op::Add, u, two);       // dead
  dag::NodeId mul = c.apply(dag::Op::Mul, three, u);      // live
  (void)dead;
  m.kernels.push_back(oneKernel({"u", "v"}, "o"));
  m.kernels[0].outputs.push_back(makeOutput("o", mul));
  REQUIRE(c.size() == 6);

  CHECK(passes::pruneDeadNodes(m, diags));
  CHECK(nodeTexts(m.ctx) == std::vector<std::string>{"3", "u[0]", "(3 * u[0])"});
  CHECK(m.kernels[0].outputs[0].value == 2);
  CHECK(m.ctx.node(2).operands[0] == 0);
  CHECK(m.ctx.node(2).operands[1] == 1);
  CHECK(dag::verifyModule(m).empty());
}

TEST_CASE("pruning twice changes nothing") {
  SourceManager sm;
  DiagEngine diags(sm);
  dag::Module m;
  dag::Context& c = m.ctx;
  c.constant(7);
  dag::NodeId u = c.access(c.intern("u"), {});
  dag::NodeId n = c.apply(dag::Op::Neg, u);
  m.kernels.push_back(oneKernel({"u"}, "o"));
  m.kernels[0].outputs.push_back(makeOutput("o", n));
  CHECK(passes::pruneDeadNodes(m, diags));
  std::vector<std::string> once = nodeTexts(m.ctx);
  dag::NodeId out = m.kernels[0].outputs[0].value;
  CHECK_FALSE(passes::pruneDeadNodes(m, diags));
  CHECK(nodeTexts(m.ctx) == once);
  CHECK(m.kernels[0].outputs[0].value == out);
}

TEST_CASE("nodes used only by a boundary value are kept and remapped") {
  SourceManager sm;
  DiagEngine diags(sm);
  dag::Module m;
  dag::Context& c = m.ctx;
  c.constant(1);  // dead
  dag::NodeId w = c.param(c.intern("w"));
  dag::NodeId bv = c.apply(dag::Op::Mul, c.constant(0.5), w);
  dag::NodeId u = c.access(c.intern("u"), {});
  m.kernels.push_back(oneKernel({"u"}, "o"));
  m.kernels[0].params = {"w"};
  m.kernels[0].outputs.push_back(makeOutput("o", u));
  dag::Boundary b;
  b.field = "u";
  b.axisMask = 1;
  b.kind = dag::BoundaryKind::Value;
  b.value = bv;
  m.kernels[0].boundaries.push_back(b);

  CHECK(passes::pruneDeadNodes(m, diags));
  CHECK(m.ctx.size() == 4);
  CHECK(test::tree(m.ctx, m.kernels[0].boundaries[0].value, 1) == "(0.5 * w)");
  CHECK(test::tree(m.ctx, m.kernels[0].outputs[0].value, 1) == "u[0]");
}

TEST_CASE("a fully live context is left alone") {
  SourceManager sm;
  DiagEngine diags(sm);
  dag::Module m;
  dag::NodeId u = m.ctx.access(m.ctx.intern("u"), {});
  m.kernels.push_back(oneKernel({"u"}, "o"));
  m.kernels[0].outputs.push_back(makeOutput("o", u));
  CHECK_FALSE(passes::pruneDeadNodes(m, diags));
  CHECK(m.ctx.size() == 1);
}

TEST_CASE("after the pipeline no node is dead: folding leftovers are gone") {
  auto c = test::compileText("const a = 2.0 * 3.0;\nstencil s(i) { in u; out o; o = u * (a + 1) - u[i+1] * 0; }");
  REQUIRE_MESSAGE(c->module, c->diagText());
  const dag::Module& m = *c->module;
  // Live: u[0], 7, mul, u[1], 0, mul, sub. The consts 2, 3 and 6 were folded away.
  CHECK(m.ctx.size() == 7);
  CHECK(dag::liveNodes(m.ctx, m.kernels[0]).size() == m.ctx.size());
  CHECK(test::outputTree(*c, "s", "o") == "((u[0] * 7) - (u[1] * 0))");
}
