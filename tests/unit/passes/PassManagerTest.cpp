// passes/PassManager: pass order, --print-after / --print-after-all / --print-changed output,
// --verify-each, --time-passes, and stopping at the first pass that reports an error.
#include <doctest/doctest.h>

#include <sstream>

#include "unit/DagText.h"
#include "passes/Pipeline.h"

using namespace stnc;

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

// Compiles `text` with the given pass options; returns the pass log.
std::string passLog(const std::string& text, const passes::PassOptions& opts, bool* ok = nullptr) {
  SourceManager sm;
  DiagEngine diags(sm);
  std::ostringstream log;
  passes::CompileResult r = passes::compileModule("test.stn", &text, LoadOptions{}, opts, sm, diags, log);
  if (ok) *ok = r.module.has_value();
  return log.str();
}

const char* kProgram =
    "const c = 2.0 * 3.0;\n"
    "stencil s(i) { in u; out o; o = c * u[i+1]; }\n";

size_t count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
  return n;
}

// A module with one kernel o = u, for hand-made pass lists.
dag::Module tinyModule() {
  dag::Module m;
  dag::Kernel k;
  k.name = "s";
  k.axes = {"i"};
  k.fields = {makeField("u", dag::Role::In), makeField("o", dag::Role::Out)};
  k.outputs.push_back(makeOutput("o", m.ctx.access(m.ctx.intern("u"), {})));
  m.kernels.push_back(k);
  return m;
}

}  // namespace

TEST_CASE("the standard pipeline runs its passes in a fixed order") {
  // Fusion first (later passes see a group as one kernel), pruning before anything counts nodes,
  // FMA contraction on the pruned DAG (it rebuilds the context), tensor-sums on its fma chains before
  // factor-sums rewrites them (it builds its own), footprints before the passes that read them. Later passes
  // may be appended.
  std::vector<std::string> names = passes::standardPasses().names();
  REQUIRE(names.size() >= 7);
  CHECK(std::vector<std::string>(names.begin(), names.begin() + 7) ==
        std::vector<std::string>{"fuse-groups", "prune-dead-nodes", "contract-fma", "tensor-sums", "factor-sums", "footprint", "check-unused"});
}

TEST_CASE("--print-after=PASS prints the DAG once, after that pass, under its name") {
  passes::PassOptions o;
  o.printAfter = {"footprint"};
  bool ok = false;
  std::string log = passLog(kProgram, o, &ok);
  CHECK(ok);
  CHECK(count(log, "// ----- after ") == 1);
  CHECK(log.find("// ----- after footprint") != std::string::npos);
  // After the footprint pass the halo is known, and the dead folding leftovers are gone.
  CHECK(log.find("stencil s(i) : f64   // halo [1]") != std::string::npos);
  CHECK(log.find("const 2.0") == std::string::npos);
  CHECK(log.find("access u[1]") != std::string::npos);
}

TEST_CASE("--print-after-all prints after every pass, in order") {
  passes::PassOptions o;
  o.printAfterAll = true;
  std::string log = passLog(kProgram, o);
  size_t at = 0;
  for (const std::string& name : passes::standardPasses().names()) {
    size_t p = log.find("// ----- after " + name, at);
    CHECK_MESSAGE(p != std::string::npos, name);
    at = p == std::string::npos ? at : p;
  }
  CHECK(count(log, "// ----- after ") == passes::standardPasses().names().size());
}

TEST_CASE("--print-changed prints only after passes that changed the module") {
  passes::PassOptions o;
  o.printChanged = true;
  std::string log = passLog(kProgram, o);
  // No group to fuse and no warning to give; dead consts to prune and a halo to compute.
  CHECK(log.find("after fuse-groups") == std::string::npos);
  CHECK(log.find("after prune-dead-nodes (changed)") != std::string::npos);
  CHECK(log.find("after footprint (changed)") != std::string::npos);
  CHECK(log.find("after check-unused") == std::string::npos);  // a checking pass never changes the module
}

TEST_CASE("--time-passes reports one line per pass") {
  passes::PassOptions o;
  o.timePasses = true;
  std::string log = passLog(kProgram, o);
  for (const std::string& name : passes::standardPasses().names()) CHECK(log.find("pass " + name) != std::string::npos);
  CHECK(count(log, " ms") == passes::standardPasses().names().size());
}

TEST_CASE("no options, no log") {
  bool ok = false;
  CHECK(passLog(kProgram, {}, &ok).empty());
  CHECK(ok);
}

TEST_CASE("--verify-each accepts the standard pipeline on valid programs") {
  passes::PassOptions o;
  o.verifyEach = true;
  bool ok = false;
  std::string log = passLog(
      "stencil a(i, j) { in u; inout v; param w; boundary u = value(w); v = u[i+1, j] * v; }\n"
      "stencil b(i, j) { in u; out x; x = select(u > 0, u, -u[i, j-2]); }\n"
      "group g = a, b;\n",
      o, &ok);
  CHECK(ok);
  CHECK(log.find("internal error") == std::string::npos);
}

TEST_CASE("--verify-each catches a pass that breaks the DAG and names it") {
  dag::Module m = tinyModule();
  passes::PassManager pm;
  bool laterRan = false;
  pm.add("make-bool-output", [](dag::Module& mod, DiagEngine&) {
    mod.kernels[0].outputs[0].value = mod.ctx.boolean(true);
    return true;
  });
  pm.add("later", [&](dag::Module&, DiagEngine&) {
    laterRan = true;
    return false;
  });
  SourceManager sm;
  DiagEngine diags(sm);
  std::ostringstream log;
  passes::PassOptions o;
  o.verifyEach = true;
  CHECK_FALSE(pm.run(m, diags, o, log));
  CHECK(log.str().find("DAG invalid after pass 'make-bool-output'") != std::string::npos);
  CHECK(log.str().find("output 'o' is not real") != std::string::npos);
  CHECK_FALSE(laterRan);
}

TEST_CASE("without --verify-each a broken DAG is not checked") {
  dag::Module m = tinyModule();
  passes::PassManager pm;
  pm.add("make-bool-output", [](dag::Module& mod, DiagEngine&) {
    mod.kernels[0].outputs[0].value = mod.ctx.boolean(true);
    return true;
  });
  SourceManager sm;
  DiagEngine diags(sm);
  std::ostringstream log;
  CHECK(pm.run(m, diags, {}, log));
}

TEST_CASE("the pass manager stops at the first pass that reports an error") {
  dag::Module m = tinyModule();
  passes::PassManager pm;
  std::vector<std::string> ran;
  pm.add("first", [&](dag::Module&, DiagEngine&) {
    ran.push_back("first");
    return false;
  });
  pm.add("failing", [&](dag::Module&, DiagEngine& d) {
    ran.push_back("failing");
    d.report(DiagId::err_unknown_name, {}) << "x";
    return false;
  });
  pm.add("never", [&](dag::Module&, DiagEngine&) {
    ran.push_back("never");
    return false;
  });
  SourceManager sm;
  DiagEngine diags(sm);
  std::ostringstream log;
  passes::PassOptions o;
  o.printAfterAll = true;
  CHECK_FALSE(pm.run(m, diags, o, log));
  CHECK(ran == std::vector<std::string>{"first", "failing"});
  CHECK(log.str().find("after first") != std::string::npos);
  CHECK(log.str().find("after failing") == std::string::npos);
  CHECK(pm.names() == std::vector<std::string>{"first", "failing", "never"});
}

TEST_CASE("a warning does not stop the pass manager") {
  dag::Module m = tinyModule();
  passes::PassManager pm;
  bool second = false;
  pm.add("warn", [](dag::Module&, DiagEngine& d) {
    d.report(DiagId::warn_unused_param, {}) << "p";
    return false;
  });
  pm.add("second", [&](dag::Module&, DiagEngine&) {
    second = true;
    return false;
  });
  SourceManager sm;
  DiagEngine diags(sm);
  std::ostringstream log;
  CHECK(pm.run(m, diags, {}, log));
  CHECK(second);
}
