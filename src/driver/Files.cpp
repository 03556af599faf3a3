#include "driver/Files.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace stnc::driver {

namespace fs = std::filesystem;

bool writeFilesAtomically(const std::vector<std::pair<std::string, std::string>>& files, std::string& error) {
  std::vector<std::string> temps;
  auto cleanup = [&] {
    for (auto& t : temps) std::remove(t.c_str());
  };
  for (auto& [path, content] : files) {
    std::error_code ec;
    fs::path parent = fs::path(path).parent_path();
    if (!parent.empty()) fs::create_directories(parent, ec);
    std::string tmp = path + ".tmp." + std::to_string(::getpid());
    std::ofstream out(tmp, std::ios::binary);
    if (!out) {
      error = "cannot write '" + path + "'";
      cleanup();
      return false;
    }
    temps.push_back(tmp);
    out << content;
    out.close();
    if (!out) {
      error = "cannot write '" + path + "' (disk full?)";
      cleanup();
      return false;
    }
  }
  for (size_t i = 0; i < files.size(); ++i) {
    if (std::rename(temps[i].c_str(), files[i].first.c_str()) != 0) {
      error = "cannot replace '" + files[i].first + "'";
      cleanup();
      return false;
    }
  }
  return true;
}

bool readFile(const std::string& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  return true;
}

std::string hashHex(const std::string& data) {
  uint64_t h = 14695981039346656037ull;  // FNV-1a 64 offset basis
  for (unsigned char c : data) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

}  // namespace stnc::driver
