// Host-side launch text shared by the CUDA launchers (stream, fused region and sumfactor kernels): the
// device's SM count, read once, and the grid of a kernel whose blocks own a (dim 2, dim 1) tile and a
// chunk of dim 0.
#pragma once
#include <string>

#include "codegen/CPrinter.h"

namespace stnc::codegen {

// `static int sms_` (and `static int EXTRA = 0` when extra is set), filled on the first call with the
// current device's multiprocessor count (132 if it cannot be read); `once` runs in the same first call.
void emitSmCount(CPrinter& p, const std::string& extra = "", const std::string& once = "");
// Clamps chunk_ (planes of dim 0 per block, chosen by the caller) to [1, nx_] and to at most 65535 chunks.
void emitChunkClamp(CPrinter& p);
// emitChunkClamp, then declares block_ (kBlockX x kBlockY) and grid_ (gx_ x gy_ x chunks).
void emitChunkedGrid(CPrinter& p);

}  // namespace stnc::codegen
