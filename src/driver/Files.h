// File output that never leaves a partial or half-updated result: every file is written to a
// temporary next to its destination and renamed into place only after all were written.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace stnc::driver {

// Writes all (path, content) pairs or none; on failure sets `error` and removes the temporaries.
bool writeFilesAtomically(const std::vector<std::pair<std::string, std::string>>& files, std::string& error);
bool readFile(const std::string& path, std::string& out);
// 64-bit FNV-1a, as hex; used for cache keys.
std::string hashHex(const std::string& data);

}  // namespace stnc::driver
