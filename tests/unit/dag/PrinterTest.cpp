// dag/Printer: --emit=dag|json|dot show every part of a kernel with regions (the regions' bounds and which
// equation belongs to which region), and swaps in JSON, so tools (scripts/gpu/gpu_check.py) can tell which
// points an output's equations write.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <map>
#include <sstream>

#include "dag/Printer.h"
#include "unit/TestUtil.h"

using namespace stnc;

namespace {
const char* const kRegions =
    "stencil back(i, j, k) : f64 { in u; out a, b; inout v; swap u, v;\n"
    "  region r0 = [2:-2, :, :-1];\n"
    "  a @ r0 = u[i-1, j, k] + v;\n"
    "  a = u + v;\n"
    "  b = 2.0 * u;\n"
    "  v = 2.0 * u - v; }";

// kRegions through the real pipeline, printed by one of the printers.
std::string printed(void (*print)(std::ostream&, const dag::Module&)) {
  auto c = test::compileText(kRegions);
  REQUIRE_MESSAGE(c->module, c->diagText());
  std::ostringstream os;
  print(os, *c->module);
  return os.str();
}
}  // namespace

TEST_CASE("--emit=dag prints regions and which equations are region equations") {
  const std::string t = printed(dag::printText);
  CHECK(t.find("  region r0 [2:-2, 0:0, 0:-1]\n") != std::string::npos);
  CHECK(t.find("  a @ r0 = %") != std::string::npos);
  CHECK(t.find("  a = %") != std::string::npos);
  CHECK(t.find("  b = %") != std::string::npos);
  CHECK(t.find("  b @") == std::string::npos);
  CHECK(t.find("  swap u, v\n") != std::string::npos);
}

TEST_CASE("--emit=json lists regions with bounds, each output's region and the swaps") {
  const auto j = nlohmann::json::parse(printed(dag::printJson));
  const auto& k = j.at("kernels").at(0);
  REQUIRE(k.at("regions").size() == 1);
  CHECK(k["regions"][0]["name"] == "r0");
  CHECK(k["regions"][0]["lo"] == nlohmann::json::array({2, 0, 0}));
  CHECK(k["regions"][0]["hi"] == nlohmann::json::array({-2, 0, -1}));
  int inRegion = 0, defaults = 0;
  for (const auto& o : k.at("outputs")) {
    if (o.contains("region")) {
      CHECK(o["field"] == "a");
      CHECK(o["region"] == "r0");
      ++inRegion;
    } else {
      ++defaults;
    }
  }
  CHECK(inRegion == 1);
  CHECK(defaults == 3);
  CHECK(k.at("swaps") == nlohmann::json::array({nlohmann::json::array({"u", "v"})}));
}

TEST_CASE("--emit=dot gives a field's region and default equations separate sinks") {
  const std::string t = printed(dag::printDot);
  CHECK(t.find("\"back_out_a@r0\" [label=\"a @ r0\"") != std::string::npos);
  CHECK(t.find("\"back_out_a\" [label=\"a\"") != std::string::npos);
}

TEST_CASE("--emit=json lists boundary rules, a value rule's expression among the nodes") {
  auto c = test::compileText("stencil b(i, j) { in u, w; out r; param p;\n"
                             "  boundary u = value(0.5 + 2.0 * p);\n"
                             "  boundary w(j) = mirror;\n"
                             "  r = u[i-1, j] + w[i, j+1]; }");
  REQUIRE_MESSAGE(c->module, c->diagText());
  std::ostringstream os;
  dag::printJson(os, *c->module);
  const auto k = nlohmann::json::parse(os.str()).at("kernels").at(0);
  REQUIRE(k.at("boundaries").size() == 2);
  const auto& bu = k["boundaries"][0];
  CHECK(bu["field"] == "u");
  CHECK(bu["rule"] == "value");
  CHECK(bu["axes"] == nlohmann::json::array({"i", "j"}));
  const auto& bw = k["boundaries"][1];
  CHECK(bw["rule"] == "mirror");
  CHECK(bw["axes"] == nlohmann::json::array({"j"}));
  CHECK_FALSE(bw.contains("value"));
  // the value's expression (0.5 + 2.0 * p) is listed: an add whose operands are listed too
  const int value = bu.at("value").get<int>();
  std::map<int, nlohmann::json> nodes;
  for (const auto& n : k.at("nodes")) nodes[n.at("id").get<int>()] = n;
  REQUIRE(nodes.count(value));
  CHECK(nodes[value]["op"] == "add");
  bool param = false;
  for (const auto& [id, n] : nodes) {
    for (const auto& o : n.value("operands", nlohmann::json::array())) CHECK(nodes.count(o.get<int>()));
    param |= n.value("param", "") == "p";
  }
  CHECK(param);
}
