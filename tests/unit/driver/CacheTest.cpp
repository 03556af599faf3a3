// driver/Cache: the compile cache of `stnc run` builds a library once per key, and a hit marks the
// library as the one used last (scripts find a run's library by the newest modification time).
#include <doctest/doctest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "unit/codegen/CodegenTestUtil.h"
#include "driver/Driver.h"

using namespace stnc;
namespace fs = std::filesystem;

namespace {

// Points STNC_CACHE_DIR at a directory for the lifetime of the object, then restores it.
struct CacheDirScope {
  std::string old;
  bool had = false;
  explicit CacheDirScope(const fs::path& dir) {
    if (const char* v = std::getenv("STNC_CACHE_DIR")) had = true, old = v;
    ::setenv("STNC_CACHE_DIR", dir.c_str(), 1);
  }
  ~CacheDirScope() { had ? ::setenv("STNC_CACHE_DIR", old.c_str(), 1) : ::unsetenv("STNC_CACHE_DIR"); }
};

driver::SharedObjectRequest cpuRequest(const std::string& body) {
  driver::SharedObjectRequest req;
  req.backend = "cpu";
  req.baseName = "k";
  req.header = "// k.h\n";
  req.source = "extern \"C\" int stnc_cache_test_value() { return " + body + "; }\n";
  return req;
}

}  // namespace

TEST_CASE("a cache hit returns the same library and marks it as used last") {
  test::TempDir dir;
  CacheDirScope scope(dir.path / "cache");
  std::string error;
  const std::string so = driver::buildSharedObject(cpuRequest("1"), false, error);
  REQUIRE_MESSAGE(!so.empty(), error);
  CHECK(fs::exists(so));

  const auto old = fs::file_time_type::clock::now() - std::chrono::hours(1);
  fs::last_write_time(so, old);
  const std::string again = driver::buildSharedObject(cpuRequest("1"), false, error);
  CHECK(again == so);
  CHECK(fs::last_write_time(so) > old + std::chrono::minutes(30));

  // A different source is a different key: a second library beside the first.
  const std::string other = driver::buildSharedObject(cpuRequest("2"), false, error);
  REQUIRE_MESSAGE(!other.empty(), error);
  CHECK(other != so);
  CHECK(fs::exists(so));
}
