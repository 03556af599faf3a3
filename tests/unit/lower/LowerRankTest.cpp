// Lower-rank input fields (`in c(k);`, docs/EXTENSIONS.md) through the front end and the passes: Broadcast
// nodes, shifts along the field's own axes only, hash-consing, the footprint and halo, the printers, and the
// backends' reads.
#include <doctest/doctest.h>

#include "codegen/Backends.h"
#include "dag/Printer.h"
#include "unit/DagText.h"

#include <sstream>

using namespace stnc;
using test::compileText;
using test::outputTree;

TEST_CASE("a lower-rank field is read by its own axes and a def shift moves it along those only") {
  auto c = compileText(
      "def dx(f) = f[i+1,j,k] - f[i-1,j,k];\n"
      "def dz(f) = f[i,j,k+1] - f[i,j,k-1];\n"
      "stencil s(i, j, k) { in u, cx(i), cz(k), m(i, k); out o;\n"
      "  o = dx(cx * u) + dz(cx) + m[i-1, k+2] * cz; }\n");
  REQUIRE_MESSAGE(c->module, c->diagText());
  CHECK(outputTree(*c, "s", "o") ==
        "((((cx[1,_,_] * u[1,0,0]) - (cx[-1,_,_] * u[-1,0,0])) + (cx[0,_,_] - cx[0,_,_])) + (m[-1,_,2] * cz[_,_,0]))");
  const dag::Kernel& k = test::kernelOf(*c, "s");
  CHECK(k.field("cx")->axes == 1u);
  CHECK(k.field("cz")->axes == 4u);
  CHECK(k.field("m")->axes == 5u);
  CHECK(k.field("u")->axes == 0u);
  CHECK(dag::fieldDims(k, *k.field("m")) == 5u);
}

TEST_CASE("broadcast nodes are hash-consed on field, axes and offset") {
  dag::Context ctx;
  const dag::Symbol c = ctx.intern("c");
  dag::Offset o;
  o.d[2] = 1;
  const dag::NodeId a = ctx.broadcast(c, 4u, o), b = ctx.broadcast(c, 4u, o);
  CHECK(a == b);
  CHECK(ctx.access(c, o) != a);
  CHECK(ctx.broadcast(c, 5u, o) != a);
  CHECK(ctx.node(a).isLoad());
  CHECK(ctx.node(a).operandCount() == 0);
  CHECK(dag::maskOffset(dag::Offset{{3, 2, 1}}, 4u) == o);
}

TEST_CASE("a lower-rank field's reach counts in the halo along its axes") {
  auto c = compileText("stencil s(i, j) : f32 { in u, g(j); out o; o = u[i+1, j] + g[j-3] + g[j+2]; }\n");
  REQUIRE_MESSAGE(c->module, c->diagText());
  const dag::Kernel& k = test::kernelOf(*c, "s");
  CHECK(k.footprint.halo[0] == 1);
  CHECK(k.footprint.halo[1] == 3);
  bool found = false;
  for (const dag::FieldFootprint& f : k.footprint.fields)
    if (f.field == "g") {
      found = true;
      CHECK(f.lo[1] == -3);
      CHECK(f.hi[1] == 2);
      CHECK(f.lo[0] == 0);
      CHECK(f.accesses == 2);
    }
  CHECK(found);
}

TEST_CASE("printers show a lower-rank field's axes, and the backends read it at the point's coordinates") {
  // A star along i and j: the CUDA stream schedule (a tile of 4 points per thread), whose lanes past the box's
  // edge read clamped; cz does not vary along i, so it is read once before the plane loop, cx inside it.
  auto c = compileText(
      "stencil s(i, j, k) : f32 { in u, cx(i), cz(k); out o;\n"
      "  o = cz[k-1] * (u[i-1,j,k] + u[i+1,j,k] + u[i,j+1,k]) + cx[i+1] * u; }\n");
  REQUIRE_MESSAGE(c->module, c->diagText());
  std::ostringstream text, json;
  dag::printText(text, *c->module);
  CHECK(text.str().find("in cz(k)") != std::string::npos);
  CHECK(text.str().find("broadcast cz[_,_,-1]") != std::string::npos);
  dag::printJson(json, *c->module);
  CHECK(json.str().find("\"broadcast\": \"cz\"") != std::string::npos);
  codegen::GenOptions go;
  const std::string cpp = codegen::generateCpp(*c->module, go), cu = codegen::generateCuda(*c->module, go),
                    h = codegen::generateHeader(*c->module, go);
  CHECK(cpp.find("cz[stnc_rt::lowerAt<4u, false>(L_, 0, 0, z_ - 1)]") != std::string::npos);  // CPU: no clamp
  const size_t hoisted = cu.find("cz[stnc_rt::lowerAt<4u, true>(L_, 0, 0, z_ - 1)]");      // CUDA stream: clamped
  const size_t loop = cu.find("for (long x_ = x0_;");
  REQUIRE(hoisted != std::string::npos);
  REQUIRE(loop != std::string::npos);
  CHECK(hoisted < loop);  // read once per thread, before the first plane loop
  // varies along i: read in the loop, i left unclamped (the plane loop stays inside the box; j and k are clamped)
  const size_t perPlane = cu.find("cx[stnc_rt::lowerAt<1u, true, 1u>(L_, x_ + 1, 0, 0)]");
  REQUIRE(perPlane != std::string::npos);
  CHECK(perPlane > loop);
  CHECK(cu.find("lowerAt<1u, true>") == std::string::npos);
  CHECK(h.find("kFieldDims[kFieldCount] = {0u, 1u, 4u, 0u}") != std::string::npos);
}
