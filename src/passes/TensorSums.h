// tensor-sums (with --fp-contract=on; --tensor-cores=off disables it): marks the kernels whose only output is a wide
// weighted sum of one field inside a 5 x 5 x 5 box, evaluated by the DAG as one fma chain over the terms in
// ascending (d0, b, a) order (the source's order for a sum written plane by plane, row by row):
//   v = fma(c_n, u[o_n], ... fma(c_1, u[o_1], c_0 * u[o_0]))   with o_0 < o_1 < ... < o_n
// Coefficients are constants or params. Such a kernel gets the tensor schedule (codegen/cuda/
// TensorSumKernel): per input plane one matrix product of the coefficients (rows: plane offset x output
// row) and the plane's values, on the FP64 tensor cores (mma.sync m16n8k4), whose multiply-adds run at
// twice the FMA pipe's rate on the H200 and accumulate in k order with one rounding each: the result is
// the chain's, bit for bit (measured on 16.7 M points, bench/results/2026-12-02-s18-box125.md). Only
// FP64-bound sums qualify (64 terms or more: 16 compulsory bytes per point against 128+ flops), and only
// when factor-sums would not share arithmetic (the pass runs first; factor-sums leaves marked kernels).
#pragma once
#include <optional>
#include <string>

#include "dag/Kernel.h"
#include "support/Diagnostics.h"

namespace stnc::passes {

// The tensor plan of kernel k, or nothing; *why says why not (for --report).
std::optional<dag::TensorSum> analyzeTensorSum(const dag::Context& ctx, const dag::Kernel& k, std::string* why = nullptr);
// Whether the kernel's source schedule names a strategy (then no pass picks one for it).
bool sourceChoosesStrategy(const dag::Kernel& k);
// Sets Kernel::tensorSum on every kernel analyzeTensorSum accepts; true if it marked one.
bool markTensorSums(dag::Module& m, DiagEngine& diags);

}  // namespace stnc::passes
