#include "support/SourceManager.h"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace stnc {

uint32_t SourceManager::add(std::string path, std::string text) {
  files_.push_back({std::move(path), std::move(text)});
  return static_cast<uint32_t>(files_.size());
}

uint32_t SourceManager::load(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return 0;  // an ifstream opens a directory and reads nothing
  std::ifstream in(path, std::ios::binary);
  if (!in) return 0;
  std::ostringstream ss;
  ss << in.rdbuf();
  return add(path, ss.str());
}

const std::string& SourceManager::path(uint32_t file) const { return files_.at(file - 1).path; }
const std::string& SourceManager::text(uint32_t file) const { return files_.at(file - 1).text; }

std::string SourceManager::line(uint32_t file, uint32_t line) const {
  const std::string& t = text(file);
  size_t pos = 0;
  for (uint32_t l = 1; l < line && pos != std::string::npos; ++l) {
    pos = t.find('\n', pos);
    if (pos != std::string::npos) ++pos;
  }
  if (pos == std::string::npos || pos > t.size()) return "";
  size_t end = t.find('\n', pos);
  std::string s = t.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
  if (!s.empty() && s.back() == '\r') s.pop_back();
  return s;
}

}  // namespace stnc
