#include "driver/PtxasCheck.h"

#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <regex>
#include <set>
#include <sstream>

#include "codegen/Backends.h"
#include "driver/Driver.h"
#include "driver/Files.h"
#include "passes/ChooseSchedule.h"

namespace stnc::driver {

namespace fs = std::filesystem;

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
  // "Compiling entry function '_ZN3stn5star7...sweepKernel...'" then "... N bytes spill stores, M bytes spill loads"
  // and "Used R registers".
  std::regex entry("Compiling entry function '_ZN3stn(\\d+)");
  std::regex regs("Used (\\d+) registers");
  std::regex spill("(\\d+) bytes stack frame, (\\d+) bytes spill stores, (\\d+) bytes spill loads");
  std::istringstream in(log);
  std::string line, current;
  while (std::getline(in, line)) {
    std::smatch mm;
    // Every entry (the runtime's own kernels too: fills, the L2 flush) starts a new one.
    if (line.find("Compiling entry function") != std::string::npos) current.clear();
    if (std::regex_search(line, mm, entry)) {
      size_t len = std::stoul(mm[1]);
      size_t at = static_cast<size_t>(mm.position(0) + mm.length(0));
      current = line.find("sweepPart") != std::string::npos ? line.substr(at, len) : "";
      // A sumfactor kernel's one-point fallback (naive_fallback::sweepPart) does not speak for it.
      if (!current.empty() && line.find("naive_fallback") != std::string::npos) current.clear();
      continue;
    }
    if (current.empty()) continue;
    if (std::regex_search(line, mm, spill)) {
      out[current].stackFrame = std::stoi(mm[1]);
      out[current].spillStores = std::stoi(mm[2]);
      out[current].spillLoads = std::stoi(mm[3]);
    }
    if (std::regex_search(line, mm, regs)) out[current].registers = std::stoi(mm[1]);
  }
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

bool verifySchedules(dag::Module& m, const std::string& arch, std::map<std::string, PtxasInfo>& info, std::string& error) {
  info.clear();
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
