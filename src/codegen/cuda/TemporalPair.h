// emitTemporalPair: the CUDA kernel `stepPair` and its `launchPair` that advance a kernel two time
// steps in one sweep (temporal blocking), for kernels passes::planTemporal accepts. The step loop
// (CudaBackend.cpp, cuda::step) calls launchPair(L, fields..., params..., fin, stream): the swap
// pair's input is read, its output receives step 1, `fin` (a third array) step 2.
#pragma once
#include "codegen/CPrinter.h"
#include "dag/Kernel.h"
#include "passes/TemporalBlocking.h"

namespace stnc::codegen {

void emitTemporalPair(CPrinter& p, const dag::Module& m, const dag::Kernel& k, const passes::TemporalPlan& t);

}  // namespace stnc::codegen
