// lower/AstToDag: def expansion with shifted arguments, sum/offset unrolling in source order,
// lets, const arrays, exact float64 constant folding, f32 stencils, and node sharing.
#include <doctest/doctest.h>

#include "unit/DagText.h"

using namespace stnc;
using test::compileText;
using test::outputTree;

namespace {

// Compiles `text` and returns the tree of `out` in stencil `s` (empty + a failed check on errors).
std::string lowered(const std::string& text, const std::string& out = "o", const std::string& s = "s") {
  auto c = compileText(text);
  REQUIRE_MESSAGE(c->module, c->diagText());
  return outputTree(*c, s, out);
}

std::vector<std::string> terms(const std::string& text, const std::string& out = "o") {
  auto c = compileText(text);
  REQUIRE_MESSAGE(c->module, c->diagText());
  const dag::Kernel& k = test::kernelOf(*c, "s");
  return test::sumTerms(c->module->ctx, test::outputNode(*c, "s", out), k.rank());
}

const char* k3 = "stencil s(i, j, k) { in a, b, u, v; out o; ";

}  // namespace

TEST_CASE("shifting a def parameter shifts every access inside the argument") {
  auto c = compileText(
      "def dx(f) = f[i+1,j,k] - f[i-1,j,k];\n"
      "stencil s(i, j, k) { in a, b; out o; o = dx(a * b); }\n");
  REQUIRE_MESSAGE(c->module, c->diagText());
  CHECK(outputTree(*c, "s", "o") == "((a[1,0,0] * b[1,0,0]) - (a[-1,0,0] * b[-1,0,0]))");
  CHECK(test::accesses(c->module->ctx, test::outputNode(*c, "s", "o"), 3) ==
        std::set<std::string>{"a[1,0,0]", "b[1,0,0]", "a[-1,0,0]", "b[-1,0,0]"});
}

TEST_CASE("an argument that is itself shifted composes with the shift inside the def") {
  CHECK(lowered("def dx(f) = f[i+1,j,k] - f[i-1,j,k];\n" + std::string(k3) + "o = dx(u[i,j+2,k-1]); }") ==
        "(u[1,2,-1] - u[-1,2,-1])");
  // A bare parameter is the argument at the current shift.
  CHECK(lowered("def avg(f) = 0.5 * (f + f[i+1,j,k]);\n" + std::string(k3) + "o = avg(u[i,j+1,k]); }") ==
        "(0.5 * (u[0,1,0] + u[1,1,0]))");
}

TEST_CASE("nested defs compose their shifts") {
  std::string defs =
      "def dx(f) = f[i+1,j,k] - f[i-1,j,k];\n"
      "def dy(f) = f[i,j+1,k] - f[i,j-1,k];\n"
      "def dxy(f) = dx(dy(f));\n";
  CHECK(lowered(defs + k3 + "o = dx(dy(u)); }") == "((u[1,1,0] - u[1,-1,0]) - (u[-1,1,0] - u[-1,-1,0]))");
  CHECK(lowered(defs + k3 + "o = dxy(u); }") == "((u[1,1,0] - u[1,-1,0]) - (u[-1,1,0] - u[-1,-1,0]))");
  // A def whose body calls another def, shifted.
  CHECK(lowered(defs + "def sdx(f) = dx(f[i,j,k+1]);\n" + k3 + "o = sdx(u); }") == "(u[1,0,1] - u[-1,0,1])");
}

// dx(dx(u)): the inner call is part of the caller's argument, evaluated inside the outer
// expansion; it must not be mistaken for recursion.
TEST_CASE("a def applied to its own result is not recursion") {
  std::string dx = "def dx(f) = f[i+1,j,k] - f[i-1,j,k];\n";
  CHECK(lowered(dx + k3 + "o = dx(dx(u)); }") == "((u[2,0,0] - u[0,0,0]) - (u[0,0,0] - u[-2,0,0]))");
  CHECK(lowered(dx + "def dxx(f) = dx(dx(f));\n" + k3 + "o = dxx(u); }") ==
        "((u[2,0,0] - u[0,0,0]) - (u[0,0,0] - u[-2,0,0]))");
}

TEST_CASE("a def argument is evaluated in the caller's scope, the body in the def's own") {
  // The caller's sum index m is visible in the argument...
  CHECK(lowered("def dx(f) = f[i+1,j,k] - f[i-1,j,k];\n" + std::string(k3) +
                "o = sum(m in 1..2) dx(u[i+m,j,k]); }") ==
        "((u[2,0,0] - u[0,0,0]) + (u[3,0,0] - u[1,0,0]))");
  // ...but not in the def body (lexical scope).
  auto c = compileText("def g(f) = f * m;\n" + std::string(k3) + "o = sum(m in 1..2) g(u); }");
  CHECK_FALSE(c->module);
  CHECK(c->diagText().find("use of undeclared name 'm'") != std::string::npos);
}

TEST_CASE("a def with a sum inside is unrolled at each shift") {
  CHECK(lowered("const w = [0, 10, 20];\n"
                "def d(f) = sum(m in 1..2) w[m] * f[i+m,j,k];\n" +
                std::string(k3) + "o = d(a[i,j,k+1]); }") ==
        "((10 * a[1,0,1]) + (20 * a[2,0,1]))");
}

TEST_CASE("defs can be used in global consts") {
  CHECK(lowered("def sq(x) = x * x;\nconst c = sq(3) + 1;\n" + std::string(k3) + "o = c * u; }") ==
        "(10 * u[0,0,0])");
}

TEST_CASE("sum is unrolled left to right, nested sums with the outer index outermost") {
  CHECK(terms("const c = [0, 1.5, 2.5, 3.5];\n" + std::string(k3) + "o = sum(m in 1..3) c[m] * u[i+m,j,k]; }") ==
        std::vector<std::string>{"(1.5 * u[1,0,0])", "(2.5 * u[2,0,0])", "(3.5 * u[3,0,0])"});
  CHECK(lowered(std::string(k3) + "o = sum(m in 1..2) sum(n in 0..1) u[i+m,j+n,k]; }") ==
        "((u[1,0,0] + u[1,1,0]) + (u[2,0,0] + u[2,1,0]))");
  // Bounds may be negative and use consts.
  CHECK(terms("const R = 1;\n" + std::string(k3) + "o = sum(m in -R..R) u[i,j,k+m]; }") ==
        std::vector<std::string>{"u[0,0,-1]", "u[0,0,0]", "u[0,0,1]"});
}

TEST_CASE("an empty sum is 0 and a sum index used as a value is that integer") {
  CHECK(lowered(std::string(k3) + "o = u + sum(m in 3..2) u[i+m,j,k]; }") == "(u[0,0,0] + 0)");
  CHECK(lowered("const sq = sum(m in 1..4) m * m;\n" + std::string(k3) + "o = sq * u; }") == "(30 * u[0,0,0])");
  CHECK(lowered(std::string(k3) + "o = sum(m in -2..-1) abs(m) * u; }") == "((2 * u[0,0,0]) + (1 * u[0,0,0]))");
}

TEST_CASE("box(R) and star(R) expand for the rank of the stencil, in lexicographic order") {
  std::string box = "offsets b1 = box(1);\n";
  CHECK(terms(box + "stencil s(i) { in u; out o; o = sum(q in b1) u[q]; }") ==
        std::vector<std::string>{"u[-1]", "u[0]", "u[1]"});
  CHECK(terms(box + "stencil s(i, j) { in u; out o; o = apply(b1, u); }") ==
        std::vector<std::string>{"u[-1,-1]", "u[-1,0]", "u[-1,1]", "u[0,-1]", "u[0,0]", "u[0,1]", "u[1,-1]",
                                 "u[1,0]", "u[1,1]"});
  auto t3 = terms(box + std::string(k3) + "o = apply(b1, u); }");
  REQUIRE(t3.size() == 27);
  CHECK(t3.front() == "u[-1,-1,-1]");
  CHECK(t3.back() == "u[1,1,1]");
  // star: the centre, then each axis from -R to R.
  CHECK(terms("offsets s2 = star(2);\nstencil s(i, j) { in u; out o; o = apply(s2, u); }") ==
        std::vector<std::string>{"u[0,0]", "u[-2,0]", "u[-1,0]", "u[1,0]", "u[2,0]", "u[0,-2]", "u[0,-1]", "u[0,1]",
                                 "u[0,2]"});
  CHECK(terms("offsets z = box(0);\nstencil s(i, j) { in u; out o; o = apply(z, u); }") ==
        std::vector<std::string>{"u[0,0]"});
}

TEST_CASE("explicit offsets carry weights - weight 1 adds no multiplication") {
  std::string lap = "offsets lap = { [0,0,0]: -6.0, [-1,0,0], [1,0,0]: 2 };\n";
  CHECK(terms(lap + k3 + "o = apply(lap, u); }") ==
        std::vector<std::string>{"(-6 * u[0,0,0])", "u[-1,0,0]", "(2 * u[1,0,0])"});
  CHECK(terms(lap + k3 + "o = sum(q in lap) weight(q) * u[q]; }") ==
        std::vector<std::string>{"(-6 * u[0,0,0])", "(1 * u[-1,0,0])", "(2 * u[1,0,0])"});
  // apply shifts the whole expression, like a def parameter.
  CHECK(terms(lap + k3 + "o = apply(lap, a * b); }") ==
        std::vector<std::string>{"(-6 * (a[0,0,0] * b[0,0,0]))", "(a[-1,0,0] * b[-1,0,0])",
                                 "(2 * (a[1,0,0] * b[1,0,0]))"});
}

TEST_CASE("offset weights and coordinates are compile-time expressions folded in float64") {
  auto c = compileText("const R = 2;\noffsets w = { [R]: 1.0/3.0 };\nstencil s(i) { in u; out o; o = sum(q in w) weight(q); }");
  REQUIRE_MESSAGE(c->module, c->diagText());
  dag::NodeId id = test::outputNode(*c, "s", "o");
  REQUIRE(c->module->ctx.isConst(id));
  CHECK(c->module->ctx.node(id).value == 1.0 / 3.0);
  CHECK(terms("const R = 2;\noffsets w = { [R], [-R] };\nstencil s(i) { in u; out o; o = sum(q in w) u[q]; }") ==
        std::vector<std::string>{"u[2]", "u[-2]"});
}

TEST_CASE("an offset variable inside a def argument is resolved in the caller") {
  CHECK(terms("offsets p = { [1,0,0], [0,0,1] };\ndef sh(f) = f[i,j+1,k];\n" + std::string(k3) +
              "o = sum(q in p) sh(u[q]); }") == std::vector<std::string>{"u[1,1,0]", "u[0,1,1]"});
}

TEST_CASE("a let is one node shared by every use - an indexed let is shifted") {
  auto c = compileText(
      "stencil s(i, j, k) { in a, b; out x, y, z;\n"
      "  let g = a[i+1,j,k] - a[i-1,j,k];\n"
      "  x = g * b; y = g + 1; z = g[i,j+1,k]; }");
  REQUIRE_MESSAGE(c->module, c->diagText());
  const dag::Context& ctx = c->module->ctx;
  dag::NodeId x = test::outputNode(*c, "s", "x"), y = test::outputNode(*c, "s", "y");
  CHECK(ctx.node(x).operands[0] == ctx.node(y).operands[0]);
  CHECK(outputTree(*c, "s", "z") == "(a[1,1,0] - a[-1,1,0])");
}

TEST_CASE("lets may use other lets and params") {
  CHECK(lowered("stencil s(i) { in u; out o; param w; let t = u * w; let r = t + t[i-1]; o = r; }") ==
        "((u[0] * w) + (u[-1] * w))");
}

TEST_CASE("const arrays are indexed with compile-time integers") {
  std::string arr = "const c = [1.0, 2.0, 1.0/3.0];\nconst two = 2;\n";
  CHECK(lowered(arr + "stencil s(i) { in u; out o; o = c[two] * u + c[1 - 1]; }") == "((" + test::num(1.0 / 3.0) +
                                                                                          " * u[0]) + 1)");
  auto c = compileText(arr + "stencil s(i) { in u; out o; o = c[2]; }");
  REQUIRE_MESSAGE(c->module, c->diagText());
  CHECK(c->module->ctx.node(test::outputNode(*c, "s", "o")).value == 1.0 / 3.0);
}

TEST_CASE("constants fold exactly in float64 and in source order") {
  auto value = [](const std::string& expr) {
    auto c = compileText("const x = " + expr + ";\nstencil s(i) { in u; out o; o = x; }");
    REQUIRE_MESSAGE(c->module, c->diagText());
    dag::NodeId id = test::outputNode(*c, "s", "o");
    REQUIRE(c->module->ctx.isConst(id));
    return c->module->ctx.node(id).value;
  };
  CHECK(value("1.0/3.0") == 1.0 / 3.0);
  CHECK(value("1.0/3.0") != static_cast<double>(static_cast<float>(1.0 / 3.0)));
  CHECK(value("1/3") == 1.0 / 3.0);  // integer literals are reals, / is real division
  CHECK(value("0.1 * 3") == 0.1 * 3.0);
  CHECK(value("0.1 * 3") != 0.3);  // really evaluated, not re-read from decimal
  CHECK(value("(0.1 + 0.2) + 0.3") == (0.1 + 0.2) + 0.3);
  CHECK(value("0.1 + (0.2 + 0.3)") == 0.1 + (0.2 + 0.3));
  CHECK(value("(0.1 + 0.2) + 0.3") != value("0.1 + (0.2 + 0.3)"));
  CHECK(value("sqrt(2)") == std::sqrt(2.0));
  CHECK(value("pow(2, 10) - max(1, 3) + min(-1, 4) + floor(-1.5) + ceil(1.2) + abs(-7)") ==
        1024.0 - 3.0 - 1.0 - 2.0 + 2.0 + 7.0);
  CHECK(value("select(1 < 2 && !(3 <= 2), 4, 5)") == 4.0);
  CHECK(value("-0x1.8p-2") == -0.375);
}

TEST_CASE("the lowering never reassociates: constants after a field stay separate") {
  CHECK(lowered("stencil s(i) { in u; out o; o = u * 2.0 * 3.0; }") == "((u[0] * 2) * 3)");
  CHECK(lowered("stencil s(i) { in u; out o; o = 2.0 * 3.0 * u; }") == "(6 * u[0])");
  CHECK(lowered("const nu = 0.1;\nstencil s(i) { in u; out o; param dt; o = u + nu * dt * u[i-1]; }") ==
        "(u[0] + ((0.1 * dt) * u[-1]))");
}

TEST_CASE("f32 stencils keep constants folded in float64") {
  auto c = compileText("stencil s(i) : f32 { in u; out o; o = (1.0/3.0) * u; }");
  REQUIRE_MESSAGE(c->module, c->diagText());
  CHECK(test::kernelOf(*c, "s").type == dag::ElemType::F32);
  const dag::Context& ctx = c->module->ctx;
  dag::NodeId k = ctx.node(test::outputNode(*c, "s", "o")).operands[0];
  REQUIRE(ctx.isConst(k));
  CHECK(ctx.node(k).value == 1.0 / 3.0);
}

TEST_CASE("select and comparisons lower to typed nodes") {
  auto c = compileText("stencil s(i) { in a, b; out m; m = select(abs(a) > 0.5 || b != 0, max(a, b), -a); }");
  REQUIRE_MESSAGE(c->module, c->diagText());
  CHECK(outputTree(*c, "s", "m") == "select(((abs(a[0]) > 0.5) || (b[0] != 0)), max(a[0], b[0]), -a[0])");
  const dag::Context& ctx = c->module->ctx;
  CHECK(ctx.node(ctx.node(test::outputNode(*c, "s", "m")).operands[0]).type == dag::Type::Bool);
}

TEST_CASE("bare field names are the access at offset zero, in every rank") {
  CHECK(lowered("stencil s(i) { in u; out o; o = u; }") == "u[0]");
  CHECK(lowered("stencil s(x, y) { in u; out o; o = u + u[x, y-1]; }") == "(u[0,0] + u[0,-1])");
  CHECK(lowered(std::string(k3) + "o = u[i+1+1, j-1+3, k-(-2)]; }") == "u[2,2,2]");
}

TEST_CASE("each distinct (field, offset) is one node, shared across a group's members") {
  auto c = compileText(
      "stencil sA(i, j, k) { in u; out la; la = u[i+1,j,k] + u[i-1,j,k]; }\n"
      "stencil sB(i, j, k) { in u, v; out bs; bs = u[i+1,j,k] * v + u[i+1,j,k]; }\n"
      "group both = sA, sB;\n");
  REQUIRE_MESSAGE(c->module, c->diagText());
  const dag::Context& ctx = c->module->ctx;
  // u[1,0,0] u[-1,0,0] v[0,0,0]: three distinct loads for the whole file.
  CHECK(test::accessNodeCount(ctx) == 3);
  dag::NodeId la = test::outputNode(*c, "sA", "la"), bs = test::outputNode(*c, "sB", "bs");
  CHECK(ctx.node(la).operands[0] == ctx.node(ctx.node(bs).operands[0]).operands[0]);
  const dag::Kernel& g = test::kernelOf(*c, "both");
  REQUIRE(g.outputs.size() == 2);
  CHECK(g.outputs[0].value == la);
  CHECK(g.outputs[1].value == bs);
}

TEST_CASE("outputs follow the field declaration order, not the equation order") {
  auto c = compileText("stencil s(i) { in u; out p, q; q = u; p = u[i+1]; }");
  REQUIRE_MESSAGE(c->module, c->diagText());
  const dag::Kernel& k = test::kernelOf(*c, "s");
  REQUIRE(k.outputs.size() == 2);
  CHECK(k.outputs[0].field == "p");
  CHECK(k.outputs[1].field == "q");
  CHECK(k.outputs[1].text == "q = u;");
}

TEST_CASE("boundary values are scalar expressions of consts and params") {
  auto c = compileText("const c0 = 0.5;\nstencil s(i, j) { in u; out o; param w;\n"
                       "  boundary u(j) = value(c0 * w); boundary u(i) = clamp; o = u; }");
  REQUIRE_MESSAGE(c->module, c->diagText());
  const dag::Kernel& k = test::kernelOf(*c, "s");
  REQUIRE(k.boundaries.size() == 2);
  CHECK(k.boundaries[0].kind == dag::BoundaryKind::Value);
  CHECK(k.boundaries[0].axisMask == 2u);
  CHECK(test::tree(c->module->ctx, k.boundaries[0].value, 2) == "(0.5 * w)");
  CHECK(k.boundaries[1].kind == dag::BoundaryKind::Clamp);
  CHECK(k.boundaries[1].axisMask == 1u);
  CHECK(k.boundaries[1].value == dag::kNoNode);
}

TEST_CASE("the contract's flux example: dx of a product over four shifts") {
  auto c = compileText(
      "const a8 = [0.0, 0.8, -0.2, 4.0/105.0, -1.0/280.0];\n"
      "def dx(f) = sum(m in 1..4) a8[m] * (f[i+m,j,k] - f[i-m,j,k]);\n"
      "stencil flux(i, j, k) { in rho, u, p; out f; param dxinv;\n"
      "  f = -dxinv * dx(rho * u * u + p); }\n");
  REQUIRE_MESSAGE(c->module, c->diagText());
  const dag::Context& ctx = c->module->ctx;
  dag::NodeId f = test::outputNode(*c, "flux", "f");
  // 3 fields x 8 offsets, each loaded once.
  CHECK(test::accesses(ctx, f, 3).size() == 24);
  CHECK(test::accessNodeCount(ctx) == 24);
  std::vector<std::string> t = test::sumTerms(ctx, ctx.node(f).operands[1], 3);
  REQUIRE(t.size() == 4);
  CHECK(t[0] ==
        "(0.8 * ((((rho[1,0,0] * u[1,0,0]) * u[1,0,0]) + p[1,0,0]) - (((rho[-1,0,0] * u[-1,0,0]) * u[-1,0,0]) + "
        "p[-1,0,0])))");
  CHECK(t[3].rfind("(" + test::num(-1.0 / 280.0) + " * ", 0) == 0);
}

TEST_CASE("region equations lower to outputs tagged with their region, bounds folded") {
  auto c = compileText(
      "const h = 2;\n"
      "stencil s(i, j) { in u; out v; region inner = [1:-h, :]; v @ inner = u * 2; v = u[i+1, j]; }");
  REQUIRE_MESSAGE(c->module, c->diagText());
  const dag::Kernel& k = test::kernelOf(*c, "s");
  REQUIRE(k.regions.size() == 1);
  CHECK(k.regions[0].name == "inner");
  CHECK(k.regions[0].lo == std::array<int, 3>{1, 0, 0});
  CHECK(k.regions[0].hi == std::array<int, 3>{-2, 0, 0});
  REQUIRE(k.outputs.size() == 2);
  // The default part first, then the regions in declaration order.
  CHECK(k.outputs[0].region == -1);
  CHECK(test::tree(c->module->ctx, k.outputs[0].value, 2) == "u[1,0]");
  CHECK(k.outputs[1].region == 0);
  CHECK(test::tree(c->module->ctx, k.outputs[1].value, 2) == "(u[0,0] * 2)");
}
