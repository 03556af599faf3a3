// stnc_gen: the random program generator (Gen.cpp) on its own, for the GPU random campaign
// (scripts/gpu/random_campaign.py). Needs nothing but a C++17 compiler, so the device machine can
// build it from the tree:  g++ -std=c++17 -O2 -o stnc_gen tests/random/Gen.cpp tests/random/GenMain.cpp
//
//   stnc_gen campaign --seed S --count N --batch B --out DIR [--transcendental-every K] [--region-chance P]
//                     [--lower-chance P]
//       Generates cases 0..N-1 of seed S (the same programs as `stnc_random check --seed S`, apart
//       from the transcendental switch below) and writes
//         DIR/r<rank>_b<k>.stn   the cases grouped by rank, at most B per file (one compile of
//                                generated code per file, backend and schedule);
//         DIR/cases/c<i>.stn     each case alone (reproducers);
//         DIR/manifest.jsonl     one JSON object per case: file, kernel, rank, type, fields and
//                                roles, swaps, boundary-ruled axes per field, regions (bounds)
//                                and the parts that write each output, and two runs (the
//                                generator's small extents, made odd, and medium odd extents),
//                                each with steps, params, an input seed and whether interior-shaped
//                                inputs are passed where boundary rules fill the halo.
//       --transcendental-every K: only every K-th case (index % K == K - 1) may call
//       exp/log/pow/sin/cos (default 4; 1 = all, 0 = none), so most cases are compared bit for bit.
//       --region-chance P: the share of single stencils with regions (default 0.3, as stnc_random).
//       --lower-chance P: of single stencils of rank >= 2 with lower-rank inputs (default 0.3, as stnc_random).
//   stnc_gen print --seed S --index I [--region-chance P] [--lower-chance P]     prints one case.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "Gen.h"

namespace fs = std::filesystem;
using namespace stnrand;

namespace {

std::string jsonString(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    o += c;
  }
  return o + "\"";
}

// {"name": [1, 2], ...}
void writeIntSets(std::ostream& o, const std::map<std::string, std::set<int>>& m) {
  o << "{";
  bool first = true;
  for (const auto& [name, values] : m) {
    o << (first ? "" : ", ") << jsonString(name) << ": [";
    first = false;
    bool fv = true;
    for (int v : values) {
      o << (fv ? "" : ", ") << v;
      fv = false;
    }
    o << "]";
  }
  o << "}";
}

std::string num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

const char* roleName(Role r) { return r == Role::In ? "in" : r == Role::Out ? "out" : "inout"; }

struct Run {
  std::vector<long> size;
  long steps = 0;
  std::map<std::string, double> params;
  uint64_t inputSeed = 0;
  bool interior = false;
};

// The two runs of a case: the generator's own (extents made odd) and one on medium odd extents
// (several CUDA blocks along the inner axes, several stream chunks along the outer one).
std::vector<Run> runsOf(const Case& c) {
  std::vector<Run> runs(2);
  runs[0].size = c.size;
  for (long& n : runs[0].size) n |= 1;
  runs[0].steps = c.steps;
  runs[0].params = c.params;
  runs[0].inputSeed = c.inputSeed;
  runs[0].interior = c.interiorInputs;
  Rng g(mixSeed(c.inputSeed, 0xCA3Bull));
  Run& m = runs[1];
  for (int a = 0; a < c.rank; ++a)
    m.size.push_back(c.rank == 1 ? g.range(64, 512) * 2 + 1 : c.rank == 2 ? g.range(16, 48) * 2 + 1 : g.range(6, 20) * 2 + 1);
  bool swaps = false;
  for (auto& s : c.stencils) swaps |= !s.swaps.empty();
  m.steps = swaps ? g.range(1, 3) : (g.chance(0.15) ? 1 : 0);
  m.params = c.params;
  for (auto& [k, v] : m.params) v = g.range(-150, 150) / 100.0 + (g.chance(0.3) ? g.unit() * 1e-3 : 0.0);
  m.inputSeed = g.next();
  m.interior = !c.interiorInputs;
  return runs;
}

std::string manifestLine(const Case& c, const std::string& file, const std::string& single) {
  // The kernel's fields (a group's merged by name in member order; written roles win).
  std::vector<std::pair<std::string, Role>> fields;
  std::vector<std::pair<std::string, std::string>> swaps;
  std::map<std::string, std::set<int>> ruled;
  for (const StencilDecl& s : c.stencils) {
    for (const FieldDecl& f : s.fields) {
      bool found = false;
      for (auto& [n, r] : fields)
        if (n == f.name) {
          found = true;
          if (f.role != Role::In) r = f.role;
        }
      if (!found) fields.push_back({f.name, f.role});
    }
    for (auto& sw : s.swaps) swaps.push_back(sw);
    for (const Boundary& b : s.boundaries)
      for (int a = 0; a < c.rank; ++a)
        if (b.axes.empty() || std::find(b.axes.begin(), b.axes.end(), a) != b.axes.end()) ruled[b.field].insert(a);
  }
  std::ostringstream o;
  o << "{\"index\": " << c.index << ", \"file\": " << jsonString(file) << ", \"single\": " << jsonString(single)
    << ", \"kernel\": " << jsonString(c.kernelName()) << ", \"rank\": " << c.rank << ", \"type\": \""
    << (c.f32 ? "f32" : "f64") << "\", \"transcendental\": " << (c.transcendental ? "true" : "false")
    << ", \"group\": " << (c.group.empty() ? "false" : "true") << ", \"fields\": [";
  for (size_t i = 0; i < fields.size(); ++i)
    o << (i ? ", " : "") << "{\"name\": " << jsonString(fields[i].first) << ", \"role\": \"" << roleName(fields[i].second)
      << "\"}";
  o << "], \"swaps\": [";
  for (size_t i = 0; i < swaps.size(); ++i)
    o << (i ? ", " : "") << "[" << jsonString(swaps[i].first) << ", " << jsonString(swaps[i].second) << "]";
  o << "], \"ruled\": ";
  writeIntSets(o, ruled);
  o << ", \"regions\": [";
  // Regions (single stencils only) and, per output, the parts whose equations write it (-1: the
  // default equations, else a region's index): the campaign knows which interior points no
  // equation writes (they keep the buffer's contents: zeros in `stnc run`, NaN in the harness).
  std::map<std::string, std::set<int>> parts;
  for (const StencilDecl& s : c.stencils) {
    for (size_t r = 0; r < s.regions.size(); ++r) {
      const RegionDecl& g = s.regions[r];
      o << (r ? ", " : "") << "{\"name\": " << jsonString(g.name) << ", \"lo\": [";
      for (int a = 0; a < c.rank; ++a) o << (a ? ", " : "") << g.lo[a];
      o << "], \"hi\": [";
      for (int a = 0; a < c.rank; ++a) o << (a ? ", " : "") << g.hi[a];
      o << "]}";
    }
    for (const Equation& e : s.eqs) {
      int part = -1;
      for (size_t r = 0; r < s.regions.size(); ++r)
        if (s.regions[r].name == e.region) part = static_cast<int>(r);
      parts[e.field].insert(part);
    }
  }
  o << "], \"region_text\": " << jsonString(describeRegions(c)) << ", \"written\": ";
  writeIntSets(o, parts);
  o << ", \"runs\": [";
  std::vector<Run> runs = runsOf(c);
  for (size_t r = 0; r < runs.size(); ++r) {
    const Run& run = runs[r];
    o << (r ? ", " : "") << "{\"size\": [";
    for (size_t a = 0; a < run.size.size(); ++a) o << (a ? ", " : "") << run.size[a];
    o << "], \"steps\": " << run.steps << ", \"inputseed\": \"" << run.inputSeed << "\", \"interior\": "
      << (run.interior ? "true" : "false") << ", \"params\": {";
    bool fp = true;
    for (auto& [k, v] : run.params) {
      o << (fp ? "" : ", ") << jsonString(k) << ": " << num(v);
      fp = false;
    }
    o << "}}";
  }
  o << "]}";
  return o.str();
}

bool writeText(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
  return static_cast<bool>(out);
}

int campaign(uint64_t seed, int count, int batch, const std::string& outDir, int transcendentalEvery, double regionChance,
             double lowerChance) {
  fs::create_directories(fs::path(outDir) / "cases");
  std::map<int, std::vector<Case>> byRank;
  for (int i = 0; i < count; ++i) {
    GenOptions o;
    o.transcendental = transcendentalEvery > 0 && i % transcendentalEvery == transcendentalEvery - 1;
    o.regionChance = regionChance;
    o.lowerChance = lowerChance;
    Case c = generateCase(seed, i, o);
    byRank[c.rank].push_back(std::move(c));
  }
  std::ofstream manifest(fs::path(outDir) / "manifest.jsonl", std::ios::binary);
  int files = 0;
  for (auto& [rank, cases] : byRank)
    for (size_t b0 = 0; b0 < cases.size(); b0 += static_cast<size_t>(batch)) {
      char name[64];
      std::snprintf(name, sizeof name, "r%d_b%03zu.stn", rank, b0 / static_cast<size_t>(batch));
      std::string text = "// stnc_gen campaign --seed " + std::to_string(seed) + ": rank " + std::to_string(rank) + "\n";
      for (size_t i = b0; i < cases.size() && i < b0 + static_cast<size_t>(batch); ++i) {
        const Case& c = cases[i];
        std::string one = printCase(c);
        text += one + "\n";
        std::string single = "cases/c" + std::to_string(c.index) + ".stn";
        if (!writeText(fs::path(outDir) / single, one)) {
          std::fprintf(stderr, "stnc_gen: cannot write %s\n", single.c_str());
          return 1;
        }
        manifest << manifestLine(c, name, single) << "\n";
      }
      if (!writeText(fs::path(outDir) / name, text)) {
        std::fprintf(stderr, "stnc_gen: cannot write %s\n", name);
        return 1;
      }
      ++files;
    }
  manifest.close();
  if (!manifest) {
    std::fprintf(stderr, "stnc_gen: cannot write the manifest\n");
    return 1;
  }
  std::printf("stnc_gen: %d cases of seed %llu in %d files under %s (rank 1: %zu, rank 2: %zu, rank 3: %zu)\n", count,
              static_cast<unsigned long long>(seed), files, outDir.c_str(), byRank[1].size(), byRank[2].size(),
              byRank[3].size());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: stnc_gen campaign|print [options] (see tests/random/GenMain.cpp)\n");
    return 2;
  }
  std::string cmd = argv[1], out;
  uint64_t seed = 1;
  int count = 100, batch = 40, every = 4, index = 0;
  double regionChance = GenOptions{}.regionChance, lowerChance = GenOptions{}.lowerChance;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    if (i + 1 >= argc) {
      std::fprintf(stderr, "stnc_gen: %s needs a value\n", a.c_str());
      return 2;
    }
    std::string v = argv[++i];
    if (a == "--seed") seed = std::stoull(v);
    else if (a == "--count") count = std::stoi(v);
    else if (a == "--batch") batch = std::max(1, std::stoi(v));
    else if (a == "--out") out = v;
    else if (a == "--transcendental-every") every = std::stoi(v);
    else if (a == "--index") index = std::stoi(v);
    else if (a == "--region-chance") regionChance = std::stod(v);
    else if (a == "--lower-chance") lowerChance = std::stod(v);
    else {
      std::fprintf(stderr, "stnc_gen: unknown option %s\n", a.c_str());
      return 2;
    }
  }
  if (cmd == "print") {
    GenOptions o;
    o.regionChance = regionChance;
    o.lowerChance = lowerChance;
    std::printf("%s", printCase(generateCase(seed, index, o)).c_str());
    return 0;
  }
  if (cmd == "campaign") {
    if (out.empty()) {
      std::fprintf(stderr, "stnc_gen: --out DIR is required\n");
      return 2;
    }
    return campaign(seed, count, batch, out, every, regionChance, lowerChance);
  }
  std::fprintf(stderr, "stnc_gen: unknown command %s\n", cmd.c_str());
  return 2;
}
