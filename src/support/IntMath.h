// Small integer helpers shared by the passes and the backends.
#pragma once

namespace stnc {

// Floor division for a positive divisor (stencil offsets may be negative): floorDiv(-1, 4) == -1.
inline int floorDiv(int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

}  // namespace stnc
