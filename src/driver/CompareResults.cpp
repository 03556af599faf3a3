#include "driver/CompareResults.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace stnc::driver {

namespace {

template <typename T, typename Bits>
bool sameValue(T x, T y, bool exact) {
  if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
  Bits bx, by;
  std::memcpy(&bx, &x, sizeof x);
  std::memcpy(&by, &y, sizeof y);
  if (bx == by) return true;
  if (exact) return false;
  if (std::isinf(x) || std::isinf(y)) return false;  // unequal infinities, or one finite
  const double rel = sizeof(T) == 8 ? 1e-12 : 1e-5;
  const double scale = std::fmax(1.0, std::fmax(std::fabs(double(x)), std::fabs(double(y))));
  if (std::fabs(double(x) - double(y)) <= rel * scale) return true;
  // Ulps between two finite values of the same sign (bit patterns are ordered then).
  if (std::signbit(x) != std::signbit(y)) return false;
  const Bits d = bx > by ? bx - by : by - bx;
  return d <= 16;
}

template <typename T, typename Bits>
ValueDiff compareAs(const void* a, const void* b, size_t n, bool exact) {
  ValueDiff r;
  const char* pa = static_cast<const char*>(a);
  const char* pb = static_cast<const char*>(b);
  for (size_t i = 0; i < n; ++i) {
    T x, y;
    std::memcpy(&x, pa + i * sizeof(T), sizeof(T));
    std::memcpy(&y, pb + i * sizeof(T), sizeof(T));
    if (sameValue<T, Bits>(x, y, exact)) continue;
    if (r.count++ == 0) {
      r.first = i;
      r.a = x;
      r.b = y;
    }
  }
  return r;
}

}  // namespace

ValueDiff compareValues(const void* a, const void* b, size_t n, size_t elemSize, bool exact) {
  return elemSize == 8 ? compareAs<double, uint64_t>(a, b, n, exact) : compareAs<float, uint32_t>(a, b, n, exact);
}

bool callsLibm(const dag::Context& ctx, const dag::Kernel& k) {
  for (dag::NodeId id : dag::liveNodes(ctx, k)) {
    const dag::Node& n = ctx.node(id);
    if (n.kind != dag::NodeKind::Apply) continue;
    switch (n.op) {
      case dag::Op::Exp:
      case dag::Op::Log:
      case dag::Op::Pow:
      case dag::Op::Sin:
      case dag::Op::Cos: return true;
      default: break;
    }
  }
  return false;
}

std::string describe(const ValueDiff& d, size_t n) {
  char buf[200];
  std::snprintf(buf, sizeof buf, "%zu of %zu values differ (first at %zu: %.17g vs %.17g)", d.count, n, d.first, d.a, d.b);
  return buf;
}

}  // namespace stnc::driver
