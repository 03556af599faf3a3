// passes/FuseGroups: a group becomes one kernel with merged fields, params, outputs, swaps and
// boundary rules; a field written by one member and used by another is an error.
#include <doctest/doctest.h>

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

// BUG: FuseGroups unites the boundary rules of the members without checking them against each
// other, so a fused kernel can carry two different rules for the same field and axis (here
// periodic and clamp for u along i). Which one wins then depends on the fill order. Each member
// alone is valid; the group should be rejected (like err_group_conflict) or the rules reconciled.
TEST_CASE("members with different boundary rules for one field do not fuse silently" * doctest::skip()) {
  auto c = test::compileText(
      "stencil sA(i) { in u; out a; boundary u = periodic; a = u[i+1]; }\n"
      "stencil sB(i) { in u; out b; boundary u = clamp; b = u[i-1]; }\n"
      "group g = sA, sB;\n");
  if (c->module) {
    const dag::Kernel& g = test::kernelOf(*c, "g");
    unsigned seen = 0;
    bool overlap = false;
    for (const dag::Boundary& b : g.boundaries) {
      overlap |= (seen & b.axisMask) != 0;
      seen |= b.axisMask;
    }
    CHECK_FALSE(overlap);
  } else {
    CHECK(c->diags.errorCount() >= 1);
  }
}
