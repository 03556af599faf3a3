// driver/Files: writeFilesAtomically writes all files or none, and leaves no temporaries behind.
#include <doctest/doctest.h>

#include <cerrno>
#include <cstdio>
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
  CHECK(error.find("blocker' is not a directory") != std::string::npos);  // `stnc x.stn -o FILE` says why
  CHECK(dir.read("a.h") == "old contents");
  // Nothing else was created: a.h and blocker only.
  CHECK(entryCount(dir.path) == 2);
}

TEST_CASE("a blocking file several directories up is named, and the directories made on the way are removed") {
  test::TempDir dir;
  std::string a = (dir.path / "made" / "a.h").string();
  dir.write("blocker", "x");
  std::string b = (dir.path / "blocker" / "x" / "y" / "b.cpp").string();
  std::string error;
  CHECK_FALSE(driver::writeFilesAtomically({{a, "A"}, {b, "B"}}, error));
  CHECK(error.find("'" + (dir.path / "blocker").string() + "' is not a directory") != std::string::npos);
  CHECK_FALSE(fs::exists(dir.path / "made"));
  CHECK(entryCount(dir.path) == 1);
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

// Regression (fixed): writeFilesAtomically renamed the temporaries one after the other; when a
// later destination could not be replaced (here it is an existing directory), the earlier files had
// already been replaced. Now a directory destination is refused before anything is renamed.
TEST_CASE("an existing file is untouched when a later rename fails") {
  test::TempDir dir;
  std::string a = dir.write("a.h", "old contents");
  fs::create_directories(dir.path / "b.cpp" / "inside");
  std::string b = (dir.path / "b.cpp").string();
  std::string error;
  CHECK_FALSE(driver::writeFilesAtomically({{a, "new contents"}, {b, "B"}}, error));
  CHECK(error.find("b.cpp") != std::string::npos);
  CHECK(dir.read("a.h") == "old contents");
  // a.h, b.cpp/, b.cpp/inside/: no temporaries or backups left.
  CHECK(entryCount(dir.path) == 3);
}

namespace {

// Fails the second rename of a batch (the first one goes through), as a full disk or a lost
// permission half-way would; later renames (the rollback) work again.
int renameCalls = 0;
int failSecondRename(const char* from, const char* to) {
  if (++renameCalls == 2) {
    errno = EACCES;
    return -1;
  }
  return std::rename(from, to);
}

struct RenameHook {
  driver::RenameFn old;
  explicit RenameHook(driver::RenameFn fn) : old(driver::setRenameForTesting(fn)) { renameCalls = 0; }
  ~RenameHook() { driver::setRenameForTesting(old); }
};

}  // namespace

TEST_CASE("a rename failing half-way puts the files already replaced back") {
  test::TempDir dir;
  std::string a = dir.write("a.h", "old A");
  std::string b = (dir.path / "new" / "b.cpp").string();  // does not exist yet, nor does its directory
  std::string c = dir.write("c.json", "old C");
  std::string error;
  {
    RenameHook hook(&failSecondRename);
    CHECK_FALSE(driver::writeFilesAtomically({{a, "new A"}, {b, "B"}, {c, "new C"}}, error));
  }
  CHECK(error.find("cannot replace") != std::string::npos);
  CHECK(error.find("b.cpp") != std::string::npos);
  CHECK(dir.read("a.h") == "old A");   // replaced, then restored from its backup
  CHECK(dir.read("c.json") == "old C");  // never touched
  CHECK_FALSE(fs::exists(b));
  CHECK_FALSE(fs::exists(dir.path / "new"));  // the directory this call created is gone again
  CHECK(entryCount(dir.path) == 2);            // no temporaries, no backups
}

TEST_CASE("a file new to the batch is removed again when a later rename fails") {
  test::TempDir dir;
  std::string a = (dir.path / "a.npy").string(), b = (dir.path / "b.npy").string();
  std::string error;
  {
    RenameHook hook(&failSecondRename);
    CHECK_FALSE(driver::writeFilesAtomically({{a, "A"}, {b, "B"}}, error));
  }
  CHECK_FALSE(fs::exists(a));
  CHECK_FALSE(fs::exists(b));
  CHECK(entryCount(dir.path) == 0);
}

TEST_CASE("replacing keeps no backup behind, and a path given twice gets its last content") {
  test::TempDir dir;
  std::string a = dir.write("a.h", "old");
  std::string error;
  REQUIRE_MESSAGE(driver::writeFilesAtomically({{a, "first"}, {a, "second"}}, error), error);
  CHECK(dir.read("a.h") == "second");
  CHECK(entryCount(dir.path) == 1);
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

TEST_CASE("stnc run writes all of its .npy outputs or none") {
  if (!fs::exists(STNC_EXE_PATH)) {
    MESSAGE("stnc executable not built: skipped");
    return;
  }
  test::TempDir dir;
  dir.write("p.stn", "stencil s(i) { in u; out a, b; a = u; b = 2 * u; }\n");
  // One .npy input of 3 doubles (1, 2, 3).
  std::string npy = std::string("\x93NUMPY\x01\x00", 8);
  std::string hdr = "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }";
  hdr.append((64 - (10 + hdr.size() + 1) % 64) % 64, ' ');
  hdr += '\n';
  npy += static_cast<char>(hdr.size() & 0xff);
  npy += static_cast<char>(hdr.size() >> 8);
  npy += hdr;
  for (double v : {1.0, 2.0, 3.0}) npy.append(reinterpret_cast<const char*>(&v), 8);
  dir.write("u.npy", npy);
  dir.write("a.npy", "previous a");
  fs::create_directories(dir.path / "b.npy");  // the second output cannot be written
  std::string cmd = "cd '" + dir.path.string() + "' && STNC_CACHE_DIR=cache '" + STNC_EXE_PATH + "' run p.stn --stdlib '" +
                    STNC_SOURCE_DIR + "/stdlib' --stencil s --size 3 --in u=u.npy --out a=a.npy --out b=b.npy --backend interp > run.log 2>&1";
  CHECK(std::system(cmd.c_str()) != 0);
  CHECK(dir.read("run.log").find("b.npy") != std::string::npos);
  CHECK(dir.read("a.npy") == "previous a");  // not replaced by a partial result
  for (const auto& e : fs::directory_iterator(dir.path))
    CHECK_MESSAGE(e.path().filename().string().find(".tmp.") == std::string::npos, e.path().string());
}
