// passes/Footprint: per-field, per-axis, per-side reach of every kernel and the symmetric halo.
#include <doctest/doctest.h>

#include "unit/DagText.h"
#include "passes/Footprint.h"

using namespace stnc;

namespace {

const dag::FieldFootprint* fieldFp(const dag::Kernel& k, const std::string& f) {
  for (const dag::FieldFootprint& ff : k.footprint.fields)
    if (ff.field == f) return &ff;
  return nullptr;
}

using A3 = std::array<int, 3>;

}  // namespace

TEST_CASE("footprint is per field, per axis and per side - the halo is symmetric") {
  auto c = test::compileText(
      "stencil s(i, j, k) { in u, v; out la;\n"
      "  la = u[i-1,j,k] + u[i,j,k+2] + v[i,j+3,k] + v[i,j-1,k]; }");
  REQUIRE_MESSAGE(c->module, c->diagText());
  const dag::Kernel& k = test::kernelOf(*c, "s");
  const dag::FieldFootprint* u = fieldFp(k, "u");
  const dag::FieldFootprint* v = fieldFp(k, "v");
  REQUIRE(u);
  REQUIRE(v);
  CHECK(u->lo == A3{-1, 0, 0});
  CHECK(u->hi == A3{0, 0, 2});
  CHECK(v->lo == A3{0, -1, 0});
  CHECK(v->hi == A3{0, 3, 0});
  // halo per axis = the largest reach in either direction over all fields.
  CHECK(k.footprint.halo == A3{1, 3, 2});
}

TEST_CASE("only read fields have a footprint, in field declaration order") {
  auto c = test::compileText("stencil s(i) { in b, a; out o; inout w; o = a[i+1] + b; w = w * 2; }");
  REQUIRE_MESSAGE(c->module, c->diagText());
  const dag::Kernel& k = test::kernelOf(*c, "s");
  REQUIRE(k.footprint.fields.size() == 3);
  CHECK(k.footprint.fields[0].field == "b");
  CHECK(k.footprint.fields[1].field == "a");
  CHECK(k.footprint.fields[2].field == "w");
  CHECK(fieldFp(k, "o") == nullptr);
  CHECK(k.footprint.halo == A3{1, 0, 0});
}

TEST_CASE("accesses counts distinct loads, not uses") {
  auto c = test::compileText("stencil s(i) { in u, z; out o; o = u[i+1] * u[i+1] + u[i-1] + u + u[i+1]; }");
  REQUIRE_MESSAGE(c->module, c->diagText());
  const dag::Kernel& k = test::kernelOf(*c, "s");
  CHECK(fieldFp(k, "u")->accesses == 3);
  // An unread input has an empty footprint (and a warning, see CheckUnusedTest).
  const dag::FieldFootprint* z = fieldFp(k, "z");
  REQUIRE(z);
  CHECK(z->accesses == 0);
  CHECK(z->lo == A3{0, 0, 0});
  CHECK(z->hi == A3{0, 0, 0});
}

TEST_CASE("a one-sided reach gives a halo on both sides") {
  auto c = test::compileText("stencil s(i, j) { in u; out o; o = u[i, j+4]; }");
  REQUIRE_MESSAGE(c->module, c->diagText());
  const dag::Kernel& k = test::kernelOf(*c, "s");
  CHECK(fieldFp(k, "u")->lo == A3{0, 0, 0});
  CHECK(fieldFp(k, "u")->hi == A3{0, 4, 0});
  CHECK(k.footprint.halo == A3{0, 4, 0});
}

TEST_CASE("a group's footprint spans all its members") {
  auto c = test::compileText(
      "stencil a(i, j) { in u; out x; x = u[i-2, j]; }\n"
      "stencil b(i, j) { in u, v; out y; y = u[i+1, j] + v[i, j+1]; }\n"
      "group g = a, b;\n");
  REQUIRE_MESSAGE(c->module, c->diagText());
  CHECK(test::kernelOf(*c, "a").footprint.halo == A3{2, 0, 0});
  CHECK(test::kernelOf(*c, "b").footprint.halo == A3{1, 1, 0});
  const dag::Kernel& g = test::kernelOf(*c, "g");
  CHECK(fieldFp(g, "u")->lo == A3{-2, 0, 0});
  CHECK(fieldFp(g, "u")->hi == A3{1, 0, 0});
  CHECK(fieldFp(g, "u")->accesses == 2);
  CHECK(g.footprint.halo == A3{2, 1, 0});
}

TEST_CASE("footprints come from the equations after def and sum expansion") {
  auto c = test::compileText(
      "def d(f) = sum(m in 1..4) (f[i+m] - f[i-m]);\n"
      "stencil s(i) { in u; out o; o = d(u[i+1]); }");
  REQUIRE_MESSAGE(c->module, c->diagText());
  const dag::Kernel& k = test::kernelOf(*c, "s");
  CHECK(fieldFp(k, "u")->lo == A3{-3, 0, 0});
  CHECK(fieldFp(k, "u")->hi == A3{5, 0, 0});
  CHECK(fieldFp(k, "u")->accesses == 8);
  CHECK(k.footprint.halo == A3{5, 0, 0});
}

TEST_CASE("computeFootprints is idempotent and footprintOf agrees with it") {
  auto c = test::compileText("stencil s(i) { in u; out o; o = u[i-3]; }");
  REQUIRE_MESSAGE(c->module, c->diagText());
  dag::Module& m = *c->module;
  CHECK_FALSE(passes::computeFootprints(m, c->diags));
  dag::Footprint fp = passes::footprintOf(m.ctx, m.kernels[0]);
  CHECK(fp.halo == m.kernels[0].footprint.halo);
  CHECK(fp.halo == A3{3, 0, 0});
  // Clearing the result makes the pass report a change again.
  m.kernels[0].footprint = {};
  CHECK(passes::computeFootprints(m, c->diags));
  CHECK(m.kernels[0].footprint.halo == A3{3, 0, 0});
}
