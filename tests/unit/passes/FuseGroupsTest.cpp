// passes/FuseGroups: a group becomes one kernel with merged fields, params, outputs, swaps and
// boundary rules; a field written by one member and used by another is an error.
#include <doctest/doctest.h>

#include <map>

#include "unit/DagText.h"
#include "passes/FuseGroups.h"

using namespace stnc;

namespace {

std::vector<std::string> fieldList(const dag::Kernel& k) {
  std::vector<std::string> out;
  for (const dag::Field& f : k.fields) out.push_back(std::string(dag::roleName(f.role)) + " " + f.name);
  return out;
}

}  // namespace

TEST_CASE("fields are merged by name in first-appearance order, params likewise") {
  auto c = test::compileText(
      "stencil sA(i, j, k) { in u; out la; param dt; la = dt * u[i+1,j,k]; }\n"
      "stencil sB(i, j, k) { in v, u; out bs; param h, dt; bs = h * dt * u[i+1,j,k] * v; }\n"
      "group both = sA, sB;\n");
  REQUIRE_MESSAGE(c->module, c->diagText());
  const dag::Kernel& g = test::kernelOf(*c, "both");
  CHECK(g.isGroup);
  CHECK(g.members == std::vector<std::string>{"sA", "sB"});
  CHECK(g.axes == std::vector<std::string>{"i", "j", "k"});
  CHECK(fieldList(g) == std::vector<std::string>{"in u", "out la", "in v", "out bs"});
  CHECK(g.params == std::vector<std::string>{"dt", "h"});
  REQUIRE(g.outputs.size() == 2);
  CHECK(g.outputs[0].field == "la");
  CHECK(g.outputs[1].field == "bs");
}

TEST_CASE("outputs are concatenated in member order, not declaration order of the file") {
  auto c = test::compileText(
      "stencil sA(i) { in u; out a; a = u; }\n"
      "stencil sB(i) { in u; out b; b = u[i+1]; }\n"
      "group g = sB, sA;\n");
  REQUIRE_MESSAGE(c->module, c->diagText());
  const dag::Kernel& g = test::kernelOf(*c, "g");
  REQUIRE(g.outputs.size() == 2);
  CHECK(g.outputs[0].field == "b");
  CHECK(g.outputs[1].field == "a");
  CHECK(fieldList(g) == std::vector<std::string>{"in u", "out b", "out a"});
}

TEST_CASE("the group takes the element type of its members") {
  auto c = test::compileText(
      "stencil sA(i) : f32 { in u; out a; a = u; }\n"
      "stencil sB(i) : f32 { in u; out b; b = u; }\n"
      "group g = sA, sB;\n");
  REQUIRE_MESSAGE(c->module, c->diagText());
  CHECK(test::kernelOf(*c, "g").type == dag::ElemType::F32);
}

TEST_CASE("identical swaps and boundary rules of members are kept once") {
  auto c = test::compileText(
      "stencil sA(i) { in u; inout v; swap u, v; boundary u = periodic; v = u; }\n"
      "stencil sB(i) { in u; out w; boundary u = periodic; w = u[i+1]; }\n"
      "group g = sA, sB;\n");
  REQUIRE_MESSAGE(c->module, c->diagText());
  const dag::Kernel& g = test::kernelOf(*c, "g");
  CHECK(g.swaps.size() == 1);
  CHECK(g.boundaries.size() == 1);
}

TEST_CASE("a field written by one member and read by another is an error") {
  auto c = test::compileText(
      "stencil sA(i) { in u; out x; x = u; }\n"
      "stencil sB(i) { in x; out y; y = x[i+1]; }\n"
      "group g = sA, sB;\n");
  CHECK_FALSE(c->module);
  CHECK(test::diagsOf(*c, Severity::Error) ==
        std::vector<std::string>{"3:7: in group 'g', field 'x' is written by 'sA' and used by 'sB'"});
}

TEST_CASE("the conflict is found whichever member comes first") {
  auto c = test::compileText(
      "stencil sA(i) { in u; out x; x = u; }\n"
      "stencil sB(i) { in x; out y; y = x[i+1]; }\n"
      "group g = sB, sA;\n");
  CHECK_FALSE(c->module);
  CHECK(test::diagsOf(*c, Severity::Error) ==
        std::vector<std::string>{"3:7: in group 'g', field 'x' is written by 'sA' and used by 'sB'"});
}

TEST_CASE("two members writing the same field is an error") {
  auto c = test::compileText(
      "stencil sA(i) { in u; out x; x = u; }\n"
      "stencil sB(i) { in u; out x; x = u[i+1]; }\n"
      "group g = sA, sB;\n");
  CHECK_FALSE(c->module);
  CHECK(test::diagsOf(*c, Severity::Error) ==
        std::vector<std::string>{"3:7: in group 'g', field 'x' is written by 'sA' and used by 'sB'"});
}

TEST_CASE("fuseGroups fills each group once") {
  auto c = test::compileText(
      "stencil sA(i) { in u; out a; a = u; }\n"
      "group g = sA;\n");
  REQUIRE_MESSAGE(c->module, c->diagText());
  dag::Module& m = *c->module;
  size_t outputs = test::kernelOf(*c, "g").outputs.size();
  CHECK(outputs == 1);
  CHECK_FALSE(passes::fuseGroups(m, c->diags));
  CHECK(test::kernelOf(*c, "g").outputs.size() == outputs);
}

// Regression (fixed): FuseGroups united the boundary rules of the members without checking them
// against each other, so a fused kernel could carry two different rules for the same field and
// axis (here periodic and clamp for u along i), and which one won depended on the fill order.
TEST_CASE("members with different boundary rules for one field do not fuse silently") {
  auto c = test::compileText(
      "stencil sA(i) { in u; out a; boundary u = periodic; a = u[i+1]; }\n"
      "stencil sB(i) { in u; out b; boundary u = clamp; b = u[i-1]; }\n"
      "group g = sA, sB;\n");
  CHECK_FALSE(c->module);
  CHECK(test::diagsOf(*c, Severity::Error) ==
        std::vector<std::string>{"3:7: in group 'g', field 'u' has different boundary rules along axis 'i': periodic in "
                                 "'sA', clamp in 'sB'"});
  // Notes point at both boundary statements.
  REQUIRE(c->diags.all().size() == 1);
  const auto& notes = c->diags.all()[0].notes;
  REQUIRE(notes.size() == 2);
  CHECK(notes[0].loc.line == 1);
  CHECK(notes[0].message == "'sA' sets it here");
  CHECK(notes[1].loc.line == 2);
  CHECK(notes[1].message == "'sB' sets it here");
}

TEST_CASE("value rules with different values conflict, equal values merge") {
  auto bad = test::compileText(
      "stencil sA(i, j) { in u; out a; param p; boundary u = value(p); a = u[i+1,j]; }\n"
      "stencil sB(i, j) { in u; out b; param p; boundary u(j) = value(2 * p); b = u[i,j-1]; }\n"
      "group g = sA, sB;\n");
  CHECK_FALSE(bad->module);
  CHECK(test::diagsOf(*bad, Severity::Error) ==
        std::vector<std::string>{"3:7: in group 'g', field 'u' has different boundary rules along axis 'j': value(...) in "
                                 "'sA', value(...) with another value in 'sB'"});
  auto good = test::compileText(
      "stencil sA(i, j) { in u; out a; param p; boundary u = value(p + 1); a = u[i+1,j]; }\n"
      "stencil sB(i, j) { in u; out b; param p; boundary u(j) = value(p + 1); b = u[i,j-1]; }\n"
      "group g = sA, sB;\n");
  REQUIRE_MESSAGE(good->module, good->diagText());
  CHECK(test::kernelOf(*good, "g").boundaries.size() == 1);
}

TEST_CASE("rules of members that agree are merged per axis, never twice for one axis") {
  auto c = test::compileText(
      "stencil sA(i, j) { in u, w; out a; boundary u(i) = periodic; boundary w = mirror; a = u[i+1,j] + w[i,j+1]; }\n"
      "stencil sB(i, j) { in u, w; out b; boundary u = periodic; boundary w(j) = mirror; b = u[i-1,j-1] + w[i-1,j]; }\n"
      "group g = sA, sB;\n");
  REQUIRE_MESSAGE(c->module, c->diagText());
  const dag::Kernel& g = test::kernelOf(*c, "g");
  std::map<std::string, unsigned> seen;
  for (const dag::Boundary& b : g.boundaries) {
    CHECK((seen[b.field] & b.axisMask) == 0u);
    seen[b.field] |= b.axisMask;
    CHECK(b.kind == (b.field == "u" ? dag::BoundaryKind::Periodic : dag::BoundaryKind::Mirror));
  }
  CHECK(seen["u"] == 3u);  // i from sA, j added by sB
  CHECK(seen["w"] == 3u);
  CHECK(g.boundaries.size() == 3);  // u(i), w(i,j), u(j)
}
