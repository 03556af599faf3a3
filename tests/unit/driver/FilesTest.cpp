// driver/Files: writeFilesAtomically writes all files or none, and leaves no temporaries behind.
#include <doctest/doctest.h>

#include <filesystem>

#include "unit/codegen/CodegenTestUtil.h"
#include "driver/Files.h"

using namespace stnc;
namespace fs = std::filesystem;

namespace {

size_t entryCount(const fs::path& dir) {
  size_t n = 0;
  for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator(); ++it) ++n;
  return n;
}

}  // namespace

TEST_CASE("all files of a batch are written, creating missing directories") {
  test::TempDir dir;
  std::string a = (dir.path / "a.h").string(), b = (dir.path / "sub" / "deeper" / "b.cpp").string();
  std::string error;
  REQUIRE_MESSAGE(driver::writeFilesAtomically({{a, "AAA"}, {b, std::string("B\0B", 3)}}, error), error);
  std::string got;
  CHECK(driver::readFile(a, got));
  CHECK(got == "AAA");
  CHECK(driver::readFile(b, got));
  CHECK(got == std::string("B\0B", 3));
  // a.h, sub, sub/deeper, sub/deeper/b.cpp: no temporaries left.
  CHECK(entryCount(dir.path) == 4);
}

TEST_CASE("existing files are replaced") {
  test::TempDir dir;
  std::string a = dir.write("a.h", "old");
  std::string error;
  REQUIRE(driver::writeFilesAtomically({{a, "new"}}, error));
  CHECK(dir.read("a.h") == "new");
}

TEST_CASE("an existing file is untouched when a later file of the batch cannot be written") {
  test::TempDir dir;
  std::string a = dir.write("a.h", "old contents");
  // The parent of the second file is a regular file, so it cannot be created (even as root).
  dir.write("blocker", "x");
  std::string b = (dir.path / "blocker" / "b.cpp").string();
  std::string error;
  CHECK_FALSE(driver::writeFilesAtomically({{a, "new contents"}, {b, "B"}}, error));
  CHECK(error.find("b.cpp") != std::string::npos);
  CHECK(dir.read("a.h") == "old contents");
  // Nothing else was created: a.h and blocker only.
  CHECK(entryCount(dir.path) == 2);
}

TEST_CASE("a new file is not created when another file of the batch fails") {
  test::TempDir dir;
  dir.write("blocker", "x");
  std::string a = (dir.path / "a.h").string(), b = (dir.path / "blocker" / "b.cpp").string();
  std::string error;
  CHECK_FALSE(driver::writeFilesAtomically({{a, "A"}, {b, "B"}}, error));
  CHECK_FALSE(fs::exists(a));
  CHECK(entryCount(dir.path) == 1);
}

// BUG: writeFilesAtomically renames the temporaries one after the other; when a later rename
// fails (here the destination of the second file is an existing directory, so rename() fails
// with EISDIR after every temporary was written), the earlier files have already been replaced.
// Expected: a.h still holds "old contents" (all or none, as Files.h promises); actual: a.h
// holds "new contents" and the call returns false.
TEST_CASE("an existing file is untouched when a later rename fails" * doctest::skip()) {
  test::TempDir dir;
  std::string a = dir.write("a.h", "old contents");
  fs::create_directories(dir.path / "b.cpp" / "inside");
  std::string b = (dir.path / "b.cpp").string();
  std::string error;
  CHECK_FALSE(driver::writeFilesAtomically({{a, "new contents"}, {b, "B"}}, error));
  CHECK(dir.read("a.h") == "old contents");
}

TEST_CASE("readFile reports a missing file") {
  std::string out = "unchanged";
  CHECK_FALSE(driver::readFile("/nonexistent/dir/file", out));
}

TEST_CASE("hashHex is a deterministic 64-bit hex digest sensitive to order") {
  CHECK(driver::hashHex("abc") == driver::hashHex("abc"));
  CHECK(driver::hashHex("abc").size() == 16);
  CHECK(driver::hashHex("ab") != driver::hashHex("ba"));
  CHECK(driver::hashHex("") != driver::hashHex(std::string(1, '\0')));
}

// Regression (fixed): hashHex (Files.cpp) is documented as 64-bit FNV-1a but starts from 1469598103934665603,
// the FNV offset basis 14695981039346656037 with its last digit dropped, so every digest differs
// from FNV-1a (hashHex("") is "14650fb0739d0383", not "cbf29ce484222325"). Cache keys still work,
// but the hash is not the documented one.
TEST_CASE("hashHex is 64-bit FNV-1a") {
  // Reference values of the FNV-1a 64 specification.
  CHECK(driver::hashHex("") == "cbf29ce484222325");
  CHECK(driver::hashHex("a") == "af63dc4c8601ec8c");
  CHECK(driver::hashHex("foobar") == "85944171f73967e8");
}
