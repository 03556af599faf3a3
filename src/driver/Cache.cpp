// The compile cache of `stnc run`: generated code is compiled once per key, where the key covers
// everything that affects the binary: stnc version, backend, the generated sources (which encode
// the .stn source and options), the compiler's path, its version and the flags.
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "driver/Driver.h"
#include "driver/Files.h"

namespace stnc::driver {

namespace fs = std::filesystem;

namespace {

std::string cacheRoot() {
  if (const char* d = std::getenv("STNC_CACHE_DIR")) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME")) return std::string(x) + "/stnc";
  if (const char* h = std::getenv("HOME")) return std::string(h) + "/.cache/stnc";
  return "/tmp/stnc-cache";
}

std::string capture(const std::string& cmd, int& status) {
  std::string out;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) {
    status = -1;
    return out;
  }
  std::array<char, 4096> buf;
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  status = ::pclose(p);
  return out;
}

std::string shellQuote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

}  // namespace

std::string findNvcc() {
  if (const char* e = std::getenv("NVCC")) return e;
  std::string built = STNC_NVCC;
  if (!built.empty() && built.find("NOTFOUND") == std::string::npos && fs::exists(built)) return built;
  if (fs::exists("/usr/local/cuda/bin/nvcc")) return "/usr/local/cuda/bin/nvcc";
  return "nvcc";
}

std::string buildSharedObject(const SharedObjectRequest& req, bool verbose, std::string& error) {
  std::string compiler, flags;
  if (req.backend == "cpu") {
    const char* cxx = std::getenv("CXX");
    compiler = cxx ? cxx : "c++";
    flags = "-std=c++17 -O3 -fopenmp -fPIC -shared -ffp-contract=off -Wall -Wextra";
  } else {
    compiler = findNvcc();
    flags = "-std=c++17 -O3 -arch=" + req.arch + " -fmad=false -Xcompiler -fPIC -shared";
  }
  int st = 0;
  std::string version = capture(shellQuote(compiler) + " --version 2>&1", st);
  if (st != 0) {
    error = "cannot run the " + req.backend + " compiler '" + compiler + "'" +
            (req.backend == "cuda" ? " (install the CUDA toolkit or set NVCC)" : " (set CXX)");
    return "";
  }
  std::string key = hashHex(stncVersion() + "\n" + req.backend + "\n" + compiler + "\n" + version + "\n" + flags + "\n" +
                            req.header + "\n" + req.source);
  fs::path dir = fs::path(cacheRoot()) / (req.baseName + "-" + req.backend + "-" + key);
  fs::path so = dir / "lib.so";
  if (fs::exists(so)) {
    if (verbose) std::fprintf(stderr, "stnc: using cached %s\n", so.c_str());
    // A hit marks the library as the one used last: scripts that look a run's library up by the newest
    // modification time (scripts/gpu/gpu_check.py, random_campaign.py) then find this one, not one that a
    // different stnc built later. Best effort: a read-only cache still runs.
    std::error_code touch;
    fs::last_write_time(so, fs::file_time_type::clock::now(), touch);
    return so.string();
  }
  std::error_code ec;
  fs::path tmp = fs::path(cacheRoot()) / ("tmp-" + key + "-" + std::to_string(::getpid()));
  fs::create_directories(tmp, ec);
  if (ec) {
    error = "cannot create cache directory '" + tmp.string() + "': " + ec.message();
    return "";
  }
  std::string ext = req.backend == "cpu" ? ".cpp" : ".cu";
  std::string werr;
  if (!writeFilesAtomically({{(tmp / (req.baseName + ".h")).string(), req.header},
                             {(tmp / (req.baseName + ext)).string(), req.source}},
                            werr)) {
    error = werr;
    return "";
  }
  std::string cmd = shellQuote(compiler) + " " + flags + " -o " + shellQuote((tmp / "lib.so").string()) + " " +
                    shellQuote((tmp / (req.baseName + ext)).string()) + " 2>&1";
  if (verbose) std::fprintf(stderr, "stnc: %s\n", cmd.c_str());
  std::string out = capture(cmd, st);
  if (st != 0) {
    error = "compiling the generated " + req.backend + " code failed:\n" + out;
    fs::remove_all(tmp, ec);
    return "";
  }
  fs::create_directories(dir.parent_path(), ec);
  fs::rename(tmp, dir, ec);
  if (ec) {  // another process won the race: use its result
    fs::remove_all(tmp, ec);
    if (!fs::exists(so)) {
      error = "cannot populate the compile cache at '" + dir.string() + "'";
      return "";
    }
  }
  return so.string();
}

}  // namespace stnc::driver
