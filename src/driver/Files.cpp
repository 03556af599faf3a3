#include "driver/Files.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace stnc::driver {

namespace fs = std::filesystem;

namespace {

// rename(2), replaceable by tests (setRenameForTesting) to inject a failure half-way.
RenameFn gRename = &std::rename;

bool isDirectory(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool exists(const std::string& p) {
  struct stat st;
  return ::lstat(p.c_str(), &st) == 0;
}

// Why `dir` could not be created: `-o FILE` names an ancestor that exists as something else, or the
// file system refused (create_directories' error).
std::string whyNoDirectory(const fs::path& dir, const std::error_code& ec) {
  for (fs::path p = dir; !p.empty(); p = p.parent_path()) {
    if (exists(p.string()) && !isDirectory(p.string())) return "'" + p.string() + "' is not a directory";
    if (p == p.parent_path()) break;
  }
  return "cannot create directory '" + dir.string() + "'" + (ec ? ": " + ec.message() : "");
}

}  // namespace

RenameFn setRenameForTesting(RenameFn fn) {
  RenameFn old = gRename;
  gRename = fn ? fn : &std::rename;
  return old;
}

// Three phases, so that a failure anywhere leaves every destination as it was:
//   1. write every new content to a temporary next to its destination (creating directories);
//   2. keep the previous version of every existing destination as a hard link (a copy where the
//      file system has no hard links), so the destination itself is never missing;
//   3. rename the temporaries over the destinations. If one rename fails, the destinations
//      already replaced get their previous version back (rename of the backup: atomic) or are
//      removed if they did not exist, and the directories this call created are removed.
bool writeFilesAtomically(const std::vector<std::pair<std::string, std::string>>& filesIn, std::string& error) {
  // A path given twice: the last content wins (as if the files were written in order).
  std::vector<std::pair<std::string, std::string>> files;
  for (size_t i = 0; i < filesIn.size(); ++i) {
    bool later = false;
    for (size_t j = i + 1; j < filesIn.size(); ++j) later |= filesIn[j].first == filesIn[i].first;
    if (!later) files.push_back(filesIn[i]);
  }
  const std::string tag = ".tmp." + std::to_string(::getpid()) + ".";
  std::vector<fs::path> createdDirs;  // deepest last
  std::vector<std::string> temps, backups(files.size());
  std::vector<bool> committed(files.size(), false);
  auto cleanup = [&] {
    std::error_code ec;
    for (auto& t : temps) std::remove(t.c_str());
    for (auto& b : backups)
      if (!b.empty()) std::remove(b.c_str());
    for (size_t i = createdDirs.size(); i-- > 0;) fs::remove(createdDirs[i], ec);  // only if empty
  };

  // 1. temporaries
  for (size_t i = 0; i < files.size(); ++i) {
    const std::string& path = files[i].first;
    if (isDirectory(path)) {
      error = "cannot write '" + path + "': it is a directory";
      cleanup();
      return false;
    }
    fs::path parent = fs::path(path).parent_path();
    if (!parent.empty()) {
      std::vector<fs::path> missing;
      for (fs::path p = parent; !p.empty() && !exists(p.string()); p = p.parent_path()) {
        missing.push_back(p);
        if (p == p.parent_path()) break;
      }
      std::error_code ec;
      fs::create_directories(parent, ec);
      if (!isDirectory(parent.string())) {
        error = "cannot write '" + path + "': " + whyNoDirectory(parent, ec);
        cleanup();
        return false;
      }
      for (size_t m = missing.size(); m-- > 0;)
        if (isDirectory(missing[m].string())) createdDirs.push_back(missing[m]);
    }
    std::string tmp = path + tag + std::to_string(i);
    std::ofstream out(tmp, std::ios::binary);
    if (!out) {
      error = "cannot write '" + path + "'";
      cleanup();
      return false;
    }
    temps.push_back(tmp);
    out << files[i].second;
    out.close();
    if (!out) {
      error = "cannot write '" + path + "' (disk full?)";
      cleanup();
      return false;
    }
  }

  // 2. backups of the previous versions
  for (size_t i = 0; i < files.size(); ++i) {
    const std::string& path = files[i].first;
    if (!exists(path)) continue;
    std::string bak = path + tag + "bak";
    std::remove(bak.c_str());
    if (::link(path.c_str(), bak.c_str()) != 0) {
      std::error_code ec;
      if (!fs::copy_file(path, bak, fs::copy_options::overwrite_existing, ec)) {
        std::remove(bak.c_str());
        error = "cannot keep a backup of '" + path + "' before replacing it: " + ec.message();
        cleanup();
        return false;
      }
    }
    backups[i] = bak;
  }

  // 3. renames, rolled back on the first failure
  for (size_t i = 0; i < files.size(); ++i) {
    const std::string& path = files[i].first;
    if (gRename(temps[i].c_str(), path.c_str()) == 0) {
      committed[i] = true;
      continue;
    }
    error = "cannot replace '" + path + "': " + std::strerror(errno);
    std::string lost;
    for (size_t j = 0; j < i; ++j) {
      if (!committed[j]) continue;
      const std::string& done = files[j].first;
      if (backups[j].empty()) {
        if (std::remove(done.c_str()) != 0) lost += " '" + done + "'";
      } else if (gRename(backups[j].c_str(), done.c_str()) == 0) {
        backups[j].clear();  // moved back into place
      } else {
        lost += " '" + done + "' (previous version kept as '" + backups[j] + "')";
        backups[j].clear();  // keep it for the user
      }
    }
    if (!lost.empty()) error += "; could not restore" + lost;
    cleanup();
    return false;
  }
  for (auto& b : backups)
    if (!b.empty()) std::remove(b.c_str());
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
