#include "sema/ScheduleArgs.h"

#include <cstdlib>

namespace stnc::sema {

namespace {
// A whole decimal number in [lo, hi]; false otherwise (no sign, no fraction, no exponent).
bool intIn(const std::string& s, int lo, int hi, int& out) {
  if (s.empty() || s.size() > 6 || s.find_first_not_of("0123456789") != std::string::npos) return false;
  out = std::atoi(s.c_str());
  return out >= lo && out <= hi;
}
}  // namespace

const std::vector<std::string>& scheduleKeys() {
  static const std::vector<std::string> keys = {"block", "chunk", "heads", "prefetch", "rows", "slab_vec", "smem", "tma", "unroll", "vec"};
  return keys;
}

bool isScheduleStrategy(const std::string& word) { return word == "auto" || word == "naive" || word == "stream"; }

bool readScheduleArg(const std::string& key, const std::string& value, dag::ScheduleRequest& r, std::string& expected) {
  expected.clear();
  if (key == "block") {
    expected = "XxY with X a multiple of 16 and X*Y <= 1024, e.g. 32x8";
    const size_t x = value.find('x');
    int bx = 0, by = 0;
    if (x == std::string::npos || !intIn(value.substr(0, x), 16, 1024, bx) || !intIn(value.substr(x + 1), 1, 64, by) || bx % 16 != 0 ||
        bx * by > 1024)
      return false;
    r.blockX = bx, r.blockY = by;
    return true;
  }
  if (key == "smem") {
    expected = "auto, on or off";
    if (value != "auto" && value != "on" && value != "off") return false;
    r.smem = value;
    return true;
  }
  if (key == "tma") {
    expected = "auto, on or off";
    if (value != "auto" && value != "on" && value != "off") return false;
    r.tma = value;
    return true;
  }
  if (key == "heads") {
    expected = "auto, ring or global";
    if (value != "auto" && value != "ring" && value != "global") return false;
    r.heads = value;
    return true;
  }
  struct Num {
    const char* key;
    int lo, hi;
    int dag::ScheduleRequest::*field;
    const char* expected;
  };
  static const Num nums[] = {
      {"chunk", 1, 1 << 20, &dag::ScheduleRequest::chunk, "a whole number of planes >= 1"},
      {"prefetch", 0, 8, &dag::ScheduleRequest::prefetch, "a whole number from 0 to 8"},
      {"rows", 1, 8, &dag::ScheduleRequest::rows, "a whole number from 1 to 8"},
      {"unroll", 1, 16, &dag::ScheduleRequest::unroll, "a whole number from 1 to 16"},
      {"vec", 1, 4, &dag::ScheduleRequest::vec, "1, 2 or 4"},
      {"slab_vec", 1, 4, &dag::ScheduleRequest::slabVec, "1, 2 or 4"},
  };
  for (const Num& n : nums) {
    if (key != n.key) continue;
    expected = n.expected;
    int v = 0;
    if (!intIn(value, n.lo, n.hi, v) || ((key == "vec" || key == "slab_vec") && v == 3)) return false;
    r.*(n.field) = v;
    return true;
  }
  return false;
}

}  // namespace stnc::sema
