// sema/CheckDecls: the global namespace, declaration rules of stencils and groups, and that every
// declaration problem of a program is reported in one run.
#include <doctest/doctest.h>

#include <algorithm>
#include <memory>

#include "unit/DagText.h"
#include "sema/CheckDecls.h"
#include "sema/ScheduleArgs.h"

using namespace stnc;

namespace {

struct Checked {
  SourceManager sm;
  DiagEngine diags{sm};
  std::optional<ast::Program> prog;
  sema::Symbols syms;
};

// Parses `text` and runs only the declaration checks.
std::unique_ptr<Checked> check(const std::string& text) {
  auto c = std::make_unique<Checked>();
  c->prog = loadProgramText("test.stn", text, LoadOptions{}, c->sm, c->diags);
  REQUIRE(c->prog);
  c->syms = sema::checkDeclarations(*c->prog, c->diags);
  return c;
}

std::vector<DiagId> ids(const Checked& c) {
  std::vector<DiagId> out;
  for (const Diagnostic& d : c.diags.all()) out.push_back(d.id);
  return out;
}

// A diagnostic, or a note attached to one, of kind id on the line.
bool has(const Checked& c, DiagId id, uint32_t line) {
  for (const Diagnostic& d : c.diags.all()) {
    if (d.id == id && d.loc.line == line) return true;
    for (const Diagnostic& n : d.notes)
      if (n.id == id && n.loc.line == line) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("every kind of global declaration is entered into Symbols") {
  auto c = check(
      "const k = 1;\n"
      "const arr = [1, 2];\n"
      "def f(x) = x;\n"
      "offsets o = box(1);\n"
      "stencil s(i) { in a; out b; b = a; }\n"
      "group g = s;\n");
  CHECK(c->diags.all().empty());
  CHECK(c->syms.consts.count("k") == 1);
  CHECK(c->syms.consts.at("arr")->isArray);
  CHECK(c->syms.defs.count("f") == 1);
  CHECK(c->syms.offsets.count("o") == 1);
  CHECK(c->syms.stencils.count("s") == 1);
  CHECK(c->syms.groups.count("g") == 1);
}

TEST_CASE("consts, defs, offsets, stencils and groups share one namespace") {
  auto c = check(
      "const a = 1;\n"
      "def a(x) = x;\n"
      "offsets a = box(1);\n");
  std::vector<DiagId> got = ids(*c);
  CHECK(std::count(got.begin(), got.end(), DiagId::err_redefinition) == 2);
  CHECK(has(*c, DiagId::err_redefinition, 2));
  CHECK(has(*c, DiagId::err_redefinition, 3));
  // The first declaration wins and the note points at it.
  CHECK(c->syms.consts.count("a") == 1);
  CHECK(c->syms.defs.count("a") == 0);
  CHECK(has(*c, DiagId::note_previous, 1));
}

TEST_CASE("intrinsic names and contextual words cannot be declared") {
  CHECK(sema::isReservedName("sqrt"));
  CHECK(sema::isReservedName("select"));
  CHECK(sema::isReservedName("weight"));
  CHECK_FALSE(sema::isReservedName("u"));
  auto c = check(
      "const max = 1;\n"
      "stencil s(i) { in sqrt; out b; param weight; b = 1; }\n");
  CHECK(has(*c, DiagId::err_reserved_name, 1));
  std::vector<DiagId> got = ids(*c);
  CHECK(std::count(got.begin(), got.end(), DiagId::err_reserved_name) == 3);
}

TEST_CASE("axes, fields, params and lets of a stencil are distinct local names") {
  auto c = check(
      "stencil s(i, i) {\n"
      "  in a; out b; param a;\n"
      "  let b = 1;\n"
      "  b = 1;\n"
      "}\n");
  CHECK(has(*c, DiagId::err_redefinition, 1));  // axis i twice
  CHECK(has(*c, DiagId::err_redefinition, 2));  // param a
  CHECK(has(*c, DiagId::err_redefinition, 3));  // let b
}

TEST_CASE("a stencil's element type is f32 or f64, f64 by default") {
  CHECK(check("stencil s(i) : f32 { in a; out b; b = a; }")->diags.all().empty());
  CHECK(check("stencil s(i) { in a; out b; b = a; }")->diags.all().empty());
  auto c = check("stencil s(i) : double { in a; out b; b = a; }");
  CHECK(ids(*c) == std::vector<DiagId>{DiagId::err_bad_type});
}

TEST_CASE("a stencil has one to three axes") {
  CHECK(check("stencil s(i, j, k) { in a; out b; b = a; }")->diags.all().empty());
  auto c = check("stencil s(i, j, k, l) { in a; out b; b = a; }");
  REQUIRE(ids(*c) == std::vector<DiagId>{DiagId::err_axes_count});
  CHECK(c->diags.all()[0].message == "a stencil has 1 to 3 axes, 's' has 4");
}

TEST_CASE("every output is assigned exactly once and only outputs are assigned") {
  auto c = check(
      "stencil s(i) {\n"
      "  in a; out b, c; inout d;\n"
      "  b = a;\n"
      "  b = a;\n"
      "  a = 1;\n"
      "  e = 1;\n"
      "  d = d;\n"
      "}\n");
  CHECK(has(*c, DiagId::err_output_written_twice, 4));
  CHECK(has(*c, DiagId::err_assign_to_input, 5));
  CHECK(has(*c, DiagId::err_assign_unknown, 6));
  CHECK(has(*c, DiagId::err_output_not_written, 2));  // c
  CHECK(c->diags.errorCount() == 4);
}

TEST_CASE("a stencil without out or inout fields is rejected") {
  auto c = check("stencil s(i) { in a; }");
  CHECK(ids(*c) == std::vector<DiagId>{DiagId::err_no_outputs});
}

TEST_CASE("swap pairs are two distinct fields, each in at most one swap") {
  CHECK(check("stencil s(i) { in u; inout v; swap u, v; v = u; }")->diags.all().empty());
  auto c = check(
      "stencil s(i) {\n"
      "  in u, w; out v; inout x;\n"
      "  swap u, u;\n"
      "  swap w, nope;\n"
      "  swap w, x;\n"
      "  v = u; x = 1;\n"
      "}\n");
  CHECK_FALSE(has(*c, DiagId::err_swap_twice, 3));  // `swap u, u` is one mistake, said once:
  CHECK(has(*c, DiagId::err_swap_bad, 3));          // the same field twice
  CHECK(has(*c, DiagId::err_swap_bad, 4));    // not a field
  CHECK(has(*c, DiagId::err_swap_twice, 5));  // w again
}

TEST_CASE("boundary rules: input fields, known rules, axes of the stencil, one rule per axis") {
  CHECK(check(
            "stencil s(i, j) { in u; out v; param w;\n"
            "  boundary u(i) = periodic; boundary u(j) = value(w * 2); v = u; }")
            ->diags.all()
            .empty());
  auto c = check(
      "stencil s(i, j) {\n"
      "  in u; out v;\n"
      "  boundary v = periodic;\n"
      "  boundary u = reflect;\n"
      "  boundary u(k) = clamp;\n"
      "  boundary u(j) = mirror;\n"
      "  boundary u = periodic(1);\n"
      "  v = u;\n"
      "}\n");
  CHECK(has(*c, DiagId::err_boundary_field, 3));
  CHECK(has(*c, DiagId::err_boundary_rule, 4));
  CHECK(has(*c, DiagId::err_boundary_axis, 5));
  CHECK(has(*c, DiagId::err_boundary_twice, 6));  // line 4 already ruled every axis of u
  CHECK(has(*c, DiagId::err_boundary_rule, 7));
}

TEST_CASE("group members are stencils with the same axes and element type") {
  auto c = check(
      "stencil a(i, j) { in u; out x; x = u; }\n"
      "stencil b(i, j) : f32 { in u; out y; y = u; }\n"
      "stencil c(i, k) { in u; out z; z = u; }\n"
      "const d = 1;\n"
      "group g1 = a, b;\n"
      "group g2 = a, c;\n"
      "group g3 = a, d, nope;\n");
  CHECK(has(*c, DiagId::err_group_axes, 5));
  CHECK(has(*c, DiagId::err_group_axes, 6));
  CHECK(has(*c, DiagId::err_group_member, 7));
  std::vector<DiagId> got = ids(*c);
  CHECK(std::count(got.begin(), got.end(), DiagId::err_group_member) == 2);
}

TEST_CASE("offset shapes are box or star and explicit entries share one length") {
  auto c = check(
      "offsets a = ball(1);\n"
      "offsets b = { [0, 0], [1, 0, 0] };\n"
      "offsets c = { [0, 0], [1, 0] };\n");
  CHECK(has(*c, DiagId::err_offsets_shape, 1));
  CHECK(has(*c, DiagId::err_offsets_rank, 2));
  CHECK(c->diags.errorCount() == 2);
}

TEST_CASE("declarations may appear in any order") {
  auto c = test::compileText(
      "stencil s(i) { in u; out v; v = f(u) * k; }\n"
      "def f(x) = x[i+1];\n"
      "const k = 2;\n");
  REQUIRE_MESSAGE(c->module, c->diagText());
  CHECK(test::outputTree(*c, "s", "v") == "(u[1] * 2)");
}

TEST_CASE("declaration errors of several stencils are all reported in one run") {
  auto c = check(
      "stencil a(i) { in u; }\n"
      "stencil b(i) : f16 { in u; out v; v = u; }\n"
      "stencil c(i, j, k, l) { in u; out v; v = u; }\n");
  CHECK(ids(*c) == std::vector<DiagId>{DiagId::err_no_outputs, DiagId::err_bad_type, DiagId::err_axes_count});
}

TEST_CASE("the schedule keys the unknown-key message lists are the keys readScheduleArg knows") {
  for (const std::string& key : sema::scheduleKeys()) {
    dag::ScheduleRequest r;
    std::string expected;
    CHECK_MESSAGE(!sema::readScheduleArg(key, "?", r, expected), key);
    CHECK_MESSAGE(!expected.empty(), key);  // known: the value is what is wrong
  }
  dag::ScheduleRequest r;
  std::string expected;
  CHECK(!sema::readScheduleArg("blocks", "32x8", r, expected));
  CHECK(expected.empty());
  CHECK(sema::readScheduleArg("slab_vec", "4", r, expected));
  CHECK(r.slabVec == 4);
}
