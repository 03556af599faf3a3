// `stnc info FILE.stn`: the interface of every stencil and group as one JSON object.
#include <CLI/CLI.hpp>
#include <iostream>
#include <nlohmann/json.hpp>

#include "dag/InterfaceJson.h"
#include "driver/ArgText.h"
#include "driver/Driver.h"
#include "passes/AlignRegion.h"

namespace stnc::driver {

int infoMain(int argc, char** argv) {
  CLI::App app{"stnc info — print the stencils and groups of a .stn file as JSON:\n"
               "  {\"stencils\": [{name, axes, type, inputs, outputs, inouts, params, halo, footprint,\n"
               "                 regions, swaps, boundaries, align_region_column}],\n"
               "   \"groups\": [{name, members, ... the same keys}]}\n"
               "halo is one entry per axis; footprint gives, per field read, the lowest and highest offset per axis and\n"
               "its distinct loads; regions [{name, lo, hi}] (along axis a: lo[a] <= x < n[a] + hi[a]); swaps [[a, b]]\n"
               "(exchanged after each time step); boundaries [{field, rule, axes}]; align_region_column: the interior column\n"
               "layout() starts on a 128-byte boundary under --align-region=on (0: the first, as without). Empty arrays where\n"
               "a stencil has none.",
               "stnc info"};
  Frontend fe;
  fe.stdlibDir = defaultStdlibDir(argv[0]);
  std::string input;
  app.add_option("file", input, "The .stn source file")->required();
  addImportOptions(app, fe);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return cliExit(app, e);
  }
  std::optional<dag::Module> m = fe.compile(input);
  if (!m) return 1;
  nlohmann::ordered_json j;
  j["stencils"] = nlohmann::ordered_json::array();
  j["groups"] = nlohmann::ordered_json::array();
  for (const dag::Kernel& k : m->kernels) {
    nlohmann::ordered_json kj;
    kj["name"] = k.name;
    if (k.isGroup) kj["members"] = k.members;
    kj["axes"] = k.axes;
    kj["type"] = dag::elemTypeName(k.type);
    std::vector<std::string> in, out, inout;
    for (const dag::Field& f : k.fields)
      (f.role == dag::Role::In ? in : f.role == dag::Role::Out ? out : inout).push_back(f.name);
    kj["inputs"] = in;
    kj["outputs"] = out;
    kj["inouts"] = inout;
    kj["params"] = k.params;
    // Lower-rank inputs (`in c(k);`): the axes each has; its array is dense, n + 2*halo along each of them.
    nlohmann::ordered_json lower = nlohmann::ordered_json::object();
    for (const dag::Field& f : k.fields)
      if (f.lowerRank()) lower[f.name] = dag::fieldAxisNames(k, f);
    if (!lower.empty()) kj["field_axes"] = lower;
    kj["halo"] = std::vector<int>(k.footprint.halo.begin(), k.footprint.halo.begin() + k.rank());
    nlohmann::ordered_json fp = nlohmann::ordered_json::object();
    for (const dag::FieldFootprint& f : k.footprint.fields)
      fp[f.field] = {{"lo", std::vector<int>(f.lo.begin(), f.lo.begin() + k.rank())},
                     {"hi", std::vector<int>(f.hi.begin(), f.hi.begin() + k.rank())},
                     {"loads", f.accesses}};
    kj["footprint"] = fp;
    kj["regions"] = dag::regionsJson(k);
    // The interior column layout() aligns on 128 bytes when compiled with --align-region=on (0: column 0, as without).
    kj["align_region_column"] = passes::regionAlignColumn(k);
    kj["swaps"] = dag::swapsJson(k);
    kj["boundaries"] = dag::boundariesJson(k, false);
    (k.isGroup ? j["groups"] : j["stencils"]).push_back(kj);
  }
  std::cout << j.dump(2) << "\n";
  return 0;
}

}  // namespace stnc::driver
