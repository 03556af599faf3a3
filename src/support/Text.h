// Small text helpers shared by every stage: lists written as "a, b, c".
#pragma once
#include <string>

namespace stnc {

// Appends `item` to a list being built in `list`, with `sep` before it unless it is the first.
inline void appendItem(std::string& list, const std::string& item, const char* sep = ", ") {
  if (!list.empty()) list += sep;
  list += item;
}

}  // namespace stnc
