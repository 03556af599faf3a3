// driver/Info: `stnc info FILE.stn` prints each stencil's interface as JSON, regions, swaps and boundary rules
// included (dag/InterfaceJson, the same form as --emit=json and the generated FILE.json).
#include <doctest/doctest.h>

#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "driver/Driver.h"
#include "unit/codegen/CodegenTestUtil.h"

using namespace stnc;

namespace {

// Runs `stnc info ARGS` in-process; returns its exit status and stdout.
int runInfo(std::vector<std::string> args, std::string& out) {
  args.insert(args.begin(), "info");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  std::ostringstream captured;
  std::streambuf* old = std::cout.rdbuf(captured.rdbuf());
  const int rc = driver::infoMain(static_cast<int>(argv.size()), argv.data());
  std::cout.rdbuf(old);
  out = captured.str();
  return rc;
}

}  // namespace

TEST_CASE("stnc info lists regions, swaps and boundary rules - empty arrays where a stencil has none") {
  test::TempDir dir;
  const std::string file = dir.write("w.stn",
                                     "stencil wave(i, j) : f64 {\n"
                                     "  in u, c; inout v; swap u, v;\n"
                                     "  region inner = [2:-2, 1:-1];\n"
                                     "  boundary u(j) = periodic;\n"
                                     "  v @ inner = 2.0 * u - v + c * (u[i-1,j] + u[i+1,j] + u[i,j-1] + u[i,j+1] - 4.0 * u);\n"
                                     "  v = u;\n"
                                     "}\n"
                                     "stencil copy(i) : f64 { in a; out b; b = a[i-1]; }\n");
  std::string out;
  REQUIRE(runInfo({file}, out) == 0);
  const nlohmann::json j = nlohmann::json::parse(out);
  REQUIRE(j.at("stencils").size() == 2);
  const nlohmann::json& w = j["stencils"][0];
  CHECK(w["name"] == "wave");
  REQUIRE(w.at("regions").size() == 1);
  CHECK(w["regions"][0]["name"] == "inner");
  CHECK(w["regions"][0]["lo"] == nlohmann::json::array({2, 1}));
  CHECK(w["regions"][0]["hi"] == nlohmann::json::array({-2, -1}));
  CHECK(w.at("swaps") == nlohmann::json::array({nlohmann::json::array({"u", "v"})}));
  REQUIRE(w.at("boundaries").size() == 1);
  CHECK(w["boundaries"][0]["field"] == "u");
  CHECK(w["boundaries"][0]["rule"] == "periodic");
  CHECK(w["boundaries"][0]["axes"] == nlohmann::json::array({"j"}));
  CHECK_FALSE(w["boundaries"][0].contains("value"));  // node ids only where the nodes are listed (--emit=json)
  const nlohmann::json& c = j["stencils"][1];
  CHECK(c.at("regions") == nlohmann::json::array());
  CHECK(c.at("swaps") == nlohmann::json::array());
  CHECK(c.at("boundaries") == nlohmann::json::array());
  CHECK(c.at("halo") == nlohmann::json::array({1}));
}

TEST_CASE("stnc info on a file with errors exits 1 and prints no JSON") {
  test::TempDir dir;
  const std::string file = dir.write("bad.stn", "stencil s(i) : f64 { in a; out b; b = nosuch[i]; }\n");
  std::string out;
  CHECK(runInfo({file}, out) == 1);
  CHECK(out.empty());
}
