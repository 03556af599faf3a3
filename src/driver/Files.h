// File output that never leaves a partial or half-updated result: every file is written to a
// temporary next to its destination and renamed into place only after all were written; the
// previous versions are kept (hard links) until every rename succeeded and are put back otherwise.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace stnc::driver {

// Writes all (path, content) pairs or none: on failure every destination holds what it held
// before (or does not exist, if it did not), no temporary is left, `error` says why. A path given
// twice gets its last content.
bool writeFilesAtomically(const std::vector<std::pair<std::string, std::string>>& files, std::string& error);
// Tests only: replaces the rename(2) that writeFilesAtomically uses (nullptr: the real one);
// returns the previous function.
using RenameFn = int (*)(const char* from, const char* to);
RenameFn setRenameForTesting(RenameFn fn);
bool readFile(const std::string& path, std::string& out);
// 64-bit FNV-1a, as hex; used for cache keys.
std::string hashHex(const std::string& data);

}  // namespace stnc::driver
