// Diagnostics tests (tests/diag/*.stn), in the style of clang's -verify:
//   // expected-error {{substring}}     // expected-warning 2 {{substring}}     // expected-note {{...}}
// on the line the diagnostic points at (in the main file or in any file it imports). Every
// expectation must be met by that many diagnostics, and no error or warning may be unexpected
// (notes are only checked when annotated). Each file is compiled in memory as "test.stn" with
// -I tests/diag, and every rendered diagnostic must have the clang layout:
//   test.stn:LINE:COL: error: message
//     <the source line>
//     <spaces>^
#include <doctest/doctest.h>

#include <sstream>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>

#include "unit/TestUtil.h"

using namespace stnc;
namespace fs = std::filesystem;

namespace {

const fs::path kDiagDir = fs::path(STNC_TEST_DATA) / "diag";

struct Expectation {
  uint32_t file;
  uint32_t line;
  Severity severity;
  std::string text;
  int count;
  int seen = 0;
};

const char* severityWord(Severity s) {
  return s == Severity::Error ? "error" : s == Severity::Warning ? "warning" : "note";
}

std::string readText(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::vector<std::string> splitLines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string l = text.substr(start, end - start);
    if (!l.empty() && l.back() == '\r') l.pop_back();
    lines.push_back(l);
    start = end + 1;
  }
  return lines;
}

// Expectations written in the comments of one source file.
std::vector<Expectation> parseExpectations(uint32_t file, const std::string& text) {
  static const std::regex re(R"(expected-(error|warning|note)(?:\s+(\d+))?\s*\{\{(.*?)\}\})");
  std::vector<Expectation> out;
  std::vector<std::string> lines = splitLines(text);
  for (size_t i = 0; i < lines.size(); ++i)
    for (auto it = std::sregex_iterator(lines[i].begin(), lines[i].end(), re); it != std::sregex_iterator(); ++it) {
      const std::smatch& m = *it;
      Severity s = m[1] == "error" ? Severity::Error : m[1] == "warning" ? Severity::Warning : Severity::Note;
      int count = m[2].matched ? std::stoi(m[2].str()) : 1;
      out.push_back({file, static_cast<uint32_t>(i + 1), s, m[3].str(), count});
    }
  return out;
}

// Compiles a diag file the way compileText does, with tests/diag as an include directory.
std::unique_ptr<test::Compiled> compileDiagFile(const fs::path& path) {
  auto c = std::make_unique<test::Compiled>();
  std::string text = readText(path);
  LoadOptions lo;
  lo.includeDirs = {kDiagDir.string()};
  lo.stdlibDir = std::string(STNC_SOURCE_DIR) + "/stdlib";
  std::ostringstream log;
  passes::CompileResult r = passes::compileModule("test.stn", &text, lo, {}, c->sm, c->diags, log);
  c->module = std::move(r.module);
  return c;
}

// Checks the clang layout of one rendered diagnostic (without its notes).
void checkRendering(const test::Compiled& c, const Diagnostic& d) {
  std::string r = c.diags.render(d);
  CAPTURE(r);
  REQUIRE(d.loc.valid());
  std::string src = c.sm.line(d.loc.file, d.loc.line);
  std::string head = c.sm.path(d.loc.file) + ":" + std::to_string(d.loc.line) + ":" + std::to_string(d.loc.col) +
                     ": " + severityWord(d.severity) + ": " + d.message + "\n";
  CHECK(r.rfind(head, 0) == 0);
  CHECK(d.loc.col >= 1);
  CHECK(d.loc.col <= src.size() + 1);
  if (src.size() > 160) {  // a window around the caret: at most 120 bytes plus "..." marks
    std::istringstream in(r.substr(head.size()));
    std::string shown, caret;
    std::getline(in, shown);
    std::getline(in, caret);
    CHECK(shown.size() <= 2 + 3 + 120 + 3);
    REQUIRE(caret.size() >= 3);
    CHECK(caret.back() == '^');
    if (d.loc.col <= src.size()) CHECK(shown[caret.size() - 1] == src[d.loc.col - 1]);
    return;
  }
  std::string caret = "  ";
  for (uint32_t i = 1; i < d.loc.col && i <= src.size(); ++i) caret += src[i - 1] == '\t' ? '\t' : ' ';
  std::string body = "  " + src + "\n" + caret + "^\n";
  CHECK(r.compare(head.size(), body.size(), body) == 0);
}

struct FileResult {
  std::vector<std::string> problems;
  std::set<DiagId> ids;  // every kind emitted, notes included
};

FileResult verifyFile(const fs::path& path) {
  FileResult res;
  auto c = compileDiagFile(path);
  std::vector<Expectation> exp;
  for (uint32_t f = 1; f <= c->sm.fileCount(); ++f) {
    if (c->sm.path(f).find("/stdlib/") != std::string::npos) continue;
    std::vector<Expectation> e = parseExpectations(f, c->sm.text(f));
    exp.insert(exp.end(), e.begin(), e.end());
  }
  auto where = [&](uint32_t file, uint32_t line) {
    return (file ? c->sm.path(file) : std::string("<no file>")) + ":" + std::to_string(line);
  };
  // Match every diagnostic (and attached note) against the expectations.
  auto match = [&](const Diagnostic& d) {
    res.ids.insert(d.id);
    for (Expectation& e : exp)
      if (e.file == d.loc.file && e.line == d.loc.line && e.severity == d.severity && e.seen < e.count &&
          d.message.find(e.text) != std::string::npos) {
        ++e.seen;
        return;
      }
    if (d.severity != Severity::Note)
      res.problems.push_back("unexpected " + std::string(severityWord(d.severity)) + " at " +
                             where(d.loc.file, d.loc.line) + ": " + d.message);
  };
  for (const Diagnostic& d : c->diags.all()) {
    match(d);
    for (const Diagnostic& n : d.notes) match(n);
    if (d.loc.valid()) checkRendering(*c, d);
  }
  for (const Expectation& e : exp)
    if (e.seen != e.count)
      res.problems.push_back("expected " + std::string(severityWord(e.severity)) + " {{" + e.text + "}} at " +
                             where(e.file, e.line) + " seen " + std::to_string(e.seen) + " of " +
                             std::to_string(e.count) + " time(s)");
  // A file with expected errors must fail to compile; one without must succeed.
  bool errorsExpected = std::any_of(exp.begin(), exp.end(), [](const Expectation& e) { return e.severity == Severity::Error; });
  if (errorsExpected == c->module.has_value())
    res.problems.push_back(errorsExpected ? "compiled although errors were expected" : "did not compile");
  if (!res.problems.empty()) res.problems.push_back("full output:\n" + c->diagText());
  return res;
}

std::vector<fs::path> diagFiles() {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(kDiagDir))
    if (e.is_regular_file() && e.path().extension() == ".stn") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

// The kinds no .stn input can produce, with the reason.
const std::map<std::string, std::string> kNotFromUserInput = {
    {"err_cannot_read",
     "only for a main file that does not exist (tested below) or an import that exists but cannot be read"},
    {"err_bad_number", "the lexer only accepts numbers that strtod reads completely"},
    {"err_group_empty", "the grammar requires at least one group member"},
    {"err_let_twice", "never emitted: a let defined twice is err_redefinition"},
};

const std::vector<std::pair<std::string, DiagId>> kAllKinds = {
#define DIAG(id, sev, fmt) {#id, DiagId::id},
#include "support/DiagKinds.def"
#undef DIAG
};

}  // namespace

TEST_CASE("every tests/diag/*.stn file produces exactly the diagnostics it annotates") {
  std::vector<fs::path> files = diagFiles();
  REQUIRE(files.size() > 40);
  for (const fs::path& f : files) {
    CAPTURE(f.filename().string());
    FileResult r = verifyFile(f);
    std::string all;
    for (auto& p : r.problems) all += p + "\n";
    CHECK_MESSAGE(r.problems.empty(), all);
  }
}

TEST_CASE("a file named after a diagnostic kind produces that kind") {
  for (const fs::path& f : diagFiles()) {
    std::string stem = f.stem().string();
    auto it = std::find_if(kAllKinds.begin(), kAllKinds.end(), [&](auto& k) { return k.first == stem; });
    if (it == kAllKinds.end()) continue;
    CAPTURE(stem);
    CHECK(verifyFile(f).ids.count(it->second) == 1);
  }
}

TEST_CASE("every diagnostic kind that user input can trigger has a diag test") {
  std::set<DiagId> covered;
  for (const fs::path& f : diagFiles()) {
    FileResult r = verifyFile(f);
    covered.insert(r.ids.begin(), r.ids.end());
  }
  for (const auto& [name, id] : kAllKinds) {
    CAPTURE(name);
    if (kNotFromUserInput.count(name)) {
      CHECK_MESSAGE(covered.count(id) == 0, "now triggered: remove it from kNotFromUserInput");
      continue;
    }
    CHECK(covered.count(id) == 1);
  }
}

TEST_CASE("all errors of a file are reported in one run") {
  // Three independent errors: a declaration error, and two expression errors in two stencils.
  auto c = test::compileText(
      "stencil a(i) : f16 { in u; out v; v = u; }\n"
      "stencil b(i) { in u; out v; v = u + nope; }\n"
      "stencil c(i) { in u; out v; v = u[j]; }\n");
  CHECK_FALSE(c->module);
  CHECK(c->diags.errorCount() == 3);
  std::vector<uint32_t> lines;
  for (const Diagnostic& d : c->diags.all()) lines.push_back(d.loc.line);
  std::sort(lines.begin(), lines.end());
  CHECK(lines == std::vector<uint32_t>{1, 2, 3});
  // Printed sorted by location, one block per error.
  std::string text = c->diagText();
  size_t p1 = text.find("test.stn:1:"), p2 = text.find("test.stn:2:"), p3 = text.find("test.stn:3:");
  CHECK(p1 < p2);
  CHECK(p2 < p3);
  CHECK(p3 != std::string::npos);
}

TEST_CASE("errors in several equations of one stencil are all reported") {
  auto c = test::compileText("stencil s(i) { in u; out a, b, c; a = x; b = y; c = z; }");
  CHECK(c->diags.errorCount() == 3);
}

TEST_CASE("the same error reached through two expansions of a def is reported once") {
  auto c = test::compileText("def f(x) = x + nope;\nstencil s(i) { in u; out a, b; a = f(u); b = f(u[i+1]); }");
  CHECK(c->diags.errorCount() == 1);
  REQUIRE(c->diags.all().size() == 1);
  CHECK(c->diags.all()[0].loc.line == 1);
  // The expansion that led there is attached as a note.
  REQUIRE(c->diags.all()[0].notes.size() == 1);
  CHECK(c->diags.all()[0].notes[0].message == "in expansion of 'f' here");
  CHECK(c->diags.all()[0].notes[0].loc.line == 2);
}

TEST_CASE("the caret follows tabs in the source line") {
  auto c = test::compileText("stencil s(i) {\n\tin u; out v;\n\tv = u +\tnope;\n}");
  REQUIRE(c->diags.all().size() == 1);
  CHECK(c->diagText() ==
        "test.stn:3:10: error: use of undeclared name 'nope'\n"
        "  \tv = u +\tnope;\n"
        "  \t       \t^\n");
}

TEST_CASE("a very long source line is shown as a window around the caret, not whole") {
  std::string sum = "u";
  for (int i = 0; i < 200; ++i) sum += " + u";
  auto c = test::compileText("stencil s(i) { in u; out v; v = " + sum + " + nope + " + sum + "; }");
  REQUIRE(c->diags.all().size() == 1);
  const std::string text = c->diagText();
  CAPTURE(text);
  std::istringstream in(text);
  std::string head, shown, caret;
  std::getline(in, head);
  std::getline(in, shown);
  std::getline(in, caret);
  CHECK(head.find("use of undeclared name 'nope'") != std::string::npos);
  CHECK(shown.size() <= 2 + 3 + 120 + 3);
  CHECK(shown.rfind("  ...", 0) == 0);  // cut on both sides
  CHECK(shown.substr(shown.size() - 3) == "...");
  // The caret still points at the name.
  REQUIRE(caret.size() >= 3);
  CHECK(caret.back() == '^');
  CHECK(shown.compare(caret.size() - 1, 4, "nope") == 0);
}

TEST_CASE("a missing main file is reported without a location") {
  test::Compiled c;
  std::ostringstream log;
  passes::CompileResult r =
      passes::compileModule("/nonexistent/dir/missing.stn", nullptr, LoadOptions{}, {}, c.sm, c.diags, log);
  CHECK_FALSE(r.module);
  REQUIRE(c.diags.all().size() == 1);
  CHECK(c.diags.all()[0].id == DiagId::err_cannot_read);
  CHECK(c.diagText() == "stnc: error: cannot read file '/nonexistent/dir/missing.stn'\n");
}

TEST_CASE("invalid input never crashes the compiler") {
  // Every diag file cut at every line: truncated programs must produce diagnostics, not crashes.
  size_t runs = 0;
  for (const fs::path& f : diagFiles()) {
    std::vector<std::string> lines = splitLines(readText(f));
    std::string prefix;
    for (const std::string& l : lines) {
      prefix += l + "\n";
      auto c = test::compileText(prefix);
      ++runs;
      CHECK((c->module.has_value() || c->diags.errorCount() > 0));
    }
  }
  CHECK(runs > 100);
  // And a few hostile inputs.
  for (const char* text : {"stencil s(i) { in u; out v; v = sum(m in 1..3) sum(n in 1..3) u[i+m+n] * weight(n); }",
                           "def f(x) = f(x);\nconst c = f(1);",
                           "const a = [a[0]];",
                           "offsets o = box(o);",
                           "offsets o = { [1]: weight(o) };\nstencil s(i) { in u; out v; v = apply(o, u); }",
                           "stencil s(i) { in u; out v; let t = t; v = t; }",
                           "stencil s(i) { in u; out v; v = u[i+1e300]; }",
                           "stencil s(i) { in u; out v; v = sum(m in 1e300..1e301) u; }",
                           "stencil s(i) { in u; out v; v = sum(m in -2147483648..2147483647) u; }",
                           "stencil s(i) { in u; out v; v = u[i+2147483647+1]; }",
                           "const c = [1]; stencil s(i) { in u; out v; v = c[1e300]; }",
                           "stencil s(i) { in u; out v; v = 1e999 * u - 1e999; }",
                           "group g = g;",
                           "stencil s(i) { in u; out v; swap v, v; boundary v(i, i) = value(v); v = u; }"}) {
    CAPTURE(text);
    auto c = test::compileText(text);
    CHECK((c->module.has_value() || c->diags.errorCount() > 0));
  }
}

// Regression: a redefinition's "previous definition is here" note was reported as a diagnostic of its own
// (CheckDecls.cpp, declare() and the local-name check), so DiagEngine::print(), which sorts by
// location, prints it BEFORE the error it belongs to whenever the previous definition comes first
// in the file, i.e. always. Expected (clang style): the error line, then its note. Actual:
//   test.stn:1:7: note: previous definition is here ...  then  test.stn:2:7: error: redefinition of 'a'
TEST_CASE("the note of a redefinition follows its error") {
  auto c = test::compileText("const a = 1;\nconst a = 2;\nstencil s(i) { in u; out v; v = u * a; }");
  std::string text = c->diagText();
  size_t err = text.find("error: redefinition of 'a'"), note = text.find("note: previous definition is here");
  REQUIRE(err != std::string::npos);
  REQUIRE(note != std::string::npos);
  CHECK(err < note);
}

// Regression: warn_shadow was declared in DiagKinds.def but never emitted (a field named like a
// global const silently hid it).
TEST_CASE("a local name that shadows a global is warned about") {
  auto c = test::compileText("const u = 2;\nstencil s(i) { in u; out v; v = u; }");
  REQUIRE(c->module);
  CHECK(c->diags.warningCount() == 1);
}

// Regression: a cycle between consts or lets was reported with the def wording "recursive use of def".
TEST_CASE("a const cycle is not called a def") {
  auto c = test::compileText("const a = b;\nconst b = a;\nstencil s(i) { in u; out v; v = u; }");
  REQUIRE(c->diags.errorCount() >= 1);
  CHECK(c->diags.all()[0].message.find("def") == std::string::npos);
}
