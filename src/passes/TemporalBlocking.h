// planTemporal: whether the CUDA step loop may fuse two time steps of a kernel into one sweep
// (temporal blocking, T = 2) and why not when it may not. The fused kernel (codegen/cuda/
// TemporalPair.cpp) reads the input of the swap pair once and writes both steps' results, so it
// needs: rank 3, no regions, one output `out` that is the other half of a swap pair with an input
// `in`, `out` never read and without boundary rules of its own, `in` read with radius <= 1 (a field of
// a swap pair read at radius > 1 is refused first, with the measurement that says it does not pay) and
// along dimension 0 only on the axis (no diagonal dim-0 reads: the in-plane neighbours come from
// one shared-memory plane). Other fields are read-only (they do not change between the two steps).
//
//   stencil heat3d(i,j,k) { in u; out unew; swap u, unew; boundary u = periodic; unew = u + ...lap(u); }
//     -> ok: in = u, out = unew
#pragma once
#include <string>

#include "dag/Kernel.h"

namespace stnc::passes {

struct TemporalPlan {
  bool ok = false;
  std::string in, out;  // the swap pair: read field, written field
  std::string why;      // why it is (not) possible, for the report and the generated comment
};

TemporalPlan planTemporal(const dag::Context& ctx, const dag::Kernel& k);

// --temporal=auto fuses f64 kernels in cuda::step only when a field's allocation is at least this many GiB:
// on the H200 (star7 f64, 100 steps) the pairs ran 0.72x of single steps at 256^3, 1.04x at 512^3 (1.15 GB per
// field), 1.13x at 768^3 (3.8 GB), 1.14x at 1024^3 (bench/results/2026-12-01-s17-temporal.md).
inline constexpr int kTemporalAutoMinGiB = 2;

}  // namespace stnc::passes
