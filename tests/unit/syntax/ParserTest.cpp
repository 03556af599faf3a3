// syntax/Parser: precedence, the extent of `sum` bodies, lexing of ranges, numbers and comments,
// and located syntax errors.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>

#include "syntax/AstPrinter.h"
#include "syntax/Parser.h"

using namespace stnc;

namespace {

struct Parsed {
  SourceManager sm;
  DiagEngine diags{sm};
  std::optional<ast::Module> module;
  std::string diagText() const {
    std::ostringstream os;
    diags.print(os);
    return os.str();
  }
};

std::unique_ptr<Parsed> parse(const std::string& text) {
  auto p = std::make_unique<Parsed>();
  uint32_t f = p->sm.add("test.stn", text);
  p->module = parseModule(p->sm, f, p->diags);
  return p;
}

// The S-expression of EXPR, parsed as the value of a const.
std::string sexpr(const std::string& expr) {
  auto p = parse("const x = " + expr + ";");
  REQUIRE_MESSAGE(p->module, p->diagText());
  REQUIRE(p->module->consts.size() == 1);
  return exprToString(*p->module->consts[0].value);
}

double numberOf(const std::string& literal) {
  auto p = parse("const x = " + literal + ";");
  REQUIRE_MESSAGE(p->module, p->diagText());
  const ast::Expr& e = *p->module->consts[0].value;
  REQUIRE(e.kind == ast::ExprKind::Number);
  return e.number;
}

}  // namespace

TEST_CASE("binary operators bind loosest to tightest: || && comparisons + - * /") {
  CHECK(sexpr("a || b && c") == "(|| a (&& b c))");
  CHECK(sexpr("a && b || c") == "(|| (&& a b) c)");
  CHECK(sexpr("a && b < c") == "(&& a (< b c))");
  CHECK(sexpr("a < b + c") == "(< a (+ b c))");
  CHECK(sexpr("a + b <= c - d") == "(<= (+ a b) (- c d))");
  CHECK(sexpr("a + b * c") == "(+ a (* b c))");
  CHECK(sexpr("a * b + c / d") == "(+ (* a b) (/ c d))");
  CHECK(sexpr("(a + b) * c") == "(* (+ a b) c)");
}

TEST_CASE("additive and multiplicative chains are left-associative") {
  CHECK(sexpr("a - b - c") == "(- (- a b) c)");
  CHECK(sexpr("a - b + c") == "(+ (- a b) c)");
  CHECK(sexpr("a / b * c") == "(* (/ a b) c)");
  CHECK(sexpr("a / b / c") == "(/ (/ a b) c)");
}

TEST_CASE("unary minus and not bind tighter than every binary operator") {
  CHECK(sexpr("-a * b") == "(* (- a) b)");
  CHECK(sexpr("-a + b") == "(+ (- a) b)");
  CHECK(sexpr("- -a") == "(- (- a))");
  CHECK(sexpr("!a && b") == "(&& (! a) b)");
  CHECK(sexpr("!(a < b)") == "(! (< a b))");
}

TEST_CASE("the body of sum is the * / chain to its right and stops at + -") {
  // The contract's example: sum(m in 1..2) a[m] * u + x  is  (sum a[m]*u) + x.
  CHECK(sexpr("sum(m in 1..2) a[m] * u + x") == "(+ (sum m 1..2 (* (index a m) u)) x)");
  CHECK(sexpr("sum(m in 1..2) a[m] * u - x") == "(- (sum m 1..2 (* (index a m) u)) x)");
  CHECK(sexpr("x + sum(m in 1..2) a[m] / u") == "(+ x (sum m 1..2 (/ (index a m) u)))");
  // Inside a product the sum takes the rest of the chain.
  CHECK(sexpr("x * sum(m in 1..2) a[m] * u - y") == "(- (* x (sum m 1..2 (* (index a m) u))) y)");
}

TEST_CASE("the body of sum stops at comparisons and at the enclosing parenthesis") {
  CHECK(sexpr("sum(m in 0..1) u < 1") == "(< (sum m 0..1 u) 1)");
  CHECK(sexpr("(sum(m in 1..2) u) * v") == "(* (sum m 1..2 u) v)");
  CHECK(sexpr("sum(m in 1..2) (u + v)") == "(sum m 1..2 (+ u v))");
}

TEST_CASE("sums nest, and offset sums parse like range sums") {
  CHECK(sexpr("sum(m in 1..2) sum(n in 1..m) a[n] * b") == "(sum m 1..2 (sum n 1..m (* (index a n) b)))");
  CHECK(sexpr("sum(o in b1) u[o] * v[o] + 1") == "(+ (sum o in b1 (* (index u o) (index v o))) 1)");
  CHECK(sexpr("-sum(m in 1..2) u") == "(- (sum m 1..2 u))");
}

TEST_CASE("range bounds are additive expressions") {
  CHECK(sexpr("sum(m in -R..R+1) u") == "(sum m (- R)..(+ R 1) u)");
}

TEST_CASE("1..4 lexes as a range, also with hex integers") {
  CHECK(sexpr("sum(m in 1..4) m") == "(sum m 1..4 m)");
  CHECK(sexpr("sum(m in 0x1..0x4) m") == "(sum m 0x1..0x4 m)");
  CHECK(sexpr("sum(m in 10..12) m") == "(sum m 10..12 m)");
}

TEST_CASE("a decimal point must be followed by a digit") {
  CHECK(numberOf("1.5") == 1.5);
  auto p = parse("const x = 1.;");
  CHECK_FALSE(p->module);
  CHECK(p->diags.errorCount() >= 1);
}

TEST_CASE("numbers are read exactly: decimals, exponents, hex floats") {
  CHECK(numberOf("0x1.8p-2") == 0.375);
  CHECK(numberOf("0x1.0000000000001p0") == std::nextafter(1.0, 2.0));
  CHECK(numberOf("0X1P+4") == 16.0);
  CHECK(numberOf("0x10") == 16.0);
  CHECK(numberOf("0x1.fffffffffffffp1023") == std::numeric_limits<double>::max());
  CHECK(numberOf("0.1") == 0.1);
  CHECK(numberOf("1e-3") == 1e-3);
  CHECK(numberOf("2E+2") == 200.0);
  CHECK(numberOf("42") == 42.0);
  // The literal keeps the text as written (for messages and --emit=ast).
  CHECK(sexpr("0x1.8p-2") == "0x1.8p-2");
}

TEST_CASE("readNumber: malformed text, float64 overflow and underflow told apart") {
  double v = 1;
  CHECK(readNumber("0.25", v) == NumberRead::Ok);
  CHECK(v == 0.25);
  CHECK(readNumber("0x1.8p-2", v) == NumberRead::Ok);
  CHECK(v == 0.375);
  CHECK(readNumber("0.0e-999", v) == NumberRead::Ok);  // zero written small is still zero
  CHECK(readNumber("0x0p-2000", v) == NumberRead::Ok);
  CHECK(readNumber("1e-310", v) == NumberRead::Ok);  // subnormal: representable
  CHECK(v > 0);
  CHECK(readNumber("1e-400", v) == NumberRead::Underflow);
  CHECK(v == 0);
  CHECK(readNumber("0x1p-1080", v) == NumberRead::Underflow);
  CHECK(readNumber("0xep-1080", v) == NumberRead::Underflow);  // 'e' is a hex digit, not an exponent
  CHECK(readNumber("1e400", v) == NumberRead::Overflow);
  CHECK(readNumber("0x1p2000", v) == NumberRead::Overflow);
  for (const char* bad : {"", "1.5x", "abc", "inf", "nan", " 1", "+1", "-1", "1e", "0x"})
    CHECK_MESSAGE(readNumber(bad, v) == NumberRead::Malformed, bad);
}

TEST_CASE("line and block comments are skipped anywhere") {
  auto p = parse(
      "// heading\n"
      "const a = 1 /* inline */ + 2; // trailing\n"
      "/* a block\n"
      "   over lines */ const b = a;\n");
  REQUIRE_MESSAGE(p->module, p->diagText());
  REQUIRE(p->module->consts.size() == 2);
  CHECK(exprToString(*p->module->consts[0].value) == "(+ 1 2)");
  CHECK(p->module->consts[1].id.name == "b");
  CHECK(p->module->consts[1].id.loc.line == 4);
}

TEST_CASE("expression nodes carry the location of their operator or first token") {
  auto p = parse("const x =\n  a  +  b;");
  REQUIRE(p->module);
  const ast::Expr& e = *p->module->consts[0].value;
  CHECK(e.loc.line == 2);
  CHECK(e.loc.col == 6);  // the '+'
  CHECK(e.args[0]->loc.col == 3);
  CHECK(e.args[1]->loc.col == 9);
}

TEST_CASE("a stencil declaration keeps fields, params, lets, equations and their text") {
  auto p = parse(
      "stencil s(i, j) : f32 {\n"
      "  in a, b; out c; inout d; param w;\n"
      "  let t = a[i+1,j]  +\n      b;\n"
      "  c = t * w;  d = d;\n"
      "  swap a, d;\n"
      "  boundary a(j) = value(w);\n"
      "}\n");
  REQUIRE_MESSAGE(p->module, p->diagText());
  REQUIRE(p->module->stencils.size() == 1);
  const ast::StencilDecl& s = p->module->stencils[0];
  CHECK(s.type.name == "f32");
  REQUIRE(s.axes.size() == 2);
  CHECK(s.axes[1].name == "j");
  REQUIRE(s.fields.size() == 4);
  CHECK(s.fields[2].role == ast::FieldRole::Out);
  CHECK(s.fields[3].role == ast::FieldRole::InOut);
  CHECK(s.params.size() == 1);
  REQUIRE(s.lets.size() == 1);
  CHECK(exprToString(*s.lets[0].value) == "(+ (index a (+ i 1) j) b)");
  REQUIRE(s.equations.size() == 2);
  CHECK(s.equations[0].text == "c = t * w;");
  REQUIRE(s.boundaries.size() == 1);
  CHECK(s.boundaries[0].rule.name == "value");
  REQUIRE(s.boundaries[0].axes.size() == 1);
  CHECK(s.boundaries[0].axes[0].name == "j");
  REQUIRE(s.swaps.size() == 1);
}

TEST_CASE("offset entries: coordinates and an optional weight") {
  auto p = parse("offsets o = { [0,0,0]: -6.0, [1,0,0], };");
  REQUIRE_MESSAGE(p->module, p->diagText());
  const ast::OffsetsDecl& o = p->module->offsets.at(0);
  REQUIRE(o.entries.size() == 2);
  CHECK(o.entries[0].coords.size() == 3);
  REQUIRE(o.entries[0].weight);
  CHECK(exprToString(*o.entries[0].weight) == "(- 6.0)");
  CHECK(o.entries[1].coords.size() == 3);
  CHECK_FALSE(o.entries[1].weight);
  auto q = parse("offsets b = box(2);");
  REQUIRE(q->module);
  CHECK(q->module->offsets.at(0).shape.name == "box");
}

TEST_CASE("a syntax error is reported at file:line:col with the source line and a caret") {
  auto p = parse("const a = 1;\nconst b = 1 +;\n");
  CHECK_FALSE(p->module);
  REQUIRE(p->diags.errorCount() >= 1);
  const Diagnostic& d = p->diags.all().at(0);
  CHECK(d.loc.line == 2);
  CHECK(d.loc.col == 14);  // the ';' where an operand was expected
  std::string text = p->diagText();
  CHECK(text.rfind("test.stn:2:14: error: ", 0) == 0);
  CHECK(text.find("\n  const b = 1 +;\n") != std::string::npos);
  CHECK(text.find("\n               ^\n") != std::string::npos);
}

TEST_CASE("an unexpected character is named in the error") {
  auto p = parse("const a = 1 $ 2;");
  CHECK_FALSE(p->module);
  REQUIRE(p->diags.errorCount() >= 1);
  CHECK(p->diags.all()[0].message == "unexpected character '$'");
  CHECK(p->diags.all()[0].loc.col == 13);
}

TEST_CASE("keywords are reserved and cannot name things") {
  CHECK_FALSE(parse("const in = 1;")->module);
  CHECK_FALSE(parse("const sum = 1;")->module);
  CHECK_FALSE(parse("stencil s(i) { in param; out b; b = 1; }")->module);
}

TEST_CASE("the parser recovers and reports several syntax errors in one run") {
  auto p = parse("const a = 1 +;\nconst b = ;\nconst c = (2;\n");
  CHECK_FALSE(p->module);
  CHECK(p->diags.errorCount() >= 2);
}

TEST_CASE("malformed input never crashes the parser") {
  const char* inputs[] = {"",
                          "stencil",
                          "stencil s(i) {",
                          "stencil s( {}",  // (`stencil s() {}` parses: sema says a stencil needs axes)
                          "const x = [;",
                          "const x = [];",
                          "offsets o = {};",
                          "def f( = 1;",
                          "group g = ;",
                          "import ;",
                          "import \"unterminated;",
                          "const x = sum(m in 1..) u;",
                          "const x = sum(m in ..2) u;",
                          "const x = apply(, u);",
                          "/* unterminated comment",
                          "\x01\x02",
                          "stencil s(i) { in a; out b; b = a[; }",
                          "}}}}",
                          "((((((((((((((((((((((((((((((("};
  for (const char* in : inputs) {
    CAPTURE(in);
    auto p = parse(in);
    if (std::string(in).empty()) {
      CHECK(p->module);  // an empty file is a valid, empty module
    } else {
      CHECK_FALSE(p->module);
      CHECK(p->diags.errorCount() >= 1);
    }
  }
}

TEST_CASE("a file that is not valid UTF-8 is a located syntax error, not a crash") {
  std::unique_ptr<Parsed> p;
  CHECK_NOTHROW(p = parse("const x = 1;\nconst y = \xff;\n"));
  REQUIRE(p);
  CHECK_FALSE(p->module);
  REQUIRE(p->diags.errorCount() == 1);
  CHECK(p->diags.all()[0].loc.line == 2);
  CHECK(p->diags.all()[0].loc.col == 11);
}

TEST_CASE("nesting deeper than the parser allows is an error, not a stack overflow") {
  auto p = parse("const x = " + std::string(100000, '(') + "1" + std::string(100000, ')') + ";");
  CHECK_FALSE(p->module);
  CHECK(p->diags.errorCount() == 1);
  auto q = parse("const x = " + std::string(100000, '-') + "1;");
  CHECK_FALSE(q->module);
  CHECK(q->diags.errorCount() == 1);
}

// Regression (fixed): a literal too large for a double (1e999) is silently read as infinity (strtod's HUGE_VAL
// is accepted by parseNumber, Parser.cpp), and the generated code multiplies by __builtin_inf().
// err_bad_number ("invalid number") exists but can never be reported. Expected: an error at the
// literal, as for any number that cannot be represented.
TEST_CASE("a number literal that overflows a double is rejected") {
  auto p = parse("const x = 1e999;");
  CHECK_FALSE(p->module);
  CHECK(p->diags.errorCount() == 1);
}

TEST_CASE("schedule statements: in a stencil and at the top level, values as written - `schedule` stays a usable name") {
  auto p = parse(
      "stencil s(i, j, k) { in schedule; out v;\n"
      "  schedule stream(block = 32x8, rows = 2, smem = on);\n"
      "  v = schedule[i-1,j,k] + schedule[i+1,j,k]; }\n"
      "schedule s naive;\n");
  REQUIRE_MESSAGE(p->module, p->diagText());
  REQUIRE(p->module->stencils.size() == 1);
  const ast::StencilDecl& s = p->module->stencils[0];
  REQUIRE(s.schedules.size() == 1);
  CHECK(s.schedules[0].keyword.name == "schedule");
  CHECK(s.schedules[0].strategy.name == "stream");
  REQUIRE(s.schedules[0].args.size() == 3);
  CHECK(s.schedules[0].args[0].key.name == "block");
  CHECK(s.schedules[0].args[0].value == "32x8");
  CHECK(s.schedules[0].args[2].value == "on");
  CHECK(s.schedules[0].loc.line == 2);
  CHECK(s.fields[0].id.name == "schedule");
  REQUIRE(p->module->schedules.size() == 1);
  CHECK(p->module->schedules[0].kernel.name == "s");
  CHECK(p->module->schedules[0].text == "naive");
  std::ostringstream os;
  printAst(os, *p->module);
  CHECK_MESSAGE(os.str().find("  (schedule stream(block = 32x8, rows = 2, smem = on))") != std::string::npos, os.str());
  CHECK_MESSAGE(os.str().find("(schedule s naive)") != std::string::npos, os.str());
  // A value must be a number, a word or a block shape.
  CHECK_FALSE(parse("stencil s(i) { in u; out v; schedule stream(block = (32)); v = u; }")->module);
}

TEST_CASE("syntax errors name tokens in the language's words, not the grammar's") {
  auto message = [](const std::string& text) {
    auto p = parse(text);
    CHECK_FALSE(p->module);
    return p->diagText();
  };
  CHECK(message("stencil s(i, ) { in a; out b; b = a; }").find("expected a name before ')'") != std::string::npos);
  CHECK(message("stencil s(i) { in a; out b; b = a + ; }").find("expected an expression, found ';'") !=
        std::string::npos);
  CHECK(message("stencil s(i) { in a; out b; b = a").find("expected ';' before the end of the file") !=
        std::string::npos);
  CHECK(message("import foo;").find("expected a quoted file name, found 'foo'") != std::string::npos);
  // A name the user wrote stays as written, even when it spells a token's name.
  CHECK(message("stencil ID(i) { in 3; out b; b = 1; }").find("expected a name, found '3'") != std::string::npos);
  const std::string extra = message("stencil s(i) { in a; out b; b = a;; }");
  CHECK(extra.find("unexpected ';' (expected {") != std::string::npos);
  CHECK(extra.find("ID") == std::string::npos);
}
