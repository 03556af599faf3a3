// ConstantTable: where the CUDA kernels of an f64 stencil read their constants from.
//
// An FP64 instruction takes a 32-bit immediate (the high half of a double), so a literal such as 0.8 or
// 1/280 costs ptxas a register pair, kept live across the plane loop. The table puts every f64 constant
// whose low 32 bits are not zero into __constant__ memory (one array per stencil, `kConst_`), which the
// instructions read as operands: the fused CNS hypterm with constant coefficients went from 255
// registers and a 4-byte spill to 246 registers, no spill (bench/results/2026-12-01-queue-heads.md).
// The initializers are the exact literals, so results are the same bits. f32 kernels keep inline literals
// (a float is one 32-bit immediate).
#pragma once
#include <string>
#include <vector>

#include "codegen/CPrinter.h"
#include "codegen/KernelBody.h"
#include "dag/Kernel.h"

namespace stnc::codegen {

// The constants of k's equations (every part) that go to the table, ascending; empty for f32.
std::vector<double> constantTable(const dag::Context& ctx, const dag::Kernel& k);
// `__constant__ double kConst_[N] = {...};` (nothing when the table is empty), in the stencil's namespace.
void emitConstantTable(CPrinter& p, const dag::Context& ctx, const dag::Kernel& k);
// How emitPointBody writes a constant of k: `kConst_[i]` for the table's, the literal otherwise.
LiteralFn constantRef(const dag::Context& ctx, const dag::Kernel& k);

}  // namespace stnc::codegen
