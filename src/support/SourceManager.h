// SourceManager: owns the text of every file the compiler reads, so diagnostics can quote lines.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace stnc {

// A position in a source file. file == 0 means "no location" (a command-line problem, say).
struct Loc {
  uint32_t file = 0;
  uint32_t line = 0;  // 1-based
  uint32_t col = 0;   // 1-based, in bytes
  bool valid() const { return file != 0; }
};

class SourceManager {
 public:
  // Registers a buffer and returns its file id (>= 1).
  uint32_t add(std::string path, std::string text);
  // Reads a file from disk; returns 0 when it cannot be read.
  uint32_t load(const std::string& path);
  const std::string& path(uint32_t file) const;
  const std::string& text(uint32_t file) const;
  // The text of a 1-based line, without its newline.
  std::string line(uint32_t file, uint32_t line) const;
  size_t fileCount() const { return files_.size(); }

 private:
  struct File {
    std::string path, text;
  };
  std::vector<File> files_;
};

}  // namespace stnc
