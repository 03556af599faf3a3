#include "driver/PtxasCheck.h"

#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <regex>
#include <sstream>

#include "codegen/Backends.h"
#include "driver/Driver.h"
#include "driver/Files.h"

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
    if (std::regex_search(line, mm, entry)) {
      size_t len = std::stoul(mm[1]);
      size_t at = static_cast<size_t>(mm.position(0) + mm.length(0));
      current = line.find("sweepPart") != std::string::npos ? line.substr(at, len) : "";
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

bool verifySchedules(dag::Module& m, const std::string& arch, std::map<std::string, PtxasInfo>& info, std::string& error) {
  info.clear();
  if (!ptxasInfo(m, arch, info, error)) return false;
  for (dag::Kernel& k : m.kernels) {
    if (k.schedule.strategy != dag::Strategy::Stream || k.schedule.reason.rfind("forced", 0) == 0) continue;
    auto it = info.find(k.name);
    if (it == info.end()) continue;
    const PtxasInfo& pi = it->second;
    if (pi.spillStores == 0) {
      k.schedule.reason += "; ptxas: " + std::to_string(pi.registers) + " registers, no spills";
      continue;
    }
    k.schedule.strategy = dag::Strategy::Naive;
    k.schedule.reason = "stream rejected by ptxas (" + std::to_string(pi.registers) + " registers, " +
                        std::to_string(pi.spillStores) + " bytes spilled): naive";
  }
  return true;
}

}  // namespace stnc::driver
