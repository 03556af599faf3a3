// Small text helpers shared by every stage: lists written as "a, b, c"; numbers in their shortest exact form.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <string>

namespace stnc {

// Appends `item` to a list being built in `list`, with `sep` before it unless it is the first.
inline void appendItem(std::string& list, const std::string& item, const char* sep = ", ") {
  if (!list.empty()) list += sep;
  list += item;
}

// The shortest "%.Ng" text of a finite v that reads back as the same value: as a double, or (asFloat, v an f32
// value) as a float. Diagnostics, generated literals and the tests' DAG text print numbers this way.
inline std::string shortestText(double v, bool asFloat = false) {
  char buf[64];
  for (int p = 1; p <= (asFloat ? 9 : 17); ++p) {
    std::snprintf(buf, sizeof buf, "%.*g", p, v);
    if (asFloat ? std::strtof(buf, nullptr) == static_cast<float>(v) : std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

}  // namespace stnc
