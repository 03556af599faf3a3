#include "driver/PtxasCheck.h"

#include <unistd.h>

#include <array>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <regex>
#include <set>
#include <sstream>
#include <vector>

#include "codegen/Backends.h"
#include "driver/Driver.h"
#include "driver/Files.h"
#include "driver/FitBeside.h"
#include "passes/ChooseSchedule.h"

namespace stnc::driver {

namespace fs = std::filesystem;

namespace {
// The length-prefixed names of an Itanium-mangled nested name, from `at` up to its closing 'E'.
std::vector<std::string> nestedNames(const std::string& s, size_t at) {
  std::vector<std::string> names;
  while (at < s.size() && std::isdigit(static_cast<unsigned char>(s[at]))) {
    size_t len = 0;
    while (at < s.size() && std::isdigit(static_cast<unsigned char>(s[at]))) len = len * 10 + static_cast<size_t>(s[at++] - '0');
    if (len == 0 || at + len > s.size()) break;
    names.push_back(s.substr(at, len));
    at += len;
  }
  return names;
}
}  // namespace

std::map<std::string, PtxasInfo> parsePtxasLog(const std::string& log) {
  // "Compiling entry function '_ZN3stn<kernel>[<anonymous namespace>][<part namespace>]<sweepPart...>E...'" then
  // "N bytes stack frame, S bytes spill stores, L bytes spill loads" and "Used R registers".
  std::map<std::string, PtxasInfo> out;
  std::regex spill("(\\d+) bytes stack frame, (\\d+) bytes spill stores, (\\d+) bytes spill loads");
  std::regex regs("Used (\\d+) registers");
  std::istringstream in(log);
  std::string line;
  std::vector<std::string> keys;  // the entry's keys: its kernel (the last sweepPart entry of it) and kernel/part::function
  while (std::getline(in, line)) {
    std::smatch mm;
    // Every entry (the runtime's own kernels too: fills, the L2 flush) starts a new one.
    if (line.find("Compiling entry function") != std::string::npos) {
      keys.clear();
      const size_t at = line.find("'_ZN3stn");
      if (at == std::string::npos) continue;
      const std::vector<std::string> names = nestedNames(line, at + 8);
      // A sumfactor kernel's one-point fallback (naive_fallback::sweepPart) does not speak for it.
      if (names.size() < 2 || names.back().rfind("sweepPart", 0) != 0 || line.find("naive_fallback") != std::string::npos) continue;
      const std::string& part = names[names.size() - 2];
      keys.push_back(names.front());
      keys.push_back(names.front() + "/" + (part.rfind("_GLOBAL__N", 0) == 0 || part == names.front() ? "" : part + "::") + names.back());
      continue;
    }
    for (const std::string& key : keys) {
      if (std::regex_search(line, mm, spill)) {
        out[key].stackFrame = std::stoi(mm[1]);
        out[key].spillStores = std::stoi(mm[2]);
        out[key].spillLoads = std::stoi(mm[3]);
      }
      if (std::regex_search(line, mm, regs)) out[key].registers = std::stoi(mm[1]);
    }
  }
  return out;
}

bool ptxasInfo(const dag::Module& m, const std::string& arch, std::map<std::string, PtxasInfo>& out, std::string& error) {
  codegen::GenOptions go = genOptions("cuda");
  fs::path dir = fs::temp_directory_path() / ("stnc-ptxas-" + std::to_string(::getpid()));
  std::string base = (dir / m.sourceName).string();
  if (!writeFilesAtomically({{base + ".h", codegen::generateHeader(m, go)}, {base + ".cu", codegen::generateCuda(m, go)}},
                            error))
    return false;
  std::string cmd = "'" + findNvcc() + "' -std=c++17 -arch=" + arch + " -fmad=false -Xptxas -v -c -o '" + base +
                    ".o' '" + base + ".cu' 2>&1";
  std::string log;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (p) {
    std::array<char, 4096> buf;
    size_t n;
    while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) log.append(buf.data(), n);
  }
  int st = p ? ::pclose(p) : -1;
  std::error_code ec;
  fs::remove_all(dir, ec);
  if (st != 0) {
    error = "nvcc failed while checking schedules:\n" + log;
    return false;
  }
  out = parsePtxasLog(log);
  return true;
}

namespace {
// The naive mapping instead of a schedule ptxas rejected: it has no rows, vectors, rings or part schedules.
void demoteToNaive(dag::Kernel& k, const std::string& reason) {
  k.schedule.strategy = dag::Strategy::Naive;
  k.schedule.rows = k.schedule.vec = k.schedule.unroll = 1;
  k.schedule.smem = k.schedule.prefetch = 0;
  k.partSchedules.clear();  // no part keeps a ring schedule of the rejected one
  k.schedule.reason = reason;
}
}  // namespace

bool verifySchedules(dag::Module& m, const std::string& arch, std::map<std::string, PtxasInfo>& info, std::string& error, bool fitBeside,
                     bool blockGiven) {
  info.clear();
  if (!demoteSpilling(m, arch, info, error)) return false;
  if (!fitBeside) return true;
  const PtxasRun run = [&arch](const dag::Module& mm, std::map<std::string, PtxasInfo>& out, std::string& err) { return ptxasInfo(mm, arch, out, err); };
  return fitDefaultParts(m, passes::smVersionOf(arch), blockGiven, info, run, error);
}

bool demoteSpilling(dag::Module& m, const std::string& arch, std::map<std::string, PtxasInfo>& info, std::string& error) {
  if (!ptxasInfo(m, arch, info, error)) return false;
  std::set<std::string> restreamed;  // kernels whose spilling sumfactor schedule became the stream policy
  for (dag::Kernel& k : m.kernels) {
    const bool sumFactor = k.schedule.strategy == dag::Strategy::SumFactor;
    if ((!sumFactor && k.schedule.strategy != dag::Strategy::Stream) || k.schedule.reason.rfind("forced", 0) == 0) continue;
    auto it = info.find(k.name);
    if (it == info.end()) continue;
    const PtxasInfo& pi = it->second;
    if (pi.spillStores == 0) {
      k.schedule.reason += "; ptxas: " + std::to_string(pi.registers) + " registers, no spills";
      continue;
    }
    const std::string why = std::string(dag::strategyName(k.schedule.strategy)) + " rejected by ptxas (" + std::to_string(pi.registers) +
                            " registers, " + std::to_string(pi.spillStores) + " bytes spilled)";
    if (sumFactor) {  // the factored DAG under the stream policy instead (checked in a second round)
      passes::ScheduleOverride o;
      o.strategy = "stream";
      o.smVersion = passes::smVersionOf(arch);
      k.schedule = passes::chooseSchedule(m.ctx, k, o);
      passes::fillPartSchedules(m.ctx, k, o);
      k.schedule.reason = why + ": stream, " + k.schedule.reason.substr(k.schedule.reason.find(';') + 2);
      restreamed.insert(k.name);
      continue;
    }
    demoteToNaive(k, why + ": naive");
  }
  if (restreamed.empty()) return true;
  // Check the stream schedules that replaced spilling sumfactor ones (a second spill demotes them to naive).
  std::map<std::string, PtxasInfo> second;
  if (!ptxasInfo(m, arch, second, error)) return false;
  for (dag::Kernel& k : m.kernels) {
    if (!restreamed.count(k.name) || !second.count(k.name)) continue;
    info[k.name] = second[k.name];
    if (second[k.name].spillStores == 0) continue;
    demoteToNaive(k, k.schedule.reason + "; stream spills too (" + std::to_string(second[k.name].spillStores) + " bytes): naive");
  }
  return true;
}

}  // namespace stnc::driver
