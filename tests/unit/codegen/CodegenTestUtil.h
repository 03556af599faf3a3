// Helpers for codegen tests: generate every output of a program, and run the system C++ compiler
// on generated files in a fresh temporary directory.
#pragma once
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "unit/TestUtil.h"
#include "codegen/Backends.h"

namespace stnc::test {

// FILE.h, FILE.cpp, FILE.cu and FILE.json contents keyed by extension (FILE = "test").
inline std::map<std::string, std::string> generateAll(const dag::Module& m) {
  codegen::GenOptions o;
  o.stncVersion = "test";
  o.commandLine = "--target all";
  return {{".h", codegen::generateHeader(m, o)},
          {".cpp", codegen::generateCpp(m, o)},
          {".cu", codegen::generateCuda(m, o)},
          {".json", codegen::generateMetadata(m, o)}};
}

// The CUDA file of a program that must compile (default options).
inline std::string cudaOf(const std::string& src) {
  auto c = compileText(src);
  REQUIRE_MESSAGE(c->module, c->diagText());
  return generateAll(*c->module).at(".cu");
}

// A fresh directory under the system temp dir, removed on destruction.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    static int counter = 0;
    path = std::filesystem::temp_directory_path() /
           ("stnc_unit_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::string write(const std::string& name, const std::string& text) const {
    std::filesystem::path p = path / name;
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }
  std::string read(const std::string& name) const {
    std::ifstream in(path / name, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
};

// Runs `g++ FLAGS FILE` in dir; returns the exit status; the compiler's messages go to dir/cc.log.
inline int runCompiler(const TempDir& dir, const std::string& flags, const std::string& file) {
  std::string cmd = "cd '" + dir.path.string() + "' && g++ " + flags + " '" + file + "' > cc.log 2>&1";
  return std::system(cmd.c_str());
}

}  // namespace stnc::test
