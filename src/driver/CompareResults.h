// Comparing the arrays two builds of one kernel wrote: the autotuner keeps a candidate schedule only
// if its results equal those of the policy's schedule (a faster kernel that computes something else
// is a compiler bug, not a win).
#pragma once
#include <cstddef>
#include <string>

#include "dag/Kernel.h"

namespace stnc::driver {

struct ValueDiff {
  size_t count = 0;   // values that differ
  size_t first = 0;   // index of the first one
  double a = 0, b = 0;  // its two values
};

// Compares n values of elemSize bytes (4: float, 8: double). Exact: bit for bit, except that NaN
// equals NaN whatever its payload. Not exact (kernels calling exp/log/pow/sin/cos): within 16 ulp
// or 1e-12 (f64) / 1e-5 (f32) of max(1, |a|, |b|), the random campaign's tolerance.
ValueDiff compareValues(const void* a, const void* b, size_t n, size_t elemSize, bool exact);

// True when the kernel's live DAG calls a libm function (exp, log, pow, sin, cos).
bool callsLibm(const dag::Context& ctx, const dag::Kernel& k);

// "3 of 1000 values differ (first at 17: 1.5 vs 1.25)".
std::string describe(const ValueDiff& d, size_t n);

}  // namespace stnc::driver
